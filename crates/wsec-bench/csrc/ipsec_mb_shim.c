/* A thin C shim over Intel ipsec-mb's job API (its IMB_* macros are not callable from
 * Rust), used only by `wsec bench ccmp` to time the peer in the same run. Built when the
 * `ipsec-mb` feature is on (crates/wsec-cli/build.rs). */
#include <intel-ipsec-mb.h>
#include <stdint.h>
#include <stddef.h>

static IMB_MGR *mgr;
static IMB_ARCH arch;

typedef struct {
    const void *key_exp; /* 16-byte aligned expanded encryption key (AES-128) */
    const uint8_t *nonce; /* 13 octets */
    const uint8_t *aad;
    uint64_t aad_len;
    uint8_t *data; /* in place */
    uint64_t len;
    uint8_t *tag; /* out: computed tag */
    uint64_t tag_len;
} wsec_imb_job;

const char *wsec_imb_version(void) { return imb_get_version_str(); }

/* 0 on success; the architecture ipsec-mb picked in *out_arch (IMB_ARCH_*). */
int wsec_imb_init(int *out_arch) {
    if (!mgr) {
        mgr = alloc_mb_mgr(0);
        if (!mgr)
            return -1;
        init_mb_mgr_auto(mgr, &arch);
    }
    *out_arch = (int)arch;
    return 0;
}

void wsec_imb_keyexp128(const uint8_t *key, void *enc) {
    DECLARE_ALIGNED(uint8_t dec[16 * 15], 16);
    IMB_AES_KEYEXP_128(mgr, key, enc, dec);
}

static int fill_and_submit(const wsec_imb_job *x, int encrypt, int *done) {
    IMB_JOB *j = IMB_GET_NEXT_JOB(mgr);
    j->cipher_mode = IMB_CIPHER_CCM;
    j->hash_alg = IMB_AUTH_AES_CCM;
    j->cipher_direction = encrypt ? IMB_DIR_ENCRYPT : IMB_DIR_DECRYPT;
    j->chain_order = encrypt ? IMB_ORDER_HASH_CIPHER : IMB_ORDER_CIPHER_HASH;
    j->enc_keys = x->key_exp;
    j->dec_keys = x->key_exp;
    j->key_len_in_bytes = 16;
    j->src = x->data;
    j->dst = x->data;
    j->cipher_start_src_offset_in_bytes = 0;
    j->msg_len_to_cipher_in_bytes = x->len;
    j->hash_start_src_offset_in_bytes = 0;
    j->msg_len_to_hash_in_bytes = x->len;
    j->iv = x->nonce;
    j->iv_len_in_bytes = 13;
    j->u.CCM.aad = x->aad;
    j->u.CCM.aad_len_in_bytes = x->aad_len;
    j->auth_tag_output = x->tag;
    j->auth_tag_output_len_in_bytes = x->tag_len;
    j = IMB_SUBMIT_JOB(mgr);
    while (j) {
        if (j->status != IMB_STATUS_COMPLETED)
            return -1;
        (*done)++;
        j = IMB_GET_COMPLETED_JOB(mgr);
    }
    return 0;
}

/* Runs n CCM jobs through the job manager (submit all, then flush). Returns the number of
 * jobs completed, or -1 on a job error. */
int wsec_imb_ccm(const wsec_imb_job *jobs, int n, int encrypt) {
    int done = 0;
    for (int i = 0; i < n; i++)
        if (fill_and_submit(&jobs[i], encrypt, &done))
            return -1;
    IMB_JOB *j;
    while ((j = IMB_FLUSH_JOB(mgr)) != NULL) {
        if (j->status != IMB_STATUS_COMPLETED)
            return -1;
        done++;
    }
    return done;
}

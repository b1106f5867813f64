/* A thin C shim over Intel ipsec-mb's job API (its IMB_* macros are not callable from
 * Rust), used only by `wsec bench ccmp` to time the peer in the same run. Built when the
 * `ipsec-mb` feature is on (crates/wsec-cli/build.rs). */
#include <intel-ipsec-mb.h>
#include <stdint.h>
#include <stddef.h>

#include <stdlib.h>
#include <string.h>

/* One manager per requested architecture: 0 auto, 1 sse, 2 avx, 3 avx2, 4 avx512. */
static IMB_MGR *mgrs[5];
static IMB_ARCH archs[5];

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

/* 0 on success; the architecture ipsec-mb runs in *out_arch (IMB_ARCH_*). The caller asks
 * only for architectures the CPU has (the init_mb_mgr_* functions do not check). */
int wsec_imb_init_arch(int which, int *out_arch) {
    if (which < 0 || which > 4)
        return -1;
    if (!mgrs[which]) {
        IMB_MGR *m = alloc_mb_mgr(0);
        if (!m)
            return -1;
        switch (which) {
        case 0: init_mb_mgr_auto(m, &archs[0]); break;
        case 1: init_mb_mgr_sse(m); archs[1] = IMB_ARCH_SSE; break;
        case 2: init_mb_mgr_avx(m); archs[2] = IMB_ARCH_AVX; break;
        case 3: init_mb_mgr_avx2(m); archs[3] = IMB_ARCH_AVX2; break;
        case 4: init_mb_mgr_avx512(m); archs[4] = IMB_ARCH_AVX512; break;
        }
        if (imb_get_errno(m) != 0) {
            free_mb_mgr(m);
            return -1;
        }
        mgrs[which] = m;
    }
    *out_arch = (int)archs[which];
    return 0;
}

int wsec_imb_init(int *out_arch) { return wsec_imb_init_arch(0, out_arch); }

void wsec_imb_keyexp128(const uint8_t *key, void *enc) {
    DECLARE_ALIGNED(uint8_t dec[16 * 15], 16);
    IMB_AES_KEYEXP_128(mgrs[0], key, enc, dec);
}

static int fill_and_submit(IMB_MGR *mgr, const wsec_imb_job *x, int encrypt, int *done) {
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

static int flush(IMB_MGR *mgr, int done) {
    IMB_JOB *j;
    while ((j = IMB_FLUSH_JOB(mgr)) != NULL) {
        if (j->status != IMB_STATUS_COMPLETED)
            return -1;
        done++;
    }
    return done;
}

/* Runs n CCM jobs through manager `which` (submit all, then flush). Returns the number of
 * jobs completed, or -1 on a job error. */
int wsec_imb_ccm_on(int which, const wsec_imb_job *jobs, int n, int encrypt) {
    IMB_MGR *mgr = mgrs[which];
    int done = 0;
    for (int i = 0; i < n; i++)
        if (fill_and_submit(mgr, &jobs[i], encrypt, &done))
            return -1;
    return flush(mgr, done);
}

int wsec_imb_ccm(const wsec_imb_job *jobs, int n, int encrypt) { return wsec_imb_ccm_on(0, jobs, n, encrypt); }

/* ---- AES-128-GCM (12-octet IV, 16-octet tag) ---- */

typedef struct {
    const struct gcm_key_data *key;
    const uint8_t *iv; /* 12 octets */
    const uint8_t *aad;
    uint64_t aad_len;
    uint8_t *data;
    uint64_t len;
    uint8_t *tag; /* out: computed tag (16) */
} wsec_imb_gjob;

/* A GCM key (round keys and GHASH powers) for manager `which`, 64-byte aligned; free with
 * wsec_imb_gcm_key_free. */
struct gcm_key_data *wsec_imb_gcm_key128(int which, const uint8_t *key) {
    struct gcm_key_data *k = aligned_alloc(64, (sizeof(struct gcm_key_data) + 63) / 64 * 64);
    if (k)
        IMB_AES128_GCM_PRE(mgrs[which], key, k);
    return k;
}

void wsec_imb_gcm_key_free(struct gcm_key_data *k) { free(k); }

int wsec_imb_gcm_on(int which, const wsec_imb_gjob *jobs, int n, int encrypt) {
    IMB_MGR *mgr = mgrs[which];
    int done = 0;
    for (int i = 0; i < n; i++) {
        const wsec_imb_gjob *x = &jobs[i];
        IMB_JOB *j = IMB_GET_NEXT_JOB(mgr);
        j->cipher_mode = IMB_CIPHER_GCM;
        j->hash_alg = IMB_AUTH_AES_GMAC;
        j->cipher_direction = encrypt ? IMB_DIR_ENCRYPT : IMB_DIR_DECRYPT;
        j->chain_order = encrypt ? IMB_ORDER_CIPHER_HASH : IMB_ORDER_HASH_CIPHER;
        j->enc_keys = x->key;
        j->dec_keys = x->key;
        j->key_len_in_bytes = 16;
        j->src = x->data;
        j->dst = x->data;
        j->cipher_start_src_offset_in_bytes = 0;
        j->msg_len_to_cipher_in_bytes = x->len;
        j->hash_start_src_offset_in_bytes = 0;
        j->msg_len_to_hash_in_bytes = x->len;
        j->iv = x->iv;
        j->iv_len_in_bytes = 12;
        j->u.GCM.aad = x->aad;
        j->u.GCM.aad_len_in_bytes = x->aad_len;
        j->auth_tag_output = x->tag;
        j->auth_tag_output_len_in_bytes = 16;
        j = IMB_SUBMIT_JOB(mgr);
        while (j) {
            if (j->status != IMB_STATUS_COMPLETED)
                return -1;
            done++;
            j = IMB_GET_COMPLETED_JOB(mgr);
        }
    }
    return flush(mgr, done);
}

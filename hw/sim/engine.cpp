//======================================================================
// engine.cpp
// The AP's AES-CCM engine as a device: a Verilator model of ccm_engine
// (one configuration, built by `hw/run engine CFG`) behind a descriptor
// ring in shared memory, the way a PCIe card's DMA engine sits behind its
// rings. `wsec ap` with crypto_offload=fpga-sim starts this process,
// writes descriptors and payloads into the ring, rings the doorbell (a
// message on a socket, as an MMIO write would) and waits for the
// completion interrupt (a message back). Every frame is protected or
// opened by the RTL, clocked cycle by cycle; the cycles from descriptor
// accepted to tag beat are written back with the result.
//
//   wsec-engine SHM_PATH DOORBELL_SOCKET
//
// Ring layout (little-endian; docs/hw.md "Host interface"):
//   0    u32 magic 'WSEC' 0x43455357, u32 version, u32 entries, u32 entry_size
//   16   u32 mode, k, r, rom, dec, kt_slots   (written by the engine)
//   64   u32 prod  (host: entries written so far)
//   128  u32 cons  (engine: entries completed so far)
//   4096 + i * entry_size: entry i mod entries:
//     0  u8 op (1 key-table write, 2 seal, 3 open), 1 u8 spp, 2 u8 kidx,
//     3  u8 status (engine: 1 ok, 2 MIC mismatch, 3 bad descriptor)
//     4  u16 len, 8 u64 pn, 16 key[16], 32 hdr[32], 64 mic[8] (open: in;
//     seal/open: the engine's MIC out at 72), 80 u64 cycles,
//     256  data: payload in, result out (in place); key-table write:
//          16 words x 16 octets, word j of slot kidx (round key j).
//======================================================================
#include "Vccm_engine.h"
#include "verilated.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef CFG_MODE
#error "CFG_MODE, CFG_K, CFG_R, CFG_ROM, CFG_DEC come from hw/run engine"
#endif

static const uint32_t MAGIC = 0x43455357;
static const uint32_t VERSION = 1;
static const size_t HDR = 4096;
static const size_t DATA = 256;
static const uint32_t KT_SLOTS = (CFG_ROM == 3) ? 32 : 0;

enum { OP_KT = 1, OP_SEAL = 2, OP_OPEN = 3 };
enum { ST_OK = 1, ST_MIC = 2, ST_BAD = 3 };

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

// A wide Verilator port (VlWide, 32-bit words, word 0 = bits [31:0]) from
// octets with octet 0 in the most significant bits, and back.
template <typename W> static void set_wide(W &w, const uint8_t *b, int n) {
    int words = n / 4;
    for (int i = 0; i < words; i++) {
        const uint8_t *q = b + 4 * (words - 1 - i);
        w[i] = (uint32_t(q[0]) << 24) | (uint32_t(q[1]) << 16) | (uint32_t(q[2]) << 8) | q[3];
    }
}
template <typename W> static void get_wide(const W &w, uint8_t *b, int n) {
    int words = n / 4;
    for (int i = 0; i < words; i++) {
        uint8_t *q = b + 4 * (words - 1 - i);
        uint32_t v = w[i];
        q[0] = v >> 24; q[1] = v >> 16; q[2] = v >> 8; q[3] = v;
    }
}

struct Engine {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vccm_engine> top;
    uint64_t cycles = 0;

    Engine() : ctx(new VerilatedContext), top(new Vccm_engine(ctx.get())) {
        Vccm_engine &t = *top;
        t.clk = 0; t.reset_n = 0; t.s_desc_valid = 0; t.s_valid = 0; t.m_ready = 0; t.kt_we = 0;
        t.eval();
        for (int i = 0; i < 4; i++) tick();
        t.reset_n = 1;
        t.eval();
        tick();
        cycles = 0;
    }
    ~Engine() { top->final(); }

    // One clock: the inputs set now are sampled at the rising edge.
    void tick() {
        top->clk = 1; top->eval();
        top->clk = 0; top->eval();
        cycles++;
    }

    // Key-table write port: 16 words of slot kidx (ROM = 3 only).
    void kt_write(uint8_t slot, const uint8_t *words) {
        Vccm_engine &t = *top;
        for (int j = 0; j < 16; j++) {
            t.kt_we = 1;
            t.kt_addr = (uint16_t(slot) << 4) | j;
            set_wide(t.kt_data, words + 16 * j, 16);
            tick();
        }
        t.kt_we = 0;
        t.eval();
    }

    // One frame through the engine: returns the status; out (ceil(len/16)
    // blocks) and mic are the result beats; *cyc the cycles from the
    // descriptor accepted to the tag beat.
    int frame(bool dec, const uint8_t *key, const uint8_t *hdr, uint64_t pn, uint16_t len, bool spp,
              uint8_t kidx, const uint8_t *mic_in, const uint8_t *in, uint8_t *out, uint8_t *mic_out,
              uint64_t *cyc) {
        Vccm_engine &t = *top;
        const uint32_t nblk = (len + 15) / 16;
        // Descriptor beat.
        t.s_desc_valid = 1;
        set_wide(t.s_desc_key, key, 16);
        set_wide(t.s_desc_hdr, hdr, 32);
        t.s_desc_pn = pn & 0xffffffffffffULL;
        t.s_desc_len = len;
        t.s_desc_spp = spp;
        t.s_desc_kidx = kidx & 31;
        t.s_desc_dec = dec;
        uint64_t m = 0;
        for (int i = 0; i < 8; i++) m = (m << 8) | mic_in[i];
        t.s_desc_mic = m;
        t.m_ready = 1;
        for (int guard = 0;; guard++) {
            t.eval();
            if (t.s_desc_ready) break;
            if (guard > 100000) return ST_BAD;
            tick();
        }
        tick();
        t.s_desc_valid = 0;
        uint64_t c0 = cycles;
        uint32_t ib = 0, ob = 0;
        uint8_t blk[16];
        // Payload in, results out, until the tag beat; the guard bounds a
        // hung model (never expected: the bench checks every configuration).
        const uint64_t limit = 64ULL * (nblk + 8) * 16 + 1000;
        for (;;) {
            if (ib < nblk) {
                memset(blk, 0, 16);
                uint32_t n = (len - 16 * ib) < 16 ? (len - 16 * ib) : 16;
                memcpy(blk, in + 16 * ib, n);
                set_wide(t.s_data, blk, 16);
                t.s_valid = 1;
            } else {
                t.s_valid = 0;
            }
            t.eval();
            bool s_fire = t.s_valid && t.s_ready;
            bool m_fire = t.m_valid && t.m_ready;
            bool tag = false, ok = false;
            if (m_fire) {
                get_wide(t.m_data, blk, 16);
                if (t.m_tag) {
                    tag = true;
                    ok = t.m_ok;
                    memcpy(mic_out, blk, 8);
                } else if (ob < nblk) {
                    uint32_t n = (len - 16 * ob) < 16 ? (len - 16 * ob) : 16;
                    memcpy(out + 16 * ob, blk, n);
                    ob++;
                }
            }
            tick();
            if (s_fire) ib++;
            if (tag) {
                t.s_valid = 0;
                *cyc = cycles - c0;
                if (ob != nblk) return ST_BAD;
                return ok ? ST_OK : ST_MIC;
            }
            if (cycles - c0 > limit) return ST_BAD;
        }
    }
};

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s SHM_PATH DOORBELL_SOCKET\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDWR);
    if (fd < 0) { perror("wsec-engine: open ring"); return 1; }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)HDR) { fprintf(stderr, "wsec-engine: ring too small\n"); return 1; }
    uint8_t *ring = (uint8_t *)mmap(nullptr, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring == MAP_FAILED) { perror("wsec-engine: mmap"); return 1; }
    close(fd);
    int bell = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (bell < 0 || strlen(argv[2]) >= sizeof sa.sun_path) { fprintf(stderr, "wsec-engine: doorbell path\n"); return 1; }
    strcpy(sa.sun_path, argv[2]);
    if (connect(bell, (struct sockaddr *)&sa, sizeof sa) != 0) { perror("wsec-engine: doorbell"); return 1; }
    const uint32_t entries = rd32(ring + 8), esize = rd32(ring + 12);
    if (rd32(ring) != MAGIC || rd32(ring + 4) != VERSION || entries == 0 || esize < DATA + 16 ||
        HDR + (uint64_t)entries * esize > (uint64_t)st.st_size) {
        fprintf(stderr, "wsec-engine: not a wsec ring (magic, version or size)\n");
        return 1;
    }
    const uint32_t maxlen = esize - DATA;
    Engine e;
    wr32(ring + 16, CFG_MODE); wr32(ring + 20, CFG_K); wr32(ring + 24, CFG_R);
    wr32(ring + 28, CFG_ROM); wr32(ring + 32, CFG_DEC); wr32(ring + 36, KT_SLOTS);
    uint32_t *prod = (uint32_t *)(ring + 64), *cons = (uint32_t *)(ring + 128);
    uint32_t done = __atomic_load_n(cons, __ATOMIC_ACQUIRE);
    // Ready: the first interrupt.
    if (send(bell, &done, 4, MSG_NOSIGNAL) != 4) return 1;
    std::unique_ptr<uint8_t[]> tmp(new uint8_t[maxlen]);
    for (;;) {
        uint32_t msg;
        ssize_t n = recv(bell, &msg, 4, MSG_WAITALL);
        if (n == 0) return 0;   // the host closed the doorbell: power off
        if (n < 0) { if (errno == EINTR) continue; perror("wsec-engine: doorbell"); return 1; }
        uint32_t p = __atomic_load_n(prod, __ATOMIC_ACQUIRE);
        while (done != p) {
            uint8_t *d = ring + HDR + (size_t)(done % entries) * esize;
            uint8_t *data = d + DATA;
            uint8_t op = d[0];
            uint16_t len; memcpy(&len, d + 4, 2);
            uint64_t cyc = 0;
            uint8_t status = ST_BAD;
            if (op == OP_KT) {
                if (KT_SLOTS && d[2] < KT_SLOTS) {
                    uint64_t c0 = e.cycles;
                    e.kt_write(d[2], data);
                    cyc = e.cycles - c0;
                    status = ST_OK;
                }
            } else if ((op == OP_SEAL || (op == OP_OPEN && CFG_DEC)) && len <= maxlen) {
                status = e.frame(op == OP_OPEN, d + 16, d + 32, rd64(d + 8), len, d[1] & 1, d[2], d + 64,
                                 data, tmp.get(), d + 72, &cyc);
                // A frame whose MIC fails is never handed back: its plaintext
                // stays in the engine's buffer and the host's is zeroed.
                if (status == ST_OK) memcpy(data, tmp.get(), len);
                else { memset(data, 0, len); memset(d + 72, 0, 8); }
                memset(tmp.get(), 0, len);
            }
            wr64(d + 80, cyc);
            d[3] = status;
            done++;
            __atomic_store_n(cons, done, __ATOMIC_RELEASE);
        }
        if (send(bell, &done, 4, MSG_NOSIGNAL) != 4) return 0;
    }
}

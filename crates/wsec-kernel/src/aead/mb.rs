//! Multi-buffer AES-CCM on AVX-512 + VAES: the CBC-MAC chains of 8 independent
//! messages (each with its own key) advance together, four per 512-bit register, with each
//! message's CTR keystream computed in the same rounds.
//!
//! # Why
//! One CCM message is bound by its CBC-MAC chain: `Nr` dependent AESENC per 16 octets. The
//! AES units can start one 512-bit AESENC (four blocks) per cycle, so a single chain leaves
//! them idle most of the time. Interleaving the chains of independent messages (the
//! technique of Intel's ipsec-mb "job manager") fills them, with output byte-identical to
//! one-at-a-time CCM, so every CCMP peer benefits with nothing changed on the air.
//!
//! # Scheme
//! Restricted to what CCMP needs, so the step schedule is the same for every lane: L = 2,
//! AAD of 15 to 30 octets (exactly two formatted AAD blocks; every CCMP AAD is 22 to 30
//! octets). A lane's CBC-MAC input is `B0, X1, X2, P_1, ..., P_pb` (`n = 3 + pb` blocks).
//! At step `s` every lane chains its block `s` and computes the keystream block `S_s`
//! (counter `s`): `S_0` masks the tag, and payload block `i` (chained at step `i + 2`) uses
//! `S_i`, computed two steps earlier and kept in a two-deep register ring. Decryption uses
//! `S_s` at once for block `s` and chains the plaintext two steps later, from the same ring.
//! Lanes of different lengths idle (masked) once their `n` steps are done; the caller sorts
//! jobs by length so that lanes of one batch have similar lengths. Partial blocks use
//! AVX-512BW masked loads and stores, so nothing outside a message is read or written.
//!
//! Safety model: `aesni::has_vaes_avx512` checks every CPU feature the kernels are compiled
//! for (a key of level `Z512` exists only after that check); the only entry point, [`run`],
//! is `unsafe` and requires that check and the lane invariants documented on [`Lane`].
#![allow(clippy::needless_range_loop)]
use super::aesni::Rk;
use core::arch::x86_64::*;

/// One message of a batch.
///
/// Invariants (the caller's): `data..data+len` is valid for reads and writes and belongs to
/// no other lane; `len <= 65535`; `rk` is an expanded key with the batch's round count;
/// `pre` holds B0 and the two formatted AAD blocks, `a0` the counter block A0.
#[derive(Clone, Copy)]
pub(crate) struct Lane {
    pub rk: *const Rk,
    pub data: *mut u8,
    pub len: usize,
    pub pre: [[u8; 16]; 3],
    pub a0: [u8; 16],
    /// Output: the full 16-octet `T ^ S_0`.
    pub tag: [u8; 16],
    /// Takes part in no step.
    pub idle: bool,
}

impl Lane {
    /// A lane that takes part in no step (fills a batch up to a multiple of four).
    pub(crate) fn idle(rk: *const Rk) -> Lane {
        Lane { rk, data: core::ptr::NonNull::<u8>::dangling().as_ptr(), len: 0, pre: [[0; 16]; 3], a0: [0; 16], tag: [0; 16], idle: true }
    }

    fn steps(&self) -> usize {
        3 + self.len.div_ceil(16)
    }
}

/// Per-group (four lanes) state that does not live in registers.
struct Group {
    k: [__m512i; 15],
    kx: __m512i,
    a0: __m512i,
    pre: [__m512i; 3],
    ptr: [*mut u8; 4],
    len: [usize; 4],
    /// Steps of each lane (0 for an idle lane).
    n: [usize; 4],
    /// Payload blocks that are full in every lane.
    full: usize,
    /// Steps during which every lane is active.
    nmin: usize,
}

/// # Safety
/// The caller runs with AVX-512F enabled; each of the four pointers has 16 readable octets.
#[inline(always)]
unsafe fn load4(p: [*const u8; 4]) -> __m512i {
    // SAFETY: caller guarantees 16 readable octets at each pointer; AVX-512F enabled.
    unsafe {
        let z = _mm512_castsi128_si512(_mm_loadu_si128(p[0].cast()));
        let z = _mm512_inserti32x4::<1>(z, _mm_loadu_si128(p[1].cast()));
        let z = _mm512_inserti32x4::<2>(z, _mm_loadu_si128(p[2].cast()));
        _mm512_inserti32x4::<3>(z, _mm_loadu_si128(p[3].cast()))
    }
}

/// # Safety
/// The caller runs with AVX-512F enabled.
#[inline(always)]
unsafe fn load4_arr(b: [&[u8; 16]; 4]) -> __m512i {
    // SAFETY: four 16-octet arrays.
    unsafe { load4([b[0].as_ptr(), b[1].as_ptr(), b[2].as_ptr(), b[3].as_ptr()]) }
}

/// Octets of lane block `i` that belong to the message (0..=16).
#[inline(always)]
fn avail(len: usize, i: usize) -> usize {
    len.saturating_sub(16 * i).min(16)
}

#[inline(always)]
fn mask16(r: usize) -> u16 {
    ((1u32 << r) - 1) as u16
}

impl Group {
    /// The four lanes' key, counter and MAC state.
    ///
    /// # Safety
    /// The caller runs with AES-NI, AVX-512F/VL/BW and VAES enabled; the lanes hold the invariants documented on [`Lane`].
    #[inline(always)]
    unsafe fn new<const NR: usize>(l: &[Lane]) -> Group {
        // SAFETY: the round keys are 15 blocks each; AVX-512F enabled by the caller.
        unsafe {
            let mut k = [_mm512_setzero_si512(); 15];
            for r in 0..=NR {
                k[r] = load4([(*l[0].rk)[r].as_ptr(), (*l[1].rk)[r].as_ptr(), (*l[2].rk)[r].as_ptr(), (*l[3].rk)[r].as_ptr()]);
            }
            let kx = _mm512_xor_si512(k[NR], k[0]);
            let a0 = load4_arr([&l[0].a0, &l[1].a0, &l[2].a0, &l[3].a0]);
            let mut pre = [_mm512_setzero_si512(); 3];
            for j in 0..3 {
                pre[j] = load4_arr([&l[0].pre[j], &l[1].pre[j], &l[2].pre[j], &l[3].pre[j]]);
            }
            let mut n = [0; 4];
            let mut len = [0; 4];
            let mut ptr = [core::ptr::null_mut(); 4];
            for j in 0..4 {
                n[j] = if l[j].idle { 0 } else { l[j].steps() };
                len[j] = l[j].len;
                ptr[j] = l[j].data;
            }
            let live = l.iter().all(|x| !x.idle);
            let full = if live { len.iter().map(|x| x / 16).min().unwrap_or(0) } else { 0 };
            let nmin = if live { *n.iter().min().unwrap_or(&0) } else { 0 };
            Group { k, kx, a0, pre, ptr, len, n, full, nmin }
        }
    }

    /// Payload block `i` of the four lanes, zero beyond each message's end.
    ///
    /// # Safety
    /// The caller runs with AVX-512F/BW enabled; the lanes hold the invariants documented on [`Lane`].
    #[inline(always)]
    unsafe fn load(&self, i: usize) -> __m512i {
        // SAFETY: full blocks are inside every lane's message; partial and absent ones use
        // masked loads that touch only the message's octets (fault suppression covers the
        // rest). AVX-512F/VL/BW enabled by the caller.
        unsafe {
            if i < self.full {
                let o = 16 * i;
                load4([self.ptr[0].add(o), self.ptr[1].add(o), self.ptr[2].add(o), self.ptr[3].add(o)])
            } else {
                let mut v = [_mm_setzero_si128(); 4];
                for j in 0..4 {
                    let r = avail(self.len[j], i);
                    if r > 0 {
                        v[j] = _mm_maskz_loadu_epi8(mask16(r), self.ptr[j].wrapping_add(16 * i).cast());
                    }
                }
                let z = _mm512_castsi128_si512(v[0]);
                let z = _mm512_inserti32x4::<1>(z, v[1]);
                let z = _mm512_inserti32x4::<2>(z, v[2]);
                _mm512_inserti32x4::<3>(z, v[3])
            }
        }
    }

    /// Writes payload block `i` of the four lanes (only the octets inside each message).
    ///
    /// # Safety
    /// The caller runs with AVX-512F/BW enabled; the lanes hold the invariants documented on [`Lane`].
    #[inline(always)]
    unsafe fn store(&self, i: usize, z: __m512i) {
        // SAFETY: as in `load`.
        unsafe {
            let v = [
                _mm512_castsi512_si128(z),
                _mm512_extracti32x4_epi32::<1>(z),
                _mm512_extracti32x4_epi32::<2>(z),
                _mm512_extracti32x4_epi32::<3>(z),
            ];
            if i < self.full {
                for j in 0..4 {
                    _mm_storeu_si128(self.ptr[j].add(16 * i).cast(), v[j]);
                }
            } else {
                for j in 0..4 {
                    let r = avail(self.len[j], i);
                    if r > 0 {
                        _mm_mask_storeu_epi8(self.ptr[j].wrapping_add(16 * i).cast(), mask16(r), v[j]);
                    }
                }
            }
        }
    }

    /// 64-octet mask of the octets of payload block `i` inside each lane's message.
    #[inline(always)]
    fn bytes(&self, i: usize) -> __mmask64 {
        if i < self.full {
            return !0;
        }
        let mut m = 0u64;
        for j in 0..4 {
            m |= (mask16(avail(self.len[j], i)) as u64) << (16 * j);
        }
        m
    }

    /// Lanes still chaining at step `s`, as a mask of 64-bit elements (two per lane).
    #[inline(always)]
    fn active(&self, s: usize) -> __mmask8 {
        if s < self.nmin {
            return 0xff;
        }
        let mut m = 0u8;
        for j in 0..4 {
            if s < self.n[j] {
                m |= 3 << (2 * j);
            }
        }
        m
    }
}

/// The counter value `s` in octets 14..16 (big endian) of every 128-bit lane.
///
/// # Safety
/// The caller runs with AVX-512F enabled.
#[inline(always)]
unsafe fn ctr_octets(s: usize) -> __m512i {
    let hi = ((s as u16).swap_bytes() as u64) << 48;
    // SAFETY: AVX-512F enabled by the caller.
    unsafe { _mm512_maskz_set1_epi64(0xaa, hi as i64) }
}

/// The kernel body for `G` groups of four lanes. `ENCRYPT` seals, else opens (the tags are
/// then the computed ones; the caller compares).
///
/// # Safety
/// The caller runs with AES-NI, AVX-512F/VL/BW and VAES enabled; `lanes` has `4 * G` lanes holding the invariants documented on [`Lane`].
#[inline(always)]
unsafe fn body<const NR: usize, const G: usize, const ENCRYPT: bool>(lanes: &mut [Lane]) {
    debug_assert_eq!(lanes.len(), 4 * G);
    // SAFETY: (whole body) the entry points enable AES-NI, AVX-512F/VL/BW and VAES; the
    // lane invariants make every load and store inside a message.
    unsafe {
        let grp: [Group; G] = core::array::from_fn(|g| Group::new::<NR>(&lanes[4 * g..4 * g + 4]));
        let steps = grp.iter().flat_map(|g| g.n).max().unwrap_or(0);
        let zero = _mm512_setzero_si512();
        // x: MAC states pending their last round (step 0 starts the chain from B0 directly).
        let mut x = [zero; G];
        let mut s0 = [zero; G];
        let mut ring1 = [zero; G];
        let mut ring2 = [zero; G];
        for s in 0..steps {
            let ctr = ctr_octets(s);
            let mut c = [zero; G];
            let mut xn = [zero; G];
            let mut b = [zero; G];
            for g in 0..G {
                let gr = &grp[g];
                c[g] = _mm512_xor_si512(_mm512_or_si512(gr.a0, ctr), gr.k[0]);
                b[g] = if s < 3 {
                    gr.pre[s]
                } else if ENCRYPT {
                    gr.load(s - 3)
                } else {
                    ring2[g]
                };
                xn[g] =
                    if s == 0 { _mm512_xor_si512(b[g], gr.k[0]) } else { _mm512_aesenclast_epi128(x[g], _mm512_xor_si512(gr.kx, b[g])) };
            }
            for r in 1..NR {
                for g in 0..G {
                    c[g] = _mm512_aesenc_epi128(c[g], grp[g].k[r]);
                    xn[g] = _mm512_aesenc_epi128(xn[g], grp[g].k[r]);
                }
            }
            for g in 0..G {
                let gr = &grp[g];
                let ks = _mm512_aesenclast_epi128(c[g], gr.k[NR]);
                if s == 0 {
                    s0[g] = ks;
                }
                if ENCRYPT {
                    if s >= 3 {
                        gr.store(s - 3, _mm512_xor_si512(b[g], ring2[g]));
                    }
                    ring2[g] = ring1[g];
                    ring1[g] = ks;
                } else {
                    ring2[g] = ring1[g];
                    if s >= 1 {
                        let i = s - 1;
                        let p = _mm512_maskz_mov_epi8(gr.bytes(i), _mm512_xor_si512(gr.load(i), ks));
                        gr.store(i, p);
                        ring1[g] = p;
                    }
                }
                x[g] = _mm512_mask_blend_epi64(gr.active(s), x[g], xn[g]);
            }
        }
        for g in 0..G {
            let t = _mm512_xor_si512(_mm512_aesenclast_epi128(x[g], grp[g].k[NR]), s0[g]);
            let mut out = [[0u8; 16]; 4];
            _mm512_storeu_si512(out.as_mut_ptr().cast(), t);
            for j in 0..4 {
                lanes[4 * g + j].tag = out[j];
            }
        }
    }
}

macro_rules! entry {
    ($name:ident, $nr:literal, $g:literal, $enc:literal) => {
        /// # Safety
        /// The CPU must support the features this function enables (aes,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512vl,avx512bw,vaes).
        #[target_feature(enable = "aes,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512vl,avx512bw,vaes")]
        unsafe fn $name(lanes: &mut [Lane]) {
            // SAFETY: features enabled here; lane invariants from the caller.
            unsafe { body::<$nr, $g, $enc>(lanes) }
        }
    };
}
entry!(seal128_g2, 10, 2, true);
entry!(seal256_g2, 14, 2, true);
entry!(open128_g2, 10, 2, false);
entry!(open256_g2, 14, 2, false);

/// Seal (`encrypt`) or open 8 lanes of one round count (`nr` 10 or 14). (The body is
/// generic over the number of 4-lane groups; 16 lanes measured slower on Zen 4.)
///
/// # Safety
/// `aesni::has_vaes_avx512()` returned true; every lane satisfies the invariants of [`Lane`];
/// `lanes.len()` is 8.
pub(crate) unsafe fn run(lanes: &mut [Lane], nr: usize, encrypt: bool) {
    // SAFETY: forwarded from the caller.
    unsafe {
        match (lanes.len(), nr, encrypt) {
            (8, 10, true) => seal128_g2(lanes),
            (8, 14, true) => seal256_g2(lanes),
            (8, 10, false) => open128_g2(lanes),
            (8, 14, false) => open256_g2(lanes),
            _ => unreachable!("multi-buffer batches are 8 lanes of AES-128 or AES-256"),
        }
    }
}

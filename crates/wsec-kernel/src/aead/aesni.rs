//! x86_64 AES-NI backend: CTR fused into the CBC-MAC chain (see the module docs of
//! [`super`] for the scheme).
//!
//! Safety model: a [`NiKey`] can only be made by [`NiKey::new`], which checks that the CPU
//! has every feature its kernels are compiled for (AES-NI + SSE4.1, and for the VAES variant
//! also AVX-512F/VL and VAES). The existence of a `NiKey` is therefore the proof the
//! `#[target_feature]` entry points need, and its methods are safe.
//!
//! The kernel bodies are `#[inline(always)]` and generic over the round count `NR`
//! (10 for AES-128, 14 for AES-256); each is instantiated inside `#[target_feature]` entry
//! points, once per feature set, so the same source compiles to an SSE/AES-NI kernel and to an
//! EVEX kernel with 32 vector registers.
// Round loops index the schedule by round number on purpose (const NR, fully unrolled).
#![allow(clippy::needless_range_loop)]
use super::aad_first_block;
use crate::error::{Error, Result};
use core::arch::x86_64::*;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// CPU has what the `"aesni"` kernels need (PCLMULQDQ for the GCM kernel).
pub(crate) fn has_aesni() -> bool {
    std::arch::is_x86_feature_detected!("aes")
        && std::arch::is_x86_feature_detected!("pclmulqdq")
        && std::arch::is_x86_feature_detected!("sse2")
        && std::arch::is_x86_feature_detected!("ssse3")
        && std::arch::is_x86_feature_detected!("sse4.1")
}

/// CPU has what the `"vaes256"` kernels need: AVX2 with VAES and VPCLMULQDQ on 256-bit
/// registers (AMD Zen 3, Intel Ice Lake client and later, also without AVX-512).
pub(crate) fn has_vaes256() -> bool {
    has_aesni()
        && std::arch::is_x86_feature_detected!("avx")
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("vaes")
        && std::arch::is_x86_feature_detected!("vpclmulqdq")
}

/// CPU has what the `"avx512"` kernels need.
pub(crate) fn has_vaes_avx512() -> bool {
    has_vaes256()
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512bw")
}

/// Which instruction set a [`NiKey`]'s kernels are compiled for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Level {
    /// AES-NI + SSE4.1 (128-bit registers, legacy SSE encodings).
    Ni,
    /// AVX2 + VAES/VPCLMULQDQ on 256-bit registers.
    Y256,
    /// AVX-512F/VL/BW + VAES/VPCLMULQDQ (32 registers, 512-bit).
    Z512,
}

impl Level {
    pub(crate) fn supported(self) -> bool {
        match self {
            Level::Ni => has_aesni(),
            Level::Y256 => has_vaes256(),
            Level::Z512 => has_vaes_avx512(),
        }
    }
}

/// Expanded encryption round keys (11 for AES-128, 15 for AES-256), zeroized on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
#[repr(C, align(16))]
pub(crate) struct NiKey {
    rk: [[u8; 16]; 15],
    /// 10 or 14.
    #[zeroize(skip)]
    nr: u8,
    /// Which entry points run this key.
    #[zeroize(skip)]
    level: Level,
}

impl NiKey {
    /// Expands `key` (16 or 32 octets) for the kernels of `level`. Fails with
    /// `Unsupported` if the CPU lacks the features of those kernels.
    pub(crate) fn new(key: &[u8], level: Level) -> Result<Self> {
        if key.len() != 16 && key.len() != 32 {
            return Err(Error::BadKeyLength);
        }
        if !level.supported() {
            return Err(Error::Unsupported("CPU lacks the AES-NI/VAES features for this backend"));
        }
        let mut k = NiKey { rk: [[0u8; 16]; 15], nr: 0, level };
        if key.len() == 16 {
            k.nr = 10;
            // SAFETY: has_aesni() checked above.
            unsafe { expand128(key, &mut k.rk) };
        } else {
            k.nr = 14;
            // SAFETY: has_aesni() checked above.
            unsafe { expand256(key, &mut k.rk) };
        }
        Ok(k)
    }

    pub(crate) fn level(&self) -> Level {
        self.level
    }

    /// The round keys and the round count (10 or 14), for the multi-buffer and lane kernels.
    pub(crate) fn schedule(&self) -> (&Rk, usize) {
        (&self.rk, self.nr as usize)
    }

    pub(crate) fn key_bits(&self) -> u32 {
        if self.nr == 10 {
            128
        } else {
            256
        }
    }

    pub(crate) fn seal(&self, nonce: &[u8; 13], m: usize, aad: &[u8], data: &mut [u8], tag: &mut [u8; 16]) {
        let rk = &self.rk;
        // SAFETY: a NiKey exists only if NiKey::new verified the features of the kernels
        // selected by `self.level`.
        unsafe {
            match (self.level, self.nr) {
                (Level::Ni, 10) => seal128_ni(rk, nonce, m, aad, data, tag),
                (Level::Ni, _) => seal256_ni(rk, nonce, m, aad, data, tag),
                (Level::Y256, 10) => seal128_y(rk, nonce, m, aad, data, tag),
                (Level::Y256, _) => seal256_y(rk, nonce, m, aad, data, tag),
                (Level::Z512, 10) => seal128_vaes(rk, nonce, m, aad, data, tag),
                (Level::Z512, _) => seal256_vaes(rk, nonce, m, aad, data, tag),
            }
        }
    }

    pub(crate) fn open(&self, nonce: &[u8; 13], m: usize, aad: &[u8], data: &mut [u8], tag: &mut [u8; 16]) {
        let rk = &self.rk;
        // SAFETY: as in `seal`.
        unsafe {
            match (self.level, self.nr) {
                (Level::Ni, 10) => open128_ni(rk, nonce, m, aad, data, tag),
                (Level::Ni, _) => open256_ni(rk, nonce, m, aad, data, tag),
                (Level::Y256, 10) => open128_y(rk, nonce, m, aad, data, tag),
                (Level::Y256, _) => open256_y(rk, nonce, m, aad, data, tag),
                (Level::Z512, 10) => open128_vaes(rk, nonce, m, aad, data, tag),
                (Level::Z512, _) => open256_vaes(rk, nonce, m, aad, data, tag),
            }
        }
    }

    /// XOR the CTR keystream A_1, A_2, ... into `data` (undoes a decryption).
    pub(crate) fn ctr_xor(&self, nonce: &[u8; 13], data: &mut [u8]) {
        let rk = &self.rk;
        // SAFETY: as in `seal`.
        unsafe {
            match (self.level, self.nr) {
                (Level::Ni, 10) => ctr128_ni(rk, nonce, data),
                (Level::Ni, _) => ctr256_ni(rk, nonce, data),
                (Level::Y256, 10) => ctr128_y(rk, nonce, data),
                (Level::Y256, _) => ctr256_y(rk, nonce, data),
                (Level::Z512, 10) => ctr128_vaes(rk, nonce, data),
                (Level::Z512, _) => ctr256_vaes(rk, nonce, data),
            }
        }
    }
}

pub(crate) type Rk = [[u8; 16]; 15];

macro_rules! entry_points {
    ($feat:literal, $vaes_ctr:ident, $seal128:ident, $seal256:ident, $open128:ident, $open256:ident, $ctr128:ident, $ctr256:ident) => {
        /// # Safety
        /// The CPU must support the features this function enables.
        #[target_feature(enable = $feat)]
        unsafe fn $seal128(rk: &Rk, nonce: &[u8; 13], m: usize, aad: &[u8], data: &mut [u8], tag: &mut [u8; 16]) {
            // SAFETY: the features the body needs are enabled on this function; callers
            // checked them at run time.
            unsafe { ccm_body::<10, true>(rk, nonce, m, aad, data, tag) }
        }
        /// # Safety
        /// The CPU must support the features this function enables.
        #[target_feature(enable = $feat)]
        unsafe fn $seal256(rk: &Rk, nonce: &[u8; 13], m: usize, aad: &[u8], data: &mut [u8], tag: &mut [u8; 16]) {
            // SAFETY: as above.
            unsafe { ccm_body::<14, true>(rk, nonce, m, aad, data, tag) }
        }
        /// # Safety
        /// The CPU must support the features this function enables.
        #[target_feature(enable = $feat)]
        unsafe fn $open128(rk: &Rk, nonce: &[u8; 13], m: usize, aad: &[u8], data: &mut [u8], tag: &mut [u8; 16]) {
            // SAFETY: as above.
            unsafe { ccm_body::<10, false>(rk, nonce, m, aad, data, tag) }
        }
        /// # Safety
        /// The CPU must support the features this function enables.
        #[target_feature(enable = $feat)]
        unsafe fn $open256(rk: &Rk, nonce: &[u8; 13], m: usize, aad: &[u8], data: &mut [u8], tag: &mut [u8; 16]) {
            // SAFETY: as above.
            unsafe { ccm_body::<14, false>(rk, nonce, m, aad, data, tag) }
        }
        /// # Safety
        /// The CPU must support the features this function enables.
        #[target_feature(enable = $feat)]
        unsafe fn $ctr128(rk: &Rk, nonce: &[u8; 13], data: &mut [u8]) {
            // SAFETY: as above.
            unsafe { $vaes_ctr::<10>(rk, nonce, data) }
        }
        /// # Safety
        /// The CPU must support the features this function enables.
        #[target_feature(enable = $feat)]
        unsafe fn $ctr256(rk: &Rk, nonce: &[u8; 13], data: &mut [u8]) {
            // SAFETY: as above.
            unsafe { $vaes_ctr::<14>(rk, nonce, data) }
        }
    };
}

entry_points!("aes,sse2,ssse3,sse4.1", ctr_body, seal128_ni, seal256_ni, open128_ni, open256_ni, ctr128_ni, ctr256_ni);
entry_points!("aes,sse2,ssse3,sse4.1,avx,avx2,vaes", ctr_body_y, seal128_y, seal256_y, open128_y, open256_y, ctr128_y, ctr256_y);
entry_points!(
    "aes,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512vl,avx512bw,vaes",
    ctr_body_vaes,
    seal128_vaes,
    seal256_vaes,
    open128_vaes,
    open256_vaes,
    ctr128_vaes,
    ctr256_vaes
);

// ---- small helpers; every `unsafe fn` here needs the AES-NI/SSSE3 features of the caller ----

/// # Safety
/// The caller runs with AES-NI enabled.
#[inline(always)]
unsafe fn enc(s: __m128i, k: __m128i) -> __m128i {
    // SAFETY: caller runs with AES-NI enabled.
    unsafe { _mm_aesenc_si128(s, k) }
}

/// # Safety
/// The caller runs with AES-NI enabled.
#[inline(always)]
unsafe fn enclast(s: __m128i, k: __m128i) -> __m128i {
    // SAFETY: caller runs with AES-NI enabled.
    unsafe { _mm_aesenclast_si128(s, k) }
}

#[inline(always)]
fn xor(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe { _mm_xor_si128(a, b) }
}

/// Load 16 octets.
///
/// # Safety
/// `p..p + 16` is readable.
#[inline(always)]
unsafe fn loadu(p: *const u8) -> __m128i {
    // SAFETY: caller guarantees 16 readable octets; unaligned load.
    unsafe { _mm_loadu_si128(p.cast()) }
}

#[inline(always)]
fn load16(b: &[u8; 16]) -> __m128i {
    // SAFETY: a 16-octet array.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

#[inline(always)]
fn store16(b: &mut [u8; 16], v: __m128i) {
    // SAFETY: a 16-octet array.
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) }
}

/// Load a 16-octet slice (length checked by the caller's chunking).
#[inline(always)]
fn load_chunk(c: &[u8]) -> __m128i {
    assert!(c.len() >= 16);
    // SAFETY: `c` has at least 16 octets (chunks_exact(16) or explicit checks).
    unsafe { loadu(c.as_ptr()) }
}

#[inline(always)]
fn store_chunk(c: &mut [u8], v: __m128i) {
    assert!(c.len() >= 16);
    // SAFETY: `c` has at least 16 writable octets.
    unsafe { _mm_storeu_si128(c.as_mut_ptr().cast(), v) }
}

/// PSHUFB masks: `SHUF[32 - r..48 - r]` moves octets `16-r..16` to `0..r` and zeroes the rest.
static SHUF: [u8; 48] = [
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, //
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, //
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
];
/// `LOWMASK[16 - r..32 - r]` is `r` octets 0xff then zeros.
static LOWMASK: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

/// The last `r` (1..=16) octets of the 16-octet vector `w`, moved to the front, zero padded.
///
/// # Safety
/// The caller runs with SSSE3 enabled; `r` is 1 to 16.
#[inline(always)]
unsafe fn last_octets(w: __m128i, r: usize) -> __m128i {
    debug_assert!((1..=16).contains(&r));
    let m = load_chunk(&SHUF[32 - r..48 - r]);
    // SAFETY: caller runs with SSSE3 enabled.
    unsafe { _mm_shuffle_epi8(w, m) }
}

/// The last `r` (1..=15) octets of `s`, at the front of a zero-padded block, without a
/// store-to-load round trip when `s` has 16 octets or more.
///
/// # Safety
/// The caller runs with SSSE3 enabled; `r` is 1 to 15 and at most `s.len()`.
#[inline(always)]
unsafe fn tail_block(s: &[u8], r: usize) -> __m128i {
    debug_assert!(r > 0 && r < 16 && r <= s.len());
    if s.len() >= 16 {
        // SAFETY: SSSE3 as required of the caller.
        unsafe { last_octets(load_chunk(&s[s.len() - 16..]), r) }
    } else {
        let mut b = [0u8; 16];
        b[..r].copy_from_slice(&s[s.len() - r..]);
        load16(&b)
    }
}

#[inline(always)]
fn load_keys<const NR: usize>(rk: &Rk) -> [__m128i; 15] {
    // All 15 slots exist (unused ones are zero for AES-128); loads of the unused ones are
    // dead and dropped. Written out so no stack copy of the schedule is made.
    [
        load16(&rk[0]),
        load16(&rk[1]),
        load16(&rk[2]),
        load16(&rk[3]),
        load16(&rk[4]),
        load16(&rk[5]),
        load16(&rk[6]),
        load16(&rk[7]),
        load16(&rk[8]),
        load16(&rk[9]),
        load16(&rk[10]),
        load16(&rk[11]),
        load16(&rk[12]),
        load16(&rk[13]),
        load16(&rk[14]),
    ]
}

/// One CBC-MAC step on a state that is pending its last round: returns the state after
/// rounds 1..NR-1 of `E(X ^ b)`, i.e. again pending its last round.
/// `kx = K_NR ^ K_0` folds the chain XOR and the whitening into AESENCLAST.
///
/// # Safety
/// The caller runs with AES-NI enabled.
#[inline(always)]
unsafe fn chain<const NR: usize>(x: __m128i, b: __m128i, k: &[__m128i; 15], kx: __m128i) -> __m128i {
    // SAFETY: AES-NI as required of the caller.
    unsafe {
        let mut x = enclast(x, xor(kx, b));
        for r in 1..NR {
            x = enc(x, k[r]);
        }
        x
    }
}

/// Full block encryption.
///
/// # Safety
/// The caller runs with AES-NI enabled.
#[inline(always)]
unsafe fn encrypt<const NR: usize>(b: __m128i, k: &[__m128i; 15]) -> __m128i {
    // SAFETY: AES-NI as required of the caller.
    unsafe {
        let mut s = xor(b, k[0]);
        for r in 1..NR {
            s = enc(s, k[r]);
        }
        enclast(s, k[NR])
    }
}

/// Counter block `A_i`: A0 with `i` big endian in octets 14..16.
#[inline(always)]
fn ctr_block(a0: __m128i, i: u16) -> __m128i {
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe { _mm_insert_epi16::<7>(a0, i.swap_bytes() as i32) }
}

/// (B0, A0) for L = 2 built in general registers: no byte stores followed by a vector load.
#[inline(always)]
fn b0_a0(nonce: &[u8; 13], has_aad: bool, m: usize, len: usize) -> (__m128i, __m128i) {
    let lo = u64::from_le_bytes([nonce[0], nonce[1], nonce[2], nonce[3], nonce[4], nonce[5], nonce[6], nonce[7]]);
    let hi = u64::from_le_bytes([nonce[5], nonce[6], nonce[7], nonce[8], nonce[9], nonce[10], nonce[11], nonce[12]]);
    let flags = (if has_aad { 0x40u64 } else { 0 }) | ((((m - 2) / 2) as u64) << 3) | 0x01;
    let a_lo = (lo << 8) | 0x01;
    let a_hi = hi >> 16;
    let b_lo = (lo << 8) | flags;
    let b_hi = a_hi | (((len as u16).swap_bytes() as u64) << 48);
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe { (_mm_set_epi64x(b_hi as i64, b_lo as i64), _mm_set_epi64x(a_hi as i64, a_lo as i64)) }
}

/// Chain the formatted AAD (RFC 3610 2.2, length < 0xFF00) into `x`.
///
/// # Safety
/// The caller runs with AES-NI, SSE4.1 and SSSE3 enabled.
#[inline(always)]
unsafe fn mac_aad<const NR: usize>(mut x: __m128i, aad: &[u8], k: &[__m128i; 15], kx: __m128i) -> __m128i {
    let a = aad.len();
    if a == 0 {
        return x;
    }
    // SAFETY: (whole block) AES-NI and SSSE3 as required of the caller; every load below is
    // of a range inside `aad` (checked by the length tests) or a stack array.
    unsafe {
        if a >= 16 {
            // [len_hi, len_lo, aad[0..14]] from one load: shift left by 2 and insert the length.
            let v = load_chunk(aad);
            let first = _mm_insert_epi16::<0>(_mm_slli_si128::<2>(v), (a as u16).swap_bytes() as i32);
            x = chain::<NR>(x, first, k, kx);
            let rest = &aad[14..];
            let mut it = rest.chunks_exact(16);
            for c in &mut it {
                x = chain::<NR>(x, load_chunk(c), k, kx);
            }
            let r = it.remainder().len();
            if r > 0 {
                // The last r octets of aad (aad has >= 16 octets).
                x = chain::<NR>(x, last_octets(load_chunk(&aad[a - 16..]), r), k, kx);
            }
        } else {
            let (first, rest) = aad_first_block(aad);
            x = chain::<NR>(x, load16(&first), k, kx);
            if !rest.is_empty() {
                // a is 15: one octet left.
                let mut b = [0u8; 16];
                b[..rest.len()].copy_from_slice(rest);
                x = chain::<NR>(x, load16(&b), k, kx);
            }
        }
    }
    x
}

/// The fused CCM kernel. `ENCRYPT`: MAC the plaintext in `data` and encrypt it in the same
/// loop. `!ENCRYPT`: decrypt with the keystream one block ahead of the chain and MAC the
/// plaintext. `tag` receives the full 16 octets `T ^ E(A0)`.
///
/// # Safety
/// The caller runs with AES-NI, SSE4.1 and SSSE3 enabled (and VAES with AVX-512F/VL for the VAES entry points).
#[inline(always)]
unsafe fn ccm_body<const NR: usize, const ENCRYPT: bool>(
    rk: &Rk,
    nonce: &[u8; 13],
    m: usize,
    aad: &[u8],
    data: &mut [u8],
    tag: &mut [u8; 16],
) {
    let n = data.len();
    let r = n % 16;
    let k = load_keys::<NR>(rk);
    let kx = xor(k[NR], k[0]);
    let (b0, a0) = b0_a0(nonce, !aad.is_empty(), m, n);

    // SAFETY: (whole body) AES-NI, SSE4.1 and SSSE3 are enabled by every entry point; all
    // memory access goes through slice-checked helpers.
    unsafe {
        // The last partial block is read before the loop writes anything, so its load never
        // waits on a store (it also sees the original octets in place).
        let tail_in = if r > 0 { tail_block(data, r) } else { _mm_setzero_si128() };
        // The last full block written (plaintext or ciphertext), for the tail's overlapping store.
        let mut last_out = _mm_setzero_si128();

        // B0, the tag mask A0 and (for decryption) A1 go through the rounds together.
        let mut x = xor(b0, k[0]);
        let mut s0 = xor(a0, k[0]);
        let mut ks = xor(ctr_block(a0, 1), k[0]);
        for i in 1..NR {
            x = enc(x, k[i]);
            s0 = enc(s0, k[i]);
            if !ENCRYPT {
                ks = enc(ks, k[i]);
            }
        }
        let s0 = enclast(s0, k[NR]);
        if !ENCRYPT {
            ks = enclast(ks, k[NR]);
        }
        // x is pending its last round from here on.
        x = mac_aad::<NR>(x, aad, &k, kx);

        let mut ctr: u16 = 1;
        let mut it = data.chunks_exact_mut(16);
        for blk in &mut it {
            let d = load_chunk(blk);
            if ENCRYPT {
                // Chain block i and the keystream for block i, round by round.
                let mut c = xor(ctr_block(a0, ctr), k[0]);
                x = enclast(x, xor(kx, d));
                for i in 1..NR {
                    c = enc(c, k[i]);
                    x = enc(x, k[i]);
                }
                c = enclast(c, k[NR]);
                last_out = xor(d, c);
                store_chunk(blk, last_out);
            } else {
                // Keystream for block i is ready; make block i+1's while chaining block i.
                let p = xor(d, ks);
                last_out = p;
                store_chunk(blk, p);
                let mut c = xor(ctr_block(a0, ctr.wrapping_add(1)), k[0]);
                x = enclast(x, xor(kx, p));
                for i in 1..NR {
                    c = enc(c, k[i]);
                    x = enc(x, k[i]);
                }
                ks = enclast(c, k[NR]);
            }
            ctr = ctr.wrapping_add(1);
        }
        let rem = it.into_remainder();
        if r > 0 {
            // `out` holds the tail's output in octets 0..r (anything after r is ignored).
            let out = if ENCRYPT {
                let c = encrypt::<NR>(ctr_block(a0, ctr), &k);
                x = chain::<NR>(x, tail_in, &k, kx);
                xor(tail_in, c)
            } else {
                let mask = load_chunk(&LOWMASK[16 - r..32 - r]);
                let p = xor(tail_in, _mm_and_si128(ks, mask));
                x = chain::<NR>(x, p, &k, kx);
                p
            };
            if n >= 16 {
                // One 16-octet store over data[n-16..n]: the last 16-r octets of the last full
                // block (rewritten with the same value) then the r tail octets.
                let head = last_octets(last_out, 16 - r);
                let tail = _mm_shuffle_epi8(out, load_chunk(&SHUF[r..16 + r]));
                store_chunk(&mut data[n - 16..], _mm_or_si128(head, tail));
            } else {
                let mut b = [0u8; 16];
                store16(&mut b, out);
                rem.copy_from_slice(&b[..r]);
            }
        }
        let t = xor(enclast(x, k[NR]), s0);
        store16(tag, t);
    }
}

/// Keystream XOR with A_1, A_2, ...: four blocks in flight.
///
/// # Safety
/// The caller runs with AES-NI and SSSE3 enabled.
#[inline(always)]
unsafe fn ctr_body<const NR: usize>(rk: &Rk, nonce: &[u8; 13], data: &mut [u8]) {
    let k = load_keys::<NR>(rk);
    let (_, a0) = b0_a0(nonce, false, 4, 0);
    let mut ctr: u16 = 1;
    // SAFETY: AES-NI as enabled by the entry points; memory via slice-checked helpers.
    unsafe {
        let mut it = data.chunks_exact_mut(64);
        for blk in &mut it {
            let mut s = [
                xor(ctr_block(a0, ctr), k[0]),
                xor(ctr_block(a0, ctr.wrapping_add(1)), k[0]),
                xor(ctr_block(a0, ctr.wrapping_add(2)), k[0]),
                xor(ctr_block(a0, ctr.wrapping_add(3)), k[0]),
            ];
            for i in 1..NR {
                for v in s.iter_mut() {
                    *v = enc(*v, k[i]);
                }
            }
            for (j, v) in s.iter().enumerate() {
                let c = &mut blk[16 * j..16 * j + 16];
                store_chunk(c, xor(load_chunk(c), enclast(*v, k[NR])));
            }
            ctr = ctr.wrapping_add(4);
        }
        ctr_tail::<NR>(it.into_remainder(), a0, ctr, &k);
    }
}

/// Fewer than four blocks: one at a time, the last one possibly partial.
///
/// # Safety
/// The caller runs with AES-NI and SSSE3 enabled; `rest` holds fewer than four blocks.
#[inline(always)]
unsafe fn ctr_tail<const NR: usize>(rest: &mut [u8], a0: __m128i, mut ctr: u16, k: &[__m128i; 15]) {
    for c in rest.chunks_mut(16) {
        // SAFETY: AES-NI as required of the caller.
        let ks = unsafe { encrypt::<NR>(ctr_block(a0, ctr), k) };
        let mut b = [0u8; 16];
        store16(&mut b, ks);
        for (d, s) in c.iter_mut().zip(&b) {
            *d ^= s;
        }
        ctr = ctr.wrapping_add(1);
    }
}

/// Keystream XOR with 256-bit VAES (the failure path's restore): eight blocks in flight.
///
/// # Safety
/// The caller runs with AES-NI, AVX2 and VAES enabled.
#[inline(always)]
unsafe fn ctr_body_y<const NR: usize>(rk: &Rk, nonce: &[u8; 13], data: &mut [u8]) {
    // SAFETY: called only from the `*_y` entry points, which enable every feature
    // `ctry_body` needs.
    unsafe { ctry_body::<NR, 4>(rk, nonce, data) }
}

/// Keystream XOR with 512-bit VAES (the failure path's restore): sixteen blocks in flight.
///
/// # Safety
/// The caller runs with AES-NI, AVX-512F/VL and VAES enabled.
#[inline(always)]
unsafe fn ctr_body_vaes<const NR: usize>(rk: &Rk, nonce: &[u8; 13], data: &mut [u8]) {
    // SAFETY: called only from the `*_vaes` entry points, which enable every feature
    // `ctrz_vaes` is compiled for.
    unsafe { ctrz_vaes::<NR, 4>(rk, nonce, data) }
}

// ---- key expansion (FIPS 197 5.2) with AESKEYGENASSIST ----

#[inline(always)]
fn mix(mut k: __m128i, t: __m128i) -> __m128i {
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe {
        k = xor(k, _mm_slli_si128::<4>(k));
        k = xor(k, _mm_slli_si128::<4>(k));
        k = xor(k, _mm_slli_si128::<4>(k));
    }
    xor(k, t)
}

/// # Safety
/// The CPU must support the features this function enables (aes,sse2).
#[target_feature(enable = "aes,sse2")]
unsafe fn expand128(key: &[u8], rk: &mut Rk) {
    let mut k = load_chunk(key);
    store16(&mut rk[0], k);
    macro_rules! round {
        ($i:expr, $rcon:literal) => {
            let t = _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(k));
            k = mix(k, t);
            store16(&mut rk[$i], k);
        };
    }
    round!(1, 0x01);
    round!(2, 0x02);
    round!(3, 0x04);
    round!(4, 0x08);
    round!(5, 0x10);
    round!(6, 0x20);
    round!(7, 0x40);
    round!(8, 0x80);
    round!(9, 0x1b);
    round!(10, 0x36);
}

/// # Safety
/// The CPU must support the features this function enables (aes,sse2).
#[target_feature(enable = "aes,sse2")]
unsafe fn expand256(key: &[u8], rk: &mut Rk) {
    let mut a = load_chunk(&key[..16]);
    let mut b = load_chunk(&key[16..]);
    store16(&mut rk[0], a);
    store16(&mut rk[1], b);
    macro_rules! even {
        ($i:expr, $rcon:literal) => {
            let t = _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(b));
            a = mix(a, t);
            store16(&mut rk[2 * $i], a);
        };
    }
    macro_rules! odd {
        ($i:expr) => {
            let t = _mm_shuffle_epi32::<0xaa>(_mm_aeskeygenassist_si128::<0>(a));
            b = mix(b, t);
            store16(&mut rk[2 * $i + 1], b);
        };
    }
    even!(1, 0x01);
    odd!(1);
    even!(2, 0x02);
    odd!(2);
    even!(3, 0x04);
    odd!(3);
    even!(4, 0x08);
    odd!(4);
    even!(5, 0x10);
    odd!(5);
    even!(6, 0x20);
    odd!(6);
    even!(7, 0x40);
}

// ---- Enhanced CCMP lanes (docs/eccmp.md) and CTR with a chosen number of blocks in flight ----

impl NiKey {
    /// The ECCMP-k MIC before masking: XOR of the `k` lane CBC-MACs (k = 2, 4, 8; k = 1 is
    /// plain CBC-MAC over the CCM stream). `lane_flags(l)` gives the flags octet of `D_l`.
    /// Caller checked: AAD at most 46 octets, payload at most 65 535, `m` even 4..=16.
    pub(crate) fn lane_mac(&self, k: usize, m: usize, nonce: &[u8; 13], aad: &[u8], data: &[u8]) -> [u8; 16] {
        let rk = &self.rk;
        let mut t = [0u8; 16];
        let nr14 = self.nr != 10;
        // SAFETY: a NiKey exists only if the CPU has the features of its level (NiKey::new).
        unsafe {
            match self.level {
                Level::Ni => lanes_ni(nr14, k, rk, m, nonce, aad, data, &mut t),
                Level::Y256 => lanes_y(nr14, k, rk, m, nonce, aad, data, &mut t),
                Level::Z512 => lanes_z(nr14, k, rk, m, nonce, aad, data, &mut t),
            }
        }
        t
    }

    /// Enhanced CCMP with `k` lanes in one pass on VAES ([`super::eccmz`]): `data` sealed
    /// (`encrypt`) or opened in place and the full masked tag; `None` (nothing done) unless
    /// this key runs on AVX-512 or VAES-256 and `k` is 4 or 8 with an AAD of 15 to 30 octets
    /// (every 802.11 AAD). The caller checked `m` and the length ([`super::check`]).
    pub(crate) fn eccm_fused(&self, k: usize, m: usize, nonce: &[u8; 13], aad: &[u8], data: &mut [u8], encrypt: bool) -> Option<[u8; 16]> {
        if self.level == Level::Ni || !(k == 4 || k == 8) || !(15..=30).contains(&aad.len()) || data.len() > 65535 {
            return None;
        }
        // SAFETY: a Z512 key exists only on a CPU with AVX-512 F/BW/VL and VAES, a Y256 key
        // on one with AVX2 and VAES (NiKey::new); k, the AAD and the length are checked
        // above, m by the caller.
        Some(unsafe {
            if self.level == Level::Z512 {
                super::eccmz::run(&self.rk, self.nr, k, m, nonce, aad, data, encrypt)
            } else {
                super::eccmz::run_y(&self.rk, self.nr, k, m, nonce, aad, data, encrypt)
            }
        })
    }

    /// `E(A_0)`, the tag mask.
    pub(crate) fn tag_mask(&self, nonce: &[u8; 13]) -> [u8; 16] {
        let (_, a0) = super::b0_a0(nonce, 0, 4, 0);
        let mut out = [0u8; 16];
        // SAFETY: AES-NI present (NiKey::new).
        unsafe { block_ni(&self.rk, self.nr, &a0, &mut out) };
        out
    }

    /// XOR the CTR keystream A_1, A_2, ... into `data` with `width` blocks in flight
    /// (1, 2, 4, 8 with AES-NI; 16 and 32 with VAES, which need the VAES backend). The
    /// bytes are those of standard CTR whatever the width.
    pub(crate) fn ctr_width(&self, width: usize, nonce: &[u8; 13], data: &mut [u8]) {
        let rk = &self.rk;
        // SAFETY: AES-NI present (NiKey::new); the 256-bit widths only on Y256/Z512 keys and
        // the 512-bit ones only on Z512 keys, whose features NiKey::new checked.
        unsafe {
            match (self.nr, width, self.level) {
                (10, 1, _) => ctrw_ni::<10, 1>(rk, nonce, data),
                (10, 2, _) => ctrw_ni::<10, 2>(rk, nonce, data),
                (10, 4, _) => ctrw_ni::<10, 4>(rk, nonce, data),
                (10, 8, _) => ctrw_ni::<10, 8>(rk, nonce, data),
                (10, 16, Level::Z512) => ctrz_vaes::<10, 4>(rk, nonce, data),
                (10, _, Level::Z512) => ctrz_vaes::<10, 8>(rk, nonce, data),
                (10, _, Level::Y256) => ctry_vaes::<10, 8>(rk, nonce, data),
                (10, _, Level::Ni) => ctrw_ni::<10, 8>(rk, nonce, data),
                (_, 1, _) => ctrw_ni::<14, 1>(rk, nonce, data),
                (_, 2, _) => ctrw_ni::<14, 2>(rk, nonce, data),
                (_, 4, _) => ctrw_ni::<14, 4>(rk, nonce, data),
                (_, 8, _) => ctrw_ni::<14, 8>(rk, nonce, data),
                (_, 16, Level::Z512) => ctrz_vaes::<14, 4>(rk, nonce, data),
                (_, _, Level::Z512) => ctrz_vaes::<14, 8>(rk, nonce, data),
                (_, _, Level::Y256) => ctry_vaes::<14, 8>(rk, nonce, data),
                (_, _, Level::Ni) => ctrw_ni::<14, 8>(rk, nonce, data),
            }
        }
    }

    /// The widest CTR this key's level has: 16 blocks in flight on VAES (256 or 512-bit), 8 on AES-NI.
    pub(crate) fn ctr_fast(&self, nonce: &[u8; 13], data: &mut [u8]) {
        let w = if self.level == Level::Ni { 8 } else { 16 };
        self.ctr_width(w, nonce, data)
    }
}

/// # Safety
/// The CPU must support the features this function enables (aes,sse2).
#[target_feature(enable = "aes,sse2")]
unsafe fn block_ni(rk: &Rk, nr: u8, inp: &[u8; 16], out: &mut [u8; 16]) {
    let mut s = xor(load16(inp), load16(&rk[0]));
    for r in 1..nr as usize {
        // SAFETY: AES-NI enabled on this function.
        s = unsafe { enc(s, load16(&rk[r])) };
    }
    // SAFETY: as above.
    store16(out, unsafe { enclast(s, load16(&rk[nr as usize])) });
}

/// The lane flags octet of docs/eccmp.md: `0x80 | l << 4 | (log2(k) - 1) << 2 | A`.
#[inline(always)]
pub(crate) fn lane_flags(l: usize, k: usize, aad_blocks: usize) -> u8 {
    0x80 | ((l as u8) << 4) | (((k.trailing_zeros() as u8) - 1) << 2) | aad_blocks as u8
}

macro_rules! lanes_entry {
    ($name:ident, $feat:literal) => {
        /// ECCMP lane MAC for one key size and lane count, compiled for `$feat`.
        ///
        /// # Safety
        /// The CPU must support the features this function enables; the caller checked the
        /// AAD (at most 46 octets) and `k` (1, 2, 4 or 8).
        #[target_feature(enable = $feat)]
        #[allow(clippy::too_many_arguments)]
        unsafe fn $name(nr14: bool, k: usize, rk: &Rk, m: usize, nonce: &[u8; 13], aad: &[u8], data: &[u8], t: &mut [u8; 16]) {
            // SAFETY: the features the body needs are enabled on this function.
            unsafe {
                match (nr14, k) {
                    (false, 1) => lanes_body::<10, 1>(rk, m, nonce, aad, data, t),
                    (false, 2) => lanes_body::<10, 2>(rk, m, nonce, aad, data, t),
                    (false, 4) => lanes_body::<10, 4>(rk, m, nonce, aad, data, t),
                    (false, _) => lanes_body::<10, 8>(rk, m, nonce, aad, data, t),
                    (true, 1) => lanes_body::<14, 1>(rk, m, nonce, aad, data, t),
                    (true, 2) => lanes_body::<14, 2>(rk, m, nonce, aad, data, t),
                    (true, 4) => lanes_body::<14, 4>(rk, m, nonce, aad, data, t),
                    (true, _) => lanes_body::<14, 8>(rk, m, nonce, aad, data, t),
                }
            }
        }
    };
}
lanes_entry!(lanes_ni, "aes,sse2,ssse3,sse4.1");
lanes_entry!(lanes_y, "aes,sse2,ssse3,sse4.1,avx,avx2,vaes");
lanes_entry!(lanes_z, "aes,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512vl,avx512bw,vaes");

/// # Safety
/// The caller runs with AES-NI, SSSE3 and SSE4.1 enabled.
#[inline(always)]
unsafe fn lanes_body<const NR: usize, const K: usize>(rk: &Rk, m: usize, nonce: &[u8; 13], aad: &[u8], data: &[u8], tag: &mut [u8; 16]) {
    let k = load_keys::<NR>(rk);
    let kx = xor(k[NR], k[0]);
    let len = data.len();
    let (b0, _) = b0_a0(nonce, !aad.is_empty(), m, len);
    // Formatted AAD blocks (RFC 3610 2.2), at most three (AAD <= 46 octets, checked by the caller).
    let mut ab = [0u8; 48];
    let a_blocks = if aad.is_empty() { 0 } else { (2 + aad.len()).div_ceil(16) };
    if !aad.is_empty() {
        ab[0] = (aad.len() >> 8) as u8;
        ab[1] = aad.len() as u8;
        ab[2..2 + aad.len()].copy_from_slice(aad);
    }
    let full = len / 16;
    let r = len % 16;
    let n = 1 + a_blocks + len.div_ceil(16);
    // SAFETY: (whole body) AES-NI/SSSE3 enabled by the entry points; loads through
    // slice-checked helpers.
    unsafe {
        let tail = if r > 0 { tail_block(data, r) } else { _mm_setzero_si128() };
        let x = |j: usize| -> __m128i {
            if j == 0 {
                b0
            } else if j <= a_blocks {
                load_chunk(&ab[16 * (j - 1)..])
            } else {
                let p = j - 1 - a_blocks;
                if p < full {
                    load_chunk(&data[16 * p..])
                } else {
                    tail
                }
            }
        };
        // States pending their last round. K = 1: the chain starts from B0 itself (CCM).
        let mut st = [_mm_setzero_si128(); K];
        let first = if K == 1 {
            st[0] = xor(b0, k[0]);
            1
        } else {
            let mut d = [0u8; 16];
            d[1..14].copy_from_slice(nonce);
            d[14] = (len >> 8) as u8;
            d[15] = len as u8;
            for l in 0..K {
                d[0] = lane_flags(l, K, a_blocks);
                st[l] = xor(load16(&d), k[0]);
            }
            0
        };
        for i in 1..NR {
            for l in 0..K {
                st[l] = enc(st[l], k[i]);
            }
        }
        // Stream blocks first..n, dealt to lanes j mod K.
        let mut j = first;
        while j + K <= n {
            let mut b = [_mm_setzero_si128(); K];
            for l in 0..K {
                b[l] = x(j + l);
            }
            // With K = 1 the lane index of block j is 0 for every j; otherwise j is a
            // multiple of K here, so block j + l belongs to lane l.
            for l in 0..K {
                st[l] = enclast(st[l], xor(kx, b[l]));
            }
            for i in 1..NR {
                for l in 0..K {
                    st[l] = enc(st[l], k[i]);
                }
            }
            j += K;
        }
        while j < n {
            let l = j % K;
            st[l] = chain::<NR>(st[l], x(j), &k, kx);
            j += 1;
        }
        let mut t = enclast(st[0], k[NR]);
        for l in 1..K {
            t = xor(t, enclast(st[l], k[NR]));
        }
        store16(tag, t);
    }
}

/// CTR with `W` independent blocks per iteration (xmm registers).
///
/// # Safety
/// The CPU must support the features this function enables (aes,sse2,ssse3,sse4.1).
#[target_feature(enable = "aes,sse2,ssse3,sse4.1")]
unsafe fn ctrw_ni<const NR: usize, const W: usize>(rk: &Rk, nonce: &[u8; 13], data: &mut [u8]) {
    let k = load_keys::<NR>(rk);
    let (_, a0) = b0_a0(nonce, false, 4, 0);
    let mut ctr: u16 = 1;
    // SAFETY: AES-NI enabled here; memory via slice-checked helpers.
    unsafe {
        let mut it = data.chunks_exact_mut(16 * W);
        for blk in &mut it {
            let mut s = [_mm_setzero_si128(); W];
            for v in 0..W {
                s[v] = xor(ctr_block(a0, ctr.wrapping_add(v as u16)), k[0]);
            }
            for i in 1..NR {
                for v in s.iter_mut() {
                    *v = enc(*v, k[i]);
                }
            }
            for (v, c) in s.iter().zip(blk.chunks_exact_mut(16)) {
                store_chunk(c, xor(load_chunk(c), enclast(*v, k[NR])));
            }
            ctr = ctr.wrapping_add(W as u16);
        }
        ctr_tail::<NR>(it.into_remainder(), a0, ctr, &k);
    }
}

/// CTR with `Z` 512-bit registers of four blocks each in flight (VAES): 16 or 32 blocks.
///
/// # Safety
/// The CPU must support the features this function enables (aes,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512vl,vaes).
#[target_feature(enable = "aes,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512vl,vaes")]
unsafe fn ctrz_vaes<const NR: usize, const Z: usize>(rk: &Rk, nonce: &[u8; 13], data: &mut [u8]) {
    let k = load_keys::<NR>(rk);
    let (_, a0) = b0_a0(nonce, false, 4, 0);
    // SAFETY: AVX-512F/VL and VAES enabled here; memory via slice-checked chunks.
    unsafe {
        let mut kz = [_mm512_setzero_si512(); 15];
        for i in 0..=NR {
            kz[i] = _mm512_broadcast_i32x4(k[i]);
        }
        let a0z = _mm512_broadcast_i32x4(a0);
        let keep = _mm512_broadcast_i32x4(_mm_set_epi8(0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
        let sh =
            _mm512_broadcast_i32x4(_mm_set_epi8(0, 1, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128));
        let base = _mm512_and_si512(a0z, keep);
        let mut idx = _mm512_set_epi32(0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1);
        let four = _mm512_set1_epi32(4);
        let mut ctr: u16 = 1;
        let mut it = data.chunks_exact_mut(64 * Z);
        for blk in &mut it {
            let mut s = [_mm512_setzero_si512(); Z];
            for v in 0..Z {
                s[v] = _mm512_xor_si512(_mm512_or_si512(base, _mm512_shuffle_epi8(idx, sh)), kz[0]);
                idx = _mm512_add_epi32(idx, four);
            }
            for i in 1..NR {
                for v in s.iter_mut() {
                    *v = _mm512_aesenc_epi128(*v, kz[i]);
                }
            }
            for (v, c) in s.iter().zip(blk.chunks_exact_mut(64)) {
                let p = c.as_mut_ptr();
                let ks = _mm512_aesenclast_epi128(*v, kz[NR]);
                _mm512_storeu_si512(p.cast(), _mm512_xor_si512(_mm512_loadu_si512(p.cast()), ks));
            }
            ctr = ctr.wrapping_add((4 * Z) as u16);
        }
        // The rest: four blocks at a time, then single blocks.
        let rest = it.into_remainder();
        let mut it4 = rest.chunks_exact_mut(64);
        for c in &mut it4 {
            let mut s = _mm512_xor_si512(_mm512_or_si512(base, _mm512_shuffle_epi8(idx, sh)), kz[0]);
            idx = _mm512_add_epi32(idx, four);
            for i in 1..NR {
                s = _mm512_aesenc_epi128(s, kz[i]);
            }
            let p = c.as_mut_ptr();
            let ks = _mm512_aesenclast_epi128(s, kz[NR]);
            _mm512_storeu_si512(p.cast(), _mm512_xor_si512(_mm512_loadu_si512(p.cast()), ks));
            ctr = ctr.wrapping_add(4);
        }
        ctr_tail::<NR>(it4.into_remainder(), a0, ctr, &k);
    }
}

/// CTR with `Y` 256-bit registers of two blocks each in flight (AVX2 + VAES): 8 or 16 blocks.
///
/// # Safety
/// The CPU must support the features this function enables (aes,sse2,ssse3,sse4.1,avx,avx2,vaes).
#[target_feature(enable = "aes,sse2,ssse3,sse4.1,avx,avx2,vaes")]
unsafe fn ctry_vaes<const NR: usize, const Y: usize>(rk: &Rk, nonce: &[u8; 13], data: &mut [u8]) {
    // SAFETY: the features `ctry_body` needs are enabled here.
    unsafe { ctry_body::<NR, Y>(rk, nonce, data) }
}

/// The body of [`ctry_vaes`].
///
/// # Safety
/// The caller runs with AES-NI, AVX2 and VAES enabled.
#[inline(always)]
unsafe fn ctry_body<const NR: usize, const Y: usize>(rk: &Rk, nonce: &[u8; 13], data: &mut [u8]) {
    let k = load_keys::<NR>(rk);
    let (_, a0) = b0_a0(nonce, false, 4, 0);
    // SAFETY: AVX2 and VAES enabled by the caller; memory via slice-checked chunks.
    unsafe {
        let mut ky = [_mm256_setzero_si256(); 15];
        for i in 0..=NR {
            ky[i] = _mm256_broadcastsi128_si256(k[i]);
        }
        let a0y = _mm256_broadcastsi128_si256(a0);
        let keep = _mm256_broadcastsi128_si256(_mm_set_epi8(0, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
        let sh = _mm256_broadcastsi128_si256(_mm_set_epi8(
            0, 1, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128, -128,
        ));
        let base = _mm256_and_si256(a0y, keep);
        // Counters as 32-bit integers in the low dword of each 128-bit half; PSHUFB moves
        // their two low octets, big endian, to octets 14..16.
        let mut idx = _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 1);
        let two = _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 2);
        let mut ctr: u16 = 1;
        let mut it = data.chunks_exact_mut(32 * Y);
        for blk in &mut it {
            let mut s = [_mm256_setzero_si256(); Y];
            for v in 0..Y {
                s[v] = _mm256_xor_si256(_mm256_or_si256(base, _mm256_shuffle_epi8(idx, sh)), ky[0]);
                idx = _mm256_add_epi32(idx, two);
            }
            for i in 1..NR {
                for v in s.iter_mut() {
                    *v = _mm256_aesenc_epi128(*v, ky[i]);
                }
            }
            for (v, c) in s.iter().zip(blk.chunks_exact_mut(32)) {
                let p = c.as_mut_ptr();
                let ks = _mm256_aesenclast_epi128(*v, ky[NR]);
                _mm256_storeu_si256(p.cast(), _mm256_xor_si256(_mm256_loadu_si256(p.cast()), ks));
            }
            ctr = ctr.wrapping_add((2 * Y) as u16);
        }
        // The rest: two blocks at a time, then single blocks.
        let rest = it.into_remainder();
        let mut it2 = rest.chunks_exact_mut(32);
        for c in &mut it2 {
            let mut s = _mm256_xor_si256(_mm256_or_si256(base, _mm256_shuffle_epi8(idx, sh)), ky[0]);
            idx = _mm256_add_epi32(idx, two);
            for i in 1..NR {
                s = _mm256_aesenc_epi128(s, ky[i]);
            }
            let p = c.as_mut_ptr();
            let ks = _mm256_aesenclast_epi128(s, ky[NR]);
            _mm256_storeu_si256(p.cast(), _mm256_xor_si256(_mm256_loadu_si256(p.cast()), ks));
            ctr = ctr.wrapping_add(2);
        }
        ctr_tail::<NR>(it2.into_remainder(), a0, ctr, &k);
    }
}

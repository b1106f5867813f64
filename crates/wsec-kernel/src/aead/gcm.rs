//! AES-GCM kernel for GCMP and BIP-GMAC (NIST SP 800-38D with a 12-octet IV) on x86_64:
//! CTR on AES-NI / VAES and GHASH on PCLMULQDQ / VPCLMULQDQ, one source generic over the
//! register width: 128-bit (AES-NI + PCLMULQDQ, eight blocks per iteration), 256-bit
//! (VAES + VPCLMULQDQ, two blocks per register, sixteen per iteration) and 512-bit
//! (AVX-512, four blocks per register, eight registers: 32 blocks per iteration).
//!
//! # Scheme
//! GHASH runs on byte-reflected blocks (one PSHUFB per register) with carry-less products
//! of each block by the power of H that brings it to the end of the iteration
//! (`Y' = (Y ^ X_1) H^n ^ X_2 H^(n-1) ^ ... ^ X_n H`, Karatsuba: three products per
//! block): the 256-bit products of an iteration are summed, folded to 128 bits and reduced
//! once, by Montgomery reduction with two carry-less products (POLYVAL's representation,
//! RFC 8452 appendix A: the powers are those of `H * x`, so no product needs a shift by
//! one bit). H^32..H^1 are computed when the key is made. Sealing hashes an iteration's
//! ciphertext (kept in registers on AVX-512) while the next iteration's AES runs. Counter
//! blocks are made by adding to octet 15 while it does not wrap within an iteration, else
//! from a byte-reflected counter (inc32 as a 32-bit vector add). The tail (fewer blocks
//! than an iteration) runs its AES in one wave of registers, the last one partial (masked
//! loads and stores on AVX-512, a stack buffer below), and is hashed with the lengths block
//! under one reduction; AAD of up to one register is hashed from one (masked) load.
//! Decryption hashes the ciphertext in the same pass; on a tag mismatch the caller XORs
//! the keystream back (CTR is its own inverse), so no unauthenticated plaintext is left
//! behind.
//!
//! Safety model: a [`NiGcm`] is made only by [`NiGcm::new`], which checks the features of
//! its level; its methods are therefore safe.
#![allow(clippy::needless_range_loop)]
use super::aesni::{Level, Rk};
use crate::error::{Error, Result};
use core::arch::x86_64::*;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// H^NP..H^1 (byte-reflected, descending) and their Karatsuba halves, each followed by
/// [`PAD`] zero blocks: a register of partial data loads its powers unmasked, and the
/// lanes past H^1 then multiply by zero.
#[derive(Clone, Zeroize)]
#[repr(C, align(64))]
struct Powers {
    /// `h[i]` = H^(NP - i) for `i < NP`, zero after.
    h: [[u8; 16]; NP + PAD],
    /// `k[i]`: the XOR of the two 64-bit halves of `h[i]`, in both halves.
    k: [[u8; 16]; NP + PAD],
}

/// Zero blocks after the powers (a 512-bit register's lanes past H^1).
const PAD: usize = 4;

/// Powers of H kept: H^NP..H^1 (the 512-bit iteration hashes 32 blocks under one reduction).
const NP: usize = 32;

/// Expanded key, the powers of H and the level; zeroized on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
#[repr(C, align(64))]
pub(crate) struct NiGcm {
    pw: Powers,
    rk: Rk,
    #[zeroize(skip)]
    nr: u8,
    #[zeroize(skip)]
    level: Level,
}

impl NiGcm {
    pub(crate) fn new(key: &[u8], level: Level) -> Result<NiGcm> {
        // NiKey::new checks the key length and the level's features and expands the key.
        let nk = super::aesni::NiKey::new(key, level)?;
        let (rk, nr) = nk.schedule();
        let mut g = NiGcm { pw: Powers { h: [[0; 16]; NP + PAD], k: [[0; 16]; NP + PAD] }, rk: *rk, nr: nr as u8, level };
        // SAFETY: NiKey::new checked AES-NI and PCLMULQDQ (every level has them).
        unsafe { h_powers(&g.rk, nr, &mut g.pw) };
        Ok(g)
    }

    pub(crate) fn level(&self) -> Level {
        self.level
    }

    pub(crate) fn key_bits(&self) -> u32 {
        if self.nr == 10 {
            128
        } else {
            256
        }
    }

    /// Encrypts `data` in place; `tag` gets the full 16-octet tag.
    pub(crate) fn seal(&self, iv: &[u8; 12], aad: &[u8], data: &mut [u8], tag: &mut [u8; 16]) {
        // SAFETY: a NiGcm exists only if NiGcm::new checked the features of `self.level`.
        unsafe {
            match (self.level, self.nr) {
                (Level::Ni, 10) => seal128_x(self, iv, aad, data, tag),
                (Level::Ni, _) => seal256_x(self, iv, aad, data, tag),
                (Level::Y256, 10) => seal128_y(self, iv, aad, data, tag),
                (Level::Y256, _) => seal256_y(self, iv, aad, data, tag),
                (Level::Z512, 10) => seal128_z(self, iv, aad, data, tag),
                (Level::Z512, _) => seal256_z(self, iv, aad, data, tag),
            }
        }
    }

    /// Decrypts `data` in place and writes the tag computed over the ciphertext; the caller
    /// compares and calls [`NiGcm::ctr`] to restore the ciphertext on a mismatch.
    pub(crate) fn open(&self, iv: &[u8; 12], aad: &[u8], data: &mut [u8], tag: &mut [u8; 16]) {
        // SAFETY: as in `seal`.
        unsafe {
            match (self.level, self.nr) {
                (Level::Ni, 10) => open128_x(self, iv, aad, data, tag),
                (Level::Ni, _) => open256_x(self, iv, aad, data, tag),
                (Level::Y256, 10) => open128_y(self, iv, aad, data, tag),
                (Level::Y256, _) => open256_y(self, iv, aad, data, tag),
                (Level::Z512, 10) => open128_z(self, iv, aad, data, tag),
                (Level::Z512, _) => open256_z(self, iv, aad, data, tag),
            }
        }
    }

    /// The keystream from counter 2 XORed into `data` (undoes [`NiGcm::open`]'s decryption).
    pub(crate) fn ctr(&self, iv: &[u8; 12], data: &mut [u8]) {
        // SAFETY: every level has AES-NI (NiGcm::new).
        unsafe {
            match self.nr {
                10 => ctr_x::<10>(&self.rk, iv, data),
                _ => ctr_x::<14>(&self.rk, iv, data),
            }
        }
    }
}

/// A vector of `W` blocks. Every method requires the features of its width to be enabled
/// in the function it is inlined into.
trait G: Copy {
    const W: usize;
    /// # Safety
    /// Features enabled.
    unsafe fn zero() -> Self;
    /// # Safety
    /// Features enabled.
    unsafe fn splat(x: __m128i) -> Self;
    /// # Safety
    /// Features enabled; `16 W` readable octets at `p`.
    unsafe fn load(p: *const u8) -> Self;
    /// # Safety
    /// Features enabled; `16 W` writable octets at `p`.
    unsafe fn store(p: *mut u8, v: Self);
    /// # Safety
    /// Features enabled.
    unsafe fn xor(a: Self, b: Self) -> Self;
    /// # Safety
    /// Features enabled.
    unsafe fn enc(a: Self, k: Self) -> Self;
    /// # Safety
    /// Features enabled.
    unsafe fn enclast(a: Self, k: Self) -> Self;
    /// # Safety
    /// Features enabled.
    unsafe fn clmul<const I: i32>(a: Self, b: Self) -> Self;
    /// Reverses the octets of every 128-bit block.
    ///
    /// # Safety
    /// Features enabled.
    unsafe fn bswap(a: Self) -> Self;
    /// # Safety
    /// Features enabled.
    unsafe fn add32(a: Self, b: Self) -> Self;
    /// Swaps the 64-bit halves of every block.
    ///
    /// # Safety
    /// Features enabled.
    unsafe fn swap64(a: Self) -> Self;
    /// Lane `j` holds `j` in its low 32 bits (the counter offsets of one register).
    ///
    /// # Safety
    /// Features enabled.
    unsafe fn lane_index() -> Self;
    /// Lane `j` holds `j << 24` in its high 32 bits: `j` added to octet 15 of a block in
    /// the order of the wire.
    ///
    /// # Safety
    /// Features enabled.
    unsafe fn lane_be() -> Self;
    /// The XOR of the register's blocks.
    ///
    /// # Safety
    /// Features enabled.
    unsafe fn fold(a: Self) -> __m128i;
    /// `x` in the first block, zero in the others.
    ///
    /// # Safety
    /// Features enabled.
    unsafe fn from_lo(x: __m128i) -> Self;
    /// The `len` (`1..=16 W`) octets at `p`, zero after.
    ///
    /// # Safety
    /// Features enabled; `len` readable octets at `p`.
    #[inline(always)]
    unsafe fn load_part(p: *const u8, len: usize) -> Self {
        debug_assert!(len <= 16 * Self::W);
        let mut t = [0u8; 64];
        // SAFETY: `len <= 16 W <= 64` readable octets at `p` (caller); features (caller).
        unsafe {
            core::ptr::copy_nonoverlapping(p, t.as_mut_ptr(), len);
            Self::load(t.as_ptr())
        }
    }
    /// Writes the first `len` (`1..=16 W`) octets of `v` to `p`.
    ///
    /// # Safety
    /// Features enabled; `len` writable octets at `p`.
    #[inline(always)]
    unsafe fn store_part(p: *mut u8, len: usize, v: Self) {
        debug_assert!(len <= 16 * Self::W);
        let mut t = [0u8; 64];
        // SAFETY: `len <= 16 W <= 64` writable octets at `p` (caller); features (caller).
        unsafe {
            Self::store(t.as_mut_ptr(), v);
            core::ptr::copy_nonoverlapping(t.as_ptr(), p, len);
        }
    }
    /// `v` with the octets from `len` on zeroed.
    ///
    /// # Safety
    /// Features enabled.
    #[inline(always)]
    unsafe fn keep(v: Self, len: usize) -> Self {
        let mut t = [0u8; 64];
        // SAFETY: stack buffer of 64 >= 16 W octets; features (caller).
        unsafe {
            Self::store(t.as_mut_ptr(), v);
            t[len..].fill(0);
            Self::load(t.as_ptr())
        }
    }
}

#[derive(Clone, Copy)]
struct X(__m128i);
#[derive(Clone, Copy)]
struct Y(__m256i);
#[derive(Clone, Copy)]
struct Z(__m512i);

impl G for X {
    const W: usize = 1;
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: SSE2.
        unsafe { X(_mm_setzero_si128()) }
    }
    #[inline(always)]
    unsafe fn splat(x: __m128i) -> Self {
        X(x)
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: 16 readable octets (caller).
        unsafe { X(_mm_loadu_si128(p.cast())) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: 16 writable octets (caller).
        unsafe { _mm_storeu_si128(p.cast(), v.0) }
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: SSE2.
        unsafe { X(_mm_xor_si128(a.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn enc(a: Self, k: Self) -> Self {
        // SAFETY: AES-NI enabled by the caller.
        unsafe { X(_mm_aesenc_si128(a.0, k.0)) }
    }
    #[inline(always)]
    unsafe fn enclast(a: Self, k: Self) -> Self {
        // SAFETY: AES-NI enabled by the caller.
        unsafe { X(_mm_aesenclast_si128(a.0, k.0)) }
    }
    #[inline(always)]
    unsafe fn clmul<const I: i32>(a: Self, b: Self) -> Self {
        // SAFETY: PCLMULQDQ enabled by the caller.
        unsafe { X(_mm_clmulepi64_si128::<I>(a.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn bswap(a: Self) -> Self {
        // SAFETY: SSSE3 enabled by the caller.
        unsafe { X(_mm_shuffle_epi8(a.0, rev128())) }
    }
    #[inline(always)]
    unsafe fn add32(a: Self, b: Self) -> Self {
        // SAFETY: SSE2.
        unsafe { X(_mm_add_epi32(a.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn swap64(a: Self) -> Self {
        // SAFETY: SSE2.
        unsafe { X(_mm_shuffle_epi32::<0x4e>(a.0)) }
    }
    #[inline(always)]
    unsafe fn lane_index() -> Self {
        // SAFETY: SSE2.
        unsafe { X(_mm_setzero_si128()) }
    }
    #[inline(always)]
    unsafe fn lane_be() -> Self {
        // SAFETY: SSE2.
        unsafe { X(_mm_setzero_si128()) }
    }
    #[inline(always)]
    unsafe fn fold(a: Self) -> __m128i {
        a.0
    }
    #[inline(always)]
    unsafe fn from_lo(x: __m128i) -> Self {
        X(x)
    }
}

impl G for Y {
    const W: usize = 2;
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: AVX enabled by the caller.
        unsafe { Y(_mm256_setzero_si256()) }
    }
    #[inline(always)]
    unsafe fn splat(x: __m128i) -> Self {
        // SAFETY: AVX2 enabled by the caller.
        unsafe { Y(_mm256_broadcastsi128_si256(x)) }
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: 32 readable octets (caller).
        unsafe { Y(_mm256_loadu_si256(p.cast())) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: 32 writable octets (caller).
        unsafe { _mm256_storeu_si256(p.cast(), v.0) }
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: AVX2 enabled by the caller.
        unsafe { Y(_mm256_xor_si256(a.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn enc(a: Self, k: Self) -> Self {
        // SAFETY: VAES enabled by the caller.
        unsafe { Y(_mm256_aesenc_epi128(a.0, k.0)) }
    }
    #[inline(always)]
    unsafe fn enclast(a: Self, k: Self) -> Self {
        // SAFETY: VAES enabled by the caller.
        unsafe { Y(_mm256_aesenclast_epi128(a.0, k.0)) }
    }
    #[inline(always)]
    unsafe fn clmul<const I: i32>(a: Self, b: Self) -> Self {
        // SAFETY: VPCLMULQDQ enabled by the caller.
        unsafe { Y(_mm256_clmulepi64_epi128::<I>(a.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn bswap(a: Self) -> Self {
        // SAFETY: AVX2 enabled by the caller.
        unsafe { Y(_mm256_shuffle_epi8(a.0, _mm256_broadcastsi128_si256(rev128()))) }
    }
    #[inline(always)]
    unsafe fn add32(a: Self, b: Self) -> Self {
        // SAFETY: AVX2 enabled by the caller.
        unsafe { Y(_mm256_add_epi32(a.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn swap64(a: Self) -> Self {
        // SAFETY: AVX2 enabled by the caller.
        unsafe { Y(_mm256_shuffle_epi32::<0x4e>(a.0)) }
    }
    #[inline(always)]
    unsafe fn lane_index() -> Self {
        // SAFETY: AVX enabled by the caller.
        unsafe { Y(_mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0)) }
    }
    #[inline(always)]
    unsafe fn lane_be() -> Self {
        // SAFETY: AVX enabled by the caller.
        unsafe { Y(_mm256_set_epi32(1 << 24, 0, 0, 0, 0, 0, 0, 0)) }
    }
    #[inline(always)]
    unsafe fn fold(a: Self) -> __m128i {
        // SAFETY: AVX2 enabled by the caller.
        unsafe { _mm_xor_si128(_mm256_castsi256_si128(a.0), _mm256_extracti128_si256::<1>(a.0)) }
    }
    #[inline(always)]
    unsafe fn from_lo(x: __m128i) -> Self {
        // SAFETY: AVX enabled by the caller.
        unsafe { Y(_mm256_zextsi128_si256(x)) }
    }
}

impl G for Z {
    const W: usize = 4;
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: AVX-512F enabled by the caller.
        unsafe { Z(_mm512_setzero_si512()) }
    }
    #[inline(always)]
    unsafe fn splat(x: __m128i) -> Self {
        // SAFETY: AVX-512F enabled by the caller.
        unsafe { Z(_mm512_broadcast_i32x4(x)) }
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: 64 readable octets (caller).
        unsafe { Z(_mm512_loadu_si512(p.cast())) }
    }
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: Self) {
        // SAFETY: 64 writable octets (caller).
        unsafe { _mm512_storeu_si512(p.cast(), v.0) }
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: AVX-512F enabled by the caller.
        unsafe { Z(_mm512_xor_si512(a.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn enc(a: Self, k: Self) -> Self {
        // SAFETY: VAES + AVX-512F enabled by the caller.
        unsafe { Z(_mm512_aesenc_epi128(a.0, k.0)) }
    }
    #[inline(always)]
    unsafe fn enclast(a: Self, k: Self) -> Self {
        // SAFETY: VAES + AVX-512F enabled by the caller.
        unsafe { Z(_mm512_aesenclast_epi128(a.0, k.0)) }
    }
    #[inline(always)]
    unsafe fn clmul<const I: i32>(a: Self, b: Self) -> Self {
        // SAFETY: VPCLMULQDQ + AVX-512F enabled by the caller.
        unsafe { Z(_mm512_clmulepi64_epi128::<I>(a.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn bswap(a: Self) -> Self {
        // SAFETY: AVX-512BW enabled by the caller.
        unsafe { Z(_mm512_shuffle_epi8(a.0, _mm512_broadcast_i32x4(rev128()))) }
    }
    #[inline(always)]
    unsafe fn add32(a: Self, b: Self) -> Self {
        // SAFETY: AVX-512F enabled by the caller.
        unsafe { Z(_mm512_add_epi32(a.0, b.0)) }
    }
    #[inline(always)]
    unsafe fn swap64(a: Self) -> Self {
        // SAFETY: AVX-512F enabled by the caller.
        unsafe { Z(_mm512_shuffle_epi32::<0x4e>(a.0)) }
    }
    #[inline(always)]
    unsafe fn lane_index() -> Self {
        // SAFETY: AVX-512F enabled by the caller.
        unsafe { Z(_mm512_set_epi32(0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0)) }
    }
    #[inline(always)]
    unsafe fn lane_be() -> Self {
        // SAFETY: AVX-512F enabled by the caller.
        unsafe { Z(_mm512_set_epi32(3 << 24, 0, 0, 0, 2 << 24, 0, 0, 0, 1 << 24, 0, 0, 0, 0, 0, 0, 0)) }
    }
    #[inline(always)]
    unsafe fn fold(a: Self) -> __m128i {
        // SAFETY: AVX-512F enabled by the caller.
        // Two halvings (two cross-lane extracts, not three).
        unsafe {
            let h = _mm256_xor_si256(_mm512_castsi512_si256(a.0), _mm512_extracti64x4_epi64::<1>(a.0));
            _mm_xor_si128(_mm256_castsi256_si128(h), _mm256_extracti128_si256::<1>(h))
        }
    }
    #[inline(always)]
    unsafe fn from_lo(x: __m128i) -> Self {
        // SAFETY: AVX-512F enabled by the caller.
        unsafe { Z(_mm512_zextsi128_si512(x)) }
    }
    #[inline(always)]
    unsafe fn load_part(p: *const u8, len: usize) -> Self {
        // SAFETY: AVX-512BW masked load: only the `len` octets at `p` are read (the caller
        // guarantees them readable; masked-off octets are not accessed and do not fault).
        unsafe { Z(_mm512_maskz_loadu_epi8(mask64(len), p.cast())) }
    }
    #[inline(always)]
    unsafe fn store_part(p: *mut u8, len: usize, v: Self) {
        // SAFETY: AVX-512BW masked store: only the `len` octets at `p` are written.
        unsafe { _mm512_mask_storeu_epi8(p.cast(), mask64(len), v.0) }
    }
    #[inline(always)]
    unsafe fn keep(v: Self, len: usize) -> Self {
        // SAFETY: AVX-512BW enabled by the caller.
        unsafe { Z(_mm512_maskz_mov_epi8(mask64(len), v.0)) }
    }
}

/// The first `len` (`0..=64`) bits set.
#[inline(always)]
fn mask64(len: usize) -> u64 {
    if len >= 64 {
        !0
    } else {
        (1u64 << len) - 1
    }
}

#[inline(always)]
fn rev128() -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) }
}

/// Reduces the 256-bit carry-less product `hi:lo` (plus the middle term `mid`, at 64 bits)
/// of two byte-reflected field elements: Montgomery reduction by `x^128` in POLYVAL's
/// representation (RFC 8452 appendix A: GHASH on byte-reversed blocks with the key
/// `H * x` is POLYVAL), two carry-less products by the constant `0xc2 << 56`, no shifts
/// by one bit. [`h_powers`] keeps the powers of `H * x` accordingly.
///
/// # Safety
/// PCLMULQDQ enabled.
#[inline(always)]
unsafe fn reduce(lo: __m128i, mid: __m128i, hi: __m128i) -> __m128i {
    // SAFETY: SSE2 and PCLMULQDQ (enabled by the caller).
    unsafe {
        let poly = _mm_set_epi64x(0xc200_0000_0000_0000_u64 as i64, 1);
        let lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(mid));
        let hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(mid));
        let t = _mm_clmulepi64_si128::<0x10>(lo, poly);
        let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
        let t = _mm_clmulepi64_si128::<0x10>(lo, poly);
        let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
        _mm_xor_si128(hi, lo)
    }
}

/// Accumulates the unreduced product `a * b` into `(lo, mid, hi)`.
///
/// # Safety
/// The features of `T` enabled.
#[inline(always)]
unsafe fn mul_acc<T: G>(a: T, b: T, acc: &mut (T, T, T)) {
    // SAFETY: features of T enabled by the caller.
    unsafe {
        acc.0 = T::xor(acc.0, T::clmul::<0x00>(a, b));
        acc.1 = T::xor(acc.1, T::xor(T::clmul::<0x10>(a, b), T::clmul::<0x01>(a, b)));
        acc.2 = T::xor(acc.2, T::clmul::<0x11>(a, b));
    }
}

/// Accumulates `a * b` Karatsuba-style into `(lo, mid, hi)`: three carry-less products,
/// the middle one of the XORed halves (`bk` holds `b`'s, precomputed). [`reduce_k`] turns
/// the sums into the product's middle term.
///
/// # Safety
/// The features of `T` enabled.
#[inline(always)]
unsafe fn mul_acck<T: G>(a: T, b: T, bk: T, acc: &mut (T, T, T)) {
    // SAFETY: features of T enabled by the caller.
    unsafe {
        acc.0 = T::xor(acc.0, T::clmul::<0x00>(a, b));
        acc.1 = T::xor(acc.1, T::clmul::<0x00>(T::xor(a, T::swap64(a)), bk));
        acc.2 = T::xor(acc.2, T::clmul::<0x11>(a, b));
    }
}

/// The main loop's product of `a` by the powers at `hd.h[j..]` ([`mul_acck`]).
///
/// # Safety
/// The features of `T` enabled; `hd.h[j..j + W]` inside the table.
#[inline(always)]
unsafe fn mul_acc_main<T: G, const VOL: bool>(a: T, hd: &Powers, j: usize, acc: &mut (T, T, T)) {
    // SAFETY: features of T enabled by the caller; index checked by the caller.
    unsafe {
        if VOL && T::W == 4 {
            // Volatile loads (sealing, measured; opening measured slower with them): else the compiler hoisted the powers out of the loop and, out of
            // registers, copied them to the stack each frame (64-octet reloads of stores
            // just made, which on Zen 4 wait for the stores to retire). `hd.h[j]` and
            // `hd.k[j]` are 64-octet aligned here (`j` a multiple of 4 in the 64-aligned
            // table, whose `k` starts at octet 576).
            debug_assert!(j.is_multiple_of(4));
            let h = core::ptr::read_volatile(hd.h[j].as_ptr().cast::<T>());
            let k = core::ptr::read_volatile(hd.k[j].as_ptr().cast::<T>());
            mul_acck(a, h, k, acc)
        } else {
            mul_acck(a, T::load(hd.h[j].as_ptr()), T::load(hd.k[j].as_ptr()), acc)
        }
    }
}

/// [`reduce`] of sums of [`mul_acck`] products.
///
/// # Safety
/// PCLMULQDQ enabled.
#[inline(always)]
unsafe fn reduce_k(lo: __m128i, mk: __m128i, hi: __m128i) -> __m128i {
    // SAFETY: PCLMULQDQ enabled by the caller.
    unsafe { reduce(lo, _mm_xor_si128(_mm_xor_si128(mk, lo), hi), hi) }
}

/// `a * b` in GF(2^128), byte-reflected operands.
///
/// # Safety
/// PCLMULQDQ enabled.
#[inline(always)]
unsafe fn gfmul(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: PCLMULQDQ enabled by the caller.
    unsafe {
        let z = X::zero();
        let mut acc = (z, z, z);
        mul_acc(X(a), X(b), &mut acc);
        reduce(acc.0 .0, acc.1 .0, acc.2 .0)
    }
}

/// H^16..H^1 into `out` (descending).
///
/// # Safety
/// The CPU has AES-NI and PCLMULQDQ.
#[target_feature(enable = "aes,pclmulqdq,sse2,ssse3,sse4.1")]
unsafe fn h_powers(rk: &Rk, nr: usize, out: &mut Powers) {
    // SAFETY: features enabled here.
    unsafe {
        let mut s = _mm_xor_si128(_mm_setzero_si128(), _mm_loadu_si128(rk[0].as_ptr().cast()));
        for r in 1..nr {
            s = _mm_aesenc_si128(s, _mm_loadu_si128(rk[r].as_ptr().cast()));
        }
        s = _mm_aesenclast_si128(s, _mm_loadu_si128(rk[nr].as_ptr().cast()));
        // H * x in POLYVAL's representation of the byte-reversed H (see `reduce`): shifted
        // left by one, the polynomial added back when the top bit falls out.
        let hr = _mm_shuffle_epi8(s, rev128());
        let carry = _mm_srli_epi64::<63>(hr);
        let sh = _mm_or_si128(_mm_slli_epi64::<1>(hr), _mm_slli_si128::<8>(carry));
        let top = _mm_cmpeq_epi32(_mm_shuffle_epi32::<0xaa>(carry), _mm_set1_epi32(1));
        let h = _mm_xor_si128(sh, _mm_and_si128(top, _mm_set_epi64x(0xc200_0000_0000_0000_u64 as i64, 1)));
        let mut p = h;
        for i in (0..NP).rev() {
            _mm_storeu_si128(out.h[i].as_mut_ptr().cast(), p);
            _mm_storeu_si128(out.k[i].as_mut_ptr().cast(), _mm_xor_si128(p, _mm_shuffle_epi32::<0x4e>(p)));
            p = gfmul(p, h);
        }
    }
}

/// The round keys as `T`s.
///
/// # Safety
/// The features of `T` enabled.
#[inline(always)]
unsafe fn keys<T: G, const NR: usize>(rk: &Rk) -> [T; 15] {
    // SAFETY: 16-octet blocks; features enabled by the caller.
    unsafe {
        let mut k = [T::zero(); 15];
        for r in 0..=NR {
            k[r] = T::splat(_mm_loadu_si128(rk[r].as_ptr().cast()));
        }
        k
    }
}

/// Round key `i` in every block of a `T`.
///
/// # Safety
/// The features of `T` enabled; `i <= 14`.
#[inline(always)]
unsafe fn rkey<T: G>(rk: &Rk, i: usize) -> T {
    // SAFETY: a 16-octet block of the schedule; features enabled by the caller.
    unsafe { T::splat(_mm_loadu_si128(rk[i].as_ptr().cast())) }
}

/// GHASH of `n` (1..=16) byte-reflected blocks into `y`, aggregated with H^n..H^1.
///
/// # Safety
/// PCLMULQDQ enabled; `hd` is the key's powers of H.
#[inline(always)]
unsafe fn ghash_x(y: __m128i, blocks: &[__m128i], hd: &Powers) -> __m128i {
    let n = blocks.len();
    debug_assert!((1..=16).contains(&n));
    // SAFETY: PCLMULQDQ enabled by the caller; `hd` entries are 16 octets.
    unsafe {
        let z = X::zero();
        let mut acc = (z, z, z);
        for (i, b) in blocks.iter().enumerate() {
            let x = if i == 0 { _mm_xor_si128(*b, y) } else { *b };
            let j = NP - n + i;
            mul_acck(X(x), X(_mm_loadu_si128(hd.h[j].as_ptr().cast())), X(_mm_loadu_si128(hd.k[j].as_ptr().cast())), &mut acc);
        }
        reduce_k(acc.0 .0, acc.1 .0, acc.2 .0)
    }
}

/// GHASH over `data` zero padded to whole blocks (the AAD), eight blocks at a time.
///
/// # Safety
/// SSSE3 and PCLMULQDQ enabled.
#[inline(always)]
unsafe fn ghash_bytes(mut y: __m128i, data: &[u8], hd: &Powers) -> __m128i {
    // SAFETY: loads from 16-octet chunks or a stack block; features enabled by the caller.
    unsafe {
        let mut it = data.chunks_exact(128);
        for c in &mut it {
            let mut b = [_mm_setzero_si128(); 8];
            for i in 0..8 {
                b[i] = _mm_shuffle_epi8(_mm_loadu_si128(c.as_ptr().add(16 * i).cast()), rev128());
            }
            y = ghash_x(y, &b, hd);
        }
        let rest = it.remainder();
        if !rest.is_empty() {
            let mut b = [_mm_setzero_si128(); 8];
            let n = rest.len().div_ceil(16);
            for (i, c) in rest.chunks(16).enumerate() {
                let mut t = [0u8; 16];
                t[..c.len()].copy_from_slice(c);
                b[i] = _mm_shuffle_epi8(_mm_loadu_si128(t.as_ptr().cast()), rev128());
            }
            y = ghash_x(y, &b[..n], hd);
        }
        y
    }
}

/// GHASH products of `R` registers of ciphertext at `p` (byte order of the wire) with the
/// powers `hd.h[first..]` (Karatsuba, [`mul_acck`]), added to `acc` ([`next_y`] adds Y's).
///
/// # Safety
/// The features of `T` enabled; `16 R W` readable octets at `p`; `first + R W <= 16`.
#[inline(always)]
unsafe fn hash_regs<T: G, const R: usize>(p: *const u8, hd: &Powers, first: usize, acc: &mut (T, T, T)) {
    // SAFETY: as documented; `hd` is 16 contiguous blocks.
    unsafe {
        for r in 0..R {
            let x = T::bswap(T::load(p.add(16 * T::W * r)));
            let j = first + r * T::W;
            mul_acc_main::<T, false>(x, hd, j, acc);
        }
    }
}

/// [`hash_regs`] of `R` registers already loaded (the ciphertext, byte order of the wire).
///
/// # Safety
/// The features of `T` enabled; `first + R W <= 16`.
#[inline(always)]
unsafe fn hash_vals<T: G, const R: usize>(v: &[T; 8], hd: &Powers, first: usize, acc: &mut (T, T, T)) {
    // SAFETY: features enabled by the caller; `hd` holds 16 + PAD contiguous blocks.
    unsafe {
        for r in 0..R {
            let j = first + r * T::W;
            mul_acc_main::<T, true>(T::bswap(v[r]), hd, j, acc);
        }
    }
}

/// The new Y from an iteration's products and the old Y: `Y H^n` (n = blocks of the
/// iteration, `hd.h[first]` = H^n) is the only product that waits for the previous
/// iteration, so it is kept apart from the data's products and added before the reduction.
///
/// # Safety
/// The features of `T` enabled.
#[inline(always)]
unsafe fn next_y<T: G>(y: __m128i, hd: &Powers, first: usize, acc: (T, T, T)) -> __m128i {
    // SAFETY: features enabled by the caller; `hd` entries are 16 octets.
    unsafe {
        let z = X::zero();
        let mut ay = (z, z, z);
        mul_acck(X(y), X(_mm_loadu_si128(hd.h[first].as_ptr().cast())), X(_mm_loadu_si128(hd.k[first].as_ptr().cast())), &mut ay);
        reduce_k(_mm_xor_si128(T::fold(acc.0), ay.0 .0), _mm_xor_si128(T::fold(acc.1), ay.1 .0), _mm_xor_si128(T::fold(acc.2), ay.2 .0))
    }
}

/// The GCM body: iterations of `R` registers of `T::W` blocks (8 or 16 blocks), then a
/// tail of whole registers and single blocks hashed together with the lengths block.
/// Sealing hashes each iteration's ciphertext during the next iteration's AES (they are
/// independent, so the core overlaps them); opening hashes the ciphertext it is about to
/// decrypt.
///
/// # Safety
/// The features of `T` (and AES-NI, PCLMULQDQ, SSSE3, SSE4.1) enabled.
#[inline(always)]
unsafe fn body<T: G, const NR: usize, const R: usize, const ENCRYPT: bool>(
    key: &NiGcm,
    iv: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
    tag: &mut [u8; 16],
) {
    let hd = &key.pw;
    let bw = R * T::W; // blocks per iteration (8 or 16)
                       // SAFETY: (whole body) features enabled by the entry points; data accesses are inside
                       // `data` (iteration and tail bounds) or on the stack.
    unsafe {
        // Round keys are broadcast from the key where they are used, never gathered in an
        // array: the compiler put such an array on the stack, and on Zen 4 a 64-octet load
        // of a store just made waits for the store to retire, which kept a frame's AES from
        // starting before the previous frame had retired (frames of a batch did not overlap).
        let rk = &key.rk;
        // J0 = IV || 0^31 || 1, built in a register: a 16-octet load of a stack block
        // written as 12 + 1 octets would wait for the stores (no store forwarding), at the
        // head of every frame's chains.
        let j0 = _mm_set_epi64x(
            ((1u64 << 56) | u32::from_le_bytes([iv[8], iv[9], iv[10], iv[11]]) as u64) as i64,
            u64::from_le_bytes([iv[0], iv[1], iv[2], iv[3], iv[4], iv[5], iv[6], iv[7]]) as i64,
        );
        // E(J0), the tag mask.
        let mut s = _mm_xor_si128(j0, _mm_loadu_si128(rk[0].as_ptr().cast()));
        for r in 1..NR {
            s = _mm_aesenc_si128(s, _mm_loadu_si128(rk[r].as_ptr().cast()));
        }
        let ej0 = _mm_aesenclast_si128(s, _mm_loadu_si128(rk[NR].as_ptr().cast()));
        // AAD of up to one register: one (masked) load, a partial block zero padded. On
        // 256-bit registers, when the payload is only a tail (no iteration) and AAD, tail and
        // lengths block fit in the powers kept, the AAD is hashed with the tail under its one
        // reduction (a short frame waits for one reduction, not two); else reduced here.
        // Lanes past the AAD are zero (or meet the zero padding of the powers).
        let n = data.len();
        let aad_one = !aad.is_empty() && aad.len() <= 16 * T::W;
        let na = aad.len().div_ceil(16);
        // (Measured on Zen 4: a gain on 256-bit registers, a loss on 512-bit ones.)
        let aad_in_tail = T::W == 2 && aad_one && n < 16 * bw && na + n.div_ceil(16) < NP;
        let mut y = if aad_in_tail {
            _mm_setzero_si128()
        } else if aad_one {
            let aad_x = T::bswap(T::load_part(aad.as_ptr(), aad.len()));
            let z = T::zero();
            let mut a = (z, z, z);
            mul_acck(aad_x, T::load(hd.h[NP - na].as_ptr()), T::load(hd.k[NP - na].as_ptr()), &mut a);
            reduce_k(T::fold(a.0), T::fold(a.1), T::fold(a.2))
        } else {
            ghash_bytes(_mm_setzero_si128(), aad, hd)
        };
        // Byte-reflected counter: its low 32 bits are the counter value.
        let j0r = _mm_shuffle_epi8(j0, rev128());
        let one = _mm_set_epi32(0, 0, 0, 1);
        let mut cr = T::add32(T::add32(T::splat(j0r), T::splat(one)), T::lane_index());
        let step = T::splat(_mm_set_epi32(0, 0, 0, T::W as i32));
        let p = data.as_mut_ptr();
        let mut off = 0;
        // Sealing: offset of the iteration whose ciphertext is still to be hashed.
        let mut pending: Option<usize> = None;
        // On 512-bit registers sealing hashes that ciphertext from registers: reloading a
        // 64-octet store just made does not forward on AMD Zen 4 (it waits for the store to
        // retire), while 32 registers hold it beside the round keys. (16 registers of 128 or
        // 256 bits do not; their reloads forward.)
        let keep = ENCRYPT && T::W == 4;
        let mut prev = [T::zero(); 8];
        // Counter blocks in the order of the wire: while the last octet of the counter does
        // not wrap within an iteration, register r is J0 with counter `ctr` plus
        // `r W + lane` added to octet 15 (one add, no byte reversal per register).
        let mut ctr: u32 = 2;
        let mut inc = [T::zero(); 8];
        if n >= 16 * bw {
            let lanes = T::lane_be();
            for r in 0..R {
                inc[r] = T::add32(lanes, T::splat(_mm_set_epi32(((r * T::W) as i32) << 24, 0, 0, 0)));
            }
        }
        let step_it = T::splat(_mm_set_epi32(0, 0, 0, bw as i32));
        while off + 16 * bw <= n {
            let mut c = [T::zero(); 8];
            if (ctr & 0xff) as usize + bw <= 256 {
                let base = T::splat(_mm_insert_epi32::<3>(j0, ctr.swap_bytes() as i32));
                for r in 0..R {
                    c[r] = T::xor(T::add32(base, inc[r]), rkey::<T>(rk, 0));
                }
                cr = T::add32(cr, step_it);
            } else {
                for r in 0..R {
                    c[r] = T::xor(T::bswap(cr), rkey::<T>(rk, 0));
                    cr = T::add32(cr, step);
                }
            }
            ctr = ctr.wrapping_add(bw as u32);
            let z = T::zero();
            let mut acc = (z, z, z);
            if ENCRYPT {
                if let Some(q) = pending {
                    if keep {
                        hash_vals::<T, R>(&prev, hd, NP - bw, &mut acc);
                    } else {
                        hash_regs::<T, R>(p.add(q), hd, NP - bw, &mut acc);
                    }
                }
            } else {
                hash_regs::<T, R>(p.add(off), hd, NP - bw, &mut acc);
            }
            for i in 1..NR {
                for r in 0..R {
                    c[r] = T::enc(c[r], rkey::<T>(rk, i));
                }
            }
            for r in 0..R {
                let q = p.add(off + 16 * T::W * r);
                let o = T::xor(T::load(q), T::enclast(c[r], rkey::<T>(rk, NR)));
                T::store(q, o);
                prev[r] = o;
            }
            if !ENCRYPT || pending.is_some() {
                y = next_y(y, hd, NP - bw, acc);
            }
            if ENCRYPT {
                pending = Some(off);
            }
            off += 16 * bw;
        }
        if let Some(q) = pending {
            let z = T::zero();
            let mut acc = (z, z, z);
            if keep {
                hash_vals::<T, R>(&prev, hd, NP - bw, &mut acc);
            } else {
                hash_regs::<T, R>(p.add(q), hd, NP - bw, &mut acc);
            }
            y = next_y(y, hd, NP - bw, acc);
        }
        // The tail: fewer than `bw` blocks, then the lengths block, hashed together with
        // H^nb..H^1 (nb <= 16 blocks in all).
        let rest = n - off;
        // The lengths block joins the tail when the tail has fewer than 16 blocks.
        let nb_data = rest.div_ceil(16);
        let merge = nb_data < NP;
        let nb = nb_data + merge as usize;
        let first = NP - nb;
        let z = T::zero();
        let mut acc = (z, z, z);
        let mut accx = (X::zero(), X::zero(), X::zero());
        if aad_in_tail {
            // AAD block i gets H^(na + nb - i) (here merge holds: nb_data < NP).
            let j = first - na;
            let aad_x = T::bswap(T::load_part(aad.as_ptr(), aad.len()));
            mul_acck(aad_x, T::load(hd.h[j].as_ptr()), T::load(hd.k[j].as_ptr()), &mut acc);
        }
        // Whole registers of full blocks, then one register for the rest (the last block may
        // be partial), all in one wave of AES: no block waits for another's rounds.
        let q = (rest / 16) / T::W;
        let done = q * T::W;
        let singles = nb_data - done;
        let qe = q + (singles > 0) as usize;
        // One copy of the wave per register count: with a variable count the registers
        // of the wave were merged through the stack, and on Zen 4 a 64-octet reload of a
        // store just made waits for the store to retire.
        let a = p.add(off);
        let len = rest - 16 * done;
        macro_rules! wave {
            ($($qe:literal)*) => {
                match qe {
                    $($qe => tail_wave::<T, NR, $qe, ENCRYPT>(rk, hd, a, q, len, first, y, cr, step, &mut acc),)*
                    _ => unreachable!(),
                }
            };
        }
        if T::W == 4 {
            wave!(0 1 2 3 4 5 6 7 8);
        } else {
            // (On 128- and 256-bit registers the loops below measured faster: their stack
            // round trips forward.)
            let mut c = [T::zero(); 8];
            for r in 0..qe {
                c[r] = T::xor(T::bswap(cr), rkey::<T>(rk, 0));
                cr = T::add32(cr, step);
            }
            for i in 1..NR {
                for r in 0..qe {
                    c[r] = T::enc(c[r], rkey::<T>(rk, i));
                }
            }
            for r in 0..q {
                let b = a.add(16 * T::W * r);
                let d = T::load(b);
                let o = T::xor(d, T::enclast(c[r], rkey::<T>(rk, NR)));
                T::store(b, o);
                let mut x = T::bswap(if ENCRYPT { o } else { d });
                if r == 0 {
                    x = T::xor(x, T::from_lo(y));
                }
                let j = first + r * T::W;
                mul_acck(x, T::load(hd.h[j].as_ptr()), T::load(hd.k[j].as_ptr()), &mut acc);
            }
            if singles > 0 {
                let b = a.add(16 * done);
                let d = T::load_part(b, len);
                let o = T::keep(T::xor(d, T::enclast(c[q], rkey::<T>(rk, NR))), len);
                T::store_part(b, len, o);
                let mut x = T::bswap(if ENCRYPT { o } else { d });
                if q == 0 {
                    x = T::xor(x, T::from_lo(y));
                }
                let j = first + done;
                mul_acck(x, T::load(hd.h[j].as_ptr()), T::load(hd.k[j].as_ptr()), &mut acc);
            }
        }
        // Lengths block: len(A) || len(C) in bits, byte-reflected.
        let mut lens = _mm_set_epi64x((aad.len() as u64 * 8) as i64, (n as u64 * 8) as i64);
        if merge {
            if nb_data == 0 {
                lens = _mm_xor_si128(lens, y);
            }
            mul_acck(
                X(lens),
                X(_mm_loadu_si128(hd.h[NP - 1].as_ptr().cast())),
                X(_mm_loadu_si128(hd.k[NP - 1].as_ptr().cast())),
                &mut accx,
            );
        }
        y = reduce_k(
            _mm_xor_si128(T::fold(acc.0), accx.0 .0),
            _mm_xor_si128(T::fold(acc.1), accx.1 .0),
            _mm_xor_si128(T::fold(acc.2), accx.2 .0),
        );
        if !merge {
            y = ghash_x(y, &[lens], hd);
        }
        _mm_storeu_si128(tag.as_mut_ptr().cast(), _mm_xor_si128(_mm_shuffle_epi8(y, rev128()), ej0));
    }
}

/// The tail's AES in one wave of `QE` registers (no block waits for another's rounds):
/// `q` registers of full blocks at `a`, then (if `QE > q`) one of `len` (`1..=16 W`) octets,
/// zero after in the hashed register (the lanes past the data are zero and, past H^1, meet
/// the zero padding of the powers); each hashed with the powers from `hd.h[first]`, `y`
/// added to the first.
///
/// # Safety
/// The features of `T` enabled; `16 W q + len` octets at `a` readable and writable (`len`
/// only if `QE > q`); `QE <= 8`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn tail_wave<T: G, const NR: usize, const QE: usize, const ENCRYPT: bool>(
    rk: &Rk,
    hd: &Powers,
    a: *mut u8,
    q: usize,
    len: usize,
    first: usize,
    y: __m128i,
    mut cr: T,
    step: T,
    acc: &mut (T, T, T),
) {
    // SAFETY: as documented; features enabled by the caller.
    unsafe {
        let mut c = [T::zero(); 8];
        for r in 0..QE {
            c[r] = T::xor(T::bswap(cr), rkey::<T>(rk, 0));
            cr = T::add32(cr, step);
        }
        for i in 1..NR {
            for r in 0..QE {
                c[r] = T::enc(c[r], rkey::<T>(rk, i));
            }
        }
        for r in 0..QE {
            let j = first + r * T::W;
            let x = if r < q {
                let b = a.add(16 * T::W * r);
                let d = T::load(b);
                let o = T::xor(d, T::enclast(c[r], rkey::<T>(rk, NR)));
                T::store(b, o);
                T::bswap(if ENCRYPT { o } else { d })
            } else {
                let b = a.add(16 * T::W * r);
                let d = T::load_part(b, len);
                let o = T::keep(T::xor(d, T::enclast(c[r], rkey::<T>(rk, NR))), len);
                T::store_part(b, len, o);
                T::bswap(if ENCRYPT { o } else { d })
            };
            let x = if r == 0 { T::xor(x, T::from_lo(y)) } else { x };
            mul_acck(x, T::load(hd.h[j].as_ptr()), T::load(hd.k[j].as_ptr()), acc);
        }
    }
}

/// CTR from counter 2 (what [`body`] XORs into the data), one block at a time.
///
/// # Safety
/// The CPU has AES-NI.
#[target_feature(enable = "aes,sse2,ssse3,sse4.1")]
unsafe fn ctr_x<const NR: usize>(rk: &Rk, iv: &[u8; 12], data: &mut [u8]) {
    // SAFETY: features enabled here; accesses inside `data` or on the stack.
    unsafe {
        let kx = keys::<X, NR>(rk);
        let mut j0b = [0u8; 16];
        j0b[..12].copy_from_slice(iv);
        let base = _mm_loadu_si128(j0b.as_ptr().cast());
        for (i, c) in data.chunks_mut(16).enumerate() {
            let cb = _mm_insert_epi32::<3>(base, ((i as u32).wrapping_add(2)).swap_bytes() as i32);
            let mut e = _mm_xor_si128(cb, kx[0].0);
            for r in 1..NR {
                e = _mm_aesenc_si128(e, kx[r].0);
            }
            let mut t = [0u8; 16];
            _mm_storeu_si128(t.as_mut_ptr().cast(), _mm_aesenclast_si128(e, kx[NR].0));
            for (d, s) in c.iter_mut().zip(&t) {
                *d ^= s;
            }
        }
    }
}

macro_rules! entry {
    ($name:ident, $t:ty, $nr:literal, $r:literal, $enc:literal, $feat:literal) => {
        /// # Safety
        /// The CPU must support the features this function enables.
        #[target_feature(enable = $feat)]
        unsafe fn $name(key: &NiGcm, iv: &[u8; 12], aad: &[u8], data: &mut [u8], tag: &mut [u8; 16]) {
            // SAFETY: the features the body needs are enabled here.
            unsafe { body::<$t, $nr, $r, $enc>(key, iv, aad, data, tag) }
        }
    };
}
entry!(seal128_x, X, 10, 8, true, "aes,pclmulqdq,sse2,ssse3,sse4.1");
entry!(seal256_x, X, 14, 8, true, "aes,pclmulqdq,sse2,ssse3,sse4.1");
entry!(open128_x, X, 10, 8, false, "aes,pclmulqdq,sse2,ssse3,sse4.1");
entry!(open256_x, X, 14, 8, false, "aes,pclmulqdq,sse2,ssse3,sse4.1");
entry!(seal128_y, Y, 10, 8, true, "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq");
entry!(seal256_y, Y, 14, 8, true, "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq");
entry!(open128_y, Y, 10, 8, false, "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq");
entry!(open256_y, Y, 14, 8, false, "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq");
entry!(seal128_z, Z, 10, 8, true, "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512vl,avx512bw,vaes,vpclmulqdq");
entry!(seal256_z, Z, 14, 8, true, "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512vl,avx512bw,vaes,vpclmulqdq");
entry!(open128_z, Z, 10, 8, false, "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512vl,avx512bw,vaes,vpclmulqdq");
entry!(open256_z, Z, 14, 8, false, "aes,pclmulqdq,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512vl,avx512bw,vaes,vpclmulqdq");

/// Largest GCM payload the kernel takes (the 32-bit counter never wraps below it).
pub(crate) const MAX_GCM_PAYLOAD: usize = 1 << 30;

pub(crate) fn check_len(aad: &[u8], len: usize) -> Result<()> {
    if len > MAX_GCM_PAYLOAD || aad.len() > MAX_GCM_PAYLOAD {
        return Err(Error::Oversize);
    }
    Ok(())
}

//! Enhanced CCMP (docs/eccmp.md) with 4 or 8 lanes on VAES (AVX-512: [`run`]; AVX2 only,
//! AMD Zen 3 and Intel client cores: [`run_y`]), the lane MACs and CTR in one pass.
//!
//! # Why
//! The lane kernel of `aesni.rs` runs the `k` lane chains in 128-bit registers and CTR as
//! a second pass over the frame. The chains are bound by AESENC latency, so the AES units
//! are mostly idle while they run: here the four blocks CTR needs for the same 64 octets go
//! through the same rounds in a second 512-bit register, and the frame is read and written
//! once. Measured at 7935 octets on Zen 4 the two passes cost 0.46 + 0.22 TSC ticks per
//! octet.
//!
//! # Scheme
//! The formatted stream is `X_0 = B0, X_1, X_2` (the two formatted AAD blocks of every
//! 15- to 30-octet AAD: only those take this path), then the payload blocks; lane `l` takes
//! `X_j` for `j mod K == l`. Step `s` feeds `X_{Ks} .. X_{Ks+K-1}` to the `K` lanes, `K / 4`
//! registers of four; from step 1 on those are 64 contiguous payload octets per register.
//! Payload block `p` uses counter `p + 1` (`A_{p+1}`), so register `g` of step `s` needs the
//! counters `Ks + 4g - 2 .. Ks + 4g + 1`; in step 0 that puts `A_0` (the tag mask) in lane 2
//! and `A_1` in lane 3, beside `P_0`. The keystream of a step is computed during the step
//! before (decryption needs the plaintext before it is chained); a lane past the end of the
//! stream keeps its chain. Chain states are kept "before the last round" as in `aesni.rs`:
//! `enclast(s, K_nr ^ K_0 ^ X)` is the next block's input already whitened.
#![allow(clippy::needless_range_loop)]
use super::aesni::Rk;
use core::arch::x86_64::*;

/// A dispatcher `$run` over key size, lane count and direction to `$body`, compiled in one
/// generic entry point with the features `$feat`; `$g4` and `$g8` are the registers of
/// 4 and 8 lanes.
macro_rules! dispatch {
    ($(#[$doc:meta])* $run:ident, $body:ident, $feat:literal, $g4:literal, $g8:literal) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub(crate) unsafe fn $run(
            rk: &Rk,
            nr: u8,
            k: usize,
            m: usize,
            nonce: &[u8; 13],
            aad: &[u8],
            data: &mut [u8],
            encrypt: bool,
        ) -> [u8; 16] {
            /// # Safety
            /// As the dispatcher.
            #[target_feature(enable = $feat)]
            unsafe fn entry<const NR: usize, const G: usize, const E: bool>(
                rk: &Rk,
                m: usize,
                nonce: &[u8; 13],
                aad: &[u8],
                data: &mut [u8],
            ) -> [u8; 16] {
                // SAFETY: features enabled here; the rest from the caller.
                unsafe { $body::<NR, G, E>(rk, m, nonce, aad, data) }
            }
            // SAFETY: forwarded from the caller.
            unsafe {
                match (nr, k, encrypt) {
                    (10, 4, true) => entry::<10, $g4, true>(rk, m, nonce, aad, data),
                    (10, 4, false) => entry::<10, $g4, false>(rk, m, nonce, aad, data),
                    (10, _, true) => entry::<10, $g8, true>(rk, m, nonce, aad, data),
                    (10, _, false) => entry::<10, $g8, false>(rk, m, nonce, aad, data),
                    (_, 4, true) => entry::<14, $g4, true>(rk, m, nonce, aad, data),
                    (_, 4, false) => entry::<14, $g4, false>(rk, m, nonce, aad, data),
                    (_, _, true) => entry::<14, $g8, true>(rk, m, nonce, aad, data),
                    (_, _, false) => entry::<14, $g8, false>(rk, m, nonce, aad, data),
                }
            }
        }
    };
}

dispatch!(
    /// The full (16-octet) masked tag `T ^ S_0` of an ECCMP-`k` message, and `data` encrypted
    /// (`encrypt`) or decrypted in place.
    ///
    /// # Safety
    /// The CPU has AES-NI, AVX-512 F/BW/VL and VAES; `k` is 4 or 8; `nr` 10 or 14 with `rk` its
    /// expanded key; `aad` has 15 to 30 octets; `data` at most 65 535; `m` is 4 to 16 and even.
    run,
    body,
    "aes,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512vl,avx512bw,vaes",
    1,
    2
);

dispatch!(
    /// [`run`] on AVX2 + VAES (256-bit registers, two lanes each; no AVX-512).
    ///
    /// # Safety
    /// The CPU has AES-NI, AVX2 and VAES; otherwise as [`run`].
    run_y,
    body_y,
    "aes,sse2,ssse3,sse4.1,avx,avx2,vaes",
    2,
    4
);

/// Mask of the octets `off..off + 64` of a `len`-octet buffer that exist.
#[inline(always)]
fn byte_mask(len: usize, off: usize) -> u64 {
    let n = len.saturating_sub(off).min(64);
    if n == 64 {
        !0
    } else {
        (1u64 << n) - 1
    }
}

/// The qword mask (two bits per 128-bit lane) of the lanes of a register whose stream
/// index `j0 + t` (t = 0..4) is below `n`.
#[inline(always)]
fn lane_mask(j0: usize, n: usize) -> u8 {
    let live = n.saturating_sub(j0).min(4);
    ((1u16 << (2 * live)) - 1) as u8
}

/// Rounds 1 to `NR - 1` of the chains `a` and the keystream blocks `b`, interleaved.
///
/// # Safety
/// AVX-512F and VAES enabled by the caller.
#[inline(always)]
unsafe fn middle_rounds<const NR: usize, const G: usize>(a: &mut [__m512i; G], b: &mut [__m512i; G], kz: &[__m512i; 15]) {
    for r in 1..NR {
        for g in 0..G {
            // SAFETY: VAES and AVX-512F enabled by the caller.
            unsafe {
                a[g] = _mm512_aesenc_epi128(a[g], kz[r]);
                b[g] = _mm512_aesenc_epi128(b[g], kz[r]);
            }
        }
    }
}

/// # Safety
/// AVX-512 F/BW/VL and VAES enabled by the caller; the conditions of [`run`].
#[inline(always)]
unsafe fn body<const NR: usize, const G: usize, const ENCRYPT: bool>(
    rk: &Rk,
    m: usize,
    nonce: &[u8; 13],
    aad: &[u8],
    data: &mut [u8],
) -> [u8; 16] {
    const { assert!(G == 1 || G == 2) };
    let k = 4 * G;
    let len = data.len();
    let n = 3 + len.div_ceil(16);
    let steps = n.div_ceil(k);
    let (b0, a0) = super::b0_a0(nonce, aad.len(), m, len);
    let mut ab = [0u8; 32];
    ab[0] = (aad.len() >> 8) as u8;
    ab[1] = aad.len() as u8;
    ab[2..2 + aad.len()].copy_from_slice(aad);
    let mut dom = [[0u8; 16]; 8];
    for (l, d) in dom.iter_mut().enumerate().take(k) {
        d[0] = super::aesni::lane_flags(l, k, 2);
        d[1..14].copy_from_slice(nonce);
        d[14] = (len >> 8) as u8;
        d[15] = len as u8;
    }
    let p = data.as_mut_ptr();
    // SAFETY: (whole body) the features are enabled by the entry points; every load and
    // store of `data` is masked to its `len` octets, the others are of stack arrays.
    unsafe {
        let mut kz = [_mm512_setzero_si512(); 15];
        for (i, z) in kz.iter_mut().enumerate().take(NR + 1) {
            *z = _mm512_broadcast_i32x4(_mm_loadu_si128(rk[i].as_ptr().cast()));
        }
        let kx = _mm512_xor_si512(kz[NR], kz[0]);
        // Counters: the counter of each lane as a 32-bit integer in its last dword, moved
        // to octets 14-15 big endian and merged into A_0's other octets.
        let base = _mm512_broadcast_i32x4(_mm_loadu_si128(a0.as_ptr().cast()));
        let to_be = _mm512_broadcast_i32x4(_mm_set_epi8(12, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
        let ctr_block = |s: usize, g: usize| -> __m512i {
            let c0 = (k * s + 4 * g) as i32 - 2;
            let c = _mm512_set_epi32(c0 + 3, 0, 0, 0, c0 + 2, 0, 0, 0, c0 + 1, 0, 0, 0, c0, 0, 0, 0);
            _mm512_or_si512(base, _mm512_shuffle_epi8(c, to_be))
        };
        // Chains from their domain blocks, and the keystream of step 0, side by side.
        let mut st = [_mm512_setzero_si512(); G];
        let mut ks = [_mm512_setzero_si512(); G];
        for g in 0..G {
            st[g] = _mm512_xor_si512(_mm512_loadu_si512(dom[4 * g..].as_ptr().cast()), kz[0]);
            ks[g] = _mm512_xor_si512(ctr_block(0, g), kz[0]);
        }
        middle_rounds::<NR, G>(&mut st, &mut ks, &kz);
        for g in 0..G {
            ks[g] = _mm512_aesenclast_epi128(ks[g], kz[NR]);
        }
        let s0 = _mm512_extracti32x4_epi32::<2>(ks[0]);
        for s in 0..steps {
            let mut x = [_mm512_setzero_si512(); G];
            let mut kn = [_mm512_setzero_si512(); G];
            for g in 0..G {
                let j0 = k * s + 4 * g;
                let blk = if j0 == 0 {
                    // B0, X_1, X_2 and payload block 0 (lane 3).
                    let bm = byte_mask(len, 0) as u16 as u64;
                    let d = _mm_maskz_loadu_epi8(bm as u16, p.cast());
                    let k1 = _mm512_extracti32x4_epi32::<3>(ks[0]);
                    let (plain, out) = if ENCRYPT {
                        (d, _mm_xor_si128(d, k1))
                    } else {
                        let pl = _mm_maskz_mov_epi8(bm as u16, _mm_xor_si128(d, k1));
                        (pl, pl)
                    };
                    _mm_mask_storeu_epi8(p.cast(), bm as u16, out);
                    let mut z = _mm512_castsi128_si512(_mm_loadu_si128(b0.as_ptr().cast()));
                    z = _mm512_inserti32x4::<1>(z, _mm_loadu_si128(ab.as_ptr().cast()));
                    z = _mm512_inserti32x4::<2>(z, _mm_loadu_si128(ab[16..].as_ptr().cast()));
                    _mm512_inserti32x4::<3>(z, plain)
                } else {
                    let off = (j0 - 3) * 16;
                    let bm = byte_mask(len, off);
                    let d = _mm512_maskz_loadu_epi8(bm, p.add(off.min(len)).cast());
                    let pl = _mm512_maskz_mov_epi8(bm, _mm512_xor_si512(d, ks[g]));
                    let (plain, out) = if ENCRYPT { (d, pl) } else { (pl, pl) };
                    _mm512_mask_storeu_epi8(p.add(off.min(len)).cast(), bm, out);
                    plain
                };
                x[g] = _mm512_aesenclast_epi128(st[g], _mm512_xor_si512(kx, blk));
                kn[g] = _mm512_xor_si512(ctr_block(s + 1, g), kz[0]);
            }
            middle_rounds::<NR, G>(&mut x, &mut kn, &kz);
            for g in 0..G {
                ks[g] = _mm512_aesenclast_epi128(kn[g], kz[NR]);
                st[g] = _mm512_mask_blend_epi64(lane_mask(k * s + 4 * g, n), st[g], x[g]);
            }
        }
        let mut y = _mm512_aesenclast_epi128(st[0], kz[NR]);
        if G == 2 {
            y = _mm512_xor_si512(y, _mm512_aesenclast_epi128(st[G - 1], kz[NR]));
        }
        let lo = _mm_xor_si128(_mm512_extracti32x4_epi32::<0>(y), _mm512_extracti32x4_epi32::<1>(y));
        let hi = _mm_xor_si128(_mm512_extracti32x4_epi32::<2>(y), _mm512_extracti32x4_epi32::<3>(y));
        let t = _mm_xor_si128(_mm_xor_si128(lo, hi), s0);
        let mut out = [0u8; 16];
        _mm_storeu_si128(out.as_mut_ptr().cast(), t);
        out
    }
}

/// [`middle_rounds`] on 256-bit registers.
///
/// # Safety
/// AVX2 and VAES enabled by the caller.
#[inline(always)]
unsafe fn middle_rounds_y<const NR: usize, const G: usize>(a: &mut [__m256i; G], b: &mut [__m256i; G], kz: &[__m256i; 15]) {
    for r in 1..NR {
        for g in 0..G {
            // SAFETY: VAES and AVX2 enabled by the caller.
            unsafe {
                a[g] = _mm256_aesenc_epi128(a[g], kz[r]);
                b[g] = _mm256_aesenc_epi128(b[g], kz[r]);
            }
        }
    }
}

/// The scheme of [`body`] with two lanes per register (`G = K / 2` registers). A step whose
/// 16 K octets are all payload inside the message is loaded and stored whole; step 0 (B0
/// and the AAD blocks) and the last, partial steps go block by block through the stack, so
/// nothing outside the message is read or written.
///
/// # Safety
/// AVX2 and VAES enabled by the caller; the conditions of [`run`].
#[inline(always)]
unsafe fn body_y<const NR: usize, const G: usize, const ENCRYPT: bool>(
    rk: &Rk,
    m: usize,
    nonce: &[u8; 13],
    aad: &[u8],
    data: &mut [u8],
) -> [u8; 16] {
    const { assert!(G == 2 || G == 4) };
    let k = 2 * G;
    let len = data.len();
    let n = 3 + len.div_ceil(16);
    let steps = n.div_ceil(k);
    let (b0, a0) = super::b0_a0(nonce, aad.len(), m, len);
    let mut pre = [[0u8; 16]; 3];
    pre[0] = b0;
    pre[1][0] = (aad.len() >> 8) as u8;
    pre[1][1] = aad.len() as u8;
    let first = aad.len().min(14);
    pre[1][2..2 + first].copy_from_slice(&aad[..first]);
    pre[2][..aad.len() - first].copy_from_slice(&aad[first..]);
    let mut dom = [[0u8; 16]; 8];
    for (l, d) in dom.iter_mut().enumerate().take(k) {
        d[0] = super::aesni::lane_flags(l, k, 2);
        d[1..14].copy_from_slice(nonce);
        d[14] = (len >> 8) as u8;
        d[15] = len as u8;
    }
    let p = data.as_mut_ptr();
    // SAFETY: (whole body) AVX2 and VAES are enabled by the entry points; the whole-step
    // loads and stores are of 16 K octets inside `data` (checked against `len`), the
    // others of single blocks inside it or of stack arrays.
    unsafe {
        let mut kz = [_mm256_setzero_si256(); 15];
        for (i, z) in kz.iter_mut().enumerate().take(NR + 1) {
            *z = _mm256_broadcastsi128_si256(_mm_loadu_si128(rk[i].as_ptr().cast()));
        }
        let kx = _mm256_xor_si256(kz[NR], kz[0]);
        let base = _mm256_broadcastsi128_si256(_mm_loadu_si128(a0.as_ptr().cast()));
        let to_be = _mm256_broadcastsi128_si256(_mm_set_epi8(12, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
        // Register g of step s holds stream blocks K s + 2 g and K s + 2 g + 1, so counters
        // K s + 2 g - 2 and K s + 2 g - 1.
        let ctr_block = |s: usize, g: usize| -> __m256i {
            let c0 = (k * s + 2 * g) as i32 - 2;
            let c = _mm256_set_epi32(c0 + 1, 0, 0, 0, c0, 0, 0, 0);
            _mm256_or_si256(base, _mm256_shuffle_epi8(c, to_be))
        };
        let mut st = [_mm256_setzero_si256(); G];
        let mut ks = [_mm256_setzero_si256(); G];
        for g in 0..G {
            st[g] = _mm256_xor_si256(_mm256_loadu_si256(dom[2 * g..].as_ptr().cast()), kz[0]);
            ks[g] = _mm256_xor_si256(ctr_block(0, g), kz[0]);
        }
        middle_rounds_y::<NR, G>(&mut st, &mut ks, &kz);
        for g in 0..G {
            ks[g] = _mm256_aesenclast_epi128(ks[g], kz[NR]);
        }
        // A_0 is counter 0: stream position 2 of step 0, register 1 lane 0.
        let s0 = _mm256_castsi256_si128(ks[1]);
        for s in 0..steps {
            let mut x = [_mm256_setzero_si256(); G];
            let mut kn = [_mm256_setzero_si256(); G];
            let j0 = k * s;
            if j0 >= 3 && (j0 + k - 3) * 16 <= len {
                for g in 0..G {
                    let off = (j0 + 2 * g - 3) * 16;
                    let d = _mm256_loadu_si256(p.add(off).cast());
                    let o = _mm256_xor_si256(d, ks[g]);
                    _mm256_storeu_si256(p.add(off).cast(), o);
                    let plain = if ENCRYPT { d } else { o };
                    x[g] = _mm256_aesenclast_epi128(st[g], _mm256_xor_si256(kx, plain));
                    kn[g] = _mm256_xor_si256(ctr_block(s + 1, g), kz[0]);
                }
                middle_rounds_y::<NR, G>(&mut x, &mut kn, &kz);
                for g in 0..G {
                    ks[g] = _mm256_aesenclast_epi128(kn[g], kz[NR]);
                    st[g] = x[g];
                }
                continue;
            }
            // Block by block: the chain inputs of this step into `blk`.
            let mut kb = [[0u8; 16]; 8];
            for g in 0..G {
                _mm256_storeu_si256(kb[2 * g..].as_mut_ptr().cast(), ks[g]);
            }
            let mut blk = [[0u8; 16]; 8];
            for t in 0..k {
                let j = j0 + t;
                if j < 3 {
                    blk[t] = pre[j];
                    continue;
                }
                if j >= n {
                    continue;
                }
                let off = (j - 3) * 16;
                let r = (len - off).min(16);
                let mut c = [0u8; 16];
                core::ptr::copy_nonoverlapping(p.add(off), c.as_mut_ptr(), r);
                let mut o = [0u8; 16];
                for i in 0..16 {
                    o[i] = c[i] ^ kb[t][i];
                }
                core::ptr::copy_nonoverlapping(o.as_ptr(), p.add(off), r);
                if ENCRYPT {
                    blk[t] = c;
                } else {
                    blk[t][..r].copy_from_slice(&o[..r]);
                }
            }
            for g in 0..G {
                x[g] = _mm256_aesenclast_epi128(st[g], _mm256_xor_si256(kx, _mm256_loadu_si256(blk[2 * g..].as_ptr().cast())));
                kn[g] = _mm256_xor_si256(ctr_block(s + 1, g), kz[0]);
            }
            middle_rounds_y::<NR, G>(&mut x, &mut kn, &kz);
            for g in 0..G {
                ks[g] = _mm256_aesenclast_epi128(kn[g], kz[NR]);
                let live = |t: usize| if j0 + 2 * g + t < n { -1i64 } else { 0 };
                let mask = _mm256_set_epi64x(live(1), live(1), live(0), live(0));
                st[g] = _mm256_blendv_epi8(st[g], x[g], mask);
            }
        }
        let mut y = _mm256_setzero_si256();
        for g in 0..G {
            y = _mm256_xor_si256(y, _mm256_aesenclast_epi128(st[g], kz[NR]));
        }
        let t = _mm_xor_si128(_mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y)), s0);
        let mut out = [0u8; 16];
        _mm_storeu_si128(out.as_mut_ptr().cast(), t);
        out
    }
}

/// A dispatcher `$run` over key size and direction to the pair body `$body`, compiled in
/// one generic entry point with the features `$feat`.
macro_rules! dispatch_pair {
    ($(#[$doc:meta])* $run:ident, $body:ident, $feat:literal) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub(crate) unsafe fn $run(
            rk: &Rk,
            nr: u8,
            m: usize,
            nonce: [&[u8; 13]; 2],
            aad: [&[u8]; 2],
            data: [&mut [u8]; 2],
            encrypt: bool,
        ) -> [[u8; 16]; 2] {
            /// # Safety
            /// As the dispatcher.
            #[target_feature(enable = $feat)]
            unsafe fn entry<const NR: usize, const E: bool>(
                rk: &Rk,
                m: usize,
                nonce: [&[u8; 13]; 2],
                aad: [&[u8]; 2],
                data: [&mut [u8]; 2],
            ) -> [[u8; 16]; 2] {
                // SAFETY: features enabled here; the rest from the caller.
                unsafe { $body::<NR, E>(rk, m, nonce, aad, data) }
            }
            // SAFETY: forwarded from the caller.
            unsafe {
                match (nr, encrypt) {
                    (10, true) => entry::<10, true>(rk, m, nonce, aad, data),
                    (10, false) => entry::<10, false>(rk, m, nonce, aad, data),
                    (_, true) => entry::<14, true>(rk, m, nonce, aad, data),
                    (_, false) => entry::<14, false>(rk, m, nonce, aad, data),
                }
            }
        }
    };
}

dispatch_pair!(
    /// Two ECCMP-4 messages under one key in one pass (AVX-512): frame `g`'s four lane chains
    /// fill register `g` of the chains, its keystream register `g` of the keystream, so the
    /// eight chains and eight keystream blocks of a step go through the same rounds as
    /// ECCMP-8's. Each frame runs [`body`]'s scheme with `K = 4` on its own nonce and length;
    /// the shorter one idles (masked loads, stores and chain updates) until the longer ends.
    /// Returns each frame's full masked tag; the data are encrypted (`encrypt`) or decrypted
    /// in place.
    ///
    /// # Safety
    /// The CPU has AES-NI, AVX-512 F/BW/VL and VAES; `nr` is 10 or 14 with `rk` its expanded
    /// key; every AAD has 15 to 30 octets; every data at most 65 535; `m` is 4 to 16 and even.
    run_pair,
    body_pair,
    "aes,sse2,ssse3,sse4.1,avx,avx2,avx512f,avx512vl,avx512bw,vaes"
);

dispatch_pair!(
    /// [`run_pair`] on AVX2 + VAES (256-bit registers): frame `g`'s four chains in registers
    /// `2 g` and `2 g + 1`, as [`body_y`] keeps one ECCMP-4 frame.
    ///
    /// # Safety
    /// The CPU has AES-NI, AVX2 and VAES; otherwise as [`run_pair`].
    run_pair_y,
    body_pair_y,
    "aes,sse2,ssse3,sse4.1,avx,avx2,vaes"
);

/// One ECCMP-4 frame's blocks for the pair kernels, as arrays of 16-octet blocks:
/// `[B0, X_1, X_2]` (the two formatted AAD blocks), `A_0`, and the four lanes' domain
/// blocks.
#[allow(clippy::type_complexity)]
fn pair_blocks(m: usize, nonce: &[u8; 13], aad: &[u8], len: usize) -> ([[u8; 16]; 3], [u8; 16], [[u8; 16]; 4]) {
    let (b0, a0) = super::b0_a0(nonce, aad.len(), m, len);
    let mut ab = [0u8; 32];
    ab[0] = (aad.len() >> 8) as u8;
    ab[1] = aad.len() as u8;
    ab[2..2 + aad.len()].copy_from_slice(aad);
    let mut pre = [b0, [0; 16], [0; 16]];
    pre[1].copy_from_slice(&ab[..16]);
    pre[2].copy_from_slice(&ab[16..]);
    let mut dom = [[0u8; 16]; 4];
    for (l, d) in dom.iter_mut().enumerate() {
        d[0] = super::aesni::lane_flags(l, 4, 2);
        d[1..14].copy_from_slice(nonce);
        d[14] = (len >> 8) as u8;
        d[15] = len as u8;
    }
    (pre, a0, dom)
}

/// # Safety
/// AVX-512 F/BW/VL and VAES enabled by the caller; the conditions of [`run_pair`].
#[inline(always)]
unsafe fn body_pair<const NR: usize, const ENCRYPT: bool>(
    rk: &Rk,
    m: usize,
    nonce: [&[u8; 13]; 2],
    aad: [&[u8]; 2],
    data: [&mut [u8]; 2],
) -> [[u8; 16]; 2] {
    const K: usize = 4;
    let len = [data[0].len(), data[1].len()];
    let n = [3 + len[0].div_ceil(16), 3 + len[1].div_ceil(16)];
    let steps = n[0].max(n[1]).div_ceil(K);
    let ((pre0, a00, dom0), (pre1, a01, dom1)) = (pair_blocks(m, nonce[0], aad[0], len[0]), pair_blocks(m, nonce[1], aad[1], len[1]));
    let (pre, a0, dom) = ([pre0, pre1], [a00, a01], [dom0, dom1]);
    let [d0, d1] = data;
    let p = [d0.as_mut_ptr(), d1.as_mut_ptr()];
    // SAFETY: (whole body) the features are enabled by the entry point; every load and
    // store of a frame is masked to its `len` octets, the others are of stack arrays.
    unsafe {
        let mut kz = [_mm512_setzero_si512(); 15];
        for (i, z) in kz.iter_mut().enumerate().take(NR + 1) {
            *z = _mm512_broadcast_i32x4(_mm_loadu_si128(rk[i].as_ptr().cast()));
        }
        let kx = _mm512_xor_si512(kz[NR], kz[0]);
        let base = [
            _mm512_broadcast_i32x4(_mm_loadu_si128(a0[0].as_ptr().cast())),
            _mm512_broadcast_i32x4(_mm_loadu_si128(a0[1].as_ptr().cast())),
        ];
        let to_be = _mm512_broadcast_i32x4(_mm_set_epi8(12, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
        // Step s of a frame holds its stream blocks 4 s .. 4 s + 3: counters 4 s - 2 ..
        // 4 s + 1 (as `body`'s register 0).
        let ctr_block = |s: usize, g: usize| -> __m512i {
            let c0 = (K * s) as i32 - 2;
            let c = _mm512_set_epi32(c0 + 3, 0, 0, 0, c0 + 2, 0, 0, 0, c0 + 1, 0, 0, 0, c0, 0, 0, 0);
            _mm512_or_si512(base[g], _mm512_shuffle_epi8(c, to_be))
        };
        let mut st = [_mm512_setzero_si512(); 2];
        let mut ks = [_mm512_setzero_si512(); 2];
        for g in 0..2 {
            st[g] = _mm512_xor_si512(_mm512_loadu_si512(dom[g].as_ptr().cast()), kz[0]);
            ks[g] = _mm512_xor_si512(ctr_block(0, g), kz[0]);
        }
        middle_rounds::<NR, 2>(&mut st, &mut ks, &kz);
        for g in 0..2 {
            ks[g] = _mm512_aesenclast_epi128(ks[g], kz[NR]);
        }
        let s0 = [_mm512_extracti32x4_epi32::<2>(ks[0]), _mm512_extracti32x4_epi32::<2>(ks[1])];
        for s in 0..steps {
            let mut x = [_mm512_setzero_si512(); 2];
            let mut kn = [_mm512_setzero_si512(); 2];
            for g in 0..2 {
                let (p, len) = (p[g], len[g]);
                let blk = if s == 0 {
                    // B0, X_1, X_2 and payload block 0 (lane 3).
                    let bm = byte_mask(len, 0) as u16;
                    let d = _mm_maskz_loadu_epi8(bm, p.cast());
                    let k1 = _mm512_extracti32x4_epi32::<3>(ks[g]);
                    let (plain, out) = if ENCRYPT {
                        (d, _mm_xor_si128(d, k1))
                    } else {
                        let pl = _mm_maskz_mov_epi8(bm, _mm_xor_si128(d, k1));
                        (pl, pl)
                    };
                    _mm_mask_storeu_epi8(p.cast(), bm, out);
                    let mut z = _mm512_castsi128_si512(_mm_loadu_si128(pre[g][0].as_ptr().cast()));
                    z = _mm512_inserti32x4::<1>(z, _mm_loadu_si128(pre[g][1].as_ptr().cast()));
                    z = _mm512_inserti32x4::<2>(z, _mm_loadu_si128(pre[g][2].as_ptr().cast()));
                    _mm512_inserti32x4::<3>(z, plain)
                } else {
                    let off = (K * s - 3) * 16;
                    let bm = byte_mask(len, off);
                    let at = p.add(off.min(len));
                    let d = _mm512_maskz_loadu_epi8(bm, at.cast());
                    let pl = _mm512_maskz_mov_epi8(bm, _mm512_xor_si512(d, ks[g]));
                    let (plain, out) = if ENCRYPT { (d, pl) } else { (pl, pl) };
                    _mm512_mask_storeu_epi8(at.cast(), bm, out);
                    plain
                };
                x[g] = _mm512_aesenclast_epi128(st[g], _mm512_xor_si512(kx, blk));
                kn[g] = _mm512_xor_si512(ctr_block(s + 1, g), kz[0]);
            }
            middle_rounds::<NR, 2>(&mut x, &mut kn, &kz);
            for g in 0..2 {
                ks[g] = _mm512_aesenclast_epi128(kn[g], kz[NR]);
                st[g] = _mm512_mask_blend_epi64(lane_mask(K * s, n[g]), st[g], x[g]);
            }
        }
        let mut out = [[0u8; 16]; 2];
        for g in 0..2 {
            let y = _mm512_aesenclast_epi128(st[g], kz[NR]);
            let lo = _mm_xor_si128(_mm512_extracti32x4_epi32::<0>(y), _mm512_extracti32x4_epi32::<1>(y));
            let hi = _mm_xor_si128(_mm512_extracti32x4_epi32::<2>(y), _mm512_extracti32x4_epi32::<3>(y));
            _mm_storeu_si128(out[g].as_mut_ptr().cast(), _mm_xor_si128(_mm_xor_si128(lo, hi), s0[g]));
        }
        out
    }
}

/// # Safety
/// AVX2 and VAES enabled by the caller; the conditions of [`run_pair_y`].
#[inline(always)]
unsafe fn body_pair_y<const NR: usize, const ENCRYPT: bool>(
    rk: &Rk,
    m: usize,
    nonce: [&[u8; 13]; 2],
    aad: [&[u8]; 2],
    data: [&mut [u8]; 2],
) -> [[u8; 16]; 2] {
    const K: usize = 4;
    let len = [data[0].len(), data[1].len()];
    let n = [3 + len[0].div_ceil(16), 3 + len[1].div_ceil(16)];
    let steps = n[0].max(n[1]).div_ceil(K);
    let ((pre0, a00, dom0), (pre1, a01, dom1)) = (pair_blocks(m, nonce[0], aad[0], len[0]), pair_blocks(m, nonce[1], aad[1], len[1]));
    let (pre, a0, dom) = ([pre0, pre1], [a00, a01], [dom0, dom1]);
    let [d0, d1] = data;
    let p = [d0.as_mut_ptr(), d1.as_mut_ptr()];
    // SAFETY: (whole body) AVX2 and VAES are enabled by the entry point; the whole-step
    // loads and stores are of 64 octets inside their frame (checked against its length),
    // the others of single blocks inside it or of stack arrays.
    unsafe {
        let mut kz = [_mm256_setzero_si256(); 15];
        for (i, z) in kz.iter_mut().enumerate().take(NR + 1) {
            *z = _mm256_broadcastsi128_si256(_mm_loadu_si128(rk[i].as_ptr().cast()));
        }
        let kx = _mm256_xor_si256(kz[NR], kz[0]);
        let base = [
            _mm256_broadcastsi128_si256(_mm_loadu_si128(a0[0].as_ptr().cast())),
            _mm256_broadcastsi128_si256(_mm_loadu_si128(a0[1].as_ptr().cast())),
        ];
        let to_be = _mm256_broadcastsi128_si256(_mm_set_epi8(12, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
        // Register r = 2 f + h of step s holds frame f's stream blocks 4 s + 2 h and
        // 4 s + 2 h + 1: counters 4 s + 2 h - 2 and 4 s + 2 h - 1.
        let ctr_block = |s: usize, r: usize| -> __m256i {
            let c0 = (K * s + 2 * (r & 1)) as i32 - 2;
            let c = _mm256_set_epi32(c0 + 1, 0, 0, 0, c0, 0, 0, 0);
            _mm256_or_si256(base[r / 2], _mm256_shuffle_epi8(c, to_be))
        };
        let mut st = [_mm256_setzero_si256(); 4];
        let mut ks = [_mm256_setzero_si256(); 4];
        for r in 0..4 {
            st[r] = _mm256_xor_si256(_mm256_loadu_si256(dom[r / 2][2 * (r & 1)..].as_ptr().cast()), kz[0]);
            ks[r] = _mm256_xor_si256(ctr_block(0, r), kz[0]);
        }
        middle_rounds_y::<NR, 4>(&mut st, &mut ks, &kz);
        for r in 0..4 {
            ks[r] = _mm256_aesenclast_epi128(ks[r], kz[NR]);
        }
        // A_0 is counter 0: stream position 2 of step 0, the frame's second register, lane 0.
        let s0 = [_mm256_castsi256_si128(ks[1]), _mm256_castsi256_si128(ks[3])];
        for s in 0..steps {
            let mut x = [_mm256_setzero_si256(); 4];
            let mut kn = [_mm256_setzero_si256(); 4];
            let mut live = [[0i64; 2]; 4];
            let j0 = K * s;
            for f in 0..2 {
                let (p, len, n) = (p[f], len[f], n[f]);
                if j0 >= 3 && (j0 + K - 3) * 16 <= len {
                    for h in 0..2 {
                        let r = 2 * f + h;
                        let off = (j0 + 2 * h - 3) * 16;
                        let d = _mm256_loadu_si256(p.add(off).cast());
                        let o = _mm256_xor_si256(d, ks[r]);
                        _mm256_storeu_si256(p.add(off).cast(), o);
                        let plain = if ENCRYPT { d } else { o };
                        x[r] = _mm256_aesenclast_epi128(st[r], _mm256_xor_si256(kx, plain));
                        live[r] = [-1, -1];
                    }
                    continue;
                }
                // Block by block (step 0, the last steps, or past the frame's end).
                let mut kb = [[0u8; 16]; 4];
                _mm256_storeu_si256(kb.as_mut_ptr().cast(), ks[2 * f]);
                _mm256_storeu_si256(kb[2..].as_mut_ptr().cast(), ks[2 * f + 1]);
                let mut blk = [[0u8; 16]; 4];
                for t in 0..K {
                    let j = j0 + t;
                    if j < n {
                        live[2 * f + t / 2][t % 2] = -1;
                    }
                    if j < 3 {
                        blk[t] = pre[f][j];
                        continue;
                    }
                    if j >= n {
                        continue;
                    }
                    let off = (j - 3) * 16;
                    let r = (len - off).min(16);
                    let mut c = [0u8; 16];
                    core::ptr::copy_nonoverlapping(p.add(off), c.as_mut_ptr(), r);
                    let mut o = [0u8; 16];
                    for i in 0..16 {
                        o[i] = c[i] ^ kb[t][i];
                    }
                    core::ptr::copy_nonoverlapping(o.as_ptr(), p.add(off), r);
                    if ENCRYPT {
                        blk[t] = c;
                    } else {
                        blk[t][..r].copy_from_slice(&o[..r]);
                    }
                }
                for h in 0..2 {
                    let r = 2 * f + h;
                    x[r] = _mm256_aesenclast_epi128(st[r], _mm256_xor_si256(kx, _mm256_loadu_si256(blk[2 * h..].as_ptr().cast())));
                }
            }
            for r in 0..4 {
                kn[r] = _mm256_xor_si256(ctr_block(s + 1, r), kz[0]);
            }
            middle_rounds_y::<NR, 4>(&mut x, &mut kn, &kz);
            for r in 0..4 {
                ks[r] = _mm256_aesenclast_epi128(kn[r], kz[NR]);
                let mask = _mm256_set_epi64x(live[r][1], live[r][1], live[r][0], live[r][0]);
                st[r] = _mm256_blendv_epi8(st[r], x[r], mask);
            }
        }
        let mut out = [[0u8; 16]; 2];
        for f in 0..2 {
            let y = _mm256_xor_si256(_mm256_aesenclast_epi128(st[2 * f], kz[NR]), _mm256_aesenclast_epi128(st[2 * f + 1], kz[NR]));
            let t = _mm_xor_si128(_mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y)), s0[f]);
            _mm_storeu_si128(out[f].as_mut_ptr().cast(), t);
        }
        out
    }
}

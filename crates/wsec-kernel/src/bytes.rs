//! Copying frame bodies. glibc's `memcpy` switches to `rep movsb` for copies from a few
//! KiB up; on the AMD Zen 4 of the development machines (glibc 2.36, Debian 12) that ran
//! at a fraction of a vector loop's speed for the 2-8 KiB bodies of A-MSDUs: with it
//! raised out of reach (`GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=4194304`) the
//! station's share of time in the protect pass fell from 34-39 % to 21-22 % (`wsec bench
//! live --modes wpa2-host`, 2026-11-29). [`extend`] copies the long ones with a vector
//! loop of its own.

/// `out.extend_from_slice(src)`, long copies by a 64-octet SSE2 loop (x86-64's baseline).
pub fn extend(out: &mut Vec<u8>, src: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    if src.len() >= 1024 {
        out.reserve(src.len());
        let at = out.len();
        // SAFETY: `reserve` made room for `src.len()` octets after `at`; `src` is a shared
        // borrow while `out` is borrowed mutably, so it cannot point into `out`'s buffer.
        // The first `at + src.len()` octets are initialised once the copy is done.
        unsafe {
            copy_sse2(out.as_mut_ptr().add(at), src.as_ptr(), src.len());
            out.set_len(at + src.len());
        }
        return;
    }
    out.extend_from_slice(src);
}

/// Copies `n` octets from `src` to `dst` with unaligned 16-octet loads and stores, four
/// per step (not one strided store per step, which LLVM would turn back into `memcpy`).
///
/// # Safety
/// `src` readable and `dst` writable for `n` octets, not overlapping.
#[cfg(target_arch = "x86_64")]
unsafe fn copy_sse2(dst: *mut u8, src: *const u8, n: usize) {
    use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_storeu_si128};
    let mut i = 0;
    // SAFETY: (all the loads and stores below) offsets stay below `n` (the loop bounds),
    // within what the caller vouches for; SSE2 is part of x86-64.
    unsafe {
        while i + 64 <= n {
            let s = src.add(i) as *const __m128i;
            let d = dst.add(i) as *mut __m128i;
            let (a, b, c, e) = (_mm_loadu_si128(s), _mm_loadu_si128(s.add(1)), _mm_loadu_si128(s.add(2)), _mm_loadu_si128(s.add(3)));
            _mm_storeu_si128(d, a);
            _mm_storeu_si128(d.add(1), b);
            _mm_storeu_si128(d.add(2), c);
            _mm_storeu_si128(d.add(3), e);
            i += 64;
        }
        while i + 16 <= n {
            _mm_storeu_si128(dst.add(i) as *mut __m128i, _mm_loadu_si128(src.add(i) as *const __m128i));
            i += 16;
        }
        core::ptr::copy_nonoverlapping(src.add(i), dst.add(i), n - i);
    }
}

#[cfg(test)]
mod tests {
    use super::extend;

    #[test]
    fn copies_every_length_and_offset() {
        let src: Vec<u8> = (0..9100u32).map(|i| (i * 7 + i / 251) as u8).collect();
        for len in [0, 1, 15, 16, 17, 63, 64, 65, 1023, 1024, 1025, 1500, 2047, 4096, 7935, 8999] {
            for (start, prefix) in [(0, 0), (1, 3), (13, 22)] {
                let s = &src[start..start + len];
                let mut out = vec![0xee; prefix];
                extend(&mut out, s);
                assert_eq!(out.len(), prefix + len);
                assert!(out[..prefix].iter().all(|&b| b == 0xee));
                assert_eq!(&out[prefix..], s, "len {len} start {start}");
            }
        }
    }
}

//! Multi-buffer AES-CCM without AVX-512: the scheme of [`super::mb`] (eight independent
//! messages, each with its own key, their CBC-MAC chains and CTR keystreams advancing
//! together, one step per 16-octet block) on 128-bit AES-NI registers (one block per
//! register, eight registers of chains) and on 256-bit VAES registers (two blocks per
//! register, four registers), for CPUs without AVX-512 (AMD Zen 3, Intel client cores,
//! Atom-class appliance CPUs).
//!
//! # Scheme
//! As in [`super::mb`]: L = 2, AAD of 15 to 30 octets (B0 and exactly two formatted AAD
//! blocks), lane `j` runs `n_j = 3 + ceil(len_j / 16)` steps and at step `s` every lane
//! chains its block `s`. The keystream is scheduled to need no ring of registers: sealing
//! computes counter `s - 2` at step `s` and encrypts payload block `s - 3` with it at once;
//! opening computes counter `s - 1` and decrypts payload block `s - 2`, whose plaintext the
//! next step chains. The steps where every lane is active and every block touched is full
//! run a branch-free loop (on 128-bit registers the ring of the AVX-512 scheme spilled). Without AVX-512 masking, a block that is full in
//! every lane is a plain load/store; the others (the last, partial block of a message, or
//! the blocks past a shorter message's end) go through a 16-octet stack buffer per lane,
//! so nothing outside a message is read or written. A lane whose steps are done keeps its
//! MAC state (a blend per register).
//!
//! Safety model: a key of level `Ni`/`Y256` exists only after `aesni::Level::supported`
//! checked every feature its kernels are compiled for; the entry points [`run_x`] and
//! [`run_y`] are `unsafe` and require that check and the invariants of [`Lane`].
#![allow(clippy::needless_range_loop)]
use super::mb::Lane;
use core::arch::x86_64::*;

/// A vector of `W` AES blocks (one per lane). Every method requires the features of the
/// implementing register width to be enabled in the calling (inlined-into) function.
trait V: Copy {
    const W: usize;
    /// # Safety
    /// Features enabled (see the trait).
    unsafe fn zero() -> Self;
    /// # Safety
    /// Features enabled.
    unsafe fn xor(a: Self, b: Self) -> Self;
    /// # Safety
    /// Features enabled.
    unsafe fn enc(a: Self, k: Self) -> Self;
    /// # Safety
    /// Features enabled.
    unsafe fn enclast(a: Self, k: Self) -> Self;
    /// Block `j` from `p[j] .. p[j] + 16`.
    ///
    /// # Safety
    /// Features enabled; 16 readable octets at each of the first `W` pointers.
    unsafe fn load(p: &[*const u8]) -> Self;
    /// # Safety
    /// Features enabled; 16 writable octets at each of the first `W` pointers.
    unsafe fn store(p: &[*mut u8], v: Self);
    /// # Safety
    /// Features enabled; `b` has `W` blocks.
    unsafe fn from_blocks(b: &[[u8; 16]]) -> Self;
    /// # Safety
    /// Features enabled; `b` has `W` blocks.
    unsafe fn to_blocks(v: Self, b: &mut [[u8; 16]]);
    /// The counter `s` in octets 14..16 (big endian) of every block, zero elsewhere.
    ///
    /// # Safety
    /// Features enabled.
    unsafe fn ctr(s: usize) -> Self;
    /// Block `j` of `new` where `take[j]`, else of `old`.
    ///
    /// # Safety
    /// Features enabled.
    unsafe fn select(take: &[bool], new: Self, old: Self) -> Self;
}

/// One block per 128-bit register (AES-NI, SSE encodings).
#[derive(Clone, Copy)]
struct X(__m128i);

impl V for X {
    const W: usize = 1;
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: SSE2 (x86_64 baseline).
        unsafe { X(_mm_setzero_si128()) }
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
    unsafe fn load(p: &[*const u8]) -> Self {
        // SAFETY: 16 readable octets at p[0] (caller).
        unsafe { X(_mm_loadu_si128(p[0].cast())) }
    }
    #[inline(always)]
    unsafe fn store(p: &[*mut u8], v: Self) {
        // SAFETY: 16 writable octets at p[0] (caller).
        unsafe { _mm_storeu_si128(p[0].cast(), v.0) }
    }
    #[inline(always)]
    unsafe fn from_blocks(b: &[[u8; 16]]) -> Self {
        // SAFETY: a 16-octet block.
        unsafe { X(_mm_loadu_si128(b[0].as_ptr().cast())) }
    }
    #[inline(always)]
    unsafe fn to_blocks(v: Self, b: &mut [[u8; 16]]) {
        // SAFETY: a 16-octet block.
        unsafe { _mm_storeu_si128(b[0].as_mut_ptr().cast(), v.0) }
    }
    #[inline(always)]
    unsafe fn ctr(s: usize) -> Self {
        let hi = ((s as u16).swap_bytes() as u64) << 48;
        // SAFETY: SSE2.
        unsafe { X(_mm_set_epi64x(hi as i64, 0)) }
    }
    #[inline(always)]
    unsafe fn select(take: &[bool], new: Self, old: Self) -> Self {
        if take[0] {
            new
        } else {
            old
        }
    }
}

/// Two blocks per 256-bit register (AVX2 + VAES).
#[derive(Clone, Copy)]
struct Y(__m256i);

impl V for Y {
    const W: usize = 2;
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: AVX enabled by the caller.
        unsafe { Y(_mm256_setzero_si256()) }
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
    unsafe fn load(p: &[*const u8]) -> Self {
        // SAFETY: 16 readable octets at p[0] and p[1] (caller); AVX2 enabled.
        unsafe {
            let lo = _mm_loadu_si128(p[0].cast());
            let hi = _mm_loadu_si128(p[1].cast());
            Y(_mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi))
        }
    }
    #[inline(always)]
    unsafe fn store(p: &[*mut u8], v: Self) {
        // SAFETY: 16 writable octets at p[0] and p[1] (caller); AVX2 enabled.
        unsafe {
            _mm_storeu_si128(p[0].cast(), _mm256_castsi256_si128(v.0));
            _mm_storeu_si128(p[1].cast(), _mm256_extracti128_si256::<1>(v.0));
        }
    }
    #[inline(always)]
    unsafe fn from_blocks(b: &[[u8; 16]]) -> Self {
        // SAFETY: two 16-octet blocks.
        unsafe { Self::load(&[b[0].as_ptr(), b[1].as_ptr()]) }
    }
    #[inline(always)]
    unsafe fn to_blocks(v: Self, b: &mut [[u8; 16]]) {
        // SAFETY: two 16-octet blocks.
        unsafe { _mm256_storeu_si256(b.as_mut_ptr().cast(), v.0) }
    }
    #[inline(always)]
    unsafe fn ctr(s: usize) -> Self {
        let hi = ((s as u16).swap_bytes() as u64) << 48;
        // SAFETY: AVX enabled by the caller.
        unsafe { Y(_mm256_set_epi64x(hi as i64, 0, hi as i64, 0)) }
    }
    #[inline(always)]
    unsafe fn select(take: &[bool], new: Self, old: Self) -> Self {
        let m = |t: bool| if t { -1i64 } else { 0 };
        // SAFETY: AVX2 enabled by the caller.
        unsafe {
            let mask = _mm256_set_epi64x(m(take[1]), m(take[1]), m(take[0]), m(take[0]));
            Y(_mm256_blendv_epi8(old.0, new.0, mask))
        }
    }
}

/// Octets of lane block `i` that belong to the message (0..=16).
#[inline(always)]
fn avail(len: usize, i: usize) -> usize {
    len.saturating_sub(16 * i).min(16)
}

/// The state of `W` lanes that does not live in registers.
struct Group<T: V> {
    k: [T; 15],
    kx: T,
    /// A0 ^ K0: the counter octets of A0 are zero, so A_s ^ K0 is this ^ the counter.
    a0k: T,
    pre: [T; 3],
    ptr: [*mut u8; 2],
    len: [usize; 2],
    /// Steps of each lane (0 for an idle lane).
    n: [usize; 2],
}

impl<T: V> Group<T> {
    /// # Safety
    /// Features enabled; the lanes hold the invariants of [`Lane`]; `l` has `T::W` lanes.
    #[inline(always)]
    unsafe fn new<const NR: usize>(l: &[Lane]) -> Self {
        // SAFETY: each lane's `rk` points at a 15-block schedule (Lane invariants); the
        // blocks are loaded straight from the lanes (no copy through the stack, whose
        // stores a wider load could not forward); features enabled by the caller.
        unsafe {
            let ptrs = |f: &dyn Fn(&Lane) -> *const u8| -> [*const u8; 2] { [f(&l[0]), f(&l[T::W - 1])] };
            let mut k = [T::zero(); 15];
            for r in 0..=NR {
                k[r] = T::load(&ptrs(&|x: &Lane| (*x.rk)[r].as_ptr())[..T::W]);
            }
            let kx = T::xor(k[NR], k[0]);
            let a0 = T::load(&ptrs(&|x: &Lane| x.a0.as_ptr())[..T::W]);
            let mut pre = [T::zero(); 3];
            for p in 0..3 {
                pre[p] = T::load(&ptrs(&|x: &Lane| x.pre[p].as_ptr())[..T::W]);
            }
            let a0k = T::xor(a0, k[0]);
            let mut g = Group { k, kx, a0k, pre, ptr: [core::ptr::null_mut(); 2], len: [0; 2], n: [0; 2] };
            for j in 0..T::W {
                g.ptr[j] = l[j].data;
                g.len[j] = l[j].len;
                g.n[j] = if l[j].idle { 0 } else { 3 + l[j].len.div_ceil(16) };
            }
            g
        }
    }

    /// Payload block `i`, full in every lane.
    ///
    /// # Safety
    /// Features enabled; lane invariants; `i` below the batch's `full`.
    #[inline(always)]
    unsafe fn load_full(&self, i: usize) -> T {
        // SAFETY: every lane has 16 octets at offset 16 i (caller).
        unsafe {
            let p = [self.ptr[0].add(16 * i).cast_const(), self.ptr[1].wrapping_add(16 * i).cast_const()];
            T::load(&p[..T::W])
        }
    }

    /// Writes payload block `i`, full in every lane.
    ///
    /// # Safety
    /// Features enabled; lane invariants; `i` below the batch's `full`.
    #[inline(always)]
    unsafe fn store_full(&self, i: usize, v: T) {
        // SAFETY: every lane has 16 octets at offset 16 i (caller).
        unsafe {
            let p = [self.ptr[0].add(16 * i), self.ptr[1].wrapping_add(16 * i)];
            T::store(&p[..T::W], v)
        }
    }

    /// Payload block `i` of the lanes, zero beyond each message's end. `full`: blocks full
    /// in every lane of the batch.
    ///
    /// # Safety
    /// Features enabled; lane invariants.
    #[inline(always)]
    unsafe fn load(&self, i: usize, full: usize) -> T {
        // SAFETY: below `full` every lane has 16 octets at offset 16 i; otherwise only the
        // octets inside each message are copied.
        unsafe {
            if i < full {
                let p = [self.ptr[0].add(16 * i).cast_const(), self.ptr[1].wrapping_add(16 * i).cast_const()];
                T::load(&p[..T::W])
            } else {
                let mut b = [[0u8; 16]; 2];
                for j in 0..T::W {
                    let r = avail(self.len[j], i);
                    if r > 0 {
                        core::ptr::copy_nonoverlapping(self.ptr[j].add(16 * i), b[j].as_mut_ptr(), r);
                    }
                }
                T::from_blocks(&b[..T::W])
            }
        }
    }

    /// Writes payload block `i` of the lanes (only the octets inside each message) and
    /// returns it with the octets past each message's end zeroed.
    ///
    /// # Safety
    /// Features enabled; lane invariants.
    #[inline(always)]
    unsafe fn store(&self, i: usize, full: usize, v: T) -> T {
        // SAFETY: as in `load`.
        unsafe {
            if i < full {
                let p = [self.ptr[0].add(16 * i), self.ptr[1].wrapping_add(16 * i)];
                T::store(&p[..T::W], v);
                v
            } else {
                let mut b = [[0u8; 16]; 2];
                T::to_blocks(v, &mut b[..T::W]);
                for j in 0..T::W {
                    let r = avail(self.len[j], i);
                    if r > 0 {
                        core::ptr::copy_nonoverlapping(b[j].as_ptr(), self.ptr[j].add(16 * i), r);
                    }
                    b[j][r..].fill(0);
                }
                T::from_blocks(&b[..T::W])
            }
        }
    }
}

/// Registers carried from step to step.
struct State<T: V, const G: usize> {
    /// MAC states pending their last round.
    x: [T; G],
    /// `S_0`, the tag mask.
    s0: [T; G],
    /// Opening: the plaintext blocks decrypted one and two steps earlier (the latter is
    /// chained at this step).
    pend: [T; G],
    pend2: [T; G],
}

/// Bounds of a batch, the same for every group.
#[derive(Clone, Copy)]
struct Bounds {
    /// Payload blocks full in every lane.
    full: usize,
    /// Steps during which every lane is active.
    nmin: usize,
    /// Largest payload block count (keystream counters 0..=max_pb are needed).
    max_pb: usize,
}

/// One step `s`: every lane chains its block `s` (B0, X1, X2, then payload block `s - 3`)
/// and computes one keystream block. Sealing computes counter `s - 2` and encrypts payload
/// block `s - 3` with it at once (no keystream is carried between steps); opening computes
/// counter `s`, decrypts payload block `s - 1` and carries that plaintext two steps to its
/// chain (the keystream runs ahead of the chain: measured faster than one step ahead).
/// `FAST`: `s >= 3`, every lane active, the blocks touched full in every lane: no checks.
///
/// # Safety
/// The caller runs with the features of `T`; the lanes hold the invariants of [`Lane`].
#[inline(always)]
unsafe fn step<T: V, const NR: usize, const G: usize, const ENCRYPT: bool, const FAST: bool>(
    grp: &[Group<T>; G],
    st: &mut State<T, G>,
    s: usize,
    bd: Bounds,
) {
    // SAFETY: features enabled by the caller; Group::load/store stay inside the messages
    // (FAST only where the block is full in every lane).
    unsafe {
        let zero = T::zero();
        let lag = if ENCRYPT { 2 } else { 0 };
        let cnum = s.wrapping_sub(lag);
        let ctr_on = FAST || (s >= lag && cnum <= bd.max_pb);
        let ctr = T::ctr(cnum);
        let mut c = [zero; G];
        let mut xn = [zero; G];
        let mut b = [zero; G];
        for g in 0..G {
            let gr = &grp[g];
            c[g] = T::xor(gr.a0k, ctr);
            b[g] = if !FAST && s < 3 {
                gr.pre[s]
            } else if ENCRYPT {
                if FAST {
                    gr.load_full(s - 3)
                } else {
                    gr.load(s - 3, bd.full)
                }
            } else {
                st.pend2[g]
            };
            xn[g] = if !FAST && s == 0 { T::xor(b[g], gr.k[0]) } else { T::enclast(st.x[g], T::xor(gr.kx, b[g])) };
        }
        if ctr_on {
            for r in 1..NR {
                for g in 0..G {
                    c[g] = T::enc(c[g], grp[g].k[r]);
                    xn[g] = T::enc(xn[g], grp[g].k[r]);
                }
            }
        } else {
            for r in 1..NR {
                for g in 0..G {
                    xn[g] = T::enc(xn[g], grp[g].k[r]);
                }
            }
        }
        for g in 0..G {
            let gr = &grp[g];
            if ctr_on {
                let ks = T::enclast(c[g], gr.k[NR]);
                if !FAST && cnum == 0 {
                    st.s0[g] = ks;
                }
                if ENCRYPT {
                    if FAST {
                        gr.store_full(s - 3, T::xor(b[g], ks));
                    } else if s >= 3 {
                        gr.store(s - 3, bd.full, T::xor(b[g], ks));
                    }
                } else if FAST {
                    let p = T::xor(gr.load_full(s - 1), ks);
                    gr.store_full(s - 1, p);
                    st.pend2[g] = st.pend[g];
                    st.pend[g] = p;
                } else if s >= 1 {
                    let i = s - 1;
                    st.pend2[g] = st.pend[g];
                    st.pend[g] = gr.store(i, bd.full, T::xor(gr.load(i, bd.full), ks));
                } else {
                    st.pend2[g] = st.pend[g];
                }
            } else if !ENCRYPT {
                st.pend2[g] = st.pend[g];
            }
            st.x[g] = if FAST || s < bd.nmin {
                xn[g]
            } else {
                let take = [s < gr.n[0], s < gr.n[1]];
                T::select(&take[..T::W], xn[g], st.x[g])
            };
        }
    }
}

/// The kernel body: `G` registers of `T::W` lanes each. `ENCRYPT` seals, else opens (the
/// tags are then the computed ones; the caller compares).
///
/// # Safety
/// The caller runs with the features of `T`; `lanes` has `G * T::W` lanes holding the
/// invariants of [`Lane`].
#[inline(always)]
unsafe fn body<T: V, const NR: usize, const G: usize, const ENCRYPT: bool>(lanes: &mut [Lane]) {
    debug_assert_eq!(lanes.len(), G * T::W);
    // SAFETY: (whole body) the entry points enable the features of `T`; the lane invariants
    // make every access inside a message (see Group::load/store and `step`).
    unsafe {
        let grp: [Group<T>; G] = core::array::from_fn(|g| Group::new::<NR>(&lanes[T::W * g..T::W * (g + 1)]));
        let live = |l: &&Lane| !l.idle;
        let steps = lanes.iter().filter(live).map(|l| 3 + l.len.div_ceil(16)).max().unwrap_or(0);
        let bd = Bounds {
            nmin: lanes.iter().map(|l| if l.idle { 0 } else { 3 + l.len.div_ceil(16) }).min().unwrap_or(0),
            full: lanes.iter().map(|l| if l.idle { 0 } else { l.len / 16 }).min().unwrap_or(0),
            max_pb: lanes.iter().filter(live).map(|l| l.len.div_ceil(16)).max().unwrap_or(0),
        };
        let zero = T::zero();
        let mut st = State { x: [zero; G], s0: [zero; G], pend: [zero; G], pend2: [zero; G] };
        // Steps 3.. where every lane is active and every block touched is full: sealing
        // touches block s - 3, opening block s - 1.
        let fast_end = if ENCRYPT { (3 + bd.full).min(bd.nmin) } else { (1 + bd.full).min(bd.nmin) }.max(3).min(steps);
        for s in 0..3.min(steps) {
            step::<T, NR, G, ENCRYPT, false>(&grp, &mut st, s, bd);
        }
        for s in 3.min(steps)..fast_end {
            step::<T, NR, G, ENCRYPT, true>(&grp, &mut st, s, bd);
        }
        for s in fast_end.max(3.min(steps))..steps {
            step::<T, NR, G, ENCRYPT, false>(&grp, &mut st, s, bd);
        }
        for g in 0..G {
            let t = T::xor(T::enclast(st.x[g], grp[g].k[NR]), st.s0[g]);
            let mut out = [[0u8; 16]; 2];
            T::to_blocks(t, &mut out[..T::W]);
            for j in 0..T::W {
                lanes[T::W * g + j].tag = out[j];
            }
        }
    }
}

macro_rules! entry {
    ($name:ident, $t:ty, $nr:literal, $g:literal, $enc:literal, $feat:literal) => {
        /// # Safety
        /// The CPU must support the features this function enables; lane invariants.
        #[target_feature(enable = $feat)]
        unsafe fn $name(lanes: &mut [Lane]) {
            // SAFETY: features enabled here; lane invariants from the caller.
            unsafe { body::<$t, $nr, $g, $enc>(lanes) }
        }
    };
}
entry!(seal128_x4, X, 10, 4, true, "aes,sse2,ssse3,sse4.1");
entry!(seal256_x4, X, 14, 4, true, "aes,sse2,ssse3,sse4.1");
entry!(open128_x4, X, 10, 4, false, "aes,sse2,ssse3,sse4.1");
entry!(open256_x4, X, 14, 4, false, "aes,sse2,ssse3,sse4.1");
entry!(seal128_y4, Y, 10, 4, true, "aes,sse2,ssse3,sse4.1,avx,avx2,vaes");
entry!(seal256_y4, Y, 14, 4, true, "aes,sse2,ssse3,sse4.1,avx,avx2,vaes");
entry!(open128_y4, Y, 10, 4, false, "aes,sse2,ssse3,sse4.1,avx,avx2,vaes");
entry!(open256_y4, Y, 14, 4, false, "aes,sse2,ssse3,sse4.1,avx,avx2,vaes");

/// Seal (`encrypt`) or open 4 lanes of one round count (`nr` 10 or 14) on AES-NI: four
/// chains and four keystream blocks in flight fill the AES units without spilling the 16
/// SSE registers (eight lanes measured slower).
///
/// # Safety
/// `aesni::has_aesni()` returned true; every lane satisfies the invariants of [`Lane`];
/// `lanes.len()` is 4.
pub(crate) unsafe fn run_x(lanes: &mut [Lane], nr: usize, encrypt: bool) {
    // SAFETY: forwarded from the caller.
    unsafe {
        match (lanes.len(), nr, encrypt) {
            (4, 10, true) => seal128_x4(lanes),
            (4, 14, true) => seal256_x4(lanes),
            (4, 10, false) => open128_x4(lanes),
            (4, 14, false) => open256_x4(lanes),
            _ => unreachable!("AES-NI multi-buffer batches are 4 lanes of AES-128 or AES-256"),
        }
    }
}

/// Seal (`encrypt`) or open 8 lanes of one round count (`nr` 10 or 14) on AVX2 + VAES.
///
/// # Safety
/// `aesni::has_vaes256()` returned true; every lane satisfies the invariants of [`Lane`];
/// `lanes.len()` is 8.
pub(crate) unsafe fn run_y(lanes: &mut [Lane], nr: usize, encrypt: bool) {
    // SAFETY: forwarded from the caller.
    unsafe {
        match (lanes.len(), nr, encrypt) {
            (8, 10, true) => seal128_y4(lanes),
            (8, 14, true) => seal256_y4(lanes),
            (8, 10, false) => open128_y4(lanes),
            (8, 14, false) => open256_y4(lanes),
            _ => unreachable!("multi-buffer batches are 8 lanes of AES-128 or AES-256"),
        }
    }
}

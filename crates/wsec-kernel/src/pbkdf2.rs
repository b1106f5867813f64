//! Passphrase to PSK: PBKDF2-HMAC-SHA1 with 4096 iterations and the SSID as salt
//! (IEEE 802.11-2020 Annex J.4.1 "Passphrase to PSK mapping"; PBKDF2 per RFC 8018 5.2,
//! formerly RFC 2898).
//!
//! ```text
//! PSK = PBKDF2(HMAC-SHA1, passphrase, ssid, 4096, 256 bits)
//!     = T1 || Truncate-96(T2),  Tj = U1 ^ U2 ^ ... ^ U4096,
//!       U1 = HMAC-SHA1(P, ssid || INT(j)),  Ui = HMAC-SHA1(P, U(i-1))
//! ```
//!
//! J.4.1 requires the passphrase to be a sequence of 8 to 63 ASCII characters, each
//! encoded as 32 to 126 ([`check_passphrase`]), and the SSID to be 0 to 32 octets.
//!
//! # Why it is fast
//! Nearly all the work is the 2 x 4095 HMAC iterations. Each iteration hashes a 20-octet
//! message after a 64-octet pad block, so:
//! - the SHA-1 states after the ipad and opad blocks are computed once per passphrase,
//!   leaving two compressions per iteration (instead of four);
//! - the message of every compression is 20 octets followed by fixed padding
//!   (`0x80`, zeros, bit length 672), so it is built in registers from the previous
//!   digest: no byte buffers, no endianness conversions, no length bookkeeping;
//! - on x86_64 CPUs with the SHA extensions (`sha1rnds4`, `sha1nexte`, `sha1msg1`,
//!   `sha1msg2`, detected at run time) every chain stays in XMM registers, and up to 8
//!   independent chains run in lockstep so that the latency of each `sha1rnds4` is hidden
//!   by the others. [`psk_from_passphrase`] runs T1 and T2 of its passphrase (2 chains)
//!   this way;
//! - with AVX-512F, [`psk_batch`] runs a multi-buffer SHA-1 instead: one chain per 32-bit
//!   lane, 16 per ZMM register, with `vprold` rotations and one `vpternlogd` per round
//!   function, and two such groups (16 passphrases, 32 chains) interleaved round by round,
//!   because a single group is bound by the ~3-operation dependency chain of each round.
//!   On AMD Zen 5 this is about 3.5 times the SHA-NI batch. A remainder of fewer than 8
//!   chains goes to SHA-NI. The batch is what a dictionary audit should call.
//!
//! Without either, an AVX2 version of the multi-buffer kernel (8 lanes) runs if the CPU
//! has AVX2 (about 5.5 times the scalar code, measured on Zen 5), and otherwise (or with
//! the `*_portable` functions) a scalar SHA-1 specialised for the same fixed message. [`Backend`] names the kernels; the `*_with` functions
//! pick one, which is how the tests check that all of them agree.
//! `cargo bench -p wsec-bench --bench pbkdf2` compares them with RustCrypto's `pbkdf2` and OpenSSL.
//!
//! # Security notes
//! The HMAC pad states and the running U/T values live in structures wiped on drop; the
//! copies the kernels hold in registers or on the stack while running are not scrubbed.
//! The returned PSK is a plain array: the caller owns it and should wipe it.
use crate::error::{Error, Result};
use sha1::digest::generic_array::GenericArray;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Iteration count of the passphrase mapping (J.4.1).
pub const PSK_ITERATIONS: u32 = 4096;
/// Length of the PSK (PMK) in octets.
pub const PSK_LEN: usize = 32;
/// Longest SSID (9.4.2.2).
pub const MAX_SSID_LEN: usize = 32;

const SHA1_IV: [u32; 5] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0];
/// Bit length of an HMAC inner or outer hash whose data is one SHA-1 digest (64 + 20 octets).
const FIXED_BITS: u32 = (64 + 20) * 8;

/// The implementation of the PBKDF2 iteration loop.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Backend {
    /// Scalar SHA-1 specialised for the fixed 20-octet message (any CPU).
    Portable,
    /// x86_64 SHA extensions, up to 8 chains in lockstep.
    ShaNi,
    /// x86_64 AVX-512F multi-buffer SHA-1, 16 chains per call (unused lanes still cost).
    Avx512,
    /// SHA-NI for a few chains (one passphrase: 2), AVX-512 for 16 at a time (the batch).
    ShaNiAvx512,
    /// x86_64 AVX2 multi-buffer SHA-1, 8 chains per call (CPUs without SHA-NI or AVX-512).
    Avx2,
}

impl Backend {
    pub const ALL: [Backend; 5] = [Backend::Portable, Backend::ShaNi, Backend::Avx512, Backend::ShaNiAvx512, Backend::Avx2];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::ShaNi => "sha-ni",
            Backend::Avx512 => "avx512",
            Backend::ShaNiAvx512 => "sha-ni+avx512",
            Backend::Avx2 => "avx2",
        }
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Backend::Portable => true,
                Backend::ShaNi => ni::available(),
                Backend::Avx512 => avx512::available(),
                Backend::ShaNiAvx512 => ni::available() && avx512::available(),
                Backend::Avx2 => avx2::available(),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Backend::Portable
        }
    }
}

/// The backend [`psk_from_passphrase`], [`psk_batch`] and [`pbkdf2_hmac_sha1`] use on this
/// CPU: the fastest supported one.
pub fn backend() -> Backend {
    [Backend::ShaNiAvx512, Backend::ShaNi, Backend::Avx512, Backend::Avx2]
        .into_iter()
        .find(|b| b.is_supported())
        .unwrap_or(Backend::Portable)
}

const UNSUPPORTED: Error = Error::Unsupported("PBKDF2 backend not supported by this CPU");

/// J.4.1: the passphrase is 8 to 63 characters, each encoded as an octet 32..=126.
///
/// Errors: `Malformed("passphrase must be 8..63 characters")` or
/// `Malformed("passphrase must be printable ASCII (0x20..0x7e)")`.
pub fn check_passphrase(passphrase: &[u8]) -> Result<()> {
    if !(8..=63).contains(&passphrase.len()) {
        return Err(Error::Malformed("passphrase must be 8..63 characters"));
    }
    if !passphrase.iter().all(|&c| (32..=126).contains(&c)) {
        return Err(Error::Malformed("passphrase must be printable ASCII (0x20..0x7e)"));
    }
    Ok(())
}

fn check_ssid(ssid: &[u8]) -> Result<()> {
    if ssid.len() > MAX_SSID_LEN {
        return Err(Error::Malformed("SSID longer than 32 octets"));
    }
    Ok(())
}

/// PSK = PBKDF2-HMAC-SHA1(passphrase, ssid, 4096, 32) (J.4.1), with the passphrase and SSID
/// checked first (see [`check_passphrase`]; an SSID over 32 octets is `Malformed`).
pub fn psk_from_passphrase(passphrase: &[u8], ssid: &[u8]) -> Result<[u8; PSK_LEN]> {
    psk_from_passphrase_with(backend(), passphrase, ssid)
}

/// [`psk_from_passphrase`] forced onto the portable (scalar) backend, for cross-checks.
pub fn psk_from_passphrase_portable(passphrase: &[u8], ssid: &[u8]) -> Result<[u8; PSK_LEN]> {
    psk_from_passphrase_with(Backend::Portable, passphrase, ssid)
}

/// [`psk_from_passphrase`] on a chosen backend (`Unsupported` if this CPU lacks it).
pub fn psk_from_passphrase_with(be: Backend, passphrase: &[u8], ssid: &[u8]) -> Result<[u8; PSK_LEN]> {
    if !be.is_supported() {
        return Err(UNSUPPORTED);
    }
    check_passphrase(passphrase)?;
    check_ssid(ssid)?;
    let mut out = [0u8; PSK_LEN];
    pbkdf2_hmac_sha1_with(be, passphrase, ssid, PSK_ITERATIONS, &mut out)?;
    Ok(out)
}

/// The PSKs of many passphrases for one SSID, in order; each entry is what
/// [`psk_from_passphrase`] returns for that passphrase. Passphrases are processed several
/// at a time with their SHA-1 chains interleaved, which is faster per passphrase than
/// calling [`psk_from_passphrase`] in a loop (see the module notes), on the plan that
/// [`batch_plan`] measured fastest on this CPU. Single-threaded.
pub fn psk_batch(passphrases: &[&[u8]], ssid: &[u8]) -> Vec<Result<[u8; PSK_LEN]>> {
    psk_batch_plan(batch_plan(), passphrases, ssid)
}

/// How a batch runs its chains: a backend, and for SHA-NI how many chains go in lockstep.
///
/// Which is fastest depends on the microarchitecture, not only on the features: on AMD
/// Zen 5 AVX-512 wins by far, but on Zen 3 (SHA-NI and AVX2, no AVX-512) 8 SHA-NI chains in
/// lockstep ran at 1266 PMK/s where 2 ran at 1810 and the AVX2 kernel at 1874, so
/// the default is measured ([`batch_plan`]), not assumed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BatchPlan {
    pub backend: Backend,
    /// Chains per SHA-NI kernel call (1..=8); used by `ShaNi` (and `ShaNiAvx512`'s remainder).
    pub ni_lanes: usize,
}

impl BatchPlan {
    /// `sha-ni x2`, `avx512`, ...
    pub fn name(&self) -> String {
        match self.backend {
            Backend::ShaNi => format!("sha-ni x{}", self.ni_lanes),
            b => b.name().to_string(),
        }
    }
}

/// Every batch plan this CPU supports: the portable code, SHA-NI with 2, 4 and 8 chains in
/// lockstep, and the multi-buffer kernels.
pub fn batch_plans() -> Vec<BatchPlan> {
    let mut v = vec![BatchPlan { backend: Backend::Portable, ni_lanes: 8 }];
    for be in [Backend::ShaNi, Backend::Avx2, Backend::Avx512, Backend::ShaNiAvx512] {
        if !be.is_supported() {
            continue;
        }
        if be == Backend::ShaNi {
            v.extend([2, 4, 8].map(|ni_lanes| BatchPlan { backend: be, ni_lanes }));
        } else {
            v.push(BatchPlan { backend: be, ni_lanes: 8 });
        }
    }
    v
}

/// The plan [`psk_batch`] uses: the fastest of [`batch_plans`] on one full group of chains,
/// timed once per process on first use (a few milliseconds: each plan runs
/// [`CALIBRATION_ITERATIONS`] iterations on 32 chains, [`CALIBRATION_ROUNDS`] times
/// interleaved, and its fastest round counts, so a busy moment does not decide).
pub fn batch_plan() -> BatchPlan {
    static PLAN: std::sync::OnceLock<BatchPlan> = std::sync::OnceLock::new();
    *PLAN.get_or_init(|| {
        let plans = batch_plans();
        let times = calibrate(&plans);
        plans
            .into_iter()
            .zip(times)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(p, _)| p)
            .unwrap_or(BatchPlan { backend: Backend::Portable, ni_lanes: 8 })
    })
}

/// Most chains in lockstep in the SHA-NI kernel.
const NI_LANES: usize = 8;

/// Iterations per chain in one calibration run of [`batch_plan`].
pub const CALIBRATION_ITERATIONS: u32 = 48;
/// Calibration rounds of [`batch_plan`] (the fastest counts).
pub const CALIBRATION_ROUNDS: usize = 3;

/// Seconds of the fastest of [`CALIBRATION_ROUNDS`] runs of each plan on one batch group.
fn calibrate(plans: &[BatchPlan]) -> Vec<f64> {
    let key = HmacSha1::new(b"calibration passphrase");
    let mut best = vec![f64::INFINITY; plans.len()];
    for _ in 0..CALIBRATION_ROUNDS {
        for (i, p) in plans.iter().enumerate() {
            let mut chains: Vec<Chain> = (0..2 * BATCH_GROUP as u32).map(|j| key.chain(b"ssid", j + 1)).collect();
            let t0 = std::time::Instant::now();
            run_plan(*p, &mut chains, CALIBRATION_ITERATIONS);
            best[i] = best[i].min(t0.elapsed().as_secs_f64());
            core::hint::black_box(&chains);
        }
    }
    best
}

/// [`psk_batch`] forced onto the portable (scalar) backend, for cross-checks.
pub fn psk_batch_portable(passphrases: &[&[u8]], ssid: &[u8]) -> Vec<Result<[u8; PSK_LEN]>> {
    psk_batch_with(Backend::Portable, passphrases, ssid)
}

/// Passphrases per kernel call in [`psk_batch`] (two chains each: 16 chains, one AVX-512
/// call or two SHA-NI calls).
const BATCH_GROUP: usize = 16;

/// [`psk_batch`] on a chosen backend (every entry `Unsupported` if this CPU lacks it).
pub fn psk_batch_with(be: Backend, passphrases: &[&[u8]], ssid: &[u8]) -> Vec<Result<[u8; PSK_LEN]>> {
    psk_batch_plan(BatchPlan { backend: be, ni_lanes: NI_LANES }, passphrases, ssid)
}

/// [`psk_batch`] on a chosen plan (every entry `Unsupported` if this CPU lacks its backend).
pub fn psk_batch_plan(plan: BatchPlan, passphrases: &[&[u8]], ssid: &[u8]) -> Vec<Result<[u8; PSK_LEN]>> {
    let be = plan.backend;
    let ssid_ok = if be.is_supported() { check_ssid(ssid) } else { Err(UNSUPPORTED) };
    let mut results: Vec<Result<[u8; PSK_LEN]>> =
        passphrases.iter().map(|p| ssid_ok.and_then(|()| check_passphrase(p)).map(|()| [0u8; PSK_LEN])).collect();
    let valid: Vec<usize> = (0..passphrases.len()).filter(|&i| results[i].is_ok()).collect();
    let mut chains: Vec<Chain> = Vec::with_capacity(2 * BATCH_GROUP);
    for group in valid.chunks(BATCH_GROUP) {
        chains.clear();
        for &i in group {
            let key = HmacSha1::new(passphrases[i]);
            chains.push(key.chain(ssid, 1));
            chains.push(key.chain(ssid, 2));
        }
        run_plan(plan, &mut chains, PSK_ITERATIONS - 1);
        for (&i, pair) in group.iter().zip(chains.chunks(2)) {
            if let (Ok(psk), [t1, t2]) = (&mut results[i], pair) {
                let mut b1 = words_to_bytes(&t1.t);
                let mut b2 = words_to_bytes(&t2.t);
                psk[..20].copy_from_slice(&b1);
                psk[20..].copy_from_slice(&b2[..12]);
                b1.zeroize();
                b2.zeroize();
            }
        }
    }
    results
}

/// PBKDF2 with HMAC-SHA1 as the PRF (RFC 8018 5.2): fills `out` (any length, 0 included)
/// from `password` (any length; longer than 64 octets it is hashed first, as HMAC requires)
/// and `salt`, with `iterations` >= 1.
///
/// Errors: `Malformed` for 0 iterations; `Oversize` for `out` longer than
/// (2^32 - 1) x 20 octets.
pub fn pbkdf2_hmac_sha1(password: &[u8], salt: &[u8], iterations: u32, out: &mut [u8]) -> Result<()> {
    pbkdf2_hmac_sha1_with(backend(), password, salt, iterations, out)
}

/// [`pbkdf2_hmac_sha1`] forced onto the portable (scalar) backend, for cross-checks.
pub fn pbkdf2_hmac_sha1_portable(password: &[u8], salt: &[u8], iterations: u32, out: &mut [u8]) -> Result<()> {
    pbkdf2_hmac_sha1_with(Backend::Portable, password, salt, iterations, out)
}

/// [`pbkdf2_hmac_sha1`] on a chosen backend (`Unsupported` if this CPU lacks it).
pub fn pbkdf2_hmac_sha1_with(be: Backend, password: &[u8], salt: &[u8], iterations: u32, out: &mut [u8]) -> Result<()> {
    if !be.is_supported() {
        return Err(UNSUPPORTED);
    }
    if iterations == 0 {
        return Err(Error::Malformed("PBKDF2 iteration count must be at least 1"));
    }
    let blocks = out.len().div_ceil(20);
    if blocks as u64 > u32::MAX as u64 {
        return Err(Error::Oversize);
    }
    let key = HmacSha1::new(password);
    let mut chains: Vec<Chain> = (1..=blocks as u32).map(|j| key.chain(salt, j)).collect();
    run(be, &mut chains, iterations - 1);
    for (dst, c) in out.chunks_mut(20).zip(&chains) {
        let mut b = words_to_bytes(&c.t);
        dst.copy_from_slice(&b[..dst.len()]);
        b.zeroize();
    }
    Ok(())
}

/// One PBKDF2 block in progress: the HMAC pad states, the last U and the running XOR T,
/// all as SHA-1 state words (digest octets in big-endian order).
#[derive(Clone, Default, Zeroize, ZeroizeOnDrop)]
struct Chain {
    inner: [u32; 5],
    outer: [u32; 5],
    u: [u32; 5],
    t: [u32; 5],
}

/// HMAC-SHA1 key: the SHA-1 states after absorbing K ^ ipad and K ^ opad (RFC 2104).
#[derive(Zeroize, ZeroizeOnDrop)]
struct HmacSha1 {
    inner: [u32; 5],
    outer: [u32; 5],
}

impl HmacSha1 {
    fn new(key: &[u8]) -> HmacSha1 {
        let mut k = [0u8; 64];
        if key.len() > 64 {
            let mut d = words_to_bytes(&sha1_resume(&SHA1_IV, 0, &[key]));
            k[..20].copy_from_slice(&d);
            d.zeroize();
        } else {
            k[..key.len()].copy_from_slice(key);
        }
        let mut ipad = [0u8; 64];
        let mut opad = [0u8; 64];
        for i in 0..64 {
            ipad[i] = k[i] ^ 0x36;
            opad[i] = k[i] ^ 0x5c;
        }
        let mut inner = SHA1_IV;
        let mut outer = SHA1_IV;
        compress_block(&mut inner, &ipad);
        compress_block(&mut outer, &opad);
        k.zeroize();
        ipad.zeroize();
        opad.zeroize();
        HmacSha1 { inner, outer }
    }

    /// The chain of block `j`: U1 = HMAC(P, salt || INT(j)), T = U1.
    fn chain(&self, salt: &[u8], j: u32) -> Chain {
        let mut ih = sha1_resume(&self.inner, 64, &[salt, &j.to_be_bytes()]);
        let mut ib = words_to_bytes(&ih);
        let u = sha1_resume(&self.outer, 64, &[&ib]);
        ih.zeroize();
        ib.zeroize();
        Chain { inner: self.inner, outer: self.outer, u, t: u }
    }
}

/// SHA-1 resumed from `state` (which has absorbed `done` octets, a multiple of 64): absorbs
/// the concatenation of `parts`, pads, and returns the digest as state words.
fn sha1_resume(state: &[u32; 5], done: u64, parts: &[&[u8]]) -> [u32; 5] {
    let mut h = *state;
    let mut buf = [0u8; 64];
    let mut n = 0usize;
    let mut total = done;
    for part in parts {
        let mut p: &[u8] = part;
        while !p.is_empty() {
            let take = (64 - n).min(p.len());
            buf[n..n + take].copy_from_slice(&p[..take]);
            n += take;
            p = &p[take..];
            total = total.wrapping_add(take as u64);
            if n == 64 {
                compress_block(&mut h, &buf);
                n = 0;
            }
        }
    }
    buf[n] = 0x80;
    buf[n + 1..].fill(0);
    if n >= 56 {
        compress_block(&mut h, &buf);
        buf.fill(0);
    }
    buf[56..].copy_from_slice(&total.wrapping_mul(8).to_be_bytes());
    compress_block(&mut h, &buf);
    buf.zeroize();
    h
}

/// One SHA-1 compression with the `sha1` crate (SHA-NI or its own software fallback).
fn compress_block(h: &mut [u32; 5], block: &[u8; 64]) {
    sha1::compress(h, core::slice::from_ref(GenericArray::from_slice(block)));
}

fn words_to_bytes(w: &[u32; 5]) -> [u8; 20] {
    let mut b = [0u8; 20];
    for (dst, x) in b.chunks_exact_mut(4).zip(w) {
        dst.copy_from_slice(&x.to_be_bytes());
    }
    b
}

/// With [`Backend::ShaNiAvx512`], a remainder of at least this many chains (of 16) still
/// goes to the AVX-512 kernel; fewer go to SHA-NI (measured on AMD Zen 5).
const AVX512_MIN_CHAINS: usize = 8;

/// Runs `iterations` more HMAC iterations on every chain (U = HMAC(P, U), T ^= U).
/// `be` must be supported (checked by the public entry points; re-checked here).
fn run(be: Backend, chains: &mut [Chain], iterations: u32) {
    run_plan(BatchPlan { backend: be, ni_lanes: NI_LANES }, chains, iterations)
}

/// [`run`] with SHA-NI taking `plan.ni_lanes` chains per call.
fn run_plan(plan: BatchPlan, chains: &mut [Chain], iterations: u32) {
    let be = plan.backend;
    if !be.is_supported() {
        return portable::run(chains, iterations);
    }
    match be {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `is_supported()` checked the CPU features of the SHA-NI kernel.
        Backend::ShaNi => unsafe { ni::run_lanes(chains, iterations, plan.ni_lanes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `is_supported()` checked the CPU features of the AVX-512 kernel.
        Backend::Avx512 => unsafe { avx512::run(chains, iterations) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `is_supported()` checked the CPU features of the AVX2 kernel.
        Backend::Avx2 => unsafe { avx2::run(chains, iterations) },
        #[cfg(target_arch = "x86_64")]
        Backend::ShaNiAvx512 => {
            let full = chains.len() / avx512::LANES * avx512::LANES;
            let split = if chains.len() - full >= AVX512_MIN_CHAINS { chains.len() } else { full };
            let (wide, rest) = chains.split_at_mut(split);
            // SAFETY: `is_supported()` checked both kernels' CPU features (SHA-NI + AVX-512).
            unsafe {
                avx512::run(wide, iterations);
                ni::run(rest, iterations);
            }
        }
        _ => portable::run(chains, iterations),
    }
}

/// Scalar SHA-1 for the fixed message `m (20 octets) || 0x80 || 0... || 672 (64-bit)`.
mod portable {
    use super::{Chain, FIXED_BITS};

    macro_rules! round {
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:expr, $k:expr, $w:expr) => {{
            let t = $a.rotate_left(5).wrapping_add($f).wrapping_add($e).wrapping_add($k).wrapping_add($w);
            $e = $d;
            $d = $c;
            $c = $b.rotate_left(30);
            $b = $a;
            $a = t;
        }};
    }

    #[inline(always)]
    fn compress_fixed(h: &[u32; 5], m: &[u32; 5]) -> [u32; 5] {
        let mut w = [0u32; 16];
        w[..5].copy_from_slice(m);
        w[5] = 0x8000_0000;
        w[15] = FIXED_BITS;
        let [mut a, mut b, mut c, mut d, mut e] = *h;
        #[inline(always)]
        fn next(w: &mut [u32; 16], i: usize) -> u32 {
            let x = (w[(i + 13) & 15] ^ w[(i + 8) & 15] ^ w[(i + 2) & 15] ^ w[i & 15]).rotate_left(1);
            w[i & 15] = x;
            x
        }
        for wi in w {
            round!(a, b, c, d, e, (b & c) | (!b & d), 0x5A82_7999u32, wi);
        }
        for i in 16..20 {
            round!(a, b, c, d, e, (b & c) | (!b & d), 0x5A82_7999u32, next(&mut w, i));
        }
        for i in 20..40 {
            round!(a, b, c, d, e, b ^ c ^ d, 0x6ED9_EBA1u32, next(&mut w, i));
        }
        for i in 40..60 {
            round!(a, b, c, d, e, (b & c) | (b & d) | (c & d), 0x8F1B_BCDCu32, next(&mut w, i));
        }
        for i in 60..80 {
            round!(a, b, c, d, e, b ^ c ^ d, 0xCA62_C1D6u32, next(&mut w, i));
        }
        [h[0].wrapping_add(a), h[1].wrapping_add(b), h[2].wrapping_add(c), h[3].wrapping_add(d), h[4].wrapping_add(e)]
    }

    pub(super) fn run(chains: &mut [Chain], iterations: u32) {
        for c in chains {
            let mut u = c.u;
            let mut t = c.t;
            for _ in 0..iterations {
                let x = compress_fixed(&c.inner, &u);
                u = compress_fixed(&c.outer, &x);
                for k in 0..5 {
                    t[k] ^= u[k];
                }
            }
            c.u = u;
            c.t = t;
        }
    }
}

/// SHA-NI kernel: up to [`ni::LANES`] chains in lockstep, all state in XMM registers.
///
/// Register layout (as Intel's SHA extensions want it): `abcd` holds a in lane 3 .. d in
/// lane 0; `e` holds e in lane 3 and zeros below. A message block's words W0..W3 are laid
/// out like `abcd`, so a digest `(abcd, e)` *is* the first 20 octets of the next message:
/// `w0 = abcd`, `w1 = e | [_, 0x80000000, 0, 0]`, `w2 = 0`, `w3 = [0, 0, 0, 672]`.
#[cfg(target_arch = "x86_64")]
mod ni {
    use super::{Chain, FIXED_BITS};
    use core::arch::x86_64::*;

    /// Chains per kernel call (the batch runs 4 passphrases x 2 blocks).
    pub(super) const LANES: usize = super::NI_LANES;

    pub(super) fn available() -> bool {
        std::is_x86_feature_detected!("sha")
            && std::is_x86_feature_detected!("sse2")
            && std::is_x86_feature_detected!("ssse3")
            && std::is_x86_feature_detected!("sse4.1")
    }

    /// # Safety
    /// The CPU must support SHA, SSE2, SSSE3 and SSE4.1 (see [`available`]).
    pub(super) unsafe fn run(chains: &mut [Chain], iterations: u32) {
        // SAFETY: the caller guarantees the target features.
        unsafe { run_lanes(chains, iterations, LANES) }
    }

    /// [`run`] with at most `lanes` (1..=8) chains per lockstep group.
    ///
    /// # Safety
    /// As [`run`].
    pub(super) unsafe fn run_lanes(chains: &mut [Chain], iterations: u32, lanes: usize) {
        for g in chains.chunks_mut(lanes.clamp(1, LANES)) {
            // SAFETY: the caller guarantees the target features.
            unsafe {
                match g.len() {
                    1 => iterate::<1>(g, iterations),
                    2 => iterate::<2>(g, iterations),
                    3 => iterate::<3>(g, iterations),
                    4 => iterate::<4>(g, iterations),
                    5 => iterate::<5>(g, iterations),
                    6 => iterate::<6>(g, iterations),
                    7 => iterate::<7>(g, iterations),
                    _ => iterate::<8>(g, iterations),
                }
            }
        }
    }

    #[inline(always)]
    #[allow(unused_unsafe)]
    fn abcd_of(h: &[u32; 5]) -> __m128i {
        // SAFETY: SSE2 is part of x86_64.
        unsafe { _mm_set_epi32(h[0] as i32, h[1] as i32, h[2] as i32, h[3] as i32) }
    }

    #[inline(always)]
    #[allow(unused_unsafe)]
    fn e_of(h: &[u32; 5]) -> __m128i {
        // SAFETY: SSE2 is part of x86_64.
        unsafe { _mm_set_epi32(h[4] as i32, 0, 0, 0) }
    }

    /// For each lane `l < N`: `$body` with `l` bound.
    macro_rules! lanes {
        ($n:expr, |$l:ident| $body:expr) => {
            for $l in 0..$n {
                $body;
            }
        };
    }

    /// `dst = sha1rnds4(a, sha1nexte(b, w), FUNC)` in every lane.
    macro_rules! rounds4 {
        ($n:expr, $dst:ident = $a:ident, $b:ident, $w:ident, $f:literal) => {
            lanes!($n, |l| $dst[l] = _mm_sha1rnds4_epu32($a[l], _mm_sha1nexte_epu32($b[l], $w[l]), $f))
        };
    }

    /// Message schedule `w4 = msg2(msg1(w0, w1) ^ w2, w3)`, then four rounds.
    macro_rules! sched_rounds4 {
        ($n:expr, $h0:ident, $h1:ident, $w0:ident, $w1:ident, $w2:ident, $w3:ident, $w4:ident, $f:literal) => {
            lanes!($n, |l| $w4[l] = _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32($w0[l], $w1[l]), $w2[l]), $w3[l]));
            rounds4!($n, $h1 = $h0, $h1, $w4, $f);
        };
    }

    /// One SHA-1 compression per lane from state `(s_abcd, s_e)` over the fixed block whose
    /// first 20 octets are `(m_abcd, m_e)`; returns the new `(abcd, e)`.
    macro_rules! compress_fixed {
        ($n:expr, $s_abcd:expr, $s_e:expr, $m_abcd:expr, $m_e:expr, $pad1:expr, $pad3:expr) => {{
            let zero = _mm_setzero_si128();
            let mut w0 = $m_abcd;
            let mut w1 = [zero; $n];
            lanes!($n, |l| w1[l] = _mm_or_si128($m_e[l], $pad1));
            let mut w2 = [zero; $n];
            let mut w3 = [$pad3; $n];
            let mut w4 = [zero; $n];
            let mut h0 = $s_abcd;
            let mut h1 = [zero; $n];
            lanes!($n, |l| h1[l] = _mm_add_epi32($s_e[l], w0[l]));
            // Rounds 0..20
            lanes!($n, |l| h1[l] = _mm_sha1rnds4_epu32(h0[l], h1[l], 0));
            rounds4!($n, h0 = h1, h0, w1, 0);
            rounds4!($n, h1 = h0, h1, w2, 0);
            rounds4!($n, h0 = h1, h0, w3, 0);
            sched_rounds4!($n, h0, h1, w0, w1, w2, w3, w4, 0);
            // Rounds 20..40
            sched_rounds4!($n, h1, h0, w1, w2, w3, w4, w0, 1);
            sched_rounds4!($n, h0, h1, w2, w3, w4, w0, w1, 1);
            sched_rounds4!($n, h1, h0, w3, w4, w0, w1, w2, 1);
            sched_rounds4!($n, h0, h1, w4, w0, w1, w2, w3, 1);
            sched_rounds4!($n, h1, h0, w0, w1, w2, w3, w4, 1);
            // Rounds 40..60
            sched_rounds4!($n, h0, h1, w1, w2, w3, w4, w0, 2);
            sched_rounds4!($n, h1, h0, w2, w3, w4, w0, w1, 2);
            sched_rounds4!($n, h0, h1, w3, w4, w0, w1, w2, 2);
            sched_rounds4!($n, h1, h0, w4, w0, w1, w2, w3, 2);
            sched_rounds4!($n, h0, h1, w0, w1, w2, w3, w4, 2);
            // Rounds 60..80
            sched_rounds4!($n, h1, h0, w1, w2, w3, w4, w0, 3);
            sched_rounds4!($n, h0, h1, w2, w3, w4, w0, w1, 3);
            sched_rounds4!($n, h1, h0, w3, w4, w0, w1, w2, 3);
            sched_rounds4!($n, h0, h1, w4, w0, w1, w2, w3, 3);
            sched_rounds4!($n, h1, h0, w0, w1, w2, w3, w4, 3);
            let mut abcd = [zero; $n];
            let mut e = [zero; $n];
            lanes!($n, |l| abcd[l] = _mm_add_epi32($s_abcd[l], h0[l]));
            lanes!($n, |l| e[l] = _mm_sha1nexte_epu32(h1[l], $s_e[l]));
            (abcd, e)
        }};
    }

    /// `iterations` HMAC iterations on `chains` (exactly `N` of them).
    ///
    /// # Safety
    /// The CPU must support SHA, SSE2, SSSE3 and SSE4.1.
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    unsafe fn iterate<const N: usize>(chains: &mut [Chain], iterations: u32) {
        // Intrinsics are safe to call here on recent compilers, unsafe on older ones.
        #[allow(unused_unsafe)]
        // SAFETY: the target features this function enables are the caller's promise
        // (its `# Safety`); the loads and stores go through arrays and slices.
        unsafe {
            if chains.len() != N {
                return;
            }
            let zero = _mm_setzero_si128();
            let pad1 = _mm_set_epi32(0, 0x8000_0000u32 as i32, 0, 0);
            let pad3 = _mm_set_epi32(0, 0, 0, FIXED_BITS as i32);
            let (mut ih_abcd, mut ih_e, mut oh_abcd, mut oh_e) = ([zero; N], [zero; N], [zero; N], [zero; N]);
            let (mut u_abcd, mut u_e, mut t_abcd, mut t_e) = ([zero; N], [zero; N], [zero; N], [zero; N]);
            for (l, c) in chains.iter().enumerate() {
                ih_abcd[l] = abcd_of(&c.inner);
                ih_e[l] = e_of(&c.inner);
                oh_abcd[l] = abcd_of(&c.outer);
                oh_e[l] = e_of(&c.outer);
                u_abcd[l] = abcd_of(&c.u);
                u_e[l] = e_of(&c.u);
                t_abcd[l] = abcd_of(&c.t);
                t_e[l] = e_of(&c.t);
            }
            for _ in 0..iterations {
                let (x_abcd, x_e) = compress_fixed!(N, ih_abcd, ih_e, u_abcd, u_e, pad1, pad3);
                (u_abcd, u_e) = compress_fixed!(N, oh_abcd, oh_e, x_abcd, x_e, pad1, pad3);
                lanes!(N, |l| t_abcd[l] = _mm_xor_si128(t_abcd[l], u_abcd[l]));
                lanes!(N, |l| t_e[l] = _mm_xor_si128(t_e[l], u_e[l]));
            }
            for (l, c) in chains.iter_mut().enumerate() {
                c.u = [
                    _mm_extract_epi32(u_abcd[l], 3) as u32,
                    _mm_extract_epi32(u_abcd[l], 2) as u32,
                    _mm_extract_epi32(u_abcd[l], 1) as u32,
                    _mm_extract_epi32(u_abcd[l], 0) as u32,
                    _mm_extract_epi32(u_e[l], 3) as u32,
                ];
                c.t = [
                    _mm_extract_epi32(t_abcd[l], 3) as u32,
                    _mm_extract_epi32(t_abcd[l], 2) as u32,
                    _mm_extract_epi32(t_abcd[l], 1) as u32,
                    _mm_extract_epi32(t_abcd[l], 0) as u32,
                    _mm_extract_epi32(t_e[l], 3) as u32,
                ];
            }
        }
    }
}

/// Multi-buffer SHA-1 with AVX-512: 16 independent chains, one per 32-bit lane of a ZMM
/// register (word k of every chain's state in one register), computed with plain vector
/// arithmetic (`vpaddd`, `vprold`, `vpternlogd` for the round functions). No SHA
/// instructions: on a CPU with wide vector units this outruns SHA-NI when 16 chains are
/// available (the batch), but not for the 2 chains of a single passphrase.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{Chain, FIXED_BITS};
    use core::arch::x86_64::*;

    /// Chains per vector.
    pub(super) const LANES: usize = 16;
    /// Vectors interleaved per kernel call.
    pub(super) const GROUPS: usize = 2;

    pub(super) fn available() -> bool {
        std::is_x86_feature_detected!("avx512f")
    }

    /// `e += rol(a, 5) + f(b, c, d) + K + W; b = rol(b, 30)` in every group `g < G`, with f
    /// a `vpternlogd` truth table (0xca: Ch, 0x96: Parity, 0xe8: Maj). The sum is ordered
    /// so that only the last addition waits for `rol(a, 5)`.
    macro_rules! round {
        ($G:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:literal, $k:expr, |$g:ident| $w:expr) => {
            for $g in 0..$G {
                let kw = _mm512_add_epi32($w, _mm512_set1_epi32($k as i32));
                let fe = _mm512_add_epi32(_mm512_add_epi32($e[$g], kw), _mm512_ternarylogic_epi32($b[$g], $c[$g], $d[$g], $f));
                $e[$g] = _mm512_add_epi32(fe, _mm512_rol_epi32($a[$g], 5));
                $b[$g] = _mm512_rol_epi32($b[$g], 30);
            }
        };
    }

    /// W[i] for i >= 16, in place in the 16-word ring `w`.
    macro_rules! sched {
        ($w:expr, $i:expr) => {{
            let x =
                _mm512_xor_si512(_mm512_xor_si512($w[($i + 13) & 15], $w[($i + 8) & 15]), _mm512_xor_si512($w[($i + 2) & 15], $w[$i & 15]));
            $w[$i & 15] = _mm512_rol_epi32(x, 1);
            $w[$i & 15]
        }};
    }

    /// Five rounds (one full rotation of the variable names) from round `$i`.
    macro_rules! rounds5 {
        ($G:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:literal, $k:expr, $w:ident, $i:expr, fixed) => {
            round!($G, $a, $b, $c, $d, $e, $f, $k, |g| $w[g][$i]);
            round!($G, $e, $a, $b, $c, $d, $f, $k, |g| $w[g][$i + 1]);
            round!($G, $d, $e, $a, $b, $c, $f, $k, |g| $w[g][$i + 2]);
            round!($G, $c, $d, $e, $a, $b, $f, $k, |g| $w[g][$i + 3]);
            round!($G, $b, $c, $d, $e, $a, $f, $k, |g| $w[g][$i + 4]);
        };
        ($G:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:literal, $k:expr, $w:ident, $i:expr, sched) => {
            round!($G, $a, $b, $c, $d, $e, $f, $k, |g| sched!($w[g], $i));
            round!($G, $e, $a, $b, $c, $d, $f, $k, |g| sched!($w[g], $i + 1));
            round!($G, $d, $e, $a, $b, $c, $f, $k, |g| sched!($w[g], $i + 2));
            round!($G, $c, $d, $e, $a, $b, $f, $k, |g| sched!($w[g], $i + 3));
            round!($G, $b, $c, $d, $e, $a, $f, $k, |g| sched!($w[g], $i + 4));
        };
    }

    /// One compression per lane of every group: states `$h[g]` over the fixed blocks
    /// starting with `$m[g]`.
    macro_rules! compress_fixed {
        ($G:expr, $h:expr, $m:expr) => {{
            let h: &[[__m512i; 5]; $G] = $h;
            let m: &[[__m512i; 5]; $G] = $m;
            let zero = _mm512_setzero_si512();
            let mut w = [[zero; 16]; $G];
            let (mut a, mut b, mut c, mut d, mut e) = ([zero; $G], [zero; $G], [zero; $G], [zero; $G], [zero; $G]);
            for g in 0..$G {
                w[g][..5].copy_from_slice(&m[g]);
                w[g][5] = _mm512_set1_epi32(0x8000_0000u32 as i32);
                w[g][15] = _mm512_set1_epi32(FIXED_BITS as i32);
                [a[g], b[g], c[g], d[g], e[g]] = h[g];
            }
            rounds5!($G, a, b, c, d, e, 0xca, 0x5A82_7999u32, w, 0, fixed);
            rounds5!($G, a, b, c, d, e, 0xca, 0x5A82_7999u32, w, 5, fixed);
            rounds5!($G, a, b, c, d, e, 0xca, 0x5A82_7999u32, w, 10, fixed);
            round!($G, a, b, c, d, e, 0xca, 0x5A82_7999u32, |g| w[g][15]);
            // Round 16 onwards: the names are rotated by one (16 = 3 x 5 + 1).
            round!($G, e, a, b, c, d, 0xca, 0x5A82_7999u32, |g| sched!(w[g], 16));
            round!($G, d, e, a, b, c, 0xca, 0x5A82_7999u32, |g| sched!(w[g], 17));
            round!($G, c, d, e, a, b, 0xca, 0x5A82_7999u32, |g| sched!(w[g], 18));
            round!($G, b, c, d, e, a, 0xca, 0x5A82_7999u32, |g| sched!(w[g], 19));
            rounds5!($G, a, b, c, d, e, 0x96, 0x6ED9_EBA1u32, w, 20, sched);
            rounds5!($G, a, b, c, d, e, 0x96, 0x6ED9_EBA1u32, w, 25, sched);
            rounds5!($G, a, b, c, d, e, 0x96, 0x6ED9_EBA1u32, w, 30, sched);
            rounds5!($G, a, b, c, d, e, 0x96, 0x6ED9_EBA1u32, w, 35, sched);
            rounds5!($G, a, b, c, d, e, 0xe8, 0x8F1B_BCDCu32, w, 40, sched);
            rounds5!($G, a, b, c, d, e, 0xe8, 0x8F1B_BCDCu32, w, 45, sched);
            rounds5!($G, a, b, c, d, e, 0xe8, 0x8F1B_BCDCu32, w, 50, sched);
            rounds5!($G, a, b, c, d, e, 0xe8, 0x8F1B_BCDCu32, w, 55, sched);
            rounds5!($G, a, b, c, d, e, 0x96, 0xCA62_C1D6u32, w, 60, sched);
            rounds5!($G, a, b, c, d, e, 0x96, 0xCA62_C1D6u32, w, 65, sched);
            rounds5!($G, a, b, c, d, e, 0x96, 0xCA62_C1D6u32, w, 70, sched);
            rounds5!($G, a, b, c, d, e, 0x96, 0xCA62_C1D6u32, w, 75, sched);
            let mut out = [[zero; 5]; $G];
            for g in 0..$G {
                out[g] = [
                    _mm512_add_epi32(h[g][0], a[g]),
                    _mm512_add_epi32(h[g][1], b[g]),
                    _mm512_add_epi32(h[g][2], c[g]),
                    _mm512_add_epi32(h[g][3], d[g]),
                    _mm512_add_epi32(h[g][4], e[g]),
                ];
            }
            out
        }};
    }

    /// # Safety
    /// The CPU must support AVX-512F (see [`available`]).
    pub(super) unsafe fn run(chains: &mut [Chain], iterations: u32) {
        for g in chains.chunks_mut(GROUPS * LANES) {
            // SAFETY: the caller guarantees the target feature.
            unsafe {
                if g.len() > LANES {
                    iterate::<GROUPS>(g, iterations)
                } else {
                    iterate::<1>(g, iterations)
                }
            }
        }
    }

    /// `iterations` HMAC iterations on up to `16 x G` chains (`G` groups of 16 lanes whose
    /// rounds are interleaved, to cover the latency of each round's dependency chain).
    ///
    /// # Safety
    /// The CPU must support AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn iterate<const G: usize>(chains: &mut [Chain], iterations: u32) {
        if chains.len() > G * LANES {
            return;
        }
        // Word k of field f of the chains of group g as one vector (missing chains: zero).
        let load = |f: fn(&Chain) -> &[u32; 5]| -> [[__m512i; 5]; G] {
            let mut out = [[_mm512_setzero_si512(); 5]; G];
            for (g, o) in out.iter_mut().enumerate() {
                for (k, v) in o.iter_mut().enumerate() {
                    let mut words = [0u32; 16];
                    for (dst, c) in words.iter_mut().zip(chains.iter().skip(g * LANES)) {
                        *dst = f(c)[k];
                    }
                    // SAFETY: `[u32; 16]` has the vector's size; unaligned load.
                    *v = unsafe { _mm512_loadu_si512(words.as_ptr().cast()) };
                }
            }
            out
        };
        let ih = load(|c| &c.inner);
        let oh = load(|c| &c.outer);
        let mut u = load(|c| &c.u);
        let mut t = load(|c| &c.t);
        // Intrinsics are safe to call here on recent compilers, unsafe on older ones.
        #[allow(unused_unsafe)]
        // SAFETY: the target features this function enables are the caller's promise
        // (its `# Safety`); the loads and stores go through arrays and slices.
        unsafe {
            for _ in 0..iterations {
                let x = compress_fixed!(G, &ih, &u);
                u = compress_fixed!(G, &oh, &x);
                for g in 0..G {
                    for k in 0..5 {
                        t[g][k] = _mm512_xor_si512(t[g][k], u[g][k]);
                    }
                }
            }
        }
        let mut words = [0u32; 16];
        for g in 0..G {
            for k in 0..5 {
                for (field, v) in [(0, u[g][k]), (1, t[g][k])] {
                    // SAFETY: as above; unaligned store.
                    unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), v) };
                    for (c, &x) in chains.iter_mut().skip(g * LANES).zip(&words) {
                        if field == 0 {
                            c.u[k] = x;
                        } else {
                            c.t[k] = x;
                        }
                    }
                }
            }
        }
        zeroize::Zeroize::zeroize(&mut words);
    }
}

/// Multi-buffer SHA-1 with AVX2 for CPUs without SHA-NI and AVX-512 (e.g. Intel Haswell to
/// Comet Lake): 8 chains, one per 32-bit lane of a YMM register. The same algorithm as
/// [`avx512`] with rotations as two shifts and an OR and the round functions as 2-3
/// logic operations; one group, since AVX2 has only 16 vector registers.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Chain, FIXED_BITS};
    use core::arch::x86_64::*;

    /// Chains per kernel call.
    pub(super) const LANES: usize = 8;

    pub(super) fn available() -> bool {
        std::is_x86_feature_detected!("avx2")
    }

    macro_rules! rol {
        ($x:expr, $n:literal, $m:literal) => {{
            let x = $x;
            _mm256_or_si256(_mm256_slli_epi32(x, $n), _mm256_srli_epi32(x, $m))
        }};
    }

    /// Ch(b, c, d) = d ^ (b & (c ^ d)).
    macro_rules! ch {
        ($b:expr, $c:expr, $d:expr) => {
            _mm256_xor_si256($d, _mm256_and_si256($b, _mm256_xor_si256($c, $d)))
        };
    }
    macro_rules! parity {
        ($b:expr, $c:expr, $d:expr) => {
            _mm256_xor_si256(_mm256_xor_si256($b, $c), $d)
        };
    }
    /// Maj(b, c, d) = (b & c) | (d & (b | c)).
    macro_rules! maj {
        ($b:expr, $c:expr, $d:expr) => {
            _mm256_or_si256(_mm256_and_si256($b, $c), _mm256_and_si256($d, _mm256_or_si256($b, $c)))
        };
    }

    /// `e += rol(a, 5) + f(b, c, d) + K + W; b = rol(b, 30)`.
    macro_rules! round {
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $k:expr, $w:expr) => {
            let kw = _mm256_add_epi32($w, _mm256_set1_epi32($k as i32));
            let fe = _mm256_add_epi32(_mm256_add_epi32($e, kw), $f!($b, $c, $d));
            $e = _mm256_add_epi32(fe, rol!($a, 5, 27));
            $b = rol!($b, 30, 2);
        };
    }

    /// W[i] for i >= 16, in place in the 16-word ring `w`.
    macro_rules! sched {
        ($w:ident, $i:expr) => {{
            let x =
                _mm256_xor_si256(_mm256_xor_si256($w[($i + 13) & 15], $w[($i + 8) & 15]), _mm256_xor_si256($w[($i + 2) & 15], $w[$i & 15]));
            $w[$i & 15] = rol!(x, 1, 31);
            $w[$i & 15]
        }};
    }

    macro_rules! rounds5 {
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $k:expr, $w:ident, $i:expr, fixed) => {
            round!($a, $b, $c, $d, $e, $f, $k, $w[$i]);
            round!($e, $a, $b, $c, $d, $f, $k, $w[$i + 1]);
            round!($d, $e, $a, $b, $c, $f, $k, $w[$i + 2]);
            round!($c, $d, $e, $a, $b, $f, $k, $w[$i + 3]);
            round!($b, $c, $d, $e, $a, $f, $k, $w[$i + 4]);
        };
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $k:expr, $w:ident, $i:expr, sched) => {
            round!($a, $b, $c, $d, $e, $f, $k, sched!($w, $i));
            round!($e, $a, $b, $c, $d, $f, $k, sched!($w, $i + 1));
            round!($d, $e, $a, $b, $c, $f, $k, sched!($w, $i + 2));
            round!($c, $d, $e, $a, $b, $f, $k, sched!($w, $i + 3));
            round!($b, $c, $d, $e, $a, $f, $k, sched!($w, $i + 4));
        };
    }

    /// One compression per lane of state `$h` over the fixed block starting with `$m`.
    macro_rules! compress_fixed {
        ($h:expr, $m:expr) => {{
            let h: &[__m256i; 5] = $h;
            let m: &[__m256i; 5] = $m;
            let zero = _mm256_setzero_si256();
            let mut w = [zero; 16];
            w[..5].copy_from_slice(m);
            w[5] = _mm256_set1_epi32(0x8000_0000u32 as i32);
            w[15] = _mm256_set1_epi32(FIXED_BITS as i32);
            let [mut a, mut b, mut c, mut d, mut e] = *h;
            rounds5!(a, b, c, d, e, ch, 0x5A82_7999u32, w, 0, fixed);
            rounds5!(a, b, c, d, e, ch, 0x5A82_7999u32, w, 5, fixed);
            rounds5!(a, b, c, d, e, ch, 0x5A82_7999u32, w, 10, fixed);
            round!(a, b, c, d, e, ch, 0x5A82_7999u32, w[15]);
            // Round 16 onwards: the names are rotated by one (16 = 3 x 5 + 1).
            round!(e, a, b, c, d, ch, 0x5A82_7999u32, sched!(w, 16));
            round!(d, e, a, b, c, ch, 0x5A82_7999u32, sched!(w, 17));
            round!(c, d, e, a, b, ch, 0x5A82_7999u32, sched!(w, 18));
            round!(b, c, d, e, a, ch, 0x5A82_7999u32, sched!(w, 19));
            rounds5!(a, b, c, d, e, parity, 0x6ED9_EBA1u32, w, 20, sched);
            rounds5!(a, b, c, d, e, parity, 0x6ED9_EBA1u32, w, 25, sched);
            rounds5!(a, b, c, d, e, parity, 0x6ED9_EBA1u32, w, 30, sched);
            rounds5!(a, b, c, d, e, parity, 0x6ED9_EBA1u32, w, 35, sched);
            rounds5!(a, b, c, d, e, maj, 0x8F1B_BCDCu32, w, 40, sched);
            rounds5!(a, b, c, d, e, maj, 0x8F1B_BCDCu32, w, 45, sched);
            rounds5!(a, b, c, d, e, maj, 0x8F1B_BCDCu32, w, 50, sched);
            rounds5!(a, b, c, d, e, maj, 0x8F1B_BCDCu32, w, 55, sched);
            rounds5!(a, b, c, d, e, parity, 0xCA62_C1D6u32, w, 60, sched);
            rounds5!(a, b, c, d, e, parity, 0xCA62_C1D6u32, w, 65, sched);
            rounds5!(a, b, c, d, e, parity, 0xCA62_C1D6u32, w, 70, sched);
            rounds5!(a, b, c, d, e, parity, 0xCA62_C1D6u32, w, 75, sched);
            [
                _mm256_add_epi32(h[0], a),
                _mm256_add_epi32(h[1], b),
                _mm256_add_epi32(h[2], c),
                _mm256_add_epi32(h[3], d),
                _mm256_add_epi32(h[4], e),
            ]
        }};
    }

    /// # Safety
    /// The CPU must support AVX2 (see [`available`]).
    pub(super) unsafe fn run(chains: &mut [Chain], iterations: u32) {
        // SAFETY: the caller guarantees the target features.
        unsafe { run_lanes(chains, iterations, LANES) }
    }

    /// [`run`] with at most `lanes` (1..=8) chains per lockstep group.
    ///
    /// # Safety
    /// As [`run`].
    pub(super) unsafe fn run_lanes(chains: &mut [Chain], iterations: u32, lanes: usize) {
        for g in chains.chunks_mut(lanes.clamp(1, LANES)) {
            // SAFETY: the caller guarantees the target feature.
            unsafe { iterate(g, iterations) }
        }
    }

    /// `iterations` HMAC iterations on up to 8 chains.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn iterate(chains: &mut [Chain], iterations: u32) {
        if chains.len() > LANES {
            return;
        }
        // Word k of field f of every chain as one vector (missing chains: zero).
        let load = |f: fn(&Chain) -> &[u32; 5]| -> [__m256i; 5] {
            let mut out = [_mm256_setzero_si256(); 5];
            for (k, v) in out.iter_mut().enumerate() {
                let mut words = [0u32; 8];
                for (dst, c) in words.iter_mut().zip(chains.iter()) {
                    *dst = f(c)[k];
                }
                // SAFETY: `[u32; 8]` has the vector's size; unaligned load.
                *v = unsafe { _mm256_loadu_si256(words.as_ptr().cast()) };
            }
            out
        };
        let ih = load(|c| &c.inner);
        let oh = load(|c| &c.outer);
        let mut u = load(|c| &c.u);
        let mut t = load(|c| &c.t);
        // Intrinsics are safe to call here on recent compilers, unsafe on older ones.
        #[allow(unused_unsafe)]
        // SAFETY: the target features this function enables are the caller's promise
        // (its `# Safety`); the loads and stores go through arrays and slices.
        unsafe {
            for _ in 0..iterations {
                let x = compress_fixed!(&ih, &u);
                u = compress_fixed!(&oh, &x);
                for k in 0..5 {
                    t[k] = _mm256_xor_si256(t[k], u[k]);
                }
            }
        }
        let mut words = [0u32; 8];
        for k in 0..5 {
            for (field, v) in [(0, u[k]), (1, t[k])] {
                // SAFETY: as above; unaligned store.
                unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), v) };
                for (c, &x) in chains.iter_mut().zip(&words) {
                    if field == 0 {
                        c.u[k] = x;
                    } else {
                        c.t[k] = x;
                    }
                }
            }
        }
        zeroize::Zeroize::zeroize(&mut words);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ieee_vector_both_backends() {
        let want = "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e";
        let mut h = String::new();
        for b in psk_from_passphrase(b"password", b"IEEE").unwrap() {
            h.push_str(&format!("{b:02x}"));
        }
        assert_eq!(h, want);
        assert_eq!(psk_from_passphrase_portable(b"password", b"IEEE").unwrap(), psk_from_passphrase(b"password", b"IEEE").unwrap());
    }
}

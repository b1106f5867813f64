//! Fused AES-CCM kernel for CCMP (IEEE 802.11-2020 12.5.3; CCM per RFC 3610 / NIST SP 800-38C).
//!
//! Only the parameter set CCMP needs is offered: L = 2 (13-octet nonce, payload up to 65 535
//! octets), tag length M = 4..=16 (even; CCMP uses 8 or 16), AAD shorter than 0xFF00 octets.
//!
//! # Why it is fast
//! CCM's CBC-MAC is a serial chain of block encryptions, CTR is parallel. The x86_64
//! backend (`aesni`) runs both in one loop, so each CTR keystream block is computed in the
//! latency shadow of the chain (AESENC has ~4 cycles latency but 1-2/cycle throughput).
//! The chain itself is cut to exactly `Nr` AES instructions per block: the XOR of the next
//! message block and the whitening key `K0` is folded into the previous block's `AESENCLAST`
//! round key (`E(X) ^ B ^ K0 = AESENCLAST(s, K_Nr ^ K0 ^ B)`). B0 and the tag-mask block
//! `E(A0)` start together; B0/A0 are built in general registers and the first AAD block
//! with one load and a byte shift (no byte stores followed by a vector load, which would
//! stall on store forwarding); the payload is read and written in place with unaligned
//! 16-octet loads; the final partial block is read with one 16-octet load of the message's
//! last octets (taken before anything is written) and written with one overlapping 16-octet
//! store (only messages shorter than 16 octets, and AAD shorter than 16, go through a stack
//! buffer). Decryption computes the keystream one block ahead of the chain (the MAC there
//! runs over the plaintext); the out-of-order core runs it further ahead on its own.
//!
//! The result is bound by the chain: about `Nr` AESENC latencies per 16 octets plus one
//! block each for B0 and the AAD. For the numbers see `crates/wsec-bench/benches/ccm.rs`
//! (`cargo bench -p wsec-bench --bench ccm`). A single message cannot go below that floor; only
//! interleaving several independent messages could.
//!
//! # Backends
//! [`Backend`], chosen at run time by CPU features (fastest first), or forced: per key
//! ([`CcmKey::with`]), per thread ([`with_backend`]), per process ([`set_backend`], or the
//! environment variable [`BACKEND_ENV`] = `WSEC_BACKEND`); forcing one the CPU lacks is an
//! error, never a silent fallback.
//! - `avx512`: the single-message kernel compiled with AVX-512VL/VAES (32 vector
//!   registers, EVEX encodings); batches on the 512-bit multi-buffer kernel (`mb`, four
//!   messages per register, masked partial blocks). Measured on AMD EPYC (Zen 4 class) the
//!   single-message kernel is as fast as `aesni`: the serial chain is the limit.
//! - `vaes256`: AVX2 + VAES/VPCLMULQDQ on 256-bit registers (Zen 3, Intel client cores);
//!   batches on `mbv` with two messages per register; CTR sixteen blocks in flight.
//! - `aesni`: AES-NI + PCLMULQDQ + SSE4.1; batches on `mbv`, four messages, one per register.
//! - `portable`: the RustCrypto `aes` crate's block cipher (which has its own
//!   constant-time software implementation and its own AES-NI/ARMv8 detection); batches
//!   run one message at a time.
//!
//! Every backend gives the same bytes and the same refusals (crates/wsec/tests/it/backends.rs runs every
//! backend the CPU supports against the portable one and fails if one was not exercised).
//!
//! # GCM
//! [`GcmKey`] (GCMP, BIP-GMAC) runs on the same backends: CTR on AES-NI/VAES and GHASH on
//! PCLMULQDQ/VPCLMULQDQ (`gcm`), RustCrypto `aes-gcm` on the portable backend; batches
//! through [`gcm_seal_batch`] / [`gcm_open_batch`]. docs/kernels.md describes every kernel
//! and docs/results/ has their figures beside OpenSSL, RustCrypto and ipsec-mb.
//!
//! # Errors
//! `BadKeyLength` for keys other than 16/32 octets; `Oversize` for payloads over 65 535
//! octets or AAD of 0xFF00 octets or more; `Malformed` for a tag length outside
//! {4, 6, ..., 16}; `MicFailure` when a tag does not verify. Nothing is written to `data` or
//! `tag` when an argument is refused.
//!
//! # Security notes
//! Round keys live in the [`CcmKey`] and are zeroized on drop. Copies the kernels make in
//! registers or on the stack while running (round keys, keystream, the MAC state) are not
//! scrubbed. The tag comparison is constant time ([`subtle`]). On a MIC failure the caller's
//! buffer gets its ciphertext back, so no unauthenticated plaintext is left behind.
use crate::error::{Error, Result};
use core::fmt;
use subtle::ConstantTimeEq;

#[cfg(target_arch = "x86_64")]
mod aesni;
#[cfg(target_arch = "x86_64")]
mod eccmz;
#[cfg(target_arch = "x86_64")]
mod gcm;
#[cfg(target_arch = "x86_64")]
mod mb;
#[cfg(target_arch = "x86_64")]
mod mbv;
mod portable;

/// Largest payload with L = 2.
pub const MAX_PAYLOAD: usize = 0xFFFF;
/// AAD lengths from this value on need a longer length encoding (RFC 3610 2.2); not offered.
pub const MAX_AAD_EXCLUSIVE: usize = 0xFF00;

/// Expanded AES-128 or AES-256 key for CCM; round keys zeroized on drop.
#[derive(Clone)]
pub struct CcmKey {
    inner: Inner,
}

// The AES-NI schedule stays inline (hot path, no indirection); the portable one is boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Inner {
    #[cfg(target_arch = "x86_64")]
    Ni(aesni::NiKey),
    /// Boxed: the `aes` crate's schedules (with its software fallback) are ~1 KiB.
    Portable(Box<portable::PortableKey>),
}

/// The kernels a key runs on. Every backend gives the same bytes and the same refusals;
/// they differ in speed only.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Backend {
    /// RustCrypto `aes` (no AES instructions in wsec's own code); runs everywhere.
    Portable,
    /// AES-NI + PCLMULQDQ on 128-bit registers with SSE encodings (any x86_64 since 2010).
    /// Batches: four messages interleaved, one block per register (eight spilled the 16 SSE
    /// registers).
    AesNi,
    /// AVX2 + VAES + VPCLMULQDQ on 256-bit registers (AMD Zen 3, Intel client cores since
    /// Ice Lake; no AVX-512 needed). Batches: eight messages, two per register.
    Vaes256,
    /// AVX-512F/VL/BW + VAES + VPCLMULQDQ on 512-bit registers. Batches: eight messages,
    /// four per register, masked partial blocks.
    Avx512,
}

/// Environment variable that forces a backend for the whole process (tests, benchmarks):
/// `portable`, `aesni`, `vaes256` or `avx512`. Unset or empty: the fastest the CPU has.
pub const BACKEND_ENV: &str = "WSEC_BACKEND";

impl Backend {
    /// Every backend, fastest first.
    pub const ALL: [Backend; 4] = [Backend::Avx512, Backend::Vaes256, Backend::AesNi, Backend::Portable];

    /// The name used by [`BACKEND_ENV`], `--json` output and [`Backend::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::AesNi => "aesni",
            Backend::Vaes256 => "vaes256",
            Backend::Avx512 => "avx512",
        }
    }

    /// Parses a backend name (also the aliases `vaes-avx512` and `vaes-avx2`).
    pub fn from_name(s: &str) -> Option<Backend> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "portable" | "soft" => Backend::Portable,
            "aesni" | "aes-ni" | "sse" => Backend::AesNi,
            "vaes256" | "vaes-avx2" | "avx2" => Backend::Vaes256,
            "avx512" | "vaes-avx512" => Backend::Avx512,
            _ => return None,
        })
    }

    /// Whether this CPU can run the backend's kernels (runtime CPUID detection).
    pub fn supported(self) -> bool {
        match self {
            Backend::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Backend::AesNi => aesni::Level::Ni.supported(),
            #[cfg(target_arch = "x86_64")]
            Backend::Vaes256 => aesni::Level::Y256.supported(),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => aesni::Level::Z512.supported(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The backends this CPU can run, fastest first (always ends with `Portable`).
    pub fn available() -> Vec<Backend> {
        Backend::ALL.into_iter().filter(|b| b.supported()).collect()
    }

    /// The fastest backend this CPU can run (AVX-512 > VAES-256 > AES-NI > portable).
    pub fn detected() -> Backend {
        static CHOICE: std::sync::OnceLock<Backend> = std::sync::OnceLock::new();
        *CHOICE.get_or_init(|| Backend::ALL.into_iter().find(|b| b.supported()).unwrap_or(Backend::Portable))
    }

    /// `Ok(self)` if the CPU can run it, else `Err(Error::Unsupported)`.
    pub fn check(self) -> Result<Backend> {
        if self.supported() {
            Ok(self)
        } else {
            Err(Error::Unsupported("the CPU lacks the instructions of the requested CCM/GCM backend"))
        }
    }

    /// Name of the batch path ([`seal_batch`]) of keys on this backend.
    pub fn batch_name(self) -> &'static str {
        match self {
            Backend::Portable => "serial",
            Backend::AesNi => "aesni-mb4",
            Backend::Vaes256 => "vaes256-mb8",
            Backend::Avx512 => "avx512-mb8",
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn level(self) -> Option<aesni::Level> {
        match self {
            Backend::Portable => None,
            Backend::AesNi => Some(aesni::Level::Ni),
            Backend::Vaes256 => Some(aesni::Level::Y256),
            Backend::Avx512 => Some(aesni::Level::Z512),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl core::str::FromStr for Backend {
    type Err = Error;
    fn from_str(s: &str) -> Result<Backend> {
        Backend::from_name(s).ok_or(Error::Malformed("backend must be portable, aesni, vaes256 or avx512"))
    }
}

/// The backend [`BACKEND_ENV`] forces: `Ok(None)` when unset or empty, an error when it
/// names no backend or one this CPU cannot run. Read once per process.
pub fn env_backend() -> Result<Option<Backend>> {
    static ENV: std::sync::OnceLock<Result<Option<Backend>>> = std::sync::OnceLock::new();
    *ENV.get_or_init(|| match std::env::var(BACKEND_ENV) {
        Ok(v) if !v.trim().is_empty() => match Backend::from_name(&v) {
            Some(b) => b.check().map(Some),
            None => Err(Error::Malformed("WSEC_BACKEND must be portable, aesni, vaes256 or avx512")),
        },
        _ => Ok(None),
    })
}

/// Process-wide choice by [`set_backend`]: 0 = none, else 1 + index in `Backend::ALL`.
static PROCESS: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

thread_local! {
    /// This thread's choice by [`with_backend`].
    static THREAD: core::cell::Cell<Option<Backend>> = const { core::cell::Cell::new(None) };
}

/// Forces the backend of every key made afterwards by [`CcmKey::new`] (and the GCM keys)
/// in this process, or `None` to go back to [`BACKEND_ENV`] / detection.
/// `Err(Error::Unsupported)` if the CPU cannot run it (nothing changes then).
pub fn set_backend(b: Option<Backend>) -> Result<()> {
    let v = match b {
        Some(b) => {
            let b = b.check()?;
            1 + Backend::ALL.iter().position(|x| *x == b).unwrap_or(0) as u8
        }
        None => 0,
    };
    PROCESS.store(v, std::sync::atomic::Ordering::SeqCst);
    Ok(())
}

/// Runs `f` with `b` forced for keys made on this thread (overrides [`set_backend`] and
/// [`BACKEND_ENV`]); `Err(Error::Unsupported)` without running `f` if the CPU cannot run `b`.
pub fn with_backend<R>(b: Backend, f: impl FnOnce() -> R) -> Result<R> {
    b.check()?;
    struct Restore(Option<Backend>);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(THREAD.with(|t| t.replace(Some(b))));
    Ok(f())
}

/// The backend new keys get: [`with_backend`] on this thread, else [`set_backend`], else
/// [`BACKEND_ENV`], else [`Backend::detected`]. An error if [`BACKEND_ENV`] is invalid.
pub fn current() -> Result<Backend> {
    if let Some(b) = THREAD.with(|t| t.get()) {
        return Ok(b);
    }
    match PROCESS.load(std::sync::atomic::Ordering::SeqCst) {
        0 => {}
        v => return Ok(Backend::ALL[(v - 1) as usize]),
    }
    Ok(env_backend()?.unwrap_or_else(Backend::detected))
}

/// Name of the backend new keys get ([`current`]); the detected one's if [`BACKEND_ENV`] is
/// invalid (key construction then fails with the reason).
pub fn backend() -> &'static str {
    current().unwrap_or_else(|_| Backend::detected()).name()
}

thread_local! {
    /// Multi-buffer kernel runs on this thread, per backend (index as in `Backend::ALL`).
    static MB_RUNS: [core::cell::Cell<u64>; 4] = const { [const { core::cell::Cell::new(0) }; 4] };
}

/// How many times this thread has run backend `b`'s multi-buffer kernel (one run = up to
/// eight messages interleaved). Lets tests prove a kernel was exercised, not skipped.
pub fn mb_runs(b: Backend) -> u64 {
    let i = Backend::ALL.iter().position(|x| *x == b).unwrap_or(0);
    MB_RUNS.with(|c| c[i].get())
}

#[cfg(target_arch = "x86_64")]
fn count_mb_run(b: Backend) {
    let i = Backend::ALL.iter().position(|x| *x == b).unwrap_or(0);
    MB_RUNS.with(|c| c[i].set(c[i].get() + 1));
}

/// B0 (RFC 3610 2.2) and A0 (2.3) for L = 2. Caller has checked the lengths.
#[inline(always)]
fn b0_a0(nonce: &[u8; 13], aad_len: usize, m: usize, len: usize) -> ([u8; 16], [u8; 16]) {
    let mut b0 = [0u8; 16];
    let mut a0 = [0u8; 16];
    b0[1..14].copy_from_slice(nonce);
    a0[1..14].copy_from_slice(nonce);
    // Flags: Adata | M' = (M-2)/2 | L' = L-1 = 1.
    b0[0] = (if aad_len > 0 { 0x40 } else { 0 }) | ((((m - 2) / 2) as u8) << 3) | 0x01;
    a0[0] = 0x01;
    b0[14] = (len >> 8) as u8;
    b0[15] = len as u8;
    (b0, a0)
}

/// The first AAD block: 2-octet big-endian length then up to 14 AAD octets, zero padded.
/// Returns the block and the AAD octets that did not fit.
#[inline(always)]
fn aad_first_block(aad: &[u8]) -> ([u8; 16], &[u8]) {
    let mut b = [0u8; 16];
    b[0] = (aad.len() >> 8) as u8;
    b[1] = aad.len() as u8;
    let n = aad.len().min(14);
    b[2..2 + n].copy_from_slice(&aad[..n]);
    (b, &aad[n..])
}

/// Constant-time tag comparison: every octet is looked at whatever the others hold, and
/// the branch is on one accumulated value passed through [`subtle`]'s barrier once (its
/// slice `ct_eq` puts a barrier on every octet, which costs as much as a 64-octet frame's
/// CTR in a batch). Lengths are public; different lengths compare unequal.
#[inline(always)]
fn tag_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut d = 0u8;
    for (x, y) in a.iter().zip(b) {
        d |= x ^ y;
    }
    bool::from(d.ct_eq(&0))
}

#[inline(always)]
fn check(aad: &[u8], len: usize, m: usize) -> Result<()> {
    if !(4..=16).contains(&m) || m & 1 != 0 {
        return Err(Error::Malformed("CCM tag length must be even and 4..=16"));
    }
    if len > MAX_PAYLOAD || aad.len() >= MAX_AAD_EXCLUSIVE {
        return Err(Error::Oversize);
    }
    Ok(())
}

impl CcmKey {
    /// 16-byte (AES-128) or 32-byte (AES-256) key, else `Err(Error::BadKeyLength)`.
    /// Uses the backend [`current`] names (forced, or the fastest the CPU has);
    /// `Err(Error::Unsupported)`/`Malformed` if [`BACKEND_ENV`] forces one the CPU lacks.
    pub fn new(key: &[u8]) -> Result<Self> {
        if key.len() != 16 && key.len() != 32 {
            return Err(Error::BadKeyLength);
        }
        Self::with(key, current()?)
    }

    /// A key on backend `b`; `Err(Error::Unsupported)` if the CPU cannot run it.
    pub fn with(key: &[u8], b: Backend) -> Result<Self> {
        if key.len() != 16 && key.len() != 32 {
            return Err(Error::BadKeyLength);
        }
        b.check()?;
        #[cfg(target_arch = "x86_64")]
        if let Some(level) = b.level() {
            return Ok(CcmKey { inner: Inner::Ni(aesni::NiKey::new(key, level)?) });
        }
        Ok(CcmKey { inner: Inner::Portable(Box::new(portable::PortableKey::new(key)?)) })
    }

    /// Like [`CcmKey::new`] but always on the portable backend (RustCrypto `aes`), so tests
    /// and benchmarks can cross-check backends on one machine.
    pub fn new_portable(key: &[u8]) -> Result<Self> {
        Self::with(key, Backend::Portable)
    }

    /// A key on a named backend ([`Backend::from_name`]), for tests and benchmarks.
    /// `Err(Error::Unsupported)` if the name is unknown or the CPU lacks it.
    pub fn new_with_backend(key: &[u8], backend: &str) -> Result<Self> {
        if key.len() != 16 && key.len() != 32 {
            return Err(Error::BadKeyLength);
        }
        let b = Backend::from_name(backend).ok_or(Error::Unsupported("no such CCM backend"))?;
        Self::with(key, b)
    }

    /// Names of the backends this CPU can run, fastest first ([`Backend::available`]).
    pub fn available_backends() -> Vec<&'static str> {
        Backend::available().into_iter().map(Backend::name).collect()
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(k) => match k.level() {
                aesni::Level::Ni => Backend::AesNi,
                aesni::Level::Y256 => Backend::Vaes256,
                aesni::Level::Z512 => Backend::Avx512,
            },
            Inner::Portable(_) => Backend::Portable,
        }
    }

    /// Name of the backend this key runs on ([`Backend::name`]).
    pub fn backend_name(&self) -> &'static str {
        self.backend().name()
    }

    /// Key length in bits (128 or 256).
    pub fn key_bits(&self) -> u32 {
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(k) => k.key_bits(),
            Inner::Portable(k) => k.key_bits(),
        }
    }

    /// CCM with L = 2 (13-byte nonce), tag length M = `tag.len()` (even, 4..=16), AAD shorter
    /// than 0xFF00 octets, payload up to 65 535 octets (else `Err(Error::Oversize)`).
    /// Encrypts `data` in place and writes the tag.
    pub fn seal_in_place(&self, nonce: &[u8; 13], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<()> {
        let m = tag.len();
        check(aad, data.len(), m)?;
        let mut t = [0u8; 16];
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(k) => k.seal(nonce, m, aad, data, &mut t),
            Inner::Portable(k) => k.seal(nonce, m, aad, data, &mut t),
        }
        tag.copy_from_slice(&t[..m]);
        Ok(())
    }

    /// Decrypts `data` in place and verifies the tag (length M = `tag.len()`) in constant
    /// time. On MIC failure returns `Err(Error::MicFailure)` and restores `data` to the
    /// ciphertext it was given.
    pub fn open_in_place(&self, nonce: &[u8; 13], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        let m = tag.len();
        check(aad, data.len(), m)?;
        let mut t = [0u8; 16];
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(k) => k.open(nonce, m, aad, data, &mut t),
            Inner::Portable(k) => k.open(nonce, m, aad, data, &mut t),
        }
        if tag_eq(&t[..m], tag) {
            return Ok(());
        }
        // Put the ciphertext back: CTR is its own inverse.
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(k) => k.ctr_xor(nonce, data),
            Inner::Portable(k) => k.ctr_xor(nonce, data),
        }
        Err(Error::MicFailure)
    }
}

/// Lane counts of Enhanced CCMP (docs/eccmp.md).
pub const ECCMP_LANES: [usize; 4] = [1, 2, 4, 8];
/// Largest AAD [`CcmKey::lane_mac`] takes, for every lane count: three formatted AAD blocks
/// (ECCMP's lane flags have a 2-bit field for them; an 802.11 AAD is at most 30 octets).
pub const ECCMP_MAX_AAD: usize = 46;

fn check_lanes(k: usize, aad: &[u8]) -> Result<()> {
    if !ECCMP_LANES.contains(&k) {
        return Err(Error::Malformed("ECCMP lane count must be 1, 2, 4 or 8"));
    }
    // Every backend refuses the same inputs: the AES-NI lane kernel formats at most three
    // AAD blocks, also for k = 1, so the bound holds for k = 1 too.
    if aad.len() > ECCMP_MAX_AAD {
        return Err(Error::Oversize);
    }
    Ok(())
}

impl CcmKey {
    /// The Enhanced CCMP MIC value `T` before masking (docs/eccmp.md step 3): the XOR of `k`
    /// domain-separated lane CBC-MACs over the CCM-formatted stream of `aad` and the
    /// plaintext `data`; `k = 1` is CCM's CBC-MAC. `m` is the tag length coded in B0.
    /// Exposed for benchmarks (the paper's "MIC time") and cross-checks.
    pub fn lane_mac(&self, k: usize, m: usize, nonce: &[u8; 13], aad: &[u8], data: &[u8]) -> Result<[u8; 16]> {
        check(aad, data.len(), m)?;
        check_lanes(k, aad)?;
        Ok(match &self.inner {
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(key) => key.lane_mac(k, m, nonce, aad, data),
            Inner::Portable(key) => key.lane_mac(k, m, nonce, aad, data),
        })
    }

    /// CCM's CTR encryption alone (counters A_1, A_2, ...), with `width` blocks in flight:
    /// 1, 2, 4 or 8 (AES-NI registers on every x86 backend), 16 (VAES: eight 256-bit or four
    /// 512-bit registers) or 32 (AVX-512 only); a backend without the width uses its widest.
    /// The output is standard CTR whatever the width. Exposed for benchmarks (the paper's
    /// "CTR time") and cross-checks.
    pub fn ctr_xor_width(&self, width: usize, nonce: &[u8; 13], data: &mut [u8]) -> Result<()> {
        if data.len() > MAX_PAYLOAD {
            return Err(Error::Oversize);
        }
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(key) => key.ctr_width(width, nonce, data),
            Inner::Portable(key) => key.ctr_xor(nonce, data),
        }
        Ok(())
    }

    fn tag_mask(&self, nonce: &[u8; 13]) -> [u8; 16] {
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(key) => key.tag_mask(nonce),
            Inner::Portable(key) => key.tag_mask(nonce),
        }
    }

    fn ctr_fast(&self, nonce: &[u8; 13], data: &mut [u8]) {
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(key) => key.ctr_fast(nonce, data),
            Inner::Portable(key) => key.ctr_xor(nonce, data),
        }
    }

    /// Enhanced CCMP with `k` lanes (docs/eccmp.md): the lane MIC, then CCM's CTR. `k = 1`
    /// is exactly [`CcmKey::seal_in_place`].
    pub fn seal_lanes(&self, k: usize, nonce: &[u8; 13], aad: &[u8], data: &mut [u8], tag: &mut [u8]) -> Result<()> {
        if k == 1 {
            return self.seal_in_place(nonce, aad, data, tag);
        }
        let m = tag.len();
        check(aad, data.len(), m)?;
        check_lanes(k, aad)?;
        #[cfg(target_arch = "x86_64")]
        if let Inner::Ni(key) = &self.inner {
            if let Some(full) = key.eccm_fused(k, m, nonce, aad, data, true) {
                tag.copy_from_slice(&full[..m]);
                return Ok(());
            }
        }
        let t = self.lane_mac(k, m, nonce, aad, data)?;
        let s0 = self.tag_mask(nonce);
        self.ctr_fast(nonce, data);
        for ((o, t), s) in tag.iter_mut().zip(&t).zip(&s0) {
            *o = t ^ s;
        }
        Ok(())
    }

    /// Opens Enhanced CCMP with `k` lanes; constant-time tag check; on `MicFailure` `data`
    /// keeps its ciphertext. `k = 1` is exactly [`CcmKey::open_in_place`].
    pub fn open_lanes(&self, k: usize, nonce: &[u8; 13], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        if k == 1 {
            return self.open_in_place(nonce, aad, data, tag);
        }
        let m = tag.len();
        check(aad, data.len(), m)?;
        check_lanes(k, aad)?;
        #[cfg(target_arch = "x86_64")]
        if let Inner::Ni(key) = &self.inner {
            if let Some(full) = key.eccm_fused(k, m, nonce, aad, data, false) {
                if tag_eq(&full[..m], tag) {
                    return Ok(());
                }
                self.ctr_fast(nonce, data);
                return Err(Error::MicFailure);
            }
        }
        self.ctr_fast(nonce, data);
        let t = self.lane_mac(k, m, nonce, aad, data)?;
        let s0 = self.tag_mask(nonce);
        let mut full = [0u8; 16];
        for ((o, t), s) in full.iter_mut().zip(&t).zip(&s0) {
            *o = t ^ s;
        }
        if tag_eq(&full[..m], tag) {
            return Ok(());
        }
        self.ctr_fast(nonce, data);
        Err(Error::MicFailure)
    }
}

impl fmt::Debug for CcmKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CcmKey").field("aes", &self.key_bits()).field("backend", &self.backend_name()).finish_non_exhaustive()
    }
}

/// One message of a batch for [`seal_batch`] and [`open_batch`].
pub struct CcmJob<'a> {
    pub key: &'a CcmKey,
    pub nonce: [u8; 13],
    pub aad: &'a [u8],
    /// Plaintext in, ciphertext out ([`seal_batch`]); the reverse for [`open_batch`].
    pub data: &'a mut [u8],
    /// [`seal_batch`] writes the tag here (M = its length); [`open_batch`] reads the
    /// received tag from here.
    pub tag: &'a mut [u8],
    /// The job's outcome, as [`CcmKey::seal_in_place`] / [`CcmKey::open_in_place`] would
    /// return it (a failed `open` leaves the ciphertext in `data`).
    pub status: Result<()>,
    /// Enhanced CCMP lanes (docs/eccmp.md): 1 is CCM; 2, 4 or 8 as
    /// [`CcmKey::seal_lanes`] / [`CcmKey::open_lanes`]. (An octet: it fits the padding
    /// after `nonce`, so collecting the statuses in place reallocates nothing.)
    pub lanes: u8,
}

impl<'a> CcmJob<'a> {
    pub fn new(key: &'a CcmKey, nonce: [u8; 13], aad: &'a [u8], data: &'a mut [u8], tag: &'a mut [u8]) -> Self {
        CcmJob { key, nonce, aad, data, tag, status: Ok(()), lanes: 1 }
    }

    /// The job as Enhanced CCMP with `k` lanes.
    pub fn with_lanes(mut self, k: u8) -> Self {
        self.lanes = k;
        self
    }
}

/// The batch path of keys made now ([`current`]): `"avx512-mb8"`, `"vaes256-mb8"`,
/// `"aesni-mb4"` (eight, eight and four messages interleaved) or `"serial"` (portable: one at a time).
pub fn batch_backend() -> &'static str {
    current().unwrap_or_else(|_| Backend::detected()).batch_name()
}

/// Seals every job of the batch: the result is byte-identical to calling
/// [`CcmKey::seal_in_place`] on each job in turn. Jobs may have different keys, nonces and
/// lengths. Jobs whose key is on an x86 backend and whose AAD is 15 to 30 octets (every
/// CCMP AAD) are interleaved eight at a time (four on 128-bit AES-NI, which takes payloads
/// of 96 octets and more) on their key's backend (grouped by backend and key size); the
/// rest run one at a time.
pub fn seal_batch(jobs: &mut [CcmJob<'_>]) {
    batch(jobs, true)
}

/// Opens every job of the batch (see [`seal_batch`]); each job's `status` says whether its
/// tag verified. A job that fails keeps its ciphertext.
pub fn open_batch(jobs: &mut [CcmJob<'_>]) {
    batch(jobs, false)
}

fn serial(j: &mut CcmJob<'_>, encrypt: bool) {
    j.status = if encrypt {
        j.key.seal_lanes(j.lanes as usize, &j.nonce, j.aad, j.data, j.tag)
    } else {
        j.key.open_lanes(j.lanes as usize, &j.nonce, j.aad, j.data, j.tag)
    };
}

fn batch(jobs: &mut [CcmJob<'_>], encrypt: bool) {
    #[cfg(target_arch = "x86_64")]
    if jobs.len() > 1 {
        return batch_mb(jobs, encrypt);
    }
    for j in jobs.iter_mut() {
        serial(j, encrypt);
    }
}

/// B0, A0 and the two formatted AAD blocks (AAD of 15..=30 octets) for the multi-buffer
/// kernel, built in registers: byte stores followed by the kernel's vector loads would stall
/// on store forwarding, which costs more than the AES on 64-octet frames.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mb_blocks(nonce: &[u8; 13], aad: &[u8], m: usize, len: usize) -> ([u8; 16], [u8; 16], [u8; 16], [u8; 16]) {
    debug_assert!((15..=30).contains(&aad.len()));
    let lo = u64::from_le_bytes(nonce[..8].try_into().unwrap_or([0; 8])) as u128;
    let hi = u64::from_le_bytes(nonce[5..13].try_into().unwrap_or([0; 8])) as u128;
    let n = lo | (hi >> 24) << 64; // the 13 nonce octets, little endian
    let flags = 0x40 | (((m - 2) / 2) as u128) << 3 | 0x01;
    let b0 = flags | n << 8 | ((len as u16).swap_bytes() as u128) << 112;
    let a0 = 0x01 | n << 8;
    let a = aad.len();
    let mut pad = [0u8; 16];
    let (w0, w1) = if a >= 16 {
        // aad[a-16..a] holds the last 16 octets; the ones past octet 13 go into x2.
        (u128::from_le_bytes(aad[..16].try_into().unwrap_or([0; 16])), u128::from_le_bytes(aad[a - 16..].try_into().unwrap_or([0; 16])))
    } else {
        // 15 octets (rare: CCMP's AAD is 22..=30): through a buffer.
        pad[1..].copy_from_slice(aad);
        let w = u128::from_le_bytes(pad);
        (w >> 8, w)
    };
    let x1 = ((a as u16).swap_bytes() as u128) | w0 << 16;
    let rest = a - 14; // 1..=16 octets go into x2
    let x2 = w1 >> (8 * (16 - rest));
    (b0.to_le_bytes(), a0.to_le_bytes(), x1.to_le_bytes(), x2.to_le_bytes())
}

#[cfg(target_arch = "x86_64")]
fn batch_mb(jobs: &mut [CcmJob<'_>], encrypt: bool) {
    // Windows of 64 jobs: the bookkeeping lives on the stack (no allocation per batch,
    // which costs as much as the AES on 64-octet frames).
    let mut base = 0;
    while base < jobs.len() {
        let end = (base + 64).min(jobs.len());
        batch_window(&mut jobs[base..end], encrypt);
        base = end;
    }
}

/// Shortest payload the AES-NI (128-bit) multi-buffer kernel takes; shorter ones run on
/// the single-message kernel.
#[cfg(target_arch = "x86_64")]
const MB_MIN_NI: usize = 96;

/// At most 64 jobs.
#[cfg(target_arch = "x86_64")]
fn batch_window(jobs: &mut [CcmJob<'_>], encrypt: bool) {
    // Jobs the interleaved kernels take, as sort keys: level, AES-256, length (longest
    // first, so lanes that run together have similar lengths), index.
    let mut keys = [0u64; 64];
    let mut nk = 0;
    // ECCMP-4 jobs that go two to a pass (`eccmp_pairs`).
    let mut pairs = [0u64; 64];
    let mut np = 0;
    for (i, j) in jobs.iter_mut().enumerate() {
        let m = j.tag.len();
        if let Err(e) = check(j.aad, j.data.len(), m) {
            j.status = Err(e);
            continue;
        }
        if j.lanes != 1 {
            match &j.key.inner {
                // On 256-bit registers only sealing: opening two frames there spills more of
                // the sixteen registers and measured no faster than one at a time (0.53 vs
                // 0.51 TSC ticks per octet at 7535 octets on Zen 4 as vaes256; sealing 0.37
                // vs 0.58).
                Inner::Ni(k)
                    if j.lanes == 4
                        && (k.level() == aesni::Level::Z512 || (k.level() == aesni::Level::Y256 && encrypt))
                        && (15..=30).contains(&j.aad.len()) =>
                {
                    pairs[np] = ((0xFFFF - j.data.len()) as u64) << 8 | i as u64;
                    np += 1;
                }
                _ => serial(j, encrypt),
            }
            continue;
        }
        match &j.key.inner {
            // On 128-bit AES-NI, frames under 96 octets are faster one at a time on the fused
            // single-message kernel than four to a batch (measured on AMD Zen 5: 64 octets
            // 1.8 against 2.1 TSC ticks/octet; 256 octets 1.4 against 0.85).
            Inner::Ni(k) if k.level() == aesni::Level::Ni && j.data.len() < MB_MIN_NI => serial(j, encrypt),
            Inner::Ni(k) if (15..=30).contains(&j.aad.len()) => {
                let lv = k.level() as u64;
                let wide = (k.schedule().1 == 14) as u64;
                keys[nk] = lv << 40 | wide << 38 | ((0xFFFF - j.data.len()) as u64) << 8 | i as u64;
                nk += 1;
            }
            _ => serial(j, encrypt),
        }
    }
    let keys = &mut keys[..nk];
    keys.sort_unstable();
    let group = |k: u64| k >> 38;
    let mut rest = &keys[..];
    while !rest.is_empty() {
        let g = group(rest[0]);
        let same = rest.iter().take_while(|&&x| group(x) == g).count();
        let Inner::Ni(k0) = &jobs[(rest[0] & 0xff) as usize].key.inner else { unreachable!() };
        let (level, nr) = (k0.level(), k0.schedule().1);
        // Eight lanes on VAES (two 512-bit or four 256-bit registers of chains, as many of
        // keystream; sixteen measured slower on AMD Zen 4); four on 128-bit AES-NI.
        let width = if level == aesni::Level::Ni { 4 } else { 8 };
        let take = same.min(width);
        let (chunk, tail) = rest.split_at(take);
        rest = tail;
        if take == 1 {
            serial(&mut jobs[(chunk[0] & 0xff) as usize], encrypt);
            continue;
        }
        let rk0 = k0.schedule().0 as *const aesni::Rk;
        let mut lanes = [mb::Lane::idle(rk0); 8];
        for (slot, &key) in chunk.iter().enumerate() {
            let j = &mut jobs[(key & 0xff) as usize];
            let Inner::Ni(k) = &j.key.inner else { unreachable!() };
            let m = j.tag.len();
            let (b0, a0, x1, x2) = mb_blocks(&j.nonce, j.aad, m, j.data.len());
            lanes[slot] = mb::Lane {
                rk: k.schedule().0,
                data: j.data.as_mut_ptr(),
                len: j.data.len(),
                pre: [b0, x1, x2],
                a0,
                tag: [0; 16],
                idle: false,
            };
        }
        // SAFETY: every key of the chunk is a NiKey of `level` (grouped above), which
        // NiKey::new made only after checking the CPU has that level's features; each lane
        // points into its own job's `data` (distinct &mut borrows), with len <= MAX_PAYLOAD
        // checked above, and a key schedule of round count `nr` (grouped above); the AAD is
        // 15..=30 octets, so `pre` is B0 and exactly the two formatted AAD blocks; idle
        // lanes fill the rest.
        unsafe {
            match level {
                aesni::Level::Z512 => mb::run(&mut lanes, nr, encrypt),
                aesni::Level::Y256 => mbv::run_y(&mut lanes, nr, encrypt),
                aesni::Level::Ni => mbv::run_x(&mut lanes[..4], nr, encrypt),
            }
        }
        count_mb_run(match level {
            aesni::Level::Z512 => Backend::Avx512,
            aesni::Level::Y256 => Backend::Vaes256,
            aesni::Level::Ni => Backend::AesNi,
        });
        for (l, &key) in lanes.iter().zip(chunk) {
            let j = &mut jobs[(key & 0xff) as usize];
            let m = j.tag.len();
            if encrypt {
                // Fixed-size copies for CCMP's tag lengths (a variable one is a libc call).
                match m {
                    8 => j.tag.copy_from_slice(&l.tag[..8]),
                    16 => j.tag.copy_from_slice(&l.tag),
                    _ => j.tag.copy_from_slice(&l.tag[..m]),
                }
                j.status = Ok(());
            } else if tag_eq(&l.tag[..m], j.tag) {
                j.status = Ok(());
            } else {
                // Put the ciphertext back (CTR is its own inverse).
                if let Inner::Ni(k) = &j.key.inner {
                    k.ctr_xor(&j.nonce, j.data);
                }
                j.status = Err(Error::MicFailure);
            }
        }
    }
    if np > 0 {
        eccmp_pairs(jobs, &mut pairs[..np], encrypt);
    }
}

/// The ECCMP-4 jobs of [`batch_window`] (`idx`: its sort keys, length then index) two to
/// a pass on [`eccmz::run_pair`] (AVX-512) or [`eccmz::run_pair_y`] (VAES-256): longest first, each with the next job of the same key
/// schedule and tag length; a job left without a partner runs alone.
#[cfg(target_arch = "x86_64")]
fn eccmp_pairs(jobs: &mut [CcmJob<'_>], idx: &mut [u64], encrypt: bool) {
    idx.sort_unstable();
    let same = |x: &CcmJob<'_>, y: &CcmJob<'_>| match (&x.key.inner, &y.key.inner) {
        (Inner::Ni(p), Inner::Ni(q)) => core::ptr::eq(p.schedule().0, q.schedule().0) && x.tag.len() == y.tag.len(),
        _ => false,
    };
    let mut done = [false; 64];
    for a in 0..idx.len() {
        let ia = (idx[a] & 0xff) as usize;
        if done[ia] {
            continue;
        }
        done[ia] = true;
        let partner = idx[a + 1..].iter().map(|&k| (k & 0xff) as usize).find(|&ib| !done[ib] && same(&jobs[ia], &jobs[ib]));
        let Some(ib) = partner else {
            serial(&mut jobs[ia], encrypt);
            continue;
        };
        done[ib] = true;
        let (ja, jb) = if ia < ib {
            let (l, r) = jobs.split_at_mut(ib);
            (&mut l[ia], &mut r[0])
        } else {
            let (l, r) = jobs.split_at_mut(ia);
            (&mut r[0], &mut l[ib])
        };
        let Inner::Ni(k) = &ja.key.inner else { unreachable!() };
        let (rk, nr) = k.schedule();
        let m = ja.tag.len();
        // SAFETY: both jobs use this one key schedule (`same`), a Z512 or Y256 NiKey
        // (checked in batch_window); NiKey::new makes a Z512 key only on a CPU with AVX-512
        // F/BW/VL and VAES, a Y256 key only on one with AVX2 and VAES; both AADs are 15..=30
        // octets and the lengths and `m` passed `check`.
        let full = unsafe {
            let (n, a, d) = ([&ja.nonce, &jb.nonce], [ja.aad, jb.aad], [&mut *ja.data, &mut *jb.data]);
            if k.level() == aesni::Level::Z512 {
                eccmz::run_pair(rk, nr as u8, m, n, a, d, encrypt)
            } else {
                eccmz::run_pair_y(rk, nr as u8, m, n, a, d, encrypt)
            }
        };
        count_mb_run(if k.level() == aesni::Level::Z512 { Backend::Avx512 } else { Backend::Vaes256 });
        for (j, t) in [ja, jb].into_iter().zip(full) {
            if encrypt {
                j.tag.copy_from_slice(&t[..m]);
                j.status = Ok(());
            } else if tag_eq(&t[..m], j.tag) {
                j.status = Ok(());
            } else {
                // Put the ciphertext back (CTR is its own inverse).
                k.ctr_xor(&j.nonce, j.data);
                j.status = Err(Error::MicFailure);
            }
        }
    }
}

// ---- AES-GCM (GCMP, BIP-GMAC) on the same backends ----

/// Expanded AES-128 or AES-256 key for GCM (12-octet IV, 16-octet tag) on a [`Backend`]:
/// the x86 backends run wsec's CTR + GHASH kernel (AES-NI + PCLMULQDQ, or VAES +
/// VPCLMULQDQ on 256/512-bit registers); `Portable` runs RustCrypto `aes-gcm`. Key
/// material zeroized on drop.
#[derive(Clone)]
pub struct GcmKey {
    inner: GInner,
}

#[derive(Clone)]
enum GInner {
    #[cfg(target_arch = "x86_64")]
    Ni(Box<gcm::NiGcm>),
    P128(Box<aes_gcm::Aes128Gcm>),
    P256(Box<aes_gcm::Aes256Gcm>),
}

impl fmt::Debug for GcmKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GcmKey").field("aes", &self.key_bits()).field("backend", &self.backend().name()).finish_non_exhaustive()
    }
}

impl GcmKey {
    /// A key on the backend [`current`] names; `Err(Error::BadKeyLength)` unless 16 or 32 octets.
    pub fn new(key: &[u8]) -> Result<GcmKey> {
        if key.len() != 16 && key.len() != 32 {
            return Err(Error::BadKeyLength);
        }
        Self::with(key, current()?)
    }

    /// A key on backend `b`; `Err(Error::Unsupported)` if the CPU cannot run it.
    pub fn with(key: &[u8], b: Backend) -> Result<GcmKey> {
        use aes_gcm::KeyInit;
        if key.len() != 16 && key.len() != 32 {
            return Err(Error::BadKeyLength);
        }
        b.check()?;
        #[cfg(target_arch = "x86_64")]
        if let Some(level) = b.level() {
            return Ok(GcmKey { inner: GInner::Ni(Box::new(gcm::NiGcm::new(key, level)?)) });
        }
        Ok(GcmKey {
            inner: if key.len() == 16 {
                GInner::P128(Box::new(aes_gcm::Aes128Gcm::new_from_slice(key).map_err(|_| Error::BadKeyLength)?))
            } else {
                GInner::P256(Box::new(aes_gcm::Aes256Gcm::new_from_slice(key).map_err(|_| Error::BadKeyLength)?))
            },
        })
    }

    pub fn backend(&self) -> Backend {
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            GInner::Ni(k) => match k.level() {
                aesni::Level::Ni => Backend::AesNi,
                aesni::Level::Y256 => Backend::Vaes256,
                aesni::Level::Z512 => Backend::Avx512,
            },
            GInner::P128(_) | GInner::P256(_) => Backend::Portable,
        }
    }

    pub fn key_bits(&self) -> u32 {
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            GInner::Ni(k) => k.key_bits(),
            GInner::P128(_) => 128,
            GInner::P256(_) => 256,
        }
    }

    /// Encrypts `data` in place and returns the 16-octet tag. `Err(Error::Oversize)` past
    /// 2^30 octets of payload or AAD (nothing written then).
    pub fn seal_in_place(&self, iv: &[u8; 12], aad: &[u8], data: &mut [u8]) -> Result<[u8; 16]> {
        use aes_gcm::aead::AeadInPlace;
        #[cfg(target_arch = "x86_64")]
        gcm::check_len(aad, data.len())?;
        let n = aes_gcm::Nonce::from_slice(iv);
        Ok(match &self.inner {
            #[cfg(target_arch = "x86_64")]
            GInner::Ni(k) => {
                let mut t = [0u8; 16];
                k.seal(iv, aad, data, &mut t);
                t
            }
            GInner::P128(k) => k.encrypt_in_place_detached(n, aad, data).map_err(|_| Error::Oversize)?.into(),
            GInner::P256(k) => k.encrypt_in_place_detached(n, aad, data).map_err(|_| Error::Oversize)?.into(),
        })
    }

    /// Decrypts `data` in place if the 16-octet `tag` verifies (constant-time compare);
    /// else `Err(Error::MicFailure)` with `data` holding the ciphertext it was given.
    pub fn open_in_place(&self, iv: &[u8; 12], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        use aes_gcm::aead::AeadInPlace;
        if tag.len() != 16 {
            return Err(Error::Truncated);
        }
        #[cfg(target_arch = "x86_64")]
        gcm::check_len(aad, data.len())?;
        let n = aes_gcm::Nonce::from_slice(iv);
        let t = aes_gcm::Tag::from_slice(tag);
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            GInner::Ni(k) => {
                let mut c = [0u8; 16];
                k.open(iv, aad, data, &mut c);
                if tag_eq(&c[..], tag) {
                    return Ok(());
                }
                k.ctr(iv, data);
                Err(Error::MicFailure)
            }
            GInner::P128(k) => k.decrypt_in_place_detached(n, aad, data, t).map_err(|_| Error::MicFailure),
            GInner::P256(k) => k.decrypt_in_place_detached(n, aad, data, t).map_err(|_| Error::MicFailure),
        }
    }

    /// GMAC (GCM with an empty payload) over `aad`: BIP-GMAC's MIC.
    pub fn gmac(&self, iv: &[u8; 12], aad: &[u8]) -> Result<[u8; 16]> {
        self.seal_in_place(iv, aad, &mut [])
    }
}

/// One message of a GCM batch ([`gcm_seal_batch`], [`gcm_open_batch`]).
pub struct GcmJob<'a> {
    pub key: &'a GcmKey,
    pub iv: [u8; 12],
    pub aad: &'a [u8],
    pub data: &'a mut [u8],
    /// Seal writes the tag here; open reads it.
    pub tag: &'a mut [u8; 16],
    pub status: Result<()>,
}

impl<'a> GcmJob<'a> {
    pub fn new(key: &'a GcmKey, iv: [u8; 12], aad: &'a [u8], data: &'a mut [u8], tag: &'a mut [u8; 16]) -> Self {
        GcmJob { key, iv, aad, data, tag, status: Ok(()) }
    }
}

/// Seals every job; byte-identical to [`GcmKey::seal_in_place`] on each in turn. GCM's CTR
/// and GHASH are parallel within a message, so jobs run one after the other on the
/// multi-block kernel of their key's backend.
pub fn gcm_seal_batch(jobs: &mut [GcmJob<'_>]) {
    for j in jobs.iter_mut() {
        j.status = j.key.seal_in_place(&j.iv, j.aad, j.data).map(|t| *j.tag = t);
    }
}

/// Opens every job (see [`gcm_seal_batch`]); a job that fails keeps its ciphertext.
pub fn gcm_open_batch(jobs: &mut [GcmJob<'_>]) {
    for j in jobs.iter_mut() {
        j.status = j.key.open_in_place(&j.iv, j.aad, j.data, &j.tag[..]);
    }
}

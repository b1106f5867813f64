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
//! block each for B0 and the AAD. For the numbers see `benches/ccm.rs`
//! (`cargo bench -p wsec --bench ccm`). A single message cannot go below that floor; only
//! interleaving several independent messages could.
//!
//! # Backends
//! Chosen once per process by runtime CPU detection (see [`backend`]):
//! - `"vaes-avx512"`: the same kernel compiled with AVX-512VL/VAES enabled (32 vector
//!   registers, EVEX encodings; the failure path's keystream restore uses 512-bit VAES, four
//!   blocks per instruction). Measured on AMD EPYC (Zen 4 class) it is as fast as `"aesni"`,
//!   not faster: the serial chain, not instruction throughput, is the limit.
//! - `"aesni"`: AES-NI + SSE4.1.
//! - `"portable"`: the RustCrypto `aes` crate's block cipher (which has its own
//!   constant-time software implementation and its own AES-NI/ARMv8 detection).
//!
//! [`CcmKey::new_portable`] forces the portable backend (for cross-checks in tests).
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

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Backend {
    #[cfg(target_arch = "x86_64")]
    VaesAvx512,
    #[cfg(target_arch = "x86_64")]
    AesNi,
    Portable,
}

fn detect() -> Backend {
    static CHOICE: std::sync::OnceLock<Backend> = std::sync::OnceLock::new();
    *CHOICE.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if aesni::has_vaes_avx512() {
                return Backend::VaesAvx512;
            }
            if aesni::has_aesni() {
                return Backend::AesNi;
            }
        }
        Backend::Portable
    })
}

/// Which backend runtime detection picked: `"vaes-avx512"`, `"aesni"` or `"portable"`.
pub fn backend() -> &'static str {
    match detect() {
        #[cfg(target_arch = "x86_64")]
        Backend::VaesAvx512 => "vaes-avx512",
        #[cfg(target_arch = "x86_64")]
        Backend::AesNi => "aesni",
        Backend::Portable => "portable",
    }
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
    /// Uses the backend picked by runtime detection ([`backend`]).
    pub fn new(key: &[u8]) -> Result<Self> {
        if key.len() != 16 && key.len() != 32 {
            return Err(Error::BadKeyLength);
        }
        let inner = match detect() {
            #[cfg(target_arch = "x86_64")]
            Backend::VaesAvx512 => Inner::Ni(aesni::NiKey::new(key, true)?),
            #[cfg(target_arch = "x86_64")]
            Backend::AesNi => Inner::Ni(aesni::NiKey::new(key, false)?),
            Backend::Portable => Inner::Portable(Box::new(portable::PortableKey::new(key)?)),
        };
        Ok(CcmKey { inner })
    }

    /// Like [`CcmKey::new`] but always on the portable backend (RustCrypto `aes`), so tests
    /// and benchmarks can cross-check backends on one machine.
    pub fn new_portable(key: &[u8]) -> Result<Self> {
        Ok(CcmKey {
            inner: Inner::Portable(Box::new(portable::PortableKey::new(key)?)),
        })
    }

    /// A key on a named backend (`"vaes-avx512"`, `"aesni"`, `"portable"`), for tests and
    /// benchmarks. `Err(Error::Unsupported)` if the name is unknown or the CPU lacks it.
    pub fn new_with_backend(key: &[u8], backend: &str) -> Result<Self> {
        if key.len() != 16 && key.len() != 32 {
            return Err(Error::BadKeyLength);
        }
        let inner = match backend {
            #[cfg(target_arch = "x86_64")]
            "vaes-avx512" => Inner::Ni(aesni::NiKey::new(key, true)?),
            #[cfg(target_arch = "x86_64")]
            "aesni" => Inner::Ni(aesni::NiKey::new(key, false)?),
            "portable" => Inner::Portable(Box::new(portable::PortableKey::new(key)?)),
            _ => return Err(Error::Unsupported("backend not available on this target")),
        };
        Ok(CcmKey { inner })
    }

    /// Names of the backends this CPU can run, fastest first.
    pub fn available_backends() -> Vec<&'static str> {
        let mut v = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if aesni::has_vaes_avx512() {
                v.push("vaes-avx512");
            }
            if aesni::has_aesni() {
                v.push("aesni");
            }
        }
        v.push("portable");
        v
    }

    /// Name of the backend this key runs on (same names as [`backend`]).
    pub fn backend_name(&self) -> &'static str {
        match &self.inner {
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(k) => {
                if k.vaes() {
                    "vaes-avx512"
                } else {
                    "aesni"
                }
            }
            Inner::Portable(_) => "portable",
        }
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
        if bool::from(t[..m].ct_eq(tag)) {
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

impl fmt::Debug for CcmKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CcmKey")
            .field("aes", &self.key_bits())
            .field("backend", &self.backend_name())
            .finish_non_exhaustive()
    }
}

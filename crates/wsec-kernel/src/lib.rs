//! wsec-kernel: wsec's SIMD kernels behind safe key types and safe functions.
//!
//! - [`aead`]: AES-CCM (CCMP, IEEE 802.11-2020 12.5.3; RFC 3610) and AES-GCM (GCMP and
//!   BIP-GMAC, 12.5.5 and 12.5.6; NIST SP 800-38D): [`aead::CcmKey`] and [`aead::GcmKey`],
//!   one message at a time or in batches ([`aead::seal_batch`], [`aead::gcm_seal_batch`]),
//!   and the Enhanced CCMP lane MACs.
//! - [`pbkdf2`]: PBKDF2-HMAC-SHA1 (RFC 8018 5.2) and the passphrase-to-PSK mapping of
//!   Annex J.4.1, one passphrase or a batch.
//! - [`error`]: the error type of the whole stack (`wsec-base`'s, `wsec::Error`), so
//!   kernel results reach the protocol code without conversion.
//!
//! # Backends
//! Chosen at run time by CPU features (CPUID), fastest first, or forced; forcing one the
//! CPU lacks is an error, never a silent fallback.
//! - AES-CCM/GCM ([`aead::Backend`]; forced per key, per thread, per process or by the
//!   environment variable `WSEC_BACKEND`): `avx512` (AVX-512VL/BW + VAES + VPCLMULQDQ,
//!   512-bit multi-buffer batches), `vaes256` (AVX2 + VAES + VPCLMULQDQ on 256-bit
//!   registers), `aesni` (AES-NI + PCLMULQDQ + SSE4.1) and `portable` (RustCrypto `aes` and
//!   `aes-gcm`, any CPU).
//! - PBKDF2 ([`pbkdf2::Backend`]): SHA-NI chains in lockstep, AVX-512 and AVX2 multi-buffer
//!   SHA-1, their SHA-NI + AVX-512 mix, and a portable scalar SHA-1.
//!
//! Every backend gives the same bytes and the same refusals; they differ in speed only.
//!
//! # Unsafe code
//! Of the protocol stack (wsec and this crate), only this crate has `unsafe` code (wsec is
//! `#![forbid(unsafe_code)]`): the x86_64 intrinsics and `#[target_feature]` functions of
//! the kernels. Every public item is safe: a kernel runs only on a key or backend whose CPU
//! features were checked when it was made, and every length is checked before a kernel
//! reads or writes through a pointer. Each `unsafe` block carries its `SAFETY` argument.
#![forbid(unsafe_op_in_unsafe_fn)]

pub mod aead;
pub mod bytes;
/// The error type of the whole stack (`wsec-base`'s).
pub use wsec_base::error;
pub mod pbkdf2;

pub use error::{Error, Result};

//! wsec: IEEE 802.11 link security, byte-exact and fast.
//!
//! Module map (one hop to any protocol element):
//! - [`capture`]: reading pcap/pcapng captures and their radio headers.
//! - [`wire`]: frame formats (MAC header, CCMP/GCMP/TKIP/WEP security headers, MME, LLC/SNAP).
//! - [`cipher`]: per-MPDU protection, IEEE 802.11-2020 clause 12.5 (WEP, TKIP, CCMP, GCMP, BIP);
//!   its AES-CCM/GCM kernels ([`cipher::kernel`]) are crate `wsec-kernel`'s.
//! - [`link`]: security associations: keys by Key ID, PN generation, replay detection,
//!   fragment reassembly, TKIP MIC-failure tracking.
//! - [`decrypt`]: the capture decryption engine behind `wsec decrypt`.
//! - [`eap`]: EAP for 802.1X: packets, the peer a station runs, EAP-TLS on rustls.
//! - [`rsn`]: RSN key management: key hierarchy, EAPOL-Key, RSN element, handshakes.
//! - [`node`]: the live system's AP and STA as sans-IO cores, the host crypto engine.
//! - [`radius`]: RADIUS for the 802.1X authenticator (packets, authenticators, MSK keys, client).
//! - [`input`]: whole-file reads with a size limit, strict hex text.
//!
//! This crate does no I/O of its own: no sockets, no clock, no threads (the engine's crypto
//! threads are an [`node::engine::Parallel`] handed in), and randomness comes from an RNG
//! handed in ([`rand_core::CryptoRngCore`]). Around it: `wsec-live` (the medium, TAP, the
//! thread pool and the run loop), `wsec-model` (the WLAN simulator) and `wsec-bench` (the
//! seed papers' benchmarks).
//!
//! No `unsafe` code: the SIMD kernels (AES-CCM/GCM, PBKDF2's SHA-1) are in `wsec-kernel`,
//! behind safe key types and functions.
#![forbid(unsafe_code)]

pub mod capture;
pub mod cipher;
pub mod decrypt;
pub mod eap;
/// The error type every parser, cipher and kernel returns (crate `wsec-base`'s).
pub use wsec_base::error;
pub mod link;
pub mod node;
pub mod radius;
pub mod rng;
pub mod rsn;
pub mod wire;

pub use error::{Error, Result};
/// The RNG interface the cores take (RustCrypto's; [`rng`]).
pub use rand_core::CryptoRngCore;
/// Whole-file reads with a size limit and strict hex text (`wsec-base`).
pub use wsec_base::input;

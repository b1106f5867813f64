//! wsec: IEEE 802.11 link security, byte-exact and fast.
//!
//! Module map (one hop to any protocol element):
//! - [`capture`]: reading pcap/pcapng captures and their radio headers.
//! - [`wire`]: frame formats (MAC header, CCMP/GCMP/TKIP/WEP security headers, MME, LLC/SNAP).
//! - [`cipher`]: per-MPDU protection, IEEE 802.11-2020 clause 12.5 (WEP, TKIP, CCMP, GCMP, BIP)
//!   and the fused AES-CCM kernel.
//! - [`link`]: security associations: keys by Key ID, PN generation, replay detection,
//!   fragment reassembly, TKIP MIC-failure tracking.
//! - [`decrypt`]: the capture decryption engine behind `wsec decrypt`.
//! - [`rsn`]: RSN key management: key hierarchy, EAPOL-Key, RSN element, handshakes.
//! - [`node`]: the live system's AP and STA as sans-IO cores, the host crypto engine, config files.
//! - [`medium`]: the wireless medium (the `air` hub, raw packet sockets, recording) and the host's TAP.
#![forbid(unsafe_op_in_unsafe_fn)]

pub mod error;
pub mod wire;
pub mod capture;
pub mod cipher;
pub mod decrypt;
pub mod link;
pub mod rsn;
pub mod node;
pub mod medium;

pub use error::{Error, Result};

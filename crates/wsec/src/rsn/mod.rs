//! RSN key management, IEEE 802.11-2020 clause 12.7.
//!
//! - [`akm`]: AKM suites and what they imply (KDF hash, descriptor version, key lengths).
//! - [`kdf`]: PRF-SHA1, KDF-SHA256/384, PTK derivation and split, PMKID, GTK/IGTK.
//! - [`ft`]: the FT key hierarchy (PMK-R0, PMK-R1, FT PTK).
//! - [`pbkdf2`]: passphrase to PMK (PBKDF2-HMAC-SHA1 x4096), SHA-NI and multi-buffer
//!   (crate `wsec-kernel`).
//! - [`keywrap`]: AES Key Wrap (RFC 3394) and the RC4 Key Data encryption of descriptor 1.
//! - [`eapol`]: EAPOL-Key frames (wire format) and their MIC.
//! - [`kde`]: Key Data: KDEs (GTK, IGTK, BIGTK, MAC address, PMKID) and elements.
//! - [`ie`]: the RSN element and the WPA1 vendor element, negotiation.
//! - [`owe`]: OWE (RFC 8110): the DH element, PMK and PMKID.
//! - [`sae`]: SAE (12.4): commit, confirm, both PWE derivations, the state machine.
//! - [`handshake`]: the 4-way and group key handshakes, sans-IO and KRACK-safe.
pub mod akm;
pub mod eapol;
pub mod ft;
pub mod handshake;
pub mod ie;
pub mod kde;
pub mod kdf;
pub mod keywrap;
pub mod owe;
pub mod rrb;
/// Passphrase to PSK (Annex J.4.1): crate `wsec-kernel`'s [`wsec_kernel::pbkdf2`].
pub use wsec_kernel::pbkdf2;
pub mod sae;
pub mod tdls;

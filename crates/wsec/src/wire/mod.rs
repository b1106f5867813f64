//! Frame formats, smoltcp style: a zero-copy view over bytes plus a `Repr` with
//! `parse`/`emit`.
//!
//! - [`mac`]: the MAC header (9.2.3-9.2.4), all types and To DS/From DS combinations.
//! - [`sechdr`]: the CCMP/GCMP header (12.5.3.2, 12.5.5.2), the TKIP IV/Extended IV
//!   (12.5.2.2) and the WEP IV/Key ID (12.5.1.2).
//! - [`mme`]: the Management MIC element (9.4.2.53).
//! - [`llc`]: LLC/SNAP encapsulation of MSDUs (IEEE 802.2, RFC 1042).
//! - [`s1g`]: the S1G Beacon header (802.11ah), which BIP protects with a BIGTK.
pub mod llc;
pub mod mac;
pub mod mme;
pub mod s1g;
pub mod sechdr;

pub use mac::{FrameControl, FrameType, Header, HeaderRepr, MacAddr, QosControl, SeqControl};

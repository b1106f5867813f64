//! Frame formats, smoltcp style: a zero-copy view over bytes plus a `Repr` with
//! `parse`/`emit`.
//!
//! - [`mac`]: the MAC header (9.2.3-9.2.4), all types and To DS/From DS combinations, and
//!   [`MacAddr`].
//! - [`mgmt`]: management frame bodies (9.3.3) and their fixed fields (9.4.1): status and
//!   reason codes, capability, authentication algorithm, Action categories.
//! - [`element`]: elements (9.4.2): IDs, a bounded iterator, the Timeout Interval element.
//! - [`ethernet`]: EtherTypes and the Ethernet II frame of the host side.
//! - [`sechdr`]: the CCMP/GCMP header (12.5.3.2, 12.5.5.2), the TKIP IV/Extended IV
//!   (12.5.2.2) and the WEP IV/Key ID (12.5.1.2).
//! - [`mme`]: the Management MIC element (9.4.2.53).
//! - [`llc`]: LLC/SNAP encapsulation of MSDUs (IEEE 802.2, RFC 1042).
//! - [`amsdu`]: the A-MSDU and its subframes (9.3.2.2), several MSDUs in one QoS Data MPDU.
//! - [`s1g`]: the S1G Beacon header (802.11ah), which BIP protects with a BIGTK.
//! - [`rrm`]: the Neighbor Report element and the Neighbor Report Request/Response frames
//!   (9.4.2.36, 9.6.6.6-9.6.6.7), the RM Enabled Capabilities element.
//! - [`wnm`]: the BSS Transition Management Query/Request/Response frames (9.6.13.8-10).
pub mod amsdu;
pub mod element;
pub mod ethernet;
pub mod ht;
pub mod llc;
pub mod mac;
pub mod mgmt;
pub mod mme;
pub mod rrm;
pub mod s1g;
pub mod sechdr;
pub mod wmm;
pub mod wnm;

pub use ethernet::EtherType;
pub use mac::{FrameControl, FrameType, Header, HeaderRepr, MacAddr, Mpdu, QosControl, SeqControl};
pub use mgmt::{ReasonCode, StatusCode};

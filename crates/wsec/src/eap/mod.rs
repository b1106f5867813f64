//! EAP (RFC 3748) for IEEE 802.1X: the packet format and the peer a station runs.
//!
//! - [`packet`]: EAP packets and method numbers.
//! - [`peer`]: the peer state machine (Identity, Notification, Nak, Success/Failure)
//!   around one method, with the MSK it yields.
//! - [`mschapv2`]: MS-CHAPv2 (RFC 2759), its MPPE keys (RFC 3079) and EAP-MSCHAPv2.
//! - [`peap`]: PEAPv0 with EAP-MSCHAPv2 inside, its Result and Crypto-Binding TLVs.
//! - [`ttls`]: EAP-TTLS phase 2 AVPs: PAP and MS-CHAP-V2 (RFC 5281).
//! - [`tls`]: EAP-TLS (RFC 5216 with TLS 1.2, RFC 9190 with TLS 1.3) on rustls, its
//!   fragmentation and its key derivation; server certificate validation as
//!   wpa_supplicant's `ca_cert`, `domain_match`, `domain_suffix_match`.
//! - [`ocsp`]: the server certificate's stapled OCSP status (wpa_supplicant `ocsp=`).
pub mod mschapv2;
pub mod ocsp;
pub mod packet;
pub mod peap;
pub mod peer;
pub mod tls;
pub mod ttls;

pub use mschapv2::Password;
pub use packet::{method, Code, Packet};
pub use peap::CryptoBinding;
pub use peer::{MethodConfig, Peer, PeerConfig, PeerEvent, PeerState, TtlsInner};

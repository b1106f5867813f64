//! Security associations and what a link needs around the ciphers.
//!
//! - [`pn`]: transmit PN/TSC/IPN/IV generation that never repeats and fails closed.
//! - [`replay`]: per-TID and management receive replay counters (12.5.3.4.4).
//! - [`defrag`]: bounded, key- and PN-consistent fragment reassembly (10.6).
//! - [`mic_failure`]: TKIP MIC-failure reporting and countermeasures (12.5.2.4).
//! - [`sa`]: the security association: keys by Key ID (Extended Key ID), transmit PN
//!   allocation, the receive path from key selection to replay update.
pub mod defrag;
pub mod mic_failure;
pub mod pn;
pub mod replay;
pub mod sa;

//! Simultaneous Authentication of Equals (IEEE 802.11-2020 12.4), sans-IO.
//!
//! - [`group`]: the ECC groups 19/20/21, the password element by hunting-and-pecking
//!   (12.4.4.2.2) and by hash-to-element (12.4.4.2.3, SSWU of RFC 9380), commit values,
//!   validation and k.
//! - [`exchange`]: one protocol instance's cryptography: commit, k, KCK/PMK/PMKID
//!   (12.4.5.4), confirm (12.4.5.5-6), reflection check.
//! - [`msg`]: the Commit and Confirm bodies of Authentication frames (12.4.7).
//! - [`sm`]: the protocol instance's state machine (12.4.8): Nothing, Committed,
//!   Confirmed, Accepted, retransmission and the Sync limit, anti-clogging tokens
//!   (12.4.6), rejected groups.
//! - [`kdf`]: HMAC/HKDF/KDF over SHA-256/384/512.
pub mod exchange;
pub mod group;
pub mod kdf;
pub mod msg;
pub mod sm;

pub use exchange::{Exchange, SaeKeys};
pub use group::Group;
pub use sm::{AntiClogging, Credentials, Instance, Output, PweMethod, Role, SaeConfig, State};

/// Authentication algorithm number of SAE (9.4.1.1).
pub const AUTH_ALG_SAE: u16 = 3;

/// Status codes SAE uses (9.4.1.9, Table 9-50).
pub mod status {
    pub const SUCCESS: u16 = 0;
    pub const UNSPECIFIED_FAILURE: u16 = 1;
    /// Authentication rejected because of challenge failure: a Confirm that does not
    /// verify (hostapd's answer to a wrong password).
    pub const CHALLENGE_FAIL: u16 = 15;
    pub const ANTI_CLOGGING_TOKEN_REQUIRED: u16 = 76;
    pub const FINITE_CYCLIC_GROUP_NOT_SUPPORTED: u16 = 77;
    pub const UNKNOWN_PASSWORD_IDENTIFIER: u16 = 123;
    /// The commit uses hash-to-element (12.4.7.1).
    pub const SAE_HASH_TO_ELEMENT: u16 = 126;
    pub const SAE_PK: u16 = 127;
}

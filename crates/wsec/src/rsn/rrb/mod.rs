//! Key distribution between access points of one mobility domain, in hostapd's RRB format
//! (IEEE 802.11-2020 13.10, Remote request broker; hostapd 2.10 `src/ap/wpa_auth_ft.c`).
//!
//! The standard defines the FT key hierarchy (12.7.1.6) and the key holders that keep it
//! (13.2: the R0KH holds a station's PMK-R0, each R1KH the PMK-R1 derived for it) but
//! leaves the transport of PMK-R1s between them out of scope. This module speaks the one
//! hostapd speaks, so a wsec AP and a hostapd AP can share a mobility domain:
//!
//! - [`wire`]: the Ethernet encapsulations (89-0D for FT over the DS, 88-B7 with OUI
//!   00-13-74 for the key-holder messages), the TLV lists, AES-SIV (RFC 5297) with
//!   hostapd's associated data, and the keys of `r0kh=`/`r1kh=` lines.
//! - [`msg`]: PULL, RESP, PUSH, SEQ_REQ and SEQ_RESP as typed values, `open`/`emit`.
//! - [`seq`]: the sequence-number replay protection and its SEQ_REQ/SEQ_RESP resync.
//! - [`holder`]: the sans-IO key holders [`R0kh`], [`R1kh`] and [`KeyHolder`].
pub mod holder;
pub mod msg;
pub mod seq;
pub mod wire;

pub use holder::{KeyHolder, PmkR0Entry, PmkR1Entry, R0kh, R1kh, RemoteR0kh, RemoteR1kh, RrbEvent, RrbOutput};
pub use msg::{Msg, Session};
pub use wire::{KhFrame, OverDs, PacketType, RkhKey};

/// Lowercase hex of a short value, for events and `Debug` (names, never keys).
pub(crate) struct Hex<'a>(pub &'a [u8]);

impl core::fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl core::fmt::Debug for Hex<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(self, f)
    }
}

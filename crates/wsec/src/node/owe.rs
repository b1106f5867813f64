//! OWE in the AP and STA cores (RFC 8110; IEEE 802.11-2020 12.6.3 with AKM 00-0F-AC:18):
//! the settings as hostapd and wpa_supplicant spell them (`owe_groups`, `owe_group`,
//! `owe_only`, `owe_transition_bssid`/`owe_transition_ssid`, `ignore_broadcast_ssid`) and
//! the AKM each Diffie-Hellman group runs the 4-way handshake with. The exchange itself
//! is [`crate::rsn::owe`]; the AP side is `ap/owe.rs`, the station side `sta/owe.rs`.

use crate::rsn::akm::Akm;
use crate::rsn::sae::Group;
use crate::wire::mac::MacAddr;

/// The groups an AP accepts by default (hostapd: every group when `owe_groups` is unset).
pub const DEFAULT_GROUPS: [u16; 3] = [19, 20, 21];

/// The other BSS of an OWE transition pair (hostapd `owe_transition_bssid` and
/// `owe_transition_ssid`): advertised in the OWE Transition Mode element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OweTransition {
    pub bssid: MacAddr,
    pub ssid: Vec<u8>,
}

impl OweTransition {
    /// The OWE Transition Mode element naming this BSS.
    pub fn element(&self) -> Vec<u8> {
        crate::rsn::owe::transition_element(&self.bssid.0, &self.ssid)
    }
}

/// The group of an `owe_groups` / `owe_group` number (19, 20, 21; RFC 8110 4.3).
pub fn group(id: u16) -> Option<Group> {
    Group::from_id(id).filter(|_| matches!(id, 19..=21))
}

/// The handshake's AKM for a PMK from OWE: the hash follows the group and shows in the PMK
/// length (hostapd `wpa_pmk_to_ptk`: 32 SHA-256, 48 SHA-384, 64 SHA-512).
pub fn akm_for_pmk(pmk: &[u8]) -> Option<Akm> {
    match pmk.len() {
        32 => Some(Akm::Owe),
        48 => Some(Akm::OweSha384),
        64 => Some(Akm::OweSha512),
        _ => None,
    }
}

/// wpa_supplicant's group order with `owe_group=0`: 19, then 20 and 21 after status 77.
pub fn next_group(tried: u16) -> Option<u16> {
    match tried {
        19 => Some(20),
        20 => Some(21),
        _ => None,
    }
}

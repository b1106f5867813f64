//! SAE authentication in the AP and STA cores (IEEE 802.11-2020 12.4; Authentication
//! algorithm 3): the settings as hostapd and wpa_supplicant spell them, the Authentication
//! frames that carry Commit and Confirm, and the RSN Extension element's SAE hash-to-element
//! bit (9.4.2.241). The protocol itself is [`crate::rsn::sae`].

use crate::rsn::sae::{Credentials, Group, PweMethod, SaeConfig};
use crate::wire::mac::{mgmt_subtype, MacAddr, Mpdu};
use crate::wire::mgmt::{AuthAlgorithm, AuthRepr, StatusCode};
use zeroize::Zeroizing;

/// Element ID of the RSN Extension element (RSNXE, 9.4.2.241).
pub const EID_RSNXE: u8 = 244;
/// RSNXE Extended RSN Capabilities bit 5: SAE hash-to-element (9.4.2.241).
pub const RSNXE_SAE_H2E: u8 = 1 << 5;

/// One `sae_password` line: `password[|mac=aa:bb:cc:dd:ee:ff][|id=identifier]` (hostapd),
/// or a station's `sae_password` / `sae_password_id`.
#[derive(Clone)]
pub struct SaePassword {
    pub password: Zeroizing<Vec<u8>>,
    pub identifier: Option<Vec<u8>>,
    /// Only for this station (hostapd `|mac=`); `None`: any station.
    pub mac: Option<MacAddr>,
}

impl core::fmt::Debug for SaePassword {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SaePassword {{ mac: {:?}, identifier: {} }}", self.mac, self.identifier.is_some())
    }
}

/// SAE settings of a BSS or network block.
#[derive(Debug, Clone)]
pub struct SaeSettings {
    pub passwords: Vec<SaePassword>,
    /// `sae_groups` (default 19).
    pub groups: Vec<Group>,
    /// `sae_pwe` (default 0: hunting-and-pecking, as hostapd's default).
    pub pwe: PweMethod,
    /// `sae_anti_clogging_threshold` (AP; default 5, hostapd's): open SAE exchanges beyond
    /// which a commit must carry a token.
    pub anti_clogging_threshold: usize,
    /// `sae_sync` (dot11RSNASAESync; default 3, hostapd's).
    pub sync: u16,
}

impl SaeSettings {
    pub fn new(passwords: Vec<SaePassword>) -> SaeSettings {
        SaeSettings { passwords, groups: vec![Group::P256], pwe: PweMethod::HuntingAndPecking, anti_clogging_threshold: 5, sync: 3 }
    }

    /// The password for `peer`: one bound to its address first, else one for any station
    /// (hostapd `sae_get_password`).
    pub fn password_for(&self, peer: &MacAddr) -> Option<&SaePassword> {
        self.passwords.iter().find(|p| p.mac == Some(*peer)).or_else(|| self.passwords.iter().find(|p| p.mac.is_none()))
    }

    pub fn credentials(p: &SaePassword) -> Credentials {
        Credentials { password: p.password.to_vec(), identifier: p.identifier.clone() }
    }

    /// The state machine's settings; `retrans_ms` is dot11RSNASAERetransPeriod.
    pub fn sm_config(&self, retrans_ms: u64) -> SaeConfig {
        SaeConfig { groups: self.groups.clone(), retrans_ms, sync_limit: self.sync }
    }

    /// Whether the BSS advertises hash-to-element (`sae_pwe=1|2`).
    pub fn offers_h2e(&self) -> bool {
        self.pwe != PweMethod::HuntingAndPecking
    }
}

/// The RSNXE an AP with hash-to-element advertises: one octet of capabilities (field
/// length 0 in bits 0-3, SAE H2E in bit 5).
pub fn rsnxe_h2e() -> Vec<u8> {
    vec![EID_RSNXE, 1, RSNXE_SAE_H2E]
}

/// Whether an RSNXE (whole element) has the SAE hash-to-element bit.
pub fn rsnxe_has_h2e(rsnxe: Option<&[u8]>) -> bool {
    rsnxe.is_some_and(|e| e.len() >= 3 && e[0] == EID_RSNXE && e[2] & RSNXE_SAE_H2E != 0)
}

/// An Authentication frame of algorithm 3 with a SAE body (9.3.3.12).
pub fn auth_frame(da: &MacAddr, sa: &MacAddr, bssid: &MacAddr, seq: u16, transaction: u16, status: u16, body: &[u8]) -> Vec<u8> {
    let mut f = super::frames::auth(
        da,
        sa,
        bssid,
        seq,
        AuthRepr::new(AuthAlgorithm(crate::rsn::sae::AUTH_ALG_SAE), transaction, StatusCode(status)),
    );
    f.extend_from_slice(body);
    f
}

/// (transaction, status, SAE body) of an unprotected Authentication frame of algorithm 3
/// (9.3.3.12, 12.4.7); `None` for any other frame. The body is bounded by the SAE parser's
/// own limit.
pub fn parse_auth_frame(mpdu: &[u8]) -> Option<(u16, u16, &[u8])> {
    parse_auth_mpdu(&Mpdu::new_checked(mpdu).ok()?)
}

/// [`parse_auth_frame`] of an MPDU whose header was checked once: the Authentication body's
/// fixed fields through [`AuthRepr`], the SAE fields after them.
pub fn parse_auth_mpdu<'a>(m: &Mpdu<'a>) -> Option<(u16, u16, &'a [u8])> {
    let f = m.frame_control();
    if !f.is_mgmt() || f.subtype() != mgmt_subtype::AUTH || f.protected() {
        return None;
    }
    let body = m.payload();
    if body.len() < AuthRepr::FIXED_LEN || u16::from_le_bytes([body[0], body[1]]) != crate::rsn::sae::AUTH_ALG_SAE {
        return None;
    }
    let a = AuthRepr::parse(body).ok()?;
    Some((a.transaction, a.status.0, &body[AuthRepr::FIXED_LEN..]))
}

/// Node time (ns) in the SAE state machine's milliseconds.
pub fn ms(now_ns: u64) -> u64 {
    now_ns / 1_000_000
}

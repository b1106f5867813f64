//! Management frame protection (MFP, IEEE 802.11-2020 12.6.3, 11.13, 12.5.4/12.5.6) for
//! the live cores: the `ieee80211w` policy, the MFPC/MFPR negotiation of 12.6.3 with its
//! status codes, and the SA Query procedure of 11.13 (timers and transaction IDs).
//!
//! Once MFP is negotiated and the PTK is in place, individually addressed robust
//! management frames (Deauthentication, Disassociation, robust Action frames such as SA
//! Query) go under the pairwise key (CCMP/GCMP with the management flag in the nonce,
//! Protected bit set) and group-addressed ones under BIP with the IGTK (an MME last).
//! A receiver drops unprotected robust frames from an MFP peer: a forged
//! Deauthentication no longer disconnects anybody.
use crate::cipher::CipherSuite;
use crate::rsn::ie::{RsnCapabilities, RsnElementRepr, Suite};
use crate::wire::mgmt::StatusCode;

/// The `ieee80211w` setting (hostapd and wpa_supplicant: 0 disabled, 1 optional, 2
/// required): dot11RSNAProtectedManagementFramesActivated and dot11RSNAUnprotected
/// ManagementFramesAllowed of 12.6.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mfp {
    #[default]
    Disabled,
    Optional,
    Required,
}

impl Mfp {
    pub fn from_setting(w: u8) -> Option<Mfp> {
        match w {
            0 => Some(Mfp::Disabled),
            1 => Some(Mfp::Optional),
            2 => Some(Mfp::Required),
            _ => None,
        }
    }
    pub fn capable(self) -> bool {
        self != Mfp::Disabled
    }
    pub fn required(self) -> bool {
        self == Mfp::Required
    }
    /// The MFPC (b7) and MFPR (b6) bits of the RSN Capabilities this policy advertises.
    pub fn capabilities(self) -> RsnCapabilities {
        RsnCapabilities(0).with(RsnCapabilities::MFPC, self.capable()).with(RsnCapabilities::MFPR, self.required())
    }
}

/// The group management cipher suites BIP offers (12.5.4, 12.5.6): the suite table's
/// group-management use.
pub fn is_group_mgmt_cipher(c: CipherSuite) -> bool {
    c.uses().group_mgmt
}

/// The Group Management Cipher Suite field to put in an RSN element: absent for the
/// default BIP-CMAC-128 (9.4.2.24.1: "when the field is not present, the default is
/// BIP-CMAC-128"), which is also what hostapd and wpa_supplicant send.
pub fn group_mgmt_field(mfp: Mfp, c: CipherSuite) -> Option<Suite> {
    (mfp.capable() && c != CipherSuite::BipCmac128).then(|| Suite::from_cipher(c))
}

/// The group management cipher an RSN element names (BIP-CMAC-128 when absent).
pub fn group_mgmt_of(e: &RsnElementRepr) -> Option<CipherSuite> {
    match e.group_mgmt_cipher {
        None => Some(CipherSuite::BipCmac128),
        Some(s) => s.cipher().filter(|&c| is_group_mgmt_cipher(c)),
    }
}

fn mfpc(e: &RsnElementRepr) -> bool {
    e.capabilities.is_some_and(|c| c.mfpc())
}

fn mfpr(e: &RsnElementRepr) -> bool {
    e.capabilities.is_some_and(|c| c.mfpr())
}

/// The AP's decision on a STA's RSN element (12.6.3), once AKM and pairwise cipher are
/// chosen: `Ok(Some(group mgmt cipher))` when MFP is negotiated, `Ok(None)` when not, or
/// the status code of the refusal (as hostapd's `wpa_validate_wpa_ie`):
/// - the AP requires MFP and the STA is not MFP capable: 31 (robust management frame
///   policy violation);
/// - the STA requires MFP and the AP has it off: 31;
/// - MFP would run over a TKIP PTK: 31 (12.6.3: MFP needs CCMP/GCMP);
/// - MFP negotiated but the STA names another group management cipher: 46 (cipher
///   suite rejected because of the security policy).
pub fn ap_decide(
    ap: Mfp,
    ap_group_mgmt: CipherSuite,
    sta: &RsnElementRepr,
    pairwise: CipherSuite,
) -> Result<Option<CipherSuite>, StatusCode> {
    if ap.required() && !mfpc(sta) {
        return Err(StatusCode::ROBUST_MGMT_POLICY_VIOLATION);
    }
    if !ap.capable() && mfpr(sta) {
        return Err(StatusCode::ROBUST_MGMT_POLICY_VIOLATION);
    }
    if mfpr(sta) && !mfpc(sta) {
        return Err(StatusCode::INVALID_RSNE_CAPABILITIES);
    }
    if !(ap.capable() && mfpc(sta)) {
        return Ok(None);
    }
    if pairwise == CipherSuite::Tkip {
        return Err(StatusCode::ROBUST_MGMT_POLICY_VIOLATION);
    }
    if group_mgmt_of(sta) != Some(ap_group_mgmt) {
        return Err(StatusCode::CIPHER_REJECTED_PER_POLICY);
    }
    Ok(Some(ap_group_mgmt))
}

/// The STA's side of 12.6.3 on an AP's RSN element: `Err(())` if the STA must not
/// associate (the AP requires MFP and the STA has it off; the STA requires it and the AP
/// is not capable; the AP's group management cipher is not a BIP suite), else whether MFP
/// will be used and with which group management cipher.
#[allow(clippy::result_unit_err)]
pub fn sta_decide(sta: Mfp, ap: &RsnElementRepr) -> Result<Option<CipherSuite>, ()> {
    if mfpr(ap) && !sta.capable() {
        return Err(());
    }
    if sta.required() && !mfpc(ap) {
        return Err(());
    }
    if !(sta.capable() && mfpc(ap)) {
        return Ok(None);
    }
    group_mgmt_of(ap).map(Some).ok_or(())
}

/// dot11AssociationSAQueryMaximumTimeout (11.13, Annex C default 1000 TU): how long an SA
/// Query waits for a response before the association is taken as gone.
pub const SA_QUERY_MAX_TU: u64 = 1000;
/// dot11AssociationSAQueryRetryTimeout (Annex C default 201 TU): retransmission interval.
pub const SA_QUERY_RETRY_TU: u64 = 201;

/// An SA Query in progress (11.13): every request carries a new Transaction Identifier
/// and a response to any outstanding one ends the query.
#[derive(Debug, Clone)]
pub struct SaQuery {
    pub started: u64,
    pub next_retry: u64,
    pub ids: Vec<[u8; 2]>,
}

impl SaQuery {
    /// Starts a query at `now`; returns it and the first Transaction Identifier to send.
    pub fn start(now: u64, rng: &mut dyn rand_core::CryptoRngCore) -> (SaQuery, [u8; 2]) {
        let mut q = SaQuery { started: now, next_retry: now, ids: Vec::new() };
        let id = q.next_id(now, rng);
        (q, id)
    }

    /// A new Transaction Identifier for a (re)transmission at `now`.
    pub fn next_id(&mut self, now: u64, rng: &mut dyn rand_core::CryptoRngCore) -> [u8; 2] {
        let id = crate::rng::array::<2>(rng);
        self.ids.push(id);
        self.next_retry = now + SA_QUERY_RETRY_TU * super::TU;
        id
    }

    pub fn deadline(&self) -> u64 {
        self.started + SA_QUERY_MAX_TU * super::TU
    }

    pub fn expired(&self, now: u64) -> bool {
        now >= self.deadline()
    }

    /// The next time the query needs attention (a retry or its end).
    pub fn poll(&self) -> u64 {
        self.next_retry.min(self.deadline())
    }

    /// Whether a response with this Transaction Identifier answers this query.
    pub fn answers(&self, id: [u8; 2]) -> bool {
        self.ids.contains(&id)
    }

    /// The association comeback time to tell a STA (status 30): the rest of the query,
    /// in TUs, at least 1.
    pub fn comeback_tu(&self, now: u64) -> u32 {
        (self.deadline().saturating_sub(now).div_ceil(super::TU)).clamp(1, u32::MAX as u64) as u32
    }
}

//! The 4-way handshake and the group key handshake (IEEE 802.11-2020 12.7.6, 12.7.7) as
//! sans-IO cores: an [`Authenticator`] and a [`Supplicant`] take EAPOL frames and the
//! current time and return EAPOL frames to send, the next timer deadline and events.
//! Neither touches a socket or a clock.
//!
//! The events that end phase 3 ([`Event::InstallPtk`], [`Event::InstallGtk`],
//! [`Event::InstallIgtk`], then [`Event::Established`]) carry the negotiated keys and
//! ciphers: that is the hand-off to the host's crypto engine (`link::sa`).
//!
//! KRACK-safe by construction (Vanhoef and Piessens, CCS 2017):
//! - a key already installed is never installed again: a retransmitted message 3, a
//!   replayed or delayed group message 1 and rekey races produce the reply the peer
//!   expects but no second install event, so the link's PN and replay counters are never
//!   reset;
//! - an all-zero TK is never installed (the wpa_supplicant 2.4/2.5 key-clearing bug);
//! - replay counters only move forward, and only after a verified MIC;
//! - nonces come from the RNG the handshake is given ([`crate::rng`]; the OS CSPRNG by default).
pub mod authenticator;
mod msg;
pub mod supplicant;

pub use authenticator::Authenticator;
pub use msg::Msg;
pub use supplicant::Supplicant;

use crate::cipher::{CipherSuite, Pn};
use crate::rsn::akm::Akm;
use crate::wire::mac::MacAddr;
use zeroize::Zeroizing;

/// What both sides agree on before the handshake: the result of the (Re)Association
/// negotiation, the PMK and the elements each side announced.
#[derive(Clone)]
pub struct Config {
    pub akm: Akm,
    pub pairwise: CipherSuite,
    pub group: CipherSuite,
    /// The group management cipher when management frame protection is negotiated.
    pub group_mgmt: Option<CipherSuite>,
    pub pmk: Zeroizing<Vec<u8>>,
    /// Authenticator (AP) address.
    pub aa: MacAddr,
    /// Supplicant (STA) address.
    pub spa: MacAddr,
    /// The RSN element the AP advertises (Beacon/Probe Response): message 3 must repeat it.
    /// A WPA element (vendor element 00-50-F2:1) here makes the link WPA1: EAPOL-Key
    /// descriptor 254, no GTK in message 3, the GTK in a group key handshake.
    pub ap_rsne: Vec<u8>,
    /// The RSN (or WPA) element the STA sent in its (Re)Association Request: message 2
    /// must repeat it.
    pub sta_rsne: Vec<u8>,
    pub timers: Timers,
}

impl Config {
    /// A WPA1 (pre-RSNA WPA) link: the AP's element is the WPA vendor element.
    pub fn is_wpa1(&self) -> bool {
        crate::rsn::ie::is_wpa_element(&self.ap_rsne)
    }

    /// Whether the PTK goes under alternating Key IDs (12.6.21): both RSNEs set Extended
    /// Key ID for Individually Addressed Frames and the pairwise cipher is not TKIP.
    pub fn extended_key_id(&self) -> bool {
        let caps =
            |e: &[u8]| crate::rsn::ie::RsnElementRepr::parse(e).ok().and_then(|r| r.capabilities).is_some_and(|c| c.extended_key_id());
        !self.is_wpa1() && self.pairwise != CipherSuite::Tkip && caps(&self.ap_rsne) && caps(&self.sta_rsne)
    }
}

/// The 4-way handshake of an FT initial mobility domain association (13.4, 12.7.6 with an
/// FT AKM): the PTK comes from PMK-R1 (12.7.1.6.5); messages 2 and 3 carry PMKR1Name in
/// the RSNE and repeat the MDE and FTE of the (Re)Association Response, message 3 adds
/// the reassociation deadline and the key lifetime (Timeout Interval elements), in
/// hostapd's order (`PTKINITNEGOTIATING`).
#[derive(Clone)]
pub struct FtHandshake {
    pub pmk_r1: crate::rsn::ft::PmkR1,
    /// The MDE and FTE of the (Re)Association Response, whole.
    pub mde: Vec<u8>,
    pub fte: Vec<u8>,
    /// The authenticator's reassociation deadline (TUs) and PMK-R0 lifetime (s).
    pub reassoc_deadline_tu: u32,
    pub key_lifetime_s: u32,
}

impl FtHandshake {
    fn ptk(&self, c: &Config, anonce: &[u8; 32], snonce: &[u8; 32]) -> crate::Result<crate::rsn::kdf::Ptk> {
        crate::rsn::ft::derive_ft_ptk(c.akm, &self.pmk_r1, snonce, anonce, c.aa.0, c.spa.0, c.pairwise, 0)
    }

    /// `elems` (an RSNE, then e.g. an RSNXE) with PMKR1Name as the RSNE's PMKID.
    fn rsne_with_r1name(&self, elems: &[u8]) -> crate::Result<Vec<u8>> {
        let n = elems.get(1).map_or(0, |l| 2 + *l as usize).min(elems.len());
        let rsne = crate::rsn::ft::rsne_with_pmkid(&elems[..n], self.pmk_r1.name)?;
        Ok([rsne.as_slice(), &elems[n..]].concat())
    }
}

/// The PTK of a handshake: from PMK-R1 with FT, else from the PMK (12.7.1.3).
fn derive_handshake_ptk(c: &Config, ft: Option<&FtHandshake>, anonce: &[u8; 32], snonce: &[u8; 32]) -> crate::Result<crate::rsn::kdf::Ptk> {
    match ft {
        Some(f) => f.ptk(c, anonce, snonce),
        None => crate::rsn::kdf::derive_ptk(c.akm, &c.pmk, c.aa.as_bytes(), c.spa.as_bytes(), anonce, snonce, c.pairwise, 0),
    }
}

/// Two RSNEs equal but for their PMKID lists (hostapd and wpa_supplicant
/// `wpa_compare_rsn_ie` with FT: the PMKID is PMKR1Name in the handshake only).
fn same_rsne_but_pmkids(a: &[u8], b: &[u8]) -> bool {
    use crate::rsn::ie::RsnElementRepr;
    match (RsnElementRepr::parse(a), RsnElementRepr::parse(b)) {
        (Ok(mut x), Ok(mut y)) => {
            x.pmkids.clear();
            y.pmkids.clear();
            x == y
        }
        _ => false,
    }
}

impl core::fmt::Debug for Config {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Config")
            .field("akm", &self.akm)
            .field("pairwise", &self.pairwise)
            .field("group", &self.group)
            .field("group_mgmt", &self.group_mgmt)
            .finish_non_exhaustive()
    }
}

/// Retransmission timing (hostapd's defaults: dot11RSNAConfigPairwiseUpdateTimeout and
/// dot11RSNAConfigGroupUpdateTimeout of 1 s, and 4 tries).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timers {
    pub eapol_timeout_ns: u64,
    pub max_tries: u32,
}

impl Default for Timers {
    fn default() -> Self {
        Timers { eapol_timeout_ns: 1_000_000_000, max_tries: 4 }
    }
}

/// What a handshake core asks of its host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Install the pairwise temporal key for `cipher` under `key_id`.
    InstallPtk { tk: Zeroizing<Vec<u8>>, cipher: CipherSuite, key_id: u8 },
    /// Extended Key ID (12.6.21): install the new PTK under `key_id` for reception only;
    /// the key in force keeps transmitting until [`Event::ActivatePtk`].
    InstallPtkRx { tk: Zeroizing<Vec<u8>>, cipher: CipherSuite, key_id: u8 },
    /// Extended Key ID: transmit with the PTK under `key_id` from now on.
    ActivatePtk { key_id: u8 },
    /// Install a GTK; frames must carry a PN above `rsc`.
    InstallGtk { gtk: Zeroizing<Vec<u8>>, cipher: CipherSuite, key_id: u8, rsc: Pn },
    /// Install an IGTK (or BIGTK); frames must carry an IPN above `ipn`.
    InstallIgtk { igtk: Zeroizing<Vec<u8>>, cipher: CipherSuite, key_id: u8, ipn: Pn },
    /// The 4-way handshake completed: phase 3 is over and protected data may flow.
    Established { akm: Akm, pairwise: CipherSuite, group: CipherSuite },
    /// A group key handshake completed.
    GroupKeyDone { key_id: u8 },
    /// Message 3 carried a Transition Disable KDE with this bitmap
    /// ([`crate::rsn::kde::transition_disable`]): the STA must stop using the transition
    /// modes it names with this network.
    TransitionDisable(u8),
    /// A received EAPOL-Key frame was dropped; the text says why.
    Dropped(&'static str),
    /// The handshake gave up (no answer after the last retransmission, or a protocol
    /// violation after which the STA must be deauthenticated).
    Failed(&'static str),
}

/// The result of feeding a core one input.
#[derive(Debug, Default)]
pub struct Output {
    /// EAPOL frames (802.1X header + EAPOL-Key body) to send, in order.
    pub tx: Vec<Vec<u8>>,
    pub events: Vec<Event>,
    /// When to call `handle_timeout` next (monotonic ns), if anything is pending.
    pub deadline: Option<u64>,
}

/// 32 random octets (a nonce, or key material cut to length).
pub(crate) fn random_nonce(rng: &mut dyn rand_core::CryptoRngCore) -> [u8; 32] {
    crate::rng::array(rng)
}

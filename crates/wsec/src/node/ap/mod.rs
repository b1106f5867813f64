//! The access point core (sans-IO): beacons and probe responses, authentication,
//! association with cipher/AKM negotiation, one [`Authenticator`] per station, GTK/PTK
//! rekey, the relay between stations (decrypted with the sender's key, encrypted with the
//! receiver's: seed 002's two encryptions of the wireless-to-wireless case), the bridge
//! to the wired side (the host's TAP) and inactivity.
//!
//! The types, the constructor and the sans-IO entry points are here; `impl AccessPoint`
//! continues by concern:
//! - `mgmt`: management frame dispatch, Beacons and Probe Responses, Deauthentication
//!   and Disassociation;
//! - `assoc`: authentication, association and the RSN/WPA element negotiation;
//! - `keys`: the key handshakes, GTK/PTK rekeys;
//! - `sa_query`: protected management frames and the SA Query procedure;
//! - `data`: the data path, the relay between stations, the wired side;
//! - `control`: what the control interface reads and sets;
//! - `sae`, `owe`: SAE authentication and OWE association;
//! - `wnm`: the neighbor table, Neighbor Report Responses, BSS transition management.
use super::card::Offload;
use super::datapath::{self, Datapath, RxFrame};
use super::engine::{self, Engine};
use super::frames::SeqNum;
use super::mfp::{self, Mfp, SaQuery};
use super::{Counters, Output, Security, SEC};
use crate::cipher::CipherSuite;
use crate::link::sa::{KeyType, Role};
use crate::rsn::akm::Akm;
use crate::rsn::handshake::authenticator::GroupKeys;
use crate::rsn::handshake::{Authenticator, Timers};
use crate::rsn::ie::{RsnCapabilities, RsnElementRepr, Suite, WpaElementRepr};
use crate::wire::mac::{FrameType, MacAddr};
pub use dot1x::{Dot1xInfo, Dot1xSettings};
pub use ft::{FtDomain, FtSettings};
pub use okc::OkcGroup;
use std::collections::{BTreeMap, BTreeSet};
pub use wnm::{BtmRequestParams, Neighbor};
use zeroize::Zeroizing;

/// What the AP is configured with (the hostapd.conf keys of [`super::conf`]).
#[derive(Debug, Clone)]
pub struct ApConfig {
    pub bssid: MacAddr,
    pub ssid: Vec<u8>,
    pub channel: u8,
    pub beacon_interval_tu: u16,
    pub security: Security,
    /// GTK rekey period (hostapd `wpa_group_rekey`, s); 0: never.
    pub group_rekey_s: u64,
    /// PTK rekey period (hostapd `wpa_ptk_rekey`, s); 0: never.
    pub ptk_rekey_s: u64,
    /// Deauthenticate a station silent for this long (hostapd `ap_max_inactivity`, s).
    pub max_inactivity_s: u64,
    pub max_stations: usize,
    /// Opportunistic key caching (hostapd `okc`): take the 802.1X PMKSAs of the other BSSs
    /// of the [`OkcGroup`] this core joined.
    pub okc: bool,
    pub offload: Offload,
    /// Threads the host engine runs batch crypto on (`engine_threads`; 0: one per core).
    pub engine_threads: usize,
    pub eapol_timers: Timers,
    /// Management frame protection (hostapd `ieee80211w`).
    pub mfp: Mfp,
    /// The IGTK's cipher (hostapd `group_mgmt_cipher`), BIP-CMAC-128 by default.
    pub group_mgmt_cipher: CipherSuite,
    /// hostapd `wpa=` bit 1: offer RSN (the RSN element) with `Security::Rsn`'s pairwise
    /// ciphers. On by default.
    pub rsn: bool,
    /// hostapd `wpa=` bit 0: offer WPA1 (the WPA vendor element, EAPOL-Key descriptor
    /// 254) with these pairwise ciphers (`wpa_pairwise`: TKIP and/or CCMP). WPA-PSK only,
    /// no management frame protection; the group cipher is `Security::Rsn`'s.
    pub wpa1_pairwise: Option<Vec<CipherSuite>>,
    /// SAE (`wpa_key_mgmt` with `SAE`): passwords, groups, `sae_pwe`, anti-clogging.
    pub sae: Option<super::sae::SaeSettings>,
    /// OWE (`wpa_key_mgmt=OWE`): the Diffie-Hellman groups accepted (hostapd `owe_groups`,
    /// default 19 20 21).
    pub owe_groups: Vec<u16>,
    /// The other BSS of an OWE transition pair (`owe_transition_bssid`/`_ssid`): the open
    /// BSS names the hidden OWE BSS and the OWE BSS the open one.
    pub owe_transition: Option<super::owe::OweTransition>,
    /// hostapd `ignore_broadcast_ssid`: 0 SSID in Beacons, 1 empty SSID, 2 SSID of zeros;
    /// with 1 or 2 only Probe Requests naming the SSID are answered.
    pub ignore_broadcast_ssid: u8,
    /// hostapd `transition_disable`: the Transition Disable bitmap sent in message 3
    /// ([`crate::rsn::kde::transition_disable`]); 0: none.
    pub transition_disable: u8,
    /// Extended Key ID for Individually Addressed Frames (12.6.21; hostapd
    /// `extended_key_id`): 0 off (Key ID 0 only), 1 on when the station also sets it and
    /// the pairwise cipher is not TKIP, 2 as 1 with the first PTK under Key ID 1.
    pub extended_key_id: u8,
    /// SPP A-MSDUs (hostapd `spp_amsdu`; 9.4.2.24.4, 12.5.3.3.3): 0 off, 1 SPP A-MSDU
    /// Capable in the RSN element (SPP A-MSDUs with stations that set it too), 2 also SPP
    /// A-MSDU Required (no A-MSDUs with stations that cannot do SPP; a wsec extension).
    /// Only with a CCMP or GCMP (or ECCMP) pairwise cipher.
    pub spp_amsdu: u8,
    /// IEEE 802.1X (hostapd `ieee8021x=1` with `wpa_key_mgmt=WPA-EAP...`): the RADIUS
    /// servers and the authenticator's settings; `None` without.
    pub dot1x: Option<Dot1xSettings>,
    /// Fast BSS transition (hostapd `mobility_domain`, `nas_identifier`, ...): needed by
    /// the FT AKMs.
    pub ft: Option<FtSettings>,
    /// hostapd `bss_transition`: BSS transition management (11.22.7): Extended Capabilities
    /// b19 in Beacons, BTM Queries answered and Responses reported.
    pub bss_transition: bool,
    /// hostapd `rrm_neighbor_report`: neighbor reports (11.10.10.2): RM Enabled
    /// Capabilities in Beacons, the neighbor table, Neighbor Report Requests answered.
    pub rrm_neighbor_report: bool,
    /// The A-MSDUs taken from stations ([`super::amsdu`]): SPP and non-SPP ones behind
    /// the FragAttacks checks by default, as mac80211.
    pub amsdu_rx: super::amsdu::AmsduRx,
    /// hostapd `ieee80211n=1` with `ht_capab`: the HT Capabilities Information advertised
    /// in the HT Capabilities element, with an HT Operation element for a 20 MHz BSS
    /// (9.4.2.55, 9.4.2.56); `None` (hostapd's default): a non-HT BSS. As hostapd, HT
    /// needs WMM and a CCMP/GCMP pairwise cipher (or an open BSS); without them it is not
    /// advertised.
    pub ht_capab: Option<crate::wire::ht::HtCapInfo>,
    /// hostapd `wmm_enabled`: the WMM Parameter element; QoS Data to the stations that
    /// send the WMM Information element.
    pub wmm: bool,
    /// A-MSDU transmit to HT QoS stations ([`super::qos`]); `amsdu_tx`, on by default.
    pub amsdu_tx: bool,
    /// The longest A-MSDU sent (`amsdu_max_len`), below the station's Max A-MSDU Length
    /// when the medium carries less (a monitor interface's 2304-octet MTU).
    pub amsdu_max_len: usize,
}

impl ApConfig {
    /// An AP with hostapd's defaults around `security`.
    pub fn new(bssid: MacAddr, ssid: &[u8], security: Security) -> ApConfig {
        ApConfig {
            bssid,
            ssid: ssid.to_vec(),
            channel: 6,
            beacon_interval_tu: 100,
            security,
            group_rekey_s: 86_400,
            ptk_rekey_s: 0,
            max_inactivity_s: 300,
            max_stations: 2007,
            okc: false,
            offload: Offload::Host,
            engine_threads: 1,
            eapol_timers: Timers::default(),
            mfp: Mfp::Disabled,
            group_mgmt_cipher: CipherSuite::BipCmac128,
            rsn: true,
            wpa1_pairwise: None,
            sae: None,
            owe_groups: super::owe::DEFAULT_GROUPS.to_vec(),
            owe_transition: None,
            ignore_broadcast_ssid: 0,
            transition_disable: 0,
            extended_key_id: 0,
            spp_amsdu: 0,
            dot1x: None,
            ft: None,
            bss_transition: false,
            rrm_neighbor_report: false,
            amsdu_rx: super::amsdu::AmsduRx::default(),
            ht_capab: None,
            wmm: false,
            amsdu_tx: true,
            amsdu_max_len: usize::MAX,
        }
    }
}

/// Per-station counters at the AP (`wsec ap --counters`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct StationCounters {
    pub rx_data: u64,
    pub tx_data: u64,
    pub rx_bytes: u64,
    pub tx_bytes: u64,
    pub rx_dropped: u64,
    /// Of `rx_dropped`: replayed frames (the PN/TSC check, 12.5.3.4.4 / 12.5.2.4.4),
    /// TKIP Michael MIC failures (12.5.2.4), and every other decryption error (a CCMP or
    /// GCMP MIC, a WEP/TKIP ICV, a malformed header): the MIB's dot11RSNAStats counters.
    pub rx_replays: u64,
    pub rx_mic_failures: u64,
    pub rx_decrypt_errors: u64,
    /// Pairwise keys installed in the host engine (the first 4-way handshake and every
    /// PTK rekey).
    pub key_installs: u64,
}

/// What the AP knows about one station (hostapd's `STA` command, ctrl_iface_ap.c).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StationInfo {
    pub aid: u16,
    /// Open or shared-key authentication done.
    pub authenticated: bool,
    pub associated: bool,
    /// Data open (the 4-way handshake done, or right after association without RSN).
    pub authorized: bool,
    /// Management frame protection negotiated.
    pub mfp: bool,
    pub akm: Option<Akm>,
    pub pairwise: Option<CipherSuite>,
    /// WPA1 (the WPA element) rather than RSN.
    pub wpa1: bool,
    /// When the station associated and last sent something (the core's clock, ns).
    pub associated_at: u64,
    pub last_rx: u64,
    pub counters: StationCounters,
}

/// The settings an operator may change while the AP runs (hostapd `SET`): read from
/// [`ApConfig`] each time they are used, so a change applies from the next use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tunables {
    pub group_rekey_s: u64,
    pub ptk_rekey_s: u64,
    pub max_inactivity_s: u64,
    pub max_stations: usize,
}

/// Where a station is in authentication and association (11.3.1): each state owns the
/// data that exists only in it.
enum PeerState {
    /// Shared-key authentication (12.3.3.3): the challenge sent, frame 3 awaited.
    Challenged {
        challenge: [u8; 128],
    },
    /// A SAE exchange (12.4.8) is under way, its instance in [`Peer::sae`].
    Sae,
    Authenticated,
    /// Associated; an RSNA runs its 4-way handshake.
    Associated(Association),
    /// Data may flow (RSNA: the 4-way handshake is done).
    Established(Association),
}

/// What exists while a station is associated (11.3.5, 12.6.3).
struct Association {
    /// Management frame protection negotiated at association (12.6.3).
    mfp: bool,
    /// An SA Query (11.13) asking whether this MFP station is still there.
    sa_query: Option<SaQuery>,
    /// The key handshakes of an RSNA (none in an open or WEP BSS).
    rsna: Option<Rsna>,
}

/// The [`Authenticator`] of one RSN association (12.7) and its timers.
struct Rsna {
    auth: Authenticator,
    /// When the handshake next needs `handle_timeout` (a retransmission or a timeout).
    deadline: Option<u64>,
    /// When the next PTK rekey starts (`wpa_ptk_rekey`).
    ptk_rekey_at: Option<u64>,
}

/// What the last RSN association of a station negotiated (12.6.3); it outlives a
/// disassociation, as [`StationInfo`] reports it.
#[derive(Debug, Clone, Copy)]
struct Negotiated {
    akm: Akm,
    pairwise: CipherSuite,
    /// WPA1 (the WPA element) rather than RSN.
    wpa1: bool,
    /// SPP A-MSDUs, and A-MSDUs at all ([`AccessPoint::spp_amsdu_of`]).
    spp_amsdu: bool,
    amsdu_allowed: bool,
}

/// One station the AP has state for.
struct Peer {
    state: PeerState,
    aid: u16,
    last_rx: u64,
    associated_at: u64,
    counters: StationCounters,
    negotiated: Option<Negotiated>,
    /// The SAE protocol instance with this station (12.4.8): a new exchange runs beside
    /// an association until it is accepted (11.13).
    sae: Option<Box<crate::rsn::sae::Instance>>,
    /// The PMK of the last accepted SAE exchange (12.4.5.4), for the next association.
    sae_pmk: Option<Zeroizing<Vec<u8>>>,
    /// Our OWE key pair with this station and its group (kept for a repeated request).
    owe: Option<(u16, crate::rsn::owe::OweKeyPair)>,
    /// The IEEE 802.1X conversation with this station (802.1X AKMs).
    dot1x: Option<Box<dot1x::Session>>,
    /// An FT Authentication accepted, waiting for its Reassociation (13.5).
    ft: Option<Box<ft::FtSession>>,
    /// FT-802.1X: the XXKey from the MSK of the EAP run (12.7.1.6.3), for PMK-R0.
    ft_xxkey: Option<Zeroizing<Vec<u8>>>,
    /// The last fast BSS transition completed: its nonces and the Reassociation Response's
    /// elements, sent again to a repeated request.
    ft_done: Option<Box<ft::FtDone>>,
    /// What the station's (Re)Association Request advertised: QoS, its Max A-MSDU Length.
    qos: super::qos::PeerQos,
    /// Sequence Numbers of our QoS Data frames to it, per TID (10.3.2.14.2).
    tid_seq: super::qos::TidSeq,
}

impl PeerState {
    fn association(&self) -> Option<&Association> {
        match self {
            PeerState::Associated(a) | PeerState::Established(a) => Some(a),
            _ => None,
        }
    }

    fn association_mut(&mut self) -> Option<&mut Association> {
        match self {
            PeerState::Associated(a) | PeerState::Established(a) => Some(a),
            _ => None,
        }
    }

    /// Associated or established.
    fn is_associated(&self) -> bool {
        self.association().is_some()
    }

    fn is_established(&self) -> bool {
        matches!(self, PeerState::Established(_))
    }
}

impl Peer {
    fn new(now: u64, state: PeerState) -> Peer {
        Peer {
            state,
            aid: 0,
            last_rx: now,
            associated_at: now,
            counters: StationCounters::default(),
            negotiated: None,
            sae: None,
            sae_pmk: None,
            owe: None,
            dot1x: None,
            ft: None,
            ft_xxkey: None,
            ft_done: None,
            qos: Default::default(),
            tid_seq: Default::default(),
        }
    }

    /// Management frame protection negotiated (associated stations only).
    fn mfp(&self) -> bool {
        self.state.association().is_some_and(|a| a.mfp)
    }

    fn sa_query(&self) -> Option<&SaQuery> {
        self.state.association().and_then(|a| a.sa_query.as_ref())
    }

    fn sa_query_mut(&mut self) -> Option<&mut Option<SaQuery>> {
        self.state.association_mut().map(|a| &mut a.sa_query)
    }

    fn rsna(&self) -> Option<&Rsna> {
        self.state.association().and_then(|a| a.rsna.as_ref())
    }

    fn rsna_mut(&mut self) -> Option<&mut Rsna> {
        self.state.association_mut().and_then(|a| a.rsna.as_mut())
    }

    /// The 4-way handshake is done: the association goes on, established.
    fn establish(&mut self) {
        let state = std::mem::replace(&mut self.state, PeerState::Authenticated);
        self.state = match state {
            PeerState::Associated(a) => PeerState::Established(a),
            other => other,
        };
    }
}

/// The AP core.
pub struct AccessPoint {
    cfg: ApConfig,
    /// The RSN element advertised in Beacons and Probe Responses (whole element).
    rsne: Option<Vec<u8>>,
    /// The WPA1 element advertised (whole element), with `wpa=1` or `wpa=3`.
    wpa_ie: Option<Vec<u8>>,
    dp: Datapath,
    peers: BTreeMap<MacAddr, Peer>,
    seq: SeqNum,
    start: u64,
    next_beacon: u64,
    next_housekeeping: u64,
    group: Option<GroupKeys>,
    /// A GTK rekey in progress: the new keys and the stations that still have to answer.
    pending_group: Option<(GroupKeys, BTreeSet<MacAddr>)>,
    next_group_rekey: Option<u64>,
    /// The time of the last call in (for frames sent from calls without a clock).
    clock: u64,
    pub counters: Counters,
    /// Nonces, group keys, challenges and SA Query identifiers come from here.
    rng: crate::rng::BoxRng,
    /// Anti-clogging tokens of SAE (12.4.6).
    anti_clogging: crate::rsn::sae::AntiClogging,
    /// When `anti_clogging`'s secret was made (ns).
    anti_clogging_since: u64,
    /// PMKSAs of SAE exchanges, for stations that come back with a PMKID (12.6.10.3).
    pmksa: BTreeMap<MacAddr, sae::Pmksa>,
    /// The RADIUS client of an 802.1X AP.
    radius: Option<crate::radius::Client>,
    /// The identity, Class and method of each station's last EAP run, for the accounting
    /// and status of an association on its cached PMKSA.
    eap_cache: BTreeMap<MacAddr, dot1x::EapRun>,
    /// The PMKSAs shared with the other BSSs of this authenticator (`okc`).
    okc: Option<std::sync::Arc<OkcGroup>>,
    /// The PMK-R0s this BSS holds as R0KH (12.7.1.6.3), by PMKR0Name.
    ft_r0: BTreeMap<[u8; 16], ft::R0Entry>,
    /// The BSSs of this process sharing their PMK-R0s.
    ft_domain: Option<std::sync::Arc<FtDomain>>,
    /// The key holders speaking hostapd's RRB with the other APs of the mobility domain.
    rrb: Option<crate::rsn::rrb::KeyHolder>,
    /// FT exchanges waiting for a PMK-R1 pulled from the R0KH.
    ft_pending: BTreeMap<MacAddr, ft_rrb::PendingFt>,
    /// The Sequence Control of the last management frame from each transmitter (duplicate
    /// detection, 10.3.2.14.3).
    mgmt_rx_seq: BTreeMap<MacAddr, u16>,
    /// The neighbor table and the disassociations BSS transition requests announced.
    wnm: wnm::ApWnm,
    /// HT Capabilities and HT Operation elements of an HT BSS (empty otherwise), and the
    /// WMM Parameter element of a QoS BSS.
    ht_ies: Vec<u8>,
    wmm_ie: Vec<u8>,
    /// The A-MSDU being built ([`super::qos`]); empty when a call returns.
    agg: super::qos::Aggregator,
}

/// The RSN element an AP with `akms`, `pairwise` and `group` advertises (9.4.2.24).
pub fn ap_rsn_element(akms: &[Akm], pairwise: &[CipherSuite], group: CipherSuite) -> crate::Result<Vec<u8>> {
    ap_rsn_element_mfp(akms, pairwise, group, Mfp::Disabled, CipherSuite::BipCmac128)
}

/// The same with management frame protection (12.6.3): MFPC/MFPR in the RSN
/// Capabilities and, for a cipher other than BIP-CMAC-128, the Group Management Cipher
/// Suite field.
pub fn ap_rsn_element_mfp(
    akms: &[Akm],
    pairwise: &[CipherSuite],
    group: CipherSuite,
    mfp: Mfp,
    group_mgmt: CipherSuite,
) -> crate::Result<Vec<u8>> {
    RsnElementRepr {
        version: 1,
        group_cipher: Some(Suite::from_cipher(group)),
        pairwise: pairwise.iter().map(|&c| Suite::from_cipher(c)).collect(),
        akms: akms.iter().map(|&a| Suite::from_akm(a)).collect(),
        capabilities: Some(mfp.capabilities()),
        pmkids: vec![],
        group_mgmt_cipher: mfp::group_mgmt_field(mfp, group_mgmt),
    }
    .to_bytes()
}

/// `rsne` with Extended Key ID for Individually Addressed Frames set in its RSN
/// Capabilities (9.4.2.24.4, b13).
pub fn with_extended_key_id(rsne: &[u8]) -> crate::Result<Vec<u8>> {
    let mut e = RsnElementRepr::parse(rsne)?;
    let caps = e.capabilities.unwrap_or_default();
    e.capabilities = Some(RsnCapabilities(caps.0 | RsnCapabilities::EXTENDED_KEY_ID));
    e.to_bytes()
}

/// `rsne` with SPP A-MSDU Capable (b10) and, when `required`, SPP A-MSDU Required (b11)
/// set in its RSN Capabilities (9.4.2.24.4).
pub fn with_spp_amsdu(rsne: &[u8], required: bool) -> crate::Result<Vec<u8>> {
    let mut e = RsnElementRepr::parse(rsne)?;
    let caps = e.capabilities.unwrap_or_default();
    e.capabilities = Some(RsnCapabilities(caps.0 | RsnCapabilities::SPP_AMSDU_CAPABLE).with(RsnCapabilities::SPP_AMSDU_REQUIRED, required));
    e.to_bytes()
}

/// The WPA1 element an AP with `akms`, `pairwise` and `group` advertises (WPA v3.1; the
/// layout of hostapd's `wpa_write_wpa_ie`: no Capabilities field, the defaults apply).
/// Only PSK and the WPA1 ciphers (TKIP, CCMP) have selectors here.
pub fn ap_wpa_element(akms: &[Akm], pairwise: &[CipherSuite], group: CipherSuite) -> crate::Result<Vec<u8>> {
    let no = |_| crate::Error::Unsupported("WPA1 offers WPA-PSK with TKIP or CCMP only");
    let c = |x: CipherSuite| Suite::wpa_cipher(x).filter(|_| x.wpa1_usable()).ok_or(());
    let pairwise = pairwise.iter().map(|&x| c(x)).collect::<Result<Vec<_>, ()>>().map_err(no)?;
    let akms: Vec<Suite> = akms.iter().filter_map(|&a| Suite::wpa_akm(a).filter(|_| a == Akm::Psk)).collect();
    if akms.is_empty() || pairwise.is_empty() {
        return Err(no(()));
    }
    WpaElementRepr { version: 1, group_cipher: Some(c(group).map_err(no)?), pairwise, akms, capabilities: None }.to_bytes()
}

mod assoc;
mod control;
mod data;
mod dot1x;
mod ft;
mod ft_rrb;
mod keys;
mod mgmt;
mod okc;
mod owe;
mod sa_query;
mod sae;
mod wnm;

impl AccessPoint {
    /// Bounds the A-MSDUs sent to `len` octets of Frame Body (below `amsdu_max_len`): what
    /// the medium the node runs on carries (a monitor interface's MTU, for one).
    pub fn limit_amsdu(&mut self, len: usize) {
        self.cfg.amsdu_max_len = self.cfg.amsdu_max_len.min(len);
    }

    /// A new AP; `now` is the monotonic time (ns) it starts at.
    /// Its randomness (nonces, group keys, challenges, SA Query identifiers) comes from
    /// `rng`: the OS CSPRNG in the live system, a seeded one for a reproducible run.
    pub fn new(cfg: ApConfig, now: u64, mut rng: crate::rng::BoxRng) -> crate::Result<AccessPoint> {
        let mut engine = Engine::new(Role::Authenticator);
        let mut rsne = None;
        let mut wpa_ie = None;
        let mut group = None;
        if cfg.mfp.capable() && !matches!(cfg.security, Security::Rsn { .. }) {
            return Err(crate::Error::Unsupported("management frame protection needs an RSNA (wpa=2)"));
        }
        match &cfg.security {
            Security::Open => {}
            Security::Wep { keys, tx_key, .. } => engine.install_wep(keys, *tx_key, &mut *rng)?,
            Security::Rsn { akms, pairwise, groups, pmk } => {
                let g = *groups.first().ok_or(crate::Error::Malformed("no group cipher"))?;
                let ft_ok = |a: &Akm| a.is_ft() && cfg.ft.is_some();
                if akms.is_empty()
                    || pairwise.is_empty()
                    || akms
                        .iter()
                        .any(|a| !(a.is_psk() || *a == Akm::Sae || *a == Akm::Owe || a.is_8021x() || ft_ok(a)) || (a.is_ft() && !ft_ok(a)))
                {
                    return Err(crate::Error::Unsupported(
                        "the AP needs PSK, SAE, OWE or 802.1X AKMs (FT-PSK and FT-SAE with mobility_domain) and a pairwise cipher",
                    ));
                }
                if cfg.ft.as_ref().is_some_and(|f| f.r0kh_id.is_empty() || f.r0kh_id.len() > 48) {
                    return Err(crate::Error::Unsupported("nas_identifier (the R0KH-ID) must be 1-48 octets"));
                }
                if akms.iter().any(|a| a.is_8021x()) && cfg.dot1x.as_ref().is_none_or(|d| d.radius.auth_servers.is_empty()) {
                    return Err(crate::Error::Unsupported("WPA-EAP needs ieee8021x=1 and an auth_server_addr"));
                }
                if akms.iter().any(|a| a.is_sae()) && cfg.sae.as_ref().is_none_or(|s| s.passwords.is_empty()) {
                    return Err(crate::Error::Unsupported("SAE needs sae_password (or wpa_passphrase)"));
                }
                if akms.iter().any(|a| a.is_psk()) && pmk.len() != 32 {
                    return Err(crate::Error::BadKeyLength);
                }
                let mgmt = cfg.mfp.capable().then_some((cfg.group_mgmt_cipher, 4));
                if mgmt.is_some() {
                    if !mfp::is_group_mgmt_cipher(cfg.group_mgmt_cipher) {
                        return Err(crate::Error::Unsupported("group_mgmt_cipher must be a BIP suite"));
                    }
                    if pairwise.iter().all(|&c| c == CipherSuite::Tkip) {
                        return Err(crate::Error::Unsupported("management frame protection needs a CCMP or GCMP pairwise cipher"));
                    }
                }
                if let Some(w) = &cfg.wpa1_pairwise {
                    wpa_ie = Some(ap_wpa_element(akms, w, g)?);
                } else if !cfg.rsn {
                    return Err(crate::Error::Unsupported("neither RSN nor WPA offered"));
                }
                if cfg.rsn {
                    let mut e = ap_rsn_element_mfp(akms, pairwise, g, cfg.mfp, cfg.group_mgmt_cipher)?;
                    if cfg.extended_key_id > 0 && pairwise.iter().any(|&c| c != CipherSuite::Tkip) {
                        e = with_extended_key_id(&e)?;
                    }
                    if cfg.spp_amsdu > 0 && pairwise.iter().any(|&c| c != CipherSuite::Tkip) {
                        e = with_spp_amsdu(&e, cfg.spp_amsdu == 2)?;
                    }
                    rsne = Some(e);
                } else if mgmt.is_some() {
                    return Err(crate::Error::Unsupported("management frame protection needs RSN (wpa=2 or 3)"));
                }
                let gk = keys::random_gtk(g, 1, mgmt, &mut *rng);
                engine.install(None, KeyType::Group, 1, g, &gk.gtk, None)?;
                if let Some((k, id, _)) = &gk.igtk {
                    engine.install(None, KeyType::ManagementGroup, *id, cfg.group_mgmt_cipher, k, None)?;
                }
                group = Some(gk);
            }
        }
        // hostapd: HT without WMM, or with WEP or TKIP alone, is not allowed and is left out.
        let ht_ok = match &cfg.security {
            Security::Open => true,
            Security::Wep { .. } => false,
            Security::Rsn { pairwise, .. } => pairwise.iter().any(|&c| c != CipherSuite::Tkip),
        };
        let (ht_ies, wmm_ie) = super::qos::ap_elements(cfg.ht_capab.filter(|_| ht_ok && cfg.wmm), cfg.channel);
        let wmm_ie = if cfg.wmm { wmm_ie } else { Vec::new() };
        let next_group_rekey =
            (group.is_some() && cfg.group_rekey_s > 0).then(|| now.saturating_add(cfg.group_rekey_s.saturating_mul(SEC)));
        Ok(AccessPoint {
            rsne,
            wpa_ie,
            dp: Datapath::new(engine, cfg.offload),
            peers: BTreeMap::new(),
            seq: SeqNum::default(),
            start: now,
            next_beacon: now,
            next_housekeeping: now + SEC,
            group,
            pending_group: None,
            next_group_rekey,
            clock: now,
            counters: Counters::default(),
            anti_clogging: crate::rsn::sae::AntiClogging::new(&mut *rng),
            anti_clogging_since: now,
            pmksa: BTreeMap::new(),
            radius: Self::new_radius(&cfg)?,
            eap_cache: BTreeMap::new(),
            okc: None,
            ft_r0: BTreeMap::new(),
            ft_domain: None,
            rrb: Self::new_key_holder(&cfg)?,
            ft_pending: BTreeMap::new(),
            mgmt_rx_seq: BTreeMap::new(),
            wnm: wnm::ApWnm::new(&cfg),
            ht_ies,
            wmm_ie,
            agg: Default::default(),
            rng,
            cfg,
        })
    }

    pub fn config(&self) -> &ApConfig {
        &self.cfg
    }

    /// Runs the host engine's batch crypto on these threads (None: the calling thread).
    pub fn set_crypto_threads(&mut self, p: Option<Box<dyn engine::Parallel>>) {
        self.dp.set_parallel(p);
    }

    /// Measures the time of the engine's AEAD passes with the runtime's clock.
    pub fn set_crypto_meter(&mut self, m: Option<engine::Meter>) {
        self.dp.set_meter(m);
    }

    /// Runs the link crypto of the suite `dev` runs in that engine (seed 000's access
    /// point; `crypto_offload=fpga-sim`): every key installed from now on (each station's
    /// PTK at its 4-way handshake or rekey, the GTK) goes into its key table and leaves
    /// it when replaced or when the station leaves. Set before the first station joins.
    pub fn set_crypto_device(&mut self, dev: Option<std::sync::Arc<dyn crate::cipher::device::CcmDevice>>) {
        self.dp.set_device(dev);
        // The GTK was installed when the core was made: install it again, now into the
        // engine (no group frame has gone out under it yet, so its PN restarts unused).
        if let (Some(gk), Security::Rsn { groups, .. }) = (&self.group, &self.cfg.security) {
            let _ = self.dp.keys().install(None, KeyType::Group, gk.gtk_key_id, groups[0], &gk.gtk, None);
        }
    }

    /// The data path: the host engine's counters and threads, the card model.
    pub fn datapath(&self) -> &Datapath {
        &self.dp
    }

    /// The next time `handle_timeout` must be called.
    pub fn poll_timeout(&self) -> u64 {
        let mut t = self.next_beacon.min(self.next_housekeeping);
        if let Some(g) = self.next_group_rekey {
            t = t.min(g);
        }
        if let Some(at) = self.dp.next_release() {
            t = t.min(at);
        }
        for p in self.peers.values() {
            if let Some(d) = p.rsna().and_then(|r| r.deadline) {
                t = t.min(d);
            }
            if let Some(q) = p.sa_query() {
                t = t.min(q.poll());
            }
            if let Some(d) = p.rsna().and_then(|r| r.ptk_rekey_at) {
                t = t.min(d);
            }
            if let Some(d) = p.sae.as_ref().and_then(|i| i.deadline()) {
                t = t.min(d.saturating_mul(1_000_000));
            }
        }
        if let Some(d) = self.dot1x_poll() {
            t = t.min(d);
        }
        if let Some(d) = self.wnm_poll() {
            t = t.min(d);
        }
        t
    }

    /// Beacons, EAPOL retransmissions, rekeys, inactivity, and the card model's queue.
    pub fn handle_timeout(&mut self, now: u64, out: &mut Output) {
        self.clock = now;
        self.dp.release(now, out);
        self.sa_query_timeouts(now, out);
        self.sae_timeouts(now, out);
        self.dot1x_timeouts(now, out);
        if now >= self.next_housekeeping {
            self.rrb_timeouts(now, out);
        }
        self.wnm_timeouts(now, out);
        if now >= self.next_beacon {
            self.beacon(now, out);
        }
        self.handshake_timeouts(now, out);
        if self.next_group_rekey.is_some_and(|t| now >= t) {
            self.start_group_rekey(now, out);
        }
        if now >= self.next_housekeeping {
            self.next_housekeeping = now + SEC;
            self.deauth_idle(now, out);
        }
        self.flush_amsdu(now, out);
    }

    /// One MPDU (no FCS) from the medium.
    pub fn handle_air(&mut self, now: u64, mpdu: &[u8], out: &mut Output) {
        self.clock = now;
        datapath::air(self, now, mpdu, out, Self::handle_rx);
        self.flush_amsdu(now, out);
    }

    /// Frames from the medium, as [`AccessPoint::handle_air`] one by one, except that the
    /// frames they make the AP protect (relayed, bridged, group) go through the engine as
    /// one batch (multi-buffer CCMP) and reach `out` at the end.
    pub fn handle_air_batch<'a>(&mut self, now: u64, mpdus: impl IntoIterator<Item = &'a [u8]>, out: &mut Output) {
        self.clock = now;
        datapath::air_batch(self, now, mpdus, out, Self::handle_rx);
    }

    /// One MPDU from the medium, its MAC header parsed ([`datapath::air`]).
    fn handle_rx(&mut self, now: u64, rx: RxFrame<'_>, out: &mut Output) {
        let (fc, a1) = (rx.fc, rx.ra);
        match fc.frame_type() {
            FrameType::Management => {
                if a1 != self.cfg.bssid && !a1.is_broadcast() {
                    return; // not for us: a medium carries everyone's frames
                }
                self.handle_mgmt(now, rx.hdr, out)
            }
            FrameType::Data => {
                if a1 != self.cfg.bssid {
                    return;
                }
                if !fc.to_ds() || fc.from_ds() {
                    return self.counters.drop("data frame direction");
                }
                self.handle_data(now, rx, out)
            }
            _ => {}
        }
    }
}

impl datapath::Core for AccessPoint {
    fn datapath_mut(&mut self) -> (&mut Datapath, &mut Counters) {
        (&mut self.dp, &mut self.counters)
    }

    fn before_end_batch(&mut self, now: u64, out: &mut Output) {
        self.flush_amsdu(now, out);
    }
}

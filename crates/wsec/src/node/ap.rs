//! The access point core (sans-IO): beacons and probe responses, authentication,
//! association with cipher/AKM negotiation, one [`Authenticator`] per station, GTK/PTK
//! rekey, the relay between stations (decrypted with the sender's key, encrypted with the
//! receiver's: seed 002's two encryptions of the wireless-to-wireless case), the bridge
//! to the wired side (the host's TAP) and inactivity.
use super::card::Offload;
use super::datapath::{self, Datapath, RxFrame};
use super::engine::{self, Engine};
use super::frames::{self, Dir, Mgmt, SeqNum};
use super::mfp::{self, Mfp, SaQuery};
use super::{rx_error_reason, AuthAlgs, Counters, NodeEvent, Output, Phase, Security, SEC, TU};
use crate::cipher::CipherSuite;
use crate::link::sa::{KeyType, Role};
use crate::rsn::akm::Akm;
use crate::rsn::handshake::authenticator::GroupKeys;
use crate::rsn::handshake::{self, Authenticator, Timers};
use crate::rsn::ie::{RsnElementRepr, Suite, WpaElementRepr};
use crate::wire::ethernet::EtherType;
use crate::wire::mac::{FrameType, MacAddr, Mpdu};
use crate::wire::mgmt::{self, AuthAlgorithm, AuthRepr, Capability, ReasonCode, StatusCode};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use subtle::ConstantTimeEq;
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
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PeerState {
    /// Shared-key authentication: challenge sent, waiting for frame 3.
    Challenged,
    /// A SAE exchange (12.4.8) is under way.
    Sae,
    Authenticated,
    Associated,
    /// Data may flow (RSNA: the 4-way handshake is done).
    Established,
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

struct Peer {
    state: PeerState,
    aid: u16,
    last_rx: u64,
    challenge: Option<[u8; 128]>,
    auth: Option<Authenticator>,
    hs_deadline: Option<u64>,
    pairwise: Option<CipherSuite>,
    ptk_rekey_at: Option<u64>,
    counters: StationCounters,
    /// Management frame protection negotiated at association (12.6.3).
    mfp: bool,
    /// An SA Query (11.13) asking whether this MFP station is still there.
    sa_query: Option<SaQuery>,
    akm: Option<Akm>,
    wpa1: bool,
    associated_at: u64,
    /// The SAE protocol instance with this station, and the PMK it produced (12.4.5.4).
    sae: Option<Box<crate::rsn::sae::Instance>>,
    sae_pmk: Option<Zeroizing<Vec<u8>>>,
    /// Our OWE key pair with this station and its group (kept for a repeated request).
    owe: Option<(u16, crate::rsn::owe::OweKeyPair)>,
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
    /// PMKSAs of SAE exchanges, for stations that come back with a PMKID (12.6.10.3).
    pmksa: BTreeMap<MacAddr, ap_sae::Pmksa>,
}

/// A fresh GTK under `key_id`, and an IGTK (12.7.1.5) under `mgmt`'s Key ID (4 or 5)
/// when management frame protection is on.
fn random_gtk(cipher: CipherSuite, key_id: u8, mgmt: Option<(CipherSuite, u8)>, rng: &mut dyn rand_core::CryptoRngCore) -> GroupKeys {
    let mut gtk = Zeroizing::new(crate::rng::array::<32>(rng).to_vec());
    gtk.truncate(cipher.key_len());
    let igtk = mgmt.map(|(c, id)| {
        let mut k = Zeroizing::new(crate::rng::array::<32>(rng).to_vec());
        k.truncate(c.key_len());
        (k, id, 0)
    });
    GroupKeys { gtk, gtk_key_id: key_id, gtk_rsc: 0, igtk }
}

/// The group keys one station gets: without the IGTK unless it negotiated MFP.
fn for_peer(g: &GroupKeys, mfp: bool) -> GroupKeys {
    GroupKeys { igtk: if mfp { g.igtk.clone() } else { None }, ..g.clone() }
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

/// The WPA1 element an AP with `akms`, `pairwise` and `group` advertises (WPA v3.1; the
/// layout of hostapd's `wpa_write_wpa_ie`: no Capabilities field, the defaults apply).
/// Only PSK and the WPA1 ciphers (TKIP, CCMP) have selectors here.
pub fn ap_wpa_element(akms: &[Akm], pairwise: &[CipherSuite], group: CipherSuite) -> crate::Result<Vec<u8>> {
    let no = |_| crate::Error::Unsupported("WPA1 offers WPA-PSK with TKIP or CCMP only");
    let c = |x: CipherSuite| Suite::wpa_cipher(x).filter(|_| matches!(x, CipherSuite::Tkip | CipherSuite::Ccmp128)).ok_or(());
    let pairwise = pairwise.iter().map(|&x| c(x)).collect::<Result<Vec<_>, ()>>().map_err(no)?;
    let akms: Vec<Suite> = akms.iter().filter_map(|&a| Suite::wpa_akm(a).filter(|_| a == Akm::Psk)).collect();
    if akms.is_empty() || pairwise.is_empty() {
        return Err(no(()));
    }
    WpaElementRepr { version: 1, group_cipher: Some(c(group).map_err(no)?), pairwise, akms, capabilities: None }.to_bytes()
}

#[path = "ap_owe.rs"]
mod ap_owe;
#[path = "ap_sae.rs"]
mod ap_sae;

impl AccessPoint {
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
                if akms.is_empty()
                    || pairwise.is_empty()
                    || akms.iter().any(|a| !(a.is_psk() || *a == Akm::Sae || *a == Akm::Owe) || a.is_ft())
                {
                    return Err(crate::Error::Unsupported("the AP needs PSK, SAE or OWE AKMs and a pairwise cipher"));
                }
                if akms.contains(&Akm::Sae) && cfg.sae.as_ref().is_none_or(|s| s.passwords.is_empty()) {
                    return Err(crate::Error::Unsupported("SAE needs sae_password (or wpa_passphrase)"));
                }
                if pmk.len() != 32 {
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
                    rsne = Some(ap_rsn_element_mfp(akms, pairwise, g, cfg.mfp, cfg.group_mgmt_cipher)?);
                } else if mgmt.is_some() {
                    return Err(crate::Error::Unsupported("management frame protection needs RSN (wpa=2 or 3)"));
                }
                let gk = random_gtk(g, 1, mgmt, &mut *rng);
                engine.install(None, KeyType::Group, 1, g, &gk.gtk, None)?;
                if let Some((k, id, _)) = &gk.igtk {
                    engine.install(None, KeyType::ManagementGroup, *id, cfg.group_mgmt_cipher, k, None)?;
                }
                group = Some(gk);
            }
        }
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
            pmksa: BTreeMap::new(),
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

    /// The data path: the host engine's counters and threads, the card model.
    pub fn datapath(&self) -> &Datapath {
        &self.dp
    }

    /// Stations with data open, with their counters.
    pub fn stations(&self) -> Vec<(MacAddr, StationCounters)> {
        self.peers.iter().filter(|(_, p)| p.state == PeerState::Established).map(|(a, p)| (*a, p.counters)).collect()
    }

    /// Stations in any state (authenticated or beyond).
    pub fn peer_count(&self) -> usize {
        self.peers.len()
    }

    /// Whether `sta` is associated with management frame protection negotiated (`None`
    /// when it is not associated).
    pub fn station_mfp(&self, sta: &MacAddr) -> Option<bool> {
        self.peers.get(sta).filter(|p| matches!(p.state, PeerState::Associated | PeerState::Established)).map(|p| p.mfp)
    }

    /// Whether an SA Query (11.13) to `sta` is running.
    pub fn sa_query_running(&self, sta: &MacAddr) -> bool {
        self.peers.get(sta).is_some_and(|p| p.sa_query.is_some())
    }

    /// Every station the AP has state for (authenticated or beyond), in address order
    /// (hostapd's `STA-FIRST`/`STA-NEXT` walk its station list).
    pub fn peer_addrs(&self) -> Vec<MacAddr> {
        self.peers.keys().copied().collect()
    }

    /// What the AP knows about `sta`, if it has state for it.
    pub fn station_info(&self, sta: &MacAddr) -> Option<StationInfo> {
        self.peers.get(sta).map(|p| StationInfo {
            aid: p.aid,
            authenticated: p.state != PeerState::Challenged,
            associated: matches!(p.state, PeerState::Associated | PeerState::Established),
            authorized: p.state == PeerState::Established,
            mfp: p.mfp,
            akm: p.akm,
            pairwise: p.pairwise,
            wpa1: p.wpa1,
            associated_at: p.associated_at,
            last_rx: p.last_rx,
            counters: p.counters,
        })
    }

    /// The current GTK's Key ID (RSN only).
    pub fn group_key_id(&self) -> Option<u8> {
        self.group.as_ref().map(|g| g.gtk_key_id)
    }

    pub fn tunables(&self) -> Tunables {
        Tunables {
            group_rekey_s: self.cfg.group_rekey_s,
            ptk_rekey_s: self.cfg.ptk_rekey_s,
            max_inactivity_s: self.cfg.max_inactivity_s,
            max_stations: self.cfg.max_stations,
        }
    }

    /// Changes the run-time settings; a new GTK rekey period counts from `now` (as
    /// hostapd's `wpa_group_rekey` does after a reload), a new PTK period from each
    /// station's next handshake.
    pub fn set_tunables(&mut self, now: u64, t: Tunables) {
        if t.group_rekey_s != self.cfg.group_rekey_s {
            self.next_group_rekey =
                (self.group.is_some() && t.group_rekey_s > 0).then(|| now.saturating_add(t.group_rekey_s.saturating_mul(SEC)));
        }
        self.cfg.group_rekey_s = t.group_rekey_s;
        self.cfg.ptk_rekey_s = t.ptk_rekey_s;
        self.cfg.max_inactivity_s = t.max_inactivity_s.max(1);
        self.cfg.max_stations = t.max_stations;
    }

    /// Starts a GTK rekey now (hostapd `REKEY_GTK`); false without group keys (open, WEP).
    pub fn rekey_gtk(&mut self, now: u64, out: &mut Output) -> bool {
        if self.group.is_none() {
            return false;
        }
        self.clock = now;
        self.start_group_rekey(now, out);
        true
    }

    /// Starts a new 4-way handshake with an established RSN station (a PTK rekey, as
    /// `wpa_ptk_rekey` does on its timer); false if `sta` has none.
    pub fn rekey_ptk(&mut self, now: u64, sta: &MacAddr, out: &mut Output) -> bool {
        self.clock = now;
        let o = match self.peers.get_mut(sta) {
            Some(p) if p.state == PeerState::Established => match p.auth.as_mut() {
                Some(h) => {
                    p.ptk_rekey_at = None;
                    h.rekey_ptk(now)
                }
                None => return false,
            },
            _ => return false,
        };
        self.after_handshake(now, sta, o, out);
        true
    }

    /// Asks an MFP station with an SA Query Request (11.13) whether it is still there
    /// (hostapd `SA_QUERY`); the query runs as the one a reassociation attempt starts: an
    /// answer ends it, none in dot11AssociationSAQueryMaximumTimeout ends the association.
    /// False if `sta` has no MFP association or a query is already running.
    pub fn start_sa_query(&mut self, now: u64, sta: &MacAddr, out: &mut Output) -> bool {
        self.clock = now;
        if !self.peer_mfp(sta) || self.peers.get(sta).is_none_or(|p| p.sa_query.is_some()) {
            return false;
        }
        let (q, id) = SaQuery::start(now, &mut *self.rng);
        if let Some(p) = self.peers.get_mut(sta) {
            p.sa_query = Some(q);
        }
        self.send_sa_query(now, sta, true, id, out);
        true
    }

    /// Sends a Disassociation (protected for an MFP station); the station stays
    /// authenticated and its keys are removed (hostapd `ap_sta_disassociate`).
    pub fn disassociate(&mut self, now: u64, sta: &MacAddr, why: ReasonCode, out: &mut Output) {
        self.clock = now;
        let seq = self.seq.take();
        let f = frames::deauth(sta, &self.cfg.bssid, &self.cfg.bssid, seq, why, false);
        self.send_mgmt(now, sta, f, out);
        self.end_association(sta, why, out);
    }

    /// MFP negotiated and the PTK in place: robust management frames to and from this
    /// station are protected (12.6.3).
    fn peer_mfp(&mut self, sta: &MacAddr) -> bool {
        self.peers.get(sta).is_some_and(|p| p.mfp) && self.dp.has_pairwise(sta)
    }

    /// Sends a management frame to `sta`, under its pairwise key when it is a robust
    /// frame to an MFP peer (CCMP/GCMP with the management nonce flag, Protected bit).
    fn send_mgmt(&mut self, now: u64, sta: &MacAddr, f: Vec<u8>, out: &mut Output) {
        if self.peer_mfp(sta) && frames::is_robust(&f) {
            self.send_protected(now, Some(*sta), f, out);
        } else {
            self.tx_mgmt(f, out);
        }
    }

    fn capability(&self) -> Capability {
        Capability(Capability::ESS | Capability::SHORT_PREAMBLE).with(Capability::PRIVACY, !self.cfg.security.is_open())
    }

    /// What Beacons (`probe: false`) and Probe Responses say; a hidden BSS
    /// (`ignore_broadcast_ssid`) leaves its SSID out of Beacons only.
    fn bss_info(&self, probe: bool) -> frames::BssInfo {
        let ssid = match self.cfg.ignore_broadcast_ssid {
            1 if !probe => Vec::new(),
            2 if !probe => vec![0; self.cfg.ssid.len()],
            _ => self.cfg.ssid.clone(),
        };
        frames::BssInfo {
            bssid: self.cfg.bssid,
            ssid,
            channel: self.cfg.channel,
            beacon_interval_tu: self.cfg.beacon_interval_tu,
            capability: self.capability(),
            rsne: self.rsne.clone(),
            wpa_ie: self.wpa_ie.clone(),
            rsnxe: self.cfg.sae.as_ref().filter(|s| s.offers_h2e()).map(|_| super::sae::rsnxe_h2e()),
            owe_transition: self.cfg.owe_transition.as_ref().map(|t| t.element()),
        }
    }

    fn tx_mgmt(&mut self, f: Vec<u8>, out: &mut Output) {
        self.counters.tx_air += 1;
        out.air.push(f);
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
            if let Some(d) = p.hs_deadline {
                t = t.min(d);
            }
            if let Some(q) = &p.sa_query {
                t = t.min(q.poll());
            }
            if let Some(d) = p.ptk_rekey_at {
                t = t.min(d);
            }
            if let Some(d) = p.sae.as_ref().and_then(|i| i.deadline()) {
                t = t.min(d.saturating_mul(1_000_000));
            }
        }
        t
    }

    /// Beacons, EAPOL retransmissions, rekeys, inactivity, and the card model's queue.
    pub fn handle_timeout(&mut self, now: u64, out: &mut Output) {
        self.clock = now;
        self.dp.release(now, out);
        self.sa_query_timeouts(now, out);
        self.sae_timeouts(now, out);
        if now >= self.next_beacon {
            let tsf = (now - self.start) / 1000;
            let seq = self.seq.take();
            let b = frames::beacon(&self.bss_info(false), tsf, seq, None);
            self.tx_mgmt(b, out);
            let iv = self.cfg.beacon_interval_tu as u64 * TU;
            self.next_beacon = (self.next_beacon + iv).max(now + iv / 2);
        }
        let addrs: Vec<MacAddr> = self
            .peers
            .iter()
            .filter(|(_, p)| p.hs_deadline.is_some_and(|d| now >= d) || p.ptk_rekey_at.is_some_and(|d| now >= d))
            .map(|(a, _)| *a)
            .collect();
        for a in addrs {
            let Some(p) = self.peers.get_mut(&a) else { continue };
            let o = if p.ptk_rekey_at.is_some_and(|d| now >= d) && p.state == PeerState::Established {
                p.ptk_rekey_at = None;
                p.auth.as_mut().map(|h| h.rekey_ptk(now))
            } else {
                p.auth.as_mut().map(|h| h.handle_timeout(now))
            };
            if let Some(o) = o {
                self.after_handshake(now, &a, o, out);
            }
        }
        if self.next_group_rekey.is_some_and(|t| now >= t) {
            self.start_group_rekey(now, out);
        }
        if now >= self.next_housekeeping {
            self.next_housekeeping = now + SEC;
            let limit = self.cfg.max_inactivity_s.saturating_mul(SEC);
            let idle: Vec<MacAddr> = self.peers.iter().filter(|(_, p)| now.saturating_sub(p.last_rx) > limit).map(|(a, _)| *a).collect();
            for a in idle {
                self.deauth(&a, ReasonCode::INACTIVITY, out);
            }
        }
    }

    fn start_group_rekey(&mut self, now: u64, out: &mut Output) {
        self.next_group_rekey = (self.cfg.group_rekey_s > 0).then(|| now.saturating_add(self.cfg.group_rekey_s.saturating_mul(SEC)));
        let Some(cur) = &self.group else { return };
        if self.pending_group.is_some() {
            return; // the previous rekey is still running
        }
        let Security::Rsn { groups, .. } = &self.cfg.security else { return };
        // The IGTK is renewed with the GTK, under the other Key ID (4 <-> 5).
        let mgmt = cur.igtk.as_ref().map(|(_, id, _)| (self.cfg.group_mgmt_cipher, if *id == 4 { 5 } else { 4 }));
        let old_igtk = cur.igtk.as_ref().map(|(_, id, _)| *id);
        let new = random_gtk(groups[0], if cur.gtk_key_id == 1 { 2 } else { 1 }, mgmt, &mut *self.rng);
        if self.dp.keys().install(None, KeyType::Group, new.gtk_key_id, groups[0], &new.gtk, None).is_err() {
            return;
        }
        if let (Some((k, id, _)), Some(old)) = (&new.igtk, old_igtk) {
            if self.dp.keys().install(None, KeyType::ManagementGroup, *id, self.cfg.group_mgmt_cipher, k, None).is_err() {
                return;
            }
            let _ = self.dp.keys().set_mgmt_group_tx(old);
        }
        // The old GTK stays the transmit key until every station has the new one.
        let _ = self.dp.keys().set_group_tx(cur.gtk_key_id);
        // In address order (a BTreeSet): a seeded run sends the group messages in the same order.
        // A station in the middle of its 4-way handshake waits too: its message 3 may carry
        // the old GTK, so it gets group message 1 with the new one as soon as it is
        // established (else the AP would switch to a GTK that station never received).
        let waiting: BTreeSet<MacAddr> = self
            .peers
            .iter()
            .filter(|(_, p)| p.state == PeerState::Established || (p.state == PeerState::Associated && p.auth.is_some()))
            .map(|(a, _)| *a)
            .collect();
        self.pending_group = Some((new.clone(), waiting.clone()));
        let established: Vec<MacAddr> =
            waiting.iter().copied().filter(|a| self.peers.get(a).is_some_and(|p| p.state == PeerState::Established)).collect();
        for a in established {
            let o = self.peers.get_mut(&a).and_then(|p| {
                let keys = for_peer(&new, p.mfp);
                p.auth.as_mut().map(|h| h.rekey_group(now, keys))
            });
            if let Some(o) = o {
                self.after_handshake(now, &a, o, out);
            }
        }
        self.maybe_finish_group_rekey(out);
    }

    fn maybe_finish_group_rekey(&mut self, out: &mut Output) {
        let done = self.pending_group.as_ref().is_some_and(|(_, w)| w.is_empty());
        if !done {
            return;
        }
        let (new, _) = self.pending_group.take().expect("checked");
        if let Some(old) = &self.group {
            self.dp.keys().remove_group(old.gtk_key_id);
            if let Some((_, id, _)) = &old.igtk {
                self.dp.keys().remove_mgmt_group(*id);
            }
        }
        let _ = self.dp.keys().set_group_tx(new.gtk_key_id);
        if let Some((_, id, _)) = &new.igtk {
            let _ = self.dp.keys().set_mgmt_group_tx(*id);
        }
        out.events.push(NodeEvent::Phase { peer: self.cfg.bssid, phase: Phase::GroupKey { key_id: new.gtk_key_id } });
        self.group = Some(new);
    }

    /// The GTK (and, with MFP, the IGTK) a station joining now receives (the new ones
    /// while a rekey runs), with the RSC and IPN of their last use.
    fn group_for_new_station(&mut self, mfp: bool) -> Option<GroupKeys> {
        let rsc = self.dp.keys().group_tx_pn().saturating_sub(1);
        let ipn = self.dp.keys().mgmt_group_tx_pn().saturating_sub(1);
        if let Some((n, _)) = &self.pending_group {
            return Some(for_peer(n, mfp));
        }
        self.group.as_ref().map(|g| {
            let igtk = g.igtk.as_ref().filter(|_| mfp).map(|(k, id, _)| (k.clone(), *id, ipn));
            GroupKeys { gtk_rsc: rsc, igtk, ..g.clone() }
        })
    }

    /// Sends a Deauthentication (protected for an MFP station) and forgets the station.
    pub fn deauth(&mut self, sta: &MacAddr, why: ReasonCode, out: &mut Output) {
        let seq = self.seq.take();
        let f = frames::deauth(sta, &self.cfg.bssid, &self.cfg.bssid, seq, why, true);
        self.send_mgmt(self.clock, sta, f, out);
        if self.peers.remove(sta).is_some() {
            out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Deauthenticated { reason: why, by_peer: false } });
        }
        self.forget_keys(sta);
    }

    fn forget_keys(&mut self, sta: &MacAddr) {
        self.dp.keys().remove_peer(sta);
        if let Some((_, w)) = &mut self.pending_group {
            w.remove(sta);
        }
    }

    /// Deauthenticates every station (shutdown, phase 5): with MFP one group-addressed
    /// Deauthentication under BIP (as hostapd), else one per station.
    pub fn shutdown(&mut self, out: &mut Output) {
        self.deauth_all(ReasonCode::DEAUTH_LEAVING, out);
    }

    /// Deauthenticates every station with `why` as [`AccessPoint::shutdown`] does (a
    /// reload flushes the stations with reason 2, as hostapd's `hostapd_flush_old_stations`).
    pub fn deauth_all(&mut self, why: ReasonCode, out: &mut Output) {
        if self.group.as_ref().is_some_and(|g| g.igtk.is_some()) {
            self.deauth_broadcast(why, out);
        } else {
            let all: Vec<MacAddr> = self.peers.keys().copied().collect();
            for a in all {
                self.deauth(&a, why, out);
            }
        }
        // The goodbyes may sit in the card model's queue (protected under MFP): the
        // program waits for the card before it exits.
        self.dp.flush(out);
    }

    /// Sends one group-addressed Deauthentication, BIP-protected (an MME with the IGTK's
    /// Key ID and IPN, 12.5.4) when MFP is on, and forgets every station.
    pub fn deauth_broadcast(&mut self, why: ReasonCode, out: &mut Output) {
        let seq = self.seq.take();
        let f = frames::deauth(&MacAddr::BROADCAST, &self.cfg.bssid, &self.cfg.bssid, seq, why, true);
        if self.group.as_ref().is_some_and(|g| g.igtk.is_some()) {
            self.send_protected(self.clock, None, f, out);
        } else {
            self.tx_mgmt(f, out);
        }
        let all: Vec<MacAddr> = self.peers.keys().copied().collect();
        for a in all {
            self.peers.remove(&a);
            out.events.push(NodeEvent::Phase { peer: a, phase: Phase::Deauthenticated { reason: why, by_peer: false } });
            self.forget_keys(&a);
        }
    }

    /// SA Query retransmissions and timeouts (11.13): a query that got no answer in
    /// dot11AssociationSAQueryMaximumTimeout ends the old association, so the station
    /// that asked to associate can.
    fn sa_query_timeouts(&mut self, now: u64, out: &mut Output) {
        let due: Vec<MacAddr> =
            self.peers.iter().filter(|(_, p)| p.sa_query.as_ref().is_some_and(|q| now >= q.poll())).map(|(a, _)| *a).collect();
        for a in due {
            let Some(q) = self.peers.get_mut(&a).and_then(|p| p.sa_query.as_mut()) else { continue };
            if q.expired(now) {
                self.counters.drop("sa query timeout");
                self.drop_association(&a, out);
            } else {
                let id = q.next_id(now, &mut *self.rng);
                self.send_sa_query(now, &a, true, id, out);
            }
        }
    }

    fn send_sa_query(&mut self, now: u64, sta: &MacAddr, request: bool, id: [u8; 2], out: &mut Output) {
        let seq = self.seq.take();
        let f = frames::sa_query(sta, &self.cfg.bssid, &self.cfg.bssid, seq, request, id);
        if self.peer_mfp(sta) {
            self.send_protected(now, Some(*sta), f, out);
        }
    }

    /// Ends an association silently (the SA Query got no answer: the station is gone);
    /// the station stays authenticated and may associate again.
    fn drop_association(&mut self, sta: &MacAddr, out: &mut Output) {
        self.end_association(sta, ReasonCode::PREV_AUTH_NOT_VALID, out);
    }

    /// The station's keys and association state go; it stays authenticated.
    fn end_association(&mut self, sta: &MacAddr, why: ReasonCode, out: &mut Output) {
        self.forget_keys(sta);
        if let Some(p) = self.peers.get_mut(sta) {
            p.state = PeerState::Authenticated;
            p.mfp = false;
            p.sa_query = None;
            p.auth = None;
            p.hs_deadline = None;
            p.ptk_rekey_at = None;
            out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Disassociated { reason: why, by_peer: false } });
        }
    }

    /// One MPDU (no FCS) from the medium.
    pub fn handle_air(&mut self, now: u64, mpdu: &[u8], out: &mut Output) {
        self.clock = now;
        datapath::air(self, now, mpdu, out, Self::handle_rx);
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

    fn handle_mgmt(&mut self, now: u64, hdr: Mpdu<'_>, out: &mut Output) {
        let mpdu = hdr.bytes();
        let Ok(f) = mgmt::Frame::from_mpdu(&hdr) else {
            return self.counters.drop("malformed");
        };
        let (sa, bssid, protected) = (f.sa(), f.bssid(), f.frame_control().protected());
        if protected {
            if self.peer_mfp(&sa) {
                return self.protected_mgmt(now, &sa, &hdr, out);
            }
            // Otherwise only the third frame of shared-key authentication is protected.
            return self.shared_key_frame3(now, &sa, mpdu, out);
        }
        if let Some((t, st, body)) = super::sae::parse_auth_mpdu(&hdr) {
            if bssid == self.cfg.bssid {
                return self.sae_auth(now, &sa, t, st, body, out);
            }
            return;
        }
        let m = match frames::parse_mgmt_mpdu(&hdr) {
            Ok(m) => m,
            Err(_) => return self.counters.drop("malformed"),
        };
        if bssid != self.cfg.bssid && !matches!(m, Mgmt::ProbeReq { .. }) {
            return;
        }
        if f.is_robust() && self.peer_mfp(&sa) {
            // 12.6.3: an MFP peer's robust management frames come protected; this one is
            // forged (e.g. a deauthentication attack) or stale.
            return self.counters.drop("unprotected robust management frame");
        }
        if let Some(p) = self.peers.get_mut(&sa) {
            p.last_rx = now;
        }
        match m {
            Mgmt::ProbeReq { ssid } if (ssid.is_empty() && self.cfg.ignore_broadcast_ssid == 0) || ssid == &self.cfg.ssid[..] => {
                let tsf = (now - self.start) / 1000;
                let seq = self.seq.take();
                let f = frames::beacon(&self.bss_info(true), tsf, seq, Some(&sa));
                self.tx_mgmt(f, out);
            }
            Mgmt::Auth { alg, seq: 1, .. } => self.auth_request(now, &sa, alg, out),
            Mgmt::Auth { .. } => self.counters.drop("unexpected authentication frame"),
            Mgmt::AssocReq { capability: _, ssid, rsne, wpa_ie, owe_dh } => {
                // hostapd (`hostapd_notif_assoc` / `check_assoc_ies`): the RSNE when RSN is
                // offered and the station sent one, else the WPA element when WPA1 is.
                let ie = match (rsne, wpa_ie) {
                    (Some(r), _) if self.rsne.is_some() => Some(r),
                    (_, Some(w)) if self.wpa_ie.is_some() => Some(w),
                    (r, _) => r,
                };
                let ie = ie.map(|r| r.to_vec());
                let ssid_ok = ssid == &self.cfg.ssid[..];
                let owe_dh = owe_dh.map(|d| d.to_vec());
                self.assoc_request(now, &sa, ssid_ok, ie, owe_dh.as_deref(), out)
            }
            Mgmt::Deauth { reason } => self.peer_left(&sa, Phase::Deauthenticated { reason, by_peer: true }, out),
            Mgmt::Disassoc { reason } => self.peer_left(&sa, Phase::Disassociated { reason, by_peer: true }, out),
            _ => {}
        }
    }

    fn peer_left(&mut self, sta: &MacAddr, phase: Phase, out: &mut Output) {
        if self.peers.remove(sta).is_some() {
            out.events.push(NodeEvent::Phase { peer: *sta, phase });
        }
        self.forget_keys(sta);
    }

    /// A protected management frame from an MFP station: decrypted under its pairwise
    /// key (replayed or forged ones are counted and dropped), then acted on.
    fn protected_mgmt(&mut self, now: u64, sta: &MacAddr, hdr: &Mpdu<'_>, out: &mut Output) {
        let plain = match self.dp.unprotect(now, sta, hdr) {
            Ok(Some(p)) => p,
            Ok(None) => return,
            Err(e) => return self.counters.drop(rx_error_reason(&e)),
        };
        if let Some(p) = self.peers.get_mut(sta) {
            p.last_rx = now;
        }
        match frames::parse_mgmt(&plain) {
            Ok(Mgmt::Deauth { reason }) => self.peer_left(sta, Phase::Deauthenticated { reason, by_peer: true }, out),
            Ok(Mgmt::Disassoc { reason }) => self.peer_left(sta, Phase::Disassociated { reason, by_peer: true }, out),
            Ok(Mgmt::SaQuery { request: true, id }) => self.send_sa_query(now, sta, false, id, out),
            Ok(Mgmt::SaQuery { request: false, id }) => {
                // The station is alive: the association stands (11.13).
                if let Some(p) = self.peers.get_mut(sta) {
                    if p.sa_query.as_ref().is_some_and(|q| q.answers(id)) {
                        p.sa_query = None;
                    }
                }
            }
            Ok(_) => {}
            Err(_) => self.counters.drop("malformed"),
        }
    }

    fn new_peer(now: u64, state: PeerState) -> Peer {
        Peer {
            state,
            aid: 0,
            last_rx: now,
            challenge: None,
            auth: None,
            hs_deadline: None,
            pairwise: None,
            ptk_rekey_at: None,
            counters: StationCounters::default(),
            mfp: false,
            sa_query: None,
            akm: None,
            wpa1: false,
            associated_at: now,
            sae: None,
            sae_pmk: None,
            owe: None,
        }
    }

    fn auth_request(&mut self, now: u64, sta: &MacAddr, alg: AuthAlgorithm, out: &mut Output) {
        let bssid = self.cfg.bssid;
        let algs = match &self.cfg.security {
            Security::Wep { auth_algs, .. } => *auth_algs,
            _ => AuthAlgs::OPEN,
        };
        let allowed = (alg == AuthAlgorithm::OPEN_SYSTEM && algs.open()) || (alg == AuthAlgorithm::SHARED_KEY && algs.shared());
        let seq = self.seq.take();
        if !allowed {
            let f = frames::auth(sta, &bssid, &bssid, seq, AuthRepr::new(alg, 2, StatusCode::NOT_SUPPORTED_AUTH_ALG));
            return self.tx_mgmt(f, out);
        }
        if !self.peers.contains_key(sta) && self.peers.len() >= self.cfg.max_stations {
            let f = frames::auth(sta, &bssid, &bssid, seq, AuthRepr::new(alg, 2, StatusCode::AP_FULL));
            return self.tx_mgmt(f, out);
        }
        if self.peer_mfp(sta) {
            // An unprotected Authentication does not end an MFP association (11.13): the
            // (Re)Association Request that follows gets an SA Query first.
            let f = frames::auth(sta, &bssid, &bssid, seq, AuthRepr::new(alg, 2, StatusCode::SUCCESS));
            return self.tx_mgmt(f, out);
        }
        // A new authentication replaces whatever state and keys the station had (a STA
        // that restarted).
        self.forget_keys(sta);
        if alg == AuthAlgorithm::SHARED_KEY {
            let c: [u8; 128] = crate::rng::array(&mut *self.rng);
            let mut p = Self::new_peer(now, PeerState::Challenged);
            p.challenge = Some(c);
            self.peers.insert(*sta, p);
            let f = frames::auth(sta, &bssid, &bssid, seq, AuthRepr::new(alg, 2, StatusCode::SUCCESS).with_challenge(&c));
            return self.tx_mgmt(f, out);
        }
        self.peers.insert(*sta, Self::new_peer(now, PeerState::Authenticated));
        let f = frames::auth(sta, &bssid, &bssid, seq, AuthRepr::new(alg, 2, StatusCode::SUCCESS));
        self.tx_mgmt(f, out);
        out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Authenticated { shared_key: false } });
    }

    /// Shared-key authentication frame 3 (12.3.3.3.3): WEP-decrypt, compare the challenge
    /// in constant time, answer with frame 4.
    fn shared_key_frame3(&mut self, now: u64, sta: &MacAddr, mpdu: &[u8], out: &mut Output) {
        let expected = match self.peers.get(sta) {
            Some(Peer { state: PeerState::Challenged, challenge: Some(c), .. }) => *c,
            _ => return self.counters.drop("unexpected protected management frame"),
        };
        let ok = match self.dp.keys().wep_auth_open(mpdu) {
            Ok(plain) => matches!(frames::parse_mgmt(&plain),
                Ok(Mgmt::Auth { alg: AuthAlgorithm::SHARED_KEY, seq: 3, challenge: Some(c), .. })
                    if c.len() == 128 && bool::from(c.ct_eq(&expected[..]))),
            Err(_) => false,
        };
        let bssid = self.cfg.bssid;
        let seq = self.seq.take();
        let st = if ok { StatusCode::SUCCESS } else { StatusCode::CHALLENGE_FAIL };
        let f = frames::auth(sta, &bssid, &bssid, seq, AuthRepr::new(AuthAlgorithm::SHARED_KEY, 4, st));
        self.tx_mgmt(f, out);
        if ok {
            if let Some(p) = self.peers.get_mut(sta) {
                p.state = PeerState::Authenticated;
                p.challenge = None;
                p.last_rx = now;
            }
            out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Authenticated { shared_key: true } });
        } else {
            self.counters.drop("shared key challenge failed");
            self.peers.remove(sta);
        }
    }

    /// Checks the STA's RSN element against what the AP offers (12.6.3): one pairwise
    /// cipher and one AKM the AP advertises, the AP's group cipher, and the MFP policy
    /// ([`mfp::ap_decide`]); the last item is the group management cipher if MFP is used.
    fn check_sta_rsne(&self, rsne: &[u8]) -> Result<(Akm, CipherSuite, CipherSuite, Option<CipherSuite>), StatusCode> {
        let Security::Rsn { akms, pairwise, groups, .. } = &self.cfg.security else {
            return Err(StatusCode::INVALID_ELEMENT);
        };
        if crate::rsn::ie::is_wpa_element(rsne) {
            return self.check_sta_wpa_ie(rsne, akms, groups[0]);
        }
        if self.rsne.is_none() {
            return Err(StatusCode::INVALID_ELEMENT);
        }
        let e = RsnElementRepr::parse(rsne).map_err(|_| StatusCode::INVALID_ELEMENT)?;
        let g = e.group_cipher.and_then(|s| s.cipher());
        if g != Some(groups[0]) {
            return Err(StatusCode::INVALID_GROUP_CIPHER);
        }
        let pw = match e.pairwise.as_slice() {
            [s] => s.cipher().filter(|c| pairwise.contains(c)).ok_or(StatusCode::INVALID_PAIRWISE_CIPHER)?,
            _ => return Err(StatusCode::INVALID_PAIRWISE_CIPHER),
        };
        let akm = match e.akms.as_slice() {
            [s] => s.akm().filter(|a| akms.contains(a)).ok_or(StatusCode::INVALID_AKMP)?,
            _ => return Err(StatusCode::INVALID_AKMP),
        };
        let mgmt = mfp::ap_decide(self.cfg.mfp, self.cfg.group_mgmt_cipher, &e, pw)?;
        Ok((akm, pw, groups[0], mgmt))
    }

    /// A WPA1 station's WPA element against ours (hostapd `wpa_validate_wpa_ie`, WPA
    /// branch): our group cipher, one pairwise cipher of `wpa_pairwise`, WPA-PSK; no MFP.
    fn check_sta_wpa_ie(
        &self,
        ie: &[u8],
        akms: &[Akm],
        group: CipherSuite,
    ) -> Result<(Akm, CipherSuite, CipherSuite, Option<CipherSuite>), StatusCode> {
        let offered = self.cfg.wpa1_pairwise.as_ref().filter(|_| self.wpa_ie.is_some()).ok_or(StatusCode::INVALID_ELEMENT)?;
        if self.cfg.mfp.required() {
            // WPA1 has no MFP: a station that cannot do it is refused (12.6.3).
            return Err(StatusCode::ROBUST_MGMT_POLICY_VIOLATION);
        }
        let e = WpaElementRepr::parse(ie).map_err(|_| StatusCode::INVALID_ELEMENT)?;
        let wpa = |s: &Suite| (s.oui == crate::rsn::ie::WPA_OUI).then_some(*s);
        // Absent fields take WPA1's defaults: TKIP group and pairwise, 802.1X AKM.
        let g = e.group_cipher.map_or(Some(CipherSuite::Tkip), |s| wpa(&s).and_then(|s| s.cipher()));
        if g != Some(group) {
            return Err(StatusCode::INVALID_GROUP_CIPHER);
        }
        let pw = match e.pairwise.as_slice() {
            [s] => wpa(s).and_then(|s| s.cipher()).filter(|c| offered.contains(c)).ok_or(StatusCode::INVALID_PAIRWISE_CIPHER)?,
            _ => return Err(StatusCode::INVALID_PAIRWISE_CIPHER),
        };
        let akm = match e.akms.as_slice() {
            [s] => wpa(s).and_then(|s| s.akm()).filter(|a| *a == Akm::Psk && akms.contains(a)).ok_or(StatusCode::INVALID_AKMP)?,
            _ => return Err(StatusCode::INVALID_AKMP),
        };
        Ok((akm, pw, group, None))
    }

    fn assoc_request(&mut self, now: u64, sta: &MacAddr, ssid_ok: bool, rsne: Option<Vec<u8>>, owe_dh: Option<&[u8]>, out: &mut Output) {
        let bssid = self.cfg.bssid;
        let authed = self.peers.get(sta).is_some_and(|p| !matches!(p.state, PeerState::Challenged | PeerState::Sae));
        if !authed {
            // Class 2 frame from an unauthenticated STA (11.3.3).
            let seq = self.seq.take();
            let f = frames::deauth(sta, &bssid, &bssid, seq, ReasonCode::PREV_AUTH_NOT_VALID, true);
            self.counters.drop("association before authentication");
            return self.tx_mgmt(f, out);
        }
        let capability = self.capability();
        if self.peer_mfp(sta) && self.peers.get(sta).is_some_and(|p| matches!(p.state, PeerState::Associated | PeerState::Established)) {
            // 11.13: an MFP station asks to associate again. Either it restarted and lost
            // its keys, or someone forges its address: answer "try again later" with the
            // association comeback time and ask the associated station with an SA Query.
            let q = self.peers.get_mut(sta).and_then(|p| p.sa_query.take());
            let q = match q {
                Some(q) if q.expired(now) => {
                    self.counters.drop("sa query timeout");
                    self.drop_association(sta, out);
                    None
                }
                Some(q) => Some((q, None)),
                None => {
                    let (q, id) = SaQuery::start(now, &mut *self.rng);
                    Some((q, Some(id)))
                }
            };
            if let Some((q, first)) = q {
                let seq = self.seq.take();
                let aid = self.peers.get(sta).map(|p| p.aid).unwrap_or(0);
                let mut f = frames::assoc_resp(sta, &bssid, seq, capability, StatusCode::REFUSED_TEMPORARILY, aid);
                frames::add_comeback(&mut f, q.comeback_tu(now));
                self.tx_mgmt(f, out);
                self.counters.drop("association refused: sa query");
                if let Some(p) = self.peers.get_mut(sta) {
                    p.sa_query = Some(q);
                }
                if let Some(id) = first {
                    self.send_sa_query(now, sta, true, id, out);
                }
                return;
            }
        }
        let sae_pmk = self.peers.get(sta).and_then(|p| p.sae_pmk.clone()).or_else(|| self.cached_pmk(now, sta, rsne.as_deref()));
        let negotiated = match (&self.cfg.security, &rsne) {
            (_, _) if !ssid_ok => Err(StatusCode::UNSPECIFIED),
            // AKM 8 needs the PMK of a SAE exchange with this station (12.4.5.4).
            (Security::Rsn { .. }, Some(r)) => self.check_sta_rsne(r).and_then(|n| match n.0 {
                Akm::Sae if sae_pmk.is_none() => Err(StatusCode::INVALID_AKMP),
                _ => Ok(Some(n)),
            }),
            (Security::Rsn { .. }, None) => Err(StatusCode::INVALID_ELEMENT),
            (_, Some(_)) => Err(StatusCode::INVALID_ELEMENT),
            (_, None) => Ok(None),
        };
        // OWE (AKM 18): the Diffie-Hellman exchange or a cached PMKSA (RFC 8110 4.3).
        let mut owe = None;
        let negotiated = match negotiated {
            Ok(Some(n)) if n.0 == Akm::Owe => match self.owe_assoc(now, sta, rsne.as_deref().unwrap_or_default(), owe_dh) {
                Ok(o) => {
                    owe = Some(o);
                    Ok(Some(n))
                }
                Err(st) => Err(st),
            },
            other => other,
        };
        let seq = self.seq.take();
        let used: HashSet<u16> = self.peers.values().map(|p| p.aid).collect();
        let aid = match self.peers.get(sta) {
            Some(p) if p.aid != 0 => p.aid,
            _ => (1..=2007u16).find(|a| !used.contains(a)).unwrap_or(0),
        };
        let st = match negotiated {
            Err(st) => st,
            Ok(_) if aid == 0 => StatusCode::AP_FULL,
            Ok(_) => StatusCode::SUCCESS,
        };
        let mut f = frames::assoc_resp(sta, &bssid, seq, capability, st, aid);
        if let Some(o) = owe.as_ref().filter(|_| st == StatusCode::SUCCESS) {
            // Elements are the last thing in the body: our RSNE and the DH element.
            f.extend_from_slice(&o.resp_elements);
        }
        self.tx_mgmt(f, out);
        if st != StatusCode::SUCCESS {
            self.counters.drop("association refused");
            return;
        }
        // A reassociation restarts the keys from scratch.
        self.forget_keys(sta);
        let use_mfp = matches!(negotiated, Ok(Some((_, _, _, Some(_)))));
        let group_keys = self.group_for_new_station(use_mfp);
        let Some(p) = self.peers.get_mut(sta) else { return };
        p.aid = aid;
        p.mfp = use_mfp;
        p.sa_query = None;
        p.last_rx = now;
        p.auth = None;
        p.hs_deadline = None;
        p.ptk_rekey_at = None;
        let Ok(neg) = negotiated else { return };
        match (neg, &self.cfg.security) {
            (Some((akm, pw, g, mgmt)), Security::Rsn { pmk, .. }) => {
                let (hs_akm, pmk) = match (akm, owe) {
                    (Akm::Sae, _) => (akm, sae_pmk.unwrap_or_default()),
                    (Akm::Owe, Some(o)) => (o.akm, o.pmk),
                    _ => (akm, pmk.clone()),
                };
                p.state = PeerState::Associated;
                p.pairwise = Some(pw);
                p.akm = Some(akm);
                p.wpa1 = rsne.as_deref().is_some_and(crate::rsn::ie::is_wpa_element);
                p.associated_at = now;
                out.events.push(NodeEvent::Phase {
                    peer: *sta,
                    phase: Phase::Associated { aid, akm: Some(akm), pairwise: Some(pw), group: Some(g) },
                });
                let hc = handshake::Config {
                    akm: hs_akm,
                    pairwise: pw,
                    group: g,
                    group_mgmt: mgmt,
                    pmk,
                    aa: bssid,
                    spa: *sta,
                    // A WPA1 station's handshake repeats the WPA elements (and so runs as WPA1).
                    ap_rsne: if rsne.as_deref().is_some_and(crate::rsn::ie::is_wpa_element) {
                        self.wpa_ie.clone().unwrap_or_default()
                    } else {
                        // Message 3 repeats the RSNE and the RSNXE of the Beacon (12.7.6.4).
                        let mut e = self.rsne.clone().unwrap_or_default();
                        if self.cfg.sae.as_ref().is_some_and(|s| s.offers_h2e()) {
                            e.extend_from_slice(&super::sae::rsnxe_h2e());
                        }
                        e
                    },
                    sta_rsne: rsne.unwrap_or_default(),
                    timers: self.cfg.eapol_timers,
                };
                let Some(gk) = group_keys else { return };
                let mut a = Authenticator::new(hc, gk, crate::rng::fork(&mut *self.rng));
                a.set_transition_disable(self.cfg.transition_disable);
                let o = a.start(now);
                p.auth = Some(a);
                self.after_handshake(now, sta, o, out);
            }
            _ => {
                p.state = PeerState::Established;
                p.associated_at = now;
                out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Associated { aid, akm: None, pairwise: None, group: None } });
                out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Established { pairwise: None } });
            }
        }
    }

    /// Sends the handshake's EAPOL frames and acts on its events.
    fn after_handshake(&mut self, now: u64, sta: &MacAddr, o: handshake::Output, out: &mut Output) {
        let bssid = self.cfg.bssid;
        if let Some(p) = self.peers.get_mut(sta) {
            p.hs_deadline = o.deadline;
        }
        // Events first: a key installed by this input protects what it sends (WPA1's group
        // message 1 follows message 4 at once and goes under the new PTK, as in hostapd).
        // Every other output with frames installs nothing.
        let mut late_group = false;
        for e in o.events {
            match e {
                handshake::Event::InstallPtk { tk, cipher, key_id } => {
                    let rekey = self.dp.has_pairwise(sta);
                    if self.dp.keys().install(Some(*sta), KeyType::Pairwise, key_id, cipher, &tk, None).is_err() {
                        self.deauth(sta, ReasonCode::UNSPECIFIED, out);
                        return;
                    }
                    if rekey {
                        out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::PtkRekeyed });
                    }
                    if let Some(p) = self.peers.get_mut(sta) {
                        p.counters.key_installs += 1;
                        p.ptk_rekey_at = (self.cfg.ptk_rekey_s > 0).then(|| now.saturating_add(self.cfg.ptk_rekey_s.saturating_mul(SEC)));
                    }
                }
                handshake::Event::Established { pairwise, .. } => {
                    let first = self.peers.get(sta).is_some_and(|p| p.state != PeerState::Established);
                    if let Some(p) = self.peers.get_mut(sta) {
                        p.state = PeerState::Established;
                    }
                    out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Established { pairwise: Some(pairwise) } });
                    late_group = first && self.pending_group.as_ref().is_some_and(|(_, w)| w.contains(sta));
                }
                handshake::Event::GroupKeyDone { .. } => {
                    if let Some((_, w)) = &mut self.pending_group {
                        w.remove(sta);
                    }
                    self.maybe_finish_group_rekey(out);
                }
                handshake::Event::Failed(why) => {
                    out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::HandshakeFailed(why) });
                    let r = if self.peers.get(sta).is_some_and(|p| p.state == PeerState::Established) {
                        ReasonCode::GROUP_KEY_TIMEOUT
                    } else {
                        ReasonCode::FOURWAY_TIMEOUT
                    };
                    self.deauth(sta, r, out);
                    self.maybe_finish_group_rekey(out);
                    return;
                }
                handshake::Event::Dropped(_) => self.counters.drop("eapol-key refused"),
                _ => {}
            }
        }
        for eapol in o.tx {
            let seq = self.seq.take();
            let f = frames::data(Dir::FromAp, &bssid, sta, &bssid, seq, EtherType::EAPOL, &eapol);
            // Before the first PTK EAPOL goes in the clear; a rekey's under the PTK.
            if self.dp.has_pairwise(sta) {
                self.send_protected(now, Some(*sta), f, out);
            } else {
                self.counters.tx_air += 1;
                out.air.push(f);
            }
        }
        // A station established while a GTK rekey waits for it: group message 1 now.
        if late_group {
            let keys = self.pending_group.as_ref().map(|(new, _)| new.clone());
            let o = keys.and_then(|new| {
                self.peers.get_mut(sta).and_then(|p| {
                    let k = for_peer(&new, p.mfp);
                    p.auth.as_mut().map(|h| h.rekey_group(now, k))
                })
            });
            if let Some(o) = o {
                self.after_handshake(now, sta, o, out);
            }
        }
    }

    /// Protects a plaintext MPDU in the host engine and queues it for the medium.
    fn send_protected(&mut self, now: u64, peer: Option<MacAddr>, f: Vec<u8>, out: &mut Output) {
        self.dp.send_protected(now, peer, f, &mut self.counters, out);
    }

    fn send_data(&mut self, now: u64, peer: Option<MacAddr>, f: Vec<u8>, out: &mut Output) {
        self.counters.tx_data += 1;
        self.counters.tx_data_bytes += f.len() as u64;
        if let Some(p) = peer.and_then(|a| self.peers.get_mut(&a)) {
            p.counters.tx_data += 1;
            p.counters.tx_bytes += f.len() as u64;
        }
        if self.cfg.security.is_open() {
            self.counters.tx_air += 1;
            out.air.push(f);
        } else {
            self.send_protected(now, peer, f, out);
        }
    }

    fn handle_data(&mut self, now: u64, rx: RxFrame<'_>, out: &mut Output) {
        let RxFrame { mpdu, hdr, fc, ta, opened, .. } = rx;
        let Some(sa) = ta else { return self.counters.drop("malformed") };
        let state = self.peers.get(&sa).map(|p| p.state);
        if !matches!(state, Some(PeerState::Associated | PeerState::Established)) {
            // Class 3 frame from a STA that is not associated (11.3.3): deauthenticate it,
            // which is how a STA learns that the AP restarted.
            self.counters.drop("class 3 frame from a non-associated station");
            let seq = self.seq.take();
            let f = frames::deauth(&sa, &self.cfg.bssid, &self.cfg.bssid, seq, ReasonCode::CLASS3_FROM_NONASSOC, true);
            return self.tx_mgmt(f, out);
        }
        if !fc.has_data_body() {
            if let Some(p) = self.peers.get_mut(&sa) {
                p.last_rx = now;
            }
            return; // Null data: a keep-alive
        }
        let plain: std::borrow::Cow<'_, [u8]> = if fc.protected() {
            // With the card model, relay and bridging below wait for the card's
            // receive-side service time.
            match self.dp.unprotect_data(now, &sa, &hdr, opened) {
                Ok(Some(p)) => std::borrow::Cow::Owned(p),
                Ok(None) => return,
                Err(e) => {
                    if let Some(p) = self.peers.get_mut(&sa) {
                        p.counters.rx_dropped += 1;
                        // 802.11 MIB: Michael failures are TKIP's own counter; a
                        // CCMP/GCMP MIC or a WEP/TKIP ICV mismatch is a decrypt error.
                        match e {
                            crate::Error::Replay => p.counters.rx_replays += 1,
                            crate::Error::MicFailure if p.pairwise == Some(CipherSuite::Tkip) => p.counters.rx_mic_failures += 1,
                            _ => p.counters.rx_decrypt_errors += 1,
                        }
                    }
                    return self.counters.drop(rx_error_reason(&e));
                }
            }
        } else {
            std::borrow::Cow::Borrowed(mpdu)
        };
        let Ok(m) = frames::msdu_of(&hdr, &plain) else { return self.counters.drop("malformed msdu") };
        if !fc.protected() && !self.cfg.security.is_open() && m.ethertype != EtherType::EAPOL {
            return self.counters.drop("unprotected");
        }
        if m.sa != sa {
            return self.counters.drop("source address is not the transmitter");
        }
        let Some(p) = self.peers.get_mut(&sa) else { return };
        p.last_rx = now;
        if m.ethertype == EtherType::EAPOL && m.da == self.cfg.bssid {
            let eapol = m.payload.to_vec();
            let o = p.auth.as_mut().map(|a| a.handle_eapol(now, &eapol));
            match o {
                Some(o) => self.after_handshake(now, &sa, o, out),
                None => self.counters.drop("eapol without an rsna"),
            }
            return;
        }
        if p.state != PeerState::Established {
            return self.counters.drop("data before the keys are installed");
        }
        p.counters.rx_data += 1;
        p.counters.rx_bytes += plain.len() as u64;
        self.counters.rx_data += 1;
        self.counters.rx_data_bytes += plain.len() as u64;
        let (da, ethertype, payload) = (m.da, m.ethertype, m.payload);
        let bssid = self.cfg.bssid;
        if da.is_group() {
            // To the wired side and back out to every station under the GTK.
            self.deliver_host(now, frames::ethernet(&da, &sa, ethertype, payload), out);
            let seq = self.seq.take();
            let f = frames::data(Dir::FromAp, &bssid, &da, &sa, seq, ethertype, payload);
            self.send_data(now, None, f, out);
        } else if self.peers.get(&da).is_some_and(|p| p.state == PeerState::Established) {
            // Wireless to wireless: decrypted with the sender's key above, encrypted with
            // the receiver's here.
            self.counters.relayed += 1;
            let seq = self.seq.take();
            let f = frames::data(Dir::FromAp, &bssid, &da, &sa, seq, ethertype, payload);
            self.send_data(now, Some(da), f, out);
        } else {
            self.deliver_host(now, frames::ethernet(&da, &sa, ethertype, payload), out);
        }
        if let std::borrow::Cow::Owned(v) = plain {
            self.dp.recycle(v);
        }
    }

    fn deliver_host(&mut self, now: u64, eth: Vec<u8>, out: &mut Output) {
        self.dp.deliver_host(now, eth, &mut self.counters, out);
    }

    /// Frames from the medium, as [`AccessPoint::handle_air`] one by one, except that the
    /// frames they make the AP protect (relayed, bridged, group) go through the engine as
    /// one batch (multi-buffer CCMP) and reach `out` at the end.
    pub fn handle_air_batch<'a>(&mut self, now: u64, mpdus: impl IntoIterator<Item = &'a [u8]>, out: &mut Output) {
        self.clock = now;
        datapath::air_batch(self, now, mpdus, out, Self::handle_rx);
    }

    /// Ethernet frames from the wired side, as [`AccessPoint::handle_host`] one by one,
    /// protected as one batch.
    pub fn handle_host_batch<'a>(&mut self, now: u64, eths: impl IntoIterator<Item = &'a [u8]>, out: &mut Output) {
        datapath::host_batch(self, now, eths, out, Self::handle_host);
    }

    /// One Ethernet frame from the wired side (the AP's TAP).
    pub fn handle_host(&mut self, now: u64, eth: &[u8], out: &mut Output) {
        self.clock = now;
        self.counters.rx_host += 1;
        let Ok((da, sa, ethertype, payload)) = frames::parse_ethernet(eth) else {
            return self.counters.drop("malformed ethernet frame");
        };
        let bssid = self.cfg.bssid;
        if da.is_group() {
            if self.peers.values().any(|p| p.state == PeerState::Established) {
                let seq = self.seq.take();
                let f = frames::data(Dir::FromAp, &bssid, &da, &sa, seq, ethertype, payload);
                self.send_data(now, None, f, out);
            }
        } else if self.peers.get(&da).is_some_and(|p| p.state == PeerState::Established) {
            let seq = self.seq.take();
            let f = frames::data(Dir::FromAp, &bssid, &da, &sa, seq, ethertype, payload);
            self.send_data(now, Some(da), f, out);
        } else {
            self.counters.drop("unknown destination");
        }
    }
}

impl datapath::Core for AccessPoint {
    fn datapath_mut(&mut self) -> (&mut Datapath, &mut Counters) {
        (&mut self.dp, &mut self.counters)
    }
}

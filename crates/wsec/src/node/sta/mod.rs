//! The station core (sans-IO): active scanning, open-system or WEP shared-key
//! authentication, association with the RSN element it negotiated (12.6.3), the
//! [`Supplicant`] of the 4-way and group key handshakes, protected data in the host
//! engine, keep-alives, and recovery (deauthentication by the AP, beacon loss).
//!
//! The types, the constructor and the sans-IO entry points are here; `impl Station`
//! continues by concern:
//! - `mgmt`: management frame receive rules and dispatch, leaving a BSS;
//! - `assoc`: BSS selection, the RSN/WPA element negotiation, authentication and
//!   association;
//! - `keys`: the supplicant's outputs and the keys they install, Transition Disable;
//! - `sa_query`: protected management frames and the SA Query procedure;
//! - `data`: the data path;
//! - `control`: what the control interface reads;
//! - `sae`, `owe`: SAE authentication and OWE association;
//! - `pmksa`: the PMKSA cache;
//! - `wnm`: neighbor report requests and BSS transition management.
use super::card::Offload;
use super::datapath::{self, Datapath, RxFrame};
use super::engine::Engine;
use super::frames::{self, BssInfo, SeqNum};
use super::mfp::{Mfp, SaQuery};
use super::{Counters, NodeEvent, Output, Phase, Security};
use crate::cipher::CipherSuite;
use crate::link::sa::Role;
use crate::rsn::akm::Akm;
use crate::rsn::handshake::Supplicant;
use crate::wire::mac::{FrameType, MacAddr};
use crate::wire::mgmt::ReasonCode;
use zeroize::Zeroizing;

/// What the STA is configured with (a wpa_supplicant `network={...}` block).
#[derive(Debug, Clone)]
pub struct StaConfig {
    pub addr: MacAddr,
    pub ssid: Vec<u8>,
    /// Only this BSS (wpa_supplicant `bssid`), if set.
    pub bssid: Option<MacAddr>,
    pub security: Security,
    pub offload: Offload,
    /// Threads the host engine runs batch crypto on (`engine_threads`; 0: one per core).
    pub engine_threads: usize,
    /// Send a Null data frame after this long without transmitting (ms).
    pub keepalive_ms: u64,
    /// Give up on the AP after this long without a frame from it (ms).
    pub beacon_loss_ms: u64,
    /// Authentication/association retry interval (ms) and tries.
    pub retry_ms: u64,
    pub max_tries: u32,
    /// Give up on a 4-way handshake after this long (ms).
    pub handshake_timeout_ms: u64,
    /// Management frame protection (wpa_supplicant `ieee80211w` / `pmf`).
    pub mfp: Mfp,
    /// wpa_supplicant `proto=`: RSN (`RSN`/`WPA2`) and/or WPA1 (`WPA`). With both, an AP
    /// offering both is joined with RSN (wpa_supplicant `wpa_supplicant_set_suites`).
    pub proto_rsn: bool,
    pub proto_wpa1: bool,
    /// SAE (`key_mgmt` with `SAE`): the password, `sae_groups`, `sae_pwe`.
    pub sae: Option<super::sae::SaeSettings>,
    /// OWE (`key_mgmt=OWE`): wpa_supplicant `owe_group` (0: 19, then 20 and 21 after
    /// status 77).
    pub owe_group: u16,
    /// wpa_supplicant `owe_only`: false (its default) lets an OWE network join an open BSS
    /// of its SSID, and the open BSS of a transition pair after the OWE BSS it names was
    /// looked for in vain [`OWE_OPEN_FALLBACK_SKIPS`] times; true joins OWE BSSs only.
    pub owe_only: bool,
    /// wpa_supplicant `extended_key_id`: announce Extended Key ID for Individually
    /// Addressed Frames (12.6.21; not with TKIP), used when the AP announces it too.
    pub extended_key_id: bool,
    /// SPP A-MSDUs (9.4.2.24.4, 12.5.3.3.3; as the AP's hostapd `spp_amsdu`): 0 off, 1 SPP
    /// A-MSDU Capable in the station's RSN element (SPP A-MSDUs with an AP that sets it
    /// too), 2 also SPP A-MSDU Required (no A-MSDUs with an AP that cannot do SPP). Not
    /// with TKIP.
    pub spp_amsdu: u8,
    /// IEEE 802.1X (`key_mgmt=WPA-EAP...`): the EAP peer's identity and method settings.
    pub eap: Option<crate::eap::PeerConfig>,
    /// wpa_supplicant `eapol_version` (1 by default).
    pub eapol_version: u8,
    /// Opportunistic key caching (wpa_supplicant `proactive_key_caching`, global `okc`): the
    /// PMKSA of an 802.1X AKM with one AP of the network is offered to another AP of it
    /// under the PMKID computed for that AP (IEEE 802.11-2020 12.6.10.3 leaves this to
    /// the APs sharing their PMKSAs; hostapd's `okc=1` looks it up).
    pub okc: bool,
    /// Testing only: send every FT Reassociation Request with a wrong FTE MIC (the target
    /// must refuse it with status 55, 13.8.4).
    pub test_ft_bad_mic: bool,
    /// The A-MSDUs taken from the AP ([`super::amsdu`]): SPP and non-SPP ones behind the
    /// FragAttacks checks by default, as mac80211.
    pub amsdu_rx: super::amsdu::AmsduRx,
    /// The HT Capabilities Information sent to an HT AP (with the WMM Information
    /// element); `None`: wpa_supplicant's `disable_ht=1`. HT by default, as
    /// wpa_supplicant; an AP that advertises no HT (HT Capabilities and HT Operation) and
    /// no WMM Parameter element gets neither, so a non-HT BSS sees the same frames as
    /// before.
    pub ht_capab: Option<crate::wire::ht::HtCapInfo>,
    /// The WMM Information element to an AP with WMM: QoS Data both ways.
    pub wmm: bool,
    /// A-MSDU transmit to an HT QoS AP ([`super::qos`]); `amsdu_tx`, on by default.
    pub amsdu_tx: bool,
    /// The longest A-MSDU sent (`amsdu_max_len`), below the AP's Max A-MSDU Length when
    /// the medium carries less.
    pub amsdu_max_len: usize,
}

impl StaConfig {
    pub fn new(addr: MacAddr, ssid: &[u8], security: Security) -> StaConfig {
        StaConfig {
            addr,
            ssid: ssid.to_vec(),
            bssid: None,
            security,
            offload: Offload::Host,
            engine_threads: 1,
            keepalive_ms: 1000,
            beacon_loss_ms: 3000,
            retry_ms: 200,
            max_tries: 5,
            handshake_timeout_ms: 10_000,
            mfp: Mfp::Disabled,
            proto_rsn: true,
            proto_wpa1: false,
            sae: None,
            owe_group: 0,
            owe_only: false,
            extended_key_id: false,
            spp_amsdu: 0,
            eap: None,
            eapol_version: 1,
            okc: false,
            test_ft_bad_mic: false,
            amsdu_rx: super::amsdu::AmsduRx::default(),
            ht_capab: Some(crate::wire::ht::HtCapInfo(crate::wire::ht::HtCapInfo::SM_PS_DISABLED)),
            wmm: true,
            amsdu_tx: true,
            amsdu_max_len: usize::MAX,
        }
    }
}

/// What association negotiated for an RSNA.
#[derive(Debug, Clone)]
struct Negotiated {
    akm: Akm,
    pairwise: CipherSuite,
    group: CipherSuite,
    ap_rsne: Vec<u8>,
    sta_rsne: Vec<u8>,
    /// The group management cipher when MFP is negotiated (12.6.3).
    group_mgmt: Option<CipherSuite>,
    /// SPP A-MSDUs (both SPP A-MSDU Capable), and A-MSDUs at all (not when one side
    /// requires SPP and the other cannot; 9.4.2.24.4, Table 9-153).
    spp_amsdu: bool,
    amsdu_allowed: bool,
}

/// Where the station is in joining a BSS (11.3.1, 12.6.1): each state owns the data that
/// exists only in it.
enum State {
    Scanning,
    Authenticating {
        link: Link,
        shared: bool,
    },
    Associating(Link),
    /// The 4-way handshake with the AP runs.
    Handshake(Link, Box<Rsna>),
    /// Data may flow; an RSNA's supplicant goes on for group and PTK rekeys.
    Established(Link, Option<Box<Rsna>>),
}

/// The BSS chosen, and what the station has with it from authentication on.
struct Link {
    bss: BssInfo,
    /// What the BSS's RSN or WPA element negotiated (none: open, WEP, an OWE network's
    /// open BSS).
    neg: Option<Negotiated>,
    /// The SAE protocol instance with the AP (12.4.8).
    sae: Option<Box<crate::rsn::sae::Instance>>,
    /// The PMK of SAE (12.4.5.4), of the exchange or of the cached PMKSA.
    sae_pmk: Option<Zeroizing<Vec<u8>>>,
    /// This association rides on the cached PMKSA (12.6.10.3).
    pmksa_in_use: bool,
    /// That PMKSA came from SAE with hash-to-element.
    pmksa_h2e: bool,
    /// FT-802.1X: the (Re)Association Response's elements, for the key hierarchy once EAP
    /// gave the MSK (13.4).
    ft_resp_ies: Option<Vec<u8>>,
    /// What the AP's (Re)Association Response advertised: QoS, its Max A-MSDU Length.
    qos: super::qos::PeerQos,
}

/// The [`Supplicant`] of an RSNA (12.7) and the SA Query (11.13) its keys protect.
struct Rsna {
    supplicant: Supplicant,
    /// An SA Query to the AP after an unprotected Deauthentication or Disassociation that
    /// may be genuine (reason 6 or 7: the AP lost our association).
    sa_query: Option<SaQuery>,
}

impl Link {
    fn new(bss: BssInfo, neg: Option<Negotiated>) -> Link {
        Link { bss, neg, sae: None, sae_pmk: None, pmksa_in_use: false, pmksa_h2e: false, ft_resp_ies: None, qos: Default::default() }
    }
}

impl State {
    fn link(&self) -> Option<&Link> {
        match self {
            State::Scanning => None,
            State::Authenticating { link, .. } | State::Associating(link) | State::Handshake(link, _) | State::Established(link, _) => {
                Some(link)
            }
        }
    }

    fn link_mut(&mut self) -> Option<&mut Link> {
        match self {
            State::Scanning => None,
            State::Authenticating { link, .. } | State::Associating(link) | State::Handshake(link, _) | State::Established(link, _) => {
                Some(link)
            }
        }
    }

    fn into_link(self) -> Option<Link> {
        match self {
            State::Scanning => None,
            State::Authenticating { link, .. } | State::Associating(link) | State::Handshake(link, _) | State::Established(link, _) => {
                Some(link)
            }
        }
    }

    fn rsna(&self) -> Option<&Rsna> {
        match self {
            State::Handshake(_, r) | State::Established(_, Some(r)) => Some(r),
            _ => None,
        }
    }

    fn rsna_mut(&mut self) -> Option<&mut Rsna> {
        match self {
            State::Handshake(_, r) | State::Established(_, Some(r)) => Some(r),
            _ => None,
        }
    }

    fn is_established(&self) -> bool {
        matches!(self, State::Established(..))
    }
}

/// The station core.
pub struct Station {
    cfg: StaConfig,
    dp: Datapath,
    state: State,
    seq: SeqNum,
    tries: u32,
    deadline: u64,
    last_from_ap: u64,
    last_tx: u64,
    pub counters: Counters,
    /// Nonces, group keys, challenges and SA Query identifiers come from here.
    rng: crate::rng::BoxRng,
    /// The PMKSAs of SAE and EAP, one per AP (12.6.10.3), kept across disconnections
    /// and roams.
    pmksa: pmksa::PmksaCache,
    /// A roam without FT under way: (target, the AP we left), so the target gets a
    /// Reassociation Request naming our current AP (11.3.5.4), as wpa_supplicant sends.
    reassoc_from: Option<(MacAddr, MacAddr)>,
    /// OWE: the group tried, our key pair, the OWE PMKSA, a transition target.
    owe: owe::StaOwe,
    /// The EAP peer of an 802.1X association.
    eap: Option<Box<crate::eap::Peer>>,
    /// Fast BSS transition: the mobility domain's keys, a transition under way, the BSSs
    /// heard.
    ft: ft::StaFt,
    /// The Neighbor Report Request waiting for its Response.
    wnm: wnm::StaWnm,
    /// Sequence Numbers of QoS Data frames to the AP, per TID (10.3.2.14.2).
    tid_seq: super::qos::TidSeq,
    /// The A-MSDU being built ([`super::qos`]); empty when a call returns.
    agg: super::qos::Aggregator,
}

mod assoc;
mod control;
mod data;
mod eap;
mod ft;
mod keys;
mod mgmt;
mod owe;
mod pmksa;
mod sa_query;
mod sae;
mod wnm;
pub use eap::EapStatus;
pub use owe::OWE_OPEN_FALLBACK_SKIPS;
pub use pmksa::{PmksaInfo, PMKSA_CACHE_SIZE};

/// How long an OWE Association Request waits for its answer before it is sent again (ms).
const OWE_ASSOC_WAIT_MS: u64 = 1000;

impl Station {
    /// Bounds the A-MSDUs sent to `len` octets of Frame Body (below `amsdu_max_len`): what
    /// the medium the node runs on carries (a monitor interface's MTU, for one).
    pub fn limit_amsdu(&mut self, len: usize) {
        self.cfg.amsdu_max_len = self.cfg.amsdu_max_len.min(len);
    }

    /// Its randomness (nonces, group keys, challenges, SA Query identifiers) comes from
    /// `rng`: the OS CSPRNG in the live system, a seeded one for a reproducible run.
    pub fn new(cfg: StaConfig, now: u64, mut rng: crate::rng::BoxRng) -> crate::Result<Station> {
        let mut engine = Engine::new(Role::Supplicant);
        if let Security::Wep { keys, tx_key, .. } = &cfg.security {
            engine.install_wep(keys, *tx_key, &mut *rng)?;
        }
        if let Security::Rsn { pmk, akms, pairwise, groups } = &cfg.security {
            let psk = akms.iter().any(|a| a.is_psk());
            if (psk && pmk.len() != 32) || akms.is_empty() || pairwise.is_empty() || groups.is_empty() {
                return Err(crate::Error::Malformed("RSN network needs a 32-octet PMK, AKMs and ciphers"));
            }
            if akms.iter().any(|a| a.is_8021x()) {
                match &cfg.eap {
                    // A method that cannot start (no ca_cert, a bad key) is an error now.
                    Some(pc) => drop(crate::eap::Peer::new(pc.clone())?),
                    None => return Err(crate::Error::Malformed("WPA-EAP network without eap= settings")),
                }
            }
        }
        Ok(Station {
            dp: Datapath::new(engine, cfg.offload),
            cfg,
            state: State::Scanning,
            seq: SeqNum::default(),
            tries: 0,
            deadline: now,
            last_from_ap: now,
            last_tx: now,
            counters: Counters::default(),
            rng,
            pmksa: pmksa::PmksaCache::default(),
            reassoc_from: None,
            owe: owe::StaOwe::default(),
            eap: None,
            ft: ft::StaFt::default(),
            wnm: wnm::StaWnm::default(),
            tid_seq: Default::default(),
            agg: Default::default(),
        })
    }

    pub fn poll_timeout(&self) -> u64 {
        let mut t = match self.state {
            State::Scanning | State::Authenticating { .. } | State::Associating(_) | State::Handshake(..) => self.deadline,
            State::Established(..) => {
                (self.last_tx + self.cfg.keepalive_ms * 1_000_000).min(self.last_from_ap + self.cfg.beacon_loss_ms * 1_000_000)
            }
        };
        if let Some(at) = self.dp.next_release() {
            t = t.min(at);
        }
        if let Some(q) = self.state.rsna().and_then(|r| r.sa_query.as_ref()) {
            t = t.min(q.poll());
        }
        if let Some(d) = self.ft.deadline() {
            t = t.min(d);
        }
        if let Some(d) = self.wnm_poll() {
            t = t.min(d);
        }
        t
    }

    pub fn handle_timeout(&mut self, now: u64, out: &mut Output) {
        self.dp.release(now, out);
        if self.sa_query_timeout(now, out) {
            return;
        }
        self.ft_timeout(now, out);
        self.wnm_timeout(now, out);
        match &self.state {
            State::Scanning if now >= self.deadline => {
                let seq = self.seq.take();
                let ssid = self.owe.probe_ssid().unwrap_or(&self.cfg.ssid).to_vec();
                let f = frames::probe_req(&self.cfg.addr, &ssid, seq);
                self.tx(now, f, out);
                self.deadline = now + self.cfg.retry_ms * 1_000_000;
            }
            State::Authenticating { link, .. } if link.sae.is_some() => self.sae_timeout(now, out),
            State::Authenticating { .. } if now >= self.deadline => {
                if self.tries >= self.cfg.max_tries {
                    return self.reset(now, self.cfg.retry_ms);
                }
                // Shared key restarts from frame 1: the challenge is per attempt.
                self.send_auth(now, out);
            }
            State::Associating(_) if now >= self.deadline => {
                if self.tries >= self.cfg.max_tries {
                    return self.reset(now, self.cfg.retry_ms);
                }
                self.send_assoc(now, out);
            }
            State::Handshake(..) if now >= self.deadline => {
                out.events.push(NodeEvent::Phase {
                    peer: self.bssid().unwrap_or_default(),
                    phase: Phase::HandshakeFailed("no 4-way handshake completed in time"),
                });
                if let Some(l) = self.state.link().filter(|l| l.pmksa_in_use) {
                    // The cached PMK did not work with this AP: forget its entry.
                    self.pmksa.remove(&l.bss.bssid);
                }
                self.leave(now, ReasonCode::FOURWAY_TIMEOUT, out);
            }
            State::Established(..) => {
                if now >= self.last_from_ap + self.cfg.beacon_loss_ms * 1_000_000 {
                    out.events.push(NodeEvent::Phase { peer: self.bssid().unwrap_or_default(), phase: Phase::BeaconLoss });
                    return self.reset(now, 0);
                }
                if now >= self.last_tx + self.cfg.keepalive_ms * 1_000_000 {
                    if let Some(b) = self.bssid() {
                        let seq = self.seq.take();
                        let f = frames::null_data(&b, &self.cfg.addr, seq);
                        self.tx(now, f, out);
                    }
                }
            }
            _ => {}
        }
    }

    /// One MPDU (no FCS) from the medium.
    pub fn handle_air(&mut self, now: u64, mpdu: &[u8], out: &mut Output) {
        datapath::air(self, now, mpdu, out, Self::handle_rx);
        self.flush_amsdu(now, out);
    }

    /// Frames from the medium, as [`Station::handle_air`] one by one; what they make the
    /// station protect goes through the engine as one batch, at the end.
    pub fn handle_air_batch<'a>(&mut self, now: u64, mpdus: impl IntoIterator<Item = &'a [u8]>, out: &mut Output) {
        datapath::air_batch(self, now, mpdus, out, Self::handle_rx);
    }

    /// One MPDU from the medium, its MAC header parsed ([`datapath::air`]).
    fn handle_rx(&mut self, now: u64, rx: RxFrame<'_>, out: &mut Output) {
        let a1 = rx.ra;
        if a1 != self.cfg.addr && !a1.is_group() {
            return;
        }
        let fc = rx.fc;
        let from_ap = self.bssid().is_some() && rx.ta == self.bssid();
        if from_ap {
            self.last_from_ap = now;
        }
        match fc.frame_type() {
            FrameType::Management => self.handle_mgmt(now, rx.hdr, from_ap, out),
            FrameType::Data if from_ap && fc.from_ds() && !fc.to_ds() => self.handle_data(now, rx, out),
            _ => {}
        }
    }

    /// The state after `f`, which takes the current one.
    fn advance(&mut self, f: impl FnOnce(State) -> State) {
        let s = std::mem::replace(&mut self.state, State::Scanning);
        self.state = f(s);
    }

    /// Authentication (again) with the chosen BSS.
    fn enter_authenticating(&mut self, shared: bool) {
        self.advance(|s| s.into_link().map_or(State::Scanning, |link| State::Authenticating { link, shared }));
    }

    /// Authenticated: association with the chosen BSS.
    fn enter_associating(&mut self) {
        self.advance(|s| s.into_link().map_or(State::Scanning, State::Associating));
    }
}

impl datapath::Core for Station {
    fn datapath_mut(&mut self) -> (&mut Datapath, &mut Counters) {
        (&mut self.dp, &mut self.counters)
    }

    fn before_end_batch(&mut self, now: u64, out: &mut Output) {
        self.flush_amsdu(now, out);
    }
}

//! The station core (sans-IO): active scanning, open-system or WEP shared-key
//! authentication, association with the RSN element it negotiated (12.6.3), the
//! [`Supplicant`] of the 4-way and group key handshakes, protected data in the host
//! engine, keep-alives, and recovery (deauthentication by the AP, beacon loss).
use super::card::Offload;
use super::datapath::{self, Datapath, RxFrame};
use super::engine::{self, Engine};
use super::frames::{self, BssInfo, Dir, Mgmt, SeqNum};
use super::mfp::{self, Mfp, SaQuery};
use super::{rx_error_reason, Counters, NodeEvent, Output, Phase, Security};
use crate::cipher::CipherSuite;
use crate::link::sa::{KeyType, Role};
use crate::rsn::akm::Akm;
use crate::rsn::handshake::{self, Supplicant, Timers};
use crate::rsn::ie::{RsnCapabilities, RsnElementRepr, Suite, WpaElementRepr};
use crate::wire::ethernet::EtherType;
use crate::wire::mac::{FrameType, MacAddr, Mpdu};
use crate::wire::mgmt::{AuthAlgorithm, AuthRepr, Capability, ReasonCode, StatusCode};
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Scanning,
    Authenticating { shared: bool },
    Associating,
    Handshake,
    Established,
}

pub struct Station {
    cfg: StaConfig,
    dp: Datapath,
    state: State,
    bss: Option<BssInfo>,
    neg: Option<Negotiated>,
    supplicant: Option<Supplicant>,
    seq: SeqNum,
    tries: u32,
    deadline: u64,
    last_from_ap: u64,
    last_tx: u64,
    /// An SA Query (11.13) to the AP after an unprotected Deauthentication or
    /// Disassociation that may be genuine (reason 6 or 7: the AP lost our association).
    sa_query: Option<SaQuery>,
    pub counters: Counters,
    /// Nonces, group keys, challenges and SA Query identifiers come from here.
    rng: crate::rng::BoxRng,
    /// The SAE protocol instance with the AP, and the PMK it produced (12.4.5.4).
    sae: Option<Box<crate::rsn::sae::Instance>>,
    sae_pmk: Option<Zeroizing<Vec<u8>>>,
    /// The PMKSA of the last accepted SAE exchange (12.6.10.3), kept across
    /// disconnections; `pmksa_in_use` while this association rides on it.
    pmksa: Option<sta_sae::StaPmksa>,
    pmksa_in_use: bool,
    /// OWE: the group tried, our key pair, the OWE PMKSA, a transition target.
    owe: sta_owe::StaOwe,
}

/// Picks AKM, pairwise and group cipher from the AP's RSN element and the STA's lists
/// (12.6.3: the STA's first preference the AP offers); ECCMP selectors count as ciphers.
///
/// Management frame protection per [`mfp::sta_decide`]; with MFP the pairwise cipher
/// cannot be TKIP (12.6.3), and when only TKIP is left MFP is dropped if neither side
/// requires it.
fn negotiate(ap_rsne: &[u8], akms: &[Akm], pairwise: &[CipherSuite], groups: &[CipherSuite], mfp: Mfp) -> Option<Negotiated> {
    let e = RsnElementRepr::parse(ap_rsne).ok()?;
    let mgmt = mfp::sta_decide(mfp, &e).ok()?;
    let ap_mfpr = e.capabilities.is_some_and(|c| c.mfpr());
    let offered_pw: Vec<CipherSuite> =
        if e.pairwise.is_empty() { vec![CipherSuite::Ccmp128] } else { e.pairwise.iter().filter_map(|s| s.cipher()).collect() };
    let offered_akm: Vec<Akm> = if e.akms.is_empty() { vec![Akm::Ieee8021x] } else { e.akms.iter().filter_map(|s| s.akm()).collect() };
    let group = e.group_cipher.map(|s| s.cipher()).unwrap_or(Some(CipherSuite::Ccmp128))?;
    if !groups.contains(&group) {
        return None;
    }
    let pick = |tkip: bool| pairwise.iter().copied().find(|c| offered_pw.contains(c) && (tkip || *c != CipherSuite::Tkip));
    let (pw, mgmt) = match mgmt {
        Some(g) => match pick(false) {
            Some(p) => (p, Some(g)),
            None if !mfp.required() && !ap_mfpr => (pick(true)?, None),
            None => return None,
        },
        None => (pick(true)?, None),
    };
    let akm = *akms.iter().find(|a| offered_akm.contains(a))?;
    let sta = RsnElementRepr {
        version: 1,
        group_cipher: Some(Suite::from_cipher(group)),
        pairwise: vec![Suite::from_cipher(pw)],
        akms: vec![Suite::from_akm(akm)],
        capabilities: Some(if mgmt.is_some() { mfp.capabilities() } else { RsnCapabilities(0) }),
        pmkids: vec![],
        group_mgmt_cipher: mgmt.and_then(|g| mfp::group_mgmt_field(mfp, g)),
    };
    Some(Negotiated { akm, pairwise: pw, group, ap_rsne: ap_rsne.to_vec(), sta_rsne: sta.to_bytes().ok()?, group_mgmt: mgmt })
}

/// WPA1 (WPA v3.1): AKM, pairwise and group cipher from the AP's WPA element and the
/// STA's lists, as [`negotiate`] does for RSN; WPA-PSK with TKIP or CCMP only, no MFP (so
/// never when the STA requires it). The STA's element has one pairwise and one AKM
/// selector and no Capabilities field (wpa_supplicant `wpa_gen_wpa_ie_wpa`).
fn negotiate_wpa1(ap_ie: &[u8], akms: &[Akm], pairwise: &[CipherSuite], groups: &[CipherSuite], mfp: Mfp) -> Option<Negotiated> {
    if mfp.required() {
        return None;
    }
    let e = WpaElementRepr::parse(ap_ie).ok()?;
    let wpa = |s: &Suite| (s.oui == crate::rsn::ie::WPA_OUI).then_some(*s);
    let wpa_cipher = |c: &CipherSuite| matches!(c, CipherSuite::Tkip | CipherSuite::Ccmp128);
    // Absent fields take WPA1's defaults: TKIP group and pairwise, 802.1X AKM.
    let group = e.group_cipher.map_or(Some(CipherSuite::Tkip), |s| wpa(&s).and_then(|s| s.cipher()))?;
    if !groups.contains(&group) || !wpa_cipher(&group) {
        return None;
    }
    let offered_pw: Vec<CipherSuite> = if e.pairwise.is_empty() {
        vec![CipherSuite::Tkip]
    } else {
        e.pairwise.iter().filter_map(|s| wpa(s).and_then(|s| s.cipher())).collect()
    };
    let pw = pairwise.iter().copied().find(|c| wpa_cipher(c) && offered_pw.contains(c))?;
    let psk = e.akms.iter().any(|s| wpa(s).and_then(|s| s.akm()) == Some(Akm::Psk));
    if !psk || !akms.contains(&Akm::Psk) {
        return None;
    }
    let sta = WpaElementRepr {
        version: 1,
        group_cipher: Suite::wpa_cipher(group),
        pairwise: vec![Suite::wpa_cipher(pw)?],
        akms: vec![Suite::wpa_akm(Akm::Psk)?],
        capabilities: None,
    };
    Some(Negotiated { akm: Akm::Psk, pairwise: pw, group, ap_rsne: ap_ie.to_vec(), sta_rsne: sta.to_bytes().ok()?, group_mgmt: None })
}

#[path = "sta_owe.rs"]
mod sta_owe;
pub use sta_owe::OWE_OPEN_FALLBACK_SKIPS;

/// How long an OWE Association Request waits for its answer before it is sent again (ms).
const OWE_ASSOC_WAIT_MS: u64 = 1000;
#[path = "sta_sae.rs"]
mod sta_sae;

impl Station {
    /// Its randomness (nonces, group keys, challenges, SA Query identifiers) comes from
    /// `rng`: the OS CSPRNG in the live system, a seeded one for a reproducible run.
    pub fn new(cfg: StaConfig, now: u64, mut rng: crate::rng::BoxRng) -> crate::Result<Station> {
        let mut engine = Engine::new(Role::Supplicant);
        if let Security::Wep { keys, tx_key, .. } = &cfg.security {
            engine.install_wep(keys, *tx_key, &mut *rng)?;
        }
        if let Security::Rsn { pmk, akms, pairwise, groups } = &cfg.security {
            if pmk.len() != 32 || akms.is_empty() || pairwise.is_empty() || groups.is_empty() {
                return Err(crate::Error::Malformed("RSN network needs a 32-octet PMK, AKMs and ciphers"));
            }
        }
        Ok(Station {
            dp: Datapath::new(engine, cfg.offload),
            cfg,
            state: State::Scanning,
            bss: None,
            neg: None,
            supplicant: None,
            seq: SeqNum::default(),
            tries: 0,
            deadline: now,
            last_from_ap: now,
            last_tx: now,
            sa_query: None,
            counters: Counters::default(),
            rng,
            sae: None,
            sae_pmk: None,
            pmksa: None,
            pmksa_in_use: false,
            owe: sta_owe::StaOwe::default(),
        })
    }

    /// Whether management frame protection is in force with the AP (negotiated, and the
    /// 4-way handshake done).
    pub fn mfp_active(&self) -> bool {
        self.state == State::Established && self.neg.as_ref().is_some_and(|n| n.group_mgmt.is_some())
    }

    /// Whether an SA Query (11.13) to the AP is running.
    pub fn sa_query_running(&self) -> bool {
        self.sa_query.is_some()
    }

    /// MFP negotiated and the PTK in place: robust management frames are protected.
    fn mfp_on(&mut self) -> bool {
        let Some(b) = self.bssid() else { return false };
        self.neg.as_ref().is_some_and(|n| n.group_mgmt.is_some()) && self.dp.has_pairwise(&b)
    }

    /// Sends a management frame to the AP: under the pairwise key when it is a robust
    /// frame and MFP is on.
    fn send_mgmt(&mut self, now: u64, f: Vec<u8>, out: &mut Output) {
        if self.mfp_on() && frames::is_robust(&f) {
            self.send_protected(now, f, out);
        } else {
            self.tx(now, f, out);
        }
    }

    pub fn addr(&self) -> MacAddr {
        self.cfg.addr
    }

    /// Whether protected data may flow.
    pub fn is_established(&self) -> bool {
        self.state == State::Established
    }

    /// The AP's BSSID once associated.
    pub fn bssid(&self) -> Option<MacAddr> {
        self.bss.as_ref().map(|b| b.bssid)
    }

    /// Whether the current link carries data unprotected: an open network, or an OWE
    /// network that joined an open BSS (`owe_only=0`). WEP has no negotiation either but
    /// protects every data frame.
    fn link_open(&self) -> bool {
        self.neg.is_none() && !matches!(self.cfg.security, Security::Wep { .. })
    }

    pub fn config(&self) -> &StaConfig {
        &self.cfg
    }

    /// The state as wpa_supplicant names it (`wpa_supplicant_state_txt`): SCANNING,
    /// AUTHENTICATING, ASSOCIATING, 4WAY_HANDSHAKE, COMPLETED.
    pub fn wpa_state(&self) -> &'static str {
        match self.state {
            State::Scanning => "SCANNING",
            State::Authenticating { .. } => "AUTHENTICATING",
            State::Associating => "ASSOCIATING",
            State::Handshake => "4WAY_HANDSHAKE",
            State::Established => "COMPLETED",
        }
    }

    /// The channel of the BSS joined or being joined.
    pub fn channel(&self) -> Option<u8> {
        self.bss.as_ref().map(|b| b.channel)
    }

    /// What association negotiated with an RSN/WPA AP: AKM, pairwise and group cipher,
    /// WPA1 (rather than RSN), management frame protection.
    pub fn negotiated(&self) -> Option<(Akm, CipherSuite, CipherSuite, bool, bool)> {
        self.neg.as_ref().map(|n| (n.akm, n.pairwise, n.group, crate::rsn::ie::is_wpa_element(&n.sta_rsne), n.group_mgmt.is_some()))
    }

    /// Runs the host engine's batch crypto on these threads (None: the calling thread).
    pub fn set_crypto_threads(&mut self, p: Option<Box<dyn engine::Parallel>>) {
        self.dp.set_parallel(p);
    }

    /// The data path: the host engine's counters and threads, the card model.
    pub fn datapath(&self) -> &Datapath {
        &self.dp
    }

    pub fn poll_timeout(&self) -> u64 {
        let mut t = match self.state {
            State::Scanning | State::Authenticating { .. } | State::Associating | State::Handshake => self.deadline,
            State::Established => {
                (self.last_tx + self.cfg.keepalive_ms * 1_000_000).min(self.last_from_ap + self.cfg.beacon_loss_ms * 1_000_000)
            }
        };
        if let Some(at) = self.dp.next_release() {
            t = t.min(at);
        }
        if let Some(q) = &self.sa_query {
            t = t.min(q.poll());
        }
        t
    }

    fn tx(&mut self, now: u64, f: Vec<u8>, out: &mut Output) {
        self.counters.tx_air += 1;
        self.last_tx = now;
        out.air.push(f);
    }

    fn reset(&mut self, now: u64, backoff_ms: u64) {
        if let Some(b) = &self.bss {
            self.dp.keys().remove_peer(&b.bssid);
        }
        self.state = State::Scanning;
        self.bss = None;
        self.neg = None;
        self.supplicant = None;
        self.sa_query = None;
        self.sae = None;
        self.sae_pmk = None;
        self.pmksa_in_use = false;
        self.owe.restart();
        self.tries = 0;
        self.deadline = now + backoff_ms * 1_000_000;
    }

    /// Leaves the BSS with a Deauthentication (shutdown, phase 5).
    pub fn shutdown(&mut self, now: u64, out: &mut Output) {
        if let Some(b) = self.bss.clone() {
            if !matches!(self.state, State::Scanning | State::Authenticating { .. }) {
                let seq = self.seq.take();
                let f = frames::deauth(&b.bssid, &self.cfg.addr, &b.bssid, seq, ReasonCode::DEAUTH_LEAVING, true);
                self.send_mgmt(now, f, out);
                out.events.push(NodeEvent::Phase {
                    peer: b.bssid,
                    phase: Phase::Deauthenticated { reason: ReasonCode::DEAUTH_LEAVING, by_peer: false },
                });
            }
        }
        // A protected goodbye may sit in the card model's queue: wait for the card.
        self.dp.flush(out);
        self.reset(now, 0);
    }

    fn send_auth(&mut self, now: u64, out: &mut Output) {
        // SAE, unless a cached PMKSA with this AP lets us skip it: open system
        // authentication, then the PMKID in the Association Request (12.6.10.3).
        if self.neg.as_ref().is_some_and(|n| n.akm == Akm::Sae) && !self.pmksa_in_use && !self.use_cached_pmksa(now) {
            return self.sae_start(now, out);
        }
        let Some(b) = self.bss.clone() else { return };
        let shared = matches!(self.state, State::Authenticating { shared: true });
        let alg = if shared { AuthAlgorithm::SHARED_KEY } else { AuthAlgorithm::OPEN_SYSTEM };
        let seq = self.seq.take();
        let f = frames::auth(&b.bssid, &self.cfg.addr, &b.bssid, seq, AuthRepr::new(alg, 1, StatusCode::SUCCESS));
        self.tx(now, f, out);
        self.tries += 1;
        self.deadline = now + self.cfg.retry_ms * 1_000_000;
    }

    fn send_assoc(&mut self, now: u64, out: &mut Output) {
        let Some(b) = self.bss.clone() else { return };
        let capability = Capability(Capability::ESS | Capability::SHORT_PREAMBLE).with(Capability::PRIVACY, !self.link_open());
        let seq = self.seq.take();
        // OWE: the Diffie-Hellman Parameter element after the RSNE (and RSNXE).
        let dh = self.owe_assoc_elements(now);
        let dh_sent = !dh.is_empty();
        let rsne = self.neg.as_ref().map(|n| [self.with_rsnxe(n.akm, n.sta_rsne.clone()), dh].concat());
        // The BSS's SSID: the configured one, or the hidden OWE BSS's in transition mode.
        let f = frames::assoc_req(&self.cfg.addr, &b.bssid, seq, capability, &b.ssid, rsne.as_deref());
        self.tx(now, f, out);
        self.tries += 1;
        // An OWE AP runs an ECDH before it answers (hostapd under emulation: over 200 ms
        // for group 20); a second request makes hostapd restart the association and its
        // 4-way handshake under the first one (mac80211 waits 500 ms after an acknowledged
        // request). Give it a second.
        let wait_ms = if dh_sent { self.cfg.retry_ms.max(OWE_ASSOC_WAIT_MS) } else { self.cfg.retry_ms };
        self.deadline = now + wait_ms * 1_000_000;
    }

    pub fn handle_timeout(&mut self, now: u64, out: &mut Output) {
        self.dp.release(now, out);
        if self.sa_query.as_ref().is_some_and(|q| now >= q.poll()) {
            let q = self.sa_query.as_mut().expect("checked");
            if q.expired(now) {
                // No protected answer: the AP really lost our association (11.13).
                self.counters.drop("sa query timeout");
                return self.leave(now, ReasonCode::PREV_AUTH_NOT_VALID, out);
            }
            let id = q.next_id(now, &mut *self.rng);
            self.send_sa_query(now, true, id, out);
        }
        match self.state {
            State::Scanning if now >= self.deadline => {
                let seq = self.seq.take();
                let ssid = self.owe.probe_ssid().unwrap_or(&self.cfg.ssid).to_vec();
                let f = frames::probe_req(&self.cfg.addr, &ssid, seq);
                self.tx(now, f, out);
                self.deadline = now + self.cfg.retry_ms * 1_000_000;
            }
            State::Authenticating { .. } if self.sae.is_some() => self.sae_timeout(now, out),
            State::Authenticating { shared } if now >= self.deadline => {
                if self.tries >= self.cfg.max_tries {
                    return self.reset(now, self.cfg.retry_ms);
                }
                // Shared key restarts from frame 1: the challenge is per attempt.
                self.state = State::Authenticating { shared };
                self.send_auth(now, out);
            }
            State::Associating if now >= self.deadline => {
                if self.tries >= self.cfg.max_tries {
                    return self.reset(now, self.cfg.retry_ms);
                }
                self.send_assoc(now, out);
            }
            State::Handshake if now >= self.deadline => {
                out.events.push(NodeEvent::Phase {
                    peer: self.bssid().unwrap_or_default(),
                    phase: Phase::HandshakeFailed("no 4-way handshake completed in time"),
                });
                if self.pmksa_in_use {
                    // The cached PMK did not work with this AP: forget it.
                    self.pmksa = None;
                }
                self.leave(now, ReasonCode::FOURWAY_TIMEOUT, out);
            }
            State::Established => {
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

    /// Deauthenticates from the AP and scans again.
    fn leave(&mut self, now: u64, why: ReasonCode, out: &mut Output) {
        if let Some(b) = self.bssid() {
            let seq = self.seq.take();
            let f = frames::deauth(&b, &self.cfg.addr, &b, seq, why, true);
            self.send_mgmt(now, f, out);
            out.events.push(NodeEvent::Phase { peer: b, phase: Phase::Deauthenticated { reason: why, by_peer: false } });
        }
        self.reset(now, self.cfg.retry_ms);
    }

    /// One MPDU (no FCS) from the medium.
    pub fn handle_air(&mut self, now: u64, mpdu: &[u8], out: &mut Output) {
        datapath::air(self, now, mpdu, out, Self::handle_rx);
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

    fn send_sa_query(&mut self, now: u64, request: bool, id: [u8; 2], out: &mut Output) {
        let Some(b) = self.bssid() else { return };
        if self.mfp_on() {
            let seq = self.seq.take();
            let f = frames::sa_query(&b, &self.cfg.addr, &b, seq, request, id);
            self.send_protected(now, f, out);
        }
    }

    /// Management frames, with the receive rules of MFP (12.6.3, 11.13) first: protected
    /// ones are decrypted under the PTK, group-addressed robust ones verified with BIP
    /// (MME, IPN replay), and unprotected robust ones from the AP dropped, an SA Query
    /// started if they say the AP lost our association.
    fn handle_mgmt(&mut self, now: u64, h: Mpdu<'_>, from_ap: bool, out: &mut Output) {
        let fc = h.frame_control();
        let group = h.addr1().is_group();
        if fc.protected() {
            if !(from_ap && self.mfp_on()) {
                return self.counters.drop("unexpected protected management frame");
            }
            let bssid = self.bssid().unwrap_or_default();
            return match self.dp.unprotect(now, &bssid, &h) {
                Ok(Some(plain)) => self.handle_mgmt_decrypted(now, &plain, out),
                Ok(None) => {}
                Err(e) => self.counters.drop(rx_error_reason(&e)),
            };
        }
        if from_ap && frames::is_robust_mpdu(&h) && self.mfp_on() {
            if group {
                let bssid = self.bssid().unwrap_or_default();
                return match self.dp.unprotect(now, &bssid, &h) {
                    Ok(Some(plain)) => self.handle_mgmt_decrypted(now, &plain, out),
                    Ok(None) => {}
                    Err(crate::Error::MmeMissing) => self.counters.drop("unprotected robust management frame"),
                    Err(e) => self.counters.drop(rx_error_reason(&e)),
                };
            }
            self.counters.drop("unprotected robust management frame");
            if let Ok(Mgmt::Deauth { reason: r } | Mgmt::Disassoc { reason: r }) = frames::parse_mgmt_mpdu(&h) {
                if (r == ReasonCode::CLASS2_FROM_NONAUTH || r == ReasonCode::CLASS3_FROM_NONASSOC) && self.sa_query.is_none() {
                    let (q, id) = SaQuery::start(now, &mut *self.rng);
                    self.sa_query = Some(q);
                    self.send_sa_query(now, true, id, out);
                }
            }
            return;
        }
        self.handle_mgmt_plain(now, h, from_ap, false, out)
    }

    /// A management frame the link decrypted or verified (a new buffer: its header is
    /// checked once here).
    fn handle_mgmt_decrypted(&mut self, now: u64, plain: &[u8], out: &mut Output) {
        match Mpdu::new_checked(plain) {
            Ok(h) => self.handle_mgmt_plain(now, h, true, true, out),
            Err(_) => self.counters.drop("malformed"),
        }
    }

    fn handle_mgmt_plain(&mut self, now: u64, h: Mpdu<'_>, from_ap: bool, protected: bool, out: &mut Output) {
        if let Some((t, st, body)) = super::sae::parse_auth_mpdu(&h).filter(|_| from_ap) {
            return self.sae_rx(now, t, st, body, out);
        }
        let m = match frames::parse_mgmt_mpdu(&h) {
            Ok(m) => m,
            Err(_) => return self.counters.drop("malformed"),
        };
        match m {
            Mgmt::Beacon(info) | Mgmt::ProbeResp(info)
                if self.state == State::Scanning && now >= self.deadline.saturating_sub(self.cfg.retry_ms * 1_000_000) =>
            {
                self.consider(now, info, out);
            }
            Mgmt::Auth { alg, seq, status: st, challenge } if from_ap => {
                let State::Authenticating { shared } = self.state else { return };
                let bssid = self.bssid().unwrap_or_default();
                if st != StatusCode::SUCCESS {
                    self.counters.drop("authentication refused");
                    return self.reset(now, self.cfg.retry_ms * 5);
                }
                match (shared, alg, seq, challenge) {
                    (false, AuthAlgorithm::OPEN_SYSTEM, 2, _) | (true, AuthAlgorithm::SHARED_KEY, 4, _) => {
                        out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::Authenticated { shared_key: shared } });
                        self.state = State::Associating;
                        self.tries = 0;
                        self.send_assoc(now, out);
                    }
                    (true, AuthAlgorithm::SHARED_KEY, 2, Some(c)) => {
                        // Frame 3: the challenge text back, WEP-encrypted (12.3.3.3.3).
                        let s = self.seq.take();
                        let f3 = frames::auth(
                            &bssid,
                            &self.cfg.addr,
                            &bssid,
                            s,
                            AuthRepr::new(AuthAlgorithm::SHARED_KEY, 3, StatusCode::SUCCESS).with_challenge(c),
                        );
                        match self.dp.keys().wep_auth_seal(&f3) {
                            Ok(p) => self.tx(now, p, out),
                            Err(_) => self.counters.drop("no wep key for shared key authentication"),
                        }
                    }
                    _ => self.counters.drop("unexpected authentication frame"),
                }
            }
            Mgmt::AssocResp { status: st, aid, rsne, owe_dh } if from_ap && self.state == State::Associating => {
                let bssid = self.bssid().unwrap_or_default();
                let owe = match self.owe_assoc_resp(now, st, rsne, owe_dh, out) {
                    sta_owe::OweResp::Done => return,
                    sta_owe::OweResp::Keys(akm, pmk) => Some((akm, pmk)),
                    sta_owe::OweResp::NotOwe => None,
                };
                if st == StatusCode::REFUSED_TEMPORARILY {
                    // 11.13: the AP checks our old association with an SA Query; come back
                    // after the time it names (Timeout Interval, type 3).
                    self.counters.drop("association refused temporarily");
                    let tu = frames::assoc_comeback_tu_mpdu(&h).unwrap_or(mfp::SA_QUERY_MAX_TU as u32).clamp(1, 10_000);
                    self.deadline = now + tu as u64 * super::TU;
                    return;
                }
                if st != StatusCode::SUCCESS {
                    self.counters.drop("association refused");
                    if self.pmksa_in_use {
                        // The AP does not know our PMKID (status 53, or 43 from wsec): run
                        // SAE next time, without a backoff.
                        self.pmksa = None;
                        return self.reset(now, self.cfg.retry_ms);
                    }
                    return self.reset(now, self.cfg.retry_ms * 5);
                }
                let n = self.neg.clone();
                out.events.push(NodeEvent::Phase {
                    peer: bssid,
                    phase: Phase::Associated {
                        aid,
                        akm: n.as_ref().map(|n| n.akm),
                        pairwise: n.as_ref().map(|n| n.pairwise),
                        group: n.as_ref().map(|n| n.group),
                    },
                });
                match (n, &self.cfg.security) {
                    (Some(n), Security::Rsn { pmk, .. }) => {
                        let (akm, pmk) = match owe {
                            Some(o) => o,
                            None if n.akm == Akm::Sae => (n.akm, self.sae_pmk.clone().unwrap_or_default()),
                            None => (n.akm, pmk.clone()),
                        };
                        let hc = handshake::Config {
                            akm,
                            pairwise: n.pairwise,
                            group: n.group,
                            group_mgmt: n.group_mgmt,
                            pmk,
                            aa: bssid,
                            spa: self.cfg.addr,
                            // The Beacon's RSNXE too: message 3 must repeat it (12.7.6.4).
                            ap_rsne: match self.bss.as_ref().and_then(|b| b.rsnxe.clone()) {
                                Some(x) if !crate::rsn::ie::is_wpa_element(&n.ap_rsne) => [n.ap_rsne, x].concat(),
                                _ => n.ap_rsne,
                            },
                            sta_rsne: self.with_rsnxe(n.akm, n.sta_rsne),
                            timers: Timers::default(),
                        };
                        self.supplicant = Some(Supplicant::new(hc, crate::rng::fork(&mut *self.rng)));
                        self.state = State::Handshake;
                        self.deadline = now + self.cfg.handshake_timeout_ms * 1_000_000;
                    }
                    _ => {
                        self.state = State::Established;
                        out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::Established { pairwise: None } });
                    }
                }
            }
            Mgmt::Deauth { reason } | Mgmt::Disassoc { reason } if from_ap => {
                if self.state == State::Scanning {
                    return;
                }
                let phase = if matches!(m, Mgmt::Deauth { .. }) {
                    Phase::Deauthenticated { reason, by_peer: true }
                } else {
                    Phase::Disassociated { reason, by_peer: true }
                };
                out.events.push(NodeEvent::Phase { peer: self.bssid().unwrap_or_default(), phase });
                self.reset(now, 0);
            }
            Mgmt::SaQuery { request: true, id } if from_ap && protected => self.send_sa_query(now, false, id, out),
            Mgmt::SaQuery { request: false, id } if from_ap && protected && self.sa_query.as_ref().is_some_and(|q| q.answers(id)) => {
                self.sa_query = None; // the AP still has our association
            }
            _ => {}
        }
    }

    /// A Beacon or Probe Response while scanning: join it if SSID, BSSID and security fit.
    fn consider(&mut self, now: u64, info: BssInfo, out: &mut Output) {
        // OWE transition mode: an open BSS pointing to an OWE BSS is followed.
        let Some(info) = self.owe_consider(now, info) else { return };
        let owe_target = self.owe.probe_ssid().is_some_and(|s| s == &info.ssid[..]);
        if (info.ssid != self.cfg.ssid && !owe_target) || self.cfg.bssid.is_some_and(|b| b != info.bssid) {
            return;
        }
        let privacy = info.capability.has(Capability::PRIVACY);
        let (neg, shared) = match &self.cfg.security {
            Security::Open if !privacy && info.rsne.is_none() && info.wpa_ie.is_none() => (None, false),
            // An OWE network without owe_only takes an open BSS of its SSID as it is
            // (wpa_supplicant `wpa_supplicant_ssid_bss_match`, "allow open BSS").
            Security::Rsn { akms, .. }
                if akms.contains(&Akm::Owe) && !self.cfg.owe_only && !privacy && info.rsne.is_none() && info.wpa_ie.is_none() =>
            {
                (None, false)
            }
            Security::Wep { auth_algs, .. } if privacy && info.rsne.is_none() && info.wpa_ie.is_none() => (None, !auth_algs.open()),
            Security::Rsn { akms, pairwise, groups, .. } => {
                // RSN first when both are allowed and offered, then WPA1.
                let rsn =
                    info.rsne.as_deref().filter(|_| self.cfg.proto_rsn).and_then(|r| negotiate(r, akms, pairwise, groups, self.cfg.mfp));
                let n = rsn.or_else(|| {
                    let w = info.wpa_ie.as_deref().filter(|_| self.cfg.proto_wpa1)?;
                    negotiate_wpa1(w, akms, pairwise, groups, self.cfg.mfp)
                });
                match n {
                    Some(n) => (Some(n), false),
                    None => return self.counters.drop("bss security not acceptable"),
                }
            }
            _ => return self.counters.drop("bss security not acceptable"),
        };
        out.events.push(NodeEvent::Phase {
            peer: info.bssid,
            phase: Phase::Discovered {
                ssid: String::from_utf8_lossy(&info.ssid).into_owned(),
                channel: info.channel,
                rsn: info.rsne.is_some() || info.wpa_ie.is_some(),
            },
        });
        self.bss = Some(info);
        self.neg = neg;
        self.last_from_ap = now;
        self.state = State::Authenticating { shared };
        self.tries = 0;
        self.send_auth(now, out);
    }

    fn handle_data(&mut self, now: u64, rx: RxFrame<'_>, out: &mut Output) {
        if matches!(self.state, State::Scanning | State::Authenticating { .. } | State::Associating) {
            return self.counters.drop("data before association");
        }
        let RxFrame { mpdu, hdr, fc, opened, .. } = rx;
        if !fc.has_data_body() {
            return;
        }
        let bssid = self.bssid().unwrap_or_default();
        let plain: std::borrow::Cow<'_, [u8]> = if fc.protected() {
            match self.dp.unprotect_data(now, &bssid, &hdr, opened) {
                Ok(Some(p)) => std::borrow::Cow::Owned(p),
                Ok(None) => return,
                Err(e) => return self.counters.drop(rx_error_reason(&e)),
            }
        } else {
            std::borrow::Cow::Borrowed(mpdu)
        };
        let Ok(m) = frames::msdu_of(&hdr, &plain) else { return self.counters.drop("malformed msdu") };
        if !fc.protected() && !self.link_open() && m.ethertype != EtherType::EAPOL {
            return self.counters.drop("unprotected");
        }
        if m.ethertype == EtherType::EAPOL && m.da == self.cfg.addr {
            let eapol = m.payload.to_vec();
            let o = self.supplicant.as_mut().map(|s| s.handle_eapol(now, &eapol));
            match o {
                Some(o) => self.after_handshake(now, o, out),
                None => self.counters.drop("eapol without an rsna"),
            }
            return;
        }
        if self.state != State::Established {
            return self.counters.drop("data before the keys are installed");
        }
        if m.sa == self.cfg.addr {
            return; // our own group frame, sent back by the AP
        }
        self.counters.rx_data += 1;
        self.counters.rx_data_bytes += plain.len() as u64;
        let eth = frames::ethernet(&m.da, &m.sa, m.ethertype, m.payload);
        self.dp.deliver_host(now, eth, &mut self.counters, out);
        if let std::borrow::Cow::Owned(v) = plain {
            self.dp.recycle(v);
        }
    }

    fn after_handshake(&mut self, now: u64, o: handshake::Output, out: &mut Output) {
        let bssid = self.bssid().unwrap_or_default();
        for eapol in o.tx {
            let seq = self.seq.take();
            let f = frames::data(Dir::ToAp, &bssid, &bssid, &self.cfg.addr, seq, EtherType::EAPOL, &eapol);
            if self.dp.has_pairwise(&bssid) {
                self.send_protected(now, f, out);
            } else {
                self.tx(now, f, out);
            }
        }
        for e in o.events {
            match e {
                handshake::Event::InstallPtk { tk, cipher, key_id } => {
                    let rekey = self.dp.has_pairwise(&bssid);
                    if self.dp.keys().install(Some(bssid), KeyType::Pairwise, key_id, cipher, &tk, None).is_err() {
                        return self.leave(now, ReasonCode::UNSPECIFIED, out);
                    }
                    if rekey {
                        out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::PtkRekeyed });
                    }
                }
                handshake::Event::InstallGtk { gtk, cipher, key_id, rsc } => {
                    if self.dp.keys().install(Some(bssid), KeyType::Group, key_id, cipher, &gtk, Some(rsc)).is_err() {
                        return self.leave(now, ReasonCode::UNSPECIFIED, out);
                    }
                }
                handshake::Event::InstallIgtk { igtk, cipher, key_id, ipn } => {
                    // BIP frames must carry an IPN above the KDE's (12.7.2, 12.5.4.4).
                    if self.dp.keys().install(Some(bssid), KeyType::ManagementGroup, key_id, cipher, &igtk, Some(ipn)).is_err() {
                        return self.leave(now, ReasonCode::UNSPECIFIED, out);
                    }
                }
                handshake::Event::Established { pairwise, .. } => {
                    self.state = State::Established;
                    out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::Established { pairwise: Some(pairwise) } });
                }
                handshake::Event::GroupKeyDone { key_id } => {
                    out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::GroupKey { key_id } });
                }
                handshake::Event::Failed(why) => {
                    out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::HandshakeFailed(why) });
                    return self.leave(now, ReasonCode::IE_DIFFERENT, out);
                }
                handshake::Event::Dropped(_) => self.counters.drop("eapol-key refused"),
                handshake::Event::TransitionDisable(bitmap) => {
                    let applied = self.transition_disable(bitmap);
                    out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::TransitionDisable { bitmap, applied } });
                }
            }
        }
    }

    /// What a Transition Disable bitmap from the AP changes in the network (WPA3
    /// Specification 13.2; wpa_supplicant `wpas_transition_disable`): WPA3-Personal on an
    /// SAE link drops the PSK AKMs, WPA1 and TKIP and requires MFP; Enhanced Open on an
    /// OWE link sets owe_only. SAE-PK and WPA3-Enterprise have nothing to change here (wsec
    /// has neither). Kept for the life of the process (wpa_supplicant also writes them to
    /// its configuration file with `update_config=1`). Returns whether anything changed.
    fn transition_disable(&mut self, bitmap: u8) -> bool {
        use crate::rsn::kde::transition_disable as td;
        let akm = self.neg.as_ref().map(|n| n.akm);
        let mut changed = false;
        if bitmap & td::WPA3_PERSONAL != 0 && akm.is_some_and(|a| a.is_sae()) {
            if let Security::Rsn { akms, pairwise, groups, .. } = &mut self.cfg.security {
                let before = (akms.len(), pairwise.len(), groups.len());
                akms.retain(|a| !a.is_psk());
                pairwise.retain(|c| *c != CipherSuite::Tkip);
                groups.retain(|c| *c != CipherSuite::Tkip);
                if groups.is_empty() {
                    groups.push(CipherSuite::Ccmp128);
                }
                changed |= before != (akms.len(), pairwise.len(), groups.len());
            }
            changed |= self.cfg.mfp != Mfp::Required || self.cfg.proto_wpa1;
            self.cfg.mfp = Mfp::Required;
            self.cfg.proto_wpa1 = false;
        }
        if bitmap & td::ENHANCED_OPEN != 0 && akm.is_some_and(|a| a.is_owe()) && !self.cfg.owe_only {
            self.cfg.owe_only = true;
            changed = true;
        }
        changed
    }

    fn send_protected(&mut self, now: u64, f: Vec<u8>, out: &mut Output) {
        let bssid = self.bssid().unwrap_or_default();
        if self.dp.send_protected(now, Some(bssid), f, &mut self.counters, out) {
            self.last_tx = now;
        }
    }

    /// Frames from the medium, as [`Station::handle_air`] one by one; what they make the
    /// station protect goes through the engine as one batch, at the end.
    pub fn handle_air_batch<'a>(&mut self, now: u64, mpdus: impl IntoIterator<Item = &'a [u8]>, out: &mut Output) {
        datapath::air_batch(self, now, mpdus, out, Self::handle_rx);
    }

    /// Ethernet frames from the host's TAP device, as [`Station::handle_host`] one by one,
    /// protected as one batch (multi-buffer CCMP): the station's host engine of seed 000.
    pub fn handle_host_batch<'a>(&mut self, now: u64, eths: impl IntoIterator<Item = &'a [u8]>, out: &mut Output) {
        datapath::host_batch(self, now, eths, out, Self::handle_host);
    }

    /// One Ethernet frame from the host's TAP device.
    pub fn handle_host(&mut self, now: u64, eth: &[u8], out: &mut Output) {
        self.counters.rx_host += 1;
        if self.state != State::Established {
            return self.counters.drop("not associated");
        }
        let Ok((da, sa, ethertype, payload)) = frames::parse_ethernet(eth) else {
            return self.counters.drop("malformed ethernet frame");
        };
        if sa != self.cfg.addr {
            return self.counters.drop("source address is not the station's");
        }
        let bssid = self.bssid().unwrap_or_default();
        let seq = self.seq.take();
        let f = frames::data(Dir::ToAp, &bssid, &da, &sa, seq, ethertype, payload);
        self.counters.tx_data += 1;
        self.counters.tx_data_bytes += f.len() as u64;
        if self.link_open() {
            self.tx(now, f, out);
        } else {
            self.send_protected(now, f, out);
        }
    }
}

impl datapath::Core for Station {
    fn datapath_mut(&mut self) -> (&mut Datapath, &mut Counters) {
        (&mut self.dp, &mut self.counters)
    }
}

//! Joining a BSS at the station: the choice of a BSS and the negotiation of its RSN or
//! WPA element (12.6.3), authentication (12.3.3) and association (11.3.5), and the start
//! of the 4-way handshake.
use crate::cipher::CipherSuite;
use crate::node::frames::{self, BssInfo};
use crate::node::mfp::{self, Mfp};
use crate::node::{NodeEvent, Output, Phase, Security};
use crate::rsn::akm::Akm;
use crate::rsn::handshake::{self, Supplicant, Timers};
use crate::rsn::ie::{RsnCapabilities, RsnElementRepr, Suite, WpaElementRepr};
use crate::wire::mac::{MacAddr, Mpdu};
use crate::wire::mgmt::{AuthAlgorithm, AuthRepr, Capability, StatusCode};
use zeroize::Zeroizing;

use super::{owe, Link, Negotiated, Rsna, State, Station, OWE_ASSOC_WAIT_MS};

/// Picks AKM, pairwise and group cipher from the AP's RSN element and the STA's lists
/// (12.6.3: the STA's first preference the AP offers); ECCMP selectors count as ciphers.
///
/// Management frame protection per [`mfp::sta_decide`]; with MFP the pairwise cipher
/// cannot be TKIP (12.6.3), and when only TKIP is left MFP is dropped if neither side
/// requires it.
///
/// `ext_key_id` (wpa_supplicant `extended_key_id`) sets Extended Key ID in the station's
/// RSN Capabilities unless the pairwise cipher is TKIP (12.6.21); it is in use when the
/// AP's element sets it too ([`handshake::Config::extended_key_id`]).
///
/// `spp` ([`super::StaConfig::spp_amsdu`]) sets SPP A-MSDU Capable (1) and Required (2)
/// unless the pairwise cipher is TKIP; SPP A-MSDUs are used when the AP is capable too,
/// and A-MSDUs not at all when one side requires SPP and the other cannot (9.4.2.24.4).
pub(super) fn negotiate(
    ap_rsne: &[u8],
    akms: &[Akm],
    pairwise: &[CipherSuite],
    groups: &[CipherSuite],
    mfp: Mfp,
    ext_key_id: bool,
    spp: u8,
) -> Option<Negotiated> {
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
    let spp = if pw == CipherSuite::Tkip { 0 } else { spp };
    let ap_caps = e.capabilities.unwrap_or_default();
    let spp_amsdu = spp > 0 && ap_caps.spp_amsdu_capable();
    let amsdu_allowed = spp_amsdu || !(spp == 2 || ap_caps.spp_amsdu_required());
    let sta = RsnElementRepr {
        version: 1,
        group_cipher: Some(Suite::from_cipher(group)),
        pairwise: vec![Suite::from_cipher(pw)],
        akms: vec![Suite::from_akm(akm)],
        capabilities: Some({
            let caps = if mgmt.is_some() { mfp.capabilities() } else { RsnCapabilities(0) };
            let ext = if ext_key_id && pw != CipherSuite::Tkip { RsnCapabilities::EXTENDED_KEY_ID } else { 0 };
            RsnCapabilities(caps.0 | ext)
                .with(RsnCapabilities::SPP_AMSDU_CAPABLE, spp > 0)
                .with(RsnCapabilities::SPP_AMSDU_REQUIRED, spp == 2)
        }),
        pmkids: vec![],
        group_mgmt_cipher: mgmt.and_then(|g| mfp::group_mgmt_field(mfp, g)),
    };
    Some(Negotiated {
        akm,
        pairwise: pw,
        group,
        ap_rsne: ap_rsne.to_vec(),
        sta_rsne: sta.to_bytes().ok()?,
        group_mgmt: mgmt,
        spp_amsdu,
        amsdu_allowed,
    })
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
    let wpa_cipher = |c: &CipherSuite| c.wpa1_usable();
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
    Some(Negotiated {
        akm: Akm::Psk,
        pairwise: pw,
        group,
        ap_rsne: ap_ie.to_vec(),
        sta_rsne: sta.to_bytes().ok()?,
        group_mgmt: None,
        spp_amsdu: false,
        amsdu_allowed: true,
    })
}

/// The fields of a (Re)Association Response the station acts on (9.3.3.7).
pub(super) struct AssocResp<'a> {
    pub status: StatusCode,
    pub aid: u16,
    pub rsne: Option<&'a [u8]>,
    pub owe_dh: Option<&'a [u8]>,
    /// All the elements (the MDE and FTE of an FT initial mobility domain association).
    pub ies: &'a [u8],
}

impl Station {
    /// A Beacon or Probe Response while scanning: join it if SSID, BSSID and security fit.
    pub(super) fn consider(&mut self, now: u64, info: BssInfo, out: &mut Output) {
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
                let rsn = info
                    .rsne
                    .as_deref()
                    .filter(|_| self.cfg.proto_rsn)
                    .and_then(|r| negotiate(r, akms, pairwise, groups, self.cfg.mfp, self.cfg.extended_key_id, self.cfg.spp_amsdu));
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
        self.state = State::Authenticating { link: Link::new(info, neg), shared };
        self.last_from_ap = now;
        self.tries = 0;
        self.send_auth(now, out);
    }

    /// Authentication frame 1 (open system or shared key, 12.3.3), or SAE (12.4).
    pub(super) fn send_auth(&mut self, now: u64, out: &mut Output) {
        // SAE, unless a cached PMKSA with this AP lets us skip it: open system
        // authentication, then the PMKID in the Association Request (12.6.10.3).
        let sae = self.state.link().is_some_and(|l| l.neg.as_ref().is_some_and(|n| n.akm.is_sae()) && !l.pmksa_in_use);
        if sae && !self.use_cached_pmksa(now) {
            return self.sae_start(now, out);
        }
        // 802.1X: a cached PMKSA with this AP puts its PMKID in the Association Request.
        let eap = self.state.link().is_some_and(|l| l.neg.as_ref().is_some_and(|n| n.akm.is_8021x()) && !l.pmksa_in_use);
        if eap {
            self.use_cached_pmksa(now);
        }
        let Some(b) = self.bssid() else { return };
        let shared = matches!(self.state, State::Authenticating { shared: true, .. });
        let alg = if shared { AuthAlgorithm::SHARED_KEY } else { AuthAlgorithm::OPEN_SYSTEM };
        let seq = self.seq.take();
        let f = frames::auth(&b, &self.cfg.addr, &b, seq, AuthRepr::new(alg, 1, StatusCode::SUCCESS));
        self.tx(now, f, out);
        self.tries += 1;
        self.deadline = now + self.cfg.retry_ms * 1_000_000;
    }

    /// The Association Request (11.3.5.2) with our RSN or WPA element.
    pub(super) fn send_assoc(&mut self, now: u64, out: &mut Output) {
        let Some((bssid, ssid)) = self.state.link().map(|l| (l.bss.bssid, l.bss.ssid.clone())) else { return };
        let capability = Capability(Capability::ESS | Capability::SHORT_PREAMBLE).with(Capability::PRIVACY, !self.link_open());
        let seq = self.seq.take();
        // OWE: the Diffie-Hellman Parameter element after the RSNE (and RSNXE).
        let dh = self.owe_assoc_elements(now);
        let dh_sent = !dh.is_empty();
        // FT initial mobility domain association (13.4): the AP's MDE after the RSNE.
        let mde = self.ft_assoc_mde().unwrap_or_default();
        let rsne = self.neg().map(|n| [self.with_rsnxe(n.akm, n.sta_rsne.clone()), dh, mde].concat());
        // HT Capabilities and the WMM Information element to an AP that offered HT and
        // WMM (after the RSNE and MDE; the vendor element last, 9.3.3.6 Table 9-36).
        let qos = self.assoc_qos_elements();
        let rsne = match (rsne, qos.is_empty()) {
            (r, true) => r,
            (r, false) => Some([r.unwrap_or_default(), qos].concat()),
        };
        // The BSS's SSID: the configured one, or the hidden OWE BSS's in transition mode.
        let f = match self.reassoc_from.filter(|(target, _)| *target == bssid) {
            Some((_, current)) => {
                frames::reassoc_req(&self.cfg.addr, &bssid, seq, capability, &ssid, &current, rsne.as_deref().unwrap_or_default())
            }
            None => frames::assoc_req(&self.cfg.addr, &bssid, seq, capability, &ssid, rsne.as_deref()),
        };
        self.tx(now, f, out);
        self.tries += 1;
        // An OWE AP runs an ECDH before it answers (hostapd under emulation: over 200 ms
        // for group 20); a second request makes hostapd restart the association and its
        // 4-way handshake under the first one (mac80211 waits 500 ms after an acknowledged
        // request). Give it a second.
        let wait_ms = if dh_sent { self.cfg.retry_ms.max(OWE_ASSOC_WAIT_MS) } else { self.cfg.retry_ms };
        self.deadline = now + wait_ms * 1_000_000;
    }

    /// What the station offers the chosen AP beyond its security: HT Capabilities when
    /// both are HT, the WMM Information element when both do WMM (wpa_supplicant and
    /// mac80211 send HT only to a QoS AP).
    fn assoc_qos_elements(&self) -> Vec<u8> {
        self.state.link().map(|l| self.qos_elements_for(&l.bss)).unwrap_or_default()
    }

    /// [`Station::assoc_qos_elements`] for the AP `bss` (also an FT target).
    pub(super) fn qos_elements_for(&self, bss: &crate::node::frames::BssInfo) -> Vec<u8> {
        if !self.cfg.wmm || bss.wmm.is_none() {
            return Vec::new();
        }
        crate::node::qos::sta_elements(self.cfg.ht_capab.filter(|_| bss.ht.is_some()))
    }

    /// What the AP's (Re)Association Response `ies` say of QoS and A-MSDUs, against what
    /// we sent: none when SPP A-MSDU rules them out (9.4.2.24.4, Table 9-153).
    pub(super) fn ap_qos(&self, ies: &[u8]) -> crate::node::qos::PeerQos {
        let sent = self.assoc_qos_elements();
        let our_ht = crate::wire::element::find(&sent, crate::wire::element::id::HT_CAPABILITIES).ok().flatten().is_some();
        let mut q = crate::node::qos::PeerQos::from_ies(ies, our_ht, !sent.is_empty(), crate::wire::wmm::SUBTYPE_PARAM);
        if self.neg().is_some_and(|n| !n.amsdu_allowed) {
            q.max_amsdu = None;
        }
        q
    }

    /// An Authentication frame from the AP while authenticating (12.3.3): success moves
    /// on to association; a shared key challenge is answered with frame 3, WEP-encrypted
    /// (12.3.3.3.3).
    pub(super) fn auth_response(
        &mut self,
        now: u64,
        alg: AuthAlgorithm,
        seq: u16,
        st: StatusCode,
        challenge: Option<&[u8]>,
        out: &mut Output,
    ) {
        let State::Authenticating { shared, .. } = self.state else { return };
        let bssid = self.bssid().unwrap_or_default();
        if st != StatusCode::SUCCESS {
            self.counters.drop("authentication refused");
            return self.reset(now, self.cfg.retry_ms * 5);
        }
        match (shared, alg, seq, challenge) {
            (false, AuthAlgorithm::OPEN_SYSTEM, 2, _) | (true, AuthAlgorithm::SHARED_KEY, 4, _) => {
                out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::Authenticated { shared_key: shared } });
                self.enter_associating();
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

    /// The (Re)Association Response (11.3.5.4): OWE's part first (RFC 8110 4.4); a
    /// temporary refusal comes back after the comeback time (11.13), a refusal scans
    /// again, success starts the 4-way handshake of an RSNA or opens data.
    pub(super) fn assoc_response(&mut self, now: u64, mpdu: &Mpdu<'_>, resp: AssocResp<'_>, out: &mut Output) {
        let AssocResp { status: st, aid, rsne, owe_dh, ies } = resp;
        self.reassoc_from = None;
        let bssid = self.bssid().unwrap_or_default();
        let owe = match self.owe_assoc_resp(now, st, rsne, owe_dh, out) {
            owe::OweResp::Done => return,
            owe::OweResp::Keys(akm, pmk) => Some((akm, pmk)),
            owe::OweResp::NotOwe => None,
        };
        if st == StatusCode::REFUSED_TEMPORARILY {
            // 11.13: the AP checks our old association with an SA Query; come back
            // after the time it names (Timeout Interval, type 3).
            self.counters.drop("association refused temporarily");
            let tu = frames::assoc_comeback_tu_mpdu(mpdu).unwrap_or(mfp::SA_QUERY_MAX_TU as u32).clamp(1, 10_000);
            self.deadline = now + tu as u64 * crate::node::TU;
            return;
        }
        if st != StatusCode::SUCCESS {
            self.counters.drop("association refused");
            if self.state.link().is_some_and(|l| l.pmksa_in_use) {
                // The AP does not know our PMKID (status 53, or 43 from wsec): forget
                // its entry and run SAE next time, without a backoff.
                self.pmksa.remove(&bssid);
                return self.reset(now, self.cfg.retry_ms);
            }
            return self.reset(now, self.cfg.retry_ms * 5);
        }
        let n = self.neg().cloned();
        let qos = self.ap_qos(ies);
        self.tid_seq = Default::default();
        if let Some(l) = self.state.link_mut() {
            l.qos = qos;
        }
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
                    None if n.akm.is_sae() => (n.akm, self.state.link().and_then(|l| l.sae_pmk.clone()).unwrap_or_default()),
                    None => (n.akm, pmk.clone()),
                };
                // 802.1X: the handshake runs under the cached PMKSA's PMK, or waits for
                // the PMK of EAP (a zero PMK until then: the authenticator sends no
                // message 1 before its Access-Accept). Either way EAP may come: an AP
                // without our PMKSA starts it.
                let eap = akm.is_8021x();
                let cached = self.state.link().filter(|l| l.pmksa_in_use).and_then(|l| l.sae_pmk.clone());
                let pmk = match (eap, cached) {
                    (true, Some(c)) => c,
                    (true, None) => Zeroizing::new(vec![0; akm.pmk_len()]),
                    (false, _) => pmk,
                };
                let ft = if akm.is_ft() && eap {
                    // The XXKey comes from the MSK: the key hierarchy after EAP.
                    if let Some(l) = self.state.link_mut() {
                        l.ft_resp_ies = Some(ies.to_vec());
                    }
                    None
                } else if akm.is_ft() {
                    match self.ft_initial(akm, ies) {
                        Some(f) => Some(f),
                        None => {
                            self.counters.drop("ft association response without MDE or FTE");
                            return self.leave(now, crate::wire::mgmt::ReasonCode::UNSPECIFIED, out);
                        }
                    }
                } else {
                    None
                };
                self.start_handshake(now, bssid, akm, pmk, n);
                if let (Some(f), State::Handshake(_, r)) = (ft, &mut self.state) {
                    r.supplicant.set_ft(f);
                }
                if eap {
                    self.eap_begin(now);
                }
            }
            _ => {
                self.advance(|s| s.into_link().map_or(State::Scanning, |link| State::Established(link, None)));
                out.events.push(NodeEvent::Phase { peer: bssid, phase: Phase::Established { pairwise: None } });
            }
        }
    }

    /// The [`Supplicant`] of the 4-way handshake (12.7.6) with the AP, under `akm`'s
    /// key hierarchy and `pmk`.
    pub(super) fn start_handshake(&mut self, now: u64, bssid: MacAddr, akm: Akm, pmk: Zeroizing<Vec<u8>>, n: Negotiated) {
        let hc = handshake::Config {
            akm,
            pairwise: n.pairwise,
            group: n.group,
            group_mgmt: n.group_mgmt,
            pmk,
            aa: bssid,
            spa: self.cfg.addr,
            // The Beacon's RSNXE too: message 3 must repeat it (12.7.6.4).
            ap_rsne: match self.state.link().and_then(|l| l.bss.rsnxe.clone()) {
                Some(x) if !crate::rsn::ie::is_wpa_element(&n.ap_rsne) => [n.ap_rsne, x].concat(),
                _ => n.ap_rsne,
            },
            sta_rsne: self.with_rsnxe(n.akm, n.sta_rsne),
            timers: Timers::default(),
        };
        let supplicant = Supplicant::new(hc, crate::rng::fork(&mut *self.rng));
        self.advance(|s| match s.into_link() {
            Some(link) => State::Handshake(link, Box::new(Rsna { supplicant, sa_query: None })),
            None => State::Scanning,
        });
        self.deadline = now + self.cfg.handshake_timeout_ms * 1_000_000;
    }
}

//! Authentication and association at the AP: open system and shared key
//! authentication (12.3.3), the (Re)Association Request and its response (11.3.5), and
//! the negotiation of the station's RSN or WPA element against our offer (12.6.3).
use crate::cipher::CipherSuite;
use crate::node::frames::{self, Mgmt};
use crate::node::mfp::{self, SaQuery};
use crate::node::{AuthAlgs, NodeEvent, Output, Phase, Security};
use crate::rsn::akm::Akm;
use crate::rsn::handshake::{self, Authenticator};
use crate::rsn::ie::{RsnElementRepr, Suite, WpaElementRepr};
use crate::wire::mac::MacAddr;
use crate::wire::mgmt::{AuthAlgorithm, AuthRepr, ReasonCode, StatusCode};
use std::collections::HashSet;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::owe::OweAssoc;
use super::{AccessPoint, Association, Negotiated, Peer, PeerState, Rsna};

/// What a station's RSN or WPA element chose from our offer (12.6.3).
#[derive(Debug, Clone, Copy)]
pub(super) struct Choice {
    pub(super) akm: Akm,
    pub(super) pairwise: CipherSuite,
    pub(super) group: CipherSuite,
    /// The group management cipher when MFP is used.
    pub(super) group_mgmt: Option<CipherSuite>,
}

/// What the AP reads from a (Re)Association Request.
pub(super) struct AssocReq {
    pub(super) ssid_ok: bool,
    /// The station's RSN (or WPA) element the AP negotiates.
    pub(super) rsne: Option<Vec<u8>>,
    pub(super) owe_dh: Option<Vec<u8>>,
    /// All the elements (the MDE of an FT initial mobility domain association).
    pub(super) ies: Vec<u8>,
    /// A Reassociation Request (answered with a Reassociation Response, 11.3.5.5).
    pub(super) reassoc: bool,
}

/// What a (Re)Association Request negotiated, with the OWE exchange and SAE PMK its
/// handshake will use.
struct AssocOffer {
    choice: Result<Option<Choice>, StatusCode>,
    owe: Option<OweAssoc>,
    sae_pmk: Option<Zeroizing<Vec<u8>>>,
    reassoc: bool,
}

/// An accepted offer: what the association installs (the negotiated suites, and the PMK
/// that OWE or SAE produced).
struct Granted {
    choice: Option<Choice>,
    owe: Option<OweAssoc>,
    sae_pmk: Option<Zeroizing<Vec<u8>>>,
}

impl AccessPoint {
    /// An Authentication frame 1 (open system or shared key, 12.3.3): a new station, or
    /// one that restarted, is authenticated or challenged.
    pub(super) fn auth_request(&mut self, now: u64, sta: &MacAddr, alg: AuthAlgorithm, out: &mut Output) {
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
        self.forget_keys(sta, out);
        if alg == AuthAlgorithm::SHARED_KEY {
            let c: [u8; 128] = crate::rng::array(&mut *self.rng);
            self.peers.insert(*sta, Peer::new(now, PeerState::Challenged { challenge: c }));
            let f = frames::auth(sta, &bssid, &bssid, seq, AuthRepr::new(alg, 2, StatusCode::SUCCESS).with_challenge(&c));
            return self.tx_mgmt(f, out);
        }
        self.peers.insert(*sta, Peer::new(now, PeerState::Authenticated));
        let f = frames::auth(sta, &bssid, &bssid, seq, AuthRepr::new(alg, 2, StatusCode::SUCCESS));
        self.tx_mgmt(f, out);
        out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Authenticated { shared_key: false } });
    }

    /// Shared-key authentication frame 3 (12.3.3.3.3): WEP-decrypt, compare the challenge
    /// in constant time, answer with frame 4.
    pub(super) fn shared_key_frame3(&mut self, now: u64, sta: &MacAddr, mpdu: &[u8], out: &mut Output) {
        let expected = match self.peers.get(sta) {
            Some(Peer { state: PeerState::Challenged { challenge }, .. }) => *challenge,
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
    /// ([`mfp::ap_decide`]).
    pub(super) fn check_sta_rsne(&self, rsne: &[u8]) -> Result<Choice, StatusCode> {
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
        Ok(Choice { akm, pairwise: pw, group: groups[0], group_mgmt: mgmt })
    }

    /// A WPA1 station's WPA element against ours (hostapd `wpa_validate_wpa_ie`, WPA
    /// branch): our group cipher, one pairwise cipher of `wpa_pairwise`, WPA-PSK; no MFP.
    fn check_sta_wpa_ie(&self, ie: &[u8], akms: &[Akm], group: CipherSuite) -> Result<Choice, StatusCode> {
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
        Ok(Choice { akm, pairwise: pw, group, group_mgmt: None })
    }

    /// A (Re)Association Request (11.3.5.3, 11.3.5.5): from an authenticated station,
    /// an SA Query first when it has an MFP association (11.13), then the negotiation of
    /// its RSN or WPA element, the response, and the association with its 4-way
    /// handshake.
    pub(super) fn assoc_request(&mut self, now: u64, sta: &MacAddr, req: AssocReq, out: &mut Output) {
        let AssocReq { ssid_ok, rsne, owe_dh, ies, reassoc } = req;
        let owe_dh = owe_dh.as_deref();
        let authed = self.peers.get(sta).is_some_and(|p| !matches!(p.state, PeerState::Challenged { .. } | PeerState::Sae));
        if !authed {
            // Class 2 frame from an unauthenticated STA (11.3.3).
            let bssid = self.cfg.bssid;
            let seq = self.seq.take();
            let f = frames::deauth(sta, &bssid, &bssid, seq, ReasonCode::PREV_AUTH_NOT_VALID, true);
            self.counters.drop("association before authentication");
            return self.tx_mgmt(f, out);
        }
        if self.assoc_sa_query(now, sta, out) {
            return;
        }
        let mut offer = self.negotiate_assoc(now, sta, ssid_ok, rsne.as_deref(), owe_dh);
        offer.reassoc = reassoc;
        if let Ok(Some(c)) = &offer.choice {
            if let Err(st) = self.ft_check_initial(c.akm, &ies) {
                offer.choice = Err(st);
            }
        }
        let Some(aid) = self.assoc_response(sta, &offer, out) else { return };
        let AssocOffer { choice, owe, sae_pmk, .. } = offer;
        let Ok(choice) = choice else { return };
        let qos = self.station_qos(&ies, rsne.as_deref());
        if let Some(p) = self.peers.get_mut(sta) {
            (p.qos, p.tid_seq) = (qos, Default::default());
        }
        self.associate(now, sta, aid, rsne, Granted { choice, owe, sae_pmk }, out);
    }

    /// 11.13: an MFP station asks to associate again. Either it restarted and lost its
    /// keys, or someone forges its address: answer "try again later" with the
    /// association comeback time and ask the associated station with an SA Query. Returns
    /// whether the request was answered so; a query that timed out ends the old
    /// association and the request goes on.
    fn assoc_sa_query(&mut self, now: u64, sta: &MacAddr, out: &mut Output) -> bool {
        if !self.peer_mfp(sta) || !self.peers.get(sta).is_some_and(|p| p.state.is_associated()) {
            return false;
        }
        let q = self.peers.get_mut(sta).and_then(|p| p.sa_query_mut()).and_then(|q| q.take());
        let (q, first) = match q {
            Some(q) if q.expired(now) => {
                self.counters.drop("sa query timeout");
                self.drop_association(sta, out);
                return false;
            }
            Some(q) => (q, None),
            None => {
                let (q, id) = SaQuery::start(now, &mut *self.rng);
                (q, Some(id))
            }
        };
        let bssid = self.cfg.bssid;
        let seq = self.seq.take();
        let aid = self.peers.get(sta).map(|p| p.aid).unwrap_or(0);
        let mut f = frames::assoc_resp(sta, &bssid, seq, self.capability(), StatusCode::REFUSED_TEMPORARILY, aid);
        frames::add_comeback(&mut f, q.comeback_tu(now));
        self.tx_mgmt(f, out);
        self.counters.drop("association refused: sa query");
        if let Some(s) = self.peers.get_mut(sta).and_then(|p| p.sa_query_mut()) {
            *s = Some(q);
        }
        if let Some(id) = first {
            self.send_sa_query(now, sta, true, id, out);
        }
        true
    }

    /// Negotiates the station's RSN or WPA element (12.6.3) with the PMK it needs: SAE's
    /// (AKM 8, an exchange with this station or a cached PMKSA, 12.4.5.4, 12.6.10.3) or
    /// OWE's (AKM 18, the Diffie-Hellman exchange or a cached PMKSA, RFC 8110 4.3).
    fn negotiate_assoc(&mut self, now: u64, sta: &MacAddr, ssid_ok: bool, rsne: Option<&[u8]>, owe_dh: Option<&[u8]>) -> AssocOffer {
        let sae_pmk = self.peers.get(sta).and_then(|p| p.sae_pmk.clone()).or_else(|| self.cached_pmk(now, sta, rsne));
        let choice = match (&self.cfg.security, rsne) {
            (_, _) if !ssid_ok => Err(StatusCode::UNSPECIFIED),
            // AKM 8 needs the PMK of a SAE exchange with this station (12.4.5.4).
            (Security::Rsn { .. }, Some(r)) => self.check_sta_rsne(r).and_then(|n| match n.akm {
                a if a.is_sae() && sae_pmk.is_none() => Err(StatusCode::INVALID_AKMP),
                _ => Ok(Some(n)),
            }),
            (Security::Rsn { .. }, None) => Err(StatusCode::INVALID_ELEMENT),
            (_, Some(_)) => Err(StatusCode::INVALID_ELEMENT),
            (_, None) => Ok(None),
        };
        let mut owe = None;
        let choice = match choice {
            Ok(Some(n)) if n.akm == Akm::Owe => match self.owe_assoc(now, sta, rsne.unwrap_or_default(), owe_dh) {
                Ok(o) => {
                    owe = Some(o);
                    Ok(Some(n))
                }
                Err(st) => Err(st),
            },
            other => other,
        };
        AssocOffer { choice, owe, sae_pmk, reassoc: false }
    }

    /// The (Re)Association Response (9.3.3.6) with its AID, status and, for OWE, our RSN
    /// and Diffie-Hellman Parameter elements; the AID when it says success.
    fn assoc_response(&mut self, sta: &MacAddr, offer: &AssocOffer, out: &mut Output) -> Option<u16> {
        let seq = self.seq.take();
        let used: HashSet<u16> = self.peers.values().map(|p| p.aid).collect();
        let aid = match self.peers.get(sta) {
            Some(p) if p.aid != 0 => p.aid,
            _ => (1..=2007u16).find(|a| !used.contains(a)).unwrap_or(0),
        };
        let st = match offer.choice {
            Err(st) => st,
            Ok(_) if aid == 0 => StatusCode::AP_FULL,
            Ok(_) => StatusCode::SUCCESS,
        };
        let mut f = frames::any_assoc_resp(sta, &self.cfg.bssid, seq, self.capability(), st, aid, offer.reassoc);
        if let Some(o) = offer.owe.as_ref().filter(|_| st == StatusCode::SUCCESS) {
            // Elements are the last thing in the body: our RSNE and the DH element.
            f.extend_from_slice(&o.resp_elements);
        }
        if matches!(offer.choice, Ok(Some(c)) if c.akm.is_ft()) && st == StatusCode::SUCCESS {
            // FT initial mobility domain association (13.4): MDE and FTE (R1KH-ID, R0KH-ID).
            if let Some((mde, fte)) = self.ft_initial_resp_ies() {
                f.extend_from_slice(&mde);
                f.extend_from_slice(&fte);
            }
        }
        if st == StatusCode::SUCCESS {
            // HT Capabilities, HT Operation, WMM Parameter: as in our Beacons (hostapd
            // sends them whatever the station advertised).
            f.extend_from_slice(&self.ht_ies);
            f.extend_from_slice(&self.wmm_ie);
        }
        self.tx_mgmt(f, out);
        if st != StatusCode::SUCCESS {
            self.counters.drop("association refused");
            return None;
        }
        Some(aid)
    }

    /// What a station's (Re)Association Request `ies` say of QoS and A-MSDUs, against what
    /// we advertise: none when SPP A-MSDU rules them out ([`AccessPoint::spp_amsdu_of`]).
    pub(super) fn station_qos(&self, ies: &[u8], rsne: Option<&[u8]>) -> crate::node::qos::PeerQos {
        let mut q =
            crate::node::qos::PeerQos::from_ies(ies, !self.ht_ies.is_empty(), !self.wmm_ie.is_empty(), crate::wire::wmm::SUBTYPE_INFO);
        if !self.spp_amsdu_of(rsne).1 {
            q.max_amsdu = None;
        }
        q
    }

    /// SPP A-MSDUs with the station whose RSN element is `rsne`, and whether A-MSDUs are
    /// allowed at all (9.4.2.24.4, Table 9-153): SPP when both set SPP A-MSDU Capable
    /// (ours: `spp_amsdu`); none when either requires SPP and the other cannot. A WPA1
    /// element has no RSN Capabilities (no SPP), nor does TKIP carry A-MSDUs.
    pub(super) fn spp_amsdu_of(&self, rsne: Option<&[u8]>) -> (bool, bool) {
        let caps = rsne.filter(|r| !crate::rsn::ie::is_wpa_element(r)).and_then(|r| RsnElementRepr::parse(r).ok());
        let tkip =
            caps.as_ref().is_some_and(|e| e.pairwise.iter().all(|s| s.cipher() == Some(CipherSuite::Tkip)) && !e.pairwise.is_empty());
        let caps = caps.and_then(|e| e.capabilities).unwrap_or_default();
        let ours = if tkip { 0 } else { self.cfg.spp_amsdu };
        let spp = ours > 0 && caps.spp_amsdu_capable();
        (spp, spp || !(ours == 2 || caps.spp_amsdu_required()))
    }

    /// The station is associated under `aid`: an RSNA starts its 4-way handshake
    /// (12.7.6), any other BSS has data open at once.
    fn associate(&mut self, now: u64, sta: &MacAddr, aid: u16, rsne: Option<Vec<u8>>, granted: Granted, out: &mut Output) {
        let Granted { choice, owe, sae_pmk } = granted;
        // A reassociation restarts the keys from scratch.
        self.forget_keys(sta, out);
        let use_mfp = choice.is_some_and(|c| c.group_mgmt.is_some());
        let (spp_amsdu, amsdu_allowed) = self.spp_amsdu_of(rsne.as_deref());
        // Before the 4-way handshake installs the PTK (12.5.3.3.3).
        self.dp.keys().set_spp_amsdu(*sta, spp_amsdu);
        let Some(p) = self.peers.get_mut(sta) else { return };
        p.aid = aid;
        p.last_rx = now;
        let association = Association { mfp: use_mfp, sa_query: None, rsna: None };
        let (Some(c), Security::Rsn { pmk, .. }) = (choice, &self.cfg.security) else {
            p.state = PeerState::Established(association);
            p.associated_at = now;
            out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Associated { aid, akm: None, pairwise: None, group: None } });
            out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::Established { pairwise: None } });
            out.host.push(crate::node::frames::layer2_update(sta));
            return;
        };
        let wpa1 = rsne.as_deref().is_some_and(crate::rsn::ie::is_wpa_element);
        p.state = PeerState::Associated(association);
        p.negotiated = Some(Negotiated { akm: c.akm, pairwise: c.pairwise, wpa1, spp_amsdu, amsdu_allowed });
        p.associated_at = now;
        out.events.push(NodeEvent::Phase {
            peer: *sta,
            phase: Phase::Associated { aid, akm: Some(c.akm), pairwise: Some(c.pairwise), group: Some(c.group) },
        });
        let (hs_akm, pmk) = match (c.akm, owe) {
            (a, _) if a.is_sae() => (c.akm, sae_pmk.unwrap_or_default()),
            (Akm::Owe, Some(o)) => (o.akm, o.pmk),
            // 802.1X: the PMK comes from the EAP exchange (or a cached PMKSA).
            (a, _) if a.is_8021x() => match sae_pmk {
                Some(pmk) => {
                    self.dot1x_cached(sta, c, rsne.clone());
                    if let Some(from) = self.pmksa.get(sta).and_then(|c| c.okc_from) {
                        out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::OkcMatch { from } });
                    }
                    out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::PmksaCached });
                    (a, pmk)
                }
                None => {
                    self.dot1x_start(now, sta, c, rsne, out);
                    return;
                }
            },
            _ => (c.akm, pmk.clone()),
        };
        self.start_4way(now, sta, c, hs_akm, pmk, rsne, out);
    }

    /// The 4-way handshake with the PMK in hand (12.7.6): the association's suites, its
    /// RSNE and the Beacon's.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn start_4way(
        &mut self,
        now: u64,
        sta: &MacAddr,
        c: Choice,
        hs_akm: Akm,
        pmk: Zeroizing<Vec<u8>>,
        rsne: Option<Vec<u8>>,
        out: &mut Output,
    ) {
        let wpa1 = rsne.as_deref().is_some_and(crate::rsn::ie::is_wpa_element);
        let use_mfp = c.group_mgmt.is_some();
        let group_keys = self.group_for_new_station(use_mfp);
        let hc = handshake::Config {
            akm: hs_akm,
            pairwise: c.pairwise,
            group: c.group,
            group_mgmt: c.group_mgmt,
            pmk,
            aa: self.cfg.bssid,
            spa: *sta,
            // A WPA1 station's handshake repeats the WPA elements (and so runs as WPA1).
            ap_rsne: if wpa1 {
                self.wpa_ie.clone().unwrap_or_default()
            } else {
                // Message 3 repeats the RSNE and the RSNXE of the Beacon (12.7.6.4).
                let mut e = self.rsne.clone().unwrap_or_default();
                if self.cfg.sae.as_ref().is_some_and(|s| s.offers_h2e()) {
                    e.extend_from_slice(&crate::node::sae::rsnxe_h2e());
                }
                e
            },
            sta_rsne: rsne.unwrap_or_default(),
            timers: self.cfg.eapol_timers,
        };
        let Some(gk) = group_keys else { return };
        let ft = if hs_akm.is_ft() {
            let sae_pmk = hs_akm.is_sae().then(|| hc.pmk.clone());
            match self.ft_initial_handshake(now, sta, hs_akm, c.pairwise, sae_pmk.as_ref(), out) {
                Some(f) => Some(f),
                None => return self.deauth(sta, crate::wire::mgmt::ReasonCode::UNSPECIFIED, out),
            }
        } else {
            None
        };
        let Some(p) = self.peers.get_mut(sta) else { return };
        let mut a = Authenticator::new(hc, gk, crate::rng::fork(&mut *self.rng));
        if let Some(f) = ft {
            a.set_ft(f);
        }
        a.set_transition_disable(self.cfg.transition_disable);
        if self.cfg.extended_key_id == 2 {
            a.set_first_key_id(1);
        }
        let o = a.start(now);
        if let Some(assoc) = p.state.association_mut() {
            assoc.rsna = Some(Rsna { auth: a, deadline: None, ptk_rekey_at: None });
        }
        self.after_handshake(now, sta, o, out);
    }
}

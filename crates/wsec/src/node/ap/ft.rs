//! Fast BSS transition at the AP (IEEE 802.11-2020 13): the FT initial mobility domain
//! association (13.4; the MDE and FTE in the Association Response, the 4-way handshake under
//! PMK-R1), the FT Authentication (13.5.2, 13.8.3) and the Reassociation that completes a
//! transition (13.8.4, 13.8.5: the FTE MIC, the GTK and IGTK wrapped with the new KEK, no
//! 4-way handshake), with hostapd's checks and status codes (`wpa_ft_process_auth_req`,
//! `wpa_ft_validate_reassoc`).
//!
//! The key holders (12.7.1.6): this BSS is R1KH under its `r1_key_holder` and R0KH under
//! its `nas_identifier` for the stations that made their initial association here. An FT-PSK
//! PMK-R1 may be derived from the PSK at any AP (hostapd `ft_psk_generate_local`); others
//! come from the PMK-R0 of a BSS of the same [`FtDomain`].
use crate::node::{NodeEvent, Output, Phase, Security};
use crate::rsn::akm::Akm;
use crate::rsn::ft::{self, FtElements, Fte, PmkR0, PmkR1};
use crate::rsn::handshake::{self, authenticator::GroupKeys, FtHandshake};
use crate::rsn::kdf::Ptk;
use crate::wire::mac::MacAddr;
use crate::wire::mgmt::{AuthAlgorithm, AuthRepr, StatusCode};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::assoc::Choice;
use super::{AccessPoint, Association, Negotiated, PeerState, Rsna};
use crate::node::frames;

/// The FT settings of a BSS (hostapd's keys).
#[derive(Debug, Clone)]
pub struct FtSettings {
    /// `mobility_domain`: the MDID.
    pub mdid: [u8; 2],
    /// `nas_identifier`: the R0KH-ID of this AP (1-48 octets).
    pub r0kh_id: Vec<u8>,
    /// `r1_key_holder`: the R1KH-ID (hostapd's default: the BSSID).
    pub r1kh_id: MacAddr,
    /// `ft_over_ds`: FT over the DS offered in the MDE (13.5.3).
    pub over_ds: bool,
    /// `ft_psk_generate_local`: an FT-PSK PMK-R1 is derived from the PSK here, no key
    /// holder asked.
    pub psk_generate_local: bool,
    /// `reassociation_deadline` (TUs), sent in message 3's Timeout Interval.
    pub reassoc_deadline_tu: u32,
    /// `ft_r0_key_lifetime` (s): how long a PMK-R0 and the PMK-R1s from it last.
    pub r0_key_lifetime_s: u32,
    /// `r0kh=` lines: the R0KHs this R1KH may PULL from (RRB, [`crate::rsn::rrb`]).
    pub r0kh: Vec<crate::rsn::rrb::RemoteR0kh>,
    /// `r1kh=` lines: the R1KHs this R0KH answers and PUSHes to.
    pub r1kh: Vec<crate::rsn::rrb::RemoteR1kh>,
    /// `pmk_r1_push`: PUSH the PMK-R1s to every R1KH after an initial association.
    pub pmk_r1_push: bool,
}

impl FtSettings {
    /// hostapd's defaults around a mobility domain and an R0KH-ID.
    pub fn new(mdid: [u8; 2], r0kh_id: &[u8], r1kh_id: MacAddr) -> FtSettings {
        FtSettings {
            mdid,
            r0kh_id: r0kh_id.to_vec(),
            r1kh_id,
            over_ds: true,
            psk_generate_local: false,
            reassoc_deadline_tu: 1000,
            r0_key_lifetime_s: 1_209_600,
            r0kh: Vec::new(),
            r1kh: Vec::new(),
            pmk_r1_push: false,
        }
    }

    pub fn mde(&self) -> Vec<u8> {
        ft::mde(self.mdid, self.over_ds)
    }
}

/// A PMK-R0 held by its R0KH (12.7.1.6.3): for whom, under which AKM and cipher, until when.
#[derive(Clone)]
pub(super) struct R0Entry {
    pmk_r0: PmkR0,
    sta: MacAddr,
    akm: Akm,
    r0kh_id: Vec<u8>,
    expires: u64,
}

/// The PMK-R0s the BSSs of one process hold, so that a station can roam between them
/// without a key holder protocol between processes (hostapd hands its RRB messages from
/// one BSS to another of its process directly).
#[derive(Default)]
pub struct FtDomain {
    r0: Mutex<BTreeMap<[u8; 16], R0Entry>>,
}

impl FtDomain {
    pub fn new() -> Arc<FtDomain> {
        Arc::new(FtDomain::default())
    }

    fn publish(&self, e: R0Entry) {
        if let Ok(mut m) = self.r0.lock() {
            m.insert(e.pmk_r0.name, e);
        }
    }

    fn find(&self, now: u64, r0_name: &[u8; 16], sta: &MacAddr, r0kh_id: &[u8]) -> Option<R0Entry> {
        let mut m = self.r0.lock().ok()?;
        m.retain(|_, e| e.expires > now);
        m.get(r0_name).filter(|e| e.sta == *sta && e.r0kh_id == r0kh_id).cloned()
    }
}

/// An accepted FT Authentication (13.5.2): what its Reassociation must match and the PTK
/// it installs.
pub(super) struct FtSession {
    choice: Choice,
    pmk_r1: PmkR1,
    r0kh_id: Vec<u8>,
    anonce: [u8; 32],
    snonce: [u8; 32],
    ptk: Box<Ptk>,
    /// Over the DS: the exchange came through this AP (the station's Current AP).
    over_ds: bool,
    /// The response's elements, sent again for a repeated request (same SNonce).
    pub(super) resp_ies: Vec<u8>,
}

/// A completed transition (13.8.5): a Reassociation Request repeated before its answer
/// arrived (the station's MLME resends after 100-200 ms) gets that answer again.
pub(super) struct FtDone {
    snonce: [u8; 32],
    anonce: [u8; 32],
    resp_ies: Vec<u8>,
}

impl FtSession {
    pub(super) fn snonce(&self) -> &[u8; 32] {
        &self.snonce
    }
}

impl AccessPoint {
    /// This BSS's MDE, for Beacons, Probe Responses and (Re)Association Responses.
    pub(super) fn ft_mde(&self) -> Option<Vec<u8>> {
        self.cfg.ft.as_ref().map(FtSettings::mde)
    }

    /// Joins the BSSs of this process that share their PMK-R0s.
    pub fn join_ft_domain(&mut self, d: Arc<FtDomain>) {
        self.ft_domain = Some(d);
    }

    /// The XXKey of `akm` (12.7.1.6.3): the PSK for FT-PSK, the PMK of SAE for FT-SAE.
    fn xxkey(&self, akm: Akm, sae_pmk: Option<&Zeroizing<Vec<u8>>>, sta: Option<&MacAddr>) -> Option<Zeroizing<Vec<u8>>> {
        match (akm, &self.cfg.security) {
            (Akm::FtPsk, Security::Rsn { pmk, .. }) => Some(pmk.clone()),
            (Akm::FtSae, _) => sae_pmk.cloned(),
            (a, _) if a.is_8021x() => self.peers.get(sta?).and_then(|p| p.ft_xxkey.clone()),
            _ => None,
        }
    }

    /// FT initial mobility domain association (13.4): the MDE of the Association Request
    /// names our mobility domain (hostapd `wpa_validate_wpa_ie`: status 54 otherwise).
    pub(super) fn ft_check_initial(&self, akm: Akm, ies: &[u8]) -> Result<(), StatusCode> {
        if !akm.is_ft() {
            return Ok(());
        }
        let Some(s) = &self.cfg.ft else { return Err(StatusCode::INVALID_AKMP) };
        match FtElements::find(ies).mdid() {
            Some(m) if m == s.mdid => Ok(()),
            _ => Err(StatusCode::INVALID_MDE),
        }
    }

    /// The MDE and FTE (R1KH-ID, R0KH-ID) of the Association Response of an FT initial
    /// mobility domain association; messages 2 and 3 repeat the FTE.
    pub(super) fn ft_initial_resp_ies(&self) -> Option<(Vec<u8>, Vec<u8>)> {
        let s = self.cfg.ft.as_ref()?;
        let fte = Fte { r1kh_id: Some(s.r1kh_id.0), r0kh_id: Some(s.r0kh_id.clone()), ..Default::default() };
        let akm = self.ft_akm()?;
        Some((s.mde(), fte.emit(ft::fte_mic_len(akm)).ok()?))
    }

    fn ft_akm(&self) -> Option<Akm> {
        match &self.cfg.security {
            Security::Rsn { akms, .. } => akms.iter().copied().find(|a| a.is_ft()),
            _ => None,
        }
    }

    /// The PMK-R0 and PMK-R1 of an FT initial mobility domain association, the R0KH's
    /// entry kept (and shared with the domain), and the handshake's FT part.
    pub(super) fn ft_initial_handshake(
        &mut self,
        now: u64,
        sta: &MacAddr,
        akm: Akm,
        pairwise: crate::cipher::CipherSuite,
        sae_pmk: Option<&Zeroizing<Vec<u8>>>,
        out: &mut Output,
    ) -> Option<FtHandshake> {
        let s = self.cfg.ft.clone()?;
        let xxkey = self.xxkey(akm, sae_pmk, Some(sta))?;
        let r0 = ft::derive_pmk_r0(akm, &xxkey, &self.cfg.ssid, s.mdid, &s.r0kh_id, sta.0).ok()?;
        let r1 = ft::derive_pmk_r1(akm, &r0, s.r1kh_id.0, sta.0).ok()?;
        let expires = now.saturating_add(u64::from(s.r0_key_lifetime_s).saturating_mul(crate::node::SEC));
        let e = R0Entry { pmk_r0: r0, sta: *sta, akm, r0kh_id: s.r0kh_id.clone(), expires };
        if let Some(d) = &self.ft_domain {
            d.publish(e.clone());
        }
        let kh = crate::rsn::rrb::PmkR0Entry {
            akm,
            pmk_r0: e.pmk_r0.clone(),
            spa: *sta,
            pairwise: Self::rrb_pairwise(pairwise),
            expires_at_ns: Some(expires),
            session_timeout_at_ns: None,
            identity: Vec::new(),
            radius_cui: Vec::new(),
            vlan_untagged: 0,
            vlan_tagged: Vec::new(),
        };
        self.ft_r0.retain(|_, e| e.expires > now);
        self.ft_r0.insert(e.pmk_r0.name, e);
        self.rrb_store_r0(now, kh, out);
        let (mde, fte) = self.ft_initial_resp_ies()?;
        Some(FtHandshake { pmk_r1: r1, mde, fte, reassoc_deadline_tu: s.reassoc_deadline_tu, key_lifetime_s: s.r0_key_lifetime_s })
    }

    /// An FT Authentication Request (algorithm 2, transaction 1; 13.5.2): answered with
    /// transaction 2, its status and, on success, our RSNE (PMKID = PMKR0Name), MDE and FTE
    /// (ANonce, SNonce, R1KH-ID, R0KH-ID).
    pub(super) fn ft_auth_request(&mut self, now: u64, sta: &MacAddr, ies: &[u8], out: &mut Output) {
        let bssid = self.cfg.bssid;
        if !self.peers.contains_key(sta) && self.peers.len() >= self.cfg.max_stations {
            let seq = self.seq.take();
            let f = frames::auth(sta, &bssid, &bssid, seq, AuthRepr::new(AuthAlgorithm::FAST_BSS_TRANSITION, 2, StatusCode::AP_FULL));
            return self.tx_mgmt(f, out);
        }
        self.ft_answer(now, sta, ies, None, out);
    }

    /// The checks of hostapd's `wpa_ft_process_auth_req`, in its order, and the keys: the
    /// session and the response's elements.
    pub(super) fn ft_session(&mut self, now: u64, sta: &MacAddr, ies: &[u8], over_ds: bool) -> Result<(FtSession, Vec<u8>), StatusCode> {
        let s = self.cfg.ft.clone().ok_or(StatusCode::NOT_SUPPORTED_AUTH_ALG)?;
        let e = FtElements::find(ies);
        if e.mdid() != Some(s.mdid) {
            return Err(StatusCode::INVALID_MDE);
        }
        let rsne = e.rsne.ok_or(StatusCode::INVALID_ELEMENT)?;
        let choice = self.check_sta_rsne(rsne)?;
        if !choice.akm.is_ft() {
            return Err(StatusCode::INVALID_AKMP);
        }
        let fte = e.fte(choice.akm).map_err(|_| StatusCode::INVALID_FTE)?;
        let r0kh_id = fte.r0kh_id.clone().ok_or(StatusCode::INVALID_FTE)?;
        let r0_name = e.pmkid().ok_or(StatusCode::INVALID_PMKID)?;
        let r1_name = ft::derive_pmk_r1_name(choice.akm, &r0_name, s.r1kh_id.0, sta.0).map_err(|_| StatusCode::UNSPECIFIED)?;
        let pmk_r1 = self.ft_pmk_r1(now, sta, choice.akm, &r0kh_id, &r0_name, &r1_name).ok_or(StatusCode::INVALID_PMKID)?;
        let anonce = crate::rng::array::<32>(&mut *self.rng);
        let ptk = ft::derive_ft_ptk(choice.akm, &pmk_r1, &fte.snonce, &anonce, self.cfg.bssid.0, sta.0, choice.pairwise, 0)
            .map_err(|_| StatusCode::UNSPECIFIED)?;
        // hostapd `wpa_ft_process_auth_req`: our RSNE with the request's PMKID (PMKR0Name).
        let our_rsne = self.rsne.as_deref().ok_or(StatusCode::UNSPECIFIED)?;
        let rsne = ft::rsne_with_pmkid(our_rsne, r0_name).map_err(|_| StatusCode::UNSPECIFIED)?;
        let resp_fte = Fte { anonce, snonce: fte.snonce, r1kh_id: Some(s.r1kh_id.0), r0kh_id: Some(r0kh_id.clone()), ..Default::default() };
        let resp_fte = resp_fte.emit(ft::fte_mic_len(choice.akm)).map_err(|_| StatusCode::UNSPECIFIED)?;
        let resp = [rsne, s.mde(), resp_fte].concat();
        Ok((FtSession { choice, pmk_r1, r0kh_id, anonce, snonce: fte.snonce, ptk: Box::new(ptk), over_ds, resp_ies: resp.clone() }, resp))
    }

    /// PMK-R1 for `sta` named `r1_name`: from the PSK (`ft_psk_generate_local`), from our
    /// own PMK-R0 (we are its R0KH), or from a PMK-R0 of the domain.
    fn ft_pmk_r1(&mut self, now: u64, sta: &MacAddr, akm: Akm, r0kh_id: &[u8], r0_name: &[u8; 16], r1_name: &[u8; 16]) -> Option<PmkR1> {
        let s = self.cfg.ft.as_ref()?;
        let r1kh = s.r1kh_id.0;
        let check = |r1: PmkR1| bool::from(r1.name.ct_eq(r1_name)).then_some(r1);
        if akm == Akm::FtPsk && s.psk_generate_local {
            let xxkey = self.xxkey(akm, None, None)?;
            let r0 = ft::derive_pmk_r0(akm, &xxkey, &self.cfg.ssid, s.mdid, r0kh_id, sta.0).ok()?;
            return check(ft::derive_pmk_r1(akm, &r0, r1kh, sta.0).ok()?);
        }
        if let Some(r1) = self.rrb_pmk_r1(now, sta, r1_name) {
            return Some(r1);
        }
        self.ft_r0.retain(|_, e| e.expires > now);
        let e = match self.ft_r0.get(r0_name).filter(|e| e.sta == *sta && e.r0kh_id == r0kh_id) {
            Some(e) => e.clone(),
            None => self.ft_domain.as_ref()?.find(now, r0_name, sta, r0kh_id)?,
        };
        if e.akm != akm {
            return None;
        }
        check(ft::derive_pmk_r1(akm, &e.pmk_r0, r1kh, sta.0).ok()?)
    }

    /// Whether a (Re)Association Request continues a fast BSS transition: the station
    /// authenticated with FT here and asks for an FT AKM with a PMKID.
    pub(super) fn is_ft_reassoc(&self, sta: &MacAddr, ies: &[u8]) -> bool {
        FtElements::find(ies).fte.is_some() && (self.peers.get(sta).is_some_and(|p| p.ft.is_some()) || self.ft_repeat_of(sta, ies))
    }

    /// Whether `ies` repeat the Reassociation Request of the transition completed last (the
    /// same nonces) while its association stands.
    fn ft_repeat_of(&self, sta: &MacAddr, ies: &[u8]) -> bool {
        let Some(p) = self.peers.get(sta) else { return false };
        let (Some(done), true) = (p.ft_done.as_ref(), p.ft.is_none() && p.state.is_associated()) else { return false };
        let e = FtElements::find(ies);
        let akm = e.rsne.and_then(|r| crate::rsn::ie::RsnElementRepr::parse(r).ok()).and_then(|r| r.akms.first().and_then(|a| a.akm()));
        akm.filter(|a| a.is_ft()).and_then(|a| e.fte(a).ok()).is_some_and(|f| f.snonce == done.snonce && f.anonce == done.anonce)
    }

    /// A repeat of the Reassociation Request that completed the last transition: its
    /// Reassociation Response again, nothing installed anew.
    fn ft_reassoc_repeated(&mut self, sta: &MacAddr, ies: &[u8], current_ap: Option<MacAddr>, out: &mut Output) -> bool {
        if !self.ft_repeat_of(sta, ies) {
            return false;
        }
        let Some((aid, resp)) = self.peers.get(sta).and_then(|p| Some((p.aid, p.ft_done.as_ref()?.resp_ies.clone()))) else { return false };
        let seq = self.seq.take();
        let mut f = frames::any_assoc_resp(sta, &self.cfg.bssid, seq, self.capability(), StatusCode::SUCCESS, aid, current_ap.is_some());
        f.extend_from_slice(&resp);
        self.tx_mgmt(f, out);
        self.counters.drop("ft reassociation repeated: answered again");
        true
    }

    /// The Reassociation Request of a transition (13.8.4), checked as hostapd's
    /// `wpa_ft_validate_reassoc`, answered (13.8.5) and, on success, the station
    /// associated with the PTK of the FT Authentication and data open.
    pub(super) fn ft_reassoc(&mut self, now: u64, sta: &MacAddr, ies: &[u8], current_ap: Option<MacAddr>, out: &mut Output) {
        if self.ft_reassoc_repeated(sta, ies, current_ap, out) {
            return;
        }
        let session = self.peers.get_mut(sta).and_then(|p| p.ft.take());
        let Some(session) = session else { return };
        let checked = self.ft_validate_reassoc(sta, ies, &session);
        let used: std::collections::HashSet<u16> = self.peers.values().map(|p| p.aid).collect();
        let aid = match self.peers.get(sta) {
            Some(p) if p.aid != 0 => p.aid,
            _ => (1..=2007u16).find(|a| !used.contains(a)).unwrap_or(0),
        };
        let st = match checked {
            Err(st) => st,
            Ok(()) if aid == 0 => StatusCode::AP_FULL,
            Ok(()) => StatusCode::SUCCESS,
        };
        let seq = self.seq.take();
        let mut f = frames::any_assoc_resp(sta, &self.cfg.bssid, seq, self.capability(), st, aid, current_ap.is_some());
        if st != StatusCode::SUCCESS {
            self.tx_mgmt(f, out);
            self.counters.drop("ft reassociation refused");
            out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::FtFailed { status: st.0, why: "ft reassociation refused" } });
            return;
        }
        let Some(gk) = self.group_for_new_station(session.choice.group_mgmt.is_some()) else { return };
        let mut resp_ies = match self.ft_reassoc_resp_ies(sta, &session, &gk) {
            Ok(v) => v,
            Err(_) => return self.counters.drop("ft reassociation response not built"),
        };
        // HT Capabilities, HT Operation, WMM Parameter after the FT elements (9.3.3.8), as
        // in any association response; the station's QoS from its request.
        resp_ies.extend_from_slice(&self.ht_ies);
        resp_ies.extend_from_slice(&self.wmm_ie);
        let qos = self.station_qos(ies, FtElements::find(ies).rsne);
        if let Some(p) = self.peers.get_mut(sta) {
            (p.qos, p.tid_seq) = (qos, Default::default());
        }
        f.extend_from_slice(&resp_ies);
        self.tx_mgmt(f, out);
        let done = FtDone { snonce: session.snonce, anonce: session.anonce, resp_ies };
        self.ft_associate(now, sta, aid, ies, *session, gk, current_ap, out);
        if let Some(p) = self.peers.get_mut(sta) {
            p.ft_done = Some(Box::new(done));
        }
    }

    fn ft_validate_reassoc(&self, sta: &MacAddr, ies: &[u8], s: &FtSession) -> Result<(), StatusCode> {
        let cfg = self.cfg.ft.as_ref().ok_or(StatusCode::UNSPECIFIED)?;
        let e = FtElements::find(ies);
        let rsne = e.rsne.ok_or(StatusCode::UNSPECIFIED)?;
        let same = |a: &[u8; 16], b: &[u8; 16]| bool::from(a.ct_eq(b));
        if !e.pmkid().is_some_and(|p| same(&p, &s.pmk_r1.name)) {
            return Err(StatusCode::INVALID_PMKID);
        }
        if e.mdid() != Some(cfg.mdid) {
            return Err(StatusCode::INVALID_MDE);
        }
        let c = self.check_sta_rsne(rsne)?;
        if c.akm != s.choice.akm || c.pairwise != s.choice.pairwise {
            return Err(StatusCode::INVALID_AKMP);
        }
        let fte = e.fte(s.choice.akm).map_err(|_| StatusCode::INVALID_FTE)?;
        if fte.snonce != s.snonce || fte.anonce != s.anonce {
            return Err(StatusCode::INVALID_FTE);
        }
        if fte.r0kh_id.as_deref() != Some(&s.r0kh_id[..]) || fte.r1kh_id != Some(cfg.r1kh_id.0) {
            return Err(StatusCode::INVALID_FTE);
        }
        let count = 3 + u8::from(e.rsnxe.is_some());
        if fte.element_count != count {
            return Err(StatusCode::UNSPECIFIED);
        }
        let fte_whole = e.fte.ok_or(StatusCode::INVALID_FTE)?;
        let mut zero = fte_whole.to_vec();
        zero[4..4 + fte.mic.len()].fill(0);
        let mde = e.mde.ok_or(StatusCode::INVALID_MDE)?;
        let mic = ft::fte_mic(s.ptk.kck(), sta.0, self.cfg.bssid.0, 5, rsne, mde, &zero, e.rsnxe).map_err(|_| StatusCode::UNSPECIFIED)?;
        if !bool::from(mic.as_slice().ct_eq(&fte.mic)) {
            return Err(StatusCode::INVALID_FTE);
        }
        Ok(())
    }

    /// The Reassociation Response's RSNE (PMKR1Name), MDE and FTE (MIC under the KCK, the
    /// nonces, the key holder IDs, the GTK and with MFP the IGTK; hostapd
    /// `wpa_sm_write_assoc_resp_ies`).
    fn ft_reassoc_resp_ies(&self, sta: &MacAddr, s: &FtSession, g: &GroupKeys) -> crate::Result<Vec<u8>> {
        let cfg = self.cfg.ft.as_ref().ok_or(crate::Error::Unsupported("no FT"))?;
        let rsne = ft::rsne_with_pmkid(self.rsne.as_deref().unwrap_or_default(), s.pmk_r1.name)?;
        let mde = cfg.mde();
        let kek = s.ptk.kek();
        let gtk = ft::wrap_gtk(kek, g.gtk_key_id, &g.gtk, g.gtk_rsc)?;
        let igtk = match &g.igtk {
            Some((k, id, ipn)) => Some(ft::wrap_igtk(kek, u16::from(*id), k, *ipn)?),
            None => None,
        };
        let mut fte = Fte {
            element_count: 3,
            anonce: s.anonce,
            snonce: s.snonce,
            r1kh_id: Some(cfg.r1kh_id.0),
            r0kh_id: Some(s.r0kh_id.clone()),
            gtk: Some(gtk),
            igtk,
            ..Default::default()
        }
        .emit(ft::fte_mic_len(s.choice.akm))?;
        let mic = ft::fte_mic(s.ptk.kck(), sta.0, self.cfg.bssid.0, 6, &rsne, &mde, &fte, None)?;
        ft::set_fte_mic(&mut fte, &mic)?;
        Ok([rsne, mde, fte].concat())
    }

    /// The station is associated under the FT Authentication's PTK (13.8.5): its
    /// Authenticator starts established (for later rekeys), the keys go into the engine
    /// and data opens, with no 4-way handshake.
    #[allow(clippy::too_many_arguments)]
    fn ft_associate(
        &mut self,
        now: u64,
        sta: &MacAddr,
        aid: u16,
        ies: &[u8],
        s: FtSession,
        group_keys: GroupKeys,
        current_ap: Option<MacAddr>,
        out: &mut Output,
    ) {
        self.forget_keys(sta, out);
        let c = s.choice;
        let use_mfp = c.group_mgmt.is_some();
        let sta_rsne = FtElements::find(ies).rsne.map(|r| r.to_vec()).unwrap_or_default();
        let (spp_amsdu, amsdu_allowed) = self.spp_amsdu_of(Some(&sta_rsne));
        self.dp.keys().set_spp_amsdu(*sta, spp_amsdu);
        let (mde, fte) = self.ft_initial_resp_ies().unwrap_or_default();
        let cfg = self.cfg.ft.clone();
        let hc = handshake::Config {
            akm: c.akm,
            pairwise: c.pairwise,
            group: c.group,
            group_mgmt: c.group_mgmt,
            pmk: Zeroizing::new(vec![0; 32]),
            aa: self.cfg.bssid,
            spa: *sta,
            ap_rsne: self.rsne.clone().unwrap_or_default(),
            sta_rsne: crate::rsn::ie::RsnElementRepr::parse(&sta_rsne)
                .ok()
                .and_then(|mut r| {
                    r.pmkids.clear();
                    r.to_bytes().ok()
                })
                .unwrap_or(sta_rsne),
            timers: self.cfg.eapol_timers,
        };
        let mut a = handshake::Authenticator::new(hc, group_keys, crate::rng::fork(&mut *self.rng));
        if let Some(cfg) = cfg {
            a.set_ft(FtHandshake {
                pmk_r1: s.pmk_r1.clone(),
                mde,
                fte,
                reassoc_deadline_tu: cfg.reassoc_deadline_tu,
                key_lifetime_s: cfg.r0_key_lifetime_s,
            });
        }
        let tk = Zeroizing::new(s.ptk.tk().to_vec());
        a.set_established(*s.ptk);
        let Some(p) = self.peers.get_mut(sta) else { return };
        p.aid = aid;
        p.last_rx = now;
        p.associated_at = now;
        p.negotiated = Some(Negotiated { akm: c.akm, pairwise: c.pairwise, wpa1: false, spp_amsdu, amsdu_allowed });
        p.state = PeerState::Associated(Association {
            mfp: use_mfp,
            sa_query: None,
            rsna: Some(Rsna { auth: a, deadline: None, ptk_rekey_at: None }),
        });
        out.events.push(NodeEvent::Phase {
            peer: *sta,
            phase: Phase::Associated { aid, akm: Some(c.akm), pairwise: Some(c.pairwise), group: Some(c.group) },
        });
        let from = current_ap.unwrap_or(self.cfg.bssid);
        out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::FtReassociated { from, over_ds: s.over_ds } });
        let o = handshake::Output {
            tx: Vec::new(),
            events: vec![
                handshake::Event::InstallPtk { tk, cipher: c.pairwise, key_id: 0 },
                handshake::Event::Established { akm: c.akm, pairwise: c.pairwise, group: c.group },
            ],
            deadline: None,
        };
        self.after_handshake(now, sta, o, out);
    }
}

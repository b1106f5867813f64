//! Fast BSS transition at the station (IEEE 802.11-2020 13): the FT initial mobility
//! domain association (13.4: the MDE in the Association Request, PMK-R0 and PMK-R1 from
//! the Association Response's key holder IDs, the 4-way handshake under PMK-R1), and the
//! transition to another AP of the mobility domain over the air (13.5.2: FT Authentication
//! with the target) or over the DS (13.5.3: FT Request/Response Action frames through the
//! current AP), then the Reassociation with its FTE MIC (13.8.4) and the GTK and IGTK the
//! target sends under the new KEK (13.8.5). The checks follow wpa_supplicant's
//! `wpa_ft_process_response` and `wpa_ft_validate_reassoc_resp`.
use crate::link::sa::KeyType;
use crate::node::frames::{self, BssInfo};
use crate::node::{NodeEvent, Output, Phase, Security};
use crate::rsn::akm::Akm;
use crate::rsn::ft::{self, FtElements, Fte, PmkR0, PmkR1};
use crate::rsn::handshake::{self, FtHandshake, Supplicant, Timers};
use crate::rsn::kdf::Ptk;
use crate::wire::mac::MacAddr;
use crate::wire::mgmt::{AuthAlgorithm, AuthRepr, Capability, StatusCode};
use std::collections::BTreeMap;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::{Link, Negotiated, Rsna, State, Station};

/// How many BSSs of our SSID the station remembers as roaming targets.
const MAX_SEEN: usize = 32;

/// How long an FT Authentication or Reassociation Request waits for its answer before it
/// is sent again (ms), and an FT Request over the DS.
const FT_AIR_WAIT_MS: u64 = 500;
const FT_DS_WAIT_MS: u64 = 1000;

/// What the FT initial mobility domain association left (13.4): the key hierarchy every
/// transition in the mobility domain derives from.
struct MobilityDomain {
    akm: Akm,
    mdid: [u8; 2],
    r0kh_id: Vec<u8>,
    pmk_r0: PmkR0,
}

/// A transition under way.
struct Roam {
    target: BssInfo,
    neg: Negotiated,
    over_ds: bool,
    snonce: [u8; 32],
    /// The keys once the target answered the FT Authentication (or FT Request).
    keys: Option<RoamKeys>,
    /// Reassociation Requests sent under keys since replaced by a newer answer: their
    /// refusals (55, the ANonce the target no longer has) are expected and passed over.
    stale_reassocs: u32,
    deadline: u64,
    tries: u32,
}

struct RoamKeys {
    anonce: [u8; 32],
    r1kh_id: [u8; 6],
    pmk_r1: PmkR1,
    ptk: Box<Ptk>,
}

/// The station's FT state.
#[derive(Default)]
pub(super) struct StaFt {
    md: Option<MobilityDomain>,
    roam: Option<Roam>,
    /// BSSs of our SSID heard in Beacons and Probe Responses, and when.
    seen: BTreeMap<MacAddr, (BssInfo, u64)>,
}

impl StaFt {
    pub(super) fn roam_target(&self) -> Option<MacAddr> {
        self.roam.as_ref().map(|r| r.target.bssid)
    }

    pub(super) fn deadline(&self) -> Option<u64> {
        self.roam.as_ref().map(|r| r.deadline)
    }
}

impl Station {
    /// Whether a fast BSS transition is under way.
    pub fn roaming(&self) -> bool {
        self.ft.roam.is_some()
    }

    /// The BSSs of our SSID heard in Beacons and Probe Responses, with when (the core's
    /// clock, ns): the roaming targets, for the control interface's scan results.
    pub fn bss_heard(&self) -> Vec<(BssInfo, u64)> {
        self.ft.seen.values().cloned().collect()
    }

    /// Remembers a BSS of our SSID heard in a Beacon or Probe Response.
    pub(super) fn ft_heard(&mut self, now: u64, info: &BssInfo) {
        if info.ssid != self.cfg.ssid {
            return;
        }
        if self.ft.seen.len() >= MAX_SEEN && !self.ft.seen.contains_key(&info.bssid) {
            let oldest = self.ft.seen.iter().min_by_key(|(_, (_, t))| *t).map(|(a, _)| *a);
            if let Some(a) = oldest {
                self.ft.seen.remove(&a);
            }
        }
        self.ft.seen.insert(info.bssid, (info.clone(), now));
    }

    /// The MDE the Association Request of an FT AKM carries: the AP's (13.4).
    pub(super) fn ft_assoc_mde(&self) -> Option<Vec<u8>> {
        let l = self.state.link()?;
        l.neg.as_ref().filter(|n| n.akm.is_ft())?;
        l.bss.mde.clone()
    }

    /// The XXKey of `akm` (12.7.1.6.3): the PSK for FT-PSK, the PMK of SAE for FT-SAE.
    fn ft_xxkey(&self, akm: Akm) -> Option<Zeroizing<Vec<u8>>> {
        match (akm, &self.cfg.security) {
            (Akm::FtPsk, Security::Rsn { pmk, .. }) => Some(pmk.clone()),
            (Akm::FtSae, _) => self.state.link().and_then(|l| l.sae_pmk.clone()),
            (a, _) if a.is_8021x() => ft::msk_xxkey(a, self.eap.as_ref()?.msk()?),
            _ => None,
        }
    }

    /// The Association Response of an FT initial mobility domain association: its MDE and
    /// FTE give the mobility domain and the key holders, from which PMK-R0 and PMK-R1
    /// come; the 4-way handshake runs under PMK-R1. `None`: the response lacks them.
    pub(super) fn ft_initial(&mut self, akm: Akm, resp_ies: &[u8]) -> Option<FtHandshake> {
        let e = FtElements::find(resp_ies);
        let mde = e.mde?.to_vec();
        let mdid = e.mdid()?;
        let fte = e.fte(akm).ok()?;
        let (r0kh_id, r1kh_id) = (fte.r0kh_id?, fte.r1kh_id?);
        let xxkey = self.ft_xxkey(akm)?;
        let sta = self.cfg.addr.0;
        let r0 = ft::derive_pmk_r0(akm, &xxkey, &self.cfg.ssid, mdid, &r0kh_id, sta).ok()?;
        let r1 = ft::derive_pmk_r1(akm, &r0, r1kh_id, sta).ok()?;
        self.ft.md = Some(MobilityDomain { akm, mdid, r0kh_id, pmk_r0: r0 });
        Some(FtHandshake { pmk_r1: r1, mde, fte: e.fte?.to_vec(), reassoc_deadline_tu: 0, key_lifetime_s: 0 })
    }

    /// Moves to the BSS `target` (wpa_supplicant `roam`, or `ft_ds` with `over_ds`): a fast
    /// BSS transition when the station is established under an FT AKM of the mobility
    /// domain the target advertises (13.5), else (`roam` only) a full authentication,
    /// reassociation and 4-way handshake with the target. The target must have been heard.
    pub fn roam(&mut self, now: u64, target: MacAddr, over_ds: bool, out: &mut Output) -> Result<(), &'static str> {
        let current = match &self.state {
            State::Established(l, _) => l.bss.bssid,
            _ => return Err("not connected"),
        };
        if current == target {
            return Err("already associated with the target");
        }
        if self.ft.roam.is_some() {
            return Err("a transition is under way");
        }
        let info = self.ft.seen.get(&target).map(|(b, _)| b.clone()).ok_or("target BSS not heard")?;
        let Some(md) = self.ft.md.as_ref() else {
            if over_ds {
                return Err("no FT initial mobility domain association");
            }
            // Not FT: leave the current AP and join the target from the start, with a
            // Reassociation Request that names the AP we leave (11.3.5.4).
            self.leave(now, crate::wire::mgmt::ReasonCode::DEAUTH_LEAVING, out);
            self.reassoc_from = Some((target, current));
            self.consider(now, info, out);
            return Ok(());
        };
        if FtElements::find(info.mde.as_deref().unwrap_or_default()).mdid() != Some(md.mdid) {
            return Err("target is not in our mobility domain");
        }
        if over_ds && info.mde.as_ref().is_none_or(|m| m[4] & ft::MDE_FT_OVER_DS == 0) {
            return Err("target does not offer FT over the DS");
        }
        let Security::Rsn { akms, pairwise, groups, .. } = &self.cfg.security else { return Err("not an RSN network") };
        let neg = info
            .rsne
            .as_deref()
            .and_then(|r| super::assoc::negotiate(r, akms, pairwise, groups, self.cfg.mfp, self.cfg.extended_key_id, self.cfg.spp_amsdu))
            .filter(|n| n.akm == md.akm)
            .ok_or("target security not acceptable")?;
        let snonce = crate::rng::array::<32>(&mut *self.rng);
        self.ft.roam = Some(Roam { target: info, neg, over_ds, snonce, keys: None, stale_reassocs: 0, deadline: now, tries: 0 });
        self.ft_send_request(now, out);
        Ok(())
    }

    /// The FT Authentication Request to the target, or the FT Request to the current AP
    /// (9.6.8.2): RSNE (PMKID = PMKR0Name), MDE, FTE (SNonce, R0KH-ID).
    fn ft_send_request(&mut self, now: u64, out: &mut Output) {
        let (Some(r), Some(md), Some(cur)) = (self.ft.roam.as_ref(), self.ft.md.as_ref(), self.bssid()) else { return };
        let Ok(rsne) = ft::rsne_with_pmkid(&r.neg.sta_rsne, md.pmk_r0.name) else { return };
        let fte = Fte { snonce: r.snonce, r0kh_id: Some(md.r0kh_id.clone()), ..Default::default() };
        let Ok(fte) = fte.emit(ft::fte_mic_len(md.akm)) else { return };
        let ies = [rsne, r.target.mde.clone().unwrap_or_default(), fte].concat();
        let (target, over_ds) = (r.target.bssid, r.over_ds);
        let seq = self.seq.take();
        let me = self.cfg.addr;
        if over_ds {
            let mut body = vec![crate::wire::mgmt::ActionCategory::FAST_BSS_TRANSITION.0, 1];
            body.extend_from_slice(&me.0);
            body.extend_from_slice(&target.0);
            body.extend_from_slice(&ies);
            let f = frames::action(&cur, &me, &cur, seq, &body);
            self.send_mgmt(now, f, out);
        } else {
            let mut f = frames::auth(&target, &me, &target, seq, AuthRepr::new(AuthAlgorithm::FAST_BSS_TRANSITION, 1, StatusCode::SUCCESS));
            f.extend_from_slice(&ies);
            self.tx(now, f, out);
        }
        // A request sent again makes the target start over with a new ANonce (hostapd), and
        // an answer to the first one would then fail at the Reassociation: give the answer
        // time, more over the DS (two hops and the other AP's work).
        let wait = if over_ds { FT_DS_WAIT_MS } else { FT_AIR_WAIT_MS }.max(self.cfg.retry_ms) * 1_000_000;
        if let Some(r) = self.ft.roam.as_mut() {
            r.tries += 1;
            r.deadline = now + wait;
        }
    }

    /// The target's FT Authentication Response (transaction 2), or the FT Response through
    /// the current AP: the PTK, then the Reassociation Request.
    pub(super) fn ft_response(&mut self, now: u64, status: StatusCode, ies: &[u8], out: &mut Output) {
        let Some(r) = self.ft.roam.as_ref() else { return };
        if let Some(k) = r.keys.as_ref() {
            // An answer to a repeated request after the first answer was taken: hostapd
            // drew a new ANonce for it and now expects that one in the Reassociation
            // Request. Take the newest answer and send the Reassociation Request again.
            if status != StatusCode::SUCCESS {
                return;
            }
            let Ok(newer) = self.ft_keys(r, ies) else { return };
            if newer.anonce == k.anonce {
                return self.counters.drop("ft response repeated");
            }
            if let Some(r) = self.ft.roam.as_mut() {
                r.keys = Some(newer);
                r.stale_reassocs = r.tries;
                r.tries = 0;
            }
            return self.ft_send_reassoc(now, out);
        }
        if status != StatusCode::SUCCESS {
            return self.ft_give_up(status.0, "target refused the FT authentication", out);
        }
        match self.ft_keys(r, ies) {
            Ok(k) => {
                let target = r.target.bssid;
                if let Some(r) = self.ft.roam.as_mut() {
                    r.keys = Some(k);
                    r.tries = 0;
                }
                out.events.push(NodeEvent::Phase { peer: target, phase: Phase::FtAuthenticated });
                self.ft_send_reassoc(now, out);
            }
            Err(why) => {
                self.counters.drop(why);
                self.ft_give_up(0, why, out);
            }
        }
    }

    /// wpa_supplicant `wpa_ft_process_response`: MDE, FTE (SNonce, R0KH-ID, an R1KH-ID),
    /// PMKR0Name; then PMK-R1 for the target's R1KH and the PTK.
    fn ft_keys(&self, r: &Roam, ies: &[u8]) -> Result<RoamKeys, &'static str> {
        let md = self.ft.md.as_ref().ok_or("no mobility domain")?;
        let e = FtElements::find(ies);
        if e.mdid() != Some(md.mdid) {
            return Err("ft response: MDE not of our mobility domain");
        }
        let fte = e.fte(md.akm).map_err(|_| "ft response: no valid FTE")?;
        if fte.snonce != r.snonce {
            return Err("ft response: SNonce differs");
        }
        if fte.r0kh_id.as_deref() != Some(&md.r0kh_id[..]) {
            return Err("ft response: R0KH-ID differs");
        }
        let r1kh_id = fte.r1kh_id.ok_or("ft response: no R1KH-ID")?;
        if !e.pmkid().is_some_and(|p| bool::from(p.ct_eq(&md.pmk_r0.name))) {
            return Err("ft response: PMKR0Name differs");
        }
        let sta = self.cfg.addr.0;
        let pmk_r1 = ft::derive_pmk_r1(md.akm, &md.pmk_r0, r1kh_id, sta).map_err(|_| "ft: PMK-R1")?;
        let ptk =
            ft::derive_ft_ptk(md.akm, &pmk_r1, &r.snonce, &fte.anonce, r.target.bssid.0, sta, r.neg.pairwise, 0).map_err(|_| "ft: PTK")?;
        Ok(RoamKeys { anonce: fte.anonce, r1kh_id, pmk_r1, ptk: Box::new(ptk) })
    }

    /// The Reassociation Request (13.8.4): RSNE (PMKR1Name), MDE, FTE with the MIC under
    /// the new KCK (transaction sequence number 5).
    fn ft_send_reassoc(&mut self, now: u64, out: &mut Output) {
        let (Some(r), Some(md), Some(cur)) = (self.ft.roam.as_ref(), self.ft.md.as_ref(), self.bssid()) else { return };
        let Some(k) = r.keys.as_ref() else { return };
        let ies = match self.ft_reassoc_ies(r, md, k) {
            Ok(v) => v,
            Err(_) => return self.ft_give_up(0, "cannot build the reassociation request", out),
        };
        let target = r.target.bssid;
        let ssid = r.target.ssid.clone();
        let seq = self.seq.take();
        let cap = Capability(Capability::ESS | Capability::SHORT_PREAMBLE | Capability::PRIVACY);
        let f = frames::reassoc_req(&self.cfg.addr, &target, seq, cap, &ssid, &cur, &ies);
        self.tx(now, f, out);
        let wait = FT_AIR_WAIT_MS.max(self.cfg.retry_ms) * 1_000_000;
        if let Some(r) = self.ft.roam.as_mut() {
            r.tries += 1;
            r.deadline = now + wait;
        }
    }

    fn ft_reassoc_ies(&self, r: &Roam, md: &MobilityDomain, k: &RoamKeys) -> crate::Result<Vec<u8>> {
        let rsne = ft::rsne_with_pmkid(&r.neg.sta_rsne, k.pmk_r1.name)?;
        let mde = r.target.mde.clone().unwrap_or_default();
        let fte = Fte {
            element_count: 3,
            anonce: k.anonce,
            snonce: r.snonce,
            r1kh_id: Some(k.r1kh_id),
            r0kh_id: Some(md.r0kh_id.clone()),
            ..Default::default()
        };
        let mut fte = fte.emit(ft::fte_mic_len(md.akm))?;
        let mut mic = ft::fte_mic(k.ptk.kck(), self.cfg.addr.0, r.target.bssid.0, 5, &rsne, &mde, &fte, None)?;
        if self.cfg.test_ft_bad_mic {
            mic[0] ^= 0x01;
        }
        ft::set_fte_mic(&mut fte, &mic)?;
        // HT Capabilities and WMM Information after the FT elements (9.3.3.8), as in an
        // initial association: the target learns QoS and A-MSDU from this request.
        Ok([rsne, mde, fte, self.qos_elements_for(&r.target)].concat())
    }

    /// The target's Reassociation Response (13.8.5): checked as wpa_supplicant's
    /// `wpa_ft_validate_reassoc_resp`, then the station is with the target under the new
    /// PTK, GTK and IGTK.
    pub(super) fn ft_reassoc_response(&mut self, now: u64, status: StatusCode, aid: u16, ies: &[u8], out: &mut Output) {
        let Some(r) = self.ft.roam.as_mut().filter(|r| r.keys.is_some()) else { return };
        if status != StatusCode::SUCCESS {
            if r.stale_reassocs > 0 {
                r.stale_reassocs -= 1;
                return self.counters.drop("ft reassociation refused under replaced keys");
            }
            return self.ft_give_up(status.0, "target refused the reassociation", out);
        }
        let Some(r) = self.ft.roam.as_ref() else { return };
        let target = r.target.bssid;
        let keys = match self.ft_check_reassoc_resp(r, ies) {
            Ok(k) => k,
            Err(why) => {
                self.counters.drop(why);
                return self.ft_give_up(0, why, out);
            }
        };
        let Some(r) = self.ft.roam.take() else { return };
        self.ft_switch(now, r, aid, keys, out);
        // QoS and A-MSDU with the target as its response says (the link is the target's now).
        if self.bssid() == Some(target) {
            let qos = self.ap_qos(ies);
            self.tid_seq = Default::default();
            if let Some(l) = self.state.link_mut() {
                l.qos = qos;
            }
        }
    }

    fn ft_check_reassoc_resp(&self, r: &Roam, ies: &[u8]) -> Result<GroupFromFt, &'static str> {
        let (Some(md), Some(k)) = (self.ft.md.as_ref(), r.keys.as_ref()) else { return Err("no ft keys") };
        let e = FtElements::find(ies);
        let rsne = e.rsne.ok_or("ft reassociation response: no RSNE")?;
        if !e.pmkid().is_some_and(|p| bool::from(p.ct_eq(&k.pmk_r1.name))) {
            return Err("ft reassociation response: PMKR1Name differs");
        }
        if e.mdid() != Some(md.mdid) {
            return Err("ft reassociation response: MDE differs");
        }
        let fte = e.fte(md.akm).map_err(|_| "ft reassociation response: no valid FTE")?;
        if fte.snonce != r.snonce || fte.anonce != k.anonce {
            return Err("ft reassociation response: nonces differ");
        }
        if fte.r0kh_id.as_deref() != Some(&md.r0kh_id[..]) || fte.r1kh_id != Some(k.r1kh_id) {
            return Err("ft reassociation response: key holder IDs differ");
        }
        if fte.element_count != 3 + u8::from(e.rsnxe.is_some()) {
            return Err("ft reassociation response: MIC element count");
        }
        let (Some(whole), Some(mde)) = (e.fte, e.mde) else { return Err("ft reassociation response: no FTE") };
        let mut zero = whole.to_vec();
        zero[4..4 + fte.mic.len()].fill(0);
        let mic = ft::fte_mic(k.ptk.kck(), self.cfg.addr.0, r.target.bssid.0, 6, rsne, mde, &zero, e.rsnxe)
            .map_err(|_| "ft reassociation response: MIC")?;
        if !bool::from(mic.as_slice().ct_eq(&fte.mic)) {
            return Err("ft reassociation response: MIC does not verify");
        }
        let g = fte.gtk.as_ref().ok_or("ft reassociation response: no GTK")?;
        let gtk = ft::unwrap_gtk(k.ptk.kek(), g).map_err(|_| "ft reassociation response: GTK does not unwrap")?;
        let rsc = u64::from_le_bytes(g.rsc);
        let igtk = match (&fte.igtk, r.neg.group_mgmt) {
            (Some(i), Some(_)) => {
                let key = ft::unwrap_igtk(k.ptk.kek(), i).map_err(|_| "ft reassociation response: IGTK does not unwrap")?;
                let mut ipn = [0u8; 8];
                ipn[..6].copy_from_slice(&i.ipn);
                Some((i.key_id, key, u64::from_le_bytes(ipn)))
            }
            (None, Some(_)) => return Err("ft reassociation response: no IGTK"),
            _ => None,
        };
        Ok(GroupFromFt { gtk_id: g.key_id, gtk, rsc, igtk })
    }

    /// Leaves the current AP for the target: its keys go, the PTK, GTK and IGTK of the
    /// transition come in, and a supplicant established under them takes the target's
    /// later rekeys.
    fn ft_switch(&mut self, now: u64, r: Roam, aid: u16, g: GroupFromFt, out: &mut Output) {
        let Some(k) = r.keys else { return };
        let from = self.bssid().unwrap_or_default();
        self.dp.keys().remove_peer(&from);
        let target = r.target.bssid;
        let n = r.neg.clone();
        self.dp.keys().set_spp_amsdu(target, n.spp_amsdu);
        let ok = self.dp.keys().install(Some(target), KeyType::Pairwise, 0, n.pairwise, k.ptk.tk(), None).is_ok()
            && self.dp.keys().install(Some(target), KeyType::Group, g.gtk_id, n.group, &g.gtk, Some(g.rsc)).is_ok()
            && match (&g.igtk, n.group_mgmt) {
                (Some((id, key, ipn)), Some(c)) => {
                    self.dp.keys().install(Some(target), KeyType::ManagementGroup, *id as u8, c, key, Some(*ipn)).is_ok()
                }
                _ => true,
            };
        if !ok {
            self.ft_give_up(0, "the engine refused the transition's keys", out);
            return self.reset(now, self.cfg.retry_ms);
        }
        let hc = handshake::Config {
            akm: n.akm,
            pairwise: n.pairwise,
            group: n.group,
            group_mgmt: n.group_mgmt,
            pmk: Zeroizing::new(vec![0; 32]),
            aa: target,
            spa: self.cfg.addr,
            ap_rsne: n.ap_rsne.clone(),
            sta_rsne: n.sta_rsne.clone(),
            timers: Timers::default(),
        };
        let mut supplicant = Supplicant::new(hc, crate::rng::fork(&mut *self.rng));
        let md_mde = r.target.mde.clone().unwrap_or_default();
        supplicant.set_ft(FtHandshake {
            pmk_r1: k.pmk_r1.clone(),
            mde: md_mde,
            fte: Vec::new(),
            reassoc_deadline_tu: 0,
            key_lifetime_s: 0,
        });
        supplicant.set_installed(*k.ptk, Some((g.gtk_id, g.gtk)), g.igtk.map(|(id, key, _)| (id as u8, key)));
        let mut link = Link::new(r.target, Some(n.clone()));
        link.sae_pmk = self.state.link().and_then(|l| l.sae_pmk.clone());
        self.state = State::Established(link, Some(Box::new(Rsna { supplicant, sa_query: None })));
        self.last_from_ap = now;
        self.tries = 0;
        out.events.push(NodeEvent::Phase {
            peer: target,
            phase: Phase::Associated { aid, akm: Some(n.akm), pairwise: Some(n.pairwise), group: Some(n.group) },
        });
        out.events.push(NodeEvent::Phase { peer: target, phase: Phase::FtReassociated { from, over_ds: r.over_ds } });
        out.events.push(NodeEvent::Phase { peer: target, phase: Phase::Established { pairwise: Some(n.pairwise) } });
    }

    /// The transition is abandoned; the station stays with its AP.
    fn ft_give_up(&mut self, status: u16, why: &'static str, out: &mut Output) {
        if let Some(r) = self.ft.roam.take() {
            out.events.push(NodeEvent::Phase { peer: r.target.bssid, phase: Phase::FtFailed { status, why } });
        }
    }

    /// An FT Action frame from the current AP (9.6.8): the FT Response of a transition
    /// over the DS (STA Address, Target AP Address, Status Code, then the elements).
    pub(super) fn ft_action(&mut self, now: u64, details: &[u8], out: &mut Output) {
        let [2, rest @ ..] = details else { return };
        if rest.len() < 14 {
            return self.counters.drop("ft action frame too short");
        }
        let (sta, target) = (&rest[..6], &rest[6..12]);
        let status = StatusCode(u16::from_le_bytes([rest[12], rest[13]]));
        let ours = self.ft.roam.as_ref().is_some_and(|r| r.over_ds && r.target.bssid.0 == target);
        if sta != self.cfg.addr.0 || !ours {
            return self.counters.drop("ft response for another transition");
        }
        self.ft_response(now, status, &rest[14..], out);
    }

    /// Retransmits or gives up a transition whose answer is late.
    pub(super) fn ft_timeout(&mut self, now: u64, out: &mut Output) {
        let Some(r) = self.ft.roam.as_ref().filter(|r| now >= r.deadline) else { return };
        if r.tries >= self.cfg.max_tries.max(1) {
            return self.ft_give_up(0, "no answer from the target", out);
        }
        if r.keys.is_some() {
            self.ft_send_reassoc(now, out);
        } else {
            self.ft_send_request(now, out);
        }
    }
}

/// The group keys a Reassociation Response carried (13.8.5).
struct GroupFromFt {
    gtk_id: u8,
    gtk: Zeroizing<Vec<u8>>,
    rsc: u64,
    igtk: Option<(u16, Zeroizing<Vec<u8>>, u64)>,
}

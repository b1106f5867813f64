//! The AP's side of the distribution system in fast BSS transition (IEEE 802.11-2020 13.10):
//! the key holders' messages in hostapd's RRB format ([`crate::rsn::rrb`]; PULL, RESP,
//! PUSH over 88-B7) and FT over the DS (13.5.3: the station's FT Request reaches the
//! target through the current AP in an 89-0D frame, the target's FT Response comes back
//! the same way). The frames go to and come from the AP's wired side, so a wsec AP and a
//! hostapd AP on one bridge share a mobility domain.
use crate::node::{NodeEvent, Output, Phase};
use crate::rsn::ft::PmkR1;
use crate::rsn::rrb::wire::{FtAction, OverDsType};
use crate::rsn::rrb::{self, KeyHolder, OverDs, PmkR0Entry, RrbEvent, RrbOutput};
use crate::wire::mac::MacAddr;
use crate::wire::mgmt::{AuthAlgorithm, AuthRepr, StatusCode};

use super::{AccessPoint, Peer, PeerState};
use crate::node::frames;

/// Ethertypes of the RRB frames: FT over the DS, and the key holders' (OUI-extended).
pub(super) const ETH_P_RRB: u16 = 0x890d;
pub(super) const ETH_P_OUI: u16 = 0x88b7;

/// An FT Authentication (or FT Request over the DS) waiting for a PMK-R1 the R0KH was
/// asked for.
pub(super) struct PendingFt {
    ies: Vec<u8>,
    /// Over the DS: the current AP to answer through.
    via: Option<MacAddr>,
}

impl AccessPoint {
    /// The key holders of this BSS, made from its FT settings (`r0kh`/`r1kh` lines).
    pub(super) fn new_key_holder(cfg: &super::ApConfig) -> crate::Result<Option<KeyHolder>> {
        let Some(ft) = &cfg.ft else { return Ok(None) };
        if ft.r0kh.is_empty() && ft.r1kh.is_empty() {
            return Ok(None);
        }
        let mut kh = KeyHolder::new(cfg.bssid, &ft.r0kh_id, ft.r1kh_id)?;
        for r in &ft.r0kh {
            kh.r1.add_r0kh(r.clone());
        }
        for r in &ft.r1kh {
            kh.r0.add_r1kh(r.clone());
        }
        Ok(Some(kh))
    }

    /// The R0KH keeps the PMK-R0 of an FT initial mobility domain association for the
    /// R1KHs that will PULL it, and PUSHes their PMK-R1s (`pmk_r1_push`).
    pub(super) fn rrb_store_r0(&mut self, now: u64, e: PmkR0Entry, out: &mut Output) {
        let push = self.cfg.ft.as_ref().is_some_and(|f| f.pmk_r1_push);
        let spa = e.spa;
        let Some(kh) = self.rrb.as_mut() else { return };
        kh.r0.store(e);
        if push {
            let mut ro = RrbOutput::default();
            let _ = kh.r0.push(spa, now, &mut *self.rng, &mut ro);
            self.rrb_out(ro, out);
        }
    }

    /// A PMK-R1 held for `sta` under `r1_name` (PUSHed or PULLed).
    pub(super) fn rrb_pmk_r1(&self, now: u64, sta: &MacAddr, r1_name: &[u8; 16]) -> Option<PmkR1> {
        self.rrb.as_ref()?.r1.get(*sta, r1_name, now).map(|e| e.pmk_r1())
    }

    /// Asks the R0KH `r0kh_id` for the PMK-R1; the FT exchange waits for the answer.
    /// False when no R0KH of that ID is configured (the exchange is refused at once).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rrb_pull(
        &mut self,
        now: u64,
        sta: &MacAddr,
        r0kh_id: &[u8],
        r0_name: &[u8; 16],
        ies: &[u8],
        via: Option<MacAddr>,
        out: &mut Output,
    ) -> bool {
        let Some(kh) = self.rrb.as_mut() else { return false };
        let mut ro = RrbOutput::default();
        if kh.r1.pull(*sta, r0kh_id, *r0_name, now, &mut *self.rng, &mut ro).is_err() {
            return false;
        }
        self.ft_pending.insert(*sta, PendingFt { ies: ies.to_vec(), via });
        self.rrb_out(ro, out);
        true
    }

    fn rrb_out(&mut self, ro: RrbOutput, out: &mut Output) {
        for f in ro.frames {
            self.counters.tx_host += 1;
            out.host.push(f);
        }
        for e in ro.events {
            self.rrb_event(e, out);
        }
    }

    /// What a key holder's event means for a waiting FT exchange: answered now.
    fn rrb_event(&mut self, e: RrbEvent, out: &mut Output) {
        out.events.push(NodeEvent::Phase { peer: self.cfg.bssid, phase: Phase::Rrb(e.to_string()) });
        let spa = match &e {
            RrbEvent::PmkR1Stored { spa, pushed: false, .. } | RrbEvent::PullRefused { spa, .. } | RrbEvent::PullTimedOut { spa, .. } => {
                *spa
            }
            _ => return,
        };
        if let Some(p) = self.ft_pending.remove(&spa) {
            let now = self.clock;
            self.ft_answer_as(now, &spa, &p.ies, p.via, false, out);
        }
    }

    /// One frame of the distribution system for this AP (its address or broadcast).
    /// Returns false for a frame that is not RRB (the bridge takes it).
    pub(super) fn rrb_rx(&mut self, now: u64, da: MacAddr, ethertype: u16, eth: &[u8], out: &mut Output) -> bool {
        if ethertype != ETH_P_RRB && ethertype != ETH_P_OUI {
            return false;
        }
        if self.cfg.ft.is_none() || !(da == self.cfg.bssid || da.is_broadcast()) {
            // Another AP's: not relayed to the stations either.
            self.counters.drop("rrb not for this ap");
            return true;
        }
        if ethertype == ETH_P_OUI {
            let Some(kh) = self.rrb.as_mut() else {
                self.counters.drop("rrb without key holders");
                return true;
            };
            let mut ro = RrbOutput::default();
            kh.handle(eth, now, &mut *self.rng, &mut ro);
            self.rrb_out(ro, out);
            return true;
        }
        match OverDs::parse(eth) {
            Ok(f) => self.over_ds_rx(now, f, out),
            Err(_) => self.counters.drop("malformed ft over the ds frame"),
        }
        true
    }

    /// FT over the DS at the target (a Request through the current AP) or at the current
    /// AP (the target's Response, for the station).
    fn over_ds_rx(&mut self, now: u64, f: OverDs, out: &mut Output) {
        let Ok(a) = FtAction::parse(&f.action) else { return self.counters.drop("malformed ft action over the ds") };
        match f.packet_type {
            OverDsType::Request if a.target_ap == self.cfg.bssid => {
                if !self.peers.contains_key(&a.sta) && self.peers.len() >= self.cfg.max_stations {
                    return self.over_ds_answer(f.src, &a.sta, StatusCode::AP_FULL, &[], out);
                }
                self.ft_answer(now, &a.sta, &a.ies, Some(f.src), out);
            }
            OverDsType::Response if self.peers.get(&a.sta).is_some_and(|p| p.state.is_associated()) => {
                // 13.5.3: the current AP hands the target's answer to its station.
                let seq = self.seq.take();
                let bssid = self.cfg.bssid;
                let f = frames::action(&a.sta, &bssid, &bssid, seq, &f.action);
                self.send_mgmt(now, &a.sta, f, out);
            }
            _ => self.counters.drop("ft over the ds frame for another ap or station"),
        }
    }

    /// The station's FT Request at its current AP (9.6.8.2): sent on to the target over the
    /// DS (hostapd `wpa_ft_action_rx`).
    pub(super) fn ft_action_rx(&mut self, sta: &MacAddr, details: &[u8], out: &mut Output) {
        let body = [&[FtAction::CATEGORY][..], details].concat();
        let Ok(a) = FtAction::parse(&body) else { return self.counters.drop("malformed ft action frame") };
        if a.action != FtAction::REQUEST || a.sta != *sta || a.target_ap == self.cfg.bssid || self.cfg.ft.is_none() {
            return self.counters.drop("ft action frame refused");
        }
        if !self.peers.get(sta).is_some_and(|p| p.state.is_associated()) {
            return self.counters.drop("ft request from a station not associated");
        }
        let f =
            OverDs { dst: a.target_ap, src: self.cfg.bssid, packet_type: OverDsType::Request, ap_address: self.cfg.bssid, action: body };
        match f.emit() {
            Ok(eth) => {
                self.counters.tx_host += 1;
                out.host.push(eth);
            }
            Err(_) => self.counters.drop("ft request not forwarded"),
        }
    }

    /// Answers an FT Authentication Request (`via` None) or an FT Request over the DS
    /// (through the current AP `via`), unless its PMK-R1 must first be pulled.
    pub(super) fn ft_answer(&mut self, now: u64, sta: &MacAddr, ies: &[u8], via: Option<MacAddr>, out: &mut Output) {
        self.ft_answer_as(now, sta, ies, via, true, out)
    }

    /// [`Self::ft_answer`]; `may_pull` false once the R0KH answered (a NAK is final).
    fn ft_answer_as(&mut self, now: u64, sta: &MacAddr, ies: &[u8], via: Option<MacAddr>, may_pull: bool, out: &mut Output) {
        // The same request again (its answer was lost or late): the same answer, so that
        // the Reassociation matches whichever copy the station took.
        let e = crate::rsn::ft::FtElements::find(ies);
        let akm = e.rsne.and_then(|r| crate::rsn::ie::RsnElementRepr::parse(r).ok()).and_then(|r| r.akms.first().and_then(|a| a.akm()));
        let snonce = akm.filter(|a| a.is_ft()).and_then(|a| e.fte(a).ok()).map(|f| f.snonce);
        let again =
            self.peers.get(sta).and_then(|p| p.ft.as_ref()).filter(|s| snonce.as_ref() == Some(s.snonce())).map(|s| s.resp_ies.clone());
        if let Some(resp_ies) = again {
            self.counters.drop("ft request repeated: answered again");
            return match via {
                Some(cur) => self.over_ds_answer(cur, sta, StatusCode::SUCCESS, &resp_ies, out),
                None => {
                    let bssid = self.cfg.bssid;
                    let seq = self.seq.take();
                    let mut f =
                        frames::auth(sta, &bssid, &bssid, seq, AuthRepr::new(AuthAlgorithm::FAST_BSS_TRANSITION, 2, StatusCode::SUCCESS));
                    f.extend_from_slice(&resp_ies);
                    self.tx_mgmt(f, out);
                }
            };
        }
        let res = self.ft_session(now, sta, ies, via.is_some());
        if let Err(StatusCode::INVALID_PMKID) = res {
            if self.ft_pending.contains_key(sta) {
                // The request again while its PULL is out: the answer comes with the RESP.
                return self.counters.drop("ft request repeated: pull pending");
            }
            if may_pull && self.ft_pull_needed(now, sta, ies, via, out) {
                return;
            }
        }
        let st = res.as_ref().err().copied().unwrap_or(StatusCode::SUCCESS);
        let resp_ies = match res {
            Ok((session, resp_ies)) => {
                let p = self.peers.entry(*sta).or_insert_with(|| Peer::new(now, PeerState::Authenticated));
                if !p.state.is_associated() {
                    p.state = PeerState::Authenticated;
                }
                p.last_rx = now;
                p.ft = Some(Box::new(session));
                out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::FtAuthenticated });
                resp_ies
            }
            Err(st) => {
                self.counters.drop("ft authentication refused");
                out.events.push(NodeEvent::Phase { peer: *sta, phase: Phase::FtFailed { status: st.0, why: "ft authentication refused" } });
                Vec::new()
            }
        };
        match via {
            Some(cur) => self.over_ds_answer(cur, sta, st, &resp_ies, out),
            None => {
                let bssid = self.cfg.bssid;
                let seq = self.seq.take();
                let mut f = frames::auth(sta, &bssid, &bssid, seq, AuthRepr::new(AuthAlgorithm::FAST_BSS_TRANSITION, 2, st));
                f.extend_from_slice(&resp_ies);
                self.tx_mgmt(f, out);
            }
        }
    }

    /// The PMK-R1 is neither ours nor derivable: PULL it from the station's R0KH when one
    /// is configured (hostapd `wpa_ft_pull_pmk_r1`).
    fn ft_pull_needed(&mut self, now: u64, sta: &MacAddr, ies: &[u8], via: Option<MacAddr>, out: &mut Output) -> bool {
        let e = crate::rsn::ft::FtElements::find(ies);
        let akm = e.rsne.and_then(|r| crate::rsn::ie::RsnElementRepr::parse(r).ok()).and_then(|r| r.akms.first().and_then(|a| a.akm()));
        let Some(akm) = akm.filter(|a| a.is_ft()) else { return false };
        let (Some(r0_name), Ok(fte)) = (e.pmkid(), e.fte(akm)) else { return false };
        let Some(r0kh_id) = fte.r0kh_id else { return false };
        self.rrb_pull(now, sta, &r0kh_id, &r0_name, ies, via, out)
    }

    fn over_ds_answer(&mut self, cur: MacAddr, sta: &MacAddr, st: StatusCode, ies: &[u8], out: &mut Output) {
        let a = FtAction { action: FtAction::RESPONSE, sta: *sta, target_ap: self.cfg.bssid, status: Some(st.0), ies: ies.to_vec() };
        let f = OverDs { dst: cur, src: self.cfg.bssid, packet_type: OverDsType::Response, ap_address: self.cfg.bssid, action: a.emit() };
        if let Ok(eth) = f.emit() {
            self.counters.tx_host += 1;
            out.host.push(eth);
        }
    }

    /// The key holders' retransmissions and timeouts.
    pub(super) fn rrb_timeouts(&mut self, now: u64, out: &mut Output) {
        let Some(kh) = self.rrb.as_mut() else { return };
        let mut ro = RrbOutput::default();
        kh.poll(now, &mut *self.rng, &mut ro);
        self.rrb_out(ro, out);
    }

    /// The cipher number hostapd's RRB carries for a pairwise suite.
    pub(super) fn rrb_pairwise(c: crate::cipher::CipherSuite) -> u16 {
        rrb::msg::suite_to_pairwise(c).unwrap_or(0)
    }
}

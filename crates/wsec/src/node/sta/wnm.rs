//! Neighbor reports and BSS transition management at the station (IEEE 802.11-2020
//! 11.10.10.2, 11.22.7), as wpa_supplicant 2.10 does them (`wpa_supplicant/rrm.c`,
//! `wpa_supplicant/wnm_sta.c`):
//!
//! - a Neighbor Report Request to the AP (wpa_cli `NEIGHBOR_REP_REQUEST [ssid=..] [lci]
//!   [civic]`) only when connected to an AP that sets Radio Measurement in its Capability
//!   Information, one at a time; its Response (the dialog token must match) or a second
//!   without one is reported ([`Phase::NeighborReport`], [`Phase::NeighborReportFailed`]);
//! - a BSS Transition Management Query (`WNM_BSS_QUERY <reason>`), dialog token 1;
//! - a BSS Transition Management Request from our AP: with a candidate list, the candidates
//!   sorted by preference (those without one last, preference 0 excluded), the first one
//!   that is a BSS of our network the station heard (its Beacons or Probe Responses) is
//!   accepted (status 0 with its BSSID, sent to the current AP first, as
//!   `wnm_bss_tm_connect`) and the station moves there: a fast BSS transition when the FT
//!   association allows one (`roam`), else a new association ([`Station::reassociate_to`]);
//!   no such candidate is status 7 (no suitable candidates), a list announced but empty
//!   too. Without a list the answer is status 1 (wpa_supplicant: "did not include
//!   candidates"), or 0 when the ESS is going away (ESS Disassociation Imminent).
//!   Disassociation Imminent alone changes nothing more here: wpa_supplicant starts a scan,
//!   the station leaves when the AP disassociates it and scans then. A group-addressed
//!   request is acted on without an answer.
use super::{State, Station};
use crate::node::frames::{self, BssInfo};
use crate::node::{NodeEvent, Output, Phase, Security};
use crate::wire::element;
use crate::wire::mac::MacAddr;
use crate::wire::mgmt::{ActionCategory, Capability, ReasonCode};
use crate::wire::rrm::{self, NeighborReport, NeighborReportRequestRepr, NeighborReportResponseRepr, RrmActionRepr};
use crate::wire::wnm::{request_mode, BtmQueryRepr, BtmRequestRepr, BtmResponseRepr, BtmStatus, WnmActionRepr};

/// How long a Neighbor Report Request waits for its Response (wpa_supplicant's
/// RRM_NEIGHBOR_REPORT_TIMEOUT, 1 s).
const NEIGHBOR_REPORT_TIMEOUT: u64 = crate::node::SEC;

/// The station's neighbor report state.
#[derive(Debug, Default)]
pub(super) struct StaWnm {
    /// The Neighbor Report Request awaiting its Response: its dialog token, its deadline.
    pending: Option<(u8, u64)>,
    /// The dialog token of the last Neighbor Report Request (wpa_supplicant starts at 1).
    last_token: u8,
}

impl Station {
    /// Sends the AP a Neighbor Report Request (9.6.6.6) for `ssid` (none: the AP's own
    /// SSID), asking for LCI and civic location reports with `lci` / `civic`, as
    /// wpa_supplicant's `wpas_rrm_send_neighbor_rep_request`; its dialog token. Refused when
    /// not connected, when the AP does not set Radio Measurement, or while a request waits.
    pub fn neighbor_rep_request(
        &mut self,
        now: u64,
        ssid: Option<&[u8]>,
        lci: bool,
        civic: bool,
        out: &mut Output,
    ) -> Result<u8, &'static str> {
        let bss = match &self.state {
            State::Established(l, _) => l.bss.clone(),
            _ => return Err("not connected"),
        };
        if bss.capability.0 & rrm::CAPABILITY_RADIO_MEASUREMENT == 0 {
            return Err("the AP does not offer radio measurement");
        }
        if self.wnm.pending.is_some_and(|(_, t)| now < t) {
            return Err("a neighbor report request is already waiting");
        }
        if ssid.is_some_and(|s| s.len() > 32) {
            return Err("an SSID is at most 32 octets");
        }
        let mut ies = Vec::new();
        if let Some(s) = ssid {
            let _ = element::push(&mut ies, element::id::SSID, s);
        }
        if lci {
            // Measurement Token 1, mode 0, LCI; subject remote, Maximum Age subelement 0xffff.
            let _ = element::push(&mut ies, rrm::EID_MEASUREMENT_REQUEST, &[1, 0, rrm::measurement_type::LCI, 1, 4, 2, 0xff, 0xff]);
        }
        if civic {
            // Measurement Token 2, mode 0, Location Civic; subject remote, RFC 4776, once.
            let _ = element::push(&mut ies, rrm::EID_MEASUREMENT_REQUEST, &[2, 0, rrm::measurement_type::LOCATION_CIVIC, 1, 0, 0, 0, 0]);
        }
        let token = match self.wnm.last_token.wrapping_add(1) {
            0 => 1,
            t => t,
        };
        self.wnm.last_token = token;
        let body = NeighborReportRequestRepr { dialog_token: token, elements: &ies }.to_vec();
        self.send_action(now, &bss.bssid, &body, out);
        self.wnm.pending = Some((token, now + NEIGHBOR_REPORT_TIMEOUT));
        Ok(token)
    }

    /// Sends the AP a BSS Transition Management Query (9.6.13.8) with `reason`
    /// ([`crate::wire::wnm::query_reason`]) and `candidates` (wpa_supplicant
    /// `WNM_BSS_QUERY`, dialog token 1).
    pub fn wnm_bss_query(&mut self, now: u64, reason: u8, candidates: &[NeighborReport], out: &mut Output) -> Result<(), &'static str> {
        let Some(b) = self.bssid().filter(|_| self.state.is_established()) else { return Err("not connected") };
        let mut list = Vec::new();
        for c in candidates {
            c.push(&mut list).map_err(|_| "a candidate's Neighbor Report is over 255 octets")?;
        }
        let body = BtmQueryRepr { dialog_token: 1, reason, candidates: &list }.to_vec();
        self.send_action(now, &b, &body, out);
        Ok(())
    }

    /// Leaves the current AP and joins `target`, a BSS of our network heard in its Beacons
    /// or Probe Responses, with a new authentication and association (no fast BSS
    /// transition): what wpa_supplicant does for a BTM Request outside an FT mobility
    /// domain. The current AP gets a Deauthentication (reason 3: leaving).
    pub fn reassociate_to(&mut self, now: u64, target: MacAddr, out: &mut Output) -> Result<(), &'static str> {
        if self.bssid() == Some(target) {
            return Err("already associated with the target");
        }
        let info = self.heard(&target).ok_or("target BSS not heard")?;
        if !self.bss_fits(&info) {
            return Err("target BSS does not fit the network");
        }
        if self.bssid().is_some() {
            self.leave(now, ReasonCode::DEAUTH_LEAVING, out);
        }
        // The goodbye (protected under MFP) may sit in the card model's queue.
        self.dp.flush(out);
        self.consider(now, info, out);
        if self.bssid() != Some(target) {
            return Err("target BSS refused");
        }
        Ok(())
    }

    /// What the Beacons or Probe Responses of `bssid` said, if the station heard it.
    fn heard(&self, bssid: &MacAddr) -> Option<BssInfo> {
        self.bss_heard().into_iter().map(|(b, _)| b).find(|b| b.bssid == *bssid)
    }

    /// Whether a BSS heard could be joined under our network block: its SSID, the
    /// configured BSSID, and security `consider` would negotiate.
    fn bss_fits(&self, info: &BssInfo) -> bool {
        if info.ssid != self.cfg.ssid || self.cfg.bssid.is_some_and(|b| b != info.bssid) {
            return false;
        }
        let privacy = info.capability.has(Capability::PRIVACY);
        let plain = info.rsne.is_none() && info.wpa_ie.is_none();
        match &self.cfg.security {
            Security::Open => !privacy && plain,
            Security::Wep { .. } => privacy && plain,
            Security::Rsn { akms, pairwise, groups, .. } => {
                let rsn = info.rsne.as_deref().filter(|_| self.cfg.proto_rsn).and_then(|r| {
                    super::assoc::negotiate(r, akms, pairwise, groups, self.cfg.mfp, self.cfg.extended_key_id, self.cfg.spp_amsdu)
                });
                rsn.is_some() || (self.cfg.proto_wpa1 && info.wpa_ie.is_some())
            }
        }
    }

    /// A Radio Measurement or WNM Action frame from our AP (decrypted when MFP is on):
    /// `details` are the octets after the Category; `unicast` whether it was addressed to
    /// us alone.
    pub(super) fn wnm_action(&mut self, now: u64, category: ActionCategory, details: &[u8], unicast: bool, out: &mut Output) {
        if !self.state.is_established() {
            // wpa_supplicant: "Ignore unexpected WNM Action frame" before association.
            return self.counters.drop("wnm or radio measurement frame while not connected");
        }
        match category {
            ActionCategory::RADIO_MEASUREMENT => match RrmActionRepr::parse_details(details) {
                Ok(RrmActionRepr::NeighborReportResponse(r)) => self.neighbor_report_response(&r, out),
                Ok(_) => self.counters.drop("unsupported radio measurement action"),
                Err(_) => self.counters.drop("malformed radio measurement frame"),
            },
            ActionCategory::WNM => match WnmActionRepr::parse_details(details) {
                Ok(WnmActionRepr::BtmRequest(r)) => self.btm_request(now, &r, unicast, out),
                Ok(_) => self.counters.drop("unsupported wnm action"),
                Err(_) => self.counters.drop("malformed wnm frame"),
            },
            _ => {}
        }
    }

    /// The Neighbor Report Response: reported if it answers the request waiting
    /// (wpa_supplicant `wpas_rrm_process_neighbor_rep`: the dialog token must match).
    fn neighbor_report_response(&mut self, r: &NeighborReportResponseRepr<'_>, out: &mut Output) {
        if self.wnm.pending.map(|(t, _)| t) != Some(r.dialog_token) {
            return self.counters.drop("unexpected neighbor report");
        }
        self.wnm.pending = None;
        let peer = self.bssid().unwrap_or_default();
        let neighbors = r.neighbors();
        let phase = if neighbors.is_empty() {
            Phase::NeighborReportFailed
        } else {
            Phase::NeighborReport { dialog_token: r.dialog_token, neighbors }
        };
        out.events.push(NodeEvent::Phase { peer, phase });
    }

    /// A Neighbor Report Request that got no answer in time.
    pub(super) fn wnm_timeout(&mut self, now: u64, out: &mut Output) {
        if self.wnm.pending.is_some_and(|(_, t)| now >= t) {
            self.wnm.pending = None;
            out.events.push(NodeEvent::Phase { peer: self.bssid().unwrap_or_default(), phase: Phase::NeighborReportFailed });
        }
    }

    /// When the Neighbor Report Request waiting gives up.
    pub(super) fn wnm_poll(&self) -> Option<u64> {
        self.wnm.pending.map(|(_, t)| t)
    }

    /// A BSS Transition Management Request from our AP (wpa_supplicant
    /// `ieee802_11_rx_bss_trans_mgmt_req`).
    fn btm_request(&mut self, now: u64, r: &BtmRequestRepr<'_>, unicast: bool, out: &mut Output) {
        let Some(current) = self.bssid() else { return };
        let candidates: Vec<NeighborReport> = r.candidates().filter_map(|c| c.ok()).collect();
        if candidates.len() != r.candidates().count() {
            self.counters.drop("malformed bss transition candidate");
        }
        out.events.push(NodeEvent::Phase {
            peer: current,
            phase: Phase::BtmRequest {
                dialog_token: r.dialog_token,
                mode: r.mode,
                disassoc_timer: r.disassoc_timer,
                validity: r.validity_interval,
                candidates: candidates.len(),
                url: r.session_url.map(|u| String::from_utf8_lossy(u).into_owned()),
            },
        });
        if !r.has(request_mode::PREFERRED_CANDIDATE_LIST) {
            if unicast {
                let ess = r.has(request_mode::ESS_DISASSOCIATION_IMMINENT);
                // wpa_supplicant puts a zero Target BSSID in an accept without a target.
                let (status, target) = if ess { (BtmStatus::ACCEPT, Some(MacAddr([0; 6]))) } else { (BtmStatus::REJECT_UNSPECIFIED, None) };
                self.send_btm_response(now, r.dialog_token, status, target, out);
            }
            return;
        }
        let Some(target) = self.btm_choose(candidates) else {
            if unicast {
                self.send_btm_response(now, r.dialog_token, BtmStatus::REJECT_NO_SUITABLE_CANDIDATES, None, out);
            }
            return;
        };
        if unicast {
            self.send_btm_response(now, r.dialog_token, BtmStatus::ACCEPT, Some(target), out);
        }
        if target == current {
            // wpa_supplicant: "Already associated with the preferred candidate".
            return;
        }
        if self.roam(now, target, false, out).is_err() && self.reassociate_to(now, target, out).is_err() {
            self.counters.drop("bss transition target refused");
        }
    }

    /// The candidate to move to: by preference (highest first, those without one after, in
    /// the AP's order; wpa_supplicant's `cand_pref_compar`), the first not excluded
    /// (preference 0) that the station heard and could join.
    fn btm_choose(&self, mut candidates: Vec<NeighborReport>) -> Option<MacAddr> {
        candidates.sort_by_key(|c| std::cmp::Reverse(c.preference().map_or(-1, i32::from)));
        candidates
            .iter()
            .filter(|c| c.preference() != Some(0))
            .find(|c| self.heard(&c.bssid).is_some_and(|b| self.bss_fits(&b)))
            .map(|c| c.bssid)
    }

    /// A BSS Transition Management Response (9.6.13.10) to our AP, reported as an event.
    fn send_btm_response(&mut self, now: u64, dialog_token: u8, status: BtmStatus, target: Option<MacAddr>, out: &mut Output) {
        let Some(b) = self.bssid() else { return };
        let r = BtmResponseRepr { dialog_token, status, termination_delay: 0, target, candidates: &[] };
        let Ok(body) = r.to_vec() else { return };
        self.send_action(now, &b, &body, out);
        out.events
            .push(NodeEvent::Phase { peer: b, phase: Phase::BtmResponse { dialog_token, status: status.0, termination_delay: 0, target } });
    }

    /// An Action frame to the AP `bssid`, protected when MFP is on.
    fn send_action(&mut self, now: u64, bssid: &MacAddr, body: &[u8], out: &mut Output) {
        let seq = self.seq.take();
        let f = frames::action(bssid, &self.cfg.addr, bssid, seq, body);
        self.send_mgmt(now, f, out);
    }
}

//! Neighbor reports and BSS transition management at the AP (IEEE 802.11-2020 11.10.10.2,
//! 11.22.7), as hostapd 2.10 does them (`src/ap/rrm.c`, `src/ap/neighbor_db.c`,
//! `src/ap/wnm_ap.c`):
//!
//! - the neighbor table hostapd_cli's `SET_NEIGHBOR` / `REMOVE_NEIGHBOR` / `SHOW_NEIGHBOR`
//!   edit, with this BSS's own report in it when `rrm_neighbor_report=1`
//!   (`hostapd_neighbor_set_own_report`), newest entry first;
//! - the Neighbor Report Response (9.6.6.7) to a station's request: the entries of the SSID
//!   the request names (this BSS's SSID when it names none), with the LCI and civic
//!   Measurement Reports it asks for;
//! - BSS Transition Management Requests (9.6.13.9) sent on command (`BSS_TM_REQ`) or in
//!   answer to a Query, the Disassociation Timer that disassociates the station when it runs
//!   out, and the station's Response reported as an event (hostapd's `BSS-TM-RESP`);
//! - the Capability Information b12, RM Enabled Capabilities element and Extended
//!   Capabilities b19 that advertise them in Beacons and Probe Responses.
//!
//! Like hostapd, Action frames from a station that is not associated are ignored, and under
//! MFP both directions are protected under the PTK (`send_mgmt`; an unprotected robust
//! frame from an MFP station never gets here).
use super::AccessPoint;
use crate::node::frames;
use crate::node::{NodeEvent, Output, Phase, TU};
use crate::wire::element;
use crate::wire::mac::MacAddr;
use crate::wire::mgmt::{ActionCategory, ReasonCode};
use crate::wire::rrm::{self, NeighborReport, NeighborReportRequestRepr, RmEnabledCapabilities, RrmActionRepr};
use crate::wire::wnm::{self, BssTerminationDuration, BtmRequestRepr, WnmActionRepr};
use std::collections::BTreeMap;

/// Octets a Neighbor Report Response may carry after its Dialog Token (hostapd: the
/// largest MMPDU, IEEE80211_MAX_MMPDU_SIZE).
const MAX_RESPONSE_ELEMENTS: usize = 2304;

/// One entry of the neighbor table (hostapd's `hostapd_neighbor_entry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neighbor {
    pub bssid: MacAddr,
    pub ssid: Vec<u8>,
    /// The Neighbor Report element's Information field (`nr=`).
    pub nr: Vec<u8>,
    /// The LCI report (`lci=`): a Measurement Report element's Information field, its
    /// first octet (the Measurement Token) replaced by the request's.
    pub lci: Option<Vec<u8>>,
    /// The Location Civic report (`civic=`), likewise.
    pub civic: Option<Vec<u8>>,
    /// `stat`: a stationary AP.
    pub stationary: bool,
}

/// What a BSS Transition Management Request says (hostapd_cli `BSS_TM_REQ`'s arguments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BtmRequestParams {
    /// hostapd's default is 1.
    pub dialog_token: u8,
    /// Request Mode bits ([`wnm::request_mode`]): Preferred Candidate List Included,
    /// Abridged, Disassociation Imminent. BSS Termination Included and ESS Disassociation
    /// Imminent follow `bss_termination` and `session_url`.
    pub mode: u8,
    /// Disassociation Timer, TBTTs: when not 0 the AP disassociates the station after it.
    pub disassoc_timer: u16,
    /// Validity Interval, TBTTs (hostapd's default 1).
    pub validity_interval: u8,
    pub bss_termination: Option<BssTerminationDuration>,
    pub session_url: Option<Vec<u8>>,
    /// The BSS Transition Candidate List Entries.
    pub candidates: Vec<NeighborReport>,
}

impl Default for BtmRequestParams {
    fn default() -> BtmRequestParams {
        BtmRequestParams {
            dialog_token: 1,
            mode: 0,
            disassoc_timer: 0,
            validity_interval: 1,
            bss_termination: None,
            session_url: None,
            candidates: Vec::new(),
        }
    }
}

/// The AP's neighbor table and the disassociations BTM Requests announced.
#[derive(Debug, Default)]
pub(super) struct ApWnm {
    neighbors: Vec<Neighbor>,
    /// Stations to disassociate when their BTM Request's Disassociation Timer runs out.
    disassoc_at: BTreeMap<MacAddr, u64>,
}

impl ApWnm {
    /// The table of a new AP: its own report when neighbor reports are on.
    pub(super) fn new(cfg: &super::ApConfig) -> ApWnm {
        let mut w = ApWnm::default();
        if cfg.rrm_neighbor_report {
            w.neighbors.push(Neighbor {
                bssid: cfg.bssid,
                ssid: cfg.ssid.clone(),
                nr: own_report(cfg).to_body(),
                lci: None,
                civic: None,
                stationary: false,
            });
        }
        w
    }
}

/// This BSS's Neighbor Report as hostapd's `hostapd_neighbor_set_own_report` makes it for a
/// non-HT BSS without WMM: reachable, same security and key scope, radio measurement;
/// Operating Class and Channel of its 20 MHz channel, PHY Type ERP (2.4 GHz) or OFDM; a
/// Wide Bandwidth Channel subelement of 20 MHz.
fn own_report(cfg: &super::ApConfig) -> NeighborReport {
    use rrm::bssid_info as b;
    let info = b::REACHABLE | b::SECURITY | b::KEY_SCOPE | b::RADIO_MEASUREMENT;
    let phy = if cfg.channel <= 14 { rrm::phy_type::ERP } else { rrm::phy_type::OFDM };
    let mut r = NeighborReport::new(cfg.bssid, info, rrm::operating_class(cfg.channel), cfg.channel, phy);
    r.subelements = vec![rrm::subelement::WIDE_BANDWIDTH_CHANNEL, 3, 0, 0, 0];
    r
}

/// A Measurement Report element from a stored LCI or civic report, its Measurement Token
/// set to the request's (hostapd overrides the first octet the same way).
fn measurement_report(stored: &[u8], token: u8, out: &mut Vec<u8>) {
    let mut body = stored.to_vec();
    if let Some(t) = body.first_mut() {
        *t = token;
    }
    let _ = element::push(out, rrm::EID_MEASUREMENT_REPORT, &body);
}

impl AccessPoint {
    /// Adds or replaces the neighbor table entry of `bssid` and `ssid` (hostapd_cli
    /// `SET_NEIGHBOR <bssid> ssid=.. nr=<hex>`): `nr` is a Neighbor Report element's
    /// Information field. Refused when `rrm_neighbor_report` is off, for an SSID not of 1-32
    /// octets or a report that does not parse.
    pub fn set_neighbor(&mut self, bssid: MacAddr, ssid: &[u8], nr: &[u8]) -> Result<(), &'static str> {
        self.set_neighbor_entry(Neighbor { bssid, ssid: ssid.to_vec(), nr: nr.to_vec(), lci: None, civic: None, stationary: false })
    }

    /// [`Self::set_neighbor`] with LCI and civic reports and the stationary flag.
    pub fn set_neighbor_entry(&mut self, n: Neighbor) -> Result<(), &'static str> {
        if !self.cfg.rrm_neighbor_report {
            return Err("neighbor report is not enabled (rrm_neighbor_report=0)");
        }
        if n.ssid.is_empty() || n.ssid.len() > 32 {
            return Err("an SSID is 1 to 32 octets");
        }
        if n.nr.len() > element::MAX_BODY_LEN || NeighborReport::parse(&n.nr).is_err() {
            return Err("bad Neighbor Report element");
        }
        let fits = |m: &Option<Vec<u8>>| m.as_ref().is_none_or(|m| !m.is_empty() && m.len() <= element::MAX_BODY_LEN);
        if !fits(&n.lci) || !fits(&n.civic) {
            return Err("an LCI or civic report is 1 to 255 octets");
        }
        let t = &mut self.wnm.neighbors;
        match t.iter_mut().find(|e| e.bssid == n.bssid && e.ssid == n.ssid) {
            Some(e) => *e = n,
            // hostapd's dl_list_add: a new entry goes first.
            None => t.insert(0, n),
        }
        Ok(())
    }

    /// Removes the first entry of `bssid` (and `ssid` when given; hostapd_cli
    /// `REMOVE_NEIGHBOR`): false when there is none.
    pub fn remove_neighbor(&mut self, bssid: &MacAddr, ssid: Option<&[u8]>) -> bool {
        let t = &mut self.wnm.neighbors;
        match t.iter().position(|e| e.bssid == *bssid && ssid.is_none_or(|s| s == &e.ssid[..])) {
            Some(i) => {
                t.remove(i);
                true
            }
            None => false,
        }
    }

    /// The neighbor table, in hostapd's order (`SHOW_NEIGHBOR`).
    pub fn neighbors(&self) -> &[Neighbor] {
        &self.wnm.neighbors
    }

    /// Sends `sta` a BSS Transition Management Request (9.6.13.9; hostapd_cli `BSS_TM_REQ`,
    /// `wnm_send_bss_tm_req`); with a Disassociation Timer, the station is disassociated
    /// (reason 2) when it runs out unless it left before. Refused for a station that is not
    /// associated or a request that does not fit its fields.
    pub fn bss_tm_req(&mut self, now: u64, sta: &MacAddr, p: &BtmRequestParams, out: &mut Output) -> Result<(), &'static str> {
        self.clock = now;
        if !self.peers.get(sta).is_some_and(|x| x.state.is_associated()) {
            return Err("no such associated station");
        }
        let mut elements = Vec::new();
        for c in &p.candidates {
            c.push(&mut elements).map_err(|_| "a candidate's Neighbor Report is over 255 octets")?;
        }
        let mut mode = p.mode & !(wnm::request_mode::BSS_TERMINATION_INCLUDED | wnm::request_mode::ESS_DISASSOCIATION_IMMINENT);
        if p.bss_termination.is_some() {
            mode |= wnm::request_mode::BSS_TERMINATION_INCLUDED;
        }
        if p.session_url.is_some() {
            mode |= wnm::request_mode::ESS_DISASSOCIATION_IMMINENT;
        }
        let r = BtmRequestRepr {
            dialog_token: p.dialog_token,
            mode,
            disassoc_timer: p.disassoc_timer,
            validity_interval: p.validity_interval,
            bss_termination: p.bss_termination,
            session_url: p.session_url.as_deref(),
            elements: &elements,
        };
        let body = r.to_vec().map_err(|_| "the session URL is over 255 octets")?;
        self.send_action(now, sta, &body, out);
        if p.disassoc_timer > 0 {
            let at = now.saturating_add(p.disassoc_timer as u64 * self.cfg.beacon_interval_tu as u64 * TU);
            self.wnm.disassoc_at.insert(*sta, at);
        }
        Ok(())
    }

    /// A Radio Measurement or WNM Action frame from `sta` (in the clear, or decrypted under
    /// its PTK with MFP): `details` are the octets after the Category.
    pub(super) fn wnm_action(&mut self, now: u64, sta: &MacAddr, category: ActionCategory, details: &[u8], out: &mut Output) {
        if !self.peers.get(sta).is_some_and(|p| p.state.is_associated()) {
            // hostapd: "Ignored Action frame ... from unassociated STA".
            return self.counters.drop("action frame from an unassociated station");
        }
        match category {
            ActionCategory::RADIO_MEASUREMENT => match RrmActionRepr::parse_details(details) {
                Ok(RrmActionRepr::NeighborReportRequest(r)) if self.cfg.rrm_neighbor_report => {
                    self.neighbor_report_response(now, sta, &r, out)
                }
                Ok(RrmActionRepr::NeighborReportRequest(_)) => self.counters.drop("neighbor report request with rrm_neighbor_report=0"),
                Ok(_) => self.counters.drop("unsupported radio measurement action"),
                Err(_) => self.counters.drop("malformed radio measurement frame"),
            },
            ActionCategory::WNM => match WnmActionRepr::parse_details(details) {
                Ok(WnmActionRepr::BtmQuery(_) | WnmActionRepr::BtmResponse(_)) if !self.cfg.bss_transition => {
                    // hostapd ignores both when BSS transition management is off.
                    self.counters.drop("bss transition management frame with bss_transition=0")
                }
                Ok(WnmActionRepr::BtmQuery(q)) => {
                    // hostapd 2.10 (`ieee802_11_send_bss_trans_mgmt_request`) answers with a
                    // request of its own: no candidates, Request Mode 0, Validity Interval 1.
                    let p = BtmRequestParams { dialog_token: q.dialog_token, ..Default::default() };
                    let _ = self.bss_tm_req(now, sta, &p, out);
                }
                Ok(WnmActionRepr::BtmResponse(r)) => out.events.push(NodeEvent::Phase {
                    peer: *sta,
                    phase: Phase::BtmResponse {
                        dialog_token: r.dialog_token,
                        status: r.status.0,
                        termination_delay: r.termination_delay,
                        target: r.target,
                    },
                }),
                Ok(_) => self.counters.drop("unsupported wnm action"),
                Err(_) => self.counters.drop("malformed wnm frame"),
            },
            _ => {}
        }
    }

    /// The Neighbor Report Response to `r` (hostapd `hostapd_send_nei_report_resp`).
    fn neighbor_report_response(&mut self, now: u64, sta: &MacAddr, r: &NeighborReportRequestRepr<'_>, out: &mut Output) {
        let ssid = r.ssid().filter(|s| !s.is_empty() && s.len() <= 32).map(|s| s.to_vec()).unwrap_or_else(|| self.cfg.ssid.clone());
        let (lci, civic) = (r.measurement_token(rrm::measurement_type::LCI), r.measurement_token(rrm::measurement_type::LOCATION_CIVIC));
        let mut body = vec![ActionCategory::RADIO_MEASUREMENT.0, rrm::action::NEIGHBOR_REPORT_RESPONSE, r.dialog_token];
        for n in self.wnm.neighbors.iter().filter(|n| n.ssid == ssid) {
            let mut e = Vec::new();
            if element::push(&mut e, rrm::EID_NEIGHBOR_REPORT, &n.nr).is_err() {
                continue;
            }
            if let (Some(t), Some(l)) = (lci, &n.lci) {
                measurement_report(l, t, &mut e);
            }
            if let (Some(t), Some(c)) = (civic, &n.civic) {
                measurement_report(c, t, &mut e);
            }
            if body.len() - 3 + e.len() > MAX_RESPONSE_ELEMENTS {
                break;
            }
            body.extend_from_slice(&e);
        }
        self.send_action(now, sta, &body, out);
    }

    /// An Action frame to `sta` from this BSS, protected when MFP is in force.
    fn send_action(&mut self, now: u64, sta: &MacAddr, body: &[u8], out: &mut Output) {
        let seq = self.seq.take();
        let f = frames::action(sta, &self.cfg.bssid, &self.cfg.bssid, seq, body);
        self.send_mgmt(now, sta, f, out);
    }

    /// The elements that advertise neighbor reports and BSS transition management in
    /// Beacons and Probe Responses: RM Enabled Capabilities (9.4.2.45) and Extended
    /// Capabilities with b19 (9.4.2.26), as hostapd writes them.
    pub(super) fn wnm_elements(&self) -> Vec<u8> {
        let mut v = Vec::new();
        if self.cfg.rrm_neighbor_report {
            let _ = RmEnabledCapabilities::neighbor_report_only().push(&mut v);
        }
        if self.cfg.bss_transition {
            v.extend_from_slice(&wnm::ext_capab_element(&[wnm::EXT_CAPAB_BSS_TRANSITION]));
        }
        v
    }

    /// `f` (a Beacon or Probe Response) with [`Self::wnm_elements`] before its first Vendor
    /// Specific element (9.3.3.2: vendor elements come last), or at its end.
    pub(super) fn with_wnm_elements(&self, mut f: Vec<u8>) -> Vec<u8> {
        let add = self.wnm_elements();
        if add.is_empty() {
            return f;
        }
        let start = 24 + crate::wire::mgmt::BeaconRepr::FIXED_LEN;
        let Some(ies) = f.get(start..) else { return f };
        let mut at = f.len();
        let mut pos = start;
        for e in element::elements(ies) {
            let Ok(e) = e else { break };
            if e.id == element::id::VENDOR_SPECIFIC {
                at = pos;
                break;
            }
            pos += e.bytes.len();
        }
        f.splice(at..at, add);
        f
    }

    /// The Disassociation Timers of BSS Transition Management Requests that ran out: the
    /// station is disassociated (hostapd `set_disassoc_timer`, reason 2) if it still is
    /// associated here.
    pub(super) fn wnm_timeouts(&mut self, now: u64, out: &mut Output) {
        let due: Vec<MacAddr> = self.wnm.disassoc_at.iter().filter(|(_, t)| now >= **t).map(|(a, _)| *a).collect();
        for a in due {
            self.wnm.disassoc_at.remove(&a);
            if self.peers.get(&a).is_some_and(|p| p.state.is_associated()) {
                self.disassociate(now, &a, ReasonCode::PREV_AUTH_NOT_VALID, out);
            }
        }
    }

    /// When the next Disassociation Timer runs out.
    pub(super) fn wnm_poll(&self) -> Option<u64> {
        self.wnm.disassoc_at.values().min().copied()
    }
}

//! Protected management frames at the AP (12.6.3) and the SA Query procedure (11.13):
//! whether a station's robust management frames are protected, the queries that ask an
//! MFP station whether its association stands, the protected frames it sends.
use crate::node::frames::{self, Mgmt};
use crate::node::mfp::SaQuery;
use crate::node::{rx_error_reason, Output, Phase};
use crate::wire::mac::{MacAddr, Mpdu};
use crate::wire::mgmt::ActionCategory;

use super::AccessPoint;

impl AccessPoint {
    /// MFP negotiated and the PTK in place: robust management frames to and from this
    /// station are protected (12.6.3).
    pub(super) fn peer_mfp(&mut self, sta: &MacAddr) -> bool {
        self.peers.get(sta).is_some_and(|p| p.mfp()) && self.dp.has_pairwise(sta)
    }

    /// Asks an MFP station with an SA Query Request (11.13) whether it is still there
    /// (hostapd `SA_QUERY`); the query runs as the one a reassociation attempt starts: an
    /// answer ends it, none in dot11AssociationSAQueryMaximumTimeout ends the association.
    /// False if `sta` has no MFP association or a query is already running.
    pub fn start_sa_query(&mut self, now: u64, sta: &MacAddr, out: &mut Output) -> bool {
        self.clock = now;
        if !self.peer_mfp(sta) || self.peers.get(sta).is_none_or(|p| p.sa_query().is_some()) {
            return false;
        }
        let (q, id) = SaQuery::start(now, &mut *self.rng);
        if let Some(s) = self.peers.get_mut(sta).and_then(|p| p.sa_query_mut()) {
            *s = Some(q);
        }
        self.send_sa_query(now, sta, true, id, out);
        true
    }

    /// SA Query retransmissions and timeouts (11.13): a query that got no answer in
    /// dot11AssociationSAQueryMaximumTimeout ends the old association, so the station
    /// that asked to associate can.
    pub(super) fn sa_query_timeouts(&mut self, now: u64, out: &mut Output) {
        let due: Vec<MacAddr> = self.peers.iter().filter(|(_, p)| p.sa_query().is_some_and(|q| now >= q.poll())).map(|(a, _)| *a).collect();
        for a in due {
            let Some(q) = self.peers.get_mut(&a).and_then(|p| p.sa_query_mut()).and_then(|q| q.as_mut()) else { continue };
            if q.expired(now) {
                self.counters.drop("sa query timeout");
                self.drop_association(&a, out);
            } else {
                let id = q.next_id(now, &mut *self.rng);
                self.send_sa_query(now, &a, true, id, out);
            }
        }
    }

    pub(super) fn send_sa_query(&mut self, now: u64, sta: &MacAddr, request: bool, id: [u8; 2], out: &mut Output) {
        let seq = self.seq.take();
        let f = frames::sa_query(sta, &self.cfg.bssid, &self.cfg.bssid, seq, request, id);
        if self.peer_mfp(sta) {
            self.send_protected(now, Some(*sta), f, out);
        }
    }

    /// A protected management frame from an MFP station: decrypted under its pairwise
    /// key (replayed or forged ones are counted and dropped), then acted on.
    pub(super) fn protected_mgmt(&mut self, now: u64, sta: &MacAddr, hdr: &Mpdu<'_>, out: &mut Output) {
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
            Ok(Mgmt::Action { category: crate::wire::mgmt::ActionCategory::FAST_BSS_TRANSITION, details }) => {
                self.ft_action_rx(sta, details, out)
            }
            Ok(Mgmt::SaQuery { request: false, id }) => {
                // The station is alive: the association stands (11.13).
                if let Some(s) = self.peers.get_mut(sta).and_then(|p| p.sa_query_mut()) {
                    if s.as_ref().is_some_and(|q| q.answers(id)) {
                        *s = None;
                    }
                }
            }
            Ok(Mgmt::Action { category: c @ (ActionCategory::RADIO_MEASUREMENT | ActionCategory::WNM), details }) => {
                self.wnm_action(now, sta, c, details, out)
            }
            Ok(_) => {}
            Err(_) => self.counters.drop("malformed"),
        }
    }
}

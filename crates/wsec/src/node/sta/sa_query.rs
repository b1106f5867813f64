//! Protected management frames at the station (12.6.3) and the SA Query procedure
//! (11.13): whether its robust management frames are protected, and the queries that
//! ask the AP whether our association stands.
use crate::node::frames;
use crate::node::Output;
use crate::wire::mgmt::ReasonCode;

use super::Station;

impl Station {
    /// MFP negotiated and the PTK in place: robust management frames are protected.
    pub(super) fn mfp_on(&mut self) -> bool {
        let Some(b) = self.bssid() else { return false };
        self.neg().is_some_and(|n| n.group_mgmt.is_some()) && self.dp.has_pairwise(&b)
    }

    pub(super) fn send_sa_query(&mut self, now: u64, request: bool, id: [u8; 2], out: &mut Output) {
        let Some(b) = self.bssid() else { return };
        if self.mfp_on() {
            let seq = self.seq.take();
            let f = frames::sa_query(&b, &self.cfg.addr, &b, seq, request, id);
            self.send_protected(now, f, out);
        }
    }

    /// The SA Query's retransmission or timeout (11.13): no protected answer in
    /// dot11AssociationSAQueryMaximumTimeout means the AP really lost our association, and
    /// the station leaves. Returns whether it left.
    pub(super) fn sa_query_timeout(&mut self, now: u64, out: &mut Output) -> bool {
        let Some(q) = self.state.rsna_mut().and_then(|r| r.sa_query.as_mut()).filter(|q| now >= q.poll()) else { return false };
        if q.expired(now) {
            self.counters.drop("sa query timeout");
            self.leave(now, ReasonCode::PREV_AUTH_NOT_VALID, out);
            return true;
        }
        let id = q.next_id(now, &mut *self.rng);
        self.send_sa_query(now, true, id, out);
        false
    }
}

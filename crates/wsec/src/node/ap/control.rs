//! What the control interface reads and sets at the AP (hostapd's `STA`, `SET`, ...):
//! stations and their state, the GTK's Key ID, the run-time settings.
use super::{AccessPoint, PeerState, StationCounters, StationInfo, Tunables};
use crate::node::SEC;
use crate::wire::mac::MacAddr;

impl AccessPoint {
    /// Stations with data open, with their counters.
    pub fn stations(&self) -> Vec<(MacAddr, StationCounters)> {
        self.peers.iter().filter(|(_, p)| p.state.is_established()).map(|(a, p)| (*a, p.counters)).collect()
    }

    /// Stations in any state (authenticated or beyond).
    pub fn peer_count(&self) -> usize {
        self.peers.len()
    }

    /// Whether `sta` is associated with management frame protection negotiated (`None`
    /// when it is not associated).
    pub fn station_mfp(&self, sta: &MacAddr) -> Option<bool> {
        self.peers.get(sta).and_then(|p| p.state.association()).map(|a| a.mfp)
    }

    /// Whether an SA Query (11.13) to `sta` is running.
    pub fn sa_query_running(&self, sta: &MacAddr) -> bool {
        self.peers.get(sta).is_some_and(|p| p.sa_query().is_some())
    }

    /// Every station the AP has state for (authenticated or beyond), in address order
    /// (hostapd's `STA-FIRST`/`STA-NEXT` walk its station list).
    pub fn peer_addrs(&self) -> Vec<MacAddr> {
        self.peers.keys().copied().collect()
    }

    /// What the AP knows about `sta`, if it has state for it.
    pub fn station_info(&self, sta: &MacAddr) -> Option<StationInfo> {
        self.peers.get(sta).map(|p| StationInfo {
            aid: p.aid,
            authenticated: !matches!(p.state, PeerState::Challenged { .. }),
            associated: p.state.is_associated(),
            authorized: p.state.is_established(),
            mfp: p.mfp(),
            akm: p.negotiated.map(|n| n.akm),
            pairwise: p.negotiated.map(|n| n.pairwise),
            wpa1: p.negotiated.is_some_and(|n| n.wpa1),
            associated_at: p.associated_at,
            last_rx: p.last_rx,
            counters: p.counters,
        })
    }

    /// The current GTK's Key ID (RSN only).
    pub fn group_key_id(&self) -> Option<u8> {
        self.group.as_ref().map(|g| g.gtk_key_id)
    }

    pub fn tunables(&self) -> Tunables {
        Tunables {
            group_rekey_s: self.cfg.group_rekey_s,
            ptk_rekey_s: self.cfg.ptk_rekey_s,
            max_inactivity_s: self.cfg.max_inactivity_s,
            max_stations: self.cfg.max_stations,
        }
    }

    /// Changes the run-time settings; a new GTK rekey period counts from `now` (as
    /// hostapd's `wpa_group_rekey` does after a reload), a new PTK period from each
    /// station's next handshake.
    pub fn set_tunables(&mut self, now: u64, t: Tunables) {
        if t.group_rekey_s != self.cfg.group_rekey_s {
            self.next_group_rekey =
                (self.group.is_some() && t.group_rekey_s > 0).then(|| now.saturating_add(t.group_rekey_s.saturating_mul(SEC)));
        }
        self.cfg.group_rekey_s = t.group_rekey_s;
        self.cfg.ptk_rekey_s = t.ptk_rekey_s;
        self.cfg.max_inactivity_s = t.max_inactivity_s.max(1);
        self.cfg.max_stations = t.max_stations;
    }
}

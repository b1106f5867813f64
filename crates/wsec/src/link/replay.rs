//! Receive replay counters, IEEE 802.11-2020 12.5.3.4.4 (CCMP), 12.5.5.4.4 (GCMP),
//! 12.5.2.6 (TKIP TSC) and 12.5.4.5 (BIP IPN).
//!
//! One counter per TID for QoS data frames (16), one for individually addressed robust
//! management frames, and non-QoS data frames share TID 0's counter (as mac80211 and
//! hostap's wlantest do). A frame is a replay unless its PN is strictly greater than the
//! last one accepted on its counter; a counter moves only after the frame's MIC verified,
//! so a forged frame can never advance it.
use crate::error::{Error, Result};
use crate::wire::mac::Header;
use crate::wire::sechdr::Pn;

/// Number of counters: 16 TIDs + 1 management.
pub const NUM_SLOTS: usize = 17;
/// The counter of robust management frames.
pub const MGMT_SLOT: usize = 16;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReplayCounters {
    last: [Option<Pn>; NUM_SLOTS],
}

impl ReplayCounters {
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts every counter at an announced RSC (e.g. the GTK KDE's RSC): the next frame must
    /// carry a PN above it.
    pub fn with_rsc(rsc: Pn) -> Self {
        ReplayCounters { last: [Some(rsc); NUM_SLOTS] }
    }

    /// The counter a frame uses.
    pub fn slot<T: AsRef<[u8]>>(hdr: &Header<T>) -> usize {
        let f = hdr.frame_control();
        if f.is_mgmt() {
            MGMT_SLOT
        } else {
            hdr.qos_control().map(|q| q.tid() as usize).unwrap_or(0)
        }
    }

    /// The counter of a frame whose header was checked once.
    pub fn slot_of(m: &crate::wire::mac::Mpdu<'_>) -> usize {
        if m.frame_control().is_mgmt() {
            MGMT_SLOT
        } else {
            m.tid() as usize
        }
    }

    /// `Err(Replay)` if `pn` is not above the last accepted PN of `slot`.
    pub fn check(&self, slot: usize, pn: Pn) -> Result<()> {
        match self.last.get(slot) {
            None => Err(Error::Malformed("replay counter index")),
            Some(Some(last)) if pn <= *last => Err(Error::Replay),
            Some(_) => Ok(()),
        }
    }

    /// Records `pn` as accepted; call only after the MIC verified.
    pub fn accept(&mut self, slot: usize, pn: Pn) {
        if let Some(s) = self.last.get_mut(slot) {
            if s.is_none_or(|l| pn > l) {
                *s = Some(pn);
            }
        }
    }

    pub fn last(&self, slot: usize) -> Option<Pn> {
        self.last.get(slot).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_tid_strictly_increasing() {
        let mut r = ReplayCounters::new();
        assert!(r.check(1, 5).is_ok());
        r.accept(1, 5);
        assert_eq!(r.check(1, 5), Err(Error::Replay));
        assert_eq!(r.check(1, 3), Err(Error::Replay));
        assert!(r.check(1, 6).is_ok());
        // Another TID is independent: out of order across TIDs is allowed.
        assert!(r.check(2, 3).is_ok());
        r.accept(2, 3);
        assert!(r.check(MGMT_SLOT, 1).is_ok());
        // accept never moves a counter backwards.
        r.accept(1, 2);
        assert_eq!(r.last(1), Some(5));
        assert!(r.check(17, 1).is_err());
        let g = ReplayCounters::with_rsc(10);
        assert_eq!(g.check(0, 10), Err(Error::Replay));
        assert!(g.check(0, 11).is_ok());
    }
}

//! TKIP countermeasures, IEEE 802.11-2020 12.5.2.4: every Michael MIC failure is reported
//! (a supplicant sends an EAPOL-Key MIC failure report); a second failure within 60 s
//! starts countermeasures (keys discarded, TKIP traffic stopped for 60 s).
//!
//! Only failures of frames whose ICV verified and whose TSC was not a replay count; the
//! caller feeds this tracker only with `Error::MicFailure` from TKIP decapsulation after
//! those checks.

/// The window and the blackout of the countermeasures, in nanoseconds.
pub const COUNTERMEASURES_NS: u64 = 60_000_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MicFailureAction {
    /// First failure in 60 s: report it.
    Report,
    /// Second failure within 60 s: report it and start countermeasures.
    Countermeasures,
}

#[derive(Debug, Clone, Default)]
pub struct MicFailureTracker {
    last_failure: Option<u64>,
    countermeasures_until: Option<u64>,
    pub failures: u64,
}

impl MicFailureTracker {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a Michael MIC failure at `now_ns` (a monotonic clock).
    pub fn record(&mut self, now_ns: u64) -> MicFailureAction {
        self.failures += 1;
        let prev = self.last_failure.replace(now_ns);
        match prev {
            Some(t) if now_ns.saturating_sub(t) < COUNTERMEASURES_NS => {
                self.countermeasures_until = Some(now_ns + COUNTERMEASURES_NS);
                MicFailureAction::Countermeasures
            }
            _ => MicFailureAction::Report,
        }
    }

    /// True while countermeasures are in force.
    pub fn in_countermeasures(&self, now_ns: u64) -> bool {
        self.countermeasures_until.is_some_and(|t| now_ns < t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_failures_within_60s() {
        let s = 1_000_000_000u64;
        let mut t = MicFailureTracker::new();
        assert_eq!(t.record(10 * s), MicFailureAction::Report);
        assert_eq!(t.record(80 * s), MicFailureAction::Report);
        assert!(!t.in_countermeasures(80 * s));
        assert_eq!(t.record(139 * s), MicFailureAction::Countermeasures);
        assert!(t.in_countermeasures(150 * s));
        assert!(!t.in_countermeasures(199 * s + 1));
        assert_eq!(t.failures, 3);
    }
}

//! Transmit sequence numbers: the CCMP/GCMP PN (12.5.3.3.2), TKIP TSC (12.5.2.6), BIP IPN
//! (12.5.4.4) and the WEP IV. A generator hands out each value once, in increasing order,
//! and fails closed when the space is used up: reusing a PN under one key breaks CCM/GCM.
use crate::error::{Error, Result};
use crate::wire::sechdr::{Pn, PN_MAX};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PnGenerator {
    next: Pn,
    max: Pn,
}

impl PnGenerator {
    /// 48-bit counter starting at 1: the PN "is initialized to 1 when the temporal key is
    /// initialized or refreshed" (12.5.3.3.2).
    pub fn new() -> PnGenerator {
        PnGenerator { next: 1, max: PN_MAX }
    }

    /// A counter over `bits` bits (24 for the WEP IV) starting at `start`.
    pub fn with_range(start: Pn, bits: u32) -> PnGenerator {
        PnGenerator { next: start, max: if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 } }
    }

    /// Resumes after `last_used` (e.g. a group key's TSC announced in its GTK KDE).
    pub fn after(last_used: Pn) -> PnGenerator {
        PnGenerator { next: last_used.saturating_add(1), max: PN_MAX }
    }

    /// The next value; `Err(PnExhausted)` forever once the last one has been handed out.
    pub fn next_pn(&mut self) -> Result<Pn> {
        if self.next > self.max {
            return Err(Error::PnExhausted);
        }
        let pn = self.next;
        self.next += 1;
        Ok(pn)
    }

    /// Reserves `n` consecutive values (for the fragments of one MSDU); all or nothing.
    pub fn next_run(&mut self, n: u64) -> Result<Pn> {
        if n == 0 || self.next > self.max || self.max - self.next < n - 1 {
            return Err(Error::PnExhausted);
        }
        let first = self.next;
        self.next += n;
        Ok(first)
    }

    /// The value the next call would return (the RSC a transmitter announces is `peek() - 1`).
    pub fn peek(&self) -> Pn {
        self.next
    }
}

impl Default for PnGenerator {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increases_and_fails_closed() {
        let mut g = PnGenerator::new();
        assert_eq!(g.next_pn().unwrap(), 1);
        assert_eq!(g.next_pn().unwrap(), 2);
        let mut g = PnGenerator::after(PN_MAX - 2);
        assert_eq!(g.next_pn().unwrap(), PN_MAX - 1);
        assert_eq!(g.next_pn().unwrap(), PN_MAX);
        assert_eq!(g.next_pn(), Err(Error::PnExhausted));
        assert_eq!(g.next_pn(), Err(Error::PnExhausted));
        let mut w = PnGenerator::with_range(0xfffffe, 24);
        assert_eq!(w.next_pn().unwrap(), 0xfffffe);
        assert_eq!(w.next_pn().unwrap(), 0xffffff);
        assert_eq!(w.next_pn(), Err(Error::PnExhausted));
        let mut r = PnGenerator::after(PN_MAX - 3);
        assert_eq!(r.next_run(4), Err(Error::PnExhausted));
        assert_eq!(r.next_run(3).unwrap(), PN_MAX - 2);
        assert_eq!(r.next_pn(), Err(Error::PnExhausted));
        let mut s = PnGenerator::after(PN_MAX);
        assert_eq!(s.next_pn(), Err(Error::PnExhausted));
    }
}

//! Replay protection of the key-holder messages (hostapd `wpa_ft_new_seq`,
//! `wpa_ft_rrb_seq_chk`, `wpa_ft_rrb_seq_accept`, `wpa_ft_rrb_rx_seq_resp`).
//!
//! Each side keeps, per remote key holder, a transmit counter in a random odd domain and a
//! receive window. A message from a peer whose state is unknown (first contact, another
//! domain after a restart, a clock too far off, a counter far ahead) is not dropped but
//! *deferred*: kept for [`SEQ_TIMEOUT_S`] while a SEQ_REQ with a fresh nonce asks the peer
//! for its state; the SEQ_RESP that echoes the nonce sets the window, and the kept
//! messages are tried again without further deferral.
use super::wire::Seq;
use rand_core::CryptoRngCore;

/// hostapd `ftRRBseqTimeout`: how long a deferred message and its SEQ_REQ live, and the
/// clock skew (either way) a message's timestamp may show.
pub const SEQ_TIMEOUT_S: u32 = 10;
/// hostapd `ftRRBmaxQueueLen`: deferred messages kept per peer.
pub const MAX_DEFERRED: usize = 100;
/// hostapd `FT_REMOTE_SEQ_BACKLOG`: counters remembered per peer.
pub const BACKLOG: usize = 16;

/// Transmit side: the domain is drawn at first use, odd so it is never 0 (hostapd's
/// "not yet drawn").
#[derive(Debug, Clone, Default)]
pub struct SeqTx {
    dom: u32,
    next: u32,
}

impl SeqTx {
    pub fn next(&mut self, now_s: u32, rng: &mut dyn CryptoRngCore) -> Seq {
        if self.dom == 0 {
            self.next = rng.next_u32();
            self.dom = rng.next_u32() | 1;
        }
        let s = Seq { dom: self.dom, seq: self.next, ts: now_s };
        self.next = self.next.wrapping_add(1);
        s
    }
}

/// What the receive window says of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqCheck {
    Ok,
    /// Unknown state: ask the peer (SEQ_REQ) and try again.
    Defer(&'static str),
    Drop(&'static str),
}

/// Receive side. Counters are compared as offsets from `base` modulo 2^32: at or below
/// it (up to 2^30 back) is old, up to 2^30 above it is in the window, further ahead is
/// unknown (deferred). Of the window, the last [`BACKLOG`] counters taken are kept;
/// taking one more moves `base` to the oldest of them.
#[derive(Debug, Clone, Default)]
pub struct SeqRx {
    valid: bool,
    dom: u32,
    base: u32,
    seen: Vec<u32>,
    /// Local clock minus the peer's, seconds, modulo 2^32.
    offset: u32,
}

impl SeqRx {
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    pub fn check(&self, s: &Seq, now_s: u32) -> SeqCheck {
        if !self.valid {
            return SeqCheck::Defer("no sequence state for the peer yet");
        }
        if s.dom != self.dom {
            return SeqCheck::Defer("sequence domain changed (peer restarted?)");
        }
        let remote_now = now_s.wrapping_sub(self.offset);
        if s.ts.wrapping_sub(remote_now.wrapping_sub(SEQ_TIMEOUT_S)) > 2 * SEQ_TIMEOUT_S {
            return SeqCheck::Defer("timestamp off by more than 10 s");
        }
        let off = s.seq.wrapping_sub(self.base);
        if off == 0 || off > 0xC000_0000 {
            return SeqCheck::Drop("old sequence number");
        }
        if off <= 0x4000_0000 {
            if self.seen.contains(&s.seq) {
                return SeqCheck::Drop("replayed sequence number");
            }
            return SeqCheck::Ok;
        }
        SeqCheck::Defer("sequence number far ahead")
    }

    /// Records a counter [`SeqRx::check`] passed.
    pub fn accept(&mut self, s: &Seq) {
        self.seen.push(s.seq);
        if self.seen.len() > BACKLOG {
            let base = self.base;
            let (i, _) = self.seen.iter().enumerate().min_by_key(|(_, v)| v.wrapping_sub(base)).unwrap_or((0, &0));
            self.base = self.seen.swap_remove(i);
        }
    }

    /// Takes the peer's state from a verified SEQ_RESP that did not fit the window:
    /// its domain, its clock, and a window that still admits the `deferred` messages sent
    /// before it (hostapd: base = seq - backlog - queue length).
    pub fn reset(&mut self, s: &Seq, now_s: u32, deferred: usize) {
        self.valid = true;
        self.dom = s.dom;
        self.base = s.seq.wrapping_sub(BACKLOG as u32).wrapping_sub(deferred as u32);
        self.seen.clear();
        self.seen.push(s.seq);
        self.offset = now_s.wrapping_sub(s.ts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seq: u32) -> Seq {
        Seq { dom: 7, seq, ts: 1000 }
    }

    #[test]
    fn window() {
        let mut rx = SeqRx::default();
        assert!(matches!(rx.check(&at(100), 5000), SeqCheck::Defer(_)));
        rx.reset(&at(100), 5000, 0);
        assert_eq!(rx.check(&at(100), 5000), SeqCheck::Drop("replayed sequence number"));
        assert_eq!(rx.check(&at(101), 5000), SeqCheck::Ok);
        assert_eq!(rx.check(&at(90), 5000), SeqCheck::Ok, "sent before the SEQ_RESP, within the backlog");
        assert_eq!(rx.check(&at(84), 5000), SeqCheck::Drop("old sequence number"));
        assert!(matches!(rx.check(&Seq { dom: 9, ..at(101) }, 5000), SeqCheck::Defer(_)));
        assert!(matches!(rx.check(&at(101), 5011), SeqCheck::Defer(_)), "clock 11 s on");
        assert_eq!(rx.check(&at(101), 5010), SeqCheck::Ok);
        assert!(matches!(rx.check(&at(100 + 0x4000_0001), 5000), SeqCheck::Defer(_)));
        for s in 101..140 {
            assert_eq!(rx.check(&at(s), 5000), SeqCheck::Ok, "{s}");
            rx.accept(&at(s));
            assert_eq!(rx.check(&at(s), 5000), SeqCheck::Drop("replayed sequence number"));
        }
        // The window moved: what fell out of the backlog is old now.
        assert_eq!(rx.check(&at(110), 5000), SeqCheck::Drop("old sequence number"));
        assert_eq!(rx.check(&at(140), 5000), SeqCheck::Ok);
        // Across the 2^32 wrap.
        rx.reset(&at(u32::MAX - 1), 5000, 0);
        for s in [u32::MAX, 0, 1, 2] {
            assert_eq!(rx.check(&at(s), 5000), SeqCheck::Ok);
            rx.accept(&at(s));
        }
    }
}

//! TCP bulk and file transfer: a NewReno sender (RFC 5681 slow start and congestion
//! avoidance, RFC 6582 fast retransmit / fast recovery with partial ACKs, RFC 6298 RTO with
//! Karn's rule and exponential backoff) and a receiver with delayed ACKs (RFC 1122 4.2.3.2
//! and RFC 5681 4.2: an ACK for every second full segment or after the delayed-ACK timer;
//! at once for out-of-order data and for segments that fill a hole).
//!
//! Sans-IO: the engine feeds events in and sends the segments and ACKs that come out.
//! Sequence numbers are byte offsets from 0; SYN/FIN are not modelled (a transfer starts
//! established and ends when the last byte is acknowledged).
use super::phy::{Ns, MS, SEC};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// TCP parameters (defaults: a Linux-like stack without window scaling, as in the seeds'
/// 2006-2015 test beds).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TcpParams {
    /// Maximum segment size in bytes (1460 for a 1500-byte MTU).
    pub mss: u32,
    /// Receiver window in bytes (65 535 without window scaling).
    pub rwnd: u64,
    /// Initial congestion window in segments (RFC 6928: 10).
    pub init_cwnd: u32,
    /// Lower bound of the RTO in ms (Linux 200; RFC 6298 says 1000).
    pub min_rto_ms: f64,
    /// Initial RTO in ms (RFC 6298: 1000).
    pub init_rto_ms: f64,
    /// Delayed-ACK timer in ms (Linux 40; RFC 1122 allows up to 500).
    pub delack_ms: f64,
    /// ACK every this many full segments (RFC 1122: 2).
    pub ack_every: u32,
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpParams { mss: 1460, rwnd: 65_535, init_cwnd: 10, min_rto_ms: 200.0, init_rto_ms: 1000.0, delack_ms: 40.0, ack_every: 2 }
    }
}

/// A segment to send: `[seq, seq + len)`, and whether it is a retransmission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seg {
    pub seq: u64,
    pub len: u32,
    pub retx: bool,
}

#[derive(Debug, Clone)]
pub struct TcpSender {
    p: TcpParams,
    /// Bytes the application has handed over (None: unlimited).
    pub total: Option<u64>,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Highest sequence sent so far (snd_nxt goes back after an RTO).
    snd_max: u64,
    pub cwnd: f64,
    pub ssthresh: f64,
    dupacks: u32,
    in_recovery: bool,
    recover: u64,
    srtt: Option<f64>,
    rttvar: f64,
    pub rto: f64,
    /// Karn: (seq, send time) of the one timed segment.
    timed: Option<(u64, Ns)>,
    /// RTO deadline; the engine arms a timer and calls [`TcpSender::on_rto`] when it fires
    /// with the same `timer_gen`.
    pub rto_deadline: Option<Ns>,
    pub timer_gen: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// When the last byte was acknowledged.
    pub done_at: Option<Ns>,
}

impl TcpSender {
    pub fn new(p: TcpParams, total: Option<u64>) -> TcpSender {
        let mss = p.mss as f64;
        TcpSender {
            cwnd: p.init_cwnd as f64 * mss,
            ssthresh: f64::INFINITY,
            rto: p.init_rto_ms * 1e6,
            p,
            total,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            srtt: None,
            rttvar: 0.0,
            timed: None,
            rto_deadline: None,
            timer_gen: 0,
            retransmits: 0,
            timeouts: 0,
            fast_retransmits: 0,
            done_at: None,
        }
    }

    fn limit(&self) -> u64 {
        self.total.unwrap_or(u64::MAX)
    }

    fn flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    fn arm(&mut self, now: Ns) {
        self.rto_deadline = Some(now + self.rto as Ns);
        self.timer_gen += 1;
    }

    fn disarm(&mut self) {
        self.rto_deadline = None;
        self.timer_gen += 1;
    }

    /// New data allowed by min(cwnd, rwnd).
    pub fn send_more(&mut self, now: Ns, out: &mut Vec<Seg>) {
        let wnd = (self.cwnd as u64).min(self.p.rwnd);
        while self.snd_nxt < self.limit() {
            let len = (self.p.mss as u64).min(self.limit() - self.snd_nxt);
            if self.flight() + len > wnd {
                break;
            }
            let retx = self.snd_nxt < self.snd_max;
            if retx {
                self.retransmits += 1;
            } else if self.timed.is_none() {
                self.timed = Some((self.snd_nxt, now));
            }
            out.push(Seg { seq: self.snd_nxt, len: len as u32, retx });
            self.snd_nxt += len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            if self.rto_deadline.is_none() {
                self.arm(now);
            }
        }
    }

    fn seg_at(&mut self, seq: u64) -> Seg {
        let len = (self.p.mss as u64).min(self.snd_max - seq) as u32;
        self.retransmits += 1;
        if matches!(self.timed, Some((s, _)) if s >= seq) {
            self.timed = None;
        }
        Seg { seq, len, retx: true }
    }

    /// A cumulative ACK arrived.
    pub fn on_ack(&mut self, now: Ns, ack: u64, out: &mut Vec<Seg>) {
        let mss = self.p.mss as f64;
        if ack > self.snd_una {
            let acked = (ack - self.snd_una) as f64;
            let mut sampled = false;
            if let Some((s, t)) = self.timed {
                if ack > s {
                    self.rtt_sample((now - t) as f64);
                    self.timed = None;
                    sampled = true;
                }
            }
            if !sampled {
                // New data acknowledged: drop the exponential backoff (as Linux does),
                // back to the RTO of the current estimates.
                self.rto = self.rto_of_estimates().unwrap_or(self.rto);
            }
            self.snd_una = ack;
            if self.snd_nxt < ack {
                self.snd_nxt = ack;
            }
            if self.in_recovery {
                if ack > self.recover {
                    // Full acknowledgment (RFC 6582 3.2 step 3): deflate the window.
                    self.in_recovery = false;
                    self.cwnd = self.ssthresh.min(self.flight() as f64 + mss).max(mss);
                    self.dupacks = 0;
                } else {
                    // Partial acknowledgment: retransmit the next hole, deflate by the
                    // amount acknowledged, add back one MSS, and restart the timer.
                    let s = self.seg_at(self.snd_una);
                    out.push(s);
                    self.cwnd = (self.cwnd - acked + mss).max(mss);
                    self.arm(now);
                }
            } else {
                self.dupacks = 0;
                if self.cwnd < self.ssthresh {
                    self.cwnd += acked.min(2.0 * mss); // slow start, ABC with L = 2 (RFC 3465)
                } else {
                    self.cwnd += mss * acked / self.cwnd; // congestion avoidance
                }
            }
            if self.snd_una >= self.limit() {
                self.done_at.get_or_insert(now);
                self.disarm();
                return;
            }
            if self.flight() == 0 {
                self.disarm();
            } else if !self.in_recovery {
                self.arm(now);
            }
        } else if ack == self.snd_una && self.flight() > 0 {
            self.dupacks += 1;
            if self.in_recovery {
                self.cwnd += mss; // window inflation
            } else if self.dupacks == 3 && (ack > self.recover || self.recover == 0) {
                // Fast retransmit (RFC 6582 3.2 step 2).
                self.ssthresh = (self.flight() as f64 / 2.0).max(2.0 * mss);
                self.recover = self.snd_max;
                self.in_recovery = true;
                self.fast_retransmits += 1;
                let s = self.seg_at(self.snd_una);
                out.push(s);
                self.cwnd = self.ssthresh + 3.0 * mss;
            }
        }
        self.send_more(now, out);
    }

    fn rtt_sample(&mut self, r: f64) {
        // RFC 6298 2.2-2.3.
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        self.rto = self.rto_of_estimates().unwrap();
    }

    fn rto_of_estimates(&self) -> Option<f64> {
        let g = 1e6; // clock granularity 1 ms
        self.srtt.map(|s| (s + (4.0 * self.rttvar).max(g)).max(self.p.min_rto_ms * 1e6).min(60.0 * SEC as f64))
    }

    /// The retransmission timer fired (RFC 6298 5.4-5.7, RFC 5681 eq. 4).
    pub fn on_rto(&mut self, now: Ns, out: &mut Vec<Seg>) {
        if self.snd_una >= self.limit() || self.flight() == 0 && self.snd_nxt >= self.snd_max {
            self.disarm();
            return;
        }
        let mss = self.p.mss as f64;
        self.timeouts += 1;
        self.ssthresh = ((self.snd_max - self.snd_una) as f64 / 2.0).max(2.0 * mss);
        self.cwnd = mss;
        self.recover = self.snd_max;
        self.in_recovery = false;
        self.dupacks = 0;
        self.timed = None;
        self.rto = (self.rto * 2.0).min(60.0 * SEC as f64);
        self.snd_nxt = self.snd_una; // go back N
        self.rto_deadline = None;
        self.send_more(now, out);
        if self.rto_deadline.is_none() {
            self.arm(now);
        }
    }
}

/// What the receiver wants done after a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RxOut {
    /// Send an ACK with this cumulative value now.
    pub ack_now: Option<u64>,
    /// Arm the delayed-ACK timer for this deadline (generation `delack_gen`).
    pub arm_delack: Option<Ns>,
    /// Bytes newly delivered in order to the application.
    pub delivered: u64,
}

#[derive(Debug, Clone, Default)]
pub struct TcpReceiver {
    pub rcv_nxt: u64,
    ooo: BTreeMap<u64, u64>,
    unacked_segs: u32,
    delack_armed: bool,
    pub delack_gen: u64,
    ack_every: u32,
    delack: Ns,
    pub acks_sent: u64,
}

impl TcpReceiver {
    pub fn new(p: &TcpParams) -> TcpReceiver {
        TcpReceiver { ack_every: p.ack_every.max(1), delack: (p.delack_ms * MS as f64) as Ns, ..Default::default() }
    }

    fn ack(&mut self) -> Option<u64> {
        self.unacked_segs = 0;
        if self.delack_armed {
            self.delack_armed = false;
            self.delack_gen += 1;
        }
        self.acks_sent += 1;
        Some(self.rcv_nxt)
    }

    pub fn on_segment(&mut self, now: Ns, seq: u64, len: u32) -> RxOut {
        let end = seq + len as u64;
        let mut o = RxOut::default();
        if end <= self.rcv_nxt {
            o.ack_now = self.ack(); // duplicate: ACK at once
            return o;
        }
        if seq > self.rcv_nxt {
            let e = self.ooo.entry(seq).or_insert(end);
            *e = (*e).max(end);
            o.ack_now = self.ack(); // out of order: duplicate ACK at once
            return o;
        }
        let before = self.rcv_nxt;
        let had_hole = !self.ooo.is_empty();
        self.rcv_nxt = end;
        while let Some((&s, &e)) = self.ooo.iter().next() {
            if s > self.rcv_nxt {
                break;
            }
            self.ooo.remove(&s);
            self.rcv_nxt = self.rcv_nxt.max(e);
        }
        o.delivered = self.rcv_nxt - before;
        self.unacked_segs += 1;
        if had_hole || self.unacked_segs >= self.ack_every {
            o.ack_now = self.ack();
        } else if !self.delack_armed {
            self.delack_armed = true;
            self.delack_gen += 1;
            o.arm_delack = Some(now + self.delack);
        }
        o
    }

    /// The delayed-ACK timer of generation `gen` fired.
    pub fn on_delack(&mut self, gen: u64) -> Option<u64> {
        if self.delack_armed && gen == self.delack_gen {
            self.delack_armed = false;
            self.ack()
        } else {
            None
        }
    }
}

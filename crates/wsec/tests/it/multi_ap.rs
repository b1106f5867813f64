//! Several AP cores and one station core in memory (shared by `node_ft` and `node_wnm`):
//! simulated time in 1 ms steps, one medium every node hears, the distribution system
//! carrying the APs' RRB frames (Ethernet types 88-B7 and 89-0D) to the other APs' wired
//! side, hooks that rewrite or drop frames in flight, and what each node handed its host.
use wsec::node::ap::AccessPoint;
use wsec::node::frames;
use wsec::node::sta::Station;
use wsec::node::{NodeEvent, Output, Phase};
use wsec::wire::mac::MacAddr;
use wsec::wire::EtherType;

pub const MS: u64 = 1_000_000;
/// Who the station is in [`Net::events`] (APs are 0..).
pub const STA_ID: usize = usize::MAX;
/// The wired host behind the APs.
pub const WIRED: MacAddr = MacAddr([0x02, 0, 0, 0, 0xee, 0x01]);

/// Rewrites a frame in flight; false drops it.
pub type Tamper = Box<dyn FnMut(&mut Vec<u8>) -> bool>;

pub struct Net {
    pub now: u64,
    pub aps: Vec<AccessPoint>,
    pub sta: Station,
    /// Frames on the air not yet delivered, with their sender.
    pub air: Vec<(usize, Vec<u8>)>,
    pub ap_host: Vec<Vec<Vec<u8>>>,
    pub sta_host: Vec<Vec<u8>>,
    /// (who, event): an AP's index, or [`STA_ID`].
    pub events: Vec<(usize, NodeEvent)>,
    /// Rewrites or drops the station's frames before they go on the air.
    pub tamper: Option<Tamper>,
    /// The same for the APs' frames.
    pub tamper_ap: Option<Tamper>,
    /// RRB frames on the distribution system, with the AP that sent them.
    pub ds: Vec<(usize, Vec<u8>)>,
    /// RRB frames delivered, by Ethernet type.
    pub ds_seen: Vec<u16>,
}

impl Net {
    pub fn with_cores(aps: Vec<AccessPoint>, sta: Station) -> Net {
        let n = aps.len();
        Net {
            now: 0,
            aps,
            sta,
            air: Vec::new(),
            ap_host: vec![Vec::new(); n],
            sta_host: Vec::new(),
            events: Vec::new(),
            tamper: None,
            tamper_ap: None,
            ds: Vec::new(),
            ds_seen: Vec::new(),
        }
    }

    pub fn collect(&mut self, who: usize, out: &mut Output) {
        for f in out.air.drain(..) {
            self.air.push((who, f));
        }
        if who != STA_ID {
            let (rrb, rest): (Vec<Vec<u8>>, Vec<Vec<u8>>) = std::mem::take(&mut out.host)
                .into_iter()
                .partition(|f| f.len() > 14 && matches!(u16::from_be_bytes([f[12], f[13]]), 0x88b7 | 0x890d));
            out.host = rest;
            for f in rrb {
                self.ds.push((who, f));
            }
        }
        for e in out.events.drain(..) {
            self.events.push((who, e));
        }
        let host = std::mem::take(&mut out.host);
        if who == STA_ID {
            self.sta_host.extend(host);
        } else {
            self.ap_host[who].extend(host);
        }
    }

    pub fn step(&mut self) {
        self.now += MS;
        let now = self.now;
        let mut out = Output::default();
        for i in 0..self.aps.len() {
            if self.aps[i].poll_timeout() <= now {
                self.aps[i].handle_timeout(now, &mut out);
                self.collect(i, &mut out);
            }
        }
        if self.sta.poll_timeout() <= now {
            self.sta.handle_timeout(now, &mut out);
            self.collect(STA_ID, &mut out);
        }
        for (from, f) in std::mem::take(&mut self.ds) {
            self.ds_seen.push(u16::from_be_bytes([f[12], f[13]]));
            for i in 0..self.aps.len() {
                if i != from {
                    self.aps[i].handle_host(now, &f, &mut out);
                    self.collect(i, &mut out);
                }
            }
        }
        for (from, mut f) in std::mem::take(&mut self.air) {
            let hook = if from == STA_ID { self.tamper.as_mut() } else { self.tamper_ap.as_mut() };
            if let Some(t) = hook {
                if !t(&mut f) {
                    continue;
                }
            }
            for i in 0..self.aps.len() {
                if from != i {
                    self.aps[i].handle_air(now, &f, &mut out);
                    self.collect(i, &mut out);
                }
            }
            if from != STA_ID {
                self.sta.handle_air(now, &f, &mut out);
                self.collect(STA_ID, &mut out);
            }
        }
    }

    pub fn run_until(&mut self, max_ms: u64, mut cond: impl FnMut(&Net) -> bool) -> bool {
        for _ in 0..max_ms {
            if cond(self) {
                return true;
            }
            self.step();
        }
        cond(self)
    }

    /// What `who` reported.
    pub fn phases(&self, who: usize) -> Vec<Phase> {
        self.events.iter().filter(|(w, _)| *w == who).map(|(_, NodeEvent::Phase { phase, .. })| phase.clone()).collect()
    }

    pub fn count(&self, who: usize, f: impl Fn(&Phase) -> bool) -> usize {
        self.events.iter().filter(|(w, NodeEvent::Phase { phase, .. })| *w == who && f(phase)).count()
    }

    /// Data both ways through AP `i`: the station's frame reaches AP `i`'s host and no other
    /// AP's, AP `i`'s reaches the station.
    pub fn traffic(&mut self, i: usize, tag: &[u8]) {
        let sta = self.sta.addr();
        let up = [b"up ".as_slice(), tag].concat();
        let down = [b"down ".as_slice(), tag].concat();
        let mut out = Output::default();
        let eth = frames::ethernet(&WIRED, &sta, EtherType(0x88b5), &up);
        self.sta.handle_host(self.now, &eth, &mut out);
        self.collect(STA_ID, &mut out);
        let eth = frames::ethernet(&sta, &WIRED, EtherType(0x88b5), &down);
        self.aps[i].handle_host(self.now, &eth, &mut out);
        self.collect(i, &mut out);
        for _ in 0..5 {
            self.step();
        }
        assert!(self.ap_host[i].iter().any(|f| f.ends_with(&up)), "uplink through AP {i} ({tag:?}): {:?}", self.phases(STA_ID));
        assert!(self.sta_host.iter().any(|f| f.ends_with(&down)), "downlink through AP {i} ({tag:?})");
        for h in self.ap_host.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, h)| h) {
            assert!(!h.iter().any(|f| f.ends_with(&up)), "uplink reached the AP the station left");
        }
    }
}

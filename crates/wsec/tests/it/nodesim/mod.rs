//! The AP and station cores against each other in memory, no sockets (shared by
//! `node_core` and `node_mfp`): simulated time in 1 ms steps, a broadcast medium that
//! loses each copy with a seeded probability, and what each node handed its host. Frames
//! reach the cores one by one or, with [`Feed::Batched`], through the batch entry points
//! the live programs use.
#![allow(dead_code)]
pub mod attacker;
use rand::{Rng, SeedableRng};
use wsec::node::ap::{AccessPoint, ApConfig};
use wsec::node::engine::Parallel;
use wsec::node::frames;
use wsec::node::sta::{StaConfig, Station};
use wsec::node::{NodeEvent, Output, Phase};
use wsec::wire::mac::MacAddr;
use wsec::wire::EtherType;

pub const MS: u64 = 1_000_000;

/// The engine's crypto threads for the tests: each part of a job on a scoped thread of its
/// own (the live system's pool is in wsec-live; the engine sees only `Parallel`).
pub struct ScopedThreads(pub usize);

impl Parallel for ScopedThreads {
    fn threads(&self) -> usize {
        self.0
    }
    fn run(&self, parts: usize, f: &(dyn Fn(usize) + Sync)) {
        std::thread::scope(|s| {
            for i in 1..parts {
                s.spawn(move || f(i));
            }
            if parts > 0 {
                f(0);
            }
        });
    }
}

thread_local! {
    /// Seeds of the cores this test thread built: runs are reproducible.
    static NEXT_SEED: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
}

fn next_rng() -> wsec::rng::BoxRng {
    NEXT_SEED.with(|s| {
        let n = s.get();
        s.set(n + 1);
        wsec::rng::seeded(n)
    })
}

/// An AP core with a seeded RNG and, when `engine_threads` > 1, that many crypto threads.
pub fn try_ap_core(cfg: ApConfig, now: u64) -> wsec::Result<AccessPoint> {
    let n = cfg.engine_threads;
    let mut ap = AccessPoint::new(cfg, now, next_rng())?;
    if n > 1 {
        ap.set_crypto_threads(Some(Box::new(ScopedThreads(n))));
    }
    Ok(ap)
}

pub fn ap_core(cfg: ApConfig, now: u64) -> AccessPoint {
    try_ap_core(cfg, now).unwrap()
}

/// A station core, as [`ap_core`].
pub fn sta_core(cfg: StaConfig, now: u64) -> Station {
    let n = cfg.engine_threads;
    let mut sta = Station::new(cfg, now, next_rng()).unwrap();
    if n > 1 {
        sta.set_crypto_threads(Some(Box::new(ScopedThreads(n))));
    }
    sta
}
/// The wired host behind the AP (source of [`Sim::ap_send`]).
pub const WIRED: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x99]);

/// How the cores get their frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// `handle_air` / `handle_host`, one frame per call.
    PerFrame,
    /// `handle_air_batch` / `handle_host_batch`: each node takes a delivery round's frames
    /// in one call, so what it relays is protected as one batch.
    Batched,
}

/// See [`Sim::block`].
pub type Blocker = Box<dyn FnMut(usize, usize, &[u8]) -> bool>;

/// AP, stations, a lossy broadcast medium, and what each node handed to its host.
pub struct Sim {
    pub now: u64,
    pub ap: Option<AccessPoint>,
    pub stas: Vec<Option<Station>>,
    pub rng: rand::rngs::StdRng,
    pub loss: f64,
    /// Every frame put on the air, in order (for replays and the capture checks).
    pub air: Vec<Vec<u8>>,
    pub ap_host: Vec<Vec<u8>>,
    /// The Layer 2 Update frames the AP gave its host (kept apart from the data).
    pub ap_l2_updates: Vec<Vec<u8>>,
    pub sta_host: Vec<Vec<Vec<u8>>>,
    pub events: Vec<(usize, NodeEvent)>,
    /// Frames injected by the test, delivered on the next step.
    pub inject: Vec<Vec<u8>>,
    pub feed: Feed,
    /// A man in the middle on the medium (the KRACK and FragAttacks suites): called with
    /// (from, to, frame) for every copy, injected frames included (from `usize::MAX`);
    /// true drops that copy.
    pub block: Option<Blocker>,
}

impl Sim {
    pub fn new(ap: ApConfig, stas: Vec<StaConfig>, loss: f64, seed: u64, feed: Feed) -> Sim {
        let n = stas.len();
        Sim {
            now: 1_000 * MS,
            ap: Some(ap_core(ap, 1_000 * MS)),
            stas: stas.into_iter().map(|c| Some(sta_core(c, 1_000 * MS))).collect(),
            rng: rand::rngs::StdRng::seed_from_u64(seed),
            loss,
            air: Vec::new(),
            ap_host: Vec::new(),
            ap_l2_updates: Vec::new(),
            sta_host: vec![Vec::new(); n],
            events: Vec::new(),
            inject: Vec::new(),
            feed,
            block: None,
        }
    }

    /// Node 0 is the AP, node i + 1 station i.
    pub fn take(&mut self, who: usize, out: &mut Output) -> Vec<Vec<u8>> {
        for e in out.events.drain(..) {
            self.events.push((who, e));
        }
        if who == 0 {
            for f in out.host.drain(..) {
                if f.get(12..) == Some(&[0x00, 0x06, 0x00, 0x01, 0xaf, 0x81, 0x01, 0x00][..]) {
                    self.ap_l2_updates.push(f);
                } else {
                    self.ap_host.push(f);
                }
            }
        } else {
            self.sta_host[who - 1].append(&mut out.host);
        }
        out.air.drain(..).collect()
    }

    pub fn step(&mut self) {
        let now = self.now;
        let mut pending: Vec<(usize, Vec<u8>)> = Vec::new();
        for f in self.inject.drain(..) {
            pending.push((usize::MAX, f));
        }
        let mut out = Output::default();
        if let Some(ap) = &mut self.ap {
            if ap.poll_timeout() <= now {
                ap.handle_timeout(now, &mut out);
            }
        }
        for f in self.take(0, &mut out) {
            pending.push((0, f));
        }
        for i in 0..self.stas.len() {
            if let Some(s) = &mut self.stas[i] {
                if s.poll_timeout() <= now {
                    s.handle_timeout(now, &mut out);
                }
            }
            for f in self.take(i + 1, &mut out) {
                pending.push((i + 1, f));
            }
        }
        // Deliver until quiet: every frame to every other node, each copy lost with
        // probability `loss`.
        while !pending.is_empty() {
            let batch = std::mem::take(&mut pending);
            if self.feed == Feed::Batched {
                // Batch mode: each node takes the round's frames in one call (the live
                // loops' handle_air_batch), so what it relays is protected as one batch.
                for (from, f) in &batch {
                    if *from != usize::MAX {
                        self.air.push(f.clone());
                    }
                }
                for to in 0..=self.stas.len() {
                    let mut mine: Vec<&[u8]> = Vec::new();
                    for (from, f) in &batch {
                        if *from == to || self.rng.gen::<f64>() < self.loss || self.blocked(*from, to, f) {
                            continue;
                        }
                        mine.push(f);
                    }
                    if to == 0 {
                        if let Some(ap) = &mut self.ap {
                            ap.handle_air_batch(now, mine, &mut out);
                        }
                    } else if let Some(s) = &mut self.stas[to - 1] {
                        s.handle_air_batch(now, mine, &mut out);
                    }
                    for g in self.take(to, &mut out) {
                        pending.push((to, g));
                    }
                }
                continue;
            }
            for (from, f) in batch {
                if from != usize::MAX {
                    self.air.push(f.clone());
                }
                for to in 0..=self.stas.len() {
                    if to == from || self.rng.gen::<f64>() < self.loss || self.blocked(from, to, &f) {
                        continue;
                    }
                    if to == 0 {
                        if let Some(ap) = &mut self.ap {
                            ap.handle_air(now, &f, &mut out);
                        }
                    } else if let Some(s) = &mut self.stas[to - 1] {
                        s.handle_air(now, &f, &mut out);
                    }
                    for g in self.take(to, &mut out) {
                        pending.push((to, g));
                    }
                }
            }
        }
        self.now += MS;
    }

    fn blocked(&mut self, from: usize, to: usize, f: &[u8]) -> bool {
        self.block.as_mut().is_some_and(|b| b(from, to, f))
    }

    pub fn run(&mut self, ms: u64) {
        for _ in 0..ms {
            self.step();
        }
    }

    pub fn run_until(&mut self, max_ms: u64, mut cond: impl FnMut(&Sim) -> bool) -> bool {
        for _ in 0..max_ms {
            if cond(self) {
                return true;
            }
            self.step();
        }
        cond(self)
    }

    pub fn all_established(&self) -> bool {
        self.stas.iter().all(|s| s.as_ref().is_some_and(|s| s.is_established()))
            && self.ap.as_ref().is_some_and(|a| a.stations().len() == self.stas.len())
    }

    pub fn sta(&self, i: usize) -> &Station {
        self.stas[i].as_ref().unwrap()
    }

    pub fn ap(&self) -> &AccessPoint {
        self.ap.as_ref().unwrap()
    }

    /// Runs `f` on the AP core now; its frames are on the air (recorded now, delivered at
    /// the next step).
    pub fn with_ap(&mut self, f: impl FnOnce(&mut AccessPoint, u64, &mut Output)) -> Vec<Vec<u8>> {
        let mut out = Output::default();
        f(self.ap.as_mut().unwrap(), self.now, &mut out);
        let fs = self.take(0, &mut out);
        self.inject_sent(&fs);
        fs
    }

    pub fn with_sta(&mut self, i: usize, f: impl FnOnce(&mut Station, u64, &mut Output)) -> Vec<Vec<u8>> {
        let mut out = Output::default();
        f(self.stas[i].as_mut().unwrap(), self.now, &mut out);
        let fs = self.take(i + 1, &mut out);
        self.inject_sent(&fs);
        fs
    }

    fn inject_sent(&mut self, fs: &[Vec<u8>]) {
        self.air.extend(fs.iter().cloned());
        self.inject.extend(fs.iter().cloned());
    }

    /// An Ethernet frame from a station's host (TAP) into its core.
    pub fn sta_send(&mut self, i: usize, da: MacAddr, payload: &[u8]) {
        let eth = frames::ethernet(&da, &self.sta(i).addr(), EtherType::IPV4, payload);
        let batched = self.feed == Feed::Batched;
        self.with_sta(
            i,
            |s, now, out| if batched { s.handle_host_batch(now, [eth.as_slice()], out) } else { s.handle_host(now, &eth, out) },
        );
    }

    /// An Ethernet frame from the wired host into the AP.
    pub fn ap_send(&mut self, da: MacAddr, payload: &[u8]) {
        let eth = frames::ethernet(&da, &WIRED, EtherType::IPV4, payload);
        let batched = self.feed == Feed::Batched;
        self.with_ap(|a, now, out| if batched { a.handle_host_batch(now, [eth.as_slice()], out) } else { a.handle_host(now, &eth, out) });
    }

    pub fn phases(&self, who: usize) -> Vec<Phase> {
        self.events.iter().filter(|(w, _)| *w == who).map(|(_, NodeEvent::Phase { phase, .. })| phase.clone()).collect()
    }
}

/// The status of the first Association Response among `air`'s frames (9.3.3.7).
pub fn assoc_resp_status(air: &[Vec<u8>]) -> Option<wsec::wire::mgmt::StatusCode> {
    air.iter().find_map(|f| match frames::parse_mgmt(f) {
        Ok(frames::Mgmt::AssocResp { status, .. }) => Some(status),
        _ => None,
    })
}

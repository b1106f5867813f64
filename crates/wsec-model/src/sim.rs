//! The discrete-event simulation: one collision domain (every node hears every other), the
//! DCF of IEEE 802.11-2020 clause 10.3 on it, crypto stages and an Ethernet link around it,
//! and the traffic sources and sinks.
//!
//! # DCF as modelled (10.3.2, 10.3.3, 10.3.4)
//! - A frame that reaches an idle MAC when the medium has been idle for DIFS goes at once;
//!   otherwise the node draws a backoff uniformly from `0..=CW`.
//! - The backoff counts down by one per idle slot after DIFS (EIFS after a frame received
//!   in error) and is frozen while the medium is busy: when another node starts at time s,
//!   a counter that resumed at `r` has consumed `floor((s - r) / slot)` slots.
//! - Nodes whose counters reach zero at the same instant collide; with basic access the
//!   collision lasts the longest frame, with RTS/CTS the longest RTS.
//! - Success: CW back to CWmin, retry counters cleared, a new backoff drawn (post-backoff,
//!   also with an empty queue). Failure: CW = min(2 (CW + 1) - 1, CWmax), counters
//!   incremented (short for RTS and for frames not preceded by RTS, long for data after a
//!   CTS); at dot11ShortRetryLimit / dot11LongRetryLimit the frame is dropped.
//! - Beacons go at TBTT once the medium is idle for PIFS, without backoff, at the beacon
//!   rate, no ACK.
//!
//! Rather than stepping slot by slot, the engine computes each node's transmission instant
//! from its counter and schedules one event for the earliest; that makes a saturated
//! 20-station network cost O(stations) per transmission.
use super::config::{secs, AccessOnArrival, CollisionIfs, FlowSpec, ModelSpec, RateControl, TopologyKind, TrafficKind, TxopFill};
use super::costs::{Costs, Location};
use super::edca::{self, Access};
use super::errmodel;
use super::error::{Error, Result};
use super::phy::{Ns, Phy, PhyKind, SEC};
use super::stats::{quantile, Rfc3550Jitter};
use super::tcp::{Seg, TcpReceiver, TcpSender};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use wsec_base::CipherSuite;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PktKind {
    Udp,
    Seg { seq: u64, len: u32 },
    Ack { ack: u64 },
}

#[derive(Debug, Clone, Copy)]
struct Packet {
    flow: u32,
    kind: PktKind,
    /// Application payload octets (UDP payload or TCP segment data).
    payload: u32,
    /// IP packet length.
    ip_bytes: u32,
    created: Ns,
    dst: u16,
    /// Next hop on the wireless medium.
    hop: u16,
    /// The flow's access function ([`Access::index`]).
    ac: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeKind {
    Ap,
    Sta,
    Wired,
}

/// A FIFO server with `c` parallel servers and a bounded backlog (a crypto stage, or one
/// direction of the Ethernet link with c = 1).
#[derive(Debug, Clone)]
struct Fifo {
    free: Vec<Ns>,
    backlog: VecDeque<Ns>,
    limit: usize,
    busy: u64,
}

impl Fifo {
    fn new(servers: usize, limit: usize) -> Fifo {
        Fifo { free: vec![0; servers.max(1)], backlog: VecDeque::new(), limit, busy: 0 }
    }
    /// Admits a job of `svc` ns at `now`: its completion time, or None when full.
    fn admit(&mut self, now: Ns, svc: Ns) -> Option<Ns> {
        while self.backlog.front().is_some_and(|&d| d <= now) {
            self.backlog.pop_front();
        }
        if self.backlog.len() >= self.limit {
            return None;
        }
        let (i, &f) = self.free.iter().enumerate().min_by_key(|(_, &f)| f).unwrap();
        let done = f.max(now) + svc;
        self.free[i] = done;
        self.backlog.push_back(done);
        self.busy += svc;
        Some(done)
    }
}

/// One access function of one node (the DCF, or one EDCAF): its queue, backoff and retry
/// state and its parameters.
#[derive(Debug, Clone)]
struct Mac {
    node: usize,
    /// [`Access::index`]: the priority of internal collisions.
    ac: usize,
    aifs: Ns,
    cw_min: u32,
    cw_max: u32,
    /// EDCA's slot-boundary rule (edca.rs).
    edca: bool,
    txop: Ns,
    /// What a frame arriving to an idle medium waits from its arrival (0, or DIFS/AIFS).
    arrival_wait: Ns,
    queue: VecDeque<Packet>,
    /// Remaining backoff slots as of `ifs_end` (None: no backoff pending).
    bo: Option<u32>,
    /// When this node's countdown (re)starts: end of the last busy period + DIFS/EIFS.
    ifs_end: Ns,
    /// When the head frame became available.
    earliest: Ns,
    cw: u32,
    src: u32,
    lrc: u32,
    /// Rate control (ARF): the rung in `Simulator::rungs`, successes and failures in a row,
    /// and whether the last step was up (a probe).
    rung: usize,
    ok_run: u32,
    fail_run: u32,
    probing: bool,
    /// Minstrel's statistics (None with the other rate controls).
    minstrel: Option<Minstrel>,
}

/// Minstrel's state for one access function (config.rs `phy.rate_control`; ns-3's
/// MinstrelWifiManager): attempts and successes per rung since the last update, their
/// EWMA success probability, the retry chain, and whether the head frame is a sample.
#[derive(Debug, Clone)]
struct Minstrel {
    attempts: Vec<u32>,
    successes: Vec<u32>,
    /// EWMA success probability per rung (None: never tried).
    prob: Vec<Option<f64>>,
    next_update: Ns,
    /// Best throughput, second best, best probability.
    chain: [usize; 3],
    /// The rung the head frame samples (its first two attempts), if it is a sample.
    sample: Option<usize>,
    frames: u64,
}

/// Minstrel's update interval, EWMA weight of the past, share of sampled frames, and the
/// frame length its throughput estimate assumes (ns-3: UpdateStatistics 100 ms,
/// EwmaLevel 75, LookAroundRate 10, PacketLength 1200).
const MINSTREL_INTERVAL: Ns = 100_000_000;
const MINSTREL_EWMA: f64 = 0.75;
const MINSTREL_SAMPLE_EVERY: u64 = 10;
const MINSTREL_BYTES: usize = 1200;

/// Per-node counters.
#[derive(Debug, Clone, Default, Serialize)]
pub struct NodeStats {
    pub name: String,
    pub tx_attempts: u64,
    pub tx_success: u64,
    pub collisions: u64,
    /// Two of the node's access categories ended their backoff in the same slot; the lower
    /// one backed off (10.23.2.4).
    pub internal_collisions: u64,
    pub frame_errors: u64,
    pub retry_drops: u64,
    pub queue_drops: u64,
    pub crypto_drops: u64,
    pub ethernet_drops: u64,
    pub beacons_sent: u64,
    pub beacons_lost: u64,
    /// CF-Ends sent to truncate a TXOP (`mac.cf_end`, 10.23.2.9).
    pub cf_ends: u64,
    /// Fraction of the run the node's crypto stage was busy.
    pub crypto_utilisation: f64,
    /// MAC payload octets delivered (MSDUs), for throughput per station.
    pub msdu_bytes_ok: u64,
    /// Backoff slots drawn (for the exact single-station check).
    pub backoff_slots_drawn: u64,
    /// Mean data rate of the data PPDUs sent (Mb/s; rate control moves it).
    pub mean_rate_mbps: f64,
    #[serde(skip)]
    rate_sum_kbps: u64,
}

struct Node {
    kind: NodeKind,
    /// Its access functions by [`Access::index`] (indices into `Simulator::macs`); a wired
    /// node has none.
    macs: [Option<usize>; 5],
    beacon_due: Option<Ns>,
    /// Frames inside the crypto stage on their way to the MAC queue.
    tx_in_stage: usize,
    stage: Option<(Location, Fifo)>,
    eth: Option<Fifo>,
    stats: NodeStats,
}

#[derive(Debug)]
enum Ev {
    App(u32),
    FileReady(u32),
    StageDone { node: u16, pkt: Packet, tx: bool },
    Access(u64),
    ExchangeEnd,
    TxopNext,
    Rx { node: u16, pkt: Packet },
    EthArrive { node: u16, pkt: Packet },
    Rto { flow: u32, gen: u64 },
    DelAck { flow: u32, gen: u64 },
}

struct Entry {
    t: Ns,
    seq: u64,
    ev: Ev,
}
impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.t == o.t && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        (o.t, o.seq).cmp(&(self.t, self.seq))
    }
}

const BEACON: usize = usize::MAX;

#[derive(Debug, Default)]
struct Exchange {
    /// (access function, frames delivered (A-MPDU or TXOP burst), RTS used)
    txers: Vec<(usize, usize, bool)>,
    /// Access functions that lost an internal collision.
    internal: Vec<usize>,
    /// A frame after the first of a TXOP burst failed.
    burst_failed: bool,
    /// When each transmitter's own PPDU (RTS, or data) ends.
    own_end: Vec<Ns>,
    beacon: Option<usize>,
    success: bool,
    data_error: bool,
    /// A TXOP continued by ns-3's rule: (its start, the end of its last ACK).
    txop: Option<(Ns, Ns)>,
}

struct FlowState {
    spec: FlowSpec,
    name: String,
    src: usize,
    dst: usize,
    /// [`Access::index`] of the flow's category.
    ac: u8,
    /// Saturated: frames of this flow inside the source node.
    inside: usize,
    sent: u64,
    sent_bytes: u64,
    recv: u64,
    recv_bytes_window: u64,
    delays: Vec<f64>,
    jitter: Rfc3550Jitter,
    drops: u64,
    gop_pos: usize,
    tx: Option<TcpSender>,
    rx: Option<TcpReceiver>,
    start: Ns,
    ready_at: Option<Ns>,
    completion: Option<f64>,
    rto_pushed: u64,
    segs_sent: u64,
}

/// One flow's results.
#[derive(Debug, Clone, Serialize)]
pub struct FlowResult {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub traffic: String,
    pub offered_mbps: f64,
    /// Application payload delivered per second during the measurement window (file
    /// transfers: file size over completion time).
    pub throughput_mbps: f64,
    pub sent: u64,
    pub received: u64,
    /// UDP: packets sent in the window and never delivered; TCP: segments dropped in the
    /// network over segments sent (incl. retransmissions), in percent.
    pub loss_pct: f64,
    pub delay_mean_ms: f64,
    pub delay_p95_ms: f64,
    pub jitter_ms: f64,
    /// Mean |D(i-1,i)| over the window (ns-3 FlowMonitor's jitterSum / (rxPackets - 1)).
    pub ipdv_mean_ms: f64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub drops: u64,
    /// File transfers: seconds from the start (incl. application encryption and decryption).
    pub completion_s: Option<f64>,
}

/// One run's results.
#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    pub seed: u64,
    pub flows: Vec<FlowResult>,
    pub nodes: Vec<NodeStats>,
    pub aggregate_throughput_mbps: f64,
    pub events: u64,
    pub simulated_s: f64,
}

pub struct Simulator<'a> {
    phy: Phy,
    spec: &'a ModelSpec,
    costs: &'a Costs,
    suite: Option<CipherSuite>,
    now: Ns,
    heap: BinaryHeap<Entry>,
    seq: u64,
    rng: ChaCha8Rng,
    nodes: Vec<Node>,
    macs: Vec<Mac>,
    names: Vec<String>,
    flows: Vec<FlowState>,
    busy: bool,
    idle_since: Ns,
    access_gen: u64,
    next_access: Option<Ns>,
    ex: Exchange,
    ap: Option<usize>,
    wired: Option<usize>,
    warmup: Ns,
    stop: Ns,
    end: Ns,
    events: u64,
    /// EIFS - DIFS/AIFS = SIFS + EstimatedAckTxTime, what the nodes that did not transmit
    /// defer beyond AIFS after an error.
    eifs_extra: Ns,
    /// ACKTimeout, when the senders of a failed frame wait it.
    ack_timeout: Option<Ns>,
    /// Frames a saturated source keeps inside its node (enough for an A-MPDU or a TXOP).
    sat_depth: usize,
    /// The node whose reception is being handled (at the end of the data frame).
    receiving: Option<usize>,
    /// ARF's rungs: the PHY at each data rate up to the configured one (empty: fixed rate).
    rungs: Vec<Phy>,
    header_bytes: usize,
}

impl<'a> Simulator<'a> {
    pub fn new(spec: &'a ModelSpec, costs: &'a Costs, seed: u64) -> Result<Simulator<'a>> {
        spec.check_limits()?;
        let mut phy = spec.phy.build()?;
        edca::check_keys(&spec.mac.edca)?;
        // The access function of untagged flows: `mac.access`, else AC_BE in a network where
        // some flow names a category (WMM), else the PHY's default.
        let tagged = spec.flows.iter().any(|f| f.ac.is_some());
        if spec.flows.iter().any(|f| f.ac == Some(Access::Dcf)) {
            return Err(Error::Spec("a flow's ac is one of vo, vi, be, bk (the DCF has no categories)".into()));
        }
        let default_ac = match (spec.mac.access, tagged) {
            (Some(Access::Dcf), true) => {
                return Err(Error::Spec("flows name an access category but mac.access = \"dcf\" (a non-QoS network)".into()))
            }
            (Some(a), _) => a,
            (None, true) => Access::Be,
            (None, false) => spec.mac.access_for(phy.kind),
        };
        let mut used = vec![default_ac];
        for f in &spec.flows {
            if let Some(a) = f.ac.filter(|a| !used.contains(a)) {
                used.push(a);
            }
        }
        let base_phy = phy.clone();
        let access = default_ac.params(&phy);
        // The category's window, unless the scenario overrides it (Bianchi, exact checks).
        phy.cw_min = spec.phy.cw_min.unwrap_or(access.cw_min);
        phy.cw_max = spec.phy.cw_max.unwrap_or(access.cw_max).max(phy.cw_min);
        let suite = spec.security.suite()?;
        let topo = &spec.topology;
        if topo.stations == 0 {
            return Err(Error::Spec("topology: at least one station".into()));
        }
        if spec.mac.ampdu_max > 1 && phy.kind != PhyKind::N {
            return Err(Error::Spec("mac.ampdu_max > 1 needs 802.11n".into()));
        }
        if !(0.0..1.0).contains(&spec.mac.frame_error_rate) {
            return Err(Error::Spec("mac.frame_error_rate must be in [0, 1)".into()));
        }
        let mut nodes = Vec::new();
        let mut names = Vec::new();
        let mut macs: Vec<Mac> = Vec::new();
        // One access function per category in use at every wireless node.
        let mut add_macs = |node: usize, ap: bool| -> Result<[Option<usize>; 5]> {
            let mut idx = [None; 5];
            for &a in &used {
                let mut p = a.params_with(&base_phy, &spec.mac.edca, ap)?;
                if a == default_ac {
                    p.cw_min = spec.phy.cw_min.unwrap_or(p.cw_min);
                    p.cw_max = spec.phy.cw_max.unwrap_or(p.cw_max).max(p.cw_min);
                }
                let aifs = p.aifs(&base_phy);
                idx[a.index()] = Some(macs.len());
                macs.push(Mac {
                    node,
                    ac: a.index(),
                    aifs,
                    cw_min: p.cw_min,
                    cw_max: p.cw_max,
                    edca: p.edca,
                    txop: p.txop_limit,
                    arrival_wait: if spec.mac.access_on_arrival == AccessOnArrival::Difs { aifs } else { 0 },
                    queue: VecDeque::new(),
                    bo: None,
                    ifs_end: aifs,
                    earliest: 0,
                    cw: p.cw_min,
                    src: 0,
                    lrc: 0,
                    rung: usize::MAX,
                    ok_run: 0,
                    fail_run: 0,
                    probing: false,
                    minstrel: None,
                });
            }
            Ok(idx)
        };
        let sec = &spec.security;
        let stage = |loc: Location| -> Option<(Location, Fifo)> {
            suite.map(|_| (loc, Fifo::new(if loc == Location::Host { sec.host_cores } else { 1 }, sec.stage_queue_limit)))
        };
        let mut ap = None;
        if topo.kind == TopologyKind::Infrastructure {
            ap = Some(0);
            nodes.push(Node {
                kind: NodeKind::Ap,
                tx_in_stage: 0,
                macs: add_macs(0, true)?,
                beacon_due: spec.mac.beacons.then(|| spec.mac.beacon_interval()),
                stage: stage(sec.ap_crypto),
                eth: None,
                stats: NodeStats::default(),
            });
            names.push("ap".to_string());
        }
        for i in 0..topo.stations {
            let idx = add_macs(nodes.len(), false)?;
            nodes.push(Node {
                kind: NodeKind::Sta,
                tx_in_stage: 0,
                macs: idx,
                beacon_due: (ap.is_none() && i == 0 && spec.mac.beacons).then(|| spec.mac.beacon_interval()),
                stage: stage(sec.sta_crypto),
                eth: None,
                stats: NodeStats::default(),
            });
            names.push(format!("sta{}", i + 1));
        }
        let mut wired = None;
        if topo.kind == TopologyKind::Infrastructure && topo.wired_host {
            wired = Some(nodes.len());
            nodes.push(Node {
                kind: NodeKind::Wired,
                tx_in_stage: 0,
                macs: [None; 5],
                beacon_due: None,
                stage: None,
                eth: Some(Fifo::new(1, topo.ethernet_queue_limit)),
                stats: NodeStats::default(),
            });
            names.push("wired".to_string());
            nodes[0].eth = Some(Fifo::new(1, topo.ethernet_queue_limit));
        }
        if nodes.len() > u16::MAX as usize {
            return Err(Error::Spec("too many nodes".into()));
        }
        for (n, name) in nodes.iter_mut().zip(&names) {
            n.stats.name = name.clone();
        }
        // Every crypto location used must have a cost for the suite.
        if let Some(s) = suite {
            for n in &nodes {
                if let Some((loc, _)) = &n.stage {
                    costs.frame_ns(*loc, s, true, 100)?;
                    costs.frame_ns(*loc, s, false, 100)?;
                }
            }
        }
        let find = |name: &str| -> Result<usize> {
            names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| Error::Spec(format!("flow endpoint '{name}' is not a node (have: {})", names.join(", "))))
        };
        // `src = "each_sta"` stands for one flow from every station (other than dst).
        let mut expanded = Vec::new();
        for f in &spec.flows {
            if f.src == "each_sta" {
                for n in names.iter().filter(|n| n.starts_with("sta") && **n != f.dst) {
                    let mut g = f.clone();
                    g.src = n.clone();
                    g.name = Some(match &f.name {
                        Some(base) => format!("{base}-{n}"),
                        None => format!("{n}->{}", f.dst),
                    });
                    expanded.push(g);
                }
            } else {
                expanded.push(f.clone());
            }
        }
        let mut flows = Vec::new();
        for (i, f) in expanded.iter().enumerate() {
            let (src, dst) = (find(&f.src)?, find(&f.dst)?);
            if src == dst {
                return Err(Error::Spec(format!("flow {}: source and destination are the same node", i + 1)));
            }
            if f.traffic == TrafficKind::Saturated && nodes[src].kind == NodeKind::Wired {
                return Err(Error::Spec("saturated flows start at a wireless node".into()));
            }
            let what = format!("flow {} ({}->{})", i + 1, f.src, f.dst);
            if matches!(f.traffic, TrafficKind::Cbr | TrafficKind::Poisson | TrafficKind::Video)
                && !(f.rate_mbps > 0.0 && f.rate_mbps.is_finite())
            {
                return Err(Error::Spec(format!("{what}: rate_mbps must be > 0")));
            }
            if matches!(f.traffic, TrafficKind::Cbr | TrafficKind::Poisson | TrafficKind::Saturated) && !(1..=2200).contains(&f.payload) {
                return Err(Error::Spec(format!("{what}: payload must be 1..=2200 octets")));
            }
            if f.traffic == TrafficKind::Video {
                if !(f.fps > 0.0 && f.fps <= 1000.0 && (1..=2200).contains(&f.video_packet)) || f.frame_cv < 0.0 {
                    return Err(Error::Spec(format!("{what}: video needs 0 < fps <= 1000, 1 <= video_packet <= 2200, frame_cv >= 0")));
                }
                if f.gop.is_empty()
                    || !f.gop.chars().all(|c| matches!(c, 'I' | 'P' | 'B'))
                    || f.ipb_ratio.iter().any(|r| r.is_nan() || *r <= 0.0)
                {
                    return Err(Error::Spec(format!("{what}: gop must be a non-empty string of I, P and B, and ipb_ratio positive")));
                }
            }
            if f.traffic == TrafficKind::File && f.file_bytes == 0 {
                return Err(Error::Spec(format!("{what}: file_bytes must be > 0")));
            }
            if matches!(f.traffic, TrafficKind::Tcp | TrafficKind::File)
                && (f.tcp.mss < 64 || f.tcp.mss > 2200 || f.tcp.rwnd < f.tcp.mss as u64)
            {
                return Err(Error::Spec(format!("{what}: tcp.mss must be 64..=2200 and tcp.rwnd at least one MSS")));
            }
            if !(f.start_s >= 0.0 && f.start_s.is_finite()) {
                return Err(Error::Spec(format!("{what}: start_s must be >= 0")));
            }
            if f.phase_s.is_some_and(|p| !(p >= 0.0 && p.is_finite())) {
                return Err(Error::Spec(format!("{what}: phase_s must be >= 0")));
            }
            if let (TrafficKind::File, Some(c)) = (&f.traffic, &f.app_cipher) {
                costs.app_cipher(c)?;
            }
            let is_tcp = matches!(f.traffic, TrafficKind::Tcp | TrafficKind::File);
            let total = if f.traffic == TrafficKind::File { Some(f.file_bytes) } else { None };
            flows.push(FlowState {
                name: f.name.clone().unwrap_or_else(|| format!("{}->{}", f.src, f.dst)),
                spec: f.clone(),
                src,
                dst,
                ac: f.ac.unwrap_or(default_ac).index() as u8,
                inside: 0,
                sent: 0,
                sent_bytes: 0,
                recv: 0,
                recv_bytes_window: 0,
                delays: Vec::new(),
                jitter: Rfc3550Jitter::default(),
                drops: 0,
                gop_pos: 0,
                tx: is_tcp.then(|| TcpSender::new(f.tcp.clone(), total)),
                rx: is_tcp.then(|| TcpReceiver::new(&f.tcp)),
                start: secs(f.start_s),
                ready_at: None,
                completion: None,
                rto_pushed: u64::MAX,
                segs_sent: 0,
            });
        }
        let run = &spec.run;
        if !(run.warmup_s >= 0.0 && run.duration_s > run.warmup_s && run.duration_s < 1e6 && run.drain_s >= 0.0 && run.drain_s < 1e6) {
            return Err(Error::Spec("run: need 0 <= warmup_s < duration_s < 1e6 s and 0 <= drain_s".into()));
        }
        if spec.mac.queue_limit == 0 || spec.security.stage_queue_limit == 0 || spec.security.host_cores == 0 {
            return Err(Error::Spec("mac.queue_limit, security.stage_queue_limit and security.host_cores must be >= 1".into()));
        }
        if spec.mac.beacon_interval_tu.is_nan() || spec.mac.beacon_interval_tu <= 0.0 || spec.mac.beacon_bytes == 0 {
            return Err(Error::Spec("mac: beacon_interval_tu and beacon_bytes must be > 0".into()));
        }
        if spec.topology.wired_host && !(spec.topology.ethernet_mbps > 0.0 && spec.topology.ethernet_delay_us >= 0.0) {
            return Err(Error::Spec("topology: ethernet_mbps must be > 0 and ethernet_delay_us >= 0".into()));
        }
        let eifs_ack = match spec.mac.eifs_ack_us {
            Some(x) if !(x.is_finite() && (0.0..=10_000.0).contains(&x)) => {
                return Err(Error::Spec(format!("mac.eifs_ack_us = {x} is outside 0..=10000")));
            }
            Some(x) => (x * 1000.0).round() as Ns,
            None => phy.eifs_ack_time(),
        };
        let eifs_extra = phy.sifs + eifs_ack;
        let ack_timeout = (spec.mac.eifs && spec.mac.ack_timeout).then(|| phy.ack_timeout());
        let rungs: Vec<Phy> = match spec.phy.rate_control {
            RateControl::Fixed => Vec::new(),
            RateControl::Arf | RateControl::Minstrel => phy
                .rate_ladder()
                .into_iter()
                .map(|r| {
                    let mut q = phy.clone();
                    q.rate_kbps = r;
                    q
                })
                .collect(),
        };
        for m in macs.iter_mut() {
            m.rung = rungs.len().saturating_sub(1);
            if spec.phy.rate_control == RateControl::Minstrel {
                let n = rungs.len();
                // Start at the lowest rate, as ns-3 does; sampling finds the others.
                m.rung = 0;
                m.minstrel = Some(Minstrel {
                    attempts: vec![0; n],
                    successes: vec![0; n],
                    prob: vec![None; n],
                    next_update: MINSTREL_INTERVAL,
                    chain: [0; 3],
                    sample: None,
                    frames: 0,
                });
            }
        }
        if let Some(snr) = spec.phy.snr_db {
            // Refuse a PHY without curves (or an SNR out of range) before the run starts.
            errmodel::frame_error_rate(phy.kind, phy.short_gi, phy.rate_kbps, 100, snr)?;
        }
        // A saturated source keeps enough frames for an A-MPDU and for a full TXOP burst
        // (each frame of which takes at least 2 SIFS + ACK).
        let max_txop = macs.iter().map(|m| m.txop).max().unwrap_or(0);
        let burst = (max_txop / (2 * phy.sifs + phy.ack_time()).max(1)).min(64) as usize + 1;
        let sat_depth = 2.max(spec.mac.ampdu_max + 1).max(burst + 1);
        let header_bytes = spec.mac.header_bytes.unwrap_or(if phy.kind == PhyKind::N { 30 } else { 28 });
        Ok(Simulator {
            phy,
            spec,
            costs,
            suite,
            now: 0,
            heap: BinaryHeap::new(),
            seq: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
            nodes,
            macs,
            names,
            flows,
            busy: false,
            idle_since: 0,
            access_gen: 0,
            next_access: None,
            ex: Exchange::default(),
            ap,
            wired,
            warmup: secs(run.warmup_s),
            stop: secs(run.duration_s),
            end: secs(run.duration_s + run.drain_s),
            events: 0,
            eifs_extra,
            ack_timeout,
            sat_depth,
            receiving: None,
            rungs,
            header_bytes,
        })
    }

    fn push(&mut self, t: Ns, ev: Ev) {
        self.seq += 1;
        self.heap.push(Entry { t, seq: self.seq, ev });
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self, seed: u64) -> RunResult {
        for f in 0..self.flows.len() {
            let start = self.flows[f].start;
            match self.flows[f].spec.traffic {
                TrafficKind::File => {
                    let fl = &self.flows[f];
                    let enc = match &fl.spec.app_cipher {
                        Some(c) => self.costs.app_cipher(c).map(|c| c.encrypt.at(fl.spec.file_bytes as usize)).unwrap_or(0.0),
                        None => 0.0,
                    };
                    self.push(start + enc.max(0.0) as Ns, Ev::FileReady(f as u32));
                }
                TrafficKind::Tcp => self.push(start, Ev::FileReady(f as u32)),
                _ => {
                    // Sources start at a random phase so periodic flows do not align.
                    let phase = if let Some(p) = self.flows[f].spec.phase_s {
                        secs(p)
                    } else if matches!(self.flows[f].spec.traffic, TrafficKind::Saturated) {
                        0
                    } else {
                        self.rng.gen_range(0..self.interval_hint(f).max(1))
                    };
                    self.push(start + phase, Ev::App(f as u32));
                }
            }
        }
        self.reschedule();
        while let Some(e) = self.heap.pop() {
            if e.t > self.end {
                break;
            }
            self.now = e.t;
            self.events += 1;
            self.dispatch(e.ev);
            if self.spec.run.stop_when_files_done && self.files_done() {
                break;
            }
        }
        self.results(seed)
    }

    fn files_done(&self) -> bool {
        let mut any = false;
        for f in &self.flows {
            if f.spec.traffic == TrafficKind::File {
                any = true;
                if f.completion.is_none() {
                    return false;
                }
            } else {
                return false;
            }
        }
        any
    }

    fn interval_hint(&self, f: usize) -> Ns {
        let s = &self.flows[f].spec;
        match s.traffic {
            TrafficKind::Video => (SEC as f64 / s.fps) as Ns,
            _ => ((s.payload as f64 * 8.0) / (s.rate_mbps * 1e6) * 1e9) as Ns,
        }
    }

    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::App(f) => self.app_tick(f as usize),
            Ev::FileReady(f) => {
                let f = f as usize;
                self.flows[f].ready_at = Some(self.now);
                let mut out = Vec::new();
                self.flows[f].tx.as_mut().unwrap().send_more(self.now, &mut out);
                self.send_segs(f, out);
            }
            Ev::StageDone { node, pkt, tx } => {
                if tx {
                    self.nodes[node as usize].tx_in_stage -= 1;
                    self.mac_enqueue(node as usize, pkt);
                } else {
                    self.arrive(node as usize, pkt);
                }
            }
            Ev::Access(g) => {
                if g == self.access_gen && !self.busy {
                    self.next_access = None;
                    self.begin_exchange();
                }
            }
            Ev::ExchangeEnd => self.end_exchange(),
            Ev::TxopNext => self.txop_next(),
            Ev::Rx { node, pkt } => {
                self.receiving = Some(node as usize);
                self.rx_wireless(node as usize, pkt);
                self.receiving = None;
            }
            Ev::EthArrive { node, pkt } => self.arrive(node as usize, pkt),
            Ev::Rto { flow, gen } => {
                let f = flow as usize;
                let tx = self.flows[f].tx.as_mut().unwrap();
                if tx.timer_gen == gen && tx.rto_deadline == Some(self.now) {
                    let mut out = Vec::new();
                    tx.on_rto(self.now, &mut out);
                    self.send_segs(f, out);
                }
            }
            Ev::DelAck { flow, gen } => {
                let f = flow as usize;
                if let Some(a) = self.flows[f].rx.as_mut().unwrap().on_delack(gen) {
                    self.send_ack(f, a);
                }
            }
        }
    }

    // ---------------------------------------------------------------- traffic sources

    fn udp_packet(&self, f: usize, payload: usize) -> Packet {
        let h = &self.spec.headers;
        Packet {
            flow: f as u32,
            kind: PktKind::Udp,
            payload: payload as u32,
            ip_bytes: (payload + h.ip + h.udp) as u32,
            created: self.now,
            dst: self.flows[f].dst as u16,
            hop: 0,
            ac: self.flows[f].ac,
        }
    }

    fn emit(&mut self, f: usize, pkt: Packet) {
        let fl = &mut self.flows[f];
        if self.now >= self.warmup && self.now < self.stop {
            fl.sent += 1;
            fl.sent_bytes += pkt.payload as u64;
        }
        let src = fl.src;
        self.send_from(src, pkt);
    }

    fn app_tick(&mut self, f: usize) {
        let stop = self.flows[f].spec.stop_s.map(secs).unwrap_or(self.stop).min(self.stop);
        if self.now >= stop {
            return;
        }
        let spec = self.flows[f].spec.clone();
        match spec.traffic {
            TrafficKind::Saturated => {
                // Keep two frames inside the source (a full A-MPDU and one more with
                // aggregation); refilled as transmissions end. Count first: a frame dropped
                // on the way in must not be re-injected here.
                let n = self.saturation_depth().saturating_sub(self.flows[f].inside);
                for _ in 0..n {
                    self.flows[f].inside += 1;
                    let p = self.udp_packet(f, spec.payload);
                    self.emit(f, p);
                }
            }
            TrafficKind::Cbr | TrafficKind::Poisson => {
                let p = self.udp_packet(f, spec.payload);
                self.emit(f, p);
                let mean = spec.payload as f64 * 8.0 / (spec.rate_mbps * 1e6) * 1e9;
                let gap = if spec.traffic == TrafficKind::Cbr { mean } else { -mean * (1.0 - self.rng.gen::<f64>()).ln() };
                self.push(self.now + (gap.max(1.0)) as Ns, Ev::App(f as u32));
            }
            TrafficKind::Video => {
                let gop: Vec<char> = spec.gop.chars().collect();
                let t = gop[self.flows[f].gop_pos % gop.len()];
                self.flows[f].gop_pos += 1;
                let count = |c: char| gop.iter().filter(|&&x| x == c).count() as f64;
                let [ri, rp, rb] = spec.ipb_ratio;
                let mean_frame = spec.rate_mbps * 1e6 / 8.0 / spec.fps;
                let unit = mean_frame * gop.len() as f64 / (count('I') * ri + count('P') * rp + count('B') * rb);
                let r = match t {
                    'I' => ri,
                    'P' => rp,
                    _ => rb,
                };
                let size = (unit * r * self.lognormal(spec.frame_cv)).round().max(1.0) as usize;
                let mut left = size;
                while left > 0 {
                    let n = left.min(spec.video_packet);
                    left -= n;
                    let p = self.udp_packet(f, n);
                    self.emit(f, p);
                }
                self.push(self.now + (SEC as f64 / spec.fps) as Ns, Ev::App(f as u32));
            }
            TrafficKind::Tcp | TrafficKind::File => {}
        }
    }

    fn saturation_depth(&self) -> usize {
        self.sat_depth
    }

    /// A log-normal variate of mean 1 and coefficient of variation `cv`.
    fn lognormal(&mut self, cv: f64) -> f64 {
        if cv <= 0.0 {
            return 1.0;
        }
        let s2 = (1.0 + cv * cv).ln();
        let u1: f64 = 1.0 - self.rng.gen::<f64>();
        let u2: f64 = self.rng.gen();
        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        (z * s2.sqrt() - s2 / 2.0).exp()
    }

    fn send_segs(&mut self, f: usize, segs: Vec<Seg>) {
        let h = &self.spec.headers;
        let (ip, tcp) = (h.ip, h.tcp);
        for s in segs {
            let p = Packet {
                flow: f as u32,
                kind: PktKind::Seg { seq: s.seq, len: s.len },
                payload: s.len,
                ip_bytes: s.len + (ip + tcp) as u32,
                created: self.now,
                dst: self.flows[f].dst as u16,
                hop: 0,
                ac: self.flows[f].ac,
            };
            self.flows[f].segs_sent += 1;
            let src = self.flows[f].src;
            self.send_from(src, p);
        }
        self.arm_rto(f);
    }

    fn arm_rto(&mut self, f: usize) {
        let tx = self.flows[f].tx.as_ref().unwrap();
        if let Some(d) = tx.rto_deadline {
            if self.flows[f].rto_pushed != tx.timer_gen {
                let gen = tx.timer_gen;
                self.flows[f].rto_pushed = gen;
                self.push(d, Ev::Rto { flow: f as u32, gen });
            }
        }
    }

    fn send_ack(&mut self, f: usize, ack: u64) {
        let h = &self.spec.headers;
        let p = Packet {
            flow: f as u32,
            kind: PktKind::Ack { ack },
            payload: 0,
            ip_bytes: (h.ip + h.tcp) as u32,
            created: self.now,
            dst: self.flows[f].src as u16,
            hop: 0,
            ac: self.flows[f].ac,
        };
        let from = self.flows[f].dst;
        self.send_from(from, p);
    }

    // ---------------------------------------------------------------- forwarding

    fn send_from(&mut self, node: usize, mut pkt: Packet) {
        let dst = pkt.dst as usize;
        let (eth, next) = match self.nodes[node].kind {
            NodeKind::Wired => (true, self.ap.unwrap()),
            NodeKind::Ap if Some(dst) == self.wired => (true, dst),
            NodeKind::Ap => (false, dst),
            NodeKind::Sta => (false, self.ap.unwrap_or(dst)),
        };
        if eth {
            let t = &self.spec.topology;
            // Preamble + SFD 8, header 14, FCS 4, interframe gap 12 octets.
            let bits = (pkt.ip_bytes as f64 + 38.0) * 8.0;
            let svc = (bits / (t.ethernet_mbps * 1e6) * 1e9) as Ns;
            let delay = (t.ethernet_delay_us * 1e3) as Ns;
            match self.nodes[node].eth.as_mut().unwrap().admit(self.now, svc) {
                Some(done) => self.push(done + delay, Ev::EthArrive { node: next as u16, pkt }),
                None => {
                    self.nodes[node].stats.ethernet_drops += 1;
                    self.drop_pkt(node, pkt);
                }
            }
            return;
        }
        pkt.hop = next as u16;
        if let (Some(s), Some(_)) = (self.suite, &self.nodes[node].stage) {
            // Frames being encrypted count against the transmit queue: the driver stops
            // handing frames to the crypto when the queue behind it is full (backpressure),
            // so the excess is dropped before it costs any crypto.
            let queued = self.nodes[node].macs[pkt.ac as usize].map_or(0, |m| self.macs[m].queue.len()) + self.nodes[node].tx_in_stage;
            if queued >= self.spec.mac.queue_limit {
                self.nodes[node].stats.queue_drops += 1;
                self.drop_pkt(node, pkt);
                return;
            }
            self.nodes[node].tx_in_stage += 1;
            let body = self.body_bytes(&pkt);
            let loc = self.nodes[node].stage.as_ref().unwrap().0;
            let svc = self.costs.frame_ns(loc, s, true, body).unwrap_or(0.0) as Ns;
            match self.nodes[node].stage.as_mut().unwrap().1.admit(self.now, svc) {
                Some(done) => self.push(done, Ev::StageDone { node: node as u16, pkt, tx: true }),
                None => {
                    self.nodes[node].tx_in_stage -= 1;
                    self.nodes[node].stats.crypto_drops += 1;
                    self.drop_pkt(node, pkt);
                }
            }
        } else {
            self.mac_enqueue(node, pkt);
        }
    }

    fn body_bytes(&self, p: &Packet) -> usize {
        self.spec.mac.llc_bytes + p.ip_bytes as usize
    }

    fn mpdu_bytes(&self, p: &Packet) -> usize {
        self.header_bytes + self.suite.map_or(0, |s| s.overhead()) + self.body_bytes(p)
    }

    /// A packet is dropped at `node` (full queue or stage, retry limit, Ethernet).
    fn drop_pkt(&mut self, node: usize, p: Packet) {
        let f = p.flow as usize;
        self.flows[f].drops += 1;
        self.left_source(node, &p, false);
    }

    /// A saturated flow's frame left its source. The source refills only when a
    /// transmission ends (`refill`), never from inside a drop, so a full queue cannot loop.
    fn left_source(&mut self, node: usize, p: &Packet, refill: bool) {
        let f = p.flow as usize;
        if self.flows[f].spec.traffic == TrafficKind::Saturated && self.flows[f].src == node {
            self.flows[f].inside -= 1;
            if refill {
                self.app_tick(f);
            }
        }
    }

    fn mac_enqueue(&mut self, node: usize, pkt: Packet) {
        let limit = self.spec.mac.queue_limit;
        // With ns-3's DCF convention (`access_on_arrival = "difs"`) a frame queued at the
        // instant the node's own reception ends (an AP forwarding) meets an idle medium: no
        // backoff, DIFS after the ACK it is about to send (config.rs).
        let forwarded_at_rx_end = self.receiving == Some(node) && self.spec.mac.access_on_arrival == AccessOnArrival::Difs;
        let busy = self.busy && !forwarded_at_rx_end;
        let now = self.now;
        // Every wireless node has an access function for every category in use.
        let mi = self.nodes[node].macs[pkt.ac as usize].expect("access function of a category in use");
        let m = &mut self.macs[mi];
        if m.queue.len() >= limit {
            self.nodes[node].stats.queue_drops += 1;
            self.drop_pkt(node, pkt);
            return;
        }
        m.queue.push_back(pkt);
        if m.queue.len() == 1 {
            m.earliest = now;
            if m.bo.is_none() && busy {
                let cw = m.cw;
                let k = self.rng.gen_range(0..=cw);
                self.macs[mi].bo = Some(k);
                self.nodes[node].stats.backoff_slots_drawn += k as u64;
            }
            self.reschedule();
        }
    }

    fn rx_wireless(&mut self, node: usize, pkt: Packet) {
        if let (Some(s), Some(_)) = (self.suite, &self.nodes[node].stage) {
            let body = self.body_bytes(&pkt);
            let loc = self.nodes[node].stage.as_ref().unwrap().0;
            let svc = self.costs.frame_ns(loc, s, false, body).unwrap_or(0.0) as Ns;
            match self.nodes[node].stage.as_mut().unwrap().1.admit(self.now, svc) {
                Some(done) => self.push(done, Ev::StageDone { node: node as u16, pkt, tx: false }),
                None => {
                    self.nodes[node].stats.crypto_drops += 1;
                    self.flows[pkt.flow as usize].drops += 1;
                }
            }
        } else {
            self.arrive(node, pkt);
        }
    }

    fn arrive(&mut self, node: usize, pkt: Packet) {
        if pkt.dst as usize != node {
            self.send_from(node, pkt);
            return;
        }
        let f = pkt.flow as usize;
        let now = self.now;
        let in_window = now >= self.warmup && now <= self.stop;
        match pkt.kind {
            PktKind::Udp => {
                let fl = &mut self.flows[f];
                if in_window {
                    fl.recv_bytes_window += pkt.payload as u64;
                }
                if pkt.created >= self.warmup && pkt.created < self.stop {
                    fl.recv += 1;
                    let d = (now - pkt.created) as f64 / 1e6;
                    fl.delays.push(d);
                    fl.jitter.update(d);
                }
            }
            PktKind::Seg { seq, len } => {
                let o = self.flows[f].rx.as_mut().unwrap().on_segment(now, seq, len);
                let fl = &mut self.flows[f];
                if in_window {
                    fl.recv_bytes_window += o.delivered;
                }
                if o.delivered > 0 {
                    fl.recv += 1;
                    if pkt.created >= self.warmup && pkt.created < self.stop {
                        let d = (now - pkt.created) as f64 / 1e6;
                        fl.delays.push(d);
                        fl.jitter.update(d);
                    }
                }
                if let Some(a) = o.ack_now {
                    self.send_ack(f, a);
                }
                if let Some(t) = o.arm_delack {
                    let gen = self.flows[f].rx.as_ref().unwrap().delack_gen;
                    self.push(t, Ev::DelAck { flow: f as u32, gen });
                }
            }
            PktKind::Ack { ack } => {
                let mut out = Vec::new();
                let tx = self.flows[f].tx.as_mut().unwrap();
                let was_done = tx.done_at.is_some();
                tx.on_ack(now, ack, &mut out);
                if !was_done && tx.done_at.is_some() {
                    let fl = &self.flows[f];
                    let dec = match &fl.spec.app_cipher {
                        Some(c) => self.costs.app_cipher(c).map(|c| c.decrypt.at(fl.spec.file_bytes as usize)).unwrap_or(0.0),
                        None => 0.0,
                    };
                    let fl = &mut self.flows[f];
                    fl.completion = Some((now - fl.start) as f64 / 1e9 + dec / 1e9);
                }
                self.send_segs(f, out);
            }
        }
    }

    // ---------------------------------------------------------------- DCF

    fn start_of(&self, i: usize) -> Option<Ns> {
        let m = &self.macs[i];
        if m.queue.is_empty() {
            return None;
        }
        let k = m.bo.unwrap_or(0) as u64;
        Some((m.ifs_end + k * self.phy.slot).max(m.earliest + m.arrival_wait))
    }

    fn beacon_start(&self) -> Option<(usize, Ns)> {
        let owner = self.ap.unwrap_or(0);
        let due = self.nodes[owner].beacon_due?;
        Some((owner, due.max(self.idle_since + self.phy.pifs())))
    }

    fn earliest_access(&self) -> Option<Ns> {
        let mut best = self.beacon_start().map(|b| b.1);
        for i in 0..self.macs.len() {
            if let Some(s) = self.start_of(i) {
                best = Some(best.map_or(s, |b: Ns| b.min(s)));
            }
        }
        best
    }

    fn reschedule(&mut self) {
        if self.busy {
            return;
        }
        let best = self.earliest_access().map(|t| t.max(self.now));
        if best != self.next_access {
            self.access_gen += 1;
            self.next_access = best;
            if let Some(t) = best {
                let g = self.access_gen;
                self.push(t, Ev::Access(g));
            }
        }
    }

    fn begin_exchange(&mut self) {
        let s = self.now;
        let mut ready: Vec<usize> = (0..self.macs.len()).filter(|&i| self.start_of(i).is_some_and(|t| t <= s)).collect();
        let beacon = self.beacon_start().filter(|b| b.1 <= s).map(|b| b.0);
        if let Some(owner) = beacon {
            // The beacon has priority inside its own node.
            ready.retain(|&i| self.macs[i].node != owner);
        }
        if ready.is_empty() && beacon.is_none() {
            self.reschedule();
            return;
        }
        // Internal collisions (10.23.2.4): inside a node the highest category gets the
        // TXOP; the others back off as if their frame had collided.
        let mut txers: Vec<usize> = Vec::new();
        let mut internal: Vec<usize> = Vec::new();
        for &i in &ready {
            let node = self.macs[i].node;
            let top = ready.iter().copied().filter(|&j| self.macs[j].node == node).max_by_key(|&j| self.macs[j].ac).unwrap();
            if top == i {
                txers.push(i);
            } else {
                internal.push(i);
                self.nodes[node].stats.internal_collisions += 1;
            }
        }
        let slot = self.phy.slot;
        // Freeze everyone else's counter. Bianchi's rule, and EDCA's: a counter frozen at
        // or after the end of AIFS has also lost the slot at whose boundary the busy period
        // began (edca.rs).
        let bianchi_all = self.spec.mac.busy_slot_decrement;
        for (j, m) in self.macs.iter_mut().enumerate() {
            if ready.contains(&j) && (txers.contains(&j) || internal.contains(&j)) {
                continue;
            }
            if let Some(k) = m.bo {
                let consumed = if s > m.ifs_end { ((s - m.ifs_end) / slot).min(k as u64) as u32 } else { 0 };
                let mut left = k - consumed;
                if (bianchi_all || m.edca) && left > 0 && s >= m.ifs_end {
                    left -= 1;
                }
                m.bo = if left == 0 { None } else { Some(left) };
            }
        }
        self.busy = true;
        // Minstrel picks each transmitter's rate for this attempt.
        if self.spec.phy.rate_control == RateControl::Minstrel {
            for &i in &txers {
                self.minstrel_pick(i);
            }
        }
        let p = &self.phy;
        let d = p.prop_delay;
        let mut ex = Exchange { beacon: beacon.map(|_| BEACON), internal, ..Default::default() };
        let n_tx = txers.len() + beacon.is_some() as usize;
        // Work out each transmitter's PPDU.
        let mut longest = 0;
        let mut single: Option<(usize, usize, bool, Ns, usize)> = None;
        for &i in &txers {
            let m = &self.macs[i];
            let head = m.queue[0];
            let mut n = 1;
            let mut bytes = self.mpdu_bytes(&head);
            let ampdu = self.spec.mac.ampdu_max > 1;
            let mut psdu = if ampdu { (bytes + 4).div_ceil(4) * 4 } else { bytes };
            if ampdu {
                for q in m.queue.iter().skip(1) {
                    if n >= self.spec.mac.ampdu_max || q.hop != head.hop {
                        break;
                    }
                    let b = (self.mpdu_bytes(q) + 4).div_ceil(4) * 4;
                    if psdu + b > 65_535 {
                        break;
                    }
                    psdu += b;
                    n += 1;
                }
                bytes = psdu;
            }
            let rts = self.spec.mac.rts_threshold.is_some_and(|th| bytes > th);
            let q = self.rungs.get(m.rung).unwrap_or(p);
            let data = q.data_txtime(bytes);
            let busy = if rts { q.rts_time() } else { data };
            let rate = q.rate_kbps as u64;
            longest = longest.max(busy);
            ex.txers.push((i, n, rts));
            ex.own_end.push(s + busy + d);
            single = Some((i, n, rts, data, bytes));
            let st = &mut self.nodes[m.node].stats;
            st.tx_attempts += 1;
            st.rate_sum_kbps += rate;
        }
        if beacon.is_some() {
            longest = longest.max(p.beacon_time(self.spec.mac.beacon_bytes));
        }
        let end;
        if n_tx == 1 && beacon.is_none() {
            let (i, mut n, rts, data, bytes) = single.unwrap();
            let node = self.macs[i].node;
            let p = self.rungs.get(self.macs[i].rung).unwrap_or(p).clone();
            let mut t = s;
            if rts {
                t += p.rts_time() + d + p.sifs + p.cts_time() + d + p.sifs;
            }
            let data_end = t + data + d;
            ex.own_end[0] = data_end;
            let err = self.frame_lost(&p, bytes);
            if err {
                end = data_end;
                ex.data_error = true;
                self.nodes[node].stats.frame_errors += 1;
            } else {
                let resp = if n > 1 || self.spec.mac.ampdu_max > 1 { p.block_ack_time() } else { p.ack_time() };
                let mut e = data_end + p.sifs + resp + d;
                ex.success = true;
                let frames: Vec<Packet> = self.macs[i].queue.iter().take(n).copied().collect();
                for pkt in frames {
                    self.push(data_end, Ev::Rx { node: pkt.hop, pkt });
                }
                // A TXOP (10.23.2.9): the next queued frames follow SIFS after each ACK
                // while the whole sequence fits in the limit (no RTS inside the burst).
                let txop = self.macs[i].txop;
                if txop > 0 && self.spec.mac.ampdu_max <= 1 {
                    let (n2, e2, failed) = self.txop_burst(i, &p, s, n, e);
                    n = n2;
                    e = e2;
                    ex.txers[0].1 = n;
                    if let Some(fe) = failed {
                        ex.burst_failed = true;
                        ex.own_end[0] = fe;
                    } else if self.spec.mac.txop_fill == TxopFill::EachAck && txop.saturating_sub(e - s) > p.sifs {
                        // ns-3: the queue is looked at again SIFS after the ACK (config.rs).
                        ex.txop = Some((s, e));
                        self.ex = ex;
                        self.push(e + p.sifs, Ev::TxopNext);
                        return;
                    } else if let Some(cf) = self.cf_end_time(&p, txop, s, e) {
                        e = cf;
                        self.nodes[node].stats.cf_ends += 1;
                    }
                }
                end = e;
            }
        } else if n_tx == 1 {
            end = s + longest + d;
            ex.success = true;
        } else {
            end = s + longest + d;
            for &(i, _, _) in &ex.txers {
                self.nodes[self.macs[i].node].stats.collisions += 1;
            }
        }
        self.ex = ex;
        self.push(end, Ev::ExchangeEnd);
    }

    /// Sends the holder's queued frames after the `n` already sent, SIFS after each ACK,
    /// while each whole exchange still fits in the TXOP limit (10.23.2.9). Returns the new
    /// `n`, the end of the last ACK, and the end of a frame that failed (the burst ends
    /// there; the EDCAF backs off for it).
    fn txop_burst(&mut self, i: usize, p: &Phy, s: Ns, mut n: usize, mut e: Ns) -> (usize, Ns, Option<Ns>) {
        let d = p.prop_delay;
        let txop = self.macs[i].txop;
        let node = self.macs[i].node;
        while n < self.macs[i].queue.len() {
            let pkt = self.macs[i].queue[n];
            let dt = p.data_txtime(self.mpdu_bytes(&pkt));
            let frame_end = e + p.sifs + dt + d;
            if frame_end + p.sifs + p.ack_time() + d - s > txop {
                break;
            }
            let st = &mut self.nodes[node].stats;
            st.tx_attempts += 1;
            st.rate_sum_kbps += p.rate_kbps as u64;
            if self.frame_lost(p, self.mpdu_bytes(&pkt)) {
                self.nodes[node].stats.frame_errors += 1;
                return (n, frame_end, Some(frame_end));
            }
            self.nodes[node].stats.tx_success += 1;
            self.push(frame_end, Ev::Rx { node: pkt.hop, pkt });
            e = frame_end + p.sifs + p.ack_time() + d;
            n += 1;
        }
        (n, e, None)
    }

    /// With `mac.cf_end`: the end of a CF-End sent SIFS after the last ACK (`e`) of a TXOP
    /// won at `s`, if the rest of the limit exceeds its length (ns-3 3.37
    /// `QosFrameExchangeManager::SendCfEndIfNeeded`); else none is sent.
    fn cf_end_time(&self, p: &Phy, txop: Ns, s: Ns, e: Ns) -> Option<Ns> {
        let cf_end = p.sifs + self.phy.beacon_time(20) + p.prop_delay;
        (self.spec.mac.cf_end && e + cf_end - s <= txop).then_some(e + cf_end)
    }

    /// ns-3's TXOP continuation (`mac.txop_fill = "each_ack"`), SIFS after an ACK: the
    /// frames that arrived during the burst join it; when none is left, or the next does
    /// not fit, the TXOP ends (with a CF-End if `mac.cf_end` and it fits).
    fn txop_next(&mut self) {
        let Some((s, e)) = self.ex.txop.take() else { return };
        let (i, n, _) = self.ex.txers[0];
        let p = self.rungs.get(self.macs[i].rung).unwrap_or(&self.phy).clone();
        let (n2, e2, failed) = self.txop_burst(i, &p, s, n, e);
        self.ex.txers[0].1 = n2;
        let end = if let Some(fe) = failed {
            self.ex.burst_failed = true;
            self.ex.own_end[0] = fe;
            fe
        } else if n2 > n && self.macs[i].txop.saturating_sub(e2 - s) > p.sifs {
            self.ex.txop = Some((s, e2));
            self.push(e2 + p.sifs, Ev::TxopNext);
            return;
        } else if let Some(cf) = self.cf_end_time(&p, self.macs[i].txop, s, e2) {
            self.nodes[self.macs[i].node].stats.cf_ends += 1;
            cf
        } else {
            e2
        };
        self.push(end, Ev::ExchangeEnd);
    }

    fn end_exchange(&mut self) {
        let end = self.now;
        self.busy = false;
        self.idle_since = end;
        let ex = std::mem::take(&mut self.ex);
        let mac = &self.spec.mac;
        // What the nodes that did not transmit defer: EIFS after a frame they decoded in
        // error (a data frame hit by a channel error, or a collision when a preamble was
        // detected), else DIFS/AIFS. EIFS = SIFS + EstimatedAckTxTime + DIFS/AIFS[AC].
        let error_seen = ex.burst_failed || (!ex.success && (ex.data_error || mac.collision_ifs == CollisionIfs::Eifs));
        let extra = if mac.eifs && error_seen { self.eifs_extra } else { 0 };
        for m in self.macs.iter_mut() {
            m.ifs_end = end + extra + m.aifs;
        }
        // The senders of the failed frame did not receive it: they wait ACKTimeout after
        // their own transmission (or CTSTimeout after an RTS, the same length), then AIFS
        // once the medium is idle.
        if let (true, Some(to)) = (!ex.success || ex.burst_failed, self.ack_timeout) {
            for (k, &(i, _, _)) in ex.txers.iter().enumerate() {
                let m = &mut self.macs[i];
                m.ifs_end = end.max(ex.own_end[k] + to) + m.aifs;
            }
        }
        // An internal collision's losers saw their own node's transmission, no error.
        for &i in &ex.internal {
            let m = &mut self.macs[i];
            m.ifs_end = end + m.aifs;
        }
        if ex.beacon.is_some() {
            let owner = self.ap.unwrap_or(0);
            let interval = self.spec.mac.beacon_interval();
            let st = &mut self.nodes[owner].stats;
            if ex.success {
                st.beacons_sent += 1;
            } else {
                st.beacons_lost += 1;
            }
            let due = self.nodes[owner].beacon_due.unwrap();
            // Next TBTT strictly after now.
            let mut next = due + interval;
            while next <= end {
                next += interval;
            }
            self.nodes[owner].beacon_due = Some(next);
        }
        let mut outcomes: Vec<(usize, usize, bool, bool)> =
            ex.txers.iter().map(|&(i, n, rts)| (i, if ex.success { n } else { 0 }, !ex.success || ex.burst_failed, rts)).collect();
        // The losers of an internal collision: nothing sent, one failure (10.23.2.4).
        outcomes.extend(ex.internal.iter().map(|&i| (i, 0, true, false)));
        for (i, ok, failed, rts) in outcomes {
            let n_failed = if ok == 0 { ex.txers.iter().find(|t| t.0 == i).map_or(1, |t| t.1) } else { 1 };
            let mut done: Vec<Packet> = Vec::new();
            let mut lost: Vec<Packet> = Vec::new();
            {
                let mac = &self.spec.mac;
                let m = &mut self.macs[i];
                if ok > 0 {
                    done.extend(m.queue.drain(..ok));
                    m.cw = m.cw_min;
                    m.src = 0;
                    m.lrc = 0;
                }
                if failed && !m.queue.is_empty() {
                    let long = rts && ex.data_error;
                    let (cnt, limit) = if long {
                        m.lrc += 1;
                        (m.lrc, mac.long_retry_limit)
                    } else {
                        m.src += 1;
                        (m.src, mac.short_retry_limit)
                    };
                    if mac.retries && cnt >= limit {
                        lost.extend(m.queue.drain(..n_failed.min(m.queue.len())));
                        m.cw = m.cw_min;
                        m.src = 0;
                        m.lrc = 0;
                    } else {
                        m.cw = (2 * (m.cw + 1) - 1).min(m.cw_max);
                    }
                }
                m.earliest = end;
                // ARF (config.rs): it sees only "acknowledged" or "not"; an internal
                // collision sent nothing.
                if let (Some(st), false) = (m.minstrel.as_mut(), ex.internal.contains(&i)) {
                    st.attempts[m.rung] += 1;
                    if ok > 0 {
                        st.successes[m.rung] += 1;
                    }
                    if ok > 0 || (failed && m.src == 0 && m.lrc == 0) {
                        // The frame is done (delivered or dropped): the next one may sample.
                        st.sample = None;
                    }
                } else if m.rung != usize::MAX && !self.rungs.is_empty() && !ex.internal.contains(&i) {
                    if ok > 0 {
                        arf_step(m, true, self.rungs.len());
                    }
                    if failed {
                        arf_step(m, false, self.rungs.len());
                    }
                }
            }
            let node = self.macs[i].node;
            let cw = self.macs[i].cw;
            let k = self.rng.gen_range(0..=cw);
            self.macs[i].bo = Some(k);
            self.nodes[node].stats.backoff_slots_drawn += k as u64;
            if ok > 0 && !ex.internal.contains(&i) {
                // Burst frames after the first were counted as they went.
                self.nodes[node].stats.tx_success += 1;
            }
            for p in done {
                self.nodes[node].stats.msdu_bytes_ok += (self.spec.mac.llc_bytes + p.ip_bytes as usize) as u64;
                self.left_source(node, &p, true);
            }
            for p in lost {
                self.nodes[node].stats.retry_drops += 1;
                self.flows[p.flow as usize].drops += 1;
                self.left_source(node, &p, true);
            }
            // Saturated sources whose frames were all dropped on the way in refill here.
            let depth = self.saturation_depth();
            for f in 0..self.flows.len() {
                if self.flows[f].src == node && self.flows[f].spec.traffic == TrafficKind::Saturated && self.flows[f].inside < depth {
                    self.app_tick(f);
                }
            }
        }
        self.reschedule();
    }

    /// Whether a data PPDU of `bytes` octets sent with `p` is received in error: the
    /// configured frame error rate and, with `phy.snr_db`, the error model's.
    fn frame_lost(&mut self, p: &Phy, bytes: usize) -> bool {
        let mut ok = 1.0 - self.spec.mac.frame_error_rate;
        if let Some(snr) = self.spec.phy.snr_db {
            // Checked in `new` for this PHY's rates.
            ok *= 1.0 - errmodel::frame_error_rate(p.kind, p.short_gi, p.rate_kbps, bytes, snr).unwrap_or(1.0);
        }
        ok < 1.0 && self.rng.gen::<f64>() >= ok
    }

    /// Minstrel: updates the statistics every 100 ms and sets `rung` for this attempt of
    /// the head frame from the retry chain, two attempts per stage: best throughput (a
    /// faster sample instead), second best (a slower sample instead, or the best after a
    /// faster sample), best probability, then the lowest rate.
    fn minstrel_pick(&mut self, i: usize) {
        let now = self.now;
        let rungs = self.rungs.len();
        let tx_time: Vec<f64> =
            self.rungs.iter().map(|q| (q.data_txtime(MINSTREL_BYTES) + q.sifs + q.ack_time() + q.difs()) as f64).collect();
        let draw = self.rng.gen_range(0..rungs.max(1));
        let m = &mut self.macs[i];
        let attempt = (m.src + m.lrc) as usize;
        let Some(st) = m.minstrel.as_mut() else { return };
        if now >= st.next_update {
            st.next_update = now + MINSTREL_INTERVAL;
            for r in 0..rungs {
                if st.attempts[r] > 0 {
                    let p = st.successes[r] as f64 / st.attempts[r] as f64;
                    st.prob[r] = Some(st.prob[r].map_or(p, |old| old * MINSTREL_EWMA + p * (1.0 - MINSTREL_EWMA)));
                }
                st.attempts[r] = 0;
                st.successes[r] = 0;
            }
            // Throughput = probability / airtime; below 10% a rate counts as unusable.
            let tput = |r: usize| st.prob[r].filter(|&p| p >= 0.1).map_or(0.0, |p| p / tx_time[r]);
            let mut order: Vec<usize> = (0..rungs).collect();
            order.sort_by(|&a, &b| tput(b).total_cmp(&tput(a)).then(b.cmp(&a)));
            let best_prob =
                (0..rungs).max_by(|&a, &b| st.prob[a].unwrap_or(0.0).total_cmp(&st.prob[b].unwrap_or(0.0)).then(a.cmp(&b))).unwrap_or(0);
            st.chain = [order[0], *order.get(1).unwrap_or(&order[0]), best_prob];
        }
        if attempt == 0 && st.sample.is_none() {
            st.frames += 1;
            if st.frames % MINSTREL_SAMPLE_EVERY == 0 && draw != st.chain[0] {
                st.sample = Some(draw);
            }
        }
        // A sample slower than the best rate only takes the second stage (Minstrel's
        // "deferred" sample): it is tried only if the best rate fails first.
        m.rung = match (st.sample, attempt) {
            (Some(r), 0 | 1) if r > st.chain[0] => r,
            (Some(r), 0 | 1) | (Some(r), 2 | 3) if r < st.chain[0] && attempt >= 2 => r,
            (Some(_), 0 | 1) | (None, 0 | 1) => st.chain[0],
            (Some(r), 2 | 3) if r > st.chain[0] => st.chain[0],
            (_, 2 | 3) => st.chain[1],
            (_, 4 | 5) => st.chain[2],
            _ => 0,
        };
    }

    // ---------------------------------------------------------------- results

    fn results(mut self, seed: u64) -> RunResult {
        let window = (self.stop - self.warmup) as f64 / 1e9;
        let sim_end = self.now.min(self.end);
        let mut flows = Vec::new();
        let mut agg = 0.0;
        for f in self.flows.iter_mut() {
            // A file transfer's throughput is its size over its completion time (the run
            // stops when it is done, so the window would understate it).
            let thr = match (f.spec.traffic, f.completion) {
                (TrafficKind::File, Some(t)) if t > 0.0 => f.spec.file_bytes as f64 * 8.0 / t / 1e6,
                _ => f.recv_bytes_window as f64 * 8.0 / window / 1e6,
            };
            agg += thr;
            let is_tcp = f.tx.is_some();
            let (retx, timeouts) = f.tx.as_ref().map_or((0, 0), |t| (t.retransmits, t.timeouts));
            let loss = if is_tcp {
                if f.segs_sent > 0 {
                    100.0 * f.drops as f64 / f.segs_sent as f64
                } else {
                    0.0
                }
            } else if f.sent > 0 {
                100.0 * (f.sent.saturating_sub(f.recv)) as f64 / f.sent as f64
            } else {
                0.0
            };
            let mean = if f.delays.is_empty() { f64::NAN } else { f.delays.iter().sum::<f64>() / f.delays.len() as f64 };
            let p95 = quantile(&mut f.delays, 0.95);
            flows.push(FlowResult {
                name: f.name.clone(),
                src: self.names[f.src].clone(),
                dst: self.names[f.dst].clone(),
                traffic: format!("{:?}", f.spec.traffic).to_lowercase(),
                offered_mbps: if f.spec.traffic == TrafficKind::Saturated || is_tcp { f64::NAN } else { f.spec.rate_mbps },
                throughput_mbps: thr,
                sent: if is_tcp { f.segs_sent } else { f.sent },
                received: f.recv,
                loss_pct: loss,
                delay_mean_ms: mean,
                delay_p95_ms: p95,
                jitter_ms: f.jitter.jitter,
                ipdv_mean_ms: f.jitter.mean_abs(),
                retransmits: retx,
                timeouts,
                drops: f.drops,
                completion_s: f.completion,
            });
        }
        let mut nodes = Vec::new();
        for n in self.nodes.iter_mut() {
            if let Some((_, st)) = &n.stage {
                n.stats.crypto_utilisation = st.busy as f64 / sim_end.max(1) as f64 / st.free.len() as f64;
            }
            if n.stats.tx_attempts > 0 {
                n.stats.mean_rate_mbps = n.stats.rate_sum_kbps as f64 / n.stats.tx_attempts as f64 / 1000.0;
            }
            nodes.push(std::mem::take(&mut n.stats));
        }
        RunResult { seed, flows, nodes, aggregate_throughput_mbps: agg, events: self.events, simulated_s: sim_end as f64 / 1e9 }
    }
}

/// One ARF step (config.rs, `phy.rate_control`) after an acknowledged (`ok`) or failed frame.
fn arf_step(m: &mut Mac, ok: bool, rungs: usize) {
    if ok {
        m.fail_run = 0;
        m.ok_run += 1;
        m.probing = false;
        if m.ok_run >= 10 && m.rung + 1 < rungs {
            m.rung += 1;
            m.ok_run = 0;
            m.probing = true;
        }
    } else {
        m.ok_run = 0;
        m.fail_run += 1;
        if (m.probing || m.fail_run >= 2) && m.rung > 0 {
            m.rung -= 1;
            m.fail_run = 0;
        }
        m.probing = false;
    }
}

/// Runs one replication of `spec` with `seed`.
pub fn run_once(spec: &ModelSpec, costs: &Costs, seed: u64) -> Result<RunResult> {
    if let Some(mips) = spec.security.card_mips {
        // The scenario's own card speed (a calibrated seed scenario).
        let mut c = costs.clone();
        c.set_card_mips(mips)?;
        return Ok(Simulator::new(spec, &c, seed)?.run(seed));
    }
    let e = Simulator::new(spec, costs, seed)?;
    Ok(e.run(seed))
}

//! `wsec load`: many stations on one medium, to load an access point (issue 38).
//!
//! N stations with distinct locally administered addresses ([`station_addr`]), each the
//! sans-IO [`Station`] core `wsec sta` runs, built from one wpa_supplicant.conf-style
//! network block, share ONE attachment to the medium (an `air` hub client, or a radio
//! taken over as an active monitor): frames from the medium go to the station their
//! receiver address (A1, IEEE 802.11-2020 9.2.4.3) names; group-addressed frames (Beacons,
//! 9.3.3.3) only to the stations still scanning, the others no longer need them (their
//! keep-alive and beacon-loss timers are pushed past the run, see [`prepare`]).
//!
//! Two phases:
//! 1. **Fill**: `concurrency` stations are joining at any time (scan, authentication 11.3.4
//!    or SAE 12.4, association 11.3.5, the 4-way handshake 12.7.6); each one that reaches
//!    "keys installed" makes room for the next. A station not established within the
//!    join timeout counts as a failure and is dropped.
//! 2. **Traffic**: every established station sends `frames` ARP requests (RFC 826) for the
//!    AP's address through its core (protected with its PTK, 12.5) and counts the ARP
//!    replies its core delivers (decrypted and replay-checked): a round trip through the
//!    AP's data path and its host.
//!
//! The report gives the stations established, the handshakes per second of the fill
//! (established stations / time to fill), the per-station join time, the frames passed and
//! the failures by kind; `ap_pid` adds the AP process's resident set from `/proc`.
use crate::error::{Error, Result};
use crate::medium::{self, Medium};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use wsec::node::sta::{StaConfig, Station};
use wsec::node::{NodeEvent, Output, Phase};
use wsec::wire::mac::MacAddr;

/// The most stations one run emulates: hostapd's `MAX_STA_COUNT` (and the AIDs 1 to 2007
/// of IEEE 802.11-2020 9.4.1.8), the most one AP can have associated.
pub const MAX_STATIONS: usize = 2007;

/// The address of emulated station `i`: locally administered and individual (the U/L bit
/// set, the I/G bit clear, as IEEE Std 802 defines them), `02:4c:44:00:HI:LO` ("LD", load).
pub fn station_addr(i: usize) -> MacAddr {
    MacAddr([0x02, 0x4c, 0x44, 0x00, (i >> 8) as u8, i as u8])
}

/// The IPv4 address of emulated station `i` inside `10.9.0.0/16`: 10.9.1.0 onwards, so
/// clear of the lab's 10.9.0.x hosts.
pub fn station_ip(i: usize) -> [u8; 4] {
    let n = 256 + i;
    [10, 9, (n >> 8) as u8, n as u8]
}

/// What a load run does.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Stations to emulate (1 to [`MAX_STATIONS`]).
    pub stations: usize,
    /// Stations joining at the same time.
    pub concurrency: usize,
    /// ARP requests each established station sends in the traffic phase, one after the
    /// other's reply (0: none).
    pub frames: u32,
    /// The AP's IPv4 address (the target of the ARP requests).
    pub ap_ip: [u8; 4],
    /// A station not established this long after it started is a failure.
    pub join_timeout: Duration,
    /// The fill phase ends after this long even if stations are still joining.
    pub fill_timeout: Duration,
    /// How long a station waits for its ARP replies.
    pub reply_timeout: Duration,
    /// The AP's process, whose resident set the report gives (`/proc/PID/status`).
    pub ap_pid: Option<u32>,
    /// A progress line every 10 s on standard error.
    pub progress: bool,
}

impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions {
            stations: 50,
            concurrency: 16,
            frames: 3,
            ap_ip: [10, 9, 0, 1],
            join_timeout: Duration::from_secs(30),
            fill_timeout: Duration::from_secs(600),
            reply_timeout: Duration::from_secs(5),
            ap_pid: None,
            progress: false,
        }
    }
}

impl LoadOptions {
    /// The options a run can be made with, or why not.
    pub fn check(&self) -> std::result::Result<(), String> {
        if !(1..=MAX_STATIONS).contains(&self.stations) {
            return Err(format!("--stations {}: from 1 to {MAX_STATIONS} (hostapd's MAX_STA_COUNT, AIDs 1 to 2007)", self.stations));
        }
        if self.concurrency == 0 {
            return Err("--concurrency 0: at least one station must be joining".into());
        }
        if self.frames > 1000 {
            return Err(format!("--frames {}: at most 1000 a station", self.frames));
        }
        Ok(())
    }
}

/// What a load run measured.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    pub stations: usize,
    pub concurrency: usize,
    /// Stations that reached "keys installed" (the 4-way handshake done).
    pub established: usize,
    /// Stations still established at the end of the run.
    pub established_at_end: usize,
    /// From the first station's start to the last one established (s).
    pub fill_s: f64,
    /// `established / fill_s`.
    pub handshakes_per_s: f64,
    /// Join times (first frame to keys installed), ms: median, 95th percentile, maximum.
    pub join_ms_median: f64,
    pub join_ms_p95: f64,
    pub join_ms_max: f64,
    /// Stations not established within the join timeout (or the fill timeout).
    pub join_failures: usize,
    /// ARP requests sent, ARP replies received, stations with every reply.
    pub frames_sent: u64,
    /// Of `frames_sent`, requests sent again after [`ARP_RETRY`] without a reply.
    pub retries: u64,
    pub replies: u64,
    pub stations_all_replies: usize,
    pub traffic_s: f64,
    /// Failure events of the cores by kind (handshake failed, SAE failed, deauthenticated
    /// by the AP, ...), counted over all stations.
    pub events: BTreeMap<String, u64>,
    /// Frames the generator put on and took from the medium.
    pub air_tx: u64,
    pub air_rx: u64,
    /// The AP process's resident set now and at its peak (KiB), if `ap_pid` was given.
    pub ap_rss_kib: Option<u64>,
    pub ap_hwm_kib: Option<u64>,
    /// The generator's own peak resident set (KiB).
    pub own_hwm_kib: Option<u64>,
}

impl LoadReport {
    /// The report as one JSON object.
    pub fn json(&self) -> String {
        let opt = |v: Option<u64>| v.map_or("null".to_string(), |v| v.to_string());
        let events: Vec<String> =
            self.events.iter().map(|(k, v)| format!("\"{}\": {v}", k.replace('\\', "\\\\").replace('"', "\\\""))).collect();
        format!(
            concat!(
                "{{\"stations\": {}, \"concurrency\": {}, \"established\": {}, \"established_at_end\": {}, ",
                "\"fill_s\": {:.3}, \"handshakes_per_s\": {:.2}, \"join_ms_median\": {:.1}, \"join_ms_p95\": {:.1}, ",
                "\"join_ms_max\": {:.1}, \"join_failures\": {}, \"frames_sent\": {}, \"retries\": {}, \"replies\": {}, ",
                "\"stations_all_replies\": {}, \"traffic_s\": {:.3}, \"events\": {{{}}}, \"air_tx\": {}, \"air_rx\": {}, ",
                "\"ap_rss_kib\": {}, \"ap_hwm_kib\": {}, \"own_hwm_kib\": {}}}"
            ),
            self.stations,
            self.concurrency,
            self.established,
            self.established_at_end,
            self.fill_s,
            self.handshakes_per_s,
            self.join_ms_median,
            self.join_ms_p95,
            self.join_ms_max,
            self.join_failures,
            self.frames_sent,
            self.retries,
            self.replies,
            self.stations_all_replies,
            self.traffic_s,
            events.join(", "),
            self.air_tx,
            self.air_rx,
            opt(self.ap_rss_kib),
            opt(self.ap_hwm_kib),
            opt(self.own_hwm_kib)
        )
    }
}

impl core::fmt::Display for LoadReport {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(
            f,
            "load: {}/{} stations established ({} at the end), {} join failures; fill {:.2} s, {:.1} handshakes/s (concurrency {})",
            self.established,
            self.stations,
            self.established_at_end,
            self.join_failures,
            self.fill_s,
            self.handshakes_per_s,
            self.concurrency
        )?;
        writeln!(
            f,
            "load: join time median {:.0} ms, p95 {:.0} ms, max {:.0} ms",
            self.join_ms_median, self.join_ms_p95, self.join_ms_max
        )?;
        writeln!(
            f,
            "load: traffic: {} ARP requests sent ({} again after 1 s unanswered), {} replies, {} stations with every reply, in {:.2} s",
            self.frames_sent, self.retries, self.replies, self.stations_all_replies, self.traffic_s
        )?;
        let ev: Vec<String> = self.events.iter().map(|(k, v)| format!("{k} {v}")).collect();
        writeln!(f, "load: events: {}", if ev.is_empty() { "none".into() } else { ev.join(", ") })?;
        write!(f, "load: medium frames tx {} rx {}", self.air_tx, self.air_rx)?;
        if let (Some(r), Some(h)) = (self.ap_rss_kib, self.ap_hwm_kib) {
            write!(f, "\nload: AP process RSS {r} KiB (peak {h} KiB)")?;
        }
        if let Some(h) = self.own_hwm_kib {
            write!(f, "\nload: generator peak RSS {h} KiB")?;
        }
        Ok(())
    }
}

/// VmRSS and VmHWM (KiB) of a process, from `/proc/PID/status`.
pub fn rss_kib(pid: &str) -> Option<(u64, u64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field =
        |name: &str| s.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<u64>().ok());
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// The station configuration every emulated station starts from: the network block's
/// security as `wsec sta` reads it, with the keep-alive (Null frames) and beacon-loss
/// timers pushed past any run, so that thousands of established stations stay quiet until
/// the traffic phase.
pub fn prepare(mut base: StaConfig) -> StaConfig {
    base.keepalive_ms = 24 * 3600 * 1000;
    base.beacon_loss_ms = 24 * 3600 * 1000;
    base
}

/// An ARP request (RFC 826) from `sta`/`ip` for `target`, as an Ethernet II frame.
pub fn arp_request(sta: &MacAddr, ip: [u8; 4], target: [u8; 4]) -> Vec<u8> {
    let mut f = Vec::with_capacity(42);
    f.extend_from_slice(&[0xff; 6]);
    f.extend_from_slice(&sta.0);
    f.extend_from_slice(&[0x08, 0x06, 0, 1, 0x08, 0x00, 6, 4, 0, 1]);
    f.extend_from_slice(&sta.0);
    f.extend_from_slice(&ip);
    f.extend_from_slice(&[0; 6]);
    f.extend_from_slice(&target);
    f
}

/// Whether an Ethernet frame is an ARP reply to `ip` (an IPv4 ARP, opcode 2, target `ip`).
pub fn is_arp_reply_to(eth: &[u8], ip: [u8; 4]) -> bool {
    eth.len() >= 42 && eth[12..14] == [0x08, 0x06] && eth[20..22] == [0, 2] && eth[38..42] == ip
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Slot {
    Idle,
    Joining { since: u64 },
    Up,
    Failed,
}

/// A station's ARP request in the traffic phase: when it was sent, the replies counted
/// then, how often it was sent.
struct Pending {
    sent: u64,
    replies: u32,
    tries: u32,
}

/// An unanswered ARP request is sent again after this long (ns)...
const ARP_RETRY: u64 = 1_000_000_000;
/// ...up to this many times in all.
const ARP_TRIES: u32 = 3;

struct Emu {
    core: Option<Station>,
    slot: Slot,
    replies: u32,
}

/// The run: fill, then traffic; stops early when `stop` is set.
pub fn run(base: &StaConfig, medium: &mut dyn Medium, o: &LoadOptions, stop: &AtomicBool) -> Result<LoadReport> {
    o.check().map_err(Error::Setup)?;
    let base = prepare(base.clone());
    let start = Instant::now();
    let now = || start.elapsed().as_nanos() as u64 + 1;
    let n = o.stations;
    let mut emus: Vec<Emu> = (0..n).map(|_| Emu { core: None, slot: Slot::Idle, replies: 0 }).collect();
    let index: HashMap<MacAddr, usize> = (0..n).map(|i| (station_addr(i), i)).collect();
    let mut timers: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut out = Output::default();
    let mut rep = LoadReport { stations: n, concurrency: o.concurrency, ..Default::default() };
    let mut joins_ms: Vec<f64> = Vec::with_capacity(n);
    let mut next = 0usize;
    let mut joining = 0usize;
    let mut last_up = 0u64;
    let mut buf = Vec::with_capacity(16 * 1024);
    let (mut last_tick, mut last_progress) = (0u64, 0u64);
    let join_ns = o.join_timeout.as_nanos() as u64;
    let fill_end = o.fill_timeout.as_nanos() as u64;
    // Traffic phase state.
    let mut traffic_start: Option<u64> = None;
    let mut traffic_next = 0usize;
    let mut traffic_open: BTreeMap<usize, Pending> = BTreeMap::new();

    // What a call into station `i` put out: air frames to the medium, events counted and
    // acted on, host frames checked for ARP replies; its next deadline to the timer heap.
    macro_rules! drain {
        ($i:expr, $t:expr) => {{
            let i = $i;
            for f in out.air.drain(..) {
                medium.send(&f).map_err(|e| Error::io("medium", e))?;
                rep.air_tx += 1;
            }
            for h in out.host.drain(..) {
                if is_arp_reply_to(&h, station_ip(i)) {
                    emus[i].replies += 1;
                    rep.replies += 1;
                }
            }
            for NodeEvent::Phase { phase, .. } in out.events.drain(..) {
                match phase {
                    Phase::Established { .. } => {
                        if let Slot::Joining { since } = emus[i].slot {
                            emus[i].slot = Slot::Up;
                            joining -= 1;
                            rep.established += 1;
                            joins_ms.push(($t - since) as f64 / 1e6);
                            last_up = $t;
                        }
                    }
                    Phase::HandshakeFailed(w) => *rep.events.entry(format!("handshake failed: {w}")).or_insert(0) += 1,
                    Phase::SaeFailed { status } => *rep.events.entry(format!("sae failed status {status}")).or_insert(0) += 1,
                    Phase::Deauthenticated { by_peer: true, reason } => {
                        *rep.events.entry(format!("deauthenticated by the AP reason {reason}")).or_insert(0) += 1
                    }
                    Phase::Disassociated { by_peer: true, reason } => {
                        *rep.events.entry(format!("disassociated by the AP reason {reason}")).or_insert(0) += 1
                    }
                    Phase::BeaconLoss => *rep.events.entry("beacon loss".into()).or_insert(0) += 1,
                    _ => {}
                }
            }
            if let Some(c) = emus[i].core.as_ref() {
                let due = c.poll_timeout();
                if due != u64::MAX {
                    timers.push(Reverse((due, i)));
                }
            }
        }};
    }

    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let t = now();
        let filling = traffic_start.is_none();
        if filling {
            // Start stations while there is room.
            while joining < o.concurrency && next < n && t < fill_end {
                let mut cfg = base.clone();
                cfg.addr = station_addr(next);
                let core = Station::new(cfg, t, Box::new(rand_core::OsRng)).map_err(|source| Error::Core { what: "sta", source })?;
                emus[next].core = Some(core);
                emus[next].slot = Slot::Joining { since: t };
                joining += 1;
                timers.push(Reverse((t, next)));
                next += 1;
            }
            // Join timeouts (and the fill timeout): the station is dropped.
            for e in emus.iter_mut() {
                if let Slot::Joining { since } = e.slot {
                    if t - since > join_ns || t >= fill_end {
                        e.slot = Slot::Failed;
                        e.core = None;
                        joining -= 1;
                        rep.join_failures += 1;
                    }
                }
            }
            if joining == 0 && (next == n || t >= fill_end) {
                rep.join_failures += n - next;
                rep.fill_s = last_up as f64 / 1e9;
                traffic_start = Some(t);
            }
        }
        if let Some(ts) = traffic_start {
            // Up to `concurrency` stations with a request out at once; one request at a
            // time per station, the next after its reply, a silent one sent again after
            // [`ARP_RETRY`] (as an ARP client does) up to [`ARP_TRIES`] times.
            while traffic_open.len() < o.concurrency && traffic_next < n && o.frames > 0 {
                let i = traffic_next;
                traffic_next += 1;
                if emus[i].slot == Slot::Up && emus[i].core.is_some() {
                    traffic_open.insert(i, Pending { sent: 0, replies: 0, tries: 0 });
                }
            }
            let open: Vec<usize> = traffic_open.keys().copied().collect();
            for i in open {
                let Some(p) = traffic_open.get_mut(&i) else { continue };
                let got = emus[i].replies;
                let send = if got >= o.frames {
                    traffic_open.remove(&i);
                    false
                } else if p.sent == 0 || got > p.replies {
                    p.tries = 1;
                    true
                } else if t - p.sent > ARP_RETRY {
                    if p.tries >= ARP_TRIES {
                        traffic_open.remove(&i);
                        false
                    } else {
                        p.tries += 1;
                        rep.retries += 1;
                        true
                    }
                } else {
                    false
                };
                if !send {
                    continue;
                }
                if let Some(p) = traffic_open.get_mut(&i) {
                    p.sent = t;
                    p.replies = got;
                }
                let Some(c) = emus[i].core.as_mut() else { continue };
                let req = arp_request(&station_addr(i), station_ip(i), o.ap_ip);
                c.handle_host(t, &req, &mut out);
                rep.frames_sent += 1;
                drain!(i, t);
            }
            if traffic_open.is_empty() && (traffic_next >= n || o.frames == 0) {
                rep.traffic_s = (t - ts) as f64 / 1e9;
                break;
            }
        }
        // Wait for the medium or the next timer (at most 20 ms: the loop's own checks).
        let due = timers.peek().map_or(u64::MAX, |Reverse((d, _))| *d);
        medium.flush().map_err(|e| Error::io("medium", e))?;
        let mut wait = due.saturating_sub(now()).min(20_000_000);
        if medium.prepare_wait().map_err(|e| Error::io("medium", e))? {
            wait = 0;
        }
        if wait > 0 {
            let ts = libc::timespec { tv_sec: 0, tv_nsec: wait as libc::c_long };
            let mut fds = [libc::pollfd { fd: medium.fd(), events: libc::POLLIN, revents: 0 }];
            // SAFETY: one valid pollfd, a valid timespec, no signal mask.
            unsafe { libc::ppoll(fds.as_mut_ptr(), 1, &ts, core::ptr::null()) };
        }
        let t = now();
        // Frames from the medium, to the station A1 names; group frames to those scanning.
        for _ in 0..256 {
            if !medium.recv(&mut buf).map_err(|e| Error::io("medium", e))? {
                break;
            }
            rep.air_rx += 1;
            let Ok(m) = medium::decap(&buf) else { continue };
            let Some(a1) = m.get(4..10) else { continue };
            let a1 = MacAddr([a1[0], a1[1], a1[2], a1[3], a1[4], a1[5]]);
            if a1.is_group() {
                for i in 0..n {
                    if matches!(emus[i].slot, Slot::Joining { .. }) {
                        if let Some(c) = emus[i].core.as_mut().filter(|c| c.bssid().is_none()) {
                            c.handle_air(t, m, &mut out);
                            drain!(i, t);
                        }
                    }
                }
            } else if let Some(&i) = index.get(&a1) {
                if let Some(c) = emus[i].core.as_mut() {
                    c.handle_air(t, m, &mut out);
                    drain!(i, t);
                }
            }
        }
        // Timers that are due (an entry is a hint: the core's own deadline decides).
        while let Some(&Reverse((d, i))) = timers.peek() {
            if d > t {
                break;
            }
            timers.pop();
            if let Some(c) = emus[i].core.as_mut() {
                if c.poll_timeout() <= t {
                    c.handle_timeout(t, &mut out);
                    drain!(i, t);
                }
            }
        }
        if t - last_tick > 1_000_000_000 {
            last_tick = t;
            medium.tick().map_err(|e| Error::io("medium", e))?;
        }
        if o.progress && t - last_progress > 10_000_000_000 {
            last_progress = t;
            eprintln!(
                "load: {:.0} s: {} established, {} joining, {} failed, {} started; replies {}",
                t as f64 / 1e9,
                rep.established,
                joining,
                rep.join_failures,
                next,
                rep.replies
            );
        }
    }
    medium.flush().map_err(|e| Error::io("medium", e))?;
    rep.established_at_end = emus.iter().filter(|e| e.core.as_ref().is_some_and(|c| c.bssid().is_some() && e.slot == Slot::Up)).count();
    rep.stations_all_replies = emus.iter().filter(|e| e.slot == Slot::Up && e.replies >= o.frames && o.frames > 0).count();
    if rep.fill_s > 0.0 {
        rep.handshakes_per_s = rep.established as f64 / rep.fill_s;
    }
    joins_ms.sort_by(|a, b| a.total_cmp(b));
    if !joins_ms.is_empty() {
        let q = |p: f64| joins_ms[((joins_ms.len() - 1) as f64 * p).round() as usize];
        rep.join_ms_median = q(0.5);
        rep.join_ms_p95 = q(0.95);
        rep.join_ms_max = q(1.0);
    }
    if let Some(pid) = o.ap_pid {
        if let Some((r, h)) = rss_kib(&pid.to_string()) {
            rep.ap_rss_kib = Some(r);
            rep.ap_hwm_kib = Some(h);
        }
    }
    rep.own_hwm_kib = rss_kib("self").map(|(_, h)| h);
    Ok(rep)
}

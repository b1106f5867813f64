//! Authentications per second of the 802.1X access point against a RADIUS server (issue 35):
//! one AP core (`wsec ap`'s configuration) and `stations` station cores (`wsec sta`'s, each
//! with a fresh address per run so that no PMKSA is cached) in this process, the medium in
//! memory, the RADIUS datagrams over UDP to the server named in the AP's configuration. A
//! station counts when both sides installed the keys: Open System authentication,
//! association, the whole EAP method through the server, the Access-Accept's MSK and the
//! 4-way handshake under it. Then it leaves (Deauthentication) and a new station with the
//! next address takes its place, so `stations` authentications are in flight all the time.
//!
//! What a peer does in the same run (hostapd as authenticator, eapol_test as RADIUS client)
//! is measured beside this by `scripts/auth-bench`, which starts the server.
use std::net::UdpSocket;
use std::time::{Duration, Instant};
use wsec::node::ap::AccessPoint;
use wsec::node::sta::{StaConfig, Station};
use wsec::node::{NodeEvent, Output, Phase};
use wsec::wire::mac::MacAddr;

/// What to run.
pub struct Options {
    pub ap: wsec::node::ap::ApConfig,
    /// The station's configuration; its address is replaced per authentication.
    pub sta: StaConfig,
    /// Authentications in flight at once.
    pub stations: usize,
    /// Warm-up before counting.
    pub warmup: Duration,
    /// Counting window.
    pub duration: Duration,
    /// A station not through after this long counts as failed and is replaced.
    pub timeout: Duration,
}

/// What one run measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    pub stations: usize,
    pub seconds: f64,
    /// Completed authentications (both sides' keys installed) inside the window.
    pub completed: u64,
    pub per_second: f64,
    /// Failures inside the window (EAP-Failure, a Deauthentication, or the timeout).
    pub failed: u64,
    /// From the station's start (its first frame) to both sides' keys, ms.
    pub latency_ms_median: f64,
    pub latency_ms_p90: f64,
    pub latency_ms_max: f64,
    /// CPU time of this process (the AP core and the station cores, TLS client side
    /// included) per completed authentication, ms.
    pub cpu_ms_per_auth: f64,
    /// The EAP method the stations ran.
    pub method: String,
}

struct Slot {
    sta: Station,
    addr: MacAddr,
    out: Output,
    started: Instant,
    ap_done: bool,
    sta_done: bool,
}

fn cpu_time() -> Duration {
    // SAFETY: rusage is plain integers, for which all-zero is a valid value.
    let mut ru: libc::rusage = unsafe { core::mem::zeroed() };
    // SAFETY: getrusage writes the struct it is given, which is valid and owned here.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    Duration::from_secs(ru.ru_utime.tv_sec as u64 + ru.ru_stime.tv_sec as u64)
        + Duration::from_micros(ru.ru_utime.tv_usec as u64 + ru.ru_stime.tv_usec as u64)
}

/// The address of the `n`th station: locally administered, unicast, distinct for 2^32 runs.
fn address(n: u64) -> MacAddr {
    let b = (n as u32).to_be_bytes();
    MacAddr([0x02, 0xa5, b[0], b[1], b[2], b[3]])
}

/// Runs the benchmark; errors name what failed (a bad configuration, the socket).
pub fn run(o: &Options) -> Result<Report, String> {
    if o.stations == 0 || o.stations > 4096 {
        return Err(format!("stations must be 1..=4096, not {}", o.stations));
    }
    let Some(d) = o.ap.dot1x.as_ref() else { return Err("the access point's configuration has no ieee8021x=1 / RADIUS server".into()) };
    if o.sta.eap.is_none() {
        return Err("the station's configuration has no EAP method (key_mgmt=WPA-EAP, eap=...)".into());
    }
    let method = match &o.sta.eap {
        Some(p) => wsec::eap::packet::method::name(p.method.typ()).to_string(),
        None => String::new(),
    };
    let bind = if d.radius.auth_servers.iter().all(|s| s.addr.is_ipv4()) { "0.0.0.0:0" } else { "[::]:0" };
    let sock = UdpSocket::bind(bind).map_err(|e| format!("RADIUS socket: {e}"))?;
    let mut ap_cfg = o.ap.clone();
    // Every station in flight has requests pending at the server.
    if let Some(d) = ap_cfg.dot1x.as_mut() {
        d.radius.max_pending = d.radius.max_pending.max(2 * o.stations);
    }
    ap_cfg.max_stations = ap_cfg.max_stations.max(2 * o.stations);
    let t0 = Instant::now();
    let now = |t: Instant| t.duration_since(t0).as_nanos() as u64 + 1;
    let mut rng = rand_os();
    let mut ap = AccessPoint::new(ap_cfg, now(t0), wsec::rng::fork(&mut *rng)).map_err(|e| format!("access point: {e}"))?;
    let mut next: u64 = 0;
    let mut new_slot = |rng: &mut wsec::rng::BoxRng| -> Result<Slot, String> {
        next += 1;
        let mut c = o.sta.clone();
        c.addr = address(next);
        let t = Instant::now();
        let sta = Station::new(c, now(t), wsec::rng::fork(&mut **rng)).map_err(|e| format!("station: {e}"))?;
        Ok(Slot { sta, addr: address(next), out: Output::default(), started: t, ap_done: false, sta_done: false })
    };
    let mut slots = Vec::with_capacity(o.stations);
    for _ in 0..o.stations {
        slots.push(new_slot(&mut rng)?);
    }
    let mut ao = Output::default();
    let mut buf = vec![0u8; wsec::radius::packet::MAX_LEN];
    let (count_from, count_to) = (t0 + o.warmup, t0 + o.warmup + o.duration);
    let (mut completed, mut failed) = (0u64, 0u64);
    let mut latencies = Vec::new();
    let mut cpu0 = None;
    loop {
        let t = Instant::now();
        if t >= count_to {
            break;
        }
        if cpu0.is_none() && t >= count_from {
            cpu0 = Some(cpu_time());
        }
        let n = now(t);
        if ap.poll_timeout() <= n {
            ap.handle_timeout(n, &mut ao);
        }
        for s in slots.iter_mut() {
            if s.sta.poll_timeout() <= n {
                s.sta.handle_timeout(n, &mut s.out);
            }
        }
        // The medium: frames move until nobody has anything more to say.
        let mut moved = true;
        while moved {
            moved = false;
            for f in std::mem::take(&mut ao.air) {
                let to = if f.len() >= 10 { MacAddr(f[4..10].try_into().unwrap_or([0xff; 6])) } else { MacAddr([0xff; 6]) };
                for s in slots.iter_mut().filter(|s| to.0[0] & 1 == 1 || s.addr == to) {
                    s.sta.handle_air(now(Instant::now()), &f, &mut s.out);
                }
                moved = true;
            }
            for s in slots.iter_mut() {
                for f in std::mem::take(&mut s.out.air) {
                    ap.handle_air(now(Instant::now()), &f, &mut ao);
                    moved = true;
                }
            }
            for r in ao.radius.drain(..) {
                sock.send_to(&r.data, r.to).map_err(|e| format!("RADIUS send to {}: {e}", r.to))?;
            }
        }
        for e in ao.events.drain(..) {
            let NodeEvent::Phase { peer, phase } = e;
            if let Phase::Established { .. } = phase {
                if let Some(s) = slots.iter_mut().find(|s| s.addr == peer) {
                    s.ap_done = true;
                }
            }
        }
        // Finished and failed stations make room for new ones.
        for s in slots.iter_mut() {
            let mut failed_now = false;
            for NodeEvent::Phase { phase, .. } in s.out.events.drain(..) {
                match phase {
                    Phase::Established { .. } => s.sta_done = true,
                    Phase::EapFailure(_) | Phase::Deauthenticated { .. } => failed_now = true,
                    _ => {}
                }
            }
            let t = Instant::now();
            let timed_out = t.duration_since(s.started) > o.timeout;
            let done = s.ap_done && s.sta_done;
            if !(done || failed_now || timed_out) {
                continue;
            }
            let counting = t >= count_from && t < count_to;
            if done && counting {
                completed += 1;
                latencies.push(t.duration_since(s.started).as_secs_f64() * 1e3);
            } else if !done && counting {
                failed += 1;
            }
            let mut out = Output::default();
            s.sta.shutdown(now(t), &mut out);
            for f in out.air {
                ap.handle_air(now(t), &f, &mut ao);
            }
            ao.air.clear();
            *s = new_slot(&mut rng)?;
        }
        // Wait for the server, at most until the next timer or 1 ms when frames are due.
        let busy = !ao.air.is_empty() || slots.iter().any(|s| !s.out.air.is_empty());
        let n = now(Instant::now());
        let next_timer = slots.iter().map(|s| s.sta.poll_timeout()).chain([ap.poll_timeout()]).min().unwrap_or(u64::MAX);
        let wait = if busy { 0 } else { next_timer.saturating_sub(n).clamp(100_000, 5_000_000) };
        if wait > 0 {
            sock.set_read_timeout(Some(Duration::from_nanos(wait))).map_err(|e| e.to_string())?;
        } else {
            sock.set_nonblocking(true).map_err(|e| e.to_string())?;
        }
        loop {
            match sock.recv_from(&mut buf) {
                Ok((len, from)) => {
                    // A bad datagram is counted by the client; the bench goes on.
                    let _ = ap.handle_radius(now(Instant::now()), from, &buf[..len], &mut ao);
                    sock.set_nonblocking(true).map_err(|e| e.to_string())?;
                }
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => break,
                Err(e) => return Err(format!("RADIUS receive: {e}")),
            }
        }
        sock.set_nonblocking(false).map_err(|e| e.to_string())?;
    }
    let cpu = cpu_time().saturating_sub(cpu0.unwrap_or_default());
    latencies.sort_by(f64::total_cmp);
    let q = |p: f64| if latencies.is_empty() { 0.0 } else { latencies[((latencies.len() - 1) as f64 * p).round() as usize] };
    let secs = o.duration.as_secs_f64();
    Ok(Report {
        stations: o.stations,
        seconds: secs,
        completed,
        per_second: completed as f64 / secs,
        failed,
        latency_ms_median: q(0.5),
        latency_ms_p90: q(0.9),
        latency_ms_max: q(1.0),
        cpu_ms_per_auth: if completed == 0 { 0.0 } else { cpu.as_secs_f64() * 1e3 / completed as f64 },
        method,
    })
}

fn rand_os() -> wsec::rng::BoxRng {
    Box::new(rand_core::OsRng)
}

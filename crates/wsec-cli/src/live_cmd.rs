//! `wsec ap`, `wsec sta`, `wsec air`: the live system's programs. Each puts the medium, a
//! TAP device and the clock around a sans-IO core of `wsec::node` (docs/live.md).
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use wsec::medium::{self, tap::Tap, Medium};
use wsec::node::ap::AccessPoint;
use wsec::node::conf;
use wsec::node::sta::Station;
use wsec::node::Output;

/// Set by SIGINT/SIGTERM: the loops leave cleanly (deauthenticate, flush the capture).
pub static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

pub fn install_signal_handlers() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
}

pub const DEFAULT_MEDIUM: &str = "air:127.0.0.1:7411";

/// Frames taken from each side per loop turn and handed to the core as one batch (the
/// multi-buffer kernel runs 8 frames in flight; 64 keeps several passes per batch while
/// bounding the latency a batch adds).
const BATCH: usize = 64;

#[derive(Args)]
pub struct ApArgs {
    /// hostapd.conf-style configuration (docs/live.md lists the keys)
    #[arg(short, long)]
    config: PathBuf,
    /// The medium: air:HOST:PORT (the `wsec air` hub) or packet:IFNAME (overrides `medium=`)
    #[arg(long)]
    medium: Option<String>,
    /// Create the wired-side TAP inside this network namespace (`ip netns` name); the
    /// medium socket stays in the namespace wsec was started in
    #[arg(long)]
    netns: Option<String>,
    /// Add the TAP device to this bridge (in the namespace)
    #[arg(long)]
    bridge: Option<String>,
    /// Print per-station counters every 10 s and at exit
    #[arg(long)]
    counters: bool,
}

#[derive(Args)]
pub struct StaArgs {
    /// wpa_supplicant.conf-style configuration with one network={...} block
    #[arg(short, long)]
    config: PathBuf,
    /// The medium: air:HOST:PORT or packet:IFNAME (overrides `medium=`)
    #[arg(long)]
    medium: Option<String>,
    /// Create the TAP inside this network namespace
    #[arg(long)]
    netns: Option<String>,
    /// Print counters every 10 s and at exit
    #[arg(long)]
    counters: bool,
}

#[derive(Args)]
pub struct AirArgs {
    /// Address to listen on (loopback UDP); port 0 picks a free one (printed)
    #[arg(long, default_value = "127.0.0.1:7411")]
    listen: String,
    /// Record every frame on the air (radiotap, pcap)
    #[arg(long)]
    pcap: Option<PathBuf>,
    /// Probability that one copy of a frame is lost (0 to 1), per receiver
    #[arg(long, default_value_t = 0.0)]
    loss: f64,
    /// Seed of the loss pattern
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn air(a: AirArgs) -> Result<(), String> {
    install_signal_handlers();
    let mut hub = medium::air::AirHub::bind(&a.listen, a.loss, a.seed, a.pcap.as_deref()).map_err(|e| format!("air: {e}"))?;
    let addr = hub.local_addr().map_err(|e| e.to_string())?;
    println!("air: listening on {addr}{}", a.pcap.as_ref().map(|p| format!(", recording to {}", p.display())).unwrap_or_default());
    let st = hub.run(&STOP).map_err(|e| format!("air: {e}"))?;
    println!("air: {} frames ({} octets) carried, {} copies delivered, {} lost", st.frames, st.octets, st.copies, st.lost);
    Ok(())
}

enum Core {
    Ap(Box<AccessPoint>),
    Sta(Box<Station>),
}

impl Core {
    /// A batch of frames from the medium: what they make the node protect goes through
    /// the host engine's multi-buffer pass together.
    fn air_batch(&mut self, now: u64, fs: &[Vec<u8>], o: &mut Output) {
        let it = fs.iter().map(|f| f.as_slice());
        match self {
            Core::Ap(c) => c.handle_air_batch(now, it, o),
            Core::Sta(c) => c.handle_air_batch(now, it, o),
        }
    }
    /// A batch of Ethernet frames from the TAP, protected together.
    fn host_batch(&mut self, now: u64, fs: &[Vec<u8>], o: &mut Output) {
        let it = fs.iter().map(|f| f.as_slice());
        match self {
            Core::Ap(c) => c.handle_host_batch(now, it, o),
            Core::Sta(c) => c.handle_host_batch(now, it, o),
        }
    }
    fn timeout(&mut self, now: u64, o: &mut Output) {
        match self {
            Core::Ap(c) => c.handle_timeout(now, o),
            Core::Sta(c) => c.handle_timeout(now, o),
        }
    }
    fn poll_timeout(&self) -> u64 {
        match self {
            Core::Ap(c) => c.poll_timeout(),
            Core::Sta(c) => c.poll_timeout(),
        }
    }
    fn shutdown(&mut self, now: u64, o: &mut Output) {
        match self {
            Core::Ap(c) => c.shutdown(o),
            Core::Sta(c) => c.shutdown(now, o),
        }
    }
    fn counters(&self) -> String {
        match self {
            Core::Ap(c) => {
                let mut s = format!("{}", c.counters);
                for (a, sc) in c.stations() {
                    s += &format!(
                        "\n  station {} rx {} ({} B) tx {} ({} B) dropped {}",
                        wsec::wire::mac::fmt_mac(&a),
                        sc.rx_data,
                        sc.rx_bytes,
                        sc.tx_data,
                        sc.tx_bytes,
                        sc.rx_dropped
                    );
                }
                let e = c.engine_stats();
                s += &format!("\n  engine protected {} unprotected {} octets {} card busy {} ns", e.protected, e.unprotected, e.octets, e.card_busy_ns);
                s
            }
            Core::Sta(c) => {
                let e = c.engine_stats();
                format!("{}\n  engine protected {} unprotected {} octets {} card busy {} ns", c.counters, e.protected, e.unprotected, e.octets, e.card_busy_ns)
            }
        }
    }
}

fn read_conf(p: &PathBuf) -> Result<String, String> {
    std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))
}

pub fn ap(a: ApArgs) -> Result<(), String> {
    let text = read_conf(&a.config)?;
    let f = conf::parse_ap(&text).map_err(|e| format!("{}: {e}", a.config.display()))?;
    let spec = a.medium.or(f.medium.clone()).unwrap_or_else(|| DEFAULT_MEDIUM.into());
    let channel = f.ap.channel;
    let bssid = f.ap.bssid;
    let medium = medium::open(&spec, channel).map_err(|e| format!("medium {spec}: {e}"))?;
    let tap = host_side(&f.interface, a.netns.as_deref(), &bssid, a.bridge.as_deref())?;
    let start = Instant::now();
    let core = AccessPoint::new(f.ap, 1).map_err(|e| format!("ap: {e}"))?;
    println!("ap: bssid {} ssid \"{}\" on {spec}, wired side {}, crypto on {} thread(s)", wsec::wire::mac::fmt_mac(&bssid), String::from_utf8_lossy(&core.config().ssid), f.interface, core.engine_threads());
    run(Core::Ap(Box::new(core)), medium, tap, start, "ap", a.counters)
}

pub fn sta(a: StaArgs) -> Result<(), String> {
    let text = read_conf(&a.config)?;
    let f = conf::parse_sta(&text).map_err(|e| format!("{}: {e}", a.config.display()))?;
    let spec = a.medium.or(f.medium.clone()).unwrap_or_else(|| DEFAULT_MEDIUM.into());
    let addr = f.sta.addr;
    let medium = medium::open(&spec, 6).map_err(|e| format!("medium {spec}: {e}"))?;
    let tap = host_side(&f.interface, a.netns.as_deref(), &addr, None)?;
    let start = Instant::now();
    let core = Station::new(f.sta, 1).map_err(|e| format!("sta: {e}"))?;
    println!("sta: {} on {spec}, interface {}", wsec::wire::mac::fmt_mac(&addr), f.interface);
    run(Core::Sta(Box::new(core)), medium, tap, start, "sta", a.counters)
}

/// Enters the namespace (after the medium socket is open), creates and configures the TAP.
fn host_side(ifname: &str, netns: Option<&str>, mac: &[u8; 6], bridge: Option<&str>) -> Result<Tap, String> {
    if let Some(ns) = netns {
        medium::netns::enter(ns).map_err(|e| format!("{e}"))?;
    }
    let tap = Tap::create(ifname).map_err(|e| format!("TAP {ifname}: {e} (needs root and /dev/net/tun)"))?;
    tap.configure(mac, 1500).map_err(|e| format!("TAP {ifname}: {e}"))?;
    if let Some(br) = bridge {
        let ok = std::process::Command::new("ip").args(["link", "set", "dev", ifname, "master", br]).status().map(|s| s.success());
        if !matches!(ok, Ok(true)) {
            return Err(format!("cannot add {ifname} to bridge {br}"));
        }
    }
    Ok(tap)
}

fn run(mut core: Core, mut medium: Box<dyn Medium>, mut tap: Tap, start: Instant, who: &str, counters: bool) -> Result<(), String> {
    install_signal_handlers();
    let now = || start.elapsed().as_nanos() as u64 + 1;
    let mut out = Output::default();
    let mut buf = Vec::with_capacity(16 * 1024);
    let mut bad_fcs = 0u64;
    let mut batch: Vec<Vec<u8>> = Vec::with_capacity(BATCH);
    let mut last_tick = now();
    let mut last_counters = now();
    let stdout = std::io::stdout();
    let flush = |out: &mut Output, medium: &mut Box<dyn Medium>, tap: &mut Tap, t: u64| -> Result<(), String> {
        for f in out.air.drain(..) {
            medium.send(&f).map_err(|e| format!("medium: {e}"))?;
        }
        for f in out.host.drain(..) {
            tap.send(&f).map_err(|e| format!("TAP: {e}"))?;
        }
        let mut lock = stdout.lock();
        for e in out.events.drain(..) {
            let _ = writeln!(lock, "{who} {:>12.6} {e}", t as f64 / 1e9);
        }
        Ok(())
    };
    loop {
        if STOP.load(Ordering::SeqCst) {
            let t = now();
            core.shutdown(t, &mut out);
            flush(&mut out, &mut medium, &mut tap, t)?;
            break;
        }
        let t = now();
        // ppoll: ns resolution, so the card model's service times are not rounded to ms.
        let wait = core.poll_timeout().saturating_sub(t).min(500_000_000);
        let ts = libc::timespec { tv_sec: (wait / 1_000_000_000) as libc::time_t, tv_nsec: (wait % 1_000_000_000) as libc::c_long };
        let mut fds = [
            libc::pollfd { fd: medium.fd(), events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: tap.fd(), events: libc::POLLIN, revents: 0 },
        ];
        // SAFETY: fds is a valid array of two pollfd; ts a valid timespec; no signal mask.
        unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &ts, core::ptr::null()) };
        let t = now();
        // Drain what is ready (up to BATCH frames from each side) and hand it to the core
        // as one batch: the frames it protects go through the engine together.
        batch.clear();
        while batch.len() < BATCH {
            if !medium.recv(&mut buf).map_err(|e| format!("medium: {e}"))? {
                break;
            }
            match medium::decap(&buf) {
                Ok(m) => batch.push(m.to_vec()),
                Err(_) => bad_fcs += 1,
            }
        }
        if !batch.is_empty() {
            core.air_batch(t, &batch, &mut out);
            flush(&mut out, &mut medium, &mut tap, t)?;
        }
        batch.clear();
        while batch.len() < BATCH {
            if !tap.recv(&mut buf).map_err(|e| format!("TAP: {e}"))? {
                break;
            }
            batch.push(buf.clone());
        }
        if !batch.is_empty() {
            core.host_batch(t, &batch, &mut out);
            flush(&mut out, &mut medium, &mut tap, t)?;
        }
        if core.poll_timeout() <= t {
            core.timeout(t, &mut out);
            flush(&mut out, &mut medium, &mut tap, t)?;
        }
        if t - last_tick > 1_000_000_000 {
            last_tick = t;
            medium.tick().map_err(|e| format!("medium: {e}"))?;
        }
        if counters && t - last_counters > 10_000_000_000 {
            last_counters = t;
            println!("{who} counters: {}", core.counters());
        }
    }
    println!("{who} counters: {}; bad FCS {bad_fcs}", core.counters());
    Ok(())
}

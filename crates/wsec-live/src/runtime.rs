//! The run loop of the live programs (`wsec ap`, `wsec sta`, `wsec air`): the medium, a TAP
//! device and the clock around a sans-IO core of [`wsec::node`] (docs/live.md).
//!
//! One thread: `ppoll` on the medium and the TAP with the core's next deadline as the
//! timeout; what is ready on each side (up to [`BATCH`] frames) goes to the core as one
//! batch, so the frames it protects run through the host engine's multi-buffer pass
//! together; what the core outputs goes to the medium, the TAP and the event log.
use crate::error::{Error, Result};
use crate::medium::{self, tap::Tap, Medium};
use crate::pool::Pool;
use rand_core::OsRng;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use wsec::node::ap::AccessPoint;
use wsec::node::conf::{self, ApFile, StaFile};
use wsec::node::sta::Station;
use wsec::node::Output;
use wsec::wire::mac::MacAddr;

/// Set by SIGINT/SIGTERM: the loops leave cleanly (deauthenticate, flush the capture).
pub static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Routes SIGINT and SIGTERM to [`STOP`].
pub fn install_signal_handlers() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
}

/// The medium when neither the command line nor the configuration names one.
pub const DEFAULT_MEDIUM: &str = "air:127.0.0.1:7411";

/// Frames taken from each side per loop turn and handed to the core as one batch (the
/// multi-buffer kernel runs 8 frames in flight; 64 keeps several passes per batch while
/// bounding the latency a batch adds).
pub const BATCH: usize = 64;

/// Reads a configuration file: at most [`wsec::input::limits::CONFIG`] octets (1 MiB; a
/// hostapd.conf is a few KiB), counted while reading, so a FIFO or `/dev/zero` fails at the
/// limit. The text (it holds the passphrase) is wiped when dropped.
pub fn read_conf(p: &std::path::Path) -> Result<zeroize::Zeroizing<String>> {
    use wsec::input::{read_text_file, ReadError};
    read_text_file(p, wsec::input::limits::CONFIG).map_err(|e| match e {
        ReadError::Io(e) => Error::io(format!("config {}", p.display()), e),
        e @ ReadError::TooLarge { .. } => Error::Setup(format!("config {}: {e}", p.display())),
    })
}

/// Parses an access point configuration file.
pub fn load_ap(p: &std::path::Path) -> Result<ApFile> {
    conf::parse_ap(&read_conf(p)?).map_err(|source| Error::Config { what: p.display().to_string(), source })
}

/// Parses a station configuration file.
pub fn load_sta(p: &std::path::Path) -> Result<StaFile> {
    conf::parse_sta(&read_conf(p)?).map_err(|source| Error::Config { what: p.display().to_string(), source })
}

/// Where and how a node runs, beside its configuration file.
#[derive(Clone, Debug, Default)]
pub struct NodeOptions {
    /// The medium spec (`air:HOST:PORT` or `packet:IFNAME`); overrides the file's `medium=`.
    pub medium: Option<String>,
    /// Create the TAP inside this network namespace (the medium socket stays outside).
    pub netns: Option<String>,
    /// Add the TAP to this bridge (in the namespace).
    pub bridge: Option<String>,
    /// Print per-station counters every 10 s and at exit.
    pub counters: bool,
}

/// The host engine's crypto threads for `engine_threads=n` (0: one per core; 1: none).
pub fn crypto_threads(n: usize) -> Result<Option<Box<dyn wsec::node::engine::Parallel>>> {
    let n = if n == 0 { std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) } else { n };
    if n <= 1 {
        return Ok(None);
    }
    let p = Pool::new(n).map_err(|e| Error::io("crypto threads", e))?;
    Ok(Some(Box::new(p)))
}

/// Runs an access point until [`STOP`].
pub fn run_ap(mut f: ApFile, o: &NodeOptions) -> Result<()> {
    let spec = o.medium.clone().or(f.medium.clone()).unwrap_or_else(|| DEFAULT_MEDIUM.into());
    if f.address_from_radio {
        f.ap.bssid = radio_address(&spec)?;
    }
    let channel = f.ap.channel;
    let bssid = f.ap.bssid;
    let medium = medium::open(&spec, channel, bssid).map_err(|e| Error::io(format!("medium {spec}"), e))?;
    let bridge = o.bridge.clone().or(f.bridge.clone());
    let tap = host_side(&f.interface, o.netns.as_deref(), &bssid, bridge.as_deref())?;
    let start = Instant::now();
    let threads = crypto_threads(f.ap.engine_threads)?;
    let mut core = AccessPoint::new(f.ap, 1, Box::new(OsRng)).map_err(|source| Error::Core { what: "ap", source })?;
    core.set_crypto_threads(threads);
    println!(
        "ap: bssid {} ssid \"{}\" on {spec}, wired side {}, crypto on {} thread(s)",
        bssid,
        String::from_utf8_lossy(&core.config().ssid),
        f.interface,
        core.datapath().threads()
    );
    run(Core::Ap(Box::new(core)), medium, tap, start, "ap", o.counters, vec![channel])
}

/// Runs a station until [`STOP`].
pub fn run_sta(mut f: StaFile, o: &NodeOptions) -> Result<()> {
    let spec = o.medium.clone().or(f.medium.clone()).unwrap_or_else(|| DEFAULT_MEDIUM.into());
    if f.address_from_radio {
        f.sta.addr = radio_address(&spec)?;
    }
    let addr = f.sta.addr;
    // A radio looks for the network on the listed channels, or on every 2.4 GHz one.
    let scan: Vec<u8> = if !f.scan_channels.is_empty() {
        f.scan_channels.clone()
    } else if spec.starts_with("radio:") {
        (1..=13).collect()
    } else {
        vec![6]
    };
    let medium = medium::open(&spec, scan[0], addr).map_err(|e| Error::io(format!("medium {spec}"), e))?;
    let tap = host_side(&f.interface, o.netns.as_deref(), &addr, None)?;
    let start = Instant::now();
    let threads = crypto_threads(f.sta.engine_threads)?;
    let mut core = Station::new(f.sta, 1, Box::new(OsRng)).map_err(|source| Error::Core { what: "sta", source })?;
    core.set_crypto_threads(threads);
    println!("sta: {addr} on {spec}, interface {}", f.interface);
    run(Core::Sta(Box::new(core)), medium, tap, start, "sta", o.counters, scan)
}

/// The permanent address of the radio a `radio:IFNAME` medium names (the default BSSID
/// or station address with `driver=nl80211`).
fn radio_address(spec: &str) -> Result<MacAddr> {
    let ifname = spec.strip_prefix("radio:").ok_or_else(|| Error::Setup(format!("no address given and {spec} is not a radio")))?;
    medium::radio::address(ifname).map(MacAddr).map_err(|e| Error::io(format!("address of {ifname}"), e))
}

/// Options of the `air` hub.
#[derive(Clone, Debug)]
pub struct AirOptions {
    /// Address to listen on (loopback UDP); port 0 picks a free one.
    pub listen: String,
    /// Record every frame on the air (radiotap, pcap).
    pub pcap: Option<std::path::PathBuf>,
    /// Probability that one copy of a frame is lost (0 to 1), per receiver.
    pub loss: f64,
    /// Seed of the loss pattern.
    pub seed: u64,
}

/// Runs the `air` hub until [`STOP`].
pub fn run_air(a: &AirOptions) -> Result<()> {
    install_signal_handlers();
    let mut hub = medium::air::AirHub::bind(&a.listen, a.loss, a.seed, a.pcap.as_deref()).map_err(|e| Error::io("air", e))?;
    let addr = hub.local_addr().map_err(|e| Error::io("air", e))?;
    println!("air: listening on {addr}{}", a.pcap.as_ref().map(|p| format!(", recording to {}", p.display())).unwrap_or_default());
    let st = hub.run(&STOP).map_err(|e| Error::io("air", e))?;
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
    /// A station that has not found its network yet (a radio keeps changing channel).
    fn scanning(&self) -> bool {
        match self {
            Core::Ap(_) => false,
            Core::Sta(c) => c.bssid().is_none(),
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
                        a, sc.rx_data, sc.rx_bytes, sc.tx_data, sc.tx_bytes, sc.rx_dropped
                    );
                }
                let (e, card) = (c.datapath().engine_stats(), c.datapath().card().busy_ns());
                s += &format!(
                    "\n  engine protected {} unprotected {} octets {} card busy {} ns",
                    e.protected, e.unprotected, e.octets, card
                );
                s
            }
            Core::Sta(c) => {
                let (e, card) = (c.datapath().engine_stats(), c.datapath().card().busy_ns());
                format!(
                    "{}\n  engine protected {} unprotected {} octets {} card busy {} ns",
                    c.counters, e.protected, e.unprotected, e.octets, card
                )
            }
        }
    }
}

/// Enters the namespace (after the medium socket is open), creates and configures the TAP.
fn host_side(ifname: &str, netns: Option<&str>, mac: &MacAddr, bridge: Option<&str>) -> Result<Tap> {
    if let Some(ns) = netns {
        medium::netns::enter(ns).map_err(|e| Error::io(format!("netns {ns}"), e))?;
    }
    let tap = Tap::create(ifname).map_err(|e| Error::io(format!("TAP {ifname} (needs root and /dev/net/tun)"), e))?;
    tap.configure(mac, 1500).map_err(|e| Error::io(format!("TAP {ifname}"), e))?;
    if let Some(br) = bridge {
        let ok = std::process::Command::new("ip").args(["link", "set", "dev", ifname, "master", br]).status().map(|s| s.success());
        if !matches!(ok, Ok(true)) {
            return Err(Error::Setup(format!("cannot add {ifname} to bridge {br}")));
        }
    }
    Ok(tap)
}

/// How long a scanning station listens on one channel before it moves to the next (a
/// beacon interval of 100 TU is 102.4 ms; two of them and a probe round trip).
const SCAN_DWELL_NS: u64 = 300_000_000;

fn run(
    mut core: Core,
    mut medium: Box<dyn Medium>,
    mut tap: Tap,
    start: Instant,
    who: &str,
    counters: bool,
    channels: Vec<u8>,
) -> Result<()> {
    install_signal_handlers();
    let now = || start.elapsed().as_nanos() as u64 + 1;
    let mut out = Output::default();
    let mut buf = Vec::with_capacity(16 * 1024);
    let mut bad_fcs = 0u64;
    let mut batch: Vec<Vec<u8>> = Vec::with_capacity(BATCH);
    let mut last_tick = now();
    let mut last_counters = now();
    let (mut ch_idx, mut on_channel_since) = (0usize, now());
    let stdout = std::io::stdout();
    let flush = |out: &mut Output, medium: &mut Box<dyn Medium>, tap: &mut Tap, t: u64| -> Result<()> {
        for f in out.air.drain(..) {
            medium.send(&f).map_err(|e| Error::io("medium", e))?;
        }
        for f in out.host.drain(..) {
            tap.send(&f).map_err(|e| Error::io("TAP", e))?;
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
        batch.clear();
        while batch.len() < BATCH {
            if !medium.recv(&mut buf).map_err(|e| Error::io("medium", e))? {
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
            if !tap.recv(&mut buf).map_err(|e| Error::io("TAP", e))? {
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
        if channels.len() > 1 && core.scanning() {
            if t - on_channel_since > SCAN_DWELL_NS {
                ch_idx = (ch_idx + 1) % channels.len();
                on_channel_since = t;
                medium.set_channel(channels[ch_idx]).map_err(|e| Error::io("medium: channel", e))?;
            }
        } else {
            on_channel_since = t;
        }
        if t - last_tick > 1_000_000_000 {
            last_tick = t;
            medium.tick().map_err(|e| Error::io("medium", e))?;
        }
        if counters && t - last_counters > 10_000_000_000 {
            last_counters = t;
            println!("{who} counters: {}", core.counters());
        }
    }
    println!("{who} counters: {}; bad FCS {bad_fcs}", core.counters());
    let m = medium.describe();
    if !m.is_empty() {
        println!("{who} medium: {m}");
    }
    Ok(())
}

//! The run loop of the live programs (`wsec ap`, `wsec sta`, `wsec air`): the medium, a TAP
//! device and the clock around a sans-IO core of [`wsec::node`] (docs/live.md).
//!
//! One thread: `ppoll` on the medium and the TAP with the core's next deadline as the
//! timeout; what is ready on each side (up to [`BATCH`] frames) goes to the core as one
//! batch, so the frames it protects run through the host engine's multi-buffer pass
//! together; what the core outputs goes to the medium, the TAP and the event log.
use crate::conf::{self, ApFile, StaFile};
use crate::ctrl::{Action, Ctrl, CtrlNode, CtrlSpec, Ctx, RadioBss};
use crate::error::{Error, Result};
use crate::fpga::FpgaSim;
use crate::medium::{self, tap::Tap, Medium};
use crate::pool::Pool;
use rand_core::OsRng;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;
use wsec::node::ap::AccessPoint;
use wsec::node::sta::Station;
use wsec::node::Output;
use wsec::radius::Kind;
use wsec::wire::mac::MacAddr;
use wsec::wire::mgmt::ReasonCode;

/// Set by SIGINT/SIGTERM: the loops leave cleanly (deauthenticate, flush the capture).
pub static STOP: AtomicBool = AtomicBool::new(false);

/// Counts SIGHUPs: `wsec ap` / `wsec sta` re-read their configuration file (hostapd's and
/// wpa_supplicant's SIGHUP); a count, so that each BSS of a radio sees the signal.
pub static HUP: AtomicU64 = AtomicU64::new(0);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

extern "C" fn on_hup(_: libc::c_int) {
    HUP.fetch_add(1, Ordering::SeqCst);
}

/// Routes SIGINT and SIGTERM to [`STOP`].
pub fn install_signal_handlers() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
}

/// Routes SIGHUP to [`HUP`] (the nodes only: `wsec air` keeps the default, exit).
fn install_hup_handler() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGHUP, on_hup as extern "C" fn(libc::c_int) as libc::sighandler_t);
    }
}

/// What the BSSs of one radio share beside the medium: the PMKSAs of their 802.1X AKMs
/// for opportunistic key caching (hostapd `okc=1` looks in every BSS of its process,
/// `pmksa_cache_get_okc`) and their PMK-R0s for fast BSS transition between them (hostapd
/// hands RRB messages between the BSSs of its process directly).
#[derive(Clone, Default)]
struct RadioShare {
    bsses: Arc<Vec<RadioBss>>,
    okc: Option<Arc<wsec::node::ap::OkcGroup>>,
    ft: Option<Arc<wsec::node::ap::FtDomain>>,
}

/// The monotonic clock (ns since the first call) the engines measure their AEAD passes
/// with and the run loop its own parts ([`Profile`]).
pub fn mono_ns() -> u64 {
    static T0: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    T0.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// Where a node's run loop spent its time: waiting in ppoll, the medium's and the TAP's
/// system calls, the core (its crypto counted by the engine), the rest (control socket,
/// RADIUS, bookkeeping). Printed at exit with `--counters`: what `wsec bench live` reads.
#[derive(Debug, Default, Clone, Copy)]
struct Profile {
    wait_ns: u64,
    medium_ns: u64,
    tap_ns: u64,
    core_ns: u64,
}

impl Profile {
    /// Adds the time since `*t` to `slot` and moves `*t` to now.
    fn lap(slot: &mut u64, t: &mut u64) {
        let n = mono_ns();
        *slot += n.saturating_sub(*t);
        *t = n;
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
    let mut f = conf::parse_sta(&read_conf(p)?).map_err(|source| Error::Config { what: p.display().to_string(), source })?;
    // The EAP method's certificates and key, read now (a bad file is a start-up error).
    if let Some(e) = &f.eap {
        f.sta.eap = Some(e.load().map_err(|e| Error::Setup(format!("{}: {e}", p.display())))?);
    }
    Ok(f)
}

/// Where and how a node runs, beside its configuration file.
#[derive(Clone, Debug, Default)]
pub struct NodeOptions {
    /// The medium spec (`air:HOST:PORT`, `shm:NAME`, `packet:IFNAME`, ...); overrides the
    /// file's `medium=`.
    pub medium: Option<String>,
    /// Create the TAP inside this network namespace (the medium socket stays outside).
    pub netns: Option<String>,
    /// Add the TAP to this bridge (in the namespace).
    pub bridge: Option<String>,
    /// Print per-station counters every 10 s and at exit.
    pub counters: bool,
    /// The configuration file, re-read on SIGHUP and the control interface's
    /// RELOAD / RECONFIGURE (None: nothing to re-read).
    pub config: Option<std::path::PathBuf>,
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

/// Runs an access point until [`STOP`]: one BSS, or several on one radio (`bss=`
/// sections), each on its own thread with its own wired side, control socket and core,
/// the medium shared through [`medium::shared`].
pub fn run_ap(mut f: ApFile, o: &NodeOptions) -> Result<()> {
    let spec = o.medium.clone().or(f.medium.clone()).unwrap_or_else(|| DEFAULT_MEDIUM.into());
    if f.address_from_radio {
        let placeholder = f.ap.bssid;
        f.ap.bssid = radio_address(&spec)?;
        // hostapd's r1_key_holder defaults to the BSSID.
        if let Some(ft) = f.ap.ft.as_mut().filter(|ft| ft.r1kh_id == placeholder) {
            ft.r1kh_id = f.ap.bssid;
        }
    }
    f.assign_bssids();
    if let Some(b) = f.bss.iter().find(|b| b.ap.bssid == f.ap.bssid) {
        return Err(Error::Setup(format!("BSS '{}' may not have BSSID set to the MAC address of the radio ({})", b.interface, f.ap.bssid)));
    }
    // Each further BSS's interface on the radio: its `bss=` name with driver=nl80211, else
    // hostapd's old monitor naming beside its wired-side TAP.
    let vif = |b: &ApFile| b.vif.clone().unwrap_or_else(|| format!("mon.{}", b.interface).chars().take(15).collect());
    let more: Vec<(String, MacAddr)> = f.bss.iter().map(|b| (vif(b), b.ap.bssid)).collect();
    let medium = medium::open_bsses(&spec, f.ap.channel, f.ap.bssid, &more).map_err(|e| Error::io(format!("medium {spec}"), e))?;
    if f.bss.is_empty() {
        return serve_ap(f, o, medium, &spec, (0, 1), RadioShare::default());
    }
    let bsses = std::mem::take(&mut f.bss);
    let radio = RadioShare {
        bsses: Arc::new(
            std::iter::once(&f)
                .chain(&bsses)
                .map(|b| RadioBss { ifname: b.interface.clone(), bssid: b.ap.bssid, ssid: b.ap.ssid.clone(), num_sta: Default::default() })
                .collect(),
        ),
        okc: Some(wsec::node::ap::OkcGroup::new()),
        ft: Some(wsec::node::ap::FtDomain::new()),
    };
    let n = 1 + bsses.len();
    let (relay, ports) = medium::shared::split(medium, n).map_err(|e| Error::io("medium: the BSSs' ports", e))?;
    println!(
        "ap: {n} BSSs on {spec}: {}",
        std::iter::once(&f).chain(&bsses).map(|b| format!("{} {}", b.interface, b.ap.bssid)).collect::<Vec<_>>().join(", ")
    );
    install_signal_handlers();
    let mut threads = Vec::with_capacity(n);
    for (i, (b, port)) in std::iter::once(f).chain(bsses).zip(ports).enumerate() {
        let (o, spec, radio) = (o.clone(), spec.clone(), radio.clone());
        let t = std::thread::Builder::new().name(format!("bss{i}")).spawn(move || {
            let r = serve_ap(b, &o, Box::new(port), &spec, (i, n), radio);
            // As in hostapd, a BSS that cannot start takes the radio down with it.
            if r.is_err() {
                STOP.store(true, Ordering::SeqCst);
            }
            r
        });
        threads.push(t.map_err(|e| Error::io("BSS thread", e))?);
    }
    let relayed = relay.run();
    let mut first_err = None;
    for t in threads {
        let r = t.join().unwrap_or_else(|_| Err(Error::Setup("a BSS thread panicked".into())));
        if let Err(e) = r {
            first_err.get_or_insert(e);
        }
    }
    match relayed {
        Ok(m) if !m.is_empty() => println!("ap medium: {m}"),
        Ok(_) => {}
        Err(e) => {
            first_err.get_or_insert(Error::io("medium", e));
        }
    }
    first_err.map_or(Ok(()), Err)
}

/// One BSS on `medium` (the radio itself, or its port when the radio has several); `bss`
/// is which one of how many, `radio` what the control interface says of them all.
fn serve_ap(f: ApFile, o: &NodeOptions, medium: Box<dyn Medium>, spec: &str, bss: (usize, usize), radio: RadioShare) -> Result<()> {
    let channel = f.ap.channel;
    let bssid = f.ap.bssid;
    let bridge = o.bridge.clone().or(f.bridge.clone());
    let ctrl = open_ctrl(f.ctrl_interface.as_deref(), f.ctrl_interface_group.as_deref(), &f.interface)?;
    // The RADIUS socket, like the medium's, in the namespace the AP starts in (the TAP may
    // go into another).
    let radius = match &f.ap.dot1x {
        Some(_) => {
            let s = std::net::UdpSocket::bind(("0.0.0.0", 0)).map_err(|e| Error::io("RADIUS socket", e))?;
            s.set_nonblocking(true).map_err(|e| Error::io("RADIUS socket", e))?;
            println!("ap: RADIUS client on {}", s.local_addr().map_err(|e| Error::io("RADIUS socket", e))?);
            Some(s)
        }
        None => None,
    };
    // The RadSec servers' TLS settings, read now (a bad file is a start-up error); their
    // connections are made from this namespace too, when there is a packet for them.
    let mut radsec = crate::radsec::Radsec::new();
    if !f.radsec.is_empty() && o.netns.is_some() {
        // This thread's (the BSSs of one radio each enter their namespace on their own).
        radsec.set_home_netns(std::fs::File::open("/proc/thread-self/ns/net").map_err(|e| Error::io("RadSec: this network namespace", e))?);
    }
    for r in &f.radsec {
        let t = r.load().map_err(|e| Error::Setup(format!("RadSec server {}: {e}", r.addr)))?;
        radsec.add(r.kind, r.addr, t);
        println!(
            "ap: RadSec {} server {} (TLS, RFC 6614)",
            if r.kind == wsec::radius::Kind::Auth { "authentication" } else { "accounting" },
            r.addr
        );
    }
    // An FT AP is reached on the distribution system at its BSSID (RRB, FT over the DS):
    // its TAP, a port of the bridge, takes another address, else the bridge would keep
    // frames for the BSSID to itself as its port's own (hostapd listens on the bridge).
    let tap_mac = match &f.ap.ft {
        Some(_) => MacAddr([bssid.0[0] ^ 0x04, bssid.0[1], bssid.0[2], bssid.0[3], bssid.0[4], bssid.0[5]]),
        None => bssid,
    };
    let tap = host_side(&f.interface, o.netns.as_deref(), &tap_mac, bridge.as_deref(), f.tap_offload)?;
    let start = Instant::now();
    let threads = crypto_threads(f.ap.engine_threads)?;
    let mut fixed = Fixed::of_ap(&f);
    fixed.bss = bss;
    let mut core = AccessPoint::new(f.ap, 1, Box::new(OsRng)).map_err(|source| Error::Core { what: "ap", source })?;
    core.set_crypto_threads(threads);
    core.set_crypto_meter(Some(mono_ns));
    core.join_radio(&radio);
    let device = match &f.fpga {
        Some(o) => {
            let d = FpgaSim::start(o)?;
            core.set_crypto_device(Some(d.clone()));
            let i = d.info();
            println!(
                "ap: crypto_offload=fpga-sim: {} (Verilator model, {}){}",
                i.config,
                if i.rom == 3 { "key table of 32 slots" } else { "key in each descriptor" },
                if o.check { ", fpga_check=1: every result compared with the software" } else { "" }
            );
            Some(d)
        }
        None => None,
    };
    println!(
        "ap: bssid {} ssid \"{}\" on {spec}, wired side {}, crypto on {} thread(s)",
        bssid,
        String::from_utf8_lossy(&core.config().ssid),
        f.interface,
        core.datapath().threads()
    );
    let mut rt = Runtime::new(core, Sides { medium, tap, ctrl, start, device }, o, fixed, vec![channel]);
    rt.radius = radius;
    rt.radsec = radsec;
    rt.radio = radio;
    rt.run()
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
    let mut ctrl = open_ctrl(f.ctrl_interface.as_deref(), f.ctrl_interface_group.as_deref(), &f.interface)?;
    if let Some(c) = ctrl.as_mut() {
        c.scan.bgscan = f.bgscan;
    } else if f.bgscan.is_some() {
        // The BSS table with the signal levels lives with the control interface.
        println!("sta: bgscan needs ctrl_interface (the BSS table it reads): not used");
    }
    let tap = host_side(&f.interface, o.netns.as_deref(), &addr, None, f.tap_offload)?;
    let start = Instant::now();
    let threads = crypto_threads(f.sta.engine_threads)?;
    let fixed = Fixed::of_sta(&f);
    let mut core = Station::new(f.sta, 1, Box::new(OsRng)).map_err(|source| Error::Core { what: "sta", source })?;
    core.set_crypto_threads(threads);
    core.set_crypto_meter(Some(mono_ns));
    println!("sta: {addr} on {spec}, interface {}", f.interface);
    Runtime::new(core, Sides { medium, tap, ctrl, start, device: None }, o, fixed, scan).run()
}

/// The control socket of `ctrl_interface` (and `ctrl_interface_group`), if configured.
fn open_ctrl(dir: Option<&str>, group: Option<&str>, ifname: &str) -> Result<Option<Ctrl>> {
    let Some(d) = dir else { return Ok(None) };
    let spec = CtrlSpec::parse(d, group).map_err(|e| Error::Setup(format!("ctrl_interface: {e}")))?;
    let c = Ctrl::open(&spec, ifname).map_err(|e| Error::io(format!("ctrl_interface {}/{ifname}", spec.dir.display()), e))?;
    println!("ctrl_interface {}", c.sock.path().display());
    Ok(Some(c))
}

/// What a node keeps across reloads: the settings that need a restart to change (the
/// medium, the TAP, the addresses, the channel, the control socket).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fixed {
    interface: String,
    bridge: Option<String>,
    medium: Option<String>,
    addr: MacAddr,
    channel: u8,
    /// The station's `scan_freq` channels (the run loop hops over them).
    scan: Vec<u8>,
    ctrl: (Option<String>, Option<String>),
    /// Which BSS of the file this node serves, of how many (`bss=` sections).
    bss: (usize, usize),
}

impl Fixed {
    fn of_ap(f: &ApFile) -> Fixed {
        Fixed {
            interface: f.interface.clone(),
            bridge: f.bridge.clone(),
            medium: f.medium.clone(),
            addr: f.ap.bssid,
            channel: f.ap.channel,
            scan: vec![],
            ctrl: (f.ctrl_interface.clone(), f.ctrl_interface_group.clone()),
            bss: (0, 1 + f.bss.len()),
        }
    }
    fn of_sta(f: &StaFile) -> Fixed {
        Fixed {
            interface: f.interface.clone(),
            bridge: None,
            medium: f.medium.clone(),
            addr: f.sta.addr,
            channel: 0,
            scan: f.scan_channels.clone(),
            ctrl: (f.ctrl_interface.clone(), f.ctrl_interface_group.clone()),
            bss: (0, 1),
        }
    }
    /// The keys of `new` that differ from these and cannot change at run time.
    fn fixed_changes(&self, new: &Fixed) -> Vec<&'static str> {
        let mut v = Vec::new();
        if new.interface != self.interface {
            v.push("interface");
        }
        if new.bridge != self.bridge {
            v.push("bridge");
        }
        if new.medium != self.medium {
            v.push("medium");
        }
        if new.addr != self.addr {
            v.push(if self.channel == 0 { "addr" } else { "bssid" });
        }
        if new.channel != self.channel {
            v.push("channel");
        }
        if new.scan != self.scan {
            v.push("scan_freq");
        }
        if new.ctrl != self.ctrl {
            v.push("ctrl_interface");
        }
        if new.bss.1 != self.bss.1 {
            v.push("bss (the number of BSSs)");
        }
        v
    }
}

/// A core the run loop serves: [`wsec::node::Node`] with the control commands of its daemon, the
/// configuration file it is built from, and what it adds to the counters line.
trait Served: CtrlNode + Sized {
    /// The program's name at the start of its output lines ("ap", "sta").
    const WHO: &'static str;
    /// A new core from the configuration file `p`, the settings that need a restart
    /// taken from `fixed`; and those settings as the file has them.
    fn from_file(p: &Path, fixed: &Fixed, now: u64) -> Result<(Self, Fixed)>;
    /// Leaves the network before a reload replaces the core: as hostapd
    /// (`hostapd_reload_config` flushes the stations with reason 2, previous
    /// authentication no longer valid) or as wpa_supplicant (the station leaves, reason 3).
    fn leave_for_reload(&mut self, now: u64, out: &mut Output);
    /// What the counters line shows beyond the [`wsec::node::Counters`] and the engine's.
    fn counters_detail(&self) -> String {
        String::new()
    }
    /// Gives the new core of a reload the running hardware engine (access point only).
    fn attach_device(&mut self, _d: Arc<FpgaSim>) {}
    /// Joins what the BSSs of the radio share (access point only).
    fn join_radio(&mut self, _r: &RadioShare) {}
    /// Bounds the A-MSDUs the core sends (see `medium::amsdu_room`).
    fn limit_amsdu(&mut self, len: usize);
    /// A datagram on the RADIUS socket.
    fn radius_in(&mut self, _now: u64, _from: std::net::SocketAddr, _data: &[u8], _out: &mut Output) -> wsec::Result<()> {
        Err(wsec::Error::Unsupported("RADIUS"))
    }
    /// A packet on the RadSec connection of `kind`.
    fn radsec_in(&mut self, _now: u64, _kind: Kind, _from: std::net::SocketAddr, _data: &[u8], _out: &mut Output) -> wsec::Result<()> {
        Err(wsec::Error::Unsupported("RADIUS"))
    }
    /// The RadSec connection of `kind` to `addr` failed or closed.
    fn radsec_down(&mut self, _now: u64, _kind: Kind, _addr: std::net::SocketAddr, _out: &mut Output) {}
    /// The servers requests go to now (authentication, accounting).
    fn radius_servers(&self) -> [Option<std::net::SocketAddr>; 2] {
        [None, None]
    }
    /// The associated stations (an access point's `STATUS` of a radio with several BSSs).
    fn num_sta(&self) -> usize {
        0
    }
}

impl Served for AccessPoint {
    fn limit_amsdu(&mut self, len: usize) {
        Self::limit_amsdu(self, len);
    }
    const WHO: &'static str = "ap";
    fn from_file(p: &Path, fixed: &Fixed, now: u64) -> Result<(Self, Fixed)> {
        let all = load_ap(p)?;
        let count = 1 + all.bss.len();
        let (i, _) = fixed.bss;
        let mut f = if i == 0 {
            all
        } else {
            all.bss
                .into_iter()
                .nth(i - 1)
                .ok_or_else(|| Error::Setup(format!("the file has {count} BSS(s) now; this was BSS {}", i + 1)))?
        };
        if f.address_from_radio {
            let placeholder = f.ap.bssid;
            f.ap.bssid = fixed.addr; // the radio's (or assigned after it), read at start
                                     // hostapd's r1_key_holder defaults to the BSSID, as at start.
            if let Some(ft) = f.ap.ft.as_mut().filter(|ft| ft.r1kh_id == placeholder) {
                ft.r1kh_id = fixed.addr;
            }
        }
        let mut of_file = Fixed::of_ap(&f);
        of_file.bss = (i, count);
        f.ap.bssid = fixed.addr;
        f.ap.channel = fixed.channel;
        let threads = crypto_threads(f.ap.engine_threads)?;
        let mut new = AccessPoint::new(f.ap, now, Box::new(OsRng)).map_err(|source| Error::Core { what: Self::WHO, source })?;
        new.set_crypto_threads(threads);
        new.set_crypto_meter(Some(mono_ns));
        Ok((new, of_file))
    }
    fn leave_for_reload(&mut self, _now: u64, out: &mut Output) {
        self.deauth_all(ReasonCode::PREV_AUTH_NOT_VALID, out);
    }
    fn attach_device(&mut self, d: Arc<FpgaSim>) {
        self.set_crypto_device(Some(d));
    }
    fn join_radio(&mut self, r: &RadioShare) {
        if let Some(g) = r.okc.as_ref().filter(|_| self.config().okc) {
            self.join_okc_group(g.clone());
        }
        if let Some(d) = r.ft.as_ref().filter(|_| self.config().ft.is_some()) {
            self.join_ft_domain(d.clone());
        }
    }
    fn radius_in(&mut self, now: u64, from: std::net::SocketAddr, data: &[u8], out: &mut Output) -> wsec::Result<()> {
        self.handle_radius(now, from, data, out)
    }
    fn radsec_in(&mut self, now: u64, kind: Kind, from: std::net::SocketAddr, data: &[u8], out: &mut Output) -> wsec::Result<()> {
        self.handle_radius_kind(now, kind, from, data, out)
    }
    fn radsec_down(&mut self, now: u64, kind: Kind, addr: std::net::SocketAddr, out: &mut Output) {
        self.radius_transport_down(now, kind, addr, out)
    }
    fn radius_servers(&self) -> [Option<std::net::SocketAddr>; 2] {
        [self.radius_server_of(Kind::Auth), self.radius_server_of(Kind::Acct)]
    }
    fn num_sta(&self) -> usize {
        crate::ctrl::ap::num_sta(self)
    }
    /// Per station: frames and octets each way, drops.
    fn counters_detail(&self) -> String {
        let mut s = String::new();
        for (a, sc) in self.stations() {
            s += &format!(
                "\n  station {} rx {} ({} B) tx {} ({} B) dropped {}",
                a, sc.rx_data, sc.rx_bytes, sc.tx_data, sc.tx_bytes, sc.rx_dropped
            );
        }
        s
    }
}

impl Served for Station {
    fn limit_amsdu(&mut self, len: usize) {
        Self::limit_amsdu(self, len);
    }
    const WHO: &'static str = "sta";
    fn from_file(p: &Path, fixed: &Fixed, now: u64) -> Result<(Self, Fixed)> {
        let mut f = load_sta(p)?;
        if f.address_from_radio {
            f.sta.addr = fixed.addr;
        }
        let of_file = Fixed::of_sta(&f);
        f.sta.addr = fixed.addr;
        let threads = crypto_threads(f.sta.engine_threads)?;
        let mut new = Station::new(f.sta, now, Box::new(OsRng)).map_err(|source| Error::Core { what: Self::WHO, source })?;
        new.set_crypto_threads(threads);
        new.set_crypto_meter(Some(mono_ns));
        Ok((new, of_file))
    }
    fn leave_for_reload(&mut self, now: u64, out: &mut Output) {
        Station::shutdown(self, now, out);
    }
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
    /// Serve `shm:NAME` (shared memory, nodes on this host) instead of UDP.
    pub shm: Option<String>,
}

/// Runs the `air` hub until [`STOP`].
pub fn run_air(a: &AirOptions) -> Result<()> {
    install_signal_handlers();
    if let Some(name) = &a.shm {
        return run_air_shm(a, name);
    }
    let mut hub = medium::air::AirHub::bind(&a.listen, a.loss, a.seed, a.pcap.as_deref()).map_err(|e| Error::io("air", e))?;
    let addr = hub.local_addr().map_err(|e| Error::io("air", e))?;
    println!("air: listening on {addr}{}", a.pcap.as_ref().map(|p| format!(", recording to {}", p.display())).unwrap_or_default());
    let st = hub.run(&STOP).map_err(|e| Error::io("air", e))?;
    println!("air: {} frames ({} octets) carried, {} copies delivered, {} lost", st.frames, st.octets, st.copies, st.lost);
    Ok(())
}

/// `wsec air --shm NAME`: creates the segment, records it, frees dead nodes' entries;
/// removes the segment at exit.
fn run_air_shm(a: &AirOptions, name: &str) -> Result<()> {
    use medium::shm;
    let path = shm::path_of(name).map_err(|e| Error::Setup(e.to_string()))?;
    let mut hub = shm::ShmHub::create(&path, shm::Geometry::DEFAULT, a.loss, a.seed, a.pcap.as_deref())
        .map_err(|e| Error::io(format!("air: shm medium {}", path.display()), e))?;
    let g = hub.geometry();
    println!(
        "air: serving shm:{name} at {} ({} slots of {} octets){}",
        hub.path().display(),
        g.slots,
        g.slot_bytes,
        a.pcap.as_ref().map(|p| format!(", recording to {}", p.display())).unwrap_or_default()
    );
    let st = hub.run(&STOP).map_err(|e| Error::io("air", e))?;
    println!(
        "air: shm:{name}: {} frames ({} octets) carried, {} recorded, recorder lost {}, {} dead nodes' entries freed",
        st.frames, st.octets, st.recorded, st.record_lost, st.reaped
    );
    Ok(())
}

/// Enters the namespace (after the medium socket is open), creates and configures the TAP.
fn host_side(ifname: &str, netns: Option<&str>, mac: &MacAddr, bridge: Option<&str>, offload: bool) -> Result<Tap> {
    if let Some(ns) = netns {
        medium::netns::enter(ns).map_err(|e| Error::io(format!("netns {ns}"), e))?;
    }
    let tap = Tap::create_with(ifname, crate::medium::tap::TapOptions { offload })
        .map_err(|e| Error::io(format!("TAP {ifname} (needs root and /dev/net/tun)"), e))?;
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

/// What a node's run loop drives besides the core: the medium, the TAP, the control
/// socket, and when it started (its clock's zero).
struct Sides {
    medium: Box<dyn Medium>,
    tap: Tap,
    ctrl: Option<Ctrl>,
    start: Instant,
    /// The hardware engine (`crypto_offload=fpga-sim`, access point only).
    device: Option<Arc<FpgaSim>>,
}

/// One node's run loop: a core ([`Served`]) and everything around it.
struct Runtime<N> {
    core: N,
    /// The program's name at the start of its lines (`ap@IFNAME` for one BSS of several).
    who: String,
    medium: Box<dyn Medium>,
    tap: Tap,
    ctrl: Option<Ctrl>,
    start: Instant,
    /// Print the counters every 10 s.
    counters: bool,
    /// The channels a scanning station moves over (the first one only: it stays).
    channels: Vec<u8>,
    /// The configuration file a reload re-reads.
    config: Option<std::path::PathBuf>,
    /// The settings a reload keeps.
    fixed: Fixed,
    /// Serving: false after the control interface's DISABLE (AP) or DISCONNECT (station).
    enabled: bool,
    /// Frames from the medium with a bad FCS.
    bad_fcs: u64,
    out: Output,
    device: Option<Arc<FpgaSim>>,
    /// The RADIUS client's socket (authentication and accounting; an 802.1X AP only).
    radius: Option<std::net::UdpSocket>,
    /// The RadSec connections (`*_server_type=TLS`).
    radsec: crate::radsec::Radsec,
    /// The servers last seen active, to log a move.
    radius_active: [Option<std::net::SocketAddr>; 2],
    /// The BSSs of the radio when it has several (this one's station count kept current)
    /// and what they share.
    radio: RadioShare,
    prof: Profile,
    /// Engine time of the cores a reload replaced.
    crypto_ns_before: u64,
    /// [`mono_ns`] when the loop was made.
    start_mono: u64,
}

impl<N: Served> Runtime<N> {
    fn new(mut core: N, sides: Sides, o: &NodeOptions, fixed: Fixed, channels: Vec<u8>) -> Runtime<N> {
        let Sides { medium, tap, ctrl, start, device } = sides;
        // An A-MSDU the medium cannot carry would be lost whole (a monitor interface
        // refuses frames over its MTU): the core packs to what fits.
        core.limit_amsdu(medium::amsdu_room(medium.max_mpdu()));
        let who = if fixed.bss.1 > 1 { format!("{}@{}", N::WHO, fixed.interface) } else { N::WHO.to_string() };
        Runtime {
            core,
            who,
            medium,
            tap,
            ctrl,
            start,
            counters: o.counters,
            channels,
            config: o.config.clone(),
            fixed,
            enabled: true,
            bad_fcs: 0,
            out: Output::default(),
            device,
            radius: None,
            radsec: crate::radsec::Radsec::new(),
            radius_active: [None, None],
            radio: RadioShare::default(),
            prof: Profile::default(),
            crypto_ns_before: 0,
            start_mono: mono_ns(),
        }
    }

    /// The loop, until [`STOP`].
    fn run(mut self) -> Result<()> {
        install_signal_handlers();
        install_hup_handler();
        let who = self.who.clone();
        let who = who.as_str();
        let start = self.start;
        let now = move || start.elapsed().as_nanos() as u64 + 1;
        let mut batch: Vec<(Vec<u8>, std::ops::Range<usize>)> = Vec::with_capacity(BATCH);
        let mut host = crate::medium::vnet::Frames::new();
        let mut last_tick = now();
        let mut last_counters = now();
        let (mut ch_idx, mut on_channel_since) = (0usize, now());
        let mut rbuf = [0u8; wsec::radius::packet::MAX_LEN];
        let mut seen_hups = HUP.load(Ordering::SeqCst);
        loop {
            if STOP.load(Ordering::SeqCst) {
                let t = now();
                if self.enabled {
                    self.core.shutdown(t, &mut self.out);
                }
                self.flush(t)?;
                if let Some(c) = self.ctrl.as_mut() {
                    c.sock.event("CTRL-EVENT-TERMINATING ");
                }
                break;
            }
            // The engine failed (a mismatch under fpga_check, the model gone): stop, saying why.
            if let Some(msg) = self.device.as_ref().and_then(|d| d.failed()) {
                let t = now();
                self.core.shutdown(t, &mut self.out);
                let _ = self.flush(t);
                println!("{who} counters: {}; bad FCS {}", self.counters_line(), self.bad_fcs);
                return Err(Error::Setup(format!("crypto_offload=fpga-sim: {msg}")));
            }
            let hups = HUP.load(Ordering::SeqCst);
            if hups != seen_hups {
                seen_hups = hups;
                let t = now();
                self.do_reload(t);
                self.flush(t)?;
            }
            let t = now();
            // ppoll: ns resolution, so the card model's service times are not rounded to ms.
            let due = if self.enabled { self.core.poll_timeout() } else { u64::MAX };
            let due = self.radsec.next_timeout().map_or(due, |r| due.min(r));
            let mut wait = due.saturating_sub(t).min(500_000_000);
            // Frames already on the medium (a batch left some): look, do not sleep.
            if self.medium.prepare_wait().map_err(|e| Error::io("medium", e))? {
                wait = 0;
            }
            let ts = libc::timespec { tv_sec: (wait / 1_000_000_000) as libc::time_t, tv_nsec: (wait % 1_000_000_000) as libc::c_long };
            let mut fds = vec![
                libc::pollfd { fd: self.medium.fd(), events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: self.tap.fd(), events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: self.ctrl.as_ref().map_or(-1, |c| c.sock.fd()), events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: self.radius.as_ref().map_or(-1, std::os::fd::AsRawFd::as_raw_fd), events: libc::POLLIN, revents: 0 },
            ];
            fds.extend(self.radsec.pollfds());
            let mut lap = mono_ns();
            // SAFETY: fds is a valid array of pollfd of its length (a negative fd is
            // ignored); ts a valid timespec; no signal mask.
            unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, &ts, core::ptr::null()) };
            Profile::lap(&mut self.prof.wait_ns, &mut lap);
            let t = now();
            // The RadSec connections: packets to the core, a failed or closed connection
            // logged with why and reported (the client fails over or sends again).
            for h in self.radsec.poll(t) {
                match h {
                    crate::radsec::Happening::Packet { kind, from, data } => {
                        if let Err(e) = self.core.radsec_in(t, kind, from, &data, &mut self.out) {
                            println!("{who} radius: discarded a packet from RadSec server {from}: {e}");
                        }
                    }
                    crate::radsec::Happening::Up { kind, addr, version } => {
                        println!("{who} radius: RadSec {kind:?} connection to {addr} up ({version})");
                    }
                    crate::radsec::Happening::Down { kind, addr, why } => {
                        println!("{who} radius: {why}");
                        self.core.radsec_down(t, kind, addr, &mut self.out);
                    }
                }
            }
            let active = self.core.radius_servers();
            for (i, k) in ["authentication", "accounting"].iter().enumerate() {
                if active[i] != self.radius_active[i] {
                    if let (Some(from), Some(to)) = (self.radius_active[i], active[i]) {
                        println!("{who} radius: {k} server {from} -> {to}");
                    }
                }
            }
            self.radius_active = active;
            // RADIUS answers (at most 64 per turn): a discarded one is logged with why
            // (RFC 2865 3: silently, towards the server).
            for _ in 0..64 {
                let Some(sock) = self.radius.as_ref() else { break };
                match sock.recv_from(&mut rbuf) {
                    Ok((n, from)) => {
                        if let Err(e) = self.core.radius_in(t, from, &rbuf[..n], &mut self.out) {
                            println!("{who} radius: discarded a datagram from {from}: {e}");
                        }
                    }
                    // ECONNREFUSED of an earlier send to a server that is down: the
                    // client's retransmission and failover deal with it.
                    Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {}
                    Err(_) => break,
                }
            }
            self.flush(t)?;
            // Each frame is read into a buffer of the batch kept from turn to turn; the
            // MPDU is where it lies in it (no copy out of the radiotap frame).
            let mut n = 0;
            lap = mono_ns();
            while n < BATCH {
                if batch.len() == n {
                    batch.push((Vec::with_capacity(2048), 0..0));
                }
                let (buf, span) = &mut batch[n];
                if !self.medium.recv(buf).map_err(|e| Error::io("medium", e))? {
                    break;
                }
                match medium::decap(buf) {
                    Ok(m) => {
                        if let Some(c) = self.ctrl.as_mut() {
                            self.core.heard(c, t, m, buf);
                        }
                        let start = m.as_ptr() as usize - buf.as_ptr() as usize;
                        *span = start..start + m.len();
                        n += 1;
                    }
                    Err(_) => self.bad_fcs += 1,
                }
            }
            Profile::lap(&mut self.prof.medium_ns, &mut lap);
            if n > 0 && self.enabled {
                self.core.handle_air_batch(t, batch[..n].iter().map(|(f, span)| &f[span.clone()]), &mut self.out);
                Profile::lap(&mut self.prof.core_ns, &mut lap);
                self.flush(t)?;
            }
            lap = mono_ns();
            // From the host: whole packets (a TCP super-packet of the offloading TAP is cut
            // into MTU-sized frames there) until the batch is full.
            host.clear();
            for _ in 0..BATCH {
                match self.tap.recv_batch(&mut host) {
                    Ok(0) => break,
                    Ok(_) if host.len() >= BATCH => break,
                    Ok(_) => {}
                    // A packet the offload code refused: counted in the TAP's stats, dropped.
                    Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {}
                    Err(e) => return Err(Error::io("TAP", e)),
                }
            }
            Profile::lap(&mut self.prof.tap_ns, &mut lap);
            if !host.is_empty() && self.enabled {
                self.core.handle_host_batch(t, host.iter(), &mut self.out);
                Profile::lap(&mut self.prof.core_ns, &mut lap);
                self.flush(t)?;
            }
            if self.enabled && self.core.poll_timeout() <= t {
                lap = mono_ns();
                self.core.handle_timeout(t, &mut self.out);
                Profile::lap(&mut self.prof.core_ns, &mut lap);
                self.flush(t)?;
            }
            self.control(t);
            self.flush(t)?;
            if self.channels.len() > 1 && self.core.scanning() {
                if t - on_channel_since > SCAN_DWELL_NS {
                    ch_idx = (ch_idx + 1) % self.channels.len();
                    on_channel_since = t;
                    self.medium.set_channel(self.channels[ch_idx]).map_err(|e| Error::io("medium: channel", e))?;
                }
            } else {
                on_channel_since = t;
            }
            if t - last_tick > 1_000_000_000 {
                last_tick = t;
                self.publish_num_sta();
                self.medium.tick().map_err(|e| Error::io("medium", e))?;
            }
            if self.counters && t - last_counters > 10_000_000_000 {
                last_counters = t;
                println!("{who} counters: {}", self.counters_line());
            }
        }
        println!("{who} counters: {}; bad FCS {}", self.counters_line(), self.bad_fcs);
        if let Some(d) = &self.device {
            println!("{who} engine: {}", d.report(self.start.elapsed()));
        }
        let m = self.medium.describe();
        if !m.is_empty() {
            println!("{who} medium: {m}");
        }
        self.print_profile();
        let s = self.tap.stats();
        println!(
            "{who} tap: {} ({}), frames in {} out {}, reads {} writes {}, super-packets in {} ({} octets), coalesced writes {}, refused {}",
            self.tap.name(),
            if self.tap.offloads().is_some() { "offloads" } else { "no offloads" },
            s.frames_in,
            s.frames_out,
            s.reads,
            s.writes,
            s.gso_reads,
            s.gso_octets,
            s.coalesced,
            s.refused
        );
        Ok(())
    }

    /// What the core put out goes to the control interface's monitors (events), the
    /// medium, the TAP and standard output (events).
    fn flush(&mut self, t: u64) -> Result<()> {
        if let Some(c) = self.ctrl.as_mut() {
            self.core.events(c, &self.out.events);
        }
        let mut lap = mono_ns();
        if !self.out.air.is_empty() {
            for f in self.out.air.drain(..) {
                self.medium.send(&f).map_err(|e| Error::io("medium", e))?;
            }
            // The end of a burst: receivers that sleep are woken once for all of it.
            self.medium.flush().map_err(|e| Error::io("medium", e))?;
        }
        Profile::lap(&mut self.prof.medium_ns, &mut lap);
        if !self.out.host.is_empty() {
            // One write per TCP run on an offloading TAP (coalesced), else per frame.
            self.tap.send_batch(&self.out.host).map_err(|e| Error::io("TAP", e))?;
            self.out.host.clear();
            Profile::lap(&mut self.prof.tap_ns, &mut lap);
        }
        for r in self.out.radius.drain(..) {
            if r.tls {
                if let Err(e) = self.radsec.send(r.kind, r.to, r.data) {
                    println!("{} radius: {e} (TLS settings change at restart)", self.who);
                }
                continue;
            }
            if let Some(s) = self.radius.as_ref() {
                if let Err(e) = s.send_to(&r.data, r.to) {
                    println!("{} radius: sending to {}: {e}", self.who, r.to);
                }
            }
        }
        let mut lock = std::io::stdout().lock();
        for e in self.out.events.drain(..) {
            let _ = writeln!(lock, "{} {:>12.6} {e}", self.who, t as f64 / 1e9);
        }
        Ok(())
    }

    /// The profile line (see [`Profile`]): the loop's wall time, waiting, and the shares of
    /// the busy time.
    fn print_profile(&self) {
        let p = self.prof;
        let total = mono_ns().saturating_sub(self.start_mono);
        let busy = total.saturating_sub(p.wait_ns).max(1);
        let crypto = self.crypto_ns_before + self.core.datapath().crypto_ns();
        let pc = |x: u64| 100.0 * x as f64 / busy as f64;
        let other = busy.saturating_sub(p.medium_ns + p.tap_ns + p.core_ns);
        println!(
            "{} profile: wall {:.1} ms, waiting {:.1} ms, busy {:.1} ms: medium I/O {:.1} %, TAP I/O {:.1} %, core {:.1} % (crypto {:.1} %), other {:.1} %",
            self.who,
            total as f64 / 1e6,
            p.wait_ns as f64 / 1e6,
            busy as f64 / 1e6,
            pc(p.medium_ns),
            pc(p.tap_ns),
            pc(p.core_ns),
            pc(crypto),
            pc(other)
        );
    }

    /// The core's counters, then the host engine's and the card's.
    fn counters_line(&self) -> String {
        let dp = self.core.datapath();
        let (e, card) = (dp.engine_stats(), dp.card().busy_ns());
        format!(
            "{}{}\n  engine protected {} unprotected {} octets {} card busy {} ns; batches sealed {} ({} frames), opened {} ({} frames)",
            self.core.counters(),
            self.core.counters_detail(),
            e.protected,
            e.unprotected,
            e.octets,
            card,
            e.batches,
            e.batch_frames,
            e.open_batches,
            e.open_batch_frames
        )
    }

    /// Re-reads the configuration file (SIGHUP, RELOAD, RECONFIGURE) and starts a new
    /// core from it; the old one leaves first ([`Served::leave_for_reload`]), so every
    /// station joins again under the new settings (a new passphrase: a new PMK, new
    /// handshakes). Settings that need a restart keep their old values and are reported,
    /// not silently ignored. A file that does not parse changes nothing ("continuing with
    /// the old configuration").
    fn reload(&mut self, now: u64) -> Result<Vec<&'static str>> {
        let p = self.config.as_deref().ok_or_else(|| Error::Setup("no configuration file to re-read".into()))?;
        let (mut new, of_file) = N::from_file(p, &self.fixed, now)?;
        let changed = self.fixed.fixed_changes(&of_file);
        self.core.leave_for_reload(now, &mut self.out);
        *new.counters_mut() = self.core.counters().clone();
        self.crypto_ns_before += self.core.datapath().crypto_ns();
        self.core = new;
        self.core.limit_amsdu(medium::amsdu_room(self.medium.max_mpdu()));
        if let Some(d) = &self.device {
            self.core.attach_device(d.clone());
        }
        self.core.join_radio(&self.radio);
        Ok(changed)
    }

    /// A reload, its outcome printed: the settings that kept their old values, or why the
    /// file was refused (the node goes on with the old configuration). False if refused.
    fn do_reload(&mut self, t: u64) -> bool {
        let who = self.who.clone();
        match self.reload(t) {
            Ok(kept) => {
                println!("{who}: configuration reloaded");
                for k in kept {
                    println!("{who}: reload: {k} cannot change at run time (restart to apply); the old value stays");
                }
                true
            }
            Err(e) => {
                println!("{who}: reload refused, continuing with the old configuration: {e}");
                false
            }
        }
    }

    /// This BSS's station count where the other BSSs of the radio read it.
    fn publish_num_sta(&self) {
        if let Some(b) = self.radio.bsses.get(self.fixed.bss.0) {
            b.num_sta.store(self.core.num_sta(), Ordering::Relaxed);
        }
    }

    /// The requests waiting on the control socket, answered one by one.
    fn control(&mut self, t: u64) {
        let Some(c) = self.ctrl.as_mut() else { return };
        self.core.tick(c, t);
        self.core.act(c, t, &mut self.out);
        // A bounded number per turn, so a flood of requests cannot starve the medium.
        for _ in 0..16 {
            let Some(c) = self.ctrl.as_mut() else { return };
            let (req, from) = match c.sock.recv() {
                Ok(Some(r)) => r,
                Ok(None) => return,
                Err(e) => {
                    println!("{}: ctrl_interface: {e}", self.who);
                    return;
                }
            };
            let ctx = Ctx {
                now: t,
                ifname: &self.fixed.interface,
                enabled: self.enabled,
                started: self.start,
                bad_fcs: self.bad_fcs,
                config: self.config.as_deref(),
                radio: &self.radio.bsses,
            };
            let (mut reply, act) = c.request(&mut self.core, &req, &from, &ctx, &mut self.out);
            match act {
                Some(Action::Reload) => {
                    let reloaded = self.do_reload(t);
                    if !reloaded {
                        reply = "FAIL\n".into();
                    }
                }
                Some(Action::Pause | Action::Resume) => {
                    self.enabled = act == Some(Action::Resume);
                    if let (Some(c), Some(e)) = (self.ctrl.as_mut(), self.core.serving_event(self.enabled)) {
                        c.sock.event(e);
                    }
                }
                Some(Action::Terminate) => STOP.store(true, Ordering::SeqCst),
                None => {}
            }
            if let Some(c) = self.ctrl.as_ref() {
                c.sock.reply(&from, &reply);
            }
        }
    }
}

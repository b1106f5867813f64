//! `wsec ap`, `wsec sta`, `wsec air`: the live system's programs. Each puts the medium, a
//! TAP device and the clock around a sans-IO core of `wsec::node` (`wsec_live::runtime`,
//! docs/live.md); here only their arguments.
use clap::Args;
use std::path::PathBuf;
use wsec_live::runtime::{self, AirOptions, NodeOptions};

#[derive(Args)]
pub struct ApArgs {
    /// hostapd.conf-style configuration (docs/live.md lists the keys)
    #[arg(short, long)]
    config: PathBuf,
    /// The medium: air:HOST:PORT (the `wsec air` hub), shm:NAME (`wsec air --shm NAME`) or
    /// packet:IFNAME (overrides `medium=`)
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
    /// The medium: air:HOST:PORT, shm:NAME or packet:IFNAME (overrides `medium=`)
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
    /// Serve the shared-memory medium shm:NAME (/dev/shm/wsec-air-NAME) for nodes on
    /// this host instead of UDP (`--listen` is not used)
    #[arg(long, value_name = "NAME")]
    shm: Option<String>,
}

/// Runs `wsec air`: a bad `--listen` address or `--loss` is a usage error (exit 2), a failure
/// while running exit 1.
pub fn air(a: AirArgs) -> Result<(), (u8, String)> {
    use std::net::ToSocketAddrs;
    if a.listen.to_socket_addrs().map_or(true, |mut it| it.next().is_none()) {
        return Err((2, format!("--listen {}: not an address of the form HOST:PORT (e.g. 127.0.0.1:7411)", a.listen)));
    }
    if !(0.0..=1.0).contains(&a.loss) {
        return Err((2, format!("--loss {}: a probability from 0 to 1", a.loss)));
    }
    if let Some(name) = &a.shm {
        wsec_live::medium::shm::path_of(name).map_err(|e| (2, format!("--shm: {e}")))?;
    }
    runtime::run_air(&AirOptions { listen: a.listen, pcap: a.pcap, loss: a.loss, seed: a.seed, shm: a.shm }).map_err(|e| (1, e.to_string()))
}

/// Runs `wsec ap`: a configuration file that does not exist is exit 1, one that cannot be
/// read or parsed a usage error (exit 2), a failure while running exit 1.
pub fn ap(a: ApArgs) -> Result<(), (u8, String)> {
    crate::inputs_exist([a.config.as_path()])?;
    let f = runtime::load_ap(&a.config).map_err(|e| (2, e.to_string()))?;
    let o = NodeOptions { medium: a.medium, netns: a.netns, bridge: a.bridge, counters: a.counters, config: Some(a.config.clone()) };
    runtime::run_ap(f, &o).map_err(|e| (1, e.to_string()))
}

/// Runs `wsec sta`; exit codes as [`ap`].
pub fn sta(a: StaArgs) -> Result<(), (u8, String)> {
    crate::inputs_exist([a.config.as_path()])?;
    let f = runtime::load_sta(&a.config).map_err(|e| (2, e.to_string()))?;
    let o = NodeOptions { medium: a.medium, netns: a.netns, bridge: None, counters: a.counters, config: Some(a.config.clone()) };
    runtime::run_sta(f, &o).map_err(|e| (1, e.to_string()))
}

/// Which frames of a capture `wsec inject` puts on the air.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum InjectSelect {
    /// Every frame
    All,
    /// EAPOL-Key message 1 of the 4-way handshake
    EapolM1,
    /// EAPOL-Key message 3 (a replayed M3 is the key reinstallation attack's trigger)
    EapolM3,
    /// EAPOL-Key group message 1
    EapolG1,
}

#[derive(Args)]
pub struct InjectArgs {
    /// A capture (pcap/pcapng, any 802.11 link type) whose frames are sent again as they are
    capture: PathBuf,
    /// The medium: radio:IFNAME (taken over as a monitor), packet:IFNAME or air:HOST:PORT
    #[arg(long)]
    medium: String,
    /// Channel of a radio medium
    #[arg(long, default_value_t = 6)]
    channel: u8,
    /// Which frames to send
    #[arg(long, value_enum, default_value = "all")]
    select: InjectSelect,
    /// Send only the last N selected frames (0: all of them)
    #[arg(long, default_value_t = 0)]
    last: usize,
    /// Times each frame is sent
    #[arg(long, default_value_t = 1)]
    repeat: u32,
}

/// The EAPOL-Key message an unprotected data MPDU carries (802.1X-2010 11.3 with the
/// LLC/SNAP header of IEEE 802.11-2020 5.1.5; key information per 12.7.2).
fn eapol_msg(mpdu: &[u8]) -> Option<wsec::rsn::handshake::Msg> {
    use wsec::wire::mac::FrameControl;
    let fc = FrameControl(u16::from_le_bytes([*mpdu.first()?, *mpdu.get(1)?]));
    if !fc.is_data() || fc.protected() {
        return None;
    }
    let body = mpdu.get(fc.header_len().ok()?..)?;
    if body.get(..8)? != [0xaa, 0xaa, 0x03, 0, 0, 0, 0x88, 0x8e] || *body.get(9)? != 3 {
        return None;
    }
    let key = body.get(12..)?;
    let ki = wsec::rsn::eapol::KeyInfo(u16::from_be_bytes([*key.get(1)?, *key.get(2)?]));
    let kd_len = u16::from_be_bytes([*key.get(93)?, *key.get(94)?]) as usize;
    wsec::rsn::handshake::Msg::classify(ki, kd_len)
}

/// Runs `wsec inject`: frames of a capture back onto a medium (a replay tool, as
/// aireplay-ng's; the interop lab replays M3 with it).
pub fn inject(a: InjectArgs) -> Result<String, (u8, String)> {
    use wsec::capture::radio::mpdu;
    use wsec::rsn::handshake::Msg;
    // The capture is input: missing, unreadable or damaged is exit 1 (docs/cli.md).
    let reader = wsec::capture::CaptureReader::open(&a.capture).map_err(|e| (1, format!("{}: {e}", a.capture.display())))?;
    let mut frames = Vec::new();
    for p in reader {
        let p = p.map_err(|e| (1, format!("{}: {e}", a.capture.display())))?;
        let Ok(m) = mpdu(p.linktype, &p.data) else { continue };
        let want = match a.select {
            InjectSelect::All => true,
            InjectSelect::EapolM1 => eapol_msg(m.bytes) == Some(Msg::M1),
            InjectSelect::EapolM3 => eapol_msg(m.bytes) == Some(Msg::M3),
            InjectSelect::EapolG1 => eapol_msg(m.bytes) == Some(Msg::G1),
        };
        if want {
            frames.push(m.bytes.to_vec());
        }
    }
    if a.last > 0 && frames.len() > a.last {
        frames.drain(..frames.len() - a.last);
    }
    if frames.is_empty() {
        return Err((1, format!("{}: no frame selected", a.capture.display())));
    }
    // The injector's own address: locally administered, not any node's.
    let own = wsec::wire::mac::MacAddr([0x02, 0x77, 0x73, 0x65, 0x63, 0x00]);
    let mut m = wsec_live::medium::open(&a.medium, a.channel, own).map_err(|e| (1, format!("medium {}: {e}", a.medium)))?;
    let mut sent = 0;
    for f in &frames {
        for _ in 0..a.repeat {
            m.send(f).and_then(|_| m.flush()).map_err(|e| (1, format!("medium {}: {e}", a.medium)))?;
            sent += 1;
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    Ok(format!("inject: {sent} frame(s) sent on {}", a.medium))
}

#[derive(Args)]
pub struct LoadArgs {
    /// wpa_supplicant.conf-style configuration with one network={...} block: the security
    /// every emulated station uses (the format's addr= and interface= are required but not
    /// used: the stations are 02:4c:44:00:HI:LO)
    #[arg(short, long)]
    config: PathBuf,
    /// The medium all stations share: air:HOST:PORT, radio:IFNAME (taken over as an active
    /// monitor on the first station's address), packet:IFNAME, or hwsim:RADIO[,RADIO...]
    /// (this process registers as the medium of the mac80211_hwsim radios, wmediumd's
    /// interface, delivers the stations' frames to the listed radios and acknowledges
    /// frames to every station)
    #[arg(long)]
    medium: String,
    /// Channel of a radio medium
    #[arg(long, default_value_t = 6)]
    channel: u8,
    /// Stations to emulate (1 to 2007); their addresses are 02:4c:44:00:HI:LO, i = 0..N-1
    #[arg(long, default_value_t = 50)]
    stations: usize,
    /// Stations joining at the same time
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    /// ARP requests each established station sends to --ap-ip (0: no traffic phase)
    #[arg(long, default_value_t = 3)]
    frames: u32,
    /// The AP's IPv4 address; the stations are 10.9.1.0 onwards (the AP's host needs a
    /// route to them: a /16 on 10.9.0.0)
    #[arg(long, default_value = "10.9.0.1")]
    ap_ip: std::net::Ipv4Addr,
    /// Seconds a station may take to join before it counts as a failure
    #[arg(long, default_value_t = 30)]
    join_timeout: u64,
    /// Seconds the fill phase may take in all
    #[arg(long, default_value_t = 600)]
    fill_timeout: u64,
    /// The AP's process: its resident set (VmRSS, VmHWM) goes into the report
    #[arg(long)]
    ap_pid: Option<u32>,
    /// Milliseconds a station waits for an Authentication or Association Response (and
    /// between Probe Requests) before it sends again (default: the configuration's, 200 as
    /// wsec sta; mac80211 waits 500 for an acknowledged request)
    #[arg(long)]
    retry_ms: Option<u64>,
    /// Print the report as one JSON object
    #[arg(long)]
    json: bool,
    /// A progress line on standard error every 10 s
    #[arg(long)]
    progress: bool,
}

/// Runs `wsec load`: a bad option is a usage error (exit 2), a configuration that does not
/// exist exit 1; the report is printed, and the exit is 1 unless every station joined and,
/// with --frames, got every reply.
pub fn load(a: LoadArgs) -> Result<String, (u8, String)> {
    use wsec_live::load::{self, LoadOptions};
    crate::inputs_exist([a.config.as_path()])?;
    let mut f = runtime::load_sta(&a.config).map_err(|e| (2, e.to_string()))?;
    match a.retry_ms {
        Some(0) => return Err((2, "--retry-ms 0: a station must wait for the AP's answer".into())),
        Some(ms) => f.sta.retry_ms = ms,
        None => {}
    }
    let o = LoadOptions {
        stations: a.stations,
        concurrency: a.concurrency,
        frames: a.frames,
        ap_ip: a.ap_ip.octets(),
        join_timeout: std::time::Duration::from_secs(a.join_timeout.max(1)),
        fill_timeout: std::time::Duration::from_secs(a.fill_timeout.max(1)),
        reply_timeout: std::time::Duration::from_secs(5),
        ap_pid: a.ap_pid,
        progress: a.progress,
    };
    o.check().map_err(|e| (2, e))?;
    if let Some(pid) = a.ap_pid {
        if load::rss_kib(&pid.to_string()).is_none() {
            return Err((2, format!("--ap-pid {pid}: no such process (/proc/{pid}/status)")));
        }
    }
    runtime::install_signal_handlers();
    // hwsim: the process is the medium of the hwsim radios and acknowledges every emulated
    // station's frames itself (no interface per station).
    let opened: std::io::Result<Box<dyn wsec_live::medium::Medium>> = match a.medium.strip_prefix("hwsim:") {
        Some(radios) => wsec_live::medium::hwsim::Hwsim::open(radios, a.channel, (0..a.stations).map(|i| load::station_addr(i).0))
            .map(|h| Box::new(h) as Box<dyn wsec_live::medium::Medium>),
        None => wsec_live::medium::open(&a.medium, a.channel, load::station_addr(0)),
    };
    let mut m = opened.map_err(|e| (1, format!("medium {}: {e}", a.medium)))?;
    let r = load::run(&f.sta, m.as_mut(), &o, &runtime::STOP).map_err(|e| (1, e.to_string()))?;
    let medium_counters = m.describe();
    if !medium_counters.is_empty() {
        eprintln!("load: {medium_counters}");
    }
    let text = if a.json { r.json() } else { r.to_string() };
    let complete = r.established == r.stations && (a.frames == 0 || r.stations_all_replies == r.stations);
    if complete {
        Ok(text)
    } else {
        println!("{text}");
        Err((1, format!("load: {} of {} stations established, {} with every reply", r.established, r.stations, r.stations_all_replies)))
    }
}

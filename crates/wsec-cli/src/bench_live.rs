//! `wsec bench live`: the demo topology (`wsec air`, `wsec ap`, two `wsec sta`, a wired
//! host, each in its own namespace) measured as a data plane rather than a demo: per mode,
//! TCP from station 1 to the wired host with iperf3 (when installed; else the lab's own
//! checked transfer), ping RTT during that transfer, the wsec processes' CPU time per
//! Gb moved, the AP's data frames per second, and where each node's run loop spent its
//! busy time (the `profile:` line each node prints at exit: medium I/O, TAP I/O, core,
//! crypto). The same run measures a veth pair between two namespaces with the same tool,
//! the ceiling of any userspace data path on this machine, and prints the ratio.
use clap::Args;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wsec_cli::lab::{Lab, Mode, WIRED_IP};

#[derive(Args)]
pub struct LiveArgs {
    /// Modes to measure, comma-separated (`wsec demo`'s names)
    #[arg(long, default_value = "open,wpa2-host,enhanced")]
    modes: String,
    /// Seconds of TCP per measurement
    #[arg(long, default_value_t = 5)]
    seconds: u64,
    /// The nodes' TAPs with offloads (1) or one frame per system call (0)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=1))]
    tap_offload: u8,
    /// The AP engine's crypto threads (`engine_threads`; 0: one per core)
    #[arg(long, default_value_t = 1)]
    engine_threads: usize,
    /// The medium: the `air` hub on loopback UDP (air) or its shared memory (shm)
    #[arg(long, default_value = "shm", value_parser = clap::builder::PossibleValuesParser::new(["air", "shm"]))]
    medium: String,
    /// The traffic tool: iperf3, builtin (the lab's transfer with its SHA-256 check), or
    /// auto (iperf3 when installed)
    #[arg(long, default_value = "auto", value_parser = clap::builder::PossibleValuesParser::new(["auto", "iperf3", "builtin"]))]
    tool: String,
    /// The AP an HT QoS AP (1: `ieee80211n=1`, A-MSDUs of up to 7935 octets both ways) or
    /// not (0: one MSDU per MPDU)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=1))]
    ht: u8,
}

/// One mode's figures.
struct Row {
    mode: String,
    gbps: f64,
    rtt_ms: Option<f64>,
    ap_frames_per_s: Option<f64>,
    cpu_s_per_gb: Option<f64>,
    ap_profile: Option<ProfileShares>,
    sta_profile: Option<ProfileShares>,
    /// The nodes' `tap:` lines (what their TAPs did).
    tap_lines: Vec<String>,
}

/// The shares of a node's busy time, from its `profile:` line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProfileShares {
    pub busy_ms: f64,
    pub medium: f64,
    pub tap: f64,
    pub core: f64,
    pub crypto: f64,
    pub other: f64,
}

/// Reads the last `profile:` line of a node's log (see `wsec_live::runtime`).
pub fn parse_profile(log: &str) -> Option<ProfileShares> {
    let l = log.lines().rev().find(|l| l.contains(" profile: wall "))?;
    let num_before = |key: &str, unit: &str| -> Option<f64> {
        let i = l.find(key)? + key.len();
        let rest = l[i..].trim_start();
        rest.split(unit).next()?.trim().parse().ok()
    };
    Some(ProfileShares {
        busy_ms: num_before("busy", "ms")?,
        medium: num_before("medium I/O", "%")?,
        tap: num_before("TAP I/O", "%")?,
        core: num_before("core", "%")?,
        crypto: num_before("(crypto", "%")?,
        other: num_before("other", "%")?,
    })
}

/// The AP's data frames received and sent, from its counters line.
fn ap_data_frames(log: &str) -> Option<u64> {
    let l = log.lines().rev().find(|l| l.contains(" counters: ") && l.contains("data rx "))?;
    let after = |key: &str| -> Option<u64> { l[l.find(key)? + key.len()..].split_whitespace().next()?.parse().ok() };
    Some(after("data rx ")? + after(") tx ")?)
}

/// User plus system CPU seconds of a process so far (/proc/PID/stat fields 14 and 15).
fn cpu_seconds(pid: u32) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count fields after its closing paren.
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let (u, k): (f64, f64) = (f.get(11)?.parse().ok()?, f.get(12)?.parse().ok()?);
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    Some((u + k) / hz)
}

pub(crate) fn have_iperf3() -> bool {
    Command::new("iperf3").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// iperf3 for `seconds` from namespace `from` to the server in `to` at `ip`: received
/// Gb/s. A ping from `from` to `ip` runs during the transfer: its mean RTT.
pub(crate) fn iperf3(from: &str, to: &str, ip: &str, seconds: u64, port: u16) -> Result<(f64, Option<f64>), String> {
    let mut server = Command::new("ip")
        .args(["netns", "exec", to, "iperf3", "-s", "-1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("iperf3 server: {e}"))?;
    std::thread::sleep(Duration::from_millis(300));
    let ping = Command::new("ip")
        .args(["netns", "exec", from, "ping", "-q", "-i", "0.2", "-w", &(seconds.saturating_sub(1)).max(1).to_string(), ip])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let out = Command::new("ip")
        .args(["netns", "exec", from, "iperf3", "-c", ip, "-p", &port.to_string(), "-t", &seconds.to_string(), "-J"])
        .output()
        .map_err(|e| format!("iperf3 client: {e}"))?;
    let _ = server.wait();
    let rtt = ping.ok().and_then(|p| p.wait_with_output().ok()).and_then(|o| {
        let s = String::from_utf8_lossy(&o.stdout).to_string();
        // "rtt min/avg/max/mdev = a/b/c/d ms"
        s.lines().find(|l| l.contains("min/avg/max"))?.split('=').nth(1)?.trim().split('/').nth(1)?.parse().ok()
    });
    let j: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("iperf3 output: {e}: {}", String::from_utf8_lossy(&out.stderr)))?;
    if let Some(e) = j.get("error") {
        return Err(format!("iperf3: {e}"));
    }
    let bps = j["end"]["sum_received"]["bits_per_second"].as_f64().ok_or("iperf3: no end.sum_received.bits_per_second")?;
    Ok((bps / 1e9, rtt))
}

fn sh(args: &[&str]) -> Result<(), String> {
    let o = Command::new(args[0]).args(&args[1..]).output().map_err(|e| format!("{}: {e}", args[0]))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!("{}: {}", args.join(" "), String::from_utf8_lossy(&o.stderr).trim()))
    }
}

/// A veth pair between two fresh namespaces: the same tool's TCP over it (Gb/s).
pub(crate) fn veth_ceiling(tag: &str, seconds: u64, builtin: bool) -> Result<f64, String> {
    let (a, b) = (format!("{tag}va"), format!("{tag}vb"));
    for n in [&a, &b] {
        let _ = sh(&["ip", "netns", "del", n]);
        sh(&["ip", "netns", "add", n])?;
    }
    let r = (|| {
        sh(&["ip", "link", "add", "v0", "netns", &a, "type", "veth", "peer", "name", "v1", "netns", &b])?;
        sh(&["ip", "-n", &a, "addr", "add", "10.78.0.1/24", "dev", "v0"])?;
        sh(&["ip", "-n", &b, "addr", "add", "10.78.0.2/24", "dev", "v1"])?;
        for (n, d) in [(&a, "v0"), (&b, "v1")] {
            sh(&["ip", "-n", n, "link", "set", d, "up"])?;
            sh(&["ip", "-n", n, "link", "set", "lo", "up"])?;
        }
        if builtin {
            // The lab's checked transfer, sized from a probe to last about `seconds`.
            let probe = wsec_cli::lab::tcp_ns(&a, &b, "10.78.0.2", 64 << 20, 5288).map_err(|e| e.to_string())?;
            let bytes = ((probe * 1e6 / 8.0) * seconds as f64) as usize;
            return wsec_cli::lab::tcp_ns(&a, &b, "10.78.0.2", bytes.max(1 << 20), 5289).map(|m| m / 1e3).map_err(|e| e.to_string());
        }
        iperf3(&a, &b, "10.78.0.2", seconds, 5290).map(|(g, _)| g)
    })();
    for n in [&a, &b] {
        let _ = sh(&["ip", "netns", "del", n]);
    }
    r
}

fn measure(mode: &Mode, a: &LiveArgs, builtin: bool, n: usize) -> Result<Row, String> {
    let bin = std::env::current_exe().map_err(|e| e.to_string())?;
    let tag = format!("wb{}{n}", std::process::id() % 100_000);
    let mut lab = Lab::new(&bin, &tag, "wsec-bench").map_err(|e| e.to_string())?;
    lab.up_demo(mode, a.medium == "shm", None, a.engine_threads, a.tap_offload, a.ht == 1).map_err(|e| e.to_string())?;
    lab.wait_ping("s1", WIRED_IP, Duration::from_secs(10)).map_err(|e| e.to_string())?;
    let pids: Vec<u32> = ["air", "ap", "sta1", "sta2"].iter().filter_map(|p| lab.pid(p)).collect();
    let cpu0: f64 = pids.iter().filter_map(|p| cpu_seconds(*p)).sum();
    let t0 = Instant::now();
    let (gbps, rtt) = if builtin {
        // Sized from a short probe to last about `seconds`.
        let probe = lab.tcp("s1", "w", WIRED_IP, 4 << 20, 5301).map_err(|e| e.to_string())?;
        let bytes = ((probe * 1e6 / 8.0) * a.seconds as f64) as usize;
        (lab.tcp("s1", "w", WIRED_IP, bytes.max(1 << 20), 5302).map_err(|e| e.to_string())? / 1e3, None)
    } else {
        iperf3(&lab.ns("s1"), &lab.ns("w"), WIRED_IP, a.seconds, 5303)?
    };
    let secs = t0.elapsed().as_secs_f64();
    let cpu1: f64 = pids.iter().filter_map(|p| cpu_seconds(*p)).sum();
    lab.stop_all();
    let gb = gbps * secs;
    let ap = lab.log("ap");
    Ok(Row {
        mode: mode.name.to_string(),
        gbps,
        rtt_ms: rtt,
        ap_frames_per_s: ap_data_frames(&ap).map(|f| f as f64 / secs),
        cpu_s_per_gb: (gb > 0.0).then(|| (cpu1 - cpu0) / gb),
        ap_profile: parse_profile(&ap),
        sta_profile: parse_profile(&lab.log("sta1")),
        tap_lines: [ap.as_str(), lab.log("sta1").as_str()]
            .iter()
            .flat_map(|l| {
                let last = |what: &str| l.lines().rev().find(|x| x.contains(what)).map(str::to_string);
                [last(" tap: "), last(" counters: "), last("  engine protected ")]
            })
            .flatten()
            .collect(),
    })
}

fn shares(p: Option<ProfileShares>) -> String {
    p.map_or("-".into(), |p| format!("{:.0} / {:.0} / {:.0} ({:.0}) / {:.0}", p.medium, p.tap, p.core, p.crypto, p.other))
}

/// Runs `wsec bench live`.
pub fn run(a: LiveArgs) -> Result<String, (u8, String)> {
    let modes: Vec<&str> = a.modes.split(',').map(str::trim).filter(|m| !m.is_empty()).collect();
    let mut checked = Vec::new();
    for m in &modes {
        let mode = Mode::named(m, "wsec-bench", "wsec bench passphrase").ok_or((2, format!("bench live: unknown mode {m}")))?;
        checked.push(mode);
    }
    if checked.is_empty() {
        return Err((2, "bench live: --modes names no mode".into()));
    }
    if !(1..=600).contains(&a.seconds) {
        return Err((2, format!("--seconds {}: want 1..=600", a.seconds)));
    }
    let builtin = match a.tool.as_str() {
        "builtin" => true,
        "iperf3" if !have_iperf3() => return Err((1, "bench live: --tool iperf3 but no iperf3 found (scripts/setup installs it)".into())),
        "iperf3" => false,
        _ => !have_iperf3(),
    };
    if !wsec_live::medium::netns::is_root() {
        return Err((1, "bench live: needs root (network namespaces, TAP devices)".into()));
    }
    wsec_live::runtime::install_signal_handlers();
    let tag = format!("wb{}", std::process::id() % 100_000);
    let ceiling = veth_ceiling(&tag, a.seconds, builtin);
    let mut rows = Vec::new();
    for (i, m) in checked.iter().enumerate() {
        eprintln!("bench live: {} ...", m.name);
        rows.push(measure(m, &a, builtin, i).map_err(|e| (1, format!("{}: {e}", m.name)))?);
    }
    let mut s = format!(
        "CPU: {}, {} logical CPUs; CCM kernel backend: {}; tool: {}; medium: {}; TAP offloads: {}; AP engine_threads={}; HT (A-MSDU): {}\n",
        wsec_bench::cpu::cpu_model(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        wsec::cipher::kernel::backend(),
        if builtin { "builtin (SHA-256 checked transfer)" } else { "iperf3" },
        if a.medium == "shm" { "shm (shared memory)" } else { "air (loopback UDP)" },
        if a.tap_offload == 1 { "on" } else { "off" },
        a.engine_threads,
        if a.ht == 1 { "on" } else { "off" }
    );
    match &ceiling {
        Ok(g) => s += &format!("veth pair (the ceiling): {g:.2} Gb/s\n"),
        Err(e) => s += &format!("veth pair (the ceiling): not measured: {e}\n"),
    }
    s += "| mode | sta->wired Gb/s | of veth | ping RTT under load (ms) | AP data frames/s | wsec CPU s per Gb | AP busy: medium / TAP / core (crypto) / other % | sta busy: same |\n";
    s += "|---|---|---|---|---|---|---|---|\n";
    for r in &rows {
        s += &format!(
            "| {} | {:.3} | {} | {} | {} | {} | {} | {} |\n",
            r.mode,
            r.gbps,
            ceiling.as_ref().map_or("-".into(), |c| format!("{:.1} %", 100.0 * r.gbps / c)),
            r.rtt_ms.map_or("-".into(), |v| format!("{v:.3}")),
            r.ap_frames_per_s.map_or("-".into(), |v| format!("{v:.0}")),
            r.cpu_s_per_gb.map_or("-".into(), |v| format!("{v:.2}")),
            shares(r.ap_profile),
            shares(r.sta_profile)
        );
    }
    s += "\nThe nodes' TAPs and counters (AP, station 1) per mode:\n";
    for r in &rows {
        for l in &r.tap_lines {
            s += &format!("  {}: {l}\n", r.mode);
        }
    }
    Ok(s.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_profile_and_counters_lines() {
        let log = "ap counters: air rx 10 tx 20; data rx 1234 (1 B) tx 56 (2 B); host rx 1 tx 2; relayed 0; dropped 0\n\
                   ap profile: wall 5000.0 ms, waiting 1000.5 ms, busy 3999.5 ms: medium I/O 40.1 %, TAP I/O 20.2 %, core 30.3 % (crypto 10.4 %), other 9.4 %\n";
        assert_eq!(
            parse_profile(log),
            Some(ProfileShares { busy_ms: 3999.5, medium: 40.1, tap: 20.2, core: 30.3, crypto: 10.4, other: 9.4 })
        );
        assert_eq!(ap_data_frames(log), Some(1234 + 56));
        assert_eq!(parse_profile("no such line"), None);
        assert_eq!(parse_profile("ap profile: wall 1 ms, busy x ms"), None);
    }

    #[test]
    fn cpu_seconds_of_this_process() {
        let t = cpu_seconds(std::process::id()).expect("/proc/self/stat");
        assert!(t >= 0.0);
        assert_eq!(cpu_seconds(u32::MAX), None);
    }
}

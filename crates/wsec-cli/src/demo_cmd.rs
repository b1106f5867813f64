//! `wsec demo`: the whole network on one machine (AP, two stations and a wired host, each
//! in its own network namespace, over the `air` hub's UDP or shared memory); per mode it measures the 4-way
//! handshake time, TCP goodput (station to station through the AP's relay, and station
//! to the wired host) and ping RTT, prints a table and removes everything again, also on
//! Ctrl-C or failure (docs/live.md).
use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;
use wsec_cli::lab::{Lab, Mode, STA_IP, WIRED_IP};
use wsec_live::runtime::{install_signal_handlers, STOP};

/// The modes of `--mode` (`wsec_cli::lab::Mode::named`); `all` runs the first six.
const MODES: [&str; 11] = ["open", "wep", "tkip", "ccmp", "gcmp", "enhanced", "wpa2-host", "wpa2-mfp", "sae", "owe", "all"];

#[derive(Args)]
pub struct DemoArgs {
    /// Security mode to measure; all: every one but wpa2-host, wpa2-mfp, sae and owe
    #[arg(long, default_value = "all", value_parser = clap::builder::PossibleValuesParser::new(MODES))]
    mode: String,
    /// SSID of the demo network
    #[arg(long, default_value = "wsec-demo")]
    ssid: String,
    /// WPA passphrase of the demo network (8..63 characters)
    #[arg(long, default_value = "wsec demo passphrase")]
    passphrase: String,
    /// Record the air (radiotap pcap); with several modes, one file per mode (MODE-FILE)
    #[arg(long)]
    pcap: Option<PathBuf>,
    /// Seconds of TCP traffic per measurement
    #[arg(long, default_value_t = 5)]
    seconds: u64,
    /// The AP engine's crypto threads (`engine_threads`; 0: one per core)
    #[arg(long, default_value_t = 0)]
    engine_threads: usize,
    /// Measurements per mode (1..=20): ping and both TCP transfers repeated on the same
    /// network; with more than one, each cell is `median [min, max]` over the runs
    #[arg(long, default_value_t = 1)]
    runs: usize,
    /// The nodes' TAPs with segmentation and checksum offloads (`tap_offload`, 1) or one
    /// plain frame per system call (0)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=1))]
    tap_offload: u8,
    /// The medium: the `air` hub on loopback UDP (air) or its shared memory (shm, `wsec
    /// air --shm`)
    #[arg(long, default_value = "air", value_parser = clap::builder::PossibleValuesParser::new(["air", "shm"]))]
    medium: String,
}

/// The median, smallest and largest of `v` (the mean of the two middle values for an
/// even count); `None` for no values.
fn summary(v: &[f64]) -> Option<(f64, f64, f64)> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return None;
    }
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let med = if n % 2 == 1 { s[n / 2] } else { (s[n / 2 - 1] + s[n / 2]) / 2.0 };
    Some((med, s[0], s[n - 1]))
}

/// A cell of the table: the figure, or `median [min, max]` over several runs.
fn cell(v: &[f64], digits: usize) -> String {
    match summary(v) {
        None => "-".into(),
        Some((m, _, _)) if v.len() == 1 => format!("{m:.digits$}"),
        Some((m, lo, hi)) => format!("{m:.digits$} [{lo:.digits$}, {hi:.digits$}]"),
    }
}

struct Row {
    mode: String,
    crypto: &'static str,
    /// None for modes without a 4-way handshake (open, WEP).
    handshake_ms: Option<f64>,
    /// One figure per run.
    relay_mbps: Vec<f64>,
    wired_mbps: Vec<f64>,
    rtt_ms: Vec<f64>,
}

fn interrupted() -> Result<(), String> {
    if STOP.load(Ordering::SeqCst) {
        Err("interrupted".into())
    } else {
        Ok(())
    }
}

fn measure(mode: &Mode, a: &DemoArgs, pcap: Option<PathBuf>, n: usize) -> wsec_live::Result<Row> {
    let bin = std::env::current_exe().map_err(|e| wsec_live::Error::Setup(e.to_string()))?;
    let tag = format!("wd{}{n}", std::process::id() % 100_000);
    let mut lab = Lab::new(&bin, &tag, &a.ssid)?;
    lab.up_demo(mode, a.medium == "shm", pcap.as_deref(), a.engine_threads, a.tap_offload)?;
    interrupted().map_err(wsec_live::Error::Setup)?;
    let assoc = lab.log_time("sta1", " associated aid").unwrap_or(0.0);
    let keys = lab.log_time("sta1", "data open").unwrap_or(assoc);
    lab.wait_ping("s1", STA_IP[1], Duration::from_secs(10))?;
    lab.wait_ping("s1", WIRED_IP, Duration::from_secs(10))?;
    // Size the transfers to about `seconds` each from a short probe.
    let probe = lab.tcp("s1", "s2", STA_IP[1], 2 << 20, 5201)?;
    let bytes = ((probe * 1e6 / 8.0) * a.seconds as f64) as usize;
    let (mut rtt, mut relay, mut wired) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..a.runs {
        interrupted().map_err(wsec_live::Error::Setup)?;
        rtt.push(lab.ping("s1", STA_IP[1], 10)?);
        // A port per run: a listener of the last run may still hold its port.
        let port = 5202 + 2 * run as u16;
        relay.push(lab.tcp("s1", "s2", STA_IP[1], bytes.max(1 << 20), port)?);
        interrupted().map_err(wsec_live::Error::Setup)?;
        wired.push(lab.tcp("s1", "w", WIRED_IP, bytes.max(1 << 20), port + 1)?);
    }
    let crypto = if mode.ap.contains("crypto_offload=card") {
        "card"
    } else if mode.name == "open" {
        "-"
    } else {
        "host"
    };
    lab.stop_all();
    let four_way = !(mode.name == "open" || mode.name == "wep");
    Ok(Row {
        mode: mode.name.into(),
        crypto,
        handshake_ms: four_way.then_some((keys - assoc) * 1e3),
        relay_mbps: relay,
        wired_mbps: wired,
        rtt_ms: rtt,
    })
}

/// Runs `wsec demo`: bad arguments exit 2 (before the root check), no root or a failed
/// measurement exit 1.
pub fn run(a: DemoArgs) -> Result<String, (u8, String)> {
    if !(8..=63).contains(&a.passphrase.len()) {
        return Err((2, "--passphrase must be 8..63 characters".into()));
    }
    if !(1..=20).contains(&a.runs) {
        return Err((2, format!("--runs {}: want 1..=20 measurements per mode", a.runs)));
    }
    if !wsec_live::medium::netns::is_root() {
        return Err((1, "demo: needs root (it creates network namespaces and TAP devices); run it as root".into()));
    }
    install_signal_handlers();
    let names: Vec<&str> = if a.mode == "all" { vec!["open", "wep", "tkip", "ccmp", "gcmp", "enhanced"] } else { vec![a.mode.as_str()] };
    let mut rows = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let mode = Mode::named(name, &a.ssid, &a.passphrase).ok_or((2, format!("demo: unknown mode {name}")))?;
        let pcap = a.pcap.as_ref().map(|p| {
            if names.len() == 1 {
                p.clone()
            } else {
                let f = p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
                p.with_file_name(format!("{name}-{f}"))
            }
        });
        eprintln!("demo: {name} ...");
        let r = measure(&mode, &a, pcap, i).map_err(|e| (1, e.to_string()))?;
        eprintln!(
            "demo: {:<9} crypto {:<4} handshake {:>7} ms  sta->sta {} Mb/s  sta->wired {} Mb/s  rtt {} ms",
            r.mode,
            r.crypto,
            ms(r.handshake_ms),
            cell(&r.relay_mbps, 1),
            cell(&r.wired_mbps, 1),
            cell(&r.rtt_ms, 3)
        );
        rows.push(r);
        interrupted().map_err(|e| (1, e))?;
    }
    let mut s = format!("CPU: {}\nmedium: {}\n", cpu_model(), if a.medium == "shm" { "shm (shared memory)" } else { "air (loopback UDP)" });
    if a.runs > 1 {
        s += &format!("runs per mode: {} (each cell: median [min, max] over the runs)\n", a.runs);
    }
    s += "| mode | crypto | 4-way handshake (ms) | TCP sta->sta via AP (Mb/s) | TCP sta->wired (Mb/s) | ping RTT sta->sta (ms) |\n|---|---|---|---|---|---|\n";
    for r in &rows {
        s += &format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            r.mode,
            r.crypto,
            ms(r.handshake_ms),
            cell(&r.relay_mbps, 1),
            cell(&r.wired_mbps, 1),
            cell(&r.rtt_ms, 3)
        );
    }
    Ok(s.trim_end().to_string())
}

fn ms(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.2}"))
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| c.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split(':').nth(1)).map(|s| s.trim().to_string()))
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_range_over_runs() {
        assert_eq!(summary(&[3.0, 1.0, 2.0]), Some((2.0, 1.0, 3.0)));
        assert_eq!(summary(&[4.0, 1.0, 2.0, 3.0]), Some((2.5, 1.0, 4.0)), "even count: mean of the middle two");
        assert_eq!(summary(&[7.5]), Some((7.5, 7.5, 7.5)));
        assert_eq!(summary(&[]), None);
        assert_eq!(cell(&[254.64], 1), "254.6", "one run: the figure as before");
        assert_eq!(cell(&[250.0, 260.04, 240.5], 1), "250.0 [240.5, 260.0]");
        assert_eq!(cell(&[0.7, 0.65, 0.72], 3), "0.700 [0.650, 0.720]");
    }
}

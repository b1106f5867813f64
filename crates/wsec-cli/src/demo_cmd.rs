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
    /// The medium: the `air` hub on loopback UDP (air, for nodes on several hosts) or its
    /// shared memory (shm, `wsec air --shm`: the nodes of one host)
    #[arg(long, default_value = "shm", value_parser = clap::builder::PossibleValuesParser::new(["air", "shm"]))]
    medium: String,
    /// The AP an HT QoS AP (1: `ieee80211n=1`, A-MSDUs of up to 7935 octets both ways) or
    /// not (0: one MSDU per MPDU)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=1))]
    ht: u8,
    /// The TCP tool: iperf3, builtin (wsec's own transfer, every byte checked by SHA-256;
    /// its own cost limits it to a few Gb/s), or auto (iperf3 when installed)
    #[arg(long, default_value = "auto", value_parser = clap::builder::PossibleValuesParser::new(["auto", "iperf3", "builtin"]))]
    tool: String,
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
    /// Ping station 1 to the wired host during the sta->wired transfer.
    loaded_rtt_ms: Vec<f64>,
}

fn interrupted() -> Result<(), String> {
    if STOP.load(Ordering::SeqCst) {
        Err("interrupted".into())
    } else {
        Ok(())
    }
}

fn measure(mode: &Mode, a: &DemoArgs, builtin: bool, pcap: Option<PathBuf>, n: usize) -> wsec_live::Result<Row> {
    let bin = std::env::current_exe().map_err(|e| wsec_live::Error::Setup(e.to_string()))?;
    let tag = format!("wd{}{n}", std::process::id() % 100_000);
    let mut lab = Lab::new(&bin, &tag, &a.ssid)?;
    lab.up_demo(mode, a.medium == "shm", pcap.as_deref(), a.engine_threads, a.tap_offload, a.ht == 1)?;
    interrupted().map_err(wsec_live::Error::Setup)?;
    let assoc = lab.log_time("sta1", " associated aid").unwrap_or(0.0);
    let keys = lab.log_time("sta1", "data open").unwrap_or(assoc);
    lab.wait_ping("s1", STA_IP[1], Duration::from_secs(10))?;
    lab.wait_ping("s1", WIRED_IP, Duration::from_secs(10))?;
    // Size the transfers to about `seconds` each from a short probe.
    let probe = lab.tcp("s1", "s2", STA_IP[1], 2 << 20, 5201)?;
    let bytes = ((probe * 1e6 / 8.0) * a.seconds as f64) as usize;
    let (mut rtt, mut relay, mut wired, mut loaded) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let setup = wsec_live::Error::Setup;
    for run in 0..a.runs {
        interrupted().map_err(setup)?;
        rtt.push(lab.ping("s1", STA_IP[1], 10)?);
        // A port per run: a listener of the last run may still hold its port.
        let port = 5202 + 2 * run as u16;
        if builtin {
            relay.push(lab.tcp("s1", "s2", STA_IP[1], bytes.max(1 << 20), port)?);
            interrupted().map_err(setup)?;
            // The RTT under load: a ping beside the transfer, for most of its time.
            let (w, l) = std::thread::scope(|s| {
                let p = s.spawn(|| lab.ping_during("s1", WIRED_IP, a.seconds.saturating_sub(1)));
                let w = lab.tcp("s1", "w", WIRED_IP, bytes.max(1 << 20), port + 1);
                (w, p.join())
            });
            wired.push(w?);
            loaded.push(l.map_err(|_| setup("ping thread panicked".into()))??);
        } else {
            let (s1, s2, w) = (lab.ns("s1"), lab.ns("s2"), lab.ns("w"));
            relay.push(crate::bench_live::iperf3(&s1, &s2, STA_IP[1], a.seconds, port).map_err(setup)?.0 * 1e3);
            interrupted().map_err(setup)?;
            let (g, l) = crate::bench_live::iperf3(&s1, &w, WIRED_IP, a.seconds, port + 1).map_err(setup)?;
            wired.push(g * 1e3);
            loaded.push(l.ok_or_else(|| setup("ping under load: no reply".into()))?);
        }
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
        loaded_rtt_ms: loaded,
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
    let builtin = match a.tool.as_str() {
        "builtin" => true,
        "iperf3" if !crate::bench_live::have_iperf3() => {
            return Err((1, "demo: --tool iperf3 but no iperf3 found (scripts/setup installs it)".into()))
        }
        "iperf3" => false,
        _ => !crate::bench_live::have_iperf3(),
    };
    install_signal_handlers();
    // The ceiling of any userspace data path here: a veth pair, the same tool.
    eprintln!("demo: a veth pair (the ceiling) ...");
    let ceiling = crate::bench_live::veth_ceiling(&format!("wd{}", std::process::id() % 100_000), a.seconds, builtin);
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
        let r = measure(&mode, &a, builtin, pcap, i).map_err(|e| (1, e.to_string()))?;
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
    let mut s = format!(
        "CPU: {}\nmedium: {}; TAP offloads: {}; HT (A-MSDU): {}; CCM kernel backend: {}; TCP tool: {}\n",
        cpu_model(),
        if a.medium == "shm" { "shm (shared memory)" } else { "air (loopback UDP)" },
        if a.tap_offload == 1 { "on" } else { "off" },
        if a.ht == 1 { "on" } else { "off" },
        wsec::cipher::kernel::backend(),
        if builtin { "builtin (SHA-256 checked)" } else { "iperf3" }
    );
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
    // The data plane beside its ceiling (five columns: `wsec report` reads the table above).
    match &ceiling {
        Ok(g) => s += &format!("\nveth pair between two namespaces (the ceiling of a userspace data path here), same tool: {g:.2} Gb/s\n"),
        Err(e) => s += &format!("\nveth pair (the ceiling): not measured: {e}\n"),
    }
    s += "| mode | TCP sta->wired (Gb/s) | of veth | TCP sta->sta (Gb/s) | ping RTT sta->wired under load (ms) |\n|---|---|---|---|---|\n";
    for r in &rows {
        let gb = |v: &[f64]| v.iter().map(|x| x / 1e3).collect::<Vec<f64>>();
        let of = match (&ceiling, summary(&r.wired_mbps)) {
            (Ok(c), Some((m, _, _))) if *c > 0.0 => format!("{:.1} %", 100.0 * m / 1e3 / c),
            _ => "-".into(),
        };
        s += &format!(
            "| {} | {} | {} | {} | {} |\n",
            r.mode,
            cell(&gb(&r.wired_mbps), 2),
            of,
            cell(&gb(&r.relay_mbps), 2),
            cell(&r.loaded_rtt_ms, 2)
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

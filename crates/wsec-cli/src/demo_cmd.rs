//! `wsec demo`: the whole network on one machine (AP, two stations and a wired host, each
//! in its own network namespace, over the `air` hub); per mode it measures the 4-way
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
}

struct Row {
    mode: String,
    crypto: &'static str,
    /// None for modes without a 4-way handshake (open, WEP).
    handshake_ms: Option<f64>,
    relay_mbps: f64,
    wired_mbps: f64,
    rtt_ms: f64,
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
    lab.start_air(0.0, pcap.as_deref())?;
    lab.write_confs(mode, &format!("engine_threads={}\n", a.engine_threads))?;
    lab.start_ap()?;
    std::thread::sleep(Duration::from_millis(100));
    lab.start_sta(1)?;
    lab.start_sta(2)?;
    for s in ["sta1", "sta2"] {
        lab.wait_log(s, "data open", Duration::from_secs(15))?;
    }
    interrupted().map_err(wsec_live::Error::Setup)?;
    let assoc = lab.log_time("sta1", " associated aid").unwrap_or(0.0);
    let keys = lab.log_time("sta1", "data open").unwrap_or(assoc);
    lab.wait_ping("s1", STA_IP[1], Duration::from_secs(10))?;
    lab.wait_ping("s1", WIRED_IP, Duration::from_secs(10))?;
    let rtt = lab.ping("s1", STA_IP[1], 10)?;
    interrupted().map_err(wsec_live::Error::Setup)?;
    // Size the transfers to about `seconds` each from a short probe.
    let probe = lab.tcp("s1", "s2", STA_IP[1], 2 << 20, 5201)?;
    let bytes = ((probe * 1e6 / 8.0) * a.seconds as f64) as usize;
    let relay = lab.tcp("s1", "s2", STA_IP[1], bytes.max(1 << 20), 5202)?;
    interrupted().map_err(wsec_live::Error::Setup)?;
    let wired = lab.tcp("s1", "w", WIRED_IP, bytes.max(1 << 20), 5203)?;
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
            "demo: {:<9} crypto {:<4} handshake {:>7} ms  sta->sta {:>7.1} Mb/s  sta->wired {:>7.1} Mb/s  rtt {:.3} ms",
            r.mode,
            r.crypto,
            ms(r.handshake_ms),
            r.relay_mbps,
            r.wired_mbps,
            r.rtt_ms
        );
        rows.push(r);
        interrupted().map_err(|e| (1, e))?;
    }
    let mut s = format!("CPU: {}\n", cpu_model());
    s += "| mode | crypto | 4-way handshake (ms) | TCP sta->sta via AP (Mb/s) | TCP sta->wired (Mb/s) | ping RTT sta->sta (ms) |\n|---|---|---|---|---|---|\n";
    for r in &rows {
        s += &format!(
            "| {} | {} | {} | {:.1} | {:.1} | {:.3} |\n",
            r.mode,
            r.crypto,
            ms(r.handshake_ms),
            r.relay_mbps,
            r.wired_mbps,
            r.rtt_ms
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

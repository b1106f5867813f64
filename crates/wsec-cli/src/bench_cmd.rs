//! `wsec bench`: the seed papers' experiments measured on this machine, with the peers in
//! the same run. One subcommand per benchmark: `ciphers` (seed 004), `ccmp` (seed 000
//! Tables I/II, ECCMP, multi-buffer), `relay` (the AP's relay rate).
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;
use wsec_bench::ccmp as bench_ccmp;
use wsec_bench::ciphers::data::DataType;
use wsec_bench::ciphers::impls::Spec;
use wsec_bench::ciphers::{paper, report, run as cbench};
use wsec_bench::energy::{Battery, Eq7, Meter, Rapl};

#[derive(Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchWhat,
}

// Parsed once per run: the size of the largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum BenchWhat {
    /// Seed 004: throughput and energy of AES (AES instructions and portable), DES, 3DES,
    /// RC2, Blowfish, RC6 in CBC-PKCS#7, and AES-GCM / ChaCha20-Poly1305, by file size,
    /// data type (text, WAV, PNG) and packet size; ranking beside the paper's
    Ciphers(CiphersArgs),
    /// CCMP: seed 000 Tables I/II (MIC and CTR, standard vs 2/4/8 parallel), Enhanced
    /// CCMP, multi-buffer CCMP, and OpenSSL / RustCrypto (/ ipsec-mb) in the same run.
    Ccmp(CcmpArgs),
    /// The AP's relay rate with CCMP (decrypt from one station, encrypt to another) in the
    /// host engine: frames/s and Gb/s per core.
    Relay(RelayArgs),
    /// Authentications per second of the 802.1X access point against the RADIUS server of
    /// its configuration: stations in flight at once, each through association, EAP and
    /// the 4-way handshake (scripts/auth-bench runs it beside hostapd and eapol_test).
    Auth(AuthArgs),
    /// The live data plane (the demo topology): Gb/s station to wired host beside a veth
    /// pair's, ping RTT under load, CPU per Gb, and each node's time in medium I/O, TAP
    /// I/O, core and crypto, per mode
    Live(crate::bench_live::LiveArgs),
}

#[derive(Args)]
pub struct AuthArgs {
    /// The access point's configuration (`wsec ap -c`: ieee8021x=1, auth_server_*)
    #[arg(long)]
    ap: PathBuf,
    /// The station's configuration (`wsec sta -c`: key_mgmt=WPA-EAP, eap=...)
    #[arg(long)]
    sta: PathBuf,
    /// Authentications in flight at once
    #[arg(long, default_value_t = 8)]
    stations: usize,
    /// Seconds counted (after the warm-up)
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Seconds of warm-up, not counted
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct RelayArgs {
    /// MSDU octets per frame (LLC/SNAP included)
    #[arg(long, default_value_t = 1500)]
    msdu: usize,
    /// Frames relayed per run
    #[arg(long, default_value_t = 20000)]
    frames: usize,
    /// Frames per multi-buffer batch
    #[arg(long, default_value_t = 32)]
    batch: usize,
    /// Runs (the median is reported)
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// CCM kernel backends, comma separated: portable, aesni, vaes256, avx512, or "all"
    /// (every one this CPU runs). Default: the one WSEC_BACKEND or detection picks.
    #[arg(long, value_delimiter = ',')]
    backend: Vec<String>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct CcmpArgs {
    /// Frame (payload) sizes in octets, comma separated.
    #[arg(long, value_delimiter = ',', default_values_t = bench_ccmp::SIZES)]
    sizes: Vec<usize>,
    /// Samples per figure (the median is reported).
    #[arg(long, default_value_t = 11)]
    reps: usize,
    /// Target length of one sample in milliseconds.
    #[arg(long, default_value_t = 4)]
    sample_ms: u64,
    /// A short smoke run (3 samples of 0.3 ms, fewer batch sizes).
    #[arg(long)]
    quick: bool,
    /// Frame size of the Tables I/II comparison.
    #[arg(long, default_value_t = 1500)]
    table_size: usize,
    /// wsec kernel backends to time, comma separated: portable, aesni, vaes256, avx512, or
    /// "all" (every one this CPU runs). Default: the one WSEC_BACKEND or detection picks.
    #[arg(long, value_delimiter = ',')]
    backend: Vec<String>,
    /// Suites: ccmp, gcmp (default both).
    #[arg(long, value_delimiter = ',')]
    suite: Vec<String>,
    /// ipsec-mb manager architectures (with the ipsec-mb feature): auto, sse, avx, avx2,
    /// avx512. Default: auto and the one matching each backend (aesni: sse, vaes256: avx2,
    /// avx512: avx512).
    #[arg(long, value_delimiter = ',')]
    ipsec: Vec<String>,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EnergyArg {
    /// RAPL if readable, else the eq. 7 model
    Auto,
    /// RAPL only (fails when /sys/class/powercap has no readable package zone)
    Rapl,
    /// Seed 004's equation 7 with --vcc and --amps
    Model,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ClockArg {
    /// The benchmark thread's CPU time (robust to other work on the machine)
    Cpu,
    /// Wall-clock time
    Wall,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PlotFormat {
    Svg,
    Png,
    Both,
}

#[derive(Args)]
struct CiphersArgs {
    /// A smoke run of a few seconds (smallest file of each type, 64/1500-octet packets,
    /// 3 runs of >= 2 ms); options given explicitly still apply
    #[arg(long)]
    quick: bool,
    /// Print the measurements as a JSON list of records instead of the report
    #[arg(long)]
    json: bool,
    /// Also write the JSON records to this file (with the report on standard output)
    #[arg(long)]
    json_out: Option<PathBuf>,
    /// Add every single measurement to the report
    #[arg(long)]
    detail: bool,
    /// Ciphers, comma-separated: "aes-256", "aes-soft-128", "des", "3des", "rc2", "blowfish",
    /// "rc6", "aes-gcm-128", "chacha20-poly1305", ...; "paper" for the paper's six, "all" (default)
    #[arg(long, value_delimiter = ',')]
    cipher: Vec<String>,
    /// Data types of the files: text, audio, image (default all)
    #[arg(long, value_delimiter = ',')]
    data: Vec<String>,
    /// File sizes per data type, spread evenly on a log scale over the paper's range
    /// (default 5; --quick 1, the smallest)
    #[arg(long)]
    points: Option<usize>,
    /// Packet sizes in octets (default 64,128,256,512,1024,1500; --quick 64,1500)
    #[arg(long, value_delimiter = ',')]
    packets: Vec<usize>,
    /// Skip the per-packet runs
    #[arg(long)]
    no_packets: bool,
    /// Skip the file runs
    #[arg(long)]
    no_files: bool,
    /// Samples per figure; the report gives their median and spread (default 5; --quick 3)
    #[arg(long)]
    runs: Option<usize>,
    /// Minimum time of one sample in milliseconds (default 20; --quick 2)
    #[arg(long)]
    min_ms: Option<f64>,
    /// Clock that times the samples
    #[arg(long, value_enum, default_value = "cpu")]
    clock: ClockArg,
    /// Where energy figures come from
    #[arg(long, value_enum, default_value = "auto")]
    energy: EnergyArg,
    /// Supply voltage VCC of the eq. 7 model, volts (seed 004 sec. 4.3: 1.35)
    #[arg(long, default_value_t = 1.35)]
    vcc: f64,
    /// Average current I of the eq. 7 model, amperes (seed 004 sec. 4.3: 0.20)
    #[arg(long, default_value_t = 0.20)]
    amps: f64,
    /// Battery capacity for %/GB in watt-hours (default: this machine's battery, else a
    /// 47.52 Wh 6-cell laptop pack)
    #[arg(long)]
    battery_wh: Option<f64>,
    /// Name of the --battery-wh battery in the report
    #[arg(long, requires = "battery_wh")]
    battery_name: Option<String>,
    /// Write plots (throughput and energy by size, per data type) into this directory
    #[arg(long)]
    plots: Option<PathBuf>,
    /// Plot file format
    #[arg(long, value_enum, default_value = "svg")]
    plot_format: PlotFormat,
    /// TrueType font for the plots (default: DejaVu Sans, Liberation Sans, ... if installed)
    #[arg(long)]
    font: Option<PathBuf>,
    /// Also save the generated input files (one per data type and size) into this directory
    #[arg(long)]
    write_inputs: Option<PathBuf>,
    /// Seed of the generated inputs, keys and IVs
    #[arg(long, default_value_t = 4)]
    seed: u64,
}

pub fn run(a: BenchArgs) -> Result<String, (u8, String)> {
    match a.what {
        BenchWhat::Ciphers(c) => ciphers(c),
        BenchWhat::Ccmp(a) => ccmp(a),
        BenchWhat::Relay(a) => wsec_bench::relay::run(
            &wsec_bench::relay::Options {
                msdu: a.msdu,
                frames: a.frames.max(1),
                batch: a.batch.max(1),
                reps: a.reps.max(1),
                backends: backends(&a.backend)?,
            },
            a.json,
        )
        .map_err(|e| (1, e.to_string())),
        BenchWhat::Auth(a) => auth(a),
        BenchWhat::Live(a) => crate::bench_live::run(a),
    }
}

fn auth(a: AuthArgs) -> Result<String, (u8, String)> {
    let secs = |what: &str, v: f64| {
        if v.is_finite() && (0.0..=86_400.0).contains(&v) {
            Ok(Duration::from_secs_f64(v))
        } else {
            Err(usage(format!("--{what} must be 0..=86400 seconds, not {v}")))
        }
    };
    let (duration, warmup) = (secs("seconds", a.seconds)?, secs("warmup", a.warmup)?);
    if duration.is_zero() {
        return Err(usage("--seconds must be more than 0"));
    }
    let ap = wsec_live::runtime::load_ap(&a.ap).map_err(|e| (1, e.to_string()))?;
    let sta = wsec_live::runtime::load_sta(&a.sta).map_err(|e| (1, e.to_string()))?;
    let o = wsec_bench::auth::Options { ap: ap.ap, sta: sta.sta, stations: a.stations, warmup, duration, timeout: Duration::from_secs(10) };
    let r = wsec_bench::auth::run(&o).map_err(|e| (1, e))?;
    let cpu = format!("{} ({} logical CPUs)", wsec_bench::cpu::cpu_model(), wsec_bench::cpu::logical_cpus());
    if a.json {
        let v = serde_json::json!({ "cpu": cpu, "report": r });
        return Ok(format!("{v}\n"));
    }
    Ok(format!(
        "CPU: {cpu}\nwsec ap core, EAP-{}: {} stations in flight, {:.1} s: {} authentications ({:.1}/s), {} failed; latency median {:.1} ms, p90 {:.1} ms, max {:.1} ms; {:.2} ms CPU per authentication (AP and station cores)\n",
        r.method, r.stations, r.seconds, r.completed, r.per_second, r.failed, r.latency_ms_median, r.latency_ms_p90, r.latency_ms_max, r.cpu_ms_per_auth
    ))
}

fn usage(e: impl Into<String>) -> (u8, String) {
    (2, e.into())
}

fn config(a: &CiphersArgs) -> Result<cbench::Config, String> {
    let mut cfg = if a.quick { cbench::Config::quick() } else { cbench::Config::full() };
    cfg.seed = a.seed;
    cfg.clock = match a.clock {
        ClockArg::Cpu => cbench::Clock::ThreadCpu,
        ClockArg::Wall => cbench::Clock::Wall,
    };
    if !a.cipher.is_empty() {
        let mut specs = Vec::new();
        for c in &a.cipher {
            match c.to_ascii_lowercase().as_str() {
                "all" => specs.extend(Spec::defaults()),
                "paper" => specs.extend(paper::SPECS),
                _ => specs.push(Spec::parse(c).ok_or_else(|| format!("--cipher: unknown cipher or key size {c:?}"))?),
            }
        }
        specs.dedup();
        cfg.specs = specs;
    }
    let types: Vec<DataType> = if a.data.is_empty() {
        DataType::ALL.to_vec()
    } else {
        a.data
            .iter()
            .map(|d| DataType::parse(d).ok_or_else(|| format!("--data: {d:?} is not text, audio or image")))
            .collect::<Result<_, _>>()?
    };
    let points = a.points.unwrap_or(if a.quick { 1 } else { 5 });
    if points == 0 {
        return Err("--points must be at least 1".into());
    }
    cfg.files = if a.no_files {
        Vec::new()
    } else {
        types.iter().flat_map(|&d| paper::file_sizes(d, points).into_iter().map(move |n| (d, n))).collect()
    };
    if !a.packets.is_empty() {
        if let Some(bad) = a.packets.iter().find(|&&p| p == 0 || p > 65_536) {
            return Err(format!("--packets: {bad} is not a packet size (1..=65536)"));
        }
        cfg.packets = a.packets.clone();
    }
    if a.no_packets {
        cfg.packets.clear();
    }
    if let Some(r) = a.runs {
        if r == 0 {
            return Err("--runs must be at least 1".into());
        }
        cfg.runs = r;
    }
    if let Some(ms) = a.min_ms {
        if !(ms > 0.0 && ms <= 60_000.0) {
            return Err("--min-ms must be in (0, 60000]".into());
        }
        cfg.min_time = Duration::from_secs_f64(ms / 1e3);
    }
    if cfg.files.is_empty() && cfg.packets.is_empty() {
        return Err("nothing to run: both --no-files and --no-packets".into());
    }
    Ok(cfg)
}

fn meter(a: &CiphersArgs) -> Result<(Meter, Option<String>), String> {
    if !(a.vcc > 0.0 && a.amps > 0.0 && a.vcc.is_finite() && a.amps.is_finite()) {
        return Err("--vcc and --amps must be positive".into());
    }
    let mut model = Eq7::seed004();
    if a.vcc != model.vcc || a.amps != model.amps {
        model = Eq7 { vcc: a.vcc, amps: a.amps, source: "given on the command line (--vcc, --amps)".into() };
    }
    Ok(match a.energy {
        EnergyArg::Auto => {
            let (m, why) = Meter::auto(model);
            (m, why.map(|e| e.to_string()))
        }
        EnergyArg::Rapl => (Meter::Rapl(Rapl::probe().map_err(|e| format!("--energy rapl: {e}"))?), None),
        EnergyArg::Model => (Meter::Model(model), None),
    })
}

fn battery(a: &CiphersArgs) -> Result<Battery, String> {
    match a.battery_wh {
        Some(wh) if wh > 0.0 && wh.is_finite() => {
            Ok(Battery { name: a.battery_name.clone().unwrap_or_else(|| format!("{wh} Wh battery")), wh })
        }
        Some(_) => Err("--battery-wh must be positive".into()),
        None => Ok(Battery::of_this_machine().unwrap_or_else(Battery::laptop_6cell)),
    }
}

fn ciphers(a: CiphersArgs) -> Result<String, (u8, String)> {
    let cfg = config(&a).map_err(usage)?;
    let (meter, no_rapl) = meter(&a).map_err(usage)?;
    let battery = battery(&a).map_err(usage)?;
    if a.plots.is_some() {
        wsec_bench::plot::use_system_font(a.font.as_deref()).map_err(|e| usage(format!("--plots: {e}")))?;
    }
    if let Some(dir) = &a.write_inputs {
        write_inputs(&cfg, dir).map_err(|e| (1, e))?;
    }
    // Context goes to standard error so that --json output stays a clean list.
    eprintln!("wsec bench ciphers: CPU {}", wsec_bench::cpu::cpu_model());
    if let Some(why) = &no_rapl {
        eprintln!("energy: RAPL not available ({why}); using seed 004's equation 7 model");
    }
    let bar = if std::io::stderr().is_terminal() {
        let b = ProgressBar::new(0);
        b.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} measurements (eta {eta})")
                .expect("valid template")
                .progress_chars("=> "),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let results = cbench::run(&cfg, &meter, &mut |p| {
        bar.set_length(p.total);
        bar.set_position(p.done);
    })
    .map_err(|e| (1, format!("bench ciphers: {e}")))?;
    bar.finish_and_clear();

    let json = serde_json::to_string_pretty(&report::records(&results, &battery)).expect("records serialize");
    if let Some(p) = &a.json_out {
        std::fs::write(p, format!("{json}\n")).map_err(|e| (1, format!("--json-out {}: {e}", p.display())))?;
    }
    let mut out = if a.json { json } else { report::text(&results, &report::TextOptions { battery: battery.clone(), detail: a.detail }) };
    if let Some(dir) = &a.plots {
        let exts: &[&str] = match a.plot_format {
            PlotFormat::Svg => &["svg"],
            PlotFormat::Png => &["png"],
            PlotFormat::Both => &["svg", "png"],
        };
        let mut n = 0;
        for ext in exts {
            n += report::plots(&results, dir, ext).map_err(|e| (1, format!("--plots: {e}")))?.len();
        }
        let msg = format!("{n} plots written to {}", dir.display());
        if a.json {
            eprintln!("{msg}");
        } else {
            out.push_str(&format!("\n{msg}"));
        }
    }
    Ok(out)
}

/// Saves each generated input file as `<type>_<size>.<ext>`.
fn write_inputs(cfg: &cbench::Config, dir: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for &(d, n) in &cfg.files {
        let p = dir.join(format!("{}_{}.{}", d.as_str(), report::size_label(n).replace(' ', ""), d.extension()));
        std::fs::write(&p, d.generate(n, cfg.seed)).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}

fn ccmp(a: CcmpArgs) -> Result<String, (u8, String)> {
    if a.sizes.iter().any(|&s| s == 0 || s > 65535) {
        return Err((2, "frame sizes must be 1..=65535 octets".into()));
    }
    let mut opts = bench_ccmp::Options::new(
        a.sizes.clone(),
        if a.quick { 3 } else { a.reps.max(1) },
        if a.quick { Duration::from_micros(300) } else { Duration::from_millis(a.sample_ms.max(1)) },
    );
    opts.backends = backends(&a.backend)?;
    if !a.suite.is_empty() {
        opts.suites.clear();
        for s in &a.suite {
            opts.suites.push(match s.as_str() {
                "ccmp" | "ccmp-128" => bench_ccmp::CCMP,
                "gcmp" | "gcmp-128" => bench_ccmp::GCMP,
                _ => return Err(usage(format!("--suite {s}: not ccmp or gcmp"))),
            });
        }
    }
    opts.ipsec = a.ipsec.clone();
    let json = a.json;
    let r = bench_ccmp::run(&opts, a.quick, |msg| {
        if !json {
            eprintln!("{msg}");
        }
    });
    match r {
        Ok(rep) if json => Ok(serde_json::to_string_pretty(&rep.json()).unwrap_or_default()),
        Ok(rep) => Ok(rep.text(a.table_size)),
        Err(e) => Err((1, format!("benchmark aborted: {e}"))),
    }
}

/// `--backend` values: names or `all` (every backend this CPU runs), in order, no repeats.
fn backends(names: &[String]) -> Result<Vec<wsec::cipher::kernel::Backend>, (u8, String)> {
    let mut v = Vec::new();
    for b in names {
        if b == "all" {
            v = wsec::cipher::kernel::Backend::available();
            continue;
        }
        let be = wsec::cipher::kernel::Backend::from_name(b)
            .ok_or_else(|| usage(format!("--backend {b}: not portable, aesni, vaes256, avx512 or all")))?;
        be.check().map_err(|_| usage(format!("--backend {b}: this CPU cannot run it")))?;
        if !v.contains(&be) {
            v.push(be);
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct T {
        #[command(subcommand)]
        cmd: Top,
    }
    #[derive(clap::Subcommand)]
    enum Top {
        Bench(BenchArgs),
    }

    fn parse(args: &[&str]) -> CiphersArgs {
        let mut v = vec!["wsec", "bench", "ciphers"];
        v.extend_from_slice(args);
        let Top::Bench(b) = T::try_parse_from(v).unwrap().cmd;
        let BenchWhat::Ciphers(c) = b.what else { panic!("parsed as ciphers") };
        c
    }

    #[test]
    fn options_shape_the_config() {
        let c = config(&parse(&["--quick"])).unwrap();
        assert_eq!((c.runs, c.files.len(), c.packets.clone()), (3, 3, vec![64, 1500]));
        let c = config(&parse(&["--cipher", "paper", "--data", "audio", "--points", "3", "--no-packets", "--runs", "7"])).unwrap();
        assert_eq!(c.specs, paper::SPECS.to_vec());
        assert_eq!(c.files.iter().map(|f| f.1).collect::<Vec<_>>(), paper::file_sizes(DataType::Audio, 3));
        assert!(c.packets.is_empty());
        assert_eq!(c.runs, 7);
        let c = config(&parse(&["--cipher", "aes-soft-128,rc6-192", "--no-files", "--packets", "100"])).unwrap();
        assert_eq!(c.specs.iter().map(|s| s.to_string()).collect::<Vec<_>>(), ["AES-128 soft", "RC6-192"]);
        assert_eq!(c.packets, vec![100]);
    }

    #[test]
    fn bad_options_are_refused_with_a_reason() {
        for (args, want) in [
            (&["--cipher", "idea"][..], "unknown cipher"),
            (&["--data", "video"][..], "not text, audio or image"),
            (&["--runs", "0"][..], "--runs"),
            (&["--points", "0"][..], "--points"),
            (&["--packets", "0"][..], "--packets"),
            (&["--no-files", "--no-packets"][..], "nothing to run"),
            (&["--min-ms", "0"][..], "--min-ms"),
        ] {
            let e = config(&parse(args)).err().unwrap_or_default();
            assert!(e.contains(want), "{args:?}: {e:?}");
        }
        assert!(meter(&parse(&["--vcc", "0"])).is_err());
        assert!(battery(&parse(&["--battery-wh", "0"])).is_err());
        let b = battery(&parse(&["--battery-wh", "15.4", "--battery-name", "phone"])).unwrap();
        assert_eq!((b.name.as_str(), b.wh), ("phone", 15.4));
    }

    #[test]
    fn json_records_have_the_issues_fields() {
        let a = parse(&[
            "--json",
            "--cipher",
            "des,aes-gcm-128",
            "--data",
            "image",
            "--points",
            "1",
            "--packets",
            "64",
            "--runs",
            "1",
            "--min-ms",
            "0.1",
            "--energy",
            "model",
        ]);
        let out = ciphers(a).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let recs = v.as_array().unwrap();
        // 2 ciphers x 2 ops x (1 file + 1 packet size).
        assert_eq!(recs.len(), 8);
        for r in recs {
            for k in ["cipher", "key_bits", "mode", "op", "bytes", "mb_per_s", "uj_per_byte", "energy_method"] {
                assert!(r.get(k).is_some(), "{k} missing in {r}");
            }
            assert!(["encrypt", "decrypt"].contains(&r["op"].as_str().unwrap()));
            assert_eq!(r["energy_method"], "eq7-model");
            let (mbps, uj) = (r["mb_per_s"].as_f64().unwrap(), r["uj_per_byte"].as_f64().unwrap());
            // Equation 7 with 0.27 W: uJ/B = 0.27 / (MB/s).
            assert!(mbps > 0.0 && (uj * mbps / 0.27 - 1.0).abs() < 1e-9, "{r}");
        }
        assert!(recs.iter().any(|r| r["cipher"] == "DES" && r["key_bits"] == 64 && r["mode"] == "cbc-pkcs7" && r["bytes"] == 28 * 1024));
        assert!(recs.iter().any(|r| r["cipher"] == "AES-GCM" && r["mode"] == "aead" && r["bytes"] == 64));
    }
}

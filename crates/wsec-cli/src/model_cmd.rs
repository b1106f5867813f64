//! `wsec model`: the WLAN performance model (crates/wsec/src/model, docs/model.md).
//!
//! - `saturation`: the classic validation case on one line.
//! - `run <scenario>`: every case of a scenario file, replications on all cores, a table
//!   (beside the paper's figures when the scenario has them), `--json`, `--csv`, `--plot`.
//! - `sweep <scenario> --param path=values`: the same over a parameter's values.
//! - `costs`: measures the crypto costs of this machine and writes the cost file.
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::Instant;
use wsec::cipher::{self, AadOptions, CipherSuite, Pn, Protection};
use wsec::model::config::PhySpec;
use wsec::model::costs::{AppCipherCost, Costs, Linear, LocationCosts, SuiteCost};
use wsec::model::scenario::CaseResult;
use wsec::model::stats::Estimate;
use wsec::model::{replicate, saturation_spec, Scenario};

mod plot;

type CmdResult = Result<String, (u8, String)>;

#[derive(Args)]
pub struct ModelArgs {
    #[command(subcommand)]
    cmd: ModelCmd,
}

#[derive(Subcommand)]
enum ModelCmd {
    /// Saturation throughput of n stations sending to the AP (UDP payload, Mb/s, with a 95% CI)
    Saturation(SatArgs),
    /// Run every case of a scenario file
    Run(RunArgs),
    /// Run a scenario over the values of one parameter
    Sweep(SweepArgs),
    /// Measure this machine's per-frame and per-byte crypto costs and write the cost file
    Costs(CostsArgs),
    /// (internal) run a cipher kernel for instruction counting under valgrind
    #[command(hide = true)]
    CountKernel(CountArgs),
}

#[derive(Args)]
struct SatArgs {
    /// PHY: b, a, g, n
    #[arg(long)]
    phy: String,
    /// Data rate in Mb/s (for n: an MCS 0-7 rate, e.g. 65 or 72.2 with short GI)
    #[arg(long)]
    rate: f64,
    #[arg(long)]
    stations: usize,
    /// UDP payload in octets
    #[arg(long, default_value_t = 1472)]
    payload: usize,
    /// RTS/CTS before every data frame
    #[arg(long)]
    rts: bool,
    /// Simulated seconds per replication
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Independent replications (seeds seed, seed+1, ...) for the confidence interval
    #[arg(long, default_value_t = 5)]
    replications: usize,
    /// Bianchi's assumptions: no beacons, no retry limit, DIFS after collisions
    #[arg(long)]
    bianchi: bool,
    /// 802.11b short preamble / 802.11g long slot / 802.11n 5 GHz band
    #[arg(long)]
    short_preamble: bool,
    #[arg(long)]
    long_slot: bool,
    #[arg(long)]
    band_5ghz: bool,
    /// 802.11n: MPDUs per A-MPDU
    #[arg(long, default_value_t = 1)]
    ampdu: usize,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct CommonRun {
    /// Cost file (default: the shipped costs, with hw/build/report.json when present)
    #[arg(long)]
    costs: Option<PathBuf>,
    /// Replications per case (default: the scenario's run.replications)
    #[arg(long)]
    replications: Option<usize>,
    /// Override a scenario key, e.g. --set run.duration_s=5 --set security.mode=ccmp
    #[arg(long = "set", value_name = "PATH=VALUE")]
    set: Vec<String>,
    /// Print JSON instead of the table
    #[arg(long)]
    json: bool,
    /// Also write the table as CSV
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Also plot (SVG or PNG by extension)
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Metric to plot: throughput_mbps, loss_pct, delay_mean_ms, delay_p95_ms, jitter_ms, completion_s
    #[arg(long, default_value = "throughput_mbps")]
    metric: String,
    /// Include every replication's raw result in the JSON
    #[arg(long)]
    raw: bool,
}

#[derive(Args)]
struct RunArgs {
    scenario: PathBuf,
    #[command(flatten)]
    common: CommonRun,
}

#[derive(Args)]
struct SweepArgs {
    scenario: PathBuf,
    /// PATH=v1,v2,... or PATH=start:end:step, e.g. topology.stations=1:20:1
    #[arg(long)]
    param: String,
    #[command(flatten)]
    common: CommonRun,
}

#[derive(Args)]
struct CostsArgs {
    /// Where to write the cost file
    #[arg(short, long, default_value = "model-costs.json")]
    output: PathBuf,
    /// Start from this cost file (default: the shipped one) for entries not measured now
    #[arg(long)]
    base: Option<PathBuf>,
    /// Timing runs per point (the median is kept)
    #[arg(long, default_value_t = 31)]
    runs: usize,
    /// Frame body sizes to fit over
    #[arg(long, value_delimiter = ',', default_value = "64,256,512,1024,1500,2304")]
    sizes: Vec<usize>,
    /// Also count instructions of the portable cipher code for the card's processor; needs
    /// valgrind and a binary built with RUSTFLAGS="--cfg aes_force_soft --cfg polyval_force_soft"
    /// (scripts/model-card-costs does both)
    #[arg(long)]
    card: bool,
    /// Card processor clock (MHz) and instructions per cycle
    #[arg(long, default_value_t = 200.0)]
    card_clock_mhz: f64,
    #[arg(long, default_value_t = 0.7)]
    card_ipc: f64,
    /// hw/run report file for the AP hardware engine (default: hw/build/report.json if present)
    #[arg(long)]
    hw_report: Option<PathBuf>,
    /// Skip the host measurements (keep the base file's)
    #[arg(long)]
    no_host: bool,
}

#[derive(Args)]
struct CountArgs {
    #[arg(long)]
    suite: String,
    #[arg(long)]
    bytes: usize,
    #[arg(long)]
    frames: usize,
    #[arg(long)]
    decrypt: bool,
}

pub fn run(a: ModelArgs) -> CmdResult {
    match a.cmd {
        ModelCmd::Saturation(s) => saturation(s),
        ModelCmd::Run(r) => run_scenario(&r.scenario, None, r.common),
        ModelCmd::Sweep(s) => {
            let (path, values) = parse_sweep(&s.param).map_err(|e| (2, e))?;
            run_scenario(&s.scenario, Some((path, values)), s.common)
        }
        ModelCmd::Costs(c) => costs(c),
        ModelCmd::CountKernel(c) => count_kernel(c),
    }
}

fn saturation(a: SatArgs) -> CmdResult {
    let phy = PhySpec {
        standard: a.phy.clone(),
        rate_mbps: a.rate,
        short_preamble: a.short_preamble,
        long_slot: a.long_slot,
        band_5ghz: a.band_5ghz,
        ..Default::default()
    };
    phy.build().map_err(|e| (2, e))?;
    if a.stations == 0 || a.duration <= 0.0 || a.payload == 0 || a.payload > 2304 - 36 {
        return Err((2, "need --stations >= 1, --duration > 0 and 1 <= --payload <= 2268".into()));
    }
    let mut spec = saturation_spec(phy, a.stations, a.payload, a.rts, a.duration, a.seed);
    spec.mac.ampdu_max = a.ampdu.max(1);
    if a.bianchi {
        spec.mac.beacons = false;
        spec.mac.retries = false;
        spec.mac.eifs = false;
    }
    let costs = Costs::shipped();
    let t0 = Instant::now();
    let s = replicate(&spec, &costs, a.replications).map_err(|e| (2, e))?;
    let wall = t0.elapsed().as_secs_f64();
    let per_run: Vec<f64> = s.runs.iter().map(|r| r.aggregate_throughput_mbps).collect();
    let (mut att, mut coll) = (0u64, 0u64);
    for r in &s.runs {
        for n in &r.nodes {
            att += n.tx_attempts;
            coll += n.collisions;
        }
    }
    let per_station: Vec<f64> = (0..a.stations).map(|i| Estimate::of(&s.runs.iter().map(|r| r.flows[i].throughput_mbps).collect::<Vec<_>>()).mean).collect();
    let events: u64 = s.runs.iter().map(|r| r.events).sum();
    if a.json {
        let v = serde_json::json!({
            "phy": a.phy, "rate_mbps": a.rate, "stations": a.stations, "payload": a.payload, "rts": a.rts,
            "duration_s": a.duration, "seed": a.seed, "replications": a.replications, "bianchi": a.bianchi,
            "throughput_mbps": s.throughput_mbps.mean,
            "ci95_mbps": s.throughput_mbps.ci95,
            "ci95": [s.throughput_mbps.mean - s.throughput_mbps.ci95, s.throughput_mbps.mean + s.throughput_mbps.ci95],
            "runs_mbps": per_run,
            "per_station_mbps": per_station,
            "collision_fraction": if att > 0 { coll as f64 / att as f64 } else { 0.0 },
            "events": events,
            "wall_s": wall,
        });
        return Ok(serde_json::to_string_pretty(&v).unwrap());
    }
    Ok(format!(
        "802.11{} {} Mb/s, {} stations, {} B payload{}: {:.3} ± {:.3} Mb/s (95% CI, {} x {} s), collisions {:.1}% of attempts, {:.2} s wall",
        a.phy,
        a.rate,
        a.stations,
        a.payload,
        if a.rts { ", RTS/CTS" } else { "" },
        s.throughput_mbps.mean,
        s.throughput_mbps.ci95,
        a.replications,
        a.duration,
        100.0 * coll as f64 / att.max(1) as f64,
        wall
    ))
}

fn parse_sweep(p: &str) -> Result<(String, Vec<String>), String> {
    let (path, vals) = p.split_once('=').ok_or("--param wants PATH=VALUES")?;
    let parts: Vec<&str> = vals.split(':').collect();
    let values = if parts.len() == 3 {
        let n = |s: &str| s.parse::<f64>().map_err(|_| format!("'{s}' is not a number"));
        let (a, b, st) = (n(parts[0])?, n(parts[1])?, n(parts[2])?);
        if st <= 0.0 || b < a {
            return Err("range start:end:step needs end >= start and step > 0".into());
        }
        let int = [a, b, st].iter().all(|x| x.fract() == 0.0);
        let mut v = Vec::new();
        let mut x = a;
        while x <= b + 1e-9 {
            v.push(if int { format!("{}", x as i64) } else { format!("{x}") });
            x += st;
        }
        v
    } else {
        vals.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
    };
    if values.is_empty() {
        return Err("--param has no values".into());
    }
    Ok((path.to_string(), values))
}

fn load_costs(p: &Option<PathBuf>) -> Result<Costs, (u8, String)> {
    match p {
        Some(p) => Costs::load(p).map_err(|e| (2, e)),
        None => {
            let (c, hw) = Costs::default_with_hw_report();
            if let Err(e) = hw {
                eprintln!("wsec: warning: {e}; the AP engine keeps the placeholder costs");
            }
            Ok(c)
        }
    }
}

fn run_scenario(path: &Path, sweep: Option<(String, Vec<String>)>, c: CommonRun) -> CmdResult {
    if let Some(p) = &c.plot {
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        if ext != "svg" && ext != "png" {
            return Err((2, format!("{}: plot to .svg or .png", p.display())));
        }
    }
    let sc = Scenario::load(path).map_err(|e| (2, e))?;
    let costs = load_costs(&c.costs)?;
    let mut params = Vec::new();
    for s in &c.set {
        let (k, v) = s.split_once('=').ok_or((2, format!("--set {s}: want PATH=VALUE")))?;
        params.push((k.to_string(), v.to_string()));
    }
    let n_points = sweep.as_ref().map_or(1, |s| s.1.len());
    let jobs = sc.jobs(&params, n_points, c.replications);
    let pb = if std::io::IsTerminal::is_terminal(&std::io::stderr()) && !c.json { ProgressBar::new(jobs as u64) } else { ProgressBar::hidden() };
    pb.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} runs {elapsed_precise} (eta {eta})").unwrap());
    let t0 = Instant::now();
    let sw = sweep.as_ref().map(|(p, v)| (p.as_str(), v.as_slice()));
    let results = sc.run(&costs, &params, sw, c.replications, &|| pb.inc(1)).map_err(|e| (2, e))?;
    pb.finish_and_clear();
    let wall = t0.elapsed().as_secs_f64();
    if let Some(csv) = &c.csv {
        std::fs::write(csv, to_csv(&results)).map_err(|e| (1, format!("{}: {e}", csv.display())))?;
    }
    if let Some(plot) = &c.plot {
        plot::plot(plot, &sc, &results, &c.metric, sweep.as_ref().map(|s| s.0.as_str())).map_err(|e| (1, e))?;
    }
    if c.json {
        let cases: Vec<serde_json::Value> = results
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).unwrap();
                if !c.raw {
                    v["summary"].as_object_mut().unwrap().remove("runs");
                }
                v
            })
            .collect();
        let v = serde_json::json!({
            "scenario": sc.name, "description": sc.description, "reference": sc.reference,
            "costs": costs.locations.iter().map(|(k, l)| (k.clone(), l.source.clone())).collect::<std::collections::BTreeMap<_, _>>(),
            "wall_s": wall, "cases": cases,
        });
        return Ok(serde_json::to_string_pretty(&v).unwrap());
    }
    let mut out = format!("{} — {}\n{}\n\n", sc.name, sc.reference, sc.description.trim());
    out += &table(&results);
    out += &format!("\n({} runs in {:.1} s wall; ± is the 95% CI over replications)", jobs, wall);
    Ok(out)
}

fn fmt_est(e: Option<&Estimate>, prec: usize) -> String {
    match e {
        Some(e) if e.mean.is_finite() => {
            if e.ci95 > 0.0 {
                format!("{:.p$} ±{:.p$}", e.mean, e.ci95, p = prec)
            } else {
                format!("{:.p$}", e.mean, p = prec)
            }
        }
        _ => "-".into(),
    }
}

const COLS: [(&str, &str, usize); 6] = [
    ("throughput_mbps", "Mb/s", 3),
    ("loss_pct", "loss %", 2),
    ("delay_mean_ms", "delay ms", 3),
    ("delay_p95_ms", "p95 ms", 3),
    ("jitter_ms", "jitter ms", 3),
    ("completion_s", "time s", 2),
];

fn table(results: &[CaseResult]) -> String {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut head = vec!["case".to_string(), "flow".to_string()];
    head.extend(COLS.iter().map(|c| c.1.to_string()));
    head.push("paper".into());
    rows.push(head);
    for r in results {
        let case = match &r.point {
            Some(p) => format!("{} [{p}]", r.case),
            None => r.case.clone(),
        };
        let many = r.summary.flows.len() > 9;
        for f in &r.summary.flows {
            if many && f.name != "total" {
                continue;
            }
            let mut row = vec![case.clone(), format!("{} ({})", f.name, f.traffic)];
            for (k, _, p) in COLS {
                row.push(fmt_est(f.metrics.get(k), p));
            }
            let paper: Vec<String> = r.paper.iter().filter(|(k, _)| k.starts_with(&format!("{}.", f.name)) || !k.contains('.')).map(|(k, v)| format!("{k}={v}")).collect();
            row.push(paper.join(" "));
            rows.push(row);
        }
    }
    let w: Vec<usize> = (0..rows[0].len()).map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
    let mut s = String::new();
    for (ri, r) in rows.iter().enumerate() {
        let line: Vec<String> = r.iter().enumerate().map(|(i, c)| format!("{:<w$}", c, w = w[i])).collect();
        s += line.join("  ").trim_end();
        s.push('\n');
        if ri == 0 {
            s += &"-".repeat(w.iter().sum::<usize>() + 2 * (w.len() - 1));
            s.push('\n');
        }
    }
    s
}

fn to_csv(results: &[CaseResult]) -> String {
    let mut s = String::from("case,point,flow,src,dst,traffic,metric,mean,ci95,n\n");
    for r in results {
        for f in &r.summary.flows {
            for (k, e) in &f.metrics {
                s += &format!("{},{},{},{},{},{},{},{},{},{}\n", r.case, r.point.clone().unwrap_or_default(), f.name, f.src, f.dst, f.traffic, k, e.mean, e.ci95, e.n);
            }
        }
        for (k, v) in &r.paper {
            s += &format!("{},{},paper,,,,{},{},,\n", r.case, r.point.clone().unwrap_or_default(), k, v);
        }
    }
    s
}

// ------------------------------------------------------------------------------ costs

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// A plaintext MPDU with a body of `n` octets: a data frame to the DS for the data suites,
/// a group-addressed Deauthentication frame (a robust management frame) for BIP.
fn frame(suite: CipherSuite, n: usize) -> Vec<u8> {
    let mut f = if suite.is_bip() {
        vec![0xc0, 0x00, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 1, 0x10, 0]
    } else {
        vec![0x08, 0x01, 0, 0, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 3, 0x10, 0]
    };
    f.extend((0..n).map(|i| (i * 7 + 3) as u8));
    f
}

fn protection(suite: CipherSuite, portable: bool) -> Box<dyn Protection + Send + Sync> {
    let key: Vec<u8> = (0..suite.key_len()).map(|i| (i as u8).wrapping_mul(17).wrapping_add(1)).collect();
    if portable && matches!(suite, CipherSuite::Ccmp128 | CipherSuite::Ccmp256) {
        return Box::new(PortableCcmp { key: cipher::kernel::CcmKey::new_portable(&key).unwrap(), suite });
    }
    cipher::new_protection(suite, &key, AadOptions::default()).unwrap()
}

/// CCMP over the portable CCM backend (no AES-NI in wsec's kernel; build with
/// `--cfg aes_force_soft` so the `aes` crate underneath uses no AES-NI either).
struct PortableCcmp {
    key: cipher::kernel::CcmKey,
    suite: CipherSuite,
}

impl Protection for PortableCcmp {
    fn suite(&self) -> CipherSuite {
        self.suite
    }
    fn encapsulate(&self, mpdu: &[u8], pn: Pn, key_id: u8, out: &mut Vec<u8>) -> wsec::Result<()> {
        let m = if self.suite == CipherSuite::Ccmp128 { 8 } else { 16 };
        cipher::mpdu::encapsulate(mpdu, pn, key_id, m, AadOptions::default(), out, |n, aad, data, mic| self.key.seal_in_place(&n.ccm(pn), aad.as_bytes(), data, mic))
    }
    fn decapsulate(&self, mpdu: &[u8], out: &mut Vec<u8>) -> wsec::Result<cipher::RxInfo> {
        let m = if self.suite == CipherSuite::Ccmp128 { 8 } else { 16 };
        cipher::mpdu::decapsulate(mpdu, m, AadOptions::default(), out, |n, aad, pn, data, mic| self.key.open_in_place(&n.ccm(pn), aad.as_bytes(), data, mic))
    }
}

fn key_id(s: CipherSuite) -> u8 {
    if s.is_bip() {
        4
    } else {
        0
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// ns per frame at each size: short batches (about 0.25 ms, so that most fall between two
/// preemptions on a shared machine), the sizes interleaved round-robin so
/// that load from other processes falls on all sizes alike; the median of `runs` batches.
fn time_frames(p: &dyn Protection, suite: CipherSuite, sizes: &[usize], decrypt: bool, runs: usize) -> Vec<f64> {
    struct Point {
        plain: Vec<u8>,
        prot: Vec<u8>,
        batch: u64,
        xs: Vec<f64>,
    }
    let mut out = Vec::with_capacity(4096);
    let one = |pt: &Point, i: u64, out: &mut Vec<u8>| {
        if decrypt {
            p.decapsulate(std::hint::black_box(&pt.prot), out).unwrap();
        } else {
            p.encapsulate(std::hint::black_box(&pt.plain), i, key_id(suite), out).unwrap();
        }
        std::hint::black_box(&out);
    };
    let mut pts: Vec<Point> = sizes
        .iter()
        .map(|&n| {
            let plain = frame(suite, n);
            let mut prot = Vec::new();
            p.encapsulate(&plain, 1, key_id(suite), &mut prot).unwrap();
            Point { plain, prot, batch: 8, xs: Vec::new() }
        })
        .collect();
    for pt in pts.iter_mut() {
        loop {
            let t = Instant::now();
            for i in 0..pt.batch {
                one(pt, i, &mut out);
            }
            if t.elapsed().as_secs_f64() > 2.5e-4 || pt.batch > 1 << 22 {
                break;
            }
            pt.batch *= 2;
        }
    }
    for _ in 0..runs.max(1) {
        for pt in pts.iter_mut() {
            let t = Instant::now();
            for i in 0..pt.batch {
                one(pt, i, &mut out);
            }
            pt.xs.push(t.elapsed().as_secs_f64() * 1e9 / pt.batch as f64);
        }
    }
    pts.into_iter().map(|pt| median(pt.xs)).collect()
}

fn costs(a: CostsArgs) -> CmdResult {
    let mut c = match &a.base {
        Some(p) => Costs::load(p).map_err(|e| (2, e))?,
        None => Costs::shipped(),
    };
    let cpu = cpu_model();
    let mut report = String::new();
    let date = std::process::Command::new("date").arg("-u").arg("+%Y-%m-%d").output().ok().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
    if !a.no_host {
        let mut suites = std::collections::BTreeMap::new();
        report += &format!("host CPU: {cpu} (CCM backend {})\n", cipher::kernel::backend());
        report += &format!("{:<14} {:>12} {:>12} {:>12} {:>12}\n", "suite", "enc ns/frame", "enc ns/B", "dec ns/frame", "dec ns/B");
        for s in CipherSuite::ALL {
            let p = protection(s, false);
            let fit = |dec: bool| {
                let ts = time_frames(p.as_ref(), s, &a.sizes, dec, a.runs);
                let pts: Vec<(f64, f64)> = a.sizes.iter().zip(ts).map(|(&n, t)| (n as f64, t)).collect();
                let l = Linear::fit(&pts);
                // Worst relative residual: a noisy machine shows up here.
                let worst = pts.iter().map(|&(x, y)| ((l.a + l.b * x - y) / y).abs()).fold(0.0, f64::max);
                (l, worst)
            };
            let ((enc, we), (dec, wd)) = (fit(false), fit(true));
            let sc = SuiteCost { encrypt: enc, decrypt: dec };
            let warn = if we.max(wd) > 0.1 { format!("  (fit residual {:.0}%: noisy machine?)", 100.0 * we.max(wd)) } else { String::new() };
            report += &format!("{:<14} {:>12.1} {:>12.3} {:>12.1} {:>12.3}{warn}\n", s.name(), sc.encrypt.a, sc.encrypt.b, sc.decrypt.a, sc.decrypt.b);
            suites.insert(s.name().to_string(), sc);
        }
        let src = format!(
            "wsec model costs on {cpu}, {date}: wsec::cipher::new_protection (CCM backend {}), body sizes {:?} octets, median of {} runs, least-squares a + b*bytes",
            cipher::kernel::backend(),
            a.sizes,
            a.runs
        );
        let host = LocationCosts { source: src.clone(), cpu: Some(cpu.clone()), suites: suites.clone(), ..Default::default() };
        c.locations.insert("host".into(), host);
        let ap = LocationCosts {
            source: format!("{src}; the AP's CPU is taken to be this machine's CPU"),
            cpu: Some(cpu.clone()),
            suites,
            ..Default::default()
        };
        c.locations.insert("ap_cpu".into(), ap);
        report += &app_ciphers(&mut c, &cpu, &date, a.runs);
    }
    if a.card {
        report += &card_costs(&mut c, &a, &date).map_err(|e| (1, e))?;
    } else if let Some(card) = c.locations.get_mut("card") {
        // Keep the instruction counts; apply a new clock / IPC if given.
        if card.instructions.is_some() && (a.card_clock_mhz != 200.0 || a.card_ipc != 0.7) {
            card.clock_mhz = Some(a.card_clock_mhz);
            card.ipc = Some(a.card_ipc);
        }
    }
    let hw = a.hw_report.clone().or_else(wsec::model::costs::hw_report_path);
    if let Some(p) = hw {
        c.apply_hw_report(&p, None).map_err(|e| (1, e))?;
        report += &format!("ap_hw_engine from {}\n", p.display());
    }
    c.note = "written by `wsec model costs`; each location records its source".into();
    c.derive();
    std::fs::write(&a.output, c.to_json() + "\n").map_err(|e| (1, format!("{}: {e}", a.output.display())))?;
    report += &format!("wrote {}", a.output.display());
    Ok(report)
}

/// The application-level file ciphers of seed 004, in CBC mode as the paper ran them
/// (AES-256, DES, 3DES, RC2-64, Blowfish-256, RC6-256), timed on a 64 KiB buffer.
fn app_ciphers(c: &mut Costs, cpu: &str, date: &str, runs: usize) -> String {
    use cipher04::{BlockDecrypt, BlockEncrypt, KeyInit};
    fn cbc_time<C: BlockEncrypt + BlockDecrypt>(c: &C, runs: usize, bs: usize) -> (f64, f64) {
        let mut buf = vec![0x5au8; 1 << 16];
        let enc = |buf: &mut [u8]| {
            let mut iv = vec![0u8; bs];
            for blk in buf.chunks_exact_mut(bs) {
                for (b, v) in blk.iter_mut().zip(&iv) {
                    *b ^= v;
                }
                c.encrypt_block(cipher04::generic_array::GenericArray::from_mut_slice(blk));
                iv.copy_from_slice(blk);
            }
        };
        let dec = |buf: &mut [u8]| {
            let mut iv = vec![0u8; bs];
            let mut next = vec![0u8; bs];
            for blk in buf.chunks_exact_mut(bs) {
                next.copy_from_slice(blk);
                c.decrypt_block(cipher04::generic_array::GenericArray::from_mut_slice(blk));
                for (b, v) in blk.iter_mut().zip(&iv) {
                    *b ^= v;
                }
                std::mem::swap(&mut iv, &mut next);
            }
        };
        let t = |f: &dyn Fn(&mut [u8]), buf: &mut Vec<u8>| {
            median((0..runs.max(1)).map(|_| {
                let t0 = Instant::now();
                f(buf);
                t0.elapsed().as_secs_f64() * 1e9 / buf.len() as f64
            }).collect())
        };
        let e = t(&enc, &mut buf);
        let d = t(&dec, &mut buf);
        (e, d)
    }
    fn rc6_time(runs: usize) -> (f64, f64) {
        use cipher05::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
        type Rc6 = rc6::RC6<u32, cipher05::consts::U20, cipher05::consts::U32>;
        let k = Rc6::new_from_slice(&[7u8; 32]).unwrap();
        let mut buf = vec![0x5au8; 1 << 16];
        let mut one = |dec: bool| {
            let t0 = Instant::now();
            let mut iv = [0u8; 16];
            for blk in buf.chunks_exact_mut(16) {
                let b: &mut cipher05::Block<Rc6> = blk.try_into().unwrap();
                if dec {
                    let save: [u8; 16] = (*b).into();
                    k.decrypt_block(b);
                    for (x, v) in b.iter_mut().zip(&iv) {
                        *x ^= v;
                    }
                    iv = save;
                } else {
                    for (x, v) in b.iter_mut().zip(&iv) {
                        *x ^= v;
                    }
                    k.encrypt_block(b);
                    iv = (*b).into();
                }
            }
            t0.elapsed().as_secs_f64() * 1e9 / (1 << 16) as f64
        };
        let e = median((0..runs.max(1)).map(|_| one(false)).collect());
        let d = median((0..runs.max(1)).map(|_| one(true)).collect());
        (e, d)
    }
    let mut rows: Vec<(&str, (f64, f64))> = vec![
        ("aes-256", cbc_time(&aes::Aes256::new_from_slice(&[1u8; 32]).unwrap(), runs, 16)),
        ("des", cbc_time(&des::Des::new_from_slice(&[1u8; 8]).unwrap(), runs, 8)),
        ("3des", cbc_time(&des::TdesEde3::new_from_slice(&[1u8; 24]).unwrap(), runs, 8)),
        ("rc2", cbc_time(&rc2::Rc2::new_with_eff_key_len(&[1u8; 8], 64), runs, 8)),
        ("blowfish", cbc_time(&<blowfish::Blowfish as KeyInit>::new_from_slice(&[1u8; 32]).unwrap(), runs, 8)),
    ];
    rows.push(("rc6", rc6_time(runs)));
    let mut s = format!("application ciphers (CBC, 64 KiB, ns/byte) on {cpu}:\n");
    for (name, (e, d)) in rows {
        s += &format!("  {name:<9} encrypt {e:.3}  decrypt {d:.3}\n");
        c.app_ciphers.insert(
            name.to_string(),
            AppCipherCost {
                source: format!("wsec model costs on {cpu}, {date}: RustCrypto {name} in CBC over 64 KiB, median of {runs}"),
                encrypt: Linear { a: 0.0, b: e },
                decrypt: Linear { a: 0.0, b: d },
            },
        );
    }
    s
}

/// Card costs: instructions of the portable cipher code counted by callgrind (this binary
/// re-run as `model count-kernel`), fitted over the sizes, divided by clock x IPC.
fn card_costs(c: &mut Costs, a: &CostsArgs, date: &str) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let count = |suite: &str, bytes: usize, frames: usize, dec: bool| -> Result<f64, String> {
        let mut cmd = std::process::Command::new("valgrind");
        cmd.args(["--tool=callgrind", "--callgrind-out-file=/dev/null"]).arg(&exe).args(["model", "count-kernel", "--suite", suite, "--bytes", &bytes.to_string(), "--frames", &frames.to_string()]);
        if dec {
            cmd.arg("--decrypt");
        }
        let out = cmd.output().map_err(|e| format!("valgrind: {e} (install valgrind)"))?;
        let err = String::from_utf8_lossy(&out.stderr);
        let line = err.lines().find(|l| l.contains("Collected :")).ok_or(format!("no callgrind total in: {err}"))?;
        line.rsplit(':').next().unwrap().trim().parse::<f64>().map_err(|e| e.to_string())
    };
    let sizes = [64usize, 512, 1500];
    let mut ins = std::collections::BTreeMap::new();
    let mut s = String::from("card: instructions per frame (portable code, callgrind)\n");
    for suite in CipherSuite::ALL {
        let mut fits = Vec::new();
        for dec in [false, true] {
            let mut pts = Vec::new();
            for &n in &sizes {
                let (k1, k2) = (1usize, 41usize);
                let i1 = count(suite.name(), n, k1, dec)?;
                let i2 = count(suite.name(), n, k2, dec)?;
                pts.push((n as f64, (i2 - i1) / (k2 - k1) as f64));
            }
            fits.push(Linear::fit(&pts));
        }
        s += &format!("  {:<14} enc {:.0} + {:.2}/B   dec {:.0} + {:.2}/B\n", suite.name(), fits[0].a, fits[0].b, fits[1].a, fits[1].b);
        ins.insert(suite.name().to_string(), SuiteCost { encrypt: fits[0], decrypt: fits[1] });
    }
    let portable_ok = option_env!("WSEC_PORTABLE_BUILD").is_some();
    c.locations.insert(
        "card".into(),
        LocationCosts {
            source: format!(
                "instruction counts of wsec's portable cipher code (x86-64, {}) by valgrind --tool=callgrind, {date}, sizes {:?}, fitted a + b*bytes; time = instructions / (clock_mhz x ipc), clock and IPC assumed for an embedded WLAN-card core (docs/model.md)",
                if portable_ok { "built with --cfg aes_force_soft --cfg polyval_force_soft" } else { "WARNING: not built with aes_force_soft" },
                sizes
            ),
            clock_mhz: Some(a.card_clock_mhz),
            ipc: Some(a.card_ipc),
            instructions: Some(ins),
            ..Default::default()
        },
    );
    Ok(s)
}

fn count_kernel(a: CountArgs) -> CmdResult {
    let suite: CipherSuite = a.suite.parse().map_err(|_| (2, format!("unknown suite {}", a.suite)))?;
    let p = protection(suite, true);
    let plain = frame(suite, a.bytes);
    let mut prot = Vec::new();
    p.encapsulate(&plain, 1, key_id(suite), &mut prot).map_err(|e| (1, e.to_string()))?;
    let mut out = Vec::new();
    for i in 0..a.frames {
        if a.decrypt {
            p.decapsulate(std::hint::black_box(&prot), &mut out).map_err(|e| (1, e.to_string()))?;
        } else {
            p.encapsulate(std::hint::black_box(&plain), i as u64 + 2, key_id(suite), &mut out).map_err(|e| (1, e.to_string()))?;
        }
        std::hint::black_box(&out);
    }
    Ok(String::new())
}

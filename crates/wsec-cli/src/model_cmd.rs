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
use wsec::cipher::CipherSuite;
use wsec_bench::model_costs::{self, CostsConfig, CountKernel};
use wsec_model::config::{limits, PhySpec};
use wsec_model::costs::Costs;
use wsec_model::scenario::CaseResult;
use wsec_model::stats::Estimate;
use wsec_model::{replicate, saturation_spec, Scenario};

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
    /// Number of stations, all saturated, sending to the AP (1..=2007)
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
    /// Seed of the first replication's random streams
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Independent replications (seeds seed, seed+1, ...) for the confidence interval
    #[arg(long, default_value_t = 5)]
    replications: usize,
    /// Bianchi's assumptions: no beacons, no retry limit, DIFS after collisions
    #[arg(long)]
    bianchi: bool,
    /// 802.11b: short preamble (default long)
    #[arg(long)]
    short_preamble: bool,
    /// 802.11g: long slot time, 20 us (default short, 9 us)
    #[arg(long)]
    long_slot: bool,
    /// 802.11n: the 5 GHz band (default 2.4 GHz)
    #[arg(long)]
    band_5ghz: bool,
    /// 802.11n: MPDUs per A-MPDU
    #[arg(long, default_value_t = 1)]
    ampdu: usize,
    /// Print JSON instead of the one-line result
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
    /// Scenario file (TOML, e.g. scenarios/saturation_g54.toml; docs/model.md)
    scenario: PathBuf,
    #[command(flatten)]
    common: CommonRun,
}

#[derive(Args)]
struct SweepArgs {
    /// Scenario file (TOML, e.g. scenarios/saturation_g54.toml; docs/model.md)
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
    /// Card processor clock (MHz), for --card
    #[arg(long, default_value_t = 200.0)]
    card_clock_mhz: f64,
    /// Card processor instructions per cycle, for --card
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
            let (path, values) = parse_sweep(&s.param).map_err(|e| (2, e.to_string()))?;
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
    phy.build().map_err(|e| (2, e.to_string()))?;
    if a.stations == 0 || a.duration.is_nan() || a.duration <= 0.0 || a.payload == 0 || a.payload > 2304 - 36 {
        return Err((2, "need --stations >= 1, --duration > 0 and 1 <= --payload <= 2268".into()));
    }
    // The resource limits (wsec_model::config::limits), checked before the stations' flows
    // are built: --stations 100000000 would be a 27 GB allocation.
    let over = |what: &str, v: String, max: String| Err((2, format!("{what} {v} exceeds the limit of {max}")));
    if a.stations > limits::STATIONS {
        return over("--stations", a.stations.to_string(), format!("{} (AID 1-2007)", limits::STATIONS));
    }
    if a.duration > limits::DURATION_S {
        return over("--duration", a.duration.to_string(), format!("{} simulated seconds", limits::DURATION_S));
    }
    if a.replications > limits::REPLICATIONS {
        return over("--replications", a.replications.to_string(), limits::REPLICATIONS.to_string());
    }
    if a.ampdu > limits::AMPDU {
        return over("--ampdu", a.ampdu.to_string(), limits::AMPDU.to_string());
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
    let s = replicate(&spec, &costs, a.replications).map_err(|e| (2, e.to_string()))?;
    let wall = t0.elapsed().as_secs_f64();
    let per_run: Vec<f64> = s.runs.iter().map(|r| r.aggregate_throughput_mbps).collect();
    let (mut att, mut coll) = (0u64, 0u64);
    for r in &s.runs {
        for n in &r.nodes {
            att += n.tx_attempts;
            coll += n.collisions;
        }
    }
    let per_station: Vec<f64> =
        (0..a.stations).map(|i| Estimate::of(&s.runs.iter().map(|r| r.flows[i].throughput_mbps).collect::<Vec<_>>()).mean).collect();
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
        let points = ((b - a) / st).floor() + 1.0;
        if !(points.is_finite() && points <= limits::SWEEP_POINTS as f64) {
            return Err(format!("--param: {points} values exceed the limit of {}", limits::SWEEP_POINTS));
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
    if values.len() > limits::SWEEP_POINTS {
        return Err(format!("--param: {} values exceed the limit of {}", values.len(), limits::SWEEP_POINTS));
    }
    Ok((path.to_string(), values))
}

fn load_costs(p: &Option<PathBuf>) -> Result<Costs, (u8, String)> {
    match p {
        Some(p) => Costs::load(p).map_err(|e| (2, e.to_string())),
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
    crate::inputs_exist(std::iter::once(path).chain(c.costs.as_deref()))?;
    if let Some(p) = &c.plot {
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        if ext != "svg" && ext != "png" {
            return Err((2, format!("{}: plot to .svg or .png", p.display())));
        }
    }
    let sc = Scenario::load(path).map_err(|e| (2, e.to_string()))?;
    let costs = load_costs(&c.costs)?;
    let mut params = Vec::new();
    for s in &c.set {
        let (k, v) = s.split_once('=').ok_or((2, format!("--set {s}: want PATH=VALUE")))?;
        params.push((k.to_string(), v.to_string()));
    }
    let n_points = sweep.as_ref().map_or(1, |s| s.1.len());
    let jobs = sc.jobs(&params, n_points, c.replications);
    let pb =
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) && !c.json { ProgressBar::new(jobs as u64) } else { ProgressBar::hidden() };
    pb.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} runs {elapsed_precise} (eta {eta})").unwrap());
    let t0 = Instant::now();
    let sw = sweep.as_ref().map(|(p, v)| (p.as_str(), v.as_slice()));
    let results = sc.run(&costs, &params, sw, c.replications, &|| pb.inc(1)).map_err(|e| (2, e.to_string()))?;
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
            let paper: Vec<String> = r
                .paper
                .iter()
                .filter(|(k, _)| k.starts_with(&format!("{}.", f.name)) || !k.contains('.'))
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
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
                s += &format!(
                    "{},{},{},{},{},{},{},{},{},{}\n",
                    r.case,
                    r.point.clone().unwrap_or_default(),
                    f.name,
                    f.src,
                    f.dst,
                    f.traffic,
                    k,
                    e.mean,
                    e.ci95,
                    e.n
                );
            }
        }
        for (k, v) in &r.paper {
            s += &format!("{},{},paper,,,,{},{},,\n", r.case, r.point.clone().unwrap_or_default(), k, v);
        }
    }
    s
}

fn costs(a: CostsArgs) -> CmdResult {
    crate::inputs_exist(a.base.as_deref().into_iter().chain(a.hw_report.as_deref()))?;
    let exe = std::env::current_exe().map_err(|e| (1, e.to_string()))?;
    let cfg = CostsConfig {
        base: a.base,
        runs: a.runs,
        sizes: a.sizes,
        card: a.card,
        card_clock_mhz: a.card_clock_mhz,
        card_ipc: a.card_ipc,
        hw_report: a.hw_report,
        no_host: a.no_host,
        count_exe: exe,
    };
    let (c, mut report) = model_costs::measure(&cfg).map_err(|e| (1, e.to_string()))?;
    std::fs::write(&a.output, c.to_json() + "\n").map_err(|e| (1, format!("{}: {e}", a.output.display())))?;
    report += &format!("wrote {}", a.output.display());
    Ok(report)
}

fn count_kernel(a: CountArgs) -> CmdResult {
    let suite: CipherSuite = a.suite.parse().map_err(|_| (2, format!("unknown suite {}", a.suite)))?;
    model_costs::count_kernel(&CountKernel { suite, bytes: a.bytes, frames: a.frames, decrypt: a.decrypt })
        .map_err(|e| (1, e.to_string()))?;
    Ok(String::new())
}

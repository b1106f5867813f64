//! The parts of the report: each reruns or reads one source and turns it into seed tables.
use crate::seeds::Seeds;
use crate::{Assumption, Depth, Error, Fact, Options, Part, Result, Row, Spread, Table};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use wsec_bench::ccmp as bench_ccmp;
use wsec_bench::ciphers::{report as creport, run as cbench};
use wsec_model::costs::Costs;
use wsec_model::scenario::CaseResult;
use wsec_model::stats::Estimate;
use wsec_model::Scenario;

/// Largest committed input read (the hardware report is ~30 KB, a demo table < 2 KB).
const MAX_INPUT: u64 = 16 << 20;

/// A scenario and its file stem.
type Named = (String, Scenario);

/// The live demo's command as the committed table was recorded.
pub const DEMO_CMD: &str = "sudo wsec demo --mode all --seconds 3 --runs 5";

pub struct Collector<'a> {
    o: &'a Options,
    seeds: Option<Seeds>,
    parts: Vec<Part>,
    tables: Vec<Table>,
    /// The model's costs, kept for the assumptions they carry.
    costs: Option<Costs>,
    /// The demo table's command and the number of runs per mode it gives.
    demo_cmd: String,
}

/// Reads a committed file, bounded.
fn read_bounded(p: &Path) -> Result<String> {
    let meta = std::fs::metadata(p).map_err(|e| Error::Input(format!("{}: {e}", p.display())))?;
    if meta.len() > MAX_INPUT {
        return Err(Error::Input(format!("{}: {} octets exceed the limit of {MAX_INPUT}", p.display(), meta.len())));
    }
    std::fs::read_to_string(p).map_err(|e| Error::Input(format!("{}: {e}", p.display())))
}

fn f(v: &Value, k: &str) -> Option<f64> {
    v.get(k).and_then(Value::as_f64)
}

/// The quartiles of a CCMP benchmark record, scaled (ns to us: 1e-3).
fn rec_spread(x: &bench_ccmp::Record, scale: f64) -> Spread {
    Spread::new("iqr", x.q1_ns * scale, x.q3_ns * scale, x.samples as u32).noisy(x.is_noisy())
}

/// The 95 % interval of a model estimate.
fn est_spread(e: &Estimate) -> Spread {
    Spread::new("ci95", e.mean - e.ci95, e.mean + e.ci95, e.n as u32)
}

/// `v` with `digits` decimals, without the sign of a negative zero ("-0.0" is "0.0").
pub fn fixed(v: f64, digits: usize) -> String {
    let s = format!("{v:.digits$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// The "why" sentence's figures: each one quoted is computed from the table's rows here
/// and recorded as a [`Fact`] for the test to recompute.
struct Why<'r> {
    rows: &'r [Row],
    facts: Vec<Fact>,
}

impl<'r> Why<'r> {
    fn new(rows: &'r [Row]) -> Why<'r> {
        Why { rows, facts: Vec::new() }
    }

    fn fact(&mut self, op: &str, field: &str, names: &[&str], digits: usize) -> String {
        match Fact::eval(op, field, names, self.rows) {
            Some(v) => {
                let shown = fixed(v, digits);
                self.facts.push(Fact {
                    shown: shown.clone(),
                    op: op.into(),
                    field: field.into(),
                    rows: names.iter().map(|s| s.to_string()).collect(),
                    digits,
                });
                shown
            }
            None => "no figure".into(),
        }
    }

    fn ours(&mut self, name: &str, digits: usize) -> String {
        self.fact("value", "ours", &[name], digits)
    }
}

impl<'a> Collector<'a> {
    pub fn new(o: &'a Options) -> Collector<'a> {
        Collector { o, seeds: None, parts: Vec::new(), tables: Vec::new(), costs: None, demo_cmd: DEMO_CMD.into() }
    }

    pub fn finish(self) -> (Vec<Part>, Vec<Table>) {
        (self.parts, self.tables)
    }

    fn s(&self) -> &Seeds {
        self.seeds.as_ref().expect("seeds loaded in run_all")
    }

    fn quick(&self) -> bool {
        self.o.depth == Depth::Quick
    }

    fn rerun(&mut self, id: &str, title: &str, t0: Instant, command: &str) {
        self.parts.push(Part {
            id: id.into(),
            title: title.into(),
            source: "rerun".into(),
            wall_s: t0.elapsed().as_secs_f64(),
            file: None,
            commit: None,
            date: None,
            command: command.into(),
        });
    }

    /// A part read from a committed file: its last commit and date from git.
    fn committed(&mut self, id: &str, title: &str, t0: Instant, file: &Path, command: &str) {
        let (rel, commit, date) = self.provenance(file);
        self.parts.push(Part {
            id: id.into(),
            title: title.into(),
            source: "committed".into(),
            wall_s: t0.elapsed().as_secs_f64(),
            file: Some(rel),
            commit,
            date,
            command: command.into(),
        });
    }

    /// A file's path in the checkout and its last commit and date.
    fn provenance(&self, file: &Path) -> (String, Option<String>, Option<String>) {
        let rel = file.strip_prefix(&self.o.repo).unwrap_or(file).to_string_lossy().into_owned();
        let log = crate::env::git(&self.o.repo, &["log", "-1", "--format=%h %cI", "--", &rel]);
        match log.as_deref().and_then(|l| l.split_once(' ')) {
            Some((c, d)) => (rel, Some(c.to_string()), Some(d.to_string())),
            None => (rel, Some("not committed".to_string()), None),
        }
    }

    /// A table of seed `seed` citing `item` of data/seeds.json.
    #[allow(clippy::too_many_arguments)]
    fn table(
        &self,
        id: &str,
        seed: &str,
        item: &str,
        title: &str,
        parts: &[&str],
        rows: Vec<Row>,
        why: (String, Vec<Fact>),
        command: &str,
        charts: Vec<String>,
        assumptions: Vec<Assumption>,
    ) -> Table {
        let key = format!("seed{seed}");
        Table {
            id: id.into(),
            seed: seed.into(),
            title: title.into(),
            reference: self.s().reference(&key, item),
            parts: parts.iter().map(|p| p.to_string()).collect(),
            rows,
            why: why.0,
            facts: why.1,
            command: command.into(),
            charts,
            assumptions,
            seed_file: self.s().file(&key),
            seed_line: self.s().line(&key, item),
        }
    }

    pub fn run_all(&mut self, progress: &mut dyn FnMut(&str)) -> Result<()> {
        self.seeds = Some(Seeds::load()?);
        progress("seed 000 Tables I/II: CCMP MIC and CTR, 1/2/4/8 lanes, with the peers");
        self.ccmp()?;
        progress("seed 004: the cipher study (throughput, energy)");
        self.ciphers()?;
        progress("the DCF model: seed 000 Figs. 5-7, seed 002 Tables 1-3, seed 004 Tables 2-3");
        let (model, scen) = self.model()?;
        progress("the live system (wsec demo)");
        let live = self.demo()?;
        self.seed000_figs(&model[0], &scen[0], &live);
        self.seed002(&model[1..4], &scen[1..4]);
        self.seed004_tables(&model[4..6], &scen[4..6]);
        progress("the Verilog engines (place and route)");
        self.hw()?;
        // Seed order: 000, 001, 002, 003, 004.
        self.tables.sort_by_key(|t| (t.seed.clone(), order(&t.id)));
        Ok(())
    }

    // ---- seed 000 Tables I and II ------------------------------------------------------

    fn ccmp(&mut self) -> Result<()> {
        let t0 = Instant::now();
        let quick = self.quick();
        let opts = if quick {
            bench_ccmp::Options::new(vec![1500], 3, Duration::from_micros(300))
        } else {
            bench_ccmp::Options::new(vec![1500], 5, Duration::from_millis(20))
        };
        let r = bench_ccmp::run(&opts, quick, |_| {}).map_err(|e| Error::Run(format!("bench ccmp: {e}")))?;
        let cmd = if quick { "wsec bench ccmp --quick --sizes 1500" } else { "wsec bench ccmp --sizes 1500" };
        self.rerun("bench-ccmp", "CCMP kernels and peers (wsec bench ccmp)", t0, cmd);
        let cpu = r.cpu.clone();
        for (id, op, key, title) in [
            ("seed000-table1", "mic", "table1", "Seed 000 Table I: CCMP MIC (CBC-MAC), standard vs 2/4/8 parallel lanes"),
            ("seed000-table2", "ctr", "table2", "Seed 000 Table II: AES-CTR, standard vs 2/4/8 parallel lanes"),
        ] {
            let mut rows = Vec::new();
            let lanes = [1usize, 2, 4, 8];
            let base = r.find("wsec", op, 1500, 1, 1);
            let p = |cpu: &str, i: usize| self.s().nth_printed(&format!("seed000/{key}/{cpu}"), i);
            for (i, &l) in lanes.iter().enumerate() {
                let x = r.find("wsec", op, 1500, l, 1);
                let name = if l == 1 { "standard".to_string() } else { format!("{l} lanes") };
                let paper = p("i5", i);
                let mut row = Row::new(
                    format!("{name}: time per frame"),
                    "bench",
                    "us",
                    paper.as_ref().map(|x| x.0),
                    x.map(|x| x.ns_per_frame / 1e3),
                    format!("wsec {op}, {} backend, 1500-octet frame", r.backend),
                )
                .spread(x.map(|x| rec_spread(x, 1e-3)))
                .smoke(quick);
                if let Some((_, t)) = paper {
                    row = row.printed(t);
                }
                rows.push(row);
            }
            for (i, &l) in lanes.iter().enumerate().skip(1) {
                let x = r.find("wsec", op, 1500, l, 1);
                let ours = base.zip(x).map(|(b, x)| b.ns_per_frame / x.ns_per_frame);
                let spread = base.zip(x).map(|(b, x)| Spread::combine(&rec_spread(b, 1.0), &rec_spread(x, 1.0), |a, c| a / c));
                let paper = p("i5", 0).zip(p("i5", i)).map(|(b, x)| b.0 / x.0);
                rows.push(
                    Row::new(format!("{l} lanes: speed-up over standard"), "bench", "x", paper, ours, format!("wsec {op}"))
                        .derived(format!(
                            "the i5's standard time over its {l}-lane time ({} / {} us)",
                            p("i5", 0).map_or("-".into(), |x| x.1),
                            p("i5", i).map_or("-".into(), |x| x.1)
                        ))
                        .spread(spread)
                        .smoke(quick),
                );
            }
            for (i, &l) in lanes.iter().enumerate() {
                for (cpu_name, k) in [("i7", "i7"), ("AMD 6-Core", "amd6")] {
                    let paper = p(k, i);
                    let x = r.find("wsec", op, 1500, l, 1);
                    let mut row = Row::new(
                        format!("{l} lane(s), paper's {cpu_name}"),
                        "bench",
                        "us",
                        paper.as_ref().map(|x| x.0),
                        x.map(|x| x.ns_per_frame / 1e3),
                        format!("wsec {op}, this CPU"),
                    )
                    .spread(x.map(|x| rec_spread(x, 1e-3)))
                    .smoke(quick)
                    .note("the paper's other CPUs, against the same figure of ours");
                    if let Some((_, t)) = paper {
                        row = row.printed(t);
                    }
                    rows.push(row);
                }
            }
            if op == "mic" {
                // The peers time whole CCMP encapsulation (MIC + CTR + header) of the same frame.
                for imp in ["wsec", "wsec-mb", "rustcrypto-ccm", "openssl", "ipsec-mb"] {
                    let fif = if imp.ends_with("-mb") { 8 } else { 1 };
                    if let Some(x) = r.find(imp, "encap", 1500, 1, fif) {
                        rows.push(
                            Row::new(
                                format!("{imp}: CCMP encapsulation, {fif} frame(s) in flight"),
                                "peer",
                                "us",
                                None,
                                Some(x.ns_per_frame / 1e3),
                                format!("{imp} ({})", x.backend),
                            )
                            .spread(Some(rec_spread(x, 1e-3)))
                            .smoke(quick)
                            .note("the paper timed no peer library"),
                        );
                    }
                }
            }
            let mut w = Why::new(&rows);
            let why = if op == "mic" {
                let t = w.fact("value", "ratio", &["standard: time per frame"], 3);
                let sp = w.ours("8 lanes: speed-up over standard", 2);
                let pp = w.fact("value", "paper", &["8 lanes: speed-up over standard"], 2);
                format!("The paper's figures are tens of microseconds (2015 code on an i5, frame size not stated); ours are {} kernels on a 1500-octet frame on {cpu}: the standard MIC takes {t} of the paper's time. Lanes help the MIC because CBC-MAC is serial in one lane and interleaves across lanes, the paper's own argument: 8 lanes give {sp}x here, {pp}x in the paper.", r.backend)
            } else {
                let sp = w.ours("8 lanes: speed-up over standard", 2);
                let pp = w.fact("value", "paper", &["8 lanes: speed-up over standard"], 2);
                format!("CTR is already parallel inside one lane (every counter block is independent), so our kernels pipeline it at one lane and more lanes add little: {sp}x at 8 lanes against the paper's {pp}x, whose code ran CTR one block at a time.")
            };
            let facts = w.facts;
            let assumptions = vec![
                Assumption::new("frame", "1500-octet MSDU", "the report's choice (a full Ethernet-sized MSDU); the paper states no size"),
                Assumption::new("CPU (ours)", format!("{cpu}, {} backend", r.backend), "this machine"),
                Assumption::new(
                    "CPU (paper)",
                    "Intel Core i5 (rows without a CPU name); i7 and AMD 6-Core rows against the same figure of ours",
                    "seed 000 Table I/II",
                ),
                Assumption::new(
                    "samples",
                    if quick {
                        "3 samples of 0.3 ms (--quick: smoke figures)".to_string()
                    } else {
                        "5 samples of 20 ms, the quietest of up to 3 rounds".into()
                    },
                    "wsec-bench ccmp Options",
                ),
            ];
            let t = self.table(id, "000", key, title, &["bench-ccmp"], rows, (why, facts), cmd, vec![format!("{id}.svg")], assumptions);
            self.tables.push(t);
        }
        Ok(())
    }

    // ---- seed 004: throughput and energy ----------------------------------------------

    fn ciphers(&mut self) -> Result<()> {
        use wsec_bench::energy::{Battery, Eq7, Meter};
        let t0 = Instant::now();
        let quick = self.quick();
        let cfg = if quick { cbench::Config::quick() } else { cbench::Config::full() };
        let (meter, _) = Meter::auto(Eq7::seed004());
        let res = cbench::run(&cfg, &meter, &mut |_| {}).map_err(|e| Error::Run(format!("bench ciphers: {e}")))?;
        let battery = Battery::of_this_machine().unwrap_or_else(Battery::laptop_6cell);
        let recs = serde_json::to_value(creport::records(&res, &battery)).map_err(|e| Error::Run(e.to_string()))?;
        let recs = recs.as_array().cloned().unwrap_or_default();
        let cmd = if quick { "wsec bench ciphers --quick --json" } else { "wsec bench ciphers --json" };
        self.rerun("bench-ciphers", "Seed 004's cipher study (wsec bench ciphers)", t0, cmd);
        // The largest file of a data type, CBC in the paper's key sizes. The paper's "video"
        // files are .WAV (its conclusion, line 357): our bench's audio set.
        let pick = |cipher: &str, bits: u64, data: &str, op: &str| -> Option<&Value> {
            recs.iter()
                .filter(|r| {
                    r["cipher"] == cipher
                        && r["key_bits"].as_u64() == Some(bits)
                        && r["data"] == if data == "video" { "audio" } else { data }
                        && r["op"] == op
                        && r["scenario"] == "file"
                })
                .max_by_key(|r| r["bytes"].as_u64().unwrap_or(0))
        };
        // min-max over the runs of the record (MB/s).
        let mbs_spread = |r: &Value| -> Option<Spread> {
            Some(Spread::new("min-max", f(r, "mb_per_s_min")?, f(r, "mb_per_s_max")?, r["runs"].as_u64().unwrap_or(1) as u32))
        };
        let paper_specs = [("Blowfish", 256), ("RC6", 256), ("AES", 256), ("DES", 64), ("3DES", 192), ("RC2", 64)];
        let ranking_line = self.s().line("seed004", "throughput");
        let mut rows = Vec::new();
        let mut our_order = String::new();
        for (data, op) in [("text", "encrypt"), ("text", "decrypt"), ("video", "encrypt"), ("video", "decrypt")] {
            // (cipher, MB/s, slowest run, fastest run)
            let mut measured: Vec<(&str, f64, f64, f64)> = paper_specs
                .iter()
                .filter_map(|&(c, b)| {
                    let r = pick(c, b, data, op)?;
                    let m = f(r, "mb_per_s")?;
                    Some((c, m, f(r, "mb_per_s_min").unwrap_or(m), f(r, "mb_per_s_max").unwrap_or(m)))
                })
                .collect();
            measured.sort_by(|a, b| b.1.total_cmp(&a.1));
            if our_order.is_empty() {
                our_order = measured.iter().map(|m| m.0).collect::<Vec<_>>().join(", ");
            }
            let ranking = self.s().at("seed004/throughput/ranking").as_array().cloned().unwrap_or_default();
            for (c, b) in paper_specs {
                let paper_rank = ranking.iter().position(|x| x == c).map(|i| (i + 1) as f64);
                let our_rank = measured.iter().position(|x| x.0 == c).map(|i| (i + 1) as f64);
                let rec = pick(c, b, data, op);
                rows.push(
                    Row::new(
                        format!("{c}-{b}, {data}, {op}: rank"),
                        "bench",
                        "rank",
                        paper_rank,
                        our_rank,
                        "rank by MB/s among the paper's six, largest file",
                    )
                    .derived(
                        "the paper prints no ranks: the order of its prose (Blowfish, then RC6, AES ahead of DES, 3DES and RC2, RC2 last)",
                    )
                    .line(ranking_line)
                    .spread(measured.iter().find(|x| x.0 == c).map(|me| {
                        // The ranks the runs allow: ahead of every cipher whose fastest run
                        // is slower than our slowest, behind every one whose slowest run is
                        // faster than our fastest.
                        let best = 1 + measured.iter().filter(|o| o.0 != c && o.2 > me.3).count();
                        let worst = 1 + measured.iter().filter(|o| o.0 != c && o.3 >= me.2).count();
                        Spread::new("min-max", best as f64, worst as f64, rec.and_then(|r| r["runs"].as_u64()).unwrap_or(1) as u32)
                    }))
                    .smoke(quick),
                );
                rows.push(
                    Row::new(
                        format!("{c}-{b}, {data}, {op}: throughput"),
                        "bench",
                        "MB/s",
                        None,
                        rec.and_then(|r| f(r, "mb_per_s")),
                        if data == "video" { "CBC/PKCS#7, RustCrypto, largest .WAV file" } else { "CBC/PKCS#7, RustCrypto, largest file" },
                    )
                    .spread(rec.and_then(mbs_spread))
                    .smoke(quick)
                    .note("no figure: the paper's Figs. 6, 9, 12, 15 are plots without printed values"),
                );
            }
        }
        let cmd_energy = cmd;
        let mut w = Why::new(&rows);
        let aes_rank = w.ours("AES-256, text, encrypt: rank", 0);
        let why = format!(
            "Our order, fastest first (text, encrypt): {our_order}; the paper's: Blowfish, RC6, AES, DES, 3DES, RC2. AES has dedicated instructions today, so it ranks {aes_rank} here where the paper (.NET on Windows XP, 2009) found Blowfish and RC6 fastest; the other ciphers run as portable RustCrypto code. Ranks are compared by their order, so no ratio is given."
        );
        let facts = w.facts;
        let assumptions = vec![
            Assumption::new("ciphers", "CBC with PKCS#7 padding, RustCrypto crates; key sizes as the paper's: AES-256, DES, 3DES-192, RC2-64, Blowfish-256, RC6-256", "wsec-bench ciphers"),
            Assumption::new("files", "the largest generated file of each type (text .doc-like, .WAV for the paper's 'video')", "wsec-bench ciphers::data; the paper's conclusion (line 357) calls its video files .WAV"),
            Assumption::new("runs", if quick { "--quick: few short runs (smoke figures)".to_string() } else { "full runs".into() }, "wsec-bench ciphers Config"),
        ];
        let t = self.table(
            "seed004-throughput",
            "004",
            "throughput",
            "Seed 004 Figs. 6, 9, 12, 15: cipher throughput and ranking (text and video files, encrypt and decrypt)",
            &["bench-ciphers"],
            rows,
            (why, facts),
            cmd,
            vec!["seed004-throughput.svg".into()],
            assumptions.clone(),
        );
        self.tables.push(t);
        let mut rows = Vec::new();
        if let Some(ratios) = self.s().at("seed004/energy/ratios").as_array() {
            for q in ratios {
                let (c, data, op) = (q["cipher"].as_str().unwrap_or(""), q["data"].as_str().unwrap_or(""), q["op"].as_str().unwrap_or(""));
                let bits = if c == "Blowfish" || c == "RC6" { 256 } else { 64 };
                let (x, a) = (pick(c, bits, data, op), pick("AES", 256, data, op));
                let ours = match (x.and_then(|r| f(r, "uj_per_byte")), a.and_then(|r| f(r, "uj_per_byte"))) {
                    (Some(x), Some(a)) if a > 0.0 => Some(100.0 * x / a),
                    _ => None,
                };
                // Energy is time x power: its spread follows the rate's (slowest run of
                // ours over the fastest of AES's, and the other way).
                let spread = match (x, a, ours) {
                    (Some(x), Some(a), Some(o)) => {
                        let (xm, xl, xh) = (f(x, "mb_per_s"), f(x, "mb_per_s_min"), f(x, "mb_per_s_max"));
                        let (am, al, ah) = (f(a, "mb_per_s"), f(a, "mb_per_s_min"), f(a, "mb_per_s_max"));
                        match (xm, xl, xh, am, al, ah) {
                            (Some(xm), Some(xl), Some(xh), Some(am), Some(al), Some(ah)) if xl > 0.0 && al > 0.0 => {
                                let n = x["runs"].as_u64().unwrap_or(1).min(a["runs"].as_u64().unwrap_or(1)) as u32;
                                Some(Spread::new("min-max", o * (xm / xh) * (al / am), o * (xm / xl) * (ah / am), n))
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                };
                let paper = f(q, "pct_of_aes");
                rows.push(
                    Row::new(
                        format!("{c} energy as % of AES-256's, {data}, {op}"),
                        "bench",
                        "% of AES",
                        paper,
                        ours,
                        format!("{} method, largest file", res.energy_method.as_str()),
                    )
                    .line(q["line"].as_u64().unwrap_or(0) as u32)
                    .spread(spread)
                    .smoke(quick),
                );
            }
        }
        for (c, b) in paper_specs {
            let rec = pick(c, b, "text", "encrypt");
            let uj = rec.and_then(|r| f(r, "uj_per_byte"));
            let spread = match (rec, uj) {
                (Some(r), Some(u)) => match (f(r, "mb_per_s"), f(r, "mb_per_s_min"), f(r, "mb_per_s_max")) {
                    (Some(m), Some(lo), Some(hi)) if lo > 0.0 => {
                        Some(Spread::new("min-max", u * m / hi, u * m / lo, r["runs"].as_u64().unwrap_or(1) as u32))
                    }
                    _ => None,
                },
                _ => None,
            };
            rows.push(
                Row::new(format!("{c}-{b}: energy per byte, text, encrypt"), "bench", "uJ/B", None, uj, res.energy_source.clone())
                    .spread(spread)
                    .smoke(quick)
                    .note("no figure: the paper's Figs. 7, 10, 13, 16 are plots without printed values"),
            );
        }
        let mut w = Why::new(&rows);
        let shares: Vec<String> = rows.iter().filter(|r| r.unit == "% of AES").map(|r| r.label.clone()).collect();
        let names: Vec<&str> = shares.iter().map(String::as_str).collect();
        let lo = w.fact("min", "ours", &names, 0);
        let hi = w.fact("max", "ours", &names, 0);
        let plo = w.fact("min", "paper", &names, 0);
        let phi = w.fact("max", "paper", &names, 0);
        let why = format!(
            "Energy here is time x power (RAPL where readable, else the paper's equation 7), so it follows throughput: with AES instructions AES costs least, and Blowfish and RC6 cost {lo} to {hi} % of AES's energy (decryption most, since AES-NI decrypts CBC blocks in parallel) where the paper found {plo} to {phi} %."
        );
        let facts = w.facts;
        let mut a2 = assumptions;
        a2.push(Assumption::new(
            "energy",
            format!("{} ({})", res.energy_method.as_str(), res.energy_source),
            "wsec-bench energy Meter::auto",
        ));
        let t = self.table(
            "seed004-energy",
            "004",
            "energy",
            "Seed 004 energy (Figs. 7, 10, 13, 16 and sections 5.1.4, 5.2.4): energy of Blowfish and RC6 as a share of AES's",
            &["bench-ciphers"],
            rows,
            (why, facts),
            cmd_energy,
            vec!["seed004-energy.svg".into()],
            a2,
        );
        self.tables.push(t);
        Ok(())
    }

    // ---- the model ----------------------------------------------------------------------

    fn model(&mut self) -> Result<(Vec<Vec<CaseResult>>, Vec<Named>)> {
        let t0 = Instant::now();
        // The costs `wsec model run` uses from the checkout: the shipped file with the AP
        // engine's cost from the committed hardware report, or from a fresh
        // hw/build/report.json when place and route ran here.
        let mut costs = Costs::shipped();
        let fresh = self.o.repo.join(wsec_model::costs::HW_REPORT);
        if fresh.exists() {
            costs.apply_hw_report(&fresh, None).map_err(|e| Error::Input(format!("model costs: {e}")))?;
        }
        let names = [
            "seed000_fig5-7_video",
            "seed002_table1_wireless_to_wired",
            "seed002_table2_wireless_to_wireless",
            "seed002_table3_adhoc",
            "seed004_table2_text",
            "seed004_table3_video",
        ];
        let mut out = Vec::new();
        let mut scen = Vec::new();
        for n in names {
            let p = self.o.repo.join("scenarios").join(format!("{n}.toml"));
            let sc = Scenario::load(&p).map_err(|e| Error::Input(format!("{}: {e}", p.display())))?;
            out.push(sc.run(&costs, &[], None, None, &|| {}).map_err(|e| Error::Run(format!("{n}: {e}")))?);
            scen.push((n.to_string(), sc));
        }
        self.costs = Some(costs);
        let cmd = format!("for s in {}; do wsec model run scenarios/$s.toml --json; done", names.join(" "));
        self.rerun("model", "The WLAN DCF model, seed scenarios (wsec model run)", t0, &cmd);
        Ok((out, scen))
    }

    /// What a model table rests on, read from its scenario file and the cost file.
    fn model_assumptions(&self, file: &str, sc: &Scenario) -> Vec<Assumption> {
        let src = format!("scenarios/{file}.toml");
        let mut a = vec![Assumption::new(
            "scenario",
            sc.description.split_whitespace().collect::<Vec<_>>().join(" "),
            format!("{src}, description"),
        )];
        let spec = sc.cases.first().and_then(|c| sc.spec(c, &[]).ok()).and_then(|s| serde_json::to_value(s).ok()).unwrap_or(Value::Null);
        let phy = &spec["phy"];
        a.push(Assumption::new(
            "PHY",
            format!(
                "802.11{} at {} Mb/s{}",
                phy["standard"].as_str().unwrap_or("?"),
                phy["rate_mbps"],
                if phy["long_slot"] == true { ", long slot (mixed b/g)" } else { "" }
            ),
            format!("{src}, [phy]"),
        ));
        let topo = &spec["topology"];
        a.push(Assumption::new(
            "topology",
            format!(
                "{}, {} station(s){}",
                topo["kind"].as_str().unwrap_or("?"),
                topo["stations"],
                if topo["wired_host"] == true { ", a wired host" } else { "" }
            ),
            format!("{src}, [topology]"),
        ));
        let flows: Vec<String> = spec["flows"]
            .as_array()
            .map(|fl| {
                fl.iter()
                    .map(|x| match x["traffic"].as_str().unwrap_or("?") {
                        "video" => format!("video at {} Mb/s, {} frames/s, {}-octet packets", x["rate_mbps"], x["fps"], x["video_packet"]),
                        "file" => format!("a file of {} octets over TCP", x["file_bytes"]),
                        t => format!("{t}, {}-octet payloads", x["payload"]),
                    })
                    .collect()
            })
            .unwrap_or_default();
        a.push(Assumption::new("traffic", flows.join("; "), format!("{src}, [[flows]] (cases may change the rate or cipher)")));
        let card = match spec["security"]["card_mips"].as_f64() {
            Some(m) => (format!("{m} MIPS (fitted to this paper)"), format!("{src}, security.card_mips")),
            None => {
                let c = self.costs.as_ref().and_then(|c| c.locations.get("card"));
                let mips = c.and_then(|c| c.clock_mhz.zip(c.ipc)).map(|(m, i)| m * i);
                (
                    mips.map_or("the cost file's".into(), |m| format!("{m} MIPS (fitted to seed 002 Table 1)")),
                    format!("crates/wsec-model/src/costs.default.json, card: {}", c.map_or("", |c| c.source.as_str())),
                )
            }
        };
        a.push(Assumption::new("card crypto speed", card.0, card.1));
        let run = &spec["run"];
        a.push(Assumption::new(
            "replications",
            format!(
                "{} x {} s (seed {}); ours is their mean with a Student-t 95 % interval",
                run["replications"], run["duration_s"], run["seed"]
            ),
            format!("{src}, [run]"),
        ));
        a
    }

    // ---- the live system ----------------------------------------------------------------

    fn demo(&mut self) -> Result<Vec<DemoRow>> {
        let t0 = Instant::now();
        if let Some(p) = &self.o.demo {
            let text = read_bounded(p)?;
            let (rows, runs) = parse_demo(&text).map_err(|e| Error::Input(format!("{}: {e}", p.display())))?;
            self.demo_cmd = demo_cmd(runs, &text);
            let cmd = self.demo_cmd.clone();
            match self.o.demo_wall_s {
                Some(w) => {
                    self.rerun("demo", "The live system: AP, two stations, wired host (wsec demo, run by this report)", t0, &cmd);
                    if let Some(p) = self.parts.last_mut() {
                        p.wall_s += w;
                    }
                }
                None => self.rerun("demo", "The live system: AP, two stations, wired host (wsec demo, measured just before the report and given with --demo; its own wall time is not in this part's)", t0, &cmd),
            }
            return Ok(rows);
        }
        let p = self.o.repo.join("docs/results/demo-all.md");
        let text = read_bounded(&p)?;
        let (rows, runs) = parse_demo(&text).map_err(|e| Error::Input(format!("{}: {e}", p.display())))?;
        self.demo_cmd = demo_cmd(runs, &text);
        let cmd = self.demo_cmd.clone();
        self.committed("demo", "The live system: AP, two stations, wired host (wsec demo)", t0, &p, &cmd);
        Ok(rows)
    }

    fn demo_assumptions(&self) -> Vec<Assumption> {
        let origin = match &self.o.demo {
            Some(p) => format!("{} (given with --demo)", p.display()),
            None => {
                let (rel, c, d) = self.provenance(&self.o.repo.join("docs/results/demo-all.md"));
                format!("{rel} @ {} ({})", c.unwrap_or_default(), d.unwrap_or_default())
            }
        };
        vec![
            Assumption::new(
                "live network",
                "AP, two stations and a wired host in network namespaces on one machine, over the embedded medium (no radio)",
                "wsec demo (docs/live.md)",
            ),
            Assumption::new(
                "crypto placement",
                "WEP, WPA and WPA2: a modelled standard card (crypto_offload=card); Enhanced-WPA2: the host engine",
                "wsec_cli::lab::Mode",
            ),
            Assumption::new("figures", format!("read from {origin}; command {}", self.demo_cmd), "the demo table"),
        ]
    }

    fn seed000_figs(&mut self, m: &[CaseResult], sc: &Named, live: &[DemoRow]) {
        let est = |case: &str, k: &str| -> Option<Estimate> {
            m.iter().find(|c| c.case == case).and_then(|c| c.summary.flows.first()).and_then(|fl| fl.metrics.get(k)).copied()
        };
        let lv = |mode: &str| live.iter().find(|r| r.mode == mode);
        let modes = [("WEP", "wep"), ("WPA", "tkip"), ("WPA2", "ccmp"), ("Enhanced-WPA2", "enhanced")];
        let model_cmd = format!("wsec model run scenarios/{}.toml --json", sc.0);
        let demo_cmd = self.demo_cmd.clone();
        let mut assumptions = self.model_assumptions(&sc.0, &sc.1);
        assumptions.extend(self.demo_assumptions());
        // Fig. 5: delay and jitter over the open network's (the paper subtracts open's).
        let mut rows = Vec::new();
        for rate in ["high", "very high"] {
            for (name, _) in modes {
                for (k, what) in [("delay_mean_ms", "delay"), ("jitter_ms", "jitter")] {
                    let (a, b) = (est(&format!("{name} {rate}"), k), est(&format!("open {rate}"), k));
                    let ours = a.zip(b).map(|(a, b)| a.mean - b.mean);
                    let spread = a.zip(b).map(|(a, b)| Spread::combine(&est_spread(&a), &est_spread(&b), |x, y| x - y));
                    rows.push(
                        Row::new(
                            format!("{name}, {rate} rate: {what} over open"),
                            "model",
                            "ms",
                            None,
                            ours,
                            format!("model case '{name} {rate}' minus 'open {rate}'"),
                        )
                        .spread(spread)
                        .cmd(&model_cmd)
                        .note("no figure: Fig. 5 is a bar chart without printed values"),
                    );
                }
            }
        }
        let open = lv("open");
        for (name, mode) in modes {
            let ours = lv(mode).zip(open).map(|(a, b)| a.rtt.mid - b.rtt.mid);
            let spread = lv(mode).zip(open).map(|(a, b)| Spread::combine(&a.rtt.spread(), &b.rtt.spread(), |x, y| x - y));
            rows.push(
                Row::new(
                    format!("{name}: ping RTT over open"),
                    "live",
                    "ms",
                    None,
                    ours,
                    format!("wsec demo, mode {mode}, sta1 -> sta2 via the AP"),
                )
                .spread(spread)
                .cmd(&demo_cmd)
                .note("no figure in the paper's text"),
            );
        }
        let mut w = Why::new(&rows);
        let a = w.ours("WPA2, high rate: delay over open", 1);
        let b = w.ours("WPA2, very high rate: delay over open", 1);
        let c = w.ours("Enhanced-WPA2, high rate: delay over open", 1);
        let d = w.ours("Enhanced-WPA2, very high rate: delay over open", 1);
        let why = format!("The paper's bars have no printed values, so only our figures are shown. In the model WPA2 with the card's crypto adds {a} ms of delay over open at the high video rate ({b} ms at the very high) while host crypto (Enhanced-WPA2) adds {c} ms ({d} ms). On the live system WEP, WPA and WPA2 run their crypto on a modelled standard card and Enhanced-WPA2 in the host engine; its RTT is a ping round trip on an idle network, sub-millisecond, so Fig. 6's throughput shows the difference more clearly.");
        let facts = w.facts;
        let t = self.table(
            "seed000-fig5",
            "000",
            "fig5_6",
            "Seed 000 Fig. 5: delay and jitter over the open network, by security mode",
            &["model", "demo"],
            rows,
            (why, facts),
            &model_cmd,
            vec!["seed000-fig5.svg".into(), "seed000-fig5-live.svg".into()],
            assumptions.clone(),
        );
        self.tables.push(t);
        // Fig. 6: throughput.
        let mut rows = Vec::new();
        for rate in ["high", "very high"] {
            for name in ["open", "WEP", "WPA", "WPA2", "Enhanced-WPA2"] {
                let e = est(&format!("{name} {rate}"), "throughput_mbps");
                rows.push(
                    Row::new(
                        format!("{name}, {rate} rate"),
                        "model",
                        "Mb/s",
                        None,
                        e.map(|e| e.mean),
                        format!("model case '{name} {rate}'"),
                    )
                    .spread(e.as_ref().map(est_spread))
                    .cmd(&model_cmd)
                    .note("no figure: Fig. 6 is a bar chart without printed values"),
                );
            }
        }
        for (name, mode) in
            [("open", "open"), ("WEP", "wep"), ("WPA", "tkip"), ("WPA2", "ccmp"), ("GCMP", "gcmp"), ("Enhanced-WPA2", "enhanced")]
        {
            for (what, pick) in [
                ("TCP sta -> sta via the AP", (|r: &DemoRow| r.relay) as fn(&DemoRow) -> Measured),
                ("TCP sta -> wired host", |r: &DemoRow| r.wired),
            ] {
                let x = lv(mode).map(pick);
                rows.push(
                    Row::new(format!("{name}: {what}"), "live", "Mb/s", None, x.map(|x| x.mid), format!("wsec demo, mode {mode}"))
                        .spread(x.map(|x| x.spread()))
                        .cmd(&demo_cmd)
                        .note("live, embedded medium"),
                );
            }
        }
        let mut w = Why::new(&rows);
        let wpa2 = w.fact("ratio", "ours", &["WPA2: TCP sta -> wired host", "open: TCP sta -> wired host"], 2);
        let enh = w.fact("ratio", "ours", &["Enhanced-WPA2: TCP sta -> wired host", "open: TCP sta -> wired host"], 2);
        let why = format!("In the model, as in the paper, the high rate fits every mode but card-crypto WPA2, and the very high rate overwhelms the link. The live system's embedded medium has no radio bottleneck, so its TCP rates show the crypto path itself: card-crypto WPA2 carries {wpa2} of open's rate to the wired host, Enhanced-WPA2's host engine {enh}.");
        let facts = w.facts;
        let t = self.table(
            "seed000-fig6",
            "000",
            "fig5_6",
            "Seed 000 Fig. 6: throughput by security mode, high and very high video rate",
            &["model", "demo"],
            rows,
            (why, facts),
            &model_cmd,
            vec!["seed000-fig6.svg".into(), "seed000-fig6-live.svg".into()],
            assumptions.clone(),
        );
        self.tables.push(t);
        // Fig. 7: WPA2 and Enhanced-WPA2, increase over open in %.
        let mut rows = Vec::new();
        let fig7_line = self.s().line("seed000", "fig7");
        for (name, key) in [("WPA2", "wpa2_increase_pct"), ("Enhanced-WPA2", "enhanced_increase_pct")] {
            let paper = self.s().num(&format!("seed000/fig7/{key}"));
            let mark = |r: Row| {
                if name == "WPA2" {
                    r.derived("the text says WPA2 'almost doubled' the delay and jitter (line 262): read as +100 %")
                } else {
                    r.line(fig7_line)
                }
            };
            for rate in ["high", "very high"] {
                for (k, what) in [("delay_mean_ms", "delay"), ("jitter_ms", "jitter")] {
                    let (a, b) = (est(&format!("{name} {rate}"), k), est(&format!("open {rate}"), k));
                    let ours = a.zip(b).map(|(a, b)| 100.0 * (a.mean - b.mean) / b.mean);
                    let spread = a.zip(b).map(|(a, b)| Spread::combine(&est_spread(&a), &est_spread(&b), |x, y| 100.0 * (x - y) / y));
                    rows.push(mark(
                        Row::new(
                            format!("{name}, {rate} rate: {what} increase"),
                            "model",
                            "%",
                            paper,
                            ours,
                            format!("model case '{name} {rate}' vs 'open {rate}'"),
                        )
                        .spread(spread)
                        .cmd(&model_cmd),
                    ));
                }
            }
            let mode = if name == "WPA2" { "ccmp" } else { "enhanced" };
            let ours = lv(mode).zip(open).map(|(a, b)| 100.0 * (a.rtt.mid - b.rtt.mid) / b.rtt.mid);
            let spread = lv(mode).zip(open).map(|(a, b)| Spread::combine(&a.rtt.spread(), &b.rtt.spread(), |x, y| 100.0 * (x - y) / y));
            rows.push(mark(
                Row::new(format!("{name}: ping RTT increase"), "live", "%", paper, ours, format!("wsec demo, mode {mode} vs open"))
                    .spread(spread)
                    .cmd(&demo_cmd),
            ));
        }
        let mut w = Why::new(&rows);
        let a = w.ours("WPA2, high rate: delay increase", 0);
        let b = w.ours("WPA2, high rate: jitter increase", 0);
        let mips =
            sc.1.cases
                .first()
                .and_then(|c| sc.1.spec(c, &[]).ok())
                .and_then(|s| s.security.card_mips)
                .map_or("the cost file's".into(), |m| format!("{m}"));
        let why = format!(
            "Model and live system reproduce the paper's direction, card crypto (WPA2) costs much and host crypto (Enhanced-WPA2) little. \
             The model's WPA2 increase at the high rate is {a} % in delay and {b} % in jitter against the paper's about 100 %: the seed 000 scenario's \
             card speed (security.card_mips = {mips}) is fitted to this figure (docs/model.md), so the model's WPA2 rows are fitted, not predicted, \
             and near the card's saturation the increase swings steeply with that speed. The live RTT is a ping round trip on an idle network, not video delay."
        );
        let facts = w.facts;
        let t = self.table(
            "seed000-fig7",
            "000",
            "fig7",
            "Seed 000 Fig. 7: WPA2 vs Enhanced-WPA2, increase of delay and jitter over open",
            &["model", "demo"],
            rows,
            (why, facts),
            &model_cmd,
            vec!["seed000-fig7.svg".into()],
            assumptions,
        );
        self.tables.push(t);
    }

    fn seed002(&mut self, m: &[Vec<CaseResult>], scen: &[Named]) {
        let titles = [
            "Seed 002 Table 1: TCP/UDP throughput and dropped %, wireless to wired, infrastructure (802.11g)",
            "Seed 002 Table 2: TCP/UDP throughput and dropped %, wireless to wireless via the AP",
            "Seed 002 Table 3: TCP/UDP throughput and dropped %, ad hoc",
        ];
        // Table 1's WPA-PSK TCP rate: the card's ceiling Table 2's sentence compares with.
        let t1_wpa = m
            .first()
            .and_then(|r| r.iter().find(|c| c.case == "TCP WPA-PSK"))
            .and_then(|c| c.summary.flows.first().and_then(|fl| fl.metrics.get("throughput_mbps")).map(|e| e.mean * 1e3));
        for (i, results) in m.iter().enumerate() {
            let (file, sc) = (&scen[i].0, &scen[i].1);
            let cmd = format!("wsec model run scenarios/{file}.toml --json");
            let item = format!("table{}", i + 1);
            let mut rows = Vec::new();
            let kbps = |c: &CaseResult| {
                c.summary.flows.first().and_then(|fl| fl.metrics.get("throughput_mbps")).map(|e| Estimate {
                    mean: e.mean * 1e3,
                    ci95: e.ci95 * 1e3,
                    n: e.n,
                })
            };
            for c in results {
                let ours = kbps(c);
                // The paper prints kb/s as integers; the scenario holds Mb/s.
                let paper = c.paper.get("throughput_mbps").map(|v| (v * 1e3).round());
                rows.push(
                    Row::new(
                        c.case.clone(),
                        "model",
                        "kb/s",
                        paper,
                        ours.map(|e| e.mean),
                        format!("scenarios/{file}.toml, case '{}'", c.case),
                    )
                    .spread(ours.as_ref().map(est_spread))
                    .cmd(&cmd),
                );
            }
            // Dropped %: the throughput lost relative to the baseline (the paper's definition).
            for proto in ["TCP", "UDP"] {
                let cases: Vec<&CaseResult> = results.iter().filter(|c| c.case.starts_with(proto)).collect();
                let base = cases.iter().find(|c| c.case.ends_with("baseline")).and_then(|c| kbps(c));
                let key = format!("seed002/{item}/dropped_{}", proto.to_lowercase());
                for (k, c) in cases.iter().enumerate() {
                    let x = kbps(c);
                    let ours = base.zip(x).map(|(b, x)| 100.0 * (b.mean - x.mean) / b.mean);
                    // The baseline against itself is 0 by definition.
                    let spread = if c.case.ends_with("baseline") {
                        ours.map(Spread::exact)
                    } else {
                        base.zip(x).map(|(b, x)| Spread::combine(&est_spread(&b), &est_spread(&x), |bb, xx| 100.0 * (bb - xx) / bb))
                    };
                    let paper = self.s().nth_printed(&key, k);
                    let mut row = Row::new(
                        format!("{}: dropped %", c.case),
                        "model",
                        "%",
                        paper.as_ref().map(|p| p.0),
                        ours,
                        format!("100 (baseline - case) / baseline, case '{}'", c.case),
                    )
                    .spread(spread)
                    .cmd(&cmd);
                    if let Some((_, t)) = paper {
                        row = row.printed(t);
                    }
                    rows.push(row);
                }
            }
            let mut w = Why::new(&rows);
            let base = w.fact("value", "ratio", &["TCP baseline"], 2);
            let link = if i == 2 {
                format!("The ad hoc case runs 802.11b at 11 Mb/s (an assumption, below), which carries what the paper's test bed measured: our TCP baseline is {base}x the paper's.")
            } else {
                format!("The model's 802.11g link carries more than the paper's 2006 test bed measured (its adapters, drivers and the Linksys AP's CPU are not modelled): our TCP baseline is {base}x the paper's.")
            };
            let wpa = if i == 2 {
                let a = w.ours("TCP WEP-128: dropped %", 1);
                let b = w.fact("value", "paper", &["TCP WEP-128: dropped %"], 2);
                format!(" WEP-128 costs the model {a} % of the TCP baseline, the paper {b} %.")
            } else {
                let a = w.ours("TCP WPA-PSK: dropped %", 1);
                let b = w.ours("UDP WPA-PSK: dropped %", 1);
                let c = w.fact("value", "paper", &["TCP WPA-PSK: dropped %"], 2);
                let d = w.fact("value", "paper", &["UDP WPA-PSK: dropped %"], 2);
                let fit = if i == 0 {
                    "fitted: the model's card speed is calibrated on this table's drops (docs/model.md)"
                } else {
                    "predicted with the card speed fitted on Table 1"
                };
                format!(" WPA-PSK costs the model {a} % (TCP) and {b} % (UDP) of the baseline, the paper {c} % and {d} % ({fit}).")
            };
            let relay = match (i, rows.iter().find(|r| r.label == "TCP baseline").and_then(|r| r.ours), t1_wpa) {
                (1, Some(b), Some(t1)) if b < t1 => " Here both hops share the air, so the baseline stays below the card's WPA-PSK ceiling seen in Table 1: in the model the card does not bind, in the paper's test bed it did.".to_string(),
                (1, Some(_), Some(_)) => " Here both hops share the air, yet the baseline exceeds the card's WPA-PSK ceiling of Table 1, so the card binds here too.".to_string(),
                _ => String::new(),
            };
            let why = format!("{link}{wpa}{relay}");
            let facts = w.facts;
            let assumptions = self.model_assumptions(file, sc);
            let t = self.table(
                &format!("seed002-table{}", i + 1),
                "002",
                &item,
                titles[i],
                &["model"],
                rows,
                (why, facts),
                &cmd,
                vec![format!("seed002-table{}.svg", i + 1)],
                assumptions,
            );
            self.tables.push(t);
        }
    }

    fn seed004_tables(&mut self, m: &[Vec<CaseResult>], scen: &[Named]) {
        for (i, results) in m.iter().enumerate() {
            let (file, sc) = (&scen[i].0, &scen[i].1);
            let (n, what) = if i == 0 { (2, "text") } else { (3, "video") };
            let cmd = format!("wsec model run scenarios/{file}.toml --json");
            let mut rows = Vec::new();
            for c in results {
                let e = c.summary.flows.first().and_then(|fl| fl.metrics.get("completion_s")).copied();
                rows.push(
                    Row::new(
                        c.case.clone(),
                        "model",
                        "s",
                        c.paper.get("completion_s").copied(),
                        e.map(|e| e.mean),
                        format!("scenarios/{file}.toml, case '{}'", c.case),
                    )
                    .spread(e.as_ref().map(est_spread))
                    .cmd(&cmd),
                );
            }
            // The largest growth over the column's unencrypted time, the paper's and ours.
            let growth = |pick: fn(&Row) -> Option<f64>| -> Option<(String, String, f64)> {
                let mut best: Option<(String, String, f64)> = None;
                for r in &rows {
                    let Some((col, _)) = r.label.split_once(' ') else { continue };
                    let none = format!("{col} none");
                    if r.label == none {
                        continue;
                    }
                    let base = rows.iter().find(|x| x.label == none).and_then(pick);
                    if let (Some(v), Some(b)) = (pick(r), base) {
                        if b > 0.0 && best.as_ref().is_none_or(|x| v / b > x.2) {
                            best = Some((r.label.clone(), none, v / b));
                        }
                    }
                }
                best
            };
            let mut w = Why::new(&rows);
            let pg = growth(|r| r.paper).map(|(a, b, _)| (w.fact("growth", "paper", &[&a, &b], 1), a));
            let og = growth(|r| r.ours).map(|(a, b, _)| (w.fact("growth", "ours", &[&a, &b], 2), a));
            let why = format!(
                "In the model the cipher runs on the host at today's speeds, so the transfer time is set by the link and barely changes with the cipher (at most {}x the column's unencrypted time, {}); the paper's times grew by up to {}x ({}) because its .NET ciphers ran at a few MB/s.",
                og.as_ref().map_or("no figure", |x| x.0.as_str()),
                og.as_ref().map_or("-", |x| x.1.as_str()),
                pg.as_ref().map_or("no figure", |x| x.0.as_str()),
                pg.as_ref().map_or("-", |x| x.1.as_str()),
            );
            let facts = w.facts;
            let mut assumptions = self.model_assumptions(file, sc);
            if let Some(c) = &self.costs {
                for (k, v) in &c.app_ciphers {
                    assumptions.push(Assumption::new(
                        format!("cipher cost: {k}"),
                        format!("{:.3} ns/byte encrypt, {:.3} decrypt", v.encrypt.b, v.decrypt.b),
                        format!("crates/wsec-model/src/costs.default.json: {}", v.source),
                    ));
                }
            }
            let t = self.table(
                &format!("seed004-table{n}"),
                "004",
                &format!("table{n}"),
                &format!("Seed 004 Table {n}: transmission time of {what} data with each cipher, ad hoc and BSS"),
                &["model"],
                rows,
                (why, facts),
                &cmd,
                vec![format!("seed004-table{n}.svg")],
                assumptions,
            );
            self.tables.push(t);
        }
    }

    // ---- the Verilog engines --------------------------------------------------------------

    fn hw(&mut self) -> Result<()> {
        let t0 = Instant::now();
        let committed = self.o.repo.join("docs/results/hw-report.json");
        let full = self.o.depth == Depth::Full;
        let path: PathBuf = if full {
            // Every committed record again with its own settings (hours on 2 cores; resumable).
            for args in [&["full"][..], &["report"][..]] {
                let st = std::process::Command::new("bash")
                    .arg(self.o.repo.join("hw/run"))
                    .args(args)
                    .current_dir(&self.o.repo)
                    .status()
                    .map_err(|e| Error::Run(format!("hw/run {}: {e}", args[0])))?;
                if !st.success() {
                    return Err(Error::Run(format!("hw/run {} failed ({st})", args[0])));
                }
            }
            self.o.repo.join("hw/build/report.json")
        } else {
            committed.clone()
        };
        let hw: Value = serde_json::from_str(&read_bounded(&path)?).map_err(|e| Error::Input(format!("{}: {e}", path.display())))?;
        // Every record again with the settings it records; a row's own command reruns
        // just its configuration.
        let part_cmd = "hw/run full && hw/run report";
        if full {
            self.rerun("hw", "The Verilog engines: synthesis, place and route (hw/run)", t0, part_cmd);
        } else {
            self.committed("hw", "The Verilog engines: synthesis, place and route (hw/run)", t0, &path, part_cmd);
        }
        let origin = if full {
            "rerun by this report (hw/run full)".to_string()
        } else {
            let (rel, c, d) = self.provenance(&path);
            format!("read from the committed {rel} @ {} ({}), not rerun", c.unwrap_or_default(), d.unwrap_or_default())
        };
        let cfg = |name: &str, fam: &str| -> Option<Value> {
            hw.as_array()?.iter().find(|r| r["config"] == name && r["target"].as_str().is_some_and(|t| t.starts_with(fam))).cloned()
        };
        let g = |v: &Option<Value>, k: &str| v.as_ref().and_then(|x| f(x, k));
        // The command that reproduces one record.
        let rcmd = |name: &str, fam: &str| {
            let target = if fam == "iCE40" { "ice40" } else { "ecp5" };
            let ebr = if fam == "ECP5" && name.contains("-rom") { "HW_ECP5_EBR=spread " } else { "" };
            format!("{ebr}hw/run synth {target} {name} && hw/run report")
        };
        // Fmax over the place-and-route seeds (min-max, n seeds); a figure proportional
        // to Fmax (`pow` 1) or to its inverse (`pow` -1) scales with it; others are exact.
        let hspread = |v: &Option<Value>, k: &str, scale: f64| -> Option<Spread> {
            let x = v.as_ref()?;
            let val = f(x, k)? * scale;
            let pow = match k {
                "fmax_mhz" | "gbps" | "mbps_per_lut" | "gbps_frame_1500" => 1.0,
                "ns_frame_1500" => -1.0,
                _ => return Some(Spread::exact(val)),
            };
            let fmax = f(x, "fmax_mhz")?;
            let seeds: Vec<f64> = x["fmax_mhz_by_seed"].as_object()?.values().filter_map(Value::as_f64).collect();
            let (lo, hi) = seeds.iter().fold((f64::MAX, f64::MIN), |(a, b), &s| (a.min(s), b.max(s)));
            if seeds.is_empty() {
                return None;
            }
            let at = |s: f64| val * (s / fmax).powf(pow);
            Some(Spread::new("min-max", at(lo), at(hi), seeds.len() as u32))
        };
        let hrow = |label: String,
                    unit: &str,
                    paper: Option<(f64, String)>,
                    o: &Option<Value>,
                    k: &str,
                    scale: f64,
                    name: &str,
                    fam: &str|
         -> Row {
            let mut r = Row::new(label, "hw", unit, paper.as_ref().map(|p| p.0), g(o, k).map(|x| x * scale), format!("{name}, {fam}"))
                .spread(hspread(o, k, scale))
                .cmd(rcmd(name, fam));
            if let Some((_, t)) = paper {
                r = r.printed(t);
            }
            r
        };
        let s = self.s();
        let t4_text_line = s.at("seed000/table4/text_line").as_u64().unwrap_or(0) as u32;
        // Seed 000 Table III: area, standard vs parallel.
        let mut t3 = Vec::new();
        let mut t4 = Vec::new();
        for (style, k1, k8) in
            [("logic S-boxes", "ccmp-k1-r1-logic", "eccmp8-r1-logic"), ("ROM S-boxes", "ccmp-k1-r1-rom", "eccmp8-r1-rom")]
        {
            let (a, b) = (cfg(k1, "ECP5"), cfg(k8, "ECP5"));
            t3.push(hrow(
                format!("standard ({style}): area"),
                "LE / LUT4",
                s.printed("seed000/table3/standard_le"),
                &a,
                "luts",
                1.0,
                k1,
                "ECP5",
            ));
            t3.push(hrow(
                format!("parallel ({style}): area"),
                "LE / LUT4",
                s.printed("seed000/table3/parallel_le"),
                &b,
                "luts",
                1.0,
                k8,
                "ECP5",
            ));
            t3.push(
                Row::new(
                    format!("parallel / standard area ({style})"),
                    "hw",
                    "x",
                    s.num("seed000/table3/area_ratio"),
                    g(&b, "luts").zip(g(&a, "luts")).map(|(p, q)| p / q),
                    format!("{k8} / {k1}"),
                )
                .line(s.at("seed000/table3/area_ratio_line").as_u64().unwrap_or(0) as u32)
                .spread(g(&b, "luts").zip(g(&a, "luts")).map(|(p, q)| Spread::exact(p / q)))
                .cmd(format!("{} && {}", rcmd(k1, "ECP5").trim_end_matches(" && hw/run report"), rcmd(k8, "ECP5")))
                .note("paper: the text's '2.4' (31314 / 13307 = 2.35)"),
            );
            for (what, key) in [("standard", "standard"), ("parallel", "parallel")] {
                let (o, k) = if what == "standard" { (&a, k1) } else { (&b, k8) };
                t3.push(
                    hrow(
                        format!("{what} ({style}): registers"),
                        "registers / FF",
                        s.printed(&format!("seed000/table3/{key}_registers_incl_both")),
                        o,
                        "ffs",
                        1.0,
                        k,
                        "ECP5",
                    )
                    .derived(format!("the paper's Register plus Both columns of Table III ({key})")),
                );
            }
            let fmax_paper = |k: &str| s.num(&format!("seed000/table4/{k}_clk_clk_ns")).map(|ns| 1e3 / ns);
            for (what, o, k) in [("standard", &a, k1), ("parallel", &b, k8)] {
                t4.push(hrow(format!("{what} ({style}): Fmax"), "MHz", None, o, "fmax_mhz", 1.0, k, "ECP5").derived_value(
                    fmax_paper(what),
                    format!(
                        "1 / the Clk-Clk delay of Table IV ({} ns)",
                        s.printed(&format!("seed000/table4/{what}_clk_clk_ns")).map_or("-".into(), |p| p.1)
                    ),
                ));
            }
            for (what, o, k) in [("standard", &a, k1), ("parallel", &b, k8)] {
                t4.push(
                    hrow(
                        format!("{what} ({style}): total time"),
                        "ns",
                        s.printed(&format!("seed000/table4/{what}_frame_ns")),
                        o,
                        "ns_frame_1500",
                        1.0,
                        k,
                        "ECP5",
                    )
                    .line(t4_text_line)
                    .note("paper: the total time of its Modelsim run, data size not stated; ours: one 1500-octet frame"),
                );
            }
            t4.push(
                Row::new(
                    format!("speed-up ({style})"),
                    "hw",
                    "x",
                    s.num("seed000/table4/speedup"),
                    g(&a, "ns_frame_1500").zip(g(&b, "ns_frame_1500")).map(|(p, q)| p / q),
                    format!("{k1} / {k8} time per 1500-octet frame"),
                )
                .line(t4_text_line)
                .spread(match (hspread(&a, "ns_frame_1500", 1.0), hspread(&b, "ns_frame_1500", 1.0)) {
                    (Some(x), Some(y)) => Some(Spread::combine(&x, &y, |p, q| p / q)),
                    _ => None,
                })
                .cmd(format!("{} && {}", rcmd(k1, "ECP5").trim_end_matches(" && hw/run report"), rcmd(k8, "ECP5"))),
            );
        }
        let mut t5 = Vec::new();
        for (what, unit, k) in [
            ("standard: power", "mW", "standard_mw"),
            ("parallel: power", "mW", "parallel_mw"),
            ("standard: energy", "nJ", "standard_nj"),
            ("parallel: energy", "nJ", "parallel_nj"),
        ] {
            t5.push(Row::new(what, "hw", unit, s.num(&format!("seed000/table5/{k}")), None, "-").note("no figure: there is no open power model for ECP5 or iCE40 (docs/hw.md); the paper's energy is its power times its total time of Table IV"));
        }
        let hw_assumptions = |paper_dev: &str, ours: &str| {
            vec![
                Assumption::new("paper's device and tools", paper_dev, "the seed text"),
                Assumption::new("our device and tools", ours, "docs/results/hw-report.json (target, yosys, synth_args, ebr_place)"),
                Assumption::new("figures", origin.clone(), "wsec report"),
                Assumption::new(
                    "Fmax spread",
                    "min-max over the nextpnr seeds each record holds (most hold seed 1 only: n = 1)",
                    "hw-report.json fmax_mhz_by_seed",
                ),
            ]
        };
        let yosys = hw
            .as_array()
            .and_then(|a| {
                a.iter()
                    .find(|r| r["target"].as_str().is_some_and(|t| t.starts_with("ECP5")))
                    .and_then(|r| r["yosys"].as_str().map(String::from))
            })
            .unwrap_or_default();
        let ecp5 = format!("Lattice ECP5 LFE5U-85F (LUT4), {}, nextpnr-ecp5, -nowidelut", yosys.split(" (").next().unwrap_or("").trim());
        let cyclone = "Altera Cyclone II (LE = LUT4 + FF), Quartus II";
        let seed000_hw = hw_assumptions(cyclone, &ecp5);
        let mut w = Why::new(&t4);
        let sp = w.fact("max", "ours", &["speed-up (logic S-boxes)", "speed-up (ROM S-boxes)"], 2);
        let d_rom = w.fact("ratio", "ours", &["parallel (ROM S-boxes): Fmax", "standard (ROM S-boxes): Fmax"], 2);
        let d_logic = w.fact("ratio", "ours", &["parallel (logic S-boxes): Fmax", "standard (logic S-boxes): Fmax"], 2);
        let (drop_lo, drop_hi) =
            if d_rom.parse::<f64>().unwrap_or(0.0) <= d_logic.parse::<f64>().unwrap_or(0.0) { (d_rom, d_logic) } else { (d_logic, d_rom) };
        let why4 = format!("Different silicon and tools: the paper's Cyclone II with Quartus against ECP5 with Yosys/nextpnr (LUT4 families both). Our parallel engine is ECCMP with 8 MIC lanes, whose clock falls to {drop_lo}-{drop_hi} of the standard engine's, and whose time per frame falls up to {sp}x against the paper's 3.7x (its total time, data size not stated).");
        let f4 = w.facts;
        let mut w = Why::new(&t3);
        let r_logic = w.ours("parallel / standard area (logic S-boxes)", 2);
        let r_rom = w.ours("parallel / standard area (ROM S-boxes)", 2);
        let why3 = format!("Different silicon and tools (Cyclone II and Quartus against ECP5 and Yosys/nextpnr, LUT4 families both). The 8-lane engine costs {r_logic}x the standard's area with S-boxes in logic and {r_rom}x with ROM S-boxes, against the paper's 2.4x.");
        let f3 = w.facts;
        let mut tables = vec![
            self.table(
                "seed000-table3",
                "000",
                "table3",
                "Seed 000 Table III: area of the standard and parallel engines",
                &["hw"],
                t3,
                (why3, f3),
                part_cmd,
                vec!["seed000-table3.svg".into()],
                seed000_hw.clone(),
            ),
            self.table(
                "seed000-table4",
                "000",
                "table4",
                "Seed 000 Table IV: Fmax, total time and speed-up",
                &["hw"],
                t4,
                (why4, f4),
                part_cmd,
                vec!["seed000-table4.svg".into()],
                seed000_hw.clone(),
            ),
            self.table(
                "seed000-table5",
                "000",
                "table5",
                "Seed 000 Table V: power and energy",
                &["hw"],
                t5,
                (
                    "No figure of ours: the open FPGA flows have no power model, so the paper's power and energy stand alone.".into(),
                    Vec::new(),
                ),
                part_cmd,
                Vec::new(),
                seed000_hw,
            ),
        ];
        // Seed 001 Table 1.
        let mut rows = Vec::new();
        if let Some(list) = s.at("seed001/table1/rows").as_array() {
            for (i, p) in list.iter().enumerate() {
                let design = p["design"].as_str().unwrap_or("");
                let dev = p["device"].as_str().unwrap_or("");
                let (name, fam) = match (design, i / 2) {
                    ("AESCCMP", 0) => ("ccmp-k1-r1-kt", "ECP5"),
                    ("AESCCMP", 1) => ("ccmp-k1-r1-rom", "ECP5"),
                    ("AESCCMP", _) => ("ccmp-k1-r1-rom", "iCE40"),
                    (_, 2) => ("ccm16e-k1-r1-rom", "iCE40"),
                    _ => ("ccm16e-k1-r1-logic", "ECP5"),
                };
                let o = cfg(name, fam);
                let key = format!("seed001/table1/rows/{i}");
                let pr = |k: &str| s.printed(&format!("{key}/{k}"));
                rows.push(hrow(format!("{design} {dev}: LUTs"), "LUT", pr("luts"), &o, "luts", 1.0, name, fam));
                rows.push(hrow(format!("{design} {dev}: period"), "ns", pr("period_ns"), &o, "fmax_mhz", 1.0, name, fam).as_period());
                rows.push(hrow(format!("{design} {dev}: clock"), "MHz", pr("mhz"), &o, "fmax_mhz", 1.0, name, fam));
                rows.push(
                    hrow(format!("{design} {dev}: BRAM"), "blocks", pr("bram"), &o, "brams", 1.0, name, fam)
                        .note("ours: DP16KD (ECP5) or EBR (iCE40) blocks"),
                );
                rows.push(hrow(format!("{design} {dev}: throughput"), "Gb/s", pr("gbps"), &o, "gbps", 1.0, name, fam));
                rows.push(
                    hrow(format!("{design} {dev}: throughput per LUT"), "Mb/s per LUT", None, &o, "mbps_per_lut", 1.0, name, fam)
                        .derived_value(f(p, "gbps").zip(f(p, "luts")).map(|(a, b)| a * 1e3 / b), "the paper's throughput over its LUTs"),
                );
                let slices = &p["slices"];
                let eff = &p["efficiency"];
                if slices.is_object() {
                    for (kind, what) in [("SRs", "slice registers"), ("SLs", "slice LUTs")] {
                        rows.push(
                            Row::new(format!("{design} {dev}: {what}"), "hw", "slices", f(slices, kind), None, format!("{name}, {fam}"))
                                .note("no figure: our flows count LUT4s and FFs, not Xilinx slices"),
                        );
                        rows.push(
                            Row::new(
                                format!("{design} {dev}: efficiency per {what}"),
                                "hw",
                                "Gb/s per slice x 1e-3",
                                f(eff, kind),
                                None,
                                format!("{name}, {fam}"),
                            )
                            .note("no figure: see throughput per LUT"),
                        );
                    }
                } else {
                    rows.push(
                        Row::new(format!("{design} {dev}: slices"), "hw", "slices", slices.as_f64(), None, format!("{name}, {fam}"))
                            .note("no figure: our flows count LUT4s and FFs, not Xilinx slices"),
                    );
                    rows.push(
                        Row::new(
                            format!("{design} {dev}: efficiency"),
                            "hw",
                            "Gb/s per slice x 1e-3",
                            eff.as_f64(),
                            None,
                            format!("{name}, {fam}"),
                        )
                        .note("no figure: see throughput per LUT"),
                    );
                }
            }
        }
        let mut w = Why::new(&rows);
        let v4: Vec<String> =
            rows.iter().filter(|r| r.label.contains("(LUT4)") && r.label.ends_with(": LUTs")).map(|r| r.label.clone()).collect();
        let v4n: Vec<&str> = v4.iter().map(String::as_str).collect();
        let lo = w.fact("min", "ratio", &v4n, 2);
        let hi = w.fact("max", "ratio", &v4n, 2);
        let t4l: Vec<String> =
            rows.iter().filter(|r| r.label.contains("(LUT4)") && r.label.ends_with(": throughput")).map(|r| r.label.clone()).collect();
        let t4n: Vec<&str> = t4l.iter().map(String::as_str).collect();
        let tlo = w.fact("min", "ratio", &t4n, 2);
        let thi = w.fact("max", "ratio", &t4n, 2);
        let pl: Vec<String> = rows
            .iter()
            .filter(|r| r.label.contains("(LUT4)") && r.label.ends_with("throughput per LUT"))
            .map(|r| r.label.clone())
            .collect();
        let pln: Vec<&str> = pl.iter().map(String::as_str).collect();
        let phi = w.fact("max", "ratio", &pln, 2);
        let why = format!("Seed 001's Virtex-5 has 6-input LUTs, each worth more than one of our LUT4s, and a faster clock; against its LUT4 parts (Virtex-4, Spartan-3) our engines use {lo}x to {hi}x the LUTs at {tlo}x to {thi}x the throughput, up to {phi}x the throughput per LUT. The key-table engine (the Virtex-5 rows) leaves key expansion to the host.");
        let facts = w.facts;
        tables.push(self.table(
            "seed001-table1",
            "001",
            "table1",
            "Seed 001 Table 1: AESCCMP and AESCCM6 engines (area, period, clock, BRAM, throughput, slices, efficiency)",
            &["hw"],
            rows,
            (why, facts),
            part_cmd,
            vec!["seed001-table1.svg".into()],
            hw_assumptions(
                "Xilinx Virtex-5 xc5vlx50 (LUT6), Virtex-4 xc4vfx12 and Spartan-3 xc3s1000 (LUT4), ISE",
                &format!("{ecp5}; Lattice iCE40-HX8K (LUT4), Yosys and nextpnr-ice40"),
            ),
        ));
        // Seed 003 Tables 1 and 2: components, alone.
        let mut rows = Vec::new();
        if let Some(comps) = s.at("seed003/table1/components").as_array() {
            for (i, c) in comps.iter().enumerate() {
                let c = c.as_str().unwrap_or("");
                for (k, what, unit) in [
                    ("le", "logic elements", "LE"),
                    ("registers", "registers", "FF"),
                    ("memory_bits", "memory bits", "bits"),
                    ("cell_delay_ns", "cell delay", "ns"),
                    ("interconnect_delay_ns", "interconnect delay", "ns"),
                    ("tpd_ns", "worst-case tpd", "ns"),
                ] {
                    let p = s.nth_printed(&format!("seed003/table1/{k}"), i);
                    let mut r = Row::new(format!("{c}: {what}"), "hw", unit, p.as_ref().map(|x| x.0), None, "-")
                        .note("no figure: wsec synthesizes whole engines (hw/run configs), not this component alone");
                    if let Some((_, t)) = p {
                        r = r.printed(t);
                    }
                    rows.push(r);
                }
            }
        }
        tables.push(self.table("seed003-table1", "003", "table1", "Seed 003 Table 1: synthesis of AES's components (MixColumns, SubBytes), Cyclone II", &["hw"], rows, ("The paper's component figures stand alone: wsec's flow places and routes whole engines, whose S-box style (logic or ROM) Tables 3 and 4 compare.".into(), Vec::new()), part_cmd, Vec::new(), hw_assumptions(cyclone, &ecp5)));
        let mut rows = Vec::new();
        for (k, what, unit) in [
            ("le", "logic elements", "LE"),
            ("registers", "registers", "FF"),
            ("mhz", "clock", "MHz"),
            ("cycles", "cycles per block", "cycles"),
            ("period_ns", "period", "ns"),
            ("mbps", "throughput", "Mb/s"),
        ] {
            let p = s.printed(&format!("seed003/table2/{k}"));
            let mut r = Row::new(format!("key schedule: {what}"), "hw", unit, p.as_ref().map(|x| x.0), None, "-")
                .note("no figure: wsec's key schedule is synthesized inside its engines, not alone");
            if let Some((_, t)) = p {
                r = r.printed(t);
            }
            rows.push(r);
        }
        tables.push(self.table("seed003-table2", "003", "table2", "Seed 003 Table 2: AES key scheduling alone, Cyclone II", &["hw"], rows, ("The paper's key-schedule figures stand alone: wsec synthesizes its key schedule inside the engines (and the key-table engine leaves it to the host).".into(), Vec::new()), part_cmd, Vec::new(), hw_assumptions(cyclone, &ecp5)));
        // Seed 003 Tables 3 and 4: unrolling.
        for (n, sbox) in [(3, "logic"), (4, "rom")] {
            let mut rows = Vec::new();
            for (i, r) in [1, 2, 5, 10].iter().enumerate() {
                let name = format!("aes-r{r}-{sbox}");
                let o = cfg(&name, "ECP5");
                let key = format!("seed003/table{n}");
                let lab = format!("{r} AES() x {}", 10 / r);
                // (metric, unit, the seed's field, our field, scale to the seed's unit)
                for (metric, unit, field, ours, scale) in [
                    ("area", "LE / LUT4", "le", "luts", 1.0),
                    ("registers", "FF", "registers", "ffs", 1.0),
                    ("clock", "MHz", "mhz", "fmax_mhz", 1.0),
                    ("cycles per block", "cycles", "cycles", "cycles_per_block", 1.0),
                    ("throughput", "Mb/s", "mbps", "gbps", 1e3),
                ] {
                    rows.push(hrow(
                        format!("{lab}: {metric}"),
                        unit,
                        s.nth_printed(&format!("{key}/{field}"), i),
                        &o,
                        ours,
                        scale,
                        &name,
                        "ECP5",
                    ));
                }
                rows.push(
                    hrow(format!("{lab}: period"), "ns", s.nth_printed(&format!("{key}/period_ns"), i), &o, "fmax_mhz", 1.0, &name, "ECP5")
                        .as_period(),
                );
                if n == 3 {
                    rows.push(hrow(
                        format!("{lab}: throughput per area"),
                        "Mb/s per LE / LUT4",
                        s.nth_printed(&format!("{key}/mbps_per_le"), i),
                        &o,
                        "mbps_per_lut",
                        1.0,
                        &name,
                        "ECP5",
                    ));
                }
            }
            let mut w = Why::new(&rows);
            let best_p = rows
                .iter()
                .filter(|r| r.label.ends_with(": throughput"))
                .max_by(|a, b| a.paper.unwrap_or(0.0).total_cmp(&b.paper.unwrap_or(0.0)))
                .map(|r| r.label.clone())
                .unwrap_or_default();
            let best_o = rows
                .iter()
                .filter(|r| r.label.ends_with(": throughput"))
                .max_by(|a, b| a.ours.unwrap_or(0.0).total_cmp(&b.ours.unwrap_or(0.0)))
                .map(|r| r.label.clone())
                .unwrap_or_default();
            let bp = w.fact("value", "paper", &[&best_p], 2);
            let bo = w.fact("value", "ours", &[&best_o], 0);
            let one = "1 AES() x 10: throughput";
            let gp = w.fact("growth", "paper", &[&best_p, one], 2);
            let go = w.fact("growth", "ours", &[&best_o, one], 2);
            let why = format!(
                "Our core takes 10/5/2/1 cycles per block where seed 003's took 12/7/4/3. The paper's throughput peaks at {} ({bp} Mb/s, {gp}x its one round per clock), ours at {} ({bo} Mb/s, {go}x): in both, unrolling buys far less than the rounds per clock it adds, because the clock falls almost as fast as they rise.",
                best_p.trim_end_matches(": throughput"),
                best_o.trim_end_matches(": throughput")
            );
            let facts = w.facts;
            tables.push(self.table(
                &format!("seed003-table{n}"),
                "003",
                &format!("table{n}"),
                &format!(
                    "Seed 003 Table {n}: AES unrolled 1/2/5/10 rounds per clock, {}",
                    if sbox == "logic" { "S-boxes in logic" } else { "S-boxes in RAM" }
                ),
                &["hw"],
                rows,
                (why, facts),
                part_cmd,
                vec![format!("seed003-table{n}.svg")],
                hw_assumptions(cyclone, &ecp5),
            ));
        }
        self.tables.extend(tables);
        Ok(())
    }
}

/// The command of a demo table with `runs` runs per mode.
/// The command that makes a table like `text` today: `wsec demo`'s settings line says how
/// it ran; a table without one is from before the line existed, when the demo ran on the
/// UDP hub without HT, TAP offloads or iperf3 (today's `--medium air --ht 0 --tap-offload
/// 0 --tool builtin`).
pub fn demo_cmd(runs: u32, text: &str) -> String {
    let mut c = String::from("sudo wsec demo --mode all --seconds 3");
    if runs > 1 {
        c += &format!(" --runs {runs}");
    }
    match text.lines().find(|l| l.starts_with("medium: ")) {
        None => c += " --medium air --ht 0 --tap-offload 0 --tool builtin",
        Some(l) => {
            for (says, flag) in [
                ("medium: air", " --medium air"),
                ("HT (A-MSDU): off", " --ht 0"),
                ("TAP offloads: off", " --tap-offload 0"),
                ("TCP tool: builtin", " --tool builtin"),
            ] {
                if l.contains(says) {
                    c += flag;
                }
            }
        }
    }
    c
}

/// Tables in the order of [`REQUIRED`] (the papers' order); others after them.
fn order(id: &str) -> usize {
    REQUIRED.iter().position(|x| *x == id).unwrap_or(REQUIRED.len())
}

/// Every table and figure the report must contain (the schema says the same).
pub const REQUIRED: [&str; 20] = [
    "seed000-table1",
    "seed000-table2",
    "seed000-table3",
    "seed000-table4",
    "seed000-table5",
    "seed000-fig5",
    "seed000-fig6",
    "seed000-fig7",
    "seed001-table1",
    "seed002-table1",
    "seed002-table2",
    "seed002-table3",
    "seed003-table1",
    "seed003-table2",
    "seed003-table3",
    "seed003-table4",
    "seed004-throughput",
    "seed004-energy",
    "seed004-table2",
    "seed004-table3",
];

/// One figure of the demo table: the median (or the single run) with the runs' min and max.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    pub mid: f64,
    pub lo: f64,
    pub hi: f64,
    pub n: u32,
}

impl Measured {
    pub fn spread(&self) -> Spread {
        Spread::new("min-max", self.lo, self.hi, self.n)
    }
}

/// One mode's line of `wsec demo`'s table.
#[derive(Clone, Debug, PartialEq)]
pub struct DemoRow {
    pub mode: String,
    pub relay: Measured,
    pub wired: Measured,
    pub rtt: Measured,
}

/// Parses the markdown table `wsec demo` prints:
/// `| mode | crypto | 4-way handshake (ms) | TCP sta->sta (Mb/s) | TCP sta->wired (Mb/s) | ping RTT (ms) |`,
/// each measured cell a figure or, with `--runs N`, `median [min, max]` after a line
/// `runs per mode: N ...`. Returns the rows and the runs per mode.
pub fn parse_demo(text: &str) -> std::result::Result<(Vec<DemoRow>, u32), String> {
    let mut runs = 1u32;
    let mut rows = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("runs per mode:") {
            runs = rest
                .split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
                .filter(|n| (1..=1000).contains(n))
                .ok_or_else(|| format!("'{line}': runs per mode is not a count"))?;
            continue;
        }
        if !line.starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() != 6 || cells[0] == "mode" || cells[0].starts_with("---") {
            continue;
        }
        let num = |s: &str| {
            s.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0).ok_or_else(|| format!("'{s}' in '{line}' is not a figure"))
        };
        let cell = |s: &str| -> std::result::Result<Measured, String> {
            match s.split_once('[') {
                None => {
                    let v = num(s)?;
                    Ok(Measured { mid: v, lo: v, hi: v, n: 1 })
                }
                Some((mid, range)) => {
                    let (lo, hi) = range
                        .trim_end_matches(']')
                        .split_once(',')
                        .ok_or_else(|| format!("'{s}' in '{line}' is not 'median [min, max]'"))?;
                    let (mid, lo, hi) = (num(mid)?, num(lo)?, num(hi)?);
                    if !(lo <= mid && mid <= hi) {
                        return Err(format!("'{s}' in '{line}': the median is not between min and max"));
                    }
                    Ok(Measured { mid, lo, hi, n: runs })
                }
            }
        };
        rows.push(DemoRow { mode: cells[0].to_string(), relay: cell(cells[3])?, wired: cell(cells[4])?, rtt: cell(cells[5])? });
        if rows.len() > 64 {
            return Err("more than 64 modes: not a wsec demo table".into());
        }
    }
    if rows.is_empty() {
        return Err("no table rows of wsec demo".into());
    }
    Ok((rows, runs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_command_says_how_the_table_was_made() {
        // A table from before the settings line: the UDP hub, no HT, no offloads, builtin.
        assert_eq!(
            demo_cmd(5, "CPU: x\n| open | - |"),
            "sudo wsec demo --mode all --seconds 3 --runs 5 --medium air --ht 0 --tap-offload 0 --tool builtin"
        );
        let today =
            "CPU: x\nmedium: shm (shared memory); TAP offloads: on; HT (A-MSDU): on; CCM kernel backend: avx512; TCP tool: iperf3\n";
        assert_eq!(demo_cmd(1, today), "sudo wsec demo --mode all --seconds 3");
        let other = "medium: air (loopback UDP); TAP offloads: off; HT (A-MSDU): off; CCM kernel backend: aesni; TCP tool: builtin (SHA-256 checked)\n";
        assert_eq!(demo_cmd(3, other), "sudo wsec demo --mode all --seconds 3 --runs 3 --medium air --ht 0 --tap-offload 0 --tool builtin");
    }

    #[test]
    fn demo_table_parses_and_rejects_garbage() {
        let t = "CPU: x\n| mode | crypto | 4-way handshake (ms) | TCP sta->sta via AP (Mb/s) | TCP sta->wired (Mb/s) | ping RTT sta->sta (ms) |\n|---|---|---|---|---|---|\n| open | - | - | 812.5 | 900.1 | 0.210 |\n| ccmp | host | 3.10 | 700.0 | 750.0 | 0.250 |\n";
        let (r, runs) = parse_demo(t).unwrap();
        assert_eq!((r.len(), runs), (2, 1));
        let one = |v| Measured { mid: v, lo: v, hi: v, n: 1 };
        assert_eq!(r[1], DemoRow { mode: "ccmp".into(), relay: one(700.0), wired: one(750.0), rtt: one(0.25) });
        assert!(parse_demo("nothing here").is_err());
        assert!(parse_demo("| open | - | - | NaN | 1 | 1 |").is_err());
        // --runs: median [min, max] cells.
        let t = "CPU: x\nruns per mode: 5 (each cell: median [min, max] over the runs)\n| open | - | - | 250.0 [240.5, 260.0] | 380.0 [370.0, 390.0] | 0.430 [0.400, 0.500] |\n";
        let (r, runs) = parse_demo(t).unwrap();
        assert_eq!(runs, 5);
        assert_eq!(r[0].relay, Measured { mid: 250.0, lo: 240.5, hi: 260.0, n: 5 });
        assert_eq!(r[0].rtt.spread().n, 5);
        assert!(parse_demo("runs per mode: 5\n| open | - | - | 250.0 [260.0, 270.0] | 1 | 1 |").is_err(), "a median outside its range");
        assert!(parse_demo("runs per mode: 5\n| open | - | - | 250.0 [240.0 | 1 | 1 |").is_err());
        assert!(parse_demo("runs per mode: many\n| open | - | - | 1 | 1 | 1 |").is_err());
    }

    #[test]
    fn demo_parser_never_panics_on_garbage() {
        // Mutations of a valid --runs table and random bytes: an error or a table, never a
        // panic, and every figure it accepts lies within its own range.
        let good = "CPU: x\nruns per mode: 5 (each cell)\n| mode | crypto | h | a | b | c |\n|---|---|---|---|---|---|\n| open | - | - | 250.0 [240.5, 260.0] | 380.0 [370.0, 390.0] | 0.430 [0.400, 0.500] |\n";
        let alphabet = b"|[], .-0123456789\nruns per mode:eNa";
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for i in 0..20_000 {
            let mut b = good.as_bytes().to_vec();
            if i % 2 == 0 {
                for _ in 0..1 + next() % 6 {
                    let at = (next() as usize) % b.len();
                    b[at] = alphabet[(next() as usize) % alphabet.len()];
                }
            } else {
                b = (0..next() % 200).map(|_| alphabet[(next() as usize) % alphabet.len()]).collect();
            }
            if let Ok((rows, runs)) = parse_demo(&String::from_utf8_lossy(&b)) {
                assert!(runs >= 1 && !rows.is_empty());
                for r in rows {
                    for m in [r.relay, r.wired, r.rtt] {
                        assert!(m.lo <= m.mid && m.mid <= m.hi && m.lo >= 0.0 && m.hi.is_finite(), "{m:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn ratio_is_ours_over_paper_and_never_nan() {
        let r = Row::new("x", "bench", "us", Some(40.0), Some(10.0), "");
        assert_eq!(r.ratio, Some(0.25));
        assert_eq!(Row::new("x", "bench", "us", Some(0.0), Some(1.0), "").ratio, None);
        assert_eq!(Row::new("x", "bench", "us", Some(f64::NAN), Some(1.0), "").paper, None);
        // No ratio of ranks or of negative figures, and the row says why.
        let r = Row::new("x", "bench", "rank", Some(3.0), Some(1.0), "");
        assert!(r.ratio.is_none() && r.no_ratio.as_deref().is_some_and(|w| w.contains("rank")));
        let r = Row::new("x", "model", "%", Some(20.0), Some(-3.3), "");
        assert!(r.ratio.is_none() && r.no_ratio.is_some());
    }
}

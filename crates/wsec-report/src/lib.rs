//! `wsec report`: one self-contained HTML page that sets every seed paper's result beside
//! wsec's, with its SVG figures and a JSON of every number in it (`report.json`, checked
//! against `report.schema.json` in this crate).
//!
//! The report is assembled from parts ([`Part`]). Fast parts are rerun on every call (the
//! CCMP kernels of seed 000 Tables I/II with their peers, the cipher study of seed 004, the
//! DCF model's scenarios); slow parts (place and route of the Verilog engines, the live
//! network of `wsec demo`, which needs root) are read from the results committed under
//! `docs/results/`, with the date and commit of that file shown, unless [`Depth::Full`]
//! asks for them to be rerun or a fresh file is given.
//!
//! Dependencies point one way: this crate uses wsec-bench and wsec-model; the `wsec report`
//! subcommand (wsec-cli) is a thin wrapper around [`build`] and [`write`].
pub mod chart;
pub mod collect;
pub mod env;
pub mod html;
pub mod seeds;
pub mod verdict;

use serde::Serialize;
use std::path::{Path, PathBuf};

/// The JSON Schema `report.json` follows.
pub const SCHEMA: &str = include_str!("../report.schema.json");
/// Version tag of `report.json`'s layout (the schema's `format` constant).
pub const FORMAT: &str = "wsec-report/1";

#[derive(Debug)]
pub enum Error {
    /// The repository's committed inputs (scenarios, docs/results) are missing or unreadable.
    Input(String),
    /// A benchmark or model run failed.
    Run(String),
    /// Writing the report failed.
    Write(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Input(s) => write!(f, "input: {s}"),
            Error::Run(s) => write!(f, "run: {s}"),
            Error::Write(s) => write!(f, "write: {s}"),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// How much is rerun.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Depth {
    /// Fast parts only (seconds on 2 cores); slow parts from committed results.
    Quick,
    /// Everything: full benchmark sizes, place and route (`hw/run synth`, hours), the demo.
    Full,
}

/// What to build the report from.
#[derive(Clone, Debug)]
pub struct Options {
    /// The repository checkout (scenarios/, docs/results/, hw/).
    pub repo: PathBuf,
    pub depth: Depth,
    /// A fresh `wsec demo --mode all` table (its standard output), used instead of the
    /// committed one.
    pub demo: Option<PathBuf>,
    /// The wall time of that demo when the caller ran it for this report (`--full`).
    pub demo_wall_s: Option<f64>,
    /// The folder of the seed papers' text files, to link each cited line (default:
    /// `../shared/seeds` beside the checkout, when it exists).
    pub seeds: Option<PathBuf>,
}

/// One part of the run: what produced a group of numbers, how, and how long it took.
#[derive(Clone, Debug, Serialize)]
pub struct Part {
    pub id: String,
    pub title: String,
    /// "rerun" (measured in this run) or "committed" (read from a committed file).
    pub source: String,
    pub wall_s: f64,
    /// For committed parts: the file, its last commit and that commit's date.
    pub file: Option<String>,
    pub commit: Option<String>,
    pub date: Option<String>,
    /// The command that reproduces the part's numbers.
    pub command: String,
}

/// The spread of one of our figures: the interval a rerun is expected to land in, and how
/// many samples it rests on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Spread {
    /// `ci95`: Student-t 95 % interval of the mean over the model's replications; `iqr`:
    /// first to third quartile of a benchmark's samples; `min-max`: over runs of the live
    /// demo or place-and-route seeds; `exact`: a deterministic tool output (synthesis area,
    /// cycle counts), which a rerun of the same inputs reproduces to the unit.
    pub kind: String,
    pub lo: f64,
    pub hi: f64,
    /// Samples, replications, runs or seeds behind the figure.
    pub n: u32,
    /// The benchmark judged the figure noisy (its IQR above `wsec_bench::stats::NOISY_IQR`).
    pub noisy: bool,
}

impl Spread {
    pub fn new(kind: &str, lo: f64, hi: f64, n: u32) -> Spread {
        Spread { kind: kind.into(), lo: lo.min(hi), hi: hi.max(lo), n, noisy: false }
    }

    /// A figure a rerun reproduces exactly.
    pub fn exact(v: f64) -> Spread {
        Spread::new("exact", v, v, 1)
    }

    pub fn noisy(mut self, noisy: bool) -> Spread {
        self.noisy = noisy;
        self
    }

    /// The spread of `f(a, b)` for a function rising in `a` and falling in `b` (a
    /// difference or a ratio): the interval's far corners, so it is never too narrow.
    pub fn combine(a: &Spread, b: &Spread, f: impl Fn(f64, f64) -> f64) -> Spread {
        let kind = if a.kind == b.kind { a.kind.clone() } else { format!("{}+{}", a.kind, b.kind) };
        let mut s = Spread::new(&kind, f(a.lo, b.hi), f(a.hi, b.lo), a.n.min(b.n));
        s.noisy = a.noisy || b.noisy;
        s
    }

    /// Words for a kind ("ci95+iqr": both), short for a chart's caption or long for a
    /// table cell's tooltip.
    pub fn kind_words(kind: &str, long: bool) -> String {
        kind.split('+')
            .map(|k| match (k, long) {
                ("ci95", false) => "95 % confidence interval",
                ("ci95", true) => "Student-t 95 % interval of the mean over the model's replications",
                ("iqr", false) => "interquartile range",
                ("iqr", true) => "first to third quartile of the benchmark's samples",
                ("min-max", false) => "range over runs",
                ("min-max", true) => "smallest to largest over the runs or place-and-route seeds",
                ("exact", false) => "exact",
                ("exact", true) => "a deterministic tool output",
                (other, _) => other,
            })
            .collect::<Vec<_>>()
            .join(" combined with ")
    }

    /// `lo..hi` as the report prints it, with the kind and n.
    pub fn text(&self) -> String {
        if self.kind == "exact" {
            return "exact (deterministic tool output)".into();
        }
        if self.n == 1 {
            return format!("{}: a single run (n = 1), no spread measured", self.kind);
        }
        format!(
            "{}: {} to {}, n = {}{}",
            self.kind,
            crate::html::num(self.lo),
            crate::html::num(self.hi),
            self.n,
            if self.noisy { ", noisy" } else { "" }
        )
    }
}

/// One cell pair: the paper's figure and ours. `None` is "no figure" (the paper gives
/// none, or wsec does not measure it), said in `note`.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub label: String,
    /// Where our figure comes from: "bench", "model", "live", "hw" or "peer".
    pub source: String,
    pub unit: String,
    pub paper: Option<f64>,
    /// The paper's figure as the paper prints it (its digits, trailing zeros kept), or for a
    /// derived figure as the report computes it.
    pub paper_text: Option<String>,
    /// Set when the paper prints no such figure and the report derives it (a speed-up of
    /// two printed times, 1 / a printed period, a rank from the paper's prose): how.
    pub derived: Option<String>,
    pub ours: Option<f64>,
    /// The spread of ours (`None` only where ours is `None`).
    pub spread: Option<Spread>,
    /// Ours comes from a quick run (`wsec report --quick`: 3 short samples): a smoke figure.
    pub smoke: bool,
    /// ours / paper, when both exist, are positive, and a ratio of them means something.
    pub ratio: Option<f64>,
    /// Why there is no ratio although both figures exist (ranks, differences, negatives).
    pub no_ratio: Option<String>,
    /// What "ours" is (configuration, scenario case, implementation).
    pub what: String,
    pub note: Option<String>,
    /// The exact command that reproduces ours (empty: the table's command).
    pub command: String,
    /// The line of the seed text the paper's figure is printed on, when it is not in the
    /// table the section cites (a figure from the prose).
    pub paper_line: Option<u32>,
}

/// A paper figure as printed: Rust's shortest round-trip form of the transcribed value,
/// which is the printed form unless the paper prints trailing zeros (those are transcribed
/// as strings in `data/seeds.json` and passed through [`Row::printed`]).
pub fn printed(v: f64) -> String {
    format!("{v}")
}

/// A derived paper figure: three significant digits, no trailing zeros (100, 1.82, 0.0813).
pub fn derived_text(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    if v == v.round() && v.abs() < 1e9 {
        return format!("{v:.0}");
    }
    let digits = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

impl Row {
    pub fn new(label: impl Into<String>, source: &str, unit: &str, paper: Option<f64>, ours: Option<f64>, what: impl Into<String>) -> Row {
        let paper = paper.filter(|v| v.is_finite());
        let ours = ours.filter(|v| v.is_finite());
        let mut r = Row {
            label: label.into(),
            source: source.into(),
            unit: unit.into(),
            paper,
            paper_text: paper.map(printed),
            derived: None,
            ours,
            spread: None,
            smoke: false,
            ratio: None,
            no_ratio: None,
            what: what.into(),
            note: None,
            command: String::new(),
            paper_line: None,
        };
        r.set_ratio();
        r
    }

    fn set_ratio(&mut self) {
        self.ratio = None;
        self.no_ratio = None;
        let (Some(p), Some(o)) = (self.paper, self.ours) else { return };
        if self.unit == "rank" {
            self.no_ratio = Some("ranks: compare the order, not a quotient".into());
        } else if p <= 0.0 || o <= 0.0 {
            self.no_ratio = Some("a zero or negative figure: the difference says more than a quotient".into());
        } else {
            self.ratio = Some(o / p).filter(|r| r.is_finite());
        }
    }

    pub fn note(mut self, n: impl Into<String>) -> Row {
        self.note = Some(n.into());
        self
    }

    /// The paper's figure as printed, when its digits differ from the shortest form of the
    /// value (trailing zeros: "96.40").
    pub fn printed(mut self, text: impl Into<String>) -> Row {
        self.paper_text = Some(text.into());
        self
    }

    /// Marks the paper's figure as derived by the report, and says how.
    pub fn derived(mut self, how: impl Into<String>) -> Row {
        self.derived = Some(how.into());
        self.paper_text = self.paper.map(derived_text);
        self
    }

    /// The paper's figure derived by the report from printed ones (`how`).
    pub fn derived_value(mut self, v: Option<f64>, how: impl Into<String>) -> Row {
        self.paper = v.filter(|x| x.is_finite());
        self.set_ratio();
        self.derived(how)
    }

    /// Ours as a period in ns from a clock in MHz (its spread inverted too).
    pub fn as_period(mut self) -> Row {
        self.ours = self.ours.filter(|m| *m > 0.0).map(|m| 1e3 / m);
        self.spread = self.spread.take().filter(|s| s.lo > 0.0).map(|s| Spread { lo: 1e3 / s.hi, hi: 1e3 / s.lo, ..s });
        self.set_ratio();
        self
    }

    pub fn spread(mut self, s: Option<Spread>) -> Row {
        self.spread = s;
        self
    }

    pub fn smoke(mut self, smoke: bool) -> Row {
        self.smoke = smoke;
        self
    }

    pub fn cmd(mut self, c: impl Into<String>) -> Row {
        self.command = c.into();
        self
    }

    /// The paper's figure is printed on `line` of the seed text (outside the cited table).
    pub fn line(mut self, line: u32) -> Row {
        self.paper_line = Some(line);
        self
    }

    /// No ratio although both figures exist, and why.
    pub fn no_ratio(mut self, why: impl Into<String>) -> Row {
        self.ratio = None;
        self.no_ratio = Some(why.into());
        self
    }
}

/// One seed table or figure beside ours.
#[derive(Clone, Debug, Serialize)]
pub struct Table {
    /// "seed000-table1", ... (the schema requires every one of them).
    pub id: String,
    pub seed: String,
    pub title: String,
    /// The paper's table or figure and where it is in the seed text.
    pub reference: String,
    /// The parts the rows come from ([`Part::id`]).
    pub parts: Vec<String>,
    pub rows: Vec<Row>,
    /// Why ours differs from the paper's, one sentence or two.
    pub why: String,
    /// The command that reproduces our numbers.
    pub command: String,
    /// File names of the table's charts in the report directory (none, one, or for seed
    /// 000 Figs. 5 and 6 the model's and the live system's).
    pub charts: Vec<String>,
    /// What the comparison rests on: the model's scenario parameters, the devices, where a
    /// figure was read from (filled from the scenario and result files, not written twice).
    pub assumptions: Vec<Assumption>,
    /// The seed text's file name and the line the table or figure starts on.
    pub seed_file: String,
    pub seed_line: u32,
    /// The figures `why` quotes, each with the rows it is computed from (a test recomputes
    /// them from `rows`, so the sentence cannot contradict its table).
    pub facts: Vec<Fact>,
}

/// A figure a "why" sentence quotes: `op` over `field` of the named rows, printed with
/// `digits` decimals as `shown`.
#[derive(Clone, Debug, Serialize)]
pub struct Fact {
    pub shown: String,
    /// `value` (the first row), `max` / `min` (over the rows), `ratio` (first / second),
    /// `growth` (first / second, as a factor), `diff` (first - second).
    pub op: String,
    /// `ours`, `paper` or `ratio`.
    pub field: String,
    pub rows: Vec<String>,
    pub digits: usize,
}

impl Fact {
    /// The figure from `rows`, or `None` when a row or its field is missing.
    pub fn eval(op: &str, field: &str, names: &[&str], rows: &[Row]) -> Option<f64> {
        let get = |name: &str| -> Option<f64> {
            let r = rows.iter().find(|r| r.label == name)?;
            match field {
                "ours" => r.ours,
                "paper" => r.paper,
                "ratio" => r.ratio,
                _ => None,
            }
        };
        let vals: Option<Vec<f64>> = names.iter().map(|n| get(n)).collect();
        let v = vals?;
        match (op, v.as_slice()) {
            ("value", [a, ..]) => Some(*a),
            ("max", [_, ..]) => v.iter().copied().reduce(f64::max),
            ("min", [_, ..]) => v.iter().copied().reduce(f64::min),
            ("ratio" | "growth", [a, b, ..]) if *b != 0.0 => Some(a / b),
            ("diff", [a, b, ..]) => Some(a - b),
            _ => None,
        }
        .filter(|x| x.is_finite())
    }
}
/// One assumption a table's comparison rests on.
#[derive(Clone, Debug, Serialize)]
pub struct Assumption {
    pub name: String,
    pub value: String,
    /// Where the value is read from (a scenario file and key, a results file).
    pub source: String,
}

impl Assumption {
    pub fn new(name: impl Into<String>, value: impl Into<String>, source: impl Into<String>) -> Assumption {
        Assumption { name: name.into(), value: value.into(), source: source.into() }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub format: &'static str,
    /// Per paper, its headline claims and whether wsec reproduces them.
    pub verdicts: Vec<verdict::Verdict>,
    pub depth: Depth,
    /// UTC, RFC 3339.
    pub generated: String,
    pub environment: env::Environment,
    pub parts: Vec<Part>,
    pub tables: Vec<Table>,
    /// Total wall time of [`build`], seconds.
    pub wall_s: f64,
    /// The seed texts copied beside the page (`seeds/<name>.html`, a line anchor each).
    pub seed_texts: Vec<String>,
    /// The overview chart (`overview.svg`) is drawn.
    pub overview: bool,
    /// Where the seed texts are read from.
    #[serde(skip)]
    pub seeds_dir: Option<PathBuf>,
}

/// Largest seed text copied into the report (the five are 30-60 KB).
const MAX_SEED_TEXT: u64 = 1 << 20;

/// Runs (or reads) every part and assembles the report; `progress` gets one line per part
/// as it starts (the wsec-cli command shows it on a terminal).
pub fn build(o: &Options, progress: &mut dyn FnMut(&str)) -> Result<Report> {
    let t0 = std::time::Instant::now();
    let repo = o.repo.canonicalize().map_err(|e| Error::Input(format!("{}: {e}", o.repo.display())))?;
    for need in ["scenarios", "docs/results"] {
        if !repo.join(need).is_dir() {
            return Err(Error::Input(format!("{}: no {need}/ (run from the wsec checkout, or pass --repo)", repo.display())));
        }
    }
    let o = Options { repo, ..o.clone() };
    let mut c = collect::Collector::new(&o);
    progress("environment");
    let environment = env::probe(&o.repo);
    c.run_all(progress)?;
    let (parts, tables) = c.finish();
    let verdicts = verdict::judge(&tables);
    let overview = tables.iter().any(|t| t.rows.iter().any(|x| x.ratio.is_some()));
    let seeds_dir = o.seeds.clone().or_else(|| o.repo.parent().map(|p| p.join("shared/seeds"))).filter(|d| d.is_dir());
    let mut seed_texts: Vec<String> = Vec::new();
    if let Some(d) = &seeds_dir {
        for t in &tables {
            let ok = std::fs::metadata(d.join(&t.seed_file)).is_ok_and(|m| m.is_file() && m.len() <= MAX_SEED_TEXT);
            if ok && !seed_texts.contains(&t.seed_file) {
                seed_texts.push(t.seed_file.clone());
            }
        }
    }
    Ok(Report {
        verdicts,
        format: FORMAT,
        depth: o.depth,
        generated: env::utc_now(),
        environment,
        parts,
        tables,
        wall_s: t0.elapsed().as_secs_f64(),
        overview,
        seed_texts,
        seeds_dir,
    })
}

/// Writes `index.html`, `report.json` and the charts into `out`, atomically: everything goes
/// to a fresh sibling directory first, which then takes `out`'s place, so an interrupted run
/// leaves the previous report whole (at worst renamed `<out>.old-<pid>`, never half-written).
pub fn write(r: &Report, out: &Path) -> Result<PathBuf> {
    let werr = |p: &Path, e: std::io::Error| Error::Write(format!("{}: {e}", p.display()));
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| werr(&parent, e))?;
    let name =
        out.file_name().ok_or_else(|| Error::Write(format!("{}: not a directory name", out.display())))?.to_string_lossy().into_owned();
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(|e| werr(&tmp, e))?;
    }
    std::fs::create_dir_all(&tmp).map_err(|e| werr(&tmp, e))?;
    let res = (|| -> Result<()> {
        for t in &r.tables {
            for file in &t.charts {
                chart::render(t, file, &tmp.join(file))?;
            }
        }
        if r.overview {
            chart::overview(&r.tables, &tmp.join("overview.svg"))?;
        }
        if let Some(d) = &r.seeds_dir {
            std::fs::create_dir_all(tmp.join("seeds")).map_err(|e| werr(&tmp, e))?;
            for file in &r.seed_texts {
                let src = d.join(file);
                let text = std::fs::read_to_string(&src).map_err(|e| werr(&src, e))?;
                let dst = tmp.join("seeds").join(format!("{}.html", file.trim_end_matches(".txt")));
                std::fs::write(&dst, html::seed_page(file, &text)).map_err(|e| werr(&dst, e))?;
            }
        }
        let json = serde_json::to_string_pretty(r).map_err(|e| Error::Write(e.to_string()))?;
        std::fs::write(tmp.join("report.json"), json + "\n").map_err(|e| werr(&tmp, e))?;
        std::fs::write(tmp.join("report.schema.json"), SCHEMA).map_err(|e| werr(&tmp, e))?;
        std::fs::write(tmp.join("index.html"), html::page(r)).map_err(|e| werr(&tmp, e))?;
        Ok(())
    })();
    if let Err(e) = res {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    let old = parent.join(format!("{name}.old-{}", std::process::id()));
    let had_old = out.exists();
    if had_old {
        std::fs::rename(out, &old).map_err(|e| werr(out, e))?;
    }
    std::fs::rename(&tmp, out).map_err(|e| werr(out, e))?;
    if had_old {
        let _ = std::fs::remove_dir_all(&old);
    }
    Ok(out.join("index.html"))
}

/// The one-screen summary `wsec report` and `scripts/main` print: per table, the rows
/// with both figures and the median ratio.
pub fn summary(r: &Report) -> String {
    let mut s = format!("{:<16} {:>5} {:>6} {:>13}  {}\n", "table", "rows", "paired", "median ratio", "title");
    for t in &r.tables {
        let mut ratios: Vec<f64> = t.rows.iter().filter_map(|x| x.ratio).collect();
        ratios.sort_by(f64::total_cmp);
        let med = if ratios.is_empty() { "-".to_string() } else { format!("{:.3}", ratios[ratios.len() / 2]) };
        s += &format!("{:<16} {:>5} {:>6} {:>13}  {}\n", t.id, t.rows.len(), ratios.len(), med, t.title);
    }
    let rerun = r.parts.iter().filter(|p| p.source == "rerun").map(|p| p.id.as_str()).collect::<Vec<_>>().join(", ");
    let committed = r.parts.iter().filter(|p| p.source == "committed").map(|p| p.id.as_str()).collect::<Vec<_>>().join(", ");
    let smoke: Vec<&str> = r.tables.iter().filter(|t| t.rows.iter().any(|x| x.smoke)).map(|t| t.id.as_str()).collect();
    if !smoke.is_empty() {
        s += &format!("smoke figures (--quick: few, short benchmark samples): {}\n", smoke.join(", "));
    }
    let count = |v: &str| r.verdicts.iter().filter(|x| x.verdict == v).count();
    s += &format!(
        "verdicts on {} headline claims: {} reproduced, {} direction only, {} not reproduced, {} not comparable\n",
        r.verdicts.len(),
        count("reproduced"),
        count("direction only"),
        count("not reproduced"),
        count("not comparable")
    );
    s += &format!(
        "rerun: {rerun}\nfrom committed results: {}\nwall time {:.1} s",
        if committed.is_empty() { "-" } else { &committed },
        r.wall_s
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_figures_print_three_significant_digits() {
        assert_eq!(derived_text(100.0), "100");
        assert_eq!(derived_text(40.0 / 22.0), "1.82");
        assert_eq!(derived_text(1e3 / 12.4), "80.6");
        assert_eq!(derived_text(2378.0 / 13307.0), "0.179");
        assert_eq!(derived_text(0.0813), "0.0813");
    }

    #[test]
    fn a_combined_spread_takes_the_far_corners() {
        let a = Spread::new("ci95", 9.0, 11.0, 5);
        let b = Spread::new("ci95", 4.0, 6.0, 5);
        let d = Spread::combine(&a, &b, |x, y| x - y);
        assert_eq!((d.lo, d.hi, d.kind.as_str(), d.n), (3.0, 7.0, "ci95", 5));
        let q = Spread::combine(&a, &Spread::new("iqr", 4.0, 5.0, 9).noisy(true), |x, y| x / y);
        assert_eq!((q.lo, q.hi, q.kind.as_str(), q.n, q.noisy), (1.8, 2.75, "ci95+iqr", 5, true));
        assert!(Spread::new("min-max", 2.0, 2.0, 1).text().contains("n = 1"));
    }

    #[test]
    fn facts_recompute_from_rows_or_say_none() {
        let rows = vec![
            Row::new("a", "model", "s", Some(10.0), Some(12.0), ""),
            Row::new("b", "model", "s", Some(5.0), Some(6.0), ""),
            Row::new("c", "model", "s", None, Some(1.0), ""),
        ];
        assert_eq!(Fact::eval("value", "ours", &["a"], &rows), Some(12.0));
        assert_eq!(Fact::eval("max", "paper", &["a", "b"], &rows), Some(10.0));
        assert_eq!(Fact::eval("growth", "ours", &["a", "b"], &rows), Some(2.0));
        assert_eq!(Fact::eval("diff", "paper", &["a", "b"], &rows), Some(5.0));
        assert_eq!(Fact::eval("value", "ratio", &["b"], &rows), Some(1.2));
        assert_eq!(Fact::eval("value", "paper", &["c"], &rows), None, "no paper figure");
        assert_eq!(Fact::eval("value", "ours", &["nope"], &rows), None, "no such row");
    }
}

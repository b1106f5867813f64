//! `wsec report`: the seed papers' results beside wsec's, as one HTML page with SVG charts
//! and a JSON of every number (crates/wsec-report). A thin wrapper: arguments, progress,
//! and with `--full` as root a fresh `wsec demo --mode all` for the live rows.
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;
use wsec_report::{Depth, Options};

#[derive(Args)]
pub struct ReportArgs {
    /// Directory of the report (index.html, report.json, report.schema.json, the SVG
    /// charts); replaced as a whole only once the new report is complete
    #[arg(long, default_value = "target/report")]
    out: PathBuf,
    /// Rerun only the fast parts (benchmarks, model: seconds to a minute); read place and
    /// route and the live demo from docs/results/ (the default)
    #[arg(long, conflicts_with = "full")]
    quick: bool,
    /// Rerun everything: full benchmark sizes, `hw/run synth` (hours on 2 cores) and, as
    /// root, `wsec demo --mode all`
    #[arg(long)]
    full: bool,
    /// A fresh `wsec demo --mode all` table (its standard output) for the live rows,
    /// instead of docs/results/demo-all.md
    #[arg(long)]
    demo: Option<PathBuf>,
    /// The wsec checkout (scenarios/, docs/results/, hw/); default: the nearest directory
    /// upwards from the current one that has them
    #[arg(long)]
    repo: Option<PathBuf>,
    /// The seed papers' text files, to link every cited line (default: ../shared/seeds
    /// beside the checkout, when it exists)
    #[arg(long)]
    seeds: Option<PathBuf>,
    /// Print report.json to standard output instead of the summary; no progress display
    #[arg(long)]
    json: bool,
}

fn find_repo() -> Option<PathBuf> {
    let mut d = std::env::current_dir().ok()?;
    loop {
        if d.join("scenarios").is_dir() && d.join("docs/results").is_dir() {
            return Some(d);
        }
        if !d.pop() {
            return None;
        }
    }
}

/// `wsec demo --mode all --runs 5` (a spread for every live figure) as a child process, its table kept in `dir/demo-all.md`.
fn fresh_demo(dir: &Path) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("demo: {e}"))?;
    let out = std::process::Command::new(exe)
        .args(["demo", "--mode", "all", "--seconds", "3", "--runs", "5"])
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("demo: {e}"))?;
    if !out.status.success() {
        return Err(format!("wsec demo failed ({})", out.status));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let p = dir.join("demo-all.md");
    std::fs::write(&p, &out.stdout).map_err(|e| format!("{}: {e}", p.display()))?;
    Ok(p)
}

pub fn run(a: ReportArgs) -> Result<String, (u8, String)> {
    let repo = match a.repo.clone().or_else(find_repo) {
        Some(r) => r,
        None => return Err((2, "report: no wsec checkout here (scenarios/ and docs/results/); run from it or pass --repo".into())),
    };
    if let Some(d) = &a.demo {
        crate::inputs_exist(std::iter::once(d.as_path()))?;
    }
    if let Some(d) = a.seeds.as_ref().filter(|d| !d.is_dir()) {
        return Err((2, format!("report: --seeds {}: not a directory of the seed texts", d.display())));
    }
    let depth = if a.full { Depth::Full } else { Depth::Quick };
    let mut demo = a.demo.clone();
    let mut demo_wall_s = None;
    if depth == Depth::Full && demo.is_none() {
        if wsec_live::medium::netns::is_root() {
            let t = std::time::Instant::now();
            demo = Some(fresh_demo(&std::env::temp_dir().join(format!("wsec-report-demo-{}", std::process::id()))).map_err(|e| (1, e))?);
            demo_wall_s = Some(t.elapsed().as_secs_f64());
        } else {
            eprintln!("report: not root, so the live demo is not rerun; its committed result is used");
        }
    }
    let out = if a.out.is_relative() && a.out.starts_with("target") && a.repo.is_none() { repo.join(&a.out) } else { a.out.clone() };
    let bar = if !a.json && std::io::stderr().is_terminal() {
        let b = ProgressBar::new_spinner();
        b.set_style(ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}").expect("valid template"));
        b.enable_steady_tick(Duration::from_millis(120));
        b
    } else {
        ProgressBar::hidden()
    };
    let opts = Options { repo, depth, demo, demo_wall_s, seeds: a.seeds.clone() };
    let r = wsec_report::build(&opts, &mut |m| {
        bar.println(format!("report: {m}"));
        bar.set_message(m.to_string());
    })
    .map_err(|e| (1, format!("report: {e}")))?;
    bar.finish_and_clear();
    let index = wsec_report::write(&r, &out).map_err(|e| (1, format!("report: {e}")))?;
    if a.json {
        return serde_json::to_string_pretty(&r).map_err(|e| (1, e.to_string()));
    }
    Ok(format!("{}\nreport: {}", wsec_report::summary(&r), index.display()))
}

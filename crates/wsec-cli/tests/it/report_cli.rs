//! `wsec report --quick` end to end: the report's JSON validates against the
//! checked-in schema and holds every seed table and figure; the page opens in headless
//! Chromium from disk with every figure rendered, no empty table and no NaN; a PNG
//! screenshot is kept as an artifact. Chromium missing is a failure, not a skip.
use std::path::{Path, PathBuf};
use std::process::Command;

const REQUIRED: [&str; 20] = [
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

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn wsec(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wsec")).args(args).current_dir(repo()).output().expect("run wsec")
}

/// Where the test keeps its artifacts (the report and the screenshot).
fn artifacts() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wsec-report");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The seed papers' texts beside the checkout (../shared/seeds): the report links them and
/// the checks read them. Missing is a failure, not a skip.
fn seeds() -> PathBuf {
    let d = repo().join("../shared/seeds");
    assert!(
        d.join("000_c7c8ff673782f344.txt").is_file(),
        "the seed texts are needed at {} (../shared/seeds beside the checkout)",
        d.display()
    );
    d
}

fn chromium(args: &[&str]) -> std::process::Output {
    // As root Chromium needs --no-sandbox; the page is a local file with no network.
    let r = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=15000"])
        .args(args)
        .output();
    match r {
        Ok(o) => o,
        Err(e) => panic!("chromium is needed for this test (Debian package `chromium`, installed by scripts/setup): {e}"),
    }
}

#[test]
fn quick_report_validates_and_renders_in_chromium() {
    let dir = artifacts();
    let out = dir.join("report");
    let o = wsec(&["report", "--quick", "--json", "--out", out.to_str().unwrap(), "--seeds", seeds().to_str().unwrap()]);
    assert!(o.status.success(), "wsec report --quick: {}", String::from_utf8_lossy(&o.stderr));
    let printed: serde_json::Value = serde_json::from_slice(&o.stdout).expect("--json prints the report's JSON");
    let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(printed, written, "--json prints what report.json holds");

    // The schema of the repository, and the copy the report carries, validate it.
    let schema_text = std::fs::read_to_string(repo().join("crates/wsec-report/report.schema.json")).unwrap();
    assert_eq!(schema_text, std::fs::read_to_string(out.join("report.schema.json")).unwrap());
    let schema: serde_json::Value = serde_json::from_str(&schema_text).unwrap();
    let v = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = v.iter_errors(&written).map(|e| format!("{} at {}", e, e.instance_path)).collect();
    assert!(errors.is_empty(), "report.json does not follow the schema: {errors:#?}");
    // The schema really checks: a report without seed 003 Table 4 is refused.
    let mut broken = written.clone();
    broken["tables"].as_array_mut().unwrap().retain(|t| t["id"] != "seed003-table4");
    assert!(!v.is_valid(&broken), "the schema must require every seed table");

    let tables = written["tables"].as_array().unwrap();
    for id in REQUIRED {
        let t = tables.iter().find(|t| t["id"] == id).unwrap_or_else(|| panic!("{id} missing from report.json"));
        let rows = t["rows"].as_array().unwrap();
        assert!(!rows.is_empty(), "{id}: no rows");
        assert!(rows.iter().any(|r| r["ours"].is_number() || r["paper"].is_number()), "{id}: no figure at all");
    }
    // Our figure beside the paper's where both exist: seed 000 Table I's standard MIC row.
    let t1 = tables.iter().find(|t| t["id"] == "seed000-table1").unwrap();
    let std_row = &t1["rows"][0];
    assert_eq!(std_row["paper"], 40.0, "seed 000 Table I, i5, standard: 40 us");
    assert!(std_row["ours"].as_f64().is_some_and(|x| x > 0.0 && x < 1e3), "{std_row}");
    let parts = written["parts"].as_array().unwrap();
    let source = |id: &str| parts.iter().find(|p| p["id"] == id).map(|p| p["source"].as_str().unwrap().to_string());
    assert_eq!(source("bench-ccmp").as_deref(), Some("rerun"));
    assert_eq!(source("model").as_deref(), Some("rerun"));
    assert_eq!(source("hw").as_deref(), Some("committed"), "--quick reads place and route from docs/results");
    // The tables' charts and the overview of every ratio.
    assert_eq!(written["overview"], true, "the overview chart is drawn");
    let charts: usize = tables.iter().map(|t| t["charts"].as_array().unwrap().len()).sum::<usize>() + 1;
    let overview = std::fs::read_to_string(out.join("overview.svg")).unwrap();
    assert!(overview.contains("1x") && !overview.contains("NaN"), "overview.svg");
    assert!(charts >= 12, "{charts} charts");
    for file in tables.iter().flat_map(|t| t["charts"].as_array().unwrap()) {
        let svg = std::fs::read_to_string(out.join(file.as_str().unwrap())).unwrap();
        assert!(svg.contains("<svg") && !svg.contains("NaN"), "{file}");
    }

    // Headless Chromium: the DOM after load, and a screenshot.
    let url = format!("file://{}", out.join("index.html").display());
    let dom = chromium(&["--dump-dom", &url]);
    assert!(dom.status.success(), "chromium --dump-dom: {}", String::from_utf8_lossy(&dom.stderr));
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.contains(&format!("data-images=\"{charts}\"")), "the page should show {charts} figures: {}", &dom[..dom.len().min(400)]);
    assert!(dom.contains("data-broken=\"0\""), "a figure did not render (broken image)");
    assert!(dom.contains(&format!("{charts}/{charts} figures rendered")));
    assert!(!dom.contains("NaN"), "NaN on the page");
    let n_tables = dom.matches("<table").count();
    assert!(n_tables >= REQUIRED.len() + 2, "{n_tables} tables");
    for (i, t) in dom.split("<table").skip(1).enumerate() {
        let body = t.split("</table>").next().unwrap();
        assert!(body.contains("<td"), "table {i} of the page is empty");
    }
    for id in REQUIRED {
        assert!(dom.contains(&format!("id=\"{id}\"")), "{id}: no section on the page");
        let has_ours = tables.iter().find(|t| t["id"] == id).unwrap()["rows"].as_array().unwrap().iter().any(|r| r["ours"].is_number());
        assert!(!has_ours || dom.contains(&format!("href=\"#cmd-{id}-")), "{id}: numbers link to no command");
    }
    assert!(
        dom.contains("data-dead-links=\"0\""),
        "a link inside the page has no target: {}",
        dom.split("data-dead-list=\"").nth(1).and_then(|s| s.split('"').next()).unwrap_or("")
    );
    assert!(!dom.contains("data-links=\"0\""), "the page has no in-page links");

    // What a reader of the papers checks: printed precision, derived marks, spreads, the
    // why sentences against their tables, links to the seed texts, commands.
    let problems = crate::report_check::problems(&out, &seeds());
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    let derived = written["tables"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["rows"].as_array().unwrap())
        .filter(|r| r["derived"].is_string())
        .count();
    let printed = written["tables"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["rows"].as_array().unwrap())
        .filter(|r| r["paper"].is_number() && r["derived"].is_null())
        .count();
    assert!(derived >= 20 && printed >= 150, "the checks ran on {printed} printed and {derived} derived paper figures");
    let facts: usize = written["tables"].as_array().unwrap().iter().map(|t| t["facts"].as_array().unwrap().len()).sum();
    assert!(facts >= 30, "the why sentences' check recomputed only {facts} facts");
    assert!(written["seed_texts"].as_array().unwrap().len() == 5, "the five seed texts are linked");
    assert!(written["verdicts"].as_array().unwrap().len() >= 15, "verdicts");

    let shot = dir.join("report-quick.png");
    let _ = std::fs::remove_file(&shot);
    let s = chromium(&["--window-size=1280,8000", &format!("--screenshot={}", shot.display()), &url]);
    assert!(s.status.success(), "chromium --screenshot: {}", String::from_utf8_lossy(&s.stderr));
    let png = std::fs::read(&shot).expect("the screenshot was written");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 50_000, "screenshot: {} octets", png.len());
    eprintln!("artifacts: {} and {}", out.display(), shot.display());
}

#[test]
fn a_failed_run_leaves_the_previous_report_whole() {
    let dir = artifacts().join("atomic");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("r");
    let o = wsec(&["report", "--quick", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let before = std::fs::read(out.join("report.json")).unwrap();
    let bad = dir.join("bad-demo.md");
    std::fs::write(&bad, "| open | - | - | fast | 1 | 1 |\n").unwrap();
    let o = wsec(&["report", "--quick", "--out", out.to_str().unwrap(), "--demo", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("wsec: report: input:") && err.contains("not a figure") && err.lines().count() == 1, "{err}");
    assert_eq!(std::fs::read(out.join("report.json")).unwrap(), before, "the previous report changed");
    let leftovers: Vec<_> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).filter(|n| n.to_string_lossy().contains("tmp")).collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn readme_documents_every_subcommand() {
    let o = wsec(&["--help"]);
    let help = String::from_utf8(o.stdout).unwrap();
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let mut lines = help.lines().skip_while(|l| *l != "Commands:");
    lines.next();
    let subs: Vec<&str> =
        lines.take_while(|l| l.starts_with("  ")).filter_map(|l| l.split_whitespace().next()).filter(|s| *s != "help").collect();
    assert!(subs.len() >= 15, "{subs:?}");
    let missing: Vec<&&str> = subs.iter().filter(|s| !readme.contains(&format!("wsec {s}"))).collect();
    assert!(missing.is_empty(), "README.md does not document: {missing:?}");
}

/// Each check of `report_check` fails on a report tampered the way the issue describes:
/// a paper figure rounded below its printed digits, a derived figure unmarked, a why
/// sentence that contradicts its table, a figure without its spread, a broken seed link.
#[test]
fn the_checks_catch_a_tampered_report() {
    let dir = artifacts().join("tamper");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good");
    let o = wsec(&["report", "--quick", "--out", good.to_str().unwrap(), "--seeds", seeds().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(crate::report_check::problems(&good, &seeds()), Vec::<String>::new());
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(good.join("report.json")).unwrap()).unwrap();
    let html = std::fs::read_to_string(good.join("index.html")).unwrap();
    let copy = |name: &str, j: &serde_json::Value, h: &str| -> Vec<String> {
        let d = dir.join(name);
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        for e in std::fs::read_dir(&good).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_file() {
                std::fs::copy(e.path(), d.join(e.file_name())).unwrap();
            }
        }
        std::fs::create_dir_all(d.join("seeds")).unwrap();
        for e in std::fs::read_dir(good.join("seeds")).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), d.join("seeds").join(e.file_name())).unwrap();
        }
        std::fs::write(d.join("report.json"), serde_json::to_string(j).unwrap()).unwrap();
        std::fs::write(d.join("index.html"), h).unwrap();
        let p = crate::report_check::problems(&d, &seeds());
        eprintln!("tampered '{name}': {} problem(s):\n  {}", p.len(), p.join("\n  "));
        p
    };
    let row_where = |j: &mut serde_json::Value, f: &dyn Fn(&serde_json::Value) -> bool| -> (usize, usize) {
        for (ti, t) in j["tables"].as_array().unwrap().iter().enumerate() {
            for (ri, r) in t["rows"].as_array().unwrap().iter().enumerate() {
                if f(r) {
                    return (ti, ri);
                }
            }
        }
        panic!("no such row");
    };
    // 1. Seed 001's 127.43 MHz shown as 127.4 (what the report did before).
    let mut j = json.clone();
    let (ti, ri) = row_where(&mut j, &|r| r["paper_text"] == "127.43");
    j["tables"][ti]["rows"][ri]["paper_text"] = "127.4".into();
    let p = copy("rounded", &j, &html.replace("data-paper=\"127.43\"", "data-paper=\"127.4\""));
    assert!(p.iter().any(|x| x.contains("'127.4' is not printed")), "{p:?}");
    // 1b. The same rounding in what the page shows only, report.json left right.
    let shown = html.replacen(">127.43</a>", ">127.4</a>", 1);
    assert_ne!(shown, html);
    let p = copy("rounded-on-page", &json, &shown);
    assert!(p.iter().any(|x| x.contains("shows the paper figure as '127.4', report.json's printed form is '127.43'")), "{p:?}");
    // 2. A derived speed-up left unmarked.
    let mut j = json.clone();
    let (ti, ri) = row_where(&mut j, &|r| r["derived"].is_string() && r["unit"] == "x");
    j["tables"][ti]["rows"][ri]["derived"] = serde_json::Value::Null;
    let p = copy("unmarked", &j, &html);
    assert!(p.iter().any(|x| x.contains("is not printed on lines")), "{p:?}");
    // 2b. The page drops a derived figure's dagger and footnote link.
    let mark = html.find("<a class=\"mark\" href=\"#seed000-table1-d1\"").expect("seed 000 Table I's first derived mark");
    let end = mark + html[mark..].find("</a>").unwrap() + "</a>".len();
    let p = copy("unmarked-on-page", &json, &format!("{}{}", &html[..mark], &html[end..]));
    assert!(p.iter().any(|x| x.contains("seed000-table1 / 2 lanes: speed-up over standard: derived figure 1.38 is not marked")), "{p:?}");
    // 2c. The verdict table drops the word "derived" from a quotient of two rows.
    let mut j = json.clone();
    let v = j["verdicts"].as_array().unwrap().iter().position(|v| v["rows"].as_array().unwrap().len() == 2).unwrap();
    let paper = j["verdicts"][v]["paper"].as_str().unwrap().replace("(derived: ", "(");
    j["verdicts"][v]["paper"] = paper.into();
    let p = copy("unmarked-verdict", &j, &html);
    assert!(p.iter().any(|x| x.starts_with("verdict '") && x.contains("is not marked")), "{p:?}");
    // 3. A why sentence whose figure contradicts its rows.
    let mut j = json.clone();
    let t = j["tables"].as_array().unwrap().iter().position(|t| t["id"] == "seed000-fig7").unwrap();
    let shown = j["tables"][t]["facts"][0]["shown"].as_str().unwrap().to_string();
    let wrong = format!("{}9", shown);
    j["tables"][t]["facts"][0]["shown"] = wrong.clone().into();
    let why = j["tables"][t]["why"].as_str().unwrap().replacen(&shown, &wrong, 1);
    j["tables"][t]["why"] = why.into();
    let p = copy("contradicts", &j, &html);
    assert!(p.iter().any(|x| x.contains("seed000-fig7: the why sentence says")), "{p:?}");
    // 3b. A stale, hard-coded figure: seed 004 Table 3's sentence with Table 2's "up to 3.5x".
    let mut j = json.clone();
    let t = j["tables"].as_array().unwrap().iter().position(|t| t["id"] == "seed004-table3").unwrap();
    let why = j["tables"][t]["why"].as_str().unwrap().to_string();
    let growth = j["tables"][t]["facts"].as_array().unwrap().iter().find(|f| f["op"] == "growth" && f["field"] == "paper").unwrap();
    let growth = format!("up to {}x", growth["shown"].as_str().unwrap());
    assert!(why.contains(&growth), "{why} / {growth}");
    j["tables"][t]["why"] = why.replacen(&growth, "up to 3.5x", 1).into();
    let p = copy("stale-why", &j, &html);
    assert!(p.iter().any(|x| x.contains("seed004-table3: the why sentence quotes 3.5, which no fact")), "{p:?}");
    // 4. A figure of ours without its spread.
    let mut j = json.clone();
    let (ti, ri) = row_where(&mut j, &|r| r["source"] == "live" && r["ours"].is_number());
    j["tables"][ti]["rows"][ri]["spread"] = serde_json::Value::Null;
    let p = copy("nospread", &j, &html);
    assert!(p.iter().any(|x| x.contains("without its spread")), "{p:?}");
    // 5. A link to a line the seed text does not have.
    let p = copy("deadlink", &json, &html.replacen("#L242\"", "#L99999\"", 1));
    assert!(p.iter().any(|x| x.contains("no anchor L99999")), "{p:?}");
}

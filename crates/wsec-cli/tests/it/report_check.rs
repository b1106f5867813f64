//! The checks a reader of the papers would make of a `wsec report`, as a function that lists
//! every problem it finds (so a test can also show that each check fails on a tampered
//! report): paper figures shown with the digits the paper prints and found on the cited
//! lines of the seed text, derived figures marked, a spread for every figure of ours, the
//! "why" sentences' figures recomputed from their tables, links that resolve, charts that
//! draw something, a command behind every figure.
use serde_json::Value;
use std::path::Path;

/// `needle` in `hay` as a whole figure: no digit (or decimal point then digit) beside it.
pub fn has_figure(hay: &str, needle: &str) -> bool {
    let b = hay.as_bytes();
    let mut from = 0;
    while let Some(i) = hay[from..].find(needle).map(|i| i + from) {
        let end = i + needle.len();
        let before_ok = i == 0 || !(b[i - 1].is_ascii_digit() || (b[i - 1] == b'.' && i >= 2 && b[i - 2].is_ascii_digit()));
        let after_ok = end >= b.len() || !(b[end].is_ascii_digit() || (b[end] == b'.' && end + 1 < b.len() && b[end + 1].is_ascii_digit()));
        if before_ok && after_ok {
            return true;
        }
        from = i + 1;
    }
    false
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// What a reader sees of an HTML fragment: its text without tags, entities decoded.
fn visible(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&dagger;", "\u{2020}")
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// The paper cell of the row labelled `label` in a section's table: its opening tag's
/// attributes and its inner HTML.
fn paper_cell<'a>(section: &'a str, label: &str) -> Option<(&'a str, &'a str)> {
    let row = section.split(&format!("<tr><td>{}</td>", esc(label))).nth(1)?.split("</tr>").next()?;
    // item, source and unit come first; the paper's cell is the fourth.
    let cell = row.split("<td").nth(3)?;
    let (attrs, rest) = cell.split_once('>')?;
    Some((attrs, rest.split("</td>").next()?))
}

/// A fact recomputed from the rows of report.json, independently of the report's code.
fn eval(op: &str, field: &str, names: &[String], rows: &[Value]) -> Option<f64> {
    let vals: Option<Vec<f64>> =
        names.iter().map(|n| rows.iter().find(|r| r["label"] == n.as_str()).and_then(|r| r[field].as_f64())).collect();
    let v = vals?;
    let x = match op {
        "value" => *v.first()?,
        "max" => v.iter().copied().fold(f64::MIN, f64::max),
        "min" => v.iter().copied().fold(f64::MAX, f64::min),
        "ratio" | "growth" => v.first()? / v.get(1)?,
        "diff" => v.first()? - v.get(1)?,
        _ => return None,
    };
    x.is_finite().then_some(x)
}

/// `x` with `digits` decimals, a negative zero without its sign.
fn fixed(x: f64, digits: usize) -> String {
    let s = format!("{x:.digits$}");
    match s.strip_prefix('-') {
        Some(r) if r.chars().all(|c| c == '0' || c == '.') => r.to_string(),
        _ => s,
    }
}

/// Decimal figures in a sentence ("226.6", "0.93"), with their position.
fn decimals(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.')) {
            let st = i;
            while i < b.len() && (b[i].is_ascii_digit() || (b[i] == b'.' && i + 1 < b.len() && b[i + 1].is_ascii_digit())) {
                i += 1;
            }
            let tok = &s[st..i];
            if tok.contains('.') {
                // A minus sign, not a range's dash ("0.86-0.93").
                let neg = st > 0 && b[st - 1] == b'-' && (st < 2 || !b[st - 2].is_ascii_alphanumeric());
                out.push(if neg { format!("-{tok}") } else { tok.to_string() });
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Every problem of the report in `dir` (report.json, index.html, charts, seeds/), checked
/// against the seed texts in `seeds`.
pub fn problems(dir: &Path, seeds: &Path) -> Vec<String> {
    let mut p = Vec::new();
    let json: Value = match std::fs::read_to_string(dir.join("report.json")).map(|t| serde_json::from_str(&t)) {
        Ok(Ok(v)) => v,
        e => return vec![format!("report.json: {e:?}")],
    };
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap_or_default();
    let tables = json["tables"].as_array().cloned().unwrap_or_default();
    for t in &tables {
        let id = t["id"].as_str().unwrap_or("?");
        let rows = t["rows"].as_array().cloned().unwrap_or_default();
        let file = t["seed_file"].as_str().unwrap_or("");
        let text = std::fs::read_to_string(seeds.join(file)).unwrap_or_default();
        if text.is_empty() {
            p.push(format!("{id}: seed text {file} not found in {}", seeds.display()));
        }
        let lines: Vec<&str> = text.lines().collect();
        let seed_line = t["seed_line"].as_u64().unwrap_or(0) as usize;
        let section = html.split(&format!("<section id=\"{id}\">")).nth(1).and_then(|s| s.split("</section>").next()).unwrap_or("");
        if section.is_empty() {
            p.push(format!("{id}: no section in index.html"));
        }
        for r in &rows {
            let label = r["label"].as_str().unwrap_or("?");
            if let Some(v) = r["paper"].as_f64() {
                let Some(shown) = r["paper_text"].as_str() else {
                    p.push(format!("{id} / {label}: paper figure {v} without its printed form"));
                    continue;
                };
                let cell = paper_cell(section, label);
                if cell.is_none() && !section.is_empty() {
                    p.push(format!("{id} / {label}: the row is not on the page"));
                }
                if let Some(how) = r["derived"].as_str() {
                    let marked = cell.is_some_and(|(attrs, inner)| {
                        attrs.contains("data-derived")
                            && inner.contains(&format!("title=\"derived: {}\"", esc(how)))
                            && visible(inner).starts_with(&format!("{shown}\u{2020}"))
                    });
                    if cell.is_some() && !marked {
                        p.push(format!("{id} / {label}: derived figure {shown} is not marked on the page"));
                    }
                } else {
                    // Printed: on the cited line (a prose figure) or in the cited table.
                    let (a, b) = match r["paper_line"].as_u64() {
                        Some(l) => (l as usize, l as usize),
                        None => (seed_line, seed_line + 30),
                    };
                    let found = (a.max(1)..=b.min(lines.len())).any(|l| has_figure(lines[l - 1], shown));
                    if !found {
                        p.push(format!("{id} / {label}: the paper figure '{shown}' is not printed on lines {a}-{b} of {file} (rounded, or derived without a mark?)"));
                    }
                    if shown.parse::<f64>().map_or(true, |x| (x - v).abs() > 1e-9 * v.abs().max(1.0)) {
                        p.push(format!("{id} / {label}: printed '{shown}' is not the value {v}"));
                    }
                    // The digits a reader sees in the cell, not only its attribute.
                    let seen = cell.map(|(attrs, inner)| (attrs.contains(&format!("data-paper=\"{shown}\"")), visible(inner)));
                    match seen {
                        Some((true, text)) if text == shown => {}
                        Some((_, text)) => p.push(format!(
                            "{id} / {label}: the page shows the paper figure as '{text}', report.json's printed form is '{shown}'"
                        )),
                        None => {}
                    }
                }
            }
            if r["ours"].is_number() {
                match r["spread"].as_object() {
                    Some(s) if s.get("n").and_then(Value::as_u64).is_some_and(|n| n >= 1) => {}
                    _ => p.push(format!("{id} / {label}: our figure without its spread")),
                }
                let cmd = r["command"].as_str().filter(|c| !c.is_empty()).or(t["command"].as_str()).unwrap_or("");
                if cmd.contains('<') || cmd.is_empty() {
                    p.push(format!("{id} / {label}: command '{cmd}' is not one that runs"));
                }
                match r["source"].as_str() {
                    Some("live") if !cmd.contains("wsec demo") => {
                        p.push(format!("{id} / {label}: a live figure without its wsec demo command"))
                    }
                    Some("hw") if !cmd.contains("hw/run") => {
                        p.push(format!("{id} / {label}: a hardware figure without its hw/run command"))
                    }
                    _ => {}
                }
            }
            if r["ratio"].is_number()
                && (r["unit"] == "rank" || r["paper"].as_f64().unwrap_or(1.0) <= 0.0 || r["ours"].as_f64().unwrap_or(1.0) <= 0.0)
            {
                p.push(format!("{id} / {label}: a ratio of ranks or of a non-positive figure"));
            }
        }
        if section.contains("data-spread=\"missing\"") {
            p.push(format!("{id}: a figure of ours shows no spread on the page"));
        }
        // The "why" sentence: each quoted figure recomputed from the rows, and no decimal
        // figure in it that is neither a fact, a paper figure nor an assumption.
        let why = t["why"].as_str().unwrap_or("");
        if why.contains("no figure") {
            // A fact the rows could not give is printed as "no figure" and not recorded.
            p.push(format!("{id}: the why sentence quotes a figure its rows do not have"));
        }
        let facts = t["facts"].as_array().cloned().unwrap_or_default();
        for f in &facts {
            let names: Vec<String> =
                f["rows"].as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect()).unwrap_or_default();
            let digits = f["digits"].as_u64().unwrap_or(0) as usize;
            let shown = f["shown"].as_str().unwrap_or("");
            match eval(f["op"].as_str().unwrap_or(""), f["field"].as_str().unwrap_or(""), &names, &rows) {
                Some(x) if fixed(x, digits) == shown => {}
                x => p.push(format!("{id}: the why sentence says {shown} where the rows {names:?} give {x:?}")),
            }
            if !has_figure(why, shown) {
                p.push(format!("{id}: fact {shown} is not in the why sentence"));
            }
        }
        let known: Vec<String> = facts
            .iter()
            .filter_map(|f| f["shown"].as_str().map(String::from))
            .chain(rows.iter().filter_map(|r| r["paper_text"].as_str().map(String::from)))
            .collect();
        let context = format!(
            "{} {}",
            t["title"].as_str().unwrap_or(""),
            t["assumptions"]
                .as_array()
                .map(|a| a.iter().map(|x| x["value"].as_str().unwrap_or("")).collect::<Vec<_>>().join(" "))
                .unwrap_or_default()
        );
        for d in decimals(why) {
            let bare = d.trim_start_matches('-');
            if !known.iter().any(|k| k == &d || k == bare) && !context.contains(bare) {
                p.push(format!("{id}: the why sentence quotes {d}, which no fact, paper figure or assumption gives"));
            }
        }
        // Charts draw something.
        for c in t["charts"].as_array().cloned().unwrap_or_default() {
            let f = c.as_str().unwrap_or("");
            let svg = std::fs::read_to_string(dir.join(f)).unwrap_or_default();
            let marks = svg.matches("<rect").count()
                + svg.matches("<circle").count()
                + svg.matches("<polyline").count()
                + svg.matches("<path").count();
            if !svg.contains("<svg") || svg.contains("NaN") || marks < 3 {
                p.push(format!("{id}: chart {f} is empty or broken"));
            }
        }
    }
    // Links out of the page: every file exists; a seed text's line anchor exists.
    for href in html.split("href=\"").skip(1).filter_map(|s| s.split('"').next()) {
        if href.starts_with('#') || href.starts_with("http") {
            continue;
        }
        let (file, frag) = href.split_once('#').unwrap_or((href, ""));
        match std::fs::read_to_string(dir.join(file)) {
            Ok(body) if frag.is_empty() || body.contains(&format!("id=\"{frag}\"")) => {}
            Ok(_) => p.push(format!("link {href}: no anchor {frag}")),
            Err(e) => p.push(format!("link {href}: {e}")),
        }
    }
    let verdicts = json["verdicts"].as_array().cloned().unwrap_or_default();
    for seed in ["000", "001", "002", "003", "004"] {
        if !verdicts.iter().any(|v| v["seed"] == seed) {
            p.push(format!("no verdict on seed {seed}"));
        }
    }
    // The verdict table: a paper figure the report derives says so (a quotient of two rows
    // always is), and a figure of ours carries its spread.
    for v in &verdicts {
        let claim = v["claim"].as_str().unwrap_or("?");
        let names: Vec<&str> = v["rows"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        let table = tables.iter().find(|t| t["id"] == v["table"]);
        let derived_row = table
            .and_then(|t| t["rows"].as_array())
            .is_some_and(|rows| rows.iter().any(|r| r["label"].as_str().is_some_and(|l| names.contains(&l)) && r["derived"].is_string()));
        let paper = v["paper"].as_str().unwrap_or("");
        if (names.len() > 1 || derived_row) && !paper.contains("(derived: ") {
            p.push(format!("verdict '{claim}': derived paper figure '{paper}' is not marked"));
        }
        let ours = v["ours"].as_str().unwrap_or("");
        if ours.starts_with(|c: char| c.is_ascii_digit() || c == '-') && !(ours.contains("n = ") || ours.contains("exact")) {
            p.push(format!("verdict '{claim}': ours '{ours}' without its spread"));
        }
    }
    p.sort();
    p.dedup();
    p
}

#[test]
fn figures_are_found_whole() {
    assert!(has_figure("Clock(MHz)\t127.43\t114.05", "127.43"));
    assert!(!has_figure("Clock(MHz)\t127.43\t114.05", "127.4"), "a rounded figure is not the printed one");
    assert!(!has_figure("7198", "719"));
    assert!(has_figure("approximately 20% of", "20"));
    assert!(!has_figure("1029.48", "29.48"));
    assert_eq!(decimals("falls to 0.86-0.93 of 802.11g, 3.7x and -3.31 %"), ["0.86", "0.93", "802.11", "3.7", "-3.31"]);
}

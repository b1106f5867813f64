//! The report page: one HTML file with inline CSS, its charts as SVG files beside it, no
//! network and no server needed. Every number links to the command that reproduces it;
//! every paper figure to the line of the seed text it is printed on (when the seed texts
//! were given, `seeds/*.html` beside the page).
use crate::{Report, Row, Table};
use std::fmt::Write;

pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A number as the report prints its own figures: 3 to 4 significant digits, no exponent
/// above 1e-3. (Paper figures are printed as the paper prints them: `Row::paper_text`.)
pub fn num(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() {
        "-".into()
    } else if a == 0.0 {
        "0".into()
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a >= 0.001 {
        format!("{v:.4}")
    } else {
        format!("{v:.2e}")
    }
}

const CSS: &str = "body{font-family:DejaVu Sans,Arial,sans-serif;margin:2em auto;max-width:1250px;color:#222;line-height:1.4}\
table{border-collapse:collapse;margin:.6em 0;font-size:14px}td,th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}\
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}th{background:#f0f0f0}a.n{color:#14507a;text-decoration:none}a.n:hover{text-decoration:underline}\
.none{color:#888;font-style:italic}.why{background:#fbf8e8;border-left:4px solid #d8c06a;padding:.4em .8em}\
pre{background:#f4f4f4;padding:.4em .8em;overflow-x:auto;margin:.2em 0}img{max-width:100%;border:1px solid #ddd;margin:.5em 0 0}\
figure{margin:0 0 1em}figcaption{font-size:13px;color:#444}\
.src{font-size:12px;color:#555}section{margin-bottom:2.5em}.sp{font-size:12px;color:#555;white-space:nowrap}\
.smoke{background:#fdecea;border-left:4px solid #d9534f;padding:.4em .8em}.mark{color:#b35900;font-weight:bold}\
.v-reproduced{background:#dff0d8}.v-direction-only{background:#fcf8e3}.v-not-reproduced{background:#f2dede}.v-not-comparable{background:#eee}\
details{margin:.4em 0}summary{cursor:pointer;color:#14507a}";

/// The anchor of a table's `k`-th distinct command.
fn cmd_id(t: &Table, k: usize) -> String {
    format!("cmd-{}-{k}", t.id)
}

/// The distinct commands of a table's rows (the table's own first).
pub fn commands(t: &Table) -> Vec<String> {
    let mut v = vec![t.command.clone()];
    for r in &t.rows {
        if !r.command.is_empty() && !v.contains(&r.command) {
            v.push(r.command.clone());
        }
    }
    v
}

fn row_cmd(r: &Row, t: &Table, cmds: &[String]) -> (String, String) {
    let c = if r.command.is_empty() { &t.command } else { &r.command };
    let k = cmds.iter().position(|x| x == c).unwrap_or(0);
    (cmd_id(t, k), c.clone())
}

/// Where the seed text's line `line` is: the copy beside the page, if the report has it.
pub fn seed_href(r: &Report, file: &str, line: u32) -> Option<String> {
    r.seed_texts.iter().any(|f| f == file).then(|| format!("seeds/{}.html#L{line}", file.trim_end_matches(".txt")))
}

fn paper_cell(rep: &Report, r: &Row, t: &Table, derived_k: &mut usize) -> String {
    let Some(text) = &r.paper_text else {
        return r#"<td class="n none">no figure</td>"#.into();
    };
    let line = r.paper_line.unwrap_or(t.seed_line);
    let shown = match seed_href(rep, &t.seed_file, line) {
        Some(h) => format!(r#"<a class="n" href="{}" title="{}, line {line}">{}</a>"#, esc(&h), esc(&t.seed_file), esc(text)),
        None => format!(r#"<span title="{}, line {line}">{}</span>"#, esc(&t.seed_file), esc(text)),
    };
    match &r.derived {
        Some(how) => {
            *derived_k += 1;
            format!(
                r##"<td class="n" data-derived="1">{shown}<a class="mark" href="#{}-d{}" title="derived: {}">&dagger;{}</a></td>"##,
                t.id,
                derived_k,
                esc(how),
                derived_k
            )
        }
        None => format!(r#"<td class="n" data-paper="{}">{shown}</td>"#, esc(text)),
    }
}

fn ours_cell(r: &Row, t: &Table, cmds: &[String]) -> String {
    match r.ours {
        Some(x) => {
            let (id, c) = row_cmd(r, t, cmds);
            let mut marks = String::new();
            if r.smoke {
                marks += r#" <span class="mark" title="a --quick smoke figure">s</span>"#;
            }
            if r.spread.as_ref().is_some_and(|s| s.noisy) {
                marks += r#" <span class="mark" title="the benchmark judged it noisy (IQR above 10 % of the median)">noisy</span>"#;
            }
            format!(r##"<td class="n"><a class="n" href="#{id}" title="{}">{}</a>{marks}</td>"##, esc(&c), num(x))
        }
        None => r#"<td class="n none">no figure</td>"#.into(),
    }
}

fn spread_cell(r: &Row) -> String {
    match (&r.spread, r.ours) {
        (Some(s), _) if s.kind == "exact" => r#"<td class="sp" data-spread="exact">exact</td>"#.into(),
        (Some(s), _) if s.n == 1 => format!(
            r#"<td class="sp" data-spread="{}" title="one run or seed: no spread measured">single run (n&nbsp;=&nbsp;1)</td>"#,
            esc(&s.kind)
        ),
        (Some(s), _) => format!(
            r#"<td class="sp" data-spread="{}">{} to {} <span title="{}">({}, n&nbsp;=&nbsp;{})</span></td>"#,
            esc(&s.kind),
            num(s.lo),
            num(s.hi),
            esc(&crate::Spread::kind_words(&s.kind, true)),
            esc(&s.kind),
            s.n
        ),
        (None, Some(_)) => r#"<td class="sp none" data-spread="missing">no spread</td>"#.into(),
        (None, None) => "<td class=\"sp\"></td>".into(),
    }
}

fn ratio_cell(r: &Row, t: &Table, cmds: &[String]) -> String {
    match (r.ratio, &r.no_ratio) {
        (Some(x), _) => {
            let (id, c) = row_cmd(r, t, cmds);
            format!(r##"<td class="n"><a class="n" href="#{id}" title="{}">{}</a></td>"##, esc(&c), num(x))
        }
        (None, Some(why)) => format!(r#"<td class="n none" title="{}">n/a</td>"#, esc(why)),
        (None, None) => r#"<td class="n none"></td>"#.into(),
    }
}

fn section(rep: &Report, t: &Table) -> String {
    let mut s = String::new();
    let cite = match seed_href(rep, &t.seed_file, t.seed_line) {
        Some(h) => format!(r#"<a href="{}">{}, line {}</a>"#, esc(&h), esc(&t.seed_file), t.seed_line),
        None => format!("{}, line {}", esc(&t.seed_file), t.seed_line),
    };
    let _ = write!(
        s,
        "<section id=\"{}\"><h2>{}</h2>\n<p class=\"src\">{} &mdash; seed text: {cite}</p>\n<p class=\"why\">{}</p>\n",
        t.id,
        esc(&t.title),
        esc(&t.reference),
        esc(&t.why)
    );
    if t.rows.iter().any(|r| r.smoke) {
        s += "<p class=\"smoke\">The figures marked <span class=\"mark\">s</span> are smoke figures of a <code>--quick</code> run (few, short samples): rerun with <code>wsec report --full</code> before quoting them.</p>\n";
    }
    if !t.assumptions.is_empty() {
        s += "<details open><summary>What the comparison rests on</summary><table class=\"assume\"><tr><th>assumption</th><th>value</th><th>read from</th></tr>\n";
        for a in &t.assumptions {
            let _ = writeln!(s, "<tr><td>{}</td><td>{}</td><td class=\"src\">{}</td></tr>", esc(&a.name), esc(&a.value), esc(&a.source));
        }
        s += "</table></details>\n";
    }
    for c in &t.charts {
        let _ = writeln!(
            s,
            "<figure><img src=\"{}\" alt=\"chart {} of {}\"><figcaption>{}</figcaption></figure>",
            esc(c),
            esc(c),
            t.id,
            esc(&crate::chart::caption(t, c))
        );
    }
    let cmds = commands(t);
    s += "<table class=\"rows\"><tr><th>item</th><th>ours from</th><th>unit</th><th>paper</th><th>ours</th><th>spread of ours</th><th>ratio</th><th>note</th><th>what ours is</th></tr>\n";
    let mut dk = 0;
    let mut derived = Vec::new();
    for r in &t.rows {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td>{}{}{}{}<td>{}</td><td class=\"src\">{}</td></tr>",
            esc(&r.label),
            esc(&r.source),
            esc(&r.unit),
            paper_cell(rep, r, t, &mut dk),
            ours_cell(r, t, &cmds),
            spread_cell(r),
            ratio_cell(r, t, &cmds),
            esc(r.note.as_deref().unwrap_or("")),
            esc(&r.what)
        );
        if let Some(how) = &r.derived {
            derived.push(format!("{}: {how}", r.label));
        }
    }
    s += "</table>\n";
    if !derived.is_empty() {
        s += "<p class=\"src\">&dagger; The paper prints no such figure; the report derives it:</p><ol class=\"src\">\n";
        for (k, d) in derived.iter().enumerate() {
            let _ = writeln!(s, "<li id=\"{}-d{}\">{}</li>", t.id, k + 1, esc(d));
        }
        s += "</ol>\n";
    }
    let _ = writeln!(s, "<p id=\"cmd-{}\">Reproduce (parts: {}):</p>", t.id, esc(&t.parts.join(", ")));
    for (k, c) in cmds.iter().enumerate() {
        let _ = writeln!(s, "<pre id=\"{}\">{}</pre>", cmd_id(t, k), esc(c));
    }
    s += "</section>\n";
    s
}

fn verdicts(r: &Report) -> String {
    let mut s = String::from(
        "<section id=\"verdicts\"><h2>Verdicts: the papers' headline claims</h2>\n<p>Per paper, the claims its abstract and conclusion rest on, wsec's figure, and the verdict: \
         <b>reproduced</b> (same side of no effect, size within the claim's tolerance; for a bound such as \"only about 20 %\" or \"tens of microseconds\": \
         at most the paper's figure plus that tolerance), <b>direction only</b> (same side, different size), <b>not reproduced</b>, \
         <b>not comparable</b> (no figure of ours). Ours links to the command that reproduces it; <span class=\"mark\">s</span> marks a smoke figure. <i>fitted</i> means wsec's model was calibrated on that very figure, so agreement is by construction; \
         <i>predicted</i> means nothing was fitted to it; <i>measured</i> is a benchmark or the live system. Computed from the tables below on every run.</p>\n\
         <table class=\"verdicts\"><tr><th>paper</th><th>claim</th><th>paper's figure</th><th>ours</th><th>verdict</th><th>basis</th></tr>\n",
    );
    for v in &r.verdicts {
        let t = r.tables.iter().find(|t| t.id == v.table);
        let rows: Vec<&Row> = t.map(|t| t.rows.iter().filter(|x| v.rows.contains(&x.label)).collect()).unwrap_or_default();
        // A printed paper figure links to its line; ours to the command of its rows (the
        // table's own when they differ: it reruns them all).
        let paper = match (t, rows.as_slice()) {
            (Some(t), [x]) if x.derived.is_none() && x.paper.is_some() && !v.paper.contains("(derived: ") => {
                match seed_href(r, &t.seed_file, x.paper_line.unwrap_or(t.seed_line)) {
                    Some(h) => format!(r#"<a class="n" href="{}">{}</a>"#, esc(&h), esc(&v.paper)),
                    None => esc(&v.paper),
                }
            }
            _ => esc(&v.paper),
        };
        let ours = match (t, rows.first()) {
            (Some(t), Some(x)) if x.ours.is_some() => {
                let cmds = commands(t);
                let same = rows.iter().all(|y| y.command == x.command);
                let (id, c) = if same { row_cmd(x, t, &cmds) } else { (cmd_id(t, 0), t.command.clone()) };
                let mark = if v.smoke { r#" <span class="mark" title="a --quick smoke figure">s</span>"# } else { "" };
                format!(r##"<a class="n" href="#{id}" title="{}">{}</a>{mark}"##, esc(&c), esc(&v.ours))
            }
            _ => esc(&v.ours),
        };
        let _ = writeln!(
            s,
            "<tr><td>seed {}</td><td>{}</td><td>{paper}</td><td>{ours}</td><td class=\"v-{}\">{}</td><td>{}</td></tr>",
            esc(&v.seed),
            format_args!("<a href=\"#{}\">{}</a>", esc(&v.table), esc(&v.claim)),
            v.verdict.replace(' ', "-"),
            esc(&v.verdict),
            esc(&v.basis)
        );
    }
    s += "</table>\n";
    if r.overview {
        s += "<figure><img src=\"overview.svg\" alt=\"overview: ours over the paper's, every table\"><figcaption>Ours over the paper's figure (log scale), every row that has both figures and a meaningful ratio; 1x is agreement.</figcaption></figure>\n";
    }
    s += "</section>\n";
    s
}

pub fn page(r: &Report) -> String {
    let e = &r.environment;
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>wsec report: the seed papers beside wsec</title><style>{CSS}</style></head><body>\n"
    );
    let _ = write!(
        s,
        "<h1>wsec report: the seed papers' results beside ours</h1>\n<p>Generated {} ({} run, {:.1} s) from commit <code>{}</code>. <span id=\"check\"></span></p>\n",
        esc(&r.generated),
        if r.depth == crate::Depth::Quick { "quick" } else { "full" },
        r.wall_s,
        esc(&e.commit)
    );
    if r.depth == crate::Depth::Quick {
        let smoke: Vec<&str> = r.tables.iter().filter(|t| t.rows.iter().any(|x| x.smoke)).map(|t| t.id.as_str()).collect();
        let _ = writeln!(
            s,
            "<p class=\"smoke\">A <code>--quick</code> run: the benchmark figures of {} are <b>smoke figures</b> (3 samples of 0.3 ms for the CCMP kernels, short runs for the ciphers; marked <span class=\"mark\">s</span>). The model runs its full replications; place and route and the live demo are read from committed results (their commit is in each section). <code>wsec report --full</code> reruns everything.</p>",
            esc(&smoke.join(", "))
        );
    }
    s += &verdicts(r);
    s += "<p>How to read the sections: each is one table or figure of a seed paper. <b>paper</b> is the paper's figure with the digits it prints (linked to its line in the seed text; \
          &dagger; marks a figure the report derives, and says how), <b>ours</b> is wsec's \
          (from the source named in the second column: <i>bench</i> and <i>peer</i> are timed on this machine, <i>model</i> is the DCF model, <i>live</i> is \
          <code>wsec demo</code>, <i>hw</i> is the Verilog engines after place and route) with its <b>spread</b> (the interval and the count of samples, replications, runs or seeds), \
          <b>ratio</b> is ours / paper where a ratio means something (n/a: ranks, differences, negative figures). \"no figure\" means the paper \
          prints no value (a plot without numbers) or wsec does not measure it. Every figure of ours links to the exact command that reproduces it; the yellow box says why \
          the two differ, and its numbers are computed from the table. The JSON of every number is <a href=\"report.json\">report.json</a> (schema <a href=\"report.schema.json\">report.schema.json</a>).</p>\n";
    // What was run, where.
    s += "<section id=\"run\"><h2>What was run, where</h2><table>\n";
    for (k, v) in [
        ("CPU", e.cpu.clone()),
        ("CPU flags", e.cpu_flags.clone()),
        ("cores", e.cores.to_string()),
        ("kernel", e.kernel.clone()),
        ("wsec AES-CCM backend", format!("{} (available: {})", e.ccm_backend, e.backends_available.join(", "))),
        ("root", if e.root { "yes".into() } else { "no (the live demo needs root; its committed result is used)".into() }),
    ] {
        let _ = writeln!(s, "<tr><th>{k}</th><td>{}</td></tr>", esc(&v));
    }
    for t in &e.tools {
        let _ = writeln!(s, "<tr><th>{}</th><td>{}</td></tr>", esc(&t.name), esc(&t.version));
    }
    s += "</table>\n<h3>Parts</h3><table><tr><th>part</th><th>what</th><th>source</th><th>wall time (s)</th><th>committed file, commit, date</th><th>command</th></tr>\n";
    for p in &r.parts {
        let committed = match (&p.file, &p.commit, &p.date) {
            (Some(f), c, d) => format!("{} @ {} ({})", f, c.as_deref().unwrap_or("?"), d.as_deref().unwrap_or("?")),
            _ => "-".into(),
        };
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{:.2}</td><td>{}</td><td><code>{}</code></td></tr>",
            esc(&p.id),
            esc(&p.title),
            esc(&p.source),
            p.wall_s,
            esc(&committed),
            esc(&p.command)
        );
    }
    s += "</table></section>\n<nav><h2>Contents</h2><ul>\n";
    for t in &r.tables {
        let _ = writeln!(s, "<li><a href=\"#{}\">{}</a></li>", t.id, esc(&t.title));
    }
    s += "</ul></nav>\n";
    for t in &r.tables {
        s += &section(r, t);
    }
    // A self-check a reader (and the headless-browser test) sees: figures that loaded, and
    // in-page links whose target exists.
    s += "<script>window.addEventListener('load',function(){var im=Array.prototype.slice.call(document.images);\
          var bad=im.filter(function(i){return !(i.complete&&i.naturalWidth>0);});\
          var links=Array.prototype.slice.call(document.querySelectorAll('a[href^=\"#\"]'));\
          var dead=links.filter(function(a){return !document.getElementById(a.getAttribute('href').slice(1));});\
          document.body.setAttribute('data-images',String(im.length));document.body.setAttribute('data-broken',String(bad.length));\
          document.body.setAttribute('data-links',String(links.length));document.body.setAttribute('data-dead-links',String(dead.length));\
          document.body.setAttribute('data-dead-list',dead.slice(0,5).map(function(a){return a.getAttribute('href');}).join(' '));\
          document.getElementById('check').textContent=(im.length-bad.length)+'/'+im.length+' figures rendered.';});</script>\n";
    s += "</body></html>\n";
    s
}

/// A seed text as a page with an anchor per line (`#L242`), so the report can link the line
/// a figure is printed on.
pub fn seed_page(file: &str, text: &str) -> String {
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>body{{font-family:DejaVu Sans Mono,monospace;font-size:13px;margin:1em}}\
         .l{{white-space:pre-wrap;margin:0;padding:1px 0}}.l:target{{background:#fff3b0}}.no{{color:#999;display:inline-block;width:4em;user-select:none}}</style></head><body>\n<h1>{}</h1>\n",
        esc(file),
        esc(file)
    );
    for (i, line) in text.lines().enumerate() {
        let _ = writeln!(s, "<p class=\"l\" id=\"L{0}\"><span class=\"no\">{0}</span>{1}</p>", i + 1, esc(line));
    }
    s += "</body></html>\n";
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_print_without_nan_or_long_tails() {
        assert_eq!(super::num(1234.56), "1235");
        assert_eq!(super::num(12.345), "12.35");
        assert_eq!(super::num(0.0123), "0.0123");
        assert_eq!(super::num(f64::NAN), "-");
        assert_eq!(super::num(0.00012), "1.20e-4");
    }

    #[test]
    fn a_seed_page_anchors_every_line() {
        let p = super::seed_page("000_x.txt", "a\n<b>\nc");
        assert!(p.contains("id=\"L1\"") && p.contains("id=\"L3\"") && p.contains("&lt;b&gt;"));
    }
}

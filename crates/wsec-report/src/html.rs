//! The report page: one HTML file with inline CSS, its charts as SVG files beside it, no
//! network and no server needed. Every number links to the command that reproduces it.
use crate::{Report, Row, Table};
use std::fmt::Write;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A number as the report prints it: 3 to 4 significant digits, no exponent above 1e-3.
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

const CSS: &str = "body{font-family:DejaVu Sans,Arial,sans-serif;margin:2em auto;max-width:1200px;color:#222;line-height:1.4}\
table{border-collapse:collapse;margin:.6em 0;font-size:14px}td,th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}\
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f0f0f0}a.n{color:#14507a;text-decoration:none}a.n:hover{text-decoration:underline}\
.none{color:#888;font-style:italic}.why{background:#fbf8e8;border-left:4px solid #d8c06a;padding:.4em .8em}\
pre{background:#f4f4f4;padding:.4em .8em;overflow-x:auto}img{max-width:100%;border:1px solid #ddd;margin:.5em 0}\
.src{font-size:12px;color:#555}section{margin-bottom:2.5em}";

fn cell(v: Option<f64>, t: &Table) -> String {
    match v {
        Some(x) => format!(r##"<td class="n"><a class="n" href="#cmd-{}" title="{}">{}</a></td>"##, t.id, esc(&t.command), num(x)),
        None => r#"<td class="n none">no figure</td>"#.into(),
    }
}

fn row(r: &Row, t: &Table) -> String {
    format!(
        "<tr><td>{}</td><td>{}</td><td>{}</td>{}{}{}<td>{}</td><td class=\"src\">{}</td></tr>\n",
        esc(&r.label),
        esc(&r.source),
        esc(&r.unit),
        cell(r.paper, t),
        cell(r.ours, t),
        cell(r.ratio, t),
        esc(r.note.as_deref().unwrap_or("")),
        esc(&r.what)
    )
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
    s += "<p>How to read it: each section is one table or figure of a seed paper. <b>paper</b> is the paper's figure as printed, <b>ours</b> is wsec's \
          (from the source named in the second column: <i>bench</i> and <i>peer</i> are timed on this machine, <i>model</i> is the DCF model, <i>live</i> is \
          <code>wsec demo</code>, <i>hw</i> is the Verilog engines after place and route), <b>ratio</b> is ours / paper. \"no figure\" means the paper \
          prints no value (a plot without numbers) or wsec does not measure it. Every number links to the command that reproduces it; the yellow box says why \
          the two differ. The JSON of every number is <a href=\"report.json\">report.json</a> (schema <a href=\"report.schema.json\">report.schema.json</a>).</p>\n";
    // What was run, where.
    s += "<section><h2>What was run, where</h2><table>\n";
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
        let _ = write!(
            s,
            "<section id=\"{}\"><h2>{}</h2>\n<p class=\"src\">{}</p>\n<p class=\"why\">{}</p>\n",
            t.id,
            esc(&t.title),
            esc(&t.reference),
            esc(&t.why)
        );
        for c in &t.charts {
            let _ = writeln!(s, "<img src=\"{}\" alt=\"chart {} of {}\">", esc(c), esc(c), t.id);
        }
        s += "<table><tr><th>item</th><th>ours from</th><th>unit</th><th>paper</th><th>ours</th><th>ratio</th><th>note</th><th>what ours is</th></tr>\n";
        for r in &t.rows {
            s += &row(r, t);
        }
        let parts = t.parts.join(", ");
        let _ =
            write!(s, "</table>\n<p id=\"cmd-{}\">Reproduce (parts: {}):</p><pre>{}</pre></section>\n", t.id, esc(&parts), esc(&t.command));
    }
    // A self-check a reader (and the headless-browser test) sees: figures that loaded.
    s += "<script>window.addEventListener('load',function(){var im=Array.prototype.slice.call(document.images);\
          var bad=im.filter(function(i){return !(i.complete&&i.naturalWidth>0);});\
          document.body.setAttribute('data-images',String(im.length));document.body.setAttribute('data-broken',String(bad.length));\
          document.getElementById('check').textContent=(im.length-bad.length)+'/'+im.length+' figures rendered.';});</script>\n";
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
}

//! The report's SVG figures: lines (plotters, through wsec-bench's [`LineChart`]) for lane
//! counts and unroll factors, horizontal grouped bars (written directly as SVG, so that
//! long labels such as "Enhanced-WPA2, very high rate" stay readable) for modes and cases.
use crate::{Error, Row, Table};
use std::fmt::Write;
use std::path::Path;
use wsec_bench::plot::LineChart;

/// Draws chart `file` (one of `t.charts`) of table `t` to `path`.
pub fn render(t: &Table, file: &str, path: &Path) -> crate::Result<()> {
    let res = match file.trim_end_matches(".svg") {
        "seed000-table1" | "seed000-table2" => lanes(t, path),
        "seed003-table3" | "seed003-table4" => unroll(t, path),
        "seed000-fig5" => bars(t, path, |r| r.source == "model", "increase over open (ms), model"),
        "seed000-fig5-live" => bars(t, path, |r| r.source == "live", "ping RTT over open (ms), live system"),
        "seed000-fig6" => bars(t, path, |r| r.source == "model", "throughput (Mb/s), model"),
        "seed000-fig6-live" => bars(t, path, |r| r.source == "live", "TCP throughput (Mb/s), live system"),
        "seed000-fig7" => bars(t, path, |_| true, "increase over open (%)"),
        "seed000-table4" => bars(t, path, |r| r.unit == "ns", "time per 1500-octet frame (ns)"),
        "seed004-throughput" => {
            bars(t, path, |r| r.unit == "MB/s" && r.label.contains("text, encrypt"), "throughput, text, encrypt (MB/s)")
        }
        "seed004-table2" => bars(t, path, |r| r.label.starts_with("bss_wpa") || r.label.starts_with("adhoc_open"), "transmission time (s)"),
        _ => bars(t, path, |r| r.paper.is_some() || r.ours.is_some(), &t.rows.first().map(|r| r.unit.clone()).unwrap_or_default()),
    };
    res.map_err(|e| Error::Write(format!("{}: {e}", path.display())))
}

/// Speed-up over the standard (1 lane) for 1/2/4/8 lanes, the paper's i5 and ours.
fn lanes(t: &Table, path: &Path) -> Result<(), String> {
    let mut paper = vec![(0.0, 1.0)];
    let mut ours = vec![(0.0, 1.0)];
    for (i, r) in t.rows.iter().filter(|r| r.unit == "x").enumerate() {
        if let Some(p) = r.paper {
            paper.push(((i + 1) as f64, p));
        }
        if let Some(o) = r.ours {
            ours.push(((i + 1) as f64, o));
        }
    }
    let c = LineChart {
        title: format!("{}: speed-up over the standard", t.id),
        x_label: "parallel lanes".into(),
        y_label: "speed-up (x)".into(),
        y_from_zero: true,
        x_categories: ["1 (standard)", "2", "4", "8"].iter().map(|s| s.to_string()).collect(),
        series: vec![("paper, Intel Core i5".into(), paper), ("wsec, this CPU".into(), ours)],
        ..Default::default()
    };
    c.render(path).map_err(|e| e.to_string())
}

/// Throughput against rounds per clock, the paper's Cyclone II and our ECP5 core.
fn unroll(t: &Table, path: &Path) -> Result<(), String> {
    let rows: Vec<&Row> = t.rows.iter().filter(|r| r.unit == "Mb/s").collect();
    let pts = |f: fn(&Row) -> Option<f64>| rows.iter().enumerate().filter_map(|(i, r)| f(r).map(|v| (i as f64, v))).collect::<Vec<_>>();
    let c = LineChart {
        title: format!("{}: throughput by rounds per clock", t.id),
        x_label: "AES rounds per clock (R)".into(),
        y_label: "Mb/s".into(),
        y_from_zero: true,
        x_categories: ["1", "2", "5", "10"].iter().map(|s| s.to_string()).collect(),
        series: vec![("paper, Cyclone II".into(), pts(|r| r.paper)), ("wsec, ECP5".into(), pts(|r| r.ours))],
        ..Default::default()
    };
    c.render(path).map_err(|e| e.to_string())
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A bar series: name, colour, the figure it takes from a row.
type Series = (&'static str, &'static str, fn(&Row) -> Option<f64>);

/// Horizontal grouped bars: one group per row, a bar for the paper's figure (when it has
/// one) and one for ours; negative values grow left of the zero line.
fn bars(t: &Table, path: &Path, keep: impl Fn(&Row) -> bool, axis: &str) -> Result<(), String> {
    let rows: Vec<&Row> = t.rows.iter().filter(|r| keep(r) && (r.paper.is_some() || r.ours.is_some())).collect();
    if rows.is_empty() {
        return Err("nothing to plot".into());
    }
    let with_paper = rows.iter().any(|r| r.paper.is_some());
    let series: Vec<Series> = if with_paper {
        vec![("paper", "#1f77b4", |r| r.paper), ("wsec", "#ff7f0e", |r| r.ours)]
    } else {
        vec![("wsec", "#ff7f0e", |r| r.ours)]
    };
    let vals = rows.iter().flat_map(|r| series.iter().filter_map(move |s| (s.2)(r)));
    let (lo, hi) = vals.fold((0.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let span = if hi - lo > 0.0 { hi - lo } else { 1.0 };
    let (w, label_w, pad) = (1100.0, 380.0, 90.0);
    let plot_w = w - label_w - pad;
    let bar_h = 14.0;
    let group_h = bar_h * series.len() as f64 + 10.0;
    let top = 60.0;
    let h = top + group_h * rows.len() as f64 + 50.0;
    let x = |v: f64| label_w + (v - lo) / span * plot_w;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, sans-serif" font-size="13"><rect width="100%" height="100%" fill="white"/><text x="{}" y="24" font-size="17" text-anchor="middle">{}</text>"#,
        w / 2.0,
        esc(&format!("{}: {axis}", t.id))
    );
    for (k, (name, col, _)) in series.iter().enumerate() {
        let lx = label_w + 160.0 * k as f64;
        let _ = write!(s, r#"<rect x="{lx}" y="36" width="14" height="12" fill="{col}"/><text x="{}" y="47">{name}</text>"#, lx + 20.0);
    }
    for (i, r) in rows.iter().enumerate() {
        let y0 = top + group_h * i as f64;
        let _ = write!(s, r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#, label_w - 8.0, y0 + group_h / 2.0, esc(&r.label));
        for (k, (_, col, get)) in series.iter().enumerate() {
            let y = y0 + bar_h * k as f64;
            match get(r) {
                Some(v) => {
                    let (a, b) = (x(v.min(0.0)), x(v.max(0.0)));
                    let _ =
                        write!(s, r#"<rect x="{a:.1}" y="{y:.1}" width="{:.1}" height="{}" fill="{col}"/>"#, (b - a).max(0.5), bar_h - 2.0);
                    let _ =
                        write!(s, r#"<text x="{:.1}" y="{:.1}" font-size="11">{}</text>"#, b + 4.0, y + bar_h - 4.0, crate::html::num(v));
                }
                None => {
                    let _ = write!(
                        s,
                        r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#777">no figure</text>"##,
                        x(0.0) + 4.0,
                        y + bar_h - 4.0
                    );
                }
            }
        }
    }
    let axis_y = top + group_h * rows.len() as f64 + 6.0;
    let _ = write!(s, r##"<line x1="{0:.1}" y1="{top}" x2="{0:.1}" y2="{axis_y}" stroke="#333"/>"##, x(0.0));
    let _ = write!(s, r##"<line x1="{label_w}" y1="{axis_y}" x2="{}" y2="{axis_y}" stroke="#333"/>"##, label_w + plot_w);
    for k in 0..=4 {
        let v = lo + span * k as f64 / 4.0;
        let _ =
            write!(s, r#"<text x="{:.1}" y="{}" text-anchor="middle" font-size="11">{}</text>"#, x(v), axis_y + 16.0, crate::html::num(v));
    }
    let _ = write!(s, r#"<text x="{}" y="{}" text-anchor="middle">{}</text></svg>"#, label_w + plot_w / 2.0, axis_y + 36.0, esc(axis));
    std::fs::write(path, s).map_err(|e| e.to_string())
}

/// What chart `file` of `t` plots (stub until the charts land).
pub fn caption(t: &Table, file: &str) -> String {
    format!("{file} of {}", t.id)
}

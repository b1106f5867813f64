//! The report's SVG figures, written directly as SVG (so long labels stay readable and no
//! font is needed at run time): horizontal grouped bars, one panel per unit, for modes,
//! cases and devices; small multiples of lines for lane counts and unroll factors; and the
//! overview, every ratio of ours to the paper's on a log axis.
//!
//! Every chart carries its table's title, what it shows and a caption that says which rows
//! it plots and which it leaves out. The caption is computed from the same selection the
//! chart draws ([`Plot::used`]), and [`caption`] gives the page the same sentence.
use crate::{Error, Row, Spread, Table};
use std::fmt::Write;
use std::path::Path;

/// Width of every chart (px).
const W: f64 = 1100.0;
const MARGIN: f64 = 20.0;
const PAPER: &str = "#1f77b4";
const OURS: &str = "#ff7f0e";
/// Further paper series (the paper's other CPUs).
const PAPER2: &str = "#17becf";
const PAPER3: &str = "#9467bd";
const GRID: &str = "#e3e3e3";
const FONT: &str = "DejaVu Sans, sans-serif";

// ---- what a chart plots --------------------------------------------------------------

/// One bar group: a row's figure in the paper and ours.
struct Group {
    label: String,
    /// The full row label (a tooltip when the shown label is shortened).
    full: String,
    paper: Option<f64>,
    paper_text: Option<String>,
    ours: Option<f64>,
    /// Ours' spread, when it is an interval (lo < hi).
    spread: Option<Spread>,
    noisy: bool,
}

struct BarPanel {
    title: String,
    groups: Vec<Group>,
    /// A bar for the paper's figure (some row of the panel has one).
    with_paper: bool,
    /// Groups before which a thin line separates one case from the next.
    separators: Vec<usize>,
}

struct Point {
    x: usize,
    y: f64,
    spread: Option<Spread>,
    noisy: bool,
}

struct Series {
    name: String,
    color: &'static str,
    pts: Vec<Point>,
}

struct LinePanel {
    title: String,
    log: bool,
    series: Vec<Series>,
}

enum Body {
    Bars(Vec<BarPanel>),
    Lines { x_label: String, cats: Vec<String>, panels: Vec<LinePanel> },
}

/// A chart's content, before it is drawn.
struct Plot {
    /// What the chart shows, in words (the line under the title).
    what: String,
    body: Body,
    /// Per row of the table: drawn in the chart.
    used: Vec<bool>,
    /// Where the rows left out are, when the chart knows (another chart of the table).
    left_note: Option<String>,
}

impl Plot {
    fn is_empty(&self) -> bool {
        match &self.body {
            Body::Bars(p) => p.iter().all(|p| p.groups.is_empty()),
            Body::Lines { panels, .. } => panels.iter().all(|p| p.series.iter().all(|s| s.pts.is_empty())),
        }
    }

    /// The spreads drawn as whiskers or error bars.
    fn spreads(&self) -> Vec<&Spread> {
        match &self.body {
            Body::Bars(p) => p.iter().flat_map(|p| &p.groups).filter_map(|g| g.spread.as_ref()).collect(),
            Body::Lines { panels, .. } => {
                panels.iter().flat_map(|p| &p.series).flat_map(|s| &s.pts).filter_map(|p| p.spread.as_ref()).collect()
            }
        }
    }

    fn noisy(&self) -> usize {
        match &self.body {
            Body::Bars(p) => p.iter().flat_map(|p| &p.groups).filter(|g| g.noisy).count(),
            Body::Lines { panels, .. } => panels.iter().flat_map(|p| &p.series).flat_map(|s| &s.pts).filter(|p| p.noisy).count(),
        }
    }

    fn with_paper(&self) -> bool {
        match &self.body {
            Body::Bars(p) => p.iter().any(|p| p.with_paper),
            Body::Lines { .. } => true,
        }
    }
}

/// Ours' spread when it is an interval worth a whisker.
fn interval(r: &Row) -> Option<Spread> {
    r.spread.clone().filter(|s| r.ours.is_some() && s.lo.is_finite() && s.hi.is_finite() && s.lo < s.hi)
}

fn noisy(r: &Row) -> bool {
    r.ours.is_some() && r.spread.as_ref().is_some_and(|s| s.noisy)
}

/// "WPA2, high rate: delay over open" -> "delay over open".
fn quantity(label: &str) -> Option<&str> {
    label.rsplit_once(": ").map(|(_, q)| q).filter(|q| !q.is_empty())
}

/// The quantity all rows share, when they do.
fn common_quantity<'a>(rows: &[&'a Row]) -> Option<&'a str> {
    let q = quantity(&rows.first()?.label)?;
    rows.iter().all(|r| quantity(&r.label) == Some(q)).then_some(q)
}

fn unit_text(unit: &str) -> &str {
    match unit {
        "us" => "µs",
        "uJ/B" => "µJ/B",
        u => u,
    }
}

/// A panel's title from its rows' shared quantity and unit ("area (LE / LUT4)").
fn panel_title(q: Option<&str>, unit: &str) -> String {
    let u = unit_text(unit);
    match q {
        Some(q) if q.contains(unit) || q.contains(u) => q.to_string(),
        Some(q) => format!("{q} ({u})"),
        None => match unit {
            "x" => "factor (x)".into(),
            "rank" => "rank (1 = first)".into(),
            _ => u.to_string(),
        },
    }
}

/// Horizontal grouped bars of the rows `keep` takes (and that have a figure), one panel
/// per unit; `titles` names a unit's panel when the labels do not.
fn bars(t: &Table, keep: impl Fn(&Row) -> bool, what: &str, titles: &[(&str, &str)]) -> Plot {
    let mut used = vec![false; t.rows.len()];
    let mut panels: Vec<(&str, Vec<&Row>)> = Vec::new();
    for (i, r) in t.rows.iter().enumerate() {
        if !keep(r) || (r.paper.is_none() && r.ours.is_none()) {
            continue;
        }
        used[i] = true;
        match panels.iter_mut().find(|(u, _)| *u == r.unit) {
            Some((_, rows)) => rows.push(r),
            None => panels.push((&r.unit, vec![r])),
        }
    }
    let panels = panels.into_iter().map(|(unit, rows)| bar_panel(unit, &rows, titles)).collect();
    Plot { what: what.into(), body: Body::Bars(panels), used, left_note: None }
}

fn bar_panel(unit: &str, rows: &[&Row], titles: &[(&str, &str)]) -> BarPanel {
    let q = common_quantity(rows);
    let title = match titles.iter().find(|(u, _)| *u == unit) {
        Some((_, s)) => s.to_string(),
        None => panel_title(q, unit),
    };
    let groups: Vec<Group> = rows
        .iter()
        .map(|r| Group {
            label: match (q, r.label.rsplit_once(": ")) {
                (Some(_), Some((head, _))) if !head.is_empty() => head.to_string(),
                _ => r.label.clone(),
            },
            full: r.label.clone(),
            paper: r.paper,
            paper_text: r.paper.and(r.paper_text.clone()),
            ours: r.ours,
            spread: interval(r),
            noisy: noisy(r),
        })
        .collect();
    // Cases ("adhoc_open", "bss_wpa") separated when the labels fall into a few runs.
    let first = |g: &Group| g.label.split([' ', ',', ':']).next().unwrap_or("").to_string();
    let breaks: Vec<usize> = (1..groups.len()).filter(|&i| first(&groups[i]) != first(&groups[i - 1])).collect();
    let separators = if groups.len() >= 12 && (breaks.len() + 1) * 3 <= groups.len() { breaks } else { Vec::new() };
    BarPanel { title, with_paper: rows.iter().any(|r| r.paper.is_some()), groups, separators }
}

/// Every row with a figure, a panel per unit: for tables without a chart of their own, and
/// when a table's own chart finds nothing it knows (its labels changed).
fn fallback(t: &Table) -> Plot {
    bars(t, |_| true, "the paper's figure and ours, row by row (a panel per unit)", &[])
}

/// The position of a lane count on the 1/2/4/8 axis ("standard", "2 lanes: ...", "4 lane(s), ...").
fn lane_x(label: &str) -> Option<usize> {
    if label.starts_with("standard") {
        return Some(0);
    }
    let n: u32 = label.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()?;
    [1, 2, 4, 8].iter().position(|&k| k == n)
}

/// Seed 000 Tables I/II: speed-up and time per frame over 1/2/4/8 lanes, the paper's
/// CPUs and ours.
fn lanes(t: &Table) -> Plot {
    let mut used = vec![false; t.rows.len()];
    let mk = |name: &str, color| Series { name: name.into(), color, pts: Vec::new() };
    let (mut sp_paper, mut sp_ours) = (mk("paper, Intel Core i5", PAPER), mk("wsec, this CPU", OURS));
    // The standard is 1x by definition.
    for s in [&mut sp_paper, &mut sp_ours] {
        s.pts.push(Point { x: 0, y: 1.0, spread: None, noisy: false });
    }
    let mut t_i5 = mk("paper, Intel Core i5", PAPER);
    let mut t_i7 = mk("paper, Intel Core i7", PAPER2);
    let mut t_amd = mk("paper, AMD 6-Core", PAPER3);
    let mut t_ours = mk("wsec, this CPU", OURS);
    for (i, r) in t.rows.iter().enumerate() {
        if r.source == "peer" {
            continue;
        }
        let Some(x) = lane_x(&r.label) else { continue };
        let ours = |r: &Row| r.ours.map(|y| Point { x, y, spread: interval(r), noisy: noisy(r) });
        let paper = |r: &Row| r.paper.map(|y| Point { x, y, spread: None, noisy: false });
        let (ps, os) = if r.unit == "x" {
            (Some(&mut sp_paper), Some(&mut sp_ours))
        } else if r.unit != "us" {
            continue;
        } else if r.label.contains("paper's i7") {
            (Some(&mut t_i7), None)
        } else if r.label.contains("paper's AMD") {
            (Some(&mut t_amd), None)
        } else if r.label.contains("time per frame") {
            (Some(&mut t_i5), Some(&mut t_ours))
        } else {
            continue;
        };
        // The per-CPU rows repeat ours of the same lane count (drawn once, from the
        // "time per frame" rows): they are plotted by their paper figure.
        if let (Some(s), Some(p)) = (ps, paper(r)) {
            s.pts.push(p);
            used[i] = true;
        }
        if let (Some(s), Some(p)) = (os, ours(r)) {
            s.pts.push(p);
            used[i] = true;
        }
    }
    let panels = vec![
        LinePanel { title: "speed-up over the standard (x)".into(), log: false, series: vec![sp_paper, sp_ours] },
        LinePanel { title: "time per frame (µs, log scale)".into(), log: true, series: vec![t_i5, t_i7, t_amd, t_ours] },
    ];
    let peers = t.rows.iter().zip(&used).filter(|(_, u)| !**u).all(|(r, _)| r.source == "peer");
    Plot {
        what: "speed-up over the standard and time per frame, by parallel lanes: the paper's CPUs and wsec on this CPU".into(),
        body: Body::Lines {
            x_label: "parallel lanes".into(),
            cats: ["1 (standard)", "2", "4", "8"].iter().map(|s| s.to_string()).collect(),
            panels,
        },
        used,
        left_note: peers.then(|| "which have no lane count".into()),
    }
}

/// Seed 003 Tables 3/4: every figure by rounds per clock (1, 2, 5, 10), a panel each.
fn unroll(t: &Table) -> Plot {
    let mut used = vec![false; t.rows.len()];
    let mut panels: Vec<(String, LinePanel)> = Vec::new();
    for (i, r) in t.rows.iter().enumerate() {
        let Some(q) = quantity(&r.label) else { continue };
        let Some(x) =
            r.label.split(' ').next().and_then(|n| n.parse::<u32>().ok()).and_then(|n| [1, 2, 5, 10].iter().position(|&k| k == n))
        else {
            continue;
        };
        if r.paper.is_none() && r.ours.is_none() {
            continue;
        }
        let key = format!("{q}\u{0}{}", r.unit);
        let k = match panels.iter().position(|(k, _)| *k == key) {
            Some(k) => k,
            None => {
                let series = vec![
                    Series { name: "paper, Cyclone II".into(), color: PAPER, pts: Vec::new() },
                    Series { name: "wsec, ECP5".into(), color: OURS, pts: Vec::new() },
                ];
                panels.push((key, LinePanel { title: panel_title(Some(q), &r.unit), log: false, series }));
                panels.len() - 1
            }
        };
        let s = &mut panels[k].1.series;
        if let Some(y) = r.paper {
            s[0].pts.push(Point { x, y, spread: None, noisy: false });
        }
        if let Some(y) = r.ours {
            s[1].pts.push(Point { x, y, spread: interval(r), noisy: noisy(r) });
        }
        used[i] = true;
    }
    Plot {
        what: "each figure by AES rounds per clock (R), a panel per figure: the paper's Cyclone II and wsec's ECP5 core".into(),
        body: Body::Lines {
            x_label: "AES rounds per clock (R)".into(),
            cats: ["1", "2", "5", "10"].iter().map(|s| s.to_string()).collect(),
            panels: panels.into_iter().map(|(_, p)| p).collect(),
        },
        used,
        left_note: None,
    }
}

/// `note` when every row `p` leaves out satisfies `pred`.
fn note_if(t: &Table, p: &mut Plot, pred: impl Fn(&Row) -> bool, note: &str) {
    if t.rows.iter().zip(&p.used).filter(|(_, u)| !**u).all(|(r, _)| pred(r)) {
        p.left_note = Some(note.into());
    }
}

/// What chart `file` of `t` draws.
fn plot(t: &Table, file: &str) -> Plot {
    let model = |r: &Row| r.source == "model";
    let live = |r: &Row| r.source == "live";
    let mut p = match file.trim_end_matches(".svg") {
        "seed000-table1" | "seed000-table2" => lanes(t),
        "seed003-table3" | "seed003-table4" => unroll(t),
        "seed000-fig5" => {
            let mut p =
                bars(t, model, "increase of delay and jitter over the open network, the DCF model", &[("ms", "increase over open (ms)")]);
            note_if(t, &mut p, live, "shown in the live chart");
            p
        }
        "seed000-fig5-live" => {
            let mut p = bars(
                t,
                live,
                "increase of the ping round-trip time over the open network, the live system",
                &[("ms", "ping RTT increase over open (ms)")],
            );
            note_if(t, &mut p, model, "shown in the model chart");
            p
        }
        "seed000-fig6" => {
            let mut p = bars(t, model, "throughput by security mode and video rate, the DCF model", &[("Mb/s", "throughput (Mb/s)")]);
            note_if(t, &mut p, live, "shown in the live chart");
            p
        }
        "seed000-fig6-live" => {
            let mut p = bars(t, live, "TCP throughput by security mode, the live system", &[("Mb/s", "TCP throughput (Mb/s)")]);
            note_if(t, &mut p, model, "shown in the model chart");
            p
        }
        "seed000-fig7" => bars(
            t,
            |_| true,
            "increase over the open network, the paper's figure and ours (DCF model and live system)",
            &[("%", "increase over open (%)")],
        ),
        "seed000-table3" => {
            bars(t, |_| true, "area, registers and their growth, standard and parallel engines: the paper's and wsec's", &[])
        }
        "seed000-table4" => bars(t, |_| true, "Fmax, total time and speed-up, standard and parallel engines: the paper's and wsec's", &[]),
        "seed001-table1" => bars(
            t,
            |r| matches!(quantity(&r.label), Some("LUTs" | "throughput" | "throughput per LUT")),
            "area (LUTs), throughput and throughput per LUT of each engine on each device: the paper's and wsec's",
            &[],
        ),
        id if id.starts_with("seed002-table") => bars(
            t,
            |_| true,
            "throughput and dropped share per protocol and security mode: the paper's and the DCF model's",
            &[("kb/s", "throughput (kb/s)")],
        ),
        "seed004-throughput" => bars(
            t,
            |r| r.unit == "MB/s" || r.unit == "rank",
            "each cipher's throughput (ours only: the table has no paper figure for it) and rank, by file and direction",
            &[("rank", "rank (1 = fastest)")],
        ),
        "seed004-table2" | "seed004-table3" => bars(
            t,
            |_| true,
            "transmission time per scenario and cipher: the paper's and the DCF model's",
            &[("s", "transmission time (s)")],
        ),
        _ => fallback(t),
    };
    if p.is_empty() {
        p = fallback(t);
    }
    p
}

// ---- captions --------------------------------------------------------------------------

/// The kinds of the drawn spreads with their sample counts, or `None` when none is drawn.
fn spread_words(spreads: &[&Spread]) -> Option<String> {
    let mut kinds: Vec<(&str, u32, u32)> = Vec::new();
    for s in spreads {
        match kinds.iter_mut().find(|k| k.0 == s.kind) {
            Some(k) => {
                k.1 = k.1.min(s.n);
                k.2 = k.2.max(s.n);
            }
            None => kinds.push((&s.kind, s.n, s.n)),
        }
    }
    let parts: Vec<String> = kinds
        .iter()
        .map(|(k, a, b)| {
            if a == b {
                format!("{} (n = {a})", crate::Spread::kind_words(k, false))
            } else {
                format!("{} (n = {a} to {b})", crate::Spread::kind_words(k, false))
            }
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

fn source_words(source: &str) -> &str {
    match source {
        "model" => "DCF-model",
        "live" => "live-system",
        "bench" => "benchmark",
        "hw" => "place-and-route",
        "peer" => "peer",
        s => s,
    }
}

/// The rows a chart leaves out, in words: how many, from where, which quantities.
fn left_words(rows: &[&Row]) -> String {
    let mut parts = Vec::new();
    let empty = rows.iter().filter(|r| r.paper.is_none() && r.ours.is_none()).count();
    let mut sources: Vec<(&str, Vec<&str>, usize)> = Vec::new();
    for r in rows.iter().filter(|r| r.paper.is_some() || r.ours.is_some()) {
        let q = quantity(&r.label).unwrap_or(&r.label);
        match sources.iter_mut().find(|s| s.0 == r.source) {
            Some(s) => {
                s.2 += 1;
                if !s.1.contains(&q) {
                    s.1.push(q);
                }
            }
            None => sources.push((&r.source, vec![q], 1)),
        }
    }
    for (src, qs, n) in sources {
        let shown: Vec<&str> = qs.iter().take(5).copied().collect();
        let more = if qs.len() > 5 { format!(" and {} more", qs.len() - 5) } else { String::new() };
        parts.push(format!("{n} {} row{} ({}{more})", source_words(src), if n == 1 { "" } else { "s" }, shown.join("; ")));
    }
    if empty > 0 {
        parts.push(format!("{empty} row{} with no figure on either side", if empty == 1 { "" } else { "s" }));
    }
    parts.join(", ")
}

/// The caption as (what is plotted, the rest): [`caption`] joins them around the chart's
/// `what`, the SVG prints `what` on a line of its own.
fn caption_parts(t: &Table, p: &Plot) -> (String, String) {
    let m = t.rows.len();
    let n = p.used.iter().filter(|u| **u).count();
    let mut s = match (n, m) {
        (1, 1) => "Plots the table's one row".to_string(),
        _ if n == m => format!("Plots all {m} rows of the table"),
        _ => format!("Plots {n} of the table's {m} rows"),
    };
    let head = std::mem::take(&mut s);
    if n < m {
        let left: Vec<&Row> = t.rows.iter().zip(&p.used).filter(|(_, u)| !**u).map(|(r, _)| r).collect();
        let _ = write!(s, "; not plotted: {}", left_words(&left));
        if let Some(note) = &p.left_note {
            let _ = write!(s, ", {note}");
        }
        s += "; every row is in the table below";
    }
    if !p.with_paper() {
        s += "; the table has no paper figure for these rows, so only ours is drawn";
    }
    if let Some(w) = spread_words(&p.spreads()) {
        // Place and route's min-max is over nextpnr seeds, not runs.
        let hw = t
            .rows
            .iter()
            .zip(&p.used)
            .filter(|(r, u)| **u && r.spread.as_ref().is_some_and(|s| s.kind == "min-max"))
            .all(|(r, _)| r.source == "hw");
        let w = if hw { w.replace("range over runs", "range over place-and-route seeds") } else { w };
        let _ = write!(s, "; whiskers span ours' {w}");
    }
    let noisy = p.noisy();
    if noisy > 0 {
        let _ = write!(s, "; {noisy} of ours {} noisy (hatched or hollow)", if noisy == 1 { "is" } else { "are" });
    }
    let smoke = t.rows.iter().zip(&p.used).any(|(r, u)| *u && r.smoke && r.ours.is_some());
    if smoke {
        s += "; ours are smoke figures from a quick run";
    }
    (head, s + ".")
}

fn caption_of(t: &Table, p: &Plot) -> String {
    let (head, rest) = caption_parts(t, p);
    format!("{head}: {}{rest}", p.what)
}

/// What chart `file` of `t` plots, one sentence: the rows it draws out of the table's, the
/// ones it leaves out and where they are, what its whiskers span.
pub fn caption(t: &Table, file: &str) -> String {
    caption_of(t, &plot(t, file))
}

// ---- scales ----------------------------------------------------------------------------

/// A linear axis on round numbers: both ends and every tick a multiple of `step`, which is
/// 1, 2 or 5 x 10^k; 0 is a tick whenever the axis crosses it.
#[derive(Clone, Debug, PartialEq)]
struct Scale {
    lo: f64,
    hi: f64,
    /// Tick k is `(k0 + k) * mant * 10^exp`.
    k0: i64,
    k1: i64,
    mant: i64,
    exp: i32,
}

impl Scale {
    #[cfg(test)]
    fn step(&self) -> f64 {
        self.mant as f64 * 10f64.powi(self.exp)
    }

    fn value(&self, k: i64) -> f64 {
        // Dividing by an exact power of ten keeps 0.1 steps from printing 0.30000000000000004.
        if self.exp < 0 {
            (k * self.mant) as f64 / 10f64.powi(-self.exp)
        } else {
            (k * self.mant) as f64 * 10f64.powi(self.exp)
        }
    }

    fn ticks(&self) -> Vec<f64> {
        (self.k0..=self.k1).map(|k| self.value(k)).collect()
    }

    /// Tick labels without spurious decimals ("0.5", "1", "100", "-50").
    fn label(&self, v: f64) -> String {
        let d = (-self.exp).max(0) as usize;
        let s = format!("{v:.d$}");
        let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
        if s == "-0" {
            "0".into()
        } else {
            s
        }
    }
}

/// At most this many ticks on a linear axis (4 or more whenever the data allow).
const MAX_TICKS: i64 = 8;

/// The nice scale covering `lo..hi`: the smallest 1/2/5 step giving at most 8 ticks.
fn nice(lo: f64, hi: f64) -> Scale {
    let (mut lo, mut hi) = if lo.is_finite() && hi.is_finite() { (lo.min(hi), lo.max(hi)) } else { (0.0, 1.0) };
    if hi - lo <= 1e-12 * lo.abs().max(hi.abs()) || hi - lo < f64::MIN_POSITIVE {
        // One value: an axis from 0 to it (or to 1 for 0).
        match lo.partial_cmp(&0.0) {
            Some(std::cmp::Ordering::Greater) => lo = 0.0,
            Some(std::cmp::Ordering::Less) => hi = 0.0,
            _ => hi = 1.0,
        }
    }
    let span = hi - lo;
    if !(1e-250..1e250).contains(&span) {
        // Beyond what a chart shows (and what 10^k stays finite for): 0 to 1.
        return Scale { lo: 0.0, hi: 1.0, k0: 0, k1: 5, mant: 2, exp: -1 };
    }
    let e0 = (span / MAX_TICKS as f64).log10().floor() as i32 - 1;
    for exp in e0..e0 + 4 {
        for mant in [1i64, 2, 5] {
            let step = mant as f64 * 10f64.powi(exp);
            let k0 = (lo / step + 1e-9).floor();
            let k1 = (hi / step - 1e-9).ceil();
            if k1 - k0 < MAX_TICKS as f64 && k0.abs() < 1e15 && k1.abs() < 1e15 {
                let s = Scale { lo: 0.0, hi: 0.0, k0: k0 as i64, k1: k1 as i64, mant, exp };
                return Scale { lo: s.value(s.k0), hi: s.value(s.k1), ..s };
            }
        }
    }
    // Not reached (a step of 10^(e0+2) > span gives 2 or 3 ticks); a power of ten covering it.
    let exp = span.log10().ceil() as i32 + 1;
    let step = 10f64.powi(exp);
    let s = Scale { lo: 0.0, hi: 0.0, k0: (lo / step).floor() as i64, k1: (hi / step).ceil() as i64, mant: 1, exp };
    Scale { lo: s.value(s.k0), hi: s.value(s.k1), ..s }
}

/// Decades covering `lo..hi` (positive), at least one, at most 12 (from the top).
fn decades(lo: f64, hi: f64) -> (i32, i32) {
    let a = if lo > 0.0 && lo.is_finite() { lo.log10().floor() as i32 } else { 0 };
    let b = if hi > 0.0 && hi.is_finite() { hi.log10().ceil() as i32 } else { a + 1 };
    let b = b.clamp(-300, 300).max(a + 1);
    (a.max(b - 12), b)
}

/// 10^k as text: "0.01", "1", "1000", "1e+20".
fn decade_label(k: i32) -> String {
    if (-12..0).contains(&k) {
        format!("{:.*}", (-k) as usize, 10f64.powi(k))
    } else if (0..=15).contains(&k) {
        format!("{}", 10u64.pow(k as u32))
    } else {
        format!("1e{k:+}")
    }
}

/// A figure as a bar or point label: the report's digits without trailing zeros.
fn short(v: f64) -> String {
    let s = crate::html::num(v);
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

// ---- SVG -------------------------------------------------------------------------------

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Text width estimate (DejaVu Sans is about 0.6 em a character).
fn text_w(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.6
}

/// Splits `s` into lines of at most `width` characters, at spaces.
fn wrap(s: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in s.split_whitespace() {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur += word;
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Shortens `s` to `n` characters with an ellipsis.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n.saturating_sub(1)).collect::<String>() + "…"
    }
}

fn text(s: &mut String, x: f64, y: f64, size: f64, anchor: &str, fill: &str, body: &str) {
    let _ = write!(s, r#"<text x="{x:.1}" y="{y:.1}" font-size="{size}" text-anchor="{anchor}" fill="{fill}">{}</text>"#, esc(body));
}

fn line(s: &mut String, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str, width: f64) {
    let _ = write!(s, r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{width}"/>"#);
}

/// A whisker from `a` to `b` (x, or y when `vertical`) at `c`, with end caps.
fn whisker(s: &mut String, a: f64, b: f64, c: f64, cap: f64, vertical: bool) {
    let p = |u: f64, v: f64| if vertical { (v, u) } else { (u, v) };
    line(s, p(a, c), p(b, c), "#222", 1.3);
    line(s, p(a, c - cap / 2.0), p(a, c + cap / 2.0), "#222", 1.3);
    line(s, p(b, c - cap / 2.0), p(b, c + cap / 2.0), "#222", 1.3);
}

/// Legend entries.
enum Key {
    Bar(&'static str, String),
    Hatch(String),
    Line(&'static str, String),
    Whisker(String),
    /// A ratio's dot, and the median's tick (overview).
    Dot(String),
    Tick(String),
}

const DEFS: &str = r##"<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#8a4500" stroke-width="2"/></pattern></defs>"##;

/// The title (wrapped), what the chart shows, the caption and the legend; returns the y
/// below them.
fn header(s: &mut String, title: &str, what: &str, caption: &str, keys: &[Key]) -> f64 {
    let mut y = 8.0;
    for l in wrap(title, ((W - 2.0 * MARGIN) / (17.0 * 0.6)) as usize) {
        y += 22.0;
        let _ = write!(s, r#"<text x="{MARGIN}" y="{y}" font-size="17" font-weight="bold">{}</text>"#, esc(&l));
    }
    for l in wrap(what, ((W - 2.0 * MARGIN) / (14.0 * 0.6)) as usize) {
        y += 19.0;
        text(s, MARGIN, y, 14.0, "start", "#333", &l);
    }
    y += 4.0;
    for l in wrap(caption, ((W - 2.0 * MARGIN) / (12.0 * 0.6)) as usize) {
        y += 15.0;
        text(s, MARGIN, y, 12.0, "start", "#555", &l);
    }
    y += 14.0;
    let mut x = MARGIN;
    for k in keys {
        let name = match k {
            Key::Bar(_, n) | Key::Hatch(n) | Key::Line(_, n) | Key::Whisker(n) | Key::Dot(n) | Key::Tick(n) => n,
        };
        let w = 30.0 + text_w(name, 13.0) + 18.0;
        if x + w > W - MARGIN && x > MARGIN {
            x = MARGIN;
            y += 20.0;
        }
        match k {
            Key::Bar(col, _) => {
                let _ = write!(s, r#"<rect x="{x}" y="{}" width="22" height="12" fill="{col}"/>"#, y - 10.0);
            }
            Key::Hatch(_) => {
                let _ = write!(
                    s,
                    r##"<rect x="{x}" y="{0}" width="22" height="12" fill="{OURS}" fill-opacity="0.45"/><rect x="{x}" y="{0}" width="22" height="12" fill="url(#hatch)"/>"##,
                    y - 10.0
                );
            }
            Key::Line(col, _) => {
                line(s, (x, y - 4.0), (x + 22.0, y - 4.0), col, 2.5);
                let _ = write!(s, r#"<circle cx="{}" cy="{}" r="4" fill="{col}"/>"#, x + 11.0, y - 4.0);
            }
            Key::Whisker(_) => whisker(s, x + 2.0, x + 20.0, y - 4.0, 8.0, false),
            Key::Dot(_) => {
                let _ = write!(
                    s,
                    r##"<circle cx="{}" cy="{}" r="4.5" fill="{OURS}" fill-opacity="0.55" stroke="#a04d00" stroke-width="0.6"/>"##,
                    x + 11.0,
                    y - 4.0
                );
            }
            Key::Tick(_) => line(s, (x + 11.0, y - 13.0), (x + 11.0, y + 5.0), "#000", 2.5),
        }
        text(s, x + 30.0, y, 13.0, "start", "#222", name);
        x += w;
    }
    y + 16.0
}

fn finish(body: String, h: f64) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h:.0}" viewBox="0 0 {W} {h:.0}" font-family="{FONT}" font-size="13">{DEFS}<rect width="100%" height="100%" fill="white"/>{body}</svg>"#
    )
}

/// Draws the bar panels from `y`; returns the y below them.
fn draw_bars(s: &mut String, panels: &[BarPanel], mut y: f64) -> f64 {
    let longest = panels.iter().flat_map(|p| &p.groups).map(|g| g.label.chars().count()).max().unwrap_or(0);
    let label_w = (longest as f64 * 13.0 * 0.6 + 16.0).clamp(150.0, 470.0);
    let max_chars = ((label_w - 16.0) / (13.0 * 0.6)) as usize;
    let x0 = MARGIN + label_w;
    let plot_w = W - x0 - 80.0;
    for p in panels.iter().filter(|p| !p.groups.is_empty()) {
        let _ = write!(s, r#"<text x="{MARGIN}" y="{:.1}" font-size="14" font-weight="bold">{}</text>"#, y + 14.0, esc(&p.title));
        y += 26.0;
        let nb = if p.with_paper { 2.0 } else { 1.0 };
        let bar_h = if p.groups.len() > 20 { 12.0 } else { 14.0 };
        let group_h = bar_h * nb + 10.0;
        let vals = p.groups.iter().flat_map(|g| [g.paper, g.ours, g.spread.as_ref().map(|s| s.lo), g.spread.as_ref().map(|s| s.hi)]);
        let (lo, hi) = vals.flatten().fold((0.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
        let sc = nice(lo, hi);
        let x = |v: f64| x0 + (v - sc.lo) / (sc.hi - sc.lo) * plot_w;
        let (top, bottom) = (y, y + group_h * p.groups.len() as f64 + 4.0);
        for v in sc.ticks() {
            line(s, (x(v), top), (x(v), bottom), GRID, 1.0);
            text(s, x(v), bottom + 15.0, 11.0, "middle", "#333", &sc.label(v));
        }
        for &i in &p.separators {
            let ys = top + group_h * i as f64 - 1.0;
            line(s, (MARGIN, ys), (x0 + plot_w, ys), "#bbb", 0.8);
        }
        for (i, g) in p.groups.iter().enumerate() {
            let y0 = top + group_h * i as f64 + 4.0;
            let label = clip(&g.label, max_chars);
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end"><title>{}</title>{}</text>"#,
                x0 - 8.0,
                y0 + bar_h * nb / 2.0 + 4.0,
                esc(&g.full),
                esc(&label)
            );
            let mut marks: Vec<(&str, Option<f64>, String, bool)> = Vec::new();
            if p.with_paper {
                marks.push((PAPER, g.paper, g.paper_text.clone().or_else(|| g.paper.map(short)).unwrap_or_default(), false));
            }
            marks.push((OURS, g.ours, g.ours.map(short).unwrap_or_default(), true));
            for (k, (col, v, shown, ours)) in marks.into_iter().enumerate() {
                let yb = y0 + bar_h * k as f64;
                let Some(v) = v else {
                    text(s, x(0.0) + 4.0, yb + bar_h - 3.0, 11.0, "start", "#777", "no figure");
                    continue;
                };
                let (a, b) = (x(v.min(0.0)), x(v.max(0.0)));
                let who = if ours { "wsec" } else { "paper" };
                let noisy = ours && g.noisy;
                let _ = write!(
                    s,
                    r#"<rect x="{a:.1}" y="{yb:.1}" width="{:.1}" height="{}" fill="{col}"{}><title>{who}: {}</title></rect>"#,
                    (b - a).max(1.0),
                    bar_h - 2.0,
                    if noisy { r#" fill-opacity="0.45""# } else { "" },
                    esc(&shown)
                );
                if noisy {
                    let _ = write!(
                        s,
                        r#"<rect x="{a:.1}" y="{yb:.1}" width="{:.1}" height="{}" fill="url(#hatch)"/>"#,
                        (b - a).max(1.0),
                        bar_h - 2.0
                    );
                }
                let mut end = b;
                if let (true, Some(sp)) = (ours, &g.spread) {
                    whisker(s, x(sp.lo), x(sp.hi), yb + (bar_h - 2.0) / 2.0, bar_h - 4.0, false);
                    end = end.max(x(sp.hi));
                }
                text(s, end + 4.0, yb + bar_h - 3.0, 11.0, "start", "#222", &shown);
            }
        }
        // The zero line, over the bars: they grow from it, left for negative figures.
        line(s, (x(0.0), top), (x(0.0), bottom), "#000", if sc.lo < 0.0 { 1.6 } else { 1.2 });
        line(s, (x0, bottom), (x0 + plot_w, bottom), "#333", 1.0);
        y = bottom + 40.0;
    }
    y
}

/// Draws line panels (a grid of small multiples) from `y`; returns the y below them.
fn draw_lines(s: &mut String, x_label: &str, cats: &[String], panels: &[LinePanel], y: f64) -> f64 {
    let panels: Vec<&LinePanel> = panels.iter().filter(|p| p.series.iter().any(|s| !s.pts.is_empty())).collect();
    let cols = match panels.len() {
        1 => 1,
        2 | 4 => 2,
        _ => 3,
    };
    let gap = 36.0;
    let pw = (W - 2.0 * MARGIN - gap * (cols - 1) as f64) / cols as f64;
    let ph = if panels.len() == 1 { 420.0 } else { 290.0 };
    for (k, p) in panels.iter().enumerate() {
        let px = MARGIN + (k % cols) as f64 * (pw + gap);
        let py = y + (k / cols) as f64 * (ph + 14.0);
        line_panel(s, p, cats, x_label, (px, py), (pw, ph));
    }
    y + panels.len().div_ceil(cols) as f64 * (ph + 14.0)
}

fn line_panel(s: &mut String, p: &LinePanel, cats: &[String], x_label: &str, (px, py): (f64, f64), (pw, ph): (f64, f64)) {
    let _ = write!(s, r#"<text x="{px:.1}" y="{:.1}" font-size="14" font-weight="bold">{}</text>"#, py + 14.0, esc(&p.title));
    let (left, right, top, bottom) = (px + 62.0, px + pw - 8.0, py + 30.0, py + ph - 44.0);
    let vals: Vec<f64> = p
        .series
        .iter()
        .flat_map(|s| &s.pts)
        .flat_map(|q| [Some(q.y), q.spread.as_ref().map(|s| s.lo), q.spread.as_ref().map(|s| s.hi)])
        .flatten()
        .filter(|v| v.is_finite() && (!p.log || *v > 0.0))
        .collect();
    let (lo, hi) = vals.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    let y_of: Box<dyn Fn(f64) -> f64> = if p.log {
        let (a, b) = decades(lo, hi);
        for k in a..=b {
            let yk = bottom - (k - a) as f64 / (b - a) as f64 * (bottom - top);
            line(s, (left, yk), (right, yk), GRID, 1.0);
            text(s, left - 6.0, yk + 4.0, 11.0, "end", "#333", &decade_label(k));
            if k < b {
                for m in 2..10 {
                    let ym = yk - (m as f64).log10() / (b - a) as f64 * (bottom - top);
                    line(s, (left, ym), (left + 5.0, ym), "#999", 0.8);
                }
            }
        }
        Box::new(move |v: f64| bottom - (v.log10() - a as f64) / (b - a) as f64 * (bottom - top))
    } else {
        let sc = nice(lo.min(0.0), hi.max(0.0));
        for v in sc.ticks() {
            let yv = bottom - (v - sc.lo) / (sc.hi - sc.lo) * (bottom - top);
            line(s, (left, yv), (right, yv), GRID, 1.0);
            text(s, left - 6.0, yv + 4.0, 11.0, "end", "#333", &sc.label(v));
        }
        let y0 = bottom - (0.0 - sc.lo) / (sc.hi - sc.lo) * (bottom - top);
        if sc.lo < 0.0 {
            line(s, (left, y0), (right, y0), "#000", 1.6);
        }
        Box::new(move |v: f64| bottom - (v - sc.lo) / (sc.hi - sc.lo) * (bottom - top))
    };
    line(s, (left, top), (left, bottom), "#333", 1.0);
    line(s, (left, bottom), (right, bottom), "#333", 1.0);
    let n = cats.len().max(1) as f64;
    let xc = |i: usize| left + (i as f64 + 0.5) / n * (right - left);
    for (i, c) in cats.iter().enumerate() {
        text(s, xc(i), bottom + 16.0, 12.0, "middle", "#222", c);
    }
    text(s, (left + right) / 2.0, bottom + 34.0, 12.0, "middle", "#333", x_label);
    for se in &p.series {
        let mut pts: Vec<&Point> = se.pts.iter().filter(|q| q.y.is_finite() && (!p.log || q.y > 0.0) && q.x < cats.len()).collect();
        pts.sort_by_key(|q| q.x);
        let path: Vec<String> = pts.iter().map(|q| format!("{:.1},{:.1}", xc(q.x), y_of(q.y))).collect();
        let _ = write!(s, r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>"#, path.join(" "), se.color);
        for q in pts {
            if let Some(sp) = &q.spread {
                if !p.log || sp.lo > 0.0 {
                    whisker(s, y_of(sp.lo), y_of(sp.hi), xc(q.x), 8.0, true);
                }
            }
            let fill = if q.noisy { "white" } else { se.color };
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="{fill}" stroke="{}" stroke-width="1.5"><title>{}: {}: {}</title></circle>"#,
                xc(q.x),
                y_of(q.y),
                se.color,
                esc(&se.name),
                esc(&cats[q.x]),
                short(q.y)
            );
        }
    }
}

/// The SVG of chart `file` of `t`.
fn svg(t: &Table, file: &str) -> Result<String, String> {
    let p = plot(t, file);
    if p.is_empty() {
        return Err("nothing to plot".into());
    }
    let (head, rest) = caption_parts(t, &p);
    let cap = head + &rest;
    let smoke = t.rows.iter().zip(&p.used).any(|(r, u)| *u && r.smoke && r.ours.is_some());
    let ours_name = if smoke { "wsec (smoke: a quick run)".to_string() } else { "wsec".to_string() };
    let mut keys = Vec::new();
    match &p.body {
        Body::Bars(_) => {
            if p.with_paper() {
                keys.push(Key::Bar(PAPER, "paper".into()));
            }
            keys.push(Key::Bar(OURS, ours_name));
            if p.noisy() > 0 {
                keys.push(Key::Hatch("wsec, noisy".into()));
            }
        }
        Body::Lines { panels, .. } => {
            let mut seen: Vec<&str> = Vec::new();
            let mut series: Vec<&Series> = panels.iter().flat_map(|p| &p.series).filter(|s| !s.pts.is_empty()).collect();
            series.sort_by_key(|s| s.color == OURS);
            for se in series {
                if !seen.contains(&se.name.as_str()) {
                    seen.push(&se.name);
                    let name = if se.color == OURS && smoke { format!("{} (smoke: a quick run)", se.name) } else { se.name.clone() };
                    keys.push(Key::Line(se.color, name));
                }
            }
            if p.noisy() > 0 {
                keys.push(Key::Line("#888", "hollow: noisy".into()));
            }
        }
    }
    if let Some(w) = spread_words(&p.spreads()) {
        keys.push(Key::Whisker(format!("ours' {w}")));
    }
    let mut s = String::new();
    let y = header(&mut s, &t.title, &p.what, &cap, &keys);
    let h = match &p.body {
        Body::Bars(panels) => draw_bars(&mut s, panels, y),
        Body::Lines { x_label, cats, panels } => draw_lines(&mut s, x_label, cats, panels, y),
    };
    Ok(finish(s, h + 10.0))
}

/// Draws chart `file` (one of `t.charts`) of table `t` to `path`.
pub fn render(t: &Table, file: &str, path: &Path) -> crate::Result<()> {
    let werr = |e: String| Error::Write(format!("{}: {e}", path.display()));
    let s = svg(t, file).map_err(werr)?;
    std::fs::write(path, s).map_err(|e| werr(e.to_string()))
}

// ---- the overview ----------------------------------------------------------------------

/// A table's title, short: its reference ("Seed 000 Fig. 7") and the start of the rest.
fn short_title(title: &str) -> String {
    match title.split_once(": ") {
        Some((head, rest)) => {
            let head = match head.split_once(" (") {
                Some((h, _)) if head.chars().count() > 24 => h,
                _ => head,
            };
            clip(&format!("{head}: {rest}"), 60)
        }
        None => clip(title, 60),
    }
}

fn overview_svg(tables: &[Table]) -> Result<String, String> {
    let lines: Vec<(&Table, Vec<f64>)> = tables
        .iter()
        .map(|t| (t, t.rows.iter().filter_map(|r| r.ratio).filter(|v| v.is_finite() && *v > 0.0).collect::<Vec<f64>>()))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    if lines.is_empty() {
        return Err("no table has a ratio of ours to the paper's".into());
    }
    let all = lines.iter().flat_map(|(_, v)| v.iter().copied());
    let (mn, mx) = all.fold((1.0f64, 1.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let (a, b) = decades(mn.min(0.1), mx.max(10.0));
    let n_ratios: usize = lines.iter().map(|(_, v)| v.len()).sum();
    let (label_w, count_w) = (440.0, 90.0);
    let (left, right) = (MARGIN + label_w, W - MARGIN - count_w);
    let x = |v: f64| left + ((v.log10() - a as f64) / (b - a) as f64).clamp(0.0, 1.0) * (right - left);
    let mut s = String::new();
    let cap = format!(
        "One dot per row that has both figures and a meaningful ratio ({n_ratios} ratios in {} tables); rows without a ratio (ranks, zero or negative figures, a missing figure) are left out. The black tick is each table's median; n counts its ratios.",
        lines.len()
    );
    let keys = [Key::Dot("a row's ours / paper".into()), Key::Tick("the table's median".into())];
    let top = header(
        &mut s,
        "Ours over the paper's figure, every table (log scale)",
        "ours / paper per row: 1x is agreement, 10x is ours ten times the paper's, 0.1x a tenth of it",
        &cap,
        &keys,
    );
    let row_h = 26.0;
    let bottom = top + row_h * lines.len() as f64;
    for (i, (t, v)) in lines.iter().enumerate() {
        let y0 = top + row_h * i as f64;
        if i % 2 == 0 {
            let _ = write!(s, r##"<rect x="{MARGIN}" y="{y0:.1}" width="{}" height="{row_h}" fill="#f5f5f5"/>"##, W - 2.0 * MARGIN);
        }
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end"><title>{}</title>{}</text>"#,
            left - 8.0,
            y0 + 17.0,
            esc(&t.title),
            esc(&short_title(&t.title))
        );
        text(&mut s, right + 10.0, y0 + 17.0, 12.0, "start", "#333", &format!("n = {}", v.len()));
    }
    for k in a..=b {
        let xk = x(10f64.powi(k));
        line(&mut s, (xk, top), (xk, bottom), if k == 0 { "#000" } else { "#cfcfcf" }, if k == 0 { 1.6 } else { 1.0 });
        text(&mut s, xk, bottom + 16.0, 12.0, "middle", "#222", &format!("{}x", decade_label(k)));
        if k < b {
            for m in 2..10 {
                let xm = x(m as f64 * 10f64.powi(k));
                line(&mut s, (xm, bottom - 4.0), (xm, bottom), "#999", 0.8);
            }
        }
    }
    line(&mut s, (left, bottom), (right, bottom), "#333", 1.0);
    text(&mut s, x(1.0), top - 4.0, 11.0, "middle", "#000", "1x: as the paper");
    for (i, (t, v)) in lines.iter().enumerate() {
        let yc = top + row_h * i as f64 + row_h / 2.0;
        for (j, &r) in v.iter().enumerate() {
            let dy = (j % 3) as f64 * 4.0 - 4.0;
            let _ = write!(
                s,
                r##"<circle cx="{:.1}" cy="{:.1}" r="4.5" fill="{OURS}" fill-opacity="0.55" stroke="#a04d00" stroke-width="0.6"><title>{}: {}x</title></circle>"##,
                x(r),
                yc + dy,
                esc(&t.id),
                short(r)
            );
        }
        let mut sorted = v.clone();
        sorted.sort_by(f64::total_cmp);
        let med =
            if sorted.len() % 2 == 1 { sorted[sorted.len() / 2] } else { (sorted[sorted.len() / 2 - 1] * sorted[sorted.len() / 2]).sqrt() };
        line(&mut s, (x(med), yc - 9.0), (x(med), yc + 9.0), "#000", 2.5);
    }
    text(&mut s, (left + right) / 2.0, bottom + 36.0, 13.0, "middle", "#222", "ours / paper (log scale)");
    Ok(finish(s, bottom + 52.0))
}

/// Draws the overview to `path`: per table with at least one ratio (ours / paper), a dot
/// per ratio on a log axis, the 1x line and the table's median; rows without a ratio are
/// left out (they have none that means something).
pub fn overview(tables: &[Table], path: &Path) -> crate::Result<()> {
    let werr = |e: String| Error::Write(format!("{}: {e}", path.display()));
    let s = overview_svg(tables).map_err(werr)?;
    std::fs::write(path, s).map_err(|e| werr(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(id: &str, rows: Vec<Row>) -> Table {
        Table {
            id: id.into(),
            seed: "000".into(),
            title: format!(
                "Seed 000 {id}: a test table with a title long enough to be wrapped across two lines of the chart's header, as some are"
            ),
            reference: String::new(),
            parts: Vec::new(),
            rows,
            why: String::new(),
            command: String::new(),
            charts: vec![format!("{id}.svg")],
            assumptions: Vec::new(),
            seed_file: String::new(),
            seed_line: 0,
            facts: Vec::new(),
        }
    }

    fn is_nice_step(sc: &Scale) -> bool {
        [1, 2, 5].contains(&sc.mant)
    }

    #[test]
    fn ticks_are_round_and_include_zero() {
        let sc = nice(-3.31, 315.8);
        let ticks = sc.ticks();
        assert!(is_nice_step(&sc), "{sc:?}");
        assert!(ticks.contains(&0.0), "{ticks:?}");
        assert!((4..=8).contains(&ticks.len()), "{ticks:?}");
        assert!(sc.lo <= -3.31 && sc.hi >= 315.8);
        assert_eq!((sc.lo, sc.hi), (ticks[0], *ticks.last().unwrap()), "the axis ends on ticks");
        let step = sc.step();
        assert!(ticks.iter().all(|v| ((v / step) - (v / step).round()).abs() < 1e-9), "{ticks:?}");
        assert_eq!(ticks.iter().map(|v| sc.label(*v)).collect::<Vec<_>>(), ["-100", "0", "100", "200", "300", "400"]);
        // Small and fractional ranges: no spurious decimals.
        let sc = nice(0.0, 3.27);
        assert_eq!(sc.ticks().iter().map(|v| sc.label(*v)).collect::<Vec<_>>(), ["0", "0.5", "1", "1.5", "2", "2.5", "3", "3.5"]);
        let sc = nice(-0.311, 0.346);
        let labels: Vec<String> = sc.ticks().iter().map(|v| sc.label(*v)).collect();
        assert!(labels.contains(&"0".to_string()) && labels.iter().all(|l| l.len() <= 5), "{labels:?}");
        for (lo, hi) in [(0.0, 35624.0), (7.3, 4285.0), (-46.2, 70.7), (0.0001, 0.00037), (12.0, 13.1), (-5.0, -1.0)] {
            let sc = nice(lo, hi);
            let n = sc.ticks().len();
            assert!(is_nice_step(&sc) && (4..=8).contains(&n) && sc.lo <= lo && sc.hi >= hi, "{lo}..{hi}: {sc:?}");
            if lo <= 0.0 && hi >= 0.0 {
                assert!(sc.ticks().contains(&0.0));
            }
        }
    }

    #[test]
    fn degenerate_ranges_do_not_panic_or_loop() {
        for (lo, hi) in [(0.0, 0.0), (5.0, 5.0), (-2.0, -2.0), (f64::NAN, 1.0), (1e-300, 1e-300), (-1e308, 1e308), (f64::INFINITY, 0.0)] {
            let sc = nice(lo, hi);
            let t = sc.ticks();
            assert!(t.len() >= 2 && t.iter().all(|v| v.is_finite()) && sc.hi > sc.lo, "{lo}..{hi}: {sc:?}");
        }
        assert_eq!(nice(5.0, 5.0).lo, 0.0, "a single value gets an axis from 0");
        assert_eq!(decades(0.3, 0.3), (-1, 0));
        assert_eq!((decade_label(-2), decade_label(0), decade_label(3)), ("0.01".into(), "1".into(), "1000".into()));
    }

    fn fig5_rows() -> Vec<Row> {
        vec![
            Row::new("WEP, high rate: delay over open", "model", "ms", None, Some(0.32), "")
                .spread(Some(Spread::new("ci95", -0.68, 1.32, 5))),
            Row::new("WEP, high rate: jitter over open", "model", "ms", None, Some(-0.15), "")
                .spread(Some(Spread::new("ci95", -0.31, 0.01, 5).noisy(true))),
            Row::new("WEP: ping RTT over open", "live", "ms", None, Some(0.53), ""),
        ]
    }

    #[test]
    fn captions_count_the_rows_they_plot() {
        let t = table("seed000-fig5", fig5_rows());
        let c = caption(&t, "seed000-fig5.svg");
        assert!(c.contains("2 of the table's 3 rows"), "{c}");
        assert!(c.contains("1 live-system row (ping RTT over open)") && c.contains("live chart"), "{c}");
        assert!(c.contains("95 % confidence interval (n = 5)") && c.contains("noisy"), "{c}");
        let c = caption(&t, "seed000-fig5-live.svg");
        assert!(c.contains("1 of the table's 3 rows") && c.contains("2 DCF-model rows"), "{c}");
        let rows = vec![
            Row::new("adhoc_open none", "model", "s", Some(10.57), Some(11.2), ""),
            Row::new("bss_wpa AES", "model", "s", Some(29.28), Some(22.3), ""),
            Row::new("empty", "model", "s", None, None, ""),
        ];
        let t = table("seed004-table2", rows);
        let c = caption(&t, "seed004-table2.svg");
        assert!(c.contains("2 of the table's 3 rows") && c.contains("1 row with no figure on either side"), "{c}");
        let t = table("seed004-table2", t.rows[..2].to_vec());
        assert!(caption(&t, "seed004-table2.svg").starts_with("Plots all 2 rows"));
    }

    #[test]
    fn bars_draw_a_zero_line_whiskers_and_no_nan() {
        let t = table("seed000-fig5", fig5_rows());
        let s = svg(&t, "seed000-fig5.svg").unwrap();
        assert!(s.starts_with("<svg") && s.ends_with("</svg>") && !s.contains("NaN") && !s.contains("inf"));
        assert!(s.contains("a test table with a title"), "the table's title, not its id");
        assert!(s.contains("Plots 2 of the table"), "the caption is in the SVG");
        assert!(s.contains(r##"stroke="#000" stroke-width="1.6""##), "a dark zero line for negative figures");
        assert!(s.contains(r##"stroke="#222" stroke-width="1.3""##), "a whisker");
        assert!(s.contains("url(#hatch)"), "the noisy figure hatched");
        // Nothing to plot is an error, as before.
        let t = table("seed000-fig5", vec![Row::new("x", "model", "ms", None, None, "")]);
        assert!(svg(&t, "seed000-fig5.svg").is_err());
    }

    #[test]
    fn lanes_plot_the_paper_cpus_and_say_the_peers() {
        let rows = vec![
            Row::new("standard: time per frame", "bench", "us", Some(40.0), Some(1.2), "").spread(Some(Spread::new("iqr", 1.1, 1.3, 3))),
            Row::new("2 lanes: time per frame", "bench", "us", Some(29.0), Some(0.63), ""),
            Row::new("2 lanes: speed-up over standard", "bench", "x", Some(1.38), Some(1.9), ""),
            Row::new("2 lane(s), paper's i7", "bench", "us", Some(28.0), Some(0.63), ""),
            Row::new("openssl: CCMP encapsulation, 1 frame(s) in flight", "peer", "us", None, Some(1.8), ""),
        ];
        let t = table("seed000-table1", rows);
        let s = svg(&t, "seed000-table1.svg").unwrap();
        assert!(s.contains("<polyline") && s.contains("paper, Intel Core i7") && !s.contains("NaN"));
        let c = caption(&t, "seed000-table1.svg");
        assert!(c.contains("4 of the table's 5 rows") && c.contains("1 peer row") && c.contains("no lane count"), "{c}");
    }

    #[test]
    fn unknown_labels_fall_back_to_every_row() {
        let rows = vec![Row::new("something new", "hw", "MHz", Some(80.0), Some(60.0), "")];
        let t = table("seed003-table3", rows);
        let s = svg(&t, "seed003-table3.svg").unwrap();
        assert!(s.contains("something new") && caption(&t, "seed003-table3.svg").starts_with("Plots the table's one row"));
    }

    #[test]
    fn overview_puts_ratios_on_a_log_axis() {
        let a = table("seed000-table3", vec![Row::new("a", "hw", "LE", Some(100.0), Some(2.0), "")]);
        let b = table(
            "seed000-table4",
            vec![Row::new("b", "hw", "MHz", Some(1.0), Some(40.0), ""), Row::new("c", "hw", "rank", Some(1.0), Some(2.0), "")],
        );
        let none = table("seed000-table5", vec![Row::new("d", "hw", "mW", Some(82.4), None, "")]);
        let s = overview_svg(&[a, b, none.clone()]).unwrap();
        assert!(s.contains(">1x<") && s.contains(">0.01x<") && s.contains(">100x<") && !s.contains("NaN"), "{s}");
        assert!(s.contains("2 ratios in 2 tables"), "the rank and the missing figure have no ratio");
        assert!(overview_svg(&[none]).is_err());
        let dir = std::env::temp_dir().join(format!("wsec-chart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let t = table("seed000-table3", vec![Row::new("a", "hw", "LE", Some(100.0), Some(2.0), "")]);
        overview(&[t], &dir.join("overview.svg")).unwrap();
        assert!(std::fs::read_to_string(dir.join("overview.svg")).unwrap().contains("1x"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! Line charts for benchmark results, as SVG or PNG (plotters).
//!
//! Text is laid out with a TrueType font read from the system at run time (plotters'
//! `ab_glyph` backend; nothing is bundled): [`use_system_font`] looks in the usual places
//! (DejaVu, Liberation, Noto, Lato; Debian's `fonts-dejavu-core` provides the first) or takes
//! a path.
use plotters::coord::ranged1d::{IntoSegmentedCoord, SegmentValue};
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::{Error, Result};

/// Fonts tried in this order when none is given.
pub const FONT_CANDIDATES: [&str; 6] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/truetype/lato/Lato-Regular.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

static FONT: OnceLock<PathBuf> = OnceLock::new();

/// Registers the font plots use as "sans-serif": `path`, or the first of
/// [`FONT_CANDIDATES`] that exists. Returns the font's path; an error says why none could
/// be used. Only the first successful call registers a font.
pub fn use_system_font(path: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = FONT.get() {
        return Ok(p.clone());
    }
    let candidates: Vec<PathBuf> = match path {
        Some(p) => vec![p.to_path_buf()],
        None => FONT_CANDIDATES.iter().map(PathBuf::from).collect(),
    };
    for c in &candidates {
        let Ok(bytes) = std::fs::read(c) else { continue };
        // plotters keeps registered fonts for the life of the process.
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
            let _ = FONT.set(c.clone());
            return Ok(c.clone());
        }
    }
    Err(Error::Setup(match path {
        Some(p) => format!("{}: not a readable TrueType font", p.display()),
        None => "no TrueType font found (install fonts-dejavu-core, or pass a font path)".into(),
    }))
}

/// A line chart: one line per series.
#[derive(Clone, Debug, Default)]
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    /// Start a linear y axis at 0 (else it spans the data).
    pub y_from_zero: bool,
    /// Category names for x = 0, 1, 2, ... (a categorical x axis), or empty for numbers.
    pub x_categories: Vec<String>,
    /// (name, points); points with a non-finite or (on a log axis) non-positive coordinate
    /// are skipped.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

const W: u32 = 1200;
const H: u32 = 700;
/// Width of the legend panel right of the plot.
const LEGEND_W: u32 = 230;

/// Distinct line colours (Tableau 20, dark shades first).
const COLORS: [(u8, u8, u8); 20] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
    (174, 199, 232),
    (255, 187, 120),
    (152, 223, 138),
    (255, 152, 150),
    (197, 176, 213),
    (196, 156, 148),
    (247, 182, 210),
    (199, 199, 199),
    (219, 219, 141),
    (158, 218, 229),
];

fn color(i: usize) -> RGBColor {
    let (r, g, b) = COLORS[i % COLORS.len()];
    RGBColor(r, g, b)
}

/// Axis numbers: no needless decimals ("1000", "2.5", "0.0012").
fn axis_number(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        let s = format!("{v:.1}");
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    } else if a >= 0.001 {
        format!("{v:.4}").trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{v:.0e}")
    }
}

impl LineChart {
    /// Writes the chart to `path`: SVG for `.svg`, PNG for `.png`.
    pub fn render(&self, path: &Path) -> Result<()> {
        use_system_font(None)?;
        let err = |e: &dyn std::fmt::Display| Error::Plot { path: path.to_path_buf(), what: e.to_string() };
        match path.extension().and_then(|e| e.to_str()) {
            Some("svg") => {
                let root = SVGBackend::new(path, (W, H)).into_drawing_area();
                self.draw(&root, path)?;
                root.present().map_err(|e| err(&e))
            }
            Some("png") => {
                let root = BitMapBackend::new(path, (W, H)).into_drawing_area();
                self.draw(&root, path)?;
                root.present().map_err(|e| err(&e))
            }
            _ => Err(Error::Plot { path: path.to_path_buf(), what: "plots are .svg or .png".into() }),
        }
    }

    fn points(&self) -> Vec<(usize, Vec<(f64, f64)>)> {
        self.series
            .iter()
            .enumerate()
            .map(|(i, (_, pts))| {
                let ok = |&(x, y): &(f64, f64)| x.is_finite() && y.is_finite() && (!self.log_x || x > 0.0) && (!self.log_y || y > 0.0);
                (i, pts.iter().copied().filter(ok).collect())
            })
            .collect()
    }

    /// Draws on `root`, which will be written to `path`.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, plotters::coord::Shift>, path: &Path) -> Result<()>
    where
        DB::ErrorType: 'static,
    {
        let e = |x: &dyn std::fmt::Display| Error::Plot { path: path.to_path_buf(), what: x.to_string() };
        root.fill(&WHITE).map_err(|x| e(&x))?;
        let pts = self.points();
        let all: Vec<(f64, f64)> = pts.iter().flat_map(|(_, p)| p.iter().copied()).collect();
        if all.is_empty() {
            return Err(e(&"nothing to plot"));
        }
        let (plot_area, legend_area) = root.split_horizontally(W - LEGEND_W);
        // The legend: a panel of its own, so it never hides a line.
        for (k, (i, _)) in pts.iter().enumerate() {
            let y = 60 + 22 * k as i32;
            let c = color(*i);
            legend_area.draw(&PathElement::new(vec![(8, y), (36, y)], c.stroke_width(3))).map_err(|x| e(&x))?;
            legend_area.draw(&Text::new(self.series[*i].0.clone(), (44, y - 8), ("sans-serif", 15).into_font())).map_err(|x| e(&x))?;
        }
        let (mut x0, mut x1) = bounds(all.iter().map(|p| p.0));
        let (mut y0, mut y1) = bounds(all.iter().map(|p| p.1));
        pad(&mut x0, &mut x1, self.log_x);
        pad(&mut y0, &mut y1, self.log_y);
        if self.y_from_zero && !self.log_y {
            y0 = y0.min(0.0);
        }
        let mut chart = ChartBuilder::on(&plot_area);
        chart.caption(&self.title, ("sans-serif", 24)).margin(16).x_label_area_size(48).y_label_area_size(80);
        let num = |v: &f64| axis_number(*v);
        // Four coordinate kinds (linear/log on each axis): one macro body.
        macro_rules! body {
            ($c:expr) => {{
                let mut c = $c;
                c.configure_mesh()
                    .x_desc(&self.x_label)
                    .y_desc(&self.y_label)
                    .label_style(("sans-serif", 15))
                    .x_label_formatter(&num)
                    .y_label_formatter(&num)
                    .draw()
                    .map_err(|x| e(&x))?;
                for (i, p) in &pts {
                    let col = color(*i);
                    c.draw_series(LineSeries::new(p.iter().copied(), col.stroke_width(2))).map_err(|x| e(&x))?;
                    c.draw_series(p.iter().map(|&(x, y)| Circle::new((x, y), 3, col.filled()))).map_err(|x| e(&x))?;
                }
            }};
        }
        if !self.x_categories.is_empty() {
            if self.log_y {
                return Err(e(&"categorical x with log y is not offered"));
            }
            let n = self.x_categories.len();
            let cats = self.x_categories.clone();
            let mut c = chart.build_cartesian_2d((0..n as i32 - 1).into_segmented(), y0..y1).map_err(|x| e(&x))?;
            let fmt = |v: &SegmentValue<i32>| match v {
                SegmentValue::CenterOf(i) => cats.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            };
            c.configure_mesh()
                .x_desc(&self.x_label)
                .y_desc(&self.y_label)
                .label_style(("sans-serif", 15))
                .x_label_formatter(&fmt)
                .y_label_formatter(&num)
                .draw()
                .map_err(|x| e(&x))?;
            for (i, p) in &pts {
                let col = color(*i);
                let line: Vec<(SegmentValue<i32>, f64)> = p.iter().map(|&(x, y)| (SegmentValue::CenterOf(x.round() as i32), y)).collect();
                c.draw_series(LineSeries::new(line.clone(), col.stroke_width(2))).map_err(|x| e(&x))?;
                c.draw_series(line.into_iter().map(|pt| Circle::new(pt, 3, col.filled()))).map_err(|x| e(&x))?;
            }
            return Ok(());
        }
        match (self.log_x, self.log_y) {
            (false, false) => body!(chart.build_cartesian_2d(x0..x1, y0..y1).map_err(|x| e(&x))?),
            (true, false) => body!(chart.build_cartesian_2d((x0..x1).log_scale(), y0..y1).map_err(|x| e(&x))?),
            (false, true) => body!(chart.build_cartesian_2d(x0..x1, (y0..y1).log_scale()).map_err(|x| e(&x))?),
            (true, true) => {
                body!(chart.build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale()).map_err(|x| e(&x))?)
            }
        }
        Ok(())
    }
}

fn bounds(v: impl Iterator<Item = f64>) -> (f64, f64) {
    v.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)))
}

/// Widens a range a little so points are not on the frame (by a factor on log axes).
fn pad(lo: &mut f64, hi: &mut f64, log: bool) {
    if log {
        *lo /= 1.25;
        *hi *= 1.25;
    } else {
        let d = (*hi - *lo).abs().max(hi.abs() * 0.05).max(1e-12);
        *lo -= d * 0.05;
        *hi += d * 0.08;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_and_png() {
        if use_system_font(None).is_err() {
            // No font on this machine: plotting refuses with a reason instead of panicking.
            let c = LineChart { series: vec![("a".into(), vec![(1.0, 1.0)])], ..Default::default() };
            assert!(c.render(Path::new("/nonexistent/x.svg")).is_err());
            return;
        }
        let dir = std::env::temp_dir().join(format!("wsec-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let c = LineChart {
            title: "t".into(),
            x_label: "size".into(),
            y_label: "MB/s".into(),
            log_x: true,
            log_y: true,
            y_from_zero: false,
            x_categories: vec![],
            series: vec![("a".into(), vec![(64.0, 10.0), (1500.0, 100.0)]), ("b".into(), vec![(64.0, 5.0), (1500.0, -1.0)])],
        };
        c.render(&dir.join("c.svg")).unwrap();
        let svg = std::fs::read_to_string(dir.join("c.svg")).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("MB/s"));
        c.render(&dir.join("c.png")).unwrap();
        assert_eq!(&std::fs::read(dir.join("c.png")).unwrap()[..8], b"\x89PNG\r\n\x1a\n");
        let cat = LineChart {
            x_categories: vec!["text".into(), "audio".into()],
            log_x: false,
            log_y: false,
            series: vec![("a".into(), vec![(0.0, 1.0), (1.0, 2.0)])],
            ..c
        };
        cat.render(&dir.join("d.svg")).unwrap();
        assert!(std::fs::read_to_string(dir.join("d.svg")).unwrap().contains("audio"));
        assert!(cat.render(&dir.join("d.txt")).is_err());
        assert_eq!(
            (axis_number(1000.0), axis_number(2.5), axis_number(3.0), axis_number(0.0012)),
            ("1000".into(), "2.5".into(), "3".into(), "0.0012".into())
        );
        assert_eq!(axis_number(0.99999), "1");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

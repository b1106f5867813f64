//! Plots of `wsec model run` / `sweep` results (plotters; SVG or PNG by extension): one
//! series per case and flow, the 95% CI as error bars, the paper's figure (when the
//! scenario gives one for the metric) as hollow markers.
use plotters::prelude::*;
use std::path::Path;
use wsec_model::scenario::CaseResult;
use wsec_model::Scenario;

const FONTS: [&str; 4] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

fn register_font() -> Result<(), String> {
    static DONE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    DONE.get_or_init(|| {
        for p in FONTS {
            if let Ok(bytes) = std::fs::read(p) {
                let leaked: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                return plotters::style::register_font("sans-serif", FontStyle::Normal, leaked)
                    .map_err(|_| format!("{p}: not a usable font"));
            }
        }
        Err(format!("plots need a TrueType font; none of {FONTS:?} exists (Debian: apt-get install fonts-dejavu-core)"))
    })
    .clone()
}

struct Series {
    label: String,
    pts: Vec<(f64, f64, f64)>,
    paper: Vec<(f64, f64)>,
}

pub fn plot(path: &Path, sc: &Scenario, results: &[CaseResult], metric: &str, sweep: Option<&str>) -> Result<(), String> {
    register_font()?;
    let mut series: Vec<Series> = Vec::new();
    let mut xlabels: Vec<String> = Vec::new();
    let any_total = results.iter().any(|r| r.summary.flows.iter().any(|f| f.name == "total"));
    for (ci, r) in results.iter().enumerate() {
        let x = match (&r.point, sweep) {
            (Some(p), Some(_)) => {
                let v = p.split_once('=').map(|x| x.1).unwrap_or("");
                match v.parse::<f64>() {
                    Ok(x) => x,
                    Err(_) => {
                        if !xlabels.contains(&v.to_string()) {
                            xlabels.push(v.to_string());
                        }
                        xlabels.iter().position(|l| l == v).unwrap() as f64
                    }
                }
            }
            _ => {
                xlabels.push(r.case.clone());
                ci as f64
            }
        };
        for f in &r.summary.flows {
            let Some(e) = f.metrics.get(metric) else { continue };
            // A point with a single flow continues the "total" line of the others.
            let fname = if any_total && r.summary.flows.len() == 1 { "total" } else { f.name.as_str() };
            let label = if sweep.is_some() { format!("{} {fname}", r.case) } else { fname.to_string() };
            let idx = match series.iter().position(|s| s.label == label) {
                Some(i) => i,
                None => {
                    series.push(Series { label: label.clone(), pts: Vec::new(), paper: Vec::new() });
                    series.len() - 1
                }
            };
            series[idx].pts.push((x, e.mean, e.ci95));
            for key in [format!("{}.{metric}", f.name), metric.to_string()] {
                if let Some(&v) = r.paper.get(&key) {
                    series[idx].paper.push((x, v));
                    break;
                }
            }
        }
    }
    // Many flows (one per station): plot their total only.
    if series.len() > 8 && series.iter().any(|s| s.label.ends_with("total")) {
        series.retain(|s| s.label.ends_with("total"));
    }
    if series.is_empty() {
        return Err(format!("no flow has the metric '{metric}'"));
    }
    let xs = series.iter().flat_map(|s| s.pts.iter().map(|p| p.0));
    let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    let categorical = !xlabels.is_empty();
    if categorical || x0 == x1 {
        x0 -= 0.5;
        x1 += 0.5;
    }
    let ys = series.iter().flat_map(|s| s.pts.iter().map(|p| p.1 + p.2).chain(s.paper.iter().map(|p| p.1)));
    let y1 = ys.fold(0.0f64, f64::max) * 1.1 + 1e-9;
    let ctx = Ctx {
        title: format!("{} — {metric}", sc.name),
        metric: metric.to_string(),
        xdesc: sweep.unwrap_or("case").to_string(),
        series,
        xlabels,
        categorical,
        x0,
        x1,
        y1,
    };
    let width = 900u32.max(130 * ctx.xlabels.len() as u32);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let r = match ext.as_str() {
        "svg" => render(SVGBackend::new(path, (width, 560)).into_drawing_area(), &ctx),
        "png" => render(BitMapBackend::new(path, (width, 560)).into_drawing_area(), &ctx),
        _ => return Err(format!("{}: plot to .svg or .png", path.display())),
    };
    r.map_err(|e| format!("{}: {e}", path.display()))
}

struct Ctx {
    title: String,
    metric: String,
    xdesc: String,
    series: Vec<Series>,
    xlabels: Vec<String>,
    categorical: bool,
    x0: f64,
    x1: f64,
    y1: f64,
}

fn render<DB: DrawingBackend>(root: DrawingArea<DB, plotters::coord::Shift>, c: &Ctx) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&c.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(c.x0..c.x1, 0.0..c.y1)
        .map_err(e)?;
    let labels = c.xlabels.clone();
    let categorical = c.categorical;
    let fmt = move |x: &f64| {
        if categorical {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                labels[i as usize].clone()
            } else {
                String::new()
            }
        } else {
            format!("{x}")
        }
    };
    let mut mesh = chart.configure_mesh();
    mesh.y_desc(c.metric.as_str()).x_desc(c.xdesc.as_str()).x_label_formatter(&fmt);
    if categorical {
        mesh.x_labels(c.xlabels.len() * 2 + 1);
    }
    mesh.draw().map_err(e)?;
    for (i, s) in c.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let mut pts = s.pts.clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        if !categorical {
            chart
                .draw_series(LineSeries::new(pts.iter().map(|p| (p.0, p.1)), color.stroke_width(2)))
                .map_err(e)?
                .label(s.label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        } else {
            chart
                .draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 4, color.filled())))
                .map_err(e)?
                .label(s.label.clone())
                .legend(move |(x, y)| Circle::new((x + 10, y), 4, color.filled()));
        }
        chart
            .draw_series(pts.iter().map(|p| ErrorBar::new_vertical(p.0, p.1 - p.2, p.1, p.1 + p.2, color.stroke_width(1), 6)))
            .map_err(e)?;
        chart.draw_series(s.paper.iter().map(|p| Circle::new(*p, 6, color.stroke_width(2)))).map_err(e)?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}

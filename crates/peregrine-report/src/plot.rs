//! HDR percentile plots as SVG, drawn by hand: latency (µs, linear) against percentile on
//! the usual HdrHistogram log axis (0 %, 90 %, 99 %, 99.9 %, 99.99 %, evenly spaced).

use hdrhistogram::Histogram;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// One curve: a name and `(percentile 0..100, latency µs)` points in increasing order.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Points, percentile ascending.
    pub points: Vec<(f64, f64)>,
}

/// The x position (0..=4) of a percentile: `log10(1 / (1 - p))`, capped at 99.99 %.
pub fn x_of(percentile: f64) -> f64 {
    let q = (percentile / 100.0).clamp(0.0, 0.9999);
    -(1.0 - q).log10()
}

/// A curve from a nanosecond histogram: 401 points evenly spaced on the log axis.
pub fn series_from_histogram(name: &str, h: &Histogram<u64>) -> Series {
    let points = (0..=400)
        .map(|k| {
            let x = k as f64 / 100.0;
            let q = 1.0 - 10f64.powf(-x);
            let p = (q * 100.0).min(99.99);
            (p, h.value_at_quantile(q.min(0.9999)) as f64 / 1000.0)
        })
        .collect();
    Series {
        name: name.to_string(),
        points,
    }
}

/// A curve from summary percentiles (a peer that reports only those), µs.
pub fn series_from_summary(
    name: &str,
    min: f64,
    p50: f64,
    p90: f64,
    p99: f64,
    p999: f64,
) -> Series {
    Series {
        name: name.to_string(),
        points: vec![
            (0.0, min),
            (50.0, p50),
            (90.0, p90),
            (99.0, p99),
            (99.9, p999),
        ],
    }
}

// Twelve: the round trip draws four engines in three configurations.
const COLORS: [&str; 12] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#393b79", "#637939",
];

fn nice_ceiling(v: f64) -> f64 {
    if v <= 0.0 {
        return 1.0;
    }
    let mag = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if v <= m * mag {
            return m * mag;
        }
    }
    10.0 * mag
}

/// How the latency axis is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// From 0 to a round maximum.
    Linear,
    /// Decades (1, 10, 100 … µs): for curves that differ by orders of magnitude.
    Log,
}

/// The SVG document of a percentile plot of `series`, latency axis linear.
pub fn svg(title: &str, series: &[Series]) -> String {
    svg_scaled(title, series, Scale::Linear)
}

/// The SVG document of a percentile plot of `series` with the latency axis `scale`.
pub fn svg_scaled(title: &str, series: &[Series], scale: Scale) -> String {
    let (w, h) = (900.0, 540.0);
    let (left, right, top, bottom) = (80.0, 200.0, 50.0, 60.0);
    let pw = w - left - right;
    let ph = h - top - bottom;
    let values = || series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let vmax = values().fold(0.0, f64::max);
    let vmin = values().filter(|v| *v > 0.0).fold(f64::INFINITY, f64::min);
    // Linear: 0 ..= a round maximum. Log: whole decades around the values.
    let (lo, hi) = match scale {
        Scale::Linear => (0.0, nice_ceiling(vmax)),
        Scale::Log => {
            let lo = if vmin.is_finite() {
                vmin.log10().floor()
            } else {
                0.0
            };
            (lo, vmax.max(1e-9).log10().ceil().max(lo + 1.0))
        }
    };
    let frac = |v: f64| match scale {
        Scale::Linear => v / hi,
        Scale::Log => (v.max(1e-9).log10() - lo) / (hi - lo),
    };
    let px = |p: f64| left + x_of(p) / 4.0 * pw;
    let py = |v: f64| top + ph - frac(v).clamp(0.0, 1.0) * ph;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="28" font-size="16" text-anchor="middle">{}</text>"#,
        left + pw / 2.0,
        escape(title)
    );
    for (i, label) in ["0%", "90%", "99%", "99.9%", "99.99%"].iter().enumerate() {
        let x = left + i as f64 / 4.0 * pw;
        let _ = writeln!(
            s,
            r##"<line x1="{x}" y1="{top}" x2="{x}" y2="{}" stroke="#ddd"/><text x="{x}" y="{}" text-anchor="middle">{label}</text>"##,
            top + ph,
            top + ph + 18.0
        );
    }
    let ticks: Vec<f64> = match scale {
        Scale::Linear => (0..=5).map(|i| hi * i as f64 / 5.0).collect(),
        Scale::Log => (lo as i32..=hi as i32).map(|e| 10f64.powi(e)).collect(),
    };
    for v in ticks {
        let y = py(v);
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{y}" x2="{}" y2="{y}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">{}</text>"##,
            left + pw,
            left - 6.0,
            y + 4.0,
            trim(v)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">percentile</text>"#,
        left + pw / 2.0,
        h - 15.0
    );
    let _ = writeln!(
        s,
        r#"<text x="20" y="{}" text-anchor="middle" transform="rotate(-90 20 {})">latency (µs)</text>"#,
        top + ph / 2.0,
        top + ph / 2.0
    );
    let _ = writeln!(
        s,
        r#"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
    );
    for (i, ser) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<String> = ser
            .points
            .iter()
            .map(|&(p, v)| format!("{:.1},{:.1}", px(p), py(v)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
            pts.join(" ")
        );
        let ly = top + 20.0 + 20.0 * i as f64;
        let lx = left + pw + 15.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
            lx + 25.0,
            lx + 32.0,
            ly + 4.0,
            escape(&ser.name)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Where the plot of a JSON results file goes: beside it, `.svg` for `.json`.
///
/// ```
/// use std::path::{Path, PathBuf};
/// let svg = peregrine_report::plot::svg_beside(Path::new("target/bench-results/e2e.json"));
/// assert_eq!(svg, PathBuf::from("target/bench-results/e2e.svg"));
/// ```
pub fn svg_beside(json: &Path) -> PathBuf {
    json.with_extension("svg")
}

/// Why [`write_svg`] could not write a plot: the path it could not make or
/// write, and the system's error. Its [`Display`](std::fmt::Display) is
/// `path: error`.
#[derive(Debug)]
pub enum WriteSvgError {
    /// The plot's folder could not be created.
    CreateDir {
        /// The folder.
        dir: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The plot's file could not be written.
    Write {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

impl std::fmt::Display for WriteSvgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteSvgError::CreateDir { dir: path, source }
            | WriteSvgError::Write { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for WriteSvgError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteSvgError::CreateDir { source, .. } | WriteSvgError::Write { source, .. } => {
                Some(source)
            }
        }
    }
}

/// Writes the plot of `series` ([`svg_scaled`]) to `path`, creating its folder.
///
/// ```
/// use peregrine_report::plot::{write_svg, Scale, Series, WriteSvgError};
/// let dir = std::env::temp_dir().join(format!("plot-doc-{}", std::process::id()));
/// let series = [Series { name: "a".into(), points: vec![(0.0, 10.0), (99.0, 20.0)] }];
/// write_svg(&dir.join("out/plot.svg"), "title", &series, Scale::Linear)?;
/// assert!(std::fs::read_to_string(dir.join("out/plot.svg"))?.starts_with("<svg"));
/// // A folder where the file should be: the write fails, naming the path.
/// let e = write_svg(&dir.join("out"), "title", &series, Scale::Linear).unwrap_err();
/// assert!(matches!(e, WriteSvgError::Write { .. }), "{e}");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`WriteSvgError::CreateDir`] when the folder cannot be created,
/// [`WriteSvgError::Write`] when the file cannot be written.
pub fn write_svg(
    path: &Path,
    title: &str,
    series: &[Series],
    scale: Scale,
) -> Result<(), WriteSvgError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| WriteSvgError::CreateDir {
            dir: dir.to_path_buf(),
            source,
        })?;
    }
    std::fs::write(path, svg_scaled(title, series, scale)).map_err(|source| WriteSvgError::Write {
        path: path.to_path_buf(),
        source,
    })
}

fn trim(v: f64) -> String {
    if v >= 10.0 || v == v.trunc() {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_and_document() {
        assert_eq!(x_of(0.0), 0.0);
        assert!((x_of(99.0) - 2.0).abs() < 1e-9);
        assert!((x_of(99.99) - 4.0).abs() < 1e-6);
        let mut h = crate::new_histogram();
        for v in 1..=10_000u64 {
            h.record(v * 1000).unwrap();
        }
        let doc = svg("t <x>", &[series_from_histogram("a", &h)]);
        assert!(doc.starts_with("<svg") && doc.contains("polyline") && doc.contains("t &lt;x&gt;"));
        // 2 µs .. 5 ms on a log axis: one tick per decade, 1 to 10,000 µs.
        let mut h = crate::new_histogram();
        for v in 2..=5_000u64 {
            h.record(v * 1000).unwrap();
        }
        let log = svg_scaled("t", &[series_from_histogram("a", &h)], Scale::Log);
        for tick in ["1", "10", "100", "1000", "10000"] {
            assert!(log.contains(&format!(">{tick}</text>")), "{tick}: {log}");
        }
        assert!(!log.contains(">100000</text>") && !log.contains(">0.1</text>"));
    }
}

//! Where a benchmark's results go: its JSON file, and the percentile plot beside it.

use std::path::{Path, PathBuf};

use peregrine_report::plot::{self, Scale, Series};

use crate::report::{self, Aggregate, Record};
use crate::{Error, Result};

/// Writes `{"bench", "config", "results", "runs"}` to `out` ([`report::write_json`]).
///
/// ```
/// let out = std::env::temp_dir().join(format!("peregrine-results-{}.json", std::process::id()));
/// peregrine_bench::results::write_json(&out, "demo", serde_json::json!({"runs": 1}), &[], &[])?;
/// let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
/// assert_eq!((json["bench"].as_str(), json["config"]["runs"].as_u64()), (Some("demo"), Some(1)));
/// # std::fs::remove_file(&out).unwrap();
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Output`] when the file cannot be written.
pub fn write_json(
    out: &Path,
    bench: &str,
    config: serde_json::Value,
    aggs: &[Aggregate],
    runs: &[Record],
) -> Result<()> {
    report::write_json(out, bench, config, aggs, runs).map_err(|e| Error::output(out, e))
}

/// Plots `series` beside `out` (its `.svg`, [`plot::svg_beside`]) on a log latency axis:
/// the engines differ by orders of magnitude. Returns the plot's path.
///
/// ```
/// use peregrine_bench::report::plot::Series;
/// let out = std::env::temp_dir().join(format!("peregrine-plot-{}.json", std::process::id()));
/// let series = [Series { name: "demo".into(), points: vec![(50.0, 10.0), (99.0, 20.0)] }];
/// let svg = peregrine_bench::results::plot_beside(&out, "demo, µs", &series)?;
/// assert_eq!(svg, out.with_extension("svg"));
/// assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
/// # std::fs::remove_file(&svg).unwrap();
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Output`] when the plot cannot be written.
pub fn plot_beside(out: &Path, title: &str, series: &[Series]) -> Result<PathBuf> {
    let svg = plot::svg_beside(out);
    plot::write_svg(&svg, title, series, Scale::Log).map_err(|e| Error::output(&svg, e))?;
    Ok(svg)
}

//! Where a benchmark's results go: its JSON file, and the percentile plot beside it.

use std::path::{Path, PathBuf};

use peregrine_report::plot::{self, Scale, Series};

use crate::report::{self, Aggregate, Record};
use crate::{Error, Result};

/// Writes `{"bench", "config", "results", "runs"}` to `out` ([`report::write_json`]).
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
/// # Errors
///
/// [`Error::Output`] when the plot cannot be written.
pub fn plot_beside(out: &Path, title: &str, series: &[Series]) -> Result<PathBuf> {
    let svg = plot::svg_beside(out);
    plot::write_svg(&svg, title, series, Scale::Log).map_err(|e| Error::output(&svg, e))?;
    Ok(svg)
}

//! # peregrine-report
//!
//! The reporting that `peregrine run` (the trading topology's demo, in
//! `peregrine-topology`) and `peregrine bench` (`peregrine-bench`) share, kept
//! once, below both: the topology crate does not depend on the benchmarks.
//!
//! * Result records ([`Record`], [`Stats`]), medians across runs
//!   ([`aggregate`], [`Aggregate`]), the benchmarks' Markdown table
//!   ([`markdown_table`]) and the JSON file ([`write_json`]).
//! * [`round_trip`]: a round-trip HDR histogram as a record, and its table (µs).
//! * [`plot`]: HDR percentile plots as SVG.
//! * [`progress`]: a progress bar on stderr.
//! * [`machine`], [`load_average`], [`repo_root`]: what the run was on and where
//!   results go.
#![forbid(unsafe_code)]

pub mod plot;
pub mod progress;
mod records;
pub mod round_trip;

pub use records::{
    aggregate, find, markdown_table, settings_by_case, write_json, Aggregate, Record, Stats,
};

use hdrhistogram::Histogram;
use std::path::PathBuf;

/// Where the repository is: `PEREGRINE_ROOT`, or found upward from the current directory
/// (the first directory holding `peers/` and `Cargo.toml`).
pub fn repo_root() -> PathBuf {
    if let Ok(p) = std::env::var("PEREGRINE_ROOT") {
        return PathBuf::from(p);
    }
    let mut dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    loop {
        if dir.join("peers").is_dir() && dir.join("Cargo.toml").is_file() {
            return dir;
        }
        if !dir.pop() {
            return PathBuf::from(".");
        }
    }
}

/// The machine the run is on: CPU model, cores, load average at the start.
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{model}, {cores} cores, load average {}", load_average())
}

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// A histogram for nanosecond latencies from 1 ns to 100 s, 3 significant digits.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 100_000_000_000, 3).expect("valid bounds")
}

/// Microseconds of a nanosecond histogram's quantile `q` (0..=1).
///
/// ```
/// let mut h = peregrine_report::new_histogram();
/// h.record(2_000).unwrap();
/// assert_eq!(peregrine_report::us(&h, 0.5), 2.0);
/// ```
pub fn us(h: &Histogram<u64>, q: f64) -> f64 {
    h.value_at_quantile(q) as f64 / 1000.0
}

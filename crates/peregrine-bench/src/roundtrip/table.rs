//! The round trip's Markdown table: one row per config × engine, µs, with each engine's
//! p50 and p99 as multiples of Peregrine's in the same config.

use super::RtConfig;
use crate::report::{self, Aggregate};
use peregrine_report::round_trip::{latency_cells, ratio, LATENCY_HEADER};

/// The table of `aggs` (µs), configs in the order given, engines in report order.
///
/// ```
/// use peregrine_bench::report::{aggregate, Record, Stats};
/// use peregrine_bench::roundtrip::{table::markdown, RtConfig};
/// let rec = |engine: &str, p50: f64| Record { engine: engine.into(), case: "optimized".into(), unit: "us".into(),
///     stats: Stats { p50, p99: 2.0 * p50, ..Stats::default() }, allocs_per_op: None, settings: String::new() };
/// let t = markdown(&aggregate(&[rec("peregrine", 20.0), rec("quickfixj", 80.0)]), &[RtConfig::Optimized]);
/// assert!(t.contains("| optimized | quickfixj |") && t.contains("| 4.00× |"));
/// ```
pub fn markdown(aggs: &[Aggregate], configs: &[RtConfig]) -> String {
    let (head, align) = LATENCY_HEADER;
    let mut s = format!(
        "| config | engine | {head} | p50 ÷ peregrine | p99 ÷ peregrine |\n|---|---|{align}|---:|---:|\n"
    );
    for config in configs {
        let ours = report::find(aggs, "peregrine", config.name());
        for engine in super::driver::ENGINES {
            let Some(a) = report::find(aggs, engine, config.name()) else {
                continue;
            };
            s.push_str(&format!(
                "| {config} | {engine} | {} | {} | {} |\n",
                latency_cells(a),
                ratio(a, ours, |s| s.p50),
                ratio(a, ours, |s| s.p99),
            ));
        }
    }
    s
}

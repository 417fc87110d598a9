//! The round trip's Markdown table: one row per config × engine, µs, with each engine's
//! p50 and p99 as multiples of Peregrine's in the same config.

use super::RtConfig;
use crate::report::{self, Aggregate, Stats};

fn fmt_us(v: f64) -> String {
    if v >= 1000.0 {
        format!("{v:.0}")
    } else if v >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Allocations per round trip: a few in 100,000 (a store's arena growing) still show.
///
/// ```
/// use peregrine_bench::roundtrip::table::fmt_allocs;
/// assert_eq!([fmt_allocs(0.0), fmt_allocs(0.00003), fmt_allocs(2.5)], ["0", "0.00003", "2.50"]);
/// ```
pub fn fmt_allocs(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x < 0.01 {
        format!("{x:.5}")
    } else {
        format!("{x:.2}")
    }
}

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
    let mut s = String::from(
        "| config | engine | min | p50 (min–max of runs) | mean | p90 | p99 | p99.9 | max | round trips/s | allocs/round trip | p50 ÷ peregrine | p99 ÷ peregrine |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for config in configs {
        let ours = report::find(aggs, "peregrine", config.name());
        for engine in super::driver::ENGINES {
            let Some(a) = report::find(aggs, engine, config.name()) else {
                continue;
            };
            let ratio = |f: fn(&Stats) -> f64| match ours {
                Some(o) if engine != "peregrine" && f(&o.stats) > 0.0 => {
                    format!("{:.2}×", f(&a.stats) / f(&o.stats))
                }
                _ => "—".into(),
            };
            s.push_str(&format!(
                "| {config} | {engine} | {} | {} ({}–{}) | {} | {} | {} | {} | {} | {:.0} | {} | {} | {} |\n",
                fmt_us(a.stats.min),
                fmt_us(a.stats.p50),
                fmt_us(a.p50_range[0]),
                fmt_us(a.p50_range[1]),
                fmt_us(a.stats.mean),
                fmt_us(a.stats.p90),
                fmt_us(a.stats.p99),
                fmt_us(a.stats.p999),
                fmt_us(a.stats.max),
                a.stats.throughput_per_s,
                a.allocs_per_op.map_or("—".into(), fmt_allocs),
                ratio(|s| s.p50),
                ratio(|s| s.p99),
            ));
        }
    }
    s
}

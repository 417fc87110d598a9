//! A round trip timed into an HDR histogram (nanoseconds), as a [`Record`] and as a
//! Markdown table in microseconds: what `peregrine run` prints for Peregrine alone and
//! `peregrine bench e2e` for every engine side by side.

use crate::{find, Aggregate, Record, Stats};
use hdrhistogram::Histogram;

/// The one case of the trading topology's experiments.
pub const CASE: &str = "round_trip";

/// A record from a round-trip histogram (ns) and the wall time of the measured loop:
/// figures in µs, the mean from the wall time.
pub fn record_from_histogram(
    engine: &str,
    h: &Histogram<u64>,
    wall_secs: f64,
    allocs_per_op: Option<f64>,
    settings: String,
) -> Record {
    Record {
        engine: engine.into(),
        case: CASE.into(),
        unit: "us".into(),
        stats: stats_from_histogram(h, wall_secs, 1000.0),
        allocs_per_op,
        settings,
    }
}

/// The figures of a round-trip histogram (ns) whose measured round trips took
/// `wall_secs` in all, in units of `unit_ns` nanoseconds (1 for ns, 1000 for µs): the
/// mean is the wall time ÷ the count, the throughput the count ÷ the wall time.
///
/// ```
/// let mut h = peregrine_report::new_histogram();
/// for v in [1_000u64, 2_000] { h.record(v).unwrap(); }
/// let s = peregrine_report::round_trip::stats_from_histogram(&h, 0.5, 1000.0);
/// assert_eq!((s.min, s.max, s.mean, s.throughput_per_s), (1.0, 2.0, 250_000.0, 4.0));
/// ```
pub fn stats_from_histogram(h: &Histogram<u64>, wall_secs: f64, unit_ns: f64) -> Stats {
    let n = h.len().max(1) as f64;
    let at = |q: f64| h.value_at_quantile(q) as f64 / unit_ns;
    Stats {
        min: h.min() as f64 / unit_ns,
        p50: at(0.50),
        mean: wall_secs * (1e9 / unit_ns) / n,
        p90: at(0.90),
        p99: at(0.99),
        p999: at(0.999),
        max: h.max() as f64 / unit_ns,
        throughput_per_s: if wall_secs > 0.0 { n / wall_secs } else { 0.0 },
    }
}

/// A latency in µs with as many decimals as its size deserves.
///
/// ```
/// use peregrine_report::round_trip::fmt_us;
/// assert_eq!([fmt_us(8.856), fmt_us(340.27), fmt_us(1120.4)], ["8.86", "340.3", "1120"]);
/// ```
pub fn fmt_us(v: f64) -> String {
    crate::records::fmt_by_size(v, 100.0)
}

/// Allocations per round trip: a few in 100,000 (a store's arena growing) still show.
///
/// ```
/// use peregrine_report::round_trip::fmt_allocs;
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

/// The header cells that [`latency_cells`] fills, and their alignment row.
pub const LATENCY_HEADER: (&str, &str) = (
    "min | p50 (min–max of runs) | mean | p90 | p99 | p99.9 | max | round trips/s | allocs/round trip",
    "---:|---:|---:|---:|---:|---:|---:|---:|---:",
);

/// One aggregate's cells of a round-trip table (µs), without the outer pipes: min, p50
/// with the range of the runs' p50s, mean, p90, p99, p99.9, max, round trips/s and
/// allocations per round trip.
///
/// ```
/// use peregrine_report::{aggregate, round_trip::latency_cells, Record, Stats};
/// let rec = Record { engine: "peregrine".into(), case: "round_trip".into(), unit: "us".into(),
///     stats: Stats { p50: 8.5, throughput_per_s: 100.0, ..Stats::default() }, allocs_per_op: Some(0.0), settings: String::new() };
/// assert_eq!(latency_cells(&aggregate(&[rec])[0]), "0.00 | 8.50 (8.50–8.50) | 0.00 | 0.00 | 0.00 | 0.00 | 0.00 | 100 | 0");
/// ```
pub fn latency_cells(a: &Aggregate) -> String {
    format!(
        "{} | {} ({}–{}) | {} | {} | {} | {} | {} | {:.0} | {}",
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
    )
}

/// `a`'s figure as a multiple of Peregrine's (`ours`), or `—` for Peregrine itself and
/// when Peregrine has no figure.
///
/// ```
/// use peregrine_report::{aggregate, round_trip::ratio, Record, Stats};
/// let rec = |engine: &str, p50: f64| Record { engine: engine.into(), case: "c".into(), unit: "us".into(),
///     stats: Stats { p50, ..Stats::default() }, allocs_per_op: None, settings: String::new() };
/// let aggs = aggregate(&[rec("peregrine", 10.0), rec("quickfixj", 45.0)]);
/// assert_eq!(ratio(&aggs[1], Some(&aggs[0]), |s| s.p50), "4.50×");
/// assert_eq!(ratio(&aggs[0], Some(&aggs[0]), |s| s.p50), "—");
/// ```
pub fn ratio(a: &Aggregate, ours: Option<&Aggregate>, f: fn(&Stats) -> f64) -> String {
    match ours {
        Some(o) if a.engine != "peregrine" && f(&o.stats) > 0.0 => {
            format!("{:.2}×", f(&a.stats) / f(&o.stats))
        }
        _ => "—".into(),
    }
}

/// The results as a Markdown table (µs), one row per engine, with each engine's p50
/// and p99.9 as multiples of Peregrine's (columns left out when Peregrine is alone).
pub fn markdown_table(aggs: &[Aggregate]) -> String {
    let ratios = aggs.iter().any(|a| a.engine != "peregrine");
    let (head, align) = LATENCY_HEADER;
    let mut s = format!("| engine | {head} |");
    if ratios {
        s.push_str(&format!(
            " p50 ÷ peregrine | p99.9 ÷ peregrine |\n|---|{align}|---:|---:|\n"
        ));
    } else {
        s.push_str(&format!("\n|---|{align}|\n"));
    }
    let ours = find(aggs, "peregrine", CASE);
    for a in aggs.iter().filter(|a| a.case == CASE) {
        s.push_str(&format!("| {} | {} |", a.engine, latency_cells(a)));
        if ratios {
            s.push_str(&format!(
                " {} | {} |",
                ratio(a, ours, |s| s.p50),
                ratio(a, ours, |s| s.p999)
            ));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_from_a_histogram() {
        let mut h = crate::new_histogram();
        for v in 1..=1000u64 {
            h.record(v * 1000).unwrap();
        }
        let r = record_from_histogram("floor", &h, 0.5, None, String::new());
        assert_eq!(r.unit, "us");
        assert!((r.stats.p50 - 500.0).abs() < 1.0);
        assert!((r.stats.mean - 500.0).abs() < 1e-9);
        assert!((r.stats.throughput_per_s - 2000.0).abs() < 1e-9);
        // HDR keeps 3 significant digits: the max is within 0.1 % of 1,000 µs.
        assert!((r.stats.max - 1000.0).abs() <= 1.0, "{}", r.stats.max);
    }
}

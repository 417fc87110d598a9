//! The results as JSON records and Markdown tables.

use hdrhistogram::Histogram;

use super::case::SendCase;
use crate::report::{us, Aggregate, Record, Stats};

pub(super) fn latency_record(
    case: &str,
    h: &Histogram<u64>,
    c: &SendCase,
    settings: String,
) -> Record {
    Record {
        engine: "peregrine".into(),
        case: case.into(),
        unit: "us".into(),
        stats: Stats {
            min: h.min() as f64 / 1000.0,
            p50: us(h, 0.50),
            mean: h.mean() / 1000.0,
            p90: us(h, 0.90),
            p99: us(h, 0.99),
            p999: us(h, 0.999),
            max: h.max() as f64 / 1000.0,
            throughput_per_s: c.per_second,
        },
        allocs_per_op: c.allocs_per_message(),
        settings,
    }
}

pub(super) fn throughput_record(c: &SendCase, settings: String) -> Record {
    let per = c.seconds * 1e6 / c.delivered.max(1) as f64;
    Record {
        engine: "peregrine".into(),
        case: c.case.clone(),
        unit: "us".into(),
        stats: Stats {
            mean: per,
            throughput_per_s: c.per_second,
            ..Stats::default()
        },
        allocs_per_op: c.allocs_per_message(),
        settings,
    }
}

pub(super) fn fmt(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

pub(super) fn allocs_text(a: Option<f64>) -> String {
    a.map_or("not counted".into(), |a| format!("{a}"))
}

/// The results as two Markdown tables: latency (µs; medians across runs, the per-run
/// p50s' min–max beside) and throughput (sends/s; median, min–max across runs).
///
/// ```
/// use peregrine_bench::send::{tables, SendCase};
/// let case = SendCase { case: "throughput_1p_spin".into(), run: 1, idle: "busy-spin".into(),
///     producers: 1, sent: 10, delivered: 10, warmup: 0, seconds: 0.5, per_second: 20.0,
///     queue_full: 3, pool_warm: true, allocations: Some(0) };
/// let text = tables(&[], &[case]);
/// assert!(text.contains("| throughput_1p_spin | busy-spin | 1 | 20 (20–20) |"));
/// ```
pub fn tables(aggs: &[Aggregate], cases: &[SendCase]) -> String {
    let mut s = String::new();
    let latency: Vec<&Aggregate> = aggs
        .iter()
        .filter(|a| a.case.contains("latency") || a.case.starts_with("send_call"))
        .collect();
    if !latency.is_empty() {
        s.push_str("| case | min | p50 (min–max of runs) | mean | p90 | p99 | p99.9 | max | allocs/msg |\n");
        s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for a in latency {
            let st = &a.stats;
            s.push_str(&format!(
                "| {} | {} | {} ({}–{}) | {} | {} | {} | {} | {} | {} |\n",
                a.case,
                fmt(st.min),
                fmt(st.p50),
                fmt(a.p50_range[0]),
                fmt(a.p50_range[1]),
                fmt(st.mean),
                fmt(st.p90),
                fmt(st.p99),
                fmt(st.p999),
                fmt(st.max),
                allocs_text(a.allocs_per_op),
            ));
        }
        s.push('\n');
    }
    let mut names: Vec<&str> = Vec::new();
    for c in cases.iter().filter(|c| c.case.starts_with("throughput")) {
        if !names.contains(&c.case.as_str()) {
            names.push(&c.case);
        }
    }
    if !names.is_empty() {
        s.push_str("| case | idle | producers | sends/s, median (min–max of runs) | µs/msg | QueueFull retries/msg | queue full in warm-up | allocs/msg |\n");
        s.push_str("|---|---|---:|---:|---:|---:|---|---:|\n");
        for name in names {
            let runs: Vec<&SendCase> = cases.iter().filter(|c| c.case == name).collect();
            let med = |f: fn(&SendCase) -> f64| {
                let mut v: Vec<f64> = runs.iter().map(|c| f(c)).collect();
                v.sort_by(f64::total_cmp);
                let n = v.len();
                if n % 2 == 1 {
                    v[n / 2]
                } else {
                    (v[n / 2 - 1] + v[n / 2]) / 2.0
                }
            };
            let rate = med(|c| c.per_second);
            let lo = runs
                .iter()
                .map(|c| c.per_second)
                .fold(f64::INFINITY, f64::min);
            let hi = runs.iter().map(|c| c.per_second).fold(0.0, f64::max);
            let allocs = runs
                .iter()
                .filter_map(|c| c.allocs_per_message())
                .fold(None, |m: Option<f64>, a| Some(m.map_or(a, |m| m.max(a))));
            s.push_str(&format!(
                "| {name} | {} | {} | {rate:.0} ({lo:.0}–{hi:.0}) | {} | {} | {} | {} |\n",
                runs[0].idle,
                runs[0].producers,
                fmt(1e6 / rate.max(1e-9)),
                fmt(med(|c| c.queue_full as f64 / c.sent.max(1) as f64)),
                if runs.iter().all(|c| c.pool_warm) {
                    "yes"
                } else {
                    "not in every run"
                },
                allocs_text(allocs),
            ));
        }
    }
    s
}

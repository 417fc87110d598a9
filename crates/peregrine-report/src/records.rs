//! Result records, aggregation across runs, and the Markdown/JSON reports.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Summary of one measured case in one run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Stats {
    /// Fastest operation.
    pub min: f64,
    /// Median.
    pub p50: f64,
    /// Batch mean (one timed batch divided by its count).
    pub mean: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Slowest operation.
    pub max: f64,
    /// Operations per second from the mean.
    pub throughput_per_s: f64,
}

impl Stats {
    /// Stats from a batch mean and per-operation samples (sorted in place).
    pub fn from_samples(mean: f64, samples: &mut [f64]) -> Stats {
        samples.sort_unstable_by(|a, b| a.total_cmp(b));
        let q = |p: f64| -> f64 {
            if samples.is_empty() {
                return 0.0;
            }
            let i = ((samples.len() as f64 * p).ceil() as usize).clamp(1, samples.len()) - 1;
            samples[i]
        };
        Stats {
            min: samples.first().copied().unwrap_or(0.0),
            p50: q(0.50),
            mean,
            p90: q(0.90),
            p99: q(0.99),
            p999: q(0.999),
            max: samples.last().copied().unwrap_or(0.0),
            throughput_per_s: if mean > 0.0 { 1e9 / mean } else { 0.0 },
        }
    }
}

/// One engine's result for one case in one run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// `peregrine`, `quickfix-cpp`, `quickfixj`, …
    pub engine: String,
    /// Case name.
    pub case: String,
    /// Unit of the time figures (`ns` or `us`).
    pub unit: String,
    /// The figures.
    #[serde(flatten)]
    pub stats: Stats,
    /// Allocations per operation (measured for Peregrine only).
    pub allocs_per_op: Option<f64>,
    /// How the engine was set up, as the harness reports it.
    #[serde(default)]
    pub settings: String,
}

/// The median across runs of one engine × case, with the spread.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Aggregate {
    /// Engine name.
    pub engine: String,
    /// Case name.
    pub case: String,
    /// Unit of the time figures.
    pub unit: String,
    /// Medians across runs, figure by figure.
    #[serde(flatten)]
    pub stats: Stats,
    /// Median allocations per operation across runs.
    pub allocs_per_op: Option<f64>,
    /// Number of runs.
    pub runs: usize,
    /// Smallest and largest p50 across runs.
    pub p50_range: [f64; 2],
    /// Smallest and largest mean across runs.
    pub mean_range: [f64; 2],
    /// Settings of the engine.
    pub settings: String,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_unstable_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn range(v: &[f64]) -> [f64; 2] {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    [lo, hi]
}

/// Groups records by (case, engine) keeping first-seen order, and takes medians.
pub fn aggregate(records: &[Record]) -> Vec<Aggregate> {
    let mut order: Vec<(String, String)> = Vec::new();
    let mut groups: BTreeMap<(String, String), Vec<&Record>> = BTreeMap::new();
    for r in records {
        let key = (r.case.clone(), r.engine.clone());
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(r);
    }
    order.sort_by_key(|(case, _)| {
        records
            .iter()
            .position(|r| &r.case == case)
            .unwrap_or(usize::MAX)
    });
    order
        .into_iter()
        .map(|key| {
            let rs = &groups[&key];
            let f = |g: fn(&Stats) -> f64| median(rs.iter().map(|r| g(&r.stats)).collect());
            let p50s: Vec<f64> = rs.iter().map(|r| r.stats.p50).collect();
            let means: Vec<f64> = rs.iter().map(|r| r.stats.mean).collect();
            let allocs: Vec<f64> = rs.iter().filter_map(|r| r.allocs_per_op).collect();
            Aggregate {
                engine: key.1.clone(),
                case: key.0.clone(),
                unit: rs[0].unit.clone(),
                stats: Stats {
                    min: f(|s| s.min),
                    p50: f(|s| s.p50),
                    mean: f(|s| s.mean),
                    p90: f(|s| s.p90),
                    p99: f(|s| s.p99),
                    p999: f(|s| s.p999),
                    max: f(|s| s.max),
                    throughput_per_s: f(|s| s.throughput_per_s),
                },
                allocs_per_op: (!allocs.is_empty()).then(|| median(allocs)),
                runs: rs.len(),
                p50_range: range(&p50s),
                mean_range: range(&means),
                settings: rs[0].settings.clone(),
            }
        })
        .collect()
}

/// The aggregate of `engine` on `case`.
pub fn find<'a>(aggs: &'a [Aggregate], engine: &str, case: &str) -> Option<&'a Aggregate> {
    aggs.iter().find(|a| a.engine == engine && a.case == case)
}

/// Each aggregate's settings keyed `engine case`, sorted: the `settings` a benchmark's
/// JSON reports and prints.
///
/// ```
/// use peregrine_report::{aggregate, settings_by_case, Record, Stats};
/// let rec = Record { engine: "floor".into(), case: "optimized".into(), unit: "us".into(),
///     stats: Stats::default(), allocs_per_op: None, settings: "TCP".into() };
/// assert_eq!(settings_by_case(&aggregate(&[rec]))["floor optimized"], "TCP");
/// ```
pub fn settings_by_case(aggs: &[Aggregate]) -> BTreeMap<String, String> {
    aggs.iter()
        .map(|a| (format!("{} {}", a.engine, a.case), a.settings.clone()))
        .collect()
}

/// `v` with as many decimals as its size deserves: none from 1000, one from
/// `one_decimal_from`, two below.
pub(crate) fn fmt_by_size(v: f64, one_decimal_from: f64) -> String {
    if v >= 1000.0 {
        format!("{v:.0}")
    } else if v >= one_decimal_from {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn fmt_num(v: f64) -> String {
    fmt_by_size(v, 10.0)
}

/// A Markdown table: one row per case × engine, with the ratio of each peer
/// to Peregrine on the mean and p50.
pub fn markdown_table(aggs: &[Aggregate]) -> String {
    let mut s = String::new();
    s.push_str("| case | engine | mean | p50 (min–max across runs) | p90 | p99 | p99.9 | max | msg/s | allocs/op | mean ÷ peregrine |\n");
    s.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for a in aggs {
        let ours = find(aggs, "peregrine", &a.case);
        let ratio = match ours {
            Some(o) if a.engine != "peregrine" && o.stats.mean > 0.0 => {
                format!("{:.1}×", a.stats.mean / o.stats.mean)
            }
            _ => "—".into(),
        };
        s.push_str(&format!(
            "| {} | {} | {} {u} | {} ({}–{}) | {} | {} | {} | {} | {:.0} | {} | {} |\n",
            a.case,
            a.engine,
            fmt_num(a.stats.mean),
            fmt_num(a.stats.p50),
            fmt_num(a.p50_range[0]),
            fmt_num(a.p50_range[1]),
            fmt_num(a.stats.p90),
            fmt_num(a.stats.p99),
            fmt_num(a.stats.p999),
            fmt_num(a.stats.max),
            a.stats.throughput_per_s,
            a.allocs_per_op.map_or("—".into(), |x| format!("{x:.3}")),
            ratio,
            u = a.unit,
        ));
    }
    s
}

/// Writes `{"bench", "config", "results"}` to `path`, creating its folder.
pub fn write_json(
    path: &Path,
    bench: &str,
    config: serde_json::Value,
    aggs: &[Aggregate],
    runs: &[Record],
) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let doc = serde_json::json!({
        "bench": bench,
        "config": config,
        "results": aggs,
        "runs": runs,
    });
    std::fs::write(path, serde_json::to_string_pretty(&doc)? + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(engine: &str, case: &str, mean: f64) -> Record {
        Record {
            engine: engine.into(),
            case: case.into(),
            unit: "ns".into(),
            stats: Stats {
                mean,
                p50: mean,
                ..Default::default()
            },
            allocs_per_op: None,
            settings: String::new(),
        }
    }

    #[test]
    fn percentiles_from_samples() {
        let mut v: Vec<f64> = (1..=1000).map(|x| x as f64).collect();
        let s = Stats::from_samples(5.0, &mut v);
        assert_eq!(
            (s.min, s.p50, s.p90, s.p99, s.p999, s.max),
            (1.0, 500.0, 900.0, 990.0, 999.0, 1000.0)
        );
        assert_eq!(s.throughput_per_s, 2e8);
    }

    #[test]
    fn median_across_runs_and_ranges() {
        let rs = vec![
            rec("a", "x", 3.0),
            rec("b", "x", 10.0),
            rec("a", "x", 1.0),
            rec("a", "x", 2.0),
        ];
        let aggs = aggregate(&rs);
        let a = find(&aggs, "a", "x").unwrap();
        assert_eq!(a.stats.mean, 2.0);
        assert_eq!(a.runs, 3);
        assert_eq!(a.mean_range, [1.0, 3.0]);
        assert_eq!(find(&aggs, "b", "x").unwrap().stats.mean, 10.0);
    }
}

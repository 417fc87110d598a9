//! The gateway's targets (issue 25 §5), from the medians of one invocation: Peregrine's
//! router p50 ≤ ¼ of QuickFIX/J's router's at each session count, orders/s ≥ 5× at 100
//! sessions, 0 allocations per order in Peregrine's router. A missed target is printed
//! as missed; it never fails the command.

use crate::report::{self, Aggregate};

pub use crate::e2e::{targets_text, Target};

/// The case name of `n` client sessions.
///
/// ```
/// assert_eq!(peregrine_bench::gateway::targets::case(100), "sessions-100");
/// ```
pub fn case(n: usize) -> String {
    format!("sessions-{n}")
}

/// The targets the routers that ran allow (see the [module documentation](self)).
///
/// ```
/// use peregrine_bench::gateway::targets::targets;
/// use peregrine_bench::report::{aggregate, Record, Stats};
/// let rec = |engine: &str, p50: f64, per_s: f64, allocs: Option<f64>| Record {
///     engine: engine.into(), case: "sessions-100".into(), unit: "us".into(),
///     stats: Stats { p50, throughput_per_s: per_s, ..Stats::default() },
///     allocs_per_op: allocs, settings: String::new(),
/// };
/// let t = targets(&aggregate(&[
///     rec("peregrine", 100.0, 20_000.0, Some(0.0)),
///     rec("quickfixj", 300.0, 5_000.0, None),
/// ]), &[100]);
/// assert_eq!(t.len(), 3);
/// assert!(!t[0].met); // 100 > 300 / 4
/// assert!(!t[1].met); // 4× < 5×
/// assert!(t[2].met);  // no allocation
/// ```
pub fn targets(aggs: &[Aggregate], sessions: &[usize]) -> Vec<Target> {
    let mut t = Vec::new();
    for &n in sessions {
        let c = case(n);
        let Some(ours) = report::find(aggs, "peregrine", &c) else {
            continue;
        };
        if let Some(qfj) = report::find(aggs, "quickfixj", &c) {
            let (o, q) = (ours.stats.p50, qfj.stats.p50);
            t.push(Target {
                goal: format!("{c}: p50 ≤ ¼ of the QuickFIX/J router's"),
                measured: format!(
                    "{o:.1} µs against {q:.1} µs ({:.2}× theirs, target ≤ 0.25×)",
                    o / q.max(f64::MIN_POSITIVE)
                ),
                met: o <= q / 4.0,
            });
            if n == 100 {
                let (o, q) = (ours.stats.throughput_per_s, qfj.stats.throughput_per_s);
                t.push(Target {
                    goal: format!("{c}: orders/s ≥ 5× the QuickFIX/J router's"),
                    measured: format!(
                        "{o:.0} against {q:.0} ({:.2}×)",
                        o / q.max(f64::MIN_POSITIVE)
                    ),
                    met: o >= 5.0 * q,
                });
            }
        }
        if let Some(a) = ours.allocs_per_op {
            t.push(Target {
                goal: format!("{c}: 0 allocations per order in Peregrine's router"),
                measured: format!("{a:.5} per order"),
                met: a == 0.0,
            });
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{aggregate, Record, Stats};

    fn rec(engine: &str, n: usize, p50: f64, per_s: f64, allocs: Option<f64>) -> Record {
        Record {
            engine: engine.into(),
            case: case(n),
            unit: "us".into(),
            stats: Stats {
                p50,
                throughput_per_s: per_s,
                ..Stats::default()
            },
            allocs_per_op: allocs,
            settings: String::new(),
        }
    }

    #[test]
    fn met_missed_and_left_out() {
        let aggs = aggregate(&[
            rec("peregrine", 1, 20.0, 40_000.0, Some(0.0)),
            rec("quickfixj", 1, 100.0, 9_000.0, None),
            rec("peregrine", 100, 80.0, 60_000.0, Some(2.5)),
            rec("quickfixj", 100, 300.0, 10_000.0, None),
        ]);
        let t = targets(&aggs, &[1, 100]);
        let met: Vec<(bool, &str)> = t.iter().map(|t| (t.met, t.goal.as_str())).collect();
        assert_eq!(
            met,
            [
                (true, "sessions-1: p50 ≤ ¼ of the QuickFIX/J router's"),
                (
                    true,
                    "sessions-1: 0 allocations per order in Peregrine's router"
                ),
                (false, "sessions-100: p50 ≤ ¼ of the QuickFIX/J router's"),
                (true, "sessions-100: orders/s ≥ 5× the QuickFIX/J router's"),
                (
                    false,
                    "sessions-100: 0 allocations per order in Peregrine's router"
                ),
            ]
        );
        // Without the peer only the allocation target is left.
        let ours = aggregate(&[rec("peregrine", 100, 80.0, 60_000.0, Some(0.0))]);
        assert_eq!(targets(&ours, &[100]).len(), 1);
    }
}

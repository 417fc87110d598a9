//! The targets of issue 12 for the round trip, and of issue 31 for `production` (logs on),
//! from the medians of one invocation: each met or missed with its figures. A missed
//! target never fails the command.

use super::RtConfig;
use crate::report::{self, Aggregate, Stats};

pub use crate::e2e::{targets_text, Target};

/// The published figures the report prints for scale (µs): engine, config, p50, p99.
///
/// ```
/// assert_eq!(peregrine_bench::roundtrip::targets::ANCHORS.len(), 3);
/// ```
pub const ANCHORS: [(&str, &str, f64, f64); 3] = [
    ("FIX Antenna Java", "optimized", 29.5, 57.6),
    ("FIX Antenna Java", "balanced", 43.0, 74.8),
    ("QuickFIX/J", "(FIX Antenna's run)", 113.5, 1336.0),
];

/// The anchors as text lines.
///
/// ```
/// assert!(peregrine_bench::roundtrip::targets::anchors_text().contains("29.5"));
/// ```
pub fn anchors_text() -> String {
    let mut s = String::from("Published anchors (other machines, for scale only), p50 / p99 µs:\n");
    for (engine, config, p50, p99) in ANCHORS {
        s.push_str(&format!("  {engine} {config}: {p50} / {p99}\n"));
    }
    s
}

/// The targets that the engines which ran allow: Peregrine's p50 ≤ ¼ of QuickFIX/J's and
/// of QuickFIX C++'s and its p99 ≤ ⅒ of QuickFIX/J's, in balanced and in optimized;
/// optimized p50 ≤ 1.3× the floor's; balanced p50 ≤ 1.5× optimized; and with the logs
/// on (issue 31 §3): production p50 within 0.5 µs of balanced and p99 within 2 µs,
/// production p50 ≤ ⅒ of QuickFIX/J's production p50.
///
/// ```
/// use peregrine_bench::report::{aggregate, Record, Stats};
/// use peregrine_bench::roundtrip::targets;
/// let rec = |engine: &str, case: &str, p50: f64, p99: f64| Record {
///     engine: engine.into(), case: case.into(), unit: "us".into(),
///     stats: Stats { p50, p99, ..Stats::default() }, allocs_per_op: None, settings: String::new(),
/// };
/// let t = targets(&aggregate(&[
///     rec("peregrine", "optimized", 20.0, 30.0),
///     rec("floor", "optimized", 18.0, 25.0),
/// ]));
/// assert_eq!(t.len(), 1);
/// assert!(t[0].met); // 20 ≤ 1.3 × 18
/// ```
pub fn targets(aggs: &[Aggregate]) -> Vec<Target> {
    let mut t = Vec::new();
    let find = |engine: &str, config: RtConfig| report::find(aggs, engine, config.name());
    for config in [RtConfig::Balanced, RtConfig::Optimized] {
        let Some(ours) = find("peregrine", config) else {
            continue;
        };
        let o = &ours.stats;
        for (engine, name) in [
            ("quickfixj", "QuickFIX/J"),
            ("quickfix-cpp", "QuickFIX C++"),
        ] {
            if let Some(p) = find(engine, config) {
                t.push(ratio(
                    format!("{config}: p50 ≤ ¼ of {name}'s"),
                    o,
                    &p.stats,
                    |s| s.p50,
                    0.25,
                ));
            }
        }
        if let Some(p) = find("quickfixj", config) {
            t.push(ratio(
                format!("{config}: p99 ≤ ⅒ of QuickFIX/J's"),
                o,
                &p.stats,
                |s| s.p99,
                0.1,
            ));
        }
    }
    if let (Some(o), Some(f)) = (
        find("peregrine", RtConfig::Optimized),
        find("floor", RtConfig::Optimized),
    ) {
        let mut target = p50_within("optimized: p50 ≤ 1.3× the TCP floor's", o, f, 1.3);
        target.measured += &format!(
            " (per-run p50s {:.2}–{:.2} vs {:.2}–{:.2})",
            o.p50_range[0], o.p50_range[1], f.p50_range[0], f.p50_range[1]
        );
        t.push(target);
    }
    if let (Some(b), Some(o)) = (
        find("peregrine", RtConfig::Balanced),
        find("peregrine", RtConfig::Optimized),
    ) {
        t.push(p50_within("balanced p50 ≤ 1.5× optimized p50", b, o, 1.5));
    }
    if let Some(p) = find("peregrine", RtConfig::Production) {
        if let Some(b) = find("peregrine", RtConfig::Balanced) {
            t.push(added(
                "production p50 ≤ balanced p50 + 0.5 µs (the logs' cost)",
                p.stats.p50,
                b.stats.p50,
                0.5,
            ));
            t.push(added(
                "production p99 ≤ balanced p99 + 2 µs",
                p.stats.p99,
                b.stats.p99,
                2.0,
            ));
        }
        if let Some(j) = find("quickfixj", RtConfig::Production) {
            t.push(ratio(
                "production: p50 ≤ ⅒ of QuickFIX/J's (≥ 10× faster)".into(),
                &p.stats,
                &j.stats,
                |s| s.p50,
                0.1,
            ));
        }
    }
    t
}

/// `with` at most `slack` µs above `without`: both figures and the difference.
fn added(goal: &str, with: f64, without: f64, slack: f64) -> Target {
    Target {
        goal: goal.into(),
        measured: format!("{with:.2} µs vs {without:.2} µs: {:+.2} µs", with - without),
        met: with <= without + slack,
    }
}

/// `a`'s p50 at most `factor` × `b`'s: both figures and their ratio.
fn p50_within(goal: &str, a: &Aggregate, b: &Aggregate, factor: f64) -> Target {
    let (x, y) = (a.stats.p50, b.stats.p50);
    Target {
        goal: goal.into(),
        measured: format!("{x:.2} µs vs {y:.2} µs: {:.2}×", x / y),
        met: x <= factor * y,
    }
}

fn ratio(
    goal: String,
    ours: &Stats,
    peer: &Stats,
    figure: fn(&Stats) -> f64,
    share: f64,
) -> Target {
    let (o, p) = (figure(ours), figure(peer));
    Target {
        goal,
        measured: format!(
            "{o:.2} µs vs {p:.2} µs: {:.3} of it ({:.1}× faster)",
            o / p,
            p / o
        ),
        met: o <= share * p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Record;

    fn rec(engine: &str, case: &str, p50: f64, p99: f64) -> Record {
        Record {
            engine: engine.into(),
            case: case.into(),
            unit: "us".into(),
            stats: Stats {
                p50,
                p99,
                ..Stats::default()
            },
            allocs_per_op: None,
            settings: String::new(),
        }
    }

    #[test]
    fn every_target_met_and_missed() {
        let aggs = report::aggregate(&[
            rec("peregrine", "balanced", 30.0, 50.0),
            rec("quickfixj", "balanced", 100.0, 1000.0),
            rec("quickfix-cpp", "balanced", 130.0, 400.0),
            rec("floor", "balanced", 15.0, 20.0),
            rec("peregrine", "optimized", 19.0, 40.0),
            rec("quickfixj", "optimized", 80.0, 300.0),
            rec("quickfix-cpp", "optimized", 70.0, 200.0),
            rec("floor", "optimized", 15.0, 20.0),
            rec("peregrine", "fsync", 9000.0, 12000.0),
            rec("peregrine", "production", 30.4, 53.0),
            rec("quickfixj", "production", 250.0, 2000.0),
        ]);
        let t = targets(&aggs);
        let met = |goal: &str| {
            t.iter()
                .find(|t| t.goal == goal)
                .map(|t| t.met)
                .unwrap_or_else(|| panic!("no target {goal:?} in {t:?}"))
        };
        assert!(!met("balanced: p50 ≤ ¼ of QuickFIX/J's")); // 30 > 25
        assert!(met("balanced: p50 ≤ ¼ of QuickFIX C++'s")); // 30 ≤ 32.5
        assert!(met("balanced: p99 ≤ ⅒ of QuickFIX/J's")); // 50 ≤ 100
        assert!(met("optimized: p50 ≤ ¼ of QuickFIX/J's")); // 19 ≤ 20
        assert!(!met("optimized: p50 ≤ ¼ of QuickFIX C++'s")); // 19 > 17.5
        assert!(!met("optimized: p99 ≤ ⅒ of QuickFIX/J's")); // 40 > 30
        assert!(met("optimized: p50 ≤ 1.3× the TCP floor's")); // 19 ≤ 19.5
        assert!(!met("balanced p50 ≤ 1.5× optimized p50")); // 30 > 28.5
        assert!(met(
            "production p50 ≤ balanced p50 + 0.5 µs (the logs' cost)"
        )); // +0.4
        assert!(!met("production p99 ≤ balanced p99 + 2 µs")); // +3
        assert!(!met("production: p50 ≤ ⅒ of QuickFIX/J's (≥ 10× faster)")); // 30.4 > 25
        assert_eq!(t.len(), 11);
        let text = targets_text(&t);
        assert_eq!(text.matches("MISSED").count(), 6, "{text}");
    }

    #[test]
    fn engines_that_did_not_run_leave_their_targets_out() {
        assert!(targets(&report::aggregate(&[rec("floor", "optimized", 1.0, 2.0)])).is_empty());
        let t = targets(&report::aggregate(&[rec("peregrine", "fsync", 1.0, 2.0)]));
        assert!(t.is_empty());
    }
}

//! The targets of issue 12 for scale, checked on the medians of one invocation: a
//! target whose figures are missing (its engine did not run) is left out.

use crate::e2e::Target;

/// The figures of one engine, medians across runs (`None`: not measured).
///
/// ```
/// use peregrine_bench::scale::targets::{targets, Figures};
/// let streaming_only = Figures { stream_memory: Some(2.5e6), ..Figures::default() };
/// assert_eq!(targets(&streaming_only, None, None).len(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// Streaming, in-memory store: msg/s.
    pub stream_memory: Option<f64>,
    /// Streaming, file store: msg/s.
    pub stream_file: Option<f64>,
    /// Many sessions by N: (N, logon-all ms, round trips/s, bytes per idle session).
    pub sessions: Vec<(usize, f64, f64, Option<f64>)>,
}

/// Streaming memory target, msg/s.
pub const STREAM_MEMORY: f64 = 2_000_000.0;
/// Streaming file-store target, msg/s.
pub const STREAM_FILE: f64 = 1_000_000.0;
/// Times QuickFIX/J's figures Peregrine's must be.
pub const PEER_FACTOR: f64 = 10.0;
/// All 1,000 sessions logged on within this, ms.
pub const LOGON_ALL_MS: f64 = 1_000.0;
/// Memory per idle session, bytes.
pub const BYTES_PER_SESSION: f64 = 128.0 * 1024.0;

/// The targets from Peregrine's and QuickFIX/J's figures; the many-sessions floor's
/// round trips/s (no FIX work on either side), when measured, stand beside the 10× one.
///
/// ```
/// use peregrine_bench::scale::targets::{targets, Figures};
/// let ours = Figures { stream_memory: Some(2.5e6), stream_file: Some(0.9e6), sessions: vec![(1000, 400.0, 2e5, Some(50_000.0))] };
/// let qfj = Figures { stream_memory: Some(2e5), stream_file: Some(5e4), sessions: vec![(1000, 3000.0, 3e4, None)] };
/// let floor = Figures { sessions: vec![(1000, 90.0, 2.4e5, None)], ..Figures::default() };
/// let t = targets(&ours, Some(&qfj), Some(&floor));
/// let met: Vec<bool> = t.iter().map(|t| t.met).collect();
/// assert_eq!(met, [true, true, false, true, true, false, true]);
/// assert!(t[5].measured.ends_with("(the TCP floor, no FIX work: 240000, 8.0×)"), "{}", t[5].measured);
/// ```
pub fn targets(ours: &Figures, qfj: Option<&Figures>, floor: Option<&Figures>) -> Vec<Target> {
    let mut t = Vec::new();
    let rate = |v: f64| format!("{:.0} msg/s", v);
    for (figure, peer, bound, name) in [
        (
            ours.stream_memory,
            qfj.and_then(|q| q.stream_memory),
            STREAM_MEMORY,
            "in-memory store",
        ),
        (
            ours.stream_file,
            qfj.and_then(|q| q.stream_file),
            STREAM_FILE,
            "file store",
        ),
    ] {
        let Some(v) = figure else { continue };
        t.push(Target {
            goal: format!("streaming, {name}: ≥ {}", rate(bound)),
            measured: rate(v),
            met: v >= bound,
        });
        if let Some(p) = peer {
            t.push(Target {
                goal: format!("streaming, {name}: ≥ 10× QuickFIX/J"),
                measured: format!("{} vs {}: {:.1}×", rate(v), rate(p), v / p),
                met: v >= PEER_FACTOR * p,
            });
        }
    }
    for &(n, logon_ms, rts, bytes) in &ours.sessions {
        if n == 1000 {
            t.push(Target {
                goal: "1,000 sessions: all logged on in < 1 s".into(),
                measured: format!("{logon_ms:.0} ms"),
                met: logon_ms < LOGON_ALL_MS,
            });
        }
        if let Some(&(_, _, p, _)) = qfj.and_then(|q| q.sessions.iter().find(|s| s.0 == n)) {
            t.push(Target {
                goal: format!("{n} sessions: round trips/s ≥ 10× QuickFIX/J's"),
                measured: match floor.and_then(|f| f.sessions.iter().find(|s| s.0 == n)) {
                    // How far the machine itself goes, with no FIX work on either side.
                    Some(&(_, _, f, _)) => format!(
                        "{rts:.0} vs {p:.0}: {:.1}× (the TCP floor, no FIX work: {f:.0}, {:.1}×)",
                        rts / p,
                        f / p
                    ),
                    None => format!("{rts:.0} vs {p:.0}: {:.1}×", rts / p),
                },
                met: rts >= PEER_FACTOR * p,
            });
        }
        if let (1000, Some(b)) = (n, bytes) {
            t.push(Target {
                goal: "1,000 sessions: acceptor memory ≤ 128 KiB per idle session".into(),
                measured: format!("{:.1} KiB", b / 1024.0),
                met: b <= BYTES_PER_SESSION,
            });
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_peers_only_the_absolute_targets() {
        let ours = Figures {
            stream_memory: Some(1.9e6),
            stream_file: None,
            sessions: vec![
                (1000, 999.0, 1e5, Some(131_073.0)),
                (10_000, 5_000.0, 1e5, Some(1.0)),
            ],
        };
        let t = targets(&ours, None, None);
        let goals: Vec<(&str, bool)> = t.iter().map(|t| (t.goal.as_str(), t.met)).collect();
        assert_eq!(
            goals,
            [
                ("streaming, in-memory store: ≥ 2000000 msg/s", false),
                ("1,000 sessions: all logged on in < 1 s", true),
                (
                    "1,000 sessions: acceptor memory ≤ 128 KiB per idle session",
                    false
                ),
            ]
        );
    }
}

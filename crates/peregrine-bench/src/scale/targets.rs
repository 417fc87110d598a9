//! The targets of issue 12 for scale, checked on the medians of one invocation: a
//! target whose figures are missing (its engine did not run) is left out.

use crate::e2e::Target;

/// The figures of one engine, medians across runs (`None`: not measured).
///
/// ```
/// use peregrine_bench::scale::targets::{targets, Figures};
/// let streaming_only = Figures { stream_memory: Some(2.5e6), ..Figures::default() };
/// assert_eq!(targets(&streaming_only, None, None, 2).len(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// Streaming, in-memory store: msg/s.
    pub stream_memory: Option<f64>,
    /// Streaming, file store: msg/s.
    pub stream_file: Option<f64>,
    /// Streaming, file store, message and event logs on at both ends (issue 31): msg/s.
    pub stream_file_logs: Option<f64>,
    /// Many sessions, by N.
    pub sessions: Vec<SessionFigures>,
}

/// One engine's many-sessions figures at one N, medians across runs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionFigures {
    /// Sessions.
    pub n: usize,
    /// Until every session logged on, ms.
    pub logon_all_ms: f64,
    /// Round trips per second, all sessions.
    pub round_trips_per_s: f64,
    /// The acceptor's memory per idle session, bytes.
    pub bytes_per_session: Option<f64>,
    /// CPU time in the kernel per round trip, acceptor's and load's processes
    /// together, µs.
    pub kernel_us_per_round_trip: Option<f64>,
}

/// Streaming memory target, msg/s.
pub const STREAM_MEMORY: f64 = 2_000_000.0;
/// Streaming file-store target, msg/s.
pub const STREAM_FILE: f64 = 1_000_000.0;
/// Streaming with the message logs on (file store), msg/s (issue 31).
pub const STREAM_FILE_LOGS: f64 = 1_500_000.0;
/// Times QuickFIX/J's figures Peregrine's must be.
pub const PEER_FACTOR: f64 = 10.0;
/// All 1,000 sessions logged on within this, ms.
pub const LOGON_ALL_MS: f64 = 1_000.0;
/// Memory per idle session, bytes.
pub const BYTES_PER_SESSION: f64 = 128.0 * 1024.0;

/// The targets from Peregrine's and QuickFIX/J's figures. Beside the 10× one stand what
/// the machine allows: the many-sessions floor's round trips/s (no FIX work on either
/// side), when measured, and the rate `cpus` CPUs would carry were user-space work
/// free and the kernel's CPU time per round trip (acceptor's and load's processes
/// together: mostly the TCP work of two messages, each sent and received, plus epoll
/// and idling in the kernel) the least any measured pair needed: `cpus` ÷ that time.
/// An estimate, not a proof: another engine could need less kernel time than any
/// measured here (the floor needed more than Peregrine's pair), and `cpus` is the
/// driver's, which both processes share.
///
/// ```
/// use peregrine_bench::scale::targets::{targets, Figures, SessionFigures};
/// let at_1000 = |rts: f64, kernel: Option<f64>| SessionFigures {
///     n: 1000, logon_all_ms: 400.0, round_trips_per_s: rts,
///     bytes_per_session: Some(50_000.0), kernel_us_per_round_trip: kernel,
/// };
/// let ours = Figures { stream_memory: Some(2.5e6), stream_file: Some(0.9e6), sessions: vec![at_1000(2e5, None)], ..Figures::default() };
/// let qfj = Figures { stream_memory: Some(2e5), stream_file: Some(5e4), sessions: vec![at_1000(3e4, None)], ..Figures::default() };
/// let floor = Figures { sessions: vec![at_1000(2.4e5, Some(8.0))], ..Figures::default() };
/// let qfj = Figures { sessions: vec![at_1000(3e4, Some(12.0))], ..qfj };
/// let t = targets(&ours, Some(&qfj), Some(&floor), 2);
/// let met: Vec<bool> = t.iter().map(|t| t.met).collect();
/// assert_eq!(met, [true, true, false, true, true, false, true]);
/// assert!(
///     t[5].measured.ends_with("(the TCP floor, no FIX work: 240000, 8.0×; were user-space work free and the kernel's per round trip the least measured, 8.0 µs of CPU (the floor), 2 CPUs would carry 250000 round trips/s, 8.3×)"),
///     "{}", t[5].measured
/// );
/// ```
pub fn targets(
    ours: &Figures,
    qfj: Option<&Figures>,
    floor: Option<&Figures>,
    cpus: usize,
) -> Vec<Target> {
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
        (
            ours.stream_file_logs,
            qfj.and_then(|q| q.stream_file_logs),
            STREAM_FILE_LOGS,
            "file store, message logs on",
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
    for s in &ours.sessions {
        let (n, rts) = (s.n, s.round_trips_per_s);
        if n == 1000 {
            t.push(Target {
                goal: "1,000 sessions: all logged on in < 1 s".into(),
                measured: format!("{:.0} ms", s.logon_all_ms),
                met: s.logon_all_ms < LOGON_ALL_MS,
            });
        }
        if let Some(p) = at_n(qfj, n).map(|q| q.round_trips_per_s) {
            // What the machine allows, beside the target.
            let mut notes = Vec::new();
            if let Some(f) = at_n(floor, n) {
                let f = f.round_trips_per_s;
                notes.push(format!("the TCP floor, no FIX work: {f:.0}, {:.1}×", f / p));
            }
            let least_kernel = [
                ("Peregrine", Some(ours)),
                ("QuickFIX/J", qfj),
                ("the floor", floor),
            ]
            .into_iter()
            .filter_map(|(name, f)| Some((name, at_n(f, n)?.kernel_us_per_round_trip?)))
            .filter(|&(_, k)| k > 0.0)
            .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((name, k)) = least_kernel {
                let ceiling = cpus as f64 * 1e6 / k;
                notes.push(format!(
                    "were user-space work free and the kernel's per round trip the least measured, {k:.1} µs of CPU ({name}), {cpus} CPUs would carry {ceiling:.0} round trips/s, {:.1}×",
                    ceiling / p
                ));
            }
            let mut measured = format!("{rts:.0} vs {p:.0}: {:.1}×", rts / p);
            if !notes.is_empty() {
                measured += &format!(" ({})", notes.join("; "));
            }
            t.push(Target {
                goal: format!("{n} sessions: round trips/s ≥ 10× QuickFIX/J's"),
                measured,
                met: rts >= PEER_FACTOR * p,
            });
        }
        if let (1000, Some(b)) = (n, s.bytes_per_session) {
            t.push(Target {
                goal: "1,000 sessions: acceptor memory ≤ 128 KiB per idle session".into(),
                measured: format!("{:.1} KiB", b / 1024.0),
                met: b <= BYTES_PER_SESSION,
            });
        }
    }
    t
}

/// An engine's figures at `n` sessions, if it ran them.
fn at_n(f: Option<&Figures>, n: usize) -> Option<&SessionFigures> {
    f.and_then(|f| f.sessions.iter().find(|s| s.n == n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_peers_only_the_absolute_targets() {
        let ours = Figures {
            stream_memory: Some(1.9e6),
            stream_file: None,
            stream_file_logs: None,
            sessions: vec![
                SessionFigures {
                    n: 1000,
                    logon_all_ms: 999.0,
                    round_trips_per_s: 1e5,
                    bytes_per_session: Some(131_073.0),
                    kernel_us_per_round_trip: None,
                },
                SessionFigures {
                    n: 10_000,
                    logon_all_ms: 5_000.0,
                    round_trips_per_s: 1e5,
                    bytes_per_session: Some(1.0),
                    kernel_us_per_round_trip: None,
                },
            ],
        };
        let t = targets(&ours, None, None, 2);
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

    #[test]
    fn the_ceiling_is_from_the_least_kernel_time_of_any_pair() {
        let at = |rts: f64, kernel: Option<f64>| Figures {
            sessions: vec![SessionFigures {
                n: 10_000,
                round_trips_per_s: rts,
                kernel_us_per_round_trip: kernel,
                ..SessionFigures::default()
            }],
            ..Figures::default()
        };
        let (ours, qfj, floor) = (
            at(1e5, Some(10.0)),
            at(4e4, Some(15.0)),
            at(1.5e5, Some(12.5)),
        );
        let t = targets(&ours, Some(&qfj), Some(&floor), 2);
        assert_eq!(t.len(), 1);
        assert!(!t[0].met);
        assert!(
            t[0].measured.ends_with(
                "10.0 µs of CPU (Peregrine), 2 CPUs would carry 200000 round trips/s, 5.0×)"
            ),
            "{}",
            t[0].measured
        );
        // Without kernel times nor a floor: the ratio alone.
        let t = targets(&at(1e5, None), Some(&at(4e4, None)), None, 2);
        assert_eq!(t[0].measured, "100000 vs 40000: 2.5×");
    }
}

//! Experiment 3 (BENCHMARKS.md §3), the trading topology:
//!
//! ```text
//! Venue (FIX initiator) ⇄ TCP ⇄ Gateway (FIX acceptor) ⇄ Aeron IPC ⇄ Executor
//! ```
//!
//! Four engines, interleaved run by run (peregrine, quickfixj, artio, floor, then again):
//! Peregrine's topology (`peregrine-topology`), the QuickFIX/J and Artio harnesses of
//! `peers/e2e-*`, and the transport floor (the same bytes through the same TCP and Aeron
//! hops with no FIX work). Each records every round trip of one order in flight into an
//! HDR histogram; the report takes the median across runs, figure by figure, with the
//! min–max of the per-run p50 beside it, checks the targets of issue 5 and draws an HDR
//! percentile plot of all four.
//!
//! Peregrine's run is the topology demo's ([`peregrine_topology::demo::measured_run`]);
//! the demo itself (`make run`) lives in the topology crate, and the tables, the JSON and
//! the plot in `peregrine-report`, shared by both.

use crate::peers::{PeerCommand, PeerError};
use crate::progress::Progress;
use crate::report::{self, Aggregate, Record};
use crate::{Error, Options, Result, RunSettings, Smoke};
use hdrhistogram::Histogram;
use peregrine_engine::Idle;
use peregrine_report::plot;
use peregrine_report::round_trip::markdown_table;
use peregrine_topology::demo::measured_run;
use peregrine_topology::floor::{self, FloorConfig};
use peregrine_topology::steps::{new_histogram, steps_json, steps_table, StepHistograms};

pub use peregrine_report::round_trip::{record_from_histogram, CASE};
pub use peregrine_report::{load_average, machine};

/// The engines in report (and run) order.
///
/// ```
/// use peregrine_bench::e2e::{ENGINES, PEERS};
/// assert!(PEERS.iter().all(|(engine, _)| ENGINES.contains(engine)));
/// ```
pub const ENGINES: [&str; 4] = ["peregrine", "quickfixj", "artio", "floor"];

/// The peers this experiment knows: engine name and harness directory under `peers/`.
///
/// ```
/// use peregrine_bench::{e2e::PEERS, peers::PeerCommand};
/// let root = peregrine_bench::repo_root();
/// let harnesses: Vec<PeerCommand> = PEERS.iter().map(|(e, dir)| PeerCommand::e2e(&root, e, dir)).collect();
/// assert_eq!(harnesses[1].engine, "artio");
/// ```
pub const PEERS: [(&str, &str); 2] = [("quickfixj", "e2e-quickfixj"), ("artio", "e2e-artio")];

/// Settings of one invocation.
///
/// ```
/// use peregrine_bench::e2e::E2eBenchConfig;
/// let cfg = E2eBenchConfig { floor: false, ..E2eBenchConfig::default() };
/// assert_eq!((cfg.common.runs, cfg.common.iters, cfg.common.warmup, cfg.strict), (5, 100_000, 10_000, false));
/// assert_eq!(cfg.common.peers, ["quickfixj", "artio"]);
/// ```
#[derive(Clone, Debug)]
pub struct E2eBenchConfig {
    /// Runs; measured (`--count`) and warm-up (discarded) round trips per engine per run;
    /// peers (`quickfixj`, `artio`); where the JSON goes (the plot beside it, `.svg`).
    pub common: RunSettings,
    /// Include the transport floor.
    pub floor: bool,
    /// The idle strategy of every thread on the message path, every engine alike.
    pub idle: Idle,
    /// A peer run that fails stops everything (the smoke run, so that a broken harness
    /// is noticed); otherwise it is reported and the other runs go on.
    pub strict: bool,
}

impl Default for E2eBenchConfig {
    fn default() -> Self {
        let peers: Vec<&str> = PEERS.iter().map(|(e, _)| *e).collect();
        E2eBenchConfig {
            common: RunSettings::new("e2e", 100_000, 10_000, Smoke::LATENCY, &peers),
            floor: true,
            idle: Idle::spin_then_yield(100),
            strict: false,
        }
    }
}

impl E2eBenchConfig {
    /// Applies command-line options: `--smoke` (1 run of 500 + 2,000 round trips, a
    /// failing peer stopping everything), then the others ([`RunSettings::apply`], `--count` as `iters`).
    ///
    /// ```
    /// let mut cfg = peregrine_bench::e2e::E2eBenchConfig::default();
    /// cfg.apply(&peregrine_bench::Options { smoke: true, peers: Some("artio"), ..Default::default() });
    /// assert_eq!((cfg.common.runs, cfg.common.iters, cfg.common.warmup, cfg.strict), (1, 2_000, 500, true));
    /// assert_eq!(cfg.common.peers, ["artio"]);
    /// ```
    pub fn apply(&mut self, options: &Options<'_>) {
        self.common.apply(options);
        self.strict |= options.smoke;
    }

    /// The spin count of the idle strategy, passed to the peers (`--spins`).
    fn spins(&self) -> u32 {
        match self.idle {
            Idle::SpinThenYield(s) => s.spins(),
            _ => 0,
        }
    }
}

/// Runs the transport floor once: its record, round trips and steps (ns).
///
/// ```no_run
/// use peregrine_engine::Idle;
/// let (record, rtt, _steps) = peregrine_bench::e2e::run_floor(500, 2_000, Idle::spin_then_yield(100), &mut |_, _| {})?;
/// assert_eq!((record.engine.as_str(), rtt.len()), ("floor", 2_000));
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Topology`] (engine `floor`): what [`floor::run`] returns.
pub fn run_floor(
    warmup: u64,
    count: u64,
    idle: Idle,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(Record, Histogram<u64>, StepHistograms)> {
    let cfg = FloorConfig {
        warmup,
        count,
        idle,
        ..FloorConfig::default()
    };
    let r = floor::run(&cfg, progress).map_err(Error::topology("floor"))?;
    let record = record_from_histogram(
        "floor",
        &r.rtt,
        r.wall.as_secs_f64(),
        None,
        format!(
            "transport floor: the round trip's bytes ({} B FIX NOS, {} B SBE order, {} B SBE report, {} B FIX ER) through raw non-blocking TCP 127.0.0.1 (TCP_NODELAY; zero-timeout epoll_wait, then read) and raw Aeron IPC publish/poll, no FIX or SBE work; threads venue, gateway, executor (+ Aeron driver, shared, backoff); idle {idle}",
            cfg.bytes.fix_nos.len(),
            cfg.bytes.sbe_order.len(),
            cfg.bytes.sbe_report.len(),
            cfg.bytes.fix_er.len()
        ),
    );
    Ok((record, r.rtt, r.steps))
}

/// One target: what it says, the figure, and whether it is met.
///
/// ```
/// use peregrine_bench::e2e::{targets_text, Target};
/// let t = Target { goal: "p50 ≤ 10 µs".into(), measured: "8.2 µs".into(), met: true };
/// assert_eq!(targets_text(&[t]).lines().nth(1), Some("  p50 ≤ 10 µs: 8.2 µs — met"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// The target, as the issue words it.
    pub goal: String,
    /// What this run measured.
    pub measured: String,
    /// Met or not.
    pub met: bool,
}

/// The targets of issue 5 from the aggregates of one invocation; a target whose engine
/// did not run is left out.
///
/// ```
/// # use peregrine_bench::e2e::CASE;
/// # use peregrine_bench::report::{aggregate, Record, Stats};
/// # fn rec(engine: &str, p50: f64) -> Record {
/// #     Record {
/// #         engine: engine.into(),
/// #         case: CASE.into(),
/// #         unit: "us".into(),
/// #         stats: Stats { p50, p999: 3.0 * p50, max: 10.0 * p50, ..Stats::default() },
/// #         allocs_per_op: (engine == "peregrine").then_some(0.0),
/// #         settings: String::new(),
/// #     }
/// # }
/// use peregrine_bench::e2e::targets;
///
/// let aggs = aggregate(&[rec("peregrine", 30.0), rec("floor", 25.0)]);
/// let t = targets(&aggs);
/// // Only the floor ran beside Peregrine: its target, and the allocations'.
/// assert_eq!(t.len(), 2);
/// assert!(t[0].goal.contains("transport floor") && t[0].met); // 30 ≤ 1.25 × 25
/// ```
pub fn targets(aggs: &[Aggregate]) -> Vec<Target> {
    let mut t = Vec::new();
    let Some(o) = report::find(aggs, "peregrine", CASE) else {
        return t;
    };
    let o_range = o.p50_range;
    let o = &o.stats;
    let peer = |e: &str| report::find(aggs, e, CASE).map(|a| &a.stats);
    let floor = report::find(aggs, "floor", CASE);
    for (engine, name, share, denom) in [
        ("quickfixj", "QuickFIX/J", 0.25, "¼"),
        ("artio", "Artio", 0.2, "⅕"),
    ] {
        if let Some(p) = peer(engine) {
            // Where the bound lies below the transport floor no engine can meet it:
            // say so beside the figure.
            let limit = floor.map_or(String::new(), |f| {
                format!("; the floor is {:.2} of it", f.stats.p50 / p.p50)
            });
            t.push(Target {
                goal: format!("p50 ≤ {denom} of {name}'s"),
                measured: format!(
                    "{:.2} µs vs {:.2} µs: {:.2} of it ({:.1}× faster{limit})",
                    o.p50,
                    p.p50,
                    o.p50 / p.p50,
                    p.p50 / o.p50
                ),
                met: o.p50 <= share * p.p50,
            });
        }
    }
    for (engine, name) in [("quickfixj", "QuickFIX/J"), ("artio", "Artio")] {
        if let Some(p) = peer(engine) {
            t.push(Target {
                goal: format!("p99.9 ≤ ⅓ of {name}'s"),
                measured: format!(
                    "{:.1} µs vs {:.1} µs: {:.2} of it",
                    o.p999,
                    p.p999,
                    o.p999 / p.p999
                ),
                met: o.p999 <= p.p999 / 3.0,
            });
        }
    }
    if let Some(p) = peer("artio") {
        t.push(Target {
            goal: "max no worse than Artio's".into(),
            measured: format!("{:.0} µs vs {:.0} µs", o.max, p.max),
            met: o.max <= p.max,
        });
    }
    if let Some(f) = floor {
        // The per-run p50s show when runs fell into different scheduling modes.
        t.push(Target {
            goal: "p50 within 1.25× of the transport floor".into(),
            measured: format!(
                "{:.2} µs vs {:.2} µs: {:.2}× (per-run p50s {:.2}–{:.2} vs {:.2}–{:.2})",
                o.p50,
                f.stats.p50,
                o.p50 / f.stats.p50,
                o_range[0],
                o_range[1],
                f.p50_range[0],
                f.p50_range[1]
            ),
            met: o.p50 <= 1.25 * f.stats.p50,
        });
    }
    if let Some(a) = report::find(aggs, "peregrine", CASE).and_then(|a| a.allocs_per_op) {
        t.push(Target {
            goal: "zero allocations per round trip (venue, gateway, executor)".into(),
            measured: format!("{a} per round trip"),
            met: a == 0.0,
        });
    }
    t
}

/// The targets as text lines.
///
/// ```
/// # use peregrine_bench::e2e::CASE;
/// # use peregrine_bench::report::{aggregate, Record, Stats};
/// # fn rec(engine: &str, p50: f64) -> Record {
/// #     Record {
/// #         engine: engine.into(),
/// #         case: CASE.into(),
/// #         unit: "us".into(),
/// #         stats: Stats { p50, p999: 3.0 * p50, max: 10.0 * p50, ..Stats::default() },
/// #         allocs_per_op: (engine == "peregrine").then_some(0.0),
/// #         settings: String::new(),
/// #     }
/// # }
/// use peregrine_bench::e2e::{targets, targets_text};
///
/// let text = targets_text(&targets(&aggregate(&[rec("peregrine", 30.0), rec("floor", 20.0)])));
/// assert!(text.starts_with("Targets (from the medians of this invocation):"));
/// assert!(text.contains("MISSED")); // 30 > 1.25 × 20
/// ```
pub fn targets_text(targets: &[Target]) -> String {
    let mut s = String::from("Targets (from the medians of this invocation):\n");
    for t in targets {
        s.push_str(&format!(
            "  {}: {} — {}\n",
            t.goal,
            t.measured,
            if t.met { "met" } else { "MISSED" }
        ));
    }
    s
}

fn peer_commands(cfg: &E2eBenchConfig) -> Result<Vec<PeerCommand>> {
    let root = crate::repo_root();
    let mut peers = Vec::new();
    for p in &cfg.common.peers {
        let Some((engine, dir)) = PEERS.iter().find(|(e, _)| e == p) else {
            return Err(PeerError::Unknown {
                engine: p.clone(),
                known: "quickfixj, artio",
            }
            .into());
        };
        let mut cmd = PeerCommand::e2e(&root, engine, dir);
        cmd.args = vec!["--spins".into(), cfg.spins().to_string()];
        peers.push(cmd.if_built()?);
    }
    Ok(peers)
}

fn merge(into: &mut Histogram<u64>, h: &Histogram<u64>) {
    // Same bounds everywhere (`new_histogram`): adding cannot fail.
    let _ = into.add(h);
}

/// Runs the whole experiment and returns the aggregates (also printed, written as JSON
/// and plotted).
///
/// ```no_run
/// use peregrine_bench::e2e::{run, E2eBenchConfig};
/// let mut cfg = E2eBenchConfig::default();
/// cfg.apply(&peregrine_bench::Options { smoke: true, peers: Some("none"), ..Default::default() });
/// let aggs = run(&cfg)?;
/// println!("{}", peregrine_bench::e2e::targets_text(&peregrine_bench::e2e::targets(&aggs)));
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Peer`] for a peer that is unknown or not built (or, with
/// [`E2eBenchConfig::strict`], that fails); [`Error::Topology`] when Peregrine's run or
/// the floor fails; [`Error::Output`] when the JSON or the plot cannot be written.
pub fn run(cfg: &E2eBenchConfig) -> Result<Vec<Aggregate>> {
    let peers = peer_commands(cfg)?;
    let dict = crate::fix44_dictionary();
    let machine = machine();
    eprintln!("bench e2e: {machine}");
    let per_run = 1 + peers.len() + usize::from(cfg.floor);
    let mut bar = Progress::new("bench e2e", cfg.common.runs * per_run);
    let mut all = Vec::new();
    let mut ours_rtt = new_histogram();
    let mut ours_steps = StepHistograms::default();
    let mut floor_rtt = new_histogram();
    let mut floor_steps = StepHistograms::default();
    let mut failures: Vec<String> = Vec::new();
    for run in 1..=cfg.common.runs {
        bar.show(&format!("run {run}: peregrine"));
        let p = measured_run(
            cfg.common.warmup,
            cfg.common.iters,
            cfg.idle,
            &mut |d, t| bar.show_count("peregrine", d, t),
        )
        .map_err(Error::topology("peregrine"))?;
        merge(&mut ours_rtt, &p.rtt);
        ours_steps.add(&p.steps);
        all.push(p.record);
        bar.step(&format!("run {run}: peregrine done"));
        for peer in &peers {
            bar.show(&format!("run {run}: {}", peer.engine));
            match peer.run(&[CASE], cfg.common.iters, cfg.common.warmup, &dict) {
                Ok(records) => all.extend(records),
                Err(e) if cfg.strict => return Err(e.into()),
                Err(e) => {
                    eprintln!("\nbench e2e: run {run}: {e}\n(going on without this run)");
                    failures.push(format!("run {run}: {e}"));
                }
            }
            bar.step(&format!("run {run}: {} done", peer.engine));
        }
        if cfg.floor {
            bar.show(&format!("run {run}: floor"));
            let (r, h, steps) = run_floor(
                cfg.common.warmup,
                cfg.common.iters,
                cfg.idle,
                &mut |d, t| bar.show_count("floor", d, t),
            )?;
            merge(&mut floor_rtt, &h);
            floor_steps.add(&steps);
            all.push(r);
            bar.step(&format!("run {run}: floor done"));
        }
    }
    bar.finish();
    let aggs = report::aggregate(&all);
    let targets = targets(&aggs);
    let config = serde_json::json!({
        "runs": cfg.common.runs,
        "count": cfg.common.iters,
        "warmup": cfg.common.warmup,
        "engines": ENGINES.iter().filter(|e| **e == "peregrine" || (**e == "floor" && cfg.floor) || cfg.common.peers.iter().any(|p| p == *e)).collect::<Vec<_>>(),
        "order": "interleaved: each run runs every engine once, in the order of `engines`",
        "idle": format!("{} on every thread of the message path, every engine (spin, then yield between polls; never park)", cfg.idle),
        "machine": machine,
        "load_average_end": load_average(),
        "method": "one order in flight; each round trip (venue send → ExecutionReport in the venue's application) into an HDR histogram (3 significant digits); mean = wall time of the measured loop / count; median across runs figure by figure",
        "settings": aggs.iter().map(|a| (a.engine.clone(), a.settings.clone())).collect::<std::collections::BTreeMap<_, _>>(),
        "peregrine_steps_us": steps_json(&ours_steps),
        "floor_steps_us": cfg.floor.then(|| steps_json(&floor_steps)),
        "targets": targets.iter().map(|t| serde_json::json!({"goal": t.goal, "measured": t.measured, "met": t.met})).collect::<Vec<_>>(),
        "failed_peer_runs": failures,
    });
    crate::results::write_json(&cfg.common.out, "e2e", config, &aggs, &all)?;
    let mut series = vec![plot::series_from_histogram(
        "Peregrine (all runs)",
        &ours_rtt,
    )];
    for (engine, label) in [
        ("quickfixj", "QuickFIX/J (medians)"),
        ("artio", "Artio (medians)"),
    ] {
        if let Some(a) = report::find(&aggs, engine, CASE) {
            let s = &a.stats;
            series.push(plot::series_from_summary(
                label, s.min, s.p50, s.p90, s.p99, s.p999,
            ));
        }
    }
    if cfg.floor {
        series.push(plot::series_from_histogram(
            "transport floor (all runs)",
            &floor_rtt,
        ));
    }
    let svg = crate::results::plot_beside(
        &cfg.common.out,
        "Trading topology round trip (BENCHMARKS.md §3), latency log scale",
        &series,
    )?;
    println!("{}", markdown_table(&aggs));
    println!(
        "Peregrine's steps (µs, all runs){}:\n{}",
        if cfg.floor {
            ", beside the floor's"
        } else {
            ""
        },
        steps_table(
            &ours_steps,
            &ours_rtt,
            cfg.floor.then_some((&floor_steps, &floor_rtt))
        )
    );
    println!("{}", targets_text(&targets));
    for f in &failures {
        println!("FAILED peer run (left out of the medians): {f}");
    }
    println!(
        "idle strategy: {} on every thread of the message path, all engines",
        cfg.idle
    );
    println!(
        "results: {}\nplot: {}",
        cfg.common.out.display(),
        svg.display()
    );
    Ok(aggs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Stats;
    use std::path::PathBuf;

    fn agg(engine: &str, p50: f64, p999: f64, max: f64, allocs: Option<f64>) -> Record {
        Record {
            engine: engine.into(),
            case: CASE.into(),
            unit: "us".into(),
            stats: Stats {
                p50,
                p999,
                max,
                ..Default::default()
            },
            allocs_per_op: allocs,
            settings: String::new(),
        }
    }

    #[test]
    fn targets_met_and_missed() {
        let aggs = report::aggregate(&[
            agg("peregrine", 10.0, 30.0, 500.0, Some(0.0)),
            agg("quickfixj", 40.0, 80.0, 400.0, None),
            agg("artio", 49.0, 200.0, 600.0, None),
            agg("floor", 8.0, 20.0, 100.0, None),
        ]);
        let t = targets(&aggs);
        let met = |goal: &str| t.iter().find(|t| t.goal == goal).map(|t| t.met);
        assert_eq!(met("p50 ≤ ¼ of QuickFIX/J's"), Some(true)); // 10 ≤ 40 / 4
        assert_eq!(met("p50 ≤ ⅕ of Artio's"), Some(false)); // 10 > 49 / 5
        assert_eq!(met("p99.9 ≤ ⅓ of QuickFIX/J's"), Some(false)); // 30 > 80 / 3
        assert_eq!(met("p99.9 ≤ ⅓ of Artio's"), Some(true));
        assert_eq!(met("max no worse than Artio's"), Some(true));
        assert_eq!(met("p50 within 1.25× of the transport floor"), Some(true)); // 10 ≤ 1.25 × 8
        assert_eq!(
            met("zero allocations per round trip (venue, gateway, executor)"),
            Some(true)
        );
        assert_eq!(t.len(), 7);
        let said = |goal: &str| {
            t.iter()
                .find(|t| t.goal == goal)
                .map(|t| t.measured.clone())
        };
        assert!(
            said("p50 ≤ ¼ of QuickFIX/J's").is_some_and(|m| m.contains("the floor is 0.20 of it"))
        );
        assert!(said("p50 within 1.25× of the transport floor")
            .is_some_and(|m| m.contains("per-run p50s 10.00–10.00 vs 8.00–8.00")));
        let table = markdown_table(&aggs);
        assert!(table.contains("| artio |") && table.contains("| 4.90× |"));
        let alone = markdown_table(&report::aggregate(&[agg("peregrine", 1.0, 2.0, 3.0, None)]));
        assert!(
            !alone.contains('÷') && alone.lines().count() == 3,
            "{alone}"
        );
    }

    #[test]
    fn targets_without_peers() {
        let aggs = report::aggregate(&[agg("peregrine", 10.0, 30.0, 500.0, Some(0.5))]);
        let t = targets(&aggs);
        assert_eq!(t.len(), 1);
        assert!(!t[0].met);
        assert!(targets_text(&t).contains("MISSED"));
    }

    #[test]
    fn options() {
        let mut c = E2eBenchConfig::default();
        c.apply(&Options {
            smoke: true,
            peers: Some("none"),
            out: Some("x.json"),
            ..Options::default()
        });
        assert_eq!(
            (c.common.runs, c.common.iters, c.common.warmup, c.strict),
            (1, 2_000, 500, true)
        );
        assert!(c.common.peers.is_empty());
        assert_eq!(plot::svg_beside(&c.common.out), PathBuf::from("x.svg"));
        let mut c = E2eBenchConfig::default();
        c.apply(&Options {
            runs: Some(3),
            iters: Some(10),
            warmup: Some(0),
            peers: Some("artio"),
            ..Options::default()
        });
        assert_eq!((c.common.runs, c.common.iters, c.common.warmup), (3, 10, 0));
        assert_eq!(c.common.peers, vec!["artio".to_string()]);
        assert!(matches!(
            peer_commands(&E2eBenchConfig {
                common: crate::RunSettings {
                    peers: vec!["nope".into()],
                    ..E2eBenchConfig::default().common
                },
                ..E2eBenchConfig::default()
            }),
            Err(Error::Peer(PeerError::Unknown { .. }))
        ));
    }
}

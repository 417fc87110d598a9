//! `peregrine run` (`make run`): the topology's demo. Peregrine's topology once
//! (10,000 warm-up + 100,000 measured round trips by default) with a progress bar;
//! prints the latency table, the step breakdown and the allocations per round trip,
//! writes the results as JSON and an HDR percentile plot beside them.
//!
//! [`measured_run`] is one checked run as a result record; `peregrine bench e2e` runs it
//! beside its peers.

use crate::steps::{steps_json, steps_table, StepHistograms};
use crate::{Error, Result, TopologyConfig};
use hdrhistogram::Histogram;
use peregrine_engine::Idle;
use peregrine_report::plot::{self, Scale};
use peregrine_report::progress::Progress;
use peregrine_report::round_trip::{markdown_table, record_from_histogram};
use peregrine_report::{machine, Record};
use std::path::PathBuf;

/// Settings of the demo.
///
/// ```
/// use peregrine_topology::demo::DemoConfig;
/// let cfg = DemoConfig { count: 10_000, out: "/tmp/topology.json".into(), ..DemoConfig::default() };
/// assert_eq!((cfg.warmup, cfg.count), (10_000, 10_000));
/// ```
#[derive(Clone, Debug)]
pub struct DemoConfig {
    /// Warm-up round trips (not recorded).
    pub warmup: u64,
    /// Measured round trips.
    pub count: u64,
    /// The idle strategy of every thread on the message path.
    pub idle: Idle,
    /// Where the JSON goes (the plot goes beside it, `.svg`).
    pub out: PathBuf,
}

impl Default for DemoConfig {
    /// 10,000 warm-up and 100,000 measured round trips, spin-then-yield (100 spins),
    /// `target/bench-results/topology.json` in the repository.
    fn default() -> Self {
        DemoConfig {
            warmup: 10_000,
            count: 100_000,
            idle: Idle::spin_then_yield(100),
            out: peregrine_report::repo_root().join("target/bench-results/topology.json"),
        }
    }
}

/// One Peregrine topology run, checked and summarised.
///
/// ```no_run
/// use peregrine_engine::Idle;
///
/// let run = peregrine_topology::demo::measured_run(500, 2_000, Idle::spin_then_yield(100), &mut |_, _| {})?;
/// assert_eq!(run.record.engine, "peregrine");
/// println!("allocations: {:?}", run.allocations);
/// # Ok::<(), peregrine_topology::Error>(())
/// ```
pub struct MeasuredRun {
    /// The summary record (engine `peregrine`, case `round_trip`, µs).
    pub record: Record,
    /// Round trips, ns.
    pub rtt: Histogram<u64>,
    /// The steps, ns.
    pub steps: StepHistograms,
    /// Allocations in the process over the measured phase (when the binary installs the
    /// counting allocator).
    pub allocations: Option<u64>,
}

fn topology_config(warmup: u64, count: u64, idle: Idle) -> TopologyConfig {
    TopologyConfig {
        warmup,
        count,
        idle,
        allocations: peregrine_alloc::is_counting()
            .then_some(peregrine_alloc::allocations as fn() -> u64),
        ..TopologyConfig::default()
    }
}

/// Runs Peregrine's topology once; `progress(done, total)` about every 100 ms (it must
/// not allocate: allocations are counted process-wide).
///
/// ```no_run
/// use peregrine_engine::Idle;
///
/// let run = peregrine_topology::demo::measured_run(500, 2_000, Idle::spin_then_yield(100), &mut |_, _| {})?;
/// assert_eq!(run.rtt.len(), 2_000);
/// println!("p50 {} µs", run.record.stats.p50);
/// # Ok::<(), peregrine_topology::Error>(())
/// ```
///
/// # Errors
///
/// What [`crate::run`] returns, or [`Error::Check`] when a fill is missing or wrong.
pub fn measured_run(
    warmup: u64,
    count: u64,
    idle: Idle,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<MeasuredRun> {
    let cfg = topology_config(warmup, count, idle);
    let r = crate::run(&cfg, progress)?;
    r.check(warmup + count)?;
    let allocs_per_op = r.allocations.map(|a| a as f64 / r.measured.max(1) as f64);
    let record = record_from_histogram(
        "peregrine",
        &r.rtt,
        r.wall.as_secs_f64(),
        allocs_per_op,
        format!(
            "peregrine-topology: {}; FIX 4.4 sessions VENUE->GATEWAY over TCP 127.0.0.1 (TCP_NODELAY), sequence numbers stored",
            r.settings
        ),
    );
    Ok(MeasuredRun {
        record,
        rtt: r.rtt,
        steps: r.steps,
        allocations: r.allocations,
    })
}

/// Runs the demo: the topology once (`warmup` + `count` round trips) with a progress bar;
/// prints the latency table, the step breakdown and the allocations per round trip,
/// writes `out` (JSON) and the plot beside it (`.svg`).
///
/// ```no_run
/// use peregrine_topology::demo::{run, DemoConfig};
///
/// run(&DemoConfig { count: 10_000, out: "/tmp/topology.json".into(), ..DemoConfig::default() })?;
/// # Ok::<(), peregrine_topology::Error>(())
/// ```
///
/// # Errors
///
/// What [`measured_run`] returns, or [`Error::Output`] when the JSON or the plot cannot
/// be written.
pub fn run(cfg: &DemoConfig) -> Result<()> {
    let (warmup, count, out) = (cfg.warmup, cfg.count, &cfg.out);
    let machine = machine();
    eprintln!("peregrine run: Venue (FIX initiator) ⇄ TCP ⇄ Gateway (FIX acceptor) ⇄ Aeron IPC ⇄ Executor; {machine}");
    let bar = Progress::new("topology", 1);
    let p = measured_run(warmup, count, cfg.idle, &mut |d, t| {
        bar.show_count("round trips", d, t)
    })?;
    bar.finish();
    let aggs = peregrine_report::aggregate(std::slice::from_ref(&p.record));
    println!(
        "Round trips (one order in flight; {warmup} warm-up + {count} measured):\n{}",
        markdown_table(&aggs)
    );
    println!("Steps (µs):\n{}", steps_table(&p.steps, &p.rtt, None));
    match p.allocations {
        Some(a) => println!(
            "allocations: {a} over {count} round trips = {} per round trip (venue, gateway, executor)",
            a as f64 / count.max(1) as f64
        ),
        None => println!("allocations: not counted (no counting allocator in this binary)"),
    }
    println!("settings: {}", p.record.settings);
    let config = serde_json::json!({
        "count": count,
        "warmup": warmup,
        "machine": machine,
        "steps_us": steps_json(&p.steps),
    });
    peregrine_report::write_json(
        out,
        "topology",
        config,
        &aggs,
        std::slice::from_ref(&p.record),
    )
    .map_err(|e| Error::output(out, e))?;
    let svg = plot::svg_beside(out);
    plot::write_svg(
        &svg,
        "Peregrine trading topology round trip",
        &[plot::series_from_histogram("Peregrine", &p.rtt)],
        Scale::Linear,
    )
    .map_err(|e| Error::output(&svg, e))?;
    println!("results: {}\nplot: {}", out.display(), svg.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_make_runs() {
        let c = DemoConfig::default();
        assert_eq!((c.warmup, c.count), (10_000, 100_000));
        assert_eq!(c.idle, Idle::spin_then_yield(100));
        assert!(c.out.ends_with("target/bench-results/topology.json"));
    }
}

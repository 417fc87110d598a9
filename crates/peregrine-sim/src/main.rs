//! `peregrine-sim`: runs seeds, prints throughput and the fault census, and
//! for a failing seed the shrunk trace.
//!
//! ```text
//! peregrine-sim [--seeds N] [--first S] [--steps N] [--seed S] [--no-shrink] [--log]
//! ```
//!
//! `--seeds N` runs seeds `first..first+N` (first: 1); `--seed S` runs only
//! `S` (a replay); `--steps` is the number of actions per seed (100,000);
//! `--log` prints the whole log of a `--seed` replay; `--core` draws only
//! the core profile (`Weights::core`: no crashes, clock jumps, garbling…);
//! `--route` runs the routing world instead (a router between a client and a
//! venue on one engine journal, crashed at any point of its turn:
//! `peregrine_sim::route`).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use peregrine_sim::config::SimConfig;
use peregrine_sim::faults::{generate, Census, Tally, Weights};
use peregrine_sim::runner::run_actions;
use peregrine_sim::trace::shrink::{shrink, Budget};

struct Args {
    seeds: u64,
    first: u64,
    steps: usize,
    one: Option<u64>,
    shrink: bool,
    log: bool,
    core: bool,
    route: bool,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        seeds: 1,
        first: 1,
        steps: 100_000,
        one: None,
        shrink: true,
        log: false,
        core: false,
        route: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut val = |name: &str| -> Result<u64, String> {
            it.next()
                .ok_or(format!("{name} needs a value"))?
                .replace('_', "")
                .parse()
                .map_err(|e| format!("{name}: {e}"))
        };
        match k.as_str() {
            "--seeds" => a.seeds = val("--seeds")?,
            "--first" => a.first = val("--first")?,
            "--steps" => a.steps = val("--steps")? as usize,
            "--seed" => a.one = Some(val("--seed")?),
            "--no-shrink" => a.shrink = false,
            "--log" => a.log = true,
            "--core" => a.core = true,
            "--route" => a.route = true,
            "-h" | "--help" => {
                return Err(
                    "usage: peregrine-sim [--seeds N] [--first S] [--steps N] [--seed S] [--no-shrink] [--log] [--core] [--route]"
                        .into(),
                )
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let seeds: Vec<u64> = match args.one {
        Some(s) => vec![s],
        None => (args.first..args.first + args.seeds).collect(),
    };
    if args.route {
        return route(&seeds, args.steps);
    }
    let mut total = Census::default();
    let mut steps = 0usize;
    let mut busy = Duration::ZERO;
    let mut failed = Vec::new();
    let start = Instant::now();
    for &seed in &seeds {
        let cfg = SimConfig::from_seed_with(seed, !args.core);
        let weights = if args.core {
            Weights::core()
        } else {
            Weights::default()
        };
        let actions = generate(seed, args.steps, &weights);
        let out = run_actions(&cfg, &actions, args.log && args.one.is_some());
        steps += out.steps;
        busy += out.elapsed;
        total.merge(&out.census);
        if args.log {
            for line in &out.log {
                println!("{line}");
            }
        }
        match out.violation {
            None => {
                if args.one.is_some() || seeds.len() <= 20 {
                    println!(
                        "seed {seed}: ok, {} steps, {} messages, {:.2} s",
                        out.steps,
                        out.census.get(Tally::WireMessages),
                        out.elapsed.as_secs_f64()
                    );
                }
            }
            Some(v) => {
                println!("seed {seed}: FAILED at step {}: {v}", v.step);
                println!("  config: {}", cfg.summary());
                if args.shrink {
                    // The shrinker's runs panic as the original did: quietly.
                    let hook = std::panic::take_hook();
                    std::panic::set_hook(Box::new(|_| {}));
                    let trace = shrink(seed, &cfg, &actions, &v, Budget::default());
                    std::panic::set_hook(hook);
                    println!("{trace}");
                }
                failed.push(seed);
            }
        }
    }
    let wall = start.elapsed().as_secs_f64();
    let msgs = total.get(Tally::WireMessages);
    let secs = busy.as_secs_f64().max(1e-9);
    println!(
        "{} seed(s), {steps} steps, {msgs} simulated messages in {:.1} s ({wall:.1} s wall): {:.0} steps/s, {:.0} messages/minute on one core",
        seeds.len(),
        secs,
        steps as f64 / secs,
        msgs as f64 / secs * 60.0
    );
    println!("fault census:\n{total}");
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        println!("failing seeds: {failed:?}");
        ExitCode::FAILURE
    }
}

/// `--route`: the routing world's seeds (no shrinking: a failing seed is
/// replayed with `--route --seed S --steps N`).
fn route(seeds: &[u64], steps: usize) -> ExitCode {
    let mut total = peregrine_sim::route::RouteStats::default();
    let (mut done, mut busy, mut failed) = (0usize, Duration::ZERO, Vec::new());
    let start = Instant::now();
    for &seed in seeds {
        let out = peregrine_sim::route::run_route(seed, steps);
        done += out.steps;
        busy += out.elapsed;
        total.merge(&out.stats);
        match out.violation {
            None if seeds.len() <= 20 => println!(
                "seed {seed}: ok, {} venue(s), {} steps, {} orders routed, {:.2} s",
                peregrine_sim::route::venues_of(seed),
                out.steps,
                out.stats.routed,
                out.elapsed.as_secs_f64()
            ),
            None => {}
            Some(v) => {
                println!("seed {seed}: FAILED at step {}: {v}", v.step);
                failed.push(seed);
            }
        }
    }
    let secs = busy.as_secs_f64().max(1e-9);
    println!(
        "route: {} seed(s), {done} steps in {secs:.1} s ({:.1} s wall): {:.0} steps/s",
        seeds.len(),
        start.elapsed().as_secs_f64(),
        done as f64 / secs
    );
    println!("{total}");
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        println!("failing seeds: {failed:?}");
        ExitCode::FAILURE
    }
}

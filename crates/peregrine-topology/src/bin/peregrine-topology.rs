//! `peregrine-topology`: the topology's parts as a program, so that they can run in
//! separate processes (and network namespaces, or hosts) over Aeron UDP.
//!
//! ```text
//! peregrine-topology run      [--count N] [--warmup N] [--idle S] [--dictionary FIX44.xml]  # all three parts, Aeron IPC
//! peregrine-topology floor    [--count N] [--warmup N] [--idle S]           # the transport floor
//! peregrine-topology executor --orders ADDR --reports ADDR [--limit N] [--idle S]
//! peregrine-topology gateway  --orders ADDR --reports ADDR [--count N] [--warmup N] [--idle S]
//! ```
//!
//! `executor` runs the executor (own embedded media driver) until it has filled
//! `--limit` orders (default: until killed). `gateway` runs the venue and the gateway
//! (own embedded media driver), sends the orders, and exits 0 when every fill came back
//! right. The orders channel is `ADDR` of `--orders` (the executor's side), reports go
//! to `--reports` (the gateway's side).
#![forbid(unsafe_code)]

use peregrine_aeron::DriverIdle;
use peregrine_topology::{Error, Part, TopologyConfig, Transport};
use std::process::ExitCode;
use std::time::Duration;

/// What stops the program: a command line it does not understand, or the run's error.
type BoxedError = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("peregrine-topology: {e}");
            ExitCode::FAILURE
        }
    }
}

fn value<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn run() -> Result<(), BoxedError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map(String::as_str).unwrap_or("run");
    let mut cfg = TopologyConfig::default();
    let num = |name: &str| -> Result<Option<u64>, BoxedError> {
        value(&args, name)
            .map(|v| {
                v.parse::<u64>()
                    .map_err(|_| format!("{name}: {v:?} is not a number").into())
            })
            .transpose()
    };
    if let Some(n) = num("--count")? {
        cfg.count = n;
    }
    if let Some(n) = num("--warmup")? {
        cfg.warmup = n;
    }
    if let Some(i) = value(&args, "--idle") {
        cfg.idle = i.parse::<peregrine_engine::Idle>()?;
    }
    // Validate both sessions' messages against a FIX.4.4 data dictionary.
    cfg.dictionary = value(&args, "--dictionary").map(std::path::PathBuf::from);
    cfg.executor_limit = num("--limit")?;
    if let Some(t) = num("--timeout")? {
        cfg.timeout = Duration::from_secs(t);
    }
    let udp = || -> Result<Transport, BoxedError> {
        let get = |n: &str| -> Result<std::net::SocketAddr, BoxedError> {
            let v = value(&args, n).ok_or(format!("{n} ADDR:PORT is required"))?;
            Ok(v.parse().map_err(|e| format!("{n}: {e}"))?)
        };
        Ok(Transport::Udp {
            orders: get("--orders")?,
            reports: get("--reports")?,
        })
    };
    match mode {
        "run" => cfg.part = Part::All,
        "floor" => {
            let f = peregrine_topology::floor::FloorConfig {
                warmup: cfg.warmup,
                count: cfg.count,
                idle: cfg.idle,
                timeout: cfg.timeout,
                ..Default::default()
            };
            let r = peregrine_topology::floor::run(&f, &mut |_, _| {})?;
            let q = |p: f64| r.rtt.value_at_quantile(p) as f64 / 1000.0;
            println!(
                "floor: {} measured: p50 {:.1} us, p99 {:.1} us, p99.9 {:.1} us, max {:.1} us, {:.0} round trips/s",
                r.rtt.len(),
                q(0.5),
                q(0.99),
                q(0.999),
                r.rtt.max() as f64 / 1000.0,
                r.throughput()
            );
            for (name, h) in peregrine_topology::steps::STEPS.iter().zip(&r.steps.steps) {
                println!(
                    "  {name}: p50 {:.2} us",
                    h.value_at_quantile(0.5) as f64 / 1000.0
                );
            }
            return Ok(());
        }
        "executor" => {
            cfg.part = Part::Executor;
            cfg.transport = udp()?;
            cfg.driver_idle = DriverIdle::Yielding;
        }
        "gateway" => {
            cfg.part = Part::VenueGateway;
            cfg.transport = udp()?;
            cfg.driver_idle = DriverIdle::Yielding;
        }
        "-h" | "--help" => {
            println!("peregrine-topology run|floor|executor|gateway [--orders ADDR --reports ADDR] [--count N] [--warmup N] [--limit N] [--idle S] [--dictionary FIX44.xml] [--timeout SECS]");
            return Ok(());
        }
        other => return Err(format!("unknown mode {other:?}").into()),
    }
    eprintln!("{mode}: {}", cfg.describe());
    let r = peregrine_topology::run(&cfg, &mut |_, _| {})?;
    if let Some(ex) = r.executor.filter(|_| cfg.part == Part::Executor) {
        println!(
            "executor: filled {} orders ({} undecodable, {} unpublished)",
            ex.filled, ex.bad_orders, ex.unpublished
        );
        return if ex.bad_orders == 0 && ex.unpublished == 0 {
            Ok(())
        } else {
            Err(Error::Check {
                what: "executor saw bad orders".into(),
            }
            .into())
        };
    }
    let q = |p: f64| r.rtt.value_at_quantile(p) as f64 / 1000.0;
    if cfg.part == Part::All {
        for (name, h) in peregrine_topology::steps::STEPS.iter().zip(&r.steps.steps) {
            println!(
                "  {name}: p50 {:.2} us",
                h.value_at_quantile(0.5) as f64 / 1000.0
            );
        }
    }
    println!(
        "{mode}: {} fills ({} wrong), {} measured: p50 {:.1} us, p99 {:.1} us, p99.9 {:.1} us, max {:.1} us, {:.0} round trips/s; venue seq {:?}, gateway seq {:?}",
        r.fills,
        r.errors,
        r.measured,
        q(0.5),
        q(0.99),
        q(0.999),
        r.rtt.max() as f64 / 1000.0,
        r.throughput(),
        r.venue_seq,
        r.gateway_seq
    );
    r.check(cfg.warmup + cfg.count)?;
    Ok(())
}

//! `peregrine`: one binary for the trading topology (`run`), the benchmarks, the
//! acceptor and the initiator.
#![forbid(unsafe_code)]

use peregrine_bench::alloc::CountingAllocator;
use std::process::ExitCode;

mod serve;

// Benchmarks report allocations per operation; counting costs one relaxed
// atomic add per allocation, nothing on allocation-free paths.
#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const USAGE: &str = "usage:
  peregrine acceptor --config FILE [--app echo] [--store memory|file]
  peregrine initiator --config FILE
  peregrine bench codec [--runs N] [--iters N] [--warmup N] [--peers a,b|none] [--smoke] [--out FILE]
  peregrine bench typed [--runs N] [--iters N] [--warmup N] [--peers a,b|none] [--smoke] [--out FILE]
  peregrine bench e2e   [--runs N] [--count N] [--warmup N] [--peers quickfixj,artio|none] [--no-floor] [--smoke] [--out FILE]
  peregrine run [--count N] [--warmup N] [--out FILE]
      the trading topology: Venue (FIX initiator) ⇄ TCP ⇄ Gateway (FIX acceptor) ⇄ Aeron IPC ⇄ Executor

  --smoke   a tiny run (1 run, few iterations) to check that everything works";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("peregrine: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    match args.first().map(String::as_str) {
        Some("bench") => bench(&args[1..]),
        Some("run") => topology(&args[1..]),
        Some("acceptor") => serve::acceptor(&args[1..]),
        Some("initiator") => serve::initiator(&args[1..]),
        Some("-h" | "--help" | "help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command {other:?}\n{USAGE}")),
    }
}

/// Parses `--key value` pairs and flags after the benchmark name.
struct Opts<'a> {
    args: &'a [String],
}

impl<'a> Opts<'a> {
    fn flag(&self, name: &str) -> bool {
        self.args.iter().any(|a| a == name)
    }
    fn value(&self, name: &str) -> Result<Option<&'a str>, String> {
        match self.args.iter().position(|a| a == name) {
            None => Ok(None),
            Some(i) => self
                .args
                .get(i + 1)
                .map(|s| Some(s.as_str()))
                .ok_or_else(|| format!("{name} needs a value")),
        }
    }
    fn number(&self, name: &str) -> Result<Option<u64>, String> {
        self.value(name)?
            .map(|v| {
                v.parse::<u64>()
                    .map_err(|_| format!("{name}: {v:?} is not a number"))
            })
            .transpose()
    }
    fn check_known(&self, known: &[&str]) -> Result<(), String> {
        for a in self.args.iter().filter(|a| a.starts_with("--")) {
            if !known.contains(&a.as_str()) {
                return Err(format!("unknown option {a}\n{USAGE}"));
            }
        }
        Ok(())
    }
}

fn bench(args: &[String]) -> Result<(), String> {
    let name = args.first().map(String::as_str).ok_or(USAGE)?;
    let opts = Opts { args: &args[1..] };
    match name {
        "codec" => {
            opts.check_known(&[
                "--runs", "--iters", "--warmup", "--peers", "--smoke", "--out",
            ])?;
            let mut cfg = peregrine_bench::codec::CodecBenchConfig::default();
            if opts.flag("--smoke") {
                cfg.runs = 1;
                cfg.iters = 2_000;
                cfg.warmup = 2_000;
            }
            cfg.runs = opts
                .number("--runs")?
                .map_or(cfg.runs, |n| n as usize)
                .max(1);
            cfg.iters = opts.number("--iters")?.unwrap_or(cfg.iters).max(1);
            cfg.warmup = opts.number("--warmup")?.unwrap_or(cfg.warmup);
            if let Some(p) = opts.value("--peers")? {
                cfg.peers = if p == "none" {
                    vec![]
                } else {
                    p.split(',').map(str::to_string).collect()
                };
            }
            if let Some(o) = opts.value("--out")? {
                cfg.out = o.into();
            }
            peregrine_bench::codec::run(&cfg).map(|_| ())
        }
        "typed" => {
            opts.check_known(&[
                "--runs", "--iters", "--warmup", "--peers", "--smoke", "--out",
            ])?;
            let mut cfg = peregrine_bench::typed::TypedBenchConfig::default();
            let (runs, iters, warmup) = (
                opts.number("--runs")?,
                opts.number("--iters")?,
                opts.number("--warmup")?,
            );
            cfg.apply(
                opts.flag("--smoke"),
                runs,
                iters,
                warmup,
                opts.value("--peers")?,
                opts.value("--out")?,
            );
            peregrine_bench::typed::run(&cfg).map(|_| ())
        }
        "e2e" => {
            opts.check_known(&[
                "--runs",
                "--count",
                "--warmup",
                "--peers",
                "--no-floor",
                "--smoke",
                "--out",
            ])?;
            let mut cfg = peregrine_bench::e2e::E2eBenchConfig::default();
            let (runs, count, warmup) = (
                opts.number("--runs")?,
                opts.number("--count")?,
                opts.number("--warmup")?,
            );
            cfg.apply(
                opts.flag("--smoke"),
                runs,
                count,
                warmup,
                opts.value("--peers")?,
                opts.value("--out")?,
            );
            cfg.floor = !opts.flag("--no-floor");
            peregrine_bench::e2e::run(&cfg).map(|_| ())
        }
        other => Err(format!("unknown benchmark {other:?}\n{USAGE}")),
    }
}

/// `peregrine run` (`make run`): the trading topology, 10,000 warm-up and 100,000
/// measured round trips by default.
fn topology(args: &[String]) -> Result<(), String> {
    let opts = Opts { args };
    opts.check_known(&["--count", "--warmup", "--out"])?;
    // Defaults: 10,000 warm-up + 100,000 measured, target/bench-results/topology.json.
    let mut cfg = peregrine_topology::demo::DemoConfig::default();
    cfg.count = opts.number("--count")?.unwrap_or(cfg.count).max(1);
    cfg.warmup = opts.number("--warmup")?.unwrap_or(cfg.warmup);
    if let Some(o) = opts.value("--out")? {
        cfg.out = o.into();
    }
    peregrine_topology::demo::run(&cfg).map_err(|e| e.to_string())
}

//! `peregrine`: one binary for the trading topology (`run`), the benchmarks, the
//! acceptor and the initiator.
#![forbid(unsafe_code)]

use peregrine_bench::alloc::CountingAllocator;
use std::process::ExitCode;

mod error;
mod serve;

use error::Error;

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
  peregrine bench send  [--runs N] [--count N] [--warmup N] [--messages N] [--pace-us N] [--smoke] [--out FILE]
      the engine's send handle: app thread → wire latency (busy-spin and block), sends/s
      from 1 and 4 producer threads, allocations per message (any in steady state fails)
  peregrine bench roundtrip [--runs N] [--iters N] [--warmup N] [--fsync-iters N]
                            [--configs balanced,optimized,fsync] [--peers quickfixj,quickfix-cpp|none]
                            [--no-floor] [--smoke] [--out FILE]
      the round trip with session guarantees, two processes per engine (BENCHMARKS.md §4);
      fsync runs 2,000 + 200 round trips unless --fsync-iters says otherwise
  peregrine bench scale [--runs N] [--seconds S] [--sessions 1000,10000] [--parts stream,sessions]
                        [--peers quickfixj,quickfix-cpp|none] [--smoke] [--out FILE]
      streaming one way (memory and file store) and many sessions on one acceptor thread
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

fn run(args: &[String]) -> Result<(), Error> {
    match args.first().map(String::as_str) {
        Some("bench") => bench(&args[1..]),
        Some("run") => topology(&args[1..]),
        Some("acceptor") => serve::acceptor(&args[1..]),
        Some("initiator") => serve::initiator(&args[1..]),
        Some("-h" | "--help" | "help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(Error::Usage(format!("unknown command {other:?}\n{USAGE}"))),
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
    fn value(&self, name: &str) -> Result<Option<&'a str>, Error> {
        match self.args.iter().position(|a| a == name) {
            None => Ok(None),
            Some(i) => self
                .args
                .get(i + 1)
                .map(|s| Some(s.as_str()))
                .ok_or_else(|| Error::Usage(format!("{name} needs a value"))),
        }
    }
    fn number(&self, name: &str) -> Result<Option<u64>, Error> {
        self.value(name)?
            .map(|v| {
                v.parse::<u64>()
                    .map_err(|_| Error::Usage(format!("{name}: {v:?} is not a number")))
            })
            .transpose()
    }
    fn check_known(&self, known: &[&str]) -> Result<(), Error> {
        for a in self.args.iter().filter(|a| a.starts_with("--")) {
            if !known.contains(&a.as_str()) {
                return Err(Error::Usage(format!("unknown option {a}\n{USAGE}")));
            }
        }
        Ok(())
    }
    /// The options every benchmark takes, refusing any other but `extra`; `count`
    /// names the measured operations (`--iters`, or `--count` for `e2e`).
    fn bench_options(
        &self,
        count: &str,
        extra: &[&str],
    ) -> Result<peregrine_bench::Options<'a>, Error> {
        let mut known = vec!["--runs", count, "--warmup", "--peers", "--smoke", "--out"];
        known.extend_from_slice(extra);
        self.check_known(&known)?;
        Ok(peregrine_bench::Options {
            smoke: self.flag("--smoke"),
            runs: self.number("--runs")?,
            iters: self.number(count)?,
            warmup: self.number("--warmup")?,
            peers: self.value("--peers")?,
            out: self.value("--out")?,
        })
    }
}

fn bench(args: &[String]) -> Result<(), Error> {
    let name = args
        .first()
        .map(String::as_str)
        .ok_or_else(|| Error::Usage(USAGE.into()))?;
    let opts = Opts { args: &args[1..] };
    match name {
        "codec" => {
            let mut cfg = peregrine_bench::codec::CodecBenchConfig::default();
            cfg.apply(&opts.bench_options("--iters", &[])?);
            peregrine_bench::codec::run(&cfg)?;
        }
        "typed" => {
            let mut cfg = peregrine_bench::typed::TypedBenchConfig::default();
            cfg.apply(&opts.bench_options("--iters", &[])?);
            peregrine_bench::typed::run(&cfg)?;
        }
        "e2e" => {
            let mut cfg = peregrine_bench::e2e::E2eBenchConfig::default();
            cfg.apply(&opts.bench_options("--count", &["--no-floor"])?);
            cfg.floor = !opts.flag("--no-floor");
            peregrine_bench::e2e::run(&cfg)?;
        }
        "roundtrip" => {
            let mut cfg = peregrine_bench::roundtrip::RoundTripConfig::default();
            cfg.apply(
                &opts.bench_options("--iters", &["--no-floor", "--configs", "--fsync-iters"])?,
            );
            cfg.floor = !opts.flag("--no-floor");
            if let Some(c) = opts.value("--configs")? {
                cfg.configs = peregrine_bench::roundtrip::RtConfig::parse_list(c)?;
            }
            if let Some(n) = opts.number("--fsync-iters")? {
                cfg.fsync_iters = n.max(1);
                cfg.fsync_warmup = n / 10;
            }
            peregrine_bench::roundtrip::run(&cfg)?;
        }
        // Hidden: one side of the round trip, started by `bench roundtrip` itself.
        "roundtrip-peer" => peregrine_bench::roundtrip::peer_main(&args[1..])?,
        "send" => {
            let mut cfg = peregrine_bench::send::SendBenchConfig::default();
            let options = opts.bench_options("--count", &["--messages", "--pace-us"])?;
            if options.peers.is_some() {
                return Err(Error::Usage(
                    "bench send has no peers (it measures Peregrine's Sender alone)".into(),
                ));
            }
            cfg.apply(&options);
            if let Some(n) = opts.number("--messages")? {
                cfg.messages = n.max(1);
            }
            if let Some(n) = opts.number("--pace-us")? {
                cfg.pace = std::time::Duration::from_micros(n);
            }
            peregrine_bench::send::run(&cfg)?;
        }
        "scale" => {
            peregrine_bench::scale::run(&peregrine_bench::scale::ScaleBenchConfig::parse(
                &args[1..],
            )?)?;
        }
        // The harnesses `bench scale` starts (not in the usage: BENCHMARKS.md §5).
        "stream-peer" => peregrine_bench::scale::stream::main(&args[1..])?,
        "scale-peer" => peregrine_bench::scale::sessions::main(&args[1..])?,
        other => {
            return Err(Error::Usage(format!(
                "unknown benchmark {other:?}\n{USAGE}"
            )))
        }
    }
    Ok(())
}

/// `peregrine run` (`make run`): the trading topology, 10,000 warm-up and 100,000
/// measured round trips by default.
fn topology(args: &[String]) -> Result<(), Error> {
    let opts = Opts { args };
    opts.check_known(&["--count", "--warmup", "--out"])?;
    // Defaults: 10,000 warm-up + 100,000 measured, target/bench-results/topology.json.
    let mut cfg = peregrine_topology::demo::DemoConfig::default();
    cfg.count = opts.number("--count")?.unwrap_or(cfg.count).max(1);
    cfg.warmup = opts.number("--warmup")?.unwrap_or(cfg.warmup);
    if let Some(o) = opts.value("--out")? {
        cfg.out = o.into();
    }
    Ok(peregrine_topology::demo::run(&cfg)?)
}

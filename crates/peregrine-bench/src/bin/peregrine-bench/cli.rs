//! The benchmark binary's command line, declared with clap's derive API: every
//! benchmark, its options and their help, and `run` (the trading topology's demo).
//! `peregrine bench ARGS` runs `peregrine-bench ARGS`, and `peregrine run ARGS`
//! runs `peregrine-bench run ARGS` (the `peregrine` binary finds this one next to
//! itself, then on PATH), so these are also the lines of `peregrine bench`.
//!
//! The names and meanings are those the Makefile, the benchmark drivers and the
//! tests use; the unit tests below parse each of those command lines.

use clap::{Args, Parser, Subcommand};

/// Peregrine's benchmarks (BENCHMARKS.md): Peregrine and its peers side by side,
/// and the trading topology's demo (`run`, what `make run` runs).
#[derive(Debug, Parser)]
#[command(name = "peregrine-bench", version, max_term_width = 100)]
pub struct Cli {
    /// What to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands: a benchmark (or a harness process of one), or the topology.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The benchmarks, flattened: `peregrine-bench codec`, `peregrine-bench scale`, ….
    #[command(flatten)]
    Bench(Bench),
    /// Run the trading topology: Venue (FIX initiator) ⇄ TCP ⇄ Gateway (FIX
    /// acceptor) ⇄ Aeron IPC ⇄ Executor, and report its round trips.
    Run(RunArgs),
}

/// The benchmarks (`peregrine-bench NAME`, or `peregrine bench NAME`).
#[derive(Debug, Subcommand)]
pub enum Bench {
    /// §1: parse+validate+read 4 fields, parse, encode; vs QuickFIX C++ and QuickFIX/J.
    Codec(IterArgs),
    /// §2: typed messages with repeating groups, write and read; vs QuickFIX C++ and QuickFIX/J.
    Typed(IterArgs),
    /// §3: the trading topology's round trip; vs QuickFIX/J + Aeron, Artio and the transport floor.
    E2e(E2eArgs),
    /// §6: the engine's send handle: app thread → wire latency (busy-spin and
    /// block), sends/s from 1 and 4 producer threads, allocations per message
    /// (any in steady state fails).
    Send(SendArgs),
    /// §4: the round trip with session guarantees, two processes per engine;
    /// fsync runs 2,000 + 200 round trips unless --fsync-iters says otherwise.
    Roundtrip(RoundtripArgs),
    /// §5: streaming one way (memory and file store) and many sessions on one
    /// acceptor thread.
    Scale(ScaleArgs),
    /// §8: an order gateway, client load → router → exchange → router → client, three
    /// processes; Peregrine's router (examples/router.rs) against QuickFIX/J's, 1 and
    /// 100 client sessions, the router's allocations per order.
    Gateway(GatewayArgs),
    /// One side of the round trip, started by `bench roundtrip` itself.
    #[command(hide = true)]
    RoundtripPeer(HarnessArgs),
    /// A streaming harness, started by `bench scale` itself (BENCHMARKS.md §5).
    #[command(hide = true)]
    StreamPeer(HarnessArgs),
    /// A many-sessions harness, started by `bench scale` itself (BENCHMARKS.md §5).
    #[command(hide = true)]
    ScalePeer(HarnessArgs),
    /// A gateway process (exchange, router, load), started by `bench gateway` itself.
    #[command(hide = true)]
    GatewayPeer(HarnessArgs),
}

/// The options every benchmark takes.
#[derive(Debug, Args)]
pub struct CommonBenchArgs {
    /// Interleaved runs (at least 1).
    #[arg(long, value_name = "N")]
    pub runs: Option<u64>,
    /// Warm-up operations per case per run.
    #[arg(long, value_name = "N")]
    pub warmup: Option<u64>,
    /// A tiny run (1 run, few iterations) to check that everything works.
    #[arg(long)]
    pub smoke: bool,
    /// Where the JSON results go (default target/bench-results/NAME.json).
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
}

/// `bench codec` and `bench typed`.
#[derive(Debug, Args)]
pub struct IterArgs {
    /// Runs, warm-up, smoke, output.
    #[command(flatten)]
    pub common: CommonBenchArgs,
    /// Measured operations per case per run (at least 1).
    #[arg(long, value_name = "N")]
    pub iters: Option<u64>,
    /// Peer engines, separated by commas (quickfix-cpp, quickfixj), or none.
    #[arg(long, value_name = "a,b|none")]
    pub peers: Option<String>,
}

/// `bench e2e`.
#[derive(Debug, Args)]
pub struct E2eArgs {
    /// Runs, warm-up, smoke, output.
    #[command(flatten)]
    pub common: CommonBenchArgs,
    /// Measured round trips per case per run (at least 1).
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// Peer engines, separated by commas (quickfixj, artio), or none.
    #[arg(long, value_name = "quickfixj,artio|none")]
    pub peers: Option<String>,
    /// Leave out the transport floor.
    #[arg(long)]
    pub no_floor: bool,
}

/// `bench send` (Peregrine alone: no peers).
#[derive(Debug, Args)]
pub struct SendArgs {
    /// Runs, warm-up, smoke, output.
    #[command(flatten)]
    pub common: CommonBenchArgs,
    /// Paced messages per idle strategy (at least 1).
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// Messages per throughput case (at least 1).
    #[arg(long, value_name = "N")]
    pub messages: Option<u64>,
    /// Microseconds between paced messages.
    #[arg(long, value_name = "N")]
    pub pace_us: Option<u64>,
}

/// `bench roundtrip`.
#[derive(Debug, Args)]
pub struct RoundtripArgs {
    /// Runs, warm-up, smoke, output.
    #[command(flatten)]
    pub common: CommonBenchArgs,
    /// Measured round trips per config per run (at least 1).
    #[arg(long, value_name = "N")]
    pub iters: Option<u64>,
    /// Peer engines, separated by commas (quickfixj, quickfix-cpp), or none;
    /// a peer named here must be built.
    #[arg(long, value_name = "quickfixj,quickfix-cpp|none")]
    pub peers: Option<String>,
    /// Leave out the TCP floor.
    #[arg(long)]
    pub no_floor: bool,
    /// The configs to run, separated by commas (tls: balanced over TLS 1.3, Peregrine
    /// only; production: balanced with message and event logs on at both ends; default
    /// all five).
    #[arg(long, value_name = "balanced,optimized,fsync,tls,production")]
    pub configs: Option<String>,
    /// Round trips of the fsync config (its warm-up is a tenth of them).
    #[arg(long, value_name = "N")]
    pub fsync_iters: Option<u64>,
}

/// `bench scale`: its options are read by the benchmark itself
/// ([`peregrine_bench::scale::ScaleBenchConfig::parse`]), to which they are
/// handed back as written.
#[derive(Debug, Args)]
pub struct ScaleArgs {
    /// Streaming runs (the many-sessions part runs min(N, 3)).
    #[arg(long, value_name = "N")]
    pub runs: Option<u64>,
    /// The measured window of each case, in seconds (default 5).
    #[arg(long, value_name = "S")]
    pub seconds: Option<u64>,
    /// Session counts of the many-sessions part, separated by commas.
    #[arg(long, value_name = "1000,10000")]
    pub sessions: Option<String>,
    /// The parts to run, separated by commas.
    #[arg(long, value_name = "stream,sessions")]
    pub parts: Option<String>,
    /// Peer engines, separated by commas (quickfixj, quickfix-cpp), or none;
    /// peers not built are left out, saying so, unless named here.
    #[arg(long, value_name = "quickfixj,quickfix-cpp|none")]
    pub peers: Option<String>,
    /// A tiny run (1 run of 1 s, 50 sessions) to check that everything works.
    #[arg(long)]
    pub smoke: bool,
    /// Where the JSON results go (default target/bench-results/scale.json).
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
    /// The store of Peregrine's many-sessions acceptor: memory (default), file (a
    /// directory per session) or journal (EngineJournal=Y); file and journal fsync
    /// every commit.
    #[arg(long, value_name = "memory|file|journal")]
    pub sessions_store: Option<String>,
}

impl ScaleArgs {
    /// The options as `ScaleBenchConfig::parse` reads them.
    pub fn to_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        let mut pair = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                args.push(k.to_string());
                args.push(v);
            }
        };
        pair("--runs", self.runs.map(|n| n.to_string()));
        pair("--seconds", self.seconds.map(|n| n.to_string()));
        pair("--sessions", self.sessions.clone());
        pair("--parts", self.parts.clone());
        pair("--peers", self.peers.clone());
        pair("--out", self.out.clone());
        pair("--sessions-store", self.sessions_store.clone());
        if self.smoke {
            args.push("--smoke".into());
        }
        args
    }
}

/// `bench gateway`: its options are read by the benchmark itself
/// ([`peregrine_bench::gateway::GatewayConfig::parse`]), to which they are handed
/// back as written.
#[derive(Debug, Args)]
pub struct GatewayArgs {
    /// Interleaved runs (default 5).
    #[arg(long, value_name = "N")]
    pub runs: Option<u64>,
    /// The measured window of each run, in seconds (default 5).
    #[arg(long, value_name = "S")]
    pub seconds: Option<u64>,
    /// The warm-up before it, in seconds (default 3).
    #[arg(long, value_name = "S")]
    pub warmup_seconds: Option<u64>,
    /// Client session counts, separated by commas (default 1,100).
    #[arg(long, value_name = "1,100")]
    pub sessions: Option<String>,
    /// The routers beside Peregrine's (quickfixj) or none; left out, saying so, when
    /// not built unless named here.
    #[arg(long, value_name = "quickfixj|none")]
    pub peers: Option<String>,
    /// A tiny run (1 run, 1 s warm-up, 1 s measured) to check that everything works.
    #[arg(long)]
    pub smoke: bool,
    /// Where the JSON results go (default target/bench-results/gateway.json).
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
}

impl GatewayArgs {
    /// The options as `GatewayConfig::parse` reads them.
    pub fn to_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        let mut pair = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                args.push(k.to_string());
                args.push(v);
            }
        };
        pair("--runs", self.runs.map(|n| n.to_string()));
        pair("--seconds", self.seconds.map(|n| n.to_string()));
        pair(
            "--warmup-seconds",
            self.warmup_seconds.map(|n| n.to_string()),
        );
        pair("--sessions", self.sessions.clone());
        pair("--peers", self.peers.clone());
        pair("--out", self.out.clone());
        if self.smoke {
            args.push("--smoke".into());
        }
        args
    }
}

/// The arguments of a harness process, read by the harness itself.
#[derive(Debug, Args)]
pub struct HarnessArgs {
    /// --role and the rest, as the driver passes them.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    pub args: Vec<String>,
}

/// `run` (`peregrine run`).
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Measured round trips (default 100,000; at least 1).
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// Warm-up round trips (default 10,000).
    #[arg(long, value_name = "N")]
    pub warmup: Option<u64>,
    /// Where the JSON results go (default target/bench-results/topology.json).
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(line: &str) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("peregrine-bench").chain(line.split_whitespace()))
    }

    #[test]
    fn the_definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    fn bench(line: &str) -> Bench {
        match parse(line)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .command
        {
            Command::Bench(bench) => bench,
            other => panic!("{line}: {other:?}"),
        }
    }

    /// Every benchmark line of the Makefile (`make bench-*`, `make test`'s smoke runs).
    #[test]
    fn makefile_bench_lines_parse() {
        for name in ["codec", "typed"] {
            let (Bench::Codec(a) | Bench::Typed(a)) = bench(&format!(
                "{name} --smoke --out target/bench-results/smoke-{name}.json"
            )) else {
                panic!("{name}")
            };
            assert!(a.common.smoke);
            assert_eq!(
                a.common.out.as_deref(),
                Some(format!("target/bench-results/smoke-{name}.json").as_str())
            );
            assert!(matches!(bench(name), Bench::Codec(_) | Bench::Typed(_)));
        }
        let Bench::E2e(a) = bench("e2e --smoke --out target/bench-results/smoke-e2e.json") else {
            panic!()
        };
        assert!(a.common.smoke && !a.no_floor);
        let Bench::Send(a) = bench("send --smoke --out target/bench-results/smoke-send.json")
        else {
            panic!()
        };
        assert!(a.common.smoke);
        let Bench::Roundtrip(a) =
            bench("roundtrip --smoke --out target/bench-results/smoke-roundtrip.json")
        else {
            panic!()
        };
        assert!(a.common.smoke && a.configs.is_none());
        let Bench::Scale(a) = bench("scale --smoke --out target/bench-results/smoke-scale.json")
        else {
            panic!()
        };
        assert_eq!(
            a.to_args(),
            ["--out", "target/bench-results/smoke-scale.json", "--smoke"]
        );
        for name in ["e2e", "roundtrip", "send", "scale"] {
            bench(name);
        }
        assert!(matches!(parse("run").unwrap().command, Command::Run(_)));
    }

    /// The lines the tests in `tests/` and the benchmark drivers run.
    #[test]
    fn test_and_driver_lines_parse() {
        let Bench::Roundtrip(a) = bench(
            "roundtrip --runs 1 --peers none --iters 300 --warmup 20 \
             --configs balanced,optimized,fsync --out /tmp/r.json",
        ) else {
            panic!()
        };
        assert_eq!(
            (a.common.runs, a.iters, a.common.warmup),
            (Some(1), Some(300), Some(20))
        );
        assert_eq!(a.peers.as_deref(), Some("none"));
        assert_eq!(a.configs.as_deref(), Some("balanced,optimized,fsync"));
        let Bench::Scale(a) = bench(
            "scale --runs 1 --seconds 1 --peers none --out /tmp/s.json \
             --parts sessions --sessions 20",
        ) else {
            panic!()
        };
        let args = a.to_args();
        let cfg = peregrine_bench::scale::ScaleBenchConfig::parse(&args).unwrap();
        assert_eq!(
            (cfg.runs, cfg.seconds, cfg.stream, cfg.many),
            (1, 1, false, true)
        );
        assert_eq!(cfg.sessions, [20]);
        // The harnesses take their arguments as they are, options included.
        let Bench::StreamPeer(a) = bench(
            "stream-peer --role sender --port 9 --dict FIX44.xml --seconds 1 --dir /tmp/s \
             --gap-at 100",
        ) else {
            panic!()
        };
        assert_eq!(a.args[..2], ["--role", "sender"]);
        assert_eq!(a.args.last().map(String::as_str), Some("100"));
        let Bench::RoundtripPeer(a) = bench("roundtrip-peer --engine floor --role acceptor") else {
            panic!()
        };
        assert_eq!(a.args, ["--engine", "floor", "--role", "acceptor"]);
        assert!(matches!(
            bench("scale-peer --role load --sessions 1000"),
            Bench::ScalePeer(_)
        ));
    }

    /// `make bench-gateway`, its smoke run, and the harness line the driver starts.
    #[test]
    fn gateway_lines_parse() {
        let Bench::Gateway(a) =
            bench("gateway --smoke --runs 2 --sessions 1,10 --peers none --warmup-seconds 0")
        else {
            panic!()
        };
        assert_eq!(
            a.to_args(),
            [
                "--runs",
                "2",
                "--warmup-seconds",
                "0",
                "--sessions",
                "1,10",
                "--peers",
                "none",
                "--smoke"
            ]
        );
        let cfg = peregrine_bench::gateway::GatewayConfig::parse(&a.to_args()).unwrap();
        assert_eq!((cfg.runs, cfg.seconds, cfg.warmup_seconds), (2, 1, 0));
        let Bench::Gateway(a) = bench("gateway") else {
            panic!()
        };
        assert!(a.to_args().is_empty());
        let Bench::GatewayPeer(a) = bench("gateway-peer --role exchange --port 9000") else {
            panic!()
        };
        assert_eq!(a.args, ["--role", "exchange", "--port", "9000"]);
    }

    #[test]
    fn unknown_options_and_bad_numbers_are_refused() {
        for line in [
            "codec --count 5",
            "e2e --iters 5",
            "send --peers none",
            "codec --runs x",
            "nothing",
            "run --iters 3",
            "",
        ] {
            assert!(parse(line).is_err(), "{line} parsed");
        }
    }
}

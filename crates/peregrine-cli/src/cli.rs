//! The command line, declared with clap's derive API: every command, its
//! options and their help. What the commands do is elsewhere ([`crate::serve`],
//! `bench` (with the `bench` feature), [`crate::decode`], [`crate::check_config`]).
//!
//! The names and meanings are those the Makefile, `scripts/` and the tests
//! use; the unit tests below parse each of those command lines.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use peregrine_engine::fix::StoreKind;

/// Peregrine's one binary: FIX sessions from a QuickFIX-style `.cfg`, the
/// benchmarks, the trading topology's demo, and tools for logs and settings.
#[derive(Debug, Parser)]
#[command(name = "peregrine", version, max_term_width = 100)]
pub struct Cli {
    /// What to do (without one, this help).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the acceptor sessions of a .cfg file until SIGINT/SIGTERM.
    Acceptor {
        /// The settings file and the store.
        #[command(flatten)]
        session: SessionArgs,
        /// The application every session runs: echo sends back each
        /// application message; log logs what it receives and sends nothing.
        #[arg(long, value_enum, default_value_t = App::Echo)]
        app: App,
    },
    /// Run the initiator sessions of a .cfg file until SIGINT/SIGTERM.
    Initiator {
        /// The settings file and the store.
        #[command(flatten)]
        session: SessionArgs,
        /// The application every session runs: log logs what it receives and
        /// sends nothing; echo sends back each application message.
        #[arg(long, value_enum, default_value_t = App::Log)]
        app: App,
    },
    /// Run a benchmark: Peregrine and its peers side by side (BENCHMARKS.md).
    #[cfg(feature = "bench")]
    Bench {
        /// Which benchmark.
        #[command(subcommand)]
        bench: Bench,
    },
    /// Run the trading topology: Venue (FIX initiator) ⇄ TCP ⇄ Gateway (FIX
    /// acceptor) ⇄ Aeron IPC ⇄ Executor, and report its round trips.
    #[cfg(feature = "bench")]
    Run(RunArgs),
    /// Pretty-print FIX messages from a message log or a capture, with the
    /// dictionary's field and enum names.
    #[command(long_about = DECODE_ABOUT, after_long_help = DECODE_AFTER_HELP)]
    Decode(DecodeArgs),
    /// Check a .cfg file as start-up would, without starting a session:
    /// print a summary of each session, or every error found.
    #[command(long_about = CHECK_CONFIG_ABOUT)]
    CheckConfig(CheckConfigArgs),
    /// Work on message stores: import a QuickFIX engine's file stores.
    Store {
        /// What to do.
        #[command(subcommand)]
        store: StoreCommand,
    },
}

/// `peregrine store ...`.
#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Import QuickFIX/J's, QuickFIX/Go's or QuickFIX C++'s file stores (DIR, their
    /// FileStorePath) into the Peregrine stores the settings file names: both sequence
    /// numbers, the creation time and the stored messages, so the next Logon continues
    /// the same numbers and old messages can be resent. Each session of the settings
    /// file is looked for in DIR under the file name its QuickFIX engine gives it; a
    /// session Peregrine already stores is refused, never overwritten.
    Import(ImportArgs),
}

/// `peregrine store import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Which engine wrote the stores.
    #[arg(long, value_enum)]
    pub from: QuickfixFormat,
    /// The Peregrine settings file: its sessions, and where their stores go
    /// (FileStorePath, EngineJournal).
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// The QuickFIX engine's FileStorePath directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// The QuickFIX engines whose file stores `store import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum QuickfixFormat {
    /// QuickFIX/J's FileStore (.body, .header, .senderseqnums, .targetseqnums, .session).
    Quickfixj,
    /// QuickFIX/Go's file store (the same files, as text).
    Quickfixgo,
    /// QuickFIX C++'s FileStore (.body, .header, .seqnums, .session).
    Quickfix,
}

/// `acceptor` and `initiator`: where the settings are, which store.
#[derive(Debug, Args)]
pub struct SessionArgs {
    /// The QuickFIX-style settings file (its DEFAULT and SESSION sections).
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// The message store of every session, instead of the settings' choice
    /// (the file store where FileStorePath is set, else memory).
    #[arg(long, value_enum)]
    pub store: Option<Store>,
}

/// The application `acceptor` and `initiator` run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum App {
    /// Send back each application message.
    Echo,
    /// Log what arrives; send nothing.
    Log,
}

/// `--store`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Store {
    /// In memory: sequence numbers and messages are lost when the process ends.
    Memory,
    /// The crash-safe file journal under FileStorePath.
    File,
}

impl From<Store> for StoreKind {
    fn from(s: Store) -> StoreKind {
        match s {
            Store::Memory => StoreKind::Memory,
            Store::File => StoreKind::File,
        }
    }
}

#[cfg(feature = "bench")]
pub use bench_args::*;

/// The benchmarks' and the topology's arguments: only with the `bench`
/// feature (it builds Aeron and the benchmark crate; `make build` sets it).
#[cfg(feature = "bench")]
mod bench_args {
    use super::*;

    /// The benchmarks (`peregrine bench NAME`).
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

    /// `peregrine run`.
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
}

const DECODE_ABOUT: &str = "\
Pretty-print FIX messages from a message log or a capture, with the dictionary's field and \
enum names.

Input: QuickFIX-style message logs (a timestamp, ' : ' or ': ', then the message: what \
Peregrine, QuickFIX C++ and QuickFIX/J write) and raw FIX delimited by SOH or '|', any number \
of messages on a line or none. A message runs from 8=FIX to its CheckSum field (10=nnn); a \
line ending inside one ends it (it is reported as cut short). Input is read as a stream: \
memory stays bounded by the longest message (at most 1 MiB) whatever the size of the input.

Output: a header line per message (time, BeginString, MsgType, SenderCompID->TargetCompID, \
MsgSeqNum), then one line per field, 'tag  Name = value (ENUM)', repeating groups indented \
by level, each instance starting with '- '. Unknown tags print as 'tag  ? = value'. Control \
characters and bytes that are not UTF-8 print as \\xNN. With --json: one JSON object per \
message per line.

Dictionaries: QuickFIX's FIX 4.0-4.4, 5.0, 5.0SP1, 5.0SP2 and FIXT 1.1, built in, chosen by \
BeginString; for FIXT.1.1 the application dictionary is the message's ApplVerID, else the \
DefaultApplVerID of the session's Logon seen earlier in the input, else FIX.5.0SP2.

Problems (a message cut short, a bad BodyLength or CheckSum, a field that is not tag=value, \
text that is not FIX) are reported on stderr with their line number and decoding goes on. \
A message whose only problem is its BodyLength or CheckSum is printed too. Exit status: 0 \
when the input had no problem, 1 when any was reported (or the input could not be read), 2 \
for a command line clap refuses.";

const DECODE_AFTER_HELP: &str = concat!(
    "Examples:\n",
    "  peregrine decode log/FIX.4.4-ISLD-TW.messages.log\n",
    "  peregrine decode --msg-type NewOrderSingle,8 --tag 11,55,39 orders.log\n",
    "  tail -f log/FIX.4.4-ISLD-TW.messages.log | peregrine decode --json -\n",
    "\n",
    "The built-in dictionaries are QuickFIX's (crates/peregrine-dict/dictionaries). This \
     product includes software developed by quickfixengine.org \
     (http://www.quickfixengine.org/). Their licence:\n\n",
    include_str!("../../peregrine-dict/dictionaries/LICENSE.quickfix"),
);

/// `peregrine decode`.
#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// The log or capture to read; '-' or none: standard input.
    #[arg(value_name = "FILE|-")]
    pub input: Option<PathBuf>,
    /// A QuickFIX XML dictionary to use instead of the built-in one of the
    /// version it declares (e.g. a venue's FIX 4.4 with its own fields);
    /// may be given more than once.
    #[arg(long, value_name = "FILE")]
    pub dict: Vec<PathBuf>,
    /// Only messages between these CompIDs, in either direction (A->B also
    /// shows B's messages to A); may be given more than once.
    #[arg(long, value_name = "[BEGINSTRING:]SENDER->TARGET")]
    pub session: Vec<String>,
    /// Only messages of these MsgTypes, by value (D, 8) or name
    /// (NewOrderSingle), separated by commas.
    #[arg(long, value_name = "TYPE,...", value_delimiter = ',')]
    pub msg_type: Vec<String>,
    /// Print only these fields, by tag (11) or name (ClOrdID), separated by
    /// commas; the header line is always printed, and a repeating group's
    /// count field when a field inside it is printed.
    #[arg(long, value_name = "TAG,...", value_delimiter = ',')]
    pub tag: Vec<String>,
    /// Only messages with this field (TAG), or with this field at this value
    /// (TAG=VALUE; e.g. 11=ORD-17 or ClOrdID=ORD-17), in the body, header or
    /// any group instance; may be given more than once (all must hold).
    #[arg(long = "where", value_name = "TAG[=VALUE]")]
    pub where_: Vec<String>,
    /// Only session-level messages (Logon, Heartbeat, ResendRequest, ...).
    #[arg(long, conflicts_with = "app")]
    pub admin: bool,
    /// Only application messages.
    #[arg(long)]
    pub app: bool,
    /// One JSON object per message, one per line (JSON Lines).
    #[arg(long)]
    pub json: bool,
}

const CHECK_CONFIG_ABOUT: &str = "\
Check a .cfg file as start-up would, without starting a session, opening a socket or a store.

The settings are loaded as acceptor and initiator load them: every value is checked, naming \
file, line and key; the loader stops at the first such error. Then what start-up alone would \
find is checked for every session, and every problem is reported: dictionaries that do not \
exist or do not parse, FileStorePath and FileLogPath directories that could not be written or \
made (asked of the system, nothing is created), acceptor addresses that do not resolve, \
sessions sharing a port with different addresses, AdminHttpPort equal to an acceptor's port. \
Not checked: whether ports are free, whether initiators' hosts answer, whether an existing \
file store is damaged.

On success the sessions are summarised on stdout and the exit status is 0; otherwise each \
error is printed on stderr as FILE:LINE: KEY: what is wrong, and the exit status is 1. \
Warnings (unknown keys, QuickFIX keys Peregrine does not implement that only change logs or \
performance) are printed on stderr and do not fail the check.

With --keys, no file: every key Peregrine reads is printed, with its kind, range, default, \
where it comes from and what it does (the catalog the engine README's table comes from).";

/// `peregrine check-config`.
#[derive(Debug, Args)]
pub struct CheckConfigArgs {
    /// The settings file to check.
    #[arg(value_name = "FILE", required_unless_present = "keys")]
    pub file: Option<PathBuf>,
    /// Check as if every session used this store (as `acceptor --store`).
    #[arg(long, value_enum)]
    pub store: Option<Store>,
    /// Print every key Peregrine reads (kind, range, default, source, meaning) instead.
    #[arg(long, conflicts_with_all = ["file", "store"])]
    pub keys: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(line: &str) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("peregrine").chain(line.split_whitespace()))
    }

    #[cfg(feature = "bench")]
    fn bench(line: &str) -> Bench {
        match parse(line)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .command
        {
            Some(Command::Bench { bench }) => bench,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn the_definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    /// Every benchmark line of the Makefile (`make bench-*`, `make test`'s smoke runs).
    #[cfg(feature = "bench")]
    #[test]
    fn makefile_bench_lines_parse() {
        for name in ["codec", "typed"] {
            let (Bench::Codec(a) | Bench::Typed(a)) = bench(&format!(
                "bench {name} --smoke --out target/bench-results/smoke-{name}.json"
            )) else {
                panic!("{name}")
            };
            assert!(a.common.smoke);
            assert_eq!(
                a.common.out.as_deref(),
                Some(format!("target/bench-results/smoke-{name}.json").as_str())
            );
            assert!(matches!(
                bench(&format!("bench {name}")),
                Bench::Codec(_) | Bench::Typed(_)
            ));
        }
        let Bench::E2e(a) = bench("bench e2e --smoke --out target/bench-results/smoke-e2e.json")
        else {
            panic!()
        };
        assert!(a.common.smoke && !a.no_floor);
        let Bench::Send(a) = bench("bench send --smoke --out target/bench-results/smoke-send.json")
        else {
            panic!()
        };
        assert!(a.common.smoke);
        let Bench::Roundtrip(a) =
            bench("bench roundtrip --smoke --out target/bench-results/smoke-roundtrip.json")
        else {
            panic!()
        };
        assert!(a.common.smoke && a.configs.is_none());
        let Bench::Scale(a) =
            bench("bench scale --smoke --out target/bench-results/smoke-scale.json")
        else {
            panic!()
        };
        assert_eq!(
            a.to_args(),
            ["--out", "target/bench-results/smoke-scale.json", "--smoke"]
        );
        for name in ["e2e", "roundtrip", "send", "scale"] {
            bench(&format!("bench {name}"));
        }
        assert!(matches!(
            parse("run").unwrap().command,
            Some(Command::Run(_))
        ));
    }

    /// The lines the tests in `tests/` and the benchmark drivers run.
    #[cfg(feature = "bench")]
    #[test]
    fn test_and_driver_lines_parse() {
        let Bench::Roundtrip(a) = bench(
            "bench roundtrip --runs 1 --peers none --iters 300 --warmup 20 \
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
            "bench scale --runs 1 --seconds 1 --peers none --out /tmp/s.json \
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
            "bench stream-peer --role sender --port 9 --dict FIX44.xml --seconds 1 --dir /tmp/s \
             --gap-at 100",
        ) else {
            panic!()
        };
        assert_eq!(a.args[..2], ["--role", "sender"]);
        assert_eq!(a.args.last().map(String::as_str), Some("100"));
        let Bench::RoundtripPeer(a) = bench("bench roundtrip-peer --engine floor --role acceptor")
        else {
            panic!()
        };
        assert_eq!(a.args, ["--engine", "floor", "--role", "acceptor"]);
        assert!(matches!(
            bench("bench scale-peer --role load --sessions 1000"),
            Bench::ScalePeer(_)
        ));
    }

    /// `make bench-gateway`, its smoke run, and the harness line the driver starts.
    #[cfg(feature = "bench")]
    #[test]
    fn gateway_lines_parse() {
        let Bench::Gateway(a) =
            bench("bench gateway --smoke --runs 2 --sessions 1,10 --peers none --warmup-seconds 0")
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
        let Bench::Gateway(a) = bench("bench gateway") else {
            panic!()
        };
        assert!(a.to_args().is_empty());
        let Bench::GatewayPeer(a) = bench("bench gateway-peer --role exchange --port 9000") else {
            panic!()
        };
        assert_eq!(a.args, ["--role", "exchange", "--port", "9000"]);
    }

    /// `scripts/acceptance.sh` and `tests/acceptance.rs`, `tests/serve.rs`.
    #[test]
    fn acceptor_and_initiator_lines_parse() {
        let c = parse("acceptor --config a.cfg --app echo --store memory").unwrap();
        let Some(Command::Acceptor { session, app }) = c.command else {
            panic!()
        };
        assert_eq!(session.config, PathBuf::from("a.cfg"));
        assert_eq!((app, session.store), (App::Echo, Some(Store::Memory)));
        let Some(Command::Acceptor { session, app }) =
            parse("acceptor --config a.cfg --store file")
                .unwrap()
                .command
        else {
            panic!()
        };
        assert_eq!((app, session.store), (App::Echo, Some(Store::File)));
        let Some(Command::Initiator { session, app }) =
            parse("initiator --config i.cfg").unwrap().command
        else {
            panic!()
        };
        assert_eq!((app, session.store), (App::Log, None));
        assert!(parse("acceptor").is_err(), "--config is required");
        assert!(parse("acceptor --config a.cfg --app other").is_err());
        assert!(parse("acceptor --config a.cfg --store disk").is_err());
    }

    #[test]
    fn unknown_options_and_bad_numbers_are_refused() {
        for line in [
            "bench codec --count 5",
            "bench e2e --iters 5",
            "bench send --peers none",
            "bench codec --runs x",
            "bench nothing",
            "run --iters 3",
            "decode --nope",
            "decode --admin --app",
            "check-config",
            "frobnicate",
        ] {
            assert!(parse(line).is_err(), "{line} parsed");
        }
    }

    #[test]
    fn no_command_is_not_an_error() {
        assert!(parse("").unwrap().command.is_none());
    }

    #[test]
    fn decode_options() {
        let Some(Command::Decode(d)) = parse(
            "decode --session A->B --msg-type D,NewOrderSingle --msg-type 8 --tag 11,55 --json -",
        )
        .unwrap()
        .command
        else {
            panic!()
        };
        assert_eq!(d.input, Some(PathBuf::from("-")));
        assert_eq!(d.session, ["A->B"]);
        assert_eq!(d.msg_type, ["D", "NewOrderSingle", "8"]);
        assert_eq!(d.tag, ["11", "55"]);
        assert!(d.json && !d.admin && !d.app);
    }

    #[test]
    fn store_import_takes_an_engine_a_config_and_a_directory() {
        for (from, want) in [
            ("quickfixj", QuickfixFormat::Quickfixj),
            ("quickfixgo", QuickfixFormat::Quickfixgo),
            ("quickfix", QuickfixFormat::Quickfix),
        ] {
            let line = format!("store import --from {from} --config gw.cfg /var/fix/store");
            let Some(Command::Store {
                store: StoreCommand::Import(a),
            }) = parse(&line).unwrap().command
            else {
                panic!("{line}")
            };
            assert_eq!(a.from, want);
            assert_eq!(a.config, PathBuf::from("gw.cfg"));
            assert_eq!(a.dir, PathBuf::from("/var/fix/store"));
        }
        for line in [
            "store import --from quickfixj /var/fix/store",
            "store import --from quickfixj --config gw.cfg",
            "store import --from quickfixn --config gw.cfg d",
            "store import --config gw.cfg d",
        ] {
            assert!(parse(line).is_err(), "{line} parsed");
        }
    }
}

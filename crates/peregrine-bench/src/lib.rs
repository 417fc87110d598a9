//! # peregrine-bench
//!
//! The benchmark suite of BENCHMARKS.md, run by
//! `peregrine bench <name>`: every experiment runs Peregrine and its peers
//! (QuickFIX C++, QuickFIX/J, Artio, …) side by side, interleaved, several runs,
//! and reports medians across runs with min–max beside them.
//!
//! * [`measure`]: timing loops (batch mean, per-operation percentiles).
//! * [`alloc`]: the counting global allocator the benchmark binary installs.
//! * [`peers`]: running a peer harness and reading its JSON lines.
//! * [`loopback`]: the settings of our two-process benchmarks' engines, free ports.
//! * [`nonblocking`]: the raw-socket peers' writes.
//! * [`process`]: two-process benchmarks: start a harness, wait for `ready`, read its
//!   results, end it; RSS and the open-file limit.
//! * [`report`]: result records, aggregation across runs, Markdown and JSON
//!   (`peregrine-report`, shared with the topology's demo).
//! * [`results`]: a benchmark's JSON file and the plot beside it.
//! * [`codec`]: experiment 1, the codec.
//! * [`typed`]: experiment 2, typed messages with repeating groups.
//! * [`e2e`]: experiment 3, the trading topology against its peers and the transport
//!   floor. (`make run`'s demo is the topology crate's own: `peregrine_topology::demo`.)
//! * [`send`]: BENCHMARKS.md §6, the engine's send handle (`peregrine_engine::Sender`):
//!   app thread → wire latency, sends/s from one and four producers, allocations.
//! * [`roundtrip`]: BENCHMARKS.md §4, the round trip with session guarantees (the FIX
//!   Antenna experiment): two processes per engine, balanced / optimized / fsync, against
//!   QuickFIX/J, QuickFIX C++ and the TCP floor.
//! * [`scale`]: experiment 5, scale: one session streaming one way, and many sessions
//!   on one acceptor thread (Peregrine's harnesses and the driver).
//! * [`gateway`]: BENCHMARKS.md §8, an order gateway: client load → router → exchange →
//!   router → client, Peregrine's router against QuickFIX/J's.
#![deny(unsafe_code)]
#![warn(clippy::missing_errors_doc)]

pub mod alloc;
pub mod codec;
pub mod e2e;
mod error;
pub mod gateway;
pub mod loopback;
pub mod measure;
pub mod nonblocking;
pub mod order;
pub mod peers;
pub mod process;
pub mod results;
pub mod roundtrip;
pub mod scale;
pub mod send;
pub mod typed;

pub use error::{BoxedError, Error, Result};
pub use peregrine_report as report;
pub use peregrine_report::{progress, repo_root};

use std::path::PathBuf;

/// The FIX 4.4 dictionary the benchmarks load and hand to the peers (`--dict`): the
/// QuickFIX dictionary as copied in the dictionary crate
/// (`crates/peregrine-dict/dictionaries/FIX44.xml`).
///
/// ```
/// let dict = peregrine_bench::fix44_dictionary();
/// assert!(dict.ends_with("crates/peregrine-dict/dictionaries/FIX44.xml"));
/// ```
pub fn fix44_dictionary() -> PathBuf {
    repo_root().join("crates/peregrine-dict/dictionaries/FIX44.xml")
}

/// The command-line options every benchmark takes (`peregrine bench NAME …`): `--smoke`,
/// `--runs`, `--iters` (`--count` for `e2e` and `send`), `--warmup`, `--peers a,b|none`,
/// `--out`. Each benchmark's `apply` hands them to [`RunSettings::apply`] (which holds
/// the benchmark's smoke sizes), then sets what is its own.
///
/// ```
/// use peregrine_bench::codec::CodecBenchConfig;
/// use peregrine_bench::Options;
///
/// let mut cfg = CodecBenchConfig::default();
/// cfg.apply(&Options { smoke: true, runs: Some(2), peers: Some("none"), ..Options::default() });
/// assert_eq!((cfg.common.runs, cfg.common.iters), (2, 2_000));
/// assert!(cfg.common.peers.is_empty());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options<'a> {
    /// A tiny run to check that everything works.
    pub smoke: bool,
    /// `--runs`: interleaved runs (at least 1).
    pub runs: Option<u64>,
    /// `--iters` (`--count` for `e2e` and `send`): measured operations per case per run
    /// (at least 1).
    pub iters: Option<u64>,
    /// `--warmup`: warm-up operations per case per run.
    pub warmup: Option<u64>,
    /// `--peers`: engine names separated by commas, or `none`.
    pub peers: Option<&'a str>,
    /// `--out`: where the JSON goes.
    pub out: Option<&'a str>,
}

/// The sizes of a smoke run (`--smoke`: one run, to check that everything works, for CI
/// and `make test`), as each benchmark has them ([`RunSettings::smoke`]).
///
/// ```
/// use peregrine_bench::{e2e::E2eBenchConfig, Smoke};
/// assert_eq!(E2eBenchConfig::default().common.smoke, Smoke::LATENCY);
/// assert_eq!(Smoke::LATENCY, Smoke { iters: 2_000, warmup: 500 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Smoke {
    /// Measured operations per case.
    pub iters: u64,
    /// Warm-up operations per case.
    pub warmup: u64,
}

impl Smoke {
    /// The micro-benchmarks' smoke run (`codec`, `typed`): 2,000 operations per case
    /// after 2,000 warm-up.
    pub const MICRO: Smoke = Smoke {
        iters: 2_000,
        warmup: 2_000,
    };

    /// The latency benchmarks' smoke run (`e2e`, `roundtrip`, `send`): 2,000 round trips
    /// (messages) after 500 warm-up.
    pub const LATENCY: Smoke = Smoke {
        iters: 2_000,
        warmup: 500,
    };
}

/// The settings every benchmark has, whatever else it has: runs, measured and warm-up
/// operations (and what `--smoke` makes of them), peers, where the JSON goes. Each
/// benchmark's config holds one (`common`) and sets it from the command line with
/// [`RunSettings::apply`].
///
/// ```
/// use peregrine_bench::{Options, RunSettings, Smoke};
///
/// let mut s = RunSettings::new("demo", 1_000, 100, Smoke { iters: 20, warmup: 2 }, &["quickfixj"]);
/// assert_eq!((s.runs, s.iters, s.warmup), (5, 1_000, 100));
/// assert!(s.out.ends_with("target/bench-results/demo.json"));
/// s.apply(&Options { smoke: true, warmup: Some(7), ..Options::default() });
/// assert_eq!((s.runs, s.iters, s.warmup), (1, 20, 7));
/// assert_eq!(s.peers, ["quickfixj"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSettings {
    /// Interleaved runs.
    pub runs: usize,
    /// Measured operations (messages, round trips) per case per run.
    pub iters: u64,
    /// Warm-up operations per case per run (discarded; the peers' JIT warm-up).
    pub warmup: u64,
    /// The peer engines to include.
    pub peers: Vec<String>,
    /// Where the JSON goes (a plot, if the benchmark draws one, goes beside it: `.svg`).
    pub out: PathBuf,
    /// The measured and warm-up operations of a smoke run.
    pub smoke: Smoke,
}

impl RunSettings {
    /// A full run's settings: 5 runs of `iters` operations after `warmup`, against
    /// `peers`, the results in `target/bench-results/NAME.json` of the repository; a smoke
    /// run's sizes `smoke`.
    ///
    /// ```
    /// use peregrine_bench::{RunSettings, Smoke};
    /// let s = RunSettings::new("codec", 1_000_000, 2_000_000, Smoke::MICRO, &[]);
    /// assert_eq!(s.runs, 5);
    /// assert_eq!(s.out, peregrine_bench::repo_root().join("target/bench-results/codec.json"));
    /// ```
    pub fn new(name: &str, iters: u64, warmup: u64, smoke: Smoke, peers: &[&str]) -> RunSettings {
        RunSettings {
            runs: 5,
            iters,
            warmup,
            peers: peers.iter().map(|p| p.to_string()).collect(),
            out: repo_root().join(format!("target/bench-results/{name}.json")),
            smoke,
        }
    }

    /// Applies the command-line options: `--smoke` sets one run of the [`smoke`](Self::smoke) sizes, then
    /// each option given replaces its setting (the others stay); runs and measured
    /// operations are at least 1, `--peers none` is no peer.
    ///
    /// ```
    /// use std::path::Path;
    /// use peregrine_bench::{Options, RunSettings, Smoke};
    ///
    /// let mut s = RunSettings::new("demo", 1_000, 100, Smoke { iters: 20, warmup: 2 }, &["quickfixj"]);
    /// s.apply(&Options { runs: Some(0), peers: Some("artio,quickfixj"), out: Some("a.json"), ..Default::default() });
    /// assert_eq!((s.runs, s.iters, s.warmup), (1, 1_000, 100));
    /// assert_eq!(s.peers, ["artio", "quickfixj"]);
    /// assert_eq!(s.out, Path::new("a.json"));
    /// s.apply(&Options { peers: Some("none"), iters: Some(0), ..Default::default() });
    /// assert_eq!((s.iters, s.peers.len()), (1, 0));
    /// ```
    pub fn apply(&mut self, options: &Options<'_>) {
        if options.smoke {
            self.runs = 1;
            self.iters = self.smoke.iters;
            self.warmup = self.smoke.warmup;
        }
        self.runs = options.runs.map_or(self.runs, |n| n as usize).max(1);
        self.iters = options.iters.unwrap_or(self.iters).max(1);
        self.warmup = options.warmup.unwrap_or(self.warmup);
        if let Some(p) = options.peers {
            self.peers = peer_list(p);
        }
        if let Some(o) = options.out {
            self.out = o.into();
        }
    }
}

/// `--peers`' value as engine names: `a,b` → `["a", "b"]`, `none` → none.
pub(crate) fn peer_list(peers: &str) -> Vec<String> {
    if peers == "none" {
        vec![]
    } else {
        peers.split(',').map(str::to_string).collect()
    }
}

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
#![deny(unsafe_code)]
#![warn(clippy::missing_errors_doc)]

pub mod alloc;
pub mod codec;
pub mod e2e;
mod error;
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
/// `--runs`, `--iters` (`--count` for `e2e`), `--warmup`, `--peers a,b|none`, `--out`.
/// Each benchmark's `apply` sets a smoke run's sizes, then [`Options::apply_to`] the
/// rest.
///
/// ```
/// use peregrine_bench::codec::CodecBenchConfig;
/// use peregrine_bench::Options;
///
/// let mut cfg = CodecBenchConfig::default();
/// cfg.apply(&Options { smoke: true, runs: Some(2), peers: Some("none"), ..Options::default() });
/// assert_eq!((cfg.runs, cfg.iters), (2, 2_000));
/// assert!(cfg.peers.is_empty());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options<'a> {
    /// A tiny run to check that everything works.
    pub smoke: bool,
    /// `--runs`: interleaved runs (at least 1).
    pub runs: Option<u64>,
    /// `--iters` (`--count` for `e2e`): measured operations per case per run (at least 1).
    pub iters: Option<u64>,
    /// `--warmup`: warm-up operations per case per run.
    pub warmup: Option<u64>,
    /// `--peers`: engine names separated by commas, or `none`.
    pub peers: Option<&'a str>,
    /// `--out`: where the JSON goes.
    pub out: Option<&'a str>,
}

impl Options<'_> {
    /// Applies the options given to a benchmark's settings (the others stay).
    ///
    /// ```
    /// use std::path::PathBuf;
    /// let (mut runs, mut iters, mut warmup) = (5, 1_000, 100);
    /// let (mut peers, mut out) = (vec!["quickfixj".to_string()], PathBuf::from("a.json"));
    /// peregrine_bench::Options { runs: Some(0), peers: Some("artio,quickfixj"), ..Default::default() }
    ///     .apply_to(&mut runs, &mut iters, &mut warmup, &mut peers, &mut out);
    /// assert_eq!((runs, iters, warmup), (1, 1_000, 100));
    /// assert_eq!(peers, ["artio", "quickfixj"]);
    /// ```
    pub fn apply_to(
        &self,
        runs: &mut usize,
        iters: &mut u64,
        warmup: &mut u64,
        peers: &mut Vec<String>,
        out: &mut PathBuf,
    ) {
        *runs = self.runs.map_or(*runs, |n| n as usize).max(1);
        *iters = self.iters.unwrap_or(*iters).max(1);
        *warmup = self.warmup.unwrap_or(*warmup);
        if let Some(p) = self.peers {
            *peers = if p == "none" {
                vec![]
            } else {
                p.split(',').map(str::to_string).collect()
            };
        }
        if let Some(o) = self.out {
            *out = o.into();
        }
    }
}

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
//! * [`report`]: result records, aggregation across runs, Markdown and JSON
//!   (`peregrine-report`, shared with the topology's demo).
//! * [`codec`]: experiment 1, the codec.
//! * [`typed`]: experiment 2, typed messages with repeating groups.
//! * [`e2e`]: experiment 3, the trading topology against its peers and the transport
//!   floor. (`make run`'s demo is the topology crate's own: `peregrine_topology::demo`.)
#![deny(unsafe_code)]

pub mod alloc;
pub mod codec;
pub mod e2e;
pub mod measure;
pub mod peers;
pub mod typed;

pub use peregrine_report as report;
pub use peregrine_report::{progress, repo_root};

use std::path::PathBuf;

/// The FIX 4.4 dictionary the benchmarks load and hand to the peers (`--dict`): the
/// QuickFIX dictionary as copied in the dictionary crate
/// (`crates/peregrine-dict/dictionaries/FIX44.xml`).
pub fn fix44_dictionary() -> PathBuf {
    repo_root().join("crates/peregrine-dict/dictionaries/FIX44.xml")
}

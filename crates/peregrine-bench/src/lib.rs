//! # peregrine-bench
//!
//! The benchmark suite of `../shared/design/BENCHMARKS.md`, run by
//! `peregrine bench <name>`: every experiment runs Peregrine and its peers
//! (QuickFIX C++, QuickFIX/J, Artio, …) side by side, interleaved, several runs,
//! and reports medians across runs with min–max beside them.
//!
//! * [`measure`]: timing loops (batch mean, per-operation percentiles).
//! * [`alloc`]: the counting global allocator the benchmark binary installs.
//! * [`peers`]: running a peer harness and reading its JSON lines.
//! * [`report`]: result records, aggregation across runs, Markdown and JSON.
//! * [`codec`]: experiment 1, the codec.
//! * [`typed`]: experiment 2, typed messages with repeating groups.
//! * [`e2e`]: experiment 3, the trading topology (and `make run`'s demo).
#![deny(unsafe_code)]

pub mod alloc;
pub mod codec;
pub mod e2e;
pub mod measure;
pub mod peers;
pub mod progress;
pub mod report;
pub mod typed;

use std::path::PathBuf;

/// Where the repository is: `PEREGRINE_ROOT`, or found upward from the current directory
/// (the first directory holding `peers/` and `Cargo.toml`).
pub fn repo_root() -> PathBuf {
    if let Ok(p) = std::env::var("PEREGRINE_ROOT") {
        return PathBuf::from(p);
    }
    let mut dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    loop {
        if dir.join("peers").is_dir() && dir.join("Cargo.toml").is_file() {
            return dir;
        }
        if !dir.pop() {
            return PathBuf::from(".");
        }
    }
}

/// The shared data folder (`../shared` beside the repository, or `PEREGRINE_SHARED`).
pub fn shared_dir() -> PathBuf {
    std::env::var("PEREGRINE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| repo_root().join("..").join("shared"))
}

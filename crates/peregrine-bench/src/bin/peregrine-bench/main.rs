//! `peregrine-bench`: the benchmarks of BENCHMARKS.md (`peregrine-bench codec`, `…
//! scale`, …), the harness processes they start (`peregrine-bench scale-peer …`),
//! and the trading topology's demo (`peregrine-bench run`, what `make run` runs).
//! `peregrine bench ARGS` and `peregrine run ARGS` run this binary (found next to
//! `peregrine`, then on PATH), so they stay out of the light `peregrine` binary:
//! they build Aeron's C driver and the benchmark crate.
//!
//! Exit status: 0 on success; 1 with `peregrine-bench: <error>` on stderr when a
//! benchmark fails; 2 when clap refuses the command line, with clap's message.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;

mod cli;
mod run;

use cli::{Cli, Command};

// Benchmarks report allocations per operation; counting costs one relaxed
// atomic add per allocation, nothing on allocation-free paths.
#[global_allocator]
static ALLOCATOR: peregrine_bench::alloc::CountingAllocator =
    peregrine_bench::alloc::CountingAllocator;

fn main() -> ExitCode {
    let cli = Cli::try_parse().unwrap_or_else(|e| e.exit());
    let done = match cli.command {
        Command::Bench(bench) => run::bench(bench),
        Command::Run(args) => run::topology(args),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("peregrine-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

//! `peregrine`: one binary for FIX sessions (`acceptor`, `initiator`), the
//! benchmarks (`bench`), the trading topology (`run`), and tools for message
//! logs (`decode`), settings files (`check-config`) and QuickFIX stores
//! (`store import`). `peregrine --help` and
//! `peregrine COMMAND --help` say how each goes.
//!
//! Exit status: 0 on success; 1 with `peregrine: <error>` on stderr when a
//! command fails; 2 when clap refuses the command line (an unknown option, a
//! missing or bad value), with clap's message.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

#[cfg(feature = "bench")]
mod bench;
mod check_config;
mod cli;
mod decode;
mod error;
mod ha;
mod import;
mod serve;

use cli::{Cli, Command};
use error::Error;

// Benchmarks report allocations per operation; counting costs one relaxed
// atomic add per allocation, nothing on allocation-free paths. Only in a
// binary built with the benchmarks (the `bench` feature).
#[cfg(feature = "bench")]
#[global_allocator]
static ALLOCATOR: peregrine_bench::alloc::CountingAllocator =
    peregrine_bench::alloc::CountingAllocator;

fn main() -> ExitCode {
    let cli = Cli::try_parse().unwrap_or_else(|e| e.exit());
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("peregrine: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Some(Command::Acceptor { session, app }) => serve::acceptor(session, app),
        Some(Command::Initiator { session, app }) => serve::initiator(session, app),
        #[cfg(feature = "bench")]
        Some(Command::Bench { bench }) => bench::run(bench),
        #[cfg(feature = "bench")]
        Some(Command::Run(args)) => bench::topology(args),
        Some(Command::Decode(args)) => decode::run(args),
        Some(Command::CheckConfig(args)) => check_config::run(args),
        Some(Command::Store {
            store: cli::StoreCommand::Import(args),
        }) => import::run(&args).map_err(Error::Import),
        // No command: the help, as `peregrine --help`, and success.
        None => Cli::command().print_help().map_err(|source| Error::Io {
            what: "cannot write the help".into(),
            source,
        }),
    }
}

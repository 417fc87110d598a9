//! `peregrine`: one binary for FIX sessions (`acceptor`, `initiator`), and
//! tools for message logs (`decode`), settings files (`check-config`) and
//! QuickFIX stores (`store import`); the benchmarks (`bench`) and the trading
//! topology (`run`) are run by the `peregrine-bench` binary ([`external`]).
//! `peregrine --help` and `peregrine COMMAND --help` say how each goes.
//!
//! Exit status: 0 on success; 1 with `peregrine: <error>` on stderr when a
//! command fails; 2 when clap refuses the command line (an unknown option, a
//! missing or bad value), with clap's message; `bench` and `run`:
//! `peregrine-bench`'s.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

mod check_config;
mod cli;
mod decode;
mod error;
mod external;
mod ha;
mod import;
mod serve;

use cli::{Cli, Command};
use error::Error;

fn main() -> ExitCode {
    let cli = Cli::try_parse().unwrap_or_else(|e| e.exit());
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("peregrine: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, Error> {
    let done = match cli.command {
        Some(Command::Acceptor { session, app }) => serve::acceptor(session, app),
        Some(Command::Initiator { session, app }) => serve::initiator(session, app),
        Some(Command::Bench(a)) => return external::run(&[], &a.args),
        Some(Command::Run(a)) => return external::run(&["run"], &a.args),
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
    };
    done.map(|()| ExitCode::SUCCESS)
}

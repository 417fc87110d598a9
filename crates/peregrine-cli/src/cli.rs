//! The command line, declared with clap's derive API: every command, its
//! options and their help. What the commands do is elsewhere ([`crate::serve`],
//! [`crate::decode`], [`crate::check_config`]; `bench` and `run` are the
//! `peregrine-bench` binary's, [`crate::external`]).
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
    ///
    /// Runs `peregrine-bench ARGS`, found next to this binary, then on PATH
    /// (`make build` builds it): `peregrine bench --help` lists the benchmarks.
    #[command(disable_help_flag = true)]
    Bench(ExternalArgs),
    /// Run the trading topology: Venue (FIX initiator) ⇄ TCP ⇄ Gateway (FIX
    /// acceptor) ⇄ Aeron IPC ⇄ Executor, and report its round trips.
    ///
    /// Runs `peregrine-bench run ARGS`, as `bench` does: `peregrine run --help`
    /// lists its options.
    #[command(disable_help_flag = true)]
    Run(ExternalArgs),
    /// Pretty-print FIX messages from a message log or a capture, with the
    /// dictionary's field and enum names.
    #[command(long_about = DECODE_ABOUT, after_long_help = decode_after_help())]
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

/// `bench` and `run`: the arguments handed to `peregrine-bench` as they are
/// (options and `--help` included), which reads them.
#[derive(Debug, Args)]
pub struct ExternalArgs {
    /// The benchmark and its options (`peregrine bench --help`).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    pub args: Vec<String>,
}

impl From<Store> for StoreKind {
    fn from(s: Store) -> StoreKind {
        match s {
            Store::Memory => StoreKind::Memory,
            Store::File => StoreKind::File,
        }
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

/// `decode --help`'s end: examples, and the built-in dictionaries' licence (the
/// dictionary crate's copy: this package reads no file outside itself).
fn decode_after_help() -> String {
    concat!(
        "Examples:\n",
        "  peregrine decode log/FIX.4.4-ISLD-TW.messages.log\n",
        "  peregrine decode --msg-type NewOrderSingle,8 --tag 11,55,39 orders.log\n",
        "  tail -f log/FIX.4.4-ISLD-TW.messages.log | peregrine decode --json -\n",
        "\n",
        "The built-in dictionaries are QuickFIX's (crates/peregrine-dict/dictionaries). This \
         product includes software developed by quickfixengine.org \
         (http://www.quickfixengine.org/). Their licence:\n\n",
    )
    .to_string()
        + peregrine_dict::builtin::LICENSE
}

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

    #[test]
    fn the_definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    /// `bench` and `run` take anything, as they are: `peregrine-bench` reads it
    /// (the Makefile's lines, `--help`, options it refuses itself).
    #[test]
    fn bench_and_run_pass_their_arguments_on() {
        for (line, want) in [
            (
                "bench codec --smoke --out target/bench-results/smoke-codec.json",
                &[
                    "codec",
                    "--smoke",
                    "--out",
                    "target/bench-results/smoke-codec.json",
                ][..],
            ),
            ("bench --help", &["--help"]),
            ("bench -h", &["-h"]),
            ("bench", &[]),
            ("bench codec --count 5", &["codec", "--count", "5"]),
            (
                "bench scale-peer --role load --sessions 1000",
                &["scale-peer", "--role", "load", "--sessions", "1000"],
            ),
        ] {
            let Some(Command::Bench(a)) = parse(line).unwrap().command else {
                panic!("{line}")
            };
            assert_eq!(a.args, want, "{line}");
        }
        for (line, want) in [
            ("run", &[][..]),
            ("run --count 5 --help", &["--count", "5", "--help"]),
        ] {
            let Some(Command::Run(a)) = parse(line).unwrap().command else {
                panic!("{line}")
            };
            assert_eq!(a.args, want, "{line}");
        }
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

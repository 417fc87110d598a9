//! One side of a replication pair in a process of its own, with its own
//! embedded media driver (or `--aeron-dir` of a running one): what the tests
//! kill with SIGKILL and run in network namespaces.
//!
//! ```text
//! replication-node standby --dir D --data EP --status EP [--aeron-dir A]
//! replication-node active  --dir D --term N --data EP --status EP [--aeron-dir A]
//! ```
//!
//! `EP` is `ipc` or a UDP `host:port` (data: the standby's; status: the
//! active's). The standby prints `position <turn> <offset>` when its replica
//! moves; the active prints `acked <turn> <offset>` when the standby's
//! acknowledged position moves. Both run until killed.

use std::io::Write;
use std::process::ExitCode;

use peregrine_aeron::{AeronClient, Backoff, Channel, ClientConfig, DriverConfig, IdleStrategy};
use peregrine_ha::Term;
use peregrine_replication::{ReplicationConfig, ReplicationSink, ReplicationSource};
use peregrine_store::{JournalConfig, JournalPosition};

struct Args {
    role: String,
    dir: String,
    term: u64,
    data: Channel,
    status: Channel,
    aeron_dir: Option<String>,
}

fn channel(s: &str) -> Result<Channel, String> {
    if s == "ipc" {
        return Ok(Channel::ipc());
    }
    s.parse()
        .map(Channel::udp)
        .map_err(|e| format!("{s:?} is neither ipc nor host:port: {e}"))
}

fn parse() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let role = it.next().ok_or("a role: standby or active")?;
    let (mut dir, mut term, mut data, mut status, mut aeron_dir) = (None, 0, None, None, None);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--dir" => dir = Some(value),
            "--term" => term = value.parse().map_err(|e| format!("--term: {e}"))?,
            "--data" => data = Some(channel(&value)?),
            "--status" => status = Some(channel(&value)?),
            "--aeron-dir" => aeron_dir = Some(value),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(Args {
        role,
        dir: dir.ok_or("--dir")?,
        term,
        data: data.ok_or("--data")?,
        status: status.ok_or("--status")?,
        aeron_dir,
    })
}

fn say(what: &str, p: Option<JournalPosition>) {
    let p = p.unwrap_or_default();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{what} {} {}", p.turn, p.offset);
    let _ = out.flush();
}

fn run(args: Args) -> Result<(), String> {
    let client = match &args.aeron_dir {
        Some(dir) => AeronClient::connect(&ClientConfig::with_dir(dir.clone())),
        None => AeronClient::embedded(&DriverConfig {
            sparse_terms: true,
            ..DriverConfig::default()
        }),
    }
    .map_err(|e| e.to_string())?;
    let config = ReplicationConfig::new(args.data, args.status);
    let mut idle = Backoff::default();
    match args.role.as_str() {
        "standby" => {
            let mut sink =
                ReplicationSink::open(&client, &config, &args.dir, JournalConfig::default())
                    .map_err(|e| e.to_string())?;
            let mut last = sink.position();
            say("position", last);
            loop {
                let n = sink.poll().map_err(|e| e.to_string())?;
                if sink.position() != last {
                    last = sink.position();
                    say("position", last);
                }
                idle.idle(n);
            }
        }
        "active" => {
            let term = Term::new(args.term).ok_or("--term: a term is not 0")?;
            let mut source = ReplicationSource::new(&client, &config, &args.dir, term)
                .map_err(|e| e.to_string())?;
            let mut last = None;
            loop {
                let n = source.poll().map_err(|e| e.to_string())?;
                if source.acked_position() != last {
                    last = source.acked_position();
                    say("acked", last);
                }
                idle.idle(n);
            }
        }
        other => Err(format!("unknown role {other}: standby or active")),
    }
}

fn main() -> ExitCode {
    match parse().and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("replication-node: {e}");
            ExitCode::FAILURE
        }
    }
}

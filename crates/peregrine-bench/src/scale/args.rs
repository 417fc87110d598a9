//! The command line of the scale harnesses (`peregrine-bench stream-peer …`,
//! `peregrine-bench scale-peer …`), as the interface between the driver and every
//! engine's harness names it: `--role`, `--store`, `--port`, `--dir`, `--dict`,
//! `--seconds`, `--sessions`.

use std::path::PathBuf;

use crate::{Error, Result};

/// What a harness process is.
///
/// ```
/// use peregrine_bench::scale::args::{PeerArgs, Role};
/// let args = ["--role", "load", "--sessions", "50"].map(String::from);
/// assert_eq!(PeerArgs::parse(&args, &[Role::Acceptor, Role::Load])?.role, Role::Load);
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Streaming: the acceptor that validates and counts.
    Receiver,
    /// Streaming: the initiator that sends as fast as it may.
    Sender,
    /// Many sessions: the acceptor under test.
    Acceptor,
    /// Many sessions: the load generator (N initiators).
    Load,
    /// Many sessions' floor: N plain connections bounced with no FIX work
    /// ([`crate::scale::floor`]), the acceptor's side.
    FloorAcceptor,
    /// Many sessions' floor: the load's side.
    FloorLoad,
}

/// The store of a streaming run.
///
/// ```
/// use peregrine_bench::scale::args::{PeerArgs, Role, StoreChoice};
/// let args = ["--role", "sender"].map(String::from);
/// assert_eq!(PeerArgs::parse(&args, &[Role::Receiver, Role::Sender])?.store, StoreChoice::Memory); // the default
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreChoice {
    /// In memory.
    Memory,
    /// The file journal, `FileStoreSync=N` (a directory per session).
    File,
    /// The engine journal (`EngineJournal=Y`: one journal for every session).
    Journal,
}

impl StoreChoice {
    /// `memory` or `file`, as on the command line and in the case name.
    ///
    /// ```
    /// use peregrine_bench::scale::args::StoreChoice;
    /// assert_eq!(StoreChoice::File.name(), "file");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            StoreChoice::Memory => "memory",
            StoreChoice::File => "file",
            StoreChoice::Journal => "journal",
        }
    }
}

/// How Peregrine's streaming sender hands messages to its engine (both are the public
/// API; see [`crate::scale::stream`]).
///
/// ```
/// use peregrine_bench::scale::args::{PeerArgs, Role, SendMode};
/// let args = ["--role", "sender", "--send", "thread"].map(String::from);
/// assert_eq!(PeerArgs::parse(&args, &[Role::Receiver, Role::Sender])?.send, SendMode::Thread);
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendMode {
    /// One thread: the application's loop fills the [`Sender`](peregrine_engine::Sender)
    /// queue until it is full, then turns the engine it built
    /// ([`EngineBuilder::build`](peregrine_engine::EngineBuilder::build)).
    Inline,
    /// The README's way: the engine on its own thread
    /// ([`EngineBuilder::start`](peregrine_engine::EngineBuilder::start)), a producer
    /// thread sending through the `Sender` and retrying on a full queue.
    Thread,
}

/// The parsed arguments of one harness process.
///
/// ```
/// use peregrine_bench::scale::args::{PeerArgs, Role};
/// let a = PeerArgs::parse(&["--role", "acceptor", "--port", "9000"].map(String::from), &[Role::Acceptor, Role::Load])?;
/// assert_eq!((a.port, a.seconds, a.sessions, a.persist, a.gap_at), (9000, 5, 1, true, None));
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct PeerArgs {
    /// `--role`.
    pub role: Role,
    /// `--store` (streaming; many sessions always use memory).
    pub store: StoreChoice,
    /// `--port`: where the acceptor listens, or the initiator connects.
    pub port: u16,
    /// `--dir`: this process's fresh directory (store, logs).
    pub dir: PathBuf,
    /// `--dict`: the FIX44 dictionary.
    pub dict: PathBuf,
    /// `--seconds`: the measured window.
    pub seconds: u64,
    /// `--sessions`: many sessions' N.
    pub sessions: usize,
    /// `--send inline|thread` (Peregrine's streaming sender only).
    pub send: SendMode,
    /// `--gap-at N` (Peregrine's inline streaming sender, for tests): skip one MsgSeqNum
    /// once about N orders are queued.
    pub gap_at: Option<u64>,
    /// `--logs Y|N` (streaming): the message and event logs on (`FileLogPath` in
    /// `--dir`), as production runs; default N.
    pub logs: bool,
    /// `--persist-messages Y|N` (Peregrine's streaming harnesses, diagnostics): the
    /// sessions' `PersistMessages` (default Y: every sent message kept for resends).
    pub persist: bool,
    /// `--acceptor-pid PID` (the many-sessions loads): the acceptor's process, whose
    /// CPU time over the measured window the load reports beside its own.
    pub acceptor_pid: Option<u32>,
}

impl PeerArgs {
    /// Parses `--key value` pairs; `roles` are the roles this harness has.
    ///
    /// ```
    /// use peregrine_bench::scale::args::{PeerArgs, Role, StoreChoice};
    /// let args: Vec<String> = "--role receiver --store file --port 9000 --dir /tmp/r --dict FIX44.xml --seconds 3"
    ///     .split(' ').map(String::from).collect();
    /// let a = PeerArgs::parse(&args, &[Role::Receiver, Role::Sender])?;
    /// assert_eq!((a.role, a.store, a.port, a.seconds), (Role::Receiver, StoreChoice::File, 9000, 3));
    /// assert!(PeerArgs::parse(&args, &[Role::Acceptor, Role::Load]).is_err());
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] for an unknown option, a missing or bad value, or a role this
    /// harness does not have.
    pub fn parse(args: &[String], roles: &[Role]) -> Result<PeerArgs> {
        let mut a = PeerArgs {
            role: roles[0],
            store: StoreChoice::Memory,
            port: 0,
            dir: std::env::temp_dir().join(format!("peregrine-scale-{}", std::process::id())),
            dict: crate::fix44_dictionary(),
            seconds: 5,
            sessions: 1,
            send: SendMode::Inline,
            gap_at: None,
            persist: true,
            logs: false,
            acceptor_pid: None,
        };
        let mut role = None;
        let mut it = args.iter();
        while let Some(key) = it.next() {
            let value = it
                .next()
                .ok_or_else(|| usage(format!("{key} needs a value")))?;
            let number = || -> Result<u64> {
                value
                    .parse()
                    .map_err(|_| usage(format!("{key}: {value:?} is not a number")))
            };
            match key.as_str() {
                "--role" => {
                    role = Some(match value.as_str() {
                        "receiver" => Role::Receiver,
                        "sender" => Role::Sender,
                        "acceptor" => Role::Acceptor,
                        "load" => Role::Load,
                        "floor-acceptor" => Role::FloorAcceptor,
                        "floor-load" => Role::FloorLoad,
                        other => return Err(usage(format!("--role: unknown role {other:?}"))),
                    })
                }
                "--store" => {
                    a.store = match value.as_str() {
                        "memory" => StoreChoice::Memory,
                        "file" => StoreChoice::File,
                        "journal" => StoreChoice::Journal,
                        other => {
                            return Err(usage(format!(
                                "--store: {other:?} is not memory|file|journal"
                            )))
                        }
                    }
                }
                "--send" => {
                    a.send = match value.as_str() {
                        "inline" => SendMode::Inline,
                        "thread" => SendMode::Thread,
                        other => {
                            return Err(usage(format!("--send: {other:?} is not inline|thread")))
                        }
                    }
                }
                "--port" => {
                    a.port = u16::try_from(number()?)
                        .map_err(|_| usage(format!("--port: {value} is out of range")))?
                }
                "--gap-at" => a.gap_at = Some(number()?),
                "--acceptor-pid" => {
                    a.acceptor_pid =
                        Some(u32::try_from(number()?).map_err(|_| {
                            usage(format!("--acceptor-pid: {value} is out of range"))
                        })?)
                }
                "--persist-messages" => a.persist = value != "N",
                "--logs" => {
                    a.logs = match value.as_str() {
                        "Y" => true,
                        "N" => false,
                        other => return Err(usage(format!("--logs: {other:?} is not Y|N"))),
                    }
                }
                "--dir" => a.dir = value.into(),
                "--dict" => a.dict = value.into(),
                "--seconds" => a.seconds = number()?.max(1),
                "--sessions" => a.sessions = (number()? as usize).max(1),
                other => return Err(usage(format!("unknown option {other}"))),
            }
        }
        let role = role.ok_or_else(|| usage("--role is required".into()))?;
        if !roles.contains(&role) {
            return Err(usage(format!("--role: this harness has no role {role:?}")));
        }
        a.role = role;
        Ok(a)
    }
}

fn usage(text: String) -> Error {
    Error::Usage(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<PeerArgs> {
        let v: Vec<String> = s.split_whitespace().map(String::from).collect();
        PeerArgs::parse(&v, &[Role::Acceptor, Role::Load])
    }

    #[test]
    fn many_sessions_arguments() {
        let a = parse("--role load --sessions 1000 --port 7000 --seconds 0").unwrap();
        assert_eq!(
            (a.role, a.sessions, a.port, a.seconds, a.acceptor_pid),
            (Role::Load, 1000, 7000, 1, None)
        );
        let a = parse("--role load --acceptor-pid 4242").unwrap();
        assert_eq!(a.acceptor_pid, Some(4242));
        assert_eq!(a.store, StoreChoice::Memory);
    }

    #[test]
    fn bad_arguments_are_refused() {
        for bad in [
            "--sessions 10",
            "--role load --port 70000",
            "--role load --port",
            "--role load --seconds x",
            "--role load --bogus 1",
            "--role sender",
            "--role acceptor --store disk",
            "--role load --acceptor-pid -1",
        ] {
            assert!(matches!(parse(bad), Err(Error::Usage(_))), "{bad}");
        }
    }
}

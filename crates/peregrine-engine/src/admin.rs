//! The operator's HTTP interface.
//!
//! # What it serves
//!
//! * `GET /sessions` lists the sessions as JSON (read-only: no token needed);
//! * `GET /metrics` serves every session's and the reactor's metrics in the
//!   OpenMetrics text format for Prometheus (read-only: no token needed;
//!   `Content-Type` [`metrics::CONTENT_TYPE`](crate::metrics::CONTENT_TYPE);
//!   the families are listed at [`Metrics::render`](crate::Metrics::render)).
//!   It is read from the counters directly, without a command: the reactor
//!   is not involved, so a scrape neither waits for it nor stops it;
//! * `GET /seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=2000` (and/or
//!   `NEXTTARGETSEQNUM=n`) sets a session's next sequence numbers;
//! * `GET /addsession?SESSION=FIX.4.4:ISLD-%3ENEW&LIKE=FIX.4.4:ISLD-%3ETW` adds a
//!   session with another's settings and new CompIDs (409 if it exists);
//! * `GET /removesession?SESSION=FIX.4.4:ISLD-%3ENEW` removes one (logging it out
//!   first when it is logged on);
//! * `GET /logout?SESSION=FIX.4.4:ISLD-%3ETW&TEXT=maintenance` logs a session out
//!   and keeps it down; `GET /logon?SESSION=...` lets it log on again;
//! * `GET /reset?SESSION=...` resets its sequence numbers to 1 (logging out
//!   first when it is connected);
//! * `GET /testrequest?SESSION=...` sends a TestRequest on a logged-on session;
//! * `GET /` (or `/console`) is the operations [console](crate::console), a
//!   page with its read-only `api/…` endpoints.
//!
//! All but `/sessions`, `/metrics` and the console's page and `api/…` change
//! the engine, so they need the token (see *Security*). A request that
//! changes the engine may name who sends it in `X-Peregrine-Operator` (up to
//! 64 printable characters; the console sends the name its user gives): the
//! session's event log says `operator NAME (ADDRESS)` did it, or
//! `operator (ADDRESS)` without one.
//!
//! Each request but `/metrics` becomes a [`Command`] for the reactor, sent through the
//! [`EngineHandle`]'s channel; the answer is sent only once the reactor has
//! carried the command out, so a new sequence number is in force before `200`
//! comes back. Other answers: 400 (bad parameters, and a target holding a
//! byte a URL may not hold unencoded, such as the `>` of `SESSION=FIX.4.4:A->B`
//! typed as is: the body names the parameter, query key or `path`, and the
//! form it expects: `SESSION: missing; expected a session id like
//! FIX.4.4:SENDER->TARGET …`), 401/403 (see below), 404
//! (unknown path or session), 405 (not `GET`), 413 (a request with a body),
//! 431 (a request head over [`MAX_HEAD_BYTES`]), 503 (the engine did not answer
//! within [`REACTOR_TIMEOUT`], or too many connections). [`Command::Stop`] is
//! not served over HTTP.
//!
//! # How, and its limits
//!
//! [`spawn_admin_server`] starts one dedicated thread (`peregrine-admin`)
//! running a current-thread tokio runtime; each connection is a task served by
//! hyper's HTTP/1.1 server, so a slow client delays no one else. The reactor
//! thread never runs any of this: it only takes commands from a channel and
//! answers through a one-shot channel the connection's task awaits.
//!
//! | limit | default | what happens |
//! |---|---|---|
//! | [`HEADER_READ_TIMEOUT`] | 5 s | a connection that has not sent a whole request head within it is closed (slowloris; an idle connection too) |
//! | [`CONNECTION_TIMEOUT`] | 20 s | a connection is closed this long after it was accepted, whatever it is doing |
//! | [`REACTOR_TIMEOUT`] | 10 s | longest wait for the reactor's answer; then 503 (the command may still be carried out) |
//! | [`MAX_CONNECTIONS`] | 64 | connections served at once; past it a connection is answered 503 (see below) |
//! | [`MAX_OVERFLOW_CONNECTIONS`] | 16 | connections past the cap being answered 503 at once, each within [`OVERFLOW_TIMEOUT`] (1 s); past both, a connection is closed at once |
//! | [`MAX_HEAD_BYTES`] | 16 KiB | a longer request head is answered 431 and closed |
//! | request bodies | never read | a request announcing one is answered 413 |
//! | keep-alive | off | one request per connection, answered with `Connection: close` |
//!
//! The first four can be changed per server with [`AdminOptions`] (tests use
//! short ones).
//!
//! # Security
//!
//! * The interface is **off** unless `AdminHttpPort` is set, and it listens on
//!   `127.0.0.1` unless `AdminHttpAddress` says otherwise (the CLI's choice; a
//!   library caller passes the address it wants).
//! * Commands that change the engine (all but `/sessions` and `/metrics`) need the token
//!   (`AdminHttpToken`, [`AdminOptions::token`]), sent as `Authorization:
//!   Bearer <token>`. A missing or wrong token is answered 401 (the token is
//!   compared in constant time); with no token configured they are refused
//!   with 403, whose body says to set `AdminHttpToken`. `GET /sessions` and
//!   `GET /metrics` need no token (they show session names, states and
//!   counts: keep the interface on loopback or a trusted network).
//! * The token is never logged (and [`AdminOptions`]'s `Debug` hides it).
//!   Plain HTTP carries it in clear: on an address other than loopback, use a
//!   trusted network (a warning is logged).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Body as _, Bytes, Incoming};
use hyper::header::{HeaderMap, HeaderValue, ALLOW, AUTHORIZATION, CONNECTION, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use subtle::ConstantTimeEq;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::command::{AddSessionError, Command, CommandError, EngineHandle, Outcome, Reply};
use crate::driver::Nanos;
use crate::session_info::SessionInfo;

/// A connection must send its whole request head within this (default of
/// [`AdminOptions::header_read_timeout`]).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(5);

/// A connection is closed after this, whatever it is doing (default of
/// [`AdminOptions::connection_timeout`]).
pub const CONNECTION_TIMEOUT: Duration = Duration::from_secs(20);

/// Longest wait for the reactor's answer before a 503 (default of
/// [`AdminOptions::reactor_timeout`]).
pub const REACTOR_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections served at once (default of [`AdminOptions::max_connections`]).
pub const MAX_CONNECTIONS: usize = 64;

/// Connections past [`MAX_CONNECTIONS`] that are answered `503` at once; past
/// this many more, a new connection is closed without an answer.
pub const MAX_OVERFLOW_CONNECTIONS: usize = 16;

/// How long a connection past the cap may take to send its request head and
/// receive its `503`.
pub const OVERFLOW_TIMEOUT: Duration = Duration::from_secs(1);

/// Longest request head (request line and headers); a longer one is answered
/// `431`.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// The paths whose commands change the engine, and so need the token.
const MUTATING_PATHS: &[&str] = &[
    "/seqnum",
    "/addsession",
    "/removesession",
    "/logout",
    "/logon",
    "/reset",
    "/testrequest",
];

/// The request header naming who asks for a change (for the event log).
pub const OPERATOR_HEADER: &str = "x-peregrine-operator";

/// An HTTP answer: a status and a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpReply {
    /// HTTP status code.
    pub status: u16,
    /// Body (JSON for `/sessions`, text otherwise).
    pub body: String,
    /// Whether the body is JSON.
    pub json: bool,
}

impl HttpReply {
    /// A text reply with status and body.
    pub fn new(status: u16, body: impl Into<String>) -> HttpReply {
        HttpReply {
            status,
            body: body.into(),
            json: false,
        }
    }

    /// The HTTP answer to the reactor's reply: `200` with what it did, `404`
    /// for no such session, `400` for an ambiguous name, `500` for a store
    /// failure.
    ///
    /// ```
    /// use peregrine_engine::admin::HttpReply;
    /// use peregrine_engine::{CommandError, Outcome};
    /// let ok = HttpReply::from_reply(Ok(Outcome::Sessions(vec![])));
    /// assert_eq!((ok.status, ok.body.as_str(), ok.json), (200, "[]\n", true));
    /// let missing = HttpReply::from_reply(Err(CommandError::NoSuchSession { name: "X".into() }));
    /// assert_eq!((missing.status, missing.body.as_str()), (404, "no session X\n"));
    /// ```
    pub fn from_reply(reply: Reply) -> HttpReply {
        match reply {
            Ok(Outcome::Stopping) => HttpReply::new(200, "stopping\n"),
            Ok(Outcome::Sessions(sessions)) => {
                let items: Vec<String> = sessions.iter().map(SessionInfo::to_json).collect();
                HttpReply {
                    status: 200,
                    body: format!("[{}]\n", items.join(",")),
                    json: true,
                }
            }
            Ok(Outcome::SessionAdded { session, .. }) => {
                HttpReply::new(200, format!("OK added {session}\n"))
            }
            Ok(Outcome::SessionRemoved {
                session,
                logging_out,
            }) => HttpReply::new(
                200,
                if logging_out {
                    format!("OK removing {session} (logging out first)\n")
                } else {
                    format!("OK removed {session}\n")
                },
            ),
            Ok(Outcome::LoggedOut {
                session,
                logging_out,
            }) => HttpReply::new(
                200,
                if logging_out {
                    format!("OK logging out {session}; it stays down until /logon\n")
                } else {
                    format!("OK {session} stays down until /logon\n")
                },
            ),
            Ok(Outcome::Enabled { session, already }) => HttpReply::new(
                200,
                if already {
                    format!("OK {session} may log on (it could already: nothing changed)\n")
                } else {
                    format!("OK {session} may log on\n")
                },
            ),
            Ok(Outcome::Reset {
                session,
                after_logout,
            }) => HttpReply::new(
                200,
                if after_logout {
                    format!("OK {session} logs out, then its sequence numbers reset to 1\n")
                } else {
                    format!("OK {session} sequence numbers reset to 1\n")
                },
            ),
            Ok(Outcome::SeqNums {
                session,
                next_sender_seq,
                next_target_seq,
            }) => HttpReply::new(
                200,
                format!(
                    "OK {session} next_sender_seq={next_sender_seq} next_target_seq={next_target_seq}\n"
                ),
            ),
            Ok(Outcome::TestRequest { session, sent }) => {
                if sent {
                    HttpReply::new(200, format!("OK {session} TestRequest sent\n"))
                } else {
                    HttpReply::new(409, format!("{session} is not logged on: no TestRequest sent\n"))
                }
            }
            Err(e) => HttpReply::from_error(e, None),
        }
    }
}

impl HttpReply {
    /// The answer to an error, a 400 naming the parameter: `like` is the
    /// `LIKE` of an `/addsession` (an ambiguous name that is it is said
    /// of `LIKE`, any other of `SESSION`).
    fn from_error(e: CommandError, like: Option<&str>) -> HttpReply {
        match e {
            CommandError::NoSuchSession { .. } => HttpReply::new(404, format!("{e}\n")),
            CommandError::Store { .. } => HttpReply::new(500, format!("{e}\n")),
            CommandError::SessionExists { .. } => HttpReply::new(409, format!("{e}\n")),
            CommandError::AmbiguousSession { name } => HttpReply::new(
                400,
                bad_parameter(
                    if like == Some(name.as_str()) {
                        "LIKE"
                    } else {
                        "SESSION"
                    },
                    &format!("{name} names several sessions"),
                    &format!("the session id with its qualifier, like {name}:QUALIFIER"),
                ),
            ),
            CommandError::CannotAdd {
                name,
                why: AddSessionError::BadName,
            } => HttpReply::new(
                400,
                bad_parameter(
                    "SESSION",
                    &format!("{name:?} is not a session id"),
                    SESSION_FORM,
                ),
            ),
            // The engine's side, not the request's: its listener or logs, no factory.
            CommandError::CannotAdd {
                why: AddSessionError::Io(_) | AddSessionError::NoFactory,
                ..
            } => HttpReply::new(500, format!("{e}\n")),
            CommandError::CannotAdd { .. } => HttpReply::new(
                400,
                bad_parameter(
                    "SESSION",
                    &e.to_string(),
                    "a session that LIKE's settings, with its CompIDs, make valid",
                ),
            ),
        }
    }
}

pub use crate::http::percent_decode;
use crate::http::{bad_parameter, is_session_id, SESSION_FORM};

/// Turns a request target (`/seqnum?SESSION=…&NEXTSENDERSEQNUM=2000`) into a
/// [`Command`], or the error reply to send.
///
/// ```
/// use peregrine_engine::admin::parse_target;
/// use peregrine_engine::Command;
/// assert_eq!(
///     parse_target("/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTTARGETSEQNUM=5"),
///     Ok(Command::SetSeqNum { session: "FIX.4.4:ISLD->TW".into(), next_sender: None, next_target: Some(5) })
/// );
/// assert_eq!(parse_target("/sessions"), Ok(Command::ListSessions));
/// assert_eq!(
///     parse_target("/logout?SESSION=FIX.4.4:ISLD-%3ETW&TEXT=end%20of%20day"),
///     Ok(Command::Logout { session: "FIX.4.4:ISLD->TW".into(), text: Some("end of day".into()) })
/// );
/// assert_eq!(
///     parse_target("/reset?SESSION=FIX.4.4:ISLD-%3ETW"),
///     Ok(Command::ResetSeqNums { session: "FIX.4.4:ISLD->TW".into() })
/// );
/// let missing = parse_target("/logon").unwrap_err();
/// assert_eq!(missing.status, 400);
/// assert!(missing.body.starts_with("SESSION: missing; expected a session id like FIX.4.4:SENDER->TARGET"));
/// assert_eq!(parse_target("/nope").unwrap_err().status, 404);
/// ```
///
/// # Errors
///
/// The [`HttpReply`] to send instead of a command: 404 for a path that is not
/// a command; 400 when `SESSION` is missing or not a session id (every path
/// but `/sessions`), when `/seqnum` has neither `NEXTSENDERSEQNUM` nor
/// `NEXTTARGETSEQNUM` or one that is not a number from 1, and when
/// `/addsession` has no `LIKE` or one that is not a session id. A 400's body
/// names the parameter and the form it expects.
pub fn parse_target(target: &str) -> Result<Command, HttpReply> {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let params: Vec<(String, String)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k).to_ascii_uppercase(), percent_decode(v))
        })
        .collect();
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let session_id = |key: &str| match get(key) {
        None => Err(HttpReply::new(
            400,
            bad_parameter(key, "missing", SESSION_FORM),
        )),
        Some(v) if !is_session_id(&v) => Err(HttpReply::new(
            400,
            bad_parameter(key, &format!("{v:?} is not a session id"), SESSION_FORM),
        )),
        Some(v) => Ok(v),
    };
    let session = || session_id("SESSION");
    match path {
        "/sessions" => Ok(Command::ListSessions),
        "/seqnum" => {
            let session = session()?;
            let num = |k: &str| -> Result<Option<u64>, HttpReply> {
                match get(k) {
                    None => Ok(None),
                    Some(v) => match v.parse::<u64>() {
                        Ok(n) if n >= 1 => Ok(Some(n)),
                        _ => Err(HttpReply::new(
                            400,
                            bad_parameter(
                                k,
                                &format!("{v:?} is not a sequence number"),
                                &format!("a whole number from 1, like {k}=2000"),
                            ),
                        )),
                    },
                }
            };
            let next_sender = num("NEXTSENDERSEQNUM")?;
            let next_target = num("NEXTTARGETSEQNUM")?;
            if next_sender.is_none() && next_target.is_none() {
                return Err(HttpReply::new(
                    400,
                    bad_parameter(
                        "NEXTSENDERSEQNUM, NEXTTARGETSEQNUM",
                        "neither given",
                        "one or both, each a whole number from 1, like NEXTSENDERSEQNUM=2000",
                    ),
                ));
            }
            Ok(Command::SetSeqNum {
                session,
                next_sender,
                next_target,
            })
        }
        "/addsession" => {
            let session = session()?;
            // The session whose settings the new one takes.
            let like = session_id("LIKE")?;
            Ok(Command::AddSessionLike { session, like })
        }
        "/removesession" => {
            let session = session()?;
            Ok(Command::RemoveSession { session })
        }
        "/logout" => {
            let session = session()?;
            Ok(Command::Logout {
                session,
                text: get("TEXT"),
            })
        }
        "/logon" => {
            let session = session()?;
            Ok(Command::Logon { session })
        }
        "/testrequest" => {
            let session = session()?;
            Ok(Command::TestRequest { session })
        }
        "/reset" => {
            let session = session()?;
            Ok(Command::ResetSeqNums { session })
        }
        _ => Err(HttpReply::new(
            404,
            "not found (try /sessions, /metrics, /seqnum?SESSION=...&NEXTSENDERSEQNUM=n, \
             /addsession?SESSION=...&LIKE=..., /removesession?SESSION=..., \
             /logout?SESSION=...[&TEXT=...], /logon?SESSION=..., /reset?SESSION=...)\n",
        )),
    }
}

/// How an admin server behaves: the token for commands that change the engine,
/// and its time and connection limits (the defaults are the module's
/// constants, see the [module documentation](self)).
///
/// `Debug` shows whether a token is set, never the token.
///
/// ```
/// use std::time::Duration;
/// use peregrine_engine::admin::{AdminOptions, HEADER_READ_TIMEOUT, MAX_CONNECTIONS};
///
/// let options = AdminOptions {
///     token: Some("correct-horse-battery-staple".into()),
///     connection_timeout: Duration::from_secs(10),
///     ..AdminOptions::default()
/// };
/// assert_eq!(options.header_read_timeout, HEADER_READ_TIMEOUT);
/// assert_eq!(options.max_connections, MAX_CONNECTIONS);
/// assert!(!format!("{options:?}").contains("horse"));
/// ```
#[derive(Clone)]
pub struct AdminOptions {
    /// The bearer token that commands changing the engine (every path but
    /// `/sessions` and `/metrics`) need;
    /// `None` refuses them all with 403 (`AdminHttpToken`).
    pub token: Option<String>,
    /// A connection must send its whole request head within this, or it is
    /// closed ([`HEADER_READ_TIMEOUT`]).
    pub header_read_timeout: Duration,
    /// A connection is closed after this, whatever it is doing
    /// ([`CONNECTION_TIMEOUT`]).
    pub connection_timeout: Duration,
    /// Longest wait for the reactor's answer; then 503 ([`REACTOR_TIMEOUT`]).
    pub reactor_timeout: Duration,
    /// Connections served at once; past it a connection is answered 503
    /// ([`MAX_CONNECTIONS`]).
    pub max_connections: usize,
    /// The QuickFIX XML dictionaries the console decodes message logs with,
    /// each in place of the built-in one of its version (the sessions'
    /// `DataDictionary` files: [`Engine::dictionary_files`](crate::Engine::dictionary_files));
    /// a second file of a version already given is left out, with a warning.
    pub dictionaries: Vec<std::path::PathBuf>,
}

impl Default for AdminOptions {
    fn default() -> Self {
        AdminOptions {
            token: None,
            header_read_timeout: HEADER_READ_TIMEOUT,
            connection_timeout: CONNECTION_TIMEOUT,
            reactor_timeout: REACTOR_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
            dictionaries: Vec::new(),
        }
    }
}

impl std::fmt::Debug for AdminOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdminOptions")
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("header_read_timeout", &self.header_read_timeout)
            .field("connection_timeout", &self.connection_timeout)
            .field("reactor_timeout", &self.reactor_timeout)
            .field("max_connections", &self.max_connections)
            .field("dictionaries", &self.dictionaries)
            .finish()
    }
}

impl AdminOptions {
    fn check(&self) -> std::io::Result<()> {
        let invalid = |what: &str| {
            Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("admin server: {what}"),
            ))
        };
        if self
            .token
            .as_deref()
            .is_some_and(|t| t.is_empty() || !t.bytes().all(|b| b.is_ascii_graphic()))
        {
            return invalid("the token must be printable ASCII without spaces, and not empty");
        }
        if self.header_read_timeout.is_zero()
            || self.connection_timeout.is_zero()
            || self.reactor_timeout.is_zero()
        {
            return invalid("timeouts must not be zero");
        }
        if self.max_connections == 0 {
            return invalid("max_connections must not be zero");
        }
        Ok(())
    }
}

/// Starts the admin HTTP server on `addr` (port 0 picks one) in a thread of
/// its own (`peregrine-admin`, with a current-thread tokio runtime); returns
/// the bound address. The server lives as long as the process.
///
/// # Errors
///
/// Fails, before any thread is started, if `options` are unusable (an empty
/// token or one with spaces or control characters, a zero timeout or
/// connection cap: [`std::io::ErrorKind::InvalidInput`]), if `addr` cannot be
/// bound, or if the runtime or the thread cannot be created.
///
/// # Example
///
/// ```
/// use std::io::{Read, Write};
/// use peregrine_engine::admin::{spawn_admin_server, AdminOptions};
/// use peregrine_engine::{fix::LogApp, EngineBuilder};
///
/// let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptAddress=127.0.0.1\n\
///            SocketAcceptPort=0\nSenderCompID=VENUE\nTargetCompID=CLIENT\n\
///            UseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n";
/// let mut engine = EngineBuilder::parse(cfg, "venue.cfg")?.build(|_| LogApp)?;
/// let handle = engine.handle();
/// let options = AdminOptions { token: Some("s3cret".into()), ..AdminOptions::default() };
/// let admin = spawn_admin_server("127.0.0.1:0".parse().unwrap(), handle.clone(), options)?;
/// let reactor = std::thread::spawn(move || engine.run());
///
/// let get = |request: &str| -> std::io::Result<String> {
///     let mut s = std::net::TcpStream::connect(admin)?;
///     s.write_all(request.as_bytes())?;
///     let mut answer = String::new();
///     s.read_to_string(&mut answer)?;
///     Ok(answer)
/// };
/// // Read-only: no token needed.
/// assert!(get("GET /sessions HTTP/1.1\r\nHost: x\r\n\r\n")?.starts_with("HTTP/1.1 200 OK"));
/// // A change needs the token.
/// let seqnum = "GET /seqnum?SESSION=FIX.4.4:A-%3EB&NEXTSENDERSEQNUM=5 HTTP/1.1\r\nHost: x\r\n";
/// assert!(get(&format!("{seqnum}\r\n"))?.starts_with("HTTP/1.1 401"));
/// let answer = get(&format!("{seqnum}Authorization: Bearer s3cret\r\n\r\n"))?;
/// assert!(answer.starts_with("HTTP/1.1 404"), "{answer}"); // authorised; no such session
///
/// handle.stop();
/// reactor.join().unwrap()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn spawn_admin_server(
    addr: SocketAddr,
    handle: EngineHandle,
    options: AdminOptions,
) -> std::io::Result<SocketAddr> {
    options.check()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    let listener = std::net::TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    let local = listener.local_addr()?;
    let listener = {
        let _in_runtime = runtime.enter();
        TcpListener::from_std(listener)?
    };
    if !local.ip().is_loopback() {
        tracing::warn!(
            "admin interface on {local} is reachable from other hosts; it is plain HTTP, \
             so the token travels in clear"
        );
    }
    let console = crate::console::Console::new(&options.dictionaries);
    let server = Arc::new(Server {
        handle,
        options,
        console,
    });
    std::thread::Builder::new()
        .name("peregrine-admin".into())
        .spawn(move || runtime.block_on(server.accept_loop(listener)))?;
    Ok(local)
}

type Body = Full<Bytes>;

struct Server {
    handle: EngineHandle,
    options: AdminOptions,
    console: crate::console::Console,
}

/// Who asks, for the event log: the `X-Peregrine-Operator` name (printable
/// ASCII, spaces allowed, at most 64 characters; anything else is left out)
/// and the remote address.
fn operator(headers: &HeaderMap, peer: SocketAddr) -> String {
    let name = headers
        .get(OPERATOR_HEADER)
        .map(|v| v.as_bytes())
        .filter(|v| v.len() <= 64 && v.iter().all(|&b| (0x20..0x7f).contains(&b)))
        .map(|v| String::from_utf8_lossy(v).trim().to_string())
        .filter(|v| !v.is_empty());
    match name {
        Some(name) => format!("{name} ({peer})"),
        None => format!("({peer})"),
    }
}

/// What the request's `Authorization` says about the configured token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Granted,
    NoTokenConfigured,
    Missing,
    Wrong,
}

/// Checks `Authorization: Bearer <token>` (the scheme in any case), comparing
/// the token in constant time.
fn access(headers: &HeaderMap, token: Option<&str>) -> Access {
    let Some(token) = token else {
        return Access::NoTokenConfigured;
    };
    let Some(value) = headers.get(AUTHORIZATION) else {
        return Access::Missing;
    };
    let value = value.as_bytes();
    let scheme = b"bearer ";
    if value.len() < scheme.len() || !value[..scheme.len()].eq_ignore_ascii_case(scheme) {
        return Access::Wrong;
    }
    let given = value[scheme.len()..].trim_ascii();
    // Compare as many bytes as the token has, whatever was sent, so that the
    // time taken says nothing about the token (its length included).
    let token = token.as_bytes();
    let padded: Vec<u8> = (0..token.len())
        .map(|i| given.get(i).copied().unwrap_or(0))
        .collect();
    if bool::from(padded.ct_eq(token) & given.len().ct_eq(&token.len())) {
        Access::Granted
    } else {
        Access::Wrong
    }
}

fn http1_builder(header_read_timeout: Duration) -> http1::Builder {
    let mut b = http1::Builder::new();
    b.timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .keep_alive(false)
        .max_buf_size(MAX_HEAD_BYTES);
    b
}

fn response(reply: HttpReply) -> Response<Body> {
    let kind = if reply.json {
        "application/json"
    } else {
        "text/plain; charset=utf-8"
    };
    let mut r = Response::new(Full::new(Bytes::from(reply.body)));
    *r.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(CONNECTION, HeaderValue::from_static("close"));
    r
}

impl Server {
    async fn accept_loop(self: Arc<Self>, listener: TcpListener) {
        let slots = Arc::new(Semaphore::new(self.options.max_connections));
        let overflow = Arc::new(Semaphore::new(MAX_OVERFLOW_CONNECTIONS));
        loop {
            let (stream, peer) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, say: do not spin.
                    tracing::warn!("admin: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            if let Ok(permit) = slots.clone().try_acquire_owned() {
                let server = self.clone();
                tokio::spawn(async move {
                    server.serve(stream, peer).await;
                    drop(permit);
                });
            } else if let Ok(permit) = overflow.clone().try_acquire_owned() {
                tracing::debug!("admin: {peer}: too many connections, answering 503");
                let header_timeout = self.options.header_read_timeout.min(OVERFLOW_TIMEOUT);
                tokio::spawn(async move {
                    refuse_busy(stream, header_timeout).await;
                    drop(permit);
                });
            } else {
                tracing::debug!("admin: {peer}: too many connections, closed");
                drop(stream);
            }
        }
    }

    /// Serves one connection (one request: keep-alive is off) within the
    /// connection time limit.
    async fn serve(self: Arc<Self>, mut stream: TcpStream, peer: SocketAddr) {
        if let Some(why) = misencoded_target(&stream, self.options.header_read_timeout).await {
            use tokio::io::AsyncWriteExt;
            let answer = format!(
                "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\n\
                 content-length: {}\r\nconnection: close\r\n\r\n{why}",
                why.len()
            );
            let _ = tokio::time::timeout(self.options.header_read_timeout, async {
                let _ = stream.write_all(answer.as_bytes()).await;
                let _ = stream.shutdown().await;
            })
            .await;
            return;
        }
        let server = self.clone();
        let service = service_fn(move |request| {
            let server = server.clone();
            async move { Ok::<_, Infallible>(server.respond(request, peer).await) }
        });
        let connection = http1_builder(self.options.header_read_timeout)
            .serve_connection(TokioIo::new(stream), service);
        match tokio::time::timeout(self.options.connection_timeout, connection).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::debug!("admin: {peer}: {e}"),
            Err(_) => tracing::debug!(
                "admin: {peer}: closed after {:?}",
                self.options.connection_timeout
            ),
        }
    }

    async fn respond(&self, request: hyper::Request<Incoming>, peer: SocketAddr) -> Response<Body> {
        if request.method() != Method::GET {
            let mut r = response(HttpReply::new(405, "only GET\n"));
            r.headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET"));
            return r;
        }
        if !request.body().is_end_stream() {
            return response(HttpReply::new(413, "request bodies are not accepted\n"));
        }
        let path = request.uri().path();
        if path == "/metrics" {
            return metrics_response(&self.handle);
        }
        if crate::console::Console::serves(path) {
            let query = request.uri().query().unwrap_or("");
            let reply = self
                .console
                .respond(path, query, &self.handle, self.options.reactor_timeout)
                .await;
            return console_response(reply);
        }
        let target = request
            .uri()
            .path_and_query()
            .map_or(path, |pq| pq.as_str());
        let access = access(request.headers(), self.options.token.as_deref());
        if MUTATING_PATHS.contains(&path) {
            if let Some(refusal) = refusal(access) {
                if refusal.status == 401 {
                    tracing::warn!("admin: {peer}: {path} refused: {access:?} token");
                }
                return unauthorized(refusal);
            }
        }
        let mut command = match parse_target(target) {
            Ok(command) => command,
            Err(reply) => return response(reply),
        };
        let like = match &command {
            Command::AddSessionLike { like, .. } => Some(like.clone()),
            _ => None,
        };
        if command.is_mutating() {
            // MUTATING_PATHS covers every mutating command; this is the backstop.
            if let Some(refusal) = refusal(access) {
                return unauthorized(refusal);
            }
            tracing::info!("admin: {peer}: {target}");
            command = Command::ByOperator {
                operator: operator(request.headers(), peer),
                command: Box::new(command),
            };
        }
        let reply = match tokio::time::timeout(
            self.options.reactor_timeout,
            self.handle.call_async(command),
        )
        .await
        {
            Ok(Some(Err(e))) => HttpReply::from_error(e, like.as_deref()),
            Ok(Some(reply)) => HttpReply::from_reply(reply),
            Ok(None) => HttpReply::new(503, "the engine is not running\n"),
            Err(_) => HttpReply::new(
                503,
                "the engine did not answer in time (the command may still be carried out)\n",
            ),
        };
        response(reply)
    }
}

/// `GET /metrics`: read here, on the admin thread, from the counters the
/// reactor writes (no command, so the reactor does not take part).
fn metrics_response(handle: &EngineHandle) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(handle.metrics().render())));
    let h = r.headers_mut();
    h.insert(
        CONTENT_TYPE,
        HeaderValue::from_static(crate::metrics::CONTENT_TYPE),
    );
    h.insert(CONNECTION, HeaderValue::from_static("close"));
    r
}

/// A console answer, with headers that keep a page from running anything
/// but its own script and style, or being framed.
fn console_response(reply: crate::console::Reply) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(reply.body)));
    *r.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(reply.content_type));
    h.insert(CONNECTION, HeaderValue::from_static("close"));
    h.insert(
        hyper::header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
             img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        ),
    );
    h.insert(
        hyper::header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        hyper::header::CACHE_CONTROL,
        HeaderValue::from_static("no-store"),
    );
    h.insert(
        hyper::header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    r
}

/// The answer to a command that needs the token, unless `access` grants it.
fn refusal(access: Access) -> Option<HttpReply> {
    match access {
        Access::Granted => None,
        Access::NoTokenConfigured => Some(HttpReply::new(
            403,
            "commands that change the engine are disabled: set AdminHttpToken in the settings \
             and send it as \"Authorization: Bearer <token>\"\n",
        )),
        Access::Missing => Some(HttpReply::new(
            401,
            "this command needs the token: send \"Authorization: Bearer <token>\"\n",
        )),
        Access::Wrong => Some(HttpReply::new(401, "wrong token\n")),
    }
}

fn unauthorized(reply: HttpReply) -> Response<Body> {
    let challenge = reply.status == 401;
    let mut r = response(reply);
    if challenge {
        r.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"peregrine-admin\""),
        );
    }
    r
}

/// What is wrong with a request line whose target hyper would refuse with an
/// empty 400 (a byte a URL may not hold unencoded: `FIX.4.4:A->B` typed as
/// is, with curl), and how to write it. Looks at the bytes the client has
/// sent first (waiting at most `within`), without reading them: a request
/// line not whole in them is left to hyper, as is every other request.
async fn misencoded_target(stream: &TcpStream, within: Duration) -> Option<String> {
    let mut first = [0u8; 2048];
    let n = tokio::time::timeout(within, stream.peek(&mut first))
        .await
        .ok()?
        .ok()?;
    let line = &first[..n];
    let line = &line[..line.iter().position(|&b| b == b'\n')?];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // METHOD SP target SP HTTP/1.1: a space typed in the target splits it.
    let first_space = line.iter().position(|&b| b == b' ')?;
    let rest = &line[first_space + 1..];
    let target = match rest.iter().rposition(|&b| b == b' ') {
        Some(last) if rest[last + 1..].starts_with(b"HTTP/") => &rest[..last],
        _ => rest,
    };
    let text = std::str::from_utf8(target).ok();
    if text.is_some_and(|t| t.parse::<hyper::Uri>().is_ok()) {
        return None;
    }
    let at = target
        .iter()
        .position(|&b| b <= b' ' || b >= 0x7f || b"\"<>\\^`{|}".contains(&b))?;
    Some(misencoded_answer(target, at))
}

/// The 400 for a request target whose byte at `at` a URL may not hold
/// unencoded: which parameter (query key, or the path) holds it, and how to
/// write it.
fn misencoded_answer(target: &[u8], at: usize) -> String {
    let bad = target[at];
    let shown = match bad {
        b' ' => "a space".to_string(),
        b if b.is_ascii_graphic() => format!("'{}'", b as char),
        _ => "a byte".to_string(),
    };
    let holds = format!(
        "holds {shown} (byte 0x{bad:02X}), which a URL may not hold unencoded (write it %{bad:02X})"
    );
    let query_start = target.iter().position(|&b| b == b'?').map(|q| q + 1);
    let Some(query_start) = query_start.filter(|&q| q <= at) else {
        return bad_parameter(
            "path",
            &holds,
            "a path like /sessions or /logout, percent-encoded",
        );
    };
    // The key=value pair the byte is in, and its key (up to '=', decoded).
    let pair_start = target[query_start..at]
        .iter()
        .rposition(|&b| b == b'&')
        .map_or(query_start, |p| query_start + p + 1);
    let pair_end = target[at..]
        .iter()
        .position(|&b| b == b'&')
        .map_or(target.len(), |p| at + p);
    let pair = &target[pair_start..pair_end];
    let Some(eq) = pair
        .iter()
        .position(|&b| b == b'=')
        .filter(|&e| pair_start + e < at)
    else {
        return bad_parameter(
            "query",
            &format!("a parameter's name {holds}"),
            "names like SESSION, percent-encoded",
        );
    };
    let key = percent_decode(&String::from_utf8_lossy(&pair[..eq])).to_ascii_uppercase();
    let key = crate::log::Escaped(key.as_bytes()).to_string();
    let expected = if key == "SESSION" || key == "LIKE" {
        format!(
            "{SESSION_FORM}, as in /logout?SESSION=FIX.4.4:A-%3EB (curl: \
             curl -G --data-urlencode 'SESSION=FIX.4.4:A->B' http://HOST:PORT/logout)"
        )
    } else {
        format!(
            "the value percent-encoded (curl: curl -G --data-urlencode '{key}=…' \
             http://HOST:PORT/PATH)"
        )
    };
    bad_parameter(&key, &format!("the value {holds}"), &expected)
}

/// Answers a connection past the cap with 503, briefly.
async fn refuse_busy(stream: TcpStream, header_read_timeout: Duration) {
    let service = service_fn(|_request| async {
        let mut r = response(HttpReply::new(
            503,
            "too many admin connections; try again shortly\n",
        ));
        r.headers_mut()
            .insert(hyper::header::RETRY_AFTER, HeaderValue::from_static("1"));
        Ok::<_, Infallible>(r)
    });
    let connection =
        http1_builder(header_read_timeout).serve_connection(TokioIo::new(stream), service);
    let _ = tokio::time::timeout(OVERFLOW_TIMEOUT, connection).await;
}

/// `/sessions` formats each session as JSON here, in the admin interface: the
/// reactor only fills [`SessionInfo`].
impl SessionInfo {
    /// A JSON object (one item of `/sessions`). `in_schedule` is
    /// `logon_allowed` (kept under both names); with a schedule,
    /// `next_window_opens` (outside it) or `window_closes` (inside it) is
    /// when that changes, RFC 3339 in UTC (`2026-11-30T14:00:00Z`), `null`
    /// otherwise.
    pub fn to_json(&self) -> String {
        let at = self.schedule_changes_at.map(rfc3339);
        let (opens, closes) = if self.logon_allowed {
            (None, at)
        } else {
            (at, None)
        };
        format!(
            "{{\"session\":\"{}\",\"state\":\"{}\",\"connected\":{},\"logged_on\":{},\"next_sender_seq\":{},\"next_target_seq\":{},\"pending_outbound\":{},\"slow_consumer\":{},\"store_lost_messages\":{},\"send_failures\":{},\"enabled\":{},\"role\":\"{}\",\"schedule\":{},\"logon_allowed\":{},\"in_schedule\":{},\"next_window_opens\":{},\"window_closes\":{},\"last_logon\":{},\"note\":{}}}",
            json_escape(&self.name),
            json_escape(&self.state),
            self.connected,
            self.logged_on,
            self.next_sender_seq,
            self.next_target_seq,
            self.pending_outbound,
            self.slow_consumer,
            self.store_lost_messages,
            self.send_failures,
            self.enabled,
            self.role,
            json_opt(self.schedule.as_deref()),
            self.logon_allowed,
            self.logon_allowed,
            json_opt(opens.as_deref()),
            json_opt(closes.as_deref()),
            self.last_logon.map_or("null".to_string(), |t| t.to_string()),
            json_opt(self.note.as_deref()),
        )
    }
}

/// An instant as RFC 3339 in UTC, to the second.
fn rfc3339(t: Nanos) -> String {
    jiff::Timestamp::from_nanosecond(i128::from(t)).map_or_else(
        |_| t.to_string(),
        |ts| ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
    )
}

fn json_opt(s: Option<&str>) -> String {
    s.map_or("null".to_string(), |s| format!("\"{}\"", json_escape(s)))
}

/// Escapes a string for a JSON string literal.
pub(crate) fn json_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

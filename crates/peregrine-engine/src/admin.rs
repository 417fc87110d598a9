//! The operator's HTTP interface, served by a small helper thread that hands
//! each request to the reactor through a channel and waits for the answer, so
//! that a change (a new sequence number) is in force before `200` is sent.
//!
//! * `GET /seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=2000` (and/or
//!   `NEXTTARGETSEQNUM=n`) sets a session's next sequence numbers;
//! * `GET /sessions` lists the sessions as JSON.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// A request for the reactor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Set a session's next sequence numbers.
    SetSeqNum {
        /// The session, e.g. `FIX.4.4:ISLD->TW` (a qualifier may be left out
        /// when it names one session).
        session: String,
        /// The next outgoing sequence number.
        next_sender: Option<u64>,
        /// The next expected incoming sequence number.
        next_target: Option<u64>,
    },
    /// List the sessions as JSON.
    ListSessions,
    /// Stop the engine gracefully (Logout on every session).
    Stop,
}

/// The reactor's answer: an HTTP status and a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// HTTP status code.
    pub status: u16,
    /// Body (JSON for `/sessions`, text otherwise).
    pub body: String,
}

impl Reply {
    /// A reply with status and body.
    pub fn new(status: u16, body: impl Into<String>) -> Reply {
        Reply {
            status,
            body: body.into(),
        }
    }
}

pub(crate) type Request = (Command, mpsc::Sender<Reply>);

/// A cloneable, thread-safe handle to a running engine: sends it commands and
/// wakes its reactor.
#[derive(Clone)]
pub struct EngineHandle {
    pub(crate) tx: mpsc::Sender<Request>,
    pub(crate) waker: Arc<mio::Waker>,
}

impl std::fmt::Debug for EngineHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EngineHandle")
    }
}

impl EngineHandle {
    /// Sends `command` and waits up to `timeout` for the reactor's answer
    /// (`None` if the engine is gone or did not answer in time).
    pub fn call(&self, command: Command, timeout: Duration) -> Option<Reply> {
        let (tx, rx) = mpsc::channel();
        self.tx.send((command, tx)).ok()?;
        let _ = self.waker.wake();
        rx.recv_timeout(timeout).ok()
    }

    /// Asks the engine to stop (log out every session, then return from `run`).
    pub fn stop(&self) {
        let (tx, _rx) = mpsc::channel();
        let _ = self.tx.send((Command::Stop, tx));
        let _ = self.waker.wake();
    }
}

/// Decodes `%XX` escapes (and leaves anything else, `+` included, as it is).
///
/// ```
/// assert_eq!(peregrine_engine::admin::percent_decode("FIX.4.4:ISLD-%3ETW"), "FIX.4.4:ISLD->TW");
/// assert_eq!(peregrine_engine::admin::percent_decode("100%"), "100%");
/// ```
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Turns a request target (`/seqnum?SESSION=…&NEXTSENDERSEQNUM=2000`) into a
/// [`Command`], or the error reply to send.
///
/// ```
/// use peregrine_engine::admin::{parse_target, Command};
/// assert_eq!(
///     parse_target("/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTTARGETSEQNUM=5"),
///     Ok(Command::SetSeqNum { session: "FIX.4.4:ISLD->TW".into(), next_sender: None, next_target: Some(5) })
/// );
/// assert_eq!(parse_target("/sessions"), Ok(Command::ListSessions));
/// assert_eq!(parse_target("/nope").unwrap_err().status, 404);
/// ```
pub fn parse_target(target: &str) -> Result<Command, Reply> {
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
    match path {
        "/sessions" => Ok(Command::ListSessions),
        "/seqnum" => {
            let session = get("SESSION").ok_or_else(|| Reply::new(400, "SESSION is missing\n"))?;
            let num = |k: &str| -> Result<Option<u64>, Reply> {
                match get(k) {
                    None => Ok(None),
                    Some(v) => match v.parse::<u64>() {
                        Ok(n) if n >= 1 => Ok(Some(n)),
                        _ => Err(Reply::new(
                            400,
                            format!("{k}: {v:?} is not a sequence number\n"),
                        )),
                    },
                }
            };
            let next_sender = num("NEXTSENDERSEQNUM")?;
            let next_target = num("NEXTTARGETSEQNUM")?;
            if next_sender.is_none() && next_target.is_none() {
                return Err(Reply::new(
                    400,
                    "give NEXTSENDERSEQNUM and/or NEXTTARGETSEQNUM\n",
                ));
            }
            Ok(Command::SetSeqNum {
                session,
                next_sender,
                next_target,
            })
        }
        _ => Err(Reply::new(
            404,
            "not found (try /sessions or /seqnum?SESSION=...&NEXTSENDERSEQNUM=n)\n",
        )),
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn write_reply(stream: &mut TcpStream, reply: &Reply, json: bool) {
    let kind = if json && reply.status == 200 {
        "application/json"
    } else {
        "text/plain; charset=utf-8"
    };
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        reply.status,
        reason(reply.status),
        reply.body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(reply.body.as_bytes());
    let _ = stream.flush();
}

fn serve_one(mut stream: TcpStream, handle: &EngineHandle) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let _ = stream.set_nodelay(true);
    let mut buf = Vec::new();
    let mut chunk = [0u8; 2048];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && !buf.windows(2).any(|w| w == b"\n\n") {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if buf.len() > 16 * 1024 {
            write_reply(&mut stream, &Reply::new(400, "request too large\n"), false);
            return;
        }
    }
    let text = String::from_utf8_lossy(&buf);
    let mut words = text.lines().next().unwrap_or("").split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    if method != "GET" {
        write_reply(&mut stream, &Reply::new(405, "only GET\n"), false);
        return;
    }
    let reply = match parse_target(target) {
        Err(r) => r,
        Ok(cmd) => handle
            .call(cmd, Duration::from_secs(10))
            .unwrap_or_else(|| Reply::new(503, "the engine did not answer\n")),
    };
    write_reply(&mut stream, &reply, target.starts_with("/sessions"));
}

/// Starts the admin HTTP server on `addr` (port 0 picks one) in a helper
/// thread; returns the bound address. The thread ends with the process.
pub fn spawn_admin_server(addr: SocketAddr, handle: EngineHandle) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(addr)?;
    let local = listener.local_addr()?;
    std::thread::Builder::new()
        .name("peregrine-admin".into())
        .spawn(move || {
            for stream in listener.incoming() {
                match stream {
                    Ok(s) => serve_one(s, &handle),
                    Err(e) => tracing::warn!("admin accept failed: {e}"),
                }
            }
        })?;
    Ok(local)
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

//! A fake acceptor that plays a script back: it answers the runner's `I` lines
//! with the script's `E` lines and closes connections where the script expects
//! `eDISCONNECT`. Used to test the runner itself, end to end over TCP.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use crate::fix::{checksum, complete_message, fields, render, SOH};
use crate::read::{read_some, ReadSome};
use crate::script::{Script, Step};

/// A message the playback acceptor would send for an `E` line: the line completed
/// as the runner completes it, then made valid: a correct CheckSum, and a
/// SendingTime (52) given milliseconds where the template's explicit BodyLength
/// counts them.
///
/// ```
/// use peregrine_acceptance::{checksum, realize_expected};
/// use std::time::SystemTime;
/// // The body "52=00000000-00:00:00|" is 21 bytes; 9=25 counts milliseconds.
/// let m = realize_expected(b"8=FIX.4.4\x019=25\x0152=00000000-00:00:00\x0110=0\x01", SystemTime::now());
/// let head = b"8=FIX.4.4\x019=25\x0152=00000000-00:00:00.000\x01";
/// assert_eq!(&m[..head.len()], head);
/// assert_eq!(&m[head.len()..], format!("10={:03}\x01", checksum(head)).as_bytes());
/// ```
pub fn realize_expected(template: &[u8], now: SystemTime) -> Vec<u8> {
    let msg = complete_message(template, now);
    if !msg.starts_with(b"8=") {
        return msg;
    }
    let mut list: Vec<(Vec<u8>, Vec<u8>)> = fields(&msg)
        .into_iter()
        .map(|(t, v)| (t.to_vec(), v.to_vec()))
        .collect();
    let body_len = |list: &[(Vec<u8>, Vec<u8>)]| -> usize {
        list.iter()
            .skip(2)
            .filter(|(t, _)| t != b"10")
            .map(|(t, v)| t.len() + v.len() + 2)
            .sum()
    };
    let declared = list
        .get(1)
        .filter(|(t, _)| t == b"9")
        .and_then(|(_, v)| std::str::from_utf8(v).ok()?.parse::<usize>().ok());
    if declared == Some(body_len(&list) + 4) {
        if let Some((_, v)) = list.iter_mut().find(|(t, v)| t == b"52" && v.len() == 17) {
            v.extend_from_slice(b".000");
        }
    }
    let mut out = Vec::with_capacity(msg.len() + 4);
    for (t, v) in list.iter().filter(|(t, _)| t != b"10") {
        out.extend_from_slice(t);
        out.push(b'=');
        out.extend_from_slice(v);
        out.push(SOH);
    }
    if list.iter().any(|(t, _)| t == b"10") {
        let sum = checksum(&out);
        out.extend_from_slice(format!("10={sum:03}").as_bytes());
        out.push(SOH);
    }
    out
}

/// Rewrites the message the playback acceptor sends; arguments are the script
/// line of the `E` step and the message it would send.
pub type Mutator = dyn FnMut(usize, Vec<u8>) -> Vec<u8> + Send;

/// Why [`play_script`] stopped: the script line it was playing and what went
/// wrong there. Its [`Display`](fmt::Display) is `playback line <n>: <what>`.
#[derive(Debug)]
pub struct PlaybackError {
    /// The script line.
    pub line: usize,
    /// What went wrong.
    pub kind: PlaybackErrorKind,
}

/// What went wrong in a playback ([`PlaybackError`]).
#[derive(Debug)]
pub enum PlaybackErrorKind {
    /// The listener could not be made non-blocking.
    Listener(io::Error),
    /// Accepting a connection failed.
    Accept(io::Error),
    /// An accepted connection could not be made blocking.
    AcceptedStream(io::Error),
    /// No connection with data arrived in time.
    AcceptTimedOut,
    /// The runner sent nothing more in time.
    ReadTimedOut,
    /// Reading from the runner failed.
    Read(io::Error),
    /// The script names a connection that is not open.
    NoConnection(u32),
    /// The runner closed the connection before sending the whole message.
    ClosedBeforeMessage,
    /// The runner sent another message than the script's `I` line (digits
    /// aside: times, lengths, checksums).
    Unexpected {
        /// What the runner sent.
        received: Vec<u8>,
        /// What the script says.
        expected: Vec<u8>,
    },
    /// Writing an `E` line's message failed.
    Write(io::Error),
}

impl fmt::Display for PlaybackErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlaybackErrorKind::Listener(e) => write!(f, "listener: {e}"),
            PlaybackErrorKind::Accept(e) => write!(f, "accept: {e}"),
            PlaybackErrorKind::AcceptedStream(e) => write!(f, "accepted stream: {e}"),
            PlaybackErrorKind::AcceptTimedOut => {
                f.write_str("playback timed out waiting for a connection")
            }
            PlaybackErrorKind::ReadTimedOut => f.write_str("playback timed out reading"),
            PlaybackErrorKind::Read(e) => write!(f, "{e}"),
            PlaybackErrorKind::NoConnection(n) => write!(f, "no connection {n}"),
            PlaybackErrorKind::ClosedBeforeMessage => {
                f.write_str("connection closed before the message")
            }
            PlaybackErrorKind::Unexpected { received, expected } => write!(
                f,
                "received {} instead of {}",
                render(received),
                render(expected)
            ),
            PlaybackErrorKind::Write(e) => write!(f, "write: {e}"),
        }
    }
}

impl fmt::Display for PlaybackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "playback line {}: {}", self.line, self.kind)
    }
}

impl std::error::Error for PlaybackError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            PlaybackErrorKind::Listener(e)
            | PlaybackErrorKind::Accept(e)
            | PlaybackErrorKind::AcceptedStream(e)
            | PlaybackErrorKind::Read(e)
            | PlaybackErrorKind::Write(e) => Some(e),
            _ => None,
        }
    }
}

struct Peer {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Peer {
    /// Reads once into the buffer; `Ok(false)` at end of stream.
    /// A reset connection counts as its end.
    fn fill(&mut self, deadline: Instant) -> Result<bool, PlaybackErrorKind> {
        match read_some(&mut self.stream, &mut self.buf, deadline) {
            Ok(ReadSome::Bytes) => Ok(true),
            Ok(ReadSome::Eof) => Ok(false),
            Ok(ReadSome::TimedOut) => Err(PlaybackErrorKind::ReadTimedOut),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => Ok(false),
            Err(e) => Err(PlaybackErrorKind::Read(e)),
        }
    }

    fn read_until_eof(&mut self, deadline: Instant) -> Result<(), PlaybackErrorKind> {
        while self.fill(deadline)? {}
        Ok(())
    }
}

/// Accepts connections until one delivers data; connections closed without any
/// data (the runner's probes, readiness checks) are skipped.
fn accept_real(listener: &TcpListener, deadline: Instant) -> Result<Peer, PlaybackErrorKind> {
    listener
        .set_nonblocking(true)
        .map_err(PlaybackErrorKind::Listener)?;
    loop {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Err(PlaybackErrorKind::AcceptTimedOut);
                }
                std::thread::sleep(Duration::from_millis(2));
                continue;
            }
            Err(e) => return Err(PlaybackErrorKind::Accept(e)),
        };
        stream
            .set_nonblocking(false)
            .map_err(PlaybackErrorKind::AcceptedStream)?;
        let _ = stream.set_nodelay(true);
        let mut peer = Peer {
            stream,
            buf: Vec::new(),
        };
        if peer.fill(deadline)? {
            return Ok(peer);
        }
    }
}

/// Same bytes, except where both sides have a digit (times, lengths, checksums).
fn same_but_digits(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x == y || (x.is_ascii_digit() && y.is_ascii_digit()))
}

/// Plays `script` back on connections accepted from `listener`: each `I` line
/// is read (its exact length) and checked, each `E` line is sent (through
/// `mutate`), `eDISCONNECT` closes, `iDISCONNECT` waits for the runner's close.
/// Every wait is bounded by `io_timeout`.
///
/// # Errors
///
/// The first step that could not be played ([`PlaybackError`]): no connection
/// in time, a read or write that failed or timed out, or bytes from the runner
/// other than the script's.
pub fn play_script(
    listener: &TcpListener,
    script: &Script,
    io_timeout: Duration,
    mutate: &mut Mutator,
) -> Result<(), PlaybackError> {
    let mut peers: BTreeMap<u32, Peer> = BTreeMap::new();
    let result = (|| {
        for s in &script.steps {
            let deadline = Instant::now() + io_timeout;
            let at = |kind| PlaybackError { line: s.line, kind };
            match &s.step {
                Step::Connect(n) => {
                    peers.insert(*n, accept_real(listener, deadline).map_err(at)?);
                }
                Step::Disconnect(n) => {
                    if let Some(mut p) = peers.remove(n) {
                        p.read_until_eof(deadline).map_err(at)?;
                    }
                }
                Step::ExpectDisconnect(n) => {
                    if let Some(p) = peers.remove(n) {
                        let _ = p.stream.shutdown(Shutdown::Both);
                    }
                }
                Step::Send(n, template) => {
                    let want = complete_message(template, SystemTime::now());
                    let p = peers
                        .get_mut(n)
                        .ok_or_else(|| at(PlaybackErrorKind::NoConnection(*n)))?;
                    while p.buf.len() < want.len() {
                        if !p.fill(deadline).map_err(at)? {
                            return Err(at(PlaybackErrorKind::ClosedBeforeMessage));
                        }
                    }
                    let got: Vec<u8> = p.buf.drain(..want.len()).collect();
                    if !same_but_digits(&got, &want) {
                        return Err(at(PlaybackErrorKind::Unexpected {
                            received: got,
                            expected: want,
                        }));
                    }
                }
                Step::Expect(n, template) => {
                    let msg = mutate(s.line, realize_expected(template, SystemTime::now()));
                    let p = peers
                        .get_mut(n)
                        .ok_or_else(|| at(PlaybackErrorKind::NoConnection(*n)))?;
                    p.stream
                        .write_all(&msg)
                        .map_err(|e| at(PlaybackErrorKind::Write(e)))?;
                }
                Step::SetSession { .. } => {}
            }
        }
        Ok(())
    })();
    // Let the runner close what is left before returning.
    let deadline = Instant::now() + io_timeout;
    for (_, mut p) in peers {
        let _ = p.read_until_eof(deadline);
    }
    result
}

/// A fake HTTP admin endpoint answering every request with `status` (e.g.
/// `200 OK`) and recording the request lines.
pub struct FakeAdmin {
    /// Where it listens.
    pub addr: std::net::SocketAddr,
    /// The request lines received so far, e.g. `GET /seqnum?... HTTP/1.1`.
    pub requests: Arc<Mutex<Vec<String>>>,
    _thread: JoinHandle<()>,
}

impl FakeAdmin {
    /// Starts the endpoint on `listener`, on a background thread that lives as
    /// long as the process.
    ///
    /// # Errors
    ///
    /// The [`std::io::Error`] of reading `listener`'s local address; nothing
    /// is started then.
    pub fn start(listener: TcpListener, status: &str) -> std::io::Result<FakeAdmin> {
        let addr = listener.local_addr()?;
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&requests);
        let status = status.to_string();
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match stream.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => break,
                    }
                }
                let line = head
                    .split(|&b| b == b'\n')
                    .next()
                    .map(|l| String::from_utf8_lossy(l).trim_end().to_string())
                    .unwrap_or_default();
                recorded.lock().expect("requests lock").push(line);
                let body = "ok\n";
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Ok(FakeAdmin {
            addr,
            requests,
            _thread: thread,
        })
    }
}

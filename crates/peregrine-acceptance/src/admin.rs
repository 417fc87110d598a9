//! The out-of-band `iSET_SESSION` request to the acceptor's HTTP admin endpoint.

use std::fmt;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// Why a set-session request ([`set_session`], [`set_session_with_token`])
/// failed. Its [`Display`](fmt::Display) names the request:
/// `admin request GET <target> to <admin>: <what went wrong>`.
///
/// ```
/// use std::time::Duration;
/// use peregrine_acceptance::{set_session, AdminErrorKind, FakeAdmin};
/// let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
/// let admin = FakeAdmin::start(listener, "404 Not Found")?;
/// let e = set_session(admin.addr, "FIX.4.4:A->B", Some(2), None, Duration::from_secs(5))
///     .unwrap_err();
/// assert!(matches!(&e.kind, AdminErrorKind::Status(line) if line.contains("404")), "{e}");
/// assert!(e.to_string().ends_with(r#"got "HTTP/1.1 404 Not Found", expected 200"#), "{e}");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct AdminError {
    /// The admin endpoint.
    pub admin: SocketAddr,
    /// The request target ([`seqnum_request_target`]).
    pub target: String,
    /// What went wrong.
    pub kind: AdminErrorKind,
}

/// What went wrong with a set-session request ([`AdminError`]).
#[derive(Debug)]
pub enum AdminErrorKind {
    /// No connection could be opened to the endpoint.
    Connect(io::Error),
    /// Writing the request or reading the answer failed.
    Io(io::Error),
    /// No complete HTTP response head arrived in time.
    NoResponse {
        /// How long the request waited.
        timeout: Duration,
        /// What arrived.
        received: Vec<u8>,
    },
    /// The answer is not HTTP: its first line.
    NotHttp(String),
    /// The answer's status is not 200: its status line.
    Status(String),
}

impl fmt::Display for AdminError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "admin request GET {} to {}: ", self.target, self.admin)?;
        match &self.kind {
            AdminErrorKind::Connect(e) => write!(f, "cannot connect: {e}"),
            AdminErrorKind::Io(e) => write!(f, "{e}"),
            AdminErrorKind::NoResponse { timeout, received } => write!(
                f,
                "no complete HTTP response within {timeout:?} (received {:?})",
                String::from_utf8_lossy(received)
            ),
            AdminErrorKind::NotHttp(line) => write!(f, "not an HTTP response: {line:?}"),
            AdminErrorKind::Status(line) => write!(f, "got {line:?}, expected 200"),
        }
    }
}

impl std::error::Error for AdminError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            AdminErrorKind::Connect(e) | AdminErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// Percent-encodes a query value: unreserved characters and `:` stay, the rest
/// becomes `%XX`.
///
/// ```
/// assert_eq!(peregrine_acceptance::percent_encode("FIX.4.4:ISLD->TW"), "FIX.4.4:ISLD-%3ETW");
/// ```
pub fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b':') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The request target for a set-session request, e.g.
/// `/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=2000`.
///
/// ```
/// use peregrine_acceptance::seqnum_request_target;
/// assert_eq!(
///     seqnum_request_target("FIX.4.4:ISLD->TW", Some(2000), None),
///     "/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=2000"
/// );
/// ```
pub fn seqnum_request_target(
    session: &str,
    next_sender: Option<u64>,
    next_target: Option<u64>,
) -> String {
    let mut target = format!("/seqnum?SESSION={}", percent_encode(session));
    if let Some(n) = next_sender {
        target.push_str(&format!("&NEXTSENDERSEQNUM={n}"));
    }
    if let Some(n) = next_target {
        target.push_str(&format!("&NEXTTARGETSEQNUM={n}"));
    }
    target
}

/// Sends `GET <target> HTTP/1.1` to the admin endpoint and requires a `200`
/// status within `timeout`. (Without a token; see [`set_session_with_token`].)
///
/// # Errors
///
/// An [`AdminError`] naming the request: no connection, a failed write or
/// read, no complete answer within `timeout`, an answer that is not HTTP, or
/// a status other than 200.
pub fn set_session(
    admin: SocketAddr,
    session: &str,
    next_sender: Option<u64>,
    next_target: Option<u64>,
    timeout: Duration,
) -> Result<(), AdminError> {
    set_session_with_token(admin, None, session, next_sender, next_target, timeout)
}

/// [`set_session`] with `Authorization: Bearer <token>` when a token is given
/// (Peregrine's acceptor refuses `/seqnum` without its `AdminHttpToken`). The
/// token is never put in an error.
///
/// # Errors
///
/// As [`set_session`].
pub fn set_session_with_token(
    admin: SocketAddr,
    token: Option<&str>,
    session: &str,
    next_sender: Option<u64>,
    next_target: Option<u64>,
    timeout: Duration,
) -> Result<(), AdminError> {
    let target = seqnum_request_target(session, next_sender, next_target);
    let fail = |kind| AdminError {
        admin,
        target: target.clone(),
        kind,
    };
    let mut deadline = Instant::now() + timeout;
    let mut stream = TcpStream::connect_timeout(&admin, timeout)
        .map_err(|e| fail(AdminErrorKind::Connect(e)))?;
    let _ = stream.set_nodelay(true);
    let authorization = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let request = format!(
        "GET {target} HTTP/1.1\r\nHost: {admin}\r\n{authorization}Connection: close\r\n\r\n"
    );
    stream
        .set_write_timeout(Some(timeout))
        .and_then(|_| stream.write_all(request.as_bytes()))
        .map_err(|e| fail(AdminErrorKind::Io(e)))?;

    // Read the status line and headers, then the body when its length is given;
    // without a length, read until the server closes (briefly: the status is all
    // that matters).
    let mut response = Vec::new();
    let mut chunk = [0u8; 4096];
    let mut wanted: Option<usize> = None; // total length once the headers are in
    loop {
        if wanted.is_some_and(|w| response.len() >= w) {
            break;
        }
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            break;
        }
        stream
            .set_read_timeout(Some(remaining))
            .map_err(|e| fail(AdminErrorKind::Io(e)))?;
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => response.extend_from_slice(&chunk[..n]),
            Err(_) if wanted.is_some() => break,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                break
            }
            Err(e) => return Err(fail(AdminErrorKind::Io(e))),
        }
        if wanted.is_none() {
            if let Some(p) = response.windows(4).position(|w| w == b"\r\n\r\n") {
                let body = content_length(&response[..p]);
                wanted = Some(p + 4 + body.unwrap_or(0));
                if body.is_none() {
                    // Give a length-less body a moment to end, not the whole timeout.
                    deadline = deadline.min(Instant::now() + Duration::from_millis(200));
                }
            }
        }
    }
    if wanted.is_none() {
        return Err(fail(AdminErrorKind::NoResponse {
            timeout,
            received: response,
        }));
    }
    let status_line = response
        .split(|&b| b == b'\n')
        .next()
        .map(|l| String::from_utf8_lossy(l).trim_end().to_string())
        .unwrap_or_default();
    let mut parts = status_line.split_whitespace();
    let version = parts.next().unwrap_or("");
    let code = parts.next().unwrap_or("");
    if !version.starts_with("HTTP/") {
        return Err(fail(AdminErrorKind::NotHttp(status_line)));
    }
    if code != "200" {
        return Err(fail(AdminErrorKind::Status(status_line)));
    }
    Ok(())
}

fn content_length(head: &[u8]) -> Option<usize> {
    head.split(|&b| b == b'\n').skip(1).find_map(|line| {
        let line = String::from_utf8_lossy(line);
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse().ok())?
    })
}

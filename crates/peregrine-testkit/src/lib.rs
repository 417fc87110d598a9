//! What Peregrine's tests share, so each test file says only what it tests:
//!
//! * [`frame`]: a FIX message from its body written with `|` for SOH, with
//!   BodyLength and CheckSum filled in; [`render`] turns one back.
//! * [`sending_time`]: SendingTime (52) for now, in milliseconds.
//! * [`Peer`]: a FIX counterparty over a raw `TcpStream` (its own sequence
//!   numbers, whole messages read back), for tests of an engine's sockets.
//! * [`Rng`]: a small deterministic PRNG, so a failing run replays.
//! * `tls::TestPki` (feature `tls`): a CA and certificates for TLS tests.
//!
//! ```
//! use peregrine_testkit::{frame, render};
//! let m = frame("35=0|34=2|49=TW|52=20260101-00:00:00.000|56=ISLD|");
//! assert!(render(&m).starts_with("8=FIX.4.4|9=49|35=0|"));
//! assert!(render(&m).ends_with("|10=141|"));
//! ```

pub mod net;
#[cfg(feature = "tls")]
pub mod tls;

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use peregrine_codec::value::{format_timestamp, TimePrecision, UtcTimestamp};

/// A FIX.4.4 message with `body` (fields after BodyLength, `|` for SOH, each
/// field ending in `|`), its BodyLength and CheckSum computed.
pub fn frame(body: &str) -> Vec<u8> {
    frame_with("FIX.4.4", body)
}

/// [`frame`] with another BeginString.
pub fn frame_with(begin_string: &str, body: &str) -> Vec<u8> {
    let body = body.replace('|', "\x01");
    let mut msg = format!("8={begin_string}\x019={}\x01{body}", body.len()).into_bytes();
    let sum: u32 = msg.iter().map(|&b| u32::from(b)).sum();
    msg.extend_from_slice(format!("10={:03}\x01", sum % 256).as_bytes());
    msg
}

/// Bytes as text with `|` for SOH (what tests compare and print).
pub fn render(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).replace('\x01', "|")
}

/// SendingTime (52) for the present moment, to the millisecond.
pub fn sending_time() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64);
    let ts = UtcTimestamp::from_unix_nanos(now, TimePrecision::Millis);
    let mut buf = [0u8; 32];
    let n = format_timestamp(&ts, TimePrecision::Millis, &mut buf);
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// Where the first whole message in `buf` ends (after its CheckSum's SOH).
///
/// ```
/// let m = peregrine_testkit::frame("35=0|");
/// let mut two = m.clone();
/// two.extend_from_slice(&m[..5]);
/// assert_eq!(peregrine_testkit::message_end(&two), Some(m.len()));
/// assert_eq!(peregrine_testkit::message_end(&m[..m.len() - 1]), None);
/// ```
pub fn message_end(buf: &[u8]) -> Option<usize> {
    let at = buf.windows(4).position(|w| w == b"\x0110=")?;
    let end = buf[at + 4..].iter().position(|&b| b == 1)?;
    Some(at + 4 + end + 1)
}

/// A FIX counterparty over a raw socket: it numbers what it sends and reads
/// whole messages back.
#[derive(Debug)]
pub struct Peer {
    /// The socket.
    pub stream: TcpStream,
    buf: Vec<u8>,
    /// The next MsgSeqNum it sends.
    pub seq: u64,
    sender: String,
    target: String,
}

impl Peer {
    /// Connects to `addr` as `sender` (its SenderCompID) talking to `target`.
    ///
    /// # Panics
    ///
    /// If the connection fails.
    pub fn connect(addr: SocketAddr, sender: &str, target: &str) -> Peer {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).expect("TCP_NODELAY");
        Peer::over(stream, sender, target)
    }

    /// A peer on a socket connected elsewhere (with socket options set
    /// before the handshake, say).
    pub fn over(stream: TcpStream, sender: &str, target: &str) -> Peer {
        Peer {
            stream,
            buf: Vec::new(),
            seq: 1,
            sender: sender.into(),
            target: target.into(),
        }
    }

    /// The next message: `body` starts with `35=X`, the header (34, 49, 52, 56)
    /// goes after it; its MsgSeqNum is used up.
    pub fn message(&mut self, body: &str) -> Vec<u8> {
        let (msg_type, rest) = body.split_once('|').unwrap_or((body, ""));
        let sep = if rest.is_empty() || rest.ends_with('|') {
            ""
        } else {
            "|"
        };
        let m = frame(&format!(
            "{msg_type}|34={}|49={}|52={}|56={}|{rest}{sep}",
            self.seq,
            self.sender,
            sending_time(),
            self.target
        ));
        self.seq += 1;
        m
    }

    /// Sends the next message (see [`message`](Self::message)).
    ///
    /// # Panics
    ///
    /// If the write fails.
    pub fn send(&mut self, body: &str) {
        let m = self.message(body);
        self.stream.write_all(&m).expect("write");
    }

    /// The next whole message, rendered with `|`, if one comes within `limit`
    /// (`None` also when the connection is closed). `turn` runs between
    /// reads: an engine on this thread turns there.
    ///
    /// # Panics
    ///
    /// If the socket cannot be made non-blocking.
    pub fn read(&mut self, limit: Duration, mut turn: impl FnMut()) -> Option<String> {
        self.stream.set_nonblocking(true).expect("non-blocking");
        let start = Instant::now();
        let mut chunk = [0u8; 65536];
        loop {
            if let Some(end) = message_end(&self.buf) {
                let m: Vec<u8> = self.buf.drain(..end).collect();
                return Some(render(&m));
            }
            if start.elapsed() > limit {
                return None;
            }
            turn();
            match self.stream.read(&mut chunk) {
                Ok(0) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_micros(200))
                }
                Err(_) => return None,
            }
        }
    }

    /// Whether the other side closes the connection within `limit` (data
    /// before the close is read and dropped).
    pub fn closed_within(&mut self, limit: Duration, mut turn: impl FnMut()) -> bool {
        let _ = self.stream.set_nonblocking(true);
        let start = Instant::now();
        let mut chunk = [0u8; 65536];
        while start.elapsed() < limit {
            turn();
            match self.stream.read(&mut chunk) {
                Ok(0) => return true,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_micros(200))
                }
                Err(_) => return true,
            }
        }
        false
    }
}

/// Reads one whole message from a blocking `stream` (through `10=nnn<SOH>`),
/// rendered with `|`.
///
/// # Panics
///
/// If the stream fails or closes first (a read timeout set on the stream
/// bounds the wait).
pub fn read_message(stream: &mut TcpStream) -> String {
    let mut buf = Vec::new();
    let mut b = [0u8; 1];
    while message_end(&buf).is_none() {
        stream.read_exact(&mut b).expect("a whole message");
        buf.push(b[0]);
    }
    render(&buf)
}

/// A small deterministic PRNG (xorshift64*), so a failing run can be replayed
/// from its seed.
///
/// ```
/// let mut a = peregrine_testkit::Rng::new(7);
/// let mut b = peregrine_testkit::Rng::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(10) < 10);
/// ```
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (0 is replaced: xorshift stays at 0 forever).
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            seed
        })
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_and_body_length_are_right() {
        let m = frame("35=0|");
        assert_eq!(render(&m), "8=FIX.4.4|9=5|35=0|10=163|");
        let mut decoder = peregrine_codec::Decoder::new(Default::default());
        let view = decoder.decode(&m).map(|v| v.msg_type().to_vec());
        assert_eq!(view, Ok(b"0".to_vec()));
    }
}

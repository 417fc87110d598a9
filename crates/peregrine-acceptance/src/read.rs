//! One read from a peer's socket before a deadline, shared by the script runner and the
//! playback peer (each maps the outcome to its own error).

use std::io::{self, ErrorKind, Read};
use std::net::TcpStream;
use std::time::Instant;

/// What [`read_some`] brought.
pub(crate) enum ReadSome {
    /// Bytes were appended to the buffer.
    Bytes,
    /// The peer closed its side.
    Eof,
    /// `deadline` passed with nothing read.
    TimedOut,
}

/// Reads once from `stream` into `buf`, retrying reads that would block, timed out or
/// were interrupted until `deadline`. An error is the socket's own (setting the timeout
/// or reading).
pub(crate) fn read_some(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    deadline: Instant,
) -> io::Result<ReadSome> {
    let mut chunk = [0u8; 8192];
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Ok(ReadSome::TimedOut);
        }
        stream.set_read_timeout(Some(remaining))?;
        match stream.read(&mut chunk) {
            Ok(0) => return Ok(ReadSome::Eof),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                return Ok(ReadSome::Bytes);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e),
        }
    }
}

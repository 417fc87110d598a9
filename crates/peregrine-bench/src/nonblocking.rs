//! Writing to a non-blocking socket, for the thinnest peers of the two-process
//! benchmarks (the round trip's TCP floor, the send benchmark's counterparty): they spin
//! on a full socket buffer rather than sleep, as a busy engine thread would.

use std::io::{self, Write};

/// Writes all of `bytes` to `stream`, spinning while it would block (or a write is
/// interrupted).
///
/// ```
/// let mut out = Vec::new();
/// peregrine_bench::nonblocking::write_all_spinning(&mut out, b"8=FIX.4.4")?;
/// assert_eq!(out, b"8=FIX.4.4");
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
///
/// The first other error of a write.
#[inline]
pub fn write_all_spinning(stream: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    let mut done = 0;
    while done < bytes.len() {
        match stream.write(&bytes[done..]) {
            Ok(n) => done += n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) =>
            {
                std::hint::spin_loop()
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

//! A connection's bytes: plain TCP, or TLS over it (rustls, [`crate::tls`]).
//!
//! The reactor reads and writes through [`Transport`] and never sees a record: a read
//! gives plaintext into the reactor's read buffer (rustls decrypts in its own buffer,
//! then one copy; the codec's zero-copy parse starts from the read buffer as without
//! TLS), a write hands plaintext to rustls and writes what it encrypts as far as the
//! socket takes it.
//!
//! What it costs, and why not less: rustls 0.23 keeps each decrypted record in a `Vec`
//! of its own (`take_received_plaintext`), in its unbuffered API as well (its
//! `ReadTraffic` owns a popped chunk; in-place decryption is marked for the future),
//! and its buffered API queues each encrypted record in a `Vec`: one allocation per
//! record each way, two per round trip (BENCHMARKS.md §4). Decrypting into the session's
//! read buffer needs a TLS library that decrypts in the caller's buffer; rustls's
//! unbuffered API would remove the sending side's allocation only. rustls 0.24 does
//! decrypt in place in the caller's buffer (its pre-release 0.24.0-dev.2 on crates.io,
//! checked 2026-11-24: `read_tls` over a `&mut [u8]`, plaintext reborrowed from it);
//! a trading engine does not ship a TLS pre-release, so the switch waits for 0.24.
//! Kernel TLS would also decrypt into the read buffer, but needs the `tls` ULP, which
//! the kernels of our CI machines do not offer (`tcp_available_ulp`: `mptcp` only).
//!
//! Handshake records are written as they come up, from reads and from the writable
//! event; what the socket did not take waits in rustls (at most
//! [`TLS_BUFFER_LIMIT`](crate::tls::TLS_BUFFER_LIMIT)) and nothing more is taken from
//! the session until it has gone.
//!
//! Edge-triggered readiness: a TLS read stops only at `WouldBlock` (a short read of
//! plaintext says nothing about the socket), so [`Transport::drained_by_short_read`]
//! is false for TLS.

use std::io::{self, Read, Write};

use mio::net::TcpStream;
use peregrine_session::DisconnectReason;

/// Why a read or a write failed.
#[derive(Debug)]
pub(super) enum TransportError {
    /// The socket did (`WouldBlock` and `Interrupted` included).
    Io(io::Error),
    /// TLS did: a handshake that failed (a certificate that does not verify, no
    /// common version or cipher, the peer's alert) or a record that does not decrypt.
    Tls(rustls::Error),
}

impl From<io::Error> for TransportError {
    fn from(e: io::Error) -> Self {
        TransportError::Io(e)
    }
}

/// A connection's socket, and its TLS state when it speaks TLS.
pub(super) struct Transport {
    pub(super) stream: TcpStream,
    tls: Option<Box<rustls::Connection>>,
}

impl Transport {
    /// Plain TCP.
    pub(super) fn plain(stream: TcpStream) -> Transport {
        Transport { stream, tls: None }
    }

    /// TLS over `stream`, as `tls` (a new client or server connection) says.
    pub(super) fn tls(stream: TcpStream, mut tls: rustls::Connection) -> Transport {
        tls.set_buffer_limit(Some(crate::tls::TLS_BUFFER_LIMIT));
        Transport {
            stream,
            tls: Some(Box::new(tls)),
        }
    }

    /// Whether a read shorter than the buffer proves the socket empty (plain TCP).
    pub(super) fn drained_by_short_read(&self) -> bool {
        self.tls.is_none()
    }

    /// Reads plaintext into `buf`: `Ok(0)` when the peer closed (for TLS, with or
    /// without close_notify: FIX frames carry their own length and checksum, so a
    /// truncation cannot pass for a message).
    pub(super) fn read(&mut self, buf: &mut [u8]) -> Result<usize, TransportError> {
        let Some(tls) = &mut self.tls else {
            return Ok(self.stream.read(buf)?);
        };
        loop {
            match tls.reader().read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(0),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e.into()),
            }
            // No plaintext waiting: take records from the socket (at the peer's
            // close, 0: the reader then says so, Ok(0) or UnexpectedEof).
            tls.read_tls(&mut self.stream)?;
            if let Err(e) = tls.process_new_packets() {
                // The alert rustls queued, if the socket takes it.
                let _ = tls.write_tls(&mut self.stream);
                return Err(TransportError::Tls(e));
            }
            // Handshake answers; a full socket leaves them for the writable event.
            match write_records(tls, &mut self.stream) {
                Err(TransportError::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => {}
                r => r?,
            }
        }
    }

    /// Writes `buf` (plaintext): how much was taken, `WouldBlock` when nothing could
    /// be (the socket is full, or TLS records still wait for it).
    pub(super) fn write(&mut self, buf: &[u8]) -> Result<usize, TransportError> {
        let Some(tls) = &mut self.tls else {
            return Ok(self.stream.write(buf)?);
        };
        write_records(tls, &mut self.stream)?;
        if tls.wants_write() {
            return Err(io::Error::from(io::ErrorKind::WouldBlock).into());
        }
        let n = tls.writer().write(buf)?;
        if n == 0 && !buf.is_empty() {
            return Err(io::Error::from(io::ErrorKind::WouldBlock).into());
        }
        match write_records(tls, &mut self.stream) {
            // Taken: what the socket did not take waits for the writable event.
            Ok(()) => Ok(n),
            Err(TransportError::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => Ok(n),
            Err(e) => Err(e),
        }
    }

    /// Whether TLS records wait for the socket (never for plain TCP).
    pub(super) fn records_wait(&self) -> bool {
        self.tls.as_ref().is_some_and(|tls| tls.wants_write())
    }

    /// Writes the TLS records that wait (handshake, or what a full socket left);
    /// nothing for plain TCP.
    pub(super) fn flush_records(&mut self) -> Result<(), TransportError> {
        match &mut self.tls {
            Some(tls) => match write_records(tls, &mut self.stream) {
                Err(TransportError::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => Ok(()),
                r => r,
            },
            None => Ok(()),
        }
    }

    /// Before the socket closes: TLS's close_notify, if the socket takes it.
    pub(super) fn close(&mut self) {
        if let Some(tls) = &mut self.tls {
            tls.send_close_notify();
            let _ = tls.write_tls(&mut self.stream);
        }
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

/// Writes rustls's records until none wait or the socket is full (`WouldBlock`).
fn write_records(
    tls: &mut rustls::Connection,
    stream: &mut TcpStream,
) -> Result<(), TransportError> {
    while tls.wants_write() {
        match tls.write_tls(stream) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero).into()),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// What the event log says of a failed read or write (`what`), and the reason the
/// session is told.
pub(super) fn failure(what: &str, e: TransportError) -> (String, DisconnectReason) {
    match e {
        TransportError::Io(e) => (
            format!("{what} failed: {e}"),
            DisconnectReason::Transport(e.kind()),
        ),
        TransportError::Tls(e) => (format!("TLS: {e}"), DisconnectReason::Tls),
    }
}

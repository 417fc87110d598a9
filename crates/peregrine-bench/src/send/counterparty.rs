//! The counterparty: a raw FIX acceptor on a plain socket that frames what it reads.

use std::io;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use peregrine_codec::value::{parse_u64, TimePrecision, UtcTimestamp};
use peregrine_codec::{EncodeBuffer, Frame, Framer, MessageEncoder};

use super::order::field;
use crate::nonblocking::write_all_spinning;
use crate::{Error, Result};

/// The counterparty: a raw FIX.4.4 acceptor on a socket. It answers the Logon,
/// TestRequests and the Logout, and hands every other message to its caller as it
/// reads it. It allocates nothing after it is made.
///
/// ```
/// use std::io::{Read, Write};
/// use std::net::{TcpListener, TcpStream};
/// use std::time::Duration;
/// use peregrine_bench::{codec::fix44, send::{field, Counterparty, Polled}};
///
/// let listener = TcpListener::bind("127.0.0.1:0").unwrap();
/// let port = listener.local_addr().unwrap().port();
/// // The initiator: a Logon, then (once answered) one order.
/// let initiator = std::thread::spawn(move || {
///     let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
///     s.write_all(&fix44("35=A|49=CLIENT|56=VENUE|34=1|52=20260101-00:00:00.000|98=0|108=30|")).unwrap();
///     assert!(s.read(&mut [0u8; 256]).unwrap() > 0); // the counterparty's Logon
///     s.write_all(&fix44("35=D|49=CLIENT|56=VENUE|34=2|52=20260101-00:00:00.000|11=1|")).unwrap();
///     s
/// });
/// let mut cp = Counterparty::accept(&listener, Duration::from_secs(10))?;
/// let mut orders = Vec::new();
/// while orders.is_empty() {
///     let polled = cp.poll(&mut |m| orders.push(field(m, b"11").unwrap().to_vec()))?;
///     assert_ne!(polled, Polled::Closed);
/// }
/// assert_eq!(orders, [b"1".to_vec()]);
/// drop(initiator.join().unwrap());
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
pub struct Counterparty {
    stream: TcpStream,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    out: EncodeBuffer,
    seq: u64,
    framer: Framer,
    logged_out: bool,
}

impl std::fmt::Debug for Counterparty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counterparty")
            .field("next_seq", &self.seq)
            .field("buffered", &(self.end - self.start))
            .finish()
    }
}

/// What a [`Counterparty::poll`] found.
///
/// ```
/// # use std::io::{Read, Write};
/// # use std::net::{TcpListener, TcpStream};
/// # use std::time::Duration;
/// # use peregrine_bench::{codec::fix44, send::{field, Counterparty, Polled}};
/// #
/// # let listener = TcpListener::bind("127.0.0.1:0").unwrap();
/// # let port = listener.local_addr().unwrap().port();
/// # // The initiator: a Logon, then (once answered) one order.
/// # let initiator = std::thread::spawn(move || {
/// #     let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
/// #     s.write_all(&fix44("35=A|49=CLIENT|56=VENUE|34=1|52=20260101-00:00:00.000|98=0|108=30|")).unwrap();
/// #     assert!(s.read(&mut [0u8; 256]).unwrap() > 0); // the counterparty's Logon
/// #     s.write_all(&fix44("35=D|49=CLIENT|56=VENUE|34=2|52=20260101-00:00:00.000|11=1|")).unwrap();
/// #     s
/// # });
/// # let mut cp = Counterparty::accept(&listener, Duration::from_secs(10))?;
/// # let mut orders = Vec::new();
/// # while orders.is_empty() {
/// #     let polled = cp.poll(&mut |m| orders.push(field(m, b"11").unwrap().to_vec()))?;
/// #     assert_ne!(polled, Polled::Closed);
/// # }
/// # assert_eq!(orders, [b"1".to_vec()]);
/// drop(initiator.join().unwrap()); // the initiator's socket closes
/// while cp.poll(&mut |_| {})? != Polled::Closed {}
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Polled {
    /// Nothing to read (yet).
    Nothing,
    /// Bytes were read (and every complete message handled).
    Read,
    /// The engine closed the connection.
    Closed,
}

impl Counterparty {
    /// Waits (up to `patience`) for the initiator to connect to `listener` and send its
    /// Logon, and answers it.
    ///
    /// ```
    /// use std::io::{Read, Write};
    /// use std::net::{TcpListener, TcpStream};
    /// use std::time::Duration;
    /// use peregrine_bench::{codec::fix44, send::{field, Counterparty, Polled}};
    ///
    /// let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    /// let port = listener.local_addr().unwrap().port();
    /// // The initiator: a Logon, then (once answered) one order.
    /// let initiator = std::thread::spawn(move || {
    ///     let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    ///     s.write_all(&fix44("35=A|49=CLIENT|56=VENUE|34=1|52=20260101-00:00:00.000|98=0|108=30|")).unwrap();
    ///     assert!(s.read(&mut [0u8; 256]).unwrap() > 0); // the counterparty's Logon
    ///     s.write_all(&fix44("35=D|49=CLIENT|56=VENUE|34=2|52=20260101-00:00:00.000|11=1|")).unwrap();
    ///     s
    /// });
    /// let mut cp = Counterparty::accept(&listener, Duration::from_secs(10))?;
    /// # drop(initiator.join().unwrap());
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Engine`] when nothing connects or logs on in time, or a socket fails.
    pub fn accept(listener: &TcpListener, patience: Duration) -> Result<Counterparty> {
        let deadline = Instant::now() + patience;
        listener
            .set_nonblocking(true)
            .map_err(Error::engine("counterparty listener"))?;
        let stream = loop {
            match listener.accept() {
                Ok((s, _)) => break s,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if Instant::now() > deadline {
                        return Err(Error::Engine {
                            what: "the initiator did not connect to the counterparty".into(),
                            source: None,
                        });
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) => return Err(Error::engine("counterparty accept")(e)),
            }
        };
        stream
            .set_nonblocking(false)
            .and_then(|()| stream.set_nodelay(true))
            .and_then(|()| stream.set_read_timeout(Some(Duration::from_millis(50))))
            .map_err(Error::engine("counterparty socket"))?;
        let mut cp = Counterparty {
            stream,
            buf: vec![0; 1 << 20].into_boxed_slice(),
            start: 0,
            end: 0,
            out: EncodeBuffer::with_capacity(512),
            seq: 1,
            framer: Framer::default(),
            logged_out: false,
        };
        let mut heart_bt_int = None;
        while heart_bt_int.is_none() {
            let polled = cp.poll(&mut |m| {
                if field(m, b"35") == Some(b"A") {
                    heart_bt_int = Some(
                        field(m, b"108")
                            .and_then(|v| parse_u64(v).ok())
                            .unwrap_or(30),
                    );
                }
            })?;
            if polled == Polled::Closed || Instant::now() > deadline {
                return Err(Error::Engine {
                    what: "the initiator sent no Logon".into(),
                    source: None,
                });
            }
        }
        let hb = heart_bt_int.unwrap_or(30);
        cp.reply(b"A", |m| {
            m.uint(98, 0).uint(108, hb);
        })
        .map_err(Error::engine("counterparty Logon"))?;
        Ok(cp)
    }

    /// Blocking reads (with a short timeout) or busy-polled non-blocking ones.
    ///
    /// ```
    /// # use std::io::{Read, Write};
    /// # use std::net::{TcpListener, TcpStream};
    /// # use std::time::Duration;
    /// # use peregrine_bench::{codec::fix44, send::{field, Counterparty, Polled}};
    /// #
    /// # let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # // The initiator: a Logon, then (once answered) one order.
    /// # let initiator = std::thread::spawn(move || {
    /// #     let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    /// #     s.write_all(&fix44("35=A|49=CLIENT|56=VENUE|34=1|52=20260101-00:00:00.000|98=0|108=30|")).unwrap();
    /// #     assert!(s.read(&mut [0u8; 256]).unwrap() > 0); // the counterparty's Logon
    /// #     s.write_all(&fix44("35=D|49=CLIENT|56=VENUE|34=2|52=20260101-00:00:00.000|11=1|")).unwrap();
    /// #     s
    /// # });
    /// # let mut cp = Counterparty::accept(&listener, Duration::from_secs(10))?;
    /// # let _initiator = initiator;
    /// cp.set_nonblocking(true).unwrap();
    /// let polled = cp.poll(&mut |_| {})?; // returns at once
    /// assert!(matches!(polled, Polled::Nothing | Polled::Read));
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The socket refuses.
    pub fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        self.stream.set_nonblocking(nonblocking)
    }

    /// One read; every complete message it completes is handled: Heartbeats and Logons
    /// dropped after `on_message` saw the Logon, TestRequests and Logout answered,
    /// everything else given to `on_message`.
    ///
    /// ```
    /// # use std::io::{Read, Write};
    /// # use std::net::{TcpListener, TcpStream};
    /// # use std::time::Duration;
    /// # use peregrine_bench::{codec::fix44, send::{field, Counterparty, Polled}};
    /// #
    /// # let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # // The initiator: a Logon, then (once answered) one order.
    /// # let initiator = std::thread::spawn(move || {
    /// #     let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    /// #     s.write_all(&fix44("35=A|49=CLIENT|56=VENUE|34=1|52=20260101-00:00:00.000|98=0|108=30|")).unwrap();
    /// #     assert!(s.read(&mut [0u8; 256]).unwrap() > 0); // the counterparty's Logon
    /// #     s.write_all(&fix44("35=D|49=CLIENT|56=VENUE|34=2|52=20260101-00:00:00.000|11=1|")).unwrap();
    /// #     s
    /// # });
    /// # let mut cp = Counterparty::accept(&listener, Duration::from_secs(10))?;
    /// let mut orders = Vec::new();
    /// while orders.is_empty() {
    ///     let polled = cp.poll(&mut |m| orders.push(field(m, b"11").unwrap().to_vec()))?;
    ///     assert_ne!(polled, Polled::Closed);
    /// }
    /// assert_eq!(orders, [b"1".to_vec()]);
    /// # drop(initiator.join().unwrap());
    /// # Ok::<(), peregrine_bench::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The socket fails, or the bytes are not FIX.
    pub fn poll(&mut self, on_message: &mut dyn FnMut(&[u8])) -> Result<Polled> {
        if self.end == self.buf.len() {
            if self.start == 0 {
                return Err(Error::failed_check(
                    "the counterparty's buffer holds an incomplete message of 1 MiB",
                ));
            }
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        match self.stream.read(&mut self.buf[self.end..]) {
            Ok(0) => return Ok(Polled::Closed),
            Ok(n) => self.end += n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) =>
            {
                return Ok(Polled::Nothing)
            }
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return Ok(Polled::Closed),
            Err(e) => return Err(Error::engine("counterparty read")(e)),
        }
        loop {
            let len = match self.framer.next_frame(&self.buf[self.start..self.end]) {
                Frame::Message { len } => len,
                Frame::Incomplete => break,
                Frame::Garbled { reason, .. } => {
                    return Err(Error::check(
                        "the counterparty read bytes that are not FIX",
                        reason.to_string(),
                    ))
                }
            };
            let (start, end) = (self.start, self.start + len);
            self.start = end;
            let kind = field(&self.buf[start..end], b"35").unwrap_or(b"");
            match kind {
                b"0" => {}
                b"1" => {
                    let mut id = [0u8; 64];
                    let v = field(&self.buf[start..end], b"112").unwrap_or(b"");
                    let n = v.len().min(id.len());
                    id[..n].copy_from_slice(&v[..n]);
                    self.reply(b"0", |m| {
                        m.str(112, &id[..n]);
                    })
                    .map_err(Error::engine("counterparty Heartbeat"))?;
                }
                b"5" => {
                    if !self.logged_out {
                        self.logged_out = true;
                        self.reply(b"5", |_| {})
                            .map_err(Error::engine("counterparty Logout"))?;
                    }
                }
                _ => on_message(&self.buf[start..end]),
            }
        }
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        Ok(Polled::Read)
    }

    /// Sends a session message of `msg_type` with the header the initiator expects.
    fn reply(
        &mut self,
        msg_type: &[u8],
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> io::Result<()> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i64);
        let ts = UtcTimestamp::from_unix_nanos(nanos, TimePrecision::Millis);
        let mut m = self.out.start(b"FIX.4.4", msg_type);
        m.str(49, b"VENUE")
            .str(56, b"CLIENT")
            .uint(34, self.seq)
            .timestamp(52, &ts, TimePrecision::Millis);
        body(&mut m);
        let bytes = m.finish();
        self.seq += 1;
        write_all_spinning(&mut self.stream, bytes)
    }

    /// Reads (answering the Logout) until the engine closes the connection, at most
    /// `patience`: for a graceful stop of the engine.
    pub(super) fn drain_until_closed(mut self, patience: Duration) {
        let deadline = Instant::now() + patience;
        let _ = self.set_nonblocking(false);
        while Instant::now() < deadline {
            match self.poll(&mut |_| {}) {
                Ok(Polled::Closed) | Err(_) => return,
                Ok(_) => {}
            }
        }
    }
}

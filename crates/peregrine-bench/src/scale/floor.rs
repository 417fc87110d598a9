//! The many-sessions floor (`peregrine-bench scale-peer --role floor-acceptor|floor-load`):
//! what this machine's TCP stack allows N connections on 127.0.0.1 with one order in
//! flight each, when neither side does any FIX work. The same bytes as §4's floor (the
//! 166 B NewOrderSingle and the 209 B ExecutionReport Peregrine sends,
//! [`canned_messages`]); each side one thread on epoll (`mio`), blocking in `epoll_wait`
//! when nothing is ready, a read until it comes back short, the canned answer written for
//! each whole message and each message compared byte for byte with the canned one. No
//! parse, session, store or logon.
//!
//! It runs in the acceptor's slot of the many-sessions table, under the same contract as
//! the load generator of [`super::sessions`] (`ready`, `logged-on` once every connection
//! is up, then one JSON line `sessions-N` with the round trips per second and their HDR
//! histogram, a warm-up second before the window), so a reader sees beside each engine's
//! rate how far the machine itself goes: the ceiling any acceptor's round trips per second
//! sit under on the same two cores.
//!
//! Hand-written rather than on a crate's server: it is the thinnest code over the same
//! system calls an engine makes, which is what a floor is for.

use std::io::{self, Read, Write as _};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};

use super::args::PeerArgs;
use super::sessions::{CpuUsed, CpuWindow};
use crate::report::new_histogram;
use crate::roundtrip::floor::canned_messages;
use crate::{Error, Result};

/// The listener's token; connections are numbered from 0.
const LISTENER: Token = Token(usize::MAX);

/// How long a poll waits at most, so that a stalled run still ends.
const POLL_WAIT: Duration = Duration::from_millis(100);

/// The warm-up before the measured window (as the load generator's).
const WARMUP: Duration = Duration::from_secs(1);

/// Listen backlog, as the engine's (the kernel caps it at `net.core.somaxconn`): with
/// mio's default (128) a burst of connects overflowed it and each overflow cost the
/// connect a one-second SYN retransmission (10,000 connections: 52–75 s instead of 0.2).
const LISTEN_BACKLOG: i32 = 1024;

/// The longest a connection may take to be accepted and connected, in all.
const CONNECT_PATIENCE: Duration = Duration::from_secs(120);

/// One connection and what it has read of the message in flight. Its buffer holds two
/// messages: with one order in flight there is never more than one to read.
struct Conn {
    stream: TcpStream,
    buf: Box<[u8]>,
    have: usize,
}

impl Conn {
    fn new(stream: TcpStream, message: usize) -> Conn {
        Conn {
            stream,
            buf: vec![0; 2 * message].into_boxed_slice(),
            have: 0,
        }
    }

    /// Reads what has arrived and, for each whole `expect`, calls `on_message`; returns
    /// `Ok(false)` once the peer has closed. With `closing` (epoll said the peer closed)
    /// it reads on until the read of 0, which a short read would otherwise hide: a close
    /// that comes with the last bytes raises no later event.
    fn read_all(
        &mut self,
        expect: &[u8],
        closing: bool,
        mut on_message: impl FnMut(&mut TcpStream) -> Result<()>,
    ) -> Result<bool> {
        loop {
            let room = self.buf.len() - self.have;
            match self.stream.read(&mut self.buf[self.have..]) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.have += n;
                    while self.have >= expect.len() {
                        if self.buf[..expect.len()] != *expect {
                            return Err(Error::failed_check(
                                "floor: a message is not the canned one",
                            ));
                        }
                        self.buf.copy_within(expect.len()..self.have, 0);
                        self.have -= expect.len();
                        on_message(&mut self.stream)?;
                    }
                    if n < room && !closing {
                        // Drained: edge-triggered readiness says when more comes.
                        return Ok(true);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(true),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_error("read", e)),
            }
        }
    }
}

fn io_error(what: &'static str, e: io::Error) -> Error {
    Error::engine(what)(e)
}

/// Writes all of `bytes` to a non-blocking socket (with one message in flight per
/// connection the socket buffer always has room; a short write is retried).
fn send(stream: &mut TcpStream, bytes: &[u8]) -> Result<()> {
    crate::nonblocking::write_all_spinning(stream, bytes).map_err(|e| io_error("write", e))
}

/// The floor's acceptor: listens on 127.0.0.1:`--port`, says `ready`, answers every
/// canned NewOrderSingle with the canned ExecutionReport until every connection it had
/// has closed.
///
/// # Errors
///
/// [`Error::Engine`] for a socket that fails; [`Error::Check`] for a message that is not
/// the canned order.
pub(crate) fn accept(a: &PeerArgs) -> Result<()> {
    let (order, report) = canned_messages();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], a.port));
    let mut listener = listen(addr).map_err(|e| io_error("listen", e))?;
    let mut poll = Poll::new().map_err(|e| io_error("epoll", e))?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)
        .map_err(|e| io_error("register", e))?;
    let mut events = Events::with_capacity(1024);
    let mut conns: Vec<Option<Conn>> = Vec::with_capacity(a.sessions);
    let mut open = 0usize;
    println!("ready");
    let _ = io::stdout().flush();
    loop {
        poll.poll(&mut events, Some(POLL_WAIT))
            .map_err(|e| io_error("epoll_wait", e))?;
        for event in events.iter() {
            if event.token() == LISTENER {
                loop {
                    match listener.accept() {
                        Ok((mut stream, _)) => {
                            stream
                                .set_nodelay(true)
                                .map_err(|e| io_error("TCP_NODELAY", e))?;
                            poll.registry()
                                .register(&mut stream, Token(conns.len()), Interest::READABLE)
                                .map_err(|e| io_error("register", e))?;
                            conns.push(Some(Conn::new(stream, order.len())));
                            open += 1;
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) => return Err(io_error("accept", e)),
                    }
                }
                continue;
            }
            let slot = &mut conns[event.token().0];
            let Some(conn) = slot else { continue };
            if !conn.read_all(&order, event.is_read_closed(), |s| send(s, &report))? {
                *slot = None;
                open -= 1;
            }
        }
        if open == 0 && !conns.is_empty() {
            return Ok(());
        }
    }
}

/// The floor's load: `--sessions` connections to 127.0.0.1:`--port`, `logged-on` once
/// all are up (its "all logged on" time is the connects': there is no Logon), idle for
/// [`IDLE_BEFORE_ORDERS`](super::sessions::IDLE_BEFORE_ORDERS) as the load generator's
/// sessions are, then one canned order in flight on each, the next written when the canned
/// report comes back; after [`WARMUP`], the round trips of `--seconds` counted and timed
/// (from the write of an order to its report read whole) and printed as one JSON line.
///
/// # Errors
///
/// [`Error::Engine`] for a socket that fails or connections that do not come up within
/// [`CONNECT_PATIENCE`]; [`Error::Check`] for a reply that is not the canned report, a
/// closed connection, or no round trip in the window.
pub(crate) fn load(a: &PeerArgs) -> Result<()> {
    let started = Instant::now();
    let (order, report) = canned_messages();
    let n = a.sessions;
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], a.port));
    let mut poll = Poll::new().map_err(|e| io_error("epoll", e))?;
    let mut conns = Vec::with_capacity(n);
    for k in 0..n {
        let stream = connect(addr, started)?;
        stream
            .set_nonblocking(true)
            .map_err(|e| io_error("O_NONBLOCK", e))?;
        stream
            .set_nodelay(true)
            .map_err(|e| io_error("TCP_NODELAY", e))?;
        let mut stream = TcpStream::from_std(stream);
        poll.registry()
            .register(&mut stream, Token(k), Interest::READABLE)
            .map_err(|e| io_error("register", e))?;
        conns.push(Conn::new(stream, report.len()));
    }
    let connected = started.elapsed();
    eprintln!(
        "floor load: {n} connections up {:.0} ms after start",
        connected.as_secs_f64() * 1e3
    );
    println!("logged-on");
    let _ = io::stdout().flush();
    // Idle first, as the load generator's sessions are, while the driver reads the
    // acceptor's RSS.
    std::thread::sleep(super::sessions::IDLE_BEFORE_ORDERS);

    let mut sent_at = vec![Instant::now(); n];
    for (k, c) in conns.iter_mut().enumerate() {
        sent_at[k] = Instant::now();
        send(&mut c.stream, &order)?;
    }
    let mut hist: Histogram<u64> = new_histogram();
    let mut events = Events::with_capacity(1024);
    let orders_from = Instant::now();
    let (mut window_start, mut round_trips, mut measuring) = (orders_from, 0u64, false);
    let mut cpu = None;
    let window = Duration::from_secs(a.seconds);
    loop {
        let now = Instant::now();
        if !measuring && now - orders_from >= WARMUP {
            (measuring, window_start, round_trips) = (true, now, 0);
            cpu = Some(CpuWindow::start(a.acceptor_pid));
        }
        if measuring && now - window_start >= window {
            break;
        }
        poll.poll(&mut events, Some(POLL_WAIT))
            .map_err(|e| io_error("epoll_wait", e))?;
        for event in events.iter() {
            let k = event.token().0;
            let at = &mut sent_at[k];
            let open = conns[k].read_all(&report, event.is_read_closed(), |s| {
                let now = Instant::now();
                if measuring {
                    let ns = (now - *at).as_nanos() as u64;
                    let _ = hist.record(ns.clamp(1, 100_000_000_000));
                    round_trips += 1;
                }
                *at = now;
                send(s, &order)
            })?;
            if !open {
                return Err(Error::failed_check(format!(
                    "floor: the acceptor closed connection {k}"
                )));
            }
        }
    }
    let seconds = window_start.elapsed().as_secs_f64();
    let cpu = cpu.as_ref().map_or_else(CpuUsed::default, CpuWindow::end);
    if round_trips == 0 || hist.is_empty() {
        return Err(Error::failed_check(
            "floor: no round trip in the measured window",
        ));
    }
    let line = super::sessions::sessions_line(
        "floor",
        n,
        &hist,
        round_trips,
        seconds,
        &cpu,
        serde_json::json!({
            "logon_all_ms": connected.as_secs_f64() * 1e3,
            "settings": format!(
                "TCP floor: {n} connections on 127.0.0.1, TCP_NODELAY, the {} B NewOrderSingle and {} B ExecutionReport of §4 bounced with no FIX work (no parse, session, store or logon), each side one thread blocking in epoll_wait when idle; one order in flight per connection; {} s warm-up, then {seconds:.1} s measured",
                order.len(), report.len(), WARMUP.as_secs()
            ),
        }),
    );
    println!("{line}");
    Ok(())
}

/// A non-blocking listener on `addr` with [`LISTEN_BACKLOG`].
fn listen(addr: std::net::SocketAddr) -> io::Result<TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    Ok(TcpListener::from_std(socket.into()))
}

/// A blocking connect, retried while the acceptor's backlog is full, up to
/// [`CONNECT_PATIENCE`] from `started`.
fn connect(addr: std::net::SocketAddr, started: Instant) -> Result<std::net::TcpStream> {
    loop {
        match std::net::TcpStream::connect(addr) {
            Ok(s) => return Ok(s),
            Err(e) if started.elapsed() < CONNECT_PATIENCE => {
                eprintln!("floor load: connect: {e}; retrying");
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(io_error("connect", e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scale::args::Role;
    use std::sync::mpsc;

    /// The floor's acceptor on a free port, on a thread of its own: where its end (its
    /// result) arrives, and a connection to it (retried until it listens).
    fn acceptor() -> (mpsc::Receiver<Result<()>>, std::net::TcpStream) {
        let port = crate::loopback::free_port().unwrap();
        let args = PeerArgs::parse(
            &["--role", "floor-acceptor", "--port", &port.to_string()].map(String::from),
            &[Role::FloorAcceptor],
        )
        .unwrap();
        let (done, ended) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = done.send(accept(&args));
        });
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match std::net::TcpStream::connect(("127.0.0.1", port)) {
                Ok(s) => return (ended, s),
                Err(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Err(e) => panic!("{e}"),
            }
        }
    }

    /// How the acceptor ended, waiting at most 10 s.
    fn end_of(ended: &mpsc::Receiver<Result<()>>) -> Result<()> {
        ended
            .recv_timeout(Duration::from_secs(10))
            .expect("the acceptor did not end")
    }

    /// Reads one reply and checks it is the canned report.
    fn read_report(s: &mut std::net::TcpStream, report: &[u8]) {
        let mut got = vec![0; report.len()];
        s.read_exact(&mut got).unwrap();
        assert_eq!(got, report);
    }

    #[test]
    fn the_acceptor_answers_the_canned_order_and_ends_when_its_connections_close() {
        let (ended, mut s) = acceptor();
        let (order, report) = canned_messages();
        for _ in 0..3 {
            s.write_all(&order).unwrap();
            read_report(&mut s, &report);
        }
        drop(s);
        assert!(end_of(&ended).is_ok());
    }

    #[test]
    fn the_acceptor_fails_on_bytes_that_are_not_the_canned_order() {
        let (ended, mut s) = acceptor();
        let (mut wrong, _) = canned_messages();
        wrong[20] ^= 1;
        s.write_all(&wrong).unwrap();
        match end_of(&ended) {
            Err(e @ Error::Check { .. }) => {
                assert!(e.to_string().contains("not the canned"), "{e}")
            }
            other => panic!("the acceptor did not fail: {other:?}"),
        }
    }

    #[test]
    fn a_close_that_comes_with_the_last_order_is_seen() {
        let (ended, mut s) = acceptor();
        let (order, report) = canned_messages();
        // The order and the FIN in one go: one readiness event for both.
        s.write_all(&order).unwrap();
        s.shutdown(std::net::Shutdown::Write).unwrap();
        read_report(&mut s, &report);
        let end = end_of(&ended);
        assert!(end.is_ok(), "the acceptor did not end cleanly: {end:?}");
    }
}

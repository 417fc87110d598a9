//! BENCHMARKS.md §6: the send handle, [`peregrine_engine::Sender`].
//!
//! ```text
//! app thread ─ Sender::send ─▶ queue ─▶ engine thread (FIX initiator session) ─ TCP 127.0.0.1 ─▶ counterparty
//! ```
//!
//! Everything on Peregrine's side goes through the public API a library user has: an
//! initiator engine with one FIX.4.4 session over a memory store sized up front, built
//! and run on a thread of its own by [`EngineBuilder`] (`store_with`, `start`), and
//! messages submitted from other threads
//! through [`RunningEngine::sender`]. The counterparty is **a plain socket reader**, not a
//! second engine: a raw FIX acceptor on a [`TcpListener`] that answers the Logon (and
//! TestRequest and Logout), frames what it reads and timestamps each message as it comes
//! off the socket. So the figures are the send path's alone (no second session decoding
//! in front of the clock), and the latency cases run two threads (the application's and
//! the engine's), one per core on the 2-core machine of BENCHMARKS.md.
//!
//! Three measurements, for each idle strategy of the engine (busy spin, and block:
//! waiting in `epoll`, woken by the sender):
//!
//! 1. **App thread → wire latency**: the application thread takes the time, calls
//!    [`Sender::send`], then reads the counterparty's socket itself (busy-polling a
//!    non-blocking read) until the message is there, and takes the time again: one
//!    monotonic clock, one thread, no clock skew. Paced: one message in flight, the next
//!    no sooner than [`SendBenchConfig::pace`] after the previous one was sent, so the
//!    figure is latency, not queueing (and under `block` the engine is back in `epoll`
//!    before each send). Also reported: how long the `send` call itself keeps the
//!    application thread (`send_call_*`). Each message carries its index (ClOrdID(11)),
//!    checked on arrival.
//! 2. **Throughput**: one, then four producer threads send
//!    [`SendBenchConfig::messages`] messages in all as fast as they can; a full queue
//!    ([`SubmitError::QueueFull`]) is retried with a backoff (spin 1, 2, 4 … 32 times,
//!    then `yield` between tries) and every retry is counted. The counterparty reads on
//!    its own thread (blocking reads) and checks that each producer's messages arrive
//!    complete and in order; sends/s = messages ÷ (first send → last message read).
//! 3. **Allocations per message**, counted by the binary's counting allocator
//!    ([`crate::alloc`]) across every thread of the process (producers, the engine, the
//!    counterparty) over the measured messages, after a warm-up. In the throughput
//!    warm-up the counterparty does not read until the queue is full (the engine holds
//!    a session's messages once its socket is full:
//!    [`peregrine_engine::sender::SEND_HOLD_BYTES`]), so every slot of the queue has
//!    been made and used before anything is counted. The memory store is sized for the
//!    run up front ([`MemoryStore::with_capacity`]): its arena otherwise doubles a
//!    handful of times per million messages, which is the store's growth, not the send
//!    path's. Any allocation in steady state fails the benchmark ([`Error::Allocates`]).
//!
//! A fresh engine and counterparty per case and run; cases interleaved run by run.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hdrhistogram::Histogram;
use peregrine_codec::value::{parse_u64, TimePrecision, UtcTimestamp};
use peregrine_codec::{EncodeBuffer, Frame, Framer, MessageEncoder, MessageView};
use peregrine_engine::{
    BoxedStore, EngineBuilder, Idle, RunningEngine, Sender, SessionRef, SubmitError,
};
use peregrine_session::{AppReject, Application, Outbox, SessionId};
use peregrine_store::MemoryStore;
use serde::Serialize;

use crate::progress::Progress;
use crate::report::{self, new_histogram, us, Aggregate, Record, Stats};
use crate::{Error, Options, Result};

/// The initiator session every case sends through.
pub const SESSION: &str = "FIX.4.4:CLIENT->VENUE";

/// The most producer threads a throughput case takes.
pub const MAX_PRODUCERS: usize = 64;

/// How long a case waits for the logon, a message, or the engine before it fails.
const PATIENCE: Duration = Duration::from_secs(30);

/// Room in the memory store per message (a message here is ~170 bytes).
const STORE_BYTES_PER_MESSAGE: usize = 256;

/// Settings of one invocation.
///
/// ```
/// use peregrine_bench::send::SendBenchConfig;
/// let cfg = SendBenchConfig::default();
/// assert_eq!((cfg.runs, cfg.count, cfg.warmup, cfg.messages), (5, 100_000, 10_000, 1_000_000));
/// assert_eq!(cfg.producers, [1, 4]);
/// ```
#[derive(Clone, Debug)]
pub struct SendBenchConfig {
    /// Interleaved runs.
    pub runs: usize,
    /// Latency: measured messages per idle strategy per run.
    pub count: u64,
    /// Warm-up messages per case per run (discarded).
    pub warmup: u64,
    /// Throughput: messages per case per run (all producers together).
    pub messages: u64,
    /// Throughput: the producer thread counts (each a case).
    pub producers: Vec<usize>,
    /// Latency: the least time from one send to the next.
    pub pace: Duration,
    /// The engine's idle strategies (each a case).
    pub idles: Vec<Idle>,
    /// Where the JSON goes.
    pub out: PathBuf,
}

impl Default for SendBenchConfig {
    fn default() -> Self {
        SendBenchConfig {
            runs: 5,
            count: 100_000,
            warmup: 10_000,
            messages: 1_000_000,
            producers: vec![1, 4],
            pace: Duration::from_micros(50),
            idles: vec![Idle::busy_spin(), Idle::block()],
            out: crate::repo_root().join("target/bench-results/send.json"),
        }
    }
}

impl SendBenchConfig {
    /// Applies command-line options: `--smoke` (1 run; 500 warm-up + 2,000 paced
    /// messages, 20,000 throughput messages: about a second, for `make test`), then the
    /// others ([`Options::apply_to`], `--count` as `iters`; this benchmark has no peers).
    ///
    /// ```
    /// let mut cfg = peregrine_bench::send::SendBenchConfig::default();
    /// cfg.apply(&peregrine_bench::Options { smoke: true, out: Some("s.json"), ..Default::default() });
    /// assert_eq!((cfg.runs, cfg.count, cfg.warmup, cfg.messages), (1, 2_000, 500, 20_000));
    /// assert_eq!(cfg.out, std::path::Path::new("s.json"));
    /// ```
    pub fn apply(&mut self, options: &Options<'_>) {
        if options.smoke {
            self.runs = 1;
            self.count = 2_000;
            self.warmup = 500;
            self.messages = 20_000;
            self.pace = Duration::from_micros(20);
        }
        let mut no_peers = Vec::new();
        options.apply_to(
            &mut self.runs,
            &mut self.count,
            &mut self.warmup,
            &mut no_peers,
            &mut self.out,
        );
    }
}

/// One case of one run, as measured.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SendCase {
    /// `wire_latency_spin`, `throughput_4p_block`, …
    pub case: String,
    /// The run (from 1).
    pub run: usize,
    /// The engine's idle strategy.
    pub idle: String,
    /// Producer threads (1 for latency).
    pub producers: usize,
    /// Measured messages handed to the [`Sender`].
    pub sent: u64,
    /// Measured messages the counterparty read, complete and in order.
    pub delivered: u64,
    /// Warm-up messages before them (sent and delivered).
    pub warmup: u64,
    /// Seconds from the first measured send to the last measured message read.
    pub seconds: f64,
    /// Measured messages per second (`delivered / seconds`).
    pub per_second: f64,
    /// [`SubmitError::QueueFull`] answers retried during the measured messages.
    pub queue_full: u64,
    /// The queue was full at least once during the warm-up (every slot of the queue
    /// made; always so for throughput, which waits for it; latency uses one or two).
    pub pool_warm: bool,
    /// Allocations in the process during the measured messages (`None`: the binary does
    /// not count them).
    pub allocations: Option<u64>,
}

impl SendCase {
    /// Allocations per measured message (`None`: not counted).
    ///
    /// ```
    /// # use peregrine_bench::send::SendCase;
    /// let c = SendCase { case: "x".into(), run: 1, idle: "block".into(), producers: 1, sent: 4,
    ///     delivered: 4, warmup: 0, seconds: 1.0, per_second: 4.0, queue_full: 0, pool_warm: true,
    ///     allocations: Some(2) };
    /// assert_eq!(c.allocs_per_message(), Some(0.5));
    /// ```
    pub fn allocs_per_message(&self) -> Option<f64> {
        self.allocations.map(|a| a as f64 / self.sent.max(1) as f64)
    }
}

/// What [`run`] found.
#[derive(Clone, Debug)]
pub struct SendResults {
    /// Every case of every run.
    pub cases: Vec<SendCase>,
    /// The records (µs), as in the JSON's `runs`.
    pub records: Vec<Record>,
    /// Medians across runs, as in the JSON's `results`.
    pub aggregates: Vec<Aggregate>,
}

/// The name of an idle strategy in case names: `spin`, `block`, or its own.
///
/// ```
/// use peregrine_bench::send::idle_name;
/// use peregrine_engine::Idle;
/// assert_eq!(idle_name(&Idle::busy_spin()), "spin");
/// assert_eq!(idle_name(&Idle::block()), "block");
/// ```
pub fn idle_name(idle: &Idle) -> String {
    match idle {
        Idle::BusySpin(_) => "spin".into(),
        Idle::Block(_) => "block".into(),
        other => other.to_string().replace([':', '-'], "_"),
    }
}

/// The application behind the initiator session: the counterparty sends it nothing
/// but session messages.
#[derive(Debug, Default)]
pub struct Quiet;

impl Application for Quiet {
    fn from_app(
        &mut self,
        _msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        Ok(())
    }
}

fn engine_error(
    what: impl Into<String>,
) -> impl FnOnce(Box<dyn std::error::Error + Send + Sync>) -> Error {
    let what = what.into();
    move |source| Error::Engine {
        what,
        source: Some(source),
    }
}

fn io_error(what: impl Into<String>) -> impl FnOnce(io::Error) -> Error {
    let what = what.into();
    move |e| Error::Engine {
        what,
        source: Some(e.into()),
    }
}

/// The initiator's settings: one FIX.4.4 session to `port` on 127.0.0.1, no data
/// dictionary, no logs.
///
/// ```
/// let text = peregrine_bench::send::initiator_settings(9876);
/// assert!(text.contains("SocketConnectPort=9876"));
/// ```
pub fn initiator_settings(port: u16) -> String {
    format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\n\
         SocketConnectPort={port}\nSenderCompID=CLIENT\nTargetCompID=VENUE\n\
         UseDataDictionary=N\nHeartBtInt=30\nReconnectInterval=1\n\
         [SESSION]\nBeginString=FIX.4.4\n"
    )
}

/// Starts the initiator engine on its own thread under `idle`, with a memory store
/// that has room for `messages` messages.
///
/// # Errors
///
/// [`Error::Engine`] when the settings, the reactor or the engine thread fail.
pub fn start_initiator(port: u16, idle: Idle, messages: u64) -> Result<RunningEngine<Quiet>> {
    let messages = messages as usize + 1_000;
    EngineBuilder::parse(&initiator_settings(port), Path::new("bench-send.cfg"))
        .map_err(|e| engine_error("the initiator's settings")(e.into()))?
        .idle(idle)
        // Sized up front: storing the measured messages allocates nothing.
        .store_with(move |_, now| {
            let store =
                MemoryStore::with_capacity(now, messages, messages * STORE_BYTES_PER_MESSAGE);
            Ok(Box::new(store) as BoxedStore)
        })
        .start(|_| Quiet)
        .map_err(|e| engine_error("cannot start the engine")(e.into()))
}

/// Writes the benchmark's NewOrderSingle body: ClOrdID(11) = `index`, 5001 = `producer`
/// (a user-defined tag), and fixed order fields.
///
/// ```
/// let mut buf = peregrine_codec::EncodeBuffer::new();
/// let mut m = buf.start(b"", b"D");
/// peregrine_bench::send::order(&mut m, 2, 17);
/// assert!(m.fields().starts_with(b"11=17\x015001=2\x0155=PEREGRINE\x01"));
/// ```
pub fn order(m: &mut MessageEncoder<'_>, producer: usize, index: u64) {
    m.uint(11, index)
        .uint(5001, producer as u64)
        .str(55, b"PEREGRINE")
        .char(54, b'1')
        .uint(38, 100)
        .char(40, b'2')
        .str(44, b"150.25")
        .char(59, b'0')
        .str(60, b"20260101-00:00:00.000");
}

/// The value of `tag` (its digits, e.g. `b"35"`) in a whole message, if present.
///
/// ```
/// let m = b"8=FIX.4.4\x019=12\x0135=D\x0111=7\x0110=000\x01";
/// assert_eq!(peregrine_bench::send::field(m, b"11"), Some(&b"7"[..]));
/// assert_eq!(peregrine_bench::send::field(m, b"1"), None);
/// ```
pub fn field<'a>(msg: &'a [u8], tag: &[u8]) -> Option<&'a [u8]> {
    let mut rest = msg;
    loop {
        let end = rest.iter().position(|&b| b == 1)?;
        let f = &rest[..end];
        if f.len() > tag.len() && f.starts_with(tag) && f[tag.len()] == b'=' {
            return Some(&f[tag.len() + 1..]);
        }
        rest = &rest[end + 1..];
    }
}

/// The producer and index of one of the benchmark's orders.
fn order_id(msg: &[u8]) -> Option<(usize, u64)> {
    let index = parse_u64(field(msg, b"11")?).ok()?;
    let producer = parse_u64(field(msg, b"5001")?).ok()? as usize;
    Some((producer, index))
}

/// The counterparty: a raw FIX.4.4 acceptor on a socket. It answers the Logon,
/// TestRequests and the Logout, and hands every other message to its caller as it
/// reads it. It allocates nothing after it is made.
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
    /// # Errors
    ///
    /// [`Error::Engine`] when nothing connects or logs on in time, or a socket fails.
    pub fn accept(listener: &TcpListener, patience: Duration) -> Result<Counterparty> {
        let deadline = Instant::now() + patience;
        listener
            .set_nonblocking(true)
            .map_err(io_error("counterparty listener"))?;
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
                Err(e) => return Err(io_error("counterparty accept")(e)),
            }
        };
        stream
            .set_nonblocking(false)
            .and_then(|()| stream.set_nodelay(true))
            .and_then(|()| stream.set_read_timeout(Some(Duration::from_millis(50))))
            .map_err(io_error("counterparty socket"))?;
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
        .map_err(io_error("counterparty Logon"))?;
        Ok(cp)
    }

    /// Blocking reads (with a short timeout) or busy-polled non-blocking ones.
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
            Err(e) => return Err(io_error("counterparty read")(e)),
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
                    .map_err(io_error("counterparty Heartbeat"))?;
                }
                b"5" => {
                    if !self.logged_out {
                        self.logged_out = true;
                        self.reply(b"5", |_| {})
                            .map_err(io_error("counterparty Logout"))?;
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
        let mut written = 0;
        while written < bytes.len() {
            match self.stream.write(&bytes[written..]) {
                Ok(n) => written += n,
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

    /// Reads (answering the Logout) until the engine closes the connection, at most
    /// `patience`: for a graceful stop of the engine.
    fn drain_until_closed(mut self, patience: Duration) {
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

/// Stops the engine gracefully while the counterparty answers its Logout.
fn stop(engine: RunningEngine<Quiet>, cp: Counterparty) -> Result<()> {
    let drain = std::thread::Builder::new()
        .name("counterparty".into())
        .spawn(move || cp.drain_until_closed(PATIENCE))
        .map_err(io_error("cannot start the counterparty thread"))?;
    let stopped = engine.stop().map_err(io_error("the engine failed"));
    let _ = drain.join();
    stopped.map(|_| ())
}

/// A listener for the counterparty, the engine connected to it and logged on.
fn connect(
    idle: Idle,
    messages: u64,
) -> Result<(RunningEngine<Quiet>, Counterparty, Sender, SessionRef)> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(io_error("counterparty bind"))?;
    let port = listener
        .local_addr()
        .map_err(io_error("counterparty address"))?
        .port();
    let engine = start_initiator(port, idle, messages)?;
    let cp = Counterparty::accept(&listener, PATIENCE)?;
    if !engine.wait_logged_on(PATIENCE) {
        return Err(Error::Engine {
            what: "the initiator did not log on".into(),
            source: None,
        });
    }
    let sender = engine.sender();
    let session = engine.session_ref(SESSION).ok_or_else(|| Error::Engine {
        what: format!("no session {SESSION}"),
        source: None,
    })?;
    Ok((engine, cp, sender, session))
}

/// Sends one order, retrying a full queue with a backoff; the retries.
fn send_order(
    sender: &Sender,
    session: SessionRef,
    producer: usize,
    index: u64,
) -> std::result::Result<u64, SubmitError> {
    let mut retries = 0;
    loop {
        match sender.send(session, b"D", |m| order(m, producer, index)) {
            Ok(()) => return Ok(retries),
            Err(SubmitError::QueueFull) => {
                retries += 1;
                if retries <= 6 {
                    for _ in 0..1u32 << (retries - 1) {
                        std::hint::spin_loop();
                    }
                } else {
                    std::thread::yield_now();
                }
            }
            Err(e) => return Err(e),
        }
    }
}

fn submit_error(e: SubmitError) -> Error {
    engine_error("Sender::send")(e.into())
}

/// The process's allocations so far, if the binary counts them. (`is_counting`
/// allocates to find out: asked once, outside any measured window.)
fn allocations() -> Option<u64> {
    static COUNTING: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    COUNTING
        .get_or_init(crate::alloc::is_counting)
        .then(crate::alloc::allocations)
}

/// What a latency case measured: the case, the wire latency and the `send` call (ns).
type Latency = (SendCase, Histogram<u64>, Histogram<u64>);

/// Measures app thread → wire latency under `idle` (see the module documentation).
///
/// # Errors
///
/// [`Error::Engine`] when the engine or the counterparty fails or a message does not
/// arrive in time; [`Error::Check`] when a message other than the one sent arrives.
pub fn latency_case(cfg: &SendBenchConfig, idle: Idle, run: usize) -> Result<Latency> {
    let (engine, mut cp, sender, session) = connect(idle, cfg.warmup + cfg.count)?;
    cp.set_nonblocking(true)
        .map_err(io_error("counterparty socket"))?;
    let mut wire = new_histogram();
    let mut call = new_histogram();
    let (mut queue_full, mut a0, mut t_start) = (0, None, Instant::now());
    let mut last_send = Instant::now() - cfg.pace;
    let total = cfg.warmup + cfg.count;
    let mut wrong: Option<(u64, Option<(usize, u64)>)> = None;
    for i in 0..total {
        if i == cfg.warmup {
            a0 = allocations();
            t_start = Instant::now();
        }
        while last_send.elapsed() < cfg.pace {
            std::hint::spin_loop();
        }
        let t0 = Instant::now();
        let retries = send_order(&sender, session, 0, i).map_err(submit_error)?;
        let t1 = Instant::now();
        last_send = t0;
        let mut arrived = false;
        while !arrived {
            let polled = cp.poll(&mut |m| {
                let id = order_id(m);
                if id == Some((0, i)) {
                    arrived = true;
                } else if wrong.is_none() {
                    wrong = Some((i, id));
                }
            })?;
            if let Some((i, id)) = wrong {
                return Err(Error::failed_check(format!(
                    "message {i} sent, {id:?} (producer, index) arrived"
                )));
            }
            if polled == Polled::Closed || (!arrived && t0.elapsed() > PATIENCE) {
                return Err(Error::Engine {
                    what: format!("message {i} did not arrive ({polled:?})"),
                    source: None,
                });
            }
        }
        let t2 = Instant::now();
        if i >= cfg.warmup {
            queue_full += retries;
            // Within the histogram's bounds (1 ns to 100 s): recording cannot fail.
            let _ = wire.record(((t2 - t0).as_nanos() as u64).max(1));
            let _ = call.record(((t1 - t0).as_nanos() as u64).max(1));
        }
    }
    let seconds = t_start.elapsed().as_secs_f64();
    let allocations = a0.zip(allocations()).map(|(a, b)| b - a);
    stop(engine, cp)?;
    let case = SendCase {
        case: format!("wire_latency_{}", idle_name(&idle)),
        run,
        idle: idle.to_string(),
        producers: 1,
        sent: cfg.count,
        delivered: wire.len(),
        warmup: cfg.warmup,
        seconds,
        per_second: wire.len() as f64 / seconds.max(1e-9),
        queue_full,
        pool_warm: true,
        allocations,
    };
    Ok((case, wire, call))
}

/// What the producers and the counterparty share in a throughput case.
struct Shared {
    /// 0 wait, 1 warm-up, 2 warm-up over, 3 measured.
    phase: AtomicUsize,
    /// Producers done with the current phase.
    done: AtomicUsize,
    /// Warm-up messages sent, all producers.
    warm_sent: AtomicU64,
    /// A full queue seen during the warm-up.
    warm_full: AtomicBool,
    /// Messages read by the counterparty, complete and in order.
    delivered: AtomicU64,
    /// Nanoseconds from `base` to the counterparty's last read with a message in it.
    last_arrival: AtomicU64,
    /// Messages out of order or unknown.
    wrong: AtomicU64,
    /// The counterparty does not read (the warm-up, until the queue is full).
    paused: AtomicBool,
    /// The case is over: the counterparty drains until the engine closes.
    stopping: AtomicBool,
    base: Instant,
}

fn producer(
    shared: &Shared,
    sender: &Sender,
    session: SessionRef,
    p: usize,
    per_producer: u64,
) -> std::result::Result<u64, SubmitError> {
    while shared.phase.load(Ordering::Acquire) == 0 {
        std::thread::yield_now();
    }
    let mut index = 0;
    while shared.phase.load(Ordering::Acquire) == 1 {
        if send_order(sender, session, p, index)? > 0 {
            shared.warm_full.store(true, Ordering::Relaxed);
        }
        index += 1;
    }
    shared.warm_sent.fetch_add(index, Ordering::AcqRel);
    shared.done.fetch_add(1, Ordering::AcqRel);
    while shared.phase.load(Ordering::Acquire) != 3 {
        std::thread::yield_now();
    }
    let mut queue_full = 0;
    for _ in 0..per_producer {
        queue_full += send_order(sender, session, p, index)?;
        index += 1;
    }
    Ok(queue_full)
}

fn counterparty_reader(shared: &Shared, mut cp: Counterparty) -> Result<()> {
    let mut next = [0u64; MAX_PRODUCERS];
    // Idle reads (of 50 ms) after the case is over before giving up on the engine's close.
    let mut idle_reads_left = PATIENCE.as_millis() / 50;
    loop {
        if shared.paused.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(1));
            continue;
        }
        let mut got = 0;
        let polled = cp.poll(&mut |m| match order_id(m) {
            Some((p, i)) if p < MAX_PRODUCERS && next[p] == i => {
                next[p] += 1;
                got += 1;
            }
            _ => {
                shared.wrong.fetch_add(1, Ordering::Relaxed);
            }
        });
        if got > 0 {
            shared
                .last_arrival
                .store(shared.base.elapsed().as_nanos() as u64, Ordering::Release);
            shared.delivered.fetch_add(got, Ordering::AcqRel);
        }
        match polled? {
            Polled::Closed => return Ok(()),
            Polled::Nothing if shared.stopping.load(Ordering::Acquire) => {
                // Waits for the engine's Logout and close.
                idle_reads_left = idle_reads_left.saturating_sub(1);
                if idle_reads_left == 0 {
                    return Ok(());
                }
            }
            _ => {}
        }
    }
}

/// Waits until `f` holds (sleeping 1 ms between looks), at most `PATIENCE`.
fn wait_for(what: &str, mut f: impl FnMut() -> bool) -> Result<()> {
    let deadline = Instant::now() + PATIENCE;
    while !f() {
        if Instant::now() > deadline {
            return Err(Error::Engine {
                what: format!("timed out waiting for {what}"),
                source: None,
            });
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}

/// Measures sends/s from `producers` threads under `idle` (see the module
/// documentation).
///
/// # Errors
///
/// [`Error::Engine`] when the engine or the counterparty fails or the messages do not
/// all arrive in time; [`Error::Check`] when a message is lost, duplicated or reordered.
pub fn throughput_case(
    cfg: &SendBenchConfig,
    idle: Idle,
    producers: usize,
    run: usize,
) -> Result<SendCase> {
    let producers = producers.clamp(1, MAX_PRODUCERS);
    let per_producer = cfg.messages.div_ceil(producers as u64);
    let messages = per_producer * producers as u64;
    // Room in the store for the warm-up too (its producers go on while the main
    // thread looks every millisecond).
    let (engine, cp, sender, session) = connect(idle, messages + 2 * cfg.warmup + 200_000)?;
    let shared = Arc::new(Shared {
        phase: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        warm_sent: AtomicU64::new(0),
        warm_full: AtomicBool::new(false),
        delivered: AtomicU64::new(0),
        last_arrival: AtomicU64::new(0),
        wrong: AtomicU64::new(0),
        paused: AtomicBool::new(true),
        stopping: AtomicBool::new(false),
        base: Instant::now(),
    });
    let reader = {
        let shared = shared.clone();
        std::thread::Builder::new()
            .name("counterparty".into())
            .spawn(move || counterparty_reader(&shared, cp))
            .map_err(io_error("cannot start the counterparty thread"))?
    };
    let mut threads = Vec::new();
    for p in 0..producers {
        let shared = shared.clone();
        let sender = sender.clone();
        threads.push(
            std::thread::Builder::new()
                .name(format!("producer-{p}"))
                .spawn(move || producer(&shared, &sender, session, p, per_producer))
                .map_err(io_error("cannot start a producer thread"))?,
        );
    }
    let result: Result<(u64, Duration, Duration, Option<u64>)> = (|| {
        // The warm-up: the counterparty does not read until the queue is full (the
        // engine holds the session's messages once its socket is full), so every
        // slot of the queue is made and used; then it reads, and the producers go on
        // until `warmup` messages have arrived.
        shared.phase.store(1, Ordering::Release);
        wait_for("a full queue in the warm-up", || {
            shared.warm_full.load(Ordering::Relaxed)
        })?;
        shared.paused.store(false, Ordering::Release);
        wait_for("the warm-up", || {
            shared.delivered.load(Ordering::Acquire) >= cfg.warmup
        })?;
        shared.phase.store(2, Ordering::Release);
        wait_for("the producers' warm-up", || {
            shared.done.load(Ordering::Acquire) == producers
        })?;
        let warm = shared.warm_sent.load(Ordering::Acquire);
        wait_for("the warm-up's messages", || {
            shared.delivered.load(Ordering::Acquire) == warm
        })?;
        let a0 = allocations();
        let start = shared.base.elapsed();
        shared.phase.store(3, Ordering::Release);
        wait_for("the measured messages", || {
            shared.delivered.load(Ordering::Acquire) >= warm + messages
                || shared.wrong.load(Ordering::Relaxed) > 0
        })?;
        let allocations = a0.zip(allocations()).map(|(a, b)| b - a);
        let end = Duration::from_nanos(shared.last_arrival.load(Ordering::Acquire));
        Ok((warm, start, end, allocations))
    })();
    shared.stopping.store(true, Ordering::Release);
    shared.paused.store(false, Ordering::Release);
    if result.is_err() {
        // Let blocked producers finish: the engine goes, sends fail.
        shared.phase.store(3, Ordering::Release);
    }
    let stopped = engine
        .stop()
        .map(drop)
        .map_err(io_error("the engine failed"));
    let mut queue_full = 0;
    let mut failed = None;
    for t in threads {
        match t.join() {
            Ok(Ok(n)) => queue_full += n,
            Ok(Err(e)) => failed = Some(e),
            Err(_) => failed = Some(SubmitError::EngineStopped),
        }
    }
    let read = reader.join();
    let (warm, start, end, allocations) = match (result, read) {
        (Ok(r), _) => r,
        // What the counterparty saw says more than a timeout.
        (Err(_), Ok(Err(e))) => return Err(e),
        (Err(e), _) => return Err(e),
    };
    stopped?;
    if let Some(e) = failed {
        return Err(submit_error(e));
    }
    let wrong = shared.wrong.load(Ordering::Acquire);
    let delivered = shared.delivered.load(Ordering::Acquire) - warm;
    if wrong > 0 || delivered != messages {
        return Err(Error::failed_check(format!(
            "{messages} messages sent, {delivered} delivered in order, {wrong} out of order or unknown"
        )));
    }
    let seconds = end.saturating_sub(start).as_secs_f64().max(1e-9);
    Ok(SendCase {
        case: format!("throughput_{producers}p_{}", idle_name(&idle)),
        run,
        idle: idle.to_string(),
        producers,
        sent: messages,
        delivered,
        warmup: warm,
        seconds,
        per_second: delivered as f64 / seconds,
        queue_full,
        pool_warm: shared.warm_full.load(Ordering::Relaxed),
        allocations,
    })
}

fn latency_record(case: &str, h: &Histogram<u64>, c: &SendCase, settings: String) -> Record {
    Record {
        engine: "peregrine".into(),
        case: case.into(),
        unit: "us".into(),
        stats: Stats {
            min: h.min() as f64 / 1000.0,
            p50: us(h, 0.50),
            mean: h.mean() / 1000.0,
            p90: us(h, 0.90),
            p99: us(h, 0.99),
            p999: us(h, 0.999),
            max: h.max() as f64 / 1000.0,
            throughput_per_s: c.per_second,
        },
        allocs_per_op: c.allocs_per_message(),
        settings,
    }
}

fn throughput_record(c: &SendCase, settings: String) -> Record {
    let per = c.seconds * 1e6 / c.delivered.max(1) as f64;
    Record {
        engine: "peregrine".into(),
        case: c.case.clone(),
        unit: "us".into(),
        stats: Stats {
            mean: per,
            throughput_per_s: c.per_second,
            ..Stats::default()
        },
        allocs_per_op: c.allocs_per_message(),
        settings,
    }
}

fn fmt(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn allocs_text(a: Option<f64>) -> String {
    a.map_or("not counted".into(), |a| format!("{a}"))
}

/// The results as two Markdown tables: latency (µs; medians across runs, the per-run
/// p50s' min–max beside) and throughput (sends/s; median, min–max across runs).
///
/// ```
/// use peregrine_bench::send::{tables, SendCase};
/// let case = SendCase { case: "throughput_1p_spin".into(), run: 1, idle: "busy-spin".into(),
///     producers: 1, sent: 10, delivered: 10, warmup: 0, seconds: 0.5, per_second: 20.0,
///     queue_full: 3, pool_warm: true, allocations: Some(0) };
/// let text = tables(&[], &[case]);
/// assert!(text.contains("| throughput_1p_spin | busy-spin | 1 | 20 (20–20) |"));
/// ```
pub fn tables(aggs: &[Aggregate], cases: &[SendCase]) -> String {
    let mut s = String::new();
    let latency: Vec<&Aggregate> = aggs
        .iter()
        .filter(|a| a.case.contains("latency") || a.case.starts_with("send_call"))
        .collect();
    if !latency.is_empty() {
        s.push_str("| case | min | p50 (min–max of runs) | mean | p90 | p99 | p99.9 | max | allocs/msg |\n");
        s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for a in latency {
            let st = &a.stats;
            s.push_str(&format!(
                "| {} | {} | {} ({}–{}) | {} | {} | {} | {} | {} | {} |\n",
                a.case,
                fmt(st.min),
                fmt(st.p50),
                fmt(a.p50_range[0]),
                fmt(a.p50_range[1]),
                fmt(st.mean),
                fmt(st.p90),
                fmt(st.p99),
                fmt(st.p999),
                fmt(st.max),
                allocs_text(a.allocs_per_op),
            ));
        }
        s.push('\n');
    }
    let mut names: Vec<&str> = Vec::new();
    for c in cases.iter().filter(|c| c.case.starts_with("throughput")) {
        if !names.contains(&c.case.as_str()) {
            names.push(&c.case);
        }
    }
    if !names.is_empty() {
        s.push_str("| case | idle | producers | sends/s, median (min–max of runs) | µs/msg | QueueFull retries/msg | queue full in warm-up | allocs/msg |\n");
        s.push_str("|---|---|---:|---:|---:|---:|---|---:|\n");
        for name in names {
            let runs: Vec<&SendCase> = cases.iter().filter(|c| c.case == name).collect();
            let med = |f: fn(&SendCase) -> f64| {
                let mut v: Vec<f64> = runs.iter().map(|c| f(c)).collect();
                v.sort_by(f64::total_cmp);
                let n = v.len();
                if n % 2 == 1 {
                    v[n / 2]
                } else {
                    (v[n / 2 - 1] + v[n / 2]) / 2.0
                }
            };
            let rate = med(|c| c.per_second);
            let lo = runs
                .iter()
                .map(|c| c.per_second)
                .fold(f64::INFINITY, f64::min);
            let hi = runs.iter().map(|c| c.per_second).fold(0.0, f64::max);
            let allocs = runs
                .iter()
                .filter_map(|c| c.allocs_per_message())
                .fold(None, |m: Option<f64>, a| Some(m.map_or(a, |m| m.max(a))));
            s.push_str(&format!(
                "| {name} | {} | {} | {rate:.0} ({lo:.0}–{hi:.0}) | {} | {} | {} | {} |\n",
                runs[0].idle,
                runs[0].producers,
                fmt(1e6 / rate.max(1e-9)),
                fmt(med(|c| c.queue_full as f64 / c.sent.max(1) as f64)),
                if runs.iter().all(|c| c.pool_warm) {
                    "yes"
                } else {
                    "not in every run"
                },
                allocs_text(allocs),
            ));
        }
    }
    s
}

/// Runs the whole experiment: prints the tables, writes the JSON, and fails when any
/// case allocated in steady state.
///
/// ```no_run
/// use peregrine_bench::send::{run, SendBenchConfig};
/// let mut cfg = SendBenchConfig::default();
/// cfg.apply(&peregrine_bench::Options { smoke: true, ..Default::default() });
/// let results = run(&cfg)?;
/// assert!(results.cases.iter().all(|c| c.delivered == c.sent));
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Engine`] or [`Error::Check`] from a case; [`Error::Output`] when the JSON
/// cannot be written; [`Error::Allocates`] (after the results are printed and written)
/// when a case allocated during its measured messages.
pub fn run(cfg: &SendBenchConfig) -> Result<SendResults> {
    let machine = report::machine();
    eprintln!("bench send: {machine}");
    let per_run = cfg.idles.len() * (1 + cfg.producers.len());
    let mut bar = Progress::new("bench send", cfg.runs * per_run);
    let mut cases = Vec::new();
    let mut records = Vec::new();
    let mut wire_all: Vec<(String, Histogram<u64>)> = Vec::new();
    let settings = |idle: &Idle, what: &str| {
        format!(
            "Peregrine initiator engine (FIX.4.4, memory store sized for the run, no logs) on its own thread, idle {idle}; Sender queue {}; counterparty: a raw FIX acceptor on a plain socket, 127.0.0.1 TCP_NODELAY; {what}",
            peregrine_engine::sender::DEFAULT_SEND_QUEUE
        )
    };
    for run in 1..=cfg.runs {
        for idle in &cfg.idles {
            let name = idle_name(idle);
            bar.show(&format!("run {run}: latency, {name}"));
            let (case, wire, call) = latency_case(cfg, *idle, run)?;
            records.push(latency_record(
                &case.case,
                &wire,
                &case,
                settings(
                    idle,
                    &format!(
                        "app thread takes the time, sends, busy-polls the counterparty's socket until the message is read; one in flight, a send every ≥ {} µs",
                        cfg.pace.as_micros()
                    ),
                ),
            ));
            records.push(latency_record(
                &format!("send_call_{name}"),
                &call,
                &case,
                settings(idle, "time inside Sender::send on the app thread"),
            ));
            match wire_all.iter_mut().find(|(n, _)| *n == case.case) {
                Some((_, h)) => {
                    let _ = h.add(&wire);
                }
                None => wire_all.push((case.case.clone(), wire)),
            }
            cases.push(case);
            bar.step(&format!("run {run}: latency, {name} done"));
            for &p in &cfg.producers {
                bar.show(&format!("run {run}: throughput, {p} producer(s), {name}"));
                let case = throughput_case(cfg, *idle, p, run)?;
                records.push(throughput_record(
                    &case,
                    settings(
                        idle,
                        &format!("{p} producer thread(s) as fast as they can, a full queue retried with backoff; the counterparty reads on its own thread"),
                    ),
                ));
                cases.push(case);
                bar.step(&format!(
                    "run {run}: throughput, {p} producer(s), {name} done"
                ));
            }
        }
    }
    bar.finish();
    let aggs = report::aggregate(&records);
    let config = serde_json::json!({
        "runs": cfg.runs,
        "count": cfg.count,
        "warmup": cfg.warmup,
        "messages": cfg.messages,
        "producers": cfg.producers,
        "pace_us": cfg.pace.as_micros() as u64,
        "idles": cfg.idles.iter().map(|i| i.to_string()).collect::<Vec<_>>(),
        "send_queue": peregrine_engine::sender::DEFAULT_SEND_QUEUE,
        "machine": machine,
        "load_average_end": report::load_average(),
        "counterparty": "a plain socket reader: a raw FIX.4.4 acceptor (answers Logon, TestRequest, Logout) that frames and timestamps what it reads; not a second engine",
        "method": "latency: the app thread takes the time, calls Sender::send, busy-polls the counterparty's non-blocking socket until the message is framed, takes the time (one thread, one monotonic clock); throughput: messages ÷ (first measured send → the counterparty's read that completed the last); allocations: the counting allocator, every thread of the process, over the measured messages",
        "cases": cases,
    });
    report::write_json(&cfg.out, "send", config, &aggs, &records)
        .map_err(|e| Error::output(&cfg.out, e))?;
    println!("{}", tables(&aggs, &cases));
    for (name, h) in &wire_all {
        println!(
            "{name}, all runs together: p50 {:.2} µs, p99 {:.2} µs, p99.9 {:.2} µs, max {:.0} µs ({} messages)",
            us(h, 0.5),
            us(h, 0.99),
            us(h, 0.999),
            h.max() as f64 / 1000.0,
            h.len()
        );
    }
    println!(
        "counterparty: a plain socket reader (raw FIX acceptor) on 127.0.0.1; engine: Peregrine initiator on its own thread; {} core(s)",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!("results: {}", cfg.out.display());
    if let Some(c) = cases.iter().find(|c| c.allocations.is_some_and(|a| a > 0)) {
        println!(
            "FAILED: allocations in steady state ({}, run {})",
            c.case, c.run
        );
        return Err(Error::Allocates {
            case: c.case.clone(),
            run: c.run,
            allocations: c.allocations.unwrap_or(0),
            messages: c.sent,
        });
    }
    match cases.first().and_then(|c| c.allocations) {
        Some(_) => println!("allocations per message in steady state: 0 in every case and run"),
        None => println!(
            "allocations: not counted (the binary does not install the counting allocator)"
        ),
    }
    Ok(SendResults {
        cases,
        records,
        aggregates: aggs,
    })
}

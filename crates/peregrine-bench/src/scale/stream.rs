//! Streaming, Peregrine's side (`peregrine-bench stream-peer --role receiver|sender`):
//! one FIX 4.4 session, the sender (initiator, CLIENT) sending NewOrderSingles as fast as
//! its session layer takes them, the receiver (acceptor, VENUE) validating every message
//! with the FIX44 dictionary and checking every MsgSeqNum.
//!
//! Both are written on the public application API, as a user would: settings made with
//! [`Settings::builder`], [`EngineBuilder`], an [`Application`], typed sends and
//! [`fix44::crack`].
//!
//! **The sender** sends through the engine's [`Sender`], whose bounded queue is the
//! back-pressure a user sees ([`SubmitError::QueueFull`]; a session whose socket is full
//! takes nothing more from the queue once [`SEND_HOLD_BYTES`] wait in its buffer), so
//! memory stays bounded however fast the application is. Two ways (`--send`):
//!
//! * `inline` (reported): one thread. The application builds the engine
//!   ([`EngineBuilder::build`]) and runs its own duty cycle: it fills the queue until
//!   [`SubmitError::QueueFull`], then turns the engine ([`Engine::turn`], which takes up
//!   to 1,024 queued messages, stores them, and writes them with one commit and one
//!   `write`). One thread per process leaves one core to the receiver.
//! * `thread`: the README's way: the engine on a thread of its own
//!   ([`EngineBuilder::start`]) and the application's thread sending through the
//!   [`Sender`], yielding on a full queue. Three busy threads on two cores.
//!
//! It sends for `seconds` + 1 s (+ 0.2 s, so that the receiver's window, which starts at
//! its first message, is covered), waits until the queue and the socket buffer are
//! empty, and logs out.
//!
//! **The receiver** takes every message through the session (full validation against
//! the dictionary: a message that fails is rejected and never reaches the application,
//! which then sees a gap), and its application checks that each MsgSeqNum, admin and
//! application messages alike, is the previous + 1 ([`SeqCheck`]) and counts the orders
//! into 100 ms intervals from the first ([`RateWindow`]). Once the sender has logged
//! out it prints one JSON line: `stream-memory` or `stream-file`, msg/s over the window
//! `[1 s, 1 s + seconds)`, the per-interval rates as the percentiles, `messages`,
//! `seq_errors`; and fails (exit 1) on a sequence error.
//!
//! The file store (`FileStoreSync=N`) writes once per commit: the sender's engine
//! commits once per batch it took from the queue (up to 1,024 messages: one `write` of
//! their records), the receiver once per batch of input it read (up to 16 reads of
//! 64 KiB), each without fsync.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_codec::value::parse_u64;
use peregrine_codec::MessageView;
use peregrine_engine::config::Settings;
use peregrine_engine::fix::StoreKind;
use peregrine_engine::sender::SEND_HOLD_BYTES;
use peregrine_engine::{EngineBuilder, Sender, SessionRef, SubmitError};
use peregrine_messages::fix44::{self, MessageHandler, NewOrderSingle};
use peregrine_session::{AppReject, Application, LogoutReason, Outbox, RejectLogon, SessionId};

use super::args::{PeerArgs, Role, SendMode, StoreChoice};
use super::window::{RateWindow, SeqCheck};
use crate::loopback;
use crate::order::{self, write_order, ClOrdId};
use crate::{Error, Result};

// For the documentation's links only.
#[cfg(doc)]
use peregrine_engine::Engine;

/// The receiver's session (the sender's is `FIX.4.4:CLIENT->VENUE`).
pub const RECEIVER_SESSION: &str = "FIX.4.4:VENUE->CLIENT";
/// The sender's session.
pub const SENDER_SESSION: &str = "FIX.4.4:CLIENT->VENUE";
/// Sent after the window, so that the receiver's window (from its first message) is
/// covered.
const TAIL: Duration = Duration::from_millis(200);
/// How long the sender waits for its logon, and the receiver for the stream to end
/// beyond its window.
const PATIENCE: Duration = Duration::from_secs(60);

/// The settings of one side: the common ones of the interface (FIX.4.4, HeartBtInt 30,
/// ResetOnLogon, TCP_NODELAY, the FIX44 dictionary), the store, the idle strategy.
///
/// ```
/// use peregrine_bench::scale::args::{PeerArgs, Role};
/// use peregrine_bench::scale::stream::settings;
/// let args: Vec<String> = ["--role", "receiver", "--store", "file", "--port", "9000"].map(String::from).to_vec();
/// let s = settings(&PeerArgs::parse(&args, &[Role::Receiver, Role::Sender])?)?;
/// assert_eq!(s.sessions[0].session_name(), "FIX.4.4:VENUE->CLIENT");
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Engine`] when the settings do not build (a bad path, say).
pub fn settings(a: &PeerArgs) -> Result<Settings> {
    let receiver = a.role == Role::Receiver;
    let (sender, target) = if receiver {
        ("VENUE", "CLIENT")
    } else {
        ("CLIENT", "VENUE")
    };
    let dict = a.dict.clone();
    let dir = a.dir.clone();
    let store = a.store;
    let port = a.port;
    let persist = a.persist;
    let logs = a.logs;
    Settings::builder()
        .default(|d| {
            let d = loopback::defaults(d, receiver)
                .use_data_dictionary(true)
                .data_dictionary(&dict)
                .set("PersistMessages", persist);
            let d = if logs {
                d.file_log_path(dir.join("log"))
            } else {
                d
            };
            match store {
                StoreChoice::Memory => d,
                StoreChoice::File | StoreChoice::Journal => d
                    .engine_journal(store == StoreChoice::Journal)
                    .file_store_path(dir.join("store"))
                    .set("FileStoreSync", "N"),
            }
        })
        .session("FIX.4.4", sender, target, |s| {
            loopback::endpoint(s, receiver, port)
        })
        .build()
        .map_err(Error::engine("stream settings"))
}

fn store_kind(s: StoreChoice) -> StoreKind {
    match s {
        StoreChoice::Memory => StoreKind::Memory,
        StoreChoice::File | StoreChoice::Journal => StoreKind::File,
    }
}

/// A message's MsgSeqNum(34), if it reads.
#[inline]
fn seq_num(msg: &MessageView<'_>) -> Option<u64> {
    msg.get(34).and_then(|v| parse_u64(v).ok())
}

/// The receiver's application: sequence check, count, rate window.
#[derive(Debug)]
pub(crate) struct Receiver {
    /// Every MsgSeqNum the application is handed.
    pub(crate) seq: SeqCheck,
    /// The orders' arrival times.
    pub(crate) window: RateWindow,
    /// Orders received.
    pub(crate) orders: u64,
    /// Application messages that were not orders.
    pub(crate) others: u64,
    /// The process's allocations over the window: the counter when its first
    /// order came, the orders since, and the counter at the window's end (or the
    /// last order, for a stream that ended inside it).
    allocs: Option<WindowAllocations>,
    /// The session logged out (the stream is over).
    done: Arc<AtomicBool>,
}

/// The allocation counter across the window (see [`Receiver::allocs_per_message`]).
#[derive(Clone, Copy, Debug)]
struct WindowAllocations {
    start: u64,
    /// The counter at the latest reading, and the orders counted by then.
    end: u64,
    orders_at_end: u64,
    orders: u64,
    closed: bool,
}

impl Receiver {
    /// A receiver measuring `seconds` after the warm-up; `done` is raised at the logout.
    pub(crate) fn new(seconds: u64, done: Arc<AtomicBool>) -> Receiver {
        Receiver {
            seq: SeqCheck::default(),
            window: RateWindow::new(seconds),
            orders: 0,
            others: 0,
            allocs: None,
            done,
        }
    }

    /// Allocations in this process per order received in the window (the engine
    /// thread reading, validating and handing each order to the application),
    /// when the benchmark binary counts them.
    pub(crate) fn allocs_per_message(&self) -> Option<f64> {
        let a = self.allocs?;
        crate::alloc::is_counting()
            .then(|| (a.end - a.start) as f64 / a.orders_at_end.max(1) as f64)
    }
}

impl Receiver {
    /// A message sent again (PossDupFlag=Y) is a duplicate: the stream is not
    /// exactly +1.
    #[inline]
    fn check_poss_dup(&mut self, msg: &MessageView<'_>, seq: Option<u64>) {
        if msg.get(43) == Some(b"Y") {
            self.seq
                .fail(format!("MsgSeqNum {seq:?} sent again (PossDupFlag=Y)"));
        }
    }
}

impl MessageHandler for Receiver {
    type Error = AppReject;

    #[inline]
    fn on_new_order_single(
        &mut self,
        _order: NewOrderSingle<'_>,
        _: &mut (),
    ) -> std::result::Result<(), AppReject> {
        self.orders += 1;
        self.window.count();
        // Two counter reads per window, not per message: nothing is added to the loop.
        match &mut self.allocs {
            None if self.window.in_window() => {
                let now = crate::alloc::allocations();
                self.allocs = Some(WindowAllocations {
                    start: now,
                    end: now,
                    orders_at_end: 0,
                    orders: 0,
                    closed: false,
                });
            }
            Some(a) if !a.closed => {
                a.orders += 1;
                // Read at the window's end, and now and then for a stream that
                // ends inside it.
                if !self.window.in_window() || a.orders % 65_536 == 0 {
                    a.end = crate::alloc::allocations();
                    a.orders_at_end = a.orders;
                    a.closed = !self.window.in_window();
                }
            }
            _ => {}
        }
        Ok(())
    }
}

impl Application for Receiver {
    fn from_admin(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> std::result::Result<(), RejectLogon> {
        let seq = seq_num(msg);
        self.seq.check(seq);
        if msg.msg_type() == b"4" {
            // The stream had a gap the session filled (or was reset): not exactly +1.
            let new = msg.get(36).and_then(|v| parse_u64(v).ok());
            self.seq.fail(format!(
                "SequenceReset at MsgSeqNum {seq:?} to NewSeqNo {new:?}"
            ));
        }
        self.check_poss_dup(msg, seq);
        Ok(())
    }

    #[inline]
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        let seq = seq_num(msg);
        self.seq.check(seq);
        self.check_poss_dup(msg, seq);
        if fix44::crack(self, msg, &mut ()).is_err() {
            self.others += 1;
        }
        Ok(())
    }

    fn on_logout(&mut self, _id: &SessionId, _reason: &LogoutReason<'_>, _out: &mut Outbox<'_>) {
        self.done.store(true, Ordering::Release);
    }
}

/// The sender's application: nothing to do on receipt (the orders go through the
/// [`Sender`]); it raises `logged_out` when the session ends.
#[derive(Debug)]
pub(crate) struct Streamer {
    logged_out: Arc<AtomicBool>,
}

impl Application for Streamer {
    fn from_app(
        &mut self,
        _: &MessageView<'_>,
        _: &SessionId,
        _: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        Ok(())
    }
    fn on_logout(&mut self, _id: &SessionId, _reason: &LogoutReason<'_>, _out: &mut Outbox<'_>) {
        self.logged_out.store(true, Ordering::Release);
    }
}

/// Runs one side of the streaming experiment (see the [module documentation](self)).
///
/// ```no_run
/// // The receiver (what `peregrine-bench stream-peer …` runs): listens, says `ready`.
/// let args = "--role receiver --store file --port 9000 --dir /tmp/stream-r --seconds 5".split(' ').map(String::from).collect::<Vec<_>>();
/// peregrine_bench::scale::stream::main(&args)?;
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// ```
/// use peregrine_bench::{scale::stream::main, Error};
/// assert!(matches!(main(&["--role", "receiver", "--store", "disk"].map(String::from)), Err(Error::Usage(_))));
/// ```
///
/// # Errors
///
/// [`Error::Usage`] for bad arguments, [`Error::Engine`] when the engine does not start,
/// log on or stop, [`Error::Check`] for a sequence error or an empty window (the
/// receiver).
pub fn main(args: &[String]) -> Result<()> {
    let a = PeerArgs::parse(args, &[Role::Receiver, Role::Sender])?;
    std::fs::create_dir_all(&a.dir).map_err(Error::engine("cannot make --dir"))?;
    match a.role {
        Role::Receiver => receive(&a),
        _ => match a.send {
            SendMode::Inline => send_inline(&a),
            SendMode::Thread => send_thread(&a),
        },
    }
}

fn receive(a: &PeerArgs) -> Result<()> {
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    let seconds = a.seconds;
    let engine = EngineBuilder::new(settings(a)?)
        .store(store_kind(a.store))
        .start(move |_| Receiver::new(seconds, flag.clone()))
        .map_err(Error::engine("the receiver did not start"))?;
    println!("ready");
    let _ = std::io::stdout().flush();
    let started = Instant::now();
    let limit = PATIENCE + Duration::from_secs(a.seconds + 1);
    while !done.load(Ordering::Acquire) && started.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(20));
    }
    let engine = engine
        .stop()
        .map_err(Error::engine("the receiver did not stop"))?;
    let app = engine
        .application(RECEIVER_SESSION)
        .ok_or_else(|| Error::failed_check("the receiver's session is gone"))?;
    if !done.load(Ordering::Acquire) {
        return Err(Error::failed_check(format!(
            "the sender did not log out within {} s ({} orders received)",
            limit.as_secs(),
            app.orders
        )));
    }
    if let Some(e) = app.seq.first_error() {
        return Err(Error::failed_check(format!(
            "sequence check failed: {e} ({} errors in {} orders)",
            app.seq.errors(),
            app.orders
        )));
    }
    let w = app.window.result().ok_or_else(|| {
        Error::failed_check(format!(
            "no order reached the window (1 s after the first; {} orders in all)",
            app.orders
        ))
    })?;
    if w.short {
        eprintln!(
            "receiver: the stream ended {:.1} s into the {} s window: rated over what it covered",
            w.seconds, a.seconds
        );
    }
    let mut intervals = w.intervals.clone();
    let mean = intervals.iter().sum::<f64>() / intervals.len() as f64;
    let stats = crate::report::Stats::from_samples(mean, &mut intervals);
    let settings = format!(
        "receiver: acceptor, {} store{}, validation UseDataDictionary=Y (FIX44.xml, Peregrine's default Validate* settings, every message before from_app), MsgSeqNum checked on every message; idle {}; one engine thread (EngineBuilder::start){}",
        a.store.name(),
        if a.store == StoreChoice::File { " FileStoreSync=N (one write per commit: per batch of input read)" } else { "" },
        loopback::idle(),
        if a.logs { "; message and event logs on at both ends (FileLogPath=DIR/log: a line per message in and out, written by the engine's logging thread)" } else { "" },
    );
    let line = serde_json::json!({
        "engine": "peregrine",
        "case": super::driver::stream_case(a.store.name(), a.logs),
        "unit": "msg/s",
        "min": stats.min, "p50": stats.p50, "mean": stats.mean, "p90": stats.p90,
        "p99": stats.p99, "p999": stats.p999, "max": stats.max,
        "throughput_per_s": w.per_second,
        "messages": w.messages,
        "window_s": w.seconds,
        "orders_total": app.orders,
        "seq_errors": app.seq.errors(),
        "allocs_per_op": app.allocs_per_message(),
        "settings": settings,
    });
    println!("{line}");
    Ok(())
}

/// What the sender did, to stderr.
fn sender_summary(mode: &str, sent: u64, full: u64, elapsed: Duration) {
    eprintln!(
        "sender ({mode}): {sent} orders in {:.2} s ({:.0}/s handed to the engine), {full} QueueFull answers; bound: the Sender queue (4,096) and {SEND_HOLD_BYTES} unsent bytes per session",
        elapsed.as_secs_f64(),
        sent as f64 / elapsed.as_secs_f64()
    );
}

/// Queues one order; `Ok(false)` when the queue is full.
#[inline]
fn offer(sender: &Sender, session: SessionRef, ids: &mut ClOrdId) -> Result<bool> {
    match sender.send_typed::<NewOrderSingle>(session, |o| {
        write_order(o, ids.advance(), order::now(), false)
    }) {
        Ok(()) => Ok(true),
        Err(SubmitError::QueueFull) => Ok(false),
        Err(e) => Err(Error::Engine {
            what: "the Sender refused an order".into(),
            source: Some(Box::new(e)),
        }),
    }
}

fn send_inline(a: &PeerArgs) -> Result<()> {
    let logged_out = Arc::new(AtomicBool::new(false));
    let flag = logged_out.clone();
    let mut engine = EngineBuilder::new(settings(a)?)
        .store(store_kind(a.store))
        .build(move |_| Streamer {
            logged_out: flag.clone(),
        })
        .map_err(Error::engine("the sender did not build"))?;
    let session = engine
        .session_ref(SENDER_SESSION)
        .ok_or_else(|| Error::failed_check("no sender session"))?;
    let sender = engine.sender();
    let started = Instant::now();
    while !engine.sessions().first().is_some_and(|s| s.logged_on) {
        if started.elapsed() > PATIENCE {
            return Err(Error::failed_check("the sender did not log on"));
        }
        engine
            .turn()
            .map_err(Error::engine("the sender's engine failed"))?;
    }
    let begin = Instant::now();
    let end = begin + Duration::from_secs(a.seconds + 1) + TAIL;
    let mut ids = ClOrdId::default();
    let mut full = 0u64;
    let mut gap_made = false;
    while Instant::now() < end {
        while offer(&sender, session, &mut ids)? {}
        if let Some(at) = a.gap_at.filter(|&at| !gap_made && ids.count() >= at) {
            // Tests only: skip a MsgSeqNum, as a lost message would; the receiver's
            // check must fail the run.
            gap_made = true;
            engine.with_session(SENDER_SESSION, |fix, _| {
                let next = fix.session().next_sender_seq();
                fix.session_mut().set_next_sender_seq(next + 1)
            });
            eprintln!("sender: MsgSeqNum skipped after about {at} orders (--gap-at)");
        }
        full += 1;
        engine
            .turn()
            .map_err(Error::engine("the sender's engine failed"))?;
        if logged_out.load(Ordering::Acquire) {
            return Err(Error::failed_check(
                "the sender's session ended while streaming",
            ));
        }
    }
    let sent = ids.count();
    sender_summary("inline", sent, full, begin.elapsed());
    // Everything queued goes out before the Logout.
    let mut quiet = 0;
    while quiet < 2 {
        engine
            .turn()
            .map_err(Error::engine("the sender's engine failed"))?;
        let empty = sender.queued() == 0
            && engine
                .sessions()
                .first()
                .is_some_and(|s| s.pending_outbound == 0);
        quiet = if empty { quiet + 1 } else { 0 };
        if started.elapsed() > PATIENCE + Duration::from_secs(a.seconds + 2) {
            return Err(Error::failed_check("the sender's queue did not drain"));
        }
    }
    engine
        .shutdown()
        .map_err(Error::engine("the sender did not shut down"))?;
    Ok(())
}

fn send_thread(a: &PeerArgs) -> Result<()> {
    let logged_out = Arc::new(AtomicBool::new(false));
    let flag = logged_out.clone();
    let engine = EngineBuilder::new(settings(a)?)
        .store(store_kind(a.store))
        .start(move |_| Streamer {
            logged_out: flag.clone(),
        })
        .map_err(Error::engine("the sender did not start"))?;
    if !engine.wait_logged_on(PATIENCE) {
        return Err(Error::failed_check("the sender did not log on"));
    }
    let session = engine
        .session_ref(SENDER_SESSION)
        .ok_or_else(|| Error::failed_check("no sender session"))?;
    let sender = engine.sender();
    let begin = Instant::now();
    let end = begin + Duration::from_secs(a.seconds + 1) + TAIL;
    let mut ids = ClOrdId::default();
    let mut full = 0u64;
    let mut n = 0u32;
    loop {
        if offer(&sender, session, &mut ids)? {
            n = n.wrapping_add(1);
            if n % 256 != 0 {
                continue;
            }
        } else {
            full += 1;
            std::thread::yield_now();
        }
        if Instant::now() >= end || logged_out.load(Ordering::Acquire) {
            break;
        }
    }
    if logged_out.load(Ordering::Acquire) {
        return Err(Error::failed_check(
            "the sender's session ended while streaming",
        ));
    }
    sender_summary("thread", ids.count(), full, begin.elapsed());
    let drain = Instant::now();
    while sender.queued() > 0 && drain.elapsed() < PATIENCE {
        std::thread::sleep(Duration::from_millis(1));
    }
    engine
        .stop()
        .map_err(Error::engine("the sender did not stop"))?;
    Ok(())
}

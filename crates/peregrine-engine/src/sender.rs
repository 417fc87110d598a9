//! Sending from any thread: a [`Sender`] submits a message for a session to
//! the engine's thread through a bounded queue, and wakes the engine at once
//! if it is blocked waiting for readiness.
//!
//! # How
//!
//! A message travels in a slot (a `QueuedSend`): the producer takes a free slot, encodes the
//! body into the slot's own buffer (no lock held), and pushes the slot on the
//! submission queue; the engine pops it, writes the message through the
//! session (header, sequence number, store, SendingTime), and puts the slot
//! back on the free list. Slots and their buffers are reused: once every slot
//! has been used once, sending allocates nothing. A slot is made with room for
//! a body of [`SLOT_BODY_CAPACITY`] bytes; a longer body grows its buffer (at
//! least doubling it), and the slot keeps that room. Both queues are `crossbeam`'s bounded lock-free
//! [`ArrayQueue`]s: a producer never blocks and never waits for a lock the
//! engine holds.
//!
//! # Bounds
//!
//! At most `capacity` messages wait ([`EngineOptions::send_queue`](crate::EngineOptions::send_queue),
//! default [`DEFAULT_SEND_QUEUE`]); past it [`Sender::send`] returns
//! [`SubmitError::QueueFull`] (never a silent drop). A slot's buffer keeps the
//! capacity of the largest body it carried.
//!
//! The bound holds end to end: a session whose peer does not take its bytes
//! (its socket's buffer is full) takes no more messages from the queue once
//! [`SEND_HOLD_BYTES`] wait in its outbound buffer. Its messages wait, in
//! order, in their slots until the socket takes bytes again, so a slow peer
//! fills the queue and producers see [`SubmitError::QueueFull`], instead of
//! the session's buffer taking everything up to `MaxOutboundQueueBytes` and the
//! session being disconnected as a slow consumer. Other sessions' messages
//! keep flowing while one waits (their slots permitting).
//!
//! # Waking the engine
//!
//! When the engine is about to block in `epoll` it raises a flag and looks at
//! the queue once more; a producer that pushed a message and sees the flag
//! clears it and wakes the engine (one `eventfd` write). Under a spinning
//! idle strategy the flag is never raised and sending costs no system call.
//! `IdleStrategy=backoff` is the exception: it sleeps between polls without
//! waiting in `epoll`, so a message waits up to its longest park (`max_park`,
//! 1 ms by default) — Agrona's back-off does the same; use `block` for a sleeping
//! engine that a send wakes at once.
//!
//! # What happens after
//!
//! The queue hands the message over; whether the session could send it is
//! decided on the engine's thread (a session refuses while logged out if so
//! configured, a store can fail). Such a failure is logged in the session's
//! event log, counted in [`SessionInfo::send_failures`](crate::SessionInfo::send_failures)
//! and raised as a warning; the application hears it as
//! [`AppEvent::SendRefused`](peregrine_session::AppEvent::SendRefused). Every error a send
//! can give (this module's [`SubmitError`], the session's `SendError`, `SendRefusal`,
//! `DoNotSend`), from which call, and what to do: `docs/sending.md`.

use std::fmt;
use std::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use crossbeam_queue::ArrayQueue;
use peregrine_agent::{Backoff, IdleStrategy};
use peregrine_codec::{EncodeBuffer, MessageEncoder};
use peregrine_session::{Peers, To};

/// Messages that may wait for the engine by default.
pub const DEFAULT_SEND_QUEUE: usize = 4096;

/// The body a slot has room for when it is made (bytes after MsgType): bodies
/// up to this size never make a slot's buffer grow. (Sized to the first body a
/// slot carried, a message one byte longer — a ClOrdID counter gaining a
/// digit — reallocated, once per slot: up to [`DEFAULT_SEND_QUEUE`] allocations
/// long after warm-up.)
pub const SLOT_BODY_CAPACITY: usize = 256;

/// Unsent bytes in a session's outbound buffer past which messages from
/// [`Sender`]s wait in their slots for the socket to take bytes again (half the
/// outbound buffer's initial capacity, so that the buffer never grows for
/// them): a peer that reads slowly fills the queue, and producers see
/// [`SubmitError::QueueFull`].
pub const SEND_HOLD_BYTES: usize = 32 * 1024;

/// The longest MsgType a [`Sender`] takes (the longest in the FIX
/// specifications has three characters).
pub const MAX_MSG_TYPE: usize = 8;

/// A session as a [`Sender`] (or a callback's
/// [`Outbox::send_to`](peregrine_session::Outbox::send_to)) names it: cheap to
/// copy, checked by the engine (a reference to a session that was removed is
/// refused, not sent to another session that took its place).
pub use peregrine_session::SessionRef;

/// Why a [`Sender`] could not hand a message to the engine.
///
/// Every error a send can give, from which call, and what to do: `docs/sending.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubmitError {
    /// The queue holds its capacity of messages: the engine is behind (or
    /// stopped turning). Nothing was queued; try again later.
    QueueFull,
    /// The engine has shut down (it was stopped) or is gone: the message
    /// would never be sent.
    EngineStopped,
    /// The MsgType is empty or longer than [`MAX_MSG_TYPE`].
    BadMsgType,
    /// The pre-encoded body does not end in SOH.
    BadBody,
    /// No session of the engine has the [`SessionId`](peregrine_session::SessionId)
    /// it was addressed by (never added, or removed). A [`SessionRef`] to a removed
    /// session is refused on the engine's thread instead (counted in the
    /// session's `send_failures`).
    NoSuchSession,
}

impl fmt::Display for SubmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SubmitError::QueueFull => "the send queue is full (the engine is behind)",
            SubmitError::EngineStopped => "the engine has stopped",
            SubmitError::BadMsgType => "MsgType must have 1 to 8 characters",
            SubmitError::BadBody => "a pre-encoded body must end in SOH",
            SubmitError::NoSuchSession => "no session of the engine has that SessionId",
        })
    }
}

impl std::error::Error for SubmitError {}

/// One message on its way from a [`Sender`] to the engine's thread (a slot of the
/// queue, reused): which session, its MsgType and its body.
pub(crate) struct QueuedSend {
    pub(crate) session: SessionRef,
    msg_type: [u8; MAX_MSG_TYPE],
    msg_type_len: u8,
    /// The body's fields after MsgType.
    pub(crate) body: Vec<u8>,
    /// Where a producer's closure writes the body.
    encoder: EncodeBuffer,
}

impl QueuedSend {
    /// Writes the body into the slot's buffer through its encoder.
    fn encode(&mut self, msg_type: &[u8], body: impl FnOnce(&mut MessageEncoder<'_>)) {
        let mut enc = self.encoder.start(b"", msg_type);
        body(&mut enc);
        self.body.clear();
        self.body.extend_from_slice(enc.fields());
    }

    fn new() -> Box<QueuedSend> {
        Box::new(QueuedSend {
            session: SessionRef::new(0, 0),
            msg_type: [0; MAX_MSG_TYPE],
            msg_type_len: 0,
            body: Vec::with_capacity(SLOT_BODY_CAPACITY),
            encoder: EncodeBuffer::new(),
        })
    }

    pub(crate) fn msg_type(&self) -> &[u8] {
        &self.msg_type[..usize::from(self.msg_type_len)]
    }
}

/// What the engine and its senders share.
pub(crate) struct SendQueue {
    submitted: ArrayQueue<Box<QueuedSend>>,
    free: ArrayQueue<Box<QueuedSend>>,
    /// Slots made so far (at most the capacity).
    made: AtomicUsize,
    waker: Arc<mio::Waker>,
    /// The engine is blocked (or about to block) waiting for readiness.
    parked: AtomicBool,
    /// The engine shut down, or is gone.
    closed: AtomicBool,
}

impl SendQueue {
    pub(crate) fn new(capacity: usize, waker: Arc<mio::Waker>) -> Arc<SendQueue> {
        let capacity = capacity.max(1);
        Arc::new(SendQueue {
            submitted: ArrayQueue::new(capacity),
            free: ArrayQueue::new(capacity),
            made: AtomicUsize::new(0),
            waker,
            parked: AtomicBool::new(false),
            closed: AtomicBool::new(false),
        })
    }

    /// The engine's side: the next message submitted.
    pub(crate) fn pop(&self) -> Option<Box<QueuedSend>> {
        self.submitted.pop()
    }

    /// The engine's side: a slot whose message was sent (or refused).
    pub(crate) fn recycle(&self, queued: Box<QueuedSend>) {
        // There is room: every slot came from this queue's capacity.
        let _ = self.free.push(queued);
    }

    /// The engine's side, before it blocks: raises the flag, then says
    /// whether messages arrived meanwhile (then it must not block).
    pub(crate) fn park(&self) -> bool {
        self.parked.store(true, Ordering::SeqCst);
        // Pairs with the producer's fence: either it sees the flag, or the
        // engine sees its message.
        fence(Ordering::SeqCst);
        if self.submitted.is_empty() {
            true
        } else {
            self.parked.store(false, Ordering::SeqCst);
            false
        }
    }

    /// The engine's side, after waiting.
    pub(crate) fn unpark(&self) {
        self.parked.store(false, Ordering::Relaxed);
    }

    /// Messages waiting.
    pub(crate) fn len(&self) -> usize {
        self.submitted.len()
    }

    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }

    fn take_free(&self) -> Result<Box<QueuedSend>, SubmitError> {
        if self.closed.load(Ordering::Relaxed) {
            return Err(SubmitError::EngineStopped);
        }
        if let Some(queued) = self.free.pop() {
            return Ok(queued);
        }
        // Warm-up: make a slot while fewer than the capacity exist.
        let made = self.made.fetch_add(1, Ordering::Relaxed);
        if made < self.submitted.capacity() {
            Ok(QueuedSend::new())
        } else {
            self.made.fetch_sub(1, Ordering::Relaxed);
            Err(SubmitError::QueueFull)
        }
    }

    fn submit(&self, queued: Box<QueuedSend>) -> Result<(), SubmitError> {
        if let Err(queued) = self.submitted.push(queued) {
            let _ = self.free.push(queued);
            return Err(SubmitError::QueueFull);
        }
        fence(Ordering::SeqCst);
        if self.parked.load(Ordering::Relaxed) && self.parked.swap(false, Ordering::SeqCst) {
            let _ = self.waker.wake();
        }
        Ok(())
    }
}

/// A cloneable, thread-safe handle that sends messages through the engine's
/// sessions from any thread ([`Engine::sender`](crate::Engine::sender)).
///
/// ```
/// use peregrine_engine::EngineBuilder;
/// use peregrine_session::EchoApp;
///
/// let cfg = "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\n\
///            SocketConnectPort=1\nSenderCompID=TW\nTargetCompID=ISLD\nUseDataDictionary=N\n\
///            [SESSION]\nBeginString=FIX.4.4\n";
/// let engine = EngineBuilder::parse(cfg, "client.cfg")?.build(|_| EchoApp::new(None))?;
///
/// let session = engine.session_ref("FIX.4.4:TW->ISLD").unwrap();
/// let sender = engine.sender();
/// let producer = std::thread::spawn(move || {
///     sender.send(session, b"D", |m| {
///         m.str(11, b"ORDER-1").str(55, b"PEREGRINE").char(54, b'1');
///     })
/// });
/// producer.join().unwrap()?; // queued; the engine sends it on its next turn
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Sender {
    pub(crate) queue: Arc<SendQueue>,
    /// The engine's sessions, to find a session addressed by its `SessionId`
    /// (template-made and added-at-run-time ones included).
    pub(crate) peers: Arc<dyn Peers>,
    /// The engine's id: a wait for room on its own thread would never end.
    pub(crate) engine: u64,
}

impl fmt::Debug for Sender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("waiting", &self.queue.len())
            .finish()
    }
}

impl Sender {
    /// Queues an application message for `session`: `body` writes the fields
    /// after MsgType (the session writes the header and trailer on the
    /// engine's thread).
    ///
    /// # Errors
    ///
    /// [`SubmitError::QueueFull`] when the queue is at its capacity,
    /// [`SubmitError::EngineStopped`] when the engine is gone,
    /// [`SubmitError::BadMsgType`] for an empty or over-long MsgType.
    pub fn send<'t>(
        &self,
        session: impl Into<To<'t>>,
        msg_type: &[u8],
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> Result<(), SubmitError> {
        let mut queued = self.prepare(self.resolve(session.into())?, msg_type)?;
        queued.encode(msg_type, body);
        self.queue.submit(queued)
    }

    /// [`send`](Self::send), waiting up to `timeout` for room when the queue
    /// is full (the engine behind): the retry loop a producer would write
    /// around [`SubmitError::QueueFull`], backing off as Agrona does (spin,
    /// yield, then park up to 100 µs, [`Backoff`]). `body` runs once, when a
    /// slot is free.
    ///
    /// On the engine's own thread (from a callback) it does not wait: only
    /// the engine makes room, so a full queue is [`SubmitError::QueueFull`] at
    /// once (a callback sends through its `Outbox`).
    ///
    /// # Errors
    ///
    /// [`SubmitError::QueueFull`] when no room came within `timeout` (at once
    /// on the engine's thread); the others as [`send`](Self::send), at once.
    ///
    /// ```
    /// use std::time::Duration;
    /// use peregrine_engine::{EngineBuilder, SubmitError};
    /// use peregrine_session::EchoApp;
    ///
    /// let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
    ///            SocketAcceptAddress=127.0.0.1\nUseDataDictionary=N\n\
    ///            [SESSION]\nBeginString=FIX.4.4\nSenderCompID=VENUE\nTargetCompID=CLIENT\n";
    /// let venue = EngineBuilder::parse(cfg, "venue.cfg")?.start(|_| EchoApp::new(None))?;
    /// let session = venue.session_ref("FIX.4.4:VENUE->CLIENT").unwrap();
    /// // Not logged on: the engine takes it (and stores it for after the Logon).
    /// venue.sender().send_timeout(session, b"B", Duration::from_millis(100), |m| {
    ///     m.str(148, b"market opens at 09:30");
    /// })?;
    /// venue.stop()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn send_timeout<'t>(
        &self,
        session: impl Into<To<'t>>,
        msg_type: &[u8],
        timeout: std::time::Duration,
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> Result<(), SubmitError> {
        let session = self.resolve(session.into())?;
        let timeout = if crate::command::turning_engine(self.engine) {
            std::time::Duration::ZERO
        } else {
            timeout
        };
        let deadline = std::time::Instant::now() + timeout;
        let mut backoff = Backoff::with_max_park(std::time::Duration::from_micros(100));
        let mut queued = loop {
            match self.prepare(session, msg_type) {
                Err(SubmitError::QueueFull) if std::time::Instant::now() < deadline => {
                    backoff.idle(0);
                }
                other => break other?,
            }
        };
        queued.encode(msg_type, body);
        // Holding a slot, there is room: the queue holds as many as there are slots.
        self.queue.submit(queued)
    }

    /// Queues a typed application message for `session`: `M` (a generated message of
    /// `peregrine_messages`, e.g. `fix44::NewOrderSingle`) gives the MsgType, `body`
    /// writes the fields after the header through `M`'s setters, into the slot's own
    /// buffer on this thread (no allocation once the slot's buffer has grown to the
    /// largest body); the session writes header and trailer on the engine's thread.
    ///
    /// # Errors
    ///
    /// As [`send`](Self::send).
    ///
    /// ```
    /// use peregrine_engine::EngineBuilder;
    /// use peregrine_messages::codec::value::Decimal;
    /// use peregrine_messages::fix44::{enums::{OrdType, Side}, prelude::*, NewOrderSingle};
    /// use peregrine_session::EchoApp;
    ///
    /// let text = "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\n\
    ///             SocketConnectPort=1\nSenderCompID=TW\nTargetCompID=ISLD\nUseDataDictionary=N\n\
    ///             [SESSION]\nBeginString=FIX.4.4\n";
    /// let engine = EngineBuilder::parse(text, "client.cfg")?
    ///     .build(|cx| EchoApp::new(cx.dictionaries.clone()))?;
    ///
    /// let session = engine.session_ref("FIX.4.4:TW->ISLD").unwrap();
    /// let sender = engine.sender();
    /// std::thread::spawn(move || {
    ///     sender.send_typed::<NewOrderSingle>(session, |order| {
    ///         order
    ///             .cl_ord_id("ORDER-1")
    ///             .symbol("PEREGRINE")
    ///             .side(Side::Buy)
    ///             .order_qty(Decimal::new(100, 0))
    ///             .ord_type(OrdType::Market);
    ///     })
    /// })
    /// .join()
    /// .unwrap()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn send_typed<'t, M: peregrine_messages::Message>(
        &self,
        session: impl Into<To<'t>>,
        body: impl FnOnce(&mut peregrine_messages::Body<'_, '_, M>),
    ) -> Result<(), SubmitError> {
        self.send(session, M::MSG_TYPE, |enc| {
            body(&mut peregrine_messages::Body::new(enc))
        })
    }

    /// [`send_typed`](Self::send_typed), waiting up to `timeout` for room when
    /// the queue is full, as [`send_timeout`](Self::send_timeout) does.
    ///
    /// # Errors
    ///
    /// As [`send_timeout`](Self::send_timeout).
    pub fn send_typed_timeout<'t, M: peregrine_messages::Message>(
        &self,
        session: impl Into<To<'t>>,
        timeout: std::time::Duration,
        body: impl FnOnce(&mut peregrine_messages::Body<'_, '_, M>),
    ) -> Result<(), SubmitError> {
        self.send_timeout(session, M::MSG_TYPE, timeout, |enc| {
            body(&mut peregrine_messages::Body::new(enc))
        })
    }

    /// Queues a message whose body is already encoded (`tag=value<SOH>…`
    /// after MsgType): a gateway forwarding what it received, say.
    ///
    /// # Errors
    ///
    /// As [`send`](Self::send), and [`SubmitError::BadBody`] when `body` does
    /// not end in SOH.
    pub fn send_raw<'t>(
        &self,
        session: impl Into<To<'t>>,
        msg_type: &[u8],
        body: &[u8],
    ) -> Result<(), SubmitError> {
        if !body.is_empty() && !body.ends_with(&[1]) {
            return Err(SubmitError::BadBody);
        }
        let mut queued = self.prepare(self.resolve(session.into())?, msg_type)?;
        queued.body.clear();
        queued.body.extend_from_slice(body);
        self.queue.submit(queued)
    }

    /// Messages queued and not yet taken by the engine.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// The session `to` names: a [`SessionRef`] as it is (the engine checks it
    /// is still there), a `SessionId` looked up among the engine's sessions now.
    fn resolve(&self, to: To<'_>) -> Result<SessionRef, SubmitError> {
        match to {
            To::Ref(r) => Ok(r),
            To::Id(_) => self
                .peers
                .find(&to)
                .map(|p| p.reference)
                .ok_or(SubmitError::NoSuchSession),
        }
    }

    fn prepare(
        &self,
        session: SessionRef,
        msg_type: &[u8],
    ) -> Result<Box<QueuedSend>, SubmitError> {
        if msg_type.is_empty() || msg_type.len() > MAX_MSG_TYPE {
            return Err(SubmitError::BadMsgType);
        }
        let mut queued = self.queue.take_free()?;
        queued.session = session;
        queued.msg_type[..msg_type.len()].copy_from_slice(msg_type);
        queued.msg_type_len = msg_type.len() as u8;
        Ok(queued)
    }
}

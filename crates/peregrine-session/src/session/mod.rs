//! The session state machine, split by job: one file per kind of message or
//! concern, the public [`Session`] here.
//!
//! | file | job |
//! | --- | --- |
//! | `core` | the state (with the data each state needs) and the dispatch of every inbound message |
//! | `verify` | checks before a message is handled: validation, QuickFIX's `verify` |
//! | `logon`, `logout` | the Logon and Logout handshakes |
//! | `heartbeat` | Heartbeat and TestRequest |
//! | `gap`, `gap_queue` | gaps in what we receive: our ResendRequests, the messages held meanwhile |
//! | `resend` | the resends we answer, produced as the transport drains |
//! | `sequence_reset` | SequenceReset, Reset and GapFill |
//! | `reject` | Reject and BusinessMessageReject |
//! | `hooks` | the application's part: events in order, `to_admin`, `to_app` |
//! | `callback_sends` | what a callback sends, kept until it returns, then through `to_app` |
//! | `outgoing` | encoding, the outbound buffer, storing before queueing |
//! | `timers` | the timer table |
//! | `framing` | QuickFIX's framing quirks, garbled input, the first message of a connection |
//! | `events` | the public state, events (the engine's and the application's), disconnect and logout reasons |

mod calendar;
mod callback_sends;
mod core;
mod events;
mod framing;
mod gap;
mod gap_queue;
mod heartbeat;
mod hooks;
mod logon;
mod logout;
mod outgoing;
mod reject;
mod resend;
mod reset_seq_time;
mod sequence_reset;
mod timers;
mod verify;

pub use callback_sends::Forward;
pub use events::{
    AppEvent, DisconnectReason, LogoutReason, RejectInfo, RejectKind, SendRefusal, SessionEvent,
    SessionState,
};
pub use framing::{peek_session_id, PeekError};

use std::collections::VecDeque;

use peregrine_codec::frame::{Frame, Framer, GarbledReason};
use peregrine_codec::{DecodeError, Decoder, MessageEncoder};
use peregrine_messages::{Body, Message};

use crate::lent_decoder::LentDecoder;
use crate::on_demand::OnDemandDecoder;
use peregrine_store::{MessageStore, StoreError};

use crate::app::{AddedFields, Application, SendError};
use crate::config::{Nanos, Role, SessionConfig, SessionId};

use self::callback_sends::CallbackSends;
use self::core::{Core, LogoutSide, State};
use self::framing::{next_frame, without_invalid_tag};
use self::gap_queue::GapQueue;
use self::outgoing::{Outgoing, Writer};
use self::resend::RESEND_CHUNK;
use self::timers::Timer;

/// The FIX session protocol as a sans-IO state machine: bytes and time in; bytes
/// out, application callbacks, events and the next deadline. No sockets, no
/// threads; the time it goes by is the `now` the driver passes in, and the
/// time it writes (SendingTime) is read from the configured
/// [`SessionClock`](crate::SessionClock) as each message is encoded.
///
/// # Calling contract
///
/// A driver (the engine, or a test) owns the transport and the clock, and calls:
///
/// * **Input.** [`on_connected`](Self::on_connected) when a transport connection
///   is up (an initiator's Logon is queued); [`on_bytes`](Self::on_bytes) with
///   whatever was read, in any chunking (every whole message is handled, the
///   application called, a tail kept); [`on_timer`](Self::on_timer) when
///   [`next_deadline`](Self::next_deadline) has passed (early or late is
///   harmless); [`send`](Self::send) for an application message from outside a
///   callback; [`logout`](Self::logout) to end the session gracefully;
///   [`on_disconnected`](Self::on_disconnected) when the connection is gone.
/// * **Commit.** After any number of input calls, [`commit`](Self::commit)
///   once: the store makes durable, as one unit, what the input changed (the
///   incoming sequence numbers and the replies sent while handling them).
///   Nothing leaves before that: a message the store could lose is never sent.
/// * **Output.** [`outbound`](Self::outbound) holds what may be written (up to
///   the last commit); write a prefix and report it with
///   [`consume_outbound`](Self::consume_outbound) (a resend being answered goes
///   on as the buffer drains, so keep writing while it is not empty).
/// * **Settle.** Once what the commit released is written,
///   [`settle`](Self::settle): the store does what the commit left for later
///   because no message waits for it (the file store's witness). Skipping it
///   is safe; the work then falls on the next commit.
/// * **Events.** Drain [`poll_event`](Self::poll_event) after each of these.
///   Only [`SessionEvent::Disconnect`] asks for action: commit, write what is
///   pending, close the connection, call `on_disconnected`.
///
/// Every call that may send or tell the application something takes the
/// [`Application`]: its callbacks run inside the call (see the trait for which,
/// and when), and its [`on_event`](Application::on_event) hears the
/// [`AppEvent`]s in order. An event raised where no application is at hand (a
/// failed [`commit`](Self::commit)) reaches it at the start of the next call that
/// has one.
///
/// `now` never goes backwards inside the session (an earlier `now` counts as the
/// last one). It drives the timers and the checks of what arrives; SendingTime(52)
/// of what the session writes is [`SessionConfig::clock`]'s time when the message
/// is encoded (the system clock by default, so a `now` read once per turn of a
/// busy loop does not make SendingTime stale; [`SessionClock::Driver`](crate::SessionClock::Driver)
/// stamps the last `now` instead, for deterministic tests). A new connection starts with an empty outbound buffer: what was
/// queued for the old one is in the store, and the peer asks for it again.
///
/// ```
/// use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionEvent, SessionId};
/// use peregrine_store::MemoryStore;
///
/// let now = 1_700_000_000_000_000_000i64;
/// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
/// let mut session = Session::new(cfg, MemoryStore::new(now), now);
/// let mut app = EchoApp::new(None);
/// session.on_connected(now, &mut app);
/// # fn fix(s: &str) -> Vec<u8> {
/// #     let mut f = s.split('|').filter(|f| !f.is_empty()).map(|f| f.split_once('=').unwrap());
/// #     let (_, begin) = f.next().unwrap();
/// #     let (_, msg_type) = f.next().unwrap();
/// #     let mut buf = peregrine_codec::EncodeBuffer::new();
/// #     let mut m = buf.start(begin.as_bytes(), msg_type.as_bytes());
/// #     for (t, v) in f { m.str(t.parse().unwrap(), v.as_bytes()); }
/// #     m.finish().to_vec()
/// # }
/// let logon = &fix("8=FIX.4.4|35=A|34=1|49=TW|52=20231114-22:13:20.000|56=ISLD|98=0|108=30");
/// session.on_bytes(logon, now, &mut app);
/// assert!(session.is_logged_on());
/// session.commit()?;
/// assert!(session.outbound().starts_with(b"8=FIX.4.4\x019=61\x0135=A\x0134=1\x0149=ISLD\x01"));
/// assert_eq!(session.poll_event(), Some(SessionEvent::LoggedOn));
/// # Ok::<(), peregrine_store::StoreError>(())
/// ```
pub struct Session<S: MessageStore> {
    /// An incomplete message's bytes, kept for the next read (empty, without
    /// capacity, until a read ends inside a message; released when the
    /// connection goes).
    rx: Vec<u8>,
    framer: Framer,
    /// `max_message_size`, for the decoder the thread lends each read
    /// ([`LentDecoder`]).
    max_message_size: usize,
    core: Core<S>,
}

impl<S: MessageStore> std::fmt::Debug for Session<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.core.config.id)
            .field("state", &self.core.state)
            .field("next_sender", &self.core.outgoing.store.next_sender_seq())
            .field("next_target", &self.core.outgoing.store.next_target_seq())
            .finish()
    }
}

impl<S: MessageStore> Session<S> {
    /// A session over `store` (which holds the sequence numbers and sent messages).
    pub fn new(config: SessionConfig, store: S, now: Nanos) -> Self {
        // Nothing a connection needs is made before one: queues and buffers grow
        // as they are used (BENCHMARKS.md §5, memory per configured session).
        let mut events = VecDeque::new();
        let mut app_events = VecDeque::new();
        let max_message_size = config.max_message_size;
        if let Some(lost) = store
            .recovery()
            .map(|r| r.lost_messages())
            .filter(|&n| n > 0)
        {
            events.push_back(SessionEvent::StoreDataLost { messages: lost });
            app_events.push_back(AppEvent::StoreDataLost { messages: lost });
        }
        let calendar = calendar::Calendar::new(&config, now);
        let callback_sends = CallbackSends::new(config.max_outbound_bytes);
        let session = Session {
            rx: Vec::new(),
            framer: Framer::new(max_message_size),
            max_message_size,
            core: Core {
                outgoing: Outgoing::new(store, Writer::new(&config, now), &config),
                queue: GapQueue::new(config.max_inbound_queue_bytes),
                config,
                events,
                state: State::Disconnected,
                shapes: None,
                peer_appl_ver_id: None,
                resend_decoder: OnDemandDecoder::new(max_message_size),
                app_events,
                admin_fields: AddedFields::default(),
                app_decoder: OnDemandDecoder::new(max_message_size),
                amend_copy: Vec::new(),
                logout: None,
                logout_text: Vec::new(),
                callback_sends,
                calendar,
            },
        };
        session.publish();
        session
    }

    /// The session's counters, for metrics: shared, so that another thread
    /// can read them while the session runs (see [`crate::metrics`]).
    ///
    /// ```
    /// # use peregrine_session::{Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let session = Session::new(cfg, MemoryStore::new(0), 0);
    /// let counters = std::sync::Arc::clone(session.counters());
    /// std::thread::spawn(move || assert_eq!(counters.messages_received(), 0)).join().unwrap();
    /// ```
    pub fn counters(&self) -> &std::sync::Arc<crate::metrics::SessionCounters> {
        &self.core.outgoing.counters
    }

    /// Shows the state and sequence numbers to the counters' readers (after
    /// every call that may change them).
    fn publish(&self) {
        let store = &self.core.outgoing.store;
        self.core.outgoing.counters.publish(
            self.core.state_name(),
            store.next_sender_seq(),
            store.next_target_seq(),
        );
    }

    /// Calls [`Application::on_create`] (separate from `new` so that the application is
    /// not needed to build a session), then tells it what the store found on opening
    /// ([`AppEvent::StoreDataLost`]).
    pub fn create(&mut self, app: &mut dyn Application) {
        app.on_create(&self.core.config.id);
        self.core.finish(app);
        self.publish();
    }

    /// Gives the session the other sessions of its engine (the engine does
    /// it as it adds the session): a callback's [`Outbox`](crate::Outbox) may
    /// then look them up and send on them ([`Outbox::send_to`](crate::Outbox::send_to)).
    /// `None` (a session alone, the default): it knows no others.
    pub fn set_peers(&mut self, peers: Option<std::sync::Arc<dyn crate::Peers>>) {
        self.core.callback_sends.peers = peers;
    }

    /// Whether messages the callbacks sent on other sessions wait for
    /// [`take_forwards`](Self::take_forwards).
    pub fn has_forwards(&self) -> bool {
        self.core.callback_sends.has_forwards()
    }

    /// Hands each message the callbacks sent on other sessions
    /// ([`Outbox::send_to`](crate::Outbox::send_to)) to `f`, in the order sent, and
    /// forgets them. The engine calls it after every call into the session that
    /// may run a callback, before anything else, and hands each to its
    /// destination in the same turn.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use peregrine_codec::MessageView;
    /// use peregrine_session::{
    ///     AppReject, Application, Outbox, PeerStatus, Peers, Role, Session, SessionConfig,
    ///     SessionId, SessionRef, To,
    /// };
    /// use peregrine_store::MemoryStore;
    ///
    /// /// One other session, VENUE, logged on.
    /// #[derive(Debug)]
    /// struct OneVenue;
    /// impl Peers for OneVenue {
    ///     fn find(&self, to: &To<'_>) -> Option<PeerStatus> {
    ///         let venue = matches!(to, To::Id(id) if id.target_comp_id == "VENUE");
    ///         venue.then_some(PeerStatus {
    ///             reference: SessionRef::new(1, 1),
    ///             state: peregrine_session::SessionState::LoggedOn,
    ///             logged_on: true,
    ///             queue_while_logged_out: true,
    ///             next_sender_seq: 1,
    ///             next_target_seq: 1,
    ///         })
    ///     }
    /// }
    ///
    /// struct Router;
    /// impl Application for Router {
    ///     fn on_logon(&mut self, _id: &SessionId, out: &mut Outbox<'_>) {
    ///         let venue = SessionId::new("FIX.4.4", "GW", "VENUE");
    ///         out.send_to(&venue, b"B", |m| { m.str(148, b"client logged on"); }).unwrap();
    ///     }
    ///     fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> { Ok(()) }
    /// }
    ///
    /// let id = SessionId::new("FIX.4.4", "GW", "CLIENT");
    /// let mut session = Session::new(SessionConfig::new(id, Role::Initiator), MemoryStore::new(0), 0);
    /// session.set_peers(Some(Arc::new(OneVenue)));
    /// // ... once the session has logged on (on_logon ran):
    /// # assert!(!session.has_forwards());
    /// session.take_forwards(&mut |f| {
    ///     assert_eq!((f.to, f.msg_type), (SessionRef::new(1, 1), &b"B"[..]));
    /// });
    /// ```
    pub fn take_forwards(&mut self, f: &mut dyn FnMut(Forward<'_>)) {
        self.core.callback_sends.take_forwards(f);
    }

    /// The session's identity.
    pub fn id(&self) -> &SessionId {
        &self.core.config.id
    }

    /// Its configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.core.config
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.core.outgoing.store
    }

    /// The store, mutably (e.g. to reserve capacity).
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.core.outgoing.store
    }

    fn tick(&mut self, now: Nanos) {
        if now > self.core.outgoing.writer.now {
            self.core.outgoing.writer.now = now;
        }
        self.core.tick_calendar();
    }

    /// A transport connection is up ([`AppEvent::Connected`]). An initiator sends
    /// its Logon (through [`Application::to_admin`]); an acceptor waits for the
    /// peer's (LogonTimeout).
    pub fn on_connected(&mut self, now: Nanos, app: &mut dyn Application) {
        self.tick(now);
        self.rx.clear();
        let core = &mut self.core;
        core.clear_outbound();
        core.queue.clear();
        core.logout = None;
        core.notify(app, &AppEvent::Connected);
        if core
            .calendar
            .new_period(core.outgoing.store.creation_time())
        {
            core.reset_store();
        }
        if !core.calendar.open() {
            core.state = State::AwaitingLogon { since: now };
            core.disconnect(DisconnectReason::OutsideSchedule);
            core.finish(app);
            self.publish();
            return;
        }
        match core.config.role {
            Role::Acceptor => core.state = State::AwaitingLogon { since: now },
            Role::Initiator => core.send_logon(app),
        }
        core.finish(app);
        self.publish();
    }

    /// Bytes received from the peer: frames, decodes, validates and handles every
    /// complete message (calling `app`), keeps an incomplete tail for next time.
    /// Garbled bytes are dropped without consuming a sequence number.
    pub fn on_bytes(&mut self, data: &[u8], now: Nanos, app: &mut dyn Application) {
        self.tick(now);
        if !self.core.connected() {
            return;
        }
        let mut decoder = LentDecoder::take(self.max_message_size);
        if self.rx.is_empty() {
            // Fast path: whole messages are handled in place; only a tail is copied.
            let used = self.process_buf(&mut decoder, data, app);
            if self.core.connected() && self.tail_allowed(data.len() - used) {
                self.rx.extend_from_slice(&data[used..]);
            }
        } else {
            self.rx.extend_from_slice(data);
            let mut rx = std::mem::take(&mut self.rx);
            let used = self.process_buf(&mut decoder, &rx, app);
            rx.drain(..used);
            if !self.core.connected() || !self.tail_allowed(rx.len()) {
                rx.clear();
            }
            self.rx = rx;
        }
        self.core.check_overflow();
        self.core.finish(app);
        self.publish();
    }

    /// Whether an incomplete message of `len` bytes may wait for more: before the
    /// session is logged on, at most `max_logon_size` bytes are buffered (a peer that
    /// has not logged on gets no more room than a Logon needs).
    fn tail_allowed(&mut self, len: usize) -> bool {
        if self.core.logged_on() || len <= self.core.config.max_logon_size {
            return true;
        }
        self.core.disconnect(DisconnectReason::LogonTooLarge);
        false
    }

    /// Frames, decodes and handles the whole messages at the start of `buf`; returns the
    /// number of bytes used (messages and garbled runs).
    fn process_buf(
        &mut self,
        decoder: &mut Decoder,
        buf: &[u8],
        app: &mut dyn Application,
    ) -> usize {
        // The decoder is the thread's: set this session's `ValidateChecksum`.
        let validate_checksum = self.core.config.validate_checksum;
        decoder.config_mut().validate_checksum = validate_checksum;
        let mut pos = 0;
        while self.core.connected() {
            match next_frame(&self.framer, &buf[pos..]) {
                Frame::Incomplete => break,
                Frame::Garbled { skip, reason } => {
                    let bytes = &buf[pos..pos + skip];
                    pos += skip;
                    self.core
                        .on_garbled(reason == GarbledReason::NoBeginString, bytes, app);
                }
                Frame::Message { len } => {
                    let raw = &buf[pos..pos + len];
                    match decoder.decode(raw) {
                        Ok(view) => {
                            self.core.outgoing.counters.message_received();
                            self.core.process(&view, app, false, None)
                        }
                        Err(DecodeError::InvalidTag { offset }) => {
                            // QuickFIX reads a tag like `0=` or `-1=` and rejects the
                            // message with InvalidTagNumber; so do we.
                            match without_invalid_tag(raw, offset, validate_checksum) {
                                Some((reject, fixed)) => {
                                    // Its CheckSum and BodyLength were checked on the
                                    // bytes as they came.
                                    let c = decoder.config_mut();
                                    let saved = (c.validate_checksum, c.validate_body_length);
                                    c.validate_checksum = false;
                                    c.validate_body_length = false;
                                    match decoder.decode(&fixed) {
                                        Ok(view) => {
                                            self.core.outgoing.counters.message_received();
                                            self.core.process(&view, app, false, Some(reject))
                                        }
                                        Err(_) => self.core.on_garbled(false, raw, app),
                                    }
                                    let c = decoder.config_mut();
                                    (c.validate_checksum, c.validate_body_length) = saved;
                                }
                                None => self.core.on_garbled(false, raw, app),
                            }
                        }
                        Err(_) => self.core.on_garbled(false, raw, app),
                    }
                    pos += len;
                    self.drain_queue(decoder, app);
                }
            }
        }
        pos
    }

    /// Processes queued (too-high) messages whose turn has come.
    fn drain_queue(&mut self, decoder: &mut Decoder, app: &mut dyn Application) {
        while let Some(raw) = self.core.take_queued() {
            if let Ok(view) = decoder.decode(&raw) {
                self.core.process(&view, app, true, None);
            }
            self.core.queue.recycle(raw);
        }
    }

    /// Timers: heartbeats, test requests, logon/logout timeouts, schedule, a
    /// ResendRequest without progress.
    pub fn on_timer(&mut self, now: Nanos, app: &mut dyn Application) {
        self.tick(now);
        self.core.on_timer(app);
        self.core.finish(app);
        self.publish();
    }

    /// When [`Session::on_timer`] must be called next (`None`: no timer armed).
    pub fn next_deadline(&self) -> Option<Nanos> {
        self.core.next_deadline()
    }

    /// The transport connection is gone (after a [`SessionEvent::Disconnect`], or the
    /// peer closed it): [`Application::on_logout`] with why when the session was
    /// logged on, then [`AppEvent::Disconnected`]. A driver that knows why the
    /// connection went calls [`on_connection_lost`](Self::on_connection_lost).
    pub fn on_disconnected(&mut self, now: Nanos, app: &mut dyn Application) {
        self.connection_gone(now, None, app);
    }

    /// [`on_disconnected`](Self::on_disconnected), with why the driver closed the
    /// connection or saw it close ([`DisconnectReason::PeerClosed`],
    /// [`DisconnectReason::Transport`], [`DisconnectReason::Tls`], [`DisconnectReason::SlowConsumer`],
    /// [`DisconnectReason::Closed`]); the session's own reason, when it asked for
    /// the disconnect, comes first. The application hears it in
    /// [`LogoutReason::Disconnected`] and [`AppEvent::Disconnected`].
    ///
    /// ```
    /// # use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionId, DisconnectReason};
    /// # use peregrine_store::MemoryStore;
    /// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let mut session = Session::new(cfg, MemoryStore::new(0), 0);
    /// let mut app = EchoApp::new(None);
    /// session.on_connected(0, &mut app);
    /// session.on_connection_lost(0, DisconnectReason::PeerClosed, &mut app);
    /// assert!(!session.is_logged_on());
    /// ```
    pub fn on_connection_lost(
        &mut self,
        now: Nanos,
        reason: DisconnectReason,
        app: &mut dyn Application,
    ) {
        self.connection_gone(now, Some(reason), app);
    }

    fn connection_gone(
        &mut self,
        now: Nanos,
        driver_reason: Option<DisconnectReason>,
        app: &mut dyn Application,
    ) {
        self.tick(now);
        if matches!(self.core.state, State::Disconnected) {
            return;
        }
        // What was handled on this connection is kept; what was queued for it is
        // not sent anywhere (the peer asks for it again after the next Logon).
        let _ = self.commit();
        let core = &mut self.core;
        core.clear_outbound();
        let reason = match core.state {
            State::Closing { reason, .. } => Some(reason),
            _ => driver_reason,
        };
        if core.logged_on() {
            core.flush_events(app);
            let text = |has: bool| has.then_some(&core.logout_text[..]);
            let why = match core.logout {
                Some((LogoutSide::Local, has)) => LogoutReason::Local {
                    text: text(has),
                    disconnect: reason,
                },
                Some((LogoutSide::Remote, has)) => LogoutReason::Remote { text: text(has) },
                None => LogoutReason::Disconnected(reason),
            };
            // Gone: what it sends on this session is kept for after its next
            // Logon, or refused (the session is no longer logged on).
            let own_ok = core.config.queue_while_logged_out && core.kept_for_resend();
            let (next_seq, now) = (core.outgoing.store.next_sender_seq(), core.now());
            let outbox = &mut core
                .callback_sends
                .outbox(next_seq, now, &core.config.id, own_ok);
            app.on_logout(&core.config.id, &why, outbox);
            core.events.push_back(SessionEvent::LoggedOut);
        }
        core.logout = None;
        if core.config.reset_on_disconnect || core.new_period() {
            core.reset_store();
        }
        core.queue.clear();
        core.state = State::Disconnected;
        // A session without a connection holds no buffer for one.
        self.rx = Vec::new();
        core.shapes = None;
        core.notify(app, &AppEvent::Disconnected { reason });
        core.finish(app);
        self.publish();
    }

    /// Makes what the session stored since the last commit durable as one unit
    /// (the store's [`commit`](MessageStore::commit): the incoming sequence numbers
    /// and the messages sent while handling them), then releases the messages queued
    /// so far to [`Session::outbound`]. Call it after feeding input and before
    /// writing; one commit may follow many calls (every message read in one go),
    /// which is how a durable store's cost per message falls under load.
    ///
    /// # Errors
    ///
    /// The store's error. Nothing queued since the last commit is released, a
    /// [`SessionEvent::StoreFailed`] is raised and the session asks to be
    /// disconnected ([`DisconnectReason::StoreFailure`]).
    pub fn commit(&mut self) -> Result<(), StoreError> {
        let core = &mut self.core;
        match core.outgoing.store.commit() {
            Ok(()) => {
                core.outgoing.writer.committed = core.outgoing.writer.buffer.len();
                self.publish();
                Ok(())
            }
            Err(e) => {
                let writer = &mut core.outgoing.writer;
                writer.buffer.truncate(writer.committed);
                if let Some(live) = core.live_mut() {
                    live.answering = None;
                }
                core.store_failed();
                core.disconnect(DisconnectReason::StoreFailure);
                self.publish();
                Err(e)
            }
        }
    }

    /// Lets the store finish what the last [`commit`](Self::commit) left for
    /// later because no message waits for it ([`MessageStore::settle`]: the
    /// file store's witness of where its journal ends). Call it once what the
    /// commit released to [`outbound`](Self::outbound) is written, so that the
    /// work stays off the messages' way.
    ///
    /// # Errors
    ///
    /// The store's error; as for [`commit`](Self::commit), a
    /// [`SessionEvent::StoreFailed`] is raised and the session asks to be
    /// disconnected ([`DisconnectReason::StoreFailure`]).
    ///
    /// ```
    /// use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionId};
    /// use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let store = FileStore::open(dir.path(), "s", FileStoreConfig::with_fsync(FsyncPolicy::Never), 0)?;
    /// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "BANK", "VENUE"), Role::Initiator);
    /// let mut session = Session::new(cfg, store, 0);
    /// let mut app = EchoApp::new(None);
    /// session.on_connected(0, &mut app); // queues the Logon
    /// session.commit()?; // the journal, before the Logon may leave
    /// let n = session.outbound().len(); // ... written to the socket ...
    /// session.consume_outbound(n, &mut app);
    /// session.settle()?; // the witness, after it
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn settle(&mut self) -> Result<(), StoreError> {
        let result = self.core.outgoing.store.settle();
        // Said once: a store that keeps failing fails every settle.
        if result.is_err() && !self.core.outgoing.store_failed {
            self.core.store_failed();
            self.core.disconnect(DisconnectReason::StoreFailure);
            self.publish();
        }
        result
    }

    /// Bytes that may be written: the messages queued up to the last
    /// [`Session::commit`]. The engine writes a prefix and calls
    /// [`Session::consume_outbound`].
    pub fn outbound(&self) -> &[u8] {
        let writer = &self.core.outgoing.writer;
        &writer.buffer[..writer.committed]
    }

    /// Bytes of the messages held while a sequence gap is filled, each counted
    /// as its size plus 64: at most `max_inbound_queue_bytes` (past it the
    /// session logs out, `InboundQueueFull`).
    ///
    /// ```
    /// # use peregrine_session::{Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let session = Session::new(cfg, MemoryStore::new(0), 0);
    /// assert_eq!(session.held_inbound_bytes(), 0);
    /// ```
    pub fn held_inbound_bytes(&self) -> usize {
        self.core.queue.bytes()
    }

    /// Bytes queued but not committed yet (not in [`Session::outbound`]).
    pub fn uncommitted_len(&self) -> usize {
        let writer = &self.core.outgoing.writer;
        writer.buffer.len() - writer.committed
    }

    /// Drops the first `n` bytes of [`Session::outbound`] (they were written), and
    /// goes on with a resend being answered as the buffer drains (each resent
    /// message passed through [`Application::to_app`]).
    pub fn consume_outbound(&mut self, n: usize, app: &mut dyn Application) {
        let writer = &mut self.core.outgoing.writer;
        let n = n.min(writer.committed);
        writer.buffer.drain(..n);
        writer.committed -= n;
        let answering = self
            .core
            .live()
            .is_some_and(|live| live.answering.is_some());
        if answering && self.core.outgoing.writer.buffer.len() < RESEND_CHUNK / 2 {
            self.core.pump_resend(app);
        }
        self.core.finish(app);
    }

    /// Delivers an event its driver raises about the session (an
    /// [`AppEvent::SendRefused`] for a message it sent on behalf of a caller
    /// that has gone on) to `app`'s [`Application::on_event`], in order with
    /// the session's own events and with an [`Outbox`](crate::Outbox) as
    /// theirs.
    ///
    /// ```
    /// # use peregrine_session::{AppEvent, EchoApp, Role, SendRefusal, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let mut session = Session::new(cfg, MemoryStore::new(0), 0);
    /// let event = AppEvent::SendRefused { msg_type: b"8", reason: SendRefusal::NotLoggedOn };
    /// session.notify(&mut EchoApp::new(None), &event);
    /// ```
    pub fn notify(&mut self, app: &mut dyn Application, event: &AppEvent<'_>) {
        self.core.notify(app, event);
        self.core.finish(app);
        self.publish();
    }

    /// The next event since the last call.
    pub fn poll_event(&mut self) -> Option<SessionEvent> {
        self.core.events.pop_front()
    }

    /// Sends an application message from outside a callback; returns its MsgSeqNum.
    /// The session writes the header, `body` the body.
    ///
    /// Logged on, the message is passed through [`Application::to_app`], stored
    /// (when `PersistMessages`) and queued for [`outbound`](Self::outbound). Not
    /// logged on (no connection, the Logon exchange not done, or our Logout sent)
    /// with [`queue_while_logged_out`](SessionConfig::queue_while_logged_out) (the
    /// default), it is stored with the next sequence number and not written, as
    /// QuickFIX/J does (`Session.sendRaw`: persisted, sent only `if
    /// (isLoggedOn())`): our next Logon is then numbered above what the
    /// counterparty expects, its ResendRequest asks for the message, and it
    /// arrives re-sent, with PossDupFlag=Y and OrigSendingTime (`to_app` sees it
    /// then). Like any input, the next [`commit`](Self::commit) makes it durable.
    /// A counterparty whose Logon resets sequence numbers (ResetSeqNumFlag=Y)
    /// discards it, as it would with QuickFIX/J.
    ///
    /// # Errors
    ///
    /// [`SendError::NotLoggedOn`], no sequence number used, when not logged on
    /// and the message would not reach the counterparty: `queue_while_logged_out`
    /// is off; or `PersistMessages=N` (nothing to resend it from: QuickFIX/J
    /// uses a sequence number for it and sends nothing, so the counterparty gets
    /// a GapFill over it and the message is lost; it returns `false`); or a
    /// reset the session knows of would discard it first (`ResetOnLogon`, as
    /// QuickFIX C++ refuses in `sendRaw`; `ResetOnDisconnect` before `on_disconnected`;
    /// `ResetOnLogout` while our Logout waits; a new schedule period). A
    /// session logged on past the end of its window or the start of a new
    /// period (the schedule timer not run yet) logs out first, as the timer
    /// would, and the message is then treated as sent while not logged on.
    /// [`SendError::DoNotSend`] when `to_app` vetoed it (nothing stored or sent,
    /// the sequence number not used); [`SendError::Store`] when the store refuses
    /// the message.
    ///
    /// ```
    /// # use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionId, SendError};
    /// # use peregrine_store::MemoryStore;
    /// # let now = 1_700_000_000_000_000_000i64;
    /// # let mut cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// cfg.queue_while_logged_out = false;
    /// # let mut session = Session::new(cfg, MemoryStore::new(now), now);
    /// # let mut app = EchoApp::new(None);
    /// let sent = session.send(now, &mut app, b"D", |m| {
    ///     m.str(11, b"ORD-1").char(54, b'1').str(55, b"MSFT").uint(38, 100);
    /// });
    /// assert!(matches!(sent, Err(SendError::NotLoggedOn))); // no Logon yet, and refused
    /// ```
    pub fn send(
        &mut self,
        now: Nanos,
        app: &mut dyn Application,
        msg_type: &[u8],
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        self.send_with_header(now, app, msg_type, &[], body)
    }

    /// [`send`](Self::send) with extra header fields merged into the header
    /// (as [`Outbox::send_with_header`](crate::Outbox::send_with_header)):
    /// what an engine hands a session that another session's callback sent
    /// it ([`Session::take_forwards`]).
    ///
    /// # Errors
    ///
    /// As [`send`](Self::send); [`SendError::TooManyHeaderFields`] and
    /// [`SendError::SessionHeaderField`] as for the outbox (nothing sent).
    pub fn send_with_header(
        &mut self,
        now: Nanos,
        app: &mut dyn Application,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        crate::app::check_extra_header(header)?;
        let mut extra = [(0, outgoing::HeaderValue::Uint(0)); crate::Outbox::MAX_HEADER_FIELDS];
        for (slot, &(tag, value)) in extra.iter_mut().zip(header) {
            *slot = (tag, outgoing::HeaderValue::Bytes(value));
        }
        let extra = &extra[..header.len()];
        self.tick(now);
        let mut body = Some(body);
        let mut body = |m: &mut MessageEncoder<'_>| {
            if let Some(f) = body.take() {
                f(m)
            }
        };
        if matches!(self.core.state, State::LoggedOn(_))
            && self
                .core
                .deadline(Timer::Schedule)
                .is_some_and(|d| d <= self.core.now())
        {
            // The window closed or a new period began and the schedule timer
            // has not run yet (the clock was stepped, or the engine is late):
            // log out first, as the timer would, rather than send on numbers
            // the period's end discards.
            self.core.fire(Timer::Schedule, app);
            self.core.flush_events(app);
            self.publish();
        }
        if matches!(self.core.state, State::LoggedOn(_)) {
            let sent = self.core.send_app(msg_type, extra, &mut body, app);
            self.core.check_overflow();
            self.core.finish(app);
            self.publish();
            return sent;
        }
        if !self.core.config.queue_while_logged_out || !self.core.kept_for_resend() {
            return Err(SendError::NotLoggedOn);
        }
        let stored = self.core.outgoing.store_only(msg_type, extra, &mut body);
        self.core.finish(app);
        self.publish();
        stored
    }

    /// [`send`](Self::send) of a typed message: `M` (a generated message of
    /// `peregrine_messages`, e.g. `fix44::ExecutionReport`) gives the MsgType, and
    /// `body` writes the fields after the standard header through `M`'s setters. The
    /// session writes the header and trailer as for any message. Allocation-free:
    /// the body is written straight into the session's encoder.
    ///
    /// # Errors
    ///
    /// As [`send`](Self::send).
    ///
    /// ```
    /// # use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// use peregrine_messages::codec::value::Decimal;
    /// use peregrine_messages::fix44::{enums::{OrdType, Side}, prelude::*, NewOrderSingle};
    /// # let now = 1_700_000_000_000_000_000i64;
    /// # let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "TW", "ISLD"), Role::Initiator);
    /// # let mut session = Session::new(cfg, MemoryStore::new(now), now);
    /// # let mut app = EchoApp::new(None);
    /// // Not logged on yet: stored under MsgSeqNum 1, resent after the Logon.
    /// let seq = session.send_typed::<NewOrderSingle>(now, &mut app, |order| {
    ///     order
    ///         .cl_ord_id("ORD-1")
    ///         .side(Side::Buy)
    ///         .symbol("MSFT")
    ///         .order_qty(Decimal::new(100, 0))
    ///         .ord_type(OrdType::Limit)
    ///         .price(Decimal::new(41250, 2));
    /// })?;
    /// assert_eq!(seq, 1);
    /// # Ok::<(), peregrine_session::SendError>(())
    /// ```
    pub fn send_typed<M: Message>(
        &mut self,
        now: Nanos,
        app: &mut dyn Application,
        body: impl FnOnce(&mut Body<'_, '_, M>),
    ) -> Result<u64, SendError> {
        self.send(now, app, M::MSG_TYPE, |enc| body(&mut Body::new(enc)))
    }

    /// Starts a logout (graceful shutdown): sends Logout (through
    /// [`Application::to_admin`]) and waits LogoutTimeout for the peer's. When not
    /// logged on, asks for the connection to be closed.
    pub fn logout(&mut self, now: Nanos, text: Option<&str>, app: &mut dyn Application) {
        self.tick(now);
        if matches!(self.core.state, State::LoggedOn(_)) {
            self.core.initiate_logout(text.map(str::as_bytes), app);
        } else if self.core.connected() {
            self.core.disconnect(DisconnectReason::Requested);
        }
        self.core.finish(app);
        self.publish();
    }

    /// Resets the session's sequence numbers to 1 and forgets its stored
    /// messages (QuickFIX/J's `Session.reset()`): for an operator, between
    /// connections. Call it while disconnected (the engine logs out first);
    /// the application hears [`AppEvent::SequenceNumbersReset`].
    ///
    /// # Errors
    ///
    /// The store could not reset.
    ///
    /// ```
    /// # use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let mut session = Session::new(cfg, MemoryStore::new(0), 0);
    /// session.set_next_sender_seq(40).unwrap();
    /// session.reset(0, &mut EchoApp::new(None)).unwrap();
    /// assert_eq!((session.next_sender_seq(), session.next_target_seq()), (1, 1));
    /// ```
    pub fn reset(&mut self, now: Nanos, app: &mut dyn Application) -> Result<(), StoreError> {
        self.tick(now);
        self.core.outgoing.store.reset(now)?;
        self.core
            .app_events
            .push_back(AppEvent::SequenceNumbersReset);
        self.core.queue.clear();
        self.core.finish(app);
        self.publish();
        Ok(())
    }

    /// The session's time: the latest `now` it has been given. It never goes
    /// back (an earlier `now`, a wall clock stepped back, is ignored), so
    /// SendingTime(52) it writes and checks, and its timers, go by this.
    pub fn now(&self) -> Nanos {
        self.core.now()
    }

    /// Where the session is.
    pub fn state(&self) -> SessionState {
        self.core.state_name()
    }

    /// Both Logons exchanged and the application not yet told of a logout.
    pub fn is_logged_on(&self) -> bool {
        self.core.logged_on()
    }

    /// The heartbeat interval in force (the peer's for an acceptor, once logged
    /// on; the configured one otherwise).
    pub fn heartbeat_interval_secs(&self) -> u32 {
        self.core
            .live()
            .map_or(self.core.config.heartbeat_interval_secs, |live| {
                live.heartbeat_secs
            })
    }

    /// MsgSeqNum of our next outgoing message.
    pub fn next_sender_seq(&self) -> u64 {
        self.core.outgoing.store.next_sender_seq()
    }

    /// MsgSeqNum expected on the next incoming message.
    pub fn next_target_seq(&self) -> u64 {
        self.core.outgoing.store.next_target_seq()
    }

    /// Operator override of the next outgoing MsgSeqNum, committed at once.
    ///
    /// # Errors
    ///
    /// The store's: a number outside `1..u64::MAX`, or a failed commit.
    pub fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.core.outgoing.store.set_next_sender_seq(seq)?;
        self.commit()
    }

    /// Operator override of the next expected incoming MsgSeqNum, committed at once.
    ///
    /// # Errors
    ///
    /// As [`Session::set_next_sender_seq`].
    pub fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.core.outgoing.store.set_next_target_seq(seq)?;
        self.commit()
    }
}

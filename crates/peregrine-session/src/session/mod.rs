//! The session state machine, split by job.

mod core;
mod events;
mod framing;
mod gap;
mod gap_queue;
mod heartbeat;
mod logon;
mod logout;
mod outgoing;
mod reject;
mod resend;
mod sequence_reset;
mod timers;
mod verify;

pub use events::{DisconnectReason, SessionEvent, SessionState};
pub use framing::{peek_session_id, PeekError};

use std::collections::VecDeque;

use peregrine_codec::frame::{Frame, Framer, GarbledReason};
use peregrine_codec::{DecodeError, Decoder, DecoderConfig, EncodeBuffer, MessageEncoder};
use peregrine_dict::{SessionRejectReason, ShapeCache};
use peregrine_store::{MessageStore, StoreError};

use crate::app::{Application, Outbox, SendError, Sink};
use crate::config::{appl_ver_id_code, Nanos, Role, SessionConfig, SessionId};

use self::core::Core;
use self::framing::*;
use self::gap_queue::GapQueue;
use self::outgoing::*;
use self::reject::*;
use self::resend::*;

/// The FIX session protocol as a sans-IO state machine: bytes and time in; bytes out,
/// application callbacks, events and the next deadline.
///
/// ```
/// use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionEvent, SessionId};
/// use peregrine_store::MemoryStore;
///
/// let now = 1_700_000_000_000_000_000i64;
/// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
/// let mut session = Session::new(cfg, MemoryStore::new(now), now);
/// let mut app = EchoApp::new(None);
/// session.on_connected(now);
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
    rx: Vec<u8>,
    framer: Framer,
    decoder: Decoder,
    core: Core<S>,
}

impl<S: MessageStore> std::fmt::Debug for Session<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.core.cfg.id)
            .field("state", &self.core.state)
            .field("next_sender", &self.core.tx.store.next_sender_seq())
            .field("next_target", &self.core.tx.store.next_target_seq())
            .finish()
    }
}

impl<S: MessageStore> Session<S> {
    /// A session over `store` (which holds the sequence numbers and sent messages).
    pub fn new(config: SessionConfig, store: S, now: Nanos) -> Self {
        let decoder_config = DecoderConfig {
            reject_empty_values: false,
            max_message_size: config.max_message_size,
            ..DecoderConfig::default()
        };
        let id = &config.id;
        let writer = Writer {
            enc: EncodeBuffer::with_capacity(4096),
            out: Vec::with_capacity(OUT_CAPACITY),
            committed: 0,
            begin: id.begin_string.as_bytes().to_vec(),
            sender: id.sender_comp_id.as_bytes().to_vec(),
            target: id.target_comp_id.as_bytes().to_vec(),
            precision: config.timestamp_precision,
            now,
            last_sent: now,
            last_processed: 0,
            send_369: config.enable_last_msg_seq_num_processed,
            out_ceiling: config.max_outbound_bytes,
        };
        let hb = config.heartbeat_interval_secs;
        let persist = config.persist_messages;
        let max_out = config.max_outbound_bytes;
        let queue = GapQueue::new(config.max_inbound_queue_bytes);
        let mut events = VecDeque::with_capacity(32);
        if let Some(lost) = store
            .recovery()
            .map(|r| r.lost_messages())
            .filter(|&n| n > 0)
        {
            events.push_back(SessionEvent::StoreDataLost { messages: lost });
        }
        Session {
            rx: Vec::with_capacity(64 * 1024),
            framer: Framer::new(config.max_message_size),
            decoder: Decoder::new(decoder_config.clone()),
            core: Core {
                tx: Tx {
                    store,
                    w: writer,
                    persist,
                    store_failed: false,
                    max_out,
                    overflowed: false,
                },
                cfg: config,
                events,
                state: SessionState::Disconnected,
                since: now,
                logged_on: false,
                sent_reset: false,
                hb_secs: hb,
                last_received: now,
                test_requests: 0,
                resend: None,
                resend_out: None,
                shapes: Box::new(ShapeCache::new()),
                queue,
                resend_decoder: Decoder::new(decoder_config),
            },
        }
    }

    /// Calls [`Application::on_create`] (separate from `new` so that the application is
    /// not needed to build a session).
    pub fn create(&mut self, app: &mut dyn Application) {
        app.on_create(&self.core.cfg.id);
    }

    /// The session's identity.
    pub fn id(&self) -> &SessionId {
        &self.core.cfg.id
    }

    /// Its configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.core.cfg
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.core.tx.store
    }

    /// The store, mutably (e.g. to reserve capacity).
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.core.tx.store
    }

    fn tick(&mut self, now: Nanos) {
        if now > self.core.tx.w.now {
            self.core.tx.w.now = now;
        }
    }

    /// A transport connection is up. An initiator sends its Logon; an acceptor waits
    /// for the peer's (LogonTimeout).
    pub fn on_connected(&mut self, now: Nanos) {
        self.tick(now);
        self.rx.clear();
        let core = &mut self.core;
        core.clear_outbound();
        core.logged_on = false;
        core.test_requests = 0;
        core.last_received = now;
        core.resend = None;
        core.queue.clear();
        if let Some(s) = core.cfg.schedule {
            if core.tx.store.creation_time() < s.period_start(now) {
                core.reset_store();
            }
            if !s.contains(now) {
                core.set_state(SessionState::AwaitingLogon);
                core.disconnect(DisconnectReason::OutsideSchedule);
                return;
            }
        }
        match core.cfg.role {
            Role::Acceptor => core.set_state(SessionState::AwaitingLogon),
            Role::Initiator => {
                if core.cfg.reset_on_logon {
                    core.reset_store();
                    core.sent_reset = true;
                }
                core.hb_secs = core.cfg.heartbeat_interval_secs;
                let hb = core.hb_secs as u64;
                let reset = core.sent_reset;
                let next_expected = core
                    .cfg
                    .enable_next_expected_msg_seq_num
                    .then(|| core.tx.store.next_target_seq());
                let appl = core
                    .cfg
                    .default_appl_ver_id
                    .clone()
                    .filter(|_| core.cfg.id.is_fixt());
                let (user, password) = (core.cfg.username.clone(), core.cfg.password.clone());
                core.tx.admin(b"A", &[], &mut |m| {
                    m.uint(98, 0).uint(108, hb);
                    if reset {
                        m.char(141, b'Y');
                    }
                    if let Some(u) = &user {
                        m.str(553, u.as_bytes());
                    }
                    if let Some(p) = &password {
                        m.str(554, p.as_bytes());
                    }
                    if let Some(n) = next_expected {
                        m.uint(789, n);
                    }
                    if let Some(a) = &appl {
                        m.str(1137, appl_ver_id_code(a).as_bytes());
                    }
                });
                core.set_state(SessionState::LogonSent);
            }
        }
    }

    /// Bytes received from the peer: frames, decodes, validates and handles every
    /// complete message (calling `app`), keeps an incomplete tail for next time.
    /// Garbled bytes are dropped without consuming a sequence number.
    pub fn on_bytes(&mut self, data: &[u8], now: Nanos, app: &mut dyn Application) {
        self.tick(now);
        if !self.core.connected() {
            return;
        }
        if self.rx.is_empty() {
            // Fast path: whole messages are handled in place; only a tail is copied.
            let used = self.process_buf(data, app);
            if self.core.connected() && self.tail_allowed(data.len() - used) {
                self.rx.extend_from_slice(&data[used..]);
            }
        } else {
            self.rx.extend_from_slice(data);
            let mut rx = std::mem::take(&mut self.rx);
            let used = self.process_buf(&rx, app);
            rx.drain(..used);
            if !self.core.connected() || !self.tail_allowed(rx.len()) {
                rx.clear();
            }
            self.rx = rx;
        }
        self.core.check_overflow();
    }

    /// Whether an incomplete message of `len` bytes may wait for more: before the
    /// session is logged on, at most `max_logon_size` bytes are buffered (a peer that
    /// has not logged on gets no more room than a Logon needs).
    fn tail_allowed(&mut self, len: usize) -> bool {
        if self.core.logged_on || len <= self.core.cfg.max_logon_size {
            return true;
        }
        self.core.disconnect(DisconnectReason::LogonTooLarge);
        false
    }

    /// Frames, decodes and handles the whole messages at the start of `buf`; returns the
    /// number of bytes used (messages and garbled runs).
    fn process_buf(&mut self, buf: &[u8], app: &mut dyn Application) -> usize {
        let mut pos = 0;
        while self.core.connected() {
            match next_frame(&self.framer, &buf[pos..]) {
                Frame::Incomplete => break,
                Frame::Garbled { skip, reason } => {
                    pos += skip;
                    self.core.on_garbled(reason == GarbledReason::NoBeginString);
                }
                Frame::Message { len } => {
                    let raw = &buf[pos..pos + len];
                    match self.decoder.decode(raw) {
                        Ok(view) => self.core.process(&view, app, false, None),
                        Err(DecodeError::InvalidTag { offset }) => {
                            match strip_invalid_tag(raw, offset) {
                                Some((tag, fixed)) => {
                                    let c = self.decoder.config_mut();
                                    let saved = (c.validate_checksum, c.validate_body_length);
                                    c.validate_checksum = false;
                                    c.validate_body_length = false;
                                    let forced =
                                        Rej::new(SessionRejectReason::InvalidTagNumber, Some(tag));
                                    match self.decoder.decode(&fixed) {
                                        Ok(view) => {
                                            self.core.process(&view, app, false, Some(forced))
                                        }
                                        Err(_) => self.core.on_garbled(false),
                                    }
                                    let c = self.decoder.config_mut();
                                    (c.validate_checksum, c.validate_body_length) = saved;
                                }
                                None => self.core.on_garbled(false),
                            }
                        }
                        Err(_) => self.core.on_garbled(false),
                    }
                    pos += len;
                    self.drain_queue(app);
                }
            }
        }
        pos
    }

    /// Processes queued (too-high) messages whose turn has come.
    fn drain_queue(&mut self, app: &mut dyn Application) {
        while let Some(raw) = self.core.take_queued() {
            if let Ok(view) = self.decoder.decode(&raw) {
                self.core.process(&view, app, true, None);
            }
            self.core.queue.recycle(raw);
        }
    }

    /// Timers: heartbeats, test requests, logon/logout timeouts, schedule.
    pub fn on_timer(&mut self, now: Nanos, app: &mut dyn Application) {
        let _ = app;
        self.tick(now);
        self.core.on_timer();
    }

    /// When [`Session::on_timer`] must be called next (`None`: no timer armed).
    pub fn next_deadline(&self) -> Option<Nanos> {
        self.core.next_deadline()
    }

    /// The transport connection is gone (after a [`SessionEvent::Disconnect`], or the
    /// peer closed it).
    pub fn on_disconnected(&mut self, now: Nanos, app: &mut dyn Application) {
        self.tick(now);
        if self.core.state == SessionState::Disconnected {
            return;
        }
        // What was handled on this connection is kept; what was queued for it is
        // not sent anywhere (the peer asks for it again after the next Logon).
        let _ = self.commit();
        let core = &mut self.core;
        core.clear_outbound();
        if core.logged_on {
            core.logged_on = false;
            app.on_logout(&core.cfg.id);
            core.events.push_back(SessionEvent::LoggedOut);
        }
        if core.cfg.reset_on_disconnect || core.new_period(core.now()) {
            core.reset_store();
        }
        core.queue.clear();
        core.resend = None;
        core.sent_reset = false;
        core.set_state(SessionState::Disconnected);
        self.rx.clear();
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
        match core.tx.store.commit() {
            Ok(()) => {
                core.tx.w.committed = core.tx.w.out.len();
                Ok(())
            }
            Err(e) => {
                core.tx.w.out.truncate(core.tx.w.committed);
                core.resend_out = None;
                core.store_failed();
                core.disconnect(DisconnectReason::StoreFailure);
                Err(e)
            }
        }
    }

    /// Bytes that may be written: the messages queued up to the last
    /// [`Session::commit`]. The engine writes a prefix and calls
    /// [`Session::consume_outbound`].
    pub fn outbound(&self) -> &[u8] {
        &self.core.tx.w.out[..self.core.tx.w.committed]
    }

    /// Bytes queued but not committed yet (not in [`Session::outbound`]).
    pub fn uncommitted_len(&self) -> usize {
        self.core.tx.w.out.len() - self.core.tx.w.committed
    }

    /// Drops the first `n` bytes of [`Session::outbound`] (they were written), and
    /// goes on with a resend being answered as the buffer drains.
    pub fn consume_outbound(&mut self, n: usize) {
        let w = &mut self.core.tx.w;
        let n = n.min(w.committed);
        w.out.drain(..n);
        w.committed -= n;
        if self.core.resend_out.is_some() && self.core.tx.w.out.len() < RESEND_CHUNK / 2 {
            self.core.pump_resend();
        }
    }

    /// The next event since the last call.
    pub fn poll_event(&mut self) -> Option<SessionEvent> {
        self.core.events.pop_front()
    }

    /// Sends an application message from outside a callback (only when logged on).
    pub fn send(
        &mut self,
        now: Nanos,
        msg_type: &[u8],
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        self.tick(now);
        if !self.core.logged_on || self.core.state != SessionState::LoggedOn {
            return Err(SendError::NotLoggedOn);
        }
        let sent = Outbox::new(&mut self.core.tx).send(msg_type, body);
        self.core.check_overflow();
        sent
    }

    /// Starts a logout (graceful shutdown): sends Logout and waits LogoutTimeout for the
    /// peer's. When not logged on, asks for the connection to be closed.
    pub fn logout(&mut self, now: Nanos, text: Option<&str>) {
        self.tick(now);
        if self.core.logged_on && self.core.state == SessionState::LoggedOn {
            self.core.initiate_logout(text.map(str::as_bytes));
        } else if self.core.connected() {
            self.core.disconnect(DisconnectReason::Requested);
        }
    }

    /// Where the session is.
    pub fn state(&self) -> SessionState {
        self.core.state
    }

    /// Both Logons exchanged and no Logout yet completed.
    pub fn is_logged_on(&self) -> bool {
        self.core.logged_on
    }

    /// The heartbeat interval in force (the peer's for an acceptor).
    pub fn heartbeat_interval_secs(&self) -> u32 {
        self.core.hb_secs
    }

    /// MsgSeqNum of our next outgoing message.
    pub fn next_sender_seq(&self) -> u64 {
        self.core.tx.store.next_sender_seq()
    }

    /// MsgSeqNum expected on the next incoming message.
    pub fn next_target_seq(&self) -> u64 {
        self.core.tx.store.next_target_seq()
    }

    /// Operator override of the next outgoing MsgSeqNum, committed at once.
    ///
    /// # Errors
    ///
    /// The store's: a number outside `1..u64::MAX`, or a failed commit.
    pub fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.core.tx.store.set_next_sender_seq(seq)?;
        self.commit()
    }

    /// Operator override of the next expected incoming MsgSeqNum, committed at once.
    ///
    /// # Errors
    ///
    /// As [`Session::set_next_sender_seq`].
    pub fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.core.tx.store.set_next_target_seq(seq)?;
        self.commit()
    }
}

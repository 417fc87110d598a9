//! [`FixSession`]: a [`Session`] and its application, seen by the engine as a
//! [`SessionDriver`]; and [`build_session`], one from settings.

use std::sync::Arc;

use peregrine_dict::Dictionaries;
use peregrine_session::{
    AppEvent, Application, DisconnectReason, SendRefusal, Session, SessionEvent,
};
use peregrine_store::{MessageStore, StoreError};

use super::apps::DynApp;
use super::{load_dictionaries, open_store, session_config, StoreKind};
use crate::config::{ConfigError, SessionSettings};
use crate::driver::{DriverEvent, Nanos, SessionDriver, SessionView};

/// A [`Session`] and its application, driven by the engine: every call that may
/// reach the application passes it, so the application hears the connection
/// coming and going ([`AppEvent::Connected`], [`AppEvent::Disconnected`] with why),
/// the session's events, and its callbacks, as the session makes them.
///
/// The application stays reachable, with its own type:
/// [`app`](Self::app)/[`app_mut`](Self::app_mut) while the session runs,
/// [`into_app`](Self::into_app) (or [`into_parts`](Self::into_parts)) once it is
/// done — e.g. to read what it gathered; an engine from
/// [`EngineBuilder`](crate::EngineBuilder) ([`AppEngine`](crate::AppEngine))
/// gives it by session name.
///
/// ```
/// use peregrine_codec::MessageView;
/// use peregrine_engine::fix::FixSession;
/// use peregrine_engine::SessionDriver;
/// use peregrine_session::{
///     AppEvent, AppReject, Application, DisconnectReason, Outbox, Role, Session, SessionConfig,
///     SessionId,
/// };
/// use peregrine_store::MemoryStore;
///
/// #[derive(Default)]
/// struct Counter { received: u64, connections: u64, closed: Vec<Option<DisconnectReason>> }
/// impl Application for Counter {
///     fn on_event(&mut self, _id: &SessionId, event: &AppEvent<'_>, _out: &mut Outbox<'_>) {
///         match *event {
///             AppEvent::Connected => self.connections += 1,
///             AppEvent::Disconnected { reason } => self.closed.push(reason),
///             _ => {}
///         }
///     }
///     fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> {
///         self.received += 1;
///         Ok(())
///     }
/// }
///
/// let now = 1_700_000_000_000_000_000i64;
/// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
/// let mut fix = FixSession::new(Session::new(cfg, MemoryStore::new(now), now), Counter::default());
/// fix.on_connected(now);
/// assert_eq!(fix.app().connections, 1);
/// // No Logon within LogonTimeout: the session asks for the connection to be closed.
/// fix.on_timer(now + 10_000_000_000);
/// fix.on_disconnected(now + 10_000_000_000);
/// assert_eq!(fix.app().closed, [Some(DisconnectReason::LogonTimeout)]);
/// fix.app_mut().received = 0;
/// let counter: Counter = fix.into_app();
/// assert_eq!(counter.received, 0);
/// ```
pub struct FixSession<S: MessageStore, A: Application> {
    /// The session state machine.
    pub session: Session<S>,
    /// The application behind it.
    pub app: A,
    pending: Option<DriverEvent>,
}

impl<S: MessageStore, A: Application> std::fmt::Debug for FixSession<S, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FixSession({})", self.session.id())
    }
}

impl<S: MessageStore, A: Application> FixSession<S, A> {
    /// Binds `app` to `session` (calls the application's `on_create`).
    pub fn new(mut session: Session<S>, mut app: A) -> Self {
        session.create(&mut app);
        FixSession {
            session,
            app,
            pending: None,
        }
    }

    /// The session.
    ///
    /// ```
    /// # use peregrine_engine::fix::{FixSession, LogApp};
    /// # use peregrine_session::{Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// # let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let fix = FixSession::new(Session::new(cfg, MemoryStore::new(0), 0), LogApp);
    /// assert_eq!(fix.session().next_sender_seq(), 1);
    /// ```
    pub fn session(&self) -> &Session<S> {
        &self.session
    }

    /// The session, mutably (calls that reach the application are better made
    /// through [`SessionDriver`], which passes it).
    ///
    /// ```
    /// # use peregrine_engine::fix::{FixSession, LogApp};
    /// # use peregrine_session::{Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// # let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let mut fix = FixSession::new(Session::new(cfg, MemoryStore::new(0), 0), LogApp);
    /// fix.session_mut().set_next_sender_seq(10)?;
    /// # Ok::<(), peregrine_store::StoreError>(())
    /// ```
    pub fn session_mut(&mut self) -> &mut Session<S> {
        &mut self.session
    }

    /// The application, with its own type.
    ///
    /// ```
    /// # use peregrine_engine::fix::{FixSession, LogApp};
    /// # use peregrine_session::{Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// # let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let fix = FixSession::new(Session::new(cfg, MemoryStore::new(0), 0), LogApp);
    /// let _app: &LogApp = fix.app();
    /// ```
    pub fn app(&self) -> &A {
        &self.app
    }

    /// The application, mutably.
    ///
    /// ```
    /// # use peregrine_engine::fix::{FixSession, LogApp};
    /// # use peregrine_session::{Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// # let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let mut fix = FixSession::new(Session::new(cfg, MemoryStore::new(0), 0), LogApp);
    /// let _app: &mut LogApp = fix.app_mut();
    /// ```
    pub fn app_mut(&mut self) -> &mut A {
        &mut self.app
    }

    /// The application, the session dropped.
    ///
    /// ```
    /// # use peregrine_engine::fix::{FixSession, LogApp};
    /// # use peregrine_session::{Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// # let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let fix = FixSession::new(Session::new(cfg, MemoryStore::new(0), 0), LogApp);
    /// let _app: LogApp = fix.into_app();
    /// ```
    pub fn into_app(self) -> A {
        self.app
    }

    /// The session and the application.
    ///
    /// ```
    /// # use peregrine_engine::fix::{FixSession, LogApp};
    /// # use peregrine_session::{Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// # let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let fix = FixSession::new(Session::new(cfg, MemoryStore::new(0), 0), LogApp);
    /// let (session, _app) = fix.into_parts();
    /// assert!(!session.is_logged_on());
    /// ```
    pub fn into_parts(self) -> (Session<S>, A) {
        (self.session, self.app)
    }

    /// Sends an application message (see [`Session::send`]: it passes through the
    /// application's `to_app`).
    ///
    /// # Errors
    ///
    /// As [`Session::send`]: not logged on (when queueing while logged out is
    /// off), vetoed by `to_app`, or refused by the store.
    ///
    /// ```
    /// # use peregrine_engine::fix::{FixSession, LogApp};
    /// # use peregrine_session::{Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// # let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let mut fix = FixSession::new(Session::new(cfg, MemoryStore::new(0), 0), LogApp);
    /// // Not logged on yet: the order is stored under MsgSeqNum 1 and goes out
    /// // (as a resend) once the counterparty logs on, as QuickFIX/J does.
    /// let seq = fix.send(0, b"D", |m| {
    ///     m.str(11, b"ORD-1");
    /// });
    /// assert_eq!(seq.unwrap(), 1);
    /// ```
    pub fn send(
        &mut self,
        now: Nanos,
        msg_type: &[u8],
        body: impl FnOnce(&mut peregrine_codec::MessageEncoder<'_>),
    ) -> Result<u64, peregrine_session::SendError> {
        self.session.send(now, &mut self.app, msg_type, body)
    }

    /// Sends a typed application message (see [`Session::send_typed`]): `M` gives the
    /// MsgType, `body` writes the fields after the header through `M`'s setters.
    ///
    /// # Errors
    ///
    /// As [`FixSession::send`].
    ///
    /// ```
    /// # use peregrine_engine::fix::{FixSession, LogApp};
    /// # use peregrine_session::{Role, Session, SessionConfig, SessionId};
    /// # use peregrine_store::MemoryStore;
    /// use peregrine_messages::fix44::{enums::Side, prelude::*, NewOrderSingle};
    /// # let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    /// let mut fix = FixSession::new(Session::new(cfg, MemoryStore::new(0), 0), LogApp);
    /// let seq = fix.send_typed::<NewOrderSingle>(0, |order| {
    ///     order.cl_ord_id("ORD-1").side(Side::Buy).symbol("MSFT");
    /// });
    /// assert_eq!(seq.unwrap(), 1);
    /// ```
    pub fn send_typed<M: peregrine_messages::Message>(
        &mut self,
        now: Nanos,
        body: impl FnOnce(&mut peregrine_messages::Body<'_, '_, M>),
    ) -> Result<u64, peregrine_session::SendError> {
        self.session.send_typed(now, &mut self.app, body)
    }
}

impl<S: MessageStore, A: Application> SessionView for FixSession<S, A> {
    fn send_test_request(&mut self, now: Nanos) -> bool {
        self.session.send_test_request(now, &mut self.app)
    }
    fn state_name(&self) -> String {
        format!("{:?}", self.session.state())
    }
    fn next_sender_seq(&self) -> u64 {
        self.session.next_sender_seq()
    }
    fn next_target_seq(&self) -> u64 {
        self.session.next_target_seq()
    }
    fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.session.set_next_sender_seq(seq)
    }
    fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.session.set_next_target_seq(seq)
    }
    fn reset_seq_nums(&mut self, now: Nanos) -> Result<(), StoreError> {
        self.session.reset(now, &mut self.app)
    }
    fn store_lost_messages(&self) -> u64 {
        self.session
            .store()
            .recovery()
            .map_or(0, |r| r.lost_messages())
    }
    fn counters(&self) -> Option<&Arc<peregrine_session::metrics::SessionCounters>> {
        Some(self.session.counters())
    }
}

impl<S: MessageStore, A: Application> SessionDriver for FixSession<S, A> {
    fn on_connected(&mut self, now: Nanos) {
        self.session.on_connected(now, &mut self.app);
    }
    fn on_bytes(&mut self, data: &[u8], now: Nanos) {
        self.session.on_bytes(data, now, &mut self.app);
    }
    fn on_timer(&mut self, now: Nanos) {
        self.session.on_timer(now, &mut self.app);
    }
    fn next_deadline(&self) -> Option<Nanos> {
        self.session.next_deadline()
    }
    fn on_disconnected(&mut self, now: Nanos) {
        self.session.on_disconnected(now, &mut self.app);
    }
    fn on_connection_lost(&mut self, now: Nanos, reason: DisconnectReason) {
        self.session.on_connection_lost(now, reason, &mut self.app);
    }
    fn commit(&mut self) {
        // A failure is an event (StoreFailed, then Disconnect) the engine handles.
        let _ = self.session.commit();
    }
    fn settle(&mut self) {
        // A failure is an event (StoreFailed, then Disconnect), as for commit.
        let _ = self.session.settle();
    }
    fn outbound(&self) -> &[u8] {
        self.session.outbound()
    }
    fn uncommitted_len(&self) -> usize {
        self.session.uncommitted_len()
    }
    fn consume_outbound(&mut self, n: usize) {
        self.session.consume_outbound(n, &mut self.app);
    }
    fn set_peers(&mut self, peers: Arc<dyn peregrine_session::Peers>) {
        self.session.set_peers(Some(peers));
    }
    fn has_forwards(&self) -> bool {
        self.session.has_forwards()
    }
    fn take_forwards(&mut self, f: &mut dyn FnMut(peregrine_session::Forward<'_>)) {
        self.session.take_forwards(f);
    }
    fn send_forward(
        &mut self,
        now: Nanos,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: &[u8],
    ) -> Result<u64, peregrine_session::SendError> {
        let sent = self
            .session
            .send_with_header(now, &mut self.app, msg_type, header, |m| {
                m.raw(body);
            });
        if let Err(e) = &sent {
            // The sending callback has returned: this session's application hears it.
            let event = AppEvent::SendRefused {
                msg_type,
                reason: SendRefusal::of(e),
            };
            self.session.notify(&mut self.app, &event);
        }
        sent
    }
    fn forward_refused(
        &mut self,
        to: peregrine_session::SessionRef,
        msg_type: &[u8],
        reason: SendRefusal,
    ) {
        let event = AppEvent::CallbackSendRefused {
            to: Some(to),
            msg_type,
            reason,
        };
        self.session.notify(&mut self.app, &event);
    }
    fn send_body(
        &mut self,
        now: Nanos,
        msg_type: &[u8],
        body: &[u8],
    ) -> Result<u64, peregrine_session::SendError> {
        let sent = self.session.send(now, &mut self.app, msg_type, |m| {
            m.raw(body);
        });
        if let Err(e) = &sent {
            // The handle's caller has gone on: the application hears it.
            let event = AppEvent::SendRefused {
                msg_type,
                reason: SendRefusal::of(e),
            };
            self.session.notify(&mut self.app, &event);
        }
        sent
    }
    fn poll_event(&mut self) -> Option<DriverEvent> {
        if let Some(e) = self.pending.take() {
            return Some(e);
        }
        Some(match self.session.poll_event()? {
            SessionEvent::LoggedOn => DriverEvent::LoggedOn,
            SessionEvent::LoggedOut => DriverEvent::LoggedOut,
            SessionEvent::Disconnect(reason) => DriverEvent::Disconnect(reason),
            SessionEvent::StoreFailed => {
                DriverEvent::Warning("the store failed: what is not committed is not sent".into())
            }
            SessionEvent::StoreDataLost { messages } => DriverEvent::Warning(format!(
                "the file store lost {messages} acknowledged message(s) (FileStoreDamage=report): resend requests for them get gap fills"
            )),
            other => DriverEvent::Info(format!("{other:?}")),
        })
    }
    fn logout(&mut self, now: Nanos, text: Option<&str>) {
        self.session.logout(now, text, &mut self.app);
    }
    fn is_logged_on(&self) -> bool {
        self.session.is_logged_on()
    }
    fn on_shutdown(&mut self) -> Result<(), StoreError> {
        self.session.store_mut().sync()
    }
    fn store_sync_interval(&self) -> Option<Nanos> {
        self.session
            .store()
            .sync_interval()
            .map(|d| (d.as_nanos().min(i64::MAX as u128) as Nanos).max(1))
    }
    fn sync_store_if_due(&mut self) -> Result<bool, StoreError> {
        self.session.store_mut().sync_if_due()
    }
    fn set_store_observer(&mut self, observer: Arc<dyn peregrine_store::StoreObserver>) {
        self.session.store_mut().set_observer(Some(observer));
    }
}

/// The usual driver: any store, any application, boxed.
pub type BoxedFixSession = FixSession<Box<dyn MessageStore + Send>, DynApp>;

/// Builds a boxed session from settings: loads dictionaries, opens the store,
/// creates the application with `make_app` (given the dictionaries).
///
/// # Errors
///
/// A [`ConfigError`] naming the key: the dictionaries cannot be loaded (as
/// [`load_dictionaries`]), or the store cannot be opened (as [`open_store`]).
pub fn build_session(
    s: &SessionSettings,
    store: StoreKind,
    now: Nanos,
    make_app: &mut dyn FnMut(Option<Arc<Dictionaries>>) -> Box<dyn Application + Send>,
) -> Result<BoxedFixSession, ConfigError> {
    let dicts = load_dictionaries(s)?;
    let cfg = session_config(s, dicts.clone());
    let store = open_store(s, store, now)?;
    let session = Session::new(cfg, store, now);
    Ok(FixSession::new(session, DynApp(make_app(dicts))))
}

//! One call from a `.cfg` (or settings made in code) and an application
//! factory to a running acceptor or initiator: [`EngineBuilder`].
//!
//! The builder applies every key the settings hold, as the CLI does, so a
//! library user writes no wiring:
//!
//! * the store: the file journal under `FileStorePath` when the session has
//!   one (with `FileStoreSync` and `FileStoreDamage`), else memory; override
//!   with [`EngineBuilder::store`];
//! * dictionaries: each file loaded once and shared by every session that
//!   names it;
//! * `IdleStrategy` (one for the engine: sessions that set it differently are refused), `FileLogPath` message and event
//!   logs, and the admin HTTP interface (`AdminHttpPort`, `AdminHttpAddress`,
//!   `AdminHttpToken`) when the engine is [started](EngineBuilder::start);
//! * the warnings the settings raised are printed to stderr (and logged), so
//!   a typo is seen without a `tracing` subscriber.
//!
//! ```
//! use peregrine_codec::MessageView;
//! use peregrine_engine::EngineBuilder;
//! use peregrine_session::{AppReject, Application, Outbox, SessionId};
//!
//! /// Acknowledges every order.
//! #[derive(Default)]
//! struct Venue { orders: u64 }
//!
//! impl Application for Venue {
//!     fn from_app(&mut self, msg: &MessageView<'_>, _: &SessionId, out: &mut Outbox<'_>) -> Result<(), AppReject> {
//!         self.orders += 1;
//!         let cl_ord_id = msg.get(11).unwrap_or(b"?");
//!         out.send(b"8", |m| { m.str(11, cl_ord_id).str(39, b"0").str(150, b"0"); })
//!             .map(|_| ())
//!             .map_err(|_| AppReject::UnsupportedMessageType)
//!     }
//! }
//!
//! let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=VENUE\n\
//!            TargetCompID=CLIENT\nUseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n";
//! let venue = EngineBuilder::parse(cfg, "venue.cfg")?.start(|_| Venue::default())?;
//! println!("listening on {:?}", venue.listener_addrs());
//! let engine = venue.stop()?; // Logout on every session, then the engine back
//! assert_eq!(engine.application("FIX.4.4:VENUE->CLIENT").map(|v| v.orders), Some(0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use peregrine_agent::{AgentRunner, Idle};
use peregrine_dict::Dictionaries;
use peregrine_session::{Application, Session, SessionId};
use peregrine_store::MessageStore;

use crate::admin::{spawn_admin_server, AdminOptions};
use crate::command::{Command, EngineHandle, Outcome};
use crate::config::{ConfigError, ConnectionType, SessionSettings, Settings};
use crate::driver::{now_nanos, Nanos};
use crate::engine::{Engine, EngineOptions, SessionInfo};
/// Dictionaries loaded once per file: now in [`fix`](crate::fix), where
/// preflight finds them too; still named here.
pub use crate::fix::DictionaryCache;
use crate::fix::{open_store, session_config, session_id, store_kind, FixSession, StoreKind};
use crate::journals::Journals;
use crate::sender::{Sender, SessionRef};
use peregrine_store::SharedStore;

/// The store a built session writes to (boxed: memory or file, chosen per
/// session from its settings).
pub type BoxedStore = Box<dyn MessageStore + Send>;

/// An engine whose sessions all run one application type `A`.
pub type AppEngine<A> = Engine<FixSession<BoxedStore, A>>;

/// The applications of an engine whose sessions run one application type:
/// here, with the builder, so that the reactor ([`Engine`]) stays generic over
/// its [`SessionDriver`](crate::SessionDriver)s and never names an application.
impl<S: MessageStore, A: Application> Engine<FixSession<S, A>> {
    /// The application behind the session `name` (its full name, or without
    /// the qualifier when that is unambiguous), typed: read its state after
    /// a run, with no `Arc<Mutex<_>>`.
    pub fn application(&self, name: &str) -> Option<&A> {
        self.driver(name).map(|d| &d.app)
    }

    /// [`application`](Self::application), to change it.
    pub fn application_mut(&mut self, name: &str) -> Option<&mut A> {
        self.driver_mut(name).map(|d| &mut d.app)
    }

    /// Every session's name and application, in the order they were added.
    pub fn applications(&self) -> impl Iterator<Item = (&str, &A)> {
        self.drivers().map(|(name, d)| (name, &d.app))
    }
}

/// What an application factory is told about the session it makes an
/// application for.
#[derive(Debug)]
pub struct SessionContext<'a> {
    /// The session's identity.
    pub id: &'a SessionId,
    /// Its settings (custom keys too: [`SessionSettings::get`]).
    pub settings: &'a SessionSettings,
    /// The dictionaries it validates with (`None` with `UseDataDictionary=N`).
    pub dictionaries: Option<Arc<Dictionaries>>,
    /// How a [`Sender`] names the session: the reference the engine gives it,
    /// known before it exists, for configured sessions and those made while
    /// the engine runs alike (from an acceptor template, or
    /// [`Command::AddSession`]), which
    /// [`RunningEngine::session_ref`] does not know. An application keeps it
    /// (or hands it to whoever routes) to address its session later.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use peregrine_engine::{EngineBuilder, SessionRef};
    /// use peregrine_session::EchoApp;
    ///
    /// let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=VENUE\n\
    ///            UseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\nTargetCompID=CLIENT\n";
    /// let made: Arc<Mutex<Vec<(String, SessionRef)>>> = Arc::default();
    /// let seen = made.clone();
    /// let venue = EngineBuilder::parse(cfg, "venue.cfg")?.start(move |cx| {
    ///     seen.lock().unwrap().push((cx.id.to_string(), cx.session_ref));
    ///     EchoApp::new(None)
    /// })?;
    /// let (name, reference) = made.lock().unwrap()[0].clone();
    /// assert_eq!(venue.session_ref("FIX.4.4:VENUE->CLIENT"), Some(reference), "{name}");
    /// venue.stop()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub session_ref: SessionRef,
}

/// Why an engine could not be built or started.
#[derive(Debug)]
pub enum BuildError {
    /// A setting is wrong: its file, line and key are in the error.
    Config(ConfigError),
    /// The operating system refused something the engine needs (the
    /// reactor, a listening port, the admin interface, a thread).
    Io {
        /// What the engine was doing.
        what: String,
        /// The underlying error.
        source: io::Error,
    },
    /// An acceptor template was given to
    /// [`build_local`](EngineBuilder::build_local), whose engine keeps no
    /// factory to make its sessions with.
    TemplateNeedsFactory {
        /// The template's session name.
        session: String,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Config(e) => e.fmt(f),
            BuildError::Io { what, source } => write!(f, "{what}: {source}"),
            BuildError::TemplateNeedsFactory { session } => write!(
                f,
                "{session}: AcceptorTemplate=Y makes sessions while the engine runs, \
                 which needs the factory kept by EngineBuilder::build (not build_local)"
            ),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Config(e) => Some(e),
            BuildError::Io { source, .. } => Some(source),
            BuildError::TemplateNeedsFactory { .. } => None,
        }
    }
}

impl From<ConfigError> for BuildError {
    fn from(e: ConfigError) -> Self {
        BuildError::Config(e)
    }
}

fn io_error(what: impl Into<String>) -> impl FnOnce(io::Error) -> BuildError {
    let what = what.into();
    move |source| BuildError::Io { what, source }
}

/// Builds an engine from settings and an application factory (see the
/// [module documentation](self)).
pub struct EngineBuilder {
    settings: Settings,
    store: Option<StoreKind>,
    open_store: Option<Box<StoreFactory>>,
    role: Option<ConnectionType>,
    options: EngineOptions,
    idle: Option<Idle>,
}

/// Opens a session's store: see [`EngineBuilder::store_with`].
pub type StoreFactory =
    dyn FnMut(&SessionSettings, Nanos) -> Result<BoxedStore, ConfigError> + Send;

impl fmt::Debug for EngineBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EngineBuilder")
            .field("settings", &self.settings)
            .field("store", &self.store)
            .field("store_with", &self.open_store.is_some())
            .field("role", &self.role)
            .field("options", &self.options)
            .field("idle", &self.idle)
            .finish()
    }
}

impl EngineBuilder {
    /// A builder for these settings: parsed from a file
    /// ([`Settings::load`], or [`load`](Self::load) here), or made in code
    /// ([`Settings::builder`]).
    ///
    /// ```
    /// use peregrine_engine::config::{ConnectionType, Settings};
    /// use peregrine_engine::EngineBuilder;
    /// use peregrine_session::EchoApp;
    ///
    /// let settings = Settings::builder()
    ///     .default(|d| d.connection_type(ConnectionType::Acceptor).use_data_dictionary(false))
    ///     .session("FIX.4.4", "VENUE", "CLIENT", |s| s.socket_accept_port(0))
    ///     .build()?;
    /// let venue = EngineBuilder::new(settings).start(|_| EchoApp::new(None))?;
    /// assert_eq!(venue.listener_addrs().len(), 1);
    /// venue.stop()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(settings: Settings) -> EngineBuilder {
        EngineBuilder {
            settings,
            store: None,
            open_store: None,
            role: None,
            options: EngineOptions::default(),
            idle: None,
        }
    }

    /// Reads and parses a `.cfg` file.
    ///
    /// # Errors
    ///
    /// The file cannot be read, or a setting is wrong (file, line and key).
    pub fn load(path: impl AsRef<Path>) -> Result<EngineBuilder, ConfigError> {
        Ok(EngineBuilder::new(Settings::load(path)?))
    }

    /// Parses settings text (`path` names it in errors and anchors relative
    /// paths).
    ///
    /// # Errors
    ///
    /// A setting is wrong (file, line and key).
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<EngineBuilder, ConfigError> {
        let settings = Settings::parse(text, path.as_ref())?;
        settings.report_warnings();
        Ok(EngineBuilder::new(settings))
    }

    /// Every session writes to this kind of store (instead of the file store
    /// where `FileStorePath` is set and memory elsewhere).
    pub fn store(mut self, kind: StoreKind) -> Self {
        self.store = Some(kind);
        self
    }

    /// Every session's store is opened by `open` (QuickFIX/J's
    /// `MessageStoreFactory`): a store of your own, or one sized up front. It
    /// is given the session's settings and the time, and is used for sessions
    /// added while the engine runs too. Takes precedence over
    /// [`store`](Self::store).
    ///
    /// ```
    /// use peregrine_engine::{BoxedStore, EngineBuilder};
    /// use peregrine_engine::store::MemoryStore;
    /// use peregrine_session::EchoApp;
    ///
    /// let cfg = "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\n\
    ///            UseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n";
    /// let engine = EngineBuilder::parse(cfg, "venue.cfg")?
    ///     // Room for 100,000 messages of ~200 bytes: no allocation while they are stored.
    ///     .store_with(|_settings, now| {
    ///         Ok(Box::new(MemoryStore::with_capacity(now, 100_000, 200 * 100_000)) as BoxedStore)
    ///     })
    ///     .build(|_| EchoApp::new(None))?;
    /// assert_eq!(engine.sessions().len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn store_with(
        mut self,
        open: impl FnMut(&SessionSettings, Nanos) -> Result<BoxedStore, ConfigError> + Send + 'static,
    ) -> Self {
        self.open_store = Some(Box::new(open));
        self
    }

    /// Only the sessions of this `ConnectionType` (a file that holds both).
    pub fn only(mut self, role: ConnectionType) -> Self {
        self.role = Some(role);
        self
    }

    /// The idle strategy (instead of the sessions' `IdleStrategy`, which they all share).
    pub fn idle(mut self, idle: Idle) -> Self {
        self.idle = Some(idle);
        self
    }

    /// Engine-wide options (the idle strategy still comes from the settings
    /// unless [`idle`](Self::idle) says otherwise).
    pub fn options(mut self, options: EngineOptions) -> Self {
        self.options = options;
        self
    }

    /// A flag that asks the engine to stop when raised (a signal handler's).
    pub fn stop_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.options.stop_flag = Some(flag);
        self
    }

    /// The settings being built.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    fn sessions(&self) -> impl Iterator<Item = &SessionSettings> {
        let role = self.role;
        self.settings.sessions.iter().filter(move |s| match role {
            Some(r) => s.connection_type == r,
            None => true,
        })
    }

    /// Builds the engine on this thread (to be turned by the caller with
    /// [`Engine::turn`] or [`Engine::run`]): `app` makes each session's
    /// application.
    ///
    /// # Errors
    ///
    /// A setting is wrong (a dictionary or store that cannot be opened names
    /// its key; acceptors sharing a port name different addresses, see
    /// [`check_listeners`](crate::preflight::check_listeners)), or a listener
    /// cannot be opened.
    pub fn build<A, F>(mut self, app: F) -> Result<AppEngine<A>, BuildError>
    where
        A: Application + 'static,
        F: FnMut(&SessionContext<'_>) -> A + Send + 'static,
    {
        let (mut engine, mut make) = self.assemble(app, false)?;
        let journalled: Vec<String> = make
            .journals
            .journals()
            .flat_map(|j| j.session_names())
            .collect();
        // Sessions added while it runs (templates, commands) are made the same way.
        engine.set_session_factory(Box::new(move |s, reference| make.session(s, reference)));
        // A template's sessions that the journal holds are made now, not at their
        // counterparty's next Logon: what other sessions forward to them is stored
        // and resent after it.
        engine.restore_template_sessions(&journalled);
        Ok(engine)
    }

    /// Builds the engine on this thread, as [`build`](Self::build), with a
    /// factory that need not be `Send`: for applications that share
    /// single-threaded state (`Rc`, a `!Send` Aeron publication) with other
    /// work of the thread's duty cycle, as the trading topology's gateway does.
    /// The engine does not keep the factory (it would make the engine
    /// `!Send`), so it makes no sessions while it runs: `AcceptorTemplate=Y` is
    /// refused here, and an added session ([`Command::AddSession`]) is
    /// answered with an error.
    ///
    /// ```
    /// use std::{cell::Cell, rc::Rc};
    /// use peregrine_codec::MessageView;
    /// use peregrine_engine::EngineBuilder;
    /// use peregrine_session::{AppReject, Application, Outbox, SessionId};
    ///
    /// /// Counts logons into state the thread's other work reads too.
    /// struct Counted(Rc<Cell<u32>>);
    /// impl Application for Counted {
    ///     fn on_logon(&mut self, _: &SessionId, _: &mut Outbox<'_>) {
    ///         self.0.set(self.0.get() + 1);
    ///     }
    ///     fn from_app(&mut self, _: &MessageView<'_>, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> {
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let logons = Rc::new(Cell::new(0));
    /// let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=VENUE\n\
    ///            TargetCompID=CLIENT\nUseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n";
    /// let mut engine = EngineBuilder::parse(cfg, "venue.cfg")?
    ///     .build_local(|_| Counted(logons.clone()))?;
    /// engine.turn()?; // and the thread's other work, in one duty cycle
    /// assert_eq!(logons.get(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build), and [`BuildError::TemplateNeedsFactory`] for
    /// a session with `AcceptorTemplate=Y`.
    pub fn build_local<A, F>(mut self, app: F) -> Result<AppEngine<A>, BuildError>
    where
        A: Application + 'static,
        F: FnMut(&SessionContext<'_>) -> A,
    {
        self.assemble(app, true).map(|(engine, _)| engine)
    }

    /// The engine with the configured sessions (and templates, unless
    /// `local`), and the maker that made them.
    fn assemble<A, F>(
        &mut self,
        app: F,
        local: bool,
    ) -> Result<(AppEngine<A>, SessionMaker<F>), BuildError>
    where
        A: Application + 'static,
        F: FnMut(&SessionContext<'_>) -> A,
    {
        // Before any listener opens: a second address on one port would be ignored.
        crate::preflight::check_listeners(self.sessions())?;
        if local {
            if let Some(s) = self.sessions().find(|s| s.acceptor_template) {
                return Err(BuildError::TemplateNeedsFactory {
                    session: s.session_name(),
                });
            }
        }
        let mut options = self.options.clone();
        let first = self.sessions().next();
        options.idle = self
            .idle
            .or(first.map(|s| s.idle_strategy))
            .unwrap_or(options.idle);
        let mut engine = Engine::new(options).map_err(io_error("cannot start the reactor"))?;
        let mut make = SessionMaker {
            app,
            dictionaries: DictionaryCache::default(),
            store: self.store,
            open_store: self.open_store.take(),
            journals: Journals::default(),
            peers: engine.peers(),
        };
        for s in self.sessions() {
            if s.acceptor_template {
                if make.uses_journal(s) {
                    // Its sessions come while the engine runs: their journal is
                    // the engine's from the start.
                    make.journals.open_dir(s, now_nanos())?;
                }
                engine.add_template(s).map_err(io_error(s.session_name()))?;
                continue;
            }
            let reference = engine.reserve_session_ref();
            let driver = make.session(s, reference)?;
            engine
                .add_reserved(s, driver, reference)
                .map_err(io_error(s.session_name()))?;
        }
        for journal in make.journals.journals() {
            engine.add_journal(journal.clone());
        }
        Ok((engine, make))
    }

    /// Builds the engine and runs it on a thread of its own
    /// (`peregrine-engine`), with the admin interface if the sessions'
    /// settings ask for it. Control it through the [`RunningEngine`].
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build), and when the thread or the admin interface
    /// cannot start.
    pub fn start<A, F>(self, app: F) -> Result<RunningEngine<A>, BuildError>
    where
        A: Application + Send + 'static,
        F: FnMut(&SessionContext<'_>) -> A + Send + 'static,
    {
        let admin = self.sessions().next().and_then(|s| {
            s.admin_http_port.map(|port| {
                (
                    SocketAddr::new(s.admin_http_address, port),
                    s.admin_http_token.clone(),
                )
            })
        });
        let engine = self.build(app)?;
        RunningEngine::start(engine, admin)
    }
}

/// Makes sessions the same way at start-up and while the engine runs.
struct SessionMaker<F> {
    app: F,
    dictionaries: DictionaryCache,
    store: Option<StoreKind>,
    open_store: Option<Box<StoreFactory>>,
    /// The engine journals of `EngineJournal=Y` sessions, by directory.
    journals: Journals,
    /// Where each session's store is registered for the callbacks to read
    /// (`Outbox::peer_messages`).
    peers: Arc<crate::engine::EnginePeers>,
}

impl<F> SessionMaker<F> {
    /// Whether the session's store is a view of an engine journal.
    fn uses_journal(&self, s: &SessionSettings) -> bool {
        self.open_store.is_none()
            && s.engine_journal
            && store_kind(s, self.store) == StoreKind::File
    }

    /// The session of settings `s`, which the engine will name `reference`.
    fn session<A>(
        &mut self,
        s: &SessionSettings,
        reference: SessionRef,
    ) -> Result<FixSession<BoxedStore, A>, ConfigError>
    where
        A: Application,
        F: FnMut(&SessionContext<'_>) -> A,
    {
        let dicts = self.dictionaries.load(s)?;
        let id = session_id(s);
        let application = (self.app)(&SessionContext {
            id: &id,
            settings: s,
            dictionaries: dicts.clone(),
            session_ref: reference,
        });
        let kind = store_kind(s, self.store);
        let now = now_nanos();
        let journal = self.uses_journal(s);
        let store = match &mut self.open_store {
            Some(open) => open(s, now)?,
            None if journal => Box::new(self.journals.open(s, now)?) as BoxedStore,
            None => open_store(s, kind, now)?,
        };
        // The session writes it; any callback of the engine may read it.
        let store = SharedStore::new(store);
        self.peers.add_store(reference, store.reader());
        let store = Box::new(store) as BoxedStore;
        let session = Session::new(session_config(s, dicts), store, now);
        Ok(FixSession::new(session, application))
    }
}

/// An engine running on its own thread: send through [`sender`](Self::sender),
/// control through [`handle`](Self::handle), and [`stop`](Self::stop) it to
/// get the engine (and its applications) back.
pub struct RunningEngine<A: Application + Send + 'static> {
    runner: AgentRunner<AppEngine<A>>,
    handle: EngineHandle,
    sender: Sender,
    refs: HashMap<String, SessionRef>,
    listeners: Vec<SocketAddr>,
    admin: Option<SocketAddr>,
}

impl<A: Application + Send + 'static> fmt::Debug for RunningEngine<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunningEngine")
            .field("sessions", &self.refs.len())
            .field("listeners", &self.listeners)
            .finish()
    }
}

impl<A: Application + Send + 'static> RunningEngine<A> {
    /// Runs `engine` on a thread of its own, with an admin interface on
    /// `admin` (address and token) if given.
    ///
    /// # Errors
    ///
    /// The thread or the admin interface cannot start.
    pub fn start(
        engine: AppEngine<A>,
        admin: Option<(SocketAddr, Option<String>)>,
    ) -> Result<RunningEngine<A>, BuildError> {
        let handle = engine.handle();
        let sender = engine.sender();
        let refs = engine.session_refs().into_iter().collect();
        let listeners = engine.listener_addrs();
        let admin = match admin {
            None => None,
            Some((addr, token)) => {
                let options = AdminOptions {
                    token,
                    dictionaries: engine.dictionary_files(),
                    ..AdminOptions::default()
                };
                let local = spawn_admin_server(addr, handle.clone(), options).map_err(io_error(
                    format!("cannot serve the admin interface on {addr}"),
                ))?;
                tracing::info!("admin interface on http://{local}/sessions (metrics: /metrics)");
                Some(local)
            }
        };
        let idle = engine.options().idle.fresh();
        let runner =
            AgentRunner::start(engine, idle).map_err(io_error("cannot start the engine thread"))?;
        Ok(RunningEngine {
            runner,
            handle,
            sender,
            refs,
            listeners,
            admin,
        })
    }

    /// Sends messages through the sessions, from any thread.
    pub fn sender(&self) -> Sender {
        self.sender.clone()
    }

    /// Commands for the engine (stop, sessions, sequence numbers), from any
    /// thread.
    pub fn handle(&self) -> EngineHandle {
        self.handle.clone()
    }

    /// The [`SessionRef`] of a session the engine started with (its full
    /// name, `FIX.4.4:ISLD->TW[:qualifier]`).
    pub fn session_ref(&self, name: &str) -> Option<SessionRef> {
        self.refs.get(name).copied()
    }

    /// Where the acceptor sessions listen.
    pub fn listener_addrs(&self) -> &[SocketAddr] {
        &self.listeners
    }

    /// Where the admin interface listens, if it runs.
    pub fn admin_addr(&self) -> Option<SocketAddr> {
        self.admin
    }

    /// The engine's metrics, read while it runs without stopping it (see
    /// [`crate::metrics`]): what `GET /metrics` serves, for a caller without
    /// the admin interface.
    pub fn metrics(&self) -> crate::metrics::Metrics {
        self.handle.metrics().clone()
    }

    /// A snapshot of every session (`None` if the engine did not answer
    /// within `timeout`, or at once when called on the engine's thread: see
    /// [`EngineHandle::call`]).
    pub fn sessions(&self, timeout: Duration) -> Option<Vec<SessionInfo>> {
        match self.handle.call(Command::ListSessions, timeout).ok()? {
            Ok(Outcome::Sessions(s)) => Some(s),
            _ => None,
        }
    }

    /// Waits until every session is logged on (`false` if `timeout` passed first).
    pub fn wait_logged_on(&self, timeout: Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        while std::time::Instant::now() < deadline {
            if self
                .sessions(Duration::from_secs(1))
                .is_some_and(|s| s.iter().all(|s| s.logged_on))
            {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    /// Whether the engine's thread has ended (it was stopped, or failed).
    pub fn is_finished(&self) -> bool {
        self.runner.is_finished()
    }

    /// Stops the engine gracefully (Logout on every session, waiting up to
    /// their `LogoutTimeout` for the answers) and gives it back, with its
    /// applications ([`Engine::application`]).
    ///
    /// # Errors
    ///
    /// The engine failed while running or shutting down (the engine is dropped
    /// then; [`stop_keeping_engine`](Self::stop_keeping_engine) keeps it).
    ///
    /// # Panics
    ///
    /// If the engine's thread panicked, the panic carries on here.
    pub fn stop(self) -> io::Result<AppEngine<A>> {
        let (engine, result) = self.stop_keeping_engine();
        result.map(|()| engine)
    }

    /// [`stop`](Self::stop), with the engine (and its applications) given back
    /// whether or not it failed: what an application kept can be read after a
    /// failure too.
    ///
    /// ```
    /// # use peregrine_engine::EngineBuilder;
    /// # use peregrine_session::EchoApp;
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
    ///            SocketAcceptAddress=127.0.0.1\nUseDataDictionary=N\n\
    ///            [SESSION]\nBeginString=FIX.4.4\nSenderCompID=VENUE\nTargetCompID=CLIENT\n";
    /// let venue = EngineBuilder::parse(cfg, "venue.cfg")?.start(|_| EchoApp::new(None))?;
    /// // … later:
    /// let (engine, result) = venue.stop_keeping_engine();
    /// assert!(engine.application("FIX.4.4:VENUE->CLIENT").is_some());
    /// result?; // the failure, if any, after the applications were read
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Panics
    ///
    /// If the engine's thread panicked, the panic carries on here.
    pub fn stop_keeping_engine(self) -> (AppEngine<A>, io::Result<()>) {
        self.handle.stop();
        self.runner.join()
    }

    /// Waits for the engine to stop by itself — its stop flag set
    /// ([`EngineBuilder::stop_flag`], e.g. by a signal handler), a
    /// [`Command::Stop`](crate::Command) from the admin interface, or a
    /// failure — with no polling, and gives it back as [`stop`](Self::stop)
    /// does. What a program's `main` does once its engine is started.
    ///
    /// ```no_run
    /// use std::sync::{atomic::AtomicBool, Arc};
    /// use peregrine_engine::EngineBuilder;
    /// use peregrine_session::EchoApp;
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let stop = Arc::new(AtomicBool::new(false));
    /// // signal_hook::flag::register(SIGTERM, stop.clone())?;
    /// let venue = EngineBuilder::load("venue.cfg")?
    ///     .stop_flag(stop)
    ///     .start(|_| EchoApp::new(None))?;
    /// venue.wait()?; // logs every session out once the flag is set
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`stop`](Self::stop).
    ///
    /// # Panics
    ///
    /// If the engine's thread panicked, the panic carries on here.
    pub fn wait(self) -> io::Result<AppEngine<A>> {
        let (engine, result) = self.runner.join();
        result.map(|()| engine)
    }
}

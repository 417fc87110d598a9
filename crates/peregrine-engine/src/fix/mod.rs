//! The bridge to `peregrine-session`: settings → [`SessionConfig`], stores,
//! dictionaries, and [`FixSession`], a [`Session`] with its application seen as
//! a [`SessionDriver`].

use std::path::PathBuf;
use std::sync::Arc;

use peregrine_codec::value::TimePrecision;
use peregrine_codec::MessageView;
use peregrine_dict::Dictionaries;
use peregrine_session::{
    AdminMessage, AppEvent, AppReject, Application, DailyTime, Days, DisconnectReason, DoNotSend,
    LogoutReason, Outbox, OutgoingMessage, Role, Schedule, SendRefusal, Session, SessionConfig,
    SessionEvent, SessionId, ValidationOptions, Window,
};
use peregrine_store::{FileStore, FileStoreConfig, MemoryStore, MessageStore, StoreError};

use crate::config::{ConfigError, ConnectionType, SessionSettings};
use crate::driver::{DriverEvent, Nanos, SessionDriver};

/// Which message store sessions use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StoreKind {
    /// In memory: sequence numbers and messages are lost when the process ends.
    #[default]
    Memory,
    /// The crash-safe file journal under `FileStorePath`.
    File,
    /// PostgreSQL or SQLite in QuickFIX/J's `JdbcStore` tables (`JdbcURL`,
    /// or QuickFIX/Go's `SQLStoreDriver` and `SQLStoreDataSourceName`).
    Sql,
}

/// The store a session uses: `chosen` when given (`--store`,
/// [`EngineBuilder::store`](crate::EngineBuilder::store)), else the
/// database store where `JdbcURL` or `SQLStoreDriver` is set, the file
/// store where `FileStorePath` is set, and memory elsewhere.
///
/// ```
/// use peregrine_engine::{config::Settings, fix::{store_kind, StoreKind}};
/// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n\
///             FileStorePath=store\n[SESSION]\nBeginString=FIX.4.4\n";
/// let s = &Settings::parse(text, "a.cfg".as_ref())?.sessions[0];
/// assert_eq!(store_kind(s, None), StoreKind::File);
/// assert_eq!(store_kind(s, Some(StoreKind::Memory)), StoreKind::Memory);
/// # Ok::<(), peregrine_engine::ConfigError>(())
/// ```
pub fn store_kind(s: &SessionSettings, chosen: Option<StoreKind>) -> StoreKind {
    chosen.unwrap_or(if s.sql_store.is_some() {
        StoreKind::Sql
    } else if s.file_store_path.is_some() {
        StoreKind::File
    } else {
        StoreKind::Memory
    })
}

/// The directory of a session's file store (`FileStorePath`).
///
/// # Errors
///
/// `FileStorePath` is not set (the error is on the session's `[SESSION]` line).
pub fn file_store_dir(s: &SessionSettings) -> Result<&std::path::Path, ConfigError> {
    s.file_store_path.as_deref().ok_or_else(|| {
        let mut e = s.error("FileStorePath", "missing (needed for the file store)");
        // Not set anywhere: the session's own line says which session.
        e.line = s.line;
        e
    })
}

/// The session's identity from its settings.
pub fn session_id(s: &SessionSettings) -> SessionId {
    let mut id = SessionId::new(&s.begin_string, &s.sender_comp_id, &s.target_comp_id);
    id.qualifier = s.session_qualifier.clone();
    id
}

/// The dictionary files a session's settings name (see [`dictionary_files`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DictionaryFiles {
    /// FIXT.1.1: `TransportDataDictionary` (else `DataDictionary`), with the key
    /// that named it.
    pub transport: Option<(PathBuf, &'static str)>,
    /// `DataDictionary`, or for FIXT.1.1 `AppDataDictionary`, with the key; `None`
    /// for a FIXT.1.1 session that names only `AppDataDictionary.<version>` ones.
    pub app: Option<(PathBuf, &'static str)>,
    /// FIXT.1.1: `AppDataDictionary.<version>` (QuickFIX/J's), which a message of
    /// that ApplVerID is validated with instead of `app`.
    pub versions: Vec<crate::config::VersionDictionary>,
}

/// The dictionary files a session's settings name: `DataDictionary`, or for
/// FIXT.1.1 `TransportDataDictionary` (else `DataDictionary`),
/// `AppDataDictionary` and `AppDataDictionary.<version>`; `None` with
/// `UseDataDictionary=N`.
///
/// ```
/// use peregrine_engine::{config::Settings, fix::dictionary_files};
/// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n\
///             [SESSION]\nBeginString=FIXT.1.1\nDefaultApplVerID=FIX.5.0SP2\n\
///             TransportDataDictionary=/d/FIXT11.xml\nAppDataDictionary=/d/FIX50SP2.xml\n\
///             AppDataDictionary.FIX.4.4=/d/FIX44.xml\n";
/// let s = &Settings::parse(text, "a.cfg".as_ref())?.sessions[0];
/// let files = dictionary_files(s)?.unwrap();
/// assert_eq!(files.versions[0].appl_ver_id, "6");
/// assert_eq!(files.versions[0].path, std::path::Path::new("/d/FIX44.xml"));
/// # Ok::<(), peregrine_engine::ConfigError>(())
/// ```
///
/// # Errors
///
/// `UseDataDictionary=Y` (the default, as in QuickFIX) without a dictionary
/// named: validation would silently be off, so this stops start-up, naming
/// the key; likewise a FIXT.1.1 session without `AppDataDictionary` or an
/// `AppDataDictionary.<version>`.
pub fn dictionary_files(s: &SessionSettings) -> Result<Option<DictionaryFiles>, ConfigError> {
    if !s.use_data_dictionary {
        return Ok(None);
    }
    let missing = |key: &str| {
        s.error(
            key,
            "missing: UseDataDictionary=Y (the default) validates with a dictionary; name one \
             (QuickFIX's are built in: DataDictionary=FIX44.xml, as QuickFIX/J finds it in its \
             jar) or set UseDataDictionary=N",
        )
    };
    if s.begin_string == "FIXT.1.1" {
        let transport = match (&s.transport_data_dictionary, &s.data_dictionary) {
            (Some(p), _) => (p.clone(), "TransportDataDictionary"),
            (None, Some(p)) => (p.clone(), "DataDictionary"),
            (None, None) => return Err(missing("TransportDataDictionary")),
        };
        let app = s
            .app_data_dictionary
            .as_ref()
            .map(|p| (p.clone(), "AppDataDictionary"));
        if app.is_none() && s.app_data_dictionaries.is_empty() {
            let mut e = s.error(
                "AppDataDictionary",
                "missing (a FIXT.1.1 session with a TransportDataDictionary needs one, or \
                 AppDataDictionary.<version> ones)",
            );
            // Not set anywhere: the session's own line says which session.
            e.line = s.line;
            return Err(e);
        }
        return Ok(Some(DictionaryFiles {
            transport: Some(transport),
            app,
            versions: s.app_data_dictionaries.clone(),
        }));
    }
    match &s.data_dictionary {
        Some(p) => Ok(Some(DictionaryFiles {
            transport: None,
            app: Some((p.clone(), "DataDictionary")),
            versions: Vec::new(),
        })),
        None => Err(missing("DataDictionary")),
    }
}

/// Loads the dictionaries a session's settings name (see
/// [`dictionary_files`]); `None` when `UseDataDictionary=N`. Engines built
/// with [`EngineBuilder`](crate::EngineBuilder) share one copy per file
/// through a [`DictionaryCache`](crate::builder::DictionaryCache).
///
/// # Errors
///
/// As [`dictionary_files`], and when a file cannot be read or parsed.
pub fn load_dictionaries(s: &SessionSettings) -> Result<Option<Arc<Dictionaries>>, ConfigError> {
    crate::builder::DictionaryCache::default().load(s)
}

/// The session crate's configuration for these settings (dictionaries given
/// separately, see [`load_dictionaries`]).
///
/// ```
/// use peregrine_engine::{config::Settings, fix::session_config};
/// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=ISLD\nTargetCompID=TW\n\
///             [SESSION]\nBeginString=FIX.4.0\nResetOnLogon=Y\n";
/// let s = &Settings::parse(text, "a.cfg".as_ref())?.sessions[0];
/// let cfg = session_config(s, None);
/// assert!(cfg.reset_on_logon);
/// assert_eq!(cfg.timestamp_precision, peregrine_codec::value::TimePrecision::Seconds);
/// # Ok::<(), peregrine_engine::ConfigError>(())
/// ```
pub fn session_config(
    s: &SessionSettings,
    dictionaries: Option<Arc<Dictionaries>>,
) -> SessionConfig {
    let role = match s.connection_type {
        ConnectionType::Acceptor => Role::Acceptor,
        ConnectionType::Initiator => Role::Initiator,
    };
    let mut c = SessionConfig::new(session_id(s), role);
    c.heartbeat_interval_secs = s.heart_bt_int;
    c.reset_on_logon = s.reset_on_logon;
    c.reset_on_logout = s.reset_on_logout;
    c.reset_on_disconnect = s.reset_on_disconnect;
    c.refresh_on_logon = s.refresh_on_logon;
    c.logon_timeout_secs = s.logon_timeout;
    c.logout_timeout_secs = s.logout_timeout;
    c.check_latency = s.validation.check_latency;
    c.max_latency_secs = s.validation.max_latency_secs;
    c.check_comp_id = s.check_comp_id;
    c.resend_request_chunk_size = s.resend_request_chunk_size;
    c.enable_last_msg_seq_num_processed = s.enable_last_msg_seq_num_processed;
    c.enable_next_expected_msg_seq_num = s.enable_next_expected_msg_seq_num;
    c.default_appl_ver_id = s.default_appl_ver_id.clone();
    c.persist_messages = s.persist_messages;
    if let Some(p) = s.get("TimeStampPrecision") {
        c.timestamp_precision = match p.to_ascii_uppercase().as_str() {
            "SECONDS" => TimePrecision::Seconds,
            "MICROS" => TimePrecision::Micros,
            "NANOS" => TimePrecision::Nanos,
            "PICOS" => TimePrecision::Picos,
            _ => TimePrecision::Millis,
        };
    }
    c.validation = ValidationOptions {
        use_data_dictionary: s.use_data_dictionary,
        settings: s.validation,
    };
    c.dictionaries = dictionaries;
    c.schedule = schedule(s);
    c.reset_seq_time = s.reset_seq_time.map(|t| DailyTime {
        secs: t.0,
        zone: s.time_zone.clone(),
    });
    c.max_message_size = s.max_message_size;
    c.username = s.username.clone();
    c.password = s.password.clone();
    c.max_logon_size = s.max_logon_message_size;
    c.max_inbound_queue_bytes = s.max_inbound_queue_bytes;
    c.max_outbound_bytes = s.slow_consumer_hard_limit;
    c.resend_request_timeout_secs = s.resend_request_timeout;
    c.send_redundant_resend_requests = s.send_redundant_resend_requests;
    c.validate_checksum = s.validate_checksum;
    c.reject_garbled_message = s.reject_garbled_message;
    c.queue_while_logged_out = s.queue_while_logged_out;
    c
}

/// The session window of these settings in their `TimeZone`: daily from `StartTime`
/// to `EndTime` (on `Weekdays` only, if set), or weekly from `StartDay` `StartTime`
/// to `EndDay` `EndTime`, with the logon window of `LogonTime`/`LogoutTime`; `None`
/// when always on.
///
/// ```
/// use peregrine_engine::{config::Settings, fix::schedule};
/// use peregrine_session::{Schedule, TimeZone};
/// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=ISLD\nTargetCompID=TW\n\
///             StartTime=17:00:00\nEndTime=17:00:00\nStartDay=sun\nEndDay=fri\n\
///             TimeZone=America/New_York\n[SESSION]\nBeginString=FIX.4.4\n";
/// let s = &Settings::parse(text, "a.cfg".as_ref())?.sessions[0];
/// let ny = TimeZone::get("America/New_York").unwrap();
/// assert_eq!(schedule(s), Some(Schedule::weekly(0, 17 * 3600, 5, 17 * 3600).in_zone(ny)));
/// # Ok::<(), peregrine_engine::ConfigError>(())
/// ```
pub fn schedule(s: &SessionSettings) -> Option<Schedule> {
    let (start, end) = (s.start_time?, s.end_time?);
    let days = match (s.start_day, s.end_day, s.weekdays) {
        (Some(start), Some(end), _) => Days::Weekly { start, end },
        (_, _, Some(mask)) => Days::Weekdays(mask),
        _ => Days::Daily,
    };
    let mut schedule = Schedule::new(Window {
        start_secs: start.0,
        end_secs: end.0,
        days,
    })
    .in_zone(s.time_zone.clone());
    if let Some((on, off)) = s.logon_time {
        let days = match (days, s.logon_days) {
            (Days::Weekly { .. }, Some((start, end))) => Days::Weekly { start, end },
            (days, _) => days,
        };
        schedule = schedule.with_logon_window(Window {
            start_secs: on.0,
            end_secs: off.0,
            days,
        });
    }
    Some(schedule)
}

/// Opens the store for a session: in memory, the file journal under
/// `FileStorePath` (an error naming the key when it is not set), or the
/// database store (`JdbcURL`, `SQLStoreDriver`).
///
/// # Errors
///
/// For [`StoreKind::File`] only, a [`ConfigError`] on `FileStorePath`: the
/// key is not set (as [`file_store_dir`]); the file store cannot open its
/// directory or files (I/O, or files that are not a Peregrine store); or the
/// journal lost acknowledged data and `FileStoreDamage` is `refuse` (the
/// message says how to start anyway). For [`StoreKind::Sql`], a
/// [`ConfigError`] on `JdbcURL` (or `SQLStoreDataSourceName`) when the
/// database cannot be reached or its tables or row cannot be read.
pub fn open_store(
    s: &SessionSettings,
    kind: StoreKind,
    now: Nanos,
) -> Result<Box<dyn MessageStore + Send>, ConfigError> {
    match kind {
        StoreKind::Memory => Ok(Box::new(MemoryStore::new(now))),
        StoreKind::File => {
            let dir = file_store_dir(s)?;
            let config = FileStoreConfig {
                on_damage: crate::journals::on_damage(s),
                ..FileStoreConfig::with_fsync(crate::journals::fsync_policy(s))
            };
            let store = FileStore::open(dir, &s.session_name(), config, now).map_err(|e| match e {
                StoreError::Damaged { .. } => s.error(
                    "FileStorePath",
                    format!("{e}; to start anyway with the loss reported, set FileStoreDamage=report"),
                ),
                e => s.error("FileStorePath", format!("{}: {e}", dir.display())),
            })?;
            let recovery = store.recovery();
            for loss in &recovery.losses {
                tracing::error!(
                    session = %s.session_name(),
                    "file store {}: {loss}",
                    store.journal_path().display()
                );
            }
            if recovery.uncommitted_bytes > 0 {
                tracing::info!(
                    session = %s.session_name(),
                    "file store: cut off {} bytes of a transaction that was never committed (a crash mid-write; nothing of it was sent)",
                    recovery.uncommitted_bytes
                );
            }
            Ok(Box::new(store))
        }
        StoreKind::Sql => open_sql_store(s, now),
    }
}

/// The session's database store: its row read (or created), the tables
/// created when absent.
#[cfg(feature = "sql-store")]
fn open_sql_store(
    s: &SessionSettings,
    now: Nanos,
) -> Result<Box<dyn MessageStore + Send>, ConfigError> {
    use crate::config::SqlSource;
    use peregrine_store_sql::{Database, SessionKey, SqlStoreConfig, TableName};
    let Some(sql) = &s.sql_store else {
        return Err(s.error("JdbcURL", "missing (needed for the database store)"));
    };
    let database = match &sql.source {
        SqlSource::Jdbc {
            url,
            user,
            password,
        } => Database::from_jdbc_url(url, user.as_deref(), password.as_deref()),
        SqlSource::Go { driver, dsn } => Database::from_go_driver(driver, dsn),
    }
    .map_err(|e| s.error(sql.key, e.to_string()))?;
    // A relative SQLite file is relative to the settings file, as FileStorePath.
    let database = match database {
        Database::Sqlite(p) if p.is_relative() => {
            Database::Sqlite(crate::config::resolve_path(&s.file, &p.to_string_lossy()))
        }
        d => d,
    };
    let table =
        |key: &str, name: &str| TableName::new(name).map_err(|e| s.error(key, e.to_string()));
    let config = SqlStoreConfig {
        sessions_table: table("JdbcStoreSessionsTableName", &sql.sessions_table)?,
        messages_table: table("JdbcStoreMessagesTableName", &sql.messages_table)?,
        default_value: sql.default_value.clone(),
    };
    let mut key = SessionKey::new(&s.begin_string, &s.sender_comp_id, &s.target_comp_id);
    if let Some(q) = &s.session_qualifier {
        key = key.with_qualifier(q);
    }
    database
        .open(key, &config, now)
        .map_err(|e| s.error(sql.key, e.to_string()))
}

#[cfg(not(feature = "sql-store"))]
fn open_sql_store(
    s: &SessionSettings,
    _now: Nanos,
) -> Result<Box<dyn MessageStore + Send>, ConfigError> {
    Err(s.error(
        "JdbcURL",
        "this build has no database store (peregrine-engine's feature sql-store)",
    ))
}

/// A [`Session`] and its application, driven by the engine: every call that may
/// reach the application passes it, so the application hears the connection
/// coming and going ([`AppEvent::Connected`], [`AppEvent::Disconnected`] with why),
/// the session's events, and its callbacks, as the session makes them.
///
/// The application stays reachable, with its own type:
/// [`app`](Self::app)/[`app_mut`](Self::app_mut) while the session runs,
/// [`into_app`](Self::into_app) (or [`into_parts`](Self::into_parts)) once it is
/// done — e.g. to read what it gathered. (Behind a [`BoxedFixSession`] the
/// application is a [`DynApp`], whose type is erased.)
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
    fn send_test_request(&mut self, now: Nanos) -> bool {
        self.session.send_test_request(now, &mut self.app)
    }
    fn is_logged_on(&self) -> bool {
        self.session.is_logged_on()
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
    fn counters(&self) -> Option<&Arc<peregrine_session::metrics::SessionCounters>> {
        Some(self.session.counters())
    }
    fn set_store_observer(&mut self, observer: Arc<dyn peregrine_store::StoreObserver>) {
        self.session.store_mut().set_observer(Some(observer));
    }
}

/// An application that logs what it receives and what happens to the session
/// (with `tracing`: logon, logout with why, connection and session events) and
/// sends nothing: the default for `peregrine initiator`.
///
/// ```
/// use peregrine_engine::fix::{FixSession, LogApp};
/// use peregrine_session::{Role, Session, SessionConfig, SessionId};
/// use peregrine_store::MemoryStore;
///
/// let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "TW", "ISLD"), Role::Initiator);
/// let session = FixSession::new(Session::new(cfg, MemoryStore::new(0), 0), LogApp);
/// # let _ = session;
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct LogApp;

impl Application for LogApp {
    fn on_logon(&mut self, id: &SessionId, _out: &mut Outbox<'_>) {
        tracing::info!(session = %id, "logon");
    }
    fn on_logout(&mut self, id: &SessionId, reason: &LogoutReason<'_>, _out: &mut Outbox<'_>) {
        tracing::info!(session = %id, "logout: {reason}");
    }
    fn on_event(&mut self, id: &SessionId, event: &AppEvent<'_>, _out: &mut Outbox<'_>) {
        // Display escapes the peer's text.
        tracing::info!(session = %id, "{event}");
    }
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        tracing::info!(
            session = %id,
            "received {}",
            crate::log::Escaped(msg.as_bytes())
        );
        Ok(())
    }
}

/// The usual driver: any store, any application, boxed.
pub type BoxedFixSession = FixSession<Box<dyn MessageStore + Send>, DynApp>;

/// A boxed application, usable as an [`Application`].
pub struct DynApp(pub Box<dyn Application + Send>);

impl std::fmt::Debug for DynApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DynApp")
    }
}

impl Application for DynApp {
    fn on_create(&mut self, id: &SessionId) {
        self.0.on_create(id)
    }
    fn on_logon(&mut self, id: &SessionId, out: &mut Outbox<'_>) {
        self.0.on_logon(id, out)
    }
    fn on_logout(&mut self, id: &SessionId, reason: &LogoutReason<'_>, out: &mut Outbox<'_>) {
        self.0.on_logout(id, reason, out)
    }
    fn to_admin(&mut self, msg: &mut AdminMessage<'_>, id: &SessionId) {
        self.0.to_admin(msg, id)
    }
    fn to_app(&mut self, msg: &mut OutgoingMessage<'_>, id: &SessionId) -> Result<(), DoNotSend> {
        self.0.to_app(msg, id)
    }
    fn on_event(&mut self, id: &SessionId, event: &AppEvent<'_>, out: &mut Outbox<'_>) {
        self.0.on_event(id, event, out)
    }
    fn from_admin(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), peregrine_session::RejectLogon> {
        self.0.from_admin(msg, id, out)
    }
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.0.from_app(msg, id, out)
    }
}

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

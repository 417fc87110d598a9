//! Which message store a session uses and opening it: memory, the file
//! journal under `FileStorePath` (with `FileStoreSync` and `FileStoreDamage`),
//! or the database store (`JdbcURL`, `SQLStoreDriver`).

use peregrine_store::{
    FileStore, FileStoreConfig, FsyncPolicy, MemoryStore, MessageStore, OnDamage, StoreError,
};

use crate::config::{ConfigError, SessionSettings, StoreDamage};
use crate::driver::Nanos;

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

/// The fsync policy `FileStoreSync` names.
pub(crate) fn fsync_policy(s: &SessionSettings) -> FsyncPolicy {
    match s.file_store_sync {
        None => FsyncPolicy::EveryCommit,
        Some(u64::MAX) => FsyncPolicy::Never,
        Some(ms) => FsyncPolicy::EveryMillis(ms),
    }
}

/// What `FileStoreDamage` asks for.
pub(crate) fn on_damage(s: &SessionSettings) -> OnDamage {
    match s.file_store_damage {
        StoreDamage::Refuse => OnDamage::Refuse,
        StoreDamage::Report => OnDamage::Report,
    }
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
                on_damage: on_damage(s),
                ..FileStoreConfig::with_fsync(fsync_policy(s))
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

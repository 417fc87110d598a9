//! The database store's keys (issue 29): QuickFIX/J's `JdbcURL`, `JdbcUser`,
//! `JdbcPassword`, `JdbcStoreSessionsTableName`, `JdbcStoreMessagesTableName`,
//! `JdbcSessionIdDefaultPropertyValue` (and `JdbcDriver`, taken and ignored:
//! the URL's scheme says which database), or QuickFIX/Go's `SQLStoreDriver`
//! and `SQLStoreDataSourceName`. Checked here, so that `check-config` names
//! the file, line and key of a bad value.

use std::fmt;

use super::reader::Reader;
use super::ConfigError;

/// The keys, in the order they are documented.
pub(super) const SQL_KEYS: [&str; 9] = [
    "JdbcURL",
    "JdbcDriver",
    "JdbcUser",
    "JdbcPassword",
    "JdbcStoreSessionsTableName",
    "JdbcStoreMessagesTableName",
    "JdbcSessionIdDefaultPropertyValue",
    "SQLStoreDriver",
    "SQLStoreDataSourceName",
];

/// Where the database is, as the settings say it.
#[derive(Clone, PartialEq, Eq)]
pub enum SqlSource {
    /// QuickFIX/J's `JdbcURL` (`jdbc:postgresql://host:port/db`,
    /// `jdbc:sqlite:FILE`), with `JdbcUser` and `JdbcPassword`.
    Jdbc {
        /// `JdbcURL`.
        url: String,
        /// `JdbcUser`.
        user: Option<String>,
        /// `JdbcPassword`.
        password: Option<String>,
    },
    /// QuickFIX/Go's `SQLStoreDriver` (`postgres`, `sqlite3`) and
    /// `SQLStoreDataSourceName`.
    Go {
        /// `SQLStoreDriver`.
        driver: String,
        /// `SQLStoreDataSourceName`.
        dsn: String,
    },
}

impl fmt::Debug for SqlSource {
    /// Leaves passwords out (a URL or DSN may hold one too).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SqlSource::Jdbc { user, .. } => f
                .debug_struct("Jdbc")
                .field("user", user)
                .finish_non_exhaustive(),
            SqlSource::Go { driver, .. } => f
                .debug_struct("Go")
                .field("driver", driver)
                .finish_non_exhaustive(),
        }
    }
}

/// A session's database store: present when `JdbcURL` or `SQLStoreDriver`
/// is set.
///
/// ```
/// use peregrine_engine::config::{Settings, SqlSource};
/// let text = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n\
///             JdbcURL=jdbc:postgresql://127.0.0.1:5432/fix\nJdbcUser=fix\n\
///             JdbcStoreSessionsTableName=fix_sessions\n\
///             [SESSION]\nBeginString=FIX.4.4\n";
/// let s = &Settings::parse(text, "a.cfg".as_ref())?.sessions[0];
/// let sql = s.sql_store.as_ref().unwrap();
/// assert!(matches!(&sql.source, SqlSource::Jdbc { user: Some(u), .. } if u == "fix"));
/// assert_eq!((sql.sessions_table.as_str(), sql.messages_table.as_str()), ("fix_sessions", "messages"));
///
/// // A table name is an SQL identifier, never anything else.
/// let bad = text.replace("fix_sessions", "s;DROP TABLE x");
/// let e = Settings::parse(&bad, "a.cfg".as_ref()).unwrap_err();
/// assert_eq!((e.line, e.key.as_deref()), (7, Some("JdbcStoreSessionsTableName")));
/// # Ok::<(), peregrine_engine::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlStoreSettings {
    /// The database.
    pub source: SqlSource,
    /// `JdbcStoreSessionsTableName` (default `sessions`).
    pub sessions_table: String,
    /// `JdbcStoreMessagesTableName` (default `messages`).
    pub messages_table: String,
    /// `JdbcSessionIdDefaultPropertyValue` (default empty, as QuickFIX/J's).
    pub default_value: String,
    /// The key a failure to reach the database is reported on (`JdbcURL` or
    /// `SQLStoreDataSourceName`).
    pub key: &'static str,
}

/// `[A-Za-z_][A-Za-z0-9_]*`, at most 63 bytes, optionally `schema.table`
/// (the same rule as `peregrine_store_sql::TableName`).
fn is_table_name(name: &str) -> bool {
    name.split('.').count() <= 2
        && name.split('.').all(|p| {
            let b = p.as_bytes();
            !b.is_empty()
                && b.len() <= 63
                && (b[0].is_ascii_alphabetic() || b[0] == b'_')
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
        })
}

pub(super) fn sql_store_settings(r: &Reader) -> Result<Option<SqlStoreSettings>, ConfigError> {
    let (source, key) = match (r.entry("JdbcURL"), r.entry("SQLStoreDriver")) {
        (None, None) => {
            for k in SQL_KEYS {
                if let Some(e) = r.entry(k) {
                    return Err(r.err(e, "set without JdbcURL or SQLStoreDriver".into()));
                }
            }
            return Ok(None);
        }
        (Some(_), Some(e)) => {
            return Err(r.err(e, "JdbcURL is set too: one database store, please".into()))
        }
        (Some(url), None) => (
            SqlSource::Jdbc {
                url: url.value.clone(),
                user: r.string("JdbcUser").filter(|v| !v.is_empty()),
                password: r.string("JdbcPassword").filter(|v| !v.is_empty()),
            },
            "JdbcURL",
        ),
        (None, Some(driver)) => {
            let Some(dsn) = r.entry("SQLStoreDataSourceName") else {
                return Err(r.missing(
                    "SQLStoreDataSourceName",
                    "missing (needed with SQLStoreDriver)",
                ));
            };
            let _ = driver;
            (
                SqlSource::Go {
                    driver: driver.value.clone(),
                    dsn: dsn.value.clone(),
                },
                "SQLStoreDataSourceName",
            )
        }
    };
    let table = |k: &str| -> Result<String, ConfigError> {
        match r.entry(k) {
            None => Ok(r.text_default(k).to_owned()),
            Some(e) if is_table_name(&e.value) => Ok(e.value.clone()),
            Some(e) => Err(r.err(
                e,
                format!(
                    "{:?} is not a table name: letters, digits and '_' (not first a digit), at most 63, optionally schema.table",
                    e.value
                ),
            )),
        }
    };
    let settings = SqlStoreSettings {
        source,
        sessions_table: table("JdbcStoreSessionsTableName")?,
        messages_table: table("JdbcStoreMessagesTableName")?,
        default_value: r
            .string("JdbcSessionIdDefaultPropertyValue")
            .unwrap_or_default(),
        key,
    };
    check_source(r, &settings)?;
    Ok(Some(settings))
}

/// The URL or data source name parses, and names a database this build has.
#[cfg(feature = "sql-store")]
fn check_source(r: &Reader, s: &SqlStoreSettings) -> Result<(), ConfigError> {
    let parsed = match &s.source {
        SqlSource::Jdbc {
            url,
            user,
            password,
        } => {
            peregrine_store_sql::Database::from_jdbc_url(url, user.as_deref(), password.as_deref())
        }
        SqlSource::Go { driver, dsn } => peregrine_store_sql::Database::from_go_driver(driver, dsn),
    };
    match parsed {
        Ok(_) => Ok(()),
        Err(e) => {
            let key = match (&s.source, e.to_string().starts_with("SQLStoreDriver")) {
                (SqlSource::Go { .. }, true) => "SQLStoreDriver",
                _ => s.key,
            };
            let line = r.entry(key).expect("set");
            Err(r.err(line, e.to_string()))
        }
    }
}

#[cfg(not(feature = "sql-store"))]
fn check_source(r: &Reader, s: &SqlStoreSettings) -> Result<(), ConfigError> {
    let line = r.entry(s.key).expect("set");
    Err(r.err(
        line,
        "this build has no database store (peregrine-engine's feature sql-store)".into(),
    ))
}

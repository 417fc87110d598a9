//! Which database a store goes to: QuickFIX/J's `JdbcURL` (with `JdbcUser`,
//! `JdbcPassword`) or QuickFIX/Go's `SQLStoreDriver` and
//! `SQLStoreDataSourceName`.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use peregrine_store::{MessageStore, StoreError};

use crate::key::{SessionKey, SqlStoreConfig};
use crate::{PostgresStore, SqliteStore};

/// A database to keep sessions in.
#[derive(Clone)]
pub enum Database {
    /// A PostgreSQL server (host, port, database, user, password, ...).
    Postgres(Box<postgres::Config>),
    /// An SQLite database file.
    Sqlite(PathBuf),
}

impl fmt::Debug for Database {
    /// Leaves the password out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Database::Postgres(c) => f
                .debug_struct("Postgres")
                .field("hosts", &c.get_hosts())
                .field("ports", &c.get_ports())
                .field("dbname", &c.get_dbname())
                .field("user", &c.get_user())
                .finish_non_exhaustive(),
            Database::Sqlite(p) => f.debug_tuple("Sqlite").field(p).finish(),
        }
    }
}

/// A database URL or data source name that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatabaseUrlError(String);

impl fmt::Display for DatabaseUrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DatabaseUrlError {}

fn err(msg: impl Into<String>) -> DatabaseUrlError {
    DatabaseUrlError(msg.into())
}

fn postgres_config(text: &str, what: &str) -> Result<postgres::Config, DatabaseUrlError> {
    postgres::Config::from_str(&crate::tls::normalize_sslmode(text)).map_err(|e| {
        err(format!(
            "{what}: {e} (the PostgreSQL client takes host, port, dbname, user, password, \
             sslmode, connect_timeout, application_name, options ...; JDBC-only parameters are not taken)"
        ))
    })
}

fn sqlite_path(rest: &str) -> Result<PathBuf, DatabaseUrlError> {
    // `sqlite:///abs/path` as a URL, `file:path?options` as go-sqlite3 takes it.
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let rest = rest.strip_prefix("file:").unwrap_or(rest);
    let path = rest.split('?').next().unwrap_or_default();
    if path.is_empty() || path == ":memory:" {
        return Err(err(
            "an SQLite store needs a database file (an in-memory database would lose the sessions)",
        ));
    }
    Ok(PathBuf::from(path))
}

impl Database {
    /// QuickFIX/J's `JdbcURL`: `jdbc:postgresql://host:port/db?...` or
    /// `jdbc:sqlite:/path/to/file.db`, with or without `jdbc:`
    /// (`postgresql://`, `postgres://`, `sqlite:`). `user` and `password`
    /// (`JdbcUser`, `JdbcPassword`) win over the URL's.
    ///
    /// # Errors
    ///
    /// An unknown scheme, a URL the PostgreSQL client does not take, no user
    /// for PostgreSQL, or an SQLite URL without a file.
    ///
    /// ```
    /// use peregrine_store_sql::Database;
    /// let db = Database::from_jdbc_url("jdbc:postgresql://127.0.0.1:5432/fix", Some("fix"), None)?;
    /// assert!(matches!(db, Database::Postgres(_)));
    /// let db = Database::from_jdbc_url("jdbc:sqlite:/var/lib/fix/store.db", None, None)?;
    /// assert!(matches!(db, Database::Sqlite(p) if p.ends_with("store.db")));
    /// assert!(Database::from_jdbc_url("jdbc:mysql://db/fix", None, None).is_err());
    /// # Ok::<(), peregrine_store_sql::DatabaseUrlError>(())
    /// ```
    pub fn from_jdbc_url(
        url: &str,
        user: Option<&str>,
        password: Option<&str>,
    ) -> Result<Database, DatabaseUrlError> {
        let rest = url.strip_prefix("jdbc:").unwrap_or(url);
        if let Some(path) = rest.strip_prefix("sqlite:") {
            return sqlite_path(path).map(Database::Sqlite);
        }
        if !(rest.starts_with("postgresql://") || rest.starts_with("postgres://")) {
            return Err(err(format!(
                "JdbcURL {url:?}: only jdbc:postgresql://host:port/database and jdbc:sqlite:FILE are supported"
            )));
        }
        let mut config = postgres_config(rest, "JdbcURL")?;
        if let Some(user) = user {
            config.user(user);
        }
        if let Some(password) = password {
            config.password(password);
        }
        if config.get_user().is_none() {
            return Err(err("no PostgreSQL user: set JdbcUser, or user= in JdbcURL"));
        }
        Ok(Database::Postgres(Box::new(config)))
    }

    /// QuickFIX/Go's `SQLStoreDriver` (`postgres`, `pgx` or `sqlite3`) and
    /// `SQLStoreDataSourceName` (for PostgreSQL a URL or `key=value ...`
    /// string, as lib/pq takes it; for SQLite a file name, `file:` allowed).
    ///
    /// # Errors
    ///
    /// Another driver (QuickFIX/Go's `mysql`, say), or a data source name
    /// that cannot be used.
    ///
    /// ```
    /// use peregrine_store_sql::Database;
    /// let db = Database::from_go_driver("postgres", "host=127.0.0.1 port=5432 user=fix dbname=fix")?;
    /// assert!(matches!(db, Database::Postgres(_)));
    /// let db = Database::from_go_driver("sqlite3", "file:store.db?cache=shared")?;
    /// assert!(matches!(db, Database::Sqlite(p) if p.to_str() == Some("store.db")));
    /// # Ok::<(), peregrine_store_sql::DatabaseUrlError>(())
    /// ```
    pub fn from_go_driver(driver: &str, dsn: &str) -> Result<Database, DatabaseUrlError> {
        match driver {
            "postgres" | "pgx" => {
                let config = postgres_config(dsn, "SQLStoreDataSourceName")?;
                if config.get_user().is_none() {
                    return Err(err("SQLStoreDataSourceName: no user (user=...)"));
                }
                Ok(Database::Postgres(Box::new(config)))
            }
            "sqlite3" | "sqlite" => sqlite_path(dsn).map(Database::Sqlite),
            other => Err(err(format!(
                "SQLStoreDriver {other:?}: postgres and sqlite3 are supported"
            ))),
        }
    }

    /// Opens `key`'s store in this database (see [`SqliteStore::open`] and
    /// [`PostgresStore::connect`]).
    ///
    /// # Errors
    ///
    /// As those.
    pub fn open(
        &self,
        key: SessionKey,
        config: &SqlStoreConfig,
        now: i64,
    ) -> Result<Box<dyn MessageStore + Send>, StoreError> {
        Ok(match self {
            Database::Postgres(c) => Box::new(PostgresStore::connect(c, key, config, now)?),
            Database::Sqlite(p) => Box::new(SqliteStore::open(p, key, config, now)?),
        })
    }
}

//! Message stores for Peregrine on PostgreSQL and SQLite, in QuickFIX/J's
//! `JdbcStore` table layout.
//!
//! [`PostgresStore`] and [`SqliteStore`] implement
//! [`MessageStore`](peregrine_store::MessageStore) over QuickFIX/J's two
//! tables, `sessions` (a row per session: `creation_time`,
//! `incoming_seqnum`, `outgoing_seqnum`) and `messages` (a row per stored
//! message: `msgseqnum`, `message`), keyed by the session's eight
//! identity columns ([`SessionKey`]). An existing QuickFIX/J database is
//! read and continued as it is; absent tables are created by the migration
//! in `migrations/`.
//!
//! Unlike QuickFIX/J's `JdbcStore`, which writes a row per stored message
//! and updates the session's row on every sequence number increment, each
//! on a connection of its own, the numbers and messages change in memory
//! and [`commit`](peregrine_store::MessageStore::commit) writes them as one
//! database transaction (see [`SqlStore`]).
//!
//! Commit runs synchronously on the thread that calls it: a slow database
//! slows the caller (in the engine, the reactor thread and every session on
//! it). Which database is configured with [`Database`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod database;
mod key;
mod postgres;
mod sql;
mod sqlite;
mod store;
mod text;
mod tls;

pub use crate::postgres::{Postgres, PostgresStore};
pub use database::{Database, DatabaseUrlError};
pub use key::{InvalidTableName, SessionKey, SqlStoreConfig, TableName};
pub use sqlite::{Sqlite, SqliteStore};
pub use store::SqlStore;
pub use tls::ROOT_CERT_ENV;

/// The PostgreSQL client's connection settings ([`Database::Postgres`]).
pub use ::postgres::Config as PostgresConfig;

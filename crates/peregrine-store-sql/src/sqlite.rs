//! [`SqliteStore`]: the QuickFIX/J layout in an SQLite database file.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use peregrine_store::StoreError;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::key::{SessionKey, SqlStoreConfig};
use crate::sql::{key_values, key_where, migration, question, KEY_COLUMNS};
use crate::store::{Backend, SessionRow, SqlStore};
use crate::text::{decode, encode, format_time, parse_time};

const MIGRATION: &str = include_str!("../migrations/0001_quickfixj_layout.sqlite.sql");

/// How long a statement waits for another connection's lock (QuickFIX/J or
/// another store on the same file) before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A [`MessageStore`](peregrine_store::MessageStore) in an SQLite file, in
/// QuickFIX/J's `JdbcStore` layout (see [`SqlStore`]). The file is opened in
/// WAL mode with `synchronous=FULL`: a commit is durable when it returns.
///
/// ```
/// use peregrine_store::{MessageStore, SEQ_END};
/// use peregrine_store_sql::{SessionKey, SqlStoreConfig, SqliteStore};
///
/// let dir = tempfile::tempdir()?;
/// let db = dir.path().join("fix.db");
/// let key = SessionKey::new("FIX.4.4", "BANK", "VENUE");
/// let config = SqlStoreConfig::default();
/// let mut store = SqliteStore::open(&db, key.clone(), &config, 0)?;
/// store.store(1, b"8=FIX.4.4\x0135=D\x01")?;
/// store.incr_next_sender_seq()?;
/// store.commit()?; // one transaction: the message and both numbers
/// drop(store);
///
/// let mut store = SqliteStore::open(&db, key, &config, 0)?;
/// assert_eq!(store.next_sender_seq(), 2);
/// let mut seen = Vec::new();
/// store.for_each_in_range(1, SEQ_END, &mut |seq, _| seen.push(seq))?;
/// assert_eq!(seen, [1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type SqliteStore = SqlStore<Sqlite>;

/// The SQLite side of a [`SqliteStore`]: one connection.
pub struct Sqlite {
    conn: Connection,
    key: [String; 8],
    sql: Statements,
    text: String,
    bytes: Vec<u8>,
}

struct Statements {
    select_row: String,
    insert_row: String,
    upsert_message: String,
    update_numbers: String,
    delete_messages: String,
    reset_row: String,
    select_range: String,
}

fn db_error(context: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
    move |e| StoreError::Database {
        context,
        source: Box::new(e),
    }
}

impl SqlStore<Sqlite> {
    /// Opens (creating when absent) the database file `path`, creates the
    /// tables when they are absent, and reads the session's row (inserting
    /// it, created at `now`, when absent).
    ///
    /// # Errors
    ///
    /// [`StoreError::Database`] when the file cannot be opened, the tables
    /// cannot be created, or the row cannot be read or inserted.
    pub fn open(
        path: &Path,
        key: SessionKey,
        config: &SqlStoreConfig,
        now: i64,
    ) -> Result<Self, StoreError> {
        let conn = Connection::open(path).map_err(db_error("open the SQLite database"))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(db_error("set busy_timeout"))?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(db_error("set journal_mode=WAL"))?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(db_error("set synchronous=FULL"))?;
        conn.execute_batch(&migration(MIGRATION, config))
            .map_err(db_error("create the QuickFIX/J tables"))?;
        let backend = Sqlite {
            conn,
            key: key.columns(&config.default_value).map(str::to_owned),
            sql: statements(config),
            text: String::new(),
            bytes: Vec::new(),
        };
        SqlStore::with_backend(backend, now)
    }
}

fn statements(config: &SqlStoreConfig) -> Statements {
    let (s, m) = (
        config.sessions_table.as_str(),
        config.messages_table.as_str(),
    );
    let key = key_where(question);
    Statements {
        select_row: format!(
            "SELECT creation_time, incoming_seqnum, outgoing_seqnum FROM {s} WHERE {key}"
        ),
        insert_row: format!(
            "INSERT INTO {s} ({KEY_COLUMNS}, creation_time, incoming_seqnum, outgoing_seqnum) \
             VALUES ({}, ?9, 1, 1) ON CONFLICT DO NOTHING",
            key_values(question)
        ),
        upsert_message: format!(
            "INSERT INTO {m} ({KEY_COLUMNS}, msgseqnum, message) VALUES ({}, ?9, ?10) \
             ON CONFLICT ({KEY_COLUMNS}, msgseqnum) DO UPDATE SET message = excluded.message",
            key_values(question)
        ),
        update_numbers: format!(
            "UPDATE {s} SET incoming_seqnum = ?9, outgoing_seqnum = ?10 WHERE {key}"
        ),
        delete_messages: format!("DELETE FROM {m} WHERE {key}"),
        reset_row: format!(
            "UPDATE {s} SET creation_time = ?9, incoming_seqnum = 1, outgoing_seqnum = 1 WHERE {key}"
        ),
        select_range: format!(
            "SELECT msgseqnum, message FROM {m} WHERE {key} AND msgseqnum BETWEEN ?9 AND ?10 \
             ORDER BY msgseqnum"
        ),
    }
}

fn missing_row() -> StoreError {
    StoreError::Database {
        context: "update the session's row",
        source: "the session's row in the sessions table is gone (deleted by someone else?)".into(),
    }
}

impl Sqlite {
    fn read_row(&self) -> Result<Option<SessionRow>, StoreError> {
        let k = &self.key;
        self.conn
            .prepare_cached(&self.sql.select_row)
            .and_then(|mut st| {
                st.query_row(
                    params![k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7]],
                    |r| {
                        let time: rusqlite::types::Value = r.get(0)?;
                        Ok((time, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
                    },
                )
                .optional()
            })
            .map_err(db_error("read the session's row"))?
            .map(|(time, incoming, outgoing)| {
                let creation_time = match &time {
                    rusqlite::types::Value::Text(t) => parse_time(t),
                    rusqlite::types::Value::Integer(ms) => ms.checked_mul(1_000_000),
                    _ => None,
                }
                .ok_or_else(|| StoreError::Database {
                    context: "read the session's row",
                    source: format!("creation_time {time:?} is not a time").into(),
                })?;
                let seq = |v: i64| {
                    u64::try_from(v)
                        .ok()
                        .filter(|&v| v >= 1)
                        .ok_or_else(|| StoreError::Database {
                            context: "read the session's row",
                            source: format!("sequence number {v} is not a FIX sequence number")
                                .into(),
                        })
                };
                Ok(SessionRow {
                    creation_time,
                    incoming: seq(incoming)?,
                    outgoing: seq(outgoing)?,
                })
            })
            .transpose()
    }
}

impl Backend for Sqlite {
    fn load_or_create(&mut self, now: i64) -> Result<SessionRow, StoreError> {
        if let Some(row) = self.read_row()? {
            return Ok(row);
        }
        let k = &self.key;
        let inserted = self
            .conn
            .execute(
                &self.sql.insert_row,
                params![
                    k[0],
                    k[1],
                    k[2],
                    k[3],
                    k[4],
                    k[5],
                    k[6],
                    k[7],
                    format_time(now)
                ],
            )
            .map_err(db_error("insert the session's row"))?;
        if inserted == 1 {
            // Ours: the time exactly as given (the column keeps microseconds).
            return Ok(SessionRow {
                creation_time: now,
                incoming: 1,
                outgoing: 1,
            });
        }
        self.read_row()?.ok_or_else(missing_row) // inserted by another at the same time
    }

    fn commit(
        &mut self,
        messages: &BTreeMap<u64, Vec<u8>>,
        incoming: i32,
        outgoing: i32,
    ) -> Result<(), StoreError> {
        let k = &self.key;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db_error("begin the commit"))?;
        {
            let mut upsert = tx
                .prepare_cached(&self.sql.upsert_message)
                .map_err(db_error("prepare the message upsert"))?;
            for (&seq, msg) in messages {
                encode(msg, &mut self.text);
                upsert
                    .execute(params![
                        k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], seq as i64, self.text
                    ])
                    .map_err(db_error("store a message"))?;
            }
        }
        let updated = tx
            .prepare_cached(&self.sql.update_numbers)
            .and_then(|mut st| {
                st.execute(params![
                    k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], incoming, outgoing
                ])
            })
            .map_err(db_error("update the sequence numbers"))?;
        if updated != 1 {
            return Err(missing_row()); // the transaction rolls back as it drops
        }
        tx.commit().map_err(db_error("commit"))
    }

    fn reset(&mut self, creation_time: i64) -> Result<(), StoreError> {
        let k = &self.key;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db_error("begin the reset"))?;
        tx.execute(
            &self.sql.delete_messages,
            params![k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7]],
        )
        .map_err(db_error("delete the session's messages"))?;
        let updated = tx
            .execute(
                &self.sql.reset_row,
                params![
                    k[0],
                    k[1],
                    k[2],
                    k[3],
                    k[4],
                    k[5],
                    k[6],
                    k[7],
                    format_time(creation_time)
                ],
            )
            .map_err(db_error("reset the session's row"))?;
        if updated != 1 {
            return Err(missing_row());
        }
        tx.commit().map_err(db_error("commit the reset"))
    }

    fn for_each(
        &mut self,
        begin: i32,
        end: i32,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError> {
        let k = &self.key;
        let mut st = self
            .conn
            .prepare_cached(&self.sql.select_range)
            .map_err(db_error("prepare the range read"))?;
        let mut rows = st
            .query(params![
                k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], begin, end
            ])
            .map_err(db_error("read messages"))?;
        while let Some(row) = rows.next().map_err(db_error("read messages"))? {
            let seq: i64 = row.get(0).map_err(db_error("read messages"))?;
            let text = row
                .get_ref(1)
                .and_then(|v| Ok(v.as_str()?))
                .map_err(db_error("read messages"))?;
            decode(seq as u64, text, &mut self.bytes)?;
            visitor(seq as u64, &self.bytes);
        }
        Ok(())
    }
}

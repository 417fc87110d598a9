//! [`PostgresStore`]: the QuickFIX/J layout in a PostgreSQL database.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use peregrine_store::StoreError;
use postgres::fallible_iterator::FallibleIterator;
use postgres::types::{ToSql, Type};
use postgres::{Client, Config, NoTls, Statement};

use crate::key::{SessionKey, SqlStoreConfig};
use crate::sql::{dollar, key_values, key_where, migration, KEY_COLUMNS};
use crate::store::{Backend, SessionRow, SqlStore};
use crate::text::{decode, encode};

const MIGRATION: &str = include_str!("../migrations/0001_quickfixj_layout.postgres.sql");

/// How long connecting may take when the URL does not say
/// (`connect_timeout`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A [`MessageStore`](peregrine_store::MessageStore) in PostgreSQL, in
/// QuickFIX/J's `JdbcStore` layout (see [`SqlStore`]), over one connection
/// of its own.
///
/// A commit is one statement, so one round trip and one transaction: the
/// messages go in through `unnest` of two arrays (`INSERT ... ON CONFLICT
/// DO UPDATE`) in a data-modifying `WITH`, whose outer `UPDATE` writes both
/// sequence numbers. A connection that fails is dropped; the next operation
/// connects again (once; its error is returned if that fails too).
/// With `sslmode=require` in the URL (or libpq's `verify-ca`,
/// `verify-full`) the connection is TLS, the server's certificate and name
/// verified against Mozilla's roots and the certificates of the file
/// `PGSSLROOTCERT` names; otherwise it is plain TCP.
pub type PostgresStore = SqlStore<Postgres>;

/// The PostgreSQL side of a [`PostgresStore`].
pub struct Postgres {
    config: Config,
    conn: Option<Connection>,
    key: [String; 8],
    sql: Sql,
    texts: Vec<String>,
    seqs: Vec<i32>,
    bytes: Vec<u8>,
}

struct Sql {
    migration: String,
    select_row: String,
    insert_row: String,
    commit: String,
    reset: String,
    select_range: String,
}

struct Connection {
    client: Client,
    select_row: Statement,
    commit: Statement,
    select_range: Statement,
}

/// The client's error with its causes: its own text alone is often just
/// "db error" (the server's message is in the cause).
fn db_error(context: &'static str) -> impl FnOnce(postgres::Error) -> StoreError {
    move |e| {
        let mut text = e.to_string();
        let mut cause = std::error::Error::source(&e);
        while let Some(c) = cause {
            text.push_str(": ");
            text.push_str(&c.to_string());
            cause = c.source();
        }
        StoreError::Database {
            context,
            source: text.into(),
        }
    }
}

/// The key columns' types, then what follows them in each statement.
const KEY_TYPES: [Type; 8] = [
    Type::BPCHAR,
    Type::VARCHAR,
    Type::VARCHAR,
    Type::VARCHAR,
    Type::VARCHAR,
    Type::VARCHAR,
    Type::VARCHAR,
    Type::VARCHAR,
];

fn types(more: &[Type]) -> Vec<Type> {
    KEY_TYPES.iter().chain(more).cloned().collect()
}

impl SqlStore<Postgres> {
    /// Connects to the database `config` names, creates the tables when
    /// they are absent, and reads the session's row (inserting it, created
    /// at `now`, when absent).
    ///
    /// # Errors
    ///
    /// [`StoreError::Database`] when connecting, creating the tables or
    /// reading or inserting the row fails.
    pub fn connect(
        config: &Config,
        key: SessionKey,
        store: &SqlStoreConfig,
        now: i64,
    ) -> Result<Self, StoreError> {
        let mut config = config.clone();
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let backend = Postgres {
            config,
            conn: None,
            key: key.columns(&store.default_value).map(str::to_owned),
            sql: statements(store),
            texts: Vec::new(),
            seqs: Vec::new(),
            bytes: Vec::new(),
        };
        SqlStore::with_backend(backend, now)
    }

    /// Whether the store holds a working connection now (it connects again
    /// on its next operation when not).
    pub fn is_connected(&self) -> bool {
        self.backend()
            .conn
            .as_ref()
            .is_some_and(|c| !c.client.is_closed())
    }
}

fn statements(config: &SqlStoreConfig) -> Sql {
    let (s, m) = (
        config.sessions_table.as_str(),
        config.messages_table.as_str(),
    );
    let key = key_where(dollar);
    let values = key_values(dollar);
    Sql {
        migration: migration(MIGRATION, config),
        select_row: format!(
            "SELECT creation_time, incoming_seqnum, outgoing_seqnum FROM {s} WHERE {key}"
        ),
        insert_row: format!(
            "INSERT INTO {s} ({KEY_COLUMNS}, creation_time, incoming_seqnum, outgoing_seqnum) \
             VALUES ({values}, $9, 1, 1) ON CONFLICT DO NOTHING"
        ),
        commit: format!(
            "WITH stored AS (\
               INSERT INTO {m} ({KEY_COLUMNS}, msgseqnum, message) \
               SELECT {values}, t.seq, t.msg FROM unnest($11::int4[], $12::text[]) AS t(seq, msg) \
               ON CONFLICT ({KEY_COLUMNS}, msgseqnum) DO UPDATE SET message = excluded.message) \
             UPDATE {s} SET incoming_seqnum = $9, outgoing_seqnum = $10 WHERE {key}"
        ),
        reset: format!(
            "WITH deleted AS (DELETE FROM {m} WHERE {key}) \
             UPDATE {s} SET creation_time = $9, incoming_seqnum = 1, outgoing_seqnum = 1 WHERE {key}"
        ),
        select_range: format!(
            "SELECT msgseqnum, message FROM {m} WHERE {key} AND msgseqnum BETWEEN $9 AND $10 \
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

fn to_system_time(nanos: i64) -> SystemTime {
    let abs = Duration::from_nanos(nanos.unsigned_abs());
    if nanos >= 0 {
        UNIX_EPOCH + abs
    } else {
        UNIX_EPOCH - abs
    }
}

fn from_system_time(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_nanos()).unwrap_or(i64::MAX),
    }
}

/// The live connection, connecting (and preparing) first if there is none
/// or the last one closed.
fn live<'a>(
    conn: &'a mut Option<Connection>,
    config: &Config,
    sql: &Sql,
) -> Result<&'a mut Connection, StoreError> {
    if conn.as_ref().is_some_and(|c| c.client.is_closed()) {
        *conn = None;
    }
    if let Some(c) = conn {
        return Ok(c);
    }
    let connected = match crate::tls::connector(config.get_ssl_mode())? {
        Some(tls) => config.connect(tls),
        None => config.connect(NoTls),
    };
    let mut client = connected.map_err(db_error("connect to PostgreSQL"))?;
    client
        .batch_execute(&sql.migration)
        .map_err(db_error("create the QuickFIX/J tables"))?;
    let prepare = |client: &mut Client, text: &str, types: &[Type]| {
        client
            .prepare_typed(text, types)
            .map_err(db_error("prepare statements"))
    };
    let select_row = prepare(&mut client, &sql.select_row, &KEY_TYPES)?;
    let commit = prepare(
        &mut client,
        &sql.commit,
        &types(&[Type::INT4, Type::INT4, Type::INT4_ARRAY, Type::TEXT_ARRAY]),
    )?;
    let select_range = prepare(
        &mut client,
        &sql.select_range,
        &types(&[Type::INT4, Type::INT4]),
    )?;
    Ok(conn.insert(Connection {
        client,
        select_row,
        commit,
        select_range,
    }))
}

impl Postgres {
    /// Runs `op` on the live connection with the key's eight values; a
    /// connection that failed under it is dropped, so the next operation
    /// connects again.
    fn with_conn<T>(
        &mut self,
        op: impl FnOnce(&mut Connection, &[&(dyn ToSql + Sync); 8]) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let Postgres {
            config,
            conn,
            key,
            sql,
            ..
        } = self;
        let k: [&(dyn ToSql + Sync); 8] = [
            &key[0], &key[1], &key[2], &key[3], &key[4], &key[5], &key[6], &key[7],
        ];
        let c = live(conn, config, sql)?;
        let result = op(c, &k);
        if result.is_err() && c.client.is_closed() {
            *conn = None;
        }
        result
    }

    fn read_row(&mut self) -> Result<Option<SessionRow>, StoreError> {
        self.with_conn(|c, k| {
            let row = c
                .client
                .query_opt(&c.select_row, k)
                .map_err(db_error("read the session's row"))?;
            row.map(|r| {
                let time: SystemTime = r.try_get(0).map_err(db_error("read creation_time"))?;
                let seq = |i: usize| -> Result<u64, StoreError> {
                    let v: i32 = r.try_get(i).map_err(db_error("read a sequence number"))?;
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
                    creation_time: from_system_time(time),
                    incoming: seq(1)?,
                    outgoing: seq(2)?,
                })
            })
            .transpose()
        })
    }
}

impl Backend for Postgres {
    fn load_or_create(&mut self, now: i64) -> Result<SessionRow, StoreError> {
        if let Some(row) = self.read_row()? {
            return Ok(row);
        }
        let sql = self.sql.insert_row.clone();
        let time = to_system_time(now);
        let inserted = self.with_conn(|c, k| {
            let mut params: Vec<&(dyn ToSql + Sync)> = k.to_vec();
            params.push(&time);
            // Typed as the columns are (a bare $9 would be taken as text).
            let st = c
                .client
                .prepare_typed(&sql, &types(&[Type::TIMESTAMP]))
                .map_err(db_error("insert the session's row"))?;
            c.client
                .execute(&st, &params)
                .map_err(db_error("insert the session's row"))
        })?;
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
        let mut texts = std::mem::take(&mut self.texts);
        let mut seqs = std::mem::take(&mut self.seqs);
        texts.resize_with(messages.len(), String::new);
        seqs.clear();
        for ((&seq, msg), text) in messages.iter().zip(texts.iter_mut()) {
            seqs.push(seq as i32); // checked against the column's range by store()
            encode(msg, text);
        }
        let result = self.with_conn(|c, k| {
            let mut params: Vec<&(dyn ToSql + Sync)> = k.to_vec();
            params.extend([&incoming as &(dyn ToSql + Sync), &outgoing, &seqs, &texts]);
            let updated = c
                .client
                .execute(&c.commit, &params)
                .map_err(db_error("commit"))?;
            if updated == 1 {
                Ok(())
            } else {
                Err(missing_row())
            }
        });
        texts.truncate(64); // keep a few buffers warm, not a burst's worth
        self.texts = texts;
        self.seqs = seqs;
        result
    }

    fn reset(&mut self, creation_time: i64) -> Result<(), StoreError> {
        let sql = self.sql.reset.clone();
        let time = to_system_time(creation_time);
        self.with_conn(|c, k| {
            let mut params: Vec<&(dyn ToSql + Sync)> = k.to_vec();
            params.push(&time);
            let st = c
                .client
                .prepare_typed(&sql, &types(&[Type::TIMESTAMP]))
                .map_err(db_error("reset"))?;
            match c.client.execute(&st, &params).map_err(db_error("reset"))? {
                1 => Ok(()),
                _ => Err(missing_row()),
            }
        })
    }

    fn for_each(
        &mut self,
        begin: i32,
        end: i32,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError> {
        let mut bytes = std::mem::take(&mut self.bytes);
        let result = self.with_conn(|c, k| {
            let mut params: Vec<&(dyn ToSql + Sync)> = k.to_vec();
            params.extend([&begin as &(dyn ToSql + Sync), &end]);
            // Streamed: one row in memory at a time, whatever the range.
            let mut rows = c
                .client
                .query_raw(&c.select_range, params)
                .map_err(db_error("read messages"))?;
            while let Some(row) = rows.next().map_err(db_error("read messages"))? {
                let seq: i32 = row.try_get(0).map_err(db_error("read messages"))?;
                let text: &str = row.try_get(1).map_err(db_error("read messages"))?;
                decode(seq as u64, text, &mut bytes)?;
                visitor(seq as u64, &bytes);
            }
            Ok(())
        });
        self.bytes = bytes;
        result
    }
}

//! `SqliteStore`: the `MessageStore` contract shared with the memory and
//! file stores, persistence across reopening, and QuickFIX/J's layout.

mod support;

use peregrine_store::contract::T0;
use peregrine_store_sql::{SessionKey, SqlStoreConfig, SqliteStore, TableName};

fn fresh_sqlite() -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let key = SessionKey::new("FIX.4.4", "BANK", "VENUE");
    let s = SqliteStore::open(
        &dir.path().join("fix.db"),
        key,
        &SqlStoreConfig::default(),
        T0,
    )
    .unwrap();
    (dir, s)
}

peregrine_store::contract_suite!(contract, fresh_sqlite());

#[test]
fn persistence() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fix.db");
    support::cases::all(|target| {
        let key = SessionKey::new("FIX.4.4", "BANK", target);
        SqliteStore::open(&db, key, &SqlStoreConfig::default(), T0).unwrap()
    });
}

#[test]
fn quickfixj_rows_with_custom_tables_and_default_value() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fix.db");
    let config = SqlStoreConfig {
        sessions_table: TableName::new("qf_sessions").unwrap(),
        messages_table: TableName::new("qf_messages").unwrap(),
        default_value: "not_null".into(),
    };
    let key = SessionKey::new("FIXT.1.1", "BANK", "VENUE").with_qualifier("q1");
    let mut s = SqliteStore::open(&db, key, &config, T0).unwrap();
    use peregrine_store::MessageStore;
    s.store(1, b"8=FIXT.1.1\x01\xA5").unwrap();
    s.set_next_sender_seq(2).unwrap();
    s.set_next_target_seq(7).unwrap();
    s.commit().unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let row: (String, String, String, String, String, i64, i64) = conn
        .query_row(
            "SELECT beginstring, sendersubid, targetlocid, session_qualifier, creation_time, \
             incoming_seqnum, outgoing_seqnum FROM qf_sessions",
            [],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                ))
            },
        )
        .unwrap();
    assert_eq!(
        row,
        (
            "FIXT.1.1".into(),
            "not_null".into(),
            "not_null".into(),
            "q1".into(),
            "2023-11-14 22:13:20.123456".into(),
            7,
            2
        )
    );
    let message: String = conn
        .query_row(
            "SELECT message FROM qf_messages WHERE msgseqnum = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        message, "8=FIXT.1.1\u{1}\u{A5}",
        "one character per byte (ISO-8859-1)"
    );
    let count: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name IN ('sessions', 'messages')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(count, 0, "only the configured tables are created");
}

//! The database store from settings (issue 29): `JdbcURL=jdbc:sqlite:FILE`
//! and QuickFIX/Go's `SQLStoreDriver`/`SQLStoreDataSourceName` open a store
//! that keeps what is committed; bad values stop start-up naming file, line
//! and key. (PostgreSQL itself: peregrine-store-sql's tests, against a
//! server they start.)
#![cfg(feature = "sql-store")]

use std::path::Path;

use peregrine_engine::config::Settings;
use peregrine_engine::fix::{open_store, store_kind, StoreKind};
use peregrine_engine::Idle;

use crate::support;
use support::{acceptor_cfg, echo, engine_with, initiator_cfg, log_on, options};

const BASE: &str = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=BANK\nTargetCompID=VENUE\nUseDataDictionary=N\n";

fn settings(dir: &std::path::Path, keys: &str) -> Result<Settings, peregrine_engine::ConfigError> {
    let path = dir.join("venue.cfg");
    let text = format!("{BASE}{keys}[SESSION]\nBeginString=FIX.4.4\n");
    std::fs::write(&path, &text).unwrap();
    Settings::parse(&text, &path)
}

#[test]
fn a_sqlite_store_from_jdbc_url_and_from_quickfixgo_keys_keeps_what_is_committed() {
    let dir = tempfile::tempdir().unwrap();
    for keys in [
        // Relative to the settings file, as FileStorePath.
        "JdbcURL=jdbc:sqlite:fix.db\nJdbcDriver=org.sqlite.JDBC\nJdbcStoreMessagesTableName=fix_messages\n",
        "SQLStoreDriver=sqlite3\nSQLStoreDataSourceName=go.db\n",
    ] {
        let settings = settings(dir.path(), keys).unwrap();
        let s = &settings.sessions[0];
        assert_eq!(store_kind(s, None), StoreKind::Sql);
        let mut store = open_store(s, StoreKind::Sql, 1_000).unwrap();
        store.store(1, b"8=FIX.4.4\x0135=A\x01").unwrap();
        store.incr_next_sender_seq().unwrap();
        store.commit().unwrap();
        drop(store);
        let store = open_store(s, StoreKind::Sql, 2_000).unwrap();
        assert_eq!((store.next_sender_seq(), store.creation_time()), (2, 1_000), "{keys}");
    }
    assert!(dir.path().join("fix.db").exists() && dir.path().join("go.db").exists());
    let conn = rusqlite_count(&dir.path().join("fix.db"));
    assert_eq!(
        conn, 1,
        "the message is in the configured table fix_messages"
    );
}

fn rusqlite_count(db: &std::path::Path) -> i64 {
    // The file is an SQLite database with QuickFIX/J's layout: read it with
    // the sqlite3 header check only (no SQL client in this crate's tests).
    let bytes = std::fs::read(db).unwrap();
    assert!(bytes.starts_with(b"SQLite format 3\0"));
    i64::from(bytes.windows(12).any(|w| w == b"fix_messages"))
}

#[test]
fn bad_database_keys_stop_start_up_naming_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    for (keys, line, key) in [
        ("JdbcURL=jdbc:mysql://db/fix\n", 6, "JdbcURL"),
        ("JdbcURL=jdbc:postgresql://db/fix\n", 6, "JdbcURL"), // no user
        (
            "JdbcURL=jdbc:postgresql://db/fix?nosuch=1\nJdbcUser=fix\n",
            6,
            "JdbcURL",
        ),
        (
            "JdbcURL=jdbc:sqlite:x.db\nJdbcStoreSessionsTableName=s;DROP TABLE x\n",
            7,
            "JdbcStoreSessionsTableName",
        ),
        (
            "JdbcURL=jdbc:sqlite:x.db\nJdbcStoreMessagesTableName=1abc\n",
            7,
            "JdbcStoreMessagesTableName",
        ),
        (
            "SQLStoreDriver=mysql\nSQLStoreDataSourceName=x\n",
            6,
            "SQLStoreDriver",
        ),
        ("SQLStoreDriver=sqlite3\n", 7, "SQLStoreDataSourceName"), // the [SESSION] line
        ("JdbcUser=fix\n", 6, "JdbcUser"),                         // without a URL
    ] {
        let e = settings(dir.path(), keys).unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (line, Some(key)), "{keys}: {e}");
        assert!(e.to_string().contains("venue.cfg"), "{e}");
    }
}

#[test]
fn an_unreachable_database_is_an_error_on_its_key() {
    let dir = tempfile::tempdir().unwrap();
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let keys = format!("JdbcURL=jdbc:postgresql://127.0.0.1:{port}/fix?connect_timeout=2\nJdbcUser=fix\nJdbcPassword=secret\n");
    let settings = settings(dir.path(), &keys).unwrap();
    let Err(e) = open_store(&settings.sessions[0], StoreKind::Sql, 0) else {
        panic!("nothing listens on {port}")
    };
    assert_eq!(e.key.as_deref(), Some("JdbcURL"), "{e}");
    assert!(
        !e.to_string().contains("secret"),
        "no password in errors: {e}"
    );
}

/// Both numbers of the session `cfg` names, read from its database store.
fn numbers(text: &str, cfg: &Path) -> (u64, u64) {
    let settings = Settings::parse(text, cfg).unwrap();
    let store = open_store(&settings.sessions[0], StoreKind::Sql, 0).unwrap();
    (store.next_sender_seq(), store.next_target_seq())
}

/// Two engines whose sessions keep their numbers in SQLite (JdbcURL) log on,
/// stop, start again and log on again: each Logon carries the next number,
/// read back from the database.
#[test]
fn sessions_on_a_database_store_continue_their_numbers_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let acc_text = acceptor_cfg("JdbcURL=jdbc:sqlite:acceptor.db\nHeartBtInt=30");
    let (acc_cfg, ini_cfg) = (dir.path().join("acc.cfg"), dir.path().join("ini.cfg"));
    for round in 1..=2u64 {
        let mut acc = engine_with(
            &acc_text,
            &acc_cfg,
            options(Idle::block(), false),
            StoreKind::Sql,
            &mut echo,
        );
        let port = acc.listener_addrs()[0].port();
        let ini_text = initiator_cfg(port, "JdbcURL=jdbc:sqlite:initiator.db\nHeartBtInt=30");
        let mut ini = engine_with(
            &ini_text,
            &ini_cfg,
            options(Idle::block(), false),
            StoreKind::Sql,
            &mut echo,
        );
        log_on(&mut acc, &mut ini);
        drop((acc, ini)); // stopped without a Logout: the numbers are the Logons'
        assert_eq!(
            numbers(&acc_text, &acc_cfg),
            (round + 1, round + 1),
            "acceptor, round {round}"
        );
        assert_eq!(
            numbers(&ini_text, &ini_cfg),
            (round + 1, round + 1),
            "initiator, round {round}"
        );
    }
}

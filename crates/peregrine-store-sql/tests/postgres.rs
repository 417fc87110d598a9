//! `PostgresStore` against a real PostgreSQL server the test starts: the
//! `MessageStore` contract shared with the memory and file stores,
//! persistence, QuickFIX/J's layout, and the server going away mid-flow.

mod support;

use peregrine_store::contract::{collect, T0};
use peregrine_store::{MessageStore, StoreError, SEQ_END};
use peregrine_store_sql::{
    Database, PostgresStore, SessionKey, SqlStoreConfig, TableName, ROOT_CERT_ENV,
};
use support::pg::PgCluster;

fn open(pg: &PgCluster, target: &str) -> PostgresStore {
    let key = SessionKey::new("FIX.4.4", "BANK", target);
    PostgresStore::connect(&pg.config(), key, &SqlStoreConfig::default(), T0).unwrap()
}

#[test]
fn contract_and_persistence() {
    let pg = PgCluster::start();
    let mut n = 0;
    peregrine_store::contract::run_all(|| {
        n += 1;
        open(&pg, &format!("CONTRACT{n}"))
    });
    support::cases::all(|target| open(&pg, target));
}

#[test]
fn quickfixj_rows_with_custom_tables_and_default_value() {
    let pg = PgCluster::start();
    let config = SqlStoreConfig {
        sessions_table: TableName::new("qf_sessions").unwrap(),
        messages_table: TableName::new("qf_messages").unwrap(),
        default_value: "not_null".into(),
    };
    let key = SessionKey::new("FIX.4.4", "BANK", "VENUE").with_qualifier("q1");
    let mut s = PostgresStore::connect(&pg.config(), key, &config, T0).unwrap();
    s.store(1, b"8=FIX.4.4\x01\xA5").unwrap();
    s.set_next_sender_seq(2).unwrap();
    s.set_next_target_seq(7).unwrap();
    s.commit().unwrap();
    let mut c = pg.client();
    let r = c
        .query_one(
            "SELECT beginstring, sendersubid, targetlocid, session_qualifier, \
             to_char(creation_time, 'YYYY-MM-DD HH24:MI:SS.US'), incoming_seqnum, outgoing_seqnum \
             FROM qf_sessions",
            &[],
        )
        .unwrap();
    let got: (String, String, String, String, String, i32, i32) = (
        r.get(0),
        r.get(1),
        r.get(2),
        r.get(3),
        r.get(4),
        r.get(5),
        r.get(6),
    );
    assert_eq!(
        got,
        (
            "FIX.4.4 ".into(), // CHAR(8)
            "not_null".into(),
            "not_null".into(),
            "q1".into(),
            "2023-11-14 22:13:20.123456".into(),
            7,
            2
        )
    );
    let m: String = c
        .query_one("SELECT message FROM qf_messages WHERE msgseqnum = 1", &[])
        .unwrap()
        .get(0);
    assert_eq!(
        m, "8=FIX.4.4\u{1}\u{A5}",
        "one character per byte (ISO-8859-1)"
    );
    let tables: i64 = c
        .query_one(
            "SELECT count(*) FROM information_schema.tables WHERE table_name IN ('sessions', 'messages')",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(tables, 0, "only the configured tables are created");
}

/// The server stops mid-flow: store calls return errors (no panic), nothing
/// uncommitted is in the database, and once the server is back a commit
/// writes it all: no sequence number lost or used twice.
#[test]
fn server_stopped_and_restarted() {
    let mut pg = PgCluster::start();
    let mut s = open(&pg, "RESTART");
    for seq in 1..=3 {
        s.store(seq, format!("m{seq}").as_bytes()).unwrap();
        s.incr_next_sender_seq().unwrap();
    }
    s.commit().unwrap();
    assert!(s.is_connected());

    pg.stop();
    s.store(4, b"m4").unwrap(); // in memory: fine
    s.incr_next_sender_seq().unwrap();
    s.incr_next_target_seq().unwrap();
    let e = s.commit().unwrap_err();
    assert!(matches!(e, StoreError::Database { .. }), "{e}");
    assert!(!s.is_connected());
    // Still down: each call fails (connecting again), none panics.
    assert!(s.commit().is_err());
    let mut visited = Vec::new();
    assert!(s
        .for_each_in_range(1, SEQ_END, &mut |q, _| visited.push(q))
        .is_err());
    assert_eq!(s.next_sender_seq(), 5);

    pg.start_server();
    // Before the retry, the database has only what was committed.
    let before = open(&pg, "RESTART");
    assert_eq!((before.next_sender_seq(), before.next_target_seq()), (4, 1));
    drop(before);
    s.commit().unwrap();
    assert!(s.is_connected());
    s.store(5, b"m5").unwrap();
    s.incr_next_sender_seq().unwrap();
    s.commit().unwrap();
    let mut after = open(&pg, "RESTART");
    assert_eq!((after.next_sender_seq(), after.next_target_seq()), (6, 2));
    let got = collect(&mut after, 1, SEQ_END);
    let want: Vec<(u64, Vec<u8>)> = (1..=5).map(|q| (q, format!("m{q}").into_bytes())).collect();
    assert_eq!(got, want);
}

/// `sslmode=require` (here libpq's `verify-full`) connects over TLS, the
/// server's certificate checked against `PGSSLROOTCERT`; a server that takes
/// TLS only refuses the plain connection; without its CA the certificate is
/// refused.
#[test]
fn tls_when_the_url_requires_it() {
    let pg = PgCluster::start_tls();
    let key = || SessionKey::new("FIX.4.4", "BANK", "TLS");
    let config = SqlStoreConfig::default();
    let plain = Database::from_jdbc_url(&pg.jdbc_url(), Some("postgres"), None).unwrap();
    let e = plain
        .open(key(), &config, T0)
        .err()
        .expect("refused: TLS only");
    assert!(e.to_string().contains("no encryption"), "{e}");

    let url = format!("{}?sslmode=verify-full", pg.jdbc_url());
    let tls = Database::from_jdbc_url(&url, Some("postgres"), None).unwrap();
    std::env::set_var(ROOT_CERT_ENV, pg.dir().join("ca.pem"));
    let mut s = tls.open(key(), &config, T0).unwrap();
    s.store(1, b"over TLS").unwrap();
    s.set_next_sender_seq(2).unwrap();
    s.commit().unwrap();
    drop(s);
    let s = tls.open(key(), &config, T0).unwrap();
    assert_eq!(s.next_sender_seq(), 2);

    std::env::remove_var(ROOT_CERT_ENV);
    let e = tls
        .open(key(), &config, T0)
        .err()
        .expect("refused: unknown CA");
    assert!(e.to_string().to_lowercase().contains("certificate"), "{e}");
}

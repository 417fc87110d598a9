//! QuickFIX/J 2.3.1's own `JdbcStore` and Peregrine's `PostgresStore` take
//! turns on the same tables of a real PostgreSQL server the test starts:
//! QuickFIX/J writes, Peregrine opens, continues the sequence numbers and
//! reads back (as a resend would) QuickFIX/J's whole messages; then
//! QuickFIX/J opens what Peregrine wrote and continues in turn. The Java
//! side is peers/quickfixj's `JdbcStoreTurn`, built by `make deps`.

mod support;

use peregrine_store::contract::collect;
use peregrine_store::{MessageStore, SEQ_END};
use peregrine_store_sql::{PostgresStore, SessionKey, SqlStoreConfig};
use support::pg::PgCluster;
use support::qfj::jdbc_store_turn as quickfixj;

/// Checks that `m` is QuickFIX/J's message `k` of a `write`, stored under
/// `seq`: a whole NewOrderSingle whose Text is "qfj é k" in ISO-8859-1 (é is
/// the one byte 0xE9), ending in its CheckSum field.
fn assert_qfj_msg(seq: u64, k: u64, m: &[u8]) {
    let text: String = m.iter().map(|&b| b as char).collect();
    assert!(text.starts_with("8=FIX.4.4\x019="), "{text:?}");
    for field in [
        "\x0135=D\x01".to_string(),
        format!("\x0134={seq}\x01"),
        format!("\x0111=QFJ-{k}\x01"),
        format!("\x0158=qfj \u{e9} {k}\x01"),
    ] {
        assert!(text.contains(&field), "{field:?} in {text:?}");
    }
    assert!(
        text.contains("\x0110=") && text.ends_with('\x01'),
        "{text:?}"
    );
    assert!(m.contains(&0xE9));
}

fn peregrine(pg: &PgCluster, now: i64) -> PostgresStore {
    let key = SessionKey::new("FIX.4.4", "BANK", "VENUE");
    PostgresStore::connect(&pg.config(), key, &SqlStoreConfig::default(), now).unwrap()
}

#[test]
fn quickfixj_jdbcstore_and_peregrine_take_turns_on_the_same_tables() {
    let pg = PgCluster::start();
    // Peregrine creates the tables from its migration; QuickFIX/J uses them
    // as its own (it creates none).
    drop(peregrine(&pg, 0));
    pg.client()
        .batch_execute("DELETE FROM sessions; DELETE FROM messages;")
        .unwrap();

    // 1. QuickFIX/J's turn: three messages sent, one received.
    quickfixj(&pg, &["write", "3"]);

    // 2. Peregrine's: it continues QuickFIX/J's numbers and resends its messages.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as i64;
    let mut s = peregrine(&pg, 0);
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (4, 2));
    let created = s.creation_time();
    assert!(
        (created - now).abs() < 600_000_000_000,
        "QuickFIX/J's creation_time read as UTC: {created} vs now {now}"
    );
    let rows = collect(&mut s, 1, SEQ_END);
    assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 2, 3]);
    for (seq, m) in &rows {
        assert_qfj_msg(*seq, *seq, m);
    }
    for seq in 4..=5 {
        s.store(
            seq,
            format!("8=FIX.4.4\x0135=D\x0134={seq}\x0158=peregrine\x01").as_bytes(),
        )
        .unwrap();
        s.incr_next_sender_seq().unwrap();
    }
    s.incr_next_target_seq().unwrap();
    s.commit().unwrap();
    drop(s);

    // 3. QuickFIX/J's again: it sees Peregrine's numbers and messages...
    let dump = quickfixj(&pg, &["dump"]);
    let lines: Vec<&str> = dump.lines().collect();
    assert_eq!(&lines[..2], ["sender=6", "target=3"], "{dump}");
    let created_ms: i64 = lines[2].strip_prefix("created=").unwrap().parse().unwrap();
    assert_eq!(
        created_ms,
        created / 1_000_000,
        "the same creation time both ways"
    );
    // QuickFIX/J reads its own rows as it wrote them (é a character again),
    // and Peregrine's.
    assert_eq!(lines.len(), 8, "{dump}");
    for (i, line) in lines[3..6].iter().enumerate() {
        let k = i + 1;
        assert!(
            line.contains(&format!("|34={k}|")) && line.contains(&format!("|58=qfj é {k}|")),
            "{line}"
        );
    }
    assert_eq!(
        &lines[6..],
        [
            "8=FIX.4.4|35=D|34=4|58=peregrine|",
            "8=FIX.4.4|35=D|34=5|58=peregrine|",
        ],
        "{dump}"
    );
    // ...and continues from them.
    quickfixj(&pg, &["write", "1"]);

    // 4. Peregrine once more.
    let mut s = peregrine(&pg, 0);
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (7, 4));
    let last = collect(&mut s, 6, SEQ_END);
    assert_eq!(last.len(), 1);
    assert_qfj_msg(6, 1, &last[0].1);
    assert_eq!(collect(&mut s, 1, SEQ_END).len(), 6);
}

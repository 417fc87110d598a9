//! A QuickFIX/J user's PostgreSQL store carried over (issue 29): QuickFIX/J
//! 2.3.1's own `JdbcStore` sends three orders of session BANK->VENUE into its
//! tables; a Peregrine acceptor started on the same tables (`JdbcURL`)
//! takes the counterparty's Logon at QuickFIX/J's next expected number,
//! answers at QuickFIX/J's next sender number, and answers a ResendRequest
//! with QuickFIX/J's three orders (PossDupFlag=Y, the original Text bytes)
//! and a gap fill for its own Logon. PostgreSQL is a throwaway cluster the
//! test starts; the harness is peregrine-store-sql's.
#![cfg(feature = "sql-store")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use peregrine_engine::fix::StoreKind;
use peregrine_engine::internal::BoxedFixSession;
use peregrine_engine::{now_nanos, Engine, Idle};
use peregrine_testkit::frame;

use crate::support;
use support::{echo, engine_with, options};

#[path = "../../../peregrine-store-sql/tests/support/pg.rs"]
mod pg;
#[path = "../../../peregrine-store-sql/tests/support/qfj.rs"]
mod qfj;

/// Turns `engine` until `done` holds for what `client` received (5 s at
/// most); the bytes.
fn receive(
    engine: &mut Engine<BoxedFixSession>,
    client: &mut TcpStream,
    done: impl Fn(&[u8]) -> bool,
) -> Vec<u8> {
    client.set_nonblocking(true).unwrap();
    let start = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !done(&got) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "received only {:?}",
            String::from_utf8_lossy(&got)
        );
        engine.turn().unwrap();
        match client.read(&mut buf) {
            Ok(0) => panic!("closed; received {:?}", String::from_utf8_lossy(&got)),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("{e}"),
        }
    }
    got
}

/// The messages in `bytes`, each cut at its CheckSum field.
fn messages(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while let Some(at) = rest.windows(4).position(|w| w == b"\x0110=") {
        let end = at + 8; // "\x0110=NNN\x01"
        if rest.len() < end {
            break;
        }
        out.push(rest[..end].to_vec());
        rest = &rest[end..];
    }
    out
}

fn has(m: &[u8], field: &str) -> bool {
    let field = format!("\x01{field}\x01");
    m.windows(field.len()).any(|w| w == field.as_bytes())
}

#[test]
fn a_peregrine_acceptor_continues_and_resends_what_quickfixj_s_jdbcstore_stored() {
    let pg = pg::PgCluster::start();
    // The tables as QuickFIX/J's SQL scripts make them (here by Peregrine's
    // migration, which has the same layout: QuickFIX/J creates none).
    drop(
        peregrine_store_sql::PostgresStore::connect(
            &pg.config(),
            peregrine_store_sql::SessionKey::new("FIX.4.4", "X", "Y"),
            &Default::default(),
            0,
        )
        .unwrap(),
    );
    // QuickFIX/J sends 1-3 and receives 1.
    qfj::jdbc_store_turn(&pg, &["write", "3"]);

    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=BANK\nTargetCompID=VENUE\nUseDataDictionary=N\n\
         JdbcURL={}\nJdbcUser=postgres\n[SESSION]\nBeginString=FIX.4.4\n",
        pg.jdbc_url()
    );
    let mut acc = engine_with(
        &text,
        &dir.path().join("bank.cfg"),
        options(Idle::block(), false),
        StoreKind::Sql,
        &mut echo,
    );
    let mut venue = TcpStream::connect(acc.listener_addrs()[0]).unwrap();
    let now = || peregrine_engine::log::timestamp(now_nanos())[..21].to_string();
    venue
        .write_all(&frame(&format!(
            "35=A|34=2|49=VENUE|52={}|56=BANK|98=0|108=30|",
            now()
        )))
        .unwrap();
    let logon = receive(&mut acc, &mut venue, |b| !messages(b).is_empty());
    let logon = &messages(&logon)[0];
    assert!(
        has(logon, "35=A") && has(logon, "34=4"),
        "{:?}",
        String::from_utf8_lossy(logon)
    );

    venue
        .write_all(&frame(&format!(
            "35=2|34=3|49=VENUE|52={}|56=BANK|7=1|16=0|",
            now()
        )))
        .unwrap();
    let resent = receive(&mut acc, &mut venue, |b| {
        messages(b).iter().any(|m| has(m, "35=4"))
    });
    let resent = messages(&resent);
    let orders: Vec<&Vec<u8>> = resent.iter().filter(|m| has(m, "35=D")).collect();
    assert_eq!(
        orders.len(),
        3,
        "{:?}",
        String::from_utf8_lossy(&resent.concat())
    );
    for (i, m) in orders.iter().enumerate() {
        let k = i + 1;
        assert!(
            has(m, &format!("34={k}")) && has(m, "43=Y") && has(m, &format!("11=QFJ-{k}")),
            "{:?}",
            String::from_utf8_lossy(m)
        );
        let want = [&b"\x0158=qfj "[..], &[0xE9], format!(" {k}\x01").as_bytes()].concat();
        assert!(
            m.windows(want.len()).any(|w| w == want),
            "Text with é as the byte 0xE9: {:?}",
            String::from_utf8_lossy(m)
        );
    }
    let gap_fill = resent.iter().find(|m| has(m, "35=4")).unwrap();
    assert!(
        has(gap_fill, "34=4") && has(gap_fill, "123=Y") && has(gap_fill, "36=5"),
        "{:?}",
        String::from_utf8_lossy(gap_fill)
    );
}

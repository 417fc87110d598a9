//! `EngineJournal=Y`: every session of an acceptor under one `FileStorePath`
//! commits to one journal, once per turn of the engine, whatever the number
//! of sessions the turn touched; and what the sessions committed comes back
//! when the engine is built again.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_engine::fix::StoreKind;
use peregrine_engine::internal::BoxedFixSession;
use peregrine_engine::store::MessageStore;
use peregrine_engine::{AppEngine, Engine, EngineBuilder, Idle};
use peregrine_session::EchoApp;

use crate::support;
use support::{engine_with, options, send_order, Count};

const CLIENTS: [&str; 3] = ["C1", "C2", "C3"];

/// The gateway: ISLD accepting C1, C2 and C3 on one journal.
fn gateway_cfg(store: &std::path::Path, sync: &str) -> String {
    let mut cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=ISLD\nUseDataDictionary=N\nFileStorePath={}\nFileStoreSync={sync}\n\
         EngineJournal=Y\nIdleStrategy=block\n",
        store.display()
    );
    for c in CLIENTS {
        cfg.push_str(&format!(
            "[SESSION]\nBeginString=FIX.4.4\nTargetCompID={c}\n"
        ));
    }
    cfg
}

/// The three clients, one engine, memory stores.
fn clients_cfg(port: u16) -> String {
    let mut cfg = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
         TargetCompID=ISLD\nUseDataDictionary=N\n"
    );
    for c in CLIENTS {
        cfg.push_str(&format!(
            "[SESSION]\nBeginString=FIX.4.4\nSenderCompID={c}\n"
        ));
    }
    cfg
}

fn gateway(dir: &std::path::Path, sync: &str) -> AppEngine<EchoApp> {
    EngineBuilder::parse(&gateway_cfg(&dir.join("store"), sync), dir.join("gw.cfg"))
        .unwrap()
        .build(|s| EchoApp::new(s.dictionaries.clone()))
        .unwrap()
}

fn turn_until(
    gw: &mut AppEngine<EchoApp>,
    clients: &mut Engine<BoxedFixSession>,
    what: &str,
    mut done: impl FnMut(&AppEngine<EchoApp>, &Engine<BoxedFixSession>) -> bool,
) {
    let start = Instant::now();
    while !done(gw, clients) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out: {what}"
        );
        gw.poll().unwrap();
        clients.poll().unwrap();
        std::thread::sleep(Duration::from_micros(200));
    }
}

#[test]
fn a_turn_that_serves_three_sessions_is_one_journal_write_and_one_fsync() {
    let dir = tempfile::tempdir().unwrap();
    let mut gw = gateway(dir.path(), "Y");
    assert_eq!(gw.journals().len(), 1, "one journal for the three sessions");
    let port = gw.listener_addrs()[0].port();
    let received = Arc::new(AtomicUsize::new(0));
    let mut clients = engine_with(
        &clients_cfg(port),
        &dir.path().join("c.cfg"),
        options(Idle::default(), false),
        StoreKind::Memory,
        &mut |_| Box::new(Count(received.clone())),
    );
    turn_until(&mut gw, &mut clients, "three logons", |g, _| {
        g.sessions().iter().all(|s| s.logged_on)
    });
    turn_until(&mut gw, &mut clients, "the clients' logons", |_, c| {
        c.sessions().iter().all(|s| s.logged_on)
    });
    for round in 1..=3 {
        let before = gw.journals()[0].stats();
        for c in CLIENTS {
            send_order(
                &mut clients,
                &format!("FIX.4.4:{c}->ISLD"),
                b"D",
                &format!("{c}-{round}"),
            )
            .unwrap();
        }
        // The three orders are written; give them time to arrive, then one
        // turn of the gateway reads all three.
        clients.poll().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        gw.turn().unwrap();
        let after = gw.journals()[0].stats();
        assert_eq!(
            (
                after.writes - before.writes,
                after.fsyncs - before.fsyncs,
                after.turns - before.turns
            ),
            (1, 1, 1),
            "round {round}: one write and one fsync for three sessions' orders and echoes"
        );
        turn_until(&mut gw, &mut clients, "the echoes", |_, _| {
            received.load(Ordering::Relaxed) == 3 * round
        });
    }
    drop(gw);
    // Built again on the same journal: each session's numbers and its echoes.
    let mut gw = gateway(dir.path(), "Y");
    for s in gw.sessions() {
        assert_eq!((s.next_sender_seq, s.next_target_seq), (5, 5), "{}", s.name);
    }
    let mut echoed = 0;
    gw.with_session("FIX.4.4:ISLD->C2", |d, _| {
        d.session_mut()
            .store_mut()
            .for_each_in_range(2, 4, &mut |_, m| {
                assert!(m.windows(5).any(|w| w == b"11=C2"), "C2's own echoes");
                echoed += 1;
            })
            .unwrap();
    })
    .unwrap();
    assert_eq!(echoed, 3);
}

#[test]
fn a_session_with_its_own_file_store_is_carried_over_into_the_journal_once() {
    use peregrine_engine::store::{FileStore, FileStoreConfig};
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    // C2 ran with EngineJournal=N before: its own directory under FileStorePath.
    let mut old =
        FileStore::open(&store, "FIX.4.4:ISLD->C2", FileStoreConfig::default(), 5).unwrap();
    for seq in 1..=40 {
        old.store(seq, format!("message {seq}").as_bytes()).unwrap();
    }
    old.set_next_sender_seq(41).unwrap();
    old.set_next_target_seq(17).unwrap();
    old.commit().unwrap();
    drop(old);
    let numbers = |gw: &AppEngine<EchoApp>| {
        let s = gw
            .sessions()
            .into_iter()
            .find(|s| s.name == "FIX.4.4:ISLD->C2")
            .unwrap();
        (s.next_sender_seq, s.next_target_seq)
    };
    let mut gw = gateway(dir.path(), "Y");
    assert_eq!(numbers(&gw), (41, 17), "no reset for C2's counterparty");
    let mut kept = Vec::new();
    gw.with_session("FIX.4.4:ISLD->C2", |d, _| {
        d.session_mut()
            .store_mut()
            .for_each_in_range(39, 40, &mut |seq, m| kept.push((seq, m.to_vec())))
            .unwrap();
    })
    .unwrap();
    assert_eq!(
        kept,
        [(39, b"message 39".to_vec()), (40, b"message 40".to_vec())],
        "its messages, for resends"
    );
    drop(gw);
    // The old directory is not read again: the journal has the session.
    let mut old =
        FileStore::open(&store, "FIX.4.4:ISLD->C2", FileStoreConfig::default(), 5).unwrap();
    old.set_next_sender_seq(99).unwrap();
    old.commit().unwrap();
    drop(old);
    assert_eq!(numbers(&gateway(dir.path(), "Y")), (41, 17));
}

#[test]
fn every_session_of_an_engine_journal_names_one_directory() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=ISLD\n\
         UseDataDictionary=N\nEngineJournal=Y\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=C1\nFileStorePath={0}/a\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=C2\nFileStorePath={0}/b\n",
        dir.path().display()
    );
    let built = EngineBuilder::parse(&cfg, dir.path().join("two.cfg"))
        .unwrap()
        .build(|s| EchoApp::new(s.dictionaries.clone()));
    let Err(e) = built else {
        panic!("two journals in one engine are refused")
    };
    let e = e.to_string();
    assert!(
        e.contains("FileStorePath") && e.contains("every session of an engine"),
        "{e}"
    );
}

#[test]
fn timers_that_fire_together_are_one_journal_write() {
    let dir = tempfile::tempdir().unwrap();
    let mut gw = gateway(dir.path(), "Y");
    let port = gw.listener_addrs()[0].port();
    let received = Arc::new(AtomicUsize::new(0));
    // HeartBtInt=1: the gateway's three sessions send a Heartbeat each second
    // (and TestRequests once the clients go quiet), all due together.
    let cfg = clients_cfg(port).replace(
        "UseDataDictionary=N\n",
        "UseDataDictionary=N\nHeartBtInt=1\n",
    );
    let mut clients = engine_with(
        &cfg,
        &dir.path().join("c.cfg"),
        options(Idle::default(), false),
        StoreKind::Memory,
        &mut |_| Box::new(Count(received.clone())),
    );
    turn_until(&mut gw, &mut clients, "three logons", |g, c| {
        g.sessions().iter().all(|s| s.logged_on) && c.sessions().iter().all(|s| s.logged_on)
    });
    let sent =
        |gw: &AppEngine<EchoApp>| -> u64 { gw.sessions().iter().map(|s| s.next_sender_seq).sum() };
    let (sent_before, before) = (sent(&gw), gw.journals()[0].stats());
    // Only the gateway turns: what it sends now, its timers send.
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(2500) {
        gw.turn().unwrap();
    }
    let (messages, after) = (sent(&gw) - sent_before, gw.journals()[0].stats());
    let writes = after.writes - before.writes;
    assert!(messages >= 3, "the timers sent {messages}");
    assert!(
        writes * 2 <= messages,
        "{writes} journal writes for {messages} messages sent by timers due together \
         (one write per session's timer before)"
    );
}

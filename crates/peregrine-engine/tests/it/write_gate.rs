//! High availability's hold (`EngineOptions::write_gate`, issue 26 §1): an engine
//! whose gate names no term accepts no session (connections closed unanswered) and
//! connects none; once it names a term the sessions log on; when it closes again
//! every connection is closed at once and not one more byte is written. The gate here
//! is a switch; `peregrine-ha`'s tests drive the same option from a real etcd lease.

use crate::support;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_engine::fix::StoreKind;
use peregrine_engine::{Engine, EngineOptions, Idle, WriteGate};
use support::{acceptor_cfg, echo, engine_with, initiator_cfg, logged_on, pump, send_order};

#[derive(Debug, Default)]
struct Switch(AtomicU64);

impl WriteGate for Switch {
    fn term(&self) -> Option<u64> {
        Some(self.0.load(Ordering::Acquire)).filter(|&t| t != 0)
    }
}

fn gated(switch: &Arc<Switch>) -> EngineOptions {
    EngineOptions {
        idle: Idle::default(),
        message_logs: false,
        write_gate: Some(switch.clone()),
        ..EngineOptions::default()
    }
}

fn plain() -> EngineOptions {
    EngineOptions {
        idle: Idle::default(),
        message_logs: false,
        ..EngineOptions::default()
    }
}

/// Turns both engines for `d`.
fn turn_for(engines: &mut [&mut Engine<peregrine_engine::internal::BoxedFixSession>], d: Duration) {
    let end = Instant::now() + d;
    while Instant::now() < end {
        for e in engines.iter_mut() {
            e.turn().unwrap();
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

#[test]
fn a_held_acceptor_answers_no_logon_and_stops_writing_when_the_gate_closes() {
    let switch = Arc::new(Switch::default());
    let mut acc = engine_with(
        &acceptor_cfg("HeartBtInt=1"),
        "a.cfg".as_ref(),
        gated(&switch),
        StoreKind::Memory,
        &mut echo,
    );
    let port = acc.listener_addrs()[0].port();
    let mut ini = engine_with(
        &initiator_cfg(port, "ReconnectInterval=1\nHeartBtInt=1"),
        "i.cfg".as_ref(),
        plain(),
        StoreKind::Memory,
        &mut echo,
    );
    // Held: the initiator connects (twice, one second apart) and is closed unanswered.
    turn_for(&mut [&mut acc, &mut ini], Duration::from_millis(1500));
    assert!(acc.metrics().engine().connections_accepted() >= 1);
    assert!(!logged_on(&acc) && !logged_on(&ini));
    let name = acc.sessions()[0].name.clone();
    assert_eq!(acc.metrics().session(&name).unwrap().bytes_sent(), 0);

    // Leader: the next attempt logs on, and orders flow.
    switch.0.store(7, Ordering::Release);
    pump(
        &mut [&mut acc, &mut ini],
        Duration::from_secs(5),
        "logon",
        |e| logged_on(e[0]) && logged_on(e[1]),
    );
    send_order(&mut ini, support::TW_ISLD, b"D", "O-1").unwrap();
    turn_for(&mut [&mut acc, &mut ini], Duration::from_millis(100));
    let sent = acc.metrics().session(&name).unwrap().bytes_sent();
    assert!(sent > 0);

    // Not leader: the connection is closed at the acceptor's next turn, without a
    // Logout, and nothing more is written — heartbeats are due every second.
    switch.0.store(0, Ordering::Release);
    acc.turn().unwrap();
    assert!(!acc.sessions()[0].connected, "still connected");
    turn_for(&mut [&mut acc, &mut ini], Duration::from_millis(2500));
    assert_eq!(acc.metrics().session(&name).unwrap().bytes_sent(), sent);
    assert!(!logged_on(&acc) && !logged_on(&ini));

    // A new term: released again.
    switch.0.store(9, Ordering::Release);
    pump(
        &mut [&mut acc, &mut ini],
        Duration::from_secs(5),
        "logon",
        |e| logged_on(e[0]) && logged_on(e[1]),
    );
}

#[test]
fn a_held_initiator_does_not_connect_until_the_gate_opens() {
    let switch = Arc::new(Switch::default());
    let mut acc = engine_with(
        &acceptor_cfg(""),
        "a.cfg".as_ref(),
        plain(),
        StoreKind::Memory,
        &mut echo,
    );
    let port = acc.listener_addrs()[0].port();
    let mut ini = engine_with(
        &initiator_cfg(port, "ReconnectInterval=1"),
        "i.cfg".as_ref(),
        gated(&switch),
        StoreKind::Memory,
        &mut echo,
    );
    turn_for(&mut [&mut acc, &mut ini], Duration::from_millis(1200));
    assert_eq!(acc.metrics().engine().connections_accepted(), 0);
    switch.0.store(3, Ordering::Release);
    let opened = Instant::now();
    pump(
        &mut [&mut acc, &mut ini],
        Duration::from_secs(5),
        "logon",
        |e| logged_on(e[0]) && logged_on(e[1]),
    );
    // Released at once, not after the reconnect interval.
    assert!(
        opened.elapsed() < Duration::from_millis(900),
        "{:?}",
        opened.elapsed()
    );
}

//! The engine held by a real etcd lease (issue 26 §1): an acceptor whose
//! `EngineOptions::write_gate` is this node's `LeaderGate` answers its counterparty
//! only while it leads; with etcd frozen it closes the session's connection within
//! the TTL and writes nothing more; when etcd is back it wins a greater term and the
//! counterparty logs on again.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_engine::config::Settings;
use peregrine_engine::fix::StoreKind;
use peregrine_engine::internal::{build_session, BoxedFixSession};
use peregrine_engine::session::{Application, EchoApp};
use peregrine_engine::{now_nanos, Engine, EngineOptions};
use peregrine_ha::{HaConfig, Leadership, LeadershipEvent, Term};
use support::{signal, Etcd};

fn engine(text: &str, options: EngineOptions) -> Engine<BoxedFixSession> {
    let settings = Settings::parse(text, "gw.cfg".as_ref()).unwrap();
    let mut engine = Engine::new(options).unwrap();
    for s in &settings.sessions {
        let mut app = |d| Box::new(EchoApp::new(d)) as Box<dyn Application + Send>;
        let driver = build_session(s, StoreKind::Memory, now_nanos(), &mut app).unwrap();
        engine.add_session(s, driver).unwrap();
    }
    engine
}

fn logged_on(e: &Engine<BoxedFixSession>) -> bool {
    e.sessions()[0].logged_on
}

/// Turns both until `done` holds; how long it took.
fn pump(
    a: &mut Engine<BoxedFixSession>,
    b: &mut Engine<BoxedFixSession>,
    limit: Duration,
    what: &str,
    mut done: impl FnMut(&Engine<BoxedFixSession>, &Engine<BoxedFixSession>) -> bool,
) -> Duration {
    let start = Instant::now();
    while !done(a, b) {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        a.turn().unwrap();
        b.turn().unwrap();
        std::thread::sleep(Duration::from_micros(500));
    }
    start.elapsed()
}

fn won(leadership: &Leadership, wait: Duration) -> Option<Term> {
    let end = Instant::now() + wait;
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        if let Some(LeadershipEvent::Won { term, .. }) = leadership.next_event(left) {
            return Some(term);
        }
    }
    None
}

#[test]
fn an_acceptor_serves_only_while_it_leads_and_stops_within_the_ttl_when_etcd_freezes() {
    let etcd = Etcd::start();
    let gw = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=GW\n\
         TargetCompID=C1\nUseDataDictionary=N\nHeartBtInt=1\nHaNodeName=gw-a\nHaPeers=gw-b\n\
         HaEtcdEndpoints={}\nHaLeaseTTL=1\n[SESSION]\nBeginString=FIX.4.4\n",
        etcd.endpoint
    );
    let settings = Settings::parse(&gw, "gw.cfg".as_ref()).unwrap();
    let config = HaConfig::from_settings(settings.sessions[0].ha.as_ref().unwrap());
    let leadership = Leadership::start(config).unwrap();
    let options = EngineOptions {
        message_logs: false,
        write_gate: Some(Arc::new(leadership.gate())),
        ..EngineOptions::default()
    };
    let mut acc = engine(&gw, options);
    let port = acc.listener_addrs()[0].port();
    let client = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\n\
         SocketConnectPort={port}\nSenderCompID=C1\nTargetCompID=GW\nUseDataDictionary=N\n\
         HeartBtInt=1\nReconnectInterval=1\n[SESSION]\nBeginString=FIX.4.4\n"
    );
    let mut ini = engine(&client, EngineOptions::default());
    let first = won(&leadership, Duration::from_secs(5)).expect("gw-a won");
    pump(
        &mut acc,
        &mut ini,
        Duration::from_secs(5),
        "logon",
        |a, i| logged_on(a) && logged_on(i),
    );
    let name = acc.sessions()[0].name.clone();

    // etcd frozen: no keep-alive is answered; the gate closes at the lease's local
    // deadline and the acceptor closes the connection on its next turn.
    let gate = leadership.gate();
    signal(etcd.pid(), "STOP");
    // After `kill` returned: etcd answers nothing sent after this instant.
    let frozen = Instant::now();
    let mut last_until = frozen;
    let closed = pump(
        &mut acc,
        &mut ini,
        Duration::from_secs(3),
        "disconnect",
        |a, _| {
            if let Some((_, until)) = gate.lease_at(Instant::now()) {
                last_until = last_until.max(until);
            }
            !a.sessions()[0].connected
        },
    );
    // The gate closed a margin before the TTL was up; the reactor closed the
    // connection at its next turn (it wakes at least every 100 ms under `block`).
    let deadline = last_until - frozen;
    assert!(
        deadline <= Duration::from_millis(900),
        "the lease's local deadline was {deadline:?} after etcd froze (TTL 1 s)"
    );
    assert!(
        closed <= Duration::from_millis(1300),
        "disconnected {closed:?} after etcd froze (TTL 1 s)"
    );
    let sent = acc.metrics().session(&name).unwrap().bytes_sent();
    // The client reconnects every second: refused unanswered, nothing written.
    pump(
        &mut acc,
        &mut ini,
        Duration::from_secs(3),
        "1.5 s",
        |_, _| frozen.elapsed() > Duration::from_millis(2500),
    );
    assert!(!logged_on(&acc) && !logged_on(&ini));
    assert_eq!(acc.metrics().session(&name).unwrap().bytes_sent(), sent);

    // etcd back: a greater term, and the client logs on again.
    signal(etcd.pid(), "CONT");
    let again = won(&leadership, Duration::from_secs(8)).expect("gw-a won again");
    assert!(again > first, "term {again} after {first}");
    pump(
        &mut acc,
        &mut ini,
        Duration::from_secs(5),
        "logon again",
        |a, i| logged_on(a) && logged_on(i),
    );
    eprintln!(
        "deadline {deadline:?}, disconnected {closed:?} after etcd froze; terms {first} then {again}"
    );
}

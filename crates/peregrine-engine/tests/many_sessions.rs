//! An engine with thousands of configured sessions (BENCHMARKS.md §5): settings and
//! start-up in time linear in the sessions, and a spinning engine whose turns do not
//! visit every session each time.

use std::time::{Duration, Instant};

use peregrine_engine::config::{ConnectionType, Settings};
use peregrine_engine::{EngineBuilder, Idle};
use peregrine_session::EchoApp;

fn acceptor(n: usize, duplicate_last: bool) -> Result<Settings, peregrine_engine::ConfigError> {
    let mut b = Settings::builder().default(|d| {
        d.connection_type(ConnectionType::Acceptor)
            .socket_accept_port(0)
            .socket_accept_address("127.0.0.1")
            .use_data_dictionary(false)
            .idle_strategy(Idle::busy_spin())
    });
    for k in 0..n {
        b = b.session("FIX.4.4", "VENUE", &format!("CLIENT{k}"), |s| s);
    }
    if duplicate_last {
        b = b.session("FIX.4.4", "VENUE", &format!("CLIENT{}", n - 1), |s| s);
    }
    b.build()
}

#[test]
fn ten_thousand_sessions_are_configured_and_started_in_linear_time() {
    let started = Instant::now();
    let settings = acceptor(10_000, false).unwrap();
    let engine = EngineBuilder::new(settings)
        .start(|_| EchoApp::new(None))
        .unwrap();
    let took = started.elapsed();
    // Quadratic (a name comparison per pair of sessions) took 16 s in release.
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert!(engine.session_ref("FIX.4.4:VENUE->CLIENT9999").is_some());
    assert!(engine.session_ref("FIX.4.4:VENUE->CLIENT0").is_some());
    engine.stop().unwrap();
    // The duplicate check is still made, now with a map.
    let e = acceptor(10_000, true).unwrap_err();
    assert!(
        e.to_string()
            .contains("session FIX.4.4:VENUE->CLIENT9999 is made twice"),
        "{e}"
    );
}

#[test]
fn a_spinning_engine_with_many_sessions_turns_without_visiting_each_one() {
    let mut engine = EngineBuilder::new(acceptor(3_000, false).unwrap())
        .build(|_| EchoApp::new(None))
        .unwrap();
    for _ in 0..100 {
        engine.turn().unwrap();
    }
    let turns = 2_000;
    let started = Instant::now();
    for _ in 0..turns {
        engine.turn().unwrap();
    }
    let per_turn = started.elapsed() / turns;
    // Visiting 3,000 sessions (timers, commit, flush) on every turn cost ~150 µs a
    // turn in release; the timers now run once a millisecond per 1,000 sessions.
    assert!(
        per_turn < Duration::from_micros(100),
        "{per_turn:?} per turn"
    );
}

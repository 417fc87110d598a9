//! What an engine's session costs in memory (BENCHMARKS.md §5, memory per session):
//! configured, it holds no buffer for a connection and no decoder; logged on, buffers
//! grown to the messages it has had and no decoder of its own (the reactor thread
//! lends one). Measured with the counting allocator's live bytes, which count
//! reserved capacity too (resident memory is at most that).

use std::time::{Duration, Instant};

use peregrine_alloc::{is_counting, live_bytes, CountingAllocator};
use peregrine_codec::MessageView;
use peregrine_engine::config::{ConnectionType, Settings};
use peregrine_engine::{Engine, EngineBuilder, Idle, SessionDriver};
use peregrine_session::{AppReject, Application, Outbox, SessionId};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Sessions on each side.
const N: usize = 1000;

/// Takes every message, sends nothing.
struct Quiet;

impl Application for Quiet {
    fn from_app(
        &mut self,
        _: &MessageView<'_>,
        _: &SessionId,
        _: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        Ok(())
    }
}

/// N acceptor sessions VENUE->CLIENTk on one port (`port` 0: the OS's pick), or N
/// initiators CLIENTk->VENUE connecting to it; memory stores, no logs.
fn settings(acceptor: bool, port: u16) -> Settings {
    let mut b = Settings::builder().default(|d| {
        let d = d
            .use_data_dictionary(false)
            .idle_strategy(Idle::busy_spin());
        if acceptor {
            d.connection_type(ConnectionType::Acceptor)
                .socket_accept_address("127.0.0.1")
                .socket_accept_port(port)
        } else {
            d.connection_type(ConnectionType::Initiator)
                .socket_connect("127.0.0.1", port)
                .reconnect_interval(1)
        }
    });
    for k in 0..N {
        let client = format!("CLIENT{k}");
        b = if acceptor {
            b.session("FIX.4.4", "VENUE", &client, |s| s)
        } else {
            b.session("FIX.4.4", &client, "VENUE", |s| s)
        };
    }
    b.build().unwrap()
}

fn all_logged_on<D: SessionDriver>(e: &Engine<D>) -> bool {
    e.sessions().iter().all(|s| s.logged_on)
}

#[test]
fn sessions_hold_no_connection_buffers_before_they_connect_and_no_decoder_after() {
    assert!(is_counting());
    let before = live_bytes();
    let mut acc = EngineBuilder::new(settings(true, 0))
        .build(|_| Quiet)
        .unwrap();
    let configured = (live_bytes() - before) / N;
    // 164 KB before issue 25 (45 KiB resident, BENCHMARKS.md §5): a decoder, 64 KiB
    // receive and send buffers, an encoder, a shape cache per session. 6.2 KB when
    // written (settings, names, counters, store; the engine's own buffers spread
    // over the N).
    assert!(
        configured < 8 * 1024,
        "a configured session holds {configured} bytes"
    );
    let port = acc.listener_addrs()[0].port();
    let mut ini = EngineBuilder::new(settings(false, port))
        .build(|_| Quiet)
        .unwrap();
    let both_configured = live_bytes() - before;
    let start = Instant::now();
    while !(all_logged_on(&acc) && all_logged_on(&ini)) {
        acc.turn().unwrap();
        ini.turn().unwrap();
        assert!(start.elapsed() < Duration::from_secs(30), "logons");
    }
    for _ in 0..100 {
        acc.turn().unwrap();
        ini.turn().unwrap();
    }
    // Both sides' sessions: a connection, the Logon each sent (kept in its store),
    // buffers grown to it; 1.6 KB when written. A decoder of its own would be 18 KB.
    let logged_on = (live_bytes() - before - both_configured) / (2 * N);
    assert!(
        logged_on < 8 * 1024,
        "a session holds {logged_on} bytes more once logged on"
    );
}

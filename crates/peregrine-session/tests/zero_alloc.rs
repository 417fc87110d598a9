//! Proves the steady-state path (receive an application message, validate it against the
//! dictionary, echo it back through the store) allocates nothing after warm-up, with a
//! counting allocator.
use std::sync::Arc;

use peregrine_codec::value::{TimePrecision, UtcTimestamp};
use peregrine_codec::EncodeBuffer;
use peregrine_dict::{Dictionaries, Dictionary};
use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionEvent, SessionId, SECOND};
use peregrine_store::MemoryStore;

#[global_allocator]
static GLOBAL: peregrine_alloc::CountingAllocator = peregrine_alloc::CountingAllocator;

/// Allocations `f` makes on this thread (tests run in parallel threads).
fn allocs_during(f: impl FnOnce()) -> usize {
    peregrine_alloc::allocations_in(f).1 as usize
}

const T0: i64 = 1_795_341_600_250_000_000;

fn message(msg_type: &[u8], seq: u64, now: i64, body: &[(u32, &[u8])]) -> Vec<u8> {
    let mut buf = EncodeBuffer::new();
    let mut m = buf.start(b"FIX.4.4", msg_type);
    let ts = UtcTimestamp::from_unix_nanos(now, TimePrecision::Millis);
    m.uint(34, seq)
        .str(49, b"TW")
        .timestamp(52, &ts, TimePrecision::Millis)
        .str(56, b"ISLD");
    for &(t, v) in body {
        m.str(t, v);
    }
    m.finish().to_vec()
}

#[test]
fn receive_validate_echo_allocates_nothing_after_warm_up() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../peregrine-dict/dictionaries/FIX44.xml"
    );
    let dicts = Arc::new(Dictionaries::single(Dictionary::from_file(path).unwrap()));
    let mut cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    cfg.dictionaries = Some(dicts.clone());
    cfg.enable_last_msg_seq_num_processed = true;
    let store = MemoryStore::with_capacity(T0, 10_000, 4 << 20);
    let mut session = Session::new(cfg, store, T0);
    let mut app = EchoApp::new(Some(dicts));

    const WARM: u64 = 200;
    const MEASURED: u64 = 2_000;
    // Inbound messages are prepared up front: building them is the peer's work.
    let mut now = T0;
    let mut inbound = vec![message(b"A", 1, now, &[(98, b"0"), (108, b"30")])];
    let ids: Vec<String> = (0..WARM + MEASURED).map(|i| format!("ORD{i:08}")).collect();
    let mut seq = 1;
    for (i, id) in ids.iter().enumerate() {
        now += 1_000_000; // 1 ms apart
        seq += 1;
        if i % 10 == 9 {
            // Now and then a TestRequest, answered with a Heartbeat.
            inbound.push(message(b"1", seq, now, &[(112, b"PING")]));
            seq += 1;
        }
        inbound.push(message(
            b"D",
            seq,
            now,
            &[
                (11, id.as_bytes()),
                (21, b"1"),
                (38, b"100"),
                (40, b"2"),
                (44, b"10.25"),
                (54, b"1"),
                (55, b"MSFT"),
                (60, b"20261122-10:00:00.250"),
                (453, b"2"),
                (448, b"A"),
                (447, b"D"),
                (452, b"1"),
                (448, b"B"),
                (447, b"D"),
                (452, b"3"),
            ],
        ));
    }

    let mut now = T0;
    session.on_connected(now, &mut app);
    let step = |session: &mut Session<MemoryStore>, app: &mut EchoApp, msg: &[u8], now: i64| {
        session.on_bytes(msg, now, app);
        session.commit().unwrap();
        let n = session.outbound().len();
        assert!(n > 0);
        session.consume_outbound(n, app);
        while let Some(ev) = session.poll_event() {
            assert!(
                !matches!(
                    ev,
                    SessionEvent::Disconnect(_) | SessionEvent::Rejected { .. }
                ),
                "{ev:?}"
            );
        }
    };
    let warm = WARM as usize + WARM as usize / 10;
    for msg in &inbound[..=warm] {
        now += 1_000_000;
        step(&mut session, &mut app, msg, now);
    }
    // A heartbeat on the timer path too.
    now += 30 * SECOND;
    session.on_timer(now, &mut app);
    session.commit().unwrap();
    session.consume_outbound(session.outbound().len(), &mut app);

    let allocs = allocs_during(|| {
        for msg in &inbound[warm + 1..] {
            now += 1_000_000;
            step(&mut session, &mut app, msg, now);
        }
        now += 30 * SECOND;
        session.on_timer(now, &mut app);
        session.commit().unwrap();
        session.consume_outbound(session.outbound().len(), &mut app);
    });
    assert_eq!(session.next_target_seq(), seq + 1);
    assert_eq!(allocs, 0, "allocations on the steady-state path");
}

//! Proves the steady-state path (receive an application message, validate it against the
//! dictionary, echo it back through the store) allocates nothing after warm-up, with a
//! counting allocator.
mod support;

use peregrine_session::{EchoApp, Nanos, Session, SessionEvent, SECOND};
use peregrine_store::MemoryStore;
use support::{config, fix44, message, new_order, T0};

#[global_allocator]
static GLOBAL: peregrine_alloc::CountingAllocator = peregrine_alloc::CountingAllocator;

/// Allocations `f` makes on this thread (tests run in parallel threads).
fn allocs_during(f: impl FnOnce()) -> usize {
    peregrine_alloc::allocations_in(f).1 as usize
}

/// NoPartyIDs: two parties, so that the validated path walks a group.
const PARTIES: &[(u32, &[u8])] = &[
    (453, b"2"),
    (448, b"A"),
    (447, b"D"),
    (452, b"1"),
    (448, b"B"),
    (447, b"D"),
    (452, b"3"),
];

/// Hands `msgs` to the session 1 ms apart, each answered and nothing refused, then
/// 30 s later a Heartbeat on the timer path.
fn run(session: &mut Session<MemoryStore>, app: &mut EchoApp, msgs: &[Vec<u8>], now: &mut Nanos) {
    for msg in msgs {
        *now += 1_000_000;
        session.on_bytes(msg, *now, app);
        session.commit().unwrap();
        let n = session.outbound().len();
        assert!(n > 0);
        session.consume_outbound(n);
        while let Some(ev) = session.poll_event() {
            assert!(
                !matches!(
                    ev,
                    SessionEvent::Disconnect(_) | SessionEvent::Rejected { .. }
                ),
                "{ev:?}"
            );
        }
    }
    *now += 30 * SECOND;
    session.on_timer(*now, app);
    session.commit().unwrap();
    session.consume_outbound(session.outbound().len());
}

#[test]
fn receive_validate_echo_allocates_nothing_after_warm_up() {
    let dicts = fix44();
    let mut cfg = config("FIX.4.4");
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
        let mut order = new_order(id.as_bytes());
        order.extend_from_slice(PARTIES);
        inbound.push(message(b"D", seq, now, &order));
    }

    session.on_connected(T0);
    let warm = WARM as usize + WARM as usize / 10;
    let mut now = T0;
    run(&mut session, &mut app, &inbound[..=warm], &mut now);
    let allocs = allocs_during(|| run(&mut session, &mut app, &inbound[warm + 1..], &mut now));
    assert_eq!(session.next_target_seq(), seq + 1);
    assert_eq!(allocs, 0, "allocations on the steady-state path");
}

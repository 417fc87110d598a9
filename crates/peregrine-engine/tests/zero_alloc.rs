//! The engine's steady state allocates nothing: after warm-up, order round
//! trips between an initiator and an acceptor (echo) over loopback, with
//! message logs on, cost no allocation on either side.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_alloc::{allocations_in, is_counting, CountingAllocator};
use peregrine_codec::value::{Decimal, TimePrecision, UtcTimestamp};
use peregrine_engine::fix::StoreKind;
use peregrine_engine::internal::BoxedFixSession;
use peregrine_engine::{Engine, EngineOptions, Idle};
use peregrine_messages::fix44::{
    self,
    enums::{HandlInst, OrdType, Side},
    prelude::*,
};

mod support;
use support::{
    acceptor_cfg, echo, engine_with, initiator_cfg, log_on, options, order_fields, send_order,
    Count, TW_ISLD,
};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// An echoing acceptor and an initiator that counts the echoes (busy-spin, memory
/// stores, message logs under `dir`), logged on to each other; the count.
fn logged_on_pair(
    dir: &Path,
) -> (
    Engine<BoxedFixSession>,
    Engine<BoxedFixSession>,
    Arc<AtomicUsize>,
) {
    let mut acc = engine_with(
        &acceptor_cfg("FileLogPath=log"),
        &dir.join("x.cfg"),
        options(Idle::busy_spin(), true),
        StoreKind::Memory,
        &mut echo,
    );
    let port = acc.listener_addrs()[0].port();
    let got = Arc::new(AtomicUsize::new(0));
    let mut ini = engine_with(
        &initiator_cfg(port, "HeartBtInt=30\nFileLogPath=log"),
        &dir.join("x.cfg"),
        options(Idle::busy_spin(), true),
        StoreKind::Memory,
        &mut |_| Box::new(Count(got.clone())),
    );
    log_on(&mut acc, &mut ini);
    (acc, ini, got)
}

fn round_trips(
    acc: &mut Engine<BoxedFixSession>,
    ini: &mut Engine<BoxedFixSession>,
    got: &AtomicUsize,
    n: usize,
) {
    for _ in 0..n {
        let before = got.load(Ordering::Relaxed);
        send_order(ini, TW_ISLD, b"D", "ORDER").unwrap();
        let start = Instant::now();
        while got.load(Ordering::Relaxed) == before {
            acc.turn().unwrap();
            ini.turn().unwrap();
            assert!(start.elapsed() < Duration::from_secs(5), "no echo");
        }
    }
}

#[test]
fn steady_state_round_trips_allocate_nothing() {
    assert!(is_counting());
    let dir = tempfile::tempdir().unwrap();
    let (mut acc, mut ini, got) = logged_on_pair(dir.path());
    // Warm-up: buffers reach their size. What remains is the memory store
    // growing its arena (amortised doubling: a handful per thousands).
    round_trips(&mut acc, &mut ini, &got, 2_000);
    const N: usize = 2_000;
    // Both engines run on this thread: its count is theirs (the other test
    // runs on another thread).
    let ((), n) = allocations_in(|| round_trips(&mut acc, &mut ini, &got, N));
    let per = n as f64 / N as f64;
    eprintln!("{per} allocations per round trip");
    assert!(per < 0.01, "{per} allocations per round trip");
}

/// The same round trips with each order queued by a [`Sender`]: taking a
/// slot, encoding into it, the hand-over and the engine's send allocate
/// nothing once the slots and buffers are warm.
#[test]
fn messages_from_a_sender_allocate_nothing() {
    assert!(is_counting());
    let dir = tempfile::tempdir().unwrap();
    let (mut acc, mut ini, got) = logged_on_pair(dir.path());
    let sender = ini.sender();
    let session = ini.session_ref(TW_ISLD).unwrap();
    let mut round_trips = |n: usize| {
        for i in 0..n {
            let before = got.load(Ordering::Relaxed);
            if i % 2 == 0 {
                sender
                    .send(session, b"D", |enc| order_fields(enc, b"ORDER"))
                    .unwrap();
            } else {
                // Every other order typed: the same fields through the generated setters.
                sender
                    .send_typed::<fix44::NewOrderSingle>(session, |order| {
                        order
                            .cl_ord_id("ORDER")
                            .handl_inst(
                                HandlInst::AutomatedExecutionOrderPrivateNoBrokerIntervention,
                            )
                            .order_qty(Decimal::new(100, 0))
                            .ord_type(OrdType::Market)
                            .side(Side::Buy)
                            .symbol("PEREGRINE")
                            .transact_time(UtcTimestamp::from_unix_nanos(
                                1_767_225_600_000_000_000,
                                TimePrecision::Millis,
                            ));
                    })
                    .unwrap();
            }
            let start = Instant::now();
            while got.load(Ordering::Relaxed) == before {
                ini.turn().unwrap();
                acc.turn().unwrap();
                assert!(start.elapsed() < Duration::from_secs(5), "no echo");
            }
        }
    };
    round_trips(2_000);
    const N: usize = 2_000;
    let ((), n) = allocations_in(|| round_trips(N));
    let per = n as f64 / N as f64;
    eprintln!("{per} allocations per round trip through a Sender");
    assert!(
        per < 0.01,
        "{per} allocations per round trip through a Sender"
    );
}

/// Regression: a slot's body buffer was sized to the first body it carried, so
/// once every slot had been used, a message one byte longer (a ClOrdID counter
/// gaining a digit) reallocated, once per slot: up to 4,096 allocations long
/// after warm-up (found by `peregrine bench send`, whose ClOrdIDs cross 100,000).
#[test]
fn a_longer_body_after_warm_up_allocates_nothing() {
    assert!(is_counting());
    let dir = tempfile::tempdir().unwrap();
    const SLOTS: usize = 8;
    let mut engine = engine_with(
        &initiator_cfg(1, ""),
        &dir.path().join("x.cfg"),
        EngineOptions {
            idle: Idle::busy_spin(),
            send_queue: SLOTS,
            ..EngineOptions::default()
        },
        StoreKind::Memory,
        &mut echo,
    );
    let sender = engine.sender();
    let session = engine.session_ref(TW_ISLD).unwrap();
    let order = |id: &'static [u8]| {
        move |m: &mut peregrine_codec::MessageEncoder<'_>| {
            m.str(11, id).str(55, b"PEREGRINE").char(54, b'1');
        }
    };
    // Warm-up: every slot made and used once (the engine takes them back).
    for _ in 0..SLOTS {
        sender.send(session, b"D", order(b"9")).unwrap();
    }
    engine.turn().unwrap();
    // Bodies one byte longer, through every slot, on this thread.
    let ((), n) = allocations_in(|| {
        for _ in 0..SLOTS {
            sender.send(session, b"D", order(b"10")).unwrap();
        }
    });
    assert_eq!(n, 0, "{n} allocations sending {SLOTS} longer bodies");
}

//! The engine's steady state allocates nothing: after warm-up, order round
//! trips between an initiator and an acceptor (echo) over loopback, with
//! message logs on, cost no allocation on either side.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_alloc::{allocations_in, is_counting, CountingAllocator};
use peregrine_codec::value::{Decimal, TimePrecision, UtcTimestamp};
use peregrine_codec::MessageView;
use peregrine_engine::config::Settings;
use peregrine_engine::fix::{build_session, BoxedFixSession, StoreKind};
use peregrine_engine::{now_nanos, Engine, EngineOptions, Idle};
use peregrine_messages::fix44::{
    self,
    enums::{HandlInst, OrdType, Side},
    prelude::*,
};
use peregrine_session::{AppReject, Application, EchoApp, Outbox, SessionId};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

struct Count(Arc<AtomicUsize>);

impl Application for Count {
    fn from_app(
        &mut self,
        _msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.0.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

fn engine(
    text: &str,
    dir: &Path,
    app: &mut dyn FnMut() -> Box<dyn Application + Send>,
) -> Engine<BoxedFixSession> {
    let settings = Settings::parse(text, &dir.join("x.cfg")).unwrap();
    let mut e = Engine::new(EngineOptions {
        idle: Idle::busy_spin(),
        message_logs: true,
        stop_flag: None,
        ..EngineOptions::default()
    })
    .unwrap();
    for s in &settings.sessions {
        let d = build_session(s, StoreKind::Memory, now_nanos(), &mut |_| app()).unwrap();
        e.add_session(s, d).unwrap();
    }
    e
}

fn round_trips(
    acc: &mut Engine<BoxedFixSession>,
    ini: &mut Engine<BoxedFixSession>,
    got: &AtomicUsize,
    n: usize,
) {
    for _ in 0..n {
        let before = got.load(Ordering::Relaxed);
        ini.with_session("FIX.4.4:TW->ISLD", |d, now| {
            d.send(now, b"D", |enc| {
                enc.str(11, b"ORDER")
                    .str(21, b"1")
                    .str(38, b"100")
                    .str(40, b"1")
                    .str(54, b"1")
                    .str(55, b"PEREGRINE")
                    .str(60, b"20260101-00:00:00.000");
            })
            .unwrap();
        })
        .unwrap();
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
    let mut acc = engine(
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
         FileLogPath=log\n[SESSION]\nBeginString=FIX.4.4\n",
        dir.path(),
        &mut || Box::new(EchoApp::new(None)),
    );
    let port = acc.listener_addrs()[0].port();
    let got = Arc::new(AtomicUsize::new(0));
    let counter = got.clone();
    let mut ini = engine(
        &format!(
            "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
             SenderCompID=TW\nTargetCompID=ISLD\nHeartBtInt=30\nUseDataDictionary=N\nFileLogPath=log\n\
             [SESSION]\nBeginString=FIX.4.4\n"
        ),
        dir.path(),
        &mut || Box::new(Count(counter.clone())),
    );
    let start = Instant::now();
    while !(acc.sessions()[0].logged_on && ini.sessions()[0].logged_on) {
        acc.turn().unwrap();
        ini.turn().unwrap();
        assert!(start.elapsed() < Duration::from_secs(10), "no logon");
    }
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
    let mut acc = engine(
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
         FileLogPath=log\n[SESSION]\nBeginString=FIX.4.4\n",
        dir.path(),
        &mut || Box::new(EchoApp::new(None)),
    );
    let port = acc.listener_addrs()[0].port();
    let got = Arc::new(AtomicUsize::new(0));
    let counter = got.clone();
    let mut ini = engine(
        &format!(
            "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
             SenderCompID=TW\nTargetCompID=ISLD\nHeartBtInt=30\nUseDataDictionary=N\nFileLogPath=log\n\
             [SESSION]\nBeginString=FIX.4.4\n"
        ),
        dir.path(),
        &mut || Box::new(Count(counter.clone())),
    );
    let start = Instant::now();
    while !(acc.sessions()[0].logged_on && ini.sessions()[0].logged_on) {
        acc.turn().unwrap();
        ini.turn().unwrap();
        assert!(start.elapsed() < Duration::from_secs(10), "no logon");
    }
    let sender = ini.sender();
    let session = ini.session_ref("FIX.4.4:TW->ISLD").unwrap();
    let mut round_trips = |n: usize| {
        for i in 0..n {
            let before = got.load(Ordering::Relaxed);
            if i % 2 == 0 {
                sender
                    .send(session, b"D", |enc| {
                        enc.str(11, b"ORDER")
                            .str(21, b"1")
                            .str(38, b"100")
                            .str(40, b"1")
                            .str(54, b"1")
                            .str(55, b"PEREGRINE")
                            .str(60, b"20260101-00:00:00.000");
                    })
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
    let settings = Settings::parse(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=1\n\
         SenderCompID=TW\nTargetCompID=ISLD\nUseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n",
        &dir.path().join("x.cfg"),
    )
    .unwrap();
    const SLOTS: usize = 8;
    let mut engine = Engine::new(EngineOptions {
        idle: Idle::busy_spin(),
        send_queue: SLOTS,
        ..EngineOptions::default()
    })
    .unwrap();
    let s = &settings.sessions[0];
    let d = build_session(s, StoreKind::Memory, now_nanos(), &mut |_| {
        Box::new(EchoApp::new(None))
    })
    .unwrap();
    engine.add_session(s, d).unwrap();
    let sender = engine.sender();
    let session = engine.session_ref("FIX.4.4:TW->ISLD").unwrap();
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

//! Sending from other threads through a [`Sender`]: every message arrives,
//! a blocked engine wakes at once, a full queue is an error, a stopped
//! engine is an error. Over real sockets on 127.0.0.1.

use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_codec::MessageView;
use peregrine_engine::{EngineBuilder, EngineOptions, Idle, RunningEngine, SubmitError};
use peregrine_session::{AppReject, Application, Outbox, SessionId};

/// Answers each order with an ExecutionReport and notes when it came.
#[derive(Default)]
struct Venue {
    orders: Vec<(String, Instant)>,
}

impl Application for Venue {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let at = Instant::now();
        let cl_ord_id = msg.get(11).unwrap_or(b"?");
        self.orders
            .push((String::from_utf8_lossy(cl_ord_id).into_owned(), at));
        out.send(b"8", |m| {
            m.str(11, cl_ord_id).str(39, b"0").str(150, b"0");
        })
        .map(|_| ())
        .map_err(|_| AppReject::UnsupportedMessageType)
    }
}

/// Keeps the ClOrdIDs of the ExecutionReports it receives.
#[derive(Default)]
struct Client {
    acks: Vec<String>,
}

impl Application for Client {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.acks
            .push(String::from_utf8_lossy(msg.get(11).unwrap_or(b"?")).into_owned());
        Ok(())
    }
}

const VENUE: &str = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n\
    SocketAcceptAddress=127.0.0.1\nSenderCompID=VENUE\nTargetCompID=CLIENT\n\
    UseDataDictionary=N\nHeartBtInt=30\n[SESSION]\nBeginString=FIX.4.4\n";

fn client_cfg(port: u16, extra: &str) -> String {
    format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\n\
         SocketConnectPort={port}\nSenderCompID=CLIENT\nTargetCompID=VENUE\n\
         UseDataDictionary=N\nHeartBtInt=30\nReconnectInterval=1\n{extra}\n\
         [SESSION]\nBeginString=FIX.4.4\n"
    )
}

const CLIENT: &str = "FIX.4.4:CLIENT->VENUE";

/// A venue and a client (its `.cfg` with `extra` lines), each on its own
/// thread, logged on to each other.
fn logged_on_pair(extra: &str) -> (RunningEngine<Venue>, RunningEngine<Client>) {
    let venue = EngineBuilder::parse(VENUE, "venue.cfg")
        .unwrap()
        .start(|_| Venue::default())
        .unwrap();
    let port = venue.listener_addrs()[0].port();
    let client = EngineBuilder::parse(&client_cfg(port, extra), "client.cfg")
        .unwrap()
        .start(|_| Client::default())
        .unwrap();
    assert!(client.wait_logged_on(Duration::from_secs(10)), "no logon");
    (venue, client)
}

#[test]
fn orders_from_other_threads_are_all_answered_once() {
    let (venue, client) = logged_on_pair("");
    let session = client.session_ref(CLIENT).unwrap();
    const PER_THREAD: usize = 500;
    let producers: Vec<_> = (0..4)
        .map(|t| {
            let sender = client.sender();
            std::thread::spawn(move || {
                let mut full = 0;
                for i in 0..PER_THREAD {
                    let id = format!("T{t}-{i}");
                    loop {
                        match sender.send(session, b"D", |m| {
                            m.str(11, id.as_bytes())
                                .str(55, b"PEREGRINE")
                                .char(54, b'1');
                        }) {
                            Ok(()) => break,
                            Err(SubmitError::QueueFull) => {
                                full += 1;
                                std::thread::yield_now();
                            }
                            Err(e) => panic!("{e}"),
                        }
                    }
                }
                full
            })
        })
        .collect();
    for p in producers {
        p.join().unwrap();
    }
    // 1 Logon + 2,000 ExecutionReports received.
    let start = Instant::now();
    while client.sessions(Duration::from_secs(5)).unwrap()[0].next_target_seq < 2_002 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "not all answered"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let client = client.stop().unwrap();
    let venue = venue.stop().unwrap();
    let mut acks = client.application(CLIENT).unwrap().acks.clone();
    acks.sort();
    let mut want: Vec<String> = (0..4)
        .flat_map(|t| (0..PER_THREAD).map(move |i| format!("T{t}-{i}")))
        .collect();
    want.sort();
    assert_eq!(acks, want, "every order answered exactly once");
    assert_eq!(
        venue
            .application("FIX.4.4:VENUE->CLIENT")
            .unwrap()
            .orders
            .len(),
        2_000
    );
    assert_eq!(client.sessions()[0].send_failures, 0);
}

/// Regression: the engine blocked in `epoll` for up to 100 ms (its timed
/// poll) before it saw a message queued by another thread.
#[test]
fn a_blocked_engine_wakes_at_once() {
    let (venue, client) = logged_on_pair("IdleStrategy=block");
    let sender = client.sender();
    let session = client.session_ref(CLIENT).unwrap();
    let mut sent = Vec::new();
    for i in 0..15 {
        // Long enough for the engine to be blocked again.
        std::thread::sleep(Duration::from_millis(120));
        sent.push(Instant::now());
        sender
            .send(session, b"D", |m| {
                m.str(11, format!("W{i}").as_bytes());
            })
            .unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    let _client = client.stop().unwrap();
    let venue = venue.stop().unwrap();
    let orders = &venue.application("FIX.4.4:VENUE->CLIENT").unwrap().orders;
    assert_eq!(orders.len(), 15);
    let mut delays: Vec<Duration> = orders
        .iter()
        .zip(&sent)
        .map(|((_, at), sent)| at.duration_since(*sent))
        .collect();
    delays.sort();
    // Woken by the sender: well under a millisecond on an idle machine. The
    // timed poll alone would give a median near 50 ms.
    let median = delays[delays.len() / 2];
    assert!(
        median < Duration::from_millis(20),
        "median {median:?}: {delays:?}"
    );
}

#[test]
fn a_full_queue_is_an_error_and_nothing_is_dropped() {
    let mut engine = EngineBuilder::parse(&client_cfg(1, ""), "client.cfg")
        .unwrap()
        .options(EngineOptions {
            send_queue: 4,
            idle: Idle::busy_spin(),
            ..EngineOptions::default()
        })
        .build(|_| Client::default())
        .unwrap();
    let sender = engine.sender();
    let session = engine.session_ref(CLIENT).unwrap();
    let order = |m: &mut peregrine_codec::MessageEncoder<'_>| {
        m.str(11, b"X");
    };
    for _ in 0..4 {
        sender.send(session, b"D", order).unwrap();
    }
    assert_eq!(
        sender.send(session, b"D", order),
        Err(SubmitError::QueueFull)
    );
    assert_eq!(sender.queued(), 4);
    engine.turn().unwrap();
    assert_eq!(sender.queued(), 0, "the engine took all four");
    sender.send(session, b"D", order).unwrap();
    assert_eq!(
        sender.send(session, b"", order),
        Err(SubmitError::BadMsgType)
    );
    assert_eq!(
        sender.send_raw(session, b"D", b"11=X"),
        Err(SubmitError::BadBody)
    );
    drop(engine);
    assert_eq!(
        sender.send(session, b"D", order),
        Err(SubmitError::EngineStopped)
    );
}

#[test]
fn a_pre_encoded_body_is_sent_as_it_is() {
    // A gateway forwarding what it received: the body's bytes reach the venue as they
    // were given, under the session's own header.
    let (venue, client) = logged_on_pair("");
    let session = client.session_ref(CLIENT).unwrap();
    let sender = client.sender();
    std::thread::spawn(move || {
        sender.send_raw(session, b"D", b"11=RAW-1\x0155=PEREGRINE\x0154=1\x01")
    })
    .join()
    .unwrap()
    .unwrap();
    let start = Instant::now();
    while client.sessions(Duration::from_secs(5)).unwrap()[0].next_target_seq < 3 {
        assert!(start.elapsed() < Duration::from_secs(10), "no answer");
        std::thread::sleep(Duration::from_millis(10));
    }
    let client = client.stop().unwrap();
    let venue = venue.stop().unwrap();
    assert_eq!(client.application(CLIENT).unwrap().acks, ["RAW-1"]);
    let orders = &venue.application("FIX.4.4:VENUE->CLIENT").unwrap().orders;
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].0, "RAW-1");
}

#[test]
fn a_sender_is_send_sync_and_clone() {
    fn check<T: Send + Sync + Clone + 'static>() {}
    check::<peregrine_engine::Sender>();
    let _ = Arc::new(());
}

/// Regression: the engine took every message off the queue whether or not the
/// session's socket took its bytes, so a peer that does not read never made
/// the queue full: the session's outbound buffer grew (up to
/// `MaxOutboundQueueBytes`) and then the session was disconnected as a slow
/// consumer, while producers never saw `QueueFull`. Now the session holds its
/// senders' messages once `SEND_HOLD_BYTES` wait, the queue fills, producers
/// see `QueueFull`, and everything arrives, in order, once the peer reads.
#[test]
fn a_peer_that_does_not_read_fills_the_queue() {
    use peregrine_bench::send::{field, order, Counterparty, Polled};
    use peregrine_engine::sender::SEND_HOLD_BYTES;
    use std::sync::atomic::{AtomicBool, Ordering};

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let client = EngineBuilder::parse(
        &client_cfg(
            port,
            "SocketSendBufferSize=65536\nMaxOutboundQueueBytes=1048576",
        ),
        "client.cfg",
    )
    .unwrap()
    .options(EngineOptions {
        send_queue: 256,
        ..EngineOptions::default()
    })
    .start(|_| Client::default())
    .unwrap();
    let mut peer = Counterparty::accept(&listener, Duration::from_secs(10)).unwrap();
    assert!(client.wait_logged_on(Duration::from_secs(10)), "no logon");
    // ~170 bytes each: several MiB, far more than the socket buffers and the
    // 1 MiB slow-consumer limit.
    const N: u64 = 20_000;
    let full = Arc::new(AtomicBool::new(false));
    let producer = {
        let (sender, session, full) = (
            client.sender(),
            client.session_ref(CLIENT).unwrap(),
            full.clone(),
        );
        std::thread::spawn(move || {
            for i in 0..N {
                loop {
                    match sender.send(session, b"D", |m| order(m, 0, i)) {
                        Ok(()) => break,
                        Err(SubmitError::QueueFull) => {
                            full.store(true, Ordering::Relaxed);
                            std::thread::sleep(Duration::from_micros(100));
                        }
                        Err(e) => panic!("{e}"),
                    }
                }
            }
        })
    };
    // Half a second of not reading: the socket buffers fill, then the queue.
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        full.load(Ordering::Relaxed) && !producer.is_finished(),
        "a peer that does not read must fill the queue (and keep the producer waiting)"
    );
    let info = &client.sessions(Duration::from_secs(5)).unwrap()[0];
    assert!(
        info.logged_on && !info.slow_consumer,
        "still logged on: {info:?}"
    );
    assert!(
        info.pending_outbound < SEND_HOLD_BYTES + 1024,
        "the outbound buffer stays small: {info:?}"
    );
    // The peer reads now: every order arrives, once, in order.
    peer.set_nonblocking(false).unwrap();
    let mut next = 0u64;
    let start = Instant::now();
    while next < N {
        assert!(start.elapsed() < Duration::from_secs(60), "{next} of {N}");
        let polled = peer
            .poll(&mut |m| {
                if field(m, b"35") == Some(b"D") {
                    assert_eq!(field(m, b"11"), Some(next.to_string().as_bytes()));
                    next += 1;
                }
            })
            .unwrap();
        assert_ne!(polled, Polled::Closed, "disconnected after {next} of {N}");
    }
    producer.join().unwrap();
    let info = &client.sessions(Duration::from_secs(5)).unwrap()[0];
    assert!(info.logged_on && info.send_failures == 0, "{info:?}");
}

/// Regression: once `RunningEngine::stop` had returned the engine, a `Sender`
/// still accepted messages (`Ok`) that nothing would ever send; only dropping
/// the engine closed the queue. Now the shutdown sends what was queued (before
/// the Logout) and closes the queue.
#[test]
fn a_stopped_engine_refuses_messages() {
    let (venue, client) = logged_on_pair("");
    let sender = client.sender();
    let session = client.session_ref(CLIENT).unwrap();
    let order = |id: &'static [u8]| {
        move |m: &mut peregrine_codec::MessageEncoder<'_>| {
            m.str(11, id).str(55, b"PEREGRINE").char(54, b'1');
        }
    };
    sender.send(session, b"D", order(b"BEFORE")).unwrap();
    let engine = client.stop().unwrap();
    assert_eq!(
        sender.send(session, b"D", order(b"AFTER")),
        Err(SubmitError::EngineStopped),
        "the engine is stopped but still here"
    );
    let venue = venue.stop().unwrap();
    let orders: Vec<&str> = venue
        .application("FIX.4.4:VENUE->CLIENT")
        .unwrap()
        .orders
        .iter()
        .map(|(id, _)| id.as_str())
        .collect();
    assert_eq!(
        orders,
        ["BEFORE"],
        "queued before the stop: sent before the Logout"
    );
    drop(engine);
}

#[test]
fn send_timeout_waits_for_room_and_gives_up_at_its_deadline() {
    let mut engine = EngineBuilder::parse(&client_cfg(1, ""), "client.cfg")
        .unwrap()
        .options(EngineOptions {
            send_queue: 2,
            idle: Idle::busy_spin(),
            ..EngineOptions::default()
        })
        .build(|_| Client::default())
        .unwrap();
    let sender = engine.sender();
    let session = engine.session_ref(CLIENT).unwrap();
    let order = |m: &mut peregrine_codec::MessageEncoder<'_>| {
        m.str(11, b"X");
    };
    for _ in 0..2 {
        sender.send(session, b"D", order).unwrap();
    }
    // Full, and nobody turns the engine: it gives up at its deadline.
    let started = Instant::now();
    let late = sender.send_timeout(session, b"D", Duration::from_millis(50), order);
    assert_eq!(late, Err(SubmitError::QueueFull));
    assert!(started.elapsed() >= Duration::from_millis(50));
    // Full, and the engine turns 100 ms later: it waits, then queues.
    let producer = {
        let sender = sender.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            let sent = sender.send_timeout(session, b"D", Duration::from_secs(10), |m| {
                m.str(11, b"Y");
            });
            (sent, started.elapsed())
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    engine.turn().unwrap();
    let (sent, waited) = producer.join().unwrap();
    assert_eq!(sent, Ok(()));
    assert!(waited >= Duration::from_millis(90), "{waited:?}");
    assert_eq!(sender.queued(), 1, "the waiting message was queued");
    // A bad MsgType is refused at once, not waited on.
    assert_eq!(
        sender.send_timeout(session, b"", Duration::from_secs(10), order),
        Err(SubmitError::BadMsgType)
    );
}

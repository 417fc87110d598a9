//! Aeron IPC with the embedded media driver: the gateway ⇄ executor round trip, large
//! messages in fragments, and back pressure.

mod common;

use common::*;
use peregrine_aeron::messages::*;
use peregrine_aeron::{
    AeronClient, Backoff, BusySpin, Channel, DriverConfig, IdleStrategy, PublishError, Refusal,
    Subscriber,
};
use std::time::{Duration, Instant};

/// Poll until `want` messages arrived (or PATIENCE passes), handing each to `f`.
fn receive(sub: &mut Subscriber, want: u64, mut f: impl FnMut(&[u8])) -> u64 {
    let start = Instant::now();
    let mut got = 0u64;
    let mut idle = Backoff::default();
    while got < want && start.elapsed() < PATIENCE {
        let work = sub
            .poll(
                |b| {
                    got += 1;
                    f(b)
                },
                10,
            )
            .unwrap();
        idle.idle(work);
    }
    got
}

#[test]
fn new_order_to_executor_and_execution_report_back() {
    const N: u64 = 200;
    let gateway = AeronClient::embedded(&DriverConfig::default()).unwrap();
    let dir = gateway.dir().to_string();
    let executor = std::thread::spawn(move || run_executor(dir, Channel::ipc(), Channel::ipc(), N));

    let mut reports = gateway.subscriber(&Channel::ipc(), REPORTS).unwrap();
    let mut orders = gateway.publisher(&Channel::ipc(), ORDERS).unwrap();
    orders
        .wait_connected(&mut Backoff::default(), PATIENCE)
        .unwrap();

    for n in 0..N {
        let sent = order(n);
        send(&mut orders, &sent).unwrap();
        let mut report = None;
        let got = receive(&mut reports, 1, |bytes| {
            let r = ExecutionReport::decode(bytes).unwrap();
            report = Some((
                r.session_id,
                r.cl_ord_id,
                r.exec_id,
                r.last_px,
                r.ord_status,
                r.side,
            ));
        });
        assert_eq!(got, 1, "report for order {n}");
        let (session, cl_ord_id, exec_id, last_px, status, side) = report.unwrap();
        assert_eq!(session, n);
        assert_eq!(cl_ord_id, sent.cl_ord_id);
        assert_eq!(exec_id, n);
        assert_eq!(last_px, sent.price);
        assert_eq!(status, OrdStatus::Filled);
        assert_eq!(side, sent.side);
    }
    assert_eq!(executor.join().unwrap(), Ok(N));

    let stats = orders.stats();
    assert_eq!(stats.messages, N);
    assert_eq!(stats.claimed, N, "small messages go through try_claim");
    assert_eq!(stats.offered, 0);
    assert_eq!(reports.stats().messages, N);
    assert_eq!(gateway.errors(), 0);
}

#[test]
fn large_messages_are_fragmented_and_reassembled() {
    let client = AeronClient::embedded(&DriverConfig::default()).unwrap();
    let mut sub = client.subscriber(&Channel::ipc(), 7).unwrap();
    let mut publ = client.publisher(&Channel::ipc(), 7).unwrap();
    publ.wait_connected(&mut Backoff::default(), PATIENCE)
        .unwrap();
    let claim_limit = publ.max_claim_length();
    assert!(claim_limit < 2048, "claim limit {claim_limit}");

    // An execution report whose text spans ~150 frames.
    let text: String = (0..200_000u32)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let mut report = fill_for(&order(1), 1);
    report.text = &text;
    assert!(report.encoded_len() > claim_limit);
    send(&mut publ, &report).unwrap();
    // A small one after it, through the claim path, arrives whole and in order.
    send(&mut publ, &order(2)).unwrap();

    let mut seen = Vec::new();
    let got = receive(&mut sub, 2, |bytes| match Message::decode(bytes).unwrap() {
        Message::ExecutionReport(r) => {
            assert_eq!(r.text, text);
            assert_eq!(r.cl_ord_id, order(1).cl_ord_id);
            seen.push("report");
        }
        Message::NewOrder(o) => {
            assert_eq!(o, order(2));
            seen.push("order");
        }
        other => panic!("unexpected {other:?}"),
    });
    assert_eq!(got, 2);
    assert_eq!(seen, ["report", "order"]);
    let (ps, ss) = (publ.stats(), sub.stats());
    assert_eq!((ps.offered, ps.claimed), (1, 1));
    let frames = report.encoded_len().div_ceil(claim_limit) as u64;
    assert!(
        ss.fragments > frames,
        "fragments {} frames {frames}",
        ss.fragments
    );
    assert_eq!(ss.messages, 2);

    // Raw bytes: the largest message the publication takes, then one byte too many.
    let max = publ.max_message_length();
    let big: Vec<u8> = (0..max).map(|i| (i % 251) as u8).collect();
    send(&mut publ, big.as_slice()).unwrap();
    let got = receive(&mut sub, 1, |bytes| assert!(bytes == big.as_slice()));
    assert_eq!(got, 1);
    let too_big = vec![0u8; max + 1];
    assert_eq!(
        publ.publish_bytes(&too_big),
        Err(PublishError::TooLarge { len: max + 1, max })
    );
}

#[test]
fn back_pressure_is_reported_counted_and_loses_nothing() {
    let client = AeronClient::embedded(&DriverConfig::default()).unwrap();
    // A 64 KiB term: the subscriber can fall at most a few hundred orders behind.
    let channel = Channel::ipc().term_length(64 * 1024);

    // No subscriber yet: not connected, counted, nothing sent.
    let mut publ = client.publisher(&channel, 3).unwrap();
    assert_eq!(
        publ.publish(&order(0)),
        Err(PublishError::Refused(Refusal::NotConnected))
    );
    assert_eq!(publ.stats().not_connected, 1);
    assert_eq!(publ.stats().messages, 0);

    let mut sub = client.subscriber(&channel, 3).unwrap();
    publ.wait_connected(&mut Backoff::default(), PATIENCE)
        .unwrap();

    // The subscriber does not poll: publish until the window is full.
    let mut sent = 0u64;
    let refusal = loop {
        match publ.publish(&order(sent)) {
            Ok(_) => sent += 1,
            Err(e) => break e,
        }
        assert!(sent < 100_000, "never back-pressured");
    };
    assert_eq!(refusal, PublishError::Refused(Refusal::BackPressured));
    assert!(refusal.is_retryable());
    assert!(sent > 10, "sent {sent}");
    assert_eq!(publ.stats().back_pressured, 1);
    assert_eq!(publ.stats().messages, sent);

    // Retrying against a stalled subscriber gives up at the deadline, with a count.
    let t = Instant::now();
    let gave_up = publ.publish_retry(&order(sent), &mut BusySpin, Duration::from_millis(50));
    assert!(
        matches!(gave_up, Err(PublishError::GaveUp { last: Refusal::BackPressured, attempts }) if attempts > 1)
    );
    assert!(t.elapsed() >= Duration::from_millis(50));
    assert_eq!(publ.stats().gave_up, 1);
    assert!(publ.stats().back_pressured > 2);

    // Once it polls, every accepted order arrives, in order, and publishing resumes.
    let mut next = 0u64;
    let got = receive(&mut sub, sent, |bytes| {
        let o = NewOrder::decode(bytes).unwrap();
        assert_eq!(o.session_id, next, "gap or reordering");
        next += 1;
    });
    assert_eq!(got, sent);
    send(&mut publ, &order(sent)).unwrap();
    let got = receive(&mut sub, 1, |bytes| {
        assert_eq!(NewOrder::decode(bytes).unwrap(), order(sent))
    });
    assert_eq!(got, 1);
    assert_eq!(publ.stats().messages, sent + 1);
    assert_eq!(sub.stats().messages, sent + 1);
}

#[test]
fn external_driver_by_directory() {
    // A driver started on its own (as a separate process would be), reached through its
    // directory: the `aeron.dir` option.
    let driver = peregrine_aeron::MediaDriver::launch(&DriverConfig::default()).unwrap();
    let a = AeronClient::connect(&peregrine_aeron::ClientConfig::with_dir(driver.dir())).unwrap();
    let b = AeronClient::connect(&peregrine_aeron::ClientConfig::with_dir(driver.dir())).unwrap();
    assert_eq!(a.dir(), driver.dir());
    let mut sub = b.subscriber(&Channel::ipc(), 5).unwrap();
    let mut publ = a.publisher(&Channel::ipc(), 5).unwrap();
    publ.wait_connected(&mut Backoff::default(), PATIENCE)
        .unwrap();
    send(&mut publ, &order(9)).unwrap();
    assert_eq!(
        receive(&mut sub, 1, |b| assert_eq!(
            NewOrder::decode(b).unwrap(),
            order(9)
        )),
        1
    );
    drop((publ, sub, a, b));
    let dir = driver.dir().to_string();
    drop(driver);
    assert!(
        !std::path::Path::new(&dir).join("cnc.dat").exists(),
        "fresh directory removed"
    );
}

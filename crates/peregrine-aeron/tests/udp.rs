//! Aeron UDP on loopback (127.0.0.1): the gateway ⇄ executor round trip through the
//! driver's sender and receiver, as it runs between hosts.

mod common;

use common::*;
use peregrine_aeron::messages::*;
use peregrine_aeron::{AeronClient, Backoff, Channel, DriverConfig, IdleStrategy};
use std::net::{SocketAddr, UdpSocket};
use std::time::Instant;

/// A loopback UDP port that was free a moment ago.
fn free_port() -> SocketAddr {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

#[test]
fn round_trip_over_udp_loopback() {
    const N: u64 = 100;
    let orders_ch = Channel::udp(free_port());
    let reports_ch = Channel::udp(free_port());
    let gateway = AeronClient::embedded(&DriverConfig::default()).unwrap();
    let dir = gateway.dir().to_string();
    let (o, r) = (orders_ch.clone(), reports_ch.clone());
    let executor = std::thread::spawn(move || run_executor(dir, o, r, N));

    let mut reports = gateway.subscriber(&reports_ch, REPORTS).unwrap();
    let mut orders = gateway.publisher(&orders_ch, ORDERS).unwrap();
    orders
        .wait_connected(&mut Backoff::default(), PATIENCE)
        .unwrap();

    let mut idle = Backoff::default();
    for n in 0..N {
        send(&mut orders, &order(n)).unwrap();
        let mut got = None;
        let start = Instant::now();
        while got.is_none() && start.elapsed() < PATIENCE {
            let work = reports
                .poll(
                    |bytes| {
                        got =
                            Some(ExecutionReport::decode(bytes).map(|r| (r.session_id, r.exec_id)))
                    },
                    10,
                )
                .unwrap();
            idle.idle(work);
        }
        assert_eq!(got, Some(Ok((n, n))), "report for order {n}");
    }
    assert_eq!(executor.join().unwrap(), Ok(N));
    assert_eq!(orders.stats().claimed, N);
    assert_eq!(gateway.errors(), 0);
}

#[test]
fn large_message_over_udp_is_reassembled() {
    let ch = Channel::udp(free_port());
    let client = AeronClient::embedded(&DriverConfig::default()).unwrap();
    let mut sub = client.subscriber(&ch, 9).unwrap();
    let mut publ = client.publisher(&ch, 9).unwrap();
    publ.wait_connected(&mut Backoff::default(), PATIENCE)
        .unwrap();
    let text = "0123456789".repeat(6_000);
    let mut report = fill_for(&order(3), 3);
    report.text = &text;
    send(&mut publ, &report).unwrap();
    let mut ok = false;
    let start = Instant::now();
    let mut idle = Backoff::default();
    while !ok && start.elapsed() < PATIENCE {
        let work = sub
            .poll(
                |b| {
                    ok = ExecutionReport::decode(b)
                        .map(|r| r.text == text)
                        .unwrap_or(false)
                },
                10,
            )
            .unwrap();
        idle.idle(work);
    }
    assert!(ok);
    assert!(sub.stats().fragments > 40);
}

//! Shared pieces of the transport tests: sample messages and a toy executor.
#![allow(dead_code)]

use peregrine_aeron::messages::*;
use peregrine_aeron::{AeronClient, Backoff, Channel, ClientConfig, PublishError, TransportError};
use std::time::{Duration, Instant};

/// Stream ids of the two directions.
pub const ORDERS: i32 = 1001;
/// Executor to gateway.
pub const REPORTS: i32 = 1002;

/// Generous bound for anything that should take micro- to milliseconds.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// Order number `n` of a test run.
pub fn order(n: u64) -> NewOrder {
    NewOrder {
        session_id: n,
        transact_time: 1_700_000_000_000_000_000 + n,
        price: Decimal64::new(10_000 + n as i64, -2),
        order_qty: Decimal64::new(100, 0),
        cl_ord_id: cl_ord_id(n),
        symbol: pack(b"MSFT").unwrap(),
        account: pack(b"ACC").unwrap(),
        side: if n % 2 == 0 { Side::Buy } else { Side::Sell },
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::Day,
    }
}

/// `ORD-<n>`, formatted without allocating (the allocation test sends these).
pub fn cl_ord_id(n: u64) -> ClOrdId {
    let mut id = [0u8; CL_ORD_ID_LEN];
    id[..4].copy_from_slice(b"ORD-");
    let mut digits = [0u8; 20];
    let mut len = 0;
    let mut v = n;
    loop {
        digits[len] = b'0' + (v % 10) as u8;
        len += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for i in 0..len {
        id[4 + i] = digits[len - 1 - i];
    }
    id
}

/// The executor's fill for `order`: OrderID `exec_id + 1_000_000`, one ns after the order.
pub fn fill_for(order: &NewOrder, exec_id: u64) -> ExecutionReport<'static> {
    ExecutionReport {
        transact_time: order.transact_time + 1,
        ..ExecutionReport::full_fill(order, exec_id + 1_000_000, exec_id)
    }
}

/// Run a toy executor on the driver in `dir`: answer each of `count` NewOrders on
/// `orders` with a filled ExecutionReport on `reports`. Returns how many it answered.
pub fn run_executor(
    dir: String,
    orders: Channel,
    reports: Channel,
    count: u64,
) -> Result<u64, String> {
    let client = AeronClient::connect(&ClientConfig::with_dir(dir)).map_err(|e| e.to_string())?;
    let mut sub = client
        .subscriber(&orders, ORDERS)
        .map_err(|e| e.to_string())?;
    let mut publ = client
        .publisher(&reports, REPORTS)
        .map_err(|e| e.to_string())?;
    let mut idle = Backoff::default();
    let mut answered = 0u64;
    let mut failure: Option<String> = None;
    let start = Instant::now();
    while answered < count && failure.is_none() {
        if start.elapsed() > PATIENCE {
            return Err(format!("executor answered only {answered} of {count}"));
        }
        let work = sub
            .poll(
                |bytes| match NewOrder::decode(bytes) {
                    Ok(o) => {
                        let report = fill_for(&o, answered);
                        match publ.publish_retry(&report, &mut Backoff::default(), PATIENCE) {
                            Ok(_) => answered += 1,
                            Err(e) => failure = Some(format!("publish report: {e}")),
                        }
                    }
                    Err(e) => failure = Some(format!("decode order: {e}")),
                },
                10,
            )
            .map_err(|e: TransportError| e.to_string())?;
        idle_step(&mut idle, work);
    }
    match failure {
        Some(f) => Err(f),
        None => Ok(answered),
    }
}

fn idle_step(idle: &mut Backoff, work: usize) {
    use peregrine_aeron::IdleStrategy;
    idle.idle(work);
}

/// Publish `msg`, retrying refusals for up to [`PATIENCE`].
pub fn send<M: Encode + ?Sized>(
    publ: &mut peregrine_aeron::Publisher,
    msg: &M,
) -> Result<i64, PublishError> {
    publ.publish_retry(msg, &mut Backoff::default(), PATIENCE)
}

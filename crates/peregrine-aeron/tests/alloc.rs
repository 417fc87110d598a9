//! Proof, not claim: after warm-up, the order → report hop over Aeron IPC allocates
//! nothing on the Rust side: encode into a `try_claim` slot, poll through the fragment
//! assembler, decode, answer; and the large-message path (scratch buffer + `offer`,
//! reassembly) reuses its buffers too.
//!
//! The counting allocator counts the allocations of the thread under measurement, so
//! the harness's threads and the driver's thread do not disturb the count. (Aeron's C
//! code allocates with `malloc` directly, and only when publications, subscriptions and
//! images are set up.)

mod common;

use common::*;
use peregrine_aeron::messages::*;
use peregrine_aeron::{
    AeronClient, BusySpin, Channel, DriverConfig, IdleStrategy, Publisher, Subscriber,
};

#[global_allocator]
static GLOBAL: peregrine_alloc::CountingAllocator = peregrine_alloc::CountingAllocator;

use peregrine_alloc::allocations_in as counted;

struct Hop {
    orders_out: Publisher,
    orders_in: Subscriber,
    reports_out: Publisher,
    reports_in: Subscriber,
    big_text: String,
}

impl Hop {
    /// Gateway sends order `n`; executor decodes it and answers (every 50th answer with a
    /// large text); gateway decodes the answer. Returns a checksum of what was decoded.
    fn once(&mut self, n: u64) -> u64 {
        let mut idle = BusySpin;
        let sent = order(n);
        self.orders_out
            .publish_retry(&sent, &mut idle, PATIENCE)
            .unwrap();

        let mut got: Option<NewOrder> = None;
        while got.is_none() {
            let w = self
                .orders_in
                .poll(|b| got = NewOrder::decode(b).ok(), 10)
                .unwrap();
            idle.idle(w);
        }
        let o = got.unwrap();
        let mut report = fill_for(&o, n);
        if n % 50 == 0 {
            report.text = &self.big_text;
        }
        self.reports_out
            .publish_retry(&report, &mut idle, PATIENCE)
            .unwrap();

        let mut sum = None;
        while sum.is_none() {
            let w = self
                .reports_in
                .poll(
                    |b| {
                        let r = ExecutionReport::decode(b).unwrap();
                        sum = Some(
                            r.exec_id + r.text.len() as u64 + unpack(&r.cl_ord_id).len() as u64,
                        );
                    },
                    10,
                )
                .unwrap();
            idle.idle(w);
        }
        sum.unwrap()
    }
}

#[test]
fn no_allocation_per_message_after_warm_up() {
    let client = AeronClient::embedded(&DriverConfig::default()).unwrap();
    let orders_in = client.subscriber(&Channel::ipc(), ORDERS).unwrap();
    let reports_in = client.subscriber(&Channel::ipc(), REPORTS).unwrap();
    let orders_out = client.publisher(&Channel::ipc(), ORDERS).unwrap();
    let reports_out = client.publisher(&Channel::ipc(), REPORTS).unwrap();
    orders_out.wait_connected(&mut BusySpin, PATIENCE).unwrap();
    reports_out.wait_connected(&mut BusySpin, PATIENCE).unwrap();
    let mut hop = Hop {
        orders_out,
        orders_in,
        reports_out,
        reports_in,
        big_text: "x".repeat(20_000),
    };

    for n in 0..500 {
        hop.once(n);
    }
    let (sum, allocations) = counted(|| (500..10_500).map(|n| hop.once(n)).sum::<u64>());
    assert!(sum > 0);
    assert_eq!(
        allocations, 0,
        "allocations in 10,000 order/report hops after warm-up"
    );
    assert_eq!(hop.orders_out.stats().claimed, 10_500);
    assert_eq!(
        hop.reports_out.stats().offered,
        210,
        "every 50th report is large"
    );
}

//! The whole topology in process (Aeron IPC), and the transport floor, on a few orders:
//! every order comes back as the right fill, and every counter agrees.

use peregrine_topology::floor::{self, FloorConfig};
use peregrine_topology::{run, TopologyConfig};

#[test]
fn topology_and_floor_round_trips() {
    let cfg = TopologyConfig {
        warmup: 100,
        count: 1_000,
        ..TopologyConfig::default()
    };
    let mut last_progress = (0, 0);
    let r = run(&cfg, &mut |d, t| last_progress = (d, t)).expect("topology runs");
    assert_eq!(r.errors, 0, "{:?}", r.first_error);
    assert_eq!(r.fills, 1_100);
    assert_eq!(r.measured, 1_000);
    assert_eq!(r.rtt.len(), 1_000);
    assert_eq!(last_progress, (1_100, 1_100));
    assert_eq!(r.gateway.orders, 1_100);
    assert_eq!(r.gateway.reports, 1_100);
    assert_eq!((r.gateway.rejected, r.gateway.bad_reports), (0, 0));
    let ex = r.executor.expect("the executor ran in process");
    assert_eq!((ex.filled, ex.bad_orders, ex.unpublished), (1_100, 0, 0));
    // Logon + 1,100 orders one way, Logon + 1,100 reports the other (+ the Logout each
    // side sent at shutdown, counted on the gateway's side as sent and received).
    assert_eq!(r.venue_seq.0, 1_102);
    assert_eq!(r.venue_seq.1, 1_102);
    assert_eq!(r.gateway_seq.0, r.venue_seq.1 + 1);
    assert_eq!(r.gateway_seq.1, r.venue_seq.0 + 1);
    for h in &r.steps.steps {
        assert_eq!(h.len(), 1_000, "every step of every measured order");
    }

    let f = floor::run(
        &FloorConfig {
            warmup: 100,
            count: 1_000,
            ..FloorConfig::default()
        },
        &mut |_, _| {},
    )
    .expect("floor runs");
    assert_eq!(f.rtt.len(), 1_000);
    for h in &f.steps.steps {
        assert_eq!(h.len(), 1_000);
    }
}

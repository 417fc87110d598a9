//! The routing world (`--route`): a router on one engine journal between a
//! client and a venue, crashed at every point of its turn with torn writes,
//! routes every order and report exactly once.

use peregrine_sim::route::actions::{CrashPoint, End, JournalTear, Leg, RouteAction};
use peregrine_sim::route::{run_route, RouteWorld};

#[test]
fn routing_seeds_route_everything_once_through_router_crashes_at_every_point() {
    for seed in 1..=4 {
        let out = run_route(seed, 3_000);
        assert!(out.violation.is_none(), "seed {seed}: {:?}", out.violation);
        let s = &out.stats;
        assert!(s.orders > 500, "seed {seed}: {s}");
        assert_eq!(s.routed, s.orders, "seed {seed}: {s}");
        assert!(s.crashes.iter().all(|&n| n > 0), "seed {seed}: {s}");
        assert!(s.turns_torn > 0 && s.turns_kept > 0, "seed {seed}: {s}");
        assert!(s.poss_dups > 0 && s.routed_checks > 50, "seed {seed}: {s}");
    }
}

#[test]
fn a_routing_seed_replays_exactly() {
    let (a, b) = (run_route(7, 2_000), run_route(7, 2_000));
    assert_eq!(a.stats, b.stats);
    assert_eq!(a.violation, b.violation);
}

fn deliver_all() -> Vec<RouteAction> {
    let mut v = Vec::new();
    for _ in 0..4 {
        for leg in [Leg::CLIENT, Leg(1)] {
            for end in [End::Router, End::Outer] {
                v.push(RouteAction::Deliver {
                    leg,
                    end,
                    bytes: u32::MAX,
                });
            }
        }
    }
    v
}

#[test]
fn an_order_whose_turn_is_torn_is_asked_for_again_and_routed_once() {
    let mut w = RouteWorld::new(1).unwrap();
    let run = |w: &mut RouteWorld, actions: &[RouteAction]| {
        for a in actions {
            assert_eq!(w.step(*a), None, "{a}");
        }
    };
    let connect = [Leg::CLIENT, Leg(1)].map(|leg| RouteAction::Connect { leg });
    run(&mut w, &connect);
    run(&mut w, &deliver_all());
    let before = w.router_state();
    run(
        &mut w,
        &[RouteAction::Order {
            count: 1,
            payload: 10,
        }],
    );
    // The router reads the order and forwards it; the turn's write is torn
    // half-way: neither the client's number nor the forward survives.
    let torn = JournalTear {
        keep: 128,
        garbage: 17,
        hole: 0,
        seed: 3,
    };
    run(
        &mut w,
        &[RouteAction::Crash {
            input: u32::MAX,
            point: CrashPoint::InWrite,
            tear: torn,
        }],
    );
    assert_eq!(w.router_state(), before, "the torn turn is gone whole");
    assert_eq!(w.orders_routed(), 0);
    // The client logs on again, its order too high for the router: asked
    // for again, forwarded once.
    assert_eq!(w.settle(60), None);
    assert_eq!(w.orders_routed(), 1);
    let after = w.router_state();
    assert_eq!(after.up.1, before.up.1 + 2, "the order and the next Logon");
    // On the venue's side: the next Logon and one forward (not two).
    assert_eq!(
        after.downs[0].0,
        before.downs[0].0 + 2,
        "{before:?} {after:?}"
    );
}

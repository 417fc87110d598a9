//! Leadership on a real etcd (started by each test on free ports, killed at its end),
//! with 1 s leases: one winner among candidates, terms that only grow, and the faults
//! of issue 26 §5 that concern etcd — the leader frozen with SIGSTOP, and etcd itself
//! frozen.

mod support;

use std::time::{Duration, Instant};

use peregrine_ha::{HaConfig, Leadership, LeadershipEvent, LossReason, Term};
use support::{signal, wall_now, Candidate, Etcd};

const TTL: Duration = Duration::from_secs(1);

fn config(node: &str, group: &str, etcd: &Etcd) -> HaConfig {
    let mut c = HaConfig::new(node, group, [etcd.endpoint.clone()]);
    c.lease_ttl = TTL;
    c
}

/// Waits for the event `pick` accepts.
fn wait_event<T>(
    node: &Leadership,
    wait: Duration,
    mut pick: impl FnMut(&LeadershipEvent) -> Option<T>,
) -> Option<T> {
    let end = Instant::now() + wait;
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        if let Some(t) = node.next_event(left).as_ref().and_then(&mut pick) {
            return Some(t);
        }
    }
    None
}

fn won(e: &LeadershipEvent) -> Option<Term> {
    match e {
        LeadershipEvent::Won { term, .. } => Some(*term),
        _ => None,
    }
}

#[test]
fn one_of_two_candidates_wins_and_each_later_term_is_greater() {
    let etcd = Etcd::start();
    let a = Leadership::start(config("a", "g1", &etcd)).unwrap();
    let b = Leadership::start(config("b", "g1", &etcd)).unwrap();
    let end = Instant::now() + Duration::from_secs(5);
    let winner = loop {
        assert!(Instant::now() < end, "nobody won within 5 s");
        match (a.is_leader(), b.is_leader()) {
            (true, true) => panic!("two leaders at once"),
            (true, false) => break "a",
            (false, true) => break "b",
            (false, false) => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let (winner, loser) = if winner == "a" { (a, b) } else { (b, a) };
    let first = winner.gate().term_at(Instant::now()).unwrap();
    // Never both, over a second of keep-alives.
    for _ in 0..200 {
        assert!(!loser.is_leader(), "the loser leads too");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(winner.is_leader(), "the winner kept its lease alive");
    assert_eq!(
        loser.gate().leader_seen(),
        Some((winner.config().node.clone(), first)),
        "the standby sees who leads, and with which term"
    );

    // A clean stop resigns: the lease is revoked, the standby wins at once (well
    // under the TTL) with a greater term.
    let resigned = Instant::now();
    winner.stop();
    let second = wait_event(&loser, Duration::from_secs(3), won).expect("the standby won");
    let took = resigned.elapsed();
    assert!(
        took < TTL,
        "won {took:?} after the resignation, not at once"
    );
    assert!(second > first, "term {second} after term {first}");

    // A third node stands by, sees the leader, and wins the next term.
    let c = Leadership::start(config("c", "g1", &etcd)).unwrap();
    let seen = wait_event(&c, Duration::from_secs(3), |e| match e {
        LeadershipEvent::LeaderSeen { node, term, .. } => Some((node.clone(), *term)),
        _ => None,
    });
    assert_eq!(seen, Some((loser.config().node.clone(), second)));
    assert!(!c.is_leader());
    loser.stop();
    let third = wait_event(&c, Duration::from_secs(3), won).expect("c won");
    assert!(third > second, "term {third} after term {second}");
    eprintln!("terms {first} < {second} < {third}; resignation to win {took:?}");
}

/// The leader (a child process) is frozen with SIGSTOP for longer than the TTL: the
/// standby wins once etcd expires the lease, and the frozen one, continued, finds
/// its gate closed before it writes again. The order is asserted on timestamps: the
/// old leader's deadline (for every write it made) passed before the standby won.
#[test]
fn a_frozen_leader_is_deposed_and_has_stopped_writing_before_the_standby_wins() {
    let etcd = Etcd::start();
    let mut a = Candidate::start("a", "g2", &etcd.endpoint, 1);
    let a_won = a.wait_for("won", Duration::from_secs(5)).expect("a won");
    let a_term: u64 = a_won[1].parse().unwrap();
    let mut b = Candidate::start("b", "g2", &etcd.endpoint, 1);
    let seen = b
        .wait_for("seen", Duration::from_secs(5))
        .expect("b sees a");
    assert_eq!(
        (seen[1].as_str(), seen[2].parse::<u64>().unwrap()),
        ("a", a_term)
    );
    a.wait_for("write", Duration::from_secs(1))
        .expect("a writes");

    signal(a.pid(), "STOP");
    // Taken once `kill` has returned: a is frozen by then, so every check it made is
    // before this instant.
    let stopped = wall_now();
    let b_won = b.wait_for("won", Duration::from_secs(5)).expect("b won");
    let (b_term, b_won_at): (u64, u128) = (b_won[1].parse().unwrap(), b_won[2].parse().unwrap());
    assert!(b_term > a_term, "term {b_term} after {a_term}");
    std::thread::sleep(Duration::from_millis(300));
    let continued = wall_now();
    signal(a.pid(), "CONT");
    let lost = a
        .wait_for("lost", Duration::from_secs(3))
        .expect("a hears it lost");
    assert!(
        matches!(lost[3].as_str(), "deadline" | "expired"),
        "lost: {lost:?}"
    );
    a.drain(Duration::from_millis(300));

    let writes: Vec<(u64, u128, u128)> = a
        .lines_of("write")
        .iter()
        .map(|w| {
            (
                w[1].parse().unwrap(),
                w[2].parse().unwrap(),
                w[3].parse().unwrap(),
            )
        })
        .collect();
    assert!(!writes.is_empty());
    for &(term, checked, until) in &writes {
        assert_eq!(term, a_term, "a wrote under another term");
        assert!(checked < stopped, "a wrote after it was frozen: {checked}");
        assert!(
            until < b_won_at,
            "a wrote under a deadline ({until}) later than b's win ({b_won_at})"
        );
    }
    let last_deadline = writes.iter().map(|w| w.2).max().unwrap();
    let closed = a.lines_of("closed");
    assert_eq!(closed.len(), 1, "a's gate closed once: {:?}", a.seen);
    let closed_at: u128 = closed[0][2].parse().unwrap();
    assert!(
        closed_at >= continued,
        "closed at {closed_at}, continued at {continued}"
    );
    // Nothing from a after it was continued is a write.
    let after: Vec<&String> = a
        .seen
        .iter()
        .skip_while(|l| !l.starts_with("closed"))
        .collect();
    assert!(after.iter().all(|l| !l.starts_with("write")), "{after:?}");
    assert!(b
        .lines_of("write")
        .iter()
        .all(|w| w[2].parse::<u128>().unwrap() >= b_won_at));
    eprintln!(
        "a frozen at +0 ms; a's last deadline +{} ms; b won +{} ms (margin {} ms); a continued +{} ms",
        (last_deadline as i128 - stopped as i128) / 1_000_000,
        (b_won_at - stopped) / 1_000_000,
        (b_won_at - last_deadline) / 1_000_000,
        (continued - stopped) / 1_000_000
    );
    assert!(
        b_won_at - stopped < 3_000_000_000,
        "failover took {} ms",
        (b_won_at - stopped) / 1_000_000
    );
}

/// etcd frozen with SIGSTOP: no keep-alive is answered, and the leader's gate closes
/// within the TTL of the freeze by the local clock alone; once etcd is continued the
/// node campaigns again and wins a greater term.
#[test]
fn with_etcd_frozen_the_leader_steps_down_within_the_ttl() {
    let etcd = Etcd::start();
    let a = Leadership::start(config("a", "g3", &etcd)).unwrap();
    let first = wait_event(&a, Duration::from_secs(5), won).expect("a won");
    std::thread::sleep(Duration::from_millis(500)); // keep-alives going
    assert!(a.is_leader());
    let gate = a.gate();
    signal(etcd.pid(), "STOP");
    // After `kill` returned: etcd answers nothing sent after this instant.
    let stopped = Instant::now();
    // The deadline etcd's last answers left (one may still have been on its way).
    let mut last_until = stopped;
    while let Some((_, until)) = gate.lease_at(Instant::now()) {
        last_until = last_until.max(until);
        assert!(
            stopped.elapsed() < 3 * TTL,
            "still leader after {:?}",
            stopped.elapsed()
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let closed = stopped.elapsed();
    let deadline = last_until - stopped;
    assert!(
        deadline + Duration::from_millis(100) <= TTL,
        "the lease's local deadline was {deadline:?} after etcd froze: not a margin before the TTL"
    );
    // As measured by this polling thread (scheduling adds to it).
    assert!(closed <= TTL, "the gate closed {closed:?} after etcd froze");
    let reason = wait_event(&a, Duration::from_secs(2), |e| match e {
        LeadershipEvent::Lost { term, reason, .. } if *term == first => Some(*reason),
        _ => None,
    });
    assert_eq!(reason, Some(LossReason::Deadline));
    signal(etcd.pid(), "CONT");
    let again = wait_event(&a, Duration::from_secs(8), won).expect("a won again");
    assert!(again > first, "term {again} after {first}");
    eprintln!("deadline {deadline:?}, gate seen closed {closed:?} after etcd froze (TTL {TTL:?}); won again with term {again} > {first}");
}

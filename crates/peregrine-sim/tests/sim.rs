//! The simulator itself: runs replay exactly, a fault-free world delivers
//! everything and converges, and the oracle catches a broken world.

use peregrine_sim::config::SimConfig;
use peregrine_sim::faults::{generate, Action, Census, Side, Tally, Weights};
use peregrine_sim::runner::run_actions;

/// Everything in flight arrives, at the acceptor and then at the initiator.
fn deliver_both() -> [Action; 2] {
    [Side::Acceptor, Side::Initiator].map(|to| Action::Deliver { to, bytes: 1 << 16 })
}

/// `side` sends `count` messages, each with a `payload`-byte Text(58).
fn send(side: Side, count: u8, payload: u16) -> Action {
    Action::Send {
        side,
        count,
        payload,
    }
}

/// The messages that arrived, the first time or resent as a PossDup.
fn arrived(census: &Census) -> u64 {
    census.get(Tally::Delivered) + census.get(Tally::PossDupDelivered)
}

#[test]
fn a_seed_replays_exactly() {
    let cfg = SimConfig::from_seed(3);
    let actions = generate(3, 3_000, &Weights::default());
    let a = run_actions(&cfg, &actions, false);
    let b = run_actions(&cfg, &actions, false);
    assert_eq!(a.census, b.census);
    assert_eq!(a.violation, b.violation);
}

#[test]
fn without_faults_every_message_arrives_once_and_in_order() {
    let cfg = SimConfig::plain();
    let mut actions = vec![Action::Connect];
    for _ in 0..200 {
        actions.push(send(Side::Initiator, 3, 20));
        actions.push(send(Side::Acceptor, 2, 0));
        actions.push(Action::Deliver {
            to: Side::Acceptor,
            bytes: 100,
        });
        actions.push(Action::Deliver {
            to: Side::Initiator,
            bytes: 1 << 16,
        });
    }
    let out = run_actions(&cfg, &actions, false);
    assert_eq!(out.violation, None);
    // The first sends, before the Logon completed, arrive resent (PossDup).
    assert_eq!(arrived(&out.census), 1_000);
    assert!(out.census.get(Tally::PossDupDelivered) < 10);
}

#[test]
fn a_crash_before_the_commit_loses_nothing_acknowledged() {
    // Seed-independent: no schedule, no resets.
    let cfg = SimConfig::plain();
    let mut actions = vec![Action::Connect];
    for k in 0..40u8 {
        actions.push(send(Side::from_index(usize::from(k % 2)), 2, 30));
        actions.push(Action::Deliver {
            to: Side::from_index(usize::from(k % 2 == 0)),
            bytes: 150,
        });
        if k % 10 == 9 {
            actions.push(Action::Crash {
                side: Side::from_index(usize::from(k % 3 == 0)),
                before_commit: true,
                tear: peregrine_sim::store::Tear {
                    keep: k,
                    garbage: k,
                    seed: k,
                    seqnums: k,
                },
            });
            actions.push(Action::Connect);
        }
    }
    let mut cfg = cfg;
    cfg.stores = [peregrine_sim::store::StoreKind::File; 2];
    let out = run_actions(&cfg, &actions, false);
    assert_eq!(out.violation, None);
    assert_eq!(out.census.get(Tally::FileRecoveries), 4);
    // Every acknowledged message arrived (the settle's check passed), some of
    // them resent after a crash.
    assert!(arrived(&out.census) > 0);
}

/// Scheduled configurations (New York, across a DST change) with every fault,
/// unsynced file stores, logon windows and reset flags among them: clean runs,
/// with the clock crossing the schedule's boundaries and the sessions refused
/// outside the window.
#[test]
fn scheduled_and_unsynced_configurations_run_clean() {
    let (mut scheduled, mut logon_windows, mut with_resets) = (0, 0, 0);
    let mut census = peregrine_sim::faults::Census::default();
    for seed in 0..60u64 {
        let cfg = SimConfig::from_seed(seed);
        let Some(schedule) = &cfg.schedule else {
            continue;
        };
        let actions = generate(seed, 10_000, &Weights::default());
        let out = run_actions(&cfg, &actions, false);
        assert_eq!(out.violation, None, "seed {seed}: {}", cfg.summary());
        census.merge(&out.census);
        scheduled += 1;
        logon_windows += usize::from(schedule.logon.is_some());
        with_resets += usize::from(cfg.resets_configured());
    }
    assert!(scheduled >= 8, "{scheduled} scheduled seeds");
    assert!(logon_windows >= 2, "{logon_windows} with a logon window");
    assert!(with_resets >= 1, "{with_resets} with reset flags");
    assert!(census.get(Tally::ToBoundary) > 0);
    assert!(census
        .reasons
        .get("OutsideSchedule")
        .is_some_and(|&n| n > 0));
    let core = SimConfig::from_seed_with(1, false);
    assert!(
        core.schedule.is_none()
            && !core
                .stores
                .contains(&peregrine_sim::store::StoreKind::FileUnsynced)
    );
}

/// A logon window (`LogonTime`/`LogoutTime`) inside an around-the-clock
/// session window, closing at 01:35 and opening at 01:50 New York time on the
/// fall-back day: the logged-on sessions log out when it closes, what the
/// initiator sends meanwhile is stored, and after the window opens the
/// sessions log on again on the same period's numbers and every message
/// arrives (the settle's checks), none discarded by a reset.
#[test]
fn a_closed_logon_window_postpones_messages_without_a_reset() {
    use peregrine_session::{Days, Schedule, TimeZone, Window};
    const H: u32 = 3600;
    let ny = TimeZone::get("America/New_York").unwrap();
    let schedule = Schedule::daily(12 * H, 12 * H)
        .with_logon_window(Window {
            start_secs: H + 50 * 60,
            end_secs: H + 35 * 60,
            days: Days::Daily,
        })
        .in_zone(ny);
    let mut cfg = SimConfig::plain();
    cfg.stores = [peregrine_sim::store::StoreKind::File; 2];
    for s in &mut cfg.sessions {
        s.schedule = Some(schedule.clone());
    }
    cfg.schedule = Some(schedule);
    let deliver = deliver_both();
    // 01:30 EDT: logged on, three orders through.
    let mut actions = vec![Action::Connect];
    actions.extend(deliver);
    actions.extend(deliver);
    actions.push(send(Side::Initiator, 3, 10));
    actions.extend(deliver);
    // 01:36: the logon window has closed; five more are sent meanwhile.
    actions.push(Action::Advance {
        nanos: 6 * 60 * 1_000_000_000,
        deliver: true,
    });
    actions.push(send(Side::Initiator, 5, 10));
    actions.push(Action::Connect);
    actions.extend(deliver);
    // 01:50 and a second: open again.
    actions.push(Action::ToBoundary { after_ms: 1000 });
    let out = run_actions(&cfg, &actions, false);
    assert_eq!(out.violation, None);
    assert!(out
        .census
        .reasons
        .get("OutsideSchedule")
        .is_some_and(|&n| n > 0));
    assert_eq!(arrived(&out.census), 8);
    assert_eq!(out.census.get(Tally::LostToReset), 0);
}

/// A stale copy of the peer (an old backup restored) logs on with a MsgSeqNum
/// below the expected one, to either side: each answers with a Logout and
/// disconnects (FIX: MsgSeqNum too low), its numbers untouched, and the real
/// peers go on afterwards with every message delivered.
#[test]
fn a_logon_with_a_msg_seq_num_too_low_is_refused_by_either_side() {
    let cfg = SimConfig::plain();
    let deliver = deliver_both();
    let mut actions = vec![Action::Connect];
    for _ in 0..3 {
        actions.extend(deliver);
    }
    actions.push(send(Side::Initiator, 4, 10));
    actions.push(send(Side::Acceptor, 4, 10));
    actions.extend(deliver);
    actions.push(Action::Logout {
        side: Side::Initiator,
    });
    for _ in 0..3 {
        actions.extend(deliver);
    }
    actions.push(Action::LowLogon {
        to: Side::Acceptor,
        below: 2,
    });
    actions.push(Action::LowLogon {
        to: Side::Initiator,
        below: 1,
    });
    let out = run_actions(&cfg, &actions, false);
    assert_eq!(out.violation, None);
    assert_eq!(out.census.get(Tally::LowLogonRefused), 2);
    assert_eq!(out.census.reasons.get("SeqNumTooLow"), Some(&2));
    assert_eq!(arrived(&out.census), 8);
}

/// The shrinker: a configuration the FIX rules make fail (an acceptor that
/// resets on logon, an initiator that does not: after a reconnect the
/// acceptor's MsgSeqNum 1 is too low for the initiator) run with noise
/// around the failure; the shrunk trace is far shorter, still fails the same
/// way, and its replay log shows the messages.
#[test]
fn a_failing_run_shrinks_to_a_short_trace_with_the_same_violation() {
    use peregrine_sim::trace::shrink::{shrink, Budget};
    let mut cfg = SimConfig::plain();
    cfg.sessions[1].reset_on_logon = true;
    let mut actions = generate(5, 400, &peregrine_sim::faults::Weights::core());
    let drop = Action::Drop {
        cut: 0,
        notify: peregrine_sim::faults::Notify::Both,
    };
    actions.splice(0..0, [Action::Connect]);
    actions.extend([drop, Action::Connect]);
    let out = run_actions(&cfg, &actions, false);
    let violation = out.violation.expect("the FIX rules make this fail");
    let trace = shrink(5, &cfg, &actions, &violation, Budget::default());
    assert_eq!(trace.violation.invariant, violation.invariant);
    assert!(
        trace.actions.len() * 10 < actions.len(),
        "{} of {} actions left",
        trace.actions.len(),
        actions.len()
    );
    assert!(
        trace.log.iter().any(|l| l.contains("35=A")),
        "{:?}",
        trace.log
    );
}

/// A resend of everything: the acceptor's expected number is lowered to 1
/// after 3,000 orders, so the next message is too high and its ResendRequest
/// asks for all of them. The initiator answers within its 64 KiB outbound
/// bound (checked after every step) and every order arrives again as a PossDup.
#[test]
fn a_resend_request_for_thousands_of_messages_is_answered_within_the_bound() {
    let mut cfg = SimConfig::plain();
    for s in &mut cfg.sessions {
        s.max_outbound_bytes = 64 * 1024;
    }
    let deliver = deliver_both();
    let mut actions = vec![Action::Connect];
    actions.extend(deliver);
    actions.extend(deliver);
    for _ in 0..1_000 {
        actions.push(send(Side::Initiator, 3, 40));
        actions.extend(deliver);
    }
    actions.push(Action::Rewind {
        side: Side::Acceptor,
        keep: 0,
    });
    actions.push(send(Side::Initiator, 1, 0));
    for _ in 0..400 {
        actions.extend(deliver);
    }
    let out = run_actions(&cfg, &actions, false);
    assert_eq!(out.violation, None);
    assert_eq!(out.census.get(Tally::Delivered), 3_001);
    assert!(
        out.census.get(Tally::PossDupDelivered) >= 3_000,
        "{}",
        out.census.get(Tally::PossDupDelivered)
    );
}

/// A panic anywhere in a run is caught and reported as the `NoPanic`
/// invariant with its message, not a crash of the simulator: a BeginString
/// longer than the encoder takes (a programming error it asserts) panics at
/// the first Logon.
#[test]
fn a_panic_is_reported_as_a_violation() {
    let mut cfg = SimConfig::plain();
    let begin = "FIX.4.4".repeat(6);
    for s in &mut cfg.sessions {
        s.id.begin_string = begin.clone();
    }
    let out = run_actions(&cfg, &[Action::Connect], false);
    let v = out.violation.expect("the encoder's assertion fires");
    assert_eq!(v.invariant, peregrine_sim::invariants::Invariant::NoPanic);
    assert!(v.detail.contains("BeginString too long"), "{}", v.detail);
}

//! A run's configuration, drawn from its seed: which store each side runs on
//! and the session settings, mixed (resets on logon, logout and disconnect,
//! NextExpectedMsgSeqNum, chunked ResendRequests, small outbound and inbound
//! queue bounds) but always a mix under which two correct sessions converge
//! once faults stop.

use peregrine_session::{
    Days, Nanos, Role, Schedule, SessionClock, SessionConfig, SessionId, TimeZone, Window,
};
use peregrine_testkit::Rng;

use crate::clock::{SPRING_START, START};
use crate::faults::Side;
use crate::store::StoreKind;

/// Everything about a run that is not an action.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// The sessions' settings (initiator, acceptor).
    pub sessions: [SessionConfig; 2],
    /// Their stores.
    pub stores: [StoreKind; 2],
    /// The schedule both sessions share (also in `sessions`), if any.
    pub schedule: Option<Schedule>,
    /// The simulated clock's start.
    pub start: Nanos,
}

impl SimConfig {
    /// Memory stores, QuickFIX's defaults, no resets: the plainest world.
    pub fn plain() -> SimConfig {
        SimConfig {
            sessions: [base(Side::Initiator), base(Side::Acceptor)],
            stores: [StoreKind::Memory; 2],
            schedule: None,
            start: START,
        }
    }

    /// The configuration of `seed`.
    ///
    /// ResetOnLogon is set on the initiator, or on both sides.
    /// ResetOnLogout and ResetOnDisconnect are set on both sides or on
    /// neither, unless some side resets on logon: a side that resets alone
    /// would greet a peer that did not with MsgSeqNum 1, too low, forever
    /// (the FIX rule, not a fault).
    ///
    /// A third of the seeds also get a session schedule in New York's time
    /// zone ([`SimConfig::from_seed_with`]).
    pub fn from_seed(seed: u64) -> SimConfig {
        SimConfig::from_seed_with(seed, true)
    }

    /// The configuration of `seed`, with a schedule for some seeds only
    /// when `schedules` (the full profile; the core profile has none).
    ///
    /// Two thirds of the scheduled configurations have no ResetOnLogon,
    /// ResetOnLogout or ResetOnDisconnect: every sequence reset is then a new
    /// session period, which is what lets the oracle check that a reset
    /// discards only messages whose period ended; the others keep the reset
    /// flags drawn as without a schedule ([`SimConfig::resets_configured`]).
    /// Half the schedules have a logon window (`LogonTime`/`LogoutTime`)
    /// inside the session window. The clock starts half an hour before a
    /// daylight-saving change in New York (fall back or spring forward), and
    /// the windows' boundaries sit near the change.
    pub fn from_seed_with(seed: u64, schedules: bool) -> SimConfig {
        let mut rng = Rng::new(seed ^ 0xc0ff_ee00_d15e_a5e5);
        let mut c = SimConfig::plain();
        for i in 0..2 {
            c.stores[i] = if rng.below(3) == 0 {
                StoreKind::File
            } else {
                StoreKind::Memory
            };
        }
        // An acceptor that resets on logon answers without ResetSeqNumFlag
        // (see the crate README's findings): its initiator must reset too.
        let initiator_resets = rng.below(4) == 0;
        let on_logon = [initiator_resets, initiator_resets && rng.below(2) == 0];
        let any_on_logon = on_logon[0] || on_logon[1];
        // Without a reset at every logon, a Logout or a disconnect seen by
        // one side only (a lost Logout answer, a crash) leaves the sides a
        // reset apart for good: pair these with ResetOnLogon.
        let pick = |rng: &mut Rng| -> [bool; 2] {
            match rng.below(6) {
                0 if any_on_logon => [true, true],
                1 if any_on_logon => [true, false],
                2 if any_on_logon => [false, true],
                _ => [false, false],
            }
        };
        let on_logout = pick(&mut rng);
        let on_disconnect = pick(&mut rng);
        let next_expected = rng.below(3) == 0;
        let chunk = [0, 0, 5, 50][rng.below(4) as usize];
        let max_out = [64 * 1024, 1 << 20, 1 << 30][rng.below(3) as usize];
        // A quarter hold at most 64 KiB of messages ahead of a gap.
        let max_in = if rng.below(4) == 0 {
            64 * 1024
        } else {
            16 << 20
        };
        for (i, s) in c.sessions.iter_mut().enumerate() {
            s.reset_on_logon = on_logon[i];
            s.reset_on_logout = on_logout[i];
            s.reset_on_disconnect = on_disconnect[i];
            s.enable_next_expected_msg_seq_num = next_expected;
            s.resend_request_chunk_size = chunk;
            s.max_outbound_bytes = max_out;
            s.max_inbound_queue_bytes = max_in;
        }
        if schedules && rng.below(3) == 0 {
            let schedule = pick_schedule(&mut rng);
            c.start = if rng.below(2) == 0 {
                START
            } else {
                SPRING_START
            };
            // A third of the scheduled seeds keep the reset flags drawn
            // above: then resets are not only new periods.
            let keep_resets = rng.below(3) == 0;
            for s in &mut c.sessions {
                if !keep_resets {
                    s.reset_on_logon = false;
                    s.reset_on_logout = false;
                    s.reset_on_disconnect = false;
                }
                s.schedule = Some(schedule.clone());
            }
            c.schedule = Some(schedule);
        }
        // Half the file stores of the full profile do not fsync on commit.
        if schedules {
            for k in &mut c.stores {
                if *k == StoreKind::File && rng.below(2) == 0 {
                    *k = StoreKind::FileUnsynced;
                }
            }
        }
        c
    }
}

impl SimConfig {
    /// Whether either side resets its sequence numbers on logon, logout or
    /// disconnect (beyond the new periods of a schedule).
    pub fn resets_configured(&self) -> bool {
        self.sessions
            .iter()
            .any(|s| s.reset_on_logon || s.reset_on_logout || s.reset_on_disconnect)
    }

    /// The settings that vary between seeds, on one line.
    pub fn summary(&self) -> String {
        let side = |i: usize| {
            let s = &self.sessions[i];
            format!(
                "{:?} store, ResetOnLogon={} ResetOnLogout={} ResetOnDisconnect={} 789={} chunk={} max_outbound={} max_inbound_queue={}",
                self.stores[i],
                s.reset_on_logon,
                s.reset_on_logout,
                s.reset_on_disconnect,
                s.enable_next_expected_msg_seq_num,
                s.resend_request_chunk_size,
                s.max_outbound_bytes,
                s.max_inbound_queue_bytes
            )
        };
        let schedule = match &self.schedule {
            None => String::new(),
            Some(s) => format!(
                "; schedule {:?} (logon window {:?}) in {}, clock from {}",
                s.window,
                s.logon,
                s.zone.iana_name().unwrap_or("?"),
                self.start / 1_000_000_000
            ),
        };
        format!("initiator: {}; acceptor: {}{schedule}", side(0), side(1))
    }
}

/// A session window in `America/New_York` whose boundaries the simulated
/// clock crosses, around the daylight-saving changes (01:00–02:00 is repeated
/// on the fall-back day, 02:00–03:00 skipped on the spring-forward day).
///
/// Half of them get a logon window (QuickFIX C++'s `LogonTime`/`LogoutTime`)
/// inside the session window, closing and opening near the change too: a
/// logged-on session logs out when it closes and logs on again when it
/// opens, on the same period's sequence numbers.
fn pick_schedule(rng: &mut Rng) -> Schedule {
    const H: u32 = 3600;
    let daily = |start_secs, end_secs| Window {
        start_secs,
        end_secs,
        days: Days::Daily,
    };
    let (s, logon) = match rng.below(5) {
        // Closed from 01:15 to 01:45 each night: the repeated and the skipped
        // hour; logons from 02:10 (skipped on the spring day) to 00:55.
        0 => (
            Schedule::daily(H + 45 * 60, H + 15 * 60),
            daily(2 * H + 600, 55 * 60),
        ),
        // Closed 02:00–02:30, local times that do not exist on the spring
        // day; logons 02:45 to 01:30 (repeated on the fall-back day).
        1 => (
            Schedule::daily(2 * H + 30 * 60, 2 * H),
            daily(2 * H + 45 * 60, H + 30 * 60),
        ),
        // Around the clock, a new period each day at 01:40; no logons from
        // 01:20 to 01:55, across the period's change.
        2 => (
            Schedule::daily(H + 40 * 60, H + 40 * 60),
            daily(H + 55 * 60, H + 20 * 60),
        ),
        // Business hours; logons 08:30 to 16:30.
        3 => (
            Schedule::daily(8 * H, 17 * H),
            daily(8 * H + 30 * 60, 16 * H + 30 * 60),
        ),
        // Weekly: Sunday 01:45 to Friday 17:00; logons every day from 02:15
        // to 01:35, so also closed at night inside the week.
        _ => (
            Schedule::weekly(0, H + 45 * 60, 5, 17 * H),
            daily(2 * H + 15 * 60, H + 35 * 60),
        ),
    };
    let s = if rng.below(2) == 0 {
        s.with_logon_window(logon)
    } else {
        s
    };
    s.in_zone(TimeZone::get("America/New_York").expect("the bundled tzdb has New York"))
}

fn base(side: Side) -> SessionConfig {
    let (id, role) = match side {
        Side::Initiator => (
            SessionId::new("FIX.4.4", "CLIENT", "VENUE"),
            Role::Initiator,
        ),
        Side::Acceptor => (SessionId::new("FIX.4.4", "VENUE", "CLIENT"), Role::Acceptor),
    };
    let mut c = SessionConfig::new(id, role);
    c.clock = SessionClock::Driver;
    c
}

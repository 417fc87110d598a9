//! Schedules in real time zones, driven sans-IO with a mock clock: an acceptor and an
//! initiator wired to each other across New York's and London's daylight-saving
//! changes of 2026 log out at the UTC instant the zone's rules give and log on again
//! at the right one; `Weekdays`; a logon window; and `ResetSeqTime`, sequence numbers
//! back to 1 with no disconnect.

use peregrine_codec::MessageView;
use peregrine_session::{
    AppReject, Application, Days, DisconnectReason, LogoutReason, Nanos, Outbox, Role, Schedule,
    SendError, Session, SessionClock, SessionConfig, SessionEvent, SessionId, TimeZone, Window,
    SECOND,
};
use peregrine_store::MemoryStore;

#[path = "../support/dst_2026.rs"]
mod dst_2026;
use dst_2026::*;

const DAY: Nanos = 24 * H;

/// Counts logons and application messages.
#[derive(Default)]
struct App {
    logons: usize,
    logouts: usize,
    received: Vec<u64>,
}

impl Application for App {
    fn on_logon(&mut self, _id: &SessionId, _out: &mut Outbox<'_>) {
        self.logons += 1;
    }
    fn on_logout(&mut self, _id: &SessionId, _reason: &LogoutReason<'_>, _out: &mut Outbox<'_>) {
        self.logouts += 1;
    }
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let seq = std::str::from_utf8(msg.get(34).unwrap_or(b"0")).unwrap();
        self.received.push(seq.parse().unwrap());
        Ok(())
    }
}

fn config(sender: &str, target: &str, role: Role) -> SessionConfig {
    let mut c = SessionConfig::new(SessionId::new("FIX.4.4", sender, target), role);
    c.clock = SessionClock::Driver;
    c.check_latency = false;
    c
}

/// The acceptor VENUE and the initiator CLIENT, wired together by the test as an
/// engine would be: it connects them, carries bytes, fires timers at their
/// deadlines, and disconnects both when either asks.
struct Pair {
    venue: Session<MemoryStore>,
    client: Session<MemoryStore>,
    venue_app: App,
    client_app: App,
    now: Nanos,
    connected: bool,
    /// Every disconnect: when, and why (the first side to ask).
    disconnects: Vec<(Nanos, DisconnectReason)>,
}

impl Pair {
    fn new(venue: SessionConfig, client: SessionConfig, now: Nanos) -> Pair {
        Pair {
            venue: Session::new(venue, MemoryStore::new(now), now),
            client: Session::new(client, MemoryStore::new(now), now),
            venue_app: App::default(),
            client_app: App::default(),
            now,
            connected: false,
            disconnects: Vec::new(),
        }
    }

    fn connect(&mut self) {
        self.connected = true;
        self.venue.on_connected(self.now, &mut self.venue_app);
        self.client.on_connected(self.now, &mut self.client_app);
        self.pump();
    }

    /// The client sends a NewOrderSingle (35=D) with ClOrdID `id`, now.
    fn send_order(&mut self, id: &[u8]) -> Result<u64, SendError> {
        self.client.send(self.now, &mut self.client_app, b"D", |m| {
            m.str(11, id);
        })
    }

    /// Carries bytes both ways until neither side has any, then closes the
    /// connection for both if either asked (after what it wrote last went out, as
    /// an engine flushes before it closes).
    fn pump(&mut self) {
        loop {
            let mut moved = false;
            for venue_to_client in [true, false] {
                let (from, to, to_app) = if venue_to_client {
                    (&mut self.venue, &mut self.client, &mut self.client_app)
                } else {
                    (&mut self.client, &mut self.venue, &mut self.venue_app)
                };
                from.commit().unwrap();
                let bytes = from.outbound().to_vec();
                if !bytes.is_empty() {
                    from.consume_outbound(bytes.len(), &mut App::default());
                    if self.connected {
                        to.on_bytes(&bytes, self.now, to_app);
                        moved = true;
                    }
                }
            }
            if moved {
                continue;
            }
            let mut reason = None;
            for s in [&mut self.venue, &mut self.client] {
                while let Some(e) = s.poll_event() {
                    if let SessionEvent::Disconnect(r) = e {
                        reason.get_or_insert(r);
                    }
                }
            }
            if let Some(r) = reason.filter(|_| self.connected) {
                self.connected = false;
                self.disconnects.push((self.now, r));
                self.venue.on_disconnected(self.now, &mut self.venue_app);
                self.client.on_disconnected(self.now, &mut self.client_app);
            }
            return;
        }
    }

    /// Runs the timers of both sides up to `t`.
    fn run_until(&mut self, t: Nanos) {
        loop {
            let next = [self.venue.next_deadline(), self.client.next_deadline()]
                .into_iter()
                .flatten()
                .min();
            match next {
                Some(d) if d <= t => {
                    self.now = self.now.max(d);
                    self.venue.on_timer(self.now, &mut self.venue_app);
                    self.client.on_timer(self.now, &mut self.client_app);
                    self.pump();
                }
                _ => break,
            }
        }
        self.now = t;
    }

    fn logged_on(&self) -> bool {
        self.venue.is_logged_on() && self.client.is_logged_on()
    }

    fn seqs(&self) -> [u64; 4] {
        [
            self.venue.next_sender_seq(),
            self.venue.next_target_seq(),
            self.client.next_sender_seq(),
            self.client.next_target_seq(),
        ]
    }
}

/// Both sides on `schedule`.
fn pair_on(schedule: &Schedule, now: Nanos) -> Pair {
    let mut venue = config("VENUE", "CLIENT", Role::Acceptor);
    let mut client = config("CLIENT", "VENUE", Role::Initiator);
    venue.schedule = Some(schedule.clone());
    client.schedule = Some(schedule.clone());
    Pair::new(venue, client, now)
}

fn zone(name: &str) -> TimeZone {
    TimeZone::get(name).unwrap()
}

/// Logged on at `on`, the session must log out exactly at `off`, stay out until
/// `again` (a connection a second before is refused) and log on at `again`, the
/// sequence numbers starting afresh for the new period.
fn logs_out_and_on_again(schedule: Schedule, on: Nanos, off: Nanos, again: Nanos) {
    let mut p = pair_on(&schedule, on);
    p.connect();
    assert!(p.logged_on());
    p.run_until(off - 1);
    assert!(
        p.logged_on(),
        "still in the window a nanosecond before {off}"
    );
    assert!(p.disconnects.is_empty());
    p.run_until(off);
    assert_eq!(p.disconnects, [(off, DisconnectReason::Logout)]);
    assert_eq!(p.client_app.logouts, 1);
    // The engine would reconnect at the schedule's next boundary: that is `again`.
    assert_eq!(schedule.next_boundary(off), again);
    p.run_until(again - SECOND);
    p.connect();
    assert_eq!(
        p.disconnects.last(),
        Some(&(again - SECOND, DisconnectReason::OutsideSchedule))
    );
    p.run_until(again);
    p.connect();
    assert!(p.logged_on(), "logged on again at {again}");
    assert_eq!(p.seqs(), [2, 2, 2, 2], "a new period starts at 1");
}

fn hms(h: u32, m: u32) -> u32 {
    h * 3600 + m * 60
}

#[test]
fn new_york_spring_forward_logs_out_and_on_at_the_right_utc_instants() {
    // 17:00 to 08:00 New York. Saturday 2026-03-07 17:00 EST = 22:00 UTC; Sunday
    // 08:00 EDT = 12:00 UTC (an hour earlier in UTC than the day before); Sunday's
    // window opens at 17:00 EDT = 21:00 UTC.
    let s = Schedule::daily(hms(17, 0), hms(8, 0)).in_zone(zone("America/New_York"));
    logs_out_and_on_again(s, NY_SPRING + 3 * H, NY_SPRING + 12 * H, NY_SPRING + 21 * H);
}

#[test]
fn new_york_fall_back_logs_out_and_on_at_the_right_utc_instants() {
    // Saturday 2026-10-31 17:00 EDT = 21:00 UTC to Sunday 08:00 EST = 13:00 UTC;
    // Sunday's window opens at 17:00 EST = 22:00 UTC.
    let s = Schedule::daily(hms(17, 0), hms(8, 0)).in_zone(zone("America/New_York"));
    logs_out_and_on_again(s, NY_AUTUMN + 3 * H, NY_AUTUMN + 13 * H, NY_AUTUMN + 22 * H);
}

#[test]
fn new_york_window_ending_at_a_repeated_time_closes_the_first_time() {
    // 20:00 to 01:30: on 2026-11-01 01:30 comes at 05:30 UTC (EDT), then again at
    // 06:30 UTC (EST); the session logs out at the first. Sunday's window opens at
    // 20:00 EST = 01:00 UTC Monday.
    let s = Schedule::daily(hms(20, 0), hms(1, 30)).in_zone(zone("America/New_York"));
    logs_out_and_on_again(
        s,
        NY_AUTUMN + H,
        NY_AUTUMN + 5 * H + 30 * M,
        NY_AUTUMN + 25 * H,
    );
}

#[test]
fn new_york_window_opening_at_a_skipped_time_opens_after_the_gap() {
    // 02:30 to 16:00: on 2026-03-08 02:30 does not exist; the window opens at 03:30
    // EDT = 07:30 UTC. Saturday's closed at 16:00 EST = 21:00 UTC.
    let s = Schedule::daily(hms(2, 30), hms(16, 0)).in_zone(zone("America/New_York"));
    logs_out_and_on_again(
        s,
        NY_SPRING - 5 * H,
        NY_SPRING - 3 * H,
        NY_SPRING + 7 * H + 30 * M,
    );
}

#[test]
fn london_spring_and_autumn() {
    let s = Schedule::daily(hms(22, 0), hms(6, 0)).in_zone(zone("Europe/London"));
    // 06:00 BST = 05:00 UTC on 2026-03-29; the evening opens at 22:00 BST = 21:00 UTC.
    logs_out_and_on_again(
        s.clone(),
        LONDON_SPRING + 2 * H,
        LONDON_SPRING + 5 * H,
        LONDON_SPRING + 21 * H,
    );
    // 06:00 GMT = 06:00 UTC on 2026-10-25; the evening opens at 22:00 UTC.
    logs_out_and_on_again(
        s,
        LONDON_AUTUMN + 2 * H,
        LONDON_AUTUMN + 6 * H,
        LONDON_AUTUMN + 22 * H,
    );
}

#[test]
fn weekly_window_in_new_york_across_spring_forward() {
    // Sunday 17:00 to Friday 17:00 New York: the week before the change closed on
    // Friday 03-06 at 22:00 UTC (EST); the next opens Sunday 03-08 at 21:00 UTC (EDT).
    let s = Schedule::weekly(0, hms(17, 0), 5, hms(17, 0)).in_zone(zone("America/New_York"));
    let friday = NY_SPRING - 2 * DAY;
    logs_out_and_on_again(s, friday + 12 * H, friday + 22 * H, NY_SPRING + 21 * H);
}

#[test]
fn weekdays_window_skips_the_days_not_listed() {
    // Weekdays=Mon,Tue,Wed,Thu,Fri, 22:00 to 06:00 UTC: Friday's window ends Saturday
    // 06:00; the next opens Monday 22:00. (2026-03-06 is a Friday.)
    let s = Schedule::new(Window {
        start_secs: hms(22, 0),
        end_secs: hms(6, 0),
        days: Days::Weekdays(0b011_1110),
    });
    let saturday = NY_SPRING - DAY;
    logs_out_and_on_again(
        s,
        saturday + 3 * H,
        saturday + 6 * H,
        NY_SPRING + DAY + 22 * H,
    );
}

#[test]
fn logon_window_logs_out_inside_the_session_window_and_keeps_the_numbers() {
    // Session 06:00–20:00 New York, logons 08:00–17:00; Monday 2026-03-09 is EDT.
    let s = Schedule::daily(hms(6, 0), hms(20, 0))
        .in_zone(zone("America/New_York"))
        .with_logon_window(Window {
            start_secs: hms(8, 0),
            end_secs: hms(17, 0),
            days: Days::Daily,
        });
    let monday = NY_SPRING + DAY;
    let mut p = pair_on(&s, monday + 11 * H); // 07:00: session time, not logon time
    p.connect();
    assert_eq!(
        p.disconnects,
        [(monday + 11 * H, DisconnectReason::OutsideSchedule)]
    );
    p.run_until(monday + 12 * H); // 08:00
    p.connect();
    assert!(p.logged_on());
    p.run_until(monday + 21 * H); // 17:00
    assert_eq!(
        p.disconnects[1],
        (monday + 21 * H, DisconnectReason::Logout)
    );
    let numbers = p.seqs();
    // Tuesday 08:00: a new period, numbers from 1.
    p.run_until(monday + DAY + 12 * H);
    p.connect();
    assert!(p.logged_on());
    assert!(numbers[0] > 2);
    assert_eq!(p.seqs(), [2, 2, 2, 2]);
}

#[test]
fn reset_seq_time_resets_both_sides_to_1_without_a_disconnect() {
    // Non-stop session; the venue resets at 17:00 New York (21:00 UTC on 2026-03-09,
    // EDT: the day after the change).
    let mut venue = config("VENUE", "CLIENT", Role::Acceptor);
    venue.reset_seq_time = Some(peregrine_session::DailyTime {
        secs: hms(17, 0),
        zone: zone("America/New_York"),
    });
    let client = config("CLIENT", "VENUE", Role::Initiator);
    let monday = NY_SPRING + DAY;
    // Connected on the hour: the client's Heartbeat is due at the instant of the
    // reset and crosses the venue's reset Logon, numbered in the old sequence; the
    // venue drops it rather than asking for it again.
    let mut p = Pair::new(venue, client, monday + 20 * H);
    p.connect();
    for _ in 0..5 {
        p.send_order(b"1").unwrap();
        p.pump();
    }
    assert_eq!(p.venue_app.received, [2, 3, 4, 5, 6]);
    p.run_until(monday + 21 * H - 1);
    assert!(p.seqs()[0] > 2);
    let sent_before = p.client.next_sender_seq();
    assert!(sent_before > 7);
    p.run_until(monday + 21 * H);
    // Each side sent a Logon(141=Y) numbered 1 and received the other's: both go on
    // from 2, still connected, and each application saw a logon.
    assert!(p.disconnects.is_empty(), "{:?}", p.disconnects);
    assert!(p.logged_on());
    assert_eq!(p.seqs(), [2, 2, 2, 2]);
    assert_eq!((p.venue_app.logons, p.client_app.logons), (2, 2));
    p.send_order(b"2").unwrap();
    p.pump();
    assert_eq!(p.venue_app.received.last(), Some(&2));
    // Tomorrow's comes at 17:00 EDT again.
    p.run_until(monday + DAY + 21 * H - 1);
    let before = p.venue.next_sender_seq();
    assert!(before > 2);
    p.run_until(monday + DAY + 21 * H);
    assert_eq!(p.seqs(), [2, 2, 2, 2]);
    assert!(p.disconnects.is_empty());
}

#[test]
fn reset_seq_time_on_both_sides_at_once_still_ends_at_2() {
    let reset = peregrine_session::DailyTime {
        secs: hms(17, 0),
        zone: zone("Europe/London"),
    };
    let mut venue = config("VENUE", "CLIENT", Role::Acceptor);
    let mut client = config("CLIENT", "VENUE", Role::Initiator);
    venue.reset_seq_time = Some(reset.clone());
    client.reset_seq_time = Some(reset);
    let mut p = Pair::new(venue, client, LONDON_AUTUMN + 12 * H);
    p.connect();
    p.run_until(LONDON_AUTUMN + 17 * H); // 17:00 GMT
    assert!(p.disconnects.is_empty(), "{:?}", p.disconnects);
    assert!(p.logged_on());
    assert_eq!(p.seqs(), [2, 2, 2, 2]);
}

#[test]
fn reset_seq_time_passes_while_not_logged_on() {
    let mut venue = config("VENUE", "CLIENT", Role::Acceptor);
    venue.reset_seq_time = Some(peregrine_session::DailyTime {
        secs: hms(17, 0),
        zone: TimeZone::UTC,
    });
    let client = config("CLIENT", "VENUE", Role::Initiator);
    let mut p = Pair::new(venue, client, NY_SPRING + 12 * H);
    p.connect();
    p.send_order(b"1").unwrap();
    p.pump();
    p.client.logout(p.now, None, &mut p.client_app);
    p.pump();
    assert!(!p.connected);
    let seqs = p.seqs();
    p.run_until(NY_SPRING + 18 * H);
    p.connect();
    assert!(p.logged_on());
    assert_eq!(p.seqs()[1], seqs[1] + 1, "no reset: the numbers go on");
}

#[test]
fn reset_seq_time_with_a_peer_that_resets_without_answering() {
    // A QuickFIX/Go initiator resets on our Logon(141=Y) without answering it, and
    // goes on numbering from 1; a reset it asks for later is still honoured.
    let mut cfg = config("ISLD", "TW", Role::Acceptor);
    // T0 below is 10:00:00.250 UTC; the reset comes at 10:00:10.
    cfg.reset_seq_time = Some(peregrine_session::DailyTime {
        secs: 10 * 3600 + 10,
        zone: TimeZone::UTC,
    });
    const T0: Nanos = 1_795_341_600_250_000_000;
    let mut s = Session::new(cfg, MemoryStore::new(T0), T0);
    let mut app = App::default();
    let raw = |seq: u64, msg_type: &str, body: &str| {
        let mut buf = peregrine_codec::EncodeBuffer::new();
        let mut m = buf.start(b"FIX.4.4", msg_type.as_bytes());
        m.uint(34, seq)
            .str(49, b"TW")
            .str(52, b"20261122-10:00:00.250")
            .str(56, b"ISLD");
        for f in body.split('|').filter(|f| !f.is_empty()) {
            let (t, v) = f.split_once('=').unwrap();
            m.str(t.parse().unwrap(), v.as_bytes());
        }
        m.finish().to_vec()
    };
    let out = |s: &mut Session<MemoryStore>| {
        s.commit().unwrap();
        let text = String::from_utf8_lossy(s.outbound()).replace('\x01', "|");
        s.consume_outbound(s.outbound().len(), &mut App::default());
        text
    };
    s.on_connected(T0, &mut app);
    s.on_bytes(&raw(1, "A", "98=0|108=30"), T0, &mut app);
    s.on_bytes(&raw(2, "0", ""), T0, &mut app);
    assert!(s.is_logged_on());
    out(&mut s);
    let at = s.next_deadline().unwrap();
    assert_eq!(at, T0 + 10 * SECOND - 250_000_000);
    s.on_timer(at, &mut app);
    let sent = out(&mut s);
    assert!(sent.contains("35=A|34=1|"), "{sent}");
    assert!(sent.contains("|141=Y|"), "{sent}");
    // No answer: the peer's next message is numbered 1.
    s.on_bytes(&raw(1, "0", ""), at, &mut app);
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (2, 2));
    // Later the peer resets: we reset too and answer.
    s.on_bytes(&raw(1, "A", "98=0|108=30|141=Y"), at, &mut app);
    let answer = out(&mut s);
    assert!(answer.contains("35=A|34=1|"), "{answer}");
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (2, 2));
    assert!(s.is_logged_on());
}

/// A connection made just before a new session period begins, whose Logon is
/// processed just after: the Logon must not be accepted on the ended period's
/// sequence numbers (the acceptor would log on, send on numbers that the new
/// period's reset discards, and log out at once). QuickFIX/J checks the
/// period before it accepts a Logon (`nextLogon`, QFJ-357/QFJ-926); Peregrine
/// refuses it, and the next connection starts the period afresh on both sides.
#[test]
fn a_logon_processed_after_a_new_period_began_is_not_accepted_on_old_numbers() {
    // Around the clock in New York, a new period each day at 01:40 local.
    let schedule = Schedule::daily(hms(1, 40), hms(1, 40)).in_zone(zone("America/New_York"));
    // 2026-11-03 01:40 EST is 06:40 UTC.
    let boundary = NY_AUTUMN + 2 * DAY + 6 * H + 40 * M;
    let mut p = pair_on(&schedule, boundary - H);
    p.connect();
    assert!(p.logged_on());
    p.run_until(boundary - 30 * M);
    assert_eq!(p.seqs(), [62; 4], "heartbeats both ways");
    // The connection drops; a new one is made 5 s before the boundary, and
    // the initiator's Logon (MsgSeqNum 62) reaches the acceptor 5 s after it.
    p.connected = false;
    p.venue.on_disconnected(p.now, &mut p.venue_app);
    p.client.on_disconnected(p.now, &mut p.client_app);
    p.now = boundary - 5 * SECOND;
    p.connected = true;
    p.venue.on_connected(p.now, &mut p.venue_app);
    p.client.on_connected(p.now, &mut p.client_app);
    p.now = boundary + 5 * SECOND;
    p.pump();
    assert!(
        !p.venue.is_logged_on(),
        "logged on in the new period on the old one's numbers: {:?}",
        p.seqs()
    );
    // The next connection starts the period afresh on both sides.
    p.connected = false;
    p.now = boundary + 10 * SECOND;
    p.connect();
    assert!(p.logged_on());
    assert_eq!(p.seqs(), [2, 2, 2, 2]);
}

/// The clock passes a new period's start while logged on (a step forward, or
/// an engine that has not run the overdue schedule timer yet) and the
/// application sends: the message must not go out on the ended period's
/// numbers, which the new period's reset discards once the timer logs out.
/// The session logs out first, as the timer would, and refuses the send.
#[test]
fn a_send_after_the_period_ended_logs_out_first_and_is_refused() {
    let schedule = Schedule::daily(hms(1, 40), hms(1, 40)).in_zone(zone("America/New_York"));
    let boundary = NY_AUTUMN + 2 * DAY + 6 * H + 40 * M;
    let mut p = pair_on(&schedule, boundary - H);
    p.connect();
    assert!(p.logged_on());
    // Past the boundary, no timer run yet.
    p.now = boundary + 2 * H;
    let sent = p.send_order(b"late");
    assert!(
        matches!(sent, Err(SendError::NotLoggedOn)),
        "sent on the ended period's numbers: {sent:?}"
    );
    assert_eq!(
        p.client.state(),
        peregrine_session::SessionState::LogoutSent,
        "logged out, as the overdue schedule timer would have"
    );
    p.pump();
    assert!(p.venue_app.received.is_empty());
    assert_eq!(p.disconnects.len(), 1);
}

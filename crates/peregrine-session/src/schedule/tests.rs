//! Windows across daylight-saving changes in New York and London (2026), weekdays and
//! logon windows, checked against the UTC instants the zone rules give.

use super::*;
use crate::config::SECOND;

#[path = "../../tests/support/dst_2026.rs"]
mod dst_2026;
use dst_2026::*;

fn zone(name: &str) -> TimeZone {
    TimeZone::get(name).unwrap()
}

fn hms(h: u32, m: u32) -> u32 {
    h * 3600 + m * 60
}

fn daily(zone_name: &str, start: u32, end: u32) -> Schedule {
    Schedule::daily(start, end).in_zone(zone(zone_name))
}

/// Asserts the window is open exactly over `[open, close)` around those instants.
fn open_over(s: &Schedule, open: Nanos, close: Nanos) {
    assert!(!s.contains(open - 1), "open before {open}");
    assert!(s.contains(open), "not open at {open}");
    assert!(s.contains(close - 1), "closed before {close}");
    assert!(!s.contains(close), "still open at {close}");
    assert_eq!(s.period_start(close - 1), open);
    assert_eq!(s.next_boundary(open), close);
    assert_eq!(s.next_boundary(open - SECOND), open);
}

#[test]
fn new_york_overnight_window_across_spring_forward_is_an_hour_shorter() {
    // 17:00 Saturday EST (22:00 UTC) to 08:00 Sunday EDT (12:00 UTC): 14 hours.
    let s = daily("America/New_York", hms(17, 0), hms(8, 0));
    open_over(&s, NY_SPRING - 2 * H, NY_SPRING + 12 * H);
    // Sunday evening opens at 17:00 EDT, 21:00 UTC.
    assert_eq!(s.next_boundary(NY_SPRING + 12 * H), NY_SPRING + 21 * H);
}

#[test]
fn new_york_time_skipped_in_spring_comes_an_hour_later() {
    // 02:30 does not exist on 2026-03-08: the window opens at 03:30 EDT (07:30 UTC).
    let s = daily("America/New_York", hms(2, 30), hms(16, 0));
    open_over(&s, NY_SPRING + 7 * H + 30 * M, NY_SPRING + 20 * H);
    // The day before, 02:30 EST is 07:30 UTC too; the day after, 02:30 EDT is 06:30.
    assert_eq!(
        s.period_start(NY_SPRING),
        NY_SPRING - 24 * H + 7 * H + 30 * M
    );
    assert_eq!(
        s.period_start(NY_SPRING + 31 * H),
        NY_SPRING + 24 * H + 6 * H + 30 * M
    );
}

#[test]
fn new_york_overnight_window_across_fall_back_is_an_hour_longer() {
    // 17:00 Saturday EDT (21:00 UTC) to 08:00 Sunday EST (13:00 UTC): 16 hours.
    let s = daily("America/New_York", hms(17, 0), hms(8, 0));
    open_over(&s, NY_AUTUMN - 3 * H, NY_AUTUMN + 13 * H);
}

#[test]
fn new_york_time_repeated_in_autumn_is_its_first_occurrence() {
    // 01:30 happens at 05:30 UTC (EDT) and 06:30 UTC (EST): the window closes at the
    // first, and stays closed through the second.
    let s = daily("America/New_York", hms(20, 0), hms(1, 30));
    open_over(&s, NY_AUTUMN, NY_AUTUMN + 5 * H + 30 * M);
    assert!(!s.contains(NY_AUTUMN + 6 * H + 30 * M));
    // Sunday's window opens at 20:00 EST, 01:00 UTC on Monday.
    assert_eq!(
        s.next_boundary(NY_AUTUMN + 5 * H + 30 * M),
        NY_AUTUMN + 25 * H
    );
}

#[test]
fn london_across_spring_forward() {
    // 22:00 GMT Saturday to 06:00 BST Sunday (05:00 UTC): 7 hours.
    let s = daily("Europe/London", hms(22, 0), hms(6, 0));
    open_over(&s, LONDON_SPRING - 2 * H, LONDON_SPRING + 5 * H);
    // 01:30 does not exist: 02:30 BST, 01:30 UTC.
    let skipped = daily("Europe/London", hms(1, 30), hms(9, 0));
    open_over(&skipped, LONDON_SPRING + H + 30 * M, LONDON_SPRING + 8 * H);
}

#[test]
fn london_across_fall_back() {
    // 22:00 BST Saturday (21:00 UTC) to 06:00 GMT Sunday: 9 hours.
    let s = daily("Europe/London", hms(22, 0), hms(6, 0));
    open_over(&s, LONDON_AUTUMN - 3 * H, LONDON_AUTUMN + 6 * H);
    // 01:30 happens at 00:30 UTC (BST) and 01:30 UTC (GMT): the first.
    let repeated = daily("Europe/London", hms(1, 30), hms(9, 0));
    open_over(&repeated, LONDON_AUTUMN + 30 * M, LONDON_AUTUMN + 9 * H);
}

#[test]
fn weekly_window_in_new_york_follows_local_time_across_the_change() {
    // Sunday 17:00 to Friday 17:00, New York. The week of 2026-03-01 opened at 22:00
    // UTC (EST) and closes Friday 03-06 at 22:00 UTC; the next opens Sunday 03-08 at
    // 17:00 EDT (21:00 UTC) and closes Friday 03-13 at 17:00 EDT (21:00 UTC).
    let s = Schedule::weekly(0, hms(17, 0), 5, hms(17, 0)).in_zone(zone("America/New_York"));
    let friday = NY_SPRING - 2 * 24 * H;
    assert!(s.contains(friday + 21 * H + 59 * M));
    assert!(!s.contains(friday + 22 * H));
    assert_eq!(s.next_boundary(friday + 22 * H), NY_SPRING + 21 * H);
    open_over(&s, NY_SPRING + 21 * H, NY_SPRING + 5 * 24 * H + 21 * H);
}

#[test]
fn weekdays_window_crossing_midnight_belongs_to_its_start_day() {
    // Mon, Wed, Fri 22:00 to 06:00 UTC. 2026-03-08 is a Sunday.
    let mon_wed_fri = Days::Weekdays(1 << 1 | 1 << 3 | 1 << 5);
    let s = Schedule::new(Window {
        start_secs: hms(22, 0),
        end_secs: hms(6, 0),
        days: mon_wed_fri,
    });
    let sunday = NY_SPRING;
    let day = 24 * H;
    assert!(!s.contains(sunday + 3 * H), "Saturday's is not a window");
    assert!(!s.contains(sunday - day + 23 * H), "nor Saturday evening");
    assert!(
        s.contains(sunday - day + 3 * H),
        "Saturday 03:00 is Friday's window"
    );
    assert!(s.contains(sunday + day + 23 * H), "Monday evening");
    assert!(
        s.contains(sunday + 2 * day + 3 * H),
        "Tuesday 03:00 is Monday's"
    );
    assert!(!s.contains(sunday + 2 * day + 23 * H), "Tuesday evening");
    assert!(!s.contains(sunday + 3 * day + 3 * H), "Wednesday 03:00");
    // From Saturday morning the next opening is Monday 22:00.
    assert_eq!(s.next_boundary(sunday - day + 6 * H), sunday + day + 22 * H);
    // Every day listed is the same as a daily window.
    let all = Schedule::new(Window {
        days: Days::Weekdays(0x7f),
        ..s.window
    });
    assert!(all.contains(sunday + 3 * H));
}

#[test]
fn logon_window_lies_inside_the_session_window() {
    // Session 06:00–20:00 New York, logons 08:00–17:00.
    let s = daily("America/New_York", hms(6, 0), hms(20, 0)).with_logon_window(Window {
        start_secs: hms(8, 0),
        end_secs: hms(17, 0),
        days: Days::Daily,
    });
    // Monday 2026-03-09, EDT (UTC-4).
    let monday = NY_SPRING + 24 * H;
    assert!(s.contains(monday + 11 * H) && !s.logon_allowed(monday + 11 * H)); // 07:00
    assert!(s.logon_allowed(monday + 12 * H)); // 08:00
    assert!(s.contains(monday + 22 * H) && !s.logon_allowed(monday + 22 * H)); // 18:00
    assert_eq!(s.next_boundary(monday + 11 * H), monday + 12 * H);
    assert_eq!(s.next_boundary(monday + 12 * H), monday + 21 * H);
    assert_eq!(s.next_boundary(monday + 21 * H), monday + 24 * H);
    // At 18:00 the session window is open till 20:00, but a Logon may come
    // next at 08:00 on Tuesday; at 11:00 (allowed) that changes at 17:00.
    assert_eq!(s.next_logon_change(monday + 22 * H), Some(monday + 36 * H));
    assert_eq!(s.next_logon_change(monday + 15 * H), Some(monday + 21 * H));
    assert_eq!(s.next_logon_change(monday + 11 * H), Some(monday + 12 * H));
    // One period: from 06:00.
    assert_eq!(s.period_start(monday + 22 * H), monday + 10 * H);
}

#[test]
fn daily_time_across_both_changes() {
    let t = DailyTime {
        secs: hms(17, 0),
        zone: zone("America/New_York"),
    };
    // Saturday before spring: 17:00 EST is 22:00 UTC; Sunday's is 21:00 UTC (EDT).
    assert_eq!(t.next_after(NY_SPRING - 3 * H), NY_SPRING - 2 * H);
    assert_eq!(t.next_after(NY_SPRING - 2 * H), NY_SPRING + 21 * H);
    // Autumn: Saturday 21:00 UTC (EDT), Sunday 22:00 UTC (EST).
    assert_eq!(t.next_after(NY_AUTUMN - 3 * H), NY_AUTUMN + 22 * H);
    // A skipped time comes later by the gap: 02:30 on 03-08 is 07:30 UTC.
    let skipped = DailyTime {
        secs: hms(2, 30),
        zone: zone("America/New_York"),
    };
    assert_eq!(skipped.next_after(NY_SPRING), NY_SPRING + 7 * H + 30 * M);
    // A repeated one comes once, the first time (05:30 UTC), then on 11-02 (07:30).
    let repeated = DailyTime {
        secs: hms(1, 30),
        zone: zone("America/New_York"),
    };
    assert_eq!(repeated.next_after(NY_AUTUMN), NY_AUTUMN + 5 * H + 30 * M);
    assert_eq!(
        repeated.next_after(NY_AUTUMN + 5 * H + 30 * M),
        NY_AUTUMN + 24 * H + 6 * H + 30 * M
    );
}

#[test]
fn window_state_across_spring_forward_in_new_york() {
    // 09:00–17:00 New York. Friday 2026-03-06 (EST): 14:00–22:00 UTC.
    let s = daily("America/New_York", hms(9, 0), hms(17, 0));
    let friday = NY_SPRING - 2 * 24 * H;
    assert_eq!(
        s.window_state(friday + 15 * H),
        WindowState::Open {
            closes: Some(friday + 22 * H)
        }
    );
    // Saturday 18:00 EST: the next window opens Sunday 09:00 EDT, 13:00 UTC
    // (an hour earlier in UTC than the day before), and closes at 21:00 UTC.
    assert_eq!(
        s.window_state(NY_SPRING - H),
        WindowState::Closed {
            opens: Some(NY_SPRING + 13 * H)
        }
    );
    assert_eq!(
        s.window_state(NY_SPRING + 13 * H),
        WindowState::Open {
            closes: Some(NY_SPRING + 21 * H)
        }
    );
    assert_eq!(
        s.window_state(NY_SPRING + 21 * H),
        WindowState::Closed {
            opens: Some(NY_SPRING + 24 * H + 13 * H)
        }
    );
    assert_eq!(
        s.local_text(NY_SPRING - H),
        "2026-03-07 23:00:00 UTC (18:00:00 EST America/New_York)"
    );
    assert_eq!(
        s.local_text(NY_SPRING + 13 * H),
        "2026-03-08 13:00:00 UTC (09:00:00 EDT America/New_York)"
    );
}

#[test]
fn window_state_of_a_weekly_window_over_the_weekend() {
    // Sunday 17:00 to Friday 17:00, New York: closed on Saturday 2026-03-07;
    // it opens Sunday 17:00 EDT (21:00 UTC) after the change, closes Friday
    // 2026-03-13 17:00 EDT (21:00 UTC).
    let s = Schedule::weekly(0, hms(17, 0), 5, hms(17, 0)).in_zone(zone("America/New_York"));
    assert_eq!(
        s.window_state(NY_SPRING - 12 * H),
        WindowState::Closed {
            opens: Some(NY_SPRING + 21 * H)
        }
    );
    let wednesday = NY_SPRING + 3 * 24 * H + 15 * H;
    assert_eq!(
        s.window_state(wednesday),
        WindowState::Open {
            closes: Some(NY_SPRING + 5 * 24 * H + 21 * H)
        }
    );
    // In UTC alone, no local part.
    let utc = Schedule::weekly(0, hms(22, 0), 5, hms(21, 0));
    assert_eq!(
        utc.window_state(NY_SPRING - 12 * H),
        WindowState::Closed {
            opens: Some(NY_SPRING + 22 * H)
        }
    );
    assert_eq!(
        utc.local_text(NY_SPRING + 22 * H),
        "2026-03-08 22:00:00 UTC"
    );
}

#[test]
fn window_state_of_a_logon_window_and_of_one_always_open() {
    // Session 06:00–20:00, logons 08:00–17:00 New York: at 18:00 on Monday
    // 2026-03-09 (EDT) the session window is open but a Logon is not allowed
    // until Tuesday 08:00 (12:00 UTC).
    let s = daily("America/New_York", hms(6, 0), hms(20, 0)).with_logon_window(Window {
        start_secs: hms(8, 0),
        end_secs: hms(17, 0),
        days: Days::Daily,
    });
    let monday = NY_SPRING + 24 * H;
    assert_eq!(
        s.window_state(monday + 22 * H),
        WindowState::Closed {
            opens: Some(monday + 36 * H)
        }
    );
    // Equal start and end: open around the clock, never closes.
    let always = Schedule::daily(hms(5, 0), hms(5, 0));
    assert_eq!(
        always.window_state(monday),
        WindowState::Open { closes: None }
    );
}

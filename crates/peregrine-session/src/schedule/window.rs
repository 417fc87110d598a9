//! One window in a zone's local time: when it opens and closes, as instants.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

use crate::config::Nanos;

/// The days a [`Window`] opens on.
///
/// ```
/// use peregrine_session::Days;
/// // QuickFIX/J's Weekdays=Mon,Wed (bit 0 = Sunday … bit 6 = Saturday).
/// let mon_wed = Days::Weekdays(1 << 1 | 1 << 3);
/// assert!(mon_wed.opens_on(1) && !mon_wed.opens_on(2));
/// assert!(Days::Daily.opens_on(6));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Days {
    /// Every day (`StartTime`/`EndTime` alone).
    Daily,
    /// A daily window that opens only on these days (QuickFIX/J's and QuickFIX/Go's
    /// `Weekdays`): bit `d` set for day `d`, 0 = Sunday … 6 = Saturday. A window that
    /// crosses midnight belongs to the day it opens on.
    Weekdays(u8),
    /// A weekly window (`StartDay`/`EndDay`): it opens on `start` at the start time
    /// and closes on `end` at the end time (0 = Sunday … 6 = Saturday).
    Weekly {
        /// `StartDay`.
        start: u8,
        /// `EndDay`.
        end: u8,
    },
}

impl Days {
    /// Whether a window opens on weekday `day` (0 = Sunday).
    pub fn opens_on(self, day: u8) -> bool {
        match self {
            Days::Daily => true,
            Days::Weekdays(mask) => mask & (1 << (day % 7)) != 0,
            Days::Weekly { start, .. } => start % 7 == day % 7,
        }
    }
}

/// A window in local time: opens at `start_secs` after local midnight on the days
/// [`Days`] says, closes at `end_secs` (on the same day, the next day when it is not
/// later than the start, or on `EndDay` for a weekly window). The instants come from
/// the zone's rules for each date, so a window keeps its local hours across a
/// daylight-saving change.
///
/// ```
/// use peregrine_session::{Days, Window};
/// let w = Window { start_secs: 8 * 3600, end_secs: 17 * 3600, days: Days::Daily };
/// # let _ = w;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Opening time, seconds after local midnight (`StartTime`, `LogonTime`).
    pub start_secs: u32,
    /// Closing time, seconds after local midnight (`EndTime`, `LogoutTime`).
    pub end_secs: u32,
    /// Which days it opens on.
    pub days: Days,
}

/// An interval `[start, end)` in nanoseconds since the epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Interval {
    pub(crate) start: Nanos,
    pub(crate) end: Nanos,
}

/// How far back or forward a window's day is looked for: a week and a day covers
/// every weekly window and every weekday set.
const SEARCH_DAYS: i32 = 9;

/// The local date of `now` in `zone`.
pub(crate) fn local_date(zone: &TimeZone, now: Nanos) -> Date {
    let ts = Timestamp::from_nanosecond(i128::from(now)).unwrap_or(Timestamp::UNIX_EPOCH);
    zone.to_datetime(ts).date()
}

/// The instant of local time `secs` on `date` in `zone`. A time the clocks skip
/// (spring forward) is moved later by the length of the gap; a time that happens
/// twice (fall back) is its first occurrence: jiff's `compatible`, as RFC 5545 and
/// java.time resolve them.
pub(crate) fn instant(zone: &TimeZone, date: Date, secs: u32) -> Nanos {
    let time = jiff::civil::Time::midnight()
        .checked_add(i64::from(secs).seconds())
        .unwrap_or_default();
    let ts = zone
        .to_ambiguous_timestamp(DateTime::from_parts(date, time))
        .compatible()
        .unwrap_or(Timestamp::MAX);
    Nanos::try_from(ts.as_nanosecond()).unwrap_or(Nanos::MAX)
}

fn weekday(date: Date) -> u8 {
    date.weekday().to_sunday_zero_offset() as u8
}

fn add_days(date: Date, days: i32) -> Date {
    date.checked_add(days.days()).unwrap_or(date)
}

impl Window {
    /// The interval of the window that opens on `date` (which must be one of its days).
    fn opening_on(&self, zone: &TimeZone, date: Date) -> Interval {
        let start = instant(zone, date, self.start_secs);
        let (end_date, period) = match self.days {
            Days::Weekly { start: sd, end: ed } => {
                (add_days(date, i32::from((ed % 7 + 7 - sd % 7) % 7)), 7)
            }
            _ => (date, 1),
        };
        let mut end = instant(zone, end_date, self.end_secs);
        if end <= start {
            end = instant(zone, add_days(end_date, period), self.end_secs);
        }
        Interval { start, end }
    }

    /// The latest interval that opened at or before `now` (the one containing `now`
    /// if any).
    pub(crate) fn latest(&self, zone: &TimeZone, now: Nanos) -> Interval {
        let mut date = local_date(zone, now);
        for _ in 0..SEARCH_DAYS {
            if self.days.opens_on(weekday(date)) {
                let i = self.opening_on(zone, date);
                if i.start <= now {
                    return i;
                }
            }
            date = add_days(date, -1);
        }
        // No day at all (an empty weekday set): never open.
        Interval {
            start: Nanos::MIN,
            end: Nanos::MIN,
        }
    }

    /// When the window next opens after `now`.
    pub(crate) fn next_start(&self, zone: &TimeZone, now: Nanos) -> Nanos {
        let mut date = local_date(zone, now);
        for _ in 0..SEARCH_DAYS {
            if self.days.opens_on(weekday(date)) {
                let start = instant(zone, date, self.start_secs);
                if start > now {
                    return start;
                }
            }
            date = add_days(date, 1);
        }
        Nanos::MAX
    }

    /// Whether `now` is inside the window.
    pub(crate) fn contains(&self, zone: &TimeZone, now: Nanos) -> bool {
        now < self.latest(zone, now).end
    }

    /// The next instant after `now` at which [`Window::contains`] may change.
    pub(crate) fn next_change(&self, zone: &TimeZone, now: Nanos) -> Nanos {
        let current = self.latest(zone, now);
        if now < current.end {
            current.end
        } else {
            self.next_start(zone, now)
        }
    }
}

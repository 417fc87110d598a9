//! Session schedules in a time zone: when a session may be connected, when it may
//! log on, and when a new session period (sequence numbers from 1) begins.
//!
//! Times are local to an IANA zone (QuickFIX's `TimeZone`, e.g. `America/New_York`).
//! The zone rules come from [jiff](https://docs.rs/jiff) with its `tzdb-bundle-always`
//! feature: the IANA database is compiled into the binary, so a schedule means the
//! same on every host (no `/usr/share/zoneinfo`, nothing read at run time), and jiff
//! is maintained (by the author of `regex`), follows each tzdb release, and resolves
//! local times that are skipped or repeated the way RFC 5545 and java.time do.
//!
//! Daylight-saving changes: every opening and closing instant is computed from the
//! local date, so a window keeps its local hours on either side of a change (the day
//! of the change is an hour shorter or longer). A local time the clocks skip (02:30 on
//! the spring-forward day in New York) is moved later by the gap (03:30 EDT); one
//! that happens twice (01:30 on the fall-back day) is its first occurrence (01:30
//! EDT). QuickFIX/J's `java.util.Calendar` agrees on the first and takes the second
//! occurrence of a repeated time; Peregrine follows jiff and java.time, so a window
//! closes the first time the wall clock shows EndTime.
//!
//! The session does not compute zones per message: it asks the schedule once for the
//! next instant anything changes and compares integers until then.

mod daily;
mod window;

pub use daily::DailyTime;
pub use jiff::tz::TimeZone;
pub use window::{Days, Window};

use crate::config::Nanos;

/// A session window in a time zone: QuickFIX's `StartTime`/`EndTime`, with
/// `StartDay`/`EndDay` (weekly) or `Weekdays`, `TimeZone`, and QuickFIX C++'s
/// `LogonTime`/`LogoutTime` (`LogonDay`/`LogoutDay`) for a narrower logon window.
///
/// Outside the window the session is not connected: an acceptor refuses a Logon, an
/// initiator does not connect, a logged-on session logs out when it closes. Each time
/// the window opens a new *period* begins: a session whose store was created before
/// the current period starts afresh (sequence numbers back to 1). The window is open
/// from its opening instant up to, not including, its closing one (QuickFIX/J counts
/// the closing millisecond in, QuickFIX/Go the closing second: under a second apart).
///
/// The logon window, when set, lies inside the session window: outside it a
/// logged-on session logs out and no Logon is sent or accepted, but the period (and
/// the sequence numbers) go on until the session window closes.
///
/// ```
/// use peregrine_session::{Schedule, TimeZone};
/// const H: i64 = 3_600_000_000_000;
/// let s = Schedule::daily(8 * 3600, 17 * 3600);
/// let day = 1_700_006_400_000_000_000i64; // 2023-11-15 00:00:00 UTC, a Wednesday
/// assert!(s.contains(day + 9 * H));
/// assert!(!s.contains(day + 18 * H));
/// // Sunday 22:00 to Friday 21:00.
/// let w = Schedule::weekly(0, 22 * 3600, 5, 21 * 3600);
/// assert!(w.contains(day + 18 * H)); // Wednesday evening
/// assert!(!w.contains(day + (3 * 24 + 12) * H)); // Saturday noon
/// // 08:00 to 17:00 in New York: 13:00 to 22:00 UTC in November (EST).
/// let ny = s.in_zone(TimeZone::get("America/New_York").unwrap());
/// assert!(!ny.contains(day + 9 * H));
/// assert!(ny.contains(day + 21 * H));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// The session window (`StartTime`/`EndTime`, `StartDay`/`EndDay`, `Weekdays`).
    pub window: Window,
    /// The logon window inside it (`LogonTime`/`LogoutTime`, `LogonDay`/`LogoutDay`);
    /// `None`: the session window.
    pub logon: Option<Window>,
    /// The zone both windows' times are in (`TimeZone`; UTC by default).
    pub zone: TimeZone,
}

impl Schedule {
    /// A window open every day from `start_secs` to `end_secs` (UTC; see
    /// [`Schedule::in_zone`]). When the end is not later than the start the window
    /// closes the next day; equal times: open around the clock, a new period each day
    /// at that time.
    pub fn daily(start_secs: u32, end_secs: u32) -> Self {
        Schedule::new(Window {
            start_secs,
            end_secs,
            days: Days::Daily,
        })
    }

    /// A window open from `start_day` at `start_secs` to `end_day` at `end_secs` every
    /// week (UTC; days 0 = Sunday … 6 = Saturday, taken modulo 7).
    pub fn weekly(start_day: u8, start_secs: u32, end_day: u8, end_secs: u32) -> Self {
        Schedule::new(Window {
            start_secs,
            end_secs,
            days: Days::Weekly {
                start: start_day % 7,
                end: end_day % 7,
            },
        })
    }

    /// A session window (UTC), without a separate logon window.
    pub fn new(window: Window) -> Self {
        Schedule {
            window,
            logon: None,
            zone: TimeZone::UTC,
        }
    }

    /// The same windows in `zone`'s local time.
    pub fn in_zone(self, zone: TimeZone) -> Self {
        Schedule { zone, ..self }
    }

    /// With a logon window inside the session window.
    pub fn with_logon_window(self, logon: Window) -> Self {
        Schedule {
            logon: Some(logon),
            ..self
        }
    }

    /// Whether `now` falls inside the session window.
    pub fn contains(&self, now: Nanos) -> bool {
        self.window.contains(&self.zone, now)
    }

    /// Whether a Logon may be sent or accepted at `now`: inside the session window
    /// and the logon window.
    pub fn logon_allowed(&self, now: Nanos) -> bool {
        self.contains(now) && self.logon.map_or(true, |l| l.contains(&self.zone, now))
    }

    /// When the session window last opened at or before `now` (the start of the
    /// current session period).
    pub fn period_start(&self, now: Nanos) -> Nanos {
        self.window.latest(&self.zone, now).start
    }

    /// The next instant after `now` at which [`Schedule::contains`] or
    /// [`Schedule::logon_allowed`] may change.
    pub fn next_boundary(&self, now: Nanos) -> Nanos {
        let session = self.window.next_change(&self.zone, now);
        match self.logon {
            Some(l) => session.min(l.next_change(&self.zone, now)),
            None => session,
        }
    }

    /// The next instant after `now` at which [`Schedule::logon_allowed`]
    /// changes (a session outside its hours: when it may log on again), not
    /// merely a window's edge: with a logon window inside the session window,
    /// a session past the logon window's end may log on next at its start,
    /// the next day, not at the session window's end. `None` if it does not
    /// change within [`MAX_STEPS`](Self::MAX_STEPS) window edges (a schedule
    /// whose logon window never meets its session window).
    pub fn next_logon_change(&self, now: Nanos) -> Option<Nanos> {
        let allowed = self.logon_allowed(now);
        let mut t = now;
        for _ in 0..Self::MAX_STEPS {
            t = self.next_boundary(t);
            if self.logon_allowed(t) != allowed {
                return Some(t);
            }
        }
        None
    }

    /// Where the schedule stands at `now`: open for a Logon, and when that
    /// ends, or closed, and when the next window opens (both
    /// [`next_logon_change`](Self::next_logon_change); `None`: it does not
    /// change within [`MAX_STEPS`](Self::MAX_STEPS) window edges, as for a
    /// window open around the clock).
    ///
    /// ```
    /// use peregrine_session::{Schedule, WindowState};
    /// const H: i64 = 3_600_000_000_000;
    /// let s = Schedule::daily(8 * 3600, 17 * 3600);
    /// let day = 1_700_006_400_000_000_000i64; // 2023-11-15 00:00:00 UTC
    /// assert_eq!(s.window_state(day + 9 * H), WindowState::Open { closes: Some(day + 17 * H) });
    /// assert_eq!(s.window_state(day + 18 * H), WindowState::Closed { opens: Some(day + 32 * H) });
    /// ```
    pub fn window_state(&self, now: Nanos) -> WindowState {
        // Nanos::MAX stands for "never" in the window arithmetic.
        let next = self.next_logon_change(now).filter(|&t| t < Nanos::MAX);
        if self.logon_allowed(now) {
            WindowState::Open { closes: next }
        } else {
            WindowState::Closed { opens: next }
        }
    }

    /// An instant as the schedule's zone shows it, beside UTC:
    /// `2026-11-30 14:00:00 UTC (09:00:00 EST America/New_York)`; in UTC alone
    /// when the zone is UTC.
    ///
    /// ```
    /// use peregrine_session::{Schedule, TimeZone};
    /// let t = 1_700_056_800_000_000_000i64; // 2023-11-15 14:00:00 UTC
    /// let ny = Schedule::daily(0, 0).in_zone(TimeZone::get("America/New_York").unwrap());
    /// assert_eq!(ny.local_text(t), "2023-11-15 14:00:00 UTC (09:00:00 EST America/New_York)");
    /// assert_eq!(Schedule::daily(0, 0).local_text(t), "2023-11-15 14:00:00 UTC");
    /// ```
    pub fn local_text(&self, t: Nanos) -> String {
        let ts = jiff::Timestamp::from_nanosecond(i128::from(t)).unwrap_or(jiff::Timestamp::MAX);
        let utc = ts.strftime("%Y-%m-%d %H:%M:%S UTC");
        match self.zone.iana_name() {
            Some("UTC") | Some("Etc/UTC") => utc.to_string(),
            name => {
                let local = ts.to_zoned(self.zone.clone());
                format!(
                    "{utc} ({} {})",
                    local.strftime("%H:%M:%S %Z"),
                    name.unwrap_or("local")
                )
            }
        }
    }

    /// Window edges [`next_logon_change`](Self::next_logon_change) looks past
    /// at most: two weeks of a daily session window with a daily logon
    /// window.
    pub const MAX_STEPS: usize = 64;
}

/// Where a [`Schedule`] stands at an instant ([`Schedule::window_state`]):
/// whether a Logon may be sent or accepted, and until when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowState {
    /// Inside the schedule.
    Open {
        /// When it closes (`None`: not within [`Schedule::MAX_STEPS`] edges).
        closes: Option<Nanos>,
    },
    /// Outside the schedule: the session is held back.
    Closed {
        /// When the next window opens (`None`: not within
        /// [`Schedule::MAX_STEPS`] edges).
        opens: Option<Nanos>,
    },
}

#[cfg(test)]
mod tests;

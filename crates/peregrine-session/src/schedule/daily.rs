//! A time of day in a zone that comes round once a day: QuickFIX/Go's `ResetSeqTime`.

use jiff::tz::TimeZone;

use super::window::{instant, local_date};
use crate::config::Nanos;

/// A local time of day in a zone, reached once a day: when QuickFIX/Go's
/// `ResetSeqTime` resets sequence numbers without a disconnect (see
/// [`SessionConfig::reset_seq_time`](crate::SessionConfig::reset_seq_time)).
///
/// On the day the clocks skip it (spring forward) it comes as many minutes later as
/// the gap is long; on the day it happens twice (fall back) it comes once, the first
/// time.
///
/// ```
/// use peregrine_session::{DailyTime, TimeZone};
/// let ny = TimeZone::get("America/New_York").unwrap();
/// let t = DailyTime { secs: 17 * 3600, zone: ny };
/// // 2026-07-01 12:00 UTC is 08:00 in New York (EDT): next 17:00 EDT is 21:00 UTC.
/// let noon_utc = 1_782_907_200 * 1_000_000_000i64;
/// assert_eq!(t.next_after(noon_utc), noon_utc + 9 * 3600 * 1_000_000_000);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct DailyTime {
    /// Seconds after local midnight.
    pub secs: u32,
    /// The zone of the local time.
    pub zone: TimeZone,
}

impl DailyTime {
    /// The first instant after `now` at which the local time is this one.
    pub fn next_after(&self, now: Nanos) -> Nanos {
        let mut date = local_date(&self.zone, now);
        // Yesterday's may still be ahead in a zone west of a fold; three days cover it.
        date = date.yesterday().unwrap_or(date);
        for _ in 0..3 {
            let at = instant(&self.zone, date, self.secs);
            if at > now {
                return at;
            }
            date = date.tomorrow().unwrap_or(date);
        }
        Nanos::MAX
    }
}

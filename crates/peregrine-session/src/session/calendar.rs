//! What the session keeps of its schedule and of `ResetSeqTime`: the answers for
//! the current stretch of time and when they stop holding, so that timers compare
//! integers and zone rules are consulted only when a boundary is crossed.

use crate::config::{Nanos, SessionConfig};

/// The schedule's answers at the last boundary crossed.
#[derive(Clone, Copy, Debug)]
pub(super) struct Calendar {
    /// Whether a schedule is configured at all.
    scheduled: bool,
    /// Start of the current (or last) session period.
    pub(super) period_start: Nanos,
    /// Inside the session window and the logon window.
    pub(super) logon_allowed: bool,
    /// The answers hold until this instant.
    until: Nanos,
    /// The next `ResetSeqTime` (`Nanos::MAX`: none configured).
    pub(super) next_reset: Nanos,
}

impl Calendar {
    pub(super) fn new(config: &SessionConfig, now: Nanos) -> Calendar {
        let mut c = Calendar {
            scheduled: config.schedule.is_some(),
            period_start: Nanos::MIN,
            logon_allowed: true,
            until: Nanos::MIN,
            next_reset: config
                .reset_seq_time
                .as_ref()
                .map_or(Nanos::MAX, |t| t.next_after(now)),
        };
        c.refresh(config, now);
        c
    }

    /// Brings the answers up to `now` (zone rules only once a boundary has passed).
    #[inline]
    pub(super) fn refresh(&mut self, config: &SessionConfig, now: Nanos) {
        if now < self.until {
            return;
        }
        if let Some(s) = &config.schedule {
            self.period_start = s.period_start(now);
            self.logon_allowed = s.logon_allowed(now);
            self.until = s.next_boundary(now);
        } else {
            self.until = Nanos::MAX;
        }
    }

    /// Whether the schedule lets a session be logged on at the time of the last
    /// refresh (always, without a schedule).
    pub(super) fn open(&self) -> bool {
        self.logon_allowed
    }

    /// When the answers next change (`None` without a schedule).
    pub(super) fn next_change(&self) -> Option<Nanos> {
        self.scheduled.then_some(self.until)
    }

    /// Whether a store created at `creation` predates the current period.
    pub(super) fn new_period(&self, creation: Nanos) -> bool {
        self.scheduled && creation < self.period_start
    }

    /// The `ResetSeqTime` at or before `now` has been dealt with (done, or let pass):
    /// the next one is tomorrow's.
    pub(super) fn reset_passed(&mut self, config: &SessionConfig, now: Nanos) {
        if let Some(t) = &config.reset_seq_time {
            self.next_reset = t.next_after(now);
        }
    }
}

//! The simulated clock: a number of nanoseconds, moved only by the
//! simulation (time passing, and clock jumps forward and back).
//!
//! Sessions never see the host's clock: they are configured with
//! [`SessionClock::Driver`](peregrine_session::SessionClock::Driver), so the
//! SendingTime they write is this clock's time too, and a run replays exactly.

use peregrine_session::Nanos;

/// 2026-11-01 05:30 UTC (01:30 EDT), half an hour before daylight saving time
/// ends in New York (02:00 EDT, 06:00 UTC).
pub const START: Nanos = 1_793_511_000_000_000_000;

/// 2027-03-14 06:30 UTC (01:30 EST), half an hour before daylight saving
/// time begins in New York.
pub const SPRING_START: Nanos = 1_805_005_800_000_000_000;

/// Virtual time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimClock {
    now: Nanos,
}

impl Default for SimClock {
    fn default() -> Self {
        SimClock { now: START }
    }
}

impl SimClock {
    /// A clock that starts at `now`.
    pub fn at(now: Nanos) -> SimClock {
        SimClock { now }
    }

    /// The current time.
    pub fn now(&self) -> Nanos {
        self.now
    }

    /// Time passes (`by` ≥ 0).
    pub fn advance(&mut self, by: Nanos) {
        self.now = self.now.saturating_add(by.max(0));
    }

    /// Moves to `t` if it is later.
    pub fn advance_to(&mut self, t: Nanos) {
        self.now = self.now.max(t);
    }

    /// The wall clock is stepped (NTP, an operator): forward or back by `by`.
    pub fn jump(&mut self, by: Nanos) {
        self.now = self.now.saturating_add(by);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumps_go_both_ways_and_advance_never_goes_back() {
        let mut c = SimClock::default();
        c.jump(-5);
        assert_eq!(c.now(), START - 5);
        c.advance(-100);
        assert_eq!(c.now(), START - 5);
        c.advance_to(START - 10);
        assert_eq!(c.now(), START - 5);
        c.advance_to(START + 1);
        assert_eq!(c.now(), START + 1);
    }
}

//! Idle strategies: what a polling loop does when a duty cycle found no work.
//!
//! The same knobs as Agrona's `IdleStrategy`: call [`IdleStrategy::idle`] with the amount
//! of work the cycle did; with work it returns at once (and resets any back-off), without
//! it the strategy spins, yields or sleeps. Pick by latency budget and core budget:
//!
//! | strategy | idle cost | wake-up latency | when |
//! | --- | --- | --- | --- |
//! | [`BusySpin`] | a whole core | ~nothing | latency benchmarks, pinned cores |
//! | [`SpinThenYield`] | a core unless others want it | a yield | shared cores, low latency |
//! | [`Backoff`] | little | up to `max_park` | background agents, tests |
//!
//! On a two-core machine shared with other work, a busy-spinning thread steals the core
//! its peer needs; [`SpinThenYield`] keeps most of the latency and gives the core back.

use std::time::Duration;

/// What a polling loop does between duty cycles.
pub trait IdleStrategy {
    /// Called after each duty cycle with how much work it did (fragments read,
    /// messages sent). `work_count > 0` returns immediately and resets the back-off.
    fn idle(&mut self, work_count: usize);

    /// Forget any accumulated back-off (e.g. before a new wait).
    fn reset(&mut self);
}

impl<T: IdleStrategy + ?Sized> IdleStrategy for &mut T {
    #[inline]
    fn idle(&mut self, work_count: usize) {
        (**self).idle(work_count);
    }

    #[inline]
    fn reset(&mut self) {
        (**self).reset();
    }
}

/// Spin with a CPU pause hint; never gives the core away.
#[derive(Clone, Copy, Debug, Default)]
pub struct BusySpin;

impl IdleStrategy for BusySpin {
    #[inline]
    fn idle(&mut self, work_count: usize) {
        if work_count == 0 {
            std::hint::spin_loop();
        }
    }

    #[inline]
    fn reset(&mut self) {}
}

/// Spin `spins` times, then yield the thread on every further idle cycle.
#[derive(Clone, Copy, Debug)]
pub struct SpinThenYield {
    spins: u32,
    count: u32,
}

impl SpinThenYield {
    /// Spin `spins` idle cycles before starting to yield.
    pub const fn new(spins: u32) -> Self {
        SpinThenYield { spins, count: 0 }
    }
}

impl Default for SpinThenYield {
    /// 100 spins, then yield.
    fn default() -> Self {
        SpinThenYield::new(100)
    }
}

impl IdleStrategy for SpinThenYield {
    #[inline]
    fn idle(&mut self, work_count: usize) {
        if work_count > 0 {
            self.count = 0;
        } else if self.count < self.spins {
            self.count += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }

    #[inline]
    fn reset(&mut self) {
        self.count = 0;
    }
}

/// Agrona's back-off: spin, then yield, then sleep for exponentially growing periods
/// between `min_park` and `max_park`.
#[derive(Clone, Copy, Debug)]
pub struct Backoff {
    max_spins: u32,
    max_yields: u32,
    min_park: Duration,
    max_park: Duration,
    spins: u32,
    yields: u32,
    park: Duration,
}

impl Backoff {
    /// A back-off with explicit bounds.
    pub const fn new(
        max_spins: u32,
        max_yields: u32,
        min_park: Duration,
        max_park: Duration,
    ) -> Self {
        Backoff {
            max_spins,
            max_yields,
            min_park,
            max_park,
            spins: 0,
            yields: 0,
            park: min_park,
        }
    }
}

impl Default for Backoff {
    /// Agrona's defaults: 10 spins, 5 yields, park 1 µs doubling up to 1 ms.
    fn default() -> Self {
        Backoff::new(10, 5, Duration::from_micros(1), Duration::from_millis(1))
    }
}

impl IdleStrategy for Backoff {
    #[inline]
    fn idle(&mut self, work_count: usize) {
        if work_count > 0 {
            self.reset();
        } else if self.spins < self.max_spins {
            self.spins += 1;
            std::hint::spin_loop();
        } else if self.yields < self.max_yields {
            self.yields += 1;
            std::thread::yield_now();
        } else {
            std::thread::sleep(self.park);
            self.park = (self.park * 2).min(self.max_park);
        }
    }

    #[inline]
    fn reset(&mut self) {
        self.spins = 0;
        self.yields = 0;
        self.park = self.min_park;
    }
}

/// A run-time choice among the strategies above, for configuration files and CLIs.
#[derive(Clone, Copy, Debug)]
pub enum Idle {
    /// [`BusySpin`].
    BusySpin(BusySpin),
    /// [`SpinThenYield`].
    SpinThenYield(SpinThenYield),
    /// [`Backoff`].
    Backoff(Backoff),
}

impl Idle {
    /// Parse `busy-spin`, `spin-yield` or `backoff` (the defaults of each).
    pub fn from_name(name: &str) -> Option<Idle> {
        match name {
            "busy-spin" | "spin" => Some(Idle::BusySpin(BusySpin)),
            "spin-yield" | "yield" => Some(Idle::SpinThenYield(SpinThenYield::default())),
            "backoff" => Some(Idle::Backoff(Backoff::default())),
            _ => None,
        }
    }
}

impl IdleStrategy for Idle {
    #[inline]
    fn idle(&mut self, work_count: usize) {
        match self {
            Idle::BusySpin(s) => s.idle(work_count),
            Idle::SpinThenYield(s) => s.idle(work_count),
            Idle::Backoff(s) => s.idle(work_count),
        }
    }

    #[inline]
    fn reset(&mut self) {
        match self {
            Idle::BusySpin(s) => s.reset(),
            Idle::SpinThenYield(s) => s.reset(),
            Idle::Backoff(s) => s.reset(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn backoff_escalates_and_resets() {
        let mut b = Backoff::new(2, 2, Duration::from_micros(50), Duration::from_micros(200));
        for _ in 0..4 {
            b.idle(0); // spins and yields: fast
        }
        assert_eq!((b.spins, b.yields), (2, 2));
        let t = Instant::now();
        b.idle(0);
        assert!(t.elapsed() >= Duration::from_micros(50));
        assert_eq!(b.park, Duration::from_micros(100));
        b.idle(0);
        b.idle(0);
        assert_eq!(b.park, Duration::from_micros(200), "capped at max_park");
        b.idle(1);
        assert_eq!(
            (b.spins, b.yields, b.park),
            (0, 0, Duration::from_micros(50))
        );
    }

    #[test]
    fn spin_then_yield_counts_spins() {
        let mut s = SpinThenYield::new(3);
        for _ in 0..5 {
            s.idle(0);
        }
        assert_eq!(s.count, 3);
        s.idle(7);
        assert_eq!(s.count, 0);
    }

    #[test]
    fn names() {
        assert!(matches!(
            Idle::from_name("busy-spin"),
            Some(Idle::BusySpin(_))
        ));
        assert!(matches!(
            Idle::from_name("spin-yield"),
            Some(Idle::SpinThenYield(_))
        ));
        assert!(matches!(Idle::from_name("backoff"), Some(Idle::Backoff(_))));
        assert!(Idle::from_name("nap").is_none());
    }
}

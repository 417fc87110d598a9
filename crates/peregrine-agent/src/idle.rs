//! Idle strategies: what a polling loop does after a duty cycle that found no
//! work.
//!
//! Call [`IdleStrategy::idle`] with the work the cycle did: with work it
//! returns at once (and forgets any back-off); without, the strategy spins,
//! yields or sleeps. Pick by latency budget and core budget:
//!
//! | strategy | idle cost | wake-up latency | when |
//! | --- | --- | --- | --- |
//! | [`BusySpin`] | a whole core | ~nothing | latency benchmarks, pinned cores |
//! | [`SpinThenYield`] | a core unless others want it | a yield | shared cores, low latency |
//! | [`Backoff`] | little | up to its longest park | background loops, tests |
//! | [`Block`] | none | a wake-up (~35 µs across cores) | a loop that can wait in `epoll` |
//!
//! On a two-core machine shared with other work a busy-spinning thread steals
//! the core its peer needs; [`SpinThenYield`] keeps most of the latency and
//! gives the core back.

use std::time::Duration;

/// The longest [`Block`] lets an agent wait in one cycle (so that a stop flag
/// or a command is seen within it even with no timer due).
pub const BLOCK_MAX_WAIT: Duration = Duration::from_millis(100);

/// What a polling loop does between duty cycles (Agrona's `IdleStrategy`).
///
/// ```
/// use peregrine_agent::{IdleStrategy, SpinThenYield};
/// let mut idle = SpinThenYield::new(10);
/// # let mut cycles = 0;
/// # let mut poll = || { cycles += 1; usize::from(cycles % 3 == 0) };
/// for _ in 0..100 {
///     let work = poll();
///     idle.idle(work);
/// }
/// ```
pub trait IdleStrategy {
    /// Called after each duty cycle with how much work it did (messages read,
    /// bytes written). `work_count > 0` returns at once and resets the back-off.
    fn idle(&mut self, work_count: usize);

    /// Forgets any accumulated back-off (before a new wait, say).
    fn reset(&mut self);

    /// How long an agent that can wait for readiness itself (in `epoll`) may
    /// block in its next cycle instead: zero for every strategy but [`Block`].
    fn max_wait(&self) -> Duration {
        Duration::ZERO
    }
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

    #[inline]
    fn max_wait(&self) -> Duration {
        (**self).max_wait()
    }
}

/// Spins with a CPU pause hint; never gives the core away.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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

/// One idle cycle of a bounded phase (spinning, yielding): while `*done` is below `limit`,
/// count the cycle and say so; past it, `false` (the next phase's turn).
#[inline]
fn counted(done: &mut u32, limit: u32) -> bool {
    if *done < limit {
        *done += 1;
        true
    } else {
        false
    }
}

/// Spins `spins` idle cycles, then yields the thread on every further one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpinThenYield {
    spins: u32,
    count: u32,
}

impl SpinThenYield {
    /// The spins when none are given (`spin-then-yield`).
    pub const DEFAULT_SPINS: u32 = 100;

    /// Spin `spins` idle cycles before starting to yield.
    pub const fn new(spins: u32) -> Self {
        SpinThenYield { spins, count: 0 }
    }

    /// Idle cycles spun before yielding.
    pub const fn spins(&self) -> u32 {
        self.spins
    }
}

impl Default for SpinThenYield {
    /// [`DEFAULT_SPINS`](Self::DEFAULT_SPINS) spins, then yield.
    fn default() -> Self {
        SpinThenYield::new(Self::DEFAULT_SPINS)
    }
}

impl IdleStrategy for SpinThenYield {
    #[inline]
    fn idle(&mut self, work_count: usize) {
        if work_count > 0 {
            self.reset();
        } else if counted(&mut self.count, self.spins) {
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

/// Agrona's back-off: spin, then yield, then sleep for periods that double
/// from `min_park` up to `max_park`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// Spins before yielding (Agrona's default).
    pub const DEFAULT_SPINS: u32 = 10;
    /// Yields before parking (Agrona's default).
    pub const DEFAULT_YIELDS: u32 = 5;
    /// The first park.
    pub const MIN_PARK: Duration = Duration::from_micros(1);
    /// The longest park when none is given (`backoff`).
    pub const DEFAULT_MAX_PARK: Duration = Duration::from_millis(1);

    /// A back-off with explicit bounds (`min_park` at least 1 ns, and
    /// `max_park` at least `min_park`: they are raised to those if not).
    pub const fn new(
        max_spins: u32,
        max_yields: u32,
        min_park: Duration,
        max_park: Duration,
    ) -> Self {
        let min_park = if min_park.is_zero() {
            Duration::from_nanos(1)
        } else {
            min_park
        };
        let max_park = if max_park.as_nanos() < min_park.as_nanos() {
            min_park
        } else {
            max_park
        };
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

    /// Agrona's defaults with the longest park `max_park` (`backoff:MAX_MICROS`).
    pub const fn with_max_park(max_park: Duration) -> Self {
        Backoff::new(
            Self::DEFAULT_SPINS,
            Self::DEFAULT_YIELDS,
            Self::MIN_PARK,
            max_park,
        )
    }

    /// The longest park.
    pub const fn max_park(&self) -> Duration {
        self.max_park
    }
}

impl Default for Backoff {
    /// Agrona's defaults: 10 spins, 5 yields, park 1 µs doubling up to 1 ms.
    fn default() -> Self {
        Backoff::with_max_park(Self::DEFAULT_MAX_PARK)
    }
}

impl IdleStrategy for Backoff {
    #[inline]
    fn idle(&mut self, work_count: usize) {
        if work_count > 0 {
            self.reset();
        } else if counted(&mut self.spins, self.max_spins) {
            std::hint::spin_loop();
        } else if counted(&mut self.yields, self.max_yields) {
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

/// Waits in the agent's own readiness call (`epoll`) for up to
/// [`BLOCK_MAX_WAIT`] per cycle: no CPU while idle, a wake-up's latency.
///
/// Only an agent that honours [`Agent::do_work`](crate::Agent::do_work)'s
/// `may_wait` idles with it; for any other loop it would spin, so such loops
/// refuse it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Block;

impl IdleStrategy for Block {
    #[inline]
    fn idle(&mut self, work_count: usize) {
        if work_count == 0 {
            // The wait happened in the agent's cycle.
            std::hint::spin_loop();
        }
    }

    #[inline]
    fn reset(&mut self) {}

    fn max_wait(&self) -> Duration {
        BLOCK_MAX_WAIT
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
    fn backoff_bounds_are_raised_to_sense() {
        let b = Backoff::new(0, 0, Duration::ZERO, Duration::ZERO);
        assert_eq!(
            (b.min_park, b.max_park),
            (Duration::from_nanos(1), Duration::from_nanos(1))
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
    fn only_block_lets_an_agent_wait() {
        assert_eq!(Block.max_wait(), BLOCK_MAX_WAIT);
        assert_eq!(BusySpin.max_wait(), Duration::ZERO);
        assert_eq!(SpinThenYield::default().max_wait(), Duration::ZERO);
        assert_eq!(Backoff::default().max_wait(), Duration::ZERO);
    }
}

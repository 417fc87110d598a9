//! Timing loops shared by the benchmarks, identical in method to the peers':
//! `mean` = one timed batch divided by its count (no timer inside), and the
//! percentiles from a second loop that times every operation on its own with
//! the monotonic clock, minus the calibrated median cost of an empty timer pair.

use crate::report::{Record, Stats};
use std::hint::black_box;
use std::time::Instant;

/// Median nanoseconds of an empty `Instant::now()` pair.
///
/// ```
/// let overhead = peregrine_bench::measure::timer_overhead_ns();
/// assert!(overhead >= 0.0 && overhead < 1e6);
/// ```
pub fn timer_overhead_ns() -> f64 {
    let mut v: Vec<u64> = (0..10_001)
        .map(|_| {
            let a = Instant::now();
            let b = Instant::now();
            (b - a).as_nanos() as u64
        })
        .collect();
    v.sort_unstable();
    v[v.len() / 2] as f64
}

/// What [`measure`] found.
///
/// ```
/// use peregrine_bench::measure::{measure, Measured};
/// let m: Measured = measure(10, 100, 0.0, || 2 + 2);
/// assert!(m.stats.mean >= 0.0 && m.allocs_per_op == 0.0);
/// ```
#[derive(Clone, Debug)]
pub struct Measured {
    /// Timing figures.
    pub stats: Stats,
    /// Allocations per operation during the timed batch (0 when the binary
    /// does not install the counting allocator).
    pub allocs_per_op: f64,
}

impl Measured {
    /// Peregrine's record of `case`, set up as `settings` (nanoseconds; allocations per
    /// operation only when the binary counts them).
    ///
    /// ```
    /// use peregrine_bench::measure::measure;
    /// let r = measure(10, 100, 0.0, || 2 + 2).record("add", "plain integers");
    /// assert_eq!((r.engine.as_str(), r.case.as_str(), r.unit.as_str()), ("peregrine", "add", "ns"));
    /// assert_eq!(r.allocs_per_op, None); // no counting allocator in a doctest
    /// ```
    pub fn record(self, case: &str, settings: &str) -> Record {
        Record {
            engine: "peregrine".into(),
            case: case.into(),
            unit: "ns".into(),
            stats: self.stats,
            allocs_per_op: crate::alloc::is_counting().then_some(self.allocs_per_op),
            settings: settings.into(),
        }
    }
}

/// Measures `op` (which returns something to keep alive): `warmup` untimed calls,
/// `iters` calls in one batch for the mean (allocations counted there), then
/// `iters` individually timed calls.
///
/// ```
/// use peregrine_bench::measure::{measure, timer_overhead_ns};
///
/// let data: Vec<u64> = (0..1_000).collect();
/// let m = measure(1_000, 10_000, timer_overhead_ns(), || data.iter().sum::<u64>());
/// assert!(m.stats.min <= m.stats.p50 && m.stats.p50 <= m.stats.max);
/// ```
pub fn measure<R>(
    warmup: u64,
    iters: u64,
    overhead_ns: f64,
    mut op: impl FnMut() -> R,
) -> Measured {
    for _ in 0..warmup {
        black_box(op());
    }
    let mut samples = vec![0f64; iters as usize];
    let a0 = crate::alloc::allocations();
    let t = Instant::now();
    for _ in 0..iters {
        black_box(op());
    }
    let mean = t.elapsed().as_nanos() as f64 / iters as f64;
    let allocs_per_op = (crate::alloc::allocations() - a0) as f64 / iters as f64;
    for s in samples.iter_mut() {
        let a = Instant::now();
        black_box(op());
        let b = Instant::now();
        *s = ((b - a).as_nanos() as f64 - overhead_ns).max(0.0);
    }
    Measured {
        stats: Stats::from_samples(mean, &mut samples),
        allocs_per_op,
    }
}

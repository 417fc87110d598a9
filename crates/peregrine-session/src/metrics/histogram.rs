//! A latency histogram of fixed, log-spaced buckets of atomics: observed by
//! one thread without a lock, read by any other at any time.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// Finite buckets of a [`LatencyHistogram`]: upper bounds of 1 µs × 2^k for
/// k = 0..24, from 1 µs to 2^23 µs (about 8.4 s); above the last, the `+Inf`
/// bucket.
pub const LATENCY_BUCKETS: usize = 24;

/// A histogram of durations with [`LATENCY_BUCKETS`] log-spaced buckets (1 µs,
/// 2 µs, 4 µs, … about 8.4 s, then `+Inf`), their sum and count: what a
/// Prometheus histogram shows.
///
/// Observing costs one bucket index (a leading-zeros count) and two relaxed
/// atomic additions; nothing is allocated or locked, so the thread that
/// observes never waits for one that reads. A reader sees every bucket as it
/// was at some instant of its own read: a snapshot taken while observations
/// go on may count one in a bucket and not yet in the sum (the count is the
/// sum of the buckets, so it always agrees with them).
///
/// ```
/// use std::time::Duration;
/// use peregrine_session::metrics::LatencyHistogram;
///
/// let h = LatencyHistogram::new();
/// h.observe(Duration::from_micros(3)); // in the 4 µs bucket
/// h.observe(Duration::from_micros(1_000)); // in the 1,024 µs bucket
/// h.observe(Duration::from_secs(60)); // above every bound: +Inf
/// let s = h.snapshot();
/// assert_eq!(s.count(), 3);
/// assert_eq!(s.buckets[2], 1);
/// assert_eq!(s.buckets[10], 1);
/// assert_eq!(s.buckets[peregrine_session::metrics::LATENCY_BUCKETS], 1);
/// assert_eq!(s.sum_nanos, 60_001_003_000);
/// ```
#[derive(Debug, Default)]
pub struct LatencyHistogram {
    /// Observations per bucket (not cumulative); the last is `+Inf`.
    buckets: [AtomicU64; LATENCY_BUCKETS + 1],
    /// The sum of the observations, in nanoseconds (wraps after 584 years).
    sum_nanos: AtomicU64,
}

/// What a [`LatencyHistogram`] held when it was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistogramSnapshot {
    /// Observations per bucket, not cumulative: `buckets[k]` counts those
    /// above the bound of `k - 1` and at most
    /// [`upper_bound_nanos(k)`](LatencyHistogram::upper_bound_nanos); the last
    /// is `+Inf`.
    pub buckets: [u64; LATENCY_BUCKETS + 1],
    /// The sum of the observations, in nanoseconds.
    pub sum_nanos: u64,
}

impl HistogramSnapshot {
    /// How many observations.
    pub fn count(&self) -> u64 {
        self.buckets.iter().sum()
    }
}

impl LatencyHistogram {
    /// An empty histogram.
    pub fn new() -> LatencyHistogram {
        LatencyHistogram::default()
    }

    /// The upper bound of bucket `k` in nanoseconds (`None` for the last,
    /// `+Inf`, and past it).
    ///
    /// ```
    /// use peregrine_session::metrics::LatencyHistogram;
    /// assert_eq!(LatencyHistogram::upper_bound_nanos(0), Some(1_000));
    /// assert_eq!(LatencyHistogram::upper_bound_nanos(10), Some(1_024_000));
    /// assert_eq!(LatencyHistogram::upper_bound_nanos(24), None);
    /// ```
    pub fn upper_bound_nanos(k: usize) -> Option<u64> {
        (k < LATENCY_BUCKETS).then(|| 1_000u64 << k)
    }

    /// The bucket a duration of `nanos` falls in: the first whose bound it
    /// does not exceed.
    pub fn bucket_of(nanos: u64) -> usize {
        // Bound k is 1,000 × 2^k ns: `nanos` fits it when its microseconds,
        // rounded up, are at most 2^k, i.e. k = ceil(log2(µs)).
        let micros = nanos.div_ceil(1_000);
        if micros <= 1 {
            return 0;
        }
        let k = (u64::BITS - (micros - 1).leading_zeros()) as usize;
        k.min(LATENCY_BUCKETS)
    }

    /// Records a duration of `nanos` nanoseconds.
    #[inline]
    pub fn observe_nanos(&self, nanos: u64) {
        // fetch_add: any thread may observe (the engine's stores have one
        // writer each, but the type does not rely on it).
        self.buckets[Self::bucket_of(nanos)].fetch_add(1, Relaxed);
        self.sum_nanos.fetch_add(nanos, Relaxed);
    }

    /// Records a duration.
    #[inline]
    pub fn observe(&self, d: Duration) {
        self.observe_nanos(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    }

    /// The buckets and sum as they are now.
    pub fn snapshot(&self) -> HistogramSnapshot {
        HistogramSnapshot {
            buckets: std::array::from_fn(|k| self.buckets[k].load(Relaxed)),
            sum_nanos: self.sum_nanos.load(Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bucket_holds_its_bound_and_not_one_nanosecond_more() {
        assert_eq!(LatencyHistogram::bucket_of(0), 0);
        for k in 0..LATENCY_BUCKETS {
            let bound = LatencyHistogram::upper_bound_nanos(k).unwrap();
            assert_eq!(LatencyHistogram::bucket_of(bound), k, "bound of {k}");
            assert_eq!(LatencyHistogram::bucket_of(bound + 1), k + 1, "past {k}");
            if k > 0 {
                let below = LatencyHistogram::upper_bound_nanos(k - 1).unwrap();
                assert_eq!(LatencyHistogram::bucket_of(below + 1), k);
            }
        }
        assert_eq!(LatencyHistogram::bucket_of(u64::MAX), LATENCY_BUCKETS);
    }

    #[test]
    fn a_snapshot_counts_and_sums_what_was_observed() {
        let h = LatencyHistogram::new();
        for nanos in [0, 999, 1_000, 1_001, 250_000, 9_000_000_000] {
            h.observe_nanos(nanos);
        }
        let s = h.snapshot();
        assert_eq!(s.count(), 6);
        assert_eq!(s.sum_nanos, 999 + 1_000 + 1_001 + 250_000 + 9_000_000_000);
        assert_eq!(s.buckets[0], 3); // 0, 999 and 1,000 ns: at most 1 µs
        assert_eq!(s.buckets[1], 1); // 1,001 ns: at most 2 µs
        assert_eq!(s.buckets[8], 1); // 250 µs: at most 256 µs
        assert_eq!(s.buckets[LATENCY_BUCKETS], 1); // 9 s: +Inf
    }

    #[test]
    fn observations_from_several_threads_are_all_counted() {
        let h = std::sync::Arc::new(LatencyHistogram::new());
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let h = h.clone();
                std::thread::spawn(move || (0..10_000).for_each(|i| h.observe_nanos(i)))
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        let s = h.snapshot();
        assert_eq!(s.count(), 40_000);
        assert_eq!(s.sum_nanos, 4 * (0..10_000u64).sum::<u64>());
    }
}

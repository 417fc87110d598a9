//! A cheap monotonic clock shared by every thread of the process: nanoseconds since a
//! process-wide epoch (`CLOCK_MONOTONIC` through the vDSO, about 20 ns a reading).

use std::sync::OnceLock;
use std::time::Instant;

static EPOCH: OnceLock<Instant> = OnceLock::new();

/// Nanoseconds since the first call in this process (monotonic, comparable across threads).
///
/// ```
/// let a = peregrine_topology::clock::now();
/// let b = peregrine_topology::clock::now();
/// assert!(b >= a);
/// ```
#[inline]
pub fn now() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

//! The clock every part of the topology stamps with: the engine's own clock,
//! nanoseconds since the Unix epoch (`CLOCK_REALTIME` through the vDSO, about
//! 20 ns a reading), so that a stamp taken here can be compared with the receive
//! time the engine hands the application ([`Outbox::received_at`]).
//!
//! A realtime clock can be stepped (a monotonic one cannot), so every duration
//! taken from it saturates at zero rather than wrapping; within one round trip
//! (tens of microseconds) an NTP slew changes nothing measurable.
//!
//! [`Outbox::received_at`]: peregrine_session::Outbox::received_at

/// Nanoseconds since the Unix epoch (the engine's clock, comparable across threads).
///
/// ```
/// let a = peregrine_topology::clock::now();
/// let b = peregrine_topology::clock::now();
/// assert!(b.saturating_sub(a) < 1_000_000_000);
/// assert!(a > 1_700_000_000_000_000_000, "since the Unix epoch");
/// ```
#[inline]
pub fn now() -> u64 {
    u64::try_from(peregrine_session::system_now()).unwrap_or(0)
}

//! Waiting, under an idle strategy, for the other end of a stream to connect.

use std::time::{Duration, Instant};

use peregrine_agent::{wait_until, Polled};

use super::TransportError;
use crate::idle::IdleStrategy;

/// Idle until `is_connected` holds, at most `timeout`; then
/// [`TransportError::Timeout`] naming `what` was awaited.
pub(super) fn wait_connected(
    is_connected: impl Fn() -> bool,
    idle: &mut impl IdleStrategy,
    timeout: Duration,
    what: &'static str,
) -> Result<(), TransportError> {
    let start = Instant::now();
    wait_until::<1, _, _>(
        idle,
        || {
            Ok(if is_connected() {
                Polled::Done
            } else {
                Polled::Nothing
            })
        },
        || start.elapsed() > timeout,
        || TransportError::Timeout(what),
    )
}

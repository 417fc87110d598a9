//! Waiting, under an idle strategy, for the other end of a stream to connect.

use std::time::{Duration, Instant};

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
    idle.reset();
    while !is_connected() {
        if start.elapsed() > timeout {
            return Err(TransportError::Timeout(what));
        }
        idle.idle(0);
    }
    Ok(())
}

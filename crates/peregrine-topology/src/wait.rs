//! Waiting for a condition on a part's own thread (the venue's reply, its logon, the
//! gateway's last stamp): poll until done, idling through an [`IdleStrategy`] after every
//! poll that found nothing, and give up after a deadline. The topology's venue and the
//! floor's venue wait with this one loop, [`peregrine_agent::wait_until`] on the
//! topology's clock.

use std::time::Duration;

use peregrine_engine::IdleStrategy;

use crate::steps::Stamps;
use crate::Error;

// What one poll of a wait found: the agent's, so both waits speak the same type.
pub(crate) use peregrine_agent::Polled;

/// Polls with `poll` until it says [`Polled::Done`], idling with `idle` after each poll
/// that found [`Polled::Nothing`] (and forgetting the back-off after each that did
/// work). Gives up, with `late()`, once more than `patience` ns have passed since
/// `since` ([`crate::clock::now`]); the clock is read only every `CLOCK_EVERY` idle polls
/// (a reading costs as much as a poll).
///
/// # Errors
///
/// The first error of `poll`, or `late()` at the deadline.
#[inline]
pub(crate) fn poll_until<const CLOCK_EVERY: u32, I, E>(
    idle: &mut I,
    since: u64,
    patience: u64,
    poll: impl FnMut() -> Result<Polled, E>,
    late: impl FnOnce() -> E,
) -> Result<(), E>
where
    I: IdleStrategy + ?Sized,
{
    peregrine_agent::wait_until::<CLOCK_EVERY, _, _>(
        idle,
        poll,
        || crate::clock::now().saturating_sub(since) > patience,
        late,
    )
}

/// Waits, idling with `idle`, until the gateway has stamped order `i` (0-based) in full:
/// its last stamp is taken after its write returns, so it can land after the venue
/// already has the reply. Gives up `timeout` after `since` (the order's send).
///
/// # Errors
///
/// [`Error::Timeout`] of `part` (the venue waiting).
#[inline]
pub(crate) fn gateway_stamps<I>(
    stamps: &Stamps,
    i: u64,
    idle: &mut I,
    since: u64,
    timeout: Duration,
    part: &'static str,
) -> crate::Result<()>
where
    I: IdleStrategy + ?Sized,
{
    poll_until::<1, _, _>(
        idle,
        since,
        timeout.as_nanos() as u64,
        || {
            Ok(if stamps.gateway_done() > i {
                Polled::Done
            } else {
                Polled::Nothing
            })
        },
        || Error::Timeout {
            part,
            waiting_for: "gateway stamps".into(),
            after: timeout,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use peregrine_engine::Idle;

    #[test]
    fn done_work_nothing_and_late() {
        let mut idle = Idle::busy_spin();
        let mut polls = 0;
        let r: Result<(), &str> = poll_until::<1, _, _>(
            &mut idle,
            crate::clock::now(),
            u64::MAX / 2,
            || {
                polls += 1;
                Ok(match polls {
                    1 => Polled::Work,
                    2 => Polled::Nothing,
                    _ => Polled::Done,
                })
            },
            || "late",
        );
        assert_eq!((r, polls), (Ok(()), 3));
        let r = poll_until::<4, _, _>(
            &mut idle,
            crate::clock::now(),
            0,
            || Ok::<_, &str>(Polled::Nothing),
            || "late",
        );
        assert_eq!(r, Err("late"));
        let r: Result<(), &str> = poll_until::<1, _, _>(&mut idle, 0, 0, || Err("poll"), || "late");
        assert_eq!(r, Err("poll"));
    }
}

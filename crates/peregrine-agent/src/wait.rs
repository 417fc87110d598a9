//! Waiting on a thread's own loop for something to hold: poll, idle through
//! an [`IdleStrategy`] after every poll that found nothing, give up at a
//! deadline.

use crate::IdleStrategy;

/// What one poll of a [`wait_until`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Polled {
    /// What was waited for is there: the wait is over.
    Done,
    /// Something happened (bytes read, an event handled), not yet the end:
    /// the idle strategy's back-off is forgotten.
    Work,
    /// Nothing happened: idle.
    Nothing,
}

/// Polls with `poll` until it says [`Polled::Done`], idling with `idle` after
/// each poll that found [`Polled::Nothing`] and forgetting the back-off
/// ([`IdleStrategy::reset`]) after each that did [`Polled::Work`].
///
/// The deadline is `expired`'s to say (it reads a clock), asked after every
/// `CHECK_EVERY`-th poll that found nothing and before idling: a clock
/// reading can cost as much as a poll, so a hot wait asks every thousand or
/// so, a wait that is not timed asks every time (`1`). Once it says yes the
/// wait gives up with `late()`. `CHECK_EVERY` 0 does not compile.
///
/// # Errors
///
/// The first error of `poll`, or `late()` once `expired`.
///
/// ```
/// use std::time::{Duration, Instant};
/// use peregrine_agent::{wait_until, BusySpin, Polled};
///
/// let mut polls = 0;
/// let start = Instant::now();
/// let expired = || start.elapsed() > Duration::from_secs(10);
/// let done = wait_until::<1, _, _>(
///     &mut BusySpin,
///     || {
///         polls += 1;
///         Ok::<_, &str>(if polls == 3 { Polled::Done } else { Polled::Nothing })
///     },
///     expired,
///     || "late",
/// );
/// assert_eq!((done, polls), (Ok(()), 3));
///
/// // Never done: late, at the first clock check (after 64 idle polls) that
/// // finds the deadline gone.
/// let never = wait_until::<64, _, _>(&mut BusySpin, || Ok(Polled::Nothing), || true, || "late");
/// assert_eq!(never, Err("late"));
/// ```
#[inline]
pub fn wait_until<const CHECK_EVERY: u32, I, E>(
    idle: &mut I,
    mut poll: impl FnMut() -> Result<Polled, E>,
    mut expired: impl FnMut() -> bool,
    late: impl FnOnce() -> E,
) -> Result<(), E>
where
    I: IdleStrategy + ?Sized,
{
    const { assert!(CHECK_EVERY > 0, "CHECK_EVERY must be at least 1") };
    idle.reset();
    let mut idle_polls = 0u32;
    loop {
        match poll()? {
            Polled::Done => return Ok(()),
            Polled::Work => idle.reset(),
            Polled::Nothing => {
                idle_polls = idle_polls.wrapping_add(1);
                if idle_polls % CHECK_EVERY == 0 && expired() {
                    return Err(late());
                }
                idle.idle(0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BusySpin;

    #[test]
    fn done_work_nothing_and_late() {
        let mut polls = 0;
        let r: Result<(), &str> = wait_until::<1, _, _>(
            &mut BusySpin,
            || {
                polls += 1;
                Ok(match polls {
                    1 => Polled::Work,
                    2 => Polled::Nothing,
                    _ => Polled::Done,
                })
            },
            || false,
            || "late",
        );
        assert_eq!((r, polls), (Ok(()), 3));
        // The clock is asked on every fourth idle poll only.
        let (mut polls, mut asked) = (0, 0);
        let r = wait_until::<4, _, _>(
            &mut BusySpin,
            || {
                polls += 1;
                Ok::<_, &str>(Polled::Nothing)
            },
            || {
                asked += 1;
                true
            },
            || "late",
        );
        assert_eq!((r, polls, asked), (Err("late"), 4, 1));
        let r: Result<(), &str> =
            wait_until::<1, _, _>(&mut BusySpin, || Err("poll"), || true, || "late");
        assert_eq!(r, Err("poll"));
    }

    #[test]
    fn work_forgets_the_back_off_and_the_deadline_is_asked_before_idling() {
        #[derive(Default)]
        struct Log(Vec<&'static str>);
        impl IdleStrategy for Log {
            fn idle(&mut self, _: usize) {
                self.0.push("idle");
            }
            fn reset(&mut self) {
                self.0.push("reset");
            }
        }
        let mut log = Log::default();
        let polls = std::cell::Cell::new(0);
        let r = wait_until::<1, _, _>(
            &mut log,
            || {
                polls.set(polls.get() + 1);
                Ok::<_, ()>(if polls.get() == 1 {
                    Polled::Work
                } else {
                    Polled::Nothing
                })
            },
            || polls.get() == 3,
            || (),
        );
        assert_eq!(r, Err(()));
        // reset (start), reset (work), idle (2nd poll), late at the 3rd: no idle.
        assert_eq!(log.0, ["reset", "reset", "idle"]);
    }
}

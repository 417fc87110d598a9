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
    use std::cell::Cell;

    /// An idle strategy that only notes what it was asked to do.
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

    /// `poll` answering `script` in turn (then `Done`), counting its calls in `polls`.
    fn scripted<'a>(
        script: &'a [Polled],
        polls: &'a Cell<usize>,
    ) -> impl FnMut() -> Result<Polled, &'static str> + 'a {
        move || {
            let n = polls.get();
            polls.set(n + 1);
            Ok(script.get(n).copied().unwrap_or(Polled::Done))
        }
    }

    #[test]
    fn work_forgets_the_back_off_and_nothing_idles_until_done() {
        let (mut log, polls) = (Log::default(), Cell::new(0));
        let poll = scripted(&[Polled::Work, Polled::Nothing], &polls);
        let r = wait_until::<1, _, _>(&mut log, poll, || false, || "late");
        assert_eq!((r, polls.get()), (Ok(()), 3));
        // reset (the start), reset (the work), idle (the nothing).
        assert_eq!(log.0, ["reset", "reset", "idle"]);
    }

    #[test]
    fn the_deadline_is_asked_every_check_every_idle_polls_before_idling() {
        let (mut log, polls, asked) = (Log::default(), Cell::new(0), Cell::new(0));
        let poll = scripted(&[Polled::Nothing; 8], &polls);
        let expired = || {
            asked.set(asked.get() + 1);
            true
        };
        let r = wait_until::<4, _, _>(&mut log, poll, expired, || "late");
        assert_eq!((r, polls.get(), asked.get()), (Err("late"), 4, 1));
        // Late at the fourth poll: no idle after it.
        assert_eq!(log.0, ["reset", "idle", "idle", "idle"]);
        let r = wait_until::<1, _, _>(&mut log, || Err("poll"), || true, || "late");
        assert_eq!(r, Err("poll"));
    }
}

//! [`Idle`]: the run-time choice of an idle strategy, as settings files and
//! command lines name it.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::idle::{Backoff, Block, BusySpin, IdleStrategy, SpinThenYield};

/// The valid `SPINS` of `spin-then-yield:SPINS`.
pub const SPINS_RANGE: (u64, u64) = (1, 1_000_000_000);
/// The valid `MAX_MICROS` of `backoff:MAX_MICROS` (up to a second).
pub const MAX_PARK_MICROS_RANGE: (u64, u64) = (1, 1_000_000);

/// One of the idle strategies, chosen at run time (`IdleStrategy=` in the
/// settings, `--idle` on command lines). It is a strategy itself, carrying the
/// chosen one's running state; a fresh value compares equal to another fresh
/// value of the same choice.
///
/// | text | strategy |
/// |---|---|
/// | `busy-spin` (or `spin`) | [`BusySpin`] |
/// | `spin-then-yield[:SPINS]` (or `spin-yield`, `yield`) | [`SpinThenYield`], SPINS in [`SPINS_RANGE`], default [`SpinThenYield::DEFAULT_SPINS`] |
/// | `backoff[:MAX_MICROS]` | [`Backoff::with_max_park`], MAX_MICROS in [`MAX_PARK_MICROS_RANGE`], default 1000 |
/// | `block` (or `epoll`) | [`Block`] |
///
/// Case, `-` and `_` do not matter.
///
/// ```
/// use peregrine_agent::{Idle, SpinThenYield};
/// assert_eq!("busy-spin".parse::<Idle>(), Ok(Idle::BusySpin(Default::default())));
/// assert_eq!("Spin_Then_Yield:10".parse::<Idle>(), Ok(Idle::SpinThenYield(SpinThenYield::new(10))));
/// assert_eq!("block".parse::<Idle>().unwrap().to_string(), "block");
/// assert_eq!(
///     "backoff:5000000".parse::<Idle>().unwrap_err().to_string(),
///     "\"backoff:5000000\": 5000000 is out of range (it must be 1 to 1000000)"
/// );
/// assert!("sleepy".parse::<Idle>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Idle {
    /// [`BusySpin`].
    BusySpin(BusySpin),
    /// [`SpinThenYield`].
    SpinThenYield(SpinThenYield),
    /// [`Backoff`].
    Backoff(Backoff),
    /// [`Block`].
    Block(Block),
}

impl Default for Idle {
    /// [`Block`]: a reactor that waits in `epoll` uses no CPU while idle.
    fn default() -> Self {
        Idle::Block(Block)
    }
}

impl Idle {
    /// [`BusySpin`].
    pub const fn busy_spin() -> Idle {
        Idle::BusySpin(BusySpin)
    }

    /// [`SpinThenYield`] after `spins` idle cycles.
    pub const fn spin_then_yield(spins: u32) -> Idle {
        Idle::SpinThenYield(SpinThenYield::new(spins))
    }

    /// [`Backoff`] with Agrona's defaults and the longest park `max_park`.
    pub const fn backoff(max_park: Duration) -> Idle {
        Idle::Backoff(Backoff::with_max_park(max_park))
    }

    /// [`Block`].
    pub const fn block() -> Idle {
        Idle::Block(Block)
    }

    /// A fresh copy of the choice (its running state reset).
    pub fn fresh(&self) -> Idle {
        let mut idle = *self;
        idle.reset();
        idle
    }

    /// Whether it is [`Block`] (which only a loop that can wait in `epoll` honours).
    pub fn is_block(&self) -> bool {
        matches!(self, Idle::Block(_))
    }
}

impl IdleStrategy for Idle {
    #[inline]
    fn idle(&mut self, work_count: usize) {
        match self {
            Idle::BusySpin(s) => s.idle(work_count),
            Idle::SpinThenYield(s) => s.idle(work_count),
            Idle::Backoff(s) => s.idle(work_count),
            Idle::Block(s) => s.idle(work_count),
        }
    }

    #[inline]
    fn reset(&mut self) {
        match self {
            Idle::BusySpin(s) => s.reset(),
            Idle::SpinThenYield(s) => s.reset(),
            Idle::Backoff(s) => s.reset(),
            Idle::Block(s) => s.reset(),
        }
    }

    #[inline]
    fn max_wait(&self) -> Duration {
        match self {
            Idle::Block(s) => s.max_wait(),
            _ => Duration::ZERO,
        }
    }
}

/// Why a text names no idle strategy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseIdleError {
    /// Not one of the names.
    UnknownName {
        /// The text given.
        input: String,
    },
    /// The argument after `:` is not a number.
    NotANumber {
        /// The text given.
        input: String,
        /// The argument.
        argument: String,
    },
    /// The argument is outside its range.
    OutOfRange {
        /// The text given.
        input: String,
        /// The argument.
        value: u64,
        /// The smallest valid value.
        min: u64,
        /// The largest valid value.
        max: u64,
    },
}

impl fmt::Display for ParseIdleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseIdleError::UnknownName { input } => write!(
                f,
                "{input:?} is not an idle strategy (busy-spin, spin-then-yield[:SPINS], \
                 backoff[:MAX_MICROS], block)"
            ),
            ParseIdleError::NotANumber { input, argument } => {
                write!(f, "{input:?}: {argument:?} is not a number")
            }
            ParseIdleError::OutOfRange {
                input,
                value,
                min,
                max,
            } => write!(
                f,
                "{input:?}: {value} is out of range (it must be {min} to {max})"
            ),
        }
    }
}

impl std::error::Error for ParseIdleError {}

impl FromStr for Idle {
    type Err = ParseIdleError;

    fn from_str(input: &str) -> Result<Self, ParseIdleError> {
        let normal: String = input
            .chars()
            .filter(|c| *c != '-' && *c != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        let (name, argument) = match normal.split_once(':') {
            Some((name, argument)) => (name, Some(argument)),
            None => (normal.as_str(), None),
        };
        let number = |default: u64, (min, max): (u64, u64)| -> Result<u64, ParseIdleError> {
            let Some(argument) = argument else {
                return Ok(default);
            };
            match argument.parse::<u64>() {
                Ok(value) if (min..=max).contains(&value) => Ok(value),
                Ok(value) => Err(ParseIdleError::OutOfRange {
                    input: input.into(),
                    value,
                    min,
                    max,
                }),
                Err(_) => Err(ParseIdleError::NotANumber {
                    input: input.into(),
                    argument: argument.into(),
                }),
            }
        };
        match name {
            "busyspin" | "spin" if argument.is_none() => Ok(Idle::BusySpin(BusySpin)),
            "spinthenyield" | "spinyield" | "yield" => {
                let spins = number(u64::from(SpinThenYield::DEFAULT_SPINS), SPINS_RANGE)?;
                // SPINS_RANGE's maximum fits in a u32.
                Ok(Idle::SpinThenYield(SpinThenYield::new(spins as u32)))
            }
            "backoff" => {
                let default = Backoff::DEFAULT_MAX_PARK.as_micros() as u64;
                let micros = number(default, MAX_PARK_MICROS_RANGE)?;
                Ok(Idle::Backoff(Backoff::with_max_park(
                    Duration::from_micros(micros),
                )))
            }
            "block" | "epoll" if argument.is_none() => Ok(Idle::Block(Block)),
            _ => Err(ParseIdleError::UnknownName {
                input: input.into(),
            }),
        }
    }
}

impl fmt::Display for Idle {
    /// The text that parses back to the same choice.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Idle::BusySpin(_) => write!(f, "busy-spin"),
            Idle::SpinThenYield(s) => write!(f, "spin-then-yield:{}", s.spins()),
            Idle::Backoff(s) => write!(f, "backoff:{}", s.max_park().as_micros()),
            Idle::Block(_) => write!(f, "block"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_prints_what_parses_back() {
        for text in ["busy-spin", "spin-then-yield:7", "backoff:250", "block"] {
            let idle: Idle = text.parse().unwrap();
            assert_eq!(idle.to_string(), text);
            assert_eq!(idle.to_string().parse::<Idle>(), Ok(idle));
        }
    }

    #[test]
    fn defaults_and_aliases() {
        assert_eq!("spin-yield".parse::<Idle>(), "spin-then-yield:100".parse());
        assert_eq!("yield".parse::<Idle>(), "spin-then-yield:100".parse());
        assert_eq!("backoff".parse::<Idle>(), "backoff:1000".parse());
        assert_eq!("epoll".parse::<Idle>(), Ok(Idle::default()));
        assert_eq!("SPIN".parse::<Idle>(), Ok(Idle::BusySpin(BusySpin)));
    }

    #[test]
    fn bad_text_is_named_in_the_error() {
        assert!(matches!(
            "spin-then-yield:x".parse::<Idle>(),
            Err(ParseIdleError::NotANumber { argument, .. }) if argument == "x"
        ));
        assert!(matches!(
            "spin-then-yield:0".parse::<Idle>(),
            Err(ParseIdleError::OutOfRange {
                value: 0,
                min: 1,
                ..
            })
        ));
        assert!(matches!(
            "block:5".parse::<Idle>(),
            Err(ParseIdleError::UnknownName { .. })
        ));
    }

    #[test]
    fn fresh_forgets_running_state() {
        let mut idle: Idle = "spin-then-yield:3".parse().unwrap();
        let new = idle;
        idle.idle(0);
        assert_ne!(idle, new);
        assert_eq!(idle.fresh(), new);
    }
}

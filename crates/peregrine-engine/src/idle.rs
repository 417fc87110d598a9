//! Idle strategies: what the reactor thread does when a loop iteration found
//! no work (the knobs Aeron and Agrona give).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The valid `SPINS` of `spin-then-yield:SPINS`.
pub const SPINS_RANGE: (u64, u64) = (1, 1_000_000_000);
/// The valid `MAX_MICROS` of `backoff:MAX_MICROS` (up to a second).
pub const MAX_PARK_MICROS_RANGE: (u64, u64) = (1, 1_000_000);

/// How the reactor waits for work (`IdleStrategy` in the settings).
///
/// ```
/// use peregrine_engine::IdleStrategy;
/// assert_eq!("busy-spin".parse::<IdleStrategy>(), Ok(IdleStrategy::BusySpin));
/// assert_eq!("block".parse::<IdleStrategy>(), Ok(IdleStrategy::Block));
/// assert_eq!("spin-then-yield:100".parse::<IdleStrategy>(), Ok(IdleStrategy::SpinThenYield { spins: 100 }));
/// assert!("sleepy".parse::<IdleStrategy>().is_err());
/// assert!("spin-then-yield:0".parse::<IdleStrategy>().is_err());
/// assert!("backoff:5000000".parse::<IdleStrategy>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IdleStrategy {
    /// Poll without waiting, forever: lowest latency, one core at 100 %.
    BusySpin,
    /// Poll without waiting `spins` times, then yield the CPU between polls.
    SpinThenYield {
        /// Idle iterations before yielding.
        spins: u32,
    },
    /// Spin, then yield, then sleep with exponentially growing pauses up to
    /// `max_park`.
    Backoff {
        /// The longest pause.
        max_park: Duration,
    },
    /// Block in epoll (via `mio`) until a socket is ready or a timer is due.
    #[default]
    Block,
}

impl FromStr for IdleStrategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let norm: String = s
            .chars()
            .filter(|c| *c != '-' && *c != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        let (name, arg) = match norm.split_once(':') {
            Some((n, a)) => (n.to_string(), Some(a.to_string())),
            None => (norm.clone(), None),
        };
        let num = |default: u64, (min, max): (u64, u64)| -> Result<u64, String> {
            let Some(a) = &arg else {
                return Ok(default);
            };
            match a.parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n),
                Ok(_) => Err(format!(
                    "{s:?}: {a} is out of range (it must be {min} to {max})"
                )),
                Err(_) => Err(format!("{s:?}: {a:?} is not a number")),
            }
        };
        match name.as_str() {
            "busyspin" | "spin" if arg.is_none() => Ok(IdleStrategy::BusySpin),
            "spinthenyield" | "yield" => Ok(IdleStrategy::SpinThenYield {
                spins: num(1000, SPINS_RANGE)? as u32,
            }),
            "backoff" => Ok(IdleStrategy::Backoff {
                max_park: Duration::from_micros(num(1000, MAX_PARK_MICROS_RANGE)?),
            }),
            "block" | "epoll" if arg.is_none() => Ok(IdleStrategy::Block),
            _ => Err(format!(
                "{s:?} is not an idle strategy (busy-spin, spin-then-yield[:SPINS], backoff[:MAX_MICROS], block)"
            )),
        }
    }
}

impl fmt::Display for IdleStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdleStrategy::BusySpin => write!(f, "busy-spin"),
            IdleStrategy::SpinThenYield { spins } => write!(f, "spin-then-yield:{spins}"),
            IdleStrategy::Backoff { max_park } => write!(f, "backoff:{}", max_park.as_micros()),
            IdleStrategy::Block => write!(f, "block"),
        }
    }
}

/// The running state of an idle strategy: counts idle iterations and says how
/// long the next poll may wait.
#[derive(Debug, Clone)]
pub struct Idler {
    strategy: IdleStrategy,
    idle_count: u32,
    park: Duration,
}

impl Idler {
    /// A fresh idler.
    pub fn new(strategy: IdleStrategy) -> Self {
        Idler {
            strategy,
            idle_count: 0,
            park: Duration::from_micros(1),
        }
    }

    /// The loop did some work: start counting again.
    pub fn reset(&mut self) {
        self.idle_count = 0;
        self.park = Duration::from_micros(1);
    }

    /// How long the next poll may block, given the time to the next timer
    /// (`None`: no timer). Non-blocking strategies return zero and do their own
    /// yielding or sleeping in [`after_idle_poll`](Self::after_idle_poll).
    pub fn poll_timeout(&self, until_timer: Option<Duration>) -> Duration {
        const CAP: Duration = Duration::from_millis(100);
        match self.strategy {
            IdleStrategy::Block => until_timer.unwrap_or(CAP).min(CAP),
            _ => Duration::ZERO,
        }
    }

    /// Called after a poll that produced no work.
    pub fn after_idle_poll(&mut self) {
        self.idle_count = self.idle_count.saturating_add(1);
        match self.strategy {
            IdleStrategy::BusySpin | IdleStrategy::Block => std::hint::spin_loop(),
            IdleStrategy::SpinThenYield { spins } => {
                if self.idle_count > spins {
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
            }
            IdleStrategy::Backoff { max_park } => {
                if self.idle_count <= 100 {
                    std::hint::spin_loop();
                } else if self.idle_count <= 200 {
                    std::thread::yield_now();
                } else {
                    std::thread::sleep(self.park);
                    self.park = (self.park * 2).min(max_park.max(Duration::from_micros(1)));
                }
            }
        }
    }
}

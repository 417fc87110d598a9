//! One routing run: the actions drawn from a seed through a
//! [`RouteWorld`], the settle once faults stop, a panic caught; and what the
//! run did ([`RouteStats`]).

use std::fmt;
use std::time::{Duration, Instant};

use crate::invariants::{Invariant, Violation};

use super::{actions, RouteWorld};

/// What a routing run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RouteStats {
    /// Orders the client sent.
    pub orders: u64,
    /// Orders that reached a venue (once per venue).
    pub routed: u64,
    /// Deliveries that were resends (PossDupFlag=Y).
    pub poss_dups: u64,
    /// Router crashes, by [`CrashPoint`](actions::CrashPoint) (in its order).
    pub crashes: [u64; 5],
    /// Crashes during a turn's write whose turn survived whole.
    pub turns_kept: u64,
    /// Crashes during a turn's write whose turn was lost (torn).
    pub turns_torn: u64,
    /// Logons completed (all four sessions).
    pub logons: u64,
    /// Routed-iff-committed checks passed.
    pub routed_checks: u64,
}

impl RouteStats {
    /// Adds another run's.
    pub fn merge(&mut self, o: &RouteStats) {
        self.orders += o.orders;
        self.routed += o.routed;
        self.poss_dups += o.poss_dups;
        for (a, b) in self.crashes.iter_mut().zip(o.crashes) {
            *a += b;
        }
        self.turns_kept += o.turns_kept;
        self.turns_torn += o.turns_torn;
        self.logons += o.logons;
        self.routed_checks += o.routed_checks;
    }
}

impl fmt::Display for RouteStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [idle, input, staged, write, written] = self.crashes;
        write!(
            f,
            "orders {}, routed {}, resent deliveries {}, logons {}, router crashes {} (idle {idle}, after input {input}, staged {staged}, in the write {write}: {} turns kept whole, {} torn; written {written}), routed-iff-committed checks {}",
            self.orders,
            self.routed,
            self.poss_dups,
            self.logons,
            self.crashes.iter().sum::<u64>(),
            self.turns_kept,
            self.turns_torn,
            self.routed_checks
        )
    }
}

/// What one routing run did.
#[derive(Clone, Debug)]
pub struct RouteOutcome {
    /// Actions applied.
    pub steps: usize,
    /// What happened.
    pub stats: RouteStats,
    /// The first invariant broken.
    pub violation: Option<Violation>,
    /// Wall time.
    pub elapsed: Duration,
}

/// How many venues the routing world of `seed` has: one for odd seeds, two
/// for even ones.
pub fn venues_of(seed: u64) -> usize {
    1 + usize::from(seed % 2 == 0)
}

/// Runs `steps` actions drawn from `seed` through a routing world
/// ([`venues_of`]), then settles (faults stop) and checks that everything
/// was routed once.
pub fn run_route(seed: u64, steps: usize) -> RouteOutcome {
    let start = Instant::now();
    let actions = actions::generate(seed, steps);
    let mut stats = RouteStats::default();
    let mut done = 0;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut w = match RouteWorld::new(venues_of(seed)) {
            Ok(w) => w,
            Err(e) => {
                return Some(Violation {
                    invariant: Invariant::AckedLost,
                    step: 0,
                    detail: format!("the world could not be built: {e}"),
                })
            }
        };
        let mut found = None;
        for (k, a) in actions.iter().enumerate() {
            done = k + 1;
            if let Some((invariant, detail)) = w.step(*a) {
                found = Some(Violation {
                    invariant,
                    step: k,
                    detail: format!("{detail} (action: {a})"),
                });
                break;
            }
        }
        if found.is_none() {
            found = w
                .settle(crate::runner::SETTLE_SECS)
                .map(|(invariant, detail)| Violation {
                    invariant,
                    step: actions.len(),
                    detail,
                });
        }
        stats = w.stats.clone();
        found
    }));
    let violation = result.unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        Some(Violation {
            invariant: Invariant::NoPanic,
            step: done.saturating_sub(1),
            detail: msg,
        })
    });
    RouteOutcome {
        steps: done,
        stats,
        violation,
        elapsed: start.elapsed(),
    }
}

//! Running a simulation: a list of actions through a [`World`], the
//! invariants after each, the final checks once faults stop; a panic anywhere
//! is caught and reported as a violation.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use crate::config::SimConfig;
use crate::faults::{generate, Action, Census, Weights};
use crate::invariants::{Invariant, Violation};
use crate::world::World;

/// Simulated seconds the sessions get to converge once faults stop.
pub const SETTLE_SECS: u32 = 2 * 3600;

/// What one run did.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Actions applied (all of them, unless a violation stopped the run).
    pub steps: usize,
    /// What happened.
    pub census: Census,
    /// The first invariant broken, if any.
    pub violation: Option<Violation>,
    /// Wall time.
    pub elapsed: Duration,
    /// The recorded log (when asked for).
    pub log: Vec<String>,
}

/// Runs `actions` in a world configured by `cfg`, then lets it settle and
/// checks convergence and delivery; `record` keeps a log of every action,
/// message and event.
pub fn run_actions(cfg: &SimConfig, actions: &[Action], record: bool) -> Outcome {
    let start = Instant::now();
    let mut census = Census::default();
    let mut log = Vec::new();
    let mut steps = 0;
    let result = catch_unwind(AssertUnwindSafe(|| -> Option<Violation> {
        let mut w = match World::new(cfg) {
            Ok(w) => w,
            Err(e) => {
                return Some(Violation {
                    invariant: Invariant::AckedLost,
                    step: 0,
                    detail: format!("the world could not be built: {e}"),
                })
            }
        };
        if record {
            w.record = Some(Vec::new());
        }
        let mut found = None;
        for (k, a) in actions.iter().enumerate() {
            steps = k + 1;
            if let Some((invariant, detail)) = w.step(*a) {
                found = Some(Violation {
                    invariant,
                    step: k,
                    detail,
                });
                break;
            }
        }
        if found.is_none() {
            if let Some(r) = &mut w.record {
                r.push("== faults stop: settle".into());
            }
            found = w.settle(SETTLE_SECS).map(|(invariant, detail)| Violation {
                invariant,
                step: actions.len(),
                detail,
            });
        }
        census = w.census.clone();
        log = w.record.take().unwrap_or_default();
        found
    }));
    let violation = match result {
        Ok(v) => v,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Some(Violation {
                invariant: Invariant::NoPanic,
                step: steps.saturating_sub(1),
                detail: msg,
            })
        }
    };
    Outcome {
        steps,
        census,
        violation,
        elapsed: start.elapsed(),
        log,
    }
}

/// The run of `seed`: its configuration and `steps` actions drawn from it.
pub fn run_seed(seed: u64, steps: usize) -> Outcome {
    let cfg = SimConfig::from_seed(seed);
    let actions = generate(seed, steps, &Weights::default());
    run_actions(&cfg, &actions, false)
}

//! Shrinking a failing run: delta debugging over its list of actions. The
//! run is cut after the violation, then chunks of actions (halves, quarters,
//! … single actions) are removed while the same invariant still breaks.
//! Actions do not depend on the world's state, so any subset is a valid run.

use std::time::{Duration, Instant};

use super::Trace;
use crate::config::SimConfig;
use crate::faults::Action;
use crate::invariants::Violation;
use crate::runner::run_actions;

/// Limits of a shrink.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Runs at most.
    pub runs: usize,
    /// Wall time at most.
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            runs: 2_000,
            time: Duration::from_secs(120),
        }
    }
}

/// Shrinks the failing `actions` of `seed` (whose run broke `violation`).
pub fn shrink(
    seed: u64,
    cfg: &SimConfig,
    actions: &[Action],
    violation: &Violation,
    budget: Budget,
) -> Trace {
    let start = Instant::now();
    let keep = (violation.step + 1).min(actions.len());
    let mut cur: Vec<(usize, Action)> = actions[..keep].iter().copied().enumerate().collect();
    let mut runs = 0;
    let mut last = violation.clone();
    let fails = |cand: &[(usize, Action)], runs: &mut usize| -> Option<Violation> {
        *runs += 1;
        let acts: Vec<Action> = cand.iter().map(|(_, a)| *a).collect();
        run_actions(cfg, &acts, false)
            .violation
            .filter(|v| v.invariant == violation.invariant)
    };
    let mut chunk = cur.len().div_ceil(2).max(1);
    'outer: loop {
        let mut i = 0;
        while i < cur.len() {
            if runs >= budget.runs || start.elapsed() > budget.time {
                break 'outer;
            }
            let end = (i + chunk).min(cur.len());
            let cand: Vec<(usize, Action)> = cur[..i].iter().chain(&cur[end..]).copied().collect();
            match fails(&cand, &mut runs) {
                Some(v) => {
                    // Keep the cut, and everything up to the new violation.
                    let upto = (v.step + 1).min(cand.len());
                    cur = cand[..upto].to_vec();
                    last = v;
                }
                None => i += chunk,
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    let acts: Vec<Action> = cur.iter().map(|(_, a)| *a).collect();
    let replay = run_actions(cfg, &acts, true);
    Trace {
        seed,
        original: violation.clone(),
        actions: cur,
        violation: replay.violation.unwrap_or(last),
        log: replay.log,
        runs,
    }
}

//! A failing run as people read it: the actions that lead to the violation
//! (after [`shrink`]ing), and what the replay of them put on the wire.

pub mod shrink;

use std::fmt;

use crate::faults::Action;
use crate::invariants::Violation;

/// A minimal failing trace.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The seed it came from.
    pub seed: u64,
    /// The violation of the original run.
    pub original: Violation,
    /// The actions left after shrinking, each with its index in the original run.
    pub actions: Vec<(usize, Action)>,
    /// The violation the shrunk actions produce.
    pub violation: Violation,
    /// The replay's log: actions, messages, events.
    pub log: Vec<String>,
    /// Runs the shrinker made.
    pub runs: usize,
}

/// Lines of the replay's log printed (the last ones).
const LOG_LINES: usize = 400;

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "seed {}: {}", self.seed, self.original)?;
        writeln!(
            f,
            "shrunk to {} action(s) in {} run(s): {}",
            self.actions.len(),
            self.runs,
            self.violation
        )?;
        for (i, a) in &self.actions {
            writeln!(f, "  [{i:>7}] {a}")?;
        }
        writeln!(f, "replay of the shrunk trace:")?;
        let skip = self.log.len().saturating_sub(LOG_LINES);
        if skip > 0 {
            writeln!(f, "  … {skip} line(s) before")?;
        }
        for line in &self.log[skip..] {
            writeln!(f, "  {line}")?;
        }
        writeln!(
            f,
            "replay: cargo run --release -p peregrine-sim -- --seed {} --steps {}",
            self.seed,
            self.original.step + 1
        )
    }
}

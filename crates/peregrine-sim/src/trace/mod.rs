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

/// Lines of the replay's log printed: the first and the last this many
/// (the start shows how the trouble began, the end what broke).
const LOG_LINES: usize = 300;

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
        let n = self.log.len();
        let (head, tail) = if n > 2 * LOG_LINES {
            (LOG_LINES, n - LOG_LINES)
        } else {
            (n, n)
        };
        for line in &self.log[..head] {
            writeln!(f, "  {line}")?;
        }
        if tail > head {
            writeln!(f, "  … {} line(s) left out", tail - head)?;
        }
        for line in &self.log[tail..] {
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

//! [`TermSource`]: where the active learns the term it replicates under.

use std::time::Instant;

use peregrine_ha::{LeaderGate, Term};

/// The active's term, asked before every poll: `None` when this node does not
/// lead, and then nothing is sent (a deposed active replicates nothing).
pub trait TermSource {
    /// The term this node leads now, if it does.
    fn term(&self) -> Option<Term>;
}

/// A fixed term (tests, or a node told its term by other means).
impl TermSource for Term {
    fn term(&self) -> Option<Term> {
        Some(*self)
    }
}

/// The leadership's gate: the term while the lease's local deadline holds.
impl TermSource for LeaderGate {
    fn term(&self) -> Option<Term> {
        self.term_at(Instant::now())
    }
}

//! [`LeaderGate`]: whether this node may write, asked on the writer's own thread
//! with one clock read and two atomic loads — never waiting for etcd.
//!
//! The campaign (on its own thread) stores the term it won and the local deadline
//! of its lease; a writer compares the monotonic clock with that deadline. When
//! keep-alives stop succeeding (etcd unreachable, this process paused), nothing
//! moves the deadline, so the gate closes by itself at the deadline even if the
//! campaign's thread never runs again.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::term::Term;

/// The state the campaign publishes and writers read.
#[derive(Debug)]
pub(crate) struct Shared {
    /// The origin of `until`'s nanoseconds.
    base: Instant,
    /// The term won, or 0 when not leader.
    term: AtomicU64,
    /// The local deadline, in nanoseconds after `base` (0: none).
    until: AtomicU64,
    /// The leader etcd showed last (another node's name and term), for standbys.
    seen: Mutex<Option<(String, Term)>>,
    /// Resigned for good: no win counts any more.
    closed: AtomicBool,
}

impl Shared {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Shared {
            base: Instant::now(),
            term: AtomicU64::new(0),
            until: AtomicU64::new(0),
            seen: Mutex::new(None),
            closed: AtomicBool::new(false),
        })
    }

    fn nanos(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.base).as_nanos() as u64
    }

    /// Leads `term` until `until` (unless extended).
    pub(crate) fn win(&self, term: Term, until: Instant) {
        self.until.store(self.nanos(until), Ordering::SeqCst);
        self.term.store(term.get(), Ordering::SeqCst);
        // A win that races with `close` does not count.
        if self.closed.load(Ordering::SeqCst) {
            self.step_down();
        }
    }

    /// Resigned: not leader from now on, whatever the campaign is doing.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.step_down();
    }

    /// Moves the deadline of `term` later (a keep-alive succeeded); never earlier.
    pub(crate) fn extend(&self, term: Term, until: Instant) {
        if self.term.load(Ordering::Acquire) == term.get() {
            self.until.fetch_max(self.nanos(until), Ordering::AcqRel);
        }
    }

    /// Not leader any more (first the term, so that no reader pairs it with a
    /// later deadline).
    pub(crate) fn step_down(&self) {
        self.term.store(0, Ordering::SeqCst);
        self.until.store(0, Ordering::SeqCst);
    }

    pub(crate) fn set_seen(&self, seen: Option<(String, Term)>) -> bool {
        let mut s = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let changed = *s != seen;
        *s = seen;
        changed
    }

    pub(crate) fn seen(&self) -> Option<(String, Term)> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The term led at `now` and its deadline, if `now` is before the deadline.
    pub(crate) fn lease_at(&self, now: Instant) -> Option<(Term, Instant)> {
        let term = self.term.load(Ordering::Acquire);
        if term == 0 {
            return None;
        }
        let until = self.until.load(Ordering::Acquire);
        // The term again: a step-down and a new win between the two loads would pair
        // the old term with the new deadline (terms only grow, so no ABA).
        if self.term.load(Ordering::Acquire) != term || self.nanos(now) >= until {
            return None;
        }
        Some((Term::new(term)?, self.base + Duration::from_nanos(until)))
    }
}

/// A cheap, cloneable view of one group's leadership for the threads that write:
/// ask [`LeaderGate::term_at`] right before each write.
///
/// ```no_run
/// # fn write_to_sockets(_: peregrine_ha::Term) {}
/// use peregrine_ha::{HaConfig, Leadership};
/// use std::time::Instant;
/// let leadership = Leadership::start(HaConfig::new("a", "orders", ["127.0.0.1:2379"]))?;
/// let gate = leadership.gate();
/// if let Some(term) = gate.term_at(Instant::now()) {
///     write_to_sockets(term); // and carry `term` in what is replicated
/// }
/// # Ok::<(), peregrine_ha::HaError>(())
/// ```
#[derive(Debug, Clone)]
pub struct LeaderGate {
    pub(crate) shared: Arc<Shared>,
}

impl LeaderGate {
    /// The term this node leads at `now`, or `None`: not leader, or the lease's
    /// local deadline has passed without a successful keep-alive.
    #[inline]
    pub fn term_at(&self, now: Instant) -> Option<Term> {
        self.shared.lease_at(now).map(|(t, _)| t)
    }

    /// [`term_at`](Self::term_at) now.
    #[inline]
    pub fn is_leader(&self) -> bool {
        self.term_at(Instant::now()).is_some()
    }

    /// The term led at `now` and the instant it ends unless a keep-alive succeeds.
    pub fn lease_at(&self, now: Instant) -> Option<(Term, Instant)> {
        self.shared.lease_at(now)
    }

    /// The leader etcd last showed this node while it does not lead: its name and
    /// term (`None`: no leader, or not known yet).
    pub fn leader_seen(&self) -> Option<(String, Term)> {
        self.shared.seen()
    }
}

/// The engine's [`WriteGate`](peregrine_engine::WriteGate): with
/// `EngineOptions { write_gate: Some(Arc::new(leadership.gate())), .. }` the engine holds
/// its sessions until this node leads, and closes their connections (no Logout) the
/// moment it stops — at the lease's local deadline at the latest.
impl peregrine_engine::WriteGate for LeaderGate {
    #[inline]
    fn term(&self) -> Option<u64> {
        self.term_at(Instant::now()).map(Term::get)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_closes_at_the_deadline_by_itself_and_on_step_down() {
        let shared = Shared::new();
        let gate = LeaderGate {
            shared: shared.clone(),
        };
        let now = Instant::now();
        let t = Term::new(42).unwrap();
        assert_eq!(gate.term_at(now), None);
        shared.win(t, now + Duration::from_millis(500));
        assert_eq!(gate.term_at(now), Some(t));
        assert_eq!(gate.term_at(now + Duration::from_millis(499)), Some(t));
        assert_eq!(gate.term_at(now + Duration::from_millis(500)), None);
        // A keep-alive moves it later, never earlier, and only for the same term.
        shared.extend(t, now + Duration::from_millis(900));
        shared.extend(t, now + Duration::from_millis(600));
        shared.extend(Term::new(41).unwrap(), now + Duration::from_secs(9));
        assert_eq!(gate.term_at(now + Duration::from_millis(899)), Some(t));
        assert_eq!(gate.term_at(now + Duration::from_millis(900)), None);
        shared.step_down();
        assert_eq!(gate.term_at(now), None);
        shared.extend(t, now + Duration::from_secs(9));
        assert_eq!(gate.term_at(now), None);
    }
}

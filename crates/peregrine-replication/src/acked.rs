//! [`AckedPosition`]: what the standby last said it holds, readable (and
//! awaitable) from any thread of the active.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use peregrine_ha::Term;
use peregrine_store::JournalPosition;

#[derive(Debug, Default)]
struct Acked {
    position: Option<JournalPosition>,
    standby_term: Option<Term>,
    at: Option<Instant>,
}

/// The standby's acknowledged position: the leader position its replica
/// journal holds, as its newest status frame said. A standby writes a
/// transaction to its journal (fsynced under `FsyncPolicy::EveryCommit`)
/// before it acknowledges it.
///
/// It is the *latest* report, not the greatest: a standby whose replica was
/// wiped reports less, and that is what it holds. Clones share one value.
#[derive(Clone, Debug, Default)]
pub struct AckedPosition {
    inner: Arc<(Mutex<Acked>, Condvar)>,
}

impl AckedPosition {
    fn lock(&self) -> std::sync::MutexGuard<'_, Acked> {
        self.inner.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The position last acknowledged (`None`: no standby has said it holds
    /// anything).
    pub fn get(&self) -> Option<JournalPosition> {
        self.lock().position
    }

    /// The standby's fence as it last said: a term newer than the active's
    /// means another node has led since (this one is deposed).
    pub fn standby_term(&self) -> Option<Term> {
        self.lock().standby_term
    }

    /// When the standby was last heard.
    pub fn heard_at(&self) -> Option<Instant> {
        self.lock().at
    }

    /// Waits at most `timeout` until the standby holds `position` (or
    /// more); whether it does.
    pub fn wait_for(&self, position: JournalPosition, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        let mut acked = self.lock();
        loop {
            if acked.position >= Some(position) {
                return true;
            }
            let Some(left) = end.checked_duration_since(Instant::now()) else {
                return false;
            };
            acked = self
                .inner
                .1
                .wait_timeout(acked, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    pub(crate) fn set(&self, position: Option<JournalPosition>, term: Option<Term>) {
        let mut acked = self.lock();
        acked.position = position;
        acked.standby_term = term;
        acked.at = Some(Instant::now());
        drop(acked);
        self.inner.1.notify_all();
    }
}

//! The engine journal's turn: what the sessions committed in a turn is
//! written once, before any byte of it reaches a socket.
//!
//! With an [`EngineJournal`] the sessions' commits only stage their records
//! (the journal is deferred). A turn reads every ready connection and hands
//! the bytes to their sessions first; then every session touched commits;
//! then the journal is written (one write, one fsync by policy); only then are
//! the sessions' outputs written to their sockets. [`Engine::flush`] writes
//! the journal first whenever records wait, having committed every session
//! touched so far: no byte leaves before the transaction that holds it is in
//! the journal, and no transaction holds a session's replies without that
//! session's incoming sequence number.

use peregrine_store::EngineJournal;

use crate::driver::{Nanos, SessionDriver};

use super::ids::SessionKey;
use super::Engine;

impl<D: SessionDriver> Engine<D> {
    /// The engine writes `journal` once per turn, before its sockets: the
    /// sessions whose stores are views of it then commit together
    /// (`peregrine_store::EngineJournal`; the builder adds the journals of
    /// `EngineJournal=Y` sessions). Switches the journal to deferred commits.
    ///
    /// ```
    /// use peregrine_engine::{Engine, EngineOptions};
    /// use peregrine_engine::store::{EngineJournal, JournalConfig};
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = tempfile::tempdir()?;
    /// let journal = EngineJournal::open(dir.path(), JournalConfig::default(), 0)?;
    /// let mut engine: Engine<Box<dyn peregrine_engine::SessionDriver>> = Engine::new(EngineOptions::default())?;
    /// engine.add_journal(journal.clone());
    /// assert!(journal.is_deferred());
    /// # Ok(()) }
    /// ```
    pub fn add_journal(&mut self, journal: EngineJournal) {
        journal.set_deferred(true);
        self.journals.push(journal);
    }

    /// The engine journals it writes (their positions and stats, for an
    /// operator or a test).
    pub fn journals(&self) -> &[EngineJournal] {
        &self.journals
    }

    /// Whether the engine batches its turns' commits (it has a journal).
    pub(super) fn batches(&self) -> bool {
        !self.journals.is_empty()
    }

    /// A session had input this turn; it commits with the turn's others.
    pub(super) fn touch(&mut self, id: SessionKey) {
        if !self.touched.contains(&id) {
            self.touched.push(id);
        }
    }

    /// The end of a turn's reads: every session touched commits, the journal
    /// is written once, then each writes its output.
    pub(super) fn service_touched(&mut self, now: Nanos) {
        if self.touched.is_empty() {
            return;
        }
        self.write_journals();
        let touched = std::mem::take(&mut self.touched);
        for &id in &touched {
            if self.sessions.contains(id) {
                self.service(id, now);
            }
        }
        let mut touched = touched;
        touched.clear();
        if self.touched.is_empty() {
            self.touched = touched;
        }
        // What the turn staged without output to carry it is written too.
        self.write_journals();
    }

    /// Commits every session touched this turn and writes what the journals
    /// hold staged. Returns whether output may be written: false once a
    /// journal failed (its sessions' output is not durable, and must not
    /// leave).
    pub(super) fn write_journals(&mut self) -> bool {
        if self.journal_failed {
            return false;
        }
        if !self.journals.iter().any(EngineJournal::has_staged) {
            return true;
        }
        for i in 0..self.touched.len() {
            let id = self.touched[i];
            if self.sessions.contains(id) {
                self.sessions[id].driver.commit();
            }
        }
        for i in 0..self.journals.len() {
            if let Err(e) = self.journals[i].write_turn() {
                self.journal_failure(i, &e);
                return false;
            }
        }
        true
    }

    /// Under a time-based fsync policy, fsyncs each journal when due; and
    /// writes what waits staged with no output to carry it (an operator's
    /// command, a session made from a template). A failure is the journal's.
    pub(super) fn sync_journals_if_due(&mut self) {
        self.write_journals();
        for i in 0..self.journals.len() {
            if let Err(e) = self.journals[i].sync_if_due() {
                self.journal_failure(i, &e);
            }
        }
    }

    /// A journal failed: nothing more leaves, every connection is closed.
    fn journal_failure(&mut self, i: usize, e: &peregrine_store::StoreError) {
        if self.journal_failed {
            return;
        }
        self.journal_failed = true;
        let why = format!(
            "engine journal {} failed: {e}; nothing more is sent until the engine is restarted",
            self.journals[i].path().display()
        );
        tracing::error!("{why}");
        let keys: Vec<_> = self.connections.iter().map(|(k, _)| k).collect();
        let now = crate::driver::now_nanos();
        for key in keys {
            self.close_connection(key, &why, now);
        }
    }
}

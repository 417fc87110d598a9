//! [`JournalStore`]: one session's [`MessageStore`], a view of the engine
//! journal.

use std::fmt;
use std::sync::{Arc, Mutex};

use crate::index::Location;
use crate::{check_len, check_seq, MessageStore, Recovery, StoreError, StoreObserver};

use super::format::{self, Kind};
use super::scan::SessionState;
use super::{lock, Shared};

/// One session's store inside an [`EngineJournal`](super::EngineJournal):
/// its numbers and the index of its messages in memory, its records in the
/// engine's journal. Made by [`EngineJournal::session`](super::EngineJournal::session);
/// when dropped, what it committed stays with the journal for the next view
/// of the same session.
///
/// `store` stages the message's record at once (it is part of the current
/// transaction of the whole journal); `commit` stages the sequence numbers
/// if they changed and, unless the journal is deferred, writes the
/// transaction. A resend reads exactly the records asked for, written or
/// still staged, each checked against its CRC.
///
/// ```
/// use peregrine_store::{EngineJournal, JournalConfig, MessageStore, SEQ_END};
///
/// let dir = tempfile::tempdir()?;
/// let journal = EngineJournal::open(dir.path(), JournalConfig::default(), 0)?;
/// let mut store = journal.session("FIX.4.4:A->B", 0)?;
/// for body in [&b"one"[..], b"two"] {
///     let seq = store.next_sender_seq();
///     store.store(seq, body)?;
///     store.incr_next_sender_seq()?;
/// }
/// store.commit()?; // immediate mode: written and fsynced
/// let mut seen = Vec::new();
/// store.for_each_in_range(2, SEQ_END, &mut |seq, msg| seen.push((seq, msg.to_vec())))?;
/// assert_eq!(seen, [(2, b"two".to_vec())]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct JournalStore {
    journal: Arc<Mutex<Shared>>,
    no: u32,
    state: SessionState,
    /// The numbers last staged (what recovery would give now).
    staged_numbers: (u64, u64),
    read_buf: Vec<u8>,
    /// The damage the journal found on opening, if any (its losses name no
    /// session, so every view reports them).
    recovery: Option<Recovery>,
}

impl fmt::Debug for JournalStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JournalStore")
            .field("session", &self.state.name)
            .field("number", &self.no)
            .field("next_sender", &self.state.next_sender)
            .field("next_target", &self.state.next_target)
            .field("messages", &self.state.messages.len())
            .finish()
    }
}

impl JournalStore {
    pub(super) fn new(
        journal: Arc<Mutex<Shared>>,
        no: u32,
        state: SessionState,
        recovery: Option<Recovery>,
    ) -> Self {
        JournalStore {
            journal,
            no,
            staged_numbers: (state.next_sender, state.next_target),
            state,
            read_buf: Vec::new(),
            recovery,
        }
    }

    /// The session's name, as the journal knows it.
    pub fn session_name(&self) -> &str {
        &self.state.name
    }

    /// How many messages the session has stored (since its last reset).
    pub fn message_count(&self) -> usize {
        self.state.messages.len()
    }

    /// Stages the numbers if they changed since they were last staged.
    fn stage_numbers(&mut self, sh: &mut Shared) -> Result<(), StoreError> {
        let now = (self.state.next_sender, self.state.next_target);
        if now != self.staged_numbers {
            sh.stage(
                Kind::Numbers,
                self.no,
                &[&now.0.to_le_bytes(), &now.1.to_le_bytes()],
            )?;
            self.staged_numbers = now;
        }
        Ok(())
    }
}

/// The most bytes one read of [`JournalStore::for_each_in_range`] takes.
const READ_SPAN: u64 = 64 * 1024;

/// A message record's length in the journal: header, MsgSeqNum, message.
fn record_len(len: u32) -> u64 {
    (format::HEADER_LEN + 8) as u64 + u64::from(len)
}

impl Drop for JournalStore {
    fn drop(&mut self) {
        let journal = self.journal.clone();
        let mut sh = lock(&journal);
        // Its messages are staged already: its numbers go with them, so the
        // next view of the session (and recovery) has both.
        if self.stage_numbers(&mut sh).is_err() {
            (self.state.next_sender, self.state.next_target) = self.staged_numbers;
        }
        let state = std::mem::replace(&mut self.state, SessionState::new(String::new(), 0));
        sh.give_back(self.no, state);
    }
}

impl MessageStore for JournalStore {
    fn next_sender_seq(&self) -> u64 {
        self.state.next_sender
    }

    fn next_target_seq(&self) -> u64 {
        self.state.next_target
    }

    fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.state.next_sender = check_seq(seq)?;
        Ok(())
    }

    fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.state.next_target = check_seq(seq)?;
        Ok(())
    }

    fn creation_time(&self) -> i64 {
        self.state.creation_time
    }

    fn store(&mut self, seq: u64, msg: &[u8]) -> Result<(), StoreError> {
        check_seq(seq)?;
        let len = check_len(msg.len())?;
        let offset =
            lock(&self.journal).stage(Kind::Message, self.no, &[&seq.to_le_bytes(), msg])?;
        self.state.messages.insert(Location { seq, offset, len });
        Ok(())
    }

    fn for_each_in_range(
        &mut self,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError> {
        // Neighbouring records (a session's messages lie close together, with
        // other sessions' between) are read in one span of up to READ_SPAN
        // bytes, as FileStore merges its reads; the lock is not held while
        // `visitor` runs.
        let locations = self.state.messages.range(begin, end);
        let mut i = 0;
        while i < locations.len() {
            let first = locations[i];
            let (start, mut stop) = (first.offset, first.offset + record_len(first.len));
            let mut j = i + 1;
            while let Some(next) = locations.get(j) {
                let next_stop = next.offset + record_len(next.len);
                if next.offset < stop || next_stop - start > READ_SPAN {
                    break;
                }
                stop = next_stop;
                j += 1;
            }
            if lock(&self.journal).read_span(start, stop, &mut self.read_buf)? {
                for at in &locations[i..j] {
                    let from = (at.offset - start) as usize;
                    let record = &self.read_buf[from..from + record_len(at.len) as usize];
                    if !Shared::is_message(record, at.len, self.no) {
                        return Err(StoreError::corrupt(
                            &lock(&self.journal).path,
                            at.offset,
                            "message record fails its checksum",
                        ));
                    }
                    visitor(at.seq, &record[format::HEADER_LEN + 8..]);
                }
            } else {
                // Some are still staged: one by one.
                for at in &locations[i..j] {
                    let range = lock(&self.journal).read_message(
                        at.offset,
                        at.len,
                        self.no,
                        &mut self.read_buf,
                    )?;
                    visitor(at.seq, &self.read_buf[range]);
                }
            }
            i = j;
        }
        Ok(())
    }

    fn reset(&mut self, creation_time: i64) -> Result<(), StoreError> {
        let journal = self.journal.clone();
        let mut sh = lock(&journal);
        sh.stage(Kind::Reset, self.no, &[&creation_time.to_le_bytes()])?;
        self.state.messages.clear();
        self.state.next_sender = 1;
        self.state.next_target = 1;
        self.state.creation_time = creation_time;
        self.staged_numbers = (1, 1);
        if !sh.deferred {
            sh.write_turn()?;
            sh.fsync()?;
        }
        Ok(())
    }

    fn refresh(&mut self) -> Result<(), StoreError> {
        // The view is the journal's state for its session: nothing to read.
        self.commit()
    }

    fn commit(&mut self) -> Result<(), StoreError> {
        let journal = self.journal.clone();
        let mut sh = lock(&journal);
        self.stage_numbers(&mut sh)?;
        if !sh.deferred {
            sh.write_turn()?;
        }
        Ok(())
    }

    fn settle(&mut self) -> Result<(), StoreError> {
        // After the turn's output has left: room for the next writes, and
        // for the next index entries (past 512, in a mapping: `mapped.rs`).
        lock(&self.journal).reserve_ahead();
        self.state.messages.keep_room_ahead();
        Ok(())
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        let journal = self.journal.clone();
        let mut sh = lock(&journal);
        self.stage_numbers(&mut sh)?;
        sh.write_turn()?;
        sh.fsync()
    }

    fn sync_interval(&self) -> Option<std::time::Duration> {
        lock(&self.journal).sync_interval()
    }

    fn sync_if_due(&mut self) -> Result<bool, StoreError> {
        lock(&self.journal).sync_if_due()
    }

    fn recovery(&self) -> Option<&Recovery> {
        self.recovery.as_ref()
    }

    fn set_observer(&mut self, observer: Option<Arc<dyn StoreObserver>>) {
        lock(&self.journal).set_observer_if_none(observer);
    }
}

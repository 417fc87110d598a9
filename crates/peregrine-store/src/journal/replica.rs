//! [`JournalReplica`]: another engine journal kept equal to a leader's, one
//! leader transaction at a time, from what a [`JournalFollower`] hands over
//! (read from the leader's file, or carried over a network by a standby).
//!
//! Each leader transaction becomes one transaction of the replica's journal,
//! and the leader position it reached is written beside it afterwards
//! (`replica.position`, two checksummed slots written in turn, so a torn write
//! leaves the other). A crash between the two leaves the position one
//! transaction behind: that transaction is handed over again and applied
//! again, which changes nothing (every change sets a value: a message under
//! its number, both numbers, a reset followed by what the transaction stored
//! after it). A slot also holds the replica journal's own turn when it was
//! written: a position whose turn the replica journal did not keep (the
//! journal not fsynced, the machine lost) is not believed, and the replica
//! follows the leader from its start again (applying the whole history in
//! order gives the same state). So the replica's sessions are the leader's as
//! of its position, whatever instant a crash chose.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::{posio, MessageStore, StoreError};

use super::{
    EngineJournal, JournalChange, JournalConfig, JournalPosition, JournalStore, ENGINE_JOURNAL_FILE,
};

#[cfg(doc)]
use super::JournalFollower;

/// The file, beside the replica's journal, holding the leader position it
/// has applied.
pub const REPLICA_POSITION_FILE: &str = "replica.position";

/// One slot of the position file: the leader's turn and offset, the replica
/// journal's turn, CRC-32 of the three, zero.
const SLOT_LEN: usize = 32;

/// An engine journal that applies a leader journal's transactions (see the
/// module documentation for what a crash may and may not do).
///
/// ```
/// use peregrine_store::{
///     EngineJournal, JournalConfig, JournalFollower, JournalReplica, MessageStore,
/// };
///
/// let (leader_dir, standby_dir) = (tempfile::tempdir()?, tempfile::tempdir()?);
/// let leader = EngineJournal::open(leader_dir.path(), JournalConfig::default(), 0)?;
/// let mut venue = leader.session("FIX.4.4:GW->VENUE", 0)?;
/// venue.store(1, b"35=D|11=C-1|")?;
/// venue.incr_next_sender_seq()?;
/// venue.commit()?;
///
/// let mut replica = JournalReplica::open(standby_dir.path(), JournalConfig::default(), 0)?;
/// let mut follower = JournalFollower::open(leader_dir.path(), replica.position())?;
/// let mut failed = None;
/// follower.poll(&mut |change| {
///     if let Err(e) = replica.apply(change) {
///         failed.get_or_insert(e);
///     }
/// })?;
/// assert!(failed.is_none());
/// assert_eq!(replica.position(), Some(leader.position()));
/// let copy = replica.store("FIX.4.4:GW->VENUE").unwrap();
/// assert_eq!(copy.next_sender_seq(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct JournalReplica {
    dir: PathBuf,
    config: JournalConfig,
    journal: EngineJournal,
    /// A view of every session the leader named, by name.
    views: HashMap<String, JournalStore>,
    position_file: File,
    /// The leader position applied; the slot written last.
    position: Option<JournalPosition>,
    slot: usize,
}

impl JournalReplica {
    /// Opens (or makes) the replica in `dir`: its journal, and the leader
    /// position it applied (`None`: nothing yet; follow from the start).
    ///
    /// # Errors
    ///
    /// As [`EngineJournal::open`]; [`StoreError::Io`] for the position file.
    pub fn open(
        dir: impl AsRef<Path>,
        config: JournalConfig,
        now: i64,
    ) -> Result<JournalReplica, StoreError> {
        let dir = dir.as_ref().to_path_buf();
        let journal = EngineJournal::open(&dir, config, now)?;
        journal.set_deferred(true);
        let path = dir.join(REPLICA_POSITION_FILE);
        let position_file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| StoreError::io("open replica position", &path, e))?;
        let mut slots = [0u8; 2 * SLOT_LEN];
        let read = posio::read_exact_at(&position_file, &mut slots, 0).is_ok();
        let kept = journal.position().turn;
        let best = [0, 1]
            .into_iter()
            .filter(|_| read)
            .filter_map(|i| parse_slot(&slots[i * SLOT_LEN..(i + 1) * SLOT_LEN]).map(|p| (p, i)))
            .filter(|((_, own), _)| *own <= kept)
            .map(|((leader, _), i)| (leader, i))
            .max();
        Ok(JournalReplica {
            dir,
            config,
            journal,
            views: HashMap::new(),
            position_file,
            position: best.map(|(p, _)| p),
            slot: best.map_or(1, |(_, i)| i),
        })
    }

    /// The leader position applied (what to follow from), `None` if nothing.
    pub fn position(&self) -> Option<JournalPosition> {
        self.position
    }

    /// The replica's own journal. Its sessions' stores are held by the
    /// replica (read them with [`store`](Self::store)); a standby taking over
    /// drops the replica and opens the journal's sessions.
    pub fn journal(&self) -> &EngineJournal {
        &self.journal
    }

    /// The store of session `name`, as applied so far (`None` if the leader
    /// has not named it since the replica was opened).
    pub fn store(&mut self, name: &str) -> Option<&mut JournalStore> {
        self.views.get_mut(name)
    }

    /// The sessions applied since the replica was opened.
    pub fn session_names(&self) -> impl Iterator<Item = &str> {
        self.views.keys().map(String::as_str)
    }

    /// Applies one change handed over by a [`JournalFollower`]; a
    /// [`JournalChange::Commit`] makes the leader's transaction one of the
    /// replica's, then records the position.
    ///
    /// # Errors
    ///
    /// The replica journal's errors ([`StoreError::Io`] and
    /// [`StoreError::JournalFailed`] after a failed write: open it again,
    /// and follow from its position).
    pub fn apply(&mut self, change: JournalChange<'_>) -> Result<(), StoreError> {
        match change {
            JournalChange::Restart => self.start_over()?,
            JournalChange::Session {
                name,
                creation_time,
            } => {
                if !self.views.contains_key(name) {
                    let view = self.journal.session(name, creation_time)?;
                    self.views.insert(name.to_string(), view);
                }
            }
            JournalChange::Message {
                session,
                seq,
                message,
            } => self.view(session)?.store(seq, message)?,
            JournalChange::Numbers {
                session,
                next_sender,
                next_target,
            } => {
                let view = self.view(session)?;
                view.set_next_sender_seq(next_sender)?;
                view.set_next_target_seq(next_target)?;
            }
            JournalChange::Reset {
                session,
                creation_time,
            } => self.view(session)?.reset(creation_time)?,
            JournalChange::Commit { position } => {
                for view in self.views.values_mut() {
                    view.commit()?;
                }
                self.journal.write_turn()?;
                self.write_position(position)?;
            }
        }
        Ok(())
    }

    /// The view of a session the leader named before (in this transaction
    /// or an earlier one), opened if the replica journal holds it already.
    fn view(&mut self, name: &str) -> Result<&mut JournalStore, StoreError> {
        if !self.views.contains_key(name) {
            let view = self.journal.session(name, 0)?;
            self.views.insert(name.to_string(), view);
        }
        Ok(self.views.get_mut(name).expect("inserted"))
    }

    /// The leader was compacted past our position: what follows is its
    /// whole state, so the replica's journal is made anew.
    fn start_over(&mut self) -> Result<(), StoreError> {
        self.views.clear();
        let path = self.dir.join(ENGINE_JOURNAL_FILE);
        // Unlinked, the old journal lives on until its handle is replaced.
        fs::remove_file(&path).map_err(|e| StoreError::io("remove replica journal", &path, e))?;
        let fresh = EngineJournal::open(&self.dir, self.config, 0)?;
        fresh.set_deferred(true);
        self.journal = fresh;
        self.position = None;
        Ok(())
    }

    /// Records that the leader's transactions up to `position` are applied,
    /// in the slot not written last.
    fn write_position(&mut self, position: JournalPosition) -> Result<(), StoreError> {
        self.slot = 1 - self.slot;
        let mut slot = [0u8; SLOT_LEN];
        slot[..8].copy_from_slice(&position.turn.to_le_bytes());
        slot[8..16].copy_from_slice(&position.offset.to_le_bytes());
        slot[16..24].copy_from_slice(&self.journal.position().turn.to_le_bytes());
        let crc = crc32fast::hash(&slot[..24]);
        slot[24..28].copy_from_slice(&crc.to_le_bytes());
        posio::write_all_at(&self.position_file, &slot, (self.slot * SLOT_LEN) as u64).map_err(
            |e| {
                StoreError::io(
                    "write replica position",
                    &self.dir.join(REPLICA_POSITION_FILE),
                    e,
                )
            },
        )?;
        self.position = Some(position);
        Ok(())
    }
}

/// The leader position a slot holds and the replica journal's turn then, if
/// the slot is whole.
fn parse_slot(slot: &[u8]) -> Option<(JournalPosition, u64)> {
    let u64_at = |at: usize| u64::from_le_bytes(slot[at..at + 8].try_into().expect("8 bytes"));
    let crc = u32::from_le_bytes(slot[24..28].try_into().expect("4 bytes"));
    let whole = crc == crc32fast::hash(&slot[..24]) && slot[..24] != [0; 24];
    whole.then(|| {
        let leader = JournalPosition {
            turn: u64_at(0),
            offset: u64_at(8),
        };
        (leader, u64_at(16))
    })
}

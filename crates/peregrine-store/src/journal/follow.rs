//! [`JournalFollower`]: reading an engine journal while it is written, one
//! committed transaction at a time, from a position that survives restarts
//! and compactions. What a standby or a database store applies.
//!
//! A follower believes a transaction by the rule recovery uses
//! (`format.rs`): it starts where the previous one ended, its commit
//! record's turn is the next, and the CRC over all of its bytes matches. So
//! it never applies what the writer had not committed: records written ahead
//! of their commit record, a write the reader caught half-copied, or the
//! torn tail of a crash all look the same to it, *not yet*. Damage inside the
//! committed journal stops a follower there (the writer's recovery reports
//! it; with `FileStoreDamage=report` it rewrites the journal without it, and
//! the follower starts over on the new file).

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::recover::Window;
use crate::StoreError;

use super::format::{self, parse_commit, u64_at, Kind, FILE_HEADER_LEN, HEADER_LEN};
use super::scan::{crc_of, record_at};
use super::{JournalPosition, ENGINE_JOURNAL_FILE};

/// One change of a committed transaction, as a [`JournalFollower`] hands it
/// over, in the order the journal holds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JournalChange<'a> {
    /// Everything applied before is replaced by what follows: the journal was
    /// compacted (or made anew) since the follower's position, and its next
    /// transaction holds every session's whole live state.
    Restart,
    /// Session `name` (its SessionID) appears in the journal, made at
    /// `creation_time`, with both numbers 1 and no messages.
    Session {
        /// The session's name.
        name: &'a str,
        /// When its sequence numbers were last reset (nanoseconds, UTC).
        creation_time: i64,
    },
    /// An outgoing message stored under `seq` (replacing one stored before
    /// under that number).
    Message {
        /// The session's name.
        session: &'a str,
        /// Its MsgSeqNum.
        seq: u64,
        /// The message as stored.
        message: &'a [u8],
    },
    /// The session's next sequence numbers.
    Numbers {
        /// The session's name.
        session: &'a str,
        /// The next MsgSeqNum it sends.
        next_sender: u64,
        /// The next MsgSeqNum it expects.
        next_target: u64,
    },
    /// The session was reset: its messages are gone, both numbers are 1.
    Reset {
        /// The session's name.
        session: &'a str,
        /// The reset's time (nanoseconds, UTC).
        creation_time: i64,
    },
    /// The transaction's changes are all given: the follower is at `position`.
    Commit {
        /// Where the follower now is.
        position: JournalPosition,
    },
}

/// Reads an [`EngineJournal`](crate::EngineJournal)'s committed transactions
/// as they are written (by this process or another), each whole, in order.
///
/// Its [`position`](Self::position) is what to keep to go on later: a
/// follower opened again with it hands over only the transactions after it.
/// A compaction (the writer opening a long, mostly dead journal) renames a
/// new file over the old one; a follower notices, and starts over with
/// [`JournalChange::Restart`] and the new file's first transaction, which
/// holds every session's live state.
///
/// Memory: one read window (64 KiB, or the largest record) and the names of
/// the sessions; a transaction is checked, then read again to hand it over,
/// so its size does not matter.
///
/// ```
/// use peregrine_store::{EngineJournal, JournalChange, JournalConfig, JournalFollower, MessageStore};
///
/// let dir = tempfile::tempdir()?;
/// let journal = EngineJournal::open(dir.path(), JournalConfig::default(), 0)?;
/// let mut follower = JournalFollower::open(dir.path(), None)?;
/// let mut venue = journal.session("FIX.4.4:GW->VENUE", 0)?;
/// venue.store(1, b"35=D|11=C-1|")?;
/// venue.incr_next_sender_seq()?;
/// venue.commit()?;
///
/// let mut seen = Vec::new();
/// let applied = follower.poll(&mut |change| {
///     if let JournalChange::Message { session, seq, .. } = change {
///         seen.push((session.to_string(), seq));
///     }
/// })?;
/// assert_eq!(applied, 1); // one transaction: the session's record, the message, the numbers
/// assert_eq!(seen, [("FIX.4.4:GW->VENUE".to_string(), 1)]);
/// assert_eq!(follower.position(), journal.position());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct JournalFollower {
    path: PathBuf,
    file: File,
    /// The file's identity, to notice a compaction renaming another over it.
    inode: (u64, u64),
    position: JournalPosition,
    /// The session names of this file, by session number - 1.
    names: Vec<String>,
    /// A [`JournalChange::Restart`] is owed before the next transaction.
    restart: bool,
    buf: Vec<u8>,
}

impl JournalFollower {
    /// Follows the journal in `dir` from `from` (`None`: from its start).
    /// With a position, the file is read up to it once for the sessions'
    /// names; a position from before a compaction starts over
    /// ([`JournalChange::Restart`] first).
    ///
    /// # Errors
    ///
    /// [`StoreError::Io`] when the file cannot be opened or read;
    /// [`StoreError::Corrupt`] when it is not an engine journal, or `from` is
    /// not the end of a committed transaction of it.
    pub fn open(
        dir: impl AsRef<Path>,
        from: Option<JournalPosition>,
    ) -> Result<JournalFollower, StoreError> {
        let path = dir.as_ref().join(ENGINE_JOURNAL_FILE);
        let mut f = JournalFollower::at_start(&path)?;
        let Some(from) = from else {
            return Ok(f);
        };
        if from.turn <= f.position.turn && f.position.turn > 0 {
            // From before this file's first transaction: a compaction since.
            f.restart = true;
            return Ok(f);
        }
        while f.position < from {
            if f.next(&mut |_| {})?.is_none() {
                break;
            }
        }
        if f.position != from {
            return Err(StoreError::corrupt(
                &path,
                from.offset,
                "not the end of a committed transaction of this journal",
            ));
        }
        Ok(f)
    }

    /// The journal at `path`, before its first transaction.
    fn at_start(path: &Path) -> Result<JournalFollower, StoreError> {
        let file = File::open(path).map_err(|e| StoreError::io("open engine journal", path, e))?;
        let meta = file
            .metadata()
            .map_err(|e| StoreError::io("read engine journal", path, e))?;
        let mut head = [0u8; FILE_HEADER_LEN as usize];
        let base_turn = crate::posio::read_exact_at(&file, &mut head, 0)
            .ok()
            .and_then(|()| format::parse_file_header(&head))
            .map(|(_, base)| base)
            .ok_or_else(|| StoreError::corrupt(path, 0, "not an engine journal (bad header)"))?;
        Ok(JournalFollower {
            path: path.to_path_buf(),
            file,
            inode: (meta.dev(), meta.ino()),
            position: JournalPosition {
                turn: base_turn,
                offset: FILE_HEADER_LEN,
            },
            names: Vec::new(),
            restart: false,
            buf: Vec::new(),
        })
    }

    /// The end of the last transaction handed over.
    pub fn position(&self) -> JournalPosition {
        self.position
    }

    /// Hands every transaction committed past the position to `apply`, each
    /// as its changes and a [`JournalChange::Commit`]; the number of
    /// transactions. Nothing new (or only what is not committed yet): 0.
    ///
    /// # Errors
    ///
    /// [`StoreError::Io`] when the file cannot be read;
    /// [`StoreError::Corrupt`] when a compaction left a file that is not an
    /// engine journal.
    pub fn poll(&mut self, apply: &mut dyn FnMut(JournalChange<'_>)) -> Result<u64, StoreError> {
        let mut applied = 0;
        loop {
            match self.next(apply)? {
                Some(_) => applied += 1,
                None if applied == 0 && self.replaced()? => {
                    *self = JournalFollower::at_start(&self.path)?;
                    self.restart = true;
                }
                None => return Ok(applied),
            }
        }
    }

    /// Whether another file has been renamed over the one being read.
    fn replaced(&self) -> Result<bool, StoreError> {
        match std::fs::metadata(&self.path) {
            Ok(m) => Ok((m.dev(), m.ino()) != self.inode),
            // Between a compaction's unlink and rename: not yet.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(StoreError::io("read engine journal", &self.path, e)),
        }
    }

    /// The next committed transaction, handed to `apply`; its position.
    fn next(
        &mut self,
        apply: &mut dyn FnMut(JournalChange<'_>),
    ) -> Result<Option<JournalPosition>, StoreError> {
        let io = |e| StoreError::io("read engine journal", &self.path, e);
        let len = self.file.metadata().map_err(io)?.len();
        let start = self.position.offset;
        let mut w = Window::new(&self.file, len, &mut self.buf);
        // Find its commit record and check the transaction.
        let mut at = start;
        let (commit_at, turn) = loop {
            let Some(h) = record_at(&mut w, at).map_err(io)? else {
                return Ok(None); // not written (whole) yet
            };
            if h.kind == Kind::Commit {
                let record = w.get(at, h.record_len()).map_err(io)?.expect("verified");
                let (turn, txn_start, crc) = parse_commit(&record[HEADER_LEN..]);
                // The first transaction of a compacted journal written before
                // its header named the base turn may carry any later turn.
                let follows = turn == self.position.turn + 1
                    || (start == FILE_HEADER_LEN && turn > self.position.turn);
                if txn_start != start
                    || !follows
                    || crc_of(&mut w, start, at).map_err(io)? != Some(crc)
                {
                    return Ok(None);
                }
                break (at, turn);
            }
            at += h.record_len() as u64;
        };
        let end = commit_at + (HEADER_LEN + format::COMMIT_LEN) as u64;
        if std::mem::take(&mut self.restart) {
            apply(JournalChange::Restart);
        }
        // Hand it over.
        let mut at = start;
        while at < commit_at {
            let h = record_at(&mut w, at).map_err(io)?.expect("checked above");
            let record = w
                .get(at, h.record_len())
                .map_err(io)?
                .expect("checked above");
            let payload = &record[HEADER_LEN..];
            if h.kind == Kind::Session {
                // Numbers are given in order (1, 2, ...) to new names; another
                // is skipped, as recovery does.
                let name = String::from_utf8_lossy(&payload[8..]);
                if h.session as usize == self.names.len() + 1
                    && !self.names.iter().any(|n| *n == name)
                {
                    apply(JournalChange::Session {
                        name: &name,
                        creation_time: u64_at(payload, 0) as i64,
                    });
                    self.names.push(name.into_owned());
                }
                at += h.record_len() as u64;
                continue;
            }
            // A record of a session never named is skipped, as recovery does.
            let Some(session) = (h.session as usize)
                .checked_sub(1)
                .and_then(|i| self.names.get(i))
            else {
                at += h.record_len() as u64;
                continue;
            };
            match h.kind {
                Kind::Message => apply(JournalChange::Message {
                    session,
                    seq: u64_at(payload, 0),
                    message: &payload[8..],
                }),
                Kind::Numbers => apply(JournalChange::Numbers {
                    session,
                    next_sender: u64_at(payload, 0),
                    next_target: u64_at(payload, 8),
                }),
                Kind::Reset => apply(JournalChange::Reset {
                    session,
                    creation_time: u64_at(payload, 0) as i64,
                }),
                Kind::Session | Kind::Commit => {}
            }
            at += h.record_len() as u64;
        }
        self.position = JournalPosition { turn, offset: end };
        apply(JournalChange::Commit {
            position: self.position,
        });
        Ok(Some(self.position))
    }
}

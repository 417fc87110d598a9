//! [`EngineJournal`]: one journal for every session of an engine.

mod follow;
mod format;
mod replica;
mod scan;
mod view;

use std::collections::HashMap;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::file::FsyncPolicy;
use crate::posio;
use crate::recover::{OnDamage, Recovery, Window};
use crate::{StoreError, StoreObserver};

use format::Kind;
use scan::SessionState;

pub use follow::{JournalChange, JournalFollower};
pub use replica::{JournalReplica, REPLICA_POSITION_FILE};
pub use view::JournalStore;

// For the documentation's links only.
#[cfg(doc)]
use crate::MessageStore;

/// The engine journal's file name, in its directory.
pub const ENGINE_JOURNAL_FILE: &str = "engine.journal";

/// How an [`EngineJournal`] is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JournalConfig {
    /// When the journal is fsynced: after every turn's write
    /// ([`FsyncPolicy::EveryCommit`], the default), every N milliseconds, or
    /// never (the operating system's cache; survives `kill -9`).
    pub fsync: FsyncPolicy,
    /// What opening does with acknowledged data found damaged.
    pub on_damage: OnDamage,
    /// Records staged past this many bytes are written ahead of their
    /// commit record (still uncommitted until it is written): the most the
    /// staging buffer holds at once.
    pub write_buffer_capacity: usize,
    /// On open, a journal longer than this whose live records (each
    /// session's numbers and the messages it still holds) take less than
    /// half of it is rewritten with only them, in one transaction (written
    /// beside it, fsynced, then renamed over it): the file stays within
    /// about twice what the sessions hold, from one start to the next.
    pub compact_over: u64,
}

impl Default for JournalConfig {
    fn default() -> Self {
        JournalConfig {
            fsync: FsyncPolicy::default(),
            on_damage: OnDamage::default(),
            write_buffer_capacity: 1 << 20,
            compact_over: 64 << 20,
        }
    }
}

impl JournalConfig {
    /// The defaults with the given fsync policy.
    ///
    /// ```
    /// use peregrine_store::{FsyncPolicy, JournalConfig};
    /// let config = JournalConfig::with_fsync(FsyncPolicy::Never);
    /// assert_eq!(config.fsync, FsyncPolicy::Never);
    /// ```
    pub fn with_fsync(fsync: FsyncPolicy) -> Self {
        JournalConfig {
            fsync,
            ..Self::default()
        }
    }
}

/// Where the committed journal ends: the turn of its last commit record and
/// the byte offset just past it. A reader following the journal (a standby,
/// a database store) has applied everything up to a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct JournalPosition {
    /// Commit records written since the journal was made (0: none).
    pub turn: u64,
    /// The offset just past the last commit record.
    pub offset: u64,
}

/// What an [`EngineJournal`] has done since it was opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JournalStats {
    /// Writes to the file (a turn's, or records written ahead of their
    /// commit because the staging buffer was full).
    pub writes: u64,
    /// Fsyncs of the file.
    pub fsyncs: u64,
    /// Transactions committed (commit records written).
    pub turns: u64,
}

/// [`EngineJournal`]: one durable journal for every session of an engine, so
/// that a turn of the engine commits as one transaction whatever the number
/// of sessions it touched.
///
/// A [`FileStore`](crate::FileStore) commits one session: a gateway that
/// forwards an order from a client session to a venue session would commit
/// the two separately, and a crash between the two commits either loses the
/// forward (the client's sequence number committed, the venue's message not)
/// or duplicates it (the other way round). The engine journal holds the
/// records of every session in one file; each session's store is a view of
/// it ([`JournalStore`], a [`MessageStore`]), and a commit record covers
/// every record written since the previous one, of all sessions. After a
/// crash at any instant, a transaction is there whole or not at all.
///
/// **Calling contract.** A journal starts in *immediate* mode: each view's
/// [`commit`](MessageStore::commit) writes (and fsyncs, by policy) every
/// record staged so far, as a [`FileStore`](crate::FileStore) would. An
/// engine that drives many sessions switches it to *deferred* mode
/// ([`EngineJournal::set_deferred`]): a view's commit then only stages its
/// records, and the engine calls [`EngineJournal::write_turn`] once per turn,
/// **before it writes any byte to any socket**: one write and at most one
/// fsync per turn, however many sessions committed.
///
/// ```
/// use peregrine_store::{EngineJournal, FsyncPolicy, JournalConfig, MessageStore};
///
/// let dir = tempfile::tempdir()?;
/// let config = JournalConfig::with_fsync(FsyncPolicy::EveryCommit);
/// let journal = EngineJournal::open(dir.path(), config, 0)?;
/// let mut client = journal.session("FIX.4.4:GW->CLIENT1", 0)?;
/// let mut venue = journal.session("FIX.4.4:GW->VENUE", 0)?;
/// journal.set_deferred(true);
///
/// // One turn: an order read on the client session is forwarded to the venue.
/// client.incr_next_target_seq()?; // the order's sequence number
/// venue.store(1, b"35=D|11=C-1|...")?; // the forward
/// venue.incr_next_sender_seq()?;
/// client.commit()?; // staged
/// venue.commit()?; // staged
/// assert!(journal.write_turn()?); // one write, one fsync: now the forward may leave
/// assert_eq!(journal.stats().writes, 1);
/// drop((client, venue));
///
/// // Both numbers came back together.
/// let journal = EngineJournal::open(dir.path(), config, 0)?;
/// assert_eq!(journal.session("FIX.4.4:GW->CLIENT1", 0)?.next_target_seq(), 2);
/// assert_eq!(journal.session("FIX.4.4:GW->VENUE", 0)?.next_sender_seq(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The file format (records, the commit record, the position a reader
/// follows) is in the `journal::format` module's documentation
/// (`src/journal/format.rs`).
///
/// **Growth.** The journal grows with the messages of every session while
/// the engine runs (a reset does not shrink it); opening reads it whole,
/// and compacts it when it is long and mostly dead
/// ([`JournalConfig::compact_over`]): from one start to the next it holds
/// at most about twice what its sessions hold. A write or fsync that fails leaves the journal *failed*:
/// every later commit returns [`StoreError::JournalFailed`] until the
/// process opens it again (recovery then keeps what was committed).
///
/// Cloning it gives another handle to the same journal.
#[derive(Clone)]
pub struct EngineJournal {
    shared: Arc<Mutex<Shared>>,
}

impl fmt::Debug for EngineJournal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sh = lock(&self.shared);
        f.debug_struct("EngineJournal")
            .field("path", &sh.path)
            .field("position", &sh.position)
            .field("sessions", &sh.sessions.len())
            .finish()
    }
}

/// The journal's state, shared by its handle and every session's view.
pub(crate) struct Shared {
    pub(crate) path: PathBuf,
    file: File,
    config: JournalConfig,
    /// Where the bytes written to the file end (and `staged` begins).
    pub(crate) end: u64,
    /// Records not written yet, to be written at `end`.
    pub(crate) staged: Vec<u8>,
    /// Records have been staged or written ahead since the last commit record.
    pending: bool,
    /// Where the transaction being built starts (just past the last commit).
    txn_start: u64,
    /// The CRC of its bytes so far (the commit record carries it).
    txn_crc: crc32fast::Hasher,
    position: JournalPosition,
    /// By session number - 1: the state of a session no view holds (a view
    /// takes it while it lives and gives it back when dropped).
    sessions: Vec<Option<SessionState>>,
    names: HashMap<String, u32>,
    pub(crate) deferred: bool,
    /// A write or fsync failed: nothing more is committed.
    failed: bool,
    unsynced: bool,
    /// Where the zeros written ahead of `end` stop ([`Shared::reserve_ahead`]).
    reserved: u64,
    last_sync: Instant,
    stats: JournalStats,
    recovery: Recovery,
    observer: Option<Arc<dyn StoreObserver>>,
}

/// How far past its end the journal keeps zeros written
/// ([`Shared::reserve_ahead`]).
const RESERVE_AHEAD: u64 = 64 * 1024;
const PAGE: u64 = 4096;
static ZEROS: [u8; PAGE as usize] = [0; PAGE as usize];

/// The journal's lock; a panic elsewhere while it was held leaves state that
/// is still consistent record by record, so the poison is ignored.
pub(crate) fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

impl EngineJournal {
    /// Opens (or makes) the journal `engine.journal` in `dir` (made if
    /// missing), reading back every committed transaction. An uncommitted
    /// tail (a crash mid-write) is cut off; damage inside the committed
    /// journal is refused or reported as `config.on_damage` says. `now`
    /// stamps a new journal.
    ///
    /// # Errors
    ///
    /// [`StoreError::Io`] when the directory or file cannot be made, read or
    /// written; [`StoreError::Corrupt`] when the file is not an engine
    /// journal; [`StoreError::Damaged`] for damage with
    /// [`OnDamage::Refuse`] (the file is left as it is).
    pub fn open(
        dir: impl AsRef<Path>,
        config: JournalConfig,
        now: i64,
    ) -> Result<EngineJournal, StoreError> {
        let dir = dir.as_ref();
        fs::create_dir_all(dir).map_err(|e| StoreError::io("create journal directory", dir, e))?;
        let path = dir.join(ENGINE_JOURNAL_FILE);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| StoreError::io("open engine journal", &path, e))?;
        let len = file
            .metadata()
            .map_err(|e| StoreError::io("read engine journal", &path, e))?
            .len();
        let mut shared = Shared {
            path: path.clone(),
            file,
            config,
            end: format::FILE_HEADER_LEN,
            staged: Vec::with_capacity(64 * 1024),
            pending: false,
            txn_start: format::FILE_HEADER_LEN,
            txn_crc: crc32fast::Hasher::new(),
            position: JournalPosition {
                turn: 0,
                offset: format::FILE_HEADER_LEN,
            },
            sessions: Vec::new(),
            names: HashMap::new(),
            deferred: false,
            failed: false,
            unsynced: false,
            reserved: 0,
            last_sync: Instant::now(),
            stats: JournalStats::default(),
            recovery: Recovery::default(),
            observer: None,
        };
        if len == 0 {
            posio::write_all_at(&shared.file, &format::file_header(now, 0), 0)
                .map_err(|e| StoreError::io("write engine journal header", &path, e))?;
            shared
                .file
                .sync_all()
                .map_err(|e| StoreError::io("fsync engine journal", &path, e))?;
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        } else {
            shared.recover(len)?;
            shared.compact_if_due(dir)?;
        }
        Ok(EngineJournal {
            shared: Arc::new(Mutex::new(shared)),
        })
    }

    /// The store of session `name` (its SessionID, e.g.
    /// `FIX.4.4:GW->VENUE`): as the journal left it, or new (numbers 1,
    /// created at `now`; its name is journalled with the next turn).
    ///
    /// # Errors
    ///
    /// [`StoreError::SessionInUse`] while another view of that session
    /// lives; [`StoreError::JournalFailed`] after a failed write.
    pub fn session(&self, name: &str, now: i64) -> Result<JournalStore, StoreError> {
        if name.len() > format::MAX_NAME {
            return Err(StoreError::NameTooLong {
                len: name.len(),
                max: format::MAX_NAME,
            });
        }
        let mut sh = lock(&self.shared);
        if sh.failed {
            return Err(StoreError::JournalFailed {
                path: sh.path.clone(),
            });
        }
        let (no, state) = match sh.names.get(name).copied() {
            Some(no) => match sh.sessions[no as usize - 1].take() {
                Some(state) => (no, state),
                None => {
                    return Err(StoreError::SessionInUse {
                        name: name.to_string(),
                    })
                }
            },
            None => {
                let no = sh.sessions.len() as u32 + 1;
                sh.stage(Kind::Session, no, &[&now.to_le_bytes(), name.as_bytes()])?;
                sh.sessions.push(None);
                sh.names.insert(name.to_string(), no);
                (no, SessionState::new(name.to_string(), now))
            }
        };
        // Damage is found per transaction, not per session: every view hears
        // of it (a loss whose session is unknown may be any session's).
        let recovery = (!sh.recovery.losses.is_empty()).then(|| sh.recovery.clone());
        drop(sh);
        Ok(JournalStore::new(self.shared.clone(), no, state, recovery))
    }

    /// Whether the journal holds session `name` (committed, or made since
    /// it was opened).
    pub fn knows(&self, name: &str) -> bool {
        lock(&self.shared).names.contains_key(name)
    }

    /// Carries a session over from another store (its own `FileStore`
    /// directory before the engine journal, say): a new session `name` in
    /// the journal with `from`'s creation time, numbers and every message it
    /// holds, committed as the journal's mode says (immediate: written now;
    /// deferred: with the next turn). Returns its store.
    ///
    /// ```
    /// use peregrine_store::{EngineJournal, FileStore, FileStoreConfig, JournalConfig, MessageStore};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let mut old = FileStore::open(dir.path(), "FIX.4.4:A->B", FileStoreConfig::default(), 5)?;
    /// old.store(1, b"first")?;
    /// old.set_next_sender_seq(2)?;
    /// old.set_next_target_seq(9)?;
    /// old.commit()?;
    /// let journal = EngineJournal::open(dir.path(), JournalConfig::default(), 0)?;
    /// let store = journal.import("FIX.4.4:A->B", &mut old)?;
    /// assert_eq!((store.next_sender_seq(), store.next_target_seq(), store.creation_time()), (2, 9, 5));
    /// assert!(journal.knows("FIX.4.4:A->B"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`StoreError::SessionInUse`] when the journal holds the session
    /// already; `from`'s errors reading its messages; the journal's as
    /// [`session`](Self::session) and [`write_turn`](Self::write_turn).
    pub fn import(
        &self,
        name: &str,
        from: &mut dyn crate::MessageStore,
    ) -> Result<JournalStore, StoreError> {
        use crate::MessageStore as _;
        if self.knows(name) {
            return Err(StoreError::SessionInUse {
                name: name.to_string(),
            });
        }
        // Read whole before anything is staged: a failed read leaves the
        // journal without the session (and the old store is read again).
        let mut messages = Vec::new();
        from.for_each_in_range(1, crate::SEQ_END, &mut |seq, msg| {
            messages.push((seq, msg.to_vec()));
        })?;
        let mut view = self.session(name, from.creation_time())?;
        for (seq, msg) in &messages {
            view.store(*seq, msg)?;
        }
        view.set_next_sender_seq(from.next_sender_seq())?;
        view.set_next_target_seq(from.next_target_seq())?;
        view.commit()?;
        Ok(view)
    }

    /// Deferred (`true`): a view's commit only stages its records, and the
    /// owner calls [`write_turn`](Self::write_turn) before anything those
    /// commits released may leave. Immediate (`false`, the default): each
    /// commit writes.
    pub fn set_deferred(&self, deferred: bool) {
        lock(&self.shared).deferred = deferred;
    }

    /// Whether commits are deferred ([`set_deferred`](Self::set_deferred)).
    pub fn is_deferred(&self) -> bool {
        lock(&self.shared).deferred
    }

    /// Commits everything staged since the last commit, of every session, as
    /// one transaction: one write (the records and a commit record) and, by
    /// the fsync policy, one fsync. Returns whether there was anything to
    /// commit.
    ///
    /// # Errors
    ///
    /// [`StoreError::Io`] when the write or fsync fails (nothing staged may
    /// then leave, and the journal is failed from then on);
    /// [`StoreError::JournalFailed`] after an earlier failure.
    pub fn write_turn(&self) -> Result<bool, StoreError> {
        lock(&self.shared).write_turn()
    }

    /// Whether records wait for [`write_turn`](Self::write_turn).
    pub fn has_staged(&self) -> bool {
        lock(&self.shared).pending
    }

    /// Commits what is staged, then fsyncs whatever the policy.
    ///
    /// # Errors
    ///
    /// As [`write_turn`](Self::write_turn).
    pub fn sync(&self) -> Result<(), StoreError> {
        let mut sh = lock(&self.shared);
        sh.write_turn()?;
        sh.fsync()
    }

    /// Under [`FsyncPolicy::EveryMillis`], fsyncs what is written but not
    /// durable once the interval has passed; whether it did.
    ///
    /// # Errors
    ///
    /// As [`write_turn`](Self::write_turn).
    pub fn sync_if_due(&self) -> Result<bool, StoreError> {
        lock(&self.shared).sync_if_due()
    }

    /// Where the committed journal ends.
    pub fn position(&self) -> JournalPosition {
        lock(&self.shared).position
    }

    /// Writes, fsyncs and turns since it was opened.
    pub fn stats(&self) -> JournalStats {
        lock(&self.shared).stats
    }

    /// The bytes its staging buffer holds room for: at most about
    /// [`JournalConfig::write_buffer_capacity`] between turns, whatever the
    /// largest record was (a record larger than that grows it for its turn).
    pub fn buffer_capacity(&self) -> usize {
        lock(&self.shared).staged.capacity()
    }

    /// What opening found: an uncommitted tail cut off, damage reported.
    pub fn recovery(&self) -> Recovery {
        lock(&self.shared).recovery.clone()
    }

    /// The journal's file.
    pub fn path(&self) -> PathBuf {
        lock(&self.shared).path.clone()
    }

    /// The names of the sessions the journal holds, in the order first seen.
    pub fn session_names(&self) -> Vec<String> {
        let sh = lock(&self.shared);
        let mut names: Vec<(u32, String)> =
            sh.names.iter().map(|(n, &no)| (no, n.clone())).collect();
        names.sort();
        names.into_iter().map(|(_, n)| n).collect()
    }

    /// Tells `observer` how long each write and fsync takes.
    pub fn set_observer(&self, observer: Option<Arc<dyn StoreObserver>>) {
        lock(&self.shared).observer = observer;
    }
}

impl Shared {
    /// Reads the journal back (see [`EngineJournal::open`]).
    fn recover(&mut self, len: u64) -> Result<(), StoreError> {
        let mut head = [0u8; format::FILE_HEADER_LEN as usize];
        if len < format::FILE_HEADER_LEN
            || posio::read_exact_at(&self.file, &mut head, 0).is_err()
            || format::parse_file_header(&head).is_none()
        {
            return Err(StoreError::corrupt(
                &self.path,
                0,
                "not an engine journal (bad header)",
            ));
        }
        let mut buf = Vec::new();
        let mut w = Window::new(&self.file, len, &mut buf);
        let scanned =
            scan::scan(&mut w).map_err(|e| StoreError::io("read engine journal", &self.path, e))?;
        if !scanned.losses.is_empty() && self.config.on_damage == OnDamage::Refuse {
            return Err(StoreError::Damaged {
                path: self.path.clone(),
                losses: scanned.losses,
            });
        }
        if len > scanned.committed_end {
            // The uncommitted tail (and any zeros) goes: appends follow the
            // last commit.
            self.file
                .set_len(scanned.committed_end)
                .map_err(|e| StoreError::io("cut engine journal tail", &self.path, e))?;
        }
        self.end = scanned.committed_end;
        self.txn_start = scanned.committed_end;
        self.position = JournalPosition {
            turn: scanned.turn,
            offset: scanned.committed_end,
        };
        self.recovery = Recovery {
            uncommitted_bytes: scanned.uncommitted_bytes,
            losses: scanned.losses,
            rewritten: false,
        };
        for (i, s) in scanned.sessions.into_iter().enumerate() {
            self.names.insert(s.name.clone(), i as u32 + 1);
            self.sessions.push(Some(s));
        }
        Ok(())
    }

    /// Rewrites the journal with only its live records when it is long and
    /// mostly dead ([`JournalConfig::compact_over`]); before any view exists.
    fn compact_if_due(&mut self, dir: &Path) -> Result<(), StoreError> {
        let record = |payload: usize| (format::HEADER_LEN + payload) as u64;
        let live: u64 = format::FILE_HEADER_LEN
            + record(format::COMMIT_LEN)
            + self
                .sessions
                .iter()
                .flatten()
                .map(|s| {
                    record(8 + s.name.len())
                        + record(16)
                        + s.messages
                            .all()
                            .iter()
                            .map(|m| record(8 + m.len as usize))
                            .sum::<u64>()
                })
                .sum::<u64>();
        if self.end <= self.config.compact_over || live * 2 > self.end {
            return Ok(());
        }
        let tmp = dir.join(format!("{ENGINE_JOURNAL_FILE}.compact"));
        let tmp_path = tmp.clone();
        let io = |what: &'static str| {
            let path = tmp_path.clone();
            move |e| StoreError::io(what, &path, e)
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(io("create compacted engine journal"))?;
        let mut head = [0u8; format::FILE_HEADER_LEN as usize];
        posio::read_exact_at(&self.file, &mut head, 0)
            .map_err(|e| StoreError::io("read engine journal", &self.path, e))?;
        // The same journal (its creation time), starting after this turn:
        // a reader following the old file starts over from this one.
        let (creation_time, _) = format::parse_file_header(&head).ok_or_else(|| {
            StoreError::corrupt(&self.path, 0, "not an engine journal (bad header)")
        })?;
        let head = format::file_header(creation_time, self.position.turn);
        let mut at = format::FILE_HEADER_LEN;
        posio::write_all_at(&file, &head, 0).map_err(io("write compacted engine journal"))?;
        let (mut out, mut crc, mut read) = (Vec::new(), crc32fast::Hasher::new(), Vec::new());
        for (i, s) in self.sessions.iter().flatten().enumerate() {
            let no = i as u32 + 1;
            format::append(
                &mut out,
                Kind::Session,
                no,
                &[&s.creation_time.to_le_bytes(), s.name.as_bytes()],
            );
            let numbers = [s.next_sender.to_le_bytes(), s.next_target.to_le_bytes()];
            format::append(&mut out, Kind::Numbers, no, &[&numbers[0], &numbers[1]]);
            for m in s.messages.all() {
                let body = self.read_message(m.offset, m.len, no, &mut read)?;
                format::append(
                    &mut out,
                    Kind::Message,
                    no,
                    &[&m.seq.to_le_bytes(), &read[body]],
                );
                if out.len() >= self.config.write_buffer_capacity {
                    crc.update(&out);
                    posio::write_all_at(&file, &out, at)
                        .map_err(io("write compacted engine journal"))?;
                    at += out.len() as u64;
                    out.clear();
                }
            }
        }
        crc.update(&out);
        let turn = self.position.turn + 1;
        let commit = format::commit_payload(turn, format::FILE_HEADER_LEN, crc.finalize());
        format::append(&mut out, Kind::Commit, 0, &[&commit]);
        posio::write_all_at(&file, &out, at).map_err(io("write compacted engine journal"))?;
        file.sync_all()
            .map_err(io("fsync compacted engine journal"))?;
        fs::rename(&tmp, &self.path).map_err(io("rename compacted engine journal"))?;
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        let before = std::mem::take(&mut self.recovery);
        self.file = file;
        self.sessions.clear();
        self.names.clear();
        let len = at + out.len() as u64;
        self.recover(len)?;
        self.recovery = Recovery {
            rewritten: true,
            ..before
        };
        Ok(())
    }

    fn failed_error(&self) -> StoreError {
        StoreError::JournalFailed {
            path: self.path.clone(),
        }
    }

    /// Stages one record; writes the staged records ahead of their commit
    /// when the buffer is full. Returns the offset the record will have.
    pub(crate) fn stage(
        &mut self,
        kind: Kind,
        session: u32,
        parts: &[&[u8]],
    ) -> Result<u64, StoreError> {
        if self.failed {
            return Err(self.failed_error());
        }
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if !self.staged.is_empty()
            && self.staged.len() + format::HEADER_LEN + len > self.config.write_buffer_capacity
        {
            self.write_ahead()?;
        }
        let from = self.staged.len();
        format::append(&mut self.staged, kind, session, parts);
        self.txn_crc.update(&self.staged[from..]);
        self.pending = true;
        Ok(self.end + from as u64)
    }

    /// Writes the staged records without a commit record.
    fn write_ahead(&mut self) -> Result<(), StoreError> {
        let started = self.clock();
        if let Err(e) = posio::write_all_at(&self.file, &self.staged, self.end) {
            return Err(self.fail("append engine journal records", e));
        }
        self.observe_write(started);
        self.end += self.staged.len() as u64;
        self.staged.clear();
        // A record larger than the buffer grew it: give that back, so that the
        // buffer stays within write_buffer_capacity between turns.
        if self.staged.capacity() > 2 * self.config.write_buffer_capacity {
            self.staged.shrink_to(self.config.write_buffer_capacity);
        }
        self.stats.writes += 1;
        self.unsynced = true;
        Ok(())
    }

    /// Keeps [`RESERVE_AHEAD`] bytes of zeros written past the journal's
    /// end, a page at a time, so that a turn's write lands on pages the
    /// file already has: its fdatasync then has no file size to make
    /// durable (as `FileStore::settle` does). Best effort: the space is an
    /// optimisation, and a disk too full for it fails the next write, which
    /// says so. Recovery keeps zeros after the last commit as space.
    pub(crate) fn reserve_ahead(&mut self) {
        if self.failed {
            return;
        }
        let target = (self.end + RESERVE_AHEAD).next_multiple_of(PAGE);
        let mut at = self.reserved.max(self.end);
        while at < target {
            let n = (PAGE - at % PAGE).min(target - at);
            if posio::write_all_at(&self.file, &ZEROS[..n as usize], at).is_err() {
                break;
            }
            at += n;
        }
        self.reserved = at;
    }

    /// A write or fsync failed: the journal is failed from now on.
    fn fail(&mut self, context: &'static str, e: std::io::Error) -> StoreError {
        self.failed = true;
        // Best effort: the file ends at the last commit again (after a
        // failed fsync that is the commit whose fsync failed: nothing of it
        // was sent). If this fails too, recovery cuts an uncommitted tail.
        let _ = self.file.set_len(self.position.offset);
        StoreError::io(context, &self.path, e)
    }

    pub(crate) fn write_turn(&mut self) -> Result<bool, StoreError> {
        if self.failed {
            return Err(self.failed_error());
        }
        if !self.pending {
            return Ok(false);
        }
        let turn = self.position.turn + 1;
        let crc = std::mem::replace(&mut self.txn_crc, crc32fast::Hasher::new()).finalize();
        let commit = format::commit_payload(turn, self.txn_start, crc);
        format::append(&mut self.staged, Kind::Commit, 0, &[&commit]);
        self.write_ahead()?;
        self.txn_start = self.end;
        self.pending = false;
        self.position = JournalPosition {
            turn,
            offset: self.end,
        };
        self.stats.turns += 1;
        if self.config.fsync == FsyncPolicy::EveryCommit {
            self.fsync()?;
        } else {
            self.sync_if_due()?;
        }
        Ok(true)
    }

    pub(crate) fn fsync(&mut self) -> Result<(), StoreError> {
        if !self.unsynced {
            return Ok(());
        }
        let started = self.clock();
        if let Err(e) = self.file.sync_data() {
            return Err(self.fail("fsync engine journal", e));
        }
        if let (Some(o), Some(t)) = (&self.observer, started) {
            o.on_fsync(t.elapsed());
        }
        self.unsynced = false;
        self.last_sync = Instant::now();
        self.stats.fsyncs += 1;
        Ok(())
    }

    pub(crate) fn sync_interval(&self) -> Option<Duration> {
        match self.config.fsync {
            FsyncPolicy::EveryMillis(ms) => Some(Duration::from_millis(ms)),
            _ => None,
        }
    }

    pub(crate) fn sync_if_due(&mut self) -> Result<bool, StoreError> {
        match self.sync_interval() {
            Some(every) if self.unsynced && self.last_sync.elapsed() >= every => {
                self.fsync()?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn clock(&self) -> Option<Instant> {
        self.observer.as_ref().map(|_| Instant::now())
    }

    fn observe_write(&self, started: Option<Instant>) {
        if let (Some(o), Some(t)) = (&self.observer, started) {
            o.on_write(t.elapsed());
        }
    }

    /// The first view's observer is the journal's (every session's store
    /// is given one by its engine; they all time the same writes).
    pub(crate) fn set_observer_if_none(&mut self, observer: Option<Arc<dyn StoreObserver>>) {
        if self.observer.is_none() {
            self.observer = observer;
        }
    }

    /// A view is dropped: its session's state goes back to the journal.
    pub(crate) fn give_back(&mut self, no: u32, state: SessionState) {
        if let Some(slot) = self.sessions.get_mut(no as usize - 1) {
            *slot = Some(state);
        }
    }

    /// Reads the record at `offset` (written or staged) into `buf`, checked
    /// against its CRC, its kind and session; the payload's range in `buf`.
    /// Reads the written bytes `from..to` into `buf` (one read): `false`,
    /// and nothing read, when any of them is still staged.
    pub(crate) fn read_span(
        &self,
        from: u64,
        to: u64,
        buf: &mut Vec<u8>,
    ) -> Result<bool, StoreError> {
        if to > self.end {
            return Ok(false);
        }
        buf.clear();
        buf.resize((to - from) as usize, 0);
        posio::read_exact_at(&self.file, buf, from)
            .map_err(|e| StoreError::io("read engine journal", &self.path, e))?;
        Ok(true)
    }

    /// Whether `record` is session `session`'s message record of `len`
    /// bytes, whole (its CRC checks).
    pub(crate) fn is_message(record: &[u8], len: u32, session: u32) -> bool {
        format::Header::parse(record).is_some_and(|h| {
            h.kind == Kind::Message
                && h.session == session
                && h.len == 8 + len as usize
                && h.verifies(record)
        })
    }

    pub(crate) fn read_message(
        &self,
        offset: u64,
        len: u32,
        session: u32,
        buf: &mut Vec<u8>,
    ) -> Result<std::ops::Range<usize>, StoreError> {
        let total = format::HEADER_LEN + 8 + len as usize;
        buf.clear();
        if offset >= self.end {
            let from = (offset - self.end) as usize;
            match self.staged.get(from..from + total) {
                Some(b) => buf.extend_from_slice(b),
                None => {
                    return Err(StoreError::corrupt(
                        &self.path,
                        offset,
                        "staged record missing",
                    ))
                }
            }
        } else {
            buf.resize(total, 0);
            posio::read_exact_at(&self.file, buf, offset)
                .map_err(|e| StoreError::io("read engine journal", &self.path, e))?;
        }
        if !Self::is_message(buf, len, session) {
            return Err(StoreError::corrupt(
                &self.path,
                offset,
                "message record fails its checksum",
            ));
        }
        Ok(format::HEADER_LEN + 8..total)
    }
}

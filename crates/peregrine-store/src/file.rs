//! [`FileStore`]: a durable store in one directory per session.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::format::{self, SeqState, JOURNAL_HEADER_LEN, RECORD_HEADER_LEN, SLOT_LEN};
use crate::index::{Entry, Index};
use crate::posio;
use crate::{check_len, check_seq, MessageStore, StoreError};

/// File name of the message journal inside a session directory.
pub const JOURNAL_FILE: &str = "messages.journal";
/// File name of the sequence-number slots inside a session directory.
pub const SEQNUMS_FILE: &str = "seqnums";

/// When a [`FileStore`] calls `fsync` (`fdatasync` on Linux).
///
/// Independently of the policy, every `store` and every sequence-number
/// update is handed to the operating system (one `pwrite`) before the call
/// returns, so a *process* crash (`kill -9`, a panic, an abort) loses nothing
/// a call acknowledged. The policy decides what survives a *machine* crash or
/// power loss: exactly what was fsynced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FsyncPolicy {
    /// Never fsync on the write path; only [`MessageStore::sync`] and
    /// [`MessageStore::reset`] do.
    Never,
    /// Fsync dirty files from within a mutating call (`store`, `set_*`,
    /// `incr_*`) once at least this many milliseconds have passed since the
    /// last fsync, measured with [`std::time::Instant`] (monotonic). The
    /// store has no thread of its own: when calls stop, nothing is fsynced
    /// until the next call, [`MessageStore::sync_if_due`] (the engine calls
    /// it every [`MessageStore::sync_interval`]) or [`MessageStore::sync`].
    EveryMillis(u64),
    /// Fsync the journal after every `store` and the sequence-number file
    /// after every sequence-number update, before the call returns.
    #[default]
    EveryMessage,
}

/// Settings of a [`FileStore`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStoreConfig {
    /// When to fsync.
    pub fsync: FsyncPolicy,
    /// Index entries to reserve on open (24 bytes each), so that storing
    /// that many messages does not grow the index.
    pub index_capacity: usize,
    /// Bytes reserved on open for the record being written; a message larger
    /// than this grows the buffer once (to its size plus 20 bytes).
    pub write_buffer_capacity: usize,
    /// Resend reads coalesce records that are adjacent in the journal into
    /// one positioned read of up to this many bytes (a single larger record
    /// is read on its own). The buffer is reserved on open and reused.
    pub read_chunk: usize,
}

impl Default for FileStoreConfig {
    fn default() -> Self {
        FileStoreConfig {
            fsync: FsyncPolicy::default(),
            index_capacity: 1024,
            write_buffer_capacity: 4096,
            read_chunk: 64 * 1024,
        }
    }
}

impl FileStoreConfig {
    /// The default settings with the given fsync policy.
    pub fn with_fsync(fsync: FsyncPolicy) -> Self {
        FileStoreConfig {
            fsync,
            ..Self::default()
        }
    }
}

/// Turns a session identifier (e.g. `"FIX.4.4:SENDER->TARGET"`) into a
/// directory name that is safe on every file system.
///
/// An identifier made only of ASCII letters, digits, `.`, `_` and `-` (and
/// not `.`/`..`, not longer than 120 bytes) is used as it is. Any other is
/// mapped to its safe characters (others become `_`, at most 100 of them)
/// followed by `~` and a 16-digit hash of the whole identifier, so that two
/// different identifiers never share a directory by accident.
pub fn sanitize_session_id(session_id: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if !session_id.is_empty()
        && session_id.len() <= 120
        && session_id != "."
        && session_id != ".."
        && session_id.chars().all(safe)
    {
        return session_id.to_owned();
    }
    let mut out: String = session_id
        .chars()
        .take(100)
        .map(|c| if safe(c) { c } else { '_' })
        .collect();
    // FNV-1a, 64 bit: a stable, dependency-free hash of the original bytes.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in session_id.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    out.push('~');
    out.push_str(&format!("{h:016x}"));
    out
}

/// A durable [`MessageStore`]: an append-only, checksummed journal of the
/// outgoing messages plus a small file of sequence numbers, in one directory
/// per session.
///
/// * **Write path.** `store` encodes the record into a reusable buffer and
///   writes it with one positioned write at the journal's end; the index
///   entry goes into a vector with reserved capacity. Nothing is allocated
///   once the buffers are warm (the index grows amortised past
///   [`FileStoreConfig::index_capacity`]). Sequence-number updates rewrite one
///   64-byte slot in place, alternating between two slots.
/// * **Read path.** [`for_each_in_range`](MessageStore::for_each_in_range)
///   looks the range up in the in-memory index and reads exactly those
///   records with positioned reads into a reusable buffer, checking each
///   record's CRC.
/// * **Recovery.** [`open`](FileStore::open) scans the journal, stops at the
///   first record that is incomplete or fails its checks, and truncates the
///   file there: every record before it (in particular everything that was
///   fsynced) survives. If the process died between `store(seq)` and the
///   increment of the sender sequence number, open advances
///   `next_sender_seq` past `seq`, so a sequence number is never reused for
///   a different message.
///
/// One process at a time may write a session directory (nothing enforces
/// it yet). The file format is described in the crate documentation.
pub struct FileStore {
    dir: PathBuf,
    journal_path: PathBuf,
    seqnums_path: PathBuf,
    journal: File,
    seqnums: File,
    config: FileStoreConfig,
    state: SeqState,
    end: u64,
    index: Index,
    write_buf: Vec<u8>,
    read_buf: Vec<u8>,
    journal_dirty: bool,
    seqnums_dirty: bool,
    last_sync: Instant,
}

impl fmt::Debug for FileStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileStore")
            .field("dir", &self.dir)
            .field("config", &self.config)
            .field("next_sender", &self.state.next_sender)
            .field("next_target", &self.state.next_target)
            .field("creation_time", &self.state.creation_time)
            .field("messages", &self.index.len())
            .field("journal_len", &self.end)
            .finish()
    }
}

fn open_rw(path: &Path) -> Result<File, StoreError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| StoreError::io("open store file", path, e))
}

/// Makes the directory entries of newly created files durable.
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    #[cfg(unix)]
    {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| StoreError::io("fsync store directory", dir, e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

impl FileStore {
    /// Opens (creating if needed) the store of `session_id` in
    /// `base_dir/<sanitize_session_id(session_id)>/`, recovering from any
    /// crash. `now` (nanoseconds since the Unix epoch, UTC) becomes the
    /// creation time if the store is new; an existing store keeps its own.
    pub fn open(
        base_dir: impl AsRef<Path>,
        session_id: &str,
        config: FileStoreConfig,
        now: i64,
    ) -> Result<FileStore, StoreError> {
        let dir = base_dir.as_ref().join(sanitize_session_id(session_id));
        Self::open_dir(dir, config, now)
    }

    /// Like [`open`](Self::open), with the session directory given directly.
    pub fn open_dir(
        dir: impl Into<PathBuf>,
        config: FileStoreConfig,
        now: i64,
    ) -> Result<FileStore, StoreError> {
        let dir = dir.into();
        let existed = dir.is_dir();
        fs::create_dir_all(&dir).map_err(|e| StoreError::io("create store directory", &dir, e))?;
        if !existed {
            if let Some(parent) = dir.parent() {
                sync_dir(parent)?;
            }
        }
        let journal_path = dir.join(JOURNAL_FILE);
        let seqnums_path = dir.join(SEQNUMS_FILE);
        let journal = open_rw(&journal_path)?;
        let seqnums = open_rw(&seqnums_path)?;
        let mut store = FileStore {
            dir,
            journal_path,
            seqnums_path,
            journal,
            seqnums,
            config,
            state: SeqState {
                generation: 0,
                epoch: 0,
                next_sender: 1,
                next_target: 1,
                creation_time: now,
                journal_end: JOURNAL_HEADER_LEN,
            },
            end: JOURNAL_HEADER_LEN,
            index: Index::with_capacity(config.index_capacity),
            write_buf: Vec::with_capacity(config.write_buffer_capacity),
            read_buf: Vec::new(),
            journal_dirty: false,
            seqnums_dirty: false,
            last_sync: Instant::now(),
        };
        store.read_buf.resize(config.read_chunk, 0);
        store.load(now)?;
        Ok(store)
    }

    /// The session directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of the journal file.
    pub fn journal_path(&self) -> &Path {
        &self.journal_path
    }

    /// Path of the sequence-number file.
    pub fn seqnums_path(&self) -> &Path {
        &self.seqnums_path
    }

    /// The settings the store was opened with.
    pub fn config(&self) -> &FileStoreConfig {
        &self.config
    }

    /// Number of distinct sequence numbers stored.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether no message is stored.
    pub fn is_empty(&self) -> bool {
        self.index.len() == 0
    }

    /// Length of the journal file in bytes.
    pub fn journal_len(&self) -> u64 {
        self.end
    }

    /// Reserves index room for `messages` more messages and write-buffer
    /// room for a message of `max_message_len` bytes.
    pub fn reserve(&mut self, messages: usize, max_message_len: usize) {
        self.index.reserve(messages);
        let need = max_message_len + RECORD_HEADER_LEN;
        if self.write_buf.capacity() < need {
            self.write_buf.reserve(need - self.write_buf.len());
        }
    }

    /// Under [`FsyncPolicy::EveryMillis`], fsyncs the dirty files if the
    /// interval has passed since the last fsync, and says whether it did.
    /// Under the other policies it does nothing and returns `false`. Meant to
    /// be called from the engine's timer so that an idle session's last
    /// writes do not stay un-fsynced.
    pub fn sync_if_due(&mut self) -> Result<bool, StoreError> {
        if let FsyncPolicy::EveryMillis(ms) = self.config.fsync {
            if (self.journal_dirty || self.seqnums_dirty)
                && self.last_sync.elapsed() >= Duration::from_millis(ms)
            {
                self.sync_files()?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Reads the durable state from disk, recovering from a crash, and
    /// rebuilds the index. `now` is the creation time of a new store.
    fn load(&mut self, now: i64) -> Result<(), StoreError> {
        self.index.clear();
        self.journal_dirty = false;
        self.seqnums_dirty = false;

        let mut slots = [0u8; 2 * SLOT_LEN];
        let n = posio::read_up_to_at(&self.seqnums, &mut slots, 0)
            .map_err(|e| StoreError::io("read sequence numbers", &self.seqnums_path, e))?;
        let journal_len = self
            .journal
            .metadata()
            .map_err(|e| StoreError::io("stat journal", &self.journal_path, e))?
            .len();

        let Some(state) = SeqState::decode_file(&slots[..n]) else {
            // A new store, or one whose creation was cut short: creation
            // writes the seqnums slot (fsynced) before any record, so a
            // journal with records but no valid slot is not ours to wipe.
            if journal_len > JOURNAL_HEADER_LEN {
                return Err(StoreError::corrupt(
                    &self.seqnums_path,
                    0,
                    "no valid sequence-number slot next to a non-empty journal",
                ));
            }
            let state = SeqState {
                generation: 0,
                epoch: 1,
                next_sender: 1,
                next_target: 1,
                creation_time: now,
                journal_end: JOURNAL_HEADER_LEN,
            };
            self.new_journal(state.epoch)?;
            self.write_state_durably(state)?;
            sync_dir(&self.dir)?;
            return Ok(());
        };
        self.state = state;

        if journal_len < JOURNAL_HEADER_LEN {
            // Cut short while being created or reset: it holds no record.
            return self.new_journal(state.epoch);
        }
        let mut header = [0u8; JOURNAL_HEADER_LEN as usize];
        posio::read_exact_at(&self.journal, &mut header, 0)
            .map_err(|e| StoreError::io("read journal header", &self.journal_path, e))?;
        match format::parse_journal_header(&header) {
            None => {
                return Err(StoreError::corrupt(
                    &self.journal_path,
                    0,
                    "not a Peregrine journal (bad magic)",
                ))
            }
            // The seqnums file has moved on to a new epoch (a reset whose
            // journal truncation did not happen): the journal is stale.
            Some(epoch) if epoch != state.epoch => return self.new_journal(state.epoch),
            Some(_) => {}
        }

        let (good_end, max_unacked) = self.scan_journal(journal_len)?;
        if good_end < journal_len {
            self.journal
                .set_len(good_end)
                .and_then(|()| self.journal.sync_data())
                .map_err(|e| StoreError::io("truncate torn journal tail", &self.journal_path, e))?;
        }
        self.end = good_end;
        if let Some(seq) = max_unacked {
            if seq >= self.state.next_sender {
                self.state.next_sender = seq + 1;
            }
        }
        Ok(())
    }

    /// Scans the records of the journal into the index. Returns the end of
    /// the last complete, valid record and the highest sequence number among
    /// the records written after the seqnums slot was last written.
    fn scan_journal(&mut self, journal_len: u64) -> Result<(u64, Option<u64>), StoreError> {
        let path = &self.journal_path;
        let mut file = &self.journal;
        file.seek(SeekFrom::Start(JOURNAL_HEADER_LEN))
            .map_err(|e| StoreError::io("seek journal", path, e))?;
        let mut reader = BufReader::with_capacity(256 * 1024, file);
        let mut offset = JOURNAL_HEADER_LEN;
        let mut max_unacked: Option<u64> = None;
        let mut h = [0u8; RECORD_HEADER_LEN];
        loop {
            if journal_len - offset < RECORD_HEADER_LEN as u64 {
                break;
            }
            if let Err(e) = reader.read_exact(&mut h) {
                if e.kind() == io::ErrorKind::UnexpectedEof {
                    break;
                }
                return Err(StoreError::io("read journal", path, e));
            }
            let Some(rh) = format::parse_record_header(&h) else {
                break;
            };
            let len = rh.len as usize;
            if journal_len - offset - (RECORD_HEADER_LEN as u64) < len as u64 {
                break;
            }
            if self.read_buf.len() < len {
                self.read_buf.resize(len, 0);
            }
            let payload = &mut self.read_buf[..len];
            if let Err(e) = reader.read_exact(payload) {
                if e.kind() == io::ErrorKind::UnexpectedEof {
                    break;
                }
                return Err(StoreError::io("read journal", path, e));
            }
            if !format::record_crc_ok(&h, &rh, payload) {
                break;
            }
            self.index.insert(Entry {
                seq: rh.seq,
                offset,
                len: rh.len,
            });
            if offset >= self.state.journal_end {
                max_unacked = Some(max_unacked.map_or(rh.seq, |m: u64| m.max(rh.seq)));
            }
            offset += (RECORD_HEADER_LEN + len) as u64;
        }
        Ok((offset, max_unacked))
    }

    /// Truncates the journal to an empty one of `epoch`, durably.
    fn new_journal(&mut self, epoch: u64) -> Result<(), StoreError> {
        let path = &self.journal_path;
        self.journal
            .set_len(0)
            .and_then(|()| posio::write_all_at(&self.journal, &format::journal_header(epoch), 0))
            .and_then(|()| self.journal.sync_data())
            .map_err(|e| StoreError::io("write journal header", path, e))?;
        self.index.clear();
        self.end = JOURNAL_HEADER_LEN;
        self.journal_dirty = false;
        Ok(())
    }

    /// Writes `state` (with the next generation and the current journal end)
    /// to its slot; the in-memory state changes only if the write succeeds.
    fn write_state(&mut self, mut state: SeqState) -> Result<(), StoreError> {
        state.generation = self.state.generation.wrapping_add(1);
        state.journal_end = self.end;
        posio::write_all_at(&self.seqnums, &state.encode(), state.slot_offset())
            .map_err(|e| StoreError::io("write sequence numbers", &self.seqnums_path, e))?;
        self.state = state;
        self.seqnums_dirty = true;
        Ok(())
    }

    fn write_state_durably(&mut self, state: SeqState) -> Result<(), StoreError> {
        self.write_state(state)?;
        self.seqnums
            .sync_data()
            .map_err(|e| StoreError::io("fsync sequence numbers", &self.seqnums_path, e))?;
        self.seqnums_dirty = false;
        Ok(())
    }

    /// Applies the fsync policy after a write to the journal
    /// (`journal == true`) or to the seqnums file.
    fn after_write(&mut self, journal: bool) -> Result<(), StoreError> {
        match self.config.fsync {
            FsyncPolicy::Never => Ok(()),
            FsyncPolicy::EveryMessage => {
                if journal {
                    self.sync_journal()
                } else {
                    self.sync_seqnums()
                }
            }
            FsyncPolicy::EveryMillis(ms) => {
                if self.last_sync.elapsed() >= Duration::from_millis(ms) {
                    self.sync_files()
                } else {
                    Ok(())
                }
            }
        }
    }

    fn sync_journal(&mut self) -> Result<(), StoreError> {
        self.journal
            .sync_data()
            .map_err(|e| StoreError::io("fsync journal", &self.journal_path, e))?;
        self.journal_dirty = false;
        Ok(())
    }

    fn sync_seqnums(&mut self) -> Result<(), StoreError> {
        self.seqnums
            .sync_data()
            .map_err(|e| StoreError::io("fsync sequence numbers", &self.seqnums_path, e))?;
        self.seqnums_dirty = false;
        Ok(())
    }

    fn sync_files(&mut self) -> Result<(), StoreError> {
        // Journal first: a durable seqnums slot then never points past
        // journal bytes that are not durable yet.
        if self.journal_dirty {
            self.sync_journal()?;
        }
        if self.seqnums_dirty {
            self.sync_seqnums()?;
        }
        self.last_sync = Instant::now();
        Ok(())
    }

    fn set_seqs(&mut self, sender: u64, target: u64) -> Result<(), StoreError> {
        let state = SeqState {
            next_sender: sender,
            next_target: target,
            ..self.state
        };
        self.write_state(state)?;
        self.after_write(false)
    }
}

impl MessageStore for FileStore {
    fn next_sender_seq(&self) -> u64 {
        self.state.next_sender
    }

    fn next_target_seq(&self) -> u64 {
        self.state.next_target
    }

    fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        check_seq(seq)?;
        self.set_seqs(seq, self.state.next_target)
    }

    fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        check_seq(seq)?;
        self.set_seqs(self.state.next_sender, seq)
    }

    fn creation_time(&self) -> i64 {
        self.state.creation_time
    }

    fn store(&mut self, seq: u64, msg: &[u8]) -> Result<(), StoreError> {
        check_seq(seq)?;
        let len = check_len(msg.len())?;
        self.write_buf.clear();
        format::encode_record(&mut self.write_buf, seq, msg);
        if let Err(e) = posio::write_all_at(&self.journal, &self.write_buf, self.end) {
            // Best effort: cut off a partial record so that the journal ends
            // on a record boundary again. If this fails too, recovery on the
            // next open cuts it off.
            let _ = self.journal.set_len(self.end);
            return Err(StoreError::io(
                "append journal record",
                &self.journal_path,
                e,
            ));
        }
        self.index.insert(Entry {
            seq,
            offset: self.end,
            len,
        });
        self.end += self.write_buf.len() as u64;
        self.journal_dirty = true;
        self.after_write(true)
    }

    fn for_each_in_range(
        &mut self,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError> {
        let entries = self.index.range(begin, end);
        let chunk = self.config.read_chunk as u64;
        let rec_len = |e: &Entry| RECORD_HEADER_LEN as u64 + u64::from(e.len);
        let mut i = 0;
        while i < entries.len() {
            // Coalesce records that are adjacent in the journal into one read.
            let start = entries[i].offset;
            let mut stop = start + rec_len(&entries[i]);
            let mut j = i + 1;
            while j < entries.len()
                && entries[j].offset == stop
                && stop + rec_len(&entries[j]) - start <= chunk
            {
                stop += rec_len(&entries[j]);
                j += 1;
            }
            let n = (stop - start) as usize;
            if self.read_buf.len() < n {
                self.read_buf.resize(n, 0);
            }
            let buf = &mut self.read_buf[..n];
            posio::read_exact_at(&self.journal, buf, start)
                .map_err(|e| StoreError::io("read journal record", &self.journal_path, e))?;
            for e in &entries[i..j] {
                let at = (e.offset - start) as usize;
                let rec = &buf[at..at + rec_len(e) as usize];
                let ok = match format::parse_record_header(rec) {
                    Some(h) => {
                        h.seq == e.seq
                            && h.len == e.len
                            && format::record_crc_ok(rec, &h, &rec[RECORD_HEADER_LEN..])
                    }
                    None => false,
                };
                if !ok {
                    return Err(StoreError::corrupt(
                        &self.journal_path,
                        e.offset,
                        "record changed on disk since it was written",
                    ));
                }
                visitor(e.seq, &rec[RECORD_HEADER_LEN..]);
            }
            i = j;
        }
        Ok(())
    }

    fn reset(&mut self, creation_time: i64) -> Result<(), StoreError> {
        // New epoch in the seqnums file first (durably), then the journal:
        // a crash in between leaves a journal of the old epoch, which the
        // next open recognises as stale and empties.
        let epoch = self.state.epoch.wrapping_add(1);
        let state = SeqState {
            epoch,
            next_sender: 1,
            next_target: 1,
            creation_time,
            ..self.state
        };
        let old_end = std::mem::replace(&mut self.end, JOURNAL_HEADER_LEN);
        if let Err(e) = self.write_state(state) {
            self.end = old_end;
            return Err(e);
        }
        // The slot is written: from here on the store is reset in memory and
        // on disk, whatever fsync says.
        let synced = self.sync_seqnums();
        self.new_journal(epoch)?;
        synced?;
        self.last_sync = Instant::now();
        Ok(())
    }

    fn refresh(&mut self) -> Result<(), StoreError> {
        let now = self.state.creation_time;
        self.load(now)
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        self.sync_files()
    }

    fn sync_interval(&self) -> Option<Duration> {
        match self.config.fsync {
            FsyncPolicy::EveryMillis(ms) => Some(Duration::from_millis(ms)),
            _ => None,
        }
    }

    fn sync_if_due(&mut self) -> Result<bool, StoreError> {
        FileStore::sync_if_due(self)
    }
}

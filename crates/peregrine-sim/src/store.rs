//! The simulated stores: Peregrine's real [`MemoryStore`] and [`FileStore`],
//! wrapped so that a crash can be simulated and what the store acknowledged
//! can be checked after it.
//!
//! # What a crash keeps
//!
//! [`SimStore`] keeps a shadow of every acknowledged change: the messages and
//! sequence numbers of the last successful [`MessageStore::commit`] (or
//! [`MessageStore::reset`], which is durable at once). That shadow is the
//! oracle of the "nothing the store acknowledged is lost" invariant.
//!
//! * **Memory store.** A crash drops the live store; the restarted node gets a
//!   new [`MemoryStore`] rebuilt from the shadow (what a durable store would
//!   have kept): only what was committed before the crash survives.
//! * **File store.** The file store writes through `std::fs` (it has no
//!   storage seam), so it runs on real files in a temporary directory (on
//!   `/dev/shm` when there is one, where `fsync` is cheap) with
//!   [`FsyncPolicy::EveryCommit`]. After each successful commit the wrapper
//!   records the journal's length: everything up to it was fsynced. A crash
//!   drops the store (its handles closed, what it had not written lost; the
//!   drop writes a witness not yet settled and cuts the zeros written ahead,
//!   so a witness one commit behind and a tear inside those zeros are left to
//!   the store's own tests, `tests/recovery.rs`), then
//!   simulates the file system losing unsynced writes: the journal is cut at
//!   a point chosen by the fault between the synced length and its actual
//!   length, and the fault may append a torn record (random bytes, as a write
//!   cut short leaves). The store then reopens with [`OnDamage::Refuse`]: a
//!   synced store must come back with every acknowledged message, and
//!   refusing to open is reported as a violation. The fault may also tear
//!   the sequence-number witness (`seqnums`): the slot written last becomes
//!   garbage from some byte on ([`Tear::seqnums`]). The store documents that
//!   open then takes the other, older slot; the journal is the truth and the
//!   witness only tells a truncated journal, so a synced store must still
//!   come back whole (a refusal is a violation: the store does not document
//!   one for this).
//! * **Unsynced file store** ([`StoreKind::FileUnsynced`]).
//!   [`FsyncPolicy::Never`] and [`OnDamage::Report`]: the synced length
//!   moves only at `sync` and `reset`, so a crash may cut acknowledged
//!   commits, which the store reports as [`peregrine_store::LossKind::Truncated`]
//!   while its sequence numbers continue after the witness's. The witness is
//!   left as written: losing it together with the journal's tail makes the
//!   store reuse MsgSeqNums, a limit [`FsyncPolicy::Never`] documents (a
//!   power cut may lose the writes since the last fsync, the witness's
//!   included), so the seqnums tear applies to synced stores only.
//! * **Engine journal** (the routing world, `--route`, [`crate::route`]).
//!   Transactions spanning sessions: a router node hosts `GW->CLIENT` and
//!   one or two venue sessions (`GW->VENUE1`, `GW->VENUE2`: odd seeds one,
//!   even seeds two), whose stores are views
//!   ([`peregrine_store::JournalStore`]) of one
//!   [`peregrine_store::EngineJournal`] in deferred mode (fsync every turn,
//!   [`OnDamage::Refuse`], records written ahead of their commit past 4 KiB),
//!   and its application forwards each order read from the client to every
//!   venue (with two, one transaction spans three sessions) and each report
//!   back (`Outbox::send_to`), handed over in the same turn. Each simulated turn commits both sessions (staged) and calls
//!   `write_turn` once, before any byte is written to a connection. The
//!   router's process dies at a random point of a turn
//!   (`route::actions::CrashPoint`): between turns; after reading its input
//!   (forwards staged, nothing committed); after both sessions committed,
//!   before `write_turn`; during `write_turn` (the turn's bytes torn); after
//!   it, before the sockets. What was not durable — the bytes after the last
//!   fsynced commit record: records written ahead, or the turn being
//!   written — is torn (`route::actions::JournalTear`): a prefix kept and
//!   random bytes after it, or a span inside it wrong and the rest there
//!   (pages written out of order). The journal must reopen (a refusal is a
//!   violation) with exactly the numbers and message counts of the last turn
//!   whose write returned, or of the torn turn when its bytes survived
//!   whole. Then, both ways, a forward is stored on its destination
//!   exactly once if its source's incoming number was committed and not at
//!   all otherwise; a venue never receives an order, nor the client a
//!   report, at two MsgSeqNums of the router (resends with PossDupFlag=Y are
//!   the same message); and once faults stop every order reached every venue
//!   and every report the client. The client and the venues run on memory
//!   stores and do not crash (their crash model is the two-node world's).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use peregrine_store::{
    FileStore, FileStoreConfig, FsyncPolicy, MemoryStore, MessageStore, OnDamage, Recovery,
    StoreError, JOURNAL_FILE, SEQNUMS_FILE,
};

/// Which real store a node runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// [`MemoryStore`].
    Memory,
    /// [`FileStore`] on a temporary directory, fsynced on every commit.
    File,
    /// [`FileStore`] that never fsyncs on the write path
    /// ([`FsyncPolicy::Never`]; only `sync` and `reset` do) and opens with
    /// [`OnDamage::Report`]: a crash may lose acknowledged records, which
    /// the store reports ([`peregrine_store::LossKind::Truncated`]) while its
    /// sequence numbers continue after the witness's.
    FileUnsynced,
}

/// How a crash damages the file store's journal beyond what was synced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tear {
    /// Of the unsynced tail, how much survives, in 1/256ths.
    pub keep: u8,
    /// Random bytes appended after it (a torn record), 0 for none.
    pub garbage: u8,
    /// Seed of those bytes.
    pub seed: u8,
    /// The `seqnums` witness: 0 leaves it as written; otherwise the slot
    /// written last is torn after this many bytes (modulo 64: the rest of
    /// the 64-byte slot is garbage), as a write cut short leaves it.
    pub seqnums: u8,
}

enum Backend {
    Memory(MemoryStore),
    File(Box<FileStore>),
}

/// A real store plus the shadow of what it acknowledged.
pub struct SimStore {
    backend: Backend,
    /// Messages acknowledged (committed) since the last reset.
    acked: HashMap<u64, Vec<u8>>,
    /// Sequence numbers of the last commit.
    acked_seqs: (u64, u64),
    /// Messages stored since the last commit.
    pending: Vec<(u64, Vec<u8>)>,
    creation_time: i64,
    /// Resets since the simulation began (the store's epoch).
    epoch: u64,
    /// File store: its directory, and the journal's synced length.
    dir: Option<PathBuf>,
    synced_len: u64,
    /// [`StoreKind::FileUnsynced`].
    unsynced: bool,
}

impl std::fmt::Debug for SimStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimStore")
            .field("file", &self.dir.is_some())
            .field("epoch", &self.epoch)
            .field("acked_seqs", &self.acked_seqs)
            .finish()
    }
}

/// A store could not be (re)opened after a crash.
#[derive(Debug)]
pub struct ReopenError(pub StoreError);

impl std::fmt::Display for ReopenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the store did not reopen after the crash: {}", self.0)
    }
}

impl std::error::Error for ReopenError {}

/// What an unsynced store got wrong after a crash
/// ([`SimStore::unsynced_loss`]): it may lose acknowledged messages, but not
/// change them.
#[derive(Debug)]
pub enum UnsyncedLossError {
    /// The store could not be read back.
    ReadBack(StoreError),
    /// An acknowledged message came back with different content.
    Changed {
        /// Its sequence number.
        seq: u64,
    },
}

impl std::fmt::Display for UnsyncedLossError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnsyncedLossError::ReadBack(e) => write!(f, "reading the store back failed: {e}"),
            UnsyncedLossError::Changed { seq } => {
                write!(
                    f,
                    "acknowledged message {seq} came back with different content"
                )
            }
        }
    }
}

impl std::error::Error for UnsyncedLossError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            UnsyncedLossError::ReadBack(e) => Some(e),
            UnsyncedLossError::Changed { .. } => None,
        }
    }
}

const SESSION_KEY: &str = "SIM";

fn file_config(unsynced: bool) -> FileStoreConfig {
    FileStoreConfig {
        fsync: if unsynced {
            FsyncPolicy::Never
        } else {
            FsyncPolicy::EveryCommit
        },
        on_damage: if unsynced {
            OnDamage::Report
        } else {
            OnDamage::Refuse
        },
        index_capacity: 256,
        write_buffer_capacity: 16 * 1024,
        read_chunk: 16 * 1024,
    }
}

impl SimStore {
    /// A new, empty store of `kind` (`dir`: where a file store keeps its files).
    ///
    /// # Errors
    ///
    /// The file store could not be created.
    pub fn new(kind: StoreKind, dir: &Path, now: i64) -> Result<SimStore, StoreError> {
        let (backend, dir) = match kind {
            StoreKind::Memory => (Backend::Memory(MemoryStore::new(now)), None),
            StoreKind::File | StoreKind::FileUnsynced => {
                let unsynced = kind == StoreKind::FileUnsynced;
                let store = FileStore::open(dir, SESSION_KEY, file_config(unsynced), now)?;
                (Backend::File(Box::new(store)), Some(dir.to_path_buf()))
            }
        };
        let mut s = SimStore {
            backend,
            acked: HashMap::new(),
            acked_seqs: (1, 1),
            pending: Vec::new(),
            creation_time: now,
            epoch: 0,
            dir,
            synced_len: 0,
            unsynced: kind == StoreKind::FileUnsynced,
        };
        s.synced_len = s.journal_len();
        Ok(s)
    }

    /// A memory store with no shadow (a placeholder while a crashed session is dropped).
    pub fn from_memory(m: MemoryStore) -> SimStore {
        SimStore {
            creation_time: m.creation_time(),
            backend: Backend::Memory(m),
            acked: HashMap::new(),
            acked_seqs: (1, 1),
            pending: Vec::new(),
            epoch: 0,
            dir: None,
            synced_len: 0,
            unsynced: false,
        }
    }

    fn inner(&self) -> &dyn MessageStore {
        match &self.backend {
            Backend::Memory(m) => m,
            Backend::File(f) => &**f,
        }
    }

    fn inner_mut(&mut self) -> &mut dyn MessageStore {
        match &mut self.backend {
            Backend::Memory(m) => m,
            Backend::File(f) => &mut **f,
        }
    }

    fn journal_len(&self) -> u64 {
        match &self.backend {
            Backend::Memory(_) => 0,
            Backend::File(f) => f.journal_len(),
        }
    }

    /// Resets since the simulation began.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Whether the message `seq` of the current epoch was acknowledged (committed).
    pub fn is_acked(&self, seq: u64) -> bool {
        self.acked.contains_key(&seq)
    }

    /// Which store this is.
    pub fn kind(&self) -> StoreKind {
        match self.backend {
            Backend::Memory(_) => StoreKind::Memory,
            Backend::File(_) if self.unsynced => StoreKind::FileUnsynced,
            Backend::File(_) => StoreKind::File,
        }
    }

    /// The store after a crash: what was acknowledged, as the simulated disk
    /// kept it (see the module documentation), and the shadow to check it by.
    ///
    /// # Errors
    ///
    /// The file store refused to open (it found acknowledged data damaged) or
    /// could not read its files.
    pub fn crash(self, tear: Tear, now: i64) -> Result<SimStore, ReopenError> {
        let SimStore {
            backend,
            acked,
            acked_seqs,
            creation_time,
            epoch,
            dir,
            synced_len,
            unsynced,
            ..
        } = self;
        let backend = match backend {
            Backend::Memory(old) => {
                drop(old);
                let mut m = MemoryStore::new(creation_time);
                let mut seqs: Vec<_> = acked.iter().collect();
                seqs.sort_unstable_by_key(|(s, _)| **s);
                for (seq, msg) in seqs {
                    m.store(*seq, msg).map_err(ReopenError)?;
                }
                m.set_next_sender_seq(acked_seqs.0).map_err(ReopenError)?;
                m.set_next_target_seq(acked_seqs.1).map_err(ReopenError)?;
                Backend::Memory(m)
            }
            Backend::File(old) => {
                drop(old);
                let base = dir.clone().unwrap_or_default();
                let journal = base
                    .join(peregrine_store::sanitize_session_id(SESSION_KEY))
                    .join(JOURNAL_FILE);
                tear_journal(&journal, synced_len, tear).map_err(|e| {
                    ReopenError(StoreError::Io {
                        context: "tear journal",
                        path: journal.clone(),
                        source: e,
                    })
                })?;
                // Synced stores only: an unsynced store that loses its
                // journal's tail and the witness's last write as well
                // falls back to the older slot and reuses MsgSeqNums, as
                // `FsyncPolicy::Never` documents.
                if tear.seqnums > 0 && !unsynced {
                    let seqnums = journal.with_file_name(SEQNUMS_FILE);
                    tear_seqnums(&seqnums, tear).map_err(|e| {
                        ReopenError(StoreError::Io {
                            context: "tear seqnums",
                            path: seqnums.clone(),
                            source: e,
                        })
                    })?;
                }
                let f = FileStore::open(&base, SESSION_KEY, file_config(unsynced), now)
                    .map_err(ReopenError)?;
                Backend::File(Box::new(f))
            }
        };
        let mut s = SimStore {
            backend,
            acked,
            acked_seqs,
            pending: Vec::new(),
            creation_time,
            epoch,
            dir,
            synced_len: 0,
            unsynced,
        };
        s.synced_len = s.journal_len();
        Ok(s)
    }

    /// The acknowledged messages the store holds, by sequence number, each
    /// with whether it came back with the content acknowledged.
    fn read_back_acked(&mut self) -> Result<HashMap<u64, bool>, StoreError> {
        let mut found: HashMap<u64, bool> = HashMap::with_capacity(self.acked.len());
        let acked = &self.acked;
        let inner: &mut dyn MessageStore = match &mut self.backend {
            Backend::Memory(m) => m,
            Backend::File(f) => &mut **f,
        };
        inner.for_each_in_range(1, peregrine_store::SEQ_END, &mut |seq, m| {
            if let Some(want) = acked.get(&seq) {
                found.insert(seq, want.as_slice() == m);
            }
        })?;
        Ok(found)
    }

    /// An unsynced store after a crash: the acknowledged messages it lost
    /// (their sequence numbers), which it no longer counts as acknowledged;
    /// the shadow's sequence numbers become the store's.
    ///
    /// # Errors
    ///
    /// [`UnsyncedLossError::Changed`] when a message came back with different
    /// content, [`UnsyncedLossError::ReadBack`] when the store could not be
    /// read.
    pub fn unsynced_loss(&mut self) -> Result<Vec<u64>, UnsyncedLossError> {
        let found = self
            .read_back_acked()
            .map_err(UnsyncedLossError::ReadBack)?;
        if let Some((&seq, _)) = found.iter().find(|(_, same)| !**same) {
            return Err(UnsyncedLossError::Changed { seq });
        }
        let mut lost: Vec<u64> = self
            .acked
            .keys()
            .filter(|s| !found.contains_key(s))
            .copied()
            .collect();
        lost.sort_unstable();
        for s in &lost {
            self.acked.remove(s);
        }
        self.acked_seqs = (self.next_sender_seq(), self.next_target_seq());
        Ok(lost)
    }

    /// What the reopened store lost of what it had acknowledged: `None` when
    /// nothing, else a description.
    pub fn acked_loss(&mut self) -> Option<String> {
        let (sender, target) = self.acked_seqs;
        let (now_s, now_t) = (self.next_sender_seq(), self.next_target_seq());
        if now_s != sender || now_t != target {
            return Some(format!(
                "sequence numbers acknowledged as ({sender}, {target}) came back as ({now_s}, {now_t})"
            ));
        }
        let found = match self.read_back_acked() {
            Ok(found) => found,
            Err(e) => return Some(format!("reading the store back failed: {e}")),
        };
        let mut missing: Vec<u64> = self
            .acked
            .keys()
            .filter(|s| found.get(s) != Some(&true))
            .copied()
            .collect();
        missing.sort_unstable();
        (!missing.is_empty()).then(|| {
            format!(
                "{} acknowledged message(s) missing or changed, first {:?}",
                missing.len(),
                &missing[..missing.len().min(5)]
            )
        })
    }
}

/// Tears the `seqnums` slot written last (the higher generation, bytes
/// 8..16 of each 64-byte slot): its bytes from `tear.seqnums % 64` on
/// become garbage. The store documents that a torn slot write leaves the
/// previous state intact (open takes the valid slot with the highest
/// generation: `src/format.rs` of peregrine-store).
fn tear_seqnums(path: &Path, tear: Tear) -> std::io::Result<()> {
    let mut bytes = std::fs::read(path)?;
    if bytes.len() < 128 {
        return Ok(());
    }
    let gen = |at: usize| u64::from_le_bytes(bytes[at + 8..at + 16].try_into().unwrap_or([0; 8]));
    let slot = if gen(64) > gen(0) { 64 } else { 0 };
    let from = usize::from(tear.seqnums % 64);
    let mut x = u32::from(tear.seed) | 0x200;
    for b in &mut bytes[slot + from..slot + 64] {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        *b ^= ((x >> 16) as u8) | 1;
    }
    std::fs::write(path, &bytes)
}

/// Cuts the journal somewhere in its unsynced tail and maybe appends a torn record.
fn tear_journal(path: &Path, synced: u64, tear: Tear) -> std::io::Result<()> {
    use std::io::Write;
    let len = std::fs::metadata(path)?.len();
    let tail = len.saturating_sub(synced);
    let keep = synced + tail * u64::from(tear.keep) / 256;
    let f = std::fs::OpenOptions::new().write(true).open(path)?;
    f.set_len(keep.min(len))?;
    if tear.garbage > 0 {
        let mut f = std::fs::OpenOptions::new().append(true).open(path)?;
        let mut x = u32::from(tear.seed) | 0x100;
        let bytes: Vec<u8> = (0..tear.garbage)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (x >> 16) as u8
            })
            .collect();
        f.write_all(&bytes)?;
    }
    Ok(())
}

impl MessageStore for SimStore {
    fn next_sender_seq(&self) -> u64 {
        self.inner().next_sender_seq()
    }
    fn next_target_seq(&self) -> u64 {
        self.inner().next_target_seq()
    }
    fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.inner_mut().set_next_sender_seq(seq)
    }
    fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
        self.inner_mut().set_next_target_seq(seq)
    }
    fn creation_time(&self) -> i64 {
        self.inner().creation_time()
    }
    fn store(&mut self, seq: u64, msg: &[u8]) -> Result<(), StoreError> {
        self.inner_mut().store(seq, msg)?;
        self.pending.push((seq, msg.to_vec()));
        Ok(())
    }
    fn for_each_in_range(
        &mut self,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError> {
        self.inner_mut().for_each_in_range(begin, end, visitor)
    }
    fn reset(&mut self, creation_time: i64) -> Result<(), StoreError> {
        self.inner_mut().reset(creation_time)?;
        self.acked.clear();
        self.pending.clear();
        self.acked_seqs = (1, 1);
        self.creation_time = creation_time;
        self.epoch += 1;
        self.synced_len = self.journal_len();
        Ok(())
    }
    fn refresh(&mut self) -> Result<(), StoreError> {
        self.commit()?;
        self.inner_mut().refresh()
    }
    fn commit(&mut self) -> Result<(), StoreError> {
        self.inner_mut().commit()?;
        for (seq, msg) in self.pending.drain(..) {
            self.acked.insert(seq, msg);
        }
        self.acked_seqs = (self.next_sender_seq(), self.next_target_seq());
        if !self.unsynced {
            self.synced_len = self.journal_len();
        }
        Ok(())
    }
    fn settle(&mut self) -> Result<(), StoreError> {
        self.inner_mut().settle()
    }
    fn sync(&mut self) -> Result<(), StoreError> {
        self.commit()?;
        self.inner_mut().sync()?;
        self.synced_len = self.journal_len();
        Ok(())
    }
    fn recovery(&self) -> Option<&Recovery> {
        self.inner().recovery()
    }
}

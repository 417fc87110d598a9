//! Reading a journal back on open: the committed transactions, the
//! uncommitted tail a crash left, and damage anywhere in between.
//!
//! The scan walks the records in order. A message record joins the current
//! transaction; a commit record makes the transaction part of the store with
//! its sequence numbers. Bytes that are no valid record are *damage*: the scan
//! searches forward for the next valid record (either kind, its CRC checked)
//! and goes on from there, so one bad byte costs one record, not the rest of
//! the journal. Damage followed by a commit record was inside acknowledged
//! data and is a [`Loss`]; damage with no commit record after it is part of
//! the tail a crash left mid-write, which was never acknowledged.
//!
//! Memory is bounded: records are read through a window of [`WINDOW`] bytes;
//! a larger record (up to [`MAX_MESSAGE_LEN`](crate::MAX_MESSAGE_LEN)) is read
//! on its own.

use std::fmt;
use std::fs::File;
use std::io;

use crate::format::{self, COMMIT_LEN, COMMIT_MAGIC, RECORD_HEADER_LEN, RECORD_MAGIC};
use crate::index::Location;
use crate::posio;

/// Read-ahead of the scan.
const WINDOW: usize = 256 * 1024;

/// What the [`FileStore`](crate::FileStore) found when it opened its journal.
///
/// ```
/// use peregrine_store::{FileStore, FileStoreConfig, MessageStore, SEQ_END};
///
/// let dir = tempfile::tempdir()?;
/// let open = || FileStore::open(dir.path(), "FIX.4.4:A->B", FileStoreConfig::default(), 0);
/// let mut store = open()?;
/// assert!(store.recovery().losses.is_empty());
///
/// store.store(1, b"committed")?;
/// store.commit()?;
/// store.store(2, b"never committed")?;
/// // A resend reads the transaction back from the file, so it is written
/// // out: a crash now leaves it in the journal without its commit record.
/// store.for_each_in_range(1, SEQ_END, &mut |_, _| {})?;
/// drop(store);
///
/// let mut store = open()?;
/// let r = store.recovery();
/// assert!(r.uncommitted_bytes > 0); // cut off: what a crash leaves, not a loss
/// assert!(r.losses.is_empty());
/// assert_eq!(r.lost_messages(), 0);
/// let mut kept = Vec::new();
/// store.for_each_in_range(1, SEQ_END, &mut |seq, _| kept.push(seq))?;
/// assert_eq!(kept, [1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Bytes of a transaction that was being written when the process
    /// stopped, cut off the end of the journal (counted up to its last
    /// non-zero byte: zeros written ahead after it are space, not data).
    /// Nothing in it had been acknowledged (so nothing of it had been sent);
    /// this is what a crash leaves, not a loss.
    pub uncommitted_bytes: u64,
    /// Acknowledged data found damaged or missing.
    pub losses: Vec<Loss>,
    /// The journal was rewritten on open: a format-1 journal converted, or
    /// (with [`OnDamage::Report`]) the damage removed so that it is reported
    /// once.
    pub rewritten: bool,
}

impl Recovery {
    /// The number of messages known to be lost (the ranges of
    /// [`Loss::seqs`]; damage whose messages are unknown counts one).
    pub fn lost_messages(&self) -> u64 {
        self.losses
            .iter()
            .map(|l| l.seqs.map_or(1, |(a, b)| b - a + 1))
            .sum()
    }
}

/// Acknowledged data that recovery could not read back.
///
/// ```
/// use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore};
///
/// let dir = tempfile::tempdir()?;
/// let config = FileStoreConfig::with_fsync(FsyncPolicy::Never);
/// let mut store = FileStore::open(dir.path(), "FIX.4.4:A->B", config, 0)?;
/// let mut cut_at = 0;
/// for seq in 1..=4 {
///     cut_at = store.journal_len();
///     store.store(seq, b"an order")?;
///     store.incr_next_sender_seq()?;
///     store.commit()?;
/// }
/// let journal = store.journal_path().to_path_buf();
/// drop(store);
/// // The last commit is lost from the journal (a truncated copy, say); the
/// // sequence-number witness still says it was there.
/// std::fs::OpenOptions::new().write(true).open(&journal)?.set_len(cut_at)?;
///
/// use peregrine_store::{LossKind, OnDamage, StoreError};
/// let err = FileStore::open(dir.path(), "FIX.4.4:A->B", config, 0).unwrap_err();
/// let StoreError::Damaged { losses, .. } = &err else { panic!("{err}") };
/// assert_eq!(losses[0].kind, LossKind::Truncated);
/// assert_eq!(losses[0].seqs, Some((4, 4)));
/// assert!(losses[0].to_string().ends_with("message 4 lost"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loss {
    /// What happened.
    pub kind: LossKind,
    /// Where, in the journal as it was found: byte offset.
    pub offset: u64,
    /// And how many bytes.
    pub len: u64,
    /// The sequence numbers of the messages lost, first and last, when the
    /// records around the damage tell.
    pub seqs: Option<(u64, u64)>,
}

/// The kinds of [`Loss`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKind {
    /// Bytes inside the committed journal that are no valid record (a flipped
    /// bit, an overwritten block); the records after them were kept.
    Corrupted,
    /// The journal ends before data it was known to hold: it is shorter than
    /// the sequence-number witness says (a truncated file, or writes lost
    /// with the machine when the store did not fsync). The sequence numbers
    /// continue after the witness's, so that none is used twice — as far as
    /// the witness survived: see [`FsyncPolicy::Never`](crate::FsyncPolicy::Never).
    Truncated,
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            LossKind::Corrupted => {
                write!(f, "{} corrupt bytes at offset {}", self.len, self.offset)?
            }
            LossKind::Truncated => write!(
                f,
                "journal ends {} bytes short, at offset {}",
                self.len, self.offset
            )?,
        }
        match self.seqs {
            Some((a, b)) if a == b => write!(f, ": message {a} lost"),
            Some((a, b)) => write!(f, ": messages {a} to {b} lost"),
            None => f.write_str(": no message lost (sequence numbers only)"),
        }
    }
}

/// What to do on open when acknowledged data is damaged or missing.
///
/// ```
/// use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore};
///
/// let dir = tempfile::tempdir()?;
/// let config = FileStoreConfig::with_fsync(FsyncPolicy::Never);
/// let mut store = FileStore::open(dir.path(), "FIX.4.4:A->B", config, 0)?;
/// let mut cut_at = 0;
/// for seq in 1..=4 {
///     cut_at = store.journal_len();
///     store.store(seq, b"an order")?;
///     store.incr_next_sender_seq()?;
///     store.commit()?;
/// }
/// let journal = store.journal_path().to_path_buf();
/// drop(store);
/// // The last commit is lost from the journal (a truncated copy, say); the
/// // sequence-number witness still says it was there.
/// std::fs::OpenOptions::new().write(true).open(&journal)?.set_len(cut_at)?;
///
/// use peregrine_store::{OnDamage, StoreError};
/// // Refuse (the default): an operator looks at the files first.
/// let refused = FileStore::open(dir.path(), "FIX.4.4:A->B", config, 0);
/// assert!(matches!(refused, Err(StoreError::Damaged { .. })));
///
/// // Report: the session starts, and sequence number 4 is not used again.
/// let report = peregrine_store::FileStoreConfig { on_damage: OnDamage::Report, ..config };
/// let store = FileStore::open(dir.path(), "FIX.4.4:A->B", report, 0)?;
/// assert_eq!(store.recovery().lost_messages(), 1);
/// assert_eq!(store.next_sender_seq(), 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnDamage {
    /// Refuse to open: [`StoreError::Damaged`](crate::StoreError::Damaged)
    /// lists what was lost, and the files are left as they are for an
    /// operator to look at.
    #[default]
    Refuse,
    /// Open with the loss reported in [`FileStore::recovery`](crate::FileStore::recovery)
    /// (the session answers resend requests for the lost messages with
    /// gap fills), after rewriting the journal without the damage.
    Report,
}

/// A journal read through a window.
pub(crate) struct Window<'a> {
    file: &'a File,
    len: u64,
    buf: &'a mut Vec<u8>,
    at: u64,
    filled: usize,
}

impl<'a> Window<'a> {
    pub(crate) fn new(file: &'a File, len: u64, buf: &'a mut Vec<u8>) -> Self {
        Window {
            file,
            len,
            buf,
            at: 0,
            filled: 0,
        }
    }

    /// The length of the file read.
    pub(crate) fn file_len(&self) -> u64 {
        self.len
    }

    /// `n` bytes at `offset`, or `None` past the end of the file.
    pub(crate) fn get(&mut self, offset: u64, n: usize) -> io::Result<Option<&[u8]>> {
        if offset + n as u64 > self.len {
            return Ok(None);
        }
        let inside = offset >= self.at && offset + n as u64 <= self.at + self.filled as u64;
        if !inside {
            let want = n.max(WINDOW).min((self.len - offset) as usize);
            if self.buf.len() < want {
                self.buf.resize(want, 0);
            }
            posio::read_exact_at(self.file, &mut self.buf[..want], offset)?;
            self.at = offset;
            self.filled = want;
        }
        let from = (offset - self.at) as usize;
        Ok(Some(&self.buf[from..from + n]))
    }
}

/// One record found by the scan.
enum Record {
    Message(Location),
    Commit { next_sender: u64, next_target: u64 },
}

impl Record {
    fn len(&self) -> u64 {
        match self {
            Record::Message(e) => RECORD_HEADER_LEN as u64 + u64::from(e.len),
            Record::Commit { .. } => COMMIT_LEN as u64,
        }
    }
}

/// The valid record at `offset`, if there is one.
fn record_at(w: &mut Window<'_>, offset: u64) -> io::Result<Option<Record>> {
    let Some(head) = w.get(offset, 4)? else {
        return Ok(None);
    };
    let magic = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    if magic == COMMIT_MAGIC {
        return Ok(w
            .get(offset, COMMIT_LEN)?
            .and_then(format::parse_commit)
            .map(|(next_sender, next_target)| Record::Commit {
                next_sender,
                next_target,
            }));
    }
    if magic != RECORD_MAGIC {
        return Ok(None);
    }
    let Some(h) = w.get(offset, RECORD_HEADER_LEN)? else {
        return Ok(None);
    };
    let Some(rh) = format::parse_record_header(h) else {
        return Ok(None);
    };
    let Some(rec) = w.get(offset, RECORD_HEADER_LEN + rh.len as usize)? else {
        return Ok(None);
    };
    if !format::record_crc_ok(rec, &rh, &rec[RECORD_HEADER_LEN..]) {
        return Ok(None);
    }
    Ok(Some(Record::Message(Location {
        seq: rh.seq,
        offset,
        len: rh.len,
    })))
}

/// The offset of the next valid record after `from`, if any.
fn resync(w: &mut Window<'_>, from: u64) -> io::Result<Option<u64>> {
    let mut at = from;
    while at + 4 <= w.len {
        let chunk = (w.len - at).min(WINDOW as u64) as usize;
        let found = {
            let Some(bytes) = w.get(at, chunk)? else {
                return Ok(None);
            };
            // Both magics start with "PGE".
            bytes
                .windows(4)
                .enumerate()
                .filter(|(_, m)| m[..3] == *b"PGE" && (m[3] == b'R' || m[3] == b'C'))
                .map(|(i, _)| at + i as u64)
                .collect::<Vec<u64>>()
        };
        for candidate in found {
            if record_at(w, candidate)?.is_some() {
                return Ok(Some(candidate));
            }
        }
        if chunk < 4 {
            break;
        }
        // Overlap by three bytes so a magic across the boundary is seen.
        at += chunk as u64 - 3;
    }
    Ok(None)
}

/// Damage found by the scan, before it is known whether a commit follows.
struct Damage {
    offset: u64,
    len: u64,
    /// The last intact message before it.
    prev_seq: Option<u64>,
    /// The first intact message after it (or the next commit's next_sender).
    next_seq: Option<u64>,
}

/// The outcome of a scan.
pub(crate) struct Scan {
    /// The messages of committed transactions, in journal order.
    pub(crate) entries: Vec<Location>,
    /// Sequence numbers of the last commit, if any.
    pub(crate) state: Option<(u64, u64)>,
    /// End of the last commit record (the header's end when there is none).
    pub(crate) committed_end: u64,
    /// Damage inside the committed journal.
    pub(crate) losses: Vec<Loss>,
}

/// Scans the records from `start` to the end of the file. With `v1`, every
/// message record counts as committed and the scan stops at the first bad
/// record (format 1's rule: a torn tail).
pub(crate) fn scan(w: &mut Window<'_>, start: u64, v1: bool) -> io::Result<Scan> {
    let mut out = Scan {
        entries: Vec::new(),
        state: None,
        committed_end: start,
        losses: Vec::new(),
    };
    let mut open: Vec<Location> = Vec::new();
    let mut damage: Vec<Damage> = Vec::new();
    let mut prev_seq: Option<u64> = None;
    let mut offset = start;
    while offset < w.len {
        match record_at(w, offset)? {
            Some(rec) => {
                let len = rec.len();
                match rec {
                    Record::Message(e) => {
                        for d in damage.iter_mut().filter(|d| d.next_seq.is_none()) {
                            d.next_seq = Some(e.seq);
                        }
                        prev_seq = Some(e.seq);
                        if v1 {
                            out.entries.push(e);
                            out.committed_end = offset + len;
                        } else {
                            open.push(e);
                        }
                    }
                    Record::Commit {
                        next_sender,
                        next_target,
                    } => {
                        for d in damage.iter_mut().filter(|d| d.next_seq.is_none()) {
                            d.next_seq = Some(next_sender);
                        }
                        out.entries.append(&mut open);
                        out.state = Some((next_sender, next_target));
                        out.committed_end = offset + len;
                        // Damage before a commit was inside acknowledged data.
                        for d in damage.drain(..) {
                            out.losses.push(Loss {
                                kind: LossKind::Corrupted,
                                offset: d.offset,
                                len: d.len,
                                seqs: lost_between(d.prev_seq, d.next_seq),
                            });
                        }
                    }
                }
                offset += len;
            }
            None if v1 => break,
            None => match resync(w, offset + 1)? {
                Some(next) => {
                    damage.push(Damage {
                        offset,
                        len: next - offset,
                        prev_seq,
                        next_seq: None,
                    });
                    offset = next;
                }
                None => break,
            },
        }
    }
    Ok(out)
}

/// The messages strictly between two intact neighbours.
fn lost_between(prev: Option<u64>, next: Option<u64>) -> Option<(u64, u64)> {
    let next = next?;
    let first = prev.map_or(1, |p| p + 1);
    (next > first).then(|| (first, next - 1))
}

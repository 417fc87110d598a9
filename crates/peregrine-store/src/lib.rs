//! Message stores for the Peregrine FIX session layer.
//!
//! A FIX session must remember, across messages and restarts, its next
//! outgoing (sender) and expected incoming (target) sequence numbers, when the
//! session was created, and every outgoing message, so that it can answer a
//! `ResendRequest`. This crate defines that contract as one trait,
//! [`MessageStore`], and provides three implementations:
//!
//! * [`MemoryStore`]: everything in memory (an append-only arena plus a sorted
//!   index), for tests, simulations and sessions that need no persistence.
//! * [`EngineJournal`]: one journal for every session of an engine, each
//!   session's store a view of it ([`JournalStore`]): a commit record covers
//!   the records of every session since the previous one, so an engine's
//!   turn (a gateway's forward and the order that caused it) is one
//!   transaction, one write and one fsync whatever the number of sessions.
//! * [`FileStore`]: a directory per session with an append-only journal of
//!   checksummed records: the messages, and commit records with the sequence
//!   numbers. Changes are grouped into transactions
//!   ([`MessageStore::commit`]): a session commits once per batch of input,
//!   so an incoming message's sequence number and the replies sent while
//!   handling it are durable together, and one fsync covers the batch. It
//!   survives a `kill -9` at any instant, and with [`FsyncPolicy::EveryCommit`]
//!   a power loss too: on open it keeps every committed transaction, cuts off
//!   an uncommitted tail, and reports (or refuses, [`OnDamage`]) any damage
//!   to acknowledged data, keeping every intact record after it.
//!
//! Both are built for the hot path: storing a message allocates nothing once
//! buffers are warm, and a resend reads back exactly the records asked for,
//! handing each to a visitor closure (no `Vec` is built).
//!
//! The stores have no clock and no threads. Times are plain `i64`
//! nanoseconds since the Unix epoch (UTC), passed in by the caller.
//!
//! # Example
//!
//! ```
//! use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore, SEQ_END};
//!
//! # fn main() -> Result<(), peregrine_store::StoreError> {
//! let dir = std::env::temp_dir().join(format!("peregrine-store-doc-{}", std::process::id()));
//! let now: i64 = 1_700_000_000_000_000_000; // nanoseconds since the epoch
//! let config = FileStoreConfig::with_fsync(FsyncPolicy::EveryCommit);
//!
//! let mut store = FileStore::open(&dir, "FIX.4.4:BANK->VENUE", config, now)?;
//! for body in [&b"first"[..], b"second", b"third"] {
//!     let seq = store.next_sender_seq();
//!     store.store(seq, body)?; // journal the message before sending it
//!     store.incr_next_sender_seq()?;
//! }
//! store.commit()?; // one write, one fsync; now the three may be sent
//! store.store(4, b"never committed")?;
//! drop(store); // or crash: what was committed is kept, the rest is not
//!
//! let mut store = FileStore::open(&dir, "FIX.4.4:BANK->VENUE", config, now)?;
//! assert_eq!(store.next_sender_seq(), 4);
//! assert_eq!(store.creation_time(), now);
//!
//! // Answer "ResendRequest BeginSeqNo=2 EndSeqNo=0" (0 = to the end).
//! let mut resent = Vec::new();
//! store.for_each_in_range(2, peregrine_store::resend_end(0), &mut |seq, msg| {
//!     resent.push((seq, msg.to_vec()));
//! })?;
//! assert_eq!(resent, [(2, b"second".to_vec()), (3, b"third".to_vec())]);
//!
//! // A sequence reset clears the messages and starts over at 1.
//! store.reset(now + 1)?;
//! assert_eq!((store.next_sender_seq(), store.next_target_seq()), (1, 1));
//! store.for_each_in_range(1, SEQ_END, &mut |_, _| panic!("empty after reset"))?;
//! # drop(store);
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok(())
//! # }
//! ```
//!
//! # File format
//!
//! A [`FileStore`] keeps two files in its session directory: the journal
//! (`messages.journal`: a header with the epoch and creation time, then
//! message records and commit records, each with a CRC-32) and a small
//! witness of the last commit (`seqnums`: two alternating 64-byte slots with
//! the journal's committed length and sequence numbers), with which recovery
//! recognises a journal that lost acknowledged data at its end. The layout
//! is in the `format` module's documentation (`src/format.rs`).
// `unsafe` in one module only: mapped.rs, the index's view of its mapping.
#![deny(unsafe_code)]
#![warn(missing_docs)]
#![warn(clippy::missing_errors_doc)]

#[cfg(feature = "contract-tests")]
pub mod contract;
mod error;
mod file;
mod format;
mod index;
mod journal;
mod mapped;
mod memory;
mod posio;
mod recover;
mod shared;

pub use error::StoreError;
pub use file::{
    sanitize_session_id, FileStore, FileStoreConfig, FsyncPolicy, StoreStats, JOURNAL_FILE,
    SEQNUMS_FILE,
};
pub use journal::{
    EngineJournal, JournalChange, JournalConfig, JournalFollower, JournalPosition, JournalReplica,
    JournalStats, JournalStore, ENGINE_JOURNAL_FILE, REPLICA_POSITION_FILE,
};
pub use memory::MemoryStore;
pub use recover::{Loss, LossKind, OnDamage, Recovery};
pub use shared::{SharedStore, StoreReader};

/// The largest message a store accepts (64 MiB); records in the journal are
/// limited to the same size, which bounds what recovery will read.
pub const MAX_MESSAGE_LEN: usize = 64 << 20;

/// As the `end` of [`MessageStore::for_each_in_range`]: "up to the last
/// stored message".
pub const SEQ_END: u64 = u64::MAX;

/// Maps a FIX `ResendRequest` `EndSeqNo` to the `end` argument of
/// [`MessageStore::for_each_in_range`]: `0` ("infinity" since FIX 4.2)
/// becomes [`SEQ_END`]; any other value passes through. (FIX 4.0 and 4.1
/// spelled infinity `999999`; a session speaking those maps it itself.)
pub const fn resend_end(end_seq_no: u64) -> u64 {
    if end_seq_no == 0 {
        SEQ_END
    } else {
        end_seq_no
    }
}

/// Told how long a store's writes and fsyncs take, for latency metrics (see
/// [`MessageStore::set_observer`]). Called on the thread that uses the store,
/// right after each write or fsync: an implementation must be quick and must
/// not block (an atomic histogram, say).
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
/// use std::sync::Arc;
/// use std::time::Duration;
/// use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore, StoreObserver};
///
/// #[derive(Default)]
/// struct Count { writes: AtomicU64, fsyncs: AtomicU64 }
///
/// impl StoreObserver for Count {
///     fn on_write(&self, _took: Duration) { self.writes.fetch_add(1, Relaxed); }
///     fn on_fsync(&self, _took: Duration) { self.fsyncs.fetch_add(1, Relaxed); }
/// }
///
/// let dir = tempfile::tempdir()?;
/// let config = FileStoreConfig::with_fsync(FsyncPolicy::EveryCommit);
/// let mut store = FileStore::open(dir.path(), "FIX.4.4:A->B", config, 0)?;
/// let count = Arc::new(Count::default());
/// store.set_observer(Some(count.clone()));
/// store.store(1, b"a message")?;
/// store.incr_next_sender_seq()?;
/// store.commit()?; // one write (the records and the commit record), one fsync
/// assert_eq!((count.writes.load(Relaxed), count.fsyncs.load(Relaxed)), (1, 1));
/// store.settle()?; // the witness, once the message has left: not timed
/// assert_eq!(count.writes.load(Relaxed), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait StoreObserver: Send + Sync {
    /// The store handed bytes to the operating system, taking `took`: one
    /// commit's write (its records and the commit record, not its fsync),
    /// or records written ahead of the commit because the write buffer was
    /// full. The witness written by [`MessageStore::settle`], after the
    /// commit's messages have left, is not timed.
    fn on_write(&self, took: std::time::Duration);
    /// One fsync (`fdatasync`) of the journal or of the sequence numbers took
    /// `took`.
    fn on_fsync(&self, took: std::time::Duration);
}

/// Everything a FIX session needs to persist.
///
/// Sequence numbers are `u64` and start at 1; `0` is rejected with
/// [`StoreError::InvalidSeqNum`]. Times are `i64` nanoseconds since the Unix
/// epoch, UTC. Every mutating method returns a `Result`: errors are values,
/// no method panics.
///
/// The trait is object safe (`Box<dyn MessageStore>` works), and is
/// implemented for `&mut S` and `Box<S>` so a session can own or borrow its
/// store.
///
/// # Example
///
/// The same session code over either store: store what is sent, commit,
/// answer a `ResendRequest`.
///
/// ```
/// use peregrine_store::{
///     resend_end, FileStore, FileStoreConfig, MemoryStore, MessageStore, StoreError,
/// };
///
/// /// Sends `bodies` (here: only stores them) and returns what a
/// /// `ResendRequest` for 2..=0 would resend.
/// fn send_then_resend(store: &mut dyn MessageStore, bodies: &[&[u8]]) -> Result<Vec<u64>, StoreError> {
///     for body in bodies {
///         let seq = store.next_sender_seq();
///         store.store(seq, body)?;
///         store.incr_next_sender_seq()?;
///     }
///     store.commit()?; // before the messages leave
///     let mut resent = Vec::new();
///     store.for_each_in_range(2, resend_end(0), &mut |seq, _msg| resent.push(seq))?;
///     Ok(resent)
/// }
///
/// let now = 1_700_000_000_000_000_000;
/// let bodies: [&[u8]; 3] = [b"a", b"b", b"c"];
///
/// let mut memory = MemoryStore::new(now);
/// assert_eq!(send_then_resend(&mut memory, &bodies)?, [2, 3]);
///
/// let dir = tempfile::tempdir()?;
/// let mut file = FileStore::open(dir.path(), "FIX.4.4:A->B", FileStoreConfig::default(), now)?;
/// assert_eq!(send_then_resend(&mut file, &bodies)?, [2, 3]);
/// assert_eq!(file.next_sender_seq(), 4);
///
/// // Sequence numbers start at 1: 0 is refused, not stored.
/// assert!(matches!(memory.store(0, b"x"), Err(StoreError::InvalidSeqNum(0))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait MessageStore {
    /// The sequence number the next outgoing message will carry.
    fn next_sender_seq(&self) -> u64;

    /// The sequence number expected on the next incoming message.
    fn next_target_seq(&self) -> u64;

    /// Sets the next outgoing sequence number.
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidSeqNum`] when `seq` is 0 or `u64::MAX`; the
    /// number is left as it was.
    fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError>;

    /// Sets the next expected incoming sequence number.
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidSeqNum`] when `seq` is 0 or `u64::MAX`; the
    /// number is left as it was.
    fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError>;

    /// Adds one to the next outgoing sequence number.
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidSeqNum`] when the number would reach `u64::MAX`.
    fn incr_next_sender_seq(&mut self) -> Result<(), StoreError> {
        let seq = self.next_sender_seq();
        self.set_next_sender_seq(checked_incr(seq)?)
    }

    /// Adds one to the next expected incoming sequence number.
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidSeqNum`] when the number would reach `u64::MAX`.
    fn incr_next_target_seq(&mut self) -> Result<(), StoreError> {
        let seq = self.next_target_seq();
        self.set_next_target_seq(checked_incr(seq)?)
    }

    /// When the session was created or last reset (nanoseconds since the
    /// Unix epoch, UTC).
    fn creation_time(&self) -> i64;

    /// Stores the outgoing message `msg` (the complete encoded bytes) under
    /// sequence number `seq`. Storing a sequence number again replaces the
    /// earlier message. Does not change the sequence numbers.
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidSeqNum`] when `seq` is 0 or `u64::MAX`;
    /// [`StoreError::MessageTooLarge`] when `msg` is longer than
    /// [`MAX_MESSAGE_LEN`]; [`StoreError::Io`] when a file store has to write
    /// its transaction out early to make room and the write fails.
    fn store(&mut self, seq: u64, msg: &[u8]) -> Result<(), StoreError>;

    /// Calls `visitor(seq, msg)` for every stored message with
    /// `begin <= seq <= end`, in increasing sequence order. Pass
    /// [`SEQ_END`] as `end` for "to the last message" (see [`resend_end`]
    /// for FIX's `EndSeqNo=0`). Gaps (sequence numbers never stored, e.g.
    /// administrative messages the session chose not to keep) are skipped;
    /// the caller fills them with `SequenceReset-GapFill`. An empty or
    /// inverted range visits nothing.
    ///
    /// # Errors
    ///
    /// A file store returns [`StoreError::Io`] when reading the journal
    /// fails, and [`StoreError::Corrupt`] when a record no longer matches its
    /// checksum; the messages before it have been visited. A memory store
    /// never fails.
    fn for_each_in_range(
        &mut self,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<(), StoreError>;

    /// Deletes every message, sets both sequence numbers to 1 and the
    /// creation time to `creation_time`.
    ///
    /// # Errors
    ///
    /// A file store returns [`StoreError::Io`] when its new, empty files
    /// cannot be written and synced. A memory store never fails.
    fn reset(&mut self, creation_time: i64) -> Result<(), StoreError>;

    /// Reloads the state from the backing storage (a no-op in memory).
    ///
    /// # Errors
    ///
    /// As [`commit`](Self::commit), which comes first, then as
    /// [`FileStore::open`]: [`StoreError::Io`], [`StoreError::Corrupt`] or
    /// [`StoreError::Damaged`].
    fn refresh(&mut self) -> Result<(), StoreError>;

    /// Makes the changes since the last commit part of the store as one
    /// unit: the messages stored and the sequence numbers set since then are
    /// written together, and fsynced as the store's policy says. A caller
    /// commits before the messages it stored leave (a session: once per
    /// batch of input, so that an incoming message's sequence number and the
    /// replies sent while handling it become durable together). Changes not
    /// committed are lost with the process (a no-op in memory, whose changes
    /// are lost with the process anyway).
    ///
    /// # Errors
    ///
    /// A file store returns [`StoreError::Io`] when writing the transaction
    /// or the fsync its policy asks for fails; the caller must then not send
    /// the messages stored in it. A memory store never fails.
    fn commit(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Finishes what the last [`commit`](Self::commit) left for later
    /// because no message waits for it: the file store's witness of where
    /// the committed journal ends (what tells a truncated journal on open).
    /// A session calls it once the messages released by the commit have
    /// been written, so that the work is off their way; not calling it is
    /// safe (the next commit, [`sync`](Self::sync), fsync or drop does it
    /// first); the witness then lags one commit behind, and a journal cut
    /// inside that last commit is not told from a shorter one. After small
    /// commits it also keeps room ready for the next ones (the file store's
    /// zeros past the journal's end, both stores' index and the memory
    /// store's arena), grown and written here rather than on their way.
    ///
    /// # Errors
    ///
    /// A file store returns [`StoreError::Io`] when the write fails.
    ///
    /// ```
    /// use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let config = FileStoreConfig::with_fsync(FsyncPolicy::Never);
    /// let mut store = FileStore::open(dir.path(), "FIX.4.4:A->B", config, 0)?;
    /// store.store(1, b"order")?;
    /// store.incr_next_sender_seq()?;
    /// store.commit()?; // the journal: one write, before the order leaves
    /// // ... the order is written to the socket ...
    /// store.settle()?; // the witness: after it
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn settle(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Commits, then makes everything written so far durable (fsync),
    /// whatever the fsync policy (a no-op in memory).
    ///
    /// # Errors
    ///
    /// A file store returns [`StoreError::Io`] when the commit or the fsync
    /// fails. A memory store never fails.
    fn sync(&mut self) -> Result<(), StoreError>;

    /// How often the owner should call [`sync_if_due`](Self::sync_if_due):
    /// `Some` only under a time-based fsync policy
    /// ([`FsyncPolicy::EveryMillis`]), whose store has no thread of its own.
    fn sync_interval(&self) -> Option<std::time::Duration> {
        None
    }

    /// Under a time-based fsync policy, fsyncs what is not durable yet if the
    /// interval has passed since the last fsync, and says whether it did, so
    /// that the last writes of a session gone quiet become durable too. The
    /// default (and every other policy) does nothing.
    ///
    /// # Errors
    ///
    /// A file store returns [`StoreError::Io`] when the fsync fails.
    fn sync_if_due(&mut self) -> Result<bool, StoreError> {
        Ok(false)
    }

    /// What the store found when it opened its files (`None`: a store
    /// without files).
    fn recovery(&self) -> Option<&Recovery> {
        None
    }

    /// Tells `observer` how long each write and fsync takes from now on
    /// (`None`: no one; the clock is then not read). A store that writes
    /// nothing to files (memory) has nothing to tell, and keeps nothing.
    fn set_observer(&mut self, observer: Option<std::sync::Arc<dyn StoreObserver>>) {
        let _ = observer;
    }
}

fn checked_incr(seq: u64) -> Result<u64, StoreError> {
    match seq.checked_add(1) {
        Some(next) if next != u64::MAX => Ok(next),
        _ => Err(StoreError::InvalidSeqNum(seq)),
    }
}

/// Validates a sequence number: `1..u64::MAX` (`u64::MAX` is [`SEQ_END`]).
pub(crate) fn check_seq(seq: u64) -> Result<u64, StoreError> {
    if seq == 0 || seq == u64::MAX {
        Err(StoreError::InvalidSeqNum(seq))
    } else {
        Ok(seq)
    }
}

/// Validates a message length against [`MAX_MESSAGE_LEN`].
pub(crate) fn check_len(len: usize) -> Result<u32, StoreError> {
    if len > MAX_MESSAGE_LEN {
        Err(StoreError::MessageTooLarge {
            len,
            max: MAX_MESSAGE_LEN,
        })
    } else {
        Ok(len as u32)
    }
}

/// The [`MessageStore`] methods of a store that keeps its numbers and creation
/// time in fields `next_sender`, `next_target` and `creation_time`: one copy
/// for [`MemoryStore`] and [`FileStore`].
macro_rules! seq_fields {
    () => {
        fn next_sender_seq(&self) -> u64 {
            self.next_sender
        }

        fn next_target_seq(&self) -> u64 {
            self.next_target
        }

        fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), $crate::StoreError> {
            self.next_sender = $crate::check_seq(seq)?;
            Ok(())
        }

        fn set_next_target_seq(&mut self, seq: u64) -> Result<(), $crate::StoreError> {
            self.next_target = $crate::check_seq(seq)?;
            Ok(())
        }

        fn creation_time(&self) -> i64 {
            self.creation_time
        }
    };
}
pub(crate) use seq_fields;

macro_rules! forward_store {
    () => {
        fn next_sender_seq(&self) -> u64 {
            (**self).next_sender_seq()
        }
        fn next_target_seq(&self) -> u64 {
            (**self).next_target_seq()
        }
        fn set_next_sender_seq(&mut self, seq: u64) -> Result<(), StoreError> {
            (**self).set_next_sender_seq(seq)
        }
        fn set_next_target_seq(&mut self, seq: u64) -> Result<(), StoreError> {
            (**self).set_next_target_seq(seq)
        }
        fn incr_next_sender_seq(&mut self) -> Result<(), StoreError> {
            (**self).incr_next_sender_seq()
        }
        fn incr_next_target_seq(&mut self) -> Result<(), StoreError> {
            (**self).incr_next_target_seq()
        }
        fn creation_time(&self) -> i64 {
            (**self).creation_time()
        }
        fn store(&mut self, seq: u64, msg: &[u8]) -> Result<(), StoreError> {
            (**self).store(seq, msg)
        }
        fn for_each_in_range(
            &mut self,
            begin: u64,
            end: u64,
            visitor: &mut dyn FnMut(u64, &[u8]),
        ) -> Result<(), StoreError> {
            (**self).for_each_in_range(begin, end, visitor)
        }
        fn reset(&mut self, creation_time: i64) -> Result<(), StoreError> {
            (**self).reset(creation_time)
        }
        fn refresh(&mut self) -> Result<(), StoreError> {
            (**self).refresh()
        }
        fn commit(&mut self) -> Result<(), StoreError> {
            (**self).commit()
        }
        fn settle(&mut self) -> Result<(), StoreError> {
            (**self).settle()
        }
        fn sync(&mut self) -> Result<(), StoreError> {
            (**self).sync()
        }
        fn recovery(&self) -> Option<&Recovery> {
            (**self).recovery()
        }
        fn sync_interval(&self) -> Option<std::time::Duration> {
            (**self).sync_interval()
        }
        fn sync_if_due(&mut self) -> Result<bool, StoreError> {
            (**self).sync_if_due()
        }
        fn set_observer(&mut self, observer: Option<std::sync::Arc<dyn StoreObserver>>) {
            (**self).set_observer(observer)
        }
    };
}

impl<S: MessageStore + ?Sized> MessageStore for &mut S {
    forward_store!();
}

impl<S: MessageStore + ?Sized> MessageStore for Box<S> {
    forward_store!();
}

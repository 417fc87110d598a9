//! Proof, not claim: after warm-up, storing a message (and the sequence-number
//! updates and resend reads around it) allocates nothing, for the in-memory
//! store and for the file store under every fsync policy.
//!
//! The counting allocator counts the allocations of the thread under
//! measurement, so the test harness's own threads do not disturb the count.

mod common;

use common::{msg, T0};
use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MemoryStore, MessageStore};

#[global_allocator]
static GLOBAL: peregrine_alloc::CountingAllocator = peregrine_alloc::CountingAllocator;

/// Number of allocations `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> u64 {
    peregrine_alloc::allocations_in(f).1
}

const MESSAGES: u64 = 5_000;

/// Warms `store` up, then counts the allocations of a steady stream of
/// `MESSAGES` outgoing messages (store + increment), incoming messages
/// (increment), commits and a small resend every 100 messages.
fn steady_state<S: MessageStore>(store: &mut S, name: &str) {
    // Messages are prepared outside the counted region: encoding them is the
    // codec's job, not the store's.
    let msgs: Vec<Vec<u8>> = (0..2 * MESSAGES + 200).map(|s| msg(s, 1)).collect();
    let mut sum = 0usize;
    let mut visit = |seq: u64, m: &[u8]| sum += m.len() + seq as usize;

    // Warm-up: buffers reach their working size.
    for _ in 0..100 {
        let seq = store.next_sender_seq();
        store.store(seq, &msgs[seq as usize]).unwrap();
        store.incr_next_sender_seq().unwrap();
        store.incr_next_target_seq().unwrap();
        store.commit().unwrap();
    }
    store.for_each_in_range(1, u64::MAX, &mut visit).unwrap();

    let n = allocations(|| {
        for i in 0..MESSAGES {
            let seq = store.next_sender_seq();
            store.store(seq, &msgs[seq as usize]).unwrap();
            store.incr_next_sender_seq().unwrap();
            store.incr_next_target_seq().unwrap();
            // One commit per message, or per batch of seven.
            if i % 2 == 0 || i % 7 == 6 {
                store.commit().unwrap();
            }
            if i % 100 == 99 {
                store.for_each_in_range(seq - 20, seq, &mut visit).unwrap();
            }
        }
    });
    assert_eq!(n, 0, "{name}: {n} allocations in {MESSAGES} stores");
    assert!(sum > 0);

    // The counter itself works (a sanity check of this test).
    let n = allocations(|| drop(std::hint::black_box(vec![1u8; 16])));
    assert_eq!(n, 1);
}

#[test]
fn memory_store_stores_without_allocating() {
    let mut s = MemoryStore::with_capacity(T0, 0, 0);
    s.reserve(MESSAGES as usize + 200, (MESSAGES as usize + 200) * 256);
    steady_state(&mut s, "MemoryStore");
}

fn file_store(fsync: FsyncPolicy) {
    let dir = tempfile::tempdir().unwrap();
    let config = FileStoreConfig {
        index_capacity: MESSAGES as usize + 200,
        ..FileStoreConfig::with_fsync(fsync)
    };
    let mut s = FileStore::open(dir.path(), "FIX.4.4:A->B", config, T0).unwrap();
    steady_state(&mut s, &format!("FileStore {fsync:?}"));
}

#[test]
fn file_store_fsync_never_stores_without_allocating() {
    file_store(FsyncPolicy::Never);
}

#[test]
fn file_store_fsync_every_commit_stores_without_allocating() {
    file_store(FsyncPolicy::EveryCommit);
}

#[test]
fn file_store_fsync_every_millis_stores_without_allocating() {
    file_store(FsyncPolicy::EveryMillis(1));
}

/// A store given no capacity ahead (as the engine makes them) grows its
/// index past every point where a `Vec` would have doubled, and stores
/// without allocating once past its first 512 messages: from there the
/// index's room is reserved in a mapping (`mapped.rs`). (Before, the engine
/// journal's per-session index doubled on the way of the message that found
/// it full: BENCHMARKS.md §8's allocations per order.)
#[test]
fn stores_grow_their_index_without_allocating() {
    const GROWN: u64 = 40_000;
    const WARM: u64 = 600;
    let msgs: Vec<Vec<u8>> = (0..=GROWN + 200).map(|s| msg(s, 1)).collect();
    let grow = |store: &mut dyn MessageStore, name: &str| {
        for _ in 0..WARM {
            let seq = store.next_sender_seq();
            store.store(seq, &msgs[seq as usize]).unwrap();
            store.incr_next_sender_seq().unwrap();
            store.commit().unwrap();
            store.settle().unwrap();
        }
        let n = allocations(|| {
            for _ in WARM..GROWN {
                let seq = store.next_sender_seq();
                store.store(seq, &msgs[seq as usize]).unwrap();
                store.incr_next_sender_seq().unwrap();
                store.commit().unwrap();
                store.settle().unwrap();
            }
        });
        assert_eq!(n, 0, "{name}: {n} allocations growing to {GROWN} messages");
    };
    let dir = tempfile::tempdir().unwrap();
    let journal = peregrine_store::EngineJournal::open(
        dir.path(),
        peregrine_store::JournalConfig::with_fsync(FsyncPolicy::Never),
        T0,
    )
    .unwrap();
    let mut s = journal.session("FIX.4.4:GW->C1", T0).unwrap();
    grow(&mut s, "JournalStore");
    let dir = tempfile::tempdir().unwrap();
    let config = FileStoreConfig::with_fsync(FsyncPolicy::Never);
    let mut s = FileStore::open(dir.path(), "FIX.4.4:A->B", config, T0).unwrap();
    grow(&mut s, "FileStore");
}

/// Counts what a [`StoreObserver`](peregrine_store::StoreObserver) is told.
#[derive(Default)]
struct Timings {
    writes: std::sync::atomic::AtomicU64,
    fsyncs: std::sync::atomic::AtomicU64,
}

impl peregrine_store::StoreObserver for Timings {
    fn on_write(&self, took: std::time::Duration) {
        assert!(took < std::time::Duration::from_secs(60));
        self.writes
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    fn on_fsync(&self, _took: std::time::Duration) {
        self.fsyncs
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

#[test]
fn a_file_store_timing_its_writes_and_fsyncs_allocates_nothing_and_reports_each() {
    use std::sync::atomic::Ordering::Relaxed;
    let dir = tempfile::tempdir().unwrap();
    let config = FileStoreConfig {
        index_capacity: MESSAGES as usize + 200,
        ..FileStoreConfig::with_fsync(FsyncPolicy::EveryCommit)
    };
    let mut s = FileStore::open(dir.path(), "FIX.4.4:A->B", config, T0).unwrap();
    let timings = std::sync::Arc::new(Timings::default());
    s.set_observer(Some(timings.clone()));
    steady_state(&mut s, "FileStore with an observer");
    // Every commit wrote once and fsynced once (the buffer never filled).
    let commits = s.stats().commits;
    assert!(commits > 2_000, "{commits}");
    assert_eq!(timings.writes.load(Relaxed), commits);
    assert_eq!(timings.fsyncs.load(Relaxed), s.stats().journal_fsyncs);
    // Without an observer, nothing more is heard.
    s.set_observer(None);
    s.store(s.next_sender_seq(), b"x").unwrap();
    s.incr_next_sender_seq().unwrap();
    s.commit().unwrap();
    assert_eq!(timings.writes.load(Relaxed), commits);
}

/// Stores `n` messages from the next sequence number on, committing each,
/// and calling `settle` after each commit if `settle`.
fn send<S: MessageStore>(store: &mut S, msgs: &[Vec<u8>], n: u64, settle: bool) {
    for _ in 0..n {
        let seq = store.next_sender_seq();
        store.store(seq, &msgs[seq as usize]).unwrap();
        store.incr_next_sender_seq().unwrap();
        store.commit().unwrap();
        if settle {
            store.settle().unwrap();
        }
    }
}

#[test]
fn settle_keeps_room_so_that_the_next_messages_do_not_grow_the_store() {
    // The growth a busy session's store must make (its index, the memory
    // store's arena) happens in `settle`, after the messages have left: the
    // next messages (up to a quarter of what the store holds, at most 16 KiB
    // of arena and 512 index entries) are stored without an allocation
    // (without settle, the index doubles at 1,024 entries on their way).
    let msgs: Vec<Vec<u8>> = (0..1_400).map(|s| msg(s, 1)).collect();
    let dir = tempfile::tempdir().unwrap();
    let config = FileStoreConfig {
        index_capacity: 0,
        ..FileStoreConfig::with_fsync(FsyncPolicy::Never)
    };
    let mut file = FileStore::open(dir.path(), "FIX.4.4:A->B", config, T0).unwrap();
    let mut memory = MemoryStore::new(T0);
    send(&mut file, &msgs, 1_000, true);
    send(&mut memory, &msgs, 1_000, true);
    assert_eq!(
        allocations(|| send(&mut file, &msgs, 100, false)),
        0,
        "file"
    );
    assert_eq!(
        allocations(|| send(&mut memory, &msgs, 100, false)),
        0,
        "memory"
    );
}

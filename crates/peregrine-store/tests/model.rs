//! Property test: on random sequences of operations, including commits,
//! crashes (a re-open without a commit), refreshes and resets, the FileStore
//! behaves exactly like the in-memory store of the same operations, where a
//! crash returns to the state of the last commit (or reset).

mod common;

use common::{collect, T0};
use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MemoryStore, MessageStore};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Store(u64, usize, u8),
    SetSender(u64),
    SetTarget(u64),
    IncrSender,
    IncrTarget,
    Reset(i64),
    Reopen,
    Refresh,
    Sync,
    Commit,
    Range(u64, u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (1u64..40, 0usize..60, any::<u8>()).prop_map(|(s, l, b)| Op::Store(s, l, b)),
        1 => (1u64..45).prop_map(Op::SetSender),
        1 => (1u64..45).prop_map(Op::SetTarget),
        3 => Just(Op::IncrSender),
        2 => Just(Op::IncrTarget),
        1 => (0i64..1000).prop_map(Op::Reset),
        2 => Just(Op::Reopen),
        1 => Just(Op::Refresh),
        1 => Just(Op::Sync),
        3 => Just(Op::Commit),
        3 => (0u64..45, prop_oneof![0u64..45, Just(u64::MAX)]).prop_map(|(b, e)| Op::Range(b, e)),
    ]
}

fn payload(len: usize, byte: u8) -> Vec<u8> {
    (0..len).map(|i| byte.wrapping_add(i as u8)).collect()
}

/// A copy of `m` (what a commit makes durable).
fn snapshot(m: &mut MemoryStore) -> MemoryStore {
    let mut c = MemoryStore::new(m.creation_time());
    for (seq, msg) in collect(m, 1, u64::MAX) {
        c.store(seq, &msg).unwrap();
    }
    c.set_next_sender_seq(m.next_sender_seq()).unwrap();
    c.set_next_target_seq(m.next_target_seq()).unwrap();
    c
}

fn assert_same(file: &mut FileStore, model: &mut MemoryStore) -> Result<(), TestCaseError> {
    prop_assert_eq!(file.next_sender_seq(), model.next_sender_seq());
    prop_assert_eq!(file.next_target_seq(), model.next_target_seq());
    prop_assert_eq!(file.creation_time(), model.creation_time());
    prop_assert_eq!(file.len(), model.len());
    prop_assert_eq!(collect(file, 1, u64::MAX), collect(model, 1, u64::MAX));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn file_store_matches_memory_store(
        ops in proptest::collection::vec(op(), 1..60),
        read_chunk in prop_oneof![Just(1usize), Just(100), Just(65536)],
    ) {
        let dir = tempfile::tempdir().unwrap();
        let config = FileStoreConfig { read_chunk, ..FileStoreConfig::with_fsync(FsyncPolicy::Never) };
        let open = || FileStore::open(dir.path(), "FIX.4.2:A->B", config, T0).unwrap();
        let mut file = open();
        let mut model = MemoryStore::new(T0);
        // What the last commit made durable.
        let mut durable = MemoryStore::new(T0);

        for op in ops {
            match op {
                Op::Store(seq, len, b) => {
                    let m = payload(len, b);
                    file.store(seq, &m).unwrap();
                    model.store(seq, &m).unwrap();
                }
                Op::SetSender(q) => {
                    file.set_next_sender_seq(q).unwrap();
                    model.set_next_sender_seq(q).unwrap();
                }
                Op::SetTarget(q) => {
                    file.set_next_target_seq(q).unwrap();
                    model.set_next_target_seq(q).unwrap();
                }
                Op::IncrSender => {
                    file.incr_next_sender_seq().unwrap();
                    model.incr_next_sender_seq().unwrap();
                }
                Op::IncrTarget => {
                    file.incr_next_target_seq().unwrap();
                    model.incr_next_target_seq().unwrap();
                }
                Op::Reset(t) => {
                    file.reset(t).unwrap();
                    model.reset(t).unwrap();
                    durable = snapshot(&mut model);
                }
                Op::Reopen => {
                    drop(file);
                    file = open();
                    prop_assert!(file.recovery().losses.is_empty());
                    model = snapshot(&mut durable);
                }
                Op::Refresh | Op::Sync | Op::Commit => {
                    match op {
                        Op::Refresh => file.refresh().unwrap(),
                        Op::Sync => file.sync().unwrap(),
                        _ => file.commit().unwrap(),
                    }
                    durable = snapshot(&mut model);
                }
                Op::Range(b, e) => {
                    prop_assert_eq!(collect(&mut file, b, e), collect(&mut model, b, e));
                }
            }
            assert_same(&mut file, &mut model)?;
        }
        drop(file);
        let mut file = open();
        assert_same(&mut file, &mut durable)?;
    }
}

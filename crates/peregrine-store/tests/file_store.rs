//! FileStore behaviour beyond the common contract: persistence across
//! re-opens, the directory layout, the seqnums slots, interrupted resets,
//! foreign files, and the fsync policies.

mod common;

use std::fs;
use std::time::Duration;

use common::{collect, msg, open_file, seqs, T0};
use peregrine_store::{
    sanitize_session_id, FileStore, FileStoreConfig, FsyncPolicy, MemoryStore, MessageStore,
    StoreError, JOURNAL_FILE, SEQNUMS_FILE, SEQ_END,
};

#[test]
fn reopen_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut s = open_file(dir.path(), FsyncPolicy::Never);
        for seq in 1..=50 {
            s.store(seq, &msg(seq, 3)).unwrap();
            s.incr_next_sender_seq().unwrap();
        }
        s.set_next_target_seq(77).unwrap();
    }
    let later = T0 + 1_000_000_000; // a later clock must not change creation time
    let mut s = FileStore::open(
        dir.path(),
        "FIX.4.4:SENDER->TARGET",
        FileStoreConfig::default(),
        later,
    )
    .unwrap();
    assert_eq!(s.next_sender_seq(), 51);
    assert_eq!(s.next_target_seq(), 77);
    assert_eq!(s.creation_time(), T0);
    assert_eq!(s.len(), 50);
    let got = collect(&mut s, 1, SEQ_END);
    assert_eq!(got.len(), 50);
    for (seq, m) in got {
        assert_eq!(m, msg(seq, 3));
    }
    // Appends after a reopen land after the recovered records.
    s.store(51, b"fifty-one").unwrap();
    s.incr_next_sender_seq().unwrap();
    drop(s);
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    assert_eq!(seqs(&mut s, 49, SEQ_END), [49, 50, 51]);
    assert_eq!(s.next_sender_seq(), 52);
}

#[test]
fn reopen_after_reset() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut s = open_file(dir.path(), FsyncPolicy::EveryMessage);
        for seq in 1..=5 {
            s.store(seq, &msg(seq, 0)).unwrap();
        }
        s.set_next_sender_seq(6).unwrap();
        s.reset(T0 + 5).unwrap();
        s.store(1, b"new life").unwrap();
        s.incr_next_sender_seq().unwrap();
    }
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    assert_eq!(s.creation_time(), T0 + 5);
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (2, 1));
    assert_eq!(collect(&mut s, 1, SEQ_END), [(1, b"new life".to_vec())]);
}

#[test]
fn crash_between_store_and_incr_does_not_reuse_the_seq_num() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut s = open_file(dir.path(), FsyncPolicy::EveryMessage);
        s.store(1, b"one").unwrap();
        s.incr_next_sender_seq().unwrap();
        s.store(2, b"two").unwrap();
        // process dies here, before incr_next_sender_seq
    }
    let mut s = open_file(dir.path(), FsyncPolicy::EveryMessage);
    assert_eq!(s.next_sender_seq(), 3, "seq 2 is taken by a stored message");
    assert_eq!(seqs(&mut s, 1, SEQ_END), [1, 2]);

    // An explicit lowering after the store is respected, not undone.
    s.set_next_sender_seq(2).unwrap();
    drop(s);
    let s = open_file(dir.path(), FsyncPolicy::EveryMessage);
    assert_eq!(s.next_sender_seq(), 2);
}

#[test]
fn session_directories() {
    assert_eq!(sanitize_session_id("FIX.4.4-A-B"), "FIX.4.4-A-B");
    let a = sanitize_session_id("FIX.4.4:A->B");
    let b = sanitize_session_id("FIX.4.4:A-_B");
    let c = sanitize_session_id("FIX.4.4_A-_B");
    assert!(a.starts_with("FIX.4.4_A-_B~"), "{a}");
    assert_ne!(a, b);
    assert_ne!(b, c);
    for id in ["", ".", "..", "../../etc", "a/b\\c", "ü", &"x".repeat(500)] {
        let s = sanitize_session_id(id);
        assert!(!s.is_empty() && s.len() <= 120, "{id:?} -> {s:?}");
        assert!(s != "." && s != "..");
        assert!(s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-~".contains(c)));
    }

    let base = tempfile::tempdir().unwrap();
    let s1 = FileStore::open(base.path(), "../escape", FileStoreConfig::default(), T0).unwrap();
    let s2 = FileStore::open(base.path(), "FIX.4.4:A->B", FileStoreConfig::default(), T0).unwrap();
    assert_eq!(s1.dir().parent().unwrap(), base.path());
    assert_eq!(s2.dir().parent().unwrap(), base.path());
    assert_ne!(s1.dir(), s2.dir());
    assert!(s1.journal_path().ends_with(JOURNAL_FILE));
    assert!(s1.seqnums_path().ends_with(SEQNUMS_FILE));
    assert!(format!("{s1:?}").contains("FileStore"));
}

#[test]
fn refresh_rereads_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = open_file(dir.path(), FsyncPolicy::Never);
    let mut reader = open_file(dir.path(), FsyncPolicy::Never);
    writer.store(1, b"one").unwrap();
    writer.incr_next_sender_seq().unwrap();
    writer.set_next_target_seq(5).unwrap();
    assert_eq!(reader.next_sender_seq(), 1);
    reader.refresh().unwrap();
    assert_eq!(reader.next_sender_seq(), 2);
    assert_eq!(reader.next_target_seq(), 5);
    assert_eq!(collect(&mut reader, 1, SEQ_END), [(1, b"one".to_vec())]);
}

#[test]
fn torn_seqnums_slot_falls_back_to_the_previous_state() {
    let dir = tempfile::tempdir().unwrap();
    let path;
    {
        let mut s = open_file(dir.path(), FsyncPolicy::Never);
        s.set_next_target_seq(10).unwrap();
        s.set_next_target_seq(11).unwrap();
        path = s.seqnums_path().to_path_buf();
    }
    let bytes = fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 128);
    // Find the newest slot by trying both: tear one, see which state remains.
    let mut outcomes = Vec::new();
    for slot in 0..2 {
        let mut torn = bytes.clone();
        for b in &mut torn[slot * 64 + 20..slot * 64 + 64] {
            *b = 0;
        }
        fs::write(&path, &torn).unwrap();
        let s = open_file(dir.path(), FsyncPolicy::Never);
        outcomes.push(s.next_target_seq());
    }
    outcomes.sort_unstable();
    assert_eq!(
        outcomes,
        [10, 11],
        "one slot torn: the other state survives"
    );
}

#[test]
fn interrupted_reset_empties_the_stale_journal() {
    let dir = tempfile::tempdir().unwrap();
    let journal;
    let old_journal;
    {
        let mut s = open_file(dir.path(), FsyncPolicy::EveryMessage);
        for seq in 1..=3 {
            s.store(seq, &msg(seq, 0)).unwrap();
            s.incr_next_sender_seq().unwrap();
        }
        journal = s.journal_path().to_path_buf();
        old_journal = fs::read(&journal).unwrap();
        s.reset(T0 + 9).unwrap();
    }
    // Simulate a crash after the seqnums slot of the reset was written but
    // before the journal was truncated.
    fs::write(&journal, &old_journal).unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    assert_eq!(s.creation_time(), T0 + 9);
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (1, 1));
    assert!(collect(&mut s, 1, SEQ_END).is_empty());
    assert_eq!(fs::metadata(&journal).unwrap().len(), 16);

    // A journal cut to below its header (crash during creation or reset).
    drop(s);
    fs::write(&journal, b"PGRN").unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    assert!(collect(&mut s, 1, SEQ_END).is_empty());
    s.store(1, b"ok").unwrap();
}

#[test]
fn foreign_files_are_reported_not_wiped() {
    let dir = tempfile::tempdir().unwrap();
    let (journal, seqnums) = {
        let mut s = open_file(dir.path(), FsyncPolicy::Never);
        s.store(1, b"one").unwrap();
        (
            s.journal_path().to_path_buf(),
            s.seqnums_path().to_path_buf(),
        )
    };
    let good = fs::read(&journal).unwrap();

    // Not a journal at all.
    fs::write(&journal, vec![b'z'; 100]).unwrap();
    let err = FileStore::open(
        dir.path(),
        "FIX.4.4:SENDER->TARGET",
        FileStoreConfig::default(),
        T0,
    )
    .unwrap_err();
    assert!(
        matches!(err, StoreError::Corrupt { offset: 0, .. }),
        "{err}"
    );
    assert_eq!(fs::read(&journal).unwrap(), vec![b'z'; 100]);

    // A journal with records but no sequence numbers.
    fs::write(&journal, &good).unwrap();
    fs::remove_file(&seqnums).unwrap();
    let err = FileStore::open(
        dir.path(),
        "FIX.4.4:SENDER->TARGET",
        FileStoreConfig::default(),
        T0,
    )
    .unwrap_err();
    assert!(err.to_string().contains("sequence-number"), "{err}");
    assert_eq!(fs::read(&journal).unwrap(), good);
}

#[test]
fn bit_rot_is_detected_on_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    for seq in 1..=3 {
        s.store(seq, &msg(seq, 0)).unwrap();
    }
    let mut bytes = fs::read(s.journal_path()).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    fs::write(s.journal_path(), &bytes).unwrap();
    let err = s.for_each_in_range(1, SEQ_END, &mut |_, _| {}).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("corrupt"));
}

#[test]
fn io_errors_carry_context_and_source() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    fs::write(&file, b"").unwrap();
    let err = FileStore::open_dir(file.join("x"), FileStoreConfig::default(), T0).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("create store directory"), "{text}");
    assert!(std::error::Error::source(&err).is_some());
}

#[test]
fn every_millis_policy_and_sync_if_due() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::EveryMillis(40));
    assert!(!s.sync_if_due().unwrap(), "nothing dirty");
    s.store(1, b"one").unwrap();
    // Within the interval: not synced yet, and not due.
    assert!(!s.sync_if_due().unwrap());
    std::thread::sleep(Duration::from_millis(50));
    assert!(s.sync_if_due().unwrap(), "dirty and due");
    assert!(!s.sync_if_due().unwrap(), "clean again");
    // A store after the interval syncs inside the call.
    std::thread::sleep(Duration::from_millis(50));
    s.store(2, b"two").unwrap();
    assert!(!s.sync_if_due().unwrap());

    let mut never = open_file(tempfile::tempdir().unwrap().path(), FsyncPolicy::Never);
    never.store(1, b"x").unwrap();
    assert!(!never.sync_if_due().unwrap());
    never.sync().unwrap();
    assert_eq!(
        *never.config(),
        FileStoreConfig::with_fsync(FsyncPolicy::Never)
    );
}

#[test]
fn a_resend_reads_only_the_records_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    for seq in 1..=5 {
        s.store(seq, &msg(seq, 3)).unwrap();
    }
    // Damage the first and the last record on disk (after the index was built):
    // a read that touched them would fail its CRC check.
    let mut bytes = fs::read(s.journal_path()).unwrap();
    let first_payload = 16 + 20; // journal header, record header
    bytes[first_payload + 4] ^= 0x20;
    let n = bytes.len();
    bytes[n - 3] ^= 0x20;
    fs::write(s.journal_path(), &bytes).unwrap();
    let mut got = Vec::new();
    s.for_each_in_range(2, 4, &mut |seq, m| got.push((seq, m.to_vec())))
        .unwrap();
    let want: Vec<(u64, Vec<u8>)> = (2..=4).map(|q| (q, msg(q, 3))).collect();
    assert_eq!(got, want);
    // The damaged ones are caught when they are asked for.
    for (begin, end) in [(1, 1), (5, 5), (4, 5)] {
        let err = s.for_each_in_range(begin, end, &mut |_, _| {}).unwrap_err();
        assert!(matches!(err, StoreError::Corrupt { .. }), "{begin}..{end}");
    }
}

#[test]
fn the_time_based_fsync_policy_is_visible_through_the_trait() {
    let dir = tempfile::tempdir().unwrap();
    let mut boxed: Box<dyn MessageStore> =
        Box::new(open_file(dir.path(), FsyncPolicy::EveryMillis(40)));
    assert_eq!(boxed.sync_interval(), Some(Duration::from_millis(40)));
    boxed.store(1, b"one").unwrap();
    assert!(!boxed.sync_if_due().unwrap(), "within the interval");
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        boxed.sync_if_due().unwrap(),
        "dirty and due, through the trait"
    );
    let other = tempfile::tempdir().unwrap();
    let mut every: Box<dyn MessageStore> =
        Box::new(open_file(other.path(), FsyncPolicy::EveryMessage));
    assert_eq!(every.sync_interval(), None);
    every.store(1, b"one").unwrap();
    assert!(!every.sync_if_due().unwrap());
    let mut memory: Box<dyn MessageStore> = Box::new(MemoryStore::new(T0));
    assert_eq!(memory.sync_interval(), None);
    assert!(!memory.sync_if_due().unwrap());
}

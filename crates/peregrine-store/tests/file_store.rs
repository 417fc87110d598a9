//! FileStore behaviour beyond the common contract: persistence across
//! re-opens (of what was committed, and only that), the directory layout, the
//! witness slots, interrupted resets, foreign files, the fsync policies, and
//! format-1 journals.

mod common;

use std::fs;
use std::time::Duration;

use common::{collect, msg, open_file, open_with, send_msgs, seqs, store_msgs, T0};
use peregrine_store::{
    sanitize_session_id, FileStore, FileStoreConfig, FsyncPolicy, LossKind, MemoryStore,
    MessageStore, OnDamage, StoreError, JOURNAL_FILE, SEQNUMS_FILE, SEQ_END,
};

#[test]
fn reopen_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut s = open_file(dir.path(), FsyncPolicy::Never);
        send_msgs(&mut s, 50, 3);
        s.set_next_target_seq(77).unwrap();
        s.commit().unwrap();
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
    s.commit().unwrap();
    drop(s);
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    assert_eq!(seqs(&mut s, 49, SEQ_END), [49, 50, 51]);
    assert_eq!(s.next_sender_seq(), 52);
}

#[test]
fn reopen_after_reset() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut s = open_file(dir.path(), FsyncPolicy::EveryCommit);
        store_msgs(&mut s, 5, 0);
        s.set_next_sender_seq(6).unwrap();
        s.reset(T0 + 5).unwrap();
        s.store(1, b"new life").unwrap();
        s.incr_next_sender_seq().unwrap();
        s.commit().unwrap();
    }
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    assert_eq!(s.creation_time(), T0 + 5);
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (2, 1));
    assert_eq!(collect(&mut s, 1, SEQ_END), [(1, b"new life".to_vec())]);
}

#[test]
fn what_was_not_committed_is_gone_after_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut s = open_file(dir.path(), FsyncPolicy::EveryCommit);
        s.store(1, b"one").unwrap();
        s.incr_next_sender_seq().unwrap();
        s.incr_next_target_seq().unwrap();
        s.commit().unwrap();
        s.store(2, b"two").unwrap();
        s.incr_next_sender_seq().unwrap();
        s.incr_next_target_seq().unwrap();
        // Read back before the commit: written ahead, still uncommitted.
        assert_eq!(seqs(&mut s, 1, SEQ_END), [1, 2]);
        // The process dies here, before the commit: message 2 was never
        // acknowledged, so it never left; neither did the incoming number.
    }
    let mut s = open_file(dir.path(), FsyncPolicy::EveryCommit);
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (2, 2));
    assert_eq!(seqs(&mut s, 1, SEQ_END), [1]);
    assert!(s.recovery().uncommitted_bytes > 0);
    assert!(s.recovery().losses.is_empty());

    // An explicit lowering, committed, is respected.
    s.store(2, b"two again").unwrap();
    s.set_next_sender_seq(3).unwrap();
    s.commit().unwrap();
    s.set_next_sender_seq(2).unwrap();
    s.commit().unwrap();
    drop(s);
    let mut s = open_file(dir.path(), FsyncPolicy::EveryCommit);
    assert_eq!(s.next_sender_seq(), 2);
    assert_eq!(collect(&mut s, 2, 2), [(2, b"two again".to_vec())]);
    assert_eq!(s.recovery().uncommitted_bytes, 0);
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
    writer.commit().unwrap();
    assert_eq!(reader.next_sender_seq(), 1);
    reader.refresh().unwrap();
    assert_eq!(reader.next_sender_seq(), 2);
    assert_eq!(reader.next_target_seq(), 5);
    assert_eq!(collect(&mut reader, 1, SEQ_END), [(1, b"one".to_vec())]);
}

#[test]
fn the_witness_is_not_needed_for_the_numbers_but_reveals_a_cut_journal() {
    let dir = tempfile::tempdir().unwrap();
    let (journal, seqnums, cut_at) = {
        let mut s = open_file(dir.path(), FsyncPolicy::Never);
        for seq in 1..=3 {
            s.store(seq, &msg(seq, 1)).unwrap();
            s.incr_next_sender_seq().unwrap();
            s.commit().unwrap();
        }
        let cut_at = s.journal_len();
        s.store(4, &msg(4, 1)).unwrap();
        s.incr_next_sender_seq().unwrap();
        s.set_next_target_seq(11).unwrap();
        s.commit().unwrap();
        (
            s.journal_path().to_path_buf(),
            s.seqnums_path().to_path_buf(),
            cut_at,
        )
    };
    let full = fs::read(&journal).unwrap();
    let witness = fs::read(&seqnums).unwrap();
    assert_eq!(witness.len(), 128);

    // Either slot torn, or the witness gone: the journal has the numbers.
    for slot in 0..3 {
        let mut torn = witness.clone();
        if slot < 2 {
            torn[slot * 64 + 20..slot * 64 + 64].fill(0);
            fs::write(&seqnums, &torn).unwrap();
        } else {
            fs::remove_file(&seqnums).unwrap();
        }
        let mut s = open_file(dir.path(), FsyncPolicy::Never);
        assert_eq!(
            (s.next_sender_seq(), s.next_target_seq()),
            (5, 11),
            "{slot}"
        );
        assert_eq!(seqs(&mut s, 1, SEQ_END), [1, 2, 3, 4]);
        assert!(s.recovery().losses.is_empty());
        drop(s);
        fs::write(&journal, &full).unwrap();
        fs::write(&seqnums, &witness).unwrap();
    }

    // The journal cut after the third commit, at a record boundary: nothing
    // in the journal says so, the witness does. Refused by default, with the
    // files left as they were.
    fs::write(&journal, &full[..cut_at as usize]).unwrap();
    let err = open_with(dir.path(), FileStoreConfig::default()).unwrap_err();
    let StoreError::Damaged { losses, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(losses.len(), 1);
    assert_eq!(losses[0].kind, LossKind::Truncated);
    assert_eq!(losses[0].seqs, Some((4, 4)));
    assert!(err.to_string().contains("message 4 lost"), "{err}");
    assert_eq!(fs::read(&journal).unwrap(), &full[..cut_at as usize]);

    // Reported: the numbers continue after the witness's (4 is not used
    // again), the loss is said once, and the journal is rewritten clean.
    let config = FileStoreConfig {
        on_damage: OnDamage::Report,
        ..FileStoreConfig::default()
    };
    let mut s = open_with(dir.path(), config).unwrap();
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (5, 11));
    assert_eq!(s.recovery().lost_messages(), 1);
    assert!(s.recovery().rewritten);
    assert_eq!(seqs(&mut s, 1, SEQ_END), [1, 2, 3]);
    drop(s);
    let s = open_file(dir.path(), FsyncPolicy::Never);
    assert!(s.recovery().losses.is_empty(), "reported once");
    assert_eq!(s.next_sender_seq(), 5);
}

/// Simulator finding (full profile seed 103): an operator may lower a
/// sequence number (`set_next_target_seq` below the current one). When the
/// witness slot of that commit is torn, open falls back to the older slot,
/// whose numbers are higher than the journal's last commit. The journal is
/// ahead of that slot, not behind it: nothing was lost, and the lowered
/// numbers are the store's.
#[test]
fn numbers_lowered_by_the_last_commit_survive_a_torn_witness() {
    for fsync in [FsyncPolicy::EveryCommit, FsyncPolicy::Never] {
        let dir = tempfile::tempdir().unwrap();
        let seqnums = {
            let mut s = open_file(dir.path(), fsync);
            send_msgs(&mut s, 3, 1);
            s.set_next_target_seq(800).unwrap();
            s.commit().unwrap();
            s.set_next_target_seq(716).unwrap();
            s.set_next_sender_seq(2).unwrap();
            s.commit().unwrap();
            s.seqnums_path().to_path_buf()
        };
        // The slot written last is the one holding the higher generation.
        let mut witness = fs::read(&seqnums).unwrap();
        let generation = |slot: usize| {
            u64::from_le_bytes(witness[slot * 64 + 8..slot * 64 + 16].try_into().unwrap())
        };
        let newest = if generation(1) > generation(0) { 1 } else { 0 };
        witness[newest * 64 + 20..newest * 64 + 64].fill(0xA5);
        fs::write(&seqnums, &witness).unwrap();

        let mut s = open_with(dir.path(), FileStoreConfig::with_fsync(fsync))
            .unwrap_or_else(|e| panic!("{fsync:?}: {e}"));
        assert_eq!((s.next_sender_seq(), s.next_target_seq()), (2, 716));
        assert!(s.recovery().losses.is_empty(), "{:?}", s.recovery());
        assert_eq!(seqs(&mut s, 1, SEQ_END), [1, 2, 3]);
    }
}

#[test]
fn interrupted_reset_empties_the_stale_journal() {
    let dir = tempfile::tempdir().unwrap();
    let journal;
    let old_journal;
    {
        let mut s = open_file(dir.path(), FsyncPolicy::EveryCommit);
        send_msgs(&mut s, 3, 0);
        s.commit().unwrap();
        journal = s.journal_path().to_path_buf();
        old_journal = fs::read(&journal).unwrap();
        s.reset(T0 + 9).unwrap();
    }
    // Simulate a crash after the witness of the reset was written but
    // before the journal was emptied.
    fs::write(&journal, &old_journal).unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    assert_eq!(s.creation_time(), T0 + 9);
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (1, 1));
    assert!(collect(&mut s, 1, SEQ_END).is_empty());
    assert_eq!(fs::metadata(&journal).unwrap().len(), 32 + 24);

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
        s.incr_next_sender_seq().unwrap();
        s.commit().unwrap();
        (
            s.journal_path().to_path_buf(),
            s.seqnums_path().to_path_buf(),
        )
    };
    let good = fs::read(&journal).unwrap();

    // Not a journal at all.
    fs::write(&journal, vec![b'z'; 100]).unwrap();
    let err = open_with(dir.path(), FileStoreConfig::default()).unwrap_err();
    assert!(
        matches!(err, StoreError::Corrupt { offset: 0, .. }),
        "{err}"
    );
    assert_eq!(fs::read(&journal).unwrap(), vec![b'z'; 100]);

    // A journal with records but no witness: the journal has the numbers.
    fs::write(&journal, &good).unwrap();
    fs::remove_file(&seqnums).unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    assert_eq!(s.next_sender_seq(), 2);
    assert_eq!(collect(&mut s, 1, SEQ_END), [(1, b"one".to_vec())]);
    drop(s);

    // No witness and no journal header: not ours to wipe.
    fs::write(&journal, vec![b'z'; 100]).unwrap();
    fs::remove_file(&seqnums).unwrap();
    let err = open_with(dir.path(), FileStoreConfig::default()).unwrap_err();
    assert!(err.to_string().contains("not a Peregrine journal"), "{err}");
    assert_eq!(fs::read(&journal).unwrap(), vec![b'z'; 100]);
}

#[test]
fn bit_rot_is_detected_on_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    store_msgs(&mut s, 3, 0);
    s.commit().unwrap();
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
    s.commit().unwrap();
    // Within the interval: not synced yet, and not due.
    assert!(!s.sync_if_due().unwrap());
    std::thread::sleep(Duration::from_millis(50));
    assert!(s.sync_if_due().unwrap(), "dirty and due");
    assert!(!s.sync_if_due().unwrap(), "clean again");
    // A commit after the interval syncs inside the call.
    std::thread::sleep(Duration::from_millis(50));
    s.store(2, b"two").unwrap();
    s.commit().unwrap();
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
    store_msgs(&mut s, 5, 3);
    s.commit().unwrap();
    // Damage the first and the last record on disk (after the index was built):
    // a read that touched them would fail its CRC check.
    let mut bytes = fs::read(s.journal_path()).unwrap();
    let first_payload = 32 + 24 + 20; // journal header, first commit, record header
    bytes[first_payload + 4] ^= 0x20;
    let n = bytes.len() - 24; // before the last commit record
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
    boxed.commit().unwrap();
    assert!(!boxed.sync_if_due().unwrap(), "within the interval");
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        boxed.sync_if_due().unwrap(),
        "dirty and due, through the trait"
    );
    let other = tempfile::tempdir().unwrap();
    let mut every: Box<dyn MessageStore> =
        Box::new(open_file(other.path(), FsyncPolicy::EveryCommit));
    assert_eq!(every.sync_interval(), None);
    every.store(1, b"one").unwrap();
    assert!(!every.sync_if_due().unwrap());
    let mut memory: Box<dyn MessageStore> = Box::new(MemoryStore::new(T0));
    assert_eq!(memory.sync_interval(), None);
    assert!(!memory.sync_if_due().unwrap());
}

/// A format-1 store (journal of message records with a 16-byte header, the
/// numbers in a version-1 slot) as an earlier Peregrine wrote it.
fn write_format_1(dir: &std::path::Path, records: &[(u64, &[u8])], slot_journal_end: Option<u64>) {
    let session = dir.join(sanitize_session_id("FIX.4.4:SENDER->TARGET"));
    fs::create_dir_all(&session).unwrap();
    let mut j = b"PGRNJRN1".to_vec();
    j.extend_from_slice(&3u64.to_le_bytes()); // epoch
    for (seq, payload) in records {
        let mut h = Vec::new();
        h.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        h.extend_from_slice(&seq.to_le_bytes());
        let mut crc = crc32fast::Hasher::new();
        crc.update(&h);
        crc.update(payload);
        j.extend_from_slice(b"PGER");
        j.extend_from_slice(&h);
        j.extend_from_slice(&crc.finalize().to_le_bytes());
        j.extend_from_slice(payload);
    }
    let end = slot_journal_end.unwrap_or(j.len() as u64);
    let mut slot = [0u8; 64];
    slot[0..4].copy_from_slice(b"PSEQ");
    slot[4..8].copy_from_slice(&1u32.to_le_bytes());
    slot[8..16].copy_from_slice(&9u64.to_le_bytes()); // generation
    slot[16..24].copy_from_slice(&3u64.to_le_bytes()); // epoch
    slot[24..32].copy_from_slice(&3u64.to_le_bytes()); // next sender
    slot[32..40].copy_from_slice(&8u64.to_le_bytes()); // next target
    slot[40..48].copy_from_slice(&T0.to_le_bytes());
    slot[48..56].copy_from_slice(&end.to_le_bytes());
    let crc = crc32fast::hash(&slot[..56]);
    slot[56..60].copy_from_slice(&crc.to_le_bytes());
    let mut seqnums = vec![0u8; 128];
    seqnums[64..].copy_from_slice(&slot); // generation 9 lives in slot 1
    fs::write(session.join(JOURNAL_FILE), &j).unwrap();
    fs::write(session.join(SEQNUMS_FILE), &seqnums).unwrap();
}

#[test]
fn a_format_1_store_is_converted_on_open() {
    let dir = tempfile::tempdir().unwrap();
    write_format_1(dir.path(), &[(1, b"one"), (2, b"two")], None);
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    assert!(s.recovery().rewritten);
    assert!(s.recovery().losses.is_empty());
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (3, 8));
    assert_eq!(s.creation_time(), T0);
    assert_eq!(
        collect(&mut s, 1, SEQ_END),
        [(1, b"one".to_vec()), (2, b"two".to_vec())]
    );
    s.store(3, b"three").unwrap();
    s.incr_next_sender_seq().unwrap();
    s.commit().unwrap();
    drop(s);
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    assert!(!s.recovery().rewritten, "format 2 now");
    assert_eq!(seqs(&mut s, 1, SEQ_END), [1, 2, 3]);
    assert_eq!(s.next_sender_seq(), 4);

    // Format 1's rule for a record stored after the slot was written: its
    // number is taken.
    let dir = tempfile::tempdir().unwrap();
    write_format_1(
        dir.path(),
        &[(1, b"one"), (2, b"two"), (3, b"three")],
        Some(16 + 23),
    );
    let s = open_file(dir.path(), FsyncPolicy::Never);
    assert_eq!(s.next_sender_seq(), 4);
}

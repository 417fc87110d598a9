//! Crash recovery and damage in the FileStore journal.
//!
//! A crash leaves at most an uncommitted transaction at the end of the
//! journal: cut at every byte, or with garbage in place of the missing bytes,
//! it is cut off and nothing acknowledged is lost. Damage anywhere inside the
//! committed journal costs only the damaged records: every intact record
//! after it is kept, and what was lost is said (refused by default, reported
//! with [`OnDamage::Report`]).

mod common;

use std::fs;
use std::path::Path;

use common::{collect, msg, open_file, open_with, seqs};
use peregrine_store::{
    FileStore, FileStoreConfig, FsyncPolicy, LossKind, MessageStore, OnDamage, StoreError, SEQ_END,
};
use peregrine_testkit::Rng;

const N: u64 = 5;
const HEADER: usize = 32;
const COMMIT: usize = 24;
const RECORD: usize = 20;

fn report() -> FileStoreConfig {
    FileStoreConfig {
        on_damage: OnDamage::Report,
        ..FileStoreConfig::with_fsync(FsyncPolicy::Never)
    }
}

/// A store with messages 1..N-1 committed one per transaction, then message
/// N stored and the numbers moved but not committed (a crash before the
/// commit). Returns (dir, journal path, the committed journal, the journal
/// with the uncommitted transaction written ahead, the witness file).
fn build() -> (
    tempfile::TempDir,
    std::path::PathBuf,
    Vec<u8>,
    Vec<u8>,
    Vec<u8>,
) {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::EveryCommit);
    for seq in 1..N {
        s.store(seq, &msg(seq, 0)).unwrap();
        s.incr_next_sender_seq().unwrap();
        s.incr_next_target_seq().unwrap();
        s.commit().unwrap();
    }
    // As a session does once the last commit's messages have left (the
    // witness; the zeros it writes ahead are left out of these files: the
    // tests below place every byte themselves).
    s.settle().unwrap();
    let path = s.journal_path().to_path_buf();
    let journal = |s: &FileStore| fs::read(&path).unwrap()[..s.journal_len() as usize].to_vec();
    let committed = journal(&s);
    let witness = fs::read(s.seqnums_path()).unwrap();
    s.store(N, &msg(N, 0)).unwrap();
    s.incr_next_sender_seq().unwrap();
    s.incr_next_target_seq().unwrap();
    // A read writes the transaction ahead, without its commit record.
    s.for_each_in_range(N, N, &mut |_, _| {}).unwrap();
    let with_tail = journal(&s);
    assert!(with_tail.len() > committed.len());
    drop(s);
    (dir, path, committed, with_tail, witness)
}

/// Writes the journal and the witness as the crash left them.
fn put(journal: &Path, bytes: &[u8], witness: &[u8]) {
    fs::write(journal, bytes).unwrap();
    fs::write(journal.parent().unwrap().join("seqnums"), witness).unwrap();
}

/// Re-opens after a crash that left the uncommitted transaction (or part of
/// it): the committed state, nothing lost, the tail cut off, appends work.
fn check_recovered(dir: &Path, journal: &Path, committed_len: u64) {
    let mut s = open_file(dir, FsyncPolicy::EveryCommit);
    let got = collect(&mut s, 1, SEQ_END);
    assert_eq!(got.len() as u64, N - 1);
    for (i, (seq, m)) in got.iter().enumerate() {
        assert_eq!(*seq, i as u64 + 1);
        assert_eq!(*m, msg(*seq, 0));
    }
    assert!(s.recovery().losses.is_empty(), "{:?}", s.recovery());
    assert_eq!(s.journal_len(), committed_len);
    // The tail is cut off, but for zeros (space written ahead, kept).
    let file = fs::read(journal).unwrap();
    assert!(file.len() as u64 >= committed_len);
    assert!(
        file[committed_len as usize..].iter().all(|&b| b == 0),
        "tail cut off"
    );
    // Message N was never committed: its number is free again, and so is the
    // incoming number that went with it.
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (N, N));

    let next = s.next_sender_seq();
    s.store(next, b"after recovery").unwrap();
    s.incr_next_sender_seq().unwrap();
    s.commit().unwrap();
    drop(s);
    let mut s = open_file(dir, FsyncPolicy::Never);
    assert_eq!(
        collect(&mut s, next, SEQ_END),
        [(next, b"after recovery".to_vec())]
    );
    assert_eq!(seqs(&mut s, 1, SEQ_END).len() as u64, N);
}

#[test]
fn an_uncommitted_transaction_cut_at_every_byte() {
    let (dir, journal, committed, with_tail, witness) = build();
    let full = committed.len();
    for cut in full..=with_tail.len() {
        put(&journal, &with_tail[..cut], &witness);
        check_recovered(dir.path(), &journal, full as u64);
    }
}

#[test]
fn an_uncommitted_transaction_with_garbage_in_place_of_its_bytes() {
    // A torn write may also leave the right length with wrong bytes.
    let (dir, journal, committed, with_tail, witness) = build();
    for at in committed.len()..with_tail.len() {
        let mut b = with_tail.clone();
        b[at] ^= 0x01;
        put(&journal, &b, &witness);
        check_recovered(dir.path(), &journal, committed.len() as u64);
    }
}

#[test]
fn random_garbage_after_the_last_commit() {
    let (dir, journal, committed, _, witness) = build();
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    for round in 0..200 {
        let len = 1 + rng.below(300) as usize;
        let mut b = committed.clone();
        b.extend((0..len).map(|_| rng.next_u64() as u8));
        let at = committed.len();
        if round % 3 == 0 {
            // Garbage that starts with a record magic.
            let magic: &[u8] = if round % 2 == 0 { b"PGER" } else { b"PGEC" };
            let n = 4.min(len);
            b[at..at + n].copy_from_slice(&magic[..n]);
        }
        put(&journal, &b, &witness);
        check_recovered(dir.path(), &journal, committed.len() as u64);
    }
}

#[test]
fn crafted_garbage_after_the_last_commit() {
    let (dir, journal, committed, with_tail, witness) = build();
    let last = with_tail[committed.len()..].to_vec();
    let mut cases: Vec<Vec<u8>> = Vec::new();
    // A header claiming a huge payload.
    let mut huge = b"PGER".to_vec();
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    huge.extend_from_slice(&7u64.to_le_bytes());
    huge.extend_from_slice(&[0; 4]);
    cases.push(huge);
    // A header claiming a payload longer than the file.
    let mut long = b"PGER".to_vec();
    long.extend_from_slice(&1000u32.to_le_bytes());
    long.extend_from_slice(&7u64.to_le_bytes());
    long.extend_from_slice(&[0; 4]);
    long.extend_from_slice(&[b'x'; 50]);
    cases.push(long);
    // The uncommitted record with its CRC broken.
    let mut bad_crc = last.clone();
    bad_crc[17] ^= 0xff;
    cases.push(bad_crc);
    // The uncommitted record with seq 0 (never valid).
    let mut seq0 = last.clone();
    seq0[8..16].copy_from_slice(&0u64.to_le_bytes());
    cases.push(seq0);
    // A commit record with a broken CRC.
    let mut commit = committed[committed.len() - COMMIT..].to_vec();
    commit[6] ^= 1;
    cases.push(commit);
    // A zero-filled tail, as some file systems leave after a power loss.
    cases.push(vec![0; 4096]);
    for tail in cases {
        let mut b = committed.clone();
        b.extend_from_slice(&tail);
        put(&journal, &b, &witness);
        check_recovered(dir.path(), &journal, committed.len() as u64);
    }
}

/// Offset of message `seq`'s record in a journal built one commit per
/// message (header, first commit, then record + commit per message).
fn record_offset(seq: u64, salt: u64) -> usize {
    let mut off = HEADER + COMMIT;
    for q in 1..seq {
        off += RECORD + msg(q, salt).len() + COMMIT;
    }
    off
}

#[test]
fn corruption_in_the_middle_costs_only_the_damaged_record() {
    let (dir, journal, committed, _, witness) = build();
    let off = record_offset(3, 0);
    let mut b = committed.clone();
    b[off + RECORD + 5] ^= 0x10; // inside record 3's payload
    put(&journal, &b, &witness);

    // Refused by default, saying what was lost; the files stay as they are.
    let err = open_with(dir.path(), FileStoreConfig::default()).unwrap_err();
    let StoreError::Damaged { losses, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(losses.len(), 1);
    assert_eq!(losses[0].kind, LossKind::Corrupted);
    assert_eq!(losses[0].offset, off as u64);
    assert_eq!(losses[0].seqs, Some((3, 3)));
    assert!(err.to_string().contains("message 3 lost"), "{err}");
    assert_eq!(fs::read(&journal).unwrap(), b);

    // Reported: everything else is kept, numbers as committed.
    let mut s = open_with(dir.path(), report()).unwrap();
    assert_eq!(seqs(&mut s, 1, SEQ_END), [1, 2, 4]);
    assert_eq!(collect(&mut s, 4, 4), [(4, msg(4, 0))]);
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (N, N));
    assert_eq!(s.recovery().lost_messages(), 1);
    assert!(s.recovery().rewritten);
    s.store(N, b"five").unwrap();
    s.incr_next_sender_seq().unwrap();
    s.commit().unwrap();
    drop(s);
    // Said once: the rewritten journal is clean.
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    assert!(s.recovery().losses.is_empty());
    assert_eq!(seqs(&mut s, 1, SEQ_END), [1, 2, 4, 5]);
}

#[test]
fn damage_in_every_byte_of_a_committed_record_or_commit() {
    // Record 2 and the commit after it, each byte in turn: the damage is
    // found, and messages 1, 3 and 4 always survive.
    let (dir, journal, committed, _, witness) = build();
    let from = record_offset(2, 0);
    let to = record_offset(3, 0);
    for at in from..to {
        let mut b = committed.clone();
        b[at] ^= 0x5a;
        put(&journal, &b, &witness);
        let err = open_with(dir.path(), FileStoreConfig::default()).unwrap_err();
        assert!(
            matches!(err, StoreError::Damaged { .. }),
            "byte {at}: {err}"
        );
        put(&journal, &b, &witness);
        let mut s = open_with(dir.path(), report()).unwrap();
        let kept = seqs(&mut s, 1, SEQ_END);
        assert!(kept.starts_with(&[1]), "byte {at}: {kept:?}");
        assert!(kept.ends_with(&[3, 4]), "byte {at}: {kept:?}");
        assert_eq!(s.next_sender_seq(), N, "byte {at}");
    }
}

#[test]
fn one_flipped_byte_in_a_long_journal_loses_one_message() {
    // The reliability issue's case: 3,883 messages, one byte flipped at the
    // journal's middle. Before, the scan stopped there and every message
    // after it was gap-filled silently.
    let dir = tempfile::tempdir().unwrap();
    let journal = {
        let mut s = open_file(dir.path(), FsyncPolicy::Never);
        for seq in 1..=3883 {
            s.store(seq, &msg(seq, 7)).unwrap();
            s.incr_next_sender_seq().unwrap();
            if seq % 10 == 0 {
                s.commit().unwrap();
            }
        }
        s.commit().unwrap();
        s.journal_path().to_path_buf()
    };
    let mut b = fs::read(&journal).unwrap();
    let mid = b.len() / 2;
    b[mid] ^= 0x08;
    fs::write(&journal, &b).unwrap();
    let mut s = open_with(dir.path(), report()).unwrap();
    let kept = seqs(&mut s, 1, SEQ_END);
    assert!(kept.len() >= 3882, "kept {}", kept.len());
    assert_eq!(s.recovery().losses.len(), 1, "{:?}", s.recovery());
    assert!(s.recovery().lost_messages() <= 1);
    assert_eq!(s.next_sender_seq(), 3884);
    for (seq, m) in collect(&mut s, 1, SEQ_END) {
        assert_eq!(m, msg(seq, 7));
    }
}

#[test]
fn a_zeroed_block_in_the_middle_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let journal = {
        let mut s = open_file(dir.path(), FsyncPolicy::Never);
        for seq in 1..=200 {
            s.store(seq, &msg(seq, 1)).unwrap();
            s.incr_next_sender_seq().unwrap();
            s.commit().unwrap();
        }
        s.journal_path().to_path_buf()
    };
    let mut b = fs::read(&journal).unwrap();
    b[4096..8192].fill(0);
    fs::write(&journal, &b).unwrap();
    let mut s = open_with(dir.path(), report()).unwrap();
    let kept = seqs(&mut s, 1, SEQ_END);
    let lost = s.recovery().lost_messages();
    assert_eq!(kept.len() as u64 + lost, 200, "{:?}", s.recovery());
    assert!(kept.contains(&1) && kept.contains(&200));
    assert_eq!(s.next_sender_seq(), 201);
}

#[test]
fn a_committed_journal_cut_mid_record_is_a_reported_loss() {
    // The reliability issue: a journal truncated mid-record lost its last message
    // silently. The witness says where the committed journal ended, so a cut inside
    // committed data is a loss, named; a cut inside an uncommitted tail is not.
    let (dir, journal, committed, _, witness) = build();
    let last = record_offset(N - 1, 0);
    for cut in [
        last + 3,
        last + RECORD + 2,
        committed.len() - COMMIT - 1,
        committed.len() - 5,
    ] {
        put(&journal, &committed[..cut], &witness);
        let err = open_with(dir.path(), FileStoreConfig::default()).unwrap_err();
        let StoreError::Damaged { losses, .. } = &err else {
            panic!("cut at {cut}: {err}");
        };
        assert_eq!(losses[0].kind, LossKind::Truncated, "cut at {cut}");
        assert_eq!(losses[0].seqs, Some((N - 1, N - 1)), "cut at {cut}: {err}");
        put(&journal, &committed[..cut], &witness);
        let mut s = open_with(dir.path(), report()).unwrap();
        assert_eq!(seqs(&mut s, 1, SEQ_END), (1..N - 1).collect::<Vec<_>>());
        // Numbers continue after the witness's: N - 1 is not used again.
        assert_eq!((s.next_sender_seq(), s.next_target_seq()), (N, N));
    }
}

/// Sends messages `seqs` (`msg(seq, 0)`), one commit each, settled after
/// each as the engine does once a commit's output is written.
fn send_settled(s: &mut FileStore, seqs: impl Iterator<Item = u64>) {
    for seq in seqs {
        s.store(seq, &msg(seq, 0)).unwrap();
        s.incr_next_sender_seq().unwrap();
        s.commit().unwrap();
        s.settle().unwrap();
    }
}

/// `(generation, journal_end, next_sender, next_target)` of the newest slot
/// of a `seqnums` file (format 2: generation at 8, the numbers at 24 and 32,
/// journal_end at 48).
fn newest_slot(seqnums: &[u8]) -> (u64, u64, u64, u64) {
    let u64_at = |slot: &[u8], at: usize| u64::from_le_bytes(slot[at..at + 8].try_into().unwrap());
    let slot = |i: usize| &seqnums[i * 64..(i + 1) * 64];
    let newest = if u64_at(slot(1), 8) > u64_at(slot(0), 8) {
        slot(1)
    } else {
        slot(0)
    };
    (
        u64_at(newest, 8),
        u64_at(newest, 48),
        u64_at(newest, 24),
        u64_at(newest, 32),
    )
}

#[test]
fn commit_writes_the_journal_and_settle_the_witness() {
    // The witness is the commit's second write; nothing waits for it, so a
    // commit leaves it to `settle`, called once the commit's messages have left.
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    let seqnums = s.seqnums_path().to_path_buf();
    s.store(1, &msg(1, 0)).unwrap();
    s.incr_next_sender_seq().unwrap();
    s.commit().unwrap();
    s.settle().unwrap();
    let settled = fs::read(&seqnums).unwrap();
    let (generation, end, sender, _) = newest_slot(&settled);
    assert_eq!((end, sender), (s.journal_len(), 2));

    s.store(2, &msg(2, 0)).unwrap();
    s.incr_next_sender_seq().unwrap();
    s.incr_next_target_seq().unwrap();
    s.commit().unwrap();
    assert_eq!(
        fs::read(&seqnums).unwrap(),
        settled,
        "commit wrote the witness"
    );
    s.settle().unwrap();
    let now = fs::read(&seqnums).unwrap();
    assert_eq!(
        newest_slot(&now),
        (generation + 1, s.journal_len(), 3, 2),
        "settle wrote this commit's witness"
    );
    s.settle().unwrap();
    assert_eq!(fs::read(&seqnums).unwrap(), now, "nothing was due");

    // Not settled: the next commit writes the due witness first (then its own
    // journal write), and sync writes the newest after the journal's fsync.
    let before_third = s.journal_len();
    s.store(3, &msg(3, 0)).unwrap();
    s.incr_next_sender_seq().unwrap();
    s.commit().unwrap();
    let after_third = s.journal_len();
    s.store(4, &msg(4, 0)).unwrap();
    s.incr_next_sender_seq().unwrap();
    s.commit().unwrap();
    let slot = newest_slot(&fs::read(&seqnums).unwrap());
    assert_eq!(
        (slot.1, slot.2),
        (after_third, 4),
        "the third commit's witness"
    );
    assert!(after_third > before_third);
    s.sync().unwrap();
    let slot = newest_slot(&fs::read(&seqnums).unwrap());
    assert_eq!((slot.1, slot.2), (s.journal_len(), 5));
}

#[test]
fn a_crash_between_commit_and_settle_loses_nothing() {
    // The process dies after a commit's write and before its witness: the
    // journal holds the commit, the witness one commit less. Opening finds no
    // loss, takes the journal's numbers and writes the witness when settled.
    let dir = tempfile::tempdir().unwrap();
    let (journal, seqnums, lagging) = {
        let mut s = open_file(dir.path(), FsyncPolicy::Never);
        send_settled(&mut s, 1..N);
        s.store(N, &msg(N, 0)).unwrap();
        s.incr_next_sender_seq().unwrap();
        s.set_next_target_seq(7).unwrap();
        s.commit().unwrap();
        let seqnums = s.seqnums_path().to_path_buf();
        (
            s.journal_path().to_path_buf(),
            seqnums.clone(),
            fs::read(&seqnums).unwrap(),
        )
        // (dropped: a clean drop settles; the crash's files are put back below)
    };
    let full = fs::read(&journal).unwrap();
    assert_eq!(
        newest_slot(&lagging).2,
        N,
        "the witness is one commit behind"
    );
    put(&journal, &full, &lagging);
    let mut s = open_with(dir.path(), FileStoreConfig::default()).unwrap();
    assert!(s.recovery().losses.is_empty());
    assert_eq!(s.recovery().uncommitted_bytes, 0);
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (N + 1, 7));
    assert_eq!(seqs(&mut s, 1, SEQ_END), (1..=N).collect::<Vec<_>>());
    // The dead process's last writes may be in the page cache only: a sync
    // fsyncs the journal before the witness that claims them.
    assert_eq!(s.stats().journal_fsyncs, 0);
    s.sync().unwrap();
    assert_eq!(s.stats().journal_fsyncs, 1, "the journal fsynced first");
    let slot = newest_slot(&fs::read(&seqnums).unwrap());
    assert_eq!((slot.1, slot.2, slot.3), (full.len() as u64, N + 1, 7));
}

#[test]
fn zeros_written_ahead_are_space_not_a_loss() {
    // `settle` keeps zeros written past the journal's end, so that a commit's
    // write lands on pages that exist. A crash leaves them: they are kept as
    // space (nothing reported), and what is written next lands on them.
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    send_settled(&mut s, 1..=3);
    let journal = s.journal_path().to_path_buf();
    let end = s.journal_len() as usize;
    let crashed = fs::read(&journal).unwrap();
    assert!(
        crashed.len() >= end + 60 * 1024,
        "{} bytes written ahead",
        crashed.len() - end
    );
    assert!(crashed[end..].iter().all(|&b| b == 0));
    let witness = fs::read(s.seqnums_path()).unwrap();
    drop(s);
    assert_eq!(
        fs::metadata(&journal).unwrap().len(),
        end as u64,
        "a drop cuts the space"
    );

    put(&journal, &crashed, &witness);
    let mut s = open_with(dir.path(), FileStoreConfig::default()).unwrap();
    assert_eq!(
        s.recovery(),
        &peregrine_store::Recovery::default(),
        "nothing to report"
    );
    assert_eq!(
        fs::metadata(&journal).unwrap().len(),
        crashed.len() as u64,
        "kept"
    );
    assert_eq!((s.journal_len(), s.next_sender_seq()), (end as u64, 4));
    s.store(4, &msg(4, 0)).unwrap();
    s.incr_next_sender_seq().unwrap();
    s.commit().unwrap();
    drop(s);
    let mut s = open_with(dir.path(), FileStoreConfig::default()).unwrap();
    assert_eq!(
        collect(&mut s, 1, SEQ_END),
        (1..=4).map(|q| (q, msg(q, 0))).collect::<Vec<_>>()
    );
    assert_eq!(s.next_sender_seq(), 5);
}

#[test]
fn an_uncommitted_transaction_in_the_space_ahead_is_cut_off() {
    // A transaction written ahead of its commit lands on the zeros; a crash
    // before the commit leaves records, then zeros. The records are what is
    // reported (not the zeros), and cut off with the space.
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    s.store(1, &msg(1, 0)).unwrap();
    s.incr_next_sender_seq().unwrap();
    s.commit().unwrap();
    s.settle().unwrap();
    let committed_end = s.journal_len();
    s.store(2, &msg(2, 0)).unwrap();
    s.incr_next_sender_seq().unwrap();
    s.for_each_in_range(2, 2, &mut |_, _| {}).unwrap(); // written ahead
    let journal = s.journal_path().to_path_buf();
    let crashed = fs::read(&journal).unwrap();
    let witness = fs::read(s.seqnums_path()).unwrap();
    drop(s);

    put(&journal, &crashed, &witness);
    let mut s = open_with(dir.path(), FileStoreConfig::default()).unwrap();
    let record = (RECORD + msg(2, 0).len()) as u64;
    assert_eq!(s.recovery().uncommitted_bytes, record);
    assert!(s.recovery().losses.is_empty());
    assert_eq!(fs::metadata(&journal).unwrap().len(), committed_end);
    assert_eq!(
        (seqs(&mut s, 1, SEQ_END), s.next_sender_seq()),
        (vec![1], 2)
    );
}

#[test]
fn space_is_written_ahead_after_small_commits_only() {
    // Zeros ahead serve the latency of small commits; a batch larger than a
    // page amortises its own page allocations, and zeros ahead of it would
    // double its writes.
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    let journal = s.journal_path().to_path_buf();
    let file_len = || fs::metadata(&journal).unwrap().len();
    for seq in 1..=100 {
        s.store(seq, &msg(seq, 0)).unwrap();
        s.incr_next_sender_seq().unwrap();
    }
    s.commit().unwrap();
    s.settle().unwrap();
    assert_eq!(file_len(), s.journal_len(), "a large batch: no space ahead");
    s.store(101, &msg(101, 0)).unwrap();
    s.incr_next_sender_seq().unwrap();
    s.commit().unwrap();
    s.settle().unwrap();
    assert!(
        file_len() >= s.journal_len() + 60 * 1024,
        "a small commit: space ahead"
    );
}

#[test]
fn refresh_and_a_reported_rewrite_with_space_ahead() {
    // Zeros written ahead survive a refresh (reopened as space), and a
    // reported loss's rewrite starts a clean journal from a file that had them.
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    send_settled(&mut s, 1..=3);
    let journal = s.journal_path().to_path_buf();
    s.refresh().unwrap();
    assert_eq!(s.recovery(), &peregrine_store::Recovery::default());
    assert_eq!(
        (seqs(&mut s, 1, SEQ_END), s.next_sender_seq()),
        (vec![1, 2, 3], 4)
    );
    s.store(4, &msg(4, 0)).unwrap();
    s.incr_next_sender_seq().unwrap();
    s.commit().unwrap();
    s.settle().unwrap();
    let end = s.journal_len() as usize;
    let mut crashed = fs::read(&journal).unwrap();
    assert!(crashed.len() > end, "space ahead");
    let witness = fs::read(s.seqnums_path()).unwrap();
    drop(s);

    // Record 2 damaged: reported, the rest kept, the journal rewritten clean.
    crashed[record_offset(2, 0) + RECORD + 3] ^= 0x20;
    put(&journal, &crashed, &witness);
    let mut s = open_with(dir.path(), report()).unwrap();
    assert_eq!(s.recovery().lost_messages(), 1);
    assert!(s.recovery().rewritten);
    assert_eq!(
        (seqs(&mut s, 1, SEQ_END), s.next_sender_seq()),
        (vec![1, 3, 4], 5)
    );
    drop(s);
    let mut s = open_with(dir.path(), FileStoreConfig::default()).unwrap();
    assert!(s.recovery().losses.is_empty());
    assert_eq!(seqs(&mut s, 1, SEQ_END), [1, 3, 4]);
}

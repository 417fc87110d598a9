//! Crash recovery of the FileStore journal: a torn last record cut at every
//! byte, garbage after the last record, a zero-filled tail, and corruption in
//! the middle. In every case the complete records before the damage survive,
//! the damage is cut off, and appending works again.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{collect, msg, open_file, seqs};
use peregrine_store::{FsyncPolicy, MessageStore, SEQ_END};

const N: u64 = 5;

/// A store with records 1..=N, where the seqnums slot was last written
/// before record N (as after a crash between `store(N)` and the increment).
/// Returns (dir, journal path, journal bytes, offset where record N starts).
///
/// Every case writes the journal it wants with [`put`], which also puts the
/// seqnums file back as the crash left it.
fn build() -> (tempfile::TempDir, PathBuf, Vec<u8>, u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open_file(dir.path(), FsyncPolicy::EveryMessage);
    for seq in 1..N {
        s.store(seq, &msg(seq, 0)).unwrap();
        s.incr_next_sender_seq().unwrap();
    }
    let last_start = s.journal_len();
    s.store(N, &msg(N, 0)).unwrap();
    let path = s.journal_path().to_path_buf();
    let seqnums = fs::read(s.seqnums_path()).unwrap();
    drop(s);
    fs::write(
        path.parent()
            .unwrap()
            .parent()
            .unwrap()
            .join("seqnums.crashed"),
        seqnums,
    )
    .unwrap();
    let bytes = fs::read(&path).unwrap();
    (dir, path, bytes, last_start)
}

/// Writes `journal` bytes and the seqnums file as the crash left them.
fn put(journal: &Path, bytes: &[u8]) {
    let dir = journal.parent().unwrap();
    let base = dir.parent().unwrap();
    fs::write(journal, bytes).unwrap();
    fs::copy(base.join("seqnums.crashed"), dir.join("seqnums")).unwrap();
}

/// Re-opens and checks the state a crash with `complete` records left.
fn check_recovered(dir: &Path, journal: &Path, complete: u64, good_len: u64) {
    let mut s = open_file(dir, FsyncPolicy::EveryMessage);
    let got = collect(&mut s, 1, SEQ_END);
    assert_eq!(got.len() as u64, complete);
    for (i, (seq, m)) in got.iter().enumerate() {
        assert_eq!(*seq, i as u64 + 1);
        assert_eq!(*m, msg(*seq, 0));
    }
    assert_eq!(s.journal_len(), good_len);
    assert_eq!(
        fs::metadata(journal).unwrap().len(),
        good_len,
        "tail cut off"
    );
    // Record N was stored but never acknowledged by an increment: if it
    // survived, its seq num is taken; if it was torn, N is free again.
    assert_eq!(s.next_sender_seq(), complete + 1);

    // New appends work and survive another re-open.
    let next = s.next_sender_seq();
    s.store(next, b"after recovery").unwrap();
    s.incr_next_sender_seq().unwrap();
    drop(s);
    let mut s = open_file(dir, FsyncPolicy::Never);
    assert_eq!(
        collect(&mut s, next, SEQ_END),
        [(next, b"after recovery".to_vec())]
    );
    assert_eq!(seqs(&mut s, 1, SEQ_END).len() as u64, complete + 1);
}

#[test]
fn torn_last_record_at_every_byte() {
    let (dir, journal, bytes, last_start) = build();
    let full = bytes.len() as u64;
    for cut in last_start..=full {
        put(&journal, &bytes[..cut as usize]);
        if cut == full {
            check_recovered(dir.path(), &journal, N, full);
        } else {
            check_recovered(dir.path(), &journal, N - 1, last_start);
        }
    }
}

#[test]
fn torn_last_record_with_garbage_in_place_of_the_missing_bytes() {
    // A torn write may also leave the right length with wrong bytes.
    let (dir, journal, bytes, last_start) = build();
    for at in last_start as usize..bytes.len() {
        let mut b = bytes.clone();
        b[at] ^= 0x01;
        put(&journal, &b);
        check_recovered(dir.path(), &journal, N - 1, last_start);
    }
}

/// A small deterministic PRNG (xorshift64*), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
fn random_garbage_after_the_last_record() {
    let (dir, journal, bytes, _) = build();
    let full = bytes.len() as u64;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..200 {
        let len = 1 + (rng.next() % 300) as usize;
        let mut b = bytes.clone();
        b.extend((0..len).map(|_| rng.next() as u8));
        if round % 3 == 0 {
            // Garbage that starts with a valid record magic.
            b[full as usize..full as usize + 4.min(len)].copy_from_slice(&b"PGER"[..4.min(len)]);
        }
        put(&journal, &b);
        check_recovered(dir.path(), &journal, N, full);
    }
}

#[test]
fn crafted_garbage_after_the_last_record() {
    let (dir, journal, bytes, last_start) = build();
    let full = bytes.len() as u64;
    let last = bytes[last_start as usize..].to_vec();
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
    // A copy of the last record with its CRC broken.
    let mut bad_crc = last.clone();
    bad_crc[17] ^= 0xff;
    cases.push(bad_crc);
    // A copy of the last record with seq 0 (never valid).
    let mut seq0 = last.clone();
    seq0[8..16].copy_from_slice(&0u64.to_le_bytes());
    cases.push(seq0);
    // A zero-filled tail, as some file systems leave after a power loss.
    cases.push(vec![0; 4096]);
    for tail in cases {
        let mut b = bytes.clone();
        b.extend_from_slice(&tail);
        put(&journal, &b);
        check_recovered(dir.path(), &journal, N, full);
    }
}

#[test]
fn corruption_in_the_middle_stops_the_scan_there() {
    let (dir, journal, bytes, _) = build();
    // Find where record 3 starts by re-encoding lengths: header 16, records
    // of 20 + len(msg) bytes.
    let mut off = 16usize;
    for seq in 1..3 {
        off += 20 + msg(seq, 0).len();
    }
    let mut b = bytes.clone();
    b[off + 25] ^= 0x10; // inside record 3's payload
    put(&journal, &b);
    let mut s = open_file(dir.path(), FsyncPolicy::Never);
    assert_eq!(seqs(&mut s, 1, SEQ_END), [1, 2]);
    assert_eq!(s.journal_len(), off as u64);
    // The seqnums file still says 5 (record 5 had not been acknowledged).
    assert_eq!(s.next_sender_seq(), N);
}

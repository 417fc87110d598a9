//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::Path;

use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore, StoreError};

/// A FIX-like message for `seq`, of a length that varies with `seq` and
/// `salt`, deterministic so that a reader can check it.
pub fn msg(seq: u64, salt: u64) -> Vec<u8> {
    let mut m = format!("8=FIX.4.4\x0135=D\x0134={seq}\x0158=salt{salt}\x01").into_bytes();
    let extra = ((seq.wrapping_mul(31) ^ salt.wrapping_mul(17)) % 97) as usize;
    m.extend((0..extra).map(|i| b'a' + (i % 26) as u8));
    m.extend_from_slice(b"10=000\x01");
    m
}

/// Stores messages `1..=n` (`msg(seq, salt)`), the sequence numbers left as they are.
pub fn store_msgs<S: MessageStore + ?Sized>(s: &mut S, n: u64, salt: u64) {
    for seq in 1..=n {
        s.store(seq, &msg(seq, salt)).unwrap();
    }
}

/// Stores messages `1..=n` (`msg(seq, salt)`) as sent: the next sender number
/// moves past each.
pub fn send_msgs<S: MessageStore + ?Sized>(s: &mut S, n: u64, salt: u64) {
    for seq in 1..=n {
        s.store(seq, &msg(seq, salt)).unwrap();
        s.incr_next_sender_seq().unwrap();
    }
}

/// Every stored message in `[begin, end]`, copied out.
pub fn collect<S: MessageStore + ?Sized>(s: &mut S, begin: u64, end: u64) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    s.for_each_in_range(begin, end, &mut |seq, m| out.push((seq, m.to_vec())))
        .expect("for_each_in_range");
    out
}

/// The sequence numbers stored in `[begin, end]`.
pub fn seqs<S: MessageStore + ?Sized>(s: &mut S, begin: u64, end: u64) -> Vec<u64> {
    collect(s, begin, end).into_iter().map(|(q, _)| q).collect()
}

pub const T0: i64 = 1_700_000_000_123_456_789;

pub fn file_config(fsync: FsyncPolicy) -> FileStoreConfig {
    FileStoreConfig::with_fsync(fsync)
}

/// Opens the test session's store in `dir` with `config`, at `T0`; the
/// error is the caller's to check.
pub fn open_with(dir: &Path, config: FileStoreConfig) -> Result<FileStore, StoreError> {
    FileStore::open(dir, "FIX.4.4:SENDER->TARGET", config, T0)
}

pub fn open_file(dir: &Path, fsync: FsyncPolicy) -> FileStore {
    open_with(dir, file_config(fsync)).expect("open")
}

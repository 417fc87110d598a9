//! The read buffer is the first resend's, not every store's (BENCHMARKS.md §5:
//! 10,000 sessions' file stores held 64 KiB each, zeroed on open).

use super::*;
use crate::MessageStore;

#[test]
fn a_store_holds_no_read_buffer_until_a_resend_reads() {
    let dir = tempfile::tempdir().unwrap();
    let config = FileStoreConfig::default();
    let mut s = FileStore::open(dir.path(), "FIX.4.4:A->B", config, 0).unwrap();
    s.store(1, b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x01")
        .unwrap();
    s.commit().unwrap();
    drop(s);
    // Reopened: the scan of what it holds read through the buffer, then gave it back.
    let mut s = FileStore::open(dir.path(), "FIX.4.4:A->B", config, 0).unwrap();
    assert_eq!(s.read_buf.capacity(), 0);
    let mut seen = 0;
    s.for_each_in_range(1, 1, &mut |_, _| seen += 1).unwrap();
    assert_eq!(seen, 1);
    // Made whole by the first read, so that later reads allocate nothing.
    assert!(s.read_buf.len() >= config.read_chunk);
}

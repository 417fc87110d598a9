//! `MemoryStore::prefault` makes the reserved room resident before messages
//! arrive: the process's resident set grows by it then, not later, one page
//! fault at a time, on the session's thread.

use peregrine_store::{MemoryStore, MessageStore};

/// The process's resident set, in bytes (`/proc/self/statm`, second field, pages).
fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|f| f.parse().ok())
        .expect("a resident page count");
    pages * 4096
}

const ROOM: usize = 64 << 20;

#[test]
fn reserved_room_is_resident_after_prefault_and_not_before() {
    let start = resident_bytes();
    let mut store = MemoryStore::with_capacity(0, 100_000, ROOM);
    store.store(1, b"8=FIX.4.4|35=A|").unwrap();
    let reserved = resident_bytes();
    // Reserving asks for the room without touching it.
    assert!(
        reserved < start + ROOM / 4,
        "with_capacity made {} bytes resident",
        reserved - start
    );
    store.prefault();
    let prefaulted = resident_bytes();
    assert!(
        prefaulted >= reserved + ROOM - (1 << 20),
        "prefault made only {} of {ROOM} bytes resident",
        prefaulted.saturating_sub(reserved)
    );
    // What was stored is still there, and storing goes on within the room.
    assert_eq!((store.len(), store.arena_bytes()), (1, 15));
    store.store(2, b"8=FIX.4.4|35=D|").unwrap();
    let mut seen = Vec::new();
    store
        .for_each_in_range(1, 2, &mut |seq, m| seen.push((seq, m.to_vec())))
        .unwrap();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].1, b"8=FIX.4.4|35=A|");
}

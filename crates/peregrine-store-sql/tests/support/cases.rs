//! Persistence cases for any database store: `open()` opens the same
//! session's store again (a restart); `open_other()` another session's in the
//! same database.

use peregrine_store::contract::{collect, msg, seqs, T0};
use peregrine_store::{MessageStore, StoreError, SEQ_END};

/// `t` as the database keeps it (microseconds).
pub fn micros(t: i64) -> i64 {
    t.div_euclid(1000) * 1000
}

/// What is committed survives a restart; what is not, does not; increments
/// are not written until the commit.
pub fn committed_survives<S: MessageStore>(mut open: impl FnMut() -> S) {
    let mut s = open();
    for seq in 1..=3 {
        s.store(seq, &msg(seq, 1)).unwrap();
        s.incr_next_sender_seq().unwrap();
    }
    s.incr_next_target_seq().unwrap();
    s.commit().unwrap();
    s.store(4, &msg(4, 1)).unwrap();
    s.incr_next_sender_seq().unwrap();
    s.incr_next_target_seq().unwrap();
    // Another handle sees the committed state only.
    let mut other = open();
    assert_eq!((other.next_sender_seq(), other.next_target_seq()), (4, 2));
    assert_eq!(seqs(&mut other, 1, SEQ_END), [1, 2, 3]);
    drop(s); // uncommitted: lost with it
    drop(other);
    let mut s = open();
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (4, 2));
    assert_eq!(s.creation_time(), micros(T0));
    let got = collect(&mut s, 1, SEQ_END);
    assert_eq!(got, (1..=3).map(|q| (q, msg(q, 1))).collect::<Vec<_>>());
}

/// A message stored again replaces the row; a reset is kept; refresh reads
/// what another handle committed.
pub fn replace_reset_refresh<S: MessageStore>(mut open: impl FnMut() -> S) {
    let mut s = open();
    s.store(1, b"first").unwrap();
    s.store(2, b"second").unwrap();
    s.set_next_sender_seq(3).unwrap();
    s.commit().unwrap();
    s.store(2, b"second, again").unwrap();
    s.commit().unwrap();
    assert_eq!(collect(&mut open(), 2, 2), [(2, b"second, again".to_vec())]);

    let mut other = open();
    other.set_next_target_seq(40).unwrap();
    other.commit().unwrap();
    s.refresh().unwrap();
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (3, 40));

    s.reset(T0 + 5_000).unwrap();
    let mut s = open();
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (1, 1));
    assert_eq!(s.creation_time(), micros(T0 + 5_000));
    assert!(collect(&mut s, 1, SEQ_END).is_empty());
}

/// A number above the INTEGER column's range fails the commit with an
/// error, keeps the changes, and a later commit writes everything.
pub fn out_of_range_then_recovers<S: MessageStore>(mut open: impl FnMut() -> S) {
    let mut s = open();
    s.store(1, b"kept").unwrap();
    assert!(matches!(
        s.store(1 << 31, b"x"),
        Err(StoreError::Database { .. })
    ));
    assert!(matches!(
        s.store(2, b"nul\0byte"),
        Err(StoreError::Database { .. })
    ));
    s.set_next_sender_seq(1 << 31).unwrap();
    let e = s.commit().unwrap_err();
    assert!(e.to_string().contains("2147483648"), "{e}");
    s.set_next_sender_seq(2).unwrap();
    s.commit().unwrap();
    let mut s = open();
    assert_eq!(s.next_sender_seq(), 2);
    assert_eq!(collect(&mut s, 1, SEQ_END), [(1, b"kept".to_vec())]);
}

/// Two sessions in the same tables do not see each other.
pub fn sessions_apart<S: MessageStore>(
    mut open: impl FnMut() -> S,
    mut open_other: impl FnMut() -> S,
) {
    let mut a = open();
    let mut b = open_other();
    a.store(1, b"for a").unwrap();
    a.set_next_sender_seq(2).unwrap();
    a.commit().unwrap();
    b.store(1, b"for b").unwrap();
    b.store(2, b"for b").unwrap();
    b.set_next_sender_seq(3).unwrap();
    b.commit().unwrap();
    b.reset(T0).unwrap();
    let mut a = open();
    assert_eq!(a.next_sender_seq(), 2);
    assert_eq!(collect(&mut a, 1, SEQ_END), [(1, b"for a".to_vec())]);
}

/// Every case, in turn.
pub fn all<S: MessageStore>(open: impl Fn(&str) -> S) {
    committed_survives(|| open("persist"));
    replace_reset_refresh(|| open("replace"));
    out_of_range_then_recovers(|| open("range"));
    sessions_apart(|| open("apart_a"), || open("apart_b"));
}

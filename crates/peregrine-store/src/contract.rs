//! The [`MessageStore`] contract as a FIX session relies on it, as test
//! cases any store runs (feature `contract-tests`): the memory and file
//! stores here, the database stores of `peregrine-store-sql`.
//!
//! Each case takes a fresh store created at [`T0`].
//! [`contract_suite!`](crate::contract_suite) makes one `#[test]` per case
//! from an expression giving `(guard, store)` (the guard, a temporary
//! directory say, lives as long as the test); [`run_all`] runs them all in
//! one test, for a store whose setup is dear (a database server).
#![allow(missing_docs, clippy::missing_panics_doc)]

use crate::{MessageStore, StoreError, MAX_MESSAGE_LEN, SEQ_END};

/// The creation time every case's store is opened with.
pub const T0: i64 = 1_700_000_000_123_456_789;

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

/// Runs every case, each on a store from `make` (called once per case, so
/// each starts fresh), printing the case's name first.
pub fn run_all<S: MessageStore + 'static>(mut make: impl FnMut() -> S) {
    type Case<S> = (&'static str, fn(&mut S));
    let cases: [Case<S>; 7] = [
        ("fresh", fresh_store),
        ("sequence_numbers", seq_nums),
        ("store_and_read_ranges", store_and_ranges),
        ("gaps_out_of_order_and_replacement", gaps_and_order),
        ("empty_huge_and_invalid_messages", odd_sizes),
        ("thousands_of_messages", many_messages),
        ("reset", reset_clears),
    ];
    for (name, case) in cases {
        println!("contract case {name}");
        case(&mut make());
    }
    println!("contract case trait_object");
    as_trait_object(make());
}

/// A new store: both numbers at 1, created at [`T0`], no messages.
pub fn fresh_store<S: MessageStore>(s: &mut S) {
    assert_eq!(s.next_sender_seq(), 1);
    assert_eq!(s.next_target_seq(), 1);
    assert_eq!(s.creation_time(), T0);
    assert!(collect(s, 1, SEQ_END).is_empty());
}

/// Setting, incrementing and lowering the sequence numbers; 0 and `u64::MAX` refused, leaving them as they were.
pub fn seq_nums<S: MessageStore>(s: &mut S) {
    s.set_next_sender_seq(10).unwrap();
    s.set_next_target_seq(20).unwrap();
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (10, 20));
    s.incr_next_sender_seq().unwrap();
    s.incr_next_sender_seq().unwrap();
    s.incr_next_target_seq().unwrap();
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (12, 21));
    // Lowering is allowed (operator action).
    s.set_next_sender_seq(3).unwrap();
    assert_eq!(s.next_sender_seq(), 3);
    assert!(matches!(
        s.set_next_sender_seq(0),
        Err(StoreError::InvalidSeqNum(0))
    ));
    assert!(matches!(
        s.set_next_target_seq(0),
        Err(StoreError::InvalidSeqNum(0))
    ));
    assert!(s.set_next_target_seq(u64::MAX).is_err());
    s.set_next_target_seq(u64::MAX - 1).unwrap();
    assert!(s.incr_next_target_seq().is_err());
    assert_eq!(s.next_target_seq(), u64::MAX - 1);
    // Failed calls changed nothing.
    assert_eq!(s.next_sender_seq(), 3);
    assert_eq!(s.creation_time(), T0);
}

/// Twenty messages read back whole and in ranges (open, closed, inverted, `EndSeqNo=0`).
pub fn store_and_ranges<S: MessageStore>(s: &mut S) {
    store_msgs(s, 20, 0);
    let all = collect(s, 1, SEQ_END);
    assert_eq!(all.len(), 20);
    for (i, (seq, m)) in all.iter().enumerate() {
        assert_eq!(*seq, i as u64 + 1);
        assert_eq!(*m, msg(*seq, 0));
    }
    assert_eq!(seqs(s, 5, 9), [5, 6, 7, 8, 9]);
    assert_eq!(seqs(s, 7, 7), [7]);
    assert_eq!(seqs(s, 15, SEQ_END), [15, 16, 17, 18, 19, 20]);
    assert_eq!(seqs(s, 18, 1000), [18, 19, 20]);
    assert!(seqs(s, 21, SEQ_END).is_empty());
    assert!(seqs(s, 9, 5).is_empty());
    assert_eq!(seqs(s, 0, 2), [1, 2]);
    assert_eq!(
        seqs(s, 19, crate::resend_end(0)),
        [19, 20],
        "EndSeqNo=0 means to the end"
    );
    // Storing does not move the sequence numbers.
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (1, 1));
}

/// Gaps are skipped; out of order and repeated sequence numbers: the newest message wins.
pub fn gaps_and_order<S: MessageStore>(s: &mut S) {
    for seq in [1, 2, 5, 6, 10] {
        s.store(seq, &msg(seq, 1)).unwrap();
    }
    assert_eq!(seqs(s, 1, SEQ_END), [1, 2, 5, 6, 10]);
    assert_eq!(seqs(s, 3, 4), Vec::<u64>::new());
    assert_eq!(seqs(s, 3, 9), [5, 6]);
    // Out of order and repeated sequence numbers: the newest message wins.
    s.store(4, &msg(4, 2)).unwrap();
    s.store(5, b"replaced").unwrap();
    s.store(3, &msg(3, 2)).unwrap();
    let got = collect(s, 1, SEQ_END);
    let want: Vec<(u64, Vec<u8>)> = vec![
        (1, msg(1, 1)),
        (2, msg(2, 1)),
        (3, msg(3, 2)),
        (4, msg(4, 2)),
        (5, b"replaced".to_vec()),
        (6, msg(6, 1)),
        (10, msg(10, 1)),
    ];
    assert_eq!(got, want);
}

/// An empty message, a 300 kB one, invalid sequence numbers and a message over the limit.
pub fn odd_sizes<S: MessageStore>(s: &mut S) {
    s.store(1, b"").unwrap();
    let big = vec![0xA5u8; 300_000];
    s.store(2, &big).unwrap();
    s.store(3, b"x").unwrap();
    let got = collect(s, 1, 3);
    assert_eq!(got[0], (1, Vec::new()));
    assert_eq!(got[1].1, big);
    assert_eq!(got[2], (3, b"x".to_vec()));
    assert!(matches!(
        s.store(0, b"x"),
        Err(StoreError::InvalidSeqNum(0))
    ));
    assert!(s.store(SEQ_END, b"x").is_err());
    let too_big = vec![0u8; MAX_MESSAGE_LEN + 1];
    assert!(matches!(
        s.store(4, &too_big),
        Err(StoreError::MessageTooLarge { .. })
    ));
    assert_eq!(seqs(s, 1, SEQ_END), [1, 2, 3]);
}

/// Three thousand messages sent and read back in order.
pub fn many_messages<S: MessageStore>(s: &mut S) {
    // More than one read chunk's worth, to exercise coalesced reads.
    let n = 3000;
    send_msgs(s, n, 7);
    assert_eq!(s.next_sender_seq(), n + 1);
    let mut expect = 1;
    s.for_each_in_range(1, SEQ_END, &mut |seq, m| {
        assert_eq!(seq, expect);
        assert_eq!(m, &msg(seq, 7)[..]);
        expect += 1;
    })
    .unwrap();
    assert_eq!(expect, n + 1);
    assert_eq!(seqs(s, 1234, 1236), [1234, 1235, 1236]);
}

/// A reset clears the messages and starts both numbers over at 1 with the new creation time.
pub fn reset_clears<S: MessageStore>(s: &mut S) {
    store_msgs(s, 5, 0);
    s.set_next_sender_seq(6).unwrap();
    s.set_next_target_seq(9).unwrap();
    s.reset(T0 + 42).unwrap();
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (1, 1));
    assert_eq!(s.creation_time(), T0 + 42);
    assert!(collect(s, 1, SEQ_END).is_empty());
    s.store(1, b"after reset").unwrap();
    assert_eq!(collect(s, 1, SEQ_END), [(1, b"after reset".to_vec())]);
    s.refresh().unwrap();
    s.sync().unwrap();
    assert_eq!(collect(s, 1, SEQ_END), [(1, b"after reset".to_vec())]);
    assert_eq!(s.creation_time(), T0 + 42);
}

/// The store works as `Box<dyn MessageStore>` and through `&mut`.
pub fn as_trait_object<S: MessageStore + 'static>(s: S) {
    let mut boxed: Box<dyn MessageStore> = Box::new(s);
    boxed.store(1, b"boxed").unwrap();
    boxed.incr_next_sender_seq().unwrap();
    {
        let mut by_ref: &mut dyn MessageStore = &mut *boxed;
        (&mut by_ref).store(2, b"by ref").unwrap();
    }
    assert_eq!(boxed.next_sender_seq(), 2);
    assert_eq!(seqs(&mut *boxed, 1, SEQ_END), [1, 2]);
    assert_eq!(seqs(&mut boxed, 2, 2), [2]);
}

/// One `#[test]` per contract case in a module `$name`, each on a store
/// from `$make`, an expression giving `(guard, store)`.
#[macro_export]
macro_rules! contract_suite {
    ($name:ident, $make:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            use $crate::contract::*;

            #[test]
            fn fresh() {
                let (_guard, mut s) = $make;
                fresh_store(&mut s);
            }
            #[test]
            fn sequence_numbers() {
                let (_guard, mut s) = $make;
                seq_nums(&mut s);
            }
            #[test]
            fn store_and_read_ranges() {
                let (_guard, mut s) = $make;
                store_and_ranges(&mut s);
            }
            #[test]
            fn gaps_out_of_order_and_replacement() {
                let (_guard, mut s) = $make;
                gaps_and_order(&mut s);
            }
            #[test]
            fn empty_huge_and_invalid_messages() {
                let (_guard, mut s) = $make;
                odd_sizes(&mut s);
            }
            #[test]
            fn thousands_of_messages() {
                let (_guard, mut s) = $make;
                many_messages(&mut s);
            }
            #[test]
            fn reset() {
                let (_guard, mut s) = $make;
                reset_clears(&mut s);
            }
            #[test]
            fn trait_object() {
                let (_guard, s) = $make;
                as_trait_object(s);
            }
        }
    };
}

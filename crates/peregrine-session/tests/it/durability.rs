//! The session over a durable FileStore: one commit (one write, one fsync) per
//! batch of input, however many messages it holds; and an incoming message's
//! sequence number and the replies sent while handling it made durable
//! together, so that after a crash the message has been processed with its
//! replies stored, or not at all.

use crate::support;

use std::path::Path;

use peregrine_session::Session;
use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore, SEQ_END};
use support::{config, log_on, message, Venue, T0};

fn open(dir: &Path) -> Session<FileStore> {
    let store = FileStore::open(
        dir,
        "FIX.4.4:ISLD->TW",
        FileStoreConfig::with_fsync(FsyncPolicy::EveryCommit),
        T0,
    )
    .unwrap();
    Session::new(config("FIX.4.4"), store, T0)
}

fn logged_on(dir: &Path) -> Session<FileStore> {
    let mut s = open(dir);
    log_on(&mut s, &mut Venue);
    s
}

#[test]
fn a_batch_of_input_costs_one_fsync_however_many_messages_it_holds() {
    // The reliability issue: a TestRequest flood on a file-store session cost
    // three fsyncs per message (the Heartbeat, and each sequence number).
    let dir = tempfile::tempdir().unwrap();
    let mut s = logged_on(dir.path());
    let before = s.store().stats();
    let mut batch = Vec::new();
    for i in 0..1000u64 {
        batch.extend(message(b"1", 2 + i, T0, &[(112, b"FLOOD")]));
    }
    s.on_bytes(&batch, T0, &mut Venue);
    assert!(s.outbound().is_empty(), "nothing leaves before the commit");
    s.commit().unwrap();
    let after = s.store().stats();
    assert_eq!(after.commits - before.commits, 1);
    assert_eq!(after.journal_fsyncs - before.journal_fsyncs, 1);
    let out = String::from_utf8_lossy(s.outbound()).into_owned();
    assert_eq!(
        out.matches("\x0135=0\x01").count(),
        1000,
        "every one answered"
    );
    assert_eq!(s.next_target_seq(), 1002);
}

#[test]
fn an_order_is_processed_with_its_reply_stored_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = logged_on(dir.path());
    s.on_bytes(&message(b"D", 2, T0, &[(11, b"ORD-1")]), T0, &mut Venue);
    assert_eq!(
        (s.next_target_seq(), s.next_sender_seq()),
        (3, 3),
        "handled in memory"
    );
    // A crash before the commit: neither the incoming number nor the reply.
    drop(s);
    let mut s = open(dir.path());
    assert_eq!(s.next_target_seq(), 2, "the order was never processed");
    assert_eq!(s.next_sender_seq(), 2, "its reply never existed");
    let replies = |s: &mut Session<FileStore>| {
        let mut r = Vec::new();
        s.store_mut()
            .for_each_in_range(1, SEQ_END, &mut |seq, m| {
                if m.windows(6).any(|w| w == b"\x0135=8\x01") {
                    r.push(seq);
                }
            })
            .unwrap();
        r
    };
    assert!(replies(&mut s).is_empty());

    // Connected again; this time the batch is committed before the crash.
    s.on_connected(T0, &mut Venue);
    s.on_bytes(
        &message(b"A", 2, T0, &[(98, b"0"), (108, b"30")]),
        T0,
        &mut Venue,
    );
    s.on_bytes(&message(b"D", 3, T0, &[(11, b"ORD-1")]), T0, &mut Venue);
    s.commit().unwrap();
    drop(s);
    let mut s = open(dir.path());
    assert_eq!(s.next_target_seq(), 4, "the Logon and the order processed");
    assert_eq!(replies(&mut s), [3], "exactly one reply, stored");
}

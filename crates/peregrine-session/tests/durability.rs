//! The session over a durable FileStore: one commit (one write, one fsync) per
//! batch of input, however many messages it holds; and an incoming message's
//! sequence number and the replies sent while handling it made durable
//! together, so that after a crash the message has been processed with its
//! replies stored, or not at all.

use std::path::Path;

use peregrine_codec::value::{TimePrecision, UtcTimestamp};
use peregrine_codec::{EncodeBuffer, MessageView};
use peregrine_session::{
    AppReject, Application, Nanos, Outbox, Role, Session, SessionConfig, SessionId,
};
use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MessageStore, SEQ_END};

const T0: Nanos = 1_795_341_600_250_000_000;

/// Answers every order with an ExecutionReport.
struct Venue;
impl Application for Venue {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let id = msg.get(11).unwrap_or(b"?");
        out.send(b"8", |m| {
            m.str(11, id)
                .str(17, id)
                .str(37, id)
                .str(39, b"0")
                .str(150, b"0");
        })
        .map(|_| ())
        .map_err(|_| AppReject::UnsupportedMessageType)
    }
}

fn message(enc: &mut EncodeBuffer, msg_type: &[u8], seq: u64, extra: &[(u32, &[u8])]) -> Vec<u8> {
    let mut m = enc.start(b"FIX.4.4", msg_type);
    m.uint(34, seq).str(49, b"TW").timestamp(
        52,
        &UtcTimestamp::from_unix_nanos(T0, TimePrecision::Millis),
        TimePrecision::Millis,
    );
    m.str(56, b"ISLD");
    for &(t, v) in extra {
        m.str(t, v);
    }
    m.finish().to_vec()
}

fn open(dir: &Path) -> Session<FileStore> {
    let store = FileStore::open(
        dir,
        "FIX.4.4:ISLD->TW",
        FileStoreConfig::with_fsync(FsyncPolicy::EveryCommit),
        T0,
    )
    .unwrap();
    let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    Session::new(cfg, store, T0)
}

fn logged_on(dir: &Path, enc: &mut EncodeBuffer) -> Session<FileStore> {
    let mut s = open(dir);
    s.on_connected(T0, &mut Venue);
    s.on_bytes(
        &message(enc, b"A", 1, &[(98, b"0"), (108, b"30")]),
        T0,
        &mut Venue,
    );
    assert!(s.is_logged_on());
    s.commit().unwrap();
    s.consume_outbound(s.outbound().len(), &mut Venue);
    s
}

#[test]
fn a_batch_of_input_costs_one_fsync_however_many_messages_it_holds() {
    // The reliability issue: a TestRequest flood on a file-store session cost
    // three fsyncs per message (the Heartbeat, and each sequence number).
    let dir = tempfile::tempdir().unwrap();
    let mut enc = EncodeBuffer::new();
    let mut s = logged_on(dir.path(), &mut enc);
    let before = s.store().stats();
    let mut batch = Vec::new();
    for i in 0..1000u64 {
        batch.extend(message(&mut enc, b"1", 2 + i, &[(112, b"FLOOD")]));
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
    let mut enc = EncodeBuffer::new();
    let mut s = logged_on(dir.path(), &mut enc);
    s.on_bytes(
        &message(&mut enc, b"D", 2, &[(11, b"ORD-1")]),
        T0,
        &mut Venue,
    );
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
        &message(&mut enc, b"A", 2, &[(98, b"0"), (108, b"30")]),
        T0,
        &mut Venue,
    );
    s.on_bytes(
        &message(&mut enc, b"D", 3, &[(11, b"ORD-1")]),
        T0,
        &mut Venue,
    );
    s.commit().unwrap();
    drop(s);
    let mut s = open(dir.path());
    assert_eq!(s.next_target_seq(), 4, "the Logon and the order processed");
    assert_eq!(replies(&mut s), [3], "exactly one reply, stored");
}

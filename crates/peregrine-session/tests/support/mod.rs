//! What the session's tests and its example share: the clock's start, the
//! acceptor they drive (ISLD, with TW as the peer), the peer's messages and the
//! FIX44 dictionary.
#![allow(dead_code)]

use std::sync::Arc;

use peregrine_codec::value::{TimePrecision, UtcTimestamp};
use peregrine_codec::{EncodeBuffer, MessageView};
use peregrine_dict::{Dictionaries, Dictionary};
use peregrine_session::{
    AppReject, Application, Nanos, Outbox, Role, Session, SessionConfig, SessionId,
};
use peregrine_store::MessageStore;

/// 2026-11-22 10:00:00.250 UTC: a fraction of a second, as a real clock would have.
pub const T0: Nanos = 1_795_341_600_250_000_000;

/// The acceptor ISLD, talking to TW, on `begin`.
pub fn config(begin: &str) -> SessionConfig {
    let mut cfg = SessionConfig::new(SessionId::new(begin, "ISLD", "TW"), Role::Acceptor);
    // SendingTime follows the time the test passes in.
    cfg.clock = peregrine_session::SessionClock::Driver;
    cfg
}

/// The FIX44 dictionary of peregrine-dict.
pub fn fix44() -> Arc<Dictionaries> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../peregrine-dict/dictionaries/FIX44.xml"
    );
    Arc::new(Dictionaries::single(Dictionary::from_file(path).unwrap()))
}

/// A FIX.4.4 message from TW to ISLD: `msg_type`, MsgSeqNum `seq`, SendingTime
/// `now`, then `body`.
pub fn message(msg_type: &[u8], seq: u64, now: Nanos, body: &[(u32, &[u8])]) -> Vec<u8> {
    message_from("TW", msg_type, seq, now, body)
}

/// As [`message`], from `sender` (to ISLD).
pub fn message_from(
    sender: &str,
    msg_type: &[u8],
    seq: u64,
    now: Nanos,
    body: &[(u32, &[u8])],
) -> Vec<u8> {
    let mut buf = EncodeBuffer::new();
    let mut m = buf.start(b"FIX.4.4", msg_type);
    let ts = UtcTimestamp::from_unix_nanos(now, TimePrecision::Millis);
    m.uint(34, seq)
        .str(49, sender.as_bytes())
        .timestamp(52, &ts, TimePrecision::Millis)
        .str(56, b"ISLD");
    for &(t, v) in body {
        m.str(t, v);
    }
    m.finish().to_vec()
}

/// A NewOrderSingle's body (ClOrdID `id`, 100 MSFT at 10.25), as the peer sends it.
pub fn new_order(id: &[u8]) -> Vec<(u32, &[u8])> {
    vec![
        (11, id),
        (21, b"1"),
        (38, b"100"),
        (40, b"2"),
        (44, b"10.25"),
        (54, b"1"),
        (55, b"MSFT"),
        (60, b"20261122-10:00:00.250"),
    ]
}

/// The application of the tests that need a plain one: answers every application
/// message with an ExecutionReport.
pub struct Venue;
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

/// Commits `session` and hands all its outbound bytes to the wire, as the engine
/// does (commit, then write); returns them as messages rendered with `|`, without
/// 8, 9, 10, 52 and 122 (the fields that change with the clock and the length).
pub fn drain_rendered<S: MessageStore>(
    session: &mut Session<S>,
    app: &mut dyn Application,
) -> Vec<String> {
    session.commit().unwrap();
    let bytes = session.outbound().to_vec();
    session.consume_outbound(bytes.len(), app);
    let text = String::from_utf8_lossy(&bytes).replace('\x01', "|");
    text.split("8=FIX")
        .filter(|m| !m.is_empty())
        .map(|m| {
            m.split('|')
                .skip(1)
                .filter(|f| {
                    let tag = f.split('=').next().unwrap_or("");
                    !f.is_empty() && !matches!(tag, "9" | "10" | "52" | "122")
                })
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect()
}

/// Connects `session` and logs TW on at T0 (MsgSeqNum 1, HeartBtInt 30); the
/// answer is committed and consumed, the events drained.
pub fn log_on<S: MessageStore>(session: &mut Session<S>, app: &mut dyn Application) {
    session.on_connected(T0, app);
    let logon = message(b"A", 1, T0, &[(98, b"0"), (108, b"30")]);
    session.on_bytes(&logon, T0, app);
    assert!(session.is_logged_on());
    session.commit().unwrap();
    session.consume_outbound(session.outbound().len(), app);
    while session.poll_event().is_some() {}
}

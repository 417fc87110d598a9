//! The counters against a session driven through a whole life, with a
//! virtual clock: each count equals what happened on the wire.

use peregrine_codec::value::{TimePrecision, UtcTimestamp};
use peregrine_codec::EncodeBuffer;
use peregrine_store::MemoryStore;

use super::{SessionCounters, LATENCY_BUCKETS};
use crate::{
    DisconnectReason, EchoApp, Nanos, RejectKind, Role, Session, SessionClock, SessionConfig,
    SessionId, SessionState, SECOND,
};

const T0: Nanos = 1_795_341_600_250_000_000;

struct Peer {
    session: Session<MemoryStore>,
    app: EchoApp,
    now: Nanos,
    /// Every message the session wrote, as text with `|` for SOH.
    written: Vec<String>,
}

impl Peer {
    fn new() -> Peer {
        let mut cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
        cfg.clock = SessionClock::Driver;
        let mut peer = Peer {
            session: Session::new(cfg, MemoryStore::new(T0), T0),
            app: EchoApp::new(None),
            now: T0,
            written: Vec::new(),
        };
        peer.session.on_connected(T0, &mut peer.app);
        peer
    }

    fn counters(&self) -> &SessionCounters {
        self.session.counters()
    }

    /// A message from TW: `fields` after BeginString, header added.
    fn send(&mut self, fields: &str) {
        let ts = UtcTimestamp::from_unix_nanos(self.now, TimePrecision::Millis).to_string();
        // `MsgType|MsgSeqNum|tag=value|…`
        let mut f = fields.split('|');
        let msg_type = f.next().unwrap();
        let seq = f.next().unwrap();
        let mut buf = EncodeBuffer::new();
        let mut m = buf.start(b"FIX.4.4", msg_type.as_bytes());
        m.str(34, seq.as_bytes())
            .str(49, b"TW")
            .str(52, ts.as_bytes())
            .str(56, b"ISLD");
        for (t, v) in f.map(|f| f.split_once('=').unwrap()) {
            m.str(t.parse().unwrap(), v.as_bytes());
        }
        let bytes = m.finish().to_vec();
        self.session.on_bytes(&bytes, self.now, &mut self.app);
        self.drain();
    }

    /// Commits and takes what the session wrote, as the engine does.
    fn drain(&mut self) {
        self.session.commit().unwrap();
        let out = String::from_utf8_lossy(self.session.outbound()).replace('\x01', "|");
        let n = self.session.outbound().len();
        self.session.consume_outbound(n, &mut self.app);
        self.written.extend(
            out.split("8=FIX.4.4|")
                .filter(|m| !m.is_empty())
                .map(str::to_string),
        );
        while let Some(e) = self.session.poll_event() {
            if let crate::SessionEvent::Disconnect(_) = e {
                self.session.on_disconnected(self.now, &mut self.app);
            }
        }
    }

    fn written_of(&self, msg_type: &str) -> usize {
        let tag = format!("|35={msg_type}|");
        self.written.iter().filter(|m| m.contains(&tag)).count()
    }
}

#[test]
fn every_count_equals_what_happened_on_the_wire() {
    let mut p = Peer::new();
    assert_eq!(p.counters().state(), SessionState::AwaitingLogon);
    p.send("A|1|98=0|108=30");
    let c = p.session.counters().clone();
    assert_eq!((c.logons(), c.state()), (1, SessionState::LoggedOn));
    assert_eq!((c.next_sender_seq(), c.next_target_seq()), (2, 2));

    // An order, echoed; an unsupported message type, rejected (35=j, 380=3).
    p.send("D|2|11=A|21=1|38=100|40=1|54=1|55=X|60=20260101-00:00:00");
    p.send("AE|3|571=R1");
    assert_eq!(c.rejects_sent(RejectKind::Business, Some(3)), 1);
    // A ResendRequest whose end is before its begin: a session Reject, 373=5.
    p.send("2|4|7=3|16=2");
    assert_eq!(c.rejects_sent(RejectKind::Session, Some(5)), 1);
    assert_eq!(p.written_of("3"), 1);
    // The peer rejects: a session Reject (373=1) and a BusinessMessageReject (380=4),
    // and one with a reason no slot has.
    p.send("3|5|45=2|373=1");
    p.send("j|6|45=2|372=D|380=4");
    p.send("3|7|45=2|373=4000");
    assert_eq!(c.rejects_received(RejectKind::Session, Some(1)), 1);
    assert_eq!(c.rejects_received(RejectKind::Business, Some(4)), 1);
    // EchoApp does not take a BusinessMessageReject either: it rejects it (380=3).
    assert_eq!(c.rejects_sent(RejectKind::Business, Some(3)), 2);
    assert_eq!(c.rejects_received(RejectKind::Session, Some(77)), 1); // `other`
    let other: Vec<_> = c
        .rejects_received_by_reason(RejectKind::Session)
        .filter(|&(_, n)| n > 0)
        .collect();
    assert_eq!(other, [("1", 1), ("other", 1)]);

    // The peer asks for everything: Logon (1) and the Reject (4) are admin, gap-filled;
    // the echo (2) and the BusinessMessageRejects (3, 5) are resent.
    p.send("2|8|7=1|16=0");
    assert_eq!(c.resend_requests_received(), 2);
    assert_eq!(c.resends_answered(), 1);
    assert_eq!(c.messages_resent(), 3);
    assert_eq!(c.gap_fills_sent(), 2);
    assert_eq!(p.written_of("4"), 2);

    // A gap: 9 and 10 are missing; the peer fills them.
    p.send("0|11");
    assert_eq!((c.gaps_detected(), c.resend_requests_sent()), (1, 1));
    p.send("4|9|43=Y|122=20260101-00:00:00|123=Y|36=11");
    assert_eq!(c.gap_fills_received(), 1);
    assert_eq!(c.next_target_seq(), 12); // the held Heartbeat (11) came through

    // Silence: our Heartbeat, then a TestRequest; the answer comes 250 ms later.
    p.now += 36 * SECOND;
    p.session.on_timer(p.now, &mut p.app);
    p.drain();
    assert_eq!((c.test_requests_sent(), p.written_of("1")), (1, 1));
    p.now += 250_000_000;
    p.send("0|12|112=TEST");
    let rtt = c.heartbeat_rtt().snapshot();
    assert_eq!((rtt.count(), rtt.sum_nanos), (1, 250_000_000));
    assert_eq!(rtt.buckets[18], 1); // 250 ms: above 131 ms, at most 262 ms
                                    // A Heartbeat of its own (no TestReqID) is no round-trip.
    p.send("0|13");
    assert_eq!(c.heartbeat_rtt().snapshot().count(), 1);
    assert_eq!(c.heartbeat_rtt().snapshot().buckets[LATENCY_BUCKETS], 0);

    // Garbled bytes (a wrong CheckSum) are not a message received.
    let received = c.messages_received();
    p.session
        .on_bytes(b"8=FIX.4.4\x019=5\x0135=0\x0110=000\x01", p.now, &mut p.app);
    p.drain();
    assert_eq!((c.garbled(), c.messages_received()), (1, received));

    // The peer logs out: answered, and the connection ends for that reason.
    p.send("5|14");
    assert_eq!((c.logouts_received(), c.logouts_sent()), (1, 1));
    assert_eq!(c.disconnects(Some(DisconnectReason::Logout)), 1);
    assert_eq!(c.disconnects_by_reason().map(|(_, n)| n).sum::<u64>(), 1);
    assert_eq!(c.state(), SessionState::Disconnected);

    // Messages: 13 decoded from the peer (9 and 10 were one gap fill); every
    // message written counted once.
    assert_eq!(c.messages_received(), 13);
    assert_eq!(c.messages_sent(), p.written.len() as u64);
    assert_eq!(
        (c.next_sender_seq(), c.next_target_seq()),
        (p.session.next_sender_seq(), 15)
    );
}

#[test]
fn a_message_stored_while_logged_out_counts_as_sent_once_resent() {
    let mut cfg = SessionConfig::new(SessionId::new("FIX.4.4", "TW", "ISLD"), Role::Initiator);
    cfg.clock = SessionClock::Driver;
    let mut session = Session::new(cfg, MemoryStore::new(T0), T0);
    let mut app = EchoApp::new(None);
    session
        .send(T0, &mut app, b"D", |m| {
            m.str(11, b"A");
        })
        .unwrap();
    let c = session.counters();
    assert_eq!((c.messages_sent(), c.next_sender_seq()), (0, 2));
}

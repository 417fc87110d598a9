//! The application contract (QuickFIX/J's `Application`, zero-copy): `on_logon` may send,
//! `to_admin` adds fields to admin messages, `to_app` vetoes new messages and resends,
//! `on_logout` says why, events arrive in order, business rejects carry dynamic texts
//! and BusinessRejectRefID. Sans-IO, with a mock clock.

use crate::support;

use peregrine_codec::value::{TimePrecision, UtcTimestamp};
use peregrine_codec::{EncodeBuffer, MessageView};
use peregrine_session::{
    AdminMessage, AppEvent, AppReject, Application, DisconnectReason, DoNotSend, LogoutReason,
    Nanos, Outbox, OutgoingMessage, RefId, RejectKind, Role, SendError, Session, SessionConfig,
    SessionEvent, SessionId, SECOND,
};
use peregrine_store::MemoryStore;
use support::{drain_rendered, T0};

/// `on_logout`'s reason, owned, for assertions.
#[derive(Debug, PartialEq, Eq)]
enum Why {
    Local(Option<String>, Option<DisconnectReason>),
    Remote(Option<String>),
    Disconnected(Option<DisconnectReason>),
}

fn text(t: Option<&[u8]>) -> Option<String> {
    t.map(|t| String::from_utf8_lossy(t).into_owned())
}

/// What `to_app` was shown.
#[derive(Debug, PartialEq, Eq)]
struct Shown {
    seq: u64,
    msg_type: String,
    resend: bool,
    /// PossDupFlag(43) as decoded from the bytes to be sent.
    poss_dup: Option<String>,
}

/// An application recording every callback and event, in order, with knobs.
#[derive(Default)]
struct Rec {
    log: Vec<String>,
    /// `on_logon` sends a News (35=B) with this headline.
    logon_news: Option<&'static str>,
    /// With this many extra header fields (9000=0, 9001=1, …).
    logon_news_header: usize,
    /// And this one before them.
    logon_news_first: Option<(u32, &'static str)>,
    /// What that send returned.
    logon_news_sent: Option<Result<u64, String>>,
    /// `to_admin` adds these (msg type, or "" for all; tag; value).
    add: Vec<(&'static str, u32, &'static str)>,
    /// `to_app` vetoes new messages of this ClOrdID.
    veto_new: Option<&'static [u8]>,
    /// `to_app` vetoes resends of these sequence numbers.
    veto_resend: Vec<u64>,
    /// `to_app` sets these (on resends only?; tag; value).
    amend: Vec<(bool, u32, &'static str)>,
    shown: Vec<Shown>,
    /// `from_app` refuses with this.
    reject: Option<AppReject>,
    /// `from_app` answers with an ExecutionReport per ClOrdID here, and what each
    /// send returned.
    reply: Vec<&'static str>,
    replied: Vec<Result<u64, String>>,
    logouts: Vec<Why>,
    /// `Outbox::received_at` in each `on_logon` and `from_app`, with the callback.
    arrivals: Vec<(&'static str, Nanos)>,
}

impl Application for Rec {
    fn on_create(&mut self, id: &SessionId) {
        self.log.push(format!("on_create {id}"));
    }
    fn on_logon(&mut self, _id: &SessionId, out: &mut Outbox<'_>) {
        self.log.push("on_logon".into());
        self.arrivals.push(("on_logon", out.received_at()));
        if let Some(headline) = self.logon_news {
            let values: Vec<String> = (0..self.logon_news_header).map(|i| i.to_string()).collect();
            let header: Vec<(u32, &[u8])> = self
                .logon_news_first
                .map(|(t, v)| (t, v.as_bytes()))
                .into_iter()
                .chain(
                    values
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (9000 + i as u32, v.as_bytes())),
                )
                .collect();
            let sent = out.send_with_header(b"B", &header, |m| {
                m.str(148, headline.as_bytes());
            });
            self.logon_news_sent = Some(sent.map_err(|e| e.to_string()));
        }
    }
    fn on_logout(&mut self, _id: &SessionId, reason: &LogoutReason<'_>, _out: &mut Outbox<'_>) {
        self.log.push(format!("on_logout: {reason}"));
        self.logouts.push(match *reason {
            LogoutReason::Local {
                text: t,
                disconnect,
            } => Why::Local(text(t), disconnect),
            LogoutReason::Remote { text: t } => Why::Remote(text(t)),
            LogoutReason::Disconnected(r) => Why::Disconnected(r),
            _ => unreachable!(),
        });
    }
    fn to_admin(&mut self, msg: &mut AdminMessage<'_>, _id: &SessionId) {
        let kind = String::from_utf8_lossy(msg.msg_type()).into_owned();
        self.log.push(format!("to_admin {kind} {}", msg.seq_num()));
        for &(t, tag, v) in &self.add {
            if t.is_empty() || t == kind {
                msg.str(tag, v.as_bytes());
            }
        }
    }
    fn from_admin(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), peregrine_session::RejectLogon> {
        self.log.push(format!(
            "from_admin {}",
            String::from_utf8_lossy(msg.msg_type())
        ));
        Ok(())
    }
    fn to_app(&mut self, msg: &mut OutgoingMessage<'_>, _id: &SessionId) -> Result<(), DoNotSend> {
        let (seq, resend) = (msg.seq_num(), msg.is_resend());
        let msg_type = String::from_utf8_lossy(msg.msg_type()).into_owned();
        let view = msg.view().expect("our own message decodes");
        let poss_dup = text(view.get(43));
        let cl_ord_id = view.get(11).map(<[u8]>::to_vec);
        self.log.push(format!("to_app {msg_type} {seq}"));
        self.shown.push(Shown {
            seq,
            msg_type,
            resend,
            poss_dup,
        });
        let vetoed = if resend {
            self.veto_resend.contains(&seq)
        } else {
            self.veto_new.is_some() && cl_ord_id.as_deref() == self.veto_new
        };
        if vetoed {
            return Err(DoNotSend);
        }
        for &(resends_only, tag, value) in &self.amend {
            if resend || !resends_only {
                msg.str(tag, value.as_bytes());
            }
        }
        Ok(())
    }
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.log.push(format!(
            "from_app {}",
            String::from_utf8_lossy(msg.msg_type())
        ));
        self.arrivals.push(("from_app", out.received_at()));
        for id in &self.reply {
            let sent = out.send(b"8", |m| {
                m.str(11, id.as_bytes()).str(39, b"0");
            });
            self.replied.push(sent.map_err(|e| e.to_string()));
        }
        match &self.reject {
            Some(r) => Err(r.clone()),
            None => Ok(()),
        }
    }
    fn on_event(&mut self, _id: &SessionId, event: &AppEvent<'_>, _out: &mut Outbox<'_>) {
        self.log.push(format!("event: {event}"));
    }
}

/// One session (ISLD, talking to TW) and its peer's side, with a mock clock.
struct Harness {
    session: Session<MemoryStore>,
    app: Rec,
    now: Nanos,
    begin: &'static str,
}

impl Harness {
    fn new(begin: &'static str, role: Role, app: Rec) -> Harness {
        let cfg = SessionConfig::new(SessionId::new(begin, "ISLD", "TW"), role);
        let mut h = Harness {
            session: Session::new(cfg, MemoryStore::new(T0), T0),
            app,
            now: T0,
            begin,
        };
        h.session.create(&mut h.app);
        h.session.on_connected(T0, &mut h.app);
        h
    }

    fn acceptor(app: Rec) -> Harness {
        Harness::new("FIX.4.4", Role::Acceptor, app)
    }

    /// A message from the peer (`8`, `9`, `10`, `49=TW`, `52=now`, `56=ISLD` added).
    fn msg(&self, fields: &str) -> Vec<u8> {
        let mut f = fields.split('|').filter(|f| !f.is_empty()).map(|f| {
            let (t, v) = f.split_once('=').unwrap();
            (t.parse::<u32>().unwrap(), v)
        });
        let (_, msg_type) = f.next().unwrap();
        let (_, seq) = f.next().unwrap();
        let mut buf = EncodeBuffer::new();
        let mut m = buf.start(self.begin.as_bytes(), msg_type.as_bytes());
        let ts = UtcTimestamp::from_unix_nanos(self.now, TimePrecision::Millis).to_string();
        m.str(34, seq.as_bytes())
            .str(49, b"TW")
            .str(52, ts.as_bytes())
            .str(56, b"ISLD");
        for (t, v) in f {
            m.str(t, v.as_bytes());
        }
        m.finish().to_vec()
    }

    fn send(&mut self, fields: &str) {
        let m = self.msg(fields);
        self.session.on_bytes(&m, self.now, &mut self.app);
    }

    /// The session sends a NewOrderSingle (35=D) of `body` now, from outside a callback.
    fn send_order(&mut self, body: &[(u32, &[u8])]) -> Result<u64, SendError> {
        self.session.send(self.now, &mut self.app, b"D", |m| {
            for &(tag, value) in body {
                m.str(tag, value);
            }
        })
    }

    /// What the session wrote (see [`drain_rendered`]).
    fn out(&mut self) -> Vec<String> {
        drain_rendered(&mut self.session, &mut self.app)
    }

    fn disconnect_reason(&mut self) -> Option<DisconnectReason> {
        std::iter::from_fn(|| self.session.poll_event()).find_map(|e| match e {
            SessionEvent::Disconnect(r) => Some(r),
            _ => None,
        })
    }

    fn logon(&mut self) {
        self.send("35=A|34=1|98=0|108=30");
        assert!(self.session.is_logged_on());
        self.out();
        while self.session.poll_event().is_some() {}
    }

    fn closed(&mut self) {
        self.session.on_disconnected(self.now, &mut self.app);
    }

    /// Asserts that `entry` is in the log.
    fn assert_logged(&self, entry: &str) {
        assert!(
            self.app.log.iter().any(|l| l == entry),
            "{entry:?} not in {:#?}",
            self.app.log
        );
    }

    /// The log, from the entry starting with `from` on.
    fn log_from(&self, from: &str) -> Vec<String> {
        let i = self
            .app
            .log
            .iter()
            .position(|l| l.starts_with(from))
            .unwrap_or_else(|| panic!("{from:?} not in {:#?}", self.app.log));
        self.app.log[i..].to_vec()
    }
}

// ---------------------------------------------------------------------------------------
// on_logon

#[test]
fn callbacks_learn_when_their_message_arrived_and_a_held_one_when_its_gap_filled() {
    const S: Nanos = 1_000_000_000;
    let mut h = Harness::acceptor(Rec::default());
    h.now = T0 + S;
    h.send("35=A|34=1|98=0|108=30");
    h.now = T0 + 2 * S;
    h.send("35=B|34=2|148=first");
    // 4 arrives before 3: held until 3 fills the gap, and handled then.
    h.now = T0 + 3 * S;
    h.send("35=B|34=4|148=third");
    h.now = T0 + 4 * S;
    h.send("35=B|34=3|148=second");
    assert_eq!(
        h.app.arrivals,
        [
            ("on_logon", T0 + S),
            ("from_app", T0 + 2 * S),
            ("from_app", T0 + 4 * S),
            ("from_app", T0 + 4 * S),
        ]
    );
}

#[test]
fn on_logon_can_send_and_its_message_follows_the_logon() {
    let mut h = Harness::acceptor(Rec {
        logon_news: Some("session up"),
        ..Rec::default()
    });
    h.send("35=A|34=1|98=0|108=30");
    assert_eq!(
        h.out(),
        [
            "35=A|34=1|49=ISLD|56=TW|98=0|108=30",
            "35=B|34=2|49=ISLD|56=TW|148=session up",
        ]
    );
    assert_eq!(h.session.next_sender_seq(), 3);
}

/// Every extra header field given to `Outbox::send_with_header` is sent (17
/// used to be cut to 16 without a word); more than the stated bound is an error
/// and nothing is sent.
#[test]
fn send_with_header_sends_every_field_or_refuses_past_its_bound() {
    let mut h = Harness::acceptor(Rec {
        logon_news: Some("hops"),
        logon_news_header: 17,
        ..Rec::default()
    });
    h.send("35=A|34=1|98=0|108=30");
    let out = h.out();
    let header: String = (0..17).map(|i| format!("|{}={i}", 9000 + i)).collect();
    assert_eq!(out[1], format!("35=B|34=2|49=ISLD|56=TW{header}|148=hops"));
    assert_eq!(h.app.logon_news_sent, Some(Ok(2)));

    let max = Outbox::MAX_HEADER_FIELDS;
    let mut h = Harness::acceptor(Rec {
        logon_news: Some("too many"),
        logon_news_header: max + 1,
        ..Rec::default()
    });
    h.send("35=A|34=1|98=0|108=30");
    assert_eq!(h.out(), ["35=A|34=1|49=ISLD|56=TW|98=0|108=30"]);
    assert_eq!(
        h.app.logon_news_sent,
        Some(Err(SendError::TooManyHeaderFields {
            given: max + 1,
            max
        }
        .to_string()))
    );
    assert_eq!(h.session.next_sender_seq(), 2, "no sequence number used");

    // A field the session writes (MsgSeqNum here) would make the wire differ
    // from the store: refused, nothing sent. PossResend(97) is the caller's.
    for (tag, value, sent) in [
        (34, "99", false),
        (52, "20260101-00:00:00", false),
        (97, "Y", true),
    ] {
        let mut h = Harness::acceptor(Rec {
            logon_news: Some("first"),
            logon_news_first: Some((tag, value)),
            ..Rec::default()
        });
        h.send("35=A|34=1|98=0|108=30");
        let out = h.out();
        if sent {
            assert_eq!(
                out[1],
                format!("35=B|34=2|49=ISLD|56=TW|{tag}={value}|148=first")
            );
        } else {
            assert_eq!(out.len(), 1, "{out:?}");
            assert_eq!(
                h.app.logon_news_sent,
                Some(Err(SendError::SessionHeaderField { tag }.to_string()))
            );
        }
    }
}

#[test]
fn on_logon_of_an_initiator_sends_after_the_resend_request_its_logon_called_for() {
    let mut h = Harness::new(
        "FIX.4.4",
        Role::Initiator,
        Rec {
            logon_news: Some("hello"),
            ..Rec::default()
        },
    );
    assert_eq!(h.out(), ["35=A|34=1|49=ISLD|56=TW|98=0|108=30"]);
    // The answer is numbered 3: messages 1 and 2 are missing.
    h.send("35=A|34=3|98=0|108=30");
    assert_eq!(
        h.out(),
        [
            "35=2|34=2|49=ISLD|56=TW|7=1|16=0",
            "35=B|34=3|49=ISLD|56=TW|148=hello",
        ]
    );
}

// ---------------------------------------------------------------------------------------
// to_admin

/// A header tag `to_admin` sets many times is sent once, with its last value,
/// and the header fields after it are not cut (past 40 entries they were).
#[test]
fn to_admin_setting_a_header_tag_again_keeps_the_last_value_and_cuts_nothing() {
    const VALUES: [&str; 4] = ["D1", "D2", "D3", "D4"];
    let mut add: Vec<(&'static str, u32, &'static str)> =
        (0..60).map(|k| ("A", 50, VALUES[k % 4])).collect();
    add.push(("A", 57, "DESK")); // TargetSubID, after sixty SenderSubIDs
    let mut h = Harness::new(
        "FIX.4.4",
        Role::Initiator,
        Rec {
            add,
            ..Rec::default()
        },
    );
    assert_eq!(
        h.out(),
        ["35=A|34=1|49=ISLD|50=D4|56=TW|57=DESK|98=0|108=30"]
    );
}

#[test]
fn to_admin_adds_fields_to_the_logon_on_the_wire() {
    let mut h = Harness::new(
        "FIX.4.4",
        Role::Initiator,
        Rec {
            add: vec![
                ("A", 553, "trader"),
                ("A", 554, "s3cret"),
                ("", 50, "DESK1"), // SenderSubID: into the header, of every admin message
                ("", 34, "999"),   // the session's own: not replaced
            ],
            ..Rec::default()
        },
    );
    h.session.commit().unwrap();
    let wire = String::from_utf8_lossy(h.session.outbound()).replace('\x01', "|");
    assert!(
        wire.starts_with("8=FIX.4.4|9=") && wire.contains("|35=A|34=1|49=ISLD|50=DESK1|52="),
        "{wire}"
    );
    assert!(
        wire.contains("|56=TW|98=0|108=30|553=trader|554=s3cret|10="),
        "{wire}"
    );
    assert_eq!(
        h.out(),
        ["35=A|34=1|49=ISLD|50=DESK1|56=TW|98=0|108=30|553=trader|554=s3cret"]
    );
    // The answer, then a Heartbeat on the timer: 50 again, 553/554 not.
    h.send("35=A|34=1|98=0|108=30");
    assert!(h.session.is_logged_on());
    h.now += 30 * SECOND;
    h.session.on_timer(h.now, &mut h.app);
    assert_eq!(h.out(), ["35=0|34=2|49=ISLD|50=DESK1|56=TW"]);
    assert_eq!(
        h.app
            .log
            .iter()
            .filter(|l| l.starts_with("to_admin"))
            .collect::<Vec<_>>(),
        ["to_admin A 1", "to_admin 0 2"]
    );
}

#[test]
fn to_admin_reaches_rejects_resend_requests_gap_fills_and_logouts() {
    let mut h = Harness::acceptor(Rec {
        add: vec![("", 57, "DESK2")],
        ..Rec::default()
    });
    h.logon();
    h.send("35=0|34=3"); // 2 is missing: a ResendRequest
    h.send("35=1|34=2"); // no TestReqID(112): a Reject
    h.send("35=2|34=4|7=1|16=1"); // our Logon again: a gap fill
    assert_eq!(
        h.out(),
        [
            "35=2|34=2|49=ISLD|56=TW|57=DESK2|7=2|16=0",
            "35=3|34=3|49=ISLD|56=TW|57=DESK2|45=2|58=Required tag missing|371=112|372=1|373=1",
            "35=4|34=1|43=Y|49=ISLD|56=TW|57=DESK2|36=2|123=Y",
        ]
    );
    h.session.logout(h.now, Some("bye"), &mut h.app);
    assert_eq!(h.out(), ["35=5|34=4|49=ISLD|56=TW|57=DESK2|58=bye"]);
}

// ---------------------------------------------------------------------------------------
// to_app

#[test]
fn to_app_sees_new_messages_and_its_veto_keeps_the_sequence_number() {
    let mut h = Harness::acceptor(Rec {
        veto_new: Some(b"STALE"),
        ..Rec::default()
    });
    h.logon();
    let vetoed = h.send_order(&[(11, b"STALE"), (55, b"MSFT")]);
    assert!(matches!(vetoed, Err(SendError::DoNotSend)), "{vetoed:?}");
    assert!(h.out().is_empty(), "nothing stored nor sent");
    assert_eq!(h.session.next_sender_seq(), 2, "the number is not used");
    // The next message takes the number.
    let seq = h.send_order(&[(11, b"FRESH"), (55, b"MSFT")]).unwrap();
    assert_eq!(seq, 2);
    assert_eq!(h.out(), ["35=D|34=2|49=ISLD|56=TW|11=FRESH|55=MSFT"]);
    assert_eq!(
        h.app.shown,
        [
            Shown {
                seq: 2,
                msg_type: "D".into(),
                resend: false,
                poss_dup: None
            },
            Shown {
                seq: 2,
                msg_type: "D".into(),
                resend: false,
                poss_dup: None
            },
        ]
    );
    // A resend of it would not find the vetoed one: only 2 is in the store.
    h.send("35=2|34=2|7=2|16=0");
    assert_eq!(h.out(), ["35=D|34=2|43=Y|49=ISLD|56=TW|11=FRESH|55=MSFT"]);
}

/// The messages of `bytes` decoded with checksum and BodyLength checked.
/// What a callback sends goes through `to_app` too, as QuickFIX/J's `toApp` sees
/// every application message: kept until `from_app` returns, then each is shown,
/// may be amended, and a veto leaves its sequence number to the next one.
#[test]
fn to_app_sees_vetoes_and_amends_what_a_callback_sends() {
    let mut h = Harness::acceptor(Rec {
        reply: vec!["A", "X", "B"],
        veto_new: Some(b"X"),
        amend: vec![(false, 58, "seen")],
        ..Rec::default()
    });
    h.logon();
    h.send("35=D|34=2|11=ORDER|55=IBM");
    assert_eq!(
        h.out(),
        [
            "35=8|34=2|49=ISLD|56=TW|11=A|39=0|58=seen",
            "35=8|34=3|49=ISLD|56=TW|11=B|39=0|58=seen",
        ]
    );
    // The numbers the outbox handed out were the ones to come, before any veto.
    assert_eq!(h.app.replied, [Ok(2), Ok(3), Ok(4)]);
    let shown: Vec<(u64, &str, bool)> = h
        .app
        .shown
        .iter()
        .map(|s| (s.seq, s.msg_type.as_str(), s.resend))
        .collect();
    assert_eq!(shown, [(2, "8", false), (3, "8", false), (3, "8", false)]);
    assert_eq!(h.session.next_sender_seq(), 4);
    assert_eq!(
        h.log_from("from_app"),
        ["from_app D", "to_app 8 2", "to_app 8 3", "to_app 8 3"]
    );
}

/// A callback's outbox keeps at most `max_outbound_bytes` (what the outbound
/// buffer would hold): past it a send is refused, not kept without bound.
#[test]
fn a_callback_outbox_is_bounded_by_max_outbound_bytes() {
    let mut cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
    cfg.max_outbound_bytes = 4096;
    let mut h = Harness {
        session: Session::new(cfg, MemoryStore::new(T0), T0),
        app: Rec {
            reply: vec!["ORDER-ID"; 400],
            ..Rec::default()
        },
        now: T0,
        begin: "FIX.4.4",
    };
    h.session.create(&mut h.app);
    h.session.on_connected(T0, &mut h.app);
    h.logon();
    h.send("35=D|34=2|11=ORDER|55=IBM");
    // Each kept message: MsgType 8 and `11=ORDER-ID|39=0|` (17 bytes), 18 in all.
    let kept = h.app.replied.iter().filter(|r| r.is_ok()).count();
    assert_eq!(kept, 4096 / 18);
    assert!(h.app.replied[kept..]
        .iter()
        .all(|r| r.as_ref().is_err_and(|e| e.contains("holds 4096 bytes"))));
}

fn well_formed(bytes: &[u8]) -> usize {
    let mut decoder = peregrine_codec::Decoder::new(peregrine_codec::DecoderConfig::default());
    let mut rest = bytes;
    let mut n = 0;
    while !rest.is_empty() {
        let len = decoder.decode(rest).expect("well formed").as_bytes().len();
        rest = &rest[len..];
        n += 1;
    }
    n
}

#[test]
fn to_app_amends_a_new_message_and_the_store_keeps_what_was_sent() {
    let mut h = Harness::acceptor(Rec {
        amend: vec![
            (false, 115, "BROKER"),
            (false, 55, "IBM"),
            (false, 58, "amended"),
        ],
        ..Rec::default()
    });
    h.logon();
    h.send_order(&[(11, b"X"), (55, b"MSFT")]).unwrap();
    h.session.commit().unwrap();
    assert_eq!(well_formed(h.session.outbound()), 1);
    // OnBehalfOfCompID in the header, Symbol replaced where it was, Text appended.
    let sent = "35=D|34=2|49=ISLD|56=TW|115=BROKER|11=X|55=IBM|58=amended";
    assert_eq!(h.out(), [sent]);
    // A resend is amended again from what was stored: nothing twice.
    h.send("35=2|34=2|7=2|16=0");
    let bytes = h.session.outbound().to_vec();
    assert_eq!(well_formed(&bytes), 1);
    assert_eq!(
        h.out(),
        ["35=D|34=2|43=Y|49=ISLD|56=TW|115=BROKER|11=X|55=IBM|58=amended"]
    );
}

#[test]
fn to_app_amends_only_the_resend() {
    let mut h = Harness::acceptor(Rec {
        amend: vec![(true, 58, "resent late"), (true, 35, "8"), (true, 34, "99")],
        ..Rec::default()
    });
    h.logon();
    h.send_order(&[(11, b"Y"), (58, b"first")]).unwrap();
    assert_eq!(h.out(), ["35=D|34=2|49=ISLD|56=TW|11=Y|58=first"]);
    h.send("35=2|34=2|7=2|16=0");
    h.session.commit().unwrap();
    assert_eq!(well_formed(h.session.outbound()), 1);
    // The session's own fields (MsgType, MsgSeqNum) are not the application's to set.
    assert_eq!(
        h.out(),
        ["35=D|34=2|43=Y|49=ISLD|56=TW|11=Y|58=resent late"]
    );
}

/// Sends three orders (2, 3, 4), then asks for them again.
fn resend_with_vetoes(veto: &[u64]) -> (Harness, Vec<String>) {
    let mut h = Harness::acceptor(Rec {
        veto_resend: veto.to_vec(),
        add: vec![("4", 50, "GF")],
        ..Rec::default()
    });
    h.logon();
    for id in ["A", "B", "C"] {
        h.send_order(&[(11, id.as_bytes())]).unwrap();
    }
    assert_eq!(h.out().len(), 3);
    h.app.shown.clear();
    h.send("35=2|34=2|7=2|16=0");
    let out = h.out();
    (h, out)
}

#[test]
fn to_app_veto_of_a_resend_sends_a_gap_fill_instead() {
    let (h, out) = resend_with_vetoes(&[3]);
    assert_eq!(
        out,
        [
            "35=D|34=2|43=Y|49=ISLD|56=TW|11=A",
            "35=4|34=3|43=Y|49=ISLD|50=GF|56=TW|36=4|123=Y",
            "35=D|34=4|43=Y|49=ISLD|56=TW|11=C",
        ]
    );
    // to_app saw each resend as it goes on the wire: PossDupFlag=Y.
    assert_eq!(
        h.app.shown,
        (2..=4)
            .map(|seq| Shown {
                seq,
                msg_type: "D".into(),
                resend: true,
                poss_dup: Some("Y".into())
            })
            .collect::<Vec<_>>()
    );
}

#[test]
fn to_app_vetoes_at_the_start_and_end_of_a_resend_make_one_gap_fill_each() {
    let (_, out) = resend_with_vetoes(&[2, 3]);
    assert_eq!(
        out,
        [
            "35=4|34=2|43=Y|49=ISLD|50=GF|56=TW|36=4|123=Y",
            "35=D|34=4|43=Y|49=ISLD|56=TW|11=C",
        ]
    );
    let (_, out) = resend_with_vetoes(&[4]);
    assert_eq!(
        out,
        [
            "35=D|34=2|43=Y|49=ISLD|56=TW|11=A",
            "35=D|34=3|43=Y|49=ISLD|56=TW|11=B",
            "35=4|34=4|43=Y|49=ISLD|50=GF|56=TW|36=5|123=Y",
        ]
    );
    let (_, out) = resend_with_vetoes(&[2, 3, 4]);
    assert_eq!(out, ["35=4|34=2|43=Y|49=ISLD|50=GF|56=TW|36=5|123=Y"]);
}

// ---------------------------------------------------------------------------------------
// on_logout

#[test]
fn on_logout_hears_the_peers_text() {
    let mut h = Harness::acceptor(Rec::default());
    h.logon();
    h.send("35=5|34=2|58=End of day");
    assert_eq!(h.out(), ["35=5|34=2|49=ISLD|56=TW"]);
    assert_eq!(h.disconnect_reason(), Some(DisconnectReason::Logout));
    assert!(h.app.logouts.is_empty(), "told when the connection is gone");
    h.closed();
    assert_eq!(h.app.logouts, [Why::Remote(Some("End of day".into()))]);
    h.assert_logged("on_logout: the peer logged out: End of day");
}

#[test]
fn on_logout_hears_our_logout_and_how_it_ended() {
    // Answered.
    let mut h = Harness::acceptor(Rec::default());
    h.logon();
    h.session.logout(h.now, Some("maintenance"), &mut h.app);
    h.send("35=5|34=2|58=ok");
    h.closed();
    assert_eq!(
        h.app.logouts,
        [Why::Local(
            Some("maintenance".into()),
            Some(DisconnectReason::Logout)
        )]
    );
    // Not answered.
    let mut h = Harness::acceptor(Rec::default());
    h.logon();
    h.session.logout(h.now, None, &mut h.app);
    h.now += 2 * SECOND;
    h.session.on_timer(h.now, &mut h.app);
    assert_eq!(h.disconnect_reason(), Some(DisconnectReason::LogoutTimeout));
    h.closed();
    assert_eq!(
        h.app.logouts,
        [Why::Local(None, Some(DisconnectReason::LogoutTimeout))]
    );
    // A problem the session answers with a Logout: MsgSeqNum too low.
    let mut h = Harness::acceptor(Rec::default());
    h.logon();
    h.send("35=0|34=1");
    h.closed();
    assert_eq!(
        h.app.logouts,
        [Why::Local(
            Some("MsgSeqNum too low, expecting 2 but received 1".into()),
            Some(DisconnectReason::SeqNumTooLow)
        )]
    );
}

#[test]
fn on_logout_hears_a_disconnect_without_logout() {
    // The peer went silent.
    let mut h = Harness::acceptor(Rec::default());
    h.logon();
    h.now += 72 * SECOND;
    h.session.on_timer(h.now, &mut h.app);
    assert_eq!(
        h.disconnect_reason(),
        Some(DisconnectReason::HeartbeatTimeout)
    );
    h.closed();
    assert_eq!(
        h.app.logouts,
        [Why::Disconnected(Some(DisconnectReason::HeartbeatTimeout))]
    );
    // The connection dropped.
    let mut h = Harness::acceptor(Rec::default());
    h.logon();
    h.closed();
    assert_eq!(h.app.logouts, [Why::Disconnected(None)]);
    // Not logged on: no on_logout (as on_logon was never called).
    let mut h = Harness::acceptor(Rec::default());
    h.closed();
    assert!(h.app.logouts.is_empty());
    assert_eq!(
        h.app.log.last().map(String::as_str),
        Some("event: disconnected: the connection closed")
    );
}

// ---------------------------------------------------------------------------------------
// Events

#[test]
fn events_and_callbacks_arrive_in_order() {
    let mut h = Harness::acceptor(Rec::default());
    h.send("35=A|34=1|98=0|108=30");
    h.send("35=D|34=2|11=A");
    h.send("35=D|34=5|11=D"); // 3 and 4 are missing
    h.send("35=4|34=3|123=Y|36=4"); // gap fill for 3
    h.send("35=D|34=4|11=C");
    h.send("35=3|34=6|45=2|373=5|371=44|58=Bad price"); // their Reject
    h.send("35=5|34=7|58=bye");
    h.out();
    h.closed();
    assert_eq!(
        h.app.log,
        [
            "on_create FIX.4.4:ISLD->TW",
            "event: connected",
            "from_admin A",
            "to_admin A 1",
            "on_logon",
            "from_app D",
            "event: gap: expected 3, received 5",
            "to_admin 2 2",
            "event: ResendRequest sent: 3 to 0",
            "event: SequenceReset-GapFill received: NewSeqNo 4",
            "from_admin 4",
            "from_app D",
            "from_app D",
            "event: received Reject of 2, reason 5, tag 44: Bad price",
            "from_admin 3",
            "event: Logout received: bye",
            "from_admin 5",
            "to_admin 5 3",
            "event: Logout sent",
            "on_logout: the peer logged out: bye",
            "event: disconnected: logged out",
        ]
    );
}

#[test]
fn sent_rejects_and_resend_answers_are_events() {
    let mut h = Harness::acceptor(Rec::default());
    h.logon();
    h.send("35=1|34=2"); // no TestReqID: RequiredTagMissing
    h.send("35=2|34=3|7=1|16=0");
    h.out();
    let log = h.log_from("event: sent Reject");
    assert_eq!(
        log[0],
        "event: sent Reject of 2 (1), reason 1, tag 112: Required tag missing"
    );
    assert!(log.contains(&"event: ResendRequest received: 1 to 0".to_string()));
    assert!(log.contains(&"event: resend answered: 1 to 2".to_string()));
}

// ---------------------------------------------------------------------------------------
// Business rejects

#[test]
fn business_reject_carries_a_dynamic_text_and_business_reject_ref_id() {
    let symbol = "XYZ";
    let mut h = Harness::acceptor(Rec {
        reject: Some(AppReject::Business {
            reason: 2,
            text: format!("Unknown symbol {symbol}").into(),
            ref_id: Some(RefId::Field(11)),
        }),
        ..Rec::default()
    });
    h.logon();
    h.send("35=D|34=2|11=ORD-1|55=XYZ");
    assert_eq!(
        h.out(),
        ["35=j|34=2|49=ISLD|56=TW|45=2|58=Unknown symbol XYZ|372=D|379=ORD-1|380=2"]
    );
    assert_eq!(h.session.next_target_seq(), 3);
    // The BusinessMessageReject is an application message: to_app saw it.
    assert_eq!(h.app.shown.len(), 1);
    assert_eq!(h.app.shown[0].msg_type, "j");
    h.assert_logged(
        "event: sent BusinessMessageReject of 2 (D), reason 2, ref id ORD-1: Unknown symbol XYZ",
    );
    // A value of the application's own; a field the message lacks leaves 379 out.
    h.app.reject = Some(AppReject::Business {
        reason: 0,
        text: "Limit breached".into(),
        ref_id: Some(RefId::Value("RISK-9".into())),
    });
    h.send("35=D|34=3|11=ORD-2");
    h.app.reject = Some(AppReject::Business {
        reason: 5,
        text: "Conditionally required field missing".into(),
        ref_id: Some(RefId::Field(37)),
    });
    h.send("35=D|34=4|11=ORD-3");
    assert_eq!(
        h.out(),
        [
            "35=j|34=3|49=ISLD|56=TW|45=3|58=Limit breached|372=D|379=RISK-9|380=0",
            "35=j|34=4|49=ISLD|56=TW|45=4|58=Conditionally required field missing|372=D|380=5",
        ]
    );
}

#[test]
fn business_reject_before_fix42_is_a_session_reject_with_the_text() {
    let mut h = Harness::new(
        "FIX.4.1",
        Role::Acceptor,
        Rec {
            reject: Some(AppReject::business(0, format!("No {}", "thanks"))),
            ..Rec::default()
        },
    );
    h.logon();
    h.send("35=D|34=2|11=ORD-1");
    assert_eq!(h.out(), ["35=3|34=2|49=ISLD|56=TW|45=2|58=No thanks"]);
}

#[test]
fn a_received_business_reject_is_an_event_then_from_app() {
    let mut h = Harness::acceptor(Rec::default());
    h.logon();
    h.send("35=j|34=2|45=7|372=D|379=ORD-7|380=1|58=Unknown order");
    assert_eq!(
        h.log_from("event: received"),
        [
            "event: received BusinessMessageReject of 7 (D), reason 1, ref id ORD-7: Unknown order",
            "from_app j",
        ]
    );
    let kind = RejectKind::Business;
    assert_eq!(kind.msg_type(), b"j");
}

#[test]
fn a_sequence_reset_is_an_event_for_the_application() {
    let mut h = Harness::acceptor(Rec::default());
    h.logon();
    h.send_order(&[(11, b"A")]).unwrap();
    h.out();
    h.closed();
    h.session.on_connected(h.now, &mut h.app);
    h.app.log.clear();
    // The peer logs on again asking both sides to start at 1 (ResetSeqNumFlag=Y).
    h.send("35=A|34=1|98=0|108=30|141=Y");
    assert!(h.session.is_logged_on());
    assert_eq!(h.session.next_sender_seq(), 2, "our Logon answer was 1");
    h.assert_logged("event: sequence numbers reset");
    // The operator's reset between connections too.
    h.closed();
    h.app.log.clear();
    h.session.reset(h.now, &mut h.app).unwrap();
    h.assert_logged("event: sequence numbers reset");
    assert_eq!(
        (h.session.next_sender_seq(), h.session.next_target_seq()),
        (1, 1)
    );
}

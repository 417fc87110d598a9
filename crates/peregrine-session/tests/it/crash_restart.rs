//! Two sessions wired back to back in memory (an initiator, the client, with a
//! memory store; an acceptor, the venue, with the file store), the venue killed
//! with replies committed but never written, and restarted: the recovery costs
//! one ResendRequest each way and resends what was lost, nothing more; orders
//! the client sends while the venue is down reach it after the restart.
//!
//! # The reported storm
//!
//! After a `kill -9` of the venue, its Logon came with a MsgSeqNum above what the
//! client expected, followed by its own ResendRequest (it had lost orders too).
//! The client queued the Logon and asked for the gap once; it answered the
//! venue's ResendRequest at once, but did not queue it, so its number stayed a
//! hole. The venue's answer ended with a SequenceReset-GapFill numbered like its
//! Logon and moving on past its ResendRequest: by then the client had taken the
//! queued Logon, expected the number after it, and discarded the GapFill as a
//! too-low PossDup (rightly). The next live message was then "too high": a second
//! ResendRequest, from the hole to infinity, and the venue re-sent every
//! ExecutionReport since (about 1,800 under load) that the client already held.
//!
//! # What QuickFIX/J and QuickFIX C++ do
//!
//! QuickFIX/J (quickfixj-core/src/main/java/quickfix/Session.java):
//!
//! * `nextResendRequest` verifies with `verify(msg, false, validateSequenceNumbers)`
//!   (too low checked, too high not), answers at once (`manageGapFill`), and when
//!   the MsgSeqNum is too high *enqueues* the ResendRequest (QFJ-673: so that it
//!   cannot deadlock behind our own gap, and so that `nextQueued(int)` increments
//!   the target number when its turn comes: "Logon and ResendRequest processing
//!   has already been done, so we just need to increment the target seqnum").
//! * `nextSequenceReset` verifies a GapFill with both checks; a too-low one goes
//!   to `doTargetTooLow`, which with PossDupFlag=Y only runs `validatePossDup`
//!   (a SequenceReset passes) and `verify` returns false: ignored, no
//!   ResendRequest.
//! * `doTargetTooHigh` enqueues the message and sends no ResendRequest while one
//!   is outstanding and the message is at or above its BeginSeqNo ("Already sent
//!   ResendRequest FROM: … Not sending another.") unless
//!   `SendRedundantResendRequests`; `verify` clears the range once a message at
//!   or past its end is processed. `sendResendRequest` puts 0 (infinity) on the
//!   wire but remembers `msgSeqNum - 1` as the end.
//! * `nextLogon`: a too-high Logon goes to `doTargetTooHigh` (queued, one
//!   ResendRequest) — unless we sent NextExpectedMsgSeqNum(789), in which case
//!   `setResetRangeFromLastExpectedLogonNextSeqNumLogon` marks the range as
//!   requested and no ResendRequest is sent.
//!
//! QuickFIX C++ (src/C++/Session.cpp):
//!
//! * `nextResendRequest` verifies with `verify(msg, false, false)`, answers
//!   (`generateRetransmits`), and increments the target number only when the
//!   MsgSeqNum is neither too high nor too low. A too-high ResendRequest is not
//!   queued, so its number is never consumed (the ResendRequest branch of
//!   `nextQueued` is unreachable): C++ has the hole described above, and the
//!   same second ResendRequest.
//! * `nextSequenceReset` → `verify(…, isGapFill, isGapFill)` → `doTargetTooLow`:
//!   a PossDup GapFill below the expected number is ignored (`doPossDup` passes a
//!   SequenceReset).
//! * `doTargetTooHigh`: queued; no second ResendRequest while one is outstanding
//!   and the message is at or above its begin (unless SendRedundantResendRequests).
//! * `nextLogon`: a too-high Logon is queued and, with SendNextExpectedMsgSeqNum,
//!   its range recorded (`m_state.resendRange`) without a ResendRequest;
//!   otherwise `doTargetTooHigh`.
//!
//! Peregrine does what QuickFIX/J does: a too-high ResendRequest is answered,
//! then queued (its number taken in turn), and the gap it shows is asked for like
//! any other (once).

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use peregrine_codec::MessageView;
use peregrine_session::{
    AppReject, Application, Nanos, Outbox, Role, Session, SessionClock, SessionConfig, SessionId,
    SECOND,
};
use peregrine_store::{FileStore, FileStoreConfig, FsyncPolicy, MemoryStore};
// The venue: every order answered with an ExecutionReport.
use support::{Venue, T0};

/// The client: the MsgSeqNums of the ExecutionReports per ClOrdID.
#[derive(Default)]
struct Client {
    reports: BTreeMap<String, BTreeSet<u64>>,
}

impl Application for Client {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let id = String::from_utf8_lossy(msg.get(11).unwrap_or(b"?")).into_owned();
        let seq = std::str::from_utf8(msg.get(34).unwrap())
            .unwrap()
            .parse()
            .unwrap();
        self.reports.entry(id).or_default().insert(seq);
        Ok(())
    }
}

fn venue(dir: &Path, next_expected: bool) -> Session<FileStore> {
    let store = FileStore::open(
        dir,
        "FIX.4.4:VENUE->CLIENT",
        FileStoreConfig::with_fsync(FsyncPolicy::Never),
        T0,
    )
    .unwrap();
    let mut cfg = SessionConfig::new(SessionId::new("FIX.4.4", "VENUE", "CLIENT"), Role::Acceptor);
    cfg.clock = SessionClock::Driver;
    cfg.enable_next_expected_msg_seq_num = next_expected;
    Session::new(cfg, store, T0)
}

fn client(next_expected: bool) -> Session<MemoryStore> {
    let mut cfg = SessionConfig::new(
        SessionId::new("FIX.4.4", "CLIENT", "VENUE"),
        Role::Initiator,
    );
    cfg.clock = SessionClock::Driver;
    cfg.enable_next_expected_msg_seq_num = next_expected;
    Session::new(cfg, MemoryStore::new(T0), T0)
}

/// One message's fields, rendered `35=8|34=5|43=Y|…`.
fn fields(raw: &[u8]) -> Vec<(u32, String)> {
    raw.split(|&b| b == 1)
        .filter(|f| !f.is_empty())
        .map(|f| {
            let s = String::from_utf8_lossy(f);
            let (t, v) = s.split_once('=').unwrap();
            (t.parse().unwrap(), v.to_string())
        })
        .collect()
}

/// Splits a stream of whole messages.
fn messages(bytes: &[u8]) -> Vec<Vec<(u32, String)>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        // Every message ends with "10=xxx\x01".
        let end = rest
            .windows(4)
            .position(|w| w == b"\x0110=")
            .map(|p| p + 8)
            .unwrap();
        out.push(fields(&rest[..end]));
        rest = &rest[end..];
    }
    out
}

fn get(m: &[(u32, String)], tag: u32) -> Option<&str> {
    m.iter().find(|(t, _)| *t == tag).map(|(_, v)| v.as_str())
}

/// The two sessions and what went over the wire since `reset_counts`.
struct Pair {
    client: Session<MemoryStore>,
    client_app: Client,
    venue: Session<FileStore>,
    venue_app: Venue,
    now: Nanos,
    /// Every message the venue wrote.
    from_venue: Vec<Vec<(u32, String)>>,
    /// Every message the client wrote.
    from_client: Vec<Vec<(u32, String)>>,
    next_order: u64,
}

impl Pair {
    /// Commits both sides and hands each one's output to the other, in turns,
    /// until neither has anything to say. `on_turn` runs on the client after
    /// each turn (e.g. to send new orders).
    fn pump(&mut self, on_turn: &mut dyn FnMut(&mut Pair)) {
        for _ in 0..1000 {
            self.client.commit().unwrap();
            let c = self.client.outbound().to_vec();
            self.client.consume_outbound(c.len(), &mut self.client_app);
            self.venue.commit().unwrap();
            let v = self.venue.outbound().to_vec();
            self.venue.consume_outbound(v.len(), &mut self.venue_app);
            while self.client.poll_event().is_some() {}
            while self.venue.poll_event().is_some() {}
            if c.is_empty() && v.is_empty() {
                return;
            }
            self.from_client.extend(messages(&c));
            self.from_venue.extend(messages(&v));
            self.venue.on_bytes(&c, self.now, &mut self.venue_app);
            self.client.on_bytes(&v, self.now, &mut self.client_app);
            on_turn(self);
        }
        panic!("no quiet after 1000 turns");
    }

    /// Both sides logged on, 10 orders sent and answered.
    fn logged_on(dir: &Path, next_expected: bool) -> Pair {
        let mut p = Pair {
            client: client(next_expected),
            client_app: Client::default(),
            venue: venue(dir, next_expected),
            venue_app: Venue,
            now: T0,
            from_venue: Vec::new(),
            from_client: Vec::new(),
            next_order: 0,
        };
        p.connect();
        p.pump(&mut |_| {});
        assert!(p.client.is_logged_on() && p.venue.is_logged_on());
        for _ in 0..10 {
            p.order();
        }
        p.pump(&mut |_| {});
        assert_eq!(p.client_app.reports.len(), 10);
        p
    }

    fn connect(&mut self) {
        self.venue.on_connected(self.now, &mut self.venue_app);
        self.client.on_connected(self.now, &mut self.client_app);
    }

    fn order(&mut self) {
        let id = format!("ORD{:06}", self.next_order);
        self.next_order += 1;
        self.client
            .send(self.now, &mut self.client_app, b"D", |m| {
                m.str(11, id.as_bytes())
                    .str(21, b"1")
                    .str(38, b"100")
                    .str(40, b"1")
                    .str(54, b"1")
                    .str(55, b"X")
                    .str(60, b"20261122-10:00:00.250");
            })
            .unwrap();
    }

    fn reset_counts(&mut self) {
        self.from_client.clear();
        self.from_venue.clear();
    }
}

/// What the two sides wrote after the restart, and the sequence numbers the
/// crash left: `e`, the client's next expected (the venue had committed up to
/// `e + 2` and wrote none of `e..=e + 2`), `v`, the venue's next expected (the
/// client had sent up to `v + 1`).
struct Recovery {
    pair: Pair,
    e: u64,
    v: u64,
    _dir: tempfile::TempDir,
}

/// The reported sequence: logged on, 10 orders answered; 5 more in flight when
/// the venue is killed (it read and processed 3, their ExecutionReports
/// committed but never written, and never read 2); the venue restarted on its
/// journal; the client reconnects and streams 300 new orders as soon as it is
/// logged on, while the recovery is under way. NextExpectedMsgSeqNum(789) on
/// both sides or neither.
fn crash_and_restart(next_expected: bool) -> Recovery {
    let dir = tempfile::tempdir().unwrap();
    let mut p = Pair::logged_on(dir.path(), next_expected);

    for _ in 0..5 {
        p.order();
    }
    p.client.commit().unwrap();
    let wire = p.client.outbound().to_vec();
    p.client.consume_outbound(wire.len(), &mut p.client_app);
    assert_eq!(messages(&wire).len(), 5);
    let mut read = Vec::new();
    let mut rest = &wire[..];
    for _ in 0..3 {
        let end = rest
            .windows(4)
            .position(|w| w == b"\x0110=")
            .map(|x| x + 8)
            .unwrap();
        read.extend_from_slice(&rest[..end]);
        rest = &rest[end..];
    }
    p.venue.on_bytes(&read, p.now, &mut p.venue_app);
    p.venue.commit().unwrap();
    assert_eq!(p.venue.outbound().matches_count(b"\x0135=8\x01"), 3);
    // kill -9: the committed journal survives, the unwritten bytes do not.
    let venue_next_sender = p.venue.next_sender_seq();
    drop(std::mem::replace(
        &mut p.venue,
        venue(dir.path(), next_expected),
    ));
    p.client.on_disconnected(p.now, &mut p.client_app);
    assert_eq!(p.venue.next_sender_seq(), venue_next_sender);
    let e = p.client.next_target_seq();
    assert_eq!(venue_next_sender, e + 3);
    let v = p.venue.next_target_seq();
    assert_eq!(p.client.next_sender_seq(), v + 2);

    p.now += 5 * SECOND;
    p.reset_counts();
    p.connect();
    let mut streamed = false;
    p.pump(&mut |p| {
        if p.client.is_logged_on() && !streamed {
            streamed = true;
            for _ in 0..300 {
                p.order();
            }
        }
    });
    assert!(streamed);
    // Every order answered exactly once, and both sides in step.
    assert_eq!(p.client_app.reports.len(), 315);
    assert!(p.client_app.reports.values().all(|seqs| seqs.len() == 1));
    assert_eq!(p.client.next_target_seq(), p.venue.next_sender_seq());
    assert_eq!(p.venue.next_target_seq(), p.client.next_sender_seq());
    Recovery {
        pair: p,
        e,
        v,
        _dir: dir,
    }
}

/// Each side re-sends what the crash kept from the other (the venue 3
/// ExecutionReports, the client 2 orders) and one GapFill over its Logon and
/// ResendRequest, after one ResendRequest each way.
///
/// Before the fix, both sides left the other's too-high ResendRequest's number
/// as a hole: each sent a second ResendRequest, the client re-sent all 300 new
/// orders the venue already had (ignored as PossDups), and the venue 2
/// ExecutionReports (307 messages re-sent in all, instead of 7).
#[test]
fn a_venue_killed_and_restarted_resends_what_was_lost_once() {
    let Recovery { pair: p, e, v, .. } = crash_and_restart(false);
    // One ResendRequest each way: the client's for what the crash kept from it,
    // the venue's for the orders it never read (each sent right after the
    // peer's too-high Logon; 0 is infinity).
    assert_eq!(
        resend_requests(&p.from_client),
        [e.to_string()],
        "the client asks for the gap once"
    );
    assert_eq!(
        resend_requests(&p.from_venue),
        [v.to_string()],
        "the venue asks for the gap once"
    );
    assert_eq!(
        poss_dups(&p.from_venue),
        [
            format!("35=8|34={e}"),
            format!("35=8|34={}", e + 1),
            format!("35=8|34={}", e + 2),
            // Its Logon and its ResendRequest.
            format!("35=4|34={}|36={}", e + 3, e + 5),
        ],
        "the venue re-sends what the crash kept from the client, nothing more"
    );
    assert_eq!(
        poss_dups(&p.from_client),
        [
            format!("35=D|34={v}"),
            format!("35=D|34={}", v + 1),
            // Its Logon and its ResendRequest.
            format!("35=4|34={}|36={}", v + 2, v + 4),
        ],
        "the client re-sends the orders the venue never read, nothing more"
    );
}

/// With NextExpectedMsgSeqNum(789) in both Logons, each side resends from the
/// number the other's Logon names without being asked: a too-high Logon then
/// asks for nothing (as QuickFIX/J and C++ do), and every lost message is
/// re-sent once. (Before: a ResendRequest each way as well, and everything
/// re-sent twice.)
#[test]
fn with_next_expected_msg_seq_num_the_logons_ask_and_nothing_is_asked_twice() {
    let Recovery { pair: p, e, v, .. } = crash_and_restart(true);
    assert!(resend_requests(&p.from_client).is_empty());
    assert!(resend_requests(&p.from_venue).is_empty());
    assert_eq!(
        poss_dups(&p.from_venue),
        [
            format!("35=8|34={e}"),
            format!("35=8|34={}", e + 1),
            format!("35=8|34={}", e + 2),
            // Its Logon.
            format!("35=4|34={}|36={}", e + 3, e + 4),
        ],
    );
    assert_eq!(
        poss_dups(&p.from_client),
        [
            format!("35=D|34={v}"),
            format!("35=D|34={}", v + 1),
            // Its Logon.
            format!("35=4|34={}|36={}", v + 2, v + 3),
        ],
    );
}

/// Orders the client sends while the venue is down are stored with their
/// sequence numbers (Session::send while logged out, as QuickFIX/J does) and
/// reach the restarted venue in the resend its ResendRequest asks for: each
/// answered once.
#[test]
fn orders_sent_while_the_venue_is_down_reach_it_after_the_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = Pair::logged_on(dir.path(), false);
    drop(std::mem::replace(&mut p.venue, venue(dir.path(), false)));
    p.client.on_disconnected(p.now, &mut p.client_app);
    let v = p.venue.next_target_seq();
    for _ in 0..20 {
        p.order();
    }
    p.client.commit().unwrap();
    assert!(p.client.outbound().is_empty(), "nothing written");
    p.now += 5 * SECOND;
    p.reset_counts();
    p.connect();
    p.pump(&mut |_| {});
    assert!(resend_requests(&p.from_client).is_empty());
    assert_eq!(resend_requests(&p.from_venue), [v.to_string()]);
    let mut expected: Vec<_> = (v..v + 20).map(|s| format!("35=D|34={s}")).collect();
    // The client's Logon.
    expected.push(format!("35=4|34={}|36={}", v + 20, v + 21));
    assert_eq!(poss_dups(&p.from_client), expected);
    assert_eq!(p.client_app.reports.len(), 30);
    assert!(p.client_app.reports.values().all(|seqs| seqs.len() == 1));
    assert_eq!(p.client.next_target_seq(), p.venue.next_sender_seq());
    assert_eq!(p.venue.next_target_seq(), p.client.next_sender_seq());
}

/// BeginSeqNo of every ResendRequest in `msgs` (each asks to infinity).
fn resend_requests(msgs: &[Vec<(u32, String)>]) -> Vec<String> {
    msgs.iter()
        .filter(|m| get(m, 35) == Some("2"))
        .inspect(|m| assert_eq!(get(m, 16), Some("0")))
        .map(|m| get(m, 7).unwrap().to_string())
        .collect()
}

/// Every PossDupFlag=Y message in `msgs`: `35=…|34=…` (and `|36=…` for a GapFill).
fn poss_dups(msgs: &[Vec<(u32, String)>]) -> Vec<String> {
    msgs.iter()
        .filter(|m| get(m, 43) == Some("Y"))
        .map(|m| {
            let mut s = format!("35={}|34={}", get(m, 35).unwrap(), get(m, 34).unwrap());
            if let Some(n) = get(m, 36) {
                s += &format!("|36={n}");
            }
            s
        })
        .collect()
}

trait MatchesCount {
    fn matches_count(&self, needle: &[u8]) -> usize;
}

impl MatchesCount for [u8] {
    fn matches_count(&self, needle: &[u8]) -> usize {
        self.windows(needle.len()).filter(|w| *w == needle).count()
    }
}

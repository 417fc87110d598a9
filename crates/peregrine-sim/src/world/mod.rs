//! The simulated world: two nodes ([`node`]), the network between them
//! ([`network`]), the clock ([`crate::clock`]), and the driver that applies one
//! [`Action`] at a time and then does what an engine does: commit each session,
//! write what it may write into the connection, act on its events (a
//! Disconnect closes the connection), and tells the oracle
//! ([`crate::invariants`]) everything it needs.
//!
//! The driver follows the session's calling contract
//! (`peregrine_session::Session`): input, then `commit`, then `outbound` /
//! `consume_outbound`, then `poll_event`.

pub mod app;
pub mod network;
pub mod node;

use std::cmp::Ordering;
use std::path::Path;

use peregrine_codec::value::{parse_timestamp, TimePrecision, UtcTimestamp};
use peregrine_codec::EncodeBuffer;
use peregrine_session::{Nanos, Schedule, SessionEvent, SessionState, SECOND};
use peregrine_store::MessageStore;

use crate::clock::SimClock;
use crate::config::SimConfig;
use crate::faults::{Action, Census, Notify, Side, Tally};
use crate::invariants::{self, Check, Excuses, Invariant, Ledger, SendingTimes};
use crate::store::StoreKind;

use self::network::{End, Link};
use self::node::Node;

/// MaxLatency (120 s): bytes in flight longer than this may arrive with a
/// SendingTime the reader rejects.
const MAX_LATENCY: Nanos = 120 * SECOND;

/// Bytes a slow consumer reads at a time.
const SLOW_READ: usize = 24;

/// The whole simulated world of one run.
pub struct World {
    clock: SimClock,
    nodes: [Node; 2],
    link: Option<Link>,
    /// The oracle's ledger.
    pub ledger: Ledger,
    /// What happened.
    pub census: Census,
    excuses: Excuses,
    slow: [u32; 2],
    /// The first violation seen in the current step.
    violation: Option<(Invariant, String)>,
    /// What happened, for a trace (when recording).
    pub record: Option<Vec<String>>,
    max_outbound: [usize; 2],
    /// Each side's `max_inbound_queue_bytes`.
    max_inbound: [usize; 2],
    /// Each side's MaxLatency, as it checks what it receives.
    max_latency: [Nanos; 2],
    /// The SendingTime of every copy each side wrote, by MsgSeqNum.
    sending_times: [SendingTimes; 2],
    /// The MsgSeqNum of the last Logon each side wrote.
    last_logon: [Option<u64>; 2],
    /// The session schedule both sides share, if any.
    schedule: Option<Schedule>,
    /// ResetOnLogon/Logout/Disconnect on some side: a reset may then discard
    /// any message, not only one whose session period ended.
    resets_configured: bool,
    /// Each side's ResetOnLogon.
    reset_on_logon: [bool; 2],
    /// Each side's ResetOnLogout or ResetOnDisconnect: the end of any
    /// connection resets its numbers.
    reset_on_end: [bool; 2],
    /// Each side's state after the oracle last looked (before the session
    /// call that raised a Disconnect): what the FIX rules allow depends on it.
    seen_state: [SessionState; 2],
    /// The side whose connection is a stale peer's, sending a Logon with a
    /// MsgSeqNum too low ([`Action::LowLogon`]).
    low_logon: Option<usize>,
    _dir: tempfile::TempDir,
}

/// The largest message the simulator makes a session write: an order with
/// the longest Text(58) a `Send` draws (4,000 bytes), its header (with
/// PossDupFlag and OrigSendingTime on a resend) and trailer.
const LARGEST_MESSAGE: usize = 4_000 + 200;

/// A SequenceReset-GapFill with PossDupFlag and OrigSendingTime.
const GAP_FILL: usize = 120;

fn temp_dir() -> std::io::Result<tempfile::TempDir> {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::Builder::new()
            .prefix("peregrine-sim")
            .tempdir_in(shm)
        {
            return Ok(d);
        }
    }
    tempfile::Builder::new().prefix("peregrine-sim").tempdir()
}

impl World {
    /// A world configured by `cfg`.
    ///
    /// # Errors
    ///
    /// A temporary directory or a file store could not be created.
    pub fn new(cfg: &SimConfig) -> Result<World, Box<dyn std::error::Error>> {
        let clock = SimClock::at(cfg.start);
        let dir = temp_dir()?;
        let mk = |side: Side| -> Result<Node, Box<dyn std::error::Error>> {
            let i = side.index();
            let sub = dir.path().join(format!("{side:?}"));
            if cfg.stores[i] != StoreKind::Memory {
                std::fs::create_dir_all(&sub)?;
            }
            Ok(Node::new(
                side,
                cfg.sessions[i].clone(),
                cfg.stores[i],
                &sub,
                clock.now(),
            )?)
        };
        let nodes = [mk(Side::Initiator)?, mk(Side::Acceptor)?];
        Ok(World {
            clock,
            nodes,
            link: None,
            ledger: Ledger::default(),
            census: Census::default(),
            excuses: Excuses::default(),
            slow: [0; 2],
            violation: None,
            record: None,
            max_outbound: [
                cfg.sessions[0].max_outbound_bytes,
                cfg.sessions[1].max_outbound_bytes,
            ],
            max_inbound: [0, 1].map(|i| cfg.sessions[i].max_inbound_queue_bytes),
            max_latency: [0, 1].map(|i| i64::from(cfg.sessions[i].max_latency_secs) * SECOND),
            sending_times: Default::default(),
            last_logon: [None; 2],
            schedule: cfg.schedule.clone(),
            resets_configured: cfg.resets_configured(),
            reset_on_logon: [0, 1].map(|i| cfg.sessions[i].reset_on_logon),
            reset_on_end: [0, 1]
                .map(|i| cfg.sessions[i].reset_on_logout || cfg.sessions[i].reset_on_disconnect),
            seen_state: [SessionState::Disconnected; 2],
            low_logon: None,
            _dir: dir,
        })
    }

    fn now(&self) -> Nanos {
        self.clock.now()
    }

    fn note(&mut self, f: impl FnOnce() -> String) {
        if let Some(r) = &mut self.record {
            r.push(f());
        }
    }

    fn fail(&mut self, c: Check) {
        if let Err(v) = c {
            if self.violation.is_none() {
                self.violation = Some(v);
            }
        }
    }

    fn open(&self, i: usize) -> bool {
        self.link.as_ref().is_some_and(|l| l.open[i])
    }

    /// Applies one action and everything that follows from it; returns the
    /// first invariant it broke.
    pub fn step(&mut self, action: Action) -> Option<(Invariant, String)> {
        self.census.add(action.tally());
        self.note(|| format!("== {action}"));
        for s in &mut self.slow {
            *s = s.saturating_sub(1);
        }
        self.apply(action);
        self.flush_all();
        self.checks();
        self.violation.take()
    }

    fn apply(&mut self, action: Action) {
        match action {
            Action::Deliver { to, bytes } => {
                let i = to.index();
                let n = if self.slow[i] > 0 {
                    SLOW_READ
                } else {
                    bytes as usize
                };
                self.deliver(i, n);
            }
            Action::Send {
                side,
                count,
                payload,
            } => {
                for _ in 0..count {
                    self.send(side.index(), payload as usize);
                }
            }
            Action::Advance { nanos, deliver } => self.advance(nanos, deliver),
            Action::ToBoundary { after_ms } => {
                if let Some(s) = &self.schedule {
                    let now = self.now();
                    let target = s
                        .next_boundary(now)
                        .saturating_add(i64::from(after_ms) * 1_000_000);
                    if target > now {
                        self.advance(target - now, true);
                    }
                }
            }
            Action::Connect => self.connect(),
            Action::DuplicateConnect => {
                if self.link.as_ref().is_some_and(|l| l.open[1]) {
                    // The acceptor's engine refuses a second connection for a
                    // session it holds ("already connected"): the sessions
                    // never see it, and the connection they have goes on.
                    self.census.add(Tally::Refused);
                } else {
                    self.connect();
                }
            }
            Action::Drop { cut, notify } => {
                if let Some(link) = &mut self.link {
                    for i in 0..2 {
                        let end = match notify {
                            Notify::Both => End::Reset,
                            Notify::Only(s) if s.index() == i => End::Reset,
                            Notify::Only(_) => End::Silent,
                        };
                        link.to[i].cut(cut as usize, end);
                    }
                }
            }
            Action::Crash {
                side,
                before_commit,
                tear,
            } => self.crash(side.index(), before_commit, tear),
            Action::ClockJump { nanos } => {
                self.clock.jump(nanos);
                self.excuses.clock = true;
            }
            Action::SlowConsumer { side, steps } => {
                let i = side.index();
                self.slow[i] = self.slow[i].max(u32::from(steps));
            }
            Action::Garble { to, at, xor } => {
                if let Some(link) = &mut self.link {
                    if link.to[to.index()].garble(at as usize, xor) {
                        self.excuses.garble = true;
                    }
                }
            }
            Action::Logout { side } => {
                let i = side.index();
                let now = self.now();
                let n = &mut self.nodes[i];
                n.session.logout(now, Some("simulated logout"), &mut n.app);
                self.events(i);
            }
            Action::SeqJump { side, by } => {
                let n = &mut self.nodes[side.index()];
                if n.session.state() == SessionState::Disconnected {
                    let next = n.session.next_sender_seq() + u64::from(by);
                    let r = n.session.set_next_sender_seq(next);
                    if let Err(e) = r {
                        self.fail(Err((
                            Invariant::Protocol,
                            format!("set_next_sender_seq: {e}"),
                        )));
                    }
                }
            }
            Action::LowLogon { to, below } => self.low_logon(to.index(), below),
            Action::Rewind { side, keep } => {
                let n = &mut self.nodes[side.index()];
                if n.session.state() == SessionState::LoggedOn {
                    let t = n.session.next_target_seq();
                    let to = (t * u64::from(keep) / 1000).max(1);
                    let r = n.session.set_next_target_seq(to);
                    if let Err(e) = r {
                        self.fail(Err((
                            Invariant::Protocol,
                            format!("set_next_target_seq: {e}"),
                        )));
                    }
                }
            }
        }
    }

    /// [`Action::LowLogon`]: a stale peer connects to node `i` and logs on
    /// `below` under the MsgSeqNum `i` expects. `i` must answer with a Logout
    /// and disconnect, its numbers untouched (or both back to 1 when it may
    /// reset at the end of a connection: ResetOnLogout, ResetOnDisconnect).
    fn low_logon(&mut self, i: usize, below: u8) {
        let idle = self.link.is_none()
            && self
                .nodes
                .iter()
                .all(|n| n.session.state() == SessionState::Disconnected);
        let expected = self.nodes[i].session.next_target_seq();
        let below = u64::from(below.max(1));
        if !idle || self.schedule.is_some() || self.reset_on_logon[i] || expected <= below {
            return;
        }
        let now = self.now();
        let mut link = Link::new();
        link.open[1 - i] = false;
        self.link = Some(link);
        self.low_logon = Some(i);
        let n = &mut self.nodes[i];
        n.wire_carry.clear();
        n.session.on_connected(now, &mut n.app);
        self.events(i);
        // An initiator has sent its own Logon first (to nobody that reads it).
        self.flush(i);
        let next_sender = self.nodes[i].session.next_sender_seq();
        let logon = {
            let id = &self.nodes[i].session.config().id;
            let at =
                UtcTimestamp::from_unix_nanos(self.nodes[i].session.now(), TimePrecision::Millis);
            let mut buf = EncodeBuffer::new();
            let mut m = buf.start(id.begin_string.as_bytes(), b"A");
            m.uint(34, expected - below)
                .str(49, id.target_comp_id.as_bytes())
                .timestamp(52, &at, TimePrecision::Millis)
                .str(56, id.sender_comp_id.as_bytes())
                .uint(98, 0)
                .uint(108, 30);
            m.finish().to_vec()
        };
        self.note(|| {
            format!(
                "   a stale peer logs on to {:?} with MsgSeqNum {}",
                Side::from_index(i),
                expected - below
            )
        });
        if let Some(l) = &mut self.link {
            l.to[i].write(&logon, now);
        }
        self.deliver(i, usize::MAX);
        self.flush(i);
        let n = &self.nodes[i];
        let side = Side::from_index(i);
        if n.session.state() != SessionState::Disconnected {
            self.fail(Err((
                Invariant::Protocol,
                format!(
                    "{side:?} kept a connection whose Logon had MsgSeqNum {} (expected {expected}): {:?}",
                    expected - below,
                    n.session.state()
                ),
            )));
        } else if !(n.session.next_target_seq() == expected
            && n.session.next_sender_seq() <= next_sender + 1
            || self.reset_on_end[i]
                && (n.session.next_target_seq(), n.session.next_sender_seq()) == (1, 1))
        {
            self.fail(Err((
                Invariant::Protocol,
                format!(
                    "{side:?} changed its numbers for a Logon with MsgSeqNum too low: next in {} (was {expected}), next out {} (was {next_sender})",
                    n.session.next_target_seq(),
                    n.session.next_sender_seq()
                ),
            )));
        } else {
            self.census.add(Tally::LowLogonRefused);
        }
        self.low_logon = None;
        self.link = None;
    }

    fn send(&mut self, i: usize, payload: usize) {
        let side = Side::from_index(i);
        let id = self.ledger.next_id(side);
        let now = self.now();
        let n = &mut self.nodes[i];
        let mut text = [0u8; 4096];
        let len = payload.min(text.len());
        for (k, b) in text[..len].iter_mut().enumerate() {
            *b = b'a' + ((id as usize + k) % 26) as u8;
        }
        let r = n.session.send(now, &mut n.app, b"D", |m| {
            m.uint(11, id);
            if len > 0 {
                m.str(58, &text[..len]);
            }
        });
        let epoch = n.store().epoch();
        let at = n.session.now();
        self.ledger.sent(side, r.ok(), epoch, at);
        self.events(i);
    }

    /// Reads up to `max` bytes in flight towards node `i`.
    fn deliver(&mut self, i: usize, max: usize) {
        let now = self.now();
        let Some(link) = &mut self.link else { return };
        if !link.open[i] {
            return;
        }
        if link.to[i].since.is_some_and(|t| now - t > MAX_LATENCY) {
            self.excuses.delay = true;
        }
        let n = &mut self.nodes[i];
        let chunk = link.to[i].peek(max);
        let k = chunk.len();
        if k > 0 {
            n.session.on_bytes(chunk, now, &mut n.app);
            link.to[i].take(k);
        }
        let eof = link.to[i].eof();
        self.events(i);
        if let Some(reason) = eof {
            if self.open(i) {
                self.detach(i);
                let n = &mut self.nodes[i];
                n.session.on_connection_lost(now, reason, &mut n.app);
                self.events(i);
            }
        }
    }

    /// Node `i` no longer uses the connection.
    fn detach(&mut self, i: usize) {
        if let Some(link) = &mut self.link {
            link.open[i] = false;
            link.to[1 - i].close();
            if !link.open[0] && !link.open[1] {
                self.link = None;
            }
        }
    }

    fn connect(&mut self) {
        let now = self.now();
        if let Some(link) = &self.link {
            if link.open[0] {
                return;
            }
            if link.open[1] {
                // The acceptor still holds a (half-open) connection: its
                // engine closes the new one at once.
                let n = &mut self.nodes[0];
                if n.session.state() == SessionState::Disconnected {
                    n.session.on_connected(now, &mut n.app);
                    n.session.on_connection_lost(
                        now,
                        peregrine_session::DisconnectReason::PeerClosed,
                        &mut n.app,
                    );
                    self.census.add(Tally::Refused);
                    self.events(0);
                }
                return;
            }
        }
        if self.nodes[0].session.state() != SessionState::Disconnected
            || self.nodes[1].session.state() != SessionState::Disconnected
        {
            return;
        }
        self.link = Some(Link::new());
        for i in [1, 0] {
            let n = &mut self.nodes[i];
            n.wire_carry.clear();
            n.session.on_connected(now, &mut n.app);
            self.events(i);
        }
    }

    fn crash(&mut self, i: usize, before_commit: bool, tear: crate::store::Tear) {
        let now = self.now();
        if before_commit && self.open(i) {
            // The input of this turn handled, the commit never made.
            if let Some(link) = &mut self.link {
                if link.to[i].since.is_some_and(|t| now - t > MAX_LATENCY) {
                    self.excuses.delay = true;
                }
                let n = &mut self.nodes[i];
                let chunk = link.to[i].peek(usize::MAX);
                let k = chunk.len();
                n.session.on_bytes(chunk, now, &mut n.app);
                link.to[i].take(k);
            }
            self.drain_deliveries(i);
            // The process dies before acting on its events; the oracle still
            // learns which messages the session rejected.
            let mut logged_on_here = false;
            while let Some(ev) = self.nodes[i].session.poll_event() {
                if ev == SessionEvent::LoggedOn {
                    logged_on_here = true;
                }
                if let SessionEvent::Rejected { ref_seq, reason } = ev {
                    self.rejected(i, ref_seq, reason, logged_on_here);
                }
            }
        }
        let side = Side::from_index(i);
        let store = self.nodes[i].store();
        let acked = |_: u64, seq: u64| store.is_acked(seq);
        let epoch = store.epoch();
        self.ledger
            .committed(side, |e, s| e == epoch && acked(e, s), true);
        if self.open(i) {
            self.detach(i);
        }
        let kind = self.nodes[i].store().kind();
        let file = kind != StoreKind::Memory;
        self.note(|| format!("   {side:?} crashed"));
        match self.nodes[i].crash(tear, now) {
            Ok(()) => {
                if file {
                    self.census.add(Tally::FileRecoveries);
                    if tear.seqnums > 0 && kind == StoreKind::File {
                        self.census.add(Tally::SeqnumsTorn);
                    }
                }
                if kind == StoreKind::FileUnsynced {
                    // What was acknowledged but not fsynced may be gone: no
                    // longer owed (a gap fill replaces it on resend); what
                    // came back must be what was acknowledged.
                    match self.nodes[i].session.store_mut().unsynced_loss() {
                        Ok(lost) => {
                            let n = self
                                .ledger
                                .store_lost(side, epoch, |s| lost.binary_search(&s).is_ok());
                            self.census.add_n(Tally::UnsyncedLost, lost.len() as u64);
                            self.note(|| {
                                format!(
                                    "   {side:?}'s unsynced store lost {lost:?} ({n} undelivered)"
                                )
                            });
                        }
                        Err(l) => self.fail(Err((Invariant::SeqReused, format!("{side:?}: {l}")))),
                    }
                } else {
                    let loss = self.nodes[i].session.store_mut().acked_loss();
                    if let Some(l) = loss {
                        self.fail(Err((Invariant::AckedLost, format!("{side:?}: {l}"))));
                    }
                }
                self.events(i);
            }
            Err(e) => self.fail(Err((Invariant::AckedLost, format!("{side:?}: {e}")))),
        }
    }

    /// Time passes by `by`: the timers due fire in order (with what is in
    /// flight delivered before each, when `deliver`).
    fn advance(&mut self, by: Nanos, deliver: bool) {
        let target = self.now().saturating_add(by);
        for _ in 0..10_000 {
            let next = self
                .nodes
                .iter()
                .filter_map(|n| n.session.next_deadline())
                .min();
            let Some(next) = next.filter(|&d| d <= target) else {
                break;
            };
            self.clock.advance_to(next);
            if deliver {
                for i in 0..2 {
                    if self.slow[i] == 0 {
                        self.deliver(i, usize::MAX);
                    }
                }
            }
            let now = self.now();
            for i in 0..2 {
                let n = &mut self.nodes[i];
                if n.session.next_deadline().is_some_and(|d| d <= now) {
                    n.session.on_timer(now, &mut n.app);
                    self.events(i);
                }
            }
            self.flush_all();
            if self.violation.is_some() {
                return;
            }
        }
        self.clock.advance_to(target);
    }

    /// What an engine does after input: commit, write, act on events.
    fn flush_all(&mut self) {
        for i in 0..2 {
            self.flush(i);
        }
    }

    fn flush(&mut self, i: usize) {
        for _ in 0..1_000 {
            self.sync_ledger(i);
            let n = &mut self.nodes[i];
            if n.session.commit().is_err() {
                self.events(i);
                return;
            }
            self.sync_ledger(i);
            let room = match &self.link {
                Some(l) if l.open[i] => l.to[1 - i].room(),
                _ => 0,
            };
            let n = &mut self.nodes[i];
            let out = n.session.outbound();
            let k = out.len().min(room);
            if k == 0 {
                // As the engine does after every flush.
                let _ = n.session.settle();
                self.events(i);
                return;
            }
            let written = &out[..k];
            if let Some(l) = &mut self.link {
                l.to[1 - i].write(written, self.clock.now());
            }
            n.wire_carry.extend_from_slice(written);
            n.session.consume_outbound(k, &mut n.app);
            // As the engine does: a failure is an event (StoreFailed, Disconnect).
            let _ = n.session.settle();
            self.scan_wire(i);
            self.events(i);
        }
    }

    /// The ledger learns of resets and commits of node `i`, and of what its
    /// application was handed.
    fn sync_ledger(&mut self, i: usize) {
        let side = Side::from_index(i);
        let epoch = self.nodes[i].store().epoch();
        if epoch != self.nodes[i].epoch_seen {
            self.nodes[i].epoch_seen = epoch;
            let reset_at = self.nodes[i].session.now();
            let schedule = self.schedule.as_ref().filter(|_| !self.resets_configured);
            // Under a schedule with no other resets configured, a reset is a
            // new session period: it may discard only messages whose period
            // ended.
            let lost = match self.ledger.reset(side, epoch, |at| {
                schedule.map_or(true, |s| s.period_start(at) < s.period_start(reset_at))
            }) {
                Ok(n) => n,
                Err(v) => {
                    self.fail(Err(v));
                    0
                }
            };
            self.census.add(Tally::Resets);
            self.census.add_n(Tally::LostToReset, lost);
            self.note(|| {
                format!("   {side:?} reset its sequence numbers ({lost} undelivered discarded)")
            });
        }
        let store = self.nodes[i].store();
        self.ledger
            .committed(side, |e, s| e == epoch && store.is_acked(s), false);
        self.drain_deliveries(1 - i);
    }

    fn drain_deliveries(&mut self, i: usize) {
        if self.nodes[i].app.deliveries.is_empty() {
            return;
        }
        let side = Side::from_index(i);
        let ds = std::mem::take(&mut self.nodes[i].app.deliveries);
        for d in &ds {
            self.census.add(if d.poss_dup {
                Tally::PossDupDelivered
            } else {
                Tally::Delivered
            });
            let c = self.ledger.delivered(side, *d);
            self.fail(c);
        }
        let mut ds = ds;
        ds.clear();
        self.nodes[i].app.deliveries = ds;
    }

    /// Whole messages node `i` wrote: the ledger's wire check, the census.
    fn scan_wire(&mut self, i: usize) {
        let side = Side::from_index(i);
        let epoch = self.nodes[i].store().epoch();
        let carry = std::mem::take(&mut self.nodes[i].wire_carry);
        let mut at = 0;
        while let Some(len) = message_len(&carry[at..]) {
            let m = &carry[at..at + len];
            at += len;
            self.census.add(Tally::WireMessages);
            let (msg_type, seq, id) = (field(m, b"35"), field(m, b"34"), field(m, b"11"));
            if let Some(t) = field(m, b"52").and_then(|v| parse_timestamp(v).ok()) {
                let orig = field(m, b"122")
                    .and_then(|v| parse_timestamp(v).ok())
                    .map(|o| o.to_unix_nanos());
                self.sending_times[i].wrote(parse(seq), t.to_unix_nanos(), orig);
            }
            if self.record.is_some() {
                let text = String::from_utf8_lossy(m).replace('\x01', "|");
                let short: String = text.chars().take(160).collect();
                self.note(|| format!("   {side:?} → {short}"));
            }
            match msg_type {
                Some(b"D") => {
                    let seq = parse(seq);
                    let id = parse(id);
                    let c = self.ledger.wire(side, epoch, seq, id);
                    self.fail(c);
                }
                Some(b"2") => self.census.add(Tally::ResendRequests),
                Some(b"A") => self.last_logon[i] = Some(parse(seq)),
                _ => {}
            }
        }
        let mut carry = carry;
        carry.drain(..at);
        self.nodes[i].wire_carry = carry;
    }

    /// Whether node `i`'s peer wrote a copy of MsgSeqNum `seq` whose
    /// SendingTime is beyond node `i`'s MaxLatency of node `i`'s clock (the
    /// session's own, which never goes back: after the wall clock is stepped
    /// back it is ahead of the simulation's, and of a restarted peer's).
    fn stale(&self, i: usize, seq: u64) -> bool {
        let now = self.nodes[i].session.now();
        self.sending_times[1 - i].stale(seq, now, self.max_latency[i])
    }

    /// Whether node `i`'s clock is outside the session schedule.
    fn outside(&self, i: usize) -> bool {
        let now = self.nodes[i].session.now();
        self.schedule
            .as_ref()
            .is_some_and(|s| !s.logon_allowed(now))
    }

    /// Whether node `i` may refuse a Logon as outside the schedule: its
    /// clock is outside the window, or its store predates the current
    /// session period (the connection was made before the period began).
    fn may_refuse_logon(&self, i: usize) -> bool {
        let now = self.nodes[i].session.now();
        let created = self.nodes[i].store().creation_time();
        self.outside(i)
            || self
                .schedule
                .as_ref()
                .is_some_and(|s| created < s.period_start(now))
    }

    /// Node `i` rejected MsgSeqNum `ref_seq` for `reason`: the ledger learns
    /// it, and the oracle checks that FIX allows it (`logged_on_here`: a Logon
    /// completed earlier in the same session call).
    fn rejected(&mut self, i: usize, ref_seq: u64, reason: u32, logged_on_here: bool) {
        let side = Side::from_index(i);
        let epoch = self.nodes[1 - i].store().epoch();
        self.ledger.rejected(side, epoch, ref_seq);
        let stale = self.stale(i, ref_seq);
        let logged_on = self.was_logged_on(i) || logged_on_here;
        let c = invariants::allowed_reject(side, ref_seq, reason, stale, logged_on, self.excuses);
        self.fail(c);
    }

    /// Whether node `i` was logged on before its last session call or is now
    /// (a message handled after the Logon in the same read).
    fn was_logged_on(&self, i: usize) -> bool {
        let on = |s: SessionState| matches!(s, SessionState::LoggedOn | SessionState::LogoutSent);
        on(self.seen_state[i]) || on(self.nodes[i].session.state())
    }

    /// The session period the peer's last Logon to node `i` was sent in (by
    /// its clock), against the one node `i`'s clock is in; `None` without a
    /// schedule.
    fn peer_period(&self, i: usize) -> Option<Ordering> {
        let (Some(s), Some(seq)) = (&self.schedule, self.last_logon[1 - i]) else {
            return None;
        };
        let now = self.nodes[i].session.now();
        let sent = self.sending_times[1 - i].newest(seq)?;
        Some(s.period_start(sent).cmp(&s.period_start(now)))
    }

    /// Whether the session period of a message node `i` sent at `at` (its
    /// session's clock) has ended: the window closed since, or a new period
    /// began. Never without a schedule.
    fn period_ended(&self, i: usize, at: Nanos) -> bool {
        let now = self.nodes[i].session.now();
        self.schedule
            .as_ref()
            .is_some_and(|s| !s.contains(now) || s.period_start(at) < s.period_start(now))
    }

    /// Every acknowledged message delivered, but for those whose session
    /// period ended ([`Ledger::all_delivered`]).
    fn all_delivered(&self) -> Check {
        self.ledger
            .all_delivered(|side, at| self.period_ended(side.index(), at))
    }

    /// Acts on node `i`'s events: a Disconnect closes the connection.
    fn events(&mut self, i: usize) {
        let side = Side::from_index(i);
        self.drain_deliveries(i);
        // A Logon completed in the same call as a Reject: the Reject came after it.
        let mut logged_on_here = false;
        while let Some(ev) = self.nodes[i].session.poll_event() {
            match ev {
                SessionEvent::Disconnect(reason) => {
                    self.census.add(Tally::Disconnects);
                    *self
                        .census
                        .reasons
                        .entry(format!("{reason:?}"))
                        .or_default() += 1;
                    self.note(|| format!("   {side:?} disconnects: {reason}"));
                    let context = invariants::DisconnectContext {
                        // A Logon completed earlier in the same call counts.
                        state_before: if logged_on_here {
                            SessionState::LoggedOn
                        } else {
                            self.seen_state[i]
                        },
                        stale_logon: self.last_logon[1 - i].is_some_and(|seq| self.stale(i, seq)),
                        outside: self.may_refuse_logon(i),
                        low_logon: self.low_logon == Some(i),
                        peer_period_behind: self.peer_period(i) == Some(Ordering::Less),
                        peer_period_ahead: self.peer_period(i) == Some(Ordering::Greater),
                        period_skew: self.schedule.is_some() && self.excuses.clock,
                        excuses: self.excuses,
                    };
                    let c = invariants::allowed_disconnect(side, reason, context);
                    self.fail(c);
                    self.close(i);
                }
                SessionEvent::Rejected { ref_seq, reason } => {
                    self.census.add(Tally::Rejects);
                    self.note(|| format!("   {side:?} rejects {ref_seq} (reason {reason})"));
                    self.rejected(i, ref_seq, reason, logged_on_here);
                }
                SessionEvent::LoggedOn => {
                    logged_on_here = true;
                    self.census.add(Tally::LoggedOn);
                }
                SessionEvent::Garbled => self.census.add(Tally::GarbledDropped),
                SessionEvent::StoreFailed => self.fail(Err((
                    Invariant::AckedLost,
                    format!("{side:?}'s store failed"),
                ))),
                // Documented for a store that does not fsync every commit
                // (`LossKind::Truncated`); a synced store must lose nothing.
                SessionEvent::StoreDataLost { .. }
                    if self.nodes[i].store().kind() == StoreKind::FileUnsynced => {}
                SessionEvent::StoreDataLost { messages } => self.fail(Err((
                    Invariant::AckedLost,
                    format!("{side:?}'s store lost {messages} acknowledged message(s)"),
                ))),
                SessionEvent::LoggedOut
                | SessionEvent::ResendRequested { .. }
                | SessionEvent::ResendAnswered { .. } => {}
            }
        }
        self.seen_state[i] = self.nodes[i].session.state();
    }

    /// The engine's answer to a Disconnect: commit, write what is pending,
    /// close, `on_disconnected`.
    fn close(&mut self, i: usize) {
        let now = self.now();
        if self.open(i) {
            let n = &mut self.nodes[i];
            let committed = n.session.commit().is_ok();
            if committed {
                if let Some(l) = &mut self.link {
                    let out = n.session.outbound();
                    let k = out.len().min(l.to[1 - i].room());
                    l.to[1 - i].write(&out[..k], now);
                    n.wire_carry.extend_from_slice(&out[..k]);
                    n.session.consume_outbound(k, &mut n.app);
                }
                self.sync_ledger(i);
                self.scan_wire(i);
            }
            self.detach(i);
        }
        let n = &mut self.nodes[i];
        n.session.on_disconnected(now, &mut n.app);
    }

    /// After every step: bounds, and the calm point that clears the excuses.
    fn checks(&mut self) {
        for i in 0..2 {
            let s = &self.nodes[i].session;
            let held = s.outbound().len() + s.uncommitted_len();
            // The documented bound: max_outbound_bytes plus one message (a
            // resend's, and the GapFill before it; `RESEND_CHUNK` in the
            // session's resend.rs, and the table of bounds in docs/reliability.md).
            let bound = self.max_outbound[i] + LARGEST_MESSAGE + GAP_FILL;
            if held > bound {
                let side = Side::from_index(i);
                self.fail(Err((
                    Invariant::MemoryBound,
                    format!("{side:?}'s outbound buffer holds {held} bytes, bound {bound}"),
                )));
            }
            // Messages held while a gap is filled: MaxInboundQueueBytes.
            let held_in = self.nodes[i].session.held_inbound_bytes();
            if held_in > self.max_inbound[i] {
                let side = Side::from_index(i);
                self.fail(Err((
                    Invariant::MemoryBound,
                    format!(
                        "{side:?} holds {held_in} bytes of messages ahead of a gap, bound {}",
                        self.max_inbound[i]
                    ),
                )));
            }
        }
        if self.calm() {
            self.excuses = Excuses::default();
        }
    }

    fn calm(&self) -> bool {
        self.link.as_ref().is_some_and(Link::quiet)
            && self.nodes.iter().all(|n| {
                n.session.state() == SessionState::LoggedOn && n.session.outbound().is_empty()
            })
    }

    /// Whether both sides are logged on, in step, with nothing in flight.
    pub fn converged(&self) -> bool {
        let [a, b] = &self.nodes;
        self.calm()
            && a.session.next_target_seq() == b.session.next_sender_seq()
            && b.session.next_target_seq() == a.session.next_sender_seq()
    }

    /// Faults stop: reconnect, deliver, let time pass (a second at a time,
    /// up to `max_secs`) until the sessions converge; then the final checks.
    ///
    /// Each second ends with what is in flight delivered, so a run that is
    /// in step but short of a message is reported as the message missing
    /// ([`Invariant::Delivered`]), not as the heartbeat the last second
    /// left in flight ([`Invariant::Converge`]).
    ///
    /// A logon window that is closed while the session window is open only
    /// postpones the outcome (the period and its messages go on): settling
    /// then lets time pass to the schedule's next boundary and goes on, a
    /// few boundaries at most.
    pub fn settle(&mut self, max_secs: u32) -> Option<(Invariant, String)> {
        self.slow = [0; 2];
        for _ in 0..4 {
            if let Some(v) = self.settle_for(max_secs) {
                return Some(v);
            }
            let Some(s) = self.schedule.as_ref().filter(|s| s.logon.is_some()) else {
                break;
            };
            let waiting = (0..2).all(|i| self.outside(i))
                && (0..2).any(|i| s.contains(self.nodes[i].session.now()));
            if !waiting || self.converged() {
                break;
            }
            let now = self.now();
            let target = s.next_boundary(now).saturating_add(SECOND);
            self.note(|| format!("== logon window closed in the period: wait to {target}"));
            self.advance(target - now, true);
            if let Some(v) = self.violation.take() {
                return Some(v);
            }
        }
        // Outside the schedule's window, staying logged out is correct.
        let closed = (0..2).all(|i| self.outside(i))
            && self
                .nodes
                .iter()
                .all(|n| n.session.state() != SessionState::LoggedOn);
        if !self.converged() && !closed {
            let [a, b] = &self.nodes;
            return Some((
                Invariant::Converge,
                format!(
                    "after {max_secs} s without faults: initiator {:?} (next out {}, next in {}), acceptor {:?} (next out {}, next in {}), connection {}",
                    a.session.state(),
                    a.session.next_sender_seq(),
                    a.session.next_target_seq(),
                    b.session.state(),
                    b.session.next_sender_seq(),
                    b.session.next_target_seq(),
                    match &self.link {
                        None => "none".to_string(),
                        Some(l) => format!("open {:?}, in flight {}/{} B", l.open, l.to[0].len(), l.to[1].len()),
                    }
                ),
            ));
        }
        self.all_delivered().err()
    }

    /// Up to `max_secs` of reconnecting, delivering and time passing, until
    /// the sessions converge with everything delivered.
    fn settle_for(&mut self, max_secs: u32) -> Option<(Invariant, String)> {
        for second in 0..=max_secs {
            for _ in 0..100 {
                self.connect();
                self.deliver(0, usize::MAX);
                self.deliver(1, usize::MAX);
                self.flush_all();
                if let Some(v) = self.violation.take() {
                    return Some(v);
                }
                if self.link.as_ref().map_or(true, Link::quiet) {
                    break;
                }
            }
            if second == max_secs || (self.converged() && self.all_delivered().is_ok()) {
                break;
            }
            self.advance(SECOND, true);
            if let Some(v) = self.violation.take() {
                return Some(v);
            }
        }
        None
    }
}

/// The length of the whole FIX message at the start of `buf`, if complete.
fn message_len(buf: &[u8]) -> Option<usize> {
    let at = buf.windows(4).position(|w| w == b"\x0110=")?;
    let end = buf[at + 4..].iter().position(|&b| b == 1)?;
    Some(at + 4 + end + 1)
}

/// The value of `tag` in a message.
fn field<'a>(m: &'a [u8], tag: &[u8]) -> Option<&'a [u8]> {
    m.split(|&b| b == 1).find_map(|f| {
        let eq = f.iter().position(|&b| b == b'=')?;
        (&f[..eq] == tag).then(|| &f[eq + 1..])
    })
}

fn parse(v: Option<&[u8]>) -> u64 {
    v.and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|s| s.parse().ok())
        .unwrap_or(u64::MAX)
}

//! What a session counts about itself, for an operator's metrics: messages,
//! resends, gap fills, rejects by reason, logons, disconnects by reason, its
//! state and sequence numbers, and the heartbeat round-trip.
//!
//! Every [`Session`](crate::Session) owns a [`SessionCounters`] behind an
//! [`Arc`](std::sync::Arc) ([`Session::counters`](crate::Session::counters)):
//! the session is its only writer, and anyone holding a clone of the `Arc`
//! (a metrics endpoint on another thread) reads it at any time, without a
//! lock and without the session's thread doing anything. Each count is a
//! relaxed atomic: the one writer adds with a load and a store (no locked
//! instruction), so counting a message costs about what `+= 1` on a plain
//! integer does. A reader sees each count as it was at some instant of its
//! read; counts read together are not one consistent cut (a message may show
//! as received before its reply shows as sent).
//!
//! Most counts are taken from the [`AppEvent`]s the application hears (one
//! place, where they are delivered), so they mean exactly what those events
//! mean; messages received and sent are counted where they are framed and
//! queued, gap fills and resends where they are written.
//!
//! ```
//! use peregrine_session::{EchoApp, Role, Session, SessionConfig, SessionId, SessionState};
//! use peregrine_store::MemoryStore;
//! # fn fix(s: &str) -> Vec<u8> {
//! #     let mut f = s.split('|').filter(|f| !f.is_empty()).map(|f| f.split_once('=').unwrap());
//! #     let (_, begin) = f.next().unwrap();
//! #     let (_, msg_type) = f.next().unwrap();
//! #     let mut buf = peregrine_codec::EncodeBuffer::new();
//! #     let mut m = buf.start(begin.as_bytes(), msg_type.as_bytes());
//! #     for (t, v) in f { m.str(t.parse().unwrap(), v.as_bytes()); }
//! #     m.finish().to_vec()
//! # }
//!
//! let now = 1_700_000_000_000_000_000i64;
//! let cfg = SessionConfig::new(SessionId::new("FIX.4.4", "ISLD", "TW"), Role::Acceptor);
//! let mut session = Session::new(cfg, MemoryStore::new(now), now);
//! let counters = session.counters().clone(); // e.g. for another thread
//! let mut app = EchoApp::new(None);
//! session.on_connected(now, &mut app);
//! session.on_bytes(&fix("8=FIX.4.4|35=A|34=1|49=TW|52=20231114-22:13:20.000|56=ISLD|98=0|108=30"), now, &mut app);
//! assert_eq!(counters.messages_received(), 1);
//! assert_eq!(counters.messages_sent(), 1); // our Logon
//! assert_eq!(counters.logons(), 1);
//! assert_eq!(counters.state(), SessionState::LoggedOn);
//! assert_eq!((counters.next_sender_seq(), counters.next_target_seq()), (2, 2));
//! ```

mod histogram;
mod reasons;
#[cfg(test)]
mod tests;

pub use histogram::{HistogramSnapshot, LatencyHistogram, LATENCY_BUCKETS};
pub use reasons::{DISCONNECT_REASONS, REJECT_REASONS};

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::session::{AppEvent, DisconnectReason, RejectKind, SessionState};

/// Adds `n` to a count that has one writer: a relaxed load and store (no
/// locked instruction; readers on other threads see either value).
#[inline]
fn add(count: &AtomicU64, n: u64) {
    count.store(count.load(Relaxed).wrapping_add(n), Relaxed);
}

/// Rejects by SessionRejectReason(373) or BusinessRejectReason(380), one
/// count per [`REJECT_REASONS`] slot (a reason from the wire cannot add
/// slots).
#[derive(Debug, Default)]
struct RejectCounts([AtomicU64; REJECT_REASONS.len()]);

/// One session's counters (see the [module documentation](self)). Written by
/// its [`Session`](crate::Session) only; read from anywhere.
#[derive(Debug)]
pub struct SessionCounters {
    messages_received: AtomicU64,
    messages_sent: AtomicU64,
    messages_resent: AtomicU64,
    gap_fills_sent: AtomicU64,
    gap_fills_received: AtomicU64,
    sequence_resets_received: AtomicU64,
    sequence_number_resets: AtomicU64,
    gaps_detected: AtomicU64,
    resend_requests_sent: AtomicU64,
    resend_requests_received: AtomicU64,
    resends_answered: AtomicU64,
    garbled: AtomicU64,
    logons: AtomicU64,
    logouts_sent: AtomicU64,
    logouts_received: AtomicU64,
    test_requests_sent: AtomicU64,
    /// Indexed by [`RejectKind`] (session, business).
    rejects_sent: [RejectCounts; 2],
    rejects_received: [RejectCounts; 2],
    disconnects: [AtomicU64; DISCONNECT_REASONS.len()],
    state: AtomicU64,
    next_sender_seq: AtomicU64,
    next_target_seq: AtomicU64,
    heartbeat_rtt: LatencyHistogram,
}

impl Default for SessionCounters {
    fn default() -> Self {
        SessionCounters {
            messages_received: AtomicU64::new(0),
            messages_sent: AtomicU64::new(0),
            messages_resent: AtomicU64::new(0),
            gap_fills_sent: AtomicU64::new(0),
            gap_fills_received: AtomicU64::new(0),
            sequence_resets_received: AtomicU64::new(0),
            sequence_number_resets: AtomicU64::new(0),
            gaps_detected: AtomicU64::new(0),
            resend_requests_sent: AtomicU64::new(0),
            resend_requests_received: AtomicU64::new(0),
            resends_answered: AtomicU64::new(0),
            garbled: AtomicU64::new(0),
            logons: AtomicU64::new(0),
            logouts_sent: AtomicU64::new(0),
            logouts_received: AtomicU64::new(0),
            test_requests_sent: AtomicU64::new(0),
            rejects_sent: Default::default(),
            rejects_received: Default::default(),
            disconnects: Default::default(),
            state: AtomicU64::new(state_code(SessionState::Disconnected)),
            next_sender_seq: AtomicU64::new(1),
            next_target_seq: AtomicU64::new(1),
            heartbeat_rtt: LatencyHistogram::new(),
        }
    }
}

/// Every state, in the order [`SessionCounters::state`] codes them.
pub const SESSION_STATES: [SessionState; 6] = [
    SessionState::Disconnected,
    SessionState::AwaitingLogon,
    SessionState::LogonSent,
    SessionState::LoggedOn,
    SessionState::LogoutSent,
    SessionState::Closing,
];

fn state_code(state: SessionState) -> u64 {
    SESSION_STATES.iter().position(|&s| s == state).unwrap_or(0) as u64
}

fn kind_index(kind: RejectKind) -> usize {
    match kind {
        RejectKind::Session => 0,
        RejectKind::Business => 1,
    }
}

impl SessionCounters {
    /// Counters at zero, for a session in [`SessionState::Disconnected`] at
    /// sequence numbers 1 (a driver that has no session of this crate shows
    /// these).
    pub fn new() -> SessionCounters {
        SessionCounters::default()
    }

    // -- Written by the session --------------------------------------------

    /// Counts what an [`AppEvent`] says happened (called where the events
    /// reach the application, so each is counted once).
    pub(crate) fn on_event(&self, event: &AppEvent<'_>) {
        match *event {
            AppEvent::RejectSent(r) => add(self.rejects_sent[kind_index(r.kind)].slot(r.reason), 1),
            AppEvent::RejectReceived(r) => {
                add(self.rejects_received[kind_index(r.kind)].slot(r.reason), 1)
            }
            AppEvent::GapDetected { .. } => add(&self.gaps_detected, 1),
            AppEvent::ResendRequested { .. } => add(&self.resend_requests_sent, 1),
            AppEvent::ResendRequestReceived { .. } => add(&self.resend_requests_received, 1),
            AppEvent::ResendAnswered { .. } => add(&self.resends_answered, 1),
            AppEvent::SequenceResetReceived { gap_fill: true, .. } => {
                add(&self.gap_fills_received, 1)
            }
            AppEvent::SequenceResetReceived {
                gap_fill: false, ..
            } => add(&self.sequence_resets_received, 1),
            AppEvent::SequenceNumbersReset => add(&self.sequence_number_resets, 1),
            AppEvent::LogoutSent { .. } => add(&self.logouts_sent, 1),
            AppEvent::LogoutReceived { .. } => add(&self.logouts_received, 1),
            AppEvent::Garbled => add(&self.garbled, 1),
            AppEvent::Disconnected { reason } => {
                add(&self.disconnects[reasons::disconnect_slot(reason)], 1)
            }
            // Refused sends are the engine's `send_failures`.
            AppEvent::Connected
            | AppEvent::StoreFailed
            | AppEvent::StoreDataLost { .. }
            | AppEvent::SendRefused { .. }
            | AppEvent::CallbackSendRefused { .. } => {}
        }
    }

    #[inline]
    pub(crate) fn message_received(&self) {
        add(&self.messages_received, 1);
    }

    #[inline]
    pub(crate) fn message_sent(&self) {
        add(&self.messages_sent, 1);
    }

    pub(crate) fn message_resent(&self) {
        add(&self.messages_resent, 1);
        add(&self.messages_sent, 1);
    }

    pub(crate) fn gap_fill_sent(&self) {
        add(&self.gap_fills_sent, 1);
        add(&self.messages_sent, 1);
    }

    pub(crate) fn logged_on(&self) {
        add(&self.logons, 1);
    }

    pub(crate) fn test_request_sent(&self) {
        add(&self.test_requests_sent, 1);
    }

    pub(crate) fn heartbeat_round_trip(&self, nanos: u64) {
        self.heartbeat_rtt.observe_nanos(nanos);
    }

    /// The state and sequence numbers as they are after a call into the session.
    #[inline]
    pub(crate) fn publish(&self, state: SessionState, next_sender: u64, next_target: u64) {
        self.state.store(state_code(state), Relaxed);
        self.next_sender_seq.store(next_sender, Relaxed);
        self.next_target_seq.store(next_target, Relaxed);
    }

    // -- Read by anyone -----------------------------------------------------

    /// Messages received whole and decoded (rejected ones too; garbled bytes
    /// are [`garbled`](Self::garbled)).
    pub fn messages_received(&self) -> u64 {
        self.messages_received.load(Relaxed)
    }

    /// Messages queued for the connection: admin and application messages,
    /// resends and gap fills (a message stored while not logged on is counted
    /// when it is resent). What a disconnect drops before it is written is
    /// counted too.
    pub fn messages_sent(&self) -> u64 {
        self.messages_sent.load(Relaxed)
    }

    /// Application messages re-sent (PossDupFlag=Y) to answer a ResendRequest
    /// (part of [`messages_sent`](Self::messages_sent)).
    pub fn messages_resent(&self) -> u64 {
        self.messages_resent.load(Relaxed)
    }

    /// SequenceReset-GapFill messages sent while answering a ResendRequest
    /// (part of [`messages_sent`](Self::messages_sent)).
    pub fn gap_fills_sent(&self) -> u64 {
        self.gap_fills_sent.load(Relaxed)
    }

    /// SequenceReset-GapFill messages received (checked, then applied).
    pub fn gap_fills_received(&self) -> u64 {
        self.gap_fills_received.load(Relaxed)
    }

    /// SequenceReset messages in reset mode (GapFillFlag absent or N) received.
    pub fn sequence_resets_received(&self) -> u64 {
        self.sequence_resets_received.load(Relaxed)
    }

    /// Times the sequence numbers were reset to 1 ([`AppEvent::SequenceNumbersReset`]).
    pub fn sequence_number_resets(&self) -> u64 {
        self.sequence_number_resets.load(Relaxed)
    }

    /// Gaps seen in what was received ([`AppEvent::GapDetected`]).
    pub fn gaps_detected(&self) -> u64 {
        self.gaps_detected.load(Relaxed)
    }

    /// ResendRequests sent.
    pub fn resend_requests_sent(&self) -> u64 {
        self.resend_requests_sent.load(Relaxed)
    }

    /// ResendRequests received (their range checked).
    pub fn resend_requests_received(&self) -> u64 {
        self.resend_requests_received.load(Relaxed)
    }

    /// ResendRequests answered to the end (every resend and gap fill queued).
    pub fn resends_answered(&self) -> u64 {
        self.resends_answered.load(Relaxed)
    }

    /// Runs of garbled bytes dropped.
    pub fn garbled(&self) -> u64 {
        self.garbled.load(Relaxed)
    }

    /// Logons completed (both Logons exchanged).
    pub fn logons(&self) -> u64 {
        self.logons.load(Relaxed)
    }

    /// Logouts we sent first or in answer.
    pub fn logouts_sent(&self) -> u64 {
        self.logouts_sent.load(Relaxed)
    }

    /// Logouts received.
    pub fn logouts_received(&self) -> u64 {
        self.logouts_received.load(Relaxed)
    }

    /// TestRequests sent (the peer was silent for 1.2 heartbeat intervals).
    pub fn test_requests_sent(&self) -> u64 {
        self.test_requests_sent.load(Relaxed)
    }

    /// Rejects of `kind` sent with this reason (`None`: sent without one, as
    /// before FIX.4.2); reasons outside [`REJECT_REASONS`] share its `other`
    /// slot.
    ///
    /// ```
    /// use peregrine_session::{metrics::SessionCounters, RejectKind};
    /// assert_eq!(SessionCounters::new().rejects_sent(RejectKind::Session, Some(5)), 0);
    /// ```
    pub fn rejects_sent(&self, kind: RejectKind, reason: Option<u32>) -> u64 {
        self.rejects_sent[kind_index(kind)]
            .slot(reason)
            .load(Relaxed)
    }

    /// Rejects of `kind` received with this reason (see
    /// [`rejects_sent`](Self::rejects_sent)).
    pub fn rejects_received(&self, kind: RejectKind, reason: Option<u32>) -> u64 {
        self.rejects_received[kind_index(kind)]
            .slot(reason)
            .load(Relaxed)
    }

    /// Every reason slot of rejects of `kind` sent, as its label (see
    /// [`REJECT_REASONS`]) and count, zeros included.
    pub fn rejects_sent_by_reason(
        &self,
        kind: RejectKind,
    ) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.rejects_sent[kind_index(kind)].by_reason()
    }

    /// Every reason slot of rejects of `kind` received (see
    /// [`rejects_sent_by_reason`](Self::rejects_sent_by_reason)).
    pub fn rejects_received_by_reason(
        &self,
        kind: RejectKind,
    ) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.rejects_received[kind_index(kind)].by_reason()
    }

    /// Connections that ended for this reason (the session's own, when it
    /// asked for the disconnect, else the driver's; `None`: neither said).
    /// Every [`DisconnectReason::Transport`] shares one count.
    ///
    /// ```
    /// use peregrine_session::{metrics::SessionCounters, DisconnectReason};
    /// assert_eq!(SessionCounters::new().disconnects(Some(DisconnectReason::PeerClosed)), 0);
    /// ```
    pub fn disconnects(&self, reason: Option<DisconnectReason>) -> u64 {
        self.disconnects[reasons::disconnect_slot(reason)].load(Relaxed)
    }

    /// Every disconnect reason as its label (see [`DISCONNECT_REASONS`]) and
    /// count, zeros included.
    pub fn disconnects_by_reason(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        DISCONNECT_REASONS
            .iter()
            .zip(&self.disconnects)
            .map(|(&label, c)| (label, c.load(Relaxed)))
    }

    /// The session's state after its last call.
    pub fn state(&self) -> SessionState {
        SESSION_STATES[self.state.load(Relaxed) as usize % SESSION_STATES.len()]
    }

    /// The next outgoing sequence number after the session's last call.
    pub fn next_sender_seq(&self) -> u64 {
        self.next_sender_seq.load(Relaxed)
    }

    /// The next expected incoming sequence number after the session's last call.
    pub fn next_target_seq(&self) -> u64 {
        self.next_target_seq.load(Relaxed)
    }

    /// Heartbeat round-trips: from our TestRequest (sent after 1.2 heartbeat
    /// intervals without input) to the Heartbeat that carries its TestReqID(112),
    /// in the session's time (the driver's `now`). A peer that is never
    /// silent that long is never asked, so a busy session may have none.
    pub fn heartbeat_rtt(&self) -> &LatencyHistogram {
        &self.heartbeat_rtt
    }
}

impl RejectCounts {
    fn slot(&self, reason: Option<u32>) -> &AtomicU64 {
        &self.0[reasons::reject_slot(reason)]
    }

    fn by_reason(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        REJECT_REASONS
            .iter()
            .zip(&self.0)
            .map(|(&label, c)| (label, c.load(Relaxed)))
    }
}

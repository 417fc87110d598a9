//! The session's state and the dispatch of every inbound message to its
//! handler.

use std::collections::VecDeque;

use peregrine_codec::{msg_type, tag, MessageView};
use peregrine_dict::{SessionRejectReason, ShapeCache};
use peregrine_store::MessageStore;

use crate::app::{AddedFields, Application};
use crate::config::{is_pre_fix42, Nanos, SessionConfig};
use crate::on_demand::OnDemandDecoder;

use super::calendar::Calendar;
use super::callback_sends::CallbackSends;
use super::events::{
    AppEvent, DisconnectReason, RejectInfo, RejectKind, SessionEvent, SessionState,
};
use super::gap::GapRequest;
use super::gap_queue::GapQueue;
use super::outgoing::*;
use super::reject::*;
use super::resend::ResendAnswer;
use super::verify::{parse_seq, SeqCheck};

/// Text(58) of the Logout that answers a message without MsgSeqNum(34): QuickFIX/J's.
pub(super) const MISSING_MSG_SEQ_NUM_TEXT: &str = "Received message without MsgSeqNum";

/// Where the session is, with what each state needs (the public
/// [`SessionState`] is its name).
#[derive(Debug)]
pub(super) enum State {
    /// No transport connection.
    Disconnected,
    /// Acceptor: connected at `since`, waiting for the peer's Logon.
    AwaitingLogon { since: Nanos },
    /// Initiator: our Logon sent at `since`, with ResetSeqNumFlag(141)=Y when
    /// `reset_sent`.
    LogonSent { since: Nanos, reset_sent: bool },
    /// Both Logons exchanged.
    LoggedOn(Live),
    /// Logged on, our Logout sent at `since`: waiting for the peer's.
    LogoutSent { since: Nanos, live: Live },
    /// We asked the engine to close the connection, for `reason`; `logged_on` says
    /// whether the application is still to hear `on_logout`.
    Closing {
        logged_on: bool,
        reason: DisconnectReason,
    },
}

/// What a logged-on session keeps.
#[derive(Debug)]
pub(super) struct Live {
    /// HeartBtInt in force, in seconds (the peer's, for an acceptor).
    pub(super) heartbeat_secs: u32,
    /// When the last message arrived.
    pub(super) last_received: Nanos,
    /// TestRequests sent since then.
    pub(super) test_requests: u32,
    /// When our last TestRequest went, until a Heartbeat carrying its
    /// TestReqID answers it (the heartbeat round-trip).
    pub(super) test_request_sent: Option<Nanos>,
    /// Our outstanding ResendRequest, if a gap is being filled.
    pub(super) gap: Option<GapRequest>,
    /// The peer's ResendRequest we are answering, if not complete.
    pub(super) answering: Option<ResendAnswer>,
    /// We sent a Logon with ResetSeqNumFlag=Y while logged on (`ResetSeqTime`): the
    /// peer's Logon answers it and is not answered again.
    pub(super) reset_sent: bool,
}

impl Live {
    pub(super) fn new(heartbeat_secs: u32, now: Nanos) -> Live {
        Live {
            heartbeat_secs,
            last_received: now,
            test_requests: 0,
            test_request_sent: None,
            gap: None,
            answering: None,
            reset_sent: false,
        }
    }
}

/// Who sent the first Logout of a connection (for `on_logout`'s reason).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LogoutSide {
    Local,
    Remote,
}

pub(super) struct Core<S> {
    pub(super) config: SessionConfig,
    pub(super) outgoing: Outgoing<S>,
    pub(super) events: VecDeque<SessionEvent>,
    /// Application events raised where the application is not at hand, delivered
    /// before its next callback (see `hooks`).
    pub(super) app_events: VecDeque<AppEvent<'static>>,
    /// What `to_admin` adds to the admin message being sent, or `to_app` to the
    /// application message.
    pub(super) admin_fields: AddedFields,
    /// Decodes an outgoing application message when `to_app` asks to see it.
    pub(super) app_decoder: OnDemandDecoder,
    /// A copy of a new message `to_app` amended, read while it is written again
    /// (kept between messages: grows to the largest amended message, then allocates
    /// nothing).
    pub(super) amend_copy: Vec<u8>,
    /// The first Logout of this connection: who sent it, and whether
    /// `logout_text` holds its Text(58).
    pub(super) logout: Option<(LogoutSide, bool)>,
    pub(super) logout_text: Vec<u8>,
    pub(super) state: State,
    /// Shapes of messages that passed dictionary validation (counterparties repeat
    /// theirs: those messages then only have their values checked). Made by the
    /// first validation of a connection, dropped when it goes.
    pub(super) shapes: Option<Box<ShapeCache>>,
    /// FIXT: the counterparty's DefaultApplVerID(1137) from its Logon, which picks
    /// the application dictionary of its messages without ApplVerID(1128).
    pub(super) peer_appl_ver_id: Option<Box<str>>,
    /// Messages that arrived ahead of a gap.
    pub(super) queue: GapQueue,
    /// Reads stored messages back to resend them.
    pub(super) resend_decoder: OnDemandDecoder,
    /// The schedule's answers until its next boundary, and the next ResetSeqTime.
    pub(super) calendar: Calendar,
    /// What the application sends from inside a callback, until it returns.
    pub(super) callback_sends: CallbackSends,
}

impl<S: MessageStore> Core<S> {
    pub(super) fn now(&self) -> Nanos {
        self.outgoing.writer.now
    }

    pub(super) fn begin_bytes(&self) -> &[u8] {
        self.config.id.begin_string.as_bytes()
    }

    pub(super) fn before_fix42(&self) -> bool {
        is_pre_fix42(self.begin_bytes())
    }

    pub(super) fn expected(&self) -> u64 {
        self.outgoing.store.next_target_seq()
    }

    pub(super) fn incr_target(&mut self) {
        if self.outgoing.store.incr_next_target_seq().is_err() {
            self.store_failed();
        }
        self.gap_progress();
    }

    pub(super) fn set_target(&mut self, seq: u64) {
        if self.outgoing.store.set_next_target_seq(seq).is_err() {
            self.store_failed();
        }
        self.gap_progress();
    }

    pub(super) fn reset_store(&mut self) {
        let now = self.now();
        if self.outgoing.store.reset(now).is_err() {
            self.store_failed();
        }
        self.app_events.push_back(AppEvent::SequenceNumbersReset);
        self.queue.clear();
        if let Some(live) = self.live_mut() {
            live.gap = None;
            live.answering = None;
        }
    }

    /// Forgets what was queued for a connection that is gone: it is in the store,
    /// and the peer asks for it with a ResendRequest (the FIX way), never as stale
    /// bytes at the start of the next connection.
    pub(super) fn clear_outbound(&mut self) {
        self.outgoing.writer.release();
        if let Some(live) = self.live_mut() {
            live.answering = None;
        }
        self.outgoing.overflowed = false;
    }

    /// A message was stored but not queued (the outbound buffer is full): the
    /// peer is not reading.
    pub(super) fn check_overflow(&mut self) {
        if self.outgoing.overflowed {
            self.outgoing.overflowed = false;
            self.disconnect(DisconnectReason::OutboundQueueFull);
        }
    }

    pub(super) fn store_failed(&mut self) {
        self.outgoing.store_failed = true;
        self.events.push_back(SessionEvent::StoreFailed);
        self.app_events.push_back(AppEvent::StoreFailed);
    }

    pub(super) fn connected(&self) -> bool {
        !matches!(self.state, State::Disconnected | State::Closing { .. })
    }

    /// Both Logons exchanged, and the application not yet told of a logout.
    pub(super) fn logged_on(&self) -> bool {
        matches!(
            self.state,
            State::LoggedOn(_)
                | State::LogoutSent { .. }
                | State::Closing {
                    logged_on: true,
                    ..
                }
        )
    }

    /// Whether a message stored now, while not logged on, is still in the store
    /// when the counterparty's ResendRequest after the next Logon asks for it:
    /// messages are kept (`PersistMessages`), and no reset the session knows of
    /// comes first (`ResetOnLogon`; `ResetOnDisconnect` before `on_disconnected`;
    /// `ResetOnLogout` while our Logout waits for the peer's; a new schedule
    /// period, which the next connection starts afresh).
    pub(super) fn kept_for_resend(&self) -> bool {
        let c = &self.config;
        let reset_first = c.reset_on_logon
            || (c.reset_on_disconnect && !matches!(self.state, State::Disconnected))
            || (c.reset_on_logout && matches!(self.state, State::LogoutSent { .. }))
            || self.new_period();
        c.persist_messages && !reset_first
    }

    pub(super) fn live(&self) -> Option<&Live> {
        match &self.state {
            State::LoggedOn(live) | State::LogoutSent { live, .. } => Some(live),
            _ => None,
        }
    }

    pub(super) fn live_mut(&mut self) -> Option<&mut Live> {
        match &mut self.state {
            State::LoggedOn(live) | State::LogoutSent { live, .. } => Some(live),
            _ => None,
        }
    }

    /// The state's public name.
    pub(super) fn state_name(&self) -> SessionState {
        match self.state {
            State::Disconnected => SessionState::Disconnected,
            State::AwaitingLogon { .. } => SessionState::AwaitingLogon,
            State::LogonSent { .. } => SessionState::LogonSent,
            State::LoggedOn(_) => SessionState::LoggedOn,
            State::LogoutSent { .. } => SessionState::LogoutSent,
            State::Closing { .. } => SessionState::Closing,
        }
    }

    /// Asks the engine to close the connection (once).
    pub(super) fn disconnect(&mut self, reason: DisconnectReason) {
        if self.connected() {
            let logged_on = self.logged_on();
            self.state = State::Closing { logged_on, reason };
            self.events.push_back(SessionEvent::Disconnect(reason));
        }
    }

    /// Entry point for every decoded inbound message: the checks every message
    /// passes, then its handler. `queued`: it was held for a gap and its turn has
    /// come; `forced`: the reject it gets whatever it holds.
    pub(super) fn process(
        &mut self,
        msg: &MessageView<'_>,
        app: &mut dyn Application,
        queued: bool,
        forced: Option<SessionReject>,
    ) {
        if !self.connected() {
            return;
        }
        let now = self.now();
        if let Some(live) = self.live_mut() {
            live.last_received = now;
            live.test_requests = 0;
        }
        let msg_type = msg.msg_type();
        if queued && (msg_type == msg_type::LOGON || msg_type == msg_type::RESEND_REQUEST) {
            // Already handled when it first arrived.
            self.incr_target();
            return;
        }
        let logged_on = self.logged_on();
        if !logged_on
            && msg_type != msg_type::LOGON
            && !matches!(self.state, State::LogonSent { .. })
        {
            self.disconnect(DisconnectReason::InvalidLogon);
            return;
        }
        if !msg.contains(tag::MSG_SEQ_NUM) {
            // A message that cannot be put in sequence (QuickFIX/J's QFJ-650, the FIX
            // session rules): a Logout saying so, and the end of the connection; the
            // expected inbound number is not taken. Before the Logons it is an
            // invalid Logon like any other, dropped without a word.
            if logged_on {
                self.logout_and_disconnect(
                    format_args!("{MISSING_MSG_SEQ_NUM_TEXT}"),
                    DisconnectReason::MissingMsgSeqNum,
                    app,
                );
            } else {
                self.disconnect(DisconnectReason::InvalidLogon);
            }
            return;
        }
        if msg.begin_string() != self.begin_bytes() {
            if !logged_on {
                self.disconnect(DisconnectReason::InvalidLogon);
            } else if msg_type == msg_type::LOGOUT {
                self.on_logout(msg, app);
            } else {
                if parse_seq(msg.get(tag::MSG_SEQ_NUM)) == Some(self.expected()) {
                    self.incr_target();
                }
                self.initiate_logout(Some(b"Incorrect BeginString"), app);
            }
            return;
        }
        if msg_type == msg_type::LOGON
            && self.config.id.is_fixt()
            && !msg.contains(tag::DEFAULT_APPL_VER_ID)
        {
            if !logged_on {
                self.disconnect(DisconnectReason::InvalidLogon);
            } else {
                self.reject(
                    msg,
                    SessionReject::new(
                        SessionRejectReason::RequiredTagMissing,
                        Some(i64::from(tag::DEFAULT_APPL_VER_ID)),
                    ),
                    app,
                );
            }
            return;
        }
        if let Some(rej) = forced.or_else(|| self.validate(msg)) {
            if !logged_on {
                self.disconnect(DisconnectReason::InvalidLogon);
            } else {
                self.reject(msg, rej, app);
            }
            return;
        }
        match msg_type {
            msg_type::LOGON => self.on_logon(msg, app),
            msg_type::LOGOUT => self.on_logout(msg, app),
            msg_type::HEARTBEAT => self.on_heartbeat(msg, app),
            msg_type::TEST_REQUEST => self.on_test_request(msg, app),
            msg_type::RESEND_REQUEST => self.on_resend_request(msg, app),
            msg_type::REJECT => self.on_reject(msg, app),
            msg_type::SEQUENCE_RESET => self.on_sequence_reset(msg, app),
            _ => self.on_application_message(msg, app),
        }
    }

    /// A session-level Reject from the peer: handed to the application. (QuickFIX
    /// does not check a Reject for a gap; a gap is a gap, so a too-high Reject is
    /// queued like any other message.)
    fn on_reject(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        if self.verify(msg, SeqCheck::TooHighAndTooLow, app) {
            self.notify(app, &AppEvent::RejectReceived(reject_info(msg)));
            let _ = self.app_from_admin(msg, app);
            self.incr_target();
        }
    }

    /// An application message, in sequence: to the application, which may answer
    /// through its outbox, or refuse it (the reject the FIX version calls for).
    fn on_application_message(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        if self.verify(msg, SeqCheck::TooHighAndTooLow, app) {
            if msg.msg_type() == msg_type::BUSINESS_MESSAGE_REJECT {
                self.notify(app, &AppEvent::RejectReceived(reject_info(msg)));
            }
            self.flush_events(app);
            let result = self.with_outbox(true, |id, out| app.from_app(msg, id, out));
            self.send_kept(app);
            match result {
                Ok(()) => self.incr_target(),
                Err(r) => self.app_reject(msg, r, app),
            }
        }
    }
}

/// A received Reject or BusinessMessageReject, as an event tells it.
fn reject_info<'a>(msg: &MessageView<'a>) -> RejectInfo<'a> {
    let number = |t| {
        msg.get(t)
            .and_then(|v| peregrine_codec::value::parse_u64(v).ok())
    };
    let business = msg.msg_type() == msg_type::BUSINESS_MESSAGE_REJECT;
    RejectInfo {
        kind: if business {
            RejectKind::Business
        } else {
            RejectKind::Session
        },
        ref_seq: number(tag::REF_SEQ_NUM),
        ref_msg_type: msg.get(tag::REF_MSG_TYPE),
        reason: number(if business {
            tag::BUSINESS_REJECT_REASON
        } else {
            tag::SESSION_REJECT_REASON
        })
        .and_then(|r| u32::try_from(r).ok()),
        ref_tag: number(tag::REF_TAG_ID).and_then(|r| u32::try_from(r).ok()),
        ref_id: msg.get(tag::BUSINESS_REJECT_REF_ID),
        text: msg.get(tag::TEXT),
    }
}

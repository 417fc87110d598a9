//! What the session says about itself: its state, why it asks for the
//! connection to be closed, and the events the engine polls.

use peregrine_codec::msg_type;

// For the documentation's links only.
#[cfg(doc)]
use crate::{Application, Session};

/// Where the session is in its life cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionState {
    /// No transport connection.
    Disconnected,
    /// Acceptor: connected, waiting for the peer's Logon.
    AwaitingLogon,
    /// Initiator: our Logon is sent, waiting for the answer.
    LogonSent,
    /// Both Logons exchanged.
    LoggedOn,
    /// Our Logout is sent, waiting for the peer's (or the LogoutTimeout).
    LogoutSent,
    /// The session asked the engine to close the connection
    /// ([`SessionEvent::Disconnect`]); waiting for [`Session::on_disconnected`].
    Closing,
}

/// Why the session asks for the connection to be closed.
///
/// ```
/// use peregrine_session::DisconnectReason;
/// let r = DisconnectReason::HeartbeatTimeout;
/// assert_eq!(r.to_string(), "nothing received for 2.4 heartbeat intervals");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DisconnectReason {
    /// The Logout handshake completed (ours or theirs).
    Logout,
    /// Our Logout was not answered within LogoutTimeout.
    LogoutTimeout,
    /// No Logon within LogonTimeout.
    LogonTimeout,
    /// Nothing received for 2.4 heartbeat intervals (TestRequest unanswered).
    HeartbeatTimeout,
    /// The first message was not a valid Logon (wrong CompIDs, BeginString, SendingTime,
    /// garbled, invalid, or not a Logon at all).
    InvalidLogon,
    /// A message arrived that the session state does not allow (e.g. a second Logon).
    InvalidState,
    /// MsgSeqNum lower than expected without PossDupFlag (a Logout was sent).
    SeqNumTooLow,
    /// The application refused the Logon (a Logout was sent).
    LogonRejected,
    /// A message arrived without MsgSeqNum(34) (a Logout saying so was sent; the
    /// expected inbound number is unchanged).
    MissingMsgSeqNum,
    /// NextExpectedMsgSeqNum(789) higher than our next MsgSeqNum (a Logout was sent).
    NextExpectedTooHigh,
    /// Outside the session schedule, or a Logon on a connection made before
    /// the current session period began.
    OutsideSchedule,
    /// [`Session::logout`] was called while not logged on.
    Requested,
    /// More than `max_logon_size` bytes arrived before the session was logged on.
    LogonTooLarge,
    /// The messages held while a gap is filled reached `max_inbound_queue_bytes`
    /// (a Logout saying so was sent).
    InboundQueueFull,
    /// The outbound buffer reached `max_outbound_bytes` (the peer does not read);
    /// what was not written is in the store, for the resend the peer will ask for.
    OutboundQueueFull,
    /// The store could not commit: nothing that depended on it was sent.
    StoreFailure,
    /// The counterparty closed the connection (told by the driver, see
    /// [`Session::on_connection_lost`]).
    PeerClosed,
    /// Reading or writing the connection failed (told by the driver).
    Transport(std::io::ErrorKind),
    /// TLS failed (told by the driver): a handshake that did not complete (a
    /// certificate that does not verify, no common version) or a record that
    /// does not decrypt. The driver's event log says which.
    Tls,
    /// The driver cut a counterparty that did not read what was sent (its
    /// outbound limits: `MaxOutboundQueueBytes`, `SlowConsumerHardLimit`).
    SlowConsumer,
    /// The driver closed the connection for reasons of its own (shutting
    /// down, the session removed, an operator's command).
    Closed,
}

impl std::fmt::Display for DisconnectReason {
    /// What an event log says.
    ///
    /// ```
    /// use peregrine_session::DisconnectReason;
    /// assert_eq!(DisconnectReason::LogonTimeout.to_string(), "no Logon within LogonTimeout");
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DisconnectReason::Logout => "logged out",
            DisconnectReason::LogoutTimeout => "our Logout was not answered within LogoutTimeout",
            DisconnectReason::LogonTimeout => "no Logon within LogonTimeout",
            DisconnectReason::HeartbeatTimeout => "nothing received for 2.4 heartbeat intervals",
            DisconnectReason::InvalidLogon => "the first message was not a valid Logon",
            DisconnectReason::InvalidState => "a message the session's state does not allow",
            DisconnectReason::SeqNumTooLow => "MsgSeqNum too low",
            DisconnectReason::LogonRejected => "the application refused the Logon",
            DisconnectReason::MissingMsgSeqNum => "a message without MsgSeqNum",
            DisconnectReason::NextExpectedTooHigh => {
                "NextExpectedMsgSeqNum higher than our next MsgSeqNum"
            }
            DisconnectReason::OutsideSchedule => "outside the session's hours",
            DisconnectReason::Requested => "logout requested while not logged on",
            DisconnectReason::LogonTooLarge => "more than MaxLogonMessageSize before the Logon",
            DisconnectReason::InboundQueueFull => {
                "the messages held for a gap reached MaxInboundQueueBytes"
            }
            DisconnectReason::OutboundQueueFull => {
                "the outbound queue reached its ceiling (SlowConsumerHardLimit: the peer does not read)"
            }
            DisconnectReason::StoreFailure => "the store could not commit",
            DisconnectReason::PeerClosed => "the counterparty closed the connection",
            DisconnectReason::Transport(kind) => {
                return write!(f, "the connection failed ({kind})");
            }
            DisconnectReason::Tls => "TLS failed (the event log says how)",
            DisconnectReason::SlowConsumer => "the counterparty did not read (slow consumer)",
            DisconnectReason::Closed => "closed by the engine",
        })
    }
}

/// Something the engine or the operator may want to know, polled with
/// [`Session::poll_event`]. Only [`SessionEvent::Disconnect`] requires action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionEvent {
    /// Both Logons exchanged.
    LoggedOn,
    /// The session was logged on and the connection is gone.
    LoggedOut,
    /// The engine must write what is pending in [`Session::outbound`], close the
    /// connection and call [`Session::on_disconnected`].
    Disconnect(DisconnectReason),
    /// We rejected an inbound message (session Reject or BusinessMessageReject).
    Rejected {
        /// MsgSeqNum of the rejected message (0 when it had none).
        ref_seq: u64,
        /// SessionRejectReason (373) or BusinessRejectReason (380); 99 (Other)
        /// for the Reject of a garbled message (`RejectGarbledMessage`), which
        /// carries none.
        reason: u32,
    },
    /// Bytes were dropped as garbled (no sequence number consumed), or, with
    /// `RejectGarbledMessage`, a garbled message was rejected (then followed
    /// by [`SessionEvent::Rejected`]).
    Garbled,
    /// A sequence gap: we sent a ResendRequest.
    ResendRequested {
        /// BeginSeqNo(7).
        begin: u64,
        /// EndSeqNo(16) as sent (0 or 999999 for "to the end").
        end: u64,
    },
    /// The peer asked for a resend; we answered it.
    ResendAnswered {
        /// BeginSeqNo(7).
        begin: u64,
        /// Last sequence number covered.
        end: u64,
    },
    /// The store failed; the session carries on but persistence is compromised.
    StoreFailed,
    /// The store found acknowledged data damaged or missing when it opened
    /// (see [`peregrine_store::Recovery`]): resend requests for the lost
    /// messages are answered with gap fills.
    StoreDataLost {
        /// How many messages are known to be lost.
        messages: u64,
    },
}

/// Bytes from the wire, for people: printable ASCII as it is, anything else
/// escaped (`\x01`), so that a peer's text cannot forge log lines.
pub(super) struct Escaped<'a>(pub(super) &'a [u8]);

impl std::fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for &b in self.0 {
            if (0x20..0x7f).contains(&b) && b != b'\\' {
                std::fmt::Write::write_char(f, b as char)?;
            } else {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

/// Why a logged-on session ended, as [`Application::on_logout`] hears it. Texts are
/// the Text(58) bytes as sent or received (its [`Display`](std::fmt::Display)
/// escapes them).
///
/// ```
/// use peregrine_session::{DisconnectReason, LogoutReason};
///
/// let theirs = LogoutReason::Remote { text: Some(b"End of day") };
/// assert_eq!(theirs.to_string(), "the peer logged out: End of day");
/// let ours = LogoutReason::Local { text: None, disconnect: Some(DisconnectReason::Logout) };
/// assert_eq!(ours.to_string(), "we logged out (logged out)");
/// let lost = LogoutReason::Disconnected(None);
/// assert_eq!(lost.to_string(), "the connection closed");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LogoutReason<'a> {
    /// We sent the first Logout — [`Session::logout`], the end of the schedule, or a
    /// problem the session answers with a Logout (e.g. MsgSeqNum too low) — with this
    /// Text(58).
    Local {
        /// Text(58) of our Logout.
        text: Option<&'a [u8]>,
        /// How the connection then ended: [`DisconnectReason::Logout`] when the peer
        /// answered, [`DisconnectReason::LogoutTimeout`] when it did not, the problem
        /// when the session closed at once; `None` when the transport closed first.
        disconnect: Option<DisconnectReason>,
    },
    /// The peer sent the first Logout, with this Text(58); the session answered it.
    Remote {
        /// Text(58) of the peer's Logout.
        text: Option<&'a [u8]>,
    },
    /// No Logout was exchanged: the connection ended for this reason (`None`: it was
    /// closed by the peer or the transport, not at the session's request).
    Disconnected(Option<DisconnectReason>),
}

impl std::fmt::Display for LogoutReason<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            LogoutReason::Local { text, disconnect } => {
                f.write_str("we logged out")?;
                if let Some(t) = text {
                    write!(f, ": {}", Escaped(t))?;
                }
                match disconnect {
                    Some(r) => write!(f, " ({r})"),
                    None => f.write_str(" (the connection closed)"),
                }
            }
            LogoutReason::Remote { text } => {
                f.write_str("the peer logged out")?;
                match text {
                    Some(t) => write!(f, ": {}", Escaped(t)),
                    None => Ok(()),
                }
            }
            LogoutReason::Disconnected(Some(r)) => write!(f, "disconnected: {r}"),
            LogoutReason::Disconnected(None) => f.write_str("the connection closed"),
        }
    }
}

/// Session Reject (35=3) or BusinessMessageReject (35=j).
///
/// ```
/// use peregrine_session::RejectKind;
/// assert_eq!(RejectKind::Business.msg_type(), b"j");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RejectKind {
    /// A session-level Reject (35=3): `reason` is SessionRejectReason(373).
    Session,
    /// A BusinessMessageReject (35=j): `reason` is BusinessRejectReason(380).
    Business,
}

impl RejectKind {
    /// Its MsgType(35).
    ///
    /// ```
    /// assert_eq!(peregrine_session::RejectKind::Session.msg_type(), b"3");
    /// ```
    pub fn msg_type(self) -> &'static [u8] {
        match self {
            RejectKind::Session => msg_type::REJECT,
            RejectKind::Business => msg_type::BUSINESS_MESSAGE_REJECT,
        }
    }
}

/// A reject, sent or received ([`AppEvent::RejectSent`], [`AppEvent::RejectReceived`]):
/// its fields as on the wire, borrowed.
///
/// ```
/// use peregrine_session::{RejectInfo, RejectKind};
///
/// let r = RejectInfo {
///     kind: RejectKind::Session,
///     ref_seq: Some(7),
///     ref_msg_type: Some(b"D"),
///     reason: Some(5),
///     ref_tag: Some(44),
///     ref_id: None,
///     text: Some(b"Value is incorrect (out of range) for this tag"),
/// };
/// assert_eq!(
///     r.to_string(),
///     "Reject of 7 (D), reason 5, tag 44: Value is incorrect (out of range) for this tag"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RejectInfo<'a> {
    /// Session Reject or BusinessMessageReject.
    pub kind: RejectKind,
    /// RefSeqNum(45): the rejected message's MsgSeqNum.
    pub ref_seq: Option<u64>,
    /// RefMsgType(372).
    pub ref_msg_type: Option<&'a [u8]>,
    /// SessionRejectReason(373) of a Reject, BusinessRejectReason(380) of a
    /// BusinessMessageReject.
    pub reason: Option<u32>,
    /// RefTagID(371) (session Rejects).
    pub ref_tag: Option<u32>,
    /// BusinessRejectRefID(379) (BusinessMessageRejects).
    pub ref_id: Option<&'a [u8]>,
    /// Text(58).
    pub text: Option<&'a [u8]>,
}

impl std::fmt::Display for RejectInfo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.kind {
            RejectKind::Session => "Reject",
            RejectKind::Business => "BusinessMessageReject",
        })?;
        if let Some(s) = self.ref_seq {
            write!(f, " of {s}")?;
        }
        if let Some(t) = self.ref_msg_type {
            write!(f, " ({})", Escaped(t))?;
        }
        if let Some(r) = self.reason {
            write!(f, ", reason {r}")?;
        }
        if let Some(t) = self.ref_tag {
            write!(f, ", tag {t}")?;
        }
        if let Some(id) = self.ref_id {
            write!(f, ", ref id {}", Escaped(id))?;
        }
        if let Some(t) = self.text {
            write!(f, ": {}", Escaped(t))?;
        }
        Ok(())
    }
}

/// What happened to a session, as its application hears it through
/// [`Application::on_event`], in order. Data is borrowed from the message at hand
/// (Text(58) as bytes; [`Display`](std::fmt::Display) escapes it), so events cost no
/// allocation. The engine polls the related [`SessionEvent`]s.
///
/// ```
/// use peregrine_session::{AppEvent, DisconnectReason};
///
/// let events = [
///     AppEvent::Connected,
///     AppEvent::GapDetected { expected: 5, received: 9 },
///     AppEvent::ResendRequested { begin: 5, end: 0 },
///     AppEvent::LogoutReceived { text: Some(b"bye") },
///     AppEvent::Disconnected { reason: Some(DisconnectReason::Logout) },
/// ];
/// let lines: Vec<String> = events.iter().map(|e| e.to_string()).collect();
/// assert_eq!(lines[1], "gap: expected 5, received 9");
/// assert_eq!(lines[3], "Logout received: bye");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AppEvent<'a> {
    /// A transport connection is up ([`Session::on_connected`]).
    Connected,
    /// The transport connection is gone ([`Session::on_disconnected`]): `reason` is
    /// why the session asked for it to be closed, `None` when it did not ask (the
    /// peer or the transport closed it). After [`Application::on_logout`] when the
    /// session was logged on.
    Disconnected {
        /// Why, when the session asked.
        reason: Option<DisconnectReason>,
    },
    /// We sent a Reject or a BusinessMessageReject.
    RejectSent(RejectInfo<'a>),
    /// The peer sent a Reject or a BusinessMessageReject (before it is handed to
    /// [`Application::from_admin`] or [`Application::from_app`]).
    RejectReceived(RejectInfo<'a>),
    /// A message arrived with a MsgSeqNum above the expected one, and no
    /// ResendRequest covers it yet: messages are missing (a ResendRequest follows).
    GapDetected {
        /// The MsgSeqNum expected.
        expected: u64,
        /// The MsgSeqNum received.
        received: u64,
    },
    /// We sent a ResendRequest.
    ResendRequested {
        /// BeginSeqNo(7).
        begin: u64,
        /// EndSeqNo(16) as sent (0, or 999999 before FIX.4.2, for "to the end").
        end: u64,
    },
    /// The peer sent a ResendRequest (its range checked); answering it starts.
    ResendRequestReceived {
        /// BeginSeqNo(7).
        begin: u64,
        /// EndSeqNo(16) as received.
        end: u64,
    },
    /// We finished answering a ResendRequest (resends and gap fills queued).
    ResendAnswered {
        /// BeginSeqNo(7).
        begin: u64,
        /// The last sequence number covered.
        end: u64,
    },
    /// The peer sent a SequenceReset (checked, before it is applied).
    SequenceResetReceived {
        /// NewSeqNo(36).
        new_seq: u64,
        /// GapFillFlag(123)=Y: a gap fill, else a reset.
        gap_fill: bool,
    },
    /// The store's sequence numbers were reset to 1 (ResetSeqNumFlag, ResetOnLogon,
    /// ResetOnLogout, ResetOnDisconnect, a new schedule period).
    SequenceNumbersReset,
    /// We sent a Logout, with this Text(58).
    LogoutSent {
        /// Text(58).
        text: Option<&'a [u8]>,
    },
    /// The peer sent a Logout (before it is handed to [`Application::from_admin`]),
    /// with this Text(58).
    LogoutReceived {
        /// Text(58).
        text: Option<&'a [u8]>,
    },
    /// Bytes were dropped as garbled (no sequence number consumed).
    Garbled,
    /// The store failed; what was not committed is not sent.
    StoreFailed,
    /// The store found acknowledged messages lost when it opened (resend requests
    /// for them get gap fills).
    StoreDataLost {
        /// How many.
        messages: u64,
    },
    /// A message handed to the engine's send handle was not sent (the handle's
    /// caller was told only that the engine took it): not logged on with
    /// `QueueWhileLoggedOut=N`, vetoed by [`Application::to_app`], or refused by
    /// the store.
    SendRefused {
        /// Its MsgType(35).
        msg_type: &'a [u8],
        /// Why.
        reason: SendRefusal,
    },
    /// A message this session's callback sent through its
    /// [`Outbox`](crate::Outbox), and was told was taken, was not sent when it
    /// was handed over: on another session (`to`: the destination, whose
    /// `to_app` vetoed it, or which could not take it any more), or on this
    /// one after an [`Application::on_event`] or [`Application::from_admin`]
    /// (`to: None`: the same call logged the session out, and it keeps
    /// nothing for after the next Logon). A router answers its client here.
    CallbackSendRefused {
        /// The other session it was sent on (`None`: this one).
        to: Option<crate::SessionRef>,
        /// Its MsgType(35).
        msg_type: &'a [u8],
        /// Why.
        reason: SendRefusal,
    },
}

/// Why a message from the engine's send handle was not sent
/// ([`AppEvent::SendRefused`]).
///
/// Every error a send can give, from which call, and what to do: `docs/sending.md`.
///
/// ```
/// use peregrine_session::{SendError, SendRefusal};
/// assert_eq!(SendRefusal::of(&SendError::NotLoggedOn), SendRefusal::NotLoggedOn);
/// assert_eq!(SendRefusal::NotLoggedOn.to_string(), "not logged on");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SendRefusal {
    /// Not logged on, and messages are not kept for the resend after the next
    /// Logon (`QueueWhileLoggedOut=N`).
    NotLoggedOn,
    /// [`Application::to_app`] vetoed it.
    Vetoed,
    /// The store refused it (or failed).
    Store,
}

impl SendRefusal {
    /// The refusal a [`SendError`](crate::SendError) stands for.
    pub fn of(e: &crate::SendError) -> SendRefusal {
        use crate::SendError as E;
        match e {
            E::NotLoggedOn => SendRefusal::NotLoggedOn,
            E::DoNotSend => SendRefusal::Vetoed,
            _ => SendRefusal::Store,
        }
    }
}

impl std::fmt::Display for SendRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SendRefusal::NotLoggedOn => "not logged on",
            SendRefusal::Vetoed => "vetoed by to_app",
            SendRefusal::Store => "refused by the store",
        })
    }
}

impl std::fmt::Display for AppEvent<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            AppEvent::Connected => f.write_str("connected"),
            AppEvent::Disconnected { reason: Some(r) } => write!(f, "disconnected: {r}"),
            AppEvent::Disconnected { reason: None } => {
                f.write_str("disconnected: the connection closed")
            }
            AppEvent::RejectSent(r) => write!(f, "sent {r}"),
            AppEvent::RejectReceived(r) => write!(f, "received {r}"),
            AppEvent::GapDetected { expected, received } => {
                write!(f, "gap: expected {expected}, received {received}")
            }
            AppEvent::ResendRequested { begin, end } => {
                write!(f, "ResendRequest sent: {begin} to {end}")
            }
            AppEvent::ResendRequestReceived { begin, end } => {
                write!(f, "ResendRequest received: {begin} to {end}")
            }
            AppEvent::ResendAnswered { begin, end } => {
                write!(f, "resend answered: {begin} to {end}")
            }
            AppEvent::SequenceResetReceived { new_seq, gap_fill } => write!(
                f,
                "SequenceReset{} received: NewSeqNo {new_seq}",
                if gap_fill { "-GapFill" } else { "" }
            ),
            AppEvent::SequenceNumbersReset => f.write_str("sequence numbers reset"),
            AppEvent::LogoutSent { text } => {
                f.write_str("Logout sent")?;
                match text {
                    Some(t) => write!(f, ": {}", Escaped(t)),
                    None => Ok(()),
                }
            }
            AppEvent::LogoutReceived { text } => {
                f.write_str("Logout received")?;
                match text {
                    Some(t) => write!(f, ": {}", Escaped(t)),
                    None => Ok(()),
                }
            }
            AppEvent::Garbled => f.write_str("garbled bytes dropped"),
            AppEvent::StoreFailed => f.write_str("the store failed"),
            AppEvent::StoreDataLost { messages } => {
                write!(f, "the store lost {messages} acknowledged message(s)")
            }
            AppEvent::SendRefused { msg_type, reason } => {
                write!(
                    f,
                    "a {} from the send handle was not sent: {reason}",
                    Escaped(msg_type)
                )
            }
            AppEvent::CallbackSendRefused {
                to,
                msg_type,
                reason,
            } => {
                write!(f, "a {} a callback sent ", Escaped(msg_type))?;
                match to {
                    Some(r) => write!(f, "to session #{}/{}", r.index(), r.generation())?,
                    None => f.write_str("on this session")?,
                }
                write!(f, " was not sent: {reason}")
            }
        }
    }
}

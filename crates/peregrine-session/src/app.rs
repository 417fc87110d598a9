//! The application side: callbacks, and sending from inside them.

use std::borrow::Cow;
use std::fmt;

use peregrine_codec::{tag, value, DecodeError, Decoder, MessageEncoder, MessageView};
use peregrine_dict::ValidationError;
use peregrine_messages::{Body, Message, UnsupportedMessageType};
use peregrine_store::StoreError;

use crate::config::{Nanos, SessionId};
use crate::session::{AppEvent, LogoutReason};

// For the documentation's links only.
#[cfg(doc)]
use crate::Session;

/// Refusal of a Logon by [`Application::from_admin`]: the session answers with a Logout
/// carrying `text` and disconnects (QuickFIX/J's `RejectLogon`).
///
/// ```
/// use peregrine_session::RejectLogon;
///
/// let fixed = RejectLogon::new("Invalid password");
/// let user = "TW";
/// let built = RejectLogon::new(format!("Unknown user {user}"));
/// assert_eq!(fixed.text, "Invalid password");
/// assert_eq!(built.text, "Unknown user TW");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RejectLogon {
    /// Text(58) of the Logout: a `&'static str` costs nothing, a `String` is taken as
    /// it is.
    pub text: Cow<'static, str>,
}

impl RejectLogon {
    /// A refusal whose Logout says `text`.
    ///
    /// ```
    /// let r = peregrine_session::RejectLogon::new("Logon outside trading hours");
    /// assert_eq!(r.text, "Logon outside trading hours");
    /// ```
    pub fn new(text: impl Into<Cow<'static, str>>) -> Self {
        RejectLogon { text: text.into() }
    }
}

/// What BusinessRejectRefID(379) of a BusinessMessageReject carries: the value of
/// the business-level ID of the rejected message (its ClOrdID, QuoteReqID, …).
///
/// ```
/// use peregrine_session::RefId;
///
/// // Copied by the session from the rejected message as it writes the reject:
/// let from_the_message = RefId::Field(11); // ClOrdID
/// // Or a value of the application's own:
/// let given = RefId::Value("ORD-7".into());
/// assert_ne!(from_the_message, given);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefId {
    /// The value of this tag in the rejected message (no copy; 379 is left out when
    /// the message does not carry the tag).
    Field(u32),
    /// This value.
    Value(Cow<'static, str>),
}

/// Why the application did not accept an application message
/// ([`Application::from_app`]'s error).
///
/// ```
/// use peregrine_session::{AppReject, RefId};
///
/// let symbol = "XYZ";
/// let reject = AppReject::Business {
///     reason: 2, // UnknownSecurity
///     text: format!("Unknown symbol {symbol}").into(),
///     ref_id: Some(RefId::Field(11)),
/// };
/// assert!(matches!(reject, AppReject::Business { reason: 2, .. }));
/// assert_eq!(AppReject::business(0, "Not now").to_string(), "business reject 0: Not now");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AppReject {
    /// The application does not handle this MsgType: BusinessMessageReject (35=j, 380=3,
    /// 58="Unsupported Message Type") from FIX.4.2 on, session Reject before.
    UnsupportedMessageType,
    /// A BusinessMessageReject (35=j) with this BusinessRejectReason(380), Text(58) and,
    /// when given, BusinessRejectRefID(379); before FIX.4.2 (no 35=j) a session Reject
    /// (35=3) with the text.
    Business {
        /// BusinessRejectReason(380): 0 Other, 1 UnknownID, 2 UnknownSecurity,
        /// 3 UnsupportedMessageType, 4 ApplicationNotAvailable,
        /// 5 ConditionallyRequiredFieldMissing, 6 NotAuthorized, …
        reason: u32,
        /// Text(58): a `&'static str` costs nothing, a `String` (e.g. from `format!`)
        /// is taken as it is.
        text: Cow<'static, str>,
        /// BusinessRejectRefID(379), written when given (and, for
        /// [`RefId::Field`], when the message carries the field).
        ref_id: Option<RefId>,
    },
    /// A session-level Reject (35=3) with this reason and tag.
    Session(ValidationError),
}

impl AppReject {
    /// A [`AppReject::Business`] with no BusinessRejectRefID(379).
    ///
    /// ```
    /// use peregrine_session::AppReject;
    /// let r = AppReject::business(4, "Application not available");
    /// assert!(matches!(r, AppReject::Business { reason: 4, ref_id: None, .. }));
    /// ```
    pub fn business(reason: u32, text: impl Into<Cow<'static, str>>) -> Self {
        AppReject::Business {
            reason,
            text: text.into(),
            ref_id: None,
        }
    }
}

/// A reply the application could not send (the store refused it, or
/// `to_app` vetoed it) while handling a message: the message is rejected with a
/// BusinessMessageReject, BusinessRejectReason(380)=0 (Other) and the error as
/// Text(58), so `?` works on a send inside [`Application::from_app`].
///
/// ```
/// use peregrine_session::{AppReject, SendError};
/// let reject = AppReject::from(SendError::NotLoggedOn);
/// assert!(matches!(reject, AppReject::Business { reason: 0, .. }));
/// ```
impl From<SendError> for AppReject {
    fn from(e: SendError) -> Self {
        AppReject::business(0, e.to_string())
    }
}

/// What a generated `MessageHandler` method returns for a message it does not handle:
/// [`AppReject::UnsupportedMessageType`] (a BusinessMessageReject with
/// BusinessRejectReason(380)=3), so that `fix44::crack(self, msg, out)` can be all of
/// [`Application::from_app`].
///
/// ```
/// use peregrine_messages::UnsupportedMessageType;
/// use peregrine_session::AppReject;
/// assert_eq!(AppReject::from(UnsupportedMessageType), AppReject::UnsupportedMessageType);
/// ```
impl From<UnsupportedMessageType> for AppReject {
    fn from(_: UnsupportedMessageType) -> Self {
        AppReject::UnsupportedMessageType
    }
}

impl fmt::Display for AppReject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppReject::UnsupportedMessageType => f.write_str("unsupported message type"),
            AppReject::Business { reason, text, .. } => {
                write!(f, "business reject {reason}: {text}")
            }
            AppReject::Session(e) => write!(f, "session reject: {e:?}"),
        }
    }
}

/// The application's veto of an outgoing application message, returned by
/// [`Application::to_app`] (QuickFIX/J's `DoNotSend`).
///
/// ```
/// use peregrine_session::DoNotSend;
/// let veto: Result<(), DoNotSend> = Err(DoNotSend);
/// assert!(veto.is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DoNotSend;

impl fmt::Display for DoNotSend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the application vetoed the message (DoNotSend)")
    }
}

impl std::error::Error for DoNotSend {}

/// Why a message could not be sent.
///
/// ```
/// use peregrine_session::SendError;
/// assert_eq!(SendError::NotLoggedOn.to_string(), "session is not logged on");
/// ```
#[derive(Debug)]
pub enum SendError {
    /// The session is not logged on (application messages wait for the logon).
    NotLoggedOn,
    /// The store refused the message (the message was not sent).
    Store(StoreError),
    /// [`Application::to_app`] vetoed the message: it was not stored nor sent, and
    /// its MsgSeqNum was not used (the next message takes it), as in QuickFIX/J.
    DoNotSend,
    /// More extra header fields than a message may carry
    /// ([`Outbox::MAX_HEADER_FIELDS`]): nothing was stored nor sent, and the
    /// MsgSeqNum was not used.
    TooManyHeaderFields {
        /// How many were given.
        given: usize,
        /// The most a message takes.
        max: usize,
    },
    /// An extra header field that the session writes itself (BeginString,
    /// BodyLength, MsgType, MsgSeqNum, SenderCompID, TargetCompID, SendingTime,
    /// PossDupFlag, OrigSendingTime, LastMsgSeqNumProcessed, CheckSum): a message
    /// whose MsgSeqNum or CompIDs differ from the session's would not be the
    /// message stored. Nothing was stored nor sent.
    SessionHeaderField {
        /// The tag given.
        tag: u32,
    },
    /// A callback's [`Outbox`] holds as many bytes as the outbound buffer may
    /// (`max_outbound_bytes`): its messages are sent when the callback returns,
    /// and this one was not kept.
    CallbackOutboxFull {
        /// The bound, in bytes.
        bound: usize,
    },
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::NotLoggedOn => f.write_str("session is not logged on"),
            SendError::Store(e) => write!(f, "store error: {e}"),
            SendError::DoNotSend => f.write_str("vetoed by the application (DoNotSend)"),
            SendError::TooManyHeaderFields { given, max } => write!(
                f,
                "{given} extra header fields given, a message takes at most {max}"
            ),
            SendError::SessionHeaderField { tag } => {
                write!(f, "header field {tag} is written by the session")
            }
            SendError::CallbackOutboxFull { bound } => write!(
                f,
                "the callback's outbox holds {bound} bytes, its bound (max_outbound_bytes)"
            ),
        }
    }
}

impl std::error::Error for SendError {}

impl From<StoreError> for SendError {
    fn from(e: StoreError) -> Self {
        SendError::Store(e)
    }
}

impl From<DoNotSend> for SendError {
    fn from(_: DoNotSend) -> Self {
        SendError::DoNotSend
    }
}

/// The application: QuickFIX's callbacks, zero-copy. Every method but
/// [`Application::from_app`] has a default, so a minimal application is one method:
///
/// ```
/// use peregrine_codec::MessageView;
/// use peregrine_session::{AppReject, Application, Outbox, SessionId};
///
/// struct Printer;
/// impl Application for Printer {
///     fn from_app(&mut self, msg: &MessageView, _id: &SessionId, _out: &mut Outbox<'_>) -> Result<(), AppReject> {
///         println!("{:?}", msg.msg_type());
///         Ok(())
///     }
/// }
/// ```
///
/// What the session calls, and when (QuickFIX/J's names, in snake case):
///
/// | method | when |
/// | --- | --- |
/// | [`on_create`](Self::on_create) | once, when the session is bound to the application ([`Session::create`]) |
/// | [`on_logon`](Self::on_logon) | both Logons exchanged; may send |
/// | [`on_logout`](Self::on_logout) | a logged-on session's connection is gone, with why |
/// | [`to_admin`](Self::to_admin) | before each admin message the session sends is encoded; may add fields |
/// | [`from_admin`](Self::from_admin) | each admin message received, in sequence; may refuse a Logon |
/// | [`to_app`](Self::to_app) | each application message the session writes (new, resent, or a BusinessMessageReject); may veto it |
/// | [`from_app`](Self::from_app) | each application message received, in sequence and validated; may send, may reject |
/// | [`on_event`](Self::on_event) | connection and session events (connected, disconnected, rejects, gaps, resends, sequence resets, logouts), in order |
///
/// The callbacks run inside the session's calls ([`Session::on_bytes`],
/// [`Session::on_timer`], …), on the driver's thread: they should be quick.
///
/// A fuller application, keeping what it is told:
///
/// ```
/// use peregrine_codec::{msg_type, tag, MessageView};
/// use peregrine_session::{
///     AdminMessage, AppEvent, AppReject, Application, DoNotSend, LogoutReason, OutgoingMessage,
///     Outbox, SessionId,
/// };
///
/// #[derive(Default)]
/// struct Client { token: String, logged_on: bool, log: Vec<String> }
///
/// impl Application for Client {
///     fn on_logon(&mut self, _id: &SessionId, out: &mut Outbox<'_>) {
///         self.logged_on = true;
///         // A status request as soon as the session is up (it follows the Logon).
///         let _ = out.send(b"H", |m| {
///             m.str(790, b"STATUS-1");
///         });
///     }
///     fn on_logout(&mut self, _id: &SessionId, reason: &LogoutReason<'_>) {
///         self.logged_on = false;
///         self.log.push(format!("logout: {reason}"));
///     }
///     fn to_admin(&mut self, msg: &mut AdminMessage<'_>, _id: &SessionId) {
///         if msg.msg_type() == msg_type::LOGON {
///             msg.str(tag::USERNAME, b"client").str(tag::PASSWORD, self.token.as_bytes());
///         }
///     }
///     fn to_app(&mut self, msg: &mut OutgoingMessage<'_>, _id: &SessionId) -> Result<(), DoNotSend> {
///         // Orders are not sent again after a reconnect: the gap is filled instead.
///         if msg.is_resend() && msg.msg_type() == msg_type::NEW_ORDER_SINGLE {
///             return Err(DoNotSend);
///         }
///         Ok(())
///     }
///     fn from_app(&mut self, msg: &MessageView, _id: &SessionId, _out: &mut Outbox<'_>) -> Result<(), AppReject> {
///         match msg.msg_type() {
///             msg_type::EXECUTION_REPORT => Ok(()),
///             _ => Err(AppReject::UnsupportedMessageType),
///         }
///     }
///     fn on_event(&mut self, _id: &SessionId, event: &AppEvent<'_>) {
///         self.log.push(event.to_string());
///     }
/// }
/// ```
// QuickFIX's callback names (`from_admin`, `from_app`, `to_admin`, `to_app`) are part
// of the contract.
#[allow(clippy::wrong_self_convention)]
pub trait Application {
    /// The session was created (bound to this application: [`Session::create`]).
    ///
    /// ```
    /// # use peregrine_codec::MessageView;
    /// # use peregrine_session::{AppReject, Application, Outbox, SessionId};
    /// struct App { sessions: Vec<String> }
    /// impl Application for App {
    ///     fn on_create(&mut self, id: &SessionId) {
    ///         self.sessions.push(id.to_string());
    ///     }
    ///     # fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> { Ok(()) }
    /// }
    /// ```
    fn on_create(&mut self, _id: &SessionId) {}

    /// The session is logged on (both Logons exchanged). What the application sends
    /// through `out` goes after the Logon (and after the ResendRequest or resend the
    /// Logon itself called for).
    ///
    /// ```
    /// # use peregrine_codec::MessageView;
    /// # use peregrine_session::{AppReject, Application, Outbox, SessionId};
    /// struct App;
    /// impl Application for App {
    ///     fn on_logon(&mut self, _id: &SessionId, out: &mut Outbox<'_>) {
    ///         // e.g. subscribe as soon as the session is up
    ///         let _ = out.send(b"V", |m| {
    ///             m.str(262, b"MD-1").char(263, b'1').uint(264, 1);
    ///         });
    ///     }
    ///     # fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> { Ok(()) }
    /// }
    /// ```
    fn on_logon(&mut self, _id: &SessionId, _out: &mut Outbox<'_>) {}

    /// The session was logged on and its connection is gone; `reason` says why: our
    /// Logout, the peer's (with its Text(58)), or a disconnect without one. Called once
    /// per [`on_logon`](Self::on_logon), when the driver reports the connection closed
    /// ([`Session::on_disconnected`]).
    ///
    /// ```
    /// # use peregrine_codec::MessageView;
    /// # use peregrine_session::{AppReject, Application, Outbox, SessionId};
    /// use peregrine_session::LogoutReason;
    /// struct App { last: Option<String> }
    /// impl Application for App {
    ///     fn on_logout(&mut self, _id: &SessionId, reason: &LogoutReason<'_>) {
    ///         if let LogoutReason::Remote { text: Some(t) } = reason {
    ///             self.last = Some(String::from_utf8_lossy(t).into_owned());
    ///         }
    ///     }
    ///     # fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> { Ok(()) }
    /// }
    /// ```
    fn on_logout(&mut self, _id: &SessionId, _reason: &LogoutReason<'_>) {}

    /// An admin message the session is about to send (Logon, Heartbeat, TestRequest,
    /// ResendRequest, Reject, SequenceReset — gap fills included — and Logout): fields
    /// added to `msg` are written into it, header fields (SenderSubID(50),
    /// TargetSubID(57), OnBehalfOfCompID(115), …) into the header and the others after
    /// the session's own body fields. See [`AdminMessage`].
    ///
    /// ```
    /// # use peregrine_codec::MessageView;
    /// # use peregrine_session::{AppReject, Application, Outbox, SessionId};
    /// use peregrine_codec::{msg_type, tag};
    /// use peregrine_session::AdminMessage;
    /// struct App;
    /// impl Application for App {
    ///     fn to_admin(&mut self, msg: &mut AdminMessage<'_>, _id: &SessionId) {
    ///         msg.str(tag::SENDER_SUB_ID, b"DESK1"); // on every admin message
    ///         if msg.msg_type() == msg_type::LOGON {
    ///             msg.str(tag::USERNAME, b"user").str(tag::PASSWORD, b"secret");
    ///         }
    ///     }
    ///     # fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> { Ok(()) }
    /// }
    /// ```
    fn to_admin(&mut self, _msg: &mut AdminMessage<'_>, _id: &SessionId) {}

    /// Inbound admin message, in sequence (Logon, Heartbeat, TestRequest,
    /// ResendRequest, Reject, SequenceReset, Logout). For a Logon, return `Err` to
    /// refuse it (e.g. a bad Username(553)/Password(554)): the session sends a Logout
    /// and disconnects.
    ///
    /// # Errors
    ///
    /// Return [`RejectLogon`] to refuse a Logon; the session answers with a Logout
    /// carrying its text. For any other admin message the session ignores the result.
    ///
    /// ```
    /// # use peregrine_session::{AppReject, Application, Outbox, SessionId};
    /// use peregrine_codec::{msg_type, tag, MessageView};
    /// use peregrine_session::RejectLogon;
    /// struct App;
    /// impl Application for App {
    ///     fn from_admin(&mut self, msg: &MessageView<'_>, _id: &SessionId) -> Result<(), RejectLogon> {
    ///         if msg.msg_type() == msg_type::LOGON && msg.get(tag::PASSWORD) != Some(b"secret") {
    ///             return Err(RejectLogon::new("Invalid password"));
    ///         }
    ///         Ok(())
    ///     }
    ///     # fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> { Ok(()) }
    /// }
    /// ```
    fn from_admin(&mut self, _msg: &MessageView<'_>, _id: &SessionId) -> Result<(), RejectLogon> {
        Ok(())
    }

    /// An application message the session is about to send, once encoded: a new one
    /// ([`Session::send`], or through a callback's [`Outbox`]), a resend (PossDupFlag(43)=Y, [`OutgoingMessage::is_resend`]),
    /// or a BusinessMessageReject the session writes for [`AppReject`]. Return
    /// [`DoNotSend`] to veto it: a new message is then not stored nor sent and its
    /// MsgSeqNum is not used ([`SendError::DoNotSend`]); a resend is replaced by a
    /// SequenceReset-GapFill over its number.
    ///
    /// Or amend it, as QuickFIX/J's `toApp` may: fields set on `msg`
    /// ([`OutgoingMessage::str`] and its siblings) replace that tag's value where the
    /// message has it, and are otherwise added (header fields at the end of the header,
    /// others at the end of the body). The message is then written again with them —
    /// stored and sent amended — which costs one more encoding; a message not amended
    /// costs nothing more. Amending a resend changes only what is re-sent.
    ///
    /// Messages the application sends through the [`Outbox`] from inside its own
    /// callbacks ([`from_app`](Self::from_app), [`on_logon`](Self::on_logon)) come
    /// here too, as QuickFIX/J's `toApp` sees what `sendToTarget` sends inside
    /// `fromApp`: the application is borrowed by the callback while it runs, so the
    /// outbox keeps them (one copy of each body) and the session passes them here, in
    /// order, as soon as the callback returns, before anything else is sent.
    ///
    /// # Errors
    ///
    /// [`DoNotSend`] vetoes the message, as above.
    ///
    /// ```
    /// # use peregrine_codec::MessageView;
    /// # use peregrine_session::{AppReject, Application, Outbox, SessionId};
    /// use peregrine_codec::{msg_type, tag};
    /// use peregrine_session::{DoNotSend, OutgoingMessage};
    /// struct App { stale_before: u64 }
    /// impl Application for App {
    ///     fn to_app(&mut self, msg: &mut OutgoingMessage<'_>, _id: &SessionId) -> Result<(), DoNotSend> {
    ///         // An old order is not sent again on a resend: the peer gets a gap fill.
    ///         if msg.is_resend() && msg.seq_num() < self.stale_before {
    ///             return Err(DoNotSend);
    ///         }
    ///         // The message as it goes on the wire, decoded on demand:
    ///         if msg.view().is_ok_and(|v| v.get(55) == Some(b"HALTED")) {
    ///             return Err(DoNotSend);
    ///         }
    ///         // Amended: every order goes on behalf of the desk.
    ///         if msg.msg_type() == msg_type::NEW_ORDER_SINGLE {
    ///             msg.str(tag::ON_BEHALF_OF_COMP_ID, b"DESK1"); // in the header
    ///         }
    ///         Ok(())
    ///     }
    ///     # fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> { Ok(()) }
    /// }
    /// ```
    fn to_app(&mut self, _msg: &mut OutgoingMessage<'_>, _id: &SessionId) -> Result<(), DoNotSend> {
        Ok(())
    }

    /// Inbound application message, in sequence and validated. May send through `out`.
    /// `Err` makes the session send the reject the FIX version calls for.
    ///
    /// # Errors
    ///
    /// Return an [`AppReject`] when the application does not accept the message: the
    /// session sends a BusinessMessageReject (35=j) from FIX.4.2 on, or a session Reject
    /// (35=3), as the variant says. The message's sequence number is used either way.
    ///
    /// ```
    /// # use peregrine_session::{Application, Outbox, SessionId};
    /// use peregrine_codec::MessageView;
    /// use peregrine_session::{AppReject, RefId};
    /// struct App;
    /// impl Application for App {
    ///     fn from_app(&mut self, msg: &MessageView, _id: &SessionId, _out: &mut Outbox<'_>) -> Result<(), AppReject> {
    ///         let symbol = msg.get(55).unwrap_or(b"");
    ///         if symbol != b"MSFT" {
    ///             return Err(AppReject::Business {
    ///                 reason: 2, // UnknownSecurity
    ///                 text: format!("Unknown symbol {}", String::from_utf8_lossy(symbol)).into(),
    ///                 ref_id: Some(RefId::Field(11)), // 379 = the order's ClOrdID
    ///             });
    ///         }
    ///         Ok(())
    ///     }
    /// }
    /// ```
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject>;

    /// Something happened to the session: the connection came or went, a reject was
    /// sent or received, a gap was found, a resend asked for or answered, a
    /// SequenceReset received, a Logout sent or received (see [`AppEvent`]). Events
    /// arrive in the order they happened, interleaved in that order with the other
    /// callbacks.
    ///
    /// ```
    /// # use peregrine_codec::MessageView;
    /// # use peregrine_session::{AppReject, Application, Outbox, SessionId};
    /// use peregrine_session::AppEvent;
    /// struct App { gaps: u64 }
    /// impl Application for App {
    ///     fn on_event(&mut self, id: &SessionId, event: &AppEvent<'_>) {
    ///         if let AppEvent::GapDetected { expected, received } = event {
    ///             self.gaps += received - expected;
    ///         }
    ///         eprintln!("{id}: {event}");
    ///     }
    ///     # fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> { Ok(()) }
    /// }
    /// ```
    fn on_event(&mut self, _id: &SessionId, _event: &AppEvent<'_>) {}
}

/// Header fields the session writes itself: [`AdminMessage`] does not replace them,
/// and [`Outbox::send_with_header`] refuses them.
pub(crate) fn session_owned(t: u32) -> bool {
    matches!(
        t,
        tag::BEGIN_STRING
            | tag::BODY_LENGTH
            | tag::MSG_TYPE
            | tag::MSG_SEQ_NUM
            | tag::SENDER_COMP_ID
            | tag::TARGET_COMP_ID
            | tag::SENDING_TIME
            | tag::POSS_DUP_FLAG
            | tag::ORIG_SENDING_TIME
            | tag::LAST_MSG_SEQ_NUM_PROCESSED
            | tag::CHECK_SUM
    )
}

/// The setters of the messages an application adds fields to ([`AdminMessage`] in
/// [`Application::to_admin`], [`OutgoingMessage`] in [`Application::to_app`]): one
/// definition, so both read and behave alike.
macro_rules! field_setters {
    ($ty:ident) => {
        /// Adds a field with this value, as its bytes.
        ///
        /// ```
        #[doc = concat!("# use peregrine_session::", stringify!($ty), ";")]
        /// use peregrine_codec::tag;
        #[doc = concat!("fn credentials(msg: &mut ", stringify!($ty), "<'_>) {")]
        ///     msg.str(tag::USERNAME, b"user").str(tag::PASSWORD, b"secret");
        /// }
        /// ```
        pub fn str(&mut self, tag: u32, value: &[u8]) -> &mut Self {
            self.fields.push(tag, value);
            self
        }

        /// Adds an unsigned integer field.
        ///
        /// ```
        #[doc = concat!("# use peregrine_session::", stringify!($ty), ";")]
        /// use peregrine_codec::tag;
        #[doc = concat!("fn appl_ver(msg: &mut ", stringify!($ty), "<'_>) {")]
        ///     msg.uint(tag::DEFAULT_APPL_VER_ID, 9); // FIX.5.0SP2
        /// }
        /// ```
        pub fn uint(&mut self, tag: u32, v: u64) -> &mut Self {
            let mut b = [0u8; 20];
            let n = value::format_u64(v, &mut b);
            self.str(tag, &b[..n])
        }

        /// Adds a signed integer field.
        ///
        /// ```
        #[doc = concat!("# use peregrine_session::", stringify!($ty), ";")]
        #[doc = concat!("fn offset(msg: &mut ", stringify!($ty), "<'_>) {")]
        ///     msg.int(9001, -5);
        /// }
        /// ```
        pub fn int(&mut self, tag: u32, v: i64) -> &mut Self {
            let mut b = [0u8; 20];
            let n = value::format_i64(v, &mut b);
            self.str(tag, &b[..n])
        }

        /// Adds a one-character field.
        ///
        /// ```
        #[doc = concat!("# use peregrine_session::", stringify!($ty), ";")]
        #[doc = concat!("fn cancel_on_disconnect(msg: &mut ", stringify!($ty), "<'_>) {")]
        ///     msg.char(35002, b'Y');
        /// }
        /// ```
        pub fn char(&mut self, tag: u32, v: u8) -> &mut Self {
            self.str(tag, &[v])
        }

        /// Adds a Boolean field (`Y` or `N`).
        ///
        /// ```
        #[doc = concat!("# use peregrine_session::", stringify!($ty), ";")]
        #[doc = concat!("fn flag(msg: &mut ", stringify!($ty), "<'_>) {")]
        ///     msg.bool(8013, true);
        /// }
        /// ```
        pub fn bool(&mut self, tag: u32, v: bool) -> &mut Self {
            self.char(tag, if v { b'Y' } else { b'N' })
        }

        /// Adds a data field after its length field (e.g. RawDataLength(95) and
        /// RawData(96)).
        ///
        /// ```
        #[doc = concat!("# use peregrine_session::", stringify!($ty), ";")]
        /// use peregrine_codec::tag;
        #[doc = concat!("fn signature(msg: &mut ", stringify!($ty), "<'_>, sig: &[u8]) {")]
        ///     msg.data(tag::RAW_DATA_LENGTH, tag::RAW_DATA, sig);
        /// }
        /// ```
        pub fn data(&mut self, length_tag: u32, data_tag: u32, bytes: &[u8]) -> &mut Self {
            self.uint(length_tag, bytes.len() as u64)
                .str(data_tag, bytes)
        }
    };
}

/// The fields [`Application::to_admin`] adds to one admin message, kept by the
/// session between messages (cleared, never shrunk: after the first messages, adding
/// fields allocates nothing).
#[derive(Debug, Default)]
pub(crate) struct AddedFields {
    bytes: Vec<u8>,
    /// (tag, start, end) in `bytes`, in the order added.
    fields: Vec<(u32, usize, usize)>,
}

impl AddedFields {
    /// Asks the application for the fields of an admin message of `msg_type` numbered
    /// `seq`.
    pub(crate) fn collect(
        &mut self,
        app: &mut dyn Application,
        msg_type: &[u8],
        seq: u64,
        id: &SessionId,
    ) {
        self.clear();
        app.to_admin(
            &mut AdminMessage {
                msg_type,
                seq,
                fields: self,
            },
            id,
        );
    }

    /// No fields (a message written as it is).
    pub(crate) fn none() -> &'static AddedFields {
        static NONE: AddedFields = AddedFields {
            bytes: Vec::new(),
            fields: Vec::new(),
        };
        &NONE
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.fields.clear();
    }

    /// Whether nothing was added (or only fields the session owns, which it ignores).
    pub(crate) fn is_empty(&self) -> bool {
        self.fields.iter().all(|&(t, _, _)| session_owned(t))
    }

    fn get(&self, i: usize) -> (u32, &[u8]) {
        let (t, s, e) = self.fields[i];
        (t, &self.bytes[s..e])
    }

    /// The value added last for `t` (a tag added twice keeps its last value); `None`
    /// for a tag the session owns.
    pub(crate) fn value_of(&self, t: u32) -> Option<&[u8]> {
        if session_owned(t) {
            return None;
        }
        (0..self.fields.len())
            .rev()
            .map(|i| self.get(i))
            .find(|&(added, _)| added == t)
            .map(|(_, v)| v)
    }

    /// The fields added, each tag once with its last value, in the order added,
    /// except those the session owns and those `present` says the message has.
    pub(crate) fn absent(
        &self,
        present: impl Fn(u32) -> bool,
    ) -> impl Iterator<Item = (u32, &[u8])> {
        let last = |i: usize| !self.fields[i + 1..].iter().any(|f| f.0 == self.fields[i].0);
        (0..self.fields.len())
            .filter(move |&i| last(i))
            .map(|i| self.get(i))
            .filter(move |&(t, _)| !session_owned(t) && !present(t))
    }

    /// The header fields added (those the session writes itself left out).
    pub(crate) fn header(&self) -> impl Iterator<Item = (u32, &[u8])> {
        (0..self.fields.len())
            .map(|i| self.get(i))
            .filter(|&(t, _)| tag::is_standard_header(t) && !session_owned(t))
    }

    /// Writes the body fields added, in the order added.
    pub(crate) fn write_body(&self, m: &mut MessageEncoder<'_>) {
        for i in 0..self.fields.len() {
            let (t, v) = self.get(i);
            if !tag::is_standard_header(t) && !session_owned(t) {
                m.str(t, v);
            }
        }
    }

    fn push(&mut self, t: u32, value: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(value);
        self.fields.push((t, start, self.bytes.len()));
    }
}

/// An admin message the session is about to send, as [`Application::to_admin`] sees
/// it: its MsgType and MsgSeqNum, and a place to add fields (QuickFIX/J's `toAdmin`
/// with the message still to be written).
///
/// Header fields (SenderSubID(50), TargetSubID(57), SenderLocationID(142),
/// OnBehalfOfCompID(115), …) go into the header, in ascending tag order; the fields
/// the session writes in every header (8, 9, 35, 34, 49, 52, 56, 43, 122, 369) are its
/// own and are not replaced (nor is CheckSum(10)). Any other field is written after
/// the session's body fields, in the order added. The session's own body fields are
/// not replaced either: a tag it writes (HeartBtInt(108) in a Logon, Text(58) in a
/// Logout, …) added here would be sent twice — those come from
/// [`SessionConfig`](crate::SessionConfig) (e.g. `username`/`password` for 553/554
/// when they are fixed).
///
/// Values are copied into a buffer the session keeps between messages, so adding
/// fields allocates nothing once it has grown to what the application adds.
///
/// ```
/// use peregrine_codec::{msg_type, tag, MessageView};
/// use peregrine_session::{AdminMessage, AppReject, Application, Outbox, SessionId};
///
/// struct Venue { token: Vec<u8> }
/// impl Application for Venue {
///     fn to_admin(&mut self, msg: &mut AdminMessage<'_>, _id: &SessionId) {
///         msg.str(tag::TARGET_SUB_ID, b"GATEWAY"); // in the header of every admin message
///         if msg.msg_type() == msg_type::LOGON {
///             msg.data(tag::RAW_DATA_LENGTH, tag::RAW_DATA, &self.token)
///                 .bool(8013, true)
///                 .uint(tag::DEFAULT_APPL_VER_ID, 9);
///         }
///     }
///     fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> {
///         Ok(())
///     }
/// }
/// ```
pub struct AdminMessage<'a> {
    msg_type: &'a [u8],
    seq: u64,
    fields: &'a mut AddedFields,
}

impl fmt::Debug for AdminMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdminMessage")
            .field("msg_type", &String::from_utf8_lossy(self.msg_type))
            .field("seq", &self.seq)
            .field("added", &self.fields.fields.len())
            .finish()
    }
}

impl AdminMessage<'_> {
    /// MsgType(35), one of the administrative
    /// [`msg_type`](peregrine_codec::msg_type)s: `LOGON` (A), `HEARTBEAT` (0),
    /// `TEST_REQUEST` (1), `RESEND_REQUEST` (2), `REJECT` (3), `SEQUENCE_RESET` (4),
    /// `LOGOUT` (5).
    ///
    /// ```
    /// # use peregrine_session::AdminMessage;
    /// use peregrine_codec::msg_type;
    /// fn is_logon(msg: &AdminMessage<'_>) -> bool {
    ///     msg.msg_type() == msg_type::LOGON
    /// }
    /// ```
    pub fn msg_type(&self) -> &[u8] {
        self.msg_type
    }

    /// MsgSeqNum(34) the message will carry.
    ///
    /// ```
    /// # use peregrine_session::AdminMessage;
    /// fn first_of_the_day(msg: &AdminMessage<'_>) -> bool {
    ///     msg.seq_num() == 1
    /// }
    /// ```
    pub fn seq_num(&self) -> u64 {
        self.seq
    }

    field_setters!(AdminMessage);
}

/// An application message the session is about to send, as [`Application::to_app`]
/// sees it: encoded as it will go on the wire (header, PossDupFlag and
/// OrigSendingTime of a resend included), decoded only when asked
/// ([`view`](Self::view)), so an application that does not look costs nothing.
///
/// Fields set with [`str`](Self::str), [`uint`](Self::uint), … amend it: each
/// replaces its tag's value wherever the message has it (so not a tag of a repeating
/// group: build those where the message is built), or is added (header fields such as
/// OnBehalfOfCompID(115) or DeliverToCompID(128) at the end of the header, others at
/// the end of the body; a tag set twice keeps its last value). The fields the session
/// writes in every header (8, 9, 35, 34, 49, 52, 56, 43, 122, 369) and CheckSum(10)
/// are its own and are not changed. [`as_bytes`](Self::as_bytes) and
/// [`view`](Self::view) show the message before the amendment.
///
/// ```
/// use peregrine_codec::{msg_type, MessageView};
/// use peregrine_session::{AppReject, Application, DoNotSend, OutgoingMessage, Outbox, SessionId};
///
/// struct Audit { sent: Vec<(u64, Vec<u8>)> }
/// impl Application for Audit {
///     fn to_app(&mut self, msg: &mut OutgoingMessage<'_>, _id: &SessionId) -> Result<(), DoNotSend> {
///         if msg.msg_type() == msg_type::NEW_ORDER_SINGLE && !msg.is_resend() {
///             let cl_ord_id = msg.view().ok().and_then(|v| v.get(11)).unwrap_or(b"").to_vec();
///             self.sent.push((msg.seq_num(), cl_ord_id));
///         }
///         Ok(())
///     }
///     fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> {
///         Ok(())
///     }
/// }
/// ```
pub struct OutgoingMessage<'a> {
    raw: &'a [u8],
    msg_type: &'a [u8],
    seq: u64,
    resend: bool,
    decoder: &'a mut Decoder,
    fields: &'a mut AddedFields,
}

impl fmt::Debug for OutgoingMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutgoingMessage")
            .field("msg_type", &String::from_utf8_lossy(self.msg_type))
            .field("seq", &self.seq)
            .field("resend", &self.resend)
            .field("added", &self.fields.fields.len())
            .finish()
    }
}

impl<'a> OutgoingMessage<'a> {
    pub(crate) fn new(
        raw: &'a [u8],
        msg_type: &'a [u8],
        seq: u64,
        resend: bool,
        decoder: &'a mut Decoder,
        fields: &'a mut AddedFields,
    ) -> Self {
        fields.clear();
        OutgoingMessage {
            raw,
            msg_type,
            seq,
            resend,
            decoder,
            fields,
        }
    }

    /// MsgType(35).
    ///
    /// ```
    /// # use peregrine_session::OutgoingMessage;
    /// use peregrine_codec::msg_type;
    /// fn is_order(msg: &OutgoingMessage<'_>) -> bool {
    ///     msg.msg_type() == msg_type::NEW_ORDER_SINGLE
    /// }
    /// ```
    pub fn msg_type(&self) -> &[u8] {
        self.msg_type
    }

    /// MsgSeqNum(34).
    ///
    /// ```
    /// # use peregrine_session::OutgoingMessage;
    /// fn number(msg: &OutgoingMessage<'_>) -> u64 {
    ///     msg.seq_num()
    /// }
    /// ```
    pub fn seq_num(&self) -> u64 {
        self.seq
    }

    /// A resend (PossDupFlag(43)=Y) in answer to the peer's ResendRequest: vetoed,
    /// it is replaced by a SequenceReset-GapFill.
    ///
    /// ```
    /// # use peregrine_session::OutgoingMessage;
    /// fn stale(msg: &OutgoingMessage<'_>) -> bool {
    ///     msg.is_resend()
    /// }
    /// ```
    pub fn is_resend(&self) -> bool {
        self.resend
    }

    /// The message's bytes, as they will be written.
    ///
    /// ```
    /// # use peregrine_session::OutgoingMessage;
    /// fn size(msg: &OutgoingMessage<'_>) -> usize {
    ///     msg.as_bytes().len()
    /// }
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        self.raw
    }

    /// The message decoded (on each call: keep the view rather than call again).
    ///
    /// # Errors
    ///
    /// The decoder's, when the bytes the application wrote into the body do not make
    /// a well-formed message (e.g. a value holding SOH); the message is still sent
    /// unless vetoed.
    ///
    /// ```
    /// # use peregrine_session::OutgoingMessage;
    /// fn symbol_is(msg: &mut OutgoingMessage<'_>, symbol: &[u8]) -> bool {
    ///     msg.view().is_ok_and(|v| v.get(55) == Some(symbol))
    /// }
    /// ```
    pub fn view(&mut self) -> Result<MessageView<'_>, DecodeError> {
        self.decoder.decode(self.raw)
    }

    field_setters!(OutgoingMessage);
}

/// What the session gives an [`Outbox`]: the sending half of the session.
pub(crate) trait Sink {
    fn send_dyn(
        &mut self,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError>;
}

/// Lets the application send while handling a message ([`Application::from_app`]) or
/// a logon ([`Application::on_logon`]).
///
/// What it is given is kept, in order, and sent when the callback returns: each
/// message then passes through [`Application::to_app`] (which the callback cannot
/// be re-entered for), is stored with its MsgSeqNum and queued, before the session
/// handles anything else. The bodies are written once, into a reused buffer, and
/// copied once; nothing is allocated once the buffers have grown. At most
/// `max_outbound_bytes` are kept per callback ([`SendError::CallbackOutboxFull`]).
///
/// ```
/// use peregrine_codec::{msg_type, MessageView};
/// use peregrine_session::{AppReject, Application, Outbox, SessionId};
///
/// /// Acknowledges every order with an ExecutionReport.
/// struct Acker;
/// impl Application for Acker {
///     fn from_app(&mut self, msg: &MessageView, _id: &SessionId, out: &mut Outbox<'_>) -> Result<(), AppReject> {
///         if msg.msg_type() != msg_type::NEW_ORDER_SINGLE {
///             return Err(AppReject::UnsupportedMessageType);
///         }
///         let cl_ord_id = msg.get(11).unwrap_or(b"?");
///         out.send(b"8", |m| {
///             m.str(11, cl_ord_id).str(37, b"1").str(39, b"0").str(150, b"0");
///         })
///         .map(|_seq| ())
///         .map_err(|e| AppReject::business(0, e.to_string()))
///     }
/// }
/// ```
pub struct Outbox<'s> {
    sink: &'s mut dyn Sink,
    received_at: Nanos,
}

impl fmt::Debug for Outbox<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Outbox")
    }
}

impl<'s> Outbox<'s> {
    /// The most extra header fields [`Outbox::send_with_header`] takes (beside
    /// the standard header the session writes): the header is merged on the
    /// stack, without allocating.
    pub const MAX_HEADER_FIELDS: usize = 32;

    pub(crate) fn new(sink: &'s mut dyn Sink, received_at: Nanos) -> Self {
        Outbox { sink, received_at }
    }

    /// When the message being handled arrived: the `now` of the
    /// [`Session::on_bytes`] call that completed it (the session's time, which
    /// never goes back). An engine reads its clock as each read from the socket
    /// returns, so this is the receive time a latency measurement wants without
    /// a hook into the I/O (what Artio hands `onMessage` as `timestampInNs`). A
    /// message held for a gap is handled, and stamped, when the gap is filled.
    /// In [`Application::on_logon`], when the Logon that completed the logon
    /// arrived.
    ///
    /// ```
    /// use peregrine_codec::MessageView;
    /// use peregrine_session::{AppReject, Application, Nanos, Outbox, SessionId};
    ///
    /// /// Keeps how long each order waited between the read and the application.
    /// #[derive(Default)]
    /// struct Timed { waits: Vec<Nanos> }
    /// impl Application for Timed {
    ///     fn from_app(&mut self, _m: &MessageView, _id: &SessionId, out: &mut Outbox<'_>) -> Result<(), AppReject> {
    ///         self.waits.push(peregrine_session::system_now() - out.received_at());
    ///         Ok(())
    ///     }
    /// }
    /// ```
    pub fn received_at(&self) -> Nanos {
        self.received_at
    }

    /// Builds and sends one message: the session writes the standard header (8, 9, 35,
    /// then 34, 49, 52, 56, … in ascending tag order), the closure writes the body.
    /// Returns the MsgSeqNum it is to carry: the next one after those this callback
    /// sent before (one lower for each of them [`Application::to_app`] vetoes).
    ///
    /// # Errors
    ///
    /// [`SendError::CallbackOutboxFull`] past the bound above. A store that refuses
    /// the message when it is sent, after the callback, is a store failure of the
    /// session ([`SessionEvent::StoreFailed`](crate::SessionEvent::StoreFailed)), as
    /// for the admin messages it sends.
    ///
    /// ```
    /// # use peregrine_session::{Outbox, SendError};
    /// fn heartbeat_like(out: &mut Outbox<'_>) -> Result<u64, SendError> {
    ///     out.send(b"B", |m| {
    ///         m.str(148, b"Market opens at 09:30");
    ///     })
    /// }
    /// ```
    pub fn send(
        &mut self,
        msg_type: &[u8],
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        self.send_with_header(msg_type, &[], body)
    }

    /// Like [`Outbox::send`], with extra header fields (e.g. PossResend(97), or
    /// routing fields) merged into the header in ascending tag order; of several
    /// with one tag the last is sent.
    ///
    /// # Errors
    ///
    /// As [`Outbox::send`]; [`SendError::TooManyHeaderFields`] for more than
    /// [`Outbox::MAX_HEADER_FIELDS`] extra fields, and
    /// [`SendError::SessionHeaderField`] for a field the session writes itself
    /// (MsgSeqNum, SendingTime, the CompIDs, …). Nothing is sent then.
    ///
    /// ```
    /// # use peregrine_session::{Outbox, SendError};
    /// use peregrine_codec::tag;
    /// fn routed(out: &mut Outbox<'_>) -> Result<u64, SendError> {
    ///     out.send_with_header(b"8", &[(tag::DELIVER_TO_COMP_ID, b"DESK2")], |m| {
    ///         m.str(11, b"ORD-1").str(39, b"0");
    ///     })
    /// }
    /// ```
    pub fn send_with_header(
        &mut self,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        let mut body = Some(body);
        self.sink.send_dyn(msg_type, header, &mut |enc| {
            if let Some(f) = body.take() {
                f(enc)
            }
        })
    }

    /// Sends a typed message: `M` (a generated message of `peregrine_messages`, e.g.
    /// `fix44::ExecutionReport`) gives the MsgType, `body` writes the fields after the
    /// standard header through `M`'s setters, straight into the session's encoder (no
    /// copy, no allocation). Returns the MsgSeqNum used.
    ///
    /// A body that is already encoded (a gateway forwarding what it received) goes
    /// through [`Outbox::send`] with [`MessageEncoder::raw`].
    ///
    /// # Errors
    ///
    /// As [`Outbox::send`].
    ///
    /// ```
    /// use peregrine_codec::MessageView;
    /// use peregrine_messages::fix44::{self, enums::{ExecType, OrdStatus}, MessageHandler};
    /// use peregrine_session::{AppReject, Application, Outbox, SessionId};
    ///
    /// /// Acknowledges every order with a typed ExecutionReport.
    /// struct Venue;
    ///
    /// impl MessageHandler<Outbox<'_>> for Venue {
    ///     type Error = AppReject;
    ///     fn on_new_order_single(&mut self, order: fix44::NewOrderSingle<'_>, out: &mut Outbox<'_>) -> Result<(), AppReject> {
    ///         let cl_ord_id = order.cl_ord_id().and_then(Result::ok).unwrap_or("?");
    ///         out.send_typed::<fix44::ExecutionReport>(|er| {
    ///             er.order_id(cl_ord_id)
    ///                 .exec_id(cl_ord_id)
    ///                 .cl_ord_id(cl_ord_id)
    ///                 .exec_type(ExecType::New)
    ///                 .ord_status(OrdStatus::New);
    ///         })
    ///         .map_err(|e| AppReject::business(0, e.to_string()))?;
    ///         Ok(())
    ///     }
    /// }
    ///
    /// impl Application for Venue {
    ///     fn from_app(&mut self, msg: &MessageView<'_>, _id: &SessionId, out: &mut Outbox<'_>) -> Result<(), AppReject> {
    ///         // Anything but NewOrderSingle: BusinessMessageReject, UnsupportedMessageType.
    ///         fix44::crack(self, msg, out)
    ///     }
    /// }
    /// ```
    pub fn send_typed<M: Message>(
        &mut self,
        body: impl FnOnce(&mut Body<'_, '_, M>),
    ) -> Result<u64, SendError> {
        self.send(M::MSG_TYPE, |enc| body(&mut Body::new(enc)))
    }
}

//! The application side: callbacks, and sending from inside them.

mod errors;
mod fields;
mod outbox;
mod outgoing;
mod reject;
mod shared;

use peregrine_codec::MessageView;

pub use errors::{DoNotSend, SendError};
pub(crate) use fields::{session_owned, AddedFields};
pub use outbox::Outbox;
pub(crate) use outbox::{check_extra_header, Sink};
pub use outgoing::{AdminMessage, OutgoingMessage};
pub use reject::{AppReject, RefId, RejectLogon};
pub use shared::SharedApp;

use crate::config::SessionId;
use crate::session::{AppEvent, LogoutReason};

// For the documentation's links only.
#[cfg(doc)]
use crate::Session;

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
/// | [`on_logout`](Self::on_logout) | a logged-on session's connection is gone, with why; may send |
/// | [`to_admin`](Self::to_admin) | before each admin message the session sends is encoded; may add fields |
/// | [`from_admin`](Self::from_admin) | each admin message received, in sequence; may refuse a Logon; may send |
/// | [`to_app`](Self::to_app) | each application message the session writes (new, resent, or a BusinessMessageReject); may veto it |
/// | [`from_app`](Self::from_app) | each application message received, in sequence and validated; may send, may reject |
/// | [`on_event`](Self::on_event) | connection and session events (connected, disconnected, rejects, gaps, resends, sequence resets, logouts), in order; may send |
///
/// Every callback that is told something (`on_*`, `from_*`) is given an [`Outbox`]:
/// it may send on its own session and on any other session of the engine
/// ([`Outbox::send_to`]). The two that are asked something about a message being
/// sent (`to_admin`, `to_app`) amend or veto that message instead.
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
///     fn on_logout(&mut self, _id: &SessionId, reason: &LogoutReason<'_>, _out: &mut Outbox<'_>) {
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
///     fn on_event(&mut self, _id: &SessionId, event: &AppEvent<'_>, _out: &mut Outbox<'_>) {
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
    /// `out` sends as in any callback: on other sessions of the engine (a
    /// gateway telling its clients that the venue is gone), and on this one
    /// as a send while not logged on: kept for after its next Logon
    /// (`QueueWhileLoggedOut=Y`), or refused ([`SendError::NotLoggedOn`]).
    ///
    /// ```
    /// # use peregrine_codec::MessageView;
    /// # use peregrine_session::{AppReject, Application, Outbox, SessionId};
    /// use peregrine_session::LogoutReason;
    /// struct App { last: Option<String> }
    /// impl Application for App {
    ///     fn on_logout(&mut self, _id: &SessionId, reason: &LogoutReason<'_>, _out: &mut Outbox<'_>) {
    ///         if let LogoutReason::Remote { text: Some(t) } = reason {
    ///             self.last = Some(String::from_utf8_lossy(t).into_owned());
    ///         }
    ///     }
    ///     # fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> { Ok(()) }
    /// }
    /// ```
    fn on_logout(&mut self, _id: &SessionId, _reason: &LogoutReason<'_>, _out: &mut Outbox<'_>) {}

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
    /// `out` sends on other sessions of the engine, committed with this message's
    /// sequence number, and on this one at the end of the call that delivered the
    /// message: through [`to_app`](Self::to_app) when the session is logged on
    /// (after the Logon, when this is the Logon), stored for after the Logon
    /// otherwise, as [`Session::send`] decides.
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
    ///     fn from_admin(&mut self, msg: &MessageView<'_>, _id: &SessionId, _out: &mut Outbox<'_>) -> Result<(), RejectLogon> {
    ///         if msg.msg_type() == msg_type::LOGON && msg.get(tag::PASSWORD) != Some(b"secret") {
    ///             return Err(RejectLogon::new("Invalid password"));
    ///         }
    ///         Ok(())
    ///     }
    ///     # fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> { Ok(()) }
    /// }
    /// ```
    fn from_admin(
        &mut self,
        _msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), RejectLogon> {
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
    /// `out` sends on other sessions of the engine (they receive it in the same
    /// turn, and with an engine journal it commits in the same transaction as what
    /// raised the event), and on this session at the end of the call that raised the
    /// event, never in the middle of the session's own work (a resend, a logout):
    /// through [`to_app`](Self::to_app) if it is then logged on, stored for after
    /// its next Logon otherwise, as [`Session::send`] decides. A session that keeps
    /// nothing while not logged on refuses it at once ([`SendError::NotLoggedOn`]).
    ///
    /// ```
    /// # use peregrine_codec::MessageView;
    /// # use peregrine_session::{AppReject, Application, Outbox, SessionId};
    /// use peregrine_session::AppEvent;
    /// struct App { gaps: u64 }
    /// impl Application for App {
    ///     fn on_event(&mut self, id: &SessionId, event: &AppEvent<'_>, _out: &mut Outbox<'_>) {
    ///         if let AppEvent::GapDetected { expected, received } = event {
    ///             self.gaps += received - expected;
    ///         }
    ///         eprintln!("{id}: {event}");
    ///     }
    ///     # fn from_app(&mut self, _: &MessageView, _: &SessionId, _: &mut Outbox<'_>) -> Result<(), AppReject> { Ok(()) }
    /// }
    /// ```
    fn on_event(&mut self, _id: &SessionId, _event: &AppEvent<'_>, _out: &mut Outbox<'_>) {}
}

//! The [`Outbox`]: sending from inside the application's callbacks.

use std::fmt;

use peregrine_codec::MessageEncoder;
use peregrine_messages::{Body, Message};
use peregrine_store::StoreError;

use super::SendError;
use crate::config::{Nanos, SessionId};
use crate::peers::{PeerStatus, SessionRef, To};

// For the documentation's links only.
#[cfg(doc)]
use super::Application;
#[cfg(doc)]
use crate::Session;

/// What the session gives an [`Outbox`]: the sending half of the session.
pub(crate) trait Sink {
    fn send_dyn(
        &mut self,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError>;

    /// Keeps a message for another session of the engine.
    fn send_to_dyn(
        &mut self,
        to: &To<'_>,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Result<SessionRef, SendError>;

    /// What the engine says of another of its sessions.
    fn peer(&self, to: &To<'_>) -> Option<PeerStatus>;

    /// Another session's stored messages, through the engine.
    fn read_stored(
        &self,
        to: &To<'_>,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Option<Result<(), StoreError>>;
}

/// The checks every message's extra header fields pass, whoever sends it (a
/// callback's outbox, or [`Session::send_with_header`]): at most
/// [`Outbox::MAX_HEADER_FIELDS`], none the session writes itself.
pub(crate) fn check_extra_header(header: &[(u32, &[u8])]) -> Result<(), SendError> {
    const MAX: usize = Outbox::MAX_HEADER_FIELDS;
    if header.len() > MAX {
        return Err(SendError::TooManyHeaderFields {
            given: header.len(),
            max: MAX,
        });
    }
    if let Some(&(tag, _)) = header.iter().find(|&&(t, _)| super::session_owned(t)) {
        return Err(SendError::SessionHeaderField { tag });
    }
    Ok(())
}

/// Lets the application send from inside every callback that is told something:
/// [`Application::from_app`], [`Application::on_logon`],
/// [`Application::from_admin`], [`Application::on_event`] and
/// [`Application::on_logout`]; on its own session, and on any other session of the
/// engine ([`Outbox::send_to`]).
///
/// What it is given is kept, in order. In `from_app` and `on_logon` it is sent when
/// the callback returns: each message then passes through [`Application::to_app`]
/// (which the callback cannot be re-entered for), is stored with its MsgSeqNum and
/// queued, before the session handles anything else. The others may run in the
/// middle of the session's own work (a resend, a Logon, a disconnect): what they
/// send on their own session goes at the end of that call into the session, as
/// [`Session::send`] would send it then (logged on: through `to_app`; otherwise
/// stored for after the next Logon, or refused at once when the session keeps
/// nothing while not logged on). Its number is the one it would carry if nothing
/// came between. The bodies are written once, into a reused buffer, and
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
    id: &'s SessionId,
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

    pub(crate) fn new(sink: &'s mut dyn Sink, received_at: Nanos, id: &'s SessionId) -> Self {
        Outbox {
            sink,
            received_at,
            id,
        }
    }

    /// The session whose callback this is: what a handler given only the
    /// outbox (a typed [`MessageHandler`](peregrine_messages::fix44::MessageHandler)
    /// of `Outbox`) needs to tell one session from another.
    ///
    /// ```
    /// use peregrine_codec::MessageView;
    /// use peregrine_messages::fix44::{self, MessageHandler};
    /// use peregrine_messages::FieldResult;
    /// use peregrine_session::{AppReject, Application, Outbox, SessionId};
    ///
    /// /// One handler for every session: it knows each order's session.
    /// #[derive(Default)]
    /// struct Desk { orders: Vec<(String, String)> }
    /// impl MessageHandler<Outbox<'_>> for Desk {
    ///     type Error = AppReject;
    ///     fn on_new_order_single(&mut self, o: fix44::NewOrderSingle<'_>, out: &mut Outbox<'_>) -> Result<(), AppReject> {
    ///         let id = o.cl_ord_id().value().unwrap_or("?");
    ///         self.orders.push((out.session_id().target_comp_id.clone(), id.to_string()));
    ///         Ok(())
    ///     }
    /// }
    /// impl Application for Desk {
    ///     fn from_app(&mut self, msg: &MessageView<'_>, _: &SessionId, out: &mut Outbox<'_>) -> Result<(), AppReject> {
    ///         fix44::crack(self, msg, out)
    ///     }
    /// }
    /// ```
    pub fn session_id(&self) -> &SessionId {
        self.id
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
    /// use peregrine_messages::fix44::{self, enums::{ExecType, OrdStatus}, tags, MessageHandler};
    /// use peregrine_messages::FieldResult;
    /// use peregrine_session::{AppReject, Application, Outbox, SessionId};
    ///
    /// /// Acknowledges every order with a typed ExecutionReport.
    /// struct Venue;
    ///
    /// impl MessageHandler<Outbox<'_>> for Venue {
    ///     type Error = AppReject;
    ///     fn on_new_order_single(&mut self, order: fix44::NewOrderSingle<'_>, out: &mut Outbox<'_>) -> Result<(), AppReject> {
    ///         let cl_ord_id = order.cl_ord_id().required(tags::CL_ORD_ID)?;
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

    /// Sends one message on **another session of the engine** (a gateway's
    /// forward), named by [`SessionId`](crate::SessionId) or
    /// [`SessionRef`]: the engine hands it to that session as soon as this
    /// callback's session has handled its input, in the same turn, through
    /// that session's [`Application::to_app`]; with an engine journal it is
    /// committed in one transaction with the message being handled (see
    /// `peregrine_store::EngineJournal`). A destination that is not logged on
    /// takes it as any send while not logged on: stored and resent after its
    /// Logon (`QueueWhileLoggedOut=Y`, the default), or refused here. Returns
    /// the destination's reference.
    ///
    /// # Errors
    ///
    /// [`SendError::NoSuchSession`] when the engine has no such session
    /// (a session alone has no others); [`SendError::NotLoggedOn`] when it
    /// is not logged on and refuses to queue; otherwise as
    /// [`send_with_header`](Self::send_with_header). A veto of the
    /// destination's `to_app`, or its store failing, is that session's
    /// (counted in its `send_failures`, as for a [`Sender`]'s message).
    ///
    /// [`Sender`]: https://docs.rs/peregrine-engine
    ///
    /// ```
    /// use peregrine_codec::{msg_type, MessageView};
    /// use peregrine_session::{AppReject, Application, Outbox, SessionId};
    ///
    /// /// Forwards every order to the venue session.
    /// struct Router { venue: SessionId }
    /// impl Application for Router {
    ///     fn from_app(&mut self, msg: &MessageView, _id: &SessionId, out: &mut Outbox<'_>) -> Result<(), AppReject> {
    ///         if msg.msg_type() != msg_type::NEW_ORDER_SINGLE {
    ///             return Err(AppReject::UnsupportedMessageType);
    ///         }
    ///         out.send_to(&self.venue, b"D", |m| {
    ///             for tag in [11, 21, 38, 40, 54, 55, 60] {
    ///                 if let Some(v) = msg.get(tag) {
    ///                     m.str(tag, v);
    ///                 }
    ///             }
    ///         })
    ///         .map(|_| ())
    ///         .map_err(|e| AppReject::business(0, e.to_string()))
    ///     }
    /// }
    /// ```
    pub fn send_to<'t>(
        &mut self,
        to: impl Into<To<'t>>,
        msg_type: &[u8],
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> Result<SessionRef, SendError> {
        self.send_to_with_header(to, msg_type, &[], body)
    }

    /// [`send_to`](Self::send_to) with extra header fields, as
    /// [`send_with_header`](Self::send_with_header).
    ///
    /// # Errors
    ///
    /// As [`send_to`](Self::send_to) and [`send_with_header`](Self::send_with_header).
    pub fn send_to_with_header<'t>(
        &mut self,
        to: impl Into<To<'t>>,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: impl FnOnce(&mut MessageEncoder<'_>),
    ) -> Result<SessionRef, SendError> {
        let mut body = Some(body);
        self.sink
            .send_to_dyn(&to.into(), msg_type, header, &mut |enc| {
                if let Some(f) = body.take() {
                    f(enc)
                }
            })
    }

    /// [`send_to`](Self::send_to) a typed message (as [`send_typed`](Self::send_typed)).
    ///
    /// # Errors
    ///
    /// As [`send_to`](Self::send_to).
    pub fn send_typed_to<'t, M: Message>(
        &mut self,
        to: impl Into<To<'t>>,
        body: impl FnOnce(&mut Body<'_, '_, M>),
    ) -> Result<SessionRef, SendError> {
        self.send_to(to, M::MSG_TYPE, |enc| body(&mut Body::new(enc)))
    }

    /// What the engine says of another of its sessions (`None`: no such
    /// session, or a session alone): whether it is logged on, its sequence
    /// numbers, its reference.
    ///
    /// ```
    /// use peregrine_session::{Outbox, SessionId};
    /// fn venue_up(out: &Outbox<'_>, venue: &SessionId) -> bool {
    ///     out.peer(venue).is_some_and(|p| p.logged_on)
    /// }
    /// ```
    pub fn peer<'t>(&self, to: impl Into<To<'t>>) -> Option<PeerStatus> {
        self.sink.peer(&to.into())
    }

    /// Reads the messages a session of the engine has stored from `begin` to
    /// `end` (inclusive; `peregrine_store::SEQ_END` for all after `begin`),
    /// in order, as they would be resent: QuickFIX/J's
    /// `Session.lookupSession(id).getStore().get(begin, end, list)`. This
    /// session's own too, up to its last commit (what this callback sends is
    /// stored after it returns). `None` when the engine has no such session
    /// (or the session is alone, without an engine). The store is locked
    /// while `visitor` runs: do not read the same session's messages again
    /// from inside it (that waits for itself).
    ///
    /// ```
    /// use peregrine_session::{Outbox, SessionId};
    /// /// The venue's last ten messages, for an operator's screen.
    /// fn last_ten(out: &Outbox<'_>, venue: &SessionId) -> Vec<(u64, Vec<u8>)> {
    ///     let next = out.peer(venue).map_or(1, |p| p.next_sender_seq);
    ///     let mut seen = Vec::new();
    ///     let _ = out.peer_messages(venue, next.saturating_sub(10).max(1), next, &mut |seq, m| {
    ///         seen.push((seq, m.to_vec()))
    ///     });
    ///     seen
    /// }
    /// ```
    pub fn peer_messages<'t>(
        &self,
        to: impl Into<To<'t>>,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Option<Result<(), StoreError>> {
        self.sink.read_stored(&to.into(), begin, end, visitor)
    }
}

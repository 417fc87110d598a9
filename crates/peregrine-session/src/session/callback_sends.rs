//! Messages the application sends from inside a callback (`on_logon`,
//! `from_app`, through its [`Outbox`]): kept until the callback returns, then
//! sent through [`Application::to_app`] like every other application message.
//!
//! The application is borrowed by its own callback, so `to_app` cannot be called
//! while the callback runs; QuickFIX/J calls `toApp` inside `send`, on the same
//! thread. Sending when the callback returns keeps what QuickFIX/J users rely on
//! (each new application message is seen, may be amended or vetoed, and a veto
//! does not use a sequence number) at the cost of one copy of the body. Nothing is
//! allocated once the buffers have grown to the largest callback's messages.

use std::ops::Range;
use std::sync::Arc;

use peregrine_codec::{EncodeBuffer, MessageEncoder};
use peregrine_store::MessageStore;

use crate::app::{check_extra_header, Application, Outbox, SendError, Sink};
use crate::peers::{PeerStatus, Peers, SessionRef, To};

use super::core::{Core, State};
use super::events::{AppEvent, SendRefusal};
use super::outgoing::HeaderValue;
use crate::config::{Nanos, SessionId};

/// One message kept: where its parts are in [`Kept::bytes`].
#[derive(Clone, Debug)]
struct KeptMessage {
    msg_type: Range<usize>,
    /// Indices into [`Kept::header`].
    header: Range<usize>,
    body: Range<usize>,
}

/// A kept message's MsgType, extra header fields and body.
type Parts<'k, 'e> = (&'k [u8], &'e [(u32, &'k [u8])], &'k [u8]);

/// The messages of one callback, in the order sent.
#[derive(Debug, Default)]
pub(super) struct Kept {
    bytes: Vec<u8>,
    /// Extra header fields: tag and value's place in `bytes`.
    header: Vec<(u32, Range<usize>)>,
    messages: Vec<KeptMessage>,
}

impl Kept {
    fn clear(&mut self) {
        self.bytes.clear();
        self.header.clear();
        self.messages.clear();
    }

    /// Keeps one message's parts.
    fn keep(&mut self, msg_type: &[u8], header: &[(u32, &[u8])], fields: &[u8]) {
        let at = self.bytes.len();
        self.bytes.extend_from_slice(msg_type);
        let msg_type = at..self.bytes.len();
        let first = self.header.len();
        for &(tag, value) in header {
            let at = self.bytes.len();
            self.bytes.extend_from_slice(value);
            self.header.push((tag, at..self.bytes.len()));
        }
        let at = self.bytes.len();
        self.bytes.extend_from_slice(fields);
        self.messages.push(KeptMessage {
            msg_type,
            header: first..self.header.len(),
            body: at..self.bytes.len(),
        });
    }

    /// Message `m`'s type, extra header (into `extra`) and body.
    fn parts<'k, 'e>(
        &'k self,
        m: &KeptMessage,
        extra: &'e mut [(u32, &'k [u8]); Outbox::MAX_HEADER_FIELDS],
    ) -> Parts<'k, 'e> {
        for (slot, (tag, value)) in extra.iter_mut().zip(&self.header[m.header.clone()]) {
            *slot = (*tag, &self.bytes[value.clone()]);
        }
        (
            &self.bytes[m.msg_type.clone()],
            &extra[..m.header.len()],
            &self.bytes[m.body.clone()],
        )
    }
}

/// A message a callback sent on another session of the engine
/// ([`Outbox::send_to`]), for the engine to hand over
/// ([`Session::take_forwards`](crate::Session::take_forwards)).
#[derive(Debug)]
pub struct Forward<'a> {
    /// The destination.
    pub to: SessionRef,
    /// Its MsgType.
    pub msg_type: &'a [u8],
    /// Extra header fields.
    pub header: &'a [(u32, &'a [u8])],
    /// The encoded fields after the header.
    pub body: &'a [u8],
}

/// The [`Sink`] behind a callback's [`Outbox`]: encodes each body once into a
/// scratch encoder and keeps its bytes.
#[derive(Debug)]
pub(super) struct CallbackSends {
    scratch: EncodeBuffer,
    kept: Kept,
    /// Messages for other sessions, until the engine takes them.
    forwards: Kept,
    /// Their destinations, one per message of `forwards`.
    forward_to: Vec<SessionRef>,
    /// The engine's other sessions (`None`: a session alone).
    pub(super) peers: Option<Arc<dyn Peers>>,
    /// The MsgSeqNum the next kept message is to carry.
    next_seq: u64,
    /// The running callback may send on its own session: it is logged on,
    /// or keeps what is sent while not logged on for after its Logon.
    own_ok: bool,
    /// The most bytes kept at once (`max_outbound_bytes`: what the outbound
    /// buffer would have held).
    bound: usize,
}

impl CallbackSends {
    pub(super) fn new(bound: usize) -> Self {
        CallbackSends {
            scratch: EncodeBuffer::new(),
            kept: Kept::default(),
            forwards: Kept::default(),
            forward_to: Vec::new(),
            peers: None,
            next_seq: 1,
            own_ok: true,
            bound,
        }
    }

    /// The outbox of callback of session `id` about to run; `next_seq` is the
    /// session's next outgoing MsgSeqNum (messages still kept from an earlier
    /// callback come before), `now` the session's time (the message's
    /// arrival); `own_ok` whether it may send on its own session now.
    pub(super) fn outbox<'s>(
        &'s mut self,
        next_seq: u64,
        now: Nanos,
        id: &'s SessionId,
        own_ok: bool,
    ) -> Outbox<'s> {
        self.next_seq = next_seq + self.kept.messages.len() as u64;
        self.own_ok = own_ok;
        Outbox::new(self, now, id)
    }

    /// Whether messages for the session itself wait to be sent.
    pub(super) fn has_kept(&self) -> bool {
        !self.kept.messages.is_empty()
    }

    /// Whether messages for other sessions wait for the engine.
    pub(super) fn has_forwards(&self) -> bool {
        !self.forward_to.is_empty()
    }

    /// Hands each message for another session to `f`, in the order sent, and
    /// forgets them.
    pub(super) fn take_forwards(&mut self, f: &mut dyn FnMut(Forward<'_>)) {
        let forwards = std::mem::take(&mut self.forwards);
        for (m, &to) in forwards.messages.iter().zip(&self.forward_to) {
            let mut extra = [(0, &[][..]); Outbox::MAX_HEADER_FIELDS];
            let (msg_type, header, body) = forwards.parts(m, &mut extra);
            f(Forward {
                to,
                msg_type,
                header,
                body,
            });
        }
        let mut forwards = forwards;
        forwards.clear();
        self.forwards = forwards;
        self.forward_to.clear();
    }
}

impl Sink for CallbackSends {
    fn send_dyn(
        &mut self,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        check_extra_header(header)?;
        if !self.own_ok {
            return Err(SendError::NotLoggedOn);
        }
        let mut enc = self.scratch.start(b"", msg_type);
        body(&mut enc);
        let fields = enc.fields();
        let size = msg_type.len() + header.iter().map(|(_, v)| v.len()).sum::<usize>();
        if self.kept.bytes.len() + self.forwards.bytes.len() + size + fields.len() > self.bound {
            return Err(SendError::CallbackOutboxFull { bound: self.bound });
        }
        self.kept.keep(msg_type, header, fields);
        let seq = self.next_seq;
        self.next_seq += 1;
        Ok(seq)
    }

    fn send_to_dyn(
        &mut self,
        to: &To<'_>,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Result<SessionRef, SendError> {
        check_extra_header(header)?;
        let Some(peer) = self.peer(to) else {
            return Err(SendError::NoSuchSession { to: to.to_string() });
        };
        if !peer.logged_on && !peer.queue_while_logged_out {
            return Err(SendError::NotLoggedOn);
        }
        let mut enc = self.scratch.start(b"", msg_type);
        body(&mut enc);
        let fields = enc.fields();
        let size = msg_type.len() + header.iter().map(|(_, v)| v.len()).sum::<usize>();
        if self.kept.bytes.len() + self.forwards.bytes.len() + size + fields.len() > self.bound {
            return Err(SendError::CallbackOutboxFull { bound: self.bound });
        }
        self.forwards.keep(msg_type, header, fields);
        self.forward_to.push(peer.reference);
        Ok(peer.reference)
    }

    fn peer(&self, to: &To<'_>) -> Option<PeerStatus> {
        self.peers.as_ref()?.find(to)
    }

    fn read_stored(
        &self,
        to: &To<'_>,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Option<Result<(), peregrine_store::StoreError>> {
        self.peers.as_ref()?.read_stored(to, begin, end, visitor)
    }
}

impl<S: MessageStore> Core<S> {
    /// Sends what the callback that just returned kept, in order, each through
    /// [`Application::to_app`]. A store that refuses one is a store failure
    /// (events to the engine and the application): the callback has returned,
    /// there is no caller to tell.
    pub(super) fn send_kept(&mut self, app: &mut dyn Application) {
        if self.callback_sends.kept.messages.is_empty() {
            return;
        }
        let kept = std::mem::take(&mut self.callback_sends.kept);
        for m in &kept.messages {
            let mut raw = [(0, &[][..]); Outbox::MAX_HEADER_FIELDS];
            let (msg_type, header, body) = kept.parts(m, &mut raw);
            let mut extra = [(0, HeaderValue::Uint(0)); Outbox::MAX_HEADER_FIELDS];
            for (slot, &(tag, value)) in extra.iter_mut().zip(header) {
                *slot = (tag, HeaderValue::Bytes(value));
            }
            let sent = self.send_app(
                msg_type,
                &extra[..header.len()],
                &mut |enc| {
                    enc.raw(body);
                },
                app,
            );
            if matches!(sent, Err(SendError::Store(_))) {
                self.store_failed();
            }
        }
        let mut kept = kept;
        kept.clear();
        self.callback_sends.kept = kept;
    }

    /// Whether a callback may send on this session now: logged on, or it
    /// keeps what is sent while not logged on for after its next Logon (as
    /// [`Session::send`](crate::Session::send) decides).
    pub(super) fn own_sends_ok(&self) -> bool {
        matches!(self.state, State::LoggedOn(_))
            || (self.config.queue_while_logged_out && self.kept_for_resend())
    }

    /// The end of a call into the session: what callbacks outside the
    /// logged-on flow ([`Application::on_event`], [`Application::from_admin`],
    /// [`Application::on_logout`]) sent on the session itself goes now, as
    /// [`Session::send`](crate::Session::send) would send it: through
    /// `to_app` when logged on; stored for after the next Logon otherwise. A
    /// reset the session made since the callback discards them, as it
    /// discards every message sent before it.
    pub(super) fn send_deferred(&mut self, app: &mut dyn Application) {
        if !self.callback_sends.has_kept() {
            return;
        }
        if matches!(self.state, State::LoggedOn(_)) {
            self.send_kept(app);
            return;
        }
        let kept = std::mem::take(&mut self.callback_sends.kept);
        if self.config.queue_while_logged_out && self.kept_for_resend() {
            for m in &kept.messages {
                let mut raw = [(0, &[][..]); Outbox::MAX_HEADER_FIELDS];
                let (msg_type, header, body) = kept.parts(m, &mut raw);
                let mut extra = [(0, HeaderValue::Uint(0)); Outbox::MAX_HEADER_FIELDS];
                for (slot, &(tag, value)) in extra.iter_mut().zip(header) {
                    *slot = (tag, HeaderValue::Bytes(value));
                }
                let stored =
                    self.outgoing
                        .store_only(msg_type, &extra[..header.len()], &mut |enc| {
                            enc.raw(body);
                        });
                if stored.is_err() {
                    self.store_failed();
                }
            }
        } else {
            // The call logged the session out and it keeps nothing for the
            // next Logon: the application, told it was taken, hears it was not.
            for m in &kept.messages {
                let mut raw = [(0, &[][..]); Outbox::MAX_HEADER_FIELDS];
                let (msg_type, _, _) = kept.parts(m, &mut raw);
                let refused = AppEvent::CallbackSendRefused {
                    to: None,
                    msg_type,
                    reason: SendRefusal::NotLoggedOn,
                };
                self.notify(app, &refused);
            }
        }
        let mut kept = kept;
        kept.clear();
        self.callback_sends.kept = kept;
    }

    /// What every call into the session ends with: the events not yet
    /// delivered, then what callbacks kept for later ([`Core::send_deferred`])
    /// and the events that raised.
    pub(super) fn finish(&mut self, app: &mut dyn Application) {
        self.flush_events(app);
        self.send_deferred(app);
        self.flush_events(app);
    }
}

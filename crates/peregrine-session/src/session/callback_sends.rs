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

use peregrine_codec::{EncodeBuffer, MessageEncoder};
use peregrine_store::MessageStore;

use crate::app::{session_owned, Application, Outbox, SendError, Sink};

use super::core::Core;
use super::outgoing::HeaderValue;
use crate::config::Nanos;

/// One message kept: where its parts are in [`Kept::bytes`].
#[derive(Clone, Debug)]
struct KeptMessage {
    msg_type: Range<usize>,
    /// Indices into [`Kept::header`].
    header: Range<usize>,
    body: Range<usize>,
}

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
}

/// The [`Sink`] behind a callback's [`Outbox`]: encodes each body once into a
/// scratch encoder and keeps its bytes.
#[derive(Debug)]
pub(super) struct CallbackSends {
    scratch: EncodeBuffer,
    kept: Kept,
    /// The MsgSeqNum the next kept message is to carry.
    next_seq: u64,
    /// The most bytes kept at once (`max_outbound_bytes`: what the outbound
    /// buffer would have held).
    bound: usize,
}

impl CallbackSends {
    pub(super) fn new(bound: usize) -> Self {
        CallbackSends {
            scratch: EncodeBuffer::new(),
            kept: Kept::default(),
            next_seq: 1,
            bound,
        }
    }

    /// The outbox of a callback about to run; `next_seq` is the session's next
    /// outgoing MsgSeqNum, `now` the session's time (the message's arrival).
    pub(super) fn outbox(&mut self, next_seq: u64, now: Nanos) -> Outbox<'_> {
        self.next_seq = next_seq;
        Outbox::new(self, now)
    }
}

impl Sink for CallbackSends {
    fn send_dyn(
        &mut self,
        msg_type: &[u8],
        header: &[(u32, &[u8])],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
    ) -> Result<u64, SendError> {
        const MAX: usize = Outbox::MAX_HEADER_FIELDS;
        if header.len() > MAX {
            return Err(SendError::TooManyHeaderFields {
                given: header.len(),
                max: MAX,
            });
        }
        if let Some(&(tag, _)) = header.iter().find(|&&(t, _)| session_owned(t)) {
            return Err(SendError::SessionHeaderField { tag });
        }
        let mut enc = self.scratch.start(b"", msg_type);
        body(&mut enc);
        let fields = enc.fields();
        let k = &mut self.kept;
        let size = msg_type.len() + header.iter().map(|(_, v)| v.len()).sum::<usize>();
        if k.bytes.len() + size + fields.len() > self.bound {
            return Err(SendError::CallbackOutboxFull { bound: self.bound });
        }
        let at = k.bytes.len();
        k.bytes.extend_from_slice(msg_type);
        let msg_type = at..k.bytes.len();
        let first = k.header.len();
        for &(tag, value) in header {
            let at = k.bytes.len();
            k.bytes.extend_from_slice(value);
            k.header.push((tag, at..k.bytes.len()));
        }
        let at = k.bytes.len();
        k.bytes.extend_from_slice(fields);
        k.messages.push(KeptMessage {
            msg_type,
            header: first..k.header.len(),
            body: at..k.bytes.len(),
        });
        let seq = self.next_seq;
        self.next_seq += 1;
        Ok(seq)
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
            let mut extra = [(0, HeaderValue::Uint(0)); Outbox::MAX_HEADER_FIELDS];
            for (slot, (tag, value)) in extra.iter_mut().zip(&kept.header[m.header.clone()]) {
                *slot = (*tag, HeaderValue::Bytes(&kept.bytes[value.clone()]));
            }
            let body = &kept.bytes[m.body.clone()];
            let sent = self.send_app(
                &kept.bytes[m.msg_type.clone()],
                &extra[..m.header.len()],
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
}

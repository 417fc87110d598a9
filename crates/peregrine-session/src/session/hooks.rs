//! The application's part in what the session does: events delivered in order,
//! `from_admin` called, admin messages passed through `to_admin` and application
//! messages through `to_app` as they are sent.

use peregrine_codec::{MessageEncoder, MessageView};
use peregrine_store::MessageStore;

use crate::app::{AddedFields, Application, Outbox, OutgoingMessage, RejectLogon, SendError};
use crate::config::SessionId;

use super::core::Core;
use super::events::AppEvent;
use super::outgoing::{HeaderValue, MAX_HEADER};
use super::resend::rewrite;

/// `base` header fields followed by those `to_admin` added, into `out`; returns how
/// many (the writer merges them into the header in ascending tag order). A tag
/// added twice keeps its last value, as the writer does, so nothing is cut: the
/// standard header has 34 tags, 10 of them the session's own (which `to_admin`
/// cannot add), and `base` holds at most 2, well within [`MAX_HEADER`].
pub(super) fn admin_header<'a>(
    base: &[(u32, HeaderValue<'a>)],
    fields: &'a AddedFields,
    out: &mut [(u32, HeaderValue<'a>); MAX_HEADER],
) -> usize {
    let mut n = 0;
    for &f in base.iter().take(MAX_HEADER) {
        out[n] = f;
        n += 1;
    }
    for (t, v) in fields.header() {
        if let Some(slot) = out[..n].iter_mut().find(|(tag, _)| *tag == t) {
            slot.1 = HeaderValue::Bytes(v);
        } else if n < MAX_HEADER {
            out[n] = (t, HeaderValue::Bytes(v));
            n += 1;
        }
    }
    n
}

impl<S: MessageStore> Core<S> {
    /// Delivers the events raised where the application was not at hand: called
    /// before any callback, so the application hears everything in order.
    pub(super) fn flush_events(&mut self, app: &mut dyn Application) {
        while let Some(e) = self.app_events.pop_front() {
            self.deliver(app, &e);
        }
    }

    /// Delivers `event` now (after those still queued).
    pub(super) fn notify(&mut self, app: &mut dyn Application, event: &AppEvent<'_>) {
        self.flush_events(app);
        self.deliver(app, event);
    }

    /// [`Application::on_event`], with an outbox whose messages for this
    /// session wait for the end of the call ([`Core::send_deferred`]): an
    /// event may come in the middle of the session's own work.
    fn deliver(&mut self, app: &mut dyn Application, event: &AppEvent<'_>) {
        self.outgoing.counters.on_event(event);
        let own_ok = self.own_sends_ok();
        self.with_outbox(own_ok, |id, out| app.on_event(id, event, out));
    }

    /// [`Application::from_admin`], in order with the events; what it sends
    /// on this session waits for the end of the call, as an event's.
    pub(super) fn app_from_admin(
        &mut self,
        msg: &MessageView<'_>,
        app: &mut dyn Application,
    ) -> Result<(), RejectLogon> {
        self.flush_events(app);
        let own_ok = self.own_sends_ok();
        self.with_outbox(own_ok, |id, out| app.from_admin(msg, id, out))
    }

    /// Runs a callback of this session with its outbox: `own_ok` says
    /// whether it may send on the session itself now.
    pub(super) fn with_outbox<R>(
        &mut self,
        own_ok: bool,
        callback: impl FnOnce(&SessionId, &mut Outbox<'_>) -> R,
    ) -> R {
        let (next_seq, now) = (self.outgoing.store.next_sender_seq(), self.now());
        let Core {
            callback_sends,
            config,
            ..
        } = self;
        callback(
            &config.id,
            &mut callback_sends.outbox(next_seq, now, &config.id, own_ok),
        )
    }

    /// Sends an admin message built by the session, with what
    /// [`Application::to_admin`] adds to it; a store failure is recorded.
    pub(super) fn send_admin(
        &mut self,
        msg_type: &[u8],
        extra: &[(u32, HeaderValue<'_>)],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
        app: &mut dyn Application,
    ) {
        self.flush_events(app);
        let seq = self.outgoing.store.next_sender_seq();
        let Core {
            outgoing,
            admin_fields,
            config,
            ..
        } = self;
        admin_fields.collect(app, msg_type, seq, &config.id);
        let mut header = [(0, HeaderValue::Uint(0)); MAX_HEADER];
        let n = admin_header(extra, admin_fields, &mut header);
        let fields = &*admin_fields;
        outgoing.admin(msg_type, &header[..n], &mut |m| {
            body(m);
            fields.write_body(m);
        });
    }

    /// Sends an application message passed through [`Application::to_app`] first,
    /// which may veto it (then it is neither stored nor sent, and its sequence number
    /// is not used) or amend it (then it is written again with the fields it added).
    pub(super) fn send_app(
        &mut self,
        msg_type: &[u8],
        extra: &[(u32, HeaderValue<'_>)],
        body: &mut dyn FnMut(&mut MessageEncoder<'_>),
        app: &mut dyn Application,
    ) -> Result<u64, SendError> {
        self.flush_events(app);
        let seq = self.outgoing.store.next_sender_seq();
        let Core {
            outgoing,
            app_decoder,
            admin_fields,
            amend_copy,
            config,
            ..
        } = self;
        let sent = outgoing.send_checked(msg_type, extra, body, &mut |writer, written| {
            let raw = &writer.buffer[written.clone()];
            let mut msg =
                OutgoingMessage::new(raw, msg_type, seq, false, app_decoder, admin_fields);
            app.to_app(&mut msg, &config.id).ok()?;
            if admin_fields.is_empty() {
                return Some(written);
            }
            // Amended: read from a copy while the message is written again in its
            // place. A message that does not decode (a value holding SOH) goes as it
            // was written.
            amend_copy.clear();
            amend_copy.extend_from_slice(raw);
            let Ok(view) = app_decoder.get().decode(amend_copy) else {
                return Some(written);
            };
            writer.buffer.truncate(written.start);
            Some(rewrite(writer, seq, &view, false, admin_fields))
        });
        // Nothing decoded is in use: the decoder goes back to the thread.
        app_decoder.release();
        sent
    }
}

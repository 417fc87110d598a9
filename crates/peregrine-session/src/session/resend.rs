//! Resends we answer: stored application messages re-sent with PossDupFlag and
//! OrigSendingTime, everything else gap-filled, produced as the transport
//! drains.

use std::ops::Range;

use peregrine_codec::{msg_type, tag, MessageView};
use peregrine_dict::SessionRejectReason;
use peregrine_store::{MessageStore, StoreError};

use crate::app::{AddedFields, Application, OutgoingMessage};

use super::core::Core;
use super::events::{AppEvent, SessionEvent};
use super::hooks::admin_header;
use super::outgoing::{HeaderValue, Outgoing, Writer, MAX_HEADER};
use super::reject::SessionReject;
use super::verify::{parse_seq, seq_field_problem, SeqCheck};

/// A SequenceReset-GapFill numbered `seq` that moves the peer on to `new_seq`,
/// with the fields `to_admin` added (`fields`, collected for it).
/// (OrigSendingTime is its SendingTime, as in QuickFIX.)
pub(super) fn gap_fill(writer: &mut Writer, seq: u64, new_seq: u64, fields: &AddedFields) {
    let mut header = [(0, HeaderValue::Uint(0)); MAX_HEADER];
    let n = admin_header(
        &[
            (tag::POSS_DUP_FLAG, HeaderValue::Char(b'Y')),
            (tag::ORIG_SENDING_TIME, HeaderValue::SendingTime),
        ],
        fields,
        &mut header,
    );
    writer.write(seq, msg_type::SEQUENCE_RESET, &header[..n], &mut |m| {
        m.uint(tag::NEW_SEQ_NO, new_seq)
            .char(tag::GAP_FILL_FLAG, b'Y');
        fields.write_body(m);
    });
}

/// A message written again from `view` with MsgSeqNum `seq` and a fresh SendingTime:
/// a resend (`resend`: PossDupFlag(43)=Y and OrigSendingTime(122) from the stored
/// SendingTime), and/or a message [`Application::to_app`] amended (`added`: each added
/// tag replaces that tag's value wherever the message has it, the others go at the end
/// of the header or of the body). Returns where it is in the writer's buffer.
pub(super) fn rewrite(
    writer: &mut Writer,
    seq: u64,
    view: &MessageView<'_>,
    resend: bool,
    added: &AddedFields,
) -> Range<usize> {
    let mut extra: [(u32, HeaderValue<'_>); MAX_HEADER] = [(0, HeaderValue::Uint(0)); MAX_HEADER];
    let mut n = 0;
    if resend {
        extra[n] = (tag::POSS_DUP_FLAG, HeaderValue::Char(b'Y'));
        n += 1;
        if let Some(orig) = view.get(tag::SENDING_TIME) {
            extra[n] = (tag::ORIG_SENDING_TIME, HeaderValue::Bytes(orig));
            n += 1;
        }
    }
    let mut body_from = view.len();
    for i in 3..view.len() {
        let f = view.field(i);
        if !tag::is_standard_header(f.tag) {
            body_from = i;
            break;
        }
        // The writer puts these itself (fresh, or from above).
        let rewritten = matches!(
            f.tag,
            tag::MSG_SEQ_NUM
                | tag::SENDER_COMP_ID
                | tag::SENDING_TIME
                | tag::TARGET_COMP_ID
                | tag::POSS_DUP_FLAG
                | tag::ORIG_SENDING_TIME
                | tag::LAST_MSG_SEQ_NUM_PROCESSED
        );
        // The stored header has each tag once (the writer keeps one value per
        // tag): at most the 24 standard header tags not rewritten here, and
        // 43/122, so the bound below never cuts one.
        if rewritten || n >= MAX_HEADER - 8 {
            continue;
        }
        let value = added.value_of(f.tag).unwrap_or(f.value);
        extra[n] = (f.tag, HeaderValue::Bytes(value));
        n += 1;
    }
    let in_header = |t: u32| (3..body_from).any(|i| view.field(i).tag == t);
    for (t, v) in added.absent(in_header) {
        if tag::is_standard_header(t) && n < MAX_HEADER - 8 {
            extra[n] = (t, HeaderValue::Bytes(v));
            n += 1;
        }
    }
    let body_end = (body_from..view.len())
        .find(|&i| view.field(i).tag == tag::CHECK_SUM)
        .unwrap_or(view.len());
    let in_body = |t: u32| (body_from..body_end).any(|i| view.field(i).tag == t);
    let msg_type = view.msg_type();
    writer.write(seq, msg_type, &extra[..n], &mut |m| {
        for i in body_from..body_end {
            let f = view.field(i);
            m.str(f.tag, added.value_of(f.tag).unwrap_or(f.value));
        }
        for (t, v) in added.absent(in_body) {
            if !tag::is_standard_header(t) {
                m.str(t, v);
            }
        }
    })
}

/// A resend we are answering, produced as the transport drains (see
/// [`Core::pump_resend`]) so that a request for millions of messages never
/// holds more than [`RESEND_CHUNK`] bytes of them at once.
#[derive(Clone, Copy, Debug)]
pub(super) struct ResendAnswer {
    /// BeginSeqNo as asked.
    pub(super) begin: u64,
    /// The next sequence number to resend.
    pub(super) next: u64,
    /// The last one.
    pub(super) end: u64,
    /// A run of messages to cover with one SequenceReset-GapFill, from here.
    pub(super) gap_start: Option<u64>,
}

/// A resend is produced while the outbound buffer holds less than this, or
/// than `max_outbound_bytes` when that is smaller (and one message more: the
/// buffer never holds more than the smaller bound plus one message of it, and
/// the GapFill before that message).
pub(super) const RESEND_CHUNK: usize = 256 * 1024;

/// Sequence numbers read from the store per step of a resend.
pub(super) const RESEND_STEP: u64 = 64;

impl<S: MessageStore> Core<S> {
    /// The peer's ResendRequest: its range checked, then answered; queued when
    /// it is numbered above the expected message.
    pub(super) fn on_resend_request(&mut self, msg: &MessageView<'_>, app: &mut dyn Application) {
        if !self.verify(msg, SeqCheck::Neither, app) {
            return;
        }
        // BeginSeqNo must be a sequence number; EndSeqNo one, or 0 (infinity).
        let bad = seq_field_problem(msg, tag::BEGIN_SEQ_NO).or_else(|| {
            (msg.get(tag::END_SEQ_NO) != Some(b"0"))
                .then(|| seq_field_problem(msg, tag::END_SEQ_NO))?
        });
        if let Some(rej) = bad {
            self.reject(msg, rej, app);
            return;
        }
        let begin = parse_seq(msg.get(tag::BEGIN_SEQ_NO)).unwrap_or(1);
        let end = parse_seq(msg.get(tag::END_SEQ_NO)).unwrap_or(0);
        self.notify(app, &AppEvent::ResendRequestReceived { begin, end });
        let _ = self.app_from_admin(msg, app);
        let next = self.outgoing.store.next_sender_seq();
        // 0 is "infinity" from FIX.4.2 on and names no message before it, so it means
        // the same there; 999999 is FIX.4.0/4.1's (and FIX.4.2's) spelling.
        let infinite = end == 0 || (end == 999_999 && self.begin_bytes() <= &b"FIX.4.2"[..]);
        if !infinite && end < begin {
            self.reject(
                msg,
                SessionReject::new(
                    SessionRejectReason::ValueIsIncorrect,
                    Some(i64::from(tag::END_SEQ_NO)),
                ),
                app,
            );
            return;
        }
        let end = if infinite || end >= next {
            next - 1
        } else {
            end
        };
        self.resend(begin, end, app);
        // Answered at once whatever its number (waiting behind our own gap could
        // deadlock two sessions each waiting for the other's resend). Numbered
        // above the expected one, it is also queued, as QuickFIX/J does (QFJ-673),
        // so that its number is taken in turn; and the gap it shows is asked for
        // like any other. Not queued, its number would stay a hole: the peer's
        // GapFill over it (numbered below, a PossDup) is rightly ignored, and the
        // next message would look too high and ask for everything since again.
        match parse_seq(msg.get(tag::MSG_SEQ_NUM)) {
            Some(seq) if seq == self.expected() => self.incr_target(),
            Some(seq) if seq > self.expected() => self.too_high(msg, seq, app),
            _ => {}
        }
    }

    /// Answers a resend of `begin..=end` from the store: application messages with
    /// PossDupFlag=Y and OrigSendingTime, admin messages and gaps as
    /// SequenceReset-GapFill. A later request replaces one still being answered.
    pub(super) fn resend(&mut self, begin: u64, end: u64, app: &mut dyn Application) {
        if begin > end {
            return;
        }
        let Some(live) = self.live_mut() else {
            return;
        };
        live.answering = Some(ResendAnswer {
            begin,
            next: begin,
            end,
            gap_start: None,
        });
        self.pump_resend(app);
    }

    /// Produces the resend being answered while the outbound buffer holds less than
    /// [`RESEND_CHUNK`] bytes and less than `max_outbound_bytes` (a resend waits
    /// for the transport rather than overflow); called again as the transport drains it
    /// ([`Session::consume_outbound`]). Resent messages change nothing in the store,
    /// so when nothing uncommitted precedes them they may leave at once.
    pub(super) fn pump_resend(&mut self, app: &mut dyn Application) {
        let Some(mut cur) = self.live().and_then(|live| live.answering) else {
            return;
        };
        let releasable = self.outgoing.writer.committed == self.outgoing.writer.buffer.len();
        let limit = RESEND_CHUNK.min(self.outgoing.max_outbound());
        let mut result: Result<(), StoreError> = Ok(());
        while cur.next <= cur.end && self.outgoing.writer.buffer.len() < limit && result.is_ok() {
            let step_end = cur.end.min(cur.next.saturating_add(RESEND_STEP - 1));
            result = self.resend_step(&mut cur, step_end, limit, app);
        }
        // Nothing read back is in use: the decoders go back to the thread.
        self.resend_decoder.release();
        self.app_decoder.release();
        if result.is_err() {
            self.store_failed();
        }
        if cur.next > cur.end || result.is_err() {
            // Done: whatever is left of the range is one gap.
            if let Some(g) = cur.gap_start.take() {
                self.flush_events(app);
                let Core {
                    outgoing,
                    admin_fields,
                    config,
                    ..
                } = self;
                admin_fields.collect(app, msg_type::SEQUENCE_RESET, g, &config.id);
                gap_fill(
                    &mut outgoing.writer,
                    g,
                    cur.end.saturating_add(1),
                    admin_fields,
                );
                outgoing.counters.gap_fill_sent();
            }
            self.set_answering(None);
            self.events.push_back(SessionEvent::ResendAnswered {
                begin: cur.begin,
                end: cur.end,
            });
            self.notify(
                app,
                &AppEvent::ResendAnswered {
                    begin: cur.begin,
                    end: cur.end,
                },
            );
        } else {
            self.set_answering(Some(cur));
        }
        if releasable {
            self.outgoing.writer.committed = self.outgoing.writer.buffer.len();
        }
    }

    fn set_answering(&mut self, answering: Option<ResendAnswer>) {
        if let Some(live) = self.live_mut() {
            live.answering = answering;
        }
    }

    /// Resends `cur.next..=step_end` (records read from the store, gaps noted):
    /// each application message passed through [`Application::to_app`], which may
    /// veto it (it is then gap-filled like an admin message). Stops before a
    /// record once the outbound buffer holds `limit` bytes: `cur.next` is then
    /// that record, produced when the transport has drained the buffer.
    pub(super) fn resend_step(
        &mut self,
        cur: &mut ResendAnswer,
        step_end: u64,
        limit: usize,
        app: &mut dyn Application,
    ) -> Result<(), StoreError> {
        self.flush_events(app);
        let Core {
            outgoing,
            resend_decoder,
            app_decoder,
            admin_fields,
            config,
            ..
        } = self;
        let id = &config.id;
        let persist = outgoing.persists();
        let Outgoing {
            store,
            writer,
            counters,
            ..
        } = outgoing;
        let first = cur.next;
        let mut cursor = cur.next;
        let mut gap_start = cur.gap_start;
        let mut stopped = None;
        let mut result = Ok(());
        if persist {
            result = store.for_each_in_range(cur.next, step_end, &mut |seq, raw| {
                if stopped.is_some() || (cursor > first && writer.buffer.len() >= limit) {
                    // The buffer is full: this record and the rest wait (the
                    // first record of a step always goes, so a step progresses).
                    stopped.get_or_insert(seq);
                    return;
                }
                if seq > cursor && gap_start.is_none() {
                    gap_start = Some(cursor);
                }
                cursor = seq + 1;
                let Ok(view) = resend_decoder.get().decode(raw) else {
                    gap_start.get_or_insert(seq);
                    return;
                };
                if msg_type::is_admin(view.msg_type()) {
                    gap_start.get_or_insert(seq);
                    return;
                }
                let (start, last_sent) = (writer.buffer.len(), writer.last_sent);
                rewrite(writer, seq, &view, true, AddedFields::none());
                let raw = &writer.buffer[start..];
                let mut out = OutgoingMessage::new(
                    raw,
                    view.msg_type(),
                    seq,
                    true,
                    app_decoder,
                    admin_fields,
                );
                let verdict = app.to_app(&mut out, id);
                if verdict.is_ok() && !admin_fields.is_empty() {
                    // Amended: written again from the stored record.
                    writer.buffer.truncate(start);
                    rewrite(writer, seq, &view, true, admin_fields);
                }
                if verdict.is_err() {
                    // Vetoed (QuickFIX/J's DoNotSend): gap-filled instead.
                    writer.buffer.truncate(start);
                    writer.last_sent = last_sent;
                    gap_start.get_or_insert(seq);
                    return;
                }
                if let Some(g) = gap_start.take() {
                    // The gap fill goes before the message just written.
                    let fill_at = writer.buffer.len();
                    admin_fields.collect(app, msg_type::SEQUENCE_RESET, g, id);
                    gap_fill(writer, g, seq, admin_fields);
                    counters.gap_fill_sent();
                    writer.buffer[start..].rotate_left(fill_at - start);
                }
                counters.message_resent();
            });
        }
        if let Some(seq) = stopped {
            // Numbers missing from the store before the record we stopped at
            // are a gap, filled before the next message resent.
            if seq > cursor && gap_start.is_none() {
                gap_start = Some(cursor);
            }
            cur.gap_start = gap_start;
            cur.next = seq;
            return result;
        }
        if cursor <= step_end && gap_start.is_none() {
            gap_start = Some(cursor);
        }
        cur.gap_start = gap_start;
        cur.next = step_end + 1;
        result
    }
}

//! Every buffer of the session has a stated bound, measured here with the
//! counting allocator's live bytes: the queue of messages held while a gap is
//! filled (`max_inbound_queue_bytes`), a resend of a huge range (produced as
//! the transport drains, never more than 256 KiB and 64 messages at once), and the outbound
//! buffer of a peer that does not read (`max_outbound_bytes`); and what a session holds
//! at all (BENCHMARKS.md §5, memory per session): before it connects, no buffer for a
//! connection; logged on, no decoder of its own (the thread lends one for each call,
//! a second for a resend while a message is being read).

mod support;

use peregrine_alloc::{live_bytes, peak_bytes, reset_peak, CountingAllocator};
use peregrine_codec::{Decoder, DecoderConfig, MessageView};
use peregrine_session::{
    AppReject, Application, DisconnectReason, DoNotSend, Outbox, OutgoingMessage, Session,
    SessionConfig, SessionEvent, SessionId,
};
use peregrine_store::MemoryStore;
use support::{config, log_on, message, Venue, T0};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The counters are process-wide: one test at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `test` alone, on a thread of its own that has ended (the decoders it was
/// lent freed with it) when this returns: the next test's counts do not see them go.
fn isolated(test: impl FnOnce() + Send + 'static) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(panic) = std::thread::spawn(test).join() {
        std::panic::resume_unwind(panic);
    }
}

/// A FIX.4.4 acceptor over a MemoryStore, `set` applied to its settings, logged on.
fn logged_on(set: impl FnOnce(&mut SessionConfig)) -> Session<MemoryStore> {
    let mut cfg = config("FIX.4.4");
    set(&mut cfg);
    let mut s = Session::new(cfg, MemoryStore::new(T0), T0);
    log_on(&mut s, &mut Venue);
    s
}

#[test]
fn messages_held_for_a_gap_stay_within_max_inbound_queue_bytes() {
    isolated(|| {
        // The reliability issue: 200,000 out-of-order messages (MsgSeqNum 10^6 + i)
        // grew memory by 155% of their bytes while they waited.
        const LIMIT: usize = 2 << 20;
        let mut s = logged_on(|c| c.max_inbound_queue_bytes = LIMIT);
        let pad = vec![b'p'; 150];
        let msgs: Vec<Vec<u8>> = (0..200_000u64)
            .map(|i| message(b"0", 1_000_000 + i, T0, &[(112, &pad)]))
            .collect();
        let bytes: usize = msgs.iter().map(Vec::len).sum();
        let before = live_bytes();
        reset_peak();
        let mut reason = None;
        let mut queued = 0;
        for m in &msgs {
            s.on_bytes(m, T0, &mut Venue);
            s.commit().unwrap();
            s.consume_outbound(s.outbound().len(), &mut Venue);
            while let Some(ev) = s.poll_event() {
                if let SessionEvent::Disconnect(r) = ev {
                    reason = Some(r);
                }
            }
            if reason.is_some() {
                break;
            }
            queued += 1;
        }
        let grew = peak_bytes() - before;
        assert_eq!(reason, Some(DisconnectReason::InboundQueueFull));
        assert!(queued > 1000, "{queued} queued before the limit");
        assert!(
            grew <= LIMIT + (256 << 10),
            "peak {grew} bytes for a {LIMIT}-byte limit ({bytes} offered)"
        );
        s.on_disconnected(T0, &mut Venue);
        assert!(
            live_bytes() <= before + (128 << 10),
            "the queue's memory is returned: {} bytes still held",
            live_bytes() - before
        );
    });
}

#[test]
fn a_resend_of_a_huge_range_is_produced_as_the_transport_drains() {
    isolated(|| {
        const N: u64 = 100_000;
        let mut s = logged_on(|_| {});
        for i in 0..N {
            s.send(T0, &mut Venue, b"D", |m| {
                m.str(11, format!("ORDER-{i:08}").as_bytes())
                    .str(55, b"PEREGRINE");
            })
            .unwrap();
            if i % 1000 == 999 {
                s.commit().unwrap();
                s.consume_outbound(s.outbound().len(), &mut Venue);
            }
        }
        s.commit().unwrap();
        s.consume_outbound(s.outbound().len(), &mut Venue);
        let rr = message(b"2", 2, T0, &[(7, b"1"), (16, b"0")]);
        let before = live_bytes();
        reset_peak();
        s.on_bytes(&rr, T0, &mut Venue);
        s.commit().unwrap();
        let mut most = 0;
        let mut resent = 0u64;
        let mut next_seq = 1u64;
        loop {
            let out = s.outbound();
            if out.is_empty() {
                break;
            }
            most = most.max(out.len() + s.uncommitted_len());
            // Check order: MsgSeqNum of every message in this chunk.
            let text = String::from_utf8_lossy(out);
            for part in text.split("\x0134=").skip(1) {
                let seq: u64 = part[..part.find('\x01').unwrap()].parse().unwrap();
                assert_eq!(seq, next_seq);
                next_seq += 1;
            }
            resent += text.matches("\x0135=D\x01").count() as u64;
            let n = out.len();
            s.consume_outbound(n, &mut Venue);
        }
        assert_eq!(resent, N, "every order resent");
        assert_eq!(
            next_seq,
            N + 2,
            "the Logon gap-filled, then 2..=N+1 in order"
        );
        assert!(
            most <= 256 * 1024 + 64 * 256,
            "at most 256 KiB (and one step of 64 messages) of the resend at once: {most}"
        );
        let grew = peak_bytes() - before;
        assert!(grew < 2 << 20, "the resend held {grew} bytes at its peak");
        let events: Vec<_> = std::iter::from_fn(|| s.poll_event()).collect();
        assert!(
            events.contains(&SessionEvent::ResendAnswered {
                begin: 1,
                end: N + 1
            }),
            "{events:?}"
        );
    });
}

#[test]
fn a_peer_that_does_not_read_cannot_grow_the_outbound_buffer_past_its_bound() {
    isolated(|| {
        const LIMIT: usize = 1 << 20;
        let mut s = logged_on(|c| {
            c.max_outbound_bytes = LIMIT;
            // Nothing kept in the store: what is measured is the outbound buffer alone.
            c.persist_messages = false;
        });
        let ids: Vec<String> = (0..100_000u64).map(|i| format!("ORDER-{i:08}")).collect();
        let before = live_bytes();
        reset_peak();
        let mut reason = None;
        for id in &ids {
            s.send(T0, &mut Venue, b"D", |m| {
                m.str(11, id.as_bytes()).str(55, b"PEREGRINE");
            })
            .unwrap();
            s.commit().unwrap();
            // Nothing is consumed: the peer does not read.
            if let Some(SessionEvent::Disconnect(r)) = s.poll_event() {
                reason = Some(r);
                break;
            }
        }
        assert_eq!(reason, Some(DisconnectReason::OutboundQueueFull));
        assert!(s.outbound().len() <= LIMIT);
        let grew = peak_bytes() - before;
        assert!(
            grew <= LIMIT + (64 << 10),
            "the outbound buffer reached {grew} bytes for a {LIMIT}-byte bound"
        );
    });
}

/// What one [`Decoder`] holds once made.
fn decoder_bytes() -> usize {
    let before = live_bytes();
    let d = Decoder::new(DecoderConfig::default());
    let held = live_bytes() - before;
    drop(d);
    held
}

/// Live bytes `f` leaves held.
fn held_by(f: impl FnOnce()) -> usize {
    let before = live_bytes();
    f();
    live_bytes().saturating_sub(before)
}

#[test]
fn a_thread_makes_a_decoder_for_resends_once() {
    isolated(|| {
        let decoder = decoder_bytes();
        assert!(decoder > 8 * 1024, "a decoder holds {decoder} bytes");
        let mut s = logged_on(|_| {});
        for i in 0..10 {
            s.send(T0, &mut Venue, b"D", |m| {
                m.str(11, format!("ORDER-{i}").as_bytes());
            })
            .unwrap();
        }
        s.commit().unwrap();
        s.consume_outbound(s.outbound().len(), &mut Venue);
        let mut resend = |seq: u64| {
            let rr = message(b"2", seq, T0, &[(7, b"1"), (16, b"0")]);
            s.on_bytes(&rr, T0, &mut Venue);
            s.commit().unwrap();
            while !s.outbound().is_empty() {
                s.consume_outbound(s.outbound().len(), &mut Venue);
            }
        };
        // Reading stored messages back while the ResendRequest is being read takes
        // a second decoder: made by the thread's first resend, kept for the next.
        let first = held_by(|| resend(2));
        assert!(
            first >= decoder,
            "the first resend made {first} bytes, a decoder is {decoder}"
        );
        let second = held_by(|| resend(3));
        assert!(
            second < decoder / 2,
            "the second resend made {second} bytes: made again?"
        );
    });
}

/// Answers every order, and asks to see every outgoing application message in `to_app`.
struct Looks;

impl Application for Looks {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        Venue.from_app(msg, id, out)
    }

    fn to_app(&mut self, msg: &mut OutgoingMessage<'_>, _: &SessionId) -> Result<(), DoNotSend> {
        assert!(msg.view().is_ok());
        Ok(())
    }
}

/// Live bytes each of `n` sessions adds, made and then taken through `f`.
fn held_per_session(n: usize, f: impl Fn(&mut Session<MemoryStore>)) -> usize {
    let before = live_bytes();
    let sessions: Vec<Session<MemoryStore>> = (0..n)
        .map(|_| {
            let mut s = Session::new(config("FIX.4.4"), MemoryStore::new(T0), T0);
            f(&mut s);
            s
        })
        .collect();
    let held = live_bytes().saturating_sub(before);
    drop(sessions);
    held / n
}

#[test]
fn a_configured_session_holds_no_buffer_for_a_connection() {
    isolated(|| {
        // BENCHMARKS.md §5: 10,000 configured sessions took 45 KiB each before they
        // connected (a decoder, receive and send buffers, an encoder, a shape cache).
        let each = held_per_session(100, |_| {});
        assert!(each < 3 * 1024, "a configured session holds {each} bytes");
    });
}

#[test]
fn logged_on_sessions_share_the_threads_decoders() {
    isolated(|| {
        let decoder = decoder_bytes();
        // Orders answered, a resend, to_app looking at what is sent, and a Logout:
        // what a session does that needs a decoder or a buffer.
        let busy = |s: &mut Session<MemoryStore>| {
            log_on(s, &mut Looks);
            for seq in 2..5 {
                let order = message(b"D", seq, T0, &support::new_order(b"ORDER-1"));
                s.on_bytes(&order, T0, &mut Looks);
            }
            let rr = message(b"2", 5, T0, &[(7, b"1"), (16, b"0")]);
            s.on_bytes(&rr, T0, &mut Looks);
            s.commit().unwrap();
            while !s.outbound().is_empty() {
                s.consume_outbound(s.outbound().len(), &mut Looks);
            }
            while s.poll_event().is_some() {}
        };
        // The thread's first session makes the decoders every later one borrows.
        held_per_session(1, busy);
        let each = held_per_session(50, busy);
        // What is left: the messages kept for resends, and buffers grown to a
        // message or two (7.5 KB when written); a decoder of its own would be more.
        assert!(
            each < decoder,
            "a logged-on session holds {each} bytes (a decoder is {decoder})"
        );
        let gone = |s: &mut Session<MemoryStore>| {
            busy(s);
            s.on_disconnected(T0, &mut Looks);
        };
        let after = held_per_session(50, gone);
        assert!(after < each, "{after} bytes after its connection went");
    });
}

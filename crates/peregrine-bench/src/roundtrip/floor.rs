//! The TCP floor of the round trip: the bytes of one NewOrderSingle and one
//! ExecutionReport as Peregrine's processes send them (same fields, same lengths, valid
//! BodyLength and CheckSum: [`canned_messages`]) bounced over the same hop, 127.0.0.1
//! between two processes with TCP_NODELAY, by the thinnest code: a non-blocking `read`
//! polled with the same idle strategy as Peregrine's engines ([`RtConfig::idle`]), framed by
//! BodyLength ([`frame_len`]), answered by writing the canned reply. No FIX work: no
//! parse, no session, no store. What an engine costs above this is its own work.
//!
//! The acceptor checks that every message it reads is the canned order, the initiator
//! that every reply is the canned report, byte for byte, so a broken framing fails the
//! run instead of timing something else.

use super::peer::{say_ready, PeerArgs, ResultLine};
use super::wire::{frame_len, Framed};
use super::RtConfig;
use crate::nonblocking::write_all_spinning;
use crate::order::{
    write_order, write_report, OrderFields, CLIENT_ID, ORDER_PRICE, ORDER_QTY, SYMBOL,
};
use crate::report::new_histogram;
use crate::{Error, Result};
use peregrine_engine::{Idle, IdleStrategy};
use peregrine_messages::codec::value::{TimePrecision, UtcTimestamp};
use peregrine_messages::codec::EncodeBuffer;
use peregrine_messages::fix44::enums::Side;
use peregrine_messages::fix44::{prelude::*, ExecutionReport, NewOrderSingle};
use std::io::{self, Read};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// A sequence number of the size a measured round trip carries (100,000 round trips
/// after 10,000 of warm-up).
const SEQ: u64 = 55_002;

/// SendingTime and TransactTime of the canned messages: fixed, so that both processes
/// make the same bytes (2026-11-24 08:00:00.123 UTC; the length is what matters).
const STAMP_NANOS: i64 = 1_795_507_200_123_000_000;

/// The NewOrderSingle (CLIENT→VENUE) and the ExecutionReport (VENUE→CLIENT) the floor
/// bounces: the header Peregrine's session writes (34, 49, 52, 56), the bodies written by
/// the same functions as Peregrine's client and venue, ids and sequence numbers of the
/// size of a measured round trip.
///
/// ```
/// use peregrine_bench::roundtrip::floor::canned_messages;
/// use peregrine_messages::codec::{Decoder, DecoderConfig};
/// let (nos, er) = canned_messages();
/// let mut d = Decoder::new(DecoderConfig::default());
/// assert_eq!(d.decode(&nos).unwrap().get(35), Some(&b"D"[..]));
/// assert_eq!(d.decode(&er).unwrap().get(37), Some(&b"O55001"[..]));
/// ```
pub fn canned_messages() -> (Vec<u8>, Vec<u8>) {
    let now = UtcTimestamp::from_unix_nanos(STAMP_NANOS, TimePrecision::Millis);
    let mut buf = EncodeBuffer::new();
    let mut b = NewOrderSingle::builder(&mut buf);
    b.msg_seq_num(SEQ)
        .sender_comp_id("CLIENT")
        .sending_time(now)
        .target_comp_id("VENUE");
    write_order(&mut b, "C55000", now, true);
    let nos = b.finish().to_vec();
    let order = OrderFields {
        cl_ord_id: "C55000",
        symbol: SYMBOL,
        side: Side::Buy,
        qty: ORDER_QTY,
        price: ORDER_PRICE,
        transact_time: now,
        client_id: Some(CLIENT_ID),
    };
    let mut b = ExecutionReport::builder(&mut buf);
    b.msg_seq_num(SEQ)
        .sender_comp_id("VENUE")
        .sending_time(now)
        .target_comp_id("CLIENT");
    write_report(&mut b, &order, 55_001);
    let er = b.finish().to_vec();
    (nos, er)
}

/// The settings as the report states them.
///
/// ```
/// assert!(peregrine_bench::roundtrip::floor::settings_text(180, 230, peregrine_bench::roundtrip::RtConfig::Balanced).contains("180 B"));
/// ```
pub fn settings_text(nos: usize, er: usize, config: RtConfig) -> String {
    format!(
        "TCP floor: the round trip's bytes ({nos} B NewOrderSingle, {er} B ExecutionReport, as Peregrine sends them) between two processes over TCP 127.0.0.1, TCP_NODELAY, non-blocking read polled with {}, framed by BodyLength, canned reply written; no FIX parse, session or store",
        config.idle()
    )
}

fn io_error(what: &'static str) -> impl FnOnce(io::Error) -> Error {
    move |e| Error::engine(format!("floor: {what}"))(e)
}

/// One side's socket: reads whole messages into a reused buffer.
struct Bouncer {
    stream: TcpStream,
    buf: Box<[u8]>,
    end: usize,
    idle: Idle,
}

impl Bouncer {
    fn new(stream: TcpStream, idle: Idle) -> Result<Bouncer> {
        stream
            .set_nodelay(true)
            .and_then(|()| stream.set_nonblocking(true))
            .map_err(io_error("socket options"))?;
        Ok(Bouncer {
            stream,
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            end: 0,
            idle,
        })
    }

    /// Polls until one whole message is buffered; its length, or `None` when the peer
    /// closed the connection between messages.
    fn read_message(&mut self) -> Result<Option<usize>> {
        loop {
            match frame_len(&self.buf[..self.end]) {
                Framed::Message(n) => return Ok(Some(n)),
                Framed::Garbled => {
                    return Err(Error::failed_check("floor: the bytes read are not FIX"))
                }
                Framed::Incomplete if self.end == self.buf.len() => {
                    return Err(Error::failed_check("floor: a message longer than 64 KiB"))
                }
                Framed::Incomplete => {}
            }
            match self.stream.read(&mut self.buf[self.end..]) {
                Ok(0) if self.end == 0 => return Ok(None),
                Ok(0) => return Err(Error::failed_check("floor: closed inside a message")),
                Ok(n) => {
                    self.end += n;
                    self.idle.reset();
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                    ) =>
                {
                    self.idle.idle(0)
                }
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset && self.end == 0 => {
                    return Ok(None)
                }
                Err(e) => return Err(io_error("read")(e)),
            }
        }
    }

    /// Drops the first `n` bytes (the message just handled).
    fn consume(&mut self, n: usize) {
        self.buf.copy_within(n..self.end, 0);
        self.end -= n;
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        write_all_spinning(&mut self.stream, bytes).map_err(io_error("write"))
    }
}

/// The floor's acceptor: says `ready`, takes one connection, answers every canned order
/// with the canned report until the initiator closes.
///
/// # Errors
///
/// [`Error::Engine`] for a socket that fails; [`Error::Check`] for bytes other than the
/// canned order.
pub(crate) fn acceptor_main(args: &PeerArgs) -> Result<()> {
    let (nos, er) = canned_messages();
    let listener = TcpListener::bind(("127.0.0.1", args.port)).map_err(io_error("bind"))?;
    say_ready();
    let (stream, _) = listener.accept().map_err(io_error("accept"))?;
    let mut b = Bouncer::new(stream, args.config.idle())?;
    let mut answered = 0u64;
    while let Some(n) = b.read_message()? {
        if b.buf[..n] != nos[..] {
            return Err(Error::failed_check(format!(
                "floor: message {answered} is not the canned NewOrderSingle"
            )));
        }
        b.consume(n);
        b.write(&er)?;
        answered += 1;
    }
    eprintln!("floor acceptor: {answered} replies");
    Ok(())
}

fn connect(port: u16, patience: Duration) -> Result<TcpStream> {
    let deadline = Instant::now() + patience;
    loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(s) => return Ok(s),
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(io_error("connect")(e)),
        }
    }
}

/// The floor's initiator: `warmup` + `iters` round trips of the canned bytes, each
/// checked, then prints its [`ResultLine`].
///
/// # Errors
///
/// [`Error::Engine`] for a socket that fails; [`Error::Check`] for a reply other than the
/// canned report, or the connection closed early.
pub(crate) fn initiator_main(args: &PeerArgs) -> Result<()> {
    let (nos, er) = canned_messages();
    let counting = crate::alloc::is_counting();
    let mut b = Bouncer::new(
        connect(args.port, Duration::from_secs(10))?,
        args.config.idle(),
    )?;
    let mut hist = new_histogram();
    let total = args.warmup + args.iters;
    let (mut from, mut a0) = (Instant::now(), 0);
    let mut to = from;
    for i in 0..total {
        if i == args.warmup {
            a0 = crate::alloc::allocations();
            from = Instant::now();
        }
        let t1 = Instant::now();
        b.write(&nos)?;
        let n = b.read_message()?.ok_or_else(|| {
            Error::failed_check(format!("floor: the acceptor closed before reply {i}"))
        })?;
        if b.buf[..n] != er[..] {
            return Err(Error::failed_check(format!(
                "floor: reply {i} is not the canned ExecutionReport"
            )));
        }
        let t2 = Instant::now();
        b.consume(n);
        if i >= args.warmup {
            let _ = hist.record(((t2 - t1).as_nanos() as u64).clamp(1, 100_000_000_000));
            to = t2;
        }
    }
    let allocs =
        counting.then(|| (crate::alloc::allocations() - a0) as f64 / args.iters.max(1) as f64);
    drop(b);
    ResultLine::new(
        "floor",
        args.config.name(),
        &hist,
        (to - from).as_secs_f64(),
        allocs,
        settings_text(nos.len(), er.len(), args.config),
    )
    .print()
}

#[cfg(test)]
mod tests {
    use super::*;
    use peregrine_dict::{Dictionary, SessionRejectReason, ValidationSettings, Validator};
    use peregrine_messages::codec::{Decoder, DecoderConfig};

    /// Why the validating configs set `AllowUnknownMsgFields=Y`: with the FIX44 dictionary
    /// and default validation, ClientID(109) in either message is rejected, as QuickFIX does.
    #[test]
    fn client_id_needs_allow_unknown_msg_fields() {
        let dict = Dictionary::from_file(crate::fix44_dictionary()).unwrap();
        let (nos, er) = canned_messages();
        for msg in [&nos, &er] {
            let mut d = Decoder::new(DecoderConfig::default());
            let view = d.decode(msg).unwrap();
            let strict = Validator::new(&dict, ValidationSettings::default());
            let err = strict.validate(&view).unwrap_err();
            assert_eq!(
                (err.reason, err.ref_tag),
                (
                    SessionRejectReason::TagNotDefinedForThisMessageType,
                    Some(109)
                )
            );
            let allowing = ValidationSettings {
                allow_unknown_msg_fields: true,
                ..ValidationSettings::default()
            };
            Validator::new(&dict, allowing).validate(&view).unwrap();
        }
    }
}

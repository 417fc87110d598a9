//! Peregrine's side of the round trip, written the way the README teaches a user to
//! write an acceptor and an initiator: settings made in code ([`Settings::builder`]), an
//! [`Application`] whose `from_app` is the generated `fix44::crack` into a
//! [`MessageHandler`], typed replies with [`Outbox::send_typed`], and one engine per
//! process started by [`EngineBuilder::start`] on its own thread. Nothing here reaches
//! under the public API.
//!
//! * `Venue` (acceptor) answers each NewOrderSingle with an ExecutionReport: fresh
//!   OrderID(37) and ExecID(17) (`O1`, `E1`, …), ExecType(150)=0, OrdStatus(39)=0,
//!   LeavesQty(151)=OrderQty, CumQty(14)=0, AvgPx(6)=0, and ClOrdID(11), Symbol(55),
//!   Side(54), ClientID(109), Price(44), OrderQty(38), TransactTime(60) copied.
//! * `Client` (initiator) sends the first order from `on_logon` and each next one from
//!   the callback that receives the previous report; t1 right before `send_typed`, t2
//!   right after the report's ClOrdID and MsgSeqNum are checked ([`check_reply`]). Any
//!   reject, gap, resend or sequence reset, or a report out of sequence, fails the run.
//!
//! The order and the report are [`crate::order`]'s. ClientID(109) is not a field of
//! NewOrderSingle or ExecutionReport in the FIX44 dictionary: with validation on, every
//! engine (QuickFIX/J, QuickFIX C++ and Peregrine alike) would reject it as "Tag not
//! defined for this message type", so the validating configs set
//! `AllowUnknownMsgFields=Y` and leave every other validation setting at its default.

use super::peer::{say_ready, PeerArgs, ResultLine};
use super::{RtConfig, ACCEPTOR_SESSION, INITIATOR_SESSION};
use crate::loopback;
use crate::order::{
    self, write_order, write_report, OrderFields, CLIENT_ID, ORDER_PRICE, ORDER_QTY,
};
use crate::report::new_histogram;
use crate::{Error, Result};
use hdrhistogram::Histogram;
use peregrine_engine::codec::MessageView;
use peregrine_engine::config::{Section, Settings};
use peregrine_engine::session::{
    AppEvent, AppReject, Application, LogoutReason, Outbox, SessionId,
};
use peregrine_engine::store::{FsyncPolicy, MemoryStore};
use peregrine_engine::{BoxedStore, Command, EngineBuilder};
use peregrine_messages::codec::value::{Decimal, TimePrecision, UtcTimestamp};
use peregrine_messages::fix44::{
    self, prelude::*, tags, ExecutionReport, MessageHandler, NewOrderSingle,
};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The settings of one side: FIX.4.4, VENUE⇄CLIENT on 127.0.0.1:`port`, HeartBtInt=30,
/// ResetOnLogon=Y, TCP_NODELAY, the config's idle strategy ([`RtConfig::idle`]), the
/// config's store and validation ([`RtConfig`]), and the message and event logs in
/// `dir/log` ([`log_dir`]) in `production` only.
///
/// ```
/// use peregrine_bench::roundtrip::{peregrine::settings, Role, RtConfig};
/// let dict = peregrine_bench::fix44_dictionary();
/// let s = settings(RtConfig::Balanced, Role::Acceptor, 9000, "/tmp/rt".as_ref(), &dict)?;
/// let venue = &s.sessions[0];
/// assert_eq!(venue.session_name(), "FIX.4.4:VENUE->CLIENT");
/// assert!(venue.file_store_path.is_some() && venue.reset_on_logon);
/// assert!(venue.file_log_path.is_none());
/// let s = settings(RtConfig::Production, Role::Initiator, 9000, "/tmp/rt".as_ref(), &dict)?;
/// assert_eq!(s.sessions[0].file_log_path.as_deref(), Some("/tmp/rt/log".as_ref()));
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Engine`] when the settings do not read (they always should).
pub fn settings(
    config: RtConfig,
    role: super::Role,
    port: u16,
    dir: &std::path::Path,
    dict: &std::path::Path,
) -> Result<Settings> {
    let acceptor = role == super::Role::Acceptor;
    let (us, them) = if acceptor {
        ("VENUE", "CLIENT")
    } else {
        ("CLIENT", "VENUE")
    };
    Settings::builder()
        .default(|d| {
            let d = loopback::defaults(d, acceptor).idle_strategy(config.idle());
            let d = if config.memory_store() {
                d
            } else {
                d.file_store_path(dir.join("store"))
                    .file_store_sync(if config.fsyncs() {
                        FsyncPolicy::EveryCommit
                    } else {
                        FsyncPolicy::Never
                    })
                    .engine_journal(engine_journal())
            };
            let d = if config.logs() {
                d.file_log_path(log_dir(dir))
            } else {
                d
            };
            let d = if config.tls() {
                tls_keys(d, acceptor, &dir.parent().unwrap_or(dir).join("pki"))
            } else {
                d
            };
            if config.validates() {
                d.use_data_dictionary(true)
                    .data_dictionary(dict)
                    .set("AllowUnknownMsgFields", true)
            } else {
                d.use_data_dictionary(false)
            }
        })
        .session("FIX.4.4", us, them, |s| {
            loopback::endpoint(s, acceptor, port)
        })
        .build()
        .map_err(Error::engine("Peregrine's round-trip settings"))
}

/// Where a process of the `production` config keeps its message and event logs: `log`
/// in its directory (`--dir`), which the driver removes after the pair. The peers'
/// harnesses use the same place.
///
/// ```
/// let d = peregrine_bench::roundtrip::peregrine::log_dir("/tmp/rt/acceptor".as_ref());
/// assert_eq!(d, std::path::Path::new("/tmp/rt/acceptor/log"));
/// ```
pub fn log_dir(dir: &std::path::Path) -> std::path::PathBuf {
    dir.join("log")
}

/// The environment variable that picks the file store of the file-store
/// configs: `N` for a `FileStore` directory per session (`EngineJournal=N`,
/// the default before 2026-11-28), anything else or unset for the engine
/// journal (the default): how BENCHMARKS.md §4 measures one against the
/// other.
pub const ENGINE_JOURNAL_ENV: &str = "PEREGRINE_BENCH_ENGINE_JOURNAL";

/// Whether the file-store configs use the engine journal ([`ENGINE_JOURNAL_ENV`]).
pub fn engine_journal() -> bool {
    std::env::var(ENGINE_JOURNAL_ENV).map_or(true, |v| v != "N")
}

/// The settings as the report states them.
///
/// ```
/// let s = peregrine_bench::roundtrip::peregrine::settings_text(peregrine_bench::roundtrip::RtConfig::Fsync);
/// assert!(s.contains("FileStoreSync=Y") && s.contains("spin-then-yield"));
/// ```
pub fn settings_text(config: RtConfig) -> String {
    let kind = if engine_journal() {
        "file store as the engine journal (EngineJournal=Y: one file, one write per turn)"
    } else {
        "file store, a directory per session (EngineJournal=N)"
    };
    let store = match config {
        RtConfig::Balanced => format!("{kind}, FileStoreSync=N: each commit written to the OS before the message leaves, not fsynced"),
        RtConfig::Optimized => "memory store".into(),
        RtConfig::Fsync => format!("{kind}, FileStoreSync=Y (fdatasync per commit, before the message leaves)"),
        RtConfig::Production => format!("{kind}, FileStoreSync=N, as balanced; FileLogPath=DIR/log: the message log (every message in and out, a line each with its UTC time) and the event log"),
        RtConfig::Tls => format!("{kind}, FileStoreSync=N; SocketUseSSL=Y: rustls with the ring provider, TLS 1.3 negotiated, the acceptor's ECDSA P-256 certificate verified by the initiator against a test CA (SocketCAFile), no client certificate"),
    };
    let validation = if config.validates() {
        "UseDataDictionary=Y with FIX44.xml, default validation settings but AllowUnknownMsgFields=Y (ClientID(109) is not a NewOrderSingle/ExecutionReport field in FIX44)"
    } else {
        "UseDataDictionary=N (BodyLength, CheckSum, tag syntax, garbled checks)"
    };
    format!(
        "Peregrine EngineBuilder::start, one engine thread per process, IdleStrategy={} both sides; {store}; {validation}; SocketNodelay=Y, ResetOnLogon=Y, HeartBtInt=30, {log}; typed MessageHandler/crack and Outbox::send_typed",
        config.idle(),
        log = if config.logs() { "message and event logs on" } else { "no message or event log" },
    )
}

/// Room per stored message in the memory store: the 209-byte ExecutionReport and the
/// 166-byte NewOrderSingle with some to spare.
const STORED_BYTES: usize = 256;

/// One side's engine builder. With the memory store (`optimized`), the store has room for
/// every message of the run up front and that room is resident before the first round
/// trip ([`MemoryStore::prefault`]), as the QuickFIX/J harness's JVM pre-touches its heap
/// (`-XX:+AlwaysPreTouch`): the page faults of a growing store would otherwise land in
/// about one measured round trip in ten (2.5–3 µs at the p99, measured with
/// `PersistMessages=N` against the growing store).
fn builder(settings: Settings, args: &PeerArgs) -> EngineBuilder {
    let engine = EngineBuilder::new(settings);
    if !args.config.memory_store() {
        return engine;
    }
    let messages = (args.warmup + args.iters) as usize + 1_000;
    engine.store_with(move |_, now| {
        let mut store = MemoryStore::with_capacity(now, messages, messages * STORED_BYTES);
        store.prefault();
        Ok(Box::new(store) as BoxedStore)
    })
}

/// The TLS keys of the `tls` config: the acceptor's certificate and key, the CA the
/// initiator checks it against, from the pair's `pki` directory (the driver writes it,
/// [`peregrine_testkit::tls::TestPki`]).
fn tls_keys(d: Section, acceptor: bool, pki: &std::path::Path) -> Section {
    let d = d.set("SocketUseSSL", true);
    if acceptor {
        d.set("SocketCertificateFile", pki.join("server.pem"))
            .set("SocketPrivateKeyFile", pki.join("server.key"))
    } else {
        d.set("SocketCAFile", pki.join("ca.pem"))
            .set("SocketServerName", "localhost")
    }
}

/// The environment variable that makes the venue misbehave on purpose, for the tests
/// that check that a broken run fails: `clordid` (the 10th report carries another
/// ClOrdID), `price` (another Price) or `seqgap` (after the 10th report the venue's next outgoing sequence number
/// jumps, through the operator command `SetSeqNum`).
pub const FAULT_ENV: &str = "PEREGRINE_ROUNDTRIP_FAULT";

/// The order after which a [`FAULT_ENV`] fault strikes.
const FAULT_AT: u64 = 10;

/// A fault the venue injects ([`FAULT_ENV`]).
///
/// ```
/// use peregrine_bench::roundtrip::peregrine::{Fault, FAULT_ENV};
/// assert_eq!(FAULT_ENV, "PEREGRINE_ROUNDTRIP_FAULT");
/// assert_ne!(Fault::Price, Fault::None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// None: the benchmark.
    None,
    /// A report with another ClOrdID.
    ClOrdId,
    /// A report with another Price than its order's.
    Price,
    /// A jump in the venue's outgoing sequence numbers.
    SeqGap,
}

impl Fault {
    /// The fault [`FAULT_ENV`] asks for.
    ///
    /// ```
    /// assert_eq!(peregrine_bench::roundtrip::peregrine::Fault::from_env(), peregrine_bench::roundtrip::peregrine::Fault::None);
    /// ```
    pub fn from_env() -> Fault {
        match std::env::var(FAULT_ENV).as_deref() {
            Ok("clordid") => Fault::ClOrdId,
            Ok("price") => Fault::Price,
            Ok("seqgap") => Fault::SeqGap,
            _ => Fault::None,
        }
    }
}

/// The acceptor's application: fills nothing, acknowledges every order.
#[derive(Debug)]
pub(crate) struct Venue {
    reports: Arc<AtomicU64>,
    /// Raised once the session that logged on has logged out (the process then ends).
    logged_out: Arc<AtomicBool>,
    fault: Fault,
    /// What went wrong (a reject, a gap), if anything.
    pub(crate) failure: Option<String>,
}

impl Venue {
    /// A venue that counts its reports in `reports` and raises `logged_out` when its
    /// session ends.
    pub(crate) fn new(reports: Arc<AtomicU64>, logged_out: Arc<AtomicBool>, fault: Fault) -> Venue {
        Venue {
            reports,
            logged_out,
            fault,
            failure: None,
        }
    }

    /// Reports sent.
    pub(crate) fn reports(&self) -> u64 {
        self.reports.load(Ordering::Relaxed)
    }
}

impl MessageHandler<Outbox<'_>> for Venue {
    type Error = AppReject;

    fn on_new_order_single(
        &mut self,
        order: NewOrderSingle<'_>,
        out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        let mut fields = OrderFields::of(&order)?;
        let n = self.reports.fetch_add(1, Ordering::Relaxed) + 1;
        if self.fault == Fault::ClOrdId && n == FAULT_AT {
            fields.cl_ord_id = "WRONG";
        }
        if self.fault == Fault::Price && n == FAULT_AT {
            fields.price = Decimal::new(12344, 4);
        }
        out.send_typed::<ExecutionReport>(|er| write_report(er, &fields, n))?;
        Ok(())
    }
}

impl Application for Venue {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        fix44::crack(self, msg, out)
    }

    fn on_logout(&mut self, _id: &SessionId, _reason: &LogoutReason<'_>, _out: &mut Outbox<'_>) {
        self.logged_out.store(true, Ordering::Release);
    }

    fn on_event(&mut self, _id: &SessionId, event: &AppEvent<'_>, _out: &mut Outbox<'_>) {
        if self.failure.is_none() && is_failure(event) {
            self.failure = Some(format!("venue: {event}"));
        }
    }
}

/// Events that mean the run is not clean: rejects either way, gaps, resends, sequence
/// resets, garbled input, store failures.
fn is_failure(event: &AppEvent<'_>) -> bool {
    matches!(
        event,
        AppEvent::RejectSent(_)
            | AppEvent::RejectReceived(_)
            | AppEvent::GapDetected { .. }
            | AppEvent::ResendRequested { .. }
            | AppEvent::ResendRequestReceived { .. }
            | AppEvent::SequenceResetReceived { .. }
            | AppEvent::Garbled
            | AppEvent::StoreFailed
            | AppEvent::StoreDataLost { .. }
    )
}

/// What is wrong with an ExecutionReport the initiator received ([`check_reply`],
/// [`check_copies`]); the run fails with it.
///
/// ```
/// use peregrine_bench::roundtrip::peregrine::{CopiedField, ReplyError};
/// let e = ReplyError::NotCopied { field: CopiedField::Price, sent: "1.2345".into(), got: Some("1.2344".into()) };
/// assert_eq!(e.to_string(), "Price(44) 1.2344, 1.2345 was sent");
/// assert_eq!(ReplyError::OutOfSequence { last: 8, got: 11 }.to_string(), "ExecutionReport MsgSeqNum 11 after 8: out of sequence");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplyError {
    /// The report's ClOrdID(11) is not the order's in flight (`got`: `None` when missing
    /// or unreadable).
    ClOrdId {
        /// The order's ClOrdID.
        sent: String,
        /// The report's.
        got: Option<String>,
    },
    /// The report has no (readable) MsgSeqNum(34).
    NoMsgSeqNum,
    /// The report's MsgSeqNum(34) does not follow the previous report's by one.
    OutOfSequence {
        /// The previous report's MsgSeqNum.
        last: u64,
        /// This report's.
        got: u64,
    },
    /// The report did not copy a field of its order.
    NotCopied {
        /// The field.
        field: CopiedField,
        /// The order's value, as FIX text.
        sent: String,
        /// The report's (`None`: missing or unreadable).
        got: Option<String>,
    },
}

impl std::fmt::Display for ReplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplyError::ClOrdId { sent, got } => write!(
                f,
                "the ExecutionReport's ClOrdID is {got:?}, {sent:?} was sent"
            ),
            ReplyError::NoMsgSeqNum => f.write_str("an ExecutionReport without a MsgSeqNum"),
            ReplyError::OutOfSequence { last, got } => write!(
                f,
                "ExecutionReport MsgSeqNum {got} after {last}: out of sequence"
            ),
            ReplyError::NotCopied { field, sent, got } => match got {
                Some(got) => write!(f, "{field} {got}, {sent} was sent"),
                None => write!(f, "{field} missing, {sent} was sent"),
            },
        }
    }
}

impl std::error::Error for ReplyError {}

/// A field an ExecutionReport copies from its NewOrderSingle ([`check_copies`]).
///
/// ```
/// use peregrine_bench::roundtrip::peregrine::CopiedField;
/// assert_eq!((CopiedField::OrderQty.name(), CopiedField::OrderQty.tag()), ("OrderQty", 38));
/// assert_eq!(CopiedField::ClientId.to_string(), "ClientID(109)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopiedField {
    /// ClientID(109).
    ClientId,
    /// Price(44).
    Price,
    /// OrderQty(38).
    OrderQty,
    /// TransactTime(60).
    TransactTime,
}

impl CopiedField {
    /// The field's name in the FIX44 dictionary.
    ///
    /// ```
    /// assert_eq!(peregrine_bench::roundtrip::peregrine::CopiedField::TransactTime.name(), "TransactTime");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            CopiedField::ClientId => "ClientID",
            CopiedField::Price => "Price",
            CopiedField::OrderQty => "OrderQty",
            CopiedField::TransactTime => "TransactTime",
        }
    }

    /// The field's tag.
    ///
    /// ```
    /// assert_eq!(peregrine_bench::roundtrip::peregrine::CopiedField::Price.tag(), 44);
    /// ```
    pub fn tag(self) -> u32 {
        match self {
            CopiedField::ClientId => tags::CLIENT_ID,
            CopiedField::Price => tags::PRICE,
            CopiedField::OrderQty => tags::ORDER_QTY,
            CopiedField::TransactTime => tags::TRANSACT_TIME,
        }
    }
}

impl std::fmt::Display for CopiedField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({})", self.name(), self.tag())
    }
}

/// The initiator's check of a reply: its ClOrdID is the one sent (`sent`), and its
/// MsgSeqNum follows the previous report's (`last_seq`) by one. Returns the MsgSeqNum.
///
/// ```
/// use peregrine_bench::roundtrip::peregrine::{check_reply, ReplyError};
/// assert_eq!(check_reply(b"C7", Some(8), Some("C7"), Some(9)), Ok(9));
/// assert_eq!(check_reply(b"C7", None, Some("C7"), Some(2)), Ok(2));
/// assert_eq!(
///     check_reply(b"C7", Some(8), Some("C6"), Some(9)),
///     Err(ReplyError::ClOrdId { sent: "C7".into(), got: Some("C6".into()) })
/// );
/// assert_eq!(check_reply(b"C7", Some(8), Some("C7"), None), Err(ReplyError::NoMsgSeqNum));
/// let e = check_reply(b"C7", Some(8), Some("C7"), Some(11)).unwrap_err();
/// assert_eq!(e, ReplyError::OutOfSequence { last: 8, got: 11 });
/// assert!(e.to_string().contains("out of sequence"));
/// ```
///
/// # Errors
///
/// [`ReplyError::ClOrdId`], [`ReplyError::NoMsgSeqNum`] or [`ReplyError::OutOfSequence`]:
/// what is wrong (the run fails with it).
pub fn check_reply(
    sent: &[u8],
    last_seq: Option<u64>,
    cl_ord_id: Option<&str>,
    seq: Option<u64>,
) -> std::result::Result<u64, ReplyError> {
    if cl_ord_id.map(str::as_bytes) != Some(sent) {
        return Err(ReplyError::ClOrdId {
            sent: String::from_utf8_lossy(sent).into_owned(),
            got: cl_ord_id.map(str::to_string),
        });
    }
    match (last_seq, seq) {
        (_, None) => Err(ReplyError::NoMsgSeqNum),
        (Some(last), Some(got)) if got != last + 1 => Err(ReplyError::OutOfSequence { last, got }),
        (_, Some(s)) => Ok(s),
    }
}

/// What an ExecutionReport must copy from its order (`None`: missing or unreadable).
///
/// ```
/// use peregrine_bench::roundtrip::peregrine::Copies;
/// let nothing = Copies::default();
/// assert!(nothing.client_id.is_none() && nothing.price.is_none());
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Copies<'a> {
    /// ClientID(109).
    pub client_id: Option<&'a str>,
    /// Price(44).
    pub price: Option<Decimal>,
    /// OrderQty(38).
    pub order_qty: Option<Decimal>,
    /// TransactTime(60).
    pub transact_time: Option<UtcTimestamp>,
}

/// Checks that a report copied ClientID, Price and OrderQty of [`write_order`] and the
/// TransactTime `sent_at` of the order in flight (Decimals compare by value: `100`
/// and `100.0` are the same quantity).
///
/// ```
/// use peregrine_messages::codec::value::{Decimal, UtcTimestamp};
/// use peregrine_bench::order::CLIENT_ID;
/// use peregrine_bench::roundtrip::peregrine::{check_copies, CopiedField, Copies, ReplyError};
/// let at = UtcTimestamp::default();
/// let good = Copies { client_id: Some(CLIENT_ID), price: Some(Decimal::new(123450, 5)),
///     order_qty: Some(Decimal::new(100, 0)), transact_time: Some(at) };
/// assert_eq!(check_copies(&good, at), Ok(()));
/// let cheap = Copies { price: Some(Decimal::new(12344, 4)), ..good };
/// let e = check_copies(&cheap, at).unwrap_err();
/// assert!(matches!(e, ReplyError::NotCopied { field: CopiedField::Price, .. }));
/// assert_eq!(e.to_string(), "Price(44) 1.2344, 1.2345 was sent");
/// assert_eq!(
///     check_copies(&Copies { client_id: None, ..good }, at),
///     Err(ReplyError::NotCopied { field: CopiedField::ClientId, sent: CLIENT_ID.into(), got: None })
/// );
/// ```
///
/// # Errors
///
/// [`ReplyError::NotCopied`]: the first field that was not copied (the run fails with
/// it).
pub fn check_copies(
    got: &Copies<'_>,
    sent_at: UtcTimestamp,
) -> std::result::Result<(), ReplyError> {
    fn not_copied<T: std::fmt::Display>(
        field: CopiedField,
        sent: impl std::fmt::Display,
        got: Option<T>,
    ) -> std::result::Result<(), ReplyError> {
        Err(ReplyError::NotCopied {
            field,
            sent: sent.to_string(),
            got: got.map(|v| v.to_string()),
        })
    }
    if got.client_id != Some(CLIENT_ID) {
        return not_copied(CopiedField::ClientId, CLIENT_ID, got.client_id);
    }
    if got.price != Some(ORDER_PRICE) {
        return not_copied(CopiedField::Price, ORDER_PRICE, got.price);
    }
    if got.order_qty != Some(ORDER_QTY) {
        return not_copied(CopiedField::OrderQty, ORDER_QTY, got.order_qty);
    }
    if got.transact_time != Some(sent_at) {
        return not_copied(CopiedField::TransactTime, sent_at, got.transact_time);
    }
    Ok(())
}

/// The initiator's application: one order in flight, timed.
pub(crate) struct Client {
    warmup: u64,
    total: u64,
    answered: u64,
    t1: Instant,
    id: [u8; 24],
    id_len: usize,
    /// TransactTime(60) of the order in flight, which its report must copy.
    sent_at: UtcTimestamp,
    last_seq: Option<u64>,
    hist: Histogram<u64>,
    measured_from: Option<Instant>,
    measured_to: Option<Instant>,
    counting: bool,
    allocs: (u64, u64),
    done: Arc<AtomicBool>,
    /// What went wrong (a wrong reply, a sequence error, a reject), if anything.
    pub(crate) failure: Option<String>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("answered", &self.answered)
            .field("total", &self.total)
            .field("failure", &self.failure)
            .finish()
    }
}

impl Client {
    /// `warmup` + `iters` round trips; `done` is raised when they are over (or failed).
    /// `counting`: whether the process counts allocations
    /// ([`crate::alloc::is_counting`], asked by the caller: it allocates to find out).
    pub(crate) fn new(warmup: u64, iters: u64, counting: bool, done: Arc<AtomicBool>) -> Client {
        Client {
            warmup,
            total: warmup + iters,
            answered: 0,
            t1: Instant::now(),
            id: [0; 24],
            id_len: 0,
            sent_at: UtcTimestamp::default(),
            last_seq: None,
            hist: new_histogram(),
            measured_from: None,
            measured_to: None,
            counting,
            allocs: (0, 0),
            done,
            failure: None,
        }
    }

    /// Round trips answered (warm-up included).
    pub(crate) fn answered(&self) -> u64 {
        self.answered
    }

    /// The measured round trips (ns).
    pub(crate) fn histogram(&self) -> &Histogram<u64> {
        &self.hist
    }

    /// Seconds from the first measured send to the last measured reply.
    pub(crate) fn wall_secs(&self) -> f64 {
        match (self.measured_from, self.measured_to) {
            (Some(a), Some(b)) => (b - a).as_secs_f64(),
            _ => 0.0,
        }
    }

    /// Allocations per measured round trip in this process (`None`: not counted).
    pub(crate) fn allocs_per_op(&self) -> Option<f64> {
        let n = self.total - self.warmup;
        self.counting
            .then(|| (self.allocs.1 - self.allocs.0) as f64 / n.max(1) as f64)
    }

    fn fail(&mut self, why: String) {
        if self.failure.is_none() {
            self.failure = Some(why);
        }
        self.done.store(true, Ordering::Release);
    }

    fn send_next(&mut self, out: &mut Outbox<'_>) {
        if self.answered == self.warmup {
            if self.counting {
                self.allocs.0 = crate::alloc::allocations();
            }
            self.measured_from = Some(Instant::now());
        }
        self.id_len = order::id(&mut self.id, b'C', self.answered).len();
        let (id, len) = (self.id, self.id_len);
        let cl_ord_id = std::str::from_utf8(&id[..len]).unwrap_or("");
        self.t1 = Instant::now();
        let at = UtcTimestamp::now(TimePrecision::Millis);
        // As the wire carries it: milliseconds.
        self.sent_at = UtcTimestamp {
            nanos: at.nanos - at.nanos % 1_000_000,
            ..at
        };
        let sent = out.send_typed::<NewOrderSingle>(|o| write_order(o, cl_ord_id, at, true));
        if let Err(e) = sent {
            self.fail(format!("order {}: send failed: {e}", self.answered));
        }
    }
}

impl MessageHandler<Outbox<'_>> for Client {
    type Error = AppReject;

    fn on_execution_report(
        &mut self,
        report: ExecutionReport<'_>,
        out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        if self.done.load(Ordering::Relaxed) {
            return Ok(());
        }
        let checked = check_reply(
            &self.id[..self.id_len],
            self.last_seq,
            report.cl_ord_id().and_then(std::result::Result::ok),
            report.msg_seq_num().and_then(std::result::Result::ok),
        )
        .and_then(|seq| {
            check_copies(
                &Copies {
                    client_id: report
                        .typed_field::<&str>(tags::CLIENT_ID)
                        .and_then(|v| v.ok()),
                    price: report.price().and_then(|v| v.ok()),
                    order_qty: report.order_qty().and_then(|v| v.ok()),
                    transact_time: report.transact_time().and_then(|v| v.ok()),
                },
                self.sent_at,
            )
            .map(|()| seq)
        });
        let t2 = Instant::now();
        match checked {
            Ok(seq) => self.last_seq = Some(seq),
            Err(why) => {
                self.fail(format!("order {}: {why}", self.answered));
                return Ok(());
            }
        }
        if self.answered >= self.warmup {
            let ns = (t2 - self.t1).as_nanos() as u64;
            // Bounds 1 ns..100 s: clamp rather than lose a sample.
            let _ = self.hist.record(ns.clamp(1, 100_000_000_000));
        }
        self.answered += 1;
        if self.answered == self.total {
            self.measured_to = Some(t2);
            if self.counting {
                self.allocs.1 = crate::alloc::allocations();
            }
            self.done.store(true, Ordering::Release);
            return Ok(());
        }
        self.send_next(out);
        Ok(())
    }
}

impl Application for Client {
    fn on_logon(&mut self, _id: &SessionId, out: &mut Outbox<'_>) {
        if self.answered == 0 {
            self.send_next(out);
        }
    }

    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> std::result::Result<(), AppReject> {
        fix44::crack(self, msg, out)
    }

    fn on_logout(&mut self, _id: &SessionId, reason: &LogoutReason<'_>, _out: &mut Outbox<'_>) {
        if self.answered < self.total {
            self.fail(format!(
                "logged out after {} of {} round trips: {reason}",
                self.answered, self.total
            ));
        }
    }

    fn on_event(&mut self, _id: &SessionId, event: &AppEvent<'_>, _out: &mut Outbox<'_>) {
        if is_failure(event) {
            self.fail(format!("client: {event}"));
        }
    }
}

/// The acceptor process: listens, says `ready`, answers until its session logs out.
///
/// # Errors
///
/// [`Error::Engine`] when the engine does not start or fails; [`Error::Check`] when the
/// venue saw a reject, a gap or a resend.
pub(crate) fn acceptor_main(args: &PeerArgs) -> Result<()> {
    let settings = settings(
        args.config,
        super::Role::Acceptor,
        args.port,
        &args.dir,
        &args.dict,
    )?;
    let logged_out = Arc::new(AtomicBool::new(false));
    let reports = Arc::new(AtomicU64::new(0));
    let fault = Fault::from_env();
    let (flag, count) = (logged_out.clone(), reports.clone());
    let venue = builder(settings, args)
        .start(move |_| Venue::new(count.clone(), flag.clone(), fault))
        .map_err(Error::engine("cannot start the venue"))?;
    say_ready();
    let mut gap_made = false;
    while !logged_out.load(Ordering::Acquire) && !venue.is_finished() {
        if fault == Fault::SeqGap && !gap_made && reports.load(Ordering::Relaxed) >= FAULT_AT {
            gap_made = true;
            let jump = Command::SetSeqNum {
                session: ACCEPTOR_SESSION.into(),
                next_sender: Some(1_000_000),
                next_target: None,
            };
            // Without the gap the run would not test what it says: fail loudly.
            venue
                .handle()
                .call(jump, Duration::from_secs(5))
                .map_err(Error::engine("cannot make the sequence gap"))?
                .map_err(Error::engine("cannot make the sequence gap"))?;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let engine = venue.stop().map_err(Error::engine("the venue failed"))?;
    let app = engine
        .application(ACCEPTOR_SESSION)
        .ok_or_else(|| Error::failed_check("the venue has no session"))?;
    match &app.failure {
        Some(f) => Err(Error::failed_check(f.clone())),
        None => {
            eprintln!("peregrine venue: {} reports sent", app.reports());
            Ok(())
        }
    }
}

/// The initiator process: logs on, runs the round trips, logs out, prints its
/// [`ResultLine`].
///
/// # Errors
///
/// [`Error::Engine`] when the engine does not start, fails, or the round trips do not end
/// within [`PeerArgs::patience`]; [`Error::Check`] for a wrong reply, a sequence error
/// or a reject.
pub(crate) fn initiator_main(args: &PeerArgs) -> Result<()> {
    let settings = settings(
        args.config,
        super::Role::Initiator,
        args.port,
        &args.dir,
        &args.dict,
    )?;
    let counting = crate::alloc::is_counting();
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    let (warmup, iters) = (args.warmup, args.iters);
    let client = builder(settings, args)
        .start(move |_| Client::new(warmup, iters, counting, flag.clone()))
        .map_err(Error::engine("cannot start the client"))?;
    let deadline = Instant::now() + args.patience();
    while !done.load(Ordering::Acquire) && !client.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    // A graceful stop: Logout, answered by the venue, then the engine back.
    let engine = client.stop().map_err(Error::engine("the client failed"))?;
    let app = engine
        .application(INITIATOR_SESSION)
        .ok_or_else(|| Error::failed_check("the client has no session"))?;
    if let Some(f) = &app.failure {
        return Err(Error::failed_check(f.clone()));
    }
    if app.answered() < warmup + iters {
        return Err(Error::Engine {
            what: format!(
                "{} of {} round trips answered within {:?}",
                app.answered(),
                warmup + iters,
                args.patience()
            ),
            source: None,
        });
    }
    ResultLine::new(
        "peregrine",
        args.config.name(),
        app.histogram(),
        app.wall_secs(),
        app.allocs_per_op(),
        settings_text(args.config),
    )
    .print()
}

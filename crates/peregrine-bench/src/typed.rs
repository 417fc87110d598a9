//! Experiment 2 (BENCHMARKS.md §2): write and read, through the typed message API, the four
//! messages of `peers/typed-messages.md` (a MarketDataRequest with two groups, a
//! QuoteStatusRequest with Parties, the same with nested PartySubIDs, a NewOrderMultileg whose
//! legs carry nested groups); Peregrine (the generated `peregrine_messages::fix44`), QuickFIX
//! C++ and QuickFIX/J interleaved, several runs, medians reported.
//!
//! * `write_*`: build the message with the typed builders from typed values (timestamps from a
//!   `UtcTimestamp`, quantities from `Decimal`, enums) into a reused `EncodeBuffer`, BodyLength
//!   and CheckSum computed.
//! * `read_*`: decode the canonical bytes with BodyLength, CheckSum and syntax validation,
//!   wrap them in the typed view and read every field — header 35, 49, 56, 34, 52, every body
//!   field, every group count and every field of every entry, nested ones included — through
//!   the typed getters, converted to the field's type (FLOAT/QTY as exact `Decimal`, where the
//!   peers produce a `double`).
//!
//! Before timing, Peregrine's side checks that every written message is exactly the canonical
//! bytes and that every read yields the canonical values.

use crate::measure::{measure, timer_overhead_ns};
use crate::peers::Rounds;
use crate::report::{self, Aggregate, Record};
use crate::{Error, Options, RunSettings, Smoke};
use peregrine_codec::value::{Decimal, TimePrecision, UtcTimestamp};
use peregrine_codec::{Decoder, DecoderConfig, EncodeBuffer};
use peregrine_messages::fix44::enums::{
    MDEntryType, OrdType, PartyIDSource, PartyRole, PartySubIDType, Side, SubscriptionRequestType,
};
use peregrine_messages::fix44::prelude::*;
use peregrine_messages::fix44::{MarketDataRequest, NewOrderMultileg, QuoteStatusRequest};
use peregrine_messages::{FieldError, FixEnum};
use std::hint::black_box;
use std::hint::black_box as bb;

/// The case names, in report order.
///
/// ```
/// use peregrine_bench::typed::{CANONICAL, CASES};
/// // A write and a read case for each canonical message.
/// assert_eq!(CASES.len(), 2 * CANONICAL.len());
/// ```
pub const CASES: [&str; 8] = [
    "write_mdr",
    "write_qsr_group",
    "write_qsr_nested",
    "write_multileg",
    "read_mdr",
    "read_qsr_group",
    "read_qsr_nested",
    "read_multileg",
];

/// The canonical messages of `peers/typed-messages.md` (`|` for SOH), by case suffix.
///
/// ```
/// use peregrine_bench::typed::{CANONICAL, CASES};
/// for (name, _) in CANONICAL {
///     assert!(CASES.contains(&format!("read_{name}").as_str()));
/// }
/// ```
pub const CANONICAL: [(&str, &str); 4] = [
    ("mdr", "8=FIX.4.4|9=119|35=V|49=SENDER|56=TARGET|34=1|52=20240115-10:30:00.000|262=MDR0001|263=1|264=1|267=2|269=0|269=1|146=2|55=AAPL|55=MSFT|10=010|"),
    ("qsr_group", "8=FIX.4.4|9=127|35=a|49=SENDER|56=TARGET|34=1|52=20240115-10:30:00.000|649=QSR0001|55=AAPL|453=2|448=PARTY1|447=D|452=1|448=PARTY2|447=D|452=3|10=163|"),
    ("qsr_nested", "8=FIX.4.4|9=203|35=a|49=SENDER|56=TARGET|34=1|52=20240115-10:30:00.000|649=QSR0001|55=AAPL|453=2|448=PARTY1|447=D|452=1|802=2|523=SUB11|803=1|523=SUB12|803=2|448=PARTY2|447=D|452=3|802=2|523=SUB21|803=1|523=SUB22|803=2|10=112|"),
    ("multileg", "8=FIX.4.4|9=317|35=AB|49=SENDER|56=TARGET|34=1|52=20240115-10:30:00.000|11=MLEG0001|54=1|55=SPRD|555=2|600=AAPL|623=1|624=1|683=1|688=MINQTY|689=100|539=1|524=NPTY1|525=D|538=24|804=1|545=NSUB1|805=1|600=MSFT|623=1|624=2|683=1|688=MINQTY|689=200|539=1|524=NPTY2|525=D|538=24|804=1|545=NSUB2|805=1|60=20240115-10:30:00.000|38=10|40=1|10=178|"),
];

/// The canonical wire bytes of one message (`mdr`, `qsr_group`, `qsr_nested`, `multileg`).
///
/// ```
/// let mdr = peregrine_bench::typed::canonical("mdr");
/// assert!(mdr.starts_with(b"8=FIX.4.4\x019=119\x0135=V\x01"));
/// ```
///
/// # Panics
///
/// For any other name.
pub fn canonical(name: &str) -> Vec<u8> {
    let (_, s) = CANONICAL
        .iter()
        .find(|(n, _)| *n == name)
        .expect("known message");
    s.replace('|', "\x01").into_bytes()
}

/// Settings of one invocation: only the settings every benchmark has ([`RunSettings`]).
///
/// ```
/// use peregrine_bench::typed::TypedBenchConfig;
/// let cfg = TypedBenchConfig::default();
/// assert_eq!((cfg.common.runs, cfg.common.iters, cfg.common.warmup), (5, 200_000, 300_000));
/// assert_eq!(cfg.common.peers, ["quickfix-cpp", "quickfixj"]);
/// ```
#[derive(Clone, Debug)]
pub struct TypedBenchConfig {
    /// Runs, operations per case (warm-up: the peers' JIT), peers (`quickfix-cpp`,
    /// `quickfixj`), where the JSON goes.
    pub common: RunSettings,
}

impl Default for TypedBenchConfig {
    fn default() -> Self {
        TypedBenchConfig {
            common: RunSettings::new(
                "typed",
                200_000,
                300_000,
                Smoke::MICRO,
                &["quickfix-cpp", "quickfixj"],
            ),
        }
    }
}

impl TypedBenchConfig {
    /// Applies command-line options: `--smoke` ([`Smoke::MICRO`], in [`RunSettings::smoke`]), then the others
    /// ([`RunSettings::apply`]).
    ///
    /// ```
    /// let mut cfg = peregrine_bench::typed::TypedBenchConfig::default();
    /// cfg.apply(&peregrine_bench::Options { smoke: true, ..Default::default() });
    /// assert_eq!((cfg.common.runs, cfg.common.iters, cfg.common.warmup), (1, 2_000, 2_000));
    /// ```
    pub fn apply(&mut self, options: &Options<'_>) {
        self.common.apply(options);
    }
}

/// The typed values the writers start from (what an application holds).
///
/// ```
/// use peregrine_bench::typed::{write_mdr, Values};
/// use peregrine_codec::value::{TimePrecision, UtcTimestamp};
///
/// let later = Values {
///     ts: UtcTimestamp::from_unix_nanos(1_705_314_601_000_000_000, TimePrecision::Millis),
///     ..Values::default()
/// };
/// let mut buf = peregrine_codec::EncodeBuffer::with_capacity(512);
/// let bytes = write_mdr(&mut buf, &later);
/// assert!(bytes.windows(24).any(|w| w == b"52=20240115-10:30:01.000"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Values {
    /// SendingTime and TransactTime.
    pub ts: UtcTimestamp,
    /// LegRatioQty.
    pub ratio: Decimal,
    /// OrderQty.
    pub qty: Decimal,
}

impl Default for Values {
    fn default() -> Self {
        Values {
            ts: UtcTimestamp::from_unix_nanos(1_705_314_600_000_000_000, TimePrecision::Millis),
            ratio: Decimal::new(1, 0),
            qty: Decimal::new(10, 0),
        }
    }
}

// Every value goes through `black_box` (`bb`), literals included: an application's
// values are not constants, and with the field writes inlined the compiler would otherwise
// fold constant fields, bytes and checksum, into the builder.
fn header<'b, B: StandardHeaderBuilder<'b>>(b: &mut B, v: &Values) {
    b.sender_comp_id(bb("SENDER"))
        .target_comp_id(bb("TARGET"))
        .msg_seq_num(bb(1))
        .sending_time(v.ts);
}

/// (a) the MarketDataRequest.
///
/// ```
/// use peregrine_bench::typed::{canonical, write_mdr, Values};
/// let mut buf = peregrine_codec::EncodeBuffer::with_capacity(512);
/// assert_eq!(write_mdr(&mut buf, &Values::default()), canonical("mdr").as_slice());
/// ```
pub fn write_mdr<'b>(buf: &'b mut EncodeBuffer, v: &Values) -> &'b [u8] {
    let mut b = MarketDataRequest::builder(buf);
    header(&mut b, v);
    b.md_req_id(bb("MDR0001"))
        .subscription_request_type(bb(SubscriptionRequestType::SnapshotPlusUpdates))
        .market_depth(bb(1));
    let mut types = b.no_md_entry_types(bb(2));
    types.entry().md_entry_type(bb(MDEntryType::Bid));
    types.entry().md_entry_type(bb(MDEntryType::Offer));
    let mut syms = b.no_related_sym(bb(2));
    syms.entry().symbol(bb("AAPL"));
    syms.entry().symbol(bb("MSFT"));
    b.finish()
}

/// (b) and (c): the QuoteStatusRequest with Parties, nested PartySubIDs if `nested`.
///
/// ```
/// use peregrine_bench::typed::{canonical, write_qsr, Values};
/// let mut buf = peregrine_codec::EncodeBuffer::with_capacity(512);
/// assert_eq!(write_qsr(&mut buf, &Values::default(), true), canonical("qsr_nested").as_slice());
/// ```
pub fn write_qsr<'b>(buf: &'b mut EncodeBuffer, v: &Values, nested: bool) -> &'b [u8] {
    let mut b = QuoteStatusRequest::builder(buf);
    header(&mut b, v);
    b.quote_status_req_id(bb("QSR0001")).symbol(bb("AAPL"));
    let mut parties = b.no_party_ids(bb(2));
    for (id, role, subs) in bb([
        ("PARTY1", PartyRole::ExecutingFirm, ["SUB11", "SUB12"]),
        ("PARTY2", PartyRole::ClientId, ["SUB21", "SUB22"]),
    ]) {
        let p = parties.entry();
        p.party_id(id)
            .party_id_source(bb(PartyIDSource::ProprietaryCustomCode))
            .party_role(role);
        if nested {
            let mut s = p.no_party_sub_ids(bb(2));
            s.entry()
                .party_sub_id(subs[0])
                .party_sub_id_type(bb(PartySubIDType::Firm));
            s.entry()
                .party_sub_id(subs[1])
                .party_sub_id_type(bb(PartySubIDType::Person));
        }
    }
    b.finish()
}

/// (d) the NewOrderMultileg.
///
/// ```
/// use peregrine_bench::typed::{canonical, write_multileg, Values};
/// let mut buf = peregrine_codec::EncodeBuffer::with_capacity(512);
/// assert_eq!(write_multileg(&mut buf, &Values::default()), canonical("multileg").as_slice());
/// ```
pub fn write_multileg<'b>(buf: &'b mut EncodeBuffer, v: &Values) -> &'b [u8] {
    let mut b = NewOrderMultileg::builder(buf);
    header(&mut b, v);
    b.cl_ord_id(bb("MLEG0001"))
        .side(bb(Side::Buy))
        .symbol(bb("SPRD"));
    let mut legs = b.no_legs(bb(2));
    for (sym, side, stip, party, sub) in bb([
        ("AAPL", '1', "100", "NPTY1", "NSUB1"),
        ("MSFT", '2', "200", "NPTY2", "NSUB2"),
    ]) {
        let leg = legs.entry();
        leg.leg_symbol(sym).leg_ratio_qty(v.ratio).leg_side(side);
        leg.no_leg_stipulations(bb(1))
            .entry()
            .leg_stipulation_type(bb("MINQTY"))
            .leg_stipulation_value(stip);
        let mut parties = leg.no_nested_party_ids(bb(1));
        let p = parties.entry();
        p.nested_party_id(party)
            .nested_party_id_source(bb('D'))
            .nested_party_role(bb(24));
        p.no_nested_party_sub_ids(bb(1))
            .entry()
            .nested_party_sub_id(sub)
            .nested_party_sub_id_type(bb(1));
    }
    b.transact_time(v.ts)
        .order_qty(v.qty)
        .ord_type(bb(OrdType::Market));
    b.finish()
}

// Folding what was read into a number, so that nothing is optimised away and a missing or
// malformed value shows in the checks (every fold of a missing value is 0, of an error 1).

fn s(x: Option<Result<&str, FieldError>>) -> u64 {
    x.map_or(0, |r| {
        r.map_or(1, |s| 2 + s.len() as u64 + s.as_bytes()[0] as u64)
    })
}
fn i(x: Option<Result<i64, FieldError>>) -> u64 {
    x.map_or(0, |r| r.map_or(1, |n| 2 + n as u64))
}
fn u(x: Option<Result<u64, FieldError>>) -> u64 {
    x.map_or(0, |r| r.map_or(1, |n| 2 + n))
}
fn c(x: Option<Result<char, FieldError>>) -> u64 {
    x.map_or(0, |r| r.map_or(1, |c| 2 + c as u64))
}
fn d(x: Option<Result<Decimal, FieldError>>) -> u64 {
    x.map_or(0, |r| r.map_or(1, |d| 2 + d.to_f64() as u64))
}
fn t(x: Option<Result<UtcTimestamp, FieldError>>) -> u64 {
    x.map_or(0, |r| {
        r.map_or(1, |t| {
            2 + t.date.day as u64 + t.hour as u64 + t.nanos as u64
        })
    })
}
fn e<E: FixEnum>(x: Option<Result<E, FieldError>>) -> u64 {
    x.map_or(0, |r| r.map_or(1, |v| 2 + v.as_bytes()[0] as u64))
}

fn read_header<'a, V: StandardHeader<'a>>(v: &V) -> u64 {
    e(v.msg_type())
        + s(v.sender_comp_id())
        + s(v.target_comp_id())
        + u(v.msg_seq_num())
        + t(v.sending_time())
}

/// Decodes and reads the MarketDataRequest; `None` if it does not decode.
///
/// ```
/// use peregrine_bench::typed::{canonical, read_mdr};
/// use peregrine_codec::{Decoder, DecoderConfig};
/// let mut decoder = Decoder::new(DecoderConfig::default());
/// assert!(read_mdr(&mut decoder, &canonical("mdr")).is_some());
/// assert!(read_mdr(&mut decoder, b"8=FIX.4.4\x01").is_none());
/// ```
pub fn read_mdr(decoder: &mut Decoder, msg: &[u8]) -> Option<u64> {
    let m = MarketDataRequest::from_view(decoder.decode(msg).ok()?)?;
    let mut sum =
        read_header(&m) + s(m.md_req_id()) + e(m.subscription_request_type()) + i(m.market_depth());
    let types = m.no_md_entry_types();
    sum += u(types.declared_count());
    for g in types {
        sum += e(g.md_entry_type());
    }
    let syms = m.no_related_sym();
    sum += u(syms.declared_count());
    for g in syms {
        sum += s(g.symbol());
    }
    Some(sum)
}

/// Decodes and reads the QuoteStatusRequest (with or without nested PartySubIDs).
///
/// ```
/// use peregrine_bench::typed::{canonical, read_qsr};
/// use peregrine_codec::{Decoder, DecoderConfig};
/// let mut decoder = Decoder::new(DecoderConfig::default());
/// let nested = read_qsr(&mut decoder, &canonical("qsr_nested")).unwrap();
/// assert!(read_qsr(&mut decoder, &canonical("qsr_group")).unwrap() < nested);
/// ```
pub fn read_qsr(decoder: &mut Decoder, msg: &[u8]) -> Option<u64> {
    let m = QuoteStatusRequest::from_view(decoder.decode(msg).ok()?)?;
    let mut sum = read_header(&m) + s(m.quote_status_req_id()) + s(m.symbol());
    let parties = m.no_party_ids();
    sum += u(parties.declared_count());
    for p in parties {
        sum += s(p.party_id()) + e(p.party_id_source()) + e(p.party_role());
        let subs = p.no_party_sub_ids();
        sum += u(subs.declared_count());
        for sub in subs {
            sum += s(sub.party_sub_id()) + e(sub.party_sub_id_type());
        }
    }
    Some(sum)
}

/// Decodes and reads the NewOrderMultileg.
///
/// ```
/// use peregrine_bench::typed::{canonical, read_multileg};
/// use peregrine_codec::{Decoder, DecoderConfig};
/// let mut decoder = Decoder::new(DecoderConfig::default());
/// assert!(read_multileg(&mut decoder, &canonical("multileg")).is_some());
/// ```
pub fn read_multileg(decoder: &mut Decoder, msg: &[u8]) -> Option<u64> {
    let m = NewOrderMultileg::from_view(decoder.decode(msg).ok()?)?;
    let mut sum = read_header(&m) + s(m.cl_ord_id()) + e(m.side()) + s(m.symbol());
    let legs = m.no_legs();
    sum += u(legs.declared_count());
    for leg in legs {
        sum += s(leg.leg_symbol()) + d(leg.leg_ratio_qty()) + c(leg.leg_side());
        let stips = leg.no_leg_stipulations();
        sum += u(stips.declared_count());
        for st in stips {
            sum += s(st.leg_stipulation_type()) + s(st.leg_stipulation_value());
        }
        let parties = leg.no_nested_party_ids();
        sum += u(parties.declared_count());
        for p in parties {
            sum +=
                s(p.nested_party_id()) + c(p.nested_party_id_source()) + i(p.nested_party_role());
            let subs = p.no_nested_party_sub_ids();
            sum += u(subs.declared_count());
            for sub in subs {
                sum += s(sub.nested_party_sub_id()) + i(sub.nested_party_sub_id_type());
            }
        }
    }
    sum += t(m.transact_time()) + d(m.order_qty()) + e(m.ord_type());
    Some(sum)
}

/// What the reads must fold to, computed from the values of `typed-messages.md` with the
/// same folds (independently of the decoder).
fn expected_reads() -> [u64; 3] {
    let v = Values::default();
    let hdr = e(Some(Ok(
        peregrine_messages::fix44::enums::MsgType::Marketdatarequest,
    ))) + s(Some(Ok("SENDER")))
        + s(Some(Ok("TARGET")))
        + u(Some(Ok(1)))
        + t(Some(Ok(v.ts)));
    let mdr = hdr
        + s(Some(Ok("MDR0001")))
        + e(Some(Ok(SubscriptionRequestType::SnapshotPlusUpdates)))
        + i(Some(Ok(1)))
        + u(Some(Ok(2)))
        + e(Some(Ok(MDEntryType::Bid)))
        + e(Some(Ok(MDEntryType::Offer)))
        + u(Some(Ok(2)))
        + s(Some(Ok("AAPL")))
        + s(Some(Ok("MSFT")));
    let hdr_a =
        hdr - e(Some(Ok(
            peregrine_messages::fix44::enums::MsgType::Marketdatarequest,
        ))) + e(Some(Ok(
            peregrine_messages::fix44::enums::MsgType::Quotestatusrequest,
        )));
    let party = |id: &str, role: PartyRole| {
        s(Some(Ok(id))) + e(Some(Ok(PartyIDSource::ProprietaryCustomCode))) + e(Some(Ok(role)))
    };
    let qsr_nested = hdr_a
        + s(Some(Ok("QSR0001")))
        + s(Some(Ok("AAPL")))
        + u(Some(Ok(2)))
        + party("PARTY1", PartyRole::ExecutingFirm)
        + party("PARTY2", PartyRole::ClientId)
        + 2 * u(Some(Ok(2)))
        + ["SUB11", "SUB12", "SUB21", "SUB22"]
            .iter()
            .map(|x| s(Some(Ok(*x))))
            .sum::<u64>()
        + 2 * (e(Some(Ok(PartySubIDType::Firm))) + e(Some(Ok(PartySubIDType::Person))));
    let hdr_ab =
        hdr - e(Some(Ok(
            peregrine_messages::fix44::enums::MsgType::Marketdatarequest,
        ))) + e(Some(Ok(
            peregrine_messages::fix44::enums::MsgType::Newordermultileg,
        )));
    let mut multileg = hdr_ab
        + s(Some(Ok("MLEG0001")))
        + e(Some(Ok(Side::Buy)))
        + s(Some(Ok("SPRD")))
        + u(Some(Ok(2)))
        + t(Some(Ok(v.ts)))
        + d(Some(Ok(v.qty)))
        + e(Some(Ok(OrdType::Market)));
    for (sym, side, stip, party, sub) in [
        ("AAPL", '1', "100", "NPTY1", "NSUB1"),
        ("MSFT", '2', "200", "NPTY2", "NSUB2"),
    ] {
        multileg += s(Some(Ok(sym))) + d(Some(Ok(v.ratio))) + c(Some(Ok(side)));
        multileg += u(Some(Ok(1))) + s(Some(Ok("MINQTY"))) + s(Some(Ok(stip)));
        multileg += u(Some(Ok(1))) + s(Some(Ok(party))) + c(Some(Ok('D'))) + i(Some(Ok(24)));
        multileg += u(Some(Ok(1))) + s(Some(Ok(sub))) + i(Some(Ok(1)));
    }
    [mdr, qsr_nested, multileg]
}

/// Checks Peregrine's side before timing: written bytes are the canonical bytes, reads give
/// the canonical values, and a wrong CheckSum is rejected.
///
/// ```
/// peregrine_bench::typed::check()?;
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Check`] naming the first message that is written or read wrong.
pub fn check() -> crate::Result<()> {
    let v = Values::default();
    let mut buf = EncodeBuffer::with_capacity(512);
    let written: [(&str, Vec<u8>); 4] = [
        ("mdr", write_mdr(&mut buf, &v).to_vec()),
        ("qsr_group", write_qsr(&mut buf, &v, false).to_vec()),
        ("qsr_nested", write_qsr(&mut buf, &v, true).to_vec()),
        ("multileg", write_multileg(&mut buf, &v).to_vec()),
    ];
    for (name, bytes) in &written {
        if *bytes != canonical(name) {
            return Err(Error::failed_check(format!(
                "written {name} differs from the canonical bytes:\n  {}\n  {}",
                String::from_utf8_lossy(bytes).replace('\x01', "|"),
                String::from_utf8_lossy(&canonical(name)).replace('\x01', "|")
            )));
        }
    }
    let mut decoder = Decoder::new(DecoderConfig::default());
    let [mdr, qsr_nested, multileg] = expected_reads();
    let got = [
        ("mdr", read_mdr(&mut decoder, &canonical("mdr")), mdr),
        (
            "qsr_nested",
            read_qsr(&mut decoder, &canonical("qsr_nested")),
            qsr_nested,
        ),
        (
            "multileg",
            read_multileg(&mut decoder, &canonical("multileg")),
            multileg,
        ),
    ];
    for (name, got, want) in got {
        if got != Some(want) {
            return Err(Error::failed_check(format!(
                "reading {name} gives {got:?}, expected {want}"
            )));
        }
    }
    let mut bad = canonical("mdr");
    let n = bad.len();
    bad[n - 2] = if bad[n - 2] == b'9' { b'8' } else { b'9' };
    if read_mdr(&mut decoder, &bad).is_some() {
        return Err(Error::failed_check("a wrong CheckSum was accepted"));
    }
    Ok(())
}

/// Runs Peregrine's side of every case once, after [`check`].
///
/// ```
/// let records = peregrine_bench::typed::run_peregrine(50, 10)?;
/// assert_eq!(records.len(), peregrine_bench::typed::CASES.len());
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// What [`check`] returns.
pub fn run_peregrine(iters: u64, warmup: u64) -> crate::Result<Vec<Record>> {
    check()?;
    let overhead = timer_overhead_ns();
    let mut decoder = Decoder::new(DecoderConfig::default());
    let mut out = EncodeBuffer::with_capacity(512);
    let values = Values::default();
    let [mdr, qsr_group, qsr_nested, multileg] = CANONICAL.map(|(n, _)| canonical(n));
    let settings = "generated fix44 typed API; write: typed builders into a reused EncodeBuffer \
                    (BodyLength+CheckSum computed); read: Decoder with BodyLength+CheckSum+syntax \
                    validation, reused, typed getters (FLOAT/QTY as exact Decimal)";
    let mut records = Vec::new();
    let mut push = |case: &str, f: &mut dyn FnMut() -> u64| {
        records.push(measure(warmup, iters, overhead, &mut *f).record(case, settings));
    };
    push("write_mdr", &mut || {
        write_mdr(&mut out, black_box(&values)).len() as u64
    });
    push("write_qsr_group", &mut || {
        write_qsr(&mut out, black_box(&values), false).len() as u64
    });
    push("write_qsr_nested", &mut || {
        write_qsr(&mut out, black_box(&values), true).len() as u64
    });
    push("write_multileg", &mut || {
        write_multileg(&mut out, black_box(&values)).len() as u64
    });
    push("read_mdr", &mut || {
        read_mdr(&mut decoder, black_box(&mdr)).unwrap_or(0)
    });
    push("read_qsr_group", &mut || {
        read_qsr(&mut decoder, black_box(&qsr_group)).unwrap_or(0)
    });
    push("read_qsr_nested", &mut || {
        read_qsr(&mut decoder, black_box(&qsr_nested)).unwrap_or(0)
    });
    push("read_multileg", &mut || {
        read_multileg(&mut decoder, black_box(&multileg)).unwrap_or(0)
    });
    Ok(records)
}

/// Runs the whole experiment: `runs` rounds, each running Peregrine then each peer, and
/// returns the aggregates (also printed and written as JSON).
///
/// ```no_run
/// use peregrine_bench::typed::{run, TypedBenchConfig};
/// let mut cfg = TypedBenchConfig::default();
/// (cfg.common.runs, cfg.common.peers) = (1, vec![]);
/// let aggs = run(&cfg)?;
/// println!("{}", peregrine_bench::typed::targets(&aggs));
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Peer`] for a peer that is unknown, not built or fails; what [`check`]
/// returns; [`Error::Output`] when the JSON cannot be written.
pub fn run(cfg: &TypedBenchConfig) -> crate::Result<Vec<Aggregate>> {
    let rounds = Rounds::micro("typed", &CASES, &cfg.common, "typed_bench", "TypedBench")?;
    let all = rounds.run(|| run_peregrine(rounds.iters, rounds.warmup))?;
    let extra = serde_json::json!({"messages": "peers/typed-messages.md"});
    let aggs = rounds.report(&all, &cfg.common.out, "read_mdr", extra)?;
    println!("{}", targets(&aggs));
    println!("results: {}", cfg.common.out.display());
    Ok(aggs)
}

/// The targets of the issue as lines of "met / missed", from the aggregates: every case at
/// least 10× faster (mean) than the faster peer, and no allocation.
///
/// ```
/// # use peregrine_bench::report::{Record, Stats};
/// # fn rec(engine: &str, case: &str, mean: f64) -> Record {
/// #     Record {
/// #         engine: engine.into(),
/// #         case: case.into(),
/// #         unit: "ns".into(),
/// #         stats: Stats { mean, p50: mean, ..Stats::default() },
/// #         allocs_per_op: Some(0.0),
/// #         settings: String::new(),
/// #     }
/// # }
/// use peregrine_bench::{report::aggregate, typed::targets};
///
/// let aggs = aggregate(&[
///     rec("peregrine", "read_mdr", 100.0),
///     rec("quickfix-cpp", "read_mdr", 900.0),
///     rec("quickfixj", "read_mdr", 2_000.0),
/// ]);
/// let text = targets(&aggs);
/// assert!(text.contains("read_mdr: 100 ns, 9.0× faster than the faster peer (quickfix-cpp, 900 ns) (target ≥ 10×) MISSED"));
/// assert!(text.contains("allocations per operation (peregrine, all cases): 0 met"));
/// ```
pub fn targets(aggs: &[Aggregate]) -> String {
    let mut s = String::from("Targets (ratios of medians of the means in this run):\n");
    for case in CASES {
        let Some(ours) = report::find(aggs, "peregrine", case) else {
            continue;
        };
        let best = ["quickfix-cpp", "quickfixj"]
            .iter()
            .filter_map(|p| report::find(aggs, p, case).map(|a| (*p, a.stats.mean)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((peer, mean)) = best {
            let ratio = mean / ours.stats.mean;
            s.push_str(&format!(
                "  {case}: {:.0} ns, {ratio:.1}× faster than the faster peer ({peer}, {mean:.0} ns) (target ≥ 10×) {}\n",
                ours.stats.mean,
                if ratio >= 10.0 { "met" } else { "MISSED" }
            ));
        }
    }
    s.push_str(&crate::peers::allocations_target(aggs, "operation"));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peregrine_side_checks_pass() {
        check().unwrap();
    }

    #[test]
    fn qsr_group_reads_without_sub_ids() {
        let mut decoder = Decoder::new(DecoderConfig::default());
        let with = read_qsr(&mut decoder, &canonical("qsr_nested")).unwrap();
        let without = read_qsr(&mut decoder, &canonical("qsr_group")).unwrap();
        assert!(without < with);
    }
}

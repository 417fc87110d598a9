//! Experiment 1 (BENCHMARKS.md §1): parse with full validation and read four
//! fields, parse alone, and encode, on the two reference messages; Peregrine,
//! QuickFIX C++ and QuickFIX/J interleaved, several runs, medians reported.
//! Peregrine alone also parses and validates the ExecutionReport against FIX44
//! (`er_validate`, as a session does it: with its shape cache, which has seen this
//! message's shape; `er_validate_full`: every message walked in full, as on first
//! sight of a shape), reported beside `er_parse`: the issue's bound is that validation
//! costs at most as much again as parsing. And what the message log costs the engine
//! thread per message (`log_message`, `log_turn`: [`crate::roundtrip::log_cost`], issue 31).

use crate::measure::{measure, timer_overhead_ns};
use crate::peers::Rounds;
use crate::report::{self, Aggregate, Record};
use crate::{Error, Options, Result, RunSettings, Smoke};
use peregrine_codec::value::{Decimal, TimePrecision, UtcTimestamp};
use peregrine_codec::{Decoder, DecoderConfig, EncodeBuffer};
use peregrine_dict::{ShapeCache, ValidationSettings, Validator};
use std::hint::black_box;

/// The case names every engine runs (the peers are asked for these), in report order.
///
/// ```
/// use peregrine_bench::codec::{CASES, PEREGRINE_ONLY_CASES};
/// assert!(CASES.contains(&"er_parse") && !CASES.contains(&PEREGRINE_ONLY_CASES[0]));
/// ```
pub const CASES: [&str; 4] = [
    "er_parse_read4",
    "nos_parse_read4",
    "er_parse",
    "nos_encode",
];

/// Peregrine-only cases (never passed to the peers): the ExecutionReport decoded and then
/// validated against FIX44 with QuickFIX's default settings, timed together (decode +
/// validate), reported right after `er_parse`: `er_validate` the way a session validates
/// (`Validator::validate_with` and the session's `ShapeCache`: a known shape has only its
/// values checked), `er_validate_full` every message walked in full (`Validator::validate`,
/// the cost on first sight of a shape); `log_message` and `log_turn`, the message log's
/// cost on the engine thread ([`crate::roundtrip::log_cost`]).
///
/// ```
/// let records = peregrine_bench::codec::run_peregrine(50, 10)?;
/// for case in peregrine_bench::codec::PEREGRINE_ONLY_CASES {
///     assert!(records.iter().any(|r| r.case == case));
/// }
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
pub const PEREGRINE_ONLY_CASES: [&str; 4] =
    ["er_validate", "er_validate_full", "log_message", "log_turn"];

/// The FIX44 dictionary Peregrine validates against: the dictionary crate's copy
/// ([`crate::fix44_dictionary`]), the one the peers are given.
fn fix44_dictionary() -> Result<peregrine_dict::Dictionary> {
    let path = crate::fix44_dictionary();
    if !path.is_file() {
        return Err(Error::Dictionary { path, source: None });
    }
    peregrine_dict::Dictionary::from_file(&path).map_err(|e| Error::Dictionary {
        path,
        source: Some(Box::new(e)),
    })
}

/// The ExecutionReport body (from 35= on) of BENCHMARKS.md §1, `|` for SOH.
///
/// ```
/// use peregrine_bench::codec::{fix44, ER_BODY};
/// use peregrine_codec::{Decoder, DecoderConfig};
/// let er = fix44(ER_BODY);
/// let mut decoder = Decoder::new(DecoderConfig::default());
/// assert_eq!(decoder.decode(&er).unwrap().get(37), Some(&b"ORD123456"[..]));
/// ```
pub const ER_BODY: &str = "35=8|49=SENDER|56=TARGET|34=12345|52=20240115-10:30:00.123|37=ORD123456|17=EXEC789012|150=0|39=0|54=1|151=1000|14=0|6=0|55=AAPL|38=1000|44=150.50|";
/// The NewOrderSingle body of BENCHMARKS.md §1.
///
/// ```
/// use peregrine_bench::codec::{fix44, NOS_BODY};
/// assert!(fix44(NOS_BODY).starts_with(b"8=FIX.4.4\x019="));
/// ```
pub const NOS_BODY: &str = "35=D|49=SENDER|56=TARGET|34=100|52=20240115-10:30:00.000|11=CLORD001|55=AAPL|54=1|60=20240115-10:30:00.000|38=1000|40=2|44=150.00|59=0|";

/// A complete FIX.4.4 message around `body`, with BodyLength and CheckSum.
///
/// ```
/// let m = peregrine_bench::codec::fix44("35=0|");
/// assert_eq!(m, b"8=FIX.4.4\x019=5\x0135=0\x0110=163\x01");
/// ```
pub fn fix44(body: &str) -> Vec<u8> {
    let body = body.replace('|', "\x01");
    let mut m = format!("8=FIX.4.4\x019={}\x01{}", body.len(), body).into_bytes();
    let sum: u32 = m.iter().map(|&b| b as u32).sum();
    m.extend_from_slice(format!("10={:03}\x01", sum % 256).as_bytes());
    m
}

/// Settings of one invocation: only the settings every benchmark has ([`RunSettings`]).
///
/// ```
/// use peregrine_bench::codec::CodecBenchConfig;
/// let mut cfg = CodecBenchConfig::default();
/// cfg.common.runs = 3;
/// assert_eq!((cfg.common.runs, cfg.common.iters, cfg.common.warmup), (3, 1_000_000, 2_000_000));
/// assert_eq!(cfg.common.peers, ["quickfix-cpp", "quickfixj"]);
/// ```
#[derive(Clone, Debug)]
pub struct CodecBenchConfig {
    /// Runs, operations per case (warm-up: the peers' JIT), peers (`quickfix-cpp`,
    /// `quickfixj`), where the JSON goes.
    pub common: RunSettings,
}

impl CodecBenchConfig {
    /// Applies command-line options: `--smoke` ([`Smoke::MICRO`], in [`RunSettings::smoke`]), then the others
    /// ([`RunSettings::apply`]).
    ///
    /// ```
    /// let mut cfg = peregrine_bench::codec::CodecBenchConfig::default();
    /// cfg.apply(&peregrine_bench::Options { iters: Some(10), out: Some("x.json"), ..Default::default() });
    /// assert_eq!((cfg.common.runs, cfg.common.iters), (5, 10));
    /// assert_eq!(cfg.common.out, std::path::Path::new("x.json"));
    /// ```
    pub fn apply(&mut self, options: &Options<'_>) {
        self.common.apply(options);
    }
}

impl Default for CodecBenchConfig {
    fn default() -> Self {
        CodecBenchConfig {
            common: RunSettings::new(
                "codec",
                1_000_000,
                2_000_000,
                Smoke::MICRO,
                &["quickfix-cpp", "quickfixj"],
            ),
        }
    }
}

/// The NewOrderSingle's values, as an application holds them before encoding.
/// Read through `black_box` on every iteration, so that the compiler cannot
/// fold them into the encoder as constants (the peers, too, write values
/// they hold in objects).
///
/// ```
/// use peregrine_bench::codec::{encode_nos, NosValues};
/// let mut buf = peregrine_codec::EncodeBuffer::with_capacity(256);
/// let values = NosValues { cl_ord_id: b"CLORD002", qty: 500, ..NosValues::default() };
/// let bytes = encode_nos(&mut buf, &values);
/// assert!(bytes.windows(13).any(|w| w == b"\x0111=CLORD002\x01"));
/// ```
#[derive(Clone, Debug)]
pub struct NosValues {
    /// SenderCompID(49).
    pub sender: &'static [u8],
    /// TargetCompID(56).
    pub target: &'static [u8],
    /// MsgSeqNum(34).
    pub seq: u64,
    /// SendingTime(52) and TransactTime(60).
    pub time: UtcTimestamp,
    /// ClOrdID(11).
    pub cl_ord_id: &'static [u8],
    /// Symbol(55).
    pub symbol: &'static [u8],
    /// Side(54).
    pub side: u8,
    /// OrderQty(38).
    pub qty: u64,
    /// OrdType(40).
    pub ord_type: u8,
    /// Price(44).
    pub price: Decimal,
    /// TimeInForce(59).
    pub tif: u8,
}

impl Default for NosValues {
    fn default() -> Self {
        NosValues {
            sender: b"SENDER",
            target: b"TARGET",
            seq: 100,
            time: UtcTimestamp::from_unix_nanos(1_705_314_600_000_000_000, TimePrecision::Millis),
            cl_ord_id: b"CLORD001",
            symbol: b"AAPL",
            side: b'1',
            qty: 1000,
            ord_type: b'2',
            price: Decimal::new(15000, 2),
            tif: b'0',
        }
    }
}

/// Encodes the NewOrderSingle the way an application would: typed values,
/// timestamps formatted from a time value.
///
/// ```
/// use peregrine_bench::codec::{encode_nos, fix44, NosValues, NOS_BODY};
/// let mut buf = peregrine_codec::EncodeBuffer::with_capacity(256);
/// assert_eq!(encode_nos(&mut buf, &NosValues::default()), fix44(NOS_BODY).as_slice());
/// ```
pub fn encode_nos<'b>(buf: &'b mut EncodeBuffer, v: &NosValues) -> &'b [u8] {
    let mut m = buf.start(b"FIX.4.4", b"D");
    m.str(49, v.sender).str(56, v.target).uint(34, v.seq);
    m.timestamp(52, &v.time, TimePrecision::Millis);
    m.str(11, v.cl_ord_id).str(55, v.symbol).char(54, v.side);
    m.timestamp(60, &v.time, TimePrecision::Millis);
    m.uint(38, v.qty)
        .char(40, v.ord_type)
        .decimal(44, v.price)
        .char(59, v.tif);
    m.finish()
}

/// Runs Peregrine's side of every case once, after checking that each case does what it
/// says.
///
/// ```
/// let records = peregrine_bench::codec::run_peregrine(100, 10)?;
/// assert!(records.iter().any(|r| r.case == "er_parse_read4" && r.engine == "peregrine"));
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Dictionary`] when FIX44 does not load; [`Error::Check`] when a reference
/// message does not decode, reads back other values, encodes other bytes, or does not
/// validate.
pub fn run_peregrine(iters: u64, warmup: u64) -> Result<Vec<Record>> {
    let er = fix44(ER_BODY);
    let nos = fix44(NOS_BODY);
    let overhead = timer_overhead_ns();
    let mut decoder = Decoder::new(DecoderConfig::default());
    let mut out = EncodeBuffer::with_capacity(256);
    let values = NosValues::default();
    let dict = fix44_dictionary()?;
    let validator = Validator::new(&dict, ValidationSettings::default());
    // Check once that each case does what it says before timing it.
    {
        let v = decoder
            .decode(&er)
            .map_err(|e| Error::check("ExecutionReport does not decode", e))?;
        if v.get(37) != Some(b"ORD123456")
            || v.get(17) != Some(b"EXEC789012")
            || v.msg_type() != b"8"
        {
            return Err(Error::failed_check(
                "ExecutionReport fields read back wrong",
            ));
        }
        if encode_nos(&mut out, &values) != nos.as_slice() {
            return Err(Error::failed_check(
                "encoded NewOrderSingle differs from the reference bytes",
            ));
        }
        let v = decoder
            .decode(&er)
            .map_err(|e| Error::check("ExecutionReport does not decode", e))?;
        validator
            .validate(&v)
            .map_err(|e| Error::check("ExecutionReport does not validate against FIX44", e))?;
    }
    let settings =
        "Decoder with BodyLength+CheckSum+syntax validation, reused; EncodeBuffer reused";
    let mut records = Vec::new();
    let mut push = |case: &str, f: &mut dyn FnMut() -> usize| {
        records.push(measure(warmup, iters, overhead, &mut *f).record(case, settings));
    };
    push("er_parse_read4", &mut || {
        let v = decoder.decode(black_box(&er)).expect("validated above");
        v.get(37).map_or(0, |x| x.len())
            + v.get(17).map_or(0, |x| x.len())
            + v.get(54).map_or(0, |x| x.len())
            + v.msg_type().len()
    });
    push("nos_parse_read4", &mut || {
        let v = decoder.decode(black_box(&nos)).expect("validated above");
        v.get(11).map_or(0, |x| x.len())
            + v.get(55).map_or(0, |x| x.len())
            + v.get(54).map_or(0, |x| x.len())
            + v.msg_type().len()
    });
    push("er_parse", &mut || {
        decoder
            .decode(black_box(&er))
            .expect("validated above")
            .len()
    });
    let mut shapes = ShapeCache::new();
    push("er_validate", &mut || {
        let v = decoder.decode(black_box(&er)).expect("validated above");
        v.len() + validator.validate_with(&v, &mut shapes).is_ok() as usize
    });
    push("er_validate_full", &mut || {
        let v = decoder.decode(black_box(&er)).expect("validated above");
        v.len() + validator.validate(&v).is_ok() as usize
    });
    push("nos_encode", &mut || {
        encode_nos(&mut out, black_box(&values)).len()
    });
    let log_settings = format!(
        "SessionLog (FileLogPath) in the temporary directory, at most {} + {} operations: log_message one ExecutionReport in, log_turn an order in and its report out (the engine thread's part: since issue 31 a copy into the logging thread's ring)",
        crate::roundtrip::log_cost::MAX_ITERS,
        crate::roundtrip::log_cost::MAX_WARMUP
    );
    for (case, m) in crate::roundtrip::log_cost::run(iters, warmup, overhead)? {
        records.push(m.record(case, &log_settings));
    }
    Ok(records)
}

/// Runs the whole experiment: `runs` rounds, each running Peregrine then each
/// peer, and returns the aggregates (also printed and written as JSON).
///
/// ```no_run
/// use peregrine_bench::codec::{run, CodecBenchConfig};
/// let mut cfg = CodecBenchConfig::default();
/// (cfg.common.runs, cfg.common.peers) = (1, vec![]);
/// let aggs = run(&cfg)?;
/// println!("{}", peregrine_bench::report::markdown_table(&aggs));
/// # Ok::<(), peregrine_bench::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Peer`] for a peer that is unknown, not built or fails; what
/// [`run_peregrine`] returns; [`Error::Output`] when the JSON cannot be written.
pub fn run(cfg: &CodecBenchConfig) -> Result<Vec<Aggregate>> {
    let rounds = Rounds::micro("codec", &CASES, &cfg.common, "codec_bench", "CodecBench")?;
    let all = rounds.run(|| run_peregrine(rounds.iters, rounds.warmup))?;
    let aggs = rounds.report(
        &all,
        &cfg.common.out,
        "er_parse_read4",
        serde_json::json!({}),
    )?;
    let mut lines = targets(&aggs);
    lines.push_str(&validation_target(&all));
    println!("{lines}");
    println!("results: {}", cfg.common.out.display());
    Ok(aggs)
}

/// The validation bound as a line of "met / missed": `er_validate` (decode + validate, as
/// a session validates) minus `er_parse` against `er_parse`, from the fastest run of each
/// (on a shared machine a run's mean only ever gains from preemption; the cases run back
/// to back); then, for information, the same for `er_validate_full` (a shape seen for the
/// first time).
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
/// use peregrine_bench::codec::validation_target;
///
/// let records = [rec("peregrine", "er_parse", 40.0), rec("peregrine", "er_validate", 70.0)];
/// let line = validation_target(&records);
/// assert!(line.contains("30.0 ns on top of a 40.0 ns parse (ratio 0.75") && line.contains("met"));
/// assert_eq!(validation_target(&[]), "");
/// ```
pub fn validation_target(records: &[Record]) -> String {
    let fastest = |case: &str| {
        records
            .iter()
            .filter(|r| r.engine == "peregrine" && r.case == case)
            .map(|r| r.stats.mean)
            .reduce(f64::min)
    };
    let (Some(parse), Some(both)) = (fastest("er_parse"), fastest("er_validate")) else {
        return String::new();
    };
    let validate = both - parse;
    let ratio = validate / parse;
    let mut line = format!(
        "  validation (as a session does it, shape known): {validate:.1} ns on top of a {parse:.1} ns parse (ratio {ratio:.2}, target ≤ 1.0; fastest run of each) {}\n",
        if ratio <= 1.0 { "met" } else { "MISSED" }
    );
    if let Some(full) = fastest("er_validate_full") {
        let validate = full - parse;
        line.push_str(&format!(
            "  validation walked in full (a new shape): {validate:.1} ns (ratio {:.2})\n",
            validate / parse
        ));
    }
    line
}

/// The targets of the issue as lines of "met / missed", from the aggregates.
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
/// use peregrine_bench::{codec::targets, report::aggregate};
///
/// let aggs = aggregate(&[rec("peregrine", "er_parse_read4", 40.0), rec("quickfixj", "er_parse_read4", 800.0)]);
/// let text = targets(&aggs);
/// assert!(text.contains("er_parse_read4: 20.0× faster than quickfixj (target ≥ 12×) met"));
/// ```
pub fn targets(aggs: &[Aggregate]) -> String {
    let mut s = String::from("Targets (ratios of medians in this run):\n");
    for case in ["er_parse_read4", "nos_parse_read4", "nos_encode"] {
        let Some(ours) = report::find(aggs, "peregrine", case) else {
            continue;
        };
        for peer in ["quickfix-cpp", "quickfixj"] {
            if let Some(p) = report::find(aggs, peer, case) {
                let ratio = p.stats.mean / ours.stats.mean;
                s.push_str(&format!(
                    "  {case}: {ratio:.1}× faster than {peer} (target ≥ 12×) {}\n",
                    if ratio >= 12.0 { "met" } else { "MISSED" }
                ));
            }
        }
    }
    for (case, goal) in [("er_parse_read4", 45.0), ("nos_encode", 35.0)] {
        if let Some(o) = report::find(aggs, "peregrine", case) {
            s.push_str(&format!(
                "  {case}: {:.1} ns mean (aim ≤ {goal} ns) {}\n",
                o.stats.mean,
                if o.stats.mean <= goal {
                    "met"
                } else {
                    "MISSED"
                }
            ));
        }
    }
    s.push_str(&crate::peers::allocations_target(aggs, "message"));
    s
}

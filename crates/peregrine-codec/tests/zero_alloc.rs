//! Proves the hot paths allocate nothing after warm-up, with a counting allocator.
mod common;
use peregrine_alloc::{allocations_in, CountingAllocator};
use peregrine_codec::value::{Decimal, TimePrecision, UtcTimestamp};
use peregrine_codec::*;

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Allocations this thread made while `f` ran (tests run in parallel threads).
fn allocs_during(f: impl FnOnce()) -> u64 {
    allocations_in(f).1
}

#[test]
fn decode_validate_and_read_four_fields_allocates_nothing() {
    let er = common::execution_report();
    let nos = common::new_order_single();
    let framer = Framer::default();
    let mut d = Decoder::new(DecoderConfig::default());
    let mut sink = 0usize;
    let mut run = |d: &mut Decoder| {
        for m in [&er, &nos] {
            assert_eq!(framer.next_frame(m), Frame::Message { len: m.len() });
            let v = d.decode(m).unwrap();
            for t in [37, 17, 54, 35, 11, 55] {
                sink += v.get(t).map_or(0, |x| x.len());
            }
            sink += v.get_as::<Decimal>(44).unwrap().unwrap().mantissa as usize;
        }
    };
    run(&mut d); // warm-up
    let n = allocs_during(|| {
        for _ in 0..10_000 {
            run(&mut d);
        }
    });
    assert_eq!(n, 0, "allocations in 20,000 decodes");
    assert!(sink > 0);
}

/// The benchmark NewOrderSingle with MsgSeqNum `seq`, its times `ts`.
fn encode_nos<'b>(buf: &'b mut EncodeBuffer, ts: &UtcTimestamp, seq: u64) -> &'b [u8] {
    let mut m = buf.start(b"FIX.4.4", b"D");
    m.str(49, b"SENDER").str(56, b"TARGET").uint(34, seq);
    m.timestamp(52, ts, TimePrecision::Millis);
    m.str(11, b"CLORD001").str(55, b"AAPL").char(54, b'1');
    m.timestamp(60, ts, TimePrecision::Millis);
    m.uint(38, 1000)
        .char(40, b'2')
        .decimal(44, Decimal::new(15000, 2))
        .char(59, b'0');
    m.finish()
}

#[test]
fn encode_allocates_nothing_after_warm_up() {
    let mut buf = EncodeBuffer::new();
    let ts = UtcTimestamp::from_unix_nanos(1_705_314_600_000_000_000, TimePrecision::Millis);
    let encode = |buf: &mut EncodeBuffer, seq: u64| -> usize { encode_nos(buf, &ts, seq).len() };
    encode(&mut buf, 100);
    let n = allocs_during(|| {
        for i in 0..10_000 {
            std::hint::black_box(encode(&mut buf, 100 + i));
        }
    });
    assert_eq!(n, 0, "allocations in 10,000 encodes");
    // And the bytes are the benchmark NewOrderSingle.
    let first = encode_nos(&mut buf, &ts, 100).to_vec();
    assert_eq!(first, common::new_order_single());
}

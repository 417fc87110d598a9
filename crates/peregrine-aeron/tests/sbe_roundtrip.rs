//! Every message of `sbe/orders.xml` survives encode → decode, and every malformed buffer
//! is a typed error rather than a panic.

use peregrine_aeron::messages::*;
use peregrine_codec::value::Decimal;

fn new_order() -> NewOrder {
    NewOrder {
        session_id: 7,
        transact_time: 1_700_000_000_123_456_789,
        price: Decimal64::new(15025, -2),
        order_qty: Decimal64::new(1_000_000, 0),
        cl_ord_id: pack(b"CLORD-0000000001").unwrap(),
        symbol: pack(b"MSFT").unwrap(),
        account: pack(b"ACC-7").unwrap(),
        side: Side::Buy,
        ord_type: OrdType::Limit,
        time_in_force: TimeInForce::ImmediateOrCancel,
    }
}

fn cancel() -> OrderCancelRequest {
    OrderCancelRequest {
        session_id: 8,
        order_id: 42,
        transact_time: 1_700_000_000_000_000_001,
        order_qty: Decimal64::NULL,
        cl_ord_id: pack(b"C-2").unwrap(),
        orig_cl_ord_id: pack(b"C-1").unwrap(),
        symbol: pack(b"AAPL").unwrap(),
        side: Side::SellShort,
    }
}

fn replace() -> OrderCancelReplaceRequest {
    OrderCancelReplaceRequest {
        session_id: 9,
        order_id: 0,
        transact_time: 3,
        price: Decimal64::NULL,
        order_qty: Decimal64::new(-5, 3),
        cl_ord_id: pack(&[b'x'; CL_ORD_ID_LEN]).unwrap(),
        orig_cl_ord_id: pack(b"R-1").unwrap(),
        symbol: pack(b"ESZ6").unwrap(),
        account: [0; ACCOUNT_LEN],
        side: Side::Sell,
        ord_type: OrdType::Market,
        time_in_force: TimeInForce::GoodTillCancel,
    }
}

fn exec_report(text: &str) -> ExecutionReport<'_> {
    ExecutionReport {
        session_id: 7,
        order_id: u64::MAX,
        exec_id: 99,
        transact_time: u64::MAX - 1,
        price: Decimal64::new(15025, -2),
        order_qty: Decimal64::new(100, 0),
        last_qty: Decimal64::new(40, 0),
        last_px: Decimal64::new(150_250_000, -6),
        leaves_qty: Decimal64::new(60, 0),
        cum_qty: Decimal64::new(40, 0),
        avg_px: Decimal64::new(i64::MAX, i8::MIN),
        cl_ord_id: pack(b"CLORD-0000000001").unwrap(),
        orig_cl_ord_id: [0; CL_ORD_ID_LEN],
        symbol: pack(b"MSFT").unwrap(),
        side: Side::Buy,
        exec_type: ExecType::Trade,
        ord_status: OrdStatus::PartiallyFilled,
        ord_rej_reason: OrdRejReason::NullVal,
        text,
    }
}

fn cancel_reject(text: &str) -> OrderCancelReject<'_> {
    OrderCancelReject {
        session_id: 1,
        order_id: 0,
        transact_time: 5,
        cl_ord_id: pack(b"C-2").unwrap(),
        orig_cl_ord_id: pack(b"C-1").unwrap(),
        ord_status: OrdStatus::Rejected,
        cxl_rej_response_to: CxlRejResponseTo::OrderCancelReplaceRequest,
        cxl_rej_reason: CxlRejReason::UnknownOrder,
        text,
    }
}

fn all_messages(text: &str) -> Vec<Message<'_>> {
    let mut reject = exec_report(text);
    reject.exec_type = ExecType::Rejected;
    reject.ord_status = OrdStatus::Rejected;
    reject.ord_rej_reason = OrdRejReason::UnknownSymbol;
    vec![
        Message::NewOrder(new_order()),
        Message::OrderCancelRequest(cancel()),
        Message::OrderCancelReplaceRequest(replace()),
        Message::ExecutionReport(exec_report(text)),
        Message::ExecutionReport(reject),
        Message::OrderCancelReject(cancel_reject(text)),
    ]
}

#[test]
fn every_message_round_trips() {
    for text in ["", "fill", "ünïcødé text ✓", &"long ".repeat(1000)] {
        for msg in all_messages(text) {
            let mut buf = vec![0xAAu8; msg.encoded_len() + 16];
            let n = msg.encode(&mut buf).unwrap();
            assert_eq!(n, msg.encoded_len(), "{msg:?}");
            let back = Message::decode(&buf[..n]).unwrap();
            assert_eq!(back, msg);
            // Trailing bytes after a message do not disturb it.
            assert_eq!(Message::decode(&buf).unwrap(), msg);
        }
    }
}

#[test]
fn typed_decoders_round_trip_and_reject_other_templates() {
    let mut buf = [0u8; 512];
    let n = new_order().encode(&mut buf).unwrap();
    assert_eq!(NewOrder::decode(&buf[..n]).unwrap(), new_order());
    assert_eq!(
        Message::template_id(&buf[..n]).unwrap(),
        NewOrder::TEMPLATE_ID
    );
    assert!(matches!(
        ExecutionReport::decode(&buf[..n]),
        Err(DecodeError::UnknownTemplate { template_id: 1 })
    ));
    let n = cancel().encode(&mut buf).unwrap();
    assert_eq!(OrderCancelRequest::decode(&buf[..n]).unwrap(), cancel());
    let n = replace().encode(&mut buf).unwrap();
    assert_eq!(
        OrderCancelReplaceRequest::decode(&buf[..n]).unwrap(),
        replace()
    );
    let n = exec_report("x").encode(&mut buf).unwrap();
    assert_eq!(
        ExecutionReport::decode(&buf[..n]).unwrap(),
        exec_report("x")
    );
    let n = cancel_reject("no").encode(&mut buf).unwrap();
    assert_eq!(
        OrderCancelReject::decode(&buf[..n]).unwrap(),
        cancel_reject("no")
    );
}

#[test]
fn header_is_the_schema_header() {
    let mut buf = [0u8; 256];
    new_order().encode(&mut buf).unwrap();
    let u16_at = |i: usize| u16::from_le_bytes([buf[i], buf[i + 1]]);
    assert_eq!(
        u16_at(0) as usize,
        new_order().encoded_len() - HEADER_LEN,
        "block length"
    );
    assert_eq!(u16_at(2), NewOrder::TEMPLATE_ID);
    assert_eq!(u16_at(4), SCHEMA_ID);
    assert_eq!(u16_at(6), SCHEMA_VERSION);
    // Side is the FIX character, ready to copy into tag 54.
    assert!(buf.contains(&b'1'));
}

#[test]
fn encode_into_a_short_buffer_is_an_error() {
    for msg in all_messages("text") {
        let need = msg.encoded_len();
        let mut buf = vec![0u8; need - 1];
        assert_eq!(
            msg.encode(&mut buf),
            Err(EncodeError::BufferTooSmall {
                needed: need,
                available: need - 1
            })
        );
    }
}

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    for msg in all_messages("some text") {
        let mut buf = vec![0u8; msg.encoded_len()];
        let n = msg.encode(&mut buf).unwrap();
        for cut in 0..n {
            match Message::decode(&buf[..cut]) {
                Err(DecodeError::Truncated { needed, available }) => {
                    assert_eq!(available, cut);
                    assert!(needed > cut);
                }
                other => panic!("cut at {cut} of {n}: {other:?}"),
            }
        }
    }
}

#[test]
fn hostile_headers_and_fields_are_errors() {
    let mut buf = [0u8; 512];
    let n = exec_report("abc").encode(&mut buf).unwrap();

    let mut b = buf;
    b[4] = 0x01; // schema id
    assert!(matches!(
        Message::decode(&b[..n]),
        Err(DecodeError::WrongSchema { .. })
    ));

    let mut b = buf;
    b[2] = 77; // template id
    assert_eq!(
        Message::decode(&b[..n]),
        Err(DecodeError::UnknownTemplate { template_id: 77 })
    );

    let mut b = buf;
    b[0] = 10; // block length shorter than this version's block
    b[1] = 0;
    assert!(matches!(
        Message::decode(&b[..n]),
        Err(DecodeError::BlockTooShort {
            block_length: 10,
            ..
        })
    ));

    let mut b = buf;
    b[0] = 0xff; // block length beyond the buffer
    b[1] = 0xff;
    assert!(matches!(
        Message::decode(&b[..n]),
        Err(DecodeError::Truncated { .. })
    ));

    // A text length prefix claiming 4 GiB.
    let mut b = buf;
    let text_at = n - 3 - 4;
    b[text_at..text_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        Message::decode(&b[..n]),
        Err(DecodeError::Truncated { .. })
    ));

    // Invalid UTF-8 in the text.
    let mut b = buf;
    b[n - 1] = 0xff;
    assert_eq!(Message::decode(&b[..n]), Err(DecodeError::InvalidText));

    // An undefined Side.
    let mut nb = [0u8; 256];
    let m = new_order().encode(&mut nb).unwrap();
    let side_at = m - 3; // side, ordType, timeInForce close the block
    assert_eq!(nb[side_at], b'1');
    nb[side_at] = b'Z';
    assert_eq!(
        Message::decode(&nb[..m]),
        Err(DecodeError::InvalidEnum { field: "side" })
    );

    // Garbage of every short length, and random-ish bytes.
    for len in 0..64 {
        let junk: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
        let _ = Message::decode(&junk);
    }
}

#[test]
fn larger_block_from_a_newer_schema_version_is_read() {
    // A newer version may append fields to the block; this version reads its own and skips
    // the rest, finding the text after the longer block.
    let report = exec_report("after a longer block");
    let mut buf = vec![0u8; report.encoded_len() + 8];
    let n = report.encode(&mut buf).unwrap();
    let block = u16::from_le_bytes([buf[0], buf[1]]) as usize;
    let text_at = HEADER_LEN + block;
    let mut newer = Vec::new();
    newer.extend_from_slice(&buf[..text_at]);
    newer.extend_from_slice(&[0xEE; 8]);
    newer.extend_from_slice(&buf[text_at..n]);
    let new_block = (block + 8) as u16;
    newer[..2].copy_from_slice(&new_block.to_le_bytes());
    newer[6..8].copy_from_slice(&1u16.to_le_bytes()); // version 1
    assert_eq!(ExecutionReport::decode(&newer).unwrap(), report);
}

#[test]
fn pack_and_unpack() {
    let id: ClOrdId = pack(b"ABC").unwrap();
    assert_eq!(unpack(&id), b"ABC");
    assert_eq!(&id[3..], &[0u8; CL_ORD_ID_LEN - 3][..]);
    assert!(pack::<4>(b"ABCDE").is_none(), "too long");
    assert!(pack::<8>(b"A\0B").is_none(), "embedded NUL");
    let full: Symbol = pack(&[b'Z'; SYMBOL_LEN]).unwrap();
    assert_eq!(unpack(&full).len(), SYMBOL_LEN);
}

#[test]
fn decimals_convert_exactly_to_and_from_fix() {
    let d = Decimal::new(15025, 2);
    let w = Decimal64::from_decimal(d).unwrap();
    assert_eq!(w, Decimal64::new(15025, -2));
    assert_eq!(w.to_decimal(), Some(d));
    assert_eq!(
        Decimal64::new(5, 3).to_decimal(),
        Some(Decimal::new(5000, 0))
    );
    assert_eq!(Decimal64::new(i64::MAX, 2).to_decimal(), None, "overflow");
    assert_eq!(Decimal64::NULL.to_decimal(), None);
    assert!(Decimal64::NULL.is_null());
    assert!(Decimal64::from_decimal(Decimal::new(1, 200)).is_none());
    assert_eq!(
        Decimal64::from_decimal(Decimal::new(1, 128)),
        Some(Decimal64::new(1, -128))
    );
}

//! Bodies written through the typed builders into an encoder someone else frames (as the
//! session does), and typed dispatch with `crack`.
#![cfg(feature = "fix44")]

use peregrine_messages::codec::value::Decimal;
use peregrine_messages::codec::EncodeBuffer;
use peregrine_messages::fix44::{
    enums::{ExecType, OrdStatus, Side},
    prelude::*,
    ExecutionReport,
};
use peregrine_messages::{Body, Message};

/// What a session does: its own header, then the typed body, then the trailer.
fn framed<M: Message>(buf: &mut EncodeBuffer, body: impl FnOnce(&mut Body<'_, '_, M>)) -> Vec<u8> {
    let mut enc = buf.start(b"FIX.4.4", M::MSG_TYPE);
    enc.str(49, b"VENUE").str(56, b"CLIENT").uint(34, 2);
    body(&mut Body::new(&mut enc));
    enc.finish().to_vec()
}

#[test]
fn a_body_is_the_builder_without_its_framing() {
    let mut buf = EncodeBuffer::new();
    let body = framed::<ExecutionReport>(&mut buf, |er| {
        er.order_id("O-1")
            .exec_id("E-1")
            .exec_type(ExecType::New)
            .ord_status(OrdStatus::New)
            .side(Side::Sell)
            .leaves_qty(Decimal::new(100, 0));
        er.cum_qty(Decimal::new(0, 0)).symbol("PEREGRINE");
    });
    let mut whole = EncodeBuffer::new();
    let mut b = ExecutionReport::builder(&mut whole);
    b.sender_comp_id("VENUE")
        .target_comp_id("CLIENT")
        .msg_seq_num(2);
    b.order_id("O-1")
        .exec_id("E-1")
        .exec_type(ExecType::New)
        .ord_status(OrdStatus::New)
        .side(Side::Sell)
        .leaves_qty(Decimal::new(100, 0));
    b.cum_qty(Decimal::new(0, 0)).symbol("PEREGRINE");
    assert_eq!(
        String::from_utf8_lossy(&body),
        String::from_utf8_lossy(b.finish())
    );
}

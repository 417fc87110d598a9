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

mod dispatch {
    use peregrine_messages::codec::{Decoder, DecoderConfig, EncodeBuffer, MessageView};
    use peregrine_messages::fix44::{self, prelude::*, MessageHandler};
    use peregrine_messages::UnsupportedMessageType;

    /// Handles orders and cancels; everything else is left to the defaults.
    #[derive(Default)]
    struct Desk {
        orders: Vec<String>,
        cancels: usize,
    }

    #[derive(Debug, PartialEq)]
    enum DeskError {
        Unsupported,
        NoClOrdId,
    }

    impl From<UnsupportedMessageType> for DeskError {
        fn from(_: UnsupportedMessageType) -> Self {
            DeskError::Unsupported
        }
    }

    /// The context: how many messages were dispatched.
    impl MessageHandler<u32> for Desk {
        type Error = DeskError;
        fn on_new_order_single(
            &mut self,
            msg: fix44::NewOrderSingle<'_>,
            seen: &mut u32,
        ) -> Result<(), DeskError> {
            *seen += 1;
            let id = msg
                .cl_ord_id()
                .and_then(Result::ok)
                .ok_or(DeskError::NoClOrdId)?;
            self.orders.push(id.to_string());
            Ok(())
        }
        fn on_order_cancel_request(
            &mut self,
            _msg: fix44::OrderCancelRequest<'_>,
            seen: &mut u32,
        ) -> Result<(), DeskError> {
            *seen += 1;
            self.cancels += 1;
            Ok(())
        }
    }

    fn wire(msg_type: &[u8], fields: &[(u32, &[u8])]) -> Vec<u8> {
        let mut buf = EncodeBuffer::new();
        let mut m = buf.start(fix44::BEGIN_STRING, msg_type);
        for &(t, v) in fields {
            m.str(t, v);
        }
        m.finish().to_vec()
    }

    fn crack(desk: &mut Desk, bytes: &[u8], seen: &mut u32) -> Result<(), DeskError> {
        let mut decoder = Decoder::new(DecoderConfig::default());
        let view: MessageView<'_> = decoder.decode(bytes).unwrap();
        fix44::crack(desk, &view, seen)
    }

    #[test]
    fn crack_calls_the_method_of_the_msg_type() {
        let mut desk = Desk::default();
        let mut seen = 0;
        crack(&mut desk, &wire(b"D", &[(11, b"ORD-1")]), &mut seen).unwrap();
        crack(&mut desk, &wire(b"F", &[(11, b"CXL-1")]), &mut seen).unwrap();
        crack(&mut desk, &wire(b"D", &[(11, b"ORD-2")]), &mut seen).unwrap();
        assert_eq!(desk.orders, ["ORD-1", "ORD-2"]);
        assert_eq!((desk.cancels, seen), (1, 3));
        // The handler's own error.
        assert_eq!(
            crack(&mut desk, &wire(b"D", &[(55, b"MSFT")]), &mut seen),
            Err(DeskError::NoClOrdId)
        );
        // Defaults: a message of the dictionary the desk does not handle, and a MsgType
        // the dictionary does not define; neither reaches a handled method.
        for msg_type in [&b"8"[..], b"G", b"AE", b"ZZ", b"0"] {
            assert_eq!(
                crack(&mut desk, &wire(msg_type, &[(11, b"X")]), &mut seen),
                Err(DeskError::Unsupported),
                "{msg_type:?}"
            );
        }
        assert_eq!((desk.orders.len(), desk.cancels, seen), (2, 1, 4));
    }

    /// The view handed over is the message itself, not a copy.
    #[test]
    fn the_typed_view_borrows_the_message() {
        struct Grab(usize);
        impl MessageHandler for Grab {
            type Error = UnsupportedMessageType;
            fn on_execution_report(
                &mut self,
                msg: fix44::ExecutionReport<'_>,
                _: &mut (),
            ) -> Result<(), UnsupportedMessageType> {
                self.0 = msg.symbol().and_then(Result::ok).unwrap().as_ptr() as usize;
                Ok(())
            }
        }
        let bytes = wire(b"8", &[(55, b"PEREGRINE")]);
        let mut decoder = Decoder::new(DecoderConfig::default());
        let view = decoder.decode(&bytes).unwrap();
        let mut grab = Grab(0);
        fix44::crack(&mut grab, &view, &mut ()).unwrap();
        let at = bytes.windows(9).position(|w| w == b"PEREGRINE").unwrap();
        assert_eq!(grab.0, bytes.as_ptr() as usize + at);
    }
}

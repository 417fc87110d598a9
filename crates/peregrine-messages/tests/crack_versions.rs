//! `crack` (QuickFIX/J's MessageCracker) of every FIX version with application
//! messages: a NewOrderSingle reaches the handler's method, typed, with its fields; a
//! message the handler does not handle and a MsgType the dictionary does not define reach
//! the defaults. Each version's test runs when its feature is on
//! (`cargo test -p peregrine-messages --all-features`, as `make test` does).

#![allow(unused_macros, unused_imports)]

use peregrine_messages::codec::{Decoder, DecoderConfig, EncodeBuffer};
use peregrine_messages::UnsupportedMessageType;

/// A message of `begin_string` and `msg_type` with ClOrdID(11) `id`.
fn wire(begin_string: &[u8], msg_type: &[u8], id: &[u8]) -> Vec<u8> {
    let mut buf = EncodeBuffer::new();
    let mut m = buf.start(begin_string, msg_type);
    m.str(11, id);
    m.finish().to_vec()
}

macro_rules! crack_test {
    ($feature:literal, $version:ident, $test:ident) => {
        #[cfg(feature = $feature)]
        #[test]
        fn $test() {
            use peregrine_messages::$version::{
                self as v, MessageHandler, NewOrderSingle, BEGIN_STRING,
            };

            /// Keeps the ClOrdID of every order.
            #[derive(Default)]
            struct Orders(Vec<String>);
            impl MessageHandler for Orders {
                type Error = UnsupportedMessageType;
                fn on_new_order_single(
                    &mut self,
                    order: NewOrderSingle<'_>,
                    _: &mut (),
                ) -> Result<(), UnsupportedMessageType> {
                    // Any Display: FIX 4.0 and 4.1's dictionaries type ClOrdID as a CHAR.
                    let id = order.cl_ord_id().and_then(Result::ok);
                    self.0.push(id.map_or("?".into(), |id| id.to_string()));
                    Ok(())
                }
            }

            let mut orders = Orders::default();
            let mut decoder = Decoder::new(DecoderConfig::default());
            for (msg_type, id) in [(&b"D"[..], &b"7"[..]), (b"8", b"8"), (b"ZZ", b"9")] {
                let bytes = wire(BEGIN_STRING, msg_type, id);
                let view = decoder.decode(&bytes).expect("decodes");
                let cracked = v::crack(&mut orders, &view, &mut ());
                match msg_type {
                    b"D" => assert_eq!(cracked, Ok(())),
                    _ => assert!(cracked.is_err(), "{msg_type:?} reached no default"),
                }
            }
            assert_eq!(orders.0, ["7"]);
        }
    };
}

crack_test!("fix40", fix40, fix40_crack_dispatches_by_msg_type);
crack_test!("fix41", fix41, fix41_crack_dispatches_by_msg_type);
crack_test!("fix42", fix42, fix42_crack_dispatches_by_msg_type);
crack_test!("fix43", fix43, fix43_crack_dispatches_by_msg_type);
crack_test!("fix44", fix44, fix44_crack_dispatches_by_msg_type);
crack_test!("fix50", fix50, fix50_crack_dispatches_by_msg_type);
crack_test!("fix50sp1", fix50sp1, fix50sp1_crack_dispatches_by_msg_type);
crack_test!("fix50sp2", fix50sp2, fix50sp2_crack_dispatches_by_msg_type);

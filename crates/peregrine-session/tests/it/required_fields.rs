//! `?` on a typed getter's `required` inside `from_app`: the session answers with the
//! Reject the FIX rules ask for (35=3, 373 the reason, 371 the tag), without the
//! dictionary's own validation (`UseDataDictionary=N`), so that only the application
//! decides what is required.

use crate::support;

use peregrine_codec::MessageView;
use peregrine_messages::fix44::{self, prelude::*, tags, MessageHandler, NewOrderSingle};
use peregrine_session::{AppReject, Application, Outbox, Session, SessionId};
use peregrine_store::MemoryStore;
use support::{config, drain_rendered, log_on, message, T0};

/// Requires ClOrdID, Side and OrderQty; acknowledges with the ClOrdID.
struct Desk;

impl MessageHandler<Outbox<'_>> for Desk {
    type Error = AppReject;
    fn on_new_order_single(
        &mut self,
        order: NewOrderSingle<'_>,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let id = order.cl_ord_id().required(tags::CL_ORD_ID)?;
        order.side().required(tags::SIDE)?;
        order.order_qty().required(tags::ORDER_QTY)?;
        out.send(b"8", |m| {
            m.str(11, id.as_bytes()).str(39, b"0");
        })?;
        Ok(())
    }
}

impl Application for Desk {
    fn from_app(
        &mut self,
        msg: &MessageView,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        fix44::crack(self, msg, out)
    }
}

/// What the session sends back for one NewOrderSingle with `body`.
fn answer(body: &[(u32, &[u8])]) -> Vec<String> {
    let mut session = Session::new(config("FIX.4.4"), MemoryStore::new(T0), T0);
    let mut app = Desk;
    log_on(&mut session, &mut app);
    session.on_bytes(&message(b"D", 2, T0, body), T0, &mut app);
    drain_rendered(&mut session, &mut app)
}

#[test]
fn every_required_field_present_is_answered() {
    let out = answer(&[(11, b"ORD-1"), (54, b"1"), (38, b"100")]);
    assert_eq!(out, ["35=8|34=2|49=ISLD|56=TW|11=ORD-1|39=0"]);
}

#[test]
fn a_missing_required_field_is_a_reject_reason_1_naming_the_tag() {
    let out = answer(&[(11, b"ORD-2"), (38, b"100")]);
    assert_eq!(
        out,
        ["35=3|34=2|49=ISLD|56=TW|45=2|58=Required tag missing|371=54|372=D|373=1"]
    );
}

#[test]
fn a_malformed_value_is_a_reject_reason_6_naming_the_tag() {
    let out = answer(&[(11, b"ORD-3"), (54, b"1"), (38, b"lots")]);
    assert_eq!(
        out,
        ["35=3|34=2|49=ISLD|56=TW|45=2|58=Incorrect data format for value|371=38|372=D|373=6"]
    );
}

#[test]
fn an_unlisted_enum_value_is_a_reject_reason_5_naming_the_tag() {
    let out = answer(&[(11, b"ORD-4"), (54, b"Z"), (38, b"100")]);
    assert_eq!(
        out,
        ["35=3|34=2|49=ISLD|56=TW|45=2|58=Value is incorrect (out of range) for this tag|371=54|372=D|373=5"]
    );
}

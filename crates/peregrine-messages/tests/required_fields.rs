//! `FieldResult`: a getter's answer read as the value or the session Reject the FIX rules
//! ask for (SessionRejectReason 1 absent, 6 malformed, 5 unknown enum value; RefTagID the
//! tag), on messages decoded from the wire.
#![cfg(feature = "fix44")]

use peregrine_messages::codec::value::Decimal;
use peregrine_messages::codec::{Decoder, DecoderConfig, EncodeBuffer};
use peregrine_messages::fix44::{enums::Side, prelude::*, tags, NewOrderSingle};
use peregrine_messages::{SessionRejectReason, ValidationError};

/// A NewOrderSingle with ClOrdID and Symbol, `extra` fields as raw bytes after them.
fn order_with(extra: &[(u32, &str)]) -> Vec<u8> {
    let mut buf = EncodeBuffer::new();
    let mut b = NewOrderSingle::builder(&mut buf);
    b.sender_comp_id("CLIENT")
        .target_comp_id("VENUE")
        .msg_seq_num(2);
    b.cl_ord_id("ORD-7").symbol("PEREGRINE");
    for (tag, v) in extra {
        b.put_field(*tag, *v);
    }
    b.finish().to_vec()
}

fn reject(reason: SessionRejectReason, tag: u32) -> ValidationError {
    ValidationError::new(reason, Some(tag))
}

#[test]
fn present_fields_give_their_values() {
    let wire = order_with(&[(tags::SIDE, "2"), (tags::ORDER_QTY, "150")]);
    let mut decoder = Decoder::new(DecoderConfig::default());
    let order = NewOrderSingle::from_view(decoder.decode(&wire).unwrap()).unwrap();
    assert_eq!(order.cl_ord_id().required(tags::CL_ORD_ID), Ok("ORD-7"));
    assert_eq!(order.side().required(tags::SIDE), Ok(Side::Sell));
    assert_eq!(
        order.order_qty().optional(tags::ORDER_QTY),
        Ok(Some(Decimal::new(150, 0)))
    );
    assert_eq!(order.symbol().value(), Some("PEREGRINE"));
}

#[test]
fn a_missing_required_field_is_reason_1_on_its_tag() {
    let wire = order_with(&[]);
    let mut decoder = Decoder::new(DecoderConfig::default());
    let order = NewOrderSingle::from_view(decoder.decode(&wire).unwrap()).unwrap();
    let err = order.side().required(tags::SIDE).unwrap_err();
    assert_eq!(err, reject(SessionRejectReason::RequiredTagMissing, 54));
    assert_eq!(err.reason_field("FIX.4.4"), Some(1));
    assert_eq!(err.ref_tag_field("FIX.4.4"), Some(54));
    assert_eq!(
        err.reject_text("FIX.4.4").to_string(),
        "Required tag missing"
    );
    // Absent is no error for the optional forms.
    assert_eq!(order.side().optional(tags::SIDE), Ok(None));
    assert_eq!(order.side().value(), None);
}

#[test]
fn a_malformed_value_is_reason_6_on_its_tag() {
    let wire = order_with(&[(tags::ORDER_QTY, "ten"), (tags::TRANSACT_TIME, "yesterday")]);
    let mut decoder = Decoder::new(DecoderConfig::default());
    let order = NewOrderSingle::from_view(decoder.decode(&wire).unwrap()).unwrap();
    let bad_qty = reject(SessionRejectReason::IncorrectDataFormatForValue, 38);
    assert_eq!(order.order_qty().required(tags::ORDER_QTY), Err(bad_qty));
    assert_eq!(order.order_qty().optional(tags::ORDER_QTY), Err(bad_qty));
    assert_eq!(order.order_qty().value(), None);
    assert_eq!(
        order.transact_time().required(tags::TRANSACT_TIME),
        Err(reject(SessionRejectReason::IncorrectDataFormatForValue, 60))
    );
}

#[test]
fn an_enum_value_the_dictionary_does_not_list_is_reason_5_on_its_tag() {
    let wire = order_with(&[(tags::SIDE, "Z")]);
    let mut decoder = Decoder::new(DecoderConfig::default());
    let order = NewOrderSingle::from_view(decoder.decode(&wire).unwrap()).unwrap();
    let err = reject(SessionRejectReason::ValueIsIncorrect, 54);
    assert_eq!(order.side().required(tags::SIDE), Err(err));
    assert_eq!(order.side().optional(tags::SIDE), Err(err));
    assert_eq!(
        err.reject_text("FIX.4.4").to_string(),
        "Value is incorrect (out of range) for this tag"
    );
}

#[test]
fn group_entry_getters_read_the_same_way() {
    use peregrine_messages::fix44::enums::PartyRole;
    let mut buf = EncodeBuffer::new();
    let mut b = NewOrderSingle::builder(&mut buf);
    b.cl_ord_id("ORD-8");
    let mut parties = b.no_party_ids(2);
    parties
        .entry()
        .party_id("DESK1")
        .party_role(PartyRole::ExecutingFirm);
    parties.entry().party_id("DESK2");
    let wire = b.finish().to_vec();
    let mut decoder = Decoder::new(DecoderConfig::default());
    let order = NewOrderSingle::from_view(decoder.decode(&wire).unwrap()).unwrap();
    let roles: Vec<_> = order
        .no_party_ids()
        .map(|p| p.party_role().required(tags::PARTY_ROLE))
        .collect();
    assert_eq!(
        roles,
        [
            Ok(PartyRole::ExecutingFirm),
            Err(reject(SessionRejectReason::RequiredTagMissing, 452))
        ]
    );
}

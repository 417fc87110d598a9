//! The four messages of `peers/typed-messages.md` (BENCHMARKS.md §2), built through the
//! generated FIX 4.4 builders, must be exactly the canonical bytes listed there, and read back
//! through the typed getters to the values written.
#![cfg(feature = "fix44")]

use peregrine_messages::codec::value::{Decimal, TimePrecision, UtcTimestamp};
use peregrine_messages::codec::{Decoder, DecoderConfig, EncodeBuffer};
use peregrine_messages::fix44::enums::{
    MDEntryType, OrdType, PartyIDSource, PartyRole, PartySubIDType, Side, SubscriptionRequestType,
};
use peregrine_messages::fix44::prelude::*;
use peregrine_messages::fix44::{
    MarketDataRequest, NewOrderMultileg, QuoteStatusRequest, QuoteStatusRequestBuilder,
};
use peregrine_messages::{FieldError, FixEnum};

const MDR: &str = "8=FIX.4.4|9=119|35=V|49=SENDER|56=TARGET|34=1|52=20240115-10:30:00.000|262=MDR0001|263=1|264=1|267=2|269=0|269=1|146=2|55=AAPL|55=MSFT|10=010|";
const QSR_GROUP: &str = "8=FIX.4.4|9=127|35=a|49=SENDER|56=TARGET|34=1|52=20240115-10:30:00.000|649=QSR0001|55=AAPL|453=2|448=PARTY1|447=D|452=1|448=PARTY2|447=D|452=3|10=163|";
const QSR_NESTED: &str = "8=FIX.4.4|9=203|35=a|49=SENDER|56=TARGET|34=1|52=20240115-10:30:00.000|649=QSR0001|55=AAPL|453=2|448=PARTY1|447=D|452=1|802=2|523=SUB11|803=1|523=SUB12|803=2|448=PARTY2|447=D|452=3|802=2|523=SUB21|803=1|523=SUB22|803=2|10=112|";
const MULTILEG: &str = "8=FIX.4.4|9=317|35=AB|49=SENDER|56=TARGET|34=1|52=20240115-10:30:00.000|11=MLEG0001|54=1|55=SPRD|555=2|600=AAPL|623=1|624=1|683=1|688=MINQTY|689=100|539=1|524=NPTY1|525=D|538=24|804=1|545=NSUB1|805=1|600=MSFT|623=1|624=2|683=1|688=MINQTY|689=200|539=1|524=NPTY2|525=D|538=24|804=1|545=NSUB2|805=1|60=20240115-10:30:00.000|38=10|40=1|10=178|";

fn wire(s: &str) -> Vec<u8> {
    s.replace('|', "\x01").into_bytes()
}

fn ts() -> UtcTimestamp {
    UtcTimestamp::from_unix_nanos(1_705_314_600_000_000_000, TimePrecision::Millis)
}

fn header<'b, B: StandardHeaderBuilder<'b>>(b: &mut B) {
    b.sender_comp_id("SENDER")
        .target_comp_id("TARGET")
        .msg_seq_num(1)
        .sending_time(ts());
}

fn mdr(buf: &mut EncodeBuffer) -> &[u8] {
    let mut b = MarketDataRequest::builder(buf);
    header(&mut b);
    b.md_req_id("MDR0001")
        .subscription_request_type(SubscriptionRequestType::SnapshotPlusUpdates)
        .market_depth(1);
    let mut types = b.no_md_entry_types(2);
    types.entry().md_entry_type(MDEntryType::Bid);
    types.entry().md_entry_type(MDEntryType::Offer);
    let mut syms = b.no_related_sym(2);
    syms.entry().symbol("AAPL");
    syms.entry().symbol("MSFT");
    b.finish()
}

fn qsr_common<'a>(buf: &'a mut EncodeBuffer) -> QuoteStatusRequestBuilder<'a> {
    let mut b = QuoteStatusRequest::builder(buf);
    header(&mut b);
    b.quote_status_req_id("QSR0001").symbol("AAPL");
    b
}

fn qsr(buf: &mut EncodeBuffer, nested: bool) -> &[u8] {
    let mut b = qsr_common(buf);
    let mut parties = b.no_party_ids(2);
    for (id, role, subs) in [
        ("PARTY1", PartyRole::ExecutingFirm, ["SUB11", "SUB12"]),
        ("PARTY2", PartyRole::ClientId, ["SUB21", "SUB22"]),
    ] {
        let p = parties.entry();
        p.party_id(id)
            .party_id_source(PartyIDSource::ProprietaryCustomCode)
            .party_role(role);
        if nested {
            let mut s = p.no_party_sub_ids(2);
            s.entry()
                .party_sub_id(subs[0])
                .party_sub_id_type(PartySubIDType::Firm);
            s.entry()
                .party_sub_id(subs[1])
                .party_sub_id_type(PartySubIDType::Person);
        }
    }
    b.finish()
}

fn multileg(buf: &mut EncodeBuffer) -> &[u8] {
    let mut b = NewOrderMultileg::builder(buf);
    header(&mut b);
    b.cl_ord_id("MLEG0001").side(Side::Buy).symbol("SPRD");
    let mut legs = b.no_legs(2);
    for (sym, side, stip, party, sub) in [
        ("AAPL", '1', "100", "NPTY1", "NSUB1"),
        ("MSFT", '2', "200", "NPTY2", "NSUB2"),
    ] {
        let leg = legs.entry();
        leg.leg_symbol(sym)
            .leg_ratio_qty(Decimal::new(1, 0))
            .leg_side(side);
        leg.no_leg_stipulations(1)
            .entry()
            .leg_stipulation_type("MINQTY")
            .leg_stipulation_value(stip);
        let mut parties = leg.no_nested_party_ids(1);
        let p = parties.entry();
        p.nested_party_id(party)
            .nested_party_id_source('D')
            .nested_party_role(24);
        p.no_nested_party_sub_ids(1)
            .entry()
            .nested_party_sub_id(sub)
            .nested_party_sub_id_type(1);
    }
    b.transact_time(ts())
        .order_qty(Decimal::new(10, 0))
        .ord_type(OrdType::Market);
    b.finish()
}

#[test]
fn builders_write_the_canonical_bytes() {
    let mut buf = EncodeBuffer::new();
    assert_eq!(mdr(&mut buf), wire(MDR).as_slice());
    assert_eq!(qsr(&mut buf, false), wire(QSR_GROUP).as_slice());
    assert_eq!(qsr(&mut buf, true), wire(QSR_NESTED).as_slice());
    assert_eq!(multileg(&mut buf), wire(MULTILEG).as_slice());
}

fn check_header<'a, V: StandardHeader<'a>>(v: &V) {
    assert_eq!(v.sender_comp_id(), Some(Ok("SENDER")));
    assert_eq!(v.target_comp_id(), Some(Ok("TARGET")));
    assert_eq!(v.msg_seq_num(), Some(Ok(1)));
    assert_eq!(v.sending_time(), Some(Ok(ts())));
}

#[test]
fn getters_read_the_canonical_messages() {
    let mut decoder = Decoder::new(DecoderConfig::default());
    let bytes = wire(MDR);
    let m = MarketDataRequest::from_view(decoder.decode(&bytes).unwrap()).unwrap();
    check_header(&m);
    assert_eq!(m.md_req_id(), Some(Ok("MDR0001")));
    assert_eq!(
        m.subscription_request_type(),
        Some(Ok(SubscriptionRequestType::SnapshotPlusUpdates))
    );
    assert_eq!(m.market_depth(), Some(Ok(1)));
    let types = m.no_md_entry_types();
    assert_eq!(types.declared_count(), Some(Ok(2)));
    let types: Vec<_> = types.map(|e| e.md_entry_type()).collect();
    assert_eq!(
        types,
        [Some(Ok(MDEntryType::Bid)), Some(Ok(MDEntryType::Offer))]
    );
    let syms: Vec<_> = m.no_related_sym().map(|e| e.symbol()).collect();
    assert_eq!(syms, [Some(Ok("AAPL")), Some(Ok("MSFT"))]);
    assert!(QuoteStatusRequest::from_view(decoder.decode(&bytes).unwrap()).is_none());

    let bytes = wire(QSR_NESTED);
    let q = QuoteStatusRequest::from_view(decoder.decode(&bytes).unwrap()).unwrap();
    check_header(&q);
    assert_eq!(q.quote_status_req_id(), Some(Ok("QSR0001")));
    assert_eq!(q.symbol(), Some(Ok("AAPL")));
    let mut subs = Vec::new();
    for p in q.no_party_ids() {
        assert_eq!(
            p.party_id_source(),
            Some(Ok(PartyIDSource::ProprietaryCustomCode))
        );
        for s in p.no_party_sub_ids() {
            subs.push((
                p.party_id().unwrap().unwrap(),
                p.party_role().unwrap().unwrap(),
                s.party_sub_id().unwrap().unwrap(),
                s.party_sub_id_type().unwrap().unwrap(),
            ));
        }
    }
    assert_eq!(
        subs,
        [
            (
                "PARTY1",
                PartyRole::ExecutingFirm,
                "SUB11",
                PartySubIDType::Firm
            ),
            (
                "PARTY1",
                PartyRole::ExecutingFirm,
                "SUB12",
                PartySubIDType::Person
            ),
            ("PARTY2", PartyRole::ClientId, "SUB21", PartySubIDType::Firm),
            (
                "PARTY2",
                PartyRole::ClientId,
                "SUB22",
                PartySubIDType::Person
            ),
        ]
    );

    let bytes = wire(MULTILEG);
    let n = NewOrderMultileg::from_view(decoder.decode(&bytes).unwrap()).unwrap();
    check_header(&n);
    assert_eq!(n.cl_ord_id(), Some(Ok("MLEG0001")));
    assert_eq!(n.side(), Some(Ok(Side::Buy)));
    assert_eq!(n.symbol(), Some(Ok("SPRD")));
    assert_eq!(n.transact_time(), Some(Ok(ts())));
    assert_eq!(n.order_qty(), Some(Ok(Decimal::new(10, 0))));
    assert_eq!(n.ord_type(), Some(Ok(OrdType::Market)));
    let legs: Vec<_> = n.no_legs().collect();
    assert_eq!(legs.len(), 2);
    for (leg, (sym, side, stip, party, sub)) in legs.iter().zip([
        ("AAPL", '1', "100", "NPTY1", "NSUB1"),
        ("MSFT", '2', "200", "NPTY2", "NSUB2"),
    ]) {
        assert_eq!(leg.leg_symbol(), Some(Ok(sym)));
        assert_eq!(leg.leg_ratio_qty(), Some(Ok(Decimal::new(1, 0))));
        assert_eq!(leg.leg_side(), Some(Ok(side)));
        let stips: Vec<_> = leg
            .no_leg_stipulations()
            .map(|s| (s.leg_stipulation_type(), s.leg_stipulation_value()))
            .collect();
        assert_eq!(stips, [(Some(Ok("MINQTY")), Some(Ok(stip)))]);
        let p = leg.no_nested_party_ids().next().unwrap();
        assert_eq!(p.nested_party_id(), Some(Ok(party)));
        assert_eq!(p.nested_party_id_source(), Some(Ok('D')));
        assert_eq!(p.nested_party_role(), Some(Ok(24)));
        let s = p.no_nested_party_sub_ids().next().unwrap();
        assert_eq!(s.nested_party_sub_id(), Some(Ok(sub)));
        assert_eq!(s.nested_party_sub_id_type(), Some(Ok(1)));
    }
}

#[test]
fn enums_convert_from_and_to_wire_bytes() {
    assert_eq!(Side::from_bytes(b"1"), Some(Side::Buy));
    assert_eq!(Side::Sell.as_bytes(), b"2");
    assert_eq!(Side::Buy.description(), "BUY");
    assert_eq!(OrdType::from_bytes(b"2"), Some(OrdType::Limit));
    assert_eq!(Side::from_bytes(b"Z"), None);
    assert_eq!(
        PartyRole::from_bytes(b"24").map(|r| r.as_bytes()),
        Some(&b"24"[..])
    );
    assert!(Side::ALL.contains(&Side::SellShort));
    // The FIX specification's names; QuickFIX's FIX 4.4 descriptions stay readable.
    use peregrine_messages::fix44::enums::{
        BusinessRejectReason, CxlRejResponseTo, ExecType, OrdRejReason, OrdStatus,
    };
    assert_eq!(OrdStatus::PartiallyFilled.as_bytes(), b"1");
    assert_eq!(OrdStatus::PartiallyFilled.description(), "PARTIAL");
    assert_eq!(OrdStatus::from_bytes(b"3"), Some(OrdStatus::DoneForDay));
    assert_eq!(OrdStatus::from_bytes(b"A"), Some(OrdStatus::PendingNew));
    assert_eq!(OrdRejReason::UnknownSymbol.as_bytes(), b"1");
    assert_eq!(OrdRejReason::UnknownSymbol.description(), "UNKNOWNSYM");
    assert_eq!(OrdRejReason::SurveillanceOption.as_bytes(), b"12");
    assert_eq!(
        OrdRejReason::from_bytes(b"0"),
        Some(OrdRejReason::BrokerOption)
    );
    assert_eq!(ExecType::PendingCancel.as_bytes(), b"6");
    assert_eq!(PartyRole::ExecutingFirm.as_bytes(), b"1");
    assert_eq!(CxlRejResponseTo::OrderCancelReplaceRequest.as_bytes(), b"2");
    assert_eq!(
        BusinessRejectReason::UnsupportedMessageType.as_bytes(),
        b"3"
    );
    // An unknown value on the wire reads as UnknownValue, the raw bytes stay reachable.
    let bytes = wire("8=FIX.4.4|9=15|35=D|54=Z|40=Q|10=000|");
    let mut decoder = Decoder::new(DecoderConfig {
        validate_checksum: false,
        ..Default::default()
    });
    let o = peregrine_messages::fix44::NewOrderSingle::from_view(decoder.decode(&bytes).unwrap())
        .unwrap();
    assert_eq!(o.side(), Some(Err(FieldError::UnknownValue)));
    assert_eq!(o.raw_field(54), Some(&b"Z"[..]));
    assert_eq!(o.price(), None);
}

#[test]
fn typed_errors_are_values() {
    let bytes = wire("8=FIX.4.4|9=23|35=D|38=1x|60=2024|44=|10=000|");
    let mut decoder = Decoder::new(DecoderConfig {
        validate_checksum: false,
        ..Default::default()
    });
    let v = decoder.decode(&bytes);
    // An empty value may be refused by the decoder itself; if not, the getter reports it.
    if let Ok(v) = v {
        let o = peregrine_messages::fix44::NewOrderSingle::from_view(v).unwrap();
        assert!(matches!(o.order_qty(), Some(Err(FieldError::Value(_)))));
        assert!(matches!(o.transact_time(), Some(Err(FieldError::Value(_)))));
    }
}

#[test]
fn strings_read_with_and_without_a_valid_utf8_message() {
    let mut decoder = Decoder::new(DecoderConfig {
        validate_checksum: false,
        validate_body_length: false,
        ..Default::default()
    });
    // Valid UTF-8 throughout: strings are sliced out of the whole message.
    let bytes = "8=FIX.4.4|9=0|35=D|11=ORD|58=héllo|10=000|"
        .replace('|', "\x01")
        .into_bytes();
    let o = peregrine_messages::fix44::NewOrderSingle::from_view(decoder.decode(&bytes).unwrap())
        .unwrap();
    assert_eq!(o.text(), Some(Ok("héllo")));
    assert_eq!(o.cl_ord_id(), Some(Ok("ORD")));
    // One invalid byte: every string is validated on its own, only that one fails.
    let mut bytes = bytes.clone();
    let at = bytes.windows(3).position(|w| w == b"ORD").unwrap();
    bytes[at + 1] = 0xff;
    let o = peregrine_messages::fix44::NewOrderSingle::from_view(decoder.decode(&bytes).unwrap())
        .unwrap();
    assert!(matches!(o.cl_ord_id(), Some(Err(FieldError::Value(_)))));
    assert_eq!(o.text(), Some(Ok("héllo")));
}

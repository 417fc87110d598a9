//! Hand-written round trips for FIX 4.2, 4.4 and 5.0 SP2 (with the FIXT 1.1 header): typed
//! build → encode → decode → typed read, with repeating and nested groups, and the built
//! message accepted by the dictionary validator (so the builders write what the dictionary
//! describes). The generated per-message round trips live in each version module's tests.
//! Each module runs when its feature is on (`cargo test -p peregrine-messages --all-features`).

#![cfg(any(feature = "fix42", feature = "fix44", feature = "fix50sp2"))]
#![allow(unused_imports)]

use peregrine_dict::{Dictionary, ValidationSettings, Validator};
use peregrine_messages::codec::value::{Decimal, TimePrecision, UtcTimestamp};
use peregrine_messages::codec::{Decoder, DecoderConfig, EncodeBuffer, MessageView};
use peregrine_messages::{FieldError, FixEnum};

fn dict(file: &str) -> Dictionary {
    Dictionary::from_file(format!(
        "{}/../peregrine-dict/dictionaries/{file}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap_or_else(|e| panic!("{e}"))
}

fn ts() -> UtcTimestamp {
    UtcTimestamp::from_unix_nanos(1_705_314_600_123_000_000, TimePrecision::Millis)
}

/// The header every test writes on builder `$b` (any version's): TW to ISLD, MsgSeqNum
/// `$seq`, SendingTime [`ts`].
macro_rules! header {
    ($b:ident, $seq:expr) => {
        $b.sender_comp_id("TW")
            .target_comp_id("ISLD")
            .msg_seq_num($seq)
            .sending_time(ts())
    };
}

#[cfg(feature = "fix42")]
mod fix42 {
    use super::*;
    use peregrine_messages::fix42::enums::{HandlInst, OrdType, Side};
    use peregrine_messages::fix42::prelude::*;
    use peregrine_messages::fix42::{tags, NewOrderSingle, BEGIN_STRING};

    /// The fields of a decoded message as `tag=value|…`, for exact-byte assertions.
    fn text(view: &MessageView<'_>) -> String {
        view.fields()
            .map(|f| format!("{}={}|", f.tag, String::from_utf8_lossy(f.value)))
            .collect()
    }

    #[test]
    fn new_order_single_with_allocations() {
        let mut buf = EncodeBuffer::new();
        let mut b = NewOrderSingle::builder(&mut buf);
        header!(b, 2);
        b.cl_ord_id("ORD42")
            .handl_inst(HandlInst::AutomatedExecutionOrderPrivateNoBrokerIntervention);
        let mut allocs = b.no_allocs(2);
        allocs
            .entry()
            .alloc_account("ACC1")
            .alloc_shares(Decimal::new(60, 0));
        allocs
            .entry()
            .alloc_account("ACC2")
            .alloc_shares(Decimal::new(40, 0));
        b.symbol("IBM")
            .side(Side::Sell)
            .transact_time(ts())
            .order_qty(Decimal::new(100, 0))
            .ord_type(OrdType::Limit)
            .price(Decimal::new(12525, 2));
        let wire = b.finish().to_vec();
        assert!(wire.starts_with(b"8=FIX.4.2\x01"));
        assert_eq!(BEGIN_STRING, b"FIX.4.2");

        let mut decoder = Decoder::new(DecoderConfig::default());
        let view = decoder.decode(&wire).expect("decodes");
        assert_eq!(
            text(&view)
                .split_once("35=D|")
                .map(|(_, rest)| rest.rsplit_once("10=").unwrap().0),
            Some(
                "49=TW|56=ISLD|34=2|52=20240115-10:30:00.123|11=ORD42|21=1|78=2|79=ACC1|80=60|\
                 79=ACC2|80=40|55=IBM|54=2|60=20240115-10:30:00.123|38=100|40=2|44=125.25|"
            )
        );
        let o = NewOrderSingle::from_view(view).expect("MsgType D");
        assert_eq!(o.sender_comp_id(), Some(Ok("TW")));
        assert_eq!(o.msg_seq_num(), Some(Ok(2)));
        assert_eq!(o.sending_time(), Some(Ok(ts())));
        assert_eq!(o.cl_ord_id(), Some(Ok("ORD42")));
        assert_eq!(
            o.handl_inst(),
            Some(Ok(
                HandlInst::AutomatedExecutionOrderPrivateNoBrokerIntervention
            ))
        );
        assert_eq!(o.side(), Some(Ok(Side::Sell)));
        assert_eq!(o.price(), Some(Ok(Decimal::new(12525, 2))));
        assert_eq!(o.account(), None);
        let allocs: Vec<_> = o
            .no_allocs()
            .map(|e| (e.alloc_account(), e.alloc_shares()))
            .collect();
        assert_eq!(
            allocs,
            [
                (Some(Ok("ACC1")), Some(Ok(Decimal::new(60, 0)))),
                (Some(Ok("ACC2")), Some(Ok(Decimal::new(40, 0)))),
            ]
        );
        assert_eq!(o.no_allocs().declared_count(), Some(Ok(2)));
        assert_eq!(tags::NO_ALLOCS, 78);

        let d = dict("FIX42.xml");
        let v = Validator::new(&d, ValidationSettings::default());
        assert_eq!(v.validate(&view), Ok(()));
    }

    #[test]
    fn typed_parse_errors_and_unknown_enum_values() {
        let msg = peregrine_testkit::frame_with(
            "FIX.4.2",
            "35=D|49=TW|56=ISLD|34=x|52=20240115-10:30:00|11=O|21=9|55=IBM|54=1|\
             60=20240115|38=1.5.0|40=2|",
        );
        let mut decoder = Decoder::new(DecoderConfig::default());
        let o = NewOrderSingle::from_view(decoder.decode(&msg).unwrap()).unwrap();
        assert!(matches!(o.msg_seq_num(), Some(Err(FieldError::Value(_)))));
        assert_eq!(o.handl_inst(), Some(Err(FieldError::UnknownValue)));
        assert!(matches!(o.transact_time(), Some(Err(FieldError::Value(_)))));
        assert!(matches!(o.order_qty(), Some(Err(FieldError::Value(_)))));
        assert_eq!(o.raw_field(38), Some(&b"1.5.0"[..]));
        assert_eq!(o.symbol(), Some(Ok("IBM")));
        assert_eq!(o.no_allocs().count(), 0);
        assert!(!o.no_allocs().is_present());
    }
}

#[cfg(feature = "fix44")]
mod fix44 {
    use super::*;
    use peregrine_messages::fix44::enums::{MDEntryType, SubscriptionRequestType};
    use peregrine_messages::fix44::prelude::*;
    use peregrine_messages::fix44::MarketDataRequest;

    #[test]
    fn market_data_request_validates() {
        let mut buf = EncodeBuffer::new();
        let mut b = MarketDataRequest::builder(&mut buf);
        header!(b, 7);
        b.md_req_id("MDR1")
            .subscription_request_type(SubscriptionRequestType::Snapshot)
            .market_depth(1);
        let mut types = b.no_md_entry_types(2);
        types.entry().md_entry_type(MDEntryType::Bid);
        types.entry().md_entry_type(MDEntryType::Offer);
        let mut syms = b.no_related_sym(1);
        syms.entry().symbol("AAPL");
        let wire = b.finish().to_vec();
        let mut decoder = Decoder::new(DecoderConfig::default());
        let view = decoder.decode(&wire).unwrap();
        let d = dict("FIX44.xml");
        assert_eq!(
            Validator::new(&d, ValidationSettings::default()).validate(&view),
            Ok(())
        );
        let m = MarketDataRequest::from_view(view).unwrap();
        let syms: Vec<_> = m.no_related_sym().map(|e| e.symbol()).collect();
        assert_eq!(syms, [Some(Ok("AAPL"))]);
    }
}

#[cfg(feature = "fix50sp2")]
mod fix50sp2 {
    use super::*;
    use peregrine_messages::fix50sp2::enums::{
        ApplVerID, OrdType, PartyIDSource, PartyRole, PartySubIDType, Side,
    };
    use peregrine_messages::fix50sp2::prelude::*;
    use peregrine_messages::fix50sp2::{NewOrderSingle, BEGIN_STRING};

    #[test]
    fn new_order_single_with_fixt_header_and_nested_parties() {
        let source = PartyIDSource::from_bytes(b"D").unwrap();
        let role = PartyRole::from_bytes(b"1").unwrap();
        let sub_type = PartySubIDType::from_bytes(b"1").unwrap();
        assert_eq!(BEGIN_STRING, b"FIXT.1.1");

        let mut buf = EncodeBuffer::new();
        let mut b = NewOrderSingle::builder(&mut buf);
        header!(b, 3).appl_ver_id(ApplVerID::Fix50sp2);
        b.cl_ord_id("ORD5");
        let mut parties = b.no_party_ids(2);
        {
            let p = parties.entry();
            p.party_id("BRK1").party_id_source(source).party_role(role);
            let mut subs = p.no_party_sub_ids(2);
            subs.entry()
                .party_sub_id("DESK1")
                .party_sub_id_type(sub_type);
            subs.entry()
                .party_sub_id("DESK2")
                .party_sub_id_type(sub_type);
        }
        parties
            .entry()
            .party_id("CLR2")
            .party_id_source(source)
            .party_role(role);
        b.side(Side::Buy)
            .symbol("MSFT")
            .transact_time(ts())
            .order_qty(Decimal::new(250, 0))
            .ord_type(OrdType::Market);
        let wire = b.finish().to_vec();
        assert!(wire.starts_with(b"8=FIXT.1.1\x01"));

        let mut decoder = Decoder::new(DecoderConfig::default());
        let view = decoder.decode(&wire).expect("decodes");
        let o = NewOrderSingle::from_view(view).unwrap();
        assert_eq!(o.appl_ver_id(), Some(Ok(ApplVerID::Fix50sp2)));
        assert_eq!(o.cl_ord_id(), Some(Ok("ORD5")));
        assert_eq!(o.order_qty(), Some(Ok(Decimal::new(250, 0))));
        let parties: Vec<_> = o.no_party_ids().collect();
        assert_eq!(parties.len(), 2);
        assert_eq!(parties[0].party_id(), Some(Ok("BRK1")));
        assert_eq!(parties[0].party_role(), Some(Ok(role)));
        let subs: Vec<_> = parties[0]
            .no_party_sub_ids()
            .map(|s| (s.party_sub_id(), s.party_sub_id_type()))
            .collect();
        assert_eq!(
            subs,
            [
                (Some(Ok("DESK1")), Some(Ok(sub_type))),
                (Some(Ok("DESK2")), Some(Ok(sub_type))),
            ]
        );
        assert_eq!(parties[1].party_id(), Some(Ok("CLR2")));
        assert_eq!(parties[1].no_party_sub_ids().count(), 0);

        let (t, app) = (dict("FIXT11.xml"), dict("FIX50SP2.xml"));
        let v = Validator::fixt(&t, &app, ValidationSettings::default());
        assert_eq!(v.validate(&view), Ok(()));
    }
}

//! A first application through the facade alone (`use peregrine::prelude::*`): a
//! venue (acceptor) and a client (initiator) on 127.0.0.1 log on, the client sends a
//! NewOrderSingle from another thread through its `Sender`, the venue fills it, and the
//! client's application sees the fill.

use std::sync::mpsc;
use std::time::Duration;

use peregrine::prelude::*;

/// Fills every NewOrderSingle at once.
struct Venue;

impl fix44::MessageHandler<Outbox<'_>> for Venue {
    type Error = AppReject;

    fn on_new_order_single(
        &mut self,
        order: fix44::NewOrderSingle<'_>,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let invalid = |tag| AppReject::business(0, format!("tag {tag} is missing or invalid"));
        let id = order.cl_ord_id().and_then(Result::ok).ok_or(invalid(11))?;
        let side = order.side().and_then(Result::ok).ok_or(invalid(54))?;
        let qty = order.order_qty().and_then(Result::ok).ok_or(invalid(38))?;
        let symbol = order.symbol().and_then(Result::ok).ok_or(invalid(55))?;
        out.send_typed::<fix44::ExecutionReport>(|fill| {
            fill.order_id(id)
                .exec_id(id)
                .exec_type(fix44::enums::ExecType::Trade)
                .ord_status(fix44::enums::OrdStatus::Filled)
                .cl_ord_id(id)
                .symbol(symbol)
                .side(side)
                .order_qty(qty)
                .last_qty(qty)
                .last_px(Decimal::new(10125, 2))
                .leaves_qty(Decimal::new(0, 0))
                .cum_qty(qty)
                .avg_px(Decimal::new(10125, 2));
        })?;
        Ok(())
    }
}

impl Application for Venue {
    fn from_app(
        &mut self,
        msg: &MessageView,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        fix44::crack(self, msg, out)
    }
}

/// Hands every fill's ClOrdID and OrdStatus to the test.
struct Client(mpsc::SyncSender<(String, Option<fix44::enums::OrdStatus>)>);

impl fix44::MessageHandler for Client {
    type Error = AppReject;

    fn on_execution_report(
        &mut self,
        report: fix44::ExecutionReport<'_>,
        _: &mut (),
    ) -> Result<(), AppReject> {
        let id = report.cl_ord_id().and_then(Result::ok).unwrap_or_default();
        let status = report.ord_status().and_then(Result::ok);
        // A bounded channel of 16; the test expects one report.
        let _ = self.0.try_send((id.to_string(), status));
        Ok(())
    }
}

impl Application for Client {
    fn from_app(
        &mut self,
        msg: &MessageView,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        fix44::crack(self, msg, &mut ())
    }
}

#[test]
fn venue_and_client_log_on_and_trade_through_the_prelude() -> Result<(), Box<dyn std::error::Error>>
{
    let venue_cfg = "
[DEFAULT]
ConnectionType=acceptor
SocketAcceptAddress=127.0.0.1
SocketAcceptPort=0
DataDictionary=FIX44.xml
[SESSION]
BeginString=FIX.4.4
SenderCompID=VENUE
TargetCompID=CLIENT
";
    let venue = EngineBuilder::parse(venue_cfg, "venue.cfg")?.start(|_| Venue)?;
    let port = venue.listener_addrs()[0].port();

    // The initiator's settings made in code this time, the same keys.
    let settings = Settings::builder()
        .default(|d| {
            d.connection_type(ConnectionType::Initiator)
                .heart_bt_int(30)
                .reconnect_interval(1)
                .data_dictionary("FIX44.xml")
        })
        .session("FIX.4.4", "CLIENT", "VENUE", |s| {
            s.socket_connect("127.0.0.1", port)
        })
        .build()?;
    let (fills, seen) = mpsc::sync_channel(16);
    let client = EngineBuilder::new(settings).start(move |_| Client(fills.clone()))?;
    assert!(
        client.wait_logged_on(Duration::from_secs(10)),
        "client not logged on"
    );
    assert!(
        venue.wait_logged_on(Duration::from_secs(10)),
        "venue not logged on"
    );

    let session = client
        .session_ref("FIX.4.4:CLIENT->VENUE")
        .ok_or("no session FIX.4.4:CLIENT->VENUE")?;
    let sender: Sender = client.sender();
    std::thread::spawn(move || {
        sender.send_typed::<fix44::NewOrderSingle>(session, |order| {
            order
                .cl_ord_id("ORD-1")
                .handl_inst(
                    fix44::enums::HandlInst::AutomatedExecutionOrderPrivateNoBrokerIntervention,
                )
                .symbol("PGRN")
                .side(fix44::enums::Side::Buy)
                .transact_time(UtcTimestamp::now(TimePrecision::Millis))
                .order_qty(Decimal::new(100, 0))
                .ord_type(fix44::enums::OrdType::Market);
        })
    })
    .join()
    .expect("sending thread")?;

    let fill = seen.recv_timeout(Duration::from_secs(10))?;
    assert_eq!(
        fill,
        ("ORD-1".to_string(), Some(fix44::enums::OrdStatus::Filled))
    );
    client.stop()?;
    venue.stop()?;
    Ok(())
}

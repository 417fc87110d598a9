//! A small client: an initiator that sends orders produced on another thread
//! and checks that each is filled exactly once, whatever happens to the
//! venue in between (crash, restart: the FIX resend recovers the rest).
//!
//! ```text
//! cargo run -p peregrine-examples --example client -- examples/client.cfg 1000
//! ```
//!
//! It sends one order a millisecond, prints `answered N` every 100 fills, and
//! exits with status 0 once every order is filled exactly once, 1 if not within
//! two minutes. An order answered Rejected (a router whose exchange is not
//! logged on yet) is sent again within 100 ms under a new ClOrdID, `ORD-<n>-<k>`.

use std::collections::HashSet;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use peregrine_engine::codec::MessageView;
use peregrine_engine::session::{AppEvent, AppReject, Application, Outbox, SessionId};
use peregrine_engine::{EngineBuilder, SubmitError};
use peregrine_messages::codec::value::{Decimal, TimePrecision, UtcTimestamp};
use peregrine_messages::fix44::enums::{HandlInst, OrdStatus, OrdType, Side};
use peregrine_messages::fix44::{
    self, prelude::*, ExecutionReport, MessageHandler, NewOrderSingle,
};

/// Time between two orders.
const PACE: Duration = Duration::from_millis(1);
/// How long the client waits for every answer.
const TIMEOUT: Duration = Duration::from_secs(120);

/// Orders to send again (rejected).
type Retries = Arc<Mutex<Vec<usize>>>;

/// Counts the fills of each order (`ORD-<n>`, sent again as `ORD-<n>-<k>`).
struct Client {
    answers: Vec<u32>,
    /// Orders answered Rejected (a router whose exchange was not logged on).
    retries: Retries,
    /// The ClOrdIDs answered Rejected (a resend of one is recognised).
    rejected: HashSet<String>,
    /// Orders sent again because the venue asked (it had lost or never seen them).
    orders_resent: u64,
    /// Orders answered at least once, for the main thread to watch.
    answered: Arc<AtomicUsize>,
}

impl MessageHandler for Client {
    type Error = AppReject;

    fn on_execution_report(
        &mut self,
        report: ExecutionReport<'_>,
        _: &mut (),
    ) -> Result<(), AppReject> {
        let id = report.cl_ord_id().value().unwrap_or_default();
        let order = (id.strip_prefix("ORD-").and_then(|n| n.split('-').next()))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n < self.answers.len())
            .ok_or_else(|| AppReject::business(0, "unknown ClOrdID"))?;
        let status = report.ord_status().value();
        let poss_dup = report.poss_dup_flag().value() == Some(true);
        if status == Some(OrdStatus::Rejected) {
            if self.rejected.insert(id.to_string()) {
                self.retries.lock().unwrap().push(order); // sent again later
            } else if !poss_dup {
                self.answers[order] += 2; // a Rejected sent twice as new: counted as twice
            }
        }
        if status != Some(OrdStatus::Filled) {
            return Ok(()); // not the final answer (a New, a Rejected)
        }
        if poss_dup && self.answers[order] > 0 {
            return Ok(()); // sent again (PossDupFlag=Y) for an order already filled
        }
        self.answers[order] += 1;
        if self.answers[order] == 1 {
            self.answered.fetch_add(1, Ordering::Relaxed);
        }
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

    fn on_event(&mut self, _id: &SessionId, event: &AppEvent<'_>, _out: &mut Outbox<'_>) {
        if let AppEvent::ResendAnswered { begin, end } = *event {
            self.orders_resent += end + 1 - begin;
        }
    }
}

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let cfg = args.next().unwrap_or("examples/client.cfg".into());
    let orders: usize = args.next().map_or(Ok(1000), |n| n.parse())?;
    // The session of the settings (CLIENT->VENUE, or C1->GW with the router).
    let sessions = peregrine_engine::Settings::load(&cfg)?.sessions;
    let session_name = &sessions.first().ok_or("no session")?.session_name();
    let (answered, retries) = (Arc::new(AtomicUsize::new(0)), Retries::default());
    let (counter, retry) = (answered.clone(), retries.clone());
    let client = EngineBuilder::load(&cfg)?.start(move |_session| Client {
        answers: vec![0; orders],
        retries: retry.clone(),
        rejected: HashSet::new(),
        orders_resent: 0,
        answered: counter.clone(),
    })?;
    if !client.wait_logged_on(Duration::from_secs(30)) {
        return Err("not logged on within 30 s".into());
    }

    // Orders come from another thread, through the engine's Sender.
    let sender = client.sender();
    let session = client.session_ref(session_name).ok_or("no session")?;
    let send = move |cl_ord_id: &str| {
        sender.send_typed_timeout::<NewOrderSingle>(session, TIMEOUT, |order| {
            order
                .cl_ord_id(cl_ord_id)
                .handl_inst(HandlInst::AutomatedExecutionOrderPrivateNoBrokerIntervention)
                .symbol("PGRN")
                .side(Side::Buy)
                .transact_time(UtcTimestamp::now(TimePrecision::Millis))
                .order_qty(Decimal::new(100, 0))
                .ord_type(OrdType::Limit)
                .price(Decimal::new(10125, 2));
        })
    };
    let producer_send = send.clone();
    let producer = std::thread::spawn(move || -> Result<(), SubmitError> {
        for n in 0..orders {
            producer_send(&format!("ORD-{n}"))?;
            std::thread::sleep(PACE);
        }
        Ok(())
    });

    let deadline = Instant::now() + TIMEOUT;
    let (mut reported, mut retried, mut retried_at) = (0, 0, Instant::now());
    while answered.load(Ordering::Relaxed) < orders && Instant::now() < deadline {
        let now = answered.load(Ordering::Relaxed);
        if now / 100 > reported / 100 {
            println!("answered {now}");
        }
        reported = now;
        // Rejected orders go again every 100 ms.
        if retried_at.elapsed() >= Duration::from_millis(100) {
            retried_at = Instant::now();
            for n in std::mem::take(&mut *retries.lock().unwrap()) {
                retried += 1;
                send(&format!("ORD-{n}-{retried}"))?;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    producer.join().expect("producer")?;

    // The engine gives its application back, typed: no shared state needed.
    let engine = client.stop()?;
    let app = engine.application(session_name).ok_or("no application")?;
    let once = app.answers.iter().filter(|&&n| n == 1).count();
    let missing = app.answers.iter().filter(|&&n| n == 0).count();
    let twice = app.answers.iter().filter(|&&n| n > 1).count();
    println!(
        "orders {}: answered once {once}, not answered {missing}, answered more than once {twice}, \
         messages resent at the venue's request {}, rejected and sent again {retried}",
        orders, app.orders_resent
    );
    Ok(if once == orders {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

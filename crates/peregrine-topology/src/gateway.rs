//! The gateway: a Peregrine FIX acceptor engine whose application turns each
//! NewOrderSingle into an SBE `NewOrder` on Aeron, and whose loop turns each SBE
//! `ExecutionReport` from Aeron back into a FIX ExecutionReport on the right session.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use peregrine_aeron::messages::{
    pack, Decimal64, Encode, ExecutionReport, NewOrder, OrdType, Side, TimeInForce,
};
use peregrine_aeron::{BusySpin, Publisher, Subscriber};
use peregrine_agent::{run_agent, Agent};
use peregrine_codec::value::{parse_decimal, parse_timestamp};
use peregrine_codec::{msg_type, MessageView};
use peregrine_engine::{AppEngine, Idle};
use peregrine_messages::fix44::tags;
use peregrine_session::{AppReject, Application, Outbox, SessionId};

use crate::steps::{point, Stamps};
use crate::Error;

/// How long a publication may refuse (back pressure, no subscriber) before the gateway
/// rejects the order.
const PUBLISH_PATIENCE: Duration = Duration::from_secs(1);

/// Counters of the gateway application.
///
/// ```
/// let c = peregrine_topology::gateway::GatewayCounters::default();
/// assert_eq!((c.orders, c.rejected, c.reports, c.bad_reports), (0, 0, 0, 0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GatewayCounters {
    /// NewOrderSingles turned into SBE `NewOrder`s and published.
    pub orders: u64,
    /// Orders refused (a missing or bad field, or Aeron refused them for too long).
    pub rejected: u64,
    /// FIX ExecutionReports sent.
    pub reports: u64,
    /// SBE reports that did not decode or named an unknown session.
    pub bad_reports: u64,
}

/// The gateway's FIX application for one session: NewOrderSingle → SBE `NewOrder`,
/// published with `try_claim` on the shared orders publication.
///
/// ```no_run
/// # use std::{cell::RefCell, rc::Rc};
/// # use peregrine_aeron::{AeronClient, Channel, ClientConfig, DriverConfig, MediaDriver};
/// # use peregrine_topology::gateway::{GatewayApp, GatewayCounters};
/// # use peregrine_topology::{ORDERS_STREAM, REPORTS_STREAM};
/// #
/// # let driver = MediaDriver::launch(&DriverConfig::default())?;
/// # let client = AeronClient::connect(&ClientConfig::with_dir(driver.dir().to_string()))?;
/// let counters = Rc::new(RefCell::new(GatewayCounters::default()));
/// let orders = Rc::new(RefCell::new(client.publisher(&Channel::ipc(), ORDERS_STREAM)?));
/// let app = GatewayApp::new(orders, counters.clone(), None, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct GatewayApp {
    orders: Rc<RefCell<Publisher>>,
    counters: Rc<RefCell<GatewayCounters>>,
    stamps: Option<Arc<Stamps>>,
    session_index: u64,
    scratch: [u8; 256],
}

impl std::fmt::Debug for GatewayApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatewayApp")
            .field("session_index", &self.session_index)
            .finish()
    }
}

impl GatewayApp {
    /// The application of the session with index `session_index` (the `session_id` the
    /// SBE messages carry), publishing on `orders`.
    ///
    /// ```no_run
    /// # use std::{cell::RefCell, rc::Rc};
    /// # use peregrine_aeron::{AeronClient, Channel, ClientConfig, DriverConfig, MediaDriver};
    /// # use peregrine_topology::gateway::{GatewayApp, GatewayCounters};
    /// # use peregrine_topology::{ORDERS_STREAM, REPORTS_STREAM};
    /// #
    /// # let driver = MediaDriver::launch(&DriverConfig::default())?;
    /// # let client = AeronClient::connect(&ClientConfig::with_dir(driver.dir().to_string()))?;
    /// let counters = Rc::new(RefCell::new(GatewayCounters::default()));
    /// let orders = Rc::new(RefCell::new(client.publisher(&Channel::ipc(), ORDERS_STREAM)?));
    /// let app = GatewayApp::new(orders, counters.clone(), None, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(
        orders: Rc<RefCell<Publisher>>,
        counters: Rc<RefCell<GatewayCounters>>,
        stamps: Option<Arc<Stamps>>,
        session_index: u64,
    ) -> Self {
        GatewayApp {
            orders,
            counters,
            stamps,
            session_index,
            scratch: [0; 256],
        }
    }

    #[inline]
    fn stamp(&self, p: usize) {
        if let Some(s) = &self.stamps {
            s.stamp(p);
        }
    }
}

fn reject(text: &'static str) -> AppReject {
    AppReject::business(0, text)
}

fn fixed_point(v: Option<&[u8]>) -> Option<Decimal64> {
    Decimal64::from_decimal(parse_decimal(v?).ok()?)
}

/// Extracts the fields of a NewOrderSingle into an SBE `NewOrder` (prices and
/// quantities as fixed point, text fields packed).
///
/// ```
/// use peregrine_codec::{Decoder, DecoderConfig};
/// use peregrine_topology::{gateway::extract, samples};
///
/// let bytes = samples::wire_bytes().fix_nos;
/// let mut decoder = Decoder::new(DecoderConfig::default());
/// let order = extract(&decoder.decode(&bytes).unwrap(), 7).unwrap();
/// assert_eq!(order.session_id, 7);
/// assert_eq!(order.cl_ord_id, samples::sample_order().cl_ord_id);
/// ```
///
/// # Errors
///
/// The text of the business reject: which field is missing, too long or not supported
/// (static text, so that a reject does not allocate).
#[inline]
pub fn extract(msg: &MessageView<'_>, session_index: u64) -> Result<NewOrder, &'static str> {
    let cl_ord_id =
        pack(msg.get(tags::CL_ORD_ID).ok_or("ClOrdID(11) missing")?).ok_or("ClOrdID too long")?;
    let symbol =
        pack(msg.get(tags::SYMBOL).ok_or("Symbol(55) missing")?).ok_or("Symbol too long")?;
    let account = match msg.get(tags::ACCOUNT) {
        Some(a) => pack(a).ok_or("Account too long")?,
        None => [0; peregrine_aeron::messages::ACCOUNT_LEN],
    };
    let side = match msg.get(tags::SIDE) {
        Some([c]) => Side::from(*c),
        _ => Side::NullVal,
    };
    if side == Side::NullVal {
        return Err("Side(54) missing or unsupported");
    }
    let ord_type = match msg.get(tags::ORD_TYPE) {
        Some([c]) => OrdType::from(*c),
        _ => OrdType::NullVal,
    };
    if ord_type == OrdType::NullVal {
        return Err("OrdType(40) missing or unsupported");
    }
    let time_in_force = match msg.get(tags::TIME_IN_FORCE) {
        Some([c]) => TimeInForce::from(*c),
        None => TimeInForce::Day,
        _ => TimeInForce::NullVal,
    };
    if time_in_force == TimeInForce::NullVal {
        return Err("TimeInForce(59) unsupported");
    }
    let order_qty = fixed_point(msg.get(tags::ORDER_QTY)).ok_or("OrderQty(38) missing or bad")?;
    let price = match msg.get(tags::PRICE) {
        Some(p) => fixed_point(Some(p)).ok_or("Price(44) bad")?,
        None if ord_type == OrdType::Market => Decimal64::NULL,
        None => return Err("Price(44) missing"),
    };
    let transact_time = parse_timestamp(
        msg.get(tags::TRANSACT_TIME)
            .ok_or("TransactTime(60) missing")?,
    )
    .map_err(|_| "TransactTime(60) bad")?
    .to_unix_nanos()
    .max(0) as u64;
    Ok(NewOrder {
        session_id: session_index,
        transact_time,
        price,
        order_qty,
        cl_ord_id,
        symbol,
        account,
        side,
        ord_type,
        time_in_force,
    })
}

impl Application for GatewayApp {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        if let Some(s) = &self.stamps {
            // When the engine's read returned (its clock is crate::clock's).
            s.set(
                point::GW_READ,
                u64::try_from(out.received_at()).unwrap_or(0),
            );
            s.stamp(point::GW_PARSED);
        }
        if msg.msg_type() != msg_type::NEW_ORDER_SINGLE {
            return Err(AppReject::UnsupportedMessageType);
        }
        let order = match extract(msg, self.session_index) {
            Ok(o) => o,
            Err(why) => {
                self.counters.borrow_mut().rejected += 1;
                return Err(reject(why));
            }
        };
        self.stamp(point::GW_EXTRACTED);
        let n = order
            .encode(&mut self.scratch)
            .map_err(|_| reject("order does not encode"))?;
        self.stamp(point::GW_ENCODED);
        let published = self.orders.borrow_mut().publish_retry(
            &self.scratch[..n],
            &mut BusySpin,
            PUBLISH_PATIENCE,
        );
        self.stamp(point::GW_PUBLISHED);
        let mut c = self.counters.borrow_mut();
        match published {
            Ok(_) => {
                c.orders += 1;
                Ok(())
            }
            Err(_) => {
                c.rejected += 1;
                Err(reject("order routing unavailable"))
            }
        }
    }
}

/// The gateway's loop: the acceptor engine, the reports subscription, and the names of
/// the sessions by index. Its applications share the orders publication and the counters
/// with the loop (single-threaded `Rc`, and an Aeron publication is `!Send`), so the
/// engine is built with [`EngineBuilder::build_local`](peregrine_engine::EngineBuilder::build_local)
/// and turned by this loop between polls of the reports.
///
/// ```no_run
/// # use std::{cell::RefCell, rc::Rc};
/// # use peregrine_aeron::{AeronClient, Channel, ClientConfig, DriverConfig, MediaDriver};
/// # use peregrine_engine::{EngineBuilder, Idle};
/// # use peregrine_topology::gateway::{Gateway, GatewayApp, GatewayCounters};
/// # use peregrine_topology::{ORDERS_STREAM, REPORTS_STREAM};
/// #
/// # let driver = MediaDriver::launch(&DriverConfig::default())?;
/// # let client = AeronClient::connect(&ClientConfig::with_dir(driver.dir().to_string()))?;
/// let counters = Rc::new(RefCell::new(GatewayCounters::default()));
/// let orders = Rc::new(RefCell::new(client.publisher(&Channel::ipc(), ORDERS_STREAM)?));
/// let cfg = "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=GATEWAY\nTargetCompID=VENUE\n\
///            UseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n";
/// let engine = EngineBuilder::parse(cfg, "gateway.cfg")?
///     .build_local(|_| GatewayApp::new(orders.clone(), counters.clone(), None, 0))?;
/// let reports = client.subscriber(&Channel::ipc(), REPORTS_STREAM)?;
/// let sessions = engine.sessions().into_iter().map(|s| s.name).collect();
/// let mut gateway = Gateway { engine, reports, sessions, counters, stamps: None };
/// let seq = gateway.run(&mut Idle::spin_then_yield(100), &std::sync::atomic::AtomicBool::new(true))?;
/// # let _ = seq;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Gateway {
    /// The acceptor engine.
    pub engine: AppEngine<GatewayApp>,
    /// SBE ExecutionReports from the executor.
    pub reports: Subscriber,
    /// Session names (`FIX.4.4:GATEWAY->VENUE`) by the index the SBE messages carry.
    pub sessions: Vec<String>,
    /// Counters shared with the applications.
    pub counters: Rc<RefCell<GatewayCounters>>,
    /// Stamps of the order in flight, when timing steps.
    pub stamps: Option<Arc<Stamps>>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("sessions", &self.sessions)
            .finish()
    }
}

impl Gateway {
    /// One iteration: poll the engine (TCP in, NewOrderSingles out to Aeron), then poll
    /// the reports (SBE in, FIX ExecutionReports out to TCP). Returns whether anything
    /// happened.
    ///
    /// ```no_run
    /// # use std::{cell::RefCell, rc::Rc};
    /// # use peregrine_aeron::{AeronClient, Channel, ClientConfig, DriverConfig, MediaDriver};
    /// # use peregrine_engine::{EngineBuilder, Idle};
    /// # use peregrine_topology::gateway::{Gateway, GatewayApp, GatewayCounters};
    /// # use peregrine_topology::{ORDERS_STREAM, REPORTS_STREAM};
    /// #
    /// # let driver = MediaDriver::launch(&DriverConfig::default())?;
    /// # let client = AeronClient::connect(&ClientConfig::with_dir(driver.dir().to_string()))?;
    /// # let counters = Rc::new(RefCell::new(GatewayCounters::default()));
    /// # let orders = Rc::new(RefCell::new(client.publisher(&Channel::ipc(), ORDERS_STREAM)?));
    /// # let cfg = "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=GATEWAY\nTargetCompID=VENUE\n\
    /// #            UseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n";
    /// # let engine = EngineBuilder::parse(cfg, "gateway.cfg")?
    /// #     .build_local(|_| GatewayApp::new(orders.clone(), counters.clone(), None, 0))?;
    /// # let reports = client.subscriber(&Channel::ipc(), REPORTS_STREAM)?;
    /// # let sessions = engine.sessions().into_iter().map(|s| s.name).collect();
    /// # let mut gateway = Gateway { engine, reports, sessions, counters, stamps: None };
    /// while gateway.counters.borrow().reports < 10 {
    ///     gateway.turn()?;
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Transport`]: the engine's poll or the reports subscription failed.
    #[inline]
    pub fn turn(&mut self) -> crate::Result<bool> {
        let mut work = self
            .engine
            .poll()
            .map_err(|e| Error::transport("gateway", "engine poll", e))?;
        let engine = &mut self.engine;
        let sessions = &self.sessions;
        let counters = &self.counters;
        let stamps = &self.stamps;
        let n = self
            .reports
            .poll(
                |bytes| {
                    let Ok(report) = ExecutionReport::decode(bytes) else {
                        counters.borrow_mut().bad_reports += 1;
                        return;
                    };
                    if let Some(s) = stamps {
                        s.stamp(point::GW_ER_DECODED);
                    }
                    let Some(name) = sessions.get(report.session_id as usize) else {
                        counters.borrow_mut().bad_reports += 1;
                        return;
                    };
                    let sent = engine.with_session(name, |d, now| {
                        d.send(now, msg_type::EXECUTION_REPORT, |m| {
                            crate::samples::er_body(m, &report)
                        })
                    });
                    if let Some(s) = stamps {
                        s.stamp(point::GW_WRITTEN);
                        s.gateway_finished();
                    }
                    match sent {
                        Some(Ok(_)) => counters.borrow_mut().reports += 1,
                        _ => counters.borrow_mut().bad_reports += 1,
                    }
                },
                16,
            )
            .map_err(|e| Error::transport("gateway", "reports poll", e))?;
        work |= n > 0;
        Ok(work)
    }

    /// Runs the gateway as an [`Agent`] ([`turn`](Self::turn) by turn, idling with
    /// `idle`) until `running` is cleared; then reads the first session's next sender and
    /// target sequence numbers and shuts the engine down (Logout on every session).
    /// Returns the sequence numbers as they were before the shutdown.
    ///
    /// ```no_run
    /// # use std::{cell::RefCell, rc::Rc};
    /// # use peregrine_aeron::{AeronClient, Channel, ClientConfig, DriverConfig, MediaDriver};
    /// # use peregrine_engine::{EngineBuilder, Idle};
    /// # use peregrine_topology::gateway::{Gateway, GatewayApp, GatewayCounters};
    /// # use peregrine_topology::{ORDERS_STREAM, REPORTS_STREAM};
    /// #
    /// # let driver = MediaDriver::launch(&DriverConfig::default())?;
    /// # let client = AeronClient::connect(&ClientConfig::with_dir(driver.dir().to_string()))?;
    /// # let counters = Rc::new(RefCell::new(GatewayCounters::default()));
    /// # let orders = Rc::new(RefCell::new(client.publisher(&Channel::ipc(), ORDERS_STREAM)?));
    /// # let cfg = "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=GATEWAY\nTargetCompID=VENUE\n\
    /// #            UseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n";
    /// # let engine = EngineBuilder::parse(cfg, "gateway.cfg")?
    /// #     .build_local(|_| GatewayApp::new(orders.clone(), counters.clone(), None, 0))?;
    /// # let reports = client.subscriber(&Channel::ipc(), REPORTS_STREAM)?;
    /// # let sessions = engine.sessions().into_iter().map(|s| s.name).collect();
    /// # let mut gateway = Gateway { engine, reports, sessions, counters, stamps: None };
    /// let running = std::sync::atomic::AtomicBool::new(true); // cleared elsewhere to stop
    /// let (next_sender, next_target) = gateway.run(&mut Idle::spin_then_yield(100), &running)?;
    /// println!("gateway stopped at {next_sender}/{next_target}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The first error of a turn (the engine is not shut down then), or
    /// [`Error::Transport`] from the shutdown.
    pub fn run(&mut self, idle: &mut Idle, running: &AtomicBool) -> crate::Result<(u64, u64)> {
        run_agent(self, idle, running)?;
        let seq = self
            .engine
            .sessions()
            .first()
            .map_or((0, 0), |s| (s.next_sender_seq, s.next_target_seq));
        self.engine
            .shutdown()
            .map_err(|e| Error::transport("gateway", "shutdown", e))?;
        Ok(seq)
    }
}

/// The gateway's duty cycle is a [`turn`](Gateway::turn): the engine, then the reports.
impl Agent for Gateway {
    type Error = Error;

    #[inline]
    fn do_work(&mut self, _may_wait: Duration) -> crate::Result<usize> {
        self.turn().map(usize::from)
    }

    fn role_name(&self) -> &str {
        "gateway"
    }
}

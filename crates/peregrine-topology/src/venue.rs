//! The venue: a Peregrine FIX initiator engine that sends NewOrderSingles one at a time
//! and times each round trip until its ExecutionReport is back.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hdrhistogram::Histogram;
use peregrine_agent::SpinThenYield;
use peregrine_codec::{msg_type, MessageView};
use peregrine_engine::{AppEngine, Idle};
use peregrine_messages::fix44::tags;
use peregrine_session::{AppReject, Application, Outbox, SessionId};

use crate::samples::{self, CL_ORD_ID_LEN_TEXT};
use crate::steps::{new_histogram, point, Stamps, StepHistograms};
use crate::wait::{gateway_stamps, poll_until, Polled};
use crate::Error;

/// What the venue's application saw, shared with the venue's loop (same thread).
///
/// ```
/// let state = peregrine_topology::venue::VenueState::default();
/// assert_eq!((state.received.get(), state.errors.get()), (0, 0));
/// assert!(state.first_error.borrow().is_none());
/// ```
#[derive(Debug, Default)]
pub struct VenueState {
    /// ExecutionReports received.
    pub received: Cell<u64>,
    /// The ClOrdID of the order in flight.
    pub expected: Cell<[u8; CL_ORD_ID_LEN_TEXT]>,
    /// When the last ExecutionReport reached the application ([`crate::clock::now`]).
    pub received_at: Cell<u64>,
    /// ExecutionReports that did not match their order.
    pub errors: Cell<u64>,
    /// The first mismatch.
    pub first_error: RefCell<Option<FillMismatch>>,
}

/// The venue's FIX application: checks each ExecutionReport against the order in flight.
///
/// ```
/// use std::rc::Rc;
/// use peregrine_topology::venue::{VenueApp, VenueState};
///
/// let state = Rc::new(VenueState::default());
/// let app = VenueApp::new(state.clone()); // the session's application
/// # let _ = app;
/// ```
#[derive(Debug)]
pub struct VenueApp {
    state: Rc<VenueState>,
}

impl VenueApp {
    /// An application reporting into `state`.
    ///
    /// ```
    /// let state = std::rc::Rc::new(peregrine_topology::venue::VenueState::default());
    /// let app = peregrine_topology::venue::VenueApp::new(state);
    /// # let _ = app;
    /// ```
    pub fn new(state: Rc<VenueState>) -> Self {
        VenueApp { state }
    }
}

/// An ExecutionReport that does not match the order in flight: the first field that
/// differs.
///
/// ```
/// use peregrine_topology::venue::FillMismatch;
/// let m = FillMismatch { tag: 39, got: Some("0".into()), want: "2".into() };
/// assert_eq!(m.to_string(), r#"ExecutionReport tag 39: got Some("0"), want "2""#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillMismatch {
    /// The tag.
    pub tag: u32,
    /// Its value in the report (`None`: missing).
    pub got: Option<String>,
    /// The value the order calls for.
    pub want: String,
}

impl std::fmt::Display for FillMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ExecutionReport tag {}: got {:?}, want {:?}",
            self.tag, self.got, self.want
        )
    }
}

impl std::error::Error for FillMismatch {}

/// Checks a fill against the order in flight (ClOrdID `expected`, the sample order's
/// symbol, price and quantity, filled in full).
fn check(msg: &MessageView<'_>, expected: &[u8]) -> Result<(), FillMismatch> {
    let want: [(u32, &[u8]); 9] = [
        (tags::CL_ORD_ID, expected),
        (tags::ORD_STATUS, b"2"),
        (tags::EXEC_TYPE, b"F"),
        (tags::SYMBOL, samples::SYMBOL),
        (tags::LAST_PX, samples::PRICE),
        (tags::PRICE, samples::PRICE),
        (tags::LAST_QTY, samples::QTY),
        (tags::CUM_QTY, samples::QTY),
        (tags::LEAVES_QTY, b"0"),
    ];
    for (tag, v) in want {
        if msg.get(tag) != Some(v) {
            return Err(FillMismatch {
                tag,
                got: msg
                    .get(tag)
                    .map(|g| String::from_utf8_lossy(g).into_owned()),
                want: String::from_utf8_lossy(v).into_owned(),
            });
        }
    }
    Ok(())
}

impl Application for VenueApp {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.state.received_at.set(crate::clock::now());
        if msg.msg_type() != msg_type::EXECUTION_REPORT {
            return Err(AppReject::UnsupportedMessageType);
        }
        if let Err(e) = check(msg, &self.state.expected.get()) {
            self.state.errors.set(self.state.errors.get() + 1);
            self.state.first_error.borrow_mut().get_or_insert(e);
        }
        self.state.received.set(self.state.received.get() + 1);
        Ok(())
    }
}

/// What the venue measured.
///
/// ```no_run
/// # use std::rc::Rc;
/// # use peregrine_engine::EngineBuilder;
/// # use peregrine_engine::Idle;
/// # use peregrine_topology::venue::{Venue, VenueApp, VenueState};
/// let cfg = "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=9880\n\
///            SenderCompID=VENUE\nTargetCompID=GATEWAY\nHeartBtInt=30\nUseDataDictionary=N\n\
///            [SESSION]\nBeginString=FIX.4.4\n";
/// let state = Rc::new(VenueState::default());
/// // The application shares `state` with the venue's loop: build_local.
/// let engine = EngineBuilder::parse(cfg, "venue.cfg")?.build_local(|_| VenueApp::new(state.clone()))?;
/// let session = engine.sessions()[0].name.clone();
/// let mut venue = Venue { engine, session, state, stamps: None };
/// # venue.logon(&mut Idle::spin_then_yield(100), std::time::Duration::from_secs(20))?;
/// let done = std::sync::atomic::AtomicU64::new(0);
/// let r = venue.run(100, 1_000, &mut Idle::spin_then_yield(100), std::time::Duration::from_secs(20), &done, None)?;
/// assert_eq!((r.rtt.len(), r.fills, r.errors), (1_000, 1_100, 0));
/// println!("p50 {} ns over {:?}", r.rtt.value_at_quantile(0.5), r.wall);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct VenueResult {
    /// Round-trip times of the measured orders, ns.
    pub rtt: Histogram<u64>,
    /// Per-step times (empty histograms when steps were not timed).
    pub steps: StepHistograms,
    /// Wall time of the measured phase.
    pub wall: Duration,
    /// Allocations in the process over the measured phase, when counted.
    pub allocations: Option<u64>,
    /// ExecutionReports received (warm-up included).
    pub fills: u64,
    /// ExecutionReports that did not match their order.
    pub errors: u64,
    /// The first mismatch.
    pub first_error: Option<FillMismatch>,
}

/// The venue's loop: an initiator engine with one session, which sends the orders and
/// waits for each reply.
///
/// ```no_run
/// # use std::rc::Rc;
/// # use peregrine_engine::EngineBuilder;
/// # use peregrine_engine::Idle;
/// # use peregrine_topology::venue::{Venue, VenueApp, VenueState};
/// let cfg = "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=9880\n\
///            SenderCompID=VENUE\nTargetCompID=GATEWAY\nHeartBtInt=30\nUseDataDictionary=N\n\
///            [SESSION]\nBeginString=FIX.4.4\n";
/// let state = Rc::new(VenueState::default());
/// // The application shares `state` with the venue's loop: build_local.
/// let engine = EngineBuilder::parse(cfg, "venue.cfg")?.build_local(|_| VenueApp::new(state.clone()))?;
/// let session = engine.sessions()[0].name.clone();
/// let mut venue = Venue { engine, session, state, stamps: None };
/// let mut idle = Idle::spin_then_yield(100);
/// venue.logon(&mut idle, std::time::Duration::from_secs(20))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Venue {
    /// The initiator engine.
    pub engine: AppEngine<VenueApp>,
    /// The session's name (`FIX.4.4:VENUE->GATEWAY`).
    pub session: String,
    /// Shared with the application.
    pub state: Rc<VenueState>,
    /// Stamps shared with the gateway and executor, when timing steps.
    pub stamps: Option<Arc<Stamps>>,
}

impl std::fmt::Debug for Venue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Venue")
            .field("session", &self.session)
            .finish()
    }
}

impl Venue {
    /// Turns the engine until the session is logged on (at most `timeout`).
    ///
    /// ```no_run
    /// # use std::rc::Rc;
    /// # use peregrine_engine::EngineBuilder;
    /// # use peregrine_engine::Idle;
    /// # use peregrine_topology::venue::{Venue, VenueApp, VenueState};
    /// # let cfg = "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=9880\n\
    /// #            SenderCompID=VENUE\nTargetCompID=GATEWAY\nHeartBtInt=30\nUseDataDictionary=N\n\
    /// #            [SESSION]\nBeginString=FIX.4.4\n";
    /// # let state = Rc::new(VenueState::default());
    /// # // The application shares `state` with the venue's loop: build_local.
    /// # let engine = EngineBuilder::parse(cfg, "venue.cfg")?.build_local(|_| VenueApp::new(state.clone()))?;
    /// # let session = engine.sessions()[0].name.clone();
    /// # let mut venue = Venue { engine, session, state, stamps: None };
    /// venue.logon(&mut Idle::spin_then_yield(100), std::time::Duration::from_secs(20))?;
    /// assert!(venue.engine.sessions()[0].logged_on);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Transport`] when the engine fails, [`Error::Timeout`] when no logon
    /// came within `timeout`.
    pub fn logon(&mut self, idle: &mut Idle, timeout: Duration) -> crate::Result<()> {
        let engine = &mut self.engine;
        poll_until::<1, _, _>(
            idle,
            crate::clock::now(),
            timeout.as_nanos() as u64,
            || {
                if engine.sessions().first().is_some_and(|s| s.logged_on) {
                    return Ok(Polled::Done);
                }
                let work = engine
                    .turn()
                    .map_err(|e| Error::transport("venue", "engine turn", e))?;
                Ok(if work { Polled::Work } else { Polled::Nothing })
            },
            || Error::Timeout {
                part: "venue",
                waiting_for: "logon".into(),
                after: timeout,
            },
        )
    }

    /// Sends `warmup + count` orders one at a time; times the last `count`. `done` counts
    /// finished round trips (for a progress display); `allocations` reads the process's
    /// allocation counter, if any.
    ///
    /// ```no_run
    /// # use std::rc::Rc;
    /// # use peregrine_engine::EngineBuilder;
    /// # use peregrine_engine::Idle;
    /// # use peregrine_topology::venue::{Venue, VenueApp, VenueState};
    /// # let cfg = "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=9880\n\
    /// #            SenderCompID=VENUE\nTargetCompID=GATEWAY\nHeartBtInt=30\nUseDataDictionary=N\n\
    /// #            [SESSION]\nBeginString=FIX.4.4\n";
    /// # let state = Rc::new(VenueState::default());
    /// # // The application shares `state` with the venue's loop: build_local.
    /// # let engine = EngineBuilder::parse(cfg, "venue.cfg")?.build_local(|_| VenueApp::new(state.clone()))?;
    /// # let session = engine.sessions()[0].name.clone();
    /// # let mut venue = Venue { engine, session, state, stamps: None };
    /// let mut idle = Idle::spin_then_yield(100);
    /// let timeout = std::time::Duration::from_secs(20);
    /// venue.logon(&mut idle, timeout)?;
    /// let done = std::sync::atomic::AtomicU64::new(0);
    /// let r = venue.run(100, 1_000, &mut idle, timeout, &done, None)?;
    /// assert_eq!(done.into_inner(), 1_100);
    /// # let _ = r;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Transport`] when the engine fails or refuses an order,
    /// [`Error::Timeout`] when an ExecutionReport (or, timing steps, the gateway's last
    /// stamp) does not come within `timeout` of its order.
    pub fn run(
        &mut self,
        warmup: u64,
        count: u64,
        idle: &mut Idle,
        timeout: Duration,
        done: &AtomicU64,
        allocations: Option<fn() -> u64>,
    ) -> crate::Result<VenueResult> {
        let mut rtt = new_histogram();
        let mut steps = StepHistograms::default();
        let mut id = [0u8; CL_ORD_ID_LEN_TEXT];
        let patience = timeout.as_nanos() as u64;
        let mut wall_start = crate::clock::now();
        let mut alloc_start = 0;
        for i in 0..warmup + count {
            if i == warmup {
                wall_start = crate::clock::now();
                alloc_start = allocations.map_or(0, |f| f());
            }
            samples::write_cl_ord_id(i + 1, &mut id);
            self.state.expected.set(id);
            let before = self.state.received.get();
            let t0 = crate::clock::now();
            if let Some(s) = &self.stamps {
                s.set(point::VENUE_SEND, t0);
            }
            let sent = self.engine.with_session(&self.session, |d, now| {
                d.send(now, msg_type::NEW_ORDER_SINGLE, |m| {
                    samples::nos_body(m, &id)
                })
            });
            match sent {
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(Error::transport("venue", "send", e)),
                None => {
                    return Err(Error::Setup {
                        part: "venue",
                        what: "no session to send on",
                        source: None,
                    })
                }
            }
            let (state, engine) = (&self.state, &mut self.engine);
            poll_until::<1024, _, _>(
                idle,
                t0,
                patience,
                || {
                    if state.received.get() != before {
                        return Ok(Polled::Done);
                    }
                    let work = engine
                        .poll()
                        .map_err(|e| Error::transport("venue", "engine poll", e))?;
                    Ok(if work { Polled::Work } else { Polled::Nothing })
                },
                || Error::Timeout {
                    part: "venue",
                    waiting_for: format!("ExecutionReport for order {}", i + 1),
                    after: timeout,
                },
            )?;
            let t1 = self.state.received_at.get();
            if let Some(s) = &self.stamps {
                s.set(point::VENUE_RECEIVED, t1);
                // Spinning a hundred times, then yielding.
                gateway_stamps(s, i, &mut SpinThenYield::new(100), t0, timeout, "venue")?;
                if i >= warmup {
                    steps.record(s);
                }
            }
            if i >= warmup {
                rtt.saturating_record(t1.saturating_sub(t0).max(1));
            }
            done.store(i + 1, Ordering::Relaxed);
        }
        let wall = Duration::from_nanos(crate::clock::now().saturating_sub(wall_start));
        let allocations = allocations.map(|f| f() - alloc_start);
        Ok(VenueResult {
            rtt,
            steps,
            wall,
            allocations,
            fills: self.state.received.get(),
            errors: self.state.errors.get(),
            first_error: self.state.first_error.borrow().clone(),
        })
    }
}

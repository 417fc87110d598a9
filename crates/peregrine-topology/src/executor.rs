//! The executor: decodes each SBE `NewOrder` and answers a filled SBE `ExecutionReport`.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use peregrine_aeron::messages::NewOrder;
use peregrine_aeron::{BusySpin, Publisher, Subscriber};
use peregrine_agent::{run_agent, Agent};
use peregrine_engine::Idle;

use crate::steps::{point, Stamps};
use crate::Error;

/// What the executor did.
///
/// ```
/// let c = peregrine_topology::executor::ExecutorCounters::default();
/// assert_eq!((c.filled, c.bad_orders, c.unpublished), (0, 0, 0));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExecutorCounters {
    /// Orders filled.
    pub filled: u64,
    /// Messages that did not decode as a `NewOrder`.
    pub bad_orders: u64,
    /// Fills Aeron refused for longer than the patience.
    pub unpublished: u64,
}

/// The executor: an [`Agent`] whose duty cycle is a [`turn`](Executor::turn).
///
/// ```no_run
/// use peregrine_aeron::{AeronClient, Channel, ClientConfig, MediaDriver, DriverConfig};
/// use peregrine_topology::executor::{Executor, ExecutorCounters};
/// use peregrine_topology::{ORDERS_STREAM, REPORTS_STREAM};
///
/// let driver = MediaDriver::launch(&DriverConfig::default())?;
/// let client = AeronClient::connect(&ClientConfig::with_dir(driver.dir().to_string()))?;
/// let mut executor = Executor {
///     orders: client.subscriber(&Channel::ipc(), ORDERS_STREAM)?,
///     reports: client.publisher(&Channel::ipc(), REPORTS_STREAM)?,
///     stamps: None,
///     counters: ExecutorCounters::default(),
///     limit: Some(1_000),
/// };
/// // Fill a thousand orders, then stop.
/// let counters = executor.run(&mut peregrine_engine::Idle::spin_then_yield(100), &std::sync::atomic::AtomicBool::new(true))?;
/// # let _ = counters;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Executor {
    /// SBE `NewOrder`s from the gateway.
    pub orders: Subscriber,
    /// SBE `ExecutionReport`s to the gateway.
    pub reports: Publisher,
    /// Stamps of the order in flight, when timing steps.
    pub stamps: Option<Arc<Stamps>>,
    /// Counters.
    pub counters: ExecutorCounters,
    /// Stop after this many fills (`None`: until stopped).
    pub limit: Option<u64>,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("counters", &self.counters)
            .finish()
    }
}

impl Executor {
    /// One poll of the orders; each order is answered at once. Returns the fragments read.
    ///
    /// ```no_run
    /// use peregrine_aeron::{AeronClient, Channel, ClientConfig, MediaDriver, DriverConfig};
    /// use peregrine_topology::executor::{Executor, ExecutorCounters};
    /// use peregrine_topology::{ORDERS_STREAM, REPORTS_STREAM};
    ///
    /// let driver = MediaDriver::launch(&DriverConfig::default())?;
    /// let client = AeronClient::connect(&ClientConfig::with_dir(driver.dir().to_string()))?;
    /// let mut executor = Executor {
    ///     orders: client.subscriber(&Channel::ipc(), ORDERS_STREAM)?,
    ///     reports: client.publisher(&Channel::ipc(), REPORTS_STREAM)?,
    ///     stamps: None,
    ///     counters: ExecutorCounters::default(),
    ///     limit: Some(1_000),
    /// };
    /// while executor.counters.filled < 1_000 {
    ///     executor.turn()?;
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Transport`]: the orders subscription failed.
    #[inline]
    pub fn turn(&mut self) -> crate::Result<usize> {
        let reports = &mut self.reports;
        let stamps = &self.stamps;
        let counters = &mut self.counters;
        self.orders
            .poll(
                |bytes| {
                    let Ok(order) = NewOrder::decode(bytes) else {
                        counters.bad_orders += 1;
                        return;
                    };
                    if let Some(s) = stamps {
                        s.stamp(point::EX_DECODED);
                    }
                    counters.filled += 1;
                    let fill = crate::samples::fill(&order, counters.filled);
                    if reports
                        .publish_retry(&fill, &mut BusySpin, Duration::from_secs(5))
                        .is_err()
                    {
                        counters.unpublished += 1;
                    }
                    if let Some(s) = stamps {
                        s.stamp(point::EX_PUBLISHED);
                    }
                },
                16,
            )
            .map_err(|e| Error::transport("executor", "orders poll", e))
    }

    /// Runs the executor as an [`Agent`], idling with `idle`, until `running` is cleared
    /// or [`limit`](Self::limit) orders are filled; returns the counters.
    ///
    /// ```no_run
    /// use peregrine_aeron::{AeronClient, Channel, ClientConfig, MediaDriver, DriverConfig};
    /// use peregrine_topology::executor::{Executor, ExecutorCounters};
    /// use peregrine_topology::{ORDERS_STREAM, REPORTS_STREAM};
    ///
    /// let driver = MediaDriver::launch(&DriverConfig::default())?;
    /// let client = AeronClient::connect(&ClientConfig::with_dir(driver.dir().to_string()))?;
    /// let mut executor = Executor {
    ///     orders: client.subscriber(&Channel::ipc(), ORDERS_STREAM)?,
    ///     reports: client.publisher(&Channel::ipc(), REPORTS_STREAM)?,
    ///     stamps: None,
    ///     counters: ExecutorCounters::default(),
    ///     limit: Some(1_000),
    /// };
    /// let running = std::sync::atomic::AtomicBool::new(true);
    /// let counters = executor.run(&mut peregrine_engine::Idle::busy_spin(), &running)?;
    /// assert_eq!(counters.filled, 1_000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The first error of a [`turn`](Self::turn).
    pub fn run(
        &mut self,
        idle: &mut Idle,
        running: &AtomicBool,
    ) -> crate::Result<ExecutorCounters> {
        run_agent(self, idle, running)?;
        Ok(self.counters)
    }
}

impl Agent for Executor {
    type Error = Error;

    #[inline]
    fn do_work(&mut self, _may_wait: Duration) -> crate::Result<usize> {
        self.turn()
    }

    fn role_name(&self) -> &str {
        "executor"
    }

    /// Done once [`limit`](Executor::limit) orders are filled.
    #[inline]
    fn is_done(&self) -> bool {
        self.limit.is_some_and(|l| self.counters.filled >= l)
    }
}

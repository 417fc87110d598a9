//! [`AeronClient`] and its [`ClientConfig`]: the connection to a driver that adds streams.

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rusteron_client::{Aeron, AeronContext, AeronFragmentClosureAssembler, Handlers};

use super::error::{aeron_err, c_string};
use super::{
    Channel, DriverConfig, MediaDriver, PublicationStats, Publisher, Subscriber, SubscriptionStats,
    TransportError,
};

/// Settings for an [`AeronClient`].
///
/// ```
/// use peregrine_aeron::ClientConfig;
/// use std::time::Duration;
///
/// let config = ClientConfig {
///     add_timeout: Duration::from_secs(2),
///     ..ClientConfig::with_dir("/dev/shm/peregrine")
/// };
/// assert_eq!(config.dir.as_deref(), Some("/dev/shm/peregrine"));
/// assert!(config.pre_touch);
/// ```
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// The driver directory (`aeron.dir`); `None` is Aeron's default (`AERON_DIR`, else
    /// `/dev/shm/aeron-$USER`).
    pub dir: Option<String>,
    /// Touch every page of a new publication's or image's term buffers when mapping it,
    /// so that the first messages do not page-fault.
    pub pre_touch: bool,
    /// How long to wait for a publication or subscription to be registered.
    pub add_timeout: Duration,
}

impl Default for ClientConfig {
    /// Aeron's default directory, pre-touched buffers, 10 s to add a publication or
    /// subscription.
    fn default() -> Self {
        ClientConfig {
            dir: None,
            pre_touch: true,
            add_timeout: Duration::from_secs(10),
        }
    }
}

impl ClientConfig {
    /// Defaults, connecting to the driver in `dir`.
    ///
    /// ```
    /// use peregrine_aeron::ClientConfig;
    ///
    /// let config = ClientConfig::with_dir("/dev/shm/venue-a");
    /// assert_eq!(config.dir.as_deref(), Some("/dev/shm/venue-a"));
    /// assert_eq!(config.add_timeout, ClientConfig::default().add_timeout);
    /// ```
    pub fn with_dir(dir: impl Into<String>) -> Self {
        ClientConfig {
            dir: Some(dir.into()),
            ..ClientConfig::default()
        }
    }
}

/// An Aeron client: registers publications and subscriptions with a media driver.
///
/// Owns the embedded driver when made by [`AeronClient::embedded`]; every publisher and
/// subscriber keeps it alive, so the driver stops only after the last of them is gone.
///
/// ```
/// use peregrine_aeron::messages::*;
/// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
/// use std::time::Duration;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// // Stream ids tell the directions apart on one channel.
/// let mut orders_in = client.subscriber(&Channel::ipc(), 1001)?;
/// let mut orders_out = client.publisher(&Channel::ipc(), 1001)?;
/// orders_out.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
///
/// let order = NewOrder {
///     session_id: 7,
///     transact_time: 1_700_000_000_000_000_000,
///     price: Decimal64::new(15025, -2),
///     order_qty: Decimal64::new(100, 0),
///     cl_ord_id: pack(b"ORD-1").unwrap(),
///     symbol: pack(b"MSFT").unwrap(),
///     account: [0; ACCOUNT_LEN],
///     side: Side::Buy,
///     ord_type: OrdType::Limit,
///     time_in_force: TimeInForce::Day,
/// };
/// orders_out.publish_retry(&order, &mut BusySpin, Duration::from_secs(1))?;
///
/// let mut received = None;
/// while received.is_none() {
///     orders_in.poll(|bytes| received = NewOrder::decode(bytes).ok(), 10)?;
/// }
/// assert_eq!(received, Some(order));
/// assert_eq!(client.errors(), 0);
/// # Ok(()) }
/// ```
pub struct AeronClient {
    aeron: Aeron,
    dir: String,
    add_timeout: Duration,
    errors: Arc<AtomicU64>,
    driver: Option<Rc<MediaDriver>>,
}

impl AeronClient {
    /// Connect to a running media driver.
    ///
    /// # Errors
    ///
    /// [`TransportError::Aeron`] when no media driver answers in the directory within
    /// Aeron's driver timeout (10 s by default), or Aeron cannot set the client up;
    /// [`TransportError::InvalidString`] when the directory contains a NUL byte.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, Channel, ClientConfig, DriverConfig, MediaDriver};
    /// use peregrine_aeron::{BusySpin, TransportError};
    /// use std::time::Duration;
    ///
    /// // One driver (here in this process; often `aeronmd` or another process's), two clients.
    /// let driver = MediaDriver::launch(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let gateway = AeronClient::connect(&ClientConfig::with_dir(driver.dir()))?;
    /// let executor = AeronClient::connect(&ClientConfig::with_dir(driver.dir()))?;
    /// let orders_out = gateway.publisher(&Channel::ipc(), 1001)?;
    /// let orders_in = executor.subscriber(&Channel::ipc(), 1001)?;
    /// orders_in.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    /// assert!(orders_out.is_connected());
    ///
    /// let bad = AeronClient::connect(&ClientConfig::with_dir("/dev/shm/a\0b"));
    /// assert!(matches!(bad, Err(TransportError::InvalidString(_))));
    /// # Ok::<(), TransportError>(())
    /// ```
    pub fn connect(config: &ClientConfig) -> Result<AeronClient, TransportError> {
        let ctx = AeronContext::new().map_err(aeron_err("client context"))?;
        if let Some(dir) = &config.dir {
            ctx.set_dir(&c_string(dir)?)
                .map_err(aeron_err("client dir"))?;
        }
        ctx.set_pre_touch_mapped_memory(config.pre_touch)
            .map_err(aeron_err("pre-touch"))?;
        let errors = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&errors);
        // Asynchronous client errors (driver timeouts, failed registrations) are counted and
        // reported, never swallowed.
        ctx.set_error_handler(Some(move |code: i32, msg: &str| {
            counted.fetch_add(1, Ordering::Relaxed);
            eprintln!("peregrine-aeron: client error {code}: {msg}");
        }))
        .map_err(aeron_err("error handler"))?;
        let aeron = Aeron::new(&ctx).map_err(aeron_err("client init"))?;
        aeron.start().map_err(aeron_err("client start"))?;
        let dir = ctx.get_dir().to_string();
        Ok(AeronClient {
            aeron,
            dir,
            add_timeout: config.add_timeout,
            errors,
            driver: None,
        })
    }

    /// Start an embedded media driver and connect to it.
    ///
    /// # Errors
    ///
    /// As [`MediaDriver::launch`] when the driver does not start, then as
    /// [`AeronClient::connect`].
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, Channel, DriverConfig};
    /// use std::path::Path;
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let dir = client.dir().to_owned();
    /// let publisher = client.publisher(&Channel::ipc(), 1)?;
    /// drop(client);
    /// // The publisher keeps the driver (and its directory) alive...
    /// assert!(Path::new(&dir).join("cnc.dat").is_file());
    /// drop(publisher);
    /// // ...and the last handle stops it.
    /// assert!(!Path::new(&dir).exists());
    /// # Ok::<(), peregrine_aeron::TransportError>(())
    /// ```
    pub fn embedded(driver: &DriverConfig) -> Result<AeronClient, TransportError> {
        let driver = MediaDriver::launch(driver)?;
        let mut client = AeronClient::connect(&ClientConfig::with_dir(driver.dir()))?;
        client.driver = Some(Rc::new(driver));
        Ok(client)
    }

    /// The driver directory this client is connected to: what another thread (handles are
    /// `!Send`) or process gives [`AeronClient::connect`] to share its driver.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, ClientConfig, DriverConfig};
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let dir = client.dir().to_owned();
    /// let other = std::thread::spawn(move || {
    ///     AeronClient::connect(&ClientConfig::with_dir(dir)).map(|c| c.dir().to_owned())
    /// });
    /// assert_eq!(other.join().unwrap()?, client.dir());
    /// # Ok::<(), peregrine_aeron::TransportError>(())
    /// ```
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// Asynchronous errors the client has reported so far (each is also printed to
    /// standard error): driver timeouts and failed registrations that Aeron reports
    /// outside any call. A health check reads it.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, Channel, DriverConfig};
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let _orders = client.publisher(&Channel::ipc(), 1001)?;
    /// let _fills = client.subscriber(&Channel::ipc(), 1002)?;
    /// assert_eq!(client.errors(), 0);
    /// # Ok::<(), peregrine_aeron::TransportError>(())
    /// ```
    pub fn errors(&self) -> u64 {
        self.errors.load(Ordering::Relaxed)
    }

    /// An exclusive (single-writer) publication on `channel` / `stream_id`.
    ///
    /// # Errors
    ///
    /// [`TransportError::Aeron`] when the driver refuses the channel (a malformed URI, a
    /// UDP endpoint it cannot resolve) or does not answer within
    /// [`ClientConfig::add_timeout`]; [`TransportError::InvalidString`] when the URI
    /// contains a NUL byte.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, Channel, DriverConfig, TransportError};
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let publisher = client.publisher(&Channel::ipc(), 1001)?;
    /// assert!(!publisher.is_connected()); // no subscriber yet
    ///
    /// let err = client.publisher(&Channel::from_uri("aeron:tcp?endpoint=localhost:1"), 1).unwrap_err();
    /// assert!(matches!(err, TransportError::Aeron { op: "add publication", .. }));
    /// # Ok::<(), TransportError>(())
    /// ```
    pub fn publisher(
        &self,
        channel: &Channel,
        stream_id: i32,
    ) -> Result<Publisher, TransportError> {
        let uri = c_string(channel.uri())?;
        let publication = self
            .aeron
            .async_add_exclusive_publication(&uri, stream_id)
            .map_err(aeron_err("add publication"))?
            .poll_blocking(self.add_timeout)
            .map_err(aeron_err("add publication"))?;
        let constants = publication
            .get_constants()
            .map_err(aeron_err("publication constants"))?;
        Ok(Publisher {
            publication,
            max_payload: constants.max_payload_length(),
            max_message: constants.max_message_length(),
            scratch: Vec::new(),
            stats: PublicationStats::default(),
            _driver: self.driver.clone(),
        })
    }

    /// A subscription on `channel` / `stream_id`, reassembling fragmented messages.
    ///
    /// # Errors
    ///
    /// [`TransportError::Aeron`] when the driver refuses the channel (a malformed URI, a
    /// UDP endpoint it cannot bind) or does not answer within
    /// [`ClientConfig::add_timeout`]; [`TransportError::InvalidString`] when the URI
    /// contains a NUL byte.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, TransportError};
    /// use std::time::Duration;
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let fills = client.subscriber(&Channel::ipc(), 1002)?;
    /// assert!(!fills.is_connected());
    /// let _executor = client.publisher(&Channel::ipc(), 1002)?; // same channel and stream
    /// fills.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    ///
    /// let err = client.subscriber(&Channel::from_uri("aeron:tcp?endpoint=localhost:1"), 1).unwrap_err();
    /// assert!(matches!(err, TransportError::Aeron { op: "add subscription", .. }));
    /// # Ok::<(), TransportError>(())
    /// ```
    pub fn subscriber(
        &self,
        channel: &Channel,
        stream_id: i32,
    ) -> Result<Subscriber, TransportError> {
        let uri = c_string(channel.uri())?;
        let subscription = self
            .aeron
            .async_add_subscription(&uri, stream_id, Handlers::NONE, Handlers::NONE)
            .map_err(aeron_err("add subscription"))?
            .poll_blocking(self.add_timeout)
            .map_err(aeron_err("add subscription"))?;
        let assembler =
            AeronFragmentClosureAssembler::new().map_err(aeron_err("fragment assembler"))?;
        Ok(Subscriber {
            subscription,
            assembler,
            stats: SubscriptionStats::default(),
            _driver: self.driver.clone(),
        })
    }
}

impl std::fmt::Debug for AeronClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AeronClient")
            .field("dir", &self.dir)
            .field("embedded", &self.driver.is_some())
            .finish()
    }
}

//! Aeron publications and subscriptions over `rusteron-client`, with the media driver
//! embedded in-process (`rusteron-media-driver`) or running outside (`aeron.dir`).
//!
//! * [`MediaDriver`] runs Aeron's C media driver on a thread of this process, in its own
//!   directory, until dropped. [`AeronClient::embedded`] starts one and connects to it;
//!   [`AeronClient::connect`] connects to a driver that is already running (embedded by
//!   another part of the process, or a standalone `aeronmd` / Java driver).
//! * [`Channel`] names where messages go: [`Channel::ipc`] between processes or threads
//!   of one host (shared memory, no driver thread on the data path), [`Channel::udp`]
//!   across hosts.
//! * [`Publisher`] sends: a message that fits one frame is encoded straight into the
//!   term buffer with `try_claim` (no copy); a larger one is encoded into a reusable
//!   scratch buffer and sent with `offer`, which fragments it. Back pressure is never
//!   hidden: [`Publisher::publish`] makes one attempt and returns a typed
//!   [`PublishError`]; [`Publisher::publish_retry`] retries under an
//!   [`IdleStrategy`] up to a deadline and then gives up with
//!   [`PublishError::GaveUp`]. Every refusal is counted in [`PublicationStats`].
//! * [`Subscriber`] receives through Aeron's fragment assembler, so a handler always
//!   sees whole messages.
//!
//! Handles are single-threaded (`!Send`): each thread makes its own [`AeronClient`] (they
//! share the one driver) and its publishers and subscribers.
//!
//! # Example
//!
//! Two threads of one process, each with its own client of one embedded driver:
//!
//! ```
//! use peregrine_aeron::{AeronClient, BusySpin, Channel, ClientConfig, DriverConfig};
//! use std::time::Duration;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Sparse terms: this example maps its buffers quickly; a trading process pre-allocates.
//! let gateway = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
//! let mut orders = gateway.publisher(&Channel::ipc(), 1001)?;
//!
//! let dir = gateway.dir().to_string();
//! let executor = std::thread::spawn(move || -> Result<Vec<u8>, String> {
//!     let client = AeronClient::connect(&ClientConfig::with_dir(dir)).map_err(|e| e.to_string())?;
//!     let mut orders = client.subscriber(&Channel::ipc(), 1001).map_err(|e| e.to_string())?;
//!     let mut got = Vec::new();
//!     while got.is_empty() {
//!         orders.poll(|msg| got.extend_from_slice(msg), 10).map_err(|e| e.to_string())?;
//!     }
//!     Ok(got)
//! });
//!
//! orders.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
//! orders.publish_retry(&b"an already encoded message"[..], &mut BusySpin, Duration::from_secs(1))?;
//! assert_eq!(executor.join().unwrap()?, b"an already encoded message");
//! # Ok(()) }
//! ```

use std::ffi::CString;
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusteron_client::{
    Aeron, AeronContext, AeronExclusivePublication, AeronFragmentClosureAssembler, AeronHeader,
    AeronOfferError, AeronSubscription, Handlers,
};

use crate::idle::IdleStrategy;
use crate::messages::{Encode, EncodeError};

/// Failures while setting up or tearing down the transport (never on the data path, except
/// for [`Subscriber::poll`], whose only failure is Aeron's own).
///
/// ```
/// use peregrine_aeron::{AeronClient, Channel, DriverConfig, TransportError};
///
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let err = client.publisher(&Channel::from_uri("aeron:ipc\0"), 1).unwrap_err();
/// assert!(matches!(err, TransportError::InvalidString(_)));
/// # Ok::<(), TransportError>(())
/// ```
#[derive(Debug)]
pub enum TransportError {
    /// The media driver did not start.
    DriverStart(String),
    /// An Aeron call failed; `op` names it.
    Aeron {
        /// What was being done.
        op: &'static str,
        /// Aeron's error code.
        code: i32,
        /// Aeron's message, when it gave one.
        message: String,
    },
    /// A channel URI or directory contained a NUL byte.
    InvalidString(String),
    /// A publication or subscription was not ready within the configured timeout.
    Timeout(&'static str),
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::DriverStart(m) => write!(f, "aeron media driver failed to start: {m}"),
            TransportError::Aeron { op, code, message } => {
                write!(f, "aeron {op} failed ({code}): {message}")
            }
            TransportError::InvalidString(s) => write!(f, "string with a NUL byte: {s:?}"),
            TransportError::Timeout(what) => write!(f, "timed out waiting for {what}"),
        }
    }
}

impl std::error::Error for TransportError {}

fn aeron_err(op: &'static str) -> impl FnOnce(rusteron_client::AeronCError) -> TransportError {
    move |e| TransportError::Aeron {
        op,
        code: e.code,
        message: e.to_string(),
    }
}

fn driver_err(
    op: &'static str,
) -> impl FnOnce(rusteron_media_driver::AeronCError) -> TransportError {
    move |e| TransportError::Aeron {
        op,
        code: e.code,
        message: e.to_string(),
    }
}

fn c_string(s: &str) -> Result<CString, TransportError> {
    CString::new(s).map_err(|_| TransportError::InvalidString(s.to_string()))
}

// --- media driver -----------------------------------------------------------------------

/// How the media driver spreads its agents over threads.
///
/// ```
/// use peregrine_aeron::{AeronClient, DriverConfig, Threading};
///
/// assert_eq!(DriverConfig::default().threading, Threading::Shared);
/// // UDP both ways on a machine with cores to spare: the network apart from the conductor.
/// let config = DriverConfig {
///     threading: Threading::SharedNetwork,
///     sparse_terms: true,
///     ..DriverConfig::default()
/// };
/// let client = AeronClient::embedded(&config)?;
/// assert_eq!(client.errors(), 0);
/// # Ok::<(), peregrine_aeron::TransportError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Threading {
    /// Conductor, sender and receiver on one thread: the least CPU, the right choice for
    /// IPC-only use and small machines (IPC data never passes through the driver).
    #[default]
    Shared,
    /// Conductor on one thread, sender and receiver together on another.
    SharedNetwork,
    /// One thread each for conductor, sender and receiver: the lowest UDP latency.
    Dedicated,
}

/// What the driver's threads do when idle.
///
/// ```
/// use peregrine_aeron::{AeronClient, DriverConfig, DriverIdle};
///
/// assert_eq!(DriverConfig::default().idle, DriverIdle::Backoff);
/// // Quicker to wake than back-off, without a spinning core per driver thread.
/// let config = DriverConfig {
///     idle: DriverIdle::Yielding,
///     sparse_terms: true,
///     ..DriverConfig::default()
/// };
/// let client = AeronClient::embedded(&config)?;
/// assert_eq!(client.errors(), 0);
/// # Ok::<(), peregrine_aeron::TransportError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DriverIdle {
    /// Spin, yield, then park up to 1 ms (Aeron's default): cheap when idle.
    #[default]
    Backoff,
    /// Yield when idle.
    Yielding,
    /// Spin: lowest UDP latency, costs a core per driver thread.
    BusySpin,
}

/// Settings for an embedded [`MediaDriver`].
///
/// ```
/// use peregrine_aeron::{DriverConfig, DriverIdle, MediaDriver, Threading};
///
/// // For a latency-sensitive UDP deployment (a core per driver thread):
/// let udp = DriverConfig {
///     threading: Threading::Dedicated,
///     idle: DriverIdle::BusySpin,
///     ..DriverConfig::default()
/// };
/// assert_eq!(udp.term_length, 4 << 20);
///
/// // For tests: small terms, mapped lazily, so the driver starts in milliseconds.
/// let small = DriverConfig {
///     ipc_term_length: 64 * 1024,
///     term_length: 64 * 1024,
///     sparse_terms: true,
///     ..DriverConfig::default()
/// };
/// let driver = MediaDriver::launch(&small)?;
/// # Ok::<(), peregrine_aeron::TransportError>(())
/// ```
#[derive(Clone, Debug)]
pub struct DriverConfig {
    /// The driver directory; `None` makes a fresh one under `/dev/shm` (deleted on start
    /// and shutdown).
    pub dir: Option<String>,
    /// How the driver's agents share threads.
    pub threading: Threading,
    /// What the driver's threads do when idle.
    pub idle: DriverIdle,
    /// Term buffer length for UDP publications (power of two, 64 KiB .. 1 GiB).
    pub term_length: usize,
    /// Term buffer length for IPC publications (power of two, 64 KiB .. 1 GiB).
    pub ipc_term_length: usize,
    /// Allocate term buffers sparsely (cheaper to create, page faults on first use).
    pub sparse_terms: bool,
}

impl Default for DriverConfig {
    /// A fresh directory, shared threading with back-off, 4 MiB terms, pre-allocated.
    fn default() -> Self {
        DriverConfig {
            dir: None,
            threading: Threading::Shared,
            idle: DriverIdle::Backoff,
            term_length: 4 << 20,
            ipc_term_length: 4 << 20,
            sparse_terms: false,
        }
    }
}

/// Aeron's C media driver running on a thread of this process until dropped.
///
/// Most code uses [`AeronClient::embedded`], which starts one and keeps it alive for as
/// long as its publishers and subscribers. Launch one directly to share it between
/// threads (each connects with [`AeronClient::connect`] to [`MediaDriver::dir`]), or to
/// run a driver for other processes, as the `peregrine-aeron-driver` binary does.
///
/// ```
/// use peregrine_aeron::{AeronClient, ClientConfig, DriverConfig, MediaDriver};
///
/// let driver = MediaDriver::launch(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let client = AeronClient::connect(&ClientConfig::with_dir(driver.dir()))?;
/// assert_eq!(client.dir(), driver.dir());
/// // Clients first: dropping the driver stops it (and deletes the directory it made).
/// drop(client);
/// drop(driver);
/// # Ok::<(), peregrine_aeron::TransportError>(())
/// ```
pub struct MediaDriver {
    dir: String,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

static DRIVER_SEQ: AtomicU64 = AtomicU64::new(0);

fn fresh_dir() -> String {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        std::path::PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let n = DRIVER_SEQ.fetch_add(1, Ordering::Relaxed);
    base.join(format!("peregrine-aeron-{}-{n}", std::process::id()))
        .to_string_lossy()
        .into_owned()
}

impl MediaDriver {
    /// Start a driver and wait until it is ready for clients.
    ///
    /// # Errors
    ///
    /// [`TransportError::DriverStart`] when the driver refuses to start (a term length
    /// that is not a power of two in 64 KiB ..= 1 GiB, another driver active in `dir`) or
    /// does not answer within 30 s; [`TransportError::Aeron`] when Aeron cannot make the
    /// driver's context; [`TransportError::InvalidString`] when `dir` contains a NUL byte.
    ///
    /// ```
    /// use peregrine_aeron::{DriverConfig, MediaDriver, TransportError};
    ///
    /// let driver = MediaDriver::launch(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// drop(driver); // stops it
    ///
    /// // Term lengths are powers of two.
    /// let odd = DriverConfig { term_length: 100_000, sparse_terms: true, ..DriverConfig::default() };
    /// assert!(matches!(MediaDriver::launch(&odd), Err(TransportError::DriverStart(_))));
    /// # Ok::<(), TransportError>(())
    /// ```
    pub fn launch(config: &DriverConfig) -> Result<MediaDriver, TransportError> {
        use rusteron_media_driver::bindings::aeron_threading_mode_enum as Mode;
        use rusteron_media_driver::{
            AeronDriver, AeronDriverContext, AeronIdleStrategyKind as Kind,
        };

        let fresh = config.dir.is_none();
        let dir = config.dir.clone().unwrap_or_else(fresh_dir);
        let ctx = AeronDriverContext::new().map_err(driver_err("driver context"))?;
        ctx.set_dir(&c_string(&dir)?)
            .map_err(driver_err("driver dir"))?;
        ctx.set_dir_delete_on_start(fresh)
            .map_err(driver_err("driver dir"))?;
        ctx.set_dir_delete_on_shutdown(fresh)
            .map_err(driver_err("driver dir"))?;
        let mode = match config.threading {
            Threading::Shared => Mode::AERON_THREADING_MODE_SHARED,
            Threading::SharedNetwork => Mode::AERON_THREADING_MODE_SHARED_NETWORK,
            Threading::Dedicated => Mode::AERON_THREADING_MODE_DEDICATED,
        };
        ctx.set_threading_mode(mode)
            .map_err(driver_err("driver threading"))?;
        let kind = match config.idle {
            DriverIdle::Backoff => Kind::Backoff,
            DriverIdle::Yielding => Kind::Yielding,
            DriverIdle::BusySpin => Kind::BusySpin,
        };
        ctx.set_shared_idle_strategy_kind(kind)
            .map_err(driver_err("driver idle"))?;
        ctx.set_sharednetwork_idle_strategy_kind(kind)
            .map_err(driver_err("driver idle"))?;
        ctx.set_conductor_idle_strategy_kind(kind)
            .map_err(driver_err("driver idle"))?;
        ctx.set_sender_idle_strategy_kind(kind)
            .map_err(driver_err("driver idle"))?;
        ctx.set_receiver_idle_strategy_kind(kind)
            .map_err(driver_err("driver idle"))?;
        ctx.set_term_buffer_length(config.term_length)
            .map_err(driver_err("term length"))?;
        ctx.set_ipc_term_buffer_length(config.ipc_term_length)
            .map_err(driver_err("ipc term length"))?;
        ctx.set_term_buffer_sparse_file(config.sparse_terms)
            .map_err(driver_err("sparse terms"))?;

        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel::<Result<(), String>>(1);
        let thread = {
            let stop = Arc::clone(&stop);
            std::thread::Builder::new()
                .name("aeron-driver".into())
                .spawn(move || {
                    let driver = match AeronDriver::new(&ctx) {
                        Ok(d) => d,
                        Err(e) => {
                            let _ = ready_tx.send(Err(format!("init: {e}")));
                            return;
                        }
                    };
                    // `true`: this thread runs the driver's main agent (the shared agent, or
                    // the conductor); any other agents get threads of their own.
                    if let Err(e) = driver.start(true) {
                        let _ = ready_tx.send(Err(format!("start: {e}")));
                        return;
                    }
                    let _ = ready_tx.send(Ok(()));
                    while !stop.load(Ordering::Acquire) {
                        let work = driver.main_do_work().unwrap_or(0);
                        driver.main_idle_strategy(work);
                    }
                    // Dropping the driver closes it (and deletes a fresh directory).
                })
                .map_err(|e| TransportError::DriverStart(e.to_string()))?
        };
        match ready_rx.recv_timeout(Duration::from_secs(30)) {
            Ok(Ok(())) => Ok(MediaDriver {
                dir,
                stop,
                thread: Some(thread),
            }),
            Ok(Err(m)) => {
                let _ = thread.join();
                Err(TransportError::DriverStart(m))
            }
            Err(_) => {
                stop.store(true, Ordering::Release);
                Err(TransportError::DriverStart(
                    "no answer from the driver thread within 30 s".into(),
                ))
            }
        }
    }

    /// The directory clients connect to (`aeron.dir`).
    ///
    /// ```
    /// use peregrine_aeron::{DriverConfig, MediaDriver};
    /// use std::path::Path;
    ///
    /// let driver = MediaDriver::launch(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// // A fresh directory, holding the driver's command-and-control file.
    /// let dir = driver.dir().to_owned();
    /// assert!(Path::new(&dir).join("cnc.dat").is_file());
    /// drop(driver);
    /// assert!(!Path::new(&dir).exists()); // deleted on shutdown: it made it
    /// # Ok::<(), peregrine_aeron::TransportError>(())
    /// ```
    pub fn dir(&self) -> &str {
        &self.dir
    }
}

impl Drop for MediaDriver {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl std::fmt::Debug for MediaDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MediaDriver")
            .field("dir", &self.dir)
            .finish()
    }
}

// --- client -----------------------------------------------------------------------------

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

// --- channels ---------------------------------------------------------------------------

/// An Aeron channel URI, built from typed parts.
///
/// The URI is not checked here; the driver checks it when a publication or subscription
/// is added.
///
/// ```
/// use peregrine_aeron::Channel;
///
/// assert_eq!(Channel::ipc().uri(), "aeron:ipc");
/// let udp = Channel::udp("127.0.0.1:40123".parse().unwrap())
///     .term_length(16 << 20)
///     .mtu(8192);
/// assert_eq!(udp.uri(), "aeron:udp?endpoint=127.0.0.1:40123|term-length=16777216|mtu=8192");
/// let mdc = Channel::from_uri("aeron:udp?control=10.0.0.1:40456").param("control-mode", "dynamic");
/// assert_eq!(mdc.uri(), "aeron:udp?control=10.0.0.1:40456|control-mode=dynamic");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Channel {
    uri: String,
}

impl Channel {
    /// Shared memory between processes and threads of one host (`aeron:ipc`).
    ///
    /// ```
    /// use peregrine_aeron::Channel;
    ///
    /// assert_eq!(Channel::ipc().uri(), "aeron:ipc");
    /// assert_eq!(Channel::ipc().term_length(64 * 1024).uri(), "aeron:ipc?term-length=65536");
    /// ```
    pub fn ipc() -> Self {
        Channel {
            uri: "aeron:ipc".into(),
        }
    }

    /// Unicast UDP to `endpoint` (`aeron:udp?endpoint=host:port`): the subscriber binds it,
    /// the publisher sends to it.
    ///
    /// ```
    /// use peregrine_aeron::Channel;
    ///
    /// let v4 = Channel::udp("10.0.0.2:40123".parse().unwrap());
    /// assert_eq!(v4.uri(), "aeron:udp?endpoint=10.0.0.2:40123");
    /// let v6 = Channel::udp("[::1]:40123".parse().unwrap());
    /// assert_eq!(v6.uri(), "aeron:udp?endpoint=[::1]:40123");
    /// ```
    pub fn udp(endpoint: SocketAddr) -> Self {
        Channel {
            uri: format!("aeron:udp?endpoint={endpoint}"),
        }
    }

    /// Any Aeron channel URI, as written: multicast, multi-destination, or anything the
    /// typed constructors do not cover.
    ///
    /// ```
    /// use peregrine_aeron::Channel;
    ///
    /// let multicast = Channel::from_uri("aeron:udp?endpoint=224.0.1.1:40456|interface=10.0.0.0/24");
    /// assert_eq!(multicast.uri(), "aeron:udp?endpoint=224.0.1.1:40456|interface=10.0.0.0/24");
    /// assert_eq!(Channel::from_uri("aeron:ipc"), Channel::ipc());
    /// ```
    pub fn from_uri(uri: impl Into<String>) -> Self {
        Channel { uri: uri.into() }
    }

    /// Add a `key=value` parameter.
    ///
    /// ```
    /// use peregrine_aeron::Channel;
    ///
    /// let orders = Channel::ipc().param("alias", "orders").param("sparse", true);
    /// assert_eq!(orders.uri(), "aeron:ipc?alias=orders|sparse=true");
    /// ```
    pub fn param(mut self, key: &str, value: impl std::fmt::Display) -> Self {
        let sep = if self.uri.contains('?') { '|' } else { '?' };
        self.uri = format!("{}{sep}{key}={value}", self.uri);
        self
    }

    /// This channel's term buffer length (power of two, 64 KiB .. 1 GiB). A message may
    /// be at most an eighth of it.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, Channel, DriverConfig};
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let small = client.publisher(&Channel::ipc().term_length(64 * 1024), 1)?;
    /// assert_eq!(small.max_message_length(), 64 * 1024 / 8);
    /// # Ok::<(), peregrine_aeron::TransportError>(())
    /// ```
    pub fn term_length(self, bytes: usize) -> Self {
        self.param("term-length", bytes)
    }

    /// This channel's MTU: the largest frame, and so the `try_claim` limit plus 32.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, Channel, DriverConfig};
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let jumbo = client.publisher(&Channel::ipc().mtu(8192), 1)?;
    /// assert_eq!(jumbo.max_claim_length(), 8192 - 32);
    /// # Ok::<(), peregrine_aeron::TransportError>(())
    /// ```
    pub fn mtu(self, bytes: usize) -> Self {
        self.param("mtu", bytes)
    }

    /// The URI.
    ///
    /// ```
    /// use peregrine_aeron::Channel;
    ///
    /// let channel = Channel::udp("10.0.0.2:40123".parse().unwrap()).mtu(1408);
    /// assert_eq!(channel.uri(), "aeron:udp?endpoint=10.0.0.2:40123|mtu=1408");
    /// assert_eq!(Channel::from_uri(channel.uri()), channel);
    /// ```
    pub fn uri(&self) -> &str {
        &self.uri
    }
}

// --- publisher --------------------------------------------------------------------------

/// Why an offer was refused for now; trying again later can succeed.
///
/// ```
/// use peregrine_aeron::{AeronClient, Channel, DriverConfig, PublishError, Refusal};
///
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
/// // The caller chooses what a refusal means: here, wait for a subscriber, retry a
/// // rotation at once, and count back pressure as a slow consumer.
/// match publisher.publish_bytes(b"order") {
///     Err(PublishError::Refused(Refusal::NotConnected)) => {} // nobody is listening yet
///     Err(PublishError::Refused(Refusal::AdminAction)) => unreachable!("no term rotated"),
///     Err(PublishError::Refused(Refusal::BackPressured)) => unreachable!("nobody to lag"),
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), peregrine_aeron::TransportError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No subscriber is connected.
    NotConnected,
    /// The subscribers are behind by a whole term window: back pressure.
    BackPressured,
    /// Aeron was rotating terms; retry at once.
    AdminAction,
}

/// Why a message was not published.
///
/// ```
/// use peregrine_aeron::{PublishError, Refusal};
///
/// // Back pressure: the caller decides to wait, drop or fail; nothing is hidden.
/// let e = PublishError::Refused(Refusal::BackPressured);
/// assert!(e.is_retryable());
/// assert!(!PublishError::Closed.is_retryable());
/// assert_eq!(e.to_string(), "publication refused the message: BackPressured");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PublishError {
    /// Refused for now (back pressure, no subscriber, term rotation); the message was
    /// not sent and may be offered again.
    Refused(Refusal),
    /// [`Publisher::publish_retry`] kept being refused until its deadline.
    GaveUp {
        /// The last refusal.
        last: Refusal,
        /// How many attempts were made.
        attempts: u64,
    },
    /// The message is longer than the publication's maximum message length.
    TooLarge {
        /// The message length.
        len: usize,
        /// The publication's maximum.
        max: usize,
    },
    /// The message could not be encoded.
    Encode(EncodeError),
    /// The publication is closed.
    Closed,
    /// The publication reached its maximum position; a new one is needed.
    MaxPositionExceeded,
    /// Any other Aeron failure, by Aeron error code.
    Aeron(i32),
}

impl PublishError {
    /// Whether offering the same message again can succeed: only a
    /// [`Refused`](PublishError::Refused) one.
    ///
    /// ```
    /// use peregrine_aeron::{PublishError, Refusal};
    ///
    /// assert!(PublishError::Refused(Refusal::AdminAction).is_retryable());
    /// // Already retried until its deadline:
    /// assert!(!PublishError::GaveUp { last: Refusal::BackPressured, attempts: 9 }.is_retryable());
    /// // Never fits:
    /// assert!(!PublishError::TooLarge { len: 9000, max: 8192 }.is_retryable());
    /// ```
    pub fn is_retryable(&self) -> bool {
        matches!(self, PublishError::Refused(_))
    }
}

impl std::fmt::Display for PublishError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PublishError::Refused(r) => write!(f, "publication refused the message: {r:?}"),
            PublishError::GaveUp { last, attempts } => {
                write!(
                    f,
                    "gave up after {attempts} attempts, last refused: {last:?}"
                )
            }
            PublishError::TooLarge { len, max } => {
                write!(f, "message of {len} bytes exceeds the maximum {max}")
            }
            PublishError::Encode(e) => write!(f, "{e}"),
            PublishError::Closed => f.write_str("publication closed"),
            PublishError::MaxPositionExceeded => {
                f.write_str("publication reached its maximum position")
            }
            PublishError::Aeron(code) => write!(f, "aeron error {code}"),
        }
    }
}

impl std::error::Error for PublishError {}

impl From<EncodeError> for PublishError {
    fn from(e: EncodeError) -> Self {
        PublishError::Encode(e)
    }
}

/// What a [`Publisher`] has done, for operators and tests.
///
/// ```
/// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, PublicationStats};
/// use std::time::Duration;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
/// let _ = publisher.publish_bytes(b"early"); // refused: no subscriber
/// let _subscriber = client.subscriber(&Channel::ipc(), 7)?;
/// publisher.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
/// publisher.publish_retry(&b"order"[..], &mut BusySpin, Duration::from_secs(1))?;
/// assert_eq!(
///     publisher.stats(),
///     PublicationStats { messages: 1, bytes: 5, claimed: 1, not_connected: 1, ..Default::default() }
/// );
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PublicationStats {
    /// Messages published.
    pub messages: u64,
    /// Bytes published (message lengths, without Aeron frame headers).
    pub bytes: u64,
    /// Messages written in place through `try_claim`.
    pub claimed: u64,
    /// Messages copied in through `offer` (larger than one frame).
    pub offered: u64,
    /// Attempts refused by back pressure.
    pub back_pressured: u64,
    /// Attempts refused because no subscriber was connected.
    pub not_connected: u64,
    /// Attempts refused by an admin action (term rotation).
    pub admin_action: u64,
    /// [`Publisher::publish_retry`] calls that gave up.
    pub gave_up: u64,
}

/// Sends messages on one exclusive publication.
///
/// ```
/// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, PublishError, Refusal};
/// use std::time::Duration;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
///
/// // No subscriber yet: refused, counted, and safe to offer again.
/// let refused = publisher.publish_bytes(b"hello").unwrap_err();
/// assert_eq!(refused, PublishError::Refused(Refusal::NotConnected));
/// assert_eq!(publisher.stats().not_connected, 1);
///
/// let _subscriber = client.subscriber(&Channel::ipc(), 7)?;
/// publisher.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
/// publisher.publish_retry(&b"hello"[..], &mut BusySpin, Duration::from_secs(1))?;
/// // Larger than a frame: copied and sent in fragments.
/// let big = vec![7u8; 3 * publisher.max_claim_length()];
/// publisher.publish_retry(&big[..], &mut BusySpin, Duration::from_secs(1))?;
///
/// let stats = publisher.stats();
/// assert_eq!((stats.messages, stats.claimed, stats.offered), (2, 1, 1));
/// # Ok(()) }
/// ```
pub struct Publisher {
    publication: AeronExclusivePublication,
    max_payload: usize,
    max_message: usize,
    scratch: Vec<u8>,
    stats: PublicationStats,
    _driver: Option<Rc<MediaDriver>>,
}

impl Publisher {
    /// The largest message sent in place with `try_claim` (MTU minus the frame header);
    /// anything longer is copied and fragmented by `offer`.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let _subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// publisher.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    ///
    /// let fits = vec![1u8; publisher.max_claim_length()];
    /// let one_more = vec![1u8; publisher.max_claim_length() + 1];
    /// publisher.publish_retry(&fits[..], &mut BusySpin, Duration::from_secs(1))?;
    /// publisher.publish_retry(&one_more[..], &mut BusySpin, Duration::from_secs(1))?;
    /// assert_eq!((publisher.stats().claimed, publisher.stats().offered), (1, 1));
    /// # Ok(()) }
    /// ```
    pub fn max_claim_length(&self) -> usize {
        self.max_payload
    }

    /// The largest message this publication accepts at all (an eighth of the term length,
    /// at most 16 MiB).
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, Channel, DriverConfig, PublishError};
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let mut publisher = client.publisher(&Channel::ipc().term_length(64 * 1024), 7)?;
    /// let max = publisher.max_message_length();
    /// let too_big = vec![0u8; max + 1];
    /// assert_eq!(
    ///     publisher.publish_bytes(&too_big),
    ///     Err(PublishError::TooLarge { len: max + 1, max })
    /// );
    /// # Ok::<(), peregrine_aeron::TransportError>(())
    /// ```
    pub fn max_message_length(&self) -> usize {
        self.max_message
    }

    /// Whether at least one subscriber is connected.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let publisher = client.publisher(&Channel::ipc(), 7)?;
    /// assert!(!publisher.is_connected());
    /// let subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// publisher.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    /// assert!(publisher.is_connected());
    /// drop(subscriber);
    /// # Ok(()) }
    /// ```
    pub fn is_connected(&self) -> bool {
        self.publication.is_connected()
    }

    /// Wait (with `idle`) until a subscriber is connected, at most `timeout`.
    ///
    /// # Errors
    ///
    /// [`TransportError::Timeout`] when no subscriber has connected within `timeout`.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, TransportError};
    /// use std::time::Duration;
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let publisher = client.publisher(&Channel::ipc(), 7)?;
    /// let alone = publisher.wait_connected(&mut BusySpin, Duration::from_millis(10));
    /// assert!(matches!(alone, Err(TransportError::Timeout(_))));
    ///
    /// let _subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// publisher.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    /// # Ok::<(), TransportError>(())
    /// ```
    pub fn wait_connected(
        &self,
        idle: &mut impl IdleStrategy,
        timeout: Duration,
    ) -> Result<(), TransportError> {
        let start = Instant::now();
        idle.reset();
        while !self.is_connected() {
            if start.elapsed() > timeout {
                return Err(TransportError::Timeout("a subscriber to connect"));
            }
            idle.idle(0);
        }
        Ok(())
    }

    /// Counters so far.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
    /// use std::time::Duration;
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// // Nobody listens: every attempt is refused and counted, one give-up.
    /// let _ = publisher.publish_retry(&b"order"[..], &mut BusySpin, Duration::from_millis(5));
    /// let stats = publisher.stats();
    /// assert_eq!((stats.messages, stats.gave_up), (0, 1));
    /// assert!(stats.not_connected >= 1);
    /// # Ok::<(), peregrine_aeron::TransportError>(())
    /// ```
    pub fn stats(&self) -> PublicationStats {
        self.stats
    }

    #[inline]
    fn refused(&mut self, e: AeronOfferError) -> PublishError {
        match e {
            AeronOfferError::BackPressured => {
                self.stats.back_pressured += 1;
                PublishError::Refused(Refusal::BackPressured)
            }
            AeronOfferError::NotConnected => {
                self.stats.not_connected += 1;
                PublishError::Refused(Refusal::NotConnected)
            }
            AeronOfferError::AdminAction => {
                self.stats.admin_action += 1;
                PublishError::Refused(Refusal::AdminAction)
            }
            AeronOfferError::Closed => PublishError::Closed,
            AeronOfferError::MaxPositionExceeded => PublishError::MaxPositionExceeded,
            AeronOfferError::TooManyParts => PublishError::Aeron(-1),
            AeronOfferError::Error(e) => PublishError::Aeron(e.code),
        }
    }

    #[inline]
    fn sent(&mut self, len: usize, claimed: bool) {
        self.stats.messages += 1;
        self.stats.bytes += len as u64;
        if claimed {
            self.stats.claimed += 1;
        } else {
            self.stats.offered += 1;
        }
    }

    /// One attempt to publish `msg`: encoded in place if it fits a frame, else encoded into
    /// the scratch buffer and offered. Returns the new stream position.
    ///
    /// # Errors
    ///
    /// [`PublishError::Refused`] when Aeron refuses the message for now (no subscriber,
    /// back pressure, term rotation): nothing was sent and it may be offered again. Also
    /// [`PublishError::TooLarge`], [`PublishError::Encode`], [`PublishError::Closed`],
    /// [`PublishError::MaxPositionExceeded`] and [`PublishError::Aeron`], which retrying
    /// does not cure.
    ///
    /// # Panics
    ///
    /// Only if `msg`'s [`Encode::encode`] breaks its contract and reports more bytes
    /// written than its `encoded_len()`.
    ///
    /// ```
    /// use peregrine_aeron::messages::{pack, Decimal64, OrderCancelRequest, Side};
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, Encode};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let _subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// publisher.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    ///
    /// let cancel = OrderCancelRequest {
    ///     session_id: 7,
    ///     order_id: 42,
    ///     transact_time: 1_700_000_000_000_000_000,
    ///     order_qty: Decimal64::new(100, 0),
    ///     cl_ord_id: pack(b"ORD-2").unwrap(),
    ///     orig_cl_ord_id: pack(b"ORD-1").unwrap(),
    ///     symbol: pack(b"MSFT").unwrap(),
    ///     side: Side::Buy,
    /// };
    /// // Encoded straight into the term buffer; the position is where the stream now ends.
    /// let position = publisher.publish(&cancel)?;
    /// assert!(position >= cancel.encoded_len() as i64);
    /// assert!(publisher.publish(&cancel)? > position);
    /// # Ok(()) }
    /// ```
    #[inline]
    pub fn publish<M: Encode + ?Sized>(&mut self, msg: &M) -> Result<i64, PublishError> {
        let len = msg.encoded_len();
        if len <= self.max_payload {
            match self.publication.try_claim_owned(len) {
                Ok(mut claim) => {
                    // On an encode error the claim is dropped, which aborts it (the slot
                    // becomes padding that subscribers skip).
                    msg.encode(claim.data())?;
                    let position = claim.commit().map_err(|e| PublishError::Aeron(e.code))?;
                    self.sent(len, true);
                    Ok(position)
                }
                Err(e) => Err(self.refused(e)),
            }
        } else {
            if len > self.max_message {
                return Err(PublishError::TooLarge {
                    len,
                    max: self.max_message,
                });
            }
            if self.scratch.len() < len {
                self.scratch.resize(len, 0);
            }
            let n = msg.encode(&mut self.scratch[..len])?;
            match self.publication.offer(&self.scratch[..n]) {
                Ok(position) => {
                    self.sent(n, false);
                    Ok(position)
                }
                Err(e) => Err(self.refused(e)),
            }
        }
    }

    /// One attempt to publish raw bytes (claim-and-copy if they fit a frame, else offer).
    ///
    /// # Errors
    ///
    /// As [`publish`](Self::publish): [`PublishError::Refused`] when it may be tried
    /// again, another [`PublishError`] when it may not.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, IdleStrategy};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let mut subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// subscriber.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    ///
    /// // The caller's own retry loop (what publish_retry does, without its deadline).
    /// let mut idle = BusySpin;
    /// loop {
    ///     match publisher.publish_bytes(b"8=FIX.4.4|9=5|35=0|10=000|") {
    ///         Ok(_) => break,
    ///         Err(e) if e.is_retryable() => idle.idle(0),
    ///         Err(e) => return Err(e.into()),
    ///     }
    /// }
    /// let mut got = Vec::new();
    /// while got.is_empty() {
    ///     subscriber.poll(|msg| got.extend_from_slice(msg), 10)?;
    /// }
    /// assert_eq!(got, b"8=FIX.4.4|9=5|35=0|10=000|");
    /// # Ok(()) }
    /// ```
    #[inline]
    pub fn publish_bytes(&mut self, bytes: &[u8]) -> Result<i64, PublishError> {
        self.publish(bytes)
    }

    /// Publish `msg`, retrying refusals with `idle` until `timeout` has passed since the
    /// first refusal; then [`PublishError::GaveUp`]. Each refusal is counted.
    ///
    /// # Errors
    ///
    /// [`PublishError::GaveUp`] when every attempt until `timeout` was refused; any error
    /// of [`publish`](Self::publish) that retrying cannot cure, at once.
    ///
    /// # Panics
    ///
    /// As [`publish`](Self::publish).
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, PublishError, Refusal};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// // Nobody subscribes: refused until the deadline, then given up.
    /// let result = publisher.publish_retry(&b"order"[..], &mut BusySpin, Duration::from_millis(5));
    /// let Err(PublishError::GaveUp { last, attempts }) = result else { panic!("{result:?}") };
    /// assert_eq!(last, Refusal::NotConnected);
    /// assert_eq!(publisher.stats().not_connected, attempts);
    ///
    /// let _subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// // Retried while the subscription connects: no wait_connected needed.
    /// publisher.publish_retry(&b"order"[..], &mut BusySpin, Duration::from_secs(10))?;
    /// assert_eq!(publisher.stats().messages, 1);
    /// # Ok(()) }
    /// ```
    #[inline]
    pub fn publish_retry<M: Encode + ?Sized>(
        &mut self,
        msg: &M,
        idle: &mut impl IdleStrategy,
        timeout: Duration,
    ) -> Result<i64, PublishError> {
        let mut first_refusal: Option<Instant> = None;
        let mut attempts = 0u64;
        loop {
            attempts += 1;
            match self.publish(msg) {
                Ok(position) => {
                    if first_refusal.is_some() {
                        idle.reset();
                    }
                    return Ok(position);
                }
                Err(PublishError::Refused(last)) => {
                    let since = *first_refusal.get_or_insert_with(Instant::now);
                    if since.elapsed() >= timeout {
                        self.stats.gave_up += 1;
                        return Err(PublishError::GaveUp { last, attempts });
                    }
                    if last != Refusal::AdminAction {
                        idle.idle(0);
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publisher")
            .field("max_claim_length", &self.max_payload)
            .field("max_message_length", &self.max_message)
            .field("stats", &self.stats)
            .finish()
    }
}

// --- subscriber -------------------------------------------------------------------------

/// What a [`Subscriber`] has received.
///
/// ```
/// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, SubscriptionStats};
/// use std::time::Duration;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let mut subscriber = client.subscriber(&Channel::ipc(), 7)?;
/// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
/// publisher.publish_retry(&b"order"[..], &mut BusySpin, Duration::from_secs(10))?;
/// while subscriber.poll(|_| {}, 10)? == 0 {}
/// assert_eq!(subscriber.stats(), SubscriptionStats { messages: 1, bytes: 5, fragments: 1 });
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubscriptionStats {
    /// Whole messages handed to handlers.
    pub messages: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Fragments read (a message larger than one frame is several).
    pub fragments: u64,
}

/// Receives whole messages from one subscription.
///
/// A message larger than one frame arrives in fragments; the subscriber reassembles them,
/// so the handler of [`poll`](Subscriber::poll) sees it whole.
///
/// ```
/// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, IdleStrategy};
/// use std::time::Duration;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
/// let mut subscriber = client.subscriber(&Channel::ipc(), 7)?;
/// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
/// subscriber.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
///
/// let big = vec![7u8; 5000];
/// publisher.publish_retry(&big[..], &mut BusySpin, Duration::from_secs(1))?;
///
/// let mut idle = BusySpin;
/// let mut got = Vec::new();
/// while got.is_empty() {
///     let fragments = subscriber.poll(|msg| got.extend_from_slice(msg), 10)?;
///     idle.idle(fragments); // spins, yields or parks only when there was no work
/// }
/// assert_eq!(got, big);
/// let stats = subscriber.stats();
/// assert_eq!(stats.messages, 1);
/// assert!(stats.fragments > 1);
/// # Ok(()) }
/// ```
pub struct Subscriber {
    subscription: AeronSubscription,
    assembler: AeronFragmentClosureAssembler,
    stats: SubscriptionStats,
    _driver: Option<Rc<MediaDriver>>,
}

struct PollContext<'h, F> {
    handler: &'h mut F,
    messages: u64,
    bytes: u64,
}

fn deliver<F: FnMut(&[u8])>(ctx: &mut PollContext<'_, F>, message: &[u8], _header: AeronHeader) {
    ctx.messages += 1;
    ctx.bytes += message.len() as u64;
    (ctx.handler)(message);
}

impl Subscriber {
    /// Read up to `fragment_limit` fragments, handing each complete message to `handler`.
    /// Returns the number of fragments read (0: nothing was waiting).
    ///
    /// # Errors
    ///
    /// [`TransportError::Aeron`] when Aeron's poll fails, which happens only when the
    /// subscription is no longer usable (the client or driver has closed it).
    ///
    /// # Panics
    ///
    /// When `handler` panics: `rusteron` carries the panic across Aeron's C code to the
    /// caller of `poll`. The next poll starts from Aeron's last committed position, so
    /// messages this poll had handed over may be handed over again.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let mut subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// assert_eq!(subscriber.poll(|_| unreachable!(), 10)?, 0); // nothing waiting
    ///
    /// for body in [&b"one"[..], b"two", b"six"] {
    ///     publisher.publish_retry(body, &mut BusySpin, Duration::from_secs(10))?;
    /// }
    /// // At most `fragment_limit` fragments a call: a limit keeps one busy stream from
    /// // starving the others a loop polls.
    /// let mut got = Vec::new();
    /// while got.len() < 3 {
    ///     assert!(subscriber.poll(|msg| got.push(msg.to_vec()), 1)? <= 1);
    /// }
    /// assert_eq!(got, [b"one", b"two", b"six"]);
    /// # Ok(()) }
    /// ```
    #[inline]
    pub fn poll<F: FnMut(&[u8])>(
        &mut self,
        mut handler: F,
        fragment_limit: usize,
    ) -> Result<usize, TransportError> {
        let mut ctx = PollContext {
            handler: &mut handler,
            messages: 0,
            bytes: 0,
        };
        let fragments = self
            .assembler
            .poll(&self.subscription, &mut ctx, deliver::<F>, fragment_limit)
            .map_err(aeron_err("poll"))?;
        let fragments = usize::try_from(fragments).unwrap_or(0);
        self.stats.messages += ctx.messages;
        self.stats.bytes += ctx.bytes;
        self.stats.fragments += fragments as u64;
        Ok(fragments)
    }

    /// Whether at least one publisher's image is connected.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// assert!(!subscriber.is_connected());
    /// let _publisher = client.publisher(&Channel::ipc(), 7)?;
    /// subscriber.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    /// assert!(subscriber.is_connected());
    /// # Ok(()) }
    /// ```
    pub fn is_connected(&self) -> bool {
        self.subscription.is_connected()
    }

    /// Wait (with `idle`) until a publisher is connected, at most `timeout`.
    ///
    /// # Errors
    ///
    /// [`TransportError::Timeout`] when no publisher has connected within `timeout`.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig, TransportError};
    /// use std::time::Duration;
    ///
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// let alone = subscriber.wait_connected(&mut BusySpin, Duration::from_millis(10));
    /// assert!(matches!(alone, Err(TransportError::Timeout("a publisher to connect"))));
    ///
    /// let _publisher = client.publisher(&Channel::ipc(), 7)?;
    /// subscriber.wait_connected(&mut BusySpin, Duration::from_secs(10))?;
    /// # Ok::<(), TransportError>(())
    /// ```
    pub fn wait_connected(
        &self,
        idle: &mut impl IdleStrategy,
        timeout: Duration,
    ) -> Result<(), TransportError> {
        let start = Instant::now();
        idle.reset();
        while !self.is_connected() {
            if start.elapsed() > timeout {
                return Err(TransportError::Timeout("a publisher to connect"));
            }
            idle.idle(0);
        }
        Ok(())
    }

    /// Counters so far.
    ///
    /// ```
    /// use peregrine_aeron::{AeronClient, BusySpin, Channel, DriverConfig};
    /// use std::time::Duration;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = AeronClient::embedded(&DriverConfig { sparse_terms: true, ..DriverConfig::default() })?;
    /// let mut subscriber = client.subscriber(&Channel::ipc(), 7)?;
    /// let mut publisher = client.publisher(&Channel::ipc(), 7)?;
    /// let two_frames = vec![0u8; publisher.max_claim_length() + 1];
    /// publisher.publish_retry(&two_frames[..], &mut BusySpin, Duration::from_secs(10))?;
    /// while subscriber.stats().messages == 0 {
    ///     subscriber.poll(|msg| assert_eq!(msg.len(), two_frames.len()), 10)?;
    /// }
    /// assert_eq!(subscriber.stats().fragments, 2); // reassembled into one message
    /// # Ok(()) }
    /// ```
    pub fn stats(&self) -> SubscriptionStats {
        self.stats
    }
}

impl std::fmt::Debug for Subscriber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscriber")
            .field("stats", &self.stats)
            .finish()
    }
}

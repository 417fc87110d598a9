//! The media driver, embedded on a thread of this process: [`MediaDriver`] and its settings.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::error::{c_string, driver_err};
use super::TransportError;

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
/// Most code uses [`AeronClient::embedded`](crate::AeronClient::embedded), which starts one and keeps it alive for as
/// long as its publishers and subscribers. Launch one directly to share it between
/// threads (each connects with [`AeronClient::connect`](crate::AeronClient::connect) to [`MediaDriver::dir`]), or to
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

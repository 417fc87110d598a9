//! What the engine counts about one session, beside what the session counts
//! itself: bytes through its connections and its store's write and fsync
//! latencies.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use peregrine_session::metrics::{LatencyHistogram, SessionCounters};
use peregrine_store::StoreObserver;

use super::add;

/// One session's metrics, shared by the reactor (the only writer) and any
/// reader ([`Metrics::session`](super::Metrics::session), `/metrics`).
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use peregrine_engine::metrics::SessionMetrics;
/// use peregrine_engine::store::StoreObserver;
/// use peregrine_session::metrics::SessionCounters;
///
/// let m = SessionMetrics::new("FIX.4.4:ISLD->TW", Arc::new(SessionCounters::new()));
/// m.on_fsync(Duration::from_micros(700)); // what a file store tells it
/// assert_eq!(m.name(), "FIX.4.4:ISLD->TW");
/// assert_eq!(m.store_fsync().snapshot().count(), 1);
/// assert_eq!(m.counters().messages_received(), 0);
/// ```
#[derive(Debug)]
pub struct SessionMetrics {
    name: String,
    counters: Arc<SessionCounters>,
    bytes_received: AtomicU64,
    bytes_sent: AtomicU64,
    store_write: LatencyHistogram,
    store_fsync: LatencyHistogram,
}

impl SessionMetrics {
    /// Metrics for the session `name` (`FIX.4.4:ISLD->TW[:qualifier]`), with
    /// the counters its session keeps.
    pub fn new(name: impl Into<String>, counters: Arc<SessionCounters>) -> SessionMetrics {
        SessionMetrics {
            name: name.into(),
            counters,
            bytes_received: AtomicU64::new(0),
            bytes_sent: AtomicU64::new(0),
            store_write: LatencyHistogram::new(),
            store_fsync: LatencyHistogram::new(),
        }
    }

    /// The session's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the session counts: messages, resends, gap fills, rejects,
    /// logons, disconnects, state, sequence numbers, heartbeat round-trips.
    pub fn counters(&self) -> &SessionCounters {
        &self.counters
    }

    /// FIX bytes read from its connections and handed to the session (under
    /// TLS, `SocketUseSSL=Y`: the plaintext, after decryption).
    pub fn bytes_received(&self) -> u64 {
        self.bytes_received.load(Relaxed)
    }

    /// FIX bytes written to its connections (under TLS: the plaintext, before
    /// encryption).
    pub fn bytes_sent(&self) -> u64 {
        self.bytes_sent.load(Relaxed)
    }

    /// How long its store's writes take (a file store's: one per commit, see
    /// [`StoreObserver::on_write`]; a memory store writes nothing).
    pub fn store_write(&self) -> &LatencyHistogram {
        &self.store_write
    }

    /// How long its store's fsyncs take ([`StoreObserver::on_fsync`]).
    pub fn store_fsync(&self) -> &LatencyHistogram {
        &self.store_fsync
    }

    /// The reactor read `n` bytes for the session.
    #[inline]
    pub(crate) fn received(&self, n: usize) {
        add(&self.bytes_received, n as u64);
    }

    /// The reactor wrote `n` bytes of the session's.
    #[inline]
    pub(crate) fn sent(&self, n: usize) {
        add(&self.bytes_sent, n as u64);
    }
}

impl StoreObserver for SessionMetrics {
    fn on_write(&self, took: Duration) {
        self.store_write.observe(took);
    }

    fn on_fsync(&self, took: Duration) {
        self.store_fsync.observe(took);
    }
}

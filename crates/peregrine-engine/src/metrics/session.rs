//! What the engine counts about one session, beside what the session counts
//! itself: bytes through its connections, its store's write and fsync
//! latencies, its unsent bytes and slow-consumer flag, whether an operator
//! enabled it and whether its schedule lets it log on now.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

use peregrine_session::metrics::{LatencyHistogram, SessionCounters};
use peregrine_session::Schedule;
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
    outbound_pending: AtomicU64,
    slow_consumer: AtomicBool,
    slow_consumer_flags: AtomicU64,
    enabled: AtomicBool,
    /// Its hours (`StartTime`/`EndTime`…); `None`: around the clock.
    schedule: Option<Schedule>,
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
            outbound_pending: AtomicU64::new(0),
            slow_consumer: AtomicBool::new(false),
            slow_consumer_flags: AtomicU64::new(0),
            enabled: AtomicBool::new(true),
            schedule: None,
        }
    }

    /// The same metrics for a session with these hours: [`in_schedule`](Self::in_schedule)
    /// reads them.
    pub fn with_schedule(self, schedule: Option<Schedule>) -> SessionMetrics {
        SessionMetrics { schedule, ..self }
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

    /// Bytes queued for its connection and not yet written, as of the
    /// reactor's last write or service of the session.
    pub fn outbound_pending(&self) -> u64 {
        self.outbound_pending.load(Relaxed)
    }

    /// Flagged as a slow consumer now (`SlowConsumerAction=flag`, unsent
    /// bytes past `MaxOutboundQueueBytes` until they fall to half of it).
    pub fn slow_consumer(&self) -> bool {
        self.slow_consumer.load(Relaxed)
    }

    /// Times it was flagged as a slow consumer.
    pub fn slow_consumer_flags(&self) -> u64 {
        self.slow_consumer_flags.load(Relaxed)
    }

    /// An operator has not logged it out (`/logout` clears it, `/logon` sets it).
    pub fn enabled(&self) -> bool {
        self.enabled.load(Relaxed)
    }

    /// Whether its schedule lets it log on at `now` (nanoseconds since the
    /// Unix epoch): inside its session hours and logon window; always, without
    /// a schedule.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use peregrine_engine::metrics::SessionMetrics;
    /// use peregrine_session::metrics::SessionCounters;
    /// use peregrine_session::Schedule;
    ///
    /// const H: i64 = 3600 * 1_000_000_000;
    /// let nine_to_five = Some(Schedule::daily(9 * 3600, 17 * 3600));
    /// let m = SessionMetrics::new("FIX.4.4:A->B", Arc::new(SessionCounters::new()))
    ///     .with_schedule(nine_to_five);
    /// assert!(m.in_schedule(10 * H));
    /// assert!(!m.in_schedule(18 * H));
    /// ```
    pub fn in_schedule(&self, now: i64) -> bool {
        self.schedule
            .as_ref()
            .map_or(true, |s| s.logon_allowed(now))
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

    /// `n` bytes are queued and not yet written.
    #[inline]
    pub(crate) fn set_outbound_pending(&self, n: usize) {
        self.outbound_pending.store(n as u64, Relaxed);
    }

    /// Flagged as a slow consumer, or no longer.
    pub(crate) fn set_slow_consumer(&self, slow: bool) {
        if slow && !self.slow_consumer.load(Relaxed) {
            add(&self.slow_consumer_flags, 1);
        }
        self.slow_consumer.store(slow, Relaxed);
    }

    /// An operator enabled or disabled it.
    pub(crate) fn set_enabled(&self, enabled: bool) {
        self.enabled.store(enabled, Relaxed);
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

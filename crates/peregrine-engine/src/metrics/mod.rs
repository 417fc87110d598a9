//! Metrics: what every session and the reactor count, read from any thread
//! without stopping the reactor, and rendered for Prometheus (`GET /metrics`
//! on the [admin interface](crate::admin)).
//!
//! # What is counted, and by whom
//!
//! * The session state machine counts what only it sees, in its
//!   [`SessionCounters`] (see [`peregrine_session::metrics`]): messages
//!   received and sent, resends, gap fills, sequence resets, rejects sent and
//!   received by reason, logons, logouts, disconnects by reason, its state,
//!   its sequence numbers, and heartbeat round-trips.
//! * The reactor counts what only it sees, in [`SessionMetrics`]: bytes read
//!   and written per session; and, as the session's file store's
//!   [`StoreObserver`](peregrine_store::StoreObserver), how long each store
//!   write and fsync takes. Its own duty cycles are in [`EngineCounters`].
//!
//! # No locks on the reactor
//!
//! Every count is an [`AtomicU64`] with one
//! writer, the reactor thread (the session runs on it), which adds with a
//! relaxed load and store: a message costs a few plain memory writes, no
//! locked instruction, no allocation (`tests/zero_alloc.rs` holds with
//! metrics on). Histograms are fixed arrays of such atomics
//! ([`LatencyHistogram`]: 24 log-spaced buckets from 1 µs to 8.4 s, and
//! `+Inf`). A reader loads them whenever it likes; the reactor never waits
//! for it.
//!
//! The list of sessions is an [`arc_swap`] snapshot: an `Arc` of every
//! session's `Arc<SessionMetrics>`, which the reactor replaces (a new `Vec`,
//! off the hot path) after sessions were added or removed, and a reader
//! takes with one atomic load. So a scrape needs nothing from the reactor: a
//! reactor that is stuck still has its counters read, which is when they
//! matter most. (A command to the reactor for the list would have made every
//! scrape wait for a turn.)
//!
//! The clock is read for latencies only where one is measured, and only once
//! a [`StoreObserver`](peregrine_store::StoreObserver) is set (the engine sets
//! one on every session's store): a file store's commit takes two more reads
//! (about 50 ns on a commit of about 1.2 µs without an fsync), and each fsync
//! two (nothing measurable beside the fsync); a memory store writes nothing
//! and reads no clock.
//!
//! # The text
//!
//! [`Metrics::render`] encodes with the `prometheus-client` crate (the
//! Prometheus project's Rust client) in the OpenMetrics text format
//! ([`CONTENT_TYPE`]; Prometheus scrapes it as it is): its custom-collector
//! interface reads the atomics at scrape time, so nothing is copied into a
//! registry as the engine runs. The crate writes label values as given, so
//! the session names (CompIDs from the settings, or from a counterparty's
//! Logon through an acceptor template) are escaped here first (`\`, `"` and
//! line feeds, as the format says). Counts by reason have a fixed set of
//! labels ([`REJECT_REASONS`], [`DISCONNECT_REASONS`]): a value from the wire
//! cannot add series. The families are listed in [`render`](Metrics::render).

mod engine;
mod render;
mod session;

pub use engine::EngineCounters;
pub use peregrine_session::metrics::{
    HistogramSnapshot, LatencyHistogram, SessionCounters, DISCONNECT_REASONS, LATENCY_BUCKETS,
    REJECT_REASONS, SESSION_STATES,
};
pub use render::CONTENT_TYPE;
pub use session::SessionMetrics;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use arc_swap::ArcSwap;

/// Adds `n` to a count that has one writer (the reactor): a relaxed load and
/// store, no locked instruction.
#[inline]
fn add(count: &AtomicU64, n: u64) {
    count.store(count.load(Relaxed).wrapping_add(n), Relaxed);
}

/// An engine's metrics: cheap to clone, readable from any thread while the
/// engine runs ([`Engine::metrics`](crate::Engine::metrics),
/// [`EngineHandle::metrics`](crate::EngineHandle::metrics),
/// [`RunningEngine::metrics`](crate::RunningEngine::metrics)).
///
/// ```
/// use peregrine_engine::EngineBuilder;
/// use peregrine_session::EchoApp;
///
/// let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=VENUE\n\
///            TargetCompID=CLIENT\nUseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n";
/// let venue = EngineBuilder::parse(cfg, "venue.cfg")?.start(|_| EchoApp::new(None))?;
/// let metrics = venue.metrics();
/// let session = metrics.session("FIX.4.4:VENUE->CLIENT").unwrap();
/// assert_eq!(session.counters().messages_received(), 0);
/// assert_eq!(session.counters().next_sender_seq(), 1);
/// assert!(metrics.render().contains("peregrine_session_messages_received_total{session=\"FIX.4.4:VENUE->CLIENT\"} 0\n"));
/// venue.stop()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Metrics {
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    /// Every session's metrics, in the order they were added: replaced whole
    /// by the reactor when sessions come or go.
    sessions: ArcSwap<Vec<Arc<SessionMetrics>>>,
    engine: EngineCounters,
}

impl Metrics {
    /// Every session's metrics, as of the reactor's last change to the list.
    pub fn sessions(&self) -> Arc<Vec<Arc<SessionMetrics>>> {
        self.shared.sessions.load_full()
    }

    /// The metrics of the session `name` (its full name, with its qualifier
    /// if it has one).
    pub fn session(&self, name: &str) -> Option<Arc<SessionMetrics>> {
        self.shared
            .sessions
            .load()
            .iter()
            .find(|s| s.name() == name)
            .cloned()
    }

    /// The reactor's own counters.
    pub fn engine(&self) -> &EngineCounters {
        &self.shared.engine
    }

    /// Every metric in the OpenMetrics text format ([`CONTENT_TYPE`]), as
    /// `GET /metrics` serves it. Per session (label `session`):
    ///
    /// | family | type | what |
    /// |---|---|---|
    /// | `peregrine_session_messages_received_total` | counter | messages received whole and decoded |
    /// | `peregrine_session_messages_sent_total` | counter | messages queued for the connection (resends and gap fills too) |
    /// | `peregrine_session_received_bytes_total`, `…_sent_bytes_total` | counter | FIX bytes read from and written to its connections (the plaintext under TLS) |
    /// | `peregrine_session_messages_resent_total` | counter | application messages re-sent (PossDupFlag=Y) |
    /// | `peregrine_session_gap_fills_sent_total`, `…_gap_fills_received_total` | counter | SequenceReset-GapFill |
    /// | `peregrine_session_sequence_resets_received_total` | counter | SequenceReset in reset mode |
    /// | `peregrine_session_sequence_number_resets_total` | counter | our sequence numbers reset to 1 |
    /// | `peregrine_session_gaps_detected_total` | counter | gaps in what was received |
    /// | `peregrine_session_resend_requests_sent_total`, `…_received_total` | counter | ResendRequests |
    /// | `peregrine_session_resends_answered_total` | counter | ResendRequests answered to the end |
    /// | `peregrine_session_garbled_total` | counter | runs of garbled bytes dropped |
    /// | `peregrine_session_logons_total` | counter | logons completed |
    /// | `peregrine_session_logouts_sent_total`, `…_received_total` | counter | Logouts |
    /// | `peregrine_session_test_requests_sent_total` | counter | TestRequests sent |
    /// | `peregrine_session_rejects_sent_total`, `…_received_total` | counter | labels `type` (`session`: 35=3 by SessionRejectReason(373); `business`: 35=j by BusinessRejectReason(380)) and `reason` ([`REJECT_REASONS`]); only the slots that counted something |
    /// | `peregrine_session_disconnects_total` | counter | label `reason` ([`DISCONNECT_REASONS`]); only reasons that happened |
    /// | `peregrine_session_state` | gauge | label `state`: 1 for the state it is in, 0 for the five others |
    /// | `peregrine_session_next_sender_seq_num`, `…_next_target_seq_num` | gauge | sequence numbers |
    /// | `peregrine_session_outbound_pending_bytes` | gauge | bytes queued for the connection, not yet written |
    /// | `peregrine_session_slow_consumer`, `…_slow_consumer_flags_total` | gauge, counter | flagged as a slow consumer now (`SlowConsumerAction=flag`); times flagged |
    /// | `peregrine_session_enabled` | gauge | 0 after an operator's `/logout`, 1 again after `/logon` |
    /// | `peregrine_session_in_schedule` | gauge | 1 while its schedule lets it log on (read from the clock at the scrape) |
    /// | `peregrine_session_store_write_seconds`, `…_store_fsync_seconds` | histogram | file store writes (per commit) and fsyncs |
    /// | `peregrine_session_heartbeat_rtt_seconds` | histogram | TestRequest to the Heartbeat with its TestReqID |
    ///
    /// A histogram with no observation yet (a memory store, a peer never
    /// asked) is left out. And for the engine: `peregrine_engine_turns_total`,
    /// `…_idle_turns_total`, `…_readiness_events_total`, `…_polls_total`,
    /// `…_housekeeping_total`, `…_commands_total`, `…_sender_messages_total`,
    /// `…_connections_accepted_total` (see [`EngineCounters`]) and the gauge
    /// `peregrine_engine_sessions`.
    ///
    /// Its size is bounded by the sessions: about 40 lines per session, and
    /// 27 more per histogram with observations.
    pub fn render(&self) -> String {
        render::render(self)
    }

    /// Makes `sessions` the list readers see (the reactor, after a change).
    pub(crate) fn publish(&self, sessions: Vec<Arc<SessionMetrics>>) {
        self.shared.sessions.store(Arc::new(sessions));
    }
}

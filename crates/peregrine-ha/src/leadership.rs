//! [`Leadership`]: one group's campaign on a thread of its own, and its handle.

use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::campaign::Campaign;
use crate::config::HaConfig;
use crate::error::HaError;
use crate::event::{EventSink, LeadershipEvent};
use crate::gate::{LeaderGate, Shared};
use crate::term::Term;

/// This node's leadership of one session group: a thread that campaigns for the
/// group's leader key on etcd for as long as the handle lives.
///
/// Ask [`gate`](Self::gate) (or [`term_at`](Self::term_at)) before each write: it
/// answers from the clock and the lease's local deadline, without waiting for etcd.
/// [`stop`](Self::stop) (or dropping the handle) resigns: the node stops counting
/// itself leader at once, then revokes its lease, which deletes the key, so a
/// standby wins without waiting for the TTL.
///
/// ```no_run
/// use peregrine_ha::{HaConfig, Leadership, LeadershipEvent};
/// use std::time::Duration;
/// let config = HaConfig::new("node-a", "orders", ["127.0.0.1:2379"]);
/// let leadership = Leadership::start(config)?;
/// while let Some(event) = leadership.next_event(Duration::from_secs(5)) {
///     if let LeadershipEvent::Won { term, .. } = event {
///         println!("leading term {term}");
///         break;
///     }
/// }
/// leadership.stop(); // resign
/// # Ok::<(), peregrine_ha::HaError>(())
/// ```
#[derive(Debug)]
pub struct Leadership {
    gate: LeaderGate,
    config: HaConfig,
    stop: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
    events: mpsc::Receiver<LeadershipEvent>,
    dropped: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Leadership {
    /// Checks the settings and starts campaigning (connecting to etcd happens on the
    /// campaign's thread: failures there are [`LeadershipEvent::EtcdError`]s and are
    /// retried).
    ///
    /// # Errors
    ///
    /// [`HaError::Config`] for wrong settings, [`HaError::Thread`] when the thread
    /// could not be spawned.
    pub fn start(config: HaConfig) -> Result<Self, HaError> {
        config.validate()?;
        let shared = Shared::new();
        let (stop, stop_rx) = watch::channel(false);
        let (sink, events) = EventSink::new();
        let dropped = sink.dropped.clone();
        let campaign = Campaign {
            config: config.clone(),
            shared: shared.clone(),
            events: sink,
            stop: stop_rx,
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(HaError::Thread)?;
        let thread = std::thread::Builder::new()
            .name(format!("ha-{}", config.group))
            .spawn(move || runtime.block_on(campaign.run()))
            .map_err(HaError::Thread)?;
        Ok(Leadership {
            gate: LeaderGate { shared },
            config,
            stop,
            thread: Some(thread),
            events,
            dropped,
        })
    }

    /// The settings it runs with.
    pub fn config(&self) -> &HaConfig {
        &self.config
    }

    /// A handle for the threads that write.
    pub fn gate(&self) -> LeaderGate {
        self.gate.clone()
    }

    /// The term this node leads at `now` (see [`LeaderGate::term_at`]).
    pub fn term_at(&self, now: Instant) -> Option<Term> {
        self.gate.term_at(now)
    }

    /// Whether this node leads now.
    pub fn is_leader(&self) -> bool {
        self.gate.is_leader()
    }

    /// The next event, waiting up to `wait` (`None`: none came).
    pub fn next_event(&self, wait: Duration) -> Option<LeadershipEvent> {
        self.events.recv_timeout(wait).ok()
    }

    /// An event if one is waiting.
    pub fn try_event(&self) -> Option<LeadershipEvent> {
        self.events.try_recv().ok()
    }

    /// Events dropped because nobody read them (the queue holds 1,024).
    pub fn dropped_events(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Resigns and waits for the campaign's thread to end (at most about a third of
    /// the TTL, the bound on the lease's revoke).
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        // Not leader from this instant, whatever the thread is doing.
        self.gate.shared.close();
        let _ = self.stop.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Leadership {
    fn drop(&mut self) {
        self.shutdown();
    }
}

//! The reactor's own counters: its duty cycles and what they handled.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::add;

/// How the reactor spends its cycles, counted by the reactor (the only
/// writer) and read from anywhere.
///
/// ```
/// use peregrine_engine::{fix::LogApp, EngineBuilder};
///
/// let cfg = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptAddress=127.0.0.1\n\
///            SocketAcceptPort=0\nSenderCompID=VENUE\nTargetCompID=CLIENT\n\
///            UseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n";
/// let mut engine = EngineBuilder::parse(cfg, "venue.cfg")?.build(|_| LogApp)?;
/// let metrics = engine.metrics();
/// engine.poll()?;
/// assert_eq!(metrics.engine().turns(), 1);
/// assert_eq!(metrics.engine().idle_turns(), 1); // nothing to do
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct EngineCounters {
    turns: AtomicU64,
    idle_turns: AtomicU64,
    readiness_events: AtomicU64,
    polls: AtomicU64,
    housekeeping: AtomicU64,
    commands: AtomicU64,
    sender_messages: AtomicU64,
    connections_accepted: AtomicU64,
}

impl EngineCounters {
    /// Duty cycles: [`Engine::turn`](crate::Engine::turn), the
    /// [`Agent`](crate::Agent)'s `do_work`, [`Engine::poll`](crate::Engine::poll).
    pub fn turns(&self) -> u64 {
        self.turns.load(Relaxed)
    }

    /// Duty cycles that found nothing to do (the idle strategy then waits).
    pub fn idle_turns(&self) -> u64 {
        self.idle_turns.load(Relaxed)
    }

    /// Readiness events epoll reported (sockets, the waker).
    pub fn readiness_events(&self) -> u64 {
        self.readiness_events.load(Relaxed)
    }

    /// Times the reactor asked epoll what is ready: every turn, but for the turns of
    /// a busy-spinning engine that read its few connections directly (7 in 8).
    pub fn polls(&self) -> u64 {
        self.polls.load(Relaxed)
    }

    /// Housekeeping passes: timers, reconnects, commands, log flushes.
    pub fn housekeeping(&self) -> u64 {
        self.housekeeping.load(Relaxed)
    }

    /// Commands carried out ([`EngineHandle`](crate::EngineHandle), the admin
    /// interface).
    pub fn commands(&self) -> u64 {
        self.commands.load(Relaxed)
    }

    /// Messages taken from [`Sender`](crate::Sender) queues.
    pub fn sender_messages(&self) -> u64 {
        self.sender_messages.load(Relaxed)
    }

    /// Connections accepted by the listeners.
    pub fn connections_accepted(&self) -> u64 {
        self.connections_accepted.load(Relaxed)
    }

    #[inline]
    pub(crate) fn turn(&self, worked: bool) {
        add(&self.turns, 1);
        if !worked {
            add(&self.idle_turns, 1);
        }
    }

    #[inline]
    pub(crate) fn readiness(&self, events: usize) {
        add(&self.polls, 1);
        add(&self.readiness_events, events as u64);
    }

    pub(crate) fn housekept(&self) {
        add(&self.housekeeping, 1);
    }

    pub(crate) fn command(&self) {
        add(&self.commands, 1);
    }

    #[inline]
    pub(crate) fn sender_message(&self) {
        add(&self.sender_messages, 1);
    }

    pub(crate) fn accepted(&self) {
        add(&self.connections_accepted, 1);
    }
}

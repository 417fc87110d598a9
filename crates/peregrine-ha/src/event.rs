//! What the campaign tells its node: [`LeadershipEvent`]s.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::term::Term;

/// Why a node stopped leading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossReason {
    /// The lease's local deadline passed with no keep-alive answered in time (etcd
    /// unreachable or slow, or this process paused).
    Deadline,
    /// etcd answered a keep-alive with TTL 0: the lease had expired there.
    LeaseExpired,
    /// The leader key was deleted or replaced (by an operator, or a revoke).
    KeyGone,
    /// This node resigned ([`Leadership::stop`](crate::Leadership::stop)).
    Resigned,
    /// An etcd call failed while leading; the campaign starts again.
    Etcd,
}

impl fmt::Display for LossReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LossReason::Deadline => "no keep-alive succeeded before the lease's local deadline",
            LossReason::LeaseExpired => "etcd says the lease expired",
            LossReason::KeyGone => "the leader key was deleted",
            LossReason::Resigned => "resigned",
            LossReason::Etcd => "an etcd call failed",
        })
    }
}

/// A change of leadership as this node saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeadershipEvent {
    /// This node won `term`; it leads until `until` unless a keep-alive succeeds.
    Won {
        /// The fencing token.
        term: Term,
        /// The lease's local deadline at the win.
        until: Instant,
        /// When the win was known here.
        at: Instant,
    },
    /// This node does not lead `term` any more.
    Lost {
        /// The term it led.
        term: Term,
        /// Why.
        reason: LossReason,
        /// When the campaign noticed (the gate closed at the deadline already).
        at: Instant,
    },
    /// Another node leads (its `HaNodeName`, as etcd holds it).
    LeaderSeen {
        /// The leader's name.
        node: String,
        /// Its term.
        term: Term,
        /// When it was seen here.
        at: Instant,
    },
    /// No node leads (the leader key was deleted); this node campaigns.
    NoLeader {
        /// When it was seen here.
        at: Instant,
    },
    /// etcd granted a longer TTL than asked (its minimum).
    TtlRaised {
        /// `HaLeaseTTL`.
        asked: Duration,
        /// What etcd granted (and the campaign uses).
        granted: Duration,
    },
    /// An etcd call failed; the campaign retries.
    EtcdError {
        /// etcd-client's words.
        error: String,
        /// When.
        at: Instant,
    },
}

impl fmt::Display for LeadershipEvent {
    /// One line for a log (a node name from etcd is escaped).
    ///
    /// ```
    /// use peregrine_ha::{LeadershipEvent, Term};
    /// let seen = LeadershipEvent::LeaderSeen {
    ///     node: "gw-b".into(),
    ///     term: Term::new(12).unwrap(),
    ///     at: std::time::Instant::now(),
    /// };
    /// assert_eq!(seen.to_string(), "gw-b leads (term 12): this node stands by");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeadershipEvent::Won { term, until, .. } => write!(
                f,
                "this node leads (term {term}), for {:?} unless a keep-alive succeeds",
                until.saturating_duration_since(Instant::now())
            ),
            LeadershipEvent::Lost { term, reason, .. } => {
                write!(f, "this node does not lead term {term} any more: {reason}")
            }
            LeadershipEvent::LeaderSeen { node, term, .. } => write!(
                f,
                "{} leads (term {term}): this node stands by",
                node.escape_debug()
            ),
            LeadershipEvent::NoLeader { .. } => f.write_str("no node leads: campaigning"),
            LeadershipEvent::TtlRaised { asked, granted } => write!(
                f,
                "etcd granted a lease of {granted:?} (HaLeaseTTL asked {asked:?}: its minimum)"
            ),
            LeadershipEvent::EtcdError { error, .. } => {
                write!(f, "etcd: {} (retrying)", error.escape_debug())
            }
        }
    }
}

/// The most events that wait unread; later ones are counted and dropped.
pub(crate) const EVENT_QUEUE: usize = 1024;

/// The campaign's end of the event queue: bounded, never blocks the campaign.
#[derive(Debug)]
pub(crate) struct EventSink {
    tx: mpsc::SyncSender<LeadershipEvent>,
    pub(crate) dropped: std::sync::Arc<AtomicU64>,
}

impl EventSink {
    pub(crate) fn new() -> (Self, mpsc::Receiver<LeadershipEvent>) {
        let (tx, rx) = mpsc::sync_channel(EVENT_QUEUE);
        (
            EventSink {
                tx,
                dropped: Default::default(),
            },
            rx,
        )
    }

    pub(crate) fn emit(&self, event: LeadershipEvent) {
        tracing::info!(?event, "leadership");
        if let Err(mpsc::TrySendError::Full(_)) = self.tx.try_send(event) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

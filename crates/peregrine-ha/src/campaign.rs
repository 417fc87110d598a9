//! The campaign for one group's leader key, on the leadership thread: grant a lease,
//! keep it alive every TTL/3, try to create the key under it, watch the key, and
//! publish the term and the lease's local deadline to the [`gate`](crate::gate).
//!
//! The local deadline of a lease is `sent + TTL - margin`, where `sent` is when the
//! newest keep-alive that etcd answered (or the grant) was *sent*: etcd renews the
//! lease when it receives the request, which is after we sent it, so its expiry is
//! at least `sent + TTL`; a standby can only create the key after that expiry (and
//! etcd's revoke of it). A reply that arrives late (after a pause) therefore never
//! moves the deadline past what etcd granted.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use etcd_client::{
    Client, Compare, CompareOp, ConnectOptions, EventType, LeaseKeepAliveStream, LeaseKeeper,
    PutOptions, Txn, TxnOp, TxnOpResponse, WatchOptions, WatchResponse, WatchStream,
};
use tokio::sync::watch;
use tokio::time::{sleep_until, timeout};

use crate::config::HaConfig;
use crate::error::HaError;
use crate::event::{EventSink, LeadershipEvent, LossReason};
use crate::gate::Shared;
use crate::term::Term;

/// Keep-alives sent and not yet answered, at most (more means etcd is not
/// answering: the deadline will decide).
const MAX_OUTSTANDING: usize = 8;

/// How one lease ended.
enum LeaseEnd {
    /// Asked to stop: resign.
    Stopped,
    /// Lost (or never won) with this lease: campaign again with a new one.
    Again,
}

/// The leader key as etcd showed it.
struct Holder {
    node: String,
    term: Term,
}

pub(crate) struct Campaign {
    pub(crate) config: HaConfig,
    pub(crate) shared: Arc<Shared>,
    pub(crate) events: EventSink,
    pub(crate) stop: watch::Receiver<bool>,
}

impl Campaign {
    fn stopping(&self) -> bool {
        *self.stop.borrow()
    }

    /// A bound on every unary call: a stalled etcd must not stall the campaign.
    fn rpc_timeout(&self) -> Duration {
        (self.config.lease_ttl / 3).max(Duration::from_millis(300))
    }

    async fn rpc<T>(
        &self,
        call: impl Future<Output = Result<T, etcd_client::Error>>,
    ) -> Result<T, HaError> {
        match timeout(self.rpc_timeout(), call).await {
            Ok(r) => r.map_err(|e| HaError::Etcd(e.to_string())),
            Err(_) => Err(HaError::Etcd(format!(
                "no answer within {:?}",
                self.rpc_timeout()
            ))),
        }
    }

    /// Campaigns until asked to stop.
    pub(crate) async fn run(mut self) {
        let retry = self.rpc_timeout();
        while !self.stopping() {
            let end = match self.connect().await {
                Ok(client) => self.lease(client).await,
                Err(e) => Err(e),
            };
            match end {
                Ok(LeaseEnd::Stopped) => break,
                Ok(LeaseEnd::Again) => {}
                Err(e) => {
                    self.events.emit(LeadershipEvent::EtcdError {
                        error: e.to_string(),
                        at: Instant::now(),
                    });
                    let _ = timeout(retry, self.stop.changed()).await;
                }
            }
        }
        self.shared.step_down();
    }

    async fn connect(&self) -> Result<Client, HaError> {
        let options = ConnectOptions::new()
            .with_connect_timeout(self.rpc_timeout())
            .with_keep_alive(self.rpc_timeout(), self.rpc_timeout());
        self.rpc(Client::connect(self.config.endpoint_urls(), Some(options)))
            .await
    }

    /// One lease: grant, campaign, lead or watch, until it ends; then make sure
    /// this node does not count itself leader, and revoke the lease (so that a
    /// standby need not wait for the TTL).
    async fn lease(&mut self, mut client: Client) -> Result<LeaseEnd, HaError> {
        let sent = Instant::now();
        let grant = self
            .rpc(client.lease_grant(self.config.lease_ttl_secs(), None))
            .await?;
        let ttl = Duration::from_secs(grant.ttl().max(0) as u64);
        if ttl.is_zero() {
            return Err(HaError::Etcd(format!("lease refused: {:?}", grant.error())));
        }
        if ttl > self.config.lease_ttl {
            self.events.emit(LeadershipEvent::TtlRaised {
                asked: self.config.lease_ttl,
                granted: ttl,
            });
        }
        let mut lease = Lease {
            id: grant.id(),
            ttl,
            margin: self.config.margin_for(ttl),
            until: sent + ttl - self.config.margin_for(ttl),
            term: None,
        };
        let end = self.hold(&mut client, &mut lease).await;
        let reason = match end {
            Ok(LeaseEnd::Stopped) => LossReason::Resigned,
            _ if Instant::now() >= lease.until => LossReason::Deadline,
            _ => LossReason::Etcd,
        };
        self.lost(&mut lease, reason); // when still leading
        let _ = timeout(self.rpc_timeout(), client.lease_revoke(lease.id)).await;
        end
    }

    /// Tries to create the leader key under the lease: `Ok(Ok(term))` when this
    /// node won, `Ok(Err(holder))` when another key holds it; and the revision the
    /// answer is as of.
    async fn campaign(
        &self,
        client: &mut Client,
        lease: i64,
    ) -> Result<(Result<Term, Option<Holder>>, i64), HaError> {
        let key = self.config.leader_key();
        let txn = Txn::new()
            .when([Compare::create_revision(key.clone(), CompareOp::Equal, 0)])
            .and_then([TxnOp::put(
                key.clone(),
                self.config.node.clone(),
                Some(PutOptions::new().with_lease(lease)),
            )])
            .or_else([TxnOp::get(key, None)]);
        let answer = self.rpc(client.txn(txn)).await?;
        let revision = answer
            .header()
            .map(|h| h.revision())
            .ok_or_else(|| HaError::Etcd("a transaction answer without a header".into()))?;
        if answer.succeeded() {
            // The put is the transaction's one change: the key's create revision is
            // the transaction's revision.
            let term = Term::new(revision as u64)
                .ok_or_else(|| HaError::Etcd("a transaction at revision 0".into()))?;
            return Ok((Ok(term), revision));
        }
        let holder = answer.op_responses().into_iter().find_map(|op| match op {
            TxnOpResponse::Get(get) => get.kvs().first().and_then(holder_of),
            _ => None,
        });
        Ok((Err(holder), revision))
    }

    /// Publishes a campaign's outcome.
    fn outcome(&self, lease: &mut Lease, outcome: Result<Term, Option<Holder>>) {
        let at = Instant::now();
        match outcome {
            Ok(term) => {
                lease.term = Some(term);
                self.shared.set_seen(None);
                self.shared.win(term, lease.until);
                self.events.emit(LeadershipEvent::Won {
                    term,
                    until: lease.until,
                    at,
                });
            }
            Err(Some(h)) => {
                if self.shared.set_seen(Some((h.node.clone(), h.term))) {
                    self.events.emit(LeadershipEvent::LeaderSeen {
                        node: h.node,
                        term: h.term,
                        at,
                    });
                }
            }
            Err(None) => {}
        }
    }

    fn lost(&self, lease: &mut Lease, reason: LossReason) {
        self.shared.step_down();
        if let Some(term) = lease.term.take() {
            self.events.emit(LeadershipEvent::Lost {
                term,
                reason,
                at: Instant::now(),
            });
        }
    }

    /// etcd renewed the lease on a keep-alive sent at `sent`: the local deadline
    /// moves to `sent + ttl - margin` (never earlier).
    fn renewed(&self, lease: &mut Lease, sent: Instant, ttl: Duration) {
        let until = sent + ttl - lease.margin.min(ttl / 3);
        if until > lease.until {
            lease.until = until;
            if let Some(term) = lease.term {
                self.shared.extend(term, until);
            }
        }
    }

    async fn hold(&mut self, client: &mut Client, lease: &mut Lease) -> Result<LeaseEnd, HaError> {
        // Opening the stream sends a first keep-alive and waits for its answer.
        let sent = Instant::now();
        let (keeper, stream) = self.rpc(client.lease_keep_alive(lease.id)).await?;
        self.renewed(lease, sent, lease.ttl);
        let mut alive = KeepAlive {
            keeper: Some(keeper),
            stream: Some(stream),
            sent: VecDeque::new(),
            every: lease.ttl / 3,
            next: Instant::now() + lease.ttl / 3,
        };
        let (outcome, revision) = self.campaign(client, lease.id).await?;
        self.outcome(lease, outcome);
        let mut watch = Watch {
            stream: None,
            revision,
        };
        watch
            .open(client, &self.config.leader_key(), self.rpc_timeout())
            .await?;
        loop {
            tokio::select! {
                biased;
                _ = self.stop.changed() => return Ok(LeaseEnd::Stopped),
                _ = sleep_until(lease.until.into()) => {
                    self.lost(lease, LossReason::Deadline);
                    return Ok(LeaseEnd::Again);
                }
                _ = sleep_until(alive.next.into()) => {
                    if let Some(sent) = alive.send(client, lease.id, self.rpc_timeout()).await {
                        self.renewed(lease, sent, lease.ttl);
                    }
                    if watch.stream.is_none() {
                        // Leading without a watch (it broke): open it again where it
                        // ended, so that a deleted key is still noticed.
                        let key = self.config.leader_key();
                        let _ = watch.open(client, &key, self.rpc_timeout()).await;
                    }
                }
                answer = next_answer(&mut alive.stream) => {
                    if let Some(end) = self.answered(lease, &mut alive, answer) {
                        return Ok(end);
                    }
                }
                message = next_message(&mut watch.stream) => {
                    if let Some(end) = self.watched(client, lease, &mut watch, message).await? {
                        return Ok(end);
                    }
                }
            }
        }
    }

    /// A keep-alive answer (`None`: the stream broke).
    fn answered(
        &self,
        lease: &mut Lease,
        alive: &mut KeepAlive,
        answer: Option<i64>,
    ) -> Option<LeaseEnd> {
        let Some(ttl) = answer else {
            // No renewal until the stream is opened again (on the next tick); the
            // deadline decides meanwhile.
            alive.keeper = None;
            alive.stream = None;
            alive.sent.clear();
            return None;
        };
        let sent = alive.sent.pop_front();
        if ttl <= 0 {
            self.lost(lease, LossReason::LeaseExpired);
            return Some(LeaseEnd::Again);
        }
        if let Some(sent) = sent {
            self.renewed(lease, sent, Duration::from_secs(ttl as u64));
        }
        None
    }

    /// A watch message (`Err`: the watch broke).
    async fn watched(
        &self,
        client: &mut Client,
        lease: &mut Lease,
        watch: &mut Watch,
        message: Result<WatchResponse, HaError>,
    ) -> Result<Option<LeaseEnd>, HaError> {
        let message = match message {
            Ok(m) if !m.canceled() => m,
            broken => {
                let why = match broken {
                    Ok(m) => format!("the watch was cancelled: {}", m.cancel_reason()),
                    Err(e) => e.to_string(),
                };
                watch.stream = None;
                if lease.term.is_some() {
                    return Ok(None); // opened again on the next tick
                }
                return Err(HaError::Etcd(why));
            }
        };
        if let Some(h) = message.header() {
            watch.revision = watch.revision.max(h.revision());
        }
        for event in message.events() {
            let Some(kv) = event.kv() else { continue };
            match event.event_type() {
                EventType::Delete => {
                    if lease.term.is_some() {
                        self.lost(lease, LossReason::KeyGone);
                        return Ok(Some(LeaseEnd::Again));
                    }
                    self.shared.set_seen(None);
                    self.events
                        .emit(LeadershipEvent::NoLeader { at: Instant::now() });
                    let (outcome, _) = self.campaign(client, lease.id).await?;
                    self.outcome(lease, outcome);
                }
                EventType::Put => {
                    let Some(holder) = holder_of(kv) else {
                        continue;
                    };
                    match lease.term {
                        Some(term) if term != holder.term => {
                            self.lost(lease, LossReason::KeyGone);
                            return Ok(Some(LeaseEnd::Again));
                        }
                        Some(_) => {}
                        None => self.outcome(lease, Err(Some(holder))),
                    }
                }
            }
        }
        Ok(None)
    }
}

/// The watch of the leader key, and the newest revision it has shown.
struct Watch {
    stream: Option<WatchStream>,
    revision: i64,
}

impl Watch {
    async fn open(
        &mut self,
        client: &mut Client,
        key: &str,
        bound: Duration,
    ) -> Result<(), HaError> {
        let options = WatchOptions::new().with_start_revision(self.revision + 1);
        let stream = timeout(bound, client.watch(key, Some(options)))
            .await
            .map_err(|_| HaError::Etcd(format!("no watch within {bound:?}")))?
            .map_err(|e| HaError::Etcd(e.to_string()))?;
        self.stream = Some(stream);
        Ok(())
    }
}

/// A lease this node holds.
struct Lease {
    id: i64,
    /// As granted.
    ttl: Duration,
    margin: Duration,
    /// The local deadline.
    until: Instant,
    /// The term won with it, while leading.
    term: Option<Term>,
}

/// The keep-alive stream of a lease and the send times of its unanswered requests.
struct KeepAlive {
    keeper: Option<LeaseKeeper>,
    stream: Option<LeaseKeepAliveStream>,
    /// When each unanswered keep-alive was sent, oldest first (etcd answers in order).
    sent: VecDeque<Instant>,
    every: Duration,
    next: Instant,
}

impl KeepAlive {
    /// Sends the next keep-alive; when the stream had broken, opens it again, which
    /// sends one and waits for its answer: then returns when that one was sent.
    async fn send(&mut self, client: &mut Client, lease: i64, bound: Duration) -> Option<Instant> {
        let now = Instant::now();
        self.next = (self.next + self.every).max(now + self.every / 2);
        let Some(keeper) = self.keeper.as_mut() else {
            let (keeper, stream) = timeout(bound, client.lease_keep_alive(lease))
                .await
                .ok()?
                .ok()?;
            self.keeper = Some(keeper);
            self.stream = Some(stream);
            self.sent.clear();
            return Some(now);
        };
        if self.sent.len() < MAX_OUTSTANDING {
            if let Ok(Ok(())) = timeout(bound, keeper.keep_alive()).await {
                self.sent.push_back(now);
            }
        }
        None
    }
}

/// The next message of a watch; never resolves when there is none.
async fn next_message(stream: &mut Option<WatchStream>) -> Result<WatchResponse, HaError> {
    match stream {
        Some(s) => s
            .message()
            .await
            .map_err(|e| HaError::Etcd(e.to_string()))?
            .ok_or_else(|| HaError::Etcd("the watch ended".into())),
        None => std::future::pending().await,
    }
}

/// The TTL of the next keep-alive answer; `None` when the stream broke (or there is
/// none: then it never resolves).
async fn next_answer(stream: &mut Option<LeaseKeepAliveStream>) -> Option<i64> {
    match stream {
        Some(s) => match s.message().await {
            Ok(Some(answer)) => Some(answer.ttl()),
            Ok(None) | Err(_) => None,
        },
        None => std::future::pending().await,
    }
}

fn holder_of(kv: &etcd_client::KeyValue) -> Option<Holder> {
    Some(Holder {
        node: String::from_utf8_lossy(kv.value()).into_owned(),
        term: Term::new(kv.create_revision() as u64)?,
    })
}

//! The routing world (`--route`, store kind *engine journal*): a router
//! node hosting sessions between a client and one or two venues (odd seeds
//! one, even seeds two), its stores views of one
//! [`EngineJournal`](peregrine_store::EngineJournal) in deferred mode, and
//! crashes of the router at any point of its turn with torn journal writes.
//!
//! ```text
//! client (CLIENT->GW) ⇄ [GW->CLIENT | router | GW->VENUE1] ⇄ venue 1 (VENUE1->GW)
//!        orders D →            forwarded in from_app   | GW->VENUE2] ⇄ venue 2
//!        ← reports 8           (Outbox::send_to)
//! ```
//!
//! Each order is forwarded to every venue in the turn that reads it (with
//! two venues a transaction spans three sessions); each venue answers with
//! a report, forwarded to the client. The client and the venues run on
//! memory stores and never crash; the
//! router does, at a [`CrashPoint`] (between turns,
//! after its input, after staging, during the turn's write, after it) with
//! a [`JournalTear`](actions::JournalTear) of what was not durable. The
//! driver follows the engine's contract (`peregrine-engine`'s `journal.rs`):
//! input, forwards handed over, every session committed, the journal written
//! once, then the sockets. The invariants are in [`oracle`]; a recovery
//! that gives back other numbers than the last durable turn left (or the
//! turn in flight, when its write survived whole) is [`Invariant::AckedLost`].

pub mod actions;
pub mod oracle;
pub mod party;
pub mod router;
mod run;

use peregrine_session::{Nanos, Role, Session, SessionEvent, SessionState, SECOND};
use peregrine_store::MemoryStore;

use crate::clock::SimClock;
use crate::invariants::Invariant;
use crate::world::network::{self, Link};

use self::actions::{CrashPoint, End, Leg, RouteAction};
use self::oracle::Ledger;
use self::party::{Edge, Party};
use self::router::Router;

pub use self::run::{run_route, venues_of, RouteOutcome, RouteStats};

/// The legs of a world with `n` connections (the client's, then the venues').
fn legs(n: usize) -> impl Iterator<Item = Leg> {
    (0..n as u8).map(Leg)
}
const ENDS: [End; 2] = [End::Outer, End::Router];

/// The routing world of one run.
pub struct RouteWorld {
    clock: SimClock,
    client: Session<MemoryStore>,
    client_app: Edge,
    venues: Vec<Session<MemoryStore>>,
    venue_apps: Vec<Edge>,
    router: Router,
    /// The client's connection, then each venue's.
    links: Vec<Option<Link>>,
    ledger: Ledger,
    next_id: u64,
    /// What happened.
    pub stats: RouteStats,
    violation: Option<(Invariant, String)>,
    steps: u64,
    _dir: tempfile::TempDir,
}

fn temp_dir() -> std::io::Result<tempfile::TempDir> {
    let shm = std::path::Path::new("/dev/shm");
    let b = tempfile::Builder::new()
        .prefix("peregrine-sim-route")
        .tempdir_in(shm);
    b.or_else(|_| {
        tempfile::Builder::new()
            .prefix("peregrine-sim-route")
            .tempdir()
    })
}

impl RouteWorld {
    /// A new world with `venues` venues: nobody connected, the journal new.
    ///
    /// # Errors
    ///
    /// The temporary directory or the journal could not be made.
    pub fn new(venues: usize) -> Result<RouteWorld, Box<dyn std::error::Error>> {
        let clock = SimClock::at(1_800_000_000 * SECOND);
        let dir = temp_dir()?;
        let now = clock.now();
        let router = Router::open(dir.path(), venues, now)?;
        let mut client_app = Edge::default();
        let mut client = Session::new(
            router::config("CLIENT", "GW", Role::Initiator),
            MemoryStore::new(now),
            now,
        );
        client.create(&mut client_app);
        let (mut sessions, mut apps) = (Vec::new(), Vec::new());
        for k in 1..=venues {
            let mut app = Edge {
                venue: Some(k),
                ..Edge::default()
            };
            let cfg = router::config(&router::venue(k), "GW", Role::Acceptor);
            let mut venue = Session::new(cfg, MemoryStore::new(now), now);
            venue.create(&mut app);
            sessions.push(venue);
            apps.push(app);
        }
        Ok(RouteWorld {
            clock,
            client,
            client_app,
            venues: sessions,
            venue_apps: apps,
            router,
            links: (0..=venues).map(|_| None).collect(),
            ledger: Ledger::default(),
            next_id: 1,
            stats: RouteStats::default(),
            violation: None,
            steps: 0,
            _dir: dir,
        })
    }

    fn now(&self) -> Nanos {
        self.clock.now()
    }

    /// The router's sessions' numbers and message counts, as its views hold
    /// them (after a step: what its journal holds).
    pub fn router_state(&self) -> router::Snapshot {
        self.router.snapshot()
    }

    /// Orders that reached a venue so far (once per venue).
    pub fn orders_routed(&self) -> usize {
        self.ledger.orders_routed()
    }

    fn fail(&mut self, invariant: Invariant, detail: String) {
        if self.violation.is_none() {
            self.violation = Some((invariant, detail));
        }
    }

    /// A leg's end; legs past the world's are the client's (never asked:
    /// actions on them are ignored first).
    fn party(&mut self, leg: Leg, end: End) -> Party<'_> {
        let r = &mut self.router;
        match (leg.index(), end) {
            (0, End::Outer) => Party::Edge(&mut self.client, &mut self.client_app),
            (0, End::Router) => Party::Router(&mut r.up, &mut r.up_app),
            (k, End::Outer) => Party::Edge(&mut self.venues[k - 1], &mut self.venue_apps[k - 1]),
            (k, End::Router) => Party::Router(&mut r.downs[k - 1], &mut r.down_apps[k - 1]),
        }
    }

    /// Whether the world has this leg (actions on others do nothing).
    fn has(&self, leg: Leg) -> bool {
        leg.index() < self.links.len()
    }

    /// Applies one action and what follows from it; the first invariant broken.
    pub fn step(&mut self, action: RouteAction) -> Option<(Invariant, String)> {
        let ignored = match action {
            RouteAction::Deliver { leg, .. }
            | RouteAction::Connect { leg }
            | RouteAction::Drop { leg, .. } => !self.has(leg),
            _ => false,
        };
        match action {
            _ if ignored => {}
            RouteAction::Order { count, payload } => {
                for _ in 0..count {
                    self.order(payload as usize);
                }
            }
            RouteAction::Deliver { leg, end, bytes } => self.deliver(leg, end, bytes as usize),
            RouteAction::Advance { nanos } => self.advance(nanos),
            RouteAction::Connect { leg } => self.connect(leg),
            RouteAction::Drop { leg, cut } => {
                if let Some(l) = &mut self.links[leg.index()] {
                    for p in &mut l.to {
                        p.cut(cut as usize, network::End::Reset);
                    }
                }
            }
            RouteAction::Crash { input, point, tear } => self.crash(input as usize, point, tear),
        }
        self.flush_all();
        self.steps += 1;
        if self.steps % 256 == 0 {
            self.check_routed();
        }
        self.violation.take()
    }

    fn order(&mut self, payload: usize) {
        let id = self.next_id.to_string();
        self.next_id += 1;
        let now = self.now();
        let text: Vec<u8> = (0..payload).map(|k| b'a' + (k % 26) as u8).collect();
        let sent = self.client.send(now, &mut self.client_app, b"D", |m| {
            m.str(11, id.as_bytes());
            if !text.is_empty() {
                m.str(58, &text);
            }
        });
        if let Ok(seq) = sent {
            self.ledger.orders.insert(seq, id.into_bytes());
            self.stats.orders += 1;
        }
        self.events(Leg::CLIENT, End::Outer);
    }

    /// Up to `max` bytes in flight towards `end` of `leg` arrive.
    fn deliver(&mut self, leg: Leg, end: End, max: usize) {
        let now = self.now();
        let i = end.index();
        let Some(link) = &mut self.links[leg.index()] else {
            return;
        };
        if !link.open[i] {
            return;
        }
        let data = link.to[i].peek(max).to_vec();
        link.to[i].take(data.len());
        let eof = link.to[i].eof();
        if !data.is_empty() {
            self.party(leg, end).on_bytes(&data, now);
            self.after_call(leg, end);
        }
        if let Some(reason) = eof {
            if self.is_open(leg, end) {
                self.detach(leg, end);
                self.party(leg, end).on_connection_lost(now, reason);
                self.after_call(leg, end);
            }
        }
    }

    fn is_open(&self, leg: Leg, end: End) -> bool {
        self.links[leg.index()]
            .as_ref()
            .is_some_and(|l| l.open[end.index()])
    }

    /// What the engine does after a call into a session: forwards handed
    /// over (the router), events acted on.
    fn after_call(&mut self, leg: Leg, end: End) {
        if end == End::Router {
            let now = self.now();
            self.router.forwards(now);
        }
        self.events(leg, end);
    }

    fn events(&mut self, leg: Leg, end: End) {
        for ev in self.party(leg, end).events() {
            match ev {
                SessionEvent::Disconnect(_) => self.close(leg, end),
                SessionEvent::Rejected { ref_seq, reason } => self.fail(
                    Invariant::Protocol,
                    format!("{end:?} of {leg:?} rejected MsgSeqNum {ref_seq} (reason {reason}) without a fault that explains it"),
                ),
                SessionEvent::StoreFailed | SessionEvent::StoreDataLost { .. } => self.fail(
                    Invariant::AckedLost,
                    format!("{end:?} of {leg:?}: {ev:?}"),
                ),
                SessionEvent::LoggedOn => self.stats.logons += 1,
                _ => {}
            }
        }
        self.drain_deliveries();
    }

    fn drain_deliveries(&mut self) {
        let apps = std::iter::once(&mut self.client_app).chain(&mut self.venue_apps);
        let all: Vec<(Option<usize>, Vec<party::Delivery>)> = apps
            .map(|a| (a.venue, std::mem::take(&mut a.deliveries)))
            .collect();
        for (venue, ds) in all {
            for d in ds {
                if let Err(e) = self.ledger.delivered(venue, &d.id, d.seq, d.poss_dup) {
                    self.fail(Invariant::ExactlyOnce, e);
                }
            }
        }
        let router = std::iter::once(&mut self.router.up_app).chain(&mut self.router.down_apps);
        let mut refused: Vec<String> = router
            .flat_map(|a| std::mem::take(&mut a.refused))
            .collect();
        refused.extend(
            self.venue_apps
                .iter_mut()
                .flat_map(|a| std::mem::take(&mut a.refused)),
        );
        if let Some(r) = refused.into_iter().next() {
            self.fail(Invariant::Routed, r);
        }
    }

    /// The session asked to disconnect: what it has queued is written, the
    /// connection closed, `on_disconnected`.
    fn close(&mut self, leg: Leg, end: End) {
        if self.is_open(leg, end) {
            self.flush(leg, end);
            self.detach(leg, end);
        }
        let now = self.now();
        self.party(leg, end).on_disconnected(now);
        if end == End::Router {
            self.router.forwards(now);
        }
    }

    fn detach(&mut self, leg: Leg, end: End) {
        if let Some(l) = &mut self.links[leg.index()] {
            l.open[end.index()] = false;
            l.to[1 - end.index()].close();
            if !l.open[0] && !l.open[1] {
                self.links[leg.index()] = None;
            }
        }
    }

    /// The leg's initiator connects, when neither end holds a connection.
    fn connect(&mut self, leg: Leg) {
        if self.links[leg.index()].is_some()
            || ENDS
                .iter()
                .any(|&e| self.party(leg, e).state() != SessionState::Disconnected)
        {
            return;
        }
        self.links[leg.index()] = Some(Link::new());
        let now = self.now();
        // The acceptor first: the client's leg ends at the router's
        // acceptor, a venue's at the venue.
        let order = match leg {
            Leg::CLIENT => [End::Router, End::Outer],
            _ => [End::Outer, End::Router],
        };
        for end in order {
            self.party(leg, end).on_connected(now);
            self.after_call(leg, end);
        }
    }

    /// Commits, writes the turn (the router), writes what may leave.
    fn flush(&mut self, leg: Leg, end: End) {
        for _ in 0..1_000 {
            let committed = if end == End::Router {
                match self.router.end_turn() {
                    Ok(()) => true,
                    Err(e) => {
                        self.fail(Invariant::AckedLost, format!("the router's turn: {e}"));
                        false
                    }
                }
            } else {
                self.party(leg, end).commit()
            };
            if !committed {
                self.events(leg, end);
                return;
            }
            let now = self.now();
            let i = end.index();
            let Some(link) = self.links[leg.index()].as_mut().filter(|l| l.open[i]) else {
                return;
            };
            let room = link.to[1 - i].room();
            let bytes = self.party(leg, end).take_out(room);
            if let Some(link) = self.links[leg.index()].as_mut() {
                link.to[1 - i].write(&bytes, now);
            }
            let k = bytes.len();
            self.after_call(leg, end);
            if k == 0 {
                return;
            }
        }
    }

    fn flush_all(&mut self) {
        for leg in legs(self.links.len()) {
            for end in ENDS {
                self.flush(leg, end);
            }
        }
    }

    /// Time passes by `by`, the network delivering before each timer.
    fn advance(&mut self, by: Nanos) {
        let target = self.now().saturating_add(by);
        for _ in 0..10_000 {
            let next = legs(self.links.len())
                .flat_map(|l| ENDS.map(|e| (l, e)))
                .collect::<Vec<_>>()
                .into_iter()
                .filter_map(|(l, e)| self.party(l, e).next_deadline())
                .min();
            let Some(next) = next.filter(|&d| d <= target) else {
                break;
            };
            self.clock.advance_to(next);
            self.deliver_all();
            let now = self.now();
            for leg in legs(self.links.len()) {
                for end in ENDS {
                    self.party(leg, end).on_timer_if_due(now);
                    self.after_call(leg, end);
                }
            }
            self.flush_all();
            if self.violation.is_some() {
                return;
            }
        }
        self.clock.advance_to(target);
    }

    fn deliver_all(&mut self) {
        for leg in legs(self.links.len()) {
            for end in ENDS {
                self.deliver(leg, end, usize::MAX);
            }
        }
    }

    /// The router reads up to `input` bytes on each leg (unless idle),
    /// dies at `point` and restarts on its journal.
    fn crash(&mut self, input: usize, point: CrashPoint, tear: actions::JournalTear) {
        let now = self.now();
        if point >= CrashPoint::AfterInput {
            for leg in legs(self.links.len()) {
                let Some(link) = self.links[leg.index()].as_mut().filter(|l| l.open[1]) else {
                    continue;
                };
                let data = link.to[1].peek(input).to_vec();
                link.to[1].take(data.len());
                self.party(leg, End::Router).on_bytes(&data, now);
                self.router.forwards(now);
                // The process dies before acting on its events.
                let _ = self.party(leg, End::Router).events();
            }
        }
        self.stats.crashes[point as usize] += 1;
        match self.router.crash(point, tear, now) {
            Err(e) => self.fail(
                Invariant::AckedLost,
                format!("the router's journal after a crash ({point:?}, {tear:?}): {e}"),
            ),
            Ok(c) => {
                if point == CrashPoint::InWrite {
                    if c.turn_kept {
                        self.stats.turns_kept += 1;
                    } else {
                        self.stats.turns_torn += 1;
                    }
                }
                if c.got != c.expected {
                    self.fail(
                        Invariant::AckedLost,
                        format!(
                            "the router's journal came back as {:?}, expected {:?} (crash {point:?}, {tear:?})",
                            c.got, c.expected
                        ),
                    );
                }
            }
        }
        // Its connections go: what it wrote still arrives, then EOF.
        for leg in legs(self.links.len()) {
            if let Some(l) = &mut self.links[leg.index()] {
                l.open[1] = false;
                l.to[1].cut(0, network::End::Closed);
                l.to[0].close();
                if !l.open[0] {
                    self.links[leg.index()] = None;
                }
            }
        }
        for leg in legs(self.links.len()) {
            self.events(leg, End::Router);
        }
        self.check_routed();
    }

    /// [`oracle::routed`] both ways, on the router's committed state.
    fn check_routed(&mut self) {
        let r = (|| -> Result<(), String> {
            let orders: Vec<(u64, Vec<u8>)> = self
                .ledger
                .orders
                .iter()
                .map(|(s, id)| (*s, id.clone()))
                .collect();
            let committed = self.router.up.next_target_seq();
            let reports_forwarded = oracle::stored(self.router.up.store_mut(), b"8")?;
            for k in 0..self.venues.len() {
                let forwarded = oracle::stored(self.router.downs[k].store_mut(), b"D")?;
                let what = format!("order to venue {}", k + 1);
                oracle::routed(&what, &orders, committed, &forwarded)?;
                let reports = oracle::stored(self.venues[k].store_mut(), b"8")?;
                let prefix = format!("V{}-", k + 1);
                let from_k: Vec<(u64, Vec<u8>)> = reports_forwarded
                    .iter()
                    .filter(|(_, id)| id.starts_with(prefix.as_bytes()))
                    .cloned()
                    .collect();
                let committed = self.router.downs[k].next_target_seq();
                oracle::routed("report", &reports, committed, &from_k)?;
            }
            Ok(())
        })();
        match r {
            Ok(()) => self.stats.routed_checks += 1,
            Err(e) => self.fail(Invariant::Routed, e),
        }
    }

    fn converged(&mut self) -> bool {
        let all_on = legs(self.links.len()).all(|l| {
            ENDS.iter().all(|&e| {
                self.party(l, e).state() == SessionState::LoggedOn
                    && self.party(l, e).outbound_len() == 0
            })
        });
        let quiet = self.links.iter().flatten().all(Link::quiet);
        let in_step = |a: &Session<MemoryStore>, b: &Session<peregrine_store::JournalStore>| {
            a.next_sender_seq() == b.next_target_seq() && b.next_sender_seq() == a.next_target_seq()
        };
        all_on
            && quiet
            && in_step(&self.client, &self.router.up)
            && self
                .venues
                .iter()
                .zip(&self.router.downs)
                .all(|(v, d)| in_step(v, d))
    }

    /// Faults stop: connect, deliver, let time pass until the four sessions
    /// are in step; then every order must have reached every venue and every
    /// report the client, each routed once.
    pub fn settle(&mut self, max_secs: u32) -> Option<(Invariant, String)> {
        for _ in 0..=max_secs {
            for _ in 0..100 {
                for leg in legs(self.links.len()) {
                    self.connect(leg);
                }
                self.deliver_all();
                self.flush_all();
                if let Some(v) = self.violation.take() {
                    return Some(v);
                }
                if self.links.iter().flatten().all(Link::quiet) {
                    break;
                }
            }
            if self.converged() {
                break;
            }
            self.advance(SECOND);
            if let Some(v) = self.violation.take() {
                return Some(v);
            }
        }
        if !self.converged() {
            let n =
                |s: &Session<MemoryStore>| (s.state(), s.next_sender_seq(), s.next_target_seq());
            let r = |s: &Session<peregrine_store::JournalStore>| {
                (s.state(), s.next_sender_seq(), s.next_target_seq())
            };
            return Some((
                Invariant::Converge,
                format!(
                    "after {max_secs} s: client {:?}, router {:?} and {:?}, venues {:?} (state, next out, next in)",
                    n(&self.client),
                    r(&self.router.up),
                    self.router.downs.iter().map(r).collect::<Vec<_>>(),
                    self.venues.iter().map(n).collect::<Vec<_>>(),
                ),
            ));
        }
        self.check_routed();
        if let Some(v) = self.violation.take() {
            return Some(v);
        }
        let mut reports = Vec::new();
        for v in &mut self.venues {
            match oracle::stored(v.store_mut(), b"8") {
                Ok(r) => reports.extend(r),
                Err(e) => return Some((Invariant::AckedLost, e)),
            }
        }
        // all_delivered passed: each order reached every venue.
        self.stats.routed = (self.ledger.orders_routed() / self.venues.len()) as u64;
        self.stats.poss_dups = self.ledger.poss_dups;
        self.ledger
            .all_delivered(self.venues.len(), &reports)
            .err()
            .map(|e| (Invariant::Delivered, e))
    }
}

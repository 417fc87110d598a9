//! The router node: real sessions of one simulated engine — `GW->CLIENT`
//! (acceptor) and `GW->VENUE1`, `GW->VENUE2`… (initiators) — whose stores are
//! views of one [`EngineJournal`] in deferred mode, and an application that
//! forwards each order from the client to every venue (one transaction
//! spanning all of them) and reports back ([`Outbox::send_to`]), as the
//! engine does: each forward handed to its
//! destination right after the call that made it, every session committed,
//! the journal written once per turn ([`EngineJournal::write_turn`]) before
//! any byte reaches a connection.
//!
//! A crash drops the process at a [`CrashPoint`], tears what the journal had
//! not made durable ([`JournalTear`]) and reopens it with
//! [`OnDamage::Refuse`]; what came back is checked against the numbers the
//! last durable turn left ([`Snapshot`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use peregrine_codec::MessageView;
use peregrine_session::metrics::SessionCounters;
use peregrine_session::{
    AppReject, Application, Forward, Nanos, Outbox, PeerStatus, Peers, Role, Session, SessionClock,
    SessionConfig, SessionId, SessionRef, SessionState, To,
};
use peregrine_store::{
    EngineJournal, FsyncPolicy, JournalConfig, JournalStore, MessageStore, OnDamage, StoreError,
};

use super::actions::{CrashPoint, JournalTear};

/// The router's session towards the client.
pub const UP: &str = "FIX.4.4:GW->CLIENT";

/// Venue `k`'s CompID (`k` from 1).
pub fn venue(k: usize) -> String {
    format!("VENUE{k}")
}

/// A session's configuration in the routing world: the driver's clock, no
/// resets, no latency check (a message may wait in flight for minutes).
pub fn config(sender: &str, target: &str, role: Role) -> SessionConfig {
    let mut c = SessionConfig::new(SessionId::new("FIX.4.4", sender, target), role);
    c.clock = SessionClock::Driver;
    c.check_latency = false;
    c
}

/// The router's sessions, for their callbacks (the client's first, then
/// the venues'): all queue while logged out (a forward to a venue that is
/// down is stored and resent after its Logon).
#[derive(Debug)]
struct RouterPeers {
    names: Vec<String>,
    counters: Vec<Arc<SessionCounters>>,
}

impl Peers for RouterPeers {
    fn find(&self, to: &To<'_>) -> Option<PeerStatus> {
        let i = match to {
            To::Id(id) => self.names.iter().position(|n| *n == id.to_string())?,
            To::Ref(r) if r.generation() == 1 => r.index() as usize,
            To::Ref(_) => return None,
        };
        let c = self.counters.get(i)?;
        Some(PeerStatus {
            reference: SessionRef::new(i as u32, 1),
            state: c.state(),
            logged_on: c.state() == SessionState::LoggedOn,
            queue_while_logged_out: true,
            next_sender_seq: c.next_sender_seq(),
            next_target_seq: c.next_target_seq(),
        })
    }
}

/// The router's application on one session: an order (from the client)
/// goes on to every venue, an execution report (from a venue) to the client.
#[derive(Debug)]
pub struct RouterApp {
    to: Vec<SessionId>,
    /// Forwards the callback could not send (each a violation).
    pub refused: Vec<String>,
}

impl Application for RouterApp {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let msg_type = msg.msg_type();
        if msg_type != b"D" && msg_type != b"8" {
            return Ok(());
        }
        let id = msg.get(11).unwrap_or(b"?");
        let text = msg.get(58);
        for to in &self.to {
            let sent = out.send_to(to, msg_type, |m| {
                m.str(11, id);
                if let Some(t) = text {
                    m.str(58, t);
                }
            });
            if let Err(e) = sent {
                self.refused.push(format!(
                    "forward of {} {} to {to} refused: {e}",
                    String::from_utf8_lossy(msg_type),
                    String::from_utf8_lossy(id)
                ));
            }
        }
        Ok(())
    }
}

/// What recovery must give back: each session's numbers and how many
/// messages it holds (admin messages included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// `GW->CLIENT`: next sender, next target, messages.
    pub up: (u64, u64, usize),
    /// `GW->VENUEk`, by `k` - 1: next sender, next target, messages.
    pub downs: Vec<(u64, u64, usize)>,
}

/// The router node.
pub struct Router {
    dir: PathBuf,
    journal: EngineJournal,
    /// `GW->CLIENT`.
    pub up: Session<JournalStore>,
    /// Its application.
    pub up_app: RouterApp,
    /// `GW->VENUEk`, by `k` - 1.
    pub downs: Vec<Session<JournalStore>>,
    /// Their applications.
    pub down_apps: Vec<RouterApp>,
    /// What the last turn written left durable.
    durable: Snapshot,
}

fn journal_config() -> JournalConfig {
    JournalConfig {
        fsync: FsyncPolicy::EveryCommit,
        on_damage: OnDamage::Refuse,
        // Small: a turn with a few orders is written ahead of its commit.
        write_buffer_capacity: 4096,
        ..JournalConfig::default()
    }
}

impl Router {
    /// Opens (or makes) the router's journal in `dir` and its sessions on
    /// it: the client's and `venues` venues'.
    ///
    /// # Errors
    ///
    /// The journal refused to open (damage) or could not be read.
    pub fn open(dir: &Path, venues: usize, now: Nanos) -> Result<Router, StoreError> {
        let journal = EngineJournal::open(dir, journal_config(), now)?;
        journal.set_deferred(true);
        let up_store = journal.session(UP, now)?;
        let mut up = Session::new(config("GW", "CLIENT", Role::Acceptor), up_store, now);
        let mut downs = Vec::with_capacity(venues);
        for k in 1..=venues {
            let cfg = config("GW", &venue(k), Role::Initiator);
            let store = journal.session(&cfg.id.to_string(), now)?;
            downs.push(Session::new(cfg, store, now));
        }
        let all = std::iter::once(&up).chain(&downs);
        let peers: Arc<dyn Peers> = Arc::new(RouterPeers {
            names: all.clone().map(|s| s.id().to_string()).collect(),
            counters: all.map(|s| s.counters().clone()).collect(),
        });
        up.set_peers(Some(peers.clone()));
        let mut up_app = RouterApp {
            to: downs.iter().map(|d| d.id().clone()).collect(),
            refused: Vec::new(),
        };
        up.create(&mut up_app);
        let mut down_apps = Vec::with_capacity(venues);
        for d in &mut downs {
            d.set_peers(Some(peers.clone()));
            let mut app = RouterApp {
                to: vec![up.id().clone()],
                refused: Vec::new(),
            };
            d.create(&mut app);
            down_apps.push(app);
        }
        // A new journal's sessions are named in its first turn.
        journal.write_turn()?;
        let mut r = Router {
            dir: dir.to_path_buf(),
            journal,
            up,
            up_app,
            downs,
            down_apps,
            durable: Snapshot {
                up: (1, 1, 0),
                downs: Vec::new(),
            },
        };
        r.durable = r.snapshot();
        Ok(r)
    }

    /// Each session's numbers and message count, as its view holds them.
    pub fn snapshot(&self) -> Snapshot {
        let of = |s: &Session<JournalStore>| {
            let st = s.store();
            (
                st.next_sender_seq(),
                st.next_target_seq(),
                st.message_count(),
            )
        };
        Snapshot {
            up: of(&self.up),
            downs: self.downs.iter().map(of).collect(),
        }
    }

    /// Hands what either session's callbacks sent on the other to it, as
    /// the engine does after every call into a session.
    pub fn forwards(&mut self, now: Nanos) {
        let (up, up_app) = (&mut self.up, &mut self.up_app);
        let (downs, down_apps) = (&mut self.downs, &mut self.down_apps);
        if up.has_forwards() {
            // To the venue the reference names (its index - 1).
            up.take_forwards(&mut |f| {
                let k = f.to.index() as usize - 1;
                hand_over(&mut downs[k], &mut down_apps[k], f, now);
            });
        }
        for d in downs.iter_mut() {
            if d.has_forwards() {
                d.take_forwards(&mut |f| hand_over(up, up_app, f, now));
            }
        }
    }

    /// Commits both sessions (staged in the journal).
    ///
    /// # Errors
    ///
    /// A session's store failed (the session raised `StoreFailed`).
    pub fn commit(&mut self) -> Result<(), StoreError> {
        let mut r = self.up.commit();
        for d in &mut self.downs {
            r = r.and(d.commit());
        }
        r
    }

    /// Commits both sessions and writes the turn: afterwards what they
    /// queued may leave.
    ///
    /// # Errors
    ///
    /// A store or the journal's write failed.
    pub fn end_turn(&mut self) -> Result<(), StoreError> {
        self.commit()?;
        self.journal.write_turn()?;
        self.durable = self.snapshot();
        Ok(())
    }

    /// The process dies at `point` (its input for the turn handled by the
    /// caller) and restarts on what the journal kept after `tear`. Returns
    /// what it was expected to keep, whether the turn in flight was written
    /// whole, and what came back.
    ///
    /// # Errors
    ///
    /// The journal did not reopen, or the tear could not be made.
    pub fn crash(
        &mut self,
        point: CrashPoint,
        tear: JournalTear,
        now: Nanos,
    ) -> Result<Crashed, String> {
        let before = self.durable.clone();
        if point >= CrashPoint::Staged {
            self.commit().map_err(|e| format!("commit: {e}"))?;
        }
        // Everything before the last commit record is durable (fsynced);
        // what follows it (records written ahead, or the turn being
        // written) is what the tear may damage.
        let durable_end = self.journal.position().offset;
        let mut after = before.clone();
        if point >= CrashPoint::InWrite {
            self.journal
                .write_turn()
                .map_err(|e| format!("write_turn: {e}"))?;
            after = self.snapshot();
        }
        let path = self.journal.path();
        let written_end = self.journal.position().offset;
        let (from, whole) = match point {
            // The turn's write returned: only later bytes may be torn (none).
            CrashPoint::Written => (written_end, true),
            _ => (durable_end, false),
        };
        let intact =
            tear_journal(&path, from, written_end, tear).map_err(|e| format!("tear: {e}"))?;
        let expected = match point {
            CrashPoint::Written => after,
            CrashPoint::InWrite if intact => after,
            _ => before,
        };
        let venues = self.downs.len();
        let fresh = Router::open(&self.dir, venues, now).map_err(|e| format!("reopen: {e}"))?;
        // The dead process's views are dropped only now, and a view's drop
        // stages its numbers (written ahead when the buffer is full): bytes
        // a killed process never writes. They land past what the new
        // journal recovered, which has written nothing yet: cut them.
        *self = fresh;
        let end = self.journal.position().offset;
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_len(end))
            .map_err(|e| format!("cut what the dead process wrote: {e}"))?;
        Ok(Crashed {
            expected,
            got: self.durable.clone(),
            turn_kept: whole || (point == CrashPoint::InWrite && intact),
        })
    }
}

/// Hands a forward to its destination `to`, through `to`'s `to_app`.
fn hand_over(to: &mut Session<JournalStore>, app: &mut RouterApp, f: Forward<'_>, now: Nanos) {
    let sent = to.send_with_header(now, app, f.msg_type, f.header, |m| {
        m.raw(f.body);
    });
    if let Err(e) = sent {
        app.refused
            .push(format!("a forward to {} was not sent: {e}", to.id()));
    }
}

/// What a crash left.
#[derive(Clone, Debug)]
pub struct Crashed {
    /// What recovery had to give back.
    pub expected: Snapshot,
    /// What it gave.
    pub got: Snapshot,
    /// Whether the turn in flight survived whole.
    pub turn_kept: bool,
}

/// Damages the journal from byte `from` on, as a crash in the middle of a
/// write leaves it: a prefix of it kept and garbage after, or its pages
/// written out of order (a span inside it wrong, the rest there). Returns
/// whether the bytes from `from` to `until` survive unchanged. Only the
/// bytes from `from` on are read and written (the journal is long).
fn tear_journal(path: &Path, from: u64, until: u64, tear: JournalTear) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom, Write};
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    let len = f.metadata()?.len();
    let from = from.min(len);
    let mut original = Vec::new();
    f.seek(SeekFrom::Start(from))?;
    f.read_to_end(&mut original)?;
    let mut x = u32::from(tear.seed) | 0x300;
    let mut next = || {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (x >> 16) as u8
    };
    let mut bytes = original.clone();
    if tear.hole > 0 && !original.is_empty() {
        let at = usize::from(tear.keep) * original.len() / 256;
        let end = (at + usize::from(tear.hole)).min(original.len());
        for b in &mut bytes[at..end] {
            *b ^= next() | 1;
        }
    } else {
        bytes.truncate(usize::from(tear.keep) * original.len() / 255);
        for _ in 0..tear.garbage {
            bytes.push(next());
        }
    }
    f.set_len(from)?;
    f.seek(SeekFrom::Start(from))?;
    f.write_all(&bytes)?;
    let n = (until.saturating_sub(from) as usize).min(original.len());
    Ok(bytes.len() >= n && bytes[..n] == original[..n])
}

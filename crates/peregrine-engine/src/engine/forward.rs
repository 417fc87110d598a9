//! Forwarding between sessions: what a callback sends on another session of
//! the engine (`Outbox::send_to`) is handed to that session right after the
//! call into the sending session returns, in the same turn, before anything
//! else runs; with an engine journal it then commits in the same transaction
//! as the input that caused it (journal.rs).
//!
//! The callbacks see the engine's sessions through [`EnginePeers`], a table
//! the engine keeps as it adds and removes sessions: their references, names,
//! `QueueWhileLoggedOut`, and their published state and numbers (the
//! session's counters, as of its last commit).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, RwLock};

use peregrine_session::metrics::SessionCounters;
use peregrine_session::{PeerStatus, Peers, SendRefusal, SessionRef, SessionState, To};
use peregrine_store::{StoreError, StoreReader};

use crate::driver::{Nanos, SessionDriver};

use super::ids::SessionKey;
use super::Engine;

/// One session as the callbacks see it.
#[derive(Debug)]
struct Peer {
    reference: SessionRef,
    counters: Option<Arc<SessionCounters>>,
    queue_while_logged_out: bool,
}

#[derive(Debug, Default)]
struct Table {
    /// The sessions' stores, readable from any callback (the builder's
    /// sessions: their stores are `SharedStore`s).
    stores: HashMap<SessionRef, StoreReader>,
    /// By the reference's index.
    by_index: Vec<Option<Peer>>,
    /// By the session's full name (`FIX.4.4:GW->VENUE[:qualifier]`).
    by_name: HashMap<String, SessionRef>,
}

/// The engine's sessions, for its callbacks ([`Peers`]). Read from the
/// reactor thread only (inside callbacks); written when a session is added
/// or removed. The lock is never contended.
#[derive(Debug, Default)]
pub(crate) struct EnginePeers {
    table: RwLock<Table>,
    /// The name of a session looked up by its [`SessionId`](peregrine_session::SessionId),
    /// written here: reused, so that a lookup allocates nothing once warm (a router
    /// addresses its destinations by identity on every message).
    name: Mutex<String>,
}

impl EnginePeers {
    pub(super) fn add(
        &self,
        reference: SessionRef,
        name: &str,
        counters: Option<Arc<SessionCounters>>,
        queue_while_logged_out: bool,
    ) {
        let mut t = self.table.write().unwrap_or_else(|e| e.into_inner());
        let i = reference.index() as usize;
        if t.by_index.len() <= i {
            t.by_index.resize_with(i + 1, || None);
        }
        t.by_index[i] = Some(Peer {
            reference,
            counters,
            queue_while_logged_out,
        });
        t.by_name.insert(name.to_string(), reference);
    }

    /// Session `reference`'s store is no longer read (it was not added).
    pub(crate) fn remove_store(&self, reference: SessionRef) {
        let mut t = self.table.write().unwrap_or_else(|e| e.into_inner());
        t.stores.remove(&reference);
    }

    /// Session `reference`'s store can be read through `reader`.
    pub(crate) fn add_store(&self, reference: SessionRef, reader: StoreReader) {
        let mut t = self.table.write().unwrap_or_else(|e| e.into_inner());
        t.stores.insert(reference, reader);
    }

    pub(super) fn remove(&self, reference: SessionRef, name: &str) {
        let mut t = self.table.write().unwrap_or_else(|e| e.into_inner());
        t.stores.remove(&reference);
        if let Some(slot) = t.by_index.get_mut(reference.index() as usize) {
            if slot.as_ref().is_some_and(|p| p.reference == reference) {
                *slot = None;
            }
        }
        if t.by_name.get(name) == Some(&reference) {
            t.by_name.remove(name);
        }
    }
}

impl Peers for EnginePeers {
    fn find(&self, to: &To<'_>) -> Option<PeerStatus> {
        let t = self.table.read().unwrap_or_else(|e| e.into_inner());
        let reference = match to {
            To::Ref(r) => *r,
            To::Id(id) => {
                let mut name = self.name.lock().unwrap_or_else(|e| e.into_inner());
                name.clear();
                let _ = write!(name, "{id}");
                *t.by_name.get(name.as_str())?
            }
        };
        let p = t.by_index.get(reference.index() as usize)?.as_ref()?;
        if p.reference != reference {
            return None;
        }
        let c = p.counters.as_deref();
        Some(PeerStatus {
            reference,
            state: c.map_or(SessionState::Disconnected, SessionCounters::state),
            logged_on: c.is_some_and(|c| c.state() == SessionState::LoggedOn),
            queue_while_logged_out: p.queue_while_logged_out,
            next_sender_seq: c.map_or(1, SessionCounters::next_sender_seq),
            next_target_seq: c.map_or(1, SessionCounters::next_target_seq),
        })
    }

    fn read_stored(
        &self,
        to: &To<'_>,
        begin: u64,
        end: u64,
        visitor: &mut dyn FnMut(u64, &[u8]),
    ) -> Option<Result<(), StoreError>> {
        let reference = self.find(to)?.reference;
        let reader = {
            let t = self.table.read().unwrap_or_else(|e| e.into_inner());
            t.stores.get(&reference)?.clone()
        };
        Some(reader.for_each_in_range(begin, end, visitor))
    }
}

/// A forward waiting to be handed over: where its parts are in the engine's
/// scratch buffer.
#[derive(Debug)]
pub(super) struct Pending {
    to: SessionRef,
    msg_type: std::ops::Range<usize>,
    /// Tags and their values' places in the buffer.
    header: std::ops::Range<usize>,
    body: std::ops::Range<usize>,
}

/// The engine's scratch space for forwards, reused (no allocation once warm).
#[derive(Debug, Default)]
pub(super) struct Forwards {
    bytes: Vec<u8>,
    header: Vec<(u32, std::ops::Range<usize>)>,
    pending: Vec<Pending>,
}

impl<D: SessionDriver> Engine<D> {
    /// Hands what the session's callbacks sent on other sessions to them:
    /// each through its destination's `to_app`, stored with its MsgSeqNum
    /// and queued (or stored for after its Logon), and that session commits
    /// and writes with the turn. A destination gone since the callback, or
    /// one that refuses the message, counts it in its `send_failures`.
    pub(super) fn deliver_forwards(&mut self, from: SessionKey, now: Nanos) {
        if !self.sessions[from].driver.has_forwards() {
            return;
        }
        let mut f = std::mem::take(&mut self.forwards);
        f.bytes.clear();
        f.header.clear();
        f.pending.clear();
        self.sessions[from].driver.take_forwards(&mut |fw| {
            let at = f.bytes.len();
            f.bytes.extend_from_slice(fw.msg_type);
            let msg_type = at..f.bytes.len();
            let first = f.header.len();
            for &(tag, value) in fw.header {
                let at = f.bytes.len();
                f.bytes.extend_from_slice(value);
                f.header.push((tag, at..f.bytes.len()));
            }
            let at = f.bytes.len();
            f.bytes.extend_from_slice(fw.body);
            f.pending.push(Pending {
                to: fw.to,
                msg_type,
                header: first..f.header.len(),
                body: at..f.bytes.len(),
            });
        });
        for p in &f.pending {
            let Some(to) = self.sessions.resolve(p.to) else {
                self.count_send_to_removed_session(now);
                continue;
            };
            let mut header = [(0u32, &[][..]); peregrine_session::Outbox::MAX_HEADER_FIELDS];
            for (slot, (tag, value)) in header.iter_mut().zip(&f.header[p.header.clone()]) {
                *slot = (*tag, &f.bytes[value.clone()]);
            }
            let header = &header[..p.header.len()];
            let sent = self.sessions[to].driver.send_forward(
                now,
                &f.bytes[p.msg_type.clone()],
                header,
                &f.bytes[p.body.clone()],
            );
            if let Err(e) = sent {
                // The sending callback was told it was taken: its application
                // hears it was not (a router answers its client).
                self.sessions[from].driver.forward_refused(
                    p.to,
                    &f.bytes[p.msg_type.clone()],
                    SendRefusal::of(&e),
                );
                let s = &mut self.sessions[to];
                s.send_failures += 1;
                let from_name = self.sessions[from].name.clone();
                self.sessions[to].peer_event(
                    &format!("a message from session {from_name} was not sent: {e}"),
                    now,
                );
            }
            self.touch(to);
        }
        self.forwards = f;
        if !self.batches() {
            // Without a journal each destination commits and writes now.
            self.service_touched(now);
        }
    }
}

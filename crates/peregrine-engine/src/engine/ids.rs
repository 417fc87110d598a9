//! Typed keys for what the engine holds (a session's key cannot index the
//! connections), and the collections they index.

use std::ops::{Index, IndexMut};

use mio::Token;
use slab::Slab;

use super::connection::Connection;
use super::session::HostedSession;
use crate::sender::SessionRef;

/// The waker's readiness token.
pub(super) const WAKER: Token = Token(0);
/// Listener tokens start here.
const LISTENER_BASE: usize = 1;
/// Connection tokens start here (so many listeners fit below).
const CONNECTION_BASE: usize = 1 << 16;

/// A session the engine hosts (its position in [`Sessions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct SessionKey(pub(super) usize);

/// A listener (its position in the engine's listeners).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct ListenerKey(pub(super) usize);

/// A connection (its key in [`Connections`]; reused once closed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct ConnectionKey(usize);

/// What a readiness token names.
pub(super) enum Readiness {
    Waker,
    Listener(ListenerKey),
    Connection(ConnectionKey),
}

impl Readiness {
    pub(super) fn of(token: Token) -> Readiness {
        match token.0 {
            0 => Readiness::Waker,
            t if t < CONNECTION_BASE => Readiness::Listener(ListenerKey(t - LISTENER_BASE)),
            t => Readiness::Connection(ConnectionKey(t - CONNECTION_BASE)),
        }
    }
}

impl ListenerKey {
    pub(super) fn token(self) -> Token {
        Token(LISTENER_BASE + self.0)
    }
}

impl ConnectionKey {
    pub(super) fn token(self) -> Token {
        Token(CONNECTION_BASE + self.0)
    }
}

/// The sessions, in the order they were added (a removed session's key is
/// reused; its generation tells a stale [`SessionRef`] from the new session).
pub(super) struct Sessions<D> {
    slab: Slab<HostedSession<D>>,
    generation: u32,
}

impl<D> Default for Sessions<D> {
    fn default() -> Self {
        Sessions {
            slab: Slab::new(),
            generation: 0,
        }
    }
}

impl<D> Sessions<D> {
    /// The [`SessionRef`] the next [`push`](Self::push) gives its session, so
    /// that the session's application can be told it before the session
    /// exists. Each call takes a new generation: a reference handed out for a
    /// session that then failed to be added never names a later one.
    pub(super) fn reserve(&mut self) -> SessionRef {
        self.generation = self.generation.wrapping_add(1);
        SessionRef::new(self.slab.vacant_key() as u32, self.generation)
    }

    /// Adds `session` as `reference`, the last [`reserve`](Self::reserve)'s
    /// answer (no session was pushed since).
    pub(super) fn push(
        &mut self,
        mut session: HostedSession<D>,
        reference: SessionRef,
    ) -> SessionKey {
        debug_assert_eq!(reference.index() as usize, self.slab.vacant_key());
        debug_assert_eq!(reference.generation(), self.generation);
        session.generation = reference.generation();
        SessionKey(self.slab.insert(session))
    }

    pub(super) fn remove(&mut self, key: SessionKey) -> Option<HostedSession<D>> {
        self.slab.try_remove(key.0)
    }

    /// The session a [`SessionRef`] names, if it is still there.
    pub(super) fn resolve(&self, r: SessionRef) -> Option<SessionKey> {
        let key = r.index() as usize;
        match self.slab.get(key) {
            Some(s) if s.generation == r.generation() => Some(SessionKey(key)),
            _ => None,
        }
    }

    /// A [`SessionRef`] for `key`.
    pub(super) fn reference(&self, key: SessionKey) -> SessionRef {
        SessionRef::new(key.0 as u32, self.slab[key.0].generation)
    }

    /// Every key that may hold a session, not borrowing the sessions (for
    /// loops that change them as they go: skip the keys
    /// [`contains`](Self::contains) says are vacant).
    pub(super) fn key_space(&self) -> impl Iterator<Item = SessionKey> {
        (0..self.slab.capacity()).map(SessionKey)
    }

    pub(super) fn contains(&self, key: SessionKey) -> bool {
        self.slab.contains(key.0)
    }

    pub(super) fn keys(&self) -> impl Iterator<Item = SessionKey> + '_ {
        self.slab.iter().map(|(k, _)| SessionKey(k))
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &HostedSession<D>> {
        self.slab.iter().map(|(_, s)| s)
    }

    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = &mut HostedSession<D>> {
        self.slab.iter_mut().map(|(_, s)| s)
    }

    pub(super) fn len(&self) -> usize {
        self.slab.len()
    }
}

impl<D> Index<SessionKey> for Sessions<D> {
    type Output = HostedSession<D>;
    fn index(&self, id: SessionKey) -> &HostedSession<D> {
        &self.slab[id.0]
    }
}

impl<D> IndexMut<SessionKey> for Sessions<D> {
    fn index_mut(&mut self, id: SessionKey) -> &mut HostedSession<D> {
        &mut self.slab[id.0]
    }
}

/// The open connections.
#[derive(Default)]
pub(super) struct Connections(Slab<Connection>);

impl Connections {
    pub(super) fn insert(&mut self, connection: Connection) -> ConnectionKey {
        ConnectionKey(self.0.insert(connection))
    }

    pub(super) fn remove(&mut self, id: ConnectionKey) -> Option<Connection> {
        self.0.try_remove(id.0)
    }

    pub(super) fn get(&self, id: ConnectionKey) -> Option<&Connection> {
        self.0.get(id.0)
    }

    pub(super) fn get_mut(&mut self, id: ConnectionKey) -> Option<&mut Connection> {
        self.0.get_mut(id.0)
    }

    pub(super) fn contains(&self, id: ConnectionKey) -> bool {
        self.0.contains(id.0)
    }

    /// Every connection's key, collected (it allocates: for shutdown, not
    /// for every turn).
    pub(super) fn keys(&self) -> Vec<ConnectionKey> {
        self.0.iter().map(|(k, _)| ConnectionKey(k)).collect()
    }

    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (ConnectionKey, &Connection)> {
        self.0.iter().map(|(k, c)| (ConnectionKey(k), c))
    }
}

//! The first message of an acceptor connection picks its session.

use crate::driver::{now_nanos, Nanos, SessionDriver};
use crate::log::Escaped;

use super::connection::tune;
use super::ids::{ConnectionKey, SessionKey};
use super::Engine;

impl<D: SessionDriver> Engine<D> {
    /// A new acceptor connection's first message picks its session, which then
    /// has the bytes (the caller services it). The session, once routed.
    pub(super) fn route(&mut self, key: ConnectionKey, now: Nanos) -> Option<SessionKey> {
        let connection = self.connections.get_mut(key).expect("live");
        let named = match peregrine_session::peek_session_id(&connection.pending) {
            None => return None,
            Some(Err(e)) => {
                let why = format!("first message unusable ({e:?})");
                self.close_connection(key, &why, now);
                return None;
            }
            Some(Ok(named)) => named,
        };
        let route = (
            named.begin_string,
            named.sender_comp_id,
            named.target_comp_id,
        );
        let listener = connection.listener;
        let found = self.routes.get(&route).and_then(|candidates| {
            candidates
                .iter()
                .copied()
                .find(|&id| self.sessions[id].listener == listener)
        });
        let (found, now) = match (found, listener) {
            // Making a session opens its store and logs, and stamps its creation
            // lines with the clock: read it again, so the lines that follow
            // ("accepted connection", …) do not go back in time.
            (None, Some(l)) => match self.session_from_template(l, &route.0, &route.1, &route.2) {
                Ok(Some(id)) => (Some(id), now.max(now_nanos())),
                Ok(None) => (None, now),
                Err(why) => {
                    tracing::warn!("{why}");
                    self.close_connection(key, &why, now);
                    return None;
                }
            },
            (found, _) => (found, now),
        };
        let Some(id) = found else {
            // The CompIDs come from the wire: escaped, so they cannot forge a line.
            let why = format!(
                "first message names no configured session ({}:{}->{})",
                Escaped(route.0.as_bytes()),
                Escaped(route.1.as_bytes()),
                Escaped(route.2.as_bytes())
            );
            self.close_connection(key, &why, now);
            return None;
        };
        if self.sessions[id].connection.is_some() {
            let why = format!("session {} is already connected", self.sessions[id].name);
            self.close_connection(key, &why, now);
            return None;
        }
        if !self.sessions[id].enabled {
            let why = format!(
                "session {} is logged out by the operator",
                self.sessions[id].name
            );
            self.close_connection(key, &why, now);
            return None;
        }
        if self.stopping {
            self.close_connection(key, "shutting down", now);
            return None;
        }
        let connection = self.connections.get_mut(key).expect("live");
        connection.session = Some(id);
        let pending = std::mem::take(&mut connection.pending);
        let peer = connection.peer;
        tune(&connection.io.stream, &self.sessions[id].settings);
        let s = &mut self.sessions[id];
        s.connection = Some(key);
        s.set_slow(false);
        s.new_connection(now);
        s.event(&format!("accepted connection from {peer:?}"), now);
        s.driver.on_connected(now);
        if let Some(l) = &mut s.log {
            l.incoming(&pending, now);
        }
        s.metrics.received(pending.len());
        s.driver.on_bytes(&pending, now);
        self.deliver_forwards(id, now);
        Some(id)
    }
}

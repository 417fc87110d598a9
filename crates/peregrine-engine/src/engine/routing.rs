//! The first message of an acceptor connection picks its session.

use crate::driver::{Nanos, SessionDriver};
use crate::log::Escaped;

use super::*;

impl<D: SessionDriver> Engine<D> {
    /// A new acceptor connection's first message picks its session, which then
    /// has the bytes (the caller services it). The session, once routed.
    pub(super) fn route(&mut self, c: usize, now: Nanos) -> Option<usize> {
        let conn = self.conns[c].as_mut().expect("live");
        let id = match peregrine_session::peek_session_id(&conn.pending) {
            None => return None,
            Some(Err(e)) => {
                let why = format!("first message unusable ({e:?})");
                self.close_conn(c, &why, now);
                return None;
            }
            Some(Ok(id)) => id,
        };
        let key = (id.begin_string, id.sender_comp_id, id.target_comp_id);
        let listener = conn.listener;
        let candidates = self.routes.get(&key).cloned().unwrap_or_default();
        let found = candidates
            .into_iter()
            .find(|&i| self.slots[i].listener == listener);
        let Some(i) = found else {
            // The CompIDs come from the wire: escaped, so they cannot forge a line.
            let why = format!(
                "first message names no configured session ({}:{}->{})",
                Escaped(key.0.as_bytes()),
                Escaped(key.1.as_bytes()),
                Escaped(key.2.as_bytes())
            );
            self.close_conn(c, &why, now);
            return None;
        };
        if self.slots[i].conn.is_some() {
            let why = format!("session {} is already connected", self.slots[i].name);
            self.close_conn(c, &why, now);
            return None;
        }
        if self.stopping {
            self.close_conn(c, "shutting down", now);
            return None;
        }
        let conn = self.conns[c].as_mut().expect("live");
        conn.session = Some(i);
        let pending = std::mem::take(&mut conn.pending);
        let peer = conn.peer;
        Self::tune(&conn.stream, &self.slots[i].settings);
        let s = &mut self.slots[i];
        s.conn = Some(c);
        s.slow = false;
        s.new_connection(now);
        s.event(&format!("accepted connection from {peer:?}"), now);
        s.driver.on_connected(now);
        if let Some(l) = &mut s.log {
            l.incoming(&pending, now);
        }
        s.driver.on_bytes(&pending, now);
        Some(i)
    }
}

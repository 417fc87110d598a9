//! High availability's hold ([`EngineOptions::write_gate`](super::EngineOptions)): an
//! engine with a [`WriteGate`] writes to its sessions' sockets only while the gate
//! names a term this node leads. Until then it holds its sessions: an acceptor's
//! connections are closed as they are accepted (no Logon answered), an initiator does
//! not connect. When the gate closes, every connection is closed at once, without a
//! Logout: this node has lost the right to write, and a standby may be about to win.

use std::fmt;

use crate::driver::{Nanos, SessionDriver};
use crate::ConnectionType;
use peregrine_session::DisconnectReason;

use super::Engine;

/// Whether this node may write to its sessions' counterparties now: the term it
/// leads, or `None`. Asked at the start of every turn and before every write, on the
/// reactor's thread: it must answer at once (a clock read, an atomic load), never
/// wait. `peregrine-ha`'s `LeaderGate` is one, open while this node leads its group
/// on etcd and until the lease's local deadline.
///
/// ```
/// use peregrine_engine::{EngineOptions, WriteGate};
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::sync::Arc;
/// #[derive(Debug, Default)]
/// struct Switch(AtomicU64); // 0: not leader
/// impl WriteGate for Switch {
///     fn term(&self) -> Option<u64> {
///         Some(self.0.load(Ordering::Acquire)).filter(|&t| t != 0)
///     }
/// }
/// let switch = Arc::new(Switch::default());
/// let options = EngineOptions { write_gate: Some(switch.clone()), ..EngineOptions::default() };
/// switch.0.store(7, Ordering::Release); // leads term 7: the engine may connect and write
/// # let _ = options;
/// ```
pub trait WriteGate: Send + Sync + fmt::Debug {
    /// The term this node leads now, or `None`: not leader (hold every session).
    fn term(&self) -> Option<u64>;
}

impl<D: SessionDriver> Engine<D> {
    /// Whether the engine may write now; on a change of term, holds or releases the
    /// sessions. Always true without a gate.
    #[inline]
    pub(super) fn may_write(&mut self, now: Nanos) -> bool {
        let Some(gate) = &self.options.write_gate else {
            return true;
        };
        let term = gate.term();
        if term != self.led_term {
            self.change_term(term, now);
        }
        term.is_some()
    }

    /// Whether sessions are held (a gate that names no term).
    pub(super) fn held(&self) -> bool {
        self.options.write_gate.is_some() && self.led_term.is_none()
    }

    fn change_term(&mut self, term: Option<u64>, now: Nanos) {
        let before = std::mem::replace(&mut self.led_term, term);
        if let Some(old) = before {
            let why =
                format!("this node does not lead term {old} any more: closed without a Logout");
            for key in self.connections.keys() {
                self.close_connection_as(key, &why, DisconnectReason::Closed, now);
            }
        }
        let Some(new) = term else {
            return;
        };
        for s in self.sessions.iter_mut() {
            s.event(
                &format!("this node leads term {new}: sessions released"),
                now,
            );
            if s.settings.connection_type == ConnectionType::Initiator {
                s.next_connect = now;
            }
        }
    }
}

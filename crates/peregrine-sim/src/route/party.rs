//! The four sessions of the routing world behind one interface, whatever
//! their store and application: the client and the venues (memory stores,
//! never crash) and the router's sessions (views of its journal).

use peregrine_codec::MessageView;
use peregrine_session::{
    AppReject, Application, DisconnectReason, Nanos, Outbox, Session, SessionEvent, SessionId,
    SessionState,
};
use peregrine_store::{JournalStore, MemoryStore};

use super::router::RouterApp;

/// An application message the client or the venue was handed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// ClOrdID(11).
    pub id: Vec<u8>,
    /// MsgSeqNum(34): the router's.
    pub seq: u64,
    /// PossDupFlag(43)=Y.
    pub poss_dup: bool,
}

/// The client's or a venue's application: records what it is handed; a
/// venue answers each order with an execution report whose ClOrdID is the
/// order's prefixed by `V<k>-` (one report per venue and order).
#[derive(Debug, Default)]
pub struct Edge {
    /// Which venue (`k` from 1), or `None` for the client.
    pub venue: Option<usize>,
    /// Orders (a venue) or reports (the client) since the oracle last read them.
    pub deliveries: Vec<Delivery>,
    /// Reports the venue could not send.
    pub refused: Vec<String>,
}

impl Application for Edge {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let id = msg.get(11).unwrap_or(b"?").to_vec();
        let seq = msg
            .get(34)
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        if let (Some(k), b"D") = (self.venue, msg.msg_type()) {
            let report = [format!("V{k}-").as_bytes(), &id].concat();
            let sent = out.send(b"8", |m| {
                m.str(11, &report).str(58, b"filled");
            });
            if let Err(e) = sent {
                self.refused
                    .push(format!("the venue's report was not sent: {e}"));
            }
        }
        self.deliveries.push(Delivery {
            id,
            seq,
            poss_dup: msg.get(43) == Some(b"Y"),
        });
        Ok(())
    }
}

/// One of the four sessions and its application.
pub enum Party<'a> {
    /// The client or the venue.
    Edge(&'a mut Session<MemoryStore>, &'a mut Edge),
    /// One of the router's sessions.
    Router(&'a mut Session<JournalStore>, &'a mut RouterApp),
}

macro_rules! each {
    ($p:expr, |$s:ident, $a:ident| $body:expr) => {
        match $p {
            Party::Edge($s, $a) => $body,
            Party::Router($s, $a) => $body,
        }
    };
}

impl Party<'_> {
    /// Bytes read.
    pub fn on_bytes(self, data: &[u8], now: Nanos) {
        each!(self, |s, a| s.on_bytes(data, now, a))
    }

    /// A connection is up.
    pub fn on_connected(self, now: Nanos) {
        each!(self, |s, a| s.on_connected(now, a))
    }

    /// The engine closed the connection the session asked to close.
    pub fn on_disconnected(self, now: Nanos) {
        each!(self, |s, a| s.on_disconnected(now, a))
    }

    /// The connection went without the session asking.
    pub fn on_connection_lost(self, now: Nanos, reason: DisconnectReason) {
        each!(self, |s, a| s.on_connection_lost(now, reason, a))
    }

    /// Its timers, if one is due.
    pub fn on_timer_if_due(self, now: Nanos) {
        each!(
            self,
            |s, a| if s.next_deadline().is_some_and(|d| d <= now) {
                s.on_timer(now, a)
            }
        )
    }

    /// Its next timer.
    pub fn next_deadline(self) -> Option<Nanos> {
        each!(self, |s, _a| s.next_deadline())
    }

    /// Its state.
    pub fn state(self) -> SessionState {
        each!(self, |s, _a| s.state())
    }

    /// Bytes it may write (committed).
    pub fn outbound_len(self) -> usize {
        each!(self, |s, _a| s.outbound().len())
    }

    /// Up to `room` bytes of its outbound, taken (they are written).
    pub fn take_out(self, room: usize) -> Vec<u8> {
        each!(self, |s, a| {
            let out = s.outbound();
            let bytes = out[..out.len().min(room)].to_vec();
            if !bytes.is_empty() {
                s.consume_outbound(bytes.len(), a);
            }
            bytes
        })
    }

    /// Commits (a router session: only staged; the router writes the turn).
    pub fn commit(self) -> bool {
        each!(self, |s, _a| s.commit().is_ok())
    }

    /// The events since the last call.
    pub fn events(self) -> Vec<SessionEvent> {
        each!(self, |s, _a| std::iter::from_fn(|| s.poll_event())
            .collect())
    }
}

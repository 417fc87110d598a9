//! What can happen in the simulated world, one [`Action`] per step, drawn from
//! the seeded PRNG ([`generate`]) or decoded from fuzzer bytes
//! ([`from_bytes`]); and the [`Census`] of what happened in a run.
//!
//! Actions do not depend on the world's state: an action that does not apply
//! (a delivery with nothing in flight, a connect while connected) does
//! nothing. That is what makes a run an explicit list that the shrinker can
//! cut, and replay exactly.

use std::fmt;

use peregrine_session::{Nanos, SECOND};
use peregrine_testkit::Rng;

use crate::store::Tear;

/// One of the two nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Sends the Logon; reconnects.
    Initiator,
    /// Accepts one connection at a time.
    Acceptor,
}

impl Side {
    /// 0 for the initiator, 1 for the acceptor.
    pub fn index(self) -> usize {
        match self {
            Side::Initiator => 0,
            Side::Acceptor => 1,
        }
    }

    /// The other side.
    pub fn peer(self) -> Side {
        match self {
            Side::Initiator => Side::Acceptor,
            Side::Acceptor => Side::Initiator,
        }
    }

    /// From 0 or 1.
    pub fn from_index(i: usize) -> Side {
        if i == 0 {
            Side::Initiator
        } else {
            Side::Acceptor
        }
    }

    fn pick(rng: &mut Rng) -> Side {
        Side::from_index(rng.below(2) as usize)
    }
}

/// Which ends of a dropped connection are told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notify {
    /// Both read the reset after the bytes that made it.
    Both,
    /// Only this side; the other's connection is half-open (it learns by its
    /// heartbeat timeout).
    Only(Side),
}

/// One step of a simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Up to `bytes` of what is in flight towards `to` arrive (in one read).
    Deliver {
        /// The reader.
        to: Side,
        /// How many bytes at most.
        bytes: u32,
    },
    /// `count` application messages from `side`, each with `payload` bytes of text.
    Send {
        /// The sender.
        side: Side,
        /// How many.
        count: u8,
        /// Text(58) length.
        payload: u16,
    },
    /// Time passes; timers due fire in order. With `deliver`, the network
    /// carries what is in flight before each timer (it is faster than they
    /// are); without, it stalls for that long.
    Advance {
        /// How long.
        nanos: Nanos,
        /// Whether bytes in flight arrive meanwhile.
        deliver: bool,
    },
    /// Time passes, with the network delivering, up to the session schedule's
    /// next boundary (a window opening or closing) plus `after_ms` (before it
    /// when negative); nothing without a schedule.
    ToBoundary {
        /// Milliseconds past the boundary.
        after_ms: i16,
    },
    /// The initiator connects (refused while the acceptor holds a connection).
    Connect,
    /// A second connection for the same session while one is up: the
    /// acceptor's engine refuses it ("already connected").
    DuplicateConnect,
    /// The connection breaks: `cut` bytes of what is in flight each way still
    /// arrive (the rest, half-written frames included, is lost).
    Drop {
        /// Bytes kept of each direction.
        cut: u32,
        /// Who is told.
        notify: Notify,
    },
    /// `side`'s process dies (after its input was handled but before the
    /// commit, when `before_commit`) and restarts on its store.
    Crash {
        /// Who.
        side: Side,
        /// Input handled, not committed, when it dies.
        before_commit: bool,
        /// What the file system does to the unsynced tail.
        tear: Tear,
    },
    /// The wall clock is stepped.
    ClockJump {
        /// Forward (positive) or back.
        nanos: Nanos,
    },
    /// `side` reads at most a few bytes at a time for `steps` steps.
    SlowConsumer {
        /// The slow reader.
        side: Side,
        /// For how many steps.
        steps: u16,
    },
    /// A byte in flight towards `to` is corrupted.
    Garble {
        /// The reader.
        to: Side,
        /// Where (modulo what is in flight).
        at: u32,
        /// XORed into it (never 0).
        xor: u8,
    },
    /// `side` logs out (graceful).
    Logout {
        /// Who.
        side: Side,
    },
    /// While disconnected, an operator raises `side`'s next outgoing MsgSeqNum:
    /// its next Logon is too high (a gap the peer fills with GapFills).
    SeqJump {
        /// Who.
        side: Side,
        /// By how much.
        by: u16,
    },
    /// An operator lowers `side`'s next expected MsgSeqNum to `1 + keep‰` of
    /// it: the next message is too high, and the ResendRequest asks for a
    /// huge range.
    Rewind {
        /// Who.
        side: Side,
        /// Per mille of the expected number kept.
        keep: u16,
    },
    /// While no connection is up, a stale copy of `to`'s peer (restored from an
    /// old backup, say) connects and logs on with a MsgSeqNum `below` under the
    /// one `to` expects: `to` must send a Logout and disconnect (MsgSeqNum too
    /// low), its numbers untouched. Not drawn against a side that resets on
    /// logon or under a schedule (a reset makes the number too high instead).
    LowLogon {
        /// Who receives the Logon.
        to: Side,
        /// How far below the expected MsgSeqNum (at least 1).
        below: u8,
    },
}

/// Names of the faults, as the census prints them.
impl Action {
    /// The census key of this action.
    pub fn tally(&self) -> Tally {
        match self {
            Action::Deliver { .. } => Tally::Deliver,
            Action::Send { .. } => Tally::Send,
            Action::Advance { .. } => Tally::Advance,
            Action::ToBoundary { .. } => Tally::ToBoundary,
            Action::Connect => Tally::Connect,
            Action::DuplicateConnect => Tally::DuplicateConnect,
            Action::Drop {
                notify: Notify::Both,
                ..
            } => Tally::Drop,
            Action::Drop { .. } => Tally::HalfOpen,
            Action::Crash { .. } => Tally::Crash,
            Action::ClockJump { nanos } if *nanos >= 0 => Tally::ClockForward,
            Action::ClockJump { .. } => Tally::ClockBack,
            Action::SlowConsumer { .. } => Tally::SlowConsumer,
            Action::Garble { .. } => Tally::Garble,
            Action::Logout { .. } => Tally::Logout,
            Action::SeqJump { .. } => Tally::SeqJump,
            Action::Rewind { .. } => Tally::Rewind,
            Action::LowLogon { .. } => Tally::LowLogon,
        }
    }

    /// Whether this is a fault (not the normal life of a session).
    pub fn is_fault(&self) -> bool {
        !matches!(
            self,
            Action::Deliver { .. } | Action::Send { .. } | Action::Advance { .. } | Action::Connect
        )
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Deliver { to, bytes } => write!(f, "deliver ≤{bytes} B to {to:?}"),
            Action::Send {
                side,
                count,
                payload,
            } => write!(f, "{side:?} sends {count} message(s) of {payload} B"),
            Action::Advance { nanos, deliver } => write!(
                f,
                "advance {:.3} s{}",
                nanos as f64 / 1e9,
                if deliver { "" } else { " (network stalled)" }
            ),
            Action::ClockJump { nanos } => write!(f, "clock jumps {:+.3} s", nanos as f64 / 1e9),
            other => write!(f, "{other:?}"),
        }
    }
}

/// How often each action is drawn, per 10,000 steps.
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    /// Every weight, in [`Tally`] order of the actions.
    pub table: [(Tally, u32); 17],
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            table: [
                (Tally::Deliver, 5_200),
                (Tally::Send, 2_300),
                (Tally::Advance, 1_700),
                (Tally::Connect, 400),
                (Tally::DuplicateConnect, 20),
                (Tally::Drop, 40),
                (Tally::HalfOpen, 15),
                (Tally::Crash, 25),
                (Tally::ClockForward, 12),
                (Tally::ClockBack, 12),
                (Tally::SlowConsumer, 20),
                (Tally::Garble, 50),
                (Tally::Logout, 25),
                (Tally::SeqJump, 10),
                (Tally::Rewind, 8),
                (Tally::ToBoundary, 10),
                (Tally::LowLogon, 5),
            ],
        }
    }
}

impl Weights {
    /// Only the normal life of a session (deliveries in any chunking and
    /// order, sends, time passing, reconnects), plus graceful logouts and
    /// connection drops at any byte: the short profile `make test` runs
    /// (`make sim-smoke`); `make sim` runs every fault (see the crate README).
    /// Its configurations come from
    /// [`SimConfig::from_seed_with`](crate::config::SimConfig::from_seed_with)
    /// without schedules or unsynced stores.
    pub fn core() -> Weights {
        let mut w = Weights::default();
        for (t, weight) in &mut w.table {
            if !matches!(
                t,
                Tally::Deliver
                    | Tally::Send
                    | Tally::Advance
                    | Tally::Connect
                    | Tally::Logout
                    | Tally::Drop
            ) {
                *weight = 0;
            }
        }
        w
    }
}

/// Draws one action.
pub fn draw(rng: &mut Rng, weights: &Weights) -> Action {
    let total: u32 = weights.table.iter().map(|(_, w)| w).sum();
    let mut x = rng.below(u64::from(total.max(1))) as u32;
    let mut kind = Tally::Deliver;
    for (t, w) in weights.table {
        if x < w {
            kind = t;
            break;
        }
        x -= w;
    }
    make(kind, rng)
}

fn make(kind: Tally, rng: &mut Rng) -> Action {
    match kind {
        Tally::Send => Action::Send {
            side: Side::pick(rng),
            count: 1 + rng.below(4) as u8,
            payload: {
                let most = if rng.below(50) == 0 { 4000 } else { 120 };
                rng.below(most) as u16
            },
        },
        Tally::Advance => match rng.below(40) {
            0 => Action::Advance {
                nanos: SECOND * (20 + rng.below(100) as i64),
                deliver: false,
            },
            1..=3 => Action::Advance {
                nanos: SECOND * (20 + rng.below(100) as i64),
                deliver: true,
            },
            4..=12 => Action::Advance {
                nanos: SECOND * rng.below(10) as i64,
                deliver: true,
            },
            _ => Action::Advance {
                nanos: 1_000_000 * (1 + rng.below(500) as i64),
                deliver: false,
            },
        },
        Tally::Connect => Action::Connect,
        Tally::ToBoundary => Action::ToBoundary {
            after_ms: rng.below(20_001) as i16 - 10_000,
        },
        Tally::DuplicateConnect => Action::DuplicateConnect,
        Tally::Drop => Action::Drop {
            cut: rng.below(600) as u32,
            notify: Notify::Both,
        },
        Tally::HalfOpen => Action::Drop {
            cut: rng.below(600) as u32,
            notify: Notify::Only(Side::pick(rng)),
        },
        Tally::Crash => Action::Crash {
            side: Side::pick(rng),
            before_commit: rng.below(2) == 0,
            tear: Tear {
                keep: rng.below(256) as u8,
                garbage: if rng.below(2) == 0 {
                    0
                } else {
                    rng.below(80) as u8
                },
                seed: rng.below(256) as u8,
                seqnums: if rng.below(4) == 0 {
                    1 + rng.below(255) as u8
                } else {
                    0
                },
            },
        },
        Tally::ClockForward => Action::ClockJump {
            nanos: SECOND * (1 + rng.below(3 * 3600) as i64),
        },
        Tally::ClockBack => Action::ClockJump {
            nanos: -SECOND * (1 + rng.below(600) as i64),
        },
        Tally::SlowConsumer => Action::SlowConsumer {
            side: Side::pick(rng),
            steps: 50 + rng.below(2000) as u16,
        },
        Tally::Garble => Action::Garble {
            to: Side::pick(rng),
            at: rng.next_u64() as u32,
            xor: 1 + rng.below(255) as u8,
        },
        Tally::Logout => Action::Logout {
            side: Side::pick(rng),
        },
        Tally::SeqJump => Action::SeqJump {
            side: Side::pick(rng),
            by: 1 + rng.below(200) as u16,
        },
        Tally::Rewind => Action::Rewind {
            side: Side::pick(rng),
            // A quarter of them ask for everything sent since the last reset.
            keep: if rng.below(4) == 0 {
                0
            } else {
                rng.below(1000) as u16
            },
        },
        Tally::LowLogon => Action::LowLogon {
            to: Side::pick(rng),
            below: 1 + rng.below(20) as u8,
        },
        _ => Action::Deliver {
            to: Side::pick(rng),
            bytes: if rng.below(4) == 0 {
                1 + rng.below(200) as u32
            } else {
                64 * 1024
            },
        },
    }
}

/// The actions of a run: `steps` draws from the PRNG seeded with `seed`.
pub fn generate(seed: u64, steps: usize, weights: &Weights) -> Vec<Action> {
    let mut rng = Rng::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5157);
    (0..steps).map(|_| draw(&mut rng, weights)).collect()
}

/// Actions from arbitrary bytes (a fuzzer's input): each 8 bytes seed one
/// draw, so every input is a valid run and small changes to it stay local.
pub fn from_bytes(data: &[u8]) -> Vec<Action> {
    let weights = Weights::default();
    data.chunks(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            let mut rng = Rng::new(u64::from_le_bytes(b) | 1);
            draw(&mut rng, &weights)
        })
        .collect()
}

/// What the census counts: actions drawn, and what the sessions did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum Tally {
    Deliver,
    Send,
    Advance,
    Connect,
    DuplicateConnect,
    Drop,
    HalfOpen,
    Crash,
    ClockForward,
    ClockBack,
    SlowConsumer,
    Garble,
    Logout,
    SeqJump,
    Rewind,
    ToBoundary,
    LowLogon,
    // What happened, rather than what was done.
    /// Connections refused because the acceptor still held one.
    Refused,
    /// Logons completed (both sides).
    LoggedOn,
    /// Disconnects a session asked for.
    Disconnects,
    /// Session Rejects and BusinessMessageRejects sent.
    Rejects,
    /// Sequence resets (each side).
    Resets,
    /// ResendRequests sent.
    ResendRequests,
    /// Application messages delivered the first time.
    Delivered,
    /// Application messages delivered again (PossDup).
    PossDupDelivered,
    /// Messages that crossed the network (any kind).
    WireMessages,
    /// Acknowledged messages discarded by a sequence reset before delivery.
    LostToReset,
    /// Garbled inputs the sessions dropped.
    GarbledDropped,
    /// File stores reopened after a crash.
    FileRecoveries,
    /// Acknowledged messages an unsynced file store lost in a crash.
    UnsyncedLost,
    /// File store crashes that tore the `seqnums` slot written last.
    SeqnumsTorn,
    /// Logons with a MsgSeqNum too low refused (Logout, disconnect).
    LowLogonRefused,
}

const TALLIES: usize = Tally::LowLogonRefused as usize + 1;

/// Counts of [`Tally`] over one or many runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Census {
    counts: [u64; TALLIES],
    /// Disconnect reasons, by name.
    pub reasons: std::collections::BTreeMap<String, u64>,
}

impl Census {
    /// One more.
    pub fn add(&mut self, t: Tally) {
        self.counts[t as usize] += 1;
    }

    /// `n` more.
    pub fn add_n(&mut self, t: Tally, n: u64) {
        self.counts[t as usize] += n;
    }

    /// How many.
    pub fn get(&self, t: Tally) -> u64 {
        self.counts[t as usize]
    }

    /// Adds another census.
    pub fn merge(&mut self, other: &Census) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
        for (k, v) in &other.reasons {
            *self.reasons.entry(k.clone()).or_default() += v;
        }
    }

    /// Every count with its name.
    pub fn rows(&self) -> Vec<(String, u64)> {
        const ALL: [Tally; TALLIES] = [
            Tally::Deliver,
            Tally::Send,
            Tally::Advance,
            Tally::Connect,
            Tally::DuplicateConnect,
            Tally::Drop,
            Tally::HalfOpen,
            Tally::Crash,
            Tally::ClockForward,
            Tally::ClockBack,
            Tally::SlowConsumer,
            Tally::Garble,
            Tally::Logout,
            Tally::SeqJump,
            Tally::Rewind,
            Tally::ToBoundary,
            Tally::LowLogon,
            Tally::Refused,
            Tally::LoggedOn,
            Tally::Disconnects,
            Tally::Rejects,
            Tally::Resets,
            Tally::ResendRequests,
            Tally::Delivered,
            Tally::PossDupDelivered,
            Tally::WireMessages,
            Tally::LostToReset,
            Tally::GarbledDropped,
            Tally::FileRecoveries,
            Tally::UnsyncedLost,
            Tally::SeqnumsTorn,
            Tally::LowLogonRefused,
        ];
        ALL.iter()
            .map(|t| (format!("{t:?}"), self.get(*t)))
            .chain(
                self.reasons
                    .iter()
                    .map(|(k, v)| (format!("disconnect: {k}"), *v)),
            )
            .collect()
    }
}

impl fmt::Display for Census {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, n) in self.rows() {
            writeln!(f, "  {name:<44} {n:>12}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_actions_and_every_kind_shows_up() {
        let w = Weights::default();
        let a = generate(7, 50_000, &w);
        assert_eq!(a, generate(7, 50_000, &w));
        assert_ne!(a, generate(8, 50_000, &w));
        let mut seen = Census::default();
        for x in &a {
            seen.add(x.tally());
        }
        for (t, _) in w.table {
            assert!(seen.get(t) > 0, "{t:?} never drawn");
        }
    }

    #[test]
    fn fuzzer_bytes_always_decode() {
        assert_eq!(from_bytes(&[]).len(), 0);
        assert_eq!(from_bytes(&[1, 2, 3]).len(), 1);
        assert_eq!(from_bytes(&[0xff; 17]).len(), 3);
    }
}

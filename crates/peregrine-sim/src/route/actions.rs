//! What can happen in the routing world, one [`RouteAction`] per step, drawn
//! from the seeded PRNG. As in [`crate::faults`], an action that does not
//! apply (a delivery with nothing in flight) does nothing.

use std::fmt;

use peregrine_session::{Nanos, SECOND};
use peregrine_testkit::Rng;

/// One of the connections: 0 is the client's to the router (`GW->CLIENT`),
/// `k` ≥ 1 the router's to venue `k` (`GW->VENUEk`). A world with fewer
/// venues ignores actions on the legs it does not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leg(pub u8);

impl Leg {
    /// The client's connection to the router.
    pub const CLIENT: Leg = Leg(0);

    /// Its index.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// One end of a leg: the outer party (client, venue) or the router's session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The client or the venue.
    Outer,
    /// The router's session on that leg.
    Router,
}

impl End {
    /// Index into a link's pipes and ends.
    pub fn index(self) -> usize {
        match self {
            End::Outer => 0,
            End::Router => 1,
        }
    }
}

/// Where in its turn the router's process dies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CrashPoint {
    /// Between turns.
    Idle,
    /// Its input read and handed to the callbacks (forwards staged), the
    /// sessions not committed.
    AfterInput,
    /// Both sessions committed (numbers staged), the turn not written.
    Staged,
    /// During the turn's write: the file holds some of it (torn).
    InWrite,
    /// The turn written and fsynced, nothing sent yet.
    Written,
}

/// How the crash damages what the journal had not made durable (the bytes
/// after its last commit record that was fsynced: records written ahead,
/// or the turn being written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JournalTear {
    /// Of those bytes, how much survives, in 1/255ths (255: all); with a
    /// hole, where the hole is (in 1/256ths).
    pub keep: u8,
    /// Random bytes written after what survives.
    pub garbage: u8,
    /// A span of this many bytes inside them comes back wrong, the rest
    /// whole (pages written out of order); 0 for none.
    pub hole: u8,
    /// Seed of the garbage.
    pub seed: u8,
}

/// One step of a routing simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteAction {
    /// The client sends `count` orders with `payload` bytes of text.
    Order {
        /// How many.
        count: u8,
        /// Text(58) length.
        payload: u16,
    },
    /// Up to `bytes` in flight towards `end` of `leg` arrive.
    Deliver {
        /// Which connection.
        leg: Leg,
        /// Which reader.
        end: End,
        /// How many bytes at most.
        bytes: u32,
    },
    /// Time passes, the network delivering before each timer.
    Advance {
        /// How long.
        nanos: Nanos,
    },
    /// The leg's initiator connects (the client, or the router to a venue).
    Connect {
        /// Which.
        leg: Leg,
    },
    /// The leg's connection resets: `cut` bytes in flight each way still arrive.
    Drop {
        /// Which.
        leg: Leg,
        /// Bytes kept of each direction.
        cut: u32,
    },
    /// The router reads up to `input` bytes on each leg, then dies at
    /// `point`, and restarts on its journal as `tear` left it.
    Crash {
        /// Bytes read on each leg first (not for [`CrashPoint::Idle`]).
        input: u32,
        /// Where it dies.
        point: CrashPoint,
        /// What the file system does to the journal's last write.
        tear: JournalTear,
    },
}

impl fmt::Display for RouteAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RouteAction::Order { count, payload } => {
                write!(f, "the client sends {count} order(s) of {payload} B")
            }
            RouteAction::Deliver { leg, end, bytes } => {
                write!(f, "deliver ≤{bytes} B to {end:?} of {leg:?}")
            }
            RouteAction::Advance { nanos } => write!(f, "advance {:.3} s", nanos as f64 / 1e9),
            other => write!(f, "{other:?}"),
        }
    }
}

/// The client's leg half the time, else one of the venues' (up to two).
fn leg(rng: &mut Rng) -> Leg {
    match rng.below(4) {
        0 | 1 => Leg::CLIENT,
        2 => Leg(1),
        _ => Leg(2),
    }
}

/// Draws one action: mostly deliveries, orders and time; about one step in
/// fifty crashes the router, one in a hundred drops a connection.
pub fn draw(rng: &mut Rng) -> RouteAction {
    match rng.below(1000) {
        0..=519 => RouteAction::Deliver {
            leg: leg(rng),
            end: if rng.below(2) == 0 {
                End::Outer
            } else {
                End::Router
            },
            bytes: match rng.below(4) {
                0 => 1 + rng.below(64) as u32,
                1 => 1 + rng.below(2000) as u32,
                _ => u32::MAX,
            },
        },
        520..=719 => RouteAction::Order {
            count: 1 + rng.below(4) as u8,
            payload: {
                let most = if rng.below(30) == 0 { 3000 } else { 100 };
                rng.below(most) as u16
            },
        },
        720..=899 => RouteAction::Advance {
            nanos: match rng.below(20) {
                0 => SECOND * (20 + rng.below(60) as i64),
                _ => 1_000_000 * (1 + rng.below(3000) as i64),
            },
        },
        900..=969 => RouteAction::Connect { leg: leg(rng) },
        970..=979 => RouteAction::Drop {
            leg: leg(rng),
            cut: rng.below(3000) as u32,
        },
        _ => {
            let point = match rng.below(5) {
                0 => CrashPoint::Idle,
                1 => CrashPoint::AfterInput,
                2 => CrashPoint::Staged,
                3 => CrashPoint::InWrite,
                _ => CrashPoint::Written,
            };
            let whole = rng.below(4) == 0;
            RouteAction::Crash {
                input: if rng.below(2) == 0 {
                    u32::MAX
                } else {
                    rng.below(3000) as u32
                },
                point,
                tear: JournalTear {
                    keep: if whole { 255 } else { rng.below(256) as u8 },
                    garbage: if rng.below(2) == 0 {
                        0
                    } else {
                        rng.below(256) as u8
                    },
                    hole: if !whole && rng.below(4) == 0 {
                        1 + rng.below(200) as u8
                    } else {
                        0
                    },
                    seed: rng.below(256) as u8,
                },
            }
        }
    }
}

/// `steps` actions drawn from `seed`.
pub fn generate(seed: u64, steps: usize) -> Vec<RouteAction> {
    let mut rng = Rng::new(seed ^ 0x5a17_0c0d_e25e_ed00);
    (0..steps).map(|_| draw(&mut rng)).collect()
}

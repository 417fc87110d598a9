//! The replication stream's frames, as they travel on Aeron: [`DataFrame`]s from
//! the active to the standby and [`Status`] frames back.
//!
//! Every data frame starts with the same 48 bytes (little-endian):
//!
//! ```text
//!  0  u8   version (1)
//!  1  u8   kind (START 1, HEARTBEAT 2, RESTART 3, SESSION 4, MESSAGE 5,
//!            NUMBERS 6, RESET 7, COMMIT 8)
//!  2  u8   flags (bit 0: `from` is present)
//!  3  u8   0
//!  4  u32  index of the change in its transaction (0: its first)
//!  8  u64  term (the leader key's create revision; never 0)
//! 16  u64  instance (the active's stream, chosen at random when it starts)
//! 24  u64  epoch (how many times this instance answered a standby's request)
//! 32  u64  from.turn    \ the position the transaction starts at (changes),
//! 40  u64  from.offset  / the position a stream starts at or has reached
//! ```
//!
//! then the kind's body. A body naming a session starts with the name's length
//! (u16, at most [`MAX_NAME`] bytes), then the fixed fields, then the name:
//! SESSION `creation_time i64`; MESSAGE `seq u64, total u32, at u32` then the
//! name and the chunk of the message at `at` (a message longer than a frame
//! goes in several frames, see [`chunk_capacity`]); NUMBERS `next_sender u64,
//! next_target u64`; RESET `creation_time i64`. COMMIT's body is the position
//! the transaction reached (`turn u64, offset u64`). START, HEARTBEAT and
//! RESTART have none.
//!
//! A status frame (the standby's) is 48 bytes: version, kind 16, flags (bit 0:
//! a position; bit 1: a request to stream from it), 5 zero bytes, then
//! `instance u64, epoch u64` (the newest stream it has seen, 0 if none),
//! `term u64` (its fence, 0 if none) and its position `turn u64, offset u64`.

use std::fmt;

use peregrine_ha::Term;
use peregrine_store::JournalPosition;

/// The frame format's version, first byte of every frame.
pub const VERSION: u8 = 1;
/// Bytes before a data frame's body.
pub const HEADER_LEN: usize = 48;
/// A status frame's length.
pub const STATUS_LEN: usize = 48;
/// The longest session name a frame carries (the engine journal's own limit).
pub const MAX_NAME: usize = 1024;
/// A MESSAGE body's bytes before the name: name length, seq, total, at.
const MESSAGE_FIXED: usize = 2 + 8 + 4 + 4;

const START: u8 = 1;
const HEARTBEAT: u8 = 2;
const RESTART: u8 = 3;
const SESSION: u8 = 4;
const MESSAGE: u8 = 5;
const NUMBERS: u8 = 6;
const RESET: u8 = 7;
const COMMIT: u8 = 8;
const STATUS: u8 = 16;

const HAS_FROM: u8 = 1;
const HAS_POSITION: u8 = 1;
const REQUEST: u8 = 2;

/// What a data frame carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body<'a> {
    /// The active answers a standby's request: this epoch streams from the
    /// frame's `from` (absent: from the journal's start, a RESTART first).
    Start,
    /// Nothing new; the frame's `from` is where the stream has reached.
    Heartbeat,
    /// [`JournalChange::Restart`](peregrine_store::JournalChange::Restart).
    Restart,
    /// [`JournalChange::Session`](peregrine_store::JournalChange::Session).
    Session {
        /// The session's name.
        name: &'a str,
        /// When its numbers were last reset (ns, UTC).
        creation_time: i64,
    },
    /// A chunk of [`JournalChange::Message`](peregrine_store::JournalChange::Message).
    Message {
        /// The session's name.
        session: &'a str,
        /// The message's MsgSeqNum.
        seq: u64,
        /// The whole message's length.
        total: u32,
        /// Where in the message this chunk goes.
        at: u32,
        /// The chunk.
        chunk: &'a [u8],
    },
    /// [`JournalChange::Numbers`](peregrine_store::JournalChange::Numbers).
    Numbers {
        /// The session's name.
        session: &'a str,
        /// The next MsgSeqNum it sends.
        next_sender: u64,
        /// The next MsgSeqNum it expects.
        next_target: u64,
    },
    /// [`JournalChange::Reset`](peregrine_store::JournalChange::Reset).
    Reset {
        /// The session's name.
        session: &'a str,
        /// The reset's time (ns, UTC).
        creation_time: i64,
    },
    /// [`JournalChange::Commit`](peregrine_store::JournalChange::Commit).
    Commit {
        /// The position the transaction reached.
        position: JournalPosition,
    },
}

/// A frame from the active.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataFrame<'a> {
    /// The active's term.
    pub term: Term,
    /// The active's stream (random per start).
    pub instance: u64,
    /// The stream's epoch (one per answered request).
    pub epoch: u64,
    /// The change's index in its transaction.
    pub index: u32,
    /// See the module documentation.
    pub from: Option<JournalPosition>,
    /// What it carries.
    pub body: Body<'a>,
}

/// A frame from the standby: where it is (durably), and whether it asks to
/// be streamed to from there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    /// The newest stream seen (`instance`, `epoch`), 0 and 0 if none.
    pub instance: u64,
    /// See `instance`.
    pub epoch: u64,
    /// The standby's fence: the newest term it has seen.
    pub term: Option<Term>,
    /// The leader position its replica holds.
    pub position: Option<JournalPosition>,
    /// Asks the active to stream from `position`.
    pub request: bool,
}

/// A frame that is not one of this format's: why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// Shorter than its kind needs.
    Short {
        /// The frame's length.
        len: usize,
        /// What its kind needs at least.
        need: usize,
    },
    /// Another format version.
    Version(u8),
    /// An unknown kind.
    Kind(u8),
    /// Term 0, which is no term.
    NoTerm,
    /// A session name longer than [`MAX_NAME`] or not UTF-8.
    Name,
    /// A message chunk that does not fit its message.
    Chunk,
    /// A change without the position its transaction starts at.
    NoFrom,
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Short { len, need } => {
                write!(f, "frame of {len} bytes, its kind needs {need}")
            }
            FrameError::Version(v) => write!(f, "frame version {v}, expected {VERSION}"),
            FrameError::Kind(k) => write!(f, "unknown frame kind {k}"),
            FrameError::NoTerm => f.write_str("frame of term 0"),
            FrameError::Name => write!(f, "session name longer than {MAX_NAME} bytes or not UTF-8"),
            FrameError::Chunk => f.write_str("message chunk outside its message"),
            FrameError::NoFrom => f.write_str("change without its transaction's position"),
        }
    }
}

impl std::error::Error for FrameError {}

/// The longest message chunk that keeps a MESSAGE frame for `name` within
/// `max_frame` bytes (at least 1).
pub fn chunk_capacity(max_frame: usize, name: &str) -> usize {
    max_frame
        .saturating_sub(HEADER_LEN + MESSAGE_FIXED + name.len())
        .max(1)
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

impl DataFrame<'_> {
    /// Writes the frame into `out` (cleared first).
    ///
    /// # Errors
    ///
    /// [`FrameError::Name`] for a name over [`MAX_NAME`] bytes;
    /// [`FrameError::Chunk`] for a chunk outside its message.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), FrameError> {
        out.clear();
        let kind = match self.body {
            Body::Start => START,
            Body::Heartbeat => HEARTBEAT,
            Body::Restart => RESTART,
            Body::Session { .. } => SESSION,
            Body::Message { .. } => MESSAGE,
            Body::Numbers { .. } => NUMBERS,
            Body::Reset { .. } => RESET,
            Body::Commit { .. } => COMMIT,
        };
        let flags = if self.from.is_some() { HAS_FROM } else { 0 };
        out.extend_from_slice(&[VERSION, kind, flags, 0]);
        out.extend_from_slice(&self.index.to_le_bytes());
        put_u64(out, self.term.get());
        put_u64(out, self.instance);
        put_u64(out, self.epoch);
        let from = self.from.unwrap_or_default();
        put_u64(out, from.turn);
        put_u64(out, from.offset);
        let named = |out: &mut Vec<u8>, name: &str| -> Result<(), FrameError> {
            if name.len() > MAX_NAME {
                return Err(FrameError::Name);
            }
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            Ok(())
        };
        match self.body {
            Body::Start | Body::Heartbeat | Body::Restart => {}
            Body::Session {
                name,
                creation_time,
            } => {
                named(out, name)?;
                put_u64(out, creation_time as u64);
                out.extend_from_slice(name.as_bytes());
            }
            Body::Message {
                session,
                seq,
                total,
                at,
                chunk,
            } => {
                if at as usize + chunk.len() > total as usize {
                    return Err(FrameError::Chunk);
                }
                named(out, session)?;
                put_u64(out, seq);
                out.extend_from_slice(&total.to_le_bytes());
                out.extend_from_slice(&at.to_le_bytes());
                out.extend_from_slice(session.as_bytes());
                out.extend_from_slice(chunk);
            }
            Body::Numbers {
                session,
                next_sender,
                next_target,
            } => {
                named(out, session)?;
                put_u64(out, next_sender);
                put_u64(out, next_target);
                out.extend_from_slice(session.as_bytes());
            }
            Body::Reset {
                session,
                creation_time,
            } => {
                named(out, session)?;
                put_u64(out, creation_time as u64);
                out.extend_from_slice(session.as_bytes());
            }
            Body::Commit { position } => {
                put_u64(out, position.turn);
                put_u64(out, position.offset);
            }
        }
        Ok(())
    }
}

impl<'a> DataFrame<'a> {
    /// Reads a frame, checking every length first (a hostile frame is an
    /// error, never a panic).
    ///
    /// # Errors
    ///
    /// A [`FrameError`] saying what is wrong.
    pub fn decode(b: &'a [u8]) -> Result<DataFrame<'a>, FrameError> {
        let need = |n: usize| {
            if b.len() < n {
                Err(FrameError::Short {
                    len: b.len(),
                    need: n,
                })
            } else {
                Ok(())
            }
        };
        need(HEADER_LEN)?;
        if b[0] != VERSION {
            return Err(FrameError::Version(b[0]));
        }
        let kind = b[1];
        let term = Term::new(u64_at(b, 8)).ok_or(FrameError::NoTerm)?;
        let from = (b[2] & HAS_FROM != 0).then(|| JournalPosition {
            turn: u64_at(b, 32),
            offset: u64_at(b, 40),
        });
        let body = &b[HEADER_LEN..];
        // A named body: (fixed fields, name, rest).
        let named = |fixed: usize| -> Result<(&'a [u8], &'a str, &'a [u8]), FrameError> {
            need(HEADER_LEN + 2 + fixed)?;
            let len = u16::from_le_bytes([body[0], body[1]]) as usize;
            if len > MAX_NAME {
                return Err(FrameError::Name);
            }
            need(HEADER_LEN + 2 + fixed + len)?;
            let name = std::str::from_utf8(&body[2 + fixed..2 + fixed + len])
                .map_err(|_| FrameError::Name)?;
            Ok((&body[2..2 + fixed], name, &body[2 + fixed + len..]))
        };
        let body = match kind {
            START => Body::Start,
            HEARTBEAT => Body::Heartbeat,
            RESTART => Body::Restart,
            SESSION => {
                let (f, name, _) = named(8)?;
                Body::Session {
                    name,
                    creation_time: u64_at(f, 0) as i64,
                }
            }
            MESSAGE => {
                let (f, session, chunk) = named(16)?;
                let (total, at) = (u32_at(f, 8), u32_at(f, 12));
                if at as usize + chunk.len() > total as usize {
                    return Err(FrameError::Chunk);
                }
                Body::Message {
                    session,
                    seq: u64_at(f, 0),
                    total,
                    at,
                    chunk,
                }
            }
            NUMBERS => {
                let (f, session, _) = named(16)?;
                Body::Numbers {
                    session,
                    next_sender: u64_at(f, 0),
                    next_target: u64_at(f, 8),
                }
            }
            RESET => {
                let (f, session, _) = named(8)?;
                Body::Reset {
                    session,
                    creation_time: u64_at(f, 0) as i64,
                }
            }
            COMMIT => {
                need(HEADER_LEN + 16)?;
                Body::Commit {
                    position: JournalPosition {
                        turn: u64_at(body, 0),
                        offset: u64_at(body, 8),
                    },
                }
            }
            k => return Err(FrameError::Kind(k)),
        };
        let change = !matches!(body, Body::Start | Body::Heartbeat);
        if change && from.is_none() {
            return Err(FrameError::NoFrom);
        }
        Ok(DataFrame {
            term,
            instance: u64_at(b, 16),
            epoch: u64_at(b, 24),
            index: u32_at(b, 4),
            from,
            body,
        })
    }
}

impl Status {
    /// The frame's bytes.
    pub fn encode(&self) -> [u8; STATUS_LEN] {
        let mut b = [0u8; STATUS_LEN];
        b[0] = VERSION;
        b[1] = STATUS;
        b[2] = if self.position.is_some() {
            HAS_POSITION
        } else {
            0
        } | if self.request { REQUEST } else { 0 };
        let p = self.position.unwrap_or_default();
        for (i, v) in [
            self.instance,
            self.epoch,
            self.term.map_or(0, Term::get),
            p.turn,
            p.offset,
        ]
        .into_iter()
        .enumerate()
        {
            b[8 + 8 * i..16 + 8 * i].copy_from_slice(&v.to_le_bytes());
        }
        b
    }

    /// Reads a status frame.
    ///
    /// # Errors
    ///
    /// A [`FrameError`] saying what is wrong.
    pub fn decode(b: &[u8]) -> Result<Status, FrameError> {
        if b.len() < STATUS_LEN {
            return Err(FrameError::Short {
                len: b.len(),
                need: STATUS_LEN,
            });
        }
        if b[0] != VERSION {
            return Err(FrameError::Version(b[0]));
        }
        if b[1] != STATUS {
            return Err(FrameError::Kind(b[1]));
        }
        Ok(Status {
            instance: u64_at(b, 8),
            epoch: u64_at(b, 16),
            term: Term::new(u64_at(b, 24)),
            position: (b[2] & HAS_POSITION != 0).then(|| JournalPosition {
                turn: u64_at(b, 32),
                offset: u64_at(b, 40),
            }),
            request: b[2] & REQUEST != 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: Body<'_>) -> DataFrame<'_> {
        DataFrame {
            term: Term::new(42).unwrap(),
            instance: 7,
            epoch: 3,
            index: 2,
            from: Some(JournalPosition {
                turn: 9,
                offset: 4096,
            }),
            body,
        }
    }

    #[test]
    fn every_kind_comes_back_as_it_went() {
        let bodies = [
            Body::Start,
            Body::Heartbeat,
            Body::Restart,
            Body::Session {
                name: "FIX.4.4:GW->VENUE",
                creation_time: -5,
            },
            Body::Message {
                session: "FIX.4.4:GW->VENUE",
                seq: 12,
                total: 10,
                at: 4,
                chunk: b"35=D|1",
            },
            Body::Numbers {
                session: "S",
                next_sender: 3,
                next_target: 4,
            },
            Body::Reset {
                session: "S",
                creation_time: 99,
            },
            Body::Commit {
                position: JournalPosition {
                    turn: 10,
                    offset: 5000,
                },
            },
        ];
        let mut buf = Vec::new();
        for body in bodies {
            let f = frame(body);
            f.encode(&mut buf).unwrap();
            assert_eq!(DataFrame::decode(&buf), Ok(f));
            // Every cut of it is refused, none panics.
            for cut in 0..buf.len() {
                if let Ok(d) = DataFrame::decode(&buf[..cut]) {
                    // Only a message's chunk may lose bytes and stay whole.
                    assert!(matches!(d.body, Body::Message { .. }), "{d:?}");
                }
            }
        }
        let start = DataFrame {
            from: None,
            ..frame(Body::Start)
        };
        start.encode(&mut buf).unwrap();
        assert_eq!(DataFrame::decode(&buf).unwrap().from, None);
    }

    #[test]
    fn bad_frames_say_what_is_wrong() {
        let mut buf = Vec::new();
        frame(Body::Restart).encode(&mut buf).unwrap();
        let mut v2 = buf.clone();
        v2[0] = 2;
        assert_eq!(DataFrame::decode(&v2), Err(FrameError::Version(2)));
        let mut kind = buf.clone();
        kind[1] = 99;
        assert_eq!(DataFrame::decode(&kind), Err(FrameError::Kind(99)));
        let mut no_term = buf.clone();
        no_term[8..16].fill(0);
        assert_eq!(DataFrame::decode(&no_term), Err(FrameError::NoTerm));
        let mut no_from = buf.clone();
        no_from[2] = 0;
        assert_eq!(DataFrame::decode(&no_from), Err(FrameError::NoFrom));
        let long = "x".repeat(MAX_NAME + 1);
        let named = frame(Body::Reset {
            session: &long,
            creation_time: 0,
        });
        assert_eq!(named.encode(&mut buf), Err(FrameError::Name));
        let outside = frame(Body::Message {
            session: "S",
            seq: 1,
            total: 3,
            at: 2,
            chunk: b"ab",
        });
        assert_eq!(outside.encode(&mut buf), Err(FrameError::Chunk));
        assert_eq!(
            FrameError::Short { len: 3, need: 48 }.to_string(),
            "frame of 3 bytes, its kind needs 48"
        );
    }

    #[test]
    fn a_status_comes_back_as_it_went() {
        let s = Status {
            instance: 77,
            epoch: 4,
            term: Term::new(12),
            position: Some(JournalPosition {
                turn: 5,
                offset: 800,
            }),
            request: true,
        };
        assert_eq!(Status::decode(&s.encode()), Ok(s));
        let empty = Status {
            instance: 0,
            epoch: 0,
            term: None,
            position: None,
            request: false,
        };
        assert_eq!(Status::decode(&empty.encode()), Ok(empty));
        assert!(Status::decode(&s.encode()[..47]).is_err());
    }

    #[test]
    fn chunks_keep_a_frame_within_its_bound() {
        let cap = chunk_capacity(8192, "FIX.4.4:GW->VENUE");
        let chunk = vec![1u8; cap];
        let f = frame(Body::Message {
            session: "FIX.4.4:GW->VENUE",
            seq: 1,
            total: cap as u32,
            at: 0,
            chunk: &chunk,
        });
        let mut buf = Vec::new();
        f.encode(&mut buf).unwrap();
        assert_eq!(buf.len(), 8192);
    }
}

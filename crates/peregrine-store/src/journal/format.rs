//! The engine journal's file format. All integers are little-endian.
//!
//! ```text
//! file header, 32 bytes:
//!   0..8    magic          b"PGRNENG1"
//!   8..16   creation_time  i64  when the journal was made (nanoseconds since the epoch, UTC)
//!   16..24  base_turn      u64  the last turn of the journal this file replaced (a compaction:
//!                               its first transaction, turn base_turn + 1, holds every
//!                               session's whole live state); 0 for a journal made empty
//!   24..28  crc32          u32  CRC-32 (IEEE) of bytes 0..24
//!   28..32  zero
//! then records, back to back; each is a 20-byte header and a payload:
//!   0..4    magic    u32  b"PGJR"
//!   4..8    len      u32  payload length (<= MAX_MESSAGE_LEN + 8)
//!   8..12   session  u32  the session's number (0 for the journal's own records)
//!   12      kind     u8   one of the kinds below
//!   13..16  zero
//!   16..20  crc32    u32  CRC-32 of bytes 4..16 followed by the payload
//!   20..    payload
//! kinds and payloads:
//!   1 session   creation_time i64, then the session's name (its SessionID, UTF-8):
//!               gives the name its number, in the order first seen (1, 2, ...)
//!   2 message   seq u64, then the outgoing message exactly as stored
//!   3 numbers   next_sender u64, next_target u64
//!   4 reset     creation_time i64: the session's messages are gone, both numbers 1
//!   5 commit    turn u64 (1, 2, ...; one more than the previous commit's),
//!               start u64 (where the transaction's first record begins: just
//!               past the previous commit record, or the file header),
//!               crc32 u32 of every byte from start to this record, zero u32:
//!               everything since the previous commit record, of every
//!               session, is one transaction
//! ```
//!
//! A commit record is believed only if its transaction checks out: it starts
//! where the previous committed one ended, its turn follows, and the CRC over
//! all of its bytes matches. So a transaction is applied whole or not at all,
//! even when a crash left holes inside it (pages written out of order) or a
//! message's payload happens to hold bytes that look like records. When a
//! commit record itself is damaged, the next transaction's commit record
//! (whose start names a record boundary past the damage, and whose CRC and
//! turn check out from there) still ends a transaction: the one before it
//! is reported lost, it and the later ones are kept.
//!
//! A session's name is at most [`MAX_NAME`] bytes.
//!
//! A reader that follows the journal (a standby, a database store) applies
//! the records of a transaction, in order, when it reads the transaction's
//! commit record; its position is the turn of the last commit it applied and
//! the offset where that commit record ends. Turns go on across compactions
//! and offsets do not: a compacted journal is a new file (renamed over the
//! old one) whose header's `base_turn` says from which turn it starts, and a
//! reader whose position is not past it starts over from that file's first
//! transaction ([`JournalFollower`](crate::JournalFollower) does this).

use crate::MAX_MESSAGE_LEN;

pub(crate) const FILE_MAGIC: [u8; 8] = *b"PGRNENG1";
pub(crate) const FILE_HEADER_LEN: u64 = 32;
const FILE_HEADER_CRC_AT: usize = 24;

pub(crate) const RECORD_MAGIC: u32 = u32::from_le_bytes(*b"PGJR");
pub(crate) const HEADER_LEN: usize = 20;
/// The largest payload a record may have (a message and its sequence number).
pub(crate) const MAX_PAYLOAD: usize = MAX_MESSAGE_LEN + 8;
/// The longest session name the journal takes (a SessionID with CompIDs a
/// template may take from the wire: bounded so that a record is always read
/// back).
pub const MAX_NAME: usize = 1024;
/// A commit record's payload: turn, start, the transaction's CRC, zero.
pub(crate) const COMMIT_LEN: usize = 24;

/// What a record is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Session = 1,
    Message = 2,
    Numbers = 3,
    Reset = 4,
    Commit = 5,
}

impl Kind {
    fn from_u8(b: u8) -> Option<Kind> {
        Some(match b {
            1 => Kind::Session,
            2 => Kind::Message,
            3 => Kind::Numbers,
            4 => Kind::Reset,
            5 => Kind::Commit,
            _ => return None,
        })
    }
}

pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

/// The file header of a journal made at `creation_time` that starts after
/// turn `base_turn` (0: made empty).
pub(crate) fn file_header(creation_time: i64, base_turn: u64) -> [u8; FILE_HEADER_LEN as usize] {
    let mut h = [0u8; FILE_HEADER_LEN as usize];
    h[..8].copy_from_slice(&FILE_MAGIC);
    h[8..16].copy_from_slice(&creation_time.to_le_bytes());
    h[16..24].copy_from_slice(&base_turn.to_le_bytes());
    let crc = crc32fast::hash(&h[..FILE_HEADER_CRC_AT]);
    h[FILE_HEADER_CRC_AT..FILE_HEADER_CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
    h
}

/// The creation time and base turn a file header holds; `None` if `h` is
/// not one.
pub(crate) fn parse_file_header(h: &[u8]) -> Option<(i64, u64)> {
    if h.len() < FILE_HEADER_LEN as usize
        || h[..8] != FILE_MAGIC
        || crc32fast::hash(&h[..FILE_HEADER_CRC_AT]) != u32_at(h, FILE_HEADER_CRC_AT)
    {
        return None;
    }
    Some((u64_at(h, 8) as i64, u64_at(h, 16)))
}

/// A commit record's payload.
pub(crate) fn commit_payload(turn: u64, start: u64, crc: u32) -> [u8; COMMIT_LEN] {
    let mut p = [0u8; COMMIT_LEN];
    p[..8].copy_from_slice(&turn.to_le_bytes());
    p[8..16].copy_from_slice(&start.to_le_bytes());
    p[16..20].copy_from_slice(&crc.to_le_bytes());
    p
}

/// A commit record's turn, start and transaction CRC.
pub(crate) fn parse_commit(payload: &[u8]) -> (u64, u64, u32) {
    (u64_at(payload, 0), u64_at(payload, 8), u32_at(payload, 16))
}

/// Appends one record to `out`: its header, then the payload's parts in
/// order (written once, no intermediate buffer).
pub(crate) fn append(out: &mut Vec<u8>, kind: Kind, session: u32, parts: &[&[u8]]) {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    let at = out.len();
    out.extend_from_slice(&RECORD_MAGIC.to_le_bytes());
    out.extend_from_slice(&(len as u32).to_le_bytes());
    out.extend_from_slice(&session.to_le_bytes());
    out.extend_from_slice(&[kind as u8, 0, 0, 0]);
    let mut crc = crc32fast::Hasher::new();
    crc.update(&out[at + 4..at + 16]);
    for p in parts {
        crc.update(p);
    }
    out.extend_from_slice(&crc.finalize().to_le_bytes());
    for p in parts {
        out.extend_from_slice(p);
    }
}

/// A record's header, checked as far as the header alone can be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) len: usize,
    pub(crate) session: u32,
    pub(crate) kind: Kind,
    crc: u32,
}

impl Header {
    /// The header at the start of `b`; `None` if it is not a plausible one
    /// (magic, kind, length within bounds).
    pub(crate) fn parse(b: &[u8]) -> Option<Header> {
        if b.len() < HEADER_LEN || u32_at(b, 0) != RECORD_MAGIC || b[13..16] != [0, 0, 0] {
            return None;
        }
        let len = u32_at(b, 4) as usize;
        let kind = Kind::from_u8(b[12])?;
        let fits = match kind {
            Kind::Session => (8..=8 + MAX_NAME).contains(&len),
            Kind::Message => (8..=MAX_PAYLOAD).contains(&len),
            Kind::Numbers => len == 16,
            Kind::Reset => len == 8,
            Kind::Commit => len == COMMIT_LEN,
        };
        if !fits {
            return None;
        }
        Some(Header {
            len,
            session: u32_at(b, 8),
            kind,
            crc: u32_at(b, 16),
        })
    }

    /// Whether `record` (this header's bytes followed by its payload) is
    /// whole: its CRC matches.
    pub(crate) fn verifies(&self, record: &[u8]) -> bool {
        if record.len() < HEADER_LEN + self.len {
            return false;
        }
        let mut crc = crc32fast::Hasher::new();
        crc.update(&record[4..16]);
        crc.update(&record[HEADER_LEN..HEADER_LEN + self.len]);
        crc.finalize() == self.crc
    }

    /// The whole record's length.
    pub(crate) fn record_len(&self) -> usize {
        HEADER_LEN + self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_and_a_flipped_bit_fails_its_crc() {
        let mut out = Vec::new();
        append(
            &mut out,
            Kind::Message,
            7,
            &[&42u64.to_le_bytes(), b"8=FIX.4.4"],
        );
        let h = Header::parse(&out).unwrap();
        assert_eq!((h.kind, h.session, h.len), (Kind::Message, 7, 17));
        assert!(h.verifies(&out));
        for i in 0..out.len() {
            let mut bad = out.clone();
            bad[i] ^= 1;
            let ok = Header::parse(&bad).is_some_and(|h| h.verifies(&bad));
            assert!(!ok, "a flip at byte {i} went unseen");
        }
    }

    #[test]
    fn the_file_header_round_trips() {
        let h = file_header(-5, 7);
        assert_eq!(parse_file_header(&h), Some((-5, 7)));
        let mut bad = h;
        bad[9] ^= 1;
        assert_eq!(parse_file_header(&bad), None);
    }
}

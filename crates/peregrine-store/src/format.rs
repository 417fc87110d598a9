//! On-disk formats of the [`FileStore`](crate::FileStore). All integers are
//! little-endian.
//!
//! # Journal (`messages.journal`), format 2
//!
//! The journal is the store's source of truth: the outgoing messages and,
//! after each group of changes, a commit record with the sequence numbers.
//!
//! ```text
//! file header, 32 bytes:
//!   0..8    magic          b"PGRNJRN2"
//!   8..16   epoch          u64  (changes on every reset)
//!   16..24  creation_time  i64  nanoseconds since the Unix epoch, UTC
//!   24..28  crc32          u32  CRC-32 (IEEE) of bytes 0..24
//!   28..32  zero padding
//! then records, back to back, of two kinds:
//! message record, 20 bytes + payload:
//!   0..4    magic    u32   b"PGER"
//!   4..8    len      u32   payload length (<= MAX_MESSAGE_LEN)
//!   8..16   seq      u64   MsgSeqNum of the message
//!   16..20  crc32    u32   CRC-32 of bytes 4..16 followed by the payload
//!   20..    payload  len bytes: the message exactly as given to `store`
//! commit record, 24 bytes:
//!   0..4    magic        u32  b"PGEC"
//!   4..12   next_sender  u64
//!   12..20  next_target  u64
//!   20..24  crc32        u32  CRC-32 of bytes 4..20
//! ```
//!
//! After the last record the file may hold zeros: space written ahead of
//! the end (`settle`, up to 64 KiB) so that appends land on pages that
//! exist. Recovery keeps a tail of zeros after the last commit as that space
//! (nothing to report) and cuts off anything else there.
//!
//! A commit record makes the message records written since the previous one
//! part of the store, together with its sequence numbers: recovery keeps
//! exactly the committed transactions. Message records after the last commit
//! record belong to a transaction that was never committed (nothing in it
//! was acknowledged, so nothing of it was sent) and are cut off.
//!
//! Format 1 (`b"PGRNJRN1"`, a 16-byte header with the epoch only, message
//! records only, sequence numbers in the `seqnums` file) is read once and
//! rewritten as format 2.
//!
//! # Sequence-number witness (`seqnums`)
//!
//! Two 64-byte slots at offsets 0 and 64, written after every commit (by
//! `settle`, once the commit's messages have left, else before the next
//! commit or fsync; fsynced with the journal's fsyncs, never before them). Each update writes
//! the slot *not* holding the newest state (`generation % 2`) in place with
//! one positioned write; open takes the valid slot with the highest
//! generation, so a torn slot write leaves the previous state intact. In
//! format 2 the slot is a witness: a journal that ends before the witness's
//! `journal_end` has lost acknowledged data, which recovery reports. A
//! journal that reaches it holds that commit or later ones, and the numbers
//! of its last commit are the store's, also when they are below the
//! witness's (a later commit lowered one and its slot was torn). (In format 1
//! the slot held the sequence numbers.)
//!
//! ```text
//!   0..4    magic          u32  0x5145_5350 (b"PSEQ")
//!   4..8    version        u32  2 (1: the format-1 store)
//!   8..16   generation     u64  incremented on every write
//!   16..24  epoch          u64  incremented on every reset
//!   24..32  next_sender    u64
//!   32..40  next_target    u64
//!   40..48  creation_time  i64  nanoseconds since the Unix epoch, UTC
//!   48..56  journal_end    u64  where the last commit record ends
//!   56..60  crc32          u32  CRC-32 of bytes 0..56
//!   60..64  zero padding
//! ```

/// Magic of a format-1 journal (read once, then rewritten as format 2).
pub(crate) const JOURNAL_MAGIC_V1: [u8; 8] = *b"PGRNJRN1";
pub(crate) const JOURNAL_HEADER_LEN_V1: u64 = 16;
pub(crate) const JOURNAL_MAGIC: [u8; 8] = *b"PGRNJRN2";
pub(crate) const JOURNAL_HEADER_LEN: u64 = 32;
const JOURNAL_HEADER_CRC_AT: usize = 24;

pub(crate) const RECORD_MAGIC: u32 = u32::from_le_bytes(*b"PGER");
pub(crate) const RECORD_HEADER_LEN: usize = 20;

pub(crate) const COMMIT_MAGIC: u32 = u32::from_le_bytes(*b"PGEC");
pub(crate) const COMMIT_LEN: usize = 24;

pub(crate) const SLOT_MAGIC: u32 = u32::from_le_bytes(*b"PSEQ");
pub(crate) const SLOT_VERSION: u32 = 2;
pub(crate) const SLOT_VERSION_V1: u32 = 1;
pub(crate) const SLOT_LEN: usize = 64;
const SLOT_CRC_AT: usize = 56;

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// The header of a format-2 journal.
pub(crate) fn journal_header(epoch: u64, creation_time: i64) -> [u8; JOURNAL_HEADER_LEN as usize] {
    let mut h = [0u8; JOURNAL_HEADER_LEN as usize];
    h[..8].copy_from_slice(&JOURNAL_MAGIC);
    h[8..16].copy_from_slice(&epoch.to_le_bytes());
    h[16..24].copy_from_slice(&creation_time.to_le_bytes());
    let crc = crc32fast::hash(&h[..JOURNAL_HEADER_CRC_AT]);
    h[JOURNAL_HEADER_CRC_AT..JOURNAL_HEADER_CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
    h
}

/// What the first bytes of a journal say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JournalHeader {
    /// Format 2: epoch and creation time.
    V2 { epoch: u64, creation_time: i64 },
    /// Format 1: epoch only (the rest is in the seqnums file).
    V1 { epoch: u64 },
}

/// Parses a journal header; `None` if `h` is not one (wrong magic, a
/// format-2 header failing its CRC, or too short).
pub(crate) fn parse_journal_header(h: &[u8]) -> Option<JournalHeader> {
    if h.len() >= JOURNAL_HEADER_LEN_V1 as usize && h[..8] == JOURNAL_MAGIC_V1 {
        return Some(JournalHeader::V1 {
            epoch: u64_at(h, 8),
        });
    }
    if h.len() < JOURNAL_HEADER_LEN as usize
        || h[..8] != JOURNAL_MAGIC
        || crc32fast::hash(&h[..JOURNAL_HEADER_CRC_AT]) != u32_at(h, JOURNAL_HEADER_CRC_AT)
    {
        return None;
    }
    Some(JournalHeader::V2 {
        epoch: u64_at(h, 8),
        creation_time: u64_at(h, 16) as i64,
    })
}

/// Appends a commit record with these sequence numbers to `buf`.
pub(crate) fn encode_commit(buf: &mut Vec<u8>, next_sender: u64, next_target: u64) {
    let mut c = [0u8; COMMIT_LEN];
    c[0..4].copy_from_slice(&COMMIT_MAGIC.to_le_bytes());
    c[4..12].copy_from_slice(&next_sender.to_le_bytes());
    c[12..20].copy_from_slice(&next_target.to_le_bytes());
    let crc = crc32fast::hash(&c[4..20]);
    c[20..24].copy_from_slice(&crc.to_le_bytes());
    buf.extend_from_slice(&c);
}

/// The sequence numbers of a commit record at the start of `c`, if it is a
/// valid one.
pub(crate) fn parse_commit(c: &[u8]) -> Option<(u64, u64)> {
    if c.len() < COMMIT_LEN
        || u32_at(c, 0) != COMMIT_MAGIC
        || crc32fast::hash(&c[4..20]) != u32_at(c, 20)
    {
        return None;
    }
    let (sender, target) = (u64_at(c, 4), u64_at(c, 12));
    if sender == 0 || target == 0 {
        return None;
    }
    Some((sender, target))
}

/// Appends one record (header and payload) to `buf`.
pub(crate) fn encode_record(buf: &mut Vec<u8>, seq: u64, payload: &[u8]) {
    let len = payload.len() as u32;
    let mut h = [0u8; RECORD_HEADER_LEN];
    h[0..4].copy_from_slice(&RECORD_MAGIC.to_le_bytes());
    h[4..8].copy_from_slice(&len.to_le_bytes());
    h[8..16].copy_from_slice(&seq.to_le_bytes());
    let crc = record_crc(&h[4..16], payload);
    h[16..20].copy_from_slice(&crc.to_le_bytes());
    buf.extend_from_slice(&h);
    buf.extend_from_slice(payload);
}

fn record_crc(len_and_seq: &[u8], payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(len_and_seq);
    hasher.update(payload);
    hasher.finalize()
}

/// A record header that passed its structural checks (the CRC still needs
/// the payload).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RecordHeader {
    pub(crate) len: u32,
    pub(crate) seq: u64,
    pub(crate) crc: u32,
}

/// Parses the first [`RECORD_HEADER_LEN`] bytes of `h`; `None` if the magic,
/// the length limit or the sequence number is wrong.
pub(crate) fn parse_record_header(h: &[u8]) -> Option<RecordHeader> {
    if h.len() < RECORD_HEADER_LEN || u32_at(h, 0) != RECORD_MAGIC {
        return None;
    }
    let len = u32_at(h, 4);
    let seq = u64_at(h, 8);
    if len as usize > crate::MAX_MESSAGE_LEN || seq == 0 || seq == u64::MAX {
        return None;
    }
    Some(RecordHeader {
        len,
        seq,
        crc: u32_at(h, 16),
    })
}

/// Whether `payload` matches the CRC in the header bytes `h`.
pub(crate) fn record_crc_ok(h: &[u8], header: &RecordHeader, payload: &[u8]) -> bool {
    record_crc(&h[4..16], payload) == header.crc
}

/// The durable session state held in one seqnums slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SeqState {
    /// [`SLOT_VERSION`] when written; a slot read from disk may be format 1's.
    pub(crate) version: u32,
    pub(crate) generation: u64,
    pub(crate) epoch: u64,
    pub(crate) next_sender: u64,
    pub(crate) next_target: u64,
    pub(crate) creation_time: i64,
    pub(crate) journal_end: u64,
}

impl SeqState {
    /// Offset of the slot this state is written to.
    pub(crate) fn slot_offset(&self) -> u64 {
        (self.generation % 2) * SLOT_LEN as u64
    }

    pub(crate) fn encode(&self) -> [u8; SLOT_LEN] {
        let mut s = [0u8; SLOT_LEN];
        s[0..4].copy_from_slice(&SLOT_MAGIC.to_le_bytes());
        s[4..8].copy_from_slice(&self.version.to_le_bytes());
        s[8..16].copy_from_slice(&self.generation.to_le_bytes());
        s[16..24].copy_from_slice(&self.epoch.to_le_bytes());
        s[24..32].copy_from_slice(&self.next_sender.to_le_bytes());
        s[32..40].copy_from_slice(&self.next_target.to_le_bytes());
        s[40..48].copy_from_slice(&self.creation_time.to_le_bytes());
        s[48..56].copy_from_slice(&self.journal_end.to_le_bytes());
        let crc = crc32fast::hash(&s[..SLOT_CRC_AT]);
        s[SLOT_CRC_AT..SLOT_CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
        s
    }

    /// Decodes one slot; `None` if it is torn, zeroed or foreign.
    pub(crate) fn decode(s: &[u8]) -> Option<SeqState> {
        if s.len() < SLOT_LEN
            || u32_at(s, 0) != SLOT_MAGIC
            || !matches!(u32_at(s, 4), SLOT_VERSION | SLOT_VERSION_V1)
            || crc32fast::hash(&s[..SLOT_CRC_AT]) != u32_at(s, SLOT_CRC_AT)
        {
            return None;
        }
        let state = SeqState {
            version: u32_at(s, 4),
            generation: u64_at(s, 8),
            epoch: u64_at(s, 16),
            next_sender: u64_at(s, 24),
            next_target: u64_at(s, 32),
            creation_time: u64_at(s, 40) as i64,
            journal_end: u64_at(s, 48),
        };
        if state.next_sender == 0 || state.next_target == 0 {
            return None;
        }
        Some(state)
    }

    /// The newest valid state among the two slots of a seqnums file.
    pub(crate) fn decode_file(bytes: &[u8]) -> Option<SeqState> {
        let a = bytes.get(..SLOT_LEN).and_then(SeqState::decode);
        let b = bytes.get(SLOT_LEN..2 * SLOT_LEN).and_then(SeqState::decode);
        match (a, b) {
            (Some(a), Some(b)) => Some(if b.generation > a.generation { b } else { a }),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_roundtrip_and_crc() {
        let mut buf = Vec::new();
        encode_record(&mut buf, 42, b"8=FIX.4.4\x01");
        assert_eq!(buf.len(), RECORD_HEADER_LEN + 10);
        let h = parse_record_header(&buf).unwrap();
        assert_eq!((h.len, h.seq), (10, 42));
        assert!(record_crc_ok(&buf, &h, &buf[RECORD_HEADER_LEN..]));
        let mut bad = buf.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(!record_crc_ok(&bad, &h, &bad[RECORD_HEADER_LEN..]));
        // seq is covered by the CRC too
        let mut bad = buf.clone();
        bad[8] ^= 1;
        let h2 = parse_record_header(&bad).unwrap();
        assert!(!record_crc_ok(&bad, &h2, &bad[RECORD_HEADER_LEN..]));
        bad[0] = 0;
        assert!(parse_record_header(&bad).is_none());
    }

    #[test]
    fn slots_pick_newest_valid() {
        let s1 = SeqState {
            version: SLOT_VERSION,
            generation: 1,
            epoch: 3,
            next_sender: 10,
            next_target: 20,
            creation_time: -5,
            journal_end: 99,
        };
        let s2 = SeqState {
            generation: 2,
            next_sender: 11,
            ..s1
        };
        assert_eq!(SeqState::decode(&s1.encode()), Some(s1));
        let mut file = [0u8; 2 * SLOT_LEN];
        file[s1.slot_offset() as usize..][..SLOT_LEN].copy_from_slice(&s1.encode());
        assert_eq!(SeqState::decode_file(&file), Some(s1));
        file[s2.slot_offset() as usize..][..SLOT_LEN].copy_from_slice(&s2.encode());
        assert_eq!(SeqState::decode_file(&file), Some(s2));
        // tear the newest slot: the older one wins
        file[s2.slot_offset() as usize + 30] ^= 0xff;
        assert_eq!(SeqState::decode_file(&file), Some(s1));
        assert_eq!(SeqState::decode_file(&[0u8; 10]), None);
    }

    #[test]
    fn journal_header_roundtrip() {
        let h = journal_header(7, -3);
        assert_eq!(
            parse_journal_header(&h),
            Some(JournalHeader::V2 {
                epoch: 7,
                creation_time: -3
            })
        );
        let mut bad = h;
        bad[17] ^= 1;
        assert_eq!(
            parse_journal_header(&bad),
            None,
            "creation time under the CRC"
        );
        let mut v1 = [0u8; 16];
        v1[..8].copy_from_slice(b"PGRNJRN1");
        v1[8] = 5;
        assert_eq!(
            parse_journal_header(&v1),
            Some(JournalHeader::V1 { epoch: 5 })
        );
        assert_eq!(parse_journal_header(b"short"), None);
        assert_eq!(parse_journal_header(&[0u8; 32]), None);
    }

    #[test]
    fn commit_roundtrip() {
        let mut buf = Vec::new();
        encode_commit(&mut buf, 12, 34);
        assert_eq!(buf.len(), COMMIT_LEN);
        assert_eq!(parse_commit(&buf), Some((12, 34)));
        for i in 0..COMMIT_LEN {
            let mut bad = buf.clone();
            bad[i] ^= 0x04;
            assert_eq!(parse_commit(&bad), None, "byte {i}");
        }
        let mut zero = Vec::new();
        encode_commit(&mut zero, 0, 1);
        assert_eq!(parse_commit(&zero), None);
    }
}

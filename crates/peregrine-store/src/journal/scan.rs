//! Reading an engine journal back: every committed transaction, of every
//! session, applied in order; an uncommitted tail cut off; damage in the
//! middle reported per record, the intact records after it kept.

use std::collections::HashMap;
use std::io;

use crate::index::{Index, Location};
use crate::recover::{Loss, LossKind, Window};

use super::format::{
    parse_commit, u64_at, Header, Kind, FILE_HEADER_LEN, HEADER_LEN, RECORD_MAGIC,
};

/// A session's state as the committed transactions leave it.
#[derive(Debug)]
pub(crate) struct SessionState {
    pub(crate) name: String,
    pub(crate) creation_time: i64,
    pub(crate) next_sender: u64,
    pub(crate) next_target: u64,
    /// Its messages' records, in sequence order; a sequence number stored
    /// again keeps the newest.
    pub(crate) messages: Index,
}

impl SessionState {
    pub(crate) fn new(name: String, creation_time: i64) -> Self {
        SessionState {
            name,
            creation_time,
            next_sender: 1,
            next_target: 1,
            messages: Index::default(),
        }
    }
}

/// One change of a transaction, applied when its commit record is read.
enum Op {
    Session {
        no: u32,
        name: String,
        creation_time: i64,
    },
    Message {
        no: u32,
        at: Location,
    },
    Numbers {
        no: u32,
        next_sender: u64,
        next_target: u64,
    },
    Reset {
        no: u32,
        creation_time: i64,
    },
}

/// What a scan found.
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    /// By session number - 1.
    pub(crate) sessions: Vec<SessionState>,
    /// Where the last commit record ends (the file header's end if none).
    pub(crate) committed_end: u64,
    /// The last commit's turn (0: none).
    pub(crate) turn: u64,
    /// Bytes after the last commit that are not zeros.
    pub(crate) uncommitted_bytes: u64,
    /// Damage inside the committed journal.
    pub(crate) losses: Vec<Loss>,
    /// Records whose session number names no session (counted, skipped).
    pub(crate) orphans: u64,
}

/// The valid record at `offset`: its header, if its CRC matches.
pub(super) fn record_at(w: &mut Window<'_>, offset: u64) -> io::Result<Option<Header>> {
    let Some(h) = w.get(offset, HEADER_LEN)? else {
        return Ok(None);
    };
    let Some(h) = Header::parse(h) else {
        return Ok(None);
    };
    let Some(rec) = w.get(offset, h.record_len())? else {
        return Ok(None);
    };
    Ok(h.verifies(rec).then_some(h))
}

/// The offset of the next valid record after `from`, if any.
fn resync(w: &mut Window<'_>, from: u64) -> io::Result<Option<u64>> {
    let magic = RECORD_MAGIC.to_le_bytes();
    let mut at = from;
    while at + HEADER_LEN as u64 <= w.file_len() {
        let chunk = (w.file_len() - at).min(64 * 1024) as usize;
        let found: Vec<u64> = match w.get(at, chunk)? {
            None => return Ok(None),
            Some(bytes) => bytes
                .windows(4)
                .enumerate()
                .filter(|(_, m)| *m == magic)
                .map(|(i, _)| at + i as u64)
                .collect(),
        };
        for candidate in found {
            if record_at(w, candidate)?.is_some() {
                return Ok(Some(candidate));
            }
        }
        if chunk < 4 {
            break;
        }
        at += chunk as u64 - 3;
    }
    Ok(None)
}

/// The CRC of the bytes from `from` to `to`, read in pieces; `None` past
/// the end of the file.
pub(super) fn crc_of(w: &mut Window<'_>, from: u64, to: u64) -> io::Result<Option<u32>> {
    let mut crc = crc32fast::Hasher::new();
    let mut at = from;
    while at < to {
        let n = (to - at).min(64 * 1024) as usize;
        let Some(b) = w.get(at, n)? else {
            return Ok(None);
        };
        crc.update(b);
        at += n as u64;
    }
    Ok(Some(crc.finalize()))
}

/// Whether the bytes from `from` to the end of the file are all zeros (space
/// written ahead, not data).
fn zeros_from(w: &mut Window<'_>, from: u64) -> io::Result<u64> {
    let mut last_non_zero = None;
    let mut at = from;
    while at < w.file_len() {
        let n = (w.file_len() - at).min(64 * 1024) as usize;
        if let Some(b) = w.get(at, n)? {
            if let Some(i) = b.iter().rposition(|&x| x != 0) {
                last_non_zero = Some(at + i as u64);
            }
        }
        at += n as u64;
    }
    Ok(last_non_zero.map_or(0, |i| i + 1 - from))
}

/// Reads the records after the file header: a transaction is applied when
/// its commit record checks out (format.rs): its start, its turn and the
/// CRC over all of its bytes.
pub(crate) fn scan(w: &mut Window<'_>) -> io::Result<Scanned> {
    let mut out = Scanned {
        committed_end: FILE_HEADER_LEN,
        ..Scanned::default()
    };
    let mut names: HashMap<String, u32> = HashMap::new();
    let mut ops: Vec<Op> = Vec::new();
    let mut at = FILE_HEADER_LEN;
    // The transaction being read: where it starts, the CRC of its bytes so
    // far, and whether bytes of it were no valid record.
    let mut txn_start = at;
    let mut txn_crc = crc32fast::Hasher::new();
    let mut txn_damaged = false;
    // The turn the next commit must carry (the first may carry any: a
    // compacted journal goes on from the turn of the one it replaced).
    let mut next_turn: Option<u64> = None;
    // A transaction whose commit record is there but which does not check
    // out: damage if a good transaction follows it, else the torn tail of
    // the last write (a crash that wrote its pages out of order).
    let mut suspect: Option<(u64, u64)> = None;
    // Where each record of the transaction being read begins, with the
    // number of its changes before it: a commit record found damaged makes
    // the next transaction look like more of this one, and its own commit
    // record (whose start is one of these) splits them again.
    let mut marks: Vec<(u64, usize)> = Vec::new();
    loop {
        let Some(h) = record_at(w, at)? else {
            match resync(w, at)? {
                Some(next) => {
                    txn_damaged = true;
                    at = next;
                    continue;
                }
                None => break,
            }
        };
        let record = w.get(at, h.record_len())?.expect("verified record");
        if h.kind == Kind::Commit {
            let (turn, start, crc) = parse_commit(&record[HEADER_LEN..]);
            let end = at + h.record_len() as u64;
            let follows = next_turn.is_none_or(|t| turn > t);
            if let (true, Ok(i)) = (follows, marks.binary_search_by_key(&start, |m| m.0)) {
                if start > txn_start && crc_of(w, start, at)? == Some(crc) {
                    // The previous transaction's commit record was damaged:
                    // it is lost (a good one follows), this one is whole.
                    let lost = suspect.take().map_or(txn_start, |(o, _)| o);
                    out.losses.push(Loss {
                        kind: LossKind::Corrupted,
                        offset: lost,
                        len: start - lost,
                        seqs: None,
                    });
                    ops.drain(..marks[i].1);
                    apply(&mut out, &mut names, ops.drain(..));
                    out.turn = turn;
                    out.committed_end = end;
                    next_turn = Some(turn + 1);
                    at = end;
                    txn_start = end;
                    txn_crc = crc32fast::Hasher::new();
                    txn_damaged = false;
                    marks.clear();
                    continue;
                }
            }
        }
        let record = w.get(at, h.record_len())?.expect("verified record");
        let payload = &record[HEADER_LEN..];
        if h.kind == Kind::Commit {
            let (turn, start, crc) = parse_commit(payload);
            let end = at + h.record_len() as u64;
            if start == txn_start {
                let in_turn = next_turn.is_none_or(|t| t == turn);
                if !txn_damaged && in_turn && crc == txn_crc.clone().finalize() {
                    apply(&mut out, &mut names, ops.drain(..));
                    if let Some((offset, until)) = suspect.take() {
                        out.losses.push(Loss {
                            kind: LossKind::Corrupted,
                            offset,
                            len: until - offset,
                            seqs: None,
                        });
                    }
                    out.turn = turn;
                    out.committed_end = end;
                } else {
                    ops.clear();
                    suspect = Some((suspect.map_or(txn_start, |(o, _)| o), end));
                }
                next_turn = Some(turn + 1);
                at = end;
                txn_start = end;
                txn_crc = crc32fast::Hasher::new();
                txn_damaged = false;
                marks.clear();
                continue;
            }
            // Not this transaction's commit (bytes inside a message that
            // look like one): part of the transaction's bytes.
        }
        marks.push((at, ops.len()));
        txn_crc.update(record);
        match h.kind {
            Kind::Session => {
                let creation_time = u64_at(payload, 0) as i64;
                let name = String::from_utf8_lossy(&payload[8..]).into_owned();
                ops.push(Op::Session {
                    no: h.session,
                    name,
                    creation_time,
                });
            }
            Kind::Message => ops.push(Op::Message {
                no: h.session,
                at: Location {
                    seq: u64_at(payload, 0),
                    offset: at,
                    len: (h.len - 8) as u32,
                },
            }),
            Kind::Numbers => ops.push(Op::Numbers {
                no: h.session,
                next_sender: u64_at(payload, 0),
                next_target: u64_at(payload, 8),
            }),
            Kind::Reset => ops.push(Op::Reset {
                no: h.session,
                creation_time: u64_at(payload, 0) as i64,
            }),
            Kind::Commit => {}
        }
        at += h.record_len() as u64;
    }
    out.uncommitted_bytes = zeros_from(w, out.committed_end)?;
    if out.orphans > 0 {
        // Records of a committed transaction naming no session: what they
        // held is not known, and is not silently dropped.
        out.losses.push(Loss {
            kind: LossKind::Corrupted,
            offset: 0,
            len: 0,
            seqs: None,
        });
    }
    Ok(out)
}

/// Applies one committed transaction's changes.
fn apply(out: &mut Scanned, names: &mut HashMap<String, u32>, ops: impl Iterator<Item = Op>) {
    // Messages stored after their session's last numbers record in this
    // transaction: the next sender number is past them.
    let mut past: Vec<(u32, u64)> = Vec::new();
    for op in ops {
        let no = match &op {
            Op::Session { no, .. }
            | Op::Message { no, .. }
            | Op::Numbers { no, .. }
            | Op::Reset { no, .. } => *no,
        };
        if let Op::Session {
            no,
            name,
            creation_time,
        } = op
        {
            // Numbers are given in order; a record out of order is damage
            // that happened to verify, and is skipped.
            if no as usize == out.sessions.len() + 1 && !names.contains_key(&name) {
                names.insert(name.clone(), no);
                out.sessions.push(SessionState::new(name, creation_time));
            } else {
                out.orphans += 1;
            }
            continue;
        }
        let Some(s) = (no as usize)
            .checked_sub(1)
            .and_then(|i| out.sessions.get_mut(i))
        else {
            out.orphans += 1;
            continue;
        };
        match op {
            Op::Session { .. } => {}
            Op::Message { at, .. } => {
                s.messages.insert(at);
                match past.iter_mut().find(|(n, _)| *n == no) {
                    Some((_, seq)) => *seq = (*seq).max(at.seq),
                    None => past.push((no, at.seq)),
                }
            }
            Op::Numbers {
                next_sender,
                next_target,
                ..
            } => {
                s.next_sender = next_sender;
                s.next_target = next_target;
                past.retain(|&(n, _)| n != no);
            }
            Op::Reset { creation_time, .. } => {
                s.messages.clear();
                s.next_sender = 1;
                s.next_target = 1;
                s.creation_time = creation_time;
                past.retain(|&(n, _)| n != no);
            }
        }
    }
    for (no, seq) in past {
        let s = &mut out.sessions[no as usize - 1];
        s.next_sender = s.next_sender.max(seq.saturating_add(1));
    }
}

//! QuickFIX/Go's file store (`store/file`, v0.9), per session in
//! `FileStorePath`, every file named `<prefix>.<kind>` where the prefix is
//! `BeginString-SenderCompID-TargetCompID[-SessionQualifier]` as written
//! (sub and location IDs would follow the CompIDs, joined by `_`; no
//! character is replaced):
//!
//! * `body`: the messages, end to end;
//! * `header`: one text line per message, `seq,offset,size\n`;
//! * `senderseqnums`, `targetseqnums`: the next number as 19 zero-padded
//!   digits (`%019d`), rewritten in place;
//! * `session`: the creation time as Go's `time.MarshalText` writes it
//!   (RFC 3339 with nanoseconds and the zone offset).

use std::collections::BTreeMap;
use std::path::Path;

use super::error::ImportError;
use super::files::{
    index_insert, read_bounded, seq_number, Entry, QuickfixStore, MAX_HEADER_FILE, MAX_SMALL_FILE,
};

/// The file-name prefix QuickFIX/Go gives the session.
pub fn prefix(begin: &str, sender: &str, target: &str, qualifier: Option<&str>) -> String {
    match qualifier {
        Some(q) => format!("{begin}-{sender}-{target}-{q}"),
        None => format!("{begin}-{sender}-{target}"),
    }
}

/// The session's store in `dir`, or `None` when none of its files exists.
///
/// # Errors
///
/// [`ImportError::Io`]; [`ImportError::Malformed`] naming the file and
/// offset of the first thing that is not QuickFIX/Go's format.
pub fn read(dir: &Path, prefix: &str) -> Result<Option<QuickfixStore>, ImportError> {
    let file = |kind: &str| dir.join(format!("{prefix}.{kind}"));
    let (body, header) = (file("body"), file("header"));
    let (sender, target, session) = (
        file("senderseqnums"),
        file("targetseqnums"),
        file("session"),
    );
    if ![&body, &header, &sender, &target, &session]
        .iter()
        .any(|p| p.exists())
    {
        return Ok(None);
    }
    let index = match read_bounded(&header, MAX_HEADER_FILE)? {
        Some(bytes) => parse_header(&header, &bytes)?,
        None => BTreeMap::new(),
    };
    let creation_time = match read_bounded(&session, MAX_SMALL_FILE)? {
        Some(bytes) if !bytes.is_empty() => Some(rfc3339(&session, &bytes)?),
        _ => None,
    };
    Ok(Some(QuickfixStore {
        next_sender: read_seqnum(&sender)?,
        next_target: read_seqnum(&target)?,
        creation_time,
        body,
        header,
        index,
    }))
}

/// The index lines; every line must be whole (ended by `\n`).
fn parse_header(path: &Path, bytes: &[u8]) -> Result<BTreeMap<u64, Entry>, ImportError> {
    let mut index = BTreeMap::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let Some(len) = bytes[at..].iter().position(|&b| b == b'\n') else {
            return Err(ImportError::malformed(
                path,
                at as u64,
                "a last line without its newline (a record cut short)",
            ));
        };
        let line = &bytes[at..at + len];
        let mut parts = line.split(|&b| b == b',');
        let mut number = |what: &str| -> Result<u64, ImportError> {
            let text = parts.next().unwrap_or_default();
            std::str::from_utf8(text)
                .ok()
                .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|t| t.parse().ok())
                .ok_or_else(|| {
                    ImportError::malformed(
                        path,
                        at as u64,
                        format!(
                            "not an index line seq,offset,size (its {what}): {:?}",
                            String::from_utf8_lossy(&line[..line.len().min(60)])
                        ),
                    )
                })
        };
        let (seq, offset, size) = (number("seq")?, number("offset")?, number("size")?);
        if parts.next().is_some() {
            return Err(ImportError::malformed(
                path,
                at as u64,
                "an index line with more than three numbers",
            ));
        }
        let seq = i64::try_from(seq).unwrap_or(i64::MAX);
        index_insert(
            &mut index,
            path,
            seq,
            Entry {
                offset,
                size,
                at: at as u64,
            },
        )?;
        at += len + 1;
    }
    Ok(index)
}

/// A `senderseqnums` or `targetseqnums` file: 1 when absent or empty.
fn read_seqnum(path: &Path) -> Result<u64, ImportError> {
    match read_bounded(path, MAX_SMALL_FILE)? {
        Some(bytes) if !bytes.is_empty() => {
            let end = bytes
                .iter()
                .rposition(|&b| b != b'\r' && b != b'\n')
                .map_or(0, |i| i + 1);
            let start = bytes[..end]
                .iter()
                .position(|&b| b != b'\r' && b != b'\n')
                .unwrap_or(end);
            seq_number(path, start as u64, &bytes[start..end])
        }
        _ => Ok(1),
    }
}

/// RFC 3339 (as Go's `time.Time.MarshalText`), in nanoseconds since the epoch.
fn rfc3339(path: &Path, bytes: &[u8]) -> Result<i64, ImportError> {
    let bad = |why: String| ImportError::malformed(path, 0, why);
    let text = std::str::from_utf8(bytes)
        .map_err(|_| bad("a creation time that is not text".into()))?
        .trim_end_matches(['\r', '\n']);
    let t: jiff::Timestamp = text
        .parse()
        .map_err(|e| bad(format!("not an RFC 3339 creation time: {text:?}: {e}")))?;
    i64::try_from(t.as_nanosecond())
        .map_err(|_| bad(format!("a creation time out of range: {text:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_is_the_ids_as_written() {
        assert_eq!(prefix("FIX.4.4", "GW", "VENUE", None), "FIX.4.4-GW-VENUE");
        assert_eq!(prefix("FIX.4.2", "A B", "C", Some("q")), "FIX.4.2-A B-C-q");
    }

    #[test]
    fn a_store_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let p = "FIX.4.4-GW-VENUE";
        std::fs::write(d.join(format!("{p}.body")), b"onetwothreeTWO!").unwrap();
        std::fs::write(
            d.join(format!("{p}.header")),
            b"1,0,3\n2,3,3\n3,6,5\n2,11,4\n",
        )
        .unwrap();
        std::fs::write(d.join(format!("{p}.senderseqnums")), b"0000000000000000012").unwrap();
        std::fs::write(
            d.join(format!("{p}.targetseqnums")),
            b"0000000000000000007\n",
        )
        .unwrap();
        std::fs::write(
            d.join(format!("{p}.session")),
            b"2024-01-15T11:30:00.123456789+01:00",
        )
        .unwrap();
        let s = read(d, p).unwrap().expect("found");
        assert_eq!((s.next_sender, s.next_target), (12, 7));
        assert_eq!(s.creation_time, Some(1_705_314_600_123_456_789));
        let mut got = Vec::new();
        s.for_each_message(&mut |seq, m| {
            got.push((seq, String::from_utf8(m.to_vec()).unwrap()));
        })
        .unwrap();
        assert_eq!(
            got,
            [(1, "one".into()), (2, "TWO!".into()), (3, "three".into())]
        );
    }

    fn error(files: &[(&str, &[u8])]) -> String {
        let dir = tempfile::tempdir().unwrap();
        for (kind, bytes) in files {
            std::fs::write(dir.path().join(format!("S.{kind}")), bytes).unwrap();
        }
        let e = read(dir.path(), "S").unwrap_err().to_string();
        e.replace(&format!("{}/", dir.path().display()), "")
    }

    #[test]
    fn malformed_files_are_named_with_the_offset() {
        assert_eq!(
            error(&[("header", b"1,0,3\n2,3")]),
            "S.header at byte 6: a last line without its newline (a record cut short)"
        );
        assert_eq!(
            error(&[("header", b"1,0,3\n2,x,3\n")]),
            "S.header at byte 6: not an index line seq,offset,size (its offset): \"2,x,3\""
        );
        assert_eq!(
            error(&[("header", b"1,0,3,4\n")]),
            "S.header at byte 0: an index line with more than three numbers"
        );
        assert_eq!(
            error(&[("header", b"0,0,3\n")]),
            "S.header at byte 0: index record with sequence number 0"
        );
        assert_eq!(
            error(&[("senderseqnums", b"-000000000000000001")]),
            "S.senderseqnums at byte 0: not a sequence number: \"-000000000000000001\""
        );
        let e = error(&[("session", b"20240115-10:30:00")]);
        assert!(
            e.starts_with("S.session at byte 0: not an RFC 3339 creation time"),
            "{e}"
        );
    }
}

//! QuickFIX C++'s `FileStore` (1.15), per session in `FileStorePath`, every
//! file named `<prefix>.<kind>` where the prefix is
//! `BeginString-SenderCompID-TargetCompID[-SessionQualifier]` as written
//! (QuickFIX C++ leaves sub and location IDs out of the name):
//!
//! * `body`: the messages, end to end;
//! * `header`: one record per message, `seq,offset,size` followed by a
//!   space (`"%d,%ld,%lu "`);
//! * `seqnums`: both next numbers, `"%10.10d : %10.10d"` (sender, then
//!   target), rewritten in place;
//! * `session`: the creation time as a UTCTimestamp (`20240115-10:30:00`).

use std::collections::BTreeMap;
use std::path::Path;

use super::error::ImportError;
use super::files::{
    index_insert, read_bounded, seq_number, utc_timestamp, Entry, QuickfixStore, MAX_HEADER_FILE,
    MAX_SMALL_FILE,
};

/// The file-name prefix QuickFIX C++ gives the session.
pub fn prefix(begin: &str, sender: &str, target: &str, qualifier: Option<&str>) -> String {
    super::quickfixgo::prefix(begin, sender, target, qualifier)
}

/// The session's store in `dir`, or `None` when none of its files exists.
///
/// # Errors
///
/// [`ImportError::Io`]; [`ImportError::Malformed`] naming the file and
/// offset of the first thing that is not QuickFIX C++'s format.
pub fn read(dir: &Path, prefix: &str) -> Result<Option<QuickfixStore>, ImportError> {
    let file = |kind: &str| dir.join(format!("{prefix}.{kind}"));
    let (body, header, seqnums, session) = (
        file("body"),
        file("header"),
        file("seqnums"),
        file("session"),
    );
    if ![&body, &header, &seqnums, &session]
        .iter()
        .any(|p| p.exists())
    {
        return Ok(None);
    }
    let index = match read_bounded(&header, MAX_HEADER_FILE)? {
        Some(bytes) => parse_header(&header, &bytes)?,
        None => BTreeMap::new(),
    };
    let (next_sender, next_target) = match read_bounded(&seqnums, MAX_SMALL_FILE)? {
        Some(bytes) if !bytes.is_empty() => parse_seqnums(&seqnums, &bytes)?,
        _ => (1, 1),
    };
    let creation_time = match read_bounded(&session, MAX_SMALL_FILE)? {
        Some(bytes) => {
            let text = bytes.trim_ascii();
            if text.is_empty() {
                None
            } else {
                Some(utc_timestamp(&session, text)?)
            }
        }
        None => None,
    };
    Ok(Some(QuickfixStore {
        next_sender,
        next_target,
        creation_time,
        body,
        header,
        index,
    }))
}

/// The whitespace-separated `seq,offset,size` records.
fn parse_header(path: &Path, bytes: &[u8]) -> Result<BTreeMap<u64, Entry>, ImportError> {
    let mut index = BTreeMap::new();
    let mut at = 0usize;
    loop {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if at == bytes.len() {
            return Ok(index);
        }
        let len = bytes[at..]
            .iter()
            .position(u8::is_ascii_whitespace)
            .unwrap_or(bytes.len() - at);
        let record = &bytes[at..at + len];
        let numbers: Vec<&[u8]> = record.split(|&b| b == b',').collect();
        let parsed: Option<Vec<u64>> = numbers
            .iter()
            .map(|t| {
                std::str::from_utf8(t)
                    .ok()
                    .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|t| t.parse().ok())
            })
            .collect();
        let Some([seq, offset, size]) =
            parsed.as_deref().and_then(|v| <[u64; 3]>::try_from(v).ok())
        else {
            return Err(ImportError::malformed(
                path,
                at as u64,
                format!(
                    "not an index record seq,offset,size: {:?}",
                    String::from_utf8_lossy(&record[..record.len().min(60)])
                ),
            ));
        };
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
        at += len;
    }
}

/// `"0000000012 : 0000000007"`: the next sender and target numbers.
fn parse_seqnums(path: &Path, bytes: &[u8]) -> Result<(u64, u64), ImportError> {
    let Some(colon) = bytes.iter().position(|&b| b == b':') else {
        return Err(ImportError::malformed(
            path,
            0,
            format!(
                "not \"sender : target\": {:?}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(40)])
            ),
        ));
    };
    let (sender, target) = (&bytes[..colon], &bytes[colon + 1..]);
    let start = |part: &[u8], base: usize| {
        base + part
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(0)
    };
    Ok((
        seq_number(path, start(sender, 0) as u64, sender.trim_ascii())?,
        seq_number(path, start(target, colon + 1) as u64, target.trim_ascii())?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let p = "FIX.4.4-GW-VENUE-q";
        assert_eq!(prefix("FIX.4.4", "GW", "VENUE", Some("q")), p);
        std::fs::write(d.join(format!("{p}.body")), b"onetwothreeTWO!").unwrap();
        std::fs::write(d.join(format!("{p}.header")), b"1,0,3 2,3,3 3,6,5 2,11,4 ").unwrap();
        std::fs::write(d.join(format!("{p}.seqnums")), b"0000000012 : 0000000007").unwrap();
        std::fs::write(d.join(format!("{p}.session")), b"20240115-10:30:00").unwrap();
        let s = read(d, p).unwrap().expect("found");
        assert_eq!((s.next_sender, s.next_target), (12, 7));
        assert_eq!(s.creation_time, Some(1_705_314_600_000_000_000));
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
            error(&[("header", b"1,0,3 2,3")]),
            "S.header at byte 6: not an index record seq,offset,size: \"2,3\""
        );
        assert_eq!(
            error(&[("seqnums", b"0000000012 0000000007")]),
            "S.seqnums at byte 0: not \"sender : target\": \"0000000012 0000000007\""
        );
        assert_eq!(
            error(&[("seqnums", b"0000000012 : 00000x0007")]),
            "S.seqnums at byte 13: not a sequence number: \"00000x0007\""
        );
        let e = error(&[("session", b"2024-01-15T10:30:00Z")]);
        assert!(
            e.starts_with("S.session at byte 0: not a creation time"),
            "{e}"
        );
    }
}

//! QuickFIX/J's `FileStore` (as of 2.3.1, `quickfix.FileStore`), per
//! session in `FileStorePath`, every file named `<prefix>.<kind>` where the
//! prefix is `BeginString-SenderCompID-TargetCompID[-SessionQualifier]`
//! (`FileUtil.sessionIdFileName`; sub and location IDs would sit after the
//! CompIDs, joined by `_`) with every character other than `A-Z a-z 0-9 . -`
//! replaced by `_` (one per UTF-16 unit, as Java's `replaceAll`):
//!
//! * `body`: the messages, end to end;
//! * `header`: 16-byte big-endian records (Java's `DataOutputStream`):
//!   `int` sequence number, `long` offset in the body, `int` size;
//! * `senderseqnums`, `targetseqnums`: the next number as Java's `writeUTF`
//!   (a 2-byte big-endian length, then the decimal digits), rewritten in
//!   place from offset 0;
//! * `session`: the creation time as `writeUTF` of a UTCTimestamp with
//!   milliseconds (`20240115-10:30:00.123`).
//!
//! QuickFIX/J's `CachedFileStore` writes the same files but for the numbers:
//! one `seqnums` file, `writeUTF` of `sender:target` (`"23:22"`); read when
//! neither of the two others exists.

use std::collections::BTreeMap;
use std::path::Path;

use super::error::ImportError;
use super::files::{
    index_insert, read_bounded, seq_number, utc_timestamp, Entry, QuickfixStore, MAX_HEADER_FILE,
    MAX_SMALL_FILE,
};

/// One header record's length.
const RECORD: usize = 16;

/// The file-name prefix QuickFIX/J gives the session.
pub fn prefix(begin: &str, sender: &str, target: &str, qualifier: Option<&str>) -> String {
    let mut name = format!("{begin}-{sender}-{target}");
    if let Some(q) = qualifier {
        name.push('-');
        name.push_str(q);
    }
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
            out.push(c);
        } else {
            // Java replaces each UTF-16 unit of a character.
            out.extend(std::iter::repeat('_').take(c.len_utf16()));
        }
    }
    out
}

/// The session's store in `dir`, or `None` when none of its files exists.
///
/// # Errors
///
/// [`ImportError::Io`]; [`ImportError::Malformed`] naming the file and
/// offset of the first thing that is not QuickFIX/J's format.
pub fn read(dir: &Path, prefix: &str) -> Result<Option<QuickfixStore>, ImportError> {
    let file = |kind: &str| dir.join(format!("{prefix}.{kind}"));
    let (body, header) = (file("body"), file("header"));
    let (sender, target, session) = (
        file("senderseqnums"),
        file("targetseqnums"),
        file("session"),
    );
    let cached = file("seqnums");
    if ![&body, &header, &sender, &target, &session, &cached]
        .iter()
        .any(|p| p.exists())
    {
        return Ok(None);
    }
    let index = match read_bounded(&header, MAX_HEADER_FILE)? {
        Some(bytes) => parse_header(&header, &bytes)?,
        None => BTreeMap::new(),
    };
    let (next_sender, next_target) = if !sender.exists() && !target.exists() && cached.exists() {
        read_cached_seqnums(&cached)?
    } else {
        (read_seqnum(&sender)?, read_seqnum(&target)?)
    };
    let creation_time = match read_bounded(&session, MAX_SMALL_FILE)? {
        Some(bytes) if !bytes.is_empty() => {
            let text = java_utf(&session, &bytes)?;
            Some(utc_timestamp(&session, text)?)
        }
        _ => None,
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

/// The index: every complete 16-byte record (a short tail is an error, as
/// QuickFIX/J's `readInt` would fail on it).
fn parse_header(path: &Path, bytes: &[u8]) -> Result<BTreeMap<u64, Entry>, ImportError> {
    let mut index = BTreeMap::new();
    let whole = bytes.len() - bytes.len() % RECORD;
    if whole != bytes.len() {
        return Err(ImportError::malformed(
            path,
            whole as u64,
            format!(
                "{} bytes after the last whole 16-byte record (a record cut short)",
                bytes.len() - whole
            ),
        ));
    }
    for (i, r) in bytes.chunks_exact(RECORD).enumerate() {
        let at = (i * RECORD) as u64;
        let seq = i32::from_be_bytes([r[0], r[1], r[2], r[3]]);
        let offset = i64::from_be_bytes([r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11]]);
        let size = i32::from_be_bytes([r[12], r[13], r[14], r[15]]);
        if offset < 0 || size < 0 {
            return Err(ImportError::malformed(
                path,
                at,
                format!("index record of message {seq} with offset {offset} and size {size}"),
            ));
        }
        let entry = Entry {
            offset: offset as u64,
            size: size as u64,
            at,
        };
        index_insert(&mut index, path, i64::from(seq), entry)?;
    }
    Ok(index)
}

/// A `senderseqnums` or `targetseqnums` file: 1 when absent or empty.
fn read_seqnum(path: &Path) -> Result<u64, ImportError> {
    match read_bounded(path, MAX_SMALL_FILE)? {
        Some(bytes) if !bytes.is_empty() => seq_number(path, 2, java_utf(path, &bytes)?),
        _ => Ok(1),
    }
}

/// `CachedFileStore`'s `seqnums` file, `sender:target`: (1, 1) when empty.
fn read_cached_seqnums(path: &Path) -> Result<(u64, u64), ImportError> {
    let bytes = read_bounded(path, MAX_SMALL_FILE)?.unwrap_or_default();
    if bytes.is_empty() {
        return Ok((1, 1));
    }
    let text = java_utf(path, &bytes)?;
    let Some(colon) = text.iter().position(|&b| b == b':') else {
        return Err(ImportError::malformed(
            path,
            2,
            format!(
                "not \"sender:target\": {:?}",
                String::from_utf8_lossy(&text[..text.len().min(40)])
            ),
        ));
    };
    Ok((
        seq_number(path, 2, &text[..colon])?,
        seq_number(path, 3 + colon as u64, &text[colon + 1..])?,
    ))
}

/// The string of Java's `writeUTF` at the start of `bytes` (anything after it
/// is a longer number written earlier, which QuickFIX/J ignores too).
fn java_utf<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a [u8], ImportError> {
    if bytes.len() < 2 {
        return Err(ImportError::malformed(
            path,
            0,
            "shorter than the 2-byte length of Java's writeUTF",
        ));
    }
    let len = usize::from(u16::from_be_bytes([bytes[0], bytes[1]]));
    bytes.get(2..2 + len).ok_or_else(|| {
        ImportError::malformed(
            path,
            0,
            format!(
                "writeUTF length {len} but only {} bytes follow",
                bytes.len() - 2
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf(s: &str) -> Vec<u8> {
        let mut v = (s.len() as u16).to_be_bytes().to_vec();
        v.extend_from_slice(s.as_bytes());
        v
    }

    fn record(seq: i32, offset: i64, size: i32) -> Vec<u8> {
        let mut v = seq.to_be_bytes().to_vec();
        v.extend_from_slice(&offset.to_be_bytes());
        v.extend_from_slice(&size.to_be_bytes());
        v
    }

    #[test]
    fn the_prefix_replaces_what_java_replaces() {
        assert_eq!(prefix("FIX.4.4", "GW", "VENUE", None), "FIX.4.4-GW-VENUE");
        assert_eq!(
            prefix("FIXT.1.1", "A B", "C/D", Some("q1")),
            "FIXT.1.1-A_B-C_D-q1"
        );
        // U+1F600 is two UTF-16 units: two underscores, as Java writes.
        assert_eq!(prefix("FIX.4.4", "é", "\u{1F600}", None), "FIX.4.4-_-__");
    }

    #[test]
    fn a_store_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let p = "FIX.4.4-GW-VENUE";
        let (m1, m2, m3) = (&b"8=FIX.4.4\x01one"[..], &b"two"[..], &b"three!"[..]);
        let mut body = Vec::new();
        let mut header = Vec::new();
        for (seq, m) in [(1, m1), (2, m2), (3, m3)] {
            header.extend(record(seq, body.len() as i64, m.len() as i32));
            body.extend_from_slice(m);
        }
        // Seq 2 stored again (a later record wins).
        header.extend(record(2, body.len() as i64, 4));
        body.extend_from_slice(b"TWO!");
        std::fs::write(d.join(format!("{p}.body")), &body).unwrap();
        std::fs::write(d.join(format!("{p}.header")), &header).unwrap();
        // A shorter number over a longer one: the length prefix decides.
        let mut sender = utf("12");
        sender.extend_from_slice(b"345");
        std::fs::write(d.join(format!("{p}.senderseqnums")), &sender).unwrap();
        std::fs::write(d.join(format!("{p}.targetseqnums")), utf("7")).unwrap();
        std::fs::write(d.join(format!("{p}.session")), utf("20240115-10:30:00.123")).unwrap();
        let s = read(d, p).unwrap().expect("found");
        assert_eq!((s.next_sender, s.next_target), (12, 7));
        assert_eq!(s.creation_time, Some(1_705_314_600_123_000_000));
        let mut got = Vec::new();
        s.for_each_message(&mut |seq, m| {
            got.push((seq, m.to_vec()));
        })
        .unwrap();
        assert_eq!(
            got,
            [(1, m1.to_vec()), (2, b"TWO!".to_vec()), (3, m3.to_vec())]
        );
        assert!(read(d, "FIX.4.4-GW-OTHER").unwrap().is_none());
    }

    #[test]
    fn a_cached_file_store_keeps_both_numbers_in_one_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("X.seqnums"), utf("23:22")).unwrap();
        let s = read(dir.path(), "X").unwrap().expect("found");
        assert_eq!((s.next_sender, s.next_target), (23, 22));
        std::fs::write(dir.path().join("X.seqnums"), utf("23-22")).unwrap();
        let e = read(dir.path(), "X").unwrap_err().to_string();
        assert!(
            e.ends_with("X.seqnums at byte 2: not \"sender:target\": \"23-22\""),
            "{e}"
        );
        std::fs::write(dir.path().join("X.seqnums"), utf("23:x")).unwrap();
        let e = read(dir.path(), "X").unwrap_err().to_string();
        assert!(
            e.ends_with("X.seqnums at byte 5: not a sequence number: \"x\""),
            "{e}"
        );
    }

    #[test]
    fn absent_numbers_start_at_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("X.body"), b"").unwrap();
        let s = read(dir.path(), "X").unwrap().expect("found");
        assert_eq!(
            (s.next_sender, s.next_target, s.creation_time),
            (1, 1, None)
        );
        assert!(s.index.is_empty());
    }

    fn error(files: &[(&str, Vec<u8>)]) -> String {
        let dir = tempfile::tempdir().unwrap();
        for (kind, bytes) in files {
            std::fs::write(dir.path().join(format!("S.{kind}")), bytes).unwrap();
        }
        let r = read(dir.path(), "S").and_then(|s| {
            s.expect("found")
                .for_each_message(&mut |_, _| {})
                .map(|_| ())
        });
        let e = r.unwrap_err().to_string();
        e.replace(&format!("{}/", dir.path().display()), "")
    }

    #[test]
    fn malformed_files_are_named_with_the_offset() {
        let mut cut = record(1, 0, 3);
        cut.extend_from_slice(&[0, 0, 0]);
        assert_eq!(
            error(&[("header", cut)]),
            "S.header at byte 16: 3 bytes after the last whole 16-byte record (a record cut short)"
        );
        let past = [record(1, 0, 3), record(2, 3, 9)].concat();
        let e = error(&[("header", past), ("body", b"abcdef".to_vec())]);
        assert!(
            e.starts_with("S.header at byte 16: message 2 at offset 3 size 9 lies past the end of"),
            "{e}"
        );
        let huge = record(1, 0, (64 << 20) + 1);
        let e = error(&[("header", huge), ("body", b"abc".to_vec())]);
        assert!(
            e.contains("S.header at byte 0: message 1 is 67108865 bytes, more than"),
            "{e}"
        );
        assert_eq!(
            error(&[("header", record(0, 0, 1))]),
            "S.header at byte 0: index record with sequence number 0"
        );
        assert_eq!(
            error(&[("header", record(1, -4, 1))]),
            "S.header at byte 0: index record of message 1 with offset -4 and size 1"
        );
        assert_eq!(
            error(&[("senderseqnums", utf("12x"))]),
            "S.senderseqnums at byte 2: not a sequence number: \"12x\""
        );
        assert_eq!(
            error(&[("targetseqnums", vec![0, 9, b'1'])]),
            "S.targetseqnums at byte 0: writeUTF length 9 but only 1 bytes follow"
        );
        let e = error(&[("session", utf("yesterday"))]);
        assert!(
            e.starts_with("S.session at byte 0: not a creation time"),
            "{e}"
        );
    }
}

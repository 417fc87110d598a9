//! What the three QuickFIX file stores have in common: a body file of
//! messages end to end, an index ("header") of sequence number, offset and
//! size, the sequence numbers and the creation time in small files. Each
//! format's module reads its own index and small files into a
//! [`QuickfixStore`]; the messages are read from the body here, each bounded.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use peregrine_engine::store::MAX_MESSAGE_LEN;

use super::error::ImportError;

/// The largest sequence-number or creation-time file read (they hold a few
/// dozen bytes; anything larger is not one).
pub const MAX_SMALL_FILE: u64 = 4096;

/// The largest index file read whole (1 GiB: 67 million QuickFIX/J records).
pub const MAX_HEADER_FILE: u64 = 1 << 30;

/// Where a message is in the body file, and where the index said so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Byte offset in the body file.
    pub offset: u64,
    /// Length in bytes.
    pub size: u64,
    /// Byte offset of the index record in the header file (for errors).
    pub at: u64,
}

/// One session's QuickFIX file store, read: numbers, creation time, and the
/// index of its messages (the messages stay in the body file until
/// [`QuickfixStore::for_each_message`]).
#[derive(Debug)]
pub struct QuickfixStore {
    /// The next sequence number the session would send (1 when the file is
    /// absent or empty, as QuickFIX starts).
    pub next_sender: u64,
    /// The next sequence number it expects (likewise).
    pub next_target: u64,
    /// The creation time, nanoseconds since the Unix epoch; `None` when the
    /// session file is absent or empty.
    pub creation_time: Option<i64>,
    /// The body file.
    pub body: PathBuf,
    /// The header file.
    pub header: PathBuf,
    /// Every message by sequence number (a number indexed twice: the later
    /// record, as QuickFIX reads it).
    pub index: BTreeMap<u64, Entry>,
}

impl QuickfixStore {
    /// Calls `visit(seq, message)` for each indexed message in sequence order,
    /// each read from the body file with one bounded read.
    ///
    /// # Errors
    ///
    /// [`ImportError::Io`] when the body cannot be read;
    /// [`ImportError::Malformed`] (at the index record's offset in the header
    /// file) when a message is larger than the store's limit or lies past
    /// the end of the body file.
    pub fn for_each_message(&self, visit: &mut dyn FnMut(u64, &[u8])) -> Result<(), ImportError> {
        if self.index.is_empty() {
            return Ok(());
        }
        let mut body = File::open(&self.body).map_err(ImportError::io(&self.body))?;
        let len = body.metadata().map_err(ImportError::io(&self.body))?.len();
        let mut buf = Vec::new();
        for (&seq, e) in &self.index {
            if e.size > MAX_MESSAGE_LEN as u64 {
                return Err(ImportError::malformed(
                    &self.header,
                    e.at,
                    format!(
                        "message {seq} is {} bytes, more than the store's limit of {MAX_MESSAGE_LEN}",
                        e.size
                    ),
                ));
            }
            if e.offset.checked_add(e.size).map_or(true, |end| end > len) {
                return Err(ImportError::malformed(
                    &self.header,
                    e.at,
                    format!(
                        "message {seq} at offset {} size {} lies past the end of {} ({len} bytes)",
                        e.offset,
                        e.size,
                        self.body.display()
                    ),
                ));
            }
            buf.resize(e.size as usize, 0);
            body.seek(SeekFrom::Start(e.offset))
                .and_then(|_| body.read_exact(&mut buf))
                .map_err(ImportError::io(&self.body))?;
            visit(seq, &buf);
        }
        Ok(())
    }
}

/// The whole of `path`, or `None` when it does not exist; an error when it
/// is larger than `max` bytes.
///
/// # Errors
///
/// [`ImportError::Io`]; [`ImportError::Malformed`] for a file over `max`.
pub fn read_bounded(path: &Path, max: u64) -> Result<Option<Vec<u8>>, ImportError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ImportError::io(path)(e)),
    };
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(ImportError::io(path))?;
    if bytes.len() as u64 > max {
        return Err(ImportError::malformed(
            path,
            max,
            format!("larger than {max} bytes, too large for this file of the store"),
        ));
    }
    Ok(Some(bytes))
}

/// A sequence number written as decimal digits (leading zeros allowed), at
/// `offset` in `path`: at least 1, at most `i32::MAX` (QuickFIX's `int`).
///
/// # Errors
///
/// [`ImportError::Malformed`] naming the text.
pub fn seq_number(path: &Path, offset: u64, text: &[u8]) -> Result<u64, ImportError> {
    let bad = |why: &str| {
        ImportError::malformed(
            path,
            offset,
            format!(
                "{why}: {:?}",
                String::from_utf8_lossy(&text[..text.len().min(40)])
            ),
        )
    };
    if text.is_empty() || !text.iter().all(u8::is_ascii_digit) {
        return Err(bad("not a sequence number"));
    }
    let n: u64 = std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&n| n <= i32::MAX as u64)
        .ok_or_else(|| bad("a sequence number out of range"))?;
    if n == 0 {
        return Err(bad("sequence number 0"));
    }
    Ok(n)
}

/// A FIX UTCTimestamp (`YYYYMMDD-HH:MM:SS[.fff…]`), as QuickFIX/J and
/// QuickFIX C++ write the creation time, in nanoseconds since the epoch.
///
/// # Errors
///
/// [`ImportError::Malformed`] naming the text.
pub fn utc_timestamp(path: &Path, text: &[u8]) -> Result<i64, ImportError> {
    peregrine_engine::codec::value::parse_timestamp(text)
        .map(|t| t.to_unix_nanos())
        .map_err(|e| {
            ImportError::malformed(
                path,
                0,
                format!(
                    "not a creation time (YYYYMMDD-HH:MM:SS[.sss]): {:?}: {e}",
                    String::from_utf8_lossy(&text[..text.len().min(40)])
                ),
            )
        })
}

/// Adds an index record; a sequence number indexed again takes the later
/// record (QuickFIX/J's `TreeMap.put`, QuickFIX/Go's map, QuickFIX C++'s
/// insert-or-assign all keep the last).
///
/// # Errors
///
/// [`ImportError::Malformed`] at `at` for a sequence number below 1.
pub fn index_insert(
    index: &mut BTreeMap<u64, Entry>,
    header: &Path,
    seq: i64,
    entry: Entry,
) -> Result<(), ImportError> {
    if seq < 1 {
        return Err(ImportError::malformed(
            header,
            entry.at,
            format!("index record with sequence number {seq}"),
        ));
    }
    index.insert(seq as u64, entry);
    Ok(())
}

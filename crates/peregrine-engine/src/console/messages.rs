//! The Messages view's search: one page of a session's messages log,
//! decoded as `peregrine decode` decodes it, without reading the whole file.
//!
//! A page starts at a byte offset and reads lines from there, backwards
//! (newest first, the default) or forwards, in [`CHUNK`] reads, until it has
//! [`Query::limit`] messages or has read [`SCAN_BUDGET`] bytes, whichever
//! comes first; it answers the offset to go on from. So a request costs at
//! most a few megabytes of reading and parsing whatever the log's size (a
//! log of millions of lines included), and a rare ClOrdID is found by
//! paging on. A time range seeks first: the log's lines are in time order,
//! so the line where the range ends (backwards) or begins (forwards) is
//! found by bisecting the file on its timestamps ([`seek_time`], about 30
//! small reads for a gigabyte), and the scan stops where the range does.
//!
//! A `TAG=VALUE` filter skips, without decoding, every line that does not
//! contain the value's bytes; the others are decoded and filtered by the
//! decoder's own [`Filter`].

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use peregrine_decode::scan::FoundMessage;
use peregrine_decode::{json, Filter, FilterSpec, MessageDecoder};

/// The most bytes one page reads.
pub const SCAN_BUDGET: u64 = 8 << 20;
/// Bytes per read.
pub const CHUNK: usize = 256 << 10;
/// The most messages on a page.
pub const MAX_LIMIT: usize = 500;
/// A longer line (no log line of a message under 1 MiB is longer) is skipped.
pub const MAX_LINE: usize = 2 << 20;

/// Admin (session-level) messages: shown, hidden, or alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Admin {
    /// Every message.
    #[default]
    Shown,
    /// Application messages only.
    Hidden,
    /// Session-level messages only.
    Only,
}

/// What to look for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// MsgTypes by value or name (`D`, `ExecutionReport`).
    pub msg_types: Vec<String>,
    /// `TAG=VALUE` or `TAG` (by number or name): all must hold.
    pub wheres: Vec<String>,
    /// Lines from this time on (`YYYYMMDD-HH:MM:SS[.ffffff]`, the log's UTC).
    pub from: Option<String>,
    /// Lines up to this time.
    pub to: Option<String>,
    /// Admin messages.
    pub admin: Admin,
    /// Where to start: a byte offset from a previous page (`None`: the end
    /// going backwards, the start going forwards, or the time range's edge).
    pub offset: Option<u64>,
    /// Read forwards (oldest first) instead of backwards.
    pub forward: bool,
    /// Messages wanted (at most [`MAX_LIMIT`]).
    pub limit: usize,
    /// The most bytes to read (0: [`SCAN_BUDGET`]; never more).
    pub budget: u64,
    /// An order's messages: ClOrdID(11) or OrigClOrdID(41) equal to this
    /// (one scan for both, which `WHERE`, all of whose filters must hold,
    /// cannot ask).
    pub order: Option<String>,
}

/// One page.
#[derive(Debug, Default)]
pub struct Page {
    /// Each message: its line's byte offset and its decoded JSON (as
    /// [`peregrine_decode::json`] writes it).
    pub messages: Vec<(u64, String)>,
    /// Where the next page starts; `None` when the file (or the time range)
    /// is read to its end in this direction.
    pub next_offset: Option<u64>,
    /// Bytes read.
    pub scanned: u64,
    /// The file's length when read.
    pub file_len: u64,
}

/// The timestamp a log line starts with (`20261124-10:00:00.123456 : 8=FIX…`).
fn line_time(line: &[u8]) -> Option<&[u8]> {
    let end = line.windows(3).take(40).position(|w| w == b" : ")?;
    Some(&line[..end])
}

/// A log line as the decoder's input.
fn frame(line: &[u8]) -> Option<FoundMessage> {
    let start = line.windows(5).take(64).position(|w| w == b"8=FIX")?;
    let bytes = line[start..].to_vec();
    let delimiter = if bytes.contains(&1) { 1 } else { b'|' };
    let time = line_time(line).map(|t| String::from_utf8_lossy(t).into_owned());
    Some(FoundMessage {
        line: 0,
        time,
        bytes,
        delimiter,
    })
}

/// The offset of the first line at or after `at` (`at` itself when it is 0 or
/// follows a newline).
fn line_start_after(file: &mut File, at: u64, len: u64) -> io::Result<u64> {
    if at == 0 {
        return Ok(0);
    }
    let mut pos = at - 1;
    let mut buf = [0u8; 4096];
    while pos < len {
        file.seek(SeekFrom::Start(pos))?;
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        if let Some(i) = buf[..n].iter().position(|&b| b == b'\n') {
            return Ok(pos + i as u64 + 1);
        }
        pos += n as u64;
    }
    Ok(len)
}

/// The time of the line starting at `at`.
fn time_at(file: &mut File, at: u64) -> io::Result<Option<Vec<u8>>> {
    let mut buf = [0u8; 64];
    file.seek(SeekFrom::Start(at))?;
    let n = file.read(&mut buf)?;
    Ok(line_time(&buf[..n]).map(<[u8]>::to_vec))
}

/// The offset of the first line whose time is `>= time` (`after`: `> time`),
/// comparing the line's time cut to `time`'s length, by bisection over the
/// file's lines (they are written in time order).
///
/// # Errors
///
/// Reading the file failed.
pub fn seek_time(file: &mut File, len: u64, time: &[u8], after: bool) -> io::Result<u64> {
    let (mut lo, mut hi) = (0u64, len);
    // Invariant: every line starting before `lo` is earlier; the answer is <= hi.
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let start = line_start_after(file, mid, len)?;
        if start >= hi {
            hi = mid;
            continue;
        }
        // Compared as a prefix: `…-10:00:00` holds every line of that second.
        let before = match time_at(file, start)? {
            Some(t) if after => t[..t.len().min(time.len())] <= *time,
            Some(t) => t[..t.len().min(time.len())] < *time,
            None => true,
        };
        if before {
            lo = line_start_after(file, start + 1, len)?;
        } else {
            hi = start;
        }
    }
    Ok(lo)
}

/// Compares a line's time with a bound given as a prefix (`20261124-10`):
/// the line's time cut to the bound's length.
fn cmp_time(line: &[u8], bound: &str) -> Option<std::cmp::Ordering> {
    let t = line_time(line)?;
    let b = bound.as_bytes();
    Some(t[..t.len().min(b.len())].cmp(b))
}

/// Reads one page of `path` (see the [module documentation](self)).
///
/// # Errors
///
/// The log cannot be opened or read, or the query names a message or field
/// no dictionary knows (`InvalidInput`, with the decoder's words).
pub fn search(path: &Path, query: &Query, decoder: &mut MessageDecoder) -> io::Result<Page> {
    let spec = FilterSpec {
        msg_type: query.msg_types.clone(),
        where_: query.wheres.clone(),
        admin: query.admin == Admin::Only,
        app: query.admin == Admin::Hidden,
        ..FilterSpec::default()
    };
    let filter = Filter::new(&spec, decoder.dictionaries())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    decoder.set_filter(filter);
    // Lines without these bytes cannot match: not decoded.
    let needles: Vec<Vec<u8>> = query
        .wheres
        .iter()
        .filter_map(|w| w.split_once('=').map(|(_, v)| v.as_bytes().to_vec()))
        .chain(query.order.iter().map(|id| id.as_bytes().to_vec()))
        .filter(|v| !v.is_empty())
        .collect();
    // The order's fields whole, with the delimiters around them (SOH, or `|`
    // in a log written so): "\x0111=ORD-7\x01" or "\x0141=ORD-7\x01".
    let order_fields: Vec<Vec<u8>> = query
        .order
        .iter()
        .flat_map(|id| {
            [(1u8, 11), (1, 41), (b'|', 11), (b'|', 41)].map(|(d, tag)| {
                let mut f = vec![d];
                f.extend_from_slice(format!("{tag}={id}").as_bytes());
                f.push(d);
                f
            })
        })
        .collect();
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let limit = query.limit.clamp(1, MAX_LIMIT);
    let budget = match query.budget {
        0 => SCAN_BUDGET,
        b => b.min(SCAN_BUDGET),
    };
    let mut page = Page {
        file_len: len,
        ..Page::default()
    };
    let mut take = |offset: u64, line: &[u8], page: &mut Page| {
        if line.len() > MAX_LINE || !needles.iter().all(|n| contains(line, n)) {
            return;
        }
        let Some(frame) = frame(line) else { return };
        if !order_fields.is_empty() && !order_fields.iter().any(|f| contains(&frame.bytes, f)) {
            return;
        }
        if let Ok(decoded) = decoder.decode(&frame, |shown| {
            let mut out = Vec::new();
            json::write(&mut out, shown).map(|()| out)
        }) {
            if let Some(Ok(mut out)) = decoded.shown {
                if out.last() == Some(&b'\n') {
                    out.pop();
                }
                page.messages
                    .push((offset, String::from_utf8_lossy(&out).into_owned()));
            }
        }
    };
    if query.forward {
        let start = match (query.offset, &query.from) {
            (Some(o), _) => line_start_after(&mut file, o.min(len), len)?,
            (None, Some(from)) => seek_time(&mut file, len, from.as_bytes(), false)?,
            (None, None) => 0,
        };
        forward(
            &mut file,
            start,
            len,
            query,
            (limit, budget),
            &mut page,
            &mut take,
        )?;
    } else {
        let end = match (query.offset, &query.to) {
            (Some(o), _) => o.min(len),
            (None, Some(to)) => seek_time(&mut file, len, to.as_bytes(), true)?,
            (None, None) => len,
        };
        backward(
            &mut file,
            end,
            len,
            query,
            (limit, budget),
            &mut page,
            &mut take,
        )?;
    }
    Ok(page)
}

/// Lines from `start` (a line start) on; a last line without its newline
/// (being written) is left for the next page.
fn forward(
    file: &mut File,
    start: u64,
    len: u64,
    query: &Query,
    (limit, budget): (usize, u64),
    page: &mut Page,
    take: &mut impl FnMut(u64, &[u8], &mut Page),
) -> io::Result<()> {
    let mut pos = start;
    // Bytes read and not yet handled, from `carry_at`.
    let mut carry: Vec<u8> = Vec::new();
    let mut carry_at = start;
    let mut buf = vec![0u8; CHUNK];
    file.seek(SeekFrom::Start(start))?;
    while pos < len && page.scanned < budget && page.messages.len() < limit {
        let n = file.read(&mut buf[..CHUNK.min((len - pos) as usize)])?;
        if n == 0 {
            break;
        }
        pos += n as u64;
        page.scanned += n as u64;
        carry.extend_from_slice(&buf[..n]);
        let mut used = 0;
        while let Some(i) = carry[used..].iter().position(|&b| b == b'\n') {
            let line = &carry[used..used + i];
            if let Some(to) = &query.to {
                if cmp_time(line, to) == Some(std::cmp::Ordering::Greater) {
                    // Past the range: nothing more this way.
                    page.next_offset = None;
                    return Ok(());
                }
            }
            take(carry_at + used as u64, line, page);
            used += i + 1;
            if page.messages.len() >= limit {
                break;
            }
        }
        carry.drain(..used);
        carry_at += used as u64;
        if carry.len() > MAX_LINE {
            // One line longer than any message's: skipped.
            carry_at += carry.len() as u64;
            carry.clear();
        }
    }
    page.next_offset = (carry_at < len).then_some(carry_at);
    Ok(())
}

/// Lines ending at or before `end` (a line boundary, or the file's length),
/// newest first.
fn backward(
    file: &mut File,
    end: u64,
    len: u64,
    query: &Query,
    (limit, budget): (usize, u64),
    page: &mut Page,
    take: &mut impl FnMut(u64, &[u8], &mut Page),
) -> io::Result<()> {
    let mut pos = end;
    // Bytes from `pos` not yet handled; they end at a line boundary.
    let mut tail: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; CHUNK];
    let mut first = true;
    while pos > 0 && page.scanned < budget {
        let n = CHUNK.min(pos as usize);
        pos -= n as u64;
        file.seek(SeekFrom::Start(pos))?;
        file.read_exact(&mut buf[..n])?;
        page.scanned += n as u64;
        let mut block = buf[..n].to_vec();
        block.extend_from_slice(&tail);
        if std::mem::take(&mut first) && end == len && block.last() != Some(&b'\n') {
            // The last line is being written: left for later.
            let cut = block.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            block.truncate(cut);
        }
        let mut line_end = block.len();
        while line_end > 0 {
            let content_end = if block[line_end - 1] == b'\n' {
                line_end - 1
            } else {
                line_end
            };
            let start = match block[..content_end].iter().rposition(|&b| b == b'\n') {
                Some(i) => i + 1,
                None if pos == 0 => 0,
                None => break,
            };
            let line = &block[start..content_end];
            let at = pos + start as u64;
            if let Some(from) = &query.from {
                if cmp_time(line, from) == Some(std::cmp::Ordering::Less) {
                    page.next_offset = None;
                    return Ok(());
                }
            }
            take(at, line, page);
            line_end = start;
            if page.messages.len() >= limit {
                page.next_offset = (at > 0).then_some(at);
                return Ok(());
            }
        }
        tail = block[..line_end].to_vec();
        if tail.len() > MAX_LINE {
            // One line longer than any message's: skipped.
            tail.clear();
        }
    }
    let next = pos + tail.len() as u64;
    page.next_offset = (next > 0).then_some(next);
    Ok(())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use peregrine_decode::Dictionaries;
    use std::io::Write;

    fn order(seq: u32, cl_ord_id: &str) -> String {
        let body =
            format!("35=D\x0149=TW\x0156=ISLD\x0134={seq}\x0111={cl_ord_id}\x0155=X\x0154=1\x01");
        let head = format!("8=FIX.4.4\x019={}\x01", body.len());
        let sum: u32 = head.bytes().chain(body.bytes()).map(u32::from).sum::<u32>() % 256;
        format!("{head}{body}10={sum:03}\x01")
    }

    fn log(lines: usize) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let mut w = io::BufWriter::new(f.as_file_mut());
        for i in 0..lines {
            let time = format!(
                "20261124-{:02}:{:02}:{:02}.000000",
                i / 3600 % 24,
                i / 60 % 60,
                i % 60
            );
            writeln!(w, "{time} : {}", order(i as u32 + 1, &format!("ORD-{i}"))).unwrap();
            if i % 10 == 0 {
                let hb = "8=FIX.4.4\x019=5\x0135=0\x0110=163\x01";
                writeln!(w, "{time} : {hb}").unwrap();
            }
        }
        drop(w);
        f
    }

    fn decoder() -> MessageDecoder {
        MessageDecoder::new(Dictionaries::new(&[]).unwrap(), Filter::default())
    }

    fn ids(page: &Page) -> Vec<String> {
        page.messages
            .iter()
            .map(|(_, m)| {
                let v: serde_json::Value = serde_json::from_str(m).unwrap();
                let f = v["fields"].as_array().unwrap();
                f.iter()
                    .find(|f| f["tag"] == 11)
                    .map_or("hb".into(), |f| f["value"].as_str().unwrap().to_string())
            })
            .collect()
    }

    #[test]
    fn pages_backwards_then_forwards_without_losing_a_line() {
        let f = log(1000);
        let mut d = decoder();
        let mut q = Query {
            admin: Admin::Hidden,
            limit: 300,
            ..Query::default()
        };
        let mut seen = Vec::new();
        loop {
            let page = search(f.path(), &q, &mut d).unwrap();
            seen.extend(ids(&page));
            match page.next_offset {
                Some(o) => q.offset = Some(o),
                None => break,
            }
        }
        let want: Vec<String> = (0..1000).rev().map(|i| format!("ORD-{i}")).collect();
        assert_eq!(seen, want);
        q.forward = true;
        q.offset = None;
        let mut seen = Vec::new();
        loop {
            let page = search(f.path(), &q, &mut d).unwrap();
            seen.extend(ids(&page));
            match page.next_offset {
                Some(o) => q.offset = Some(o),
                None => break,
            }
        }
        let want: Vec<String> = (0..1000).map(|i| format!("ORD-{i}")).collect();
        assert_eq!(seen, want);
    }

    #[test]
    fn filters_by_value_type_and_time() {
        let f = log(5000);
        let mut d = decoder();
        let q = Query {
            wheres: vec!["ClOrdID=ORD-4321".into()],
            limit: 10,
            ..Query::default()
        };
        let page = search(f.path(), &q, &mut d).unwrap();
        assert_eq!(ids(&page), ["ORD-4321"]);
        let q = Query {
            msg_types: vec!["Heartbeat".into()],
            limit: 3,
            ..Query::default()
        };
        assert_eq!(ids(&search(f.path(), &q, &mut d).unwrap()), ["hb"; 3]);
        // 00:01:00 to 00:01:02 inclusive: ORD-60..62, either way.
        let mut q = Query {
            admin: Admin::Hidden,
            from: Some("20261124-00:01:00".into()),
            to: Some("20261124-00:01:02".into()),
            limit: 50,
            ..Query::default()
        };
        assert_eq!(
            ids(&search(f.path(), &q, &mut d).unwrap()),
            ["ORD-62", "ORD-61", "ORD-60"]
        );
        q.forward = true;
        assert_eq!(
            ids(&search(f.path(), &q, &mut d).unwrap()),
            ["ORD-60", "ORD-61", "ORD-62"]
        );
        let bad = Query {
            msg_types: vec!["NewOrderSingel".into()],
            ..Query::default()
        };
        let e = search(f.path(), &bad, &mut d).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn one_page_reads_a_bounded_amount_of_a_large_log() {
        let f = log(60_000); // about 6.6 MB
        let len = std::fs::metadata(f.path()).unwrap().len();
        let mut d = decoder();
        let q = Query {
            wheres: vec!["11=NOT-THERE".into()],
            limit: 10,
            ..Query::default()
        };
        let page = search(f.path(), &q, &mut d).unwrap();
        assert!(page.messages.is_empty());
        assert!(
            page.scanned <= SCAN_BUDGET + CHUNK as u64,
            "{}",
            page.scanned
        );
        assert!(page.scanned >= len.min(SCAN_BUDGET));
    }
}

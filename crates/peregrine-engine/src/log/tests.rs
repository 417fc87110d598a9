//! The hand-over to the logging thread: big messages, a full ring, cut
//! events, lines written without a flush, several sessions on one thread.

use std::time::{Duration, Instant};

use super::{LogWriter, SessionLog, MIN_RING_BYTES};

fn message(seq: usize, text_len: usize) -> Vec<u8> {
    let text = "x".repeat(text_len);
    peregrine_testkit::frame(&format!("35=8|34={seq}|49=A|56=B|58={text}|"))
}

fn lines(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_message_bigger_than_a_quarter_of_the_ring_is_still_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let writer = LogWriter::with_ring_bytes(MIN_RING_BYTES).unwrap();
    let mut log = writer.open(Some(dir.path()), "FIX.4.4:A->B", None).unwrap();
    let big = message(1, 3 * MIN_RING_BYTES);
    log.outgoing(&big, 0);
    log.flush();
    let lines = lines(log.messages_path().unwrap());
    assert_eq!(lines.len(), 1);
    assert_eq!(
        lines[0].as_bytes(),
        [&b"19700101-00:00:00.000000 : "[..], &big].concat()
    );
}

#[test]
fn a_full_ring_makes_the_reactor_wait_and_loses_no_line() {
    let dir = tempfile::tempdir().unwrap();
    let writer = LogWriter::with_ring_bytes(MIN_RING_BYTES).unwrap();
    let mut log = writer.open(Some(dir.path()), "FIX.4.4:A->B", None).unwrap();
    const N: usize = 5_000;
    for seq in 1..=N {
        log.incoming(&message(seq, 100), seq as i64);
    }
    log.flush();
    let lines = lines(log.messages_path().unwrap());
    assert_eq!(lines.len(), N);
    for (i, l) in lines.iter().enumerate() {
        assert!(
            l.contains(&format!("\x0134={}\x01", i + 1)),
            "line {i}: {l}"
        );
    }
    // About 700 KB through a 4 KiB ring: the reactor had to wait.
    let waits = writer
        .stats()
        .ring_full_waits
        .load(std::sync::atomic::Ordering::Relaxed);
    assert!(waits > 0, "no wait for a full ring");
}

#[test]
fn an_event_longer_than_a_quarter_of_the_ring_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let writer = LogWriter::with_ring_bytes(MIN_RING_BYTES).unwrap();
    let mut log = writer.open(Some(dir.path()), "FIX.4.4:A->B", None).unwrap();
    log.event(&"e".repeat(MIN_RING_BYTES), 0);
    log.event("next", 0);
    log.flush();
    let events = lines(&dir.path().join("FIX.4.4-A-B.event.log"));
    assert_eq!(events.len(), 2);
    assert_eq!(
        events[0].len(),
        "19700101-00:00:00.000000 : ".len() + MIN_RING_BYTES / 4
    );
    assert!(events[1].ends_with(" : next"));
}

#[test]
fn lines_reach_the_file_without_a_flush() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = SessionLog::open(dir.path(), "FIX.4.4:A->B").unwrap();
    log.incoming(&message(1, 10), 0);
    let path = log.messages_path().unwrap().to_path_buf();
    let start = Instant::now();
    while lines(&path).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "not written in 5 s"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn a_dropped_log_has_written_its_lines() {
    let dir = tempfile::tempdir().unwrap();
    let writer = LogWriter::start().unwrap();
    let mut log = writer.open(Some(dir.path()), "FIX.4.4:A->B", None).unwrap();
    let path = log.messages_path().unwrap().to_path_buf();
    for seq in 1..=100 {
        log.outgoing(&message(seq, 10), 0);
    }
    drop(log);
    assert_eq!(lines(&path).len(), 100);
}

#[test]
fn sessions_on_one_thread_keep_their_own_files_and_chunking() {
    let dir = tempfile::tempdir().unwrap();
    let writer = LogWriter::start().unwrap();
    let mut a = writer.open(Some(dir.path()), "FIX.4.4:A->B", None).unwrap();
    let mut b = writer.open(Some(dir.path()), "FIX.4.4:B->A", None).unwrap();
    // Interleaved halves: each session's framer joins its own.
    let (m1, m2) = (message(1, 30), message(2, 30));
    a.incoming(&m1[..20], 0);
    b.incoming(&m2[..25], 0);
    a.incoming(&m1[20..], 0);
    b.incoming(&m2[25..], 0);
    writer.flush();
    let (la, lb) = (
        lines(a.messages_path().unwrap()),
        lines(b.messages_path().unwrap()),
    );
    assert_eq!(la.len(), 1);
    assert_eq!(lb.len(), 1);
    assert!(la[0].ends_with(&*String::from_utf8_lossy(&m1)));
    assert!(lb[0].ends_with(&*String::from_utf8_lossy(&m2)));
}

/// A writer whose ring only [`LogWriter::help`] reads (no logging thread yet).
fn helped_writer() -> LogWriter {
    LogWriter {
        shared: super::ring::Shared::new(super::RING_BYTES),
    }
}

#[test]
fn a_helping_reactor_reads_the_ring_a_bounded_step_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let writer = helped_writer();
    let mut log = writer.open(Some(dir.path()), "FIX.4.4:A->B", None).unwrap();
    const N: usize = 20;
    let m = message(1, 1000);
    for _ in 0..N {
        log.outgoing(&m, 0);
    }
    // About 1 KB a record, HELP_BYTES (2 KiB) a step: two records (and the
    // Open) a step, never the whole ring at once.
    let mut steps = 0;
    while !writer.shared.reader().is_empty() {
        writer.help(0);
        steps += 1;
        assert!(steps <= N, "the ring does not empty");
    }
    assert_eq!(steps, N / 2, "records read per step");
    // 20 KB buffered: past FLUSH_BYTES, handed over though only 0 ns old.
    writer.help(0);
    assert_eq!(lines(log.messages_path().unwrap()).len(), N);
    super::thread::spawn(writer.shared.clone()).unwrap();
}

#[test]
fn a_helping_reactor_writes_a_line_once_it_is_a_millisecond_old() {
    let dir = tempfile::tempdir().unwrap();
    let writer = helped_writer();
    let mut log = writer.open(Some(dir.path()), "FIX.4.4:A->B", None).unwrap();
    let path = log.messages_path().unwrap().to_path_buf();
    let t0 = 1_000_000_000;
    log.incoming(&message(1, 10), t0);
    writer.help(t0 + 10);
    assert!(lines(&path).is_empty(), "written before it was due");
    writer.help(t0 + super::reader::FLUSH_AFTER - 1);
    assert!(lines(&path).is_empty(), "written before it was due");
    writer.help(t0 + super::reader::FLUSH_AFTER);
    assert_eq!(lines(&path).len(), 1);
    // The thread sleeps longer while the reactor helps.
    assert!(writer
        .shared
        .helped_recently(t0 + 2 * super::reader::FLUSH_AFTER, super::POLL_IDLE));
    assert!(!writer
        .shared
        .helped_recently(t0 + 20 * super::reader::FLUSH_AFTER, super::POLL_IDLE));
    super::thread::spawn(writer.shared.clone()).unwrap();
}

#[test]
fn the_word_at_a_time_escape_scan_finds_what_the_byte_at_a_time_one_does() {
    let reference = |bytes: &[u8], from: usize| {
        (from..bytes.len()).find(|&i| super::needs_escape(bytes[i]) && bytes[i] != 0x01)
    };
    // Every byte value at every position of a 19-byte message (two words and a
    // remainder), among SOHs and letters.
    for b in 0..=255u8 {
        for at in 0..19 {
            let mut m: Vec<u8> = (0..19)
                .map(|i| if i % 3 == 0 { 0x01 } else { b'A' + i as u8 })
                .collect();
            m[at] = b;
            for from in [0, 1, 8, at] {
                assert_eq!(
                    super::next_escape_keeping_soh(&m, from),
                    reference(&m, from),
                    "byte {b:#04x} at {at}, from {from}"
                );
            }
        }
    }
    // Pseudo-random buffers, high bytes included.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for len in 0..200 {
        let m: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 56) as u8
            })
            .collect();
        assert_eq!(
            super::next_escape_keeping_soh(&m, 0),
            reference(&m, 0),
            "{m:?}"
        );
    }
}

#[test]
fn a_helping_reactor_reads_in_batches_of_bytes_or_age() {
    let dir = tempfile::tempdir().unwrap();
    let writer = helped_writer();
    let mut log = writer.open(Some(dir.path()), "FIX.4.4:A->B", None).unwrap();
    let t0 = 1_000_000_000;
    writer.help(t0); // the Open record (time 0) is old: read
    assert!(writer.shared.reader().is_empty());
    log.incoming(&message(1, 10), t0);
    writer.help(t0 + 10);
    assert!(
        !writer.shared.reader().is_empty(),
        "read a lone fresh record"
    );
    writer.help(t0 + super::HELP_AGE - 1);
    assert!(
        !writer.shared.reader().is_empty(),
        "read a lone fresh record"
    );
    writer.help(t0 + super::HELP_AGE);
    assert!(writer.shared.reader().is_empty(), "left an old record");
    // HELP_BYTES waiting: read at once, however fresh.
    let t1 = t0 + 1_000_000;
    let record = message(2, 600).len() + 17;
    assert!(3 * record < super::HELP_BYTES && 4 * record >= super::HELP_BYTES);
    for seq in 2..5 {
        log.incoming(&message(seq, 600), t1);
    }
    writer.help(t1);
    assert!(
        !writer.shared.reader().is_empty(),
        "read three fresh records"
    );
    log.incoming(&message(5, 600), t1);
    writer.help(t1);
    assert!(writer.shared.reader().is_empty(), "left four records");
    super::thread::spawn(writer.shared.clone()).unwrap();
}

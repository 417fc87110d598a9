//! The engine journal: transactions spanning sessions, one write per turn,
//! and recovery after a crash at any byte.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::path::Path;

use peregrine_store::{
    EngineJournal, FsyncPolicy, JournalConfig, JournalStore, LossKind, MessageStore, OnDamage,
    StoreError, ENGINE_JOURNAL_FILE, SEQ_END,
};

fn config() -> JournalConfig {
    JournalConfig::with_fsync(FsyncPolicy::Never)
}

fn messages(store: &mut JournalStore) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    store
        .for_each_in_range(1, SEQ_END, &mut |seq, m| out.push((seq, m.to_vec())))
        .unwrap();
    out
}

fn journal_len(dir: &Path) -> u64 {
    std::fs::metadata(dir.join(ENGINE_JOURNAL_FILE))
        .unwrap()
        .len()
}

#[test]
fn a_turn_spanning_many_sessions_is_one_write_and_one_fsync() {
    let dir = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(
        dir.path(),
        JournalConfig::with_fsync(FsyncPolicy::EveryCommit),
        0,
    )
    .unwrap();
    journal.set_deferred(true);
    let mut stores: Vec<JournalStore> = (0..100)
        .map(|i| journal.session(&format!("FIX.4.4:GW->C{i}"), 0).unwrap())
        .collect();
    for s in &mut stores {
        s.incr_next_target_seq().unwrap();
        s.store(1, b"35=8|an execution report").unwrap();
        s.incr_next_sender_seq().unwrap();
        s.commit().unwrap();
    }
    assert_eq!(journal.stats().writes, 0, "deferred commits only stage");
    assert!(journal.write_turn().unwrap());
    let stats = journal.stats();
    assert_eq!((stats.writes, stats.fsyncs, stats.turns), (1, 1, 1));
    assert!(!journal.write_turn().unwrap(), "nothing left to commit");
    drop(stores);
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    assert_eq!(journal.session_names().len(), 100);
    let mut s = journal.session("FIX.4.4:GW->C99", 0).unwrap();
    assert_eq!((s.next_sender_seq(), s.next_target_seq()), (2, 2));
    assert_eq!(
        messages(&mut s),
        [(1, b"35=8|an execution report".to_vec())]
    );
}

#[test]
fn immediate_mode_writes_at_each_commit() {
    let dir = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    let mut a = journal.session("A", 0).unwrap();
    let mut b = journal.session("B", 0).unwrap();
    a.store(1, b"a1").unwrap();
    a.incr_next_sender_seq().unwrap();
    a.commit().unwrap();
    b.incr_next_target_seq().unwrap();
    b.commit().unwrap();
    assert_eq!(journal.stats().turns, 2);
    drop((a, b));
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    assert_eq!(journal.session("A", 0).unwrap().next_sender_seq(), 2);
    assert_eq!(journal.session("B", 0).unwrap().next_target_seq(), 2);
}

#[test]
fn a_second_store_of_an_open_session_is_refused_and_a_dropped_one_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 7).unwrap();
    let mut a = journal.session("A", 7).unwrap();
    assert!(matches!(
        journal.session("A", 7),
        Err(StoreError::SessionInUse { name }) if name == "A"
    ));
    a.set_next_sender_seq(5).unwrap();
    a.commit().unwrap();
    a.set_next_sender_seq(9).unwrap(); // not committed: staged when dropped
    drop(a);
    let a = journal.session("A", 100).unwrap();
    assert_eq!((a.next_sender_seq(), a.creation_time()), (9, 7));
    drop(a);
    drop(journal);
    // Never written by a commit: not the journal's after a restart.
    let journal = EngineJournal::open(dir.path(), config(), 7).unwrap();
    assert_eq!(journal.session("A", 7).unwrap().next_sender_seq(), 5);
}

#[test]
fn resends_read_records_written_and_still_staged() {
    let dir = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    journal.set_deferred(true);
    let mut a = journal.session("A", 0).unwrap();
    let mut b = journal.session("B", 0).unwrap();
    for seq in 1..=3 {
        a.store(seq, format!("a{seq}").as_bytes()).unwrap();
        b.store(seq, format!("b{seq}").as_bytes()).unwrap();
    }
    journal.write_turn().unwrap();
    a.store(4, b"a4 staged").unwrap();
    a.store(2, b"a2 again").unwrap(); // the newest wins
    let mut seen = Vec::new();
    a.for_each_in_range(2, 4, &mut |s, m| seen.push((s, m.to_vec())))
        .unwrap();
    assert_eq!(
        seen,
        [
            (2, b"a2 again".to_vec()),
            (3, b"a3".to_vec()),
            (4, b"a4 staged".to_vec())
        ]
    );
    assert_eq!(messages(&mut b).len(), 3, "the other session's own records");
}

#[test]
fn a_reset_clears_one_session_and_a_later_message_follows_it() {
    let dir = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    let mut a = journal.session("A", 0).unwrap();
    let mut b = journal.session("B", 0).unwrap();
    for seq in 1..=3 {
        a.store(seq, b"a").unwrap();
        b.store(seq, b"b").unwrap();
    }
    a.set_next_sender_seq(4).unwrap();
    b.set_next_sender_seq(4).unwrap();
    a.commit().unwrap();
    a.reset(99).unwrap();
    a.store(1, b"after reset").unwrap();
    a.incr_next_sender_seq().unwrap();
    a.commit().unwrap();
    drop((a, b));
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    let mut a = journal.session("A", 0).unwrap();
    let mut b = journal.session("B", 0).unwrap();
    assert_eq!((a.next_sender_seq(), a.creation_time()), (2, 99));
    assert_eq!(messages(&mut a), [(1, b"after reset".to_vec())]);
    assert_eq!(b.next_sender_seq(), 4);
    assert_eq!(messages(&mut b).len(), 3);
}

#[test]
fn records_written_ahead_of_their_commit_are_not_committed() {
    let dir = tempfile::tempdir().unwrap();
    let small = JournalConfig {
        write_buffer_capacity: 256,
        ..config()
    };
    let journal = EngineJournal::open(dir.path(), small, 0).unwrap();
    journal.set_deferred(true);
    let mut a = journal.session("A", 0).unwrap();
    a.commit().unwrap();
    journal.write_turn().unwrap();
    for seq in 1..=50 {
        a.store(seq, &[b'x'; 100]).unwrap();
    }
    a.set_next_sender_seq(51).unwrap();
    a.commit().unwrap();
    assert!(journal.stats().writes > 1, "written ahead");
    assert_eq!(messages(&mut a).len(), 50, "read back before the commit");
    // A crash before the turn's commit record: none of it happened.
    std::mem::forget(a);
    drop(journal);
    let journal = EngineJournal::open(dir.path(), small, 0).unwrap();
    assert!(journal.recovery().uncommitted_bytes > 5000);
    let mut a = journal.session("A", 0).unwrap();
    assert_eq!(a.next_sender_seq(), 1);
    assert!(messages(&mut a).is_empty());
}

/// A gateway's state as recovery must give it back: per session, the
/// numbers and the messages.
type Model = BTreeMap<String, ((u64, u64), BTreeMap<u64, Vec<u8>>)>;

fn state_of(journal: &EngineJournal) -> Model {
    let mut out = Model::new();
    for name in journal.session_names() {
        let mut s = journal.session(&name, 0).unwrap();
        let msgs = messages(&mut s).into_iter().collect();
        out.insert(name, ((s.next_sender_seq(), s.next_target_seq()), msgs));
    }
    out
}

/// A small deterministic generator (the tests must not depend on a seed file).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Turns of a router: an order read on a client session (its target number)
/// forwarded to the venue (a message and its sender number), sometimes a
/// report back the other way, sometimes a reset. Returns the model after
/// each committed turn and where that turn's commit ends in the file.
fn run_turns(dir: &Path, rng: &mut Lcg, turns: usize) -> Vec<(u64, Model)> {
    let journal = EngineJournal::open(dir, config(), 0).unwrap();
    journal.set_deferred(true);
    let names = ["C1", "C2", "C3", "VENUE"];
    let mut stores: Vec<JournalStore> = names
        .iter()
        .map(|n| journal.session(n, 0).unwrap())
        .collect();
    for s in &mut stores {
        s.commit().unwrap();
    }
    journal.write_turn().unwrap();
    let mut after = vec![(
        journal.position().offset,
        state_of_open(&mut stores, &names),
    )];
    for t in 0..turns {
        let client = rng.below(3) as usize;
        let ops = 1 + rng.below(3);
        for _ in 0..ops {
            match rng.below(10) {
                0 => {
                    let who = rng.below(4) as usize;
                    stores[who].reset(t as i64).unwrap();
                }
                1..=6 => {
                    stores[client].incr_next_target_seq().unwrap();
                    let v = &mut stores[3];
                    let seq = v.next_sender_seq();
                    let len = 1 + rng.below(300) as usize;
                    let body = vec![b'a' + (t % 26) as u8; len];
                    v.store(seq, &body).unwrap();
                    v.incr_next_sender_seq().unwrap();
                }
                _ => {
                    stores[3].incr_next_target_seq().unwrap();
                    let c = &mut stores[client];
                    let seq = c.next_sender_seq();
                    c.store(seq, format!("report {t}").as_bytes()).unwrap();
                    c.incr_next_sender_seq().unwrap();
                }
            }
        }
        for s in &mut stores {
            s.commit().unwrap();
        }
        journal.write_turn().unwrap();
        after.push((
            journal.position().offset,
            state_of_open(&mut stores, &names),
        ));
    }
    std::mem::forget(stores); // a crash: nothing more is written
    after
}

fn state_of_open(stores: &mut [JournalStore], names: &[&str]) -> Model {
    let mut out = Model::new();
    for (s, n) in stores.iter_mut().zip(names) {
        let msgs = messages(s).into_iter().collect();
        out.insert(
            n.to_string(),
            ((s.next_sender_seq(), s.next_target_seq()), msgs),
        );
    }
    out
}

#[test]
fn a_crash_at_any_byte_keeps_every_turn_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Lcg(25);
    let after = run_turns(dir.path(), &mut rng, 12);
    let full = std::fs::read(dir.path().join(ENGINE_JOURNAL_FILE)).unwrap();
    let first = after[0].0;
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join(ENGINE_JOURNAL_FILE);
    // Every cut from the first committed turn on, and each with the torn
    // write's tail as zeros (a page the crash left unwritten) and as garbage.
    for cut in first..=full.len() as u64 {
        for tail in [None, Some(0u8), Some(0xA5u8)] {
            let mut bytes = full[..cut as usize].to_vec();
            if let Some(fill) = tail {
                let pad = (full.len() as u64 - cut).min(37) as usize;
                bytes.extend(std::iter::repeat_n(fill, pad));
            }
            std::fs::write(&path, &bytes).unwrap();
            let journal = EngineJournal::open(work.path(), config(), 0)
                .unwrap_or_else(|e| panic!("cut at {cut}, tail {tail:?}: {e}"));
            // A fill that happens to equal the bytes it stands for (a turn
            // number's high zeros) restores them: what the file holds is
            // the longest prefix it shares with the whole journal.
            let same = bytes[cut as usize..]
                .iter()
                .zip(&full[cut as usize..])
                .take_while(|(a, b)| a == b)
                .count() as u64;
            let want = after
                .iter()
                .rev()
                .find(|(end, _)| *end <= cut + same)
                .map(|(_, m)| m)
                .unwrap();
            assert_eq!(
                &state_of(&journal),
                want,
                "cut at {cut} of {}, tail {tail:?}",
                full.len()
            );
            assert!(journal.recovery().losses.is_empty(), "cut at {cut}");
        }
    }
}

#[test]
fn a_reopened_journal_goes_on_after_its_last_commit() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Lcg(7);
    let after = run_turns(dir.path(), &mut rng, 5);
    // Cut inside the last turn, then carry on from what recovery gave.
    let cut = after[4].0 + 10;
    OpenOptions::new()
        .write(true)
        .open(dir.path().join(ENGINE_JOURNAL_FILE))
        .unwrap()
        .set_len(cut)
        .unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    assert_eq!(journal.position().offset, after[4].0);
    assert_eq!(journal_len(dir.path()), after[4].0, "the torn tail is cut");
    let mut v = journal.session("VENUE", 0).unwrap();
    let seq = v.next_sender_seq();
    v.store(seq, b"next").unwrap();
    v.incr_next_sender_seq().unwrap();
    v.commit().unwrap();
    drop(v);
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    let mut want = after[4].1.clone();
    let venue = want.get_mut("VENUE").unwrap();
    venue.0 .0 += 1;
    venue.1.insert(seq, b"next".to_vec());
    assert_eq!(state_of(&journal), want);
}

#[test]
fn damage_inside_the_committed_journal_is_refused_or_reported_and_costs_its_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    let mut a = journal.session("A", 0).unwrap();
    for seq in 1..=3 {
        a.store(seq, format!("message {seq}").as_bytes()).unwrap();
        a.incr_next_sender_seq().unwrap();
        a.commit().unwrap();
    }
    drop(a);
    let path = dir.path().join(ENGINE_JOURNAL_FILE);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.windows(9).position(|w| w == b"message 2").unwrap();
    bytes[at] ^= 0x20;
    std::fs::write(&path, &bytes).unwrap();

    let refused = EngineJournal::open(dir.path(), config(), 0).unwrap_err();
    let StoreError::Damaged { losses, .. } = &refused else {
        panic!("{refused}")
    };
    assert_eq!(losses.len(), 1);
    assert_eq!(losses[0].kind, LossKind::Corrupted);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "refused: left as it is"
    );

    let report = JournalConfig {
        on_damage: OnDamage::Report,
        ..config()
    };
    let journal = EngineJournal::open(dir.path(), report, 0).unwrap();
    assert_eq!(journal.recovery().losses.len(), 1);
    let mut a = journal.session("A", 0).unwrap();
    assert_eq!(a.next_sender_seq(), 4, "the later commits are kept");
    let seqs: Vec<u64> = messages(&mut a).into_iter().map(|(s, _)| s).collect();
    assert_eq!(seqs, [1, 3], "only the damaged record is lost");
    // The session's store reports it too (its session learns of the loss,
    // StoreDataLost), as a per-session file store's would.
    let lost = a.recovery().map(|r| r.losses.len());
    assert_eq!(lost, Some(1), "the view reports the journal's damage");
    // A journal without damage reports none to its views.
    let clean = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(clean.path(), config(), 0).unwrap();
    assert!(journal.session("B", 0).unwrap().recovery().is_none());
}

#[test]
fn a_file_that_is_no_journal_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(ENGINE_JOURNAL_FILE),
        b"not a journal at all, no",
    )
    .unwrap();
    assert!(matches!(
        EngineJournal::open(dir.path(), config(), 0),
        Err(StoreError::Corrupt { .. })
    ));
}

/// Turns of the router model, and the file's bytes.
fn journal_of_turns(turns: usize, seed: u64) -> (tempfile::TempDir, Vec<(u64, Model)>, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let after = run_turns(dir.path(), &mut Lcg(seed), turns);
    let full = std::fs::read(dir.path().join(ENGINE_JOURNAL_FILE)).unwrap();
    (dir, after, full)
}

#[test]
fn a_hole_in_the_last_turn_is_a_torn_write_and_in_an_earlier_one_damage() {
    let (dir, after, full) = journal_of_turns(6, 3);
    let path = dir.path().join(ENGINE_JOURNAL_FILE);
    // Pages written out of order: the last turn's commit record reached the
    // disk, a page in its middle did not.
    let (from, to) = (after[5].0 as usize, after[6].0 as usize);
    let mut bytes = full.clone();
    bytes[from + 30..from + 60].fill(0);
    std::fs::write(&path, &bytes).unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    assert!(
        journal.recovery().losses.is_empty(),
        "a torn write, not a loss"
    );
    assert!(journal.recovery().uncommitted_bytes > 0);
    assert_eq!(
        state_of(&journal),
        after[5].1,
        "the whole turn, not a part of it"
    );
    assert_eq!(
        journal_len(dir.path()),
        from as u64,
        "cut at the last good commit"
    );
    drop(journal);
    // The same hole in an earlier turn, with good turns after it: a loss.
    let (from, _) = (after[2].0 as usize, to);
    let mut bytes = full.clone();
    bytes[from + 30..from + 60].fill(0);
    std::fs::write(&path, &bytes).unwrap();
    assert!(matches!(
        EngineJournal::open(dir.path(), config(), 0),
        Err(StoreError::Damaged { .. })
    ));
    let report = JournalConfig {
        on_damage: OnDamage::Report,
        ..config()
    };
    let journal = EngineJournal::open(dir.path(), report, 0).unwrap();
    assert_eq!(journal.recovery().losses.len(), 1);
    assert_eq!(
        journal.position().offset,
        after[6].0,
        "the later turns are kept"
    );
}

/// A record as the journal writes it (format.rs): for a forged one.
fn record(kind: u8, session: u32, payload: &[u8]) -> Vec<u8> {
    let mut r = b"PGJR".to_vec();
    r.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    r.extend_from_slice(&session.to_le_bytes());
    r.extend_from_slice(&[kind, 0, 0, 0]);
    let mut crc = crc32fast::Hasher::new();
    crc.update(&r[4..16]);
    crc.update(payload);
    r.extend_from_slice(&crc.finalize().to_le_bytes());
    r.extend_from_slice(payload);
    r
}

#[test]
fn records_forged_inside_a_message_are_not_believed_after_a_torn_write() {
    let dir = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    journal.set_deferred(true);
    let mut venue = journal.session("VENUE", 0).unwrap();
    venue.set_next_sender_seq(50).unwrap();
    venue.commit().unwrap();
    journal.write_turn().unwrap();
    let start = journal.position().offset;
    // A counterparty's free text that looks like records: numbers back to 1
    // for session 1, and a commit of this very transaction.
    let mut numbers = 1u64.to_le_bytes().to_vec();
    numbers.extend_from_slice(&1u64.to_le_bytes());
    let mut forged = record(3, 1, &numbers);
    let mut commit = 2u64.to_le_bytes().to_vec();
    commit.extend_from_slice(&start.to_le_bytes());
    commit.extend_from_slice(&[0; 8]);
    forged.extend(record(5, 0, &commit));
    let mut msg = b"58=".to_vec();
    msg.extend_from_slice(&forged);
    venue.store(50, &msg).unwrap();
    venue.incr_next_sender_seq().unwrap();
    venue.commit().unwrap();
    journal.write_turn().unwrap();
    drop(venue);
    drop(journal);
    // Torn inside the message record's header: recovery resynchronises
    // inside the payload, where the forged records are.
    let cut = start as usize + 10;
    let path = dir.path().join(ENGINE_JOURNAL_FILE);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[cut..cut + 10].fill(0xFF);
    std::fs::write(&path, &bytes).unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    assert_eq!(
        journal.session("VENUE", 0).unwrap().next_sender_seq(),
        50,
        "neither the forged numbers nor the torn turn"
    );
    assert!(journal.recovery().losses.is_empty());
}

#[test]
fn a_session_name_the_journal_could_not_read_back_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    let long = format!("FIX.4.4:GW->{}", "X".repeat(5000));
    assert!(matches!(
        journal.session(&long, 0),
        Err(StoreError::NameTooLong { .. })
    ));
    let mut ok = journal.session("FIX.4.4:GW->C1", 0).unwrap();
    ok.set_next_sender_seq(3).unwrap();
    ok.commit().unwrap();
    drop((ok, journal));
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    assert_eq!(
        journal
            .session("FIX.4.4:GW->C1", 0)
            .unwrap()
            .next_sender_seq(),
        3
    );
}

#[test]
fn a_long_and_mostly_dead_journal_is_compacted_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut after = run_turns(dir.path(), &mut Lcg(11), 30);
    let (len, model) = after.pop().unwrap();
    let small = JournalConfig {
        compact_over: 1024,
        ..config()
    };
    // Most of what the router's turns wrote is dead once the venue resets.
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    let mut venue = journal.session("VENUE", 0).unwrap();
    venue.reset(77).unwrap();
    venue.store(1, b"after the reset").unwrap();
    venue.incr_next_sender_seq().unwrap();
    venue.commit().unwrap();
    drop((venue, journal));
    let mut want = model;
    want.insert(
        "VENUE".into(),
        ((2, 1), [(1, b"after the reset".to_vec())].into()),
    );
    let before = journal_len(dir.path());
    assert!(before > len);
    let journal = EngineJournal::open(dir.path(), small, 0).unwrap();
    assert!(journal.recovery().rewritten, "compacted");
    assert!(
        journal_len(dir.path()) * 2 < before,
        "{} of {before} bytes",
        journal_len(dir.path())
    );
    assert_eq!(state_of(&journal), want);
    // It goes on from there, and reads back the same.
    let mut c1 = journal.session("C1", 0).unwrap();
    let seq = c1.next_sender_seq();
    c1.store(seq, b"next").unwrap();
    c1.incr_next_sender_seq().unwrap();
    c1.commit().unwrap();
    drop((c1, journal));
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    let c1 = want.get_mut("C1").unwrap();
    c1.0 .0 += 1;
    c1.1.insert(seq, b"next".to_vec());
    assert_eq!(state_of(&journal), want);
    assert!(journal.recovery().losses.is_empty());
}

#[test]
fn a_record_larger_than_the_write_buffer_does_not_keep_it_large() {
    let dir = tempfile::tempdir().unwrap();
    let small = JournalConfig {
        write_buffer_capacity: 4096,
        ..config()
    };
    let journal = EngineJournal::open(dir.path(), small, 0).unwrap();
    journal.set_deferred(true);
    let mut a = journal.session("A", 0).unwrap();
    a.store(1, &vec![b'x'; 256 * 1024]).unwrap();
    a.incr_next_sender_seq().unwrap();
    a.commit().unwrap();
    journal.write_turn().unwrap();
    assert!(
        journal.buffer_capacity() <= 2 * 4096,
        "{} bytes kept after the turn",
        journal.buffer_capacity()
    );
    assert_eq!(messages(&mut a)[0].1.len(), 256 * 1024, "and it reads back");
}

#[test]
fn a_resend_reads_neighbouring_records_in_one_span_and_still_checks_each() {
    let dir = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    let (mut a, mut b) = (
        journal.session("A", 0).unwrap(),
        journal.session("B", 0).unwrap(),
    );
    for seq in 1..=300u64 {
        a.store(seq, format!("A message {seq:04}").as_bytes())
            .unwrap();
        a.incr_next_sender_seq().unwrap();
        b.store(seq, format!("B message {seq:04}").as_bytes())
            .unwrap();
        b.incr_next_sender_seq().unwrap();
        a.commit().unwrap();
        b.commit().unwrap();
    }
    let seen: Vec<(u64, Vec<u8>)> = messages(&mut a);
    assert_eq!(seen.len(), 300);
    for (seq, m) in &seen {
        assert_eq!(
            m,
            format!("A message {seq:04}").as_bytes(),
            "A's own, in order"
        );
    }
    // A byte of A's 150th message changed on disk under the open journal:
    // the span that holds it is read, and the record is refused.
    let path = dir.path().join(ENGINE_JOURNAL_FILE);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes
        .windows(14)
        .position(|w| w == b"A message 0150")
        .unwrap();
    bytes[at] = b'X';
    std::fs::write(&path, &bytes).unwrap();
    let mut got = 0;
    let read = a.for_each_in_range(1, SEQ_END, &mut |_, _| got += 1);
    assert!(read.is_err(), "the damaged record is refused");
    assert_eq!(got, 149, "the messages before it were handed over");
}

#[test]
fn settle_keeps_zeros_ahead_of_the_end_and_a_reopen_takes_them_for_space() {
    let dir = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    let mut a = journal.session("A", 0).unwrap();
    a.store(1, b"one").unwrap();
    a.incr_next_sender_seq().unwrap();
    a.commit().unwrap();
    let end = journal.position().offset;
    a.settle().unwrap();
    // The next writes land inside the file: an fdatasync has no size to write.
    assert!(
        journal_len(dir.path()) >= end + 60 * 1024,
        "zeros written ahead"
    );
    a.store(2, b"two").unwrap();
    a.incr_next_sender_seq().unwrap();
    a.commit().unwrap();
    drop(a);
    drop(journal);
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    assert_eq!(
        journal.recovery().uncommitted_bytes,
        0,
        "zeros are space, not a torn write"
    );
    assert!(journal.recovery().losses.is_empty());
    let mut a = journal.session("A", 0).unwrap();
    assert_eq!(a.next_sender_seq(), 3);
    assert_eq!(
        messages(&mut a),
        [(1, b"one".to_vec()), (2, b"two".to_vec())]
    );
}

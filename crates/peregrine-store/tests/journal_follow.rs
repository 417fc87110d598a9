//! A follower of the engine journal (what a standby or a database store
//! reads): it hands over each committed transaction whole while the journal
//! is written, never what is written ahead of its commit record, goes on
//! from a saved position, and starts over when a compaction replaced the
//! file.

use std::collections::BTreeMap;
use std::path::Path;

use peregrine_store::{
    EngineJournal, FsyncPolicy, JournalChange, JournalConfig, JournalFollower, JournalPosition,
    MessageStore, StoreError, SEQ_END,
};

/// Per session name: both numbers and the messages.
type Model = BTreeMap<String, ((u64, u64), BTreeMap<u64, Vec<u8>>)>;

/// A model kept up to date from a follower's changes.
#[derive(Default)]
struct Applied {
    model: Model,
    restarts: usize,
    commits: Vec<JournalPosition>,
}

impl Applied {
    fn poll(&mut self, f: &mut JournalFollower) -> u64 {
        f.poll(&mut |c| match c {
            JournalChange::Restart => {
                self.restarts += 1;
                self.model.clear();
            }
            JournalChange::Session { name, .. } => {
                self.model.insert(name.into(), ((1, 1), BTreeMap::new()));
            }
            JournalChange::Message {
                session,
                seq,
                message,
            } => {
                self.model
                    .get_mut(session)
                    .unwrap()
                    .1
                    .insert(seq, message.into());
            }
            JournalChange::Numbers {
                session,
                next_sender,
                next_target,
            } => self.model.get_mut(session).unwrap().0 = (next_sender, next_target),
            JournalChange::Reset { session, .. } => {
                self.model.insert(session.into(), ((1, 1), BTreeMap::new()));
            }
            JournalChange::Commit { position } => self.commits.push(position),
        })
        .unwrap()
    }
}

/// What the journal itself holds (a fresh open of the directory).
fn state_of(dir: &Path) -> Model {
    let journal = EngineJournal::open(dir, JournalConfig::default(), 0).unwrap();
    journal
        .session_names()
        .into_iter()
        .map(|name| {
            let mut s = journal.session(&name, 0).unwrap();
            let mut msgs = BTreeMap::new();
            s.for_each_in_range(1, SEQ_END, &mut |seq, m| {
                msgs.insert(seq, m.to_vec());
            })
            .unwrap();
            (name, ((s.next_sender_seq(), s.next_target_seq()), msgs))
        })
        .collect()
}

fn config() -> JournalConfig {
    JournalConfig {
        // Small: a turn's records are written ahead of its commit record.
        write_buffer_capacity: 512,
        ..JournalConfig::with_fsync(FsyncPolicy::Never)
    }
}

#[test]
fn a_follower_sees_each_turn_whole_and_nothing_written_ahead_of_its_commit() {
    let dir = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    journal.set_deferred(true);
    let mut client = journal.session("FIX.4.4:GW->C1", 0).unwrap();
    let mut venue = journal.session("FIX.4.4:GW->VENUE", 0).unwrap();
    journal.write_turn().unwrap();
    let mut f = JournalFollower::open(dir.path(), None).unwrap();
    let mut applied = Applied::default();
    applied.poll(&mut f);
    for n in 1..=50u64 {
        // An order read on the client session, forwarded to the venue (big
        // enough to be written ahead of the commit record), acknowledged.
        let writes = journal.stats().writes;
        client.incr_next_target_seq().unwrap();
        venue
            .store(
                n,
                format!("35=D|11=C-{n}|58={}|", "x".repeat(600)).as_bytes(),
            )
            .unwrap();
        venue.incr_next_sender_seq().unwrap();
        client
            .store(n, format!("35=8|11=C-{n}|").as_bytes())
            .unwrap();
        client.incr_next_sender_seq().unwrap();
        client.commit().unwrap();
        venue.commit().unwrap();
        let before = applied.model.clone();
        assert!(
            journal.stats().writes > writes,
            "turn {n}: nothing written ahead"
        );
        // Written ahead, not committed: the follower sees nothing of it.
        assert_eq!(applied.poll(&mut f), 0, "turn {n}");
        assert_eq!(applied.model, before, "turn {n}");
        journal.write_turn().unwrap();
        assert_eq!(applied.poll(&mut f), 1, "turn {n}");
        assert_eq!(f.position(), journal.position());
        let c1 = &applied.model["FIX.4.4:GW->C1"];
        let v = &applied.model["FIX.4.4:GW->VENUE"];
        assert_eq!((c1.0, v.0), ((n + 1, n + 1), (n + 1, 1)), "turn {n}");
        assert!(c1.1.contains_key(&n) && v.1.contains_key(&n), "turn {n}");
    }
    drop((client, venue, journal));
    assert_eq!(applied.model, state_of(dir.path()));
}

#[test]
fn a_follower_goes_on_from_its_position_and_refuses_one_that_is_not_a_commit() {
    let dir = tempfile::tempdir().unwrap();
    let journal = EngineJournal::open(dir.path(), config(), 0).unwrap();
    let mut s = journal.session("FIX.4.4:GW->C1", 0).unwrap();
    for n in 1..=5u64 {
        s.store(n, format!("35=B|58=news {n}|").as_bytes()).unwrap();
        s.incr_next_sender_seq().unwrap();
        s.commit().unwrap();
    }
    let mut f = JournalFollower::open(dir.path(), None).unwrap();
    let mut first = Applied::default();
    first.poll(&mut f);
    let saved = f.position();
    for n in 6..=8u64 {
        s.store(n, format!("35=B|58=news {n}|").as_bytes()).unwrap();
        s.incr_next_sender_seq().unwrap();
        s.commit().unwrap();
    }
    // Opened again at the saved position: only what came after, and it
    // still knows the session's name from before the position.
    let mut later = JournalFollower::open(dir.path(), Some(saved)).unwrap();
    let mut seen = Vec::new();
    later
        .poll(&mut |c| {
            if let JournalChange::Message { session, seq, .. } = c {
                seen.push((session.to_string(), seq));
            }
        })
        .unwrap();
    let want: Vec<_> = (6..=8).map(|n| ("FIX.4.4:GW->C1".to_string(), n)).collect();
    assert_eq!(seen, want);
    assert_eq!(later.position(), journal.position());

    let inside = JournalPosition {
        offset: saved.offset - 3,
        ..saved
    };
    assert!(matches!(
        JournalFollower::open(dir.path(), Some(inside)),
        Err(StoreError::Corrupt { .. })
    ));
}

#[test]
fn after_a_compaction_a_follower_starts_over_from_the_live_state() {
    let dir = tempfile::tempdir().unwrap();
    let small = JournalConfig {
        compact_over: 64 * 1024,
        ..config()
    };
    {
        let journal = EngineJournal::open(dir.path(), small, 0).unwrap();
        let mut a = journal.session("FIX.4.4:GW->A", 0).unwrap();
        let mut b = journal.session("FIX.4.4:GW->B", 0).unwrap();
        // Mostly dead: A is reset after 400 messages, B keeps its few.
        for n in 1..=400u64 {
            a.store(n, format!("35=B|58={}|", "y".repeat(300)).as_bytes())
                .unwrap();
            a.incr_next_sender_seq().unwrap();
            a.commit().unwrap();
        }
        a.reset(7).unwrap();
        a.commit().unwrap();
        for n in 1..=3u64 {
            b.store(n, b"35=D|11=keep|").unwrap();
            b.incr_next_sender_seq().unwrap();
            b.commit().unwrap();
        }
    }
    let mut f = JournalFollower::open(dir.path(), None).unwrap();
    let mut applied = Applied::default();
    applied.poll(&mut f);
    let before_compaction = f.position();
    let len_before = std::fs::metadata(dir.path().join("engine.journal"))
        .unwrap()
        .len();

    // The writer opens it again: long and mostly dead, it is compacted.
    let journal = EngineJournal::open(dir.path(), small, 0).unwrap();
    assert!(journal.recovery().rewritten);
    let len_after = std::fs::metadata(dir.path().join("engine.journal"))
        .unwrap()
        .len();
    assert!(len_after * 4 < len_before, "{len_after} of {len_before}");
    let mut b = journal.session("FIX.4.4:GW->B", 0).unwrap();
    b.store(4, b"35=D|11=after|").unwrap();
    b.incr_next_sender_seq().unwrap();
    b.commit().unwrap();

    // The follower notices the new file: it starts over, then goes on.
    let mut after = Applied {
        model: applied.model.clone(),
        ..Applied::default()
    };
    assert_eq!(after.poll(&mut f), 2);
    assert_eq!(after.restarts, 1);
    assert!(after.commits[0].turn > before_compaction.turn);
    assert_eq!(f.position(), journal.position());
    drop((b, journal));
    assert_eq!(after.model, state_of(dir.path()));
    assert_eq!(after.model["FIX.4.4:GW->A"].0, (1, 1));

    // A follower opened with a position from before the compaction also
    // starts over (its offsets mean nothing in the new file).
    let mut late = JournalFollower::open(dir.path(), Some(before_compaction)).unwrap();
    let mut again = Applied::default();
    again.poll(&mut late);
    assert_eq!((again.restarts, again.model), (1, state_of(dir.path())));
}

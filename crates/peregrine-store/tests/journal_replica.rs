//! A replica journal kept equal to a leader's through a follower (what a
//! standby applies): after every transaction, after a crash of the replica
//! at any change of any transaction, with its position file torn, and with
//! its journal older than its position (a machine that lost what it had not
//! fsynced), the replica's sessions end equal to the leader's.

use std::collections::BTreeMap;
use std::path::Path;

use peregrine_store::{
    EngineJournal, FsyncPolicy, JournalChange, JournalConfig, JournalFollower, JournalReplica,
    JournalStore, MessageStore, ENGINE_JOURNAL_FILE, REPLICA_POSITION_FILE, SEQ_END,
};

/// Per session name: both numbers and the messages.
type Model = BTreeMap<String, ((u64, u64), BTreeMap<u64, Vec<u8>>)>;

fn config() -> JournalConfig {
    JournalConfig {
        write_buffer_capacity: 1024,
        ..JournalConfig::with_fsync(FsyncPolicy::Never)
    }
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn model_of<'a>(stores: impl Iterator<Item = (String, &'a mut JournalStore)>) -> Model {
    stores
        .map(|(name, s)| {
            let mut msgs = BTreeMap::new();
            s.for_each_in_range(1, SEQ_END, &mut |seq, m| {
                msgs.insert(seq, m.to_vec());
            })
            .unwrap();
            (name, ((s.next_sender_seq(), s.next_target_seq()), msgs))
        })
        .collect()
}

fn replica_model(r: &mut JournalReplica) -> Model {
    let names: Vec<String> = r.session_names().map(str::to_string).collect();
    let mut m = Model::new();
    for n in names {
        m.extend(model_of(std::iter::once((n.clone(), r.store(&n).unwrap()))));
    }
    m
}

/// A leader routing between `n` sessions, `turns` turns, some resets.
fn route(
    journal: &EngineJournal,
    stores: &mut [(String, JournalStore)],
    rng: &mut Rng,
    turns: u64,
) {
    for t in 0..turns {
        let from = rng.below(stores.len() as u64) as usize;
        stores[from].1.incr_next_target_seq().unwrap();
        for _ in 0..rng.below(4) {
            let to = rng.below(stores.len() as u64) as usize;
            let s = &mut stores[to].1;
            let seq = s.next_sender_seq();
            let body = format!("35=D|11=T{t}|58={}|", "z".repeat(rng.below(900) as usize));
            s.store(seq, body.as_bytes()).unwrap();
            s.incr_next_sender_seq().unwrap();
        }
        if rng.below(20) == 0 {
            let who = rng.below(stores.len() as u64) as usize;
            stores[who].1.reset(t as i64).unwrap();
        }
        for (_, s) in stores.iter_mut() {
            s.commit().unwrap();
        }
        journal.write_turn().unwrap();
    }
}

fn leader(dir: &Path, n: usize) -> (EngineJournal, Vec<(String, JournalStore)>) {
    let journal = EngineJournal::open(dir, config(), 0).unwrap();
    journal.set_deferred(true);
    let stores = (0..n)
        .map(|i| {
            let name = format!("FIX.4.4:GW->S{i}");
            let s = journal.session(&name, 0).unwrap();
            (name, s)
        })
        .collect();
    (journal, stores)
}

/// Follows the leader into the replica until nothing is new; stops after
/// `limit` changes (a crash) when given. Whether it stopped early.
fn follow(leader: &Path, replica: &mut JournalReplica, limit: Option<usize>) -> bool {
    let mut f = JournalFollower::open(leader, replica.position()).unwrap();
    let mut left = limit.unwrap_or(usize::MAX);
    loop {
        let mut stopped = false;
        let mut changes = Vec::new();
        // Copy the changes out, so that the crash can come between any two.
        let n = f
            .poll(&mut |c| {
                changes.push(match c {
                    JournalChange::Message {
                        session,
                        seq,
                        message,
                    } => (0, session.to_string(), seq, message.to_vec(), 0, None),
                    JournalChange::Session {
                        name,
                        creation_time,
                    } => (1, name.to_string(), 0, Vec::new(), creation_time, None),
                    JournalChange::Numbers {
                        session,
                        next_sender,
                        next_target,
                    } => (
                        2,
                        session.to_string(),
                        next_sender,
                        Vec::new(),
                        next_target as i64,
                        None,
                    ),
                    JournalChange::Reset {
                        session,
                        creation_time,
                    } => (3, session.to_string(), 0, Vec::new(), creation_time, None),
                    JournalChange::Restart => (4, String::new(), 0, Vec::new(), 0, None),
                    JournalChange::Commit { position } => {
                        (5, String::new(), 0, Vec::new(), 0, Some(position))
                    }
                })
            })
            .unwrap();
        for (kind, name, seq, msg, x, pos) in &changes {
            if left == 0 {
                stopped = true;
                break;
            }
            left -= 1;
            let change = match kind {
                0 => JournalChange::Message {
                    session: name,
                    seq: *seq,
                    message: msg,
                },
                1 => JournalChange::Session {
                    name,
                    creation_time: *x,
                },
                2 => JournalChange::Numbers {
                    session: name,
                    next_sender: *seq,
                    next_target: *x as u64,
                },
                3 => JournalChange::Reset {
                    session: name,
                    creation_time: *x,
                },
                4 => JournalChange::Restart,
                _ => JournalChange::Commit {
                    position: pos.unwrap(),
                },
            };
            replica.apply(change).unwrap();
        }
        if stopped {
            return true;
        }
        if n == 0 {
            return false;
        }
    }
}

#[test]
fn a_replica_equals_its_leader_after_every_turn() {
    let (ldir, rdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (journal, mut stores) = leader(ldir.path(), 4);
    let mut replica = JournalReplica::open(rdir.path(), config(), 0).unwrap();
    let mut rng = Rng(0x26);
    for _ in 0..40 {
        let turns = 1 + rng.below(3);
        route(&journal, &mut stores, &mut rng, turns);
        follow(ldir.path(), &mut replica, None);
        assert_eq!(replica.position(), Some(journal.position()));
        let want = model_of(stores.iter_mut().map(|(n, s)| (n.clone(), s)));
        assert_eq!(replica_model(&mut replica), want);
    }
}

#[test]
fn a_replica_crashed_anywhere_goes_on_to_equal_its_leader() {
    let work = tempfile::tempdir().unwrap();
    let mut checked = [0usize; 3];
    for seed in 1..=12u64 {
        let (ldir, rdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (journal, mut stores) = leader(ldir.path(), 2 + seed as usize % 4);
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut replica = JournalReplica::open(rdir.path(), config(), 0).unwrap();
        for round in 0..6 {
            let turns = 5 + rng.below(10);
            route(&journal, &mut stores, &mut rng, turns);
            // A crash after a random number of changes: nothing more written,
            // as after kill -9 (no destructor runs).
            let limit = rng.below(60) as usize;
            if follow(ldir.path(), &mut replica, Some(limit)) {
                std::mem::forget(replica);
                match rng.below(3) {
                    // As the crash left it.
                    0 => checked[0] += 1,
                    // The position file torn: one slot is garbage.
                    1 => {
                        let p = rdir.path().join(REPLICA_POSITION_FILE);
                        let mut b = std::fs::read(&p).unwrap();
                        let at = rng.below(b.len().max(1) as u64) as usize;
                        if let Some(x) = b.get_mut(at) {
                            *x ^= 0x5a;
                        }
                        std::fs::write(&p, b).unwrap();
                        checked[1] += 1;
                    }
                    // The journal lost what it had not fsynced: an older copy
                    // (from before this round) under a newer position.
                    _ => {
                        let old = work.path().join(format!("{seed}-{round}"));
                        if old.exists() {
                            std::fs::copy(&old, rdir.path().join(ENGINE_JOURNAL_FILE)).unwrap();
                            checked[2] += 1;
                        }
                    }
                }
                replica = JournalReplica::open(rdir.path(), config(), 0).unwrap();
            }
            follow(ldir.path(), &mut replica, None);
            assert_eq!(
                replica.position(),
                Some(journal.position()),
                "seed {seed} round {round}"
            );
            // Only the sessions the replica named since it opened are in
            // `store`; compare through a fresh open of the replica's journal.
            drop(replica);
            let want = model_of(stores.iter_mut().map(|(n, s)| (n.clone(), s)));
            let copy = EngineJournal::open(rdir.path(), config(), 0).unwrap();
            let mut views: Vec<(String, JournalStore)> = copy
                .session_names()
                .into_iter()
                .map(|n| {
                    let s = copy.session(&n, 0).unwrap();
                    (n, s)
                })
                .collect();
            assert_eq!(
                model_of(views.iter_mut().map(|(n, s)| (n.clone(), s))),
                want,
                "seed {seed} round {round}"
            );
            drop((views, copy));
            std::fs::copy(
                rdir.path().join(ENGINE_JOURNAL_FILE),
                work.path().join(format!("{seed}-{}", round + 1)),
            )
            .unwrap();
            replica = JournalReplica::open(rdir.path(), config(), 0).unwrap();
        }
    }
    assert!(checked.iter().all(|&c| c > 3), "{checked:?}");
}

#[test]
fn a_replica_starts_over_when_its_leader_was_compacted() {
    let (ldir, rdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let small = JournalConfig {
        compact_over: 32 * 1024,
        ..config()
    };
    let mut rng = Rng(0x2626);
    {
        let (journal, mut stores) = leader(ldir.path(), 3);
        route(&journal, &mut stores, &mut rng, 200);
        for (_, s) in stores.iter_mut() {
            s.reset(1).unwrap();
            s.commit().unwrap();
        }
        route(&journal, &mut stores, &mut rng, 5);
    }
    let mut replica = JournalReplica::open(rdir.path(), small, 0).unwrap();
    follow(ldir.path(), &mut replica, None);
    let before = std::fs::metadata(rdir.path().join(ENGINE_JOURNAL_FILE))
        .unwrap()
        .len();
    // The leader starts again: long and mostly dead, it is compacted.
    let journal = EngineJournal::open(ldir.path(), small, 0).unwrap();
    assert!(journal.recovery().rewritten);
    follow(ldir.path(), &mut replica, None);
    assert_eq!(replica.position(), Some(journal.position()));
    let after = std::fs::metadata(rdir.path().join(ENGINE_JOURNAL_FILE))
        .unwrap()
        .len();
    assert!(
        after * 4 < before,
        "the replica made anew: {after} of {before}"
    );
    let names = journal.session_names();
    let mut views: Vec<(String, JournalStore)> = names
        .iter()
        .map(|n| (n.clone(), journal.session(n, 0).unwrap()))
        .collect();
    let want = model_of(views.iter_mut().map(|(n, s)| (n.clone(), s)));
    assert_eq!(replica_model(&mut replica), want);
}

//! The engine journal under crashes, for transactions spanning sessions: an
//! incoming message's number on one session and what it caused on others
//! (forwards, its own answer) come back together or not at all, whatever a
//! torn write left, and damage in an earlier transaction costs that
//! transaction on every session it touched, the later ones kept.
//!
//! Every expected state is replayed from a log of the operations each turn
//! staged (`Op`), independently of the journal's own scan.

use std::collections::BTreeMap;
use std::path::Path;

use peregrine_store::{
    EngineJournal, FsyncPolicy, JournalChange, JournalConfig, JournalFollower, JournalStore,
    MessageStore, OnDamage, StoreError, ENGINE_JOURNAL_FILE, SEQ_END,
};

fn config() -> JournalConfig {
    JournalConfig {
        // Small: big turns are written ahead of their commit record too.
        write_buffer_capacity: 2048,
        ..JournalConfig::with_fsync(FsyncPolicy::Never)
    }
}

fn report() -> JournalConfig {
    JournalConfig {
        on_damage: OnDamage::Report,
        ..config()
    }
}

/// xorshift: the tests must not depend on a seed file.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// What a turn staged for one session, in order.
#[derive(Clone, Debug)]
enum Op {
    Store(u64, Vec<u8>),
    Numbers(u64, u64),
    Reset,
}

/// One committed transaction: its operations by session, and where it lies
/// in the file.
#[derive(Clone, Debug)]
struct Turn {
    ops: Vec<(usize, Op)>,
    start: u64,
    end: u64,
}

/// Per session (in the journal's order): its numbers and messages.
type Model = Vec<((u64, u64), BTreeMap<u64, Vec<u8>>)>;

fn replay(sessions: usize, turns: &[&Turn]) -> Model {
    let mut m: Model = vec![((1, 1), BTreeMap::new()); sessions];
    for t in turns {
        for (s, op) in &t.ops {
            match op {
                Op::Store(seq, body) => {
                    m[*s].1.insert(*seq, body.clone());
                }
                Op::Numbers(a, b) => m[*s].0 = (*a, *b),
                Op::Reset => m[*s] = ((1, 1), BTreeMap::new()),
            }
        }
    }
    m
}

fn state_of(journal: &EngineJournal) -> Model {
    journal
        .session_names()
        .iter()
        .map(|name| {
            let mut s = journal.session(name, 0).unwrap();
            let mut msgs = BTreeMap::new();
            s.for_each_in_range(1, SEQ_END, &mut |seq, m| {
                msgs.insert(seq, m.to_vec());
            })
            .unwrap();
            ((s.next_sender_seq(), s.next_target_seq()), msgs)
        })
        .collect()
}

/// What a follower reading `bytes` (before any writer opened them again)
/// applies: the committed transactions it can believe, up to the first
/// that does not check out.
fn followed(dir: &Path, bytes: &[u8]) -> Model {
    std::fs::write(dir.join(ENGINE_JOURNAL_FILE), bytes).unwrap();
    let mut f = JournalFollower::open(dir, None).unwrap();
    let (mut names, mut m): (Vec<String>, Model) = (Vec::new(), Vec::new());
    f.poll(&mut |c| {
        let at = |names: &Vec<String>, s: &str| names.iter().position(|n| n == s).unwrap();
        match c {
            JournalChange::Session { name, .. } => {
                names.push(name.to_string());
                m.push(((1, 1), BTreeMap::new()));
            }
            JournalChange::Message {
                session,
                seq,
                message,
            } => {
                m[at(&names, session)].1.insert(seq, message.to_vec());
            }
            JournalChange::Numbers {
                session,
                next_sender,
                next_target,
            } => {
                m[at(&names, session)].0 = (next_sender, next_target);
            }
            JournalChange::Reset { session, .. } => {
                m[at(&names, session)] = ((1, 1), BTreeMap::new());
            }
            JournalChange::Restart | JournalChange::Commit { .. } => {}
        }
    })
    .unwrap();
    m
}

/// An engine whose sessions route: drives the journal in deferred mode and
/// logs what each turn staged.
struct Router {
    journal: EngineJournal,
    stores: Vec<JournalStore>,
    /// The numbers each view last staged (a view stages them only when
    /// they changed).
    staged: Vec<(u64, u64)>,
    turns: Vec<Turn>,
    ops: Vec<(usize, Op)>,
}

impl Router {
    fn new(dir: &Path, sessions: usize) -> Router {
        let journal = EngineJournal::open(dir, config(), 0).unwrap();
        journal.set_deferred(true);
        let stores = (0..sessions)
            .map(|i| journal.session(&format!("FIX.4.4:GW->S{i}"), 0).unwrap())
            .collect();
        let mut r = Router {
            journal,
            stores,
            staged: vec![(1, 1); sessions],
            turns: Vec::new(),
            ops: Vec::new(),
        };
        r.end_turn();
        r
    }

    /// An incoming message read on `from`: its number.
    fn incoming(&mut self, from: usize) {
        self.stores[from].incr_next_target_seq().unwrap();
    }

    fn send(&mut self, on: usize, body: Vec<u8>) {
        let s = &mut self.stores[on];
        let seq = s.next_sender_seq();
        s.store(seq, &body).unwrap();
        s.incr_next_sender_seq().unwrap();
        self.ops.push((on, Op::Store(seq, body)));
    }

    fn reset(&mut self, who: usize) {
        self.stores[who].reset(0).unwrap();
        self.staged[who] = (1, 1);
        self.ops.push((who, Op::Reset));
    }

    /// Every session commits (staged), then the turn is written.
    fn end_turn(&mut self) {
        let start = self.journal.position().offset;
        for (i, s) in self.stores.iter_mut().enumerate() {
            s.commit().unwrap();
            let now = (s.next_sender_seq(), s.next_target_seq());
            if now != self.staged[i] {
                self.staged[i] = now;
                self.ops.push((i, Op::Numbers(now.0, now.1)));
            }
        }
        self.journal.write_turn().unwrap();
        let end = self.journal.position().offset;
        self.turns.push(Turn {
            ops: std::mem::take(&mut self.ops),
            start,
            end,
        });
    }

    /// The turns, the file's bytes; the process is gone (nothing more is
    /// written, as after `kill -9`).
    fn crash(self) -> (Vec<Turn>, Vec<u8>) {
        let bytes = std::fs::read(self.journal.path()).unwrap();
        std::mem::forget(self.stores);
        (self.turns, bytes)
    }
}

/// Opens `bytes` as a journal.
fn reopen(dir: &Path, bytes: &[u8], config: JournalConfig) -> Result<EngineJournal, StoreError> {
    std::fs::write(dir.join(ENGINE_JOURNAL_FILE), bytes).unwrap();
    EngineJournal::open(dir, config, 0)
}

/// A fan-out: an order read on the client session, forwarded to two venues,
/// and acknowledged on the client session, in one turn; a turn before it
/// and, when `then`, one after.
fn fan_out(dir: &Path, then: bool) -> (Vec<Turn>, Vec<u8>) {
    let mut r = Router::new(dir, 3);
    r.incoming(0);
    r.send(1, b"35=D|11=C-0|warm up".to_vec());
    r.end_turn();
    r.incoming(0);
    r.send(1, b"35=D|11=C-1|to venue one".to_vec());
    r.send(2, vec![b'v'; 3000]); // written ahead of the commit record
    r.send(0, b"35=8|11=C-1|150=A".to_vec());
    r.end_turn();
    if then {
        r.incoming(2);
        r.send(0, b"35=8|11=C-1|150=0".to_vec());
        r.end_turn();
    }
    r.crash()
}

/// Whether the fan-out of `fan_out` is in `m`: the client's incoming
/// number, both forwards and the acknowledgement, all or none.
fn fan_out_applied(m: &Model) -> bool {
    let parts = [
        m[0].0 .1 == 3,
        m[1].1.contains_key(&2),
        m[2].1.contains_key(&1),
        m[0].1.contains_key(&1),
    ];
    assert!(
        parts.iter().all(|&p| p == parts[0]),
        "a transaction spanning three sessions came back in part: {parts:?}"
    );
    parts[0]
}

#[test]
fn a_fan_out_torn_at_any_byte_is_on_every_session_or_on_none() {
    let dir = tempfile::tempdir().unwrap();
    let (turns, full) = fan_out(dir.path(), false);
    let before = replay(3, &[&turns[0], &turns[1]]);
    let after = replay(3, &[&turns[0], &turns[1], &turns[2]]);
    let work = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x25);
    let mut applied = 0;
    for cut in turns[1].end..=full.len() as u64 {
        for tail in 0..4 {
            let mut bytes = full[..cut as usize].to_vec();
            let pad = (full.len() as u64 - cut).min(1 + rng.below(64)) as usize;
            match tail {
                0 => {}
                1 => bytes.extend(std::iter::repeat_n(0, pad)),
                _ => bytes.extend(rng.bytes(pad)),
            }
            let journal = reopen(work.path(), &bytes, config())
                .unwrap_or_else(|e| panic!("cut at {cut}, tail {tail}: {e}"));
            let state = state_of(&journal);
            let whole = bytes.len() >= full.len() && bytes[..full.len()] == full[..];
            assert_eq!(fan_out_applied(&state), whole, "cut at {cut}, tail {tail}");
            assert_eq!(&state, if whole { &after } else { &before });
            assert!(journal.recovery().losses.is_empty());
            applied += usize::from(whole);
        }
    }
    assert!(applied > 0);
    // Pages written out of order: any byte of the turn wrong, the rest
    // (its commit record included) on disk.
    for at in turns[2].start..turns[2].end {
        let mut bytes = full.clone();
        bytes[at as usize] ^= 1 << rng.below(8);
        let journal = reopen(work.path(), &bytes, config()).unwrap();
        let state = state_of(&journal);
        assert!(!fan_out_applied(&state), "byte {at} flipped");
        assert_eq!(state, before, "byte {at} flipped");
        assert!(
            journal.recovery().losses.is_empty(),
            "a torn write, byte {at}"
        );
    }
}

#[test]
fn damage_to_an_earlier_fan_out_costs_it_on_every_session_and_keeps_the_later_turns() {
    let dir = tempfile::tempdir().unwrap();
    let (turns, full) = fan_out(dir.path(), true);
    let without: Model = replay(3, &[&turns[0], &turns[1], &turns[3]]);
    let work = tempfile::tempdir().unwrap();
    // Every byte of the fan-out's transaction, its commit record included.
    for at in turns[2].start..turns[2].end {
        let mut bytes = full.clone();
        bytes[at as usize] ^= 0x10;
        let refused = reopen(work.path(), &bytes, config());
        assert!(
            matches!(refused, Err(StoreError::Damaged { ref losses, .. }) if losses.len() == 1),
            "byte {at} of {}..{}: {:?}",
            turns[2].start,
            turns[2].end,
            refused.map(|j| j.recovery())
        );
        let journal = reopen(work.path(), &bytes, report()).unwrap();
        let losses = journal.recovery().losses;
        assert_eq!(losses.len(), 1, "byte {at}");
        assert!(
            losses[0].offset <= at && at < losses[0].offset + losses[0].len,
            "byte {at} outside the loss reported: {losses:?}"
        );
        assert_eq!(journal.position().offset, turns[3].end, "byte {at}");
        let state = state_of(&journal);
        // None of its messages, on any session (the client's numbers are
        // the later turn's: a loss, reported).
        let kept = [
            state[1].1.contains_key(&2),
            state[2].1.contains_key(&1),
            state[0].1.contains_key(&1),
        ];
        assert_eq!(kept, [false; 3], "byte {at}: a part of it kept");
        assert_eq!(state, without, "byte {at}: the later turn kept");
    }
}

/// Many turns of many sessions routing to each other, some large, some
/// resets. Returns the turns and the file.
fn random_routing(dir: &Path, rng: &mut Rng) -> (usize, Vec<Turn>, Vec<u8>) {
    let sessions = 2 + rng.below(7) as usize;
    let mut r = Router::new(dir, sessions);
    for t in 0..10 + rng.below(40) {
        for _ in 0..1 + rng.below(3) {
            let from = rng.below(sessions as u64) as usize;
            r.incoming(from);
            for _ in 0..rng.below(4) {
                let to = rng.below(sessions as u64) as usize;
                let pad = if rng.below(10) == 0 { 2500 } else { 60 };
                let mut body = format!("35=D|11=T{t}-{from}->{to}|58=").into_bytes();
                body.extend(std::iter::repeat_n(b'x', rng.below(pad) as usize));
                r.send(to, body);
            }
        }
        if rng.below(15) == 0 {
            let who = rng.below(sessions as u64) as usize;
            r.reset(who);
        }
        r.end_turn();
    }
    let (turns, bytes) = r.crash();
    (sessions, turns, bytes)
}

#[test]
fn random_routing_cut_torn_or_damaged_anywhere_keeps_every_transaction_whole() {
    let work = tempfile::tempdir().unwrap();
    let mut checked = [0usize; 4];
    for seed in 1..=30u64 {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let (n, turns, full) = random_routing(dir.path(), &mut rng);
        let last = turns.len() - 1;
        let all: Vec<&Turn> = turns.iter().collect();
        for _ in 0..40 {
            // A cut anywhere after the sessions were made, and what the torn
            // write left after it: nothing, zeros or garbage.
            let cut = turns[0].end + rng.below(full.len() as u64 - turns[0].end + 1);
            let mut bytes = full[..cut as usize].to_vec();
            let pad = rng.below(300) as usize;
            match rng.below(3) {
                0 => {}
                1 => bytes.extend(std::iter::repeat_n(0, pad)),
                _ => bytes.extend(rng.bytes(pad)),
            }
            let same = bytes.iter().zip(&full).take_while(|(a, b)| a == b).count() as u64;
            let kept = turns.iter().filter(|t| t.end <= same).count();
            // A follower reading the file as the crash left it applies the
            // same transactions, each whole.
            assert_eq!(
                followed(work.path(), &bytes),
                replay(n, &all[..kept]),
                "follower: seed {seed}, cut at {cut}"
            );
            let journal = reopen(work.path(), &bytes, config())
                .unwrap_or_else(|e| panic!("seed {seed}, cut at {cut}: {e}"));
            assert_eq!(
                state_of(&journal),
                replay(n, &all[..kept]),
                "seed {seed}, cut at {cut}, {} bytes after",
                bytes.len() as u64 - cut
            );
            assert!(journal.recovery().losses.is_empty(), "seed {seed}");
            checked[0] += 1;

            // A hole in turn j, the file ending with it: a torn write.
            let j = 1 + rng.below(last as u64) as usize;
            let t = &turns[j];
            let mut bytes = full[..t.end as usize].to_vec();
            let at = (t.start + rng.below(t.end - t.start)) as usize;
            let len = (1 + rng.below(64) as usize).min(t.end as usize - at);
            bytes[at] ^= 0x80;
            for b in &mut bytes[at + 1..at + len] {
                *b = rng.next() as u8;
            }
            assert_eq!(
                followed(work.path(), &bytes),
                replay(n, &all[..j]),
                "follower: seed {seed}, hole at {at}+{len} in the last turn {j}"
            );
            let journal = reopen(work.path(), &bytes, config())
                .unwrap_or_else(|e| panic!("seed {seed}, hole at {at} in turn {j}: {e}"));
            assert_eq!(
                state_of(&journal),
                replay(n, &all[..j]),
                "seed {seed}, hole at {at}+{len} in the last turn {j}"
            );
            assert!(journal.recovery().losses.is_empty(), "seed {seed}");
            checked[1] += 1;

            // The same hole with the later turns after it: that turn is
            // lost on every session, refused or reported, the rest kept.
            if j == last {
                continue;
            }
            bytes.extend_from_slice(&full[t.end as usize..]);
            // A follower stops before damage (it never skips a transaction).
            assert_eq!(
                followed(work.path(), &bytes),
                replay(n, &all[..j]),
                "follower: seed {seed}, hole in turn {j} of {last}"
            );
            assert!(
                matches!(
                    reopen(work.path(), &bytes, config()),
                    Err(StoreError::Damaged { .. })
                ),
                "seed {seed}, hole at {at}+{len} in turn {j} ({}..{}) of {last}",
                t.start,
                t.end
            );
            let journal = reopen(work.path(), &bytes, report()).unwrap();
            let mut without = all.clone();
            without.remove(j);
            assert_eq!(
                state_of(&journal),
                replay(n, &without),
                "seed {seed}, hole at {at}+{len} in turn {j} of {last}"
            );
            assert_eq!(journal.recovery().losses.len(), 1, "seed {seed}");
            assert_eq!(journal.position().offset, full.len() as u64);
            checked[2] += 1;

            // And the next turn damaged too (half the time in its commit
            // record): both lost as one stretch, the later turns kept.
            if j + 1 == last {
                continue;
            }
            let u = &turns[j + 1];
            let at = if rng.below(2) == 0 {
                u.end - 1 - rng.below(44)
            } else {
                u.start + rng.below(u.end - u.start)
            };
            bytes[at as usize] ^= 0x04;
            assert!(matches!(
                reopen(work.path(), &bytes, config()),
                Err(StoreError::Damaged { .. })
            ));
            let journal = reopen(work.path(), &bytes, report()).unwrap();
            let mut without = all.clone();
            without.drain(j..j + 2);
            assert_eq!(
                state_of(&journal),
                replay(n, &without),
                "seed {seed}, turns {j} and {} damaged (at {at})",
                j + 1
            );
            assert_eq!(journal.recovery().losses.len(), 1, "seed {seed}");
            assert_eq!(journal.position().offset, full.len() as u64);
            checked[3] += 1;
        }
    }
    assert!(checked.iter().all(|&c| c > 400), "{checked:?}");
}

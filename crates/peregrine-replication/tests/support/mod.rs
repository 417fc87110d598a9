//! Shared pieces of the replication tests: an engine journal written turn by
//! turn, the state a follower reads from a journal, and pumping both sides.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use peregrine_aeron::{Backoff, IdleStrategy};
use peregrine_replication::{ReplicationSink, ReplicationSource, TermSource};
use peregrine_store::{
    EngineJournal, FsyncPolicy, JournalChange, JournalConfig, JournalFollower, JournalStore,
    MessageStore,
};

/// Generous bound for what should take milliseconds.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Per session: (next sender, next target) and the messages by MsgSeqNum.
pub type Model = BTreeMap<String, ((u64, u64), BTreeMap<u64, Vec<u8>>)>;

/// What a follower reads from the engine journal in `dir`, from its start,
/// folded into each session's state.
pub fn model(dir: &Path) -> Model {
    let mut m = Model::new();
    let mut f = JournalFollower::open(dir, None).unwrap();
    while f
        .poll(&mut |c| match c {
            JournalChange::Restart => m.clear(),
            JournalChange::Session { name, .. } => {
                m.entry(name.to_string())
                    .or_insert(((1, 1), BTreeMap::new()));
            }
            JournalChange::Message {
                session,
                seq,
                message,
            } => {
                m.entry(session.to_string())
                    .or_insert(((1, 1), BTreeMap::new()))
                    .1
                    .insert(seq, message.to_vec());
            }
            JournalChange::Numbers {
                session,
                next_sender,
                next_target,
            } => {
                m.entry(session.to_string())
                    .or_insert(((1, 1), BTreeMap::new()))
                    .0 = (next_sender, next_target);
            }
            JournalChange::Reset { session, .. } => {
                m.insert(session.to_string(), ((1, 1), BTreeMap::new()));
            }
            JournalChange::Commit { .. } => {}
        })
        .unwrap()
        > 0
    {}
    m
}

pub fn journal_config() -> JournalConfig {
    JournalConfig {
        write_buffer_capacity: 4096,
        ..JournalConfig::with_fsync(FsyncPolicy::Never)
    }
}

pub struct Rng(pub u64);
impl Rng {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// An engine journal of `n` sessions, as an engine writes it.
pub struct Active {
    pub journal: EngineJournal,
    pub stores: Vec<JournalStore>,
    pub rng: Rng,
    pub turn: u64,
}

impl Active {
    pub fn open(dir: &Path, n: usize, config: JournalConfig) -> Active {
        let journal = EngineJournal::open(dir, config, 0).unwrap();
        journal.set_deferred(true);
        let stores = (0..n)
            .map(|i| journal.session(&format!("FIX.4.4:GW->S{i}"), 0).unwrap())
            .collect();
        Active {
            journal,
            stores,
            rng: Rng(0x2626_0001),
            turn: 0,
        }
    }

    /// `turns` turns: a message in, up to three out (up to `max_body`
    /// bytes each), now and then a reset.
    pub fn turns(&mut self, turns: u64, max_body: u64) {
        for _ in 0..turns {
            self.turn += 1;
            let t = self.turn;
            let n = self.stores.len() as u64;
            let from = self.rng.below(n) as usize;
            self.stores[from].incr_next_target_seq().unwrap();
            for _ in 0..self.rng.below(4) {
                let to = self.rng.below(n) as usize;
                let s = &mut self.stores[to];
                let seq = s.next_sender_seq();
                let pad = "z".repeat(self.rng.below(max_body) as usize);
                s.store(seq, format!("35=D|11=T{t}|58={pad}|").as_bytes())
                    .unwrap();
                s.incr_next_sender_seq().unwrap();
            }
            if self.rng.below(40) == 0 {
                let who = self.rng.below(n) as usize;
                self.stores[who].reset(t as i64).unwrap();
            }
            for s in self.stores.iter_mut() {
                s.commit().unwrap();
            }
            self.journal.write_turn().unwrap();
        }
    }

    /// One message of `len` bytes on the first session, committed.
    pub fn big(&mut self, len: usize) {
        let s = &mut self.stores[0];
        let seq = s.next_sender_seq();
        let body: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
        s.store(seq, &body).unwrap();
        s.incr_next_sender_seq().unwrap();
        s.commit().unwrap();
        self.journal.write_turn().unwrap();
    }
}

/// Polls `source` and `sink` (each, if given) until `done`, at most
/// [`PATIENCE`]; whether `done` held.
pub fn pump<T: TermSource>(
    mut source: Option<&mut ReplicationSource<T>>,
    mut sink: Option<&mut ReplicationSink>,
    mut done: impl FnMut(Option<&ReplicationSource<T>>, Option<&ReplicationSink>) -> bool,
) -> bool {
    let end = Instant::now() + PATIENCE;
    let mut idle = Backoff::default();
    while Instant::now() < end {
        let mut work = 0;
        if let Some(s) = source.as_deref_mut() {
            work += s.poll().unwrap();
        }
        if let Some(s) = sink.as_deref_mut() {
            work += s.poll().unwrap();
        }
        if done(source.as_deref(), sink.as_deref()) {
            return true;
        }
        idle.idle(work);
    }
    false
}
pub mod node;

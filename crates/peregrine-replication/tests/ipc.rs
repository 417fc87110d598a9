//! Replication over Aeron IPC, both sides in this process on one embedded
//! media driver: the standby's replica equals the active's journal after
//! every burst (what a JournalFollower reads from each), a standby that
//! starts late or is dropped mid-stream catches up from its position, a
//! deposed active's frames are refused, compaction while the standby is
//! behind, and back pressure.

mod support;

use peregrine_aeron::{AeronClient, Channel, DriverConfig};
use peregrine_ha::Term;
use peregrine_replication::{ReplicationConfig, ReplicationSink, ReplicationSource};
use peregrine_store::{EngineJournal, JournalConfig, MessageStore};
use std::time::{Duration, Instant};
use support::*;

fn client() -> AeronClient {
    AeronClient::embedded(&DriverConfig {
        sparse_terms: true,
        ..DriverConfig::default()
    })
    .unwrap()
}

fn term(n: u64) -> Term {
    Term::new(n).unwrap()
}

/// Small terms (64 KiB: a frame is at most 8 KiB) so that long messages go
/// in chunks and back pressure comes soon.
fn small_ipc() -> ReplicationConfig {
    ReplicationConfig::new(Channel::ipc().term_length(64 * 1024), Channel::ipc())
}

fn caught_up<'a, T: peregrine_replication::TermSource>(
    journal: &'a EngineJournal,
) -> impl FnMut(Option<&ReplicationSource<T>>, Option<&ReplicationSink>) -> bool + 'a {
    move |source, _| source.unwrap().acked_position() == Some(journal.position())
}

#[test]
fn the_replica_equals_the_journal_after_every_burst() {
    let (adir, sdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let aeron = client();
    // 1 MiB terms: a frame is at most 128 KiB, a transaction fits the window
    // (both sides are polled on this one thread).
    let config = ReplicationConfig::new(Channel::ipc().term_length(1 << 20), Channel::ipc());
    let mut active = Active::open(adir.path(), 4, journal_config());
    // Written before the standby exists: it starts late.
    active.turns(50, 900);
    let mut source = ReplicationSource::new(&aeron, &config, adir.path(), term(3)).unwrap();
    let mut sink = ReplicationSink::open(&aeron, &config, sdir.path(), journal_config()).unwrap();
    for burst in 0..20u64 {
        active.turns(1 + burst % 7 * 4, 900);
        if burst == 5 {
            // Longer than a frame (128 KiB): sent in 3 chunks.
            active.big(300_000);
        }
        assert!(
            pump(
                Some(&mut source),
                Some(&mut sink),
                caught_up(&active.journal)
            ),
            "burst {burst}: acked {:?}, journal at {:?}",
            source.acked_position(),
            active.journal.position()
        );
        assert_eq!(sink.position(), Some(active.journal.position()));
        let replica = model(sdir.path());
        assert_eq!(replica, model(adir.path()), "burst {burst}");
        if burst == 5 {
            let longest = replica
                .values()
                .flat_map(|(_, m)| m.values())
                .map(Vec::len)
                .max();
            assert_eq!(longest, Some(300_000));
        }
    }
    let (s, k) = (source.stats(), sink.stats());
    assert_eq!(k.transactions, active.journal.position().turn);
    assert_eq!(s.transactions, k.transactions);
    assert_eq!(
        (k.stale_term, k.bad_frames, k.lost, k.abandoned),
        (0, 0, 0, 0)
    );
    assert_eq!(s.answered, 1, "{s:?}");
}

#[test]
fn a_standby_dropped_mid_stream_catches_up_from_its_position() {
    let (adir, sdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let aeron = client();
    let config = ReplicationConfig::ipc();
    let mut active = Active::open(adir.path(), 3, journal_config());
    let mut source = ReplicationSource::new(&aeron, &config, adir.path(), term(3)).unwrap();
    let mut sink = ReplicationSink::open(&aeron, &config, sdir.path(), journal_config()).unwrap();
    active.turns(30, 300);
    assert!(pump(
        Some(&mut source),
        Some(&mut sink),
        caught_up(&active.journal)
    ));
    // 400 turns published; the standby reads a few frames at a time and is
    // dropped part way through them.
    active.turns(400, 300);
    for _ in 0..20 {
        source.poll().unwrap();
    }
    let mut reads = 0;
    while sink.stats().transactions < 100 {
        sink.poll().unwrap();
        reads += 1;
        assert!(reads < 1_000_000, "the standby applies nothing");
    }
    let held = sink.position().unwrap();
    assert!(held < active.journal.position(), "dropped behind");
    drop(sink);
    active.turns(100, 300);
    let mut sink = ReplicationSink::open(&aeron, &config, sdir.path(), journal_config()).unwrap();
    assert_eq!(sink.position(), Some(held), "its saved position");
    assert!(pump(
        Some(&mut source),
        Some(&mut sink),
        caught_up(&active.journal)
    ));
    assert_eq!(model(sdir.path()), model(adir.path()));
    // From its position, not from the start.
    assert_eq!(
        sink.stats().transactions,
        active.journal.position().turn - held.turn
    );
    assert!(source.stats().answered >= 2);
}

#[test]
fn frames_of_an_older_term_are_refused() {
    let (adir, sdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let aeron = client();
    let config = ReplicationConfig::ipc();
    let mut active = Active::open(adir.path(), 2, journal_config());
    active.turns(20, 100);
    let mut deposed = ReplicationSource::new(&aeron, &config, adir.path(), term(5)).unwrap();
    let mut sink = ReplicationSink::open(&aeron, &config, sdir.path(), journal_config()).unwrap();
    assert!(pump(
        Some(&mut deposed),
        Some(&mut sink),
        caught_up(&active.journal)
    ));
    let before = model(sdir.path());
    // etcd says term 9 has begun; the term-5 active still streams.
    sink.raise_term(term(9));
    active.turns(20, 100);
    let until = Instant::now() + Duration::from_millis(600);
    pump(Some(&mut deposed), Some(&mut sink), |_, _| {
        Instant::now() > until
    });
    assert!(sink.stats().stale_term > 0, "{:?}", sink.stats());
    assert_eq!(model(sdir.path()), before, "nothing of term 5 applied");
    assert!(sink.position() < Some(active.journal.position()));
    assert_eq!(deposed.acked().standby_term(), Some(term(9)));
    // The term-9 leader's stream (here, of the same journal) is applied.
    let mut leader = ReplicationSource::new(&aeron, &config, adir.path(), term(9)).unwrap();
    let journal = &active.journal;
    let end = Instant::now() + PATIENCE;
    while leader.acked_position() != Some(journal.position()) {
        assert!(Instant::now() < end, "the term-9 stream was not applied");
        deposed.poll().unwrap();
        leader.poll().unwrap();
        sink.poll().unwrap();
    }
    assert_eq!(model(sdir.path()), model(adir.path()));
    assert_eq!(sink.fence().current(), Some(term(9)));
}

#[test]
fn the_active_compacted_while_the_standby_is_behind() {
    let (adir, sdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let aeron = client();
    let config = ReplicationConfig::ipc();
    let small = JournalConfig {
        compact_over: 32 * 1024,
        ..journal_config()
    };
    let mut active = Active::open(adir.path(), 3, small);
    let mut source = ReplicationSource::new(&aeron, &config, adir.path(), term(3)).unwrap();
    let mut sink = ReplicationSink::open(&aeron, &config, sdir.path(), small).unwrap();
    active.turns(20, 300);
    assert!(pump(
        Some(&mut source),
        Some(&mut sink),
        caught_up(&active.journal)
    ));
    // The standby goes away; the active writes a long, mostly dead journal
    // (every session reset) and starts again: compacted.
    drop(sink);
    active.turns(200, 300);
    for s in active.stores.iter_mut() {
        s.reset(7).unwrap();
    }
    active.turns(5, 300);
    source.poll().unwrap();
    drop(active);
    let mut active = Active::open(adir.path(), 3, small);
    assert!(active.journal.recovery().rewritten, "compacted");
    active.turns(5, 300);
    let mut sink = ReplicationSink::open(&aeron, &config, sdir.path(), small).unwrap();
    assert!(pump(
        Some(&mut source),
        Some(&mut sink),
        caught_up(&active.journal)
    ));
    assert_eq!(model(sdir.path()), model(adir.path()));
    assert!(
        sink.stats().transactions <= 6,
        "the compacted journal, not the history: {:?}",
        sink.stats()
    );

    // Compacted again while the standby is connected but not reading.
    active.turns(200, 300);
    for s in active.stores.iter_mut() {
        s.reset(8).unwrap();
    }
    active.turns(5, 300);
    drop(active);
    let mut active = Active::open(adir.path(), 3, small);
    assert!(active.journal.recovery().rewritten, "compacted again");
    active.turns(3, 300);
    assert!(pump(
        Some(&mut source),
        Some(&mut sink),
        caught_up(&active.journal)
    ));
    assert_eq!(model(sdir.path()), model(adir.path()));
}

#[test]
fn back_pressure_abandons_a_transaction_and_sends_it_again() {
    let (adir, sdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let aeron = client();
    let mut config = small_ipc();
    config.offer_timeout = Duration::from_millis(20);
    let mut active = Active::open(adir.path(), 4, journal_config());
    let mut source = ReplicationSource::new(&aeron, &config, adir.path(), term(3)).unwrap();
    let mut sink = ReplicationSink::open(&aeron, &config, sdir.path(), journal_config()).unwrap();
    active.turns(5, 100);
    assert!(pump(
        Some(&mut source),
        Some(&mut sink),
        caught_up(&active.journal)
    ));
    // Far more than the 32 KiB window while the standby does not read.
    active.turns(300, 2000);
    active.big(30_000);
    active.turns(100, 2000);
    for _ in 0..5 {
        source.poll().unwrap();
    }
    assert!(source.stats().back_pressured > 0, "{:?}", source.stats());
    assert!(source.stats().abandoned > 0, "{:?}", source.stats());
    assert!(pump(
        Some(&mut source),
        Some(&mut sink),
        caught_up(&active.journal)
    ));
    assert_eq!(model(sdir.path()), model(adir.path()));
    assert_eq!(sink.stats().lost, 0, "{:?}", sink.stats());
}

#[test]
fn hostile_frames_on_the_data_stream_are_counted_not_applied() {
    use peregrine_replication::frame::{Body, DataFrame};
    let (adir, sdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let aeron = client();
    let config = ReplicationConfig::ipc();
    let mut active = Active::open(adir.path(), 2, journal_config());
    active.turns(20, 100);
    let mut source = ReplicationSource::new(&aeron, &config, adir.path(), term(3)).unwrap();
    let mut sink = ReplicationSink::open(&aeron, &config, sdir.path(), journal_config()).unwrap();
    assert!(pump(
        Some(&mut source),
        Some(&mut sink),
        caught_up(&active.journal)
    ));
    // Another publisher on the data stream: garbage, a truncated frame, and
    // a frame of the followed stream's term with an impossible index.
    let mut intruder = aeron.publisher(&config.data, config.data_stream).unwrap();
    let mut forged = Vec::new();
    DataFrame {
        term: term(3),
        instance: source.instance(),
        epoch: 1,
        index: u32::MAX,
        from: sink.position(),
        body: Body::Restart,
    }
    .encode(&mut forged)
    .unwrap();
    let frames: [&[u8]; 3] = [b"\x01\x05garbage", &forged[..20], &forged];
    for f in frames {
        let end = Instant::now() + PATIENCE;
        while intruder.publish_bytes(f).is_err() {
            assert!(Instant::now() < end, "the intruder could not publish");
            sink.poll().unwrap();
        }
    }
    active.turns(20, 100);
    assert!(pump(
        Some(&mut source),
        Some(&mut sink),
        caught_up(&active.journal)
    ));
    // Garbage and the cut frame are not frames; the forged one does not
    // follow on from what the standby holds: it asked again.
    let stats = sink.stats();
    assert_eq!((stats.bad_frames, stats.lost), (2, 1), "{stats:?}");
    assert_eq!(stats.abandoned, 0, "nothing of the forged frame applied");
    assert_eq!(model(sdir.path()), model(adir.path()));
}

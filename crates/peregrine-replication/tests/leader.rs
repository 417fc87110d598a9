//! The term a source replicates under comes from etcd: a real etcd (started
//! by the test, killed at its end), `peregrine-ha`'s leadership with 1 s
//! leases, and its `LeaderGate` as the source's term. The standby's fence
//! holds the leader key's create revision; a source whose node stopped
//! leading sends nothing; the next leader's greater term is applied.

mod support;

#[path = "../../peregrine-ha/tests/support/etcd.rs"]
mod etcd;

use std::time::{Duration, Instant};

use peregrine_aeron::{AeronClient, DriverConfig};
use peregrine_ha::{HaConfig, LeaderGate, Leadership};
use peregrine_replication::{ReplicationConfig, ReplicationSink, ReplicationSource};
use support::*;

fn lead(node: &str, etcd: &etcd::Etcd) -> Leadership {
    let mut c = HaConfig::new(node, "orders", [etcd.endpoint.clone()]);
    c.lease_ttl = Duration::from_secs(1);
    let l = Leadership::start(c).unwrap();
    let end = Instant::now() + PATIENCE;
    while !l.is_leader() {
        assert!(Instant::now() < end, "{node} did not win");
        std::thread::sleep(Duration::from_millis(5));
    }
    l
}

#[test]
fn frames_carry_the_leader_keys_revision_and_a_deposed_source_sends_nothing() {
    let etcd = etcd::Etcd::start();
    let (adir, sdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let aeron = AeronClient::embedded(&DriverConfig {
        sparse_terms: true,
        ..DriverConfig::default()
    })
    .unwrap();
    let config = ReplicationConfig::ipc();
    let mut active = Active::open(adir.path(), 3, journal_config());
    active.turns(30, 300);

    let a = lead("a", &etcd);
    let term_a = a.term_at(Instant::now()).unwrap();
    let mut source: ReplicationSource<LeaderGate> =
        ReplicationSource::new(&aeron, &config, adir.path(), a.gate()).unwrap();
    let mut sink = ReplicationSink::open(&aeron, &config, sdir.path(), journal_config()).unwrap();
    let journal = &active.journal;
    assert!(pump(Some(&mut source), Some(&mut sink), |s, _| {
        s.unwrap().acked_position() == Some(journal.position())
    }));
    assert_eq!(sink.fence().current(), Some(term_a));

    // a resigns: its gate names no term, its source sends nothing more.
    a.stop();
    active.turns(30, 300);
    let held = sink.position();
    let until = Instant::now() + Duration::from_millis(500);
    pump(Some(&mut source), Some(&mut sink), |_, _| {
        Instant::now() > until
    });
    assert_eq!(sink.position(), held, "nothing sent without a term");
    assert_eq!(source.sent_position(), None, "the stream stopped");

    // b wins a greater term and streams (here, the same journal).
    let b = lead("b", &etcd);
    let term_b = b.term_at(Instant::now()).unwrap();
    assert!(term_b > term_a);
    let mut next = ReplicationSource::new(&aeron, &config, adir.path(), b.gate()).unwrap();
    let journal = &active.journal;
    assert!(pump(Some(&mut next), Some(&mut sink), |s, _| {
        s.unwrap().acked_position() == Some(journal.position())
    }));
    assert_eq!(sink.fence().current(), Some(term_b));
    assert_eq!(model(sdir.path()), model(adir.path()));
    println!("terms: a {term_a}, b {term_b}");
    b.stop();
}

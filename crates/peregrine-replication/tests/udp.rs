//! Replication over Aeron UDP with the standby in a process of its own (its
//! own embedded media driver), killed with SIGKILL in the middle of the
//! stream and started again: on 127.0.0.1, and between two network
//! namespaces joined by a veth pair (10.78.0.1/24 the standby's,
//! 10.78.0.2/24 the active's) when namespaces can be made.

mod support;

use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use peregrine_aeron::{AeronClient, Backoff, Channel, DriverConfig, IdleStrategy};
use peregrine_ha::Term;
use peregrine_replication::{ReplicationConfig, ReplicationSource};
use peregrine_store::JournalPosition;
use support::node::Node;
use support::*;

fn free_port() -> SocketAddr {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// Polls the source until the standby acknowledged `want`.
fn until_acked(source: &mut ReplicationSource<Term>, want: JournalPosition) -> Duration {
    let start = Instant::now();
    let mut idle = Backoff::default();
    while source.acked_position() != Some(want) {
        assert!(
            start.elapsed() < PATIENCE,
            "acked {:?}, want {want:?}: {source:?}",
            source.acked_position()
        );
        let n = source.poll().unwrap();
        idle.idle(n);
    }
    start.elapsed()
}

#[test]
fn a_standby_killed_mid_stream_and_restarted_catches_up_over_udp() {
    let (adir, sdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (data, status) = (free_port(), free_port());
    let config = ReplicationConfig::new(Channel::udp(data), Channel::udp(status));
    let aeron = AeronClient::embedded(&DriverConfig {
        sparse_terms: true,
        ..DriverConfig::default()
    })
    .unwrap();
    let mut active = Active::open(adir.path(), 4, journal_config());
    active.turns(100, 900);
    let mut source =
        ReplicationSource::new(&aeron, &config, adir.path(), Term::new(4).unwrap()).unwrap();
    let sdir_s = sdir.path().to_str().unwrap();
    let (data_s, status_s) = (data.to_string(), status.to_string());
    let args = [
        "standby", "--dir", sdir_s, "--data", &data_s, "--status", &status_s,
    ];
    let mut standby = Node::start(&[], &args);
    let first = until_acked(&mut source, active.journal.position());
    println!("caught up 100 turns in {first:?}");

    // Killed while transactions stream: after its first acknowledgement of
    // the burst, before its last.
    active.turns(2000, 900);
    let target = active.journal.position();
    let before = source.acked_position().unwrap();
    let mut idle = Backoff::default();
    while source.acked_position() == Some(before) {
        idle.idle(source.poll().unwrap());
    }
    standby.kill();
    let killed_at = source.acked_position().unwrap();
    assert!(killed_at < target, "killed mid-stream: {killed_at:?}");
    // The active goes on without it.
    active.turns(200, 900);
    let end = Instant::now() + Duration::from_millis(300);
    while Instant::now() < end {
        idle.idle(source.poll().unwrap());
    }

    let standby = Node::start(&[], &args);
    let reopened = standby.positions("position", PATIENCE);
    let reopened = *reopened.first().expect("the standby says where it is");
    assert!(
        reopened >= killed_at && reopened.turn > 100,
        "from its saved position: {reopened:?}, acked {killed_at:?} before the kill"
    );
    let second = until_acked(&mut source, active.journal.position());
    println!(
        "killed at turn {}, reopened at {}, caught up to {} in {second:?}",
        killed_at.turn,
        reopened.turn,
        active.journal.position().turn
    );
    drop(standby);
    assert_eq!(model(sdir.path()), model(adir.path()));
    assert!(source.stats().answered >= 2, "{:?}", source.stats());
}

fn ip(args: &[&str]) -> std::io::Result<std::process::Output> {
    Command::new("ip").args(args).output()
}

fn ip_ok(args: &[&str]) {
    let out = ip(args).unwrap_or_else(|e| panic!("ip {}: {e}", args.join(" ")));
    assert!(
        out.status.success(),
        "ip {} failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Deletes the namespaces (and the veth pair with them) whatever happened.
struct Namespaces(Vec<String>, String);

impl Drop for Namespaces {
    fn drop(&mut self) {
        let _ = ip(&["link", "del", &self.1]);
        for ns in &self.0 {
            let _ = ip(&["netns", "del", ns]);
        }
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Waits until the active child printed `acked` at `want`.
fn until_node_acked(node: &Node, want: JournalPosition) {
    let end = Instant::now() + PATIENCE;
    loop {
        if node
            .positions("acked", Duration::from_millis(50))
            .contains(&want)
        {
            return;
        }
        assert!(Instant::now() < end, "the standby never acked {want:?}");
    }
}

#[test]
fn replication_crosses_network_namespaces() {
    if !is_root() || ip(&["-V"]).is_err() {
        println!("SKIPPED replication netns: not root or no `ip`");
        return;
    }
    let tag = std::process::id() % 100_000;
    let (ns_s, ns_a) = (format!("pr-sb-{tag}"), format!("pr-ac-{tag}"));
    let (veth_s, veth_a) = (format!("prs{tag}"), format!("pra{tag}"));
    let mut made = Namespaces(vec![], veth_s.clone());
    match ip(&["netns", "add", &ns_s]) {
        Ok(o) if o.status.success() => made.0.push(ns_s.clone()),
        other => {
            println!("SKIPPED replication netns: `ip netns add` refused: {other:?}");
            return;
        }
    }
    ip_ok(&["netns", "add", &ns_a]);
    made.0.push(ns_a.clone());
    ip_ok(&[
        "link", "add", &veth_s, "type", "veth", "peer", "name", &veth_a,
    ]);
    ip_ok(&["link", "set", &veth_s, "netns", &ns_s]);
    ip_ok(&["link", "set", &veth_a, "netns", &ns_a]);
    for (ns, dev, addr) in [(&ns_s, &veth_s, "10.78.0.1"), (&ns_a, &veth_a, "10.78.0.2")] {
        ip_ok(&["-n", ns, "addr", "add", &format!("{addr}/24"), "dev", dev]);
        ip_ok(&["-n", ns, "link", "set", dev, "up"]);
        ip_ok(&["-n", ns, "link", "set", "lo", "up"]);
    }

    let (adir, sdir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut active = Active::open(adir.path(), 4, journal_config());
    active.turns(200, 900);
    let streams = ["--data", "10.78.0.1:40125", "--status", "10.78.0.2:40126"];
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let (a, s) = (path(adir.path()), path(sdir.path()));
    let mut active_args = vec!["active", "--dir", &a, "--term", "6"];
    active_args.extend(streams);
    let mut standby_args = vec!["standby", "--dir", &s];
    standby_args.extend(streams);
    let in_a = ["ip", "netns", "exec", ns_a.as_str()];
    let in_s = ["ip", "netns", "exec", ns_s.as_str()];
    let source = Node::start(&in_a, &active_args);
    let mut standby = Node::start(&in_s, &standby_args);
    let start = Instant::now();
    until_node_acked(&source, active.journal.position());
    println!("netns: 200 turns replicated in {:?}", start.elapsed());

    // Killed while the next 2000 stream, started again, caught up.
    active.turns(2000, 900);
    // Killed once it applied some of them.
    let end = Instant::now() + PATIENCE;
    while !standby
        .positions("position", Duration::from_millis(20))
        .iter()
        .any(|p| p.turn > 200)
    {
        assert!(
            Instant::now() < end,
            "the standby applied nothing of the burst"
        );
    }
    standby.kill();
    active.turns(100, 900);
    let standby = Node::start(&in_s, &standby_args);
    let reopened = standby.positions("position", PATIENCE)[0];
    let start = Instant::now();
    until_node_acked(&source, active.journal.position());
    println!(
        "netns: standby killed, reopened at turn {}, caught up to {} in {:?}",
        reopened.turn,
        active.journal.position().turn,
        start.elapsed()
    );
    assert!(
        reopened.turn >= 200,
        "from its saved position: {reopened:?}"
    );
    drop(standby);
    drop(source);
    assert_eq!(model(sdir.path()), model(adir.path()));
    drop(made);
    let left = ip(&["netns", "list"]).unwrap();
    let left = String::from_utf8_lossy(&left.stdout);
    assert!(
        !left.contains(&ns_s) && !left.contains(&ns_a),
        "left: {left}"
    );
}

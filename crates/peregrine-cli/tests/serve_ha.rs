//! `peregrine acceptor` with the high-availability keys (issue 26 §1): it campaigns on
//! a real etcd and holds its sessions until it leads — a Logon is closed unanswered
//! while another node (this test) leads, and answered once that node resigns.

#[path = "../../peregrine-ha/tests/support/etcd.rs"]
mod etcd;

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use etcd::Etcd;
use peregrine_ha::{HaConfig, Leadership};
use peregrine_testkit::net::free_port;
use peregrine_testkit::Peer;

struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Connects and sends a Logon: `Some(answer)` or `None` when closed unanswered.
fn logon(port: u16) -> Option<String> {
    let mut stream = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).ok()?;
    let mut peer = Peer::over(stream.try_clone().ok()?, "C1", "GW");
    let _ = stream.write_all(&peer.message("35=A|98=0|108=30"));
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    let mut buf = [0u8; 4096];
    match stream.read(&mut buf) {
        Ok(n) if n > 0 => Some(String::from_utf8_lossy(&buf[..n]).replace('\x01', "|")),
        _ => None,
    }
}

#[test]
fn an_acceptor_with_ha_keys_answers_no_logon_until_it_leads() {
    let etcd = Etcd::start();
    let mut other = HaConfig::new("gw-b", "default", [etcd.endpoint.clone()]);
    other.lease_ttl = Duration::from_secs(1);
    let gw_b = Leadership::start(other).unwrap();
    let end = Instant::now() + Duration::from_secs(5);
    while !gw_b.is_leader() {
        assert!(Instant::now() < end, "gw-b did not win");
        std::thread::sleep(Duration::from_millis(10));
    }

    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    std::fs::write(
        dir.path().join("gw.cfg"),
        format!(
            "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort={port}\nSenderCompID=GW\n\
             TargetCompID=C1\nUseDataDictionary=N\nHaNodeName=gw-a\nHaPeers=gw-b\n\
             HaEtcdEndpoints={}\nHaLeaseTTL=1\n[SESSION]\nBeginString=FIX.4.4\n",
            etcd.endpoint
        ),
    )
    .unwrap();
    let _gw_a = Proc(
        Command::new(env!("CARGO_BIN_EXE_peregrine"))
            .args(["acceptor", "--config", "gw.cfg"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("gw-a.err")).unwrap())
            .spawn()
            .unwrap(),
    );
    let start = Instant::now();
    while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "port never opened"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // gw-b leads: gw-a closes the connection without a word.
    assert_eq!(logon(port), None);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(logon(port), None);

    // gw-b resigns: gw-a wins and answers.
    gw_b.stop();
    let end = Instant::now() + Duration::from_secs(5);
    let answer = loop {
        if let Some(answer) = logon(port) {
            break answer;
        }
        assert!(Instant::now() < end, "gw-a never answered a Logon");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(answer.contains("|35=A|"), "{answer}");
    let log = std::fs::read_to_string(dir.path().join("gw-a.err")).unwrap();
    assert!(log.contains("gw-b leads (term"), "{log}");
    assert!(log.contains("this node leads (term"), "{log}");
}

//! The high-availability keys (issue 26 §1): `HaNodeName`, `HaPeers`,
//! `HaEtcdEndpoints`, `HaLeaseTTL`, `HaGroup` — typed, defaulted, and every wrong
//! value refused naming file, line and key.

use std::path::Path;

use peregrine_engine::config::{Settings, DEFAULT_HA_GROUP, DEFAULT_HA_LEASE_TTL};

fn parse(text: &str) -> Result<Settings, String> {
    Settings::parse(text, Path::new("dir/gw.cfg")).map_err(|e| e.to_string())
}

const BASE: &str = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\nSenderCompID=ISLD\n";

#[test]
fn the_keys_are_read_with_their_defaults() {
    let s = parse(&format!(
        "{BASE}HaNodeName=gw-a\nHaEtcdEndpoints=127.0.0.1:2379\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=B\nHaGroup=venue.b\n"
    ))
    .unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let (a, b) = (
        s.sessions[0].ha.as_ref().unwrap(),
        s.sessions[1].ha.as_ref().unwrap(),
    );
    assert_eq!(a.node_name, "gw-a");
    assert!(a.peers.is_empty());
    assert_eq!(a.etcd_endpoints, ["127.0.0.1:2379"]);
    assert_eq!(a.lease_ttl_secs, DEFAULT_HA_LEASE_TTL);
    assert_eq!(a.group, DEFAULT_HA_GROUP);
    assert_eq!(b.group, "venue.b");
    // Without HaNodeName, no high availability at all.
    let plain = parse(&format!(
        "{BASE}[SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n"
    ))
    .unwrap();
    assert_eq!(plain.sessions[0].ha, None);
}

#[test]
fn a_wrong_value_names_file_line_and_key() {
    let ok = "HaNodeName=a\nHaPeers=b,c\nHaEtcdEndpoints=127.0.0.1:2379\n";
    let session = "[SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n";
    let cases = [
        ("HaPeers=b\n", "dir/gw.cfg:5: HaPeers: needs HaNodeName"),
        (
            "HaNodeName=a b\nHaEtcdEndpoints=e:1\n",
            "dir/gw.cfg:5: HaNodeName: \"a b\" has ' '",
        ),
        ("HaNodeName=a\n", "dir/gw.cfg:6: HaEtcdEndpoints: missing"),
        (
            "HaNodeName=a\nHaPeers=b,a\nHaEtcdEndpoints=e:1\n",
            "dir/gw.cfg:6: HaPeers: names this node (a)",
        ),
        (
            "HaNodeName=a\nHaPeers=b,b\nHaEtcdEndpoints=e:1\n",
            "dir/gw.cfg:6: HaPeers: names b twice",
        ),
        (
            "HaNodeName=a\nHaEtcdEndpoints=etcd\n",
            "dir/gw.cfg:6: HaEtcdEndpoints: \"etcd\" is not host:port",
        ),
        (
            "HaNodeName=a\nHaEtcdEndpoints=https://e:2379\n",
            "dir/gw.cfg:6: HaEtcdEndpoints: \"https://e:2379\": TLS to etcd is not supported",
        ),
        (
            &format!("{ok}HaLeaseTTL=0\n"),
            "dir/gw.cfg:8: HaLeaseTTL: \"0\" is out of range (it must be 1 to 3600)",
        ),
        (
            &format!("{ok}HaGroup=a/b\n"),
            "dir/gw.cfg:8: HaGroup: \"a/b\" has '/'",
        ),
    ];
    for (keys, expected) in cases {
        let e = parse(&format!("{BASE}{keys}{session}")).unwrap_err();
        assert!(e.starts_with(expected), "{keys:?}: {e}");
    }
}

#[test]
fn the_node_keys_are_one_for_the_engine() {
    // HaGroup may differ per session; the node's keys may not.
    let text = format!(
        "{BASE}HaNodeName=a\nHaEtcdEndpoints=e:1\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\nHaGroup=g1\n\
         [SESSION]\nBeginString=FIX.4.4\nTargetCompID=B\nHaGroup=g2\nHaLeaseTTL=5\n"
    );
    let e = parse(&text).unwrap_err();
    assert!(
        e.starts_with("dir/gw.cfg:15: HaLeaseTTL: session FIX.4.4:ISLD->B sets it differently"),
        "{e}"
    );
}

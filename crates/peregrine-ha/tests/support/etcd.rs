//! A real etcd for the leadership tests: Debian's `etcd` (3.4, `make deps`) on free
//! client and peer ports of 127.0.0.1, a temporary data directory, killed on drop.
//! Its raft timings are short (50 ms heartbeat, 250 ms election timeout) so that it
//! grants 1 s leases (its minimum TTL is 1.5 election timeouts, rounded up to seconds).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub struct Etcd {
    child: Child,
    pub endpoint: String,
    _dir: tempfile::TempDir,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn healthy(addr: &str) -> bool {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
    if write!(s, "GET /health HTTP/1.0\r\nHost: {addr}\r\n\r\n").is_err() {
        return false;
    }
    let mut body = String::new();
    let _ = s.read_to_string(&mut body);
    body.contains("\"health\":\"true\"")
}

impl Etcd {
    pub fn start() -> Etcd {
        for _ in 0..3 {
            if let Some(etcd) = Etcd::try_start() {
                return etcd;
            }
        }
        panic!("etcd did not start (is etcd-server installed? `make deps`)");
    }

    fn try_start() -> Option<Etcd> {
        let dir = tempfile::tempdir().expect("temp dir");
        let (client, peer) = (free_port(), free_port());
        let client_url = format!("http://127.0.0.1:{client}");
        let peer_url = format!("http://127.0.0.1:{peer}");
        let mut child = Command::new("etcd")
            .args(["--name", "test"])
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .args(["--listen-client-urls", &client_url])
            .args(["--advertise-client-urls", &client_url])
            .args(["--listen-peer-urls", &peer_url])
            .args(["--initial-advertise-peer-urls", &peer_url])
            .args(["--initial-cluster", &format!("test={peer_url}")])
            .args(["--heartbeat-interval", "50", "--election-timeout", "250"])
            .args(["--logger", "zap", "--log-level", "error"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("etcd runs (make deps installs etcd-server)");
        let addr = format!("127.0.0.1:{client}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return None; // a port was taken meanwhile: try others
            }
            if healthy(&addr) {
                return Some(Etcd {
                    child,
                    endpoint: addr,
                    _dir: dir,
                });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        None
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-CONT")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `kill -<sig> <pid>` (SIGSTOP, SIGCONT) for a child of this test.
pub fn signal(pid: u32, sig: &str) {
    let status = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{sig} {pid}");
}

/// Now on the wall clock, in nanoseconds since the Unix epoch (the candidates'
/// timestamps are on it too).
pub fn wall_now() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos()
}

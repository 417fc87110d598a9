//! `peregrine acceptor` / `peregrine initiator` as processes: a bad cfg is a
//! clear error; SIGTERM logs every session out and exits 0; an initiator logs
//! on to an acceptor.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use peregrine_testkit::net::free_port;
use peregrine_testkit::{frame, render, sending_time};

const BIN: &str = env!("CARGO_BIN_EXE_peregrine");

struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(args: &[&str], dir: &Path) -> Proc {
    Proc(
        Command::new(BIN)
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join(format!("{}.err", args[0]))).unwrap())
            .spawn()
            .unwrap(),
    )
}

fn wait_port(port: u16) {
    let start = Instant::now();
    while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "port {port} never opened"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn terminate(p: &mut Proc) {
    let ok = Command::new("kill")
        .args(["-TERM", &p.0.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

fn wait_exit(p: &mut Proc, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(s) = p.0.try_wait().unwrap() {
            return s;
        }
        assert!(start.elapsed() < limit, "did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read_message(s: &mut TcpStream) -> String {
    let mut buf = Vec::new();
    let mut b = [0u8; 1];
    while !(buf.len() > 8
        && buf[buf.len() - 8..buf.len() - 4] == *b"\x0110="
        && buf.ends_with(b"\x01"))
    {
        s.read_exact(&mut b).unwrap();
        buf.push(b[0]);
    }
    render(&buf)
}

#[test]
fn a_bad_value_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.cfg"),
        "[DEFAULT]\nSocketAcceptPort=1\nHeartBtInt=abc\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=A\nTargetCompID=B\n",
    )
    .unwrap();
    let out = Command::new(BIN)
        .args(["acceptor", "--config"])
        .arg(dir.path().join("bad.cfg"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.cfg:3: HeartBtInt: \"abc\" is not a number"),
        "{err}"
    );
}

#[test]
fn an_unimplemented_quickfix_key_stops_start_up_or_warns() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let cfg = |extra: &str| {
        format!(
            "[DEFAULT]\nSocketAcceptPort={port}\nSenderCompID=ISLD\nTargetCompID=TW\n\
             UseDataDictionary=N\n{extra}\n[SESSION]\nBeginString=FIX.4.4\n"
        )
    };
    // Security or delivery: the acceptor does not start, and says where.
    std::fs::write(dir.path().join("tls.cfg"), cfg("SocketKeyStore=venue.jks")).unwrap();
    let out = Command::new(BIN)
        .args(["acceptor", "--config", "tls.cfg"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tls.cfg:6: SocketKeyStore: QuickFIX/J key not implemented by Peregrine (security or delivery)"),
        "{err}"
    );
    // Cosmetic: it starts, and warns.
    std::fs::write(
        dir.path().join("screen.cfg"),
        cfg("ScreenLogShowHeartBeats=Y"),
    )
    .unwrap();
    let mut p = spawn(&["acceptor", "--config", "screen.cfg"], dir.path());
    wait_port(port);
    terminate(&mut p);
    assert!(wait_exit(&mut p, Duration::from_secs(5)).success());
    let err = std::fs::read_to_string(dir.path().join("acceptor.err")).unwrap();
    assert!(
        err.contains("screen.cfg:6: ScreenLogShowHeartBeats: QuickFIX/J key not implemented by Peregrine (cosmetic or performance)"),
        "{err}"
    );
}

#[test]
fn sigterm_logs_out_and_exits() {
    let dir = tempfile::tempdir().unwrap();
    let (port, admin) = (free_port(), free_port());
    std::fs::write(
        dir.path().join("acceptor.cfg"),
        format!(
            "[DEFAULT]\nSocketAcceptPort={port}\nAdminHttpPort={admin}\nSenderCompID=ISLD\nTargetCompID=TW\n\
             FileStorePath=store\nFileLogPath=log\nUseDataDictionary=N\nColour=blue\n[SESSION]\nBeginString=FIX.4.4\n"
        ),
    )
    .unwrap();
    let mut p = spawn(
        &["acceptor", "--config", "acceptor.cfg", "--store", "file"],
        dir.path(),
    );
    wait_port(port);
    let mut c = TcpStream::connect((Ipv4Addr::LOCALHOST, port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    c.write_all(&frame(&format!(
        "35=A|34=1|49=TW|52={}|56=ISLD|98=0|108=30|141=Y|",
        sending_time()
    )))
    .unwrap();
    let logon = read_message(&mut c);
    assert!(logon.contains("|35=A|"), "{logon}");
    terminate(&mut p);
    let logout = read_message(&mut c);
    assert!(logout.contains("|35=5|34=2|"), "{logout}");
    c.write_all(&frame(&format!(
        "35=5|34=2|49=TW|52={}|56=ISLD|",
        sending_time()
    )))
    .unwrap();
    let status = wait_exit(&mut p, Duration::from_secs(5));
    assert!(status.success(), "{status}");
    // The file store and the logs are where the cfg says (relative to it).
    assert!(dir.path().join("store").is_dir());
    let log = std::fs::read_to_string(dir.path().join("log/FIX.4.4-ISLD-TW.messages.log")).unwrap();
    assert_eq!(log.lines().count(), 4, "{log}");
    // The unknown key was a warning with file and line, not an error.
    let err = std::fs::read_to_string(dir.path().join("acceptor.err")).unwrap();
    assert!(
        err.contains("acceptor.cfg:9: Colour: unknown key, ignored"),
        "{err}"
    );
}

#[test]
fn an_initiator_logs_on_to_an_acceptor() {
    let dir = tempfile::tempdir().unwrap();
    let (port, admin, admin2) = (free_port(), free_port(), free_port());
    std::fs::write(
        dir.path().join("acceptor.cfg"),
        format!(
            "[DEFAULT]\nSocketAcceptPort={port}\nAdminHttpPort={admin}\nAdminHttpToken=cli-t0ken\n\
             SenderCompID=ISLD\nTargetCompID=TW\n\
             FileLogPath=log\nDataDictionary=../nowhere/FIX44.xml\nUseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("initiator.cfg"),
        format!(
            "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
             AdminHttpPort={admin2}\nSenderCompID=TW\nTargetCompID=ISLD\nHeartBtInt=1\nReconnectInterval=1\n\
             FileLogPath=log\nUseDataDictionary=N\nIdleStrategy=backoff\n[SESSION]\nBeginString=FIX.4.4\n"
        ),
    )
    .unwrap();
    // The initiator first, so that it has to retry.
    let mut ini = spawn(&["initiator", "--config", "initiator.cfg"], dir.path());
    std::thread::sleep(Duration::from_millis(300));
    let mut acc = spawn(&["acceptor", "--config", "acceptor.cfg"], dir.path());
    wait_port(admin);
    let admin_addr = SocketAddr::from((Ipv4Addr::LOCALHOST, admin));
    let start = Instant::now();
    loop {
        let mut s = TcpStream::connect(admin_addr).unwrap();
        s.write_all(b"GET /sessions HTTP/1.1\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        if out.contains("\"logged_on\":true") {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "{out}");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Changes need the AdminHttpToken of the cfg.
    let seqnum = |auth: &str| {
        let mut s = TcpStream::connect(admin_addr).unwrap();
        write!(
            s,
            "GET /seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTTARGETSEQNUM=100 HTTP/1.1\r\n{auth}\r\n"
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    let out = seqnum("");
    assert!(out.starts_with("HTTP/1.1 401"), "{out}");
    let out = seqnum("Authorization: Bearer cli-t0ken\r\n");
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    terminate(&mut ini);
    assert!(wait_exit(&mut ini, Duration::from_secs(5)).success());
    terminate(&mut acc);
    assert!(wait_exit(&mut acc, Duration::from_secs(5)).success());
    // Started on loopback, and the token never logged.
    let err = std::fs::read_to_string(dir.path().join("acceptor.err")).unwrap();
    assert!(
        err.contains(&format!(
            "admin interface on http://127.0.0.1:{admin}/sessions"
        )),
        "{err}"
    );
    assert!(!err.contains("cli-t0ken"), "{err}");
    let events = std::fs::read_to_string(dir.path().join("log/FIX.4.4-TW-ISLD.event.log")).unwrap();
    assert!(events.contains("logged on"), "{events}");
    assert!(events.contains("shutting down: sending Logout"), "{events}");
}

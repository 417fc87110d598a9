//! TLS (`SocketUseSSL=Y`) over real sockets on 127.0.0.1: two Peregrine engines with
//! mutual TLS, OpenSSL's `s_server` and `s_client` as the other side, and every way
//! a handshake can fail ending in a clear error, never a hang. Certificates are made
//! per test (`peregrine_testkit::tls::TestPki`).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use peregrine_codec::MessageView;
use peregrine_engine::{EngineBuilder, RunningEngine, SubmitError};
use peregrine_session::{AppEvent, AppReject, Application, DisconnectReason, Outbox, SessionId};
use peregrine_testkit::net::free_port;
use peregrine_testkit::tls::TestPki;
use peregrine_testkit::{frame, render, sending_time, Peer};

const WAIT: Duration = Duration::from_secs(10);

/// Counts application messages and checks that their ClOrdIDs come in order; keeps
/// the reasons of disconnects.
#[derive(Clone, Default)]
struct Counter {
    received: Arc<AtomicU64>,
    out_of_order: Arc<AtomicU64>,
    disconnects: Option<mpsc::Sender<Option<DisconnectReason>>>,
}

impl Application for Counter {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _: &SessionId,
        _: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let n = self.received.fetch_add(1, Ordering::Relaxed) + 1;
        if msg.get(11) != Some(format!("C{n}").as_bytes()) {
            self.out_of_order.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
    fn on_event(&mut self, _: &SessionId, event: &AppEvent<'_>, _out: &mut Outbox<'_>) {
        if let (AppEvent::Disconnected { reason }, Some(tx)) = (event, &self.disconnects) {
            let _ = tx.send(*reason);
        }
    }
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// A venue (acceptor) with TLS: its certificate, and `extra` keys.
fn venue_cfg(pki: &TestPki, port: u16, extra: &str) -> String {
    format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptAddress=127.0.0.1\nSocketAcceptPort={port}\n\
         UseDataDictionary=N\nSocketUseSSL=Y\nSocketCertificateFile={}\nSocketPrivateKeyFile={}\n{extra}\n\
         [SESSION]\nBeginString=FIX.4.4\nSenderCompID=VENUE\nTargetCompID=CLIENT\n",
        path(&pki.server_cert),
        path(&pki.server_key)
    )
}

/// A client (initiator) of 127.0.0.1:`port` with TLS and `extra` keys.
fn client_cfg(port: u16, log_dir: &Path, extra: &str) -> String {
    format!(
        "[DEFAULT]\nConnectionType=initiator\nReconnectInterval=1\nUseDataDictionary=N\n\
         FileLogPath={}\nSocketUseSSL=Y\n{extra}\n[SESSION]\nBeginString=FIX.4.4\n\
         SenderCompID=CLIENT\nTargetCompID=VENUE\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n",
        path(log_dir)
    )
}

/// A client that trusts the test CA and checks the name `localhost`, with `extra` keys.
fn trusting_client(
    port: u16,
    log_dir: &Path,
    pki: &TestPki,
    extra: &str,
) -> RunningEngine<Counter> {
    start(
        &client_cfg(
            port,
            log_dir,
            &format!(
                "SocketCAFile={}\nSocketServerName=localhost\n{extra}",
                path(&pki.ca)
            ),
        ),
        "client.cfg",
        Counter::default(),
    )
}

/// A fresh directory with certificates, and a venue on a free port with `extra` keys.
fn venue_with(
    extra: impl FnOnce(&TestPki) -> String,
) -> (tempfile::TempDir, TestPki, u16, RunningEngine<Counter>) {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::write(&dir.path().join("pki"));
    let port = free_port();
    let venue = start(
        &venue_cfg(&pki, port, &extra(&pki)),
        "venue.cfg",
        Counter::default(),
    );
    (dir, pki, port, venue)
}

fn start(cfg: &str, name: &str, app: Counter) -> RunningEngine<Counter> {
    EngineBuilder::parse(cfg, name)
        .unwrap()
        .start(move |_| app.clone())
        .unwrap()
}

/// The client's event log, once it says `needle` (or the last text after WAIT).
fn wait_event(log_dir: &Path, needle: &str) -> Result<String, String> {
    let deadline = Instant::now() + WAIT;
    let mut text = String::new();
    while Instant::now() < deadline {
        text.clear();
        for entry in std::fs::read_dir(log_dir).unwrap().flatten() {
            if entry.file_name().to_string_lossy().ends_with(".event.log") {
                text.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
            }
        }
        if text.contains(needle) {
            return Ok(text);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(text)
}

#[test]
fn mutual_tls_carries_thousands_of_messages_between_two_engines() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::write(&dir.path().join("pki"));
    let port = free_port();
    let venue_app = Counter::default();
    let venue = start(
        &venue_cfg(
            &pki,
            port,
            &format!("SocketCAFile={}\nNeedClientAuth=Y", path(&pki.ca)),
        ),
        "venue.cfg",
        venue_app.clone(),
    );
    let client = trusting_client(
        port,
        dir.path(),
        &pki,
        &format!(
            "SocketCertificateFile={}\nSocketPrivateKeyFile={}",
            path(&pki.client_cert),
            path(&pki.client_key)
        ),
    );
    assert!(client.wait_logged_on(WAIT) && venue.wait_logged_on(WAIT));

    // 3,000 orders of ~1.1 KB: many TLS records per turn, full sockets, partial writes.
    const N: u64 = 3_000;
    let pad = "P".repeat(1_000);
    let session = client.session_ref("FIX.4.4:CLIENT->VENUE").unwrap();
    let sender = client.sender();
    for i in 1..=N {
        let id = format!("C{i}");
        loop {
            match sender.send(session, b"D", |m| {
                m.str(11, id.as_bytes())
                    .str(55, b"EUR/USD")
                    .str(54, b"1")
                    .str(38, b"100")
                    .str(40, b"1")
                    .str(58, pad.as_bytes());
            }) {
                Ok(()) => break,
                Err(SubmitError::QueueFull) => std::thread::sleep(Duration::from_micros(50)),
                Err(e) => panic!("{e}"),
            }
        }
    }
    let deadline = Instant::now() + WAIT;
    while venue_app.received.load(Ordering::Relaxed) < N {
        assert!(
            Instant::now() < deadline,
            "{} of {N} orders arrived",
            venue_app.received.load(Ordering::Relaxed)
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(venue_app.out_of_order.load(Ordering::Relaxed), 0);
    let venue_info = venue.sessions(WAIT).unwrap().remove(0);
    assert_eq!(venue_info.next_target_seq, N + 2, "{venue_info:?}");
    client.stop().unwrap();
    venue.stop().unwrap();
}

#[test]
fn a_certificate_the_client_does_not_trust_is_a_clear_error_not_a_hang() {
    let (dir, pki, port, venue) = venue_with(|_| String::new());
    let (tx, rx) = mpsc::channel();
    let client = start(
        &client_cfg(
            port,
            dir.path(),
            &format!("SocketCAFile={}", path(&pki.other_ca)),
        ),
        "client.cfg",
        Counter {
            disconnects: Some(tx),
            ..Counter::default()
        },
    );
    let log = wait_event(dir.path(), "TLS: invalid peer certificate")
        .unwrap_or_else(|t| panic!("no TLS error in the client's event log:\n{t}"));
    assert!(log.contains("UnknownIssuer"), "{log}");
    assert_eq!(rx.recv_timeout(WAIT).unwrap(), Some(DisconnectReason::Tls));
    // It retries (ReconnectInterval=1), fails the same way, and never logs on.
    assert!(!venue.wait_logged_on(Duration::from_millis(1_500)));
    assert!(client.sessions(WAIT).is_some(), "the engine answers");
    client.stop().unwrap();
    venue.stop().unwrap();
}

#[test]
fn a_name_the_certificate_does_not_carry_is_refused() {
    let (dir, pki, port, venue) = venue_with(|_| String::new());
    let client = start(
        &client_cfg(
            port,
            dir.path(),
            &format!(
                "SocketCAFile={}\nSocketServerName=fix.example.com",
                path(&pki.ca)
            ),
        ),
        "client.cfg",
        Counter::default(),
    );
    let log =
        wait_event(dir.path(), "TLS: invalid peer certificate").unwrap_or_else(|t| panic!("{t}"));
    assert!(
        log.contains("not valid for name \"fix.example.com\""),
        "{log}"
    );
    assert!(!venue.wait_logged_on(Duration::from_millis(500)));
    client.stop().unwrap();
    venue.stop().unwrap();
}

#[test]
fn need_client_auth_refuses_a_client_without_a_certificate() {
    let (dir, pki, port, venue) =
        venue_with(|pki| format!("SocketCAFile={}\nNeedClientAuth=Y", path(&pki.ca)));
    let client = start(
        &client_cfg(port, dir.path(), &format!("SocketCAFile={}", path(&pki.ca))),
        "client.cfg",
        Counter::default(),
    );
    // The venue's alert reaches the client: certificate required.
    let log = wait_event(dir.path(), "TLS: received fatal alert").unwrap_or_else(|t| panic!("{t}"));
    assert!(log.contains("CertificateRequired"), "{log}");
    assert!(!venue.wait_logged_on(Duration::from_millis(500)));
    client.stop().unwrap();
    venue.stop().unwrap();
}

#[test]
fn a_client_speaking_clear_text_to_a_tls_port_is_closed() {
    let (_dir, _pki, port, venue) = venue_with(|_| String::new());
    let mut peer = Peer::connect(
        format!("127.0.0.1:{port}").parse().unwrap(),
        "CLIENT",
        "VENUE",
    );
    peer.send("35=A|98=0|108=30");
    assert_eq!(peer.read(WAIT, || {}), None, "no answer in clear text");
    assert!(
        peer.closed_within(WAIT, || {}),
        "the venue closed the connection"
    );
    assert!(!venue.wait_logged_on(Duration::from_millis(100)));
    venue.stop().unwrap();
}

/// OpenSSL, which `make deps` installs.
fn openssl() -> Command {
    Command::new("openssl")
}

/// Kills a child process when dropped.
struct Reap(Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A child's stdout as it comes, read on a thread (FIX has no newlines to wait for).
fn output_of(child: &mut Child) -> Arc<Mutex<Vec<u8>>> {
    let mut out = child.stdout.take().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let keep = seen.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = out.read(&mut buf) {
            keep.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    seen
}

/// What the child printed, once it holds `needle` (rendered with `|` for SOH).
fn wait_output(seen: &Mutex<Vec<u8>>, needle: &str) -> Result<String, String> {
    let deadline = Instant::now() + WAIT;
    loop {
        let text = render(&seen.lock().unwrap());
        if text.contains(needle) {
            return Ok(text);
        }
        if Instant::now() > deadline {
            return Err(text);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn openssl_s_client_logs_on_to_a_peregrine_acceptor() {
    let (_dir, pki, port, venue) = venue_with(|_| String::new());
    let mut child = Reap(
        openssl()
            .args([
                "s_client",
                "-quiet",
                "-verify_return_error",
                "-servername",
                "localhost",
            ])
            .args(["-connect", &format!("127.0.0.1:{port}")])
            .args(["-CAfile", &path(&pki.ca)])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("openssl (make deps installs it)"),
    );
    let seen = output_of(&mut child.0);
    let logon = frame(&format!(
        "35=A|34=1|49=CLIENT|52={}|56=VENUE|98=0|108=30|",
        sending_time()
    ));
    // The Logon, then a newline so that s_client sends it.
    let stdin = child.0.stdin.as_mut().unwrap();
    stdin.write_all(&logon).unwrap();
    stdin.write_all(b"\n").unwrap();
    stdin.flush().unwrap();
    let answer = wait_output(&seen, "|35=A|")
        .unwrap_or_else(|seen| panic!("no Logon back through s_client:\n{seen}"));
    assert!(
        answer.contains("|49=VENUE|") && answer.contains("|56=CLIENT|"),
        "{answer}"
    );
    assert!(venue.wait_logged_on(WAIT));
    drop(child);
    venue.stop().unwrap();
}

/// `openssl s_server` on `port` with the test certificate and `extra` options, once it
/// listens; what it prints (the plaintext it received) comes in the second value.
fn s_server(pki: &TestPki, port: u16, extra: &[&str]) -> (Reap, Arc<Mutex<Vec<u8>>>) {
    let mut server = Reap(
        openssl()
            .args(["s_server", "-quiet", "-accept", &port.to_string()])
            .args([
                "-cert",
                &path(&pki.server_cert),
                "-key",
                &path(&pki.server_key),
            ])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("openssl (make deps installs it)"),
    );
    let seen = output_of(&mut server.0);
    // s_server is listening once its port takes a connection.
    let deadline = Instant::now() + WAIT;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "s_server did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    (server, seen)
}

/// An initiator with `SocketMinimumTLSVersion=TLS13` refuses a server that speaks
/// TLS 1.2 only, and says so; the same server suits a TLS12 initiator.
#[test]
fn a_tls13_only_initiator_refuses_a_tls12_server() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::write(&dir.path().join("pki"));
    let port = free_port();
    let (_server, seen) = s_server(&pki, port, &["-tls1_2"]);
    let client = trusting_client(port, dir.path(), &pki, "SocketMinimumTLSVersion=TLS13");
    let log = wait_event(dir.path(), "disconnected: TLS: ")
        .unwrap_or_else(|t| panic!("no TLS error against a TLS 1.2 server:\n{t}"));
    assert!(
        log.to_lowercase().contains("alert") || log.contains("ProtocolVersion"),
        "{log}"
    );
    client.stop().unwrap();
    // The default (TLS12) initiator gets through to it.
    let dir = tempfile::tempdir().unwrap();
    let client = trusting_client(port, dir.path(), &pki, "");
    wait_output(&seen, "|35=A|").unwrap_or_else(|seen| panic!("no Logon over TLS 1.2:\n{seen}"));
    client.stop().unwrap();
}

#[test]
fn a_peregrine_initiator_logs_on_through_openssl_s_server() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::write(&dir.path().join("pki"));
    let port = free_port();
    // -trace: s_server prints the handshake too, the ClientHello's extensions with it.
    let (_server, seen) = s_server(&pki, port, &["-trace"]);
    let client = trusting_client(port, dir.path(), &pki, "");
    // s_server prints what it decrypts: the Logon.
    let logon =
        wait_output(&seen, "|10=").unwrap_or_else(|seen| panic!("s_server saw no Logon:\n{seen}"));
    assert!(logon.contains("|35=A|"), "{logon}");
    assert!(logon.contains("|49=CLIENT|"), "{logon}");
    assert!(logon.contains("|56=VENUE|"), "{logon}");
    // SocketServerName went out as SNI.
    let hello = logon.split("ServerHello").next().unwrap();
    assert!(hello.contains("extension_type=server_name(0)"), "{hello}");
    assert!(hello.contains("localhost"), "{hello}");
    client.stop().unwrap();
}

#[test]
fn a_tls13_only_acceptor_refuses_a_tls12_client() {
    let (_dir, pki, port, venue) = venue_with(|_| "SocketMinimumTLSVersion=TLS13".into());
    let run = |version: &str| {
        openssl()
            .args([
                "s_client",
                version,
                "-connect",
                &format!("127.0.0.1:{port}"),
            ])
            .args(["-CAfile", &path(&pki.ca), "-servername", "localhost"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("openssl")
    };
    let refused = run("-tls1_2");
    assert!(!refused.status.success(), "TLS 1.2 was accepted");
    let accepted = run("-tls1_3");
    assert!(
        accepted.status.success(),
        "{}",
        String::from_utf8_lossy(&accepted.stderr)
    );
    venue.stop().unwrap();
}

#[test]
fn tls_files_that_do_not_serve_stop_start_up_naming_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let pki = TestPki::write(&dir.path().join("pki"));
    let missing = dir.path().join("missing.pem");
    let cases = [
        (
            format!("SocketCertificateFile={}\nSocketPrivateKeyFile={}", path(&missing), path(&pki.server_key)),
            "SocketCertificateFile",
            "cannot read certificates",
        ),
        (
            format!("SocketCertificateFile={}\nSocketPrivateKeyFile={}", path(&pki.server_cert), path(&pki.client_key)),
            "SocketPrivateKeyFile",
            "does not go with the certificate",
        ),
        (
            format!(
                "SocketCertificateFile={}\nSocketPrivateKeyFile={}\nSocketCAFile={}\nNeedClientAuth=Y",
                path(&pki.server_cert),
                path(&pki.server_key),
                path(&pki.server_key)
            ),
            "SocketCAFile",
            "holds no PEM certificate",
        ),
    ];
    for (keys, key, message) in cases {
        let cfg = format!(
            "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptAddress=127.0.0.1\nSocketAcceptPort=0\n\
             UseDataDictionary=N\nSocketUseSSL=Y\n{keys}\n\
             [SESSION]\nBeginString=FIX.4.4\nSenderCompID=VENUE\nTargetCompID=CLIENT\n"
        );
        let line = 1 + cfg
            .lines()
            .position(|l| l.starts_with(&format!("{key}=")))
            .unwrap();
        let Err(err) = EngineBuilder::parse(&cfg, "venue.cfg")
            .unwrap()
            .start(|_| Counter::default())
        else {
            panic!("{key}: start-up was not refused");
        };
        let err = err.to_string();
        assert!(err.contains(&format!("venue.cfg:{line}: {key}: ")), "{err}");
        assert!(err.contains(message), "{err}");
    }
}

#[test]
fn tls_keys_that_contradict_each_other_are_refused_when_read() {
    let base = "[DEFAULT]\nSocketAcceptPort=5001\nSenderCompID=A\nTargetCompID=B\n";
    for (keys, key, message) in [
        ("SocketCAFile=ca.pem", "SocketCAFile", "has no effect without SocketUseSSL=Y"),
        ("SocketUseSSL=Y", "SocketUseSSL", "an acceptor needs SocketCertificateFile"),
        (
            "SocketUseSSL=Y\nSocketCertificateFile=a.pem",
            "SocketCertificateFile",
            "needs SocketPrivateKeyFile",
        ),
        (
            "SocketUseSSL=Y\nSocketCertificateFile=a.pem\nSocketPrivateKeyFile=a.key\nNeedClientAuth=Y",
            "NeedClientAuth",
            "needs SocketCAFile",
        ),
        (
            "SocketUseSSL=Y\nSocketCertificateFile=a.pem\nSocketPrivateKeyFile=a.key\nSocketMinimumTLSVersion=TLS11",
            "SocketMinimumTLSVersion",
            "TLS 1.2 and 1.3 only",
        ),
        (
            "SocketUseSSL=Y\nSocketCertificateFile=a.pem\nSocketPrivateKeyFile=a.key\nSocketServerName=x",
            "SocketServerName",
            "initiator only",
        ),
    ] {
        let text = format!("{base}{keys}\n[SESSION]\nBeginString=FIX.4.4\n");
        let e = peregrine_engine::config::Settings::parse(&text, "v.cfg".as_ref()).unwrap_err();
        assert_eq!(e.key.as_deref(), Some(key), "{keys}: {e}");
        assert!(e.to_string().contains(message), "{keys}: {e}");
    }
}

/// A peer that opens TCP and never finishes the handshake (nothing sent, or half a
/// ClientHello) is cut by LogonTimeout; so is an acceptor that never answers the
/// initiator's ClientHello: no hang either way.
#[test]
fn a_stalled_handshake_ends_at_logon_timeout() {
    use std::io::Read;
    let (_dir, _pki, port, venue) = venue_with(|_| "LogonTimeout=1".into());
    for first_bytes in [
        &b""[..],
        &b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"[..],
    ] {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.write_all(first_bytes).unwrap();
        s.set_read_timeout(Some(WAIT)).unwrap();
        let t = Instant::now();
        // Closed (an alert, then 0; or a reset): anything but the read timing out.
        let mut rest = Vec::new();
        let r = s.read_to_end(&mut rest);
        assert!(
            r.as_ref().map_or_else(
                |e| !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ),
                |_| true
            ),
            "{r:?} after {:?}",
            t.elapsed()
        );
        assert!(rest.len() < 64, "only an alert may come: {rest:?}");
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    }
    venue.stop().unwrap();

    // An acceptor that takes the connection and says nothing.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    // Holds what it accepts, says nothing; detached (the test's end closes it).
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in silent.incoming() {
            held.push(s);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let client = start(
        &client_cfg(port, dir.path(), "LogonTimeout=1"),
        "client.cfg",
        Counter::default(),
    );
    let log = wait_event(dir.path(), "no Logon within LogonTimeout")
        .unwrap_or_else(|t| panic!("the stalled handshake was not cut:\n{t}"));
    assert!(log.contains("connecting to"), "{log}");
    client.stop().unwrap();
}

/// Sessions on one `SocketAcceptPort` share its handshake: one with TLS and
/// one without is refused before anything starts (`check-config` too), on the
/// later session's key.
#[test]
fn sessions_sharing_a_port_must_agree_on_tls() {
    let text = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\nSenderCompID=VENUE\n\
                UseDataDictionary=N\n\
                [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\n\
                [SESSION]\nBeginString=FIX.4.4\nTargetCompID=B\nSocketUseSSL=Y\n\
                SocketCertificateFile=a.pem\nSocketPrivateKeyFile=a.key\n";
    let settings = peregrine_engine::config::Settings::parse(text, "v.cfg".as_ref()).unwrap();
    let e = peregrine_engine::preflight::check_listeners(&settings.sessions).unwrap_err();
    assert!(
        e.to_string().starts_with(
            "v.cfg:12: SocketUseSSL: TLS keys differ from those of FIX.4.4:VENUE->A on the same \
             SocketAcceptPort 5001"
        ),
        "{e}"
    );
}

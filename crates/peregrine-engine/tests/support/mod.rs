//! What the engine's tests share, so each test file says only what it tests:
//! engines built from `.cfg` text on the library's own `build_session`, the
//! usual pair (ISLD accepting TW over 127.0.0.1), an application that counts,
//! the NewOrderSingle the tests send, turning engines until something holds,
//! and a one-shot HTTP client for the admin interface.
// Each test binary uses its own part of this module.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use peregrine_codec::{MessageEncoder, MessageView};
use peregrine_dict::Dictionaries;
use peregrine_engine::admin::AdminOptions;
use peregrine_engine::config::Settings;
use peregrine_engine::fix::StoreKind;
use peregrine_engine::internal::{build_session, BoxedFixSession};
use peregrine_engine::{now_nanos, spawn_admin_server, Engine, EngineHandle, EngineOptions, Idle};
use peregrine_session::{AppReject, Application, EchoApp, Outbox, SendError, SessionId};
use peregrine_testkit::Peer;

/// The initiator's session in the usual pair.
pub const TW_ISLD: &str = "FIX.4.4:TW->ISLD";

/// Makes a session's application from its dictionaries (what `build_session` takes).
pub type AppFactory<'a> = dyn FnMut(Option<Arc<Dictionaries>>) -> Box<dyn Application + Send> + 'a;

/// The echo application, for every session of an acceptor.
pub fn echo(dictionaries: Option<Arc<Dictionaries>>) -> Box<dyn Application + Send> {
    Box::new(EchoApp::new(dictionaries))
}

/// Engine options with this idle strategy and message logs on or off (no stop flag).
pub fn options(idle: Idle, message_logs: bool) -> EngineOptions {
    EngineOptions {
        idle,
        message_logs,
        stop_flag: None,
        ..EngineOptions::default()
    }
}

/// An engine with every session of `text` (read as the file `cfg`, which names
/// errors and anchors relative paths), each on a `store` with an application
/// from `app`.
pub fn engine_with(
    text: &str,
    cfg: &Path,
    options: EngineOptions,
    store: StoreKind,
    app: &mut AppFactory<'_>,
) -> Engine<BoxedFixSession> {
    let settings = Settings::parse(text, cfg).unwrap();
    let mut engine = Engine::new(options).unwrap();
    for s in &settings.sessions {
        let d = build_session(s, store, now_nanos(), app).unwrap();
        engine.add_session(s, d).unwrap();
    }
    engine
}

/// ISLD accepting TW (FIX.4.4, a free port, no dictionary) with `extra` lines.
pub fn acceptor_cfg(extra: &str) -> String {
    format!(
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
         {extra}\n[SESSION]\nBeginString=FIX.4.4\n"
    )
}

/// TW connecting to ISLD on 127.0.0.1:`port` (FIX.4.4, no dictionary) with `extra` lines.
pub fn initiator_cfg(port: u16, extra: &str) -> String {
    format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
         SenderCompID=TW\nTargetCompID=ISLD\nUseDataDictionary=N\n{extra}\n\
         [SESSION]\nBeginString=FIX.4.4\n"
    )
}

/// Counts the application messages it receives.
pub struct Count(pub Arc<AtomicUsize>);

impl Application for Count {
    fn from_app(
        &mut self,
        _msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        self.0.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// The fields of the tests' NewOrderSingle after the header: `cl_ord_id`,
/// buy 100 PEREGRINE at market.
pub fn order_fields(enc: &mut MessageEncoder<'_>, cl_ord_id: &[u8]) {
    enc.str(11, cl_ord_id)
        .str(21, b"1")
        .str(38, b"100")
        .str(40, b"1")
        .str(54, b"1")
        .str(55, b"PEREGRINE")
        .str(60, b"20260101-00:00:00.000");
}

/// Sends a message of `msg_type` with [`order_fields`] on `session`, which
/// must be one of `e`'s; the session's answer.
pub fn send_order(
    e: &mut Engine<BoxedFixSession>,
    session: &str,
    msg_type: &[u8],
    cl_ord_id: &str,
) -> Result<u64, SendError> {
    e.with_session(session, |d, now| {
        d.send(now, msg_type, |enc| order_fields(enc, cl_ord_id.as_bytes()))
    })
    .unwrap_or_else(|| panic!("no session {session}"))
}

/// Whether an engine's first session is logged on.
pub fn logged_on(e: &Engine<BoxedFixSession>) -> bool {
    e.sessions()[0].logged_on
}

/// Turns `engines` until `done` holds, failing after `limit` with `what` it
/// waited for.
pub fn pump(
    engines: &mut [&mut Engine<BoxedFixSession>],
    limit: Duration,
    what: &str,
    mut done: impl FnMut(&mut [&mut Engine<BoxedFixSession>]) -> bool,
) {
    let start = Instant::now();
    while !done(engines) {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        for e in engines.iter_mut() {
            e.turn().unwrap();
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Turns an acceptor and an initiator until both are logged on (10 s at most).
pub fn log_on(acc: &mut Engine<BoxedFixSession>, ini: &mut Engine<BoxedFixSession>) {
    pump(&mut [acc, ini], Duration::from_secs(10), "logon", |e| {
        logged_on(e[0]) && logged_on(e[1])
    });
}

/// A raw counterparty connected to `addr` as `sender` (talking to `target`)
/// that sends a Logon; the first answer within `limit` (`None`: closed first).
pub fn peer_logon(
    addr: SocketAddr,
    sender: &str,
    target: &str,
    limit: Duration,
) -> (Peer, Option<String>) {
    let mut peer = Peer::connect(addr, sender, target);
    peer.send("35=A|98=0|108=30");
    let answer = peer.read(limit, || {});
    (peer, answer)
}

/// This test binary as a child process that runs only the test `entry`: its
/// entry point, which plays its part when the variable `var` (set to `value`)
/// is there.
pub fn child_test(entry: &str, var: &str, value: &str) -> Command {
    let mut child = Command::new(std::env::current_exe().unwrap());
    child
        .args(["--exact", entry, "--nocapture"])
        .args(["--test-threads", "1"])
        .env(var, value);
    child
}

/// Any free port on 127.0.0.1.
pub fn loopback() -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, 0))
}

/// The admin interface, on a free loopback port, for the engine behind `handle`.
pub fn serve_admin(handle: &EngineHandle, options: AdminOptions) -> SocketAddr {
    spawn_admin_server(loopback(), handle.clone(), options).unwrap()
}

/// Sends `request` over a new connection and reads the whole answer (the
/// server closes after one): its status, head and body.
pub fn http(addr: SocketAddr, request: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out.split_whitespace().nth(1).unwrap().parse().unwrap();
    let (head, body) = out.split_once("\r\n\r\n").unwrap();
    (status, head.to_string(), body.to_string())
}

/// `GET target`, with `Authorization: Bearer <token>` when there is one.
pub fn get(addr: SocketAddr, target: &str, token: Option<&str>) -> (u16, String, String) {
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    http(
        addr,
        &format!("GET {target} HTTP/1.1\r\nHost: x\r\n{auth}\r\n"),
    )
}

/// Captures `tracing` output.
#[derive(Clone, Default)]
pub struct Captured(pub Arc<std::sync::Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Captured {
        self.clone()
    }
}

/// The test binary's `tracing` output up to `level`, from the first call on
/// (one global subscriber per process: the first call's level holds).
pub fn captured_log(level: tracing::Level) -> Captured {
    static LOG: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    LOG.get_or_init(|| {
        let log = Captured::default();
        tracing_subscriber::fmt()
            .with_writer(log.clone())
            .with_ansi(false)
            .with_max_level(level)
            .init();
        log
    })
    .clone()
}

//! The admin HTTP interface against a running engine: `/seqnum` sets a
//! session's numbers and they are in force when `200` comes back; `/sessions`
//! lists sessions as JSON; errors are 400/404/405.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::Duration;

use peregrine_engine::config::Settings;
use peregrine_engine::fix::{build_session, BoxedFixSession, StoreKind};
use peregrine_engine::{now_nanos, spawn_admin_server, Command, Engine, EngineOptions};
use peregrine_session::EchoApp;

fn http(addr: SocketAddr, request: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = out.split_once("\r\n\r\n").unwrap().1.to_string();
    (status, body)
}

fn get(addr: SocketAddr, target: &str) -> (u16, String) {
    http(addr, &format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n"))
}

fn frame(body: &str) -> Vec<u8> {
    let body = body.replace('|', "\x01");
    let mut msg = format!("8=FIX.4.4\x019={}\x01{body}", body.len()).into_bytes();
    let sum: u32 = msg.iter().map(|&b| u32::from(b)).sum();
    msg.extend_from_slice(format!("10={:03}\x01", sum % 256).as_bytes());
    msg
}

/// Reads one FIX message (through `10=nnn<SOH>`).
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
    String::from_utf8_lossy(&buf).replace('\x01', "|")
}

#[test]
fn seqnum_and_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "[DEFAULT]\nSocketAcceptPort=0\nSenderCompID=ISLD\nTargetCompID=TW\nUseDataDictionary=N\n\
                FileLogPath=log\n[SESSION]\nBeginString=FIX.4.4\n\
                [SESSION]\nBeginString=FIXT.1.1\nDefaultApplVerID=FIX.5.0SP2\nSessionQualifier=Q\n";
    let settings = Settings::parse(text, &dir.path().join("a.cfg")).unwrap();
    let mut engine: Engine<BoxedFixSession> = Engine::new(EngineOptions::default()).unwrap();
    for s in &settings.sessions {
        let d = build_session(s, StoreKind::Memory, now_nanos(), &mut |d| {
            Box::new(EchoApp::new(d))
        })
        .unwrap();
        engine.add_session(s, d).unwrap();
    }
    let fix = engine.listener_addrs()[0];
    let handle = engine.handle();
    let admin =
        spawn_admin_server(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), handle.clone()).unwrap();
    let reactor = std::thread::spawn(move || engine.run());

    let (status, body) = get(
        admin,
        "/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=2000",
    );
    assert_eq!(status, 200, "{body}");
    // In force before the 200: the Logon answer carries 34=2000.
    let mut c = TcpStream::connect(fix).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let now = peregrine_engine::log::timestamp(now_nanos());
    c.write_all(&frame(&format!(
        "35=A|34=1|49=TW|52={}|56=ISLD|98=0|108=30|",
        &now[..21]
    )))
    .unwrap();
    let answer = read_message(&mut c);
    assert!(answer.contains("|35=A|34=2000|"), "{answer}");

    let (status, body) = get(
        admin,
        "/seqnum?SESSION=FIX.4.4%3AISLD-%3ETW&NEXTTARGETSEQNUM=7",
    );
    assert_eq!(status, 200, "{body}");
    let (status, json) = get(admin, "/sessions");
    assert_eq!(status, 200);
    assert!(json.starts_with("[{\"session\":\"FIX.4.4:ISLD->TW\",\"state\":\"LoggedOn\",\"connected\":true,\"logged_on\":true,\"next_sender_seq\":2001,\"next_target_seq\":7,"), "{json}");
    assert!(
        json.contains(
            "{\"session\":\"FIXT.1.1:ISLD->TW:Q\",\"state\":\"Disconnected\",\"connected\":false"
        ),
        "{json}"
    );

    // The qualifier may be left out when it names one session.
    let (status, body) = get(
        admin,
        "/seqnum?SESSION=FIXT.1.1:ISLD-%3ETW&NEXTSENDERSEQNUM=5&NEXTTARGETSEQNUM=6",
    );
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("next_sender_seq=5 next_target_seq=6"),
        "{body}"
    );

    for (target, want) in [
        ("/seqnum?SESSION=FIX.4.2:A-%3EB&NEXTSENDERSEQNUM=1", 404),
        (
            "/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=abc",
            400,
        ),
        ("/seqnum?SESSION=FIX.4.4:ISLD-%3ETW&NEXTSENDERSEQNUM=0", 400),
        ("/seqnum?SESSION=FIX.4.4:ISLD-%3ETW", 400),
        ("/seqnum?NEXTSENDERSEQNUM=3", 400),
        ("/nothing", 404),
    ] {
        assert_eq!(get(admin, target).0, want, "{target}");
    }
    assert_eq!(http(admin, "POST /sessions HTTP/1.1\r\n\r\n").0, 405);

    // Direct calls through the handle, then a graceful stop.
    let reply = handle
        .call(Command::ListSessions, Duration::from_secs(5))
        .unwrap();
    assert_eq!(reply.status, 200);
    handle.stop();
    reactor.join().unwrap().unwrap();
    // The stop logged the session out.
    let answer = read_message(&mut c);
    assert!(answer.contains("|35=5|"), "{answer}");
}

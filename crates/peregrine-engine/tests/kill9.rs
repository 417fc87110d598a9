//! An order is processed once across `kill -9`: the venue (an acceptor with the
//! file store, in a child process) is killed at random points while a client
//! streams orders, and restarted. Every order must be answered by exactly one
//! ExecutionReport: resent copies of that report (PossDupFlag=Y, same
//! MsgSeqNum) are the same answer; a second report with a new MsgSeqNum is a
//! duplicate the client cannot filter.
//!
//! Before, the venue stored and synced its reply before it advanced the
//! incoming sequence number, so a kill between the two redelivered the order
//! as unprocessed (2-5 duplicates per run in the outside test). Now both are
//! in one commit of the journal: an incoming message has been processed with
//! its replies stored, or not at all.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use peregrine_codec::MessageView;
use peregrine_engine::fix::StoreKind;
use peregrine_engine::{now_nanos, Idle};
use peregrine_session::{AppReject, Application, Outbox, SessionId};
use peregrine_testkit::Rng;

mod support;
use support::{child_test, engine_with, options, send_order};

const CHILD_ENV: &str = "PEREGRINE_KILL9_VENUE";

/// The venue: answers every order the session delivers with an ExecutionReport.
struct Venue {
    execs: u64,
}

impl Application for Venue {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        if msg.msg_type() != b"D" {
            return Err(AppReject::UnsupportedMessageType);
        }
        self.execs += 1;
        let exec_id = format!("E{}-{}", std::process::id(), self.execs);
        let cl_ord_id = msg.get(11).unwrap_or(b"?");
        out.send(b"8", |m| {
            m.str(6, b"0")
                .str(11, cl_ord_id)
                .str(14, b"0")
                .str(17, exec_id.as_bytes())
                .str(37, cl_ord_id)
                .str(39, b"0")
                .str(54, b"1")
                .str(55, b"PEREGRINE")
                .str(150, b"0")
                .str(151, b"100");
        })
        .map(|_| ())
        .map_err(|_| AppReject::business(0, "store failure"))
    }
}

fn venue_cfg(dir: &str, port: u16) -> String {
    format!(
        "[DEFAULT]\nSocketAcceptPort={port}\nSocketAcceptHost=127.0.0.1\nSenderCompID=VENUE\n\
         TargetCompID=CLIENT\nUseDataDictionary=N\nFileStorePath={dir}/store\n\
         FileLogPath={dir}/log\n\
         [SESSION]\nBeginString=FIX.4.4\n"
    )
}

/// The child: the venue, until it is killed.
#[test]
fn venue_child_entry_point() {
    let Ok(arg) = std::env::var(CHILD_ENV) else {
        return;
    };
    let (dir, port) = arg.split_once(',').unwrap();
    let text = venue_cfg(dir, port.parse().unwrap());
    let mut engine = engine_with(
        &text,
        &std::path::Path::new(dir).join("venue.cfg"),
        options(Idle::block(), true),
        StoreKind::File,
        &mut |_| Box::new(Venue { execs: 0 }),
    );
    println!("venue ready");
    engine.run().unwrap();
}

type Reports = Arc<Mutex<BTreeMap<String, BTreeSet<u64>>>>;

/// The client's application: notes the MsgSeqNum of every report per ClOrdID.
struct Client(Reports);

impl Application for Client {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        if msg.msg_type() == b"8" {
            let id = String::from_utf8_lossy(msg.get(11).unwrap_or(b"?")).into_owned();
            let seq: u64 = std::str::from_utf8(msg.get(34).unwrap())
                .unwrap()
                .parse()
                .unwrap();
            self.0.lock().unwrap().entry(id).or_default().insert(seq);
        }
        Ok(())
    }
}

fn start_venue(dir: &str, port: u16) -> Child {
    let mut child = child_test(
        "venue_child_entry_point",
        CHILD_ENV,
        &format!("{dir},{port}"),
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let out = child.stdout.take().unwrap();
    BufReader::new(out)
        .lines()
        .map_while(Result::ok)
        .find(|l| l.contains("venue ready"))
        .expect("the venue starts");
    child
}

#[cfg(unix)]
#[test]
fn every_order_is_answered_once_across_kill_9() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    let seed = std::env::var("PEREGRINE_KILL9_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| now_nanos() as u64 | 1);
    eprintln!("kill -9 test: PEREGRINE_KILL9_SEED={seed}");
    let mut rng = Rng::new(seed);
    let dir = tempfile::tempdir().unwrap();
    let dir_s = dir.path().to_str().unwrap().to_string();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();

    let text = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
         SenderCompID=CLIENT\nTargetCompID=VENUE\nHeartBtInt=5\nReconnectInterval=1\n\
         UseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\n"
    );
    let reports: Reports = Arc::default();
    let mut client = engine_with(
        &text,
        &dir.path().join("client.cfg"),
        options(Idle::backoff(Duration::from_micros(100)), false),
        StoreKind::Memory,
        &mut |_| Box::new(Client(reports.clone())),
    );

    let mut venue = start_venue(&dir_s, port);
    const KILLS: usize = 8;
    // Orders go on after the last kill until this many were sent: on a loaded machine
    // the venue's restarts leave little time logged on between kills.
    const MIN_ORDERS: u64 = 600;
    let mut kills = 0;
    let mut sent = 0u64;
    let mut next_kill = Instant::now() + Duration::from_millis(300 + rng.below(900));
    let mut last_send = Instant::now();
    let start = Instant::now();
    let all_answered = |sent: u64| reports.lock().unwrap().len() as u64 >= sent;
    while kills < KILLS || sent < MIN_ORDERS || !all_answered(sent) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "seed {seed}: {} of {sent} orders answered after {kills} kills",
            reports.lock().unwrap().len()
        );
        client.turn().unwrap();
        // An order every half millisecond or so while logged on (and orders keep
        // coming until the last kill, and until MIN_ORDERS were sent).
        if (kills < KILLS || sent < MIN_ORDERS)
            && client.sessions()[0].logged_on
            && last_send.elapsed() >= Duration::from_micros(500)
        {
            let id = format!("ORD{sent:06}");
            if send_order(&mut client, "FIX.4.4:CLIENT->VENUE", b"D", &id).is_ok() {
                sent += 1;
            }
            last_send = Instant::now();
        }
        if kills < KILLS && Instant::now() >= next_kill {
            venue.kill().unwrap();
            venue.wait().unwrap();
            kills += 1;
            venue = start_venue(&dir_s, port);
            next_kill = Instant::now() + Duration::from_millis(200 + rng.below(900));
        }
    }
    venue.kill().unwrap();
    venue.wait().unwrap();
    let reports = reports.lock().unwrap();
    assert!(sent > 500, "seed {seed}: only {sent} orders sent");
    let twice: Vec<_> = reports.iter().filter(|(_, seqs)| seqs.len() != 1).collect();
    assert!(
        twice.is_empty(),
        "seed {seed}: {} of {sent} orders answered more than once: {:?}",
        twice.len(),
        &twice[..twice.len().min(5)]
    );
    for i in 0..sent {
        assert!(
            reports.contains_key(&format!("ORD{i:06}")),
            "seed {seed}: ORD{i:06} never answered"
        );
    }
    let log = std::fs::read(dir.path().join("log/FIX.4.4-VENUE-CLIENT.messages.log")).unwrap();
    the_log_lost_only_each_lifes_tail(&log, kills, sent, seed);
}

/// The venue's messages log across its kills: what a `kill -9` loses is the
/// end of a life (what the logging thread's ring and file buffer held), never
/// a line in the middle. So the new messages the venue sent (not PossDup)
/// appear in increasing MsgSeqNum order, and a gap in them is always followed
/// by the next life's Logon; at most one torn line per kill; and each life's
/// lost tail is at most the ring's worth of messages.
fn the_log_lost_only_each_lifes_tail(log: &[u8], kills: usize, sent: u64, seed: u64) {
    let value = |m: &[u8], tag: &[u8]| -> Option<Vec<u8>> {
        m.split(|&b| b == 1)
            .find_map(|f| f.strip_prefix(tag)?.strip_prefix(b"="))
            .map(<[u8]>::to_vec)
    };
    let mut torn = 0;
    let mut last_seq = 0u64;
    let mut logon_since_last = false;
    let mut lost = Vec::new();
    let mut reports = 0u64;
    for line in log.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let Some(m) = line
            .get(27..)
            .filter(|m| m.starts_with(b"8=FIX.4.4\x01") && m.ends_with(b"\x01"))
            .filter(|m| value(m, b"10").is_some())
        else {
            torn += 1;
            continue;
        };
        let msg_type = value(m, b"35").unwrap_or_default();
        if value(m, b"49").as_deref() != Some(b"VENUE") {
            logon_since_last |= msg_type == b"A";
            continue;
        }
        if value(m, b"43").as_deref() == Some(b"Y") {
            continue;
        }
        let seq: u64 = std::str::from_utf8(&value(m, b"34").expect("MsgSeqNum"))
            .unwrap()
            .parse()
            .unwrap();
        reports += u64::from(msg_type == b"8");
        assert!(
            seq > last_seq,
            "seed {seed}: MsgSeqNum {seq} logged after {last_seq}"
        );
        if seq > last_seq + 1 && last_seq > 0 {
            assert!(
                logon_since_last,
                "seed {seed}: {} to {} missing from the log in the middle of a life",
                last_seq + 1,
                seq - 1
            );
            lost.push(seq - last_seq - 1);
        }
        last_seq = seq;
        logon_since_last = false;
    }
    assert!(
        torn <= kills + 1,
        "seed {seed}: {torn} torn lines after {kills} kills"
    );
    // A life's tail that a kill lost: at most the ring's worth of ~200-byte messages.
    let most = peregrine_engine::log::RING_BYTES as u64 / 150;
    assert!(
        lost.iter().all(|&n| n <= most),
        "seed {seed}: lost tails {lost:?} (at most {most} each)"
    );
    assert!(
        reports > sent / 2,
        "seed {seed}: {reports} reports logged of {sent}"
    );
    eprintln!("kill -9 and the venue's log: {reports} reports logged of {sent} orders, tails lost {lost:?}, {torn} torn lines");
}

//! Routing between sessions is exactly once across `kill -9`: a router (in a
//! child process; client sessions C1, C2, C3 and the venue session on one
//! engine journal) forwards each order to the venue and each fill back to
//! its client from inside its callbacks, and is killed at random points and
//! restarted. Every order must reach the venue's application once, and every
//! client must get exactly one fill per order: a resent copy (PossDupFlag=Y,
//! the same MsgSeqNum) is the same fill; a fill with a new MsgSeqNum would be
//! a duplicate nobody can filter. Before the engine journal, a router
//! written this way lost fills on a kill (257 of 3,000 in the trial):
//! the client's sequence number and the forward were committed apart.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use peregrine_codec::MessageView;
use peregrine_engine::fix::StoreKind;
use peregrine_engine::{now_nanos, EngineBuilder, Idle};
use peregrine_session::{AppReject, Application, Outbox, SessionId};
use peregrine_testkit::Rng;

mod support;
use support::{child_test, engine_with, options, send_order};

const CHILD_ENV: &str = "PEREGRINE_ROUTER_KILL9";
const CLIENTS: [&str; 3] = ["C1", "C2", "C3"];

/// The router: orders to the venue (the client in Account(1)), fills to the
/// client Account names. It keeps nothing of its own: what it must remember
/// travels in the messages.
struct Router;

impl Application for Router {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let cl_ord_id = msg.get(11).unwrap_or(b"?");
        let sent = if id.target_comp_id == "VENUE" {
            let client = String::from_utf8_lossy(msg.get(1).unwrap_or(b"")).into_owned();
            out.send_to(&SessionId::new("FIX.4.4", "GW", &client), b"8", |m| {
                m.str(11, cl_ord_id).str(39, b"2").str(150, b"F");
            })
        } else {
            out.send_to(&SessionId::new("FIX.4.4", "GW", "VENUE"), b"D", |m| {
                m.str(1, id.target_comp_id.as_bytes())
                    .str(11, cl_ord_id)
                    .str(55, b"PEREGRINE");
            })
        };
        sent.map(|_| ())
            .map_err(|e| AppReject::business(0, e.to_string()))
    }
}

fn router_cfg(dir: &str, port: u16) -> String {
    let journal = std::env::var("PEREGRINE_ROUTER_JOURNAL").unwrap_or_else(|_| "Y".into());
    let mut cfg = format!(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort={port}\nSocketAcceptAddress=127.0.0.1\n\
         SenderCompID=GW\nUseDataDictionary=N\nFileStorePath={dir}/store\nFileStoreSync=Y\n\
         EngineJournal={journal}\nIdleStrategy=block\n"
    );
    for t in CLIENTS.iter().chain(&["VENUE"]) {
        cfg.push_str(&format!(
            "[SESSION]\nBeginString=FIX.4.4\nTargetCompID={t}\n"
        ));
    }
    cfg
}

/// The child: the router, until it is killed.
#[test]
fn router_child_entry_point() {
    let Ok(arg) = std::env::var(CHILD_ENV) else {
        return;
    };
    let (dir, port) = arg.split_once(',').unwrap();
    let mut engine = EngineBuilder::parse(
        &router_cfg(dir, port.parse().unwrap()),
        std::path::Path::new(dir).join("router.cfg"),
    )
    .unwrap()
    .build(|_| Router)
    .unwrap();
    println!("router ready");
    engine.run().unwrap();
}

fn start_router(dir: &str, port: u16) -> Child {
    let mut child = child_test(
        "router_child_entry_point",
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
        .find(|l| l.contains("router ready"))
        .expect("the router starts");
    child
}

/// ClOrdID → the MsgSeqNums of what arrived for it.
type Seen = Arc<Mutex<BTreeMap<String, BTreeSet<u64>>>>;

fn note(seen: &Seen, msg: &MessageView<'_>) {
    let id = String::from_utf8_lossy(msg.get(11).unwrap_or(b"?")).into_owned();
    let seq = std::str::from_utf8(msg.get(34).unwrap_or(b"0"))
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    seen.lock().unwrap().entry(id).or_default().insert(seq);
}

/// A client: notes its fills.
struct Client(Seen);

impl Application for Client {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        _out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        note(&self.0, msg);
        Ok(())
    }
}

/// The venue: notes each order and fills it.
struct Venue(Seen);

impl Application for Venue {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        _id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        note(&self.0, msg);
        let (account, cl_ord_id) = (msg.get(1).unwrap_or(b""), msg.get(11).unwrap_or(b""));
        out.send(b"8", |m| {
            m.str(1, account).str(11, cl_ord_id).str(39, b"2");
        })
        .map(|_| ())
        .map_err(|e| AppReject::business(0, e.to_string()))
    }
}

fn initiators(port: u16, names: &[&str]) -> String {
    let mut cfg = format!(
        "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
         TargetCompID=GW\nUseDataDictionary=N\nHeartBtInt=5\nReconnectInterval=1\n"
    );
    for n in names {
        cfg.push_str(&format!(
            "[SESSION]\nBeginString=FIX.4.4\nSenderCompID={n}\n"
        ));
    }
    cfg
}

#[cfg(unix)]
#[test]
fn every_order_is_routed_and_filled_once_across_kill_9_of_the_router() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    let seed = std::env::var("PEREGRINE_KILL9_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| now_nanos() as u64 | 1);
    eprintln!("router kill -9 test: PEREGRINE_KILL9_SEED={seed}");
    let mut rng = Rng::new(seed);
    let dir = tempfile::tempdir().unwrap();
    let dir_s = dir.path().to_str().unwrap().to_string();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let fills: Seen = Arc::default();
    let orders: Seen = Arc::default();
    let idle = || options(Idle::backoff(Duration::from_micros(100)), false);
    let mut clients = engine_with(
        &initiators(port, &CLIENTS),
        &dir.path().join("clients.cfg"),
        idle(),
        StoreKind::Memory,
        &mut |_| Box::new(Client(fills.clone())),
    );
    let mut venue = engine_with(
        &initiators(port, &["VENUE"]),
        &dir.path().join("venue.cfg"),
        idle(),
        StoreKind::Memory,
        &mut |_| Box::new(Venue(orders.clone())),
    );
    let mut router = start_router(&dir_s, port);
    const KILLS: usize = 6;
    const MIN_ORDERS: u64 = 300;
    let (mut kills, mut sent) = (0, 0u64);
    let mut next_kill = Instant::now() + Duration::from_millis(400 + rng.below(900));
    let mut last_send = Instant::now();
    let start = Instant::now();
    let all_filled = |sent: u64| fills.lock().unwrap().len() as u64 >= sent;
    while kills < KILLS || sent < MIN_ORDERS || !all_filled(sent) {
        assert!(
            start.elapsed() < Duration::from_secs(150),
            "seed {seed}: {} of {sent} orders filled after {kills} kills",
            fills.lock().unwrap().len()
        );
        clients.turn().unwrap();
        venue.turn().unwrap();
        let up = venue.sessions()[0].logged_on;
        if (kills < KILLS || sent < MIN_ORDERS)
            && up
            && last_send.elapsed() >= Duration::from_micros(700)
        {
            let c = CLIENTS[rng.below(3) as usize];
            let session = format!("FIX.4.4:{c}->GW");
            let logged_on = clients
                .sessions()
                .iter()
                .any(|s| s.name == session && s.logged_on);
            if logged_on
                && send_order(&mut clients, &session, b"D", &format!("{c}-{sent:05}")).is_ok()
            {
                sent += 1;
            }
            last_send = Instant::now();
        }
        if kills < KILLS && Instant::now() >= next_kill {
            router.kill().unwrap();
            router.wait().unwrap();
            kills += 1;
            router = start_router(&dir_s, port);
            next_kill = Instant::now() + Duration::from_millis(300 + rng.below(1200));
        }
    }
    router.kill().unwrap();
    router.wait().unwrap();
    let (fills, orders) = (fills.lock().unwrap(), orders.lock().unwrap());
    assert!(sent >= MIN_ORDERS, "seed {seed}: only {sent} orders sent");
    let twice: Vec<_> = orders.iter().filter(|(_, s)| s.len() != 1).collect();
    assert!(
        twice.is_empty(),
        "seed {seed}: {} orders reached the venue as new more than once: {:?}",
        twice.len(),
        &twice[..twice.len().min(5)]
    );
    let twice: Vec<_> = fills.iter().filter(|(_, s)| s.len() != 1).collect();
    assert!(
        twice.is_empty(),
        "seed {seed}: {} orders filled more than once: {:?}",
        twice.len(),
        &twice[..twice.len().min(5)]
    );
    assert_eq!(fills.len() as u64, sent, "seed {seed}: every order filled");
    assert_eq!(
        orders.len() as u64,
        sent,
        "seed {seed}: every order at the venue"
    );
    eprintln!("{sent} orders, {kills} kills: each routed and filled once");
}

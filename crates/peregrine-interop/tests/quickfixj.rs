//! Peregrine against QuickFIX/J 2.3.1 (`peers/quickfixj/.../Interop.java`, built by
//! `make deps`), two processes over TCP on 127.0.0.1, both with file stores:
//! QuickFIX/J sends 10,000 NewOrderSingles, Peregrine (`interop-peer`) answers each with
//! one ExecutionReport. Between the initiator and the acceptor a proxy cuts the
//! connection five times at random bytes (mid-message included), and Peregrine is
//! killed with SIGKILL halfway and restarted. Then each application must have been
//! delivered every message exactly once and in order, a message delivered again only
//! as a PossDupFlag=Y resend (`peregrine_interop::deliveries`). FIX.4.4 and
//! FIXT.1.1/FIX.5.0SP2, Peregrine as acceptor and as initiator; then TLS both ways.
//!
//! A failing run prints its seed; `PEREGRINE_INTEROP_SEED=<seed>` runs the same cuts.

use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use peregrine_interop::deliveries::{check, Delivered};
use peregrine_interop::proxy::Proxy;
use peregrine_testkit::net::free_port;
use peregrine_testkit::Rng;

const ORDERS: u64 = 10_000;
/// A whole run's limit (QuickFIX/J gives up after 240 s by itself).
const RUN_LIMIT: Duration = Duration::from_secs(300);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn qfj_built() -> bool {
    root()
        .join("peers/quickfixj/target/classes/peregrine/peers/Interop.class")
        .is_file()
}

/// Kills a child process (SIGKILL) when dropped.
struct Reap(Option<Child>);

impl Reap {
    fn child(&mut self) -> &mut Child {
        self.0.as_mut().expect("running")
    }
}

impl Drop for Reap {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tls {
    None,
    On,
}

/// One run's shape.
#[derive(Clone, Copy, Debug)]
struct Scenario {
    begin_string: &'static str,
    peregrine_acceptor: bool,
    cuts: usize,
    kill: bool,
    tls: Tls,
    orders: u64,
}

/// The `[DEFAULT]` and `[SESSION]` of one side.
fn cfg(
    s: &Scenario,
    acceptor: bool,
    us: &str,
    them: &str,
    (acceptor_port, connect): (u16, SocketAddr),
    dir: &Path,
    extra: &str,
) -> String {
    let side = if acceptor {
        format!("ConnectionType=acceptor\nSocketAcceptAddress=127.0.0.1\nSocketAcceptPort={acceptor_port}\n")
    } else {
        format!(
            "ConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={}\nReconnectInterval=1\n",
            connect.port()
        )
    };
    let fixt = if s.begin_string == "FIXT.1.1" {
        "DefaultApplVerID=FIX.5.0SP2\n"
    } else {
        ""
    };
    format!(
        "[DEFAULT]\n{side}FileStorePath={}\nStartTime=00:00:00\nEndTime=00:00:00\nHeartBtInt=5\n\
         UseDataDictionary=N\n{extra}\n[SESSION]\nBeginString={}\nSenderCompID={us}\nTargetCompID={them}\n{fixt}",
        dir.join(format!("{us}-store")).display(),
        s.begin_string
    )
}

fn spawn_peregrine(cfg: &Path, out: &Path, log: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_interop-peer"))
        .args(["--config", &cfg.display().to_string()])
        .args(["--out", &out.display().to_string()])
        .stdout(Stdio::null())
        .stderr(
            std::fs::File::options()
                .create(true)
                .append(true)
                .open(log)
                .unwrap(),
        )
        .spawn()
        .expect("interop-peer")
}

fn spawn_qfj(cfg: &Path, orders: u64, prefix: &str, out: &Path, log: &Path) -> Child {
    Command::new(root().join("peers/quickfixj/run.sh"))
        .args(["Interop", &cfg.display().to_string(), &orders.to_string()])
        .arg(out)
        .arg(prefix)
        .env("PEREGRINE_JVM_OPTS", "-Xms256m -Xmx256m")
        .stdout(std::fs::File::create(log).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("peers/quickfixj/run.sh")
}

fn lines(path: &Path) -> u64 {
    std::fs::read(path).map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count() as u64)
}

fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// The PKCS#12 stores QuickFIX/J's SSL reads, made from the PEM files with openssl and
/// keytool: the server's key store, and a trust store holding the CA.
fn java_stores(pki: &peregrine_testkit::tls::TestPki, dir: &Path) -> (PathBuf, PathBuf) {
    let keystore = dir.join("server.p12");
    let truststore = dir.join("trust.p12");
    let ok = |c: &mut Command| {
        let o = c.output().expect("openssl/keytool");
        assert!(
            o.status.success(),
            "{c:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    ok(Command::new("openssl")
        .args([
            "pkcs12",
            "-export",
            "-passout",
            "pass:changeit",
            "-name",
            "server",
        ])
        .arg("-in")
        .arg(&pki.server_cert)
        .arg("-inkey")
        .arg(&pki.server_key)
        .arg("-out")
        .arg(&keystore));
    ok(Command::new("keytool")
        .args([
            "-importcert",
            "-noprompt",
            "-alias",
            "ca",
            "-storetype",
            "PKCS12",
        ])
        .args(["-storepass", "changeit", "-file"])
        .arg(&pki.ca)
        .arg("-keystore")
        .arg(&truststore));
    (keystore, truststore)
}

/// A directory for one test: removed afterwards, unless PEREGRINE_INTEROP_KEEP is set
/// (configs, stores, logs and deliveries stay for a look).
fn work_dir() -> (PathBuf, Option<tempfile::TempDir>) {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_path_buf();
    if std::env::var_os("PEREGRINE_INTEROP_KEEP").is_some() {
        eprintln!("keeping {}", tmp.keep().display());
        (d, None)
    } else {
        (d, Some(tmp))
    }
}

/// Keys one run adds to each side's `[DEFAULT]`.
#[derive(Clone, Debug, Default)]
struct Extra {
    peregrine: String,
    quickfixj: String,
}

fn run(s: Scenario, seed: u64) -> (Delivered, Delivered) {
    let (d, _tmp) = work_dir();
    run_in(&d, s, seed, "J", &Extra::default())
}

/// The lines of `text` whose ids start with `prefix` and a digit (one run's orders,
/// when a directory holds several runs' deliveries).
fn only(text: &str, prefix: &str) -> String {
    text.lines()
        .filter(|l| {
            l.strip_prefix(prefix)
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Both processes of one run, started, and where their files are.
struct Started {
    peregrine: Reap,
    qfj: Reap,
    proxy: Proxy,
    cuts: Vec<u64>,
    p_cfg: PathBuf,
    p_out: PathBuf,
    p_log: PathBuf,
    q_out: PathBuf,
    q_log: PathBuf,
}

/// Starts a run in `d` (stores kept from earlier runs there): QuickFIX/J will send
/// orders `<prefix>1` … through the cutting proxy.
fn start(d: &Path, s: &Scenario, seed: u64, prefix: &str, extra: &Extra) -> Started {
    let acceptor_port = free_port();
    let mut rng = Rng::new(seed);
    // Orders ~130 bytes, reports ~170: cut within the first 60% of the traffic.
    let traffic = s.orders * 300;
    let cuts: Vec<u64> = (0..s.cuts)
        .map(|_| 2_000 + rng.below(traffic * 6 / 10))
        .collect();
    let proxy = Proxy::start(
        SocketAddr::from(([127, 0, 0, 1], acceptor_port)),
        cuts.clone(),
    )
    .unwrap();
    let (p_tls, q_tls) = match s.tls {
        Tls::None => (String::new(), String::new()),
        Tls::On => {
            let pki = peregrine_testkit::tls::TestPki::write(&d.join("pki"));
            let (keystore, truststore) = java_stores(&pki, d);
            if s.peregrine_acceptor {
                (
                    format!(
                        "SocketUseSSL=Y\nSocketCertificateFile={}\nSocketPrivateKeyFile={}",
                        pki.server_cert.display(),
                        pki.server_key.display()
                    ),
                    format!(
                        "SocketUseSSL=Y\nSocketTrustStore={}\nSocketTrustStorePassword=changeit\nTrustStoreType=PKCS12",
                        truststore.display()
                    ),
                )
            } else {
                (
                    format!(
                        "SocketUseSSL=Y\nSocketCAFile={}\nSocketServerName=localhost",
                        pki.ca.display()
                    ),
                    // QuickFIX/J 2.3.1's SSL acceptor (MINA) takes no application data after
                    // a TLS 1.3 handshake, from openssl s_client either (its TLS 1.3 support
                    // is still being tested: quickfix-j/quickfixj#892): TLS 1.2 on its side.
                    format!(
                        "SocketUseSSL=Y\nSocketKeyStore={}\nSocketKeyStorePassword=changeit\nKeyStoreType=PKCS12\nEnabledProtocols=TLSv1.2",
                        keystore.display()
                    ),
                )
            }
        }
    };
    let p_cfg = d.join("peregrine.cfg");
    let q_cfg = d.join("quickfixj.cfg");
    std::fs::write(
        &p_cfg,
        cfg(
            s,
            s.peregrine_acceptor,
            "PEREGRINE",
            "QFJ",
            (acceptor_port, proxy.addr()),
            d,
            &format!(
                "FileLogPath={}\n{p_tls}\n{}",
                d.join("p-log").display(),
                extra.peregrine
            ),
        ),
    )
    .unwrap();
    std::fs::write(
        &q_cfg,
        cfg(
            s,
            !s.peregrine_acceptor,
            "QFJ",
            "PEREGRINE",
            (acceptor_port, proxy.addr()),
            d,
            &format!("{q_tls}\n{}", extra.quickfixj),
        ),
    )
    .unwrap();
    let (p_out, q_out) = (
        d.join("peregrine.out"),
        d.join(format!("quickfixj-{prefix}.out")),
    );
    let (p_log, q_log) = (
        d.join("peregrine.stderr"),
        d.join(format!("quickfixj-{prefix}.stdout")),
    );
    let peregrine = Reap(Some(spawn_peregrine(&p_cfg, &p_out, &p_log)));
    let qfj = Reap(Some(spawn_qfj(&q_cfg, s.orders, prefix, &q_out, &q_log)));
    Started {
        peregrine,
        qfj,
        proxy,
        cuts,
        p_cfg,
        p_out,
        p_log,
        q_out,
        q_log,
    }
}

/// One run in `d` (stores kept from earlier runs there): QuickFIX/J sends orders
/// `<prefix>1` …, and both sides' deliveries of them are checked.
fn run_in(d: &Path, s: Scenario, seed: u64, prefix: &str, extra: &Extra) -> (Delivered, Delivered) {
    let Started {
        mut peregrine,
        mut qfj,
        proxy,
        cuts,
        p_cfg,
        p_out,
        p_log,
        q_out,
        q_log,
    } = start(d, &s, seed, prefix, extra);
    let what = format!("{s:?}, seed {seed}, cuts at {cuts:?}");
    let start = Instant::now();
    let mut killed = !s.kill;
    let status = loop {
        if let Some(status) = qfj.child().try_wait().unwrap() {
            break status;
        }
        if !killed && lines(&q_out) >= s.orders / 2 {
            // SIGKILL: nothing of Peregrine's runs after this; its store is what it wrote.
            let c = peregrine.child();
            c.kill().unwrap();
            c.wait().unwrap();
            peregrine.0 = Some(spawn_peregrine(&p_cfg, &p_out, &p_log));
            killed = true;
        }
        assert!(
            start.elapsed() < RUN_LIMIT,
            "{what}: QuickFIX/J did not finish:\n{}\n{}",
            tail(&q_log),
            tail(&p_log)
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    // SIGTERM: Peregrine logs out and stops.
    let pid = peregrine.child().id();
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let _ = peregrine.child().wait();
    peregrine.0 = None;
    assert!(
        status.success(),
        "{what}: QuickFIX/J failed:\n{}\nPeregrine:\n{}",
        tail(&q_log),
        tail(&p_log)
    );
    assert!(killed, "{what}: Peregrine was never killed");
    assert_eq!(
        proxy.cuts_done(),
        s.cuts,
        "{what}: not every cut was made ({} bytes copied)",
        proxy.copied()
    );
    let read = |p: &Path| {
        let mut text = String::new();
        std::fs::File::open(p)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text
    };
    let at_peregrine = check(&only(&read(&p_out), prefix), prefix, s.orders)
        .unwrap_or_else(|e| panic!("{what}: Peregrine's deliveries: {e}"));
    let at_qfj = check(&only(&read(&q_out), prefix), prefix, s.orders)
        .unwrap_or_else(|e| panic!("{what}: QuickFIX/J's deliveries: {e}"));
    // Sequence numbers consistent (the two stores, after both stopped): each side
    // expects the other's next number, or the one before it: the last message either
    // side sends as the run ends (QuickFIX/J's Logout when it stops, Peregrine's answer
    // to it, or the Logon of a reconnect while the other stops) may be written when the
    // other no longer reads — an admin message, since every order is checked delivered
    // exactly once above (seen once under load: QuickFIX/J at 2007, Peregrine expecting
    // 2006, every order delivered). QuickFIX/J may be two ahead: its answer to a
    // reconnect's Logon and its Logout as it stops, both written after Peregrine stopped
    // reading (seen once in make test, TLS, Peregrine the initiator, killed and restarted:
    // 2009 against 2007, every order delivered once). A number used twice, or one of
    // ours skipped, would show here.
    let (p_sender, p_target) = peregrine_seqnums(d, s.begin_string);
    let (q_target, q_sender) = (
        qfj_seqnum(d, s.begin_string, "target"),
        qfj_seqnum(d, s.begin_string, "sender"),
    );
    assert!(
        (p_target..=p_target + 2).contains(&q_sender),
        "{what}: QuickFIX/J's next to send is {q_sender}, Peregrine expects {p_target}"
    );
    assert!(
        q_target == p_sender || q_target + 1 == p_sender,
        "{what}: QuickFIX/J expects {q_target}, Peregrine's next to send is {p_sender}"
    );
    eprintln!("{what}: Peregrine delivered {at_peregrine:?}, QuickFIX/J delivered {at_qfj:?}");
    (at_peregrine, at_qfj)
}

fn seed() -> u64 {
    std::env::var("PEREGRINE_INTEROP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

fn faults(begin_string: &'static str, peregrine_acceptor: bool) {
    assert!(
        qfj_built(),
        "QuickFIX/J's Interop harness is not built: run `make deps` (peers/quickfixj)"
    );
    let s = Scenario {
        begin_string,
        peregrine_acceptor,
        cuts: 5,
        kill: true,
        tls: Tls::None,
        orders: ORDERS,
    };
    let (at_peregrine, _) = run(s, seed());
    // The crash and the cuts cost Peregrine orders that only a resend brought back.
    assert!(
        at_peregrine.first_by_resend + at_peregrine.again > 0,
        "no resend reached Peregrine: the faults proved nothing"
    );
}

#[test]
fn fix44_peregrine_acceptor_survives_cuts_and_a_kill() {
    faults("FIX.4.4", true);
}

#[test]
fn fix44_peregrine_initiator_survives_cuts_and_a_kill() {
    faults("FIX.4.4", false);
}

#[test]
fn fixt11_peregrine_acceptor_survives_cuts_and_a_kill() {
    faults("FIXT.1.1", true);
}

#[test]
fn fixt11_peregrine_initiator_survives_cuts_and_a_kill() {
    faults("FIXT.1.1", false);
}

/// TLS both ways, with cuts mid-record and the kill.
#[test]
fn tls_both_ways() {
    assert!(qfj_built(), "run `make deps` (peers/quickfixj)");
    for peregrine_acceptor in [true, false] {
        let s = Scenario {
            begin_string: "FIX.4.4",
            peregrine_acceptor,
            cuts: 2,
            kill: true,
            tls: Tls::On,
            orders: 2_000,
        };
        run(s, seed());
    }
}

/// Peregrine's next sequence numbers (to send, expected), from its file store as the
/// engine opens it.
fn peregrine_seqnums(d: &Path, begin_string: &str) -> (u64, u64) {
    use peregrine_engine::store::{EngineJournal, JournalConfig, MessageStore};
    // FileStorePath holds the engine journal (EngineJournal=Y, the default).
    let journal =
        EngineJournal::open(d.join("PEREGRINE-store"), JournalConfig::default(), 0).unwrap();
    let store = journal
        .session(&format!("{begin_string}:PEREGRINE->QFJ"), 0)
        .unwrap();
    (store.next_sender_seq(), store.next_target_seq())
}

/// QuickFIX/J's stored sequence number, `sender` (its next outgoing) or `target` (the
/// next it expects), in its FileStore's `.senderseqnums`/`.targetseqnums` (Java's
/// `writeUTF`: a two-byte length, then the digits). Read and written between runs.
fn qfj_seqnum_file(d: &Path, begin_string: &str, which: &str) -> PathBuf {
    d.join(format!(
        "QFJ-store/{begin_string}-QFJ-PEREGRINE.{which}seqnums"
    ))
}

fn qfj_seqnum(d: &Path, begin_string: &str, which: &str) -> u64 {
    let bytes = std::fs::read(qfj_seqnum_file(d, begin_string, which)).unwrap();
    std::str::from_utf8(&bytes[2..]).unwrap().parse().unwrap()
}

fn set_qfj_seqnum(d: &Path, begin_string: &str, which: &str, n: u64) {
    let digits = n.to_string();
    let mut bytes = vec![0, digits.len() as u8];
    bytes.extend_from_slice(digits.as_bytes());
    std::fs::write(qfj_seqnum_file(d, begin_string, which), bytes).unwrap();
}

/// The BeginString of the session-level scenarios.
const FIX44: &str = "FIX.4.4";

/// A first quiet run of `orders` in a fresh directory, for a scenario that then tampers
/// with QuickFIX/J's store: the directory and QuickFIX/J's next (sender, target) numbers.
fn after_a_first_run(orders: u64) -> (PathBuf, Option<tempfile::TempDir>, u64, u64) {
    assert!(qfj_built(), "run `make deps` (peers/quickfixj)");
    let (d, tmp) = work_dir();
    run_in(&d, quiet(orders), seed(), "J", &Extra::default());
    let (sender, target) = (
        qfj_seqnum(&d, FIX44, "sender"),
        qfj_seqnum(&d, FIX44, "target"),
    );
    (d, tmp, sender, target)
}

fn quiet(orders: u64) -> Scenario {
    Scenario {
        begin_string: "FIX.4.4",
        peregrine_acceptor: true,
        cuts: 0,
        kill: false,
        tls: Tls::None,
        orders,
    }
}

/// Waits until a line of `path` (a message log) holds every one of `needles`.
fn wait_for(path: &Path, needles: &[&str], limit: Duration) -> Result<(), String> {
    let deadline = Instant::now() + limit;
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.lines().any(|l| needles.iter().all(|n| l.contains(n))) {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(text.lines().rev().take(10).collect::<Vec<_>>().join("\n"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits (30 s at most) for a Logout in Peregrine's message log `log` sent by
/// `sender` (49=: `PEREGRINE` for one Peregrine sent, `QFJ` for one it received) that
/// says "MsgSeqNum too low"; the log's last lines if none comes.
fn wait_for_too_low_logout(log: &Path, sender: &str) -> Result<(), String> {
    wait_for(
        log,
        &[
            "\u{1}35=5\u{1}",
            &format!("\u{1}49={sender}\u{1}"),
            "\u{1}58=MsgSeqNum too low",
        ],
        Duration::from_secs(30),
    )
}

/// QuickFIX/J logs on with ResetSeqNumFlag=Y (`ResetOnLogon=Y` on its side only): the
/// second run starts both sides at 1 and every order is still answered once.
#[test]
fn reset_on_logon_on_one_side() {
    assert!(qfj_built(), "run `make deps` (peers/quickfixj)");
    let (d, _tmp) = work_dir();
    let extra = Extra {
        peregrine: String::new(),
        quickfixj: "ResetOnLogon=Y".into(),
    };
    run_in(&d, quiet(500), seed(), "J", &extra);
    let before = qfj_seqnum(&d, FIX44, "sender");
    assert!(before > 500, "QuickFIX/J sent {before}");
    run_in(&d, quiet(500), seed(), "K", &extra);
    let log = std::fs::read_to_string(d.join("quickfixj-K.stdout")).unwrap();
    let logon = log
        .lines()
        .find(|l| l.contains("outgoing") && l.contains("\u{1}35=A\u{1}"))
        .unwrap_or_else(|| panic!("no outgoing Logon in QuickFIX/J's log"));
    assert!(
        logon.contains("\u{1}34=1\u{1}") && logon.contains("\u{1}141=Y\u{1}"),
        "{logon}"
    );
}

/// Logons with sequence numbers higher than expected, both ways: QuickFIX/J's Logon is
/// too high for Peregrine (Peregrine asks for the gap and QuickFIX/J fills it), and
/// Peregrine's is too high for QuickFIX/J (QuickFIX/J asks, Peregrine resends with
/// PossDupFlag=Y); then the orders of the next run are each answered once.
#[test]
fn logons_with_sequence_numbers_too_high_are_recovered_by_resends() {
    let (d, _tmp, sender, target) = after_a_first_run(300);
    set_qfj_seqnum(&d, FIX44, "sender", sender + 50);
    set_qfj_seqnum(&d, FIX44, "target", target - 20);
    let (at_peregrine, at_qfj) = run_in(&d, quiet(300), seed(), "K", &Extra::default());
    assert_eq!((at_peregrine.first, at_qfj.first), (300, 300));
    let ours = std::fs::read_to_string(d.join("p-log/FIX.4.4-PEREGRINE-QFJ.messages.log")).unwrap();
    // Peregrine asked for the 50 QuickFIX/J skipped; QuickFIX/J asked for the last 20.
    assert!(
        ours.contains("\u{1}35=2\u{1}34="),
        "no ResendRequest from Peregrine"
    );
    assert!(
        ours.contains(&format!("\u{1}7={}\u{1}", sender)),
        "Peregrine's ResendRequest does not start at {sender}"
    );
    let theirs = std::fs::read_to_string(d.join("quickfixj-K.stdout")).unwrap();
    assert!(
        theirs
            .lines()
            .any(|l| l.contains("outgoing") && l.contains("\u{1}35=2\u{1}")),
        "no ResendRequest from QuickFIX/J"
    );
}

/// Logons with sequence numbers lower than expected, both ways, are refused with a
/// Logout that says so: Peregrine refuses QuickFIX/J's, and QuickFIX/J refuses
/// Peregrine's (Peregrine's message log shows it).
#[test]
fn logons_with_sequence_numbers_too_low_are_refused_with_a_logout() {
    let (d, _tmp, sender, target) = after_a_first_run(100);

    // QuickFIX/J's Logon comes with 1: too low for Peregrine.
    set_qfj_seqnum(&d, FIX44, "sender", 1);
    let started = start(&d, &quiet(1), seed(), "K", &Extra::default());
    let ours = d.join("p-log/FIX.4.4-PEREGRINE-QFJ.messages.log");
    wait_for_too_low_logout(&ours, "PEREGRINE")
        .unwrap_or_else(|t| panic!("Peregrine sent no Logout saying so:\n{t}"));
    drop(started);

    // Peregrine's Logon comes lower than QuickFIX/J expects.
    set_qfj_seqnum(&d, FIX44, "sender", sender);
    set_qfj_seqnum(&d, FIX44, "target", target + 100);
    let started = start(&d, &quiet(1), seed(), "L", &Extra::default());
    wait_for_too_low_logout(&ours, "QFJ")
        .unwrap_or_else(|t| panic!("no Logout from QuickFIX/J saying so:\n{t}"));
    drop(started);
}

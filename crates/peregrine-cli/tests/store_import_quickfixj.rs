//! A QuickFIX/J 2.3.1 user moves to Peregrine without resetting sequence numbers
//! (issue 29 §2), with the real QuickFIX/J on both sides (peers/quickfixj, built by
//! `make deps`), two processes over TCP on 127.0.0.1:
//!
//! 1. QuickFIX/J as GW (`Interop`, initiator, FileStore in the .cfg's FileStorePath)
//!    sends 20 NewOrderSingles to QuickFIX/J as VENUE (`Counterparty`, acceptor, its own
//!    FileStore), which answers each; both log out.
//! 2. `peregrine store import --from quickfixj DIR --config gw.cfg`: the same .cfg.
//! 3. VENUE starts again, its next expected number set back to 7 through QuickFIX/J's
//!    store (a counterparty that lost what it received from 7 on), and
//!    `peregrine initiator --config gw.cfg` takes GW's place. VENUE receives Peregrine's
//!    Logon with the number QuickFIX/J's store held (no ResetSeqNumFlag), asks for a
//!    resend from 7, and gets the imported orders again with PossDupFlag=Y; Peregrine
//!    sends no ResendRequest (it expected VENUE's next number).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use peregrine_engine::store::{EngineJournal, JournalConfig, MessageStore};
use peregrine_testkit::net::free_port;

const BIN: &str = env!("CARGO_BIN_EXE_peregrine");
const ORDERS: u32 = 20;
const REWIND: u64 = 7;
const LIMIT: Duration = Duration::from_secs(90);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Kills a child process (SIGKILL) when dropped.
struct Reap(Child);

impl Drop for Reap {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn qfj(args: &[&str], log: &Path) -> Reap {
    Reap(
        Command::new(repo().join("peers/quickfixj/run.sh"))
            .args(args)
            .env("PEREGRINE_JVM_OPTS", "-Xms128m -Xmx128m")
            .stdout(std::fs::File::create(log).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .expect("peers/quickfixj/run.sh"),
    )
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Waits until `path` holds `what` (a line of a log), or fails after LIMIT.
fn wait_for(path: &Path, what: &str) {
    let start = Instant::now();
    while !read(path).lines().any(|l| l == what) {
        assert!(
            start.elapsed() < LIMIT,
            "no {what:?} in {} within {LIMIT:?}:\n{}",
            path.display(),
            read(path)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits for a child's exit status, or fails after LIMIT.
fn exit_of(child: &mut Reap, what: &str, log: &Path) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            return status;
        }
        assert!(
            start.elapsed() < LIMIT,
            "{what} still running after {LIMIT:?}:\n{}",
            read(log)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The value of `tag` in a FIX message.
fn field(msg: &[u8], tag: &str) -> Option<String> {
    let prefix = format!("{tag}=");
    msg.split(|&b| b == 1)
        .find_map(|f| f.strip_prefix(prefix.as_bytes()))
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

/// The number in a QuickFIX/J FileStore's `senderseqnums` (or `targetseqnums`) file:
/// Java's `writeUTF`, a two-byte length and the digits.
fn quickfixj_seqnum(path: &Path) -> u64 {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::str::from_utf8(bytes.get(2..).unwrap_or_default())
        .ok()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{}: {bytes:?}", path.display()))
}

#[test]
fn a_quickfixj_store_carries_over_logon_and_resend_to_the_same_peer() {
    assert!(
        repo()
            .join("peers/quickfixj/target/classes/peregrine/peers/Counterparty.class")
            .is_file(),
        "QuickFIX/J's harnesses are not built: run `make deps` (peers/quickfixj)"
    );
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // PEREGRINE_KEEP=1 keeps the configs, stores and logs for a look.
    if std::env::var_os("PEREGRINE_KEEP").is_some() {
        eprintln!("keeping {}", d.display());
    }
    let port = free_port();
    let common = "StartTime=00:00:00\nEndTime=00:00:00\nHeartBtInt=30\nUseDataDictionary=N\n";
    let venue_cfg = d.join("venue.cfg");
    std::fs::write(
        &venue_cfg,
        format!(
            "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptAddress=127.0.0.1\nSocketAcceptPort={port}\n\
             FileStorePath={}\n{common}[SESSION]\nBeginString=FIX.4.4\nSenderCompID=VENUE\nTargetCompID=GW\n",
            d.join("venue-store").display()
        ),
    )
    .unwrap();
    // GW's settings: QuickFIX/J's first, Peregrine's after the import, the same file.
    let gw_store = d.join("gw-store");
    let gw_cfg = d.join("gw.cfg");
    std::fs::write(
        &gw_cfg,
        format!(
            "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n\
             ReconnectInterval=1\nFileStorePath={}\n{common}[SESSION]\nBeginString=FIX.4.4\nSenderCompID=GW\nTargetCompID=VENUE\n",
            gw_store.display()
        ),
    )
    .unwrap();
    let orders = d.join("venue-orders.txt");
    let (venue_cfg_s, orders_s, gw_cfg_s) = (
        venue_cfg.display().to_string(),
        orders.display().to_string(),
        gw_cfg.display().to_string(),
    );

    // 1. QuickFIX/J on both sides.
    let venue_log = d.join("venue-1.log");
    let mut venue = qfj(&["Counterparty", &venue_cfg_s, &orders_s], &venue_log);
    wait_for(&venue_log, "ready");
    let gw_log = d.join("gw-qfj.log");
    let gw_out = d.join("gw-reports.txt").display().to_string();
    let mut gw = qfj(
        &["Interop", &gw_cfg_s, &ORDERS.to_string(), &gw_out, "J"],
        &gw_log,
    );
    assert!(
        exit_of(&mut gw, "QuickFIX/J GW", &gw_log).success(),
        "{}",
        read(&gw_log)
    );
    assert!(
        exit_of(&mut venue, "QuickFIX/J VENUE", &venue_log).success(),
        "{}",
        read(&venue_log)
    );
    let first: Vec<String> = (1..=ORDERS).map(|n| format!("J{n} N")).collect();
    assert_eq!(read(&orders).lines().collect::<Vec<_>>(), first);
    assert!(gw_store.join("FIX.4.4-GW-VENUE.body").is_file());

    // 2. The import, with the same .cfg.
    let out = Command::new(BIN)
        .args([
            "store",
            "import",
            "--from",
            "quickfixj",
            "--config",
            &gw_cfg_s,
        ])
        .arg(&gw_store)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // "next sender N," as QuickFIX/J's store had it.
    let next_sender: u64 = stdout
        .split("next sender ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        next_sender > u64::from(ORDERS) + 1,
        "Logon and {ORDERS} orders at least: {stdout}"
    );
    assert!(stdout.contains("FIX.4.4:GW->VENUE: imported "), "{stdout}");
    // "next target N,": what GW had received of VENUE. VENUE's Logout reply can be lost
    // when both QuickFIX/J processes stop at once (VENUE stored it as sent, GW never read
    // it): then VENUE's next number is one more, and Peregrine must ask for just that one.
    let next_target: u64 = stdout
        .split("next target ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    let venue_next_sender =
        quickfixj_seqnum(&d.join("venue-store").join("FIX.4.4-VENUE-GW.senderseqnums"));
    assert!(
        venue_next_sender == next_target || venue_next_sender == next_target + 1,
        "VENUE's next sender {venue_next_sender}, GW's next target {next_target}"
    );

    // 3. VENUE again (lost what it received from REWIND on), Peregrine as GW.
    let venue_log = d.join("venue-2.log");
    let mut venue = qfj(
        &["Counterparty", &venue_cfg_s, &orders_s, &REWIND.to_string()],
        &venue_log,
    );
    wait_for(&venue_log, "ready");
    let pg_log = d.join("peregrine.log");
    let mut pg = Reap(
        Command::new(BIN)
            .args(["initiator", "--config", &gw_cfg_s, "--app", "log"])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&pg_log).unwrap())
            .spawn()
            .unwrap(),
    );
    wait_for(&orders, &format!("J{ORDERS} Y"));
    // Peregrine logs out on SIGTERM; VENUE exits at the Logout.
    let term = Command::new("kill")
        .args(["-TERM", &pg.0.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    assert!(
        exit_of(&mut pg, "peregrine", &pg_log).success(),
        "{}",
        read(&pg_log)
    );
    assert!(
        exit_of(&mut venue, "QuickFIX/J VENUE", &venue_log).success(),
        "{}",
        read(&venue_log)
    );

    // VENUE got Peregrine's Logon with QuickFIX/J's next number, no reset; Peregrine
    // asked for nothing when VENUE's number was the one it expected, else for the lost
    // Logout reply alone.
    let venue_text = read(&venue_log);
    assert!(
        venue_text.contains(&format!("logon-in {next_sender} N")),
        "{venue_text}"
    );
    if venue_next_sender == next_target {
        assert!(!venue_text.contains("resend-request-in"), "{venue_text}");
    } else {
        assert_eq!(
            venue_text.matches("resend-request-in").count(),
            1,
            "{venue_text}"
        );
        assert!(
            venue_text.contains(&format!("resend-request-in {next_target} 0")),
            "{venue_text}"
        );
    }
    // The orders Peregrine resent are those the import put at REWIND and after, each
    // once, PossDupFlag=Y, in order: read from Peregrine's journal.
    let journal = EngineJournal::open(&gw_store, JournalConfig::default(), 0).unwrap();
    let mut store = journal.session("FIX.4.4:GW->VENUE", 0).unwrap();
    let mut imported = Vec::new();
    store
        .for_each_in_range(REWIND, next_sender - 1, &mut |_, m| {
            if field(m, "35").as_deref() == Some("D") {
                imported.push(field(m, "11").unwrap());
            }
        })
        .unwrap();
    assert!(
        imported.len() >= 10 && imported.last().map(String::as_str) == Some("J20"),
        "{imported:?}"
    );
    let resent: Vec<String> = imported.iter().map(|id| format!("{id} Y")).collect();
    let all: Vec<String> = first.iter().chain(&resent).cloned().collect();
    assert_eq!(read(&orders).lines().collect::<Vec<_>>(), all);
    if std::env::var_os("PEREGRINE_KEEP").is_some() {
        let _ = tmp.keep();
    }
}

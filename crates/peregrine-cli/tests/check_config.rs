//! `peregrine check-config` as a process: the repository's cfgs pass with a
//! summary; a bad value stops at its file, line and key; what only start-up
//! would find (dictionaries, store and log directories, listeners) is found,
//! all of it, and nothing is created.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_peregrine");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn check(args: &[&str], dir: &Path) -> Output {
    Command::new(BIN)
        .arg("check-config")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn the_examples_cfg_passes_with_a_summary_and_creates_nothing() {
    let root = repo();
    // Where the cfg's relative FileStorePath may resolve (beside the cfg, else the
    // working directory's, if only that one exists): neither may be made.
    let stores = [
        root.join("examples/target/examples/venue-store"),
        root.join("target/examples/venue-store"),
    ];
    let existed = stores.clone().map(|s| s.exists());
    let out = check(&["examples/venue.cfg"], &root);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with("examples/venue.cfg: OK, 1 session\n"),
        "{stdout}"
    );
    for line in [
        "FIX.4.4:VENUE->CLIENT (line 12)",
        "  connection:  acceptor on 127.0.0.1:9878",
        "  dictionary:  none (UseDataDictionary=N)",
        "  schedule:    daily 00:00:00 to 00:00:00 UTC",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "no {line:?} in\n{stdout}"
        );
    }
    let store = stdout.lines().find(|l| l.starts_with("  store:")).unwrap();
    // The default file store: the engine journal in FileStorePath.
    assert!(
        store.starts_with("  store:       the engine journal "),
        "{store}"
    );
    assert!(
        store.ends_with(
            "target/examples/venue-store/engine.journal, shared by the engine's sessions (FileStoreSync always)"
        ),
        "{store}"
    );
    for (s, existed) in stores.iter().zip(existed) {
        assert!(existed || !s.exists(), "check-config made {}", s.display());
    }
    let out = check(&["examples/client.cfg"], &root);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("initiator to 127.0.0.1:9878 (ReconnectInterval 1 s)"));
}

#[test]
fn the_acceptor_template_example_passes() {
    let out = check(&["examples/acceptor-template.cfg"], &repo());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "  connection:  acceptor template on 127.0.0.1:9880 (a fitting Logon makes a session; CLIENT1, CLIENT2; at most 100)\n"
        ),
        "{stdout}"
    );
    // ScreenLogShow* are implemented: no "not implemented" warning.
    assert!(
        !text(&out.stderr).contains("ScreenLog"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn an_acceptance_cfg_with_its_dictionary_passes() {
    // The acceptance suite's cfg names ../spec/FIX44.xml; give it one.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("cfg")).unwrap();
    std::fs::create_dir_all(dir.path().join("spec")).unwrap();
    std::fs::copy(
        repo().join("acceptance/quickfix/cfg/server/fix44.cfg"),
        dir.path().join("cfg/fix44.cfg"),
    )
    .unwrap();
    let out = check(&["cfg/fix44.cfg"], dir.path());
    assert_eq!(out.status.code(), Some(1), "no dictionary yet");
    assert!(
        text(&out.stderr).contains("cfg/fix44.cfg:10: DataDictionary: cfg/../spec/FIX44.xml: "),
        "{}",
        text(&out.stderr)
    );
    std::fs::copy(
        repo().join("crates/peregrine-dict/dictionaries/FIX44.xml"),
        dir.path().join("spec/FIX44.xml"),
    )
    .unwrap();
    let out = check(&["cfg/fix44.cfg"], dir.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("  dictionary:  cfg/../spec/FIX44.xml\n"),
        "{stdout}"
    );
    assert!(stdout.contains("  logs:        cfg/tmp\n"), "{stdout}");
    assert!(stdout.contains("  store:       memory\n"), "{stdout}");
    assert!(
        !dir.path().join("cfg/tmp").exists(),
        "the log directory was made"
    );
    // As `acceptor --store file` would run it: no FileStorePath.
    let out = check(&["cfg/fix44.cfg", "--store", "file"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains("cfg/fix44.cfg:8: FileStorePath: missing (needed for the file store)"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_bad_value_names_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.cfg"),
        "[DEFAULT]\nSocketAcceptPort=1\nHeartBtInt=abc\n[SESSION]\nBeginString=FIX.4.4\n\
         SenderCompID=A\nTargetCompID=B\nUseDataDictionary=N\n",
    )
    .unwrap();
    let out = check(&["bad.cfg"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "peregrine: bad.cfg:3: HeartBtInt: \"abc\" is not a number\n"
    );
    assert!(out.stdout.is_empty());
    let out = check(&["missing.cfg"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("peregrine: missing.cfg: cannot read"));
}

#[test]
fn every_start_up_problem_is_found_and_nothing_is_made() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a-file"), "").unwrap();
    std::fs::write(dir.path().join("broken.xml"), "<fix major='4'").unwrap();
    let cfg = "[DEFAULT]\n\
               SenderCompID=VENUE\n\
               AdminHttpPort=7001\n\
               [SESSION]\n\
               BeginString=FIX.4.4\n\
               TargetCompID=A\n\
               SocketAcceptPort=7001\n\
               DataDictionary=nowhere/FIX44.xml\n\
               FileStorePath=a-file/store\n\
               [SESSION]\n\
               BeginString=FIX.4.2\n\
               TargetCompID=B\n\
               SocketAcceptPort=7001\n\
               SocketAcceptAddress=127.0.0.1\n\
               DataDictionary=broken.xml\n\
               FileLogPath=new/logs\n\
               Colour=blue\n";
    std::fs::write(dir.path().join("venue.cfg"), cfg).unwrap();
    let out = check(&["venue.cfg"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[0],
        "peregrine: warning: venue.cfg:17: Colour: unknown key, ignored"
    );
    assert!(
        lines[1].starts_with("peregrine: venue.cfg:8: DataDictionary: nowhere/FIX44.xml: "),
        "{err}"
    );
    assert_eq!(
        lines[2],
        "peregrine: venue.cfg:9: FileStorePath: a-file/store cannot be made: a-file is not a directory"
    );
    assert!(
        lines[3].starts_with("peregrine: venue.cfg:15: DataDictionary: broken.xml:"),
        "{err}"
    );
    assert!(lines[4].starts_with(
        "peregrine: venue.cfg:14: SocketAcceptAddress: 127.0.0.1 differs from 0.0.0.0, where session \
         FIX.4.4:VENUE->A listens on the same SocketAcceptPort 7001"
    ), "{err}");
    assert_eq!(
        lines[5],
        "peregrine: venue.cfg:3: AdminHttpPort: 7001 is also the SocketAcceptPort of session FIX.4.4:VENUE->A"
    );
    assert_eq!(
        lines[6],
        "peregrine: venue.cfg: 5 errors, reported above (nothing was started)"
    );
    assert_eq!(lines.len(), 7, "{err}");
    assert!(out.stdout.is_empty());
    // The log directory that could be made was not.
    assert!(!dir.path().join("new").exists());
}

#[test]
fn start_up_refuses_two_addresses_on_one_port_too() {
    let dir = tempfile::tempdir().unwrap();
    let port = peregrine_testkit::net::free_port();
    std::fs::write(
        dir.path().join("two.cfg"),
        format!(
            "[DEFAULT]\nSenderCompID=VENUE\nUseDataDictionary=N\nSocketAcceptPort={port}\n\
             [SESSION]\nBeginString=FIX.4.4\nTargetCompID=A\nSocketAcceptAddress=127.0.0.1\n\
             [SESSION]\nBeginString=FIX.4.4\nTargetCompID=B\nSocketAcceptAddress=127.0.0.2\n"
        ),
    )
    .unwrap();
    let out = Command::new(BIN)
        .args(["acceptor", "--config", "two.cfg"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains("two.cfg:12: SocketAcceptAddress: 127.0.0.2 differs from 127.0.0.1"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn tls_files_are_read_as_start_up_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let pki = peregrine_testkit::tls::TestPki::write(&dir.path().join("pki"));
    let cfg = |key: &std::path::Path| {
        format!(
            "[DEFAULT]\nSocketAcceptPort=1\nUseDataDictionary=N\nSocketUseSSL=Y\n\
             SocketCertificateFile={}\nSocketPrivateKeyFile={}\n\
             [SESSION]\nBeginString=FIX.4.4\nSenderCompID=A\nTargetCompID=B\n",
            pki.server_cert.display(),
            key.display()
        )
    };
    std::fs::write(dir.path().join("good.cfg"), cfg(&pki.server_key)).unwrap();
    let out = check(&["good.cfg"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The client's key does not go with the server's certificate: line 6.
    std::fs::write(dir.path().join("bad.cfg"), cfg(&pki.client_key)).unwrap();
    let out = check(&["bad.cfg"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("bad.cfg:6: SocketPrivateKeyFile: does not go with the certificate"),
        "{err}"
    );
}

#[test]
fn a_default_appl_ver_id_that_is_no_appl_ver_id_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = |value: &str| {
        format!(
            "[DEFAULT]\nSocketAcceptPort=1\nSenderCompID=A\nTargetCompID=B\nUseDataDictionary=N\n\
             [SESSION]\nBeginString=FIXT.1.1\nDefaultApplVerID={value}\n"
        )
    };
    std::fs::write(dir.path().join("bad.cfg"), cfg("33")).unwrap();
    let out = check(&["bad.cfg"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "peregrine: bad.cfg:8: DefaultApplVerID: \"33\" is not an ApplVerID (0 … 10) or a version \
         QuickFIX names one by (FIX.2.7, FIX.3.0, FIX.4.0 … FIX.4.4, FIX.5.0, FIX.5.0SP1, \
         FIX.5.0SP2, FIX.Latest)\n"
    );
    assert!(out.stdout.is_empty());
    for good in ["9", "FIX.5.0SP2", "FIX.4.4"] {
        std::fs::write(dir.path().join("good.cfg"), cfg(good)).unwrap();
        let out = check(&["good.cfg"], dir.path());
        assert!(out.status.success(), "{good}: {}", text(&out.stderr));
    }
}

#[test]
fn quickfixjs_fixt_acceptance_cfg_with_its_default_appl_ver_id_7_passes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("cfg")).unwrap();
    std::fs::create_dir_all(dir.path().join("spec")).unwrap();
    std::fs::copy(
        repo().join("acceptance/quickfixj/cfg/server/fix50.cfg"),
        dir.path().join("cfg/fix50.cfg"),
    )
    .unwrap();
    for d in ["FIXT11", "FIX50"] {
        std::fs::copy(
            repo().join(format!("crates/peregrine-dict/dictionaries/{d}.xml")),
            dir.path().join(format!("spec/{d}.xml")),
        )
        .unwrap();
    }
    let out = check(&["cfg/fix50.cfg"], dir.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("(DefaultApplVerID 7)"), "{stdout}");
}

#[test]
fn the_summary_says_each_sessions_tls() {
    let dir = tempfile::tempdir().unwrap();
    let pki = peregrine_testkit::tls::TestPki::write(&dir.path().join("pki"));
    let cfg = format!(
        "[DEFAULT]\nUseDataDictionary=N\nSenderCompID=A\nBeginString=FIX.4.4\n\
         [SESSION]\nTargetCompID=B\nSocketAcceptPort=1\nSocketUseSSL=Y\n\
         SocketCertificateFile={cert}\nSocketPrivateKeyFile={key}\nSocketCAFile={ca}\n\
         NeedClientAuth=Y\nSocketMinimumTLSVersion=TLS13\n\
         [SESSION]\nTargetCompID=C\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\n\
         SocketConnectPort=2\nSocketUseSSL=Y\nSocketCAFile={ca}\nSocketServerName=venue.test\n\
         [SESSION]\nTargetCompID=D\nConnectionType=initiator\nSocketConnectHost=fix.example\n\
         SocketConnectPort=3\nSocketUseSSL=Y\n\
         [SESSION]\nTargetCompID=E\nSocketAcceptPort=4\n",
        cert = pki.server_cert.display(),
        key = pki.server_key.display(),
        ca = pki.ca.display(),
    );
    std::fs::write(dir.path().join("tls.cfg"), cfg).unwrap();
    let out = check(&["tls.cfg"], dir.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let tls: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("  tls:         "))
        .collect();
    let ca = pki.ca.display().to_string();
    assert_eq!(
        tls,
        [
            format!("on, TLS 1.3 only; client certificate required, CA {ca}"),
            format!("on, TLS 1.2 or 1.3; CA {ca}, server name venue.test"),
            "on, TLS 1.2 or 1.3; CA Mozilla's roots (built in), server name fix.example (the connect host)"
                .to_string(),
        ],
        "{stdout}"
    );
    // The session without TLS has no tls line: three lines for four sessions.
    assert!(stdout.contains("FIX.4.4:A->E"), "{stdout}");
}

#[test]
fn keys_lists_every_key_of_the_catalog_with_its_range_and_default() {
    let out = check(&["--keys"], &repo());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    for key in peregrine_engine::config::KNOWN_KEYS {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("{key} (")) || l.starts_with(&format!("{key}, "))),
            "{key} missing:\n{stdout}"
        );
    }
    assert!(
        lines.contains(&"HeartBtInt (QuickFIX): seconds, 0 to 2147483647; default 30"),
        "{stdout}"
    );
    assert!(stdout.contains("    seconds to wait for the Logon answer; range 1 to 3600"));
    // A file and --keys together is a usage error.
    let out = check(&["--keys", "examples/venue.cfg"], &repo());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

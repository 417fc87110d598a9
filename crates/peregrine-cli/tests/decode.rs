//! `peregrine decode` as a process: QuickFIX/J's and Peregrine's message
//! logs, `|`-delimited FIX with repeating groups, FIXT.1.1, the filters, JSON
//! Lines read back, problems reported by line with the rest still decoded,
//! random bytes, and a reader that goes away.

use std::io::{Read, Write};
use std::process::{Child, Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_peregrine");

/// A message with a correct BodyLength and CheckSum: `body` is `|`-delimited
/// from MsgType on; `delimiter` is what the message is written with.
fn message(begin: &str, body: &str, delimiter: char) -> String {
    let body = body.replace('|', "\x01");
    let mut m = format!("8={begin}\x019={}\x01{body}", body.len());
    let sum: u32 = m.bytes().map(u32::from).sum();
    m.push_str(&format!("10={:03}\x01", sum % 256));
    m.replace('\x01', &delimiter.to_string())
}

/// `peregrine decode ARGS` started with its stdin and stdout piped, its stderr `stderr`.
fn spawn_decode(args: &[&str], stderr: Stdio) -> Child {
    Command::new(BIN)
        .arg("decode")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

fn decode(args: &[&str], input: &[u8]) -> Output {
    let mut child = spawn_decode(args, Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written from a thread: a large input must not wait on a full stdout pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 output")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const LOGON: &str = "35=A|34=1|49=CLIENT|52=20261124-10:00:00.000|56=VENUE|98=0|108=30|";
const ORDER: &str = "35=D|34=2|49=CLIENT|52=20261124-10:00:00.100|56=VENUE|11=ORD-1|\
                     453=2|448=BROKER1|447=D|452=1|448=TRADER7|447=D|452=11|\
                     55=MSFT|54=1|60=20261124-10:00:00.100|38=100|40=2|44=412.5|";
const REPORT: &str = "35=8|34=2|49=VENUE|52=20261124-10:00:00.200|56=CLIENT|37=V1|17=E1|\
                      150=0|39=0|11=ORD-1|55=MSFT|54=1|151=100|14=0|6=0|";

/// A QuickFIX/J FileLog: `TIME: MESSAGE` with SOH, one per line.
fn quickfixj_log() -> String {
    [
        ("20261124-10:00:00.001", LOGON),
        ("20261124-10:00:00.101", ORDER),
        ("20261124-10:00:00.201", REPORT),
    ]
    .iter()
    .map(|(t, body)| format!("{t}: {}\n", message("FIX.4.4", body, '\x01')))
    .collect()
}

#[test]
fn a_quickfixj_log_with_names_enums_and_groups() {
    let out = decode(&[], quickfixj_log().as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let text = stdout(&out);
    let blocks: Vec<&str> = text.split("\n\n").filter(|b| !b.is_empty()).collect();
    assert_eq!(blocks.len(), 3, "{text}");
    assert!(
        blocks[0].starts_with("20261124-10:00:00.001  FIX.4.4  Logon (A)  CLIENT->VENUE  seq 1\n")
    );
    assert!(
        blocks[0].contains("\n  98    EncryptMethod = 0 (NONEOTHER)\n"),
        "{}",
        blocks[0]
    );
    let order = blocks[1];
    assert!(
        order.starts_with(
            "20261124-10:00:00.101  FIX.4.4  NewOrderSingle (D)  CLIENT->VENUE  seq 2\n"
        ),
        "{order}"
    );
    for line in [
        "  35    MsgType = D (NewOrderSingle)",
        "  11    ClOrdID = ORD-1",
        "  453   NoPartyIDs = 2",
        "    - 448   PartyID = BROKER1",
        "      447   PartyIDSource = D (PROPCODE)",
        "      452   PartyRole = 1 (EXECUTINGFIRM)",
        "    - 448   PartyID = TRADER7",
        "      452   PartyRole = 11 (INITIATINGTRADER)",
        "  55    Symbol = MSFT",
        "  54    Side = 1 (BUY)",
        "  40    OrdType = 2 (LIMIT)",
        "  44    Price = 412.5",
    ] {
        assert!(order.lines().any(|l| l == line), "no {line:?} in\n{order}");
    }
    // Symbol comes after the group: back at the top level.
    let pos = |s: &str| order.find(s).unwrap();
    assert!(pos("TRADER7") < pos("  55    Symbol"));
    assert!(
        blocks[2].contains("  150   ExecType = 0 (NEW)\n"),
        "{}",
        blocks[2]
    );
}

#[test]
fn a_peregrine_log_decodes_the_same() {
    let line = |t: &str, body: &str| format!("{t} : {}\n", message("FIX.4.4", body, '\x01'));
    let log = line("20261124-10:00:00.001000", LOGON) + &line("20261124-10:00:00.101000", ORDER);
    let out = decode(&["-"], log.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("20261124-10:00:00.101000  FIX.4.4  NewOrderSingle (D)"));
}

/// A market data snapshot with two entries, `|`-delimited, two messages on one line.
fn snapshot(seq: u32, bid: &str) -> String {
    message(
        "FIX.4.4",
        &format!(
            "35=W|34={seq}|49=VENUE|52=20261124-10:00:01.000|56=CLIENT|55=EUR/USD|268=2|\
             269=0|270={bid}|271=1000000|269=1|270=1.0846|271=500000|"
        ),
        '|',
    )
}

#[test]
fn pipe_delimited_messages_with_a_repeating_group() {
    let input = format!("{}{}\n", snapshot(7, "1.0845"), snapshot(8, "1.0844"));
    let out = decode(&[], input.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let expected = "FIX.4.4  MarketDataSnapshotFullRefresh (W)  VENUE->CLIENT  seq 7\n\
                    \x20 8     BeginString = FIX.4.4\n";
    assert!(text.starts_with(expected), "{text}");
    let group = "  268   NoMDEntries = 2\n\
                 \x20   - 269   MDEntryType = 0 (BID)\n\
                 \x20     270   MDEntryPx = 1.0845\n\
                 \x20     271   MDEntrySize = 1000000\n\
                 \x20   - 269   MDEntryType = 1 (OFFER)\n\
                 \x20     270   MDEntryPx = 1.0846\n\
                 \x20     271   MDEntrySize = 500000\n";
    assert!(text.contains(group), "{text}");
    assert!(text.contains("seq 8\n"), "{text}");
}

#[test]
fn json_lines_read_back() {
    let input = format!("{}{}", quickfixj_log(), snapshot(9, "1.0843"));
    let out = decode(&["--json"], input.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 4);
    let order = &lines[1];
    assert_eq!(order["line"], 2);
    assert_eq!(order["time"], "20261124-10:00:00.101");
    assert_eq!(order["begin_string"], "FIX.4.4");
    assert_eq!(order["msg_type"], "D");
    assert_eq!(order["msg_type_name"], "NewOrderSingle");
    assert_eq!(
        (&order["sender"], &order["target"]),
        (&"CLIENT".into(), &"VENUE".into())
    );
    assert_eq!(order["seq_num"], 2);
    assert_eq!(order["dictionary"], "FIX44.xml");
    assert!(order.get("problems").is_none());
    let fields = order["fields"].as_array().unwrap();
    assert_eq!(
        fields[2],
        serde_json::json!({"tag": 35, "name": "MsgType", "value": "D", "enum": "NewOrderSingle"})
    );
    let parties = fields.iter().find(|f| f["tag"] == 453).unwrap();
    let instances = parties["groups"].as_array().unwrap();
    assert_eq!(instances.len(), 2);
    assert_eq!(
        instances[1][0],
        serde_json::json!({"tag": 448, "name": "PartyID", "value": "TRADER7"})
    );
    assert_eq!(instances[1][2]["enum"], "INITIATINGTRADER");
    let md = &lines[3];
    assert_eq!(md["time"], serde_json::Value::Null);
    let entries = md["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["tag"] == 268)
        .unwrap();
    assert_eq!(entries["groups"][0][1]["value"], "1.0843");
    assert_eq!(entries["groups"][1][0]["enum"], "OFFER");
}

/// The header line of each message `peregrine decode` showed.
fn headers(o: &Output) -> Vec<String> {
    stdout(o)
        .split("\n\n")
        .filter(|b| !b.is_empty())
        .map(|b| b.lines().next().unwrap().to_string())
        .collect()
}

#[test]
fn filters_by_session_msg_type_and_tag() {
    let mut log = quickfixj_log();
    log.push_str(&format!(
        "20261124-10:00:01.000: {}\n",
        message(
            "FIX.4.4",
            "35=0|34=3|49=OTHER|52=20261124-10:00:01.000|56=VENUE|",
            '\x01'
        )
    ));
    // Either direction of the session, not the other one.
    let out = decode(&["--session", "VENUE->CLIENT"], log.as_bytes());
    let h = headers(&out);
    assert_eq!(h.len(), 3, "{h:?}");
    assert!(h.iter().all(|l| !l.contains("OTHER")));
    // By name and by value.
    let out = decode(&["--msg-type", "NewOrderSingle,8"], log.as_bytes());
    let h = headers(&out);
    assert_eq!(h.len(), 2, "{h:?}");
    assert!(h[0].contains("NewOrderSingle (D)") && h[1].contains("ExecutionReport (8)"));
    let out = decode(&["--admin"], log.as_bytes());
    assert_eq!(headers(&out).len(), 2);
    // Only these fields; a field inside a group brings its count field.
    let out = decode(&["--msg-type", "D", "--tag", "ClOrdID,448"], log.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "20261124-10:00:00.101  FIX.4.4  NewOrderSingle (D)  CLIENT->VENUE  seq 2\n\
         \x20 11    ClOrdID = ORD-1\n\
         \x20 453   NoPartyIDs = 2\n\
         \x20   - 448   PartyID = BROKER1\n\
         \x20   - 448   PartyID = TRADER7\n\n"
    );
    // A name nobody knows is an error, not a filter that matches nothing.
    let out = decode(&["--msg-type", "NewOrderSingel"], log.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--msg-type NewOrderSingel: no dictionary"),
        "{}",
        stderr(&out)
    );
    let out = decode(&["--session", "VENUE-CLIENT"], log.as_bytes());
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn where_selects_messages_by_a_field_and_its_value() {
    let log = quickfixj_log();
    // ClOrdID=ORD-1: the order and its report; by number or by name.
    for w in ["11=ORD-1", "ClOrdID=ORD-1"] {
        let out = decode(&["--where", w], log.as_bytes());
        assert!(out.status.success(), "{}", stderr(&out));
        let h = headers(&out);
        assert_eq!(h.len(), 2, "{w}: {h:?}");
        assert!(h[0].contains("(D)") && h[1].contains("(8)"), "{h:?}");
    }
    // A value inside a group instance; a field present at all; both must hold.
    let out = decode(&["--where", "448=TRADER7"], log.as_bytes());
    assert_eq!(headers(&out).len(), 1);
    let out = decode(&["--where", "108"], log.as_bytes());
    let h = headers(&out);
    assert!(
        !h.is_empty() && h.iter().all(|h| h.contains("Logon (A)")),
        "{h:?}"
    );
    let out = decode(&["--where", "11=ORD-1", "--where", "37=V1"], log.as_bytes());
    assert_eq!(headers(&out).len(), 1);
    let out = decode(&["--where", "11=ORD-2"], log.as_bytes());
    assert!(stdout(&out).is_empty());
    // A name nobody knows is an error.
    let out = decode(&["--where", "ClOrdIDD=1"], log.as_bytes());
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn problems_are_reported_by_line_and_the_rest_still_decodes() {
    let good = message("FIX.4.4", ORDER, '\x01');
    let cut = &good[..good.len() / 2];
    let mut bad_sum = message("FIX.4.4", REPORT, '\x01');
    bad_sum.replace_range(bad_sum.len() - 4..bad_sum.len() - 1, "999");
    let log = format!(
        "20261124-10:00:00.001: {cut}\n\
         some garbage line\n\
         20261124-10:00:00.003: {good}\n\
         20261124-10:00:00.004: 8=FIX.4.4\x019=5\x01garbage\x0110=000\x01\n\
         20261124-10:00:00.005: {bad_sum}\n\
         20261124-10:00:00.006: {good}\n"
    );
    let out = decode(&["-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    let problems = [
        "peregrine: stdin:1: message cut short",
        "peregrine: stdin:2: not FIX: \"some garbage line\"",
        "peregrine: stdin:4: field 3 \"garbage\" is not tag=value",
        "peregrine: stdin:5: CheckSum is \"999\" but the bytes sum to ",
    ];
    for (i, problem) in problems.iter().enumerate() {
        assert!(lines[i].starts_with(problem), "{err}");
    }
    assert_eq!(
        lines[4],
        "peregrine: 4 problems in the input, reported above"
    );
    assert_eq!(lines.len(), 5, "{err}");
    // Lines 3, 5 (shown with its problem) and 6.
    let text = stdout(&out);
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("2026")).collect();
    assert_eq!(headers.len(), 3, "{text}");
    assert!(headers[1].contains("ExecutionReport"));
    assert!(text.contains("  ! CheckSum is \"999\""), "{text}");
}

#[test]
fn fixt_uses_the_logon_default_appl_ver_id() {
    let logon = message(
        "FIXT.1.1",
        "35=A|34=1|49=C|52=20261124-10:00:00|56=V|98=0|108=30|1137=7|",
        '|',
    );
    let order = message(
        "FIXT.1.1",
        "35=D|34=2|49=C|52=20261124-10:00:00|56=V|11=X|55=IBM|54=2|60=20261124-10:00:00|40=1|",
        '|',
    );
    let other = message(
        "FIXT.1.1",
        "35=D|34=2|49=C2|52=20261124-10:00:00|56=V|1128=8|11=X|55=IBM|54=2|",
        '|',
    );
    let out = decode(
        &["--json"],
        format!("{logon}\n{order}\n{other}\n").as_bytes(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(v[0]["dictionary"], "FIXT11.xml");
    assert_eq!(v[0]["msg_type_name"], "Logon");
    assert_eq!(
        (&v[1]["dictionary"], &v[1]["appl_version"]),
        (&"FIX50.xml".into(), &"FIX.5.0".into())
    );
    assert_eq!(v[1]["msg_type_name"], "NewOrderSingle");
    assert_eq!(v[2]["dictionary"], "FIX50SP1.xml");
    let text = stdout(&decode(&[], order.as_bytes()));
    assert!(
        text.starts_with("FIXT.1.1 (FIX.5.0SP2)  NewOrderSingle (D)  C->V  seq 2\n"),
        "{text}"
    );
}

#[test]
fn a_given_dictionary_replaces_its_version() {
    let dir = tempfile::tempdir().unwrap();
    let xml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../peregrine-dict/dictionaries/FIX44.xml"
    ))
    .unwrap()
    .replace(
        "<field number='1' name='Account' type='STRING' />",
        "<field number='1' name='Account' type='STRING' />\n  \
         <field number='20001' name='VenueTag' type='STRING' />",
    );
    let dict = dir.path().join("venue44.xml");
    std::fs::write(&dict, xml).unwrap();
    let input = message(
        "FIX.4.4",
        "35=D|34=2|49=C|56=V|11=X|20001=abc|20002=def|",
        '|',
    );
    let out = decode(&["--dict", dict.to_str().unwrap()], input.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("  20001  VenueTag = abc\n"), "{text}");
    assert!(text.contains("  20002  ? = def\n"), "{text}");
    // Given and never used: said, not silently ignored.
    let fix42 = message("FIX.4.2", "35=0|34=2|49=C|56=V|", '|');
    let out = decode(&["--dict", dict.to_str().unwrap()], fix42.as_bytes());
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("venue44.xml (FIX.4.4) was not used"),
        "{}",
        stderr(&out)
    );
    let out = decode(&["--dict", "/nonexistent/x.xml"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("peregrine: --dict: "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn control_characters_from_the_wire_are_escaped() {
    let input = message("FIX.4.4", "35=0|34=2|49=C|56=V|58=a\x1b[2Jb\x07|", '|');
    let out = decode(&[], input.as_bytes());
    let text = stdout(&out);
    assert!(
        text.contains("  58    Text = a\\x1b[2Jb\\x07\n"),
        "{text:?}"
    );
}

#[test]
fn random_bytes_never_make_it_panic() {
    // A fixed xorshift stream: the same bytes on every run, FIX-like fragments mixed in.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let pieces: [&[u8]; 8] = [
        b"8=FIX.4.4\x01",
        b"9=12\x01",
        b"35=W\x01268=2\x01269=0\x01",
        b"10=000\x01",
        b"|",
        b"\n",
        b"8=FIXT.1.1|35=D|1128=9|",
        b"20261124-10:00:00 : ",
    ];
    let mut input = Vec::new();
    while input.len() < 200_000 {
        let r = next();
        if r % 3 == 0 {
            input.extend_from_slice(pieces[(r >> 8) as usize % pieces.len()]);
        } else {
            input.push((r >> 16) as u8);
        }
    }
    for json in [false, true] {
        let args: &[&str] = if json { &["--json"] } else { &[] };
        let out = decode(args, &input);
        let err = stderr(&out);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{:?}: {err}",
            out.status
        );
        assert!(!err.contains("panicked"), "{err}");
        let text = stdout(&out);
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'));
        if json {
            for line in text.lines() {
                serde_json::from_str::<serde_json::Value>(line).unwrap();
            }
        }
    }
}

#[test]
fn a_reader_that_goes_away_ends_it_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.log");
    let line = format!(
        "20261124-10:00:00.001: {}\n",
        message("FIX.4.4", ORDER, '\x01')
    );
    std::fs::write(&path, line.repeat(20_000)).unwrap();
    let mut child = Command::new(BIN)
        .args(["decode", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 100];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{status}: {err}");
    assert_eq!(err, "");
}

#[test]
fn each_message_is_shown_while_the_input_stays_open() {
    // As `tail -f log | peregrine decode`: the output must not wait for the input's end.
    let mut child = spawn_decode(&[], Stdio::null());
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{}", message("FIX.4.4", LOGON, '|')).unwrap();
    stdin.flush().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut b = [0u8; 256];
        while let Ok(n) = stdout.read(&mut b) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&b[..n]);
            if seen.windows(8).any(|w| w == b"CheckSum") {
                let _ = tx.send(String::from_utf8_lossy(&seen).into_owned());
                break;
            }
        }
    });
    let shown = rx.recv_timeout(std::time::Duration::from_secs(10));
    drop(stdin);
    let _ = child.wait();
    let shown = shown.expect("the message was shown before the input ended");
    assert!(shown.contains("Logon (A)  CLIENT->VENUE  seq 1"), "{shown}");
}

#[test]
fn a_missing_file_is_an_error() {
    let out = Command::new(BIN)
        .args(["decode", "/nonexistent/messages.log"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("peregrine: cannot read /nonexistent/messages.log: "),
        "{}",
        stderr(&out)
    );
}

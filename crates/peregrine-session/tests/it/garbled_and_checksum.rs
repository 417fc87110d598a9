//! QuickFIX/J's `ValidateChecksum=N` (a wrong CheckSum accepted) and
//! `RejectGarbledMessage=Y` (a garbled message answered with a Reject that takes
//! its number), against the defaults (checked; dropped without taking a number).

use crate::support;

use peregrine_session::{Session, SessionConfig, SessionEvent};
use peregrine_store::MemoryStore;
use support::{config, drain_rendered, log_on, message, new_order, Venue, T0};

/// `msg` with its CheckSum(10) value one more than the right one.
fn wrong_checksum(mut msg: Vec<u8>) -> Vec<u8> {
    let n = msg.len();
    let digits = std::str::from_utf8(&msg[n - 4..n - 1]).unwrap();
    let wrong = (digits.parse::<u32>().unwrap() + 1) % 256;
    msg[n - 4..n - 1].copy_from_slice(format!("{wrong:03}").as_bytes());
    msg
}

/// `8=<begin>|9=<len>|<body>10=<sum>|` from `body` written with `|`, its BodyLength
/// and CheckSum right, whatever the order of its fields.
fn framed(begin: &str, body: &str) -> Vec<u8> {
    let body = body.replace('|', "\x01");
    let mut m = format!("8={begin}\x019={}\x01{body}", body.len()).into_bytes();
    let sum = m.iter().map(|&b| u32::from(b)).sum::<u32>() % 256;
    m.extend_from_slice(format!("10={sum:03}\x01").as_bytes());
    m
}

fn session(cfg: SessionConfig) -> Session<MemoryStore> {
    let mut s = Session::new(cfg, MemoryStore::new(T0), T0);
    log_on(&mut s, &mut Venue);
    s
}

fn events(s: &mut Session<MemoryStore>) -> Vec<SessionEvent> {
    std::iter::from_fn(|| s.poll_event()).collect()
}

const REJECT: &str = "35=3|34=2|49=ISLD|56=TW|45=2|58=Message failed basic validity check";

#[test]
fn by_default_a_wrong_checksum_is_dropped_without_taking_its_number() {
    let mut s = session(config("FIX.4.4"));
    let order = wrong_checksum(message(b"D", 2, T0, &new_order(b"A")));
    s.on_bytes(&order, T0, &mut Venue);
    assert!(drain_rendered(&mut s, &mut Venue).is_empty());
    assert_eq!(s.next_target_seq(), 2);
    assert!(events(&mut s).contains(&SessionEvent::Garbled));
    assert!(s.is_logged_on());
}

#[test]
fn validate_checksum_n_processes_a_message_whose_checksum_is_wrong() {
    let mut cfg = config("FIX.4.4");
    cfg.validate_checksum = false;
    let mut s = session(cfg);
    let order = wrong_checksum(message(b"D", 2, T0, &new_order(b"A")));
    s.on_bytes(&order, T0, &mut Venue);
    let out = drain_rendered(&mut s, &mut Venue);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].starts_with("35=8|34=2|"), "{out:?}");
    assert_eq!(s.next_target_seq(), 3);
    // A CheckSum must still be three digits where BodyLength points.
    let mut short = message(b"0", 3, T0, &[]);
    let n = short.len();
    short.truncate(n - 4);
    short.extend_from_slice(b"1\x01");
    s.on_bytes(&short, T0, &mut Venue);
    assert!(drain_rendered(&mut s, &mut Venue).is_empty());
    assert_eq!(s.next_target_seq(), 3);
}

#[test]
fn the_thread_decoder_keeps_each_sessions_validate_checksum() {
    // Both sessions read with the decoder this thread lends: N for one must not
    // become N for the other.
    let mut lax_cfg = config("FIX.4.4");
    lax_cfg.validate_checksum = false;
    let mut lax = session(lax_cfg);
    let mut strict = session(config("FIX.4.4"));
    let bad = wrong_checksum(message(b"D", 2, T0, &new_order(b"A")));
    lax.on_bytes(&bad, T0, &mut Venue);
    strict.on_bytes(&bad, T0, &mut Venue);
    lax.on_bytes(&wrong_checksum(message(b"0", 3, T0, &[])), T0, &mut Venue);
    assert_eq!((lax.next_target_seq(), strict.next_target_seq()), (4, 2));
}

#[test]
fn reject_garbled_message_rejects_a_wrong_checksum_and_takes_its_number() {
    let mut cfg = config("FIX.4.4");
    cfg.reject_garbled_message = true;
    let mut s = session(cfg);
    let order = wrong_checksum(message(b"D", 2, T0, &new_order(b"A")));
    s.on_bytes(&order, T0, &mut Venue);
    assert_eq!(
        drain_rendered(&mut s, &mut Venue),
        vec![format!("{REJECT}|372=D")]
    );
    assert_eq!(s.next_target_seq(), 3);
    let ev = events(&mut s);
    assert!(ev.contains(&SessionEvent::Garbled), "{ev:?}");
    // The next message is in sequence: no ResendRequest.
    s.on_bytes(&message(b"1", 3, T0, &[(112, b"HELLO")]), T0, &mut Venue);
    let out = drain_rendered(&mut s, &mut Venue);
    assert_eq!(out, vec!["35=0|34=3|49=ISLD|56=TW|112=HELLO"]);
}

#[test]
fn reject_garbled_message_rejects_a_header_out_of_order_or_without_msg_type() {
    let mut cfg = config("FIX.4.4");
    cfg.reject_garbled_message = true;
    let mut s = session(cfg);
    // MsgSeqNum before MsgType.
    let out_of_order = framed(
        "FIX.4.4",
        "34=2|35=0|49=TW|52=20261122-10:00:00.250|56=ISLD|",
    );
    s.on_bytes(&out_of_order, T0, &mut Venue);
    assert_eq!(
        drain_rendered(&mut s, &mut Venue),
        vec![format!("{REJECT}|372=0")]
    );
    // No MsgType at all: no RefMsgType(372).
    let no_type = framed("FIX.4.4", "34=3|49=TW|52=20261122-10:00:00.250|56=ISLD|");
    s.on_bytes(&no_type, T0, &mut Venue);
    assert_eq!(
        drain_rendered(&mut s, &mut Venue),
        vec!["35=3|34=3|49=ISLD|56=TW|45=3|58=Message failed basic validity check"]
    );
    assert_eq!(s.next_target_seq(), 4);
    // Bytes before a BeginString are skipped, not rejected.
    let mut stray = b"35=0\x01".to_vec();
    stray.extend_from_slice(&message(b"0", 4, T0, &[]));
    s.on_bytes(&stray, T0, &mut Venue);
    assert!(drain_rendered(&mut s, &mut Venue).is_empty());
    assert_eq!(s.next_target_seq(), 5);
}

#[test]
fn reject_garbled_message_takes_only_the_expected_number() {
    let mut cfg = config("FIX.4.4");
    cfg.reject_garbled_message = true;
    let mut s = session(cfg);
    // Too high: rejected (as QuickFIX/J does), the number not taken.
    let high = wrong_checksum(message(b"0", 5, T0, &[]));
    s.on_bytes(&high, T0, &mut Venue);
    let out = drain_rendered(&mut s, &mut Venue);
    assert_eq!(
        out,
        vec!["35=3|34=2|49=ISLD|56=TW|45=5|58=Message failed basic validity check|372=0"]
    );
    assert_eq!(s.next_target_seq(), 2);
    // A SequenceReset's number is not taken either.
    let reset = wrong_checksum(message(b"4", 2, T0, &[(36, b"3")]));
    s.on_bytes(&reset, T0, &mut Venue);
    assert_eq!(drain_rendered(&mut s, &mut Venue).len(), 1);
    assert_eq!(s.next_target_seq(), 2);
}

#[test]
fn reject_garbled_message_has_no_ref_msg_type_before_fix42() {
    for begin in ["FIX.4.0", "FIX.4.1"] {
        let mut cfg = config(begin);
        cfg.reject_garbled_message = true;
        let mut s = session_on(cfg, begin);
        let body = "35=D|34=2|49=TW|52=20261122-10:00:00|56=ISLD|11=A|";
        let mut bad = framed(begin, body);
        let n = bad.len();
        bad[n - 2] = if bad[n - 2] == b'9' {
            b'0'
        } else {
            bad[n - 2] + 1
        };
        s.on_bytes(&bad, T0, &mut Venue);
        assert_eq!(
            drain_rendered(&mut s, &mut Venue),
            vec!["35=3|34=2|49=ISLD|56=TW|45=2|58=Message failed basic validity check"],
            "{begin}"
        );
        assert_eq!(s.next_target_seq(), 3, "{begin}");
    }
}

/// A session on `begin` logged on by TW (the support's `log_on` speaks FIX.4.4).
fn session_on(cfg: SessionConfig, begin: &str) -> Session<MemoryStore> {
    let mut s = Session::new(cfg, MemoryStore::new(T0), T0);
    s.on_connected(T0, &mut Venue);
    let logon = framed(
        begin,
        "35=A|34=1|49=TW|52=20261122-10:00:00|56=ISLD|98=0|108=30|",
    );
    s.on_bytes(&logon, T0, &mut Venue);
    assert!(s.is_logged_on(), "{begin}");
    drain_rendered(&mut s, &mut Venue);
    while s.poll_event().is_some() {}
    s
}

#[test]
fn a_garbled_logon_still_ends_the_connection_with_reject_garbled_message() {
    let mut cfg = config("FIX.4.4");
    cfg.reject_garbled_message = true;
    let mut s = Session::new(cfg, MemoryStore::new(T0), T0);
    s.on_connected(T0, &mut Venue);
    let logon = wrong_checksum(message(b"A", 1, T0, &[(98, b"0"), (108, b"30")]));
    s.on_bytes(&logon, T0, &mut Venue);
    assert!(!s.is_logged_on());
    assert!(drain_rendered(&mut s, &mut Venue).is_empty());
    assert!(events(&mut s)
        .iter()
        .any(|e| matches!(e, SessionEvent::Disconnect(_))));
}

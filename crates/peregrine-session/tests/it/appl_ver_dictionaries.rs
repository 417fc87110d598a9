//! A FIXT.1.1 session with an application dictionary per ApplVerID (QuickFIX/J's
//! `AppDataDictionary.<version>`): each application message is validated with the
//! dictionary of its ApplVerID(1128), else the counterparty's DefaultApplVerID
//! (its Logon's 1137).

use crate::support;

use std::sync::Arc;

use peregrine_codec::value::{TimePrecision, UtcTimestamp};
use peregrine_codec::EncodeBuffer;
use peregrine_dict::{Dictionaries, Dictionary};
use peregrine_session::{EchoApp, Session};
use peregrine_store::MemoryStore;
use support::{config, drain_rendered, T0};

fn dictionary(name: &str) -> Arc<Dictionary> {
    let path = format!(
        "{}/../peregrine-dict/dictionaries/{name}.xml",
        env!("CARGO_MANIFEST_DIR")
    );
    Arc::new(Dictionary::from_file(path).unwrap())
}

/// A FIXT.1.1 message from TW to ISLD.
fn fixt(msg_type: &[u8], seq: u64, body: &[(u32, &[u8])]) -> Vec<u8> {
    let mut buf = EncodeBuffer::new();
    let mut m = buf.start(b"FIXT.1.1", msg_type);
    let ts = UtcTimestamp::from_unix_nanos(T0, TimePrecision::Millis);
    m.uint(34, seq)
        .str(49, b"TW")
        .timestamp(52, &ts, TimePrecision::Millis)
        .str(56, b"ISLD");
    for &(t, v) in body {
        m.str(t, v);
    }
    m.finish().to_vec()
}

/// A NewOrderSingle body; `manual` adds ManualOrderIndicator(1028), which
/// FIX.5.0SP2's NewOrderSingle has and FIX.4.4's does not.
fn order(
    appl_ver_id: Option<&'static [u8]>,
    manual: bool,
) -> (&'static [u8], Vec<(u32, &'static [u8])>) {
    let mut body = Vec::new();
    if let Some(v) = appl_ver_id {
        body.push((1128, v));
    }
    body.extend([
        (11, &b"id"[..]),
        (21, b"1"),
        (38, b"100"),
        (40, b"1"),
        (54, b"1"),
        (55, b"MSFT"),
    ]);
    body.push((60, b"20261122-10:00:00.250"));
    if manual {
        body.push((1028, b"Y"));
    }
    (b"D", body)
}

/// An OrderStatusRequest without ClOrdID(11), which FIX.4.4 requires and
/// FIX.5.0SP2 does not.
fn status_request(
    appl_ver_id: Option<&'static [u8]>,
) -> (&'static [u8], Vec<(u32, &'static [u8])>) {
    let mut body = Vec::new();
    if let Some(v) = appl_ver_id {
        body.push((1128, v));
    }
    body.extend([(37, &b"OID"[..]), (54, b"1"), (55, b"MSFT")]);
    (b"H", body)
}

struct Peer {
    session: Session<MemoryStore>,
    app: EchoApp,
    seq: u64,
}

impl Peer {
    /// An acceptor whose settings name FIXT11, the session's `default` and
    /// FIX44 for ApplVerID 6, logged on by TW with DefaultApplVerID `peer_default`.
    fn logged_on(default: Option<&str>, peer_default: &[u8]) -> Peer {
        let mut dicts = match default {
            Some(d) => Dictionaries::fixt_shared(dictionary("FIXT11"), dictionary(d)),
            None => Dictionaries::fixt_versions_only(dictionary("FIXT11")),
        };
        dicts = dicts.with_version("6", dictionary("FIX44"));
        let dicts = Arc::new(dicts);
        let mut cfg = config("FIXT.1.1");
        cfg.default_appl_ver_id = Some("FIX.5.0SP2".into());
        cfg.dictionaries = Some(dicts.clone());
        let mut p = Peer {
            session: Session::new(cfg, MemoryStore::new(T0), T0),
            app: EchoApp::new(Some(dicts)),
            seq: 1,
        };
        p.session.on_connected(T0, &mut p.app);
        let logon = fixt(b"A", 1, &[(98, b"0"), (108, b"30"), (1137, peer_default)]);
        p.session.on_bytes(&logon, T0, &mut p.app);
        assert!(p.session.is_logged_on());
        drain_rendered(&mut p.session, &mut p.app);
        p
    }

    /// Sends `msg` (MsgType, body): Ok when it passes validation and reaches the
    /// echo (which answers an order with itself, and a status request with a
    /// BusinessMessageReject: it knows no orders), else the session's Reject.
    fn accepts(&mut self, msg: &(&[u8], Vec<(u32, &[u8])>)) -> Result<(), String> {
        self.seq += 1;
        let m = fixt(msg.0, self.seq, &msg.1);
        self.session.on_bytes(&m, T0, &mut self.app);
        let out = drain_rendered(&mut self.session, &mut self.app);
        assert_eq!(self.session.next_target_seq(), self.seq + 1);
        match out.as_slice() {
            [m] if msg.0 == b"H" && m.starts_with("35=j|") => Ok(()),
            [m] if m.starts_with("35=D|") => Ok(()),
            [m] if m.starts_with("35=3|") => Err(m.clone()),
            other => panic!("neither what passes nor a Reject: {other:?}"),
        }
    }
}

#[test]
fn each_appl_ver_id_is_validated_with_its_own_dictionary() {
    let mut p = Peer::logged_on(Some("FIX50SP2"), b"9");
    // ManualOrderIndicator: a FIX.5.0SP2 order may carry it, a FIX.4.4 one may not.
    assert_eq!(p.accepts(&order(Some(b"9"), true)), Ok(()));
    let e = p.accepts(&order(Some(b"6"), true)).unwrap_err();
    assert!(e.contains("|371=1028|372=D|"), "{e}");
    assert_eq!(p.accepts(&order(Some(b"6"), false)), Ok(()));
    // ClOrdID in a status request: FIX.4.4 requires it, FIX.5.0SP2 does not.
    assert_eq!(p.accepts(&status_request(Some(b"9"))), Ok(()));
    let e = p.accepts(&status_request(Some(b"6"))).unwrap_err();
    assert!(e.contains("|371=11|372=H|373=1"), "{e}");
    // Without ApplVerID: the peer's DefaultApplVerID (9) chooses FIX.5.0SP2.
    assert_eq!(p.accepts(&order(None, true)), Ok(()));
    assert_eq!(p.accepts(&status_request(None)), Ok(()));
    // An ApplVerID without a dictionary of its own: the session's (AppDataDictionary).
    assert_eq!(p.accepts(&order(Some(b"7"), true)), Ok(()));
}

#[test]
fn the_logons_default_appl_ver_id_chooses_for_messages_without_one() {
    // TW logs on with DefaultApplVerID=6: its messages without 1128 are FIX.4.4 ones.
    let mut p = Peer::logged_on(Some("FIX50SP2"), b"6");
    let e = p.accepts(&order(None, true)).unwrap_err();
    assert!(e.contains("|371=1028|372=D|"), "{e}");
    let e = p.accepts(&status_request(None)).unwrap_err();
    assert!(e.contains("|371=11|372=H|373=1"), "{e}");
    // One that names FIX.5.0SP2 is validated as one.
    assert_eq!(p.accepts(&order(Some(b"9"), true)), Ok(()));
}

#[test]
fn a_version_without_a_dictionary_is_rejected_when_there_is_no_default() {
    // Only AppDataDictionary.FIX.4.4: an order of FIX.5.0 has nothing to be
    // validated with, and is rejected as an unsupported application version.
    let mut p = Peer::logged_on(None, b"6");
    assert_eq!(p.accepts(&order(None, false)), Ok(()));
    let e = p.accepts(&order(Some(b"7"), false)).unwrap_err();
    assert!(e.contains("|371=1128|372=D|373=18"), "{e}");
    // Session messages still pass: a Heartbeat is answered by nothing.
    p.seq += 1;
    let hb = fixt(b"0", p.seq, &[]);
    p.session.on_bytes(&hb, T0, &mut p.app);
    assert!(drain_rendered(&mut p.session, &mut p.app).is_empty());
    assert_eq!(p.session.next_target_seq(), p.seq + 1);
}

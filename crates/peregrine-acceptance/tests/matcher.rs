//! The strict comparison rule.

mod common;

use peregrine_acceptance::{complete_message, FieldPatterns, Mismatch, MismatchKind};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn m(text: &str) -> Vec<u8> {
    text.replace('|', "\x01").into_bytes()
}

const EXPECTED: &str =
    "8=FIX.4.4|9=61|35=A|34=1|49=ISLD|52=00000000-00:00:00.000|56=TW|98=0|108=30|10=0|";

fn patterns() -> FieldPatterns {
    common::builtin_patterns()
}

/// How `actual` differs from `expected` (it must).
fn mismatch(expected: &str, actual: &str) -> Mismatch {
    patterns()
        .match_message(&m(expected), &m(actual))
        .unwrap_err()
}

#[test]
fn builtin_patterns_equal_the_shared_file() {
    let shared = common::shared_or_skip!();
    assert_eq!(common::patterns(&shared), patterns());
}

#[test]
fn pattern_fields_match_real_values() {
    let p = patterns();
    for actual in [
        "8=FIX.4.4|9=61|35=A|34=1|49=ISLD|52=20240307-10:11:12.345|56=TW|98=0|108=30|10=123|",
        "8=FIX.4.4|9=61|35=A|34=1|49=ISLD|52=20240307-10:11:12|56=TW|98=0|108=30|10=007|",
    ] {
        assert_eq!(
            p.match_message(&m(EXPECTED), &m(actual)),
            Ok(()),
            "{actual}"
        );
    }
}

#[test]
fn pattern_field_with_the_wrong_shape_fails() {
    let err = mismatch(
        EXPECTED,
        "8=FIX.4.4|9=61|35=A|34=1|49=ISLD|52=2024-03-07 10:11|56=TW|98=0|108=30|10=123|",
    );
    assert_eq!(err.index, 5);
    let pattern = r"\d{8}-\d{2}:\d{2}:\d{2}|\d{8}-\d{2}:\d{2}:\d{2}[.]\d{3}";
    assert_eq!(
        err.kind,
        MismatchKind::Pattern {
            pattern: pattern.into(),
            actual: "52=2024-03-07 10:11".into()
        }
    );
    assert!(
        err.to_string().starts_with(&format!(
            "field 5: expected 52= matching {pattern}, got 52=2024-03-07 10:11; expected 8=FIX.4.4|"
        )),
        "{err}"
    );
    let err = mismatch(
        EXPECTED,
        "8=FIX.4.4|9=61|35=A|34=1|49=ISLD|52=20240307-10:11:12|56=TW|98=0|108=30|10=12|",
    );
    assert_eq!(err.index, 9);
}

#[test]
fn different_order_fails() {
    let err = mismatch(
        EXPECTED,
        "8=FIX.4.4|9=61|35=A|34=1|56=TW|52=20240307-10:11:12.345|49=ISLD|98=0|108=30|10=123|",
    );
    assert_eq!(err.index, 4);
    assert_eq!(
        err.kind,
        MismatchKind::Tag {
            expected: "49=ISLD".into(),
            actual: "56=TW".into()
        }
    );
    assert!(err
        .to_string()
        .starts_with("field 4: expected tag 49=ISLD, got 56=TW; expected 8=FIX.4.4|"));
}

#[test]
fn extra_and_missing_fields_fail() {
    let with_extra =
        "8=FIX.4.4|9=61|35=A|34=1|49=ISLD|52=20240307-10:11:12.345|56=TW|98=0|108=30|141=Y|10=123|";
    let err = mismatch(EXPECTED, with_extra);
    assert_eq!(err.index, 9);
    assert_eq!(
        err.kind,
        MismatchKind::Tag {
            expected: "10=0".into(),
            actual: "141=Y".into()
        }
    );
    // Extra field at the end
    let err = mismatch("8=FIX.4.4|35=0|", "8=FIX.4.4|35=0|58=x|");
    assert_eq!(
        (err.index, err.kind.clone()),
        (
            2,
            MismatchKind::Extra {
                actual: "58=x".into()
            }
        )
    );
    assert_eq!(
        err.to_string(),
        "field 2: expected end of message, got 58=x; expected 8=FIX.4.4|35=0| got 8=FIX.4.4|35=0|58=x|"
    );
    // Missing field at the end
    let err = mismatch("8=FIX.4.4|35=0|58=x|", "8=FIX.4.4|35=0|");
    assert_eq!(
        (err.index, err.kind),
        (
            2,
            MismatchKind::Missing {
                expected: "58=x".into()
            }
        )
    );
}

#[test]
fn wrong_value_reports_the_field() {
    let actual =
        "8=FIX.4.4|9=61|35=A|34=2|49=ISLD|52=20240307-10:11:12.345|56=TW|98=0|108=30|10=123|";
    let err = mismatch(EXPECTED, actual);
    assert_eq!(err.index, 3);
    assert_eq!(
        err.kind,
        MismatchKind::Value {
            expected: "34=1".into(),
            actual: "34=2".into()
        }
    );
    assert_eq!(err.expected, EXPECTED);
    assert_eq!(err.actual, actual);
    assert_eq!(
        err.to_string(),
        format!("field 3: expected 34=1, got 34=2; expected {EXPECTED} got {actual}")
    );
}

#[test]
fn body_length_is_compared_literally() {
    let actual = "8=FIX.4.4|9=57|35=A|34=1|49=ISLD|52=20240307-10:11:12|56=TW|98=0|108=30|10=123|";
    let err = mismatch(EXPECTED, actual);
    assert_eq!(err.index, 1);
}

#[test]
fn expected_line_completed_like_a_sent_one() {
    // An E line without 9= gets the body length of the expected text, which has
    // the same width as a real SendingTime.
    let now = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let expected = complete_message(
        &m("8=FIX.4.4|35=A|34=1|49=ISLD|52=00000000-00:00:00.000|56=TW|98=0|108=30|"),
        now,
    );
    assert!(expected.starts_with(&m("8=FIX.4.4|9=61|35=A|")));
    let actual = complete_message(
        &m("8=FIX.4.4|35=A|34=1|49=ISLD|52=20231114-22:13:20.123|56=TW|98=0|108=30|"),
        SystemTime::now(),
    );
    assert_eq!(patterns().match_message(&expected, &actual), Ok(()));
}

// QuickFIX/J's rule (the scripts of acceptance/quickfixj).

/// QFJ650's expected Logout, as the script writes it (no SendingTime), against
/// the Logout an engine sends.
const QFJ650_LOGOUT: &str =
    "8=FIX.4.4|9=73|35=5|34=2|49=ISLD|56=TW|58=Received message without MsgSeqNum|10=0|";
const LOGOUT_SENT: &str = "8=FIX.4.4|9=98|35=5|34=2|49=ISLD|52=20240307-10:11:12.345|56=TW|58=Received message without MsgSeqNum|10=201|";

fn qfj(expected: &str, actual: &str) -> Result<(), Mismatch> {
    peregrine_acceptance::match_quickfixj(&m(expected), &m(actual))
}

#[test]
fn quickfixj_rule_ignores_time_fields_length_checksum_and_order() {
    assert_eq!(qfj(QFJ650_LOGOUT, LOGOUT_SENT), Ok(()));
    // The strict rule does not accept what the script wrote.
    assert!(patterns()
        .match_message(&m(QFJ650_LOGOUT), &m(LOGOUT_SENT))
        .is_err());
    // Another order, other times.
    assert_eq!(
        qfj(
            "8=FIX.4.4|35=D|34=2|49=ISLD|52=<TIME>|56=TW|11=id|60=20170408-00:00:00.123|",
            "8=FIX.4.4|9=1|35=D|49=ISLD|34=2|56=TW|52=x|11=id|60=20240101-00:00:00|10=000|"
        ),
        Ok(())
    );
}

#[test]
fn quickfixj_rule_takes_text_by_prefix_and_the_rest_literally() {
    let with_more = LOGOUT_SENT.replace("MsgSeqNum|", "MsgSeqNum: 35=1|");
    assert_eq!(qfj(QFJ650_LOGOUT, &with_more), Ok(()));
    let other_text = LOGOUT_SENT.replace("Received message", "A message");
    let err = qfj(QFJ650_LOGOUT, &other_text).unwrap_err();
    assert_eq!(
        err.kind,
        MismatchKind::Value {
            expected: "58=Received message without MsgSeqNum".into(),
            actual: "58=A message without MsgSeqNum".into()
        }
    );
    let err = qfj(QFJ650_LOGOUT, &LOGOUT_SENT.replace("34=2", "34=3")).unwrap_err();
    assert_eq!(
        err.kind,
        MismatchKind::Value {
            expected: "34=2".into(),
            actual: "34=3".into()
        }
    );
    let err = qfj(QFJ650_LOGOUT, &LOGOUT_SENT.replace("35=5", "35=3")).unwrap_err();
    assert_eq!(
        err.kind,
        MismatchKind::Value {
            expected: "35=5".into(),
            actual: "35=3".into()
        }
    );
}

#[test]
fn quickfixj_rule_wants_every_field_and_no_other() {
    let extra = LOGOUT_SENT.replace("|56=TW|", "|56=TW|369=1|");
    let err = qfj(QFJ650_LOGOUT, &extra).unwrap_err();
    assert_eq!(
        err.kind,
        MismatchKind::Unexpected {
            actual: "369=1".into()
        }
    );
    assert!(err
        .to_string()
        .starts_with("field 7: 369=1 was not expected"));
    let without_text = LOGOUT_SENT.replace("58=Received message without MsgSeqNum|", "");
    let err = qfj(QFJ650_LOGOUT, &without_text).unwrap_err();
    assert_eq!(
        err.kind,
        MismatchKind::NotReceived {
            expected: "58=Received message without MsgSeqNum".into()
        }
    );
    // A time field must be there, whatever its value.
    let err = qfj(
        "8=FIX.4.4|35=D|34=2|60=20170408-00:00:00.123456789123|",
        "8=FIX.4.4|35=D|34=2|",
    )
    .unwrap_err();
    assert!(matches!(err.kind, MismatchKind::NotReceived { .. }));
}

#[test]
fn quickfixj_rule_checks_a_logon_for_its_type_and_expected_fields_only() {
    // QFJ650 fix50: the expected Logon has no DefaultApplVerID; the reply has one.
    let expected = "8=FIXT.1.1|35=A|34=1|49=ISLD|52=<TIME>|56=TW|98=0|108=5|";
    let reply = "8=FIXT.1.1|9=70|35=A|34=1|49=ISLD|52=20240307-10:11:12.345|56=TW|98=0|108=30|1137=7|10=011|";
    assert_eq!(qfj(expected, reply), Ok(()));
    let err = qfj(expected, &reply.replace("98=0|", "")).unwrap_err();
    assert!(matches!(err.kind, MismatchKind::NotReceived { .. }));
    assert!(qfj(expected, &reply.replace("35=A", "35=5")).is_err());
}

#[test]
fn match_rule_follows_the_acceptance_directory() {
    use peregrine_acceptance::{
        repo_root, MatchRule, IN_REPO_ACCEPTANCE_DIR, IN_REPO_QUICKFIXJ_DIR,
    };
    let root = repo_root();
    assert_eq!(
        MatchRule::of_acceptance_dir(&root.join(IN_REPO_ACCEPTANCE_DIR)),
        MatchRule::Strict
    );
    assert_eq!(
        MatchRule::of_acceptance_dir(&root.join(IN_REPO_QUICKFIXJ_DIR)),
        MatchRule::QuickFixJ
    );
    for rule in [MatchRule::Strict, MatchRule::QuickFixJ] {
        assert_eq!(MatchRule::from_name(rule.name()), Some(rule));
    }
}

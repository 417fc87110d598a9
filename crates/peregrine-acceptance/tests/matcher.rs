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

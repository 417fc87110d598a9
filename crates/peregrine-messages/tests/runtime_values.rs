//! The runtime's value types through the public [`FixValue`] trait: the fast
//! UTCTimestamp reader agrees with the codec's parser on valid and invalid
//! input, and MonthYear is written in each of its three forms.

use peregrine_messages::codec::value::{self, MonthYear, MonthYearQualifier, UtcTimestamp};
use peregrine_messages::codec::EncodeBuffer;
use peregrine_messages::{FieldError, FixValue};

#[test]
fn fast_timestamps_agree_with_the_codec() {
    for t in [
        "20240115-10:30:00.123",
        "20240115-10:30:00",
        "20240115-23:59:59.123456",
        "20241231-00:00:00.123456789",
        "20240229-10:30:00.000",
        "20230229-10:30:00.000",
        "20240115-10:30:60.000",
        "20240115-24:00:00.000",
        "20240015-10:30:00.000",
        "20240100-10:30:00.000",
        "2024011510:30:00.000",
        "20240115-10:30:00.12",
        "20240115-10:30:00,123",
        "2024a115-10:30:00.123",
        "20240115-10:30:00.12x",
        "20240115-1a:30:00.123",
        "20240115-10;30:00.123",
        "20240115-10:30:0\u{ff}.12",
        "2024011\u{e9}10:30:00",
        "19991231-23:59:59.999999999",
        "",
    ] {
        let v = t.as_bytes();
        let codec = value::parse_timestamp(v).map_err(FieldError::Value);
        assert_eq!(<UtcTimestamp as FixValue>::read(v), codec, "{t}");
    }
}

fn written(m: MonthYear) -> Vec<u8> {
    let mut buf = EncodeBuffer::new();
    let mut enc = buf.start(b"", b"D");
    m.write(200, &mut enc);
    enc.fields().to_vec()
}

#[test]
fn month_year_formats() {
    let m = MonthYear {
        year: 2024,
        month: 3,
        qualifier: MonthYearQualifier::None,
    };
    assert_eq!(written(m), b"200=202403\x01");
    let week = MonthYear {
        qualifier: MonthYearQualifier::Week(2),
        ..m
    };
    assert_eq!(written(week), b"200=202403w2\x01");
    let day = MonthYear {
        qualifier: MonthYearQualifier::Day(9),
        ..m
    };
    assert_eq!(written(day), b"200=20240309\x01");
    assert_eq!(value::parse_month_year(b"20240309"), Ok(day));
    assert_eq!(<MonthYear as FixValue>::read(b"20240309"), Ok(day));
}

//! Helpers shared by the integration tests.
#![allow(dead_code)]

/// Builds a valid message from `|`-separated body fields (starting at 35=),
/// computing BodyLength and CheckSum.
pub fn msg(begin: &str, body: &str) -> Vec<u8> {
    let body = body.replace('|', "\x01");
    let mut m = format!("8={begin}\x019={}\x01{}", body.len(), body).into_bytes();
    let sum: u32 = m.iter().map(|&b| b as u32).sum();
    m.extend_from_slice(format!("10={:03}\x01", sum % 256).as_bytes());
    m
}

/// The benchmark ExecutionReport of BENCHMARKS.md §1.
pub fn execution_report() -> Vec<u8> {
    msg(
        "FIX.4.4",
        "35=8|49=SENDER|56=TARGET|34=12345|52=20240115-10:30:00.123|37=ORD123456|17=EXEC789012|150=0|39=0|54=1|151=1000|14=0|6=0|55=AAPL|38=1000|44=150.50|",
    )
}

/// The benchmark NewOrderSingle of BENCHMARKS.md §1.
pub fn new_order_single() -> Vec<u8> {
    msg(
        "FIX.4.4",
        "35=D|49=SENDER|56=TARGET|34=100|52=20240115-10:30:00.000|11=CLORD001|55=AAPL|54=1|60=20240115-10:30:00.000|38=1000|40=2|44=150.00|59=0|",
    )
}

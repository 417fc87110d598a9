//! What an application was delivered, one line per message: `<ClOrdID> <PossDupFlag>`
//! (`J17 N`), appended and flushed as each message arrives, so that a `kill -9`
//! keeps every line written before it.
//!
//! Exactly once, in order: the first deliveries are `J1`, `J2`, … `Jn` in that order;
//! a message delivered again must carry PossDupFlag=Y (a resend the application can
//! recognise: after a crash, what was delivered but not yet stored comes again) and
//! must be one delivered before.

use std::fmt;

/// Deliveries that break the rule, with the line that shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryError {
    /// A line that is not `<id> <Y|N>`.
    Unreadable {
        /// 1-based.
        line: usize,
        /// The line.
        text: String,
    },
    /// A first delivery out of order (or an id never sent).
    OutOfOrder {
        /// 1-based.
        line: usize,
        /// What came.
        got: String,
        /// What was due.
        expected: String,
    },
    /// A message delivered again without PossDupFlag=Y.
    DuplicateNotFlagged {
        /// 1-based.
        line: usize,
        /// The id.
        id: String,
    },
    /// Fewer first deliveries than messages sent.
    Missing {
        /// First deliveries seen.
        delivered: u64,
        /// Messages sent.
        sent: u64,
    },
}

impl fmt::Display for DeliveryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeliveryError::Unreadable { line, text } => {
                write!(f, "line {line}: {text:?} does not read")
            }
            DeliveryError::OutOfOrder {
                line,
                got,
                expected,
            } => {
                write!(
                    f,
                    "line {line}: {got} delivered first where {expected} was due"
                )
            }
            DeliveryError::DuplicateNotFlagged { line, id } => {
                write!(f, "line {line}: {id} delivered again without PossDupFlag=Y")
            }
            DeliveryError::Missing { delivered, sent } => {
                write!(f, "{delivered} of {sent} messages delivered")
            }
        }
    }
}

impl std::error::Error for DeliveryError {}

/// What [`check`] counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Delivered {
    /// Messages delivered for the first time (all of them, when the check passes).
    pub first: u64,
    /// Deliveries again, each flagged PossDupFlag=Y.
    pub again: u64,
    /// First deliveries that carried PossDupFlag=Y (they came by a resend).
    pub first_by_resend: u64,
}

/// Checks the lines of an application's deliveries of `sent` messages `<prefix>1` …
///
/// ```
/// use peregrine_interop::deliveries::{check, Delivered};
/// assert_eq!(check("J1 N\nJ2 Y\nJ2 Y\nJ3 N\n", "J", 3).unwrap(),
///            Delivered { first: 3, again: 1, first_by_resend: 1 });
/// assert!(check("J1 N\nJ1 N\nJ2 N\n", "J", 2).is_err()); // again, not flagged
/// assert!(check("J2 N\nJ1 N\n", "J", 2).is_err()); // out of order
/// assert!(check("J1 N\n", "J", 2).is_err()); // one missing
/// ```
///
/// # Errors
///
/// The first [`DeliveryError`] found.
pub fn check(text: &str, prefix: &str, sent: u64) -> Result<Delivered, DeliveryError> {
    let mut d = Delivered::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let unreadable = || DeliveryError::Unreadable {
            line,
            text: raw.chars().take(80).collect(),
        };
        let (id, flag) = raw.split_once(' ').ok_or_else(unreadable)?;
        let poss_dup = match flag {
            "Y" => true,
            "N" => false,
            _ => return Err(unreadable()),
        };
        let n: u64 = id
            .strip_prefix(prefix)
            .and_then(|n| n.parse().ok())
            .ok_or_else(unreadable)?;
        if n <= d.first {
            if !poss_dup {
                return Err(DeliveryError::DuplicateNotFlagged {
                    line,
                    id: id.into(),
                });
            }
            d.again += 1;
        } else if n == d.first + 1 {
            d.first = n;
            d.first_by_resend += u64::from(poss_dup);
        } else {
            return Err(DeliveryError::OutOfOrder {
                line,
                got: id.into(),
                expected: format!("{prefix}{}", d.first + 1),
            });
        }
    }
    if d.first != sent {
        return Err(DeliveryError::Missing {
            delivered: d.first,
            sent,
        });
    }
    Ok(d)
}

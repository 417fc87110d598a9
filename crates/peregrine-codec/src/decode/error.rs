//! Why a message could not be decoded ([`DecodeError`]).

use super::MAX_FIELDS;
use std::fmt;

/// Why a message could not be decoded. Offsets are byte offsets in the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Longer than the configured maximum.
    TooLarge {
        /// The message length.
        len: usize,
    },
    /// The message does not start with `8=`.
    BeginStringNotFirst,
    /// The second field is not BodyLength(9).
    BodyLengthNotSecond,
    /// The third field is not MsgType(35).
    MsgTypeNotThird,
    /// The last field is not CheckSum(10), or the message has fewer than four fields.
    ChecksumNotLast,
    /// BodyLength's value is not a number.
    InvalidBodyLength,
    /// BodyLength differs from the real body length.
    BodyLengthMismatch {
        /// Value of field 9.
        declared: usize,
        /// Bytes actually between field 9 and field 10.
        actual: usize,
    },
    /// CheckSum's value is not three digits.
    InvalidChecksum,
    /// CheckSum differs from the byte sum modulo 256.
    ChecksumMismatch {
        /// Value of field 10.
        declared: u8,
        /// Computed sum.
        computed: u8,
    },
    /// A tag that is not a positive decimal number without leading zero.
    InvalidTag {
        /// Where the field starts.
        offset: usize,
    },
    /// A field without `=` after its tag.
    MissingEquals {
        /// Where the field starts.
        offset: usize,
    },
    /// The last field is not terminated by SOH.
    Unterminated {
        /// Where the field starts.
        offset: usize,
    },
    /// A field with nothing between `=` and SOH.
    EmptyValue {
        /// Its tag.
        tag: u32,
    },
    /// A data-length field whose value is not a number.
    InvalidDataLength {
        /// The length tag.
        tag: u32,
    },
    /// A data field whose announced length does not end at an SOH.
    DataLengthMismatch {
        /// The data tag.
        tag: u32,
    },
    /// More than [`MAX_FIELDS`] fields.
    TooManyFields,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DecodeError::TooLarge { len } => {
                write!(f, "message of {len} bytes exceeds the maximum size")
            }
            DecodeError::BeginStringNotFirst => {
                f.write_str("BeginString(8) is not the first field")
            }
            DecodeError::BodyLengthNotSecond => {
                f.write_str("BodyLength(9) is not the second field")
            }
            DecodeError::MsgTypeNotThird => f.write_str("MsgType(35) is not the third field"),
            DecodeError::ChecksumNotLast => f.write_str("CheckSum(10) is not the last field"),
            DecodeError::InvalidBodyLength => f.write_str("BodyLength(9) is not a number"),
            DecodeError::BodyLengthMismatch { declared, actual } => {
                write!(
                    f,
                    "BodyLength(9) is {declared} but the body has {actual} bytes"
                )
            }
            DecodeError::InvalidChecksum => f.write_str("CheckSum(10) is not three digits"),
            DecodeError::ChecksumMismatch { declared, computed } => {
                write!(
                    f,
                    "CheckSum(10) is {declared:03} but the bytes sum to {computed:03}"
                )
            }
            DecodeError::InvalidTag { offset } => write!(f, "invalid tag at offset {offset}"),
            DecodeError::MissingEquals { offset } => {
                write!(f, "field at offset {offset} has no '='")
            }
            DecodeError::Unterminated { offset } => {
                write!(f, "field at offset {offset} is not terminated by SOH")
            }
            DecodeError::EmptyValue { tag } => write!(f, "tag {tag} specified without a value"),
            DecodeError::InvalidDataLength { tag } => {
                write!(f, "data length tag {tag} is not a number")
            }
            DecodeError::TooManyFields => write!(f, "more than {MAX_FIELDS} fields"),
            DecodeError::DataLengthMismatch { tag } => {
                write!(
                    f,
                    "data field {tag} does not end where its length field says"
                )
            }
        }
    }
}

impl std::error::Error for DecodeError {}

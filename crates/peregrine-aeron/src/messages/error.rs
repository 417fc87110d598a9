//! Why a message could not be encoded ([`EncodeError`]) or decoded ([`DecodeError`]).

use super::SCHEMA_ID;

/// Why a message could not be encoded. Nothing was written when encoding fails.
///
/// ```
/// use peregrine_aeron::messages::{Encode, EncodeError};
///
/// let relayed: &[u8] = b"0123456789";
/// let mut small = [0u8; 4];
/// assert_eq!(
///     relayed.encode(&mut small),
///     Err(EncodeError::BufferTooSmall { needed: 10, available: 4 })
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// The destination is shorter than [`Encode::encoded_len`](super::Encode::encoded_len).
    BufferTooSmall {
        /// Bytes the message needs.
        needed: usize,
        /// Bytes the buffer has.
        available: usize,
    },
    /// A text field is longer than the wire format allows (`u32::MAX - 1`).
    TextTooLong,
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncodeError::BufferTooSmall { needed, available } => {
                write!(f, "SBE encode needs {needed} bytes, buffer has {available}")
            }
            EncodeError::TextTooLong => {
                f.write_str("SBE text field longer than u32::MAX - 1 bytes")
            }
        }
    }
}

impl std::error::Error for EncodeError {}

/// Why a buffer is not a valid message of this schema.
///
/// Decoding checks before it reads, so any bytes at all (a short read, another
/// schema's message, garbage) give an error, never a panic:
///
/// ```
/// use peregrine_aeron::messages::{DecodeError, Message, HEADER_LEN};
///
/// assert_eq!(
///     Message::decode(&[1, 2, 3]),
///     Err(DecodeError::Truncated { needed: HEADER_LEN, available: 3 })
/// );
/// // A header naming schema 0x0101.
/// assert_eq!(Message::decode(&[1; 64]), Err(DecodeError::WrongSchema { schema_id: 0x0101 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The buffer ends before the header, the block or a text field does.
    Truncated {
        /// Bytes needed to read on.
        needed: usize,
        /// Bytes in the buffer.
        available: usize,
    },
    /// The header's schema id is not [`SCHEMA_ID`].
    WrongSchema {
        /// The schema id found.
        schema_id: u16,
    },
    /// The header's template id is not one of this schema's messages (or not the one
    /// asked for).
    UnknownTemplate {
        /// The template id found.
        template_id: u16,
    },
    /// The header's block length is shorter than this version's block (a message from an
    /// older schema version than this crate reads).
    BlockTooShort {
        /// The block length found.
        block_length: u16,
        /// The block length this crate needs.
        expected: u16,
    },
    /// A required enum field holds a value the schema does not define.
    InvalidEnum {
        /// The field's schema name.
        field: &'static str,
    },
    /// A text field is not UTF-8.
    InvalidText,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Truncated { needed, available } => {
                write!(
                    f,
                    "SBE message truncated: needs {needed} bytes, has {available}"
                )
            }
            DecodeError::WrongSchema { schema_id } => {
                write!(f, "SBE schema id {schema_id}, expected {SCHEMA_ID}")
            }
            DecodeError::UnknownTemplate { template_id } => {
                write!(f, "unknown SBE template id {template_id}")
            }
            DecodeError::BlockTooShort {
                block_length,
                expected,
            } => {
                write!(f, "SBE block length {block_length} shorter than {expected}")
            }
            DecodeError::InvalidEnum { field } => {
                write!(f, "invalid value in SBE enum field {field}")
            }
            DecodeError::InvalidText => f.write_str("SBE text field is not UTF-8"),
        }
    }
}

impl std::error::Error for DecodeError {}

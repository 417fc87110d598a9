//! What every message's codec shares: bounds and header checks, decimals, text, and the
//! [`sbe_message!`] macro that writes each message's `Encode` and `decode` from them.

use peregrine_sbe::decimal_64_codec::{Decimal64Decoder, Decimal64Encoder};
use peregrine_sbe::message_header_codec::MessageHeaderDecoder;
use peregrine_sbe::{ReadBuf, Reader, Writer};

use super::{Decimal64, DecodeError, EncodeError, HEADER_LEN, SCHEMA_ID};

/// Length of a variable-length text field's length prefix.
pub(super) const VAR_LEN_PREFIX: usize = 4;

#[inline]
pub(super) fn check_room(buf: &[u8], needed: usize) -> Result<(), EncodeError> {
    if buf.len() < needed {
        Err(EncodeError::BufferTooSmall {
            needed,
            available: buf.len(),
        })
    } else {
        Ok(())
    }
}

#[inline]
pub(super) fn text_len(text: &str) -> Result<usize, EncodeError> {
    if text.len() >= u32::MAX as usize {
        Err(EncodeError::TextTooLong)
    } else {
        Ok(text.len())
    }
}

/// Write a decimal through its composite encoder and hand back the message encoder.
#[inline]
pub(super) fn put_decimal<'a, P: Writer<'a> + Default>(
    mut enc: Decimal64Encoder<P>,
    value: Decimal64,
) -> P {
    enc.mantissa(value.mantissa);
    enc.exponent(value.exponent);
    // The composite was wrapped around its parent one line before: the parent is there.
    enc.parent().unwrap_or_default()
}

#[inline]
pub(super) fn get_decimal<'a, P: Reader<'a> + Default>(dec: Decimal64Decoder<P>) -> Decimal64 {
    Decimal64 {
        mantissa: dec.mantissa(),
        exponent: dec.exponent(),
    }
}

/// Validate the header of `buf` for `template_id` with a block of at least `block_len`
/// bytes, and return the header decoder and the offset where the block ends.
#[inline]
pub(super) fn check_header(
    buf: &[u8],
    template_id: u16,
    block_len: u16,
) -> Result<(MessageHeaderDecoder<ReadBuf<'_>>, usize), DecodeError> {
    let (tid, header) = peek_header(buf)?;
    if tid != template_id {
        return Err(DecodeError::UnknownTemplate { template_id: tid });
    }
    let acting = header.block_length();
    if acting < block_len {
        return Err(DecodeError::BlockTooShort {
            block_length: acting,
            expected: block_len,
        });
    }
    let end = HEADER_LEN + acting as usize;
    if buf.len() < end {
        return Err(DecodeError::Truncated {
            needed: end,
            available: buf.len(),
        });
    }
    Ok((header, end))
}

#[inline]
pub(super) fn peek_header(
    buf: &[u8],
) -> Result<(u16, MessageHeaderDecoder<ReadBuf<'_>>), DecodeError> {
    if buf.len() < HEADER_LEN {
        return Err(DecodeError::Truncated {
            needed: HEADER_LEN,
            available: buf.len(),
        });
    }
    let header = MessageHeaderDecoder::default().wrap(ReadBuf::new(buf), 0);
    if header.schema_id() != SCHEMA_ID {
        return Err(DecodeError::WrongSchema {
            schema_id: header.schema_id(),
        });
    }
    Ok((header.template_id(), header))
}

/// Read the length-prefixed text at `at`, bounds- and UTF-8-checked.
#[inline]
pub(super) fn get_text(buf: &[u8], at: usize) -> Result<&str, DecodeError> {
    let body = at + VAR_LEN_PREFIX;
    if buf.len() < body {
        return Err(DecodeError::Truncated {
            needed: body,
            available: buf.len(),
        });
    }
    let mut len = [0u8; VAR_LEN_PREFIX];
    len.copy_from_slice(&buf[at..body]);
    let end = body.saturating_add(u32::from_le_bytes(len) as usize);
    if buf.len() < end {
        return Err(DecodeError::Truncated {
            needed: end,
            available: buf.len(),
        });
    }
    std::str::from_utf8(&buf[body..end]).map_err(|_| DecodeError::InvalidText)
}

/// The SBE side of one message struct, written once for all of them: its
/// [`SbeMessage`](super::SbeMessage) template id, [`Encode`](super::Encode) (room checked
/// first, then header and fields written in place) and a `decode` that checks the header,
/// the block and the text before it reads, and refuses a required enum that holds no value
/// of the schema.
///
/// Fields are named by kind, in this order, which is also the order they are written in:
/// `u64` values; [`Decimal64`]s with the codec's encoder and decoder accessors; fixed-length
/// byte arrays; required enums with their type and schema name (for
/// [`DecodeError::InvalidEnum`]); optional enums; and last the variable-length text, if any
/// (a struct with text borrows it, so it takes a lifetime).
macro_rules! sbe_message {
    (
        $name:ident $(<$lt:lifetime>)?, $what:literal,
        $codec:ident::{$encoder:ident, $decoder:ident $(,)?},
        u64 { $($int:ident),* $(,)? },
        decimal { $($dec:ident: $dec_enc:ident / $dec_dec:ident),* $(,)? },
        array { $($arr:ident),* $(,)? },
        required { $($req:ident: $req_ty:ident $req_name:literal),* $(,)? },
        optional { $($opt:ident),* $(,)? },
        text { $($text:ident)? } $(,)?
    ) => {
        impl $(<$lt>)? $crate::messages::SbeMessage for $name $(<$lt>)? {
            const TEMPLATE_ID: u16 = ::peregrine_sbe::$codec::SBE_TEMPLATE_ID;
        }

        impl $(<$lt>)? $crate::messages::Encode for $name $(<$lt>)? {
            #[inline]
            fn encoded_len(&self) -> usize {
                $crate::messages::HEADER_LEN
                    + ::peregrine_sbe::$codec::SBE_BLOCK_LENGTH as usize
                    $(+ $crate::messages::wire::VAR_LEN_PREFIX + self.$text.len())?
            }

            fn encode(&self, buf: &mut [u8]) -> Result<usize, $crate::messages::EncodeError> {
                use ::peregrine_sbe::{Encoder as _, WriteBuf};
                use $crate::messages::HEADER_LEN;
                $($crate::messages::wire::text_len(self.$text)?;)?
                $crate::messages::wire::check_room(buf, self.encoded_len())?;
                let mut enc =
                    ::peregrine_sbe::$codec::$encoder::default().wrap(WriteBuf::new(buf), HEADER_LEN);
                enc = enc.header(0).parent().unwrap_or_default();
                $(enc.$int(self.$int);)*
                $(enc = $crate::messages::wire::put_decimal(enc.$dec_enc(), self.$dec);)*
                $(enc.$arr(&self.$arr);)*
                $(enc.$req(self.$req);)*
                $(enc.$opt(self.$opt);)*
                $(enc.$text(self.$text);)?
                Ok(enc.get_limit())
            }
        }

        impl $(<$lt>)? $name $(<$lt>)? {
            #[doc = concat!(
                "Decode ", $what, " from the start of `buf`",
                $("; `", stringify!($text), "` borrows from it",)? "."
            )]
            ///
            /// # Errors
            ///
            #[doc = concat!(
                "A [`DecodeError`](crate::messages::DecodeError) when `buf` is not a whole ",
                stringify!($name),
                " of this schema: too short, another schema or template, a block from an older \
                 version, or a required enum holding a value the schema does not define.",
                $(" The ", stringify!($text), " must be UTF-8 \
                 ([`DecodeError::InvalidText`](crate::messages::DecodeError::InvalidText)).",)?
            )]
            pub fn decode(buf: &$($lt)? [u8]) -> Result<Self, $crate::messages::DecodeError> {
                use $crate::messages::{DecodeError, SbeMessage as _};
                let (header, _block_end) = $crate::messages::wire::check_header(
                    buf,
                    Self::TEMPLATE_ID,
                    ::peregrine_sbe::$codec::SBE_BLOCK_LENGTH,
                )?;
                $(let $text = $crate::messages::wire::get_text(buf, _block_end)?;)?
                let d = ::peregrine_sbe::$codec::$decoder::default().header(header, 0);
                Ok($name {
                    $($int: d.$int(),)*
                    $($dec: $crate::messages::wire::get_decimal(d.$dec_dec()),)*
                    $($arr: d.$arr(),)*
                    $($req: {
                        // Required enums decode unknown bytes as `NullVal`.
                        let v = d.$req();
                        if v == $crate::messages::$req_ty::NullVal {
                            return Err(DecodeError::InvalidEnum { field: $req_name });
                        }
                        v
                    },)*
                    $($opt: d.$opt(),)*
                    $($text,)?
                })
            }
        }
    };
}
pub(super) use sbe_message;

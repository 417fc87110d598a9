//! The decoder ([`Decoder`]): its tables, the choice between the one-pass
//! vector layout, the fast walk and the general walk (in [`super::walk`]),
//! and the framing checks every decoded message passes (8, 9, 35 first, 10
//! last, BodyLength, CheckSum).

use super::index::TagIndex;
use super::tag_parse::parse_digits;
use super::{DecodeError, DecoderConfig, FieldSlice, MessageView};
use crate::simd::{self, BlockMasks};
use crate::span::{FieldSpan, SpanChunk};
use crate::SOH;

/// Field indices are 16-bit in the direct table.
pub const MAX_FIELDS: usize = u16::MAX as usize;

/// A reusable decoder: holds the field table and the tag index.
#[derive(Debug)]
pub struct Decoder {
    pub(super) config: DecoderConfig,
    /// The fields' spans, in chunks of sixteen on whole cache lines.
    pub(super) spans: Vec<SpanChunk>,
    /// SOH, `=`, digit and `0` bits per 64-byte block.
    pub(super) masks: Vec<BlockMasks>,
    /// The vector instructions in use.
    pub(super) level: simd::Level,
    /// Whether the fast walk is tried first (tests compare it with the general walk).
    pub(super) use_fast_walk: bool,
    /// Which way the last message went.
    pub(super) last_path: DecodePath,
    /// The vector decoder's positions and tags ([`simd::small_layout`]).
    pub(super) small_scratch: Vec<simd::Chunk>,
    /// Per block: the SOH bits, and the bits of the `=` ending each tag.
    pub(super) soh_bits: Vec<u64>,
    pub(super) tag_end_bits: Vec<u64>,
    /// Positions of every SOH and of every tag-ending `=`, and the tags (fast walk).
    pub(super) ends: Vec<u32>,
    pub(super) eqs: Vec<u32>,
    pub(super) tags: Vec<u32>,
    pub(super) index: TagIndex,
    pub(super) notes: WalkNotes,
}

/// Which way [`Decoder::decode`] took (see [`Decoder::last_path`]).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodePath {
    /// The whole small message in one AVX-512 pass.
    Vector,
    /// The fast walk (masks, then fields without dependencies).
    Fast,
    /// The general walk (data fields, errors, anything unusual).
    General,
}

/// What a field walk noticed besides the fields, kept in the decoder (not
/// returned through memory: a struct of small stores read back as one wide
/// load stalls store forwarding).
/// Plain integers (0: none; tags are positive) for the same reason: an
/// `Option` is written as two stores.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct WalkNotes {
    pub(super) first_empty: u32,
}

impl Decoder {
    /// A decoder with the given checks.
    pub fn new(config: DecoderConfig) -> Self {
        Decoder {
            config,
            // Room for every field of a small message (and the vector
            // decoder's whole-chunk writes past the last).
            spans: vec![SpanChunk::default(); (simd::SMALL_MESSAGE + 16).div_ceil(16)],
            small_scratch: vec![simd::Chunk::default(); simd::SMALL_SCRATCH_CHUNKS],
            masks: vec![BlockMasks::default(); 8],
            level: simd::detected_level(),
            use_fast_walk: true,
            last_path: DecodePath::General,
            soh_bits: vec![0; 8],
            tag_end_bits: vec![0; 8],
            ends: vec![0; 64 + simd::POSITIONS_SLACK],
            eqs: vec![0; 64 + simd::POSITIONS_SLACK],
            tags: vec![0; 64 + simd::POSITIONS_SLACK],
            index: TagIndex::new(),
            notes: WalkNotes::default(),
        }
    }

    /// Its configuration.
    pub fn config(&self) -> &DecoderConfig {
        &self.config
    }

    /// Chooses the implementation: the vector `level` (one the CPU lacks falls
    /// back to scalar code) and whether the fast walk is tried before the
    /// general one. For tests and benchmarks that compare the paths; every
    /// choice gives the same results.
    #[doc(hidden)]
    pub fn set_paths(&mut self, level: crate::Level, fast_walk: bool) {
        self.level = level;
        self.use_fast_walk = fast_walk;
    }

    /// Which way the last decoded message went (for tests that check the
    /// fast paths are taken, not only that the results agree).
    #[doc(hidden)]
    pub fn last_path(&self) -> DecodePath {
        self.last_path
    }

    /// Mutable access to its configuration (e.g. to add data fields).
    pub fn config_mut(&mut self) -> &mut DecoderConfig {
        &mut self.config
    }

    /// Decodes exactly one message (as found by the [`crate::frame::Framer`]).
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] names the first rule `msg` breaks:
    ///
    /// * longer than [`DecoderConfig::max_message_size`]: [`DecodeError::TooLarge`];
    /// * a field whose tag is not a positive number without a leading zero:
    ///   [`DecodeError::InvalidTag`]; a tag with no `=` after it:
    ///   [`DecodeError::MissingEquals`]; a last field without its SOH:
    ///   [`DecodeError::Unterminated`]; more than [`MAX_FIELDS`](crate::decode::MAX_FIELDS)
    ///   fields: [`DecodeError::TooManyFields`];
    /// * a data field (see [`DataFields`](crate::decode::DataFields)) whose length field is not a
    ///   number: [`DecodeError::InvalidDataLength`], or whose announced length
    ///   does not end at an SOH: [`DecodeError::DataLengthMismatch`];
    /// * BeginString(8), BodyLength(9) and MsgType(35) not the first three
    ///   fields: [`DecodeError::BeginStringNotFirst`],
    ///   [`DecodeError::BodyLengthNotSecond`], [`DecodeError::MsgTypeNotThird`];
    ///   CheckSum(10) not last, or fewer than four fields:
    ///   [`DecodeError::ChecksumNotLast`];
    /// * with [`DecoderConfig::validate_body_length`]: a BodyLength that is not
    ///   a number ([`DecodeError::InvalidBodyLength`]) or not the body's length
    ///   ([`DecodeError::BodyLengthMismatch`]);
    /// * with [`DecoderConfig::validate_checksum`]: a CheckSum that is not three
    ///   digits ([`DecodeError::InvalidChecksum`]) or not the byte sum modulo
    ///   256 ([`DecodeError::ChecksumMismatch`]);
    /// * with [`DecoderConfig::reject_empty_values`]: a field with an empty
    ///   value ([`DecodeError::EmptyValue`]).
    ///
    /// ```
    /// use peregrine_codec::{DecodeError, Decoder, DecoderConfig};
    ///
    /// let mut decoder = Decoder::new(DecoderConfig::default());
    /// let bad_sum = b"8=FIX.4.4\x019=5\x0135=0\x0110=000\x01";
    /// assert!(matches!(
    ///     decoder.decode(bad_sum),
    ///     Err(DecodeError::ChecksumMismatch { declared: 0, .. })
    /// ));
    /// assert_eq!(decoder.decode(b"9=5\x01").err(), Some(DecodeError::BeginStringNotFirst));
    /// ```
    #[inline]
    pub fn decode<'a>(&'a mut self, msg: &'a [u8]) -> Result<MessageView<'a>, DecodeError> {
        // The view is made here, in the caller: returned whole from the decoding
        // function it would be written field by field and copied as a block,
        // and such a copy waits for the stores.
        let (fields, first_empty) = self.decode_core(msg)?;
        let spans = &simd::spans(&self.spans)[..fields as usize];
        Ok(MessageView::new(
            FieldSlice::new(msg, spans),
            &self.index,
            first_empty,
        ))
    }

    /// [`Decoder::decode`]'s work: the number of fields and the first empty value.
    #[inline(never)]
    fn decode_core(&mut self, msg: &[u8]) -> Result<(u32, Option<u32>), DecodeError> {
        if msg.len() > self.config.max_message_size {
            return Err(DecodeError::TooLarge { len: msg.len() });
        }
        if self.use_fast_walk
            && self.level == simd::Level::Avx512
            && msg.len() <= simd::SMALL_MESSAGE
        {
            // The common small message in one vector pass; anything else
            // (or anything wrong) the general way below.
            self.index.next_generation(simd::SMALL_MESSAGE);
            let lengths = self
                .config
                .data_fields
                .bitmap
                .first_chunk::<16>()
                .expect("the bitmap covers tags below 1024");
            let layout = simd::small_layout(
                self.level,
                msg,
                lengths,
                self.index.generation,
                &mut self.index.direct,
                &mut self.spans,
                &mut self.small_scratch,
            );
            if let Some(l) = layout.filter(|l| trailer_ok(&self.config, msg, l)) {
                self.last_path = DecodePath::Vector;
                return Ok((l.fields, None));
            }
        }
        let blocks = msg.len().div_ceil(64);
        if self.masks.len() < blocks {
            self.masks.resize(blocks, BlockMasks::default());
            self.soh_bits.resize(blocks, 0);
            self.tag_end_bits.resize(blocks, 0);
        }
        let sum = simd::field_masks_and_sum_at(self.level, msg, &mut self.masks[..blocks]);
        // Upper bound on the field count; tables grow only for a bigger message.
        let max_fields = self.masks[..blocks]
            .iter()
            .map(|m| m.soh.count_ones() as usize)
            .sum::<usize>()
            + 1;
        if max_fields > MAX_FIELDS {
            return Err(DecodeError::TooManyFields);
        }
        if self.spans.len() * 16 < max_fields {
            self.spans
                .resize(max_fields.div_ceil(16), SpanChunk::default());
            // Slack for the vector stores of the positions.
            self.ends.resize(max_fields + simd::POSITIONS_SLACK, 0);
            self.eqs.resize(max_fields + simd::POSITIONS_SLACK, 0);
            self.tags.resize(max_fields + simd::POSITIONS_SLACK, 0);
        }
        self.index.next_generation(max_fields);
        let fast = if self.use_fast_walk {
            self.fast_walk(msg, blocks)
        } else {
            None
        };
        self.last_path = DecodePath::Fast;
        let fields = match fast {
            Some(fields) => fields,
            None => {
                self.last_path = DecodePath::General;
                // Raw data, a malformed field or an unusual tag: the general walk
                // handles (and reports) everything. Start the index afresh.
                self.index.next_generation(max_fields);
                self.walk(msg)?
            }
        };
        let spans = &simd::spans(&self.spans)[..fields];
        check_structure(&self.config, spans, msg, sum)?;
        let notes = self.notes;
        let first_empty = (notes.first_empty != 0).then_some(notes.first_empty);
        if self.config.reject_empty_values {
            if let Some(tag) = first_empty {
                return Err(DecodeError::EmptyValue { tag });
            }
        }
        Ok((fields as u32, first_empty))
    }
}

/// BodyLength's value: 1 to 9 digits (more is never a real message), so no
/// overflow check per digit.
#[inline]
fn body_length(v: &[u8]) -> Option<usize> {
    parse_digits(v)
}

/// BodyLength and CheckSum of a message the vector decoder laid out (which
/// checked the tags: 8, 9, 35 first, 10 last): the trailer must be exactly
/// `10=` and three digits. `false` sends the message the general way, which
/// reports what is wrong.
#[inline]
fn trailer_ok(config: &DecoderConfig, msg: &[u8], l: &simd::SmallLayout) -> bool {
    let len = msg.len();
    if len < 8 || msg[len - 8] != SOH || &msg[len - 7..len - 4] != b"10=" {
        return false;
    }
    let v = &msg[len - 4..len - 1];
    if !v.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let (bl_start, bl_end) = (l.body_length.0 as usize, l.body_length.1 as usize);
    if config.validate_body_length {
        let Some(declared) = msg.get(bl_start..bl_end).and_then(body_length) else {
            return false;
        };
        if declared + bl_end + 1 != len - 7 {
            return false;
        }
    }
    if config.validate_checksum {
        let declared =
            (v[0] - b'0') as u32 * 100 + (v[1] - b'0') as u32 * 10 + (v[2] - b'0') as u32;
        let trailer = (b'1' + b'0' + b'=' + SOH) as u32 + v[0] as u32 + v[1] as u32 + v[2] as u32;
        if declared != l.sum.wrapping_sub(trailer) % 256 {
            return false;
        }
    }
    true
}

/// The framing rules every decoded message meets: 8, 9 and 35 first, 10
/// last, then (as configured) BodyLength and CheckSum against the bytes.
fn check_structure(
    config: &DecoderConfig,
    e: &[FieldSpan],
    msg: &[u8],
    sum: u32,
) -> Result<(), DecodeError> {
    if e.first().map(|f| f.tag) != Some(8) {
        return Err(DecodeError::BeginStringNotFirst);
    }
    if e.len() < 4 || e[e.len() - 1].tag != 10 {
        return Err(DecodeError::ChecksumNotLast);
    }
    if e[1].tag != 9 {
        return Err(DecodeError::BodyLengthNotSecond);
    }
    if e[2].tag != 35 {
        return Err(DecodeError::MsgTypeNotThird);
    }
    let last = e[e.len() - 1];
    // "10=" starts three bytes before its value.
    let trailer_start = last.start as usize - 3;
    if config.validate_body_length {
        let bl = e[1];
        let declared = body_length(&msg[bl.start as usize..bl.end as usize])
            .ok_or(DecodeError::InvalidBodyLength)?;
        let actual = trailer_start - (bl.end as usize + 1);
        if declared != actual {
            return Err(DecodeError::BodyLengthMismatch { declared, actual });
        }
    }
    if config.validate_checksum {
        let v = &msg[last.start as usize..last.end as usize];
        if v.len() != 3 || !v.iter().all(u8::is_ascii_digit) {
            return Err(DecodeError::InvalidChecksum);
        }
        let declared =
            (v[0] - b'0') as u32 * 100 + (v[1] - b'0') as u32 * 10 + (v[2] - b'0') as u32;
        // The trailer is exactly "10=" (no leading zero in a tag), three
        // digits and SOH: its bytes are known but for the digits.
        let trailer_sum =
            (b'1' + b'0' + b'=' + SOH) as u32 + v[0] as u32 + v[1] as u32 + v[2] as u32;
        let computed = sum.wrapping_sub(trailer_sum) % 256;
        if declared != computed {
            return Err(DecodeError::ChecksumMismatch {
                declared: declared.min(255) as u8,
                computed: computed as u8,
            });
        }
    }
    Ok(())
}

//! Decoding one framed message into a [`MessageView`].
//!
//! The decoder owns reusable tables; decoding indexes the message bytes in
//! place (values are slices of the input) and allocates nothing once its
//! tables have grown to the largest message seen.
//!
//! ```
//! use peregrine_codec::{Decoder, DecoderConfig};
//! let msg = b"8=FIX.4.4\x019=12\x0135=0\x01112=ab\x0110=102\x01";
//! let mut decoder = Decoder::new(DecoderConfig::default());
//! let view = decoder.decode(msg).unwrap();
//! assert_eq!(view.msg_type(), b"0");
//! assert_eq!(view.get(112), Some(&b"ab"[..]));
//! assert_eq!(view.len(), 5);
//! ```

use crate::simd::{self, BlockMasks};
use crate::value::{self, ValueError};
use crate::SOH;
use std::fmt;

/// Length-prefixed data fields: (length tag, data tag). The data field's value
/// is exactly `length` bytes and may contain SOH.
pub const STANDARD_DATA_FIELDS: &[(u32, u32)] = &[
    (90, 91),
    (93, 89),
    (95, 96),
    (212, 213),
    (348, 349),
    (350, 351),
    (352, 353),
    (354, 355),
    (356, 357),
    (358, 359),
    (360, 361),
    (362, 363),
    (364, 365),
    (445, 446),
    (618, 619),
    (621, 622),
    (1184, 1185),
    (1277, 1278),
    (1280, 1281),
    (1282, 1283),
    (1359, 1360),
    (1397, 1398),
    (1401, 1402),
    (1403, 1404),
    (1468, 1469),
    (1618, 1619),
    (1620, 1621),
];

/// The set of length-prefixed data field pairs the decoder honours.
#[derive(Clone, Debug)]
pub struct DataFields {
    // Bit per tag below BITMAP_TAGS marking length tags; pairs sorted by length tag.
    bitmap: [u64; BITMAP_TAGS / 64],
    pairs: Vec<(u32, u32)>,
}

const BITMAP_TAGS: usize = 2048;

impl DataFields {
    /// No data fields (every SOH ends a value).
    pub fn none() -> Self {
        DataFields {
            bitmap: [0; BITMAP_TAGS / 64],
            pairs: Vec::new(),
        }
    }

    /// The standard FIX pairs ([`STANDARD_DATA_FIELDS`]).
    pub fn standard() -> Self {
        let mut d = DataFields::none();
        for &(len, data) in STANDARD_DATA_FIELDS {
            d.insert(len, data);
        }
        d
    }

    /// Adds a (length tag, data tag) pair, e.g. from a custom dictionary.
    pub fn insert(&mut self, length_tag: u32, data_tag: u32) {
        if (length_tag as usize) < BITMAP_TAGS {
            self.bitmap[length_tag as usize / 64] |= 1 << (length_tag % 64);
        }
        match self.pairs.binary_search_by_key(&length_tag, |p| p.0) {
            Ok(i) => self.pairs[i].1 = data_tag,
            Err(i) => self.pairs.insert(i, (length_tag, data_tag)),
        }
    }

    /// A quick filter: false means `tag` is certainly not a length tag.
    #[inline(always)]
    pub fn may_be_length_tag(&self, tag: u32) -> bool {
        (tag as usize) >= BITMAP_TAGS || self.bitmap[tag as usize / 64] & (1 << (tag % 64)) != 0
    }

    /// Whether `tag` announces a data field: a bit test for tags below 2048.
    #[inline(always)]
    pub fn is_length_tag(&self, tag: u32) -> bool {
        if (tag as usize) < BITMAP_TAGS {
            self.bitmap[tag as usize / 64] & (1 << (tag % 64)) != 0
        } else {
            self.data_tag_for(tag).is_some()
        }
    }

    /// The data tag that `length_tag` announces, if it is a length tag.
    #[inline]
    pub fn data_tag_for(&self, length_tag: u32) -> Option<u32> {
        if (length_tag as usize) < BITMAP_TAGS
            && self.bitmap[length_tag as usize / 64] & (1 << (length_tag % 64)) == 0
        {
            return None;
        }
        self.pairs
            .binary_search_by_key(&length_tag, |p| p.0)
            .ok()
            .map(|i| self.pairs[i].1)
    }
}

impl Default for DataFields {
    fn default() -> Self {
        DataFields::standard()
    }
}

/// Which checks the decoder performs. Defaults: everything on.
#[derive(Clone, Debug)]
pub struct DecoderConfig {
    /// Check CheckSum(10) against the byte sum.
    pub validate_checksum: bool,
    /// Check BodyLength(9) against the actual body length.
    pub validate_body_length: bool,
    /// Fail on a field with an empty value ("tag specified without a value").
    /// When off, [`MessageView::first_empty_value`] still reports it.
    pub reject_empty_values: bool,
    /// Messages longer than this are refused.
    pub max_message_size: usize,
    /// Length-prefixed data fields.
    pub data_fields: DataFields,
}

impl Default for DecoderConfig {
    fn default() -> Self {
        DecoderConfig {
            validate_checksum: true,
            validate_body_length: true,
            reject_empty_values: true,
            max_message_size: crate::frame::DEFAULT_MAX_MESSAGE_SIZE,
            data_fields: DataFields::standard(),
        }
    }
}

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

/// Tags below this are indexed by a direct table; others by a small hash table.
const DIRECT_TAGS: usize = 1024;
/// Field indices are 16-bit in the direct table.
pub const MAX_FIELDS: usize = u16::MAX as usize;

/// One field's position in the message. Three `u32`s in this order: the
/// AVX-512 decoder ([`simd`]) writes them as such.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(crate) struct Entry {
    pub(crate) tag: u32,
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// Slot of the overflow index (tags >= DIRECT_TAGS): valid only when
/// `generation` matches the decoder's.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    tag: u32,
    generation: u32,
    first: u32,
}

/// The tag index: for every tag of the message, the index of its first
/// field. Slots carry the generation of the message that wrote them, so
/// nothing is cleared between messages (work per field, not per table
/// slot). Fields are recorded last to first and each write overwrites, so
/// the first occurrence is what remains and no slot is read while indexing.
#[derive(Debug)]
struct TagIndex {
    /// `generation << 32 | first` per tag below DIRECT_TAGS.
    direct: Box<[u64; DIRECT_TAGS]>,
    overflow: Vec<Slot>,
    shift: u32,
    generation: u32,
}

impl TagIndex {
    fn new() -> Self {
        let mut t = TagIndex {
            direct: Box::new([0; DIRECT_TAGS]),
            overflow: Vec::new(),
            shift: 0,
            generation: 0,
        };
        t.resize_overflow(64);
        t
    }

    fn resize_overflow(&mut self, slots: usize) {
        let slots = slots.next_power_of_two().max(16);
        self.overflow = vec![Slot::default(); slots];
        self.shift = 32 - slots.trailing_zeros();
    }

    /// Starts a new message.
    fn next_generation(&mut self, max_fields: usize) {
        if max_fields * 2 > self.overflow.len() {
            self.resize_overflow(max_fields * 2);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.direct.fill(0);
            self.overflow.fill(Slot::default());
            self.generation = 1;
        }
    }

    /// Indexes every field of `entries`, whose tags are all below
    /// [`DIRECT_TAGS`]: one store per field.
    #[inline(always)]
    fn index_direct(&mut self, entries: &[Entry]) {
        let generation = (self.generation as u64) << 32;
        for (i, e) in entries.iter().enumerate().rev() {
            self.direct[e.tag as usize % DIRECT_TAGS] = generation | i as u64;
        }
    }

    /// Indexes every field of `entries`, whatever their tags.
    fn index_all(&mut self, entries: &[Entry]) {
        for (i, e) in entries.iter().enumerate().rev() {
            self.record(e.tag, i as u32);
        }
    }

    /// Records `tag` at field `idx` (overwriting a later occurrence).
    #[inline]
    fn record(&mut self, tag: u32, idx: u32) {
        let g = self.generation;
        if (tag as usize) < DIRECT_TAGS {
            self.direct[tag as usize] = (g as u64) << 32 | idx as u64;
            return;
        }
        let mask = self.overflow.len() - 1;
        let mut h = (tag.wrapping_mul(0x9E37_79B1) >> self.shift) as usize;
        loop {
            let s = &mut self.overflow[h];
            if s.generation != g || s.tag == tag {
                *s = Slot {
                    tag,
                    generation: g,
                    first: idx,
                };
                return;
            }
            h = (h + 1) & mask;
        }
    }

    /// The index of the first field with `tag`.
    #[inline]
    fn find(&self, tag: u32) -> Option<u32> {
        let g = self.generation;
        if (tag as usize) < DIRECT_TAGS {
            let slot = self.direct[tag as usize];
            return ((slot >> 32) as u32 == g).then_some(slot as u32);
        }
        let mask = self.overflow.len() - 1;
        let mut h = (tag.wrapping_mul(0x9E37_79B1) >> self.shift) as usize;
        loop {
            let s = &self.overflow[h];
            if s.generation != g {
                return None;
            }
            if s.tag == tag {
                return Some(s.first);
            }
            h = (h + 1) & mask;
        }
    }
}

/// A reusable decoder: holds the field table and the tag index.
#[derive(Debug)]
pub struct Decoder {
    config: DecoderConfig,
    /// The fields, in chunks of sixteen on whole cache lines.
    entries: Vec<simd::EntryChunk>,
    /// SOH, `=`, digit and `0` bits per 64-byte block.
    masks: Vec<BlockMasks>,
    /// The vector instructions in use.
    level: simd::Level,
    /// Whether the fast walk is tried first (tests compare it with the general walk).
    use_fast_walk: bool,
    /// Which way the last message went.
    last_path: DecodePath,
    /// The vector decoder's positions and tags ([`simd::small_layout`]).
    small_scratch: Vec<simd::Chunk>,
    /// Per block: the SOH bits, and the bits of the `=` ending each tag.
    soh_bits: Vec<u64>,
    tag_end_bits: Vec<u64>,
    /// Positions of every SOH and of every tag-ending `=`, and the tags (fast walk).
    ends: Vec<u32>,
    eqs: Vec<u32>,
    tags: Vec<u32>,
    index: TagIndex,
    notes: WalkNotes,
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
struct WalkNotes {
    first_empty: u32,
}

/// Parses a tag of 1..=8 digits from the 8 bytes starting at it (little-endian
/// load), branch-free. `None` unless all `n` bytes are digits without a leading zero.
#[inline(always)]
fn parse_tag_swar(chunk: u64, n: usize) -> Option<u32> {
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const SIXES: u64 = 0x0606_0606_0606_0606;
    let shift = 64 - 8 * n as u32;
    // Move the digits to the top bytes; the low bytes become zero ("leading zeros").
    let x = chunk << shift;
    let zeros = ZEROS << shift;
    let nibbles = HIGH_NIBBLES << shift;
    let digits_ok = (x & nibbles) == zeros && (x.wrapping_add(SIXES << shift) & nibbles) == zeros;
    if !digits_ok || chunk as u8 == b'0' {
        return None;
    }
    let mut v = x - zeros;
    v = (v & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(2561) >> 8;
    v = (v & 0x00FF_00FF_00FF_00FF).wrapping_mul(6_553_601) >> 16;
    v = (v & 0x0000_FFFF_0000_FFFF).wrapping_mul(42_949_672_960_001) >> 32;
    Some(v as u32)
}

/// The scalar definition: 1..=9 digits, no leading zero.
fn parse_tag_scalar(t: &[u8]) -> Option<u32> {
    if t.is_empty() || t.len() > 9 || t[0] == b'0' {
        return None;
    }
    let mut v = 0u32;
    for &b in t {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + d as u32;
    }
    Some(v)
}

impl Decoder {
    /// A decoder with the given checks.
    pub fn new(config: DecoderConfig) -> Self {
        Decoder {
            config,
            // Room for every field of a small message (and the vector
            // decoder's whole-chunk writes past the last).
            entries: vec![simd::EntryChunk::default(); (simd::SMALL_MESSAGE + 16).div_ceil(16)],
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
    pub fn set_paths(&mut self, level: simd::Level, fast_walk: bool) {
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
    #[inline]
    pub fn decode<'a>(&'a mut self, msg: &'a [u8]) -> Result<MessageView<'a>, DecodeError> {
        // The view is made here, in the caller: returned whole from the decoding
        // function it would be written field by field and copied as a block,
        // and such a copy waits for the stores.
        let (fields, first_empty) = self.decode_core(msg)?;
        Ok(MessageView {
            msg,
            entries: &simd::entries(&self.entries)[..fields as usize],
            index: &self.index,
            first_empty,
        })
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
                &mut self.entries,
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
        if self.entries.len() * 16 < max_fields {
            self.entries
                .resize(max_fields.div_ceil(16), simd::EntryChunk::default());
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
        let entries = &simd::entries(&self.entries)[..fields];
        check_structure(&self.config, entries, msg, sum)?;
        let notes = self.notes;
        let first_empty = (notes.first_empty != 0).then_some(notes.first_empty);
        if self.config.reject_empty_values {
            if let Some(tag) = first_empty {
                return Err(DecodeError::EmptyValue { tag });
            }
        }
        Ok((fields as u32, first_empty))
    }

    /// The common case, without a serial dependency between fields:
    ///
    /// 1. Per 64-bit block of masks, the `=` ending every tag, found for all
    ///    fields at once: a field starts after each SOH (and at byte 0); adding
    ///    those start bits to the digit mask carries each through its run of
    ///    digits to the first non-digit, which must be `=`. The same block
    ///    arithmetic rejects empty tags and leading zeros and finds empty
    ///    values. The SOH and tag-ending `=` positions are then flattened
    ///    into two arrays ([`simd::bit_positions`]).
    /// 2. Every tag parsed on its own from its positions.
    /// 3. The index: a tight loop when every tag is below [`DIRECT_TAGS`] and
    ///    none announces a data field, the general insertion otherwise.
    ///
    /// Gives up (`None`) on anything unusual: a data-length tag, a tag that is
    /// not a number of at most 9 digits without a leading zero, a message not
    /// ending in SOH. The general walk then handles (and reports) it.
    #[inline(never)]
    fn fast_walk(&mut self, msg: &[u8], blocks: usize) -> Option<usize> {
        let len = msg.len();
        if msg.last() != Some(&SOH) {
            return None;
        }
        // Start bit carried from the previous block (byte 0 starts a field),
        // the carry of the start+digit addition, the last tag-end bit.
        let (mut start_in, mut add_in, mut eq_in) = (1u64, false, 0u64);
        let (mut bad, mut empty) = (0u64, 0u64);
        let last = blocks - 1;
        let words = self.masks[..blocks]
            .iter()
            .zip(self.soh_bits[..blocks].iter_mut())
            .zip(self.tag_end_bits[..blocks].iter_mut());
        for (w, ((m, soh_out), tag_end_out)) in words.enumerate() {
            let mut starts = (m.soh << 1) | start_in;
            start_in = m.soh >> 63;
            if w == last && !len.is_multiple_of(64) {
                // No field starts after the final SOH.
                starts &= (1u64 << (len % 64)) - 1;
            }
            let (sum, c1) = m.digit.overflowing_add(starts);
            let (sum, c2) = sum.overflowing_add(add_in as u64);
            add_in = c1 | c2;
            // The first non-digit after each start: the tag's end.
            let tag_ends = sum & !m.digit;
            // A tag starts with a digit other than '0' and ends with '='.
            bad |= (starts & (!m.digit | m.zero)) | (tag_ends & !m.eq);
            empty |= ((tag_ends << 1) | eq_in) & m.soh;
            eq_in = tag_ends >> 63;
            *soh_out = m.soh;
            *tag_end_out = tag_ends;
        }
        if bad != 0 {
            return None;
        }
        let level = self.level;
        let k = simd::bit_positions_at(level, &self.soh_bits[..blocks], &mut self.ends)?;
        let j = simd::bit_positions_at(level, &self.tag_end_bits[..blocks], &mut self.eqs)?;
        if k != j || k == 0 {
            return None;
        }
        // Tags: digits only, at least one, no leading zero (checked above).
        let (ends, eqs) = (&self.ends[..k], &self.eqs[..k]);
        match simd::tag_values_at(level, msg, ends, eqs, &mut self.tags) {
            Ok(()) => {}
            Err(simd::TagValuesError::Long) => long_tags(msg, ends, eqs, &mut self.tags)?,
            Err(simd::TagValuesError::NearEnd) => return None,
        }
        let entries = simd::entries_mut(&mut self.entries).get_mut(..k)?;
        let lengths = &self.config.data_fields.bitmap;
        let mut unusual = 0u64;
        for (((e, &tag), &end), &eq) in entries.iter_mut().zip(&self.tags).zip(ends).zip(eqs) {
            let t = tag as usize;
            unusual |= (t >= DIRECT_TAGS) as u64 | lengths[(t >> 6) & 15] >> (t & 63) & 1;
            *e = Entry {
                tag,
                start: eq + 1,
                end,
            };
        }
        if unusual == 0 {
            self.index.index_direct(entries);
        } else {
            let data_fields = &self.config.data_fields;
            if entries.iter().any(|e| data_fields.is_length_tag(e.tag)) {
                return None;
            }
            self.index.index_all(entries);
        }
        let first_empty = if empty != 0 {
            entries
                .iter()
                .find(|e| e.start == e.end)
                .map_or(0, |e| e.tag)
        } else {
            0
        };
        self.notes = WalkNotes { first_empty };
        Some(k)
    }

    #[inline(never)]
    fn walk(&mut self, msg: &[u8]) -> Result<usize, DecodeError> {
        let len = msg.len();
        let mut cursor = BitCursor::new(&self.masks);
        let entries = simd::entries_mut(&mut self.entries);
        let data_fields = &self.config.data_fields;
        let mut pos = 0usize;
        let mut n = 0usize;
        let mut any_empty = false;
        // The data tag announced by the previous field (0: none) and its length.
        let mut data_tag = 0u32;
        let mut data_len = 0usize;
        while pos < len {
            // The field ends at the next SOH, known from the masks: the walk's only
            // serial dependency is this bit scan, so fields are parsed in parallel.
            let Some(field_end) = cursor.next_from(pos) else {
                return Err(missing_equals_or_unterminated(msg, pos));
            };
            // Tag and '=': a 4-byte load covers tags of up to 3 digits (nearly all),
            // an 8-byte load up to 7; anything else takes the slow path.
            let (tag, eq) = match msg.get(pos..pos + 4) {
                Some(b) => {
                    let word = u32::from_le_bytes(b.try_into().expect("4 bytes"));
                    match first_equals_u32(word) {
                        Some(tag_len) if tag_len > 0 => {
                            (parse_tag_u32(word, tag_len), pos + tag_len)
                        }
                        _ => long_tag(msg, pos)?,
                    }
                }
                None => slow_tag(msg, pos)?,
            };
            let Some(tag) = tag.filter(|_| eq < field_end) else {
                return Err(tag_error(msg, pos, eq));
            };
            let value_start = eq + 1;
            let value_end = if tag == data_tag {
                // Raw data may hold SOH bytes: the value ends where its length says.
                let end = data_value_end(msg, value_start, data_len)
                    .ok_or(DecodeError::DataLengthMismatch { tag })?;
                if end != field_end && cursor.next_from(end) != Some(end) {
                    return Err(DecodeError::DataLengthMismatch { tag });
                }
                end
            } else {
                field_end
            };
            data_tag = 0;
            any_empty |= value_end == value_start;
            if data_fields.may_be_length_tag(tag) {
                if let Some(d) = data_fields.data_tag_for(tag) {
                    data_len = data_length(&msg[value_start..value_end])
                        .ok_or(DecodeError::InvalidDataLength { tag })?;
                    data_tag = d;
                }
            }
            entries[n] = Entry {
                tag,
                start: value_start as u32,
                end: value_end as u32,
            };
            n += 1;
            pos = value_end + 1;
        }
        let first_empty = if any_empty {
            entries[..n]
                .iter()
                .find(|e| e.start == e.end)
                .map(|e| e.tag)
        } else {
            None
        };
        self.index.index_all(&entries[..n]);
        self.notes = WalkNotes {
            first_empty: first_empty.unwrap_or(0),
        };
        Ok(n)
    }
}

/// Walks the set bits of the SOH masks in order, consuming them.
struct BitCursor<'m> {
    masks: &'m [BlockMasks],
    word: usize,
    bits: u64,
}

impl<'m> BitCursor<'m> {
    fn new(masks: &'m [BlockMasks]) -> Self {
        BitCursor {
            masks,
            word: 0,
            bits: masks.first().map_or(0, |m| m.soh),
        }
    }

    /// The first set bit at or after `from`; bits before it are consumed.
    #[inline(always)]
    fn next_from(&mut self, from: usize) -> Option<usize> {
        loop {
            while self.bits == 0 {
                self.word += 1;
                self.bits = self.masks.get(self.word)?.soh;
            }
            let p = self.word * 64 + self.bits.trailing_zeros() as usize;
            self.bits &= self.bits - 1;
            if p >= from {
                return Some(p);
            }
        }
    }
}

/// Parses every tag (up to nine digits) when some are longer than the four
/// digits [`simd::tag_values`] handles.
#[cold]
fn long_tags(msg: &[u8], ends: &[u32], eqs: &[u32], tags: &mut [u32]) -> Option<()> {
    let mut start = 0usize;
    for ((t, &end), &eq) in tags.iter_mut().zip(ends).zip(eqs) {
        *t = parse_tag_scalar(msg.get(start..eq as usize)?)?;
        start = end as usize + 1;
    }
    Some(())
}

/// Index of the first `=` byte in a little-endian 4-byte word.
#[inline(always)]
fn first_equals_u32(word: u32) -> Option<usize> {
    let x = word ^ 0x3D3D_3D3D;
    let found = x.wrapping_sub(0x0101_0101) & !x & 0x8080_8080;
    (found != 0).then(|| (found.trailing_zeros() / 8) as usize)
}

/// Parses a tag of 1..=3 digits from the 4 bytes starting at it (little-endian
/// load), branch-free. `None` unless all `n` bytes are digits without a leading zero.
#[inline(always)]
fn parse_tag_u32(word: u32, n: usize) -> Option<u32> {
    let shift = 32 - 8 * n as u32;
    // Digits to the top bytes; the low bytes become zero ("leading zeros").
    let x = word << shift;
    let zeros = 0x3030_3030u32 << shift;
    let nibbles = 0xF0F0_F0F0u32 << shift;
    let digits_ok =
        (x & nibbles) == zeros && (x.wrapping_add(0x0606_0606u32 << shift) & nibbles) == zeros;
    if !digits_ok || word as u8 == b'0' {
        return None;
    }
    let d = x - zeros;
    // Bytes b0..b3 (b0 most significant): pairs, then the two pairs.
    let pairs = (d.wrapping_mul(10).wrapping_add(d >> 8)) & 0x00FF_00FF;
    Some((pairs & 0xFF) * 100 + (pairs >> 16))
}

/// Tags of 4 to 7 digits through one 8-byte load; longer ones through the slow path.
#[inline(never)]
fn long_tag(msg: &[u8], pos: usize) -> Result<(Option<u32>, usize), DecodeError> {
    if let Some(b) = msg.get(pos..pos + 8) {
        let chunk = u64::from_le_bytes(b.try_into().expect("8 bytes"));
        if let Some(tag_len) = first_equals(chunk).filter(|&l| l > 0) {
            return Ok((parse_tag_swar(chunk, tag_len), pos + tag_len));
        }
    }
    slow_tag(msg, pos)
}

/// Index of the first `=` byte in a little-endian 8-byte chunk.
#[inline(always)]
fn first_equals(chunk: u64) -> Option<usize> {
    const EQ: u64 = 0x3D3D_3D3D_3D3D_3D3D;
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let x = chunk ^ EQ;
    // Sets the high bit of the first zero byte exactly (later bytes may be false positives).
    let found = x.wrapping_sub(ONES) & !x & HIGHS;
    (found != 0).then(|| (found.trailing_zeros() / 8) as usize)
}

/// The tag of the field at `pos` and the position of its `=`, for fields the
/// fast path cannot take (long tags, the last bytes of the message).
#[cold]
fn slow_tag(msg: &[u8], pos: usize) -> Result<(Option<u32>, usize), DecodeError> {
    let rest = &msg[pos..];
    match rest.iter().position(|&b| b == b'=' || b == SOH) {
        Some(i) if rest[i] == b'=' => Ok((parse_tag_scalar(&rest[..i]), pos + i)),
        Some(_) => Err(DecodeError::MissingEquals { offset: pos }),
        None => Err(missing_equals_or_unterminated(msg, pos)),
    }
}

/// End of a data field's value, if exactly `len` bytes are followed by SOH.
#[cold]
fn data_value_end(msg: &[u8], value_start: usize, len: usize) -> Option<usize> {
    let e = value_start.checked_add(len)?;
    (e < msg.len() && msg[e] == SOH).then_some(e)
}

#[cold]
fn data_length(v: &[u8]) -> Option<usize> {
    value::parse_u64(v)
        .ok()
        .and_then(|n| usize::try_from(n).ok())
}

/// The error for a field whose tag bytes `msg[pos..eq]` did not parse.
#[cold]
fn tag_error(msg: &[u8], pos: usize, eq: usize) -> DecodeError {
    if msg[pos..eq].contains(&SOH) {
        DecodeError::MissingEquals { offset: pos }
    } else {
        DecodeError::InvalidTag { offset: pos }
    }
}

/// The error for a field at `pos` with no `=` after it.
#[cold]
fn missing_equals_or_unterminated(msg: &[u8], pos: usize) -> DecodeError {
    if msg[pos..].contains(&SOH) {
        DecodeError::MissingEquals { offset: pos }
    } else {
        DecodeError::Unterminated { offset: pos }
    }
}

/// BodyLength's value: 1 to 9 digits (more is never a real message), so no
/// overflow check per digit.
#[inline]
fn body_length(v: &[u8]) -> Option<usize> {
    if v.is_empty() || v.len() > 9 {
        return None;
    }
    let mut n = 0usize;
    for &b in v {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n * 10 + d as usize;
    }
    Some(n)
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

fn check_structure(
    config: &DecoderConfig,
    e: &[Entry],
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn swar_tag_parse_agrees_with_scalar(bytes in proptest::collection::vec(
            prop_oneof![b'0'..=b'9', Just(b'='), Just(b'/'), Just(b':'), any::<u8>()], 8..9), n in 1usize..=8) {
            let chunk = u64::from_le_bytes(bytes[..8].try_into().unwrap());
            prop_assert_eq!(parse_tag_swar(chunk, n), parse_tag_scalar(&bytes[..n]));
        }

        #[test]
        fn u32_tag_parse_agrees_with_scalar(bytes in proptest::collection::vec(
            prop_oneof![b'0'..=b'9', Just(b'='), Just(b'/'), Just(b':'), any::<u8>()], 4..5), n in 1usize..=3) {
            let word = u32::from_le_bytes(bytes[..4].try_into().unwrap());
            prop_assert_eq!(parse_tag_u32(word, n), parse_tag_scalar(&bytes[..n]));
        }

        #[test]
        fn swar_parses_every_tag(tag in 1u32..100_000_000) {
            let mut b = tag.to_string().into_bytes();
            let n = b.len();
            b.resize(8, b'=');
            let chunk = u64::from_le_bytes(b[..8].try_into().unwrap());
            prop_assert_eq!(parse_tag_swar(chunk, n), Some(tag));
        }
    }
}

/// One field: its tag and its value bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    /// The tag number.
    pub tag: u32,
    /// The value, without `=` and SOH.
    pub value: &'a [u8],
}

/// A decoded message: a zero-copy index over its bytes.
///
/// Lookups by tag are O(1) (a hash of the tags of this message only); fields
/// are also reachable in wire order, repeated tags in order, and repeating
/// groups through [`MessageView::group`].
#[derive(Clone, Copy)]
pub struct MessageView<'a> {
    msg: &'a [u8],
    entries: &'a [Entry],
    index: &'a TagIndex,
    first_empty: Option<u32>,
}

impl fmt::Debug for MessageView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(
                self.fields()
                    .map(|fl| format!("{}={}", fl.tag, String::from_utf8_lossy(fl.value))),
            )
            .finish()
    }
}

impl<'a> MessageView<'a> {
    /// The whole message as received.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.msg
    }

    /// Number of fields, header and trailer included.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false for a decoded message (it has at least 8, 9, 35 and 10).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The `i`-th field in wire order.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn field(&self, i: usize) -> Field<'a> {
        let e = self.entries[i];
        Field {
            tag: e.tag,
            value: &self.msg[e.start as usize..e.end as usize],
        }
    }

    /// All fields in wire order.
    pub fn fields(&self) -> FieldIter<'a> {
        FieldIter {
            msg: self.msg,
            entries: self.entries.iter(),
        }
    }

    /// The fields as a [`FieldSlice`] (for group walking).
    pub fn as_slice(&self) -> FieldSlice<'a> {
        FieldSlice {
            msg: self.msg,
            entries: self.entries,
        }
    }

    /// Index (in wire order) of the first field with this tag.
    #[inline]
    pub fn position(&self, tag: u32) -> Option<usize> {
        self.index.find(tag).map(|first| first as usize)
    }

    /// Value of the first field with this tag.
    #[inline]
    pub fn get(&self, tag: u32) -> Option<&'a [u8]> {
        let e = self.entries[self.index.find(tag)? as usize];
        Some(&self.msg[e.start as usize..e.end as usize])
    }

    /// Whether the tag is present.
    #[inline]
    pub fn contains(&self, tag: u32) -> bool {
        self.index.find(tag).is_some()
    }

    /// Values of every field with this tag, in wire order.
    pub fn get_all(&self, tag: u32) -> TagIter<'a> {
        // From the first occurrence on (the rest of the message is scanned).
        let from = self
            .index
            .find(tag)
            .map_or(self.entries.len(), |i| i as usize);
        TagIter {
            msg: self.msg,
            rest: self.entries[from..].iter(),
            tag,
        }
    }

    /// How many fields carry this tag.
    pub fn count(&self, tag: u32) -> usize {
        self.get_all(tag).count()
    }

    /// The tag of the first field (in wire order) that repeats an earlier
    /// tag. Found on demand: the fields are checked against the index of
    /// first occurrences (work proportional to the message).
    pub fn first_repeated_tag(&self) -> Option<u32> {
        self.entries
            .iter()
            .enumerate()
            .find(|&(i, e)| self.index.find(e.tag) != Some(i as u32))
            .map(|(_, e)| e.tag)
    }

    /// The first tag whose value was empty, if any.
    pub fn first_empty_value(&self) -> Option<u32> {
        self.first_empty
    }

    /// BeginString(8).
    pub fn begin_string(&self) -> &'a [u8] {
        self.field(0).value
    }

    /// MsgType(35).
    pub fn msg_type(&self) -> &'a [u8] {
        self.field(2).value
    }

    /// The first value of `tag` parsed as `T`: `None` when absent.
    ///
    /// ```
    /// use peregrine_codec::{Decoder, DecoderConfig, value::Decimal};
    /// let msg = b"8=FIX.4.4\x019=20\x0135=D\x0144=150.50\x0138=7\x0110=147\x01";
    /// let mut d = Decoder::new(DecoderConfig { validate_checksum: false, ..Default::default() });
    /// let v = d.decode(msg).unwrap();
    /// assert_eq!(v.get_as::<Decimal>(44), Some(Ok(Decimal::new(15050, 2))));
    /// assert_eq!(v.get_as::<u64>(38), Some(Ok(7)));
    /// assert_eq!(v.get_as::<u64>(99), None);
    /// ```
    pub fn get_as<T: FromFixValue<'a>>(&self, tag: u32) -> Option<Result<T, ValueError>> {
        self.get(tag).map(T::from_fix_value)
    }

    /// The repeating group whose NumInGroup field is `count_tag` (first occurrence),
    /// with `is_member` telling which tags belong to an entry (nested groups'
    /// tags included). The first field after the count is the delimiter that
    /// starts each entry. `None` when the count field is absent.
    ///
    /// ```
    /// use peregrine_codec::{Decoder, DecoderConfig};
    /// let msg = b"8=FIX.4.4\x019=34\x0135=V\x01267=2\x01269=0\x01269=1\x01146=1\x0155=X\x0110=000\x01";
    /// let mut d = Decoder::new(DecoderConfig { validate_checksum: false, ..Default::default() });
    /// let v = d.decode(msg).unwrap();
    /// let g = v.group(267, |t| t == 269).unwrap();
    /// assert_eq!(g.declared_count(), Ok(2));
    /// let types: Vec<_> = g.entries().map(|e| e.get(269).unwrap()).collect();
    /// assert_eq!(types, [&b"0"[..], b"1"]);
    /// ```
    pub fn group<F: Fn(u32) -> bool>(&self, count_tag: u32, is_member: F) -> Option<Group<'a, F>> {
        let pos = self.position(count_tag)?;
        Some(self.as_slice().group_at(pos, is_member))
    }
}

/// Converts a field value into a typed value.
pub trait FromFixValue<'a>: Sized {
    /// Parses the value bytes.
    fn from_fix_value(v: &'a [u8]) -> Result<Self, ValueError>;
}

impl<'a> FromFixValue<'a> for &'a [u8] {
    fn from_fix_value(v: &'a [u8]) -> Result<Self, ValueError> {
        Ok(v)
    }
}
impl<'a> FromFixValue<'a> for &'a str {
    fn from_fix_value(v: &'a [u8]) -> Result<Self, ValueError> {
        std::str::from_utf8(v).map_err(|e| ValueError::InvalidByte {
            offset: e.valid_up_to(),
        })
    }
}
impl FromFixValue<'_> for u64 {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_u64(v)
    }
}
impl FromFixValue<'_> for u32 {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        u32::try_from(value::parse_u64(v)?).map_err(|_| ValueError::Overflow)
    }
}
impl FromFixValue<'_> for i64 {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_i64(v)
    }
}
impl FromFixValue<'_> for i32 {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        i32::try_from(value::parse_i64(v)?).map_err(|_| ValueError::Overflow)
    }
}
impl FromFixValue<'_> for bool {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_bool(v)
    }
}
impl FromFixValue<'_> for char {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_char(v).map(char::from)
    }
}
impl FromFixValue<'_> for value::Decimal {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_decimal(v)
    }
}
impl FromFixValue<'_> for value::UtcTimestamp {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_timestamp(v)
    }
}
impl FromFixValue<'_> for value::Date {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_date(v)
    }
}
impl FromFixValue<'_> for value::TimeOfDay {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_time(v)
    }
}
impl FromFixValue<'_> for value::MonthYear {
    fn from_fix_value(v: &[u8]) -> Result<Self, ValueError> {
        value::parse_month_year(v)
    }
}

/// Iterator over fields in wire order.
#[derive(Clone, Debug)]
pub struct FieldIter<'a> {
    msg: &'a [u8],
    entries: std::slice::Iter<'a, Entry>,
}

impl<'a> Iterator for FieldIter<'a> {
    type Item = Field<'a>;
    #[inline]
    fn next(&mut self) -> Option<Field<'a>> {
        let e = self.entries.next()?;
        Some(Field {
            tag: e.tag,
            value: &self.msg[e.start as usize..e.end as usize],
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl ExactSizeIterator for FieldIter<'_> {}

/// Iterator over the values of one repeated tag.
#[derive(Clone, Debug)]
pub struct TagIter<'a> {
    msg: &'a [u8],
    rest: std::slice::Iter<'a, Entry>,
    tag: u32,
}

impl<'a> Iterator for TagIter<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        let tag = self.tag;
        let e = self.rest.find(|e| e.tag == tag)?;
        Some(&self.msg[e.start as usize..e.end as usize])
    }
}

/// A contiguous run of fields (a whole message, or one group entry).
/// Lookups here are linear: group entries are short.
#[derive(Clone, Copy)]
pub struct FieldSlice<'a> {
    msg: &'a [u8],
    entries: &'a [Entry],
}

impl fmt::Debug for FieldSlice<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(
                self.iter()
                    .map(|fl| format!("{}={}", fl.tag, String::from_utf8_lossy(fl.value))),
            )
            .finish()
    }
}

impl<'a> FieldSlice<'a> {
    /// Number of fields.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it has no fields.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The `i`-th field.
    ///
    /// # Panics
    /// If `i >= self.len()`.
    pub fn field(&self, i: usize) -> Field<'a> {
        let e = self.entries[i];
        Field {
            tag: e.tag,
            value: &self.msg[e.start as usize..e.end as usize],
        }
    }

    /// The fields in order.
    pub fn iter(&self) -> FieldIter<'a> {
        FieldIter {
            msg: self.msg,
            entries: self.entries.iter(),
        }
    }

    /// Index of the first field with this tag in this slice.
    pub fn position(&self, tag: u32) -> Option<usize> {
        self.entries.iter().position(|e| e.tag == tag)
    }

    /// Value of the first field with this tag in this slice.
    pub fn get(&self, tag: u32) -> Option<&'a [u8]> {
        self.position(tag).map(|i| self.field(i).value)
    }

    /// The first value of `tag` parsed as `T`.
    pub fn get_as<T: FromFixValue<'a>>(&self, tag: u32) -> Option<Result<T, ValueError>> {
        self.get(tag).map(T::from_fix_value)
    }

    /// A nested repeating group inside this slice (see [`MessageView::group`]).
    pub fn group<F: Fn(u32) -> bool>(&self, count_tag: u32, is_member: F) -> Option<Group<'a, F>> {
        let pos = self.position(count_tag)?;
        Some(self.group_at(pos, is_member))
    }

    /// The repeating group whose NumInGroup field is the field at `pos`.
    pub fn group_at<F: Fn(u32) -> bool>(&self, pos: usize, is_member: F) -> Group<'a, F> {
        let count = self.field(pos);
        let body_start = pos + 1;
        let delimiter = self
            .entries
            .get(body_start)
            .map(|e| e.tag)
            .filter(|&t| is_member(t));
        // The group extends while fields are members.
        let mut end = body_start;
        if delimiter.is_some() {
            while end < self.entries.len() && is_member(self.entries[end].tag) {
                end += 1;
            }
        }
        Group {
            count_value: count.value,
            slice: FieldSlice {
                msg: self.msg,
                entries: &self.entries[body_start..end],
            },
            delimiter,
            is_member,
        }
    }
}

/// A repeating group: its declared count and its entries.
pub struct Group<'a, F> {
    count_value: &'a [u8],
    slice: FieldSlice<'a>,
    delimiter: Option<u32>,
    is_member: F,
}

impl<'a, F: Fn(u32) -> bool> Group<'a, F> {
    /// The NumInGroup value as sent.
    pub fn declared_count(&self) -> Result<u64, ValueError> {
        value::parse_u64(self.count_value)
    }

    /// The delimiter (first field of every entry), if the group has any field.
    pub fn delimiter(&self) -> Option<u32> {
        self.delimiter
    }

    /// All fields of all entries.
    pub fn fields(&self) -> FieldSlice<'a> {
        self.slice
    }

    /// Whether `tag` belongs to this group.
    pub fn is_member(&self, tag: u32) -> bool {
        (self.is_member)(tag)
    }

    /// The entries, each starting at a delimiter field.
    pub fn entries(&self) -> GroupEntries<'a> {
        GroupEntries {
            rest: self.slice,
            delimiter: self.delimiter,
        }
    }

    /// Number of entries actually present.
    pub fn actual_count(&self) -> usize {
        self.entries().count()
    }
}

/// Iterator over the entries of a [`Group`].
#[derive(Clone, Copy, Debug)]
pub struct GroupEntries<'a> {
    rest: FieldSlice<'a>,
    delimiter: Option<u32>,
}

impl<'a> Iterator for GroupEntries<'a> {
    type Item = FieldSlice<'a>;
    fn next(&mut self) -> Option<FieldSlice<'a>> {
        let delim = self.delimiter?;
        if self.rest.is_empty() {
            return None;
        }
        let e = self.rest.entries;
        let end = e[1..]
            .iter()
            .position(|x| x.tag == delim)
            .map_or(e.len(), |p| p + 1);
        let (entry, rest) = e.split_at(end);
        self.rest.entries = rest;
        Some(FieldSlice {
            msg: self.rest.msg,
            entries: entry,
        })
    }
}

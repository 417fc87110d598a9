//! The decoder's two field walks: the fast walk (every field found at once
//! from the block masks, no dependency from one field to the next) and the
//! general walk (data fields, malformed input, and the precise error).

use super::decoder::{Decoder, WalkNotes};
use super::index::DIRECT_TAGS;
use super::tag_parse::{
    data_length, data_value_end, first_equals_u32, long_tag, long_tags,
    missing_equals_or_unterminated, parse_tag_u32, slow_tag, tag_error,
};
use super::DecodeError;
use crate::simd::{self, BlockMasks};
use crate::span::FieldSpan;
use crate::SOH;

impl Decoder {
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
    pub(super) fn fast_walk(&mut self, msg: &[u8], blocks: usize) -> Option<usize> {
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
        let spans = simd::spans_mut(&mut self.spans).get_mut(..k)?;
        let lengths = &self.config.data_fields.bitmap;
        let mut unusual = 0u64;
        for (((span, &tag), &end), &eq) in spans.iter_mut().zip(&self.tags).zip(ends).zip(eqs) {
            let t = tag as usize;
            unusual |= (t >= DIRECT_TAGS) as u64 | lengths[(t >> 6) & 15] >> (t & 63) & 1;
            *span = FieldSpan {
                tag,
                start: eq + 1,
                end,
            };
        }
        if unusual == 0 {
            self.index.index_direct(spans);
        } else {
            let data_fields = &self.config.data_fields;
            if spans.iter().any(|e| data_fields.is_length_tag(e.tag)) {
                return None;
            }
            self.index.index_all(spans);
        }
        let first_empty = if empty != 0 {
            spans.iter().find(|e| e.start == e.end).map_or(0, |e| e.tag)
        } else {
            0
        };
        self.notes = WalkNotes { first_empty };
        Some(k)
    }

    /// The general walk: field by field, honouring data fields (whose raw
    /// value may hold SOH) and reporting the precise error of a malformed
    /// message. Returns the number of fields.
    #[inline(never)]
    pub(super) fn walk(&mut self, msg: &[u8]) -> Result<usize, DecodeError> {
        let len = msg.len();
        let mut cursor = BitCursor::new(&self.masks);
        let spans = simd::spans_mut(&mut self.spans);
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
            spans[n] = FieldSpan {
                tag,
                start: value_start as u32,
                end: value_end as u32,
            };
            n += 1;
            pos = value_end + 1;
        }
        let first_empty = if any_empty {
            spans[..n].iter().find(|e| e.start == e.end).map(|e| e.tag)
        } else {
            None
        };
        self.index.index_all(&spans[..n]);
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

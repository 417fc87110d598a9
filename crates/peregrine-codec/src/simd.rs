//! Vectorised scans: with the encoder's output cursor (`out.rs`), the only
//! code of the codec that uses `unsafe`.
//!
//! A private module: the crate re-exports which implementation this CPU runs
//! ([`Level`], [`detected_level`], [`supported`]). The scans themselves are the
//! codec's own (the benchmarks reach two of them through the hidden
//! `peregrine_codec::__bench`, which is not API).
//!
//! Each scan has run-time detected vector paths (AVX-512 with BW, VBMI
//! and VBMI2; AVX2; SSE2) and a scalar fallback that defines its meaning:
//!
//! * `field_masks_and_sum`: for every 64-byte block of the input, bit masks
//!   (`BlockMasks`) of the positions holding SOH (0x01), `=`, ASCII digits
//!   and `0`, and the wrapping byte sum of the input (the FIX CheckSum is that
//!   sum modulo 256). One pass serves the field walk, tag syntax and the checksum.
//! * `bit_positions`: the positions of the set bits of a run of masks, in order.
//! * `tag_values`: the values of all tags of a message at once.
//! * `byte_sum` and `ByteSum`: the byte sum alone (for the encoder's CheckSum).
//! * `small_layout`: the decoder's one-pass path for messages
//!   of up to 256 bytes on AVX-512 — masks, tags, field spans and the tag index,
//!   the message held in four registers and every value kept in registers
//!   between steps (a vector stored and read back as scalars, or a load
//!   spanning several vector stores, waits for the stores to reach the cache;
//!   the chunked writes here are read back whole).
//!
//! Safety argument for every `unsafe` block below (each block's `SAFETY:`
//! comment gives its own case, each kernel its contract): the intrinsics are only
//! called after run-time detection confirmed the CPU supports them, and every
//! load reads a full 16/32/64-byte lane strictly inside the slice
//! (`chunks_exact`), inside a zero-padded copy of the last partial block, or
//! is an AVX-512 masked load whose masked-off bytes are not accessed; stores
//! stay inside tables whose slack each function states and checks. The
//! property tests at the bottom (and `tests/paths_agree.rs`, which runs the
//! decoder at every level against its general walk) check that each vector
//! path agrees with the scalar definition.
#![allow(unsafe_code)]

use crate::span::{FieldSpan, SpanChunk};
use crate::SOH;

/// An implementation of the codec's vector scans, from the plainest to the
/// widest; [`detected_level`] says which one this CPU runs.
///
/// ```
/// use peregrine_codec::{detected_level, Level};
/// // A report of where a benchmark ran:
/// let simd = match detected_level() {
///     Level::Avx512 => "AVX-512",
///     Level::Avx2 => "AVX2",
///     Level::Sse2 => "SSE2",
///     Level::Scalar => "none",
/// };
/// assert!(!simd.is_empty());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Plain Rust loops.
    Scalar,
    /// 16-byte SSE2 lanes.
    Sse2,
    /// 32-byte AVX2 lanes.
    Avx2,
    /// 64-byte AVX-512 (F, BW, VBMI, VBMI2) lanes, masked loads for the last
    /// block, byte compression for bit positions, byte permutes for tags.
    Avx512,
}

/// The best implementation this CPU supports: the one every [`Decoder`](crate::Decoder)
/// and [`EncodeBuffer`](crate::EncodeBuffer) uses. Detected once, then cached.
///
/// ```
/// use peregrine_codec::{detected_level, supported, Level};
/// let level = detected_level();
/// assert!(supported(level));
/// #[cfg(target_arch = "x86_64")]
/// assert_ne!(level, Level::Scalar); // every x86-64 CPU has SSE2
/// ```
#[inline]
pub fn detected_level() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::atomic::{AtomicU8, Ordering};
        static CACHE: AtomicU8 = AtomicU8::new(0);
        match CACHE.load(Ordering::Relaxed) {
            1 => return Level::Scalar,
            2 => return Level::Sse2,
            3 => return Level::Avx2,
            4 => return Level::Avx512,
            _ => {}
        }
        let level = if supported(Level::Avx512) {
            Level::Avx512
        } else if supported(Level::Avx2) {
            Level::Avx2
        } else if supported(Level::Sse2) {
            Level::Sse2
        } else {
            Level::Scalar
        };
        let code = match level {
            Level::Scalar => 1,
            Level::Sse2 => 2,
            Level::Avx2 => 3,
            Level::Avx512 => 4,
        };
        CACHE.store(code, Ordering::Relaxed);
        level
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Level::Scalar
    }
}

/// Whether this CPU can run `level`, from the cached detection (cheap
/// enough for every call: each level implies the ones below it).
#[inline(always)]
fn available(level: Level) -> bool {
    fn rank(l: Level) -> u8 {
        match l {
            Level::Scalar => 0,
            Level::Sse2 => 1,
            Level::Avx2 => 2,
            Level::Avx512 => 3,
        }
    }
    rank(level) <= rank(detected_level())
}

/// Whether this CPU can run `level` (asks the CPU each time; see
/// [`detected_level`] for the cached answer).
///
/// ```
/// use peregrine_codec::{supported, Level};
/// assert!(supported(Level::Scalar)); // everywhere
/// #[cfg(target_arch = "x86_64")]
/// assert!(supported(Level::Sse2)); // part of x86-64 itself
/// ```
pub fn supported(level: Level) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match level {
            Level::Scalar => true,
            Level::Sse2 => std::is_x86_feature_detected!("sse2"),
            Level::Avx2 => std::is_x86_feature_detected!("avx2"),
            Level::Avx512 => {
                std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw")
                    && std::is_x86_feature_detected!("avx512vbmi")
                    && std::is_x86_feature_detected!("avx512vbmi2")
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        level == Level::Scalar
    }
}

/// Bit masks of one 64-byte block of a message: bit `i` stands for byte `i`
/// of the block. Bytes past the end of the input are in no mask.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockMasks {
    /// SOH (0x01) bytes.
    pub soh: u64,
    /// `=` bytes.
    pub eq: u64,
    /// ASCII digits `0`..=`9`.
    pub digit: u64,
    /// `0` bytes (a tag must not start with one).
    pub zero: u64,
}

/// Writes the [`BlockMasks`] of every 64-byte block of `input` into `out`
/// (at least `input.len().div_ceil(64)` of them) and returns the wrapping sum
/// of all bytes.
///
/// ```
/// use peregrine_codec::__bench::{field_masks_and_sum, BlockMasks};
/// let mut masks = [BlockMasks::default(); 1];
/// let sum = field_masks_and_sum(b"35=D\x01", &mut masks);
/// assert_eq!(masks[0], BlockMasks { soh: 0b10000, eq: 0b100, digit: 0b11, zero: 0 });
/// assert_eq!(sum, (b'3' + b'5' + b'=' + b'D' + 1) as u32);
/// ```
#[doc(hidden)]
#[inline]
pub fn field_masks_and_sum(input: &[u8], out: &mut [BlockMasks]) -> u32 {
    field_masks_and_sum_at(detected_level(), input, out)
}

/// [`field_masks_and_sum`] with an explicit implementation (for tests and benchmarks).
///
/// A `level` the CPU does not support falls back to the scalar code.
pub(crate) fn field_masks_and_sum_at(level: Level, input: &[u8], out: &mut [BlockMasks]) -> u32 {
    let blocks = input.len().div_ceil(64);
    assert!(out.len() >= blocks, "mask buffer too small");
    #[cfg(target_arch = "x86_64")]
    {
        if level == Level::Avx512 && available(Level::Avx512) {
            // SAFETY: the kernel needs AVX-512F/BW, which `available` has
            // just confirmed on this CPU (`supported(Avx512)` tests F, BW,
            // VBMI and VBMI2). It reads only inside `input` (whole
            // `chunks_exact` blocks, then a masked load of exactly the tail's
            // bytes) and writes `out[..blocks]`, which the assert above
            // guarantees exists.
            return unsafe { x86::mask_sum_avx512(input, out) };
        }
        if level == Level::Avx2 && available(Level::Avx2) {
            // SAFETY: the kernel needs AVX2, which `available` has just
            // confirmed. Its loads stay inside `input`'s `chunks_exact`
            // blocks, a zero-padded copy of the tail, or `TAIL_MASK` (its
            // contract), and it writes `out[..blocks]`, asserted above.
            return unsafe { x86::mask_sum_avx2(input, out) };
        }
        if level != Level::Scalar && available(Level::Sse2) {
            // SAFETY: the kernel needs SSE2, which `available` has just
            // confirmed. It loads only `input`'s `chunks_exact` blocks and a
            // zero-padded copy of the tail, and writes `out[..blocks]`,
            // asserted above.
            return unsafe { x86::mask_sum_sse2(input, out) };
        }
    }
    let _ = level;
    scalar_masks_and_sum(input, out)
}

/// Wrapping sum of all bytes of `input`.
#[inline]
pub(crate) fn byte_sum(input: &[u8]) -> u32 {
    byte_sum_at(detected_level(), input)
}

/// [`byte_sum`] with an explicit implementation.
pub(crate) fn byte_sum_at(level: Level, input: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if (level == Level::Avx2 || level == Level::Avx512) && available(Level::Avx2) {
            // SAFETY: the kernel needs AVX2, which `available` has just
            // confirmed; it reads only inside `input`, a zero-padded copy of
            // its tail and `TAIL_MASK` (its contract), and writes nothing
            // but its locals.
            return unsafe { x86::sum_avx2(input) };
        }
        if level != Level::Scalar && available(Level::Sse2) {
            // SAFETY: the kernel needs SSE2, which `available` has just
            // confirmed; it reads only `input`'s `chunks_exact` blocks and a
            // zero-padded copy of the tail, and writes nothing but its locals.
            return unsafe { x86::sum_sse2(input) };
        }
    }
    let _ = level;
    scalar_sum(input)
}

/// A running byte sum for the encoder's CheckSum, fed from the words the
/// encoder writes while they are still in registers: summing the finished
/// message would read back bytes just stored, and such a load waits until
/// the stores reach the cache (a quarter of the encoding time of a
/// NewOrderSingle on this project's machines).
///
/// Words go into sixteen byte lanes added modulo 256 (one SSE2 add on
/// x86-64, whose baseline includes SSE2; a carry-free SWAR add elsewhere),
/// single bytes into a scalar; only the total modulo 256 is kept exact,
/// which is all the CheckSum needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ByteSum {
    #[cfg(target_arch = "x86_64")]
    lanes: std::arch::x86_64::__m128i,
    #[cfg(not(target_arch = "x86_64"))]
    lanes: u64,
    scalar: u32,
}

impl Default for ByteSum {
    fn default() -> Self {
        ByteSum::new()
    }
}

impl ByteSum {
    /// An empty sum.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        ByteSum {
            // SAFETY: SSE2 is part of the x86-64 baseline (every x86_64
            // target enables it), so the intrinsic is always available; it
            // only makes a register value and touches no memory.
            #[cfg(target_arch = "x86_64")]
            lanes: unsafe { std::arch::x86_64::_mm_setzero_si128() },
            #[cfg(not(target_arch = "x86_64"))]
            lanes: 0,
            scalar: 0,
        }
    }

    /// Adds the eight bytes of `w` (zero bytes add nothing).
    #[inline(always)]
    pub(crate) fn add_word(&mut self, w: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            // SAFETY: SSE2 is part of the x86-64 baseline (every x86_64
            // target enables it); these intrinsics work on register values
            // only and touch no memory.
            self.lanes = unsafe { _mm_add_epi8(self.lanes, _mm_cvtsi64_si128(w as i64)) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.lanes = add_bytes_swar(self.lanes, w);
        }
    }

    /// Adds the sixteen bytes of `lo` and `hi`.
    #[inline(always)]
    pub(crate) fn add_words(&mut self, lo: u64, hi: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            // SAFETY: as in `add_word`: baseline SSE2, register values only.
            self.lanes = unsafe { _mm_add_epi8(self.lanes, _mm_set_epi64x(hi as i64, lo as i64)) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.add_word(lo);
            self.add_word(hi);
        }
    }

    /// Adds one byte (or any small number: the sum of several bytes).
    #[inline(always)]
    pub(crate) fn add_byte(&mut self, b: u32) {
        self.scalar = self.scalar.wrapping_add(b);
    }

    /// The sum of everything added, modulo 256.
    #[inline(always)]
    pub(crate) fn total(self) -> u8 {
        #[cfg(target_arch = "x86_64")]
        let lanes = {
            use std::arch::x86_64::*;
            // SAFETY: as in `add_word`: baseline SSE2, register values only
            // (`_mm_extract_epi16` with a constant lane index in range).
            unsafe {
                let s = _mm_sad_epu8(self.lanes, _mm_setzero_si128());
                (_mm_cvtsi128_si64(s) as u64).wrapping_add(_mm_extract_epi16(s, 4) as u64)
            }
        };
        #[cfg(not(target_arch = "x86_64"))]
        let lanes = self
            .lanes
            .to_le_bytes()
            .iter()
            .map(|&b| b as u64)
            .sum::<u64>();
        (lanes as u32).wrapping_add(self.scalar) as u8
    }
}

/// Byte-wise addition modulo 256 in a general register: add the low seven
/// bits of each byte, then put the top bits back without a carry.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn add_bytes_swar(a: u64, b: u64) -> u64 {
    const H: u64 = 0x8080_8080_8080_8080;
    ((a & !H) + (b & !H)) ^ ((a ^ b) & H)
}

/// Slots of `out` that [`bit_positions`] may write past the positions it returns.
pub(crate) const POSITIONS_SLACK: usize = 64;

/// Writes, for every set bit `i` of every word `w` of `words`, the position
/// `64 * w + i` into `out`, in increasing order, and returns how many there
/// are. `out` needs [`POSITIONS_SLACK`] slots beyond that count: the slots
/// after the last position are scribbled on. `None` if `out` is too short.
#[cfg(test)]
#[inline]
pub(crate) fn bit_positions(words: &[u64], out: &mut [u32]) -> Option<usize> {
    bit_positions_at(detected_level(), words, out)
}

/// [`bit_positions`] with an explicit implementation.
pub(crate) fn bit_positions_at(level: Level, words: &[u64], out: &mut [u32]) -> Option<usize> {
    let total: usize = words.iter().map(|w| w.count_ones() as usize).sum();
    if out.len() < total + POSITIONS_SLACK {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if level == Level::Avx512 && available(Level::Avx512) {
            // SAFETY: the kernel needs AVX-512F/BW/VBMI2, which `available`
            // has just confirmed. Its stores are whole 16-slot chunks, the
            // last starting at or before the last position; `out` holds
            // every position plus `POSITIONS_SLACK` (64) slots (checked
            // above), so every chunk lies inside `out`. It reads only `words`.
            unsafe { x86::positions_avx512(words, out) };
            return Some(total);
        }
    }
    let _ = level;
    scalar_bit_positions(words, out);
    Some(total)
}

/// The portable [`bit_positions`]: eight positions per step whatever the
/// count (no mispredicted exit per word), the extra ones in the slack.
/// `out` needs the positions plus 8 slots.
fn scalar_bit_positions(words: &[u64], out: &mut [u32]) {
    let mut k = 0usize;
    for (w, &word) in words.iter().enumerate() {
        let base = (w * 64) as u32;
        let end = k + word.count_ones() as usize;
        let mut bits = word;
        while k < end {
            for slot in &mut out[k..k + 8] {
                *slot = base + bits.trailing_zeros();
                bits &= bits.wrapping_sub(1);
            }
            k += 8;
        }
        k = end;
    }
}

/// Why [`tag_values`] could not give every tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TagValuesError {
    /// A tag is longer than four digits (its value was not computed).
    Long,
    /// A tag's four-byte load would read past the message.
    NearEnd,
}

/// The values of the tags of fields laid out by their positions: field `i`
/// starts at `ends[i - 1] + 1` (the first at 0) and its tag ends at `eqs[i]`.
/// The tag bytes must be ASCII digits (1 to 4 of them; the caller checked
/// that they are digits), and four bytes from each field's start must lie
/// inside `msg`. Writes `tags[..eqs.len()]`, and may scribble on the slots
/// after them up to the next multiple of 16 (which `tags` must have).
#[cfg(test)]
#[inline]
pub(crate) fn tag_values(
    msg: &[u8],
    ends: &[u32],
    eqs: &[u32],
    tags: &mut [u32],
) -> Result<(), TagValuesError> {
    tag_values_at(detected_level(), msg, ends, eqs, tags)
}

/// [`tag_values`] with an explicit implementation.
pub(crate) fn tag_values_at(
    level: Level,
    msg: &[u8],
    ends: &[u32],
    eqs: &[u32],
    tags: &mut [u32],
) -> Result<(), TagValuesError> {
    let k = eqs.len();
    assert!(
        ends.len() >= k && tags.len() >= k.next_multiple_of(16),
        "tag_values: tables too small"
    );
    #[cfg(target_arch = "x86_64")]
    {
        if level == Level::Avx512 && available(Level::Avx512) && msg.len() < i32::MAX as usize {
            // SAFETY: the kernel needs AVX-512F/BW/VBMI, which `available`
            // has just confirmed. Its contract: `ends[..k]` and `eqs` have
            // the same length `k`, `tags` holds `k` rounded up to 16 slots
            // (both asserted above) and `msg.len() < i32::MAX` (checked in
            // the condition). It checks every gather address against
            // `msg.len()` before loading and masks table accesses to their
            // lengths.
            return unsafe { x86::tag_values_avx512(msg, &ends[..k], eqs, tags) };
        }
    }
    let _ = level;
    scalar_tag_values(msg, ends, eqs, tags)
}

/// The reference definition of [`tag_values`].
pub(crate) fn scalar_tag_values(
    msg: &[u8],
    ends: &[u32],
    eqs: &[u32],
    tags: &mut [u32],
) -> Result<(), TagValuesError> {
    let mut start = 0usize;
    let mut long = false;
    for ((t, &end), &eq) in tags.iter_mut().zip(ends).zip(eqs) {
        let tag_len = (eq as usize).wrapping_sub(start);
        long |= tag_len > 4;
        let word = msg.get(start..start + 4).ok_or(TagValuesError::NearEnd)?;
        let word = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        // Digit values, the tag's digits moved to the top bytes (low bytes
        // zero); subtracting '0' borrows only towards the bytes after the tag.
        let d = word
            .wrapping_sub(0x3030_3030)
            .wrapping_shl(32u32.wrapping_sub(8 * tag_len as u32));
        // Bytes b0..b3, b0 most significant: pairs, then the two pairs.
        let pairs = (d.wrapping_mul(10).wrapping_add(d >> 8)) & 0x00FF_00FF;
        *t = (pairs & 0xFF) * 100 + (pairs >> 16);
        start = end as usize + 1;
    }
    if long {
        return Err(TagValuesError::Long);
    }
    Ok(())
}

/// Messages up to this length are decoded by [`small_layout`] in one pass.
pub(crate) const SMALL_MESSAGE: usize = 256;

/// Sixteen `u32` on a cache line of their own: [`small_layout`]'s scratch
/// tables are whole chunks of these, so that no 64-byte store or load of
/// a chunk is split across two lines.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct Chunk(pub [u32; 16]);

/// The spans of `chunks`, in order.
#[inline(always)]
pub(crate) fn spans(chunks: &[SpanChunk]) -> &[FieldSpan] {
    // SAFETY: a `SpanChunk` is `repr(C)` around `[FieldSpan; 16]` and
    // nothing else: 16 x 12 = 192 bytes, a multiple of its 64-byte
    // alignment, so there is no padding and chunk `i` holds spans
    // `16 * i .. 16 * i + 16` contiguously. The pointer is valid for
    // `chunks.len() * 16` spans (the same bytes as the chunks), suitably
    // aligned for `FieldSpan` (alignment 4 divides 64), every bit pattern
    // of three `u32`s is a valid `FieldSpan`, and the result borrows
    // `chunks` for its whole life.
    unsafe { std::slice::from_raw_parts(chunks.as_ptr().cast::<FieldSpan>(), chunks.len() * 16) }
}

/// The spans of `chunks`, in order, to write.
#[inline(always)]
pub(crate) fn spans_mut(chunks: &mut [SpanChunk]) -> &mut [FieldSpan] {
    // SAFETY: the same layout argument as in `spans`; the result borrows
    // `chunks` mutably for its whole life, so it is the only access to
    // those bytes.
    unsafe {
        std::slice::from_raw_parts_mut(chunks.as_mut_ptr().cast::<FieldSpan>(), chunks.len() * 16)
    }
}

/// Chunks [`small_layout`] needs as scratch.
pub(crate) const SMALL_SCRATCH_CHUNKS: usize = 3 * (SMALL_MESSAGE + 64) / 16;

/// What [`small_layout`] found besides the field spans.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SmallLayout {
    /// Number of fields.
    pub fields: u32,
    /// Wrapping sum of all bytes.
    pub sum: u32,
    /// BodyLength's value: `msg[body_length.0..body_length.1]`.
    pub body_length: (u32, u32),
}

/// The whole field layout of a message of at most [`SMALL_MESSAGE`] bytes,
/// in registers, in one pass, where AVX-512 can ([`Level::Avx512`]): masks
/// and sum, the tag of every field, the field spans, and the direct tag index
/// (`direct[tag] = generation << 32 | first field`). `lengths` marks the
/// data-length tags below 1024.
///
/// `None` unless this is the common case the rest of the decoder expects
/// from it: every field `tag=value` with a tag of one to four digits (no
/// leading zero) below 1024 that is not a data-length tag, no empty value,
/// at least four fields, 8 then 9 then 35 first and 10 last. The caller then
/// decodes the general way (which also reports what is wrong). BodyLength
/// and CheckSum are left to the caller. Tables: `spans` at least
/// `SMALL_MESSAGE + 16` long, `scratch` at least [`SMALL_SCRATCH_CHUNKS`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn small_layout(
    level: Level,
    msg: &[u8],
    lengths: &[u64; 16],
    generation: u32,
    direct: &mut [u64; 1024],
    spans: &mut [SpanChunk],
    scratch: &mut [Chunk],
) -> Option<SmallLayout> {
    let spans = spans_mut(spans);
    if msg.is_empty()
        || msg.len() > SMALL_MESSAGE
        || spans.len() < SMALL_MESSAGE + 16
        || scratch.len() < SMALL_SCRATCH_CHUNKS
    {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if level == Level::Avx512 && available(Level::Avx512) {
            // SAFETY: the kernel needs AVX-512F/BW/VBMI/VBMI2, which
            // `available` has just confirmed; its contract `1 <= msg.len()
            // <= 256`, `spans.len() >= 272` and `scratch.len() >= 960` (in
            // `u32`s) holds by the checks above (`SMALL_MESSAGE + 16` spans,
            // `SMALL_SCRATCH_CHUNKS` x 16 = 960 slots). A `Chunk` is
            // sixteen `u32` and nothing else (`repr(C)`, size 64 = its
            // alignment, no padding), so the chunks, borrowed mutably here,
            // are a valid, aligned slice of `u32` sixteen times as long.
            return unsafe {
                let scratch = std::slice::from_raw_parts_mut(
                    scratch.as_mut_ptr() as *mut u32,
                    scratch.len() * 16,
                );
                x86::small_layout_avx512(msg, lengths, generation, direct, spans, scratch)
            };
        }
    }
    let _ = (level, lengths, generation, direct);
    None
}

/// The reference definition of [`field_masks_and_sum`].
pub(crate) fn scalar_masks_and_sum(input: &[u8], out: &mut [BlockMasks]) -> u32 {
    let mut sum = 0u32;
    for (block, m) in input.chunks(64).zip(out.iter_mut()) {
        let mut b = BlockMasks::default();
        for (i, &c) in block.iter().enumerate() {
            sum = sum.wrapping_add(c as u32);
            b.soh |= ((c == SOH) as u64) << i;
            b.eq |= ((c == b'=') as u64) << i;
            b.digit |= (c.is_ascii_digit() as u64) << i;
            b.zero |= ((c == b'0') as u64) << i;
        }
        *m = b;
    }
    sum
}

/// The reference definition of [`byte_sum`].
pub(crate) fn scalar_sum(input: &[u8]) -> u32 {
    input.iter().fold(0u32, |s, &b| s.wrapping_add(b as u32))
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::BlockMasks;
    use std::arch::x86_64::*;

    /// 64 zero bytes then 64 0xFF bytes: 64 bytes read from offset `k` keep the
    /// last `k` bytes of a 64-byte block (two 32-byte loads at `k` and `k + 32`);
    /// 32 bytes read from `32 + k` keep the last `k` of a 32-byte block. Every
    /// such load stays inside the array for `1 <= k <= 63`.
    static TAIL_MASK: [u8; 128] = {
        let mut m = [0u8; 128];
        let mut i = 64;
        while i < 128 {
            m[i] = 0xFF;
            i += 1;
        }
        m
    };

    /// The last partial block, copied into a zero-padded `N`-byte block
    /// (zeros add nothing to the sum and are in no mask).
    fn padded_tail<const N: usize>(tail: &[u8]) -> [u8; N] {
        let mut block = [0u8; N];
        block[..tail.len()].copy_from_slice(tail);
        block
    }

    /// Fills `out` with the masks of every whole 64-byte block of `input`,
    /// `$block` computing one from `$p` (a pointer to its 64 bytes), and
    /// yields the number of blocks and the partial tail left. A macro rather
    /// than a function taking a closure, so that each kernel's block code is
    /// expanded inside its own `#[target_feature]` function.
    macro_rules! whole_blocks {
        ($input:expr, $out:expr, |$p:ident| $block:expr) => {{
            let blocks = $input.chunks_exact(64);
            let tail = blocks.remainder();
            let mut n = 0;
            for (block, m) in blocks.zip($out.iter_mut()) {
                let $p = block.as_ptr();
                *m = $block;
                n += 1;
            }
            (n, tail)
        }};
    }

    /// Masks and sum of one 64-byte block already in a register. Zero bytes
    /// (masked-off tail) are in no mask and add nothing.
    ///
    /// SAFETY: the caller guarantees AVX-512F and AVX-512BW are available.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    unsafe fn block_avx512(v: __m512i, acc: &mut __m512i) -> BlockMasks {
        let soh = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(crate::SOH as i8));
        let eq = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'=' as i8));
        // A digit minus '0' is 0..=9 (unsigned); everything else wraps above 9.
        let d = _mm512_sub_epi8(v, _mm512_set1_epi8(b'0' as i8));
        let digit = _mm512_cmple_epu8_mask(d, _mm512_set1_epi8(9));
        let zero = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'0' as i8));
        *acc = _mm512_add_epi64(*acc, _mm512_sad_epu8(v, _mm512_setzero_si512()));
        BlockMasks {
            soh,
            eq,
            digit,
            zero,
        }
    }

    /// SAFETY: the caller guarantees AVX-512F and AVX-512BW are available.
    /// Full blocks are read inside `chunks_exact` blocks; the last partial
    /// block with a masked load of exactly its `tail.len()` bytes (masked-off
    /// bytes are neither read nor faulted on).
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn mask_sum_avx512(input: &[u8], out: &mut [BlockMasks]) -> u32 {
        let mut acc = _mm512_setzero_si512();
        let (n, tail) = whole_blocks!(input, out, |p| block_avx512(
            _mm512_loadu_si512(p as *const __m512i),
            &mut acc
        ));
        if !tail.is_empty() {
            let keep: u64 = (1u64 << tail.len()) - 1;
            let v = _mm512_maskz_loadu_epi8(keep, tail.as_ptr() as *const i8);
            out[n] = block_avx512(v, &mut acc);
        }
        _mm512_reduce_add_epi64(acc) as u32
    }

    /// SAFETY: the caller guarantees AVX-512F/BW/VBMI2 are available and that
    /// `out` holds every position plus 64 slots: chunk `c` is stored at
    /// `out[16c..16c+16]`, and the last chunk starts at or before the last
    /// position.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
    pub unsafe fn positions_avx512(words: &[u64], out: &mut [u32]) {
        // Bytes 0..=63: compressing them under a word's mask lists its set bits.
        let iota = _mm512_set_epi8(
            63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42,
            41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
            19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
        );
        // Positions are gathered in a register and written as whole 16-lane
        // chunks at multiples of 16: a later 16-lane load of a chunk then
        // matches exactly one store and is forwarded from it (a load spanning
        // several stores waits for them to reach the cache).
        let lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        let mut acc = _mm512_setzero_si512();
        let mut fill = 0i32; // lanes of `acc` in use
        let mut chunk = out.as_mut_ptr() as *mut __m512i;
        for (w, &word) in words.iter().enumerate() {
            let n = word.count_ones() as i32;
            let packed = _mm512_maskz_compress_epi8(word, iota);
            let base = _mm512_set1_epi32((w * 64) as i32);
            for piece in 0..(n as usize).div_ceil(16) {
                let v = _mm512_add_epi32(_mm512_cvtepu8_epi32(lane128(packed, piece)), base);
                let m = (n - 16 * piece as i32).min(16);
                // Lanes from `fill` on take v's lanes from 0 on.
                let from_v = (0xFFFFu32 << fill) as u16;
                let idx = _mm512_sub_epi32(lanes, _mm512_set1_epi32(fill));
                acc = _mm512_mask_permutexvar_epi32(acc, from_v, idx, v);
                if fill + m >= 16 {
                    _mm512_storeu_si512(chunk, acc);
                    chunk = chunk.add(1);
                    // What did not fit: v's lanes from 16 - fill on.
                    let idx = _mm512_add_epi32(lanes, _mm512_set1_epi32(16 - fill));
                    acc = _mm512_permutexvar_epi32(idx, v);
                    fill = fill + m - 16;
                } else {
                    fill += m;
                }
            }
        }
        _mm512_storeu_si512(chunk, acc);
    }

    /// Positions of set bits, gathered in a register and written as whole
    /// 16-lane chunks (see [`positions_avx512`]).
    struct Positions {
        acc: __m512i,
        fill: i32,
        chunk: *mut __m512i,
        count: usize,
        /// The last full chunk written (`acc` is the partial one after it,
        /// chunk `count / 16`, empty when `count` is a multiple of 16).
        prev: __m512i,
    }

    impl Positions {
        /// SAFETY: `out` must hold `SMALL_MESSAGE + 64` slots.
        #[target_feature(enable = "avx512f")]
        #[inline]
        unsafe fn new(out: *mut u32) -> Self {
            Positions {
                acc: _mm512_setzero_si512(),
                fill: 0,
                chunk: out as *mut __m512i,
                count: 0,
                prev: _mm512_setzero_si512(),
            }
        }

        /// Appends the set bits of `bits` (block `w`).
        ///
        /// SAFETY: AVX-512F/BW/VBMI2 available; at most `SMALL_MESSAGE`
        /// positions in all, so the chunks stay inside the table.
        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
        #[inline]
        unsafe fn push(&mut self, bits: u64, w: usize, iota: __m512i, lanes: __m512i) {
            let n = bits.count_ones() as i32;
            self.count += n as usize;
            let packed = _mm512_maskz_compress_epi8(bits, iota);
            let base = _mm512_set1_epi32((w * 64) as i32);
            for piece in 0..(n as usize).div_ceil(16) {
                let v = _mm512_add_epi32(_mm512_cvtepu8_epi32(lane128(packed, piece)), base);
                let m = (n - 16 * piece as i32).min(16);
                let from_v = (0xFFFFu32 << self.fill) as u16;
                let idx = _mm512_sub_epi32(lanes, _mm512_set1_epi32(self.fill));
                self.acc = _mm512_mask_permutexvar_epi32(self.acc, from_v, idx, v);
                if self.fill + m >= 16 {
                    _mm512_storeu_si512(self.chunk, self.acc);
                    self.prev = self.acc;
                    self.chunk = self.chunk.add(1);
                    let idx = _mm512_add_epi32(lanes, _mm512_set1_epi32(16 - self.fill));
                    self.acc = _mm512_permutexvar_epi32(idx, v);
                    self.fill += m - 16;
                } else {
                    self.fill += m;
                }
            }
        }

        /// Writes the last, partial chunk.
        ///
        /// SAFETY: AVX-512F available; the chunk lies inside the table (the
        /// 64 slots of slack).
        #[target_feature(enable = "avx512f")]
        #[inline]
        unsafe fn flush(&mut self) {
            _mm512_storeu_si512(self.chunk, self.acc);
        }
    }

    /// See [`super::small_layout`].
    ///
    /// SAFETY: the caller guarantees AVX-512F/BW/VBMI/VBMI2, `1 <=
    /// msg.len() <= 256`, `spans.len() >= 272` and `scratch.len() >= 960`.
    /// The message is read by full loads of blocks inside it and a masked
    /// load of its last partial block; the tables are written in 16-lane
    /// chunks, at most `ceil(fields / 16)` of them, fields <= 256; the
    /// direct index is written by scatters of tags below 1024 (checked).
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2")]
    pub unsafe fn small_layout_avx512(
        msg: &[u8],
        lengths: &[u64; 16],
        generation: u32,
        direct: &mut [u64; 1024],
        spans: &mut [crate::span::FieldSpan],
        scratch: &mut [u32],
    ) -> Option<super::SmallLayout> {
        let len = msg.len();
        let blocks = len.div_ceil(64);
        let iota = _mm512_set_epi8(
            63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42,
            41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
            19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
        );
        let lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        let (ends_out, rest) = scratch.split_at_mut(256 + 64);
        let (eqs_out, tags_out) = rest.split_at_mut(256 + 64);
        let mut ends = Positions::new(ends_out.as_mut_ptr());
        let mut eqs = Positions::new(eqs_out.as_mut_ptr());

        // 1. Per block: masks, the byte sum, each tag's '=' (see the fast
        //    walk in decode.rs), positions.
        let mut block = [_mm512_setzero_si512(); 4];
        let mut sum = _mm512_setzero_si512();
        let (mut start_in, mut add_in, mut eq_in) = (1u64, false, 0u64);
        let (mut bad, mut empty) = (0u64, 0u64);
        for (w, slot) in block.iter_mut().enumerate().take(blocks) {
            let base = w * 64;
            let v = if base + 64 <= len {
                _mm512_loadu_si512(msg.as_ptr().add(base) as *const __m512i)
            } else {
                let keep = (1u64 << (len - base)) - 1;
                _mm512_maskz_loadu_epi8(keep, msg.as_ptr().add(base) as *const i8)
            };
            *slot = v;
            sum = _mm512_add_epi64(sum, _mm512_sad_epu8(v, _mm512_setzero_si512()));
            let soh = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(crate::SOH as i8));
            let eq = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'=' as i8));
            let d = _mm512_sub_epi8(v, _mm512_set1_epi8(b'0' as i8));
            let digit = _mm512_cmple_epu8_mask(d, _mm512_set1_epi8(9));
            let zero = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'0' as i8));
            let mut starts = (soh << 1) | start_in;
            start_in = soh >> 63;
            if base + 64 > len {
                starts &= (1u64 << (len - base)) - 1;
            }
            let (t, c1) = digit.overflowing_add(starts);
            let (t, c2) = t.overflowing_add(add_in as u64);
            add_in = c1 | c2;
            let tag_ends = t & !digit;
            bad |= (starts & (!digit | zero)) | (tag_ends & !eq);
            empty |= ((tag_ends << 1) | eq_in) & soh;
            eq_in = tag_ends >> 63;
            ends.push(soh, w, iota, lanes);
            eqs.push(tag_ends, w, iota, lanes);
        }
        let k = ends.count;
        if bad | empty != 0 || k != eqs.count || k < 4 {
            return None;
        }
        ends.flush();
        eqs.flush();

        // 2. Per 16 fields: tag values (bytes permuted out of the blocks),
        //    checks, field spans.
        // Byte shuffle (within 16-byte lanes) copying each dword's low byte
        // into its four bytes.
        let broadcast_low = _mm512_set_epi32(
            0x0C0C_0C0C,
            0x0808_0808,
            0x0404_0404,
            0,
            0x0C0C_0C0C,
            0x0808_0808,
            0x0404_0404,
            0,
            0x0C0C_0C0C,
            0x0808_0808,
            0x0404_0404,
            0,
            0x0C0C_0C0C,
            0x0808_0808,
            0x0404_0404,
            0,
        );
        let offsets = _mm512_set1_epi32(0x0302_0100);
        let four = _mm512_set1_epi32(4);
        let one = _mm512_set1_epi32(1);
        let tens = _mm512_set1_epi16(0x010A);
        let hundreds = _mm512_set1_epi32(0x0001_0064);
        let bitmap_lo = _mm512_loadu_si512(lengths.as_ptr() as *const __m512i);
        let bitmap_hi = _mm512_loadu_si512(lengths.as_ptr().add(8) as *const __m512i);
        // Spans interleaved: output j, lane i is component (16j + i) % 3
        // of field (16j + i) / 3 (fields relative to the chunk).
        let field_of = |j: i32| {
            _mm512_set_epi32(
                (16 * j + 15) / 3,
                (16 * j + 14) / 3,
                (16 * j + 13) / 3,
                (16 * j + 12) / 3,
                (16 * j + 11) / 3,
                (16 * j + 10) / 3,
                (16 * j + 9) / 3,
                (16 * j + 8) / 3,
                (16 * j + 7) / 3,
                (16 * j + 6) / 3,
                (16 * j + 5) / 3,
                (16 * j + 4) / 3,
                (16 * j + 3) / 3,
                (16 * j + 2) / 3,
                (16 * j + 1) / 3,
                (16 * j) / 3,
            )
        };
        let component = |j: i32, c: i32| -> u16 {
            let mut m = 0u16;
            for i in 0..16 {
                if (16 * j + i) % 3 == c {
                    m |= 1 << i;
                }
            }
            m
        };
        let from_second = |j: i32| _mm512_maskz_mov_epi32(component(j, 1), _mm512_set1_epi32(16));
        let chunks = k.div_ceil(16);
        let mut prev_end = _mm512_set1_epi32(-1);
        let (mut long, mut unusual) = (0u16, 0u16);
        let mut body_length = (0u32, 0u32);
        // The tags of the last two chunks, kept for step 3 (see `partial`).
        let (mut tags_prev, mut tags_last) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        for c in 0..chunks {
            let valid: u16 = if k - 16 * c >= 16 {
                !0
            } else {
                (1u16 << (k - 16 * c)) - 1
            };
            // The last two chunks are still in registers (a load of what
            // was just stored waits for the store to reach the cache).
            let partial = ends.count / 16;
            let (end, eq) = if c == partial {
                (ends.acc, eqs.acc)
            } else if c + 1 == partial {
                (ends.prev, eqs.prev)
            } else {
                (
                    _mm512_loadu_si512(ends_out.as_ptr().add(16 * c) as *const __m512i),
                    _mm512_loadu_si512(eqs_out.as_ptr().add(16 * c) as *const __m512i),
                )
            };
            let start = _mm512_add_epi32(_mm512_alignr_epi32::<15>(end, prev_end), one);
            prev_end = _mm512_permutexvar_epi32(_mm512_set1_epi32(15), end);
            let tag_len = _mm512_sub_epi32(eq, start);
            long |= _mm512_mask_cmpgt_epu32_mask(valid, tag_len, four);
            // Each lane's low byte (start < 256) in all four of its bytes.
            let idx = _mm512_add_epi32(_mm512_shuffle_epi8(start, broadcast_low), offsets);
            let low = _mm512_permutex2var_epi8(block[0], idx, block[1]);
            let high = _mm512_permutex2var_epi8(block[2], idx, block[3]);
            let words = _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), low, high);
            let shift = _mm512_slli_epi32::<3>(_mm512_sub_epi32(four, tag_len));
            let d = _mm512_sllv_epi32(
                _mm512_sub_epi32(words, _mm512_set1_epi32(0x3030_3030)),
                shift,
            );
            let tag = _mm512_madd_epi16(_mm512_maddubs_epi16(d, tens), hundreds);
            // Tags of the direct table only, and no data-length tag.
            let big = _mm512_mask_cmpge_epu32_mask(valid, tag, _mm512_set1_epi32(1024));
            let byte = _mm512_permutex2var_epi8(bitmap_lo, _mm512_srli_epi32::<3>(tag), bitmap_hi);
            let bit = _mm512_srlv_epi32(byte, _mm512_and_si512(tag, _mm512_set1_epi32(7)));
            unusual |= big | _mm512_mask_test_epi32_mask(valid, bit, one);
            if c == 0 {
                let want = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 35, 9, 8);
                if _mm512_mask_cmpneq_epu32_mask(0b111, tag, want) != 0 {
                    return None;
                }
                let one_lane = _mm512_set1_epi32(1);
                body_length = (
                    _mm_cvtsi128_si32(_mm512_castsi512_si128(_mm512_permutexvar_epi32(
                        one_lane,
                        _mm512_add_epi32(eq, one),
                    ))) as u32,
                    _mm_cvtsi128_si32(_mm512_castsi512_si128(_mm512_permutexvar_epi32(
                        one_lane, end,
                    ))) as u32,
                );
            }
            if c == chunks - 1 {
                let last = 1u16 << ((k - 1) % 16);
                if _mm512_mask_cmpneq_epu32_mask(last, tag, _mm512_set1_epi32(10)) != 0 {
                    return None;
                }
            }
            let value = _mm512_add_epi32(eq, one);
            let out = spans.as_mut_ptr().add(16 * c) as *mut __m512i;
            for j in 0..3 {
                // Tags and values first, then the ends into their lanes.
                let idx = _mm512_add_epi32(field_of(j), from_second(j));
                let tv = _mm512_permutex2var_epi32(tag, idx, value);
                let e = _mm512_mask_permutexvar_epi32(tv, component(j, 2), field_of(j), end);
                _mm512_storeu_si512(out.add(j as usize), e);
            }
            _mm512_storeu_si512(tags_out.as_mut_ptr().add(16 * c) as *mut __m512i, tag);
            (tags_prev, tags_last) = (tags_last, tag);
        }
        if long | unusual != 0 {
            return None;
        }

        // 3. The index, last chunk first and each chunk's lanes reversed, so
        //    that the first occurrence of a repeated tag is written last.
        let generation = _mm512_set1_epi64((generation as i64) << 32);
        let reverse = _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        for c in (0..chunks).rev() {
            let valid: u16 = if k - 16 * c >= 16 {
                !0
            } else {
                (1u16 << (k - 16 * c)) - 1
            };
            let valid = valid.reverse_bits();
            let tag = if c + 1 == chunks {
                tags_last
            } else if c + 2 == chunks {
                tags_prev
            } else {
                _mm512_loadu_si512(tags_out.as_ptr().add(16 * c) as *const __m512i)
            };
            let tag = _mm512_permutexvar_epi32(reverse, tag);
            let field = _mm512_add_epi32(reverse, _mm512_set1_epi32((16 * c) as i32));
            let base = direct.as_mut_ptr() as *mut i64;
            for half in 0..2 {
                let (t, f) = if half == 0 {
                    (_mm512_castsi512_si256(tag), _mm512_castsi512_si256(field))
                } else {
                    (
                        _mm512_extracti64x4_epi64::<1>(tag),
                        _mm512_extracti64x4_epi64::<1>(field),
                    )
                };
                let slot = _mm512_or_si512(_mm512_cvtepu32_epi64(f), generation);
                _mm512_mask_i32scatter_epi64::<8>(base, (valid >> (8 * half)) as u8, t, slot);
            }
        }
        Some(super::SmallLayout {
            fields: k as u32,
            sum: _mm512_reduce_add_epi64(sum) as u32,
            body_length,
        })
    }

    /// The 16 bytes of lane `c` (0..=3) of `v`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn lane128(v: __m512i, c: usize) -> __m128i {
        match c {
            0 => _mm512_castsi512_si128(v),
            1 => _mm512_extracti32x4_epi32::<1>(v),
            2 => _mm512_extracti32x4_epi32::<2>(v),
            _ => _mm512_extracti32x4_epi32::<3>(v),
        }
    }

    /// SAFETY: the caller guarantees AVX-512F/BW/VBMI are available,
    /// `ends.len() == eqs.len()`, `tags.len() >= eqs.len()` rounded up to a
    /// multiple of 16 (every chunk is stored whole) and `msg.len() < i32::MAX`.
    /// The message is read by full 64-byte loads only of blocks inside it,
    /// masked loads of the last partial block (masked-off bytes are not
    /// accessed), or gathers whose every lane was first checked to lie
    /// inside `msg` (else `NearEnd`); loads and stores of the tables are
    /// masked to their lengths.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub unsafe fn tag_values_avx512(
        msg: &[u8],
        ends: &[u32],
        eqs: &[u32],
        tags: &mut [u32],
    ) -> Result<(), super::TagValuesError> {
        let k = eqs.len();
        let len = _mm512_set1_epi32(msg.len() as i32);
        let one = _mm512_set1_epi32(1);
        let four = _mm512_set1_epi32(4);
        let ascii_zeros = _mm512_set1_epi32(0x3030_3030);
        let tens = _mm512_set1_epi16(0x010A); // bytes [10, 1]
        let hundreds = _mm512_set1_epi32(0x0001_0064); // words [100, 1]
        let spread = _mm512_set1_epi32(0x0101_0101);
        let offsets = _mm512_set1_epi32(0x0302_0100);
        // A message of up to 256 bytes is held in four registers (zeros past
        // its end), and every tag's bytes permuted out of them; a longer one
        // is gathered from memory.
        let blocks = (msg.len() <= 256).then(|| {
            [0, 1, 2, 3].map(|w| {
                let base = w * 64;
                if base + 64 <= msg.len() {
                    _mm512_loadu_si512(msg.as_ptr().add(base) as *const __m512i)
                } else if base < msg.len() {
                    let keep = (1u64 << (msg.len() - base)) - 1;
                    _mm512_maskz_loadu_epi8(keep, msg.as_ptr().add(base) as *const i8)
                } else {
                    _mm512_setzero_si512()
                }
            })
        });
        let mut prev_end = _mm512_set1_epi32(-1);
        let mut long: u16 = 0;
        let mut c = 0usize;
        while c < k {
            let lanes: u16 = if k - c >= 16 {
                !0
            } else {
                (1u16 << (k - c)) - 1
            };
            let cur = _mm512_maskz_loadu_epi32(lanes, ends.as_ptr().add(c) as *const i32);
            let eq = _mm512_maskz_loadu_epi32(lanes, eqs.as_ptr().add(c) as *const i32);
            // Lane i starts after the end of field i - 1 (the previous step's last).
            let start = _mm512_add_epi32(_mm512_alignr_epi32::<15>(cur, prev_end), one);
            prev_end = _mm512_permutexvar_epi32(_mm512_set1_epi32(15), cur);
            let tag_len = _mm512_sub_epi32(eq, start);
            long |= _mm512_mask_cmpgt_epu32_mask(lanes, tag_len, four);
            let inside = _mm512_mask_cmple_epi32_mask(lanes, _mm512_add_epi32(start, four), len);
            if inside != lanes {
                return Err(super::TagValuesError::NearEnd);
            }
            let words = if let Some(blocks) = &blocks {
                // Bytes start..start+4 picked from the message in registers.
                let idx = _mm512_add_epi32(_mm512_mullo_epi32(start, spread), offsets);
                let low = _mm512_permutex2var_epi8(blocks[0], idx, blocks[1]);
                let high = _mm512_permutex2var_epi8(blocks[2], idx, blocks[3]);
                // Index bit 7 (the byte's sign) chooses the upper 128 bytes.
                _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), low, high)
            } else {
                _mm512_mask_i32gather_epi32::<1>(
                    _mm512_setzero_si512(),
                    lanes,
                    start,
                    msg.as_ptr() as *const i32,
                )
            };
            // As the scalar code: digit values moved to the top bytes, then
            // digit pairs (bytes times [10, 1]) and the two pairs ([100, 1]).
            let shift = _mm512_slli_epi32::<3>(_mm512_sub_epi32(four, tag_len));
            let d = _mm512_sllv_epi32(_mm512_sub_epi32(words, ascii_zeros), shift);
            let pairs = _mm512_maddubs_epi16(d, tens);
            let values = _mm512_madd_epi16(pairs, hundreds);
            // Whole chunks (the slack takes the extra lanes): a masked store
            // would not be forwarded to the loads that read the tags next.
            _mm512_storeu_si512(tags.as_mut_ptr().add(c) as *mut __m512i, values);
            c += 16;
        }
        if long != 0 {
            return Err(super::TagValuesError::Long);
        }
        Ok(())
    }

    /// SOH, `=`, digit and `0` bits and the byte sum of one 32-byte vector.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn lane_avx2(v: __m256i, acc: &mut __m256i) -> [u64; 4] {
        let zero = _mm256_setzero_si256();
        let s = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(crate::SOH as i8)));
        let e = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'=' as i8)));
        // A digit minus '0' is 0..=9: unchanged by min(x, 9).
        let d = _mm256_sub_epi8(v, _mm256_set1_epi8(b'0' as i8));
        let digit = _mm256_movemask_epi8(_mm256_cmpeq_epi8(
            _mm256_min_epu8(d, _mm256_set1_epi8(9)),
            d,
        ));
        let z = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'0' as i8)));
        *acc = _mm256_add_epi64(*acc, _mm256_sad_epu8(v, zero));
        [s, e, digit, z].map(|m| m as u32 as u64)
    }

    /// The masks of a 64-byte block from its two 32-byte lanes' bits, shifted right.
    #[inline(always)]
    fn join(a: [u64; 4], b: [u64; 4], shift: usize) -> BlockMasks {
        let m = |i: usize| (a[i] | (b[i] << 32)) >> shift;
        BlockMasks {
            soh: m(0),
            eq: m(1),
            digit: m(2),
            zero: m(3),
        }
    }

    /// SAFETY: the caller guarantees AVX2 is available. `p` must point at 64 readable bytes.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn block_avx2(p: *const u8, acc: &mut __m256i) -> BlockMasks {
        let a = lane_avx2(_mm256_loadu_si256(p as *const __m256i), acc);
        let b = lane_avx2(_mm256_loadu_si256(p.add(32) as *const __m256i), acc);
        join(a, b, 0)
    }

    /// SAFETY: the caller guarantees AVX2 is available. Every block handed to
    /// `block_avx2` is a 64-byte `chunks_exact` block or the padded tail array;
    /// the overlapping tail re-read covers `input[len-64..len]` (only when
    /// `len >= 64`), and the mask loads stay inside `TAIL_MASK` (1 <= keep <= 63).
    #[target_feature(enable = "avx2")]
    pub unsafe fn mask_sum_avx2(input: &[u8], out: &mut [BlockMasks]) -> u32 {
        let mut acc = _mm256_setzero_si256();
        let (n, tail) = whole_blocks!(input, out, |p| block_avx2(p, &mut acc));
        if !tail.is_empty() {
            let keep = tail.len();
            out[n] = if input.len() >= 64 {
                // Re-read the last 64 bytes, zero the part already counted
                // (zero is in no mask and adds nothing) and shift it out.
                let p = input.as_ptr().add(input.len() - 64);
                let mask = _mm256_loadu_si256(TAIL_MASK.as_ptr().add(keep) as *const __m256i);
                let mask_hi =
                    _mm256_loadu_si256(TAIL_MASK.as_ptr().add(keep + 32) as *const __m256i);
                let a = _mm256_and_si256(_mm256_loadu_si256(p as *const __m256i), mask);
                let b = _mm256_and_si256(_mm256_loadu_si256(p.add(32) as *const __m256i), mask_hi);
                let a = lane_avx2(a, &mut acc);
                let b = lane_avx2(b, &mut acc);
                join(a, b, 64 - keep)
            } else {
                let block = padded_tail::<64>(tail);
                block_avx2(block.as_ptr(), &mut acc)
            };
        }
        let mut lanes = [0u64; 4];
        _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, acc);
        lanes.iter().fold(0u64, |s, &x| s.wrapping_add(x)) as u32
    }

    /// SAFETY: the caller guarantees SSE2 is available. `p` must point at 64 readable bytes.
    #[target_feature(enable = "sse2")]
    #[inline]
    unsafe fn block_sse2(p: *const u8, acc: &mut __m128i) -> BlockMasks {
        let zero = _mm_setzero_si128();
        let mut m = BlockMasks::default();
        for lane in 0..4 {
            let v = _mm_loadu_si128(p.add(lane * 16) as *const __m128i);
            let s = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(crate::SOH as i8)));
            let e = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'=' as i8)));
            let d = _mm_sub_epi8(v, _mm_set1_epi8(b'0' as i8));
            let digit = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d));
            let z = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'0' as i8)));
            m.zero |= (z as u32 as u64) << (lane * 16);
            m.soh |= (s as u32 as u64) << (lane * 16);
            m.eq |= (e as u32 as u64) << (lane * 16);
            m.digit |= (digit as u32 as u64) << (lane * 16);
            *acc = _mm_add_epi64(*acc, _mm_sad_epu8(v, zero));
        }
        m
    }

    /// SAFETY: the caller guarantees SSE2 is available. Every block handed to
    /// `block_sse2` is a 64-byte `chunks_exact` block or the padded tail array.
    #[target_feature(enable = "sse2")]
    pub unsafe fn mask_sum_sse2(input: &[u8], out: &mut [BlockMasks]) -> u32 {
        let mut acc = _mm_setzero_si128();
        let (n, tail) = whole_blocks!(input, out, |p| block_sse2(p, &mut acc));
        if !tail.is_empty() {
            let block = padded_tail::<64>(tail);
            out[n] = block_sse2(block.as_ptr(), &mut acc);
        }
        let mut lanes = [0u64; 2];
        _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, acc);
        lanes[0].wrapping_add(lanes[1]) as u32
    }

    /// SAFETY: the caller guarantees AVX2 is available. Loads are unaligned,
    /// inside each 32-byte `chunks_exact` block, the zero-padded tail copy, or
    /// the overlapping re-read of `input[len-32..len]` (only when `len >= 32`)
    /// with a mask load inside `TAIL_MASK` (tail length 1..=31).
    #[target_feature(enable = "avx2")]
    pub unsafe fn sum_avx2(input: &[u8]) -> u32 {
        let zero = _mm256_setzero_si256();
        let mut acc = _mm256_setzero_si256();
        let blocks = input.chunks_exact(32);
        let tail = blocks.remainder();
        for block in blocks {
            let v = _mm256_loadu_si256(block.as_ptr() as *const __m256i);
            acc = _mm256_add_epi64(acc, _mm256_sad_epu8(v, zero));
        }
        if !tail.is_empty() {
            let v = if input.len() >= 32 {
                // Re-read the last 32 bytes and drop the part already counted.
                let p = input.as_ptr().add(input.len() - 32);
                let mask =
                    _mm256_loadu_si256(TAIL_MASK.as_ptr().add(32 + tail.len()) as *const __m256i);
                _mm256_and_si256(_mm256_loadu_si256(p as *const __m256i), mask)
            } else {
                let padded = padded_tail::<32>(tail);
                _mm256_loadu_si256(padded.as_ptr() as *const __m256i)
            };
            acc = _mm256_add_epi64(acc, _mm256_sad_epu8(v, zero));
        }
        let mut lanes = [0u64; 4];
        _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, acc);
        lanes.iter().fold(0u64, |s, &x| s.wrapping_add(x)) as u32
    }

    /// SAFETY: the caller guarantees SSE2 is available. Loads are unaligned,
    /// inside each 16-byte `chunks_exact` block or the zero-padded tail copy.
    #[target_feature(enable = "sse2")]
    pub unsafe fn sum_sse2(input: &[u8]) -> u32 {
        let zero = _mm_setzero_si128();
        let mut acc = _mm_setzero_si128();
        let blocks = input.chunks_exact(16);
        let tail = blocks.remainder();
        for block in blocks {
            let v = _mm_loadu_si128(block.as_ptr() as *const __m128i);
            acc = _mm_add_epi64(acc, _mm_sad_epu8(v, zero));
        }
        if !tail.is_empty() {
            let padded = padded_tail::<16>(tail);
            let v = _mm_loadu_si128(padded.as_ptr() as *const __m128i);
            acc = _mm_add_epi64(acc, _mm_sad_epu8(v, zero));
        }
        let mut lanes = [0u64; 2];
        _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, acc);
        lanes[0].wrapping_add(lanes[1]) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn byte_sum_adds_words_and_bytes() {
        let mut s = ByteSum::new();
        s.add_word(u64::from_le_bytes(*b"8=FIX.4."));
        s.add_byte(b'4' as u32);
        assert_eq!(
            s.total(),
            b"8=FIX.4.4".iter().map(|&b| b as u32).sum::<u32>() as u8
        );
    }

    #[test]
    fn bit_positions_in_order() {
        let mut out = [0u32; 3 + POSITIONS_SLACK];
        assert_eq!(bit_positions(&[0b1010, 1], &mut out), Some(3));
        assert_eq!(out[..3], [1, 3, 64]);
    }

    #[test]
    fn tag_values_of_a_message() {
        let msg = b"8=X\x01123=Y\x0110=0\x01";
        let (ends, eqs) = ([3, 9, 14], [1, 7, 12]);
        let mut tags = [0u32; 16];
        assert_eq!(tag_values(msg, &ends, &eqs, &mut tags), Ok(()));
        assert_eq!(tags[..3], [8, 123, 10]);
    }

    const LEVELS: [Level; 3] = [Level::Sse2, Level::Avx2, Level::Avx512];

    fn check_all_levels(input: &[u8]) {
        let n = input.len().div_ceil(64);
        let mut want_masks = vec![BlockMasks::default(); n];
        let want = scalar_masks_and_sum(input, &mut want_masks);
        assert_eq!(scalar_sum(input), want);
        for level in LEVELS {
            // Stale values in the output must be overwritten.
            let mut masks = vec![
                BlockMasks {
                    soh: !0,
                    eq: !0,
                    digit: !0,
                    zero: !0,
                };
                n
            ];
            let got = field_masks_and_sum_at(level, input, &mut masks);
            assert_eq!(got, want, "{level:?} sum");
            assert_eq!(masks, want_masks, "{level:?} masks");
            assert_eq!(byte_sum_at(level, input), want, "{level:?} byte_sum");
        }
    }

    #[test]
    fn known_masks() {
        let mut input = vec![b'a'; 130];
        input[0] = SOH;
        input[63] = SOH;
        input[64] = SOH;
        input[129] = SOH;
        input[1] = b'0';
        input[70] = b'9';
        input[2] = b'=';
        input[128] = b'=';
        let mut masks = [BlockMasks::default(); 3];
        field_masks_and_sum(&input, &mut masks);
        assert_eq!(
            masks,
            [
                BlockMasks {
                    soh: 1 | (1 << 63),
                    eq: 1 << 2,
                    digit: 1 << 1,
                    zero: 1 << 1,
                },
                BlockMasks {
                    soh: 1,
                    eq: 0,
                    digit: 1 << 6,
                    zero: 0,
                },
                BlockMasks {
                    soh: 1 << 1,
                    eq: 1,
                    digit: 0,
                    zero: 0,
                },
            ]
        );
        check_all_levels(&input);
    }

    #[test]
    fn every_tail_length() {
        for len in 0..200 {
            let input: Vec<u8> = (0..len).map(|i| b"8=1\x01\xFF09="[i % 8]).collect();
            check_all_levels(&input);
        }
    }

    #[test]
    fn sum_of_high_bytes_does_not_overflow_lanes() {
        let input = vec![0xFFu8; 100_000];
        check_all_levels(&input);
        assert_eq!(byte_sum(&input), 255 * 100_000);
    }

    fn check_positions(words: &[u64]) {
        let want: Vec<u32> = words
            .iter()
            .enumerate()
            .flat_map(|(w, &x)| {
                (0..64)
                    .filter(move |i| x >> i & 1 == 1)
                    .map(move |i| (w * 64 + i) as u32)
            })
            .collect();
        for level in [Level::Scalar, Level::Avx512] {
            let mut out = vec![u32::MAX; want.len() + POSITIONS_SLACK];
            assert_eq!(
                bit_positions_at(level, words, &mut out),
                Some(want.len()),
                "{level:?}"
            );
            assert_eq!(&out[..want.len()], &want[..], "{level:?}");
            let mut short = vec![0u32; want.len() + POSITIONS_SLACK - 1];
            assert_eq!(
                bit_positions_at(level, words, &mut short),
                None,
                "{level:?}"
            );
        }
    }

    #[test]
    fn positions_of_dense_and_sparse_words() {
        check_positions(&[]);
        check_positions(&[0]);
        check_positions(&[!0, 0, !0]);
        check_positions(&[1 << 63, 1, 0x8000_0001_0000_ffff]);
    }

    proptest! {
        #[test]
        fn byte_sum_of_words_matches_the_scalar_sum(
            bytes in proptest::collection::vec(any::<u8>(), 0..600),
            singles in proptest::collection::vec(any::<u8>(), 0..40),
        ) {
            let mut s = ByteSum::new();
            let mut swar = 0u64;
            for (i, w) in bytes.chunks(16).enumerate() {
                let mut b = [0u8; 16];
                b[..w.len()].copy_from_slice(w);
                let (lo, hi) = (u64::from_le_bytes(b[..8].try_into().unwrap()), u64::from_le_bytes(b[8..].try_into().unwrap()));
                if i % 2 == 0 { s.add_words(lo, hi) } else { s.add_word(lo); s.add_word(hi) }
                swar = add_bytes_swar(add_bytes_swar(swar, lo), hi);
            }
            for &b in &singles {
                s.add_byte(b as u32);
            }
            let want = bytes.iter().chain(&singles).map(|&b| b as u32).sum::<u32>() as u8;
            prop_assert_eq!(s.total(), want);
            let swar_total = swar.to_le_bytes().iter().map(|&b| b as u32).sum::<u32>()
                + singles.iter().map(|&b| b as u32).sum::<u32>();
            prop_assert_eq!(swar_total as u8, want);
        }
    }

    proptest! {
        #[test]
        fn positions_agree_with_scalar(words in proptest::collection::vec(any::<u64>(), 0..6)) {
            check_positions(&words);
        }

        #[test]
        fn vector_paths_agree_with_scalar(input in proptest::collection::vec(
            prop_oneof![Just(SOH), Just(b'='), b'0'..=b'9', Just(b'/'), Just(b':'), any::<u8>()], 0..600)) {
            check_all_levels(&input);
        }
    }
}

//! # peregrine-codec
//!
//! The bytes ⇄ fields layer of Peregrine: a zero-copy, zero-allocation FIX
//! tag=value codec.
//!
//! * [`frame`]: find complete messages in a byte stream (8= first, 9= second,
//!   35= third, `10=nnn` exactly where BodyLength says), skip garbage, bound
//!   memory against hostile lengths.
//! * [`Decoder`] / [`MessageView`]: validate BodyLength, CheckSum and field
//!   syntax, honour length-prefixed data fields, and index the fields in place:
//!   O(1) lookup by tag, wire-order iteration, repeated tags and groups.
//! * [`value`]: integers, fixed-point decimals, booleans, chars, timestamps and
//!   dates, parsed and formatted without allocation or floating point.
//! * [`EncodeBuffer`]: build messages into a reused buffer with minimal
//!   BodyLength digits and the CheckSum.
//! * [`tag`] and [`msg_type`]: the session layer's tag numbers and message
//!   types by their FIX names (`tag::MSG_SEQ_NUM`, `msg_type::LOGON`).
//! * [`Level`], [`detected_level`] and [`supported`]: which of the vectorised
//!   scans (AVX-512, AVX2 or SSE2 chosen at run time, scalar fallback) this CPU
//!   runs. The scans themselves (`simd`) are internal: with the encoder's
//!   output cursor (`out`), the only modules with `unsafe`.
//!
//! How a message is decoded: one vector pass marks SOH, `=`, digits and `0`
//! per 64-byte block and sums the bytes; the `=` that ends every tag is then
//! found for all fields at once by adding the field starts to the digit mask
//! (the carry runs through each tag's digits and stops on its `=`), which
//! also checks every tag's syntax. On AVX-512, a message of up to 256 bytes
//! is finished in the same registers (tag values, field spans, index); other
//! messages take a scalar walk with no dependency between fields; data
//! fields (raw bytes that may hold SOH) and anything malformed take the
//! general walk, which reports the precise error.
//!
//! ```
//! use peregrine_codec::{Decoder, DecoderConfig, EncodeBuffer, frame::{Framer, Frame}};
//!
//! let mut out = EncodeBuffer::new();
//! let mut m = out.start(b"FIX.4.4", b"0");
//! m.str(49, b"A").str(56, b"B").uint(34, 2);
//! let wire = m.finish().to_vec();
//!
//! assert_eq!(Framer::default().next_frame(&wire), Frame::Message { len: wire.len() });
//! let mut decoder = Decoder::new(DecoderConfig::default());
//! let view = decoder.decode(&wire).unwrap();
//! assert_eq!(view.get_as::<u64>(34), Some(Ok(2)));
//! ```
#![deny(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]
#![warn(clippy::missing_errors_doc)]

pub mod decode;
pub mod encode;
pub mod frame;
pub mod msg_type;
mod out;
mod simd;
mod span;
pub mod tag;
pub mod value;

/// What the examples and benchmarks reach inside the codec (two of the
/// internal vector scans and a timing loop): not part of its API, not covered
/// by semantic versioning, and free to change or go at any time.
#[doc(hidden)]
pub mod __bench {
    pub use crate::simd::{field_masks_and_sum, BlockMasks};

    /// How the examples time `op`: `n` calls (at least one batch) in batches of
    /// 2,000. Returns the mean and the fastest batch's nanoseconds per call (a
    /// busy machine's preemption only ever adds time), and the wrapping sum of
    /// what `op` returned, which keeps its work from being optimised away.
    /// Inlined, so that the loop around `op` is compiled as it would be in the
    /// caller (the instruction counts of the examples stay what they were).
    #[inline(always)]
    pub fn time_batches(n: u32, op: &mut dyn FnMut() -> usize) -> (f64, f64, usize) {
        let batch = 2_000u32;
        let batches = (n / batch).max(1);
        let mut s = 0usize;
        let mut best = f64::MAX;
        let t = std::time::Instant::now();
        for _ in 0..batches {
            let b = std::time::Instant::now();
            for _ in 0..batch {
                s = s.wrapping_add(op());
            }
            best = best.min(b.elapsed().as_nanos() as f64 / batch as f64);
        }
        let mean = t.elapsed().as_nanos() as f64 / (batches * batch) as f64;
        (mean, best, s)
    }
}

pub use decode::{
    DataFields, DecodeError, DecodePath, Decoder, DecoderConfig, Field, FieldIter, FieldSlice,
    FromFixValue, Group, GroupEntries, MessageView, TagIter,
};
pub use encode::{EncodeBuffer, MessageEncoder};
pub use frame::{Frame, FrameEvent, Framer, GarbledReason};
pub use simd::{detected_level, supported, Level};

/// The FIX field delimiter, SOH (0x01).
pub const SOH: u8 = 0x01;

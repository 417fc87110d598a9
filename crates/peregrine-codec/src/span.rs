//! Where a decoded field lies in its message: the one type the decoder and
//! the vector scans ([`crate::simd`]) both write, kept apart so that neither
//! module depends on the other for it.

/// One field's tag and the position of its value in the message
/// (`msg[start..end]`, without `=` and SOH). Three `u32`s in this order: the
/// AVX-512 decoder writes them as such.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(crate) struct FieldSpan {
    pub(crate) tag: u32,
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// Sixteen spans on three cache lines of their own: the decoder's field
/// table is made of these, so that the vector decoder's 64-byte stores of
/// spans are never split across lines. (`repr(C)`, 16 x 12 = 192 bytes, a
/// multiple of its alignment: a slice of chunks is a slice of spans sixteen
/// times as long, which `simd::spans` relies on.)
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct SpanChunk(pub(crate) [FieldSpan; 16]);

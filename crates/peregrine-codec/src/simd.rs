//! The only module of the codec that uses `unsafe`: vectorised scans.
//!
//! Two primitives, both with a runtime-detected AVX2 path, an SSE2 path and a
//! scalar fallback that defines their meaning:
//!
//! * [`field_masks_and_sum`]: for every 64-byte block of the input, bit masks
//!   of the positions holding SOH (0x01) and of the bytes that are not digits,
//!   and the wrapping byte sum of the input (the FIX CheckSum is that sum
//!   modulo 256). One pass serves the field walk, tag syntax and the checksum.
//! * [`byte_sum`]: the byte sum alone (for the encoder's CheckSum).
//!
//! Safety argument for every `unsafe` block below: the intrinsics are only
//! called after `is_x86_feature_detected!` confirmed the CPU supports them,
//! and every load reads a full 16/32-byte lane strictly inside the slice
//! (`chunks_exact`) or inside a zero-padded 64-byte copy of the last partial
//! block, using unaligned loads. The property tests at the bottom check that each
//! vector path agrees with the scalar definition on random input.
#![allow(unsafe_code)]

use crate::SOH;

/// Which implementation the runtime detection picked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Plain Rust loops.
    Scalar,
    /// 16-byte SSE2 lanes.
    Sse2,
    /// 32-byte AVX2 lanes.
    Avx2,
}

/// The best implementation this CPU supports.
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
            _ => {}
        }
        let level = if std::is_x86_feature_detected!("avx2") {
            Level::Avx2
        } else if std::is_x86_feature_detected!("sse2") {
            Level::Sse2
        } else {
            Level::Scalar
        };
        let code = match level {
            Level::Scalar => 1,
            Level::Sse2 => 2,
            Level::Avx2 => 3,
        };
        CACHE.store(code, Ordering::Relaxed);
        level
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Level::Scalar
    }
}

/// Writes, for every 64-byte block of `input`, a bit mask of its SOH bytes
/// into `soh` and one of its bytes that are not ASCII digits into `non_digit`
/// (both at least `input.len().div_ceil(64)` words), and returns the wrapping
/// sum of all bytes. A tag is then the run of digits after an SOH, ended by
/// the first non-digit, which must be `=`.
#[inline]
pub fn field_masks_and_sum(input: &[u8], soh: &mut [u64], non_digit: &mut [u64]) -> u32 {
    field_masks_and_sum_at(detected_level(), input, soh, non_digit)
}

/// [`field_masks_and_sum`] with an explicit implementation (for tests and benchmarks).
///
/// A `level` the CPU does not support falls back to the scalar code.
pub fn field_masks_and_sum_at(
    level: Level,
    input: &[u8],
    soh: &mut [u64],
    non_digit: &mut [u64],
) -> u32 {
    let blocks = input.len().div_ceil(64);
    assert!(
        soh.len() >= blocks && non_digit.len() >= blocks,
        "mask buffer too small"
    );
    #[cfg(target_arch = "x86_64")]
    {
        if level == Level::Avx2 && std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 support was just checked.
            return unsafe { x86::mask_sum_avx2(input, soh, non_digit) };
        }
        if level != Level::Scalar && std::is_x86_feature_detected!("sse2") {
            // SAFETY: SSE2 support was just checked.
            return unsafe { x86::mask_sum_sse2(input, soh, non_digit) };
        }
    }
    let _ = level;
    scalar_masks_and_sum(input, soh, non_digit)
}

/// Wrapping sum of all bytes of `input`.
#[inline]
pub fn byte_sum(input: &[u8]) -> u32 {
    byte_sum_at(detected_level(), input)
}

/// [`byte_sum`] with an explicit implementation.
pub fn byte_sum_at(level: Level, input: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if level == Level::Avx2 && std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 support was just checked.
            return unsafe { x86::sum_avx2(input) };
        }
        if level != Level::Scalar && std::is_x86_feature_detected!("sse2") {
            // SAFETY: SSE2 support was just checked.
            return unsafe { x86::sum_sse2(input) };
        }
    }
    let _ = level;
    scalar_sum(input)
}

/// The reference definition of [`field_masks_and_sum`].
pub fn scalar_masks_and_sum(input: &[u8], soh: &mut [u64], non_digit: &mut [u64]) -> u32 {
    let mut sum = 0u32;
    for ((block, sm), nm) in input
        .chunks(64)
        .zip(soh.iter_mut())
        .zip(non_digit.iter_mut())
    {
        let (mut s, mut n) = (0u64, 0u64);
        for (i, &b) in block.iter().enumerate() {
            sum = sum.wrapping_add(b as u32);
            s |= ((b == SOH) as u64) << i;
            n |= (!b.is_ascii_digit() as u64) << i;
        }
        // Bytes past the end count as non-digits.
        if block.len() < 64 {
            n |= !0u64 << block.len();
        }
        *sm = s;
        *nm = n;
    }
    sum
}

/// The reference definition of [`byte_sum`].
pub fn scalar_sum(input: &[u8]) -> u32 {
    input.iter().fold(0u32, |s, &b| s.wrapping_add(b as u32))
}

#[cfg(target_arch = "x86_64")]
mod x86 {
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

    /// The last partial block, copied into a zero-padded 64-byte block
    /// (zeros add nothing to the sum and are not SOH).
    fn padded_tail(tail: &[u8]) -> [u8; 64] {
        let mut block = [0u8; 64];
        block[..tail.len()].copy_from_slice(tail);
        block
    }

    /// SOH bits, non-digit bits and the byte sum of one 32-byte vector.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn lane_avx2(v: __m256i, acc: &mut __m256i) -> (u64, u64) {
        let soh = _mm256_set1_epi8(crate::SOH as i8);
        let zero_char = _mm256_set1_epi8(b'0' as i8);
        let nine = _mm256_set1_epi8(9);
        let zero = _mm256_setzero_si256();
        let s = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, soh)) as u32 as u64;
        // A digit minus '0' is 0..=9: unchanged by min(x, 9).
        let d = _mm256_sub_epi8(v, zero_char);
        let digit = _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(d, nine), d)) as u32;
        *acc = _mm256_add_epi64(*acc, _mm256_sad_epu8(v, zero));
        (s, (!digit) as u64)
    }

    /// SAFETY: the caller guarantees AVX2 is available. `p` must point at 64 readable bytes.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn block_avx2(p: *const u8, acc: &mut __m256i) -> (u64, u64) {
        let (sa, na) = lane_avx2(_mm256_loadu_si256(p as *const __m256i), acc);
        let (sb, nb) = lane_avx2(_mm256_loadu_si256(p.add(32) as *const __m256i), acc);
        (sa | (sb << 32), na | (nb << 32))
    }

    /// SAFETY: the caller guarantees AVX2 is available. Every block handed to
    /// `block_avx2` is a 64-byte `chunks_exact` block or the padded tail array;
    /// the overlapping tail re-read covers `input[len-64..len]` (only when
    /// `len >= 64`), and the mask loads stay inside `TAIL_MASK` (1 <= keep <= 63).
    #[target_feature(enable = "avx2")]
    pub unsafe fn mask_sum_avx2(input: &[u8], soh_out: &mut [u64], nd_out: &mut [u64]) -> u32 {
        let mut acc = _mm256_setzero_si256();
        let blocks = input.chunks_exact(64);
        let tail = blocks.remainder();
        let mut n = 0;
        for ((block, sm), nm) in blocks.zip(soh_out.iter_mut()).zip(nd_out.iter_mut()) {
            (*sm, *nm) = block_avx2(block.as_ptr(), &mut acc);
            n += 1;
        }
        if !tail.is_empty() {
            let keep = tail.len();
            let (s, nd) = if input.len() >= 64 {
                // Re-read the last 64 bytes and drop the part already counted.
                let p = input.as_ptr().add(input.len() - 64);
                let mask = _mm256_loadu_si256(TAIL_MASK.as_ptr().add(keep) as *const __m256i);
                let mask_hi =
                    _mm256_loadu_si256(TAIL_MASK.as_ptr().add(keep + 32) as *const __m256i);
                let a = _mm256_and_si256(_mm256_loadu_si256(p as *const __m256i), mask);
                let b = _mm256_and_si256(_mm256_loadu_si256(p.add(32) as *const __m256i), mask_hi);
                let (sa, na) = lane_avx2(a, &mut acc);
                let (sb, nb) = lane_avx2(b, &mut acc);
                let shift = 64 - keep;
                ((sa | (sb << 32)) >> shift, (na | (nb << 32)) >> shift)
            } else {
                let block = padded_tail(tail);
                block_avx2(block.as_ptr(), &mut acc)
            };
            soh_out[n] = s;
            // Bytes past the end count as non-digits.
            nd_out[n] = nd | (!0u64 << keep);
        }
        let mut lanes = [0u64; 4];
        _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, acc);
        lanes.iter().fold(0u64, |s, &x| s.wrapping_add(x)) as u32
    }

    /// SAFETY: the caller guarantees SSE2 is available. `p` must point at 64 readable bytes.
    #[target_feature(enable = "sse2")]
    #[inline]
    unsafe fn block_sse2(p: *const u8, acc: &mut __m128i) -> (u64, u64) {
        let soh = _mm_set1_epi8(crate::SOH as i8);
        let zero_char = _mm_set1_epi8(b'0' as i8);
        let nine = _mm_set1_epi8(9);
        let zero = _mm_setzero_si128();
        let (mut s, mut nd) = (0u64, 0u64);
        for lane in 0..4 {
            let v = _mm_loadu_si128(p.add(lane * 16) as *const __m128i);
            s |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, soh)) as u32 as u64) << (lane * 16);
            let d = _mm_sub_epi8(v, zero_char);
            let digit = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, nine), d)) as u32;
            nd |= ((!digit & 0xFFFF) as u64) << (lane * 16);
            *acc = _mm_add_epi64(*acc, _mm_sad_epu8(v, zero));
        }
        (s, nd)
    }

    /// SAFETY: the caller guarantees SSE2 is available. Every block handed to
    /// `block_sse2` is a 64-byte `chunks_exact` block or the padded tail array.
    #[target_feature(enable = "sse2")]
    pub unsafe fn mask_sum_sse2(input: &[u8], soh_out: &mut [u64], nd_out: &mut [u64]) -> u32 {
        let mut acc = _mm_setzero_si128();
        let blocks = input.chunks_exact(64);
        let tail = blocks.remainder();
        let mut n = 0;
        for ((block, sm), nm) in blocks.zip(soh_out.iter_mut()).zip(nd_out.iter_mut()) {
            (*sm, *nm) = block_sse2(block.as_ptr(), &mut acc);
            n += 1;
        }
        if !tail.is_empty() {
            let block = padded_tail(tail);
            let (s, nd) = block_sse2(block.as_ptr(), &mut acc);
            soh_out[n] = s;
            nd_out[n] = nd | (!0u64 << tail.len());
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
                let mut padded = [0u8; 32];
                padded[..tail.len()].copy_from_slice(tail);
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
            let mut padded = [0u8; 16];
            padded[..tail.len()].copy_from_slice(tail);
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

    fn check_all_levels(input: &[u8]) {
        let n = input.len().div_ceil(64);
        let (mut ref_soh, mut ref_nd) = (vec![0u64; n], vec![0u64; n]);
        let want = scalar_masks_and_sum(input, &mut ref_soh, &mut ref_nd);
        assert_eq!(scalar_sum(input), want);
        for level in [Level::Sse2, Level::Avx2] {
            let (mut soh, mut nd) = (vec![0u64; n], vec![0u64; n]);
            let got = field_masks_and_sum_at(level, input, &mut soh, &mut nd);
            assert_eq!(got, want, "{level:?} sum");
            assert_eq!(soh, ref_soh, "{level:?} SOH masks");
            assert_eq!(nd, ref_nd, "{level:?} non-digit masks");
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
        let (mut soh, mut nd) = ([0u64; 3], [0u64; 3]);
        field_masks_and_sum(&input, &mut soh, &mut nd);
        assert_eq!(soh, [1 | (1 << 63), 1, 1 << 1]);
        assert_eq!(nd, [!(1u64 << 1), !(1u64 << 6), !0]);
        check_all_levels(&input);
    }

    #[test]
    fn sum_of_high_bytes_does_not_overflow_lanes() {
        let input = vec![0xFFu8; 100_000];
        check_all_levels(&input);
        assert_eq!(byte_sum(&input), 255 * 100_000);
    }

    proptest! {
        #[test]
        fn vector_paths_agree_with_scalar(input in proptest::collection::vec(
            prop_oneof![Just(SOH), Just(b'='), b'0'..=b'9', Just(b'/'), Just(b':'), any::<u8>()], 0..600)) {
            check_all_levels(&input);
        }
    }
}

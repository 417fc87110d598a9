//! The tag index ([`TagIndex`]): for every tag of the message, its first
//! field, found in O(1) without clearing anything between messages.

use crate::span::FieldSpan;

/// Tags below this are indexed by a direct table; others by a small hash table.
pub(super) const DIRECT_TAGS: usize = 1024;

/// OverflowSlot of the overflow index (tags >= DIRECT_TAGS): valid only when
/// `generation` matches the decoder's.
#[derive(Clone, Copy, Debug, Default)]
struct OverflowSlot {
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
pub(crate) struct TagIndex {
    /// `generation << 32 | first` per tag below DIRECT_TAGS.
    pub(super) direct: Box<[u64; DIRECT_TAGS]>,
    overflow: Vec<OverflowSlot>,
    shift: u32,
    pub(super) generation: u32,
}

impl TagIndex {
    pub(super) fn new() -> Self {
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
        self.overflow = vec![OverflowSlot::default(); slots];
        self.shift = 32 - slots.trailing_zeros();
    }

    /// Starts a new message.
    pub(super) fn next_generation(&mut self, max_fields: usize) {
        if max_fields * 2 > self.overflow.len() {
            self.resize_overflow(max_fields * 2);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.direct.fill(0);
            self.overflow.fill(OverflowSlot::default());
            self.generation = 1;
        }
    }

    /// Indexes every field of `spans`, whose tags are all below
    /// [`DIRECT_TAGS`]: one store per field.
    #[inline(always)]
    pub(super) fn index_direct(&mut self, spans: &[FieldSpan]) {
        let generation = (self.generation as u64) << 32;
        for (i, e) in spans.iter().enumerate().rev() {
            self.direct[e.tag as usize % DIRECT_TAGS] = generation | i as u64;
        }
    }

    /// Indexes every field of `spans`, whatever their tags.
    pub(super) fn index_all(&mut self, spans: &[FieldSpan]) {
        for (i, e) in spans.iter().enumerate().rev() {
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
                *s = OverflowSlot {
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
    pub(super) fn find(&self, tag: u32) -> Option<u32> {
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

//! Resolved, flattened scopes: the dense tables validation walks.

use crate::dictionary::{Dictionary, SECTION_HEADER, SECTION_TRAILER};

pub(crate) const NO_GROUP: u32 = u32::MAX;

/// Per-tag validation info, dense by tag (8 bytes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FieldInfo {
    /// 0 = tag not defined, else a `FormatClass` discriminant.
    pub(crate) class: u8,
    /// Multi-value type: the enum check applies per space-separated token.
    pub(crate) multi: bool,
    /// Index into `Runtime::enums`, or `u32::MAX`.
    pub(crate) enum_idx: u32,
}

impl FieldInfo {
    pub(crate) const NO_ENUM: u32 = u32::MAX;
}

impl Default for FieldInfo {
    /// An undefined tag: no format, no enum.
    fn default() -> Self {
        FieldInfo {
            class: 0,
            multi: false,
            enum_idx: FieldInfo::NO_ENUM,
        }
    }
}

/// A small set of enum values: one-byte values in a bitmap, values of 2 to 7 bytes as
/// sorted integer keys, longer ones sorted.
#[derive(Debug, Clone, Default)]
pub(crate) struct EnumSet {
    single: [u64; 4],
    /// The one-byte values that are also well-formed for the field's format class: a
    /// one-byte value in here passes both checks.
    fast: [u64; 4],
    /// Values of 2 to 7 bytes, as [`EnumSet::key`], sorted.
    short: Vec<u64>,
    long: Vec<Box<[u8]>>,
}

impl EnumSet {
    /// The integer key of a 2- to 7-byte value: its bytes and its length.
    #[inline]
    fn key(v: &[u8]) -> u64 {
        v.iter().fold(v.len() as u64, |k, &b| k << 8 | b as u64)
    }

    pub(crate) fn insert(&mut self, v: &[u8]) {
        match v.len() {
            1 => self.single[(v[0] >> 6) as usize] |= 1u64 << (v[0] & 63),
            2..=7 => {
                let k = Self::key(v);
                if let Err(i) = self.short.binary_search(&k) {
                    self.short.insert(i, k);
                }
            }
            _ => {
                if let Err(i) = self.long.binary_search_by(|x| (**x).cmp(v)) {
                    self.long.insert(i, v.to_vec().into_boxed_slice());
                }
            }
        }
    }

    #[inline]
    pub(crate) fn contains(&self, v: &[u8]) -> bool {
        match v.len() {
            1 => self.contains_byte(v[0]),
            2..=7 => self.short.binary_search(&Self::key(v)).is_ok(),
            _ => self.long.binary_search_by(|x| (**x).cmp(v)).is_ok(),
        }
    }

    /// Whether the one-byte value `b` is in the set.
    #[inline(always)]
    pub(crate) fn contains_byte(&self, b: u8) -> bool {
        self.single[(b >> 6) as usize] & (1u64 << (b & 63)) != 0
    }

    /// Whether the one-byte value `b` is in the set and well-formed for the field's
    /// format class (see [`EnumSet::set_format`]).
    #[inline(always)]
    pub(crate) fn contains_byte_well_formed(&self, b: u8) -> bool {
        self.fast[(b >> 6) as usize] & (1u64 << (b & 63)) != 0
    }

    /// Records the field's format class: fills the one-byte values that pass it.
    pub(crate) fn set_format(&mut self, class: u8) {
        for b in 0..=255u8 {
            if self.contains_byte(b) && crate::format::check(class, &[b]) {
                self.fast[(b >> 6) as usize] |= 1u64 << (b & 63);
            }
        }
    }
}

/// One member slot of a flattened scope (16 bytes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slot {
    pub(crate) tag: u32,
    pub(crate) required: bool,
    /// Scope index of the group this count tag opens, or `NO_GROUP`.
    pub(crate) group: u32,
    /// The field's [`FieldInfo`] (filled in once the field table is built).
    pub(crate) info: FieldInfo,
}

/// Field descriptors: what the validator needs to know about a tag in one scope, in one
/// `u32`, so that a field costs one table load. Tables of descriptors are dense by tag;
/// a descriptor whose bit is 0 is a tag that is not a member.
///
/// | bits | content |
/// | --- | --- |
/// | 0–19 | the member's bit in the walk's bitset (slot + 1; 0: not a member) |
/// | 20–23 | format class (`FormatClass` discriminant, 0 for an undefined tag) |
/// | 24 | the member has an enum check |
/// | 25 | the member is a group's count field |
/// | 26 | top-level tables only: not a member (the bit is 0) |
/// | 27 | a member the walk's fast path leaves to the general path (group, multi-value enum) |
/// | 28 | multi-value type (the enum check applies per space-separated token) |
/// | 29 | a required member (framing fields 8, 9, 35, 10 excepted: never reported missing) |
/// | 30–31 | top-level tables only: the section's order rank, header 0, body 1, trailer 2 |
pub(crate) mod desc {
    use super::Slot;
    use crate::scope::NO_GROUP;

    /// The bit (slot + 1) of a member.
    pub(crate) const BIT: u32 = (1 << 20) - 1;
    pub(crate) const CLASS_SHIFT: u32 = 20;
    pub(crate) const ENUM: u32 = 1 << 24;
    pub(crate) const GROUP: u32 = 1 << 25;
    pub(crate) const NON_MEMBER: u32 = 1 << 26;
    pub(crate) const SLOW: u32 = 1 << 27;
    pub(crate) const MULTI: u32 = 1 << 28;
    /// Shift of the required flag.
    pub(crate) const REQUIRED_SHIFT: u32 = 29;
    /// Shift of the order rank (top-level tables).
    pub(crate) const RANK_SHIFT: u32 = 30;
    /// Rank of the body.
    pub(crate) const BODY: u32 = 1 << RANK_SHIFT;
    /// Rank of the trailer.
    pub(crate) const TRAILER: u32 = 2 << RANK_SHIFT;
    /// A body tag that is not a member.
    pub(crate) const BODY_NON_MEMBER: u32 = BODY | NON_MEMBER;
    /// A value check beyond non-emptiness: a format (class above TEXT) or an enum.
    pub(crate) const CHECKS: u32 = 0xE << CLASS_SHIFT | ENUM;

    /// Descriptor of the member in slot `slot` (bit `slot + 1`; slots past [`BIT`] — a
    /// million members, far beyond any dictionary — share the last bit).
    pub(crate) fn of(slot: usize, s: &Slot) -> u32 {
        let bit = (slot as u32).saturating_add(1).min(BIT);
        let mut d = bit | (s.info.class as u32 & 0xF) << CLASS_SHIFT;
        if s.info.enum_idx != super::FieldInfo::NO_ENUM {
            d |= ENUM;
        }
        if s.group != NO_GROUP {
            d |= GROUP | SLOW;
        }
        if s.info.multi {
            d |= MULTI;
            if d & ENUM != 0 {
                d |= SLOW;
            }
        }
        if s.required && !super::is_framing(s.tag) {
            d |= 1 << REQUIRED_SHIFT;
        }
        d
    }

    /// The bit of a descriptor, `off` bits further (saturating within [`BIT`]).
    pub(crate) fn shifted(d: u32, off: u32) -> u32 {
        let bit = ((d & BIT) + off).min(BIT);
        (d & !BIT) | bit
    }

    #[inline(always)]
    pub(crate) fn class(d: u32) -> u8 {
        (d >> CLASS_SHIFT & 0xF) as u8
    }

    /// The section (`SECTION_*`) of a top-level descriptor.
    #[inline(always)]
    pub(crate) fn section(d: u32) -> u8 {
        use crate::dictionary::{SECTION_BODY, SECTION_HEADER, SECTION_TRAILER};
        match d >> RANK_SHIFT {
            0 => SECTION_HEADER,
            1 => SECTION_BODY,
            _ => SECTION_TRAILER,
        }
    }
}

/// A flattened message body, header, trailer or group: components expanded, nested groups
/// referenced by scope index.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    /// Dense by tag: the member's descriptor ([`desc`]), 0 when the tag is not a member.
    pub(crate) desc: Box<[u32]>,
    /// Members in dictionary order (slot index = position; bit = slot + 1).
    pub(crate) slots: Box<[Slot]>,
    /// Slot indices of required members, ascending by tag.
    pub(crate) required: Box<[u16]>,
    /// First member tag (groups only; 0 otherwise).
    pub(crate) delimiter: u32,
    /// Bitset words for one instance (bits 1 to `slots.len()`).
    pub(crate) words: u32,
    /// `words` words: the bits of the required members, framing fields (8, 9, 35, 10)
    /// left out (the codec guarantees them and they are never reported missing). An
    /// instance is complete when its bits cover this mask.
    pub(crate) req_mask: Box<[u64]>,
    /// Words for one instance plus the deepest chain of nested groups.
    pub(crate) need: u32,
}

impl Scope {
    #[inline(always)]
    pub(crate) fn slot(&self, tag: u32) -> Option<usize> {
        match self.desc.get(tag as usize) {
            Some(&d) if d & desc::BIT != 0 => Some((d & desc::BIT) as usize - 1),
            _ => None,
        }
    }

    /// Fills in the descriptors from the slots (once their field info is known).
    pub(crate) fn fill_desc(&mut self) {
        for (i, s) in self.slots.iter().enumerate() {
            self.desc[s.tag as usize] = desc::of(i, s);
        }
    }
}

/// A message's precompiled top-level table (header, trailer and body of one message).
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    /// Bitset words the walk needs for groups: the deepest chain of group instances of any
    /// one top-level group.
    pub(crate) groups_need: u32,
    /// Top-level bits: one past the highest (header/trailer bits, then the body's).
    pub(crate) bits: u32,
    /// Required top-level members (header, trailer and body; framing fields left out).
    pub(crate) required: u32,
    /// Dense by tag: [`HeaderTrailer::lookup`] for every tag up to the highest header,
    /// trailer or body tag (`desc::BODY_NON_MEMBER` past it).
    pub(crate) lut: Box<[u32]>,
    /// By top-level bit: the member's enum set (`Runtime::enums` of the header/trailer's or
    /// the body's dictionary, by the descriptor's section), or `FieldInfo::NO_ENUM`.
    pub(crate) enums: Box<[u32]>,
}

/// Bitset words for `n` members (bits 1 to `n`).
pub(crate) fn words_for(n: usize) -> usize {
    (n + 1).div_ceil(64)
}

/// The framing fields, never reported missing (the codec guarantees them).
#[inline]
pub(crate) fn is_framing(tag: u32) -> bool {
    matches!(tag, 8 | 9 | 35 | 10)
}

/// Required-member mask of a scope (bit = slot + 1), `words` words, framing fields left out.
pub(crate) fn required_mask(slots: &[Slot], words: usize) -> Box<[u64]> {
    let mut mask = vec![0u64; words];
    for (i, s) in slots.iter().enumerate() {
        let bit = (i + 1).min(desc::BIT as usize);
        if s.required && !is_framing(s.tag) {
            mask[bit >> 6] |= 1u64 << (bit & 63);
        }
    }
    mask.into_boxed_slice()
}

/// A transport dictionary's header and trailer combined for the top-level walk: one lookup
/// by tag gives the tag's section and, for a member, its descriptor; the members share one
/// bitset (header bits 1 to H, then trailer bits), the body's bits follow from word
/// `words` on.
#[derive(Debug, Clone, Default)]
pub(crate) struct HeaderTrailer {
    /// Dense by tag up to the highest header or trailer tag (longer tags are body tags):
    /// 0 for a body tag, else a descriptor with its rank (header or trailer), for a header
    /// or trailer tag that is not a member `desc::NON_MEMBER` and the rank.
    pub(crate) lut: Box<[u32]>,
    /// Header members then trailer members; a member's bit is its position here + 1.
    pub(crate) slots: Box<[Slot]>,
    /// Number of header members (the trailer's bits follow theirs).
    pub(crate) header_len: u32,
    /// Bitset words for `slots`.
    pub(crate) words: u32,
    /// Required members' bits (framing fields left out), `words` words.
    pub(crate) req_mask: Box<[u64]>,
    /// Scratch words of the deepest chain of header or trailer group instances.
    pub(crate) groups_need: u32,
}

impl HeaderTrailer {
    /// Builds the table from the flattened header and trailer (descriptors filled in) and
    /// the section of each tag.
    pub(crate) fn new(header: &Scope, trailer: &Scope, section: &[u8]) -> HeaderTrailer {
        let slots: Vec<Slot> = header
            .slots
            .iter()
            .chain(trailer.slots.iter())
            .copied()
            .collect();
        let header_len = header.slots.len();
        let lut = section
            .iter()
            .enumerate()
            .map(|(tag, &sec)| match sec {
                SECTION_HEADER => match header.desc.get(tag) {
                    Some(&d) if d != 0 => d,
                    _ => desc::NON_MEMBER,
                },
                SECTION_TRAILER => match trailer.desc.get(tag) {
                    Some(&d) if d != 0 => desc::shifted(d, header_len as u32) | desc::TRAILER,
                    _ => desc::TRAILER | desc::NON_MEMBER,
                },
                _ => 0,
            })
            .collect();
        let words = words_for(slots.len());
        HeaderTrailer {
            lut,
            groups_need: (header.need - header.words).max(trailer.need - trailer.words),
            req_mask: required_mask(&slots, words),
            slots: slots.into_boxed_slice(),
            header_len: header_len as u32,
            words: words as u32,
        }
    }

    /// The first bit of the body's members in the walk's bitset.
    #[inline(always)]
    pub(crate) fn body_offset(&self) -> u32 {
        self.words * 64
    }

    /// The top-level plan of a message whose body is `body`: for each tag, the
    /// header/trailer descriptor if the tag is a header or trailer tag, else the body's,
    /// its bit moved past the header and trailer ([`HeaderTrailer::body_offset`]). One load
    /// per field instead of two; [`HeaderTrailer::lookup`] computes the same function.
    pub(crate) fn plan(&self, body: &Scope) -> Plan {
        let len = self.lut.len().max(body.desc.len());
        let lut = (0..len as u32).map(|tag| self.lookup(body, tag)).collect();
        let off = self.body_offset() as usize;
        let mut enums = vec![FieldInfo::NO_ENUM; off + body.slots.len() + 1];
        for (i, s) in self.slots.iter().enumerate() {
            enums[i + 1] = s.info.enum_idx;
        }
        for (i, s) in body.slots.iter().enumerate() {
            enums[off + i + 1] = s.info.enum_idx;
        }
        Plan {
            groups_need: self.groups_need(body),
            bits: enums.len() as u32,
            required: self.required(body),
            lut,
            enums: enums.into_boxed_slice(),
        }
    }

    /// Group bitset words the walk needs for a message whose body is `body` (see
    /// [`Plan::groups_need`]).
    #[inline]
    pub(crate) fn groups_need(&self, body: &Scope) -> u32 {
        self.groups_need.max(body.need - body.words)
    }

    /// Top-level bits of a message whose body is `body` (see [`Plan::bits`]).
    #[inline]
    pub(crate) fn bits(&self, body: &Scope) -> u32 {
        self.body_offset() + body.slots.len() as u32 + 1
    }

    /// Required top-level members of a message whose body is `body` (see
    /// [`Plan::required`]).
    #[inline]
    pub(crate) fn required(&self, body: &Scope) -> u32 {
        let count = |mask: &[u64]| mask.iter().map(|w| w.count_ones()).sum::<u32>();
        count(&self.req_mask) + count(&body.req_mask)
    }

    /// The member with this top-level bit (from [`HeaderTrailer::lookup`] with `body`).
    #[inline]
    pub(crate) fn member<'s>(&'s self, body: &'s Scope, d: u32) -> &'s Slot {
        let bit = (d & desc::BIT) as usize;
        if desc::section(d) == crate::dictionary::SECTION_BODY {
            &body.slots[bit - self.body_offset() as usize - 1]
        } else {
            &self.slots[bit - 1]
        }
    }

    /// The top-level descriptor of `tag` for a message whose body is `body`.
    #[inline(always)]
    pub(crate) fn lookup(&self, body: &Scope, tag: u32) -> u32 {
        match self.lut.get(tag as usize) {
            Some(&h) if h != 0 => h,
            _ => match body.desc.get(tag as usize) {
                Some(&d) if d != 0 => desc::shifted(d, self.body_offset()) | desc::BODY,
                _ => desc::BODY_NON_MEMBER,
            },
        }
    }
}

/// A read-only view of a flattened scope (message body, header, trailer or group):
/// components are expanded; a required flag is effective only when every enclosing
/// component is required too (QuickFIX's rule).
///
/// ```
/// use peregrine_dict::Dictionary;
/// let dict = Dictionary::from_file("dictionaries/FIX44.xml").unwrap();
/// let nos = dict.message_scope("D").unwrap();
/// let parties = nos.group(453).unwrap(); // NoPartyIDs
/// assert_eq!(parties.delimiter(), Some(448)); // PartyID
/// assert!(parties.group(802).is_some()); // NoPartySubIDs, nested
/// assert!(!nos.is_required(55)); // Symbol sits in the Instrument component, optional there
/// ```
#[derive(Clone, Copy)]
pub struct FlatScope<'d> {
    dict: &'d Dictionary,
    index: u32,
}

impl std::fmt::Debug for FlatScope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlatScope")
            .field("tags", &self.tags().collect::<Vec<_>>())
            .finish()
    }
}

impl<'d> FlatScope<'d> {
    pub(crate) fn new(dict: &'d Dictionary, index: u32) -> Self {
        FlatScope { dict, index }
    }
    fn scope(&self) -> &'d Scope {
        &self.dict.rt.scopes[self.index as usize]
    }
    /// Number of member tags (components flattened; a group counts as its count tag).
    pub fn len(&self) -> usize {
        self.scope().slots.len()
    }
    /// True if the scope has no members.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// True if the tag is allowed directly in this scope.
    pub fn contains(&self, tag: u32) -> bool {
        self.scope().slot(tag).is_some()
    }
    /// True if the tag is a required member.
    pub fn is_required(&self, tag: u32) -> bool {
        self.scope()
            .slot(tag)
            .is_some_and(|s| self.scope().slots[s].required)
    }
    /// Member tags in dictionary order.
    pub fn tags(&self) -> impl Iterator<Item = u32> + 'd {
        self.scope().slots.iter().map(|s| s.tag)
    }
    /// Required member tags, ascending.
    pub fn required_tags(&self) -> impl Iterator<Item = u32> + 'd {
        let sc = self.scope();
        sc.required.iter().map(move |&i| sc.slots[i as usize].tag)
    }
    /// The group opened by this count tag, if it is one of this scope's groups.
    pub fn group(&self, count_tag: u32) -> Option<FlatScope<'d>> {
        let sc = self.scope();
        let s = sc.slot(count_tag)?;
        let g = sc.slots[s].group;
        (g != NO_GROUP).then(|| FlatScope::new(self.dict, g))
    }
    /// All groups of this scope as (count tag, group scope), in dictionary order.
    pub fn groups(&self) -> impl Iterator<Item = (u32, FlatScope<'d>)> + 'd {
        let dict = self.dict;
        self.scope()
            .slots
            .iter()
            .filter(|s| s.group != NO_GROUP)
            .map(move |s| (s.tag, FlatScope::new(dict, s.group)))
    }
    /// For a group: the delimiter (first member) tag.
    pub fn delimiter(&self) -> Option<u32> {
        let d = self.scope().delimiter;
        (d != 0).then_some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::EnumSet;
    use std::collections::HashSet;

    /// The set's three representations (bitmap, integer keys, sorted bytes) answer as a
    /// plain set does, for values of every length, members or not.
    #[test]
    fn enum_set_is_a_set() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet = b"0129AZaz_ .\x00\xff";
        let value = |next: &mut dyn FnMut() -> u64| -> Vec<u8> {
            let len = (next() % 11) as usize;
            (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect()
        };
        for _ in 0..200 {
            let (mut set, mut plain) = (EnumSet::default(), HashSet::new());
            for _ in 0..(next() % 40) {
                let v = value(&mut next);
                if !v.is_empty() {
                    set.insert(&v);
                    plain.insert(v);
                }
            }
            for v in plain.iter() {
                assert!(set.contains(v), "{v:?}");
            }
            for _ in 0..200 {
                let v = value(&mut next);
                if !v.is_empty() {
                    assert_eq!(set.contains(&v), plain.contains(&v), "{v:?}");
                }
            }
        }
    }
}

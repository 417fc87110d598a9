//! Resolved, flattened scopes: the dense tables validation walks.

use crate::desc::Desc;
use crate::dictionary::{Dictionary, SECTION_BODY, SECTION_HEADER, SECTION_TRAILER};
use peregrine_codec::tag::{BEGIN_STRING, BODY_LENGTH, CHECK_SUM, MSG_TYPE};

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
pub(crate) struct FlatMember {
    pub(crate) tag: u32,
    pub(crate) required: bool,
    /// Scope index of the group this count tag opens, or `NO_GROUP`.
    pub(crate) group: u32,
    /// The field's [`FieldInfo`] (filled in once the field table is built).
    pub(crate) info: FieldInfo,
}

/// A flattened message body, header, trailer or group: components expanded, nested groups
/// referenced by scope index.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    /// Dense by tag: the member's descriptor, [`Desc::NONE`] when the tag is not a member.
    pub(crate) desc: Box<[Desc]>,
    /// Members in dictionary order (slot index = position; bit = slot + 1).
    pub(crate) slots: Box<[FlatMember]>,
    /// FlatMember indices of required members, ascending by tag.
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
            Some(&d) if d.is_member() => Some(d.bit() - 1),
            _ => None,
        }
    }

    /// Fills in the descriptors from the slots (once their field info is known).
    pub(crate) fn fill_desc(&mut self) {
        for (i, s) in self.slots.iter().enumerate() {
            self.desc[s.tag as usize] = Desc::of(i, s);
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
    /// trailer or body tag ([`Desc::BODY_NON_MEMBER`] past it).
    pub(crate) lut: Box<[Desc]>,
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
    matches!(tag, BEGIN_STRING | BODY_LENGTH | MSG_TYPE | CHECK_SUM)
}

/// Required-member mask of a scope (bit = slot + 1), `words` words, framing fields left out.
pub(crate) fn required_mask(slots: &[FlatMember], words: usize) -> Box<[u64]> {
    let mut mask = vec![0u64; words];
    for (i, s) in slots.iter().enumerate() {
        let bit = Desc::bit_only(i).bit();
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
    /// [`Desc::NONE`] for a body tag, else a descriptor with its rank (header or trailer),
    /// for a header or trailer tag that is not a member [`Desc::HEADER_NON_MEMBER`] or
    /// [`Desc::TRAILER_NON_MEMBER`].
    pub(crate) lut: Box<[Desc]>,
    /// Header members then trailer members; a member's bit is its position here + 1.
    pub(crate) slots: Box<[FlatMember]>,
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
        let slots: Vec<FlatMember> = header
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
                    Some(&d) if d != Desc::NONE => d,
                    _ => Desc::HEADER_NON_MEMBER,
                },
                SECTION_TRAILER => match trailer.desc.get(tag) {
                    Some(&d) if d != Desc::NONE => d.shifted(header_len as u32).in_trailer(),
                    _ => Desc::TRAILER_NON_MEMBER,
                },
                _ => Desc::NONE,
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
    pub(crate) fn member<'s>(&'s self, body: &'s Scope, d: Desc) -> &'s FlatMember {
        let bit = d.bit();
        if d.section() == SECTION_BODY {
            &body.slots[bit - self.body_offset() as usize - 1]
        } else {
            &self.slots[bit - 1]
        }
    }

    /// The top-level descriptor of `tag` for a message whose body is `body`.
    #[inline(always)]
    pub(crate) fn lookup(&self, body: &Scope, tag: u32) -> Desc {
        match self.lut.get(tag as usize) {
            Some(&h) if h != Desc::NONE => h,
            _ => match body.desc.get(tag as usize) {
                Some(&d) if d != Desc::NONE => d.shifted(self.body_offset()).in_body(),
                _ => Desc::BODY_NON_MEMBER,
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

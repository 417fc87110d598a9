//! Resolved, flattened scopes: the dense tables validation walks.

use crate::dictionary::Dictionary;

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

/// A small sorted set of enum values: one-byte values in a bitmap, longer ones sorted.
#[derive(Debug, Clone, Default)]
pub(crate) struct EnumSet {
    single: [u64; 4],
    long: Vec<Box<[u8]>>,
}

impl EnumSet {
    pub(crate) fn insert(&mut self, v: &[u8]) {
        if let [b] = v {
            self.single[(*b >> 6) as usize] |= 1u64 << (*b & 63);
        } else if let Err(i) = self.long.binary_search_by(|x| (**x).cmp(v)) {
            self.long.insert(i, v.to_vec().into_boxed_slice());
        }
    }

    #[inline]
    pub(crate) fn contains(&self, v: &[u8]) -> bool {
        if let [b] = v {
            self.single[(*b >> 6) as usize] & (1u64 << (*b & 63)) != 0
        } else {
            self.long.binary_search_by(|x| (**x).cmp(v)).is_ok()
        }
    }
}

/// One member slot of a flattened scope, with the member's value checks copied in so that
/// validating a member takes one lookup (16 bytes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slot {
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
    /// Dense by tag: slot index + 1, 0 when the tag is not a member.
    pub(crate) slot_of: Box<[u16]>,
    /// Members in dictionary order (slot index = position).
    pub(crate) slots: Box<[Slot]>,
    /// Slot indices of required members, ascending by tag.
    pub(crate) required: Box<[u16]>,
    /// First member tag (groups only; 0 otherwise).
    pub(crate) delimiter: u32,
    /// Bitset words for one instance.
    pub(crate) words: u32,
    /// Words for one instance plus the deepest chain of nested groups.
    pub(crate) need: u32,
}

impl Scope {
    #[inline]
    pub(crate) fn slot(&self, tag: u32) -> Option<usize> {
        match self.slot_of.get(tag as usize) {
            Some(&s) if s != 0 => Some(s as usize - 1),
            _ => None,
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

//! The walk of repeating groups: one [`OpenGroup`] per open group on a fixed stack (nested
//! groups), member bits per entry, counts and required members checked as entries and
//! groups close.

use super::reject::required_missing;
use super::walk::{Errors, PHASE_GROUP};
use super::{SessionRejectReason, ValidationError, Validator};
use crate::desc::Desc;
use crate::dictionary::Runtime;
use crate::scope::{is_framing, FieldInfo, Scope};
use crate::MAX_GROUP_DEPTH;

impl<'d> Validator<'d> {
    /// Walks one repeating group (all its entries, nested groups included) after its count
    /// field; returns the first field that does not belong to it, if any. Nested groups
    /// are [`OpenGroup`]s on a fixed stack (at most [`MAX_GROUP_DEPTH`] deep, as the dictionary's
    /// nesting), not recursive calls: the iterator stays a local.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn group<'a, const W: usize, I>(
        &self,
        state: &mut WalkState<W>,
        mut fields: I,
        rt: &'d Runtime,
        scope_index: u32,
        count_tag: u32,
        count_value: &[u8],
        count_phase: u8,
    ) -> (I, GroupEnd<'a>)
    where
        I: Iterator<Item = (u32, &'a [u8])>,
    {
        let have_values = self.settings.validate_fields_have_values;
        let unordered = self.settings.validate_unordered_group_fields;
        let mut current =
            OpenGroup::open(state, rt, scope_index, count_tag, count_value, count_phase);
        // The enclosing groups of `current` (none until a nested group opens).
        let mut stack: [Option<OpenGroup<'d>>; MAX_GROUP_DEPTH] = [None; MAX_GROUP_DEPTH];
        // Groups open, this one included (the outermost is depth 1).
        let mut depth = 1usize;
        let mut pending: Option<(u32, &'a [u8])> = None;
        loop {
            let field = match pending.take() {
                Some(p) => Some(p),
                None => fields.next(),
            };
            // A member of the current group, or the end of the group.
            let (tag, value, desc) = match field {
                Some((tag, value)) => match current.scope.desc.get(tag as usize) {
                    Some(&desc) if desc.is_member() => (tag, value, desc),
                    _ => (tag, value, Desc::NONE),
                },
                None => (0, &[][..], Desc::NONE),
            };
            if desc == Desc::NONE {
                // The group ends: close it and hand the field to the enclosing group, or
                // back to the top level.
                current.close(state);
                if depth == 1 {
                    return (fields, Ok(field));
                }
                depth -= 1;
                let Some(parent) = stack[depth - 1] else {
                    // Never: every depth below the current one has its group.
                    return (fields, Ok(field));
                };
                current = parent;
                pending = field;
                continue;
            }
            let bit = desc.bit();
            let scope = current.scope;
            if tag == scope.delimiter {
                if current.instances > 0 {
                    current.entry.check_required(state, scope);
                }
                current.instances += 1;
                current.entry.clear(state);
                current.entry.test_and_set(state, bit);
            } else {
                let error = if current.instances == 0 {
                    Some(SessionRejectReason::RepeatingGroupFieldsOutOfOrder)
                } else if current.entry.test_and_set(state, bit) {
                    Some(SessionRejectReason::TagAppearsMoreThanOnce)
                } else if unordered && bit < current.last_bit {
                    Some(SessionRejectReason::RepeatingGroupFieldsOutOfOrder)
                } else {
                    None
                };
                if let Some(reason) = error {
                    return (fields, Err(ValidationError::new(reason, Some(tag))));
                }
            }
            current.last_bit = bit;
            // Nothing to check but a value (the common case), else the full checks.
            if desc.has_value_checks() || value.is_empty() && have_values {
                let enum_set = || {
                    let idx = scope
                        .slots
                        .get(bit - 1)
                        .map_or(FieldInfo::NO_ENUM, |s| s.info.enum_idx);
                    current.rt.enums.get(idx as usize)
                };
                if let Some(reason) = self.check_member(desc, value, enum_set) {
                    state.errors.field(PHASE_GROUP, tag, reason);
                }
            }
            if desc.is_group() && depth < MAX_GROUP_DEPTH {
                let nested = scope.slots[bit - 1].group;
                stack[depth - 1] = Some(current);
                depth += 1;
                current = OpenGroup::open(state, current.rt, nested, tag, value, PHASE_GROUP);
            }
        }
    }
}

/// One open repeating group of [`Validator::group`].
#[derive(Clone, Copy)]
struct OpenGroup<'d> {
    rt: &'d Runtime,
    scope: &'d Scope,
    count_tag: u32,
    count_phase: u8,
    /// The count field's value (-1 when not a count).
    declared: i64,
    instances: i64,
    /// The bit of the entry's last member (members must come in dictionary order).
    last_bit: usize,
    entry: EntryBits,
    /// The scratch's bump pointer before this group took its words.
    saved_next: usize,
}

impl<'d> OpenGroup<'d> {
    /// A group opened by its count field.
    #[inline(always)]
    fn open<const W: usize>(
        state: &mut WalkState<W>,
        rt: &'d Runtime,
        scope_index: u32,
        count_tag: u32,
        count_value: &[u8],
        count_phase: u8,
    ) -> OpenGroup<'d> {
        let scope = &rt.scopes[scope_index as usize];
        let saved_next = state.next_word;
        // The entry's member bits: the first word in a register, any further words (groups
        // of 64 members or more) in the scratch.
        let (base, words) = state.alloc(scope.words.saturating_sub(1) as usize);
        OpenGroup {
            rt,
            scope,
            count_tag,
            count_phase,
            declared: parse_count(count_value),
            instances: 0,
            last_bit: 0,
            entry: EntryBits {
                low: 0,
                base,
                words,
            },
            saved_next,
        }
    }

    /// The group ended: its last entry's required members, its count; its words freed.
    #[inline(always)]
    fn close<const W: usize>(&self, state: &mut WalkState<W>) {
        if self.instances > 0 {
            self.entry.check_required(state, self.scope);
        }
        if self.declared >= 0 && self.declared != self.instances {
            state.errors.field(
                self.count_phase,
                self.count_tag,
                SessionRejectReason::IncorrectNumInGroupCount,
            );
        }
        state.next_word = self.saved_next;
    }
}

/// The member bits of one group entry: bits 0–63 in a register (no read-modify-write
/// chain through memory from one field to the next), the rest in `words` words of the
/// walk's scratch from `base` (past the scratch: not recorded, never a panic).
#[derive(Clone, Copy)]
struct EntryBits {
    low: u64,
    base: usize,
    words: usize,
}

impl EntryBits {
    /// Whether the bit was set; sets it.
    #[inline(always)]
    fn test_and_set<const W: usize>(&mut self, state: &mut WalkState<W>, bit: usize) -> bool {
        if bit < 64 {
            let mask = 1u64 << bit;
            let was = self.low & mask != 0;
            self.low |= mask;
            was
        } else {
            test_and_set(&mut state.group_bits, self.base, bit - 64)
        }
    }

    /// Whether the bit is set.
    fn test(&self, bits: &[u64], bit: usize) -> bool {
        if bit < 64 {
            self.low & 1u64 << bit != 0
        } else {
            test_bit(bits, self.base, bit - 64)
        }
    }

    /// A new entry.
    #[inline(always)]
    fn clear<const W: usize>(&mut self, state: &mut WalkState<W>) {
        self.low = 0;
        if let Some(words) = state.group_bits.get_mut(self.base..self.base + self.words) {
            words.fill(0);
        }
    }

    /// At the end of an entry: its first missing required member, if any, is recorded
    /// (the first such error of the message is the one reported).
    #[inline(always)]
    fn check_required<const W: usize>(&self, state: &mut WalkState<W>, scope: &Scope) {
        let low_mask = scope.req_mask.first().copied().unwrap_or(0);
        let rest = scope.req_mask.get(1..).unwrap_or(&[]);
        let complete = self.low & low_mask == low_mask
            && rest
                .iter()
                .enumerate()
                .all(|(i, &m)| match state.group_bits.get(self.base + i) {
                    Some(&b) => b & m == m,
                    None => true,
                });
        if !complete {
            self.record_missing(state, scope);
        }
    }

    #[cold]
    #[inline(never)]
    fn record_missing<const W: usize>(&self, state: &mut WalkState<W>, scope: &Scope) {
        // Words past the scratch (a group that did not fit) are not checked.
        let fits = scope.words <= 1 || self.words + 1 == scope.words as usize;
        let missing = scope
            .required
            .iter()
            .map(|&s| s as usize)
            .filter(|&s| fits && !self.test(&state.group_bits, Desc::bit_only(s).bit()))
            .map(|s| scope.slots[s].tag)
            .find(|&t| !is_framing(t));
        if let Some(m) = missing {
            state
                .errors
                .group_required
                .get_or_insert(required_missing(m));
        }
    }
}

/// How a group walk ended: the field after the group (none at the end of the message),
/// or a structural error.
type GroupEnd<'a> = Result<Option<(u32, &'a [u8])>, ValidationError>;

/// Per-call scratch of group walks: instance bitsets (bump-allocated per scope) and the
/// errors recorded so far.
pub(super) struct WalkState<const W: usize> {
    /// Member bitsets of open group entries past their first word, bump-allocated.
    pub(super) group_bits: [u64; W],
    /// The next free word of `group_bits`.
    pub(super) next_word: usize,
    /// The errors recorded so far.
    pub(super) errors: Errors,
}

impl<const W: usize> WalkState<W> {
    /// `words` zeroed bitset words: (first word, words). If the scratch is exhausted, the
    /// words lie past it — (W, 0) — and duplicate and required checks are skipped for
    /// that scope, never a panic.
    #[inline(always)]
    fn alloc(&mut self, words: usize) -> (usize, usize) {
        if self.next_word + words <= W {
            self.next_word += words;
            (self.next_word - words, words)
        } else {
            (W, 0)
        }
    }
}

/// Whether the slot's bit was set; sets it. A bit past the scratch (which `need` sizes,
/// so never in practice) reads as unset and is not recorded: no panic.
#[inline(always)]
pub(super) fn test_and_set(bits: &mut [u64], base: usize, slot: usize) -> bool {
    match bits.get_mut(base + (slot >> 6)) {
        Some(word) => {
            let mask = 1u64 << (slot & 63);
            let was = *word & mask != 0;
            *word |= mask;
            was
        }
        None => false,
    }
}

/// Whether the slot's bit is set (a bit past the scratch reads as unset).
#[inline]
pub(super) fn test_bit(bits: &[u64], base: usize, slot: usize) -> bool {
    bits.get(base + (slot >> 6))
        .is_some_and(|word| word & (1u64 << (slot & 63)) != 0)
}

/// A NumInGroup value: 1 to 9 digits, else -1 (not a count: no count check). One pass.
#[inline]
fn parse_count(v: &[u8]) -> i64 {
    if v.is_empty() || v.len() > 9 {
        return -1;
    }
    let mut n = 0i64;
    for &b in v {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return -1;
        }
        n = n * 10 + digit as i64;
    }
    n
}

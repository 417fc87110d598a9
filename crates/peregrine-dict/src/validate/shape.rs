//! The [`ShapeCache`]: messages of a shape (a MsgType and its exact tags) that passed
//! the walk's fast loop before need only their values checked.

use super::tables::{Lookup, Tables, TypeInfo};
use super::{ValidationError, ValidationSettings, Validator};
use crate::desc::Desc;
use crate::format;

impl<'d> Validator<'d> {
    /// [`Validator::validate_with`] for fields given as an iterator (which is walked twice
    /// when a known shape's values fail).
    #[inline(always)]
    pub(crate) fn validate_fields_with<'a, I>(
        &self,
        msg_type: &[u8],
        fields: I,
        shapes: &mut ShapeCache,
    ) -> Result<(), ValidationError>
    where
        I: Iterator<Item = (u32, &'a [u8])> + Clone,
    {
        shapes.bind(self);
        // A known shape: no table to look up, only the values to check.
        let key = type_key(msg_type);
        if key != 0 && shapes.values_ok(self, key, fields.clone()) {
            #[cfg(test)]
            {
                shapes.hits += 1;
            }
            return Ok(());
        }
        match self.tables(msg_type) {
            Tables::Plan(lookup, type_info) => self.shaped(lookup, type_info, fields, shapes, key),
            Tables::Two(lookup, type_info) => self.shaped(lookup, type_info, fields, shapes, key),
            Tables::Unknown => self.invalid_msg_type(fields),
        }
    }

    /// Walks a message whose shape was not known (or whose values did not all pass), and
    /// keeps its shape if it passed on the walk's fast loop alone.
    #[inline(always)]
    fn shaped<'a, I, L>(
        &self,
        lookup: L,
        type_info: TypeInfo<'d>,
        fields: I,
        shapes: &mut ShapeCache,
        key: u64,
    ) -> Result<(), ValidationError>
    where
        I: Iterator<Item = (u32, &'a [u8])> + Clone,
        L: Lookup + Copy,
    {
        let mut fast = false;
        let result = self.dispatch(lookup, type_info, fields.clone(), &mut fast);
        if result.is_ok() && fast && key != 0 {
            shapes.keep(key, &lookup, fields);
        }
        result
    }
}

/// Messages of at most this many fields have their shapes kept.
const SHAPE_FIELDS: usize = 48;
/// Shapes kept at once (the oldest goes first).
const SHAPE_SLOTS: usize = 4;

/// One message shape: its type and its tags in order, with their descriptors.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// The MsgType ([`type_key`]); 0 for an empty slot.
    key: u64,
    len: u32,
    /// The fields, in order.
    fields: [KeptField; SHAPE_FIELDS],
}

/// One field of a kept shape.
#[derive(Clone, Copy, Debug)]
struct KeptField {
    tag: u32,
    /// Its descriptor in the message's tables.
    desc: Desc,
    /// Its enum set: [`ENUM_APP`] | index, or an index among the transport dictionary's
    /// sets, or [`NO_ENUM`].
    enum_ref: u32,
}

/// In a shape's enum reference: the set is the application dictionary's (else the
/// transport dictionary's).
pub(super) const ENUM_APP: u32 = 1 << 31;
/// In a shape's enum reference: no enum set.
pub(super) const NO_ENUM: u32 = u32::MAX;

/// A MsgType of up to seven bytes as a word, its length in the top byte; 0 for a longer
/// one (never cached).
#[inline(always)]
pub(super) fn type_key(msg_type: &[u8]) -> u64 {
    let n = msg_type.len();
    if n == 0 || n > 7 {
        return 0;
    }
    // Built in a register (bytes copied to memory and read back as a word would
    // wait for the stores).
    let mut key = (n as u64) << 56;
    for (i, &b) in msg_type.iter().enumerate() {
        key |= (b as u64) << (8 * i);
    }
    key
}

/// The shapes of messages that passed validation, for [`Validator::validate_with`].
///
/// A shape is a message type and the exact sequence of its tags. A message whose every
/// field passed the validator's fast loop (a member of the message in the right section,
/// no repeating group, not empty, its value well-formed) is valid or not according to
/// its shape alone, apart from those per-field value checks; so a message of a shape
/// that passed before needs only its values checked: no table lookups, no duplicate,
/// order or required-field bookkeeping. Anything else — a new shape, a value that fails,
/// a group — is walked in full, so errors are always the walk's own. Messages of up to
/// 48 fields, four shapes at a time; no allocation.
#[derive(Clone, Debug)]
pub struct ShapeCache {
    /// The validator the shapes were made with: dictionaries (by id) and settings.
    owner: Option<(u64, u64, ValidationSettings)>,
    slots: [Shape; SHAPE_SLOTS],
    /// The slot to replace next.
    next: usize,
    /// Messages passed on their shape (for tests).
    #[cfg(test)]
    pub(crate) hits: usize,
}

impl Default for ShapeCache {
    fn default() -> Self {
        ShapeCache::new()
    }
}

impl ShapeCache {
    /// An empty cache.
    pub fn new() -> Self {
        ShapeCache {
            owner: None,
            slots: [Shape {
                key: 0,
                len: 0,
                fields: [KeptField {
                    tag: 0,
                    desc: Desc::NONE,
                    enum_ref: NO_ENUM,
                }; SHAPE_FIELDS],
            }; SHAPE_SLOTS],
            next: 0,
            #[cfg(test)]
            hits: 0,
        }
    }

    /// Forgets every shape unless they were made with `validator`'s dictionaries and settings.
    #[inline]
    fn bind(&mut self, validator: &Validator<'_>) {
        let owner = (validator.transport.id, validator.app.id, validator.settings);
        if self.owner != Some(owner) {
            for slot in &mut self.slots {
                slot.key = 0;
            }
            self.owner = Some(owner);
        }
    }

    /// Whether the message has a kept shape and all its values pass the fast loop's
    /// checks (then the walk would pass it too).
    #[inline(always)]
    fn values_ok<'a, I>(&self, validator: &Validator<'_>, key: u64, fields: I) -> bool
    where
        I: Iterator<Item = (u32, &'a [u8])> + Clone,
    {
        let len = match fields.size_hint() {
            (lo, Some(hi)) if lo == hi => lo as u32,
            _ => return false,
        };
        for shape in &self.slots {
            if shape.key != key || shape.len != len {
                continue;
            }
            let n = (shape.len as usize).min(SHAPE_FIELDS);
            let mut same = true;
            let mut kept = shape.fields[..n].iter();
            for (tag, value) in fields.clone() {
                let Some(field) = kept.next() else {
                    same = false;
                    break;
                };
                if tag != field.tag {
                    same = false;
                    break;
                }
                if value.is_empty()
                    || (field.desc.has_value_checks() && !kept_value_ok(validator, *field, value))
                {
                    // The right shape, a value to report: the walk does that.
                    return false;
                }
            }
            if same {
                return true;
            }
        }
        false
    }

    /// Keeps the shape of a message that passed on the fast loop alone.
    #[cold]
    fn keep<'a, L, I>(&mut self, key: u64, lookup: &L, fields: I)
    where
        L: Lookup,
        I: Iterator<Item = (u32, &'a [u8])>,
    {
        let slot = &mut self.slots[self.next];
        let mut len = 0;
        for (tag, _) in fields {
            if len == SHAPE_FIELDS {
                slot.key = 0;
                return;
            }
            let desc = lookup.get(tag);
            let enum_ref = if desc.has_enum() {
                lookup.enum_ref(desc)
            } else {
                NO_ENUM
            };
            slot.fields[len] = KeptField {
                tag,
                desc,
                enum_ref,
            };
            len += 1;
        }
        slot.key = key;
        slot.len = len as u32;
        self.next = (self.next + 1) % SHAPE_SLOTS;
    }
}

/// [`value_ok`] for a field of a kept shape: the enum set by its reference.
#[inline(always)]
fn kept_value_ok(validator: &Validator<'_>, field: KeptField, value: &[u8]) -> bool {
    let (desc, enum_ref) = (field.desc, field.enum_ref);
    if desc.has_enum() {
        let rt = if enum_ref & ENUM_APP != 0 {
            &validator.app.rt
        } else {
            &validator.transport.rt
        };
        match (value, rt.enums.get((enum_ref & !ENUM_APP) as usize)) {
            ([b], Some(set)) => set.contains_byte_well_formed(*b),
            _ => false,
        }
    } else {
        format::check(desc.class(), value)
    }
}

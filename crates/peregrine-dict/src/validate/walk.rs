//! The top-level walk: one pass over the fields in wire order, a fast loop for ordinary
//! fields and a general path for the rest (non-members, groups, errors), then the
//! required fields and the error to report.

use super::group::WalkState;
use super::reject::{out_of_order, required_missing};
use super::tables::{Lookup, TypeInfo};
use super::values::value_ok;
use super::{SessionRejectReason, ValidationError, Validator, USER_DEFINED_TAG_MIN};
use crate::desc::Desc;
use crate::dictionary::{
    Runtime, HEADER_SCOPE, SECTION_BODY, SECTION_HEADER, SECTION_TRAILER, TRAILER_SCOPE,
};
use crate::scope::{is_framing, Scope};

// Error priorities: a field error of an earlier phase is reported first.
const PHASE_HEADER: u8 = 0;
const PHASE_TRAILER: u8 = 1;
const PHASE_BODY: u8 = 2;
/// Fields inside repeating groups: reported last, the first recorded.
pub(super) const PHASE_GROUP: u8 = 3;

/// Error priority of a top-level section: header, then trailer, then body.
#[inline]
pub(super) fn phase_of(section: u8) -> u8 {
    match section {
        SECTION_HEADER => PHASE_HEADER,
        SECTION_TRAILER => PHASE_TRAILER,
        _ => PHASE_BODY,
    }
}

/// The errors recorded by a walk (a structural error returns at once instead).
pub(super) struct Errors {
    /// The per-field error to report: its phase, its tag and the error.
    field: Option<(u8, u32, ValidationError)>,
    /// The first group entry found missing a required member.
    pub(super) group_required: Option<ValidationError>,
}

impl Errors {
    /// Records a per-field error; the one reported is the first by phase, then (outside
    /// groups) by lowest tag, then by first recorded. Only rejected messages come here.
    #[cold]
    #[inline(never)]
    pub(super) fn field(&mut self, phase: u8, tag: u32, reason: SessionRejectReason) {
        let replace = match self.field {
            None => true,
            Some((p, t, _)) => phase < p || (phase == p && phase != PHASE_GROUP && tag < t),
        };
        if replace {
            self.field = Some((phase, tag, ValidationError::new(reason, Some(tag))));
        }
    }
}

/// The lowest required tag of the scope whose top-level byte (`first` + slot + 1) is 0,
/// framing fields 8, 9, 35 and 10 left out (the codec guarantees them; they are never
/// reported, even if the caller leaves them out). Only incomplete messages come here.
#[cold]
#[inline(never)]
fn first_unseen(seen: &[u8], first: usize, scope: &Scope) -> Option<u32> {
    scope
        .required
        .iter()
        .map(|&s| s as usize)
        .filter(|&s| seen.get(first + Desc::bit_only(s).bit()) != Some(&1))
        .map(|s| scope.slots[s].tag)
        .find(|&t| !is_framing(t))
}

impl<'d> Validator<'d> {
    /// Picks the scratch for the message and walks it: one byte per top-level member
    /// (`bits` of them: duplicates without a read-modify-write chain through one word),
    /// `groups_need` bitset words for group instances.
    #[inline(always)]
    pub(super) fn dispatch<'a, I, L>(
        &self,
        lookup: L,
        type_info: TypeInfo<'d>,
        fields: I,
        fast: &mut bool,
    ) -> Result<(), ValidationError>
    where
        I: IntoIterator<Item = (u32, &'a [u8])>,
        L: Lookup,
    {
        if type_info.bits <= 512 && type_info.groups_need <= 8 {
            self.walk::<8, I, L>(lookup, type_info, &mut [0u8; 512], fields, fast)
        } else {
            self.walk_large::<I, L>(lookup, type_info, fields, fast)
        }
    }

    /// [`Validator::dispatch`] for messages beyond 512 top-level members or 8 words of
    /// group bitsets (none in QuickFIX's dictionaries; past 4,096 members the bytes are
    /// allocated).
    #[inline(never)]
    fn walk_large<'a, I, L>(
        &self,
        lookup: L,
        type_info: TypeInfo<'d>,
        fields: I,
        fast: &mut bool,
    ) -> Result<(), ValidationError>
    where
        I: IntoIterator<Item = (u32, &'a [u8])>,
        L: Lookup,
    {
        let mut stack = [0u8; 4096];
        let mut heap = Vec::new();
        let seen: &mut [u8] = if type_info.bits as usize <= stack.len() {
            &mut stack
        } else {
            heap.resize(type_info.bits as usize, 0u8);
            &mut heap
        };
        if type_info.groups_need <= 64 {
            self.walk::<64, I, L>(lookup, type_info, seen, fields, fast)
        } else {
            self.walk::<1024, I, L>(lookup, type_info, seen, fields, fast)
        }
    }

    /// A top-level field that is not a member of its section's scope (header, trailer or
    /// body): its value checks, then whether it is acceptable there at all.
    #[cold]
    #[inline(never)]
    fn non_member(&self, rt: &Runtime, section: u8, tag: u32, value: &[u8], errs: &mut Errors) {
        let info = rt.field_info.get(tag as usize).copied().unwrap_or_default();
        let phase = phase_of(section);
        if let Some(reason) = self.check_value(rt, info, value) {
            errs.field(phase, tag, reason);
        }
        let defined = info.class != 0;
        // Header and trailer: any defined field is accepted there (QuickFIX checks only that
        // the tag exists); the body: the tag must belong to the message.
        if defined && phase != PHASE_BODY {
            return;
        }
        let fail = if tag < USER_DEFINED_TAG_MIN {
            !self.settings.allow_unknown_msg_fields
        } else {
            self.settings.validate_user_defined_fields
        };
        if fail {
            errs.field(
                phase,
                tag,
                if defined {
                    SessionRejectReason::TagNotDefinedForThisMessageType
                } else {
                    SessionRejectReason::InvalidTagNumber
                },
            );
        }
    }

    /// The top_level-level walk: one pass in wire order, one descriptor load per field (order
    /// section_rank, bit, format class, flags); duplicates and required members are bits of one
    /// scratch bitset (header and trailer bits, then the body's), required members
    /// checked with a mask compare at the end.
    ///
    /// Ordinary fields — members in order, not repeated, with a well-formed value and, for
    /// an enum, a valid one-byte value — take a fast loop that records nothing; any other
    /// field leaves it for the general path, which starts that field over.
    ///
    /// `fast` is set to whether every field passed the fast loop (the result then
    /// depends only on the tags, the values' being non-empty and their value checks).
    #[inline(never)]
    fn walk<'a, const W: usize, I, L>(
        &self,
        lookup: L,
        type_info: TypeInfo<'d>,
        seen: &mut [u8],
        fields: I,
        fast: &mut bool,
    ) -> Result<(), ValidationError>
    where
        I: IntoIterator<Item = (u32, &'a [u8])>,
        L: Lookup,
    {
        let transport = &self.transport.rt;
        let header_trailer = &transport.header_trailer;
        let (body, body_rt) = (type_info.body, &type_info.body_dict.rt);
        // Top-level duplicates and required members: locals, kept in registers.
        let mut top_level = Seen { seen, required: 0 };
        let mut state = WalkState::<W> {
            group_bits: [0u64; W],
            next_word: 0,
            errors: Errors {
                field: None,
                group_required: None,
            },
        };
        let check_order = self.settings.validate_fields_out_of_order;
        // Order rank of the sections seen so far: header 0, body 1, trailer 2.
        let mut section_rank = 0u32;
        *fast = true;
        let mut fields = fields.into_iter();
        'fields: loop {
            // The fast loop.
            let (mut tag, mut value, mut desc) = loop {
                let Some((tag, value)) = fields.next() else {
                    break 'fields;
                };
                let desc = lookup.get(tag);
                if desc.rank() < section_rank
                    || desc.needs_general_path()
                    || value.is_empty()
                    || (desc.has_value_checks() && !value_ok(&lookup, desc, value))
                {
                    break (tag, value, desc);
                }
                section_rank = desc.rank();
                if top_level.test_and_set(desc) {
                    return Err(ValidationError::new(
                        SessionRejectReason::TagAppearsMoreThanOnce,
                        Some(tag),
                    ));
                }
            };
            // The general path: this field (then, after a group, the field that ended it).
            *fast = false;
            loop {
                // A header field after the body or trailer, a body field after the trailer.
                let field_rank = desc.rank();
                if field_rank < section_rank {
                    if check_order {
                        return Err(out_of_order(tag));
                    }
                } else {
                    section_rank = field_rank;
                }
                let section = desc.section();
                let rt = if section == SECTION_BODY {
                    body_rt
                } else {
                    transport
                };
                if desc.is_non_member() {
                    self.non_member(rt, section, tag, value, &mut state.errors);
                    continue 'fields;
                }
                if top_level.test_and_set(desc) {
                    return Err(ValidationError::new(
                        SessionRejectReason::TagAppearsMoreThanOnce,
                        Some(tag),
                    ));
                }
                if let Some(reason) = self.check_member(desc, value, || lookup.enum_set(desc)) {
                    state.errors.field(phase_of(section), tag, reason);
                }
                if !desc.is_group() {
                    continue 'fields;
                }
                let group = header_trailer.member(body, desc).group;
                let phase = phase_of(section);
                // The iterator goes to the group and comes back by value: kept in
                // registers in the fast loop, never behind a reference.
                let (rest, ended_by) = self.group(&mut state, fields, rt, group, tag, value, phase);
                fields = rest;
                match ended_by? {
                    Some((next_tag, next_value)) => {
                        (tag, value) = (next_tag, next_value);
                        desc = lookup.get(tag);
                    }
                    None => continue 'fields,
                }
            }
        }

        // Required fields: header, trailer, body, lowest missing tag first.
        if top_level.required != type_info.required {
            let header = &transport.scopes[HEADER_SCOPE as usize];
            let trailer = &transport.scopes[TRAILER_SCOPE as usize];
            let missing = first_unseen(top_level.seen, 0, header)
                .or_else(|| {
                    first_unseen(top_level.seen, header_trailer.header_len as usize, trailer)
                })
                .or_else(|| {
                    first_unseen(top_level.seen, header_trailer.body_offset() as usize, body)
                });
            if let Some(tag) = missing {
                return Err(required_missing(tag));
            }
        }
        if let Some(error) = state.errors.group_required {
            return Err(error);
        }
        match state.errors.field {
            Some((_, _, error)) => Err(error),
            None => Ok(()),
        }
    }
}

/// The top-level members seen: one byte per member (no read-modify-write chain through
/// a shared word from one field to the next) and the count of required ones.
struct Seen<'s> {
    seen: &'s mut [u8],
    required: u32,
}

impl Seen<'_> {
    /// Whether the top-level member was seen before; marks it seen and counts it if
    /// required. (`seen` holds every top-level bit: a bit past it would be ignored.)
    #[inline(always)]
    fn test_and_set(&mut self, desc: Desc) -> bool {
        let Some(byte) = self.seen.get_mut(desc.bit()) else {
            return false;
        };
        let was = *byte != 0;
        *byte = 1;
        self.required += desc.is_required() as u32;
        was
    }
}

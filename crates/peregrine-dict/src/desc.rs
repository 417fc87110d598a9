//! Field descriptors ([`Desc`]): what the validator needs to know about a tag in one
//! scope, packed in one `u32` so that a field costs one table load. Tables of descriptors
//! are dense by tag; [`Desc::NONE`] is a tag that is not a member.
//!
//! The bit layout, defined here and read only through [`Desc`]'s accessors:
//!
//! | bits | content |
//! | --- | --- |
//! | 0–19 | the member's bit in the walk's bitset (slot + 1; 0: not a member) |
//! | 20–23 | format class (`FormatClass` discriminant, 0 for an undefined tag) |
//! | 24 | the member has an enum check |
//! | 25 | the member is a group's count field |
//! | 26 | top-level tables only: not a member (the bit is 0) |
//! | 27 | a member the walk's fast loop leaves to the general path (group, multi-value enum) |
//! | 28 | multi-value type (the enum check applies per space-separated token) |
//! | 29 | a required member (framing fields 8, 9, 35, 10 excepted: never reported missing) |
//! | 30–31 | top-level tables only: the section's order rank, header 0, body 1, trailer 2 |

use crate::dictionary::{SECTION_BODY, SECTION_HEADER, SECTION_TRAILER};
use crate::scope::{is_framing, FieldInfo, FlatMember, NO_GROUP};

/// Bits 0–19: the member's bit (slot + 1).
const BIT_MASK: u32 = (1 << 20) - 1;
/// Bits 20–23: the format class.
const CLASS_SHIFT: u32 = 20;
const CLASS_MASK: u32 = 0xF;
/// Bit 24: an enum check.
const ENUM: u32 = 1 << 24;
/// Bit 25: a group's count field.
const GROUP: u32 = 1 << 25;
/// Bit 26: not a member (top-level tables).
const NON_MEMBER: u32 = 1 << 26;
/// Bit 27: left to the general path.
const SLOW: u32 = 1 << 27;
/// Bit 28: a multi-value type.
const MULTI: u32 = 1 << 28;
/// Bit 29: a required member.
const REQUIRED: u32 = 1 << 29;
/// Bits 30–31: the section's order rank (top-level tables).
const RANK_SHIFT: u32 = 30;
/// The rank of the body.
const BODY_RANK: u32 = 1 << RANK_SHIFT;
/// The rank of the trailer.
const TRAILER_RANK: u32 = 2 << RANK_SHIFT;
/// Format classes above TEXT (1) have a syntax to check: class bits 1–3 (values 2–15).
const FORMAT_CHECK: u32 = 0xE << CLASS_SHIFT;

/// One tag's descriptor in one scope (see the module documentation for the layout).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct Desc(u32);

impl Desc {
    /// Not a member (in a scope's table); in a header/trailer table, a body tag.
    pub(crate) const NONE: Desc = Desc(0);
    /// A header tag that is not a member of the header.
    pub(crate) const HEADER_NON_MEMBER: Desc = Desc(NON_MEMBER);
    /// A trailer tag that is not a member of the trailer.
    pub(crate) const TRAILER_NON_MEMBER: Desc = Desc(TRAILER_RANK | NON_MEMBER);
    /// A body tag that is not a member of the message.
    pub(crate) const BODY_NON_MEMBER: Desc = Desc(BODY_RANK | NON_MEMBER);

    /// The descriptor of the member in slot `slot` (bit `slot + 1`; slots past
    /// the highest bit, 2^20 - 1 — a million members, far beyond any dictionary — share the last
    /// bit).
    pub(crate) fn of(slot: usize, s: &FlatMember) -> Desc {
        let mut d = Desc::bit_only(slot).0 | (s.info.class as u32 & CLASS_MASK) << CLASS_SHIFT;
        if s.info.enum_idx != FieldInfo::NO_ENUM {
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
        if s.required && !is_framing(s.tag) {
            d |= REQUIRED;
        }
        Desc(d)
    }

    /// A descriptor holding only the bit of slot `slot` (while a scope is built).
    pub(crate) fn bit_only(slot: usize) -> Desc {
        Desc((slot as u32).saturating_add(1).min(BIT_MASK))
    }

    /// The same descriptor, its bit `offset` bits further (saturating at the highest bit).
    #[inline(always)]
    pub(crate) fn shifted(self, offset: u32) -> Desc {
        let bit = ((self.0 & BIT_MASK) + offset).min(BIT_MASK);
        Desc((self.0 & !BIT_MASK) | bit)
    }

    /// The same descriptor with the body's order rank (top-level tables).
    #[inline(always)]
    pub(crate) fn in_body(self) -> Desc {
        Desc(self.0 | BODY_RANK)
    }

    /// The same descriptor with the trailer's order rank (top-level tables).
    #[inline(always)]
    pub(crate) fn in_trailer(self) -> Desc {
        Desc(self.0 | TRAILER_RANK)
    }

    /// The member's bit in the walk's bitset (slot + 1), 0 for a tag that is not a member.
    #[inline(always)]
    pub(crate) fn bit(self) -> usize {
        (self.0 & BIT_MASK) as usize
    }

    /// Whether the tag is a member of the scope (its bit is not 0).
    #[inline(always)]
    pub(crate) fn is_member(self) -> bool {
        self.0 & BIT_MASK != 0
    }

    /// The format class (`FormatClass` discriminant).
    #[inline(always)]
    pub(crate) fn class(self) -> u8 {
        (self.0 >> CLASS_SHIFT & CLASS_MASK) as u8
    }

    /// Whether the member's value must be one of its enum values.
    #[inline(always)]
    pub(crate) fn has_enum(self) -> bool {
        self.0 & ENUM != 0
    }

    /// Whether the member is a repeating group's count field.
    #[inline(always)]
    pub(crate) fn is_group(self) -> bool {
        self.0 & GROUP != 0
    }

    /// Top-level tables: whether the tag is not a member of its section.
    #[inline(always)]
    pub(crate) fn is_non_member(self) -> bool {
        self.0 & NON_MEMBER != 0
    }

    /// Whether the member's type is multi-value (the enum check is per token).
    #[inline(always)]
    pub(crate) fn is_multi(self) -> bool {
        self.0 & MULTI != 0
    }

    /// Whether the member is required (never for the framing fields).
    #[inline(always)]
    pub(crate) fn is_required(self) -> bool {
        self.0 & REQUIRED != 0
    }

    /// Whether the walk's fast loop must leave this field to the general path: not a
    /// member, or a member with more to check than the fast loop does (a group, a
    /// multi-value enum).
    #[inline(always)]
    pub(crate) fn needs_general_path(self) -> bool {
        self.0 & (SLOW | NON_MEMBER) != 0
    }

    /// Whether the value has more to check than being non-empty: a format (a class
    /// above TEXT) or an enum.
    #[inline(always)]
    pub(crate) fn has_value_checks(self) -> bool {
        self.0 & (FORMAT_CHECK | ENUM) != 0
    }

    /// Top-level tables: the section's order rank, header 0, body 1, trailer 2.
    #[inline(always)]
    pub(crate) fn rank(self) -> u32 {
        self.0 >> RANK_SHIFT
    }

    /// The section (`SECTION_*`) of a top-level descriptor.
    #[inline(always)]
    pub(crate) fn section(self) -> u8 {
        match self.rank() {
            0 => SECTION_HEADER,
            1 => SECTION_BODY,
            _ => SECTION_TRAILER,
        }
    }
}

//! A message type's tables ([`Tables`]): its precompiled plan (header, trailer and body
//! from one dictionary) or the transport's header and trailer with the application's
//! body (FIXT), and how the walk looks a tag's descriptor up in them ([`Lookup`]).

use super::shape::{ENUM_APP, NO_ENUM};
use super::Validator;
use crate::desc::Desc;
use crate::dictionary::{Dictionary, Runtime, SECTION_BODY};
use crate::scope::{EnumSet, HeaderTrailer, Scope};

impl<'d> Validator<'d> {
    /// The tables of a message type: its own precompiled plan when the transport
    /// dictionary defines it, else header and trailer from the transport dictionary and
    /// the body from the application one.
    #[inline(always)]
    pub(super) fn tables(&self, msg_type: &[u8]) -> Tables<'d> {
        let transport = self.transport;
        if let Some(index) = transport.message_index(msg_type) {
            // Header, trailer and body from one dictionary: its own precompiled table.
            let body = &transport.rt.scopes[transport.scope_of_message(index) as usize];
            let plan = &transport.rt.plans[index];
            let lookup = PlanLookup {
                lut: &plan.lut,
                enums: &plan.enums,
                sets: &transport.rt.enums,
            };
            let type_info = TypeInfo {
                body_dict: transport,
                body,
                bits: plan.bits,
                groups_need: plan.groups_need,
                required: plan.required,
            };
            return Tables::Plan(lookup, type_info);
        }
        let Some(index) = self.app.message_index(msg_type) else {
            return Tables::Unknown;
        };
        let body = &self.app.rt.scopes[self.app.scope_of_message(index) as usize];
        let header_trailer = &transport.rt.header_trailer;
        let lookup = TwoTables {
            header_trailer,
            body,
            transport: &transport.rt,
            app: &self.app.rt,
        };
        let type_info = TypeInfo {
            body_dict: self.app,
            body,
            bits: header_trailer.bits(body),
            groups_need: header_trailer.groups_need(body),
            required: header_trailer.required(body),
        };
        Tables::Two(lookup, type_info)
    }
}

/// How the top-level walk finds a tag's descriptor.
/// A message type's tables (see [`Validator::tables`]).
pub(super) enum Tables<'d> {
    Plan(PlanLookup<'d>, TypeInfo<'d>),
    Two(TwoTables<'d>, TypeInfo<'d>),
    Unknown,
}

pub(super) trait Lookup {
    /// The descriptor of `tag`: rank, bit, checks, flags.
    fn get(&self, tag: u32) -> Desc;
    /// The enum set of the member with this descriptor.
    fn enum_set(&self, desc: Desc) -> Option<&EnumSet>;
    /// Where that enum set is (for a [`ShapeCache`]): `ENUM_APP` | its index among the
    /// application dictionary's sets, or its index among the transport dictionary's.
    fn enum_ref(&self, desc: Desc) -> u32;
}

/// A message's precompiled table ([`HeaderTrailer::plan`]) with header, trailer and body
/// from one dictionary: one load.
#[derive(Clone, Copy)]
pub(super) struct PlanLookup<'d> {
    lut: &'d [Desc],
    /// By bit: index into `sets`.
    enums: &'d [u32],
    /// The dictionary's enum sets.
    sets: &'d [EnumSet],
}

impl Lookup for PlanLookup<'_> {
    #[inline(always)]
    fn get(&self, tag: u32) -> Desc {
        self.lut
            .get(tag as usize)
            .copied()
            .unwrap_or(Desc::BODY_NON_MEMBER)
    }
    #[inline(always)]
    fn enum_set(&self, desc: Desc) -> Option<&EnumSet> {
        let idx = self.enums.get(desc.bit())?;
        self.sets.get(*idx as usize)
    }
    fn enum_ref(&self, desc: Desc) -> u32 {
        // A plan's sets are its (transport) dictionary's.
        self.enums
            .get(desc.bit())
            .map_or(NO_ENUM, |&i| i & !ENUM_APP)
    }
}

/// Header and trailer from one dictionary, the body from another (FIXT): the same
/// function as the plan they would make ([`HeaderTrailer::lookup`]), two loads.
#[derive(Clone, Copy)]
pub(super) struct TwoTables<'d> {
    header_trailer: &'d HeaderTrailer,
    body: &'d Scope,
    /// The header and trailer's dictionary.
    transport: &'d Runtime,
    /// The body's dictionary.
    app: &'d Runtime,
}

impl Lookup for TwoTables<'_> {
    #[inline(always)]
    fn get(&self, tag: u32) -> Desc {
        self.header_trailer.lookup(self.body, tag)
    }
    #[inline(always)]
    fn enum_set(&self, desc: Desc) -> Option<&EnumSet> {
        let rt = if desc.section() == SECTION_BODY {
            self.app
        } else {
            self.transport
        };
        rt.enums
            .get(self.header_trailer.member(self.body, desc).info.enum_idx as usize)
    }
    fn enum_ref(&self, desc: Desc) -> u32 {
        let idx = self.header_trailer.member(self.body, desc).info.enum_idx & !ENUM_APP;
        if desc.section() == SECTION_BODY {
            ENUM_APP | idx
        } else {
            idx
        }
    }
}

/// What the walk needs to know of the message type.
#[derive(Clone, Copy)]
pub(super) struct TypeInfo<'d> {
    /// The dictionary of the body.
    pub(super) body_dict: &'d Dictionary,
    pub(super) body: &'d Scope,
    /// Top-level bits (see `Plan::bits`).
    pub(super) bits: u32,
    /// Group bitset words (see `Plan::groups_need`).
    pub(super) groups_need: u32,
    /// Required top-level members (see `Plan::required`).
    pub(super) required: u32,
}

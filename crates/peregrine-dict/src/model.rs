//! The dictionary model as written: fields, components, groups and messages, in order.
//!
//! This is the structure the code generator reads. Validation uses the resolved tables in
//! [`crate::Dictionary`] instead (see [`crate::FlatScope`]).

use crate::types::FixType;

/// One `<field>` definition from the `<fields>` section.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FieldDef {
    /// Tag number.
    pub tag: u32,
    /// Field name, e.g. `ClOrdID`.
    pub name: String,
    /// Resolved type.
    pub fix_type: FixType,
    /// Enumerated values, in dictionary order, with their descriptions.
    pub values: Vec<EnumValue>,
    /// True when the field declares `allowOtherValues="true"`: values outside the enum
    /// list are accepted.
    pub allow_other_values: bool,
    /// 1-based line of the definition.
    pub line: u32,
}

/// One `<value enum=".." description=".."/>` of a field.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EnumValue {
    /// The wire value.
    pub value: String,
    /// The description (QuickFIX's upper-case names, e.g. `NEW`), empty if absent.
    pub description: String,
}

/// A member of a message, component, group, header or trailer, in dictionary order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Member {
    /// A plain field.
    Field(FieldRef),
    /// A component included by name.
    Component(ComponentRef),
    /// A repeating group.
    Group(GroupDef),
}

/// A reference to a field, with its required flag at that point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct FieldRef {
    /// Tag number (look it up with [`crate::Dictionary::field`]).
    pub tag: u32,
    /// `required="Y"`.
    pub required: bool,
}

/// A reference to a component.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ComponentRef {
    /// Index into [`crate::Dictionary::components`].
    pub index: usize,
    /// The component's name.
    pub name: String,
    /// `required="Y"`.
    pub required: bool,
    /// 1-based line of the reference.
    pub line: u32,
}

/// A repeating group: its NumInGroup field and its members in order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GroupDef {
    /// The NumInGroup (count) field's tag.
    pub count_tag: u32,
    /// The count field's name, e.g. `NoPartyIDs`.
    pub name: String,
    /// `required="Y"`.
    pub required: bool,
    /// Members in order; the first field (after expanding components) is the delimiter.
    pub members: Vec<Member>,
    /// 1-based line of the `<group>` element.
    pub line: u32,
}

/// A named `<component>`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ComponentDef {
    /// Component name, e.g. `Instrument`.
    pub name: String,
    /// Members in order.
    pub members: Vec<Member>,
    /// 1-based line of the definition.
    pub line: u32,
}

/// Message category (`msgcat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MsgCategory {
    /// `msgcat="admin"`: session-level message.
    Admin,
    /// `msgcat="app"`, absent, or any other value (QuickFIX/J's FIX50.xml has
    /// `msgcat="Allocation"`): application message, as QuickFIX/J reads it.
    App,
}

/// A `<message>` definition.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MessageDef {
    /// Message name, e.g. `NewOrderSingle`.
    pub name: String,
    /// MsgType (35) value, e.g. `D`.
    pub msg_type: String,
    /// Category.
    pub category: MsgCategory,
    /// Body members in order.
    pub members: Vec<Member>,
    /// 1-based line of the definition.
    pub line: u32,
    /// Resolved body scope (index into the dictionary's scope table).
    pub(crate) scope: u32,
}

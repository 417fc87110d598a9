//! The [`Dictionary`]: loading and the resolved lookup tables.

use std::collections::HashMap;
use std::path::Path;

use roxmltree::{Document, Node};

use crate::error::{DictError, ErrorKind};
use crate::model::{
    ComponentDef, ComponentRef, EnumValue, FieldDef, FieldRef, GroupDef, Member, MessageDef,
    MsgCategory,
};
use crate::scope::{EnumSet, FieldInfo, FlatScope, HeaderTrailer, Plan, Scope};
use crate::types::FixType;
use peregrine_codec::tag;

/// The deepest nesting of repeating groups a dictionary may declare.
pub const MAX_GROUP_DEPTH: usize = 16;

/// The deepest nesting of components (a component including a component …) a dictionary
/// may declare. QuickFIX's FIX50SP2.xml nests them 5 deep.
pub const MAX_COMPONENT_DEPTH: usize = 64;

/// The largest field number a dictionary may define. The validator's tables are dense by
/// tag, so a bound keeps a typo (`number="20000000000"`) an error rather than gigabytes of
/// tables. QuickFIX's dictionaries stop below 2,000; venues' user-defined fields live in
/// 5000–39999.
pub const MAX_TAG: u32 = 999_999;

/// Tags QuickFIX always treats as header fields, whatever the dictionary says.
pub(crate) const STATIC_HEADER_TAGS: [u32; 34] = [
    tag::BEGIN_STRING,
    tag::BODY_LENGTH,
    tag::MSG_TYPE,
    tag::SENDER_COMP_ID,
    tag::TARGET_COMP_ID,
    tag::ON_BEHALF_OF_COMP_ID,
    tag::DELIVER_TO_COMP_ID,
    tag::SECURE_DATA_LEN,
    tag::SECURE_DATA,
    tag::MSG_SEQ_NUM,
    tag::SENDER_SUB_ID,
    tag::SENDER_LOCATION_ID,
    tag::TARGET_SUB_ID,
    tag::TARGET_LOCATION_ID,
    tag::ON_BEHALF_OF_SUB_ID,
    tag::ON_BEHALF_OF_LOCATION_ID,
    tag::DELIVER_TO_SUB_ID,
    tag::DELIVER_TO_LOCATION_ID,
    tag::POSS_DUP_FLAG,
    tag::POSS_RESEND,
    tag::SENDING_TIME,
    tag::ORIG_SENDING_TIME,
    tag::XML_DATA_LEN,
    tag::XML_DATA,
    tag::MESSAGE_ENCODING,
    tag::LAST_MSG_SEQ_NUM_PROCESSED,
    tag::ON_BEHALF_OF_SENDING_TIME,
    tag::APPL_VER_ID,
    tag::CSTM_APPL_VER_ID,
    tag::NO_HOPS,
    tag::HOP_COMP_ID,
    tag::HOP_SENDING_TIME,
    tag::HOP_REF_ID,
    tag::APPL_EXT_ID,
];
/// Tags QuickFIX always treats as trailer fields.
pub(crate) const STATIC_TRAILER_TAGS: [u32; 3] =
    [tag::SIGNATURE_LENGTH, tag::SIGNATURE, tag::CHECK_SUM];

pub(crate) const SECTION_BODY: u8 = 0;
pub(crate) const SECTION_HEADER: u8 = 1;
pub(crate) const SECTION_TRAILER: u8 = 2;

pub(crate) const HEADER_SCOPE: u32 = 0;
pub(crate) const TRAILER_SCOPE: u32 = 1;

/// Options for loading a dictionary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Turn tolerated inconsistencies (see [`Dictionary::warnings`]) into errors.
    pub strict: bool,
}

/// A loaded QuickFIX-format data dictionary: the model as written (for code generation)
/// plus dense tables resolved for validation.
///
/// ```
/// use peregrine_dict::Dictionary;
/// let dict = Dictionary::from_file("dictionaries/FIX44.xml").unwrap();
/// assert_eq!(dict.begin_string(), "FIX.4.4");
/// let nos = dict.message("D").unwrap();
/// assert_eq!(nos.name, "NewOrderSingle");
/// let body = dict.message_scope("D").unwrap();
/// assert!(body.is_required(11)); // ClOrdID
/// assert!(body.group(453).is_some()); // NoPartyIDs, through the Parties component
/// assert_eq!(dict.field(44).unwrap().name, "Price");
/// ```
#[derive(Debug)]
pub struct Dictionary {
    name: String,
    fix_type: String,
    major: u32,
    minor: u32,
    servicepack: u32,
    begin_string: String,
    fields: Vec<Option<FieldDef>>,
    field_order: Vec<u32>,
    field_by_name: HashMap<String, u32>,
    header: Vec<Member>,
    trailer: Vec<Member>,
    messages: Vec<MessageDef>,
    message_by_type: HashMap<String, usize>,
    components: Vec<ComponentDef>,
    component_by_name: HashMap<String, usize>,
    warnings: Vec<DictError>,
    pub(crate) rt: Runtime,
    /// Unique among the dictionaries of the process (caches built from one tell it apart
    /// from any other, even one later loaded at the same address).
    pub(crate) id: u64,
}

/// Resolved tables used on the validation hot path.
#[derive(Debug)]
pub(crate) struct Runtime {
    /// Dense by tag.
    pub(crate) field_info: Box<[FieldInfo]>,
    pub(crate) enums: Vec<EnumSet>,
    /// 0 = header, 1 = trailer, then message bodies and groups.
    pub(crate) scopes: Vec<Scope>,
    /// Single-byte MsgType → message index + 1.
    msg_short: Box<[u32; 256]>,
    /// Longer MsgTypes, sorted.
    msg_long: Vec<(Box<[u8]>, u32)>,
    /// Dense by tag: SECTION_*.
    pub(crate) section: Box<[u8]>,
    /// Header and trailer combined, for the top-level walk when this dictionary is the
    /// transport dictionary.
    pub(crate) header_trailer: HeaderTrailer,
    /// Per message (by index): its top-level table with this dictionary's own header and
    /// trailer ([`HeaderTrailer::plan`]).
    pub(crate) plans: Vec<Plan>,
}

impl Dictionary {
    /// Loads a dictionary from a file; errors name the file's base name.
    ///
    /// # Errors
    ///
    /// [`DictError::Io`] when the file cannot be read (it names the path as
    /// given), otherwise the errors of [`Dictionary::from_xml_str`].
    ///
    /// ```
    /// use peregrine_dict::{DictError, Dictionary};
    /// let d = Dictionary::from_file("dictionaries/FIXT11.xml").unwrap();
    /// assert!(d.is_transport());
    /// let missing = Dictionary::from_file("dictionaries/FIX99.xml").unwrap_err();
    /// assert!(matches!(missing, DictError::Io { .. }));
    /// assert_eq!(missing.file(), "dictionaries/FIX99.xml");
    /// ```
    pub fn from_file(path: impl AsRef<Path>) -> Result<Dictionary, DictError> {
        Dictionary::from_file_with(path, LoadOptions::default())
    }

    /// Loads a dictionary from XML text; `name` is used in error messages (usually a file name).
    ///
    /// # Errors
    ///
    /// Every error names `name` and the line at fault:
    ///
    /// * [`DictError::Xml`] when `text` is not well-formed XML;
    /// * [`DictError::Invalid`] when it is not a QuickFIX dictionary, its
    ///   [`ErrorKind`](crate::ErrorKind) saying why: the root is not `<fix>`, a section or a
    ///   required attribute is missing, a number or attribute value is malformed,
    ///   a field number, field name, MsgType or component is defined twice, a
    ///   reference names no defined field or component, a group has no member,
    ///   components include themselves, groups or components nest too deep, or
    ///   a tag is 0 or above [`MAX_TAG`](crate::MAX_TAG). A group named after a field whose
    ///   type cannot count ([`ErrorKind::GroupNotNumInGroup`](crate::ErrorKind::GroupNotNumInGroup)) is only a
    ///   [warning](Dictionary::warnings) here; [`Dictionary::from_xml_str_with`]
    ///   with [`LoadOptions::strict`] makes it an error.
    ///
    /// ```
    /// use peregrine_dict::Dictionary;
    /// let xml = r#"<fix type="FIX" major="4" minor="4">
    ///   <header><field name="BeginString" required="Y"/></header>
    ///   <trailer><field name="CheckSum" required="Y"/></trailer>
    ///   <messages>
    ///     <message name="Ping" msgtype="U1" msgcat="app"><field name="PingID" required="Y"/></message>
    ///   </messages>
    ///   <components/>
    ///   <fields>
    ///     <field number="8" name="BeginString" type="STRING"/>
    ///     <field number="10" name="CheckSum" type="STRING"/>
    ///     <field number="35" name="MsgType" type="STRING"/>
    ///     <field number="20001" name="PingID" type="INT"/>
    ///   </fields>
    /// </fix>"#;
    /// let d = Dictionary::from_xml_str("venue.xml", xml).unwrap();
    /// assert_eq!(d.message("U1").unwrap().name, "Ping");
    /// assert_eq!(d.field(20001).unwrap().name, "PingID");
    /// ```
    pub fn from_xml_str(name: &str, text: &str) -> Result<Dictionary, DictError> {
        Dictionary::from_xml_str_with(name, text, LoadOptions::default())
    }

    /// Loads a dictionary from XML text with explicit [`LoadOptions`].
    ///
    /// # Errors
    ///
    /// As [`Dictionary::from_xml_str`] ([`DictError::Xml`] or
    /// [`DictError::Invalid`]); with [`LoadOptions::strict`], the tolerated
    /// inconsistencies that would be [warnings](Dictionary::warnings) are
    /// errors too ([`DictError::Invalid`] with
    /// [`ErrorKind::GroupNotNumInGroup`](crate::ErrorKind::GroupNotNumInGroup)).
    ///
    /// ```
    /// use peregrine_dict::{Dictionary, LoadOptions};
    /// let text = std::fs::read_to_string("dictionaries/FIX44.xml").unwrap();
    /// // QuickFIX's FIX44.xml names a group after NoLegSecurityAltID, typed STRING:
    /// // accepted with a warning by default, an error when strict.
    /// let lenient = Dictionary::from_xml_str("FIX44.xml", &text).unwrap();
    /// assert_eq!(lenient.warnings().len(), 1);
    /// let strict = Dictionary::from_xml_str_with("FIX44.xml", &text, LoadOptions { strict: true });
    /// assert!(strict.unwrap_err().to_string().contains("group is not a NumInGroup field"));
    /// ```
    pub fn from_xml_str_with(
        name: &str,
        text: &str,
        options: LoadOptions,
    ) -> Result<Dictionary, DictError> {
        let doc = Document::parse(text).map_err(|e| DictError::Xml {
            file: name.to_string(),
            line: e.pos().row,
            message: e.to_string(),
        })?;
        Loader {
            file: name,
            doc: &doc,
            options,
            warnings: Default::default(),
        }
        .load()
    }

    /// Loads a dictionary from a file with explicit [`LoadOptions`].
    ///
    /// # Errors
    ///
    /// [`DictError::Io`] when the file cannot be read, otherwise the errors of
    /// [`Dictionary::from_xml_str_with`] (named after the file's base name).
    pub fn from_file_with(
        path: impl AsRef<Path>,
        options: LoadOptions,
    ) -> Result<Dictionary, DictError> {
        let path = path.as_ref();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let text = std::fs::read_to_string(path).map_err(|source| DictError::Io {
            file: path.display().to_string(),
            source,
        })?;
        Dictionary::from_xml_str_with(&name, &text, options)
    }

    /// Inconsistencies tolerated at load (only when not [`LoadOptions::strict`]): a group
    /// named after a field whose type cannot count (QuickFIX's own FIX43–FIX50SP2 files
    /// have `NoLegSecurityAltID` typed STRING; FIX50.xml has two groups named after
    /// non-count fields).
    pub fn warnings(&self) -> &[DictError] {
        &self.warnings
    }

    /// The name given at load (the file's base name for [`Dictionary::from_file`]).
    pub fn name(&self) -> &str {
        &self.name
    }
    /// `type` attribute of `<fix>`: `FIX` or `FIXT`.
    pub fn fix_type(&self) -> &str {
        &self.fix_type
    }
    /// `major` attribute.
    pub fn major(&self) -> u32 {
        self.major
    }
    /// `minor` attribute.
    pub fn minor(&self) -> u32 {
        self.minor
    }
    /// `servicepack` attribute (0 when absent).
    pub fn servicepack(&self) -> u32 {
        self.servicepack
    }
    /// `FIX.4.4`, `FIXT.1.1`, `FIX.5.0` … (service pack not included).
    pub fn begin_string(&self) -> &str {
        &self.begin_string
    }
    /// The version with its service pack, as ApplVerID names it: `FIX.5.0SP2`, `FIX.4.4`.
    pub fn version(&self) -> String {
        if self.servicepack > 0 {
            format!("{}SP{}", self.begin_string, self.servicepack)
        } else {
            self.begin_string.clone()
        }
    }
    /// True for a FIXT transport dictionary.
    pub fn is_transport(&self) -> bool {
        self.fix_type == "FIXT"
    }

    /// The field with this tag.
    #[inline]
    pub fn field(&self, tag: u32) -> Option<&FieldDef> {
        self.fields.get(tag as usize).and_then(Option::as_ref)
    }
    /// The field with this name.
    pub fn field_by_name(&self, name: &str) -> Option<&FieldDef> {
        self.field_by_name.get(name).and_then(|&t| self.field(t))
    }
    /// All fields in dictionary order.
    pub fn fields(&self) -> impl Iterator<Item = &FieldDef> + '_ {
        self.field_order.iter().filter_map(|&t| self.field(t))
    }
    /// Number of fields defined.
    pub fn field_count(&self) -> usize {
        self.field_order.len()
    }
    /// Highest tag defined (0 if none).
    pub fn max_tag(&self) -> u32 {
        self.fields.len().saturating_sub(1) as u32
    }

    /// Header members in order (empty for FIX 5.0 application dictionaries).
    pub fn header(&self) -> &[Member] {
        &self.header
    }
    /// Trailer members in order.
    pub fn trailer(&self) -> &[Member] {
        &self.trailer
    }
    /// All messages in dictionary order.
    pub fn messages(&self) -> &[MessageDef] {
        &self.messages
    }
    /// The message with this MsgType.
    pub fn message(&self, msg_type: &str) -> Option<&MessageDef> {
        self.message_by_type
            .get(msg_type)
            .map(|&i| &self.messages[i])
    }
    /// The message with this MsgType given as bytes (the fast path used by validation).
    #[inline]
    pub fn message_bytes(&self, msg_type: &[u8]) -> Option<&MessageDef> {
        self.message_index(msg_type).map(|i| &self.messages[i])
    }
    /// The message with this name.
    pub fn message_by_name(&self, name: &str) -> Option<&MessageDef> {
        self.messages.iter().find(|m| m.name == name)
    }
    /// All components in dictionary order.
    pub fn components(&self) -> &[ComponentDef] {
        &self.components
    }
    /// The component with this name.
    pub fn component(&self, name: &str) -> Option<&ComponentDef> {
        self.component_by_name
            .get(name)
            .map(|&i| &self.components[i])
    }

    /// Flattened header: every tag allowed, which are required, and the groups.
    pub fn header_scope(&self) -> FlatScope<'_> {
        FlatScope::new(self, HEADER_SCOPE)
    }
    /// Flattened trailer.
    pub fn trailer_scope(&self) -> FlatScope<'_> {
        FlatScope::new(self, TRAILER_SCOPE)
    }
    /// Flattened body of the message with this MsgType (components expanded, groups as
    /// nested scopes).
    pub fn message_scope(&self, msg_type: &str) -> Option<FlatScope<'_>> {
        self.message(msg_type)
            .map(|m| FlatScope::new(self, m.scope))
    }
    /// Flattened body of a message of this dictionary.
    pub fn body_scope(&self, message: &MessageDef) -> FlatScope<'_> {
        FlatScope::new(self, message.scope)
    }

    /// True if QuickFIX would treat this tag as a header field with this dictionary as the
    /// transport dictionary (the static list or the dictionary's header).
    #[inline]
    pub fn is_header_tag(&self, tag: u32) -> bool {
        self.section_of(tag) == SECTION_HEADER
    }
    /// True if the tag is a trailer field (static list or the dictionary's trailer).
    #[inline]
    pub fn is_trailer_tag(&self, tag: u32) -> bool {
        self.section_of(tag) == SECTION_TRAILER
    }

    #[inline]
    pub(crate) fn section_of(&self, tag: u32) -> u8 {
        self.rt
            .section
            .get(tag as usize)
            .copied()
            .unwrap_or(SECTION_BODY)
    }

    #[inline]
    pub(crate) fn message_index(&self, msg_type: &[u8]) -> Option<usize> {
        match msg_type {
            [b] => match self.rt.msg_short[*b as usize] {
                0 => None,
                i => Some(i as usize - 1),
            },
            _ => self
                .rt
                .msg_long
                .binary_search_by(|(k, _)| (**k).cmp(msg_type))
                .ok()
                .map(|i| self.rt.msg_long[i].1 as usize),
        }
    }

    #[inline]
    pub(crate) fn scope_of_message(&self, index: usize) -> u32 {
        self.messages[index].scope
    }
}

// ---------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------

struct Loader<'a, 'input> {
    file: &'a str,
    doc: &'a Document<'input>,
    options: LoadOptions,
    warnings: std::cell::RefCell<Vec<DictError>>,
}

type Res<T> = Result<T, DictError>;

fn render(node: Node<'_, '_>) -> String {
    let mut s = format!("<{}", node.tag_name().name());
    for a in ["name", "msgtype", "number", "enum"] {
        if let Some(v) = node.attribute(a) {
            s.push_str(&format!(" {a}=\"{v}\""));
        }
    }
    s.push('>');
    s
}

struct Parsed {
    fields: Vec<Option<FieldDef>>,
    field_order: Vec<u32>,
    field_by_name: HashMap<String, u32>,
    component_by_name: HashMap<String, usize>,
}

impl<'a, 'input> Loader<'a, 'input> {
    fn err(&self, node: Node<'_, '_>, kind: ErrorKind) -> DictError {
        DictError::Invalid {
            file: self.file.to_string(),
            line: self.line(node),
            element: render(node),
            kind,
        }
    }

    fn line(&self, node: Node<'_, '_>) -> u32 {
        self.doc.text_pos_at(node.range().start).row
    }

    fn attr<'n>(&self, node: Node<'n, 'input>, name: &'static str) -> Res<&'n str> {
        node.attribute(name)
            .ok_or_else(|| self.err(node, ErrorKind::MissingAttribute(name)))
    }

    fn number(&self, node: Node<'_, '_>, name: &'static str, value: &str) -> Res<u32> {
        value.trim().parse::<u32>().map_err(|_| {
            self.err(
                node,
                ErrorKind::BadNumber {
                    attribute: name,
                    value: value.to_string(),
                },
            )
        })
    }

    fn required(&self, node: Node<'_, '_>) -> Res<bool> {
        match node.attribute("required") {
            None => Ok(false),
            Some(v) if v.eq_ignore_ascii_case("Y") => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("N") => Ok(false),
            Some(v) => Err(self.err(
                node,
                ErrorKind::BadValue {
                    attribute: "required",
                    value: v.to_string(),
                },
            )),
        }
    }

    fn load(self) -> Res<Dictionary> {
        let root = self.doc.root_element();
        if root.tag_name().name() != "fix" {
            return Err(self.err(root, ErrorKind::NotAFixDictionary));
        }
        let fix_type = root.attribute("type").unwrap_or("FIX").to_string();
        let major = self.number(root, "major", self.attr(root, "major")?)?;
        let minor = self.number(root, "minor", self.attr(root, "minor")?)?;
        let servicepack = match root.attribute("servicepack") {
            Some(v) => self.number(root, "servicepack", v)?,
            None => 0,
        };
        let begin_string = format!("{fix_type}.{major}.{minor}");

        let section = |name: &str| {
            root.children()
                .find(|n| n.is_element() && n.tag_name().name() == name)
        };
        let fields_node =
            section("fields").ok_or_else(|| self.err(root, ErrorKind::MissingSection("fields")))?;
        let messages_node = section("messages")
            .ok_or_else(|| self.err(root, ErrorKind::MissingSection("messages")))?;

        // Fields.
        let mut parsed = Parsed {
            fields: Vec::new(),
            field_order: Vec::new(),
            field_by_name: HashMap::new(),
            component_by_name: HashMap::new(),
        };
        for node in elements(fields_node, "field") {
            let name = self.attr(node, "name")?;
            let tag = self.number(node, "number", self.attr(node, "number")?)?;
            let type_name = self.attr(node, "type")?;
            if tag == 0 || tag > MAX_TAG {
                return Err(self.err(node, ErrorKind::TagOutOfRange(tag)));
            }
            if parsed.fields.get(tag as usize).is_some_and(Option::is_some) {
                return Err(self.err(node, ErrorKind::DuplicateFieldNumber(tag)));
            }
            if parsed.field_by_name.contains_key(name) {
                return Err(self.err(node, ErrorKind::DuplicateFieldName(name.to_string())));
            }
            let mut values = Vec::new();
            for v in elements(node, "value") {
                values.push(EnumValue {
                    value: self.attr(v, "enum")?.to_string(),
                    description: v.attribute("description").unwrap_or("").to_string(),
                });
            }
            let allow_other_values = node
                .attribute("allowOtherValues")
                .is_some_and(|v| v.eq_ignore_ascii_case("true") || v == "Y");
            if parsed.fields.len() <= tag as usize {
                parsed.fields.resize(tag as usize + 1, None);
            }
            parsed.fields[tag as usize] = Some(FieldDef {
                tag,
                name: name.to_string(),
                fix_type: FixType::from_xml_name(type_name),
                values,
                allow_other_values,
                line: self.line(node),
            });
            parsed.field_order.push(tag);
            parsed.field_by_name.insert(name.to_string(), tag);
        }

        // Component names first, so members may reference components defined later.
        let component_nodes: Vec<Node<'_, '_>> = match section("components") {
            Some(c) => elements(c, "component").collect(),
            None => Vec::new(),
        };
        for (i, node) in component_nodes.iter().enumerate() {
            let name = self.attr(*node, "name")?;
            if parsed
                .component_by_name
                .insert(name.to_string(), i)
                .is_some()
            {
                return Err(self.err(*node, ErrorKind::DuplicateComponent(name.to_string())));
            }
        }
        let mut components = Vec::with_capacity(component_nodes.len());
        for node in &component_nodes {
            let name = self.attr(*node, "name")?;
            let members = self.members(*node, &format!("component {name}"), &parsed, 0)?;
            components.push(ComponentDef {
                name: name.to_string(),
                members,
                line: self.line(*node),
            });
        }

        let header = match section("header") {
            Some(h) => self.members(h, "header", &parsed, 0)?,
            None => Vec::new(),
        };
        let trailer = match section("trailer") {
            Some(t) => self.members(t, "trailer", &parsed, 0)?,
            None => Vec::new(),
        };

        let mut messages = Vec::new();
        let mut message_by_type = HashMap::new();
        for node in elements(messages_node, "message") {
            let name = self.attr(node, "name")?;
            let msg_type = self.attr(node, "msgtype")?;
            // As QuickFIX/J reads it: `admin` is a session message, anything
            // else (`app`, none, or a category of its own such as the
            // `Allocation` of QuickFIX/J's FIX50.xml) an application message.
            let category = match node.attribute("msgcat") {
                Some("admin") => MsgCategory::Admin,
                _ => MsgCategory::App,
            };
            if message_by_type
                .insert(msg_type.to_string(), messages.len())
                .is_some()
            {
                return Err(self.err(node, ErrorKind::DuplicateMessage(msg_type.to_string())));
            }
            let members = self.members(node, &format!("message {name}"), &parsed, 0)?;
            messages.push(MessageDef {
                name: name.to_string(),
                msg_type: msg_type.to_string(),
                category,
                members,
                line: self.line(node),
                scope: 0,
            });
        }

        let mut dict = Dictionary {
            name: self.file.to_string(),
            fix_type,
            major,
            minor,
            servicepack,
            begin_string,
            fields: parsed.fields,
            field_order: parsed.field_order,
            field_by_name: parsed.field_by_name,
            header,
            trailer,
            messages,
            message_by_type,
            components,
            component_by_name: parsed.component_by_name,
            warnings: self.warnings.take(),
            id: {
                static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
            rt: Runtime {
                field_info: Box::new([]),
                enums: Vec::new(),
                scopes: Vec::new(),
                msg_short: Box::new([0; 256]),
                msg_long: Vec::new(),
                section: Box::new([]),
                header_trailer: HeaderTrailer::default(),
                plans: Vec::new(),
            },
        };
        crate::resolve::resolve(&mut dict, self.file)?;
        Ok(dict)
    }

    /// The name and tag of the field a `<field>` or `<group>` element names (an unknown
    /// field is an error in `ctx`).
    fn named_field<'n>(
        &self,
        node: Node<'n, 'input>,
        ctx: &str,
        parsed: &Parsed,
    ) -> Res<(&'n str, u32)> {
        let name = self.attr(node, "name")?;
        let tag = *parsed
            .field_by_name
            .get(name)
            .ok_or_else(|| self.err(node, ErrorKind::UnknownField(ctx.to_string())))?;
        Ok((name, tag))
    }

    /// The members of a message, component, header, trailer or group; `depth` is the number
    /// of groups around `parent` (bounded here so that deeply nested XML is an error, not a
    /// deep recursion).
    fn members(
        &self,
        parent: Node<'_, '_>,
        ctx: &str,
        parsed: &Parsed,
        depth: usize,
    ) -> Res<Vec<Member>> {
        let mut out = Vec::new();
        for node in parent.children().filter(Node::is_element) {
            match node.tag_name().name() {
                "field" => {
                    let (_, tag) = self.named_field(node, ctx, parsed)?;
                    out.push(Member::Field(FieldRef {
                        tag,
                        required: self.required(node)?,
                    }));
                }
                "component" => {
                    let name = self.attr(node, "name")?;
                    let index = *parsed.component_by_name.get(name).ok_or_else(|| {
                        self.err(node, ErrorKind::UnknownComponent(ctx.to_string()))
                    })?;
                    out.push(Member::Component(ComponentRef {
                        index,
                        name: name.to_string(),
                        required: self.required(node)?,
                        line: self.line(node),
                    }));
                }
                "group" => {
                    let (name, tag) = self.named_field(node, ctx, parsed)?;
                    if depth + 1 > MAX_GROUP_DEPTH {
                        return Err(self.err(node, ErrorKind::TooDeep(depth + 1)));
                    }
                    let fix_type = parsed
                        .fields
                        .get(tag as usize)
                        .and_then(Option::as_ref)
                        .map(|def| def.fix_type.clone())
                        .unwrap_or(FixType::NumInGroup);
                    if !fix_type.can_count_group() {
                        let e = self.err(node, ErrorKind::GroupNotNumInGroup(fix_type.to_string()));
                        if self.options.strict {
                            return Err(e);
                        }
                        self.warnings.borrow_mut().push(e);
                    }
                    let members =
                        self.members(node, &format!("group {name}"), parsed, depth + 1)?;
                    if members.is_empty() {
                        return Err(self.err(node, ErrorKind::EmptyGroup));
                    }
                    out.push(Member::Group(GroupDef {
                        count_tag: tag,
                        name: name.to_string(),
                        required: self.required(node)?,
                        members,
                        line: self.line(node),
                    }));
                }
                _ => {}
            }
        }
        Ok(out)
    }
}

fn elements<'a, 'input: 'a>(
    parent: Node<'a, 'input>,
    name: &'static str,
) -> impl Iterator<Item = Node<'a, 'input>> {
    parent
        .children()
        .filter(move |n| n.is_element() && n.tag_name().name() == name)
}

// ---------------------------------------------------------------------------------------
// Runtime construction helpers used by `resolve`.
// ---------------------------------------------------------------------------------------

impl Dictionary {
    pub(crate) fn set_runtime(&mut self, rt: Runtime) {
        self.rt = rt;
    }
    pub(crate) fn set_message_scope(&mut self, index: usize, scope: u32) {
        self.messages[index].scope = scope;
    }
    pub(crate) fn dense_fields(&self) -> &[Option<FieldDef>] {
        &self.fields
    }
    pub(crate) fn is_fix_4_2_or_later(&self) -> bool {
        !(self.fix_type == "FIX" && self.major == 4 && self.minor < 2)
    }
}

impl Runtime {
    pub(crate) fn new(
        field_info: Box<[FieldInfo]>,
        enums: Vec<EnumSet>,
        scopes: Vec<Scope>,
        messages: &[MessageDef],
        section: Box<[u8]>,
        header_trailer: HeaderTrailer,
        plans: Vec<Plan>,
    ) -> Runtime {
        let mut msg_short = Box::new([0u32; 256]);
        let mut msg_long = Vec::new();
        for (i, m) in messages.iter().enumerate() {
            match m.msg_type.as_bytes() {
                [b] => msg_short[*b as usize] = i as u32 + 1,
                other => msg_long.push((other.to_vec().into_boxed_slice(), i as u32)),
            }
        }
        msg_long.sort();
        Runtime {
            field_info,
            enums,
            scopes,
            msg_short,
            msg_long,
            section,
            header_trailer,
            plans,
        }
    }
}

//! Errors raised while loading a dictionary.

use std::fmt;

/// A malformed or inconsistent dictionary.
///
/// Every variant names the file (or the name given to [`crate::Dictionary::from_xml_str`]) and,
/// where there is one, the line and the element at fault:
///
/// ```
/// use peregrine_dict::Dictionary;
/// let xml = "<fix major='4' minor='4'>\n<header/><trailer/>\n<messages>\n\
///            <message name='Foo' msgtype='U1' msgcat='app'>\n<field name='Bar' required='Y'/>\n\
///            </message>\n</messages>\n<components/>\n<fields/>\n</fix>";
/// let err = Dictionary::from_xml_str("venue.xml", xml).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "venue.xml:5: <field name=\"Bar\">: unknown field referenced in message Foo"
/// );
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum DictError {
    /// The file could not be read.
    Io {
        /// The path as given.
        file: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The text is not well-formed XML.
    Xml {
        /// File name.
        file: String,
        /// 1-based line of the error.
        line: u32,
        /// The XML parser's message.
        message: String,
    },
    /// The XML is well-formed but the dictionary is not.
    Invalid {
        /// File name.
        file: String,
        /// 1-based line of the offending element.
        line: u32,
        /// The offending element, rendered like `<field name="Foo">`.
        element: String,
        /// What is wrong.
        kind: ErrorKind,
    },
}

/// What is wrong with a dictionary element (see [`DictError::Invalid`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The root element is not `<fix>`.
    NotAFixDictionary,
    /// A required section (`fields`, `messages`, …) is absent.
    MissingSection(&'static str),
    /// A required attribute is absent.
    MissingAttribute(&'static str),
    /// An attribute that must be a number is not.
    BadNumber {
        /// Attribute name.
        attribute: &'static str,
        /// Its value.
        value: String,
    },
    /// An attribute has a value outside the allowed set (e.g. `required="maybe"`).
    BadValue {
        /// Attribute name.
        attribute: &'static str,
        /// Its value.
        value: String,
    },
    /// Two `<field>` definitions share a number.
    DuplicateFieldNumber(u32),
    /// Two `<field>` definitions share a name.
    DuplicateFieldName(String),
    /// Two `<message>` definitions share a MsgType.
    DuplicateMessage(String),
    /// Two `<component>` definitions share a name.
    DuplicateComponent(String),
    /// A `<field>` or `<group>` references a field name that is not defined; the string
    /// names the context (`message NewOrderSingle`, `component Instrument`, `group NoLegs`,
    /// `header`, `trailer`).
    UnknownField(String),
    /// A `<component>` reference names no defined component (context as for `UnknownField`).
    UnknownComponent(String),
    /// A `<group>` is named after a field whose type cannot count a group.
    GroupNotNumInGroup(String),
    /// A `<group>` has no members.
    EmptyGroup,
    /// A component includes itself, directly or through others.
    RecursiveComponent(String),
    /// Repeating groups nest deeper than [`crate::MAX_GROUP_DEPTH`].
    TooDeep(usize),
    /// Components include each other deeper than [`crate::MAX_COMPONENT_DEPTH`].
    ComponentsTooDeep(usize),
    /// A field number is 0 or above [`crate::MAX_TAG`].
    TagOutOfRange(u32),
}

impl DictError {
    /// The file name the error refers to.
    pub fn file(&self) -> &str {
        match self {
            DictError::Io { file, .. }
            | DictError::Xml { file, .. }
            | DictError::Invalid { file, .. } => file,
        }
    }

    /// The 1-based line the error refers to, when known.
    pub fn line(&self) -> Option<u32> {
        match self {
            DictError::Io { .. } => None,
            DictError::Xml { line, .. } | DictError::Invalid { line, .. } => Some(*line),
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::NotAFixDictionary => f.write_str("root element is not <fix>"),
            ErrorKind::MissingSection(s) => write!(f, "missing <{s}> section"),
            ErrorKind::MissingAttribute(a) => write!(f, "missing attribute `{a}`"),
            ErrorKind::BadNumber { attribute, value } => {
                write!(
                    f,
                    "attribute `{attribute}` is not a valid number: {value:?}"
                )
            }
            ErrorKind::BadValue { attribute, value } => {
                write!(f, "attribute `{attribute}` has an invalid value: {value:?}")
            }
            ErrorKind::DuplicateFieldNumber(n) => write!(f, "duplicate field number {n}"),
            ErrorKind::DuplicateFieldName(n) => write!(f, "duplicate field name {n}"),
            ErrorKind::DuplicateMessage(t) => write!(f, "duplicate message type {t}"),
            ErrorKind::DuplicateComponent(n) => write!(f, "duplicate component {n}"),
            ErrorKind::UnknownField(ctx) => write!(f, "unknown field referenced in {ctx}"),
            ErrorKind::UnknownComponent(ctx) => write!(f, "unknown component referenced in {ctx}"),
            ErrorKind::GroupNotNumInGroup(ty) => {
                write!(f, "group is not a NumInGroup field (its type is {ty})")
            }
            ErrorKind::EmptyGroup => f.write_str("group has no members"),
            ErrorKind::RecursiveComponent(n) => write!(f, "component {n} includes itself"),
            ErrorKind::TooDeep(d) => write!(
                f,
                "repeating groups nested {d} deep (limit {})",
                crate::MAX_GROUP_DEPTH
            ),
            ErrorKind::ComponentsTooDeep(d) => write!(
                f,
                "components nested {d} deep (limit {})",
                crate::MAX_COMPONENT_DEPTH
            ),
            ErrorKind::TagOutOfRange(t) => {
                write!(
                    f,
                    "field number {t} is out of range (1 to {})",
                    crate::MAX_TAG
                )
            }
        }
    }
}

impl fmt::Display for DictError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DictError::Io { file, source } => write!(f, "{file}: {source}"),
            DictError::Xml {
                file,
                line,
                message,
            } => write!(f, "{file}:{line}: bad XML: {message}"),
            DictError::Invalid {
                file,
                line,
                element,
                kind,
            } => write!(f, "{file}:{line}: {element}: {kind}"),
        }
    }
}

impl std::error::Error for DictError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DictError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

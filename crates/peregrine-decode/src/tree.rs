//! A message's fields as the dictionary shapes them: names, enum
//! descriptions, and repeating groups as nested instances.
//!
//! A NumInGroup field of the scope at hand (header, body, trailer, or an
//! enclosing group) opens its group: an instance starts at each occurrence of
//! the group's first field (its delimiter) and takes the fields the group
//! defines; the first field the group does not define closes it, and is read
//! in the enclosing scope. Counts are not checked against the instances: this
//! shows a message, it does not validate it.

use std::collections::HashSet;

use peregrine_dict::{FieldDef, FixType, FlatScope};

use super::dicts::Chosen;
use super::message::Field;

/// One field as shown.
#[derive(Debug)]
pub struct Node<'a, 'd> {
    /// The tag.
    pub tag: u32,
    /// The value as on the wire.
    pub value: &'a [u8],
    /// The dictionary's name of the field.
    pub name: Option<&'d str>,
    /// What the value means: the enum's description (QuickFIX's upper-case
    /// names), each one's for a multiple-value field, the message name for
    /// MsgType(35) and RefMsgType(372).
    pub meaning: Option<String>,
    /// For a NumInGroup field that opens a group: its instances, each a list
    /// of fields.
    pub instances: Option<Vec<Vec<Node<'a, 'd>>>>,
}

impl Node<'_, '_> {
    /// Whether the field is shown when only `tags` are (`None`: all are): it
    /// is one of them, or a group's count field with one of them inside.
    pub fn shown(&self, tags: Option<&HashSet<u32>>) -> bool {
        let Some(tags) = tags else {
            return true;
        };
        tags.contains(&self.tag)
            || self
                .instances
                .iter()
                .flatten()
                .flatten()
                .any(|n| n.shown(Some(tags)))
    }
}

/// The fields of a message, shaped by its dictionaries.
pub fn shape<'a, 'd>(
    fields: &[Field<'a>],
    msg_type: &str,
    chosen: &Chosen<'d>,
) -> Vec<Node<'a, 'd>> {
    let header = chosen.transport.map(|d| d.header_scope());
    let trailer = chosen.transport.map(|d| d.trailer_scope());
    let body = chosen.message(msg_type).map(|(d, m)| d.body_scope(m));
    let mut nodes = Vec::with_capacity(fields.len());
    let mut i = 0;
    while i < fields.len() {
        let tag = fields[i].tag;
        let scope = match chosen.transport {
            Some(t) if t.is_header_tag(tag) => header,
            Some(t) if t.is_trailer_tag(tag) => trailer,
            _ => body,
        };
        let mut node = node(&fields[i], chosen);
        i += 1;
        if let Some(group) = scope.and_then(|s| s.group(tag)) {
            node.instances = Some(instances(group, fields, &mut i, chosen));
        }
        nodes.push(node);
    }
    nodes
}

/// The instances of `group` from `fields[*i]` on (none when the next field is
/// not the group's delimiter); `*i` is left at the first field after them.
/// Recursion is bounded by the dictionary's group depth
/// ([`peregrine_dict::MAX_GROUP_DEPTH`]).
fn instances<'a, 'd>(
    group: FlatScope<'d>,
    fields: &[Field<'a>],
    i: &mut usize,
    chosen: &Chosen<'d>,
) -> Vec<Vec<Node<'a, 'd>>> {
    let mut all = Vec::new();
    let Some(delimiter) = group.delimiter() else {
        return all;
    };
    while fields.get(*i).is_some_and(|f| f.tag == delimiter) {
        let mut instance = vec![node(&fields[*i], chosen)];
        *i += 1;
        while let Some(f) = fields.get(*i) {
            if f.tag == delimiter || !group.contains(f.tag) {
                break;
            }
            let mut n = node(f, chosen);
            *i += 1;
            if let Some(nested) = group.group(f.tag) {
                n.instances = Some(instances(nested, fields, i, chosen));
            }
            instance.push(n);
        }
        all.push(instance);
    }
    all
}

fn node<'a, 'd>(f: &Field<'a>, chosen: &Chosen<'d>) -> Node<'a, 'd> {
    let def = chosen.field(f.tag);
    let meaning = match f.tag {
        // MsgType and RefMsgType: the message's name says more than the enum.
        35 | 372 => std::str::from_utf8(f.value)
            .ok()
            .and_then(|t| chosen.message(t))
            .map(|(_, m)| m.name.clone())
            .or_else(|| def.and_then(|d| describe(d, f.value))),
        _ => def.and_then(|d| describe(d, f.value)),
    };
    Node {
        tag: f.tag,
        value: f.value,
        name: def.map(|d| d.name.as_str()),
        meaning,
        instances: None,
    }
}

/// The enum description of a value; for a multiple-value field, each
/// value's, `?` for one the dictionary does not list.
fn describe(def: &FieldDef, value: &[u8]) -> Option<String> {
    if def.values.is_empty() {
        return None;
    }
    let one = |v: &[u8]| {
        def.values
            .iter()
            .find(|e| e.value.as_bytes() == v && !e.description.is_empty())
            .map(|e| e.description.as_str())
    };
    if matches!(
        def.fix_type,
        FixType::MultipleValueString | FixType::MultipleCharValue | FixType::MultipleStringValue
    ) && value.contains(&b' ')
    {
        let parts: Vec<Option<&str>> = value
            .split(|&b| b == b' ')
            .filter(|p| !p.is_empty())
            .map(one)
            .collect();
        if parts.iter().all(Option::is_none) {
            return None;
        }
        return Some(
            parts
                .iter()
                .map(|p| p.unwrap_or("?"))
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    one(value).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::super::dicts::Dictionaries;
    use super::super::message::parse;
    use super::super::scan::FoundMessage;
    use super::*;

    fn shaped(text: &str, f: impl FnOnce(&[Node<'_, '_>])) {
        let frame = FoundMessage {
            line: 1,
            time: None,
            bytes: text.as_bytes().to_vec(),
            delimiter: b'|',
        };
        let m = parse(&frame).unwrap();
        let d = Dictionaries::new(&[]).unwrap();
        let begin = m.text(8).unwrap();
        let msg_type = m.text(35).unwrap();
        let chosen = d.choose(&begin, &msg_type, None, "A", "B");
        f(&shape(&m.fields, &msg_type, &chosen));
    }

    #[test]
    fn groups_nest_and_end_at_the_first_field_they_do_not_define() {
        // NewOrderSingle with two parties, the second with a PartySubID, then Symbol.
        shaped(
            "8=FIX.4.4|9=1|35=D|49=A|56=B|34=2|11=X|453=2|448=P1|447=D|452=1|448=P2|802=1|523=S|\
             803=1|55=MSFT|54=1|18=1 2|10=000|",
            |nodes| {
                let tags: Vec<u32> = nodes.iter().map(|n| n.tag).collect();
                assert_eq!(tags, [8, 9, 35, 49, 56, 34, 11, 453, 55, 54, 18, 10]);
                assert_eq!(nodes[2].meaning.as_deref(), Some("NewOrderSingle"));
                let parties = nodes[7].instances.as_ref().unwrap();
                assert_eq!(parties.len(), 2);
                assert_eq!(
                    parties[0].iter().map(|n| n.tag).collect::<Vec<_>>(),
                    [448, 447, 452]
                );
                assert_eq!(parties[0][1].meaning.as_deref(), Some("PROPCODE"));
                let sub = parties[1][1].instances.as_ref().unwrap();
                assert_eq!(sub[0].iter().map(|n| n.tag).collect::<Vec<_>>(), [523, 803]);
                assert_eq!(nodes[9].name, Some("Side"));
                assert_eq!(nodes[9].meaning.as_deref(), Some("BUY"));
                assert_eq!(nodes[10].meaning.as_deref(), Some("NOTHELD WORK"));
            },
        );
    }

    #[test]
    fn unknown_tags_and_messages_keep_their_place() {
        shaped("8=FIX.4.4|9=1|35=ZZ|9999=x|55=IBM|10=000|", |nodes| {
            assert_eq!(nodes.len(), 6);
            assert_eq!((nodes[3].tag, nodes[3].name), (9999, None));
            assert_eq!(nodes[2].meaning, None);
            assert_eq!(nodes[4].name, Some("Symbol"));
        });
    }
}

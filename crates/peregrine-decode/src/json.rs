//! The `--json` output: one JSON object per message, one per line (JSON
//! Lines), e.g.
//!
//! ```json
//! {"line":3,"time":"20261124-10:00:00.123","begin_string":"FIX.4.4","msg_type":"D",
//!  "msg_type_name":"NewOrderSingle","sender":"CLIENT","target":"VENUE","seq_num":2,
//!  "dictionary":"FIX44.xml","fields":[{"tag":8,"name":"BeginString","value":"FIX.4.4"},
//!  …,{"tag":453,"name":"NoPartyIDs","value":"1","groups":[[{"tag":448,…}]]},…]}
//! ```
//!
//! (shown here on several lines). `time`, `msg_type`, `msg_type_name`,
//! `sender`, `target`, `seq_num`, `dictionary` and a field's `name` are
//! `null` when the input or the dictionary does not say; a field has `enum` when the
//! dictionary describes its value and `groups` (a list of instances, each a
//! list of fields) when it opens a repeating group; `problems` is there when
//! the message has some (a bad BodyLength or CheckSum); `appl_version` is
//! there for a FIXT.1.1 application message (the version its body was read
//! as). Values are escaped as
//! in the text output ([`super::escape`]).

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{self, Write};

use serde::Serialize;

use super::escape::escape;
use super::tree::Node;
use super::Shown;

#[derive(Serialize)]
struct Message<'x> {
    line: u64,
    time: Option<Cow<'x, str>>,
    begin_string: Cow<'x, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    appl_version: Option<&'x str>,
    msg_type: Option<Cow<'x, str>>,
    msg_type_name: Option<&'x str>,
    sender: Option<Cow<'x, str>>,
    target: Option<Cow<'x, str>>,
    seq_num: Option<u64>,
    dictionary: Option<&'x str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    problems: &'x [String],
    fields: Vec<Field<'x>>,
}

#[derive(Serialize)]
struct Field<'x> {
    tag: u32,
    name: Option<&'x str>,
    value: Cow<'x, str>,
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    meaning: Option<&'x str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    groups: Option<Vec<Vec<Field<'x>>>>,
}

/// Writes one message as a line of JSON.
pub fn write(out: &mut impl Write, m: &Shown<'_, '_, '_>) -> io::Result<()> {
    let message = Message {
        line: m.line,
        time: m.time.map(|t| escape(t.as_bytes())),
        begin_string: escape(m.begin_string.as_bytes()),
        appl_version: m.app_version,
        msg_type: m.msg_type.map(|v| escape(v.as_bytes())),
        msg_type_name: m.msg_type_name,
        sender: m.sender.map(|v| escape(v.as_bytes())),
        target: m.target.map(|v| escape(v.as_bytes())),
        seq_num: m.seq_num.and_then(|s| s.parse().ok()),
        dictionary: m.dictionary,
        problems: m.problems,
        fields: fields(m.fields, m.tags),
    };
    serde_json::to_writer(&mut *out, &message).map_err(io::Error::from)?;
    writeln!(out)
}

fn fields<'x>(nodes: &'x [Node<'_, '_>], tags: Option<&HashSet<u32>>) -> Vec<Field<'x>> {
    nodes
        .iter()
        .filter(|n| n.shown(tags))
        .map(|n| Field {
            tag: n.tag,
            name: n.name,
            value: escape(n.value),
            meaning: n.meaning.as_deref(),
            groups: n
                .instances
                .as_ref()
                .map(|all| all.iter().map(|inst| fields(inst, tags)).collect()),
        })
        .collect()
}

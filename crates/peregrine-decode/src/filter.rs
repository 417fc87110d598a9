//! Which messages and fields `decode` shows: `--session`, `--msg-type`,
//! `--where`, `--tag`, `--admin`/`--app`. Names given to `--msg-type` and `--tag` are
//! checked against every dictionary up front: a misspelt name is an error,
//! not a filter that silently matches nothing.

use std::collections::HashSet;

use peregrine_dict::MsgCategory;

use super::dicts::{Chosen, Dictionaries};
use crate::Error;

/// Session-level MsgTypes, for messages no dictionary defines.
const ADMIN_TYPES: [&str; 7] = ["0", "1", "2", "3", "4", "5", "A"];

/// A `--session`: CompIDs in either order, and maybe a BeginString.
#[derive(Debug, PartialEq, Eq)]
struct Session {
    begin_string: Option<String>,
    a: String,
    b: String,
}

/// What to filter on, as given (names or numbers, as `peregrine decode`'s
/// options take them); [`Filter::new`] checks it.
///
/// ```
/// use peregrine_decode::{Dictionaries, Filter, FilterSpec};
/// let spec = FilterSpec { msg_type: vec!["NewOrderSingle".into()], where_: vec!["ClOrdID=A1".into()], ..FilterSpec::default() };
/// assert!(Filter::new(&spec, &Dictionaries::new(&[])?).is_ok());
/// # Ok::<(), peregrine_decode::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterSpec {
    /// `[BEGINSTRING:]SENDER->TARGET`: only messages between these CompIDs,
    /// in either direction.
    pub session: Vec<String>,
    /// MsgTypes by value (`D`) or name (`NewOrderSingle`).
    pub msg_type: Vec<String>,
    /// Only these fields are shown, by tag or name.
    pub tag: Vec<String>,
    /// `TAG` or `TAG=VALUE` (`11=ORD-17`, `ClOrdID=ORD-17`): all must hold.
    pub where_: Vec<String>,
    /// Only session-level messages.
    pub admin: bool,
    /// Only application messages.
    pub app: bool,
}

/// The filters of a run.
#[derive(Debug, Default)]
pub struct Filter {
    sessions: Vec<Session>,
    msg_types: Option<HashSet<String>>,
    tags: Option<HashSet<u32>>,
    category: Option<MsgCategory>,
    /// `--where`: a field (any of the tags a name stands for) and maybe its value.
    wheres: Vec<(Vec<u32>, Option<Vec<u8>>)>,
}

/// What a message is, for filtering.
pub struct Identity<'m> {
    /// BeginString(8).
    pub begin_string: &'m str,
    /// MsgType(35).
    pub msg_type: &'m str,
    /// SenderCompID(49).
    pub sender: &'m str,
    /// TargetCompID(56).
    pub target: &'m str,
}

impl Filter {
    /// The filters the options ask for.
    ///
    /// # Errors
    ///
    /// A `--session` without `->`, or a name no dictionary knows.
    pub fn new(args: &FilterSpec, dicts: &Dictionaries) -> Result<Filter, Error> {
        let sessions = args
            .session
            .iter()
            .map(|s| parse_session(s))
            .collect::<Result<_, _>>()?;
        let msg_types = if args.msg_type.is_empty() {
            None
        } else {
            let mut set = HashSet::new();
            for entry in args
                .msg_type
                .iter()
                .map(|e| e.trim())
                .filter(|e| !e.is_empty())
            {
                set.extend(msg_type_values(entry, dicts)?);
            }
            Some(set)
        };
        let tags = if args.tag.is_empty() {
            None
        } else {
            let mut set = HashSet::new();
            for entry in args.tag.iter().map(|e| e.trim()).filter(|e| !e.is_empty()) {
                set.extend(tag_numbers(entry, dicts)?);
            }
            Some(set)
        };
        let category = match (args.admin, args.app) {
            (true, _) => Some(MsgCategory::Admin),
            (_, true) => Some(MsgCategory::App),
            _ => None,
        };
        let wheres = args
            .where_
            .iter()
            .map(|w| {
                let (tag, value) = match w.split_once('=') {
                    Some((t, v)) => (t.trim(), Some(v.as_bytes().to_vec())),
                    None => (w.trim(), None),
                };
                if tag.is_empty() {
                    return Err(Error::Usage(format!(
                        "--where {w:?}: expected TAG or TAG=VALUE, e.g. 11=ORD-17"
                    )));
                }
                Ok((tag_numbers(tag, dicts)?, value))
            })
            .collect::<Result<_, _>>()?;
        Ok(Filter {
            sessions,
            msg_types,
            tags,
            category,
            wheres,
        })
    }

    /// Whether a message is shown.
    pub fn message(&self, id: &Identity<'_>, chosen: &Chosen<'_>) -> bool {
        if !self.sessions.is_empty()
            && !self.sessions.iter().any(|s| {
                s.begin_string
                    .as_deref()
                    .map_or(true, |b| b == id.begin_string)
                    && ((s.a == id.sender && s.b == id.target)
                        || (s.a == id.target && s.b == id.sender))
            })
        {
            return false;
        }
        if let Some(types) = &self.msg_types {
            if !types.contains(id.msg_type) {
                return false;
            }
        }
        if let Some(wanted) = self.category {
            let category = match chosen.message(id.msg_type) {
                Some((_, m)) => m.category,
                None if ADMIN_TYPES.contains(&id.msg_type) => MsgCategory::Admin,
                None => MsgCategory::App,
            };
            if category != wanted {
                return false;
            }
        }
        true
    }

    /// Whether a message's fields hold every `--where` (`get_all(tag)`: the values
    /// of that tag anywhere in the message).
    pub fn fields<'v>(&self, fields: impl Fn(u32) -> Vec<&'v [u8]>) -> bool {
        self.wheres.iter().all(|(tags, value)| {
            tags.iter().any(|&t| {
                let found = fields(t);
                match value {
                    None => !found.is_empty(),
                    Some(v) => found.iter().any(|f| f == v),
                }
            })
        })
    }

    /// The tags to show (`None`: all).
    pub fn tags(&self) -> Option<&HashSet<u32>> {
        self.tags.as_ref()
    }
}

fn parse_session(text: &str) -> Result<Session, Error> {
    let bad = || {
        Error::Usage(format!(
            "--session {text:?}: expected [BEGINSTRING:]SENDER->TARGET, e.g. CLIENT->VENUE"
        ))
    };
    let (left, b) = text.split_once("->").ok_or_else(bad)?;
    let (begin_string, a) = match left.split_once(':') {
        Some((begin, a)) if begin.starts_with("FIX") => (Some(begin.to_string()), a),
        _ => (None, left),
    };
    if a.is_empty() || b.is_empty() {
        return Err(bad());
    }
    Ok(Session {
        begin_string,
        a: a.to_string(),
        b: b.to_string(),
    })
}

/// The MsgTypes an entry stands for: itself when it is a MsgType (any one or
/// two characters, or one a dictionary defines), the MsgType of the message
/// it names in any dictionary, or itself when it is short enough to be a
/// venue's own (up to 4 characters).
fn msg_type_values(entry: &str, dicts: &Dictionaries) -> Result<Vec<String>, Error> {
    if entry.len() <= 2 {
        return Ok(vec![entry.to_string()]);
    }
    let mut values: Vec<String> = Vec::new();
    for d in dicts.all() {
        if d.message(entry).is_some() {
            values.push(entry.to_string());
        }
        if let Some(m) = d.message_by_name(entry) {
            values.push(m.msg_type.clone());
        }
    }
    if values.is_empty() {
        if entry.len() <= 4 {
            return Ok(vec![entry.to_string()]);
        }
        return Err(Error::Usage(format!(
            "--msg-type {entry}: no dictionary has a message of that name or type"
        )));
    }
    values.dedup();
    Ok(values)
}

/// The tags an entry stands for: its number, or the tag of the field it names
/// in any dictionary.
fn tag_numbers(entry: &str, dicts: &Dictionaries) -> Result<Vec<u32>, Error> {
    if entry.bytes().all(|b| b.is_ascii_digit()) {
        return entry
            .parse::<u32>()
            .ok()
            .filter(|&t| t > 0)
            .map(|t| vec![t])
            .ok_or_else(|| Error::Usage(format!("--tag {entry}: not a tag number")));
    }
    let mut tags: Vec<u32> = dicts
        .all()
        .filter_map(|d| d.field_by_name(entry).map(|f| f.tag))
        .collect();
    tags.sort_unstable();
    tags.dedup();
    if tags.is_empty() {
        return Err(Error::Usage(format!(
            "--tag {entry}: no dictionary has a field of that name"
        )));
    }
    Ok(tags)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(f: impl FnOnce(&mut FilterSpec)) -> FilterSpec {
        let mut a = FilterSpec::default();
        f(&mut a);
        a
    }

    fn id<'a>(
        begin_string: &'a str,
        msg_type: &'a str,
        sender: &'a str,
        target: &'a str,
    ) -> Identity<'a> {
        Identity {
            begin_string,
            msg_type,
            sender,
            target,
        }
    }

    #[test]
    fn sessions_match_either_direction() {
        let d = Dictionaries::new(&[]).unwrap();
        let f = Filter::new(&args(|a| a.session = vec!["FIX.4.4:A->B".into()]), &d).unwrap();
        let chosen = d.choose("FIX.4.4", "D", None, "A", "B");
        assert!(f.message(&id("FIX.4.4", "D", "A", "B"), &chosen));
        assert!(f.message(&id("FIX.4.4", "8", "B", "A"), &chosen));
        assert!(!f.message(&id("FIX.4.2", "D", "A", "B"), &chosen));
        assert!(!f.message(&id("FIX.4.4", "D", "A", "C"), &chosen));
        assert!(Filter::new(&args(|a| a.session = vec!["A-B".into()]), &d).is_err());
    }

    #[test]
    fn msg_types_by_value_or_name_and_tags_by_number_or_name() {
        let d = Dictionaries::new(&[]).unwrap();
        let f = Filter::new(
            &args(|a| {
                a.msg_type = vec!["NewOrderSingle".into(), "8".into()];
                a.tag = vec!["ClOrdID".into(), "55".into()];
            }),
            &d,
        )
        .unwrap();
        let chosen = d.choose("FIX.4.4", "D", None, "A", "B");
        assert!(f.message(&id("FIX.4.4", "D", "A", "B"), &chosen));
        assert!(f.message(&id("FIX.4.4", "8", "A", "B"), &chosen));
        assert!(!f.message(&id("FIX.4.4", "0", "A", "B"), &chosen));
        assert_eq!(f.tags().unwrap(), &HashSet::from([11, 55]));
        for bad in [
            args(|a| a.msg_type = vec!["NewOrderSingel".into()]),
            args(|a| a.tag = vec!["ClOrdId".into()]),
            args(|a| a.tag = vec!["0".into()]),
        ] {
            assert!(matches!(Filter::new(&bad, &d), Err(Error::Usage(_))));
        }
    }

    #[test]
    fn admin_or_app() {
        let d = Dictionaries::new(&[]).unwrap();
        let admin = Filter::new(&args(|a| a.admin = true), &d).unwrap();
        let logon = d.choose("FIX.4.4", "A", None, "A", "B");
        assert!(admin.message(&id("FIX.4.4", "A", "A", "B"), &logon));
        let nos = d.choose("FIX.4.4", "D", None, "A", "B");
        assert!(!admin.message(&id("FIX.4.4", "D", "A", "B"), &nos));
        let app = Filter::new(&args(|a| a.app = true), &d).unwrap();
        assert!(app.message(&id("FIX.4.4", "D", "A", "B"), &nos));
        // No dictionary: the session-level types are still known.
        let none = d.choose("FIX.9", "0", None, "A", "B");
        assert!(admin.message(&id("FIX.9", "0", "A", "B"), &none));
    }
}

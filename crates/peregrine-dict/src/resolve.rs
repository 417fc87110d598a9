//! Builds the dense validation tables from the parsed model.

use crate::desc::Desc;
use crate::dictionary::{
    Dictionary, Runtime, MAX_COMPONENT_DEPTH, MAX_GROUP_DEPTH, SECTION_HEADER, SECTION_TRAILER,
    STATIC_HEADER_TAGS, STATIC_TRAILER_TAGS,
};
use crate::error::{DictError, ErrorKind};
use crate::model::{GroupDef, Member};
use crate::scope::{
    required_mask, words_for, EnumSet, FieldInfo, FlatMember, HeaderTrailer, Scope, NO_GROUP,
};
use peregrine_codec::tag::MSG_TYPE;

struct Builder<'a> {
    dict: &'a Dictionary,
    file: &'a str,
    scopes: Vec<Scope>,
}

fn placeholder() -> Scope {
    Scope {
        desc: Box::new([]),
        slots: Box::new([]),
        required: Box::new([]),
        delimiter: 0,
        words: 0,
        req_mask: Box::new([]),
        need: 0,
    }
}

impl Builder<'_> {
    fn invalid(&self, line: u32, element: String, kind: ErrorKind) -> DictError {
        DictError::Invalid {
            file: self.file.to_string(),
            line,
            element,
            kind,
        }
    }

    fn flatten(
        &mut self,
        members: &[Member],
        ctx_required: bool,
        depth: usize,
        out: &mut Vec<FlatMember>,
        stack: &mut Vec<usize>,
    ) -> Result<(), DictError> {
        for m in members {
            match m {
                Member::Field(f) => out.push(FlatMember {
                    tag: f.tag,
                    required: ctx_required && f.required,
                    group: NO_GROUP,
                    info: FieldInfo::default(),
                }),
                Member::Component(c) => {
                    if stack.contains(&c.index) {
                        return Err(self.invalid(
                            c.line,
                            format!("<component name=\"{}\">", c.name),
                            ErrorKind::RecursiveComponent(c.name.clone()),
                        ));
                    }
                    if stack.len() >= MAX_COMPONENT_DEPTH {
                        return Err(self.invalid(
                            c.line,
                            format!("<component name=\"{}\">", c.name),
                            ErrorKind::ComponentsTooDeep(stack.len() + 1),
                        ));
                    }
                    stack.push(c.index);
                    let comp = &self.dict.components()[c.index];
                    self.flatten(&comp.members, ctx_required && c.required, depth, out, stack)?;
                    stack.pop();
                }
                Member::Group(g) => {
                    let scope = self.group(g, depth + 1, stack)?;
                    out.push(FlatMember {
                        tag: g.count_tag,
                        required: ctx_required && g.required,
                        group: scope,
                        info: FieldInfo::default(),
                    });
                }
            }
        }
        Ok(())
    }

    fn group(
        &mut self,
        g: &GroupDef,
        depth: usize,
        stack: &mut Vec<usize>,
    ) -> Result<u32, DictError> {
        let element = || format!("<group name=\"{}\">", g.name);
        if depth > MAX_GROUP_DEPTH {
            return Err(self.invalid(g.line, element(), ErrorKind::TooDeep(depth)));
        }
        let mut slots = Vec::new();
        self.flatten(&g.members, true, depth, &mut slots, stack)?;
        let Some(first) = slots.first() else {
            return Err(self.invalid(g.line, element(), ErrorKind::EmptyGroup));
        };
        let delimiter = first.tag;
        Ok(self.push(slots, delimiter))
    }

    fn push(&mut self, slots: Vec<FlatMember>, delimiter: u32) -> u32 {
        let scope = self.make(slots, delimiter);
        self.scopes.push(scope);
        (self.scopes.len() - 1) as u32
    }

    fn make(&self, raw: Vec<FlatMember>, delimiter: u32) -> Scope {
        // Dedupe (first occurrence keeps its position; required flags are OR-ed).
        let mut slots: Vec<FlatMember> = Vec::with_capacity(raw.len());
        let max = raw.iter().map(|s| s.tag).max().unwrap_or(0) as usize;
        let mut desc = vec![Desc::NONE; if raw.is_empty() { 0 } else { max + 1 }];
        for s in raw {
            let known = &mut desc[s.tag as usize];
            if !known.is_member() {
                // The bit alone for now; `Scope::fill_desc` completes the descriptor.
                *known = Desc::bit_only(slots.len());
                slots.push(s);
            } else {
                let existing = &mut slots[known.bit() - 1];
                existing.required |= s.required;
                if existing.group == NO_GROUP {
                    existing.group = s.group;
                }
            }
        }
        let mut required: Vec<u16> = (0..slots.len())
            .filter(|&i| slots[i].required)
            .map(|i| i as u16)
            .collect();
        required.sort_by_key(|&i| slots[i as usize].tag);
        let words = words_for(slots.len()) as u32;
        let req_mask = required_mask(&slots, words as usize);
        let child_need = slots
            .iter()
            .filter(|s| s.group != NO_GROUP)
            .map(|s| self.scopes[s.group as usize].need)
            .max()
            .unwrap_or(0);
        Scope {
            desc: desc.into_boxed_slice(),
            slots: slots.into_boxed_slice(),
            required: required.into_boxed_slice(),
            delimiter,
            words,
            req_mask,
            need: words + child_need,
        }
    }

    fn top(&mut self, members: &[Member]) -> Result<Scope, DictError> {
        let mut slots = Vec::new();
        self.flatten(members, true, 0, &mut slots, &mut Vec::new())?;
        Ok(self.make(slots, 0))
    }
}

/// Fills in the runtime tables of a freshly parsed dictionary.
pub(crate) fn resolve(dict: &mut Dictionary, file: &str) -> Result<(), DictError> {
    let mut b = Builder {
        dict,
        file,
        scopes: vec![placeholder(), placeholder()],
    };
    let header = b.top(dict.header())?;
    b.scopes[0] = header;
    let trailer = b.top(dict.trailer())?;
    b.scopes[1] = trailer;
    let mut message_scopes = Vec::with_capacity(dict.messages().len());
    for m in dict.messages() {
        let s = b.top(&m.members)?;
        b.scopes.push(s);
        message_scopes.push((b.scopes.len() - 1) as u32);
    }
    let mut scopes = b.scopes;

    // Field info and enum sets.
    let fix42 = dict.is_fix_4_2_or_later();
    let dense = dict.dense_fields();
    let mut field_info = vec![
        FieldInfo {
            class: 0,
            multi: false,
            enum_idx: FieldInfo::NO_ENUM
        };
        dense.len()
    ];
    let mut enums = Vec::new();
    for (tag, def) in dense.iter().enumerate() {
        let Some(def) = def else { continue };
        let mut info = FieldInfo {
            class: def.fix_type.format_class(fix42) as u8,
            multi: def.fix_type.is_multiple_value(),
            enum_idx: FieldInfo::NO_ENUM,
        };
        if !def.values.is_empty() && !def.allow_other_values {
            let mut set = EnumSet::default();
            for v in &def.values {
                set.insert(v.value.as_bytes());
            }
            if tag == MSG_TYPE as usize {
                // Custom messages need not repeat their MsgType in field 35's enum list.
                for m in dict.messages() {
                    set.insert(m.msg_type.as_bytes());
                }
            }
            set.set_format(info.class);
            info.enum_idx = enums.len() as u32;
            enums.push(set);
        }
        field_info[tag] = info;
    }

    // Every member slot carries its field's checks, and its descriptor their summary.
    for scope in &mut scopes {
        for slot in scope.slots.iter_mut() {
            if let Some(info) = field_info.get(slot.tag as usize) {
                slot.info = *info;
            }
        }
        scope.fill_desc();
    }

    // Header / trailer classification (static lists plus the dictionary's own, including
    // members of header groups).
    fn collect(scopes: &[Scope], idx: usize, out: &mut Vec<u32>) {
        for s in scopes[idx].slots.iter() {
            out.push(s.tag);
            if s.group != NO_GROUP {
                collect(scopes, s.group as usize, out);
            }
        }
    }
    let mut header_tags: Vec<u32> = STATIC_HEADER_TAGS.to_vec();
    collect(&scopes, 0, &mut header_tags);
    let mut trailer_tags: Vec<u32> = STATIC_TRAILER_TAGS.to_vec();
    collect(&scopes, 1, &mut trailer_tags);
    let max = header_tags
        .iter()
        .chain(trailer_tags.iter())
        .copied()
        .max()
        .unwrap_or(0) as usize;
    let mut section = vec![0u8; max + 1];
    for t in header_tags {
        section[t as usize] = SECTION_HEADER;
    }
    for t in trailer_tags {
        section[t as usize] = SECTION_TRAILER;
    }

    let header_trailer = HeaderTrailer::new(&scopes[0], &scopes[1], &section);
    // Each message's top-level table with this dictionary's own header and trailer.
    let plans = message_scopes
        .iter()
        .map(|&s| header_trailer.plan(&scopes[s as usize]))
        .collect();

    for (i, s) in message_scopes.into_iter().enumerate() {
        dict.set_message_scope(i, s);
    }
    let rt = Runtime::new(
        field_info.into_boxed_slice(),
        enums,
        scopes,
        dict.messages(),
        section.into_boxed_slice(),
        header_trailer,
        plans,
    );
    dict.set_runtime(rt);
    Ok(())
}

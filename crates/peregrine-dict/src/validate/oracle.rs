//! The validator's walk as it was before the descriptor tables (commit 2096d8d), kept as
//! a differential oracle: `tests::same_answers_as_the_reference_walk` checks that the
//! current walk gives the same answer (reason and RefTagID) on many generated messages,
//! valid and broken, under every combination of settings.
//!
//! Test code only (`#[cfg(test)]` in `validate/mod.rs`: never part of the library). It
//! stays inside the crate rather than under `tests/` because it reads the crate-private
//! tables (`Runtime`, `Scope`, `FieldInfo`, the format classes) and the shape cache's
//! hit count; an integration test could only reach them if they were made public.

use crate::dictionary::{
    Dictionary, Runtime, SECTION_BODY, SECTION_HEADER, SECTION_TRAILER, TRAILER_SCOPE,
};
use crate::scope::{is_framing, FieldInfo, Scope, NO_GROUP};
use crate::validate::group::{test_and_set, test_bit};
use crate::validate::{
    SessionRejectReason, ValidationError, ValidationSettings, Validator, USER_DEFINED_TAG_MIN,
};
use crate::MAX_GROUP_DEPTH;

/// The reference validator: the same dictionaries and settings as a `Validator`.
pub(super) struct Reference<'d> {
    pub(super) transport: &'d Dictionary,
    pub(super) app: &'d Dictionary,
    pub(super) settings: ValidationSettings,
}

const PHASE_HEADER: u8 = 0;
const PHASE_TRAILER: u8 = 1;
const PHASE_BODY: u8 = 2;
const PHASE_GROUP: u8 = 3;

#[derive(Clone, Copy)]
struct Ctx<'d> {
    scope: &'d Scope,
    rt: &'d Runtime,
    base: usize,
    words: usize,
    req_seen: usize,
    phase: u8,
}

struct Errors {
    field: Option<(u8, u32, ValidationError)>,
    group_required: Option<ValidationError>,
}

impl Errors {
    #[inline]
    fn field(&mut self, phase: u8, tag: u32, reason: SessionRejectReason) {
        let replace = match self.field {
            None => true,
            Some((p, t, _)) => phase < p || (phase == p && phase != PHASE_GROUP && tag < t),
        };
        if replace {
            self.field = Some((phase, tag, ValidationError::new(reason, Some(tag))));
        }
    }
}

/// Section transitions of the top-level walk, indexed by `state * 3 + section` (sections:
/// body 0, header 1, trailer 2): the next state, with [`OUT_OF_ORDER`] set where the field
/// breaks header-body-trailer order (the state then stays as it was).
const SECTION_STEP: [u8; 9] = [
    // state body: body, header (out of order), trailer
    SECTION_BODY,
    SECTION_BODY | OUT_OF_ORDER,
    SECTION_TRAILER,
    // state header: body, header, trailer
    SECTION_BODY,
    SECTION_HEADER,
    SECTION_TRAILER,
    // state trailer: body (out of order), header (out of order), trailer
    SECTION_TRAILER | OUT_OF_ORDER,
    SECTION_TRAILER | OUT_OF_ORDER,
    SECTION_TRAILER,
];
const OUT_OF_ORDER: u8 = 0x80;

/// The lowest required tag of the scope whose bit is not set (framing fields 8, 9, 35 and
/// 10 are guaranteed by the codec and never reported, even if the caller leaves them out).
fn missing_required(bits: &[u64], ctx: &Ctx<'_>) -> Option<u32> {
    if ctx.words == 0 || ctx.req_seen >= ctx.scope.required.len() {
        return None;
    }
    ctx.scope
        .required
        .iter()
        .map(|&s| s as usize)
        .filter(|&s| !test_bit(bits, ctx.base, s))
        .map(|s| ctx.scope.slots[s].tag)
        .find(|&t| !is_framing(t))
}

impl<'d> Reference<'d> {
    pub(super) fn validate_fields<'a, I>(
        &self,
        msg_type: &[u8],
        fields: I,
    ) -> Result<(), ValidationError>
    where
        I: IntoIterator<Item = (u32, &'a [u8])>,
    {
        let (body_dict, msg_index) = match self.transport.message_index(msg_type) {
            Some(i) => (self.transport, i),
            None => match self.app.message_index(msg_type) {
                Some(i) => (self.app, i),
                None => return self.validator().invalid_msg_type(fields),
            },
        };
        let body = &body_dict.rt.scopes[body_dict.scope_of_message(msg_index) as usize];
        let header = &self.transport.rt.scopes[0];
        let trailer = &self.transport.rt.scopes[TRAILER_SCOPE as usize];
        let need = (header.need + trailer.need + body.need) as usize;
        if need <= 4 {
            self.walk::<4, I>(body_dict, body, fields)
        } else if need <= 8 {
            self.walk::<8, I>(body_dict, body, fields)
        } else if need <= 16 {
            self.walk::<16, I>(body_dict, body, fields)
        } else if need <= 64 {
            self.walk::<64, I>(body_dict, body, fields)
        } else {
            self.walk::<1024, I>(body_dict, body, fields)
        }
    }

    /// The validator over the same dictionaries and settings, for the leaf checks the
    /// two walks share (unknown MsgType, one value's format and enum).
    fn validator(&self) -> Validator<'d> {
        Validator::fixt(self.transport, self.app, self.settings)
    }

    /// Empty value (4), format (6), enum (5): the validator's check.
    fn check_value(
        &self,
        rt: &Runtime,
        info: FieldInfo,
        value: &[u8],
    ) -> Option<SessionRejectReason> {
        self.validator().check_value(rt, info, value)
    }

    /// [`Validator::check_value`] for a tag that is not a member of the scope.
    #[inline]
    fn value_check(&self, ctx: &Ctx<'_>, tag: u32, value: &[u8]) -> Option<SessionRejectReason> {
        let info = ctx
            .rt
            .field_info
            .get(tag as usize)
            .copied()
            .unwrap_or_default();
        self.check_value(ctx.rt, info, value)
    }

    /// Is a tag that is not a member of the scope acceptable? Returns the reason if not.
    #[inline]
    fn non_member(&self, ctx: &Ctx<'_>, tag: u32) -> Option<SessionRejectReason> {
        let defined = ctx
            .rt
            .field_info
            .get(tag as usize)
            .is_some_and(|i| i.class != 0);
        // Header and trailer: any defined field is accepted there (QuickFIX checks only that
        // the tag exists); the body: the tag must belong to the message.
        if defined && ctx.phase != PHASE_BODY {
            return None;
        }
        let fail = if tag < USER_DEFINED_TAG_MIN {
            !self.settings.allow_unknown_msg_fields
        } else {
            self.settings.validate_user_defined_fields
        };
        fail.then_some(if defined {
            SessionRejectReason::TagNotDefinedForThisMessageType
        } else {
            SessionRejectReason::InvalidTagNumber
        })
    }

    fn walk<'a, const W: usize, I>(
        &self,
        body_dict: &'d Dictionary,
        body: &'d Scope,
        fields: I,
    ) -> Result<(), ValidationError>
    where
        I: IntoIterator<Item = (u32, &'a [u8])>,
    {
        let t = &self.transport.rt;
        let mut w = Walk::<W> {
            bits: [0u64; W],
            next_word: 0,
            errs: Errors {
                field: None,
                group_required: None,
            },
        };
        // Indexed by section (SECTION_BODY = 0, SECTION_HEADER = 1, SECTION_TRAILER = 2).
        let header = w.ctx(&t.scopes[0], t, PHASE_HEADER);
        let trailer = w.ctx(&t.scopes[TRAILER_SCOPE as usize], t, PHASE_TRAILER);
        let bodyc = w.ctx(body, &body_dict.rt, PHASE_BODY);
        let mut ctxs = [bodyc, header, trailer];
        let mut state = SECTION_HEADER;
        let check_order = self.settings.validate_fields_out_of_order;
        let mut it = fields.into_iter();
        let mut pending: Option<(u32, &'a [u8])> = None;

        let mut next = it.next();
        // Runs of fields of one section (header, body, trailer) are walked with their
        // context in locals; a field of another section ends the run.
        while let Some((first_tag, first_value)) = next {
            let section = self.transport.section_of(first_tag);
            let step = SECTION_STEP[(state * 3 + section) as usize];
            if step & OUT_OF_ORDER != 0 && check_order {
                return Err(out_of_order(first_tag));
            }
            state = step & !OUT_OF_ORDER;
            let mut ctx = ctxs[section as usize];
            let (mut tag, mut value) = (first_tag, first_value);
            loop {
                match ctx.scope.slot(tag) {
                    Some(slot) => {
                        let s = ctx.scope.slots[slot];
                        if let Some(r) = self.check_value(ctx.rt, s.info, value) {
                            w.errs.field(ctx.phase, tag, r);
                        }
                        if test_and_set(&mut w.bits, ctx.base, slot) {
                            return Err(ValidationError::new(
                                SessionRejectReason::TagAppearsMoreThanOnce,
                                Some(tag),
                            ));
                        }
                        ctx.req_seen += s.required as usize;
                        if s.group != NO_GROUP {
                            let (rt, phase) = (ctx.rt, ctx.phase);
                            pending =
                                self.group(&mut w, &mut it, rt, s.group, tag, value, phase, 1)?;
                        }
                    }
                    None => {
                        if let Some(r) = self.value_check(&ctx, tag, value) {
                            w.errs.field(ctx.phase, tag, r);
                        }
                        if let Some(r) = self.non_member(&ctx, tag) {
                            w.errs.field(ctx.phase, tag, r);
                        }
                    }
                }
                next = match pending.take() {
                    Some(p) => Some(p),
                    None => it.next(),
                };
                match next {
                    Some((t, v)) if self.transport.section_of(t) == section => {
                        (tag, value) = (t, v);
                    }
                    _ => break,
                }
            }
            ctxs[section as usize] = ctx;
        }

        let [bodyc, header, trailer] = &ctxs;
        for ctx in [header, trailer, bodyc] {
            if let Some(m) = missing_required(&w.bits, ctx) {
                return Err(required_missing(m));
            }
        }
        if let Some(e) = w.errs.group_required {
            return Err(e);
        }
        match w.errs.field {
            Some((_, _, e)) => Err(e),
            None => Ok(()),
        }
    }

    /// Walks one repeating group (all its entries) after its count field; returns the first
    /// field that does not belong to it, if any. Recursion depth is bounded by the
    /// dictionary's group nesting (at most [`MAX_GROUP_DEPTH`]).
    #[allow(clippy::too_many_arguments)]
    fn group<'a, const W: usize, I>(
        &self,
        w: &mut Walk<W>,
        it: &mut I,
        rt: &'d Runtime,
        scope_index: u32,
        count_tag: u32,
        count_value: &[u8],
        count_phase: u8,
        depth: usize,
    ) -> Result<Option<(u32, &'a [u8])>, ValidationError>
    where
        I: Iterator<Item = (u32, &'a [u8])>,
    {
        let scope = &rt.scopes[scope_index as usize];
        let saved_next = w.next_word;
        let mut ctx = w.ctx(scope, rt, PHASE_GROUP);
        let declared = parse_count(count_value);
        let mut instances = 0i64;
        let mut last_slot = 0usize;
        let mut pending: Option<(u32, &'a [u8])> = None;
        let ended_by = loop {
            let (tag, value) = match pending.take() {
                Some(p) => p,
                None => match it.next() {
                    Some(p) => p,
                    None => break None,
                },
            };
            let Some(slot) = scope.slot(tag) else {
                break Some((tag, value));
            };
            if tag == scope.delimiter {
                if instances > 0 {
                    if let Some(m) = missing_required(&w.bits, &ctx) {
                        w.errs.group_required.get_or_insert(required_missing(m));
                    }
                }
                instances += 1;
                ctx.req_seen = 0;
                if let Some(words) = w.bits.get_mut(ctx.base..ctx.base + ctx.words) {
                    words.fill(0);
                }
            } else {
                if instances == 0 {
                    return Err(ValidationError::new(
                        SessionRejectReason::RepeatingGroupFieldsOutOfOrder,
                        Some(tag),
                    ));
                }
                if test_and_set(&mut w.bits, ctx.base, slot) {
                    return Err(ValidationError::new(
                        SessionRejectReason::TagAppearsMoreThanOnce,
                        Some(tag),
                    ));
                }
                if self.settings.validate_unordered_group_fields && slot < last_slot {
                    return Err(ValidationError::new(
                        SessionRejectReason::RepeatingGroupFieldsOutOfOrder,
                        Some(tag),
                    ));
                }
            }
            if tag == scope.delimiter {
                test_and_set(&mut w.bits, ctx.base, slot);
            }
            last_slot = slot;
            let s = scope.slots[slot];
            ctx.req_seen += s.required as usize;
            if let Some(r) = self.check_value(rt, s.info, value) {
                w.errs.field(PHASE_GROUP, tag, r);
            }
            if s.group != NO_GROUP && depth < MAX_GROUP_DEPTH {
                pending = self.group(w, it, rt, s.group, tag, value, PHASE_GROUP, depth + 1)?;
            }
        };
        if instances > 0 {
            if let Some(m) = missing_required(&w.bits, &ctx) {
                w.errs.group_required.get_or_insert(required_missing(m));
            }
        }
        if declared >= 0 && declared != instances {
            w.errs.field(
                count_phase,
                count_tag,
                SessionRejectReason::IncorrectNumInGroupCount,
            );
        }
        w.next_word = saved_next;
        Ok(ended_by)
    }
}

/// Per-call scratch: duplicate/required bitsets (bump-allocated per scope) and errors.
struct Walk<const W: usize> {
    bits: [u64; W],
    next_word: usize,
    errs: Errors,
}

impl<const W: usize> Walk<W> {
    /// A context with its own zeroed bitset words (none if the scratch is exhausted: then
    /// its words lie past the scratch, and duplicate and required checks are skipped for
    /// that scope, never a panic).
    #[inline]
    fn ctx<'d>(&mut self, scope: &'d Scope, rt: &'d Runtime, phase: u8) -> Ctx<'d> {
        let words = scope.words as usize;
        let (base, words) = if self.next_word + words <= W {
            self.next_word += words;
            (self.next_word - words, words)
        } else {
            (W, 0)
        };
        Ctx {
            scope,
            rt,
            base,
            words,
            req_seen: 0,
            phase,
        }
    }
}

#[inline]
fn parse_count(v: &[u8]) -> i64 {
    if v.is_empty() || v.len() > 9 || !v.iter().all(u8::is_ascii_digit) {
        return -1;
    }
    v.iter().fold(0i64, |n, &b| n * 10 + (b - b'0') as i64)
}

#[inline]
fn out_of_order(tag: u32) -> ValidationError {
    ValidationError::new(
        SessionRejectReason::TagSpecifiedOutOfRequiredOrder,
        Some(tag),
    )
}

#[inline]
fn required_missing(tag: u32) -> ValidationError {
    ValidationError::new(SessionRejectReason::RequiredTagMissing, Some(tag))
}

#[cfg(test)]
mod tests {
    use super::Reference;
    use crate::{Dictionary, FixType, FlatScope, ValidationSettings, Validator};

    /// xorshift64*: deterministic, no dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.next() % 100 < percent
        }
    }

    fn dict(name: &str) -> Dictionary {
        Dictionary::from_file(format!(
            "{}/dictionaries/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    /// A plausible value for a field (an enum value, or one of the right format), now and
    /// then a wrong one.
    fn value(rng: &mut Rng, d: &Dictionary, tag: u32) -> String {
        value_of(rng, d, tag, false)
    }

    /// A value for `tag`; `clean`: always well-formed (and one enum value).
    fn value_of(rng: &mut Rng, d: &Dictionary, tag: u32, clean: bool) -> String {
        const ODD: [&str; 14] = [
            "",
            "x",
            "-",
            "1.2.3",
            "99",
            "2024",
            "Y",
            "Z",
            "AB",
            "0",
            "-5",
            ".5",
            "20241315-10:30:00",
            "10:61:00",
        ];
        if !clean && rng.chance(4) {
            return ODD[rng.below(ODD.len())].to_string();
        }
        let Some(f) = d.field(tag) else {
            return "v".to_string();
        };
        if !f.values.is_empty() && !rng.chance(5) {
            let mut v = f.values[rng.below(f.values.len())].value.clone();
            if matches!(
                f.fix_type,
                FixType::MultipleValueString
                    | FixType::MultipleCharValue
                    | FixType::MultipleStringValue
            ) && rng.chance(30)
                && !clean
            {
                v = format!("{v} {}", f.values[rng.below(f.values.len())].value);
            }
            return v;
        }
        match f.fix_type {
            FixType::Int
            | FixType::Length
            | FixType::SeqNum
            | FixType::TagNum
            | FixType::DayOfMonth
            | FixType::NumInGroup => ["1", "123", "-7", "0042"][rng.below(4)].to_string(),
            FixType::Float
            | FixType::Qty
            | FixType::Price
            | FixType::PriceOffset
            | FixType::Amt
            | FixType::Percentage => {
                ["1.5", "100", "-0.25", "5.", ".5", "150.50"][rng.below(6)].to_string()
            }
            FixType::Boolean => ["Y", "N"][rng.below(2)].to_string(),
            FixType::Char => "A".to_string(),
            FixType::UtcTimestamp | FixType::Time => [
                "20240115-10:30:00",
                "20240115-10:30:00.123",
                "20240229-23:59:60.123456789",
            ][rng.below(3)]
            .to_string(),
            FixType::UtcTimeOnly => ["10:30:00", "10:30:00.5"][rng.below(2)].to_string(),
            FixType::UtcDateOnly | FixType::UtcDate => "20240115".to_string(),
            _ => "abc".to_string(),
        }
    }

    /// Members of a scope, in order: the required ones and some optional ones, groups with
    /// a few entries.
    fn members(
        rng: &mut Rng,
        d: &Dictionary,
        scope: FlatScope<'_>,
        depth: usize,
        out: &mut Vec<(u32, String)>,
    ) {
        members_of(rng, d, scope, depth, out, false)
    }

    /// `clean`: well-formed values, no repeating groups (what the shape cache keeps).
    fn members_of(
        rng: &mut Rng,
        d: &Dictionary,
        scope: FlatScope<'_>,
        depth: usize,
        out: &mut Vec<(u32, String)>,
        clean: bool,
    ) {
        for tag in scope.tags() {
            if !scope.is_required(tag) && !rng.chance(25) {
                continue;
            }
            if clean {
                if scope.group(tag).is_none() {
                    out.push((tag, value_of(rng, d, tag, true)));
                }
                continue;
            }
            match scope.group(tag) {
                Some(g) if depth < 4 => {
                    let n = rng.below(3);
                    out.push((tag, n.to_string()));
                    for _ in 0..n {
                        members(rng, d, g, depth + 1, out);
                    }
                }
                _ => out.push((tag, value(rng, d, tag))),
            }
        }
    }

    fn mutate(rng: &mut Rng, d: &Dictionary, fields: &mut Vec<(u32, String)>) {
        const TAGS: [u32; 16] = [
            1, 11, 34, 35, 49, 52, 55, 89, 93, 448, 627, 1128, 4999, 5000, 9999, 20000,
        ];
        let n = fields.len();
        match rng.below(9) {
            0 if n > 0 => {
                fields.remove(rng.below(n));
            }
            1 if n > 0 => {
                let f = fields[rng.below(n)].clone();
                fields.insert(rng.below(n + 1), f);
            }
            2 if n > 1 => {
                let i = rng.below(n - 1);
                fields.swap(i, i + 1);
            }
            3 if n > 0 => {
                let f = fields.remove(rng.below(n));
                fields.insert(rng.below(n), f);
            }
            4 => {
                let tag = if rng.chance(50) {
                    TAGS[rng.below(TAGS.len())]
                } else {
                    let all: Vec<u32> = d.fields().map(|f| f.tag).collect();
                    all[rng.below(all.len())]
                };
                let v = value(rng, d, tag);
                fields.insert(rng.below(n + 1), (tag, v));
            }
            5 if n > 0 => fields[rng.below(n)].1.clear(),
            6 if n > 0 => {
                let i = rng.below(n);
                fields[i].1 = ["x", "-1", "1.2.3", "Q", "00", "99999"][rng.below(6)].to_string();
            }
            7 if n > 0 => {
                // A group count off by one (or any count field's value).
                let i = rng.below(n);
                if let Ok(c) = fields[i].1.parse::<i64>() {
                    fields[i].1 = (c + [1, -1][rng.below(2)]).to_string();
                }
            }
            _ => {
                // Move a trailer or header field into the body, or a body field to the end.
                if n > 2 {
                    let f = fields.remove(rng.below(n));
                    fields.push(f);
                }
            }
        }
    }

    fn settings(rng: &mut Rng) -> ValidationSettings {
        ValidationSettings {
            validate_fields_out_of_order: !rng.chance(20),
            validate_fields_have_values: !rng.chance(20),
            validate_user_defined_fields: !rng.chance(20),
            allow_unknown_msg_fields: rng.chance(20),
            validate_unordered_group_fields: !rng.chance(20),
            ..ValidationSettings::default()
        }
    }

    #[test]
    fn same_answers_as_the_reference_walk() {
        let fixt = dict("FIXT11.xml");
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut compared, mut rejected) = (0usize, 0usize);
        let mut shapes = crate::ShapeCache::new();
        let mut broken_values = 0usize;
        for name in [
            "FIX40.xml",
            "FIX41.xml",
            "FIX42.xml",
            "FIX43.xml",
            "FIX44.xml",
            "FIX50.xml",
            "FIX50SP1.xml",
            "FIX50SP2.xml",
        ] {
            let app = dict(name);
            let transport = if name.starts_with("FIX5") {
                &fixt
            } else {
                &app
            };
            let begin = transport.begin_string().to_string();
            let types: Vec<String> = transport
                .messages()
                .iter()
                .chain(app.messages())
                .map(|m| m.msg_type.clone())
                .collect();
            for msg_type in &types {
                let body_dict = if transport.message(msg_type).is_some() {
                    transport
                } else {
                    &app
                };
                for round in 0..24 {
                    let mut fields = vec![
                        (8, begin.clone()),
                        (9, "100".to_string()),
                        (35, msg_type.clone()),
                    ];
                    // Every sixth message well-formed and without groups: the shape cache
                    // keeps such messages.
                    let clean = round % 6 == 0;
                    let mut header = Vec::new();
                    members_of(
                        &mut rng,
                        transport,
                        transport.header_scope(),
                        0,
                        &mut header,
                        clean,
                    );
                    fields.extend(
                        header
                            .into_iter()
                            .filter(|(t, _)| !matches!(t, 8 | 9 | 35 | 10)),
                    );
                    let body_scope = body_dict.message_scope(msg_type).unwrap();
                    members_of(&mut rng, body_dict, body_scope, 0, &mut fields, clean);
                    members_of(
                        &mut rng,
                        transport,
                        transport.trailer_scope(),
                        0,
                        &mut fields,
                        clean,
                    );
                    fields.retain(|(t, _)| *t != 10);
                    fields.push((10, "000".to_string()));
                    if round % 3 != 0 {
                        for _ in 0..1 + rng.below(3) {
                            mutate(&mut rng, body_dict, &mut fields);
                        }
                    }
                    let mt = if rng.chance(3) {
                        "ZZ".to_string()
                    } else {
                        msg_type.clone()
                    };
                    let s = settings(&mut rng);
                    let v = Validator::fixt(transport, &app, s);
                    let r = Reference {
                        transport,
                        app: &app,
                        settings: s,
                    };
                    let list: Vec<(u32, &[u8])> =
                        fields.iter().map(|(t, v)| (*t, v.as_bytes())).collect();
                    let got = v.validate_fields(mt.as_bytes(), list.iter().copied());
                    let want = r.validate_fields(mt.as_bytes(), list.iter().copied());
                    assert_eq!(got, want, "{name} {mt} {s:?}\n{fields:?}");
                    // With the shape cache: twice (the second time, a message that passed is
                    // checked on its shape), then with one value broken in that shape.
                    for _ in 0..2 {
                        let shaped = v.validate_fields_with(
                            mt.as_bytes(),
                            list.iter().copied(),
                            &mut shapes,
                        );
                        assert_eq!(shaped, want, "shapes: {name} {mt} {s:?}\n{fields:?}");
                    }
                    if want.is_ok() && fields.len() > 3 {
                        let mut broken = fields.clone();
                        let i = 3 + rng.below(fields.len() - 3);
                        broken[i].1 = [
                            "",
                            "x",
                            "-1",
                            "1.2.3",
                            "Q",
                            "00",
                            "99999",
                            "20240115-25:00:00",
                        ][rng.below(8)]
                        .to_string();
                        let list: Vec<(u32, &[u8])> =
                            broken.iter().map(|(t, v)| (*t, v.as_bytes())).collect();
                        let want = r.validate_fields(mt.as_bytes(), list.iter().copied());
                        let shaped = v.validate_fields_with(
                            mt.as_bytes(),
                            list.iter().copied(),
                            &mut shapes,
                        );
                        assert_eq!(
                            shaped, want,
                            "shapes, broken value: {name} {mt} {s:?}\n{broken:?}"
                        );
                        broken_values += want.is_err() as usize;
                    }
                    // The single-dictionary validator too, when there is one dictionary.
                    if std::ptr::eq(transport, &app) {
                        let single = Validator::new(&app, s);
                        assert_eq!(
                            single.validate_fields(mt.as_bytes(), list.iter().copied()),
                            want
                        );
                    }
                    compared += 1;
                    rejected += got.is_err() as usize;
                }
            }
        }
        eprintln!(
            "compared {compared}, rejected {rejected}, shape hits {}, broken values in known shapes {broken_values}",
            shapes.hits
        );
        // The shape cache was used, and caught broken values in known shapes.
        assert!(shapes.hits > 1_000, "{} shape hits", shapes.hits);
        assert!(broken_values > 500, "{broken_values} broken values");
        // Both outcomes are well represented.
        assert!(compared > 10_000, "{compared}");
        assert!(
            rejected > compared / 4 && rejected < compared * 9 / 10,
            "{rejected} of {compared}"
        );
    }
}

//! What the admin interface and the console page it serves share: decoding a
//! request's query (kept here so that neither depends on the other for it).

/// Decodes `%XX` escapes (and leaves anything else, `+` included, as it is).
///
/// ```
/// assert_eq!(peregrine_engine::admin::percent_decode("FIX.4.4:ISLD-%3ETW"), "FIX.4.4:ISLD->TW");
/// assert_eq!(peregrine_engine::admin::percent_decode("100%"), "100%");
/// ```
pub fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The form a `SESSION` (or `LIKE`) parameter takes, as a 400 says it.
pub(crate) const SESSION_FORM: &str = "a session id like FIX.4.4:SENDER->TARGET \
     (FIX.4.4:SENDER->TARGET:QUALIFIER with a qualifier), percent-encoded (-> as -%3E)";

/// A 400's text: the parameter, what is wrong with it, the form expected
/// (`SESSION: missing; expected a session id like …`).
pub(crate) fn bad_parameter(name: &str, problem: &str, expected: &str) -> String {
    format!("{name}: {problem}; expected {expected}\n")
}

/// Whether `v` has the form of a session id, `BEGINSTRING:SENDER->TARGET`
/// with an optional `:QUALIFIER` (which session it names is the reactor's to say).
pub(crate) fn is_session_id(v: &str) -> bool {
    let Some((begin, rest)) = v.split_once(':') else {
        return false;
    };
    let Some((sender, target)) = rest.split_once("->") else {
        return false;
    };
    let target = target
        .split_once(':')
        .map_or(target, |(t, q)| if q.is_empty() { "" } else { t });
    !begin.is_empty() && !sender.is_empty() && !target.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_told_from_other_text() {
        for good in ["FIX.4.4:A->B", "FIXT.1.1:A->B:Q"] {
            assert!(is_session_id(good), "{good}");
        }
        for bad in [
            "",
            "FIX.4.4",
            "FIX.4.4:A-B",
            "FIX.4.4:A->",
            ":A->B",
            "FIX.4.4:->B",
            "FIX.4.4:A->B:",
        ] {
            assert!(!is_session_id(bad), "{bad}");
        }
        assert_eq!(
            bad_parameter("SESSION", "missing", SESSION_FORM),
            format!("SESSION: missing; expected {SESSION_FORM}\n")
        );
    }
}

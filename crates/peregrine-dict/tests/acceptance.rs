//! Data-driven check against the QuickFIX acceptance scripts: for every scripted message the
//! acceptor must reject for a dictionary reason, the validator must give the scripted reason
//! and RefTagID; for every scripted message the acceptor must echo (or answer with a
//! BusinessMessageReject), the validator must accept it. Skipped when the scripts are absent.

mod common;

use common::{decoder, script_validator, wire, SCRIPT_VERSIONS};
use peregrine_dict::{Dictionary, SessionRejectReason, ShapeCache};
use std::path::Path;

/// The acceptance scripts' server definitions (see [`common::scripts_dir`]).
fn root() -> String {
    common::scripts_dir().display().to_string()
}

fn field<'a>(msg: &'a str, tag: &str) -> Option<&'a str> {
    msg.split('\x01')
        .find_map(|f| f.strip_prefix(tag).and_then(|v| v.strip_prefix('=')))
}

fn reason_from_text(text: &str) -> Option<(SessionRejectReason, Option<u32>)> {
    let (base, tag) = match text.rsplit_once(" (") {
        Some((b, t)) if t.ends_with(')') && t[..t.len() - 1].parse::<i64>().is_ok() => {
            (b, t[..t.len() - 1].parse::<u32>().ok())
        }
        _ => (text, None),
    };
    (0..=99)
        .filter_map(SessionRejectReason::from_code)
        .find(|r| r.text() == base)
        .map(|r| (r, tag))
}

const DICT_REASONS: [u32; 11] = [0, 1, 2, 4, 5, 6, 11, 13, 14, 15, 16];

#[test]
fn quickfix_acceptance_scripts() {
    let root = root();
    if !Path::new(&root).exists() {
        eprintln!("acceptance scripts not found; skipped");
        return;
    }
    let load = |f: &str| Dictionary::from_file(format!("dictionaries/{f}")).unwrap();
    let fixt = load("FIXT11.xml");
    let mut checked_reject = 0;
    let mut checked_ok = 0;
    let mut failures = Vec::new();
    for (dir, app_file) in SCRIPT_VERSIONS {
        let app = load(app_file);
        let v = script_validator(dir, &fixt, &app);
        let mut shapes = ShapeCache::new();
        let mut files: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for path in files {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            // Session-level rejects that are not the dictionary's business: PossDup without
            // OrigSendingTime (conditionally required), SequenceReset NewSeqNo too low.
            if name.starts_with("2g_") || name.starts_with("11c_") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
            for (i, line) in lines.iter().enumerate() {
                let Some(msg) = line.strip_prefix("I8=") else {
                    continue;
                };
                let msg = format!("8={msg}");
                let Some(next_e) = lines[i + 1..]
                    .iter()
                    .take_while(|l| !l.starts_with('I'))
                    .find(|l| l.starts_with("E8="))
                else {
                    continue;
                };
                let e = &next_e[1..];
                let sent_type = field(&msg, "35").unwrap_or("");
                let expected = match field(e, "35") {
                    Some("3") => {
                        let text = field(e, "58").unwrap_or("");
                        let Some((reason, tag_in_text)) = reason_from_text(text) else {
                            continue;
                        };
                        let code = field(e, "373")
                            .and_then(|c| c.parse().ok())
                            .unwrap_or(reason.code());
                        if !DICT_REASONS.contains(&code)
                            || name.starts_with("2o_")
                            || name.starts_with("2f_")
                        {
                            continue;
                        }
                        let ref_tag = field(e, "371")
                            .and_then(|t| t.parse::<u32>().ok())
                            .or(tag_in_text);
                        Some((reason, ref_tag))
                    }
                    Some("D") | Some("d") | Some("j")
                        if field(e, "35") == Some(sent_type) || field(e, "35") == Some("j") =>
                    {
                        None
                    }
                    _ => continue,
                };
                let substituted = substitute(&msg);
                let bytes = wire(&substituted);
                let mut dec = decoder();
                let Ok(view) = dec.decode(&bytes) else {
                    continue;
                };
                let got = v.validate(&view).map_err(|e| (e.reason, e.ref_tag));
                // The shape cache (kept across all messages of the version) answers the same,
                // the second time too (when a message that passed is checked on its shape).
                for _ in 0..2 {
                    let shaped = v
                        .validate_with(&view, &mut shapes)
                        .map_err(|e| (e.reason, e.ref_tag));
                    if shaped != got {
                        failures.push(format!(
                            "{dir}/{name} with shapes: {}\n   plain {got:?}\n   shapes {shaped:?}",
                            msg.replace('\x01', "|")
                        ));
                    }
                }
                let want = match expected {
                    Some(x) => {
                        checked_reject += 1;
                        Err(x)
                    }
                    None => {
                        checked_ok += 1;
                        Ok(())
                    }
                };
                if got != want {
                    failures.push(format!(
                        "{dir}/{name}: {}\n   want {want:?}\n   got  {got:?}",
                        msg.replace('\x01', "|")
                    ));
                }
            }
        }
    }
    eprintln!("acceptance: {checked_reject} rejects and {checked_ok} accepted messages checked");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked_reject >= 70, "{checked_reject}");
    assert!(checked_ok >= 40, "{checked_ok}");
}

fn substitute(msg: &str) -> String {
    let mut out = String::new();
    let mut rest = msg;
    while let Some(p) = rest.find("<TIME") {
        out.push_str(&rest[..p]);
        let end = rest[p..].find('>').unwrap() + p;
        out.push_str("20240115-10:30:00");
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

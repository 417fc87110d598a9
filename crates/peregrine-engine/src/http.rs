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

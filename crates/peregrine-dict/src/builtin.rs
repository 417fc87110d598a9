//! QuickFIX's dictionaries, built into the library: what `decode` reads with
//! no `--dict`, and what a `.cfg`'s `DataDictionary=FIX44.xml` names when no
//! such file exists (as QuickFIX/J finds `FIX44.xml` in its jar).
//!
//! ```
//! use peregrine_dict::{builtin, Dictionary};
//! let xml = builtin::by_file_name("FIX44.xml").unwrap();
//! let d = Dictionary::from_xml_str("FIX44.xml", xml).unwrap();
//! assert_eq!(d.version(), "FIX.4.4");
//! assert!(builtin::by_file_name("FIX99.xml").is_none());
//! ```

/// The QuickFIX licence the built-in dictionaries come under
/// (`dictionaries/LICENSE.quickfix`), for the programs that print it (`peregrine
/// decode --help`).
///
/// ```
/// assert!(peregrine_dict::builtin::LICENSE.contains("quickfixengine.org"));
/// ```
pub const LICENSE: &str = include_str!("../dictionaries/LICENSE.quickfix");

/// Each built-in dictionary: the version it declares, its file name in
/// QuickFIX's distributions, its XML (the copies in `dictionaries/`, under
/// the QuickFIX licence, whose notice is there).
pub const ALL: [(&str, &str, &str); 9] = [
    (
        "FIX.4.0",
        "FIX40.xml",
        include_str!("../dictionaries/FIX40.xml"),
    ),
    (
        "FIX.4.1",
        "FIX41.xml",
        include_str!("../dictionaries/FIX41.xml"),
    ),
    (
        "FIX.4.2",
        "FIX42.xml",
        include_str!("../dictionaries/FIX42.xml"),
    ),
    (
        "FIX.4.3",
        "FIX43.xml",
        include_str!("../dictionaries/FIX43.xml"),
    ),
    (
        "FIX.4.4",
        "FIX44.xml",
        include_str!("../dictionaries/FIX44.xml"),
    ),
    (
        "FIX.5.0",
        "FIX50.xml",
        include_str!("../dictionaries/FIX50.xml"),
    ),
    (
        "FIX.5.0SP1",
        "FIX50SP1.xml",
        include_str!("../dictionaries/FIX50SP1.xml"),
    ),
    (
        "FIX.5.0SP2",
        "FIX50SP2.xml",
        include_str!("../dictionaries/FIX50SP2.xml"),
    ),
    (
        "FIXT.1.1",
        "FIXT11.xml",
        include_str!("../dictionaries/FIXT11.xml"),
    ),
];

/// The XML of the built-in dictionary with this file name (`FIX44.xml`), if
/// there is one.
pub fn by_file_name(name: &str) -> Option<&'static str> {
    ALL.iter()
        .find(|(_, n, _)| *n == name)
        .map(|(_, _, xml)| *xml)
}

//! Owned dictionaries for a session ([`Dictionaries`]).

use std::sync::Arc;

use super::{ValidationSettings, Validator};
use crate::dictionary::Dictionary;

/// Owned dictionaries for a session: one dictionary (FIX.4.x), or a FIXT transport
/// dictionary plus an application dictionary, and optionally one application
/// dictionary per ApplVerID(1128) (QuickFIX/J's `AppDataDictionary.<version>`; see
/// [`with_version`](Self::with_version)). Share it with `Arc`; take a [`Validator`]
/// (three words, `Copy`) whenever one is needed.
///
/// ```
/// use std::sync::Arc;
/// use peregrine_dict::{Dictionaries, Dictionary, ValidationSettings};
/// let fixt = Dictionaries::fixt(
///     Dictionary::from_file("dictionaries/FIXT11.xml").unwrap(),
///     Dictionary::from_file("dictionaries/FIX50SP2.xml").unwrap(),
/// );
/// let shared = Arc::new(fixt);
/// let v = shared.validator(ValidationSettings::default());
/// assert_eq!(v.transport().begin_string(), "FIXT.1.1");
/// assert_eq!(shared.application().version(), "FIX.5.0SP2");
/// ```
#[derive(Debug)]
pub struct Dictionaries {
    // Shared: sessions that name the same files hold one parsed copy.
    transport: Arc<Dictionary>,
    app: Option<Arc<Dictionary>>,
    /// FIXT: application dictionaries by ApplVerID code (`"6"`, `"9"`), looked up
    /// before `app`. A handful at most: a list beats a map.
    versions: Vec<(Box<str>, Arc<Dictionary>)>,
}

impl Dictionaries {
    /// A single self-contained dictionary (FIX.4.0 – FIX.4.4).
    pub fn single(dict: Dictionary) -> Self {
        Dictionaries::single_shared(Arc::new(dict))
    }
    /// A FIXT transport dictionary and an application dictionary.
    pub fn fixt(transport: Dictionary, app: Dictionary) -> Self {
        Dictionaries::fixt_shared(Arc::new(transport), Arc::new(app))
    }
    /// [`single`](Self::single) over a dictionary other sessions share.
    pub fn single_shared(dict: Arc<Dictionary>) -> Self {
        Dictionaries {
            transport: dict,
            app: None,
            versions: Vec::new(),
        }
    }
    /// [`fixt`](Self::fixt) over dictionaries other sessions share.
    pub fn fixt_shared(transport: Arc<Dictionary>, app: Arc<Dictionary>) -> Self {
        Dictionaries {
            transport,
            app: Some(app),
            versions: Vec::new(),
        }
    }
    /// A FIXT transport dictionary with application dictionaries by ApplVerID only
    /// (add them with [`with_version`](Self::with_version)): a message whose version
    /// has none has no application dictionary ([`application_for`](Self::application_for)
    /// is `None`).
    pub fn fixt_versions_only(transport: Arc<Dictionary>) -> Self {
        Dictionaries {
            transport,
            app: None,
            versions: Vec::new(),
        }
    }
    /// Adds the application dictionary of the messages of one ApplVerID(1128), given
    /// as its code (`"6"` for FIX.4.4, `"9"` for FIX.5.0SP2): QuickFIX/J's
    /// `AppDataDictionary.FIX.4.4`. It replaces an earlier one of the same code.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use peregrine_dict::{Dictionaries, Dictionary};
    /// let load = |f: &str| Arc::new(Dictionary::from_file(format!("dictionaries/{f}.xml")).unwrap());
    /// let d = Dictionaries::fixt_shared(load("FIXT11"), load("FIX50SP2"))
    ///     .with_version("6", load("FIX44"));
    /// assert_eq!(d.application_for(b"6").unwrap().version(), "FIX.4.4");
    /// assert_eq!(d.application_for(b"9").unwrap().version(), "FIX.5.0SP2");
    /// assert_eq!(d.application_for(b"7").unwrap().version(), "FIX.5.0SP2"); // the default
    /// ```
    pub fn with_version(mut self, appl_ver_id: &str, dict: Arc<Dictionary>) -> Self {
        self.versions.retain(|(code, _)| &**code != appl_ver_id);
        self.versions.push((appl_ver_id.into(), dict));
        self
    }
    /// Whether application dictionaries are chosen by ApplVerID (any
    /// [`with_version`](Self::with_version)).
    pub fn has_versions(&self) -> bool {
        !self.versions.is_empty()
    }
    /// The application dictionary of messages of this ApplVerID code: its own
    /// ([`with_version`](Self::with_version)), else the session's one; `None` when
    /// there is neither (a FIXT session with per-version dictionaries only).
    pub fn application_for(&self, appl_ver_id: &[u8]) -> Option<&Dictionary> {
        self.versions
            .iter()
            .find(|(code, _)| code.as_bytes() == appl_ver_id)
            .map(|(_, d)| &**d)
            .or(self.app.as_deref())
            .or_else(|| self.versions.is_empty().then_some(&*self.transport))
    }
    /// A validator for messages of this ApplVerID code (see
    /// [`application_for`](Self::application_for)); `None` when it has no dictionary.
    pub fn validator_for(
        &self,
        appl_ver_id: &[u8],
        settings: ValidationSettings,
    ) -> Option<Validator<'_>> {
        self.application_for(appl_ver_id)
            .map(|app| Validator::fixt(&self.transport, app, settings))
    }
    /// The transport dictionary (the only one for FIX.4.x).
    pub fn transport(&self) -> &Dictionary {
        &self.transport
    }
    /// The application dictionary (the same as the transport one for FIX.4.x); with
    /// per-version dictionaries only, the first of them.
    pub fn application(&self) -> &Dictionary {
        self.app
            .as_deref()
            .or(self.versions.first().map(|(_, d)| &**d))
            .unwrap_or(&self.transport)
    }
    /// A validator over these dictionaries.
    pub fn validator(&self, settings: ValidationSettings) -> Validator<'_> {
        Validator::fixt(&self.transport, self.application(), settings)
    }
}

//! Owned dictionaries for a session ([`Dictionaries`]).

use std::sync::Arc;

use super::{ValidationSettings, Validator};
use crate::dictionary::Dictionary;

/// Owned dictionaries for a session: one dictionary (FIX.4.x), or a FIXT transport
/// dictionary plus an application dictionary. Share it with `Arc`; take a [`Validator`]
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
        }
    }
    /// [`fixt`](Self::fixt) over dictionaries other sessions share.
    pub fn fixt_shared(transport: Arc<Dictionary>, app: Arc<Dictionary>) -> Self {
        Dictionaries {
            transport,
            app: Some(app),
        }
    }
    /// The transport dictionary (the only one for FIX.4.x).
    pub fn transport(&self) -> &Dictionary {
        &self.transport
    }
    /// The application dictionary (the same as the transport one for FIX.4.x).
    pub fn application(&self) -> &Dictionary {
        self.app.as_deref().unwrap_or(&self.transport)
    }
    /// A validator over these dictionaries.
    pub fn validator(&self, settings: ValidationSettings) -> Validator<'_> {
        Validator::fixt(&self.transport, self.application(), settings)
    }
}

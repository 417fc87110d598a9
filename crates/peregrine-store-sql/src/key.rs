//! Which row is a session's: QuickFIX/J's eight key columns, and the table
//! names, checked as SQL identifiers.

use std::fmt;

/// A session's identity as QuickFIX/J keys its rows: the columns
/// `beginstring`, `sendercompid`, `sendersubid`, `senderlocid`,
/// `targetcompid`, `targetsubid`, `targetlocid` and `session_qualifier`.
/// An empty field is written as [`SqlStoreConfig::default_value`] (QuickFIX/J's
/// `JdbcSessionIdDefaultPropertyValue`, empty unless set), as QuickFIX/J does.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SessionKey {
    /// `BeginString` (8).
    pub begin_string: String,
    /// `SenderCompID` (49).
    pub sender_comp_id: String,
    /// `SenderSubID` (50).
    pub sender_sub_id: String,
    /// `SenderLocationID` (142).
    pub sender_location_id: String,
    /// `TargetCompID` (56).
    pub target_comp_id: String,
    /// `TargetSubID` (57).
    pub target_sub_id: String,
    /// `TargetLocationID` (143).
    pub target_location_id: String,
    /// The `SessionQualifier` setting.
    pub session_qualifier: String,
}

impl SessionKey {
    /// A session of `begin_string` from `sender` to `target`, the other
    /// fields empty.
    ///
    /// ```
    /// use peregrine_store_sql::SessionKey;
    /// let key = SessionKey::new("FIX.4.4", "BANK", "VENUE").with_qualifier("east");
    /// assert_eq!(key.to_string(), "FIX.4.4:BANK->VENUE:east");
    /// ```
    pub fn new(begin_string: &str, sender: &str, target: &str) -> Self {
        SessionKey {
            begin_string: begin_string.to_owned(),
            sender_comp_id: sender.to_owned(),
            target_comp_id: target.to_owned(),
            ..SessionKey::default()
        }
    }

    /// The same key with `SessionQualifier` set.
    #[must_use]
    pub fn with_qualifier(mut self, qualifier: &str) -> Self {
        self.session_qualifier = qualifier.to_owned();
        self
    }

    /// The eight key columns' values in QuickFIX/J's order, an empty field
    /// replaced by `default`.
    pub(crate) fn columns<'a>(&'a self, default: &'a str) -> [&'a str; 8] {
        let or = |v: &'a String| if v.is_empty() { default } else { v.as_str() };
        [
            or(&self.begin_string),
            or(&self.sender_comp_id),
            or(&self.sender_sub_id),
            or(&self.sender_location_id),
            or(&self.target_comp_id),
            or(&self.target_sub_id),
            or(&self.target_location_id),
            or(&self.session_qualifier),
        ]
    }
}

impl fmt::Display for SessionKey {
    /// QuickFIX/J's `SessionID` text: `FIX.4.4:SENDER->TARGET[:QUALIFIER]`
    /// (sub and location IDs left out).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}->{}",
            self.begin_string, self.sender_comp_id, self.target_comp_id
        )?;
        if !self.session_qualifier.is_empty() {
            write!(f, ":{}", self.session_qualifier)?;
        }
        Ok(())
    }
}

/// A table name that is safe to put in a statement: an SQL identifier
/// (`[A-Za-z_][A-Za-z0-9_]*`, at most 63 bytes, PostgreSQL's limit),
/// optionally qualified by a schema the same way (`trading.sessions`).
/// Written unquoted, as QuickFIX/J writes it, so PostgreSQL folds it to
/// lower case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableName(String);

/// A table name that is not a plain SQL identifier (see [`TableName`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidTableName {
    /// The name given.
    pub name: String,
}

impl fmt::Display for InvalidTableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a table name: letters, digits and '_' (not first a digit), at most 63, optionally schema.table",
            self.name
        )
    }
}

impl std::error::Error for InvalidTableName {}

impl TableName {
    /// Checks `name`.
    ///
    /// # Errors
    ///
    /// [`InvalidTableName`] when it is not an identifier or
    /// `schema.identifier`.
    ///
    /// ```
    /// use peregrine_store_sql::TableName;
    /// assert!(TableName::new("fix_sessions").is_ok());
    /// assert!(TableName::new("trading.messages").is_ok());
    /// assert!(TableName::new("messages; DROP TABLE sessions").is_err());
    /// assert!(TableName::new("").is_err());
    /// ```
    pub fn new(name: &str) -> Result<Self, InvalidTableName> {
        let mut parts = name.split('.');
        let ok = parts.clone().count() <= 2 && parts.all(is_identifier);
        if ok {
            Ok(TableName(name.to_owned()))
        } else {
            Err(InvalidTableName {
                name: name.to_owned(),
            })
        }
    }

    /// The name as written in statements.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// What a database store needs besides the session and the database: the
/// tables and the value of unused key columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlStoreConfig {
    /// `JdbcStoreSessionsTableName` (default `sessions`).
    pub sessions_table: TableName,
    /// `JdbcStoreMessagesTableName` (default `messages`).
    pub messages_table: TableName,
    /// `JdbcSessionIdDefaultPropertyValue`: what an empty key field is
    /// written as (default empty, QuickFIX/J's `SessionID.NOT_SET`).
    pub default_value: String,
}

impl Default for SqlStoreConfig {
    fn default() -> Self {
        SqlStoreConfig {
            sessions_table: TableName("sessions".to_owned()),
            messages_table: TableName("messages".to_owned()),
            default_value: String::new(),
        }
    }
}

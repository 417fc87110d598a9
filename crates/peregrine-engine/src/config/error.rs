//! What is wrong in settings, and where: [`ConfigError`], [`ConfigWarning`], [`Origin`].

use std::fmt;
use std::path::{Path, PathBuf};

/// Where settings come from, which decides how an error or a warning says
/// where the problem is.
///
/// ```
/// use peregrine_engine::config::{Origin, Settings};
/// let e = Settings::builder()
///     .session("FIX.4.4", "VENUE", "CLIENT", |s| s.set("SocketAcceptPort", "x"))
///     .build()
///     .unwrap_err();
/// assert_eq!(e.origin, Origin::Code);
/// assert_eq!(e.to_string(), r#"set in code: SocketAcceptPort: "x" is not a number"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Origin {
    /// A `.cfg` file (or text parsed as one): messages name its file and line.
    #[default]
    File,
    /// Built in code ([`Settings::builder`](super::Settings::builder)): there
    /// is no file or line, and messages say `set in code` instead.
    Code,
}

/// An error in settings (a file's, or made in code): where, which key, what is
/// wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The settings file.
    pub file: PathBuf,
    /// 1-based line number (0 when the problem is not on one line).
    pub line: usize,
    /// The key concerned, if any.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
    /// A file (`file` and `line` say where) or code (they are empty and 0).
    pub origin: Origin,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.origin == Origin::Code {
            return match &self.key {
                Some(k) => write!(f, "set in code: {k}: {}", self.message),
                None => write!(f, "set in code: {}", self.message),
            };
        }
        let name = display_name(&self.file);
        match (self.line, &self.key) {
            (0, Some(k)) => write!(f, "{name}: {k}: {}", self.message),
            (0, None) => write!(f, "{name}: {}", self.message),
            (l, Some(k)) => write!(f, "{name}:{l}: {k}: {}", self.message),
            (l, None) => write!(f, "{name}:{l}: {}", self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// A problem that does not stop the settings from being used: an unknown
/// key, or a QuickFIX key Peregrine does not implement whose absence changes
/// only logs or performance
/// ([`Effect::CosmeticOrPerformance`](super::Effect::CosmeticOrPerformance)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// The settings file.
    pub file: PathBuf,
    /// 1-based line number.
    pub line: usize,
    /// The key concerned.
    pub key: String,
    /// What is odd.
    pub message: String,
    /// A file (`file` and `line` say where) or code (they are empty and 0).
    pub origin: Origin,
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.origin == Origin::Code {
            return write!(f, "set in code: {}: {}", self.key, self.message);
        }
        write!(
            f,
            "{}:{}: {}: {}",
            display_name(&self.file),
            self.line,
            self.key,
            self.message
        )
    }
}

fn display_name(p: &Path) -> String {
    p.display().to_string()
}

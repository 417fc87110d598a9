//! The check every key goes through (the keys Peregrine knows are [`CATALOG`](super::CATALOG)'s).

use std::path::Path;

use super::catalog::is_known;
use super::{unsupported, ConfigError, ConfigWarning, Effect, Origin, SettingLine};

/// What every key goes through, from a file or from code: a QuickFIX key
/// Peregrine does not implement is an error or a warning by its
/// [`Effect`] (unless its value says what Peregrine does anyway), and an
/// unknown key is a warning.
pub(super) fn check_key(
    origin: Origin,
    file: &Path,
    e: &SettingLine,
    warnings: &mut Vec<ConfigWarning>,
) -> Result<(), ConfigError> {
    if is_known(&e.key) {
        return Ok(());
    }
    let message = match unsupported(&e.key) {
        None => "unknown key, ignored".to_string(),
        Some(k) if k.is_same_as_peregrine(&e.value) => return Ok(()),
        Some(k) if k.effect == Effect::SecurityOrDelivery => {
            return Err(ConfigError {
                file: file.to_path_buf(),
                line: e.line,
                key: Some(e.key.clone()),
                message: k.message(&e.value),
                origin,
            })
        }
        Some(k) => k.message(&e.value),
    };
    warnings.push(ConfigWarning {
        file: file.to_path_buf(),
        line: e.line,
        key: e.key.clone(),
        message,
        origin,
    });
    Ok(())
}

//! `[console]`: whether `/console` is served (DESIGN §18). On by default on a loopback listener;
//! elsewhere only when enabled, and then only with credentials to ask for.

use serde::Deserialize;

use super::{ConfigError, Refuse};

/// The keys of `[console]`, for [`super::keys`].
pub(super) const KEYS: &[&str] = &["enabled"];

/// `[console]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsoleConfig {
    /// Serve `/console` (default: on when listening on a loopback address).
    pub enabled: Option<bool>,
}

/// `[console]`: on a non-loopback listener the console needs tokens or OAuth to ask callers
/// for, since it never serves anonymous callers there.
pub(super) fn resolve(
    c: ConsoleConfig,
    loopback: bool,
    credentials: bool,
    error: Refuse,
) -> Result<bool, ConfigError> {
    let enabled = c.enabled.unwrap_or(loopback);
    if enabled && !loopback && !credentials {
        return Err(error(
            "console.enabled",
            "the console off a loopback address needs credentials to ask for: configure [[auth.tokens]] or [auth.oauth]".into(),
        ));
    }
    Ok(enabled)
}

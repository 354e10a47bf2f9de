//! `[tasks]`: how long long-running calls are kept as tasks and how often clients are asked to
//! poll them (DESIGN §17).

use std::time::Duration;

use serde::Deserialize;
use toolwire_mcp::{TaskSettings, TaskSupport};

use super::{ConfigError, Refuse};

/// The keys of `[tasks]`, for [`super::keys`].
pub(super) const KEYS: &[&str] = &["ttl_ms", "max_ttl_ms", "poll_interval_ms"];

/// `[tasks]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TasksConfig {
    /// How long a task is kept from its creation when the client asks for no TTL (default one
    /// hour).
    pub ttl_ms: Option<u64>,
    /// The longest TTL a client may ask for (default one day).
    pub max_ttl_ms: Option<u64>,
    /// The poll interval suggested to clients (default 500).
    pub poll_interval_ms: Option<u64>,
}

/// `[tasks]` over the defaults: every duration at least 1 ms, the TTL within the maximum.
pub(super) fn resolve(t: TasksConfig, error: Refuse) -> Result<TaskSettings, ConfigError> {
    let defaults = TaskSettings::default();
    let millis = |key: &str, value: Option<u64>, default: Duration| match value {
        None => Ok(default),
        Some(0) => Err(error(&format!("tasks.{key}"), "must be at least 1".into())),
        Some(ms) => Ok(Duration::from_millis(ms)),
    };
    let mut settings = defaults;
    settings.ttl = millis("ttl_ms", t.ttl_ms, defaults.ttl)?;
    settings.max_ttl = millis("max_ttl_ms", t.max_ttl_ms, defaults.max_ttl)?;
    settings.poll_interval =
        millis("poll_interval_ms", t.poll_interval_ms, defaults.poll_interval)?;
    if settings.ttl > settings.max_ttl {
        return Err(error(
            "tasks.ttl_ms",
            format!(
                "{} is above tasks.max_ttl_ms ({})",
                settings.ttl.as_millis(),
                settings.max_ttl.as_millis()
            ),
        ));
    }
    Ok(settings)
}

/// A tool's `task` key (`forbidden`, `optional` or `required`) at `key`.
pub(super) fn support(
    key: &str,
    value: Option<&str>,
    error: Refuse,
) -> Result<TaskSupport, ConfigError> {
    match value {
        None => Ok(TaskSupport::Forbidden),
        Some(name) => TaskSupport::parse(name)
            .ok_or_else(|| error(key, format!("`{name}` is not forbidden, optional or required"))),
    }
}

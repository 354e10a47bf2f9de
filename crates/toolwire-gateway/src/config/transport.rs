//! `[transport]`: the HTTP transport's timeouts and caps, which the listener and the sessions
//! enforce (DESIGN §12).

use std::time::Duration;

use serde::Deserialize;

use super::{ConfigError, Refuse};

/// The keys of `[transport]`, for [`super::keys`].
pub(super) const KEYS: &[&str] = &[
    "header_read_timeout_ms",
    "max_connections",
    "max_sessions",
    "session_idle_ms",
    "shutdown_grace_ms",
];

/// `[transport]`: what keeps slow or many clients from taking the server down (DESIGN §12).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportConfig {
    /// Milliseconds a client has to send a request's headers.
    pub header_read_timeout_ms: Option<u64>,
    /// Open connections at most; more are closed at once.
    pub max_connections: Option<usize>,
    /// Sessions at most; more `initialize` requests are refused.
    pub max_sessions: Option<usize>,
    /// Milliseconds after which an idle session ends.
    pub session_idle_ms: Option<u64>,
    /// Milliseconds calls in flight get to finish after SIGTERM.
    pub shutdown_grace_ms: Option<u64>,
}

/// The transport's limits, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transport {
    /// Time to send a request's headers.
    pub header_read_timeout: Duration,
    /// Open connections at most.
    pub max_connections: usize,
    /// Sessions at most.
    pub max_sessions: usize,
    /// Idle time after which a session ends.
    pub session_idle: Duration,
    /// Time calls in flight get to finish on shutdown.
    pub shutdown_grace: Duration,
}

impl Default for Transport {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            max_connections: 1024,
            max_sessions: 10_000,
            session_idle: Duration::from_secs(300),
            shutdown_grace: Duration::from_secs(30),
        }
    }
}

/// `[transport]` over the defaults; zero is refused where it would stop all serving.
pub(super) fn resolve(given: TransportConfig, error: Refuse) -> Result<Transport, ConfigError> {
    let defaults = Transport::default();
    let positive = |key: &str, value: Option<u64>, default: Duration| match value {
        Some(0) => Err(error(key, "must be at least 1 millisecond".into())),
        Some(ms) => Ok(Duration::from_millis(ms)),
        None => Ok(default),
    };
    let count = |key: &str, value: Option<usize>, default: usize| match value {
        Some(0) => Err(error(key, "must be at least 1".into())),
        Some(n) => Ok(n),
        None => Ok(default),
    };
    Ok(Transport {
        header_read_timeout: positive(
            "transport.header_read_timeout_ms",
            given.header_read_timeout_ms,
            defaults.header_read_timeout,
        )?,
        max_connections: count(
            "transport.max_connections",
            given.max_connections,
            defaults.max_connections,
        )?,
        max_sessions: count("transport.max_sessions", given.max_sessions, defaults.max_sessions)?,
        session_idle: positive(
            "transport.session_idle_ms",
            given.session_idle_ms,
            defaults.session_idle,
        )?,
        // Zero grace is allowed: stop at once.
        shutdown_grace: given
            .shutdown_grace_ms
            .map_or(defaults.shutdown_grace, Duration::from_millis),
    })
}

//! `[ops]`: where `/healthz`, `/readyz` and the metrics are served, and whether they need
//! credentials.

use std::net::SocketAddr;

use serde::Deserialize;

use super::{ConfigError, Refuse};

/// The keys of `[ops]`, for [`super::keys`].
pub(super) const KEYS: &[&str] = &["metrics_path", "listen", "require_auth"];

/// `[ops]`: `/healthz`, `/readyz` and `/metrics`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpsConfig {
    /// The metrics path (default `/metrics`).
    pub metrics_path: Option<String>,
    /// A separate `host:port` for the three endpoints (default: the MCP listener).
    pub listen: Option<String>,
    /// Whether the three endpoints need the same credentials as MCP (default false).
    pub require_auth: Option<bool>,
}

/// The resolved `[ops]`.
#[derive(Debug, Clone)]
pub struct OpsSettings {
    /// The metrics path.
    pub metrics_path: String,
    /// A separate listen address.
    pub listen: Option<SocketAddr>,
    /// Whether the endpoints need MCP credentials.
    pub require_auth: bool,
}

/// `[ops]`.
pub(super) fn resolve(o: OpsConfig, error: Refuse) -> Result<OpsSettings, ConfigError> {
    let metrics_path = o.metrics_path.unwrap_or_else(|| "/metrics".into());
    let reserved = ["/mcp", "/healthz", "/readyz", "/.well-known", "/console"];
    if !metrics_path.starts_with('/')
        || metrics_path.len() < 2
        || reserved.iter().any(|r| metrics_path.starts_with(r))
    {
        return Err(error(
            "ops.metrics_path",
            format!("`{metrics_path}` must be a path like /metrics, apart from toolwire's own"),
        ));
    }
    let listen = match o.listen {
        None => None,
        Some(text) => Some(text.parse::<SocketAddr>().map_err(|_| {
            error("ops.listen", format!("`{text}` is not an address like 127.0.0.1:9090"))
        })?),
    };
    Ok(OpsSettings { metrics_path, listen, require_auth: o.require_auth.unwrap_or(false) })
}

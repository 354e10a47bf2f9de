//! `listen`, `allowed_hosts` and `allowed_origins`: where the HTTP transport listens, and which
//! `Host` and `Origin` values it answers.

use std::net::SocketAddr;

use super::{ConfigError, Refuse};

/// The top-level keys this module reads, for [`super::keys`].
pub(super) const KEYS: &[&str] = &["listen", "allowed_hosts", "allowed_origins"];

/// The default listen address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

/// `--listen`, else `listen`, else the default address.
pub(super) fn resolve_listen(
    flag: Option<&str>,
    from_file: Option<String>,
    error: Refuse,
) -> Result<SocketAddr, ConfigError> {
    let bad = |text: &str| format!("`{text}` is not an address like 127.0.0.1:8080");
    match (flag, from_file) {
        (Some(text), _) => text.parse().map_err(|_| ConfigError {
            file: None,
            key: "--listen".into(),
            message: bad(text),
        }),
        (None, Some(text)) => text.parse().map_err(|_| error("listen", bad(&text))),
        (None, None) => DEFAULT_LISTEN.parse().map_err(|_| error("listen", bad(DEFAULT_LISTEN))),
    }
}

/// `allowed_hosts`: the loopback names and the listen host always, then the file's entries.
pub(super) fn resolve_allowed_hosts(
    listen: SocketAddr,
    given: Option<Vec<String>>,
    error: Refuse,
) -> Result<Vec<String>, ConfigError> {
    let mut allowed: Vec<String> =
        ["localhost", "127.0.0.1", "::1"].into_iter().map(str::to_owned).collect();
    let listen_host = listen.ip().to_string();
    if !listen.ip().is_unspecified() && !allowed.contains(&listen_host) {
        allowed.push(listen_host);
    }
    for host in given.unwrap_or_default() {
        if host.trim().is_empty() {
            return Err(error("allowed_hosts", "an entry is empty".into()));
        }
        if !allowed.contains(&host) {
            allowed.push(host);
        }
    }
    Ok(allowed)
}

/// `allowed_origins`: each with a scheme (or `null`).
pub(super) fn resolve_allowed_origins(
    given: Option<Vec<String>>,
    error: Refuse,
) -> Result<Vec<String>, ConfigError> {
    let origins = given.unwrap_or_default();
    if let Some(origin) = origins.iter().find(|o| *o != "null" && !o.contains("://")) {
        return Err(error(
            "allowed_origins",
            format!("`{origin}` needs a scheme, like http://localhost:3000"),
        ));
    }
    Ok(origins)
}

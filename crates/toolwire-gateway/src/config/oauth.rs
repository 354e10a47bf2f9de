//! `[auth.oauth]`: the authorization server whose access tokens [`crate::oauth`] accepts, and how
//! their scopes map to privileges.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;

use super::{ConfigError, Refuse, is_http_url};
use crate::oauth::Algorithm;

/// The keys of `[auth.oauth]`, for [`super::keys`].
pub(super) const KEYS: &[&str] = &[
    "issuer",
    "audience",
    "jwks_url",
    "algorithms",
    "leeway_secs",
    "principal_claim",
    "privileges_claim",
    "scopes",
    "jwks_refresh_secs",
];

/// `[auth.oauth]`: toolwire as an OAuth 2.1 resource server (the MCP authorization spec).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthConfig {
    /// The authorization server's issuer identifier (the `iss` of its tokens).
    pub issuer: String,
    /// This server's canonical URL (RFC 8707), e.g. `https://tools.example.com/mcp`.
    pub audience: String,
    /// Where the signing keys are; default: the `jwks_uri` of the issuer's metadata.
    pub jwks_url: Option<String>,
    /// Accepted algorithms (default RS256, ES256, EdDSA).
    pub algorithms: Option<Vec<String>>,
    /// Seconds of clock skew allowed on `exp` and `nbf` (default 60).
    pub leeway_secs: Option<u64>,
    /// The claim naming the principal (default `sub`).
    pub principal_claim: Option<String>,
    /// A claim listing privileges directly (array or space-separated string).
    pub privileges_claim: Option<String>,
    /// Scope → the privileges it grants.
    #[serde(default)]
    pub scopes: BTreeMap<String, Vec<String>>,
    /// Fewest seconds between two key refreshes caused by an unknown `kid` (default 30).
    pub jwks_refresh_secs: Option<u64>,
}

/// The resolved `[auth.oauth]`.
#[derive(Debug, Clone)]
pub struct OAuthSettings {
    /// The issuer.
    pub issuer: String,
    /// This server's canonical URL.
    pub audience: String,
    /// An explicit JWKS URL.
    pub jwks_url: Option<String>,
    /// Accepted algorithms.
    pub algorithms: Vec<Algorithm>,
    /// Clock skew allowed.
    pub leeway: Duration,
    /// The principal claim.
    pub principal_claim: String,
    /// The privileges claim.
    pub privileges_claim: Option<String>,
    /// Scope → privileges.
    pub scopes: BTreeMap<String, Vec<String>>,
    /// Fewest time between refreshes on an unknown `kid`.
    pub refresh_interval: Duration,
}

/// `[auth.oauth]`.
pub(super) fn resolve(o: OAuthConfig, error: Refuse) -> Result<OAuthSettings, ConfigError> {
    for (key, url) in [("auth.oauth.issuer", &o.issuer), ("auth.oauth.audience", &o.audience)] {
        if !is_http_url(url) {
            return Err(error(key, format!("`{url}` is not an http:// or https:// URL")));
        }
    }
    if o.audience.contains(['?', '#']) {
        return Err(error(
            "auth.oauth.audience",
            format!("`{}` must be a canonical URL, without query or fragment", o.audience),
        ));
    }
    if let Some(url) = o.jwks_url.as_ref().filter(|u| !is_http_url(u)) {
        return Err(error(
            "auth.oauth.jwks_url",
            format!("`{url}` is not an http:// or https:// URL"),
        ));
    }
    let algorithms = match o.algorithms {
        None => Algorithm::ALL.to_vec(),
        Some(names) if names.is_empty() => {
            return Err(error("auth.oauth.algorithms", "name at least one algorithm".into()));
        }
        Some(names) => names
            .iter()
            .map(|name| {
                Algorithm::parse(name).ok_or_else(|| {
                    error(
                        "auth.oauth.algorithms",
                        format!("`{name}` is not accepted; expected RS256, ES256 or EdDSA"),
                    )
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let principal_claim = o.principal_claim.unwrap_or_else(|| "sub".into());
    if principal_claim.is_empty() {
        return Err(error("auth.oauth.principal_claim", "must not be empty".into()));
    }
    for (scope, privileges) in &o.scopes {
        if scope.is_empty() || scope.contains(' ') || privileges.is_empty() {
            return Err(error(
                &format!("auth.oauth.scopes.{scope}"),
                "a scope is one word and grants at least one privilege".into(),
            ));
        }
    }
    Ok(OAuthSettings {
        issuer: o.issuer,
        audience: o.audience,
        jwks_url: o.jwks_url,
        algorithms,
        leeway: Duration::from_secs(o.leeway_secs.unwrap_or(60)),
        principal_claim,
        privileges_claim: o.privileges_claim.filter(|c| !c.is_empty()),
        scopes: o.scopes,
        refresh_interval: Duration::from_secs(o.jwks_refresh_secs.unwrap_or(30)),
    })
}

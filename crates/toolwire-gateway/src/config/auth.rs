//! `[auth]` and `[[auth.tokens]]`: anonymous access and the static bearer tokens that
//! [`crate::auth`] maps to principals.

use serde::Deserialize;

use super::{ConfigError, OAuthConfig, Refuse};

/// The keys of `[auth]` (beside its tables `[[auth.tokens]]` and `[auth.oauth]`), for
/// [`super::keys`].
pub(super) const KEYS: &[&str] = &["anonymous"];

/// The keys of `[[auth.tokens]]`, for [`super::keys`].
pub(super) const TOKEN_KEYS: &[&str] = &["token_env", "token", "principal", "privileges"];

/// `[auth]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// Whether requests without a token are served as `anonymous` (default false).
    #[serde(default)]
    pub anonymous: bool,
    /// Bearer tokens.
    #[serde(default)]
    pub tokens: Vec<TokenConfig>,
    /// Access tokens from an OAuth 2.1 authorization server.
    pub oauth: Option<OAuthConfig>,
}

/// `[[auth.tokens]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenConfig {
    /// The environment variable holding the token.
    pub token_env: Option<String>,
    /// The token itself (for local testing; prefer `token_env`).
    pub token: Option<String>,
    /// The principal the token stands for.
    pub principal: String,
    /// Its privileges.
    #[serde(default)]
    pub privileges: Vec<String>,
}

/// A resolved bearer token.
#[derive(Debug, Clone)]
pub struct Token {
    /// The secret.
    pub secret: String,
    /// The principal.
    pub principal: String,
    /// Its privileges.
    pub privileges: Vec<String>,
}

/// Principals no configured token may claim: they name callers without credentials.
pub const RESERVED_PRINCIPALS: [&str; 2] = ["anonymous", "local"];

/// `[[auth.tokens]]`: secrets read, principals checked, every token distinct.
pub(super) fn resolve_tokens(
    given: Vec<TokenConfig>,
    env: &dyn Fn(&str) -> Option<String>,
    error: Refuse,
) -> Result<Vec<Token>, ConfigError> {
    let mut tokens = Vec::new();
    for (i, t) in given.into_iter().enumerate() {
        let key = format!("auth.tokens[{i}]");
        let secret = match (&t.token_env, &t.token) {
            (Some(var), None) => env(var).filter(|s| !s.is_empty()).ok_or_else(|| {
                error(&format!("{key}.token_env"), format!("the variable {var} is not set"))
            })?,
            (None, Some(token)) if !token.is_empty() => token.clone(),
            _ => {
                return Err(error(&key, "give exactly one of token_env or token".into()));
            }
        };
        if t.principal.trim().is_empty() {
            return Err(error(&format!("{key}.principal"), "must not be empty".into()));
        }
        if RESERVED_PRINCIPALS.contains(&t.principal.as_str()) {
            return Err(error(
                &format!("{key}.principal"),
                format!("`{}` is reserved for callers without a token", t.principal),
            ));
        }
        if let Some(first) = tokens.iter().position(|known: &Token| known.secret == secret) {
            let field = if t.token_env.is_some() { "token_env" } else { "token" };
            return Err(error(
                &format!("{key}.{field}"),
                format!("the same token as auth.tokens[{first}]; every token must be distinct"),
            ));
        }
        tokens.push(Token { secret, principal: t.principal, privileges: t.privileges });
    }
    Ok(tokens)
}

//! Principals over HTTP: static bearer tokens and OAuth access tokens map to principals and
//! privileges; without a config every request is `anonymous` (stdio: `local`), with one anonymous
//! access only when enabled. A presented credential that does not check out is a 401, never
//! anonymous access; a token lacking a scope an app tool needs is a 403 `insufficient_scope`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use toolwire_mcp::Principal;

use super::config::Settings;
use super::oauth::{OAuth, TokenError, split_url};

/// The largest `tools/call` body read for the scope check; larger calls go on to the gateway,
/// which still refuses a missing privilege itself (`missing_privilege`).
const SCOPE_CHECK_LIMIT: u64 = 1024 * 1024;

/// A static token, kept as its SHA-256 digest so every comparison is of equal length.
#[derive(Debug, Clone)]
struct StaticToken {
    digest: Vec<u8>,
    principal: Principal,
}

/// Who may call over HTTP.
#[derive(Debug)]
pub(crate) struct Auth {
    tokens: Vec<StaticToken>,
    anonymous: Option<Principal>,
    oauth: Option<OAuth>,
    /// App tool → the privileges it needs (for the 403 on a missing scope).
    tool_privileges: HashMap<String, Vec<String>>,
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No credentials and anonymous access is off.
    Missing,
    /// The `Authorization` header is not UTF-8 text, or not `Bearer <token>`.
    Unreadable,
    /// A static token nobody configured (and no OAuth to try).
    Unknown,
    /// An OAuth access token that did not check out.
    Token(TokenError),
}

/// A principal and, for OAuth tokens, the scopes that came with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caller {
    /// The principal.
    pub principal: Principal,
    /// True when the principal came from an OAuth access token.
    pub oauth: bool,
}

impl Auth {
    /// From the settings: no config file → everyone is `anonymous`.
    pub(crate) fn from_settings(settings: &Settings) -> Self {
        let tokens = settings
            .tokens
            .iter()
            .map(|t| StaticToken {
                digest: Sha256::digest(t.secret.as_bytes()).to_vec(),
                principal: Principal::new(&t.principal, t.privileges.iter().cloned()),
            })
            .collect();
        let anonymous =
            (!settings.auth_configured || settings.anonymous).then(Principal::anonymous);
        let tool_privileges = settings
            .tools
            .iter()
            .filter(|t| !t.privileges.is_empty())
            .map(|t| (t.name.clone(), t.privileges.clone()))
            .collect();
        let oauth = settings.oauth.clone().map(OAuth::new);
        Self { tokens, anonymous, oauth, tool_privileges }
    }

    /// The OAuth resource server, when configured.
    pub(crate) fn oauth(&self) -> Option<&OAuth> {
        self.oauth.as_ref()
    }

    /// The static token's principal, compared in constant time over every configured token.
    fn static_token(&self, token: &str) -> Option<Principal> {
        let digest = Sha256::digest(token.as_bytes());
        let mut found = None;
        for known in &self.tokens {
            let diff =
                known.digest.iter().zip(digest.iter()).fold(0u8, |acc, (a, b)| acc | (a ^ b));
            if std::hint::black_box(diff) == 0 && found.is_none() {
                found = Some(known.principal.clone());
            }
        }
        found
    }

    /// The caller for an `Authorization` header's bytes (or their absence), at `now` (Unix
    /// seconds).
    pub(crate) async fn caller(
        &self,
        authorization: Option<&[u8]>,
        now: i64,
    ) -> Result<Caller, Refusal> {
        let Some(bytes) = authorization else {
            let principal = self.anonymous.clone().ok_or(Refusal::Missing)?;
            return Ok(Caller { principal, oauth: false });
        };
        let value = std::str::from_utf8(bytes).map_err(|_| Refusal::Unreadable)?.trim();
        let (scheme, token) = value.split_once(' ').ok_or(Refusal::Unreadable)?;
        let token = token.trim();
        if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
            return Err(Refusal::Unreadable);
        }
        if let Some(principal) = self.static_token(token) {
            return Ok(Caller { principal, oauth: false });
        }
        match &self.oauth {
            Some(oauth) => match oauth.verify(token, now).await {
                Ok(principal) => Ok(Caller { principal, oauth: true }),
                Err(error) => Err(Refusal::Token(error)),
            },
            None => Err(Refusal::Unknown),
        }
    }

    /// The URL of this server's Protected Resource Metadata (RFC 9728), from the audience.
    pub(crate) fn resource_metadata_url(&self) -> Option<String> {
        let audience = &self.oauth.as_ref()?.settings().audience;
        let (origin, path) = split_url(audience);
        Some(format!("{origin}/.well-known/oauth-protected-resource{path}"))
    }

    /// The scopes a `tools/call` body needs beyond what `principal` holds, when a scope would
    /// grant them.
    fn missing_scopes(&self, principal: &Principal, body: &[u8]) -> Option<(String, Vec<String>)> {
        let oauth = self.oauth.as_ref()?;
        let parsed: Value = serde_json::from_slice(body).ok()?;
        let messages = match parsed {
            Value::Array(items) => items,
            one => vec![one],
        };
        messages.iter().find_map(|message| {
            if message.get("method").and_then(Value::as_str) != Some("tools/call") {
                return None;
            }
            let tool = message.pointer("/params/name").and_then(Value::as_str)?;
            let required = self.tool_privileges.get(tool)?;
            let missing = principal.missing(required.iter().map(String::as_str));
            if missing.is_empty() {
                return None;
            }
            let scopes = oauth.scopes_for(&missing)?;
            Some((tool.to_owned(), scopes))
        })
    }

    /// The 401 for a refusal: `WWW-Authenticate` names the metadata when OAuth is configured.
    fn unauthorized(&self, refusal: &Refusal) -> Response {
        let (error, message) = match refusal {
            Refusal::Missing => (
                None,
                "this server needs a bearer token (Authorization: Bearer <token>)".to_owned(),
            ),
            Refusal::Unreadable => (
                Some("invalid_request"),
                "the Authorization header is not readable as `Bearer <token>`".to_owned(),
            ),
            Refusal::Unknown => {
                (Some("invalid_token"), "the bearer token is not known to this server".to_owned())
            }
            Refusal::Token(e) => (Some("invalid_token"), e.to_string()),
        };
        let mut params = Vec::new();
        if let Some(url) = self.resource_metadata_url() {
            params.push(format!("resource_metadata=\"{url}\""));
        }
        if let Some(error) = error {
            params.push(format!("error=\"{error}\""));
            params.push(format!("error_description=\"{}\"", quotable(&message)));
        }
        let body = json!({"error": error.unwrap_or("unauthorized"), "message": message});
        challenge(StatusCode::UNAUTHORIZED, &params, &body)
    }

    fn insufficient_scope(&self, tool: &str, scopes: &[String]) -> Response {
        let scope = scopes.join(" ");
        let message = format!("tool {tool} needs the scope {scope}");
        let mut params = vec![
            "error=\"insufficient_scope\"".to_owned(),
            format!("scope=\"{}\"", quotable(&scope)),
        ];
        if let Some(url) = self.resource_metadata_url() {
            params.push(format!("resource_metadata=\"{url}\""));
        }
        params.push(format!("error_description=\"{}\"", quotable(&message)));
        let body = json!({"error": "insufficient_scope", "scope": scope, "message": message});
        challenge(StatusCode::FORBIDDEN, &params, &body)
    }
}

/// Text safe inside a quoted header parameter: printable ASCII without `"` and `\`.
fn quotable(text: &str) -> String {
    text.chars().filter(|c| c.is_ascii_graphic() && *c != '"' && *c != '\\' || *c == ' ').collect()
}

fn challenge(status: StatusCode, params: &[String], body: &Value) -> Response {
    let mut value = "Bearer".to_owned();
    if !params.is_empty() {
        value.push(' ');
        value.push_str(&params.join(", "));
    }
    let mut response =
        (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response();
    let header_value =
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"));
    response.headers_mut().insert(header::WWW_AUTHENTICATE, header_value);
    response
}

fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The axum middleware: puts the caller's [`Principal`] into the request, or answers 401/403.
pub(crate) async fn middleware(
    State(auth): State<Arc<Auth>>,
    request: Request,
    next: Next,
) -> Response {
    match admit(&auth, request).await {
        Ok(request) => next.run(request).await,
        Err(refused) => refused,
    }
}

/// The request with the caller's [`Principal`] in it, or the 400/401/403 answer that refuses it.
pub(crate) async fn admit(auth: &Auth, mut request: Request) -> Result<Request, Response> {
    let authorization = request.headers().get(header::AUTHORIZATION).map(|v| v.as_bytes().to_vec());
    let caller = match auth.caller(authorization.as_deref(), unix_now()).await {
        Ok(caller) => caller,
        Err(refusal) => {
            if let Refusal::Token(error) = &refusal {
                tracing::info!(%error, "refused an access token");
            }
            return Err(auth.unauthorized(&refusal));
        }
    };
    if caller.oauth && request.method() == Method::POST && !auth.tool_privileges.is_empty() {
        let length = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if length.is_some_and(|n| n <= SCOPE_CHECK_LIMIT) {
            let (parts, body) = request.into_parts();
            let Ok(bytes) = axum::body::to_bytes(body, SCOPE_CHECK_LIMIT as usize).await else {
                return Err(
                    (StatusCode::BAD_REQUEST, "the request body could not be read").into_response()
                );
            };
            if let Some((tool, scopes)) = auth.missing_scopes(&caller.principal, &bytes) {
                return Err(auth.insufficient_scope(&tool, &scopes));
            }
            request = Request::from_parts(parts, Body::from(bytes));
        }
    }
    request.extensions_mut().insert(caller.principal);
    Ok(request)
}

/// The Protected Resource Metadata routes (RFC 9728): the root form, the form suffixed with
/// the MCP path, and the form suffixed with the audience's path when that differs (an audience
/// `https://host/team-a/mcp` behind a path-routing proxy is asked at
/// `/.well-known/oauth-protected-resource/team-a/mcp`); never behind authentication (clients
/// read them to learn where to get a token).
pub(crate) fn discovery(auth: Arc<Auth>) -> axum::Router {
    const PRM: &str = "/.well-known/oauth-protected-resource";
    let mut router = axum::Router::new()
        .route(PRM, axum::routing::get(protected_resource))
        .route(&format!("{PRM}/mcp"), axum::routing::get(protected_resource));
    if let Some(path) = auth.oauth().and_then(|oauth| audience_route(&oauth.settings().audience)) {
        router = router.route(&format!("{PRM}{path}"), axum::routing::get(protected_resource));
    }
    router.with_state(auth)
}

/// The audience's path when it needs a route of its own: not empty, not `/mcp` (served
/// already), and only unreserved characters in non-empty segments, which a route takes
/// literally (a `{` or `*` would make it a pattern).
fn audience_route(audience: &str) -> Option<&str> {
    let (_, path) = split_url(audience);
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let literal = path.split('/').skip(1).all(|segment| {
        !segment.is_empty()
            && segment.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~%".contains(&b))
    });
    (path.starts_with('/') && path != "/mcp" && literal).then_some(path)
}

/// `GET /.well-known/oauth-protected-resource[/mcp]`: RFC 9728 metadata.
async fn protected_resource(State(auth): State<Arc<Auth>>) -> Response {
    let Some(oauth) = auth.oauth() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let s = oauth.settings();
    let scopes: Vec<&String> = s.scopes.keys().collect();
    let doc = json!({
        "resource": s.audience,
        "authorization_servers": [s.issuer],
        "scopes_supported": scopes,
        "bearer_methods_supported": ["header"],
    });
    ([(header::CONTENT_TYPE, "application/json")], doc.to_string()).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Overrides, Token};

    fn settings(auth_configured: bool, anonymous: bool) -> Settings {
        let mut s = match Settings::load(&Overrides::default(), &|_| None) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        s.auth_configured = auth_configured;
        s.anonymous = anonymous;
        s.tokens = vec![
            Token {
                secret: "t1".into(),
                principal: "ann".into(),
                privileges: vec!["catalog:write".into()],
            },
            Token { secret: "t2".into(), principal: "bob".into(), privileges: vec![] },
        ];
        s
    }

    async fn name(auth: &Auth, header: &[u8]) -> Result<String, Refusal> {
        auth.caller(Some(header), 0).await.map(|c| c.principal.name().to_owned())
    }

    #[test]
    fn audience_paths_get_their_own_metadata_route() {
        assert_eq!(audience_route("https://host/team-a/mcp"), Some("/team-a/mcp"));
        assert_eq!(audience_route("https://host/team-a/mcp/"), Some("/team-a/mcp"));
        assert_eq!(audience_route("https://host/mcp"), None);
        assert_eq!(audience_route("https://host"), None);
        assert_eq!(audience_route("https://host/"), None);
        assert_eq!(audience_route("https://host/{id}/mcp"), None);
        assert_eq!(audience_route("https://host/a//mcp"), None);
        assert_eq!(audience_route("https://host/a/mcp?x=1"), Some("/a/mcp"));
    }

    #[tokio::test]
    async fn without_a_config_everyone_is_anonymous() {
        let auth = Auth::from_settings(&settings(false, false));
        let caller = auth.caller(None, 0).await;
        assert_eq!(caller.map(|c| c.principal), Ok(Principal::anonymous()));
    }

    #[tokio::test]
    async fn with_a_config_tokens_decide() {
        let auth = Auth::from_settings(&settings(true, false));
        assert_eq!(auth.caller(None, 0).await, Err(Refusal::Missing));
        assert_eq!(name(&auth, b"Bearer nope").await, Err(Refusal::Unknown));
        assert_eq!(name(&auth, b"Basic t1").await, Err(Refusal::Unreadable));
        let Ok(ann) = auth.caller(Some(b"Bearer t1"), 0).await else { panic!("refused") };
        assert_eq!(ann.principal.name(), "ann");
        assert!(ann.principal.has("catalog:write") && !ann.oauth);
        assert_eq!(name(&auth, b"Bearer t2").await, Ok("bob".into()));
        let open = Auth::from_settings(&settings(true, true));
        assert_eq!(open.caller(None, 0).await.map(|c| c.principal), Ok(Principal::anonymous()));
    }

    #[tokio::test]
    async fn the_scheme_is_case_insensitive() {
        let auth = Auth::from_settings(&settings(true, false));
        for header in [&b"Bearer t1"[..], b"bearer t1", b"BEARER t1", b"BeArEr   t1 "] {
            assert_eq!(name(&auth, header).await, Ok("ann".into()), "{header:?}");
        }
    }

    #[tokio::test]
    async fn an_undecodable_header_is_refused_even_with_anonymous_access() {
        let open = Auth::from_settings(&settings(true, true));
        for header in [&b"Bearer t1\xff"[..], b"\xc3\x28", b"Bearer", b"Bearer ", b"t1"] {
            assert_eq!(name(&open, header).await, Err(Refusal::Unreadable), "{header:?}");
        }
    }
}

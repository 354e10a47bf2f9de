//! Principals over HTTP: bearer tokens map to principals and privileges; without a config every
//! request is `anonymous` (stdio: `local`), with one anonymous access only when enabled.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use toolwire_mcp::Principal;

use super::config::Settings;

/// Who may call over HTTP.
#[derive(Debug, Clone)]
pub struct Auth {
    tokens: HashMap<String, Principal>,
    anonymous: Option<Principal>,
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No token and anonymous access is off.
    Missing,
    /// A token nobody configured.
    Unknown,
}

impl Auth {
    /// From the settings: no config file → everyone is `anonymous`.
    pub fn from_settings(settings: &Settings) -> Self {
        let tokens = settings
            .tokens
            .iter()
            .map(|t| (t.secret.clone(), Principal::new(&t.principal, t.privileges.iter().cloned())))
            .collect();
        let anonymous =
            (!settings.auth_configured || settings.anonymous).then(Principal::anonymous);
        Self { tokens, anonymous }
    }

    /// The principal for an `Authorization` header value (or its absence).
    pub fn principal(&self, authorization: Option<&str>) -> Result<Principal, Refusal> {
        match authorization {
            None => self.anonymous.clone().ok_or(Refusal::Missing),
            Some(value) => {
                let token = value
                    .strip_prefix("Bearer ")
                    .or_else(|| value.strip_prefix("bearer "))
                    .map(str::trim)
                    .ok_or(Refusal::Unknown)?;
                self.tokens.get(token).cloned().ok_or(Refusal::Unknown)
            }
        }
    }
}

/// The axum middleware: puts the caller's [`Principal`] into the request, or answers 401.
pub async fn middleware(
    State(auth): State<Arc<Auth>>,
    mut request: Request,
    next: Next,
) -> Response {
    let authorization = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    match auth.principal(authorization.as_deref()) {
        Ok(principal) => {
            request.extensions_mut().insert(principal);
            next.run(request).await
        }
        Err(refusal) => {
            let message = match refusal {
                Refusal::Missing => {
                    "this server needs a bearer token (Authorization: Bearer <token>)"
                }
                Refusal::Unknown => "the bearer token is not known to this server",
            };
            let mut response = (
                StatusCode::UNAUTHORIZED,
                [(header::CONTENT_TYPE, "application/json")],
                serde_json::json!({"error": message}).to_string(),
            )
                .into_response();
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            response
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::config::{Overrides, Token};

    fn settings(auth_configured: bool, anonymous: bool) -> Settings {
        let mut s = match Settings::load(&Overrides::default(), &|_| None) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        s.auth_configured = auth_configured;
        s.anonymous = anonymous;
        s.tokens = vec![Token {
            secret: "t1".into(),
            principal: "ann".into(),
            privileges: vec!["catalog:write".into()],
        }];
        s
    }

    #[test]
    fn without_a_config_everyone_is_anonymous() {
        let auth = Auth::from_settings(&settings(false, false));
        assert_eq!(auth.principal(None), Ok(Principal::anonymous()));
    }

    #[test]
    fn with_a_config_tokens_decide() {
        let auth = Auth::from_settings(&settings(true, false));
        assert_eq!(auth.principal(None), Err(Refusal::Missing));
        assert_eq!(auth.principal(Some("Bearer nope")), Err(Refusal::Unknown));
        assert_eq!(auth.principal(Some("Basic t1")), Err(Refusal::Unknown));
        let Ok(ann) = auth.principal(Some("Bearer t1")) else { panic!("refused") };
        assert_eq!(ann.name(), "ann");
        assert!(ann.has("catalog:write"));
        let open = Auth::from_settings(&settings(true, true));
        assert_eq!(open.principal(None), Ok(Principal::anonymous()));
    }
}

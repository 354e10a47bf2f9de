//! `/console` (DESIGN §18): a page that shows every tool of every source, calls one through the
//! call path, and shows the result as each target receives it and, side by side, what each
//! host profile's model reads of it. The page is static HTML, CSS and JavaScript embedded in
//! the binary; its data comes from a small JSON API beside it:
//!
//! - `GET /console/api/tools`: the server, the caller, the revisions, the host profiles and
//!   every tool ([`toolwire_mcp::ToolListing`]);
//! - `POST /console/api/call` `{"tool", "arguments", "revision"}`: a
//!   [`toolwire_core::preview::Preview`] of one call made as the caller;
//! - `POST /console/api/read` `{"uri"}`: a stored result the caller may read.
//!
//! Who may use it: the API takes the same credentials as `/mcp`; off a loopback listener it
//! never serves an anonymous caller. Every response refuses framing and carries a CSP that
//! allows nothing but this origin's own script and style (no inline script). The `Host` must be
//! one the gateway serves (a rebound DNS name reaching a loopback listener is refused), and a
//! `POST` must be JSON (a cross-origin page cannot send that without a preflight that is never
//! granted) from no origin or this one.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use toolwire_core::McpRevision;
use toolwire_core::json_kind::kind_of;
use toolwire_mcp::{McpServer, PreviewCallError, Principal};

use crate::auth::{self, Auth};
use crate::config::Settings;

const INDEX: &str = include_str!("assets/index.html");
const SCRIPT: &str = include_str!("assets/console.js");
const STYLE: &str = include_str!("assets/console.css");

/// The tags of `index.html` that load the script and the style (replaced by their text in the
/// offline file).
const SCRIPT_TAG: &str = r#"<script src="/console/assets/console.js" defer></script>"#;
const STYLE_TAG: &str = r#"<link rel="stylesheet" href="/console/assets/console.css">"#;

/// The page's CSP: this origin's script, style and fetches, images inline as `data:` (a
/// result's images), nothing else, and no framing.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The largest request body the API reads (arguments of one call).
const MAX_BODY: usize = 4 * 1024 * 1024;

/// What the console's handlers share.
pub(crate) struct Console {
    pub(crate) server: McpServer,
    pub(crate) auth: Arc<Auth>,
    pub(crate) loopback: bool,
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) server_name: String,
}

impl Console {
    pub(crate) fn new(server: McpServer, auth: Arc<Auth>, settings: &Settings) -> Self {
        Self {
            server,
            auth,
            loopback: settings.listen.ip().is_loopback(),
            allowed_hosts: settings.allowed_hosts.clone(),
            allowed_origins: settings.allowed_origins.clone(),
            server_name: settings.server_name.clone(),
        }
    }
}

/// The routes of `/console` and its API.
pub(crate) fn router(console: Console) -> axum::Router {
    use axum::routing::{get, post};
    let console = Arc::new(console);
    let api = axum::Router::new()
        .route("/console/api/tools", get(tools))
        .route("/console/api/call", post(call))
        .route("/console/api/read", post(read))
        .route_layer(axum::middleware::from_fn_with_state(Arc::clone(&console), admit));
    axum::Router::new()
        .route("/console", get(|| async { asset(INDEX, "text/html; charset=utf-8") }))
        .route("/console/", get(|| async { asset(INDEX, "text/html; charset=utf-8") }))
        .route(
            "/console/assets/console.js",
            get(|| async { asset(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/console/assets/console.css",
            get(|| async { asset(STYLE, "text/css; charset=utf-8") }),
        )
        .merge(api)
        // Route layers only: the router is merged into the gateway's, and a plain layer would
        // also wrap the fallback every other unknown path answers from.
        .route_layer(axum::middleware::from_fn_with_state(Arc::clone(&console), guard))
        .with_state(console)
}

/// The page as one self-contained HTML file showing `data` (`{"title", "previews": […]}`): the
/// style and script inline, the data in a JSON script element the page reads instead of the
/// API. For `toolwire render --html` and `toolwire check --format html`.
pub fn offline_html(data: &Value) -> String {
    // No `<` at all in the JSON (it is only ever inside strings, where `\u003c` reads the same):
    // `</script` would end the element early, and `<!--` followed by `<script` would make the
    // parser take the rest of the file as script text.
    let json = data.to_string().replace('<', "\\u003c");
    INDEX.replace(STYLE_TAG, &format!("<style>\n{STYLE}\n</style>")).replace(
        SCRIPT_TAG,
        &format!(
            "<script type=\"application/json\" id=\"toolwire-data\">{json}</script>\n<script>\n{SCRIPT}\n</script>"
        ),
    )
}

fn asset(body: &'static str, content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "no-cache")], body)
        .into_response()
}

fn refuse(status: StatusCode, error: &str, message: impl Into<String>) -> Response {
    (status, Json(json!({"error": error, "message": message.into()}))).into_response()
}

/// Every console response: the `Host` checked, framing refused, the CSP set.
async fn guard(State(console): State<Arc<Console>>, request: Request, next: Next) -> Response {
    let mut response = if host_allowed(request.headers(), &console.allowed_hosts) {
        next.run(request).await
    } else {
        refuse(StatusCode::FORBIDDEN, "forbidden_host", "this Host is not served here")
    };
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

/// Whether the request's `Host` names a host the gateway serves (the port, when the allowed
/// entry gives one, must match).
fn host_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let Ok(authority) = host.parse::<http::uri::Authority>() else { return false };
    let name = authority.host().trim_matches(['[', ']']).to_ascii_lowercase();
    allowed.iter().any(|entry| {
        let (entry_host, entry_port) = match entry.parse::<http::uri::Authority>() {
            Ok(parsed) => (parsed.host().to_owned(), parsed.port_u16()),
            Err(_) => (entry.clone(), None),
        };
        entry_host.trim_matches(['[', ']']).eq_ignore_ascii_case(&name)
            && entry_port.is_none_or(|port| authority.port_u16() == Some(port))
    })
}

/// The API's door: a `POST` must be JSON from this origin (or none); the caller is admitted as
/// on `/mcp`, and off loopback never anonymously.
async fn admit(State(console): State<Arc<Console>>, request: Request, next: Next) -> Response {
    if request.method() == axum::http::Method::POST {
        let json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "the console API takes Content-Type: application/json",
            );
        }
        if let Some(origin) = request.headers().get(header::ORIGIN)
            && !same_origin(request.headers(), origin, &console.allowed_origins)
        {
            return refuse(
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                "the console API answers only pages of its own origin",
            );
        }
    }
    let anonymous = !request.headers().contains_key(header::AUTHORIZATION);
    if anonymous && !console.loopback {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "the console off a loopback address needs a bearer token (Authorization: Bearer <token>)",
        );
    }
    match auth::admit(&console.auth, request).await {
        Ok(request) => next.run(request).await,
        Err(refused) => refused,
    }
}

/// Whether `origin` is the request's own (`http://` + its `Host`) or a configured one.
fn same_origin(headers: &HeaderMap, origin: &HeaderValue, allowed: &[String]) -> bool {
    let Ok(origin) = origin.to_str() else { return false };
    let own = headers.get(header::HOST).and_then(|v| v.to_str().ok()).is_some_and(|host| {
        origin.eq_ignore_ascii_case(&format!("http://{host}"))
            || origin.eq_ignore_ascii_case(&format!("https://{host}"))
    });
    own || allowed.iter().any(|a| a == origin)
}

/// The caller [`admit`] put in the request.
fn caller(request: &Request) -> Principal {
    request.extensions().get::<Principal>().cloned().unwrap_or_else(Principal::anonymous)
}

/// `GET /console/api/tools`.
async fn tools(State(console): State<Arc<Console>>, request: Request) -> Response {
    let config = console.server.gateway().config();
    let hosts: Vec<Value> = config
        .hosts
        .iter()
        .map(|h| {
            json!({
                "name": h.name,
                "reads": h.reads,
                "maxResultBytes": h.max_result_bytes,
                "readsLinks": h.reads_links,
                "strictStructured": h.strict_structured,
            })
        })
        .collect();
    let revisions: Vec<&str> = McpRevision::ALL.iter().map(|r| r.as_str()).collect();
    Json(json!({
        "server": {"name": console.server_name, "version": env!("CARGO_PKG_VERSION")},
        "principal": caller(&request).name(),
        "revisions": revisions,
        "hosts": hosts,
        "tools": console.server.tool_listing(),
    }))
    .into_response()
}

/// The body of `POST /console/api/call`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallBody {
    tool: String,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    revision: Option<String>,
}

/// The body of `POST /console/api/read`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadBody {
    uri: String,
}

/// The JSON body of `request`, or the 400 that says what is wrong with it.
async fn body<T: serde::de::DeserializeOwned>(request: Request) -> Result<T, Response> {
    let bytes = axum::body::to_bytes(request.into_body(), MAX_BODY).await.map_err(|_| {
        refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!("the request body is over {MAX_BODY} bytes"),
        )
    })?;
    serde_json::from_slice(&bytes).map_err(|error| {
        refuse(StatusCode::BAD_REQUEST, "bad_request", format!("the request body: {error}"))
    })
}

/// `POST /console/api/call`.
async fn call(State(console): State<Arc<Console>>, request: Request) -> Response {
    let caller = caller(&request);
    let call: CallBody = match body(request).await {
        Ok(call) => call,
        Err(refused) => return refused,
    };
    let revision = match call.revision.as_deref() {
        None => McpRevision::NEWEST,
        Some(name) => match McpRevision::exact(name) {
            Some(revision) => revision,
            None => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    "bad_request",
                    format!("unknown revision `{name}`"),
                );
            }
        },
    };
    let arguments = match call.arguments {
        None => json!({}),
        Some(object @ Value::Object(_)) => object,
        Some(other) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "bad_request",
                format!("arguments must be a JSON object, not {}", kind_of(&other)),
            );
        }
    };
    let started = std::time::Instant::now();
    match console.server.preview_call(&call.tool, arguments, caller.clone(), revision).await {
        Ok(preview) => {
            let mut answer = match serde_json::to_value(&preview) {
                Ok(answer) => answer,
                Err(error) => {
                    return refuse(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "internal",
                        error.to_string(),
                    );
                }
            };
            if let Value::Object(fields) = &mut answer {
                fields.insert("principal".into(), caller.name().into());
                fields.insert("durationMs".into(), (started.elapsed().as_millis() as u64).into());
            }
            Json(answer).into_response()
        }
        Err(error @ PreviewCallError::UnknownTool(_)) => {
            refuse(StatusCode::NOT_FOUND, "unknown_tool", error.to_string())
        }
        Err(error) => refuse(StatusCode::BAD_GATEWAY, "call_failed", error.to_string()),
    }
}

/// `POST /console/api/read`: the stored result, as `resources/read` gives it on the newest
/// revision, for the caller alone.
async fn read(State(console): State<Arc<Console>>, request: Request) -> Response {
    let caller = caller(&request);
    let ReadBody { uri } = match body(request).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let stored = &console.server.gateway().config().stored;
    let now = chrono::Utc::now();
    match stored.read(&uri, caller.name(), McpRevision::NEWEST, now).await {
        Ok(result) => {
            let value = serde_json::to_value(&result).unwrap_or(Value::Null);
            match value.pointer("/contents/0") {
                Some(content) => Json(content.clone()).into_response(),
                None => refuse(StatusCode::NOT_FOUND, "not_found", format!("{uri} has no content")),
            }
        }
        Err(toolwire_store::ReadError::NotFound { .. }) => refuse(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no stored result {uri} for {}", caller.name()),
        ),
        Err(error) => {
            refuse(StatusCode::SERVICE_UNAVAILABLE, "store_unavailable", error.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_offline_page_inlines_everything_and_no_text_can_end_its_script() {
        let hostile = "<!--<script>alert(1)</script></style>";
        let page = offline_html(&json!({"title": hostile, "previews": [{"label": hostile}]}));
        assert!(!page.contains(STYLE_TAG) && !page.contains(SCRIPT_TAG), "inlined");
        assert!(!page.contains("<script src=") && !page.contains("<link rel=\"stylesheet\""));
        assert!(!page.contains("<!--") && !page.contains("alert(1)</script>"), "{page}");
        assert_eq!(page.matches("</script>").count(), 2, "the data's element and the script's");
        let start = page.find("id=\"toolwire-data\">").map_or(0, |at| at + 19);
        let end = start + page[start..].find("</script>").unwrap_or(0);
        let data: Value = serde_json::from_str(&page[start..end]).unwrap_or(Value::Null);
        assert_eq!(data["previews"][0]["label"], hostile, "the JSON reads back unchanged");
    }

    #[test]
    fn the_inlined_files_cannot_end_their_own_elements() {
        for text in [SCRIPT, STYLE] {
            assert!(!text.contains("</") && !text.contains("<!--"));
        }
        assert!(
            INDEX.contains(STYLE_TAG) && INDEX.contains(SCRIPT_TAG),
            "the tags offline_html replaces"
        );
    }
}

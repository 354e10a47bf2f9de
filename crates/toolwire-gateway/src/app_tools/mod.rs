//! App tools: tools that already exist as HTTP endpoints, bridged from `toolwire.toml`.
//!
//! toolwire POSTs `{"tool", "arguments", "context": {"principal", "privileges",
//! "protocolVersion", "requestId"}}` (plus `"input": {"responses", "state"}` on the retry of an
//! app that asked for input) and reads the answer: a 2xx JSON answer must parse (v1 or v2
//! document, legacy envelope, or other JSON passed through); every misbehaviour becomes an
//! `upstream_unavailable` failure whose message says what to check, and the gateway keeps
//! serving. Redirects are never followed, a proxy is used only when configured, and `https://`
//! checks the app's certificate against the system roots or the tool's `ca_file`. What callers
//! (and so models) read names the tool, the kind of failure and what to do, never the endpoint:
//! the endpoint goes to the log, its password hidden.

use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, LOCATION};
use serde_json::Value;
use toolwire_core::{ErrorCode, ToolError, ToolResult};
use toolwire_mcp::work::Work;
use toolwire_mcp::{
    CallContext, DynTool, Registry, RegistryError, ToolFuture, ToolSource, ToolSpec,
};

use super::config::AppTool;
use super::metrics::Metrics;
use crate::outbound::{FailureKind, ReadFailure, Transport, is_json_media, read_capped};

/// One app tool's HTTP side.
struct Endpoint {
    tool: AppTool,
    /// The gateway's work limits: a large answer waits for a place among its large calls.
    work: Work,
    /// The gateway's metrics, which count failed exchanges.
    metrics: Arc<Metrics>,
    /// The tool's headers, then the content type and accept of JSON.
    headers: HeaderMap,
    /// The client of the endpoint.
    transport: Transport,
    /// The endpoint, as parsed.
    url: String,
    /// The endpoint as logged: its password, if any, replaced by `***`.
    shown: String,
}

/// Why app tools could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum AppToolError {
    /// A header name or value is not valid HTTP.
    #[error("tools `{tool}`: header `{header}` is not a valid HTTP header")]
    BadHeader {
        /// The tool.
        tool: String,
        /// The header name.
        header: String,
    },
    /// The endpoint is not a URL.
    #[error("tools `{tool}`: endpoint is not a URL: {reason}")]
    BadEndpoint {
        /// The tool.
        tool: String,
        /// Why not.
        reason: String,
    },
    /// The annotations are not MCP tool annotations (a hint that is not a boolean, say).
    #[error("tools `{tool}`: annotations are refused: {reason}")]
    BadAnnotations {
        /// The tool.
        tool: String,
        /// What was wrong.
        reason: String,
    },
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    /// The registry refused the tool.
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

/// The app tools of `[[tools]]` as a tool source, named `app_tools`.
#[derive(Debug, Clone)]
pub struct AppTools {
    tools: Registry,
}

impl AppTools {
    /// A source of every app tool of the configuration, each with its HTTP client, reading
    /// answers within `work` (the limits of the gateway's `GatewayConfig`) and counting failures
    /// in `metrics`.
    pub fn new(
        tools: &[AppTool],
        work: &Work,
        metrics: &Arc<Metrics>,
    ) -> Result<Self, AppToolError> {
        let mut registry = Registry::named("app_tools");
        register(&mut registry, tools, work, metrics)?;
        Ok(Self { tools: registry })
    }
}

impl ToolSource for AppTools {
    fn name(&self) -> &str {
        "app_tools"
    }

    fn tools(&self) -> Registry {
        self.tools.clone()
    }
}

/// Registers every app tool of the configuration on `registry`.
fn register(
    registry: &mut Registry,
    tools: &[AppTool],
    work: &Work,
    metrics: &Arc<Metrics>,
) -> Result<(), AppToolError> {
    for tool in tools {
        let mut headers = HeaderMap::new();
        for (name, value) in &tool.headers {
            let bad = || AppToolError::BadHeader { tool: tool.name.clone(), header: name.clone() };
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad())?;
            let mut value = HeaderValue::from_str(value).map_err(|_| bad())?;
            value.set_sensitive(true);
            headers.insert(name, value);
        }
        const JSON: HeaderValue = HeaderValue::from_static("application/json");
        headers.append(CONTENT_TYPE, JSON);
        headers.append(ACCEPT, JSON);
        let url = reqwest::Url::parse(&tool.endpoint).map_err(|e| AppToolError::BadEndpoint {
            tool: tool.name.clone(),
            reason: e.to_string(),
        })?;
        let mut shown = url.clone();
        if shown.password().is_some() {
            // Only fails for URLs that cannot hold a password, which this one does.
            let _ = shown.set_password(Some("***"));
        }
        let shown = shown.to_string();
        let transport = Transport::new(&url, tool.proxy.is_some(), tool.timeout, || client(tool))?;
        let mut spec = ToolSpec::new(&tool.name, &tool.description)
            .input_schema(tool.input_schema.clone())
            .shape(tool.shape)
            .privileges(tool.privileges.iter().cloned());
        if let Some(title) = &tool.title {
            spec = spec.title(title);
        }
        if let Some(outputs) = &tool.outputs {
            spec = spec.output_schema(outputs.clone());
        }
        spec = spec.task_support(tool.task);
        if let Some(chars) = tool.max_result_chars {
            spec = spec.max_result_chars(chars);
        }
        // An empty table publishes nothing, as if there were none.
        if let Some(annotations) = tool.annotations.as_ref().filter(|a| !a.is_empty()) {
            let typed =
                serde_json::from_value(Value::Object(annotations.clone())).map_err(|e| {
                    AppToolError::BadAnnotations { tool: tool.name.clone(), reason: e.to_string() }
                })?;
            spec = spec.annotations(typed);
        }
        let endpoint = Arc::new(Endpoint {
            tool: tool.clone(),
            work: work.clone(),
            metrics: Arc::clone(metrics),
            headers,
            transport,
            url: url.into(),
            shown,
        });
        registry.register_dyn(spec, Arc::new(AppHandler(endpoint)))?;
    }
    Ok(())
}

/// The reqwest client of an HTTPS or proxied endpoint (see [`transport`] and
/// [`crate::tls::reqwest_client`]).
fn client(tool: &AppTool) -> Result<reqwest::Client, AppToolError> {
    crate::tls::reqwest_client(tool.timeout, tool.proxy.as_deref(), tool.ca_certs.as_deref())
        .map_err(|e| AppToolError::Client(format!("tools `{}`: {e}", tool.name)))
}

struct AppHandler(Arc<Endpoint>);

impl DynTool for AppHandler {
    fn call(&self, arguments: &Value, context: CallContext) -> ToolFuture {
        let endpoint = self.0.clone();
        // Written here, from the borrowed arguments: no copy of them outlives this call.
        let body = serde_json::to_vec(&AppRequest::new(&endpoint.tool.name, arguments, &context));
        Box::pin(async move {
            Ok(match body {
                Ok(body) => endpoint.invoke(body, context).await,
                Err(e) => endpoint.fail(&Unavailable::NotWritten(e)),
            })
        })
    }
}

/// What toolwire POSTs to an app (see the module docs).
#[derive(serde::Serialize)]
struct AppRequest<'a> {
    tool: &'a str,
    arguments: &'a Value,
    context: RequestContext<'a>,
    /// The retry of an app that asked for input (a v2 answer with `inputRequired`).
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<RetryInput<'a>>,
}

/// The `context` member of an [`AppRequest`].
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct RequestContext<'a> {
    principal: &'a str,
    privileges: Vec<&'a str>,
    protocol_version: &'a str,
    request_id: &'a str,
}

/// `{"responses": {…}, "state": …}` of the round before.
#[derive(serde::Serialize)]
struct RetryInput<'a> {
    responses: &'a serde_json::Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a Value>,
}

impl<'a> AppRequest<'a> {
    fn new(tool: &'a str, arguments: &'a Value, context: &'a CallContext) -> Self {
        let principal = context.principal();
        let round = context.input();
        Self {
            tool,
            arguments,
            context: RequestContext {
                principal: principal.name(),
                privileges: principal.privileges().collect(),
                protocol_version: context.revision().as_str(),
                request_id: context.request_id(),
            },
            input: (!round.is_empty())
                .then(|| RetryInput { responses: round.responses(), state: round.state() }),
        }
    }
}

fn upstream(message: String) -> ToolResult {
    ToolResult::failure(ToolError::new(ErrorCode::UpstreamUnavailable, message))
}

const CHECK_APP_LOGS: &str =
    "Try again later; if this keeps happening, the operator should check the app's logs.";
const FIX_THE_APP: &str = "The app's answer needs fixing; the operator should check the app.";

/// Why an app tool's call brought no answer toolwire can use. Its text says what went wrong
/// (never the endpoint); [`Unavailable::message`] adds the tool and what to do.
#[derive(Debug, thiserror::Error)]
enum Unavailable {
    /// The app did not answer within the tool's timeout.
    #[error("its app did not answer within {}", seconds(*.0))]
    Timeout(Duration),
    /// The TLS handshake failed.
    #[error("the TLS connection to its app failed (its certificate was not accepted)")]
    Tls,
    /// The connection was refused or the host is unknown.
    #[error("its app could not be reached")]
    Unreachable,
    /// The request failed otherwise.
    #[error("the request to its app failed")]
    RequestFailed,
    /// An accepted operation whose `Location` cannot be polled.
    #[error("its app accepted the call with {0}")]
    Location(String),
    /// A 3xx answer, which is never followed.
    #[error("its app answered with a redirect (HTTP {0}), and toolwire does not follow redirects")]
    Redirect(reqwest::StatusCode),
    /// A non-2xx answer that is not a failure the app wrote.
    #[error("its app answered HTTP {0}")]
    Status(reqwest::StatusCode),
    /// The body is not UTF-8.
    #[error("its app answered a body that is not UTF-8 (invalid byte at offset {0})")]
    NotUtf8(usize),
    /// The request body could not be written.
    #[error("its request could not be written ({0})")]
    NotWritten(serde_json::Error),
    /// The parsing of a large answer off the async workers failed.
    #[error("its answer could not be parsed ({0})")]
    NotParsed(toolwire_mcp::work::WorkError),
    /// A JSON content type whose body is not JSON.
    #[error("its app answered {content_type} that is not valid JSON ({error})")]
    NotJson {
        /// The content type the app sent.
        content_type: String,
        /// What the JSON parser said.
        error: serde_json::Error,
    },
    /// JSON that is not a result toolwire reads (a v1 document of an unknown format, say).
    #[error("its app answered a result toolwire cannot read ({0})")]
    Unreadable(toolwire_core::ParseError),
    /// No place among the large calls.
    #[error("toolwire could not take its large answer")]
    NoPlace,
    /// The body broke off.
    #[error("its app's answer broke off")]
    BrokeOff,
    /// The body is over the tool's response cap.
    #[error("its app answered more than {0} bytes")]
    TooLarge(u64),
}

impl Unavailable {
    /// What to do about it.
    fn advice(&self) -> &'static str {
        match self {
            Self::Timeout(_) => {
                "Try again later; if this keeps happening, the operator should check the app, or raise timeout_ms for this tool in toolwire.toml."
            }
            Self::Tls => {
                "The operator should check the app's certificate, or set ca_file for this tool in toolwire.toml."
            }
            Self::Unreachable => {
                "Try again later; if this keeps happening, the operator should check that the app is running and that the tool's endpoint in toolwire.toml is right."
            }
            Self::RequestFailed => {
                "Try again later; if this keeps happening, the operator should check the app and the network between it and toolwire."
            }
            Self::Location(_) => FIX_THE_APP,
            Self::Redirect(_) => {
                "The operator should set the tool's endpoint in toolwire.toml to the URL the app redirects to."
            }
            Self::Status(_) | Self::BrokeOff => CHECK_APP_LOGS,
            Self::NotWritten(_) => "The operator should report this as a bug in toolwire.",
            Self::NotUtf8(_) | Self::NotParsed(_) | Self::NotJson { .. } | Self::Unreadable(_) => {
                FIX_THE_APP
            }
            Self::NoPlace => "Try again.",
            Self::TooLarge(_) => {
                "Ask for less if the arguments allow it; the operator can raise response_cap for this tool in toolwire.toml."
            }
        }
    }

    /// What callers read: the tool, what went wrong and what to do.
    fn message(&self, tool: &str) -> String {
        format!("Tool {tool} is unavailable: {self}. {}", self.advice())
    }

    /// The `kind` label of the app error metric.
    fn kind(&self) -> &'static str {
        match self {
            Self::Timeout(_) => "timeout",
            _ => "unavailable",
        }
    }
}

/// A non-2xx answer that is a well-formed legacy failure envelope or v1 failure: the app's own
/// code and message, which callers may read. Anything else in a non-2xx body stays hidden.
fn app_failure(content_type: &str, body: &[u8]) -> Option<ToolResult> {
    if !is_json_media(content_type) {
        return None;
    }
    let result = toolwire_core::parse_any(body).ok()?;
    (result.error().is_some() && !result.is_passthrough()).then_some(result)
}

impl Endpoint {
    async fn invoke(&self, body: Vec<u8>, context: CallContext) -> ToolResult {
        let tool = &self.tool;
        // A task waits for an accepted operation as long as it lives; each request to the app
        // still has the tool's timeout. A call answered in its request has it all told.
        let answer = if context.in_task() {
            self.exchange(body, &context, Some(tool.timeout)).await
        } else {
            tokio::time::timeout(tool.timeout, self.exchange(body, &context, None))
                .await
                .unwrap_or(Err(Unavailable::Timeout(tool.timeout)))
        };
        let why = match answer {
            Ok(result) => return result,
            Err(why) => why,
        };
        self.metrics.app_error(&tool.name, why.kind());
        self.fail(&why)
    }

    /// Logs the failure with the endpoint (which callers never see) and returns its result.
    fn fail(&self, why: &Unavailable) -> ToolResult {
        let message = why.message(&self.tool.name);
        tracing::warn!(tool = %self.tool.name, endpoint = %self.shown, "app tool failed: {message}");
        upstream(message)
    }

    /// The POST and its answer (polled while the app says it runs on; every request within
    /// `each`, when given).
    async fn exchange(
        &self,
        body: Vec<u8>,
        context: &CallContext,
        each: Option<Duration>,
    ) -> Result<ToolResult, Unavailable> {
        let tool = &self.tool;
        let accepted = || context.set_status("accepted by the app, which is working on it");
        let sent = self.transport.send_polled(
            Method::POST,
            &self.url,
            &self.headers,
            body,
            each,
            &accepted,
        );
        let mut answer = sent.await.map_err(|failure| {
            tracing::warn!(tool = %tool.name, endpoint = %self.shown, error = %failure.detail, "app request failed");
            match failure.kind {
                FailureKind::Tls => Unavailable::Tls,
                FailureKind::Unreachable => Unavailable::Unreachable,
                FailureKind::Location => Unavailable::Location(failure.detail),
                FailureKind::Timeout(limit) => Unavailable::Timeout(limit),
                FailureKind::Failed => Unavailable::RequestFailed,
            }
        })?;
        let status = answer.status;
        if status.is_redirection() {
            let location = answer.headers.get(LOCATION).and_then(|v| v.to_str().ok());
            tracing::warn!(tool = %tool.name, endpoint = %self.shown, %status, location, "app answered a redirect, not followed");
            return Err(Unavailable::Redirect(status));
        }
        let content_type = answer
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let body = self.read_body(&mut answer, context.places()).await;
        if !status.is_success() {
            return body
                .ok()
                .and_then(|body| app_failure(&content_type, &body))
                .ok_or(Unavailable::Status(status));
        }
        let bytes = body?;
        let text =
            std::str::from_utf8(&bytes).map_err(|e| Unavailable::NotUtf8(e.valid_up_to()))?;
        if !is_json_media(&content_type) {
            // Any other content type is passed through as text, unchanged (DESIGN §7).
            return Ok(toolwire_core::legacy::passthrough(text));
        }
        // Parsing costs about the answer's size: a large one leaves the async workers.
        let large = text.len() >= toolwire_mcp::work::LARGE;
        let parsed = Work::placed(&self.work, large, move || parse_answer(&bytes))
            .await
            .map_err(Unavailable::NotParsed)?;
        parsed.map_err(|e| match e {
            AnswerError::NotJson(error) => Unavailable::NotJson { content_type, error },
            AnswerError::Unreadable(e) => Unavailable::Unreadable(e),
        })
    }

    /// The answer's body (see [`read_capped`]), failures logged with the endpoint.
    async fn read_body(
        &self,
        answer: &mut crate::outbound::Answer,
        call: &toolwire_mcp::work::CallPlaces,
    ) -> Result<Vec<u8>, Unavailable> {
        let tool = &self.tool;
        read_capped(answer, tool.response_cap, &self.work, call).await.map_err(|e| match e {
            ReadFailure::TooLarge(cap) => Unavailable::TooLarge(cap),
            ReadFailure::BrokeOff(error) => {
                tracing::warn!(tool = %tool.name, endpoint = %self.shown, %error, "app answer broke off");
                Unavailable::BrokeOff
            }
            ReadFailure::NoPlace(error) => {
                tracing::error!(tool = %tool.name, %error, "no place for a large answer");
                Unavailable::NoPlace
            }
        })
    }
}

/// Why a JSON answer gave no result.
enum AnswerError {
    NotJson(serde_json::Error),
    Unreadable(toolwire_core::ParseError),
}

/// A JSON answer, parsed once into its result. A result read from the answer proves it is
/// JSON; any other outcome (text passed through, or refused) is checked again, so that broken
/// JSON is reported as such, with where it breaks.
fn parse_answer(bytes: &[u8]) -> Result<ToolResult, AnswerError> {
    let parsed = toolwire_core::parse_any(bytes);
    if !matches!(&parsed, Ok(result) if !result.is_passthrough()) {
        serde_json::from_slice::<serde::de::IgnoredAny>(bytes).map_err(AnswerError::NotJson)?;
    }
    parsed.map_err(AnswerError::Unreadable)
}

fn seconds(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms.is_multiple_of(1000) { format!("{} s", ms / 1000) } else { format!("{ms} ms") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unavailable_apps_are_explained_to_callers() {
        let message = Unavailable::Timeout(Duration::from_millis(250)).message("orders");
        assert_eq!(
            message,
            "Tool orders is unavailable: its app did not answer within 250 ms. Try again later; if this keeps happening, the operator should check the app, or raise timeout_ms for this tool in toolwire.toml."
        );
        assert_eq!(
            Unavailable::Status(reqwest::StatusCode::BAD_GATEWAY).message("orders"),
            "Tool orders is unavailable: its app answered HTTP 502 Bad Gateway. Try again later; if this keeps happening, the operator should check the app's logs."
        );
        assert_eq!(Unavailable::Timeout(Duration::from_secs(1)).kind(), "timeout");
        assert_eq!(Unavailable::BrokeOff.kind(), "unavailable");
    }

    #[test]
    fn answers_are_read_once_and_broken_json_is_named() {
        let what = |bytes: &[u8]| match parse_answer(bytes) {
            Ok(result) if result.is_passthrough() => "passthrough".to_owned(),
            Ok(result) => format!("result {}", result.data_json().unwrap_or_default()),
            Err(AnswerError::NotJson(e)) => format!("not JSON: {e}"),
            Err(AnswerError::Unreadable(e)) => format!("unreadable: {e}"),
        };
        assert_eq!(what(br#"{"format":"toolwire.result.v1","data":{"a":1}}"#), r#"result {"a":1}"#);
        assert_eq!(what(br#"{"success":true,"data":[1, 2]}"#), "result [1,2]");
        assert_eq!(what(b"[1, 2]"), "passthrough");
        assert_eq!(what(br#"{"a":1"#), "not JSON: EOF while parsing an object at line 1 column 6");
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(
            what(deep.as_bytes()),
            "unreadable: JSON nesting reaches 128 levels at byte offset 127; at most 127 levels are allowed"
        );
        assert_eq!(
            what(br#"{"format":"toolwire.result.v9","data":1}"#),
            "unreadable: invalid toolwire result document: unknown format version `toolwire.result.v9`"
        );
    }

    #[test]
    fn timeouts_read_naturally() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(250)), "250 ms");
    }
}

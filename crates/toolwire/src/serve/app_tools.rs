//! App tools: tools that already exist as HTTP endpoints, bridged from `toolwire.toml`.
//!
//! toolwire POSTs `{"tool", "arguments", "context": {"principal", "privileges",
//! "protocolVersion", "requestId"}}` and reads the answer: a 2xx JSON answer must parse (v1
//! document, legacy envelope, or other JSON passed through); every misbehaviour becomes an
//! `upstream_unavailable` failure whose message says what to check, and the gateway keeps
//! serving.

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use toolwire_core::{ErrorCode, ToolError, ToolResult};
use toolwire_mcp::{CallContext, DynTool, Registry, RegistryError, ToolFuture, ToolSpec};

use super::config::AppTool;

/// One app tool's HTTP side.
struct Endpoint {
    tool: AppTool,
    headers: HeaderMap,
    client: reqwest::Client,
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
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    /// The registry refused the tool.
    #[error(transparent)]
    Registry(#[from] RegistryError),
}

/// Registers every app tool of the configuration.
pub fn register(registry: &mut Registry, tools: &[AppTool]) -> Result<(), AppToolError> {
    for tool in tools {
        let mut headers = HeaderMap::new();
        for (name, value) in &tool.headers {
            let bad = || AppToolError::BadHeader { tool: tool.name.clone(), header: name.clone() };
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad())?;
            let mut value = HeaderValue::from_str(value).map_err(|_| bad())?;
            value.set_sensitive(true);
            headers.insert(name, value);
        }
        let client = reqwest::Client::builder()
            .connect_timeout(tool.timeout)
            .build()
            .map_err(|e| AppToolError::Client(e.to_string()))?;
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
        if let Some(annotations) = &tool.annotations {
            spec = spec.annotations(annotations.clone());
        }
        let endpoint = Arc::new(Endpoint { tool: tool.clone(), headers, client });
        registry.register_dyn(spec, Arc::new(AppHandler(endpoint)))?;
    }
    Ok(())
}

struct AppHandler(Arc<Endpoint>);

impl DynTool for AppHandler {
    fn call(&self, arguments: Value, context: CallContext) -> ToolFuture {
        let endpoint = self.0.clone();
        Box::pin(async move { Ok(endpoint.invoke(arguments, context).await) })
    }
}

fn upstream(message: String) -> ToolResult {
    ToolResult::failure(ToolError::new(ErrorCode::UpstreamUnavailable, message))
}

/// `application/json` or `*/*+json`, parameters ignored.
fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    essence == "application/json" || (essence.contains('/') && essence.ends_with("+json"))
}

impl Endpoint {
    async fn invoke(&self, arguments: Value, context: CallContext) -> ToolResult {
        let tool = &self.tool;
        match tokio::time::timeout(tool.timeout, self.exchange(arguments, &context)).await {
            Ok(Ok(result)) => result,
            Ok(Err(message)) => upstream(message),
            Err(_) => upstream(format!(
                "The app endpoint {} of tool {} did not answer within {}; check that the app is running, or raise timeout_ms for this tool in toolwire.toml.",
                tool.endpoint,
                tool.name,
                seconds(tool.timeout)
            )),
        }
    }

    async fn exchange(
        &self,
        arguments: Value,
        context: &CallContext,
    ) -> Result<ToolResult, String> {
        let tool = &self.tool;
        let privileges: Vec<&str> = context.principal().privileges().collect();
        let body = json!({
            "tool": tool.name,
            "arguments": arguments,
            "context": {
                "principal": context.principal().name(),
                "privileges": privileges,
                "protocolVersion": context.revision().as_str(),
                "requestId": context.request_id(),
            }
        });
        let mut response = self
            .client
            .post(&tool.endpoint)
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| {
                if e.is_connect() {
                    format!(
                        "Could not connect to the app endpoint {} of tool {}; check that the app is running and that endpoint in toolwire.toml is right.",
                        tool.endpoint, tool.name
                    )
                } else {
                    format!(
                        "The request to the app endpoint {} of tool {} failed ({e}); check the app and the network between it and toolwire.",
                        tool.endpoint, tool.name
                    )
                }
            })?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!(
                "The app endpoint {} of tool {} answered HTTP {status}; check the app's logs.",
                tool.endpoint, tool.name
            ));
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        // One buffer, sized once when the app says how much comes (never past the cap): no
        // doubling of a large answer while it streams in.
        let expected = response.content_length().unwrap_or(0).min(tool.response_cap);
        let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
        loop {
            let chunk = response.chunk().await.map_err(|e| {
                format!(
                    "The answer of the app endpoint {} of tool {} broke off ({e}); check the app's logs.",
                    tool.endpoint, tool.name
                )
            })?;
            let Some(chunk) = chunk else { break };
            if (bytes.len() + chunk.len()) as u64 > tool.response_cap {
                return Err(format!(
                    "The app endpoint {} of tool {} answered more than {} bytes; make the app answer less, or raise response_cap for this tool in toolwire.toml.",
                    tool.endpoint, tool.name, tool.response_cap
                ));
            }
            bytes.extend_from_slice(&chunk);
        }
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            format!(
                "The app endpoint {} of tool {} answered a body that is not UTF-8 (invalid byte at offset {}); make the app answer UTF-8 text.",
                tool.endpoint,
                tool.name,
                e.valid_up_to()
            )
        })?;
        if !is_json(&content_type) {
            // Any other content type is passed through as text, unchanged (DESIGN §7).
            return Ok(toolwire_core::legacy::passthrough(text));
        }
        // Parsing costs about the answer's size: a large one leaves the async workers.
        let large = text.len() >= toolwire_mcp::work::LARGE;
        let parsed = toolwire_mcp::work::placed(large, move || parse_answer(&bytes))
            .await
            .map_err(|e| format!("The answer of tool {} could not be parsed ({e}).", tool.name))?;
        match parsed {
            Ok(result) => Ok(result),
            Err(AnswerError::NotJson(e)) => Err(format!(
                "The app endpoint {} of tool {} answered {content_type} that is not valid JSON ({e}); fix the app's answer.",
                tool.endpoint, tool.name
            )),
            Err(AnswerError::Unreadable(e)) => Err(format!(
                "The app endpoint {} of tool {} answered a result toolwire cannot read ({e}); fix the app's answer.",
                tool.endpoint, tool.name
            )),
        }
    }
}

/// Why a JSON answer gave no result.
enum AnswerError {
    NotJson(serde_json::Error),
    Unreadable(toolwire_core::ParseError),
}

/// A JSON answer, parsed once into its result (the syntax check before allocates nothing).
fn parse_answer(bytes: &[u8]) -> Result<ToolResult, AnswerError> {
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).map_err(AnswerError::NotJson)?;
    toolwire_core::parse_any(bytes).map_err(AnswerError::Unreadable)
}

fn seconds(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms.is_multiple_of(1000) { format!("{} s", ms / 1000) } else { format!("{ms} ms") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_content_types() {
        assert!(is_json("application/json"));
        assert!(is_json("application/json; charset=utf-8"));
        assert!(is_json("application/problem+json"));
        assert!(is_json("Application/JSON"));
        assert!(!is_json("text/plain"));
        assert!(!is_json(""));
        assert!(!is_json("+json"));
    }

    #[test]
    fn timeouts_read_naturally() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(250)), "250 ms");
    }
}

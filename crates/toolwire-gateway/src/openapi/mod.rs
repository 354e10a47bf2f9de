//! `[[openapi]]`: a REST API served as tools from its OpenAPI description (DESIGN §16).
//!
//! The document is read once when the gateway starts ([`document`]); every operation becomes a
//! tool ([`operation`]) whose schemas are made self-contained ([`schema`]); a call writes the
//! HTTP request from the validated arguments ([`request`]), sends it with the entry's client
//! (no redirects followed, a proxy only when configured, the entry's CA file), reads at most
//! `response_cap` bytes, and makes the answer a `ToolResult` ([`answer`]): errors are results
//! with the API's own message, never protocol errors. The parsing, conversion, request writing
//! and answer reading are sans-IO; this module holds the IO.

pub mod answer;
pub mod document;
pub mod operation;
pub mod request;
pub mod schema;

use std::sync::Arc;

use reqwest::header::{
    ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, LINK, RETRY_AFTER,
};
use serde_json::Value;
use toolwire_core::{ErrorCode, ToolError, ToolResult};
use toolwire_mcp::work::Work;
use toolwire_mcp::{CallContext, DynTool, Registry, ToolFuture, ToolSource, ToolSpec};

use crate::config::{OpenApi, SpecLocation};
use crate::metrics::Metrics;
use crate::outbound::{FailureKind, ReadFailure, Transport, read_capped};
use document::{Document, SPEC_LIMIT, SpecError};
use operation::{CallPlan, Location, Options, Skipped};
use request::{Credentials, Scheme};

/// Why an `[[openapi]]` entry cannot be served; the gateway does not start.
#[derive(Debug, thiserror::Error)]
pub enum OpenApiError {
    /// The document could not be read or fetched.
    #[error("openapi `{name}`: cannot read {spec}: {reason}")]
    Read {
        /// The entry.
        name: String,
        /// The document's file or URL.
        spec: String,
        /// Why.
        reason: String,
    },
    /// The document is not a usable OpenAPI document.
    #[error("openapi `{name}`: {spec}: {error}")]
    Spec {
        /// The entry.
        name: String,
        /// The document's file or URL.
        spec: String,
        /// Where in it, and why.
        error: SpecError,
    },
    /// The entry's configuration does not fit the document.
    #[error("openapi `{name}`: {reason}")]
    Config {
        /// The entry.
        name: String,
        /// What does not fit.
        reason: String,
    },
}

/// What loading an entry made of its document, for `serve --check` and the logs.
#[derive(Debug, Clone)]
pub struct LoadReport {
    /// The document's file or URL.
    pub spec: String,
    /// The API's base URL.
    pub base_url: String,
    /// The tools served, in document order.
    pub tools: Vec<String>,
    /// The operations that could not become tools.
    pub skipped: Vec<Skipped>,
    /// The operations `writes` or `operations` left out.
    pub left_out: usize,
}

/// An `[[openapi]]` entry as a tool source, named after the entry.
#[derive(Debug, Clone)]
pub struct OpenApiSource {
    name: String,
    tools: Registry,
    report: Arc<LoadReport>,
}

impl ToolSource for OpenApiSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn tools(&self) -> Registry {
        self.tools.clone()
    }
}

impl OpenApiSource {
    /// Reads (or fetches) the entry's document and makes its tools; every operation skipped is
    /// logged as a warning naming it.
    pub async fn load(
        entry: &OpenApi,
        work: &Work,
        metrics: &Arc<Metrics>,
    ) -> Result<Self, OpenApiError> {
        let client = client(entry)?;
        let read_failed = |reason: String| OpenApiError::Read {
            name: entry.name.clone(),
            spec: entry.spec.to_string(),
            reason,
        };
        let bytes = match &entry.spec {
            SpecLocation::File(path) => toolwire_store::read_limited(path, SPEC_LIMIT as u64)
                .map_err(|e| read_failed(e.to_string()))?,
            SpecLocation::Url(url) => {
                fetch(&client, url, entry.timeout).await.map_err(read_failed)?
            }
        };
        let doc = Document::parse(&bytes).map_err(|error| OpenApiError::Spec {
            name: entry.name.clone(),
            spec: entry.spec.to_string(),
            error,
        })?;
        let source = Self::from_client(entry, &doc, client, work, metrics)?;
        for skipped in &source.report.skipped {
            tracing::warn!(openapi = %entry.name, spec = %entry.spec, "operation skipped: {skipped}");
        }
        Ok(source)
    }

    /// The tools of a parsed document (nothing is fetched), calling with the entry's client.
    pub fn from_document(
        entry: &OpenApi,
        doc: &Document,
        work: &Work,
        metrics: &Arc<Metrics>,
    ) -> Result<Self, OpenApiError> {
        let client = client(entry)?;
        Self::from_client(entry, doc, client, work, metrics)
    }

    fn from_client(
        entry: &OpenApi,
        doc: &Document,
        client: reqwest::Client,
        work: &Work,
        metrics: &Arc<Metrics>,
    ) -> Result<Self, OpenApiError> {
        let config = |reason: String| OpenApiError::Config { name: entry.name.clone(), reason };
        let base_url = base_url(entry, doc).map_err(config)?;
        let credentials = credentials(entry, doc).map_err(config)?;
        let base = reqwest::Url::parse(&base_url)
            .map_err(|e| config(format!("base URL `{base_url}` is not a URL: {e}")))?;
        let transport = Transport::new(&base, entry.proxy.is_some(), entry.timeout, || {
            Ok::<_, OpenApiError>(client)
        })?;
        let mut headers = HeaderMap::new();
        for (name, value) in &entry.headers {
            let (name, mut value) = header(name, value)
                .map_err(|()| config(format!("header `{name}` is not a valid HTTP header")))?;
            value.set_sensitive(true);
            headers.append(name, value);
        }
        headers.insert(ACCEPT, HeaderValue::from_static("application/json, */*;q=0.5"));
        let options = Options {
            tool_prefix: entry.tool_prefix.clone(),
            writes: entry.writes,
            operations: entry.operations.clone(),
        };
        let generated = operation::generate(doc, &options);
        let api = Arc::new(Api {
            name: entry.name.clone(),
            base_url: base_url.clone(),
            credentials,
            headers,
            timeout: entry.timeout,
            response_cap: entry.response_cap,
            transport,
            work: work.clone(),
            metrics: Arc::clone(metrics),
        });
        let mut registry = Registry::named(entry.name.clone());
        let mut skipped = generated.skipped;
        let mut tools = Vec::with_capacity(generated.tools.len());
        for tool in generated.tools {
            let mut spec = ToolSpec::new(&tool.name, &tool.description)
                .input_schema(tool.input_schema)
                .annotations(tool.annotations)
                .privileges(entry.privileges.iter().cloned());
            if tool.accepted {
                // A task when the API accepts the call (202) or is slow, not for every call.
                spec = spec
                    .task_support(toolwire_mcp::TaskSupport::Optional)
                    .task_grace(crate::TASK_GRACE);
            }
            if let Some(title) = &tool.title {
                spec = spec.title(title);
            }
            if let Some(output) = tool.output_schema {
                spec = spec.output_schema(output);
            }
            let handler = Arc::new(Operation { api: Arc::clone(&api), plan: tool.plan });
            match registry.register_dyn(spec, handler) {
                Ok(()) => tools.push(tool.name),
                Err(e) => skipped.push(Skipped {
                    operation: tool.name,
                    pointer: tool.pointer,
                    reason: e.to_string(),
                }),
            }
        }
        Ok(Self {
            name: entry.name.clone(),
            tools: registry,
            report: Arc::new(LoadReport {
                spec: entry.spec.to_string(),
                base_url,
                tools,
                skipped,
                left_out: generated.left_out,
            }),
        })
    }

    /// What loading made of the document.
    pub fn report(&self) -> &LoadReport {
        &self.report
    }

    /// The same report, shared.
    pub(crate) fn report_arc(&self) -> Arc<LoadReport> {
        Arc::clone(&self.report)
    }
}

/// A header as HTTP spells it, or `Err` when the name or value cannot be sent.
fn header(name: &str, value: &str) -> Result<(HeaderName, HeaderValue), ()> {
    Ok((
        HeaderName::from_bytes(name.as_bytes()).map_err(|_| ())?,
        HeaderValue::from_str(value).map_err(|_| ())?,
    ))
}

/// The entry's HTTP client (for the document and the calls).
fn client(entry: &OpenApi) -> Result<reqwest::Client, OpenApiError> {
    crate::tls::reqwest_client(entry.timeout, entry.proxy.as_deref(), entry.ca_certs.as_deref())
        .map_err(|reason| OpenApiError::Config { name: entry.name.clone(), reason })
}

/// The document at `url`, at most [`SPEC_LIMIT`] bytes; a redirect is refused (the URL to give
/// instead is named).
async fn fetch(
    client: &reqwest::Client,
    url: &str,
    timeout: std::time::Duration,
) -> Result<Vec<u8>, String> {
    let get = async {
        let mut response = client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json, application/yaml;q=0.9, */*;q=0.1")
            .send()
            .await
            .map_err(|e| crate::outbound::chain(&e.without_url()))?;
        let status = response.status();
        if status.is_redirection() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|l| l.to_str().ok())
                .unwrap_or("elsewhere");
            return Err(format!(
                "it answered HTTP {status}, a redirect to {location}, which toolwire does not follow; give that URL as spec"
            ));
        }
        if !status.is_success() {
            return Err(format!("it answered HTTP {status}"));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| e.without_url().to_string())? {
            if bytes.len() + chunk.len() > SPEC_LIMIT {
                return Err(format!("it is over the limit of {SPEC_LIMIT} bytes"));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    };
    tokio::time::timeout(timeout, get)
        .await
        .map_err(|_| format!("no answer within {} ms", timeout.as_millis()))?
}

/// The base URL: the entry's, else the document's first server (variables at their defaults;
/// a relative one against the document's URL).
fn base_url(entry: &OpenApi, doc: &Document) -> Result<String, String> {
    if let Some(base) = &entry.base_url {
        return Ok(base.clone());
    }
    let server = doc.root().pointer("/servers/0");
    let Some(url) = server.and_then(|s| s.get("url")).and_then(Value::as_str) else {
        return Err("the document names no server; set base_url".into());
    };
    let mut url = url.to_owned();
    if let Some(variables) = server.and_then(|s| s.get("variables")).and_then(Value::as_object) {
        for (name, variable) in variables {
            let default = variable.get("default").and_then(Value::as_str).unwrap_or_default();
            url = url.replace(&format!("{{{name}}}"), default);
        }
    }
    if url.contains('{') {
        return Err(format!(
            "the document's server `{url}` has a variable without a default; set base_url"
        ));
    }
    if url.starts_with("http://") || url.starts_with("https://") {
        return Ok(url);
    }
    match &entry.spec {
        SpecLocation::Url(spec) => reqwest::Url::parse(spec)
            .and_then(|spec| spec.join(&url))
            .map(|joined| joined.to_string())
            .map_err(|e| {
                format!("the document's server `{url}` cannot be resolved against {spec}: {e}")
            }),
        SpecLocation::File(_) => {
            Err(format!("the document's server `{url}` is not an absolute URL; set base_url"))
        }
    }
}

/// The configured secret of each security scheme, with how the document says to send it.
fn credentials(entry: &OpenApi, doc: &Document) -> Result<Credentials, String> {
    let schemes = doc.root().pointer("/components/securitySchemes").and_then(Value::as_object);
    let mut credentials = Credentials::default();
    for (name, secret) in &entry.credentials {
        let Some(scheme) = schemes.and_then(|s| s.get(name)) else {
            let known: Vec<&str> =
                schemes.map(|s| s.keys().map(String::as_str).collect()).unwrap_or_default();
            return Err(format!(
                "credentials.{name}: the document has no security scheme `{name}` (it has: {})",
                if known.is_empty() { "none".to_owned() } else { known.join(", ") }
            ));
        };
        let scheme = doc.follow(scheme).map_err(|e| format!("credentials.{name}: {e}"))?;
        let kind = scheme.get("type").and_then(Value::as_str).unwrap_or_default();
        let scheme = match kind {
            "apiKey" => {
                let location = match scheme.get("in").and_then(Value::as_str) {
                    Some("header") => Location::Header,
                    Some("query") => Location::Query,
                    Some("cookie") => Location::Cookie,
                    other => {
                        return Err(format!(
                            "credentials.{name}: the apiKey scheme's `in` is {other:?}, not header, query or cookie"
                        ));
                    }
                };
                let key = scheme.get("name").and_then(Value::as_str).unwrap_or_default();
                if key.is_empty() {
                    return Err(format!("credentials.{name}: the apiKey scheme has no `name`"));
                }
                Scheme::ApiKey { location, name: key.to_owned() }
            }
            "http" => {
                match scheme.get("scheme").and_then(Value::as_str).map(str::to_ascii_lowercase) {
                    Some(s) if s == "bearer" => Scheme::Bearer,
                    Some(s) if s == "basic" => Scheme::Basic,
                    other => {
                        return Err(format!(
                            "credentials.{name}: the http scheme {other:?} is not supported (bearer and basic are)"
                        ));
                    }
                }
            }
            "oauth2" | "openIdConnect" => Scheme::Bearer,
            other => {
                return Err(format!(
                    "credentials.{name}: a `{other}` security scheme is not supported"
                ));
            }
        };
        credentials.0.insert(name.clone(), (scheme, secret.clone()));
    }
    Ok(credentials)
}

/// One API: its base URL, credentials, client and limits, shared by its tools.
struct Api {
    name: String,
    base_url: String,
    credentials: Credentials,
    /// The entry's headers and `Accept`, sent with every call.
    headers: HeaderMap,
    timeout: std::time::Duration,
    response_cap: u64,
    transport: Transport,
    work: Work,
    metrics: Arc<Metrics>,
}

/// One operation's handler.
struct Operation {
    api: Arc<Api>,
    plan: CallPlan,
}

impl DynTool for Operation {
    fn call(&self, arguments: &Value, context: CallContext) -> ToolFuture {
        let written =
            request::build(&self.plan, &self.api.base_url, arguments, &self.api.credentials);
        let api = Arc::clone(&self.api);
        Box::pin(async move {
            let request = match written {
                Ok(request) => request,
                Err(e) => {
                    let message = e.to_string();
                    return Ok(ToolResult::failure(ToolError::invalid_arguments(
                        message.clone(),
                        [(format!("/{}", e.argument), e.message)],
                    )));
                }
            };
            let tool = context.tool().to_owned();
            // As for app tools: a task waits for an accepted operation as long as it lives,
            // each request within the timeout; a call answered in its request has it all told.
            let outcome = if context.in_task() {
                api.send(&request, &context, Some(api.timeout)).await
            } else {
                tokio::time::timeout(api.timeout, api.send(&request, &context, None))
                    .await
                    .unwrap_or_else(|_| {
                        Err(format!("the API did not answer within {} ms", api.timeout.as_millis()))
                    })
            };
            let why = match outcome {
                Ok(answer) => return Ok(answer),
                Err(why) => why,
            };
            api.metrics.app_error(&tool, "unavailable");
            tracing::warn!(openapi = %api.name, %tool, request = %request, "call failed: {why}");
            Ok(ToolResult::failure(ToolError::new(
                ErrorCode::UpstreamUnavailable,
                format!(
                    "Tool {tool} is unavailable: {why}. Try again later; if this keeps happening, the operator should check the API and the network between it and toolwire."
                ),
            )))
        })
    }
}

impl Api {
    /// Sends `request` and reads its answer into a result; `Err` says why there is no answer
    /// (what callers read, never the URL).
    async fn send(
        &self,
        request: &request::Request,
        context: &CallContext,
        each: Option<std::time::Duration>,
    ) -> Result<ToolResult, String> {
        let places = context.places();
        let mut headers = self.headers.clone();
        for (name, value) in &request.headers {
            let (name, value) =
                header(name, value).map_err(|()| format!("header `{name}` is not valid HTTP"))?;
            headers.insert(name, value);
        }
        let body = match &request.body {
            Some((media, body)) => {
                let media = HeaderValue::from_str(media)
                    .map_err(|_| format!("media type `{media}` is not valid HTTP"))?;
                headers.insert(CONTENT_TYPE, media);
                body.clone()
            }
            None => Vec::new(),
        };
        let accepted = || context.set_status("accepted by the API, which is working on it");
        let method = request.method.clone();
        let sent =
            self.transport.send_polled(method, &request.url, &headers, body, each, &accepted);
        let mut response = sent.await.map_err(|failure| {
            tracing::debug!(openapi = %self.name, error = %failure.detail, "request failed");
            match failure.kind {
                FailureKind::Tls => "the TLS handshake with the API failed".to_owned(),
                FailureKind::Unreachable => "the API could not be reached".to_owned(),
                FailureKind::Location => {
                    format!("the API accepted the call with {}", failure.detail)
                }
                FailureKind::Timeout(limit) => {
                    format!("the API did not answer within {} ms", limit.as_millis())
                }
                FailureKind::Failed => "the request to the API failed".to_owned(),
            }
        })?;
        let header = |name: HeaderName| response.header(name).map(str::to_owned);
        let status = response.status;
        let content_type = header(CONTENT_TYPE);
        let link = header(LINK);
        let retry_after = header(RETRY_AFTER);
        let body = read_capped(&mut response, self.response_cap, &self.work, places)
            .await
            .map_err(|e| match e {
                ReadFailure::TooLarge(cap) => {
                    format!("the API answered more than {cap} bytes (response_cap)")
                }
                ReadFailure::BrokeOff(_) => "the API's answer broke off".to_owned(),
                ReadFailure::NoPlace(_) => "toolwire could not take its large answer".to_owned(),
            })?;
        let large = body.len() >= toolwire_mcp::work::LARGE;
        let answer = answer::Answer { status, content_type, link, retry_after, body };
        Work::placed(&self.work, large, move || answer.into_result())
            .await
            .map_err(|e| format!("its answer could not be read ({e})"))
    }
}

//! One upstream tool as the gateway calls it: `tools/call` to the upstream within the
//! upstream's `timeout_ms`, its answer turned into a `ToolResult` (`super::result`). Whatever
//! goes wrong on the way is a result the model can act on: the upstream's `-32602` is
//! `invalid_arguments`; a timeout, a lost connection or another JSON-RPC error is
//! `upstream_unavailable` saying whether to retry — never the upstream's URL or command line.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ProgressToken,
    ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, RoleServer, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpError;
use serde_json::Value;
use toolwire_core::input::Capability;
use toolwire_core::{ErrorCode, ToolError, ToolResult};
use toolwire_mcp::{CallContext, DynTool, ToolFuture};

use super::relay::{Asker, CancelOnDrop, Relays};
use crate::config::Upstream;
use crate::metrics::Metrics;

/// The way to an upstream that its tools share: the peer of the current connection (none while
/// it is down), its call limit, where progress goes, and the gateway's metrics.
pub(super) struct Link {
    upstream: String,
    timeout: Duration,
    metrics: Arc<Metrics>,
    peer: RwLock<Option<Peer<RoleClient>>>,
    relays: Arc<Relays>,
}

impl Link {
    /// The link of `upstream`, not connected yet.
    pub(super) fn new(upstream: &Upstream, metrics: Arc<Metrics>) -> Self {
        Self {
            upstream: upstream.name.clone(),
            timeout: upstream.timeout,
            metrics,
            peer: RwLock::new(None),
            relays: Arc::default(),
        }
    }

    /// Where the progress of the calls in flight goes.
    pub(super) fn relays(&self) -> Arc<Relays> {
        Arc::clone(&self.relays)
    }

    /// Calls go through `peer` from now on.
    pub(super) fn connect(&self, peer: Peer<RoleClient>) {
        *self.peer.write().unwrap_or_else(PoisonError::into_inner) = Some(peer);
    }

    /// Calls fail fast until the next [`Link::connect`].
    pub(super) fn disconnect(&self) {
        *self.peer.write().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// The peer of the current connection; `None` while the upstream is down.
    pub(super) fn peer(&self) -> Option<Peer<RoleClient>> {
        self.peer.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The upstream's name.
    pub(super) fn name(&self) -> &str {
        &self.upstream
    }

    /// The limit of one request to the upstream.
    pub(super) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Counts a call's outcome and hands its result back.
    fn counted(&self, outcome: &'static str, result: ToolResult) -> ToolResult {
        self.metrics.upstream_call(&self.upstream, outcome);
        result
    }

    /// An `upstream_unavailable` failure of `tool`, counted.
    fn unavailable(&self, tool: &str, why: &str, retry: bool) -> ToolResult {
        self.counted("unavailable", unavailable(&self.upstream, tool, why, retry))
    }
}

/// One upstream tool: the upstream's own name for it, and its declared output schema (for the
/// `[]`→`{}` repair).
pub(super) struct UpstreamTool {
    link: Arc<Link>,
    remote: Arc<str>,
    output: Option<Arc<Value>>,
}

impl UpstreamTool {
    /// The tool `remote` of the upstream behind `link`, declaring `output`.
    pub(super) fn new(link: Arc<Link>, remote: String, output: Option<Value>) -> Self {
        Self { link, remote: remote.into(), output: output.map(Arc::new) }
    }
}

impl DynTool for UpstreamTool {
    fn call(&self, arguments: &Value, context: CallContext) -> ToolFuture {
        let (link, remote, output) =
            (Arc::clone(&self.link), Arc::clone(&self.remote), self.output.clone());
        let mut params = CallToolRequestParams::new(remote.to_string());
        if let Value::Object(arguments) = arguments {
            params = params.with_arguments(arguments.clone());
        }
        // The client's progress token stays here; the upstream's progress is routed back to it.
        let progress = context
            .request()
            .and_then(|request| Some((request.peer.clone(), request.meta.get_progress_token()?)));
        // A client in a session may be asked what the upstream asks during the call (2026-07-28
        // has no server-to-client requests: there the upstream's request is declined).
        let asker =
            context.request().filter(|_| !context.revision().is_stateless()).map(|request| Asker {
                client: request.peer.clone(),
                elicitation: context.can_ask(Capability::ElicitationForm),
                sampling: context.can_ask(Capability::Sampling),
            });
        Box::pin(async move {
            let Some(peer) = link.peer() else {
                return Ok(link.unavailable(&remote, "the upstream server is not connected", true));
            };
            let asked = ask(&peer, params, &link.relays, progress, asker);
            let answer = tokio::time::timeout(link.timeout, asked).await;
            Ok(match answer {
                Ok(Ok(result)) => match serde_json::to_value(&result) {
                    Ok(json) => {
                        let converted =
                            super::result::convert(&json, &link.upstream, output.as_deref());
                        if converted.repaired {
                            link.metrics.upstream_repair(&link.upstream);
                            tracing::info!(
                                upstream = %link.upstream,
                                tool = %remote,
                                "read an empty array as the empty object the tool declares"
                            );
                        }
                        let outcome =
                            if result.is_error == Some(true) { "tool_error" } else { "ok" };
                        link.counted(outcome, converted.result)
                    }
                    Err(e) => link.unavailable(
                        &remote,
                        &format!("its answer could not be read ({e})"),
                        false,
                    ),
                },
                Ok(Err(ServiceError::McpError(error))) if error.code.0 == -32602 => link.counted(
                    "invalid_arguments",
                    ToolResult::failure(ToolError::new(
                        ErrorCode::InvalidArguments,
                        error.message.to_string(),
                    )),
                ),
                Ok(Err(ServiceError::McpError(error)))
                    if error.message == super::lines::OVERSIZED =>
                {
                    tracing::warn!(upstream = %link.upstream, tool = %remote, "upstream answered a call with a message over the size limit");
                    link.unavailable(
                        &remote,
                        &format!(
                            "its answer was over the limit of {} MiB for one message",
                            super::connect::MAX_LINE_BYTES >> 20
                        ),
                        false,
                    )
                }
                // Garbage that parsed as a JSON-RPC answer, but not as a tool result: retrying
                // the same call would read the same garbage.
                Ok(Err(ServiceError::UnexpectedResponse)) => {
                    tracing::warn!(upstream = %link.upstream, tool = %remote, "upstream answered a call with something other than a tool result");
                    link.unavailable(&remote, "its answer was not a tool result", false)
                }
                Ok(Err(e)) => {
                    tracing::warn!(upstream = %link.upstream, tool = %remote, error = %e.to_string().escape_debug(), "upstream call failed");
                    match unreadable_http_answer(&e) {
                        Some(why) => link.unavailable(&remote, &why, false),
                        None => {
                            link.unavailable(&remote, "the upstream server did not answer", true)
                        }
                    }
                }
                Err(_) => link.unavailable(
                    &remote,
                    &format!(
                        "the upstream server did not answer within {} ms",
                        link.timeout.as_millis()
                    ),
                    true,
                ),
            })
        })
    }
}

/// Sends `tools/call` and waits for the upstream's result, routing its progress to `progress`
/// meanwhile; dropped before the answer (the limit passed, the client cancelled), it cancels the
/// request at the upstream. An answer that is not a complete result (input required, a task) is
/// not relayed yet: it is read as an unexpected response.
async fn ask(
    peer: &Peer<RoleClient>,
    params: CallToolRequestParams,
    relays: &Arc<Relays>,
    progress: Option<(Peer<RoleServer>, ProgressToken)>,
    asker: Option<Asker>,
) -> Result<CallToolResult, ServiceError> {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = peer.send_request_with_option(request, PeerRequestOptions::no_options()).await?;
    let route =
        progress.map(|(client, token)| relays.route(handle.progress_token.clone(), client, token));
    let _asks = relays.ask_route(handle.id.clone(), asker);
    let mut cancel = CancelOnDrop::new(peer.clone(), handle.id.clone());
    let answer = handle.await_response().await;
    cancel.disarm();
    if let Some(route) = route {
        route.finish().await;
    }
    match answer? {
        ServerResult::CallToolResult(result) => Ok(result),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// Why a Streamable HTTP upstream's answer could not be read, when it came but was too large or
/// not JSON-RPC (asking again would get the same); `None` for any other failure.
fn unreadable_http_answer(error: &ServiceError) -> Option<String> {
    let ServiceError::TransportSend(sent) = error else { return None };
    match sent.error.downcast_ref::<StreamableHttpError<reqwest::Error>>()? {
        StreamableHttpError::ResponseBodyTooLarge { max_size } => {
            Some(format!("its answer was over the limit of {} MiB for one answer", max_size >> 20))
        }
        StreamableHttpError::UnexpectedServerResponse(_)
        | StreamableHttpError::Deserialize(_)
        | StreamableHttpError::UnexpectedContentType(_) => {
            Some("its answer was not a JSON-RPC message".to_owned())
        }
        _ => None,
    }
}

/// An `upstream_unavailable` failure saying whether to retry (never the command line or URL).
fn unavailable(upstream: &str, tool: &str, why: &str, retry: bool) -> ToolResult {
    let advice =
        if retry { "Try again later." } else { "The operator should check the upstream server." };
    ToolResult::failure(ToolError::new(
        ErrorCode::UpstreamUnavailable,
        format!("Tool {tool} of {upstream} is unavailable: {why}. {advice}"),
    ))
}

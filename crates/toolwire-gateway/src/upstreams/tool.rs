//! One upstream tool as the gateway calls it: `tools/call` to the upstream within the
//! upstream's `timeout_ms` (a task it answers with followed to its end, `super::task`), its
//! result turned into a `ToolResult` (`super::result`). Whatever goes wrong on the way is a
//! result the model can act on: the upstream's `-32602` is `invalid_arguments`; a timeout, a
//! lost connection, another JSON-RPC error or a task that failed is `upstream_unavailable`
//! saying whether to retry — never the upstream's URL or command line.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, ErrorData, InputRequiredResult,
    ProgressToken, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, RoleServer, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpError;
use serde_json::Value;
use toolwire_core::input::Capability;
use toolwire_core::{ErrorCode, ToolError, ToolResult};
use toolwire_mcp::{CallContext, DynTool, ToolFuture};

use super::lean::{Called, Lean};
use super::park::{Held, Next, Parked, Running};
use super::relay::{Asker, CancelOnDrop, Client, Relays};
use super::task::{Failure, within};
use crate::config::Upstream;
use crate::metrics::Metrics;

/// The way to an upstream that its tools share: the peer of the current connection (none while
/// it is down), its call limit, where progress goes, and the gateway's metrics.
pub(super) struct Link {
    upstream: String,
    timeout: Duration,
    metrics: Arc<Metrics>,
    peer: RwLock<Option<Peer<RoleClient>>>,
    /// How the current connection's plain calls are made, for an HTTP upstream.
    lean: RwLock<Option<Arc<Lean>>>,
    relays: Arc<Relays>,
    /// Calls waiting for a stateless client's answer to their upstream's question.
    parked: Parked,
}

impl Link {
    /// The link of `upstream`, not connected yet.
    pub(super) fn new(upstream: &Upstream, metrics: Arc<Metrics>) -> Self {
        Self {
            upstream: upstream.name.clone(),
            timeout: upstream.timeout,
            metrics,
            peer: RwLock::new(None),
            lean: RwLock::new(None),
            relays: Arc::default(),
            parked: Parked::default(),
        }
    }

    /// Where the progress of the calls in flight goes.
    pub(super) fn relays(&self) -> Arc<Relays> {
        Arc::clone(&self.relays)
    }

    /// Calls go through `peer` from now on, the plain ones of an HTTP upstream through `lean`.
    pub(super) fn connect(&self, peer: Peer<RoleClient>, lean: Option<Arc<Lean>>) {
        *self.peer.write().unwrap_or_else(PoisonError::into_inner) = Some(peer);
        *self.lean.write().unwrap_or_else(PoisonError::into_inner) = lean;
    }

    /// Calls fail fast until the next [`Link::connect`].
    pub(super) fn disconnect(&self) {
        *self.peer.write().unwrap_or_else(PoisonError::into_inner) = None;
        *self.lean.write().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// How the current connection's plain calls are made; `None` for stdio or while down.
    fn lean(&self) -> Option<Arc<Lean>> {
        self.lean.read().unwrap_or_else(PoisonError::into_inner).clone()
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

    /// The upstream's `CallToolResult` (as JSON) as a `ToolResult`, its `[]`→`{}` repair and
    /// its outcome counted.
    fn converted(&self, tool: &str, output: Option<&Value>, json: &Value) -> ToolResult {
        let converted = super::result::convert(json, &self.upstream, output);
        if converted.repaired {
            self.metrics.upstream_repair(&self.upstream);
            tracing::info!(
                upstream = %self.upstream,
                tool = %tool,
                "read an empty array as the empty object the tool declares"
            );
        }
        let failed = json.get("isError").and_then(Value::as_bool) == Some(true);
        self.counted(if failed { "tool_error" } else { "ok" }, converted.result)
    }

    /// The upstream's request for input, asked of the client as toolwire asks for any tool
    /// (counted); a request toolwire cannot relay is the upstream's failure.
    fn asks(&self, remote: &str, asked: &InputRequiredResult) -> ToolResult {
        match super::input::asked(asked) {
            Ok(result) => self.counted("input_required", result),
            Err(why) => {
                tracing::warn!(upstream = %self.upstream, tool = %remote, why = %why.escape_debug(), "upstream asked for input that cannot be relayed");
                self.unavailable(remote, &why, false)
            }
        }
    }

    /// Waits for what `running` (a call of `remote` for a stateless client) comes to next: its
    /// result, or a question of its upstream, which parks the call and is asked of the client.
    async fn wait(
        &self,
        remote: &str,
        context: &CallContext,
        mut running: Running,
        deadline: Instant,
    ) -> ToolResult {
        loop {
            match running.next().await {
                Next::Done(result) => return *result,
                Next::Lost => {
                    return self.unavailable(remote, "its call ended without a result", true);
                }
                Next::Asks(call, question) => match super::park::asked(&question.request) {
                    Ok(asked) => {
                        let held = Held { running: call, question: *question, asked, deadline };
                        return self.park(remote, context, held);
                    }
                    // The upstream hears why; its call goes on.
                    Err(why) => {
                        let why = format!("the client cannot be asked this: {why}");
                        let _ = question.answer.send(Err(ErrorData::invalid_params(why, None)));
                        running = call;
                    }
                },
            }
        }
    }

    /// Parks `held` for the caller of `context` and says the result asking its question.
    fn park(&self, remote: &str, context: &CallContext, held: Held) -> ToolResult {
        match self.parked.park(context.principal().name(), context.tool(), held) {
            Ok(asks) => self.counted("input_required", asks),
            Err(error) => {
                tracing::warn!(upstream = %self.upstream, tool = %remote, %error, "a call could not be parked");
                self.unavailable(remote, "the gateway could not hold the call for the answer", true)
            }
        }
    }

    /// The retry of the call parked under `token`: the client's answer goes to the upstream,
    /// and the call is waited for again. A call not held here (expired, parked on another node,
    /// another caller's) is `upstream_unavailable`; a retry without the answer is asked again.
    async fn resume(&self, remote: &str, token: &str, context: &CallContext) -> ToolResult {
        let Some(held) = self.parked.take(token, context.principal().name(), context.tool()) else {
            let why = "this gateway holds no call waiting for the answer (it expired, or the answer reached another node than the call); call the tool again without requestState";
            return self.unavailable(remote, why, true);
        };
        let Some(response) = super::park::response(context.input()) else {
            return self.park(remote, context, held);
        };
        let deadline = held.deadline;
        let running = held.answer(response);
        self.wait(remote, context, running, deadline).await
    }

    /// What the model reads of a call that brought no result, counted.
    fn failed(&self, remote: &str, failure: Failure) -> ToolResult {
        let upstream = &self.upstream;
        match failure {
            Failure::Service(ServiceError::McpError(error)) if error.code.0 == -32602 => self
                .counted(
                    "invalid_arguments",
                    ToolResult::failure(ToolError::new(
                        ErrorCode::InvalidArguments,
                        error.message.to_string(),
                    )),
                ),
            Failure::Service(ServiceError::McpError(error))
                if error.message == super::lines::OVERSIZED =>
            {
                tracing::warn!(upstream = %upstream, tool = %remote, "upstream answered a call with a message over the size limit");
                let why = format!(
                    "its answer was over the limit of {} MiB for one message",
                    super::connect::MAX_LINE_BYTES >> 20
                );
                self.unavailable(remote, &why, false)
            }
            // Garbage that parsed as a JSON-RPC answer, but not as a tool result: retrying
            // the same call would read the same garbage.
            Failure::Service(ServiceError::UnexpectedResponse) => {
                tracing::warn!(upstream = %upstream, tool = %remote, "upstream answered a call with something other than a tool result");
                self.unavailable(remote, "its answer was not a tool result", false)
            }
            // It answered, with an error: asking the same again would get the same.
            Failure::Service(ServiceError::McpError(error)) => {
                tracing::warn!(upstream = %upstream, tool = %remote, code = error.code.0, error = %error.message.escape_debug(), "upstream refused a call");
                let why = format!("the upstream server refused the call: {}", said(&error.message));
                self.unavailable(remote, &why, false)
            }
            Failure::Service(e) => {
                tracing::warn!(upstream = %upstream, tool = %remote, error = %e.to_string().escape_debug(), "upstream call failed");
                match unreadable_http_answer(&e) {
                    Some(why) => self.unavailable(remote, &why, false),
                    None => self.unavailable(remote, "the upstream server did not answer", true),
                }
            }
            Failure::Timeout => {
                let why = format!(
                    "the upstream server did not answer within {} ms",
                    self.timeout.as_millis()
                );
                self.unavailable(remote, &why, true)
            }
            Failure::Failed(message) => {
                tracing::warn!(upstream = %upstream, tool = %remote, error = %message.escape_debug(), "upstream task failed");
                self.unavailable(
                    remote,
                    &format!("its task at the upstream server failed ({message})"),
                    false,
                )
            }
            Failure::Cancelled => {
                self.unavailable(remote, "the upstream server cancelled its task", true)
            }
            Failure::Lost(message) => {
                tracing::warn!(upstream = %upstream, tool = %remote, error = %message.escape_debug(), "upstream task could not be polled");
                self.unavailable(
                    remote,
                    &format!(
                        "the upstream server answered a poll of its task with an error ({message})"
                    ),
                    true,
                )
            }
            Failure::Unreadable(why) => {
                tracing::warn!(upstream = %upstream, tool = %remote, why = %why, "upstream answered a call with something unreadable");
                self.unavailable(remote, &why, false)
            }
            Failure::InputRequired => self.unavailable(
                remote,
                "the upstream server asked for input inside its task, which toolwire cannot relay yet",
                false,
            ),
        }
    }
}

/// One upstream tool: the upstream's own name for it, its declared output schema (for the
/// `[]`→`{}` repair), and whether its calls may go the lean way (`super::lean`).
pub(super) struct UpstreamTool {
    link: Arc<Link>,
    remote: Arc<str>,
    output: Option<Arc<Value>>,
    lean: bool,
}

impl UpstreamTool {
    /// The tool `remote` of the upstream behind `link`, taking `input` and declaring `output`.
    pub(super) fn new(
        link: Arc<Link>,
        remote: String,
        input: &serde_json::Map<String, Value>,
        output: Option<Value>,
    ) -> Self {
        // Arguments an `x-mcp-header` annotation names go in headers too, which rmcp writes.
        let lean = !mentions(input, "x-mcp-header");
        Self { link, remote: remote.into(), output: output.map(Arc::new), lean }
    }
}

/// Whether `key` is a key anywhere in `object`.
fn mentions(object: &serde_json::Map<String, Value>, key: &str) -> bool {
    object.iter().any(|(k, value)| {
        k == key
            || match value {
                Value::Object(inner) => mentions(inner, key),
                Value::Array(items) => items.iter().any(|item| match item {
                    Value::Object(inner) => mentions(inner, key),
                    _ => false,
                }),
                _ => false,
            }
    })
}

impl DynTool for UpstreamTool {
    fn call(&self, arguments: &Value, context: CallContext) -> ToolFuture {
        let (link, remote, output) =
            (Arc::clone(&self.link), Arc::clone(&self.remote), self.output.clone());
        // The retry of a call parked for a stateless client's answer continues it.
        if let Some(token) = super::park::token(context.input().state()) {
            let token = token.to_owned();
            return Box::pin(async move { Ok(link.resume(&remote, &token, &context).await) });
        }
        let mut params = CallToolRequestParams::new(remote.to_string());
        if let Value::Object(arguments) = arguments {
            params = params.with_arguments(arguments.clone());
        }
        // The retry of a call the upstream asked input for carries the answers and its state.
        let params = super::input::answered(params, context.input());
        // The client's progress token stays here; the upstream's progress is routed back to it.
        let progress = context
            .request()
            .and_then(|request| Some((request.peer.clone(), request.meta.get_progress_token()?)));
        // What the upstream asks during the call goes to a client that declared it can be
        // asked: over its session, or (a stateless 2026-07-28 client, outside a task) as input
        // required while the call is parked; else the upstream's request is declined.
        let (elicitation, sampling) =
            (context.can_ask(Capability::ElicitationForm), context.can_ask(Capability::Sampling));
        let (client, questions) = if !context.revision().is_stateless() {
            let session = context.request().map(|request| Client::Session(request.peer.clone()));
            (session, None)
        } else if (elicitation || sampling) && !context.in_task() {
            let (sender, questions) = super::park::questions();
            (Some(Client::Parked(sender)), Some(questions))
        } else {
            (None, None)
        };
        let asker = client.map(|client| Asker { client, elicitation, sampling });
        // The lean way relays nothing: a call whose client wants progress or can be asked, or
        // that brings answers back, goes through rmcp.
        let lean = (self.lean
            && progress.is_none()
            && !elicitation
            && !sampling
            && context.input().is_empty())
        .then(|| link.lean())
        .flatten();
        Box::pin(async move {
            let Some(peer) = link.peer() else {
                return Ok(link.unavailable(&remote, "the upstream server is not connected", true));
            };
            let deadline = Instant::now() + link.timeout;
            let call = {
                let (link, remote, context) =
                    (Arc::clone(&link), Arc::clone(&remote), context.clone());
                async move {
                    // In a gateway task, an upstream task is waited for as long as the gateway
                    // task lives, each request within the limit; a call answered in its request
                    // has the limit all told (as app tools that answer 202 do).
                    // Boxed: moved into place, the relay's state would be copied whole.
                    let answer = if context.in_task() {
                        let each = Some(link.timeout);
                        let call = Call { params, progress, asker, lean };
                        Box::pin(relay(&link, &peer, call, &context, each)).await
                    } else {
                        let call = Call { params, progress, asker, lean };
                        let relayed = Box::pin(relay(&link, &peer, call, &context, None));
                        tokio::time::timeout(link.timeout, relayed)
                            .await
                            .unwrap_or(Err(Failure::Timeout))
                    };
                    match answer {
                        Ok(Relayed::Result(json)) => {
                            link.converted(&remote, output.as_deref(), &json)
                        }
                        Ok(Relayed::Asks(asked)) => link.asks(&remote, &asked),
                        Err(failure) => link.failed(&remote, failure),
                    }
                }
            };
            // A call that may be parked runs in a task of its own, which outlives this request.
            Ok(match questions {
                Some(questions) => {
                    let running = Running::spawn(questions, call);
                    link.wait(&remote, &context, running, deadline).await
                }
                None => call.await,
            })
        })
    }
}

/// What a call at the upstream came to.
enum Relayed {
    /// Its `CallToolResult`, as JSON.
    Result(Value),
    /// The upstream asks for input first (2026-07-28's `InputRequiredResult`).
    Asks(Box<InputRequiredResult>),
}

/// What one call sends, and how: the client's progress token and who may be asked on its
/// behalf, and the lean way when the call may take it.
struct Call {
    params: CallToolRequestParams,
    progress: Option<(Peer<RoleServer>, ProgressToken)>,
    asker: Option<Asker>,
    lean: Option<Arc<Lean>>,
}

/// One call at the upstream to its end, each request within `each` (none: the caller bounds
/// the whole): the `tools/call` (the lean way when it may, else `ask`), then the upstream's
/// task when it answers with one (`super::task::follow`); a 2025-11-25 upstream that refuses
/// the call for want of a task is asked once more for one (`super::task::follow_core`).
async fn relay(
    link: &Link,
    peer: &Peer<RoleClient>,
    call: Call,
    context: &CallContext,
    each: Option<Duration>,
) -> Result<Relayed, Failure> {
    let Call { params, progress, asker, lean } = call;
    let mut answer = None;
    if let Some(lean) = lean {
        let called = lean.call(&params.name, params.arguments.as_ref());
        let called = match each {
            Some(limit) => {
                tokio::time::timeout(limit, called).await.map_err(|_| Failure::Timeout)?
            }
            None => called.await,
        };
        match called {
            Called::Complete(json) => return Ok(Relayed::Result(json)),
            Called::Typed(typed) => answer = Some((*typed).map_err(Failure::Service)),
            Called::Unreadable(why) => return Err(Failure::Unreadable(why)),
            Called::Missed(why) => {
                tracing::debug!(upstream = %link.upstream, why = %why.escape_debug(), "a lean call got no answer; calling through rmcp");
            }
        }
    }
    let mut answer = match answer {
        Some(answer) => answer,
        None => {
            let call = ClientRequest::CallToolRequest(CallToolRequest::new(params.clone()));
            // Boxed: rmcp's request would make every lean call's state its size.
            let asked = Box::pin(ask(peer, call, &link.relays, progress.clone(), asker.clone()));
            within(each, asked).await
        }
    };
    if super::task::needs_core_task(peer, &answer) {
        let call = super::task::core_task_call(&params)?;
        answer = within(each, Box::pin(ask(peer, call, &link.relays, progress, asker))).await;
    }
    let json = match answer? {
        ServerResult::CallToolResult(result) => {
            // A typed result always serializes; the failure is read as the garbage it would be.
            serde_json::to_value(&result)
                .map_err(|_| Failure::Service(ServiceError::UnexpectedResponse))
        }
        // Boxed, as the request above: following a task is rare and its state large.
        ServerResult::CreateTaskResult(task) => {
            Box::pin(super::task::follow(peer, task, context, each, link.timeout)).await
        }
        ServerResult::InputRequiredResult(asked) => return Ok(Relayed::Asks(Box::new(asked))),
        // A 2025-11-25 task (`{task: {…}}`), which rmcp leaves untyped.
        ServerResult::CustomResult(created) if created.0.get("task").is_some() => {
            Box::pin(super::task::follow_core(peer, &created.0, context, each, link.timeout)).await
        }
        _ => Err(Failure::Service(ServiceError::UnexpectedResponse)),
    };
    json.map(Relayed::Result)
}

/// Sends `request` (a `tools/call`) and waits for the upstream's answer — a result, a task or
/// something else — routing its progress to `progress` meanwhile; dropped before the answer (the
/// limit passed, the client cancelled), it cancels the request at the upstream.
async fn ask(
    peer: &Peer<RoleClient>,
    request: ClientRequest,
    relays: &Arc<Relays>,
    progress: Option<(Peer<RoleServer>, ProgressToken)>,
    asker: Option<Asker>,
) -> Result<ServerResult, ServiceError> {
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
    answer
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

/// The most characters of an upstream's error message the model reads.
const SAID_LIMIT: usize = 200;

/// An upstream's error message as the model reads it: on one line (a newline or a tab is a
/// space), without control characters (a terminal escape), cut to [`SAID_LIMIT`] characters.
fn said(message: &str) -> String {
    let line: String = message
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|c| !c.is_control())
        .collect();
    let line = line.trim();
    match line.char_indices().nth(SAID_LIMIT) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use rmcp::model::{ErrorCode as RpcCode, ErrorData};

    use super::*;
    use crate::config::UpstreamTransport;

    fn link() -> Link {
        let upstream = Upstream {
            name: "shop".into(),
            transport: UpstreamTransport::Stdio {
                program: "shop-server".into(),
                args: Vec::new(),
                env: BTreeMap::new(),
            },
            tool_prefix: String::new(),
            tools: None,
            outputs: BTreeMap::new(),
            privileges: Vec::new(),
            timeout: Duration::from_secs(1),
        };
        Link::new(&upstream, Arc::new(Metrics::new()))
    }

    fn text(result: &ToolResult) -> String {
        result.error().map(|error| error.message.clone()).unwrap_or_default()
    }

    #[test]
    fn an_upstream_error_says_it_refused_the_call_without_advising_a_retry() {
        let error = ErrorData::new(RpcCode(-32603), "stock\u{1b}[31m\nservice is\tdown", None);
        let failed = link().failed("order", Failure::Service(ServiceError::McpError(error)));
        assert_eq!(
            text(&failed),
            "Tool order of shop is unavailable: the upstream server refused the call: stock[31m service is down. The operator should check the upstream server."
        );

        // A long message is cut.
        let error = ErrorData::new(RpcCode(-32000), "x".repeat(500), None);
        let failed = link().failed("order", Failure::Service(ServiceError::McpError(error)));
        let said = format!("the upstream server refused the call: {}…. ", "x".repeat(SAID_LIMIT));
        assert!(text(&failed).contains(&said), "{}", text(&failed));

        // `-32602` stays the caller's arguments.
        let error = ErrorData::invalid_params("qty must be positive", None);
        let failed = link().failed("order", Failure::Service(ServiceError::McpError(error)));
        assert_eq!(text(&failed), "qty must be positive");
    }
}

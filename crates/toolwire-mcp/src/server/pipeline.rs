//! The call pipeline of one `tools/call`: find the tool, check privileges and arguments, run it
//! (panics caught), render the result for the request's revision and host, offload it when it
//! is over the limit, and log and report how the call ended.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt as _;
use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CallToolResponse};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use toolwire_core::host::{HostProfile, READ_RESULT_TOOL};
use toolwire_core::{
    McpRevision, NeedsOffload, Output, Query, RenderContext, Rendered, Target, Timestamp,
    ToolError, ToolResult,
};
use toolwire_store::OffloadOptions;

use super::handler::{McpServer, principal_of, revision_of};
use super::handoff::call_tool_response;
use super::state::{Gateway, GatewayConfig};
use crate::catalog::Entry;
use crate::hosts;
use crate::observe::{CallOutcome, CallRecord, OffloadRecord};
use crate::registry::{CallContext, Principal, RegisteredTool};
use crate::work::Work;

fn now() -> Timestamp {
    Timestamp::from_datetime(chrono::Utc::now())
}

fn invalid_arguments(tool: &str, violations: Vec<(String, String)>) -> ToolResult {
    let listed: Vec<String> = violations
        .iter()
        .map(
            |(path, message)| {
                if path.is_empty() { message.clone() } else { format!("{path}: {message}") }
            },
        )
        .collect();
    ToolResult::failure(ToolError::invalid_arguments(
        format!("Invalid arguments for {tool}: {}", listed.join("; ")),
        violations,
    ))
}

impl McpServer {
    pub(crate) async fn run_tool(
        &self,
        tool: &RegisteredTool,
        arguments: &Value,
        context: CallContext,
    ) -> Result<ToolResult, ErrorData> {
        let name = &tool.spec.name;
        let missing = context.principal.missing(tool.spec.privileges.iter().map(String::as_str));
        if !missing.is_empty() {
            return Ok(ToolResult::failure(ToolError::missing_privilege(missing)));
        }
        let violations = tool.input.violations(arguments);
        if !violations.is_empty() {
            return Ok(invalid_arguments(name, violations));
        }
        let handler = tool.handler.clone();
        let internal = |why: &str| internal(name, why);
        let future =
            match std::panic::catch_unwind(AssertUnwindSafe(|| handler.call(arguments, context))) {
                Ok(future) => future,
                Err(_) => return Err(internal("panicked")),
            };
        let result = match AssertUnwindSafe(future).catch_unwind().await {
            Ok(Ok(result)) => result,
            Ok(Err(error)) => return Err(internal(&error.to_string())),
            Err(_) => return Err(internal("panicked")),
        };
        Ok(result)
    }

    /// Renders through the mapper for `revision` (a large result on the blocking pool, DESIGN
    /// §12); over the limit, stores the v1 bytes bound to `principal` and finishes the render
    /// with the signed link. The result moves into the mapper's typed output (nothing is copied
    /// for rmcp); over the limit it is held through the offload, in place of the full text.
    async fn render(
        &self,
        tool: &Arc<RegisteredTool>,
        result: ToolResult,
        Audience { revision, host }: Audience<'_>,
        principal: &Principal,
        query: Query,
        request_state: Option<String>,
    ) -> Result<Output, ErrorData> {
        let gateway = Arc::clone(&self.gateway);
        let placed_tool = Arc::clone(tool);
        // The host's cap for this tool follows the size opt-in it was shown, if any.
        let host = host.for_tool(tool.spec.max_result_chars).into_owned();
        let large = crate::work::is_large(&result);
        let rendered = Work::placed(&self.gateway.config.work, large, move || {
            let audience = Audience { revision, host: &host };
            render_now(&gateway, &placed_tool, result, audience, query, request_state.as_deref())
        })
        .await
        .map_err(|e| internal(&tool.spec.name, &e.to_string()))?;
        let rendered = rendered.map_err(|e| internal(&tool.spec.name, &e.to_string()))?;
        let output = match rendered {
            Rendered::Complete(output) => output,
            Rendered::NeedsOffload(needs) => {
                offload(&self.gateway.config, &tool.spec.name, needs, principal).await?
            }
        };
        for warning in output.warnings() {
            tracing::warn!(tool = %tool.spec.name, %warning, "render warning");
        }
        Ok(output)
    }
}

impl McpServer {
    /// Renders `result` of `tool` for `revision` and `host` as [`McpServer::render`] does (a
    /// task's result, fetched after its call).
    pub(crate) async fn render_for(
        &self,
        tool: &Arc<RegisteredTool>,
        result: ToolResult,
        revision: McpRevision,
        host: &HostProfile,
        principal: &Principal,
        query: Query,
    ) -> Result<Output, ErrorData> {
        self.render(tool, result, Audience { revision, host }, principal, query, None).await
    }
}

/// Stores an over-limit result of `tool` for `principal` and finishes the render with its link
/// (or inline / as a failure when storing failed, as configured), telling the observer.
pub(crate) async fn offload(
    config: &GatewayConfig,
    tool: &str,
    needs: NeedsOffload,
    principal: &Principal,
) -> Result<Output, ErrorData> {
    let options = OffloadOptions::new(principal.name())
        .ttl(config.link_ttl)
        .fallback(config.offload_fallback);
    let bytes = needs.size();
    let offloaded = toolwire_store::offload(&config.stored, needs, &options)
        .await
        .map_err(|e| internal(tool, &e.to_string()))?;
    if let Some(error) = &offloaded.store_error {
        tracing::error!(%tool, %error, "could not store an over-limit result");
    }
    if let Some(observer) = &config.observer {
        let store_error = offloaded.store_error.as_ref();
        observer.offload(&OffloadRecord { tool, bytes, store_error });
    }
    Ok(offloaded.output)
}

/// A client-chosen name as it goes into a log line: with a control character (a newline, an
/// escape sequence) it is escaped, so it cannot forge or recolour log lines.
fn log_safe(name: &str) -> std::borrow::Cow<'_, str> {
    if name.chars().any(char::is_control) {
        std::borrow::Cow::Owned(name.escape_debug().to_string())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

impl McpServer {
    /// The answer to one `tools/call` (the body of [`rmcp::ServerHandler::call_tool`]).
    pub(super) async fn answer_call(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Instant::now();
        let revision = revision_of(&ctx)?;
        let name = request.name.to_string();
        let host = hosts::host_of(&ctx, &self.gateway.config.hosts);
        if name == READ_RESULT_TOOL && self.offers_read_result(host) {
            return Box::pin(self.read_result(request, &ctx, revision, host)).await;
        }
        let Some(Entry { tool, source }) = self.gateway.catalog.get(&name) else {
            tracing::info!(tool = %log_safe(&name), revision = revision.as_str(), outcome = "unknown_tool", "tools/call");
            let call = Call { tool: &name, source: "", revision, started };
            self.observe(&call, CallOutcome::UnknownTool, None);
            return Err(ErrorData::invalid_params(format!("Unknown tool: {name}"), None));
        };
        if let Some(guard) = &self.extensions.guard {
            guard.check(&name, &ctx)?;
        }
        let principal = principal_of(&ctx, &self.gateway);
        let mut request = request;
        let arguments = Value::Object(request.arguments.take().unwrap_or_default());
        let rounds =
            crate::input::Rounds::open(self, &ctx, &request, revision, &principal, &arguments)?;
        let as_task = crate::tasks::as_task(tool.spec.task_support, revision, &ctx)?;
        let context = CallContext::new(&name, principal.clone(), revision, ctx.id.to_string())
            .with_asks(rounds.asks())
            .with_input(rounds.round());
        let call = Call { tool: &name, source: &source, revision, started };
        if as_task {
            let started_task = self.start_task(Arc::clone(&tool), arguments.clone(), context).await;
            match started_task {
                Ok(crate::tasks::Started::Created(created)) => {
                    tracing::info!(
                        tool = %log_safe(&name),
                        revision = revision.as_str(),
                        outcome = "task",
                        task = %created.task.task_id,
                        duration_ms = started.elapsed().as_millis() as u64,
                        "tools/call"
                    );
                    self.observe(&call, CallOutcome::Task, None);
                    return Ok(CallToolResponse::Task(*created));
                }
                Ok(crate::tasks::Started::Answered(result)) => {
                    let result = crate::input::checked(*result, rounds.asks());
                    let sealed = rounds.seal(&result)?;
                    let audience = Audience { revision, host };
                    return self
                        .answer(result, &tool, &call, audience, &principal, arguments, sealed)
                        .await;
                }
                Err(error) => {
                    self.observe(&call, CallOutcome::InternalError, None);
                    return Err(error);
                }
            }
        }
        let context = context.with_request(ctx);
        // A place among the large calls that the tool takes lasts until its result is rendered.
        let _places = context.places().clone();
        let result = match rounds.run(self, &tool, &arguments, context).await {
            Ok(result) => result,
            Err(error) => {
                tracing::info!(
                    tool = %log_safe(&name),
                    revision = revision.as_str(),
                    outcome = "internal_error",
                    duration_ms = started.elapsed().as_millis() as u64,
                    "tools/call"
                );
                self.observe(&call, CallOutcome::InternalError, None);
                return Err(error);
            }
        };
        let sealed = rounds.seal(&result)?;
        let audience = Audience { revision, host };
        self.answer(result, &tool, &call, audience, &principal, arguments, sealed).await
    }

    /// The answer to a call whose tool answered `result`: rendered for its audience, offloaded
    /// when over the limit, logged and observed.
    #[allow(clippy::too_many_arguments)]
    async fn answer(
        &self,
        result: ToolResult,
        tool: &Arc<RegisteredTool>,
        call: &Call<'_>,
        audience: Audience<'_>,
        principal: &Principal,
        arguments: Value,
        sealed: Option<String>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (name, revision, started) = (call.tool, audience.revision, call.started);
        let legacy = matches!(result.provenance(), toolwire_core::Provenance::LegacyEnvelope(_));
        if legacy {
            let count = self.gateway.legacy.bump();
            tracing::info!(tool = %log_safe(name), legacy_results = count, "served a hand-built legacy result");
        }
        let code = result.error().map(|error| error.code.clone());
        let query = Query::new(name, arguments);
        let outcome = self.render(tool, result, audience, principal, query, sealed).await?;
        // Still asking after the mapper (which down-levels where the revision cannot ask):
        // an `InputRequiredResult`.
        if outcome.mcp().is_some_and(|typed| typed.tool_result().is_input_required()) {
            tracing::info!(
                tool = %log_safe(name),
                revision = revision.as_str(),
                outcome = "input_required",
                bytes = outcome.size(),
                duration_ms = started.elapsed().as_millis() as u64,
                "tools/call"
            );
            self.observe(call, CallOutcome::InputRequired, Some((&outcome, legacy)));
            return call_tool_response(outcome).map_err(|why| internal(name, &why));
        }
        let label = match (&code, outcome.is_error()) {
            (Some(code), _) => CallOutcome::Error(code),
            (None, true) => CallOutcome::Failure,
            (None, false) => CallOutcome::Success,
        };
        tracing::info!(
            tool = %log_safe(name),
            revision = revision.as_str(),
            outcome = %label,
            bytes = outcome.size(),
            offloaded = outcome.offloaded(),
            duration_ms = started.elapsed().as_millis() as u64,
            "tools/call"
        );
        self.observe(call, label, Some((&outcome, legacy)));
        call_tool_response(outcome).map_err(|why| internal(name, &why))
    }

    /// Tells the configured observer how a call ended (`rendered`: the output and whether it
    /// came from a hand-built legacy string).
    fn observe(
        &self,
        call: &Call<'_>,
        outcome: CallOutcome<'_>,
        rendered: Option<(&Output, bool)>,
    ) {
        if let Some(observer) = &self.gateway.config.observer {
            let Call { tool, source, revision, started } = *call;
            observer.call(&CallRecord {
                tool,
                source,
                revision,
                outcome,
                bytes: rendered.map_or(0, |(output, _)| output.size()),
                offloaded: rendered.is_some_and(|(output, _)| output.offloaded()),
                legacy: rendered.is_some_and(|(_, legacy)| legacy),
                duration: started.elapsed(),
            });
        }
    }

    /// Whether `host` is offered `read_result` (it cannot follow links, and no registered
    /// tool has that name).
    pub(super) fn offers_read_result(&self, host: &HostProfile) -> bool {
        !host.reads_links && !self.gateway.catalog.contains(READ_RESULT_TOOL)
    }

    async fn read_result(
        &self,
        request: CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
        revision: McpRevision,
        host: &HostProfile,
    ) -> Result<CallToolResponse, ErrorData> {
        let principal = principal_of(ctx, &self.gateway);
        let arguments = request.arguments.unwrap_or_default();
        let config = &self.gateway.config;
        let output =
            hosts::read_result(config, &arguments, principal.name(), revision, host, now())
                .await
                .map_err(|why| internal(READ_RESULT_TOOL, &why))?;
        call_tool_response(output).map_err(|why| internal(READ_RESULT_TOOL, &why))
    }
}

/// The call being answered, as the observer is told of it.
#[derive(Clone, Copy)]
struct Call<'a> {
    tool: &'a str,
    source: &'a str,
    revision: McpRevision,
    started: Instant,
}

/// Who a result is rendered for: the request's revision and the host profile of its client.
#[derive(Clone, Copy)]
struct Audience<'a> {
    revision: McpRevision,
    host: &'a HostProfile,
}

/// One render through the gateway's mapper, wherever it runs.
fn render_now(
    gateway: &Gateway,
    tool: &RegisteredTool,
    result: ToolResult,
    Audience { revision, host }: Audience<'_>,
    query: Query,
    request_state: Option<&str>,
) -> Result<Rendered, toolwire_core::RenderError> {
    let config = &gateway.config;
    let input_schema = tool.spec.input_schema.as_ref().unwrap_or(&Value::Null);
    let mut cx = RenderContext::new(&tool.spec.name, now())
        .output(&tool.output)
        .input_schema(input_schema)
        .query(query)
        .host(host);
    if let Some(sealed) = request_state {
        cx = cx.request_state(sealed);
    }
    config.mapper.render_owned(result, Target::Mcp(revision), config.phase, &cx)
}

pub(crate) fn internal(tool: &str, why: &str) -> ErrorData {
    tracing::error!(%tool, reason = %why, "tool call failed with an internal error");
    ErrorData::internal_error(format!("tool {tool} failed with an internal error"), None)
}

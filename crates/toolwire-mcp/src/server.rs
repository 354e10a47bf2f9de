//! The gateway state and the hand-written rmcp `ServerHandler` over it.
//!
//! rmcp's HTTP service builds a handler for every POST and asks `get_tool` on every call, so
//! [`McpServer`] is one `Arc` clone and everything else was built at registration.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::FutureExt as _;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CustomRequest, CustomResult,
    Implementation, InputRequiredResult, JsonObject, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, MetaObject, PaginatedRequestParams, PromptsCapability,
    ReadResourceRequestParams, ReadResourceResponse, ResourceContents, ResourcesCapability,
    ResultType, ServerCapabilities, ServerConfig, ToolsCapability,
};
#[allow(deprecated)]
// logging (SetLevelRequestParams) is deprecated by SEP-2577; the suite tests it
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{MaybeSendFuture, RequestContext, RoleServer};
use serde_json::{Value, json};
use toolwire_core::host::{HostProfile, HostProfiles, READ_RESULT_TOOL};
use toolwire_core::mcp::{ContentBlock, McpResult};
use toolwire_core::{
    MapperConfig, McpRevision, NeedsOffload, Output, OutputMapper, Phase, Query, RenderContext,
    Rendered, Target, Timestamp, ToolError, ToolResult,
};
use toolwire_store::{
    KeyError, KeySet, LinkSigner, MemoryStore, OffloadFallback, OffloadOptions, ReadError,
    StoredResults,
};

use crate::extend::{CallGuard, Completion, Logging, Prompts, Resources, Subscriptions};
use crate::hosts;
use crate::observe::{CallObserver, CallRecord, OffloadRecord};
use crate::registry::{CallContext, Principal, RegisteredTool, Registry};
use crate::work::Work;

/// The template of stored-result links (`resources/templates/list`).
pub const STORED_RESULT_TEMPLATE: &str = toolwire_store::URI_TEMPLATE;

/// How the gateway renders, stores and names itself.
#[non_exhaustive]
#[derive(Clone)]
pub struct GatewayConfig {
    /// `compat` (envelope first, default) or `spec`.
    pub phase: Phase,
    /// The mapper: `_meta` prefix, limits per target, validation mode, and the server's name
    /// and version, for results and for `initialize` and `server/discover` alike.
    pub mapper: OutputMapper,
    /// How long stored results stay readable.
    pub link_ttl: Duration,
    /// What an over-limit result becomes when the store fails: a `tool_error` failure
    /// (`Fail`, default) or sent inline with a warning (`Inline`).
    pub offload_fallback: OffloadFallback,
    /// The principal of a request that carries none (stdio, or HTTP without authentication).
    pub default_principal: Principal,
    /// Where results over the limit are stored, and the signer of their links.
    pub stored: StoredResults,
    /// Told about every finished `tools/call` (metrics).
    pub observer: Option<Arc<dyn CallObserver>>,
    /// The host profiles requests are rendered for, picked by `clientInfo.name` (DESIGN §11).
    pub hosts: HostProfiles,
    /// This gateway's work limits (DESIGN §12): large renders and large answers wait for one of
    /// its places. Tools that read large answers themselves (app tools) take a clone of it.
    pub work: Work,
}

impl GatewayConfig {
    /// Compat phase, the default mapper, one-hour links, anonymous callers, one place per core
    /// for large work, and `stored`.
    pub fn new(stored: StoredResults) -> Self {
        Self {
            phase: Phase::Compat,
            mapper: OutputMapper::new(MapperConfig::default()),
            link_ttl: Duration::from_secs(3600),
            offload_fallback: OffloadFallback::Fail,
            default_principal: Principal::anonymous(),
            stored,
            observer: None,
            hosts: HostProfiles::builtin(),
            work: Work::default(),
        }
    }

    /// Like [`GatewayConfig::new`] with results kept in process memory under a fresh random key
    /// (examples and tests; links die with the process).
    pub fn in_memory() -> Result<Self, KeyError> {
        let signer = LinkSigner::new(KeySet::generate()?);
        Ok(Self::new(StoredResults::new(Arc::new(MemoryStore::new()), signer)))
    }

    /// With the server's name and version: the one setting behind `serverInfo` everywhere.
    pub fn server_info(mut self, name: &str, version: &str) -> Self {
        let mapper = self.mapper.config().clone().with_server_info(name, version);
        self.mapper = OutputMapper::new(mapper);
        self
    }
}

impl GatewayConfig {
    /// The `resources/read` result of a stored result's `uri`, read now by `principal`.
    pub(crate) async fn read_stored(
        &self,
        uri: &str,
        principal: &str,
        revision: McpRevision,
    ) -> Result<toolwire_store::ReadResourceResult, ReadError> {
        toolwire_store::read_resource(&self.stored, uri, principal, revision, chrono::Utc::now())
            .await
    }
}

impl std::fmt::Debug for GatewayConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatewayConfig")
            .field("phase", &self.phase)
            .field("mapper", &self.mapper)
            .field("link_ttl", &self.link_ttl)
            .field("offload_fallback", &self.offload_fallback)
            .field("default_principal", &self.default_principal)
            .field("stored", &self.stored)
            .field("observer", &self.observer)
            .field("hosts", &self.hosts)
            .field("work", &self.work)
            .finish()
    }
}

/// Counts results that came from hand-built legacy strings, so a team sees how many remain.
#[derive(Debug, Default)]
pub struct LegacyCounter(AtomicU64);

impl LegacyCounter {
    /// The count so far.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    fn bump(&self) -> u64 {
        self.0.fetch_add(1, Ordering::Relaxed) + 1
    }
}

/// Tools, configuration and counters, shared by every handler clone.
#[derive(Debug)]
pub struct Gateway {
    registry: Registry,
    config: GatewayConfig,
    info: ServerConfig,
    legacy: LegacyCounter,
}

impl Gateway {
    /// A gateway serving `registry`.
    pub fn new(registry: Registry, config: GatewayConfig) -> Arc<Self> {
        let named = config.mapper.config();
        let info = ServerConfig::new(Extensions::default().capabilities())
            .with_server_info(Implementation::new(named.server_name(), named.server_version()));
        Arc::new(Self { registry, config, info, legacy: LegacyCounter::default() })
    }

    /// The tools.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The configuration.
    pub fn config(&self) -> &GatewayConfig {
        &self.config
    }

    /// How many hand-built legacy results were served.
    pub fn legacy_results(&self) -> u64 {
        self.legacy.get()
    }
}

/// The rmcp handler: a cheap clone of an `Arc<Gateway>` and of its extensions.
#[derive(Debug, Clone)]
pub struct McpServer {
    gateway: Arc<Gateway>,
    extensions: Arc<Extensions>,
}

impl McpServer {
    /// A handler over `gateway`, serving its tools and stored results and nothing else until
    /// extensions are added ([`crate::extend`]).
    pub fn new(gateway: Arc<Gateway>) -> Self {
        Self { gateway, extensions: Arc::default() }
    }

    /// The gateway.
    pub fn gateway(&self) -> &Arc<Gateway> {
        &self.gateway
    }

    /// The same server, also serving `resources` (replacing any set before).
    pub fn with_resources(self, resources: impl Resources) -> Self {
        self.extended(|extensions| extensions.resources = Some(Arc::new(resources)))
    }

    /// The same server, serving `prompts` (announces `prompts`).
    pub fn with_prompts(self, prompts: impl Prompts) -> Self {
        self.extended(|extensions| extensions.prompts = Some(Arc::new(prompts)))
    }

    /// The same server, answering `completion/complete` with `completion` (announces
    /// `completions`).
    pub fn with_completion(self, completion: impl Completion) -> Self {
        self.extended(|extensions| extensions.completion = Some(Arc::new(completion)))
    }

    /// The same server, accepting resource subscriptions (announces `resources.subscribe`).
    pub fn with_subscriptions(self, subscriptions: impl Subscriptions) -> Self {
        self.extended(|extensions| extensions.subscriptions = Some(Arc::new(subscriptions)))
    }

    /// The same server, taking `logging/setLevel` (announces `logging`).
    pub fn with_logging(self, logging: impl Logging) -> Self {
        self.extended(|extensions| extensions.logging = Some(Arc::new(logging)))
    }

    /// The same server, running `guard` before every tool call.
    pub fn with_call_guard(self, guard: impl CallGuard) -> Self {
        self.extended(|extensions| extensions.guard = Some(Arc::new(guard)))
    }

    fn extended(mut self, set: impl FnOnce(&mut Extensions)) -> Self {
        set(Arc::make_mut(&mut self.extensions));
        self
    }
}

/// The extensions of one server ([`crate::extend`]).
#[derive(Clone, Default)]
struct Extensions {
    resources: Option<Arc<dyn Resources>>,
    prompts: Option<Arc<dyn Prompts>>,
    completion: Option<Arc<dyn Completion>>,
    subscriptions: Option<Arc<dyn Subscriptions>>,
    logging: Option<Arc<dyn Logging>>,
    guard: Option<Arc<dyn CallGuard>>,
}

impl Extensions {
    /// What `initialize` announces: tools and resources (the stored results) always, the rest
    /// where an extension answers it.
    fn capabilities(&self) -> ServerCapabilities {
        let mut capabilities = ServerCapabilities::default();
        capabilities.tools = Some(ToolsCapability::default());
        let mut resources = ResourcesCapability::default();
        resources.subscribe = self.subscriptions.is_some().then_some(true);
        capabilities.resources = Some(resources);
        capabilities.prompts = self.prompts.is_some().then(PromptsCapability::default);
        capabilities.completions = self.completion.is_some().then(JsonObject::new);
        capabilities.logging = self.logging.is_some().then(JsonObject::new);
        capabilities
    }
}

impl std::fmt::Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extensions")
            .field("resources", &self.resources.is_some())
            .field("prompts", &self.prompts.is_some())
            .field("completion", &self.completion.is_some())
            .field("subscriptions", &self.subscriptions.is_some())
            .field("logging", &self.logging.is_some())
            .field("guard", &self.guard.is_some())
            .finish()
    }
}

/// The revision of this request: from its `_meta` on 2026-07-28, from the handshake or the
/// `MCP-Protocol-Version` header otherwise (rmcp resolves both). Never a nearest-older guess.
pub(crate) fn revision_of(ctx: &RequestContext<RoleServer>) -> Result<McpRevision, ErrorData> {
    match ctx.protocol_version() {
        // Streamable HTTP without the header means 2025-03-26 (the transport's own default).
        None => Ok(McpRevision::V2025_03_26),
        Some(version) => McpRevision::exact(version.as_str()).ok_or_else(|| {
            ErrorData::invalid_request(format!("unsupported protocol version {version}"), None)
        }),
    }
}

/// The caller: what the HTTP layer put into the request, else the configured default.
pub(crate) fn principal_of(ctx: &RequestContext<RoleServer>, gateway: &Gateway) -> Principal {
    ctx.extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Principal>())
        .cloned()
        .unwrap_or_else(|| gateway.config.default_principal.clone())
}

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
        let host = host.clone();
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
    async fn answer_call(
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
        let Some(tool) = self.gateway.registry.get(&name).cloned() else {
            tracing::info!(tool = %log_safe(&name), revision = revision.as_str(), outcome = "unknown_tool", "tools/call");
            self.observe(&name, revision, "unknown_tool", started, None);
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
        let context = CallContext::new(&name, principal.clone(), revision, ctx.id.to_string())
            .with_request(ctx)
            .with_asks(rounds.asks())
            .with_input(rounds.round());
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
                self.observe(&name, revision, "internal_error", started, None);
                return Err(error);
            }
        };
        let legacy = matches!(result.provenance(), toolwire_core::Provenance::LegacyEnvelope(_));
        if legacy {
            let count = self.gateway.legacy.bump();
            tracing::info!(tool = %log_safe(&name), legacy_results = count, "served a hand-built legacy result");
        }
        let sealed = rounds.seal(&result)?;
        let code = result.error().map(|error| error.code.as_str().to_owned());
        let query = Query::new(&name, arguments);
        let outcome = self
            .render(&tool, result, Audience { revision, host }, &principal, query, sealed)
            .await?;
        // Still asking after the mapper (which down-levels where the revision cannot ask):
        // an `InputRequiredResult`.
        if outcome.mcp().is_some_and(|typed| typed.tool_result().is_input_required()) {
            tracing::info!(
                tool = %log_safe(&name),
                revision = revision.as_str(),
                outcome = "input_required",
                bytes = outcome.size(),
                duration_ms = started.elapsed().as_millis() as u64,
                "tools/call"
            );
            self.observe(&name, revision, "input_required", started, Some((&outcome, legacy)));
            return call_tool_response(outcome).map_err(|why| internal(&name, &why));
        }
        let label = match (code, outcome.is_error()) {
            (Some(code), _) => code,
            (None, true) => "failure".to_owned(),
            (None, false) => "success".to_owned(),
        };
        tracing::info!(
            tool = %log_safe(&name),
            revision = revision.as_str(),
            outcome = %label,
            bytes = outcome.size(),
            offloaded = outcome.offloaded(),
            duration_ms = started.elapsed().as_millis() as u64,
            "tools/call"
        );
        self.observe(&name, revision, &label, started, Some((&outcome, legacy)));
        call_tool_response(outcome).map_err(|why| internal(&name, &why))
    }

    /// Tells the configured observer how a call ended (`rendered`: the output and whether it
    /// came from a hand-built legacy string).
    fn observe(
        &self,
        tool: &str,
        revision: McpRevision,
        outcome: &str,
        started: Instant,
        rendered: Option<(&Output, bool)>,
    ) {
        if let Some(observer) = &self.gateway.config.observer {
            observer.call(&CallRecord {
                tool,
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
    fn offers_read_result(&self, host: &HostProfile) -> bool {
        !host.reads_links && self.gateway.registry.get(READ_RESULT_TOOL).is_none()
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

/// The one hand-off of a rendered `tools/call` result to rmcp: the mapper's typed MCP result
/// (an output of [`OutputMapper::render_owned`]) mapped field by field to rmcp's types, with
/// nothing parsed back. Content blocks, `isError` and `_meta` come from the typed result;
/// `structuredContent` is the result's own data (or error, or envelope) as a value; an
/// input-required result becomes rmcp's `InputRequiredResult`. `resultType` is set here, and
/// only here, from the revision's row of the table (rmcp never adds it and strips it below
/// 2026-07-28, interop fact 1).
pub(crate) fn call_tool_response(output: Output) -> Result<CallToolResponse, String> {
    let Some(mcp) = output.into_mcp() else {
        return Err("the result was rendered as text, not as a typed MCP result".to_owned());
    };
    let mut result = match mcp.result() {
        McpResult::Complete(typed) => {
            let content = typed.content.into_iter().map(content_block).collect::<Result<_, _>>()?;
            let mut result = CallToolResult::success(content);
            result.result_type = typed.result_type.map(|_| ResultType::COMPLETE);
            result.is_error = typed.is_error;
            result.meta = Some(meta_object(&typed.meta)?);
            result
        }
        McpResult::InputRequired(typed) => {
            let requests = match typed.input_requests {
                Some(requests) => Some(crate::input::rmcp_requests(requests.0)?),
                None => None,
            };
            let state = typed.request_state.map(str::to_owned);
            let result = InputRequiredResult::new(requests, state);
            return Ok(CallToolResponse::InputRequired(
                result.with_meta(meta_object(&typed.meta)?),
            ));
        }
    };
    // After the borrowed view is gone: the data moves out of the result.
    result.structured_content = mcp.into_structured_content();
    Ok(CallToolResponse::Complete(result))
}

/// A typed `_meta` map as rmcp's `MetaObject`.
fn meta_object(meta: &impl serde::Serialize) -> Result<MetaObject, String> {
    match serde_json::to_value(meta) {
        Ok(Value::Object(map)) => Ok(MetaObject(map)),
        Ok(_) => Err("a _meta that is not an object".to_owned()),
        Err(e) => Err(format!("a _meta that cannot be written: {e}")),
    }
}

/// One typed content block as rmcp's.
fn content_block(block: ContentBlock<'_>) -> Result<rmcp::model::ContentBlock, String> {
    use rmcp::model::{AudioContent, ContentBlock as Block, EmbeddedResource, ImageContent};
    Ok(match block {
        ContentBlock::Text { text } => Block::text(text.into_string()),
        ContentBlock::Image(media) => {
            let mut image = ImageContent::new(media.data.to_string(), media.mime_type);
            image.meta = media.meta.as_ref().map(meta_object).transpose()?;
            Block::Image(image)
        }
        ContentBlock::Audio(media) => {
            let mut audio = AudioContent::new(media.data.to_string(), media.mime_type);
            audio.meta = media.meta.as_ref().map(meta_object).transpose()?;
            Block::Audio(audio)
        }
        ContentBlock::Resource(embedded) => {
            let contents = embedded.resource;
            let uri = contents.uri.to_string();
            let mime_type = contents.mime_type.map(str::to_owned);
            let resource = match (contents.text, contents.blob) {
                (Some(text), _) => ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text: text.to_owned(),
                    meta: None,
                },
                (None, blob) => ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob: blob.map(|blob| blob.to_string()).unwrap_or_default(),
                    meta: None,
                },
            };
            let mut resource = EmbeddedResource::new(resource);
            resource.meta = embedded.meta.as_ref().map(meta_object).transpose()?;
            Block::Resource(resource)
        }
        ContentBlock::ResourceLink(link) => {
            let mut resource = rmcp::model::Resource::new(link.uri, link.name.into_owned());
            resource.title = link.title.map(str::to_owned);
            resource.description = link.description.map(str::to_owned);
            resource.mime_type = link.mime_type.map(str::to_owned);
            resource.size = link.size;
            resource.meta = link.meta.as_ref().map(meta_object).transpose()?;
            Block::ResourceLink(resource)
        }
    })
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

impl rmcp::ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = self.gateway.info.clone();
        info.capabilities = self.extensions.capabilities();
        info
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.gateway
            .registry
            .get(name)
            .and_then(|tool| tool.definition(McpRevision::V2026_07_28))
            .cloned()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let revision = revision_of(&ctx)?;
        let host = hosts::host_of(&ctx, &self.gateway.config.hosts);
        let mut tools: Vec<rmcp::model::Tool> = self
            .gateway
            .registry
            .iter()
            .filter_map(|tool| tool.definition(revision))
            .map(|definition| hosts::definition_for(definition, host))
            .collect();
        if self.offers_read_result(host) {
            tools.push(hosts::read_result_definition(revision));
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + MaybeSendFuture + '_ {
        // rmcp spawns a task per request holding the largest of the handler futures, copied
        // in on every request: boxed, this one (about 7 KiB unboxed) costs it a pointer. Boxed
        // before it is wrapped, so that the wrapping moves the pointer, not the future.
        crate::work::for_the_call(Box::pin(self.answer_call(request, ctx)))
    }

    /// rmcp hands a request it could not parse into its typed form to this method: for
    /// `tools/call` that means `params` do not satisfy `CallToolRequest`, which is -32602, not
    /// an unknown method.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let params = request.params.clone().unwrap_or(Value::Null);
        let problem = match request.method.as_str() {
            "tools/call" => serde_json::from_value::<CallToolRequestParams>(params).err(),
            "resources/read" => serde_json::from_value::<ReadResourceRequestParams>(params).err(),
            _ => None,
        };
        if let Some(problem) = problem {
            return Err(ErrorData::invalid_params(
                format!("params of {} are malformed: {problem}", request.method),
                None,
            ));
        }
        Err(ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, request.method, None))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = self.extensions.resources.as_ref();
        Ok(ListResourcesResult::with_all_items(resources.map(|r| r.list()).unwrap_or_default()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let revision = revision_of(&ctx)?;
        let mut result = crate::resource::templates_list(
            toolwire_store::resource_templates_list_result(revision),
        )
        .map_err(|e| ErrorData::internal_error(format!("resource template: {e}"), None))?;
        if let Some(resources) = &self.extensions.resources {
            result.resource_templates.extend(resources.templates());
        }
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let revision = revision_of(&ctx)?;
        let principal = principal_of(&ctx, &self.gateway);
        let uri = request.uri;
        if let Some(resources) = &self.extensions.resources
            && let Some(read) = resources.read(&uri, &ctx).await
        {
            return read.map(ReadResourceResponse::Complete);
        }
        let read = match self.gateway.config.read_stored(&uri, principal.name(), revision).await {
            Ok(read) => read,
            // Every refusal is the same not-found; rmcp turns -32002 into -32602 for 2026 peers.
            Err(ReadError::NotFound { .. }) => {
                return Err(ErrorData::resource_not_found(
                    "Resource not found",
                    Some(json!({"uri": uri})),
                ));
            }
            Err(error) => {
                tracing::error!(%uri, %error, "could not read a stored result");
                return Err(crate::resource::read_failure(&error));
            }
        };
        let result = crate::resource::read_result(read).map_err(|e| {
            ErrorData::internal_error(format!("stored contents are malformed: {e}"), None)
        })?;
        Ok(ReadResourceResponse::Complete(result))
    }

    // Prompts, completion, logging and subscriptions exist only with an extension answering
    // them; without one each is method-not-found, as rmcp's defaults answer.

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompts =
            extension::<_, rmcp::model::ListPromptsRequestMethod>(&self.extensions.prompts)?;
        Ok(ListPromptsResult::with_all_items(prompts.list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let prompts =
            extension::<_, rmcp::model::GetPromptRequestMethod>(&self.extensions.prompts)?;
        prompts.get(request, &ctx).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let completion =
            extension::<_, rmcp::model::CompleteRequestMethod>(&self.extensions.completion)?;
        completion.complete(request, &ctx).await
    }

    #[allow(deprecated)] // logging is deprecated by SEP-2577; clients of earlier revisions set it
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        extension::<_, rmcp::model::SetLevelRequestMethod>(&self.extensions.logging)?
            .set_level(request.level);
        Ok(())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        extension::<_, rmcp::model::SubscribeRequestMethod>(&self.extensions.subscriptions)?
            .subscribe(request.uri)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(self.extensions.subscriptions.as_ref()?.accept(requested))
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        extension::<_, rmcp::model::UnsubscribeRequestMethod>(&self.extensions.subscriptions)?
            .unsubscribe(&request.uri)
    }
}

/// The extension answering method `M`, or method-not-found when there is none.
fn extension<T: ?Sized, M: rmcp::model::ConstString>(
    extension: &Option<Arc<T>>,
) -> Result<&T, ErrorData> {
    extension.as_deref().ok_or_else(ErrorData::method_not_found::<M>)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolwire_core::input::{InputRequired, confirm_request};
    use toolwire_core::{Part, ResourceLinkPart, StoredLink, ToolResultBuilder};

    use super::*;

    fn build(builder: ToolResultBuilder) -> ToolResult {
        builder.build().unwrap_or_else(|e| panic!("{e}"))
    }

    fn samples() -> Vec<ToolResult> {
        let at = Timestamp::parse("2026-11-29T10:00:00Z").unwrap_or_else(|e| panic!("{e}"));
        vec![
            ToolResult::success(json!({"id": 7, "price": 12.50, "name": "Chair \"A\" — oak"})),
            ToolResult::success(json!([1, [2, [3]], "x"])),
            ToolResult::failure(ToolError::invalid_arguments("bad", [("/q", "is required")])),
            build(
                ToolResult::builder()
                    .data(json!({"report": "ready"}))
                    .summary("Report")
                    .dry_run(true)
                    .extension("com.example", "trace", json!({"id": 1}))
                    .part(Part::text("Read me"))
                    .part(Part::named_binary(b"\x89PNG".to_vec(), "image/png", "chart.png"))
                    .part(Part::binary(b"ID3".to_vec(), "audio/mpeg"))
                    .part(Part::named_binary(b"%PDF".to_vec(), "application/pdf", "q3 r.pdf"))
                    .part(Part::resource_link_with(
                        ResourceLinkPart::new("https://example.com/r.csv", "r.csv")
                            .title("Rows")
                            .mime_type("text/csv")
                            .size(12),
                    ))
                    .part(Part::embedded_text("file:///n.txt", None, "notes"))
                    .part(Part::embedded_blob("file:///a.bin", None, vec![0, 1]))
                    .stored_link(StoredLink::new("toolwire://results/abc").size(99).expires_at(at)),
            ),
            ToolResult::input_required(
                InputRequired::new().request("ok", confirm_request("Go?")).state(json!(1)),
            ),
        ]
    }

    /// What rmcp sends for the hand-off of every sample is byte for byte the mapper's text.
    #[test]
    fn the_hand_off_serializes_to_the_rendered_text() {
        let mapper = OutputMapper::default();
        for result in samples() {
            for revision in McpRevision::ALL {
                for phase in [Phase::Compat, Phase::Spec] {
                    let ctx = RenderContext::new("t", now()).request_state("sealed");
                    let target = Target::Mcp(revision);
                    let text = match mapper.render(&result, target, phase, &ctx) {
                        Ok(Rendered::Complete(output)) => output.into_json(),
                        other => panic!("{other:?}"),
                    };
                    let output = match mapper.render_owned(result.clone(), target, phase, &ctx) {
                        Ok(Rendered::Complete(output)) => output,
                        other => panic!("{other:?}"),
                    };
                    let sent = match call_tool_response(output) {
                        Ok(CallToolResponse::Complete(r)) => serde_json::to_string(&r),
                        Ok(CallToolResponse::InputRequired(r)) => serde_json::to_string(&r),
                        other => panic!("{other:?}"),
                    };
                    assert_eq!(sent.ok().as_deref(), Some(text.as_str()), "{revision:?} {phase:?}");
                }
            }
        }
    }
}

//! The hand-written rmcp `ServerHandler`: [`McpServer`], a cheap clone over the gateway and its
//! extensions, answering each MCP method.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, JsonObject,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    PromptsCapability, ReadResourceRequestParams, ReadResourceResponse, ResourcesCapability,
    ServerCapabilities, ServerConfig, ToolsCapability,
};
#[allow(deprecated)]
// logging (SetLevelRequestParams) is deprecated by SEP-2577; the suite tests it
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{MaybeSendFuture, RequestContext, RoleServer};
use serde_json::{Value, json};
use toolwire_core::McpRevision;
use toolwire_store::ReadError;

use super::state::Gateway;
use crate::extend::{
    CallGuard, Completion, Handshakes, Logging, Prompts, Resources, Subscriptions,
};
use crate::hosts;
use crate::registry::Principal;

/// The rmcp handler: a cheap clone of an `Arc<Gateway>` and of its extensions.
#[derive(Debug, Clone)]
pub struct McpServer {
    pub(crate) gateway: Arc<Gateway>,
    pub(super) extensions: Arc<Extensions>,
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

    /// The same server, telling `handshakes` of each session's `notifications/initialized`.
    pub fn with_handshakes(self, handshakes: impl Handshakes) -> Self {
        self.extended(|extensions| extensions.handshakes = Some(Arc::new(handshakes)))
    }

    fn extended(mut self, set: impl FnOnce(&mut Extensions)) -> Self {
        set(Arc::make_mut(&mut self.extensions));
        self
    }
}

impl McpServer {
    /// What `initialize` announces: tools and resources (the stored results) always, the rest
    /// where an extension or a source answers it; `tools.listChanged` when a source's list can
    /// change.
    fn capabilities(&self) -> ServerCapabilities {
        let catalog = &self.gateway.catalog;
        let mut capabilities = self.extensions.capabilities();
        if catalog.can_change()
            && let Some(tools) = &mut capabilities.tools
        {
            tools.list_changed = Some(true);
        }
        if capabilities.prompts.is_none() && catalog.has_prompts() {
            capabilities.prompts = Some(PromptsCapability::default());
        }
        // Tasks (DESIGN §17): the extension, when a tool's calls may become tasks.
        if catalog.current().has_tasks() {
            let extensions = capabilities.extensions.get_or_insert_default();
            extensions.insert(rmcp::model::TASKS_EXTENSION_ID.to_owned(), JsonObject::new());
        }
        capabilities
    }

    /// The resources served beside the stored results: the extension's, then the sources'.
    fn resources(&self) -> Vec<Arc<dyn Resources>> {
        let sources = self.gateway.catalog.resources();
        self.extensions.resources.iter().cloned().chain(sources).collect()
    }

    /// The prompts served: the extension's, then the sources'.
    fn prompts(&self) -> Vec<Arc<dyn Prompts>> {
        let sources = self.gateway.catalog.prompts();
        self.extensions.prompts.iter().cloned().chain(sources).collect()
    }
}

/// The extensions of one server ([`crate::extend`]).
#[derive(Clone, Default)]
pub(super) struct Extensions {
    resources: Option<Arc<dyn Resources>>,
    prompts: Option<Arc<dyn Prompts>>,
    completion: Option<Arc<dyn Completion>>,
    subscriptions: Option<Arc<dyn Subscriptions>>,
    logging: Option<Arc<dyn Logging>>,
    pub(super) guard: Option<Arc<dyn CallGuard>>,
    handshakes: Option<Arc<dyn Handshakes>>,
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
            .field("handshakes", &self.handshakes.is_some())
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

impl rmcp::ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = self.gateway.info.clone();
        info.capabilities = self.capabilities();
        info
    }

    /// The handshake revisions have no extensions (they came with 2026-07-28): the tasks
    /// extension is advertised in `server/discover` alone (2025-11-25's own `capabilities.tasks`
    /// is added in front of rmcp, where its task requests are read).
    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let mut result = self.negotiate_initialize(&request)?;
        result.capabilities.extensions = None;
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.gateway
            .catalog
            .get(name)
            .and_then(|entry| entry.tool.definition(McpRevision::V2026_07_28).cloned())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let revision = revision_of(&ctx)?;
        let host = hosts::host_of(&ctx, &self.gateway.config.hosts);
        let catalog = self.gateway.catalog.current();
        let mut tools: Vec<rmcp::model::Tool> = catalog
            .iter()
            .filter_map(|entry| {
                let chars = entry.tool.spec.max_result_chars;
                let definition = entry.tool.definition(revision)?;
                Some(hosts::definition_for(definition, chars, host, revision))
            })
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
        // in on every request: every handler future of a few KiB is boxed (this one about 7 KiB
        // unboxed, the task methods' 2 to 5 KiB), so that a request copies rmcp's own parts
        // alone.
        Box::pin(self.answer_call(request, ctx))
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

    fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<rmcp::model::GetTaskResult, ErrorData>> + MaybeSendFuture + '_
    {
        Box::pin(McpServer::get_task(self, request, ctx))
    }

    fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        Box::pin(McpServer::update_task(self, request, ctx))
    }

    fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        Box::pin(McpServer::cancel_task(self, request, ctx))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let listed = self.resources().iter().flat_map(|r| r.list()).collect();
        Ok(ListResourcesResult::with_all_items(listed))
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
        for resources in self.resources() {
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
        for resources in self.resources() {
            if let Some(read) = resources.read(&uri, &ctx).await {
                return read.map(ReadResourceResponse::Complete);
            }
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
        let prompts = self.prompts();
        if prompts.is_empty() {
            return Err(ErrorData::method_not_found::<rmcp::model::ListPromptsRequestMethod>());
        }
        Ok(ListPromptsResult::with_all_items(prompts.iter().flat_map(|p| p.list()).collect()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        // The prompts that list the name answer; an unknown name is the first prompts' error.
        let prompts = self.prompts();
        let listing = prompts.iter().find(|p| p.list().iter().any(|p| p.name == request.name));
        let Some(prompts) = listing.or(prompts.first()) else {
            return Err(ErrorData::method_not_found::<rmcp::model::GetPromptRequestMethod>());
        };
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

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        tracing::info!("client initialized");
        if let Some(handshakes) = &self.extensions.handshakes {
            handshakes.initialized(&context.peer, &context.extensions);
        }
        self.gateway.catalog.hear_session(context.peer);
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        let catalog = &self.gateway.catalog;
        let _heard = catalog.can_change().then(|| catalog.hear_stream(context.sink().clone()));
        context.cancelled().await;
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        match &self.extensions.subscriptions {
            Some(subscriptions) => Some(subscriptions.accept(requested)),
            // Without subscriptions, a stream hears of tool list changes where there can be any.
            None if self.gateway.catalog.can_change() => {
                let mut accepted = rmcp::model::SubscriptionFilter::new();
                accepted.tools_list_changed = requested.tools_list_changed;
                Some(accepted)
            }
            None => None,
        }
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

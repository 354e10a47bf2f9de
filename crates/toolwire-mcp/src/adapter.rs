//! For a server that keeps its rmcp `#[tool_router]`: its `#[tool]` methods build a
//! [`ToolResult`] and hand it to a [`Renderer`], which renders it for the revision of *that*
//! request — the mapper's limits, offloading to the configured store, the output-schema rules —
//! and returns what an rmcp tool method returns.
//!
//! The router still publishes the tool definitions (the same for every revision); declare each
//! output with [`output_schema`] so that what it publishes is what toolwire validates against.
//! Results over the limit are stored behind a link: the server's `read_resource` and
//! `list_resource_templates` hand over to the renderer's, which serve them as the gateway does.
//! The typed [`Registry`] publishes per revision and also runs the tools.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::ServerHandler as _;
use rmcp::model::{
    CallToolResponse, Implementation, JsonObject, ListResourceTemplatesResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use schemars::JsonSchema;
use serde_json::Value;
use toolwire_core::{RenderContext, Rendered, Shape, Target, Timestamp, ToolOutput, ToolResult};

use crate::registry::{Registry, ToolSpecError};
use crate::server::{self, Gateway, GatewayConfig, McpServer};
use crate::work::Work;

/// The output schema of a Rust type, as toolwire derives it (draft 2020-12, its serialize
/// contract), for `#[tool(output_schema = toolwire_mcp::adapter::output_schema::<T>())]`.
pub fn output_schema<T: JsonSchema>() -> Arc<JsonObject> {
    match crate::validate::schema_for_output::<T>() {
        Value::Object(schema) => Arc::new(schema),
        // The schema `true` (anything) is the empty schema.
        _ => Arc::new(JsonObject::new()),
    }
}

/// What one declared tool renders with.
struct Declared {
    output: ToolOutput,
    input_schema: Value,
}

/// Renders the results of an rmcp router's tools. Cheap to clone: an `Arc`.
#[derive(Clone)]
pub struct Renderer {
    /// The gateway's handler, with no tools of its own: its configuration renders, and it
    /// serves the stored results.
    server: McpServer,
    tools: Arc<HashMap<String, Arc<Declared>>>,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer").field("tools", &self.tools.keys()).finish_non_exhaustive()
    }
}

impl Renderer {
    /// A renderer for `tools` (what the router lists: `Self::tool_router().list_all()`) with
    /// `config`'s phase, mapper, store and hosts; refuses an output schema toolwire cannot use.
    pub fn new(
        config: GatewayConfig,
        tools: impl IntoIterator<Item = rmcp::model::Tool>,
    ) -> Result<Self, ToolSpecError> {
        let tools = tools
            .into_iter()
            .map(|tool| {
                let name = tool.name.to_string();
                let output = match &tool.output_schema {
                    Some(schema) => ToolOutput::from_declaration(
                        &Value::Object((**schema).clone()),
                        Shape::Data,
                    )
                    .map_err(|error| ToolSpecError::BadOutputSchema {
                        tool: name.clone(),
                        error,
                    })?,
                    None => ToolOutput::none(Shape::Data),
                };
                let input_schema = Value::Object((*tool.input_schema).clone());
                Ok((name, Arc::new(Declared { output, input_schema })))
            })
            .collect::<Result<_, ToolSpecError>>()?;
        let server = McpServer::new(Gateway::new(Registry::new(), config));
        Ok(Self { server, tools: Arc::new(tools) })
    }

    /// The server's name and version: the same the rendered results carry.
    pub fn server_info(&self) -> Implementation {
        let mapper = self.server.gateway().config().mapper.config();
        Implementation::new(mapper.server_name(), mapper.server_version())
    }

    /// What the rmcp server's `get_info` answers: tools, resources (the stored results) and
    /// [`Renderer::server_info`].
    pub fn server_config(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_resources().build();
        ServerConfig::new(capabilities).with_server_info(self.server_info())
    }

    /// `result` of the tool `tool`, rendered for the revision and client of `ctx`: over the
    /// limit it is stored (bound to the caller) and answered with the link (the stub echoes no
    /// query: rmcp keeps the call's arguments from the method). A result asking
    /// for input is answered with the failure `input_required` (the rounds of DESIGN §10 need
    /// the typed [`Registry`]). A tool the renderer was not made with, a render or a store that
    /// fails, answer JSON-RPC `-32603` (the reason goes to the log).
    pub async fn render(
        &self,
        tool: &str,
        result: ToolResult,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let revision = server::revision_of(ctx)?;
        let internal = |why: &str| server::internal(tool, why);
        let declared =
            self.tools.get(tool).ok_or_else(|| internal("not declared to the renderer"))?;
        let declared = Arc::clone(declared);
        let config = self.server.gateway().config();
        let host = crate::hosts::host_of(ctx, &config.hosts).clone();
        let principal = server::principal_of(ctx, self.server.gateway());
        let gateway = Arc::clone(self.server.gateway());
        let name = tool.to_owned();
        let large = crate::work::is_large(&result);
        // A large result renders on the blocking pool (DESIGN §12), as the gateway's do.
        let rendered = Work::placed(&config.work, large, move || {
            let config = gateway.config();
            let now = Timestamp::from_datetime(chrono::Utc::now());
            let cx = RenderContext::new(&name, now)
                .output(&declared.output)
                .input_schema(&declared.input_schema)
                .host(&host);
            // Asking for input needs the rounds of the registry: here it is the failure.
            let result = match result.is_input_required() {
                true => result.down_levelled().into_owned(),
                false => result,
            };
            config.mapper.render_owned(result, Target::Mcp(revision), config.phase, &cx)
        })
        .await
        .map_err(|e| internal(&e.to_string()))?
        .map_err(|e| internal(&e.to_string()))?;
        let output = match rendered {
            Rendered::Complete(output) => output,
            Rendered::NeedsOffload(needs) => {
                server::offload(config, tool, needs, &principal).await?
            }
        };
        for warning in output.warnings() {
            tracing::warn!(%tool, %warning, "render warning");
        }
        server::call_tool_response(output).map_err(|why| internal(&why))
    }

    /// `resources/read` of a stored result (answer the server's `read_resource` with it): read
    /// by the caller it is bound to, before it expires; anything else is not found.
    pub async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.server.read_resource(request, ctx).await
    }

    /// `resources/templates/list`: the template of stored-result links.
    pub async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.server.list_resource_templates(request, ctx).await
    }
}

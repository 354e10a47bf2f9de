//! An rmcp server that keeps its `#[tool_router]` and lets toolwire render its results: the
//! same two tools as `minimal_server.rs`, served over stdio, each result rendered for the MCP
//! revision of its request (limits, offloading and the output-schema rules included).
//!
//! Run it with `cargo run -p toolwire-mcp --example rmcp_router` and point an MCP client's stdio
//! transport at that command.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, ListResourceTemplatesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt as _, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwire_mcp::adapter::{Renderer, output_schema};
use toolwire_mcp::{ErrorCode, GatewayConfig, Principal, ToolError, ToolResult};

/// What `add` takes.
#[derive(Deserialize, JsonSchema)]
struct AddInput {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

/// What `add` returns: its schema is the published outputSchema.
#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

/// What `divide` takes.
#[derive(Deserialize, JsonSchema)]
struct DivideInput {
    /// The dividend.
    dividend: i64,
    /// The divisor (not zero).
    divisor: i64,
}

/// What `divide` returns.
#[derive(Serialize, JsonSchema)]
struct Quotient {
    quotient: i64,
    remainder: i64,
}

/// The server: rmcp's router for the tools, toolwire's renderer for their results.
#[derive(Clone)]
struct Calculator {
    tool_router: ToolRouter<Self>,
    toolwire: Renderer,
}

#[tool_router]
impl Calculator {
    fn new(config: GatewayConfig) -> Result<Self, toolwire_mcp::ToolSpecError> {
        let tool_router = Self::tool_router();
        let toolwire = Renderer::new(config, tool_router.list_all())?;
        Ok(Self { tool_router, toolwire })
    }

    #[tool(description = "Adds two integers.", output_schema = output_schema::<Sum>())]
    async fn add(
        &self,
        Parameters(input): Parameters<AddInput>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result = match input.a.checked_add(input.b) {
            Some(sum) => data(&Sum { sum })?,
            None => ToolError::new(ErrorCode::RuleViolation, "The sum overflows.").into(),
        };
        self.toolwire.render("add", result, &ctx).await
    }

    #[tool(
        description = "Divides two integers, with the remainder.",
        output_schema = output_schema::<Quotient>()
    )]
    async fn divide(
        &self,
        Parameters(input): Parameters<DivideInput>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (dividend, divisor) = (input.dividend, input.divisor);
        let result = if divisor == 0 {
            ToolResult::failure(ToolError::invalid_arguments(
                "The divisor must not be zero.",
                [("/divisor", "must not be zero")],
            ))
        } else if let (Some(quotient), Some(remainder)) =
            (dividend.checked_div(divisor), dividend.checked_rem(divisor))
        {
            data(&Quotient { quotient, remainder })?.with_summary(format!("{dividend} / {divisor}"))
        } else {
            ToolError::new(ErrorCode::RuleViolation, "The quotient overflows.").into()
        };
        self.toolwire.render("divide", result, &ctx).await
    }
}

/// A success carrying `value` as its data.
fn data<T: Serialize>(value: &T) -> Result<ToolResult, ErrorData> {
    ToolResult::from_serialize(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Calculator {
    fn get_info(&self) -> ServerConfig {
        // The name the results carry, from the one setting in the mapper; resources for the
        // results stored behind a link.
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(self.toolwire.server_info())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.toolwire.read_resource(request, ctx).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.toolwire.list_resource_templates(request, ctx).await
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut config = GatewayConfig::in_memory()?.server_info("calculator", "1.0.0");
    config.default_principal = Principal::local();
    let server = Calculator::new(config)?;
    // Standard output carries JSON-RPC only; anything else belongs on standard error.
    server.serve(rmcp::transport::stdio()).await?.waiting().await?;
    Ok(())
}

//! The floor of `scripts/bench-gateway`: a bare rmcp server over Streamable HTTP that answers
//! `tools/call` with results rendered beforehand (captured from toolwire by the script), so a
//! benchmark shows what rmcp alone costs beside what toolwire adds on top of it.
//!
//! Usage: `bench_floor ADDR RESULTS.json`, where the file is
//! `{"tools": [Tool, …], "results": {"<revision> <tool>": CallToolResult, …}}`. Prints
//! `serving MCP on http://ADDR/mcp` once listening; stops on Ctrl-C or SIGTERM.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;

#[path = "support/serve.rs"]
mod serve;

#[derive(Deserialize)]
struct Canned {
    tools: Vec<Tool>,
    results: HashMap<String, CallToolResult>,
}

#[derive(Clone)]
struct Floor(Arc<Canned>);

impl rmcp::ServerHandler for Floor {
    fn get_info(&self) -> ServerConfig {
        let capabilities: ServerCapabilities =
            serde_json::from_value(serde_json::json!({"tools": {}})).unwrap_or_default();
        ServerConfig::new(capabilities).with_server_info(Implementation::new("bench-floor", "1"))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.0.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.0.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let revision = ctx.protocol_version().map(|v| v.as_str().to_owned()).unwrap_or_default();
        let key = format!("{revision} {}", request.name);
        match self.0.results.get(&key) {
            Some(result) => Ok(CallToolResponse::Complete(result.clone())),
            None => Err(ErrorData::invalid_params(format!("no canned result for {key}"), None)),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(address), Some(file)) = (args.next(), args.next()) else {
        return Err("usage: bench_floor ADDR RESULTS.json".into());
    };
    let canned: Canned = serde_json::from_slice(&std::fs::read(&file)?)?;
    let floor = Floor(Arc::new(canned));
    let listener = tokio::net::TcpListener::bind(&address).await?;
    let bound = listener.local_addr()?;
    let service = StreamableHttpService::new(
        move || Ok(floor.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    println!("serving MCP on http://{bound}/mcp");
    serve::until_ctrl_c(listener, app).await?;
    Ok(())
}

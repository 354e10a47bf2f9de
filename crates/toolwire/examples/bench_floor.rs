//! The floor of `scripts/bench-gateway`: a bare rmcp server over Streamable HTTP that answers
//! `tools/call` with results rendered beforehand (captured from toolwire by the script), so a
//! benchmark shows what rmcp alone costs beside what toolwire adds on top of it.
//!
//! Usage: `bench_floor ADDR RESULTS.json [APP_URL]`, where the file is
//! `{"tools": [Tool, …], "results": {"<revision> <tool>": CallToolResult, …}}`. Prints
//! `serving MCP on http://ADDR/mcp` once listening; stops on Ctrl-C or SIGTERM.
//!
//! With `APP_URL`, every call first makes the one exchange an app tool makes: it POSTs
//! `{"tool": "app_<tool>", "arguments": …}` to the fast local app (`bench_app`, whose answers
//! `tests/bench/app_tools.py` writes under those names) over a pooled HTTP/1 client configured
//! as toolwire's, and reads the whole answer, which it then drops. What that adds to the floor
//! is the least any gateway pays for an outside answer: the second connection, without
//! reading, checking or rendering what comes back.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
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

/// The fast local app each call reads from first, when there is one.
struct Hop {
    client: Client<HttpConnector, Full<Bytes>>,
    url: http::Uri,
}

impl Hop {
    fn new(url: &str) -> Result<Self, http::uri::InvalidUri> {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        let client =
            Client::builder(TokioExecutor::new()).pool_timer(TokioTimer::new()).build(connector);
        Ok(Self { client, url: url.parse()? })
    }

    /// POSTs the call to the app and reads its whole answer.
    async fn exchange(&self, request: &CallToolRequestParams) -> Result<Bytes, String> {
        let body = serde_json::to_vec(&serde_json::json!({
            "tool": format!("app_{}", request.name),
            "arguments": request.arguments,
        }))
        .map_err(|e| e.to_string())?;
        let request = http::Request::post(self.url.clone())
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| e.to_string())?;
        let response = self.client.request(request).await.map_err(|e| e.to_string())?;
        if !response.status().is_success() {
            return Err(format!("the app answered {}", response.status()));
        }
        let answer = response.into_body().collect().await.map_err(|e| e.to_string())?;
        Ok(answer.to_bytes())
    }
}

#[derive(Clone)]
struct Floor(Arc<Canned>, Option<Arc<Hop>>);

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
        if let Some(hop) = &self.1 {
            hop.exchange(&request).await.map_err(|e| ErrorData::internal_error(e, None))?;
        }
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
        return Err("usage: bench_floor ADDR RESULTS.json [APP_URL]".into());
    };
    let canned: Canned = serde_json::from_slice(&std::fs::read(&file)?)?;
    let hop = args.next().map(|url| Hop::new(&url)).transpose()?.map(Arc::new);
    let floor = Floor(Arc::new(canned), hop);
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

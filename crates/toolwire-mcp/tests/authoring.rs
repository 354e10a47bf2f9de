//! The authoring API over a real rmcp connection: registry tools that take only what they need
//! (no context, shared state, `?` on a `ToolError`), typed annotations, and the adapter inside
//! an rmcp `#[tool_router]` server (revision, limit, offload, output schema, unknown tool).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
    ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt as _, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use toolwire_core::{MapperConfig, McpRevision, OutputMapper, Target};
use toolwire_mcp::adapter::{Renderer, output_schema};
use toolwire_mcp::{
    CallContext, ErrorCode, Gateway, GatewayConfig, McpServer, Principal, Registry, ToolError,
    ToolResult, ToolSpec,
};

/// One JSON-RPC connection to a server, driven line by line.
struct Connection {
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    out: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    id: u64,
    /// The `initialize` answer.
    init: Value,
}

impl Connection {
    /// Serves `server` and completes the handshake for `revision`.
    async fn open<S: ServerHandler>(server: S, revision: &str) -> Self {
        let (ours, theirs) = tokio::io::duplex(1 << 22);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(tokio::io::split(theirs)).await {
                let _ = running.waiting().await;
            }
        });
        let (read, out) = tokio::io::split(ours);
        let lines = BufReader::new(read).lines();
        let mut connection = Self { lines, out, id: 0, init: Value::Null };
        let init = json!({"protocolVersion": revision, "capabilities": {},
                          "clientInfo": {"name": "authoring-test", "version": "1"}});
        let answer = connection.ask("initialize", init).await;
        assert_eq!(answer["result"]["protocolVersion"], revision, "{answer}");
        connection.init = answer;
        connection.tell(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        connection
    }

    async fn tell(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.out.write_all(line.as_bytes()).await.unwrap();
    }

    /// The answer to one request.
    async fn ask(&mut self, method: &str, params: Value) -> Value {
        self.id += 1;
        let id = self.id;
        self.tell(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        while let Some(line) = self.lines.next_line().await.unwrap() {
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
        panic!("the server closed the connection");
    }

    /// The `tools/call` result, with every `generatedAt` value replaced by `NOW`.
    async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let answer = self.ask("tools/call", json!({"name": tool, "arguments": arguments})).await;
        let text = answer.to_string();
        let stamped = with_now(&text);
        serde_json::from_str(&stamped).unwrap()
    }
}

/// `text` with each RFC 3339 value after a `generatedAt` key (escaped or not) set to `NOW`.
fn with_now(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("generatedAt") {
        let (head, tail) = rest.split_at(at + "generatedAt".len());
        out.push_str(head);
        // Past `":"` or `\":\"`: the value runs to the next quote (escaped or not).
        let start = tail.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
        let end = start + tail[start..].find(['"', '\\']).unwrap_or(0);
        out.push_str(&tail[..start]);
        out.push_str("NOW");
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[derive(Deserialize, JsonSchema)]
struct Pair {
    a: i64,
    b: i64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

#[derive(Deserialize, JsonSchema)]
struct Index {
    index: usize,
}

#[derive(Deserialize, JsonSchema)]
struct Nothing {}

fn registry_server() -> McpServer {
    let mut tools = Registry::new();
    tools
        .register_typed(ToolSpec::new("add", "Adds two integers."), |pair: Pair| async move {
            Ok::<_, ToolError>(Sum { sum: pair.a + pair.b })
        })
        .unwrap();
    let words: Arc<Vec<&'static str>> = Arc::new(vec!["oak", "elm"]);
    tools
        .with_state(words)
        .register(
            ToolSpec::new("word", "The word at an index.")
                .title("Word")
                .annotations(ToolAnnotations::new().read_only(true)),
            |words: Arc<Vec<&'static str>>, at: Index| async move {
                let word = words.get(at.index).ok_or_else(|| {
                    ToolError::new(ErrorCode::NotFound, format!("No word at {}.", at.index))
                })?;
                Ok::<_, ToolError>(
                    ToolResult::success(json!({"word": word})).with_summary(format!("'{word}'")),
                )
            },
        )
        .unwrap();
    tools
        .register(
            ToolSpec::new("whoami", "The caller's name."),
            |_: Nothing, cx: CallContext| async move {
                ToolResult::success(json!(cx.principal().name()))
            },
        )
        .unwrap();
    let mut config = GatewayConfig::in_memory().unwrap().server_info("words", "2.0.0");
    config.default_principal = Principal::local();
    McpServer::new(Gateway::new(tools, config))
}

#[tokio::test]
async fn registry_tools_take_only_what_they_need() {
    let mut peer = Connection::open(registry_server(), "2025-06-18").await;
    assert_eq!(peer.init["result"]["serverInfo"], json!({"name": "words", "version": "2.0.0"}));
    assert_eq!(
        peer.call("add", json!({"a": 2, "b": 3})).await["result"],
        json!({"content": [{"type": "text", "text": r#"{"success":true,"data":{"sum":5},"_meta":{"generatedAt":"NOW"}}"#}],
               "structuredContent": {"sum": 5}, "_meta": {"dev.toolwire/generatedAt": "NOW"}})
    );
    assert_eq!(
        peer.call("word", json!({"index": 1})).await["result"],
        json!({"content": [{"type": "text", "text": r#"{"success":true,"data":{"word":"elm"},"_meta":{"generatedAt":"NOW","summary":"'elm'"}}"#}],
               "structuredContent": {"word": "elm"}, "_meta": {"dev.toolwire/generatedAt": "NOW"}})
    );
    assert_eq!(
        peer.call("word", json!({"index": 7})).await["result"],
        json!({"content": [{"type": "text", "text": r#"{"success":false,"error":"No word at 7.","code":"not_found","_meta":{"generatedAt":"NOW"}}"#}],
               "structuredContent": {"error": {"code": "not_found", "message": "No word at 7."}},
               "isError": true, "_meta": {"dev.toolwire/generatedAt": "NOW"}})
    );
    assert_eq!(
        peer.call("whoami", json!({})).await["result"]["content"][0]["text"],
        r#"{"success":true,"data":"local","_meta":{"generatedAt":"NOW"}}"#
    );
}

#[tokio::test]
async fn typed_annotations_are_published_per_revision() {
    let mut peer = Connection::open(registry_server(), "2025-03-26").await;
    let list = peer.ask("tools/list", json!({})).await;
    let word = &list["result"]["tools"][1];
    assert_eq!(word["annotations"].to_string(), r#"{"title":"Word","readOnlyHint":true}"#);
    let mut newer = Connection::open(registry_server(), "2025-11-25").await;
    let list = newer.ask("tools/list", json!({})).await;
    assert_eq!(list["result"]["tools"][1]["title"], "Word");
    assert_eq!(list["result"]["tools"][1]["annotations"].to_string(), r#"{"readOnlyHint":true}"#);
}

/// An rmcp server that keeps its router and renders with toolwire.
#[derive(Clone)]
struct Routed {
    tool_router: ToolRouter<Self>,
    toolwire: Renderer,
}

#[tool_router]
impl Routed {
    fn new() -> Self {
        let limit = Some(toolwire_core::MIN_OFFLOAD_LIMIT);
        let mapper = McpRevision::ALL.into_iter().fold(
            MapperConfig::default().with_server_info("routed", "3.0.0"),
            |mapper, revision| mapper.with_limit(Target::Mcp(revision), limit),
        );
        let mut config = GatewayConfig::in_memory().unwrap();
        config.mapper = OutputMapper::new(mapper);
        config.default_principal = Principal::local();
        let tool_router = Self::tool_router();
        let toolwire = Renderer::new(config, tool_router.list_all()).unwrap();
        Self { tool_router, toolwire }
    }

    #[tool(description = "Adds two integers.", output_schema = output_schema::<Sum>())]
    async fn add(
        &self,
        Parameters(pair): Parameters<Pair>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result = ToolResult::success(json!({"sum": pair.a + pair.b}));
        self.toolwire.render("add", result, &ctx).await
    }

    #[tool(description = "Claims a sum it does not have.", output_schema = output_schema::<Sum>())]
    async fn wrong(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let result = ToolResult::success(json!({"sum": "five"}));
        self.toolwire.render("wrong", result, &ctx).await
    }

    #[tool(description = "Lists many numbers.")]
    async fn many(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let result = ToolResult::success(json!((0..2000).collect::<Vec<u32>>()));
        self.toolwire.render("many", result, &ctx).await
    }

    #[tool(description = "Renders under a name the renderer does not know.")]
    async fn stray(&self, ctx: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        self.toolwire.render("elsewhere", ToolResult::empty(), &ctx).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Routed {
    fn get_info(&self) -> ServerConfig {
        self.toolwire.server_config()
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.toolwire.read_resource(request, ctx).await
    }
}

#[tokio::test]
async fn the_adapter_renders_for_the_request() {
    let mut peer = Connection::open(Routed::new(), "2024-11-05").await;
    // One name: the renderer's, from the mapper's server info.
    assert_eq!(peer.init["result"]["serverInfo"], json!({"name": "routed", "version": "3.0.0"}));
    assert_eq!(peer.init["result"]["capabilities"], json!({"resources": {}, "tools": {}}));
    // 2024-11-05 has no structuredContent: the data travels as the envelope text only.
    assert_eq!(
        peer.call("add", json!({"a": 2, "b": 3})).await["result"],
        json!({"content": [{"type": "text", "text": r#"{"success":true,"data":{"sum":5},"_meta":{"generatedAt":"NOW"}}"#}],
               "_meta": {"dev.toolwire/generatedAt": "NOW"}})
    );
    let mut peer = Connection::open(Routed::new(), "2025-06-18").await;
    assert_eq!(
        peer.call("add", json!({"a": 2, "b": 3})).await["result"]["structuredContent"],
        json!({"sum": 5})
    );
    let wrong = peer.call("wrong", json!({})).await;
    assert_eq!(wrong["result"]["isError"], true, "{wrong}");
    let envelope: Value =
        serde_json::from_str(wrong["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        envelope,
        json!({"success": false, "code": "tool_error",
               "error": "The tool's result does not match its output schema at /sum: \"five\" is not of type \"integer\"",
               "details": {"path": "/sum", "message": "\"five\" is not of type \"integer\""},
               "_meta": {"generatedAt": "NOW"}})
    );
    let stray = peer.call("stray", json!({})).await;
    assert_eq!(stray["error"]["code"], -32603, "{stray}");
    assert_eq!(stray["error"]["message"], "tool elsewhere failed with an internal error");
}

#[tokio::test]
async fn the_adapter_offloads_over_the_limit_and_serves_the_link() {
    let mut peer = Connection::open(Routed::new(), "2025-06-18").await;
    let many = peer.call("many", json!({})).await;
    let content = many["result"]["content"].as_array().unwrap();
    let link = content.iter().find(|block| block["type"] == "resource_link").unwrap();
    let uri = link["uri"].as_str().unwrap();
    assert!(uri.starts_with("toolwire://results/"), "{many}");
    assert_eq!(many["result"]["_meta"]["dev.toolwire/responseSize"], 17994, "{many}");
    let read = peer.ask("resources/read", json!({"uri": uri})).await;
    let stored = &read["result"]["contents"][0];
    assert_eq!(stored["uri"], uri, "{read}");
    assert!(stored["text"].as_str().unwrap().contains("1999"), "{read}");
}

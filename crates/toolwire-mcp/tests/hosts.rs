//! Claude Code's size opt-in on the wire: `tools/list` publishes
//! `_meta["anthropic/maxResultSizeChars"]` for a tool that declares `max_result_chars`, to
//! Claude Code alone and only where the revision has `Tool._meta`; that host's cap for the tool
//! then follows the declared value, above and below its default.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Value, json};
use support::Peer;
use toolwire_core::ToolResult;
use toolwire_mcp::{
    CallContext, Gateway, GatewayConfig, McpServer, Registry, RegistryError, ToolSpec,
};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Size {
    bytes: usize,
}

/// A result whose data is about `bytes` bytes of JSON.
async fn rows(input: Size, _: CallContext) -> ToolResult {
    ToolResult::builder().data(json!({"rows": "x".repeat(input.bytes)})).build().unwrap()
}

/// `small` opts into 8 000 characters, `large` into 120 000; `plain` declares nothing.
fn server() -> McpServer {
    let mut tools = Registry::new();
    for (name, chars) in [("small", Some(8_000)), ("large", Some(120_000)), ("plain", None)] {
        let mut spec = ToolSpec::new(name, "Answers rows.");
        if let Some(chars) = chars {
            spec = spec.max_result_chars(chars);
        }
        tools.register(spec, rows).unwrap();
    }
    let mut config = GatewayConfig::in_memory().unwrap();
    config.default_principal = toolwire_mcp::Principal::local();
    McpServer::new(Gateway::new(tools, config))
}

async fn connect(revision: &str, client_name: &str) -> Peer {
    let mut peer = Peer::connect(server());
    peer.initialize_as(revision, client_name).await;
    peer
}

fn definition(name: &str, meta: Option<Value>) -> Value {
    let mut tool = json!({
        "name": name,
        "description": "Answers rows.",
        "inputSchema": {"type": "object", "properties": {"bytes": {"type": "integer", "minimum": 0}}, "required": ["bytes"]}
    });
    if let Some(meta) = meta {
        tool["_meta"] = meta;
    }
    tool
}

#[tokio::test]
async fn only_claude_code_is_shown_the_size_opt_in() {
    let mut claude = connect("2025-06-18", "claude-code").await;
    let list = claude.request("tools/list", json!({})).await;
    assert_eq!(
        list["result"]["tools"],
        json!([
            definition("small", Some(json!({"anthropic/maxResultSizeChars": 8000}))),
            definition("large", Some(json!({"anthropic/maxResultSizeChars": 120000}))),
            definition("plain", None)
        ])
    );
    let bare =
        json!([definition("small", None), definition("large", None), definition("plain", None)]);
    // (`read_result` follows for the hosts that cannot follow links.)
    for client in ["Visual Studio Code", "codex-mcp-client", "cursor-vscode", "some-agent"] {
        let mut other = connect("2025-06-18", client).await;
        let list = other.request("tools/list", json!({})).await;
        let tools = list["result"]["tools"].as_array().expect("tools");
        assert_eq!(Value::Array(tools[..3].to_vec()), bare, "{client}");
    }
    // 2025-03-26 has no `Tool._meta`: nothing is published there, even to Claude Code.
    let mut older = connect("2025-03-26", "claude-code").await;
    let list = older.request("tools/list", json!({})).await;
    assert_eq!(list["result"]["tools"], bare);
}

/// Calls `tool` for about `bytes` bytes of data; returns whether the result was offloaded and
/// its wire size.
async fn call(peer: &mut Peer, tool: &str, bytes: usize) -> (bool, usize) {
    let answer =
        peer.request("tools/call", json!({"name": tool, "arguments": {"bytes": bytes}})).await;
    let result = &answer["result"];
    assert!(result.is_object(), "{answer}");
    let offloaded = result.to_string().contains("Full result stored at toolwire://results/");
    (offloaded, result.to_string().len())
}

#[tokio::test]
async fn claude_codes_cap_for_a_tool_follows_its_opt_in() {
    // The data goes out twice in the compat phase (the envelope text and `structuredContent`),
    // so a result is a little over twice its data.
    let mut claude = connect("2025-06-18", "claude-code").await;
    // The default cap (50 000) holds a result of 20 000 bytes of data of a tool without an
    // opt-in …
    let (offloaded, size) = call(&mut claude, "plain", 20_000).await;
    assert!(!offloaded && size > 40_000, "{size}");
    // … but not one of 40 000.
    let (offloaded, size) = call(&mut claude, "plain", 40_000).await;
    assert!(offloaded && size <= 50_000, "{size}");
    // An opt-in below the default lowers the cap for that tool …
    let (offloaded, size) = call(&mut claude, "small", 20_000).await;
    assert!(offloaded && size <= 8_000, "{size}");
    // … and one above it raises it, to the declared value.
    let (offloaded, size) = call(&mut claude, "large", 40_000).await;
    assert!(!offloaded && size > 80_000, "{size}");
    let (offloaded, size) = call(&mut claude, "large", 70_000).await;
    assert!(offloaded && size <= 120_000, "{size}");
    // Another host is never shown the opt-in, so its cap is not the tool's.
    let mut vscode = connect("2025-06-18", "Visual Studio Code").await;
    let (offloaded, size) = call(&mut vscode, "small", 20_000).await;
    assert!(!offloaded && size > 40_000, "{size}");
}

#[test]
fn an_opt_in_out_of_range_is_refused() {
    for (chars, message) in [
        (
            500_001,
            "tool `t`: `max_result_chars` = 500001 is above 500000, the most Claude Code accepts",
        ),
        (
            4_095,
            "tool `t`: `max_result_chars` = 4095 is below 4096, the least an offload stub needs",
        ),
    ] {
        let mut tools = Registry::new();
        let refused = tools.register(ToolSpec::new("t", "A tool.").max_result_chars(chars), rows);
        let Err(error @ RegistryError::Spec(_)) = refused else {
            panic!("{chars} accepted");
        };
        assert_eq!(error.to_string(), message);
    }
    let mut tools = Registry::new();
    for chars in [4_096, 500_000] {
        let name = format!("t{chars}");
        assert!(
            tools.register(ToolSpec::new(name, "A tool.").max_result_chars(chars), rows).is_ok()
        );
    }
}

//! The handler in process over an in-memory stream: typed tools, the published definitions, and
//! a panicking tool that yields -32603 without its text while the service goes on; the size of
//! what a request copies.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use support::Peer;
use toolwire_core::ToolError;
use toolwire_mcp::{CallContext, Gateway, GatewayConfig, McpServer, Registry, ToolSpec};

#[derive(Deserialize, JsonSchema)]
struct AddInput {
    /// First addend.
    a: i64,
    /// Second addend.
    b: i64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

#[derive(Deserialize, JsonSchema)]
struct Nothing {}

async fn start() -> Peer {
    let mut tools = Registry::new();
    tools
        .register_typed(
            ToolSpec::new("add", "Adds two integers.").title("Add"),
            |input: AddInput, _cx: CallContext| async move {
                Ok::<_, ToolError>(Sum { sum: input.a + input.b })
            },
        )
        .unwrap();
    tools
        .register(
            ToolSpec::new("explode", "Always panics."),
            |_input: Nothing, _cx: CallContext| async move {
                if true {
                    panic!("secret panic text");
                }
                toolwire_core::ToolResult::empty()
            },
        )
        .unwrap();
    let mut config = GatewayConfig::in_memory().unwrap();
    config.default_principal = toolwire_mcp::Principal::local();
    let mut peer = Peer::connect(McpServer::new(Gateway::new(tools, config)));
    let init = peer.initialize("2025-06-18").await;
    assert_eq!(init["capabilities"], json!({"resources": {}, "tools": {}}));
    peer
}

#[tokio::test]
async fn typed_tools_publish_derived_schemas() {
    let mut peer = start().await;
    let list = peer.request("tools/list", json!({})).await;
    let add = &list["result"]["tools"][0];
    assert_eq!(add["name"], "add");
    assert_eq!(add["title"], "Add");
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(add["inputSchema"]["properties"]["a"]["description"], "First addend.");
    assert_eq!(
        add["outputSchema"],
        json!({"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]})
    );
    let explode = &list["result"]["tools"][1];
    assert!(explode.get("outputSchema").is_none(), "{explode}");

    let call =
        peer.request("tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}})).await;
    assert_eq!(call["result"]["structuredContent"], json!({"sum": 5}));
    let first = call["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        first.starts_with(r#"{"success":true,"data":{"sum":5},"_meta":{"generatedAt":""#),
        "{first}"
    );

    let wrong =
        peer.request("tools/call", json!({"name": "add", "arguments": {"a": "two", "b": 3}})).await;
    assert_eq!(wrong["result"]["isError"], true);
    let envelope: Value =
        serde_json::from_str(wrong["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(envelope["code"], "invalid_arguments");
    assert_eq!(envelope["details"]["invalid"][0]["path"], "/a");

    let malformed = peer.request("tools/call", json!({"arguments": {}})).await;
    assert_eq!(malformed["error"]["code"], -32602, "{malformed}");
}

#[tokio::test]
async fn a_panicking_tool_is_an_internal_error_and_the_service_goes_on() {
    let mut peer = start().await;
    let boom = peer.request("tools/call", json!({"name": "explode", "arguments": {}})).await;
    assert_eq!(boom["error"]["code"], -32603, "{boom}");
    assert_eq!(boom["error"]["message"], "tool explode failed with an internal error");
    assert!(!boom.to_string().contains("secret panic text"));
    let next =
        peer.request("tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 1}})).await;
    assert_eq!(next["result"]["structuredContent"], json!({"sum": 2}));
}

#[tokio::test]
async fn a_huge_bad_argument_comes_back_cut_and_inline() {
    let mut peer = start().await;
    let huge = "x".repeat(4 << 20);
    let call =
        peer.request("tools/call", json!({"name": "add", "arguments": {"a": huge, "b": 3}})).await;
    let result = &call["result"];
    assert_eq!(result["isError"], true, "{}", &call.to_string()[..200]);
    // Small enough to go inline: nothing was offloaded (and so nothing stored).
    assert_eq!(result["content"].as_array().map(Vec::len), Some(1));
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.len() < 4096, "{} bytes", text.len());
    let envelope: Value = serde_json::from_str(text).unwrap();
    assert_eq!(envelope["code"], "invalid_arguments");
    let message = envelope["details"]["invalid"][0]["message"].as_str().unwrap();
    assert!(
        message.ends_with(r#"… (cut, 4194306 bytes in all) is not of type "integer""#),
        "{message}"
    );
}

/// The size of what `handler` returns, without calling it.
fn returned_size<'a, P, F>(
    _handler: impl FnOnce(&'a McpServer, P, rmcp::service::RequestContext<rmcp::RoleServer>) -> F,
) -> usize {
    std::mem::size_of::<F>()
}

/// rmcp spawns a task per request around `handle_request`, whose future holds the largest of the
/// handler's futures and is copied whole into the task and again when it ends: one handler
/// future of several KiB made every request of every method pay for it (with the 2026-07-28
/// task methods inline the request future was 7.5 KiB, 29 % of a small call's instructions as
/// callgrind counts them).
#[test]
fn a_request_copies_no_large_handler_future() {
    use rmcp::ServerHandler;
    let handler_futures = [
        ("tools/call", returned_size(<McpServer as ServerHandler>::call_tool)),
        ("tasks/get", returned_size(<McpServer as ServerHandler>::get_task)),
        ("tasks/update", returned_size(<McpServer as ServerHandler>::update_task)),
        ("tasks/cancel", returned_size(<McpServer as ServerHandler>::cancel_task)),
        ("resources/read", returned_size(<McpServer as ServerHandler>::read_resource)),
        ("prompts/get", returned_size(<McpServer as ServerHandler>::get_prompt)),
    ];
    for (method, size) in handler_futures {
        assert!(size <= 2048, "the future of {method} is {size} bytes; box it");
    }
    let request = returned_size(<McpServer as rmcp::Service<rmcp::RoleServer>>::handle_request);
    // About 4.2 KiB: rmcp's own subscription set-up is the largest part left.
    assert!(request <= 5120, "rmcp's request future is {request} bytes");
}

//! Fuzzes the tasks wire as the gateway's front end reads it (DESIGN §17): a sequence of
//! 2025-11-25 experimental task requests (`tools/call` with `params.task`, `tasks/get`,
//! `tasks/result`, `tasks/cancel`, `tasks/list`) answered by a server with an optional and a
//! required task tool. A `taskId` of `"$0"` stands for the first task the sequence created; a
//! request with `"as": "other"` comes from another principal. Nothing panics or hangs; every
//! error is invalid params or internal; and another principal's request about the first task
//! never sees it (`Unknown task`, as for a forged id).
//!
//! Input: a JSON array of `{"method", "params", "as"?}`, which a client controls.

#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use toolwire_core::{ToolError, ToolResult};
use toolwire_mcp::{
    CallContext, ExperimentalRequest, Gateway, GatewayConfig, McpServer, Principal, Registry,
    TaskSupport, ToolSpec, is_experimental_task_request,
};

const MAX_REQUESTS: usize = 8;

fn server() -> Option<McpServer> {
    let mut tools = Registry::new();
    let spec = ToolSpec::new("echo", "Echoes its arguments.").task_support(TaskSupport::Optional);
    tools
        .register(spec, |input: Value, _cx: CallContext| async move { ToolResult::success(input) })
        .ok()?;
    let spec = ToolSpec::new("fail", "Always fails.").task_support(TaskSupport::Required);
    tools
        .register(spec, |_input: Value, _cx: CallContext| async move {
            ToolResult::failure(ToolError::new(toolwire_core::ErrorCode::parse("tool_error"), "no"))
        })
        .ok()?;
    let config = GatewayConfig::in_memory().ok()?;
    Some(McpServer::new(Gateway::new(tools, config)))
}

/// `params` with every `"$0"` task id replaced by `first`.
fn resolved(params: &Value, first: Option<&str>) -> Value {
    let mut params = params.clone();
    if let (Some(id), Some(Value::String(given))) = (first, params.get_mut("taskId"))
        && given == "$0"
    {
        *given = id.to_owned();
    }
    params
}

fuzz_target!(|data: &[u8]| {
    let Ok(Value::Array(requests)) = serde_json::from_slice::<Value>(data) else { return };
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
        return;
    };
    let Some(server) = server() else { return };
    let owner = Principal::new("ann", ["tasks"]);
    let other = Principal::new("bob", ["tasks"]);
    runtime.block_on(async {
        let mut created: Vec<String> = Vec::new();
        for request in requests.iter().take(MAX_REQUESTS) {
            let Some(method) = request.get("method").and_then(Value::as_str) else { continue };
            let params = resolved(request.get("params").unwrap_or(&Value::Null), created.first().map(String::as_str));
            if !is_experimental_task_request(method, &params) {
                continue;
            }
            let foreign = request.get("as").and_then(Value::as_str) == Some("other");
            let principal = if foreign { &other } else { &owner };
            let listed = if foreign { Vec::new() } else { created.clone() };
            let asked = ExperimentalRequest {
                method,
                params: &params,
                principal,
                client_name: request.get("client").and_then(Value::as_str),
                listed: &listed,
            };
            let answer = tokio::time::timeout(Duration::from_secs(2), server.experimental_task_request(asked));
            let Ok(answer) = answer.await else { panic!("{method} {params} did not answer in 2 s") };
            if let Some(id) = answer.created {
                assert!(!foreign || created.is_empty() || id != created[0]);
                created.push(id);
            }
            match &answer.result {
                Ok(result) => {
                    let about_first = created.first().is_some_and(|id| params.get("taskId") == Some(&json!(id)));
                    assert!(
                        !(foreign && about_first && method != "tasks/list"),
                        "{method} as another principal saw the first task: {result}"
                    );
                }
                Err(error) => {
                    let code = error.code.0;
                    assert!(code == -32602 || code == -32603, "{method} {params}: {error:?}");
                    assert!(!error.message.is_empty());
                }
            }
        }
    });
});

//! 2025-11-25's experimental tasks (DESIGN §17). rmcp 3.11 carries only the 2026-07-28
//! extension's shapes (it drops `params.task`, has no `capabilities.tasks` nor `execution`), so
//! for a session on 2025-11-25 a layer in front of it, over Streamable HTTP ([`http`]) and over
//! stdio ([`stdio`]):
//! - answers a `tools/call` with `params.task` and `tasks/get|result|cancel|list` itself,
//!   through [`McpServer::experimental_task_request`] (the same tasks as 2026-07-28's: store,
//!   principal, TTL, cancellation), remembering the tasks each session created for
//!   `tasks/list`;
//! - adds `capabilities.tasks` to the `initialize` result and `execution.taskSupport` to the
//!   tools of `tools/list`;
//! - sends `notifications/tasks/status` (the task as `tasks/get` shows it) to the session that
//!   created a task each time its status or status message changes, until it ends: on stdout
//!   over stdio, on the session's standalone `GET` stream over HTTP. Best effort, as the
//!   revision allows: a client does not rely on them.
//!
//! Only those messages are read: a request is looked at for `"task` before anything is parsed,
//! and every other message goes on as it came.

pub(crate) mod http;
pub(crate) mod stdio;

use futures::StreamExt as _;
use serde_json::{Value, json};
use toolwire_mcp::{ExperimentalRequest, McpServer, Principal, TaskSupport};

/// The revision whose experimental tasks this layer serves.
const REVISION: &str = "2025-11-25";

/// The most tasks a session remembers for `tasks/list` (the oldest go first).
const LISTED: usize = 1000;

/// The method of a task's status notification.
const STATUS: &str = "notifications/tasks/status";

/// What the layer knows of one 2025-11-25 session: its client's name and the tasks it created.
#[derive(Debug, Default, Clone)]
struct Session {
    client: Option<String>,
    tasks: Vec<String>,
}

impl Session {
    fn remember(&mut self, task: String) {
        if self.tasks.len() >= LISTED {
            self.tasks.remove(0);
        }
        self.tasks.push(task);
    }
}

/// `result`, an `initialize` result: on 2025-11-25, when a tool's calls may become tasks, with
/// `capabilities.tasks` (and `true`: the session is one this layer serves). A server none of
/// whose tools runs as a task has nothing to add, and its sessions go to rmcp unread.
fn with_capability(server: &McpServer, result: &mut Value) -> bool {
    if result.get("protocolVersion").and_then(Value::as_str) != Some(REVISION) {
        return false;
    }
    let Some(tasks) = server.experimental_tasks_capability() else { return false };
    if let Some(Value::Object(capabilities)) = result.get_mut("capabilities") {
        capabilities.insert("tasks".to_owned(), tasks);
    }
    true
}

/// `result`, a `tools/list` result: each tool whose calls may become tasks with its
/// `execution.taskSupport` (`true` when there was one).
fn with_execution(server: &McpServer, result: &mut Value) -> bool {
    let mut changed = false;
    let tools = result.get_mut("tools").and_then(Value::as_array_mut).into_iter().flatten();
    for tool in tools {
        let support =
            tool.get("name").and_then(Value::as_str).map(|name| server.task_support_of(name));
        if let (Some(support @ (TaskSupport::Optional | TaskSupport::Required)), Some(tool)) =
            (support, tool.as_object_mut())
        {
            tool.insert("execution".to_owned(), json!({"taskSupport": support.as_str()}));
            changed = true;
        }
    }
    changed
}

/// The request `message` holds when it is one of 2025-11-25's task requests (a request, with
/// an `id`): only a message mentioning `"task` is parsed.
fn task_request(message: &[u8]) -> Option<Value> {
    if !message.windows(5).any(|window| window == b"\"task") {
        return None;
    }
    let message = serde_json::from_slice::<Value>(message).ok()?;
    let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
    let params = message.get("params").unwrap_or(&Value::Null);
    (message.get("id").is_some() && toolwire_mcp::is_experimental_task_request(method, params))
        .then_some(message)
}

/// The JSON-RPC reply to `request` (see [`task_request`]) of `session` for `principal`, and the
/// id of the task it created, if any (the session remembers it for `tasks/list`).
async fn reply(
    server: &McpServer,
    request: &Value,
    principal: &Principal,
    session: &Session,
) -> (Value, Option<String>) {
    let asked = ExperimentalRequest {
        method: request.get("method").and_then(Value::as_str).unwrap_or_default(),
        params: request.get("params").unwrap_or(&Value::Null),
        principal,
        client_name: session.client.as_deref(),
        listed: &session.tasks,
    };
    let answered = server.experimental_task_request(asked).await;
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let reply = match answered.result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
    };
    (reply, answered.created)
}

/// Hands `tell` the task `reply` created, for `notifications/tasks/status`, each time it
/// changes, for `principal` (see [`McpServer::experimental_task_changes`]), until the task has
/// ended or `tell` answers `false` (its session is gone).
fn tell_changes<F, Told>(server: &McpServer, reply: &Value, principal: &Principal, mut tell: F)
where
    F: FnMut(Value) -> Told + Send + 'static,
    Told: Future<Output = bool> + Send,
{
    let Some(shown) = reply.pointer("/result/task") else { return };
    let changes = server.experimental_task_changes(shown, principal);
    tokio::spawn(async move {
        let mut changes = std::pin::pin!(changes);
        while let Some(task) = changes.next().await {
            if !tell(task).await {
                break;
            }
        }
    });
}

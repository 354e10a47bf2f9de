//! 2025-11-25's experimental tasks over Streamable HTTP (DESIGN §17). rmcp 3.11 carries only
//! the 2026-07-28 extension's shapes, so for a session on 2025-11-25 this layer in front of it:
//! - answers a `tools/call` with `params.task` and `tasks/get|result|cancel|list` itself,
//!   through [`McpServer::experimental_task_request`] (the same tasks as 2026-07-28's: store,
//!   principal, TTL, cancellation), remembering the tasks each session created for
//!   `tasks/list`;
//! - adds `capabilities.tasks` to the `initialize` result and `execution.taskSupport` to the
//!   tools of `tools/list` (the session manager calls [`initialized`] and [`tools_listed`]).
//!
//! Only those requests are read here: a 2025-11-25 request's body is looked at for `"task`
//! before anything is parsed, and every other request goes on to rmcp as it came. Over stdio
//! there is no such layer: a 2025-11-25 stdio client's calls are answered in their requests.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::{CustomResult, ServerJsonRpcMessage, ServerResult};
use serde_json::{Value, json};
use toolwire_mcp::{ExperimentalRequest, McpServer, Principal, TaskSupport};

/// The revision whose experimental tasks this layer serves.
const REVISION: &str = "2025-11-25";

/// rmcp's own bound on a request body: what is read here is never more than rmcp would read.
const MAX_BODY: usize = 4 * 1024 * 1024;

/// The most tasks a session remembers for `tasks/list` (the oldest go first).
const LISTED: usize = 1000;

/// The sessions on 2025-11-25: their client's name and the tasks they created.
#[derive(Debug, Default)]
pub(crate) struct Sessions(Mutex<HashMap<String, Session>>);

#[derive(Debug, Default)]
struct Session {
    client: Option<String>,
    tasks: Vec<String>,
}

impl Sessions {
    fn with<T>(&self, id: &str, f: impl FnOnce(&mut Session) -> T) -> Option<T> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).get_mut(id).map(f)
    }

    /// Forgets session `id`.
    pub(crate) fn remove(&self, id: &str) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
    }

    /// Keeps only the sessions `live` says still exist (run at each new session: rmcp ends
    /// idle sessions without telling).
    pub(crate) fn retain(&self, live: impl Fn(&str) -> bool) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).retain(|id, _| live(id));
    }
}

/// The `initialize` answer of session `id` (its client named `client`): on 2025-11-25, when a
/// tool's calls may become tasks, the session is remembered and `capabilities.tasks` added.
pub(crate) fn initialized(
    sessions: &Sessions,
    server: &McpServer,
    id: &str,
    client: Option<String>,
    answer: ServerJsonRpcMessage,
) -> ServerJsonRpcMessage {
    let ServerJsonRpcMessage::Response(mut response) = answer else { return answer };
    let ServerResult::InitializeResult(result) = &response.result else {
        return ServerJsonRpcMessage::Response(response);
    };
    // A server none of whose tools runs as a task has nothing to add, and its sessions' requests
    // go to rmcp unread.
    let capability = server.experimental_tasks_capability();
    let (REVISION, Some(tasks)) = (result.protocol_version.as_str(), capability) else {
        return ServerJsonRpcMessage::Response(response);
    };
    sessions
        .0
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id.to_owned(), Session { client, tasks: Vec::new() });
    if let Ok(Value::Object(mut shown)) = serde_json::to_value(result) {
        if let Some(Value::Object(capabilities)) = shown.get_mut("capabilities") {
            capabilities.insert("tasks".to_owned(), tasks);
        }
        response.result = ServerResult::CustomResult(CustomResult(Value::Object(shown)));
    }
    ServerJsonRpcMessage::Response(response)
}

/// A `tools/list` answer of a 2025-11-25 session: each tool whose calls may become tasks with
/// its `execution.taskSupport`.
pub(crate) fn tools_listed(
    server: &McpServer,
    answer: &ServerJsonRpcMessage,
) -> Option<ServerJsonRpcMessage> {
    let ServerJsonRpcMessage::Response(response) = answer else { return None };
    let ServerResult::ListToolsResult(list) = &response.result else { return None };
    let mut shown = serde_json::to_value(list).ok()?;
    let mut changed = false;
    for tool in shown.get_mut("tools").and_then(Value::as_array_mut)? {
        let support =
            tool.get("name").and_then(Value::as_str).map(|name| server.task_support_of(name));
        if let (Some(support @ (TaskSupport::Optional | TaskSupport::Required)), Some(tool)) =
            (support, tool.as_object_mut())
        {
            tool.insert("execution".to_owned(), json!({"taskSupport": support.as_str()}));
            changed = true;
        }
    }
    let mut response = response.clone();
    response.result = ServerResult::CustomResult(CustomResult(shown));
    changed.then_some(ServerJsonRpcMessage::Response(response))
}

/// Whether session `id` is a 2025-11-25 session this layer serves.
pub(crate) fn serves(sessions: &Sessions, id: &str) -> bool {
    sessions.with(id, |_| ()).is_some()
}

/// A 2025-11-25 request of a session this layer serves: answered here when it is a task
/// request (`Ok`), else handed back whole for rmcp (`Err`).
pub(crate) async fn answer(
    sessions: &Sessions,
    server: &McpServer,
    request: Request,
) -> Result<Response, Request> {
    let is_revision = request
        .headers()
        .get("mcp-protocol-version")
        .is_some_and(|version| version.as_bytes() == REVISION.as_bytes());
    let session =
        request.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let Some(session) = session.filter(|id| is_revision && serves(sessions, id)) else {
        return Err(request);
    };
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let message = format!("Payload Too Large: request body exceeds {MAX_BODY} bytes");
            return Ok((StatusCode::PAYLOAD_TOO_LARGE, message).into_response());
        }
    };
    let message = mentions_task(&bytes)
        .then(|| serde_json::from_slice::<Value>(&bytes).ok())
        .flatten()
        .filter(|message| {
            let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
            let params = message.get("params").unwrap_or(&Value::Null);
            message.get("id").is_some()
                && toolwire_mcp::is_experimental_task_request(method, params)
        });
    let Some(message) = message else {
        return Err(Request::from_parts(parts, Body::from(bytes)));
    };
    let principal =
        parts.extensions.get::<Principal>().cloned().unwrap_or_else(Principal::anonymous);
    let (client, listed) =
        sessions.with(&session, |s| (s.client.clone(), s.tasks.clone())).unwrap_or_default();
    let request = ExperimentalRequest {
        method: message.get("method").and_then(Value::as_str).unwrap_or_default(),
        params: message.get("params").unwrap_or(&Value::Null),
        principal: &principal,
        client_name: client.as_deref(),
        listed: &listed,
    };
    let answered = server.experimental_task_request(request).await;
    if let Some(created) = answered.created {
        sessions.with(&session, |s| {
            if s.tasks.len() >= LISTED {
                s.tasks.remove(0);
            }
            s.tasks.push(created);
        });
    }
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let reply = match answered.result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
    };
    let mut response = Response::new(Body::from(reply.to_string()));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(response)
}

/// Whether `body` mentions `"task` at all: only then can it be a task request.
fn mentions_task(body: &[u8]) -> bool {
    body.windows(5).any(|window| window == b"\"task")
}

//! 2025-11-25's experimental tasks (SEP-1686), for a front end that reads the raw request:
//! rmcp 3.11 carries only the 2026-07-28 extension's shapes (it drops `params.task` and has no
//! `capabilities.tasks` nor `execution`), so the gateway's layer in front of it (over Streamable
//! HTTP and over stdio) hands this revision's task requests here and adds the capability and
//! `execution.taskSupport` to what rmcp answers.
//!
//! The client asks for a task with `params.task {ttl}` on `tools/call` and gets
//! `{task: {taskId, status, createdAt, lastUpdatedAt, ttl, pollInterval}}`; `tasks/get` answers
//! the task, `tasks/result` waits for its end and answers the result with the
//! `io.modelcontextprotocol/related-task` `_meta`, `tasks/cancel` answers the cancelled task
//! (`-32602` for one that has ended), `tasks/list` the tasks of the session. A tool result with
//! `isError` is a `failed` task here (2026-07-28 calls it `completed`). The task itself is the
//! same record as on 2026-07-28: the same store, principal binding, TTL and cancellation.
//! Nothing is asked of the client inside a task on this revision: a tool that asks for input
//! gets the failure `input_required`. What `notifications/tasks/status` tells a client is
//! [`McpServer::experimental_task_changes`]: the task's record read back at its poll interval,
//! so a change made on another node sharing the store is told too.

use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use futures::Stream;
use rmcp::ErrorData;
use rmcp::model::TaskStatus;
use serde_json::{Map, Value, json};
use tokio::sync::watch;
use toolwire_core::McpRevision;
use toolwire_store::RecordId;

use super::stored::StoredTask;
use super::{Run, TaskSupport};
use crate::catalog::Entry;
use crate::input::{Asks, checked};
use crate::registry::{CallContext, Principal};
use crate::server::McpServer;

/// The revision whose experimental tasks this module serves.
const REVISION: McpRevision = McpRevision::V2025_11_25;

/// The `_meta` key tying a result to its task.
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// One request of 2025-11-25's experimental tasks, as the front end read it.
#[derive(Debug, Clone, Copy)]
pub struct ExperimentalRequest<'a> {
    /// The JSON-RPC method.
    pub method: &'a str,
    /// Its `params` (`Value::Null` when absent).
    pub params: &'a Value,
    /// The caller.
    pub principal: &'a Principal,
    /// The `clientInfo.name` of the session, which picks the host profile results are rendered
    /// for.
    pub client_name: Option<&'a str>,
    /// The ids of the tasks this session created, for `tasks/list`.
    pub listed: &'a [String],
}

/// The answer to an [`ExperimentalRequest`].
#[derive(Debug)]
pub struct ExperimentalAnswer {
    /// The JSON-RPC result, or error.
    pub result: Result<Value, ErrorData>,
    /// The id of the task the request created, if it created one (for `tasks/list`).
    pub created: Option<String>,
}

/// Whether `method` with `params` is a request of 2025-11-25's experimental tasks:
/// `tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/list`, or `tools/call` with a
/// `params.task` object.
pub fn is_experimental_task_request(method: &str, params: &Value) -> bool {
    match method {
        "tasks/get" | "tasks/result" | "tasks/cancel" | "tasks/list" => true,
        "tools/call" => params.get("task").is_some_and(Value::is_object),
        _ => false,
    }
}

fn invalid(message: String) -> ErrorData {
    ErrorData::invalid_params(message, None)
}

fn task_id(params: &Value) -> Result<&str, ErrorData> {
    params
        .get("taskId")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("params.taskId must be a string".to_owned()))
}

/// How long to wait between two reads of a task polled every `poll_interval_ms`: within 100 ms
/// and a second, so that a waiting request neither hammers the store nor lags.
fn poll_wait(poll_interval_ms: u64) -> Duration {
    Duration::from_millis(poll_interval_ms)
        .clamp(Duration::from_millis(100), Duration::from_secs(1))
}

/// What a status notification is sent for: the task's status and status message as shown.
fn seen(task: &Value) -> (Value, Value) {
    let member = |name| task.get(name).cloned().unwrap_or(Value::Null);
    (member("status"), member("statusMessage"))
}

/// The task as 2025-11-25 shows it under `id`.
fn wire(task: &StoredTask, id: RecordId) -> Value {
    let status = if task.status == TaskStatus::Completed && task.failure {
        Value::String("failed".to_owned())
    } else {
        serde_json::to_value(task.status).unwrap_or(Value::Null)
    };
    let mut shown = json!({
        "taskId": id.to_string(),
        "status": status,
        "createdAt": task.created_at,
        "lastUpdatedAt": task.last_updated_at,
        "ttl": task.ttl_ms,
        "pollInterval": task.poll_interval_ms,
    });
    if let Some(message) = &task.status_message {
        shown["statusMessage"] = Value::String(message.clone());
    }
    shown
}

impl McpServer {
    /// 2025-11-25's `capabilities.tasks` when a tool's calls may become tasks.
    pub fn experimental_tasks_capability(&self) -> Option<Value> {
        self.gateway
            .catalog
            .current()
            .has_tasks()
            .then(|| json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}))
    }

    /// How tool `name` supports tasks (`Forbidden` for a tool this server does not serve): its
    /// `execution.taskSupport` on 2025-11-25.
    pub fn task_support_of(&self, name: &str) -> TaskSupport {
        self.gateway.catalog.get(name).map_or(TaskSupport::Forbidden, |e| e.tool.spec.task_support)
    }

    /// Answers one request of 2025-11-25's experimental tasks (see
    /// [`is_experimental_task_request`]).
    pub async fn experimental_task_request(
        &self,
        request: ExperimentalRequest<'_>,
    ) -> ExperimentalAnswer {
        let ExperimentalRequest { method, params, principal, client_name, listed } = request;
        let host = self.gateway.config.hosts.for_client(client_name);
        let answered = |result| ExperimentalAnswer { result, created: None };
        match method {
            "tools/call" => match self.experimental_create(params, principal).await {
                Ok((task, id)) => ExperimentalAnswer {
                    result: Ok(json!({"task": task})),
                    created: Some(id.to_string()),
                },
                Err(error) => answered(Err(error)),
            },
            "tasks/get" => answered(self.experimental_get(params, principal).await),
            "tasks/result" => answered(self.experimental_result(params, principal, host).await),
            "tasks/cancel" => answered(self.experimental_cancel(params, principal).await),
            _ => answered(Ok(self.experimental_list(listed, principal).await)),
        }
    }

    async fn experimental_create(
        &self,
        params: &Value,
        principal: &Principal,
    ) -> Result<(Value, RecordId), ErrorData> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("params.name must be a string".to_owned()))?;
        let arguments = match params.get("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(object @ Value::Object(_)) => object.clone(),
            Some(_) => return Err(invalid("params.arguments must be an object".to_owned())),
        };
        let ttl = params
            .get("task")
            .and_then(|task| task.get("ttl"))
            .and_then(Value::as_u64)
            .map(Duration::from_millis);
        let Some(Entry { tool, .. }) = self.gateway.catalog.get(name) else {
            return Err(invalid(format!("Unknown tool: {name}")));
        };
        if tool.spec.task_support == TaskSupport::Forbidden {
            return Err(invalid(format!(
                "tool {name} does not run as a task (its execution.taskSupport is forbidden): call it without params.task"
            )));
        }
        let context =
            CallContext::new(name, principal.clone(), REVISION, "task").with_asks(Asks::default());
        let (status, heard) = watch::channel(None);
        let context = context.with_status(status);
        let server = self.clone();
        let running = Arc::clone(&tool);
        let given = arguments.clone();
        // Nothing is asked inside a task on this revision: an ask is the failure input_required.
        let mut run: Run = Box::pin(async move {
            let result = server.run_tool(&running, &given, context).await;
            result.map(|result| checked(result, Asks::default()))
        });
        let finished = match futures::poll!(run.as_mut()) {
            Poll::Ready(outcome) => Some(outcome),
            Poll::Pending => None,
        };
        let principal = principal.clone();
        let (id, task) =
            self.create(&tool, arguments, principal, ttl, finished, run, heard).await?;
        Ok((wire(&task, id), id))
    }

    async fn experimental_get(
        &self,
        params: &Value,
        principal: &Principal,
    ) -> Result<Value, ErrorData> {
        let loaded = self.load(task_id(params)?, principal).await?;
        Ok(wire(&loaded.task, loaded.id))
    }

    /// `tasks/result`: waits (polling the store) until the task has ended, then its result.
    async fn experimental_result(
        &self,
        params: &Value,
        principal: &Principal,
        host: &toolwire_core::host::HostProfile,
    ) -> Result<Value, ErrorData> {
        let asked = task_id(params)?;
        let loaded = loop {
            let loaded = self.load(asked, principal).await?;
            if loaded.task.status.is_terminal() {
                break loaded;
            }
            tokio::time::sleep(poll_wait(loaded.task.poll_interval_ms)).await;
        };
        let task = &loaded.task;
        match task.status {
            TaskStatus::Completed => {
                let mut result = self.render_task(task, REVISION, host, principal).await?;
                let meta = result.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(meta) = meta {
                    meta.insert(RELATED_TASK.to_owned(), json!({"taskId": loaded.id.to_string()}));
                }
                Ok(Value::Object(result))
            }
            TaskStatus::Failed => Err(task
                .error
                .clone()
                .unwrap_or_else(|| ErrorData::internal_error("the task failed", None))),
            _ => Err(ErrorData::invalid_request(format!("task {asked} was cancelled"), None)),
        }
    }

    async fn experimental_cancel(
        &self,
        params: &Value,
        principal: &Principal,
    ) -> Result<Value, ErrorData> {
        let asked = task_id(params)?;
        let loaded = self.load(asked, principal).await?;
        if loaded.task.status.is_terminal() {
            return Err(invalid(format!("task {asked} has already ended")));
        }
        let id = loaded.id;
        let task = self.cancel_loaded(loaded, principal).await?;
        Ok(wire(&task, id))
    }

    /// `tasks/list`: the session's tasks that are still kept, in the order they were created.
    async fn experimental_list(&self, listed: &[String], principal: &Principal) -> Value {
        let mut tasks = Vec::new();
        for id in listed {
            if let Ok(loaded) = self.load(id, principal).await {
                tasks.push(wire(&loaded.task, loaded.id));
            }
        }
        json!({"tasks": tasks})
    }

    /// The task `shown` (a Task object as this revision showed it to the client that created
    /// it, for `principal`) each time its status or status message changes from what was
    /// last shown: what `notifications/tasks/status` carries. Read from the store at the
    /// task's poll interval; the stream ends once the task has ended (after telling so) or is
    /// gone, and is empty for a task shown ended.
    pub fn experimental_task_changes(
        &self,
        shown: &Value,
        principal: &Principal,
    ) -> impl Stream<Item = Value> + Send + 'static {
        let id = shown.get("taskId").and_then(Value::as_str).and_then(RecordId::parse);
        let ended = matches!(
            shown.get("status").and_then(Value::as_str),
            Some("completed" | "failed" | "cancelled")
        );
        let wait = poll_wait(shown.get("pollInterval").and_then(Value::as_u64).unwrap_or(0));
        let start = id.filter(|_| !ended).map(|id| (self.clone(), id, seen(shown)));
        let principal = principal.clone();
        futures::stream::unfold(start, move |state| {
            let principal = principal.clone();
            async move {
                let (server, id, mut last) = state?;
                loop {
                    tokio::time::sleep(wait).await;
                    let loaded = match server.load_id(id, &principal).await {
                        Ok(Some(loaded)) => loaded,
                        Ok(None) => return None,
                        // The next read tries again.
                        Err(error) => {
                            tracing::debug!(%error, task = %id, "could not read a task to tell its status");
                            continue;
                        }
                    };
                    let task = wire(&loaded.task, id);
                    let now = seen(&task);
                    if loaded.task.status.is_terminal() {
                        return Some((task, None));
                    }
                    if now != last {
                        last = now;
                        return Some((task, Some((server, id, last))));
                    }
                }
            }
        })
    }
}

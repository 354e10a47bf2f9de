//! An upstream's own task, followed to its end, in either revision's kind (DESIGN §17): the
//! tasks extension (2026-07-28, SEP-2663), where the upstream answers `tools/call` with a task
//! whose `tasks/get` inlines the result; and 2025-11-25's experimental core tasks (SEP-1686),
//! where the gateway asks for the task with `params.task` and reads the result with
//! `tasks/result`. Either is polled with `tasks/get` at the interval it asks for (kept within
//! [`POLL_MIN`]…[`POLL_MAX`]) until it ends. The gateway declares the extension on every
//! request, so an upstream that has it may turn any call into a task; a 2025-11-25 upstream
//! cannot say which of its tools need one (rmcp reads no `execution.taskSupport`), so a call it
//! refuses for want of a task is made again as one ([`needs_core_task`]). A call the gateway
//! stops waiting for cancels the upstream's task with `tasks/cancel`, and so does one whose task
//! asks for input: input inside an upstream's task is not relayed yet.

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientRequest, CreateTaskResult, CustomRequest, ErrorCode,
    GetTaskParams, ProtocolVersion, ServerResult, TaskPayload,
};
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde_json::{Value, json};
use toolwire_mcp::CallContext;

use super::relay::{CancelOnDrop, TaskKind};
use super::source::printable;

/// The shortest wait between two polls, whatever the upstream asks.
const POLL_MIN: Duration = Duration::from_millis(50);
/// The longest wait between two polls, whatever the upstream asks.
const POLL_MAX: Duration = Duration::from_secs(5);
/// The wait between two polls of an upstream that suggests none.
const POLL_DEFAULT: Duration = Duration::from_millis(500);
/// How long a 2025-11-25 upstream is asked to keep a task: the gateway cancels the task when it
/// stops waiting, so this only bounds what a lost gateway leaves behind.
const CORE_TASK_TTL: Duration = Duration::from_secs(3600);
/// Where 2025-11-25 marks the task a `tasks/result` answer belongs to; not the tool's to keep.
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// Why a call relayed to an upstream brought no result.
#[derive(Debug)]
pub(super) enum Failure {
    /// The upstream refused a request or the connection failed.
    Service(ServiceError),
    /// A request, or the whole call, went past its limit.
    Timeout,
    /// The upstream's task failed (a JSON-RPC error inside it), with the error's message.
    Failed(String),
    /// The upstream cancelled its task.
    Cancelled,
    /// The upstream answered a poll of its task with an error (it no longer knows the task,
    /// say), with the error's message.
    Lost(String),
    /// The upstream asked for input inside its task, which is not relayed yet.
    InputRequired,
    /// The upstream's answer came but cannot be read (what the model is told).
    Unreadable(String),
}

/// `request` within `limit`, when there is one.
pub(super) async fn within<T>(
    limit: Option<Duration>,
    request: impl Future<Output = Result<T, ServiceError>>,
) -> Result<T, Failure> {
    let answer = match limit {
        Some(limit) => tokio::time::timeout(limit, request).await.map_err(|_| Failure::Timeout)?,
        None => request.await,
    };
    answer.map_err(Failure::Service)
}

/// How an upstream's task stands at one look.
struct Look {
    state: State,
    /// Its status message, printable.
    message: Option<String>,
    /// The poll interval it asks for now, in milliseconds.
    interval_ms: Option<u64>,
}

enum State {
    Working,
    InputRequired,
    /// It ended: its result (a tool error included), or why there is none.
    Ended(Result<Value, Failure>),
}

/// Polls the task the upstream `created` (the extension's kind) until it ends, each `tasks/get`
/// within `each` (none: the caller bounds the whole), saying how it goes on `context`; the
/// `CallToolResult` of a completed task, as JSON. See [`settle`] for what a task given up does.
pub(super) async fn follow(
    peer: &Peer<RoleClient>,
    created: CreateTaskResult,
    context: &CallContext,
    each: Option<Duration>,
    cancel_limit: Duration,
) -> Result<Value, Failure> {
    let task = created.task;
    let id = task.task_id;
    let cancel = CancelOnDrop::task(peer.clone(), id.clone(), cancel_limit, TaskKind::Extension);
    let seed = Seed {
        message: task.status_message.as_deref().map(printable),
        interval_ms: task.poll_interval_ms,
        ended: task.status.is_terminal(),
    };
    settle(cancel, context, seed, || look_extension(peer, &id, each)).await
}

/// Whether `answer`, a `tools/call` answer of the upstream behind `peer`, is a 2025-11-25
/// upstream's refusal of a call that needs a task: the spec's `-32601`, or the tool error the
/// official TypeScript SDK (1.x) makes of it (`MCP error -32601: Tool … requires task
/// augmentation`).
pub(super) fn needs_core_task(
    peer: &Peer<RoleClient>,
    answer: &Result<ServerResult, Failure>,
) -> bool {
    let core =
        peer.peer_info().is_some_and(|info| info.protocol_version == ProtocolVersion::V_2025_11_25);
    core && match answer {
        Err(Failure::Service(ServiceError::McpError(error))) => {
            error.code == ErrorCode::METHOD_NOT_FOUND
        }
        Ok(ServerResult::CallToolResult(result)) => {
            result.is_error == Some(true)
                && matches!(result.content.as_slice(), [only] if only
                    .as_text()
                    .is_some_and(|text| text.text.starts_with("MCP error -32601:")))
        }
        _ => false,
    }
}

/// `tools/call` with `params` as a 2025-11-25 task (`params.task`), for rmcp's typed request has
/// no `task`.
pub(super) fn core_task_call(params: &CallToolRequestParams) -> Result<ClientRequest, Failure> {
    let mut params = serde_json::to_value(params)
        .map_err(|_| Failure::Service(ServiceError::UnexpectedResponse))?;
    params["task"] = json!({"ttl": CORE_TASK_TTL.as_millis() as u64});
    Ok(ClientRequest::CustomRequest(CustomRequest::new("tools/call", Some(params))))
}

/// The JSON of an answer to a request rmcp does not type (a custom request): rmcp decodes every
/// answer into its untagged `ServerResult`, whose first variant that fits may not be
/// `CustomResult` (a 2025-11-25 task reads as the extension's `GetTaskResult`, without its
/// `pollInterval`); what that variant kept is read back.
fn answer_json(answer: &ServerResult) -> Result<Value, Failure> {
    match answer {
        ServerResult::CustomResult(custom) => Ok(custom.0.clone()),
        other => serde_json::to_value(other)
            .map_err(|_| Failure::Service(ServiceError::UnexpectedResponse)),
    }
}

/// Polls the 2025-11-25 task the upstream `created` (`{task: {taskId, status, pollInterval,
/// …}}`) until it ends, as [`follow`] does, and reads its result with `tasks/result`.
pub(super) async fn follow_core(
    peer: &Peer<RoleClient>,
    created: &Value,
    context: &CallContext,
    each: Option<Duration>,
    cancel_limit: Duration,
) -> Result<Value, Failure> {
    let task = &created["task"];
    let Some(id) = task.get("taskId").and_then(Value::as_str) else {
        return Err(Failure::Service(ServiceError::UnexpectedResponse));
    };
    let cancel = CancelOnDrop::task(peer.clone(), id.to_owned(), cancel_limit, TaskKind::Core);
    let seed = Seed {
        message: task.get("statusMessage").and_then(Value::as_str).map(printable),
        interval_ms: task.get("pollInterval").and_then(Value::as_u64),
        ended: matches!(
            task.get("status").and_then(Value::as_str),
            Some("completed" | "failed" | "cancelled")
        ),
    };
    settle(cancel, context, seed, || look_core(peer, id, each)).await
}

/// What the answer that created a task says of it.
struct Seed {
    message: Option<String>,
    interval_ms: Option<u64>,
    /// It had ended already: it is read at once.
    ended: bool,
}

/// Looks at a task (`look`) until it ends, at the interval it asks for, saying how it goes on
/// `context` (the gateway task's status, when the call runs as one). Given up before the task
/// ended — dropped, a look that failed, input asked for — `cancel` cancels it at the upstream,
/// so that no upstream work runs on for nobody.
async fn settle<F>(
    mut cancel: CancelOnDrop,
    context: &CallContext,
    seed: Seed,
    mut look: impl FnMut() -> F,
) -> Result<Value, Failure>
where
    F: Future<Output = Result<Look, Failure>>,
{
    context.set_status(
        seed.message
            .unwrap_or_else(|| "accepted by the upstream server, which is working on it".into()),
    );
    let mut interval = poll_interval(seed.interval_ms);
    let mut wait = if seed.ended { Duration::ZERO } else { interval };
    loop {
        tokio::time::sleep(wait).await;
        let got = look().await?;
        if let Some(message) = got.message {
            context.set_status(message);
        }
        if got.interval_ms.is_some() {
            interval = poll_interval(got.interval_ms);
        }
        wait = interval;
        match got.state {
            State::Working => {}
            // Left armed: the guard cancels the task, which would wait for its input otherwise.
            State::InputRequired => return Err(Failure::InputRequired),
            State::Ended(ended) => {
                cancel.disarm();
                return ended;
            }
        }
    }
}

/// The upstream's `-32602` (or any error) answering a look at its task is about the task (an
/// unknown one, say), not the caller's arguments.
fn lost(failure: Failure) -> Failure {
    match failure {
        Failure::Service(ServiceError::McpError(error)) => Failure::Lost(printable(&error.message)),
        other => other,
    }
}

/// One `tasks/get` of the extension's task `id`.
async fn look_extension(
    peer: &Peer<RoleClient>,
    id: &str,
    each: Option<Duration>,
) -> Result<Look, Failure> {
    let got = within(each, peer.get_task(GetTaskParams::new(id.to_owned()))).await.map_err(lost)?;
    let got = got.task;
    let state = match got.payload {
        TaskPayload::Completed { result } => State::Ended(Ok(Value::Object(result))),
        TaskPayload::Failed { error } => {
            let message = error.get("message").and_then(Value::as_str).unwrap_or("no message");
            State::Ended(Err(Failure::Failed(printable(message))))
        }
        TaskPayload::Cancelled => State::Ended(Err(Failure::Cancelled)),
        TaskPayload::InputRequired { .. } => State::InputRequired,
        // `working`, or a status this build does not know: polled again.
        _ => State::Working,
    };
    Ok(Look {
        state,
        message: got.task.status_message.as_deref().map(printable),
        interval_ms: got.task.poll_interval_ms,
    })
}

/// One `tasks/get` of the 2025-11-25 task `id`, and its `tasks/result` once it ended.
async fn look_core(
    peer: &Peer<RoleClient>,
    id: &str,
    each: Option<Duration>,
) -> Result<Look, Failure> {
    let got = within(each, custom(peer, "tasks/get", id)).await.map_err(lost)?;
    let got = answer_json(&got)?;
    let message = got.get("statusMessage").and_then(Value::as_str).map(printable);
    let state = match got.get("status").and_then(Value::as_str) {
        Some("completed") => State::Ended(core_result(peer, id, each).await),
        // A tool error ends a 2025-11-25 task `failed`, its result the tool error.
        Some("failed") => State::Ended(match core_result(peer, id, each).await {
            Ok(result) if result.get("isError").and_then(Value::as_bool) == Some(true) => {
                Ok(result)
            }
            _ => Err(Failure::Failed(message.clone().unwrap_or_else(|| "no message".into()))),
        }),
        Some("cancelled") => State::Ended(Err(Failure::Cancelled)),
        Some("input_required") => State::InputRequired,
        _ => State::Working,
    };
    Ok(Look { state, message, interval_ms: got.get("pollInterval").and_then(Value::as_u64) })
}

/// The `tasks/result` of the ended 2025-11-25 task `id`: its `CallToolResult`, without the mark
/// of the task it belongs to.
async fn core_result(
    peer: &Peer<RoleClient>,
    id: &str,
    each: Option<Duration>,
) -> Result<Value, Failure> {
    let got = within(each, custom(peer, "tasks/result", id)).await.map_err(lost)?;
    let mut result = answer_json(&got)?;
    let emptied = match result.get_mut("_meta") {
        Some(Value::Object(meta)) => {
            meta.remove(RELATED_TASK);
            meta.is_empty()
        }
        _ => false,
    };
    // A result that had no `_meta` of its own has none, as it would have answered directly.
    if let (true, Some(fields)) = (emptied, result.as_object_mut()) {
        fields.remove("_meta");
    }
    Ok(result)
}

/// Sends the 2025-11-25 request `method` about task `id`, which rmcp does not type.
pub(super) async fn custom(
    peer: &Peer<RoleClient>,
    method: &str,
    id: &str,
) -> Result<ServerResult, ServiceError> {
    let request = CustomRequest::new(method, Some(json!({"taskId": id})));
    peer.send_request(ClientRequest::CustomRequest(request)).await
}

/// The wait between two polls when the upstream asks for `asked` milliseconds.
fn poll_interval(asked: Option<u64>) -> Duration {
    asked.map_or(POLL_DEFAULT, Duration::from_millis).clamp(POLL_MIN, POLL_MAX)
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    use rmcp::model::{
        CancelTaskParams, DetailedTask, ErrorData, GetTaskResult, JsonObject, ServerCapabilities,
        ServerConfig, Task, TaskStatus,
    };
    use rmcp::service::{RequestContext, RoleServer, RunningService};
    use rmcp::transport::async_rw::AsyncRwTransport;
    use rmcp::{ServerHandler, ServiceExt as _};
    use tokio::sync::mpsc;
    use toolwire_core::McpRevision;
    use toolwire_mcp::Principal;

    use super::super::connect::Handler;
    use super::*;

    /// rmcp decodes each answer to a 2025-11-25 request into its untagged `ServerResult` (the
    /// first variant that fits); what the gateway reads of it survives. The answers are those of
    /// the official TypeScript SDK 1.32.
    #[test]
    fn the_answers_of_core_tasks_keep_what_is_read_of_them() {
        let decoded = |answer: Value| {
            let result: ServerResult =
                serde_json::from_value(answer).unwrap_or_else(|e| panic!("{e}"));
            let variant = format!("{result:?}");
            let variant = variant.split('(').next().unwrap_or_default().to_owned();
            (variant, answer_json(&result).unwrap_or_else(|e| panic!("{e:?}")))
        };
        let task = json!({"taskId": "c8b8", "status": "working", "ttl": 60000,
            "createdAt": "2026-12-05T02:15:38.937Z", "lastUpdatedAt": "2026-12-05T02:15:38.937Z",
            "pollInterval": 50});
        // `tools/call` with `params.task`: untyped, whole.
        let created = json!({"task": task});
        assert_eq!(decoded(created.clone()), ("CustomResult".to_owned(), created));

        // `tasks/get` of a task at work reads as the extension's task, without `pollInterval`.
        let (variant, got) = decoded(task.clone());
        assert_eq!(variant, "GetTaskResult");
        assert_eq!((&got["taskId"], &got["status"]), (&task["taskId"], &task["status"]));
        assert!(got.get("pollInterval").is_none(), "{got}");
        let mut failed = task.clone();
        failed["status"] = json!("failed");
        failed["statusMessage"] = json!("it broke");
        let (_, got) = decoded(failed.clone());
        assert_eq!(
            (&got["status"], &got["statusMessage"]),
            (&failed["status"], &failed["statusMessage"])
        );
        let mut completed = task.clone();
        completed["status"] = json!("completed");
        let (_, got) = decoded(completed);
        assert_eq!(got["status"], "completed");

        // `tasks/result`: the tool's result, its `_meta` kept.
        let result = json!({"content": [{"type": "text", "text": "done"}],
            "structuredContent": {"pages": 3},
            "_meta": {RELATED_TASK: {"taskId": "c8b8"}}});
        assert_eq!(decoded(result.clone()), ("CallToolResult".to_owned(), result));
    }

    #[test]
    fn the_poll_interval_is_the_upstream_s_within_bounds() {
        assert_eq!(poll_interval(None), POLL_DEFAULT);
        assert_eq!(poll_interval(Some(200)), Duration::from_millis(200));
        assert_eq!(poll_interval(Some(0)), POLL_MIN);
        assert_eq!(poll_interval(Some(3_600_000)), POLL_MAX);
    }

    /// An upstream whose `tasks/get` answers are scripted, one per poll, and whose `tasks/cancel`
    /// says which task it was asked to cancel.
    struct Scripted {
        answers: Mutex<VecDeque<Result<TaskPayload, ErrorData>>>,
        cancelled: mpsc::UnboundedSender<String>,
    }

    impl ServerHandler for Scripted {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tasks().build())
        }

        async fn get_task(
            &self,
            request: GetTaskParams,
            _context: RequestContext<RoleServer>,
        ) -> Result<GetTaskResult, ErrorData> {
            let next =
                self.answers.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop_front();
            let payload = next.unwrap_or(Ok(TaskPayload::Working))?;
            Ok(GetTaskResult::new(DetailedTask::new(task(&request.task_id), payload)))
        }

        async fn cancel_task(
            &self,
            request: CancelTaskParams,
            _context: RequestContext<RoleServer>,
        ) -> Result<(), ErrorData> {
            let _ = self.cancelled.send(request.task_id);
            Ok(())
        }
    }

    fn task(id: &str) -> Task {
        Task::new(id, TaskStatus::Working, "2026-12-05T00:00:00Z", "2026-12-05T00:00:00Z")
            .with_poll_interval_ms(1)
    }

    /// Follows task `t1` of an upstream answering `answers`; what it came to, and the task the
    /// upstream was then asked to cancel (waited for when `cancelled` says one is due).
    async fn follow_scripted(
        answers: Vec<Result<TaskPayload, ErrorData>>,
        cancelled: bool,
    ) -> (Result<Value, Failure>, Vec<String>) {
        let (sender, mut asked) = mpsc::unbounded_channel();
        let upstream = Scripted { answers: Mutex::new(answers.into()), cancelled: sender };
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let (their_read, their_write) = tokio::io::split(theirs);
        let server = tokio::spawn(async move {
            let running = upstream.serve(AsyncRwTransport::new_server(their_read, their_write));
            running.await.map(RunningService::waiting)
        });
        let (our_read, our_write) = tokio::io::split(ours);
        // The gateway's own client handler, which declares the extension (else `tasks/get` would
        // be refused).
        let handler = Handler { changed: Arc::default(), relays: Arc::default() };
        let client = handler.serve(AsyncRwTransport::new_client(our_read, our_write)).await;
        let client = client.unwrap_or_else(|e| panic!("handshake: {e}"));
        let context = CallContext::new("t", Principal::anonymous(), McpRevision::NEWEST, "1");
        let created = CreateTaskResult::new(task("t1"));
        let ended = follow(
            client.peer(),
            created,
            &context,
            Some(Duration::from_secs(5)),
            Duration::from_secs(5),
        )
        .await;
        // A cancel is sent from a task of its own, so the client stays while it comes: awaited
        // when one is due; when none is, it would have come within this wait.
        let wait = if cancelled { Duration::from_secs(10) } else { Duration::from_millis(200) };
        let cancels = match tokio::time::timeout(wait, asked.recv()).await {
            Ok(Some(id)) => vec![id],
            _ => Vec::new(),
        };
        drop(client);
        server.abort();
        (ended, cancels)
    }

    #[tokio::test]
    async fn a_task_is_polled_until_it_ends_and_cancelled_only_when_given_up() {
        let mut result = JsonObject::new();
        result.insert("content".into(), serde_json::json!([{"type": "text", "text": "done"}]));
        let completed = TaskPayload::Completed { result };
        let (ended, cancels) =
            follow_scripted(vec![Ok(TaskPayload::Working), Ok(completed)], false).await;
        let done = serde_json::json!({"content": [{"type": "text", "text": "done"}]});
        assert!(matches!(&ended, Ok(result) if *result == done), "{ended:?}");
        assert!(cancels.is_empty(), "{cancels:?}");

        let mut error = JsonObject::new();
        error.insert("code".into(), (-32603).into());
        error.insert("message".into(), "it broke\u{1b}[31m".into());
        let (ended, cancels) =
            follow_scripted(vec![Ok(TaskPayload::Failed { error })], false).await;
        assert!(matches!(&ended, Err(Failure::Failed(m)) if m == "it broke[31m"), "{ended:?}");
        assert!(cancels.is_empty(), "{cancels:?}");

        let (ended, cancels) = follow_scripted(vec![Ok(TaskPayload::Cancelled)], false).await;
        assert!(matches!(ended, Err(Failure::Cancelled)), "{ended:?}");
        assert!(cancels.is_empty(), "{cancels:?}");

        // An unknown task at the upstream: given up, and cancelled in case it still runs.
        let unknown = ErrorData::invalid_params("Unknown task: t1", None);
        let (ended, cancels) =
            follow_scripted(vec![Ok(TaskPayload::Working), Err(unknown)], true).await;
        assert!(matches!(&ended, Err(Failure::Lost(m)) if m == "Unknown task: t1"), "{ended:?}");
        assert_eq!(cancels, ["t1"]);

        // Input asked for inside the task is not relayed: the task is cancelled there.
        let input_requests = serde_json::from_value(serde_json::json!({})).unwrap_or_default();
        let (ended, cancels) =
            follow_scripted(vec![Ok(TaskPayload::InputRequired { input_requests })], true).await;
        assert!(matches!(ended, Err(Failure::InputRequired)), "{ended:?}");
        assert_eq!(cancels, ["t1"]);
    }
}

//! An upstream's own task (the tasks extension, SEP-2663), followed to its end. An upstream that
//! answers `tools/call` with a task is polled with `tasks/get` at the interval it asks for (kept
//! within [`POLL_MIN`]…[`POLL_MAX`]) until the task ends; its inlined result is the call's
//! result. The gateway declares the extension on every request, so an upstream that has it may
//! turn any call into a task; the gateway waits for it either way. A call the gateway stops
//! waiting for cancels the upstream's task with `tasks/cancel`, and so does one whose task asks
//! for input: input inside an upstream's task is not relayed yet.

use std::time::Duration;

use rmcp::model::{CreateTaskResult, GetTaskParams, TaskPayload};
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde_json::Value;
use toolwire_mcp::CallContext;

use super::relay::CancelOnDrop;

/// The shortest wait between two polls, whatever the upstream asks.
const POLL_MIN: Duration = Duration::from_millis(50);
/// The longest wait between two polls, whatever the upstream asks.
const POLL_MAX: Duration = Duration::from_secs(5);
/// The wait between two polls of an upstream that suggests none.
const POLL_DEFAULT: Duration = Duration::from_millis(500);

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
    /// The upstream asked for input, which is not relayed yet.
    InputRequired,
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

/// Polls the task the upstream `created` until it ends, each `tasks/get` within `each` (none:
/// the caller bounds the whole), saying how it goes on `context` (the gateway task's status,
/// when the call runs as one); the `CallToolResult` of a completed task, as JSON. Given up
/// before the task ended — dropped, a poll that failed, input asked for — it cancels the task
/// at the upstream (within `cancel_limit`), so that no upstream work runs on for nobody.
pub(super) async fn follow(
    peer: &Peer<RoleClient>,
    created: CreateTaskResult,
    context: &CallContext,
    each: Option<Duration>,
    cancel_limit: Duration,
) -> Result<Value, Failure> {
    let task = created.task;
    let id = task.task_id;
    let mut cancel = CancelOnDrop::task(peer.clone(), id.clone(), cancel_limit);
    let accepted = task.status_message.as_deref().map(super::source::printable);
    context.set_status(
        accepted
            .unwrap_or_else(|| "accepted by the upstream server, which is working on it".into()),
    );
    let mut interval = poll_interval(task.poll_interval_ms);
    // A task that had already ended when it was created is read at once.
    let mut wait = if task.status.is_terminal() { Duration::ZERO } else { interval };
    loop {
        tokio::time::sleep(wait).await;
        // The upstream's `-32602` here is an unknown task, not the caller's arguments.
        let got = match within(each, peer.get_task(GetTaskParams::new(id.clone()))).await {
            Ok(got) => got.task,
            Err(Failure::Service(ServiceError::McpError(error))) => {
                return Err(Failure::Lost(super::source::printable(&error.message)));
            }
            Err(other) => return Err(other),
        };
        if let Some(message) = &got.task.status_message {
            context.set_status(super::source::printable(message));
        }
        if got.task.poll_interval_ms.is_some() {
            interval = poll_interval(got.task.poll_interval_ms);
        }
        wait = interval;
        let ended = match got.payload {
            TaskPayload::Completed { result } => Ok(Value::Object(result)),
            TaskPayload::Failed { error } => {
                let message = error.get("message").and_then(Value::as_str).unwrap_or("no message");
                Err(Failure::Failed(super::source::printable(message)))
            }
            TaskPayload::Cancelled => Err(Failure::Cancelled),
            // Left armed: the guard cancels the task, which would wait for its input otherwise.
            TaskPayload::InputRequired { .. } => return Err(Failure::InputRequired),
            // `working`, or a status this build does not know: polled again.
            _ => continue,
        };
        cancel.disarm();
        return ended;
    }
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

//! What the gateway tells an observer about each `tools/call` (metrics live outside this crate:
//! the gateway only reports, the binary counts).

use std::time::Duration;

use toolwire_core::{ErrorCode, McpRevision};
use toolwire_store::StoreError;

/// How a `tools/call` ended, as the log line and the metrics label it.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallOutcome<'a> {
    /// A success result.
    Success,
    /// A failure result without an error code (an `isError` result from the mapper alone).
    Failure,
    /// A failure result with this error code (`invalid_arguments`, …).
    Error(&'a ErrorCode),
    /// The tool still asks the client for input (an `InputRequiredResult`).
    InputRequired,
    /// The call became a task (a `CreateTaskResult`); how the task ends is a [`TaskEvent`].
    Task,
    /// No tool of that name (a JSON-RPC error).
    UnknownTool,
    /// The tool panicked or failed with an internal error (a JSON-RPC error).
    InternalError,
}

impl<'a> CallOutcome<'a> {
    /// The label: `success`, `failure`, the error code, `input_required`, `task`,
    /// `unknown_tool` or `internal_error`.
    pub fn as_str(&self) -> &'a str {
        match self {
            Self::Success => "success",
            Self::Failure => "failure",
            Self::Error(code) => code.as_str(),
            Self::InputRequired => "input_required",
            Self::Task => "task",
            Self::UnknownTool => "unknown_tool",
            Self::InternalError => "internal_error",
        }
    }

    /// Whether a result was rendered (not a JSON-RPC error, nor a task whose result comes
    /// later).
    pub fn rendered(&self) -> bool {
        !matches!(self, Self::UnknownTool | Self::InternalError | Self::Task)
    }
}

impl std::fmt::Display for CallOutcome<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finished `tools/call`.
#[derive(Debug, Clone)]
pub struct CallRecord<'a> {
    /// The tool name as the caller sent it.
    pub tool: &'a str,
    /// The source of the tool (empty for an unknown tool): a label, nothing decides by it.
    pub source: &'a str,
    /// The revision of the request.
    pub revision: McpRevision,
    /// How the call ended — the same label as the log line.
    pub outcome: CallOutcome<'a>,
    /// Bytes of the rendered result (0 when there is none).
    pub bytes: usize,
    /// Whether the result was stored behind a link.
    pub offloaded: bool,
    /// Whether the result came from a hand-built legacy string.
    pub legacy: bool,
    /// How long the call took.
    pub duration: Duration,
}

/// One attempt to store an over-limit result.
#[derive(Debug, Clone)]
pub struct OffloadRecord<'a> {
    /// The tool.
    pub tool: &'a str,
    /// Bytes handed to the store.
    pub bytes: usize,
    /// Why the store failed, when it did.
    pub store_error: Option<&'a StoreError>,
}

/// Receives records from the call path; must be cheap (it runs on every call).
pub trait CallObserver: Send + Sync + std::fmt::Debug {
    /// Called once per finished `tools/call`.
    fn call(&self, record: &CallRecord<'_>);

    /// Called once per attempt to store an over-limit result.
    fn offload(&self, record: &OffloadRecord<'_>);

    /// Called when a task is created and when it ends (DESIGN §17); nothing by default.
    fn task(&self, record: &TaskRecord<'_>) {
        let _ = record;
    }
}

/// What happened to a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskEvent {
    /// A call became a task.
    Created,
    /// The task ended: `completed`, `failed`, `cancelled` or `input_required` (its run
    /// stopped to ask).
    Finished(rmcp::model::TaskStatus),
    /// The task's TTL ran out before its run ended; the run was stopped.
    Expired,
}

impl TaskEvent {
    /// The label of metrics and logs: `created`, the status a task ended in, or `expired`.
    pub fn as_str(&self) -> &'static str {
        use rmcp::model::TaskStatus;
        match self {
            Self::Created => "created",
            Self::Finished(TaskStatus::Completed) => "completed",
            Self::Finished(TaskStatus::Failed) => "failed",
            Self::Finished(TaskStatus::Cancelled) => "cancelled",
            Self::Finished(TaskStatus::InputRequired) => "input_required",
            Self::Finished(_) => "working",
            Self::Expired => "expired",
        }
    }
}

/// One event of one task.
#[derive(Debug, Clone)]
pub struct TaskRecord<'a> {
    /// The tool the task runs.
    pub tool: &'a str,
    /// What happened.
    pub event: TaskEvent,
    /// How many tasks this node runs in the background now.
    pub running: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_keep_their_labels() {
        let code = ErrorCode::parse("app_specific");
        let labels: Vec<&str> = [
            CallOutcome::Success,
            CallOutcome::Failure,
            CallOutcome::Error(&ErrorCode::InvalidArguments),
            CallOutcome::Error(&code),
            CallOutcome::InputRequired,
            CallOutcome::Task,
            CallOutcome::UnknownTool,
            CallOutcome::InternalError,
        ]
        .iter()
        .map(CallOutcome::as_str)
        .collect();
        assert_eq!(
            labels,
            [
                "success",
                "failure",
                "invalid_arguments",
                "app_specific",
                "input_required",
                "task",
                "unknown_tool",
                "internal_error"
            ]
        );
        assert_eq!(CallOutcome::InternalError.to_string(), "internal_error");
        assert!(!CallOutcome::UnknownTool.rendered());
        assert!(CallOutcome::Failure.rendered());
    }
}

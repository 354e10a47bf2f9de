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
    /// No tool of that name (a JSON-RPC error).
    UnknownTool,
    /// The tool panicked or failed with an internal error (a JSON-RPC error).
    InternalError,
}

impl<'a> CallOutcome<'a> {
    /// The label: `success`, `failure`, the error code, `input_required`, `unknown_tool` or
    /// `internal_error`.
    pub fn as_str(&self) -> &'a str {
        match self {
            Self::Success => "success",
            Self::Failure => "failure",
            Self::Error(code) => code.as_str(),
            Self::InputRequired => "input_required",
            Self::UnknownTool => "unknown_tool",
            Self::InternalError => "internal_error",
        }
    }

    /// Whether a result was rendered (not a JSON-RPC error).
    pub fn rendered(&self) -> bool {
        !matches!(self, Self::UnknownTool | Self::InternalError)
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
                "unknown_tool",
                "internal_error"
            ]
        );
        assert_eq!(CallOutcome::InternalError.to_string(), "internal_error");
        assert!(!CallOutcome::UnknownTool.rendered());
        assert!(CallOutcome::Failure.rendered());
    }
}

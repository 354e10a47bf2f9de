//! What the gateway tells an observer about each `tools/call` (metrics live outside this crate:
//! the gateway only reports, the binary counts).

use std::time::Duration;

use toolwire_core::McpRevision;
use toolwire_store::StoreError;

/// One finished `tools/call`.
#[derive(Debug, Clone)]
pub struct CallRecord<'a> {
    /// The tool name as the caller sent it.
    pub tool: &'a str,
    /// The revision of the request.
    pub revision: McpRevision,
    /// `success`, `failure`, an error code (`invalid_arguments`, …), `unknown_tool` or
    /// `internal_error` — the same label as the log line.
    pub outcome: &'a str,
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

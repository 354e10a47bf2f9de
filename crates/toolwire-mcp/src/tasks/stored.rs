//! The stored form of a task: one record of the result store whose bytes are this JSON
//! document, replaced as the task moves on. The tool's result is kept in its versioned form
//! (the v1 document, v2 for a result that asks for input) and rendered only when fetched.
//!
//! This document is toolwire's own record of the task, written and read only here; it is never
//! a rendered wire shape. What a client receives is built from it when asked (`wire`, and the
//! result rendered from its versioned form), so reading it back parses no output of the mapper.

use rmcp::ErrorData;
use rmcp::model::{Task, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use toolwire_core::input::InputRequired;
use toolwire_core::{Timestamp, ToolResult};
use toolwire_store::{Record, RecordId};

/// The MIME type of a task's record.
pub(crate) const MIME_TYPE: &str = "application/vnd.toolwire.task+json";

/// A task as the store keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StoredTask {
    /// The tool the task runs.
    pub(crate) tool: String,
    /// Its arguments (a resumed run and the render's query need them).
    pub(crate) arguments: Value,
    pub(crate) status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) status_message: Option<String>,
    pub(crate) created_at: String,
    pub(crate) last_updated_at: String,
    pub(crate) ttl_ms: u64,
    pub(crate) poll_interval_ms: u64,
    /// `completed` and `input_required`: the tool's result in its versioned form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<Box<RawValue>>,
    /// Whether that result is a failure (2025-11-25 shows such a task `failed`), kept so that
    /// polling a task never parses its result.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) failure: bool,
    /// `failed`: the JSON-RPC error the call ended with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<ErrorData>,
    /// `input_required`: the answers `tasks/update` brought so far, by key.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub(crate) answers: Map<String, Value>,
}

/// A task read from the store with the lifetime of its record.
#[derive(Debug)]
pub(crate) struct Loaded {
    pub(crate) id: RecordId,
    pub(crate) task: StoredTask,
    pub(crate) created: Timestamp,
    pub(crate) expires: Timestamp,
    /// The record as read: every write of the task replaces exactly this record, or nothing
    /// when another writer came first.
    pub(crate) read: Record,
}

impl StoredTask {
    /// A task of `tool` that has just started.
    pub(crate) fn working(
        tool: &str,
        arguments: Value,
        now: &Timestamp,
        ttl_ms: u64,
        poll_interval_ms: u64,
    ) -> Self {
        Self {
            tool: tool.to_owned(),
            arguments,
            status: TaskStatus::Working,
            status_message: None,
            created_at: now.to_string(),
            last_updated_at: now.to_string(),
            ttl_ms,
            poll_interval_ms,
            result: None,
            failure: false,
            error: None,
            answers: Map::new(),
        }
    }

    /// The task moved on to what the tool's run ended with, at `now`: `completed` (also for a
    /// failure result: the tool ran), `input_required` when it asks, `failed` for a JSON-RPC
    /// error.
    pub(crate) fn finished(
        mut self,
        outcome: Result<&ToolResult, &ErrorData>,
        now: &Timestamp,
    ) -> Self {
        self.last_updated_at = now.to_string();
        self.status_message = None;
        self.answers.clear();
        match outcome {
            Ok(result) => {
                self.status = if result.is_input_required() {
                    TaskStatus::InputRequired
                } else {
                    TaskStatus::Completed
                };
                self.result = RawValue::from_string(toolwire_core::v1::to_string(result)).ok();
                self.failure = result.error().is_some();
                self.error = None;
            }
            Err(error) => {
                self.status = TaskStatus::Failed;
                self.result = None;
                self.failure = false;
                self.error = Some(error.clone());
            }
        }
        self
    }

    /// The same task in `status` at `now`, with no result.
    pub(crate) fn moved(mut self, status: TaskStatus, now: &Timestamp) -> Self {
        self.status = status;
        self.last_updated_at = now.to_string();
        self.result = None;
        self.failure = false;
        self.error = None;
        self
    }

    /// The tool's result, read back from its versioned form.
    pub(crate) fn tool_result(&self) -> Option<ToolResult> {
        let raw = self.result.as_ref()?;
        toolwire_core::parse_any(raw.get().as_bytes()).ok()
    }

    /// What an `input_required` task asks that has no answer yet.
    pub(crate) fn pending(&self) -> Option<InputRequired> {
        let result = self.tool_result()?;
        let input = result.input_required_requests()?;
        let mut pending = InputRequired::new();
        for (key, request) in &input.requests {
            if !self.answers.contains_key(key) {
                pending = pending.request(key.clone(), request.clone());
            }
        }
        Some(match &input.state {
            Some(state) => pending.state(state.clone()),
            None => pending,
        })
    }

    /// The task as the wire shows it, under `id`.
    pub(crate) fn wire(&self, id: RecordId) -> Task {
        let mut task = Task::new(
            id.to_string(),
            self.status,
            self.created_at.clone(),
            self.last_updated_at.clone(),
        )
        .with_ttl_ms(self.ttl_ms)
        .with_poll_interval_ms(self.poll_interval_ms);
        task.status_message = self.status_message.clone();
        task
    }

    /// The record of this task for `principal`, living from `created` to `expires`.
    pub(crate) fn record(&self, principal: &str, created: Timestamp, expires: Timestamp) -> Record {
        // A derived `Serialize` of strings, numbers and JSON values cannot fail.
        let bytes = serde_json::to_vec(self).unwrap_or_default();
        Record::new(bytes, MIME_TYPE, principal, created, expires)
    }

    /// The task a record holds: `Ok(None)` when the record is not a task, an error when it is
    /// one that does not decode (damaged, or written by an incompatible version).
    pub(crate) fn decode(record: &Record) -> Result<Option<Self>, serde_json::Error> {
        if record.mime_type != MIME_TYPE {
            return Ok(None);
        }
        serde_json::from_slice(&record.bytes).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolwire_core::input::{InputRequest, confirm_request};

    use super::*;

    fn at(text: &str) -> Timestamp {
        match Timestamp::parse(text) {
            Ok(at) => at,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn a_finished_task_keeps_the_versioned_result_and_reads_it_back() {
        let start = at("2026-12-04T10:00:00.000Z");
        let task = StoredTask::working("export", json!({"rows": 3}), &start, 60_000, 500);
        let result = ToolResult::success(json!({"rows": [1, 2, 3]})).with_summary("3 rows");
        let done = task.clone().finished(Ok(&result), &at("2026-12-04T10:00:02.000Z"));
        assert_eq!(done.status, TaskStatus::Completed);
        assert!(!done.failure);
        // A failure result completes the task too, remembered as a failure.
        let refused = ToolResult::failure(toolwire_core::ToolError::new(
            toolwire_core::ErrorCode::NotFound,
            "no such export",
        ));
        let failed = task.finished(Ok(&refused), &start);
        assert_eq!((failed.status, failed.failure), (TaskStatus::Completed, true));
        let record = done.record("alice", start, at("2026-12-04T10:01:00.000Z"));
        assert_eq!(record.mime_type, MIME_TYPE);
        let Ok(Some(back)) = StoredTask::decode(&record) else { panic!("not a task") };
        assert_eq!(back.tool_result(), Some(result));
        let wire =
            serde_json::to_value(back.wire(
                RecordId::parse("0123456789abcdef0123456789abcdef").unwrap_or_else(|| panic!()),
            ))
            .unwrap_or_default();
        assert_eq!(
            wire,
            json!({"taskId": "0123456789abcdef0123456789abcdef", "status": "completed",
                   "createdAt": "2026-12-04T10:00:00.000Z",
                   "lastUpdatedAt": "2026-12-04T10:00:02.000Z",
                   "ttlMs": 60000, "pollIntervalMs": 500})
        );
    }

    #[test]
    fn answers_leave_the_pending_requests_and_an_error_fails_the_task() {
        let start = at("2026-12-04T10:00:00.000Z");
        let asks = ToolResult::input_required(
            InputRequired::new()
                .request("a", confirm_request("Sure?"))
                .request("b", InputRequest::sample_text("Hi", 5))
                .state(json!({"step": 1})),
        );
        let mut task =
            StoredTask::working("t", json!({}), &start, 1000, 100).finished(Ok(&asks), &start);
        assert_eq!(task.status, TaskStatus::InputRequired);
        task.answers.insert("a".into(), json!({"action": "accept"}));
        let Some(pending) = task.pending() else { panic!("nothing pending") };
        assert!(pending.get("a").is_none() && pending.get("b").is_some());
        assert_eq!(pending.state, Some(json!({"step": 1})));
        let failed = task.finished(Err(&ErrorData::internal_error("boom", None)), &start);
        assert_eq!(failed.status, TaskStatus::Failed);
        assert!(failed.result.is_none() && failed.answers.is_empty());
        assert_eq!(failed.error.map(|e| e.message.into_owned()).as_deref(), Some("boom"));
    }

    #[test]
    fn a_record_of_another_type_is_no_task_and_a_damaged_task_is_an_error() {
        let start = at("2026-12-04T10:00:00.000Z");
        let other = Record::new(b"{}".to_vec(), "application/json", "p", start, start);
        assert!(matches!(StoredTask::decode(&other), Ok(None)));
        let cut = Record::new(b"{\"status\":".to_vec(), MIME_TYPE, "p", start, start);
        let Err(error) = StoredTask::decode(&cut) else { panic!("a damaged task decoded") };
        assert_eq!(error.to_string(), "EOF while parsing a value at line 1 column 10");
    }
}

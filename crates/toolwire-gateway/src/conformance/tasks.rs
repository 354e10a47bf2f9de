//! Conformance fixtures for the suite's `tasks-*` scenarios (the tasks extension, SEP-2663):
//! tools that declare task support and run long enough to be polled, end in a tool error or a
//! protocol error, and ask for input inside a task or before one.
//!
//! They are ordinary registered tools on the public API: the task support in their
//! [`ToolSpec`], the time they take, and the round of [`CallContext::input`]. A tool that asks
//! before it first waits is answered in its request (`test_tool_with_task`); one that waits
//! first asks inside its task (`confirm_delete`, `multi_input`).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolwire_core::input::{
    Confirmation, Elicited, InputRequest, InputRequired, InputRound, ask_value, confirm_request,
    confirmation,
};
use toolwire_core::{ErrorCode, ToolError, ToolResult};
use toolwire_mcp::{
    CallContext, DynTool, Registry, RegistryError, TaskSupport, ToolFuture, ToolSpec,
};

use super::tools::text_result;

#[derive(Debug, Clone, Copy)]
enum Kind {
    Greet,
    SlowCompute,
    FailingJob,
    ProtocolErrorJob,
    ConfirmDelete,
    MultiInput,
    WithTask,
}

/// Registers the task fixtures.
pub(crate) fn register(registry: &mut Registry) -> Result<(), RegistryError> {
    let empty = || json!({"type": "object", "properties": {}});
    let tools: [(&str, &str, Value, TaskSupport, Kind); 7] = [
        (
            "greet",
            "Greets whoever is named, in the request (never a task).",
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
            TaskSupport::Forbidden,
            Kind::Greet,
        ),
        (
            "slow_compute",
            "Computes for `seconds` seconds; a task when the client can hold one.",
            json!({
                "type": "object",
                "properties": {
                    "seconds": {"type": "number", "minimum": 0, "maximum": 600},
                    "label": {"type": "string"}
                }
            }),
            TaskSupport::Optional,
            Kind::SlowCompute,
        ),
        (
            "failing_job",
            "A task that ends in a tool error after a second.",
            empty(),
            TaskSupport::Required,
            Kind::FailingJob,
        ),
        (
            "protocol_error_job",
            "A task that ends in a protocol (JSON-RPC) error.",
            empty(),
            TaskSupport::Optional,
            Kind::ProtocolErrorJob,
        ),
        (
            "confirm_delete",
            "Asks, inside its task, to confirm deleting `filename`.",
            json!({"type": "object", "properties": {"filename": {"type": "string"}}}),
            TaskSupport::Optional,
            Kind::ConfirmDelete,
        ),
        (
            "multi_input",
            "Asks two questions at once inside its task.",
            empty(),
            TaskSupport::Optional,
            Kind::MultiInput,
        ),
        (
            "test_tool_with_task",
            "Asks a name before its task exists, then greets in the task.",
            empty(),
            TaskSupport::Required,
            Kind::WithTask,
        ),
    ];
    for (name, description, schema, support, kind) in tools {
        registry.register_dyn(
            ToolSpec::new(name, description).input_schema(schema).task_support(support),
            Arc::new(TaskFixture(kind)),
        )?;
    }
    Ok(())
}

struct TaskFixture(Kind);

impl DynTool for TaskFixture {
    fn call(&self, arguments: &Value, context: CallContext) -> ToolFuture {
        let kind = self.0;
        let arguments = arguments.clone();
        Box::pin(async move { run(kind, &arguments, &context).await })
    }
}

fn text(arguments: &Value, key: &str, default: &str) -> String {
    arguments.get(key).and_then(Value::as_str).unwrap_or(default).to_owned()
}

/// A short wait before a fixture asks, so that its call becomes a task first.
const BEFORE_ASKING: Duration = Duration::from_millis(50);

async fn run(
    kind: Kind,
    arguments: &Value,
    context: &CallContext,
) -> Result<ToolResult, toolwire_core::InternalError> {
    let round = context.input();
    let result = match kind {
        // A plain string tool: its text is the one block on every revision and phase.
        Kind::Greet => Ok(toolwire_core::legacy::passthrough(&format!(
            "Hello, {}!",
            text(arguments, "name", "World")
        ))),
        Kind::SlowCompute => {
            let seconds = arguments.get("seconds").and_then(Value::as_f64).unwrap_or(1.0);
            let label = text(arguments, "label", "job");
            context.set_status(format!("computing {label}"));
            tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 600.0))).await;
            text_result(format!("Computed {label} in {seconds} s"))
        }
        Kind::FailingJob => {
            tokio::time::sleep(Duration::from_secs(1)).await;
            Err(ToolError::new(ErrorCode::ToolError, "The job failed, as it always does"))
        }
        Kind::ProtocolErrorJob => {
            tokio::time::sleep(Duration::from_millis(200)).await;
            return Err("the job broke off with a protocol error".into());
        }
        Kind::ConfirmDelete => {
            tokio::time::sleep(BEFORE_ASKING).await;
            let file = text(arguments, "filename", "file.txt");
            match confirmation(round, "confirm") {
                Confirmation::Ask => Ok(ToolResult::input_required(
                    InputRequired::new()
                        .request("confirm", confirm_request(format!("Delete {file}?"))),
                )),
                Confirmation::Confirmed => text_result(format!("Deleted {file}")),
                _ => text_result(format!("Kept {file}")),
            }
        }
        Kind::MultiInput => {
            tokio::time::sleep(BEFORE_ASKING).await;
            match (accepted(round, "name"), accepted(round, "color")) {
                (Some(name), Some(color)) => text_result(format!("{name} likes {color}")),
                _ => Ok(ToolResult::input_required(
                    InputRequired::new()
                        .request("name", ask_text("What is your name?", "name"))
                        .request("color", ask_text("What is your favorite color?", "color")),
                )),
            }
        }
        Kind::WithTask => match accepted(round, "name") {
            None => Ok(ToolResult::input_required(
                InputRequired::new().request("name", ask_text("What is your name?", "name")),
            )),
            Some(name) => {
                tokio::time::sleep(Duration::from_millis(200)).await;
                text_result(format!("Hello, {name}! The task is done."))
            }
        },
    };
    Ok(result.unwrap_or_else(ToolResult::failure))
}

fn ask_text(message: &str, field: &str) -> InputRequest {
    ask_value(message, field, json!({"type": "string"}))
}

/// The accepted answer to the form under `key`: its field of the same name, else the first
/// text it holds (the suite answers every form with the fields it chooses).
fn accepted(round: &InputRound, key: &str) -> Option<String> {
    let Some(Elicited::Accept(content)) = round.elicited(key) else { return None };
    let text = |value: &Value| value.as_str().map(str::to_owned);
    content
        .get(key)
        .and_then(text)
        .or_else(|| content.values().find_map(text))
        .or(Some(String::new()))
}

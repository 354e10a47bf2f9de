//! The fixture tools that talk back to the client while they run: log messages, progress,
//! sampling, elicitation, and an answer after a delay.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    ClientResult, CreateMessageRequestParams, ElicitRequestParams, ElicitationSchema, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam, Request, SamplingMessage,
    ServerRequest,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};
use toolwire_core::{ErrorCode, ToolError, ToolResult};
use toolwire_mcp::{CallContext, DynTool, ToolFuture};

use super::tools::{built, text_result};
use super::{State, lock};

/// Which elicitation a fixture asks for.
#[derive(Clone, Copy)]
pub(super) enum Elicitation {
    Simple,
    Defaults,
    Enums,
}

/// Fixture tools that talk back to the client while they run.
pub(super) enum Live {
    Logging(Arc<State>),
    Progress,
    Sampling,
    Elicitation(Elicitation),
    Delay,
}

impl DynTool for Live {
    fn call(&self, arguments: &Value, context: CallContext) -> ToolFuture {
        let arguments = arguments.clone();
        let kind = match self {
            Live::Logging(state) => {
                LiveCall::Logging(if context.revision().is_stateless() {
                    // A stateless revision (2026-07-28) has no logging/setLevel: only the request's own
                    // `_meta` opts in.
                    None
                } else {
                    Some(*lock(&state.level))
                })
            }
            Live::Progress => LiveCall::Progress,
            Live::Sampling => LiveCall::Sampling,
            Live::Elicitation(which) => LiveCall::Elicitation(*which),
            Live::Delay => LiveCall::Delay,
        };
        let asks_client = matches!(kind, LiveCall::Sampling | LiveCall::Elicitation(_));
        if asks_client && context.revision().is_stateless() {
            // A stateless revision (2026-07-28) forbids server-to-client requests; the MRTR
            // fixtures show its replacement, an input_required result.
            let refusal = ToolError::new(
                ErrorCode::ToolError,
                "This tool asks the client for input mid-call, which 2026-07-28 does not allow; use a handshake revision (2025-11-25).",
            );
            return Box::pin(async move { Ok(ToolResult::failure(refusal)) });
        }
        Box::pin(async move {
            let Some(request) = context.request().cloned() else {
                return Ok(ToolResult::failure(ToolError::new(
                    ErrorCode::ToolError,
                    "this fixture needs a client connection to talk back to",
                )));
            };
            Ok(kind.run(arguments, request).await.unwrap_or_else(ToolResult::failure))
        })
    }
}

enum LiveCall {
    /// The level set with logging/setLevel; `None` on 2026-07-28, where only the request's
    /// `_meta` logLevel opts in (SEP-2577).
    Logging(Option<LoggingLevel>),
    Progress,
    Sampling,
    Elicitation(Elicitation),
    Delay,
}

fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

const STEP: Duration = Duration::from_millis(50);

impl LiveCall {
    async fn run(
        self,
        arguments: Value,
        request: RequestContext<RoleServer>,
    ) -> Result<ToolResult, ToolError> {
        let peer = &request.peer;
        match self {
            LiveCall::Logging(level) => {
                let threshold = request.meta.log_level().or(level);
                for (i, message) in
                    ["Tool execution started", "Tool processing data", "Tool execution completed"]
                        .into_iter()
                        .enumerate()
                {
                    if i > 0 {
                        tokio::time::sleep(STEP).await;
                    }
                    if threshold.is_some_and(|t| severity(LoggingLevel::Info) >= severity(t)) {
                        let note = LoggingMessageNotificationParam::new(
                            LoggingLevel::Info,
                            json!(message),
                        )
                        .with_logger("toolwire-conformance");
                        if let Err(error) = peer.notify_logging_message(note).await {
                            tracing::warn!(%error, "could not send a log message");
                        }
                    }
                }
                text_result("Logging test completed: sent 3 log messages.")
            }
            LiveCall::Progress => {
                let token = request.meta.get_progress_token();
                for (i, (progress, message)) in
                    [(0.0, "Starting"), (50.0, "Halfway"), (100.0, "Complete")]
                        .into_iter()
                        .enumerate()
                {
                    if i > 0 {
                        tokio::time::sleep(STEP).await;
                    }
                    if let Some(token) = &token {
                        let note = ProgressNotificationParam::new(token.clone(), progress)
                            .with_total(100.0)
                            .with_message(message);
                        if let Err(error) = peer.notify_progress(note).await {
                            tracing::warn!(%error, "could not send a progress notification");
                        }
                    }
                }
                text_result("Progress test completed.")
            }
            LiveCall::Sampling => {
                let prompt = arguments.get("prompt").and_then(Value::as_str).unwrap_or_default();
                let params =
                    CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 100);
                let answer = peer.create_message(params).await.map_err(|e| {
                    ToolError::new(ErrorCode::UpstreamUnavailable, format!("Sampling failed: {e}"))
                })?;
                let text = answer
                    .message
                    .content
                    .first()
                    .and_then(|c| c.as_text())
                    .map(|t| t.text.clone())
                    .unwrap_or_else(|| "(no text in the answer)".to_owned());
                text_result(format!("LLM response: {text}"))
            }
            LiveCall::Elicitation(which) => {
                let (message, schema) = match which {
                    Elicitation::Simple => (
                        arguments
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("Please provide your information")
                            .to_owned(),
                        json!({
                            "type": "object",
                            "properties": {
                                "username": {"type": "string", "description": "User's response"},
                                "email": {"type": "string", "description": "User's email address"},
                            },
                            "required": ["username", "email"],
                        }),
                    ),
                    Elicitation::Defaults => (
                        "Please provide values (all have defaults)".to_owned(),
                        json!({
                            "type": "object",
                            "properties": {
                                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                                "age": {"type": "integer", "description": "User age", "default": 30},
                                "score": {"type": "number", "description": "User score", "default": 95.5},
                                "status": {
                                    "type": "string",
                                    "description": "User status",
                                    "enum": ["active", "inactive", "pending"],
                                    "default": "active",
                                },
                                "verified": {"type": "boolean", "description": "Verification status", "default": true},
                            },
                        }),
                    ),
                    Elicitation::Enums => (
                        "Pick one or more options".to_owned(),
                        json!({
                            "type": "object",
                            "properties": {
                                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                                "titledSingle": {
                                    "type": "string",
                                    "oneOf": [
                                        {"const": "value1", "title": "First Option"},
                                        {"const": "value2", "title": "Second Option"},
                                        {"const": "value3", "title": "Third Option"},
                                    ],
                                },
                                "legacyEnum": {
                                    "type": "string",
                                    "enum": ["opt1", "opt2", "opt3"],
                                    "enumNames": ["Option One", "Option Two", "Option Three"],
                                },
                                "untitledMulti": {
                                    "type": "array",
                                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
                                },
                                "titledMulti": {
                                    "type": "array",
                                    "items": {
                                        "anyOf": [
                                            {"const": "value1", "title": "First Choice"},
                                            {"const": "value2", "title": "Second Choice"},
                                            {"const": "value3", "title": "Third Choice"},
                                        ],
                                    },
                                },
                            },
                        }),
                    ),
                };
                let requested_schema: ElicitationSchema =
                    serde_json::from_value(schema).map_err(|e| {
                        ToolError::new(
                            ErrorCode::ToolError,
                            format!("fixture elicitation schema refused: {e}"),
                        )
                    })?;
                let params = ElicitRequestParams::FormElicitationParams {
                    meta: None,
                    message,
                    requested_schema,
                };
                // rmcp offers `create_elicitation` only with its `elicitation` feature (and the
                // `url` crate); the request itself needs neither.
                let sent =
                    peer.send_request(ServerRequest::ElicitRequest(Request::new(params))).await;
                let answer = match sent {
                    Ok(ClientResult::ElicitResult(answer)) => answer,
                    Ok(_) => {
                        return Err(ToolError::new(
                            ErrorCode::UpstreamUnavailable,
                            "Elicitation failed: the client answered with something else",
                        ));
                    }
                    Err(e) => {
                        return Err(ToolError::new(
                            ErrorCode::UpstreamUnavailable,
                            format!("Elicitation failed: {e}"),
                        ));
                    }
                };
                let action = serde_json::to_value(&answer.action).unwrap_or(Value::Null);
                let action = action.as_str().unwrap_or("unknown");
                let content = answer.content.unwrap_or(Value::Object(Map::new()));
                built(
                    ToolResult::builder()
                        .data(json!({"action": action, "content": content}))
                        .summary(format!("User response: action={action}, content={content}")),
                )
            }
            LiveCall::Delay => {
                tokio::time::sleep(2 * STEP).await;
                text_result("Reconnection test completed.")
            }
        }
    }
}

//! Conformance fixtures for the suite's `input-required-result-*` scenarios (SEP-2322, multi
//! round-trip requests): tools that answer [`ToolResult::input_required`] until the client has
//! answered, and the prompt `test_input_required_result_prompt`.
//!
//! The tools are ordinary registered tools written against the public API (the round from
//! [`CallContext::input`], [`CallContext::can_ask`]); the gateway seals their state and, on
//! handshake revisions, asks the client over the connection.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, InputRequiredResult, PromptMessage,
    Role,
};
use serde_json::{Map, Value, json};
use toolwire_core::ToolResult;
use toolwire_core::input::{
    Capability, InputRequest, InputRequired, InputRound, ask_value, object_schema,
};

use toolwire_mcp::{CallContext, DynTool, Registry, RegistryError, ToolFuture, ToolSpec};

/// The prompt that asks for input before it can be rendered.
pub(crate) const PROMPT: &str = "test_input_required_result_prompt";

#[derive(Debug, Clone, Copy)]
enum Kind {
    Elicitation,
    Sampling,
    ListRoots,
    RequestState,
    MultipleInputs,
    MultiRound,
    TamperedState,
    Capabilities,
}

const TOOLS: [(&str, &str, Kind); 8] = [
    (
        "test_input_required_result_elicitation",
        "Asks the user's name (elicitation), then greets them.",
        Kind::Elicitation,
    ),
    (
        "test_input_required_result_sampling",
        "Asks the client's model for the capital of France (sampling).",
        Kind::Sampling,
    ),
    ("test_input_required_result_list_roots", "Asks for the client's roots.", Kind::ListRoots),
    (
        "test_input_required_result_request_state",
        "Asks for a confirmation and checks the requestState it gets back.",
        Kind::RequestState,
    ),
    (
        "test_input_required_result_multiple_inputs",
        "Asks for a name, a greeting and the roots in one round.",
        Kind::MultipleInputs,
    ),
    (
        "test_input_required_result_multi_round",
        "Asks two questions in two rounds.",
        Kind::MultiRound,
    ),
    (
        "test_input_required_result_tampered_state",
        "Asks for a confirmation; a tampered requestState is refused.",
        Kind::TamperedState,
    ),
    (
        "test_input_required_result_capabilities",
        "Asks only what the client declared it can answer.",
        Kind::Capabilities,
    ),
];

/// Registers the MRTR fixture tools.
pub(crate) fn register(registry: &mut Registry) -> Result<(), RegistryError> {
    for (name, description, kind) in TOOLS {
        registry.register_dyn(
            ToolSpec::new(name, description)
                .input_schema(json!({"type": "object", "properties": {}})),
            Arc::new(Mrtr(kind)),
        )?;
    }
    Ok(())
}

struct Mrtr(Kind);

impl DynTool for Mrtr {
    fn call(&self, _arguments: &Value, context: CallContext) -> ToolFuture {
        let result = answer(self.0, &context);
        Box::pin(async move { Ok(result) })
    }
}

fn ask_text(message: &str, field: &str) -> InputRequest {
    ask_value(message, field, json!({"type": "string"}))
}

fn ask_name() -> InputRequest {
    ask_text("What is your name?", "name")
}

fn ask_ok() -> InputRequest {
    let mut properties = Map::new();
    properties.insert("ok".into(), json!({"type": "boolean"}));
    InputRequest::elicit("Please confirm", object_schema(properties, &["ok"]))
}

/// The accepted form's `field` as text.
fn accepted(round: &InputRound, key: &str, field: &str) -> Option<String> {
    round.value(key, field).map(|value| match value {
        Value::String(text) => text,
        other => other.to_string(),
    })
}

fn done(text: String) -> ToolResult {
    let result = ToolResult::success(json!({"text": text}));
    result.to_builder().summary(text).build().unwrap_or(result)
}

fn ask(input: InputRequired) -> ToolResult {
    ToolResult::input_required(input)
}

fn answer(kind: Kind, context: &CallContext) -> ToolResult {
    let round = context.input();
    let state = round.state();
    match kind {
        Kind::Elicitation => match accepted(round, "user_name", "name") {
            Some(name) => done(format!("Hello, {name}!")),
            None => ask(InputRequired::new().request("user_name", ask_name())),
        },
        Kind::Sampling => match round.sampled_text("capital_question") {
            Some(text) => done(format!("The model said: {text}")),
            None => ask(InputRequired::new().request(
                "capital_question",
                InputRequest::sample_text("What is the capital of France?", 100),
            )),
        },
        Kind::ListRoots => match round.roots("client_roots") {
            Some(roots) => done(format!("Roots: {}", roots.join(", "))),
            None => ask(InputRequired::new().request("client_roots", InputRequest::ListRoots)),
        },
        Kind::RequestState | Kind::TamperedState => {
            let issued = state == Some(&json!({"issued": "confirm"}));
            match (issued, accepted(round, "confirm", "ok")) {
                (true, Some(ok)) => done(format!("state-ok: confirmed {ok}")),
                _ => ask(InputRequired::new()
                    .request("confirm", ask_ok())
                    .state(json!({"issued": "confirm"}))),
            }
        }
        Kind::MultipleInputs => {
            let name = accepted(round, "user_name", "name");
            let greeting = round.sampled_text("greeting");
            let roots = round.roots("client_roots");
            match (name, greeting, roots) {
                (Some(name), Some(greeting), Some(roots)) => {
                    done(format!("{greeting} {name}; roots: {}", roots.join(", ")))
                }
                _ => ask(InputRequired::new()
                    .request("user_name", ask_name())
                    .request("greeting", InputRequest::sample_text("Generate a greeting", 50))
                    .request("client_roots", InputRequest::ListRoots)
                    .state(json!({"round": 1}))),
            }
        }
        Kind::MultiRound => {
            let step = state.and_then(|s| s.get("step")).and_then(Value::as_u64);
            match (step, accepted(round, "step1", "name"), accepted(round, "step2", "color")) {
                (Some(2), _, Some(color)) => {
                    let name = state.and_then(|s| s.get("name")).and_then(Value::as_str);
                    done(format!("{} likes {color}", name.unwrap_or("someone")))
                }
                (Some(1), Some(name), _) | (Some(2), Some(name), None) => ask(InputRequired::new()
                    .request("step2", ask_text("Step 2: What is your favorite color?", "color"))
                    .state(json!({"step": 2, "name": name}))),
                _ => ask(InputRequired::new()
                    .request("step1", ask_text("Step 1: What is your name?", "name"))
                    .state(json!({"step": 1}))),
            }
        }
        Kind::Capabilities => {
            let mut input = InputRequired::new();
            if context.can_ask(Capability::Sampling) && round.sampled_text("question").is_none() {
                input = input.request("question", InputRequest::sample_text("Say hello", 20));
            }
            if context.can_ask(Capability::ElicitationForm) && round.elicited("user_name").is_none()
            {
                input = input.request("user_name", ask_name());
            }
            if input.requests.is_empty() {
                done("Everything the client can answer was answered.".to_owned())
            } else {
                ask(input)
            }
        }
    }
}

/// `prompts/get` of [`PROMPT`]: asks for a context (elicitation) before it is rendered.
pub(crate) fn prompt(request: &GetPromptRequestParams) -> Result<GetPromptResponse, ErrorData> {
    let responses: Map<String, Value> =
        request.input_responses.iter().flatten().map(|(k, v)| (k.clone(), v.clone())).collect();
    let round = InputRound::new(responses, None);
    if let Some(context) = accepted(&round, "user_context", "context") {
        return Ok(GetPromptResponse::Complete(
            GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                format!("Use this context: {context}"),
            )])
            .with_description("A prompt that asked for its context"),
        ));
    }
    let request = ask_text("What context should the prompt use?", "context");
    let requests = json!({"user_context": request.to_value()});
    serde_json::from_value(requests)
        .map(|requests| {
            GetPromptResponse::InputRequired(InputRequiredResult::from_input_requests(requests))
        })
        .map_err(|e| ErrorData::internal_error(format!("prompt input request: {e}"), None))
}

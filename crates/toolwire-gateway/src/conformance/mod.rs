//! Conformance fixtures: the tools, resources, prompts and completions that the official MCP
//! conformance suite (`@modelcontextprotocol/conformance`) calls in its active scenarios for spec
//! versions 2025-11-25 and 2026-07-28, served by `toolwire serve --conformance`.
//!
//! The fixtures use toolwire-mcp's public API exactly as a library user would. The fixture tools
//! are ordinary registered tools: each returns a [`ToolResult`] that the gateway validates and
//! renders like any other, so the suite checks toolwire's own rendering of text, image, audio and
//! embedded-resource parts and of failures. What is not a tool result (resources, prompts,
//! completion, logging level, subscriptions, the missing-capability refusal) plugs into the
//! server's extension points ([`toolwire_mcp::extend`]) in [`Conformance::extend`].
//!
//! Logging, sampling and elicitation are deprecated by SEP-2577 (rmcp marks their types
//! deprecated) but the suite still tests them for the handshake revisions, so this module uses
//! them on purpose.
#![allow(deprecated)]

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, ClientResult, CompleteRequestParams, CompleteResult, CompletionInfo,
    ContentBlock, CreateMessageRequestParams, ElicitRequestParams, ElicitationSchema,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam, Prompt, PromptArgument,
    PromptMessage, ReadResourceResult, Reference, Request, Resource, ResourceContents,
    ResourceTemplate, Role, SamplingCapability, SamplingMessage, ServerRequest,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};
use toolwire_core::{ErrorCode, Part, ToolError, ToolResult};
use toolwire_mcp::extend::{
    CallGuard, Completion, ExtensionFuture, Logging, Prompts, Resources, Subscriptions,
};
use toolwire_mcp::{
    CallContext, DynTool, McpServer, Registry, RegistryError, ToolFuture, ToolSpec,
};

mod mrtr;

/// A 1×1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";
/// A WAV file with no samples.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=";

const STATIC_TEXT: &str = "test://static-text";
const STATIC_BINARY: &str = "test://static-binary";
const TEMPLATE: &str = "test://template/{id}/data";

/// The name of the fixture tool whose `region` parameter travels as the `Mcp-Param-Region`
/// header on 2026-07-28 (`x-mcp-header`, SEP-2243).
const HEADER_TOOL: &str = "test_header_param";

/// The fixture state shared by the tools and the handler: the logging level the client set and
/// the resources it subscribed to (one of each for the whole fixture server, which serves one
/// suite run at a time).
#[derive(Debug)]
pub struct Conformance {
    state: Arc<State>,
}

#[derive(Debug)]
struct State {
    level: Mutex<LoggingLevel>,
    subscriptions: Mutex<BTreeSet<String>>,
}

impl Default for Conformance {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for Conformance {
    fn clone(&self) -> Self {
        Self { state: Arc::clone(&self.state) }
    }
}

impl Conformance {
    /// Fresh fixtures: logging at `debug`, no subscriptions.
    pub fn new() -> Self {
        Self {
            state: Arc::new(State {
                level: Mutex::new(LoggingLevel::Debug),
                subscriptions: Mutex::new(BTreeSet::new()),
            }),
        }
    }

    /// Registers every fixture tool on `registry`.
    pub fn register_tools(&self, registry: &mut Registry) -> Result<(), RegistryError> {
        let empty = || json!({"type": "object", "properties": {}});
        let simple: [(&str, &str, Build); 6] = [
            ("test_simple_text", "Returns simple text content.", simple_text),
            ("test_image_content", "Returns a PNG image.", image_content),
            ("test_audio_content", "Returns a WAV audio clip.", audio_content),
            ("test_embedded_resource", "Returns an embedded text resource.", embedded_resource),
            (
                "test_multiple_content_types",
                "Returns text, an image and an embedded resource.",
                multiple_content_types,
            ),
            ("test_error_handling", "Always fails with a tool error.", error_handling),
        ];
        for (name, description, build) in simple {
            registry.register_dyn(
                ToolSpec::new(name, description).input_schema(empty()),
                Arc::new(Fixed(build)),
            )?;
        }
        let live: [(&str, &str, Value, Live); 10] = [
            (
                "test_tool_with_logging",
                "Sends three info log messages while it runs.",
                empty(),
                Live::Logging(Arc::clone(&self.state)),
            ),
            (
                "test_logging_tool",
                "Sends three info log messages, only to clients that asked for logs (2026-07-28: the request's logLevel).",
                empty(),
                Live::Logging(Arc::clone(&self.state)),
            ),
            (
                "test_tool_with_progress",
                "Reports progress 0, 50 and 100 of 100 when the request carries a progress token.",
                empty(),
                Live::Progress,
            ),
            (
                "test_sampling",
                "Asks the client's model to answer a prompt (sampling/createMessage).",
                json!({
                    "type": "object",
                    "properties": {"prompt": {"type": "string", "description": "The prompt to send"}},
                    "required": ["prompt"],
                }),
                Live::Sampling,
            ),
            (
                "test_elicitation",
                "Asks the user for a username and an email (elicitation/create).",
                json!({
                    "type": "object",
                    "properties": {"message": {"type": "string", "description": "The message to show"}},
                    "required": ["message"],
                }),
                Live::Elicitation(Elicitation::Simple),
            ),
            (
                "test_elicitation_sep1034_defaults",
                "Asks the user for values that all have defaults (SEP-1034).",
                empty(),
                Live::Elicitation(Elicitation::Defaults),
            ),
            (
                "test_elicitation_sep1330_enums",
                "Asks the user to pick from the five enum forms (SEP-1330).",
                empty(),
                Live::Elicitation(Elicitation::Enums),
            ),
            (
                "test_streaming_elicitation",
                "Asks the user for a username and an email while the call is open.",
                empty(),
                Live::Elicitation(Elicitation::Simple),
            ),
            (
                "test_missing_capability",
                "Needs the client's sampling capability; refused with -32021 when it was not declared.",
                empty(),
                Live::Sampling,
            ),
            (
                "test_reconnection",
                "Answers after a short delay (SSE polling).",
                empty(),
                Live::Delay,
            ),
        ];
        for (name, description, schema, live) in live {
            registry.register_dyn(
                ToolSpec::new(name, description).input_schema(schema),
                Arc::new(live),
            )?;
        }
        registry.register_dyn(
            ToolSpec::new(
                "json_schema_2020_12_tool",
                "Greets; its input schema uses JSON Schema 2020-12 keywords.",
            )
            .input_schema(json_schema_2020_12()),
            Arc::new(Greeting),
        )?;
        registry.register_dyn(
            ToolSpec::new(
                HEADER_TOOL,
                "Echoes a region that also travels as the Mcp-Param-Region header.",
            )
            .input_schema(json!({
                "type": "object",
                "properties": {
                    "region": {
                        "type": "string",
                        "description": "A region name",
                        "x-mcp-header": "Region",
                    },
                },
                "required": ["region"],
            })),
            Arc::new(HeaderEcho),
        )?;
        mrtr::register(registry)
    }

    /// `server` with everything the fixtures answer beside their tools: resources and the
    /// template, prompts, completion, subscriptions (every `subscriptions/listen` kind accepted,
    /// narrowed by rmcp to what is announced), the logging level, and the refusal of
    /// `test_missing_capability`.
    pub fn extend(&self, server: McpServer) -> McpServer {
        server
            .with_resources(self.clone())
            .with_prompts(self.clone())
            .with_completion(self.clone())
            .with_subscriptions(self.clone())
            .with_logging(self.clone())
            .with_call_guard(self.clone())
    }
}

impl CallGuard for Conformance {
    /// `test_missing_capability` needs the client's sampling capability and answers -32021
    /// (naming it) without it.
    fn check(&self, tool: &str, request: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
        let declared = request.client_capabilities().is_some_and(|caps| caps.sampling.is_some());
        if tool == "test_missing_capability" && !declared {
            let mut required = ClientCapabilities::default();
            required.sampling = Some(SamplingCapability::default());
            return Err(ErrorData::missing_required_client_capability(required));
        }
        Ok(())
    }
}

impl Resources for Conformance {
    /// The two static resources.
    fn list(&self) -> Vec<Resource> {
        vec![
            Resource::new(STATIC_TEXT, "static-text")
                .with_title("Static text resource")
                .with_description("A static text resource for testing")
                .with_mime_type("text/plain"),
            Resource::new(STATIC_BINARY, "static-binary")
                .with_title("Static binary resource")
                .with_description("A static binary resource (a PNG) for testing")
                .with_mime_type("image/png"),
        ]
    }

    /// The dynamic resource template.
    fn templates(&self) -> Vec<ResourceTemplate> {
        vec![
            ResourceTemplate::new(TEMPLATE, "template-data")
                .with_title("Dynamic resource")
                .with_description("A resource whose content names the id in its URI")
                .with_mime_type("application/json"),
        ]
    }

    fn read<'a>(
        &'a self,
        uri: &'a str,
        _request: &'a RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Option<Result<ReadResourceResult, ErrorData>>> {
        let read = read(uri).map(Ok);
        Box::pin(async move { read })
    }
}

/// `resources/read` of a fixture URI, or `None` when the URI is not a fixture's.
fn read(uri: &str) -> Option<ReadResourceResult> {
    let contents = match uri {
        STATIC_TEXT => {
            ResourceContents::text("This is the content of the static text resource.", uri)
                .with_mime_type("text/plain")
        }
        STATIC_BINARY => ResourceContents::blob(PNG, uri).with_mime_type("image/png"),
        _ => {
            let id = uri.strip_prefix("test://template/")?.strip_suffix("/data")?;
            if id.is_empty() || id.contains('/') {
                return None;
            }
            let text =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            ResourceContents::text(text.to_string(), uri).with_mime_type("application/json")
        }
    };
    Some(ReadResourceResult::new(vec![contents]))
}

impl Subscriptions for Conformance {
    /// Remembers the URI.
    fn subscribe(&self, uri: String) -> Result<(), ErrorData> {
        lock(&self.state.subscriptions).insert(uri);
        Ok(())
    }

    /// Forgets the URI.
    fn unsubscribe(&self, uri: &str) -> Result<(), ErrorData> {
        lock(&self.state.subscriptions).remove(uri);
        Ok(())
    }
}

impl Logging for Conformance {
    fn set_level(&self, level: LoggingLevel) {
        *lock(&self.state.level) = level;
    }
}

impl Prompts for Conformance {
    fn list(&self) -> Vec<Prompt> {
        vec![
            Prompt::new("test_simple_prompt", Some("A simple prompt without arguments"), None),
            Prompt::new(
                "test_prompt_with_arguments",
                Some("A prompt that repeats its two arguments"),
                Some(vec![
                    PromptArgument::new("arg1")
                        .with_description("First argument")
                        .with_required(true),
                    PromptArgument::new("arg2")
                        .with_description("Second argument")
                        .with_required(false),
                ]),
            ),
            Prompt::new(
                "test_prompt_with_embedded_resource",
                Some("A prompt that embeds a resource"),
                Some(vec![
                    PromptArgument::new("resourceUri")
                        .with_description("The URI of the resource to embed")
                        .with_required(false),
                ]),
            ),
            Prompt::new("test_prompt_with_image", Some("A prompt that includes an image"), None),
            Prompt::new(
                mrtr::PROMPT,
                Some("A prompt that asks for its context first (input required)"),
                None,
            ),
        ]
    }

    /// Including the prompt that answers `InputRequiredResult` until the client gives it a
    /// context.
    fn get<'a>(
        &'a self,
        request: GetPromptRequestParams,
        _context: &'a RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Result<GetPromptResponse, ErrorData>> {
        let response = if request.name == mrtr::PROMPT {
            mrtr::prompt(&request)
        } else {
            prompt(&request).map(GetPromptResponse::Complete)
        };
        Box::pin(async move { response })
    }
}

/// `prompts/get` of the prompts that need no input.
fn prompt(request: &GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
    let arg = |name: &str| {
        request
            .arguments
            .as_ref()
            .and_then(|args| args.get(name))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let result = match request.name.as_str() {
        "test_simple_prompt" => GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            "This is a simple prompt for testing.",
        )])
        .with_description("A simple prompt"),
        "test_prompt_with_arguments" => GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Prompt with arguments: arg1='{}', arg2='{}'", arg("arg1"), arg("arg2")),
        )])
        .with_description("A prompt with arguments"),
        "test_prompt_with_embedded_resource" => {
            let uri = Some(arg("resourceUri")).filter(|u| !u.is_empty());
            GetPromptResult::new(vec![
                PromptMessage::new(
                    Role::User,
                    ContentBlock::resource(
                        ResourceContents::text(
                            "Embedded resource content for testing.",
                            uri.unwrap_or_else(|| STATIC_TEXT.to_owned()),
                        )
                        .with_mime_type("text/plain"),
                    ),
                ),
                PromptMessage::new_text(Role::User, "Please process the embedded resource above."),
            ])
            .with_description("A prompt with an embedded resource")
        }
        "test_prompt_with_image" => GetPromptResult::new(vec![
            PromptMessage::new(Role::User, ContentBlock::image(PNG, "image/png")),
            PromptMessage::new_text(Role::User, "Please analyze the image above."),
        ])
        .with_description("A prompt with an image"),
        other => {
            return Err(ErrorData::invalid_params(
                format!("Unknown prompt: {other}"),
                Some(json!({"name": other})),
            ));
        }
    };
    Ok(result)
}

impl Completion for Conformance {
    fn complete<'a>(
        &'a self,
        request: CompleteRequestParams,
        _context: &'a RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Result<CompleteResult, ErrorData>> {
        let completed = complete(&request);
        Box::pin(async move { completed })
    }
}

/// `completion/complete`: values that start with what was typed so far.
fn complete(request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    let candidates: &[&str] = match (&request.r#ref, request.argument.name.as_str()) {
        (Reference::Prompt(_), "arg1" | "arg2") => {
            &["paris", "park", "party", "test", "testValue1"]
        }
        (Reference::Resource(_), "id") => &["1", "2", "3", "123"],
        _ => &[],
    };
    let typed = request.argument.value.as_str();
    let values: Vec<String> =
        candidates.iter().filter(|c| c.starts_with(typed)).map(|c| (*c).to_owned()).collect();
    let info = CompletionInfo::with_all_values(values)
        .map_err(|e| ErrorData::internal_error(format!("completion: {e}"), None))?;
    Ok(CompleteResult::new(info))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A poisoned lock only means another fixture call panicked; its data is still usable.
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The input schema of `json_schema_2020_12_tool`, exactly as the suite publishes it.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            },
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false,
    })
}

fn decode(base64: &str) -> Result<Vec<u8>, ToolError> {
    STANDARD.decode(base64).map_err(|e| {
        ToolError::new(ErrorCode::ToolError, format!("fixture data is not base64: {e}"))
    })
}

fn built(builder: toolwire_core::ToolResultBuilder) -> Result<ToolResult, ToolError> {
    builder
        .build()
        .map_err(|e| ToolError::new(ErrorCode::ToolError, format!("fixture result refused: {e}")))
}

fn text_result(text: impl Into<String>) -> Result<ToolResult, ToolError> {
    built(ToolResult::builder().part(Part::text(text)))
}

fn simple_text() -> Result<ToolResult, ToolError> {
    text_result("This is a simple text response for testing.")
}

fn image_content() -> Result<ToolResult, ToolError> {
    built(ToolResult::builder().part(Part::binary(decode(PNG)?, "image/png")))
}

fn audio_content() -> Result<ToolResult, ToolError> {
    built(ToolResult::builder().part(Part::binary(decode(WAV)?, "audio/wav")))
}

fn embedded_resource() -> Result<ToolResult, ToolError> {
    built(ToolResult::builder().part(Part::embedded_text(
        "test://embedded-resource",
        Some("text/plain".to_owned()),
        "This is an embedded resource content.",
    )))
}

fn multiple_content_types() -> Result<ToolResult, ToolError> {
    built(
        ToolResult::builder()
            .part(Part::text("Multiple content types test:"))
            .part(Part::binary(decode(PNG)?, "image/png"))
            .part(Part::embedded_text(
                "test://mixed-content-resource",
                Some("application/json".to_owned()),
                r#"{"test":"data","value":123}"#,
            )),
    )
}

fn error_handling() -> Result<ToolResult, ToolError> {
    Err(ToolError::new(
        ErrorCode::ToolError,
        "This tool intentionally returns an error for testing",
    ))
}

/// Builds a fixture's fixed answer.
type Build = fn() -> Result<ToolResult, ToolError>;

/// A fixture tool whose answer never changes.
struct Fixed(Build);

impl DynTool for Fixed {
    fn call(&self, _arguments: &Value, _context: CallContext) -> ToolFuture {
        let result = (self.0)().unwrap_or_else(ToolResult::failure);
        Box::pin(async move { Ok(result) })
    }
}

/// `json_schema_2020_12_tool`: greets whoever is named.
struct Greeting;

impl DynTool for Greeting {
    fn call(&self, arguments: &Value, _context: CallContext) -> ToolFuture {
        let name = arguments.get("name").and_then(Value::as_str).unwrap_or("world").to_owned();
        Box::pin(async move {
            Ok(text_result(format!("Hello, {name}!")).unwrap_or_else(ToolResult::failure))
        })
    }
}

/// The `x-mcp-header` tool: echoes its region as data.
struct HeaderEcho;

impl DynTool for HeaderEcho {
    fn call(&self, arguments: &Value, _context: CallContext) -> ToolFuture {
        let region = arguments.get("region").and_then(Value::as_str).unwrap_or_default().to_owned();
        let result = built(
            ToolResult::builder()
                .data(json!({"region": region}))
                .summary(format!("Region: {region}")),
        );
        Box::pin(async move { Ok(result.unwrap_or_else(ToolResult::failure)) })
    }
}

/// Which elicitation a fixture asks for.
#[derive(Clone, Copy)]
enum Elicitation {
    Simple,
    Defaults,
    Enums,
}

/// Fixture tools that talk back to the client while they run.
enum Live {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_reads_name_the_id() {
        let answer = read("test://template/123/data");
        let text = serde_json::to_value(answer).unwrap_or_default().to_string();
        assert!(text.contains(r#"\"id\":\"123\""#), "{text}");
        assert!(read("test://template//data").is_none());
        assert!(read("test://nonexistent").is_none());
    }

    #[test]
    fn fixture_data_decodes() {
        assert_eq!(&decode(PNG).unwrap_or_default()[..4], b"\x89PNG");
        assert_eq!(&decode(WAV).unwrap_or_default()[..4], b"RIFF");
    }

    #[test]
    fn every_fixture_tool_registers() {
        let mut registry = Registry::new();
        let fixtures = Conformance::new();
        assert!(fixtures.register_tools(&mut registry).is_ok());
        assert_eq!(registry.len(), 26);
        assert!(registry.names().any(|n| n == HEADER_TOOL));
        assert!(registry.names().any(|n| n == "test_input_required_result_multi_round"));
    }

    #[test]
    fn completion_filters_by_prefix() {
        let request: CompleteRequestParams = match serde_json::from_value(json!({
            "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
            "argument": {"name": "arg1", "value": "par"},
        })) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        let result = complete(&request).map(|r| r.completion.values);
        assert_eq!(
            result.ok(),
            Some(vec!["paris".to_owned(), "park".to_owned(), "party".to_owned()])
        );
    }
}

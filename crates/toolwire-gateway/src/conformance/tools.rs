//! The fixture tools: fixed answers (text, image, audio, embedded resources, an error), the
//! JSON Schema 2020-12 and `x-mcp-header` tools, and the registration of every fixture tool.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use toolwire_core::{ErrorCode, Part, ToolError, ToolResult};
use toolwire_mcp::{CallContext, DynTool, Registry, RegistryError, ToolFuture, ToolSpec};

use super::live::{Elicitation, Live};
use super::{HEADER_TOOL, PNG, State, WAV};

/// Registers every fixture tool on `registry`; the logging tools read `state`.
pub(super) fn register(registry: &mut Registry, state: &Arc<State>) -> Result<(), RegistryError> {
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
            Live::Logging(Arc::clone(state)),
        ),
        (
            "test_logging_tool",
            "Sends three info log messages, only to clients that asked for logs (2026-07-28: the request's logLevel).",
            empty(),
            Live::Logging(Arc::clone(state)),
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
        ("test_reconnection", "Answers after a short delay (SSE polling).", empty(), Live::Delay),
    ];
    for (name, description, schema, live) in live {
        registry
            .register_dyn(ToolSpec::new(name, description).input_schema(schema), Arc::new(live))?;
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
    super::mrtr::register(registry)?;
    super::tasks::register(registry)
}

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

pub(super) fn built(builder: toolwire_core::ToolResultBuilder) -> Result<ToolResult, ToolError> {
    builder
        .build()
        .map_err(|e| ToolError::new(ErrorCode::ToolError, format!("fixture result refused: {e}")))
}

pub(super) fn text_result(text: impl Into<String>) -> Result<ToolResult, ToolError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_data_decodes() {
        assert_eq!(&decode(PNG).unwrap_or_default()[..4], b"\x89PNG");
        assert_eq!(&decode(WAV).unwrap_or_default()[..4], b"RIFF");
    }
}

//! Tool definitions per MCP revision: `title`, `annotations`, `outputSchema`, `icons` and
//! `$schema` only where the revision has them, never `execution`. Built as rmcp's typed `Tool`
//! once, at registration; rmcp serializes it as it is.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::{Value, json};
use toolwire_core::revision::{McpCaps, ToolTitle};
use toolwire_core::{McpRevision, ToolOutput, publish_input_schema};

use crate::registry::ToolSpec;

/// The `Tool` object `tools/list` publishes for `revision`.
pub(crate) fn tool_definition(
    spec: &ToolSpec,
    output: &ToolOutput,
    revision: McpRevision,
) -> Result<Tool, String> {
    let input = spec.input_schema.clone().unwrap_or_else(|| json!({"type": "object"}));
    let input_schema = schema_object("inputSchema", publish_input_schema(&input, revision))?;
    let caps = McpCaps::of(revision);
    let mut tool = Tool::new(spec.name.clone(), spec.description.clone(), input_schema);
    if caps.tool_title == ToolTitle::Field {
        tool.title.clone_from(&spec.title);
    }
    tool.output_schema = match output.published(revision) {
        Some(published) => Some(schema_object("outputSchema", published)?),
        None => None,
    };
    if caps.tool_annotations {
        let mut annotations = spec.annotations.clone();
        // 2025-03-26 has no `Tool.title`: the display name travels as `annotations.title`.
        if caps.tool_title == ToolTitle::Annotations
            && let Some(title) = &spec.title
        {
            annotations.get_or_insert_default().title.get_or_insert_with(|| title.clone());
        }
        tool.annotations = annotations;
    }
    if caps.icons {
        tool.icons.clone_from(&spec.icons);
    }
    Ok(tool)
}

/// A published schema as the JSON object rmcp's `Tool` holds (a boolean schema is refused).
fn schema_object(field: &str, schema: Value) -> Result<Arc<JsonObject>, String> {
    match schema {
        Value::Object(object) => Ok(Arc::new(object)),
        other => Err(format!("the published {field} must be a JSON object, not {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn definition(spec: &ToolSpec, revision: McpRevision) -> Value {
        let output = match &spec.output_schema {
            Some(declared) => {
                ToolOutput::from_declaration(declared, spec.shape).unwrap_or_else(|e| panic!("{e}"))
            }
            None => ToolOutput::none(spec.shape),
        };
        match tool_definition(spec, &output, revision) {
            Ok(tool) => serde_json::to_value(tool).unwrap_or(Value::Null),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn fields_appear_only_where_the_revision_has_them() {
        let spec = ToolSpec::new("t", "A tool.")
            .title("T")
            .annotations(rmcp::model::ToolAnnotations::new().read_only(true))
            .icons(vec![rmcp::model::Icon::new("https://example.com/i.png")])
            .input_schema(json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"x": true}}))
            .output_schema(json!({"type": "array", "items": {"type": "integer"}}));
        assert_eq!(
            definition(&spec, McpRevision::V2024_11_05),
            json!({"name": "t", "description": "A tool.", "inputSchema": {"type": "object", "properties": {"x": {}}}})
        );
        assert_eq!(
            definition(&spec, McpRevision::V2025_03_26),
            json!({"name": "t", "description": "A tool.", "inputSchema": {"type": "object", "properties": {"x": {}}}, "annotations": {"title": "T", "readOnlyHint": true}})
        );
        assert_eq!(
            definition(&spec, McpRevision::V2025_06_18),
            json!({"name": "t", "title": "T", "description": "A tool.",
                   "inputSchema": {"type": "object", "properties": {"x": {}}},
                   "outputSchema": {"type": "object", "properties": {"result": {"type": "array", "items": {"type": "integer"}}}, "required": ["result"], "x-fastmcp-wrap-result": true},
                   "annotations": {"readOnlyHint": true}})
        );
        assert_eq!(
            definition(&spec, McpRevision::V2026_07_28),
            json!({"name": "t", "title": "T", "description": "A tool.",
                   "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"x": true}},
                   "outputSchema": {"type": "array", "items": {"type": "integer"}},
                   "annotations": {"readOnlyHint": true},
                   "icons": [{"src": "https://example.com/i.png"}]})
        );
    }
}

//! Tool definitions per MCP revision: `title`, `annotations`, `outputSchema`, `icons` and
//! `$schema` only where the revision has them, never `execution`.

use serde_json::{Map, Value, json};
use toolwire_core::revision::{McpCaps, ToolTitle};
use toolwire_core::{McpRevision, ToolOutput, publish_input_schema};

use crate::registry::ToolSpec;

/// The `Tool` object `tools/list` publishes for `revision`.
pub(crate) fn tool_definition(
    spec: &ToolSpec,
    output: &ToolOutput,
    revision: McpRevision,
) -> Result<rmcp::model::Tool, String> {
    let caps = McpCaps::of(revision);
    let mut tool = Map::new();
    tool.insert("name".into(), Value::String(spec.name.clone()));
    if caps.tool_title == ToolTitle::Field
        && let Some(title) = &spec.title
    {
        tool.insert("title".into(), Value::String(title.clone()));
    }
    tool.insert("description".into(), Value::String(spec.description.clone()));
    let input = spec.input_schema.clone().unwrap_or_else(|| json!({"type": "object"}));
    tool.insert("inputSchema".into(), publish_input_schema(&input, revision));
    if let Some(published) = output.published(revision) {
        tool.insert("outputSchema".into(), published);
    }
    let mut tool: rmcp::model::Tool =
        serde_json::from_value(Value::Object(tool)).map_err(|e| e.to_string())?;
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

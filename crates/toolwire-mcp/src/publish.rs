//! Tool definitions per MCP revision: `title`, `annotations`, `outputSchema`, `icons` and
//! `$schema` only where the revision has them, never `execution`.

use serde_json::{Map, Value, json};
use toolwire_core::McpRevision;

use crate::registry::ToolSpec;

/// The `Tool` object `tools/list` publishes for `revision`.
pub(crate) fn tool_definition(
    spec: &ToolSpec,
    revision: McpRevision,
) -> Result<rmcp::model::Tool, String> {
    let mut tool = Map::new();
    tool.insert("name".into(), Value::String(spec.name.clone()));
    if revision >= McpRevision::V2025_06_18
        && let Some(title) = &spec.title
    {
        tool.insert("title".into(), Value::String(title.clone()));
    }
    tool.insert("description".into(), Value::String(spec.description.clone()));
    let input = spec.input_schema.clone().unwrap_or_else(|| json!({"type": "object"}));
    tool.insert("inputSchema".into(), input_schema(input, revision));
    if let Some(output) = spec.output_schema.as_ref().and_then(|s| output_schema(s, revision)) {
        tool.insert("outputSchema".into(), output);
    }
    if revision >= McpRevision::V2025_03_26 {
        let mut annotations = spec.annotations.clone().unwrap_or_default();
        // 2025-03-26 has no `Tool.title`: the display name travels as `annotations.title`.
        if revision == McpRevision::V2025_03_26
            && let Some(title) = &spec.title
        {
            annotations.entry("title").or_insert_with(|| Value::String(title.clone()));
        }
        if !annotations.is_empty() {
            tool.insert("annotations".into(), Value::Object(annotations));
        }
    }
    if revision >= McpRevision::V2025_11_25
        && let Some(icons) = &spec.icons
    {
        tool.insert("icons".into(), Value::Array(icons.clone()));
    }
    serde_json::from_value(Value::Object(tool)).map_err(|e| e.to_string())
}

/// The published input schema: `$schema` only from 2025-11-25, boolean property schemas as
/// objects before 2026-07-28 (older schemas require objects there).
fn input_schema(mut schema: Value, revision: McpRevision) -> Value {
    if let Value::Object(map) = &mut schema {
        if revision < McpRevision::V2025_11_25 {
            map.remove("$schema");
        }
        if revision < McpRevision::V2026_07_28 {
            objectify_properties(map);
        }
    }
    schema
}

/// The published output schema, or `None` where the revision has none.
fn output_schema(declared: &Value, revision: McpRevision) -> Option<Value> {
    match revision {
        McpRevision::V2024_11_05 | McpRevision::V2025_03_26 => None,
        McpRevision::V2026_07_28 => Some(declared.clone()),
        _ => {
            let mut schema = declared.clone();
            let is_object = schema.get("type").and_then(Value::as_str) == Some("object");
            let mut published = if is_object {
                schema
            } else {
                let mut wrapper = Map::new();
                wrapper.insert("type".into(), json!("object"));
                let mut hoisted = Map::new();
                if let Value::Object(inner) = &mut schema {
                    for key in ["$defs", "definitions"] {
                        if let Some(defs) = inner.remove(key) {
                            hoisted.insert(key.to_owned(), defs);
                        }
                    }
                    if let Some(dialect) = inner.remove("$schema") {
                        wrapper.insert("$schema".into(), dialect);
                    }
                    inner.remove("$id");
                    inner.remove("title");
                }
                let inner = match schema {
                    Value::Bool(true) => json!({}),
                    Value::Bool(false) => json!({"not": {}}),
                    other => other,
                };
                wrapper.insert("properties".into(), json!({"result": inner}));
                wrapper.insert("required".into(), json!(["result"]));
                wrapper.extend(hoisted);
                Value::Object(wrapper)
            };
            if let Value::Object(map) = &mut published {
                if revision < McpRevision::V2025_11_25 {
                    map.remove("$schema");
                }
                objectify_properties(map);
            }
            Some(published)
        }
    }
}

/// Rewrites boolean schemas under `properties` (recursively) as `{}` / `{"not": {}}`.
fn objectify_properties(map: &mut Map<String, Value>) {
    for (key, value) in map.iter_mut() {
        match value {
            Value::Object(inner) if key == "properties" => {
                for property in inner.values_mut() {
                    match property {
                        Value::Bool(true) => *property = json!({}),
                        Value::Bool(false) => *property = json!({"not": {}}),
                        Value::Object(nested) => objectify_properties(nested),
                        _ => {}
                    }
                }
            }
            Value::Object(inner) => objectify_properties(inner),
            Value::Array(items) => {
                for item in items {
                    if let Value::Object(nested) = item {
                        objectify_properties(nested);
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn definition(spec: &ToolSpec, revision: McpRevision) -> Value {
        match tool_definition(spec, revision) {
            Ok(tool) => serde_json::to_value(tool).unwrap_or(Value::Null),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn fields_appear_only_where_the_revision_has_them() {
        let mut annotations = Map::new();
        annotations.insert("readOnlyHint".into(), json!(true));
        let spec = ToolSpec::new("t", "A tool.")
            .title("T")
            .annotations(annotations)
            .icons(vec![json!({"src": "https://example.com/i.png"})])
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
                   "outputSchema": {"type": "object", "properties": {"result": {"type": "array", "items": {"type": "integer"}}}, "required": ["result"]},
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

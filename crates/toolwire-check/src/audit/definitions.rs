//! Tool definitions as `tools/list` sent them: the official `ListToolsResult` schema of the
//! revision, the name grammar, a description, an input schema that compiles with an object root,
//! the outputSchema rules of the revision, portability and duplicate names.

use std::collections::HashMap;

use crate::wire;
use serde_json::Value;
use toolwire_core::host::{MAX_RESULT_SIZE_CHARS_CEILING, MAX_RESULT_SIZE_CHARS_KEY};
use toolwire_core::pointer;
use toolwire_core::revision::{McpCaps, StructuredCap};
use toolwire_core::{McpRevision, Shape, ToolOutput};

use super::Finding;
use super::client::location;

/// One listed tool.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// Its name.
    pub name: String,
    /// The definition as sent.
    pub raw: Value,
}

impl ToolDef {
    /// Annotated `readOnlyHint: true`: calling it changes nothing.
    pub fn read_only(&self) -> bool {
        self.raw.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true))
    }

    /// The input schema as sent.
    pub fn input_schema(&self) -> Option<&Value> {
        self.raw.get("inputSchema")
    }

    /// The outputSchema as sent, the one results are checked against.
    pub fn output_schema(&self) -> Option<&Value> {
        self.raw.get("outputSchema")
    }

    /// The tool's size opt-in for Claude Code, `_meta["anthropic/maxResultSizeChars"]`, as a
    /// whole number of characters (one above Claude Code's ceiling counts as the ceiling).
    pub fn max_result_size_chars(&self) -> Option<usize> {
        let chars = self.raw.get("_meta")?.get(MAX_RESULT_SIZE_CHARS_KEY)?.as_u64()?;
        Some(usize::try_from(chars).unwrap_or(usize::MAX).min(MAX_RESULT_SIZE_CHARS_CEILING))
    }
}

/// The longest tool name the naming guidance allows.
const MAX_NAME: usize = 128;

/// Keywords whose value is one sub-schema.
const SCHEMA_KEYWORDS: &[&str] =
    &["items", "not", "if", "then", "else", "contains", "propertyNames", "additionalItems"];
/// Keywords whose value is a list of sub-schemas.
const SCHEMA_LIST_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to sub-schemas.
const SCHEMA_MAP_KEYWORDS: &[&str] =
    &["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
/// Keywords where a boolean is the idiom (`additionalProperties: false`) and portable.
const BOOLEAN_IDIOMS: &[&str] =
    &["additionalProperties", "unevaluatedProperties", "unevaluatedItems"];

/// Every listed tool and every finding about the listing of `revision`.
pub fn check(revision: McpRevision, pages: &[Value]) -> (Vec<ToolDef>, Vec<Finding>) {
    let mut tools = Vec::new();
    let mut findings = Vec::new();
    let mut seen: HashMap<String, String> = HashMap::new();
    for (p, page) in pages.iter().enumerate() {
        let base = if pages.len() > 1 {
            format!("tools/list page {} ", p + 1)
        } else {
            "tools/list ".to_owned()
        };
        let listed: Vec<&Value> =
            page.get("tools").and_then(Value::as_array).into_iter().flatten().collect();
        let name_of = |i: usize| listed.get(i).and_then(|t| t.get("name")).and_then(Value::as_str);
        for violation in wire::official_mcp_violations(revision, "ListToolsResult", page) {
            let at = format!("{base}{}", location(&violation));
            let tool = tool_index(&violation.path).and_then(name_of);
            let finding = match tool {
                Some(name) => {
                    Finding::tool(revision, name, "official-schema", at, &violation.message)
                }
                None => Finding::revision(revision, "official-schema", at, &violation.message),
            };
            findings.push(finding.weighed(&violation));
        }
        for (i, raw) in listed.iter().enumerate() {
            let Some(name) = raw.get("name").and_then(Value::as_str) else {
                continue;
            };
            let at = format!("{base}/tools/{i}");
            let mut found = Findings { revision, tool: name, out: &mut findings };
            if let Some(first) = seen.get(name) {
                found.push(
                    "duplicate-name",
                    format!("{at}/name"),
                    format!("`{name}` is listed twice (first at {first})"),
                );
            } else {
                seen.insert(name.to_owned(), at.clone());
            }
            name_rules(name, &at, &mut found);
            description(raw, &at, &mut found);
            input_schema(raw, &at, &mut found);
            output_schema(revision, raw, &at, &mut found);
            for key in ["inputSchema", "outputSchema"] {
                if let Some(schema) = raw.get(key) {
                    portability(schema, &format!("{at}/{key}"), &mut found);
                }
            }
            tools.push(ToolDef { name: name.to_owned(), raw: (*raw).clone() });
        }
    }
    (tools, findings)
}

/// The tool index of a pointer below `/tools/<i>`.
fn tool_index(path: &str) -> Option<usize> {
    path.strip_prefix("/tools/")?.split('/').next()?.parse().ok()
}

struct Findings<'a> {
    revision: McpRevision,
    tool: &'a str,
    out: &'a mut Vec<Finding>,
}

impl Findings<'_> {
    fn push(&mut self, check: &'static str, at: String, message: String) {
        self.out.push(Finding::tool(self.revision, self.tool, check, at, message));
    }

    fn warn(&mut self, check: &'static str, at: String, message: String) {
        self.out.push(Finding::tool(self.revision, self.tool, check, at, message).warning());
    }

    /// Whether the official schema already reported something at or below `at`.
    fn official_at(&self, at: &str) -> bool {
        self.out.iter().any(|f| {
            f.check == "official-schema"
                && f.tool.as_deref() == Some(self.tool)
                && (f.at == at || f.at.starts_with(&format!("{at}/")))
        })
    }
}

fn name_rules(name: &str, at: &str, found: &mut Findings<'_>) {
    let length = name.chars().count();
    let bad: Vec<char> = name
        .chars()
        .filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .collect();
    if length == 0 || length > MAX_NAME {
        found.push(
            "tool-name",
            format!("{at}/name"),
            format!("a tool name has 1 to {MAX_NAME} characters; this one has {length}"),
        );
    }
    if !bad.is_empty() {
        let shown: String = bad.iter().collect();
        found.push(
            "tool-name",
            format!("{at}/name"),
            format!("`{name}` has characters outside A-Z a-z 0-9 _ - . ({shown:?}); hosts may refuse or rename the tool"),
        );
    }
}

fn description(raw: &Value, at: &str, found: &mut Findings<'_>) {
    let text = raw.get("description").and_then(Value::as_str).map(str::trim);
    if text.is_none_or(str::is_empty) && !found.official_at(&format!("{at}/description")) {
        found.push(
            "description",
            format!("{at}/description"),
            "no description: a model cannot tell when to use the tool".to_owned(),
        );
    }
}

fn input_schema(raw: &Value, at: &str, found: &mut Findings<'_>) {
    let at = format!("{at}/inputSchema");
    let Some(schema) = raw.get("inputSchema") else {
        return;
    };
    if found.official_at(&at) {
        return;
    }
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        found.push(
            "input-schema",
            at.clone(),
            "the root of an input schema has `\"type\": \"object\"`".to_owned(),
        );
    }
    if let Err(err) = toolwire_core::build_validator(&jsonschema::options().offline(), schema) {
        found.push("input-schema", at, format!("does not compile: {}", err.masked()));
    }
}

fn output_schema(revision: McpRevision, raw: &Value, at: &str, found: &mut Findings<'_>) {
    let at = format!("{at}/outputSchema");
    let Some(schema) = raw.get("outputSchema") else {
        return;
    };
    if found.official_at(&at) {
        return;
    }
    match McpCaps::of(revision).structured_content {
        // A field the revision does not define: its clients ignore it.
        StructuredCap::Never => {
            found.out.push(
                Finding::tool(
                    revision,
                    found.tool,
                    "output-schema",
                    at,
                    format!(
                        "`outputSchema` does not exist in {} (it arrives in 2025-06-18); clients ignore a field their revision does not define",
                        revision.as_str()
                    ),
                )
                .warning(),
            );
            return;
        }
        StructuredCap::ObjectOnly
            if schema.get("type").and_then(Value::as_str) != Some("object") =>
        {
            found.push(
                "output-schema",
                at.clone(),
                format!(
                    "an outputSchema on {} has `\"type\": \"object\"` at its root",
                    revision.as_str()
                ),
            );
        }
        _ => {}
    }
    // The core's declaration compiler: dialect, network `$ref`s and unresolvable references.
    if let Err(err) = ToolOutput::from_declaration(schema, Shape::Data) {
        found.push("output-schema", at, err.to_string());
    }
}

/// Boolean sub-schemas, remote `$ref`s and type unions anywhere in `schema`: valid JSON Schema
/// that strict clients (the Inspector's `--strict`, model providers' tool converters) refuse.
/// Graded as the Inspector grades them: a boolean sub-schema is an error, the other two are
/// warnings (a client may drop the constraint rather than the tool).
fn portability(schema: &Value, at: &str, found: &mut Findings<'_>) {
    let Value::Object(fields) = schema else {
        return;
    };
    if let Some(Value::String(reference)) = fields.get("$ref")
        && !reference.starts_with('#')
    {
        found.warn(
            "portability",
            format!("{at}/$ref"),
            format!("`$ref` to `{reference}` points outside the schema; clients never fetch it"),
        );
    }
    // `["T", "null"]` is the nullable idiom every client reads; a union of real types is not.
    if let Some(Value::Array(types)) = fields.get("type")
        && types.iter().filter(|t| t.as_str() != Some("null")).count() > 1
    {
        let shown: Vec<String> = types.iter().map(ToString::to_string).collect();
        found.warn(
            "portability",
            format!("{at}/type"),
            format!(
                "a type union [{}]; strict clients want one type per schema (use anyOf)",
                shown.join(", ")
            ),
        );
    }
    for (key, value) in fields {
        let here = pointer::push(at, key);
        if SCHEMA_KEYWORDS.contains(&key.as_str()) {
            sub_schema(value, &here, found);
        } else if SCHEMA_LIST_KEYWORDS.contains(&key.as_str())
            && let Value::Array(list) = value
        {
            for (i, item) in list.iter().enumerate() {
                sub_schema(item, &pointer::push_index(&here, i), found);
            }
        } else if SCHEMA_MAP_KEYWORDS.contains(&key.as_str())
            && let Value::Object(map) = value
        {
            for (name, item) in map {
                sub_schema(item, &pointer::push(&here, name), found);
            }
        } else if BOOLEAN_IDIOMS.contains(&key.as_str()) && value.is_object() {
            portability(value, &here, found);
        }
    }
}

fn sub_schema(schema: &Value, at: &str, found: &mut Findings<'_>) {
    match schema {
        // Before 2026-07-28 the official schema already refuses some of these.
        Value::Bool(_) if found.official_at(at) => {}
        Value::Bool(accepts) => found.push(
            "portability",
            at.to_owned(),
            format!(
                "a boolean sub-schema (`{accepts}`); strict clients want a schema object ({})",
                if *accepts { "`{}`" } else { "`{\"not\": {}}`" }
            ),
        ),
        _ => portability(schema, at, found),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn findings(revision: McpRevision, tools: Value) -> Vec<(String, String, String)> {
        let mut page = json!({"tools": tools});
        if revision.is_stateless() {
            page["resultType"] = json!("complete");
            page["ttlMs"] = json!(0);
            page["cacheScope"] = json!("public");
        }
        let (_, found) = check(revision, &[page]);
        found.into_iter().map(|f| (f.check.to_owned(), f.at, f.message)).collect()
    }

    #[test]
    fn a_clean_definition_has_no_findings() {
        let tools = json!([{"name": "search.items", "description": "Search",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}},
                            "additionalProperties": false},
            "outputSchema": {"type": "object"}}]);
        assert_eq!(findings(McpRevision::V2025_06_18, tools), vec![]);
    }

    #[test]
    fn each_rule_names_its_place() {
        let tools = json!([
            {"name": "bad name!", "inputSchema": {"type": "object",
                "properties": {"a": true, "b": {"type": ["string", "integer"]}, "n": {"type": ["string", "null"]},
                               "c": {"$ref": "https://example.com/c.json"}}}},
            {"name": "bad name!", "description": "again", "inputSchema": {"type": "object"}}
        ]);
        let found = findings(McpRevision::V2025_03_26, tools);
        let places: Vec<(&str, &str)> =
            found.iter().map(|(c, a, _)| (c.as_str(), a.as_str())).collect();
        assert_eq!(
            places,
            vec![
                ("official-schema", "tools/list /tools/0/inputSchema/properties/a"),
                ("tool-name", "tools/list /tools/0/name"),
                ("description", "tools/list /tools/0/description"),
                ("portability", "tools/list /tools/0/inputSchema/properties/b/type"),
                ("portability", "tools/list /tools/0/inputSchema/properties/c/$ref"),
                ("duplicate-name", "tools/list /tools/1/name"),
                ("tool-name", "tools/list /tools/1/name"),
            ],
            "{found:?}"
        );
        assert_eq!(found[5].2, "`bad name!` is listed twice (first at tools/list /tools/0)");
    }

    #[test]
    fn output_schema_rules_follow_the_revision() {
        let tool = |schema: Value| {
            json!([{"name": "t", "description": "d",
            "inputSchema": {"type": "object"}, "outputSchema": schema}])
        };
        let early = findings(McpRevision::V2025_03_26, tool(json!({"type": "object"})));
        assert_eq!(early.len(), 1, "{early:?}");
        assert_eq!(early[0].0, "output-schema");
        assert_eq!(early[0].1, "tools/list /tools/0/outputSchema");
        let on_2026 = findings(McpRevision::V2026_07_28, tool(json!({"type": "array"})));
        assert!(on_2026.is_empty(), "{on_2026:?}");
        let on_2025 = findings(McpRevision::V2025_06_18, tool(json!({"type": "array"})));
        assert!(
            !on_2025.is_empty()
                && on_2025.iter().all(|f| f.1.starts_with("tools/list /tools/0/outputSchema")),
            "{on_2025:?}"
        );
    }
}

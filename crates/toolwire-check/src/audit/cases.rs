//! Which calls to make: the cases of a `--cases` file, else two generated from the input schema —
//! one minimal valid call (defaults, examples, enums, minimal values) and one with a required
//! argument missing.
//!
//! A cases file is JSON: a list of `{"tool", "arguments"?, "expect"?, "name"?}` (or an object
//! with that list under `cases`); `expect` is `success` (the default), `error` (an `isError`
//! result) or `any`.

use serde::Deserialize;
use serde_json::{Map, Number, Value, json};

use super::definitions::ToolDef;

/// What a call must come back as.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    /// A result without `isError`.
    Success,
    /// An `isError` result.
    Error,
    /// Any result.
    Any,
    /// A refusal of arguments that miss `missing`: an `isError` result (JSON-RPC `-32602` is
    /// allowed before 2025-11-25).
    #[serde(skip)]
    ArgumentError {
        /// The required argument left out.
        missing: String,
    },
}

/// One case of a `--cases` file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileCase {
    /// The tool to call.
    pub tool: String,
    /// The arguments; left out of the call when absent.
    #[serde(default)]
    pub arguments: Option<Value>,
    /// The expected outcome.
    #[serde(default = "success")]
    pub expect: Expect,
    /// How the case is shown; `case <n>` when absent.
    #[serde(default)]
    pub name: Option<String>,
}

fn success() -> Expect {
    Expect::Success
}

#[derive(Deserialize)]
#[serde(untagged)]
enum CasesFile {
    List(Vec<FileCase>),
    Wrapped { cases: Vec<FileCase> },
}

/// Parses a cases file.
pub fn parse_file(text: &str) -> Result<Vec<FileCase>, serde_json::Error> {
    Ok(match serde_json::from_str::<CasesFile>(text)? {
        CasesFile::List(cases) | CasesFile::Wrapped { cases } => cases,
    })
}

/// One call to make.
#[derive(Debug, Clone)]
pub struct Case {
    /// How it is shown: `minimal`, `missing <arg>`, a file case's name.
    pub label: String,
    /// The arguments, left out when `None`.
    pub arguments: Option<Value>,
    /// The expected outcome.
    pub expect: Expect,
}

/// What is called for `tool`: its cases from the file when it has any, else (when `allowed`:
/// read-only, or `--allow-writes`) the generated ones. Empty when nothing may be called.
pub fn for_tool(tool: &ToolDef, file: Option<&[FileCase]>, allowed: bool) -> Vec<Case> {
    let listed: Vec<Case> = file
        .into_iter()
        .flatten()
        .enumerate()
        .filter(|(_, case)| case.tool == tool.name)
        .map(|(n, case)| Case {
            label: case.name.clone().unwrap_or_else(|| format!("case {}", n + 1)),
            arguments: case.arguments.clone(),
            expect: case.expect.clone(),
        })
        .collect();
    if !listed.is_empty() || !allowed {
        return listed;
    }
    generated(tool.input_schema().unwrap_or(&Value::Null))
}

/// Why a tool is not called, for the report; `None` when it is.
pub fn skipped(file: Option<&[FileCase]>, allowed: bool, cases: &[Case]) -> Option<String> {
    if !cases.is_empty() {
        return None;
    }
    Some(if !allowed {
        let how = if file.is_some() {
            "give it a case in --cases or use --allow-writes"
        } else {
            "use --cases or --allow-writes"
        };
        format!("not called: not annotated readOnlyHint: true ({how})")
    } else {
        "not called: no arguments could be generated that match its input schema".to_owned()
    })
}

/// The generated cases: the minimal valid call, and the call missing the first required
/// argument when there is one. Arguments that do not match the schema are never sent as the
/// valid call.
pub fn generated(schema: &Value) -> Vec<Case> {
    let arguments = value_for(schema, schema, 0);
    let valid = toolwire_core::build_validator(&jsonschema::options().offline(), schema)
        .is_ok_and(|validator| validator.is_valid(&arguments));
    let mut cases = Vec::new();
    if valid && arguments.is_object() {
        cases.push(Case {
            label: "minimal".to_owned(),
            arguments: Some(arguments.clone()),
            expect: Expect::Any,
        });
    }
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .and_then(|r| r.first())
        .and_then(Value::as_str);
    if let (Some(missing), Value::Object(mut fields)) = (required, arguments) {
        fields.remove(missing);
        cases.push(Case {
            label: format!("missing `{missing}`"),
            arguments: Some(Value::Object(fields)),
            expect: Expect::ArgumentError { missing: missing.to_owned() },
        });
    }
    cases
}

/// How deep generation follows nested schemas and references.
const MAX_DEPTH: usize = 8;

/// A small value `schema` accepts, from its default, example, const or enum, else the least
/// value of its type; `root` resolves local `$ref`s.
fn value_for(schema: &Value, root: &Value, depth: usize) -> Value {
    let Value::Object(fields) = schema else {
        return Value::Null;
    };
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    if let Some(Value::String(reference)) = fields.get("$ref")
        && let Some(pointer) = reference.strip_prefix('#')
        && let Some(target) = root.pointer(pointer)
    {
        return value_for(target, root, depth + 1);
    }
    if let Some(value) = fields.get("default").or_else(|| fields.get("const")) {
        return value.clone();
    }
    for key in ["examples", "enum"] {
        if let Some(first) = fields.get(key).and_then(Value::as_array).and_then(|v| v.first()) {
            return first.clone();
        }
    }
    if let Some(Value::Array(all)) = fields.get("allOf") {
        let mut merged = Map::new();
        for part in all {
            match value_for(part, root, depth + 1) {
                Value::Object(more) => merged.extend(more),
                other if all.len() == 1 => return other,
                _ => {}
            }
        }
        if !fields.contains_key("type") && !fields.contains_key("properties") {
            return Value::Object(merged);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(choices)) = fields.get(key)
            && let Some(choice) =
                choices.iter().find(|c| c.get("type") != Some(&json!("null"))).or(choices.first())
        {
            return value_for(choice, root, depth + 1);
        }
    }
    let kind = match fields.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => {
            kinds.iter().filter_map(Value::as_str).find(|k| *k != "null").unwrap_or("null")
        }
        _ if fields.contains_key("properties") => "object",
        _ => return Value::Null,
    };
    match kind {
        "object" => {
            let properties = fields.get("properties").and_then(Value::as_object);
            let mut out = Map::new();
            for name in fields
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let property = properties.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
                out.insert(name.to_owned(), value_for(property, root, depth + 1));
            }
            Value::Object(out)
        }
        "array" => {
            let count = fields.get("minItems").and_then(Value::as_u64).unwrap_or(0).min(16);
            let item = fields.get("items").unwrap_or(&Value::Null);
            Value::Array((0..count).map(|_| value_for(item, root, depth + 1)).collect())
        }
        "string" => Value::String(string_for(fields)),
        "integer" | "number" => number_for(fields),
        "boolean" => Value::Bool(false),
        _ => Value::Null,
    }
}

fn string_for(fields: &Map<String, Value>) -> String {
    let by_format = match fields.get("format").and_then(Value::as_str) {
        Some("date-time") => Some("2025-01-01T00:00:00Z"),
        Some("date") => Some("2025-01-01"),
        Some("time") => Some("00:00:00Z"),
        Some("email") => Some("user@example.com"),
        Some("uri" | "url" | "iri") => Some("https://example.com/"),
        Some("uuid") => Some("00000000-0000-0000-0000-000000000000"),
        Some("ipv4") => Some("127.0.0.1"),
        _ => None,
    };
    if let Some(text) = by_format {
        return text.to_owned();
    }
    let length = fields.get("minLength").and_then(Value::as_u64).unwrap_or(1).clamp(1, 64);
    "a".repeat(usize::try_from(length).unwrap_or(1))
}

/// The minimum, the next integer above an exclusive minimum, a maximum below 1, else 1.
fn number_for(fields: &Map<String, Value>) -> Value {
    if let Some(Value::Number(minimum)) = fields.get("minimum") {
        return Value::Number(minimum.clone());
    }
    if let Some(Value::Number(above)) = fields.get("exclusiveMinimum") {
        let next = above.as_i64().map(|n| Number::from(n.saturating_add(1)));
        if let Some(next) = next.or_else(|| above.as_f64().and_then(|n| Number::from_f64(n + 1.0)))
        {
            return Value::Number(next);
        }
    }
    if let Some(Value::Number(maximum)) = fields.get("maximum")
        && maximum.as_f64().is_some_and(|m| m < 1.0)
    {
        return Value::Number(maximum.clone());
    }
    json!(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minimal_call_takes_defaults_examples_enums_and_least_values() {
        let schema = json!({
            "type": "object",
            "properties": {
                "q": {"type": "string", "minLength": 3},
                "limit": {"type": "integer", "minimum": 5, "default": 10},
                "mode": {"enum": ["fast", "slow"]},
                "when": {"type": "string", "format": "date"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "item": {"$ref": "#/$defs/item"},
                "note": {"anyOf": [{"type": "null"}, {"type": "number", "exclusiveMinimum": 0}]},
                "optional": {"type": "string"}
            },
            "required": ["q", "limit", "mode", "when", "tags", "item", "note"],
            "$defs": {"item": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}}
        });
        let cases = generated(&schema);
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].label, "minimal");
        assert_eq!(
            cases[0].arguments,
            Some(json!({"q": "aaa", "limit": 10, "mode": "fast", "when": "2025-01-01",
                        "tags": ["a"], "item": {"id": 1}, "note": 1}))
        );
        assert_eq!(cases[1].label, "missing `q`");
        assert_eq!(cases[1].expect, Expect::ArgumentError { missing: "q".to_owned() });
        assert_eq!(cases[1].arguments.as_ref().and_then(|a| a.get("q")), None);
    }

    #[test]
    fn arguments_the_schema_refuses_are_never_the_valid_call() {
        let schema = json!({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[0-9]+$"}}, "required": ["code"]});
        let cases = generated(&schema);
        let labels: Vec<&str> = cases.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, vec!["missing `code`"]);
        assert_eq!(generated(&json!({"type": "object"})).len(), 1);
    }

    #[test]
    fn a_cases_file_is_a_list_or_an_object_with_cases() {
        let list = parse_file(
            r#"[{"tool": "a", "arguments": {"x": 1}}, {"tool": "b", "expect": "error", "name": "bad id"}]"#,
        );
        let Ok(list) = list else { panic!("{list:?}") };
        assert_eq!(
            (list[0].expect.clone(), list[1].expect.clone()),
            (Expect::Success, Expect::Error)
        );
        assert!(parse_file(r#"{"cases": [{"tool": "a"}]}"#).is_ok_and(|c| c.len() == 1));
        let unknown = parse_file(r#"[{"tool": "a", "expected": "error"}]"#);
        assert!(unknown.is_err());
    }
}

//! Wire checking: does a rendered result obey the official schema of its target and toolwire's
//! wire contract?
//!
//! Every output the mapper renders must pass [`check`]; `toolwire validate` is a thin command
//! around it. A check has three parts:
//! 1. the **official schema** of the target: the revision's `CallToolResult` for MCP, `Task` of
//!    the A2A 0.3 schema, `Task` of the schema derived from `a2a.proto` for A2A 1.0, and for the
//!    legacy target the envelope grammar of DESIGN §3 (it has no JSON Schema);
//! 2. toolwire's **wire contract** per target: no field the revision lacks, no unknown keys,
//!    `_meta` keys in the grammar and outside the reserved prefixes, `isError` only as `true`,
//!    A2A parts with exactly one payload;
//! 3. with [`check_with_schema`], the tool's **published outputSchema** against
//!    `structuredContent`.
//!
//! Violations name the violated place with a JSON-pointer path into the wire document.

mod a2a;
mod contract;
mod legacy;
mod official;

use serde_json::Value;
use serde_json::value::RawValue;

pub(crate) use contract::tolerated as contract_tolerated;
pub(crate) use official::read_as_text as official_read_as_text;
pub(crate) use toolwire_core::pointer::{push as pointer, push_index as index};
use toolwire_core::{A2aVersion, McpRevision, Target};

/// One way a wire document breaks the official schema or toolwire's wire contract: a JSON
/// pointer into the wire document and what is wrong there (the one
/// [`Violation`](toolwire_core::pointer::Violation) type).
pub use toolwire_core::pointer::Violation as WireViolation;

/// Checks the exact rendered text for `target`: the legacy envelope string, an MCP
/// `CallToolResult` (or, on 2026-07-28, `InputRequiredResult`) object or an A2A `Task` object.
///
/// For the legacy target, a text that is not a JSON object with a boolean `success` is a
/// passthrough string, which is valid legacy output as it is; an envelope must follow the grammar
/// of DESIGN §3 exactly (compact, fixed key order, `_meta` only when non-empty).
///
/// Returns every violation found; an empty list means the text is valid.
pub fn check(target: Target, wire: &str) -> Vec<WireViolation> {
    check_with_schema(target, wire, None)
}

/// Like [`check`], and in addition, for MCP targets, checks `structuredContent` against the
/// tool's published outputSchema when one is given: present `structuredContent` must validate
/// against it, and a success without `structuredContent` is a violation (clients reject it).
///
/// The published schema is ignored for the legacy and A2A targets, which carry no
/// `structuredContent`.
pub fn check_with_schema(
    target: Target,
    wire: &str,
    published_output_schema: Option<&Value>,
) -> Vec<WireViolation> {
    match target {
        Target::Legacy => legacy::violations(wire),
        Target::Mcp(revision) => {
            let (value, structured) = match parse_call_tool_result(wire) {
                Ok(parsed) => parsed,
                Err(violation) => return vec![violation],
            };
            if toolwire_core::revision::McpCaps::of(revision).input_required_result
                && value.get("resultType").and_then(Value::as_str) == Some("input_required")
            {
                let mut out = official::input_required_result().violations(&value);
                contract::input_required_violations(&value, &mut out);
                return out;
            }
            let mut out = official_call_tool_result_violations(revision, &value);
            contract::mcp_violations(revision, &value, &mut out);
            if let Some(schema) = published_output_schema {
                // Only the published schema looks inside `structuredContent`: its tree is built
                // here, and only here.
                let structured = match structured {
                    Some(raw) => serde_json::from_str::<Value>(raw.get()).ok(),
                    None => value.get("structuredContent").cloned(),
                };
                contract::output_schema_violations(schema, &value, structured.as_ref(), &mut out);
            }
            out
        }
        Target::A2a(version) => {
            let value = match parse_object(wire, "a Task") {
                Ok(value) => value,
                Err(violation) => return vec![violation],
            };
            let mut out = official_a2a_task_violations(version, &value);
            a2a::violations(version, &value, &mut out);
            out
        }
        other => vec![WireViolation::new("", format!("no wire check for the target {other}"))],
    }
}

/// Only the official-schema part of the check for MCP: `value` against the revision's
/// `CallToolResult` definition in `spec/mcp/<revision>/schema.json`.
pub fn official_call_tool_result_violations(
    revision: McpRevision,
    value: &Value,
) -> Vec<WireViolation> {
    official::call_tool_result(revision).violations(value)
}

/// `value` against any definition of the revision's official schema, e.g. `ListToolsResult`,
/// `InitializeResult` or (2026-07-28) `DiscoverResult`: what an auditing client checks beyond
/// the `CallToolResult`. A definition the revision lacks is reported as one root violation.
pub fn official_mcp_violations(
    revision: McpRevision,
    definition: &str,
    value: &Value,
) -> Vec<WireViolation> {
    official::mcp_definition(revision, definition).violations(value)
}

/// The text of the revision's official schema document as this crate embeds it (`spec/mcp/`),
/// for callers that compile a definition of their own (`Tool`, say); `None` for a revision newer
/// than the embedded copies.
pub fn official_mcp_schema(revision: McpRevision) -> Option<&'static str> {
    official::mcp_text(revision).ok()
}

/// Only the official-schema part of the check for A2A: `value` against `Task` of
/// `spec/a2a/0.3/a2a.json` (0.3) or of the schema derived from `a2a.proto`,
/// `spec/a2a/1.0/a2a.schema.json` (1.0).
pub fn official_a2a_task_violations(version: A2aVersion, value: &Value) -> Vec<WireViolation> {
    official::a2a_task(version).violations(value)
}

/// A `CallToolResult` (or `InputRequiredResult`) as a tree in which an object or array
/// `structuredContent` stands as `{}` or `[]`, with that member's raw text: neither the official
/// schemas (any value, or any object) nor the wire contract look inside it, and a large one
/// would cost many times its text as a tree. The whole tree when the members cannot be read raw.
fn parse_call_tool_result(wire: &str) -> Result<(Value, Option<&RawValue>), WireViolation> {
    let Some(members) = toolwire_core::parse::raw_members(wire) else {
        return parse_object(wire, "a CallToolResult").map(|value| (value, None));
    };
    let mut map = serde_json::Map::new();
    let mut structured = None;
    for (key, raw) in members {
        let stub = match raw.get().as_bytes().first() {
            Some(b'{') => Some(Value::Object(serde_json::Map::new())),
            Some(b'[') => Some(Value::Array(Vec::new())),
            _ => None,
        };
        let value = match stub {
            Some(stub) if key == "structuredContent" => {
                structured = Some(raw);
                stub
            }
            _ => match serde_json::from_str(raw.get()) {
                Ok(value) => value,
                Err(_) => return parse_object(wire, "a CallToolResult").map(|value| (value, None)),
            },
        };
        map.insert(key, value);
    }
    Ok((Value::Object(map), structured))
}

/// The document as a JSON object, or the root violation saying why it is not one.
fn parse_object(wire: &str, what: &str) -> Result<Value, WireViolation> {
    match serde_json::from_str::<Value>(wire) {
        Ok(value) if value.is_object() => Ok(value),
        Ok(_) => Err(WireViolation::new("", format!("{what} must be a JSON object"))),
        Err(err) => {
            Err(WireViolation::new("", format!("not JSON ({err}); expected {what} object")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structured_content_is_checked_against_the_published_schema_only() {
        let target = Target::Mcp(McpRevision::V2025_11_25);
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let wire =
            r#"{"content":[{"type":"text","text":"{\"n\":\"x\"}"}],"structuredContent":{"n":"x"}}"#;
        assert!(check(target, wire).is_empty());
        let found: Vec<String> =
            check_with_schema(target, wire, Some(&schema)).iter().map(|v| v.path.clone()).collect();
        assert_eq!(found, ["/structuredContent/n"]);
        // A repeated member goes through the whole tree, with the same outcome.
        let repeated = wire.replace(
            r#""structuredContent":{"n":"x"}"#,
            r#""structuredContent":{"n":1},"structuredContent":{"n":"x"}"#,
        );
        let found: Vec<String> = check_with_schema(target, &repeated, Some(&schema))
            .iter()
            .map(|v| v.path.clone())
            .collect();
        assert_eq!(found, ["/structuredContent/n"]);
        let array = wire.replace(r#"{"n":"x"}}"#, "[1]}");
        // The official schema and the contract each refuse an array on 2025-11-25.
        let found: Vec<String> = check(target, &array).iter().map(|v| v.path.clone()).collect();
        assert_eq!(found, ["/structuredContent", "/structuredContent"]);
    }
}

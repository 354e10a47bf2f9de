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

use std::fmt;

use serde_json::Value;

use crate::target::{A2aVersion, McpRevision, Target};

/// One way a wire document breaks the official schema or toolwire's wire contract.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireViolation {
    /// JSON pointer (RFC 6901) into the wire document, e.g. `/structuredContent` or
    /// `/content/1/type`; `""` for the document itself.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl WireViolation {
    /// A violation at `path` (a JSON pointer, `""` for the root).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { path: path.into(), message: message.into() }
    }
}

impl fmt::Display for WireViolation {
    /// `path: message`; the root is shown as `(root)` so the line never starts with `:`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() { "(root)" } else { &self.path };
        write!(f, "{path}: {}", self.message)
    }
}

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
            let value = match parse_object(wire, "a CallToolResult") {
                Ok(value) => value,
                Err(violation) => return vec![violation],
            };
            if crate::revision::McpCaps::of(revision).input_required_result
                && value.get("resultType").and_then(Value::as_str) == Some("input_required")
            {
                let mut out = official::input_required_result().violations(&value);
                contract::input_required_violations(&value, &mut out);
                return out;
            }
            let mut out = official_call_tool_result_violations(revision, &value);
            contract::mcp_violations(revision, &value, &mut out);
            if let Some(schema) = published_output_schema {
                contract::output_schema_violations(schema, &value, &mut out);
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

/// Only the official-schema part of the check for A2A: `value` against `Task` of
/// `spec/a2a/0.3/a2a.json` (0.3) or of the schema derived from `a2a.proto`,
/// `spec/a2a/1.0/a2a.schema.json` (1.0).
pub fn official_a2a_task_violations(version: A2aVersion, value: &Value) -> Vec<WireViolation> {
    official::a2a_task(version).violations(value)
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

/// Appends one reference token to a JSON pointer, escaping `~` and `/` (RFC 6901).
pub(crate) fn pointer(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            _ => out.push(c),
        }
    }
    out
}

/// Appends an array index to a JSON pointer.
pub(crate) fn index(base: &str, i: usize) -> String {
    format!("{base}/{i}")
}

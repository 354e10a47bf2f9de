//! The official schemas, embedded from this crate's `spec/` directory and compiled once.
//!
//! MCP: the revision's `CallToolResult` definition; a root that references it is built around
//! the schema's own `definitions` (draft-07) or `$defs` (2020-12) so every `$ref` resolves inside
//! the document. A2A 0.3: `Task` of the official JSON Schema. A2A 1.0: the schema derived from
//! `a2a.proto`, whose root is a `Task`. Format assertions are on for every draft, so a `uri` must
//! be an RFC 3986 URI as the specifications require, and `byte` data base64 as clients read it;
//! a violation of a format clients do not check says so ([`read_as_text`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde_json::{Map, Value, json};

use super::{WireViolation, pointer};
use toolwire_core::{A2aVersion, McpRevision};

const MCP_2024_11_05: &str = include_str!("../../spec/mcp/2024-11-05/schema.json");
const MCP_2025_03_26: &str = include_str!("../../spec/mcp/2025-03-26/schema.json");
const MCP_2025_06_18: &str = include_str!("../../spec/mcp/2025-06-18/schema.json");
const MCP_2025_11_25: &str = include_str!("../../spec/mcp/2025-11-25/schema.json");
const MCP_2026_07_28: &str = include_str!("../../spec/mcp/2026-07-28/schema.json");
const A2A_0_3: &str = include_str!("../../spec/a2a/0.3/a2a.json");
const A2A_1_0: &str = include_str!("../../spec/a2a/1.0/a2a.schema.json");

/// A compiled official schema, or why it could not be compiled (which would be a defect in the
/// embedded copy; it is reported as a violation instead of a panic).
pub(crate) struct Official {
    name: Cow<'static, str>,
    validator: Result<Validator, String>,
}

impl Official {
    fn compile(name: impl Into<Cow<'static, str>>, root: Result<Value, String>) -> Self {
        let name = name.into();
        let validator = root.and_then(|root| {
            jsonschema::options()
                .should_validate_formats(true)
                .with_format("byte", forgiving_base64)
                .offline()
                .build(&root)
                .map_err(|err| err.to_string())
        });
        Self { name, validator }
    }

    /// Every way `value` breaks the schema, with the instance path of each.
    pub(crate) fn violations(&self, value: &Value) -> Vec<WireViolation> {
        match &self.validator {
            // The fast path: property tests check thousands of valid renders.
            Ok(validator) if validator.is_valid(value) => Vec::new(),
            Ok(validator) => {
                let mut out = Vec::new();
                for err in validator.iter_errors(value) {
                    self.push(&err, &mut out);
                }
                out
            }
            Err(err) => {
                vec![WireViolation::new("", format!("{} does not compile: {err}", self.name))]
            }
        }
    }

    /// Appends `err`, or for an `anyOf` whose intended alternative is clear, that alternative's
    /// own errors: "not valid under any of the schemas" at a content block says nothing about
    /// which field is wrong.
    fn push(&self, err: &ValidationError<'_>, out: &mut Vec<WireViolation>) {
        if let ValidationErrorKind::AnyOf { context } = err.kind()
            && let Some(branch) = intended_branch(context)
        {
            for inner in branch {
                self.push(inner, out);
            }
            return;
        }
        // Name each unexpected key itself: the path then points at the offending field.
        if let ValidationErrorKind::AdditionalProperties { unexpected } = err.kind() {
            for key in unexpected {
                out.push(WireViolation::new(
                    pointer(err.instance_path().as_str(), key),
                    format!("`{key}` is not allowed here ({})", self.name),
                ));
            }
            return;
        }
        let read_as_text = matches!(err.kind(), ValidationErrorKind::Format { format }
            if TEXT_FORMATS.contains(&format.as_str()));
        let note = if read_as_text { READ_AS_TEXT } else { "" };
        out.push(WireViolation::new(
            err.instance_path().as_str(),
            format!("{} ({}){note}", err.masked(), self.name),
        ));
    }
}

/// Whether `text` is base64 as a browser's `atob` reads it (WHATWG "forgiving-base64 decode":
/// ASCII whitespace ignored, padding optional), which is what the official TypeScript SDK client
/// checks a `byte` member against; jsonschema knows no `byte` format of its own.
fn forgiving_base64(text: &str) -> bool {
    let mut length = 0usize;
    let mut padding = 0usize;
    for byte in text.bytes().filter(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r')) {
        match byte {
            b'=' => padding += 1,
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'+' | b'/' if padding == 0 => length += 1,
            _ => return false,
        }
    }
    let padded = (length + padding).is_multiple_of(4) && padding <= 2;
    (padding == 0 || padded) && length % 4 != 1
}

/// The `format`s SDK clients do not check: the official TypeScript SDK (1.32) and Python SDK
/// (2.3) read every `uri` and `uri-template` member of a server's answer as any string. A `byte`
/// member is checked (the TypeScript SDK refuses data that is not base64, failing the call).
const TEXT_FORMATS: &[&str] = &["uri", "uri-template"];

/// What a violation of one of [`TEXT_FORMATS`] says after the schema's name.
const READ_AS_TEXT: &str = "; SDK clients read it as any string";

/// Whether `violation`, one of [`Official::violations`], breaks only a `format` that clients do
/// not check: nothing fails, so it weighs a warning.
pub(crate) fn read_as_text(violation: &WireViolation) -> bool {
    violation.message.ends_with(READ_AS_TEXT)
}

/// The alternative of an `anyOf` the instance was meant for: among those whose discriminator
/// (`const`, such as a block's `type`) matched, the one with strictly the fewest errors.
fn intended_branch<'e>(
    context: &'e [Vec<ValidationError<'static>>],
) -> Option<&'e [ValidationError<'static>]> {
    let mut candidates: Vec<&Vec<ValidationError<'static>>> = context
        .iter()
        .filter(|errors| {
            !errors.is_empty()
                && !errors.iter().any(|e| matches!(e.kind(), ValidationErrorKind::Constant { .. }))
        })
        .collect();
    candidates.sort_by_key(|errors| errors.len());
    match candidates.as_slice() {
        [only] => Some(only.as_slice()),
        [first, second, ..] if first.len() < second.len() => Some(first.as_slice()),
        _ => None,
    }
}

/// The embedded schema document of `revision`, or why there is none: a revision newer than this
/// crate's copy of the specification.
pub(crate) fn mcp_text(revision: McpRevision) -> Result<&'static str, String> {
    match revision {
        McpRevision::V2024_11_05 => Ok(MCP_2024_11_05),
        McpRevision::V2025_03_26 => Ok(MCP_2025_03_26),
        McpRevision::V2025_06_18 => Ok(MCP_2025_06_18),
        McpRevision::V2025_11_25 => Ok(MCP_2025_11_25),
        McpRevision::V2026_07_28 => Ok(MCP_2026_07_28),
        other => Err(format!("no official schema of {} is embedded", other.as_str())),
    }
}

/// The compiled `CallToolResult` schema of `revision`.
pub(crate) fn call_tool_result(revision: McpRevision) -> Arc<Official> {
    mcp_definition(revision, "CallToolResult")
}

/// The compiled definition `definition` (e.g. `ListToolsResult`) of the schema of `revision`,
/// compiled on first use and kept for the life of the process.
pub(crate) fn mcp_definition(revision: McpRevision, definition: &str) -> Arc<Official> {
    type Cache = Mutex<HashMap<(McpRevision, String), Arc<Official>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    let key = (revision, definition.to_owned());
    if let Some(found) = cache.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
        return found.clone();
    }
    let name = format!("official {} {definition}", revision.as_str());
    let root = mcp_text(revision).and_then(|text| definition_root(text, definition));
    let compiled = Arc::new(Official::compile(name, root));
    cache.lock().unwrap_or_else(PoisonError::into_inner).insert(key, compiled.clone());
    compiled
}

/// The compiled 2026-07-28 `InputRequiredResult` schema (SEP-2322).
pub(crate) fn input_required_result() -> &'static Official {
    static CELL: OnceLock<Official> = OnceLock::new();
    CELL.get_or_init(|| {
        Official::compile(
            "official 2026-07-28 InputRequiredResult",
            definition_root(MCP_2026_07_28, "InputRequiredResult"),
        )
    })
}

/// The compiled `Task` schema of `version`.
pub(crate) fn a2a_task(version: A2aVersion) -> &'static Official {
    static V0_3: OnceLock<Official> = OnceLock::new();
    static V1_0: OnceLock<Official> = OnceLock::new();
    static UNKNOWN: OnceLock<Official> = OnceLock::new();
    match version {
        A2aVersion::V0_3 => V0_3.get_or_init(|| {
            Official::compile("official A2A 0.3 Task", definition_root(A2A_0_3, "Task"))
        }),
        A2aVersion::V1_0 => V1_0.get_or_init(|| {
            // The derived schema's root is the Task.
            Official::compile(
                "A2A 1.0 Task, derived from a2a.proto",
                serde_json::from_str(A2A_1_0).map_err(|err| err.to_string()),
            )
        }),
        _ => UNKNOWN.get_or_init(|| {
            Official::compile(
                "A2A Task",
                Err("no official schema of this version is embedded".into()),
            )
        }),
    }
}

/// A root schema that validates `definition` of the schema document `text`, keeping the
/// document's dialect and all its definitions so that every `$ref` resolves.
fn definition_root(text: &str, definition: &str) -> Result<Value, String> {
    let document: Map<String, Value> = serde_json::from_str(text).map_err(|err| err.to_string())?;
    let (key, definitions) = ["$defs", "definitions"]
        .into_iter()
        .find_map(|key| document.get(key).map(|defs| (key, defs.clone())))
        .ok_or_else(|| "the schema has neither `$defs` nor `definitions`".to_owned())?;
    if definitions.get(definition).is_none() {
        return Err(format!("the schema has no `{definition}` definition"));
    }
    let mut root = Map::new();
    if let Some(dialect) = document.get("$schema") {
        root.insert("$schema".to_owned(), dialect.clone());
    }
    root.insert(key.to_owned(), definitions);
    // `allOf` rather than a sibling `$ref`: draft-07 ignores keywords next to `$ref`.
    root.insert("allOf".to_owned(), json!([{ "$ref": format!("#/{key}/{definition}") }]));
    Ok(Value::Object(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_read_as_atob_reads_it() {
        for valid in ["", "aGk=", "aGk", "aGVsbG8=", "aG Vs\nbG8=", "QUJD", "+/+/"] {
            assert!(forgiving_base64(valid), "{valid:?}");
        }
        for invalid in ["a", "aGk==", "aG=k", "aGk===", "not base64!", "aGVsbG8-", "QUJDR"] {
            assert!(!forgiving_base64(invalid), "{invalid:?}");
        }
    }

    #[test]
    fn every_embedded_schema_compiles() {
        for revision in McpRevision::ALL {
            let official = call_tool_result(revision);
            assert!(
                official.validator.is_ok(),
                "{}: {:?}",
                official.name,
                official.validator.as_ref().err()
            );
        }
        for official in
            [a2a_task(A2aVersion::V0_3), a2a_task(A2aVersion::V1_0), input_required_result()]
        {
            assert!(
                official.validator.is_ok(),
                "{}: {:?}",
                official.name,
                official.validator.as_ref().err()
            );
        }
    }

    #[test]
    fn any_definition_of_a_revision_compiles_and_a_missing_one_is_one_violation() {
        for revision in McpRevision::ALL {
            let tools = mcp_definition(revision, "ListToolsResult");
            assert!(
                tools.validator.is_ok(),
                "{}: {:?}",
                tools.name,
                tools.validator.as_ref().err()
            );
        }
        let valid = json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]});
        assert!(
            mcp_definition(McpRevision::V2025_06_18, "ListToolsResult")
                .violations(&valid)
                .is_empty()
        );
        let found =
            mcp_definition(McpRevision::V2025_11_25, "DiscoverResult").violations(&json!({}));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].message,
            "official 2025-11-25 DiscoverResult does not compile: the schema has no `DiscoverResult` definition"
        );
    }

    #[test]
    fn a_missing_definition_is_an_error_not_a_panic() {
        assert_eq!(
            definition_root(MCP_2025_06_18, "NoSuchThing"),
            Err("the schema has no `NoSuchThing` definition".to_owned())
        );
        assert_eq!(
            definition_root("{}", "Task"),
            Err("the schema has neither `$defs` nor `definitions`".to_owned())
        );
        let broken = Official::compile("broken", Ok(json!({"type": 12})));
        let violations = broken.violations(&json!({}));
        assert_eq!(violations.len(), 1);
        assert!(violations[0].message.starts_with("broken does not compile: "), "{violations:?}");
    }
}

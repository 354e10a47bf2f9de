//! toolwire's wire-contract rules for MCP `CallToolResult`s, beyond the official schema.
//!
//! The older official schemas allow unknown keys everywhere, so a field a revision lacks (a
//! `structuredContent` on 2024-11-05, `_meta` on a 2025-03-26 block) passes them; a client of
//! that revision may still choke on it. The tables here are the contract: every key and block
//! type with the first revision that has it.

use serde_json::{Map, Value};

use super::{WireViolation, index, pointer};
use crate::grammar;
use crate::json_kind::kind_of;
use crate::target::McpRevision;

use McpRevision::V2026_07_28 as R4;
use McpRevision::{V2024_11_05 as R0, V2025_03_26 as R1, V2025_06_18 as R2, V2025_11_25 as R3};

/// A key and the first revision that has it.
type Since = (&'static str, McpRevision);

const RESULT_KEYS: &[Since] = &[
    ("resultType", R4),
    ("content", R0),
    ("structuredContent", R2),
    ("isError", R0),
    ("_meta", R0),
];
const TEXT_KEYS: &[Since] = &[("type", R0), ("text", R0), ("annotations", R0), ("_meta", R2)];
const MEDIA_KEYS: &[Since] =
    &[("type", R0), ("data", R0), ("mimeType", R0), ("annotations", R0), ("_meta", R2)];
const RESOURCE_KEYS: &[Since] =
    &[("type", R0), ("resource", R0), ("annotations", R0), ("_meta", R2)];
const LINK_KEYS: &[Since] = &[
    ("type", R2),
    ("uri", R2),
    ("name", R2),
    ("title", R2),
    ("description", R2),
    ("mimeType", R2),
    ("size", R2),
    ("annotations", R2),
    ("icons", R3),
    ("_meta", R2),
];
const CONTENTS_KEYS: &[Since] =
    &[("uri", R0), ("mimeType", R0), ("text", R0), ("blob", R0), ("_meta", R2)];
const ANNOTATION_KEYS: &[Since] = &[("audience", R0), ("priority", R0), ("lastModified", R2)];
const ICON_KEYS: &[Since] = &[("src", R3), ("mimeType", R3), ("sizes", R3), ("theme", R3)];

/// Block types a `CallToolResult` may carry, with the first revision that has each.
const BLOCK_TYPES: &[Since] =
    &[("text", R0), ("image", R0), ("audio", R1), ("resource_link", R2), ("resource", R0)];

/// Keys the revision itself defines on a result's `_meta`; they pass the reserved-prefix rule.
fn result_meta_exempt(revision: McpRevision, key: &str) -> bool {
    match key {
        "io.modelcontextprotocol/serverInfo" => revision >= R4,
        "io.modelcontextprotocol/related-task" => revision == R3,
        _ => false,
    }
}

/// Appends every contract violation of the `CallToolResult` `value` for `revision`.
pub(crate) fn mcp_violations(revision: McpRevision, value: &Value, out: &mut Vec<WireViolation>) {
    let Some(result) = value.as_object() else {
        return;
    };
    known_keys(result, RESULT_KEYS, revision, "a CallToolResult", "", out);

    if revision >= R4 {
        match result.get("resultType") {
            None => out.push(WireViolation::new(
                "/resultType",
                "missing: every 2026-07-28 result carries `resultType`",
            )),
            Some(Value::String(kind)) if kind == "complete" => {}
            Some(Value::String(kind)) => out.push(WireViolation::new(
                "/resultType",
                format!("a CallToolResult has `resultType` \"complete\", not \"{kind}\""),
            )),
            // A non-string is reported by the official schema.
            Some(_) => {}
        }
    }

    if result.get("isError") == Some(&Value::Bool(false)) {
        out.push(WireViolation::new(
            "/isError",
            "`isError` is `true` on a failure and absent on a success, never `false`",
        ));
    }

    if matches!(revision, R2 | R3)
        && let Some(structured) = result.get("structuredContent")
        && !structured.is_object()
    {
        out.push(WireViolation::new(
            "/structuredContent",
            format!(
                "must be a JSON object on {} (any JSON value only from 2026-07-28), found {}",
                revision.as_str(),
                kind_of(structured)
            ),
        ));
    }

    if let Some(meta) = result.get("_meta") {
        meta_keys(meta, "/_meta", |key| result_meta_exempt(revision, key), out);
    }

    if let Some(Value::Array(blocks)) = result.get("content") {
        for (i, block) in blocks.iter().enumerate() {
            block_violations(revision, block, &index("/content", i), out);
        }
    }
}

/// Appends the contract violations of a 2026-07-28 `InputRequiredResult`: only the keys SEP-2322
/// defines, at least one of `inputRequests` and `requestState`, `_meta` keys in the grammar.
pub(crate) fn input_required_violations(value: &Value, out: &mut Vec<WireViolation>) {
    let Some(result) = value.as_object() else {
        return;
    };
    const KEYS: &[Since] =
        &[("resultType", R4), ("inputRequests", R4), ("requestState", R4), ("_meta", R4)];
    known_keys(result, KEYS, R4, "an InputRequiredResult", "", out);
    if !result.contains_key("inputRequests") && !result.contains_key("requestState") {
        out.push(WireViolation::new(
            "",
            "an InputRequiredResult carries `inputRequests`, `requestState` or both",
        ));
    }
    if let Some(meta) = result.get("_meta") {
        meta_keys(meta, "/_meta", |key| result_meta_exempt(R4, key), out);
    }
}

fn block_violations(
    revision: McpRevision,
    block: &Value,
    path: &str,
    out: &mut Vec<WireViolation>,
) {
    let Some(fields) = block.as_object() else {
        out.push(WireViolation::new(
            path,
            format!("a content block is an object, found {}", kind_of(block)),
        ));
        return;
    };
    let Some(kind) = fields.get("type").and_then(Value::as_str) else {
        out.push(WireViolation::new(
            pointer(path, "type"),
            "missing: every content block has a string `type`",
        ));
        return;
    };
    match BLOCK_TYPES.iter().find(|(name, _)| *name == kind) {
        None => {
            out.push(WireViolation::new(
                pointer(path, "type"),
                format!(
                    "`{kind}` is not a content block type of a CallToolResult; expected text, image, audio, resource_link or resource"
                ),
            ));
            return;
        }
        Some((_, since)) if *since > revision => {
            out.push(WireViolation::new(
                pointer(path, "type"),
                format!(
                    "`{kind}` blocks do not exist in {} (they arrive in {})",
                    revision.as_str(),
                    since.as_str()
                ),
            ));
            return;
        }
        Some(_) => {}
    }
    let keys = match kind {
        "text" => TEXT_KEYS,
        "image" | "audio" => MEDIA_KEYS,
        "resource" => RESOURCE_KEYS,
        _ => LINK_KEYS,
    };
    let what = format!("a `{kind}` block");
    known_keys(fields, keys, revision, &what, path, out);

    if let Some(Value::Object(annotations)) = fields.get("annotations") {
        known_keys(
            annotations,
            ANNOTATION_KEYS,
            revision,
            "`annotations`",
            &pointer(path, "annotations"),
            out,
        );
    }
    if revision >= R2
        && let Some(meta) = fields.get("_meta")
    {
        meta_keys(meta, &pointer(path, "_meta"), |_| false, out);
    }
    if revision >= R3
        && let Some(Value::Array(icons)) = fields.get("icons")
    {
        for (i, icon) in icons.iter().enumerate() {
            if let Value::Object(icon) = icon {
                known_keys(
                    icon,
                    ICON_KEYS,
                    revision,
                    "an icon",
                    &index(&pointer(path, "icons"), i),
                    out,
                );
            }
        }
    }
    if kind == "resource"
        && let Some(Value::Object(contents)) = fields.get("resource")
    {
        let path = pointer(path, "resource");
        known_keys(contents, CONTENTS_KEYS, revision, "resource contents", &path, out);
        if contents.contains_key("text") == contents.contains_key("blob") {
            out.push(WireViolation::new(
                &path,
                "resource contents carry exactly one of `text` and `blob`",
            ));
        }
        if revision >= R2
            && let Some(meta) = contents.get("_meta")
        {
            meta_keys(meta, &pointer(&path, "_meta"), |_| false, out);
        }
    }
}

/// Flags every key of `fields` that is not in `keys` or arrives after `revision`.
fn known_keys(
    fields: &Map<String, Value>,
    keys: &[Since],
    revision: McpRevision,
    what: &str,
    path: &str,
    out: &mut Vec<WireViolation>,
) {
    for key in fields.keys() {
        match keys.iter().find(|(name, _)| name == key) {
            Some((_, since)) if *since <= revision => {}
            Some((_, since)) => out.push(WireViolation::new(
                pointer(path, key),
                format!(
                    "`{key}` of {what} does not exist in {} (it arrives in {})",
                    revision.as_str(),
                    since.as_str()
                ),
            )),
            None => out.push(WireViolation::new(
                pointer(path, key),
                format!("`{key}` is not a field of {what}"),
            )),
        }
    }
}

/// Checks every key of a `_meta` object against the key grammar and the reserved prefixes.
fn meta_keys(
    meta: &Value,
    path: &str,
    exempt: impl Fn(&str) -> bool,
    out: &mut Vec<WireViolation>,
) {
    let Value::Object(meta) = meta else {
        out.push(WireViolation::new(
            path,
            format!("`_meta` is an object, found {}", kind_of(meta)),
        ));
        return;
    };
    for key in meta.keys() {
        if exempt(key) {
            continue;
        }
        if let Some(problem) = grammar::meta_key_problem(key) {
            out.push(WireViolation::new(pointer(path, key), problem));
        }
    }
}

/// Checks `structuredContent` of the result `value` against the tool's published outputSchema.
pub(crate) fn output_schema_violations(
    schema: &Value,
    value: &Value,
    out: &mut Vec<WireViolation>,
) {
    let validator =
        match crate::schema::exact_numbers(jsonschema::options()).offline().build(schema) {
            Ok(validator) => validator,
            Err(err) => {
                out.push(WireViolation::new(
                    "",
                    format!("the published outputSchema does not compile: {}", err.masked()),
                ));
                return;
            }
        };
    match value.get("structuredContent") {
        Some(structured) => {
            for err in validator.iter_errors(structured) {
                out.push(WireViolation::new(
                    format!("/structuredContent{}", err.instance_path().as_str()),
                    format!("{} (published outputSchema)", err.masked()),
                ));
            }
        }
        None if value.get("isError") != Some(&Value::Bool(true)) => out.push(WireViolation::new(
            "/structuredContent",
            "missing: the tool publishes an outputSchema, so a success must carry `structuredContent`",
        )),
        None => {}
    }
}

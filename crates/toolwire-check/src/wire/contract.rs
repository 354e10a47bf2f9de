//! toolwire's wire-contract rules for MCP `CallToolResult`s, beyond the official schema.
//!
//! The older official schemas allow unknown keys everywhere, so a field a revision lacks (a
//! `structuredContent` on 2024-11-05, `_meta` on a 2025-03-26 block) passes them; a client of
//! that revision may still choke on it. The tables here are the contract: every key and block
//! type with the column of the revision table that says whether a revision has it.

use serde_json::{Map, Value};

use super::{WireViolation, index, pointer};
use toolwire_core::McpRevision;
use toolwire_core::grammar;
use toolwire_core::json_kind::kind_of;
use toolwire_core::revision::{McpCaps, StructuredCap};

/// Whether a revision's row has something.
type Has = fn(&McpCaps) -> bool;
/// A key and whether a revision has it.
type Key = (&'static str, Has);

fn always(_: &McpCaps) -> bool {
    true
}

fn block_meta(caps: &McpCaps) -> bool {
    caps.block_meta
}

fn resource_link(caps: &McpCaps) -> bool {
    caps.resource_link
}

fn icons(caps: &McpCaps) -> bool {
    caps.icons
}

fn input_required(caps: &McpCaps) -> bool {
    caps.input_required_result
}

const RESULT_KEYS: &[Key] = &[
    ("resultType", |c| c.result_type),
    ("content", always),
    ("structuredContent", |c| c.structured_content != StructuredCap::Never),
    ("isError", always),
    ("_meta", always),
];
const TEXT_KEYS: &[Key] =
    &[("type", always), ("text", always), ("annotations", always), ("_meta", block_meta)];
const MEDIA_KEYS: &[Key] = &[
    ("type", always),
    ("data", always),
    ("mimeType", always),
    ("annotations", always),
    ("_meta", block_meta),
];
const RESOURCE_KEYS: &[Key] =
    &[("type", always), ("resource", always), ("annotations", always), ("_meta", block_meta)];
const LINK_KEYS: &[Key] = &[
    ("type", resource_link),
    ("uri", resource_link),
    ("name", resource_link),
    ("title", resource_link),
    ("description", resource_link),
    ("mimeType", resource_link),
    ("size", resource_link),
    ("annotations", resource_link),
    ("icons", icons),
    ("_meta", block_meta),
];
const CONTENTS_KEYS: &[Key] = &[
    ("uri", always),
    ("mimeType", always),
    ("text", always),
    ("blob", always),
    ("_meta", block_meta),
];
const ANNOTATION_KEYS: &[Key] = &[
    ("audience", always),
    ("priority", always),
    ("lastModified", |c| c.annotations_last_modified),
];
const ICON_KEYS: &[Key] =
    &[("src", icons), ("mimeType", icons), ("sizes", icons), ("theme", icons)];

/// Block types a `CallToolResult` may carry, with whether a revision has each.
const BLOCK_TYPES: &[Key] = &[
    ("text", always),
    ("image", always),
    ("audio", |c| c.audio),
    ("resource_link", resource_link),
    ("resource", always),
];

/// The oldest revision that has what `has` asks, as a date.
fn arrival(has: Has) -> &'static str {
    McpCaps::first_with(has).map_or("no revision", McpRevision::as_str)
}

/// Keys the revision itself defines on a result's `_meta`; they pass the reserved-prefix rule.
fn result_meta_exempt(caps: &McpCaps, key: &str) -> bool {
    match key {
        "io.modelcontextprotocol/serverInfo" => caps.result_type,
        "io.modelcontextprotocol/related-task" => caps.related_task_meta,
        _ => false,
    }
}

/// How an undefined field is reported: "`key` of what {UNDEFINED} revision (it arrives in …)".
const UNDEFINED: &str = "does not exist in";
/// How an unknown key is reported: "`key` {UNKNOWN} what".
const UNKNOWN: &str = "is not a field of";
/// How an `isError: false` is reported.
const IS_ERROR_FALSE: &str =
    "`isError` is `true` on a failure and absent on a success, never `false`";

/// Whether a client of the revision reads past `violation`, one of [`mcp_violations`]: a field
/// the revision does not define or a key no revision defines (the official schemas allow unknown
/// keys, and clients ignore them), `isError: false` (optional in every revision), a `_meta` key
/// outside the grammar. A block type the revision lacks and a wrong shape are not: a client
/// fails to read them.
pub(crate) fn tolerated(violation: &WireViolation) -> bool {
    let message = violation.message.as_str();
    let undefined_field = message.contains("` of ") && message.contains(UNDEFINED);
    let meta_key = violation.path.contains("/_meta/");
    undefined_field || message.contains(UNKNOWN) || message == IS_ERROR_FALSE || meta_key
}

/// Appends every contract violation of the `CallToolResult` `value` for `revision`.
pub(crate) fn mcp_violations(revision: McpRevision, value: &Value, out: &mut Vec<WireViolation>) {
    let Some(result) = value.as_object() else {
        return;
    };
    let caps = McpCaps::of(revision);
    known_keys(result, RESULT_KEYS, revision, "a CallToolResult", "", out);

    if caps.result_type {
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
        out.push(WireViolation::new("/isError", IS_ERROR_FALSE));
    }

    if caps.structured_content == StructuredCap::ObjectOnly
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
        meta_keys(meta, "/_meta", |key| result_meta_exempt(&caps, key), out);
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
    const KEYS: &[Key] = &[
        ("resultType", input_required),
        ("inputRequests", input_required),
        ("requestState", input_required),
        ("_meta", input_required),
    ];
    let Some(revision) = McpCaps::first_with(input_required) else {
        return;
    };
    known_keys(result, KEYS, revision, "an InputRequiredResult", "", out);
    if !result.contains_key("inputRequests") && !result.contains_key("requestState") {
        out.push(WireViolation::new(
            "",
            "an InputRequiredResult carries `inputRequests`, `requestState` or both",
        ));
    }
    if let Some(meta) = result.get("_meta") {
        meta_keys(meta, "/_meta", |key| result_meta_exempt(&McpCaps::of(revision), key), out);
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
    let caps = McpCaps::of(revision);
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
        Some((_, has)) if !has(&caps) => {
            out.push(WireViolation::new(
                pointer(path, "type"),
                format!(
                    "`{kind}` blocks do not exist in {} (they arrive in {})",
                    revision.as_str(),
                    arrival(*has)
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
    if caps.block_meta
        && let Some(meta) = fields.get("_meta")
    {
        meta_keys(meta, &pointer(path, "_meta"), |_| false, out);
    }
    if caps.icons
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
        if caps.block_meta
            && let Some(meta) = contents.get("_meta")
        {
            meta_keys(meta, &pointer(&path, "_meta"), |_| false, out);
        }
    }
}

/// Flags every key of `fields` that is not in `keys` or that `revision` does not have.
fn known_keys(
    fields: &Map<String, Value>,
    keys: &[Key],
    revision: McpRevision,
    what: &str,
    path: &str,
    out: &mut Vec<WireViolation>,
) {
    let caps = McpCaps::of(revision);
    for key in fields.keys() {
        match keys.iter().find(|(name, _)| name == key) {
            Some((_, has)) if has(&caps) => {}
            Some((_, has)) => out.push(WireViolation::new(
                pointer(path, key),
                format!(
                    "`{key}` of {what} {UNDEFINED} {} (it arrives in {})",
                    revision.as_str(),
                    arrival(*has)
                ),
            )),
            None => out
                .push(WireViolation::new(pointer(path, key), format!("`{key}` {UNKNOWN} {what}"))),
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

/// Checks `structured` (the `structuredContent` of the result `value`) against the tool's
/// published outputSchema.
pub(crate) fn output_schema_violations(
    schema: &Value,
    value: &Value,
    structured: Option<&Value>,
    out: &mut Vec<WireViolation>,
) {
    let options = toolwire_core::exact_numbers(jsonschema::options()).offline();
    let validator = match toolwire_core::build_validator(&options, schema) {
        Ok(validator) => validator,
        Err(err) => {
            out.push(WireViolation::new(
                "",
                format!("the published outputSchema does not compile: {}", err.masked()),
            ));
            return;
        }
    };
    match structured {
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

//! The legacy target's grammar (DESIGN §3, "Legacy target"): the envelope string is compact JSON
//! with its keys in a fixed order, and `_meta` holds only well-known unprefixed names or
//! `<namespace>/<key>` extensions.
//!
//! A text that is not a JSON object with a boolean `success` is a passthrough string: the
//! legacy target sends it as it is, so it is valid legacy output whatever it holds.

use serde_json::{Map, Value};

use super::{WireViolation, pointer};
use toolwire_core::Timestamp;
use toolwire_core::grammar;
use toolwire_core::json_kind::kind_of;

const SUCCESS_ORDER: &[&str] = &["success", "data", "_meta"];
const FAILURE_ORDER: &[&str] = &["success", "error", "code", "details", "_meta"];

/// Every grammar violation of the legacy output `wire`.
pub(crate) fn violations(wire: &str) -> Vec<WireViolation> {
    let Ok(Value::Object(envelope)) = serde_json::from_str::<Value>(wire) else {
        return Vec::new();
    };
    let Some(success) = envelope.get("success").and_then(Value::as_bool) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(offset) = whitespace_outside_strings(wire) {
        out.push(WireViolation::new(
            "",
            format!("the envelope is not compact JSON: whitespace at byte {offset}"),
        ));
    }
    let (order, required): (&[&str], &[&str]) = if success {
        (SUCCESS_ORDER, &["success", "data"])
    } else {
        (FAILURE_ORDER, &["success", "error", "code"])
    };
    key_order(&envelope, order, success, &mut out);
    for key in required {
        if !envelope.contains_key(*key) {
            out.push(WireViolation::new(pointer("", key), "missing"));
        }
    }
    if !success {
        for key in ["error", "code"] {
            if let Some(value) = envelope.get(key).filter(|v| !v.is_string()) {
                out.push(WireViolation::new(
                    pointer("", key),
                    format!("a string, found {}", kind_of(value)),
                ));
            }
        }
        if let Some(details) = envelope.get("details").filter(|v| !v.is_object()) {
            out.push(WireViolation::new(
                "/details",
                format!("an object when present, found {}", kind_of(details)),
            ));
        }
    }
    if let Some(meta) = envelope.get("_meta") {
        meta_violations(meta, &mut out);
    }
    out
}

/// Flags unknown keys, and keys out of the fixed order.
fn key_order(
    envelope: &Map<String, Value>,
    order: &[&str],
    success: bool,
    out: &mut Vec<WireViolation>,
) {
    let shape = if success { "a success" } else { "a failure" };
    let mut last = 0;
    let mut in_order = true;
    for key in envelope.keys() {
        match order.iter().position(|k| k == key) {
            Some(position) => {
                in_order &= position >= last;
                last = last.max(position);
            }
            None => out.push(WireViolation::new(
                pointer("", key),
                format!("`{key}` is not a key of {shape} envelope ({})", order.join(", ")),
            )),
        }
    }
    if !in_order {
        let found: Vec<&str> = envelope.keys().map(String::as_str).collect();
        out.push(WireViolation::new(
            "",
            format!(
                "the keys of {shape} envelope come in the order {}; found {}",
                order.join(", "),
                found.join(", ")
            ),
        ));
    }
}

fn meta_violations(meta: &Value, out: &mut Vec<WireViolation>) {
    let Value::Object(meta) = meta else {
        out.push(WireViolation::new("/_meta", format!("an object, found {}", kind_of(meta))));
        return;
    };
    if meta.is_empty() {
        out.push(WireViolation::new("/_meta", "present only when non-empty"));
    }
    for (key, value) in meta {
        let path = pointer("/_meta", key);
        if key.contains('/') {
            if let Some(problem) = grammar::meta_key_problem(key) {
                out.push(WireViolation::new(path, problem));
            }
            continue;
        }
        let expected = match key.as_str() {
            "dryRun" => value.is_boolean().then_some(()).ok_or("a boolean"),
            "pagination" | "query" => value.is_object().then_some(()).ok_or("an object"),
            "responseSize" => value.is_u64().then_some(()).ok_or("a non-negative integer"),
            "summary" | "resourceUri" | "note" => value.is_string().then_some(()).ok_or("a string"),
            "storedLinks" | "parts" => value.is_array().then_some(()).ok_or("an array"),
            "generatedAt" | "expiresAt" => match value.as_str().map(Timestamp::parse) {
                Some(Ok(_)) => Ok(()),
                _ => Err("an RFC 3339 timestamp string"),
            },
            _ => {
                out.push(WireViolation::new(
                    path,
                    format!(
                        "`{key}` is neither a well-known legacy `_meta` name nor a `<namespace>/<key>` extension"
                    ),
                ));
                continue;
            }
        };
        if let Err(expected) = expected {
            out.push(WireViolation::new(
                path,
                format!("`{key}` is {expected}, found {}", kind_of(value)),
            ));
        }
    }
}

/// The byte offset of the first JSON whitespace outside a string, if any.
fn whitespace_outside_strings(text: &str) -> Option<usize> {
    toolwire_core::parse::outside_strings(text.as_bytes())
        .find(|(_, byte)| matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
        .map(|(offset, _)| offset)
}

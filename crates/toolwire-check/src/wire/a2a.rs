//! toolwire's wire-contract rules for A2A `Task`s, beyond the schemas.
//!
//! 0.3: the official schema allows unknown keys and a file with both `bytes` and `uri`; the
//! contract does not. 1.0: the derived schema already refuses unknown keys; the contract names
//! the oneof and enum problems precisely.

use serde_json::{Map, Value};

use super::{WireViolation, index, pointer};
use toolwire_core::A2aVersion;
use toolwire_core::json_kind::kind_of;

const TASK_KEYS_0_3: &[&str] =
    &["kind", "id", "contextId", "status", "history", "artifacts", "metadata"];
const STATUS_KEYS_0_3: &[&str] = &["state", "message", "timestamp"];
const MESSAGE_KEYS_0_3: &[&str] = &[
    "kind",
    "role",
    "parts",
    "messageId",
    "taskId",
    "contextId",
    "metadata",
    "extensions",
    "referenceTaskIds",
];
const ARTIFACT_KEYS_0_3: &[&str] =
    &["artifactId", "name", "description", "parts", "metadata", "extensions"];
const FILE_KEYS_0_3: &[&str] = &["bytes", "uri", "name", "mimeType"];

const PAYLOADS_1_0: &[&str] = &["text", "raw", "url", "data"];

/// Appends every contract violation of the `Task` `value` for `version`.
pub(crate) fn violations(version: A2aVersion, value: &Value, out: &mut Vec<WireViolation>) {
    let Some(task) = value.as_object() else {
        return;
    };
    match version {
        A2aVersion::V0_3 => task_0_3(task, out),
        A2aVersion::V1_0 => task_1_0(task, out),
        other => out.push(WireViolation::new("", format!("no wire contract for A2A {other:?}"))),
    }
}

fn task_0_3(task: &Map<String, Value>, out: &mut Vec<WireViolation>) {
    known_keys(task, TASK_KEYS_0_3, "a Task", "", out);
    if let Some(Value::Object(status)) = task.get("status") {
        known_keys(status, STATUS_KEYS_0_3, "a TaskStatus", "/status", out);
        if let Some(Value::Object(message)) = status.get("message") {
            message_0_3(message, "/status/message", out);
        }
    }
    for_each_object(task.get("history"), "/history", out, message_0_3);
    for_each_object(task.get("artifacts"), "/artifacts", out, |artifact, path, out| {
        known_keys(artifact, ARTIFACT_KEYS_0_3, "an Artifact", path, out);
        for_each_part(artifact, path, out, part_0_3);
    });
}

fn message_0_3(message: &Map<String, Value>, path: &str, out: &mut Vec<WireViolation>) {
    known_keys(message, MESSAGE_KEYS_0_3, "a Message", path, out);
    for_each_part(message, path, out, part_0_3);
}

fn part_0_3(part: &Map<String, Value>, path: &str, out: &mut Vec<WireViolation>) {
    let kind_path = pointer(path, "kind");
    let Some(kind) = part.get("kind") else {
        out.push(WireViolation::new(kind_path, "missing: every 0.3 part has a `kind`"));
        return;
    };
    match kind.as_str() {
        Some("text") => known_keys(part, &["kind", "text", "metadata"], "a text part", path, out),
        Some("data") => {
            known_keys(part, &["kind", "data", "metadata"], "a data part", path, out);
            if let Some(data) = part.get("data").filter(|d| !d.is_object()) {
                out.push(WireViolation::new(
                    pointer(path, "data"),
                    format!("0.3 data parts hold a JSON object, found {}", kind_of(data)),
                ));
            }
        }
        Some("file") => {
            known_keys(part, &["kind", "file", "metadata"], "a file part", path, out);
            if let Some(Value::Object(file)) = part.get("file") {
                let file_path = pointer(path, "file");
                known_keys(file, FILE_KEYS_0_3, "a file", &file_path, out);
                if file.contains_key("bytes") == file.contains_key("uri") {
                    out.push(WireViolation::new(
                        file_path,
                        "a file carries exactly one of `bytes` and `uri`",
                    ));
                }
            }
        }
        _ => out.push(WireViolation::new(
            kind_path,
            format!("a 0.3 part `kind` is \"text\", \"file\" or \"data\", found {kind}"),
        )),
    }
}

fn task_1_0(task: &Map<String, Value>, out: &mut Vec<WireViolation>) {
    if let Some(Value::Object(status)) = task.get("status") {
        if let Some(state) = status.get("state").and_then(Value::as_str)
            && !state.starts_with("TASK_STATE_")
        {
            out.push(WireViolation::new(
                "/status/state",
                format!(
                    "1.0 serializes TaskState by proto name (`TASK_STATE_{}`), found \"{state}\"",
                    state.to_ascii_uppercase().replace('-', "_")
                ),
            ));
        }
        if let Some(Value::Object(message)) = status.get("message") {
            message_1_0(message, "/status/message", out);
        }
    }
    for_each_object(task.get("history"), "/history", out, message_1_0);
    for_each_object(task.get("artifacts"), "/artifacts", out, |artifact, path, out| {
        for_each_part(artifact, path, out, part_1_0);
    });
}

fn message_1_0(message: &Map<String, Value>, path: &str, out: &mut Vec<WireViolation>) {
    if let Some(role) = message.get("role").and_then(Value::as_str)
        && !role.starts_with("ROLE_")
    {
        out.push(WireViolation::new(
            pointer(path, "role"),
            format!(
                "1.0 serializes Role by proto name (`ROLE_{}`), found \"{role}\"",
                role.to_ascii_uppercase()
            ),
        ));
    }
    for_each_part(message, path, out, part_1_0);
}

fn part_1_0(part: &Map<String, Value>, path: &str, out: &mut Vec<WireViolation>) {
    let present: Vec<&str> =
        PAYLOADS_1_0.iter().copied().filter(|key| part.contains_key(*key)).collect();
    if present.len() != 1 {
        let found = if present.is_empty() { "none".to_owned() } else { present.join(", ") };
        out.push(WireViolation::new(
            path,
            format!(
                "a 1.0 part carries exactly one of `text`, `raw`, `url` and `data`; found {found}"
            ),
        ));
    }
}

/// Calls `check` on every object element of the array `list` (non-arrays are the schema's).
fn for_each_object(
    list: Option<&Value>,
    path: &str,
    out: &mut Vec<WireViolation>,
    check: impl Fn(&Map<String, Value>, &str, &mut Vec<WireViolation>),
) {
    if let Some(Value::Array(items)) = list {
        for (i, item) in items.iter().enumerate() {
            if let Value::Object(item) = item {
                check(item, &index(path, i), out);
            }
        }
    }
}

/// Calls `check` on every object part of a message or artifact.
fn for_each_part(
    holder: &Map<String, Value>,
    path: &str,
    out: &mut Vec<WireViolation>,
    check: impl Fn(&Map<String, Value>, &str, &mut Vec<WireViolation>),
) {
    for_each_object(holder.get("parts"), &pointer(path, "parts"), out, check);
}

fn known_keys(
    fields: &Map<String, Value>,
    keys: &[&str],
    what: &str,
    path: &str,
    out: &mut Vec<WireViolation>,
) {
    for key in fields.keys() {
        if !keys.contains(&key.as_str()) {
            out.push(WireViolation::new(
                pointer(path, key),
                format!("`{key}` is not a field of {what} in A2A 0.3"),
            ));
        }
    }
}

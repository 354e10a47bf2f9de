//! `wire::check` for A2A tasks: the official 0.3 schema, the schema derived from `a2a.proto` for
//! 1.0, and the part rules.

use serde_json::{Value, json};
use toolwire_check::wire::{self, WireViolation};
use toolwire_core::{A2aVersion, Target};

fn check(version: A2aVersion, value: &Value) -> Vec<WireViolation> {
    wire::check(Target::A2a(version), &value.to_string())
}

fn paths(violations: &[WireViolation]) -> Vec<&str> {
    violations.iter().map(|v| v.path.as_str()).collect()
}

fn task_0_3() -> Value {
    json!({
        "kind": "task", "id": "task-1", "contextId": "context-1",
        "status": {"state": "completed", "timestamp": "2026-01-01T00:00:00Z"},
        "artifacts": [{
            "artifactId": "task-1-result", "name": "weather",
            "parts": [
                {"kind": "data", "data": {"temperature": 22.5}},
                {"kind": "text", "text": "Sunny."},
                {"kind": "file", "file": {"bytes": "iVBORw0KGgo=", "mimeType": "image/png", "name": "chart.png"}},
                {"kind": "file", "file": {"uri": "toolwire://results/1", "mimeType": "application/json", "name": "result-1.json"},
                 "metadata": {"title": "Full result", "size": 10}}
            ],
            "metadata": {"dev.toolwire/generatedAt": "2026-01-01T00:00:00Z"}
        }]
    })
}

fn failed_task_0_3() -> Value {
    json!({
        "kind": "task", "id": "task-1", "contextId": "context-1",
        "status": {"state": "failed", "timestamp": "2026-01-01T00:00:00Z", "message": {
            "kind": "message", "role": "agent", "messageId": "task-1-status", "taskId": "task-1", "contextId": "context-1",
            "parts": [{"kind": "text", "text": "Not found."}, {"kind": "data", "data": {"code": "not_found"}}]
        }},
        "metadata": {"dev.toolwire/generatedAt": "2026-01-01T00:00:00Z"}
    })
}

fn task_1_0() -> Value {
    json!({
        "id": "task-1", "contextId": "context-1",
        "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2026-01-01T00:00:00Z"},
        "artifacts": [{
            "artifactId": "task-1-result", "name": "weather",
            "parts": [
                {"data": [1, 2], "mediaType": "application/json"},
                {"text": "Sunny."},
                {"raw": "iVBORw0KGgo=", "mediaType": "image/png", "filename": "chart.png"},
                {"url": "toolwire://results/1", "mediaType": "application/json", "filename": "result-1.json", "metadata": {"size": 10}}
            ],
            "metadata": {"dev.toolwire/generatedAt": "2026-01-01T00:00:00Z"}
        }]
    })
}

fn failed_task_1_0() -> Value {
    json!({
        "id": "task-1", "contextId": "context-1",
        "status": {"state": "TASK_STATE_FAILED", "timestamp": "2026-01-01T00:00:00.250Z", "message": {
            "role": "ROLE_AGENT", "messageId": "task-1-status", "taskId": "task-1", "contextId": "context-1",
            "parts": [{"text": "Not found."}, {"data": {"code": "not_found"}, "mediaType": "application/json"}]
        }},
        "metadata": {"dev.toolwire/generatedAt": "2026-01-01T00:00:00Z"}
    })
}

#[test]
fn valid_tasks_pass() {
    assert_eq!(check(A2aVersion::V0_3, &task_0_3()), vec![]);
    assert_eq!(check(A2aVersion::V0_3, &failed_task_0_3()), vec![]);
    assert_eq!(check(A2aVersion::V1_0, &task_1_0()), vec![]);
    assert_eq!(check(A2aVersion::V1_0, &failed_task_1_0()), vec![]);
}

#[test]
fn the_official_parts_pass_on_their_own() {
    assert_eq!(wire::official_a2a_task_violations(A2aVersion::V0_3, &task_0_3()), vec![]);
    assert_eq!(wire::official_a2a_task_violations(A2aVersion::V1_0, &task_1_0()), vec![]);
    // Each version's task is refused by the other's schema.
    assert!(!wire::official_a2a_task_violations(A2aVersion::V1_0, &task_0_3()).is_empty());
    assert!(!wire::official_a2a_task_violations(A2aVersion::V0_3, &task_1_0()).is_empty());
}

#[test]
fn a_0_3_file_carries_bytes_xor_uri() {
    let mut both = task_0_3();
    both["artifacts"][0]["parts"][2]["file"]["uri"] = json!("https://example.com/a.png");
    assert_eq!(
        check(A2aVersion::V0_3, &both),
        vec![WireViolation::new(
            "/artifacts/0/parts/2/file",
            "a file carries exactly one of `bytes` and `uri`"
        )]
    );
    let mut neither = task_0_3();
    neither["artifacts"][0]["parts"][2]["file"] = json!({"name": "a.png"});
    let violations = check(A2aVersion::V0_3, &neither);
    assert!(paths(&violations).contains(&"/artifacts/0/parts/2/file"), "{violations:?}");
}

#[test]
fn a_0_3_data_part_holds_an_object() {
    let mut task = task_0_3();
    task["artifacts"][0]["parts"][0]["data"] = json!([1]);
    let violations = check(A2aVersion::V0_3, &task);
    assert_eq!(
        violations.last(),
        Some(&WireViolation::new(
            "/artifacts/0/parts/0/data",
            "0.3 data parts hold a JSON object, found an array"
        ))
    );
}

#[test]
fn a_0_3_part_has_a_kind() {
    let mut task = failed_task_0_3();
    task["status"]["message"]["parts"][0] = json!({"text": "x"});
    let violations = check(A2aVersion::V0_3, &task);
    assert_eq!(
        violations.last(),
        Some(&WireViolation::new(
            "/status/message/parts/0/kind",
            "missing: every 0.3 part has a `kind`"
        ))
    );
}

#[test]
fn unknown_0_3_fields_are_violations() {
    let mut task = task_0_3();
    task["artifacts"][0]["parts"][1]["mediaType"] = json!("text/plain");
    task["status"]["code"] = json!(1);
    assert_eq!(
        check(A2aVersion::V0_3, &task),
        vec![
            WireViolation::new("/status/code", "`code` is not a field of a TaskStatus in A2A 0.3"),
            WireViolation::new(
                "/artifacts/0/parts/1/mediaType",
                "`mediaType` is not a field of a text part in A2A 0.3"
            ),
        ]
    );
}

#[test]
fn a_1_0_part_carries_exactly_one_payload() {
    let mut task = task_1_0();
    task["artifacts"][0]["parts"][1]["url"] = json!("https://example.com");
    let violations = check(A2aVersion::V1_0, &task);
    assert_eq!(
        violations.last(),
        Some(&WireViolation::new(
            "/artifacts/0/parts/1",
            "a 1.0 part carries exactly one of `text`, `raw`, `url` and `data`; found text, url"
        ))
    );
    task["artifacts"][0]["parts"][1] = json!({"mediaType": "text/plain"});
    let violations = check(A2aVersion::V1_0, &task);
    assert_eq!(
        violations.last(),
        Some(&WireViolation::new(
            "/artifacts/0/parts/1",
            "a 1.0 part carries exactly one of `text`, `raw`, `url` and `data`; found none"
        ))
    );
}

#[test]
fn a_1_0_task_uses_proto_enum_names() {
    let mut task = failed_task_1_0();
    task["status"]["state"] = json!("failed");
    task["status"]["message"]["role"] = json!("agent");
    let violations = check(A2aVersion::V1_0, &task);
    assert!(
        violations.contains(&WireViolation::new(
            "/status/state",
            "1.0 serializes TaskState by proto name (`TASK_STATE_FAILED`), found \"failed\""
        )),
        "{violations:?}"
    );
    assert!(
        violations.contains(&WireViolation::new(
            "/status/message/role",
            "1.0 serializes Role by proto name (`ROLE_AGENT`), found \"agent\""
        )),
        "{violations:?}"
    );
    task["status"]["state"] = json!("TASK_STATE_UNSPECIFIED");
    task["status"]["message"]["role"] = json!("ROLE_AGENT");
    assert_eq!(paths(&check(A2aVersion::V1_0, &task)), vec!["/status/state"]);
}

#[test]
fn the_1_0_schema_refuses_0_3_leftovers() {
    let mut task = task_1_0();
    task["kind"] = json!("task");
    task["artifacts"][0]["parts"][1]["kind"] = json!("text");
    let violations = check(A2aVersion::V1_0, &task);
    assert_eq!(
        violations,
        vec![
            WireViolation::new(
                "/artifacts/0/parts/1/kind",
                "`kind` is not allowed here (A2A 1.0 Task, derived from a2a.proto)"
            ),
            WireViolation::new(
                "/kind",
                "`kind` is not allowed here (A2A 1.0 Task, derived from a2a.proto)"
            ),
        ]
    );
    let mut empty = task_1_0();
    empty["artifacts"][0]["parts"] = json!([]);
    assert_eq!(paths(&check(A2aVersion::V1_0, &empty)), vec!["/artifacts/0/parts"]);
    let mut no_id = task_1_0();
    no_id.as_object_mut().unwrap().remove("id");
    assert_eq!(paths(&check(A2aVersion::V1_0, &no_id)), vec![""]);
}

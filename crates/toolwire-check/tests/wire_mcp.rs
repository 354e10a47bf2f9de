//! `wire::check` on MCP `CallToolResult`s: the official schemas, the contract rules, and the
//! rejections issue 3 requires with the violated path.

use serde_json::{Value, json};
use toolwire_check::wire::{self, WireViolation};
use toolwire_core::{McpRevision, Target};

fn check(revision: McpRevision, value: &Value) -> Vec<WireViolation> {
    wire::check(Target::Mcp(revision), &value.to_string())
}

fn paths(violations: &[WireViolation]) -> Vec<&str> {
    violations.iter().map(|v| v.path.as_str()).collect()
}

/// A full, valid result for `revision` using everything the revision has.
fn rich_result(revision: McpRevision) -> Value {
    use McpRevision::*;
    let mut content = vec![
        json!({"type": "text", "text": "{\"a\":1}", "annotations": {"audience": ["user"], "priority": 0.5}}),
        json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}),
        json!({"type": "resource", "resource": {"uri": "toolwire://part/2", "mimeType": "text/plain", "text": "hi"}}),
        json!({"type": "resource", "resource": {"uri": "toolwire://part/3/a.bin", "blob": "AAEC"}}),
    ];
    if revision >= V2025_03_26 {
        content.push(json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}));
    }
    if revision >= V2025_06_18 {
        content.push(json!({
            "type": "resource_link", "uri": "toolwire://results/7f3c", "name": "result-7f3c.json",
            "title": "Full result", "description": "All rows", "mimeType": "application/json",
            "size": 1048576,
            "annotations": {"audience": ["assistant"], "priority": 0.3, "lastModified": "2025-05-03T14:30:00Z"},
            "_meta": {"dev.toolwire/expiresAt": "2026-01-01T00:00:00Z"}
        }));
        content.push(json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "_meta": {"dev.toolwire/name": "chart.png"}}));
    }
    if revision >= V2025_11_25 {
        content.push(json!({
            "type": "resource_link", "uri": "https://example.com/a.png", "name": "a.png",
            "icons": [{"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "dark"}]
        }));
    }
    let mut result = serde_json::Map::new();
    if revision >= V2026_07_28 {
        result.insert("resultType".into(), json!("complete"));
    }
    result.insert("content".into(), Value::Array(content));
    if revision >= V2025_06_18 {
        result.insert("structuredContent".into(), json!({"a": 1}));
    }
    let mut meta =
        json!({"dev.toolwire/generatedAt": "2026-01-01T00:00:00Z", "com.acme/trace": "x"});
    if revision >= V2026_07_28 {
        meta["io.modelcontextprotocol/serverInfo"] =
            json!({"name": "toolwire", "version": "0.1.0"});
    }
    result.insert("_meta".into(), meta);
    Value::Object(result)
}

#[test]
fn hand_written_results_pass_on_every_revision() {
    for revision in McpRevision::ALL {
        let value = rich_result(revision);
        assert_eq!(check(revision, &value), vec![], "{}", revision.as_str());
        let mut failure = value.clone();
        failure["isError"] = json!(true);
        assert_eq!(check(revision, &failure), vec![], "{} failure", revision.as_str());
    }
}

#[test]
fn any_json_structured_content_passes_on_2026_07_28() {
    for structured in [json!([1, 2]), json!("text"), json!(3.25), json!(null), json!(false)] {
        let value = json!({"resultType": "complete", "content": [{"type": "text", "text": "x"}], "structuredContent": structured});
        assert_eq!(check(McpRevision::V2026_07_28, &value), vec![]);
    }
}

#[test]
fn rejects_structured_content_on_2024_11_05() {
    let value = json!({"content": [{"type": "text", "text": "{}"}], "structuredContent": {}});
    let violations = check(McpRevision::V2024_11_05, &value);
    assert_eq!(
        violations,
        vec![WireViolation::new(
            "/structuredContent",
            "`structuredContent` of a CallToolResult does not exist in 2024-11-05 (it arrives in 2025-06-18)"
        )]
    );
    assert_eq!(
        violations[0].to_string(),
        "/structuredContent: `structuredContent` of a CallToolResult does not exist in 2024-11-05 (it arrives in 2025-06-18)"
    );
}

#[test]
fn rejects_an_array_structured_content_on_2025_06_18() {
    let value = json!({"content": [{"type": "text", "text": "[1]"}], "structuredContent": [1]});
    let violations = check(McpRevision::V2025_06_18, &value);
    assert_eq!(paths(&violations), vec!["/structuredContent", "/structuredContent"]);
    assert!(violations[0].message.contains("is not of type \"object\""), "{violations:?}");
    assert!(violations[0].message.ends_with("(official 2025-06-18 CallToolResult)"));
    assert_eq!(
        violations[1].message,
        "must be a JSON object on 2025-06-18 (any JSON value only from 2026-07-28), found an array"
    );
}

#[test]
fn rejects_a_resource_link_on_2025_03_26() {
    let value = json!({"content": [
        {"type": "text", "text": "x"},
        {"type": "resource_link", "uri": "toolwire://results/1", "name": "result-1.json"}
    ]});
    let violations = check(McpRevision::V2025_03_26, &value);
    // The official schema names the block (no alternative of its `anyOf` matches); the contract
    // names its type.
    assert_eq!(paths(&violations), vec!["/content/1", "/content/1/type"]);
    assert_eq!(
        violations[1].message,
        "`resource_link` blocks do not exist in 2025-03-26 (they arrive in 2025-06-18)"
    );
}

#[test]
fn rejects_a_missing_result_type_on_2026_07_28() {
    let value = json!({"content": [{"type": "text", "text": "x"}]});
    let violations = check(McpRevision::V2026_07_28, &value);
    assert_eq!(paths(&violations), vec!["", "/resultType"]);
    assert!(
        violations[0].message.contains("\"resultType\" is a required property"),
        "{violations:?}"
    );
    assert_eq!(violations[1].message, "missing: every 2026-07-28 result carries `resultType`");
}

#[test]
fn rejects_a_reserved_meta_key() {
    for revision in McpRevision::ALL {
        let mut value = rich_result(revision);
        value["_meta"]["io.modelcontextprotocol/trace"] = json!("x");
        assert_eq!(
            check(revision, &value),
            vec![WireViolation::new(
                "/_meta/io.modelcontextprotocol~1trace",
                "`_meta` key `io.modelcontextprotocol/trace`: prefix `io.modelcontextprotocol/` is reserved for MCP"
            )],
            "{}",
            revision.as_str()
        );
    }
}

#[test]
fn server_info_is_reserved_before_2026_07_28() {
    let value = json!({"content": [], "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "a", "version": "1"}}});
    assert_eq!(
        paths(&check(McpRevision::V2025_11_25, &value)),
        vec!["/_meta/io.modelcontextprotocol~1serverInfo"]
    );
}

#[test]
fn block_meta_keys_follow_the_grammar() {
    let value = json!({"content": [{"type": "text", "text": "x", "_meta": {"dev.mcp/x": 1, "bad key": 2, "com.acme/ok": 3}}]});
    let violations = check(McpRevision::V2025_06_18, &value);
    assert_eq!(paths(&violations), vec!["/content/0/_meta/dev.mcp~1x", "/content/0/_meta/bad key"]);
}

#[test]
fn fields_a_revision_lacks_are_violations() {
    let cases = [
        (
            McpRevision::V2025_03_26,
            json!({"type": "text", "text": "x", "_meta": {}}),
            "/content/0/_meta",
        ),
        (
            McpRevision::V2025_03_26,
            json!({"type": "text", "text": "x", "annotations": {"lastModified": "2025-01-01T00:00:00Z"}}),
            "/content/0/annotations/lastModified",
        ),
        (
            McpRevision::V2025_06_18,
            json!({"type": "resource_link", "uri": "a:b", "name": "n", "icons": []}),
            "/content/0/icons",
        ),
        (
            McpRevision::V2024_11_05,
            json!({"type": "resource", "resource": {"uri": "a:b", "text": "t", "_meta": {}}}),
            "/content/0/resource/_meta",
        ),
    ];
    for (revision, block, path) in cases {
        let value = json!({"content": [block]});
        assert_eq!(paths(&check(revision, &value)), vec![path], "{}", revision.as_str());
    }
    let audio = json!({"content": [{"type": "audio", "data": "AA==", "mimeType": "audio/wav"}]});
    let violations = check(McpRevision::V2024_11_05, &audio);
    assert_eq!(paths(&violations), vec!["/content/0", "/content/0/type"]);
    assert_eq!(
        violations[1].message,
        "`audio` blocks do not exist in 2024-11-05 (they arrive in 2025-03-26)"
    );
    let result_type = json!({"resultType": "complete", "content": []});
    assert_eq!(paths(&check(McpRevision::V2025_11_25, &result_type)), vec!["/resultType"]);
}

#[test]
fn unknown_keys_are_violations_on_every_revision() {
    for revision in McpRevision::ALL {
        let mut value = rich_result(revision);
        value["extra"] = json!(1);
        value["content"][0]["title"] = json!("t");
        assert_eq!(
            check(revision, &value),
            vec![
                WireViolation::new("/extra", "`extra` is not a field of a CallToolResult"),
                WireViolation::new("/content/0/title", "`title` is not a field of a `text` block"),
            ],
            "{}",
            revision.as_str()
        );
    }
}

#[test]
fn is_error_false_is_a_contract_violation() {
    let value = json!({"content": [], "isError": false});
    assert_eq!(
        check(McpRevision::V2025_06_18, &value),
        vec![WireViolation::new(
            "/isError",
            "`isError` is `true` on a failure and absent on a success, never `false`"
        )]
    );
}

#[test]
fn result_type_other_than_complete_is_a_violation() {
    let value = json!({"resultType": "task", "content": []});
    assert_eq!(
        check(McpRevision::V2026_07_28, &value),
        vec![WireViolation::new(
            "/resultType",
            "a CallToolResult has `resultType` \"complete\", not \"task\""
        )]
    );
}

#[test]
fn resource_contents_carry_exactly_one_payload() {
    let value = json!({"content": [{"type": "resource", "resource": {"uri": "a:b", "text": "t", "blob": "AA=="}}]});
    assert_eq!(
        check(McpRevision::V2025_06_18, &value),
        vec![WireViolation::new(
            "/content/0/resource",
            "resource contents carry exactly one of `text` and `blob`"
        )]
    );
}

#[test]
fn unknown_block_types_are_violations() {
    let value = json!({"content": [{"type": "tool_use", "id": "1", "name": "x", "input": {}}]});
    let violations = check(McpRevision::V2025_11_25, &value);
    assert_eq!(paths(&violations), vec!["/content/0", "/content/0/type"]);
}

#[test]
fn a_uri_must_be_a_uri() {
    let value =
        json!({"content": [{"type": "resource", "resource": {"uri": "not a uri", "text": "t"}}]});
    // The official schema's `anyOf` over block types is resolved to the block the `type` names,
    // so the violation points at the field.
    assert_eq!(
        check(McpRevision::V2025_06_18, &value),
        vec![WireViolation::new(
            "/content/0/resource/uri",
            "value is not a \"uri\" (official 2025-06-18 CallToolResult); SDK clients read it as any string"
        )]
    );
}

#[test]
fn data_must_be_base64_as_clients_read_it() {
    let value = json!({"content": [{"type": "image", "data": "a-b_", "mimeType": "image/png"}]});
    assert_eq!(
        check(McpRevision::V2025_06_18, &value),
        vec![WireViolation::new(
            "/content/0/data",
            "value is not a \"byte\" (official 2025-06-18 CallToolResult)"
        )]
    );
}

#[test]
fn text_that_is_not_an_object_is_one_root_violation() {
    assert_eq!(
        wire::check(Target::Mcp(McpRevision::V2025_06_18), "[]"),
        vec![WireViolation::new("", "a CallToolResult must be a JSON object")]
    );
    let violations = wire::check(Target::Mcp(McpRevision::V2025_06_18), "{\"content\":");
    assert_eq!(paths(&violations), vec![""]);
    assert!(violations[0].message.starts_with("not JSON ("), "{violations:?}");
    assert_eq!(violations[0].to_string(), format!("(root): {}", violations[0].message));
}

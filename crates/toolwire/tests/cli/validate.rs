//! `toolwire validate`: exit codes, streams, and the rejections issue 3 requires with their path.

use std::process::Output;

use crate::support::{self, stderr, stdout};

fn validate(args: &[&str], stdin: &str) -> Output {
    support::run(&[&["validate"], args].concat(), stdin.as_bytes(), &[])
}

fn assert_valid(args: &[&str], stdin: &str) {
    let output = validate(args, stdin);
    assert_eq!(output.status.code(), Some(0), "{}{}", stdout(&output), stderr(&output));
    assert_eq!(stdout(&output), "");
    assert_eq!(stderr(&output), "");
}

#[test]
fn valid_results_exit_0_silently() {
    assert_valid(&["--target", "mcp-2024-11-05"], r#"{"content":[{"type":"text","text":"hi"}]}"#);
    assert_valid(
        &["--target", "mcp-2025-06-18"],
        "{\"content\":[{\"type\":\"text\",\"text\":\"{}\"}],\"structuredContent\":{}}\n",
    );
    assert_valid(
        &["--target", "mcp-2026-07-28"],
        r#"{"resultType":"complete","content":[{"type":"text","text":"[1]"}],"structuredContent":[1]}"#,
    );
    // `render` ends with a newline; it is not part of the envelope.
    assert_valid(&["--target", "legacy"], "{\"success\":true,\"data\":{\"a\":1}}\n");
    assert_valid(&["--target", "legacy"], "plain text passes through\n");
    assert_valid(
        &["--target", "a2a-0.3"],
        r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"}}"#,
    );
    assert_valid(
        &["--target", "a2a-1.0"],
        r#"{"id":"t","status":{"state":"TASK_STATE_COMPLETED"}}"#,
    );
    // An unknown date maps to the nearest older revision.
    assert_valid(&["--target", "mcp-2025-07-01"], r#"{"content":[],"structuredContent":{}}"#);
}

#[test]
fn rejects_structured_content_on_2024_11_05() {
    let output =
        validate(&["--target", "mcp-2024-11-05"], r#"{"content":[],"structuredContent":{}}"#);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "/structuredContent: `structuredContent` of a CallToolResult does not exist in 2024-11-05 (it arrives in 2025-06-18)\n"
    );
    assert_eq!(stderr(&output), "toolwire: 1 violation of mcp-2024-11-05\n");
}

#[test]
fn rejects_an_array_structured_content_on_2025_06_18() {
    let output =
        validate(&["--target", "mcp-2025-06-18"], r#"{"content":[],"structuredContent":[1]}"#);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "/structuredContent: value is not of type \"object\" (official 2025-06-18 CallToolResult)\n\
         /structuredContent: must be a JSON object on 2025-06-18 (any JSON value only from 2026-07-28), found an array\n"
    );
}

#[test]
fn rejects_a_resource_link_on_2025_03_26() {
    let output = validate(
        &["--target", "mcp-2025-03-26"],
        r#"{"content":[{"type":"resource_link","uri":"toolwire://results/1","name":"result-1.json"}]}"#,
    );
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.contains(
            "/content/0/type: `resource_link` blocks do not exist in 2025-03-26 (they arrive in 2025-06-18)\n"
        ),
        "{text}"
    );
}

#[test]
fn rejects_a_missing_result_type_on_2026_07_28() {
    let output = validate(&["--target", "mcp-2026-07-28"], r#"{"content":[]}"#);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "(root): \"resultType\" is a required property (official 2026-07-28 CallToolResult)\n\
         /resultType: missing: every 2026-07-28 result carries `resultType`\n"
    );
}

#[test]
fn rejects_a_reserved_meta_key() {
    let output = validate(
        &["--target", "mcp-2025-11-25"],
        r#"{"content":[],"_meta":{"io.modelcontextprotocol/x":1}}"#,
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "/_meta/io.modelcontextprotocol~1x: `_meta` key `io.modelcontextprotocol/x`: prefix `io.modelcontextprotocol/` is reserved for MCP\n"
    );
}

#[test]
fn rejects_a_0_3_file_with_bytes_and_uri() {
    let output = validate(
        &["--target", "a2a-0.3"],
        r#"{"kind":"task","id":"t","contextId":"c","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"file","file":{"bytes":"AA==","uri":"https://x.example/a"}}]}]}"#,
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "/artifacts/0/parts/0/file: a file carries exactly one of `bytes` and `uri`\n"
    );
}

#[test]
fn rejects_a_legacy_envelope_out_of_order() {
    let output = validate(&["--target", "legacy"], r#"{"data":1,"success":true}"#);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "(root): the keys of a success envelope come in the order success, data, _meta; found data, success\n"
    );
}

#[test]
fn output_schema_checks_structured_content() {
    let dir = std::env::temp_dir().join(format!("toolwire-cli-validate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let typed = dir.join("typed.json");
    std::fs::write(&typed, r#"{"outputs":{"count":{"type":"integer","required":true}}}"#).unwrap();
    let typed = typed.to_str().unwrap();

    assert_valid(
        &["--target", "mcp-2025-06-18", "--output-schema", typed],
        r#"{"content":[{"type":"text","text":"{\"count\":1}"}],"structuredContent":{"count":1}}"#,
    );
    let output = validate(
        &["--target", "mcp-2025-06-18", "--output-schema", typed],
        r#"{"content":[{"type":"text","text":"{}"}],"structuredContent":{"count":"one"}}"#,
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "/structuredContent/count: value is not of type \"integer\" (published outputSchema)\n"
    );
    let output = validate(
        &["--target", "mcp-2026-07-28", "--output-schema", typed],
        r#"{"resultType":"complete","content":[{"type":"text","text":"x"}]}"#,
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "/structuredContent: missing: the tool publishes an outputSchema, so a success must carry `structuredContent`\n"
    );
    // Before 2025-06-18 nothing is published, so there is nothing to match.
    assert_valid(
        &["--target", "mcp-2025-03-26", "--output-schema", typed],
        r#"{"content":[{"type":"text","text":"x"}]}"#,
    );

    // Envelope shape: the structured result is the envelope.
    assert_valid(
        &["--target", "mcp-2025-06-18", "--output-schema", typed, "--shape", "envelope"],
        r#"{"content":[{"type":"text","text":"x"}],"structuredContent":{"success":true,"message":"","data":{"count":2}}}"#,
    );
    let output = validate(
        &["--target", "mcp-2025-06-18", "--output-schema", typed, "--shape", "envelope"],
        r#"{"content":[{"type":"text","text":"x"}],"structuredContent":{"count":2}}"#,
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "/structuredContent: \"success\" is a required property (published outputSchema)\n\
         /structuredContent: \"message\" is a required property (published outputSchema)\n\
         /structuredContent: \"data\" is a required property (published outputSchema)\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_flags_and_files_exit_2_with_one_line() {
    let cases: [(&[&str], &str); 5] = [
        (&["--target", "mcp-latest"], "toolwire: --target: `latest` is not a date (YYYY-MM-DD)\n"),
        (
            &["--target", "json"],
            "toolwire: --target: unknown target `json`; expected legacy, mcp-<YYYY-MM-DD>, a2a-0.3 or a2a-1.0\n",
        ),
        (
            &["--target", "legacy", "--shape", "list"],
            "toolwire: --shape: unknown shape `list`; expected data or envelope\n",
        ),
        (
            &["--target", "legacy", "--output-schema", "/nonexistent/schema.json"],
            "toolwire: --output-schema /nonexistent/schema.json: ",
        ),
        (
            &["--target", "mcp-2025-06-18", "--output-schema", "/dev/null"],
            "toolwire: --output-schema /dev/null: cannot read: not a regular file\n",
        ),
    ];
    for (args, expected) in cases {
        let output = validate(args, "{}");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&output), "", "{args:?}");
        let err = stderr(&output);
        assert!(err.starts_with(expected), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    let output = validate(&[], "{}");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_refused_declaration_exits_2() {
    let dir = std::env::temp_dir().join(format!("toolwire-cli-refused-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let remote = dir.join("remote.json");
    std::fs::write(&remote, r#"{"$ref":"https://example.com/schema.json"}"#).unwrap();
    let output = validate(
        &["--target", "mcp-2025-06-18", "--output-schema", remote.to_str().unwrap()],
        "{}",
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout(&output), "");
    assert_eq!(stderr(&output).lines().count(), 1, "{}", stderr(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn input_that_is_not_utf8_exits_2() {
    let output = support::run(&["validate", "--target", "legacy"], &[0xff, 0xfe], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with("toolwire: standard input is not UTF-8"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn input_that_is_not_json_is_a_violation_for_mcp_and_a2a() {
    for target in ["mcp-2025-06-18", "a2a-1.0"] {
        let output = validate(&["--target", target], "not json");
        assert_eq!(output.status.code(), Some(1), "{target}");
        assert!(stdout(&output).starts_with("(root): not JSON ("), "{}", stdout(&output));
    }
}

#[test]
fn an_input_required_result_is_checked_against_its_own_definition() {
    let valid = r#"{"resultType":"input_required","inputRequests":{"ok":{"method":"roots/list","params":{}}}}"#;
    let out = validate(&["--target", "mcp-2026-07-28"], valid);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let neither = r#"{"resultType":"input_required","content":[]}"#;
    let out = validate(&["--target", "mcp-2026-07-28"], neither);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("/content: `content` is not a field of an InputRequiredResult"),
        "{text}"
    );
    assert!(
        text.contains(
            "(root): an InputRequiredResult carries `inputRequests`, `requestState` or both"
        ),
        "{text}"
    );
}

#[test]
fn an_output_schema_file_is_read_within_the_configuration_s_bound() {
    let dir = tempfile::tempdir().unwrap();
    let not_json = dir.path().join("not.json");
    std::fs::write(&not_json, "{").unwrap();
    let large = dir.path().join("large.json");
    std::fs::write(&large, vec![b' '; 4 * 1024 * 1024 + 1]).unwrap();
    for (path, expected) in [
        (&not_json, "not JSON: "),
        (&large, "cannot read: over the limit of 4194304 bytes (4 MiB)\n"),
    ] {
        let shown = path.display().to_string();
        let output = validate(&["--target", "mcp-2025-06-18", "--output-schema", &shown], "{}");
        assert_eq!(output.status.code(), Some(2));
        let err = stderr(&output);
        assert!(
            err.starts_with(&format!("toolwire: --output-schema {shown}: {expected}")),
            "{err}"
        );
    }
}

//! `toolwire parse` end to end: the built binary, its stdout, stderr and exit code.

use crate::support;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn parse(input: &[u8]) -> Run {
    let output = support::run(&["parse"], input, &[]);
    Run {
        code: output.status.code(),
        stdout: support::stdout(&output),
        stderr: support::stderr(&output),
    }
}

fn ok(input: &[u8], expected: &str) {
    let run = parse(input);
    assert_eq!((run.code, run.stderr.as_str()), (Some(0), ""), "{input:?}");
    assert_eq!(run.stdout, format!("{expected}\n"));
}

fn refused(input: &[u8], message: &str) {
    let run = parse(input);
    assert_eq!(run.code, Some(2), "{input:?}");
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, format!("toolwire: parse: {message}\n"));
}

#[test]
fn legacy_envelope_becomes_v1() {
    ok(
        b"{\"success\":true,\"data\":{\"id\":7},\"_meta\":{\"summary\":\"1 product\",\"dryRun\":true}}\n",
        r#"{"format":"toolwire.result.v1","data":{"id":7},"summary":"1 product","meta":{"dryRun":true}}"#,
    );
    ok(
        b"{\"success\":false,\"error\":\"Missing privilege: a, b\"}",
        r#"{"format":"toolwire.result.v1","error":{"code":"missing_privilege","message":"Missing privilege: a, b","details":{"missing":["a","b"]}}}"#,
    );
}

#[test]
fn v1_documents_round_trip_exactly() {
    let doc = r#"{"format":"toolwire.result.v1","data":{"z":123456789012345678901234567890,"a":0.1000000000000000000000000001,"m":-9223372036854775809},"parts":[{"type":"binary","mimeType":"image/png","data":"iVBORw==","name":"c.png"}],"meta":{"generatedAt":"2026-11-29T10:00:00.123456789Z"}}"#;
    ok(format!("{doc}\r\n").as_bytes(), doc);
}

#[test]
fn anything_else_passes_through_minus_one_line_ending() {
    ok(
        b"plain text\n",
        r#"{"format":"toolwire.result.v1","parts":[{"type":"text","text":"plain text"}]}"#,
    );
    ok(b"two\n\n", r#"{"format":"toolwire.result.v1","parts":[{"type":"text","text":"two\n"}]}"#);
    ok(b"cr\r", r#"{"format":"toolwire.result.v1","parts":[{"type":"text","text":"cr\r"}]}"#);
    ok(b"", r#"{"format":"toolwire.result.v1","parts":[{"type":"text","text":""}]}"#);
    ok(b"[1,2]\n", r#"{"format":"toolwire.result.v1","parts":[{"type":"text","text":"[1,2]"}]}"#);
}

#[test]
fn invalid_utf8_exits_2_with_the_offset() {
    refused(b"abc\xff\n", "input is not valid UTF-8: invalid byte at offset 3");
}

#[test]
fn invalid_v1_documents_exit_2_naming_the_problem() {
    refused(
        br#"{"format":"toolwire.result.v3"}"#,
        "invalid toolwire result document: unknown format version `toolwire.result.v3`",
    );
    refused(
        br#"{"format":"toolwire.result.v1","data":1,"error":{"code":"c","message":"m"}}"#,
        "invalid toolwire result document: error and a non-null data together",
    );
    refused(
        br#"{"format":"toolwire.result.v1","foo":1}"#,
        "invalid toolwire result document: unknown top-level key `foo`",
    );
}

#[test]
fn malformed_base64_exits_2_with_its_path() {
    refused(
        br#"{"format":"toolwire.result.v1","parts":[{"type":"text","text":"a"},{"type":"text","text":"b"},{"type":"binary","mimeType":"image/png","data":"not base64!"}]}"#,
        "invalid toolwire result document: parts[2].data: malformed base64",
    );
}

#[test]
fn too_deep_nesting_exits_2_with_the_offset() {
    let input = format!("{}{}\n", "[".repeat(1000), "]".repeat(1000));
    refused(
        input.as_bytes(),
        "JSON nesting reaches 128 levels at byte offset 127; at most 127 levels are allowed",
    );
}

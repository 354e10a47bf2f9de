//! `toolwire schema`: stdin declaration → published outputSchema, `null`, or exit 2.

use crate::support;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn schema(args: &[&str], stdin: &str) -> Run {
    let output = support::run(&[&["schema"], args].concat(), stdin.as_bytes(), &[]);
    Run {
        code: output.status.code(),
        stdout: support::stdout(&output),
        stderr: support::stderr(&output),
    }
}

const LIST: &str = r#"{"type": "array", "items": {"type": "string"}}"#;

#[test]
fn prints_the_wrapped_schema_for_the_handshake_era() {
    let run = schema(&["--target", "mcp-2025-06-18"], LIST);
    assert_eq!(run.code, Some(0));
    assert_eq!(
        run.stdout,
        "{\"type\":\"object\",\"properties\":{\"result\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},\"required\":[\"result\"],\"x-fastmcp-wrap-result\":true}\n"
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn prints_the_declared_schema_for_2026_and_unknown_later_dates() {
    for target in ["mcp-2026-07-28", "mcp-2030-01-01"] {
        let run = schema(&["--target", target], LIST);
        assert_eq!(run.code, Some(0));
        assert_eq!(run.stdout, "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}\n");
    }
}

#[test]
fn prints_null_where_nothing_is_published() {
    for (target, declaration) in [
        ("mcp-2025-03-26", LIST),
        ("mcp-2024-11-05", LIST),
        ("mcp-2025-11-25", r#"{"outputs": {}}"#),
        ("mcp-2025-11-25", "{}"),
        ("mcp-2026-07-28", "true"),
    ] {
        let run = schema(&["--target", target], declaration);
        assert_eq!((run.code, run.stdout.as_str()), (Some(0), "null\n"), "{target} {declaration}");
    }
}

#[test]
fn prints_the_declared_data_schema_for_legacy_and_a2a() {
    for target in ["legacy", "a2a-0.3", "a2a-1.0"] {
        let run = schema(&["--target", target], r#"{"outputs": {"n": {"type": "integer"}}}"#);
        assert_eq!(run.code, Some(0));
        assert_eq!(
            run.stdout,
            "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}\n"
        );
    }
}

#[test]
fn prints_the_envelope_schema_in_envelope_shape() {
    let run = schema(
        &["--target", "mcp-2025-11-25", "--shape", "envelope"],
        r#"{"outputs": {"message": {"type": "string", "required": true}}}"#,
    );
    assert_eq!(run.code, Some(0));
    assert_eq!(
        run.stdout,
        concat!(
            r#"{"type":"object","properties":{"success":{"type":"boolean"},"message":{"type":"string"},"#,
            r#""data":{"type":"object","properties":{"message":{"type":"string"}}},"input_schema":{"type":"object"}},"#,
            r#""required":["success","message","data"],"if":{"properties":{"success":{"const":true}}},"#,
            r#""then":{"properties":{"data":{"required":["message"]}}}}"#,
            "\n"
        )
    );
}

#[test]
fn refused_declarations_exit_2_with_one_line() {
    let cases = [
        (
            vec!["--target", "mcp-2025-06-18"],
            r#"{"type": "object", "properties": {"a": {"$ref": "http://example.com/a.json"}}}"#,
            "toolwire: declaration refused: `$ref` `http://example.com/a.json` at /properties/a points to the network; toolwire never fetches schemas\n",
        ),
        (
            vec!["--target", "mcp-2025-06-18", "--shape", "envelope"],
            LIST,
            "toolwire: declaration refused: an envelope-shape tool needs a data schema whose root has \"type\": \"object\" (its outputs become the envelope's `data` properties)\n",
        ),
        (
            vec!["--target", "mcp-2025-06-18", "--shape", "table"],
            LIST,
            "toolwire: --shape: unknown shape `table`; expected data or envelope\n",
        ),
        (
            vec!["--target", "mcp-latest"],
            LIST,
            "toolwire: --target: `latest` is not a date (YYYY-MM-DD)\n",
        ),
    ];
    for (args, stdin, stderr) in cases {
        let run = schema(&args, stdin);
        assert_eq!(run.code, Some(2), "{args:?}");
        assert_eq!(run.stdout, "");
        assert_eq!(run.stderr, stderr);
    }
    let not_json = schema(&["--target", "legacy"], "{oops");
    assert_eq!(not_json.code, Some(2));
    assert!(
        not_json.stderr.starts_with("toolwire: the declaration on standard input is not JSON: ")
    );
    assert_eq!(not_json.stderr.lines().count(), 1);
}

#[test]
fn a_missing_target_is_a_usage_error() {
    let run = schema(&[], LIST);
    assert_eq!(run.code, Some(2));
    assert_eq!(run.stdout, "");
}

#[test]
fn a_declaration_that_does_not_compile_exits_2_with_the_compilers_message() {
    let bad_regex = r#"{"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}, "enum": [{"a": "x"}]}"#;
    let run = schema(&["--target", "mcp-2025-11-25"], bad_regex);
    assert_eq!(run.code, Some(2));
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "toolwire: declaration refused: the schema does not compile: \"(\" is not a \"regex\" (at /properties/a/pattern in the schema)\n"
    );
    let bad_type = schema(&["--target", "legacy"], r#"{"type": "strin", "enum": ["a"]}"#);
    assert_eq!(bad_type.code, Some(2));
    assert!(
        bad_type.stderr.starts_with("toolwire: declaration refused: the schema does not compile: "),
        "{}",
        bad_type.stderr
    );
}

#[test]
fn a_root_enum_is_printed_compact_as_written() {
    let declaration = "{ \"type\": \"number\",\n  \"enum\": [ 1, 2.50, 1E400, \"\\u0041\" ] }";
    let run = schema(&["--target", "mcp-2025-11-25"], declaration);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "{\"type\":\"object\",\"properties\":{\"result\":{\"type\":\"number\",\"enum\":[1,2.50,1e+400,\"A\"]}},\"required\":[\"result\"],\"x-fastmcp-wrap-result\":true}\n"
    );
    let declared = schema(&["--target", "a2a-1.0"], declaration);
    assert_eq!(declared.stdout, "{\"type\":\"number\",\"enum\":[1,2.50,1e+400,\"A\"]}\n");
}

//! `toolwire render` end to end: flags, exit codes, streams.

mod support;

use std::process::Output;

use support::{stderr, stdout};

fn run(args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    support::run(&[&["render"], args].concat(), stdin.as_bytes(), env)
}

const NOW: &str = "2026-11-29T10:00:00Z";

#[test]
fn renders_the_legacy_envelope_text() {
    let out =
        run(&["--target", "legacy", "--now", NOW], "{\"success\":true,\"data\":{\"id\":7}}\n", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "{\"success\":true,\"data\":{\"id\":7},\"_meta\":{\"generatedAt\":\"2026-11-29T10:00:00Z\"}}\n"
    );
}

#[test]
fn compat_repeats_the_raw_envelope_and_spec_does_not() {
    let input = "{\"success\":true,\"data\":{\"id\":7}}\n";
    let compat = run(&["--target", "mcp-2025-06-18", "--now", NOW], input, &[]);
    assert_eq!(
        stdout(&compat),
        "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"success\\\":true,\\\"data\\\":{\\\"id\\\":7}}\"}],\"structuredContent\":{\"id\":7},\"_meta\":{\"dev.toolwire/generatedAt\":\"2026-11-29T10:00:00Z\"}}\n"
    );
    let spec = run(&["--target", "mcp-2025-06-18", "--phase", "spec", "--now", NOW], input, &[]);
    assert_eq!(
        stdout(&spec),
        "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"id\\\":7}\"}],\"structuredContent\":{\"id\":7},\"_meta\":{\"dev.toolwire/generatedAt\":\"2026-11-29T10:00:00Z\"}}\n"
    );
}

#[test]
fn the_phase_comes_from_the_environment_unless_given() {
    let input = "{\"success\":true,\"data\":1}";
    let from_env =
        run(&["--target", "mcp-2026-07-28", "--now", NOW], input, &[("TOOLWIRE_PHASE", "spec")]);
    assert!(stdout(&from_env).contains("\"text\":\"1\""), "{}", stdout(&from_env));
    let flag_wins = run(
        &["--target", "mcp-2026-07-28", "--phase", "compat", "--now", NOW],
        input,
        &[("TOOLWIRE_PHASE", "spec")],
    );
    assert!(stdout(&flag_wins).contains("\\\"success\\\""), "{}", stdout(&flag_wins));
}

#[test]
fn unknown_dates_map_to_the_nearest_older_revision() {
    let out = run(&["--target", "mcp-2025-07-01", "--now", NOW], "{\"success\":true}", &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!stdout(&out).contains("resultType"));
    let newest = run(&["--target", "mcp-2031-01-01", "--now", NOW], "{\"success\":true}", &[]);
    assert!(stdout(&newest).starts_with("{\"resultType\":\"complete\""));
}

#[test]
fn prefix_tool_and_ids_are_used() {
    let out = run(
        &[
            "--target",
            "a2a-1.0",
            "--prefix",
            "com.acme",
            "--tool",
            "catalog_get",
            "--task-id",
            "t9",
            "--context-id",
            "c9",
            "--now",
            NOW,
        ],
        "{\"success\":true,\"data\":{\"id\":7}}",
        &[],
    );
    assert_eq!(
        stdout(&out),
        "{\"id\":\"t9\",\"contextId\":\"c9\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\",\"timestamp\":\"2026-11-29T10:00:00Z\"},\"artifacts\":[{\"artifactId\":\"t9-result\",\"name\":\"catalog_get\",\"parts\":[{\"data\":{\"id\":7},\"mediaType\":\"application/json\"}],\"metadata\":{\"com.acme/generatedAt\":\"2026-11-29T10:00:00Z\"}}]}\n"
    );
}

#[test]
fn over_the_limit_exits_3_with_size_and_limit() {
    let big = format!("{{\"success\":true,\"data\":\"{}\"}}", "x".repeat(5000));
    let out = run(&["--target", "legacy", "--limit", "4096", "--now", NOW], &big, &[]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("5073 bytes") && err.contains("4096 bytes"), "{err}");
    let tiny =
        run(&["--target", "legacy", "--limit", "10", "--now", NOW], "{\"success\":true}", &[]);
    assert_eq!(tiny.status.code(), Some(3));
}

#[test]
fn output_schema_and_envelope_shape() {
    let dir = std::env::temp_dir().join(format!("toolwire-cli-render-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("out.json");
    let _ = std::fs::write(&path, r#"{"type":"array","items":{"type":"integer"}}"#);
    let schema = path.to_string_lossy().into_owned();
    let out = run(
        &[
            "--target",
            "mcp-2025-11-25",
            "--phase",
            "spec",
            "--output-schema",
            &schema,
            "--now",
            NOW,
        ],
        "{\"success\":true,\"data\":[1]}",
        &[],
    );
    assert!(stdout(&out).contains("\"structuredContent\":{\"result\":[1]}"), "{}", stdout(&out));
    let mismatch = run(
        &[
            "--target",
            "mcp-2025-11-25",
            "--phase",
            "spec",
            "--output-schema",
            &schema,
            "--now",
            NOW,
        ],
        "{\"success\":true,\"data\":[\"a\"]}",
        &[],
    );
    assert!(stdout(&mismatch).contains("\"isError\":true"), "{}", stdout(&mismatch));
    assert!(stdout(&mismatch).contains("/0"), "{}", stdout(&mismatch));
    let envelope = run(
        &["--target", "mcp-2026-07-28", "--shape", "envelope", "--now", NOW],
        "{\"success\":true,\"data\":{\"a\":1},\"_meta\":{\"summary\":\"ok\"}}",
        &[],
    );
    assert!(
        stdout(&envelope).contains(
            "\"structuredContent\":{\"success\":true,\"message\":\"ok\",\"data\":{\"a\":1}}"
        ),
        "{}",
        stdout(&envelope)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_flags_and_input_exit_2() {
    for args in [
        vec!["--target", "json"],
        vec!["--target", "legacy", "--phase", "both"],
        vec!["--target", "legacy", "--shape", "table"],
        vec!["--target", "legacy", "--now", "yesterday"],
        vec!["--target", "legacy", "--prefix", "io.modelcontextprotocol"],
        vec!["--target", "legacy", "--output-schema", "/nonexistent/schema.json"],
        vec!["--target", "legacy", "--limit", "many"],
    ] {
        let out = run(&args, "{\"success\":true}", &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "");
    }
    let invalid = run(&["--target", "legacy"], "{\"format\":\"toolwire.result.v9\"}", &[]);
    assert_eq!(invalid.status.code(), Some(2), "{}", stderr(&invalid));
}

#[test]
fn passthrough_text_stays_raw() {
    let out = run(&["--target", "legacy", "--now", NOW], "just words\n", &[]);
    assert_eq!(stdout(&out), "just words\n");
}

#[test]
fn toolwire_validate_accepts_what_render_prints() {
    let inputs = [
        "{\"success\":true,\"data\":[1,2],\"_meta\":{\"summary\":\"two\",\"dryRun\":true,\"com.acme/trace\":\"t\"}}",
        "{\"success\":false,\"error\":\"Missing privilege: catalog:write\"}",
        "{\"format\":\"toolwire.result.v1\",\"data\":{\"id\":7},\"parts\":[{\"type\":\"binary\",\"mimeType\":\"audio/wav\",\"data\":\"UklGRg==\",\"name\":\"a.wav\"},{\"type\":\"resource_link\",\"uri\":\"https://x.test/r\",\"name\":\"r\"}]}",
        "plain words",
    ];
    let targets = [
        "legacy",
        "mcp-2024-11-05",
        "mcp-2025-03-26",
        "mcp-2025-06-18",
        "mcp-2025-11-25",
        "mcp-2026-07-28",
        "a2a-0.3",
        "a2a-1.0",
    ];
    for input in inputs {
        for target in targets {
            for phase in ["compat", "spec"] {
                let rendered =
                    run(&["--target", target, "--phase", phase, "--now", NOW], input, &[]);
                assert_eq!(rendered.status.code(), Some(0), "{target}: {}", stderr(&rendered));
                let checked =
                    support::run(&["validate", "--target", target], &rendered.stdout, &[]);
                assert_eq!(
                    checked.status.code(),
                    Some(0),
                    "{target} {phase} {input}: {}{}",
                    stdout(&checked),
                    stderr(&checked)
                );
            }
        }
    }
}

#[test]
fn a_v2_document_that_asks_for_input_renders_on_every_target() {
    let input = r#"{"format":"toolwire.result.v2","inputRequired":{"requests":{"ok":{"method":"roots/list"}},"summary":"Need roots"}}"#;
    let mcp = run(&["--target", "mcp-2026-07-28", "--now", NOW], input, &[]);
    assert_eq!(mcp.status.code(), Some(0), "{}", stderr(&mcp));
    assert_eq!(
        stdout(&mcp),
        format!(
            "{{\"resultType\":\"input_required\",\"inputRequests\":{{\"ok\":{{\"method\":\"roots/list\",\"params\":{{}}}}}},\"_meta\":{{\"dev.toolwire/generatedAt\":\"{NOW}\",\"io.modelcontextprotocol/serverInfo\":{{\"name\":\"toolwire\",\"version\":\"{}\"}}}}}}\n",
            env!("CARGO_PKG_VERSION")
        )
    );
    let legacy = run(&["--target", "legacy", "--now", NOW], input, &[]);
    assert!(
        stdout(&legacy).starts_with("{\"success\":false,\"error\":\"The tool needs input first (roots/list), which this client cannot provide.\",\"code\":\"input_required\",\"details\":{\"inputRequests\":{\"ok\":{\"method\":\"roots/list\",\"params\":{}}}}"),
        "{}",
        stdout(&legacy)
    );
    let a2a = run(&["--target", "a2a-0.3", "--now", NOW], input, &[]);
    assert!(stdout(&a2a).contains("\"state\":\"input-required\""), "{}", stdout(&a2a));
}

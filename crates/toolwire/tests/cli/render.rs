//! `toolwire render` end to end: flags, exit codes, streams.

use std::process::Output;

use crate::support::{self, stderr, stdout};

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
        "{\"id\":\"t9\",\"contextId\":\"c9\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\",\"timestamp\":\"2026-11-29T10:00:00Z\"},\"artifacts\":[{\"artifactId\":\"t9-result\",\"name\":\"catalog_get\",\"parts\":[{\"data\":{\"id\":7}}],\"metadata\":{\"com.acme/generatedAt\":\"2026-11-29T10:00:00Z\"}}]}\n"
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
    let args =
        ["--target", "mcp-2025-11-25", "--phase", "spec", "--output-schema", &schema, "--now", NOW];
    let out = run(&args, "{\"success\":true,\"data\":[1]}", &[]);
    assert!(stdout(&out).contains("\"structuredContent\":{\"result\":[1]}"), "{}", stdout(&out));
    let mismatch = run(&args, "{\"success\":true,\"data\":[\"a\"]}", &[]);
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

/// The server version the host snapshots show: the binary's own version is checked on every
/// render, then pinned here so that a version bump does not rewrite the snapshots.
const SNAPSHOT_SERVER_VERSION: &str = "0.1.0";

/// One render as a snapshot entry: the wire text must be the compact form of its JSON (so the
/// pretty entry pins every byte); the 2026-07-28 `serverInfo` version is the binary's, shown
/// pinned.
fn host_entry(wire: &str) -> String {
    let wire = wire.strip_suffix('\n').unwrap_or_else(|| panic!("no final newline: {wire}"));
    let mut parsed: serde_json::Value =
        serde_json::from_str(wire).unwrap_or_else(|e| panic!("{e}: {wire}"));
    assert_eq!(serde_json::to_string(&parsed).ok().as_deref(), Some(wire), "not compact JSON");
    if let Some(version) = parsed.pointer_mut("/_meta/io.modelcontextprotocol~1serverInfo/version")
    {
        assert_eq!(version.as_str(), Some(env!("CARGO_PKG_VERSION")), "{wire}");
        *version = SNAPSHOT_SERVER_VERSION.into();
    }
    serde_json::to_string_pretty(&parsed).unwrap_or_else(|e| panic!("{e}"))
}

/// Every built-in host on two revisions and both phases, one snapshot per revision and phase
/// holding each input for each host.
#[test]
fn host_renders_per_revision_and_phase() {
    let inputs = [
        (
            "dry_run",
            r#"{"success":true,"data":{"id":5,"name":"Walnut chair 5","oldPrice":400.95,"newPrice":12.5},"_meta":{"summary":"Dry run: the price would change; nothing was changed.","dryRun":true}}"#,
        ),
        ("data_alone", r#"{"success":true,"data":42}"#),
    ];
    let profiles = toolwire_core::host::HostProfiles::builtin();
    let hosts: Vec<&str> = profiles.iter().map(|p| p.name.as_str()).collect();
    for target in ["mcp-2025-11-25", "mcp-2026-07-28"] {
        for phase in ["compat", "spec"] {
            let mut snapshot = String::new();
            for (name, input) in inputs {
                for &host in &hosts {
                    let args = ["--target", target, "--phase", phase, "--host", host, "--now", NOW];
                    let out = run(&args, input, &[]);
                    assert_eq!(out.status.code(), Some(0), "{host} {target}: {}", stderr(&out));
                    let entry = host_entry(&stdout(&out));
                    snapshot.push_str(&format!("## {name}, host {host}\n{entry}\n\n"));
                }
            }
            insta::assert_snapshot!(format!("host_{target}-{phase}"), snapshot);
        }
    }
}

#[test]
fn host_renders_of_a_result_over_a_host_cap() {
    let rows: Vec<String> = (0..3000).map(|i| format!("{{\"id\":{i}}}")).collect();
    let input = format!("{{\"success\":true,\"data\":[{}]}}", rows.join(","));
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let dir = dir.path().to_string_lossy().into_owned();
    let out = run(
        &["--target", "mcp-2025-11-25", "--host", "claude-code", "--now", NOW, "--data-dir", &dir],
        &input,
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.len() <= 50_000, "{}", text.len());
    assert!(text.contains("Data preview (cut: the first 2048 of"), "{text}");
    let generic = run(&["--target", "mcp-2025-11-25", "--now", NOW], &input, &[]);
    assert_eq!(generic.status.code(), Some(0), "the revision's own limit is not reached");
}

#[test]
fn unknown_hosts_are_refused_with_the_names() {
    let out = run(&["--target", "mcp-2025-11-25", "--host", "emacs"], "{\"success\":true}", &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "toolwire: --host: unknown host `emacs`; expected generic, claude-code, vscode, codex, claude-desktop, kimi-code, open-webui, cursor, gemini-cli, chatgpt, goose, librechat, opencode, copilot-cli, jetbrains\n"
    );
}

/// The JSON the page of `render --html` reads (every `<` in it escaped as `\u003c`).
fn embedded_data(html: &str) -> serde_json::Value {
    let start = html.find("id=\"toolwire-data\">").map_or(0, |at| at + 19);
    let end = start + html[start..].find("</script>").unwrap_or(0);
    serde_json::from_str(&html[start..end]).unwrap_or_else(|e| panic!("no data element: {e}"))
}

#[test]
fn html_is_one_self_contained_page_with_every_target_and_host() {
    let input = r#"{"success":true,"data":{"name":"Mug </script><script>alert(1)</script>"},"message":"One product"}"#;
    let out = run(&["--html", "--now", NOW, "--tool", "catalog_get"], input, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let html = stdout(&out);
    assert!(html.starts_with("<!doctype html>"), "{}", &html[..80.min(html.len())]);
    assert!(!html.contains("<script src=") && !html.contains("<link rel=\"stylesheet\""));
    assert!(!html.contains("alert(1)</script>"), "a tool's text cannot close the data element");
    let data = embedded_data(&html);
    let preview = &data["previews"][0];
    assert_eq!(preview["label"], "catalog_get");
    assert_eq!(preview["hostRevision"], "2026-07-28");
    assert_eq!(preview["wires"].as_array().map(Vec::len), Some(8));
    assert_eq!(preview["hosts"].as_array().map(Vec::len), Some(15));
    for host in preview["hosts"].as_array().into_iter().flatten() {
        assert!(
            host["facts"].as_array().into_iter().flatten().all(|f| f["seen"] == true),
            "{host}"
        );
    }
}

#[test]
fn html_takes_an_mcp_revision_for_the_host_views_and_stores_what_does_not_fit() {
    let big = format!(r#"{{"success":true,"data":{{"pad":"{}"}}}}"#, "x".repeat(5000));
    let refused = run(&["--html", "--limit", "4096", "--now", NOW], &big, &[]);
    assert_eq!(refused.status.code(), Some(3), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("no --data-dir to store it"), "{}", stderr(&refused));
    let a2a = run(&["--html", "--target", "a2a-1.0"], "{}", &[]);
    assert_eq!(a2a.status.code(), Some(2));
    assert!(stderr(&a2a).contains("with --html, give an MCP revision"), "{}", stderr(&a2a));
    let dir = tempfile::tempdir().expect("tempdir");
    let dir = dir.path().to_string_lossy().into_owned();
    let args = ["--html", "--target", "mcp-2025-06-18", "--limit", "4096", "--data-dir", &dir];
    let stored = run(&args, &big, &[]);
    assert_eq!(stored.status.code(), Some(0), "{}", stderr(&stored));
    let data = embedded_data(&stdout(&stored));
    let preview = &data["previews"][0];
    assert_eq!(preview["hostRevision"], "2025-06-18");
    let uri = preview["links"][0]["uri"].as_str().unwrap_or_default();
    assert!(uri.starts_with("toolwire://results/"), "{preview}");
    let read = support::run(&["read", uri, "--data-dir", &dir], b"", &[]);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
}

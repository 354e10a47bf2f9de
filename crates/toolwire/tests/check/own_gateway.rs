//! `toolwire check` of toolwire's own gateway: clean in both phases, over Streamable HTTP and
//! stdio; and the exit codes for a server that cannot be reached and for bad usage.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output};

use serde_json::Value;

use crate::gateway::{self, Server};

fn check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .arg("check")
        .args(args)
        .env_remove("TOOLWIRE_PHASE")
        .output()
        .expect("run toolwire check")
}

/// Asserts a clean JSON report with every revision offered and every demo tool called.
fn assert_clean(output: &Output) -> Value {
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(report["findings"], serde_json::json!([]), "{report:#}");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(report["summary"]["revisions"], 5, "{report:#}");
    let tools: Vec<&str> =
        report["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(tools, gateway::DEMO_TOOLS);
    for tool in report["tools"].as_array().unwrap() {
        for cell in tool["revisions"].as_array().unwrap() {
            assert!(!cell["called"].as_array().unwrap().is_empty(), "{tool}");
        }
    }
    report
}

#[test]
fn the_gateway_in_the_compat_phase_is_clean_for_every_host() {
    let server = Server::start(None, &[]);
    let output = check(&[&server.url, "--allow-writes", "--format", "json"]);
    assert_clean(&output);
}

#[test]
fn the_gateway_in_the_spec_phase_is_clean_for_every_host() {
    let server = Server::start(None, &[("TOOLWIRE_PHASE", "spec")]);
    let output = check(&[&server.url, "--allow-writes", "--format", "json"]);
    assert_clean(&output);
}

#[test]
fn the_gateway_over_stdio_is_clean_and_the_table_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let binary = env!("CARGO_BIN_EXE_toolwire");
    let output = check(&[
        "--allow-writes",
        "--",
        binary,
        "serve",
        "--stdio",
        "--data-dir",
        data.to_str().unwrap(),
    ]);
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        format!("toolwire check {binary} serve --stdio --data-dir {}", data.display())
    );
    // Columns are as wide as the longest tool name.
    let width = gateway::DEMO_TOOLS.iter().map(|t| t.len()).max().unwrap();
    let header =
        format!("{:width$}  2024-11-05  2025-03-26  2025-06-18  2025-11-25  2026-07-28", "tool");
    assert_eq!(lines[2], header);
    let row =
        format!("{:width$}  ✓           ✓           ✓           ✓           ✓", "catalog_search");
    assert_eq!(lines[3], row);
    let tools = gateway::DEMO_TOOLS.len();
    let summary = lines.last().unwrap();
    let clean =
        format!("nothing found: {tools} tools × 5 revisions, 0 of {} cells failing, ", tools * 5);
    assert!(summary.starts_with(&clean), "{summary}");
}

#[test]
fn a_server_that_cannot_be_reached_is_exit_2() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let output = check(&[&format!("http://127.0.0.1:{port}/mcp")]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with(&format!("toolwire: cannot reach http://127.0.0.1:{port}/mcp: ")),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn a_command_that_does_not_start_is_exit_2() {
    let output = check(&["--", "/nonexistent/mcp-server"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with("toolwire: cannot start `/nonexistent/mcp-server`: "), "{stderr}");
}

#[test]
fn bad_usage_is_exit_2() {
    for (args, message) in [
        (&[][..], "toolwire: give the server's URL or a command after `--`\n"),
        (
            &["http://127.0.0.1:1/mcp", "--", "server"][..],
            "toolwire: give a URL or a command after `--`, not both\n",
        ),
        (
            &["http://127.0.0.1:1/mcp", "--format", "yaml"][..],
            "toolwire: --format: unknown format `yaml`; expected text, json or html\n",
        ),
        (
            &["http://127.0.0.1:1/mcp", "--header", "nocolon"][..],
            "toolwire: --header `nocolon`: expected `Name: value`\n",
        ),
    ] {
        let output = check(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), message, "{args:?}");
    }
    let output = check(&["http://127.0.0.1:1/mcp", "--host", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("toolwire: --host: unknown host `nope`; known: generic, "),
        "{stderr}"
    );
    assert!(stderr.contains(", claude-code") && stderr.contains(", claude-desktop"), "{stderr}");
}

#[test]
fn a_server_behind_bearer_auth_is_checked_with_the_token() {
    let config = "[[auth.tokens]]\ntoken = \"check-token-1\"\nprincipal = \"checker\"\nprivileges = [\"catalog:write\"]\n";
    let server = Server::start(Some(config), &[]);
    let refused = check(&[&server.url]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.starts_with("toolwire: HTTP 401 without a JSON-RPC message"), "{stderr}");
    let output = check(&[
        &server.url,
        "--token",
        "check-token-1",
        "--allow-writes",
        "--host",
        "none",
        "--format",
        "json",
    ]);
    let report = assert_clean(&output);
    assert_eq!(report["summary"]["calls"].as_u64().map(|calls| calls > 0), Some(true));
}

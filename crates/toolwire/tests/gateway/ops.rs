//! What an operator sees: `/healthz`, `/readyz`, `/metrics` (counters moving with calls, a
//! custom path, behind MCP auth only when configured), `serve --check`, and JSON log lines.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::gateway::{HttpClient, Server};

fn get(url: &str, token: Option<&str>) -> (u16, String) {
    let mut request = reqwest::blocking::Client::new().get(url);
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let response = request.send().unwrap();
    (response.status().as_u16(), response.text().unwrap())
}

/// The value of the sample written exactly as `series` (name and labels), or 0.
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series).and_then(|rest| rest.strip_prefix(' ')))
        .map_or(0.0, |value| value.parse().unwrap())
}

#[test]
fn probes_and_metrics_follow_the_calls() {
    let server = Server::start(None, &[]);
    let base = server.url.trim_end_matches("/mcp").to_owned();
    assert_eq!(
        get(&format!("{base}/healthz"), None),
        (200, json!({"status": "alive"}).to_string())
    );
    assert_eq!(get(&format!("{base}/readyz"), None), (200, json!({"status": "ready"}).to_string()));

    let (status, before) = get(&format!("{base}/metrics"), None);
    assert_eq!(status, 200);
    let count =
        "toolwire_calls_total{tool=\"catalog_count\",revision=\"2025-06-18\",outcome=\"success\"}";
    assert_eq!(sample(&before, count), 0.0);
    let mut client = HttpClient::connect(&server.url, "2025-06-18", None);
    for _ in 0..3 {
        client.call("catalog_count", json!({}));
    }
    client.call("legacy_echo", json!({"text": "hi"}));
    client.call("catalog_export", json!({}));
    client.call("catalog_get", json!({"id": "x"}));
    client.call("no_such_tool", json!({}));
    let (_, after) = get(&format!("{base}/metrics"), None);
    assert_eq!(sample(&after, count), 3.0, "{after}");
    assert_eq!(sample(&after, "toolwire_call_duration_seconds_count{tool=\"catalog_count\"}"), 3.0);
    assert_eq!(sample(&after, "toolwire_result_bytes_count{tool=\"catalog_count\"}"), 3.0);
    assert_eq!(sample(&after, "toolwire_legacy_results_total{tool=\"legacy_echo\"}"), 1.0);
    assert_eq!(sample(&after, "toolwire_offloads_total{tool=\"catalog_export\"}"), 1.0);
    assert!(sample(&after, "toolwire_offload_bytes_total{tool=\"catalog_export\"}") > 65_536.0);
    assert_eq!(
        sample(
            &after,
            "toolwire_calls_total{tool=\"catalog_get\",revision=\"2025-06-18\",outcome=\"invalid_arguments\"}"
        ),
        1.0
    );
    assert_eq!(
        sample(
            &after,
            "toolwire_calls_total{tool=\"(unknown)\",revision=\"2025-06-18\",outcome=\"unknown_tool\"}"
        ),
        1.0
    );
    assert!(sample(&after, "toolwire_open_connections") >= 1.0, "{after}");
    assert_eq!(sample(&after, "toolwire_open_sessions"), 1.0, "{after}");
}

#[test]
fn metrics_path_and_auth_are_configurable() {
    let config = "[ops]\nmetrics_path = \"/internal/prom\"\nrequire_auth = true\n\n[[auth.tokens]]\ntoken = \"ops-token\"\nprincipal = \"ops\"\n";
    let server = Server::start(Some(config), &[]);
    let base = server.url.trim_end_matches("/mcp").to_owned();
    assert_eq!(get(&format!("{base}/metrics"), Some("ops-token")).0, 404);
    assert_eq!(get(&format!("{base}/internal/prom"), None).0, 401);
    let (status, text) = get(&format!("{base}/internal/prom"), Some("ops-token"));
    assert_eq!(status, 200);
    assert!(text.contains("# TYPE toolwire_calls_total counter"), "{text}");
    assert_eq!(get(&format!("{base}/healthz"), None).0, 401);
    assert_eq!(get(&format!("{base}/readyz"), Some("ops-token")).0, 200);
    // Without OAuth there is no Protected Resource Metadata.
    assert_eq!(get(&format!("{base}/.well-known/oauth-protected-resource"), None).0, 404);
}

fn check(config: &str) -> (Option<i32>, String, String) {
    check_with(config, &[])
}

fn check_with(config: &str, env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolwire.toml");
    std::fs::write(&path, config).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["serve", "--check", "--listen", "127.0.0.1:0", "--config"])
        .arg(&path)
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .env_remove("TOOLWIRE_PHASE")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&output.stdout).into_owned();
    let err = String::from_utf8_lossy(&output.stderr).into_owned();
    let out = out.replace(&path.display().to_string(), "<config>");
    (output.status.code(), out.replace(&dir.path().display().to_string(), "<dir>"), err)
}

#[test]
fn serve_check_says_what_would_be_served() {
    let (code, out, err) = check(
        "phase = \"spec\"\ndemo_tools = false\n\n[[auth.tokens]]\ntoken = \"t\"\nprincipal = \"ann\"\n\n[[tools]]\nname = \"orders_find\"\ndescription = \"Finds orders.\"\nendpoint = \"http://127.0.0.1:1/find\"\n",
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        "config: <config>\nlisten: http://127.0.0.1:0/mcp\nops: /healthz /readyz /metrics on the MCP address\nphase: spec\nstore: redb in <dir>/data (takes writes)\nauth: 1 static token(s), anonymous off\ntools (1): orders_find\nok: the configuration would serve\n"
    );

    // A schema that is not one, an unreachable issuer, a Redis nobody runs: exit 2, saying why.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = closed.local_addr().unwrap();
    drop(closed);
    let cases = [
        (
            "[[tools]]\nname = \"t\"\ndescription = \"d\"\nendpoint = \"http://x/\"\ninput_schema = { type = 7 }\n".to_owned(),
            "tool `t`: the input schema must have",
        ),
        (
            format!("[auth.oauth]\nissuer = \"http://{dead}\"\naudience = \"https://t.test/mcp\"\n"),
            "signing keys could not be fetched",
        ),
        (
            format!("[store]\nurl = \"redis://{dead}\"\nsigning_keys_env = \"K\"\n"),
            "Redis",
        ),
    ];
    let keys =
        json!({"keys": [{"kid": "k", "secret": "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I"}]});
    for (config, expected) in cases {
        let (code, out, err) = check_with(&config, &[("K", &keys.to_string())]);
        assert_eq!(code, Some(2), "{config}: {out} {err}");
        assert!(err.contains(expected), "{config}: {err}");
        assert!(out.is_empty(), "{out}");
    }
}

#[test]
fn json_log_lines_carry_the_same_fields() {
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--data-dir"])
        .arg(dir.path().join("data"))
        .env("TOOLWIRE_LOG_FORMAT", "json")
        .env("TOOLWIRE_LOG", "info,rmcp=warn")
        .env_remove("TOOLWIRE_PHASE")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let started: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(started["message"], format!("toolwire serving MCP on http://127.0.0.1:{port}/mcp"));
    let mut client =
        HttpClient::connect(&format!("http://127.0.0.1:{port}/mcp"), "2025-11-25", None);
    client.call("catalog_count", json!({}));
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut call = Value::Null;
    while Instant::now() < deadline {
        let line: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        if line["message"] == "tools/call" {
            call = line;
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(call["level"], "INFO", "{call}");
    assert_eq!(call["tool"], "catalog_count");
    assert_eq!(call["revision"], "2025-11-25");
    assert_eq!(call["outcome"], "success");
    assert!(call["bytes"].as_u64().unwrap() > 0);
    assert_eq!(call["offloaded"], false);
    assert!(call["duration_ms"].is_u64());
    assert!(call["timestamp"].is_string());

    let output = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["serve", "--check"])
        .env("TOOLWIRE_LOG_FORMAT", "xml")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("TOOLWIRE_LOG_FORMAT: `xml` is not a log format")
    );
}

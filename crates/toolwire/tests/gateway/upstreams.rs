//! toolwire in front of MCP servers (DESIGN §15): here second toolwires with the demo tools, over
//! stdio and Streamable HTTP, so that what the upstream answers is known exactly. The faults:
//! a stdio upstream killed mid-run, an HTTP upstream stopped and started again, an upstream down
//! at start — the gap is an `upstream_unavailable` result, the other upstreams keep serving, and
//! the tools come back without restarting toolwire. The reference servers nobody here wrote are
//! checked by `scripts/clients`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::gateway::{HttpClient, Server};

const REVISIONS: [&str; 5] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];

/// An `[[upstreams]]` table for a toolwire on stdio with the demo tools, its data in
/// `dir/<name>`, writing its process id to `dir/<name>.pid` (to be killed).
pub(crate) fn stdio_upstream(dir: &std::path::Path, name: &str) -> String {
    let data = dir.join(name);
    let pid = dir.join(format!("{name}.pid"));
    format!(
        r#"
[[upstreams]]
name = "{name}"
command = ["sh", "-c", "echo $$ > \"$0\"; exec \"$1\" serve --stdio --data-dir \"$2\"", {pid:?}, {bin:?}, {data:?}]
env = {{ TOOLWIRE_LOG = "error" }}
tool_prefix = "{name}_"
tools = ["catalog_*"]
timeout_ms = 3000
"#,
        bin = env!("CARGO_BIN_EXE_toolwire"),
        pid = pid.display().to_string(),
        data = data.display().to_string(),
    )
}

/// An `[[upstreams]]` table for a Streamable HTTP upstream at `url`.
fn http_upstream(name: &str, url: &str) -> String {
    format!(
        "\n[[upstreams]]\nname = \"{name}\"\nurl = \"{url}\"\ntool_prefix = \"{name}_\"\ntools = [\"catalog_*\"]\ntimeout_ms = 3000\n"
    )
}

const HEAD: &str = "demo_tools = false\n\n[auth]\nanonymous = true\n";

fn names(client: &mut HttpClient) -> Vec<String> {
    let listed = client.request("tools/list", json!({}));
    let mut names: Vec<String> = listed["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {listed}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    names.sort();
    names
}

/// Asserts that `tool` answered the product of id 42, as the revision renders it.
pub(crate) fn assert_product(revision: &str, answer: &Value) {
    let result = &answer["result"];
    assert_ne!(result["isError"], json!(true), "{revision}: {answer}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains(r#""name":"Oak lamp 42""#), "{revision}: {answer}");
    assert_eq!(result["content"].as_array().map(Vec::len), Some(1), "{revision}: {answer}");
    // `structuredContent` exists from 2025-06-18 on.
    if matches!(revision, "2024-11-05" | "2025-03-26") {
        assert!(result.get("structuredContent").is_none(), "{revision}: {answer}");
    } else {
        assert_eq!(result["structuredContent"]["id"], json!(42), "{revision}: {answer}");
    }
}

/// The text of an `upstream_unavailable` result, or a panic saying what came instead.
pub(crate) fn unavailable_text(answer: &Value) -> String {
    let result = &answer["result"];
    assert_eq!(result["isError"], json!(true), "{answer}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    assert!(text.contains("upstream_unavailable"), "{answer}");
    text
}

/// Calls `tool` until it succeeds, for at most `limit`; the last answer otherwise.
fn until_served(client: &mut HttpClient, tool: &str, limit: Duration) -> Value {
    let deadline = Instant::now() + limit;
    loop {
        let answer = client.call(tool, json!({"id": 42}));
        if answer["result"]["isError"] != json!(true) || Instant::now() >= deadline {
            return answer;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn get(url: &str) -> (u16, String) {
    let response = reqwest::blocking::get(url).unwrap();
    (response.status().as_u16(), response.text().unwrap())
}

fn base(server: &Server) -> String {
    server.url.trim_end_matches("/mcp").to_owned()
}

#[test]
fn a_stdio_upstream_is_re_served_under_its_prefix_at_every_revision() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!("{HEAD}{}", stdio_upstream(dir.path(), "inner"));
    let server = Server::start_in(dir, Some(&text), &[]);
    // toolwire speaks to a toolwire upstream at the newest revision: 2026-07-28.
    assert!(server.stderr().contains("upstream connected"), "{}", server.stderr());
    assert!(server.stderr().contains("2026-07-28"), "{}", server.stderr());
    for revision in REVISIONS {
        let mut client = HttpClient::connect(&server.url, revision, None);
        let names = names(&mut client);
        assert!(names.contains(&"inner_catalog_get".to_owned()), "{revision}: {names:?}");
        assert!(names.iter().all(|n| n.starts_with("inner_catalog_")), "{revision}: {names:?}");
        assert_product(revision, &client.call("inner_catalog_get", json!({"id": 42})));
        let missing = client.call("inner_catalog_get", json!({"id": 999_999}));
        assert_eq!(missing["result"]["isError"], json!(true), "{revision}: {missing}");
    }
    let (_, metrics) = get(&format!("{}/metrics", base(&server)));
    for line in [
        "toolwire_upstream_calls_total{upstream=\"inner\",outcome=\"ok\"} 5",
        "toolwire_upstream_calls_total{upstream=\"inner\",outcome=\"tool_error\"} 5",
        "toolwire_upstream_up{upstream=\"inner\"} 1",
    ] {
        assert!(metrics.lines().any(|l| l == line), "missing {line} in\n{metrics}");
    }
}

#[test]
fn a_killed_stdio_upstream_is_restarted_and_the_others_keep_serving() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "{HEAD}{}{}",
        stdio_upstream(dir.path(), "first"),
        stdio_upstream(dir.path(), "second")
    );
    let pid_file = dir.path().join("first.pid");
    let server = Server::start_in(dir, Some(&text), &[]);
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    assert_product("2025-11-25", &client.call("first_catalog_get", json!({"id": 42})));

    let pid = std::fs::read_to_string(&pid_file).unwrap().trim().to_owned();
    let killed = std::process::Command::new("kill").args(["-KILL", &pid]).status().unwrap();
    assert!(killed.success());
    assert!(
        server.logs_within("upstream not connected", Duration::from_secs(10)),
        "{}",
        server.stderr()
    );
    // The call in the gap (or, if the restart was quicker, after it) comes back well within
    // the upstream's limit; the tool stays listed.
    let started = Instant::now();
    let answer = client.call("first_catalog_get", json!({"id": 42}));
    assert!(started.elapsed() < Duration::from_secs(3), "{answer}");
    if answer["result"]["isError"] == json!(true) {
        let text = unavailable_text(&answer);
        assert!(text.contains("Try again later"), "{text}");
        assert!(!text.contains("serve --stdio"), "the command line leaked: {text}");
    }
    assert!(names(&mut client).contains(&"first_catalog_get".to_owned()));
    assert_product("2025-11-25", &client.call("second_catalog_get", json!({"id": 42})));

    assert_product(
        "2025-11-25",
        &until_served(&mut client, "first_catalog_get", Duration::from_secs(20)),
    );
    let again = std::fs::read_to_string(&pid_file).unwrap().trim().to_owned();
    assert_ne!(pid, again, "the upstream was not started again");
    let (_, metrics) = get(&format!("{}/metrics", base(&server)));
    assert!(
        metrics
            .lines()
            .any(|l| l.starts_with("toolwire_upstream_restarts_total{upstream=\"first\"} ")),
        "{metrics}"
    );
    assert!(
        !metrics
            .lines()
            .any(|l| l.starts_with("toolwire_upstream_restarts_total{upstream=\"second\"} ")),
        "{metrics}"
    );
}

#[test]
fn an_http_upstream_stopped_and_started_again_is_served_again() {
    let upstream = Server::start(Some("[auth]\nanonymous = true\n"), &[]);
    let address = upstream.url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        "{HEAD}{}{}",
        http_upstream("remote", &upstream.url),
        stdio_upstream(dir.path(), "local")
    );
    let server = Server::start_in(dir, Some(&text), &[]);
    for revision in REVISIONS {
        let mut client = HttpClient::connect(&server.url, revision, None);
        assert_product(revision, &client.call("remote_catalog_get", json!({"id": 42})));
    }
    let mut client = HttpClient::connect(&server.url, "2025-06-18", None);

    let upstream_dir = upstream.stop();
    let started = Instant::now();
    let answer = client.call("remote_catalog_get", json!({"id": 42}));
    assert!(started.elapsed() < Duration::from_secs(4), "{answer}");
    let text = unavailable_text(&answer);
    assert!(!text.contains(&address), "the URL leaked: {text}");
    assert_product("2025-06-18", &client.call("local_catalog_get", json!({"id": 42})));

    let _upstream =
        Server::start_at(&address, upstream_dir, Some("[auth]\nanonymous = true\n"), &[]);
    assert_product(
        "2025-06-18",
        &until_served(&mut client, "remote_catalog_get", Duration::from_secs(20)),
    );
}

#[test]
fn an_upstream_down_at_start_joins_when_it_comes_up() {
    // A port nothing listens on yet: taken, noted and given back.
    let address = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let url = format!("http://{address}/mcp");
    let text = format!("{HEAD}{}", http_upstream("late", &url));
    let server = Server::start(Some(&text), &[]);
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    assert!(names(&mut client).is_empty());
    let (status, body) = get(&format!("{}/readyz", base(&server)));
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("the tool source late cannot serve"), "{body}");

    let _upstream = Server::start_at(
        &address.to_string(),
        tempfile::tempdir().unwrap(),
        Some("[auth]\nanonymous = true\n"),
        &[],
    );
    let deadline = Instant::now() + Duration::from_secs(40);
    while !names(&mut client).contains(&"late_catalog_get".to_owned()) {
        assert!(Instant::now() < deadline, "the tools never appeared: {}", server.stderr());
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_product("2025-11-25", &client.call("late_catalog_get", json!({"id": 42})));
    assert_eq!(get(&format!("{}/readyz", base(&server))).0, 200);
}

#[test]
fn serve_check_connects_to_each_upstream_and_lists_its_tools() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("toolwire.toml");
    let down = "\n[[upstreams]]\nname = \"gone\"\ncommand = [\"/nonexistent/mcp-server\"]\n";
    std::fs::write(&config, format!("{HEAD}{}{down}", stdio_upstream(dir.path(), "inner")))
        .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["serve", "--check", "--config"])
        .arg(&config)
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .env("TOOLWIRE_LOG", "error")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("upstream inner: connected at 2026-07-28\n"), "{stdout}");
    assert!(
        stdout.contains(
            "upstream gone: not connected (upstream `gone`: cannot start `/nonexistent/mcp-server`"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("inner_catalog_get"), "{stdout}");
}

#[test]
fn resources_and_prompts_of_an_upstream_are_re_served_to_privileged_callers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        r#"demo_tools = false

[auth]
anonymous = true

[[auth.tokens]]
token = "member-token"
principal = "member"
privileges = ["conf:use"]

[[upstreams]]
name = "conf"
command = [{bin:?}, "serve", "--stdio", "--conformance", "--data-dir", {data:?}]
env = {{ TOOLWIRE_LOG = "error" }}
tool_prefix = "conf_"
tools = ["catalog_get"]
privileges = ["conf:use"]
"#,
        bin = env!("CARGO_BIN_EXE_toolwire"),
        data = dir.path().join("inner").display().to_string(),
    );
    let server = Server::start_in(dir, Some(&text), &[]);
    let mut member = HttpClient::connect(&server.url, "2025-11-25", Some("member-token"));

    let listed = member.request("resources/list", json!({}));
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    assert_eq!(uris, ["test://static-text", "test://static-binary"], "{listed}");
    let templates = member.request("resources/templates/list", json!({}));
    let templates: Vec<&str> = templates["result"]["resourceTemplates"]
        .as_array()
        .unwrap_or_else(|| panic!("{templates}"))
        .iter()
        .filter_map(|t| t["uriTemplate"].as_str())
        .collect();
    // The gateway's own stored results once (not the upstream toolwire's too), then the
    // upstream's.
    assert_eq!(templates.iter().filter(|t| t.starts_with("toolwire://results/")).count(), 1);
    assert!(templates.contains(&"test://template/{id}/data"), "{templates:?}");

    let read = member.request("resources/read", json!({"uri": "test://static-text"}));
    assert_eq!(
        read["result"]["contents"][0]["text"],
        json!("This is the content of the static text resource."),
        "{read}"
    );
    let read = member.request("resources/read", json!({"uri": "test://template/7/data"}));
    let text = read["result"]["contents"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains('7'), "{read}");

    let prompts = member.request("prompts/list", json!({}));
    let names: Vec<&str> = prompts["result"]["prompts"]
        .as_array()
        .unwrap_or_else(|| panic!("{prompts}"))
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(names.contains(&"conf_test_simple_prompt"), "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("conf_")), "{names:?}");
    let got = member.request("prompts/get", json!({"name": "conf_test_simple_prompt"}));
    assert_eq!(got["result"]["messages"][0]["role"], json!("user"), "{got}");
    let unknown = member.request("prompts/get", json!({"name": "test_simple_prompt"}));
    assert!(
        unknown["error"]["message"].as_str().unwrap_or_default().contains("unknown prompt"),
        "{unknown}"
    );

    // The upstream's privileges hold for its resources and prompts as for its tools.
    let mut anonymous = HttpClient::connect(&server.url, "2025-11-25", None);
    let refused = anonymous.request("resources/read", json!({"uri": "test://static-text"}));
    assert!(
        refused["error"]["message"].as_str().unwrap_or_default().contains("conf:use"),
        "{refused}"
    );
    let refused = anonymous.request("prompts/get", json!({"name": "conf_test_simple_prompt"}));
    assert!(
        refused["error"]["message"].as_str().unwrap_or_default().contains("conf:use"),
        "{refused}"
    );
}

#[test]
fn an_upstream_s_progress_reaches_the_client_under_its_own_token() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = format!(
        r#"{HEAD}
[[upstreams]]
name = "conf"
command = [{bin:?}, "serve", "--stdio", "--conformance", "--data-dir", {data:?}]
env = {{ TOOLWIRE_LOG = "error" }}
tools = ["test_tool_with_progress"]
"#,
        bin = env!("CARGO_BIN_EXE_toolwire"),
        data = dir.path().join("inner").display().to_string(),
    );
    let server = Server::start_in(dir, Some(&text), &[]);
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    let params = json!({
        "name": "test_tool_with_progress",
        "arguments": {},
        "_meta": {"progressToken": "mine-7"},
    });
    let body = client.request_text("tools/call", params);
    let events: Vec<Value> = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect();
    let progress: Vec<(Value, Value)> = events
        .iter()
        .filter(|e| e["method"] == json!("notifications/progress"))
        .map(|e| (e["params"]["progressToken"].clone(), e["params"]["progress"].clone()))
        .collect();
    assert_eq!(
        progress,
        [
            (json!("mine-7"), json!(0.0)),
            (json!("mine-7"), json!(50.0)),
            (json!("mine-7"), json!(100.0))
        ],
        "{body}"
    );
    let last = events.last().unwrap_or_else(|| panic!("{body}"));
    // The compat phase's envelope, then the upstream's text once (not its envelope again).
    let content = last["result"]["content"].as_array().unwrap_or_else(|| panic!("{body}"));
    assert_eq!(content.len(), 2, "{body}");
    assert_eq!(content[1]["text"], json!("Progress test completed."), "{body}");
}

/// The headers of every request a recording proxy passed on, one line per request.
#[derive(Clone, Default)]
struct Heard(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

/// Passes a request on to the upstream at `target` (buffered; the standalone GET stream is
/// refused with 405, which a client takes as "no stream"), noting its headers.
async fn recording_proxy(
    axum::extract::State((heard, target)): axum::extract::State<(Heard, String)>,
    request: axum::extract::Request,
) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    let (parts, body) = request.into_parts();
    let headers: Vec<String> = parts
        .headers
        .iter()
        .map(|(name, value)| format!("{name}: {}", String::from_utf8_lossy(value.as_bytes())))
        .collect();
    heard.0.lock().unwrap().push(headers.join("\n"));
    if parts.method == http::Method::GET {
        return http::StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let body = axum::body::to_bytes(body, 64 << 20).await.unwrap_or_default();
    let mut forward =
        reqwest::Client::new().request(parts.method, format!("{target}{}", parts.uri.path()));
    for (name, value) in &parts.headers {
        if name != http::header::HOST && name != http::header::CONTENT_LENGTH {
            forward = forward.header(name, value);
        }
    }
    let Ok(answer) = forward.body(body).send().await else {
        return http::StatusCode::BAD_GATEWAY.into_response();
    };
    let mut response = axum::response::Response::builder().status(answer.status());
    for (name, value) in answer.headers() {
        if name != http::header::CONTENT_LENGTH && name != http::header::TRANSFER_ENCODING {
            response = response.header(name, value);
        }
    }
    let bytes = answer.bytes().await.unwrap_or_default();
    response.body(axum::body::Body::from(bytes)).unwrap()
}

#[test]
fn an_upstream_never_learns_the_caller_s_token() {
    const SECRET: &str = "s3cret-caller-token";
    let upstream = Server::start(Some("[auth]\nanonymous = true\n"), &[]);
    let target = upstream.url.trim_end_matches("/mcp").to_owned();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let proxy = format!("http://{}/mcp", listener.local_addr().unwrap());
    let heard = Heard::default();
    let router = axum::Router::new().fallback(recording_proxy).with_state((heard.clone(), target));
    runtime.spawn(async move { axum::serve(listener, router).await });

    let text = format!(
        "demo_tools = false\n\n[[auth.tokens]]\ntoken = \"{SECRET}\"\nprincipal = \"ann\"\n{}",
        http_upstream("remote", &proxy)
    );
    let server = Server::start(Some(&text), &[]);
    for revision in ["2025-06-18", "2026-07-28"] {
        let mut client = HttpClient::connect(&server.url, revision, Some(SECRET));
        let answer = until_served(&mut client, "remote_catalog_get", Duration::from_secs(20));
        assert_product(revision, &answer);
    }
    let heard = heard.0.lock().unwrap();
    assert!(heard.iter().any(|h| h.contains("mcp-protocol-version")), "no MCP request: {heard:?}");
    for headers in heard.iter() {
        assert!(!headers.contains(SECRET), "the caller's token reached the upstream: {headers}");
        assert!(!headers.to_ascii_lowercase().contains("authorization"), "{headers}");
    }
}

//! Upstreams are untrusted peers (DESIGN §15): an MCP server the gateway does not control may
//! answer 100 MB, never answer, answer garbage, flood notifications and `list_changed`, storm
//! the gateway with requests, declare thousands of tools or name them with control characters.
//! Each test puts the hostile server (`hostile_upstream.py`, standard-library Python on stdio,
//! or on Streamable HTTP for the answer that is too large, never comes, or is garbage) beside a well-behaved upstream (a second toolwire on stdio) and the gateway's native demo
//! tools, and asserts that the hostile call ends within its limit as `upstream_unavailable`
//! (or the misbehaviour is bounded), that the others keep answering during and after, and that
//! the gateway's memory stays bounded.
//!
//! The bounds, all in `toolwire-gateway/src/upstreams/`: a stdio message above 16 MiB is skipped
//! as it is read and answered in its place with an error (an HTTP answer above 64 MiB refused); at most 1000 tools and 16 MiB of tool definitions per upstream (10 000
//! resources, templates or prompts and 16 MiB of each), from at most 200 pages; `list_changed`
//! re-lists at most once a second; 64 progress notifications queued per call; tool names outside
//! `[A-Za-z0-9_.-]` refused, control characters removed from descriptions and titles, and the
//! upstream's words logged escaped.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::gateway::{HttpClient, Server};
use crate::upstreams::{assert_product, stdio_upstream, unavailable_text};

/// The hostile upstream's call limit (`timeout_ms`).
const LIMIT: Duration = Duration::from_secs(3);

/// The hostile server's script.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gateway/hostile_upstream.py")
}

/// A gateway with the demo tools, a well-behaved upstream `good` and the hostile upstream in
/// `mode` (its tools under `hostile_`); the file where the hostile server counts `tools/list`.
fn gateway(mode: &str) -> (Server, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("hostile.listed");
    let command = format!(
        "command = [\"python3\", {script:?}, \"{mode}\", {state:?}]",
        script = script().display().to_string(),
        state = state.display().to_string(),
    );
    (start_beside_good(dir, &command), state)
}

/// Starts a gateway in `dir` with the demo tools, the upstream `good` and the hostile upstream
/// reached as `reach` says (its `command` or `url` line).
fn start_beside_good(dir: tempfile::TempDir, reach: &str) -> Server {
    let text = format!(
        r#"[auth]
anonymous = true
{good}
[[upstreams]]
name = "hostile"
{reach}
tool_prefix = "hostile_"
timeout_ms = {limit}
"#,
        good = stdio_upstream(dir.path(), "good"),
        limit = LIMIT.as_millis(),
    );
    Server::start_in(dir, Some(&text), &[])
}

/// The hostile server serving Streamable HTTP on a loopback port, killed on drop.
struct HttpHostile {
    child: std::process::Child,
    url: String,
}

impl HttpHostile {
    fn start(mode: &str, dir: &Path) -> Self {
        let port_file = dir.join("hostile.port");
        let child = std::process::Command::new("python3")
            .arg(script())
            .args([mode, "", "--http"])
            .arg(&port_file)
            .stdin(std::process::Stdio::null())
            .spawn()
            .expect("start the hostile server");
        let deadline = Instant::now() + Duration::from_secs(10);
        let port = loop {
            if let Ok(port) = std::fs::read_to_string(&port_file) {
                break port;
            }
            assert!(Instant::now() < deadline, "the hostile server did not start");
            std::thread::sleep(Duration::from_millis(20));
        };
        Self { child, url: format!("http://127.0.0.1:{}/mcp", port.trim()) }
    }
}

impl Drop for HttpHostile {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Like [`gateway`] with the hostile server over Streamable HTTP.
fn gateway_http(mode: &str) -> (Server, HttpHostile) {
    let dir = tempfile::tempdir().expect("tempdir");
    let hostile = HttpHostile::start(mode, dir.path());
    let url = format!("url = \"{}\"", hostile.url);
    (start_beside_good(dir, &url), hostile)
}

/// The gateway's resident memory in KiB.
fn rss_kib(server: &Server) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmRSS in {status}"))
}

/// The native demo tool and the well-behaved upstream's tool each answer the product of id 42
/// within `within`.
fn others_serve(client: &mut HttpClient, within: Duration) {
    for tool in ["catalog_get", "good_catalog_get"] {
        let started = Instant::now();
        let answer = client.call(tool, json!({"id": 42}));
        assert_product("2025-11-25", &answer);
        assert!(started.elapsed() < within, "{tool} took {:?}", started.elapsed());
    }
}

/// Calls the hostile tool on a thread of its own while the others are called here (each
/// answering within `within`); the hostile answer, how long it took, and the highest resident
/// memory seen meanwhile.
fn hostile_call_beside_others(server: &Server, within: Duration) -> (Value, Duration, u64) {
    let url = server.url.clone();
    let hostile = std::thread::spawn(move || {
        let mut client = HttpClient::connect(&url, "2025-11-25", None);
        let started = Instant::now();
        let answer = client.call("hostile_hostile", json!({}));
        (answer, started.elapsed())
    });
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    let mut peak = rss_kib(server);
    while !hostile.is_finished() {
        others_serve(&mut client, within);
        peak = peak.max(rss_kib(server));
        std::thread::sleep(Duration::from_millis(100));
    }
    let (answer, took) = hostile.join().unwrap();
    others_serve(&mut client, within);
    (answer, took, peak.max(rss_kib(server)))
}

/// Asserts an `upstream_unavailable` result that names neither the command nor the script.
fn assert_unavailable(answer: &Value) -> String {
    let text = unavailable_text(answer);
    let error = &answer["result"]["structuredContent"]["error"];
    assert_eq!(error["code"], json!("upstream_unavailable"), "{answer}");
    assert!(text.contains("Tool hostile of hostile is unavailable"), "{text}");
    assert!(!text.contains("python3"), "the command line leaked: {text}");
    assert!(!text.contains("hostile_upstream.py"), "the command line leaked: {text}");
    text
}

/// Asserts the hostile server's normal answer: the text `ok` (after the compat phase's
/// envelope).
fn assert_ok(answer: &Value) {
    assert_ne!(answer["result"]["isError"], json!(true), "{answer}");
    let content = answer["result"]["content"].as_array().unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(content.last().map(|c| &c["text"]), Some(&json!("ok")), "{answer}");
}

/// The definitions of the tools the gateway lists.
fn listed(client: &mut HttpClient) -> Vec<Value> {
    let listed = client.request("tools/list", json!({}));
    listed["result"]["tools"].as_array().unwrap_or_else(|| panic!("no tools in {listed}")).clone()
}

#[test]
fn a_100_mb_answer_is_dropped_and_the_call_ends_unavailable() {
    let (server, _) = gateway("huge");
    let before = rss_kib(&server);
    let (answer, took, peak) = hostile_call_beside_others(&server, Duration::from_secs(5));
    // The stdio message cap (16 MiB) skips the line as it is read, never holding it whole, and
    // stands in an error answer to its id: the call ends without waiting for its limit.
    let text = assert_unavailable(&answer);
    assert!(text.contains("its answer was over the limit of 16 MiB for one message"), "{text}");
    assert!(text.contains("The operator should check the upstream server"), "{text}");
    assert!(took < LIMIT, "the call took {took:?}, as long as its limit");
    assert!(
        peak < before + 128 * 1024,
        "the gateway grew from {before} KiB to {peak} KiB for a 100 MB answer"
    );
}

#[test]
fn over_http_a_100_mb_answer_ends_unavailable_with_memory_bounded() {
    let (server, _hostile) = gateway_http("huge");
    let before = rss_kib(&server);
    let (answer, took, peak) = hostile_call_beside_others(&server, Duration::from_secs(5));
    // The answer is read up to the 64 MiB cap of one HTTP answer and refused there.
    let text = assert_unavailable(&answer);
    assert!(text.contains("its answer was over the limit of 64 MiB for one answer"), "{text}");
    assert!(text.contains("The operator should check the upstream server"), "{text}");
    assert!(took < LIMIT + Duration::from_secs(2), "the call took {took:?}");
    assert!(
        peak < before + 160 * 1024,
        "the gateway grew from {before} KiB to {peak} KiB for a 100 MB answer"
    );
}

/// What the `expire` upstream says a call came with: its JSON-RPC id and session.
fn came_with(answer: &Value) -> Value {
    let content = answer["result"]["content"].as_array().unwrap_or_else(|| panic!("{answer}"));
    let text =
        content.last().and_then(|c| c["text"].as_str()).unwrap_or_else(|| panic!("{answer}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn over_http_a_call_goes_the_lean_way_and_an_expired_session_is_opened_again() {
    let (server, _hostile) = gateway_http("expire");
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    // The first call finds session s1 gone (404): it is made again through rmcp's client, which
    // opens session s2 and calls in it (rmcp's ids are numbers).
    let first = came_with(&client.call("hostile_hostile", json!({})));
    assert_eq!(first["session"], json!("s2"), "{first}");
    assert!(first["id"].is_number(), "{first}");
    // Later calls go the lean way (the gateway's own string ids) in the session rmcp opened.
    for _ in 0..2 {
        let later = came_with(&client.call("hostile_hostile", json!({})));
        assert_eq!(later["session"], json!("s2"), "{later}");
        let id = later["id"].as_str().unwrap_or_else(|| panic!("{later}"));
        assert!(id.starts_with("tw-"), "{later}");
    }
}

#[test]
fn over_http_silence_and_garbage_end_unavailable_and_others_keep_serving() {
    let (server, _hostile) = gateway_http("silent");
    let (answer, took, _) = hostile_call_beside_others(&server, Duration::from_secs(3));
    let text = assert_unavailable(&answer);
    assert!(text.contains("did not answer within 3000 ms"), "{text}");
    assert!(took >= LIMIT && took < LIMIT + Duration::from_secs(2), "the call took {took:?}");
    let (server, _hostile) = gateway_http("garbage");
    let (answer, took, _) = hostile_call_beside_others(&server, Duration::from_secs(3));
    let text = assert_unavailable(&answer);
    assert!(text.contains("its answer was not a JSON-RPC message"), "{text}");
    assert!(took < LIMIT, "the call took {took:?}, as long as its limit");
    let log = server.stderr();
    assert!(!log.contains('\u{1b}'), "a raw escape reached the log:\n{log}");
}

#[test]
fn an_upstream_that_never_answers_ends_unavailable_at_its_limit() {
    let (server, _) = gateway("silent");
    let (answer, took, _) = hostile_call_beside_others(&server, Duration::from_secs(3));
    let text = assert_unavailable(&answer);
    assert!(text.contains("did not answer within 3000 ms"), "{text}");
    assert!(text.contains("Try again later"), "{text}");
    assert!(took >= LIMIT && took < LIMIT + Duration::from_secs(2), "the call took {took:?}");
    // Again: the upstream is still connected, and a second call ends the same way.
    let (again, took, _) = hostile_call_beside_others(&server, Duration::from_secs(3));
    assert_unavailable(&again);
    assert!(took < LIMIT + Duration::from_secs(2), "the call took {took:?}");
}

#[test]
fn garbage_in_answer_to_a_call_ends_unavailable() {
    let (server, _) = gateway("garbage");
    let (answer, took, _) = hostile_call_beside_others(&server, Duration::from_secs(3));
    // The first answer that parses as JSON-RPC but is no tool result ends the call at once.
    let text = assert_unavailable(&answer);
    assert!(text.contains("its answer was not a tool result"), "{text}");
    assert!(text.contains("The operator should check the upstream server"), "{text}");
    assert!(took < Duration::from_secs(1), "the call took {took:?}");
    // The garbage did not end the connection for good: the tool is still listed.
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    assert!(listed(&mut client).iter().any(|t| t["name"] == json!("hostile_hostile")));
    let log = server.stderr();
    assert!(!log.contains('\u{1b}'), "a raw escape reached the log:\n{log}");
}

#[test]
fn a_notification_flood_is_bounded_and_re_listing_debounced() {
    let (server, state) = gateway("flood");
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    // The flood starts after the handshake; let it run a while.
    std::thread::sleep(Duration::from_secs(1));
    let before = rss_kib(&server);
    let listed_before: u64 = std::fs::read_to_string(&state).unwrap().trim().parse().unwrap();
    let flooding = Instant::now();
    let mut peak = before;
    while flooding.elapsed() < Duration::from_secs(5) {
        others_serve(&mut client, Duration::from_secs(2));
        let answer = client.call("hostile_hostile", json!({}));
        assert_ok(&answer);
        peak = peak.max(rss_kib(&server));
        std::thread::sleep(Duration::from_millis(100));
    }
    let seconds = flooding.elapsed().as_secs() + 1;
    let listed_after: u64 = std::fs::read_to_string(&state).unwrap().trim().parse().unwrap();
    // Thousands of `list_changed` a second, re-listed at most once a second.
    assert!(
        listed_after - listed_before <= seconds + 1,
        "{} listings in {seconds} s",
        listed_after - listed_before
    );
    assert!(peak < before + 64 * 1024, "the gateway grew from {before} KiB to {peak} KiB");
    let log = server.stderr();
    assert!(!log.contains('\u{1b}'), "a raw escape reached the log");
}

#[test]
fn a_progress_flood_on_a_call_reaches_its_client_bounded_and_in_order() {
    let (server, _) = gateway("flood");
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    let before = rss_kib(&server);
    let params = json!({
        "name": "hostile_hostile",
        "arguments": {},
        "_meta": {"progressToken": "mine-1"},
    });
    let started = Instant::now();
    let body = client.request_text("tools/call", params);
    assert!(
        started.elapsed() < LIMIT + Duration::from_secs(2),
        "the call took {:?}",
        started.elapsed()
    );
    let events: Vec<Value> = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect();
    let progress: Vec<&Value> =
        events.iter().filter(|e| e["method"] == json!("notifications/progress")).collect();
    // At most what the upstream sent (a client that reads slower than the upstream sends loses
    // some: the queue per call is bounded), under the client's own token, still rising.
    assert!(progress.len() <= 5_000, "{} notifications", progress.len());
    assert!(progress.iter().all(|p| p["params"]["progressToken"] == json!("mine-1")));
    let values: Vec<f64> =
        progress.iter().filter_map(|p| p["params"]["progress"].as_f64()).collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "progress went back");
    assert_ok(events.last().unwrap_or_else(|| panic!("{body}")));
    others_serve(&mut client, Duration::from_secs(2));
    let after = rss_kib(&server);
    assert!(after < before + 64 * 1024, "the gateway grew from {before} KiB to {after} KiB");
}

#[test]
fn a_request_storm_is_answered_without_starving_others() {
    let (server, _) = gateway("requests");
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    std::thread::sleep(Duration::from_secs(1));
    let before = rss_kib(&server);
    let storming = Instant::now();
    let mut peak = before;
    while storming.elapsed() < Duration::from_secs(5) {
        others_serve(&mut client, Duration::from_secs(2));
        let started = Instant::now();
        let answer = client.call("hostile_hostile", json!({}));
        assert!(started.elapsed() < LIMIT + Duration::from_secs(2), "{answer}");
        if answer["result"]["isError"] == json!(true) {
            assert_unavailable(&answer);
        } else {
            assert_ok(&answer);
        }
        peak = peak.max(rss_kib(&server));
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(peak < before + 64 * 1024, "the gateway grew from {before} KiB to {peak} KiB");
}

#[test]
fn twenty_thousand_tools_and_resources_are_capped_with_a_warning() {
    let (server, _) = gateway("many-tools");
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    let tools = listed(&mut client);
    let hostile = tools
        .iter()
        .filter(|t| t["name"].as_str().is_some_and(|n| n.starts_with("hostile_")))
        .count();
    assert_eq!(hostile, 1000, "the upstream's 20 000 tools are capped at 1000");
    assert!(
        server.logs_within("lists more than the gateway keeps", Duration::from_secs(5)),
        "{}",
        server.stderr()
    );
    others_serve(&mut client, Duration::from_secs(2));
    let answer = client.call("hostile_t00999", json!({}));
    assert_ok(&answer);
    // Its 20 000 resources: the first 10 000 kept.
    let resources = client.request("resources/list", json!({}));
    let hostile = resources["result"]["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("{resources}"))
        .iter()
        .filter(|r| r["uri"].as_str().is_some_and(|u| u.starts_with("hostile://")))
        .count();
    assert_eq!(hostile, 10_000, "the upstream's 20 000 resources are capped at 10 000");
    let beyond = client.call("hostile_t01000", json!({}));
    assert!(
        beyond.get("error").is_some() || beyond["result"]["isError"] == json!(true),
        "{beyond}"
    );
}

#[test]
fn tools_past_the_listing_budget_are_not_published() {
    let (server, _) = gateway("fat-tools");
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    let tools = listed(&mut client);
    let fat = tools
        .iter()
        .filter(|t| t["name"].as_str().is_some_and(|n| n.starts_with("hostile_fat")))
        .count();
    // 64 tools of a little over 1 MiB each; the definitions of one upstream may take 16 MiB
    // together: 15 fit.
    assert_eq!(fat, 15, "{fat} of the 64 fat tools were published");
    assert!(
        server.logs_within("lists more than the gateway keeps", Duration::from_secs(5)),
        "{}",
        server.stderr()
    );
    others_serve(&mut client, Duration::from_secs(2));
}

#[test]
fn control_characters_in_names_are_refused_and_logged_escaped() {
    let (server, _) = gateway("control-chars");
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    let tools = listed(&mut client);
    let hostile: Vec<&Value> = tools
        .iter()
        .filter(|t| t["name"].as_str().is_some_and(|n| n.starts_with("hostile_")))
        .collect();
    let names: Vec<&str> = hostile.iter().filter_map(|t| t["name"].as_str()).collect();
    // Only names MCP allows ([A-Za-z0-9_.-]) are published.
    assert_eq!(names, ["hostile_escaped_description", "hostile_hostile"], "{names:?}");
    let tool = hostile[0];
    let description = tool["description"].as_str().unwrap();
    // Newlines and tabs stay (descriptions are prose); every other control character goes.
    assert!(description.starts_with("first line\nsecond\tline "), "{description:?}");
    assert!(
        !description.chars().any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{description:?}"
    );
    let title = tool["title"].as_str().unwrap_or_default();
    assert!(!title.chars().any(char::is_control), "{title:?}");
    others_serve(&mut client, Duration::from_secs(2));

    // The refusals name each tool escaped, never raw.
    for escaped in [r"bad\u{1b}[31mred", r"new\nline", r"bell\u{7}", r"nul\0byte"] {
        assert!(
            server.logs_within(escaped, Duration::from_secs(5)),
            "no warning naming {escaped}:\n{}",
            server.stderr()
        );
    }
    let log = server.stderr();
    for raw in ["\u{1b}", "\u{7}", "\0", "new\nline"] {
        assert!(!log.contains(raw), "{raw:?} reached the log raw:\n{log}");
    }
}

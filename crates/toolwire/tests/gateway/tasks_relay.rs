//! An upstream's own tasks relayed (DESIGN §15, §17): the upstream is a second toolwire with the
//! conformance fixtures over Streamable HTTP, reached at 2026-07-28, which answers a call of a
//! task tool with a task because the gateway declares the extension. The gateway polls it to its
//! end for a client answered in its request, runs it as a gateway task for a client that holds
//! one (2026-07-28's extension or 2025-11-25's `params.task`), and cancels it at the upstream
//! when it stops waiting — seen in the upstream's task metrics, since the upstream's task id
//! never leaves the gateway. A 2025-11-25 upstream (the official TypeScript SDK's, which must
//! run its `required` tools as tasks) is asked for a task once it refuses the plain call, and
//! its task is relayed the same way.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::gateway::{HttpClient, Server};

/// The upstream (the fixtures, anonymous) and the gateway in front of it, whose requests to the
/// upstream have `timeout_ms`.
fn gateways(timeout_ms: u64) -> (Server, Server) {
    let upstream = Server::start_flagged(&["--conformance"], Some("[auth]\nanonymous = true\n"));
    let gateway = gateway_before(&format!(
        r#"
[[upstreams]]
name = "conf"
url = "{url}"
tool_prefix = "conf_"
tools = ["slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "greet",
         "test_tool_with_task"]
timeout_ms = {timeout_ms}
"#,
        url = upstream.url,
    ));
    (upstream, gateway)
}

/// A gateway (phase `spec`, anonymous, no demo tools) in front of the `[[upstreams]]` table
/// `upstream`.
fn gateway_before(upstream: &str) -> Server {
    let head = "demo_tools = false\nphase = \"spec\"\n\n[auth]\nanonymous = true\n";
    Server::start(Some(&format!("{head}{upstream}")), &[])
}

/// `result` without its `_meta` (a timestamp, the server's name).
fn sans_meta(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(fields) = result.as_object_mut() {
        fields.remove("_meta");
    }
    result
}

/// The `_meta` of a 2026-07-28 request that declares the tasks extension.
fn with_tasks(mut params: Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    }});
    params
}

fn task_request(client: &mut HttpClient, method: &str, task_id: &str) -> Value {
    client.request(method, with_tasks(json!({"taskId": task_id})))
}

/// Calls `tool` declaring the extension and returns the id of the gateway task it became.
fn start_task(client: &mut HttpClient, tool: &str, arguments: Value) -> String {
    let created =
        client.request("tools/call", with_tasks(json!({"name": tool, "arguments": arguments})));
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{created}")).to_owned()
}

/// A result of one text block, as a client reads it (phase `spec`).
fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

/// `result` as 2026-07-28 has it.
fn complete(mut result: Value) -> Value {
    result["resultType"] = json!("complete");
    result
}

/// The gateway task `task_id` once `done(task)` holds, polled within ten seconds.
fn poll_until(client: &mut HttpClient, task_id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let got = task_request(client, "tasks/get", task_id)["result"].clone();
        if done(&got) {
            return got;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "still {got}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The `/metrics` page of `server`.
fn metrics(server: &Server) -> String {
    let url = server.url.replace("/mcp", "/metrics");
    reqwest::blocking::get(url).unwrap().text().unwrap()
}

/// Waits (ten seconds at most) until `server`'s metrics hold `line`.
fn assert_metric(server: &Server, line: &str) {
    let started = Instant::now();
    loop {
        let page = metrics(server);
        if page.lines().any(|l| l == line) {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "missing {line} in\n{page}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The `toolwire_tasks_total` line of the upstream's `tool` for `event`.
fn upstream_tasks(tool: &str, event: &str, count: u32) -> String {
    format!("toolwire_tasks_total{{tool=\"{tool}\",event=\"{event}\"}} {count}")
}

#[test]
fn an_upstream_task_is_polled_to_its_result_whatever_the_client_holds() {
    let (upstream, gateway) = gateways(3000);
    // The upstream has the extension: its tools may run as gateway tasks.
    let mut old = HttpClient::connect(&gateway.url, "2025-11-25", None);
    let listed = old.request("tools/list", json!({}));
    let slow = listed["result"]["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "conf_slow_compute"))
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(slow["execution"], json!({"taskSupport": "optional"}), "{slow}");

    let arguments = json!({"seconds": 0.5, "label": "sums"});
    let mut client = HttpClient::connect(&gateway.url, "2025-06-18", None);
    let got = client.call("conf_slow_compute", arguments.clone());
    assert_eq!(sans_meta(&got["result"]), text_result("Computed sums in 0.5 s"), "{got}");
    // The upstream made a task of it (the gateway declares the extension) and it completed.
    assert_metric(&upstream, &upstream_tasks("slow_compute", "created", 1));
    assert_metric(&upstream, &upstream_tasks("slow_compute", "completed", 1));

    // A 2026-07-28 client without the extension: the same, answered in its request.
    let mut bare = HttpClient::connect(&gateway.url, "2026-07-28", None);
    let got = bare.call("conf_slow_compute", arguments.clone());
    assert_eq!(sans_meta(&got["result"]), complete(text_result("Computed sums in 0.5 s")));
    assert_metric(&upstream, &upstream_tasks("slow_compute", "completed", 2));

    // A 2025-11-25 client that asks for a task of its revision's kind gets one, which relays
    // the upstream's.
    let call = json!({"name": "conf_slow_compute", "arguments": arguments, "task": {"ttl": 60000}});
    let created = old.request("tools/call", call);
    let id = created["result"]["task"]["taskId"].as_str().unwrap_or_else(|| panic!("{created}"));
    let result = old.request("tasks/result", json!({"taskId": id}));
    assert_eq!(
        result["result"]["content"],
        text_result("Computed sums in 0.5 s")["content"],
        "{result}"
    );
    assert_metric(&upstream, &upstream_tasks("slow_compute", "completed", 3));
    assert_metric(&gateway, "toolwire_upstream_calls_total{upstream=\"conf\",outcome=\"ok\"} 3");
}

#[test]
fn a_quick_upstream_call_is_answered_in_its_request_even_for_a_client_holding_tasks() {
    let (_upstream, gateway) = gateways(3000);
    let mut client = HttpClient::connect(&gateway.url, "2026-07-28", None);
    // `greet` answers at once at the upstream, which makes no task of it: neither does the
    // gateway, though the tool is published task-optional and the client holds the extension.
    let call = with_tasks(json!({"name": "conf_greet", "arguments": {"name": "Ada"}}));
    let got = client.request("tools/call", call);
    assert_eq!(sans_meta(&got["result"]), complete(text_result("Hello, Ada!")), "{got}");
    // A slow one still becomes a task: the upstream made it one.
    let id = start_task(&mut client, "conf_slow_compute", json!({"seconds": 0.3, "label": "x"}));
    let done = poll_until(&mut client, &id, |task| task["status"] == "completed");
    assert_eq!(sans_meta(&done["result"]), complete(text_result("Computed x in 0.3 s")));
}

#[test]
fn input_an_upstream_asks_for_is_asked_of_the_client_and_its_answer_goes_back() {
    let (upstream, gateway) = gateways(3000);
    let mut client = HttpClient::connect(&gateway.url, "2026-07-28", None);
    let caps = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let call = |client: &mut HttpClient, extra: Value| {
        let mut params =
            json!({"name": "conf_test_tool_with_task", "arguments": {}, "_meta": caps});
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
            params.extend(extra);
        }
        client.request("tools/call", params)
    };
    // The upstream asks a name before its task exists: the client is asked the same.
    let first = call(&mut client, json!({}));
    let asked = &first["result"];
    assert_eq!(asked["resultType"], "input_required", "{first}");
    crate::gateway::assert_valid("2026-07-28", "InputRequiredResult", asked);
    assert_eq!(
        asked["inputRequests"],
        json!({"name": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "What is your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}},
                                "required": ["name"]}}}}),
        "{first}"
    );
    let state = asked["requestState"].as_str().unwrap_or_else(|| panic!("{first}")).to_owned();
    // The answer goes to the upstream with its state; it runs its task, which the gateway
    // follows to the result.
    let answers = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});
    let second = call(&mut client, json!({"inputResponses": answers, "requestState": state}));
    assert_eq!(
        sans_meta(&second["result"]),
        complete(text_result("Hello, Ada! The task is done.")),
        "{second}"
    );
    assert_metric(&upstream, &upstream_tasks("test_tool_with_task", "completed", 1));
    assert_metric(
        &gateway,
        "toolwire_upstream_calls_total{upstream=\"conf\",outcome=\"input_required\"} 1",
    );

    // A client in a session that cannot be asked gets the failure `input_required`, never a
    // hang.
    let mut old = HttpClient::connect(&gateway.url, "2025-06-18", None);
    let got = old.call("conf_test_tool_with_task", json!({}));
    assert_eq!(got["result"]["isError"], true, "{got}");
    assert_eq!(got["result"]["structuredContent"]["error"]["code"], "input_required", "{got}");
}

/// What a client reads of the upstream's `failing_job` (phase `spec`).
fn failing_job() -> Value {
    tool_error("The job failed, as it always does")
}

/// What a client reads of an upstream's tool error saying `message` (phase `spec`).
fn tool_error(message: &str) -> Value {
    json!({
        "content": [
            {"type": "text", "text": message},
            {"type": "text", "text": "{\"error\":{\"code\":\"tool_error\"}}"}
        ],
        "structuredContent": {"error": {"code": "tool_error", "message": message}},
        "isError": true
    })
}

#[test]
fn a_gateway_task_relays_the_upstream_s_beyond_the_request_limit() {
    // Each request to the upstream within 1 s; the upstream's task takes 2.
    let (upstream, gateway) = gateways(1000);
    let mut client = HttpClient::connect(&gateway.url, "2026-07-28", None);
    let id = start_task(&mut client, "conf_slow_compute", json!({"seconds": 2, "label": "sums"}));
    // The upstream's status message is the gateway task's.
    let working = poll_until(&mut client, &id, |t| t["statusMessage"] == "computing sums");
    assert_eq!(working["status"], "working", "{working}");
    let done = poll_until(&mut client, &id, |t| t["status"] != "working");
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(sans_meta(&done["result"]), complete(text_result("Computed sums in 2 s")));
    assert_metric(&upstream, &upstream_tasks("slow_compute", "completed", 1));

    // A tool error inside the upstream's task: the gateway task completes with it.
    let id = start_task(&mut client, "conf_failing_job", json!({}));
    let done = poll_until(&mut client, &id, |t| t["status"] != "working");
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(sans_meta(&done["result"]), complete(failing_job()), "{done}");
}

#[test]
fn a_tool_error_a_failed_task_and_input_inside_a_task_reach_the_client() {
    let (upstream, gateway) = gateways(3000);
    let mut client = HttpClient::connect(&gateway.url, "2025-06-18", None);
    // A task that ends in a tool error (`completed`, `isError`): the tool's failure.
    let got = client.call("conf_failing_job", json!({}));
    assert_eq!(sans_meta(&got["result"]), failing_job(), "{got}");
    assert_metric(&upstream, &upstream_tasks("failing_job", "completed", 1));

    // A task that ends `failed` (a JSON-RPC error inside it): upstream_unavailable naming it.
    let got = client.call("conf_protocol_error_job", json!({}));
    assert_eq!(
        got["result"]["content"][0]["text"],
        "Tool protocol_error_job of conf is unavailable: its task at the upstream server failed (tool protocol_error_job failed with an internal error). The operator should check the upstream server.",
        "{got}"
    );

    // A task that asks for input inside it: not relayed yet, so it is cancelled at the
    // upstream.
    let got = client.call("conf_confirm_delete", json!({"filename": "a.txt"}));
    let text = got["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("Tool confirm_delete of conf is unavailable: the upstream server asked for input inside its task, which toolwire cannot relay yet."),
        "{got}"
    );
    assert_metric(&upstream, &upstream_tasks("confirm_delete", "cancelled", 1));
    assert!(!text.contains(&upstream.url), "the upstream's URL leaked: {text}");
}

#[test]
fn the_upstream_s_task_is_cancelled_when_the_gateway_stops_waiting() {
    let (upstream, gateway) = gateways(1000);
    // The gateway task is cancelled while the upstream's runs.
    let mut client = HttpClient::connect(&gateway.url, "2026-07-28", None);
    let id = start_task(&mut client, "conf_slow_compute", json!({"seconds": 60, "label": "long"}));
    poll_until(&mut client, &id, |t| t["statusMessage"] == "computing long");
    let ack = task_request(&mut client, "tasks/cancel", &id);
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    assert_metric(&upstream, &upstream_tasks("slow_compute", "cancelled", 1));

    // A call answered in its request that outlives `timeout_ms`.
    let mut sync = HttpClient::connect(&gateway.url, "2025-06-18", None);
    let got = sync.call("conf_slow_compute", json!({"seconds": 60, "label": "long"}));
    assert_eq!(
        got["result"]["content"][0]["text"],
        "Tool slow_compute of conf is unavailable: the upstream server did not answer within 1000 ms. Try again later.",
        "{got}"
    );
    assert_metric(&upstream, &upstream_tasks("slow_compute", "cancelled", 2));
    assert!(
        !metrics(&upstream)
            .contains("toolwire_tasks_total{tool=\"slow_compute\",event=\"completed\"}"),
        "an upstream task ran to its end"
    );
}

/// The gateway in front of the TypeScript SDK fixture `tests/clients/upstreams/tasks_server.mjs`
/// on stdio (2025-11-25), its requests within `timeout_ms`, refusing a plain call of a task tool
/// with a JSON-RPC error when `strict` (else with the SDK's tool error). Node comes from
/// `tests/clients` (`scripts/test` installs it before `cargo test`; by hand: `npm ci` there).
fn core_gateway(timeout_ms: u64, strict: bool) -> Server {
    let clients = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/clients");
    let node = clients.join("node_modules/.bin/node");
    assert!(
        node.is_file(),
        "{} is not installed: run scripts/test, or `npm ci` in tests/clients",
        node.display()
    );
    let upstream = format!(
        r#"
[[upstreams]]
name = "core"
command = [{node:?}, {fixture:?}{strict}]
tool_prefix = "core_"
timeout_ms = {timeout_ms}
"#,
        node = node.display().to_string(),
        fixture = clients.join("upstreams/tasks_server.mjs").display().to_string(),
        strict = if strict { ", \"--strict\"" } else { "" },
    );
    gateway_before(&upstream)
}

#[test]
fn a_2025_11_25_upstream_s_required_task_tool_is_relayed_as_its_task() {
    // The spec's refusal of a plain call (`-32601`): the same call made as a task.
    let gateway = core_gateway(3000, true);
    let mut client = HttpClient::connect(&gateway.url, "2025-06-18", None);
    let got = client.call("core_report", json!({"label": "q3"}));
    assert_eq!(got["result"]["content"][1]["text"], "Report q3 is ready", "{got}");
    drop(gateway);

    // The TypeScript SDK's refusal (a tool error holding `-32601`).
    let gateway = core_gateway(3000, false);
    let mut client = HttpClient::connect(&gateway.url, "2025-06-18", None);
    let got = client.call("core_report", json!({"label": "q3"}));
    // As a direct result renders: the structured content as text first, then the text block.
    assert_eq!(
        sans_meta(&got["result"]),
        json!({
            "content": [
                {"type": "text", "text": "{\"label\":\"q3\",\"pages\":3}"},
                {"type": "text", "text": "Report q3 is ready"}
            ],
            "structuredContent": {"label": "q3", "pages": 3}
        }),
        "{got}"
    );

    // A task that fails with a tool error: the tool's error.
    let got = client.call("core_failing_report", json!({}));
    assert_eq!(sans_meta(&got["result"]), tool_error("The report could not be written"), "{got}");
    assert_metric(&gateway, "toolwire_upstream_calls_total{upstream=\"core\",outcome=\"ok\"} 1");
}

#[test]
fn a_2025_11_25_upstream_s_task_is_cancelled_when_the_gateway_stops_waiting() {
    let gateway = core_gateway(1000, false);
    let mut client = HttpClient::connect(&gateway.url, "2025-06-18", None);
    let got = client.call("core_report", json!({"label": "long", "ms": 60000}));
    assert_eq!(
        got["result"]["content"][0]["text"],
        "Tool report of core is unavailable: the upstream server did not answer within 1000 ms. Try again later.",
        "{got}"
    );
    // The fixture lists the tasks cancelled with `tasks/cancel` (sent once the call is given up).
    let started = Instant::now();
    loop {
        let cancels = client.call("core_cancels", json!({}));
        let text = cancels["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
        let ids: Vec<String> = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{cancels}"));
        if ids.len() == 1 {
            break;
        }
        assert!(ids.is_empty(), "{cancels}");
        assert!(started.elapsed() < Duration::from_secs(10), "no task cancelled: {cancels}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

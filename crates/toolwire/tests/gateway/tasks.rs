//! Tasks (DESIGN §17) over Streamable HTTP at 2026-07-28: the demo's `catalog_reprice` as a
//! task whose status moves and whose cancellation stops its work, principals kept apart, a
//! finished task surviving a restart, an app tool declared `task = "optional"`, `[tasks]`
//! limits, and the task metrics.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::gateway::{HttpClient, Server, assert_valid};

const TOKENS: &str = r#"
[auth]
anonymous = false

[[auth.tokens]]
token = "alice-token"
principal = "alice"
privileges = ["catalog:write"]

[[auth.tokens]]
token = "bob-token"
principal = "bob"
privileges = ["catalog:write"]
"#;

/// `server` stopped (SIGTERM) and started again on its address, over its data directory.
fn restarted(server: Server) -> Server {
    let listen = server.url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
    let dir = server.stop();
    Server::start_at(&listen, dir, Some(TOKENS), &[])
}

/// The `_meta` of a request that declares the tasks extension.
fn with_tasks(mut params: Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    }});
    params
}

fn call_as_task(client: &mut HttpClient, tool: &str, arguments: Value) -> Value {
    client.request("tools/call", with_tasks(json!({"name": tool, "arguments": arguments})))
}

fn task_request(client: &mut HttpClient, method: &str, task_id: &str) -> Value {
    client.request(method, with_tasks(json!({"taskId": task_id})))
}

/// Polls `tasks/get` until the task's status is `want`, within ten seconds.
fn wait_for(client: &mut HttpClient, task_id: &str, want: &str) -> Value {
    let started = Instant::now();
    loop {
        let got = task_request(client, "tasks/get", task_id);
        if got["result"]["status"] == want {
            return got["result"].clone();
        }
        assert!(started.elapsed() < Duration::from_secs(10), "never {want}: {got}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn price(client: &mut HttpClient, id: u64) -> f64 {
    let got = client.call("catalog_get", json!({"id": id}));
    got["result"]["structuredContent"]["price"].as_f64().unwrap_or_else(|| panic!("{got}"))
}

/// The ids of the demo's `lamps`, in catalog order (`id % 5 == 2`).
fn lamp(n: u64) -> u64 {
    5 * n + 2
}

#[test]
fn a_reprice_task_reports_its_progress_and_stops_when_cancelled() {
    let server = Server::start(Some(TOKENS), &[]);
    let mut alice = HttpClient::connect(&server.url, "2026-07-28", Some("alice-token"));
    let (first, last) = (price(&mut alice, lamp(0)), price(&mut alice, lamp(399)));

    let created =
        call_as_task(&mut alice, "catalog_reprice", json!({"category": "lamps", "percent": 10}));
    let task = &created["result"];
    assert_eq!(task["resultType"], "task", "{created}");
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttlMs"], 3_600_000);
    assert_eq!(task["pollIntervalMs"], 500);
    let id = task["taskId"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32, "{id}");

    // The status message moves while the work goes on.
    let started = Instant::now();
    let working = loop {
        let got = task_request(&mut alice, "tasks/get", &id)["result"].clone();
        if got["statusMessage"].as_str().is_some_and(|m| !m.starts_with("0 of")) {
            break got;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "no progress: {got}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(working["status"], "working");
    assert!(working["statusMessage"].as_str().unwrap().ends_with("of 400 prices changed"));

    let ack = task_request(&mut alice, "tasks/cancel", &id);
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let cancelled = task_request(&mut alice, "tasks/get", &id)["result"].clone();
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert!(cancelled.get("result").is_none());

    // The work stopped where it was: the first lamp changed, the last did not, and the number
    // changed stays put while the run, had it gone on, would have moved it.
    assert_eq!(price(&mut alice, lamp(0)), ((first * 1.1) * 100.0).round() / 100.0);
    let changed = |client: &mut HttpClient| {
        (0..400).filter(|n| price(client, lamp(*n)) != price_before(*n)).count()
    };
    let before = changed(&mut alice);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(changed(&mut alice), before, "the cancelled run went on");
    assert!(before < 400, "the run was not stopped: {before} of 400 changed");
    assert_eq!(price(&mut alice, lamp(399)), last);

    // Cancelling an ended task is the same empty acknowledgement.
    let again = task_request(&mut alice, "tasks/cancel", &id);
    assert_eq!(again["result"], json!({"resultType": "complete"}));

    let metrics =
        reqwest::blocking::get(server.url.replace("/mcp", "/metrics")).unwrap().text().unwrap();
    for line in [
        "toolwire_tasks_total{tool=\"catalog_reprice\",event=\"created\"} 1",
        "toolwire_tasks_total{tool=\"catalog_reprice\",event=\"cancelled\"} 1",
        "toolwire_tasks_running 0",
        "toolwire_calls_total{tool=\"catalog_reprice\",revision=\"2026-07-28\",outcome=\"task\"} 1",
    ] {
        assert!(metrics.lines().any(|l| l == line), "missing {line} in\n{metrics}");
    }
}

/// The demo price of the `n`-th lamp before any change (the catalog is generated).
fn price_before(n: u64) -> f64 {
    let id = lamp(n);
    (500 + (id * 7919) % 99_500) as f64 / 100.0
}

#[test]
fn a_finished_task_inlines_its_result_and_is_only_its_principals() {
    let server = Server::start(Some(TOKENS), &[]);
    let mut alice = HttpClient::connect(&server.url, "2026-07-28", Some("alice-token"));
    let mut bob = HttpClient::connect(&server.url, "2026-07-28", Some("bob-token"));
    let created =
        call_as_task(&mut alice, "catalog_reprice", json!({"category": "desks", "percent": -5}));
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();

    // Another principal's task, a forged id and a malformed one are one "unknown task".
    for (as_bob, task_id) in
        [(true, id.as_str()), (false, "0123456789abcdef0123456789abcdef"), (false, "../x")]
    {
        let client = if as_bob { &mut bob } else { &mut alice };
        for method in ["tasks/get", "tasks/cancel"] {
            let refused = task_request(client, method, task_id);
            assert_eq!(refused["error"]["code"], -32602, "{method} {task_id}: {refused}");
            assert!(refused["error"]["message"].as_str().unwrap().starts_with("Unknown task: "));
        }
        let update = client
            .request("tasks/update", with_tasks(json!({"taskId": task_id, "inputResponses": {}})));
        assert_eq!(update["error"]["code"], -32602, "{update}");
    }
    // Without the extension, the task methods are -32021 before any look-up.
    let bare = alice.request("tasks/get", json!({"taskId": id}));
    assert_eq!(bare["error"]["code"], -32021, "{bare}");

    let done = wait_for(&mut alice, &id, "completed");
    // The inlined result is the call's result as this request's revision has it.
    let result = &done["result"];
    assert_valid("2026-07-28", "CallToolResult", result);
    assert_eq!(
        result["structuredContent"],
        json!({"category": "desks", "percent": -5.0, "changed": 400})
    );
    assert_eq!(result["resultType"], "complete");
    assert!(result["_meta"].get("io.modelcontextprotocol/related-task").is_none());
    // Bob still cannot see it, finished or not.
    assert_eq!(task_request(&mut bob, "tasks/get", &id)["error"]["code"], -32602);
}

#[test]
fn a_finished_task_survives_a_restart() {
    let server = Server::start(Some(TOKENS), &[]);
    let mut alice = HttpClient::connect(&server.url, "2026-07-28", Some("alice-token"));
    let created =
        call_as_task(&mut alice, "catalog_reprice", json!({"category": "chairs", "percent": 1}));
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let done = wait_for(&mut alice, &id, "completed");
    let again = restarted(server);
    let mut alice = HttpClient::connect(&again.url, "2026-07-28", Some("alice-token"));
    let after = task_request(&mut alice, "tasks/get", &id)["result"].clone();
    assert_eq!(after["status"], "completed", "{after}");
    assert_eq!(after["result"]["structuredContent"], done["result"]["structuredContent"]);
}

#[test]
fn a_client_without_the_extension_is_answered_in_the_request() {
    let server = Server::start(Some(TOKENS), &[]);
    let mut alice = HttpClient::connect(&server.url, "2026-07-28", Some("alice-token"));
    let got = alice.call("catalog_reprice", json!({"category": "shelves", "percent": 2}));
    assert_eq!(got["result"]["resultType"], "complete", "{got}");
    assert_eq!(got["result"]["structuredContent"]["changed"], 400);
    // And so is a 2025-11-25 client (its experimental tasks are not served).
    let mut old = HttpClient::connect(&server.url, "2025-11-25", Some("alice-token"));
    let got = old.call("catalog_reprice", json!({"category": "shelves", "percent": 2}));
    assert_eq!(got["result"]["structuredContent"]["changed"], 400, "{got}");
}

#[test]
fn tasks_settings_are_read_and_checked() {
    let config = format!("{TOKENS}\n[tasks]\nttl_ms = 60000\npoll_interval_ms = 250\n");
    let server = Server::start(Some(&config), &[]);
    let mut alice = HttpClient::connect(&server.url, "2026-07-28", Some("alice-token"));
    let created =
        call_as_task(&mut alice, "catalog_reprice", json!({"category": "tables", "percent": 3}));
    assert_eq!(created["result"]["ttlMs"], 60_000, "{created}");
    assert_eq!(created["result"]["pollIntervalMs"], 250);

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["serve", "--check", "--config"])
        .arg({
            let dir = tempfile::tempdir().unwrap().keep();
            let path = dir.join("toolwire.toml");
            std::fs::write(&path, "[tasks]\nttl_ms = 90000\nmax_ttl_ms = 60000\n").unwrap();
            path
        })
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("tasks.ttl_ms: 90000 is above tasks.max_ttl_ms (60000)"), "{stderr}");
}

/// rmcp's own client (2026-07-28 through `server/discover`, the tasks extension declared)
/// creates, polls and fetches a task end to end.
#[test]
fn rmcp_s_client_creates_polls_and_fetches_a_task() {
    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, GetTaskParams,
        Implementation, ProtocolVersion, TaskPayload, TaskStatus,
    };
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let server = Server::start(Some(TOKENS), &[]);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let config = StreamableHttpClientTransportConfig::with_uri(server.url.as_str())
            .auth_header("alice-token");
        let transport = StreamableHttpClientTransport::from_config(config);
        let info = ClientConfig::new(
            ClientCapabilities::builder().enable_tasks().build(),
            Implementation::new("rmcp-tasks", "1"),
        );
        let lifecycle = ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: None,
        };
        let client = info.serve_with_lifecycle(transport, lifecycle).await.unwrap();
        let arguments = json!({"category": "chairs", "percent": 4});
        let call = CallToolRequestParams::new("catalog_reprice")
            .with_arguments(arguments.as_object().unwrap().clone());
        let CallToolResponse::Task(created) = client.call_tool_once(call).await.unwrap() else {
            panic!("no task");
        };
        assert_eq!(created.task.status, TaskStatus::Working);
        let poll = Duration::from_millis(created.task.poll_interval_ms.unwrap());
        let started = Instant::now();
        let done = loop {
            let got = client.get_task(GetTaskParams::new(&created.task.task_id)).await.unwrap();
            if got.task.status().is_terminal() {
                break got;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "still {:?}", got.task.status());
            tokio::time::sleep(poll).await;
        };
        let TaskPayload::Completed { result } = &done.task.payload else {
            panic!("{:?}", done.task.payload);
        };
        assert_eq!(result["structuredContent"]["changed"], 400, "{result:?}");
        assert!(result["content"].as_array().is_some_and(|c| !c.is_empty()));
        client.cancel().await.unwrap();
    });
}

/// An app whose operations run on after answering `202 Accepted`, counting what it is asked.
#[derive(Clone, Default)]
struct Jobs {
    polls: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    forever_polls: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    credentials: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

async fn job_app(
    axum::extract::State(jobs): axum::extract::State<Jobs>,
    method: axum::http::Method,
    uri: axum::http::Uri,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    use std::sync::atomic::Ordering;

    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse as _;
    let key = headers.get("x-api-key").and_then(|v| v.to_str().ok()).unwrap_or("-");
    jobs.credentials.lock().unwrap().push(format!("{method} {} {key}", uri.path()));
    let accepted = |location: &str| {
        (
            StatusCode::ACCEPTED,
            [(header::LOCATION, location.to_owned()), (header::RETRY_AFTER, "0".to_owned())],
        )
            .into_response()
    };
    match (method.as_str(), uri.path()) {
        ("POST", "/export") => accepted("/jobs/7"),
        ("GET", "/jobs/7") => {
            if jobs.polls.fetch_add(1, Ordering::SeqCst) < 3 {
                accepted("/jobs/7")
            } else {
                (StatusCode::SEE_OTHER, [(header::LOCATION, "/results/7")]).into_response()
            }
        }
        ("GET", "/results/7") => (
            [(header::CONTENT_TYPE, "application/json")],
            r#"{"format":"toolwire.result.v1","data":{"rows":3},"summary":"3 rows exported"}"#,
        )
            .into_response(),
        ("POST", "/elsewhere") => accepted("http://localhost:1/jobs/1"),
        ("POST", "/large") => (
            [(header::CONTENT_TYPE, "application/json")],
            format!(
                r#"{{"format":"toolwire.result.v1","data":{{"blob":"{}"}}}}"#,
                "x".repeat(8000)
            ),
        )
            .into_response(),
        ("POST", "/forever") => accepted("/jobs/forever"),
        ("GET", "/jobs/forever") => {
            jobs.forever_polls.fetch_add(1, Ordering::SeqCst);
            accepted("/jobs/forever")
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

/// A gateway in front of [`job_app`], with `extra` configuration: `export` (a task when the
/// client can hold one), `elsewhere` (a Location on another origin), `forever` (polled until
/// cancelled) and `large` (an 8 KB answer).
fn job_fixture(extra: &str) -> (tokio::runtime::Runtime, Jobs, Server) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let jobs = Jobs::default();
    let router = axum::Router::new().fallback(job_app).with_state(jobs.clone());
    runtime.spawn(async move { axum::serve(listener, router).await });
    let mut config = format!("demo_tools = false\n{extra}\n[auth]\nanonymous = true\n\n");
    let tools = [
        ("export", "optional"),
        ("elsewhere", "forbidden"),
        ("forever", "optional"),
        ("large", "optional"),
    ];
    for (name, task) in tools {
        config.push_str(&format!(
            "[[tools]]\nname = \"{name}\"\ndescription = \"{name}\"\nendpoint = \"{base}/{name}\"\ntask = \"{task}\"\ntimeout_ms = 5000\nheaders = {{ X-Api-Key = {{ value = \"k1\" }} }}\n\n"
        ));
    }
    let server = Server::start(Some(&config), &[]);
    (runtime, jobs, server)
}

#[test]
fn an_app_answering_202_is_polled_as_a_task_or_waited_for() {
    let (_runtime, jobs, server) = job_fixture("");
    // Waited for within the tool's timeout: a client without the extension, and 2025-11-25.
    for revision in ["2026-07-28", "2025-11-25"] {
        jobs.polls.store(0, std::sync::atomic::Ordering::SeqCst);
        let mut client = HttpClient::connect(&server.url, revision, None);
        let got = client.call("export", json!({}));
        assert_eq!(got["result"]["structuredContent"], json!({"rows": 3}), "{revision}: {got}");
    }
    // Every request, the polls included, carried the tool's credentials.
    let seen = jobs.credentials.lock().unwrap().clone();
    assert_eq!(
        seen[..6],
        [
            "POST /export k1",
            "GET /jobs/7 k1",
            "GET /jobs/7 k1",
            "GET /jobs/7 k1",
            "GET /jobs/7 k1",
            "GET /results/7 k1"
        ],
    );
    // As a task: the call comes back at once, the status says the app accepted it.
    jobs.polls.store(0, std::sync::atomic::Ordering::SeqCst);
    let mut client = HttpClient::connect(&server.url, "2026-07-28", None);
    let created = call_as_task(&mut client, "export", json!({}));
    let id = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{created}")).to_owned();
    let done = wait_for(&mut client, &id, "completed");
    assert_eq!(done["result"]["structuredContent"], json!({"rows": 3}));

    // A Location on another origin is never polled.
    let got = client.call("elsewhere", json!({}));
    let text = got["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    assert_eq!(got["result"]["isError"], true, "{got}");
    assert!(
        text.contains(
            "its app accepted the call with a Location on another origin (http://localhost:1)"
        ),
        "{text}"
    );
    assert!(!jobs.credentials.lock().unwrap().iter().any(|l| l.contains("/jobs/1")));
}

#[test]
fn a_cancelled_task_stops_polling_its_app() {
    use std::sync::atomic::Ordering;
    let (_runtime, jobs, server) = job_fixture("");
    let mut client = HttpClient::connect(&server.url, "2026-07-28", None);
    let created = call_as_task(&mut client, "forever", json!({}));
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let working = loop {
        let got = task_request(&mut client, "tasks/get", &id)["result"].clone();
        if jobs.forever_polls.load(Ordering::SeqCst) >= 2 && got["statusMessage"].is_string() {
            break got;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(working["statusMessage"], "accepted by the app, which is working on it");
    task_request(&mut client, "tasks/cancel", &id);
    let after_cancel = jobs.forever_polls.load(Ordering::SeqCst);
    // Polls come every 100 ms while the task runs: five intervals without one say it stopped.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(jobs.forever_polls.load(Ordering::SeqCst), after_cancel, "the app is still polled");
    assert_eq!(task_request(&mut client, "tasks/get", &id)["result"]["status"], "cancelled");
}

#[test]
fn a_task_past_its_ttl_is_stopped_and_gone() {
    use std::sync::atomic::Ordering;
    let (_runtime, jobs, server) = job_fixture("[tasks]\nttl_ms = 1000\nmax_ttl_ms = 1000\n");
    let mut client = HttpClient::connect(&server.url, "2026-07-28", None);
    let created = call_as_task(&mut client, "forever", json!({}));
    assert_eq!(created["result"]["ttlMs"], 1000, "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let started = Instant::now();
    let gone = loop {
        let got = task_request(&mut client, "tasks/get", &id);
        if got.get("error").is_some() {
            break got;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "never expired: {got}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    // Its run stopped with it: the app is polled no more.
    std::thread::sleep(Duration::from_millis(200));
    let polled = jobs.forever_polls.load(Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(jobs.forever_polls.load(Ordering::SeqCst), polled, "an expired task still polls");
    let metrics =
        reqwest::blocking::get(server.url.replace("/mcp", "/metrics")).unwrap().text().unwrap();
    let line = "toolwire_tasks_total{tool=\"forever\",event=\"expired\"} 1";
    assert!(metrics.lines().any(|l| l == line), "missing {line} in\n{metrics}");
}

#[test]
fn a_task_result_over_the_quota_fails_the_task_saying_so() {
    let (_runtime, _jobs, server) = job_fixture("[store]\nquota_per_principal = 4096\n");
    let mut client = HttpClient::connect(&server.url, "2026-07-28", None);
    let created = call_as_task(&mut client, "large", json!({}));
    let id = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{created}")).to_owned();
    let failed = wait_for(&mut client, &id, "failed");
    let message = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("the task's result could not be kept: per-principal store quota of 4096 bytes would be exceeded"),
        "{failed}"
    );
    assert!(failed.get("result").is_none());
}

/// 2025-11-25's experimental tasks over Streamable HTTP: `capabilities.tasks`,
/// `execution.taskSupport`, `params.task`, `tasks/get`, `tasks/list`, `tasks/result` with the
/// related-task `_meta`, `tasks/cancel` (the task; `-32602` once ended), another principal's id
/// unknown, every answer valid against the official 2025-11-25 schema.
#[test]
fn the_experimental_tasks_of_2025_11_25() {
    let server = Server::start(Some(TOKENS), &[]);
    let mut alice = HttpClient::connect(&server.url, "2025-11-25", Some("alice-token"));
    let mut bob = HttpClient::connect(&server.url, "2025-11-25", Some("bob-token"));
    let tools = alice.request("tools/list", json!({}));
    let reprice = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "catalog_reprice")
        .cloned()
        .unwrap();
    assert_eq!(reprice["execution"], json!({"taskSupport": "optional"}));
    assert_valid("2025-11-25", "Tool", &reprice);
    let get =
        tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "catalog_get");
    assert!(get.is_some_and(|tool| tool.get("execution").is_none()));

    let call = |client: &mut HttpClient, category: &str| {
        client.request(
            "tools/call",
            json!({"name": "catalog_reprice", "arguments": {"category": category, "percent": 0},
                   "task": {"ttl": 120000}}),
        )
    };
    let created = call(&mut alice, "lamps");
    assert_valid("2025-11-25", "CreateTaskResult", &created["result"]);
    let task = &created["result"]["task"];
    assert_eq!((task["status"].as_str(), task["ttl"].as_u64()), (Some("working"), Some(120_000)));
    let id = task["taskId"].as_str().unwrap().to_owned();
    let got = alice.request("tasks/get", json!({"taskId": id}));
    assert_valid("2025-11-25", "GetTaskResult", &got["result"]);
    assert_eq!(got["result"]["taskId"], id.as_str());
    let listed = alice.request("tasks/list", json!({}));
    assert_valid("2025-11-25", "ListTasksResult", &listed["result"]);
    assert_eq!(listed["result"]["tasks"][0]["taskId"], id.as_str());
    // Another principal's request about the task is refused on every method, and the task is
    // left as it was (bob's cancel did not cancel it); his list does not show it.
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let refused = bob.request(method, json!({"taskId": id}));
        assert_eq!(refused["error"]["code"], -32602, "{method}: {refused}");
        let message = refused["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("Unknown task: "), "{method}: {refused}");
    }
    assert_eq!(bob.request("tasks/list", json!({}))["result"]["tasks"], json!([]));

    // tasks/result waits for the end, then the result with its task named in `_meta`.
    let result = alice.request("tasks/result", json!({"taskId": id}));
    assert_valid("2025-11-25", "CallToolResult", &result["result"]);
    assert_eq!(result["result"]["structuredContent"]["changed"], 400, "{result}");
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"],
        json!({"taskId": id})
    );
    assert_eq!(alice.request("tasks/get", json!({"taskId": id}))["result"]["status"], "completed");
    let ended = alice.request("tasks/cancel", json!({"taskId": id}));
    assert_eq!(ended["error"]["code"], -32602, "{ended}");

    // A running task cancelled answers the task, cancelled.
    let running = call(&mut alice, "desks");
    let other = running["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    let cancelled = alice.request("tasks/cancel", json!({"taskId": other}));
    assert_valid("2025-11-25", "CancelTaskResult", &cancelled["result"]);
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");

    // Without params.task, an optional tool is answered in the request.
    let sync = alice.call("catalog_reprice", json!({"category": "shelves", "percent": 0}));
    assert_eq!(sync["result"]["structuredContent"]["changed"], 400, "{sync}");
}

#[test]
fn a_task_still_running_when_the_gateway_stops_ends_failed_saying_why() {
    let server = Server::start(Some(TOKENS), &[]);
    let mut alice = HttpClient::connect(&server.url, "2026-07-28", Some("alice-token"));
    let created =
        call_as_task(&mut alice, "catalog_reprice", json!({"category": "lamps", "percent": 0}));
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    // SIGTERM at once: the drain has no request to wait for, the run (four seconds) is left.
    let again = restarted(server);
    let mut alice = HttpClient::connect(&again.url, "2026-07-28", Some("alice-token"));
    let after = task_request(&mut alice, "tasks/get", &id)["result"].clone();
    assert_eq!(after["status"], "failed", "{after}");
    assert_eq!(
        after["error"]["message"],
        "the gateway running this task stopped before it ended; call the tool again"
    );
}

/// 2025-11-25's status notifications over Streamable HTTP go to the standalone stream of the
/// session that created the task: exactly the task `tasks/get` answers once it has ended; the
/// stream of another session (of the same principal, or another) hears none of it.
#[test]
fn a_session_s_stream_hears_of_its_own_task_only() {
    let server = Server::start(Some(TOKENS), &[]);
    let mut alice = HttpClient::connect(&server.url, "2025-11-25", Some("alice-token"));
    let again = HttpClient::connect(&server.url, "2025-11-25", Some("alice-token"));
    let bob = HttpClient::connect(&server.url, "2025-11-25", Some("bob-token"));
    let limit = Duration::from_secs(30);
    let (heard, heard_again, heard_bob) =
        (alice.listen(limit), again.listen(limit), bob.listen(limit));
    let created = alice.request(
        "tools/call",
        json!({"name": "catalog_reprice", "arguments": {"category": "lamps", "percent": 0},
               "task": {"ttl": 120000}}),
    );
    let id = created["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    let mut told = Vec::new();
    let completed = loop {
        let message = heard.recv_timeout(Duration::from_secs(15)).expect("no notification");
        told.push(message.clone());
        if message["params"]["status"] == "completed" {
            break message;
        }
    };
    for message in &told {
        assert_valid("2025-11-25", "TaskStatusNotification", message);
        assert_eq!(message["params"]["taskId"], id.as_str(), "{message}");
    }
    // The tool's progress was told while it ran.
    assert!(told.iter().any(|m| m["params"]["status"] == "working"), "{told:?}");
    let ended = alice.request("tasks/get", json!({"taskId": id}));
    assert_eq!(
        completed,
        json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": ended["result"]})
    );
    for other in [heard_again, heard_bob] {
        let stray = other.recv_timeout(Duration::from_millis(300));
        assert!(stray.is_err(), "another session heard {stray:?}");
    }
}

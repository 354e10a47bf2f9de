//! App tools against a local HTTP app started inside the test: every accepted answer, every
//! misbehaviour as `upstream_unavailable`, the POST body, header secrets, the gateway-side
//! privilege check, a hanging app that does not stop the gateway (checked by the order of
//! events, not by timings), and an app that asks for input (a v2 answer) in a two-round
//! exchange.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::gateway::{self, HttpClient, Server, texts};

/// What happened, in the order it happened: the app and the test threads write here.
#[derive(Clone, Default)]
struct Events {
    log: Arc<Mutex<Vec<&'static str>>>,
    /// Told when the hanging call has reached the app.
    arrived: Arc<Mutex<Option<std::sync::mpsc::Sender<()>>>>,
}

impl Events {
    fn push(&self, event: &'static str) {
        self.log.lock().unwrap().push(event);
    }

    fn log(&self) -> Vec<&'static str> {
        self.log.lock().unwrap().clone()
    }
}

async fn app(
    State(events): State<Events>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let json = |text: &str| ([(header::CONTENT_TYPE, "application/json")], text.to_owned());
    match name.as_str() {
        "v1" => json(r#"{"format":"toolwire.result.v1","data":{"ok":1},"summary":"v1 answer"}"#)
            .into_response(),
        "legacy" => json(r#"{"success":true,"data":{"n":2}}"#).into_response(),
        "other-json" => json("[1,2,3]").into_response(),
        "problem" => (
            [(header::CONTENT_TYPE, "application/problem+json")],
            r#"{"success":false,"error":"Already taken","code":"conflict"}"#,
        )
            .into_response(),
        "text" => ([(header::CONTENT_TYPE, "text/plain")], "plain words").into_response(),
        "text-envelope" => {
            ([(header::CONTENT_TYPE, "text/plain")], r#"{"success":false,"error":"no"}"#)
                .into_response()
        }
        "echo" => {
            let received: Value = serde_json::from_slice(&body).unwrap();
            let key = headers.get("x-api-key").map(|v| v.to_str().unwrap().to_owned());
            let answer = json!({"success": true, "data": {"received": received, "apiKey": key}});
            json(&answer.to_string()).into_response()
        }
        "ask" => {
            let received: Value = serde_json::from_slice(&body).unwrap();
            match received.get("input") {
                None => json(
                    r#"{"format":"toolwire.result.v2","inputRequired":{"requests":{"ok":{"method":"elicitation/create","params":{"message":"Go ahead?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}}}},"state":{"step":1},"summary":"Confirm first"}}"#,
                )
                .into_response(),
                Some(input) => json(
                    &json!({"format": "toolwire.result.v1", "data": {"input": input}}).to_string(),
                )
                .into_response(),
            }
        }
        "bad-json" => json("{oops").into_response(),
        "unknown-format" => json(r#"{"format":"toolwire.result.v9","data":1}"#).into_response(),
        "not-utf8" => ([(header::CONTENT_TYPE, "application/json")], vec![b'"', 0xff, 0xfe, b'"'])
            .into_response(),
        "big" => json(&format!("\"{}\"", "x".repeat(4096))).into_response(),
        "status500" => (StatusCode::INTERNAL_SERVER_ERROR, "boom").into_response(),
        "hang" => {
            events.push("app got the hanging call");
            if let Some(arrived) = events.arrived.lock().unwrap().take() {
                let _ = arrived.send(());
            }
            // Never answers: whatever the caller gets, the gateway made it up.
            std::future::pending::<Response>().await
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

fn tool(name: &str, endpoint: &str, extra: &str) -> String {
    format!(
        "[[tools]]\nname = \"{name}\"\ndescription = \"App tool {name}.\"\nendpoint = \"{endpoint}\"\n{extra}\n"
    )
}

struct Fixture {
    _runtime: tokio::runtime::Runtime,
    server: Server,
    events: Events,
}

fn fixture() -> Fixture {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let events = Events::default();
    let router =
        axum::Router::new().route("/{name}", axum::routing::post(app)).with_state(events.clone());
    runtime.spawn(async move { axum::serve(listener, router).await });
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let refused = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    let mut config = String::from(
        "demo_tools = true\n\n[auth]\nanonymous = true\n\n[[auth.tokens]]\ntoken = \"runner\"\nprincipal = \"runner\"\nprivileges = [\"apps:run\"]\n\n",
    );
    for name in [
        "v1",
        "legacy",
        "other-json",
        "problem",
        "text",
        "text-envelope",
        "bad-json",
        "unknown-format",
        "not-utf8",
        "status500",
        "ask",
    ] {
        config.push_str(&tool(name, &format!("{base}/{name}"), ""));
    }
    config.push_str(&tool(
        "echo",
        &format!("{base}/echo"),
        "input_schema = { type = \"object\", properties = { q = { type = \"string\" } }, required = [\"q\"] }\nheaders = { X-Api-Key = { env = \"APP_KEY\" } }",
    ));
    config.push_str(&tool("ask-too", &format!("{base}/ask"), ""));
    config.push_str(&tool("big", &format!("{base}/big"), "response_cap = 1024"));
    config.push_str(&tool("hang", &format!("{base}/hang"), "timeout_ms = 1500"));
    config.push_str(&tool("refused", &refused, ""));
    config.push_str(&tool(
        "guarded",
        &format!("{base}/legacy"),
        "privileges = [\"apps:run\"]\noutputs = { outputs = { n = { type = \"integer\", required = true } } }",
    ));
    let server = Server::start(Some(&config), &[("APP_KEY", "secret-from-env")]);
    Fixture { _runtime: runtime, server, events }
}

fn envelope(result: &Value) -> Value {
    serde_json::from_str(&texts(result)[0]).unwrap()
}

const REVISION: &str = "2025-11-25";

#[test]
fn accepted_answers_and_the_post_body() {
    let f = fixture();
    let mut client = HttpClient::connect(&f.server.url, REVISION, None);

    let r = client.call("v1", json!({}));
    let result = gateway::checked_result(REVISION, &r, None);
    assert_eq!(result["structuredContent"], json!({"ok": 1}));
    assert_eq!(envelope(result)["_meta"]["summary"], "v1 answer");

    let r = client.call("legacy", json!({}));
    let result = gateway::checked_result(REVISION, &r, None);
    assert_eq!(texts(result)[0], r#"{"success":true,"data":{"n":2}}"#);
    assert_eq!(result["structuredContent"], json!({"n": 2}));

    let r = client.call("other-json", json!({}));
    let result = gateway::checked_result(REVISION, &r, None);
    assert_eq!(result["content"], json!([{"type": "text", "text": "[1,2,3]"}]));
    assert!(result.get("structuredContent").is_none());

    let r = client.call("problem", json!({}));
    let result = gateway::checked_result(REVISION, &r, None);
    assert_eq!(result["isError"], true);
    assert_eq!(result["structuredContent"]["error"]["code"], "conflict");

    let r = client.call("text", json!({}));
    let result = gateway::checked_result(REVISION, &r, None);
    assert_eq!(result["content"], json!([{"type": "text", "text": "plain words"}]));

    // Text that looks like an envelope is still text when the app says it is not JSON.
    let r = client.call("text-envelope", json!({}));
    let result = gateway::checked_result(REVISION, &r, None);
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": r#"{"success":false,"error":"no"}"#}])
    );
    assert!(result.get("isError").is_none());

    let r = client.call("echo", json!({"q": "chairs"}));
    let result = gateway::checked_result(REVISION, &r, None);
    let received = &result["structuredContent"]["received"];
    assert_eq!(
        received,
        &json!({
            "tool": "echo",
            "arguments": {"q": "chairs"},
            "context": {
                "principal": "anonymous",
                "privileges": [],
                "protocolVersion": REVISION,
                "requestId": received["context"]["requestId"].clone()
            }
        })
    );
    assert!(received["context"]["requestId"].is_string());
    assert_eq!(result["structuredContent"]["apiKey"], "secret-from-env");

    // Arguments are checked against the configured input schema before the app is called.
    let r = client.call("echo", json!({}));
    let result = gateway::checked_result(REVISION, &r, None);
    assert_eq!(envelope(result)["code"], "invalid_arguments");
}

#[test]
fn every_misbehaviour_is_upstream_unavailable() {
    let f = fixture();
    let mut client = HttpClient::connect(&f.server.url, REVISION, None);
    let cases = [
        ("bad-json", "its app answered application/json that is not valid JSON"),
        ("unknown-format", "its app answered a result toolwire cannot read"),
        ("not-utf8", "its app answered a body that is not UTF-8"),
        ("big", "its app answered more than 1024 bytes"),
        (
            "status500",
            "its app answered HTTP 500 Internal Server Error. Try again later; if this keeps happening, the operator should check the app's logs.",
        ),
        ("refused", "its app could not be reached"),
    ];
    for (name, phrase) in cases {
        let r = client.call(name, json!({}));
        let result = gateway::checked_result(REVISION, &r, None);
        assert_eq!(result["isError"], true, "{name}: {result}");
        let failure = envelope(result);
        assert_eq!(failure["code"], "upstream_unavailable", "{name}: {failure}");
        let message = failure["error"].as_str().unwrap();
        assert!(message.starts_with(&format!("Tool {name} is unavailable: ")), "{message}");
        assert!(message.contains(phrase), "{name}: {message}");
        // The endpoint goes to the log only.
        assert!(!message.contains("127.0.0.1") && !message.contains("http"), "{message}");
    }
}

#[test]
fn privileges_are_checked_by_the_gateway() {
    let f = fixture();
    let mut anonymous = HttpClient::connect(&f.server.url, REVISION, None);
    let r = anonymous.call("guarded", json!({}));
    let result = gateway::checked_result(REVISION, &r, None);
    let failure = envelope(result);
    assert_eq!(failure["code"], "missing_privilege");
    assert_eq!(failure["details"]["missing"], json!(["apps:run"]));

    let mut runner = HttpClient::connect(&f.server.url, REVISION, Some("runner"));
    let r = runner.call("guarded", json!({}));
    let result = gateway::checked_result(REVISION, &r, None);
    assert_eq!(result["structuredContent"], json!({"n": 2}));
}

#[test]
fn a_hanging_app_does_not_stop_the_gateway() {
    let f = fixture();
    let (arrived, arrival) = std::sync::mpsc::channel();
    *f.events.arrived.lock().unwrap() = Some(arrived);
    let url = f.server.url.clone();
    let events = f.events.clone();
    let hanging = std::thread::spawn(move || {
        let mut client = HttpClient::connect(&url, REVISION, None);
        let r = client.call("hang", json!({}));
        events.push("gateway answered the hanging call");
        r
    });
    // A bound on a broken run only: the order of events below is what the test checks.
    arrival.recv_timeout(Duration::from_secs(60)).expect("the hanging call reaches the app");
    let mut client = HttpClient::connect(&f.server.url, REVISION, None);
    let r = client.call("catalog_count", json!({}));
    f.events.push("gateway answered another call");
    assert_eq!(r["result"]["structuredContent"], json!({"result": 2000}));
    let r = hanging.join().unwrap();
    // The other call was answered while the app held the hanging one; the app never answers,
    // so the hanging call was ended by the gateway.
    assert_eq!(
        f.events.log(),
        [
            "app got the hanging call",
            "gateway answered another call",
            "gateway answered the hanging call",
        ]
    );
    let failure = envelope(&r["result"]);
    assert_eq!(failure["code"], "upstream_unavailable");
    let message = failure["error"].as_str().unwrap();
    assert_eq!(
        message,
        "Tool hang is unavailable: its app did not answer within 1500 ms. Try again later; if this keeps happening, the operator should check the app, or raise timeout_ms for this tool in toolwire.toml."
    );
}

#[test]
fn an_app_that_asks_for_input_gets_the_answers_on_the_retry() {
    let f = fixture();
    let mut client = HttpClient::connect(&f.server.url, "2026-07-28", None);
    let caps = json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let first = client
        .request("tools/call", json!({"name": "ask", "arguments": {}, "_meta": caps.clone()}));
    let asked = &first["result"];
    assert_eq!(asked["resultType"], "input_required", "{first}");
    gateway::assert_valid("2026-07-28", "InputRequiredResult", asked);
    assert_eq!(asked["inputRequests"]["ok"]["method"], "elicitation/create");
    let state = asked["requestState"].as_str().unwrap().to_owned();
    assert!(!state.contains("step"), "the state is sealed: {state}");

    let answers = json!({"ok": {"action": "accept", "content": {"confirm": true}}});
    let retry = |client: &mut HttpClient, tool: &str, state: &str| {
        client.request(
            "tools/call",
            json!({
                "name": tool,
                "arguments": {},
                "inputResponses": answers.clone(),
                "requestState": state,
                "_meta": caps.clone(),
            }),
        )
    };
    let second = retry(&mut client, "ask", &state);
    let done = gateway::checked_result("2026-07-28", &second, None);
    assert_eq!(done["resultType"], "complete");
    assert_eq!(
        done["structuredContent"],
        json!({"input": {"responses": answers.clone(), "state": {"step": 1}}})
    );

    // A tampered state and one made for another tool are refused with -32602.
    for (tool, state) in [("ask", format!("{state}x")), ("ask-too", state.clone())] {
        let refused = retry(&mut client, tool, &state);
        assert_eq!(refused["error"]["code"], -32602, "{tool}: {refused}");
        assert!(
            refused["error"]["message"].as_str().unwrap().contains("requestState"),
            "{refused}"
        );
    }

    // A client that cannot answer an elicitation gets the failure, not a hang.
    let mut old = HttpClient::connect(&f.server.url, REVISION, None);
    let r = old.call("ask", json!({}));
    let failure = gateway::checked_result(REVISION, &r, None);
    assert_eq!(failure["isError"], true);
    assert_eq!(failure["structuredContent"]["error"]["code"], "input_required");
    assert_eq!(
        failure["structuredContent"]["error"]["details"]["inputRequests"]["ok"]["method"],
        "elicitation/create"
    );
}

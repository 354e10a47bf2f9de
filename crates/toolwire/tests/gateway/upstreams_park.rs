//! An upstream's questions to a stateless client (DESIGN §10, §15): the official reference
//! server `@modelcontextprotocol/server-everything` (stdio, a handshake revision) asks its client
//! with `elicitation/create` and `sampling/createMessage` during a call; a 2026-07-28 client that
//! declared the capability gets the question as input required while the call waits at the
//! gateway, and its retry answers it (`everything_elicitation.json`: the elicitation as the
//! client reads it). Node and the server come from `tests/clients`
//! (`scripts/test` installs them before `cargo test`; by hand: `npm ci` there).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::gateway::{HttpClient, Server};

const ELICIT: &str = "everything_trigger-elicitation-request";
const SAMPLE: &str = "everything_trigger-sampling-request";

/// The gateway in front of server-everything, its tools listed once the upstream is up.
fn gateway() -> Server {
    let clients = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/clients");
    let node = clients.join("node_modules/.bin/node");
    let everything =
        clients.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        node.is_file() && everything.is_file(),
        "{} or {} is not installed: run scripts/test, or `npm ci` in tests/clients",
        node.display(),
        everything.display()
    );
    let config = format!(
        r#"demo_tools = false
phase = "spec"

[auth]
anonymous = true

[[upstreams]]
name = "everything"
command = [{node:?}, {everything:?}, "stdio"]
tool_prefix = "everything_"
tools = ["trigger-elicitation-request", "trigger-sampling-request"]
timeout_ms = 20000
"#,
        node = node.display().to_string(),
        everything = everything.display().to_string(),
    );
    let server = Server::start(Some(&config), &[]);
    let mut client = HttpClient::connect(&server.url, "2026-07-28", None);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let listed = client.request("tools/list", json!({}));
        let names = listed["result"]["tools"].to_string();
        if names.contains(ELICIT) && names.contains(SAMPLE) {
            return server;
        }
        assert!(Instant::now() < deadline, "server-everything's tools never came: {listed}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A `tools/call` of `tool` by a 2026-07-28 client declaring `capabilities`, with `extra`
/// params (a retry's `inputResponses` and `requestState`).
fn call(
    client: &mut HttpClient,
    tool: &str,
    arguments: Value,
    capabilities: Value,
    extra: Value,
) -> Value {
    let mut params = json!({"name": tool, "arguments": arguments,
        "_meta": {"io.modelcontextprotocol/clientCapabilities": capabilities}});
    if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
        params.extend(extra);
    }
    client.request("tools/call", params)
}

/// `result` without its `_meta` (a timestamp, the server's name).
fn sans_meta(answer: &Value) -> Value {
    let mut result = answer["result"].clone();
    if let Some(fields) = result.as_object_mut() {
        fields.remove("_meta");
    }
    result
}

/// A complete result of text blocks.
fn text_result(texts: &[&str]) -> Value {
    let content: Vec<Value> = texts.iter().map(|t| json!({"type": "text", "text": t})).collect();
    json!({"resultType": "complete", "content": content})
}

/// The upstream's result when its elicitation is declined.
fn declined() -> Value {
    text_result(&[
        "❌ User declined to provide the requested information.",
        "\nRaw result: {\n  \"action\": \"decline\"\n}",
    ])
}

/// The retry params answering `answer` with the state of `asked`.
fn retry(asked: &Value, answer: Value) -> Value {
    let state = asked["result"]["requestState"].as_str().unwrap_or_else(|| panic!("{asked}"));
    json!({"inputResponses": {"upstream": answer}, "requestState": state})
}

/// Asserts that `answer` asks for input as the 2026-07-28 schema says, asking `requests`.
fn assert_asks(answer: &Value, requests: &Value) {
    let result = &answer["result"];
    assert_eq!(result["resultType"], "input_required", "{answer}");
    crate::gateway::assert_valid("2026-07-28", "InputRequiredResult", result);
    assert_eq!(&result["inputRequests"], requests, "{answer}");
}

#[test]
fn a_stateless_client_is_asked_what_a_session_upstream_asks_and_its_retry_answers() {
    let gateway = gateway();
    let mut client = HttpClient::connect(&gateway.url, "2026-07-28", None);
    let can = json!({"elicitation": {}});
    let elicitation: Value =
        serde_json::from_str(include_str!("everything_elicitation.json")).expect("JSON");

    // The upstream's elicitation, asked of the client as input required while the call waits;
    // accepted, the upstream's result carries the answer.
    let first = call(&mut client, ELICIT, json!({}), can.clone(), json!({}));
    assert_asks(&first, &elicitation);
    let accept = json!({"action": "accept", "content": {"name": "Ada Lovelace", "check": true}});
    let done = call(&mut client, ELICIT, json!({}), can.clone(), retry(&first, accept.clone()));
    assert_eq!(
        sans_meta(&done),
        text_result(&[
            "✅ User provided the requested information!",
            "User inputs:\n- Name: Ada Lovelace\n- Agreed to terms: true",
            "\nRaw result: {\n  \"action\": \"accept\",\n  \"content\": {\n    \"name\": \"Ada Lovelace\",\n    \"check\": true\n  }\n}",
        ]),
        "{done}"
    );

    // The same retry again: its call is no longer held (as on another node, or expired).
    let again = call(&mut client, ELICIT, json!({}), can.clone(), retry(&first, accept.clone()));
    assert_eq!(again["result"]["isError"], true, "{again}");
    assert_eq!(
        again["result"]["structuredContent"]["error"],
        json!({"code": "upstream_unavailable", "message": "Tool trigger-elicitation-request of everything is unavailable: this gateway holds no call waiting for the answer (it expired, or the answer reached another node than the call); call the tool again without requestState. Try again later."}),
        "{again}"
    );

    // Declined: the upstream's result for a decline.
    let first = call(&mut client, ELICIT, json!({}), can.clone(), json!({}));
    assert_asks(&first, &elicitation);
    let done = call(
        &mut client,
        ELICIT,
        json!({}),
        can.clone(),
        retry(&first, json!({"action": "decline"})),
    );
    assert_eq!(sans_meta(&done), declined(), "{done}");

    // A tampered state is refused as invalid params; the call stays parked until its limit.
    let first = call(&mut client, ELICIT, json!({}), can.clone(), json!({}));
    let mut params = retry(&first, accept.clone());
    let state = params["requestState"].as_str().unwrap_or_default().to_owned();
    let mut bytes = state.into_bytes();
    let middle = bytes.len() / 2;
    bytes[middle] = if bytes[middle] == b'A' { b'B' } else { b'A' };
    params["requestState"] = json!(String::from_utf8(bytes).expect("ASCII"));
    let refused = call(&mut client, ELICIT, json!({}), can.clone(), params);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    // The untampered retry still finds it.
    let done = call(&mut client, ELICIT, json!({}), can, retry(&first, accept));
    assert_eq!(
        sans_meta(&done)["content"][0]["text"],
        "✅ User provided the requested information!"
    );
}

#[test]
fn a_stateless_client_is_asked_an_upstream_s_sampling_request() {
    let gateway = gateway();
    let mut client = HttpClient::connect(&gateway.url, "2026-07-28", None);
    let can = json!({"sampling": {}});
    let arguments = json!({"prompt": "Say hi", "maxTokens": 50});
    let first = call(&mut client, SAMPLE, arguments.clone(), can.clone(), json!({}));
    assert_asks(
        &first,
        &json!({"upstream": {"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text",
                "text": "Resource trigger-sampling-request context: Say hi"}}],
            "systemPrompt": "You are a helpful test server.",
            "maxTokens": 50,
            "temperature": 0.7
        }}}),
    );
    let sampled = json!({"role": "assistant", "content": {"type": "text", "text": "Hi!"},
                         "model": "test-model"});
    let done = call(&mut client, SAMPLE, arguments, can, retry(&first, sampled));
    assert_eq!(
        sans_meta(&done),
        text_result(&[
            "LLM sampling result: \n{\n  \"model\": \"test-model\",\n  \"role\": \"assistant\",\n  \"content\": {\n    \"type\": \"text\",\n    \"text\": \"Hi!\"\n  }\n}"
        ]),
        "{done}"
    );
}

#[test]
fn a_stateless_client_that_cannot_be_asked_gets_the_upstream_s_decline() {
    let gateway = gateway();
    let mut client = HttpClient::connect(&gateway.url, "2026-07-28", None);
    // It declared sampling, not elicitation: the elicitation is declined as before.
    let done = call(&mut client, ELICIT, json!({}), json!({"sampling": {}}), json!({}));
    assert_eq!(sans_meta(&done), declined(), "{done}");
    // It declared nothing: declined the same.
    let none = call(&mut client, ELICIT, json!({}), json!({}), json!({}));
    assert_eq!(sans_meta(&none), sans_meta(&done), "{none}");
}

//! `toolwire check` against a real local Streamable HTTP server whose answers are event streams
//! framed with CRLF (as the official Python SDK 2.3.0 server sends them), LF or lone CR, and cut
//! into chunks at awkward places: the channel hands back each message exactly as sent, refuses
//! answers past its limits, and the whole audit finds the revisions offered.

// The helpers set up the server and the channel; a failure there is a failed test.
#![allow(clippy::expect_used)]

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{Value, json};
use toolwire_check::audit::transport::{Channel, Endpoint, ReadLimits, TransportError};
use toolwire_check::audit::{self, Options, Progress};

/// How the server answers a request.
#[derive(Clone, Copy)]
enum Answer {
    /// An event stream with these line ends: a priming event without data, a comment, a
    /// notification, then the response.
    Events(&'static str),
    /// An event stream of this many notifications before the response.
    Notifications(usize),
    /// A JSON body (not an event stream) of this many bytes.
    LongJson(usize),
}

/// The text of the response to request `id` of `method` with `params`: keys out of order and
/// numbers as only their text keeps them, so that any reparse or reordering shows.
fn response_text(id: &Value, method: &str, params: &Value) -> String {
    let result = match method {
        "initialize" => {
            let version = params.get("protocolVersion").cloned().unwrap_or(Value::Null);
            format!(
                r#"{{"protocolVersion":{version},"serverInfo":{{"name":"crlf \r\n \"split\" server","version":"1.50"}},"capabilities":{{"tools":{{"listChanged":false}}}},"instructions":"Numbers: 1.50, -0, 1e400"}}"#
            )
        }
        "tools/list" => r#"{"tools":[]}"#.to_owned(),
        // The stateless revision's handshake: a server of the others does not know it.
        _ => {
            return format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"Method not found"}}}}"#
            );
        }
    };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// The chunks of `body`: cut after every carriage return (so a CRLF arrives in two chunks) and
/// inside the JSON string `"split"`.
fn awkward_chunks(body: &str) -> Vec<Vec<u8>> {
    let bytes = body.as_bytes();
    let inside_string = body.find("spl").map(|at| at + 3);
    let mut chunks = Vec::new();
    let mut from = 0;
    for at in 1..bytes.len() {
        if bytes[at - 1] == b'\r' || Some(at) == inside_string {
            chunks.push(bytes[from..at].to_vec());
            from = at;
        }
    }
    chunks.push(bytes[from..].to_vec());
    chunks
}

async fn mcp(State(answer): State<Arc<Answer>>, Json(request): Json<Value>) -> Response {
    let Some(id) = request.get("id") else {
        return StatusCode::ACCEPTED.into_response();
    };
    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
    let params = request.get("params").cloned().unwrap_or(Value::Null);
    let response = response_text(id, method, &params);
    let body = match *answer {
        Answer::LongJson(length) => {
            let padding = " ".repeat(length.saturating_sub(response.len()));
            return ([(header::CONTENT_TYPE, "application/json")], format!("{response}{padding}"))
                .into_response();
        }
        Answer::Events(eol) => [
            "id: 0",
            "retry: 3000",
            "",
            ": keep-alive",
            "event: message",
            r#"data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}"#,
            "",
            "event: message",
            &format!("data: {response}"),
            "",
            "",
        ]
        .join(eol),
        Answer::Notifications(count) => {
            let notification = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n\r\n";
            format!("{}data: {response}\r\n\r\n", notification.repeat(count))
        }
    };
    let chunks = futures::stream::iter(awkward_chunks(&body)).then(|chunk| async move {
        // Each chunk its own write, so the client reads the cuts as they are.
        tokio::time::sleep(Duration::from_millis(2)).await;
        Ok::<_, Infallible>(chunk)
    });
    ([(header::CONTENT_TYPE, "text/event-stream")], Body::from_stream(chunks)).into_response()
}

/// Starts a server answering as `answer` on 127.0.0.1; its MCP endpoint URL. Installs the TLS
/// provider the HTTP client needs, as the binary does at start.
async fn serve(answer: Answer) -> String {
    // Another test of this process may have installed it already.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let app =
        axum::Router::new().route("/mcp", axum::routing::post(mcp)).with_state(Arc::new(answer));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a local port");
    let address = listener.local_addr().expect("the bound address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{address}/mcp")
}

fn endpoint(url: &str) -> Endpoint {
    Endpoint::Http { url: url.to_owned(), headers: Vec::new() }
}

fn channel(url: &str) -> Channel {
    Channel::open(&endpoint(url), Duration::from_secs(10)).expect("an HTTP channel opens")
}

fn initialize_params() -> Value {
    json!({"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}})
}

async fn initialize_text(eol: &'static str) -> String {
    let url = serve(Answer::Events(eol)).await;
    let answer = channel(&url)
        .request("initialize", initialize_params(), &[])
        .await
        .expect("the initialize answer is read");
    answer.message.to_string()
}

#[tokio::test]
async fn a_crlf_framed_answer_cut_inside_crlf_and_a_string_is_read_exactly() {
    let expected = response_text(&json!(1), "initialize", &initialize_params());
    assert!(expected.contains(r#""protocolVersion":"2025-06-18","serverInfo""#));
    assert_eq!(initialize_text("\r\n").await, expected);
}

#[tokio::test]
async fn lf_and_lone_cr_framing_are_read_exactly_too() {
    let expected = response_text(&json!(1), "initialize", &initialize_params());
    assert_eq!(initialize_text("\n").await, expected);
    assert_eq!(initialize_text("\r").await, expected);
}

#[tokio::test]
async fn an_event_stream_past_the_byte_limit_is_refused_naming_the_url_and_limit() {
    let url = serve(Answer::Events("\r\n")).await;
    let limits = ReadLimits { bytes: 256, messages: 100 };
    let err = channel(&url)
        .with_limits(limits)
        .request("initialize", initialize_params(), &[])
        .await
        .expect_err("the answer is longer than 256 bytes");
    assert!(matches!(err, TransportError::TooLong { limit: 256, .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("the answer from {url} is longer than 256 bytes, the most read of one answer")
    );
}

#[tokio::test]
async fn a_json_body_past_the_default_byte_limit_is_refused() {
    let url = serve(Answer::LongJson(ReadLimits::DEFAULT.bytes + 1)).await;
    let err = channel(&url)
        .request("initialize", initialize_params(), &[])
        .await
        .expect_err("the answer is longer than the default limit");
    assert_eq!(
        err.to_string(),
        format!("the answer from {url} is longer than 16777216 bytes, the most read of one answer")
    );
    // At the limit exactly, the answer is read.
    let url = serve(Answer::LongJson(ReadLimits::DEFAULT.bytes)).await;
    let answer = channel(&url).request("initialize", initialize_params(), &[]).await;
    assert_eq!(answer.expect("an answer at the limit is read").message["id"], json!(1));
}

#[tokio::test]
async fn an_event_stream_of_too_many_messages_is_refused_naming_the_url_and_limit() {
    let limits = ReadLimits { bytes: ReadLimits::DEFAULT.bytes, messages: 10 };
    let url = serve(Answer::Notifications(10)).await;
    let err = channel(&url)
        .with_limits(limits)
        .request("initialize", initialize_params(), &[])
        .await
        .expect_err("11 messages are more than 10");
    assert_eq!(
        err.to_string(),
        format!("the answer from {url} holds more than 10 messages, the most read of one answer")
    );
    // Nine notifications and the response are ten messages: read.
    let url = serve(Answer::Notifications(9)).await;
    let answer = channel(&url)
        .with_limits(limits)
        .request("initialize", initialize_params(), &[])
        .await
        .expect("ten messages are read");
    assert_eq!(answer.message["id"], json!(1));
}

struct Silent;

impl Progress for Silent {
    fn planned(&self, _total: u64) {}
    fn step(&self, _what: &str) {}
}

#[tokio::test]
async fn the_audit_of_a_crlf_server_finds_every_revision_it_offers() {
    let url = serve(Answer::Events("\r\n")).await;
    let options = Options {
        endpoint: endpoint(&url),
        timeout: Duration::from_secs(10),
        cases: None,
        allow_writes: false,
        hosts: Vec::new(),
    };
    let report = audit::run(&options, &Silent).await.expect("the audit runs");
    assert_eq!(
        serde_json::to_value(&report.revisions).expect("revisions serialize"),
        json!([
            {"revision": "2024-11-05", "offered": true},
            {"revision": "2025-03-26", "offered": true},
            {"revision": "2025-06-18", "offered": true},
            {"revision": "2025-11-25", "offered": true},
            {"revision": "2026-07-28", "offered": false,
                "note": "server/discover answered with error -32601 Method not found"},
        ])
    );
    assert_eq!(report.findings, Vec::new());
}

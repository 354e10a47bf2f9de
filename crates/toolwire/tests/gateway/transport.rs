//! The transport under slow and many clients (DESIGN §12): a half-sent request is closed after
//! the header-read timeout, connections over the cap are closed while the server stays
//! reachable, sessions are capped and idle ones expire, and SIGTERM drains — calls in flight
//! get their results, half-open connections do not hold the exit, a second signal ends at once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use axum::extract::Path;
use axum::http::header;
use axum::response::IntoResponse;
use serde_json::json;

use crate::gateway::{HttpClient, Server};

const REVISION: &str = "2025-11-25";

fn address(server: &Server) -> SocketAddr {
    let rest = server.url.trim_start_matches("http://");
    rest.split('/').next().unwrap().parse().unwrap()
}

/// Reads until the peer closes the connection or `limit` passes; `Some(bytes read)` on close.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<Vec<u8>> {
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut read = Vec::new();
    match stream.read_to_end(&mut read) {
        Ok(_) => Some(read),
        Err(e) if e.kind() == ErrorKind::ConnectionReset => Some(read),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => None,
        Err(e) => panic!("read: {e}"),
    }
}

fn half_sent(server: &Server) -> TcpStream {
    let mut stream = TcpStream::connect(address(server)).unwrap();
    stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: app").unwrap();
    stream
}

fn term(server: &Server) {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// A local app whose `/sleep/{ms}` answers a v1 result after that many milliseconds.
struct App {
    runtime: tokio::runtime::Runtime,
    base: String,
}

fn app() -> App {
    async fn sleep(Path(ms): Path<u64>) -> impl IntoResponse {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        (
            [(header::CONTENT_TYPE, "application/json")],
            r#"{"format":"toolwire.result.v1","data":{"slept":true},"summary":"done"}"#,
        )
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = axum::Router::new().route("/sleep/{ms}", axum::routing::post(sleep));
    runtime.spawn(async move { axum::serve(listener, router).await });
    App { runtime, base }
}

fn sleeping_tool(app: &App, ms: u64) -> String {
    format!(
        "[auth]\nanonymous = true\n\n[[tools]]\nname = \"slow\"\ndescription = \"Answers after {ms} ms.\"\nendpoint = \"{}/sleep/{ms}\"\ntimeout_ms = 60000\n",
        app.base
    )
}

/// Calls the `slow` tool on a thread and gives the call half a second to reach the app.
fn slow_call(server: &Server) -> std::thread::JoinHandle<serde_json::Value> {
    let url = server.url.clone();
    let call = std::thread::spawn(move || {
        let mut client = HttpClient::connect(&url, REVISION, None);
        client.call("slow", json!({}))
    });
    std::thread::sleep(Duration::from_millis(500));
    call
}

#[test]
fn a_half_sent_request_is_closed_after_the_header_timeout() {
    let server = Server::start(
        Some("[auth]\nanonymous = true\n[transport]\nheader_read_timeout_ms = 300\n"),
        &[],
    );
    let mut stream = half_sent(&server);
    let started = Instant::now();
    let closed = closed_within(&mut stream, Duration::from_secs(5));
    assert!(closed.is_some(), "the half-sent request was still open after 5 s");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(250), "closed before the timeout: {waited:?}");
    // The server keeps serving whole requests.
    let mut client = HttpClient::connect(&server.url, REVISION, None);
    let r = client.call("catalog_get", json!({"id": 1}));
    assert_eq!(r["result"]["structuredContent"]["id"], 1, "{r}");
}

#[test]
fn over_the_connection_cap_new_connections_are_closed_and_serving_resumes() {
    let server =
        Server::start(Some("[auth]\nanonymous = true\n[transport]\nmax_connections = 4\n"), &[]);
    let idle: Vec<TcpStream> =
        (0..4).map(|_| TcpStream::connect(address(&server)).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut extra = TcpStream::connect(address(&server)).unwrap();
    // The write may already fail: the server closed the socket on accept.
    let _ = extra.write_all(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    let answer = closed_within(&mut extra, Duration::from_secs(5));
    assert_eq!(answer, Some(Vec::new()), "a connection over the cap was served");
    assert!(
        server.logs_within("connection cap reached", Duration::from_secs(5)),
        "{}",
        server.stderr()
    );
    drop(idle);
    std::thread::sleep(Duration::from_millis(300));
    let mut client = HttpClient::connect(&server.url, REVISION, None);
    let r = client.call("catalog_get", json!({"id": 2}));
    assert_eq!(r["result"]["structuredContent"]["id"], 2, "{r}");
}

fn initialize(server: &Server) -> u16 {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": REVISION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    });
    reqwest::blocking::Client::new()
        .post(&server.url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(body.to_string())
        .send()
        .unwrap()
        .status()
        .as_u16()
}

#[test]
fn sessions_are_capped_and_idle_ones_expire() {
    let server = Server::start(
        Some("[auth]\nanonymous = true\n[transport]\nmax_sessions = 2\nsession_idle_ms = 1000\n"),
        &[],
    );
    let _first = HttpClient::connect(&server.url, REVISION, None);
    let _second = HttpClient::connect(&server.url, REVISION, None);
    assert_eq!(initialize(&server), 500, "a third session was opened");
    assert!(
        server.logs_within("session cap reached", Duration::from_secs(5)),
        "{}",
        server.stderr()
    );
    // Stateless 2026-07-28 calls need no session and are still served.
    let mut stateless = HttpClient::connect(&server.url, "2026-07-28", None);
    let r = stateless.call("catalog_get", json!({"id": 3}));
    assert_eq!(r["result"]["structuredContent"]["id"], 3, "{r}");
    // The idle sessions expire after 1 s; until then the cap holds.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while initialize(&server) != 200 {
        assert!(std::time::Instant::now() < deadline, "idle sessions did not expire");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn sigterm_lets_a_call_in_flight_finish_and_refuses_new_connections() {
    let app = app();
    let mut server = Server::start(Some(&sleeping_tool(&app, 1500)), &[]);
    let call = slow_call(&server);
    term(&server);
    std::thread::sleep(Duration::from_millis(300));
    assert!(TcpStream::connect(address(&server)).is_err(), "still accepting after SIGTERM");
    let r = call.join().unwrap();
    assert_eq!(r["result"]["structuredContent"], json!({"slept": true}), "{r}");
    assert_eq!(server.wait_exit(Duration::from_secs(10)), Some(0), "{}", server.stderr());
    drop(app.runtime);
}

#[test]
fn a_half_open_connection_does_not_block_shutdown() {
    let mut server = Server::start(
        Some(
            "[auth]\nanonymous = true\n[transport]\nheader_read_timeout_ms = 60000\nshutdown_grace_ms = 1000\n",
        ),
        &[],
    );
    let _stream = half_sent(&server);
    // An idle session with its standalone stream open must not hold the exit either.
    let mut client = HttpClient::connect(&server.url, REVISION, None);
    let _ = client.call("catalog_count", json!({}));
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    term(&server);
    assert_eq!(server.wait_exit(Duration::from_secs(5)), Some(0), "{}", server.stderr());
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
}

#[test]
fn a_second_signal_ends_at_once() {
    let app = app();
    let config = format!("{}[transport]\nshutdown_grace_ms = 60000\n", sleeping_tool(&app, 30_000));
    let mut server = Server::start(Some(&config), &[]);
    let _call = slow_call(&server);
    term(&server);
    assert_eq!(server.wait_exit(Duration::from_millis(800)), None, "exited without draining");
    let started = Instant::now();
    term(&server);
    assert_eq!(server.wait_exit(Duration::from_secs(5)), Some(0), "{}", server.stderr());
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert!(server.stderr().contains("second signal"), "{}", server.stderr());
}

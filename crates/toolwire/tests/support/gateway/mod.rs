//! Shared helpers for the gateway tests: start the built binary, speak raw JSON-RPC to it over
//! Streamable HTTP or stdio, and validate answers against the official schema of the revision.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub(crate) mod scenario;

/// Installs the ring rustls provider for this test process, as `toolwire` does in `main`:
/// reqwest is built without a provider of its own, so building a client panics before this.
pub(crate) fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

pub(crate) const REVISIONS: [&str; 5] =
    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];

pub(crate) const DEMO_TOOLS: [&str; 10] = [
    "catalog_search",
    "catalog_get",
    "catalog_count",
    "catalog_update_price",
    "catalog_reprice",
    "catalog_export",
    "catalog_chart",
    "legacy_echo",
    "catalog_confirm_price",
    "catalog_describe",
];

/// A running `toolwire serve` over HTTP, killed on drop.
pub(crate) struct Server {
    child: Child,
    pub url: String,
    pub dir: tempfile::TempDir,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `toolwire serve --listen 127.0.0.1:0 --data-dir <tmp>` plus `args`; `config`, when
    /// given, is written to `<tmp>/toolwire.toml` and passed with `--config`.
    pub(crate) fn start(config: Option<&str>, envs: &[(&str, &str)]) -> Server {
        Self::start_in(tempfile::tempdir().expect("tempdir"), config, envs)
    }

    /// Like [`Server::start`] in a given directory (its `data` subdirectory is the data dir).
    pub(crate) fn start_in(
        dir: tempfile::TempDir,
        config: Option<&str>,
        envs: &[(&str, &str)],
    ) -> Server {
        Self::start_at("127.0.0.1:0", dir, config, envs)
    }

    /// Like [`Server::start_in`] on the address `listen` (to start a server again where it was).
    pub(crate) fn start_at(
        listen: &str,
        dir: tempfile::TempDir,
        config: Option<&str>,
        envs: &[(&str, &str)],
    ) -> Server {
        Self::start_with(&[], listen, dir, config, envs)
    }

    /// Like [`Server::start`] with the flags `args` too (`--conformance`, say).
    pub(crate) fn start_flagged(args: &[&str], config: Option<&str>) -> Server {
        Self::start_with(args, "127.0.0.1:0", tempfile::tempdir().expect("tempdir"), config, &[])
    }

    fn start_with(
        args: &[&str],
        listen: &str,
        dir: tempfile::TempDir,
        config: Option<&str>,
        envs: &[(&str, &str)],
    ) -> Server {
        install_tls_provider();
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolwire"));
        command.args(["serve", "--listen", listen, "--data-dir"]).arg(dir.path().join("data"));
        command.args(args);
        if let Some(text) = config {
            let path = dir.path().join("toolwire.toml");
            std::fs::write(&path, text).expect("write config");
            command.arg("--config").arg(path);
        }
        command.env_remove("TOOLWIRE_PHASE").env("TOOLWIRE_LOG", "info,rmcp=warn");
        command.env_remove("TOOLWIRE_SIGNING_KEYS");
        for (k, v) in envs {
            command.env(k, v);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn toolwire");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let mut reader = BufReader::new(child.stderr.take().expect("stderr"));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut line = String::new();
            let mut sent = false;
            while reader.read_line(&mut line).unwrap_or(0) > 0 {
                if !sent && let Some(at) = line.find("serving MCP on ") {
                    let url = line[at + "serving MCP on ".len()..].trim().to_owned();
                    let _ = tx.send(url);
                    sent = true;
                }
                sink.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("toolwire did not start: {}", stderr.lock().unwrap()));
        Server { child, url, dir, stderr }
    }

    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Whether `text` shows up in the log within `limit` (log lines arrive through a pipe, after
    /// the event that wrote them).
    pub(crate) fn logs_within(&self, text: &str, limit: Duration) -> bool {
        let deadline = std::time::Instant::now() + limit;
        loop {
            if self.stderr().contains(text) {
                return true;
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops the server with SIGTERM and hands back its directory.
    pub(crate) fn stop(mut self) -> tempfile::TempDir {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        assert_eq!(self.wait_exit(Duration::from_secs(10)), Some(0), "{}", self.stderr());
        let dir = tempfile::tempdir().expect("tempdir");
        std::mem::replace(&mut self.dir, dir)
    }

    /// The exit code once the process ends within `limit`.
    pub(crate) fn wait_exit(&mut self, limit: Duration) -> Option<i32> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Let the stderr reader catch the last lines.
                std::thread::sleep(Duration::from_millis(100));
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `clientInfo.name` the test clients send unless told otherwise.
pub(crate) const CLIENT_NAME: &str = "toolwire-tests";

/// The `_meta` a 2026-07-28 request carries.
pub(crate) fn meta_2026() -> Value {
    meta_2026_as(CLIENT_NAME)
}

/// The `_meta` a 2026-07-28 request of a client named `client` carries.
pub(crate) fn meta_2026_as(client: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A raw JSON-RPC client over Streamable HTTP for one revision.
pub(crate) struct HttpClient {
    http: reqwest::blocking::Client,
    url: String,
    pub revision: &'static str,
    pub session: Option<String>,
    token: Option<String>,
    next_id: u64,
    client_name: &'static str,
}

/// An HTTP answer: status and the JSON-RPC message (or the body as JSON).
pub(crate) struct Answer {
    pub status: u16,
    pub body: Value,
}

impl HttpClient {
    /// Connects: `initialize` + `notifications/initialized` for handshake revisions (asserting
    /// the negotiated revision), nothing for 2026-07-28.
    pub(crate) fn connect(url: &str, revision: &'static str, token: Option<&str>) -> HttpClient {
        Self::connect_as(url, revision, token, CLIENT_NAME)
    }

    /// Like [`HttpClient::connect`], sending `client_name` as `clientInfo.name`.
    pub(crate) fn connect_as(
        url: &str,
        revision: &'static str,
        token: Option<&str>,
        client_name: &'static str,
    ) -> HttpClient {
        install_tls_provider();
        let mut client = HttpClient {
            http: reqwest::blocking::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap(),
            url: url.to_owned(),
            revision,
            session: None,
            token: token.map(str::to_owned),
            next_id: 1,
            client_name,
        };
        handshake(&mut client);
        client
    }

    fn headers(&self, method: &str, params: &Value) -> Vec<(String, String)> {
        let mut headers = vec![
            ("Content-Type".to_owned(), "application/json".to_owned()),
            ("Accept".to_owned(), "application/json, text/event-stream".to_owned()),
        ];
        if let Some(session) = &self.session {
            headers.push(("Mcp-Session-Id".to_owned(), session.clone()));
        }
        if let Some(token) = &self.token {
            headers.push(("Authorization".to_owned(), format!("Bearer {token}")));
        }
        if self.revision >= "2025-06-18" && method != "initialize" {
            headers.push(("MCP-Protocol-Version".to_owned(), self.revision.to_owned()));
        }
        if self.revision == "2026-07-28" {
            headers.push(("Mcp-Method".to_owned(), method.to_owned()));
            let name = match method {
                "tools/call" => params.get("name"),
                "resources/read" => params.get("uri"),
                "tasks/get" | "tasks/update" | "tasks/cancel" => params.get("taskId"),
                _ => None,
            };
            if let Some(name) = name.and_then(Value::as_str) {
                headers.push(("Mcp-Name".to_owned(), name.to_owned()));
            }
        }
        headers
    }

    fn post(&mut self, method: &str, body: Value, params: &Value) -> Answer {
        let (status, text) = self.post_text(method, body, params);
        Answer { status, body: message_of(&text) }
    }

    fn post_text(&mut self, method: &str, body: Value, params: &Value) -> (u16, String) {
        let mut request = self.http.post(&self.url).body(body.to_string());
        for (k, v) in self.headers(method, params) {
            request = request.header(k, v);
        }
        let response = request.send().expect("POST");
        let status = response.status().as_u16();
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = Some(session.to_str().unwrap().to_owned());
        }
        (status, response.text().expect("body"))
    }

    /// Sends a request and returns the JSON-RPC response (result or error).
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.answer(method, params).body
    }

    /// Like [`HttpClient::request`], with the HTTP status.
    pub(crate) fn answer(&mut self, method: &str, params: Value) -> Answer {
        let (id, body, params) = self.envelope(method, params);
        let answer = self.post(method, body, &params);
        if answer.status == 200 {
            assert_eq!(answer.body["id"], id, "{}", answer.body);
        }
        answer
    }

    /// `tools/call`, returning the raw body text (for answers nested deeper than serde_json
    /// parses).
    pub(crate) fn call_text(&mut self, tool: &str, arguments: Value) -> String {
        self.request_text("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// A request, returning the raw body text (every event of an SSE answer).
    pub(crate) fn request_text(&mut self, method: &str, params: Value) -> String {
        let (_, body, params) = self.envelope(method, params);
        self.post_text(method, body, &params).1
    }

    /// The id, the JSON-RPC request and its params (with the 2026-07-28 `_meta`).
    fn envelope(&mut self, method: &str, mut params: Value) -> (u64, Value, Value) {
        if self.revision == "2026-07-28" {
            with_meta(&mut params, meta_2026_as(self.client_name));
        }
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (id, body, params)
    }

    pub(crate) fn notify(&mut self, method: &str) {
        let body = json!({"jsonrpc": "2.0", "method": method});
        let answer = self.post(method, body, &json!({}));
        assert_eq!(answer.status, 202);
    }

    /// `tools/call`; returns the JSON-RPC response.
    pub(crate) fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// Opens the session's standalone `GET` stream: its JSON-RPC messages arrive on the
    /// receiver (read by a thread until the stream ends or `limit` has passed).
    pub(crate) fn listen(&self, limit: Duration) -> std::sync::mpsc::Receiver<Value> {
        let mut request = self.http.get(&self.url).timeout(limit);
        for (k, v) in self.headers("GET", &json!({})) {
            if k != "Content-Type" && k != "Accept" {
                request = request.header(k, v);
            }
        }
        let response = request.header("Accept", "text/event-stream").send().expect("GET");
        assert_eq!(response.status().as_u16(), 200, "GET stream refused");
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(response).lines() {
                let Ok(line) = line else { return };
                if let Some(data) = line.strip_prefix("data:")
                    && let Ok(message) = serde_json::from_str::<Value>(data.trim())
                    && sender.send(message).is_err()
                {
                    return;
                }
            }
        });
        receiver
    }
}

/// The JSON-RPC message in a body: plain JSON or the last `data:` event carrying one.
pub(crate) fn message_of(text: &str) -> Value {
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        return value;
    }
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .rfind(|v| v.get("jsonrpc").is_some())
        .unwrap_or_else(|| Value::String(text.to_owned()))
}

/// A raw JSON-RPC client over stdio, one process per client.
pub(crate) struct StdioClient {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    pub revision: &'static str,
    next_id: u64,
    /// The `initialize` result (`Null` on 2026-07-28).
    pub initialized: Value,
    /// Messages read that answered no request (notifications), oldest first.
    pub heard: Vec<Value>,
    _dir: tempfile::TempDir,
}

impl StdioClient {
    pub(crate) fn start(revision: &'static str) -> StdioClient {
        Self::start_flagged(revision, &[])
    }

    /// Like [`StdioClient::start`] with the flags `args` too (`--conformance`, say).
    pub(crate) fn start_flagged(revision: &'static str, args: &[&str]) -> StdioClient {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolwire"))
            .args(["serve", "--stdio"])
            .args(args)
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .env_remove("TOOLWIRE_PHASE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn toolwire --stdio");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut client = StdioClient {
            child,
            stdin,
            stdout,
            revision,
            next_id: 1,
            initialized: Value::Null,
            heard: Vec::new(),
            _dir: dir,
        };
        client.initialized = handshake(&mut client);
        client
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("write");
        self.stdin.flush().expect("flush");
    }

    pub(crate) fn request(&mut self, method: &str, mut params: Value) -> Value {
        if self.revision == "2026-07-28" {
            with_meta(&mut params, meta_2026());
        }
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            let message = self.read();
            if message["id"] == id {
                return message;
            }
            self.heard.push(message);
        }
        panic!("no answer to {method}");
    }

    /// The next message on stdout.
    fn read(&mut self) -> Value {
        let mut line = String::new();
        if self.stdout.read_line(&mut line).expect("read") == 0 {
            panic!("toolwire closed stdout");
        }
        // Nothing but JSON-RPC may appear on stdout, one message a line.
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        message
    }

    /// The first message that answered no request and satisfies `wanted`, heard within ten
    /// seconds: kept in [`StdioClient::heard`] with the others, collected while pinging.
    pub(crate) fn hear(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(heard) = self.heard.iter().find(|message| wanted(message)) {
                return heard.clone();
            }
            assert!(Instant::now() < deadline, "never heard it; heard {:?}", self.heard);
            std::thread::sleep(Duration::from_millis(100));
            // What the server wrote before the answer to a ping is read before it.
            self.request("ping", json!({}));
        }
    }

    pub(crate) fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
    }
}

impl Drop for StdioClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Violations of `definition` of the revision's official schema.
pub(crate) fn violations(revision: &str, definition: &str, value: &Value) -> Vec<String> {
    let Ok(toolwire_core::Target::Mcp(revision)) = format!("mcp-{revision}").parse() else {
        panic!("{revision} is not an MCP revision")
    };
    toolwire_check::wire::official_mcp_violations(revision, definition, value)
        .iter()
        .map(ToString::to_string)
        .collect()
}

pub(crate) fn assert_valid(revision: &str, definition: &str, value: &Value) {
    let found = violations(revision, definition, value);
    assert!(found.is_empty(), "{revision} {definition}: {found:?}\n{value}");
}

/// The JSON-RPC error definition of the revision.
pub(crate) fn error_definition(revision: &str) -> &'static str {
    if revision >= "2025-11-25" { "JSONRPCErrorResponse" } else { "JSONRPCError" }
}

/// Checks a `tools/call` result with toolwire's wire check (official schema, contract rules and
/// the published outputSchema) and returns it.
pub(crate) fn checked_result<'a>(
    revision: &str,
    response: &'a Value,
    published_output_schema: Option<&Value>,
) -> &'a Value {
    let result = response.get("result").unwrap_or_else(|| panic!("no result: {response}"));
    let target = toolwire_core::Target::parse(&format!("mcp-{revision}")).unwrap();
    let found = toolwire_check::wire::check_with_schema(
        target,
        &result.to_string(),
        published_output_schema,
    );
    assert!(found.is_empty(), "{revision}: {found:?}\n{result}");
    result
}

/// The text of every text block.
pub(crate) fn texts(result: &Value) -> Vec<String> {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "text")
        .map(|b| b["text"].as_str().unwrap().to_owned())
        .collect()
}

/// The first stored-result link in a result (a resource_link block or the text fallback).
pub(crate) fn stored_link(result: &Value) -> String {
    for block in result["content"].as_array().unwrap() {
        if block["type"] == "resource_link" {
            return block["uri"].as_str().unwrap().to_owned();
        }
        if let Some(text) = block["text"].as_str()
            && let Some(at) = text.find("Full result stored at ")
        {
            let rest = &text[at + "Full result stored at ".len()..];
            return rest.split(' ').next().unwrap().to_owned();
        }
    }
    panic!("no stored link in {result}");
}

/// What the shared scenarios need from a transport.
pub(crate) trait Rpc {
    fn revision(&self) -> &'static str;
    fn client_name(&self) -> &'static str {
        CLIENT_NAME
    }
    fn rpc(&mut self, method: &str, params: Value) -> Value;
    fn notify(&mut self, method: &str);
    fn call_tool(&mut self, tool: &str, arguments: Value) -> Value {
        self.rpc("tools/call", json!({"name": tool, "arguments": arguments}))
    }
}

impl Rpc for HttpClient {
    fn revision(&self) -> &'static str {
        self.revision
    }
    fn client_name(&self) -> &'static str {
        self.client_name
    }
    fn rpc(&mut self, method: &str, params: Value) -> Value {
        self.request(method, params)
    }
    fn notify(&mut self, method: &str) {
        HttpClient::notify(self, method);
    }
}

impl Rpc for StdioClient {
    fn revision(&self) -> &'static str {
        self.revision
    }
    fn rpc(&mut self, method: &str, params: Value) -> Value {
        self.request(method, params)
    }
    fn notify(&mut self, method: &str) {
        self.send(&json!({"jsonrpc": "2.0", "method": method}));
    }
}

/// The `initialize` handshake of the handshake-era revisions (2026-07-28 has none): the server
/// must answer with the requested revision and a valid `InitializeResult`, which is returned.
fn handshake(client: &mut impl Rpc) -> Value {
    let revision = client.revision();
    if revision == "2026-07-28" {
        return Value::Null;
    }
    let init = client.rpc(
        "initialize",
        json!({
            "protocolVersion": revision,
            "capabilities": {},
            "clientInfo": {"name": client.client_name(), "version": "1"}
        }),
    );
    assert_eq!(init["result"]["protocolVersion"], revision, "{init}");
    assert_valid(revision, "InitializeResult", &init["result"]);
    client.notify("notifications/initialized");
    init["result"].clone()
}

/// `params` with the 2026-07-28 `_meta` defaults: keys the caller set (client capabilities,
/// say) win over them.
fn with_meta(params: &mut Value, mut meta: Value) {
    if let Some(Value::Object(own)) = params.get("_meta") {
        for (key, value) in own {
            meta[key] = value.clone();
        }
    }
    params.as_object_mut().unwrap().insert("_meta".into(), meta);
}

//! The two ways `toolwire check` reaches a server — Streamable HTTP and a child process on stdio
//! — as one raw JSON-RPC channel.
//!
//! The channel hands back every message exactly as the server sent it (parsed with key order and
//! numbers kept). A typed MCP client would deserialize results into its own types and drop or
//! default what it does not know, which is exactly what an audit must see. Every answer is read
//! under [`ReadLimits`], so a hostile server cannot make the audit hold more than they allow.
//!
//! The HTTP client takes the process's default rustls provider, which the application installs
//! (the `toolwire` binary installs ring at start); without one, opening an HTTP channel is an
//! error saying so.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use toolwire_core::sse::EventStream;

/// Where the server is.
#[derive(Debug, Clone)]
pub enum Endpoint {
    /// A Streamable HTTP endpoint, with the extra headers (`--token`, `--header`) for every POST.
    Http {
        /// The MCP endpoint URL.
        url: String,
        /// Header name and value pairs sent with every request.
        headers: Vec<(String, String)>,
    },
    /// A command started once per connection, speaking newline-delimited JSON-RPC on stdio.
    Command {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
}

impl Endpoint {
    /// How the endpoint is shown in the report.
    pub fn describe(&self) -> String {
        match self {
            Endpoint::Http { url, .. } => url.clone(),
            Endpoint::Command { program, args } => std::iter::once(program.as_str())
                .chain(args.iter().map(String::as_str))
                .fold(String::new(), |mut out, word| {
                    if !out.is_empty() {
                        out.push(' ');
                    }
                    out.push_str(word);
                    out
                }),
        }
    }
}

/// Why a message could not be exchanged at all (as opposed to an answer that breaks a rule).
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// The HTTP request failed before an answer arrived.
    #[error("cannot reach {url}: {reason}")]
    Http {
        /// The endpoint.
        url: String,
        /// What reqwest said.
        reason: String,
    },
    /// The HTTP answer was not a JSON-RPC message.
    #[error("HTTP {status} without a JSON-RPC message: {body}")]
    Status {
        /// The status code.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// The command could not be started.
    #[error("cannot start `{program}`: {reason}")]
    Spawn {
        /// The program.
        program: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The child process closed stdout or its stdin broke.
    #[error("the server process ended{}", tail(.stderr))]
    Closed {
        /// The last lines it wrote to standard error.
        stderr: String,
    },
    /// An answer longer than [`ReadLimits::bytes`].
    #[error("the answer from {from} is longer than {limit} bytes, the most read of one answer")]
    TooLong {
        /// The endpoint, as [`Endpoint::describe`] shows it.
        from: String,
        /// The limit passed.
        limit: usize,
    },
    /// An answer of more than [`ReadLimits::messages`] messages.
    #[error("the answer from {from} holds more than {limit} messages, the most read of one answer")]
    TooManyMessages {
        /// The endpoint, as [`Endpoint::describe`] shows it.
        from: String,
        /// The limit passed.
        limit: usize,
    },
    /// No answer within the timeout.
    #[error("no answer to `{method}` within {seconds} s")]
    Timeout {
        /// The request method.
        method: String,
        /// The timeout.
        seconds: u64,
    },
}

fn tail(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!("; its stderr: {}", stderr.trim())
    }
}

/// The most standard error kept from a child process, for the message when it ends.
const STDERR_TAIL: usize = 2048;
/// The most of a non-JSON-RPC HTTP body quoted in an error.
const BODY_QUOTE: usize = 300;
/// The bytes of an event stream kept for that quote: enough for [`BODY_QUOTE`] characters.
const QUOTE_BYTES: usize = 4 * BODY_QUOTE;

/// The most the channel reads of one answer: everything from sending a request to its response
/// (the HTTP body, or the stdout lines on stdio), whatever came before the response included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// Bytes of one answer; they also bound one SSE event or stdout line.
    pub bytes: usize,
    /// Messages in one answer: SSE events with data, or stdout lines.
    pub messages: usize,
}

impl ReadLimits {
    /// The limits of `toolwire check`: far above any tool result a host would take, far below
    /// what would strain the machine running the audit.
    pub const DEFAULT: Self = Self { bytes: 16 << 20, messages: 10_000 };
}

impl Default for ReadLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// One connection: an HTTP session (its `Mcp-Session-Id` once the server gives one) or one child
/// process.
pub struct Channel {
    inner: Inner,
    timeout: Duration,
    limits: ReadLimits,
    /// The endpoint as errors name it.
    from: String,
    next_id: u64,
    /// Lines on the child's stdout that were not JSON-RPC messages (stdio allows nothing else).
    pub stray_lines: Vec<String>,
}

enum Inner {
    Http {
        client: reqwest::Client,
        url: String,
        headers: Vec<(String, String)>,
        session: Option<String>,
    },
    Stdio(Box<StdioProcess>),
}

struct StdioProcess {
    // Killed when the channel is dropped without `close`.
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
}

/// A JSON-RPC answer to one request: the whole message as sent.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The response message (`result` or `error`).
    pub message: Value,
}

impl Answer {
    /// The `result` member, when the server answered with one.
    pub fn result(&self) -> Option<&Value> {
        self.message.get("result")
    }

    /// The `error` member, when the server answered with one.
    pub fn error(&self) -> Option<&Value> {
        self.message.get("error")
    }

    /// `code: message` of a JSON-RPC error answer, for the report.
    pub fn error_text(&self) -> String {
        let error = self.error().unwrap_or(&Value::Null);
        let code = error.get("code").map_or_else(|| "?".to_owned(), ToString::to_string);
        let message = error.get("message").and_then(Value::as_str).unwrap_or("");
        format!("{code} {message}").trim_end().to_owned()
    }
}

/// Why an HTTP channel cannot open in a process without a rustls provider.
const NO_PROVIDER: &str = "no rustls crypto provider is installed in this process: install one \
    (rustls's CryptoProvider::install_default, with ring's provider, say) before auditing over HTTP";

impl Channel {
    /// Opens a connection: an HTTP client (nothing is sent yet) or a started child process.
    pub fn open(endpoint: &Endpoint, timeout: Duration) -> Result<Self, TransportError> {
        let inner = match endpoint {
            Endpoint::Http { url, headers } => {
                // reqwest would panic building a client without one.
                if rustls::crypto::CryptoProvider::get_default().is_none() {
                    return Err(TransportError::Http {
                        url: url.clone(),
                        reason: NO_PROVIDER.into(),
                    });
                }
                let client =
                    reqwest::Client::builder().timeout(timeout).build().map_err(|err| {
                        TransportError::Http { url: url.clone(), reason: err.to_string() }
                    })?;
                Inner::Http { client, url: url.clone(), headers: headers.clone(), session: None }
            }
            Endpoint::Command { program, args } => Inner::Stdio(Box::new(spawn(program, args)?)),
        };
        Ok(Self {
            inner,
            timeout,
            limits: ReadLimits::DEFAULT,
            from: endpoint.describe(),
            next_id: 1,
            stray_lines: Vec::new(),
        })
    }

    /// The channel reading every answer under `limits` instead of [`ReadLimits::DEFAULT`].
    #[must_use]
    pub fn with_limits(self, limits: ReadLimits) -> Self {
        Self { limits, ..self }
    }

    /// Sends the request `method` with `params` and returns the server's answer to it.
    /// `headers` are the per-request HTTP headers of the revision (ignored on stdio).
    pub async fn request(
        &mut self,
        method: &str,
        params: Value,
        headers: &[(String, String)],
    ) -> Result<Answer, TransportError> {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let (timeout, limits) = (self.timeout, self.limits);
        let exchange = async {
            match &mut self.inner {
                Inner::Http { client, url, headers: fixed, session } => {
                    let post = Post { client, url, fixed, headers };
                    http_exchange(&post, session, &message, Some((id, limits))).await
                }
                Inner::Stdio(process) => {
                    process.send(&message).await?;
                    process.answer(id, limits, &self.from, &mut self.stray_lines).await
                }
            }
        };
        match tokio::time::timeout(timeout, exchange).await {
            Ok(answer) => answer.map(|message| Answer { message: message.unwrap_or(Value::Null) }),
            Err(_) => Err(TransportError::Timeout {
                method: method.to_owned(),
                seconds: timeout.as_secs(),
            }),
        }
    }

    /// Sends the notification `method` (no answer expected).
    pub async fn notify(
        &mut self,
        method: &str,
        headers: &[(String, String)],
    ) -> Result<(), TransportError> {
        let message = json!({"jsonrpc": "2.0", "method": method});
        match &mut self.inner {
            Inner::Http { client, url, headers: fixed, session } => {
                let post = Post { client, url, fixed, headers };
                http_exchange(&post, session, &message, None).await.map(drop)
            }
            Inner::Stdio(process) => process.send(&message).await,
        }
    }
}

/// How long a child process gets to exit after its stdin closes before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(3);

impl Channel {
    /// Ends the connection. A child process has its stdin closed (the stdio transport's
    /// shutdown) and is waited for, killed after a grace period, so the next connection never
    /// overlaps it (servers that lock their data directory start one at a time).
    pub async fn close(self) {
        if let Inner::Stdio(process) = self.inner {
            let StdioProcess { mut child, stdin, .. } = *process;
            drop(stdin);
            if tokio::time::timeout(EXIT_GRACE, child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
        }
    }
}

/// Where and how the channel POSTs.
struct Post<'a> {
    client: &'a reqwest::Client,
    url: &'a str,
    /// The headers of every request (`--token`, `--header`).
    fixed: &'a [(String, String)],
    /// The headers of this request's revision.
    headers: &'a [(String, String)],
}

impl Post<'_> {
    /// A POST of `message` with the fixed headers, the revision's headers and the session.
    fn of(&self, session: Option<&str>, message: &Value) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .post(self.url)
            .header("Content-Type", "application/json")
            .body(message.to_string());
        for (name, value) in self.fixed.iter().chain(self.headers) {
            request = request.header(name, value);
        }
        if let Some(session) = session {
            request = request.header("Mcp-Session-Id", session);
        }
        request
    }
}

/// POSTs `message`; for a request (its id and the limits of the answer given) reads the answer,
/// from a JSON body or the SSE stream, until the response with that id arrives.
async fn http_exchange(
    post: &Post<'_>,
    session: &mut Option<String>,
    message: &Value,
    request: Option<(u64, ReadLimits)>,
) -> Result<Option<Value>, TransportError> {
    let url = post.url;
    let failed =
        |err: reqwest::Error| TransportError::Http { url: url.to_owned(), reason: err.to_string() };
    let sent = post
        .of(session.as_deref(), message)
        .header("Accept", "application/json, text/event-stream");
    let mut response = sent.send().await.map_err(failed)?;
    if let Some(value) = response.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()) {
        *session = Some(value.to_owned());
    }
    let status = response.status().as_u16();
    let Some((id, limits)) = request else {
        return Ok(None);
    };
    let event_stream = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    // The whole JSON body, or the start of an event stream (for the error quote).
    let mut body = Vec::new();
    let mut events = EventStream::default();
    let (mut read, mut messages) = (0, 0);
    let broke = |err: reqwest::Error| TransportError::Http {
        url: url.to_owned(),
        reason: format!("the answer broke off: {err}"),
    };
    while let Some(chunk) = response.chunk().await.map_err(broke)? {
        read += chunk.len();
        if read > limits.bytes {
            return Err(TransportError::TooLong { from: url.to_owned(), limit: limits.bytes });
        }
        if !event_stream {
            body.extend_from_slice(&chunk);
            continue;
        }
        let room = QUOTE_BYTES.saturating_sub(body.len()).min(chunk.len());
        body.extend_from_slice(&chunk[..room]);
        for data in events.feed(&chunk) {
            messages += 1;
            if messages > limits.messages {
                return Err(TransportError::TooManyMessages {
                    from: url.to_owned(),
                    limit: limits.messages,
                });
            }
            let Ok(message) = serde_json::from_str::<Value>(&String::from_utf8_lossy(&data)) else {
                continue;
            };
            if is_response_to(&message, id) {
                return Ok(Some(message));
            }
            // A server waiting on an answer from the client (elicitation, sampling, roots)
            // would hold the call until the timeout.
            if let Some(refusal) = refusal_of(&message) {
                let refused = post.of(session.as_deref(), &refusal);
                tokio::spawn(async move {
                    let _ = refused.send().await;
                });
            }
        }
    }
    let text = String::from_utf8_lossy(&body);
    // Every complete event was read above; an unfinished one at the end is no event.
    let found = (!event_stream)
        .then(|| serde_json::from_str::<Value>(&text).ok())
        .flatten()
        .filter(|v| v.get("jsonrpc").is_some());
    found.map(Some).ok_or_else(|| TransportError::Status {
        status,
        body: text.chars().take(BODY_QUOTE).collect::<String>(),
    })
}

/// The answer to a request from the server: this client offers no features.
fn refusal_of(message: &Value) -> Option<Value> {
    let id = message.get("id")?;
    message.get("method")?;
    Some(json!({"jsonrpc": "2.0", "id": id,
        "error": {"code": -32601, "message": "toolwire check offers no client features"}}))
}

fn is_response_to(message: &Value, id: u64) -> bool {
    message.get("id").and_then(Value::as_u64) == Some(id)
        && (message.get("result").is_some() || message.get("error").is_some())
}

fn spawn(program: &str, args: &[String]) -> Result<StdioProcess, TransportError> {
    let spawn_failed =
        |reason: String| TransportError::Spawn { program: program.to_owned(), reason };
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|err| spawn_failed(err.to_string()))?;
    let (Some(stdin), Some(stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(spawn_failed("its standard streams are not available".to_owned()));
    };
    let kept = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
    let sink = kept.clone();
    // Drain stderr so a chatty server never blocks on a full pipe; keep the tail for errors.
    tokio::spawn(async move {
        let mut buffer = [0u8; 1024];
        while let Ok(read) = stderr.read(&mut buffer).await {
            if read == 0 {
                break;
            }
            let mut tail = sink.lock().unwrap_or_else(PoisonError::into_inner);
            tail.extend(&buffer[..read]);
            let excess = tail.len().saturating_sub(STDERR_TAIL);
            tail.drain(..excess);
        }
    });
    Ok(StdioProcess { child, stdin, stdout: BufReader::new(stdout), stderr: kept })
}

impl StdioProcess {
    fn closed(&self) -> TransportError {
        let tail = self.stderr.lock().unwrap_or_else(PoisonError::into_inner);
        let bytes: Vec<u8> = tail.iter().copied().collect();
        TransportError::Closed { stderr: String::from_utf8_lossy(&bytes).into_owned() }
    }

    async fn send(&mut self, message: &Value) -> Result<(), TransportError> {
        let mut line = message.to_string();
        line.push('\n');
        if self.stdin.write_all(line.as_bytes()).await.is_err() || self.stdin.flush().await.is_err()
        {
            return Err(self.closed());
        }
        Ok(())
    }

    /// Reads stdout until the response to `id`, within `limits`; answers requests from the
    /// server (this client offers no capabilities) and skips notifications. `from` names the
    /// command in errors.
    async fn answer(
        &mut self,
        id: u64,
        limits: ReadLimits,
        from: &str,
        stray: &mut Vec<String>,
    ) -> Result<Option<Value>, TransportError> {
        let mut line = String::new();
        let (mut read, mut messages) = (0, 0);
        loop {
            line.clear();
            // One byte more than is left, to tell a line that reaches the limit from a longer one.
            let room = limits.bytes.saturating_sub(read).saturating_add(1) as u64;
            match (&mut self.stdout).take(room).read_line(&mut line).await {
                Ok(0) | Err(_) => return Err(self.closed()),
                Ok(length) => read += length,
            }
            if read > limits.bytes {
                return Err(TransportError::TooLong { from: from.to_owned(), limit: limits.bytes });
            }
            messages += 1;
            if messages > limits.messages {
                return Err(TransportError::TooManyMessages {
                    from: from.to_owned(),
                    limit: limits.messages,
                });
            }
            let text = line.trim_end_matches(['\r', '\n']);
            let message = match serde_json::from_str::<Value>(text) {
                Ok(message) if message.get("jsonrpc").is_some() => message,
                _ => {
                    stray.push(text.chars().take(BODY_QUOTE).collect());
                    continue;
                }
            };
            if is_response_to(&message, id) {
                return Ok(Some(message));
            }
            if let Some(refusal) = refusal_of(&message) {
                self.send(&refusal).await?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_without_a_crypto_provider_is_an_error_not_a_panic() {
        // Nothing in this test binary installs a process-wide provider.
        let endpoint = Endpoint::Http { url: "http://127.0.0.1:9/mcp".into(), headers: vec![] };
        let Err(error) = Channel::open(&endpoint, Duration::from_secs(1)) else {
            panic!("an HTTP channel opened without a crypto provider");
        };
        assert_eq!(
            error.to_string(),
            "cannot reach http://127.0.0.1:9/mcp: no rustls crypto provider is installed in this \
             process: install one (rustls's CryptoProvider::install_default, with ring's provider, \
             say) before auditing over HTTP"
        );
    }

    #[test]
    fn requests_from_the_server_are_refused_and_only_a_response_answers() {
        let elicitation = json!({"jsonrpc": "2.0", "id": 9, "method": "elicitation/create"});
        assert_eq!(
            refusal_of(&elicitation),
            Some(json!({"jsonrpc": "2.0", "id": 9,
                "error": {"code": -32601, "message": "toolwire check offers no client features"}}))
        );
        assert!(!is_response_to(&elicitation, 9));
        let response = json!({"jsonrpc": "2.0", "id": 3, "result": {}});
        assert!(is_response_to(&response, 3));
        assert!(!is_response_to(&response, 4));
        assert_eq!(refusal_of(&response), None);
        assert_eq!(
            refusal_of(&json!({"jsonrpc": "2.0", "method": "notifications/progress"})),
            None
        );
    }

    /// A shell running `script`, its stdin kept open while it runs.
    fn shell(script: &str) -> Endpoint {
        Endpoint::Command {
            program: "sh".to_owned(),
            args: vec!["-c".to_owned(), script.to_owned()],
        }
    }

    async fn stdio_error(script: &str, limits: ReadLimits) -> String {
        let mut channel = Channel::open(&shell(script), Duration::from_secs(10))
            .expect("sh starts")
            .with_limits(limits);
        let answer = channel.request("tools/list", json!({}), &[]).await;
        answer.expect_err("the answer is past the limit").to_string()
    }

    #[tokio::test]
    async fn a_stdout_line_past_the_byte_limit_is_refused_naming_the_command() {
        let limits = ReadLimits { bytes: 1024, messages: 10 };
        let script = "head -c 1025 /dev/zero | tr '\\0' x; echo; sleep 5";
        assert_eq!(
            stdio_error(script, limits).await,
            format!(
                "the answer from sh -c {script} is longer than 1024 bytes, the most read of one answer"
            )
        );
    }

    #[tokio::test]
    async fn stdout_lines_past_the_message_limit_are_refused_naming_the_command() {
        let limits = ReadLimits { bytes: 1024, messages: 10 };
        let script = "yes '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}'";
        assert_eq!(
            stdio_error(script, limits).await,
            format!(
                "the answer from sh -c {script} holds more than 10 messages, the most read of one answer"
            )
        );
    }

    #[tokio::test]
    async fn a_stdio_answer_at_the_limits_is_read() {
        let response = r#"{"jsonrpc":"2.0","id":1,"result":{"n":1.50}}"#;
        let notification = r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#;
        let script = format!("echo '{notification}'; echo '{response}'; sleep 5");
        let limits = ReadLimits { bytes: notification.len() + response.len() + 2, messages: 2 };
        let mut channel = Channel::open(&shell(&script), Duration::from_secs(10))
            .expect("sh starts")
            .with_limits(limits);
        let answer = channel.request("tools/list", json!({}), &[]).await.expect("an answer");
        assert_eq!(answer.message.to_string(), response);
    }

    #[test]
    fn a_command_endpoint_is_shown_as_its_command_line() {
        let endpoint = Endpoint::Command {
            program: "python".to_owned(),
            args: vec!["-m".to_owned(), "server".to_owned()],
        };
        assert_eq!(endpoint.describe(), "python -m server");
    }
}

//! A `tools/call` to a Streamable HTTP upstream sent by the gateway itself, beside rmcp's client
//! (which keeps the handshake, the lists, notifications, tasks and every call that relays
//! progress or questions): one POST through the gateway's outbound transport, with the
//! session id and revision rmcp's connection negotiated, the answer read as JSON or as an event
//! stream (`toolwire_core::sse`) and a complete result handed on as the JSON it came as. rmcp's
//! client spends several times the gateway's own work on a call (a worker task and channels per
//! request, the answer decoded into its typed model and written back to JSON).
//!
//! A call the upstream never received (the connection refused, no TLS) or refused before
//! running it (a 4xx, such as an expired session's 404) goes the rmcp way instead
//! ([`Called::Missed`]), which also re-opens an expired session; after that, what the upstream
//! said is the answer, and a call that may have reached it is never made twice.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use http::{HeaderMap, HeaderName, HeaderValue};
use rmcp::model::{ErrorData, ServerResult};
use rmcp::service::ServiceError;
use serde_json::{Value, json};
use toolwire_core::McpRevision;
use toolwire_core::revision::McpCaps;
use toolwire_core::sse::EventStream;

use crate::outbound::{Answer, FailureKind, Transport, is_json_media};

/// The session id rmcp's connection carries on its requests (none before the handshake, and
/// none for a stateless 2026-07-28 upstream), kept current by the client `connect` gives rmcp.
pub(super) type SessionId = Arc<Mutex<Option<Arc<str>>>>;

/// The session header.
const SESSION: HeaderName = HeaderName::from_static("mcp-session-id");

/// Why a call went no further than the gateway: said by the model as
/// `its answer was not a JSON-RPC message`.
const NOT_JSON_RPC: &str = "its answer was not a JSON-RPC message";

/// How one connection's lean calls are made.
pub(super) struct Lean {
    transport: Transport,
    url: String,
    /// The configured headers, content type, accept and protocol version.
    headers: HeaderMap,
    session: SessionId,
    /// The revision's request `_meta` (2026-07-28: revision, client info and capabilities, as
    /// rmcp puts on each request); `None` on a handshake revision.
    meta: Option<Value>,
    /// The revision has the standard request headers (`Mcp-Method`, `Mcp-Name`).
    standard: bool,
    /// The largest answer read.
    cap: usize,
    next: AtomicU64,
}

/// A `tools/call` request as it is sent, written from borrowed parts (the arguments are not
/// copied into a tree of their own first).
#[derive(serde::Serialize)]
struct CallRequest<'a> {
    jsonrpc: &'static str,
    id: &'a str,
    method: &'static str,
    params: CallParams<'a>,
}

/// The params of a [`CallRequest`].
#[derive(serde::Serialize)]
struct CallParams<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    arguments: Option<&'a serde_json::Map<String, Value>>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a Value>,
}

/// What a lean call came to.
pub(super) enum Called {
    /// A complete `CallToolResult`, as JSON.
    Complete(Value),
    /// Any other answer, typed as rmcp types it: a task, input asked for, a JSON-RPC error.
    Typed(Box<Result<ServerResult, ServiceError>>),
    /// An answer came that cannot be read (what the model is told); asking again gets the same.
    Unreadable(String),
    /// No answer came, and nothing ran at the upstream (why, for the log): the call goes the
    /// rmcp way.
    Missed(String),
}

impl Lean {
    /// Lean calls to `url` through `transport` with `headers` (the configured ones) at
    /// `revision`, the session as `session` has it, `meta` on each call (2026-07-28), answers
    /// read up to `cap` bytes.
    pub(super) fn new(
        transport: Transport,
        url: String,
        mut headers: HeaderMap,
        revision: &str,
        session: SessionId,
        meta: Option<Value>,
        cap: usize,
    ) -> Result<Self, String> {
        let version = HeaderValue::from_str(revision)
            .map_err(|_| format!("the revision `{}` cannot be sent", revision.escape_debug()))?;
        headers.insert(http::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            http::header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        headers.insert(HeaderName::from_static("mcp-protocol-version"), version);
        // A revision newer than toolwire's table has them too.
        let standard =
            McpRevision::exact(revision).is_none_or(|known| McpCaps::of(known).method_headers);
        Ok(Self { transport, url, headers, session, meta, standard, cap, next: AtomicU64::new(1) })
    }

    /// Calls the tool `name` with `arguments`; dropped before the answer, it cancels the call
    /// at the upstream.
    pub(super) async fn call(
        self: &Arc<Self>,
        name: &str,
        arguments: Option<&serde_json::Map<String, Value>>,
    ) -> Called {
        // A string id never meets rmcp's numbers on the same session.
        let id = format!("tw-{}", self.next.fetch_add(1, Ordering::Relaxed));
        let request = CallRequest {
            jsonrpc: "2.0",
            id: &id,
            method: "tools/call",
            params: CallParams { name, arguments, meta: self.meta.as_ref() },
        };
        let Ok(body) = serde_json::to_vec(&request) else {
            return Called::Missed("the call could not be written as JSON".into());
        };
        let mut headers = self.headers(Some("tools/call"));
        if self.standard {
            // Upstream tool names are MCP names (`[A-Za-z0-9_.-]`): sent as they are.
            let Ok(value) = HeaderValue::from_str(name) else {
                return Called::Missed("the tool name cannot be a header".into());
            };
            headers.insert(HeaderName::from_static("mcp-name"), value);
        }
        let mut cancel = CancelOnDrop { lean: Arc::clone(self), id: Some(id.clone()) };
        let sent = self.transport.send(http::Method::POST, &self.url, headers, body);
        let mut answer = match sent.await {
            Ok(answer) => answer,
            // Refused or no TLS: nothing reached the upstream, rmcp's client may try. Any
            // other failure may have come after the request went out: the call is not made
            // again.
            Err(failure) if matches!(failure.kind, FailureKind::Unreachable | FailureKind::Tls) => {
                cancel.id = None;
                return Called::Missed(failure.detail);
            }
            Err(failure) => {
                cancel.id = None;
                tracing::debug!(detail = %failure.detail, "a lean call got no answer");
                return Called::Typed(Box::new(Err(ServiceError::TransportClosed)));
            }
        };
        // A 4xx refused the request (a 404: the session expired); a 5xx, or a 202 where an
        // answer was due, may have come after the call ran.
        if answer.status.is_client_error() {
            cancel.id = None;
            return Called::Missed(format!("it answered HTTP {}", answer.status));
        }
        if !answer.status.is_success() || answer.status == http::StatusCode::ACCEPTED {
            tracing::debug!(status = %answer.status, "an upstream answered a lean call without a message");
            return Called::Typed(Box::new(Err(ServiceError::TransportClosed)));
        }
        let media = answer.header(http::header::CONTENT_TYPE).unwrap_or_default().to_owned();
        let called = if is_json_media(&media) {
            match self.read(&mut answer).await {
                Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
                    Ok(message) if is_ours(&message, &id) => answered(message),
                    _ => Called::Unreadable(NOT_JSON_RPC.into()),
                },
                Err(called) => called,
            }
        } else if media.split(';').next().is_some_and(|m| m.trim() == "text/event-stream") {
            self.stream(&mut answer, &id).await
        } else {
            Called::Unreadable(NOT_JSON_RPC.into())
        };
        cancel.id = None;
        called
    }

    /// The common headers of a POST of `method` (none: a response), the session's and the
    /// method's included.
    fn headers(&self, method: Option<&'static str>) -> HeaderMap {
        let mut headers = self.headers.clone();
        let session = self.session.lock().unwrap_or_else(PoisonError::into_inner).clone();
        if let Some(value) = session.and_then(|id| HeaderValue::from_str(&id).ok()) {
            headers.insert(SESSION, value);
        }
        if let Some(method) = method.filter(|_| self.standard) {
            headers.insert(HeaderName::from_static("mcp-method"), HeaderValue::from_static(method));
        }
        headers
    }

    /// The whole body, within the cap (one the server says is larger is not read).
    async fn read(&self, answer: &mut Answer) -> Result<Vec<u8>, Called> {
        let said = answer.content_length().unwrap_or(0);
        if said > self.cap as u64 {
            return Err(self.too_large());
        }
        let mut bytes = Vec::with_capacity(usize::try_from(said).unwrap_or(0));
        while let Some(chunk) = self.chunk(answer).await? {
            if bytes.len() + chunk.len() > self.cap {
                return Err(self.too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(bytes)
    }

    /// The next piece of the body; a body that broke off got no answer, though the call may
    /// have run: it is not made again.
    async fn chunk(&self, answer: &mut Answer) -> Result<Option<hyper::body::Bytes>, Called> {
        answer.chunk().await.map_err(|detail| {
            tracing::debug!(detail = %detail, "an upstream's answer broke off");
            Called::Typed(Box::new(Err(ServiceError::TransportClosed)))
        })
    }

    fn too_large(&self) -> Called {
        Called::Unreadable(format!(
            "its answer was over the limit of {} MiB for one answer",
            self.cap >> 20
        ))
    }

    /// Reads an event stream until the answer with `id`: notifications on it are dropped, and
    /// a request of the upstream's is answered as rmcp answers one that no client can be asked.
    async fn stream(&self, answer: &mut Answer, id: &str) -> Called {
        let mut events = EventStream::default();
        let mut read = 0usize;
        loop {
            let chunk = match self.chunk(answer).await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => return Called::Typed(Box::new(Err(ServiceError::TransportClosed))),
                Err(called) => return called,
            };
            read += chunk.len();
            if read > self.cap {
                return self.too_large();
            }
            for data in events.feed(&chunk) {
                let Ok(message) = serde_json::from_slice::<Value>(&data) else {
                    return Called::Unreadable(NOT_JSON_RPC.into());
                };
                if is_ours(&message, id) {
                    return answered(message);
                }
                if let Some(reply) = unaskable(&message) {
                    self.reply(reply);
                }
            }
        }
    }

    /// Sends `reply` (an answer to the upstream's request) from a task of its own.
    fn reply(&self, reply: Value) {
        let headers = self.headers(None);
        let (transport, url) = (self.transport.clone(), self.url.clone());
        tokio::spawn(async move {
            if let Err(failure) = transport
                .send(http::Method::POST, &url, headers, reply.to_string().into_bytes())
                .await
            {
                tracing::debug!(detail = %failure.detail, "an answer to an upstream's request could not be sent");
            }
        });
    }
}

/// Whether `message` is the JSON-RPC answer to the request `id`.
fn is_ours(message: &Value, id: &str) -> bool {
    message.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && message.get("id").and_then(Value::as_str) == Some(id)
        && (message.get("result").is_some() || message.get("error").is_some())
}

/// What the answer `message` says: a complete result as its JSON; a task or input asked for
/// typed as rmcp types them; an error as rmcp's.
fn answered(message: Value) -> Called {
    let Value::Object(mut message) = message else {
        return Called::Unreadable(NOT_JSON_RPC.into());
    };
    if let Some(error) = message.remove("error") {
        return match serde_json::from_value::<ErrorData>(error) {
            Ok(error) => Called::Typed(Box::new(Err(ServiceError::McpError(error)))),
            Err(_) => Called::Unreadable(NOT_JSON_RPC.into()),
        };
    }
    let result = message.remove("result").unwrap_or(Value::Null);
    if !result.is_object() {
        return Called::Typed(Box::new(Err(ServiceError::UnexpectedResponse)));
    }
    match result.get("resultType").and_then(Value::as_str) {
        None | Some("complete") => Called::Complete(result),
        Some(_) => Called::Typed(Box::new(
            serde_json::from_value::<ServerResult>(result)
                .map_err(|_| ServiceError::UnexpectedResponse),
        )),
    }
}

/// The answer to a request of the upstream's that arrived while no client can be asked, as
/// rmcp's client handler gives it (`super::connect::Handler`): an elicitation is declined,
/// sampling is not supported, a ping is answered, roots are none; `None` for anything that is
/// not a request.
fn unaskable(message: &Value) -> Option<Value> {
    let method = message.get("method").and_then(Value::as_str)?;
    let id = message.get("id").filter(|id| !id.is_null())?.clone();
    let answer = match method {
        "elicitation/create" => Ok(json!({ "action": "decline" })),
        "ping" => Ok(json!({})),
        "roots/list" => Ok(json!({ "roots": [] })),
        #[allow(
            deprecated,
            reason = "rmcp marks sampling deprecated (SEP-2577), but the revisions an upstream speaks still have it"
        )]
        "sampling/createMessage" => {
            Err(ErrorData::method_not_found::<rmcp::model::CreateMessageRequestMethod>())
        }
        other => {
            Err(ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, other.to_owned(), None))
        }
    };
    Some(match answer {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error }),
    })
}

/// Cancels the call `id` at the upstream when dropped before its answer (the gateway stopped
/// waiting: its limit passed, the client cancelled), as `super::relay::CancelOnDrop` does for
/// rmcp's calls.
struct CancelOnDrop {
    lean: Arc<Lean>,
    id: Option<String>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        // A drop cannot wait: the notification goes from a task of its own.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let headers = self.lean.headers(Some("notifications/cancelled"));
        let (transport, url) = (self.lean.transport.clone(), self.lean.url.clone());
        let notification = json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": id, "reason": "the gateway stopped waiting for this call" },
        });
        runtime.spawn(async move {
            if let Err(failure) =
                transport.send(http::Method::POST, &url, headers, notification.to_string().into_bytes()).await
            {
                tracing::debug!(detail = %failure.detail, "a cancellation could not be sent upstream");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_written_as_json_rpc_with_only_the_params_it_has() {
        let arguments = json!({"id": 42, "note": "é\n"});
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        let written = |arguments, meta| {
            let params = CallParams { name: "get", arguments, meta };
            let request = CallRequest { jsonrpc: "2.0", id: "tw-7", method: "tools/call", params };
            serde_json::to_string(&request).unwrap_or_else(|e| panic!("{e}"))
        };
        assert_eq!(
            written(arguments.as_object(), Some(&meta)),
            r#"{"jsonrpc":"2.0","id":"tw-7","method":"tools/call","params":{"name":"get","arguments":{"id":42,"note":"é\n"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
        );
        assert_eq!(
            written(None, None),
            r#"{"jsonrpc":"2.0","id":"tw-7","method":"tools/call","params":{"name":"get"}}"#
        );
    }

    /// The messages of `stream` that `Lean::stream` would look at, in order.
    fn messages(stream: &str) -> Vec<Value> {
        EventStream::default()
            .feed(stream.as_bytes())
            .iter()
            .map(|data| serde_json::from_slice(data).unwrap_or_else(|e| panic!("{e}")))
            .collect()
    }

    const STREAM: &str = "event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n\
        data: {\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"elicitation/create\",\n\
        data: \"params\":{}}\n\n\
        data: {\"jsonrpc\":\"2.0\",\"id\":\"tw-1\",\"result\":{\"content\":[]}}\n\n";

    #[test]
    fn lf_and_crlf_streams_carry_the_same_messages_and_ours_is_found_after_others() {
        let crlf = STREAM.replace('\n', "\r\n");
        for stream in [STREAM, crlf.as_str()] {
            let messages = messages(stream);
            assert_eq!(messages.len(), 3);
            // A notification is neither ours nor a request.
            assert!(!is_ours(&messages[0], "tw-1"));
            assert!(unaskable(&messages[0]).is_none());
            // A request of the upstream's, whose data came on two lines: declined.
            assert!(!is_ours(&messages[1], "tw-1"));
            assert_eq!(
                unaskable(&messages[1]),
                Some(json!({"jsonrpc": "2.0", "id": 7, "result": {"action": "decline"}}))
            );
            assert!(is_ours(&messages[2], "tw-1"));
            assert!(!is_ours(&messages[2], "tw-2"));
            match answered(messages[2].clone()) {
                Called::Complete(result) => assert_eq!(result, json!({"content": []})),
                _ => panic!("not a complete result"),
            }
        }
    }

    #[test]
    fn sampling_and_unknown_requests_are_refused_as_rmcp_refuses_them() {
        let asked = json!({"jsonrpc": "2.0", "id": "s", "method": "sampling/createMessage"});
        let refused = unaskable(&asked).unwrap_or_else(|| panic!("unanswered"));
        assert_eq!(refused["error"]["code"], json!(-32601));
        let asked = json!({"jsonrpc": "2.0", "id": 2, "method": "x/y"});
        let refused = unaskable(&asked).unwrap_or_else(|| panic!("unanswered"));
        assert_eq!(refused["error"], json!({"code": -32601, "message": "x/y"}));
        assert_eq!(
            unaskable(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"})),
            Some(json!({"jsonrpc": "2.0", "id": 3, "result": {}}))
        );
    }

    #[test]
    fn errors_tasks_and_garbage_are_read_as_rmcp_reads_them() {
        let error = json!({"jsonrpc": "2.0", "id": "tw-1",
                           "error": {"code": -32602, "message": "qty must be positive"}});
        let Called::Typed(typed) = answered(error) else { panic!("not typed") };
        let Err(ServiceError::McpError(error)) = *typed else { panic!("not the error") };
        assert_eq!(error.code.0, -32602);
        assert_eq!(error.message, "qty must be positive");
        let task = json!({"jsonrpc": "2.0", "id": "tw-1", "result": {
            "resultType": "task", "taskId": "t1", "status": "working",
            "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
            "ttl": 60000}});
        assert!(
            matches!(answered(task), Called::Typed(typed) if matches!(*typed, Ok(ServerResult::CreateTaskResult(_))))
        );
        let odd = json!({"jsonrpc": "2.0", "id": "tw-1", "result": "not an object"});
        assert!(
            matches!(answered(odd), Called::Typed(typed) if matches!(*typed, Err(ServiceError::UnexpectedResponse)))
        );
    }
}

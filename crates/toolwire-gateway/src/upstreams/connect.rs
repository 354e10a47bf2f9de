//! One connection to an upstream: the transport (a child process on stdio, or Streamable HTTP
//! through the gateway's own reqwest client with the upstream's headers, CA file and proxy) and
//! the MCP lifecycle at the newest revision the upstream accepts — `server/discover` for
//! 2026-07-28 first, `initialize` when the upstream does not know it.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::BoxStream;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientResult, ElicitRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ErrorData, ProtocolVersion, ServerRequest,
};
#[allow(
    deprecated,
    reason = "rmcp marks sampling deprecated (SEP-2577), but the revisions an upstream speaks still have it"
)]
use rmcp::model::{CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt as _, InboundStreamOrigin, Peer, QuitReason,
    RequestContext, RoleClient, RunningService, ServiceError,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::SseError;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::Sse;
use tokio::sync::Notify;

use super::UpstreamError;
use super::lean::{Lean, SessionId};
use super::park::Question;
use super::relay::{Client, Relays};
use crate::config::{Upstream, UpstreamTransport};

/// How long opening a connection (the handshake included) may take.
pub(super) const CONNECT_LIMIT: Duration = Duration::from_secs(30);

/// The largest JSON answer read from an HTTP upstream: the gateway's own limits and offload deal
/// with large results, so this only bounds memory.
const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;

/// The largest message read from a stdio upstream. A message is a line, held whole while it is
/// read, so a longer one is skipped as it comes (never buffered past this) and the call it
/// answered ends at once as `upstream_unavailable` (`super::lines`). rmcp's own default, named
/// here so that the bound is the gateway's decision and does not move with the library.
pub(super) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// What the upstream may tell the gateway outside an answer: rmcp's client handler, which hears
/// `notifications/tools/list_changed` (and the other list changes) and wakes the supervisor,
/// passes progress on to the client whose call it is about, and relays the upstream's
/// elicitation and sampling requests to that client when it can be asked (`Relays::asker_for`:
/// over its session, or as input required while its call is parked, `super::park`);
/// otherwise an elicitation is declined and sampling is not supported, rmcp's own answers. It
/// declares both capabilities to the upstream, which then may ask during a call, and the tasks
/// extension, so that an upstream that has it may answer a call with a task (`super::task`; on
/// 2026-07-28 rmcp puts the declaration in every request's `_meta`).
#[derive(Clone)]
pub(super) struct Handler {
    /// Notified when a list of the upstream changed.
    pub(super) changed: Arc<Notify>,
    /// Where progress goes.
    pub(super) relays: Arc<Relays>,
}

/// How long the client of a call has to answer a request relayed from its upstream: a person
/// may be filling in a form.
const RELAYED_ANSWER_LIMIT: Duration = Duration::from_secs(600);

impl Handler {
    /// Sends `request` to the client of the call it is about, if that client declared what it
    /// takes (`can`); `None` when no client can be asked.
    async fn relay(
        &self,
        request: ServerRequest,
        origin: Option<&InboundStreamOrigin>,
        can: fn(&super::relay::Asker) -> bool,
    ) -> Option<Result<ClientResult, ErrorData>> {
        // The upstream may ask before the gateway has noted its call (the request goes out
        // first): a request whose call is not noted yet waits a little for it.
        for _ in 0..20 {
            if self.relays.noted(origin) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let asker = self.relays.asker_for(origin).filter(can)?;
        let answer = tokio::time::timeout(RELAYED_ANSWER_LIMIT, ask(asker.client, request));
        Some(match answer.await {
            Ok(answer) => answer,
            Err(_) => Err(ErrorData::internal_error(
                format!("the client did not answer within {} s", RELAYED_ANSWER_LIMIT.as_secs()),
                None,
            )),
        })
    }
}

/// Asks `client` `request` and waits for its answer: over its session, or through its parked
/// call (`super::park`), whose retry brings the answer.
async fn ask(client: Client, request: ServerRequest) -> Result<ClientResult, ErrorData> {
    match client {
        Client::Session(peer) => match peer.send_request(request).await {
            Ok(result) => Ok(result),
            Err(ServiceError::McpError(error)) => Err(error),
            Err(error) => {
                Err(ErrorData::internal_error(format!("the client did not answer: {error}"), None))
            }
        },
        Client::Parked(questions) => {
            let (answer, answered) = tokio::sync::oneshot::channel();
            let gone = || ErrorData::internal_error("the client's call ended unanswered", None);
            questions.send(Question { request, answer }).await.map_err(|_| gone())?;
            answered.await.map_err(|_| gone())?
        }
    }
}

impl rmcp::ClientHandler for Handler {
    #[allow(
        deprecated,
        reason = "rmcp marks sampling deprecated (SEP-2577), but the revisions an upstream speaks still have it"
    )]
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder()
            .enable_elicitation()
            .enable_sampling()
            .enable_tasks()
            .build();
        ClientConfig::new(capabilities, ClientConfig::default().client_info)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let request = ServerRequest::ElicitRequest(ElicitRequest::new(request));
        let origin = context.extensions.get::<InboundStreamOrigin>();
        match self.relay(request, origin, |asker| asker.elicitation).await {
            Some(Ok(ClientResult::ElicitResult(result))) => Ok(result),
            Some(Ok(_)) => {
                Err(ErrorData::internal_error("the client's answer is no elicitation result", None))
            }
            Some(Err(error)) => Err(error),
            None => Ok(ElicitResult::new(ElicitationAction::Decline)),
        }
    }

    #[allow(
        deprecated,
        reason = "rmcp marks sampling deprecated (SEP-2577), but the revisions an upstream speaks still have it"
    )]
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
        let origin = context.extensions.get::<InboundStreamOrigin>();
        match self.relay(request, origin, |asker| asker.sampling).await {
            Some(Ok(ClientResult::CreateMessageResult(result))) => Ok(*result),
            Some(Ok(_)) => {
                Err(ErrorData::internal_error("the client's answer is no sampling result", None))
            }
            Some(Err(error)) => Err(error),
            None => Err(ErrorData::method_not_found::<rmcp::model::CreateMessageRequestMethod>()),
        }
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.relays.progress(params);
    }

    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }

    async fn on_resource_list_changed(
        &self,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.changed.notify_one();
    }

    async fn on_prompt_list_changed(
        &self,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.changed.notify_one();
    }
}

/// A connection: the rmcp client and, for a stdio upstream, its process (killed when the
/// connection is dropped); for an HTTP upstream, how its plain calls are made (`super::lean`).
pub(super) struct Connection {
    client: RunningService<RoleClient, Handler>,
    child: Option<tokio::process::Child>,
    lean: Option<Arc<Lean>>,
}

impl Connection {
    /// Starts or reaches the upstream and does the MCP handshake, within [`CONNECT_LIMIT`].
    pub(super) async fn open(upstream: &Upstream, handler: Handler) -> Result<Self, UpstreamError> {
        let protocol =
            |reason: String| UpstreamError::Protocol { upstream: upstream.name.clone(), reason };
        let opening = async {
            match &upstream.transport {
                UpstreamTransport::Stdio { program, args, env } => {
                    let mut child = tokio::process::Command::new(program)
                        .args(args)
                        .envs(env)
                        .stdin(Stdio::piped())
                        .stdout(Stdio::piped())
                        .stderr(Stdio::piped())
                        .kill_on_drop(true)
                        .spawn()
                        .map_err(|e| UpstreamError::Spawn {
                            upstream: upstream.name.clone(),
                            program: program.clone(),
                            reason: e.to_string(),
                        })?;
                    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take())
                    else {
                        return Err(protocol("its standard streams could not be opened".into()));
                    };
                    log_stderr(&upstream.name, &mut child);
                    let stdout = super::lines::BoundedLines::new(stdout, MAX_LINE_BYTES);
                    let transport = AsyncRwTransport::new_client(stdout, stdin)
                        .with_max_line_length(MAX_LINE_BYTES + 1);
                    let client = handler
                        .serve_with_lifecycle(transport, lifecycle())
                        .await
                        .map_err(|e| protocol(format!("handshake failed: {e}")))?;
                    Ok(Self { client, child: Some(child), lean: None })
                }
                UpstreamTransport::Http { url, headers, ca_certs, proxy } => {
                    let http = crate::tls::reqwest_client(
                        CONNECT_LIMIT,
                        proxy.as_deref(),
                        ca_certs.as_deref(),
                    )
                    .map_err(protocol)?;
                    let mut custom = HashMap::new();
                    for (name, value) in headers {
                        let bad = || protocol(format!("header `{name}` cannot be sent"));
                        let name =
                            http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad())?;
                        let mut value = http::HeaderValue::from_str(value).map_err(|_| bad())?;
                        value.set_sensitive(true);
                        custom.insert(name, value);
                    }
                    let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                        .custom_headers(custom)
                        .max_json_response_size(MAX_ANSWER_BYTES)
                        .max_sse_event_size(MAX_ANSWER_BYTES);
                    let session = SessionId::default();
                    let recording = Recording { http: http.clone(), session: Arc::clone(&session) };
                    let transport = StreamableHttpClientTransport::with_client(recording, config);
                    let info = rmcp::ClientHandler::get_info(&handler);
                    let client = handler
                        .serve_with_lifecycle(transport, lifecycle())
                        .await
                        .map_err(|e| protocol(format!("handshake failed: {e}")))?;
                    let lean = lean(&client, url, headers, proxy.is_some(), http, session, info)
                        .map_err(protocol)?;
                    Ok(Self { client, child: None, lean: Some(Arc::new(lean)) })
                }
            }
        };
        tokio::time::timeout(CONNECT_LIMIT, opening).await.unwrap_or_else(|_| {
            Err(protocol(format!("no handshake within {} s", CONNECT_LIMIT.as_secs())))
        })
    }

    /// How plain calls to an HTTP upstream are made (`super::lean`); `None` for stdio.
    pub(super) fn lean(&self) -> Option<Arc<Lean>> {
        self.lean.clone()
    }

    /// The peer calls go through (cheap to clone; it fails once the connection is gone).
    pub(super) fn peer(&self) -> Peer<RoleClient> {
        self.client.peer().clone()
    }

    /// The revision the upstream accepted, as it was negotiated.
    pub(super) fn revision(&self) -> Option<String> {
        self.client.peer().peer_info().map(|info| info.protocol_version.to_string())
    }

    /// Waits until the connection ends (the process exited, the transport closed) and says why.
    /// Dropping the future, or the connection, closes it.
    pub(super) async fn closed(self) -> String {
        let Self { client, child, .. } = self;
        let waiting = client.waiting();
        match child {
            Some(mut child) => {
                tokio::select! {
                    status = child.wait() => match status {
                        Ok(status) => format!("the process exited ({status})"),
                        Err(e) => format!("the process could not be waited for: {e}"),
                    },
                    reason = waiting => quit(reason),
                }
            }
            None => quit(waiting.await),
        }
    }
}

/// The lean calls of the HTTP connection `client` opened to `url` with `headers`: through the
/// outbound transport (hyper's pooled client for plain `http://`, else the connection's own
/// reqwest client `http`), at the negotiated revision, with the session `session` follows and,
/// on a revision without a handshake, the `_meta` rmcp puts on every request (built from the
/// same `info`).
fn lean(
    client: &RunningService<RoleClient, Handler>,
    url: &str,
    headers: &[(String, String)],
    proxied: bool,
    http: reqwest::Client,
    session: SessionId,
    info: ClientConfig,
) -> Result<Lean, String> {
    let version = client
        .peer()
        .peer_info()
        .map(|info| info.protocol_version.clone())
        .ok_or("the upstream's revision is not known")?;
    let base = reqwest::Url::parse(url).map_err(|e| format!("the URL cannot be read: {e}"))?;
    let transport =
        crate::outbound::Transport::new(&base, proxied, CONNECT_LIMIT, || Ok::<_, String>(http))?;
    let mut sent = http::HeaderMap::new();
    for (name, value) in headers {
        let bad = || format!("header `{name}` cannot be sent");
        let name = http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad())?;
        let mut value = http::HeaderValue::from_str(value).map_err(|_| bad())?;
        value.set_sensitive(true);
        sent.insert(name, value);
    }
    let meta = if version.has_initialize() {
        None
    } else {
        let meta = rmcp::model::RequestMetaObject::with_client_context(
            version.clone(),
            info.client_info,
            info.capabilities,
        );
        Some(serde_json::to_value(meta).map_err(|e| e.to_string())?)
    };
    Lean::new(transport, url.to_owned(), sent, version.as_str(), session, meta, MAX_ANSWER_BYTES)
}

/// rmcp's reqwest client, noting the session id each request of rmcp's carries: the lean calls
/// carry the same, also after rmcp re-opened an expired session.
#[derive(Clone)]
struct Recording {
    http: reqwest::Client,
    session: SessionId,
}

impl Recording {
    fn note(&self, session: &Option<Arc<str>>) {
        *self.session.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = session.clone();
    }
}

type Headers = HashMap<http::HeaderName, http::HeaderValue>;
type HttpResult<T> = Result<T, StreamableHttpError<reqwest::Error>>;

impl StreamableHttpClient for Recording {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> HttpResult<StreamableHttpPostResponse> {
        self.note(&session_id);
        self.http.post_message(uri, message, session_id, auth_header, custom_headers).await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> HttpResult<StreamableHttpPostResponse> {
        self.note(&session_id);
        self.http
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        limits: StreamableHttpResponseLimits,
    ) -> HttpResult<StreamableHttpPostResponse> {
        self.note(&session_id);
        self.http
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> HttpResult<()> {
        self.http.delete_session(uri, session_id, auth_header, custom_headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> HttpResult<BoxStream<'static, Result<Sse, SseError>>> {
        self.http.get_stream(uri, session_id, last_event_id, auth_header, custom_headers).await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max_sse_event_size: usize,
    ) -> HttpResult<BoxStream<'static, Result<Sse, SseError>>> {
        self.http
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

/// Why the client's service loop ended, in words.
fn quit(reason: Result<QuitReason, tokio::task::JoinError>) -> String {
    match reason {
        Ok(QuitReason::Closed) => "the connection closed".into(),
        Ok(other) => format!("the connection ended ({other:?})"),
        Err(e) => format!("the connection's task failed: {e}"),
    }
}

/// 2026-07-28 through `server/discover` when the upstream answers it, else `initialize` with
/// the newest handshake revision (the upstream answers with the one it speaks).
fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    }
}

/// What the upstream writes to stderr goes to the gateway's log, line by line, named and
/// escaped (a line may hold a terminal escape).
fn log_stderr(upstream: &str, child: &mut tokio::process::Child) {
    if let Some(stderr) = child.stderr.take() {
        let name = upstream.to_owned();
        tokio::spawn(async move {
            use tokio::io::AsyncBufReadExt as _;
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::info!(upstream = %name, line = %line.escape_debug(), "upstream stderr");
            }
        });
    }
}

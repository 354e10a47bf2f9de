//! Streamable HTTP sessions with a cap: rmcp's local session manager (whose idle sessions
//! expire after `session_idle`) refusing a new session while `max_sessions` are open, so a
//! client that initializes in a loop cannot grow the server without bound (DESIGN §12).
//!
//! Also the status of a session `DELETE`: rmcp's session layer answers 202 whether or not the
//! session existed, and the Python SDKs log "Session termination failed: 202" for every session
//! they end. In front of it, [`delete`] answers 404 for a session the server does not
//! know and turns the 202 of one it ended into 204.

use std::sync::Arc;

use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker, SessionConfig,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};

use super::config::Transport;

/// rmcp's local sessions, at most `cap` at a time; the 2025-11-25 ones also known to the
/// experimental tasks layer ([`crate::experimental::http`]).
#[derive(Debug)]
pub(crate) struct CappedSessions {
    inner: LocalSessionManager,
    cap: usize,
    server: toolwire_mcp::McpServer,
    pub(crate) experimental: Arc<crate::experimental::http::Sessions>,
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionsError {
    /// As many sessions are open as the configuration allows.
    #[error(
        "{0} sessions are open, as many as transport.max_sessions allows; end a session (DELETE) or try again later"
    )]
    Full(usize),
    /// rmcp's session manager failed.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

impl CappedSessions {
    /// Sessions of `server` as `limits` says: the cap and the idle expiry; the 2025-11-25 ones
    /// also in `experimental`.
    pub(crate) fn new(
        limits: &Transport,
        server: toolwire_mcp::McpServer,
        experimental: Arc<crate::experimental::http::Sessions>,
    ) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config = {
            let mut config = SessionConfig::default();
            config.keep_alive = Some(limits.session_idle);
            config
        };
        Self { inner, cap: limits.max_sessions, server, experimental }
    }

    /// The server the sessions serve.
    pub(crate) fn server(&self) -> &toolwire_mcp::McpServer {
        &self.server
    }

    /// Sessions open now.
    pub(crate) async fn open(&self) -> usize {
        self.inner.sessions.read().await.len()
    }
}

impl SessionManager for CappedSessions {
    type Error = SessionsError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let open = self.open().await;
        if open >= self.cap {
            tracing::warn!(open, "session cap reached; initialize refused");
            return Err(SessionsError::Full(open));
        }
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let client = match &message {
            ClientJsonRpcMessage::Request(request) => match &request.request {
                ClientRequest::InitializeRequest(init) => {
                    Some(init.params.client_info.name.clone())
                }
                _ => None,
            },
            _ => None,
        };
        let answer = self.inner.initialize_session(id, message).await?;
        {
            let live = self.inner.sessions.read().await;
            self.experimental.retain(|known| live.contains_key(known));
        }
        Ok(crate::experimental::http::initialized(
            &self.experimental,
            &self.server,
            id,
            client,
            answer,
        ))
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.experimental.remove(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        use futures::StreamExt as _;
        let lists_tools = matches!(
            &message,
            ClientJsonRpcMessage::Request(request)
                if matches!(request.request, ClientRequest::ListToolsRequest(_))
        ) && crate::experimental::http::serves(&self.experimental, id);
        let stream = self.inner.create_stream(id, message).await?;
        let server = self.server.clone();
        Ok(stream.map(move |mut event| {
            if lists_tools
                && let Some(message) = &event.message
                && let Some(shown) = crate::experimental::http::tools_listed(&server, message)
            {
                event.message = Some(Arc::new(shown));
            }
            event
        }))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}

/// The `Mcp-Session-Id` header.
const SESSION_HEADER: &str = "mcp-session-id";

/// A `DELETE`, answered as clients expect: 404 for a session this server does not know, 204
/// for one it ended; one without a session id is passed through untouched.
pub(crate) async fn delete<F: Future<Output = Response>>(
    sessions: &CappedSessions,
    request: Request,
    serve: impl FnOnce(Request) -> F,
) -> Response {
    let Some(id) = request.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
        return serve(request).await;
    };
    let id: SessionId = Arc::from(id);
    if !sessions.has_session(&id).await.unwrap_or(false) {
        return (StatusCode::NOT_FOUND, "unknown session").into_response();
    }
    let mut response = serve(request).await;
    if response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}

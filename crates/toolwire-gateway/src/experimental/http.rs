//! The layer over Streamable HTTP ([`super`]): the session manager calls [`initialized`] and
//! [`tools_listed`] on what rmcp answers, the `/mcp` route hands each `POST` to [`answer`]
//! first, and [`Peers`] keeps each session's rmcp peer, on which its status notifications go
//! out (rmcp routes a notification to the session's standalone `GET` stream).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::{CustomNotification, CustomResult, ServerJsonRpcMessage, ServerNotification};
use rmcp::service::{Peer, RoleServer};
use toolwire_mcp::{McpServer, Principal};

use super::{REVISION, STATUS, Session};

/// rmcp's own bound on a request body: what is read here is never more than rmcp would read.
const MAX_BODY: usize = 4 * 1024 * 1024;

/// The `Mcp-Session-Id` header.
const SESSION_HEADER: &str = "mcp-session-id";

/// What the layer knows of a session, and its peer once its client has initialized.
type Known = (Session, Option<Peer<RoleServer>>);

/// The sessions on 2025-11-25, by id.
#[derive(Debug, Default)]
pub(crate) struct Sessions(Mutex<HashMap<String, Known>>);

impl Sessions {
    fn with<T>(&self, id: &str, f: impl FnOnce(&mut Known) -> T) -> Option<T> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).get_mut(id).map(f)
    }

    /// Forgets session `id`.
    pub(crate) fn remove(&self, id: &str) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
    }

    /// Keeps only the sessions `live` says still exist (run at each new session: rmcp ends
    /// idle sessions without telling).
    pub(crate) fn retain(&self, live: impl Fn(&str) -> bool) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).retain(|id, _| live(id));
    }
}

/// Keeps the peer of each 2025-11-25 session this layer serves, told by the server of each
/// `notifications/initialized` (whose request names the session).
#[derive(Debug)]
pub(crate) struct Peers(pub(crate) Arc<Sessions>);

impl toolwire_mcp::extend::Handshakes for Peers {
    fn initialized(&self, peer: &Peer<RoleServer>, extensions: &rmcp::model::Extensions) {
        let session = extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.headers.get(SESSION_HEADER))
            .and_then(|id| id.to_str().ok());
        if let Some(id) = session {
            self.0.with(id, |(_, kept)| *kept = Some(peer.clone()));
        }
    }
}

/// The `initialize` answer of session `id` (its client named `client`): on 2025-11-25, when a
/// tool's calls may become tasks, the session is remembered and `capabilities.tasks` added.
pub(crate) fn initialized(
    sessions: &Sessions,
    server: &McpServer,
    id: &str,
    client: Option<String>,
    answer: ServerJsonRpcMessage,
) -> ServerJsonRpcMessage {
    let ServerJsonRpcMessage::Response(mut response) = answer else { return answer };
    let Ok(mut shown) = serde_json::to_value(&response.result) else {
        return ServerJsonRpcMessage::Response(response);
    };
    if super::with_capability(server, &mut shown) {
        let session = Session { client, tasks: Vec::new() };
        sessions
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_owned(), (session, None));
        response.result = rmcp::model::ServerResult::CustomResult(CustomResult(shown));
    }
    ServerJsonRpcMessage::Response(response)
}

/// A `tools/list` answer of a 2025-11-25 session: each tool whose calls may become tasks with
/// its `execution.taskSupport`.
pub(crate) fn tools_listed(
    server: &McpServer,
    answer: &ServerJsonRpcMessage,
) -> Option<ServerJsonRpcMessage> {
    let ServerJsonRpcMessage::Response(response) = answer else { return None };
    let rmcp::model::ServerResult::ListToolsResult(list) = &response.result else { return None };
    let mut shown = serde_json::to_value(list).ok()?;
    if !super::with_execution(server, &mut shown) {
        return None;
    }
    let mut response = response.clone();
    response.result = rmcp::model::ServerResult::CustomResult(CustomResult(shown));
    Some(ServerJsonRpcMessage::Response(response))
}

/// Whether session `id` is a 2025-11-25 session this layer serves.
pub(crate) fn serves(sessions: &Sessions, id: &str) -> bool {
    sessions.with(id, |_| ()).is_some()
}

/// A 2025-11-25 request of a session this layer serves: answered here when it is a task
/// request (`Ok`), else handed back whole for rmcp (`Err`).
pub(crate) async fn answer(
    sessions: &Arc<Sessions>,
    server: &McpServer,
    request: Request,
) -> Result<Response, Request> {
    let is_revision = request
        .headers()
        .get("mcp-protocol-version")
        .is_some_and(|version| version.as_bytes() == REVISION.as_bytes());
    let session =
        request.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let Some(session) = session.filter(|id| is_revision && serves(sessions, id)) else {
        return Err(request);
    };
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let message = format!("Payload Too Large: request body exceeds {MAX_BODY} bytes");
            return Ok((StatusCode::PAYLOAD_TOO_LARGE, message).into_response());
        }
    };
    let Some(message) = super::task_request(&bytes) else {
        return Err(Request::from_parts(parts, Body::from(bytes)));
    };
    let principal = parts
        .extensions
        .get::<Principal>()
        .cloned()
        .unwrap_or_else(|| server.gateway().config().default_principal.clone());
    let known = sessions.with(&session, |(known, _)| known.clone()).unwrap_or_default();
    let (reply, created) = super::reply(server, &message, &principal, &known).await;
    if let Some(created) = created {
        sessions.with(&session, |(known, _)| known.remember(created));
        let sessions = Arc::clone(sessions);
        super::tell_changes(server, &reply, &principal, move |task| {
            // Looked up at each change: the peer comes with `notifications/initialized`, and a
            // session that ended stops the telling.
            let peer = sessions.with(&session, |(_, peer)| peer.clone());
            async move {
                let Some(peer) = peer else { return false };
                let Some(peer) = peer else { return true };
                let notification = CustomNotification::new(STATUS, Some(task));
                let sent = peer
                    .send_notification(ServerNotification::CustomNotification(notification))
                    .await;
                sent.is_ok()
            }
        });
    }
    let mut response = Response::new(Body::from(reply.to_string()));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(response)
}

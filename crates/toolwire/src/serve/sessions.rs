//! The status of a session `DELETE`: rmcp's session layer answers 202 whether or not the session
//! existed, and the Python SDKs log "Session termination failed: 202" for every session they
//! end. In front of it this answers 404 for a session the server does not know and turns the
//! 202 of one it ended into 204.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// The `Mcp-Session-Id` header.
const SESSION_HEADER: &str = "mcp-session-id";

/// The middleware: passes everything but a `DELETE` carrying a session id through untouched.
pub(crate) async fn delete_status(
    State(sessions): State<Arc<LocalSessionManager>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::DELETE {
        return next.run(request).await;
    }
    let Some(id) = request.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
        return next.run(request).await;
    };
    let id: Arc<str> = Arc::from(id);
    if !sessions.has_session(&id).await.unwrap_or(false) {
        return (StatusCode::NOT_FOUND, "unknown session").into_response();
    }
    let mut response = next.run(request).await;
    if response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}

//! What an [`McpServer`](crate::McpServer) offers beside its tools: resources and resource
//! templates, prompts, completion, resource subscriptions, the logging level, a check that
//! runs before every tool call, and being told of each session's handshake.
//!
//! Each extension point is a trait; a server gets one implementation of each at most
//! ([`McpServer::with_resources`](crate::McpServer::with_resources) and its siblings), and the
//! capabilities announced in `initialize` follow from which ones it has. Without an extension,
//! its methods answer as rmcp's defaults do (method not found; empty lists).
//!
//! Tools that talk back to the client while they run (progress, log messages, sampling) need no
//! extension: [`CallContext::request`](crate::CallContext::request) gives them the rmcp request
//! and its peer.

use std::future::Future;
use std::pin::Pin;

use rmcp::ErrorData;
#[allow(deprecated)]
// logging is deprecated by SEP-2577; clients of earlier revisions still set it
use rmcp::model::LoggingLevel;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse, Prompt,
    ReadResourceResult, Resource, ResourceTemplate, SubscriptionFilter,
};
use rmcp::service::{Peer, RequestContext, RoleServer};

/// What the async methods of the extension points return: a boxed future that may borrow the
/// extension and the request.
pub type ExtensionFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Resources and resource templates served beside the stored results (`resources/list`,
/// `resources/templates/list`, `resources/read`).
pub trait Resources: Send + Sync + 'static {
    /// The resources `resources/list` lists (stored results are never listed).
    fn list(&self) -> Vec<Resource>;

    /// The templates `resources/templates/list` lists after the stored-result template.
    fn templates(&self) -> Vec<ResourceTemplate> {
        Vec::new()
    }

    /// `resources/read` of `uri`: `None` when the URI is not one of these resources, and the
    /// stored results are asked next (an unknown URI is then the revision's not-found error).
    /// The result goes out as it is given (rmcp drops `resultType: "complete"` for clients
    /// before 2026-07-28 and fills missing cache hints on 2026-07-28).
    fn read<'a>(
        &'a self,
        uri: &'a str,
        request: &'a RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Option<Result<ReadResourceResult, ErrorData>>>;
}

/// Prompts (`prompts/list`, `prompts/get`).
pub trait Prompts: Send + Sync + 'static {
    /// The prompts `prompts/list` lists.
    fn list(&self) -> Vec<Prompt>;

    /// `prompts/get`: the prompt, an `InputRequiredResult` asking the client first (2026-07-28),
    /// or an error (an unknown name is `invalid_params`).
    fn get<'a>(
        &'a self,
        request: GetPromptRequestParams,
        context: &'a RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Result<GetPromptResponse, ErrorData>>;
}

/// Argument completion (`completion/complete`) for prompts and resource templates.
pub trait Completion: Send + Sync + 'static {
    /// The completions of the argument in `request`.
    fn complete<'a>(
        &'a self,
        request: CompleteRequestParams,
        context: &'a RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Result<CompleteResult, ErrorData>>;
}

/// Resource subscriptions: `resources/subscribe` and `resources/unsubscribe` (announced as
/// `resources.subscribe`), and which notifications a 2026-07-28 `subscriptions/listen` gets.
pub trait Subscriptions: Send + Sync + 'static {
    /// The client subscribed to `uri`.
    fn subscribe(&self, uri: String) -> Result<(), ErrorData>;

    /// The client unsubscribed from `uri`.
    fn unsubscribe(&self, uri: &str) -> Result<(), ErrorData>;

    /// The part of a `subscriptions/listen` filter that is accepted (rmcp narrows it further
    /// to the announced capabilities). All of it by default.
    fn accept(&self, requested: &SubscriptionFilter) -> SubscriptionFilter {
        requested.clone()
    }
}

/// The logging level a client sets with `logging/setLevel` (announced as `logging`; the method
/// is gone from 2026-07-28, where each request carries its own level).
pub trait Logging: Send + Sync + 'static {
    /// The client asked for messages at `level` and above.
    #[allow(deprecated)] // see the import
    fn set_level(&self, level: LoggingLevel);
}

/// A check run before every `tools/call` of a registered tool, after the tool is found and
/// before its arguments are validated: an error is the JSON-RPC answer and the tool does not
/// run (for example `-32021` when the tool needs a client capability the client did not
/// declare).
pub trait CallGuard: Send + Sync + 'static {
    /// `Ok(())` lets the call of `tool` go on.
    fn check(&self, tool: &str, request: &RequestContext<RoleServer>) -> Result<(), ErrorData>;
}

/// Told of each session whose client finished its handshake (`notifications/initialized`), to
/// keep its peer for what the server sends it unasked (over Streamable HTTP, the session's
/// standalone stream).
pub trait Handshakes: Send + Sync + 'static {
    /// The client of `peer` initialized; `extensions` are its notification's (over Streamable
    /// HTTP, with the `http::request::Parts` of its request and so the session id).
    fn initialized(&self, peer: &Peer<RoleServer>, extensions: &rmcp::model::Extensions);
}

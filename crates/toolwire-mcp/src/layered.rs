//! Tower layers around the calls of a source, opt-in: [`Layered`] wraps every tool a source
//! offers in a `tower::Layer` (a timeout, a concurrency limit, a rate limit, a retry), so that a
//! source talking to something slow or fragile bounds its calls without code of its own.
//!
//! Each call is a [`ToolCall`] going through the layered service into the tool's own
//! [`DynTool`]. A call that runs out of time under `tower::timeout` becomes an
//! `upstream_unavailable` failure the model can read; any other error of a layer is an internal
//! error (JSON-RPC `-32603`), like a tool's own.

use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::Value;
use toolwire_core::{ErrorCode, InternalError, ToolError, ToolResult};
use tower::{Layer, Service, ServiceExt as _};

use crate::extend::{Prompts, Resources};
use crate::registry::{CallContext, DynTool, Registry, ToolFuture};
use crate::source::{ChangeSignal, SourceHealth, ToolSource};

/// One call as it goes through the layers: the validated arguments and the call's context.
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// The arguments, already validated against the input schema.
    pub arguments: Value,
    /// What the tool knows about the call.
    pub context: CallContext,
}

/// A tool as the innermost tower service of its layers: always ready, answering with the tool's
/// own future.
#[derive(Clone)]
pub struct ToolService {
    tool: Arc<dyn DynTool>,
}

impl std::fmt::Debug for ToolService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolService").finish_non_exhaustive()
    }
}

impl Service<ToolCall> for ToolService {
    type Response = ToolResult;
    type Error = InternalError;
    type Future = ToolFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: ToolCall) -> Self::Future {
        self.tool.call(&call.arguments, call.context)
    }
}

/// A source whose every tool call goes through `layer` ([`Layered::new`]); everything else
/// (name, resources, prompts, changes, health) is the source's own.
#[derive(Debug, Clone)]
pub struct Layered<S, L> {
    source: S,
    layer: L,
}

impl<S, L> Layered<S, L> {
    /// `source` with each of its tools wrapped in `layer`. A layer keeping state (a
    /// concurrency limit) keeps one state per tool: each tool gets its own service.
    pub fn new(source: S, layer: L) -> Self {
        Self { source, layer }
    }
}

impl<S, L> ToolSource for Layered<S, L>
where
    S: ToolSource,
    L: Layer<ToolService> + Send + Sync + 'static,
    L::Service: Service<ToolCall, Response = ToolResult> + Clone + Send + Sync + 'static,
    <L::Service as Service<ToolCall>>::Error: Into<InternalError>,
    <L::Service as Service<ToolCall>>::Future: Send + 'static,
{
    fn name(&self) -> &str {
        self.source.name()
    }

    fn tools(&self) -> Registry {
        self.source.tools().map_handlers(|tool| {
            Arc::new(LayeredTool { service: self.layer.layer(ToolService { tool }) })
        })
    }

    fn resources(&self) -> Option<Arc<dyn Resources>> {
        self.source.resources()
    }

    fn prompts(&self) -> Option<Arc<dyn Prompts>> {
        self.source.prompts()
    }

    fn changes(&self) -> Option<ChangeSignal> {
        self.source.changes()
    }

    fn health(&self) -> SourceHealth {
        self.source.health()
    }
}

/// A tool behind its layers.
struct LayeredTool<T> {
    service: T,
}

impl<T> DynTool for LayeredTool<T>
where
    T: Service<ToolCall, Response = ToolResult> + Clone + Send + Sync + 'static,
    T::Error: Into<InternalError>,
    T::Future: Send + 'static,
{
    fn call(&self, arguments: &Value, context: CallContext) -> ToolFuture {
        // Tower's way with a shared service: a clone per call, made ready, then called. The
        // clones of a concurrency limit share its permits.
        let service = self.service.clone();
        let tool = context.tool().to_owned();
        let call = ToolCall { arguments: arguments.clone(), context };
        Box::pin(async move {
            match service.oneshot(call).await {
                Ok(result) => Ok(result),
                Err(error) => {
                    let error: InternalError = error.into();
                    if error.is::<tower::timeout::error::Elapsed>() {
                        Ok(ToolResult::failure(ToolError::new(
                            ErrorCode::UpstreamUnavailable,
                            format!(
                                "Tool {tool} did not answer in time. Try again later; if this keeps happening, the operator should check what the tool depends on."
                            ),
                        )))
                    } else {
                        Err(error)
                    }
                }
            }
        })
    }
}

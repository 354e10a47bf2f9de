//! Conformance fixtures: the tools, resources, prompts and completions that the official MCP
//! conformance suite (`@modelcontextprotocol/conformance`) calls in its active scenarios for spec
//! versions 2025-11-25 and 2026-07-28, served by `toolwire serve --conformance`.
//!
//! The fixtures use toolwire-mcp's public API exactly as a library user would. The fixture tools
//! are ordinary registered tools: each returns a [`ToolResult`] that the gateway validates and
//! renders like any other, so the suite checks toolwire's own rendering of text, image, audio and
//! embedded-resource parts and of failures. The fixtures come in as one tool source (their
//! tools, resources and prompts); what belongs to the server rather than to a source
//! (completion, logging level, subscriptions, the missing-capability refusal) plugs into its
//! extension points ([`toolwire_mcp::extend`]) in [`Conformance::extend`].
//!
//! Logging, sampling and elicitation are deprecated by SEP-2577 (rmcp marks their types
//! deprecated) but the suite still tests them for the handshake revisions, so this module uses
//! them on purpose.
#![allow(deprecated)]

mod extensions;
mod live;
mod mrtr;
mod tasks;
mod tools;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use rmcp::model::LoggingLevel;
use toolwire_mcp::extend::{Prompts, Resources};
use toolwire_mcp::{McpServer, Registry, RegistryError, ToolSource};

/// A 1×1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";
/// A WAV file with no samples.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=";

const STATIC_TEXT: &str = "test://static-text";
const STATIC_BINARY: &str = "test://static-binary";
const TEMPLATE: &str = "test://template/{id}/data";

/// The name of the fixture tool whose `region` parameter travels as the `Mcp-Param-Region`
/// header on 2026-07-28 (`x-mcp-header`, SEP-2243).
const HEADER_TOOL: &str = "test_header_param";

/// The fixtures: a tool source (the fixture tools, resources and prompts) plus the server
/// extensions the suite calls beside them ([`Conformance::extend`]). Clones share the state: the
/// logging level the client set and the resources it subscribed to (one of each for the whole
/// fixture server, which serves one suite run at a time).
#[derive(Debug, Clone)]
pub(crate) struct Conformance {
    state: Arc<State>,
    tools: Registry,
}

#[derive(Debug)]
struct State {
    level: Mutex<LoggingLevel>,
    subscriptions: Mutex<BTreeSet<String>>,
}

impl Conformance {
    /// Fresh fixtures: logging at `debug`, no subscriptions, every fixture tool registered.
    pub(crate) fn new() -> Result<Self, RegistryError> {
        let state = Arc::new(State {
            level: Mutex::new(LoggingLevel::Debug),
            subscriptions: Mutex::new(BTreeSet::new()),
        });
        let mut registry = Registry::named("conformance");
        tools::register(&mut registry, &state)?;
        Ok(Self { state, tools: registry })
    }

    /// `server` with what the fixtures answer beside their tools, resources and prompts:
    /// completion, subscriptions (every `subscriptions/listen` kind accepted, narrowed by rmcp
    /// to what is announced), the logging level, and the refusal of `test_missing_capability`.
    pub(crate) fn extend(&self, server: McpServer) -> McpServer {
        server
            .with_completion(self.clone())
            .with_subscriptions(self.clone())
            .with_logging(self.clone())
            .with_call_guard(self.clone())
    }
}

impl ToolSource for Conformance {
    fn name(&self) -> &str {
        "conformance"
    }

    fn tools(&self) -> Registry {
        self.tools.clone()
    }

    /// The two static resources and the template.
    fn resources(&self) -> Option<Arc<dyn Resources>> {
        Some(Arc::new(self.clone()))
    }

    /// The prompts, including the one that asks for input first.
    fn prompts(&self) -> Option<Arc<dyn Prompts>> {
        Some(Arc::new(self.clone()))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A poisoned lock only means another fixture call panicked; its data is still usable.
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixture_tool_registers() {
        let fixtures = Conformance::new().unwrap_or_else(|e| panic!("{e}"));
        let tools = fixtures.tools();
        assert_eq!(tools.len(), 33);
        assert!(tools.names().any(|n| n == HEADER_TOOL));
        for task_fixture in ["greet", "slow_compute", "failing_job", "test_tool_with_task"] {
            assert!(tools.names().any(|n| n == task_fixture), "{task_fixture}");
        }
        assert!(tools.names().any(|n| n == "test_input_required_result_multi_round"));
    }
}

//! toolwire-mcp: the rmcp adapter. Tools return [`ToolResult`] values; a hand-written rmcp
//! `ServerHandler` ([`McpServer`]) publishes them per MCP revision, validates arguments, runs
//! them, renders each result for the revision of *that* request and serves stored results
//! through `resources/read`.
//!
//! A tool author registers tools on a [`Registry`]. A tool takes its typed input, and the
//! [`CallContext`] only when it needs it; tools sharing state get an `Arc` of it
//! ([`Registry::with_state`]); a tool returning `Result<ToolResult, ToolError>` uses `?` on a
//! [`ToolError`]:
//!
//! ```
//! use std::sync::Arc;
//!
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//! use toolwire_mcp::rmcp::model::ToolAnnotations;
//! use toolwire_mcp::{
//!     ErrorCode, Gateway, GatewayConfig, McpServer, Registry, ToolError, ToolResult, ToolSpec,
//! };
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct AddInput { a: i64, b: i64 }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct AddOutput { sum: i64 }
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Lookup { word: String }
//!
//! let mut tools = Registry::new();
//! tools.register_typed(
//!     ToolSpec::new("add", "Adds two integers.")
//!         .annotations(ToolAnnotations::new().read_only(true)),
//!     |input: AddInput| async move { Ok::<_, ToolError>(AddOutput { sum: input.a + input.b }) },
//! )?;
//!
//! let glossary = Arc::new(vec![("mcp", "Model Context Protocol")]);
//! tools.with_state(glossary).register(
//!     ToolSpec::new("define", "Defines a word."),
//!     |glossary: Arc<Vec<(&'static str, &'static str)>>, input: Lookup| async move {
//!         let (_, meaning) = glossary
//!             .iter()
//!             .find(|(word, _)| *word == input.word)
//!             .ok_or_else(|| ToolError::new(ErrorCode::NotFound, "No such word."))?;
//!         Ok::<_, ToolError>(ToolResult::success(serde_json::json!({"meaning": meaning}))
//!             .with_summary(format!("{}: {meaning}", input.word)))
//!     },
//! )?;
//! let _server = McpServer::new(Gateway::new(tools, GatewayConfig::in_memory()?));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A server that keeps its rmcp `#[tool_router]` renders its results with [`adapter`] instead.

pub mod adapter;
mod catalog;
pub mod extend;
mod hosts;
mod input;
pub mod layered;
mod observe;
mod publish;
mod registry;
mod resource;
mod server;
mod source;
mod tasks;
mod validate;
pub mod work;

pub use catalog::{Catalog, CatalogError};
pub use input::MAX_ROUNDS;
pub use observe::{CallObserver, CallOutcome, CallRecord, OffloadRecord, TaskEvent, TaskRecord};
pub use registry::{
    CallContext, DynTool, InternalError, IntoToolResult, MaxResultCharsError, Principal, Registry,
    RegistryError, ToolFn, ToolFuture, ToolSpec, ToolSpecError, WithState, check_max_result_chars,
};
/// The rmcp this crate is built on, so that its types (`ToolAnnotations`, `Icon`, the transports)
/// come in the one version toolwire speaks.
pub use rmcp;
pub use server::{
    Gateway, GatewayConfig, GatewayConfigBuilder, LegacyCounter, McpServer, PreviewCallError,
    STORED_RESULT_TEMPLATE, ToolListing,
};
pub use source::{ChangeSignal, SourceHealth, ToolSource};
pub use tasks::{
    CHECK_EVERY, ExperimentalAnswer, ExperimentalRequest, TaskSettings, TaskSupport,
    is_experimental_task_request,
};
pub use toolwire_core::{ErrorCode, ToolError, ToolResult, ValidationMode};

//! toolwire-mcp: the rmcp adapter. Tools return [`toolwire_core::ToolResult`] values; a
//! hand-written rmcp `ServerHandler` ([`McpServer`]) publishes them per MCP revision, validates
//! arguments, runs them, renders each result for the revision of *that* request and serves
//! stored results through `resources/read`.
//!
//! A tool author registers typed tools on a [`Registry`]:
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//! use toolwire_core::ToolError;
//! use toolwire_mcp::{CallContext, Gateway, GatewayConfig, Registry, ToolSpec};
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct AddInput { a: i64, b: i64 }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct AddOutput { sum: i64 }
//!
//! let mut tools = Registry::new();
//! tools.register_typed(
//!     ToolSpec::new("add", "Adds two integers."),
//!     |input: AddInput, _ctx: CallContext| async move {
//!         Ok::<_, ToolError>(AddOutput { sum: input.a + input.b })
//!     },
//! )?;
//! let gateway = Gateway::new(tools, GatewayConfig::in_memory()?);
//! let _server = toolwire_mcp::McpServer::new(gateway);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod extend;
mod hosts;
mod input;
mod observe;
mod publish;
mod registry;
mod resource;
mod server;
mod validate;
pub mod work;

pub use input::MAX_ROUNDS;
pub use observe::{CallObserver, CallRecord, OffloadRecord};
pub use registry::{
    CallContext, DynTool, InternalError, IntoToolResult, Principal, Registry, RegistryError,
    ToolFuture, ToolSpec, ToolSpecError,
};
pub use server::{Gateway, GatewayConfig, LegacyCounter, McpServer, STORED_RESULT_TEMPLATE};
pub use toolwire_core::ValidationMode;

//! The gateway state and the hand-written rmcp `ServerHandler` over it.
//!
//! rmcp's HTTP service builds a handler for every POST and asks `get_tool` on every call, so
//! [`McpServer`] is one `Arc` clone and everything else was built when the tools were
//! registered.

mod handler;
mod handoff;
mod pipeline;
mod preview;
mod state;

pub use handler::McpServer;
pub(crate) use handler::{principal_of, revision_of};
pub(crate) use handoff::call_tool_response;
pub(crate) use pipeline::{internal, offload};
pub use preview::{PreviewCallError, ToolListing};
pub use state::{
    Gateway, GatewayConfig, GatewayConfigBuilder, LegacyCounter, STORED_RESULT_TEMPLATE,
};

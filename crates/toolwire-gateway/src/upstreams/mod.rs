//! Upstream MCP servers re-served (DESIGN §15). `result` turns what an upstream answers into a
//! `ToolResult`; `source` connects to an upstream and offers its tools as a `ToolSource`.

pub(crate) mod result;
mod source;

pub use source::{UpstreamError, UpstreamSource};

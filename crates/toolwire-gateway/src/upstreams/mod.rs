//! Upstream MCP servers re-served (DESIGN §15). `result` turns what an upstream answers into a
//! `ToolResult`; the connection and the tool source come next.

pub(crate) mod result;

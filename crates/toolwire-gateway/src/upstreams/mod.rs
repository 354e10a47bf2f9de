//! Upstream MCP servers re-served (DESIGN §15). `connect` opens one connection (stdio or
//! Streamable HTTP, the newest revision the upstream accepts); `source` supervises it and offers
//! the upstream's tools as a `ToolSource`; `tool` calls one of them, and `task` follows the
//! upstream's task (the tasks extension's, or 2025-11-25's) to its end, and `lean` makes a
//! Streamable HTTP upstream's plain calls without rmcp's client; `result` turns what the
//! upstream answers into a `ToolResult`, and `input` the input it asks for; `extend` re-serves
//! its resources and prompts; `relay` passes its progress on to the client; `park` holds a call
//! whose upstream asks a stateless client something until the client's retry answers; `paging`
//! reads the upstream's lists within bounds; `lines` reads a stdio upstream's messages within
//! their bound.

mod connect;
mod extend;
mod input;
mod lean;
mod lines;
mod paging;
mod park;
mod relay;
mod result;
mod source;
mod task;
mod tool;

pub use result::{Converted, convert};
pub use source::{UpstreamError, UpstreamSource};

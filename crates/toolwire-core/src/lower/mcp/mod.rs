//! The one MCP lowering: a `CallToolResult` for every revision, driven by the capability table
//! [`McpCaps::of`](crate::revision::McpCaps::of). The revisions differ only in the rows of that
//! table; the block order and the structured slot come from the layout. The wire shapes are in
//! `shapes.rs`, the lowering of a layout to them in `lowering.rs`, and the render an SDK adapter
//! keeps ([`McpOutput`]) in `output.rs`.
//!
//! The result is built as borrowing serde structs ([`CallToolResult`], [`InputRequiredResult`])
//! whose field order is the key order: serialized, they are the exact wire text; read field by
//! field, they are what an MCP SDK is handed without parsing that text.
//!
//! `CallToolResult` keys in order: `resultType` (2026-07-28), `content`, `structuredContent`,
//! `isError` (only on failure), `_meta`. The result `_meta` always holds at least
//! `<p>/generatedAt`; on 2026-07-28 `io.modelcontextprotocol/serverInfo` follows the toolwire keys.
//! A passthrough result gets exactly one text block and the same result `_meta` (its metadata is
//! only the generation time).
//!
//! Error codes are written verbatim, unknown ones included: every place MCP carries a code
//! (the `{"error":…}` text and structured copies) is a free string.

mod lowering;
mod output;
mod shapes;

pub(crate) use lowering::{McpSettings, lower, structured_holds_data};
pub use output::McpOutput;
pub use shapes::{
    CallToolResult, ContentBlock, EmbeddedContents, EmbeddedResource, InputRequiredResult,
    McpResult, MediaContent, ResourceUri, ResultMeta, StructuredContent, Text,
};

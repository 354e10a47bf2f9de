//! The revision table: what each MCP revision can carry, one row per revision (DESIGN §3,
//! "Capabilities by revision"). Everything that differs between revisions reads a column here.

use crate::target::McpRevision;

/// Which `structuredContent` a revision accepts.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StructuredCap {
    /// No `structuredContent` at all (2024-11-05, 2025-03-26).
    Never,
    /// A JSON object only (2025-06-18, 2025-11-25).
    ObjectOnly,
    /// Any JSON value (2026-07-28).
    Any,
}

/// What one MCP revision can carry in a `CallToolResult` (DESIGN §3, "Capabilities by
/// revision"). Everything the lowering does differently per revision reads one of these rows.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpCaps {
    /// Which `structuredContent` is allowed.
    pub structured_content: StructuredCap,
    /// `resource_link` blocks exist (else the text fallback).
    pub resource_link: bool,
    /// `audio` blocks exist (else an embedded resource `blob` with the audio MIME type).
    pub audio: bool,
    /// Blocks may carry `_meta` (a binary part's name as `<p>/name`, a stored link's expiry).
    pub block_meta: bool,
    /// Results carry `resultType: "complete"` and `_meta["io.modelcontextprotocol/serverInfo"]`.
    pub result_type: bool,
    /// A tool may answer `InputRequiredResult` (SEP-2322); below it the requests are asked on
    /// the connection or the result is down-levelled to the failure `input_required`.
    pub input_required_result: bool,
    /// The server may ask the client `elicitation/create` (from 2025-06-18).
    pub elicitation: bool,
}

/// The capability table, one row per revision, oldest first.
const CAPS: [McpCaps; 5] = [
    // 2024-11-05
    McpCaps {
        structured_content: StructuredCap::Never,
        resource_link: false,
        audio: false,
        block_meta: false,
        result_type: false,
        input_required_result: false,
        elicitation: false,
    },
    // 2025-03-26
    McpCaps {
        structured_content: StructuredCap::Never,
        resource_link: false,
        audio: true,
        block_meta: false,
        result_type: false,
        input_required_result: false,
        elicitation: false,
    },
    // 2025-06-18
    McpCaps {
        structured_content: StructuredCap::ObjectOnly,
        resource_link: true,
        audio: true,
        block_meta: true,
        result_type: false,
        input_required_result: false,
        elicitation: true,
    },
    // 2025-11-25
    McpCaps {
        structured_content: StructuredCap::ObjectOnly,
        resource_link: true,
        audio: true,
        block_meta: true,
        result_type: false,
        input_required_result: false,
        elicitation: true,
    },
    // 2026-07-28
    McpCaps {
        structured_content: StructuredCap::Any,
        resource_link: true,
        audio: true,
        block_meta: true,
        result_type: true,
        input_required_result: true,
        elicitation: true,
    },
];

impl McpCaps {
    /// The row of `revision`.
    pub const fn of(revision: McpRevision) -> Self {
        match revision {
            McpRevision::V2024_11_05 => CAPS[0],
            McpRevision::V2025_03_26 => CAPS[1],
            McpRevision::V2025_06_18 => CAPS[2],
            McpRevision::V2025_11_25 => CAPS[3],
            McpRevision::V2026_07_28 => CAPS[4],
        }
    }
}

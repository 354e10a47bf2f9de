//! The revision table: every fact that differs between MCP revisions, one row per revision
//! (DESIGN §1 "One revision table", §3 "Capabilities by revision").
//!
//! Code that behaves differently per revision reads a column of [`McpCaps::of`]; it never
//! compares revisions (a test fails when a `revision >= …` comes back). Adding a revision is
//! adding a row here, written as what changed since the row before (the compiler asks for it in
//! [`McpCaps::of`]), plus its official schema.

use crate::target::McpRevision;

/// Which `structuredContent` a revision accepts; also which `outputSchema` roots its `Tool`
/// definitions take ([`SchemaRules::output_schema`]).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StructuredCap {
    /// No `structuredContent` at all (2024-11-05, 2025-03-26).
    Never,
    /// A JSON object only (2025-06-18, 2025-11-25).
    ObjectOnly,
    /// Any JSON value (2026-07-28).
    Any,
}

/// Where `$schema` may appear in a schema a `Tool` definition carries.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DollarSchema {
    /// Nowhere (2024-11-05 … 2025-06-18).
    Dropped,
    /// Only at the root, and only when the tool declared it (2025-11-25); never injected.
    RootOnly,
    /// Wherever the tool declared it (2026-07-28).
    AsDeclared,
}

/// How a revision publishes the JSON Schemas of a `Tool` definition (`inputSchema`,
/// `outputSchema`; DESIGN §5 "Publishing"). Revisions with equal rules publish equal schemas,
/// so a tool works its published forms out once per distinct rule set.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SchemaRules {
    /// Which `outputSchema` is published: `Never` (none), `ObjectOnly` (an object root as
    /// declared, any other root wrapped as `{"result": S}`), `Any` (as declared).
    pub output_schema: StructuredCap,
    /// Where `$schema` is kept.
    pub dollar_schema: DollarSchema,
    /// Boolean schemas under `properties` are published as they are; else they are spelled out
    /// as `{}` (true) and `{"not": {}}` (false), since the revision's `Tool` only takes object
    /// property schemas.
    pub boolean_properties: bool,
}

/// Where a tool's display name (`ToolSpec::title`) goes in its `Tool` definition.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolTitle {
    /// Nowhere: the revision has neither `Tool.title` nor annotations (2024-11-05).
    Dropped,
    /// `annotations.title` (2025-03-26, which has annotations but no `Tool.title`), unless the
    /// annotations already carry one.
    Annotations,
    /// `Tool.title` (from 2025-06-18).
    Field,
}

/// One row of the revision table: what one MCP revision can carry and how it behaves.
///
/// Columns are grouped by where they matter: `tools/call` results, the wire contract, tool
/// definitions, the session, and resources.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpCaps {
    // --- `CallToolResult`
    /// Which `structuredContent` is allowed.
    pub structured_content: StructuredCap,
    /// `resource_link` blocks exist (else the text fallback).
    pub resource_link: bool,
    /// `audio` blocks exist (else an embedded resource `blob` with the audio MIME type).
    pub audio: bool,
    /// Blocks (and resource contents) may carry `_meta` (a binary part's name as `<p>/name`, a
    /// stored link's expiry).
    pub block_meta: bool,
    /// Every result carries `resultType: "complete"` (`tools/call`, `resources/read`,
    /// `resources/templates/list`), and a `CallToolResult`'s `_meta` carries
    /// `io.modelcontextprotocol/serverInfo`.
    pub result_type: bool,
    /// A tool may answer `InputRequiredResult` (SEP-2322); below it the requests are asked on
    /// the connection or the result is down-levelled to the failure `input_required`.
    pub input_required_result: bool,
    /// The server may ask the client `elicitation/create` (from 2025-06-18).
    pub elicitation: bool,

    // --- the wire contract beyond the official schemas
    /// Block `annotations` may carry `lastModified` (from 2025-06-18).
    pub annotations_last_modified: bool,
    /// A result's `_meta` may carry `io.modelcontextprotocol/related-task` (the tasks of
    /// 2025-11-25 only).
    pub related_task_meta: bool,
    /// How a long-running call can come back as a task (DESIGN §17).
    pub tasks: Tasks,

    // --- tool definitions (`tools/list`) and other listed items
    /// `title` exists on tools, resources, resource templates and prompts (`BaseMetadata`,
    /// from 2025-06-18).
    pub title: bool,
    /// Where a tool's display name goes.
    pub tool_title: ToolTitle,
    /// `Tool.annotations` (`ToolAnnotations`) exists (from 2025-03-26).
    pub tool_annotations: bool,
    /// `Tool._meta` exists (from 2025-06-18): where a host-specific key such as Claude Code's
    /// size opt-in can be published.
    pub tool_meta: bool,
    /// `icons` exist on tools, resources, templates, prompts and `resource_link` blocks (from
    /// 2025-11-25).
    pub icons: bool,
    /// How schemas are published.
    pub schemas: SchemaRules,

    // --- the session
    /// Stateless: no `initialize` handshake and no session. The revision of each request comes
    /// in its `_meta`, there is no `logging/setLevel`, and the server sends no requests to the
    /// client mid-call (an `InputRequiredResult` asks instead).
    pub stateless: bool,
    /// Arguments that break the input schema come back as an `isError` result, never as a
    /// JSON-RPC error (SEP-1303, from 2025-11-25).
    pub argument_errors_as_results: bool,
    /// Requests after `initialize` carry the `MCP-Protocol-Version` header on HTTP (from
    /// 2025-06-18).
    pub protocol_version_header: bool,
    /// HTTP requests carry the standard request headers: `Mcp-Method`, and `Mcp-Name` for a
    /// method that names a tool, resource or prompt (from 2026-07-28).
    pub method_headers: bool,

    // --- resources
    /// The JSON-RPC error code of "resource not found": `-32002` up to 2025-11-25, `-32602`
    /// (invalid params) on 2026-07-28.
    pub resource_not_found_code: i64,
    /// `resources/read` and `resources/templates/list` results carry the cache hints `ttlMs`
    /// and `cacheScope` (2026-07-28).
    pub cache_hints: bool,
}

/// How a revision lets a call come back as a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tasks {
    /// No tasks: every call is answered in its request.
    None,
    /// 2025-11-25's experimental core tasks (SEP-1686): the client asks with `params.task`,
    /// tools publish `execution.taskSupport`, results come from `tasks/result`.
    Experimental,
    /// The `io.modelcontextprotocol/tasks` extension (SEP-2663), negotiated per request: the
    /// server decides which calls become tasks and `tasks/get` inlines the result.
    Extension,
}

// The table, one row per revision, oldest first; each row says what changed since the one
// before it.

const V2024_11_05: McpCaps = McpCaps {
    structured_content: StructuredCap::Never,
    resource_link: false,
    audio: false,
    block_meta: false,
    result_type: false,
    input_required_result: false,
    elicitation: false,
    annotations_last_modified: false,
    related_task_meta: false,
    tasks: Tasks::None,
    title: false,
    tool_title: ToolTitle::Dropped,
    tool_annotations: false,
    tool_meta: false,
    icons: false,
    schemas: SchemaRules {
        output_schema: StructuredCap::Never,
        dollar_schema: DollarSchema::Dropped,
        boolean_properties: false,
    },
    stateless: false,
    argument_errors_as_results: false,
    protocol_version_header: false,
    method_headers: false,
    resource_not_found_code: -32002,
    cache_hints: false,
};

const V2025_03_26: McpCaps = McpCaps {
    audio: true,
    tool_title: ToolTitle::Annotations,
    tool_annotations: true,
    ..V2024_11_05
};

const V2025_06_18: McpCaps = McpCaps {
    structured_content: StructuredCap::ObjectOnly,
    resource_link: true,
    block_meta: true,
    elicitation: true,
    annotations_last_modified: true,
    title: true,
    tool_title: ToolTitle::Field,
    tool_meta: true,
    schemas: SchemaRules { output_schema: StructuredCap::ObjectOnly, ..V2025_03_26.schemas },
    protocol_version_header: true,
    ..V2025_03_26
};

const V2025_11_25: McpCaps = McpCaps {
    related_task_meta: true,
    tasks: Tasks::Experimental,
    icons: true,
    schemas: SchemaRules { dollar_schema: DollarSchema::RootOnly, ..V2025_06_18.schemas },
    argument_errors_as_results: true,
    ..V2025_06_18
};

const V2026_07_28: McpCaps = McpCaps {
    structured_content: StructuredCap::Any,
    result_type: true,
    input_required_result: true,
    related_task_meta: false,
    tasks: Tasks::Extension,
    schemas: SchemaRules {
        output_schema: StructuredCap::Any,
        dollar_schema: DollarSchema::AsDeclared,
        boolean_properties: true,
    },
    stateless: true,
    method_headers: true,
    resource_not_found_code: -32602,
    cache_hints: true,
    ..V2025_11_25
};

impl McpRevision {
    /// Whether the revision is stateless (no `initialize` handshake): the revision table's
    /// [`stateless`](McpCaps::stateless) column.
    pub fn is_stateless(self) -> bool {
        McpCaps::of(self).stateless
    }
}

impl McpCaps {
    /// The row of `revision`.
    pub const fn of(revision: McpRevision) -> Self {
        match revision {
            McpRevision::V2024_11_05 => V2024_11_05,
            McpRevision::V2025_03_26 => V2025_03_26,
            McpRevision::V2025_06_18 => V2025_06_18,
            McpRevision::V2025_11_25 => V2025_11_25,
            McpRevision::V2026_07_28 => V2026_07_28,
        }
    }

    /// The oldest revision whose row satisfies `has` (for messages such as "it arrives in
    /// 2025-06-18"); `None` when no revision does.
    pub fn first_with(has: impl Fn(&McpCaps) -> bool) -> Option<McpRevision> {
        McpRevision::ALL.into_iter().find(|revision| has(&Self::of(*revision)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_column_and_the_tool_title_agree() {
        for revision in McpRevision::ALL {
            let caps = McpCaps::of(revision);
            assert_eq!(caps.title, caps.tool_title == ToolTitle::Field, "{}", revision.as_str());
            if caps.tool_title == ToolTitle::Annotations {
                assert!(caps.tool_annotations, "{}", revision.as_str());
            }
        }
    }

    #[test]
    fn first_with_names_the_oldest_revision() {
        assert_eq!(McpCaps::first_with(|c| c.audio), Some(McpRevision::V2025_03_26));
        assert_eq!(McpCaps::first_with(|c| c.icons), Some(McpRevision::V2025_11_25));
        assert_eq!(McpCaps::first_with(|c| c.tool_meta), Some(McpRevision::V2025_06_18));
        assert_eq!(McpCaps::first_with(|c| c.stateless), Some(McpRevision::V2026_07_28));
        assert_eq!(McpCaps::first_with(|_| false), None);
    }
}

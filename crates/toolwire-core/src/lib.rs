//! toolwire-core: the protocol-agnostic tool result object and the output mapper that renders
//! it for the legacy envelope, every MCP revision and A2A.
//!
//! The core is sans-IO: rendering never blocks and never touches files or the network. When a
//! result is too large for its target, the mapper hands back the bytes to store and finishes the
//! render once the caller passes the link.
//!
//! Every public item has one path. The result object, its parts and metadata, the targets, the
//! output schema and the mapper are re-exported here at the root; the public modules are the
//! concepts an adapter reaches into by name: [`input`] (the input requests of a multi-round
//! call), [`host`] (host profiles), [`revision`] (the MCP revision table), [`mcp`] and
//! [`resource`] (the MCP wire shapes), [`v1`] and [`legacy`] (the serialized forms), and the
//! small helpers the wire checks share: [`grammar`], [`pointer`](mod@pointer), [`parse`], [`json_kind`],
//! [`names`], [`sse`]. The layers inside the crate (ARCHITECTURE.md, "The core's layers") are kept by a
//! test.

mod any;
mod data;
mod error;
pub mod facts;
mod form;
pub mod grammar;
pub mod host;
mod identity;
pub mod input;
pub mod json_kind;
mod json_text;
mod layout;
pub mod legacy;
mod link;
mod lower;
mod mapper;
mod meta;
pub mod names;
pub mod parse;
mod part;
pub mod pointer;
pub mod preview;
mod result;
pub mod revision;
mod schema;
pub mod sse;
mod target;
mod timestamp;
pub mod v1;

/// The MCP wire shapes: an [`McpOutput`](mcp::McpOutput) (an MCP render kept with its result, from
/// [`OutputMapper::render_owned`]) and the typed `CallToolResult` or `InputRequiredResult` it lends
/// out, block by block.
pub mod mcp {
    pub use crate::form::{
        Annotations, Base64, EmptyObject, EnvelopeData, EnvelopeStructured, PartUri, PrefixedOne,
        ResourceLink, Roles,
    };
    pub use crate::lower::mcp::{
        CallToolResult, ContentBlock, EmbeddedContents, EmbeddedResource, InputRequiredResult,
        McpOutput, McpResult, MediaContent, ResourceUri, ResultMeta, StructuredContent, Text,
    };
}

/// The MCP `resources/read` result of a stored tool result and the resource templates list.
pub mod resource {
    pub use crate::lower::resource::{
        ReadResourceResult, ResourceEntry, ResourceTemplate, ResourceTemplatesList,
        STORED_RESULT_TEMPLATE_NAME, TEMPLATES_TTL_MS, read_result, stored_result_template,
        templates_list,
    };
}

pub use any::{ParseError, parse_any};
pub use data::PreparedData;
pub use error::{ErrorCode, ToolError};
pub use link::{STORED_RESULT_PREFIX, StoredLink};
pub use lower::a2a::A2aTaskState;
pub use mapper::{
    ConfigError, DEFAULT_LIMIT, MAX_INLINE, MIN_OFFLOAD_LIMIT, MapperConfig, NeedsOffload, Output,
    OutputMapper, PendingStub, RenderContext, RenderError, Rendered, StoreRefusal, asks_natively,
};
pub use meta::{ExtensionError, Extensions, Metadata, Pagination, Query, check_namespace};
pub use part::{
    Audience, BinaryPart, EmbeddedResourcePart, Part, ResourceContents, ResourceLinkPart, TextPart,
};
pub use result::{
    BuildError, InternalError, IntoToolResult, Provenance, ToolResult, ToolResultBuilder,
};
pub use schema::{
    SchemaError, ToolOutput, ValidationMode, build_validator, envelope_structured, exact_numbers,
    publish_input_schema,
};
pub use target::{A2aVersion, McpRevision, Phase, Shape, Target, TargetError};
pub use timestamp::{Timestamp, TimestampError};

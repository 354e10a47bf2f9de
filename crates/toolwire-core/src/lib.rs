//! toolwire-core: the protocol-agnostic tool result object and the output mapper that renders
//! it for the legacy envelope, every MCP revision and A2A.
//!
//! The core is sans-IO: rendering never blocks and never touches files or the network. When a
//! result is too large for its target, the mapper hands back the bytes to store and finishes the
//! render once the caller passes the link.

mod data;
pub mod error;
pub mod grammar;
pub mod host;
pub mod input;
pub mod json_kind;
mod layout;
pub mod legacy;
pub mod link;
pub mod lower;
pub mod mapper;
pub mod meta;
pub mod names;
pub mod parse;
pub mod part;
pub mod pointer;
pub mod result;
pub mod revision;
pub mod schema;
pub mod timestamp;
pub mod v1;

pub use data::PreparedData;
pub use error::{ErrorCode, ToolError};
pub use host::{HostProfile, HostProfiles, Reads, model_view};
pub use input::{Confirmation, Elicited, InputRequest, InputRequired, InputRound};
pub use link::StoredLink;
pub use lower::mcp::McpOutput;
pub use mapper::{
    ConfigError, MapperConfig, NeedsOffload, Output, OutputMapper, RenderContext, RenderError,
    Rendered,
};
pub use meta::{Extensions, Metadata, Pagination, Query};
pub use parse::{ParseError, parse_any};
pub use part::{
    BinaryPart, EmbeddedResourcePart, Part, ResourceContents, ResourceLinkPart, TextPart,
};
pub use result::{
    BuildError, InternalError, IntoToolResult, Provenance, ToolResult, ToolResultBuilder,
};
pub use schema::{
    SchemaError, ToolOutput, ValidationMode, Violation, envelope_structured, exact_numbers,
    publish_input_schema,
};
pub use timestamp::Timestamp;
pub mod target;
pub use names::UnknownName;
pub use target::{A2aVersion, McpRevision, Phase, Shape, Target, TargetError};

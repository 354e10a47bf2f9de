//! The one MCP lowering: a `CallToolResult` for every revision, driven by the capability table
//! [`McpCaps::of`]. The revisions differ only in the rows of that table; the block order and the
//! structured slot come from the layout.
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

use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::sync::Arc;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{
    Base64, EmptyObject, PartUri, PrefixedMeta, PrefixedOne, ResourceLink, legacy, stored_link_name,
};
use crate::data::Data;
use crate::error::{ErrorCode, ToolError};
use crate::input::InputRequests;
use crate::layout::{Block, DataSchema, Layout, Plan, Structured};
use crate::link::StoredLink;
use crate::mapper::Names;
use crate::part::{BinaryPart, EmbeddedResourcePart, Part, ResourceContents, ResourceLinkPart};
use crate::result::{Provenance, ToolResult};
use crate::target::McpRevision;

pub use crate::revision::{McpCaps, StructuredCap};

/// The server-level settings the MCP lowering needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct McpSettings<'c> {
    /// The `_meta` prefix and `serverInfo`.
    pub(crate) names: &'c Arc<Names>,
    /// The host can follow links (else the text points at the `read_result` tool).
    pub(crate) reads_links: bool,
}

/// A `CallToolResult` as toolwire sends it; serializes to the exact wire text.
#[non_exhaustive]
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult<'a> {
    /// `"complete"` where the revision carries `resultType` (2026-07-28).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<&'static str>,
    /// The content blocks, in wire order.
    pub content: Vec<ContentBlock<'a>>,
    /// The structured slot, when the revision and the result send one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<StructuredContent<'a>>,
    /// `true` on failure; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// The result `_meta`.
    #[serde(rename = "_meta")]
    pub meta: ResultMeta<'a>,
}

/// A 2026-07-28 `InputRequiredResult` as toolwire sends it; serializes to the exact wire text.
#[non_exhaustive]
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult<'a> {
    /// Always `"input_required"`.
    pub result_type: &'static str,
    /// The requests (present whenever there are any, and always without a sealed state).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests<'a>>,
    /// The sealed state the client passes back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_state: Option<&'a str>,
    /// The result `_meta`, as on a complete result.
    #[serde(rename = "_meta")]
    pub meta: ResultMeta<'a>,
}

/// A rendered MCP result of either kind.
#[non_exhaustive]
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum McpResult<'a> {
    /// A `CallToolResult`.
    Complete(CallToolResult<'a>),
    /// An `InputRequiredResult` (2026-07-28).
    InputRequired(InputRequiredResult<'a>),
}

impl<'a> McpResult<'a> {
    /// The length of the compact JSON text, exactly as serializing would write it, and the compat
    /// block's envelope text when it was written to be measured. A small envelope (data up to
    /// [`legacy::WRITTEN_UP_TO`]) is written once here and kept, as it is sent; a larger one is
    /// measured from its pieces and never built here.
    pub(crate) fn measure(mut self) -> (usize, Option<String>) {
        let mut envelopes = 0;
        let mut written = None;
        if let Self::Complete(result) = &mut self {
            for block in &mut result.content {
                if let ContentBlock::Text { text } = block
                    && let TextKind::Envelope(envelope) = text.0
                {
                    if envelope.is_small() {
                        let full = envelope.to_text();
                        envelopes += super::escaped_len(full.as_bytes());
                        written = Some(full);
                    } else {
                        envelopes += envelope.escaped_len();
                    }
                    // Counted below as its quotes alone.
                    *text = Text::from("");
                }
            }
        }
        (super::json_len(&self) + envelopes, written)
    }

    /// The compat block's envelope as `text`, written beforehand ([`McpResult::measure`]).
    fn with_envelope(mut self, text: &'a str) -> Self {
        if let Self::Complete(result) = &mut self {
            for block in &mut result.content {
                if let ContentBlock::Text { text: kept } = block
                    && let TextKind::Envelope(_) = kept.0
                {
                    *kept = Text::from(text);
                }
            }
        }
        self
    }
}

/// The result `_meta`: the toolwire keys, then `io.modelcontextprotocol/serverInfo` where the
/// revision carries it.
#[derive(Debug, Clone, Copy)]
pub struct ResultMeta<'a> {
    toolwire: PrefixedMeta<'a>,
    server_info: Option<ServerInfo<'a>>,
}

impl Serialize for ResultMeta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.toolwire.entries(&mut map)?;
        if let Some(info) = &self.server_info {
            map.serialize_entry("io.modelcontextprotocol/serverInfo", info)?;
        }
        map.end()
    }
}

/// `serverInfo`: the server's name and version.
#[derive(Debug, Clone, Copy, Serialize)]
struct ServerInfo<'a> {
    name: &'a str,
    version: &'a str,
}

/// One content block.
#[non_exhaustive]
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock<'a> {
    /// A text block.
    Text {
        /// The text.
        text: Text<'a>,
    },
    /// An image block.
    Image(MediaContent<'a>),
    /// An audio block.
    Audio(MediaContent<'a>),
    /// An embedded resource.
    Resource(EmbeddedResource<'a>),
    /// A `resource_link` block.
    ResourceLink(ResourceLink<'a>),
}

/// A text block's text: a string, or the compat block's legacy envelope, which is written out
/// only when it is serialized or asked for ([`Text::into_string`]), so that sizing a large
/// result never builds its envelope text.
#[derive(Clone)]
pub struct Text<'a>(TextKind<'a>);

#[derive(Clone)]
enum TextKind<'a> {
    Str(Cow<'a, str>),
    Envelope(legacy::EnvelopeText<'a>),
}

impl Text<'_> {
    /// The text, owned.
    pub fn into_string(self) -> String {
        match self.0 {
            TextKind::Str(text) => text.into_owned(),
            TextKind::Envelope(envelope) => envelope.to_text(),
        }
    }
}

impl<'a, T: Into<Cow<'a, str>>> From<T> for Text<'a> {
    fn from(text: T) -> Self {
        Self(TextKind::Str(text.into()))
    }
}

impl Serialize for Text<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            TextKind::Str(text) => serializer.serialize_str(text),
            TextKind::Envelope(envelope) => serializer.collect_str(envelope),
        }
    }
}

impl fmt::Debug for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            TextKind::Str(text) => fmt::Debug::fmt(text, f),
            TextKind::Envelope(envelope) => fmt::Debug::fmt(&envelope.to_string(), f),
        }
    }
}

/// An image or audio block: base64 data and its MIME type.
#[non_exhaustive]
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaContent<'a> {
    /// The bytes, base64 on the wire.
    pub data: Base64<'a>,
    /// The MIME type.
    pub mime_type: &'a str,
    /// `{"<p>/name": …}` for a named part, where blocks carry `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<PrefixedOne<'a, &'a str>>,
}

/// An embedded resource block.
#[non_exhaustive]
#[derive(Debug, Serialize)]
pub struct EmbeddedResource<'a> {
    /// The resource contents.
    pub resource: EmbeddedContents<'a>,
    /// `{"<p>/name": …}` for a named binary part, where blocks carry `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<PrefixedOne<'a, &'a str>>,
}

/// The contents of an embedded resource: `uri`, `mimeType`, then `text` or `blob`.
#[non_exhaustive]
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedContents<'a> {
    /// The resource URI.
    pub uri: ResourceUri<'a>,
    /// The MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<&'a str>,
    /// Text contents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<&'a str>,
    /// Binary contents, base64 on the wire.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<Base64<'a>>,
}

/// A resource URI: the part's own, or the synthesized part URI of a binary part.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub enum ResourceUri<'a> {
    /// A URI as given.
    Given(&'a str),
    /// `toolwire://part/<index>/<name>`.
    Part(PartUri<'a>),
}

impl fmt::Display for ResourceUri<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Given(uri) => f.write_str(uri),
            Self::Part(uri) => uri.fmt(f),
        }
    }
}

/// What goes into `structuredContent`.
#[non_exhaustive]
#[derive(Debug, Clone, Copy)]
pub enum StructuredContent<'a> {
    /// The data itself.
    Data(&'a RawValue),
    /// `{"result": <data>}` (non-object data where only objects are allowed).
    Wrapped(&'a RawValue),
    /// `{"error":{"code","message","details"?}}`.
    Error(&'a ToolError),
    /// The envelope shape `{"success","message","data","input_schema"?}`.
    Envelope(EnvelopeStructured<'a, &'a RawValue>),
}

impl Serialize for StructuredContent<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Data(data) => data.serialize(serializer),
            Self::Wrapped(data) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("result", data)?;
                map.end()
            }
            Self::Error(error) => ErrorWrapper::full(error).serialize(serializer),
            Self::Envelope(envelope) => envelope.serialize(serializer),
        }
    }
}

/// `{"error":{"code","message"?,"details"?}}`: the structured failure (with the message) and the
/// spec-phase error text (without it).
#[derive(Debug, Clone, Copy, Serialize)]
struct ErrorWrapper<'a> {
    error: ErrorBody<'a>,
}

#[derive(Debug, Clone, Copy, Serialize)]
struct ErrorBody<'a> {
    code: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a Map<String, Value>>,
}

impl<'a> ErrorWrapper<'a> {
    fn full(error: &'a ToolError) -> Self {
        Self {
            error: ErrorBody {
                code: error.code.as_str(),
                message: Some(&error.message),
                details: error.details.as_ref(),
            },
        }
    }
}

/// The envelope's `structuredContent` (DESIGN §5, the envelope shape): `success`, `message` (the
/// summary on success, `""` when none; the error message on failure), `data` (the data on
/// success, `{}` on failure or without data), then `input_schema` (the tool's input schema)
/// after an `invalid_arguments` failure. `D` is the data's form: raw JSON on the wire, a
/// `Value` for [`envelope_structured`](crate::schema::envelope_structured).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EnvelopeStructured<'a, D> {
    /// True on success.
    pub success: bool,
    /// The summary or the error message.
    pub message: &'a str,
    /// The data, or `{}`.
    pub data: EnvelopeData<D>,
    /// The tool's input schema after an `invalid_arguments` failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<&'a Value>,
}

/// The envelope's `data`: the data, or `{}`.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub enum EnvelopeData<D> {
    /// The data.
    Data(D),
    /// `{}`.
    Empty(EmptyObject),
}

impl<'a, D> EnvelopeStructured<'a, D> {
    /// The envelope of `result` whose data (on success) is `data`.
    pub(crate) fn new(
        result: &'a ToolResult,
        data: Option<D>,
        input_schema: Option<&'a Value>,
    ) -> Self {
        let empty = EnvelopeData::Empty(EmptyObject);
        match result.error() {
            None => Self {
                // An input-required result (never sent with this shape) is no success.
                success: result.is_success(),
                message: result.summary().unwrap_or_default(),
                data: data.map_or(empty, EnvelopeData::Data),
                input_schema: None,
            },
            Some(error) => Self {
                success: false,
                message: &error.message,
                data: empty,
                input_schema: input_schema.filter(|_| error.code == ErrorCode::InvalidArguments),
            },
        }
    }
}

/// The `CallToolResult` (or, for an input-required result, the `InputRequiredResult`) of
/// `layout` for `revision`.
pub(crate) fn lower<'a>(
    layout: Layout<'a>,
    revision: McpRevision,
    request_state: Option<&'a str>,
    settings: &McpSettings<'a>,
) -> McpResult<'a> {
    if layout.result().is_input_required() {
        McpResult::InputRequired(input_required(layout, request_state, settings))
    } else {
        McpResult::Complete(call_tool_result(layout, revision, settings))
    }
}

/// The `CallToolResult` of `layout` for `revision`.
fn call_tool_result<'a>(
    layout: Layout<'a>,
    revision: McpRevision,
    settings: &McpSettings<'a>,
) -> CallToolResult<'a> {
    let caps = McpCaps::of(revision);
    let mut content = Vec::with_capacity(layout.blocks().len() + 1);
    for block in layout.blocks() {
        push_block(&mut content, layout, *block, caps, settings);
    }
    CallToolResult {
        result_type: caps.result_type.then_some("complete"),
        content,
        structured_content: structured(layout, caps),
        is_error: layout.result().is_failure().then_some(true),
        meta: result_meta(layout, settings, caps.result_type),
    }
}

/// The `InputRequiredResult` of `layout`'s input-required result: `resultType`, `inputRequests`
/// (when there are any), `requestState` (the sealed state the caller passes), then the same
/// `_meta` as a complete result.
fn input_required<'a>(
    layout: Layout<'a>,
    request_state: Option<&'a str>,
    settings: &McpSettings<'a>,
) -> InputRequiredResult<'a> {
    // At least one of the two is present: without a sealed state the requests always are.
    let input_requests = layout
        .result()
        .input_required_requests()
        .filter(|input| !input.requests.is_empty() || request_state.is_none())
        .map(InputRequests);
    InputRequiredResult {
        result_type: "input_required",
        input_requests,
        request_state,
        meta: result_meta(layout, settings, true),
    }
}

fn result_meta<'a>(
    layout: Layout<'a>,
    settings: &McpSettings<'a>,
    server_info: bool,
) -> ResultMeta<'a> {
    ResultMeta {
        toolwire: PrefixedMeta::new(layout, &settings.names.prefix, true),
        server_info: server_info.then_some(ServerInfo {
            name: &settings.names.server_name,
            version: &settings.names.server_version,
        }),
    }
}

fn text<'a>(text: impl Into<Cow<'a, str>>) -> ContentBlock<'a> {
    ContentBlock::Text { text: Text::from(text.into()) }
}

fn push_block<'a>(
    content: &mut Vec<ContentBlock<'a>>,
    layout: Layout<'a>,
    block: Block,
    caps: McpCaps,
    settings: &McpSettings<'a>,
) {
    let result = layout.result();
    let block = match block {
        Block::Envelope => match result.provenance() {
            Provenance::LegacyEnvelope(raw) => text(raw.as_str()),
            _ => {
                ContentBlock::Text { text: Text(TextKind::Envelope(legacy::EnvelopeText(layout))) }
            }
        },
        Block::Passthrough => text(layout.passthrough().unwrap_or_default()),
        Block::Data => text(layout.data_json().unwrap_or("null")),
        Block::Summary => text(result.summary().unwrap_or_default()),
        Block::ErrorMessage => text(result.error().map_or("", |error| error.message.as_str())),
        Block::ErrorJson => {
            let body = match result.error() {
                Some(e) => {
                    ErrorBody { code: e.code.as_str(), message: None, details: e.details.as_ref() }
                }
                None => ErrorBody { code: "", message: None, details: None },
            };
            text(super::to_json_string(&ErrorWrapper { error: body }))
        }
        Block::Meta => {
            #[derive(Serialize)]
            struct MetaText<'a> {
                #[serde(rename = "_meta")]
                meta: PrefixedMeta<'a>,
            }
            text(super::to_json_string(&MetaText {
                meta: PrefixedMeta::new(layout, &settings.names.prefix, false),
            }))
        }
        Block::Part(index) => match result.parts().get(index) {
            Some(part) => part_block(index, part, caps, &settings.names.prefix),
            None => return,
        },
        Block::StoredLink(index) => {
            if let Some(link) = result.stored_links().get(index) {
                push_stored_link(content, layout, link, caps, settings);
            }
            return;
        }
        Block::Null => text("null"),
    };
    content.push(block);
}

fn part_block<'a>(
    index: usize,
    part: &'a Part,
    caps: McpCaps,
    prefix: &'a str,
) -> ContentBlock<'a> {
    match part {
        Part::Text(part) => text(part.text.as_str()),
        Part::Binary(binary) => binary_block(index, binary, caps, prefix),
        Part::ResourceLink(link) if caps.resource_link => {
            ContentBlock::ResourceLink(ResourceLink::from(link))
        }
        Part::ResourceLink(link) => text(resource_link_text(link)),
        Part::EmbeddedResource(resource) => embedded_block(resource),
    }
}

fn has_major_type(mime: &str, major: &str) -> bool {
    mime.len() > major.len()
        && mime.as_bytes()[major.len()] == b'/'
        && mime[..major.len()].eq_ignore_ascii_case(major)
}

fn binary_block<'a>(
    index: usize,
    binary: &'a BinaryPart,
    caps: McpCaps,
    prefix: &'a str,
) -> ContentBlock<'a> {
    let mime = binary.mime_type.as_str();
    let meta = binary.name.as_deref().filter(|_| caps.block_meta).map(|name| PrefixedOne {
        prefix,
        name: "name",
        value: name,
    });
    let media = || MediaContent { data: Base64(&binary.data), mime_type: mime, meta };
    if has_major_type(mime, "image") {
        ContentBlock::Image(media())
    } else if has_major_type(mime, "audio") && caps.audio {
        ContentBlock::Audio(media())
    } else {
        // Neither image nor (on this revision) audio: an embedded resource blob under the
        // synthesized part URI.
        ContentBlock::Resource(EmbeddedResource {
            resource: EmbeddedContents {
                uri: ResourceUri::Part(PartUri { index, name: binary.name.as_deref() }),
                mime_type: Some(mime),
                text: None,
                blob: Some(Base64(&binary.data)),
            },
            meta,
        })
    }
}

fn embedded_block(resource: &EmbeddedResourcePart) -> ContentBlock<'_> {
    let (text, blob) = match &resource.contents {
        ResourceContents::Text(text) => (Some(text.as_str()), None),
        ResourceContents::Blob(blob) => (None, Some(Base64(blob))),
    };
    ContentBlock::Resource(EmbeddedResource {
        resource: EmbeddedContents {
            uri: ResourceUri::Given(&resource.uri),
            mime_type: resource.mime_type.as_deref(),
            text,
            blob,
        },
        meta: None,
    })
}

fn push_stored_link<'a>(
    content: &mut Vec<ContentBlock<'a>>,
    layout: Layout<'a>,
    link: &'a StoredLink,
    caps: McpCaps,
    settings: &McpSettings<'a>,
) {
    // The URI and how to read it go in a text block on every revision: many hosts drop a
    // `resource_link` block or flatten it to a bare URI.
    content.push(text(stored_link_text(link, settings.reads_links)));
    if !caps.resource_link {
        return;
    }
    content.push(ContentBlock::ResourceLink(ResourceLink {
        uri: &link.uri,
        name: Cow::Owned(stored_link_name(link)),
        title: Some("Full result"),
        description: layout.result().summary().or(link.description.as_deref()),
        mime_type: Some(&link.mime_type),
        size: link.size,
        meta: link.expires_at.map(|at| PrefixedOne {
            prefix: &settings.names.prefix,
            name: "expiresAt",
            value: at,
        }),
    }));
}

fn structured<'a>(layout: Layout<'a>, caps: McpCaps) -> Option<StructuredContent<'a>> {
    if caps.structured_content == StructuredCap::Never {
        return None;
    }
    let result = layout.result();
    match layout.structured() {
        Structured::Absent => None,
        Structured::Data(schema) => {
            let data = layout.data_raw()?;
            let is_object = result.data.as_ref().is_some_and(Data::is_object);
            let wrap = match (caps.structured_content, schema) {
                (StructuredCap::Any, _) => false,
                (_, DataSchema::None) => !is_object,
                (_, DataSchema::ObjectRoot) if is_object => false,
                // An object root with non-object data (validation off): neither the data nor a
                // wrapper would match what was published, so nothing is sent.
                (_, DataSchema::ObjectRoot) => return None,
                (_, DataSchema::OtherRoot) => true,
            };
            Some(if wrap {
                StructuredContent::Wrapped(data)
            } else {
                StructuredContent::Data(data)
            })
        }
        Structured::Error => result.error().map(StructuredContent::Error),
        Structured::Envelope => Some(StructuredContent::Envelope(EnvelopeStructured::new(
            result,
            layout.data_raw(),
            layout.input_schema(),
        ))),
    }
}

/// `Resource <title or name>: <uri> (<mime>, <size> bytes) — <description>`, absent items left
/// out.
pub(crate) fn resource_link_text(link: &ResourceLinkPart) -> String {
    let mut text =
        format!("Resource {}: {}", link.title.as_deref().unwrap_or(&link.name), link.uri);
    match (&link.mime_type, link.size) {
        (Some(mime), Some(size)) => {
            let _ = write!(text, " ({mime}, {size} bytes)");
        }
        (Some(mime), None) => {
            let _ = write!(text, " ({mime})");
        }
        (None, Some(size)) => {
            let _ = write!(text, " ({size} bytes)");
        }
        (None, None) => {}
    }
    if let Some(description) = &link.description {
        let _ = write!(text, " — {description}");
    }
    text
}

/// `Full result stored at <uri> (<size> bytes, <mime>); read it with resources/read.` (the size
/// left out when unknown; the `read_result` tool named instead for a host that cannot follow
/// links).
pub(crate) fn stored_link_text(link: &StoredLink, reads_links: bool) -> String {
    let how = crate::host::read_instruction(&link.uri, reads_links);
    match link.size {
        Some(size) => {
            format!("Full result stored at {} ({size} bytes, {}); {how}.", link.uri, link.mime_type)
        }
        None => format!("Full result stored at {} ({}); {how}.", link.uri, link.mime_type),
    }
}

/// An MCP result rendered with its tool result kept ([`OutputMapper::render_owned`]): the result
/// and its layout, from which the typed form ([`McpOutput::result`]) is built on demand. It
/// serializes to the exact wire text; an SDK adapter reads it field by field instead, and takes
/// `structuredContent` as a JSON value from the result's own data
/// ([`McpOutput::into_structured_content`]), so nothing is parsed back.
///
/// [`OutputMapper::render_owned`]: crate::mapper::OutputMapper::render_owned
#[derive(Debug, Clone)]
pub struct McpOutput {
    result: ToolResult,
    plan: Plan,
    names: Arc<Names>,
    reads_links: bool,
    revision: McpRevision,
    request_state: Option<String>,
    /// The compat block's envelope, when it was written at render ([`McpResult::measure`]).
    envelope: Option<String>,
}

impl McpOutput {
    /// Keeps `result` with its `plan` for `revision`, and the compat block's `envelope` text
    /// where it was written already.
    pub(crate) fn new(
        result: ToolResult,
        plan: Plan,
        revision: McpRevision,
        request_state: Option<&str>,
        settings: &McpSettings<'_>,
        envelope: Option<String>,
    ) -> Self {
        Self {
            result,
            plan,
            names: Arc::clone(settings.names),
            reads_links: settings.reads_links,
            revision,
            request_state: request_state.map(str::to_owned),
            envelope,
        }
    }

    /// The revision it was rendered for.
    pub fn revision(&self) -> McpRevision {
        self.revision
    }

    /// The tool result it was rendered from (after the mapper's replacements: a schema
    /// failure, a down-levelled input request, an offload stub).
    pub fn tool_result(&self) -> &ToolResult {
        &self.result
    }

    /// The typed result, borrowing this output.
    pub fn result(&self) -> McpResult<'_> {
        let settings = McpSettings { names: &self.names, reads_links: self.reads_links };
        let result = lower(
            Layout::new(&self.result, &self.plan),
            self.revision,
            self.request_state.as_deref(),
            &settings,
        );
        match &self.envelope {
            Some(text) => result.with_envelope(text),
            None => result,
        }
    }

    /// The exact compact wire text.
    pub fn to_json(&self) -> String {
        super::to_json_string(&self.result())
    }

    /// `structuredContent` as a JSON value: the result's data moved out (wrapped as
    /// `{"result": …}` where the revision needs it), the error or the envelope built from the
    /// result. `None` when the result sends none (or is input required).
    pub fn into_structured_content(mut self) -> Option<Value> {
        let kind = match self.result() {
            McpResult::Complete(result) => result.structured_content.map(StructuredKind::of),
            McpResult::InputRequired(_) => None,
        }?;
        match kind {
            StructuredKind::Data => self.result.data.take().map(Data::into_tree),
            StructuredKind::Wrapped => {
                let data = self.result.data.take()?.into_tree();
                Some(Value::Object(Map::from_iter([("result".to_owned(), data)])))
            }
            StructuredKind::Error => {
                let error = self.result.error()?;
                serde_json::to_value(ErrorWrapper::full(error)).ok()
            }
            StructuredKind::Envelope => {
                let layout = Layout::new(&self.result, &self.plan);
                Some(crate::schema::envelope_structured(layout.result(), layout.input_schema()))
            }
        }
    }
}

/// Which `structuredContent` was chosen, without its borrow.
#[derive(Debug, Clone, Copy)]
enum StructuredKind {
    Data,
    Wrapped,
    Error,
    Envelope,
}

impl StructuredKind {
    fn of(structured: StructuredContent<'_>) -> Self {
        match structured {
            StructuredContent::Data(_) => Self::Data,
            StructuredContent::Wrapped(_) => Self::Wrapped,
            StructuredContent::Error(_) => Self::Error,
            StructuredContent::Envelope(_) => Self::Envelope,
        }
    }
}

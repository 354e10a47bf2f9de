//! Lowering a layout to the MCP shapes for one revision, through the capability table.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;

use serde::Serialize;

use super::shapes::{
    CallToolResult, ContentBlock, EmbeddedContents, EmbeddedResource, ErrorBody, ErrorWrapper,
    InputRequiredResult, McpResult, MediaContent, ResourceUri, ResultMeta, ServerInfo,
    StructuredContent, Text, TextKind,
};
use crate::data::Data;
use crate::form::{Annotations, Base64, EnvelopeStructured, PartUri, PrefixedOne, ResourceLink};
use crate::identity::Names;
use crate::input::InputRequests;
use crate::json_text::to_json_string;
use crate::layout::{Block, DataSchema, Layout, Structured};
use crate::link::StoredLink;
use crate::lower::{PrefixedMeta, legacy, stored_link_name};
use crate::part::{BinaryPart, EmbeddedResourcePart, Part, ResourceContents, ResourceLinkPart};
use crate::result::Provenance;
use crate::revision::{McpCaps, StructuredCap};
use crate::target::McpRevision;

/// The server-level settings the MCP lowering needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct McpSettings<'c> {
    /// The `_meta` prefix and `serverInfo`.
    pub(crate) names: &'c Arc<Names>,
    /// The host can follow links (else the text points at the `read_result` tool).
    pub(crate) reads_links: bool,
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
    ContentBlock::Text { text: Text::from(text.into()), annotations: None }
}

fn push_block<'a>(
    content: &mut Vec<ContentBlock<'a>>,
    layout: Layout<'a>,
    block: Block,
    caps: McpCaps,
    settings: &McpSettings<'a>,
) {
    let result = layout.result();
    // Where the data goes only as `structuredContent`, its text copy is left out and the
    // summary, or a pointer line, stands for it.
    let pointer = layout.data_elsewhere() && result.summary().is_none();
    let block = match block {
        Block::Envelope if layout.data_elsewhere() => {
            let envelope = Text(TextKind::Envelope(legacy::EnvelopeText(layout)));
            content.push(ContentBlock::Text { text: envelope, annotations: None });
            if pointer {
                content.push(text(crate::host::DATA_POINTER));
            }
            return;
        }
        Block::Data if pointer => text(crate::host::DATA_POINTER),
        Block::Data if layout.data_elsewhere() => return,
        Block::Envelope => match result.provenance() {
            Provenance::LegacyEnvelope(raw) => text(raw.as_str()),
            _ => {
                let envelope = Text(TextKind::Envelope(legacy::EnvelopeText(layout)));
                ContentBlock::Text { text: envelope, annotations: None }
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
            text(to_json_string(&ErrorWrapper { error: body }))
        }
        Block::Meta => {
            #[derive(Serialize)]
            struct MetaText<'a> {
                #[serde(rename = "_meta")]
                meta: PrefixedMeta<'a>,
            }
            text(to_json_string(&MetaText {
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
    // Every revision's content blocks take `annotations.audience` (2024-11-05 included), so the
    // revision table has no column for it.
    let annotations = Annotations::of(part.audience());
    match part {
        Part::Text(part) => {
            ContentBlock::Text { text: Text::from(part.text.as_str()), annotations }
        }
        Part::Binary(binary) => binary_block(index, binary, caps, prefix, annotations),
        Part::ResourceLink(link) if caps.resource_link => {
            ContentBlock::ResourceLink(ResourceLink { annotations, ..ResourceLink::from(link) })
        }
        Part::ResourceLink(link) => {
            ContentBlock::Text { text: Text::from(resource_link_text(link)), annotations }
        }
        Part::EmbeddedResource(resource) => embedded_block(resource, annotations),
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
    annotations: Option<Annotations>,
) -> ContentBlock<'a> {
    let mime = binary.mime_type.as_str();
    let meta = binary.name.as_deref().filter(|_| caps.block_meta).map(|name| PrefixedOne {
        prefix,
        name: "name",
        value: name,
    });
    let media = || MediaContent { data: Base64(&binary.data), mime_type: mime, meta, annotations };
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
            annotations,
        })
    }
}

fn embedded_block(
    resource: &EmbeddedResourcePart,
    annotations: Option<Annotations>,
) -> ContentBlock<'_> {
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
        annotations,
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
        annotations: None,
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

/// Whether `layout`'s `structuredContent` on `revision` is sent and holds the data (as it is,
/// wrapped, or as the envelope's `data`).
pub(crate) fn structured_holds_data(layout: Layout<'_>, revision: McpRevision) -> bool {
    layout.data_raw().is_some()
        && matches!(
            structured(layout, McpCaps::of(revision)),
            Some(
                StructuredContent::Data(_)
                    | StructuredContent::Wrapped(_)
                    | StructuredContent::Envelope(_)
            )
        )
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

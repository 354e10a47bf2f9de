//! The one MCP lowering: a `CallToolResult` for every revision, driven by the capability table
//! [`McpCaps::of`]. The revisions differ only in the rows of that table; the block order and the
//! structured slot come from the layout.
//!
//! `CallToolResult` keys in order: `resultType` (2026-07-28), `content`, `structuredContent`,
//! `isError` (only on failure), `_meta`. The result `_meta` always holds at least
//! `<p>/generatedAt`; on 2026-07-28 `io.modelcontextprotocol/serverInfo` follows the toolwire keys.
//! A passthrough result gets exactly one text block and the same result `_meta` (its metadata is
//! only the generation time).
//!
//! Error codes are written verbatim, unknown ones included: every place MCP carries a code
//! (the `{"error":…}` text and structured copies) is a free string.

use std::fmt::Write as _;

use super::{
    Obj, legacy, stored_link_name, write_base64, write_map, write_part_uri, write_prefixed_meta,
    write_str,
};
use crate::layout::{Block, DataSchema, Layout, Structured};
use crate::link::StoredLink;
use crate::part::{BinaryPart, EmbeddedResourcePart, Part, ResourceContents, ResourceLinkPart};
use crate::result::Provenance;
use crate::target::McpRevision;

pub use crate::revision::{McpCaps, StructuredCap};

/// The server-level settings the MCP lowering needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct McpSettings<'c> {
    /// The `_meta` prefix, e.g. `dev.toolwire`.
    pub(crate) prefix: &'c str,
    /// `serverInfo.name`.
    pub(crate) server_name: &'c str,
    /// `serverInfo.version`.
    pub(crate) server_version: &'c str,
    /// The host can follow links (else the text points at the `read_result` tool).
    pub(crate) reads_links: bool,
}

/// Appends the `CallToolResult` of `layout` for `revision` to `out`.
pub(crate) fn render(
    out: &mut String,
    layout: &Layout<'_>,
    revision: McpRevision,
    settings: &McpSettings<'_>,
) {
    let caps = McpCaps::of(revision);
    let result = layout.result();
    let mut obj = Obj::open(out);
    if caps.result_type {
        obj.str("resultType", "complete");
    }
    let content = obj.key("content");
    content.push('[');
    for (i, block) in layout.blocks().iter().enumerate() {
        if i > 0 {
            content.push(',');
        }
        write_block(content, layout, *block, caps, settings);
    }
    content.push(']');
    write_structured(&mut obj, layout, caps);
    if result.is_failure() {
        obj.bool("isError", true);
    }
    write_result_meta(&mut obj, layout, settings, caps.result_type);
    obj.close();
}

/// Appends the `InputRequiredResult` of `layout`'s input-required result: `resultType`,
/// `inputRequests` (when there are any), `requestState` (the sealed state the caller passes),
/// then the same `_meta` as a complete result.
pub(crate) fn render_input_required(
    out: &mut String,
    layout: &Layout<'_>,
    request_state: Option<&str>,
    settings: &McpSettings<'_>,
) {
    let mut obj = Obj::open(out);
    obj.str("resultType", "input_required");
    // At least one of the two is present: without a sealed state the requests always are.
    if let Some(input) = layout.result().input_required_requests()
        && (!input.requests.is_empty() || request_state.is_none())
    {
        write_map(obj.key("inputRequests"), &input.requests_value());
    }
    if let Some(state) = request_state {
        obj.str("requestState", state);
    }
    write_result_meta(&mut obj, layout, settings, true);
    obj.close();
}

/// The result `_meta`: the toolwire keys, then `serverInfo` where the revision carries it.
fn write_result_meta(
    obj: &mut Obj<'_>,
    layout: &Layout<'_>,
    settings: &McpSettings<'_>,
    server_info: bool,
) {
    let meta = obj.key("_meta");
    let mut meta = Obj::open(meta);
    write_prefixed_meta(&mut meta, layout, settings.prefix, true);
    if server_info {
        let info = meta.key("io.modelcontextprotocol/serverInfo");
        let mut info = Obj::open(info);
        info.str("name", settings.server_name);
        info.str("version", settings.server_version);
        info.close();
    }
    meta.close();
}

fn text_block(out: &mut String, text: &str) {
    out.push_str("{\"type\":\"text\",\"text\":");
    write_str(out, text);
    out.push('}');
}

fn write_block(
    out: &mut String,
    layout: &Layout<'_>,
    block: Block,
    caps: McpCaps,
    settings: &McpSettings<'_>,
) {
    let result = layout.result();
    match block {
        Block::Envelope => match result.provenance() {
            Provenance::LegacyEnvelope(raw) => text_block(out, raw),
            _ => {
                let mut envelope =
                    String::with_capacity(layout.data_json().map_or(256, |data| data.len() + 256));
                legacy::render(&mut envelope, layout, false);
                text_block(out, &envelope);
            }
        },
        Block::Passthrough => text_block(out, layout.passthrough().unwrap_or_default()),
        Block::Data => text_block(out, layout.data_json().unwrap_or("null")),
        Block::Summary => text_block(out, result.summary().unwrap_or_default()),
        Block::ErrorMessage => {
            text_block(out, result.error().map_or("", |error| error.message.as_str()));
        }
        Block::ErrorJson => {
            let mut text = String::new();
            let mut wrapper = Obj::open(&mut text);
            let mut error = Obj::open(wrapper.key("error"));
            if let Some(e) = result.error() {
                error.str("code", e.code.as_str());
                if let Some(details) = &e.details {
                    write_map(error.key("details"), details);
                }
            }
            error.close();
            wrapper.close();
            text_block(out, &text);
        }
        Block::Meta => {
            let mut text = String::new();
            let mut wrapper = Obj::open(&mut text);
            let mut meta = Obj::open(wrapper.key("_meta"));
            write_prefixed_meta(&mut meta, layout, settings.prefix, false);
            meta.close();
            wrapper.close();
            text_block(out, &text);
        }
        Block::Part(index) => {
            if let Some(part) = result.parts().get(index) {
                write_part(out, index, part, caps, settings.prefix);
            }
        }
        Block::StoredLink(index) => {
            if let Some(link) = result.stored_links().get(index) {
                write_stored_link(out, layout, link, caps, settings);
            }
        }
        Block::Null => text_block(out, "null"),
    }
}

fn write_part(out: &mut String, index: usize, part: &Part, caps: McpCaps, prefix: &str) {
    match part {
        Part::Text(text) => text_block(out, &text.text),
        Part::Binary(binary) => write_binary(out, index, binary, caps, prefix),
        Part::ResourceLink(link) if caps.resource_link => write_resource_link(out, link),
        Part::ResourceLink(link) => text_block(out, &resource_link_text(link)),
        Part::EmbeddedResource(resource) => write_embedded(out, resource),
    }
}

fn has_major_type(mime: &str, major: &str) -> bool {
    mime.len() > major.len()
        && mime.as_bytes()[major.len()] == b'/'
        && mime[..major.len()].eq_ignore_ascii_case(major)
}

fn write_binary(out: &mut String, index: usize, binary: &BinaryPart, caps: McpCaps, prefix: &str) {
    let mime = binary.mime_type.as_str();
    let kind = if has_major_type(mime, "image") {
        Some("image")
    } else if has_major_type(mime, "audio") && caps.audio {
        Some("audio")
    } else {
        None
    };
    let mut obj = Obj::open(out);
    match kind {
        Some(kind) => {
            obj.str("type", kind);
            write_base64(obj.key("data"), &binary.data);
            obj.str("mimeType", mime);
        }
        None => {
            // Neither image nor (on this revision) audio: an embedded resource blob under the
            // synthesized part URI.
            obj.str("type", "resource");
            let mut resource = Obj::open(obj.key("resource"));
            write_part_uri(resource.key("uri"), index, binary.name.as_deref());
            resource.str("mimeType", mime);
            write_base64(resource.key("blob"), &binary.data);
            resource.close();
        }
    }
    if caps.block_meta
        && let Some(name) = &binary.name
    {
        let mut meta = Obj::open(obj.key("_meta"));
        write_str(meta.prefixed_key(prefix, "name"), name);
        meta.close();
    }
    obj.close();
}

fn write_resource_link(out: &mut String, link: &ResourceLinkPart) {
    let mut obj = Obj::open(out);
    crate::v1::write_resource_link_members(&mut obj, link);
    obj.close();
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

fn write_embedded(out: &mut String, resource: &EmbeddedResourcePart) {
    let mut obj = Obj::open(out);
    obj.str("type", "resource");
    let mut inner = Obj::open(obj.key("resource"));
    inner.str("uri", &resource.uri);
    if let Some(mime) = &resource.mime_type {
        inner.str("mimeType", mime);
    }
    match &resource.contents {
        ResourceContents::Text(text) => inner.str("text", text),
        ResourceContents::Blob(blob) => write_base64(inner.key("blob"), blob),
    }
    inner.close();
    obj.close();
}

fn write_stored_link(
    out: &mut String,
    layout: &Layout<'_>,
    link: &StoredLink,
    caps: McpCaps,
    settings: &McpSettings<'_>,
) {
    // The URI and how to read it go in a text block on every revision: many hosts drop a
    // `resource_link` block or flatten it to a bare URI.
    text_block(out, &stored_link_text(link, settings.reads_links));
    if !caps.resource_link {
        return;
    }
    let prefix = settings.prefix;
    out.push(',');
    let mut obj = Obj::open(out);
    obj.str("type", "resource_link");
    obj.str("uri", &link.uri);
    obj.str("name", &stored_link_name(link));
    obj.str("title", "Full result");
    if let Some(description) = layout.result().summary().or(link.description.as_deref()) {
        obj.str("description", description);
    }
    obj.str("mimeType", &link.mime_type);
    if let Some(size) = link.size {
        obj.uint("size", size);
    }
    if let Some(at) = &link.expires_at {
        let mut meta = Obj::open(obj.key("_meta"));
        write_str(meta.prefixed_key(prefix, "expiresAt"), &at.to_string());
        meta.close();
    }
    obj.close();
}

fn write_structured(obj: &mut Obj<'_>, layout: &Layout<'_>, caps: McpCaps) {
    if caps.structured_content == StructuredCap::Never {
        return;
    }
    let result = layout.result();
    match layout.structured() {
        Structured::Absent => {}
        Structured::Data(schema) => {
            let Some(data) = layout.data_json() else { return };
            let is_object = result.data().is_some_and(serde_json::Value::is_object);
            let wrap = match (caps.structured_content, schema) {
                (StructuredCap::Any, _) => Some(false),
                (_, DataSchema::None) => Some(!is_object),
                (_, DataSchema::ObjectRoot) if is_object => Some(false),
                // An object root with non-object data (validation off): neither the data nor a
                // wrapper would match what was published, so nothing is sent.
                (_, DataSchema::ObjectRoot) => None,
                (_, DataSchema::OtherRoot) => Some(true),
            };
            match wrap {
                Some(false) => obj.raw("structuredContent", data),
                Some(true) => {
                    let out = obj.key("structuredContent");
                    out.push_str("{\"result\":");
                    out.push_str(data);
                    out.push('}');
                }
                None => {}
            }
        }
        Structured::Error => {
            let Some(error) = result.error() else { return };
            let mut wrapper = Obj::open(obj.key("structuredContent"));
            let mut inner = Obj::open(wrapper.key("error"));
            inner.str("code", error.code.as_str());
            inner.str("message", &error.message);
            if let Some(details) = &error.details {
                write_map(inner.key("details"), details);
            }
            inner.close();
            wrapper.close();
        }
        Structured::Envelope => {
            let mut envelope = Obj::open(obj.key("structuredContent"));
            match result.error() {
                None => {
                    envelope.bool("success", true);
                    envelope.str("message", result.summary().unwrap_or_default());
                    envelope.raw("data", layout.data_json().unwrap_or("{}"));
                }
                Some(error) => {
                    envelope.bool("success", false);
                    envelope.str("message", &error.message);
                    envelope.raw("data", "{}");
                    if error.code == crate::error::ErrorCode::InvalidArguments
                        && let Some(schema) = layout.input_schema
                    {
                        envelope.value("input_schema", schema);
                    }
                }
            }
            envelope.close();
        }
    }
}

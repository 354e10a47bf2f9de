//! The MCP wire shapes: a `CallToolResult`, an `InputRequiredResult` and their pieces, as
//! borrowing serde structs whose field order is the key order.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::ToolError;
use crate::form::{Annotations, Base64, EnvelopeStructured, PartUri, PrefixedOne, ResourceLink};
use crate::input::InputRequests;
use crate::json_text::{escaped_len, json_len};
use crate::lower::{PrefixedMeta, legacy};

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
                if let ContentBlock::Text { text, .. } = block
                    && let TextKind::Envelope(envelope) = text.0
                {
                    if envelope.is_small() {
                        let full = envelope.to_text();
                        envelopes += escaped_len(full.as_bytes());
                        written = Some(full);
                    } else {
                        envelopes += envelope.escaped_len();
                    }
                    // Counted below as its quotes alone.
                    *text = Text::from("");
                }
            }
        }
        (json_len(&self) + envelopes, written)
    }

    /// The compat block's envelope as `text`, written beforehand ([`McpResult::measure`]).
    pub(super) fn with_envelope(mut self, text: &'a str) -> Self {
        if let Self::Complete(result) = &mut self {
            for block in &mut result.content {
                if let ContentBlock::Text { text: kept, .. } = block
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
    pub(super) toolwire: PrefixedMeta<'a>,
    pub(super) server_info: Option<ServerInfo<'a>>,
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
pub(super) struct ServerInfo<'a> {
    pub(super) name: &'a str,
    pub(super) version: &'a str,
}

/// One content block.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock<'a> {
    /// A text block.
    Text {
        /// The text.
        text: Text<'a>,
        /// The part's audience (a text part or the text fallback of a resource link).
        #[serde(skip_serializing_if = "Option::is_none")]
        annotations: Option<Annotations>,
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
pub struct Text<'a>(pub(super) TextKind<'a>);

#[derive(Clone)]
pub(super) enum TextKind<'a> {
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
    /// The part's audience.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
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
    /// The part's audience.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
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
pub(super) struct ErrorWrapper<'a> {
    pub(super) error: ErrorBody<'a>,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub(super) struct ErrorBody<'a> {
    pub(super) code: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) details: Option<&'a Map<String, Value>>,
}

impl<'a> ErrorWrapper<'a> {
    pub(super) fn full(error: &'a ToolError) -> Self {
        Self {
            error: ErrorBody {
                code: error.code.as_str(),
                message: Some(&error.message),
                details: error.details.as_ref(),
            },
        }
    }
}

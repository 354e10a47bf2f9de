//! The legacy lowering: the `{"success": …}` envelope string (phase-independent), also the
//! first text block of every compat-phase MCP result.
//!
//! Grammar (compact JSON, keys in this order):
//! - success: `{"success":true,"data":<D or null>,"_meta":{…}}`;
//! - failure: `{"success":false,"error":"<message>","code":"<code>","details":{…},"_meta":{…}}`;
//! - `_meta` only when non-empty: `dryRun`, `pagination`, `responseSize`, `query`,
//!   `generatedAt`, `expiresAt`, `summary`, `resourceUri` + `note` (the first stored link),
//!   `storedLinks`, `parts` (v1 part JSON), then extensions as `<namespace>/<key>`.
//!
//! The code is written verbatim, unknown codes included: the envelope's `code` is a free string.
//! `resourceUri` + `note` are written only for a link in toolwire's own stored-result scheme (a
//! legacy reader takes nothing else for a pointer). `storedLinks` (every link, v1 form) is
//! written when there are several links, and also for a single link that `resourceUri` + `note`
//! cannot carry whole (another scheme, a size other than `responseSize`, an expiry other than
//! `expiresAt`, a MIME type other than JSON), so that parsing the envelope gives the same result
//! back.

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::form::{PaginationJson, Parts, PrefixedKey, QueryJson, StoredLinks};
use crate::json_text::{escaped_len, json_escaped_len};
use crate::layout::Layout;
use crate::link::StoredLink;
use crate::meta::{Extensions, Metadata};
use crate::timestamp::Timestamp;

/// The envelope of `layout`'s result. `include_payloads` is false for the compat block, whose
/// binary parts travel as blocks of their own.
pub(crate) fn render(layout: &Layout<'_>, include_payloads: bool) -> String {
    match layout.passthrough() {
        Some(raw) => raw.to_owned(),
        None => {
            // Room for the data and the usual `_meta` up front: the text is not copied while it
            // grows to the data's size.
            let room = layout.data_json().map_or(0, str::len) + 256;
            let mut text = Vec::with_capacity(room);
            // Writing into memory cannot fail (the same rule as `to_json_string`).
            if serde_json::to_writer(&mut text, &Envelope::new(layout, include_payloads)).is_err() {
                text.clear();
            }
            String::from_utf8(text).unwrap_or_default()
        }
    }
}

/// The compat block's envelope text (as [`render`] writes it without payloads), written out only
/// when it is serialized or displayed: counting a large result's size never builds it.
#[derive(Clone, Copy)]
pub(crate) struct EnvelopeText<'a>(pub(crate) Layout<'a>);

/// The largest data (its compact text, in bytes) whose compat-block envelope is written as soon
/// as the result is measured: below it, writing the text once and counting its escapes costs
/// less than counting its pieces and writing it later; above it, a result that is offloaded
/// never builds an envelope it does not send.
pub(crate) const WRITTEN_UP_TO: usize = 64 * 1024;

impl EnvelopeText<'_> {
    /// Whether the envelope is written when it is measured ([`WRITTEN_UP_TO`]).
    pub(crate) fn is_small(self) -> bool {
        self.0.data_json().map_or(0, str::len) <= WRITTEN_UP_TO
    }

    /// The text, written straight into one string.
    pub(crate) fn to_text(self) -> String {
        render(&self.0, false)
    }

    /// The length of the text once escaped inside a JSON string (without the quotes), counted
    /// from its pieces without writing the text.
    pub(crate) fn escaped_len(self) -> usize {
        match self.0.passthrough() {
            Some(raw) => escaped_len(raw.as_bytes()),
            None => json_escaped_len(&Envelope::new(&self.0, false)),
        }
    }
}

impl fmt::Display for EnvelopeText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(raw) = self.0.passthrough() {
            return f.write_str(raw);
        }
        /// serde_json writes whole UTF-8 fragments; anything else is an error, never a panic.
        struct Text<'f, 'g>(&'f mut fmt::Formatter<'g>);
        impl std::io::Write for Text<'_, '_> {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                let text = std::str::from_utf8(buf).map_err(std::io::Error::other)?;
                self.0.write_str(text).map_err(std::io::Error::other)?;
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        serde_json::to_writer(Text(f), &Envelope::new(&self.0, false)).map_err(|_| fmt::Error)
    }
}

/// The envelope: a success or a failure, each with its `_meta`.
#[derive(Serialize)]
#[serde(untagged)]
enum Envelope<'a> {
    Success {
        success: bool,
        /// `null` when there is no data.
        data: Option<&'a RawValue>,
        #[serde(rename = "_meta")]
        meta: EnvelopeMeta<'a>,
    },
    Failure {
        success: bool,
        error: &'a str,
        code: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<&'a Map<String, Value>>,
        #[serde(rename = "_meta")]
        meta: EnvelopeMeta<'a>,
    },
}

impl<'a> Envelope<'a> {
    fn new(layout: &'a Layout<'_>, include_payloads: bool) -> Self {
        let meta = EnvelopeMeta::new(layout, include_payloads);
        match layout.result().error() {
            // `null` where the data goes only as `structuredContent` (a host reading both).
            None => Self::Success {
                success: true,
                data: layout.data_raw().filter(|_| !layout.data_elsewhere()),
                meta,
            },
            Some(error) => Self::Failure {
                success: false,
                error: &error.message,
                code: error.code.as_str(),
                details: error.details.as_ref(),
                meta,
            },
        }
    }
}

/// The envelope's `_meta`, always present (the generation time is always known at render).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EnvelopeMeta<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    dry_run: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pagination: Option<PaginationJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    query: Option<QueryJson<'a>>,
    generated_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_uri: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stored_links: Option<StoredLinks<'a>>,
    #[serde(skip_serializing_if = "Parts::is_empty")]
    parts: Parts<'a>,
    #[serde(flatten, serialize_with = "extension_keys")]
    extensions: &'a Extensions,
}

impl<'a> EnvelopeMeta<'a> {
    fn new(layout: &'a Layout<'_>, include_payloads: bool) -> Self {
        let result = layout.result();
        let meta = result.meta();
        let links = result.stored_links();
        let pointer = links.first().filter(|first| first.toolwire_id().is_some());
        let whole = match links {
            [] => false,
            [only] => pointer.is_some() && says_it_all(only, meta),
            _ => false,
        };
        Self {
            dry_run: meta.dry_run,
            pagination: meta.pagination.as_ref().map(PaginationJson::from),
            response_size: meta.response_size,
            query: meta.query.as_ref().map(QueryJson::from),
            generated_at: layout.generated_at(),
            expires_at: meta.expires_at,
            summary: result.summary(),
            resource_uri: pointer.map(|first| first.uri.as_str()),
            note: pointer.and_then(|first| first.description.as_deref()),
            stored_links: (!links.is_empty() && !whole).then_some(StoredLinks(links)),
            parts: Parts::new(result.parts(), include_payloads),
            extensions: &meta.extensions,
        }
    }
}

/// The extensions as `<namespace>/<key>` members.
fn extension_keys<S: Serializer>(
    extensions: &&Extensions,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(
        extensions.iter().map(|(namespace, key, value)| (PrefixedKey(namespace, key), value)),
    )
}

/// True when `resourceUri` + `note` say everything the link holds: a reader takes its size from
/// `responseSize`, its expiry from `expiresAt` and the MIME type `application/json`.
fn says_it_all(link: &StoredLink, meta: &Metadata) -> bool {
    link.size == meta.response_size
        && link.expires_at == meta.expires_at
        && link.mime_type == "application/json"
}

//! The lowerings: each turns a layout (`crate::layout::Layout`) into the compact wire text of
//! one protocol family — the legacy envelope, MCP (every revision through one capability table)
//! and A2A (0.3 and 1.0).
//!
//! Wire shapes are borrowing `#[derive(Serialize)]` structs whose field order is the key order;
//! serde_json writes them. The data, serialized once by the layout, is carried as a
//! [`RawValue`] and copied as text, never cloned or re-parsed. This module holds the building
//! blocks every lowering shares: a prefixed `_meta` map, part URIs, base64, timestamps as
//! strings, pagination, the echoed query, resource links.

pub mod a2a;
pub mod legacy;
pub mod mcp;
pub mod resource;

use std::borrow::Cow;
use std::fmt::{self, Write as _};

use base64::display::Base64Display;
use base64::engine::general_purpose::STANDARD;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use crate::layout::Layout;
use crate::link::StoredLink;
use crate::meta::{Metadata, Pagination, Query};
use crate::part::ResourceLinkPart;
use crate::timestamp::Timestamp;

pub use crate::revision::{McpCaps, StructuredCap};

/// A value written as a JSON string through its `Display` (URIs, base64), with no
/// intermediate `String`.
#[derive(Debug, Clone, Copy)]
pub struct Displayed<T>(pub T);

impl<T: fmt::Display> Serialize for Displayed<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_displayed(serializer, &self.0)
    }
}

/// Writes `value`'s `Display` as a JSON string (see [`serialize_short`]).
fn serialize_displayed<S: Serializer>(
    serializer: S,
    value: &dyn fmt::Display,
) -> Result<S::Ok, S::Error> {
    serialize_short(serializer, |text| write!(text, "{value}"), value)
}

/// Writes a JSON string: what `write` puts on the stack, when it fits, handed over as one
/// string, which the serializer escapes in one pass and a `Value` serializer copies once;
/// otherwise `whole`, piece by piece.
fn serialize_short<S: Serializer>(
    serializer: S,
    write: impl FnOnce(&mut StackText) -> fmt::Result,
    whole: &dyn fmt::Display,
) -> Result<S::Ok, S::Error> {
    let mut text = StackText { bytes: [0; 128], len: 0 };
    if write(&mut text).is_ok()
        && let Ok(text) = std::str::from_utf8(&text.bytes[..text.len])
    {
        return serializer.serialize_str(text);
    }
    serializer.collect_str(whole)
}

/// A text of at most 128 bytes on the stack; writing more fails.
struct StackText {
    bytes: [u8; 128],
    len: usize,
}

impl fmt::Write for StackText {
    fn write_str(&mut self, piece: &str) -> fmt::Result {
        let end = self.len + piece.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(piece.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl<T: fmt::Display> fmt::Display for Displayed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Bytes as standard base64 (with padding), the form every wire format uses; a JSON string.
#[derive(Debug, Clone, Copy)]
pub struct Base64<'a>(pub &'a [u8]);

impl fmt::Display for Base64<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Base64Display::new(self.0, &STANDARD).fmt(f)
    }
}

impl Serialize for Base64<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Everything but RFC 3986 unreserved characters is percent-encoded in a part name.
const PART_NAME: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// The synthesized `toolwire://part/<index>/<name>` URI of a part (the name percent-encoded, so
/// the URI stays a valid URI); a JSON string.
#[derive(Debug, Clone, Copy)]
pub struct PartUri<'a> {
    /// The part's index in the result.
    pub index: usize,
    /// The part's name, if it has one.
    pub name: Option<&'a str>,
}

impl fmt::Display for PartUri<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "toolwire://part/{}", self.index)?;
        if let Some(name) = self.name {
            write!(f, "/{}", utf8_percent_encode(name, PART_NAME))?;
        }
        Ok(())
    }
}

impl Serialize for PartUri<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A `_meta` key `<prefix>/<name>`, written without building the string first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PrefixedKey<'a>(pub(crate) &'a str, pub(crate) &'a str);

impl Serialize for PrefixedKey<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Prefixes and names follow the `_meta` grammar, but extension keys come from outside:
        // serde escapes anyway. Joined on the stack without the formatter when short.
        serialize_short(
            serializer,
            |text| [self.0, "/", self.1].into_iter().try_for_each(|piece| text.write_str(piece)),
            &format_args!("{}/{}", self.0, self.1),
        )
    }
}

/// Pagination in the form every target shares: `total`, `page`, `limit`, `nextCursor`.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PaginationJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) total: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) page: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) next_cursor: Option<&'a str>,
}

impl<'a> From<&'a Pagination> for PaginationJson<'a> {
    fn from(pagination: &'a Pagination) -> Self {
        Self {
            total: pagination.total,
            page: pagination.page,
            limit: pagination.limit,
            next_cursor: pagination.next_cursor.as_deref(),
        }
    }
}

/// The echoed query: `{"tool", "arguments"}`.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct QueryJson<'a> {
    pub(crate) tool: &'a str,
    pub(crate) arguments: &'a Value,
}

impl<'a> From<&'a Query> for QueryJson<'a> {
    fn from(query: &'a Query) -> Self {
        Self { tool: &query.tool, arguments: &query.arguments }
    }
}

/// The metadata as `_meta` members under a prefix: `<p>/generatedAt`, `<p>/expiresAt` (only
/// with the timestamps), `<p>/dryRun`, `<p>/pagination`, `<p>/responseSize`, `<p>/query`, then
/// the extensions as `<namespace>/<key>`. Serializes as a map of its own, or adds its members to
/// an enclosing one with [`PrefixedMeta::entries`].
#[derive(Debug, Clone, Copy)]
pub struct PrefixedMeta<'a> {
    meta: &'a Metadata,
    prefix: &'a str,
    generated_at: Option<Timestamp>,
}

impl<'a> PrefixedMeta<'a> {
    /// The metadata of `layout`'s result under `prefix`, with the timestamps when `timestamps`
    /// is set.
    pub(crate) fn new(layout: Layout<'a>, prefix: &'a str, timestamps: bool) -> Self {
        Self {
            meta: layout.result().meta(),
            prefix,
            generated_at: timestamps.then(|| layout.generated_at()),
        }
    }

    /// Adds the members to `map`, in their order.
    pub(crate) fn entries<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        let (meta, prefix) = (self.meta, self.prefix);
        if let Some(generated) = self.generated_at {
            map.serialize_entry(&PrefixedKey(prefix, "generatedAt"), &generated)?;
            if let Some(at) = meta.expires_at {
                map.serialize_entry(&PrefixedKey(prefix, "expiresAt"), &at)?;
            }
        }
        if let Some(dry_run) = meta.dry_run {
            map.serialize_entry(&PrefixedKey(prefix, "dryRun"), &dry_run)?;
        }
        if let Some(pagination) = &meta.pagination {
            map.serialize_entry(
                &PrefixedKey(prefix, "pagination"),
                &PaginationJson::from(pagination),
            )?;
        }
        if let Some(size) = meta.response_size {
            map.serialize_entry(&PrefixedKey(prefix, "responseSize"), &size)?;
        }
        if let Some(query) = &meta.query {
            map.serialize_entry(&PrefixedKey(prefix, "query"), &QueryJson::from(query))?;
        }
        for (namespace, key, value) in meta.extensions.iter() {
            map.serialize_entry(&PrefixedKey(namespace, key), value)?;
        }
        Ok(())
    }
}

impl Serialize for PrefixedMeta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.entries(&mut map)?;
        map.end()
    }
}

/// A one-member `_meta` map `{"<prefix>/<name>": "<value>"}` (a binary part's name, a stored
/// link's expiry).
#[derive(Debug, Clone, Copy)]
pub struct PrefixedOne<'a, T> {
    /// The `_meta` prefix.
    pub prefix: &'a str,
    /// The key after the prefix.
    pub name: &'static str,
    /// The value.
    pub value: T,
}

impl<T: Serialize> Serialize for PrefixedOne<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(&PrefixedKey(self.prefix, self.name), &self.value)?;
        map.end()
    }
}

/// A resource link's members in the order MCP's `resource_link` block and the v1 part share:
/// `uri`, `name`, `title`, `description`, `mimeType`, `size`, then `_meta` (a stored link's
/// expiry).
#[non_exhaustive]
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink<'a> {
    /// The link's URI.
    pub uri: &'a str,
    /// Its name.
    pub name: Cow<'a, str>,
    /// Its title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    /// Its description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'a str>,
    /// Its MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<&'a str>,
    /// Its size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// `{"<p>/expiresAt": …}` for a stored link that expires.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<PrefixedOne<'a, Timestamp>>,
}

impl<'a> From<&'a ResourceLinkPart> for ResourceLink<'a> {
    fn from(link: &'a ResourceLinkPart) -> Self {
        Self {
            uri: &link.uri,
            name: Cow::Borrowed(&link.name),
            title: link.title.as_deref(),
            description: link.description.as_deref(),
            mime_type: link.mime_type.as_deref(),
            size: link.size,
            meta: None,
        }
    }
}

/// The empty object `{}` (the envelope's `data` on failure or without data).
#[derive(Debug, Clone, Copy)]
pub struct EmptyObject;

impl Serialize for EmptyObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_map(Some(0))?.end()
    }
}

/// Compact JSON text of a wire shape. serde_json fails only on map keys that are not strings,
/// which no wire shape has.
pub(crate) fn to_json_string<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A wire shape's compact JSON text as bytes, written into a buffer of exactly its length
/// (counted first), so that a large text is never copied while its buffer grows.
pub(crate) fn to_json_vec_exact<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(json_len(value));
    // Writing into memory cannot fail (the same rule as `to_json_string`).
    if serde_json::to_writer(&mut out, value).is_err() {
        out.clear();
    }
    out
}

/// The length of a wire shape's compact JSON text, counted without writing it.
pub(crate) fn json_len<T: Serialize + ?Sized>(value: &T) -> usize {
    measured(value, <[u8]>::len)
}

/// The length of a wire shape's compact JSON text once that text is itself escaped as the
/// contents of a JSON string (without the quotes), counted without writing either.
pub(crate) fn json_escaped_len<T: Serialize + ?Sized>(value: &T) -> usize {
    measured(value, escaped_len)
}

/// The sum of `measure` over the pieces serde_json writes for `value` (generic, so that the
/// measure of each of the many small pieces is inlined rather than called through a pointer).
fn measured<T: Serialize + ?Sized, M: Fn(&[u8]) -> usize>(value: &T, measure: M) -> usize {
    struct Count<M>(usize, M);
    impl<M: Fn(&[u8]) -> usize> std::io::Write for Count<M> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += (self.1)(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0, measure);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

/// The length of `text` escaped as the contents of a JSON string the way serde_json escapes:
/// `"` and `\` and the control characters with a short escape take two bytes, the other
/// control characters six (`\u00XX`), every other byte one.
pub(crate) fn escaped_len(text: &[u8]) -> usize {
    // Counted in chunks of at most 255 bytes into byte-sized counters, which the compiler turns
    // into vector code (a plain count runs a byte at a time, ten times slower); the control
    // characters, rare in practice, are sorted into short and long escapes only when present.
    let (mut escaped, mut controls) = (0usize, 0usize);
    for chunk in text.chunks(255) {
        let (mut e, mut c) = (0u8, 0u8);
        for &b in chunk {
            let control = b < 0x20;
            e += u8::from((b == b'"') | (b == b'\\') | control);
            c += u8::from(control);
        }
        escaped += usize::from(e);
        controls += usize::from(c);
    }
    let mut len = text.len() + escaped;
    if controls > 0 {
        let short = |b: u8| matches!(b, 0x08 | 0x0c | b'\n' | b'\r' | b'\t');
        len += 4 * text.iter().filter(|&&b| b < 0x20 && !short(b)).count();
    }
    len
}

/// The synthesized name of a stored link's `resource_link`: `result-<id>.json`.
pub(crate) fn stored_link_name(link: &StoredLink) -> String {
    match link.toolwire_id() {
        Some(id) if !id.is_empty() => format!("result-{id}.json"),
        _ => "result.json".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_lengths_are_serde_jsons() {
        let mut every_byte: String = (0u8..0x80).map(char::from).collect();
        every_byte.push_str("\"\\é\u{2028}💡 plain");
        for text in ["", "plain", "\"quoted\"", "a\\b", "\n\t\u{1}\u{1f}\u{7f}", &every_byte] {
            let quoted = to_json_string(text);
            assert_eq!(escaped_len(text.as_bytes()), quoted.len() - 2, "{quoted}");
            assert_eq!(json_escaped_len(text), to_json_string(&quoted).len() - 2, "{quoted}");
        }
    }

    #[test]
    fn displayed_texts_are_json_strings_short_or_long() {
        let long = format!("{}\"/\n{}", "a".repeat(127), "é".repeat(80));
        for text in ["", "2026-12-02T01:00:00Z", "quote \" and \\ and \u{1}", &long[..130], &long] {
            let expected = to_json_string(text);
            assert_eq!(to_json_string(&Displayed(text)), expected);
            assert_eq!(serde_json::to_value(Displayed(text)).ok(), Some(Value::from(text)));
        }
        let key = PrefixedKey("dev.toolwire", "generatedAt");
        assert_eq!(to_json_string(&key), "\"dev.toolwire/generatedAt\"");
        // Keys that fill the stack text exactly, or overflow it, and keys that need escapes.
        let name = "n".repeat(127 - "dev.toolwire".len());
        for (prefix, name) in [
            ("dev.toolwire", name.as_str()),
            ("dev.toolwire", &long[..130]),
            ("ext\"ra", "a\nb"),
            ("", ""),
        ] {
            let joined = format!("{prefix}/{name}");
            assert_eq!(to_json_string(&PrefixedKey(prefix, name)), to_json_string(&joined));
            let value = serde_json::value::Serializer.collect_map([(PrefixedKey(prefix, name), 1)]);
            assert_eq!(value.ok(), Some(serde_json::json!({ joined: 1 })));
        }
    }

    #[test]
    fn part_uris_are_percent_encoded() {
        let uri = PartUri { index: 3, name: Some("my chart/ü.png") };
        assert_eq!(uri.to_string(), "toolwire://part/3/my%20chart%2F%C3%BC.png");
        assert_eq!(
            serde_json::to_string(&PartUri { index: 0, name: None }).ok().as_deref(),
            Some("\"toolwire://part/0\"")
        );
    }

    #[test]
    fn base64_is_standard_with_padding() {
        assert_eq!(serde_json::to_string(&Base64(b"ab")).ok().as_deref(), Some("\"YWI=\""));
    }
}

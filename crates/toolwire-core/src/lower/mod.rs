//! The lowerings: each turns a [`Layout`](crate::layout::Layout) into the compact wire text of
//! one protocol family — the legacy envelope, MCP (every revision through one capability table)
//! and A2A (0.3 and 1.0).
//!
//! Everything is written straight into one `String` with the small JSON writer below, in code
//! order, so key order is fixed by the code and the data (serialized once by the layout) is
//! copied as text, never re-parsed.

pub mod a2a;
pub mod legacy;
pub mod mcp;

use std::fmt::Write as _;

use base64::Engine as _;
use serde_json::Value;

use crate::layout::Layout;
use crate::link::StoredLink;
use crate::meta::{Pagination, Query};
use crate::part::{Part, ResourceContents};

pub use mcp::{McpCaps, StructuredCap};

/// Shorthand for the escape kinds of [`ESCAPE`]: `U` = `\u00XX`, `0` = no escape.
const U: u8 = b'u';
const Z: u8 = 0;

/// How serde_json escapes each byte of a string (so that both writers agree byte for byte).
static ESCAPE: [u8; 256] = {
    let mut table = [Z; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = U;
        i += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// Appends `text` as a JSON string literal, escaped exactly as serde_json escapes it.
pub(crate) fn write_str(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let escape = ESCAPE[usize::from(byte)];
        if escape == Z {
            continue;
        }
        // Escaped bytes are ASCII, so `i` is always a char boundary.
        out.push_str(&text[start..i]);
        if escape == U {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        } else {
            out.push('\\');
            out.push(char::from(escape));
        }
        start = i + 1;
    }
    out.push_str(&text[start..]);
    out.push('"');
}

/// Appends any JSON value in compact form, keys in their stored order, numbers exactly as they
/// came in (the workspace enables `arbitrary_precision`).
pub(crate) fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        // The workspace enables `arbitrary_precision`: the number's own text, exactly.
        Value::Number(number) => out.push_str(number.as_str()),
        Value::String(text) => write_str(out, text),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, key);
                out.push(':');
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

/// Appends a JSON object held as a map (error details), keys in their stored order.
pub(crate) fn write_map(out: &mut String, map: &serde_json::Map<String, Value>) {
    let mut obj = Obj::open(out);
    for (key, value) in map {
        obj.value(key, value);
    }
    obj.close();
}

/// Serializes a value to compact JSON text, the way every copy of it is written.
pub(crate) fn to_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// Writes an object member by member; tracks the commas.
pub(crate) struct Obj<'w> {
    out: &'w mut String,
    empty: bool,
}

impl<'w> Obj<'w> {
    /// Opens an object.
    pub(crate) fn open(out: &'w mut String) -> Self {
        out.push('{');
        Self { out, empty: true }
    }

    /// Writes `"name":` and hands back the buffer for the value.
    pub(crate) fn key(&mut self, name: &str) -> &mut String {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        write_str(self.out, name);
        self.out.push(':');
        self.out
    }

    /// Writes `"<prefix>/<name>":` and hands back the buffer for the value.
    pub(crate) fn prefixed_key(&mut self, prefix: &str, name: &str) -> &mut String {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        // Prefixes and names follow the `_meta` grammar, but extension keys come from outside:
        // escape anyway.
        let mut key = String::with_capacity(prefix.len() + name.len() + 1);
        key.push_str(prefix);
        key.push('/');
        key.push_str(name);
        write_str(self.out, &key);
        self.out.push(':');
        self.out
    }

    /// A string member.
    pub(crate) fn str(&mut self, name: &str, value: &str) {
        let out = self.key(name);
        write_str(out, value);
    }

    /// A member whose value is already compact JSON text.
    pub(crate) fn raw(&mut self, name: &str, json: &str) {
        self.key(name).push_str(json);
    }

    /// An unsigned integer member.
    pub(crate) fn uint(&mut self, name: &str, value: u64) {
        let out = self.key(name);
        let _ = write!(out, "{value}");
    }

    /// A boolean member.
    pub(crate) fn bool(&mut self, name: &str, value: bool) {
        self.key(name).push_str(if value { "true" } else { "false" });
    }

    /// A JSON value member.
    pub(crate) fn value(&mut self, name: &str, value: &Value) {
        let out = self.key(name);
        write_value(out, value);
    }

    /// Closes the object.
    pub(crate) fn close(self) {
        self.out.push('}');
    }
}

/// Appends bytes as standard base64 (with padding), the form every wire format uses.
pub(crate) fn write_base64(out: &mut String, bytes: &[u8]) {
    out.push('"');
    base64::engine::general_purpose::STANDARD.encode_string(bytes, out);
    out.push('"');
}

/// Writes a part in the v1 part JSON (the legacy `_meta.parts` entries); without the payload
/// (`data`/`blob`) when `include_payload` is false, for the compat envelope whose parts travel
/// as blocks.
pub(crate) fn write_v1_part(out: &mut String, part: &Part, include_payload: bool) {
    let mut obj = Obj::open(out);
    match part {
        Part::Text(text) => {
            obj.str("type", "text");
            obj.str("text", &text.text);
        }
        Part::Binary(binary) => {
            obj.str("type", "binary");
            obj.str("mimeType", &binary.mime_type);
            if include_payload {
                write_base64(obj.key("data"), &binary.data);
            }
            if let Some(name) = &binary.name {
                obj.str("name", name);
            }
        }
        Part::ResourceLink(link) => {
            obj.str("type", "resource_link");
            obj.str("uri", &link.uri);
            obj.str("name", &link.name);
            if let Some(title) = &link.title {
                obj.str("title", title);
            }
            if let Some(description) = &link.description {
                obj.str("description", description);
            }
            if let Some(mime) = &link.mime_type {
                obj.str("mimeType", mime);
            }
            if let Some(size) = link.size {
                obj.uint("size", size);
            }
        }
        Part::EmbeddedResource(resource) => {
            obj.str("type", "embedded_resource");
            obj.str("uri", &resource.uri);
            if let Some(mime) = &resource.mime_type {
                obj.str("mimeType", mime);
            }
            match &resource.contents {
                ResourceContents::Text(text) => obj.str("text", text),
                ResourceContents::Blob(blob) => {
                    if include_payload {
                        write_base64(obj.key("blob"), blob);
                    }
                }
            }
        }
    }
    obj.close();
}

/// Writes a stored link in the v1 form.
pub(crate) fn write_v1_stored_link(out: &mut String, link: &StoredLink) {
    let mut obj = Obj::open(out);
    obj.str("uri", &link.uri);
    if let Some(size) = link.size {
        obj.uint("size", size);
    }
    obj.str("mimeType", &link.mime_type);
    if let Some(at) = &link.expires_at {
        obj.str("expiresAt", &at.to_string());
    }
    if let Some(description) = &link.description {
        obj.str("description", description);
    }
    obj.close();
}

/// Writes pagination in the v1 form.
pub(crate) fn write_pagination(out: &mut String, pagination: &Pagination) {
    let mut obj = Obj::open(out);
    if let Some(total) = pagination.total {
        obj.uint("total", total);
    }
    if let Some(page) = pagination.page {
        obj.uint("page", page);
    }
    if let Some(limit) = pagination.limit {
        obj.uint("limit", limit);
    }
    if let Some(cursor) = &pagination.next_cursor {
        obj.str("nextCursor", cursor);
    }
    obj.close();
}

/// Writes an echoed query in the v1 form.
pub(crate) fn write_query(out: &mut String, query: &Query) {
    let mut obj = Obj::open(out);
    obj.str("tool", &query.tool);
    obj.value("arguments", &query.arguments);
    obj.close();
}

/// Writes the metadata as `_meta` members under `prefix` (`<p>/generatedAt`, `<p>/expiresAt`,
/// `<p>/dryRun`, `<p>/pagination`, `<p>/responseSize`, `<p>/query`, then the extensions as
/// `<namespace>/<key>`), the timestamps only when `timestamps` is set.
pub(crate) fn write_prefixed_meta(
    obj: &mut Obj<'_>,
    layout: &Layout<'_>,
    prefix: &str,
    timestamps: bool,
) {
    let meta = layout.result().meta();
    if timestamps {
        let generated = layout.generated_at().to_string();
        write_str(obj.prefixed_key(prefix, "generatedAt"), &generated);
        if let Some(at) = &meta.expires_at {
            write_str(obj.prefixed_key(prefix, "expiresAt"), &at.to_string());
        }
    }
    if let Some(dry_run) = meta.dry_run {
        obj.prefixed_key(prefix, "dryRun").push_str(if dry_run { "true" } else { "false" });
    }
    if let Some(pagination) = &meta.pagination {
        write_pagination(obj.prefixed_key(prefix, "pagination"), pagination);
    }
    if let Some(size) = meta.response_size {
        let _ = write!(obj.prefixed_key(prefix, "responseSize"), "{size}");
    }
    if let Some(query) = &meta.query {
        write_query(obj.prefixed_key(prefix, "query"), query);
    }
    for (namespace, key, value) in meta.extensions.iter() {
        write_value(obj.prefixed_key(namespace, key), value);
    }
}

/// Percent-encodes a part name for the synthesized `toolwire://part/<index>/<name>` URI
/// (everything but RFC 3986 unreserved characters), so the URI stays a valid URI.
pub(crate) fn write_part_uri(out: &mut String, index: usize, name: Option<&str>) {
    let mut uri = format!("toolwire://part/{index}");
    if let Some(name) = name {
        uri.push('/');
        for byte in name.bytes() {
            if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
                uri.push(char::from(byte));
            } else {
                let _ = write!(uri, "%{byte:02X}");
            }
        }
    }
    write_str(out, &uri);
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
    fn strings_escape_like_serde_json() {
        let samples = [
            "plain",
            "quote \" back \\ slash",
            "\u{0}\u{1f}\u{7f}\n\r\t\u{8}\u{c}",
            "ünïcødé 🚀 /",
        ];
        for sample in samples {
            let mut out = String::new();
            write_str(&mut out, sample);
            assert_eq!(Ok(out), serde_json::to_string(sample).map_err(|e| e.to_string()));
        }
    }

    #[test]
    fn values_serialize_like_serde_json() {
        let text = r#"{"b":[1,2.50,-0.0,1e400,"x"],"a":{"n":null,"t":true,"f":false}}"#;
        let value: Value = serde_json::from_str(text).unwrap_or_default();
        assert_eq!(to_json(&value), text.replace("1e400", "1e+400"));
        assert_eq!(Ok(to_json(&value)), serde_json::to_string(&value).map_err(|e| e.to_string()));
    }

    #[test]
    fn part_uris_are_percent_encoded() {
        let mut out = String::new();
        write_part_uri(&mut out, 3, Some("my chart.png"));
        assert_eq!(out, "\"toolwire://part/3/my%20chart.png\"");
    }
}

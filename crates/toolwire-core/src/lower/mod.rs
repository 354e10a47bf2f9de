//! The lowerings: each turns a [`Layout`](crate::layout::Layout) into the compact wire text of
//! one protocol family — the legacy envelope, MCP (every revision through one capability table)
//! and A2A (0.3 and 1.0).
//!
//! Everything is written straight into one `String` with the small JSON writer of
//! [`crate::json`], in code order, so key order is fixed by the code and the data (serialized once by the layout) is
//! copied as text, never re-parsed.

pub mod a2a;
pub mod legacy;
pub mod mcp;
pub mod resource;

use std::fmt::Write as _;

use crate::layout::Layout;
use crate::link::StoredLink;

pub(crate) use crate::json::{Obj, to_json, write_base64, write_map, write_str, write_value};
pub(crate) use crate::v1::{write_pagination, write_query, write_v1_part, write_v1_stored_link};

pub use mcp::{McpCaps, StructuredCap};

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
    fn part_uris_are_percent_encoded() {
        let mut out = String::new();
        write_part_uri(&mut out, 3, Some("my chart.png"));
        assert_eq!(out, "\"toolwire://part/3/my%20chart.png\"");
    }
}

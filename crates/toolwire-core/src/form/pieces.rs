//! The small pieces every wire form writes: base64, part URIs, `_meta` keys `<prefix>/<name>`,
//! one-member `_meta` maps, a part's audience and the empty object.

use std::fmt::{self, Write as _};

use base64::display::Base64Display;
use base64::engine::general_purpose::STANDARD;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::json_text::serialize_short;
use crate::part::Audience;

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

/// A part's audience as its list of MCP roles (`["user"]`, `["assistant"]`,
/// `["user","assistant"]`): the v1 part's `audience` and the MCP block's
/// `annotations.audience`.
#[derive(Debug, Clone, Copy)]
pub struct Roles(pub Audience);

impl Serialize for Roles {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.roles())
    }
}

/// A content block's `annotations`: `{"audience": [...]}` (the revision table has no column for
/// it: every MCP revision's content blocks take `annotations.audience`).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Annotations {
    /// Who the block is for.
    pub audience: Roles,
}

impl Annotations {
    /// The annotations of a part with `audience`, if it has one.
    pub(crate) fn of(audience: Option<Audience>) -> Option<Self> {
        audience.map(|audience| Self { audience: Roles(audience) })
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
#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_text::to_json_string;

    #[test]
    fn prefixed_keys_are_json_strings_short_or_long() {
        let long = format!("{}\"/\n{}", "a".repeat(127), "é".repeat(80));
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

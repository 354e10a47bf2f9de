//! Reading the member forms back: parts, stored links, pagination, the query echo, timestamps and
//! sizes, each refused with a [`V1Error`] naming its JSON path. The v1 parser reads every member
//! with these; the legacy parser reads the envelope's `_meta` with them and keeps what they
//! refuse as an extension.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use chrono::Datelike as _;
use serde_json::{Map, Value};

use crate::link::StoredLink;
use crate::meta::{Pagination, Query};
use crate::part::{
    Audience, BinaryPart, EmbeddedResourcePart, Part, ResourceContents, ResourceLinkPart, TextPart,
};
use crate::timestamp::Timestamp;

/// Why a document is not a valid v1 result. Every variant says what is wrong and, where there
/// is one, the JSON path of the offending value.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum V1Error {
    /// The bytes are not one JSON value.
    #[error("not JSON: {0}")]
    Json(String),
    /// The document is JSON but not an object.
    #[error("a v1 document must be a JSON object")]
    NotAnObject,
    /// The `format` marker names another format or version.
    #[error("unknown format version `{0}`")]
    UnknownFormat(String),
    /// `error` and a non-null `data` in the same document.
    #[error("error and a non-null data together")]
    ErrorWithData,
    /// A top-level key the form does not define.
    #[error("unknown top-level key `{0}`")]
    UnknownTopLevelKey(String),
    /// A key the form does not define inside an object.
    #[error("{path}: unknown key `{key}`")]
    UnknownKey {
        /// Where the object is.
        path: String,
        /// The key.
        key: String,
    },
    /// A required field is missing.
    #[error("{path}: missing")]
    Missing {
        /// The field that is missing.
        path: String,
    },
    /// A value of the wrong JSON type.
    #[error("{path}: expected {expected}")]
    WrongType {
        /// Where the value is.
        path: String,
        /// What was expected there.
        expected: &'static str,
    },
    /// A part whose `type` is not one of the closed set.
    #[error("{path}: unknown part type `{found}`")]
    UnknownPartType {
        /// Where the `type` is.
        path: String,
        /// The type found.
        found: String,
    },
    /// A base64 payload that does not decode (standard alphabet, padded).
    #[error("{path}: malformed base64")]
    Base64 {
        /// Where the payload is.
        path: String,
    },
    /// A timestamp that is not RFC 3339.
    #[error("{path}: `{text}` is not an RFC 3339 timestamp")]
    Timestamp {
        /// Where the timestamp is.
        path: String,
        /// The text found.
        text: String,
    },
    /// `inputRequired` next to an error or non-null data.
    #[error("inputRequired together with {0}")]
    InputRequiredWith(&'static str),
    /// An input request that is not one of the closed set.
    #[error("{path}: {message}")]
    InputRequest {
        /// Where the request is.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// An embedded resource with both or neither of `text` and `blob`.
    #[error("{path}: an embedded resource needs exactly one of `text` and `blob`")]
    TextXorBlob {
        /// Where the part is.
        path: String,
    },
}

/// Parses a list of v1 parts at `path`.
pub(crate) fn parse_parts(value: &Value, path: &str) -> Result<Vec<Part>, V1Error> {
    let Value::Array(items) = value else {
        return Err(wrong(path, "a list of parts"));
    };
    items.iter().enumerate().map(|(i, item)| parse_part(item, &format!("{path}[{i}]"))).collect()
}

/// Parses a list of v1 stored links at `path`.
pub(crate) fn parse_stored_links(value: &Value, path: &str) -> Result<Vec<StoredLink>, V1Error> {
    let Value::Array(items) = value else {
        return Err(wrong(path, "a list of stored links"));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| parse_stored_link(item, &format!("{path}[{i}]")))
        .collect()
}

fn parse_part(value: &Value, path: &str) -> Result<Part, V1Error> {
    let Value::Object(map) = value else {
        return Err(wrong(path, "a part object"));
    };
    let kind = required_string(map, "type", path)?;
    let audience = opt_audience(map, path)?;
    match kind.as_str() {
        "text" => {
            object(value, path, &["type", "text", "audience"])?;
            Ok(Part::Text(TextPart { text: required_string(map, "text", path)?, audience }))
        }
        "binary" => {
            object(value, path, &["type", "mimeType", "data", "name", "audience"])?;
            Ok(Part::Binary(BinaryPart {
                data: required_base64(map, "data", path)?,
                mime_type: required_string(map, "mimeType", path)?,
                name: opt_string(map, "name", path)?,
                audience,
            }))
        }
        "resource_link" => {
            object(
                value,
                path,
                &["type", "uri", "name", "title", "description", "mimeType", "size", "audience"],
            )?;
            Ok(Part::ResourceLink(ResourceLinkPart {
                uri: required_string(map, "uri", path)?,
                name: required_string(map, "name", path)?,
                title: opt_string(map, "title", path)?,
                description: opt_string(map, "description", path)?,
                mime_type: opt_string(map, "mimeType", path)?,
                size: opt_u64(map, "size", path)?,
                audience,
            }))
        }
        "embedded_resource" => {
            object(value, path, &["type", "uri", "mimeType", "text", "blob", "audience"])?;
            let contents = match (present(map, "text"), present(map, "blob")) {
                (Some(_), None) => ResourceContents::Text(required_string(map, "text", path)?),
                (None, Some(_)) => ResourceContents::Blob(required_base64(map, "blob", path)?),
                _ => return Err(V1Error::TextXorBlob { path: path.to_owned() }),
            };
            Ok(Part::EmbeddedResource(EmbeddedResourcePart {
                uri: required_string(map, "uri", path)?,
                mime_type: opt_string(map, "mimeType", path)?,
                contents,
                audience,
            }))
        }
        other => {
            Err(V1Error::UnknownPartType { path: child(path, "type"), found: other.to_owned() })
        }
    }
}

/// A part's `audience`: a non-empty list of `"user"` and `"assistant"`, absent or `null` when
/// not said.
fn opt_audience(map: &Map<String, Value>, path: &str) -> Result<Option<Audience>, V1Error> {
    optional(map, "audience", path, "a non-empty list of \"user\" and \"assistant\"", |value| {
        let roles = value.as_array()?;
        let names: Option<Vec<&str>> = roles.iter().map(Value::as_str).collect();
        Audience::from_roles(names?)
    })
}

fn parse_stored_link(value: &Value, path: &str) -> Result<StoredLink, V1Error> {
    let map = object(value, path, &["uri", "size", "mimeType", "expiresAt", "description"])?;
    let mut link = StoredLink::new(required_string(map, "uri", path)?);
    link.size = opt_u64(map, "size", path)?;
    if let Some(mime) = opt_string(map, "mimeType", path)? {
        link.mime_type = mime;
    }
    link.expires_at = opt_timestamp(map, "expiresAt", path)?;
    link.description = opt_string(map, "description", path)?;
    Ok(link)
}

/// Parses v1 pagination at `path`.
pub(crate) fn parse_pagination(value: &Value, path: &str) -> Result<Pagination, V1Error> {
    let map = object(value, path, &["total", "page", "limit", "nextCursor"])?;
    Ok(Pagination {
        total: opt_u64(map, "total", path)?,
        page: opt_u64(map, "page", path)?,
        limit: opt_u64(map, "limit", path)?,
        next_cursor: opt_string(map, "nextCursor", path)?,
    })
}

/// Parses a v1 query echo at `path`; absent or `null` arguments are `null`.
pub(crate) fn parse_query(value: &Value, path: &str) -> Result<Query, V1Error> {
    let map = object(value, path, &["tool", "arguments"])?;
    let tool = required_string(map, "tool", path)?;
    Ok(Query::new(tool, map.get("arguments").cloned().unwrap_or(Value::Null)))
}

/// Parses a timestamp string at `path`. An offset that moves the instant out of the years
/// 0000–9999 in UTC is refused: RFC 3339 could not write it back.
pub(crate) fn parse_timestamp(value: &Value, path: &str) -> Result<Timestamp, V1Error> {
    let Value::String(text) = value else {
        return Err(wrong(path, "an RFC 3339 timestamp string"));
    };
    Timestamp::parse(text)
        .ok()
        .filter(|at| (0..=9999).contains(&at.datetime().year()))
        .ok_or_else(|| V1Error::Timestamp { path: path.to_owned(), text: text.clone() })
}

/// Parses an unsigned integer (what sizes, pages and counts are).
pub(crate) fn as_u64(value: &Value) -> Option<u64> {
    match value {
        Value::Number(number) => number.as_u64(),
        _ => None,
    }
}

pub(crate) fn child(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
}

pub(crate) fn wrong(path: &str, expected: &'static str) -> V1Error {
    V1Error::WrongType { path: path.to_owned(), expected }
}

/// The value under `key` unless it is absent or `null`.
pub(crate) fn present<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|value| !value.is_null())
}

/// The object at `path`, refusing keys outside `allowed`.
pub(crate) fn object<'a>(
    value: &'a Value,
    path: &str,
    allowed: &[&str],
) -> Result<&'a Map<String, Value>, V1Error> {
    let Value::Object(map) = value else {
        return Err(wrong(path, "an object"));
    };
    if let Some(key) = map.keys().find(|key| !allowed.contains(&key.as_str())) {
        return Err(V1Error::UnknownKey { path: path.to_owned(), key: key.clone() });
    }
    Ok(map)
}

pub(crate) fn required_string(
    map: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<String, V1Error> {
    opt_string(map, key, path)?.ok_or_else(|| V1Error::Missing { path: child(path, key) })
}

pub(crate) fn opt_string(
    map: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<String>, V1Error> {
    optional(map, key, path, "a string", |value| value.as_str().map(str::to_owned))
}

pub(crate) fn opt_u64(
    map: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<u64>, V1Error> {
    optional(map, key, path, "an unsigned integer", as_u64)
}

/// The value under `key` read by `read` unless it is absent or `null`; `expected` names what
/// `read` takes when it refuses the value.
fn optional<T>(
    map: &Map<String, Value>,
    key: &str,
    path: &str,
    expected: &'static str,
    read: impl FnOnce(&Value) -> Option<T>,
) -> Result<Option<T>, V1Error> {
    present(map, key)
        .map(|value| read(value).ok_or_else(|| wrong(&child(path, key), expected)))
        .transpose()
}

pub(crate) fn opt_timestamp(
    map: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<Timestamp>, V1Error> {
    present(map, key).map(|value| parse_timestamp(value, &child(path, key))).transpose()
}

pub(crate) fn required_base64(
    map: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Vec<u8>, V1Error> {
    let text = required_string(map, key, path)?;
    BASE64.decode(text).map_err(|_| V1Error::Base64 { path: child(path, key) })
}

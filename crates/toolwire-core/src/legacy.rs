//! The version-0 parser: the legacy `{"success": …}` envelope that tools and apps still return.
//!
//! The parser never fails. A JSON object with a boolean `success` is an envelope and becomes a
//! result with `LegacyEnvelope(raw)` provenance; anything else (plain text, a list, `{"data": …}`,
//! `{"success": "yes"}`, empty input) is `Passthrough(raw)`: one text part holding the input
//! unchanged. Inside an envelope nothing is dropped: what has no typed home (a well-known field
//! of the wrong type, an unknown key, a key outside the `_meta` grammar) is kept as an extension
//! under the `legacy` namespace.
//!
//! The mapping also reads back everything the legacy lowering writes (`summary`, `parts`,
//! `resourceUri` + `note`, `storedLinks`, the unprefixed well-known names and
//! `<namespace>/<key>` extensions, `legacy/<key>` included), so that parsing a rendered
//! envelope gives the result that was rendered.
//!
//! A link made from `resourceUri` takes its size from `responseSize`, its description from
//! `note`, its expiry from `expiresAt` (a stored result expires with its link) and the MIME type
//! `application/json`; `responseSize` and `expiresAt` also stay the result's own metadata.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::data::Data;
use crate::error::{ErrorCode, ToolError};
use crate::form::{
    as_u64, parse_pagination, parse_parts, parse_query, parse_stored_links, parse_timestamp,
};
use crate::grammar::{self, LEGACY_NAMESPACE};
use crate::link::{STORED_RESULT_PREFIX, StoredLink};
use crate::meta::check_namespace;
use crate::part::Part;
use crate::result::{Provenance, ToolResult};

/// The message of a failure whose envelope gives none.
pub const FALLBACK_MESSAGE: &str = "The tool call failed.";

/// The message prefix that, without a code, means `missing_privilege`.
const MISSING_PRIVILEGE_PREFIX: &str = "Missing privilege:";

/// Parses a string that may be a legacy envelope. Never fails: anything that is not an envelope
/// (or nests too deeply to decode) is `Passthrough(raw)`.
pub fn parse(raw: &str) -> ToolResult {
    if !starts_like_object(raw) || crate::parse::nesting_overflow(raw.as_bytes()).is_some() {
        return passthrough(raw);
    }
    if let Some(result) = crate::parse::shallow_members(raw).and_then(|m| from_members(&m, raw)) {
        return result;
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(value) => from_value(value, raw),
        Err(_) => passthrough(raw),
    }
}

impl ToolResult {
    /// A result from a hand-built legacy envelope string (`{"success": true, "data": …}`); a
    /// string that is not an envelope passes through unchanged as one text part.
    ///
    /// This is the one entry point for tools that still build legacy strings by hand. With the
    /// cargo feature `deprecate-legacy` it is deprecated, so the compiler points at every such
    /// tool.
    #[cfg_attr(
        feature = "deprecate-legacy",
        deprecated(
            note = "build the result with ToolResult's constructors or builder instead of a hand-built legacy JSON string"
        )
    )]
    pub fn from_legacy_json(raw: &str) -> ToolResult {
        parse(raw)
    }
}

/// True when the first non-whitespace character opens a JSON object: nothing else can be an
/// envelope, so nothing else needs decoding.
pub(crate) fn starts_like_object(raw: &str) -> bool {
    raw.trim_start_matches([' ', '\t', '\n', '\r']).starts_with('{')
}

/// The result for a string that is not an envelope (or must not be read as one, such as an app
/// answer that is not JSON): one text part holding it unchanged, on every target.
pub fn passthrough(raw: &str) -> ToolResult {
    let mut result = ToolResult::from_parts(None, None);
    result.parts.push(Part::text(raw));
    result.provenance = Provenance::Passthrough(raw.to_owned());
    result
}

/// Parses an already-decoded value, so that a caller that has decoded the JSON once (as
/// [`crate::parse_any`] does) need not decode it again; `raw` is the text it was decoded from
/// (kept as provenance, or passed through when the value is not an envelope).
pub fn from_value(value: Value, raw: &str) -> ToolResult {
    let Value::Object(mut top) = value else {
        return passthrough(raw);
    };
    let Some(&Value::Bool(success)) = top.get("success") else {
        return passthrough(raw);
    };
    // `shift_remove` keeps the order of the other members.
    let data = if success { top.shift_remove("data").and_then(Data::from_value) } else { None };
    envelope(success, data, top, raw)
}

/// Parses a document read as its top-level members (see [`crate::parse`]): the data of a
/// success stays text, the rest is decoded. `None` when a member needs the whole document
/// decoded as a tree.
pub(crate) fn from_members(members: &[(String, &RawValue)], raw: &str) -> Option<ToolResult> {
    let success = members
        .iter()
        .find(|(key, _)| key == "success")
        .and_then(|(_, value)| serde_json::from_str::<bool>(value.get()).ok());
    let Some(success) = success else {
        return Some(passthrough(raw));
    };
    let mut data = None;
    let mut top = Map::new();
    for (key, value) in members {
        if success && key == "data" {
            data = Data::from_raw(value).ok()?;
        } else {
            top.insert(key.clone(), serde_json::from_str(value.get()).ok()?);
        }
    }
    Some(envelope(success, data, top, raw))
}

/// An envelope's result from its members; a success's data was taken out beforehand.
fn envelope(success: bool, data: Option<Data>, top: Map<String, Value>, raw: &str) -> ToolResult {
    let mut error = None;
    let mut code = None;
    let mut details = None;
    let mut meta = None;
    let mut extras = Vec::new();
    for (key, value) in top {
        match key.as_str() {
            "success" => {}
            // A failure's `null` data says nothing; any other data is kept under `legacy`.
            "data" if value.is_null() => {}
            "error" if !success => error = Some(value),
            "code" if !success => code = Some(value),
            "details" if !success => details = Some(value),
            "_meta" => meta = Some(value),
            _ => extras.push((key, value)),
        }
    }

    let error = (!success).then(|| legacy_error(error, code, details, &mut extras));
    let mut result = ToolResult::from_parts(data, error);
    result.provenance = Provenance::LegacyEnvelope(raw.to_owned());

    // Top-level extras first, then `_meta`, which wins over a top-level key of the same name.
    let mut entries = Vec::new();
    match meta {
        Some(Value::Object(meta)) => {
            entries.extend(extras.into_iter().filter(|(key, _)| !meta.contains_key(key)));
            entries.extend(meta);
        }
        Some(other) => {
            entries.extend(extras);
            entries.push(("_meta".to_owned(), other));
        }
        None => entries.extend(extras),
    }
    apply_meta(&mut result, entries);
    result
}

/// The error of a `success: false` envelope. What cannot be used (a `code` or `details` of the
/// wrong type, an `error` that is neither a string nor an object) goes to `leftovers`.
fn legacy_error(
    error: Option<Value>,
    code: Option<Value>,
    details: Option<Value>,
    leftovers: &mut Vec<(String, Value)>,
) -> ToolError {
    let mut top_code = match code {
        Some(Value::String(code)) if !code.is_empty() => Some(code),
        None | Some(Value::Null) | Some(Value::String(_)) => None,
        Some(other) => {
            leftovers.push(("code".to_owned(), other));
            None
        }
    };
    let mut top_details = match details {
        Some(Value::Object(details)) => Some(details),
        None | Some(Value::Null) => None,
        Some(other) => {
            leftovers.push(("details".to_owned(), other));
            None
        }
    };

    let (message, code, details) = match error {
        Some(Value::String(message)) if !message.is_empty() => {
            (Some(message), top_code.take(), top_details.take())
        }
        Some(Value::Object(fields)) => {
            let mut message = None;
            let mut own_code = None;
            let mut own_details = Map::new();
            for (key, value) in fields {
                match (key.as_str(), value) {
                    ("message", Value::String(text)) if !text.is_empty() => message = Some(text),
                    ("message", Value::String(_)) => {}
                    ("code", Value::String(text)) if !text.is_empty() => own_code = Some(text),
                    ("code", Value::String(_)) => {}
                    (_, value) => {
                        own_details.insert(key, value);
                    }
                }
            }
            let code = own_code.or_else(|| top_code.take());
            let details =
                if own_details.is_empty() { top_details.take() } else { Some(own_details) };
            (message, code, details)
        }
        None | Some(Value::Null) | Some(Value::String(_)) => {
            (None, top_code.take(), top_details.take())
        }
        Some(other) => {
            leftovers.push(("error".to_owned(), other));
            (None, top_code.take(), top_details.take())
        }
    };
    // An object error's own code and details win; the top-level ones are then kept, not lost.
    if let Some(unused) = top_code {
        leftovers.push(("code".to_owned(), Value::String(unused)));
    }
    if let Some(unused) = top_details {
        leftovers.push(("details".to_owned(), Value::Object(unused)));
    }

    let message = message.unwrap_or_else(|| FALLBACK_MESSAGE.to_owned());
    let mut details = details;
    let code = match code {
        Some(code) => ErrorCode::parse(&code),
        None => match message.strip_prefix(MISSING_PRIVILEGE_PREFIX) {
            Some(list) => {
                let missing: Vec<Value> = list
                    .split(',')
                    .map(str::trim)
                    .filter(|privilege| !privilege.is_empty())
                    .map(|privilege| Value::String(privilege.to_owned()))
                    .collect();
                if !missing.is_empty() {
                    details
                        .get_or_insert_with(Map::new)
                        .entry("missing")
                        .or_insert(Value::Array(missing));
                }
                ErrorCode::MissingPrivilege
            }
            None => ErrorCode::ToolError,
        },
    };
    ToolError { code, message, details }
}

/// Maps `_meta` keys and top-level extras onto the result (DESIGN §2, "Legacy input").
fn apply_meta(result: &mut ToolResult, entries: Vec<(String, Value)>) {
    let mut resource_uri = None;
    let mut note = None;
    let mut links_from_list = false;
    for (key, value) in entries {
        match key.as_str() {
            "summary" => match value {
                Value::String(summary) => result.summary = Some(summary),
                other => keep_legacy(result, &key, other),
            },
            "parts" => match parse_parts(&value, "parts") {
                Ok(parts) => result.parts = parts,
                Err(_) => keep_legacy(result, &key, value),
            },
            "storedLinks" => match parse_stored_links(&value, "storedLinks") {
                Ok(links) => {
                    result.stored_links = links;
                    links_from_list = true;
                }
                Err(_) => keep_legacy(result, &key, value),
            },
            "pagination" => match parse_pagination(&value, "pagination") {
                Ok(pagination) => result.meta.pagination = Some(pagination),
                Err(_) => keep_legacy(result, &key, value),
            },
            "dryRun" => match value {
                Value::Bool(flag) => result.meta.dry_run = Some(flag),
                other => keep_legacy(result, &key, other),
            },
            "responseSize" => match as_u64(&value) {
                Some(size) => result.meta.response_size = Some(size),
                None => keep_legacy(result, &key, value),
            },
            "query" => match parse_query(&value, "query") {
                Ok(query) => result.meta.query = Some(query),
                Err(_) => keep_legacy(result, &key, value),
            },
            "generatedAt" => match parse_timestamp(&value, "generatedAt") {
                Ok(at) => result.meta.generated_at = Some(at),
                Err(_) => keep_legacy(result, &key, value),
            },
            "expiresAt" => match parse_timestamp(&value, "expiresAt") {
                Ok(at) => result.meta.expires_at = Some(at),
                Err(_) => keep_legacy(result, &key, value),
            },
            "resourceUri" => resource_uri = Some(value),
            "note" => note = Some(value),
            namespaced if namespaced.contains('/') => keep_namespaced(result, &key, value),
            _ => keep_legacy(result, &key, value),
        }
    }
    attach_resource_uri(result, resource_uri, note, links_from_list);
}

/// Turns `resourceUri` (+ `note`) into a stored link when it points at this server's stored
/// results. When a `storedLinks` list was given, the pair only repeats its first link (whatever
/// its scheme) and is consumed if it does. Anything else stays under `legacy`.
fn attach_resource_uri(
    result: &mut ToolResult,
    uri: Option<Value>,
    note: Option<Value>,
    links_from_list: bool,
) {
    let first = result.stored_links.first();
    let (uri, note) = match (uri, note) {
        (Some(Value::String(uri)), note) if links_from_list => {
            if first.is_some_and(|link| link.uri == uri) {
                let description = first.and_then(|link| link.description.as_deref());
                match note {
                    Some(Value::String(text)) if Some(text.as_str()) == description => (None, None),
                    None => (None, None),
                    other => (None, other),
                }
            } else {
                (Some(Value::String(uri)), note)
            }
        }
        (Some(Value::String(uri)), note) if uri.starts_with(STORED_RESULT_PREFIX) => {
            let mut link = StoredLink::new(uri);
            link.size = result.meta.response_size;
            link.expires_at = result.meta.expires_at;
            let note = match note {
                Some(Value::String(text)) => {
                    link.description = Some(text);
                    None
                }
                other => other,
            };
            result.stored_links.push(link);
            (None, note)
        }
        other => other,
    };
    if let Some(uri) = uri {
        keep_legacy(result, "resourceUri", uri);
    }
    if let Some(note) = note {
        keep_legacy(result, "note", note);
    }
}

/// A `<namespace>/<key>` entry: that extension when the namespace and key are allowed,
/// `legacy/<key>` read back as written, anything else under `legacy/extra`.
fn keep_namespaced(result: &mut ToolResult, full_key: &str, value: Value) {
    let (namespace, key) = grammar::split_key(full_key);
    let Some(namespace) = namespace else {
        result.meta.extensions.insert_legacy_extra(full_key, value);
        return;
    };
    let extensions = &mut result.meta.extensions;
    if namespace == LEGACY_NAMESPACE && grammar::is_name(key) {
        match (key, value) {
            ("extra", Value::Object(entries)) => {
                for (original, value) in entries {
                    extensions.insert_legacy_extra(&original, value);
                }
            }
            ("extra", other) => extensions.insert_legacy_extra(full_key, other),
            (key, value) => extensions.insert_unchecked(LEGACY_NAMESPACE, key, value),
        }
    } else if check_namespace(namespace, &[]).is_ok() && grammar::is_name(key) {
        extensions.insert_unchecked(namespace, key, value);
    } else {
        extensions.insert_legacy_extra(full_key, value);
    }
}

/// An unmapped key: `legacy/<key>` when the key is a `_meta` name (other than `extra`, which
/// holds the rest), else `legacy/extra` as `{"<key>": value}`.
fn keep_legacy(result: &mut ToolResult, key: &str, value: Value) {
    let extensions = &mut result.meta.extensions;
    if grammar::is_name(key) && key != "extra" {
        extensions.insert_unchecked(LEGACY_NAMESPACE, key, value);
    } else {
        extensions.insert_legacy_extra(key, value);
    }
}

//! The v1 serialized form (`toolwire.result.v1`) and its successor v2 (`toolwire.result.v2`
//! = v1 + an optional `inputRequired` `{requests, state, summary}`, DESIGN §10): the writer and
//! the strict parser of both. The writer emits v1 whenever v1 can hold the result, v2 only for
//! a result that asks for input; v1 documents stay readable.
//!
//! Results that leave the process and are read back (stored large results, app answers) carry
//! this form. The writer emits compact JSON with the fields in the order DESIGN §2 shows and
//! leaves out what is absent or empty; the data value is serialized once, straight from the
//! result. The parser refuses what the form does not allow — an unknown format version, an
//! error next to non-null data, an unknown key, a value of the wrong type, malformed base64 —
//! and names the JSON path of the problem. Extension namespaces and keys are taken as written:
//! the form carries what a forgiving parser kept (the `legacy` namespace included).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use chrono::Datelike as _;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::data::Data;
use crate::error::{ErrorCode, ToolError};
use crate::input::{InputRequest, InputRequests, InputRequired};
use crate::link::StoredLink;
use crate::lower::{
    Base64, PaginationJson, QueryJson, ResourceLink, to_json_string, to_json_vec_exact,
};
use crate::meta::{Extensions, Metadata, Pagination, Query};
use crate::part::{
    BinaryPart, EmbeddedResourcePart, Part, ResourceContents, ResourceLinkPart, TextPart,
};
use crate::result::ToolResult;
use crate::timestamp::Timestamp;

/// The format marker of version 1.
pub const FORMAT: &str = "toolwire.result.v1";

/// The format marker of version 2 (v1 + `inputRequired`).
pub const FORMAT_V2: &str = "toolwire.result.v2";

/// What every toolwire format marker starts with; a document whose `format` starts with it
/// claims to be a toolwire result of some version.
pub const FORMAT_PREFIX: &str = "toolwire.result.";

const TOP_LEVEL_KEYS: [&str; 7] =
    ["format", "data", "summary", "error", "parts", "storedLinks", "meta"];

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

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// The v1 form of `result` as compact JSON.
pub fn to_string(result: &ToolResult) -> String {
    to_json_string(&Doc::new(result, result.meta()))
}

/// The v1 bytes of `result` as generated at `at`: what an offload stores. Only the metadata is
/// copied to set the time, never the data.
pub(crate) fn to_vec_generated_at(result: &ToolResult, at: Timestamp) -> Vec<u8> {
    let mut meta = result.meta().clone();
    meta.generated_at = Some(at);
    to_json_vec_exact(&Doc::new(result, &meta))
}

/// The v1 form of `result` as compact JSON bytes (UTF-8).
pub fn to_vec(result: &ToolResult) -> Vec<u8> {
    to_string(result).into_bytes()
}

/// A v1 (or v2) document, keys in the order DESIGN §2 shows; absent and empty members left out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Doc<'a> {
    format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorForm<'a>>,
    #[serde(skip_serializing_if = "Parts::is_empty")]
    parts: Parts<'a>,
    #[serde(skip_serializing_if = "StoredLinks::is_empty")]
    stored_links: StoredLinks<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    meta: Option<MetaForm<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_required: Option<InputForm<'a>>,
}

impl<'a> Doc<'a> {
    fn new(result: &'a ToolResult, meta: &'a Metadata) -> Self {
        let input = result.input_required_requests();
        Self {
            format: if input.is_some() { FORMAT_V2 } else { FORMAT },
            data: result.data.as_ref().map(Data::raw),
            // A v2 document keeps its summary inside `inputRequired`.
            summary: result.summary().filter(|_| input.is_none()),
            error: result.error().map(ErrorForm::from),
            parts: Parts::new(result.parts(), true),
            stored_links: StoredLinks(result.stored_links()),
            meta: (!meta.is_empty()).then(|| MetaForm::from(meta)),
            input_required: input.map(|input| InputForm {
                requests: InputRequests(input),
                state: input.state.as_ref(),
                summary: result.summary(),
            }),
        }
    }
}

/// A v1 error: `{code, message, details?}`.
#[derive(Serialize)]
pub(crate) struct ErrorForm<'a> {
    code: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a Map<String, Value>>,
}

impl<'a> From<&'a ToolError> for ErrorForm<'a> {
    fn from(error: &'a ToolError) -> Self {
        Self { code: error.code.as_str(), message: &error.message, details: error.details.as_ref() }
    }
}

/// A v2 `inputRequired`: `{requests, state?, summary?}`.
#[derive(Serialize)]
struct InputForm<'a> {
    requests: InputRequests<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
}

/// Metadata in the v1 form: `pagination`, `dryRun`, `responseSize`, `query`, `generatedAt`,
/// `expiresAt`, `extensions` (namespace → key → value), absent ones left out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MetaForm<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pagination: Option<PaginationJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dry_run: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    query: Option<QueryJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    generated_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Extensions::is_empty", serialize_with = "namespaces")]
    extensions: &'a Extensions,
}

impl<'a> From<&'a Metadata> for MetaForm<'a> {
    fn from(meta: &'a Metadata) -> Self {
        Self {
            pagination: meta.pagination.as_ref().map(PaginationJson::from),
            dry_run: meta.dry_run,
            response_size: meta.response_size,
            query: meta.query.as_ref().map(QueryJson::from),
            generated_at: meta.generated_at,
            expires_at: meta.expires_at,
            extensions: &meta.extensions,
        }
    }
}

fn namespaces<S: Serializer>(extensions: &&Extensions, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(extensions.namespaces())
}

/// A list of parts in the v1 part JSON (the legacy `_meta.parts` entries too); without the
/// payloads (`data`/`blob`) when `payloads` is false, for the compat envelope whose parts
/// travel as blocks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parts<'a> {
    parts: &'a [Part],
    payloads: bool,
}

impl<'a> Parts<'a> {
    pub(crate) fn new(parts: &'a [Part], payloads: bool) -> Self {
        Self { parts, payloads }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }
}

impl Serialize for Parts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.parts.iter().map(|part| PartForm::new(part, self.payloads)))
    }
}

/// A part in the v1 part JSON: `type` first, then its members.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum PartForm<'a> {
    Text {
        text: &'a str,
    },
    #[serde(rename_all = "camelCase")]
    Binary {
        mime_type: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<Base64<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<&'a str>,
    },
    ResourceLink(ResourceLink<'a>),
    #[serde(rename_all = "camelCase")]
    EmbeddedResource {
        uri: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        mime_type: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        blob: Option<Base64<'a>>,
    },
}

impl<'a> PartForm<'a> {
    fn new(part: &'a Part, payload: bool) -> Self {
        match part {
            Part::Text(text) => Self::Text { text: &text.text },
            Part::Binary(binary) => Self::Binary {
                mime_type: &binary.mime_type,
                data: payload.then_some(Base64(&binary.data)),
                name: binary.name.as_deref(),
            },
            Part::ResourceLink(link) => Self::ResourceLink(ResourceLink::from(link)),
            Part::EmbeddedResource(resource) => {
                let (text, blob) = match &resource.contents {
                    ResourceContents::Text(text) => (Some(text.as_str()), None),
                    ResourceContents::Blob(blob) => (None, payload.then_some(Base64(blob))),
                };
                Self::EmbeddedResource {
                    uri: &resource.uri,
                    mime_type: resource.mime_type.as_deref(),
                    text,
                    blob,
                }
            }
        }
    }
}

/// A list of stored links in the v1 form.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StoredLinks<'a>(pub(crate) &'a [StoredLink]);

impl StoredLinks<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for StoredLinks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(StoredLinkForm::from))
    }
}

/// A stored link in the v1 form: `uri`, `size`, `mimeType`, `expiresAt`, `description`, absent
/// ones left out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StoredLinkForm<'a> {
    uri: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    mime_type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
}

impl<'a> From<&'a StoredLink> for StoredLinkForm<'a> {
    fn from(link: &'a StoredLink) -> Self {
        Self {
            uri: &link.uri,
            size: link.size,
            mime_type: &link.mime_type,
            expires_at: link.expires_at,
            description: link.description.as_deref(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/// Parses a v1 or v2 document from bytes.
pub fn parse(input: &[u8]) -> Result<ToolResult, V1Error> {
    if let Some(parsed) = std::str::from_utf8(input)
        .ok()
        .and_then(crate::parse::raw_members)
        .and_then(|members| parse_members(&members))
    {
        return parsed;
    }
    let doc: Value = serde_json::from_slice(input).map_err(|err| V1Error::Json(err.to_string()))?;
    parse_owned(doc)
}

/// Parses a document read as its top-level members: the data stays text, the rest is decoded.
/// `None` when a member needs the whole document decoded as a tree (see [`crate::data`]).
pub(crate) fn parse_members(
    members: &[(String, &RawValue)],
) -> Option<Result<ToolResult, V1Error>> {
    let mut doc = Map::new();
    let mut data = None;
    for (key, value) in members {
        if key == "data" {
            data = Data::from_raw(value).ok()?;
        } else {
            doc.insert(key.clone(), serde_json::from_str(value.get()).ok()?);
        }
    }
    Some(parse_map(&doc, data))
}

/// Parses an already-decoded v1 document.
pub fn parse_value(doc: &Value) -> Result<ToolResult, V1Error> {
    let Value::Object(map) = doc else {
        return Err(V1Error::NotAnObject);
    };
    parse_map(map, map.get("data").cloned().and_then(Data::from_value))
}

/// Like [`parse_value`], taking the document: its data moves into the result instead of being
/// copied, so a large document is held once, not twice.
pub fn parse_owned(doc: Value) -> Result<ToolResult, V1Error> {
    let Value::Object(mut map) = doc else {
        return Err(V1Error::NotAnObject);
    };
    let data = map.get_mut("data").map(Value::take).and_then(Data::from_value);
    parse_map(&map, data)
}

/// The document's fields besides `data`, which the caller took out (cloned, moved or as text).
fn parse_map(doc: &Map<String, Value>, data: Option<Data>) -> Result<ToolResult, V1Error> {
    let v2 = match doc.get("format") {
        None => return Err(V1Error::Missing { path: "format".into() }),
        Some(Value::String(format)) if format == FORMAT => false,
        Some(Value::String(format)) if format == FORMAT_V2 => true,
        Some(Value::String(other)) => return Err(V1Error::UnknownFormat(other.clone())),
        Some(_) => return Err(wrong("format", "a string")),
    };
    if let Some(key) = doc.keys().find(|key| {
        let known = TOP_LEVEL_KEYS.contains(&key.as_str());
        !(known || v2 && key.as_str() == "inputRequired")
    }) {
        return Err(V1Error::UnknownTopLevelKey(key.clone()));
    }
    let error = present(doc, "error").map(|error| parse_error(error, "error")).transpose()?;
    if error.is_some() && data.is_some() {
        return Err(V1Error::ErrorWithData);
    }
    let mut result = ToolResult::from_parts(data, error);
    result.summary = opt_string(doc, "summary", "")?;
    if let Some(parts) = present(doc, "parts") {
        result.parts = parse_parts(parts, "parts")?;
    }
    if let Some(links) = present(doc, "storedLinks") {
        result.stored_links = parse_stored_links(links, "storedLinks")?;
    }
    if let Some(meta) = present(doc, "meta") {
        result.meta = parse_meta(meta, "meta")?;
    }
    if let Some(input) = present(doc, "inputRequired") {
        if result.error.is_some() {
            return Err(V1Error::InputRequiredWith("an error"));
        }
        if result.data.is_some() {
            return Err(V1Error::InputRequiredWith("non-null data"));
        }
        let (input, summary) = parse_input_required(input, "inputRequired")?;
        if summary.is_some() {
            result.summary = summary;
        }
        result.input_required = Some(input);
    }
    Ok(result)
}

fn parse_input_required(
    value: &Value,
    path: &str,
) -> Result<(InputRequired, Option<String>), V1Error> {
    let map = object(value, path, &["requests", "state", "summary"])?;
    let mut input = InputRequired::new();
    match present(map, "requests") {
        None => {}
        Some(Value::Object(requests)) => {
            for (key, request) in requests {
                let request = InputRequest::from_value(request).map_err(|message| {
                    V1Error::InputRequest { path: child(&child(path, "requests"), key), message }
                })?;
                input = input.request(key.clone(), request);
            }
        }
        Some(_) => return Err(wrong(&child(path, "requests"), "an object of requests")),
    }
    if let Some(state) = map.get("state") {
        input = input.state(state.clone());
    }
    Ok((input, opt_string(map, "summary", path)?))
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

fn parse_error(value: &Value, path: &str) -> Result<ToolError, V1Error> {
    let map = object(value, path, &["code", "message", "details"])?;
    let code = required_string(map, "code", path)?;
    let message = required_string(map, "message", path)?;
    let details = match present(map, "details") {
        None => None,
        Some(Value::Object(details)) => Some(details.clone()),
        Some(_) => return Err(wrong(&child(path, "details"), "an object")),
    };
    Ok(ToolError { code: ErrorCode::parse(&code), message, details })
}

fn parse_part(value: &Value, path: &str) -> Result<Part, V1Error> {
    let Value::Object(map) = value else {
        return Err(wrong(path, "a part object"));
    };
    let kind = required_string(map, "type", path)?;
    match kind.as_str() {
        "text" => {
            object(value, path, &["type", "text"])?;
            Ok(Part::Text(TextPart { text: required_string(map, "text", path)? }))
        }
        "binary" => {
            object(value, path, &["type", "mimeType", "data", "name"])?;
            Ok(Part::Binary(BinaryPart {
                data: required_base64(map, "data", path)?,
                mime_type: required_string(map, "mimeType", path)?,
                name: opt_string(map, "name", path)?,
            }))
        }
        "resource_link" => {
            object(
                value,
                path,
                &["type", "uri", "name", "title", "description", "mimeType", "size"],
            )?;
            Ok(Part::ResourceLink(ResourceLinkPart {
                uri: required_string(map, "uri", path)?,
                name: required_string(map, "name", path)?,
                title: opt_string(map, "title", path)?,
                description: opt_string(map, "description", path)?,
                mime_type: opt_string(map, "mimeType", path)?,
                size: opt_u64(map, "size", path)?,
            }))
        }
        "embedded_resource" => {
            object(value, path, &["type", "uri", "mimeType", "text", "blob"])?;
            let contents = match (present(map, "text"), present(map, "blob")) {
                (Some(_), None) => ResourceContents::Text(required_string(map, "text", path)?),
                (None, Some(_)) => ResourceContents::Blob(required_base64(map, "blob", path)?),
                _ => return Err(V1Error::TextXorBlob { path: path.to_owned() }),
            };
            Ok(Part::EmbeddedResource(EmbeddedResourcePart {
                uri: required_string(map, "uri", path)?,
                mime_type: opt_string(map, "mimeType", path)?,
                contents,
            }))
        }
        other => {
            Err(V1Error::UnknownPartType { path: child(path, "type"), found: other.to_owned() })
        }
    }
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

fn parse_meta(value: &Value, path: &str) -> Result<Metadata, V1Error> {
    let map = object(
        value,
        path,
        &[
            "pagination",
            "dryRun",
            "responseSize",
            "query",
            "generatedAt",
            "expiresAt",
            "extensions",
        ],
    )?;
    let mut meta = Metadata::default();
    if let Some(pagination) = present(map, "pagination") {
        meta.pagination = Some(parse_pagination(pagination, &child(path, "pagination"))?);
    }
    meta.dry_run = match present(map, "dryRun") {
        None => None,
        Some(Value::Bool(flag)) => Some(*flag),
        Some(_) => return Err(wrong(&child(path, "dryRun"), "a boolean")),
    };
    meta.response_size = opt_u64(map, "responseSize", path)?;
    if let Some(query) = present(map, "query") {
        meta.query = Some(parse_query(query, &child(path, "query"))?);
    }
    meta.generated_at = opt_timestamp(map, "generatedAt", path)?;
    meta.expires_at = opt_timestamp(map, "expiresAt", path)?;
    if let Some(extensions) = present(map, "extensions") {
        let path = child(path, "extensions");
        let Value::Object(namespaces) = extensions else {
            return Err(wrong(&path, "an object of namespaces"));
        };
        for (namespace, keys) in namespaces {
            let Value::Object(keys) = keys else {
                return Err(wrong(&child(&path, namespace), "an object of keys"));
            };
            for (key, value) in keys {
                meta.extensions.insert_unchecked(namespace, key, value.clone());
            }
        }
    }
    Ok(meta)
}

/// Parses an unsigned integer (what sizes, pages and counts are).
pub(crate) fn as_u64(value: &Value) -> Option<u64> {
    match value {
        Value::Number(number) => number.as_u64(),
        _ => None,
    }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
}

fn wrong(path: &str, expected: &'static str) -> V1Error {
    V1Error::WrongType { path: path.to_owned(), expected }
}

/// The value under `key` unless it is absent or `null`.
fn present<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|value| !value.is_null())
}

/// The object at `path`, refusing keys outside `allowed`.
fn object<'a>(
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

fn required_string(map: &Map<String, Value>, key: &str, path: &str) -> Result<String, V1Error> {
    opt_string(map, key, path)?.ok_or_else(|| V1Error::Missing { path: child(path, key) })
}

fn opt_string(map: &Map<String, Value>, key: &str, path: &str) -> Result<Option<String>, V1Error> {
    match present(map, key) {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(wrong(&child(path, key), "a string")),
    }
}

fn opt_u64(map: &Map<String, Value>, key: &str, path: &str) -> Result<Option<u64>, V1Error> {
    match present(map, key) {
        None => Ok(None),
        Some(value) => {
            as_u64(value).map(Some).ok_or_else(|| wrong(&child(path, key), "an unsigned integer"))
        }
    }
}

fn opt_timestamp(
    map: &Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<Timestamp>, V1Error> {
    present(map, key).map(|value| parse_timestamp(value, &child(path, key))).transpose()
}

fn required_base64(map: &Map<String, Value>, key: &str, path: &str) -> Result<Vec<u8>, V1Error> {
    let text = required_string(map, key, path)?;
    BASE64.decode(text).map_err(|_| V1Error::Base64 { path: child(path, key) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part_json(part: &Part, include_payload: bool) -> String {
        to_json_string(&PartForm::new(part, include_payload))
    }

    #[test]
    fn parts_can_leave_out_their_payloads() {
        let binary = Part::named_binary(vec![1u8, 2], "image/png", "a.png");
        assert_eq!(
            part_json(&binary, true),
            r#"{"type":"binary","mimeType":"image/png","data":"AQI=","name":"a.png"}"#
        );
        assert_eq!(
            part_json(&binary, false),
            r#"{"type":"binary","mimeType":"image/png","name":"a.png"}"#
        );
        let blob = Part::embedded_blob("file:///b", None, vec![1u8]);
        assert_eq!(part_json(&blob, false), r#"{"type":"embedded_resource","uri":"file:///b"}"#);
        let text = Part::embedded_text("file:///t", None, "x");
        assert_eq!(
            part_json(&text, false),
            r#"{"type":"embedded_resource","uri":"file:///t","text":"x"}"#
        );
    }
}

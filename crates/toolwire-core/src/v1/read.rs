//! The strict parser of the v1 and v2 forms.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{FORMAT, FORMAT_V2, V1Error};
use crate::data::Data;
use crate::error::{ErrorCode, ToolError};
use crate::form::{
    child, object, opt_string, opt_timestamp, opt_u64, parse_pagination, parse_parts, parse_query,
    parse_stored_links, present, required_string, wrong,
};
use crate::input::{InputRequest, InputRequired};
use crate::meta::Metadata;
use crate::result::ToolResult;

const TOP_LEVEL_KEYS: [&str; 7] =
    ["format", "data", "summary", "error", "parts", "storedLinks", "meta"];

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

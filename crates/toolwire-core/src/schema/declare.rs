//! Turning a declaration into a data schema, and everything refused at registration: a `$ref`
//! that leaves the document, a `$ref` that points nowhere, an unknown `$schema`, a schema that
//! does not compile.
//!
//! The compiler is configured offline (and the crate is built without its HTTP and file
//! retrievers), but every `$ref` is also checked here first: a declaration that would need
//! anything outside itself is refused with a message naming the reference and where it is.

use jsonschema::Draft;
use serde_json::{Map, Value};

use super::{SchemaError, pointer_push, typed};

/// Keywords whose values are data, not schemas (a `$ref` key inside them is not a reference).
const DATA_KEYWORDS: [&str; 4] = ["const", "enum", "default", "examples"];
/// Keywords whose values map names to schemas.
const SCHEMA_MAPS: [&str; 6] =
    ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];
/// Keywords that hold a reference.
const REF_KEYWORDS: [&str; 3] = ["$ref", "$dynamicRef", "$recursiveRef"];
/// Keys that alone still accept every value.
const ANNOTATION_ONLY: [&str; 4] = ["$schema", "$id", "title", "description"];

/// The data schema a declaration makes; `None` when it declares no outputs.
pub(crate) fn data_schema(doc: &Value) -> Result<Option<Value>, SchemaError> {
    let schema = if typed::is_typed(doc) {
        match typed::to_schema(doc)? {
            Some(schema) => schema,
            None => return Ok(None),
        }
    } else {
        doc.clone()
    };
    match &schema {
        Value::Bool(_) | Value::Object(_) => {}
        other => return Err(SchemaError::NotASchema { found: crate::json_kind::kind_of(other) }),
    }
    draft_of(&schema)?;
    if accepts_everything(&schema) {
        return Ok(None);
    }
    check_refs(&schema)?;
    Ok(Some(schema))
}

/// Compiles a checked schema with its draft, never fetching anything.
///
/// Known formats are asserted whatever the draft: some clients validate them (Ajv with its
/// formats), and toolwire must never send what any client would reject. Unknown formats (such
/// as schemars' `uint32`) stay annotations.
pub(crate) fn compile(schema: &Value) -> Result<jsonschema::Validator, SchemaError> {
    let draft = draft_of(schema)?;
    let options =
        super::exact_numbers(jsonschema::options()).with_draft(draft).should_validate_formats(true);
    options.offline().build(schema).map_err(|err| {
        let at = err.instance_path().as_str();
        let message =
            if at.is_empty() { err.to_string() } else { format!("{err} (at {at} in the schema)") };
        SchemaError::DoesNotCompile { message }
    })
}

/// `true`, `{}`, or an object with only `$schema`, `$id`, `title` and `description`.
fn accepts_everything(schema: &Value) -> bool {
    match schema {
        Value::Bool(accept) => *accept,
        Value::Object(object) => object.keys().all(|k| ANNOTATION_ONLY.contains(&k.as_str())),
        _ => false,
    }
}

/// The draft the root names (2020-12 when it names none); every `$schema` in the document must
/// be one of the supported drafts.
fn draft_of(schema: &Value) -> Result<Draft, SchemaError> {
    let mut problem = None;
    walk(schema, "", &mut |object, at| {
        if problem.is_some() {
            return;
        }
        if let Some(value) = object.get("$schema")
            && value.as_str().and_then(known_draft).is_none()
        {
            problem =
                Some(SchemaError::UnknownDialect { found: value.to_string(), at: at.to_owned() });
        }
    });
    if let Some(problem) = problem {
        return Err(problem);
    }
    Ok(schema
        .get("$schema")
        .and_then(Value::as_str)
        .and_then(known_draft)
        .unwrap_or(Draft::Draft202012))
}

fn known_draft(uri: &str) -> Option<Draft> {
    let uri = uri.strip_suffix('#').unwrap_or(uri);
    let rest = uri
        .strip_prefix("https://json-schema.org/")
        .or_else(|| uri.strip_prefix("http://json-schema.org/"))?;
    match rest {
        "draft/2020-12/schema" => Some(Draft::Draft202012),
        "draft/2019-09/schema" => Some(Draft::Draft201909),
        "draft-07/schema" => Some(Draft::Draft7),
        "draft-06/schema" => Some(Draft::Draft6),
        "draft-04/schema" => Some(Draft::Draft4),
        _ => None,
    }
}

/// Refuses every reference that leaves the document or points nowhere inside it.
fn check_refs(schema: &Value) -> Result<(), SchemaError> {
    let mut resources: Vec<(String, &Value)> = Vec::new();
    let mut anchors = Vec::new();
    walk_resources(schema, schema, "", &mut |object, resource, _| {
        for key in ["$id", "id"] {
            if let Some(id) = object.get(key).and_then(Value::as_str) {
                match id.strip_prefix('#') {
                    Some(anchor) => anchors.push(anchor.to_owned()),
                    None => resources.push((id.trim_end_matches('#').to_owned(), resource)),
                }
            }
        }
        for key in ["$anchor", "$dynamicAnchor"] {
            if let Some(anchor) = object.get(key).and_then(Value::as_str) {
                anchors.push(anchor.to_owned());
            }
        }
    });
    let mut problem = None;
    walk_resources(schema, schema, "", &mut |object, resource, at| {
        for key in REF_KEYWORDS {
            let Some(reference) = object.get(key).and_then(Value::as_str) else {
                continue;
            };
            if problem.is_some() {
                return;
            }
            let (uri, fragment) = match reference.split_once('#') {
                Some((uri, fragment)) => (uri, fragment),
                None => (reference, ""),
            };
            let target = if uri.is_empty() {
                Some(resource)
            } else if let Some((_, named)) = resources.iter().find(|(id, _)| id == uri) {
                Some(*named)
            } else if names_an_id(uri, &resources) {
                // A relative reference to an embedded resource: the compiler resolves it
                // exactly, offline.
                None
            } else {
                problem = Some(SchemaError::ExternalRef {
                    reference: reference.to_owned(),
                    at: at.to_owned(),
                });
                return;
            };
            let resolves = match (target, fragment) {
                (None, _) | (Some(_), "") => true,
                (Some(target), pointer) if pointer.starts_with('/') => {
                    percent_decode(pointer).is_some_and(|p| target.pointer(&p).is_some())
                }
                (Some(_), anchor) => anchors.iter().any(|a| a == anchor),
            };
            if !resolves {
                problem = Some(SchemaError::UnresolvableRef {
                    reference: reference.to_owned(),
                    at: at.to_owned(),
                });
            }
        }
    });
    problem.map_or(Ok(()), Err)
}

/// Whether a relative reference names a resource the document itself declares with `$id`.
fn names_an_id(uri: &str, resources: &[(String, &Value)]) -> bool {
    resources.iter().any(|(id, _)| {
        id.ends_with(&format!("/{uri}"))
            || uri.ends_with(&format!("/{}", id.trim_start_matches("./")))
    })
}

/// Words for where a reference that leaves the document points.
pub(crate) fn destination(reference: &str) -> &'static str {
    let scheme =
        reference.split_once(':').map(|(scheme, _)| scheme.to_ascii_lowercase()).filter(|s| {
            !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        });
    match scheme.as_deref() {
        Some("http" | "https" | "ftp" | "ws" | "wss") => "the network",
        Some("file") | None => "a file outside the schema",
        Some(_) => "a resource outside the schema",
    }
}

/// Decodes `%XX` escapes in a URI fragment; `None` when it is not valid UTF-8 afterwards.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (bytes[i], bytes.get(i + 1).copied(), bytes.get(i + 2).copied()) {
            (b'%', Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                let value = hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0);
                out.push(u8::try_from(value).ok()?);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Calls `visit` on every schema object of `schema` with its JSON pointer.
fn walk(schema: &Value, at: &str, visit: &mut dyn FnMut(&Map<String, Value>, &str)) {
    walk_resources(schema, schema, at, &mut |object, _, at| visit(object, at));
}

/// Called with a schema object, its enclosing resource and its JSON pointer.
type ResourceVisitor<'a, 'f> = dyn FnMut(&'a Map<String, Value>, &'a Value, &str) + 'f;

/// Like [`walk`], also passing the nearest enclosing resource (the closest object with its own
/// `$id`, else the root), which is what a `#/…` pointer is resolved against.
fn walk_resources<'a>(
    schema: &'a Value,
    resource: &'a Value,
    at: &str,
    visit: &mut ResourceVisitor<'a, '_>,
) {
    match schema {
        Value::Object(object) => {
            let opens_resource = ["$id", "id"].iter().any(|key| {
                object.get(*key).and_then(Value::as_str).is_some_and(|id| !id.starts_with('#'))
            });
            let resource = if opens_resource { schema } else { resource };
            visit(object, resource, at);
            for (key, child) in object {
                let here = pointer_push(at, key);
                if DATA_KEYWORDS.contains(&key.as_str()) {
                    continue;
                }
                match child {
                    Value::Object(map) if SCHEMA_MAPS.contains(&key.as_str()) => {
                        for (name, sub) in map {
                            walk_resources(sub, resource, &pointer_push(&here, name), visit);
                        }
                    }
                    _ => walk_resources(child, resource, &here, visit),
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                walk_resources(item, resource, &format!("{at}/{index}"), visit);
            }
        }
        _ => {}
    }
}

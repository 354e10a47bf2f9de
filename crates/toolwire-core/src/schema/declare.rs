//! Turning a declaration into a data schema, and everything refused at registration: a `$ref`
//! that leaves the document, a `$ref` that points nowhere, an unknown `$schema`, two schemas
//! with one URI ([`identifiers`]), a schema that does not compile.
//!
//! The compiler is configured offline (and the crate is built without its HTTP and file
//! retrievers), but every `$ref` is also checked here first: a declaration that would need
//! anything outside itself is refused with a message naming the reference and where it is.
//! Where only the published form is wanted ([`check_compiles`]), whether the schema compiles is
//! settled without keeping a validator wherever that answer is exact.

use std::collections::HashSet;

use jsonschema::Draft;
use serde_json::{Value, json};

use super::compile::without_panics;
use super::walk::{self, REF_KEYWORDS};
use super::{SchemaError, identifiers, typed};

/// Keys that alone still accept every value.
const ANNOTATION_ONLY: [&str; 4] = ["$schema", "$id", "title", "description"];

/// The data schema a declaration makes; `None` when it declares no outputs.
pub(crate) fn data_schema(doc: &Value) -> Result<Option<Value>, SchemaError> {
    if typed::is_typed(doc) { checked(typed::to_schema(doc)?) } else { checked(Some(doc.clone())) }
}

/// [`data_schema`] of a declaration the caller no longer needs (a raw schema is not copied).
pub(crate) fn data_schema_owned(doc: Value) -> Result<Option<Value>, SchemaError> {
    if typed::is_typed(&doc) { checked(typed::to_schema(&doc)?) } else { checked(Some(doc)) }
}

/// The checks every data schema passes before it is compiled.
fn checked(schema: Option<Value>) -> Result<Option<Value>, SchemaError> {
    let Some(schema) = schema else { return Ok(None) };
    match &schema {
        Value::Bool(_) | Value::Object(_) => {}
        other => return Err(SchemaError::NotASchema { found: crate::json_kind::kind_of(other) }),
    }
    let draft = draft_of(&schema)?;
    if accepts_everything(&schema) {
        return Ok(None);
    }
    if let Some(clash) = identifiers::clash(&schema, draft) {
        return Err(clash);
    }
    check_refs(&schema)?;
    Ok(Some(schema))
}

/// Compiles a checked schema (one [`checked`] let through) with its draft, never fetching
/// anything.
///
/// Known formats are asserted whatever the draft: some clients validate them (Ajv with its
/// formats), and toolwire must never send what any client would reject. Unknown formats (such
/// as schemars' `uint32`) stay annotations.
pub(crate) fn compile(schema: &Value) -> Result<jsonschema::Validator, SchemaError> {
    // `checked` has refused clashing identifiers already; only the panic guard is left to add.
    let options = options(draft_of(schema)?);
    without_panics(|| options.build(schema)).map_err(|err| {
        let at = err.instance_path().as_str();
        let message =
            if at.is_empty() { err.to_string() } else { format!("{err} (at {at} in the schema)") };
        SchemaError::DoesNotCompile { message }
    })
}

/// The options every declaration is compiled with.
fn options(draft: Draft) -> jsonschema::ValidationOptions<'static> {
    super::exact_numbers(jsonschema::options())
        .with_draft(draft)
        .should_validate_formats(true)
        .offline()
}

/// Refuses what [`compile`] refuses without keeping a validator: the schema is checked against
/// its draft's meta-schema (which is what compiling checks first), every regular expression is
/// compiled alone, and every reference must point to a schema of the document that passes the
/// meta-schema too. A schema whose compiling depends on more than that (identifiers below the
/// root, a root identifier beside a reference, anchors, dynamic or recursive references, a
/// reference that is not such a pointer, a nested `$schema`, `$vocabulary`) is compiled, and so
/// is one these checks refuse, so a refusal always carries the compiler's own message.
pub(crate) fn check_compiles(schema: &Value) -> Result<(), SchemaError> {
    if !compiles_unseen(schema)? {
        compile(schema)?;
    }
    Ok(())
}

/// Whether [`compile`] surely accepts the schema, as far as the checks of [`check_compiles`]
/// can tell without compiling it; `false` when only compiling can.
pub(crate) fn compiles_unseen(schema: &Value) -> Result<bool, SchemaError> {
    let draft = draft_of(schema)?;
    let mut references = Vec::new();
    if !meta_valid(schema, draft)
        || !local_checks(schema, true, draft, &mut references)
        || !root_id_settled(schema, draft, !references.is_empty())
    {
        return Ok(false);
    }
    if references.is_empty() {
        return Ok(true);
    }
    let mut walked = HashSet::new();
    walk::walk(schema, true, &mut |node| {
        walked.insert(node.at.to_owned());
        true
    });
    Ok(references
        .iter()
        .all(|pointer| target_compiles(schema.pointer(pointer), walked.contains(pointer), draft)))
}

/// Whether `schema` passes the meta-schema of `draft` (as an instance: a boolean or `{}` is
/// judged too, as it is where it stands inside a document).
pub(crate) fn meta_valid(schema: &Value, draft: Draft) -> bool {
    match draft {
        Draft::Draft4 => jsonschema::draft4::meta::is_valid(schema),
        Draft::Draft6 => jsonschema::draft6::meta::is_valid(schema),
        Draft::Draft7 => jsonschema::draft7::meta::is_valid(schema),
        Draft::Draft201909 => jsonschema::draft201909::meta::is_valid(schema),
        _ => jsonschema::draft202012::meta::is_valid(schema),
    }
}

/// Keywords whose meaning the compiler works out from the whole document.
const RESOLVED_BY_COMPILER: [&str; 8] = [
    "$id",
    "id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$dynamicRef",
    "$recursiveRef",
    "$vocabulary",
];

/// Whether the root's identifier (`id` in draft 4, `$id` after) leaves nothing for the compiler
/// to settle: there is none, or there is no reference it could change (`has_references` is
/// false; dynamic and recursive ones are refused by [`local_checks`]) and it is a URI reference
/// the compiler takes as the document's base (which is all compiling does with it then).
pub(crate) fn root_id_settled(schema: &Value, draft: Draft, has_references: bool) -> bool {
    match schema.get(root_id_keyword(draft)) {
        None => true,
        Some(Value::String(id)) => {
            !has_references && jsonschema::uri::from_str(id.trim_end_matches('#')).is_ok()
        }
        Some(_) => false,
    }
}

/// The keyword naming a schema's identifier in `draft`.
fn root_id_keyword(draft: Draft) -> &'static str {
    if draft == Draft::Draft4 { "id" } else { "$id" }
}

/// The checks of [`compiles_unseen`] that need only `schema` (a document root, or a schema
/// inside one when `is_root` is false): no keyword only the compiler settles (the root's own
/// identifier is left to [`root_id_settled`]), no `$schema` below the root, every `pattern` and
/// `patternProperties` name compiling, and every `$ref` a URI reference whose fragment is a JSON
/// pointer into the document, collected (decoded) into `references`. `false` when one fails.
pub(crate) fn local_checks(
    schema: &Value,
    is_root: bool,
    draft: Draft,
    references: &mut Vec<String>,
) -> bool {
    let mut fine = true;
    walk::walk(schema, is_root, &mut |node| {
        let object = node.object;
        let root_id = node.is_root.then(|| root_id_keyword(draft));
        fine &= !RESOLVED_BY_COMPILER
            .iter()
            .any(|key| Some(*key) != root_id && object.contains_key(*key))
            && (node.is_root || !object.contains_key("$schema"))
            && patterns_compile(object, draft);
        if let Some(reference) = object.get("$ref").filter(|_| fine) {
            // A reference the compiler cannot parse as a URI reference (a space, a bare `%`)
            // is its to refuse, with its own message.
            let pointer = reference
                .as_str()
                .filter(|r| jsonschema::uri::from_str(r).is_ok())
                .and_then(|r| r.strip_prefix('#'))
                .filter(|fragment| fragment.is_empty() || fragment.starts_with('/'))
                .and_then(percent_decode);
            match pointer {
                Some(pointer) => references.push(pointer),
                None => fine = false,
            }
        }
        fine
    });
    fine
}

/// Whether the `pattern` and every `patternProperties` name of one schema object compile, each
/// in a schema of its own with the options [`compile`] uses.
fn patterns_compile(object: &serde_json::Map<String, Value>, draft: Draft) -> bool {
    let pattern = object.get("pattern").and_then(Value::as_str);
    let names = object.get("patternProperties").and_then(Value::as_object);
    let mut alone = pattern.map(|p| json!({"pattern": p})).into_iter().chain(
        names.into_iter().flat_map(|n| n.keys()).map(|n| json!({"patternProperties": {n: {}}})),
    );
    alone.all(|alone| options(draft).build(&alone).is_ok())
}

/// Whether a reference compiles whose target in the document is `target`: a boolean, or a
/// schema object the walk of [`local_checks`] reaches (`walked`: so its own keywords were
/// checked) that passes the meta-schema on its own (the walk also reaches schemas under
/// unknown keywords, which the meta-schema of the document does not look at).
pub(crate) fn target_compiles(target: Option<&Value>, walked: bool, draft: Draft) -> bool {
    match target {
        Some(Value::Bool(_)) => true,
        Some(target @ Value::Object(_)) => walked && meta_valid(target, draft),
        _ => false,
    }
}

/// Whether the walk of `schema` reaches a schema object at `pointer`.
pub(crate) fn reaches(schema: &Value, is_root: bool, pointer: &str) -> bool {
    let mut found = false;
    walk::walk(schema, is_root, &mut |node| {
        found |= node.at == pointer;
        !found && pointer.starts_with(node.at)
    });
    found
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
pub(crate) fn draft_of(schema: &Value) -> Result<Draft, SchemaError> {
    let mut problem = None;
    walk::walk(schema, true, &mut |node| {
        if let Some(value) = node.object.get("$schema")
            && value.as_str().and_then(known_draft).is_none()
        {
            problem = Some(SchemaError::UnknownDialect {
                found: value.to_string(),
                at: node.at.to_owned(),
            });
        }
        problem.is_none()
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

/// The draft a `$schema` URI names, if it is one of the supported drafts.
pub(crate) fn known_draft(uri: &str) -> Option<Draft> {
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
    walk::walk(schema, true, &mut |node| {
        let (object, resource) = (node.object, node.resource);
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
        true
    });
    let mut problem = None;
    walk::walk(schema, true, &mut |node| {
        let (object, resource, at) = (node.object, node.resource, node.at);
        for key in REF_KEYWORDS {
            let Some(reference) = object.get(key).and_then(Value::as_str) else {
                continue;
            };
            if problem.is_some() {
                return false;
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
                return false;
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
        problem.is_none()
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
    let decoded = percent_encoding::percent_decode_str(text).decode_utf8().ok()?;
    Some(decoded.into_owned())
}

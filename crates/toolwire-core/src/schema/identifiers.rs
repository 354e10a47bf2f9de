//! The URIs a schema document gives its schemas (`$id`, and `id` in draft 4), resolved as the
//! compiler resolves them, and the documents whose identifiers clash.
//!
//! A URI identifies one schema (JSON Schema 2020-12 §8.2.1: validators should raise an error
//! when several claim one). jsonschema 0.61 does not: given two schemas with one URI, or a
//! schema that claims the URI of one of the meta-schemas it carries (`https://json-schema.org/…`),
//! it looks an anchor up in the wrong one and panics. Every schema toolwire compiles is checked
//! here first ([`super::build_validator`]), and a declaration is refused with the clash before
//! its references are looked at.

use std::collections::HashMap;

use jsonschema::{Draft, Uri};
use serde_json::{Map, Value};

use super::SchemaError;
use super::walk;

/// The host of the official meta-schemas, which the compiler holds under their own URIs.
const META_SCHEMA_HOST: &str = "json-schema.org";

/// The first identifier of `schema` (in `draft`) that clashes: one resolving to a URI an earlier
/// schema of the document already has (the root's included: its `$id`, else the compiler's
/// `json-schema:///`), or one on the meta-schemas' host. An identifier that is not a URI
/// reference is left to the compiler, which refuses it with its own message.
pub(crate) fn clash(schema: &Value, draft: Draft) -> Option<SchemaError> {
    let keyword = if draft == Draft::Draft4 { "id" } else { "$id" };
    let root_id = schema.as_object().and_then(|root| declared(root, keyword));
    // A root identifier that is not a URI reference is the compiler's to refuse.
    let root = jsonschema::uri::from_str(root_id.unwrap_or_default()).ok()?;
    let root = root.strip_fragment().to_owned();
    if let Some(id) = root_id
        && on_meta_schema_host(&root)
    {
        return Some(SchemaError::MetaSchemaId { keyword, id: id.to_owned(), at: String::new() });
    }
    // Every URI met, with where its schema is.
    let mut seen: HashMap<String, String> =
        HashMap::from([(root.as_str().to_owned(), String::new())]);
    // The resources around the object being visited, outermost first, each with its URI: the
    // walk visits parents first, so they are a stack.
    let mut enclosing: Vec<(String, Uri<String>)> = vec![(String::new(), root)];
    let mut found = None;
    walk::walk(schema, true, &mut |node| {
        if found.is_some() {
            return false;
        }
        let Some(id) = declared(node.object, keyword).filter(|_| !node.is_root) else {
            return true;
        };
        while enclosing.len() > 1 && enclosing.last().is_some_and(|(at, _)| !encloses(at, node.at))
        {
            enclosing.pop();
        }
        let Some(Ok(uri)) =
            enclosing.last().map(|(_, base)| jsonschema::uri::resolve_against(&base.borrow(), id))
        else {
            return true;
        };
        let uri = uri.strip_fragment().to_owned();
        let named = uri.as_str().to_owned();
        let at = node.at.to_owned();
        if on_meta_schema_host(&uri) {
            found = Some(SchemaError::MetaSchemaId { keyword, id: id.to_owned(), at });
        } else if let Some(first) = seen.get(&named) {
            let first = first.clone();
            found = Some(SchemaError::DuplicateId { keyword, id: id.to_owned(), at, first });
        } else {
            seen.insert(named, at.clone());
            enclosing.push((at, uri));
        }
        found.is_none()
    });
    found
}

/// The identifier a schema object declares with `keyword`; one that is only a fragment (`#name`,
/// drafts 4 to 7) is an anchor, not an identifier.
fn declared<'a>(object: &'a Map<String, Value>, keyword: &str) -> Option<&'a str> {
    object.get(keyword).and_then(Value::as_str).filter(|id| !id.starts_with('#'))
}

/// Whether `uri` is on the host of the official meta-schemas.
fn on_meta_schema_host(uri: &Uri<String>) -> bool {
    uri.authority().is_some_and(|authority| authority.host().eq_ignore_ascii_case(META_SCHEMA_HOST))
}

/// Whether the object at pointer `outer` is `inner` or one of its ancestors.
fn encloses(outer: &str, inner: &str) -> bool {
    inner.strip_prefix(outer).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

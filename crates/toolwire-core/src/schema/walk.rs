//! The one walk over a JSON Schema: every schema object with its JSON pointer and its enclosing
//! resource, parents first, never inside the values of keywords that hold data (`const`,
//! `enum`, `default`, `examples`). Declaration checks read through [`walk`]; publishing changes
//! schemas through [`walk_mut`].

use serde_json::{Map, Value};

use crate::pointer;

/// Keywords whose values are data, not schemas (a `$ref` key inside them is not a reference).
pub(crate) const DATA_KEYWORDS: [&str; 4] = ["const", "enum", "default", "examples"];
/// Keywords whose values map names to schemas.
const SCHEMA_MAPS: [&str; 6] =
    ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"];
/// Keywords that hold a reference.
pub(crate) const REF_KEYWORDS: [&str; 3] = ["$ref", "$dynamicRef", "$recursiveRef"];

/// One schema object met by [`walk`].
pub(crate) struct Node<'a, 'p> {
    /// The object.
    pub(crate) object: &'a Map<String, Value>,
    /// Its JSON pointer from where the walk began.
    pub(crate) at: &'p str,
    /// The nearest enclosing resource (the closest object with its own `$id` or `id`, itself
    /// included, else where the walk began): what a `#/…` pointer is resolved against.
    pub(crate) resource: &'a Value,
    /// Whether the object is where the walk began (and that was a root).
    pub(crate) is_root: bool,
}

/// Whether an object has its own `$id` or `id` (not a plain-name anchor `#…`).
fn opens_resource(object: &Map<String, Value>) -> bool {
    ["$id", "id"]
        .iter()
        .any(|key| object.get(*key).and_then(Value::as_str).is_some_and(|id| !id.starts_with('#')))
}

/// Calls `visit` on every schema object of `schema`, parents first; `visit` answers whether to
/// go into that object's sub-schemas. `is_root` says whether `schema` is a document root.
pub(crate) fn walk<'a>(
    schema: &'a Value,
    is_root: bool,
    visit: &mut dyn FnMut(&Node<'a, '_>) -> bool,
) {
    walk_at(schema, schema, "", is_root, visit);
}

fn walk_at<'a>(
    schema: &'a Value,
    resource: &'a Value,
    at: &str,
    is_root: bool,
    visit: &mut dyn FnMut(&Node<'a, '_>) -> bool,
) {
    match schema {
        Value::Object(object) => {
            let resource = if opens_resource(object) { schema } else { resource };
            if !visit(&Node { object, at, resource, is_root }) {
                return;
            }
            for (key, child) in object {
                if DATA_KEYWORDS.contains(&key.as_str()) {
                    continue;
                }
                let here = pointer::push(at, key);
                match child {
                    Value::Object(map) if SCHEMA_MAPS.contains(&key.as_str()) => {
                        for (name, sub) in map {
                            walk_at(sub, resource, &pointer::push(&here, name), false, visit);
                        }
                    }
                    _ => walk_at(child, resource, &here, false, visit),
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                walk_at(item, resource, &pointer::push_index(at, index), false, visit);
            }
        }
        _ => {}
    }
}

/// Changes schema objects: `enter(object, is_root)` answers whether the walk goes into an
/// object's sub-schemas (as in [`walk`]); then `visit(object, is_root)` is called on every
/// object met, parents first.
pub(crate) fn walk_mut(
    schema: &mut Value,
    is_root: bool,
    enter: &dyn Fn(&Map<String, Value>, bool) -> bool,
    visit: &mut dyn FnMut(&mut Map<String, Value>, bool),
) {
    // Where the objects are, found first; the visits edit keywords in place, and a boolean
    // property schema they spell out (`{}`, `{"not": {}}`) has nothing a visit would change.
    let mut found = Vec::new();
    walk(schema, is_root, &mut |node| {
        found.push((node.at.to_owned(), node.is_root));
        enter(node.object, node.is_root)
    });
    for (at, is_root) in found {
        if let Some(Value::Object(object)) = schema.pointer_mut(&at) {
            visit(object, is_root);
        }
    }
}

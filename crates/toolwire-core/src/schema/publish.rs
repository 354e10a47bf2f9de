//! Publishing schemas per MCP revision: the `outputSchema` and `inputSchema` a `tools/list`
//! carries.
//!
//! What a revision takes is its row's [`SchemaRules`]: 2025-06-18 and 2025-11-25 only accept an
//! object root with object property schemas, so other roots are wrapped as `{"result": S}` and
//! boolean property schemas are spelled out; 2026-07-28 takes any JSON Schema as declared. The
//! published forms accept exactly what the declaration accepts (wrapped as `{"result": D}` where
//! the root is wrapped).

use serde_json::{Map, Value, json};

use crate::revision::{DollarSchema, McpCaps, SchemaRules, StructuredCap};
use crate::target::McpRevision;

/// Keywords whose values are data, not schemas.
const DATA_KEYWORDS: [&str; 4] = ["const", "enum", "default", "examples"];
/// Where definitions live; hoisted to the wrapper's root.
const DEFINITIONS: [&str; 2] = ["$defs", "definitions"];
/// Keywords that hold a reference.
const REF_KEYWORDS: [&str; 3] = ["$ref", "$dynamicRef", "$recursiveRef"];

/// The tool's `inputSchema` for `revision`.
///
/// Follows the revision's [`SchemaRules`]: before 2026-07-28 boolean schemas under `properties`
/// become `{}` (true) or `{"not": {}}` (false), since those revisions' `Tool` definitions only
/// accept object property schemas, and `$schema` stays only at the root and only from
/// 2025-11-25; 2026-07-28 gets it as declared.
///
/// A tool without arguments publishes `{"type":"object","properties":{},"additionalProperties":false}`
/// (strict-schema converters refuse a bare `{"type":"object"}`), and `format` values JSON Schema
/// does not define are dropped (see [`drop_nonstandard_formats`]).
pub fn publish_input_schema(input: &Value, revision: McpRevision) -> Value {
    if takes_no_arguments(input) {
        return json!({"type": "object", "properties": {}, "additionalProperties": false});
    }
    let mut schema = input.clone();
    conform(&mut schema, McpCaps::of(revision).schemas);
    drop_nonstandard_formats(&mut schema);
    schema
}

/// Whether an input schema declares no arguments: an object schema with nothing but `$schema`,
/// `title`, `description` and an empty `properties`.
fn takes_no_arguments(input: &Value) -> bool {
    let Value::Object(map) = input else { return false };
    map.get("type").and_then(Value::as_str) == Some("object")
        && map.iter().all(|(key, value)| match key.as_str() {
            "$schema" | "title" | "description" | "type" => true,
            "properties" => value.as_object().is_some_and(Map::is_empty),
            _ => false,
        })
}

/// The `format` values JSON Schema 2020-12 defines.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Drops every `format` whose value JSON Schema does not define (schemars writes `uint64`,
/// `double`, `int32`, …, which validators warn about on every connect). The value bounds a
/// format like `uint64` stands for are kept by the schema's own `minimum`/`maximum`, if any;
/// validation against the declared schema is unchanged.
pub(crate) fn drop_nonstandard_formats(schema: &mut Value) {
    every_object(schema, true, &mut |map, _| {
        let standard =
            |format: &Value| format.as_str().is_some_and(|f| STANDARD_FORMATS.contains(&f));
        if map.get("format").is_some_and(|format| !standard(format)) {
            map.shift_remove("format");
        }
    });
}

/// The data shape's `outputSchema` under `rules` (of a revision that publishes one) of a
/// declared schema.
pub(crate) fn publish_output_schema(declared: &Value, rules: SchemaRules) -> Value {
    let mut schema = match rules.output_schema {
        // As declared; a boolean root (only `false` gets here) is spelled out because `Tool`
        // needs an object.
        StructuredCap::Any => match declared {
            Value::Bool(accept) => boolean_schema(*accept),
            other => other.clone(),
        },
        StructuredCap::ObjectOnly | StructuredCap::Never if super::root_is_object(declared) => {
            declared.clone()
        }
        StructuredCap::ObjectOnly | StructuredCap::Never => wrap(declared, rules, "result"),
    };
    conform(&mut schema, rules);
    schema
}

/// `{"type":"object","properties":{"<name>":S},"required":["<name>"]}` with `S`'s definitions
/// hoisted to the wrapper's root, its `$schema`/`$id`/`title` dropped, and every reference into
/// `S` rewritten so the wrapper accepts `{"<name>": D}` exactly when `S` accepts `D`.
fn wrap(declared: &Value, rules: SchemaRules, name: &str) -> Value {
    let home = format!("#/properties/{name}");
    let (inner, hoisted, dialect) = nest(declared, &|fragment| format!("{home}{fragment}"));
    let mut wrapper = Map::new();
    if rules.dollar_schema != DollarSchema::Dropped
        && let Some(dialect) = dialect
    {
        wrapper.insert("$schema".into(), dialect);
    }
    wrapper.insert("type".into(), Value::String("object".into()));
    wrapper.insert("properties".into(), json!({ name: inner }));
    wrapper.insert("required".into(), json!([name]));
    // FastMCP-based clients unwrap `structuredContent.result` when the schema says so, and
    // then see the same data on every revision.
    wrapper.insert("x-fastmcp-wrap-result".into(), Value::Bool(true));
    wrapper.extend(hoisted);
    Value::Object(wrapper)
}

/// Prepares a declared schema for living inside another schema: returns the inner schema
/// (without `$schema`, `$id`, `title` and its definitions), the definitions to hoist to the new
/// root, and the declared `$schema`. References into the definitions keep their pointer (the
/// definitions move to the same place); `relocate` gives the new reference for every other
/// pointer into the declared root resource (`""` is the root itself).
pub(crate) fn nest(
    declared: &Value,
    relocate: &dyn Fn(&str) -> String,
) -> (Value, Map<String, Value>, Option<Value>) {
    let mut inner = declared.clone();
    let mut hoisted = Map::new();
    let mut dialect = None;
    // With the root's `$id` gone, every other URI in the root resource is made absolute
    // against it, so references between the document's resources still meet.
    let base = declared
        .get("$id")
        .and_then(Value::as_str)
        .and_then(|id| jsonschema::uri::from_str(id).ok());
    let ids = Ids {
        root: base.as_ref().map(|b| b.as_str().trim_end_matches('#').to_owned()),
        base: base.as_ref().map(|b| b.as_str().to_owned()),
    };
    if let Value::Object(object) = &mut inner {
        dialect = object.shift_remove("$schema");
        object.shift_remove("$id");
        object.shift_remove("title");
        for key in DEFINITIONS {
            if let Some(defs) = object.shift_remove(key) {
                hoisted.insert(key.to_owned(), defs);
            }
        }
    }
    let mut rewrite = |map: &mut Map<String, Value>, embedded: bool| {
        if embedded {
            if let Some(Value::String(id)) = map.get_mut("$id") {
                *id = ids.absolute(id);
            }
        } else {
            rewrite_refs(map, &ids, relocate);
        }
    };
    walk_root_resource(&mut inner, true, &mut rewrite);
    for defs in hoisted.values_mut() {
        if let Value::Object(defs) = defs {
            for def in defs.values_mut() {
                walk_root_resource(def, false, &mut rewrite);
            }
        }
    }
    if let Value::Bool(accept) = inner {
        inner = boolean_schema(accept);
    }
    (inner, hoisted, dialect)
}

/// The declared root's `$id`, when it has one.
struct Ids {
    /// The root's absolute URI without a fragment.
    root: Option<String>,
    /// The base every relative URI of the root resource resolves against.
    base: Option<String>,
}

impl Ids {
    /// `uri` resolved against the root's `$id` (unchanged without one, or when it cannot be).
    fn absolute(&self, uri: &str) -> String {
        let resolved = self.base.as_deref().and_then(|base| {
            let base = jsonschema::Uri::parse(base).ok()?;
            jsonschema::uri::resolve_against(&base, uri).ok()
        });
        resolved.map_or_else(|| uri.to_owned(), |u| u.as_str().to_owned())
    }
}

/// Rewrites the references of one schema object of the declared root resource: those into it
/// move with it, the others are made absolute.
fn rewrite_refs(map: &mut Map<String, Value>, ids: &Ids, relocate: &dyn Fn(&str) -> String) {
    for key in REF_KEYWORDS {
        let Some(Value::String(reference)) = map.get_mut(key) else {
            continue;
        };
        let (uri, fragment) = match reference.split_once('#') {
            Some((uri, fragment)) => (uri, fragment),
            None => (reference.as_str(), ""),
        };
        let target = if uri.is_empty() { None } else { Some(ids.absolute(uri)) };
        let local = match &target {
            None => true,
            Some(target) => ids.root.as_ref() == Some(target),
        };
        if !local {
            if let Some(target) = target {
                let rewritten =
                    if fragment.is_empty() { target } else { format!("{target}#{fragment}") };
                *reference = rewritten;
            }
            continue;
        }
        let into_definitions = DEFINITIONS
            .iter()
            .any(|d| fragment == format!("/{d}") || fragment.starts_with(&format!("/{d}/")));
        let rewritten = if into_definitions || (!fragment.is_empty() && !fragment.starts_with('/'))
        {
            // Definitions are hoisted to the same pointer; anchors travel with their schema.
            format!("#{fragment}")
        } else {
            relocate(fragment)
        };
        *reference = rewritten;
    }
}

/// Visits the schema objects that belong to the root resource (not inside an embedded resource
/// with its own `$id`, whose references resolve against that `$id`).
///
/// An embedded resource's own object is visited with `true` and not entered.
fn walk_root_resource(
    schema: &mut Value,
    is_root: bool,
    visit: &mut dyn FnMut(&mut Map<String, Value>, bool),
) {
    match schema {
        Value::Object(map) => {
            let own_id =
                map.get("$id").and_then(Value::as_str).is_some_and(|id| !id.starts_with('#'));
            if own_id && !is_root {
                visit(map, true);
                return;
            }
            visit(map, false);
            for (key, child) in map.iter_mut() {
                if !DATA_KEYWORDS.contains(&key.as_str()) {
                    walk_children(key, child, &mut |c| walk_root_resource(c, false, visit));
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                walk_root_resource(item, false, visit);
            }
        }
        _ => {}
    }
}

/// Calls `each` on the sub-schemas under one keyword (the values of a name→schema map, or the
/// value itself).
fn walk_children(key: &str, child: &mut Value, each: &mut dyn FnMut(&mut Value)) {
    let is_map = matches!(
        key,
        "properties"
            | "patternProperties"
            | "$defs"
            | "definitions"
            | "dependentSchemas"
            | "dependencies"
    );
    match child {
        Value::Object(map) if is_map => map.values_mut().for_each(each),
        other => each(other),
    }
}

/// Makes a schema follow `rules`: `$schema` only where [`SchemaRules::dollar_schema`] keeps it,
/// and boolean property schemas spelled out unless [`SchemaRules::boolean_properties`].
pub(crate) fn conform(schema: &mut Value, rules: SchemaRules) {
    let nested_dialects = rules.dollar_schema == DollarSchema::AsDeclared;
    if nested_dialects && rules.boolean_properties {
        return;
    }
    if let Value::Object(root) = schema
        && rules.dollar_schema == DollarSchema::Dropped
    {
        root.shift_remove("$schema");
    }
    every_object(schema, true, &mut |map, is_root| {
        if !is_root && !nested_dialects {
            map.shift_remove("$schema");
        }
        if rules.boolean_properties {
            return;
        }
        if let Some(Value::Object(properties)) = map.get_mut("properties") {
            for property in properties.values_mut() {
                if let Value::Bool(accept) = property {
                    *property = boolean_schema(*accept);
                }
            }
        }
    });
}

/// Visits every schema object, embedded resources included.
fn every_object(
    schema: &mut Value,
    is_root: bool,
    visit: &mut dyn FnMut(&mut Map<String, Value>, bool),
) {
    match schema {
        Value::Object(map) => {
            visit(map, is_root);
            for (key, child) in map.iter_mut() {
                if !DATA_KEYWORDS.contains(&key.as_str()) {
                    walk_children(key, child, &mut |c| every_object(c, false, visit));
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                every_object(item, false, visit);
            }
        }
        _ => {}
    }
}

/// `{}` for `true`, `{"not": {}}` for `false`.
pub(crate) fn boolean_schema(accept: bool) -> Value {
    if accept { json!({}) } else { json!({"not": {}}) }
}

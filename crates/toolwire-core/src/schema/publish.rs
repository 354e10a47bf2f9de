//! Publishing schemas per MCP revision: the `outputSchema` and `inputSchema` a `tools/list`
//! carries.
//!
//! What a revision takes is its row's [`SchemaRules`]: 2025-06-18 and 2025-11-25 only accept an
//! object root with object property schemas, so other roots are wrapped as `{"result": S}` and
//! boolean property schemas are spelled out; 2026-07-28 takes any JSON Schema as declared. The
//! published forms accept exactly what the declaration accepts (wrapped as `{"result": D}` where
//! the root is wrapped).
//!
//! [`print_with_raw_data`] publishes a declaration given as text with its bulky root members
//! (data arrays, `properties`) kept as text, so printing a large declaration never holds its
//! whole tree.

use std::collections::HashMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::walk::{self, DATA_KEYWORDS, REF_KEYWORDS, walk_mut};
use super::{SchemaError, Shape, declare};
use crate::revision::{DollarSchema, McpCaps, SchemaRules, StructuredCap};
use crate::target::McpRevision;

/// Where definitions live; hoisted to the wrapper's root.
const DEFINITIONS: [&str; 2] = ["$defs", "definitions"];

/// The tool's `inputSchema` for `revision`.
///
/// Follows the revision's [`SchemaRules`]: before 2026-07-28 boolean schemas under `properties`
/// become `{}` (true) or `{"not": {}}` (false), since those revisions' `Tool` definitions only
/// accept object property schemas, and `$schema` stays only at the root and only from
/// 2025-11-25; 2026-07-28 gets it as declared.
///
/// A tool without arguments publishes `{"type":"object","properties":{},"additionalProperties":false}`
/// (strict-schema converters refuse a bare `{"type":"object"}`), and `format` values JSON Schema
/// does not define are dropped.
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

/// What a placeholder for a root member kept as text starts with, followed by its index; no
/// declaration that takes the placeholder path has a string containing it.
const PLACEHOLDER: &str = "\u{0}toolwire raw member ";
/// The placeholder as serde_json writes it, without its index and closing quote.
const PLACEHOLDER_WRITTEN: &str = "\"\\u0000toolwire raw member ";

/// A root member of a declaration kept as text by [`print_with_raw_data`].
enum Held<'a> {
    /// An array of data (`enum`, `const`, `default`, `examples`): checked as `[]`, printed as
    /// its compact text.
    Data(&'a RawValue),
    /// The root's `properties`: each schema is read, checked and printed on its own.
    Properties(Vec<(String, &'a RawValue)>),
}

/// The placeholder path of [`super::ToolOutput::publish_declaration_text`]; `None` where the
/// tree path decides.
///
/// The root's data arrays and `properties` stand as `[]` and `{}` while the rest of the root
/// is checked like any declaration; each property schema is then checked alone (the
/// meta-schema of every draft judges a property schema as a schema of its own) and every
/// reference is followed into the schema it names. The root is published with placeholders,
/// replaced by the arrays' compact text and by each property schema as publishing makes it.
/// Publishing moves `properties` as it stands (under `result` in a wrapped root, under the
/// envelope's `data`) and changes a property schema only through [`conform`],
/// [`drop_nonstandard_formats`] and, where the root does not stay in place, the rewriting of
/// its references ([`Moved`]); a reference to the root itself there takes the tree path (the
/// envelope publishes a copy of the root for it).
pub(crate) fn print_with_raw_data(
    text: &str,
    shape: Shape,
    revision: Option<McpRevision>,
) -> Option<Result<String, SchemaError>> {
    let members = crate::parse::raw_members(text)?;
    if members.iter().any(|(key, _)| key == "outputs") {
        return None;
    }
    let mut root = Map::new();
    let mut held: Vec<(String, Held<'_>)> = Vec::new();
    for (key, raw) in members {
        let value = if DATA_KEYWORDS.contains(&key.as_str()) && raw.get().starts_with('[') {
            held.push((key.clone(), Held::Data(raw)));
            Value::Array(Vec::new())
        } else if key == "properties" && raw.get().starts_with('{') {
            held.push((key.clone(), Held::Properties(schema_members(raw)?)));
            Value::Object(Map::new())
        } else {
            serde_json::from_str(raw.get()).ok()?
        };
        root.insert(key, value);
    }
    if held.is_empty() {
        return None;
    }
    let mut schema = declare::data_schema_owned(Value::Object(root)).ok()??;
    let draft = declare::draft_of(&schema).ok()?;
    let rules = revision.map(|revision| McpCaps::of(revision).schemas);
    let in_place = match rules {
        None => true,
        Some(rules) => {
            rules.output_schema == StructuredCap::Never
                || (shape != Shape::Envelope
                    && (rules.output_schema == StructuredCap::Any
                        || super::root_is_object(&schema)))
        }
    };
    let Unseen { passes, references_in_properties } = passes_unseen(&schema, draft, &held)?;
    if !passes || mentions(&schema, PLACEHOLDER) {
        return None;
    }
    // Everything before it passed, as registration checks it first.
    if shape == Shape::Envelope && !super::root_is_object(&schema) {
        return Some(Err(SchemaError::EnvelopeRootNotObject));
    }
    if let Value::Object(root) = &mut schema {
        for (index, (key, _)) in held.iter().enumerate() {
            root.insert(key.clone(), Value::String(format!("{PLACEHOLDER}{index}")));
        }
    }
    let mut moved = match rules {
        Some(rules) if references_in_properties && !in_place => {
            Some(Moved { shape, rules, known: HashMap::new() })
        }
        _ => None,
    };
    let form = match rules {
        None => schema,
        Some(rules) if rules.output_schema != StructuredCap::Never => {
            super::publish_form(schema, shape, rules)
        }
        // Nothing is published, so no array is written out; each must still be text the tree
        // path reads (a `RawValue` lets a lone surrogate escape such as `"\ud800"` through).
        Some(_) => {
            let readable = held.iter().all(|(_, held)| match held {
                Held::Data(raw) => crate::data::canonical(raw.get()).is_ok(),
                Held::Properties(_) => true,
            });
            return readable.then(|| Ok(Value::Null.to_string()));
        }
    };
    splice(&form.to_string(), &held, rules, moved.as_mut()).map(Ok)
}

/// How the references of property schemas are written where publishing moves the root (a
/// wrapped root, the envelope). Each is learnt by publishing a root whose one property schema
/// holds only that reference, so the code that rewrites the tree's references rewrites it too:
/// on this path the document has no identifiers, so a reference's new text depends on its text
/// alone.
struct Moved {
    shape: Shape,
    rules: SchemaRules,
    /// The rewritten form of every reference met so far.
    known: HashMap<String, String>,
}

impl Moved {
    /// `reference` as publishing rewrites it; `None` for a reference to the root itself.
    fn rewritten(&mut self, reference: &str) -> Option<String> {
        if reference == "#" {
            return None;
        }
        if let Some(done) = self.known.get(reference) {
            return Some(done.clone());
        }
        let mut probe = Map::new();
        if self.shape == Shape::Envelope {
            probe.insert("type".into(), Value::String("object".into()));
        }
        probe.insert("properties".into(), json!({"p": {"$ref": reference}}));
        let form = super::publish_form(Value::Object(probe), self.shape, self.rules);
        let mut found = None;
        walk::walk(&form, true, &mut |node| {
            if found.is_none() {
                found = node.object.get("$ref").and_then(Value::as_str).map(str::to_owned);
            }
            found.is_none()
        });
        let rewritten = found?;
        self.known.insert(reference.to_owned(), rewritten.clone());
        Some(rewritten)
    }

    /// Rewrites every reference of one property schema; `None` where one cannot be.
    fn rewrite(&mut self, property: &mut Value) -> Option<()> {
        let mut fine = true;
        walk_mut(property, false, &|_, _| true, &mut |map, _| {
            if let Some(Value::String(reference)) = map.get_mut("$ref").filter(|_| fine) {
                match self.rewritten(reference) {
                    Some(rewritten) => *reference = rewritten,
                    None => fine = false,
                }
            }
        });
        fine.then_some(())
    }
}

/// The members of a JSON object as raw text, in order; `None` when a name repeats (the tree
/// keeps the last value at the first position, which the tree path reproduces).
fn schema_members(raw: &RawValue) -> Option<Vec<(String, &RawValue)>> {
    let members: Vec<(String, &RawValue)> = serde_json::from_str::<Members<'_>>(raw.get()).ok()?.0;
    let mut names = std::collections::HashSet::with_capacity(members.len());
    members.iter().all(|(name, _)| names.insert(name.as_str())).then_some(members)
}

/// The members of a JSON object in order, repeats included.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry::<String, &'de RawValue>()? {
                    members.push(member);
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// What [`passes_unseen`] found.
struct Unseen {
    /// Whether every check passed (else the tree, or a compiled validator, has to answer).
    passes: bool,
    /// Whether a property schema holds a `$ref`.
    references_in_properties: bool,
}

/// The checks of [`super::ToolOutput::publish_declaration`] before the envelope's, on a root
/// whose held members stand as `[]` and `{}` and on each held property schema.
fn passes_unseen(
    root: &Value,
    draft: jsonschema::Draft,
    held: &[(String, Held<'_>)],
) -> Option<Unseen> {
    let fails = Unseen { passes: false, references_in_properties: false };
    let mut references = Vec::new();
    if !declare::meta_valid(root, draft)
        || !declare::local_checks(root, true, draft, &mut references)
    {
        return Some(fails);
    }
    let at_root = references.len();
    let properties = held.iter().find_map(|(_, held)| match held {
        Held::Properties(members) => Some(members.as_slice()),
        Held::Data(_) => None,
    });
    for (_, raw) in properties.unwrap_or_default() {
        let property: Value = serde_json::from_str(raw.get()).ok()?;
        if !declare::meta_valid(&property, draft)
            || !declare::local_checks(&property, false, draft, &mut references)
        {
            return Some(fails);
        }
    }
    let by_name: HashMap<&str, &RawValue> =
        properties.unwrap_or_default().iter().map(|(name, raw)| (name.as_str(), *raw)).collect();
    let references_in_properties = references.len() > at_root;
    if !declare::root_id_settled(root, draft, !references.is_empty()) {
        return Some(fails);
    }
    references.sort_unstable();
    references.dedup();
    for pointer in &references {
        let compiles = match (properties, pointer.strip_prefix("/properties/")) {
            (Some(_), Some(rest)) => {
                let (name, inner) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
                let name = name.replace("~1", "/").replace("~0", "~");
                let Some(raw) = by_name.get(name.as_str()) else {
                    return Some(fails);
                };
                let property: Value = serde_json::from_str(raw.get()).ok()?;
                let walked = declare::reaches(&property, false, inner);
                declare::target_compiles(property.pointer(inner), walked, draft)
            }
            _ => {
                let walked = declare::reaches(root, true, pointer);
                declare::target_compiles(root.pointer(pointer), walked, draft)
            }
        };
        if !compiles {
            return Some(fails);
        }
    }
    Some(Unseen { passes: true, references_in_properties })
}

/// Whether a key or a string anywhere in `value` contains `needle`.
fn mentions(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(text) => text.contains(needle),
        Value::Array(items) => items.iter().any(|item| mentions(item, needle)),
        Value::Object(map) => map.iter().any(|(k, v)| k.contains(needle) || mentions(v, needle)),
        _ => false,
    }
}

/// `printed` with every written placeholder replaced by the text of the member it stands for
/// (see [`Held`]); `None` where that text needs the tree path (see [`crate::data::canonical`]).
fn splice(
    printed: &str,
    held: &[(String, Held<'_>)],
    rules: Option<SchemaRules>,
    mut moved: Option<&mut Moved>,
) -> Option<String> {
    let mut out = String::with_capacity(printed.len());
    let mut rest = printed;
    while let Some(at) = rest.find(PLACEHOLDER_WRITTEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + PLACEHOLDER_WRITTEN.len()..];
        let end = after.find('"')?;
        match &held.get(after[..end].parse::<usize>().ok()?)?.1 {
            Held::Data(raw) => out.push_str(&crate::data::canonical(raw.get()).ok()?),
            Held::Properties(members) => {
                out.push('{');
                for (index, (name, raw)) in members.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(name).ok()?);
                    out.push(':');
                    let property = publish_property(raw, rules, moved.as_deref_mut())?;
                    out.push_str(&property.to_string());
                }
                out.push('}');
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// One schema of the root's `properties` as publishing under `rules` makes it (as declared
/// without rules), its references rewritten by `moved` where the root moves.
fn publish_property(
    raw: &RawValue,
    rules: Option<SchemaRules>,
    moved: Option<&mut Moved>,
) -> Option<Value> {
    let mut property: Value = serde_json::from_str(raw.get()).ok()?;
    if let Some(moved) = moved {
        moved.rewrite(&mut property)?;
    }
    let Some(rules) = rules else { return Some(property) };
    match property {
        Value::Bool(accept) if !rules.boolean_properties => property = boolean_schema(accept),
        _ => conform_at(&mut property, rules, false),
    }
    drop_nonstandard_formats(&mut property);
    Some(property)
}

/// Drops every `format` whose value JSON Schema does not define (schemars writes `uint64`,
/// `double`, `int32`, …, which validators warn about on every connect). The value bounds a
/// format like `uint64` stands for are kept by the schema's own `minimum`/`maximum`, if any;
/// validation against the declared schema is unchanged.
pub(crate) fn drop_nonstandard_formats(schema: &mut Value) {
    walk_mut(schema, true, &|_, _| true, &mut |map, _| {
        let standard =
            |format: &Value| format.as_str().is_some_and(|f| STANDARD_FORMATS.contains(&f));
        if map.get("format").is_some_and(|format| !standard(format)) {
            map.shift_remove("format");
        }
    });
}

/// The data shape's `outputSchema` under `rules` (of a revision that publishes one) of a
/// declared schema.
pub(crate) fn publish_output_schema(declared: Value, rules: SchemaRules) -> Value {
    let mut schema = match rules.output_schema {
        // As declared; a boolean root (only `false` gets here) is spelled out because `Tool`
        // needs an object.
        StructuredCap::Any => match declared {
            Value::Bool(accept) => boolean_schema(accept),
            other => other,
        },
        StructuredCap::ObjectOnly | StructuredCap::Never if super::root_is_object(&declared) => {
            declared
        }
        StructuredCap::ObjectOnly | StructuredCap::Never => wrap(&declared, rules, "result"),
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
    let mut rewrite = |map: &mut Map<String, Value>, is_root: bool| {
        if !stays_in_root_resource(map, is_root) {
            if let Some(Value::String(id)) = map.get_mut("$id") {
                *id = ids.absolute(id);
            }
        } else {
            rewrite_refs(map, &ids, relocate);
        }
    };
    walk_mut(&mut inner, true, &stays_in_root_resource, &mut rewrite);
    for defs in hoisted.values_mut() {
        if let Value::Object(defs) = defs {
            for def in defs.values_mut() {
                walk_mut(def, false, &stays_in_root_resource, &mut rewrite);
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

/// Whether a schema object belongs to the declared root resource: not an embedded resource
/// with its own `$id` (whose references resolve against that `$id`; its own object is visited,
/// not entered).
fn stays_in_root_resource(map: &Map<String, Value>, is_root: bool) -> bool {
    is_root || map.get("$id").and_then(Value::as_str).is_none_or(|id| id.starts_with('#'))
}

/// Makes a schema follow `rules`: `$schema` only where [`SchemaRules::dollar_schema`] keeps it,
/// and boolean property schemas spelled out unless [`SchemaRules::boolean_properties`].
pub(crate) fn conform(schema: &mut Value, rules: SchemaRules) {
    conform_at(schema, rules, true);
}

/// [`conform`] of a document root, or of a schema inside one when `is_root` is false.
fn conform_at(schema: &mut Value, rules: SchemaRules, is_root: bool) {
    let nested_dialects = rules.dollar_schema == DollarSchema::AsDeclared;
    if nested_dialects && rules.boolean_properties {
        return;
    }
    if let Value::Object(root) = schema
        && is_root
        && rules.dollar_schema == DollarSchema::Dropped
    {
        root.shift_remove("$schema");
    }
    walk_mut(schema, is_root, &|_, _| true, &mut |map, is_root| {
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

/// `{}` for `true`, `{"not": {}}` for `false`.
pub(crate) fn boolean_schema(accept: bool) -> Value {
    if accept { json!({}) } else { json!({"not": {}}) }
}

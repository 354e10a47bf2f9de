//! An OpenAPI schema made into a self-contained JSON Schema for one tool: every local `$ref`
//! (`#/components/schemas/Node`) is copied into the tool's own `$defs` and pointed there
//! (`#/$defs/Node`), so a recursive model stays a reference and is never unrolled, and nothing
//! points at `#/components/…` any more. 3.0's dialect becomes JSON Schema 2020-12 on the way:
//! `nullable` a type union, boolean `exclusiveMinimum`/`exclusiveMaximum` numbers, `example` an
//! `examples` array; OpenAPI-only keywords (`discriminator`, `xml`, `externalDocs`, `x-…`)
//! are dropped. The work is bounded per tool and per document, so a hostile document costs at
//! most a fixed amount of time and memory.

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value};

use super::document::{Document, Version};

/// The most JSON values one tool's schemas (its `$defs` included) may copy.
pub const TOOL_BUDGET: usize = 50_000;

/// Keywords whose value is one schema.
const ONE: &[&str] = &[
    "not",
    "additionalProperties",
    "additionalItems",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
    "items",
];

/// Keywords whose value is an array of schemas.
const MANY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value is an object of schemas.
const NAMED: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

/// Keywords OpenAPI adds to JSON Schema, which no MCP client reads.
const DROPPED: &[&str] = &["discriminator", "xml", "externalDocs"];

/// The other keywords of JSON Schema (2020-12 and the drafts OpenAPI 3.0 borrows from), copied
/// as they are. A key none of them names validates nothing, and what it holds is not converted:
/// a `$ref` in it would still point into the document, which the client does not have. It is
/// dropped.
const COPIED: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$recursiveRef",
    "$recursiveAnchor",
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "dependencies",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "format",
    "contentEncoding",
    "contentMediaType",
];

/// Why a schema could not be converted: where (a JSON pointer in the document) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at {pointer}: {message}")]
pub struct SchemaError {
    /// Where in the document.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

/// The schemas of one tool, sharing one `$defs`.
pub struct Defs<'d> {
    doc: &'d Document,
    /// Each reference seen, and the name of its definition.
    names: HashMap<String, String>,
    taken: BTreeSet<String>,
    defs: Map<String, Value>,
    /// References named but not converted yet.
    pending: Vec<(String, String)>,
    /// JSON values this tool may still copy.
    budget: usize,
    /// What it could copy at first, for the message when it runs out.
    limit: usize,
}

impl<'d> Defs<'d> {
    /// Definitions of schemas of `doc`, copying at most `budget` values of the tool's `limit`
    /// (what the message names when the budget runs out).
    pub fn new(doc: &'d Document, budget: usize, limit: usize) -> Self {
        Self {
            doc,
            names: HashMap::new(),
            taken: BTreeSet::new(),
            defs: Map::new(),
            pending: Vec::new(),
            budget,
            limit,
        }
    }

    /// `schema` (found at `pointer`) converted, its references named in this tool's `$defs`.
    pub fn convert(&mut self, schema: &Value, pointer: &str) -> Result<Value, SchemaError> {
        let mut at = pointer.to_owned();
        self.node(schema, &mut at)
    }

    /// What is left of the budget.
    pub fn left(&self) -> usize {
        self.budget
    }

    /// Converts every referenced definition (and what they reference) and puts them under the
    /// `$defs` of `root`, the tool's top schema; also returns what is left of the budget.
    pub fn finish(
        mut self,
        mut root: Map<String, Value>,
    ) -> Result<(Map<String, Value>, usize), SchemaError> {
        while let Some((reference, name)) = self.pending.pop() {
            let target = self
                .doc
                .lookup(&reference)
                .map_err(|message| SchemaError { pointer: reference.clone(), message })?;
            let mut at = reference.trim_start_matches('#').to_owned();
            let converted = self.node(target, &mut at)?;
            self.defs.insert(name, converted);
        }
        if !self.defs.is_empty() {
            root.insert("$defs".into(), Value::Object(self.defs));
        }
        Ok((root, self.budget))
    }

    fn spend(&mut self, values: usize, at: &str) -> Result<(), SchemaError> {
        let limit = self.limit;
        self.budget = self.budget.checked_sub(values).ok_or_else(|| SchemaError {
            pointer: at.to_owned(),
            message: format!(
                "the schemas of this operation copy more than {limit} values (its models are too large to publish)"
            ),
        })?;
        Ok(())
    }

    /// The `$defs` name of a local reference, named on first sight.
    fn def_name(&mut self, reference: &str) -> String {
        if let Some(name) = self.names.get(reference) {
            return name.clone();
        }
        let last = reference.rsplit('/').next().unwrap_or_default();
        let last = last.replace("~1", "/").replace("~0", "~");
        let base: String = last
            .chars()
            .map(
                |c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') { c } else { '_' },
            )
            .collect();
        let base = if base.is_empty() { "def".to_owned() } else { base };
        let mut name = base.clone();
        let mut n = 2;
        while self.taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        self.names.insert(reference.to_owned(), name.clone());
        self.pending.push((reference.to_owned(), name.clone()));
        name
    }

    fn node(&mut self, schema: &Value, at: &mut String) -> Result<Value, SchemaError> {
        self.spend(1, at)?;
        let object = match schema {
            Value::Object(object) => object,
            Value::Bool(_) if self.doc.version() == Version::V31 => return Ok(schema.clone()),
            other => {
                return Err(SchemaError {
                    pointer: at.clone(),
                    message: format!(
                        "a schema must be an object, found {}",
                        toolwire_core::json_kind::kind_of(other)
                    ),
                });
            }
        };
        let v30 = self.doc.version() == Version::V30;
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            let pointer = super::document::local_pointer(reference)
                .map_err(|message| SchemaError { pointer: format!("{at}/$ref"), message })?;
            let name = self.def_name(&format!("#{pointer}"));
            let target = Value::String(format!("#/$defs/{}", super::document::escape_token(&name)));
            // 3.0 ignores a reference's siblings; 3.1 reads them beside it.
            if v30 {
                return Ok(nullable_in_30(Map::from_iter([("$ref".into(), target)]), object));
            }
            let mut out = self.keywords(object, at, v30)?;
            out.insert("$ref".into(), target);
            return Ok(Value::Object(out));
        }
        let out = self.keywords(object, at, v30)?;
        Ok(if v30 { nullable_in_30(out, object) } else { Value::Object(out) })
    }

    /// Every keyword of a schema object but `$ref`, converted.
    fn keywords(
        &mut self,
        object: &Map<String, Value>,
        at: &mut String,
        v30: bool,
    ) -> Result<Map<String, Value>, SchemaError> {
        let mut out = Map::new();
        for (key, value) in object {
            let mark = at.len();
            at.push('/');
            at.push_str(&super::document::escape_token(key));
            let key = key.as_str();
            match key {
                "$ref" | "nullable" if v30 || key == "$ref" => {}
                _ if key.starts_with("x-") || DROPPED.contains(&key) => {}
                // Beside `examples`, `example` is dropped with the keys no draft has.
                "example" if !object.contains_key("examples") => {
                    self.spend(weight(value), at)?;
                    out.insert("examples".into(), Value::Array(vec![value.clone()]));
                }
                "examples" if v30 => {}
                "exclusiveMinimum" | "exclusiveMaximum" if value.is_boolean() => {
                    let bound = if key == "exclusiveMinimum" { "minimum" } else { "maximum" };
                    if value == &Value::Bool(true)
                        && let Some(limit) = object.get(bound)
                    {
                        out.insert(key.into(), limit.clone());
                    }
                }
                "minimum" | "maximum"
                    if object.get(if key == "minimum" {
                        "exclusiveMinimum"
                    } else {
                        "exclusiveMaximum"
                    }) == Some(&Value::Bool(true)) => {}
                _ if ONE.contains(&key) && (value.is_object() || value.is_boolean()) => {
                    let converted = match value {
                        Value::Bool(b) => Value::Bool(*b),
                        _ => self.node(value, at)?,
                    };
                    out.insert(key.into(), converted);
                }
                _ if MANY.contains(&key) || (key == "items" && value.is_array()) => {
                    let Value::Array(items) = value else {
                        return Err(not_a(at, "an array of schemas"));
                    };
                    let mut converted = Vec::with_capacity(items.len());
                    for (i, item) in items.iter().enumerate() {
                        let mark = at.len();
                        at.push_str(&format!("/{i}"));
                        converted.push(self.node(item, at)?);
                        at.truncate(mark);
                    }
                    // Draft 4's tuple `items` is 2020-12's `prefixItems`.
                    let key = if key == "items" { "prefixItems" } else { key };
                    out.insert(key.into(), Value::Array(converted));
                }
                _ if NAMED.contains(&key) || key == "$defs" || key == "definitions" => {
                    let Value::Object(named) = value else {
                        return Err(not_a(at, "an object of schemas"));
                    };
                    let mut converted = Map::new();
                    for (name, item) in named {
                        let mark = at.len();
                        at.push('/');
                        at.push_str(&super::document::escape_token(name));
                        converted.insert(name.clone(), self.node(item, at)?);
                        at.truncate(mark);
                    }
                    out.insert(key.into(), Value::Object(converted));
                }
                _ if COPIED.contains(&key) => {
                    self.spend(weight(value), at)?;
                    out.insert(key.into(), value.clone());
                }
                _ => {}
            }
            at.truncate(mark);
        }
        Ok(out)
    }
}

fn not_a(at: &str, what: &str) -> SchemaError {
    SchemaError { pointer: at.to_owned(), message: format!("must be {what}") }
}

/// 3.0's `nullable: true` as JSON Schema: `null` added to the type (and to an `enum`), or, for a
/// schema without a type (a reference, a composition), the schema or `null`.
fn nullable_in_30(mut out: Map<String, Value>, original: &Map<String, Value>) -> Value {
    if original.get("nullable") != Some(&Value::Bool(true)) {
        return Value::Object(out);
    }
    if let Some(Value::Array(values)) = out.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    match out.get_mut("type") {
        Some(Value::String(single)) => {
            let single = std::mem::take(single);
            out.insert("type".into(), Value::Array(vec![Value::String(single), "null".into()]));
            Value::Object(out)
        }
        Some(Value::Array(types)) => {
            if !types.contains(&Value::from("null")) {
                types.push("null".into());
            }
            Value::Object(out)
        }
        _ => serde_json::json!({"anyOf": [Value::Object(out), {"type": "null"}]}),
    }
}

/// How many JSON values `value` holds (iteratively: a copied `enum` or `default` counts too).
fn weight(value: &Value) -> usize {
    let mut stack = vec![value];
    let mut count = 0;
    while let Some(value) = stack.pop() {
        count += 1;
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn doc(version: &str, schemas: Value) -> Document {
        let text = json!({"openapi": version, "paths": {}, "components": {"schemas": schemas}});
        Document::parse(text.to_string().as_bytes()).unwrap_or_else(|e| panic!("{e}"))
    }

    fn tool_schema(doc: &Document, schema: Value) -> Result<Value, SchemaError> {
        let mut defs = Defs::new(doc, TOOL_BUDGET, TOOL_BUDGET);
        let converted = defs.convert(&schema, "/paths/~1x/get")?;
        let Value::Object(root) = converted else { panic!("not an object: {converted}") };
        defs.finish(root).map(|(schema, _)| Value::Object(schema))
    }

    #[test]
    fn recursive_models_stay_references_into_defs() {
        let doc = doc(
            "3.1.0",
            json!({
                "Node": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
                    "owner": {"$ref": "#/components/schemas/User", "description": "who"}
                }},
                "User": {"type": "object", "properties": {"id": {"type": "integer"}}},
                "Unused": {"type": "string"}
            }),
        );
        let converted = tool_schema(&doc, json!({"$ref": "#/components/schemas/Node"}));
        assert_eq!(
            converted,
            Ok(json!({
                "$ref": "#/$defs/Node",
                "$defs": {
                    "Node": {"type": "object", "properties": {
                        "name": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                        "owner": {"$ref": "#/$defs/User", "description": "who"}
                    }},
                    "User": {"type": "object", "properties": {"id": {"type": "integer"}}}
                }
            }))
        );
    }

    #[test]
    fn openapi_30_becomes_json_schema() {
        let doc = doc(
            "3.0.3",
            json!({
                "Pet": {"type": "object", "nullable": true, "discriminator": {"propertyName": "kind"},
                        "xml": {"name": "pet"}, "x-internal": true, "example": {"kind": "cat"},
                        "propertes": {"misspelt": {"$ref": "#/components/schemas/Tag"}},
                        "properties": {
                            "kind": {"type": "string", "enum": ["cat", "dog"], "nullable": true},
                            "age": {"type": "integer", "minimum": 0, "exclusiveMinimum": true,
                                    "maximum": 30, "exclusiveMaximum": false},
                            "tag": {"allOf": [{"$ref": "#/components/schemas/Tag"}], "nullable": true}
                        }},
                "Tag": {"type": "string", "format": "int64"}
            }),
        );
        let converted = tool_schema(
            &doc,
            json!({"type": "object", "properties": {
                "pet": {"$ref": "#/components/schemas/Pet", "description": "ignored in 3.0"}
            }}),
        );
        assert_eq!(
            converted,
            Ok(json!({
                "type": "object",
                "properties": {"pet": {"$ref": "#/$defs/Pet"}},
                "$defs": {
                    "Pet": {"type": ["object", "null"], "examples": [{"kind": "cat"}],
                            "properties": {
                                "kind": {"type": ["string", "null"], "enum": ["cat", "dog", null]},
                                "age": {"type": "integer", "exclusiveMinimum": 0, "maximum": 30},
                                "tag": {"anyOf": [{"allOf": [{"$ref": "#/$defs/Tag"}]}, {"type": "null"}]}
                            }},
                    "Tag": {"type": "string", "format": "int64"}
                }
            }))
        );
    }

    #[test]
    fn names_are_sanitized_and_unique() {
        let doc = doc(
            "3.1.0",
            json!({"a b": {"type": "string"}, "a_b": {"type": "integer"}, "x/y": {"type": "null"}}),
        );
        let converted = tool_schema(
            &doc,
            json!({"type": "object", "properties": {
                "one": {"$ref": "#/components/schemas/a b"},
                "two": {"$ref": "#/components/schemas/a_b"},
                "three": {"$ref": "#/components/schemas/x~1y"}
            }}),
        );
        let converted = converted.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(converted.pointer("/properties/one/$ref"), Some(&json!("#/$defs/a_b")));
        assert_eq!(converted.pointer("/properties/two/$ref"), Some(&json!("#/$defs/a_b_2")));
        assert_eq!(converted.pointer("/properties/three/$ref"), Some(&json!("#/$defs/x_y")));
        assert_eq!(converted.pointer("/$defs/a_b_2"), Some(&json!({"type": "integer"})));
    }

    #[test]
    fn what_cannot_be_converted_is_located() {
        let doc = doc("3.0.0", json!({"A": {"type": "object", "properties": {"b": 5}}}));
        assert_eq!(
            tool_schema(&doc, json!({"$ref": "#/components/schemas/A"})).map_err(|e| e.to_string()),
            Err(
                "at /components/schemas/A/properties/b: a schema must be an object, found a number"
                    .into()
            )
        );
        assert_eq!(
            tool_schema(
                &doc,
                json!({"type": "object", "properties": {"c": {"$ref": "#/components/schemas/Z"}}})
            )
            .map_err(|e| e.to_string()),
            Err("at #/components/schemas/Z: `#/components/schemas/Z` points at nothing".into())
        );
        assert_eq!(
            tool_schema(&doc, json!({"type": "object", "properties": {"c": {"$ref": "common.yaml#/X"}}}))
                .map_err(|e| e.to_string()),
            Err("at /paths/~1x/get/properties/c/$ref: `common.yaml#/X` refers to another document; toolwire follows only references inside the document (#/…)".into())
        );
    }

    #[test]
    fn the_budget_bounds_what_a_tool_copies() {
        let huge: Vec<Value> = (0..TOOL_BUDGET).map(|i| json!(i)).collect();
        let doc = doc("3.1.0", json!({"Big": {"enum": huge}}));
        let error = tool_schema(&doc, json!({"$ref": "#/components/schemas/Big"}));
        assert_eq!(
            error.map_err(|e| e.to_string()),
            Err(format!(
                "at /components/schemas/Big/enum: the schemas of this operation copy more than {TOOL_BUDGET} values (its models are too large to publish)"
            ))
        );
    }
}

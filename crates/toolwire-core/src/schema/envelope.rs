//! The envelope shape: `structuredContent` is `{"success", "message", "data"}` (plus
//! `input_schema` after an `invalid_arguments` failure), for bridges whose clients expect that
//! envelope, and its published schema.
//!
//! The declared outputs become `data.properties`; the required outputs (and any other constraint
//! of the declared data schema) bind only a success through `if`/`then`, so a failure carrying
//! `data: {}` still validates.

use std::cell::Cell;

use serde_json::{Map, Value, json};

use super::publish::{self, nest};
use crate::form::EnvelopeStructured;
use crate::result::ToolResult;
use crate::revision::{DollarSchema, SchemaRules};

/// Where a copy of the whole declared data schema goes when the schema refers to its own root.
const ROOT_COPY: &str = "toolwire_data";
/// Keywords that stay on the envelope's `data` (they hold for failures too, which carry `{}`).
const DATA_PART: [&str; 3] = ["type", "properties", "description"];

/// The envelope's `structuredContent` for a result as a JSON value: `message` is the summary on
/// success (`""` when none) and the error message on failure; `data` is the data on success and
/// `{}` on failure or without data; `input_schema` (the tool's published input schema) is added
/// when the failure code is `invalid_arguments` and one is given. The same shape the MCP lowering
/// writes ([`EnvelopeStructured`]), as a value.
pub fn envelope_structured(result: &ToolResult, input_schema: Option<&Value>) -> Value {
    // Serializing a shape of strings, booleans and JSON values cannot fail.
    serde_json::to_value(EnvelopeStructured::new(
        result,
        result.data.as_ref().map(crate::data::Data::raw),
        input_schema,
    ))
    .unwrap_or(Value::Null)
}

/// The published envelope schema under `rules` for a declared data schema whose root is an
/// object.
pub(crate) fn publish(declared: &Value, rules: SchemaRules) -> Value {
    let root_copied = Cell::new(false);
    let relocate = |fragment: &str| {
        if fragment.is_empty() {
            root_copied.set(true);
            format!("#/$defs/{ROOT_COPY}")
        } else if fragment == "/properties" || fragment.starts_with("/properties/") {
            format!("#/properties/data{fragment}")
        } else {
            format!("#/then/properties/data{fragment}")
        }
    };
    let (inner, mut hoisted, dialect) = nest(declared, &relocate);
    let mut data = Map::new();
    let mut binding = Map::new();
    if let Value::Object(inner) = &inner {
        for (key, value) in inner {
            if DATA_PART.contains(&key.as_str()) {
                data.insert(key.clone(), value.clone());
            } else {
                binding.insert(key.clone(), value.clone());
            }
        }
        // Keywords such as `additionalProperties` read their siblings: beyond a bare
        // `required`, a success is held to the whole declared schema.
        if binding.keys().any(|key| key != "required") {
            binding = inner.clone();
        }
    }
    data.insert("type".into(), Value::String("object".into()));
    data.entry("properties").or_insert_with(|| Value::Object(Map::new()));

    let mut schema = Map::new();
    if rules.dollar_schema != DollarSchema::Dropped
        && let Some(dialect) = dialect
    {
        schema.insert("$schema".into(), dialect);
    }
    schema.insert("type".into(), Value::String("object".into()));
    schema.insert(
        "properties".into(),
        json!({
            "success": {"type": "boolean"},
            "message": {"type": "string"},
            "data": Value::Object(data),
            "input_schema": {"type": "object"},
        }),
    );
    schema.insert("required".into(), json!(["success", "message", "data"]));
    if !binding.is_empty() {
        schema.insert("if".into(), json!({"properties": {"success": {"const": true}}}));
        schema.insert("then".into(), json!({"properties": {"data": Value::Object(binding)}}));
    }
    if root_copied.get() {
        let defs = hoisted.entry("$defs").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(defs) = defs {
            defs.insert(ROOT_COPY.into(), inner);
        }
    }
    schema.extend(hoisted);
    let mut schema = Value::Object(schema);
    publish::conform(&mut schema, rules);
    schema
}

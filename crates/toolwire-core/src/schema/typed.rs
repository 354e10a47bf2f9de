//! The typed output document `{"outputs": {"<name>": <definition>}}` (the form gateway configs
//! use) and its translation to JSON Schema.
//!
//! A definition is `{"type": "string" | "integer" | "number" | "boolean" | "list" | "map" |
//! "entity", "description"?, "required"? (default false), "items" (list), "fields" (map),
//! "entityType" (entity)}`. An entity travels as a handle string `"<entityType>:<id>"`. A key
//! that does not belong to the definition's type is refused rather than ignored, so a typo never
//! silently loosens the schema.

use serde_json::{Map, Value};

use super::SchemaError;
use crate::pointer;

/// Whether a declaration is a typed output document (a root object with the key `outputs`).
pub(crate) fn is_typed(doc: &Value) -> bool {
    doc.as_object().is_some_and(|o| o.contains_key("outputs"))
}

/// The JSON Schema of a typed document; `None` for `{"outputs": {}}` (no declared outputs).
pub(crate) fn to_schema(doc: &Value) -> Result<Option<Value>, SchemaError> {
    let Some(root) = doc.as_object() else {
        return Err(typed_error("", "a typed output document must be an object"));
    };
    if let Some(key) = root.keys().find(|k| *k != "outputs") {
        return Err(typed_error(
            "",
            format!("unknown key `{key}`; a typed output document has only `outputs`"),
        ));
    }
    let Some(outputs) = root.get("outputs").and_then(Value::as_object) else {
        return Err(typed_error("/outputs", "`outputs` must be an object of named definitions"));
    };
    if outputs.is_empty() {
        return Ok(None);
    }
    Ok(Some(object_schema(outputs, "/outputs")?))
}

/// `{"type":"object","properties":{…},"required":[…]}` for named definitions (no `required`
/// key when nothing is required).
fn object_schema(fields: &Map<String, Value>, at: &str) -> Result<Value, SchemaError> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, definition) in fields {
        let here = pointer::push(at, name);
        let (schema, is_required) = definition_schema(definition, &here)?;
        properties.insert(name.clone(), schema);
        if is_required {
            required.push(Value::String(name.clone()));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), Value::String("object".into()));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    Ok(Value::Object(schema))
}

/// One definition's schema and whether it is required.
fn definition_schema(definition: &Value, at: &str) -> Result<(Value, bool), SchemaError> {
    let Some(def) = definition.as_object() else {
        return Err(typed_error(at, "a definition must be an object with a `type`"));
    };
    let Some(kind) = def.get("type") else {
        return Err(typed_error(at, "missing `type`"));
    };
    let Some(kind) = kind.as_str() else {
        return Err(typed_error(&pointer::push(at, "type"), "`type` must be a string"));
    };
    let allowed: &[&str] = match kind {
        "string" | "integer" | "number" | "boolean" => &[],
        "list" => &["items"],
        "map" => &["fields"],
        "entity" => &["entityType"],
        other => {
            return Err(typed_error(
                &pointer::push(at, "type"),
                format!(
                    "unknown type `{other}`; expected string, integer, number, boolean, list, map or entity"
                ),
            ));
        }
    };
    for key in def.keys() {
        let common = matches!(key.as_str(), "type" | "description" | "required");
        if !common && !allowed.contains(&key.as_str()) {
            return Err(typed_error(
                &pointer::push(at, key),
                format!("`{key}` does not belong to a `{kind}` definition"),
            ));
        }
    }
    let description = match def.get("description") {
        None => None,
        Some(Value::String(text)) => Some(text.as_str()),
        Some(_) => {
            return Err(typed_error(
                &pointer::push(at, "description"),
                "`description` must be a string",
            ));
        }
    };
    let required = match def.get("required") {
        None => false,
        Some(Value::Bool(flag)) => *flag,
        Some(_) => {
            return Err(typed_error(
                &pointer::push(at, "required"),
                "`required` must be a boolean",
            ));
        }
    };
    let mut schema = Map::new();
    match kind {
        "list" => {
            let items_at = pointer::push(at, "items");
            let Some(items) = def.get("items") else {
                return Err(typed_error(at, "a `list` needs `items`"));
            };
            let (items, _) = definition_schema(items, &items_at)?;
            schema.insert("type".into(), Value::String("array".into()));
            schema.insert("items".into(), items);
        }
        "map" => {
            let fields_at = pointer::push(at, "fields");
            let Some(fields) = def.get("fields") else {
                return Err(typed_error(at, "a `map` needs `fields`"));
            };
            let Some(fields) = fields.as_object() else {
                return Err(typed_error(&fields_at, "`fields` must be an object of definitions"));
            };
            let Value::Object(object) = object_schema(fields, &fields_at)? else {
                return Err(typed_error(at, "a `map` must become an object schema"));
            };
            schema = object;
        }
        "entity" => {
            let entity_type = entity_type(def.get("entityType"), at)?;
            schema.insert("type".into(), Value::String("string".into()));
            schema.insert(
                "pattern".into(),
                Value::String(format!("^{}:", entity_type.replace('.', "\\."))),
            );
            let handle = format!("Handle of a {entity_type}");
            let text = match description {
                Some(text) => format!("{text} ({})", handle.to_lowercase()),
                None => handle,
            };
            schema.insert("description".into(), Value::String(text));
            return Ok((Value::Object(schema), required));
        }
        scalar => {
            schema.insert("type".into(), Value::String(scalar.into()));
        }
    }
    if let Some(text) = description {
        schema.insert("description".into(), Value::String(text.into()));
    }
    Ok((Value::Object(schema), required))
}

/// An entity type name: letters, digits, `_`, `-` and `.` (so the handle prefix is unambiguous).
fn entity_type<'a>(value: Option<&'a Value>, at: &str) -> Result<&'a str, SchemaError> {
    let here = pointer::push(at, "entityType");
    let Some(value) = value else {
        return Err(typed_error(at, "an `entity` needs `entityType`"));
    };
    let Some(name) = value.as_str() else {
        return Err(typed_error(&here, "`entityType` must be a string"));
    };
    let well_formed = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !well_formed {
        return Err(typed_error(
            &here,
            format!(
                "`entityType` `{name}` must be non-empty and use only ASCII letters, digits, `_`, `-` and `.`"
            ),
        ));
    }
    Ok(name)
}

fn typed_error(at: &str, message: impl Into<String>) -> SchemaError {
    SchemaError::Typed { at: at.to_owned(), message: message.into() }
}

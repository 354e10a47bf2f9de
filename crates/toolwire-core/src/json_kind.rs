//! The kind of a JSON value, named for messages ("a string", "an object", …): what the wire
//! checker and the schema declarations say they found.

use serde_json::Value;

/// A short name of a JSON value's kind, for messages ("a string", "an object", …).
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

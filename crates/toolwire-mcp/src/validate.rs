//! Schemas: deriving them from Rust types, compiling them once, and checking arguments and
//! data against them.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// What happens when a tool's data does not match its declared output schema.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValidationMode {
    /// The mismatch becomes a `tool_error` failure naming the violated path (default).
    #[default]
    Enforce,
    /// The mismatch is logged and the result sent.
    Warn,
    /// No check.
    Off,
}

impl ValidationMode {
    /// `enforce`, `warn` or `off`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "enforce" => Some(Self::Enforce),
            "warn" => Some(Self::Warn),
            "off" => Some(Self::Off),
            _ => None,
        }
    }
}

/// A schema compiled once, at registration.
pub(crate) struct CompiledSchema {
    validator: jsonschema::Validator,
}

impl CompiledSchema {
    /// Compiles `schema` (2020-12 unless its `$schema` says otherwise). Nothing is fetched from
    /// the network: a remote `$ref` fails to compile.
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        jsonschema::validator_for(schema)
            .map(|validator| Self { validator })
            .map_err(|error| error.to_string())
    }

    /// Every violation as `(path, message)`, the path a JSON pointer into the instance.
    pub(crate) fn violations(&self, instance: &Value) -> Vec<(String, String)> {
        self.validator
            .iter_errors(instance)
            .map(|error| (error.instance_path().to_string(), error.to_string()))
            .collect()
    }
}

fn derived<T: JsonSchema>(settings: SchemaSettings) -> Value {
    let mut schema = settings.into_generator().into_root_schema_for::<T>();
    // A derived schema declares nothing about its dialect or name that a client needs; `$schema`
    // is published only when a tool author wrote it.
    schema.remove("$schema");
    schema.remove("title");
    schema.to_value()
}

/// The input schema of a type: draft 2020-12, the deserialize contract.
pub(crate) fn schema_for_input<T: JsonSchema>() -> Value {
    derived::<T>(SchemaSettings::draft2020_12().for_deserialize())
}

/// The output schema of a type: draft 2020-12, the serialize contract.
pub(crate) fn schema_for_output<T: JsonSchema>() -> Value {
    derived::<T>(SchemaSettings::draft2020_12().for_serialize())
}

/// True for a declaration that accepts every value (`true`, `{}`, or only annotations), which
/// counts as no declared outputs.
pub(crate) fn accepts_everything(schema: &Value) -> bool {
    match schema {
        Value::Bool(accept) => *accept,
        Value::Object(map) => {
            map.keys().all(|k| matches!(k.as_str(), "$schema" | "$id" | "title" | "description"))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn violations_name_the_path() {
        let schema = CompiledSchema::compile(&json!({
            "type": "object",
            "properties": {"limit": {"type": "integer", "minimum": 1}},
            "required": ["id"]
        }));
        let Ok(schema) = schema else { panic!("refused") };
        let found = schema.violations(&json!({"limit": 0}));
        assert_eq!(found.len(), 2);
        assert!(found.iter().any(|(path, _)| path == "/limit"));
        assert!(found.iter().any(|(path, message)| path.is_empty() && message.contains("id")));
    }

    #[test]
    fn remote_refs_do_not_compile() {
        let compiled = CompiledSchema::compile(&json!({"$ref": "https://example.com/s.json"}));
        assert!(compiled.is_err());
    }

    #[test]
    fn annotation_only_schemas_declare_nothing() {
        assert!(accepts_everything(&json!(true)));
        assert!(accepts_everything(&json!({})));
        assert!(accepts_everything(&json!({"title": "x", "$schema": "y"})));
        assert!(!accepts_everything(&json!({"type": "object"})));
    }
}

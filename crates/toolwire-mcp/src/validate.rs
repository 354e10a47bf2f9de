//! Schemas: deriving them from Rust types, compiling them once, and checking arguments and
//! data against them.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

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
}

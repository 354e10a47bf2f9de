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
    /// Compiles `schema` (2020-12 unless its `$schema` says otherwise), numbers compared
    /// exactly. Nothing is fetched from the network: a remote `$ref` fails to compile.
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        toolwire_core::exact_numbers(jsonschema::options())
            .build(schema)
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
    fn arguments_past_a_limit_by_less_than_f64_sees_are_refused() {
        let schema: Value = serde_json::from_str(
            r#"{"type": "object", "properties": {"n": {"maximum": 100, "multipleOf": 0.5}}}"#,
        )
        .unwrap_or_default();
        let Ok(schema) = CompiledSchema::compile(&schema) else { panic!("refused") };
        let over: Value =
            serde_json::from_str(r#"{"n": 100.0000000000000000001}"#).unwrap_or_default();
        assert_eq!(
            schema.violations(&over),
            vec![
                (
                    "/n".to_owned(),
                    "100.0000000000000000001 is greater than the maximum of 100".to_owned()
                ),
                ("/n".to_owned(), "100.0000000000000000001 is not a multiple of 0.5".to_owned()),
            ]
        );
        let exact: Value =
            serde_json::from_str(r#"{"n": 99.5000000000000000000}"#).unwrap_or_default();
        assert!(schema.violations(&exact).is_empty());
    }

    #[test]
    fn remote_refs_do_not_compile() {
        let compiled = CompiledSchema::compile(&json!({"$ref": "https://example.com/s.json"}));
        assert!(compiled.is_err());
    }
}

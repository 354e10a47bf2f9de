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
        toolwire_core::build_validator(&toolwire_core::exact_numbers(jsonschema::options()), schema)
            .map(|validator| Self { validator })
            .map_err(|error| error.to_string())
    }

    /// The violations as `(path, message)`, the path a JSON pointer into the instance: at most
    /// [`MAX_VIOLATIONS`], then one entry at the root saying how many more there were. A value
    /// echoed in a message, and a path, is cut to [`ECHO_LIMIT`] bytes, so a huge bad argument
    /// never comes back (or gets stored) at its own size.
    pub(crate) fn violations(&self, instance: &Value) -> Vec<(String, String)> {
        // Arguments that pass, nearly all of them, are walked once, without collecting errors.
        if self.validator.is_valid(instance) {
            return Vec::new();
        }
        let mut errors = self.validator.iter_errors(instance);
        let mut found: Vec<(String, String)> = errors
            .by_ref()
            .take(MAX_VIOLATIONS)
            .map(|error| {
                let echoed = error.instance().to_string();
                let message = error.to_string();
                let message = if echoed.len() > ECHO_LIMIT {
                    message.replacen(&echoed, &cut(&echoed, ECHO_LIMIT), 1)
                } else {
                    message
                };
                // Other echoes (a property name, say) are bounded by cutting the whole message.
                (cut(error.instance_path().as_str(), ECHO_LIMIT), cut(&message, 2 * ECHO_LIMIT))
            })
            .collect();
        let more = errors.count();
        if more > 0 {
            let noun = if more == 1 { "violation" } else { "violations" };
            found.push((String::new(), format!("{more} more {noun} not shown")));
        }
        found
    }
}

/// Violations reported per call; the rest are counted.
pub(crate) const MAX_VIOLATIONS: usize = 20;

/// Bytes of a caller's value echoed in a violation.
pub(crate) const ECHO_LIMIT: usize = 256;

/// `text` whole when it has at most `limit` bytes; else its first `limit` bytes (backed off to a
/// UTF-8 boundary), then `…` and how long it was.
fn cut(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… (cut, {} bytes in all)", &text[..end], text.len())
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
        // Read from text: `json!` would take the numbers through f64 and lose their digits.
        let exact = |text: &str| match serde_json::from_str::<Value>(text) {
            Ok(value) => value,
            Err(err) => panic!("{text}: {err}"),
        };
        let schema = exact(
            r#"{"type": "object", "properties": {"n": {"maximum": 100, "multipleOf": 0.5}}}"#,
        );
        let Ok(schema) = CompiledSchema::compile(&schema) else { panic!("refused") };
        let over = exact(r#"{"n": 100.0000000000000000001}"#);
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
        assert!(schema.violations(&exact(r#"{"n": 99.5000000000000000000}"#)).is_empty());
    }

    #[test]
    fn echoed_values_are_cut_on_a_character_boundary() {
        let Ok(schema) = CompiledSchema::compile(&json!({"type": "integer"})) else {
            panic!("refused")
        };
        let huge = format!("a{}", "é".repeat(2 << 20));
        let found = schema.violations(&json!(huge));
        assert_eq!(found.len(), 1);
        let (path, message) = &found[0];
        assert_eq!(path, "");
        let kept = format!("\"a{}", "é".repeat(127));
        assert_eq!(
            message,
            &format!("{kept}… (cut, {} bytes in all) is not of type \"integer\"", huge.len() + 2)
        );
        assert!(message.len() < 2 * ECHO_LIMIT, "{}", message.len());
    }

    #[test]
    fn at_most_twenty_violations_then_how_many_more() {
        let Ok(schema) = CompiledSchema::compile(&json!({"items": {"type": "integer"}})) else {
            panic!("refused")
        };
        let found = schema.violations(&json!(vec!["x"; 23]));
        assert_eq!(found.len(), MAX_VIOLATIONS + 1);
        assert_eq!(found[19], ("/19".to_owned(), r#""x" is not of type "integer""#.to_owned()));
        assert_eq!(found[20], (String::new(), "3 more violations not shown".to_owned()));
        let one_more = schema.violations(&json!(vec!["x"; 21]));
        assert_eq!(one_more[20].1, "1 more violation not shown");
        assert_eq!(schema.violations(&json!(vec!["x"; 20])).len(), 20);
    }

    #[test]
    fn remote_refs_do_not_compile() {
        let compiled = CompiledSchema::compile(&json!({"$ref": "https://example.com/s.json"}));
        assert!(compiled.is_err());
    }

    #[test]
    fn an_input_schema_the_compiler_would_panic_on_is_refused() {
        // An upstream's `inputSchema` with two schemas of one URI: jsonschema panics on it.
        let compiled = CompiledSchema::compile(&json!({
            "type": "object",
            "$defs": {"a": {"$id": "urn:x", "$anchor": "q"}, "b": {"$id": "urn:x"}},
            "properties": {"p": {"$ref": "urn:x#q"}}
        }));
        let Err(reason) = compiled else { panic!("compiled") };
        assert_eq!(
            reason,
            "`$id` `urn:x` at /$defs/b gives the URI of the schema at /$defs/a; every schema of a \
             document needs a URI of its own"
        );
    }
}

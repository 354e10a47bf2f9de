//! Compiling a schema that comes from outside (a tool's declaration, an upstream server's
//! `inputSchema`, an OpenAPI document, a server under audit): every compile in toolwire goes
//! through [`build_validator`] (declarations, whose identifiers are checked first, through its
//! panic guard), so what the compiler cannot take is refused with a message instead of taking
//! the process down.

use std::panic::{AssertUnwindSafe, catch_unwind};

use jsonschema::{Draft, ValidationError, ValidationOptions, Validator};
use serde_json::Value;

use super::identifiers;

/// Compiles `schema` with `options`, as `options.build(schema)` does, but refuses first a
/// document whose identifiers clash (two schemas with one URI, or a URI of the official
/// meta-schemas), on which jsonschema panics, and turns any other panic of the compiler into a
/// refusal. A refusal of either kind is a schema error at the document's root.
pub fn build_validator(
    options: &ValidationOptions<'_>,
    schema: &Value,
) -> Result<Validator, ValidationError<'static>> {
    let draft = schema
        .get("$schema")
        .and_then(Value::as_str)
        .and_then(super::declare::known_draft)
        .unwrap_or(Draft::Draft202012);
    if let Some(clash) = identifiers::clash(schema, draft) {
        return Err(ValidationError::schema(clash.to_string()));
    }
    without_panics(|| options.build(schema))
}

/// `compile()`, with a panic turned into a refusal: a compiler that panics on a schema from
/// outside must not take a gateway or an audit down with it. Declarations, whose identifiers
/// are checked before they are compiled, use it alone.
pub(crate) fn without_panics(
    compile: impl FnOnce() -> Result<Validator, ValidationError<'static>>,
) -> Result<Validator, ValidationError<'static>> {
    catch_unwind(AssertUnwindSafe(compile)).unwrap_or_else(|_| {
        Err(ValidationError::schema("the schema compiler failed on this schema (it panicked)"))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn refusal(schema: &Value) -> String {
        match build_validator(&jsonschema::options(), schema) {
            Ok(_) => panic!("{schema} compiled"),
            Err(err) => err.to_string(),
        }
    }

    #[test]
    fn two_schemas_with_one_uri_are_refused_before_the_compiler_sees_them() {
        // jsonschema 0.61.2 panics on each of these ("A named target lives in its resolver's
        // resource").
        let same = json!({
            "$defs": {"a": {"$id": "http://a/x", "$anchor": "q"}, "b": {"$id": "http://A:80/./x"}},
            "$ref": "http://a/x#q"
        });
        assert_eq!(
            refusal(&same),
            "`$id` `http://A:80/./x` at /$defs/b gives the URI of the schema at /$defs/a; every \
             schema of a document needs a URI of its own"
        );
        let relative = json!({
            "$defs": {"a": {"$id": "x", "$anchor": "q"}, "b": {"$id": "y", "$defs": {"c": {"$id": "x"}}}},
            "$ref": "x#q"
        });
        assert_eq!(
            refusal(&relative),
            "`$id` `x` at /$defs/b/$defs/c gives the URI of the schema at /$defs/a; every schema \
             of a document needs a URI of its own"
        );
        let draft4 = json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "definitions": {"a": {"id": "http://a/x", "definitions": {"c": {"id": "#q"}}}, "b": {"id": "http://a/x"}},
            "$ref": "http://a/x#q"
        });
        assert_eq!(
            refusal(&draft4),
            "`id` `http://a/x` at /definitions/b gives the URI of the schema at /definitions/a; \
             every schema of a document needs a URI of its own"
        );
        let root = json!({"$id": "http://a/x#", "$defs": {"b": {"$id": "http://a/x"}}});
        assert_eq!(
            refusal(&root),
            "`$id` `http://a/x` at /$defs/b gives the URI of the schema at the root; every schema \
             of a document needs a URI of its own"
        );
        let base = json!({"$defs": {"b": {"$id": "json-schema:///"}}});
        assert!(refusal(&base).contains("gives the URI of the schema at the root"));
    }

    #[test]
    fn a_uri_of_the_meta_schemas_is_refused() {
        let claimed = json!({
            "$defs": {"a": {"$id": "https://json-schema.org/draft/2020-12/meta/core", "$anchor": "q"}},
            "$ref": "https://json-schema.org/draft/2020-12/meta/core#q"
        });
        assert_eq!(
            refusal(&claimed),
            "`$id` `https://json-schema.org/draft/2020-12/meta/core` at /$defs/a claims a URI on \
             json-schema.org, where the official meta-schemas live; give the schema a URI of \
             its own"
        );
        let root = json!({"$id": "HTTP://JSON-SCHEMA.ORG/draft-07/schema", "type": "string"});
        assert!(refusal(&root).contains("at the root claims a URI on json-schema.org"));
    }

    #[test]
    fn distinct_identifiers_and_anchors_compile() {
        let schema = json!({
            "$id": "https://example.com/root.json",
            "$defs": {
                "a": {"$id": "a.json", "$anchor": "q", "type": "string"},
                "b": {"$id": "b.json", "$defs": {"c": {"$id": "c.json"}}}
            },
            "properties": {"x": {"$ref": "a.json#q"}}
        });
        let Ok(validator) = build_validator(&jsonschema::options(), &schema) else {
            panic!("refused")
        };
        assert!(validator.is_valid(&json!({"x": "s"})));
        assert!(!validator.is_valid(&json!({"x": 1})));
    }

    #[test]
    fn a_panic_in_the_compiler_is_a_refusal() {
        let refused = without_panics(|| panic!("compiler bug"));
        let Err(err) = refused else { panic!("a panic passed as a validator") };
        assert_eq!(err.to_string(), "the schema compiler failed on this schema (it panicked)");
    }
}

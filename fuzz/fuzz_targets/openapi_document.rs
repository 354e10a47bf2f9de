//! Fuzzes the OpenAPI loader (DESIGN §16): the bytes of a document (JSON or YAML) read within
//! its bounds, every operation made into a tool (GET/HEAD only, then with writes), and a call
//! written from empty arguments. Nothing panics; every tool's input schema is an object schema,
//! every input and output schema is valid against the 2020-12 meta-schema, and none keeps a
//! reference into the document (`#/components/…`): each tool carries its own `$defs`. (A schema
//! the document gets wrong, such as a `type` no draft has, skips its operation in `generate`; a
//! `pattern` that is no regular expression passes the meta-schema and is refused when the tool
//! is registered, as the hostile documents' test shows.)
//!
//! Input: the document's bytes, which whoever publishes the API controls.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use toolwire_gateway::openapi::document::Document;
use toolwire_gateway::openapi::operation::{Options, generate};
use toolwire_gateway::openapi::request::{Credentials, build};

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = Document::parse(data) else { return };
    for writes in [false, true] {
        let options = Options { writes, ..Options::default() };
        for tool in generate(&doc, &options).tools {
            assert_eq!(tool.input_schema["type"], "object", "{}: {}", tool.name, tool.input_schema);
            for schema in std::iter::once(&tool.input_schema).chain(&tool.output_schema) {
                assert!(
                    jsonschema::draft202012::meta::is_valid(schema),
                    "{}: not a valid schema: {schema}",
                    tool.name
                );
                assert!(!references_the_document(schema), "{}: {schema}", tool.name);
            }
            let _ = build(&tool.plan, "http://api.test/v1", &json!({}), &Credentials::default());
        }
    }
});

/// Whether a `$ref` in `schema` points outside the schema's own `$defs`.
fn references_the_document(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(key, value)| {
            (key == "$ref" && value.as_str().is_some_and(|r| !r.starts_with("#/$defs/") && r != "#"))
                || references_the_document(value)
        }),
        Value::Array(items) => items.iter().any(references_the_document),
        _ => false,
    }
}

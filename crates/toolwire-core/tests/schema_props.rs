//! Invariants over arbitrary declarations: nothing panics, and whatever is accepted publishes
//! schemas that compile and that the official `Tool` definitions accept.

use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolwire_core::{
    McpRevision, Shape, ToolOutput, ToolResult, envelope_structured, publish_input_schema,
};

const KEYS: [&str; 22] = [
    "type",
    "properties",
    "items",
    "required",
    "$ref",
    "$defs",
    "definitions",
    "$schema",
    "$id",
    "title",
    "anyOf",
    "oneOf",
    "const",
    "enum",
    "minimum",
    "pattern",
    "additionalProperties",
    "outputs",
    "fields",
    "entityType",
    "description",
    "a",
];
const STRINGS: [&str; 14] = [
    "object",
    "array",
    "string",
    "integer",
    "list",
    "map",
    "entity",
    "#",
    "#/$defs/a",
    "#/properties/a",
    "http://127.0.0.1:9/x",
    "https://json-schema.org/draft/2020-12/schema",
    "product",
    "a",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..5).prop_map(|n| json!(n)),
        proptest::sample::select(&STRINGS[..]).prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(&KEYS[..]), inner), 0..5).prop_map(
                |entries| {
                    Value::Object(
                        entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect::<Map<_, _>>(),
                    )
                }
            ),
        ]
    })
}

/// Declarations: anything, object-rooted schemas, and typed documents.
fn declaration() -> impl Strategy<Value = Value> {
    let names = proptest::sample::select(&["a", "b", "$ref", "c/d"][..]);
    let properties = proptest::collection::vec((names.clone(), json_value()), 0..4)
        .prop_map(|entries| entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect());
    prop_oneof![
        json_value(),
        (properties, json_value()).prop_map(|(properties, defs): (Map<String, Value>, Value)| {
            json!({"type": "object", "properties": properties, "$defs": {"a": defs}})
        }),
        proptest::collection::vec((names, typed_definition()), 0..4).prop_map(|entries| {
            let outputs: Map<String, Value> =
                entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            json!({"outputs": outputs})
        }),
    ]
}

fn typed_definition() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        proptest::sample::select(&["string", "integer", "number", "boolean"][..])
            .prop_map(|t| json!({"type": t})),
        proptest::sample::select(&["product", "node.page", "x-y", ""][..])
            .prop_map(|t| json!({"type": "entity", "entityType": t, "required": true})),
    ];
    scalar.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|items| json!({"type": "list", "items": items})),
            proptest::collection::vec((proptest::sample::select(&["f", "g"][..]), inner), 0..3)
                .prop_map(|entries| {
                    let fields: Map<String, Value> =
                        entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                    json!({"type": "map", "fields": fields, "required": true})
                }),
        ]
    })
}

/// The official `Tool` validators, compiled once for the whole run.
fn official_tools() -> &'static [(McpRevision, jsonschema::Validator)] {
    static TOOLS: OnceLock<Vec<(McpRevision, jsonschema::Validator)>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        McpRevision::ALL.into_iter().map(|revision| (revision, official_tool(revision))).collect()
    })
}

fn official_tool(revision: McpRevision) -> jsonschema::Validator {
    let path = format!(
        "{}/../toolwire-check/spec/mcp/{}/schema.json",
        env!("CARGO_MANIFEST_DIR"),
        revision.as_str()
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path}: {err}"));
    let spec: Value = serde_json::from_str(&text).unwrap_or_else(|err| panic!("{path}: {err}"));
    let defs = if spec.get("$defs").is_some() { "$defs" } else { "definitions" };
    let schema =
        json!({"$schema": spec["$schema"], defs: spec[defs], "$ref": format!("#/{defs}/Tool")});
    jsonschema::options().offline().build(&schema).unwrap_or_else(|err| panic!("{err}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn accepted_declarations_publish_valid_tools(doc in declaration(), data in json_value()) {
        for shape in [Shape::Data, Shape::Envelope] {
            let Ok(output) = ToolOutput::from_declaration(&doc, shape) else { continue };
            let result = ToolResult::success(data.clone());
            let checked = output.check(&result).is_ok();
            for (revision, tool) in official_tools() {
                let Some(schema) = output.published(*revision) else { continue };
                let published = jsonschema::options().offline().build(&schema);
                let Ok(published) = published else {
                    return Err(TestCaseError::fail(format!("{schema} does not compile")));
                };
                // What the mapper sends for this success (DESIGN §3 and §5).
                let wire = match shape {
                    Shape::Envelope => envelope_structured(&result, None),
                    _ if *revision != McpRevision::V2026_07_28 && !output.root_is_object() => {
                        json!({"result": data})
                    }
                    _ => data.clone(),
                };
                if !data.is_null() || shape == Shape::Envelope {
                    prop_assert_eq!(published.is_valid(&wire), checked, "{} on {}", schema, wire);
                }
                let entry = json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema});
                prop_assert!(tool.is_valid(&entry), "{:?} rejects {}", revision, entry);
            }
        }
    }

    #[test]
    fn input_schemas_with_an_object_root_publish_valid_tools(properties in json_value()) {
        let Value::Object(properties) = properties else { return Ok(()) };
        let properties: Map<String, Value> = properties
            .into_iter()
            .filter(|(_, v)| v.is_object() || v.is_boolean())
            .collect();
        let input = json!({"type": "object", "properties": properties});
        for (revision, tool) in official_tools() {
            let published = publish_input_schema(&input, *revision);
            let entry = json!({"name": "t", "inputSchema": published});
            prop_assert!(tool.is_valid(&entry), "{:?} rejects {}", revision, entry);
        }
    }
}

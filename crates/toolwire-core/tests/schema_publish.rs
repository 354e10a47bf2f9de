//! Publishing per revision: wrapping, hoisting, boolean property schemas, `$schema`, Rust types
//! without an object root, and input schemas. Every published form is checked against the
//! official `Tool` definition of its revision (the copies under `spec/`) and shown to accept
//! exactly what the declaration accepts.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use toolwire_core::{McpRevision, Shape, ToolOutput, ToolResult, publish_input_schema};

const HANDSHAKE_ERA: [McpRevision; 2] = [McpRevision::V2025_06_18, McpRevision::V2025_11_25];
const STRUCTURED: [McpRevision; 3] =
    [McpRevision::V2025_06_18, McpRevision::V2025_11_25, McpRevision::V2026_07_28];

fn validator(schema: &Value) -> jsonschema::Validator {
    match jsonschema::options().offline().build(schema) {
        Ok(validator) => validator,
        Err(err) => panic!("{schema} does not compile: {err}"),
    }
}

fn accepts(schema: &Value, instance: &Value) -> bool {
    validator(schema).is_valid(instance)
}

/// The official `Tool` definition of a revision, from the repository's copy of its schema.
fn official_tool(revision: McpRevision) -> Value {
    let path = format!(
        "{}/../toolwire-check/spec/mcp/{}/schema.json",
        env!("CARGO_MANIFEST_DIR"),
        revision.as_str()
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path}: {err}"));
    let spec: Value = serde_json::from_str(&text).unwrap_or_else(|err| panic!("{path}: {err}"));
    let defs = if spec.get("$defs").is_some() { "$defs" } else { "definitions" };
    json!({"$schema": spec["$schema"], defs: spec[defs], "$ref": format!("#/{defs}/Tool")})
}

fn tool_with(revision: McpRevision, output_schema: Option<Value>) -> Value {
    let mut tool = json!({"name": "t", "inputSchema": {"type": "object"}});
    if let Some(schema) = output_schema {
        tool["outputSchema"] = schema;
    }
    assert!(accepts(&official_tool(revision), &tool), "{revision:?} Tool rejects {tool}");
    tool
}

fn output(doc: Value) -> ToolOutput {
    ToolOutput::from_declaration(&doc, Shape::Data).unwrap_or_else(|err| panic!("{doc}: {err}"))
}

fn published(output: &ToolOutput, revision: McpRevision) -> Value {
    output.published(revision).unwrap_or_else(|| panic!("nothing published for {revision:?}"))
}

/// What the mapper sends as `structuredContent` for data under this declaration (DESIGN §3).
fn structured(output: &ToolOutput, revision: McpRevision, data: &Value) -> Value {
    if revision != McpRevision::V2026_07_28 && !output.root_is_object() {
        json!({"result": data})
    } else {
        data.clone()
    }
}

/// Every published form is a valid `Tool.outputSchema` and accepts a value exactly when the
/// declaration accepts the data.
fn assert_equivalent(output: &ToolOutput, instances: &[Value]) {
    let Some(declared) = output.declared() else { panic!("nothing declared") };
    let declared = validator(declared);
    for revision in [McpRevision::V2024_11_05, McpRevision::V2025_03_26] {
        assert_eq!(output.published(revision), None);
        tool_with(revision, None);
    }
    for revision in STRUCTURED {
        let schema = published(output, revision);
        tool_with(revision, Some(schema.clone()));
        let published = validator(&schema);
        for data in instances {
            let wire = structured(output, revision, data);
            assert_eq!(
                published.is_valid(&wire),
                declared.is_valid(data),
                "{revision:?}: {schema} on {wire}"
            );
            // `null` is no data, which no `structuredContent` can carry.
            let expected = !data.is_null() && declared.is_valid(data);
            assert_eq!(
                output.check(&ToolResult::success(data.clone())).is_ok(),
                expected,
                "check of {data}"
            );
        }
    }
}

#[test]
fn nothing_is_published_before_2025_06_18_or_without_outputs() {
    let output = output(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
    assert_eq!(output.published(McpRevision::V2024_11_05), None);
    assert_eq!(output.published(McpRevision::V2025_03_26), None);
    let none = ToolOutput::none(Shape::Data);
    for revision in McpRevision::ALL {
        assert_eq!(none.published(revision), None);
    }
}

#[test]
fn object_roots_are_published_as_declared_with_schema_only_from_2025_11_25() {
    let declared = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Weather",
        "type": "object",
        "properties": {"temperature": {"type": "number"}},
        "required": ["temperature"]
    });
    let output = output(declared.clone());
    assert!(output.root_is_object());
    assert_eq!(
        published(&output, McpRevision::V2025_06_18),
        json!({"title": "Weather", "type": "object", "properties": {"temperature": {"type": "number"}}, "required": ["temperature"]})
    );
    assert_eq!(published(&output, McpRevision::V2025_11_25), declared);
    assert_eq!(published(&output, McpRevision::V2026_07_28), declared);
    // Never injected.
    let plain = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let output2 = self::output(plain.clone());
    for revision in STRUCTURED {
        assert_eq!(published(&output2, revision), plain);
    }
    assert_equivalent(
        &output,
        &[json!({"temperature": 21.5}), json!({}), json!({"temperature": "warm"})],
    );
}

#[test]
fn list_output_tool_is_wrapped_on_the_handshake_era_and_declared_on_2026() {
    let declared = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/users.json",
        "title": "Users",
        "type": "array",
        "items": {"$ref": "#/$defs/user"},
        "$defs": {"user": {"type": "object", "properties": {"id": {"type": "string"}, "email": {"type": "string"}}, "required": ["id"]}}
    });
    let output = output(declared.clone());
    assert!(!output.root_is_object());
    let user = json!({"type": "object", "properties": {"id": {"type": "string"}, "email": {"type": "string"}}, "required": ["id"]});
    assert_eq!(
        published(&output, McpRevision::V2025_06_18),
        json!({
            "type": "object",
            "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/user"}}},
            "required": ["result"],
            "x-fastmcp-wrap-result": true,
            "$defs": {"user": user}
        })
    );
    assert_eq!(
        published(&output, McpRevision::V2025_11_25),
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/user"}}},
            "required": ["result"],
            "x-fastmcp-wrap-result": true,
            "$defs": {"user": user}
        })
    );
    assert_eq!(published(&output, McpRevision::V2026_07_28), declared);

    let data = json!([{"id": "u1", "email": "a@example.com"}, {"id": "u2"}]);
    for revision in HANDSHAKE_ERA {
        let wire = json!({"result": data});
        assert!(accepts(&published(&output, revision), &wire), "{revision:?}");
        assert!(!accepts(&published(&output, revision), &json!({"result": [{"email": "x"}]})));
    }
    assert!(accepts(&published(&output, McpRevision::V2026_07_28), &data));
    assert_equivalent(
        &output,
        &[data, json!([]), json!([{"email": "x"}]), json!({"id": "u1"}), json!("u1")],
    );
}

#[test]
fn wrapping_keeps_every_kind_of_reference_valid() {
    let cases = [
        // A recursive root.
        (
            json!({"type": "array", "items": {"anyOf": [{"type": "integer"}, {"$ref": "#"}]}}),
            vec![json!([1, [2, [3]]]), json!([1, ["x"]]), json!(4)],
        ),
        // A pointer into the root that is not a definition.
        (
            json!({"type": "array", "prefixItems": [{"type": "string"}], "items": {"$ref": "#/prefixItems/0"}}),
            vec![json!(["a", "b"]), json!(["a", 1])],
        ),
        // References through the root's own `$id`.
        (
            json!({"$id": "https://example.com/list.json", "type": "array",
                   "items": {"$ref": "https://example.com/list.json#/$defs/n"},
                   "$defs": {"n": {"type": "number"}}}),
            vec![json!([1.5]), json!(["x"])],
        ),
        // Embedded resources named relative to the root's `$id`, reached both ways.
        (
            json!({"$id": "https://example.com/schemas/list.json", "type": "array",
                   "items": {"anyOf": [{"$ref": "https://example.com/schemas/item.json"}, {"$ref": "tag.json"}]},
                   "$defs": {"item": {"$id": "item.json", "type": "integer"},
                             "tag": {"$id": "tag.json", "type": "string", "pattern": "^t"}}}),
            vec![json!([1, "tx"]), json!(["x"]), json!([1.5])],
        ),
        // An anchor, and draft-07 `definitions`.
        (
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "array",
                   "items": {"$ref": "#/definitions/s"}, "definitions": {"s": {"type": "string", "minLength": 2}}}),
            vec![json!(["ab"]), json!(["a"])],
        ),
        (
            json!({"oneOf": [{"$ref": "#item"}, {"type": "null"}], "$defs": {"i": {"$anchor": "item", "type": "boolean"}}}),
            vec![json!(true), json!(null), json!(3)],
        ),
        // A definition that refers to another, and to the root.
        (
            json!({"anyOf": [{"$ref": "#/$defs/leaf"}, {"type": "array", "items": {"$ref": "#/$defs/tree"}}],
                   "$defs": {"leaf": {"type": "integer"}, "tree": {"$ref": "#"}}}),
            vec![json!(1), json!([1, [2]]), json!([1, ["x"]])],
        ),
        // Scalars and the schema that accepts nothing.
        (json!({"type": "string", "maxLength": 3}), vec![json!("abc"), json!("abcd"), json!(1)]),
        (json!(false), vec![json!(1), json!({})]),
    ];
    for (declared, instances) in cases {
        assert_equivalent(&output(declared), &instances);
    }
}

#[test]
fn boolean_property_schemas_are_spelled_out_on_the_handshake_era() {
    let declared = json!({"type": "object", "properties": {"any": true, "never": false,
        "nested": {"type": "object", "properties": {"x": true}}}});
    let output = output(declared.clone());
    for revision in HANDSHAKE_ERA {
        assert_eq!(
            published(&output, revision),
            json!({"type": "object", "properties": {"any": {}, "never": {"not": {}},
                "nested": {"type": "object", "properties": {"x": {}}}}})
        );
    }
    assert_eq!(published(&output, McpRevision::V2026_07_28), declared);
    assert_equivalent(
        &output,
        &[json!({"any": 1}), json!({"never": 1}), json!({"nested": {"x": null}})],
    );
}

#[test]
fn nested_schema_keywords_are_dropped_on_the_handshake_era() {
    let output = output(json!({"type": "object", "properties": {"a": {
        "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}}}));
    for revision in HANDSHAKE_ERA {
        assert_eq!(
            published(&output, revision),
            json!({"type": "object", "properties": {"a": {"type": "string"}}})
        );
    }
}

#[derive(Serialize, JsonSchema)]
struct Product {
    id: u32,
    name: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(tag = "kind")]
enum Change {
    Created { id: u32 },
    Deleted { id: u32, reason: Option<String> },
}

#[derive(Serialize, JsonSchema)]
struct Loose {
    label: String,
    value: Value,
}

#[derive(Serialize, JsonSchema)]
struct Tree {
    name: String,
    children: Vec<Tree>,
}

fn typed<T: JsonSchema>() -> ToolOutput {
    ToolOutput::from_type::<T>(Shape::Data).unwrap_or_else(|err| panic!("refused: {err}"))
}

fn data<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_else(|err| panic!("{err}"))
}

#[test]
fn tagged_enum_is_wrapped_and_validated_on_every_revision() {
    let output = typed::<Change>();
    assert!(!output.root_is_object());
    let schema = published(&output, McpRevision::V2025_06_18);
    assert_eq!(schema["required"], json!(["result"]));
    assert!(schema["properties"]["result"]["oneOf"].is_array());
    assert_equivalent(
        &output,
        &[
            data(&Change::Created { id: 1 }),
            data(&Change::Deleted { id: 2, reason: None }),
            data(&Change::Deleted { id: 3, reason: Some("gone".into()) }),
            json!({"kind": "Renamed", "id": 1}),
            json!({"id": 1}),
        ],
    );
}

#[test]
fn option_is_wrapped_with_its_definitions_hoisted() {
    let output = typed::<Option<Product>>();
    let schema = published(&output, McpRevision::V2025_11_25);
    assert_eq!(schema["$schema"], json!("https://json-schema.org/draft/2020-12/schema"));
    assert!(schema["$defs"]["Product"].is_object());
    assert_eq!(schema["properties"]["result"].get("title"), None);
    assert_eq!(schema["properties"]["result"].get("$defs"), None);
    assert_equivalent(
        &output,
        &[data(&Some(Product { id: 1, name: "Lamp".into() })), json!({"id": "x"}), json!([])],
    );
    // `None` is no data: no `structuredContent` can carry it, so a success without data is a
    // violation a client would report too.
    let violation = output.check(&ToolResult::success(data(&None::<Product>)));
    assert_eq!(violation.map_err(|v| v.path), Err(String::new()));
}

#[test]
fn vec_of_structs_is_wrapped_with_its_definitions_hoisted() {
    let output = typed::<Vec<Product>>();
    assert_eq!(
        published(&output, McpRevision::V2025_06_18),
        json!({
            "type": "object",
            "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Product"}}},
            "required": ["result"],
            "x-fastmcp-wrap-result": true,
            "$defs": {"Product": {"type": "object", "properties": {
                "id": {"type": "integer", "minimum": 0},
                "name": {"type": "string"}}, "required": ["id", "name"]}}
        })
    );
    assert_equivalent(
        &output,
        &[
            data(&vec![
                Product { id: 1, name: "Lamp".into() },
                Product { id: 2, name: "Desk".into() },
            ]),
            json!([]),
            json!([{"id": -1, "name": "x"}]),
            json!([{"id": 1}]),
        ],
    );
}

#[test]
fn recursive_struct_keeps_its_root_reference() {
    let output = typed::<Tree>();
    assert!(output.root_is_object());
    let leaf = Tree { name: "leaf".into(), children: vec![] };
    assert_equivalent(
        &output,
        &[
            data(&Tree { name: "root".into(), children: vec![leaf] }),
            json!({"name": "r", "children": [{"name": 1, "children": []}]}),
        ],
    );
}

#[test]
fn struct_with_a_value_field_publishes_what_the_2025_06_18_tool_definition_accepts() {
    let output = typed::<Loose>();
    let declared = output.declared().cloned().unwrap_or(Value::Null);
    assert_eq!(declared["properties"]["value"], json!(true));
    // As declared, the official definition would refuse it: property schemas must be objects.
    let raw_tool =
        json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": declared});
    assert!(!accepts(&official_tool(McpRevision::V2025_06_18), &raw_tool));
    let schema = published(&output, McpRevision::V2025_06_18);
    assert_eq!(schema["properties"]["value"], json!({}));
    assert_eq!(schema.get("$schema"), None);
    tool_with(McpRevision::V2025_06_18, Some(schema));
    assert_equivalent(
        &output,
        &[
            data(&Loose { label: "x".into(), value: json!([1, {"a": null}]) }),
            json!({"label": "x"}),
        ],
    );
}

#[test]
fn input_schemas_get_object_property_schemas_and_schema_only_where_allowed() {
    let input = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"query": {"type": "string"}, "filter": true, "never": false},
        "required": ["query"]
    });
    let without_schema = json!({
        "type": "object",
        "properties": {"query": {"type": "string"}, "filter": {}, "never": {"not": {}}},
        "required": ["query"]
    });
    let mut with_schema = without_schema.clone();
    if let Value::Object(map) = &mut with_schema {
        map.insert("$schema".into(), json!("https://json-schema.org/draft/2020-12/schema"));
    }
    for revision in [McpRevision::V2024_11_05, McpRevision::V2025_03_26, McpRevision::V2025_06_18] {
        let published = publish_input_schema(&input, revision);
        assert_eq!(published, without_schema, "{revision:?}");
        let tool = json!({"name": "t", "inputSchema": published});
        assert!(accepts(&official_tool(revision), &tool), "{revision:?}");
    }
    let published = publish_input_schema(&input, McpRevision::V2025_11_25);
    assert_eq!(
        published.get("$schema"),
        Some(&json!("https://json-schema.org/draft/2020-12/schema"))
    );
    assert_eq!(published["properties"], without_schema["properties"]);
    assert!(accepts(
        &official_tool(McpRevision::V2025_11_25),
        &json!({"name": "t", "inputSchema": published})
    ));
    assert_eq!(publish_input_schema(&input, McpRevision::V2026_07_28), input);
    // A tool without arguments says so, in the form strict-schema converters accept.
    let none = json!({"type": "object", "properties": {}, "additionalProperties": false});
    for plain in [
        json!({"type": "object"}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "NoInput", "type": "object", "properties": {}}),
    ] {
        for revision in McpRevision::ALL {
            assert_eq!(publish_input_schema(&plain, revision), none, "{plain}");
        }
    }
    let open = json!({"type": "object", "additionalProperties": true});
    assert_eq!(publish_input_schema(&open, McpRevision::V2026_07_28), open);
}

#[test]
fn only_standard_formats_are_published() {
    let input = json!({"type": "object", "properties": {
        "n": {"type": "integer", "format": "uint64", "minimum": 0},
        "x": {"type": "number", "format": "double"},
        "at": {"type": "string", "format": "date-time"},
        "format": {"type": "string", "format": "email"}
    }});
    let expected = json!({"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 0},
        "x": {"type": "number"},
        "at": {"type": "string", "format": "date-time"},
        "format": {"type": "string", "format": "email"}
    }});
    for revision in McpRevision::ALL {
        assert_eq!(publish_input_schema(&input, revision), expected, "{revision:?}");
    }
    let output = output(input);
    for revision in [McpRevision::V2025_06_18, McpRevision::V2025_11_25, McpRevision::V2026_07_28] {
        assert_eq!(published(&output, revision), expected, "{revision:?}");
    }
}

//! `ToolOutput::publish_declaration` (what `toolwire schema` prints, checked without compiling a
//! validator) agrees with registration (`ToolOutput::from_declaration`, then `published` or
//! `declared`): the same refusals with the same messages, and byte-identical published forms, on
//! every shape and target.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolwire_core::{McpRevision, Shape, ToolOutput};

/// What registration gives: the printed form for `revision` (`None`: the declared schema).
fn registered(doc: &Value, shape: Shape, revision: Option<McpRevision>) -> Result<String, String> {
    let output = ToolOutput::from_declaration(doc, shape).map_err(|err| err.to_string())?;
    let form = match revision {
        Some(revision) => output.published(revision),
        None => output.declared().cloned(),
    };
    Ok(form.unwrap_or(Value::Null).to_string())
}

fn printed(doc: &Value, shape: Shape, revision: Option<McpRevision>) -> Result<String, String> {
    ToolOutput::publish_declaration(doc.clone(), shape, revision)
        .map(|form| form.unwrap_or(Value::Null).to_string())
        .map_err(|err| err.to_string())
}

/// The same from JSON text (compact and pretty), as `toolwire schema` reads it.
fn printed_from(text: &str, shape: Shape, revision: Option<McpRevision>) -> Result<String, String> {
    match ToolOutput::publish_declaration_text(text, shape, revision) {
        Ok(printed) => printed.map_err(|err| err.to_string()),
        Err(err) => panic!("{text} is JSON: {err}"),
    }
}

/// Every shape and target; `Err` names the first disagreement.
fn agree(doc: &Value) -> Result<(), String> {
    let revisions = McpRevision::ALL.into_iter().map(Some).chain([None]);
    for revision in revisions {
        for shape in [Shape::Data, Shape::Envelope] {
            let registered = registered(doc, shape, revision);
            let pretty = serde_json::to_string_pretty(doc).map_err(|err| err.to_string())?;
            let printed = [
                printed(doc, shape, revision),
                printed_from(&doc.to_string(), shape, revision),
                printed_from(&pretty, shape, revision),
            ];
            if let Some(printed) = printed.iter().find(|printed| **printed != registered) {
                return Err(format!(
                    "{doc} ({shape:?}, {revision:?}):\n registration {registered:?}\n printing     {printed:?}"
                ));
            }
        }
    }
    Ok(())
}

/// The declarations of the declaration, publishing and envelope tests, and refusals that only
/// compiling finds (a bad regular expression, a value the meta-schema refuses, a reference to
/// data, a malformed identifier).
fn known() -> Vec<Value> {
    let draft7 = "http://json-schema.org/draft-07/schema#";
    let draft4 = "http://json-schema.org/draft-04/schema#";
    let mut known = vec![
        json!(true),
        json!(false),
        json!({}),
        json!(5),
        json!(null),
        json!([{"type": "string"}]),
        json!({"type": "object"}),
        json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
        json!({"type": "array"}),
        json!({"type": "string", "format": "uint32"}),
        json!({"anyOf": [{"type": "object"}, {"type": "array"}]}),
        json!({"outputs": {"id": {"type": "integer", "required": true}}}),
        json!({"outputs": {}}),
        json!({"outputs": {"a": {"type": "text"}}}),
        json!({"outputs": {"a": {"type": "list", "items": {"type": "map", "fields": {"b": {"type": "entity"}}}}}}),
        json!({"outputs": [], "extra": 1}),
        json!({"$schema": draft7, "type": "array", "items": {"type": "string"}}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/out", "title": "Out", "description": "Anything"}),
        json!({"type": "object", "properties": {"a": {"$ref": "http://example.com/a.json"}}}),
        json!({"type": "array", "items": {"$ref": "other.json"}}),
        json!({"$ref": "https://example.com/root.json"}),
        json!({"type": "array", "items": {"$dynamicRef": "https://example.com/x"}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}),
        json!({"type": "array", "items": {"$ref": "#nowhere"}}),
        json!({"$id": "https://example.com/o.json", "items": {"$ref": "https://example.com/o.json#/$defs/x"}}),
        json!({"type": "array", "items": {"$ref": "#item"}, "$defs": {"i": {"$anchor": "item", "type": "string"}}}),
        json!({"type": "array", "items": {"$ref": "#/$defs/a~1b%20c"}, "$defs": {"a/b c": {"type": "string"}}}),
        json!({"type": "array", "items": {"$ref": "#/$defs/n"}, "$defs": {"n": {"type": "integer"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"$ref": "#/properties/a"}}}),
        json!({"type": "object", "properties": {"self": {"$ref": "#"}}}),
        json!({"type": "object", "properties": {"a": true, "b": false}}),
        json!({"type": "object", "properties": {"a": {"$schema": draft7, "type": "string"}}}),
        json!({"type": "object", "properties": {"a": {"$schema": "https://example.com/meta", "type": "string"}}}),
        json!({"$schema": "http://json-schema.org/draft-03/schema#", "type": "string"}),
        json!({"$schema": 7, "type": "string"}),
        json!({"$schema": draft4, "type": "number", "maximum": 5, "exclusiveMaximum": true}),
        json!({"$schema": draft4, "type": "string", "enum": []}),
        json!({"$schema": draft4, "type": "string", "enum": ["a", "a"]}),
        json!({"type": "number", "maximum": 100}),
        // Refused only when compiled or checked against the meta-schema.
        json!({"type": "string", "pattern": "("}),
        json!({"type": "string", "pattern": "^[a-z]+$"}),
        json!({"type": "object", "patternProperties": {"[": {"type": "string"}}}),
        json!({"type": "object", "patternProperties": {"^x-": {"type": "string"}}}),
        json!({"type": "object", "properties": {"a": {"type": "strin"}}}),
        json!({"type": 5}),
        json!({"type": "number", "minimum": "1"}),
        json!({"type": "number", "multipleOf": 0}),
        json!({"type": "number", "multipleOf": -2}),
        json!({"type": "array", "minItems": -1}),
        json!({"type": "object", "required": "a"}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/properties/b/enum/0"}, "b": {"enum": [{"type": 1}]}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/properties/b/enum"}, "b": {"enum": [1]}}}),
        json!({"type": "object", "x": {"type": 5}, "properties": {"a": {"$ref": "#/x"}}}),
        json!({"type": "object", "x": {"type": "string"}, "properties": {"a": {"$ref": "#/x"}}}),
        json!({"type": "object", "x": {"pattern": "("}, "properties": {"a": {"$ref": "#/x"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/properties/b/enum/0"}, "b": {"enum": [{"pattern": "("}]}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/properties/b/const"}, "b": {"const": true}}}),
        json!({"$id": "::not a uri", "type": "string"}),
        json!({"type": "object", "properties": {"a": {"$id": "a.json", "type": "string"}, "b": {"$ref": "a.json"}}}),
        json!({"type": "string", "format": "date", "contentEncoding": "base64"}),
        json!({"type": "string", "format": "no-such-format", "contentEncoding": "rot13", "contentMediaType": "x/y"}),
        json!({"$schema": draft7, "type": "object", "properties": {"a": {"$ref": "#/definitions/d", "pattern": "("}}, "definitions": {"d": {"type": "string"}}}),
        json!({"$schema": draft4, "type": "number", "exclusiveMinimum": true}),
        // Arrays of data at the root, which `toolwire schema` keeps as text.
        json!({"type": "object", "enum": [{"b": 1, "a": [true, null]}, {}], "default": [1], "examples": [[{"x": "\u{41}\n\"é"}]], "const": [2]}),
        json!({"type": "object", "properties": {"a": {"type": "string", "format": "uint32"}}, "enum": [{"a": "x"}]}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/enum/0"}}, "enum": [{"type": "string"}]}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/enum"}}, "enum": [{"type": "string"}]}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/enum/3"}}, "enum": [1]}),
        json!({"type": "object", "properties": {"a": {"$ref": "#"}}, "enum": [{"a": {}}]}),
        json!({"$schema": draft4, "enum": [], "type": "array"}),
        json!({"$schema": draft7, "title": "T", "$defs": {"d": {"type": "string"}}, "items": {"$ref": "#/$defs/d"}, "enum": [["a"]]}),
        json!({"type": "string", "enum": ["\u{0}toolwire data array 0", "b"]}),
        json!({"type": "string", "description": "\u{0}toolwire data array 0", "enum": ["a"]}),
        json!({"type": "string", "pattern": "(", "enum": ["a"]}),
        json!({"type": "strin", "enum": ["a"]}),
        json!({"outputs": {"a": {"type": "string"}}, "enum": [{}]}),
        json!({"type": "string", "const": "a", "default": "b", "examples": "c"}),
        // Root `properties`, which `toolwire schema` reads one schema at a time.
        json!({"type": "object", "properties": {}}),
        json!({"properties": {"a": {"type": "string"}}}),
        json!({"type": "object", "properties": {"a": true, "b": false, "c": {"properties": {"d": false}}}}),
        json!({"$schema": draft4, "type": "object", "properties": {"a": true}}),
        json!({"$schema": draft7, "type": "object", "properties": {"a": {"type": "integer", "format": "int64"}}}),
        json!({"type": "object", "properties": {"a": {"$schema": draft7}}}),
        json!({"type": "object", "properties": {"a": {"type": "strin"}}, "enum": [{}]}),
        json!({"type": "object", "properties": {"a": {"pattern": "("}}}),
        json!({"type": "object", "properties": {"a": {"$id": "a.json"}}}),
        json!({"type": "object", "properties": {"a/b~c": {"type": "string"}, "d": {"$ref": "#/properties/a~1b~0c"}}}),
        json!({"type": "object", "properties": {"a": {"items": [{"type": "string"}]}, "d": {"$ref": "#/properties/a/items/0"}}}),
        json!({"type": "object", "properties": {"a": {"x": {"type": 5}}, "d": {"$ref": "#/properties/a/x"}}}),
        json!({"type": "object", "properties": {"a": {"enum": [{"type": "string"}]}, "d": {"$ref": "#/properties/a/enum/0"}}}),
        json!({"type": "object", "properties": {"a": {"type": "string"}, "d": {"$ref": "#/properties/missing"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "string", "format": "uint8"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"$ref": "#/properties/a"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#"}}, "required": ["a"], "$schema": "https://json-schema.org/draft/2020-12/schema"}),
        json!({"properties": {"a": {"$ref": "#"}}, "enum": [{}]}),
        json!({"properties": {"a": {"$ref": "#/properties/b"}, "b": {"format": "uint8"}}}),
        json!({"type": "array", "properties": {"a": false, "b": {"format": "uint8"}}}),
        json!({"type": "object", "additionalProperties": false, "properties": {"a": false, "b": {"$ref": "#/properties/a"}}}),
        json!({"type": "object", "properties": {"a": {"const": "\u{0}toolwire raw member 0"}}}),
        json!({"type": "object", "properties": {"\u{0}toolwire raw member 0": {}}, "enum": [{}]}),
        // References in property schemas, which a wrapped root and the envelope rewrite.
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"items": {"$ref": "#/properties/a"}}}, "required": ["a"], "additionalProperties": false}),
        json!({"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}, "required": ["a"]}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/properties/b"}, "b": {"$ref": "#/$defs/d"}}, "$defs": {"d": {"type": "integer"}}, "enum": [{}]}),
        json!({"$schema": draft7, "type": "object", "properties": {"a": {"$ref": "#/definitions/d"}, "b": {"$ref": "#/properties/a"}}, "definitions": {"d": {"type": "string"}}}),
        json!({"properties": {"a": {"$ref": "#/properties/b"}, "b": {"type": "string"}}, "required": ["a"]}),
        json!({"type": "object", "properties": {"a b": {"type": "string"}, "c": {"$ref": "#/properties/a%20b"}, "d": {"$ref": "#/properties/c"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/x/y"}}, "x": {"y": {"type": "string"}}, "minProperties": 1}),
        json!({"type": "object", "properties": {"a": {"not": {"$ref": "#/properties/a/not"}}}}),
        // References the compiler cannot parse as URI references: its message, on every path.
        json!({"type": "object", "properties": {"a b": {"type": "string"}, "z": {"$ref": "#/properties/a b"}}}),
        json!({"type": "object", "properties": {"%": {"type": "string"}}, "items": {"$ref": "#/properties/%"}, "enum": [{}]}),
        json!({"type": "string", "$defs": {"\u{e4}": {}}, "$ref": "#/$defs/\u{e4}"}),
        // Identifiers that clash: refused before the compiler, which panics on some of them.
        json!({"type": "object", "properties": {"a": {"$id": "http://a/x", "$anchor": "q"}, "b": {"$id": "http://a/x"}}, "enum": [{}]}),
        json!({"$id": "https://json-schema.org/draft/2020-12/schema", "type": "object", "enum": [{}]}),
        json!({"$id": "http://a/x", "type": "object", "$defs": {"d": {"$id": "http://a/x"}}, "properties": {"a": {}}}),
        json!({"$schema": draft4, "type": "object", "definitions": {"a": {"id": "http://a/x"}, "b": {"id": "http://A/x"}}, "properties": {"a": {}}}),
    ];
    // A root identifier, without and with references, in every position of `ROOT_IDS`.
    let bodies = [
        json!({"type": "object", "properties": {"a": {"type": "string", "format": "uint32"}, "b": true}}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "enum": [{"a": "x"}]}),
        json!({"type": "string", "pattern": "^a"}),
        json!({"type": "object", "properties": {"a": {"type": "strin"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d"}}, "$defs": {"d": {"type": "string"}}}),
        json!({"type": "array", "items": {"$ref": "#/$defs/d"}, "$defs": {"d": {"type": "string"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#"}}}),
        json!({"$schema": draft7, "type": "object", "properties": {"a": {"type": "integer"}}}),
        json!({"$schema": draft4, "type": "object", "properties": {"a": {"type": "integer"}}}),
    ];
    for body in bodies {
        for id in ROOT_IDS.iter() {
            for key in ["$id", "id"] {
                let mut doc = body.clone();
                if let Value::Object(doc) = &mut doc {
                    doc.insert(key.to_owned(), id.clone());
                }
                known.push(doc);
            }
        }
    }
    known
}

/// Root identifiers the compiler takes and ones it or the meta-schema refuses.
static ROOT_IDS: std::sync::LazyLock<Vec<Value>> = std::sync::LazyLock::new(|| {
    let ids = [
        "https://example.com/out.json",
        "https://example.com/out.json#",
        "https://example.com/out.json#frag",
        "out.json",
        "urn:example:out",
        "",
        "#",
        "#a",
        "::not a uri",
        "http://[bad",
        "a b",
        "%zz",
        "http://example.com/\u{0}",
    ];
    ids.into_iter().map(|id| json!(id)).chain([json!(5), json!(null)]).collect()
});

#[test]
fn known_declarations_print_what_registration_publishes() {
    for doc in known() {
        if let Err(disagreement) = agree(&doc) {
            panic!("{disagreement}");
        }
    }
}

/// Texts whose arrays hold what only the text shows: number spellings, escapes, whitespace.
const TEXTS: [&str; 8] = [
    r##"{"type": "number", "multipleOf": 1e-400, "maximum": 100.0000000000000000001, "enum": [1]}"##,
    r##"{"type": "object", "properties": {"a": {"type": "string"}, "a": {"type": "integer"}}}"##,
    r##"{"type":"object","properties":{ "\u0061\n" : { "type" : "string", "enum" : [ 1E2 ] } , "b":true }}"##,
    r##"{"type": "number", "enum": [1, 2.50, -0, 1E400, 1e-7, 12345678901234567890123]}"##,
    r##"{ "enum" : [ "\u0041\u00e9\ud83d\ude00", "\/\b\f\n\r\t", {"\u0062": 1} ] , "type":"string" }"##,
    r##"{"type": "object", "properties": {"a": {"$ref": "#/enum/0/b"}}, "enum": [{"b": {"type": "string"}}]}"##,
    r##"{"type": "string", "enum": ["\u0000toolwire data array 0"], "default": ["\u0000toolwire data array 0"]}"##,
    r##"{"type": "string", "examples": [], "enum": [[[[[[]]]]]]}"##,
];

#[test]
fn texts_print_what_registration_publishes() {
    for text in TEXTS {
        let tree: Value = serde_json::from_str(text).unwrap_or_else(|err| panic!("{text}: {err}"));
        for revision in McpRevision::ALL.into_iter().map(Some).chain([None]) {
            for shape in [Shape::Data, Shape::Envelope] {
                let registered = registered(&tree, shape, revision);
                assert_eq!(printed_from(text, shape, revision), registered, "{text} {revision:?}");
            }
        }
    }
}

#[test]
fn text_with_repeated_keys_or_invalid_json_takes_the_tree_path() {
    let repeated = r#"{"type": "object", "enum": [{"a": 1, "a": 2}], "enum": [{"b": 1, "b": 2}]}"#;
    let tree: Value = serde_json::from_str(repeated).unwrap_or_else(|err| panic!("{err}"));
    let inner = r#"{"type": "object", "enum": [{"a": 1, "a": 2}, {"a": 3}]}"#;
    let inner_tree: Value = serde_json::from_str(inner).unwrap_or_else(|err| panic!("{err}"));
    for (text, tree) in [(repeated, tree), (inner, inner_tree)] {
        for revision in [Some(McpRevision::V2025_11_25), None] {
            assert_eq!(
                printed_from(text, Shape::Data, revision),
                registered(&tree, Shape::Data, revision)
            );
        }
    }
    let Err(err) = ToolOutput::publish_declaration_text("{\"enum\": [1,]}", Shape::Data, None)
    else {
        panic!("invalid JSON printed")
    };
    let tree_err =
        serde_json::from_str::<Value>("{\"enum\": [1,]}").err().map(|err| err.to_string());
    assert_eq!(Some(err.to_string()), tree_err);
}

#[test]
fn an_array_that_is_not_json_is_refused_where_nothing_is_published() {
    // A lone surrogate escape passes a `RawValue`, not a tree; 2024-11-05 publishes no schema,
    // so the array is never written out, yet the text must be refused as on every revision.
    for text in [
        r#"{"type": "string", "enum": ["\ud800"]}"#,
        r#"{"type": "object", "properties": {"a": {}}, "examples": [{"b": "\udc00\ud800"}]}"#,
    ] {
        let tree_err = serde_json::from_str::<Value>(text).err().map(|err| err.to_string());
        assert!(tree_err.is_some(), "{text} is JSON");
        for revision in McpRevision::ALL.into_iter().map(Some).chain([None]) {
            let printed = ToolOutput::publish_declaration_text(text, Shape::Data, revision);
            assert_eq!(printed.err().map(|err| err.to_string()), tree_err, "{text} {revision:?}");
        }
    }
}

#[test]
fn a_declaration_that_does_not_compile_is_refused_with_the_compilers_message() {
    let doc = json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}});
    let refusal = printed(&doc, Shape::Data, Some(McpRevision::V2025_11_25));
    let Err(message) = refusal else { panic!("accepted: {refusal:?}") };
    assert!(message.starts_with("the schema does not compile: "), "{message}");
    assert_eq!(Err(message), registered(&doc, Shape::Data, Some(McpRevision::V2025_11_25)));
}

#[test]
fn large_declarations_print_what_registration_publishes() {
    let properties: Map<String, Value> = (0..2000)
        .map(|i| {
            let schema = match i % 4 {
                0 => json!({"type": "string", "format": "uint32", "description": format!("field {i}")}),
                1 => json!({"type": "integer", "minimum": 0, "$schema": "https://json-schema.org/draft/2020-12/schema"}),
                2 => json!(i % 8 == 2),
                _ if i % 8 == 3 => json!({"type": "array", "items": {"$ref": "#/$defs/item"}}),
                _ => json!({"type": "array", "items": {"$ref": "#/properties/field_0000"}}),
            };
            (format!("field_{i:04}"), schema)
        })
        .collect();
    let large_object = json!({
        "type": "object",
        "properties": properties,
        "$defs": {"item": {"type": "string", "pattern": "^[a-z]*$"}},
    });
    let referring: Map<String, Value> = (0..2000)
        .map(|i| {
            let schema = match i % 4 {
                0 => json!({"type": "string", "format": "uint32"}),
                1 => json!(i % 8 == 1),
                2 => json!({"type": "array", "items": {"$ref": "#/properties/field_0000"}}),
                _ => json!({"$ref": format!("#/$defs/item_{}", i % 3)}),
            };
            (format!("field_{i:04}"), schema)
        })
        .collect();
    let defs: Map<String, Value> =
        (0..3).map(|i| (format!("item_{i}"), json!({"type": "integer", "minimum": i}))).collect();
    let large_referring = json!({
        "type": "object",
        "properties": referring,
        "$defs": defs,
        "required": ["field_0000"],
        "additionalProperties": false,
    });
    let large_enum = json!({"type": "integer", "enum": (0..20_000).collect::<Vec<_>>()});
    for doc in [large_object, large_referring, large_enum] {
        if let Err(disagreement) = agree(&doc) {
            panic!("{disagreement}");
        }
    }
}

const KEYS: [&str; 24] = [
    "type",
    "properties",
    "patternProperties",
    "items",
    "required",
    "enum",
    "const",
    "$ref",
    "$defs",
    "$schema",
    "$id",
    "$anchor",
    "pattern",
    "format",
    "minimum",
    "multipleOf",
    "minItems",
    "anyOf",
    "not",
    "additionalProperties",
    "title",
    "outputs",
    "a",
    "(",
];
const STRINGS: [&str; 18] = [
    "#/a",
    "#/properties/a/a",
    "object",
    "array",
    "string",
    "integer",
    "strin",
    "(",
    "^a",
    "date",
    "uint32",
    "#",
    "#/$defs/a",
    "#/properties/a",
    "#/properties/a/enum/0",
    "#a",
    "http://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft/2020-12/schema",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-2i64..4).prop_map(|n| json!(n)),
        proptest::sample::select(&STRINGS[..]).prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
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

/// Anything, and object-rooted schemas whose properties and definitions are arbitrary.
fn declaration() -> impl Strategy<Value = Value> {
    let names = proptest::sample::select(&["a", "b", "(", "^a"][..]);
    let properties = proptest::collection::vec((names, json_value()), 0..4)
        .prop_map(|entries| entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect());
    let with_id = (json_value(), proptest::sample::select(&ROOT_IDS[..]), any::<bool>()).prop_map(
        |(doc, id, legacy)| match doc {
            Value::Object(mut doc) => {
                doc.insert(if legacy { "id" } else { "$id" }.to_owned(), id);
                Value::Object(doc)
            }
            other => other,
        },
    );
    prop_oneof![
        json_value(),
        with_id,
        (properties, json_value(), json_value()).prop_map(
            |(properties, defs, extra): (Map<String, Value>, Value, Value)| {
                let mut doc =
                    json!({"type": "object", "properties": properties, "$defs": {"a": defs}});
                if let (Value::Object(doc), Value::Object(extra)) = (&mut doc, extra) {
                    doc.extend(extra);
                }
                doc
            }
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn generated_declarations_print_what_registration_publishes(doc in declaration()) {
        if let Err(disagreement) = agree(&doc) {
            return Err(TestCaseError::fail(disagreement));
        }
    }
}

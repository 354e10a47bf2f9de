//! Declaring outputs: the typed document grammar, raw schemas, and every refusal.

use std::io::ErrorKind;
use std::net::TcpListener;

use serde_json::{Value, json};
use toolwire_core::{McpRevision, SchemaError, Shape, ToolOutput, ToolResult};

fn declare(doc: Value) -> Result<ToolOutput, SchemaError> {
    ToolOutput::from_declaration(&doc, Shape::Data)
}

fn refusal(doc: Value) -> String {
    match declare(doc) {
        Ok(output) => panic!("accepted: {output:?}"),
        Err(err) => err.to_string(),
    }
}

fn declared(doc: Value) -> Value {
    match declare(doc) {
        Ok(output) => output.declared().cloned().unwrap_or(Value::Null),
        Err(err) => panic!("refused: {err}"),
    }
}

#[test]
fn typed_scalars_become_an_object_schema_with_the_required_names() {
    let schema = declared(json!({"outputs": {
        "title": {"type": "string", "description": "The title", "required": true},
        "count": {"type": "integer"},
        "price": {"type": "number", "required": false},
        "active": {"type": "boolean", "required": true}
    }}));
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "The title"},
                "count": {"type": "integer"},
                "price": {"type": "number"},
                "active": {"type": "boolean"}
            },
            "required": ["title", "active"]
        })
    );
}

#[test]
fn typed_document_without_required_outputs_has_no_required_key() {
    let schema = declared(json!({"outputs": {"n": {"type": "integer"}}}));
    assert_eq!(schema, json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
}

#[test]
fn typed_lists_maps_and_entities_nest() {
    let schema = declared(json!({"outputs": {
        "items": {"type": "list", "required": true, "items": {
            "type": "map", "description": "One line", "fields": {
                "sku": {"type": "string", "required": true},
                "product": {"type": "entity", "entityType": "product"},
                "variant": {"type": "entity", "entityType": "product.variant", "description": "The variant"}
            }
        }}
    }}));
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {"items": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string"},
                    "product": {"type": "string", "pattern": "^product:", "description": "Handle of a product"},
                    "variant": {"type": "string", "pattern": "^product\\.variant:", "description": "The variant (handle of a product.variant)"}
                },
                "required": ["sku"],
                "description": "One line"
            }}},
            "required": ["items"]
        })
    );
}

#[test]
fn empty_typed_document_declares_nothing() {
    let Ok(output) = declare(json!({"outputs": {}})) else { panic!("refused") };
    assert_eq!(output.declared(), None);
    for revision in McpRevision::ALL {
        assert_eq!(output.published(revision), None);
    }
}

#[test]
fn malformed_typed_definitions_are_refused_with_their_path() {
    let cases = [
        (
            json!({"outputs": {"a": {"type": "text"}}}),
            "typed output definition at /outputs/a/type: unknown type `text`; expected string, integer, number, boolean, list, map or entity",
        ),
        (json!({"outputs": {"a": {}}}), "typed output definition at /outputs/a: missing `type`"),
        (
            json!({"outputs": {"a": "string"}}),
            "typed output definition at /outputs/a: a definition must be an object with a `type`",
        ),
        (
            json!({"outputs": {"a": {"type": "list"}}}),
            "typed output definition at /outputs/a: a `list` needs `items`",
        ),
        (
            json!({"outputs": {"a": {"type": "list", "items": {"type": "map", "fields": {"b": {"type": "entity"}}}}}}),
            "typed output definition at /outputs/a/items/fields/b: an `entity` needs `entityType`",
        ),
        (
            json!({"outputs": {"a": {"type": "entity", "entityType": "a b"}}}),
            "typed output definition at /outputs/a/entityType: `entityType` `a b` must be non-empty and use only ASCII letters, digits, `_`, `-` and `.`",
        ),
        (
            json!({"outputs": {"a": {"type": "string", "items": {"type": "string"}}}}),
            "typed output definition at /outputs/a/items: `items` does not belong to a `string` definition",
        ),
        (
            json!({"outputs": {"a": {"type": "string", "required": "yes"}}}),
            "typed output definition at /outputs/a/required: `required` must be a boolean",
        ),
        (
            json!({"outputs": {"a": {"type": "map", "fields": []}}}),
            "typed output definition at /outputs/a/fields: `fields` must be an object of definitions",
        ),
        (
            json!({"outputs": {"a/b": {"type": 1}}}),
            "typed output definition at /outputs/a~1b/type: `type` must be a string",
        ),
        (
            json!({"outputs": [], "extra": 1}),
            "typed output definition at the root: unknown key `extra`; a typed output document has only `outputs`",
        ),
        (
            json!({"outputs": []}),
            "typed output definition at /outputs: `outputs` must be an object of named definitions",
        ),
    ];
    for (doc, message) in cases {
        assert_eq!(refusal(doc), message);
    }
}

#[test]
fn raw_schemas_are_kept_as_declared() {
    let schema = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": {"type": "string"}});
    assert_eq!(declared(schema.clone()), schema);
}

#[test]
fn declarations_that_accept_everything_count_as_none() {
    for doc in [
        json!(true),
        json!({}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/out", "title": "Out", "description": "Anything"}),
    ] {
        for shape in [Shape::Data, Shape::Envelope] {
            let Ok(output) = ToolOutput::from_declaration(&doc, shape) else {
                panic!("refused {doc}")
            };
            assert_eq!(output.declared(), None, "{doc}");
            assert!(!output.root_is_object());
            for revision in McpRevision::ALL {
                assert_eq!(output.published(revision), None, "{doc} {revision:?}");
            }
            assert_eq!(output.check(&ToolResult::empty()), Ok(()));
        }
    }
}

#[test]
fn documents_that_are_not_schemas_are_refused() {
    assert_eq!(
        refusal(json!(5)),
        "an output declaration must be a JSON Schema (an object or a boolean) or {\"outputs\": {…}}; got a number"
    );
    assert!(refusal(json!(null)).ends_with("got null"));
    assert!(refusal(json!([{"type": "string"}])).ends_with("got an array"));
}

#[test]
fn network_ref_is_refused_without_any_connection() {
    let Ok(listener) = TcpListener::bind("127.0.0.1:0") else { panic!("cannot listen") };
    assert!(listener.set_nonblocking(true).is_ok());
    let Ok(address) = listener.local_addr() else { panic!("no address") };
    let reference = format!("http://{address}/item.json");
    let doc = json!({"type": "object", "properties": {"a": {"$ref": reference}}});
    assert_eq!(
        declare(doc.clone()).err(),
        Some(SchemaError::ExternalRef { reference: reference.clone(), at: "/properties/a".into() })
    );
    assert_eq!(
        refusal(doc),
        format!(
            "`$ref` `{reference}` at /properties/a points to the network; toolwire never fetches schemas"
        )
    );
    // Even a reference that looks like one of the document's own resources, and so is left to
    // the compiler, is never fetched: the compiler is offline.
    let lookalike = format!("http://{address}/a/other.json");
    let doc = json!({"type": "object", "properties": {"a": {"$ref": lookalike}},
        "$defs": {"other": {"$id": "other.json", "type": "string"}}});
    let Err(SchemaError::DoesNotCompile { .. }) = declare(doc) else {
        panic!("a reference outside the document was accepted")
    };
    match listener.accept() {
        Err(err) => assert_eq!(err.kind(), ErrorKind::WouldBlock),
        Ok((_, peer)) => panic!("a connection was attempted from {peer}"),
    }
}

#[test]
fn every_ref_outside_the_document_is_refused() {
    let cases = [
        ("https://example.com/s.json#/$defs/a", "the network"),
        ("file:///etc/schema.json", "a file outside the schema"),
        ("item.json", "a file outside the schema"),
        ("urn:example:item", "a resource outside the schema"),
    ];
    for (reference, destination) in cases {
        let doc = json!({"type": "array", "items": {"$ref": reference}});
        assert_eq!(
            refusal(doc),
            format!(
                "`$ref` `{reference}` at /items points to {destination}; toolwire never fetches schemas"
            )
        );
    }
    let at_root = json!({"$ref": "https://example.com/root.json"});
    assert_eq!(
        refusal(at_root),
        "`$ref` `https://example.com/root.json` at the root points to the network; toolwire never fetches schemas"
    );
    let dynamic = json!({"type": "array", "items": {"$dynamicRef": "https://example.com/x"}});
    assert!(matches!(declare(dynamic), Err(SchemaError::ExternalRef { .. })));
}

#[test]
fn refs_to_resources_inside_the_document_are_accepted() {
    let doc = json!({
        "$id": "https://example.com/list.json",
        "type": "array",
        "items": {"$ref": "https://example.com/item.json"},
        "$defs": {"item": {"$id": "https://example.com/item.json", "type": "integer"}}
    });
    let Ok(output) = declare(doc) else { panic!("refused") };
    assert_eq!(output.check(&ToolResult::success(json!([1, 2]))), Ok(()));
    assert!(output.check(&ToolResult::success(json!(["x"]))).is_err());
    let own_id = json!({
        "$id": "https://example.com/out.json",
        "type": "object",
        "properties": {"a": {"$ref": "https://example.com/out.json#/$defs/a"}},
        "$defs": {"a": {"type": "string"}}
    });
    assert!(declare(own_id).is_ok());
}

#[test]
fn unresolvable_refs_are_refused() {
    assert_eq!(
        refusal(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}})),
        "`$ref` `#/$defs/missing` at /properties/a does not resolve inside the schema"
    );
    assert_eq!(
        refusal(json!({"type": "array", "items": {"$ref": "#nowhere"}})),
        "`$ref` `#nowhere` at /items does not resolve inside the schema"
    );
    assert_eq!(
        refusal(
            json!({"$id": "https://example.com/o.json", "items": {"$ref": "https://example.com/o.json#/$defs/x"}})
        ),
        "`$ref` `https://example.com/o.json#/$defs/x` at /items does not resolve inside the schema"
    );
    let anchored = json!({"type": "array", "items": {"$ref": "#item"}, "$defs": {"i": {"$anchor": "item", "type": "string"}}});
    assert!(declare(anchored).is_ok());
    let escaped = json!({"type": "array", "items": {"$ref": "#/$defs/a~1b%20c"}, "$defs": {"a/b c": {"type": "string"}}});
    assert!(declare(escaped).is_ok());
}

#[test]
fn unknown_dialects_are_refused_and_the_five_drafts_accepted() {
    for uri in [
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2020-12/schema#",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft-06/schema#",
        "http://json-schema.org/draft-04/schema#",
    ] {
        assert!(declare(json!({"$schema": uri, "type": "string"})).is_ok(), "{uri}");
    }
    assert_eq!(
        refusal(json!({"$schema": "http://json-schema.org/draft-03/schema#", "type": "string"})),
        "unknown `$schema` \"http://json-schema.org/draft-03/schema#\" at the root; expected draft 2020-12, 2019-09, draft-07, draft-06 or draft-04"
    );
    assert_eq!(
        refusal(
            json!({"type": "object", "properties": {"a": {"$schema": "https://example.com/meta", "type": "string"}}})
        ),
        "unknown `$schema` \"https://example.com/meta\" at /properties/a; expected draft 2020-12, 2019-09, draft-07, draft-06 or draft-04"
    );
    assert!(matches!(
        declare(json!({"$schema": 7, "type": "string"})),
        Err(SchemaError::UnknownDialect { .. })
    ));
    // An unknown dialect is refused even where the rest would accept everything.
    assert!(matches!(
        declare(json!({"$schema": "https://example.com/meta"})),
        Err(SchemaError::UnknownDialect { .. })
    ));
}

#[test]
fn the_declared_draft_is_the_one_validated() {
    // Draft-04 `exclusiveMaximum` is a boolean modifier of `maximum`.
    let Ok(output) = declare(json!({"$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object", "properties": {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": true}}}))
    else {
        panic!("refused")
    };
    assert!(output.check(&ToolResult::success(json!({"n": 5}))).is_err());
    assert_eq!(output.check(&ToolResult::success(json!({"n": 4}))), Ok(()));
}

#[test]
fn schemas_that_do_not_compile_are_refused() {
    assert_eq!(
        refusal(json!({"type": "object", "properties": {"a": {"type": "strin"}}})),
        "the schema does not compile: \"strin\" is not valid under any of the schemas listed in the 'anyOf' keyword (at /properties/a/type in the schema)"
    );
    assert_eq!(
        refusal(json!({"type": "string", "pattern": "(("})),
        "the schema does not compile: \"((\" is not a \"regex\" (at /pattern in the schema)"
    );
    assert!(matches!(
        declare(json!({"type": "array", "minItems": -1})),
        Err(SchemaError::DoesNotCompile { .. })
    ));
}

#[test]
fn envelope_shape_needs_an_object_data_root() {
    let message = "an envelope-shape tool needs a data schema whose root has \"type\": \"object\" (its outputs become the envelope's `data` properties)";
    for doc in [
        json!({"type": "array", "items": {"type": "string"}}),
        json!({"type": "string"}),
        json!({"anyOf": [{"type": "object"}, {"type": "null"}]}),
        json!(false),
    ] {
        let refused = ToolOutput::from_declaration(&doc, Shape::Envelope);
        assert_eq!(refused.err().map(|e| e.to_string()).as_deref(), Some(message), "{doc}");
        assert!(declare(doc).is_ok());
    }
    let typed = json!({"outputs": {"message": {"type": "string"}}});
    assert!(ToolOutput::from_declaration(&typed, Shape::Envelope).is_ok());
}

#[test]
fn prepared_data_that_passed_one_schema_is_still_checked_against_another() {
    use toolwire_core::PreparedData;
    let small = declare(json!({"type": "object", "properties": {"n": {"maximum": 4}}}))
        .unwrap_or_else(|e| panic!("{e}"));
    let smaller = declare(json!({"type": "object", "properties": {"n": {"maximum": 2}}}))
        .unwrap_or_else(|e| panic!("{e}"));
    let prepared = PreparedData::new(json!({"n": 3}));
    let call = || ToolResult::success_prepared(prepared.clone());
    // Passing `small` is remembered by the prepared value and its copies, for `small` only.
    assert_eq!(small.check(&call()), Ok(()));
    assert!(smaller.check(&call()).is_err());
    assert_eq!(small.check(&call()), Ok(()));
    assert!(smaller.check(&call()).is_err());
    // The same declaration compiled again is another schema: the memo does not carry over to a
    // stricter one compiled in its place either.
    let again = declare(json!({"type": "object", "properties": {"n": {"maximum": 2}}}))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(again.check(&call()).is_err());
    // A failure is not remembered: prepared data that fails, fails on every call.
    let too_big = PreparedData::new(json!({"n": 9}));
    for _ in 0..2 {
        assert!(small.check(&ToolResult::success_prepared(too_big.clone())).is_err());
    }
    // An array of prepared values is new data, checked for itself.
    let items = declare(
        json!({"type": "array", "items": {"type": "object", "properties": {"n": {"maximum": 2}}}}),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let list = PreparedData::array([&prepared]);
    assert!(items.check(&ToolResult::success_prepared(list)).is_err());
}

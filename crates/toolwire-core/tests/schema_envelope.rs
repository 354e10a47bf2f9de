//! The envelope shape (the bridge issue's greeting test), entity handles, and what `check`
//! accepts and refuses.

use serde_json::{Value, json};
use toolwire_core::pointer::Violation;
use toolwire_core::{
    ErrorCode, McpRevision, Shape, ToolError, ToolOutput, ToolResult, ValidationMode,
    envelope_structured,
};

const STRUCTURED: [McpRevision; 3] =
    [McpRevision::V2025_06_18, McpRevision::V2025_11_25, McpRevision::V2026_07_28];

fn accepts(schema: &Value, instance: &Value) -> bool {
    match jsonschema::options().offline().build(schema) {
        Ok(validator) => validator.is_valid(instance),
        Err(err) => panic!("{schema} does not compile: {err}"),
    }
}

fn declare(doc: Value, shape: Shape) -> ToolOutput {
    ToolOutput::from_declaration(&doc, shape).unwrap_or_else(|err| panic!("{doc}: {err}"))
}

fn published(output: &ToolOutput, revision: McpRevision) -> Value {
    output.published(revision).unwrap_or_else(|| panic!("nothing published for {revision:?}"))
}

fn greeting() -> ToolOutput {
    declare(json!({"outputs": {"message": {"type": "string", "required": true}}}), Shape::Envelope)
}

#[test]
fn greeting_publishes_the_envelope_schema() {
    let output = greeting();
    assert_eq!(output.shape(), Shape::Envelope);
    assert_eq!(
        output.declared(),
        Some(
            &json!({"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]})
        )
    );
    let expected = json!({
        "type": "object",
        "properties": {
            "success": {"type": "boolean"},
            "message": {"type": "string"},
            "data": {"type": "object", "properties": {"message": {"type": "string"}}},
            "input_schema": {"type": "object"}
        },
        "required": ["success", "message", "data"],
        "if": {"properties": {"success": {"const": true}}},
        "then": {"properties": {"data": {"required": ["message"]}}}
    });
    for revision in STRUCTURED {
        let schema = published(&output, revision);
        assert_eq!(schema, expected, "{revision:?}");
        assert_eq!(schema["properties"]["data"]["properties"]["message"]["type"], json!("string"));
    }
    assert_eq!(output.published(McpRevision::V2025_03_26), None);
}

#[test]
fn greeting_success_and_access_denied_failure_both_validate() {
    let output = greeting();
    let success = ToolResult::builder()
        .data(json!({"message": "Hello, Ada!"}))
        .summary("Greeted Ada")
        .build()
        .unwrap_or_else(|err| panic!("{err}"));
    let denied = ToolResult::failure(ToolError::missing_privilege(["use greeting_tool"]));
    // The envelopes exactly as the bridge sends them.
    let success_wire =
        json!({"success": true, "message": "Greeted Ada", "data": {"message": "Hello, Ada!"}});
    let denied_wire =
        json!({"success": false, "message": "Missing privilege: use greeting_tool", "data": {}});
    assert_eq!(envelope_structured(&success, None), success_wire);
    assert_eq!(envelope_structured(&denied, None), denied_wire);
    for revision in STRUCTURED {
        let schema = published(&output, revision);
        assert!(accepts(&schema, &success_wire), "{revision:?}");
        assert!(accepts(&schema, &denied_wire), "{revision:?}");
    }
    assert_eq!(output.check(&success), Ok(()));
    assert_eq!(output.check(&denied), Ok(()));
}

#[test]
fn greeting_success_without_message_does_not_validate() {
    let output = greeting();
    let result = ToolResult::success(json!({"greeting": "Hello"}));
    assert_eq!(
        output.check(&result),
        Err(Violation::new("", "\"message\" is a required property"))
    );
    let wire = json!({"success": true, "message": "", "data": {"greeting": "Hello"}});
    assert_eq!(envelope_structured(&result, None), wire);
    for revision in STRUCTURED {
        assert!(!accepts(&published(&output, revision), &wire), "{revision:?}");
    }
    // Without data, the success's data is `{}`, which lacks the required output too.
    let empty = ToolResult::empty();
    assert_eq!(
        output.check(&empty).map_err(|v| v.to_string()),
        Err("(root): \"message\" is a required property".into())
    );
    assert_eq!(
        envelope_structured(&empty, None),
        json!({"success": true, "message": "", "data": {}})
    );
    let wrong_type = ToolResult::success(json!({"message": 7}));
    assert_eq!(
        output.check(&wrong_type).map_err(|v| v.to_string()),
        Err("/message: 7 is not of type \"string\"".into())
    );
}

#[test]
fn a_plain_data_required_would_reject_every_failure() {
    // The schema first proposed in the bridge issue puts `required` on `data` itself.
    let proposed = json!({
        "type": "object",
        "properties": {"success": {"type": "boolean"}, "message": {"type": "string"},
            "data": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}},
        "required": ["success", "message", "data"]
    });
    let denied =
        envelope_structured(&ToolResult::failure(ToolError::missing_privilege(["x"])), None);
    assert!(!accepts(&proposed, &denied));
    assert!(accepts(&published(&greeting(), McpRevision::V2025_06_18), &denied));
}

#[test]
fn envelope_without_required_outputs_has_no_condition() {
    let output = declare(json!({"outputs": {"count": {"type": "integer"}}}), Shape::Envelope);
    let schema = published(&output, McpRevision::V2025_11_25);
    assert_eq!(schema.get("if"), None);
    assert_eq!(schema.get("then"), None);
    assert_eq!(
        schema["properties"]["data"],
        json!({"type": "object", "properties": {"count": {"type": "integer"}}})
    );
}

#[test]
fn envelope_without_declared_outputs_publishes_nothing() {
    let output = ToolOutput::none(Shape::Envelope);
    for revision in McpRevision::ALL {
        assert_eq!(output.published(revision), None);
    }
    assert_eq!(output.check(&ToolResult::success(json!([1]))), Ok(()));
}

#[test]
fn invalid_arguments_failures_carry_the_input_schema() {
    let output = greeting();
    let input =
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    let failure = ToolResult::failure(ToolError::invalid_arguments(
        "name is required",
        [("/name", "missing")],
    ));
    let wire = envelope_structured(&failure, Some(&input));
    assert_eq!(
        wire,
        json!({"success": false, "message": "name is required", "data": {}, "input_schema": input})
    );
    for revision in STRUCTURED {
        assert!(accepts(&published(&output, revision), &wire));
    }
    let other = ToolResult::failure(ToolError::new(ErrorCode::NotFound, "gone"));
    assert_eq!(envelope_structured(&other, Some(&input)).get("input_schema"), None);
}

#[test]
fn envelope_keeps_every_constraint_of_a_raw_schema_for_successes_only() {
    let output = declare(
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Order",
            "type": "object",
            "properties": {"lines": {"type": "array", "items": {"$ref": "#/$defs/line"}}, "note": {"$ref": "#/properties/lines/items"}},
            "required": ["lines"],
            "additionalProperties": false,
            "$defs": {"line": {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}}
        }),
        Shape::Envelope,
    );
    let good = json!({"success": true, "message": "", "data": {"lines": [{"sku": "A"}]}});
    let extra = json!({"success": true, "message": "", "data": {"lines": [], "x": 1}});
    let bad_line = json!({"success": true, "message": "", "data": {"lines": [{}]}});
    let bad_note = json!({"success": true, "message": "", "data": {"lines": [], "note": {}}});
    let failure = json!({"success": false, "message": "no", "data": {}});
    for revision in STRUCTURED {
        let schema = published(&output, revision);
        assert_eq!(schema.get("$schema").is_some(), revision != McpRevision::V2025_06_18);
        assert!(accepts(&schema, &good), "{revision:?} {schema}");
        assert!(!accepts(&schema, &extra));
        assert!(!accepts(&schema, &bad_line));
        assert!(!accepts(&schema, &bad_note));
        assert!(accepts(&schema, &failure));
    }
    assert_eq!(output.check(&ToolResult::success(good["data"].clone())), Ok(()));
    assert_eq!(
        output.check(&ToolResult::success(bad_line["data"].clone())).map_err(|v| v.path),
        Err("/lines/0".into())
    );
}

#[test]
fn envelope_accepts_a_success_exactly_when_check_does_and_every_failure() {
    let cases = [
        (
            json!({"type": "object", "properties": {"a": {"type": "integer"}}, "minProperties": 1,
                   "patternProperties": {"^x-": {"type": "string"}}}),
            vec![
                json!({"a": 1}),
                json!({}),
                json!({"x-y": 1}),
                json!({"x-y": "z"}),
                json!({"a": "1"}),
            ],
        ),
        (
            json!({"type": "object", "properties": {"child": {"$ref": "#"}, "n": {"type": "number"}},
                   "required": ["n"], "unevaluatedProperties": false}),
            vec![
                json!({"n": 1, "child": {"n": 2}}),
                json!({"n": 1, "child": {}}),
                json!({"n": 1, "z": 0}),
            ],
        ),
        (
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                   "properties": {"tags": {"type": "array", "items": {"$ref": "#/definitions/tag"}}},
                   "required": ["tags"], "definitions": {"tag": {"type": "string", "enum": ["a", "b"]}}}),
            vec![json!({"tags": ["a"]}), json!({"tags": ["c"]}), json!({}), json!([])],
        ),
    ];
    for (declared, instances) in cases {
        let output = declare(declared.clone(), Shape::Envelope);
        let failure = envelope_structured(
            &ToolResult::failure(ToolError::new(ErrorCode::RuleViolation, "no")),
            None,
        );
        for revision in STRUCTURED {
            let schema = published(&output, revision);
            assert!(accepts(&schema, &failure), "{revision:?} {schema}");
            for data in &instances {
                let result = ToolResult::success(data.clone());
                let wire = envelope_structured(&result, None);
                assert_eq!(
                    accepts(&schema, &wire),
                    output.check(&result).is_ok(),
                    "{revision:?} {schema} on {wire}"
                );
            }
        }
    }
}

fn entity_list() -> Value {
    json!({"outputs": {"products": {"type": "list", "required": true,
        "items": {"type": "entity", "entityType": "product"}}}})
}

#[test]
fn entity_lists_are_handles_in_the_schema_and_in_the_results() {
    let output = declare(entity_list(), Shape::Data);
    let handle =
        json!({"type": "string", "pattern": "^product:", "description": "Handle of a product"});
    assert_eq!(
        output.declared(),
        Some(
            &json!({"type": "object", "properties": {"products": {"type": "array", "items": handle}}, "required": ["products"]})
        )
    );
    let handles = json!({"products": ["product:7", "product:8"]});
    let bare = json!({"products": ["product:7", "7"]});
    assert_eq!(output.check(&ToolResult::success(handles.clone())), Ok(()));
    assert_eq!(
        output.check(&ToolResult::success(bare.clone())),
        Err(Violation::new("/products/1", "\"7\" does not match \"^product:\""))
    );
    for revision in STRUCTURED {
        let schema = published(&output, revision);
        assert!(accepts(&schema, &handles));
        assert!(!accepts(&schema, &bare));
    }
    let envelope = declare(entity_list(), Shape::Envelope);
    for revision in STRUCTURED {
        let schema = published(&envelope, revision);
        assert_eq!(schema["properties"]["data"]["properties"]["products"]["items"], handle);
        assert!(accepts(&schema, &json!({"success": true, "message": "", "data": handles})));
        assert!(!accepts(&schema, &json!({"success": true, "message": "", "data": bare})));
    }
}

#[test]
fn data_shape_check_rules() {
    let output =
        declare(json!({"type": "object", "properties": {"id": {"type": "integer"}}}), Shape::Data);
    assert_eq!(output.check(&ToolResult::success(json!({"id": 1}))), Ok(()));
    assert_eq!(
        output.check(&ToolResult::empty()),
        Err(Violation::new(
            "",
            "the tool declares an output schema but the success carries no data"
        ))
    );
    // A failure carries no `structuredContent` under a data schema: nothing to check.
    let failure = ToolResult::failure(ToolError::new(ErrorCode::NotFound, "no such product"));
    assert_eq!(output.check(&failure), Ok(()));
    let violation = output.check(&ToolResult::success(json!([1])));
    assert_eq!(
        violation.map_err(|v| v.to_string()),
        Err("(root): [1] is not of type \"object\"".into())
    );
    assert_eq!(ToolOutput::none(Shape::Data).check(&ToolResult::empty()), Ok(()));
}

#[test]
fn enforce_turns_a_violation_into_a_validating_tool_error() {
    for shape in [Shape::Data, Shape::Envelope] {
        let output =
            declare(json!({"outputs": {"message": {"type": "string", "required": true}}}), shape);
        let Err(violation) = output.check(&ToolResult::success(json!({"message": ["hi"]}))) else {
            panic!("accepted")
        };
        let error = violation.to_tool_error();
        assert_eq!(error.code, ErrorCode::ToolError);
        assert_eq!(
            error.message,
            "The tool's result does not match its output schema at /message: [\"hi\"] is not of type \"string\""
        );
        assert_eq!(
            error.details.clone().map(Value::Object),
            Some(json!({"path": "/message", "message": "[\"hi\"] is not of type \"string\""}))
        );
        let failure = ToolResult::failure(error);
        assert_eq!(output.check(&failure), Ok(()));
        if shape == Shape::Envelope {
            let wire = envelope_structured(&failure, None);
            for revision in STRUCTURED {
                assert!(accepts(&published(&output, revision), &wire));
            }
        }
    }
    let root = Violation::new("", "no data").to_tool_error();
    assert_eq!(
        root.message,
        "The tool's result does not match its output schema at the root: no data"
    );
}

#[test]
fn known_formats_are_asserted_and_unknown_ones_ignored() {
    let output = declare(
        json!({"type": "object", "properties": {
            "at": {"type": "string", "format": "date-time"},
            "count": {"type": "integer", "format": "uint32"}}}),
        Shape::Data,
    );
    assert_eq!(
        output.check(&ToolResult::success(json!({"at": "2026-11-29T20:00:00Z", "count": 3}))),
        Ok(())
    );
    assert_eq!(
        output.check(&ToolResult::success(json!({"at": "yesterday"}))),
        Err(Violation::new("/at", "\"yesterday\" is not a \"date-time\""))
    );
}

#[test]
fn tool_output_is_cheap_to_share() {
    fn shareable<T: Send + Sync + Clone + 'static>() {}
    shareable::<ToolOutput>();
    let output = greeting();
    let copy = output.clone();
    let handle =
        std::thread::spawn(move || copy.check(&ToolResult::success(json!({"message": "hi"}))));
    assert_eq!(handle.join().ok(), Some(Ok(())));
    assert_eq!(
        output.published(McpRevision::V2026_07_28),
        greeting().published(McpRevision::V2026_07_28)
    );
}

#[test]
fn validation_modes_parse() {
    assert_eq!(ValidationMode::default(), ValidationMode::Enforce);
    for mode in [ValidationMode::Enforce, ValidationMode::Warn, ValidationMode::Off] {
        assert_eq!(mode.as_str().parse(), Ok(mode));
        assert_eq!(serde_json::to_value(mode).unwrap(), json!(mode.to_string()));
        assert_eq!(serde_json::from_value::<ValidationMode>(json!(mode.as_str())).unwrap(), mode);
    }
    assert_eq!(
        "strict".parse::<ValidationMode>().map_err(|e| e.to_string()),
        Err("unknown validation mode `strict`; expected enforce, warn or off".to_owned())
    );
}

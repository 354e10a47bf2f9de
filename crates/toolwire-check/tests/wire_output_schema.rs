//! `wire::check_with_schema`: `structuredContent` against the tool's published outputSchema.

use serde_json::{Value, json};
use toolwire_check::wire::{self, WireViolation};
use toolwire_core::{McpRevision, Shape, Target, ToolOutput};

fn check(revision: McpRevision, value: &Value, schema: &Value) -> Vec<WireViolation> {
    wire::check_with_schema(Target::Mcp(revision), &value.to_string(), Some(schema))
}

fn object_schema() -> Value {
    json!({"type": "object", "properties": {"temperature": {"type": "number"}}, "required": ["temperature"]})
}

#[test]
fn matching_structured_content_passes() {
    let value = json!({"content": [{"type": "text", "text": "{\"temperature\":1}"}], "structuredContent": {"temperature": 1}});
    assert_eq!(check(McpRevision::V2025_06_18, &value, &object_schema()), vec![]);
}

#[test]
fn mismatching_structured_content_names_the_path_inside_it() {
    let value = json!({"content": [], "structuredContent": {"temperature": "warm"}});
    assert_eq!(
        check(McpRevision::V2025_11_25, &value, &object_schema()),
        vec![WireViolation::new(
            "/structuredContent/temperature",
            "value is not of type \"number\" (published outputSchema)"
        )]
    );
}

#[test]
fn a_success_without_structured_content_is_a_violation() {
    let value = json!({"content": [{"type": "text", "text": "x"}]});
    assert_eq!(
        check(McpRevision::V2025_06_18, &value, &object_schema()),
        vec![WireViolation::new(
            "/structuredContent",
            "missing: the tool publishes an outputSchema, so a success must carry `structuredContent`"
        )]
    );
    // A failure carries none under a data schema.
    let failure = json!({"content": [{"type": "text", "text": "x"}], "isError": true});
    assert_eq!(check(McpRevision::V2025_06_18, &failure, &object_schema()), vec![]);
}

#[test]
fn a_failure_with_structured_content_must_match_too() {
    let failure =
        json!({"content": [], "isError": true, "structuredContent": {"error": {"code": "x"}}});
    let violations = check(McpRevision::V2025_06_18, &failure, &object_schema());
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].path, "/structuredContent");
}

#[test]
fn published_forms_of_a_list_declaration_accept_what_each_revision_carries() {
    let declared = ToolOutput::from_declaration(
        &json!({"type": "array", "items": {"type": "integer"}}),
        Shape::Data,
    )
    .unwrap();
    let wrapped = json!({"content": [{"type": "text", "text": "[1,2]"}], "structuredContent": {"result": [1, 2]}});
    let published = declared.published(McpRevision::V2025_06_18).unwrap();
    assert_eq!(check(McpRevision::V2025_06_18, &wrapped, &published), vec![]);
    let bare = json!({"resultType": "complete", "content": [{"type": "text", "text": "[1,2]"}], "structuredContent": [1, 2]});
    let published = declared.published(McpRevision::V2026_07_28).unwrap();
    assert_eq!(check(McpRevision::V2026_07_28, &bare, &published), vec![]);
    // The unwrapped list under the 2025-06-18 form breaks both the revision and the schema.
    let wrong = json!({"content": [], "structuredContent": [1, 2]});
    let published = declared.published(McpRevision::V2025_06_18).unwrap();
    let paths: Vec<String> =
        check(McpRevision::V2025_06_18, &wrong, &published).into_iter().map(|v| v.path).collect();
    assert_eq!(paths, vec!["/structuredContent"; 3]);
}

#[test]
fn a_schema_that_does_not_compile_is_one_root_violation() {
    let value = json!({"content": [], "structuredContent": {}});
    let violations = check(McpRevision::V2025_06_18, &value, &json!({"type": 12}));
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].path, "");
    assert!(violations[0].message.starts_with("the published outputSchema does not compile: "));
}

#[test]
fn a_schema_the_compiler_would_panic_on_is_one_root_violation() {
    // A server under audit publishes two schemas with one URI; jsonschema panics on it.
    let schema = json!({
        "type": "object",
        "$defs": {"a": {"$id": "http://a/x", "$anchor": "q"}, "b": {"$id": "http://a/x"}},
        "properties": {"p": {"$ref": "http://a/x#q"}}
    });
    let value = json!({"content": [], "structuredContent": {}});
    let violations = check(McpRevision::V2025_06_18, &value, &schema);
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(
        violations[0].message,
        "the published outputSchema does not compile: `$id` `http://a/x` at /$defs/b gives the \
         URI of the schema at /$defs/a; every schema of a document needs a URI of its own"
    );
}

#[test]
fn the_schema_is_ignored_for_legacy_and_a2a() {
    let schema = object_schema();
    assert_eq!(
        wire::check_with_schema(Target::Legacy, r#"{"success":true,"data":1}"#, Some(&schema)),
        vec![]
    );
}

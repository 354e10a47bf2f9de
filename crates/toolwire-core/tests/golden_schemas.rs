//! The golden samples under declared output schemas (issue: output schemas, DESIGN §5): on every
//! target and phase the structured result validates against the schema published for that
//! revision; a failure under a data schema carries no `structuredContent`; `enforce` turns data
//! that breaks the declaration into a `tool_error` failure, which validates too.

mod golden_support;

use golden_support::*;
use serde_json::{Value, json};
use toolwire_core::{Shape, Target, ToolOutput};

/// Declarations covering every root the samples need: objects (plain and with a required
/// property), lists, strings, numbers, and a composition without a root `type`.
fn declarations() -> Vec<(Value, Shape)> {
    vec![
        (json!({"type": "object"}), Shape::Data),
        (
            json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
            Shape::Data,
        ),
        (json!({"type": "array"}), Shape::Data),
        (json!({"type": "string"}), Shape::Data),
        (json!({"type": "number"}), Shape::Data),
        (json!({"anyOf": [{"type": "object"}, {"type": "array"}]}), Shape::Data),
        (json!({"outputs": {"id": {"type": "integer", "required": true}}}), Shape::Envelope),
        (json!({"type": "object"}), Shape::Envelope),
    ]
}

#[test]
fn every_sample_under_every_declaration_matches_what_was_published() {
    for (declaration, shape) in declarations() {
        let output = match ToolOutput::from_declaration(&declaration, shape) {
            Ok(output) => output,
            Err(err) => panic!("{declaration}: {err}"),
        };
        for (name, result) in samples() {
            let breaks_declaration = result.is_success() && output.check(&result).is_err();
            for (target, phase) in renders() {
                let rendered = render_declared(&result, target, phase, &output);
                let context = format!("{name} under {declaration} ({shape:?}) on {target}");
                let published = match target {
                    Target::Mcp(revision) => output.published(revision),
                    _ => None,
                };
                let violations = toolwire_check::wire::check_with_schema(
                    target,
                    rendered.json(),
                    published.as_ref(),
                );
                assert!(violations.is_empty(), "{context}: {violations:?}\n{}", rendered.json());
                assert_eq!(
                    rendered.is_error(),
                    result.is_failure() || breaks_declaration,
                    "{context}: {}",
                    rendered.json()
                );
                let Target::Mcp(_) = target else { continue };
                let wire = value(rendered.json());
                let structured = wire.get("structuredContent");
                if rendered.is_error() && shape == Shape::Data {
                    assert_eq!(structured, None, "{context}: a failure under a data schema");
                }
                if breaks_declaration {
                    // The code reaches the model in the text: the envelope (compat) or the error
                    // block (spec).
                    let texts: Vec<&str> = wire["content"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|block| block["text"].as_str())
                        .collect();
                    assert!(
                        texts.iter().any(|text| text.contains("\"tool_error\"")),
                        "{context}: {texts:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_passthrough_from_a_tool_with_a_schema_becomes_a_tool_error() {
    let passthrough = toolwire_core::legacy::parse("plain text");
    for shape in [Shape::Data, Shape::Envelope] {
        let output = match ToolOutput::from_declaration(&json!({"type": "object"}), shape) {
            Ok(output) => output,
            Err(err) => panic!("{err}"),
        };
        let violation = output.check(&passthrough).map_err(|v| v.to_string());
        assert_eq!(
            violation,
            Err("(root): the tool answered text that is not a result, but it declares an output schema"
                .to_owned()),
            "{shape:?}"
        );
        let rendered = render_declared(
            &passthrough,
            mcp("mcp-2025-11-25"),
            toolwire_core::Phase::Spec,
            &output,
        );
        assert!(rendered.is_error(), "{}", rendered.json());
    }
}

//! The typed MCP output (`OutputMapper::render_owned`): its text and size are exactly the text
//! render's, and the `structuredContent` it hands out as a value is the one on the wire.

mod golden_support;

use golden_support::*;
use serde_json::Value;
use toolwire_core::{MapperConfig, OutputMapper, RenderContext, Rendered};
use toolwire_core::{Output, Shape, Target, ToolOutput, ToolResult};

fn complete(rendered: Result<Rendered, toolwire_core::RenderError>) -> Output {
    match rendered {
        Ok(Rendered::Complete(output)) => output,
        other => panic!("expected a complete render, got {other:?}"),
    }
}

/// Renders `result` both ways and checks that they agree.
fn check_both(mapper: &OutputMapper, result: &ToolResult, ctx: &RenderContext<'_>, label: &str) {
    for (target, phase) in renders() {
        let text = complete(mapper.render(result, target, phase, ctx));
        let typed = complete(mapper.render_owned(result.clone(), target, phase, ctx));
        assert_eq!(typed.json(), text.json(), "{label} {target} {phase:?}");
        assert_eq!(typed.size(), text.json().len(), "{label} {target} {phase:?}");
        assert_eq!(typed.is_error(), text.is_error());
        let Target::Mcp(revision) = target else {
            assert!(typed.mcp().is_none(), "{label} {target}: only MCP keeps a typed form");
            continue;
        };
        let Some(mcp) = typed.into_mcp() else { panic!("{label} {target}: no typed form") };
        assert_eq!(mcp.revision(), revision);
        assert_eq!(mcp.to_json(), text.json());
        let on_wire = value(text.json()).get("structuredContent").cloned();
        assert_eq!(mcp.into_structured_content(), on_wire, "{label} {target} {phase:?}");
    }
}

#[test]
fn typed_outputs_match_the_text_render() {
    let mapper = OutputMapper::default();
    let ctx = RenderContext::new("result", now());
    for (name, result) in samples().into_iter().chain(input_samples()) {
        check_both(&mapper, &result, &ctx, name);
    }
}

#[test]
fn typed_outputs_match_with_a_declared_schema_and_the_envelope_shape() {
    let mapper = OutputMapper::default();
    let input = serde_json::json!({"type": "object", "properties": {"id": {"type": "integer"}}});
    let declared = serde_json::json!({"type": "object", "properties": {"id": {"type": "integer"}}});
    for shape in [Shape::Data, Shape::Envelope] {
        let output = match ToolOutput::from_declaration(&declared, shape) {
            Ok(output) => output,
            Err(err) => panic!("{err}"),
        };
        let ctx = RenderContext::new("result", now()).output(&output).input_schema(&input);
        for (name, result) in samples() {
            check_both(&mapper, &result, &ctx, name);
        }
    }
}

#[test]
fn typed_offload_stubs_match_the_text_render() {
    let result = large();
    for (target, phase) in renders() {
        let mapper = OutputMapper::new(MapperConfig::default().with_limit(target, Some(4096)));
        let ctx = RenderContext::new("catalog_search", now());
        let finish = |rendered| match rendered {
            Ok(Rendered::NeedsOffload(offload)) => match offload.finish(fixed_link()) {
                Ok(output) => output,
                Err(err) => panic!("{target}: {err}"),
            },
            other => panic!("{target}: expected an offload, got {other:?}"),
        };
        let text = finish(mapper.render(&result, target, phase, &ctx));
        let typed = finish(mapper.render_owned(result.clone(), target, phase, &ctx));
        assert_eq!(typed.json(), text.json(), "{target} {phase:?}");
        assert_eq!(typed.size(), text.size());
        assert!(typed.offloaded());
        assert_eq!(typed.mcp().is_some(), matches!(target, Target::Mcp(_)));
    }
}

#[test]
fn structured_data_keeps_its_exact_numbers() {
    // The value handed out is the result's own data: numbers keep their exact text.
    let data: Value = value(r#"{"price": 12.50, "big": 100000000000000000000000001}"#);
    let result = ToolResult::success(data.clone());
    let output = complete(OutputMapper::default().render_owned(
        result,
        mcp("mcp-2025-06-18"),
        toolwire_core::Phase::Spec,
        &RenderContext::new("result", now()),
    ));
    let structured = output.into_mcp().and_then(|mcp| mcp.into_structured_content());
    assert_eq!(structured, Some(data));
}

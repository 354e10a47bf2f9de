//! The golden matrix (DESIGN §9): one reviewed snapshot per target and phase holding every
//! sample (and the large sample offloaded), pretty-printed; each entry pins the exact compact
//! wire text (see `snapshot_entry`); every output accepted by the wire checker.

mod golden_support;

use golden_support::*;
use toolwire_core::{MapperConfig, Output, RenderContext, Rendered};
use toolwire_core::{OutputMapper, Phase, Target, ToolResult};

#[test]
fn golden_matrix() {
    let samples = samples();
    for (target, phase) in renders() {
        let mut snapshot = String::new();
        for (name, result) in &samples {
            let output = render_with(&golden_mapper(), result, target, phase, &ctx());
            assert_wire_clean(target, output.json());
            if !matches!(target, Target::Mcp(_)) {
                // Legacy and A2A are phase-independent.
                let spec = render_with(&golden_mapper(), result, target, Phase::Spec, &ctx());
                assert_eq!(spec.json(), output.json(), "{name} {target}");
            }
            assert_eq!(output.size(), output.json().len());
            assert_eq!(output.is_error(), result.is_failure(), "{name} {target}");
            let entry = if target == Target::Legacy && result.is_passthrough() {
                // The legacy wire of a passthrough is the text itself, not JSON.
                output.json().to_owned()
            } else {
                snapshot_entry(target, output.json())
            };
            snapshot.push_str(&format!("## {name}\n{entry}\n\n"));
        }
        let offloaded = offloaded(&large(), target, phase);
        snapshot.push_str(&format!(
            "## large_result, offloaded at 4096 bytes\n{}\n",
            snapshot_entry(target, offloaded.json())
        ));
        insta::assert_snapshot!(snapshot_name(target, phase), snapshot);
    }
}

/// A result whose parts carry an audience: `annotations.audience` on their blocks on every MCP
/// revision, `audience` in the v1 part JSON of the legacy envelope, which reads back the same.
#[test]
fn golden_audience() {
    let result = audience_parts();
    let mut snapshot = String::new();
    for (target, phase) in renders() {
        let output = render_with(&golden_mapper(), &result, target, phase, &ctx());
        assert_wire_clean(target, output.json());
        snapshot.push_str(&format!(
            "## {}\n{}\n\n",
            label(target, phase),
            snapshot_entry(target, output.json())
        ));
        if target == Target::Legacy {
            let parsed = toolwire_core::legacy::parse(output.json());
            assert_eq!(parsed.parts(), result.parts());
        }
    }
    let v1 = toolwire_core::v1::to_vec(&result);
    assert_eq!(
        toolwire_core::v1::parse(&v1).map(|r| r.parts().to_vec()),
        Ok(result.parts().to_vec())
    );
    insta::assert_snapshot!("audience", snapshot);
}

fn ctx() -> RenderContext<'static> {
    RenderContext::new("result", now())
}

/// The large sample under a 4096-byte limit: offloaded to the fixed link, and the stored v1
/// bytes hold the whole result.
fn offloaded(result: &ToolResult, target: Target, phase: Phase) -> Output {
    let config = MapperConfig::default()
        .with_server_info("toolwire", SERVER_VERSION)
        .with_limit(target, Some(4096));
    let mapper = OutputMapper::new(config);
    let ctx = RenderContext::new("catalog_search", now());
    let offload = match mapper.render(result, target, phase, &ctx) {
        Ok(Rendered::NeedsOffload(offload)) => offload,
        other => panic!("{target}: expected an offload, got {other:?}"),
    };
    assert!(offload.size() > 4096);
    assert_eq!(offload.limit(), 4096);
    assert_eq!(offload.mime_type(), "application/json");
    let stored = toolwire_core::v1::parse(offload.v1_bytes());
    let mut expected = result.to_builder().generated_at(now()).build();
    if let Ok(expected) = expected.as_mut() {
        assert_eq!(stored.as_ref().map(|r| r.data()), Ok(expected.data()));
    }
    let output = match offload.finish(fixed_link()) {
        Ok(output) => output,
        Err(err) => panic!("{target}: {err}"),
    };
    assert!(output.offloaded());
    assert!(output.size() <= 4096, "{target}: {}", output.size());
    assert_wire_clean(target, output.json());
    output
}

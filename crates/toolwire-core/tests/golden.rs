//! The golden matrix (DESIGN §9): every sample × every target × both phases, as reviewed
//! snapshots of the exact compact wire text; every output accepted by the wire checker.

mod golden_support;

use golden_support::*;
use toolwire_core::mapper::{MapperConfig, OutputMapper, RenderContext, Rendered};
use toolwire_core::{Phase, Target};

#[test]
fn golden_matrix() {
    for (name, result) in samples() {
        let mut snapshot = String::new();
        for (target, phase) in renders() {
            let output = render(&result, target, phase);
            assert_wire_clean(target, output.json());
            if !matches!(target, Target::Mcp(_)) {
                // Legacy and A2A are phase-independent.
                assert_eq!(render(&result, target, Phase::Spec).json(), output.json());
            }
            assert_eq!(output.size(), output.json().len());
            assert_eq!(output.is_error(), result.is_failure(), "{name} {target}");
            snapshot.push_str(&format!("{}:\n{}\n", label(target, phase), output.json()));
        }
        insta::assert_snapshot!(name, snapshot);
    }
}

#[test]
fn golden_large_result_offloaded() {
    let result = large();
    let mut snapshot = String::new();
    for (target, phase) in renders() {
        let mapper = OutputMapper::new(MapperConfig::default().with_limit(target, Some(4096)));
        let ctx = RenderContext::new("catalog_search", now());
        let offload = match mapper.render(&result, target, phase, &ctx) {
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
        snapshot.push_str(&format!("{}:\n{}\n", label(target, phase), output.json()));
    }
    insta::assert_snapshot!("large_result", snapshot);
}

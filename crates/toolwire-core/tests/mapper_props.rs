//! Property tests of the mapper's invariants: every output passes the wire checker, the size
//! limit holds for every limit of at least 4 KiB, a kept output counts its exact size, the
//! compat MCP output starts with the legacy envelope text, the legacy envelope round-trips, a
//! success of a tool whose `outputSchema` the client was shown carries a `structuredContent` that
//! validates against it (strict clients), and nothing panics.

mod golden_support;
mod support;

use std::collections::HashMap;

use golden_support::{now, renders};
use proptest::prelude::*;
use serde_json::Value;
use toolwire_check::wire;
use toolwire_core::host::{HostProfile, Reads};
use toolwire_core::{
    MapperConfig, OutputMapper, RenderContext, RenderError, Rendered, StoreRefusal,
};
use toolwire_core::{McpRevision, Shape, ToolOutput};
use toolwire_core::{Part, Phase, Provenance, StoredLink, Target, ToolResult, legacy, v1};

fn mapper_for(target: Target, limit: Option<usize>) -> OutputMapper {
    OutputMapper::new(MapperConfig::default().with_limit(target, limit))
}

fn arb_target() -> impl Strategy<Value = (Target, Phase)> {
    proptest::sample::select(renders()).prop_flat_map(|(target, _)| {
        prop_oneof![Just((target, Phase::Compat)), Just((target, Phase::Spec))]
    })
}

/// A result, sometimes padded with a large text part so that it goes over small limits.
fn arb_padded() -> impl Strategy<Value = ToolResult> {
    (support::arb_result(), prop_oneof![Just(0usize), 1000usize..40_000]).prop_map(
        |(result, pad)| {
            if pad == 0 {
                return result;
            }
            let padded = result.to_builder().part(Part::text("ü\"".repeat(pad / 3))).build();
            padded.unwrap_or(result)
        },
    )
}

/// Strips the payloads (`data`, `blob`) of `_meta.parts` entries, as the compat block does.
fn without_payloads(mut envelope: Value) -> Value {
    if let Some(Value::Array(parts)) = envelope.pointer_mut("/_meta/parts") {
        for part in parts {
            if let Value::Object(map) = part {
                map.remove("data");
                map.remove("blob");
            }
        }
    }
    envelope
}

/// A declared output: an object root, a root that takes any data (published wrapped before
/// 2026-07-28), or the envelope shape.
fn arb_output() -> impl Strategy<Value = ToolOutput> {
    let any_data = serde_json::json!({"type": ["object", "array", "string", "number", "boolean"]});
    let object = serde_json::json!({"type": "object"});
    proptest::sample::select(vec![
        (object.clone(), Shape::Data),
        (any_data, Shape::Data),
        (object, Shape::Envelope),
    ])
    .prop_filter_map("a declaration that compiles", |(doc, shape)| {
        ToolOutput::from_declaration(&doc, shape).ok()
    })
}

/// Why a strict client (the official SDKs, Cursor, Gemini CLI, ChatGPT) would fail the call
/// `wire` of a tool whose published schema it was shown (compiled as `schema`), if it would.
fn strict_failure(wire: &Value, schema: &jsonschema::Validator) -> Option<String> {
    let is_error = wire.get("isError") == Some(&Value::Bool(true));
    match wire.get("structuredContent") {
        None if is_error => None,
        None => Some("a success without structuredContent".into()),
        Some(structured) => schema.validate(structured).err().map(|err| err.to_string()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_success_shown_an_output_schema_validates_against_it(
        result in arb_padded(),
        output in arb_output(),
        limit in proptest::option::of(4096usize..24_000),
        content_reader in any::<bool>(),
    ) {
        let host = HostProfile { name: "h".into(), reads: Reads::Content, ..HostProfile::generic() };
        for revision in McpRevision::ALL {
            let Some(published) = output.published(revision) else { continue };
            let schema = jsonschema::options().offline().build(&published)
                .map_err(|err| TestCaseError::fail(format!("{published} does not compile: {err}")))?;
            let target = Target::Mcp(revision);
            for phase in [Phase::Compat, Phase::Spec] {
                let ctx = RenderContext::new("tool", now()).output(&output);
                let ctx = if content_reader { ctx.host(&host) } else { ctx };
                let out = match mapper_for(target, limit).render(&result, target, phase, &ctx) {
                    Ok(Rendered::Complete(out)) => out,
                    Ok(Rendered::NeedsOffload(needs)) => {
                        let link = StoredLink::new("toolwire://results/r1?exp=1796032800&kid=k1&sig=c2ln");
                        match needs.finish(link) {
                            Ok(out) => out,
                            Err(err) => return Err(TestCaseError::fail(format!("{err}"))),
                        }
                    }
                    Err(err) => return Err(TestCaseError::fail(format!("{err}"))),
                };
                let wire: Value = serde_json::from_str(out.json()).map_err(|e| TestCaseError::fail(e.to_string()))?;
                let failure = strict_failure(&wire, &schema);
                prop_assert!(failure.is_none(), "{} {:?}: {:?}\n{}", target, phase, failure, out.json());
            }
        }
    }

    #[test]
    fn a_kept_output_counts_the_size_of_its_text(result in arb_padded(), (target, phase) in arb_target()) {
        // The typed render measures its compat envelope from its pieces; the text render writes
        // it. Both must agree to the byte, escapes included.
        let ctx = RenderContext::new("tool", now());
        let mapper = mapper_for(target, None);
        let (Ok(Rendered::Complete(text)), Ok(Rendered::Complete(typed))) = (
            mapper.render(&result, target, phase, &ctx),
            mapper.render_owned(result.clone(), target, phase, &ctx),
        ) else {
            return Err(TestCaseError::fail("expected complete renders without a limit"));
        };
        prop_assert_eq!(typed.size(), text.json().len());
        prop_assert_eq!(text.size(), text.json().len());
    }

    #[test]
    fn every_output_passes_the_wire_checker(result in support::arb_result()) {
        let ctx = RenderContext::new("tool", now());
        for (target, phase) in renders().into_iter().chain([
            (Target::parse("mcp-2025-06-18").unwrap_or(Target::Legacy), Phase::Spec),
        ]) {
            for phase in [phase, Phase::Spec] {
                match mapper_for(target, None).render(&result, target, phase, &ctx) {
                    Ok(Rendered::Complete(out)) => {
                        let violations = wire::check(target, out.json());
                        prop_assert!(violations.is_empty(), "{} {:?}: {:?}\n{}", target, phase, violations, out.json());
                    }
                    other => prop_assert!(false, "{}: {:?}", target, other),
                }
            }
        }
    }

    #[test]
    fn rendered_size_never_exceeds_a_limit_of_at_least_4_kib(
        result in arb_padded(),
        (target, phase) in arb_target(),
        limit in 4096usize..24_000,
    ) {
        let mut store: HashMap<String, Vec<u8>> = HashMap::new();
        let ctx = RenderContext::new("tool", now());
        let out = match mapper_for(target, Some(limit)).render(&result, target, phase, &ctx) {
            Ok(Rendered::Complete(out)) => out,
            Ok(Rendered::NeedsOffload(needs)) => {
                prop_assert!(needs.size() > limit);
                let id = format!("r{}", store.len());
                store.insert(id.clone(), needs.v1_bytes().to_vec());
                let link = StoredLink::new(format!("toolwire://results/{id}?exp=1796032800&kid=k1&sig=c2ln"))
                    .size(needs.v1_bytes().len() as u64);
                match needs.finish(link) {
                    Ok(out) => {
                        prop_assert!(out.offloaded());
                        out
                    }
                    Err(err) => return Err(TestCaseError::fail(format!("{err}"))),
                }
            }
            Err(err) => return Err(TestCaseError::fail(format!("{err}"))),
        };
        prop_assert!(out.size() <= limit, "{} > {}", out.size(), limit);
        let violations = wire::check(target, out.json());
        prop_assert!(violations.is_empty(), "{}: {:?}\n{}", target, violations, out.json());
        for bytes in store.values() {
            let stored = v1::parse(bytes);
            prop_assert!(stored.is_ok());
            if let Ok(stored) = stored {
                prop_assert_eq!(stored.data(), result.data());
                prop_assert_eq!(stored.parts(), result.parts());
            }
        }
    }

    #[test]
    fn compat_mcp_starts_with_the_legacy_envelope(result in support::arb_result()) {
        let ctx = RenderContext::new("tool", now());
        let mapper = mapper_for(Target::Legacy, None);
        let legacy_text = match mapper.render(&result, Target::Legacy, Phase::Compat, &ctx) {
            Ok(Rendered::Complete(out)) => out.into_json(),
            other => return Err(TestCaseError::fail(format!("{other:?}"))),
        };
        let has_payloads = result.parts().iter().any(|p| matches!(p, Part::Binary(_) | Part::EmbeddedResource(_)));
        for target in Target::ALL {
            let Target::Mcp(_) = target else { continue };
            let out = match mapper_for(target, None).render(&result, target, Phase::Compat, &ctx) {
                Ok(Rendered::Complete(out)) => out,
                other => return Err(TestCaseError::fail(format!("{other:?}"))),
            };
            let wire: Value = serde_json::from_str(out.json()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let first = wire.pointer("/content/0/text").and_then(Value::as_str).unwrap_or_default().to_owned();
            if has_payloads {
                let expected: Value = serde_json::from_str(&legacy_text).map_err(|e| TestCaseError::fail(e.to_string()))?;
                let got: Value = serde_json::from_str(&first).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(got, without_payloads(expected));
            } else {
                prop_assert_eq!(&first, &legacy_text);
            }
        }
    }

    #[test]
    fn legacy_envelope_round_trips(result in support::arb_result()) {
        // The legacy parser reads an empty `error` string as "no message" and gives its fallback
        // message: the one value the envelope cannot carry back.
        prop_assume!(result.error().is_none_or(|e| !e.message.is_empty()));
        let ctx = RenderContext::new("tool", now());
        let text = match mapper_for(Target::Legacy, None).render(&result, Target::Legacy, Phase::Compat, &ctx) {
            Ok(Rendered::Complete(out)) => out.into_json(),
            other => return Err(TestCaseError::fail(format!("{other:?}"))),
        };
        let parsed = legacy::parse(&text);
        prop_assert_eq!(parsed.provenance(), &Provenance::LegacyEnvelope(text.clone()));
        let mut expected = result.to_builder();
        if result.meta().generated_at.is_none() {
            expected = expected.generated_at(now());
        }
        let expected = expected.build().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let parsed = parsed.to_builder().build().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(parsed, expected, "{}", text);
    }

    #[test]
    fn nothing_panics(
        result in arb_padded(),
        (target, phase) in arb_target(),
        limit in proptest::option::of(0usize..30_000),
    ) {
        let ctx = RenderContext::new("tool", now());
        match mapper_for(target, limit).render(&result, target, phase, &ctx) {
            Ok(Rendered::Complete(out)) => prop_assert!(limit.is_none_or(|l| out.size() <= l)),
            Ok(Rendered::NeedsOffload(needs)) => {
                prop_assert!(limit.is_some_and(|l| l >= 4096));
                let _ = needs.store_failed(StoreRefusal::Unavailable);
            }
            Err(RenderError::LimitTooSmall { size, limit: l, .. }) => prop_assert!(l < 4096 && size > l),
            Err(err) => return Err(TestCaseError::fail(format!("{err}"))),
        }
    }
}

//! Size limits and offloading (DESIGN §4): the size definition, per-target limits, the stub,
//! `result_too_large`, store failure, the inline fallback and the small-limit error.

mod golden_support;

use golden_support::*;
use serde_json::{Value, json};
use toolwire_core::{
    A2aVersion, ErrorCode, Phase, Query, Shape, StoredLink, Target, ToolError, ToolOutput,
    ToolResult,
};
use toolwire_core::{
    MAX_INLINE, MapperConfig, NeedsOffload, OutputMapper, RenderContext, RenderError, Rendered,
    StoreRefusal,
};

fn big_data(bytes: usize) -> Value {
    json!({"blob": "x".repeat(bytes)})
}

fn offload(
    mapper: &OutputMapper,
    result: &ToolResult,
    target: Target,
    phase: Phase,
    ctx: &RenderContext<'_>,
) -> NeedsOffload {
    match mapper.render(result, target, phase, ctx) {
        Ok(Rendered::NeedsOffload(needs)) => needs,
        other => panic!("{target}: expected an offload, got {other:?}"),
    }
}

fn limited(target: Target, limit: usize) -> OutputMapper {
    OutputMapper::new(MapperConfig::default().with_limit(target, Some(limit)))
}

#[test]
fn default_limits() {
    let config = MapperConfig::default();
    for target in Target::ALL {
        let expected = match target {
            Target::A2a(_) => None,
            _ => Some(262_144),
        };
        assert_eq!(config.limit(target), expected, "{target}");
    }
    assert_eq!(config.prefix(), "dev.toolwire");
}

#[test]
fn size_is_the_compact_wire_length_and_the_limit_is_inclusive() {
    let result = ToolResult::success(json!({"a": 1}));
    let target = mcp("mcp-2025-06-18");
    let size = render(&result, target, Phase::Spec).size();
    let ctx = RenderContext::new("t", now());
    let exact = OutputMapper::new(MapperConfig::default().with_limit(target, Some(size)));
    assert!(matches!(
        exact.render(&result, target, Phase::Spec, &ctx),
        Err(RenderError::LimitTooSmall { .. }) | Ok(Rendered::Complete(_))
    ));
    let big = ToolResult::success(big_data(5000));
    let size = render(&big, target, Phase::Spec).size();
    assert!(matches!(
        limited(target, size).render(&big, target, Phase::Spec, &ctx),
        Ok(Rendered::Complete(_))
    ));
    let needs = offload(&limited(target, size - 1), &big, target, Phase::Spec, &ctx);
    assert_eq!(needs.size(), size);
    assert_eq!(needs.limit(), size - 1);
}

#[test]
fn a2a_has_no_limit_unless_configured() {
    let result = ToolResult::success(big_data(300_000));
    let target = Target::A2a(A2aVersion::V1_0);
    let out = render(&result, target, Phase::Compat);
    assert!(out.size() > 300_000);
    let ctx = RenderContext::new("t", now());
    let needs = offload(&limited(target, 8192), &result, target, Phase::Compat, &ctx);
    let out = match needs.finish(fixed_link()) {
        Ok(out) => out,
        Err(err) => panic!("{err}"),
    };
    assert_wire_clean(target, out.json());
    assert!(out.size() <= 8192);
}

#[test]
fn limits_below_4_kib_are_an_error_when_exceeded() {
    let result = ToolResult::success(big_data(5000));
    let ctx = RenderContext::new("t", now());
    let err = limited(Target::Legacy, 4095).render(&result, Target::Legacy, Phase::Compat, &ctx);
    match err {
        Err(RenderError::LimitTooSmall { target, size, limit }) => {
            assert_eq!((target, limit), (Target::Legacy, 4095));
            assert!(size > 5000);
        }
        other => panic!("{other:?}"),
    }
    let small = ToolResult::success(json!(1));
    assert!(matches!(
        limited(Target::Legacy, 100).render(&small, Target::Legacy, Phase::Compat, &ctx),
        Ok(Rendered::Complete(_))
    ));
}

#[test]
fn v1_bytes_hold_the_whole_result_with_generated_at() {
    let result = ToolResult::success(big_data(5000));
    let needs = offload(
        &limited(Target::Legacy, 4096),
        &result,
        Target::Legacy,
        Phase::Compat,
        &RenderContext::new("t", now()),
    );
    assert_eq!(needs.mime_type(), "application/json");
    let stored = match toolwire_core::v1::parse(needs.v1_bytes()) {
        Ok(stored) => stored,
        Err(err) => panic!("{err}"),
    };
    assert_eq!(stored.data(), result.data());
    assert_eq!(stored.meta().generated_at, Some(now()));
}

#[test]
fn stub_of_a_tool_with_an_output_schema_is_result_too_large() {
    let output = match ToolOutput::from_declaration(
        &json!({"type": "object", "properties": {"blob": {"type": "string"}}}),
        Shape::Data,
    ) {
        Ok(o) => o,
        Err(err) => panic!("{err}"),
    };
    let result = ToolResult::success(big_data(5000));
    for target in [mcp("mcp-2025-06-18"), mcp("mcp-2026-07-28")] {
        for phase in [Phase::Compat, Phase::Spec] {
            let ctx = RenderContext::new("t", now()).output(&output);
            let needs = offload(&limited(target, 4096), &result, target, phase, &ctx);
            let size = needs.size();
            let out = match needs.finish(fixed_link()) {
                Ok(out) => out,
                Err(err) => panic!("{err}"),
            };
            assert!(out.is_error() && out.offloaded());
            assert_wire_clean(target, out.json());
            let wire = value(out.json());
            assert_eq!(wire.get("isError"), Some(&json!(true)));
            assert_eq!(wire.get("structuredContent"), None);
            let expected = format!(
                "The result of {size} bytes exceeds the limit of 4096 bytes. It is stored at {} until 2026-11-29T11:00:00Z; read it with resources/read.",
                fixed_link().uri
            );
            assert!(out.json().contains(&expected.replace('"', "\\\"")), "{}", out.json());
            assert!(out.json().contains("result_too_large"));
            assert_eq!(wire.pointer("/_meta/dev.toolwire~1responseSize"), Some(&json!(size)));
        }
    }
}

#[test]
fn stub_without_schema_is_a_plain_success_with_the_link() {
    let result = ToolResult::success(big_data(5000));
    let target = mcp("mcp-2025-11-25");
    let needs = offload(
        &limited(target, 4096),
        &result,
        target,
        Phase::Spec,
        &RenderContext::new("t", now()),
    );
    let out = match needs.finish(fixed_link()) {
        Ok(out) => out,
        Err(err) => panic!("{err}"),
    };
    assert!(!out.is_error());
    let wire = value(out.json());
    assert_eq!(wire.get("isError"), None);
    assert_eq!(wire.get("structuredContent"), None);
    assert_eq!(
        wire.pointer("/content/0/text"),
        Some(&json!(format!(
            "The full result is stored at {}; read it with resources/read.",
            fixed_link().uri
        )))
    );
    assert!(
        wire.pointer("/content/1/text")
            .and_then(Value::as_str)
            .is_some_and(|t| t.starts_with("{\"_meta\":{\"dev.toolwire/responseSize\":"))
    );
    assert_eq!(
        wire.pointer("/content/2/text"),
        Some(&json!(format!(
            "Full result stored at {} (70000 bytes, application/json); read it with resources/read.",
            fixed_link().uri
        )))
    );
    assert_eq!(wire.pointer("/content/3/type"), Some(&json!("resource_link")));
    assert!(!out.json().contains("xxxxxxxx"));
}

#[test]
fn stub_keeps_the_error_cuts_the_summary_and_the_query() {
    let long_summary = "é".repeat(1500);
    let result = match ToolResult::builder()
        .error(ToolError::new(ErrorCode::UpstreamUnavailable, "half an answer"))
        .summary(long_summary.clone())
        .part(toolwire_core::Part::binary(vec![0u8; 6000], "application/zip"))
        .build()
    {
        Ok(r) => r,
        Err(err) => panic!("{err}"),
    };
    let target = mcp("mcp-2026-07-28");
    let ctx = RenderContext::new("search", now())
        .query(Query::new("search", json!({"q": "y".repeat(3000)})));
    let needs = offload(&limited(target, 4096), &result, target, Phase::Spec, &ctx);
    let out = match needs.finish(fixed_link()) {
        Ok(out) => out,
        Err(err) => panic!("{err}"),
    };
    assert!(out.is_error());
    assert_wire_clean(target, out.json());
    let wire = value(out.json());
    let summary =
        wire.pointer("/content/0/text").and_then(Value::as_str).unwrap_or_default().to_owned();
    assert!(
        summary.len() <= 1024 && summary.ends_with('…') && summary.starts_with("éé"),
        "{summary}"
    );
    assert_eq!(wire.pointer("/content/1/text"), Some(&json!("half an answer")));
    assert_eq!(wire.pointer("/structuredContent/error/code"), Some(&json!("upstream_unavailable")));
    let query = wire.pointer("/_meta/dev.toolwire~1query").cloned().unwrap_or_default();
    assert_eq!(query.get("tool"), Some(&json!("search")));
    assert!(serde_json::to_string(&query).map(|q| q.len() <= 1024).unwrap_or(false));
    assert!(
        query
            .get("arguments")
            .and_then(Value::as_str)
            .is_some_and(|a| a.starts_with("{\"q\":\"yyy"))
    );
    assert!(!out.json().contains("application/zip"), "no parts in a stub");
}

#[test]
fn store_failure_is_a_tool_error() {
    let result = ToolResult::success(big_data(5000));
    for target in [Target::Legacy, mcp("mcp-2025-06-18")] {
        let needs = offload(
            &limited(target, 4096),
            &result,
            target,
            Phase::Compat,
            &RenderContext::new("t", now()),
        );
        let size = needs.size();
        let out = needs.store_failed(StoreRefusal::Unavailable);
        assert!(out.is_error() && !out.offloaded());
        assert_wire_clean(target, out.json());
        let message = format!(
            "result of {size} bytes exceeds the limit of 4096 bytes and could not be stored: the result store is unavailable; try again later"
        );
        assert!(out.json().contains(&message), "{}", out.json());
        assert!(out.json().contains("tool_error"));
    }
}

#[test]
fn inline_fallback_warns_and_refuses_over_15_mib() {
    let result = ToolResult::success(big_data(5000));
    let needs = offload(
        &limited(Target::Legacy, 4096),
        &result,
        Target::Legacy,
        Phase::Compat,
        &RenderContext::new("t", now()),
    );
    let size = needs.size();
    let out = match needs.inline() {
        Ok(out) => out,
        Err(err) => panic!("{err}"),
    };
    assert_eq!(out.size(), size);
    assert!(!out.offloaded());
    assert_eq!(
        out.warnings(),
        [format!("result of {size} bytes exceeds the limit of 4096 bytes and was sent inline")]
    );

    let huge = ToolResult::success(big_data(MAX_INLINE));
    let needs = offload(
        &limited(Target::Legacy, 4096),
        &huge,
        Target::Legacy,
        Phase::Compat,
        &RenderContext::new("t", now()),
    );
    assert!(
        matches!(needs.inline(), Err(RenderError::InlineTooLarge { size }) if size > MAX_INLINE)
    );
}

#[test]
fn a_stub_that_cannot_fit_is_an_error() {
    let result = ToolResult::success(big_data(9000));
    let target = mcp("mcp-2025-06-18");
    let needs = offload(
        &limited(target, 4096),
        &result,
        target,
        Phase::Compat,
        &RenderContext::new("t", now()),
    );
    let link = StoredLink::new(format!("toolwire://results/{}", "z".repeat(5000)));
    assert!(matches!(needs.finish(link), Err(RenderError::StubTooLarge { limit: 4096, .. })));
}

/// A kept (typed) MCP result writes a small compat envelope when it is measured and counts a
/// large one from its pieces: on both sides of that line its size is its wire text's length,
/// and its wire text is the one a borrowed render writes.
#[test]
fn typed_results_are_measured_exactly_on_both_sides_of_the_written_envelope() {
    let ctx = RenderContext::new("result", now());
    let mapper = OutputMapper::new(MapperConfig::default().with_limit(mcp("mcp-2025-11-25"), None));
    // The data's compact text runs from just under to just over 64 KiB; quotes, backslashes and
    // control characters make the envelope's escaped length differ from its length.
    let mut sides = (false, false);
    for blob in [65_400, 65_506, 65_507, 65_508, 65_600] {
        let text = format!("\"q\" \\ \u{1}\n{}", "x".repeat(blob));
        let result = ToolResult::success(json!({"blob": text}));
        let data_len = serde_json::to_string(&json!({"blob": text})).map_or(0, |t| t.len());
        if data_len <= 64 * 1024 {
            sides.0 = true;
        } else {
            sides.1 = true;
        }
        for phase in [Phase::Compat, Phase::Spec] {
            let target = mcp("mcp-2025-11-25");
            let borrowed = render_with(&mapper, &result, target, phase, &ctx);
            let kept = match mapper.render_owned(result.clone(), target, phase, &ctx) {
                Ok(Rendered::Complete(out)) => out,
                other => panic!("{data_len} bytes: {other:?}"),
            };
            assert_eq!(kept.json(), borrowed.json(), "{data_len} bytes, {phase:?}");
            assert_eq!(kept.size(), kept.json().len(), "{data_len} bytes, {phase:?}");
            assert_eq!(borrowed.size(), borrowed.json().len(), "{data_len} bytes, {phase:?}");
        }
    }
    assert_eq!(sides, (true, true), "data on both sides of 64 KiB");
}

//! One test per row of DESIGN §3's `structuredContent` table and capability table, per
//! synthesized value, `Passthrough` on every target, and the validation modes.

mod golden_support;

use golden_support::*;
use serde_json::{Value, json};
use toolwire_check::wire;
use toolwire_core::revision::{McpCaps, StructuredCap};
use toolwire_core::{
    ErrorCode, McpRevision, Part, Phase, ResourceLinkPart, Shape, StoredLink, Target, ToolError,
    ToolOutput, ToolResult, ValidationMode, legacy,
};
use toolwire_core::{MapperConfig, OutputMapper, RenderContext};

const SC_REVISIONS: [&str; 3] = ["mcp-2025-06-18", "mcp-2025-11-25", "mcp-2026-07-28"];

fn structured(result: &ToolResult, target: Target, output: Option<&ToolOutput>) -> Option<Value> {
    let mut found = None;
    for phase in [Phase::Compat, Phase::Spec] {
        let out = match output {
            Some(output) => render_declared(result, target, phase, output),
            None => render(result, target, phase),
        };
        let published = output.and_then(|o| match target {
            Target::Mcp(revision) => o.published(revision),
            _ => None,
        });
        let violations = wire::check_with_schema(target, out.json(), published.as_ref());
        assert!(violations.is_empty(), "{target}: {violations:?}\n{}", out.json());
        let this = value(out.json()).get("structuredContent").cloned();
        if phase == Phase::Spec {
            assert_eq!(this, found, "{target}: the phases disagree");
        }
        found = this;
    }
    found
}

fn declared(schema: Value, shape: Shape) -> ToolOutput {
    match ToolOutput::from_declaration(&schema, shape) {
        Ok(output) => output,
        Err(err) => panic!("{err}"),
    }
}

#[test]
fn sc_no_schema_wraps_non_objects_only_where_objects_are_required() {
    let object = ToolResult::success(json!({"a": 1}));
    let list = ToolResult::success(json!([1, 2]));
    for name in SC_REVISIONS {
        let target = mcp(name);
        assert_eq!(structured(&object, target, None), Some(json!({"a": 1})), "{name}");
        let expected =
            if name == "mcp-2026-07-28" { json!([1, 2]) } else { json!({"result": [1, 2]}) };
        assert_eq!(structured(&list, target, None), Some(expected), "{name}");
    }
}

#[test]
fn sc_object_root_schema_sends_the_data() {
    let output =
        declared(json!({"type": "object", "properties": {"a": {"type": "integer"}}}), Shape::Data);
    let result = ToolResult::success(json!({"a": 1}));
    for name in SC_REVISIONS {
        assert_eq!(structured(&result, mcp(name), Some(&output)), Some(json!({"a": 1})), "{name}");
    }
}

#[test]
fn sc_other_root_schema_wraps_by_the_schema() {
    let output = declared(json!({"type": "array", "items": {"type": "integer"}}), Shape::Data);
    let result = ToolResult::success(json!([1, 2]));
    assert_eq!(
        structured(&result, mcp("mcp-2025-06-18"), Some(&output)),
        Some(json!({"result": [1, 2]}))
    );
    assert_eq!(
        structured(&result, mcp("mcp-2025-11-25"), Some(&output)),
        Some(json!({"result": [1, 2]}))
    );
    assert_eq!(structured(&result, mcp("mcp-2026-07-28"), Some(&output)), Some(json!([1, 2])));
    // An object under an `anyOf` root is wrapped too: wrapping follows the schema, not the data.
    let any_of = declared(json!({"anyOf": [{"type": "object"}, {"type": "integer"}]}), Shape::Data);
    let object = ToolResult::success(json!({"a": 1}));
    assert_eq!(
        structured(&object, mcp("mcp-2025-06-18"), Some(&any_of)),
        Some(json!({"result": {"a": 1}}))
    );
    assert_eq!(structured(&object, mcp("mcp-2026-07-28"), Some(&any_of)), Some(json!({"a": 1})));
}

#[test]
fn sc_success_without_data_has_none() {
    for name in SC_REVISIONS {
        assert_eq!(structured(&ToolResult::empty(), mcp(name), None), None, "{name}");
    }
}

#[test]
fn sc_failure_without_schema_is_the_error_object() {
    let failure = ToolResult::failure(ToolError::new(ErrorCode::NotFound, "gone"));
    let with_details = ToolResult::failure(ToolError::missing_privilege(["a"]));
    for name in SC_REVISIONS {
        assert_eq!(
            structured(&failure, mcp(name), None),
            Some(json!({"error": {"code": "not_found", "message": "gone"}})),
            "absent details are left out, never null"
        );
        assert_eq!(
            structured(&with_details, mcp(name), None),
            Some(
                json!({"error": {"code": "missing_privilege", "message": "Missing privilege: a", "details": {"missing": ["a"]}}})
            )
        );
    }
}

#[test]
fn sc_failure_under_a_data_schema_has_none() {
    let output =
        declared(json!({"type": "object", "properties": {"id": {"type": "integer"}}}), Shape::Data);
    let failure = ToolResult::failure(ToolError::new(ErrorCode::NotFound, "gone"));
    for name in SC_REVISIONS {
        assert_eq!(structured(&failure, mcp(name), Some(&output)), None, "{name}");
    }
}

#[test]
fn sc_envelope_shape() {
    let output = ToolOutput::none(Shape::Envelope);
    let success = match ToolResult::builder().data(json!({"a": 1})).summary("done").build() {
        Ok(r) => r,
        Err(err) => panic!("{err}"),
    };
    let failure = ToolResult::failure(ToolError::invalid_arguments("bad", [("/q", "required")]));
    let input_schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    for name in SC_REVISIONS {
        let target = mcp(name);
        assert_eq!(
            structured(&success, target, Some(&output)),
            Some(json!({"success": true, "message": "done", "data": {"a": 1}}))
        );
        assert_eq!(
            structured(&ToolResult::empty(), target, Some(&output)),
            Some(json!({"success": true, "message": "", "data": {}}))
        );
        let ctx = RenderContext::new("t", now()).output(&output).input_schema(&input_schema);
        let out = render_with(&OutputMapper::default(), &failure, target, Phase::Spec, &ctx);
        assert_wire_clean(target, out.json());
        assert_eq!(
            value(out.json()).get("structuredContent"),
            Some(
                &json!({"success": false, "message": "bad", "data": {}, "input_schema": input_schema})
            )
        );
        let other = ToolResult::failure(ToolError::new(ErrorCode::Conflict, "later"));
        let out = render_with(&OutputMapper::default(), &other, target, Phase::Spec, &ctx);
        assert_eq!(
            value(out.json()).get("structuredContent"),
            Some(&json!({"success": false, "message": "later", "data": {}}))
        );
    }
}

#[test]
fn capability_table_rows() {
    let rows = McpRevision::ALL.map(|r| {
        let c = McpCaps::of(r);
        (c.structured_content, c.resource_link, c.audio, c.block_meta, c.result_type)
    });
    assert_eq!(
        rows,
        [
            (StructuredCap::Never, false, false, false, false),
            (StructuredCap::Never, false, true, false, false),
            (StructuredCap::ObjectOnly, true, true, true, false),
            (StructuredCap::ObjectOnly, true, true, true, false),
            (StructuredCap::Any, true, true, true, true),
        ]
    );
}

fn content(result: &ToolResult, target: Target) -> Vec<Value> {
    let out = render(result, target, Phase::Spec);
    assert_wire_clean(target, out.json());
    match value(out.json()).get("content") {
        Some(Value::Array(blocks)) => blocks.clone(),
        other => panic!("no content: {other:?}"),
    }
}

fn only_parts(parts: Vec<Part>) -> ToolResult {
    let mut builder = ToolResult::builder();
    for part in parts {
        builder = builder.part(part);
    }
    match builder.build() {
        Ok(r) => r,
        Err(err) => panic!("{err}"),
    }
}

#[test]
fn cap_structured_content_never_before_2025_06_18() {
    let result = ToolResult::success(json!({"a": 1}));
    for name in ["mcp-2024-11-05", "mcp-2025-03-26"] {
        assert_eq!(structured(&result, mcp(name), None), None);
    }
}

#[test]
fn cap_resource_link_block_or_text_fallback() {
    let full = only_parts(vec![Part::resource_link_with(
        ResourceLinkPart::new("https://x.test/r.csv", "r.csv")
            .title("Rows")
            .description("All rows")
            .mime_type("text/csv")
            .size(12),
    )]);
    let bare = only_parts(vec![Part::resource_link("https://x.test/r", "r")]);
    for name in ["mcp-2024-11-05", "mcp-2025-03-26"] {
        assert_eq!(
            content(&full, mcp(name)),
            vec![
                json!({"type": "text", "text": "Resource Rows: https://x.test/r.csv (text/csv, 12 bytes) — All rows"})
            ]
        );
        assert_eq!(
            content(&bare, mcp(name)),
            vec![json!({"type": "text", "text": "Resource r: https://x.test/r"})]
        );
    }
    for name in SC_REVISIONS {
        assert_eq!(
            content(&full, mcp(name)),
            vec![
                json!({"type": "resource_link", "uri": "https://x.test/r.csv", "name": "r.csv", "title": "Rows", "description": "All rows", "mimeType": "text/csv", "size": 12})
            ]
        );
    }
}

#[test]
fn cap_audio_block_from_2025_03_26() {
    let result = only_parts(vec![Part::binary(b"ID3".to_vec(), "audio/mpeg")]);
    assert_eq!(
        content(&result, mcp("mcp-2024-11-05")),
        vec![
            json!({"type": "resource", "resource": {"uri": "toolwire://part/0", "mimeType": "audio/mpeg", "blob": "SUQz"}})
        ]
    );
    for name in ["mcp-2025-03-26", "mcp-2025-06-18", "mcp-2025-11-25", "mcp-2026-07-28"] {
        assert_eq!(
            content(&result, mcp(name)),
            vec![json!({"type": "audio", "data": "SUQz", "mimeType": "audio/mpeg"})]
        );
    }
}

#[test]
fn cap_other_binaries_are_embedded_blobs_and_images_image_blocks() {
    let result = only_parts(vec![
        Part::binary(b"%PDF".to_vec(), "application/pdf"),
        Part::binary(b"GIF8".to_vec(), "image/gif"),
    ]);
    for target in [mcp("mcp-2024-11-05"), mcp("mcp-2025-06-18"), mcp("mcp-2026-07-28")] {
        assert_eq!(
            content(&result, target),
            vec![
                json!({"type": "resource", "resource": {"uri": "toolwire://part/0", "mimeType": "application/pdf", "blob": "JVBERg=="}}),
                json!({"type": "image", "data": "R0lGOA==", "mimeType": "image/gif"}),
            ]
        );
    }
}

#[test]
fn cap_block_meta_carries_the_binary_name_from_2025_06_18() {
    let result = only_parts(vec![Part::named_binary(b"GIF8".to_vec(), "image/gif", "a.gif")]);
    for name in ["mcp-2024-11-05", "mcp-2025-03-26"] {
        assert_eq!(
            content(&result, mcp(name)),
            vec![json!({"type": "image", "data": "R0lGOA==", "mimeType": "image/gif"})]
        );
        // The name travels only in the compat envelope's `_meta.parts`.
        let compat = render(&result, mcp(name), Phase::Compat);
        assert!(
            compat
                .json()
                .contains(r#"{\"type\":\"binary\",\"mimeType\":\"image/gif\",\"name\":\"a.gif\"}"#),
            "{}",
            compat.json()
        );
    }
    for name in SC_REVISIONS {
        assert_eq!(
            content(&result, mcp(name)),
            vec![
                json!({"type": "image", "data": "R0lGOA==", "mimeType": "image/gif", "_meta": {"dev.toolwire/name": "a.gif"}})
            ]
        );
    }
}

#[test]
fn cap_result_type_and_server_info_only_on_2026_07_28() {
    let result = ToolResult::success(json!(1));
    for target in Target::ALL {
        let Target::Mcp(revision) = target else { continue };
        let out = value(render(&result, target, Phase::Spec).json());
        let has = revision == McpRevision::V2026_07_28;
        assert_eq!(out.get("resultType").is_some(), has, "{target}");
        assert_eq!(
            out.pointer("/_meta/io.modelcontextprotocol~1serverInfo").is_some(),
            has,
            "{target}"
        );
    }
    let first_key = render(&result, mcp("mcp-2026-07-28"), Phase::Spec);
    assert!(first_key.json().starts_with(r#"{"resultType":"complete","#));
}

#[test]
fn synth_server_info_default_and_configured() {
    let result = ToolResult::success(json!(1));
    let out = value(render(&result, mcp("mcp-2026-07-28"), Phase::Spec).json());
    assert_eq!(
        out.pointer("/_meta/io.modelcontextprotocol~1serverInfo"),
        Some(&json!({"name": "toolwire", "version": env!("CARGO_PKG_VERSION")}))
    );
    let mapper = OutputMapper::new(MapperConfig::default().with_server_info("acme-gw", "2.1.0"));
    let out = render_with(
        &mapper,
        &result,
        mcp("mcp-2026-07-28"),
        Phase::Spec,
        &RenderContext::new("t", now()),
    );
    assert_eq!(
        value(out.json()).pointer("/_meta/io.modelcontextprotocol~1serverInfo"),
        Some(&json!({"name": "acme-gw", "version": "2.1.0"}))
    );
}

#[test]
fn synth_part_uris() {
    let result = only_parts(vec![
        Part::text("t"),
        Part::named_binary(b"x".to_vec(), "application/zip", "a b/c.zip"),
    ]);
    let blocks = content(&result, mcp("mcp-2025-03-26"));
    assert_eq!(blocks[1].pointer("/resource/uri"), Some(&json!("toolwire://part/1/a%20b%2Fc.zip")));
}

#[test]
fn synth_stored_link_block_and_fallback() {
    let link = StoredLink::new("toolwire://results/abc?exp=1&kid=k&sig=s")
        .size(2048)
        .expires_at(ts("2026-11-29T11:00:00Z"))
        .description("the note");
    let with_note = match ToolResult::builder().stored_link(link.clone()).build() {
        Ok(r) => r,
        Err(err) => panic!("{err}"),
    };
    assert_eq!(
        content(&with_note, mcp("mcp-2025-06-18")),
        vec![
            json!({"type": "text", "text": "Full result stored at toolwire://results/abc?exp=1&kid=k&sig=s (2048 bytes, application/json); read it with resources/read."}),
            json!({"type": "resource_link", "uri": "toolwire://results/abc?exp=1&kid=k&sig=s", "name": "result-abc.json", "title": "Full result", "description": "the note", "mimeType": "application/json", "size": 2048, "_meta": {"dev.toolwire/expiresAt": "2026-11-29T11:00:00Z"}})
        ]
    );
    let with_summary = match ToolResult::builder().summary("S wins").stored_link(link).build() {
        Ok(r) => r,
        Err(err) => panic!("{err}"),
    };
    assert_eq!(
        content(&with_summary, mcp("mcp-2026-07-28"))[2].get("description"),
        Some(&json!("S wins"))
    );
    assert_eq!(
        content(&with_note, mcp("mcp-2024-11-05")),
        vec![
            json!({"type": "text", "text": "Full result stored at toolwire://results/abc?exp=1&kid=k&sig=s (2048 bytes, application/json); read it with resources/read."})
        ]
    );
}

#[test]
fn synth_a2a_ids_names_and_timestamps() {
    let result = match ToolResult::builder()
        .error(ToolError::new(ErrorCode::Conflict, "later"))
        .summary("s")
        .generated_at(ts("2026-01-02T03:04:05.250Z"))
        .build()
    {
        Ok(r) => r,
        Err(err) => panic!("{err}"),
    };
    for (target, failed, agent) in [
        (Target::A2a(toolwire_core::A2aVersion::V0_3), "failed", "agent"),
        (Target::A2a(toolwire_core::A2aVersion::V1_0), "TASK_STATE_FAILED", "ROLE_AGENT"),
    ] {
        let defaults = value(render(&result, target, Phase::Compat).json());
        assert_eq!(defaults.get("id"), Some(&json!("task-1")));
        assert_eq!(defaults.get("contextId"), Some(&json!("context-1")));
        let ctx = RenderContext::new("catalog_get", now()).task_id("t7").context_id("c7");
        let out = render_with(&OutputMapper::default(), &result, target, Phase::Compat, &ctx);
        assert_wire_clean(target, out.json());
        let task = value(out.json());
        assert_eq!(task.get("id"), Some(&json!("t7")));
        assert_eq!(task.get("contextId"), Some(&json!("c7")));
        assert_eq!(task.pointer("/status/state"), Some(&json!(failed)));
        assert_eq!(task.pointer("/status/message/role"), Some(&json!(agent)));
        assert_eq!(task.pointer("/status/message/messageId"), Some(&json!("t7-status")));
        assert_eq!(task.pointer("/status/timestamp"), Some(&json!("2026-01-02T03:04:05.250Z")));
        assert_eq!(task.pointer("/artifacts/0/artifactId"), Some(&json!("t7-result")));
        assert_eq!(task.pointer("/artifacts/0/name"), Some(&json!("catalog_get")));
        assert_eq!(
            task.pointer("/metadata/dev.toolwire~1generatedAt"),
            Some(&json!("2026-01-02T03:04:05.250Z"))
        );
        assert_eq!(
            task.pointer("/status/message/parts/1/data"),
            Some(&json!({"code": "conflict"}))
        );
    }
}

#[test]
fn a2a_0_3_wraps_non_object_data_and_1_0_does_not() {
    let result = ToolResult::success(json!([1]));
    let v03 =
        value(render(&result, Target::A2a(toolwire_core::A2aVersion::V0_3), Phase::Compat).json());
    assert_eq!(
        v03.pointer("/artifacts/0/parts/0"),
        Some(
            &json!({"kind": "data", "data": {"value": [1]}, "metadata": {"data_part_compat": true}})
        )
    );
    let v10 =
        value(render(&result, Target::A2a(toolwire_core::A2aVersion::V1_0), Phase::Compat).json());
    assert_eq!(v10.pointer("/artifacts/0/parts/0"), Some(&json!({"data": [1]})));
}

#[test]
fn passthrough_on_every_target() {
    let raw = "not an envelope: [1, \"two\"]";
    let result = legacy::parse(raw);
    assert!(result.is_passthrough());
    for (target, phase) in renders().into_iter().chain([(mcp("mcp-2025-06-18"), Phase::Spec)]) {
        let out = render(&result, target, phase);
        assert_wire_clean(target, out.json());
        match target {
            Target::Legacy => assert_eq!(out.json(), raw),
            Target::Mcp(_) => {
                let wire = value(out.json());
                assert_eq!(
                    wire.get("content"),
                    Some(&json!([{"type": "text", "text": raw}])),
                    "{target}"
                );
                assert_eq!(wire.get("structuredContent"), None);
                assert_eq!(wire.get("isError"), None);
                assert_eq!(
                    wire.pointer("/_meta/dev.toolwire~1generatedAt"),
                    Some(&json!("2026-11-29T10:00:00Z"))
                );
            }
            _ => {
                let task = value(out.json());
                let text = task.pointer("/artifacts/0/parts/0/text");
                assert_eq!(text, Some(&json!(raw)), "{target}");
                assert_eq!(task.pointer("/artifacts/0/parts/1"), None);
            }
        }
    }
}

#[test]
fn spec_phase_block_order_and_null() {
    let result = match ToolResult::builder()
        .error(ToolError::new(ErrorCode::NotFound, "gone"))
        .summary("nothing there")
        .dry_run(true)
        .part(Part::text("p"))
        .build()
    {
        Ok(r) => r,
        Err(err) => panic!("{err}"),
    };
    let texts: Vec<Value> =
        content(&result, mcp("mcp-2025-11-25")).into_iter().map(|b| b["text"].clone()).collect();
    assert_eq!(
        texts,
        vec![
            json!("nothing there"),
            json!("gone"),
            json!(r#"{"error":{"code":"not_found"}}"#),
            json!(r#"{"_meta":{"dev.toolwire/dryRun":true}}"#),
            json!("p")
        ]
    );
    assert_eq!(
        content(&ToolResult::empty(), mcp("mcp-2025-06-18")),
        vec![json!({"type": "text", "text": "null"})]
    );
}

#[test]
fn unknown_codes_stay_verbatim_everywhere() {
    let result = ToolResult::failure(ToolError::new(ErrorCode::parse("quota_exceeded"), "used up"));
    for (target, phase) in renders() {
        let out = render(&result, target, phase);
        assert!(out.json().contains("quota_exceeded"), "{target}");
        assert!(!out.json().contains("tool_error"), "{target}");
    }
}

#[test]
fn validation_enforce_replaces_the_result() {
    let output = declared(
        json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
        Shape::Data,
    );
    let bad = ToolResult::success(json!({"id": "seven"}));
    for name in SC_REVISIONS {
        let out = render_declared(&bad, mcp(name), Phase::Spec, &output);
        let published = output.published(match mcp(name) {
            Target::Mcp(r) => r,
            _ => McpRevision::V2026_07_28,
        });
        assert!(wire::check_with_schema(mcp(name), out.json(), published.as_ref()).is_empty());
        assert!(out.is_error());
        let wire = value(out.json());
        assert_eq!(wire.get("structuredContent"), None);
        assert!(
            wire.pointer("/content/0/text")
                .and_then(Value::as_str)
                .is_some_and(|t| t.contains("/id")),
            "{}",
            out.json()
        );
        assert!(out.json().contains("tool_error"));
    }
}

#[test]
fn validation_warn_keeps_content_and_omits_structured() {
    let output =
        declared(json!({"type": "object", "properties": {"id": {"type": "integer"}}}), Shape::Data);
    let bad = ToolResult::success(json!({"id": "seven"}));
    let mapper = OutputMapper::new(MapperConfig::default().with_validation(ValidationMode::Warn));
    let ctx = RenderContext::new("t", now()).output(&output);
    let out = render_with(&mapper, &bad, mcp("mcp-2025-06-18"), Phase::Spec, &ctx);
    assert!(!out.is_error());
    assert_eq!(value(out.json()).get("structuredContent"), None);
    assert_eq!(value(out.json()).pointer("/content/0/text"), Some(&json!(r#"{"id":"seven"}"#)));
    assert_eq!(out.warnings().len(), 1);
    assert!(out.warnings()[0].contains("/id"), "{:?}", out.warnings());
    let off = OutputMapper::new(MapperConfig::default().with_validation(ValidationMode::Off));
    let out = render_with(&off, &bad, mcp("mcp-2025-06-18"), Phase::Spec, &ctx);
    assert_eq!(value(out.json()).get("structuredContent"), Some(&json!({"id": "seven"})));
    assert!(out.warnings().is_empty());
}

#[test]
fn prefix_applies_to_every_key() {
    let result = match ToolResult::builder().data(json!(1)).dry_run(false).build() {
        Ok(r) => r,
        Err(err) => panic!("{err}"),
    };
    let mapper = match MapperConfig::default().with_prefix("com.acme") {
        Ok(config) => OutputMapper::new(config),
        Err(err) => panic!("{err}"),
    };
    let out = render_with(
        &mapper,
        &result,
        mcp("mcp-2025-06-18"),
        Phase::Compat,
        &RenderContext::new("t", now()),
    );
    assert_eq!(
        value(out.json()).get("_meta"),
        Some(&json!({"com.acme/generatedAt": "2026-11-29T10:00:00Z", "com.acme/dryRun": false}))
    );
    assert_eq!(mapper.config().prefix(), "com.acme");
}

#[test]
fn revision_table_columns_beyond_results() {
    use toolwire_core::revision::{DollarSchema, ToolTitle};
    let rows = McpRevision::ALL.map(|r| {
        let c = McpCaps::of(r);
        (
            c.tool_title,
            c.tool_annotations,
            c.icons,
            c.schemas.output_schema,
            c.schemas.dollar_schema,
            c.stateless,
            c.resource_not_found_code,
            c.cache_hints,
        )
    });
    use DollarSchema::{AsDeclared, Dropped, RootOnly};
    use StructuredCap::{Any, Never, ObjectOnly};
    assert_eq!(
        rows,
        [
            (ToolTitle::Dropped, false, false, Never, Dropped, false, -32002, false),
            (ToolTitle::Annotations, true, false, Never, Dropped, false, -32002, false),
            (ToolTitle::Field, true, false, ObjectOnly, Dropped, false, -32002, false),
            (ToolTitle::Field, true, true, ObjectOnly, RootOnly, false, -32002, false),
            (ToolTitle::Field, true, true, Any, AsDeclared, true, -32602, true),
        ]
    );
    assert_eq!(
        McpRevision::ALL.map(McpRevision::is_stateless),
        McpRevision::ALL.map(|r| McpCaps::of(r).stateless)
    );
}

#[test]
fn a_legacy_failure_that_names_no_code_carries_the_code_it_was_given_in_compat() {
    let raw = r#"{"success": false, "error": "Missing privilege: customer:read"}"#;
    for revision in SC_REVISIONS {
        let out = render(&legacy::parse(raw), mcp(revision), Phase::Compat);
        assert_wire_clean(mcp(revision), out.json());
        let wire = value(out.json());
        assert_eq!(
            wire["content"],
            json!([
                {"type": "text", "text": raw},
                {"type": "text", "text": r#"{"error":{"code":"missing_privilege","details":{"missing":["customer:read"]}}}"#}
            ]),
            "{revision}"
        );
        assert_eq!(wire["structuredContent"]["error"]["code"], json!("missing_privilege"));
    }
    // A string that names its code already carries it: the raw string stays alone.
    let coded = r#"{"success":false,"error":{"code":"not_found","message":"No customer 9"}}"#;
    let wire = value(render(&legacy::parse(coded), mcp("mcp-2025-06-18"), Phase::Compat).json());
    assert_eq!(wire["content"], json!([{"type": "text", "text": coded}]));
}

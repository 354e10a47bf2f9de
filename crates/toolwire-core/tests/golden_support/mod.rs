//! The golden sample set of DESIGN §9 and helpers shared by the mapper tests.

#![allow(dead_code)]

use serde_json::{Map, Value, json};
use toolwire_check::wire;
use toolwire_core::{
    ErrorCode, Pagination, Part, Phase, Query, ResourceLinkPart, StoredLink, Target, Timestamp,
    ToolError, ToolOutput, ToolResult, legacy,
};
use toolwire_core::{MapperConfig, Output, OutputMapper, RenderContext, Rendered};

/// The render time of every golden render.
pub(crate) fn now() -> Timestamp {
    ts("2026-11-29T10:00:00Z")
}

/// A timestamp from text.
pub(crate) fn ts(text: &str) -> Timestamp {
    match Timestamp::parse(text) {
        Ok(at) => at,
        Err(err) => panic!("{err}"),
    }
}

/// The server version golden renders carry (2026-07-28 `serverInfo`), pinned so that a version
/// bump of the crates does not rewrite every snapshot.
pub(crate) const SERVER_VERSION: &str = "0.1.0";

/// The mapper of the golden renders: defaults, with the server version pinned.
pub(crate) fn golden_mapper() -> OutputMapper {
    OutputMapper::new(MapperConfig::default().with_server_info("toolwire", SERVER_VERSION))
}

/// One render in a reviewed snapshot: `json` pretty-printed (key order and number text kept).
/// The compact wire text must be exactly the compact re-serialization of that JSON, so a
/// snapshot that matches pins every byte of the wire.
pub(crate) fn snapshot_entry(target: Target, json: &str) -> String {
    let parsed: Value =
        serde_json::from_str(json).unwrap_or_else(|err| panic!("{target}: {err}\n{json}"));
    let compact = serde_json::to_string(&parsed).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(compact, json, "{target}: the wire is not the compact form of its JSON");
    serde_json::to_string_pretty(&parsed).unwrap_or_else(|err| panic!("{err}"))
}

/// The snapshot name of a target and phase: `mcp-2025-06-18-compat`, `legacy`, `a2a-0.3`.
pub(crate) fn snapshot_name(target: Target, phase: Phase) -> String {
    label(target, phase).replace(' ', "-")
}

/// The fixed link the large sample is offloaded to.
pub(crate) fn fixed_link() -> StoredLink {
    StoredLink::new("toolwire://results/r-7f3c?exp=1796032800&kid=k1&sig=c2lnbmF0dXJl")
        .size(70_000)
        .expires_at(ts("2026-11-29T11:00:00Z"))
}

fn build(builder: toolwire_core::ToolResultBuilder) -> ToolResult {
    match builder.build() {
        Ok(result) => result,
        Err(err) => panic!("{err}"),
    }
}

fn details(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR";

/// The sample set: name → result.
pub(crate) fn samples() -> Vec<(&'static str, ToolResult)> {
    let mut samples = vec![
        ("object", ToolResult::success(json!({"id": 7, "name": "Chair", "price": 49.9}))),
        ("list", ToolResult::success(json!([{"id": 1}, {"id": 2}]))),
        ("scalar", ToolResult::success(json!(42))),
        ("string", ToolResult::success(json!("plain words"))),
        ("empty_object", ToolResult::success(json!({}))),
        ("empty_list", ToolResult::success(json!([]))),
        ("null_data", ToolResult::success(Value::Null)),
        ("summary_only", build(ToolResult::builder().summary("3 products updated"))),
    ];
    let errors = [
        (
            "invalid_arguments",
            ToolError::invalid_arguments("Invalid arguments", [("/limit", "must be at most 100")]),
        ),
        ("missing_privilege", ToolError::missing_privilege(["catalog:write"])),
        (
            "not_found",
            ToolError::new(ErrorCode::NotFound, "No product 7")
                .with_details(details(json!({"id": 7}))),
        ),
        (
            "rule_violation",
            ToolError::new(ErrorCode::RuleViolation, "The price must stay above cost"),
        ),
        ("conflict", ToolError::new(ErrorCode::Conflict, "Product 7 was changed meanwhile")),
        (
            "rate_limited",
            ToolError::new(ErrorCode::RateLimited, "Too many calls")
                .with_details(details(json!({"retryAfter": 30}))),
        ),
        (
            "upstream_unavailable",
            ToolError::new(
                ErrorCode::UpstreamUnavailable,
                "The catalog endpoint timed out after 30 s",
            ),
        ),
        ("result_too_large", ToolError::new(ErrorCode::ResultTooLarge, "Result too large")),
        ("tool_error", ToolError::new(ErrorCode::ToolError, "Something broke")),
        (
            "unknown_code",
            ToolError::new(ErrorCode::parse("quota_exceeded"), "Monthly quota used up"),
        ),
    ];
    for (name, error) in errors {
        samples.push((name, ToolResult::failure(error)));
    }
    samples.push((
        "failure_with_parts",
        build(
            ToolResult::builder()
                .error(ToolError::new(ErrorCode::ToolError, "Chart failed half way"))
                .summary("Partial output attached")
                .part(Part::text("stage 1 ok"))
                .part(Part::named_binary(PNG, "image/png", "partial.png")),
        ),
    ));
    samples.push(("mixed_parts", mixed_parts()));
    samples.push((
        "extension_metadata",
        build(
            ToolResult::builder()
                .data(json!({"paid": true}))
                .extension("com.acme.payments", "ledger", json!("eu-1"))
                .extension("com.acme.payments", "trace", json!({"span": 3}))
                .pagination(Pagination::new(120, 2, 20).next_cursor("c3"))
                .query(Query::new("search", json!({"q": "chair"}))),
        ),
    ));
    samples.push((
        "dry_run",
        build(
            ToolResult::builder()
                .data(json!({"id": 7, "price": 59}))
                .summary("Preview: price 49 → 59")
                .dry_run(true),
        ),
    ));
    samples.push((
        "timestamps",
        build(
            ToolResult::builder()
                .data(json!({"rate": 1.08}))
                .generated_at(ts("2026-11-29T09:59:58.120Z"))
                .expires_at(ts("2026-11-29T10:05:00Z")),
        ),
    ));
    samples.push((
        "lossless_numbers",
        ToolResult::success(value(
            r#"{"big":123456789012345678901234567890,"decimal":0.1000000000000000000000000001,"exp":1e400,"neg":-9223372036854775809}"#,
        )),
    ));
    samples.push((
        "unicode",
        build(
            ToolResult::builder()
                .data(json!({"name": "Grüße, 世界 🎉", "quote": "\"q\" \\ \u{7}\n"}))
                .summary("Ünïcødé ✓"),
        ),
    ));
    samples.push((
        "legacy_string",
        legacy::parse(
            r#"{"success":true,"data":{"id":7},"_meta":{"summary":"1 product","dryRun":false}}"#,
        ),
    ));
    samples.push(("passthrough", legacy::parse("plain text, not an envelope")));
    samples
}

/// Text, png image, audio, pdf binary, resource link, embedded text, embedded blob.
pub(crate) fn mixed_parts() -> ToolResult {
    build(
        ToolResult::builder()
            .data(json!({"report": "ready"}))
            .summary("Report with attachments")
            .part(Part::text("Read me first"))
            .part(Part::named_binary(PNG, "image/png", "chart.png"))
            .part(Part::binary(b"ID3\x03", "audio/mpeg"))
            .part(Part::named_binary(b"%PDF-1.7", "application/pdf", "report q3.pdf"))
            .part(Part::resource_link_with(
                ResourceLinkPart::new("https://example.com/r.csv", "r.csv")
                    .title("Raw rows")
                    .description("All rows as CSV")
                    .mime_type("text/csv")
                    .size(1234),
            ))
            .part(Part::embedded_text("file:///notes.txt", Some("text/plain".into()), "notes"))
            .part(Part::embedded_blob(
                "file:///a.bin",
                Some("application/octet-stream".into()),
                b"\x00\x01\x02".to_vec(),
            )),
    )
}

/// Parts for the user alone, the model alone and both (`annotations.audience`).
pub(crate) fn audience_parts() -> ToolResult {
    use toolwire_core::Audience;
    build(
        ToolResult::builder()
            .data(json!({"id": 7, "chart": "ready"}))
            .summary("Chart of product 7")
            .part(Part::text("Shown to the user only").for_audience(Audience::User))
            .part(Part::named_binary(PNG, "image/png", "chart.png").for_audience(Audience::User))
            .part(Part::text("For the model: prices rose 4 %").for_audience(Audience::Assistant))
            .part(
                Part::resource_link("https://example.com/r.csv", "r.csv")
                    .for_audience(Audience::Both),
            )
            .part(
                Part::embedded_text("file:///notes.txt", None, "user notes")
                    .for_audience(Audience::User),
            ),
    )
}

/// A result well over 4 KiB.
pub(crate) fn large() -> ToolResult {
    let rows: Vec<Value> =
        (0..200).map(|i| json!({"id": i, "name": format!("Product {i}")})).collect();
    build(
        ToolResult::builder()
            .data(Value::Array(rows))
            .summary("200 products")
            .query(Query::new("catalog_search", json!({"limit": 200}))),
    )
}

/// Every target with the phases that matter for it (legacy and A2A are phase-independent).
pub(crate) fn renders() -> Vec<(Target, Phase)> {
    let mut all = Vec::new();
    for target in Target::ALL {
        match target {
            Target::Mcp(_) => {
                all.push((target, Phase::Compat));
                all.push((target, Phase::Spec));
            }
            _ => all.push((target, Phase::Compat)),
        }
    }
    all
}

/// A label for a render.
pub(crate) fn label(target: Target, phase: Phase) -> String {
    match (target, phase) {
        (Target::Mcp(_), Phase::Compat) => format!("{target} compat"),
        (Target::Mcp(_), _) => format!("{target} spec"),
        _ => target.to_string(),
    }
}

/// Renders and expects a complete output.
pub(crate) fn render_with(
    mapper: &OutputMapper,
    result: &ToolResult,
    target: Target,
    phase: Phase,
    ctx: &RenderContext<'_>,
) -> Output {
    match mapper.render(result, target, phase, ctx) {
        Ok(Rendered::Complete(output)) => output,
        Ok(Rendered::NeedsOffload(offload)) => {
            panic!("unexpected offload of {} bytes", offload.size())
        }
        Err(err) => panic!("{err}"),
    }
}

/// Renders with the default configuration and no declared output.
pub(crate) fn render(result: &ToolResult, target: Target, phase: Phase) -> Output {
    render_with(
        &OutputMapper::default(),
        result,
        target,
        phase,
        &RenderContext::new("result", now()),
    )
}

/// Renders with a declared output.
pub(crate) fn render_declared(
    result: &ToolResult,
    target: Target,
    phase: Phase,
    output: &ToolOutput,
) -> Output {
    render_with(
        &OutputMapper::default(),
        result,
        target,
        phase,
        &RenderContext::new("result", now()).output(output),
    )
}

/// Asserts that the wire checker accepts `json` for `target`.
pub(crate) fn assert_wire_clean(target: Target, json: &str) {
    let violations = wire::check(target, json);
    assert!(violations.is_empty(), "{target}: {violations:?}\n{json}");
}

/// Parses JSON text, panicking with the text on failure.
pub(crate) fn value(json: &str) -> Value {
    match serde_json::from_str(json) {
        Ok(value) => value,
        Err(err) => panic!("{err}: {json}"),
    }
}

/// The MCP target of a revision name.
pub(crate) fn mcp(name: &str) -> Target {
    match Target::parse(name) {
        Ok(target) => target,
        Err(err) => panic!("{err}"),
    }
}

/// The input-required samples (DESIGN §10): name → result.
pub(crate) fn input_samples() -> Vec<(&'static str, ToolResult)> {
    use toolwire_core::input::{InputRequest, InputRequired, confirm_request};
    let confirm = InputRequired::new()
        .request("confirm", confirm_request("Set the price of product 7 to 12.50?"))
        .state(json!({"id": 7, "price": "12.50"}));
    let url = InputRequired::new().request(
        "login",
        InputRequest::elicit_url("Sign in to the shop", "https://shop.example/login"),
    );
    let sample = InputRequired::new()
        .request("capital", InputRequest::sample_text("What is the capital of France?", 100));
    let roots = InputRequired::new().request("client_roots", InputRequest::ListRoots);
    let mut properties = Map::new();
    properties.insert("name".into(), json!({"type": "string"}));
    let all = InputRequired::new()
        .request(
            "user_name",
            InputRequest::elicit(
                "What is your name?",
                toolwire_core::input::object_schema(properties, &["name"]),
            ),
        )
        .request("greeting", InputRequest::sample_text("Generate a greeting", 50))
        .request("client_roots", InputRequest::ListRoots)
        .state(json!("round-1"));
    vec![
        (
            "input_confirm",
            build(
                ToolResult::builder()
                    .summary("Confirm the price change first")
                    .dry_run(true)
                    .input_required(confirm),
            ),
        ),
        ("input_url", ToolResult::input_required(url)),
        ("input_sample", ToolResult::input_required(sample)),
        ("input_roots", ToolResult::input_required(roots)),
        ("input_all", ToolResult::input_required(all)),
    ]
}

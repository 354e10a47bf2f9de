//! Strict clients (DESIGN §11): wherever a tool's `outputSchema` is shown to a client, every
//! successful result of that tool carries a `structuredContent` that validates against it. The
//! official SDK clients, Cursor, Gemini CLI and ChatGPT fail the whole call otherwise. One test
//! per choice the mapper makes on its own: results carrying more than data, successes without
//! data, failures, offload stubs, input required, schema mismatches, and the per-revision
//! lowering of object and other roots.

mod golden_support;

use golden_support::*;
use serde_json::{Value, json};
use toolwire_core::host::{HostProfile, HostProfiles, Reads};
use toolwire_core::{MapperConfig, OutputMapper, RenderContext, Rendered, StoreRefusal};
use toolwire_core::{McpRevision, Phase, Shape, Target, ToolOutput, ToolResult, legacy};

const PHASES: [Phase; 2] = [Phase::Compat, Phase::Spec];

fn output(doc: Value, shape: Shape) -> ToolOutput {
    ToolOutput::from_declaration(&doc, shape).unwrap_or_else(|err| panic!("{doc}: {err}"))
}

/// The hosts every rule is checked for: no profile (the generic rendering), a content reader,
/// a `both` reader that is not `generic`, a capped content reader, and a structured reader.
fn hosts() -> Vec<Option<HostProfile>> {
    let both = HostProfile { name: "both-reader".into(), ..HostProfile::generic() };
    let content =
        HostProfile { name: "content-reader".into(), reads: Reads::Content, ..both.clone() };
    let capped = HostProfile { max_result_bytes: Some(4096), ..content.clone() };
    let structured = HostProfile { reads: Reads::Structured, ..content.clone() };
    vec![None, Some(both), Some(content), Some(capped), Some(structured)]
}

/// What a strict client does with `wire`, a `tools/call` answer of a tool whose `outputSchema`
/// on `revision` it was shown (or not): `Err` says why it would fail the call. An `isError`
/// result is checked too when it carries `structuredContent` (the TypeScript SDK 1.x does).
fn strict_client(wire: &Value, shown: Option<&Value>) -> Result<bool, String> {
    let Some(schema) = shown else { return Ok(false) };
    if wire.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return Ok(false);
    }
    let is_error = wire.get("isError") == Some(&Value::Bool(true));
    match wire.get("structuredContent") {
        None if is_error => Ok(false),
        None => Err("has an output schema but did not return structured content".into()),
        Some(structured) => {
            let validator = jsonschema::options()
                .offline()
                .build(schema)
                .map_err(|err| format!("{schema} does not compile: {err}"))?;
            match validator.validate(structured) {
                Ok(()) => Ok(!is_error),
                Err(err) => Err(format!("structuredContent does not match {schema}: {err}")),
            }
        }
    }
}

/// The `outputSchema` `host` is shown on `target` (none before 2025-06-18, none for a tool
/// without declared outputs, none for a structured reader).
fn shown(output: &ToolOutput, target: Target, host: Option<&HostProfile>) -> Option<Value> {
    let Target::Mcp(revision) = target else { return None };
    output.published(revision).filter(|_| host.is_none_or(HostProfile::sees_output_schema))
}

fn context<'a>(output: &'a ToolOutput, host: Option<&'a HostProfile>) -> RenderContext<'a> {
    let ctx = RenderContext::new("t", now()).output(output);
    match host {
        Some(host) => ctx.host(host),
        None => ctx,
    }
}

/// Renders `result` every way the rule covers (every MCP revision, both phases, every host, the
/// text render and the kept one); returns how many successes were checked against a shown
/// schema. The kept render's `structuredContent` (what an SDK adapter sends) must equal the
/// text's.
fn check_everywhere(name: &str, result: &ToolResult, output: &ToolOutput) -> usize {
    let mut checked = 0;
    for host in hosts() {
        for revision in McpRevision::ALL {
            let target = Target::Mcp(revision);
            for phase in PHASES {
                let ctx = context(output, host.as_ref());
                let mapper = OutputMapper::default();
                let label = format!(
                    "{name} {} for {}",
                    label(target, phase),
                    host.as_ref().map_or("no profile", |h| h.name.as_str())
                );
                let text = match mapper.render(result, target, phase, &ctx) {
                    Ok(Rendered::Complete(out)) => out,
                    other => panic!("{label}: {other:?}"),
                };
                let wire = value(text.json());
                let schema = shown(output, target, host.as_ref());
                match strict_client(&wire, schema.as_ref()) {
                    Ok(success) => checked += usize::from(success),
                    Err(why) => panic!("{label}: {why}\n{wire}"),
                }
                let kept = match mapper.render_owned(result.clone(), target, phase, &ctx) {
                    Ok(Rendered::Complete(out)) => {
                        out.into_mcp().and_then(|m| m.into_structured_content())
                    }
                    other => panic!("{label}: {other:?}"),
                };
                assert_eq!(kept.as_ref(), wire.get("structuredContent"), "{label}");
            }
        }
    }
    checked
}

/// A declaration the data of `result` matches, with an object root when the data is an object.
fn declaration_for(result: &ToolResult) -> Value {
    match result.data() {
        Some(Value::Object(_)) => json!({"type": "object"}),
        Some(Value::Array(_)) => json!({"type": "array"}),
        Some(Value::String(_)) => json!({"type": "string"}),
        _ => json!({"type": "number"}),
    }
}

fn sample(name: &str) -> ToolResult {
    match samples().into_iter().find(|(n, _)| *n == name) {
        Some((_, result)) => result,
        None => panic!("no sample {name}"),
    }
}

/// Summary, dry run, pagination, parts and extension metadata beside the data: the generic,
/// content and `both` renderings keep `structuredContent`; a structured reader, for which the
/// mapper leaves it out, is shown no schema. Every sample with data, with an object root, the
/// root its data has, and an `anyOf` root.
#[test]
fn successes_with_data_carry_validating_structured_content() {
    let mut checked = 0;
    for (name, result) in samples() {
        if !result.is_success() || result.data().is_none() || result.is_passthrough() {
            continue;
        }
        let any_of = json!({"anyOf": [declaration_for(&result), {"type": "boolean"}]});
        for doc in [declaration_for(&result), any_of] {
            checked += check_everywhere(name, &result, &output(doc, Shape::Data));
        }
    }
    // 13 samples with data × 2 declarations × 3 revisions that publish × 2 phases × 4 hosts
    // shown the schema.
    assert_eq!(checked, 13 * 2 * 3 * 2 * 4);
}

/// The envelope shape: a success with or without data, a summary-only success and every
/// failure carry the envelope, which validates against the published envelope schema.
#[test]
fn envelope_shape_results_always_validate() {
    let declared = json!({
        "type": "object",
        "properties": {"id": {"type": "integer"}},
    });
    let envelope = output(declared, Shape::Envelope);
    let mut checked = 0;
    for (name, result) in samples() {
        let data_is_object = result.data().is_none_or(Value::is_object);
        if result.is_passthrough() || !data_is_object {
            continue;
        }
        checked += check_everywhere(name, &result, &envelope);
    }
    assert!(checked >= 8 * 3 * 2 * 4, "{checked}");
}

/// A success without data (a summary alone, `null` data) under a data schema would go without
/// `structuredContent`: validation makes it a failure instead.
#[test]
fn a_success_without_data_under_a_data_schema_is_a_failure() {
    let declared = output(json!({"type": "object"}), Shape::Data);
    for name in ["summary_only", "null_data"] {
        let result = sample(name);
        assert_eq!(check_everywhere(name, &result, &declared), 0, "{name}");
        let wire = render_declared(&result, mcp("mcp-2025-06-18"), Phase::Spec, &declared);
        let wire = value(wire.json());
        assert_eq!(wire["isError"], json!(true), "{name}: {wire}");
        assert_eq!(wire.get("structuredContent"), None, "{name}");
    }
}

/// A failure under a data schema carries no `structuredContent` (an error object would not
/// validate); every failure sample on every host.
#[test]
fn failures_under_a_data_schema_carry_no_structured_content() {
    let declared = output(json!({"type": "object", "required": ["id"]}), Shape::Data);
    for (name, result) in samples() {
        if !result.is_failure() {
            continue;
        }
        assert_eq!(check_everywhere(name, &result, &declared), 0, "{name}");
        let wire =
            value(render_declared(&result, mcp("mcp-2026-07-28"), Phase::Compat, &declared).json());
        assert_eq!(wire.get("structuredContent"), None, "{name}");
    }
}

/// Data that breaks the declared schema and a passthrough string (text that is not a result)
/// are failures in `enforce` mode, never a success without `structuredContent`.
#[test]
fn schema_mismatches_and_passthrough_become_failures() {
    let declared = output(
        json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
        Shape::Data,
    );
    let mismatch = ToolResult::success(json!({"id": "seven"}));
    let passthrough = legacy::parse("plain text, not an envelope");
    for (name, result) in [("mismatch", mismatch), ("passthrough", passthrough)] {
        assert_eq!(check_everywhere(name, &result, &declared), 0, "{name}");
    }
}

/// Over the limit (the revision's or a capped host's), a success of a tool whose schema the host
/// is shown becomes the failure `result_too_large` pointing at the stored result (data shape),
/// or a failure envelope that validates (envelope shape); a host not shown the schema (a
/// structured reader) gets the plain success stub. The store failure is a failure too.
#[test]
fn offload_stubs_never_break_a_shown_schema() {
    let large = large();
    let declarations = [
        output(json!({"type": "array", "items": {"type": "object"}}), Shape::Data),
        output(json!({"type": "object"}), Shape::Envelope),
    ];
    let mut checked_stubs = 0;
    for declared in &declarations {
        let result = match declared.shape() {
            Shape::Envelope => {
                let data = json!({"rows": large.data().cloned().unwrap_or_default()});
                ToolResult::success(data)
            }
            _ => large.clone(),
        };
        for host in hosts() {
            for revision in McpRevision::ALL {
                let target = Target::Mcp(revision);
                for phase in PHASES {
                    let label = format!(
                        "{:?} {} {:?}",
                        declared.shape(),
                        label(target, phase),
                        host.as_ref().map(|h| &h.name)
                    );
                    let mapper =
                        OutputMapper::new(MapperConfig::default().with_limit(target, Some(4096)));
                    let ctx = context(declared, host.as_ref());
                    let render = || match mapper.render(&result, target, phase, &ctx) {
                        Ok(Rendered::NeedsOffload(offload)) => offload,
                        other => panic!("{label}: expected an offload, got {other:?}"),
                    };
                    let stub = match render().finish(fixed_link()) {
                        Ok(stub) => value(stub.json()),
                        Err(err) => panic!("{label}: {err}"),
                    };
                    let failed = value(render().store_failed(StoreRefusal::Unavailable).json());
                    let schema = shown(declared, target, host.as_ref());
                    for wire in [&stub, &failed] {
                        if let Err(why) = strict_client(wire, schema.as_ref()) {
                            panic!("{label}: {why}\n{wire}");
                        }
                    }
                    if schema.is_some() {
                        checked_stubs += 1;
                        assert_eq!(stub["isError"], json!(true), "{label}: {stub}");
                        let text = stub.to_string();
                        assert!(text.contains("result_too_large"), "{label}: {stub}");
                        assert!(text.contains("toolwire://results/r-7f3c"), "{label}: {stub}");
                    } else if host.as_ref().is_some_and(|h| !h.sees_output_schema()) {
                        assert_eq!(stub.get("isError"), None, "{label}: {stub}");
                    }
                }
            }
        }
    }
    // 2 shapes × 3 revisions that publish × 2 phases × 4 hosts shown the schema.
    assert_eq!(checked_stubs, 2 * 3 * 2 * 4);
}

/// Input required under a data schema: asked natively on 2026-07-28 (an `InputRequiredResult`,
/// which carries no `structuredContent` and is no success), and the failure `input_required`
/// on the revisions that cannot carry it; never a success without `structuredContent`.
#[test]
fn input_required_is_never_a_success_without_structured_content() {
    let declared = output(json!({"type": "object"}), Shape::Data);
    for (name, result) in input_samples() {
        assert_eq!(check_everywhere(name, &result, &declared), 0, "{name}");
        for revision in McpRevision::ALL {
            let wire = value(
                render_declared(&result, Target::Mcp(revision), Phase::Spec, &declared).json(),
            );
            let native = wire.get("resultType") == Some(&json!("input_required"));
            let failed = wire.get("isError") == Some(&json!(true));
            assert!(native != failed, "{name} {revision:?}: {wire}");
            assert!(wire.to_string().contains("input_required"), "{name} {revision:?}: {wire}");
        }
    }
}

/// Per revision, the structured copy follows the published schema's root: on 2025-06-18 and
/// 2025-11-25 an object root takes the data as it is and any other root `{"result": D}`;
/// 2026-07-28 takes the data as it is under the schema as declared.
#[test]
fn structured_content_follows_the_published_root_per_revision() {
    let list = sample("list");
    let array_root = output(json!({"type": "array"}), Shape::Data);
    let object = sample("object");
    let object_root = output(json!({"type": "object"}), Shape::Data);
    for revision in McpRevision::ALL {
        let target = Target::Mcp(revision);
        let wrapped = value(render_declared(&list, target, Phase::Spec, &array_root).json());
        let plain = value(render_declared(&object, target, Phase::Spec, &object_root).json());
        let (expected_list, expected_object) = match array_root.published(revision) {
            None => (None, None),
            Some(schema) if schema["type"] == json!("array") => {
                (list.data().cloned(), object.data().cloned())
            }
            Some(_) => (Some(json!({"result": list.data()})), object.data().cloned()),
        };
        assert_eq!(wrapped.get("structuredContent").cloned(), expected_list, "{revision:?}");
        assert_eq!(plain.get("structuredContent").cloned(), expected_object, "{revision:?}");
    }
}

/// Only structured readers are kept from the schema, and that is why their richer results may
/// go without `structuredContent`.
#[test]
fn every_built_in_profile_but_the_structured_readers_is_shown_the_schema() {
    for profile in HostProfiles::builtin().iter() {
        assert_eq!(
            profile.sees_output_schema(),
            profile.reads != Reads::Structured,
            "{}",
            profile.name
        );
    }
    let structured = HostProfile { reads: Reads::Structured, ..HostProfile::generic() };
    let declared = output(json!({"type": "object"}), Shape::Data);
    let ctx = RenderContext::new("t", now()).output(&declared).host(&structured);
    let dry_run = sample("dry_run");
    let wire =
        render_with(&OutputMapper::default(), &dry_run, mcp("mcp-2025-11-25"), Phase::Spec, &ctx);
    assert_eq!(value(wire.json()).get("structuredContent"), None);
    assert!(!wire.is_error());
}

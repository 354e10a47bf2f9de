//! The host-policy simulator (DESIGN §11): every golden sample × every MCP revision × both
//! phases × every built-in host profile, rendered for that host; the text the host would give
//! the model ([`model_view`]) must hold every fact of the result. Plus one test per host rule.

mod golden_support;

use golden_support::*;
use serde_json::{Value, json};
use toolwire_core::facts::{Fact, facts, spellings, stub_facts};
use toolwire_core::host::{HostProfile, HostProfiles, PREVIEW_BYTES, Reads, model_view};
use toolwire_core::{MapperConfig, OutputMapper, RenderContext, Rendered};
use toolwire_core::{McpRevision, Phase, Shape, Target, ToolOutput, ToolResult};

fn mcp_renders() -> Vec<(Target, Phase)> {
    let mut all = Vec::new();
    for revision in McpRevision::ALL {
        for phase in [Phase::Compat, Phase::Spec] {
            all.push((Target::Mcp(revision), phase));
        }
    }
    all
}

/// Counts facts found and missing; returns the misses for the report.
#[derive(Default)]
struct Score {
    checked: usize,
    missing: Vec<String>,
}

impl Score {
    fn check(&mut self, label: &str, view: &str, facts: &[Fact]) {
        for fact in facts {
            self.checked += 1;
            if !fact.seen_in(view) {
                self.missing.push(format!("{label}: {} missing from {view:?}", fact.what));
            }
        }
    }
}

fn render_for(result: &ToolResult, target: Target, phase: Phase, host: &HostProfile) -> Value {
    let ctx = RenderContext::new("result", now()).host(host);
    match OutputMapper::default().render(result, target, phase, &ctx) {
        Ok(Rendered::Complete(output)) => {
            assert_wire_clean(target, output.json());
            value(output.json())
        }
        other => panic!("{target}: {other:?}"),
    }
}

/// A configured `both` reader that is not `generic` (Copilot CLI and JetBrains read both).
fn both_reader() -> HostProfile {
    HostProfile {
        name: "both-reader".into(),
        client_names: vec!["b".into()],
        ..HostProfile::generic()
    }
}

#[test]
fn every_fact_reaches_the_model_on_every_built_in_host() {
    let mut hosts = HostProfiles::builtin();
    assert_eq!(hosts.iter().count(), 15, "every built-in profile is simulated");
    hosts.insert(both_reader());
    for profile in hosts.iter() {
        let mut score = Score::default();
        for (name, result) in samples().into_iter().chain([("audience", audience_parts())]) {
            let facts = facts(&result);
            for (target, phase) in mcp_renders() {
                let wire = render_for(&result, target, phase, profile);
                let view = model_view(&wire, profile.reads);
                score.check(&format!("{name} {}", label(target, phase)), &view, &facts);
            }
        }
        // The large sample, offloaded under the host's cap (or a 4 KiB limit).
        let link = fixed_link();
        let large = large();
        let stub_facts = stub_facts(&large, &link.uri, profile);
        for (target, phase) in mcp_renders() {
            let limited = HostProfile { max_result_bytes: Some(4096), ..profile.clone() };
            let host = if profile.max_result_bytes.is_some() { &limited } else { profile };
            let mapper = OutputMapper::new(MapperConfig::default().with_limit(target, Some(4096)));
            let ctx = RenderContext::new("catalog_search", now()).host(host);
            let Ok(Rendered::NeedsOffload(offload)) = mapper.render(&large, target, phase, &ctx)
            else {
                panic!("{target}: expected an offload");
            };
            let output = match offload.finish(link.clone()) {
                Ok(output) => output,
                Err(err) => panic!("{target}: {err}"),
            };
            assert_wire_clean(target, output.json());
            let view = model_view(&value(output.json()), host.reads);
            score.check(&format!("large {}", label(target, phase)), &view, &stub_facts);
        }
        assert!(score.checked >= 500, "{}: only {} facts checked", profile.name, score.checked);
        assert!(
            score.missing.is_empty(),
            "{}: {} of {} facts missing:\n{}",
            profile.name,
            score.missing.len(),
            score.checked,
            score.missing.join("\n")
        );
    }
}

fn structured_reader() -> HostProfile {
    HostProfile { name: "s".into(), reads: Reads::Structured, ..HostProfile::generic() }
}

#[test]
fn structured_readers_get_structured_content_only_for_data_alone() {
    let host = structured_reader();
    let target = mcp("mcp-2025-11-25");
    for (name, result) in samples() {
        let wire = render_for(&result, target, Phase::Spec, &host);
        let generic = render(&result, target, Phase::Spec);
        let expect_structured = matches!(
            name,
            "object"
                | "list"
                | "scalar"
                | "string"
                | "empty_object"
                | "empty_list"
                | "timestamps"
                | "lossless_numbers"
        );
        assert_eq!(wire.get("structuredContent").is_some(), expect_structured, "{name}");
        if expect_structured {
            assert_eq!(wire.to_string(), generic.json(), "{name}: data alone renders as before");
        }
    }
    let dry_run = samples().into_iter().find(|(n, _)| *n == "dry_run").map(|(_, r)| r);
    let Some(dry_run) = dry_run else { panic!("no dry_run sample") };
    let wire = render_for(&dry_run, mcp("mcp-2026-07-28"), Phase::Spec, &host);
    assert_eq!(wire.get("structuredContent"), None);
    let view = model_view(&wire, Reads::Structured);
    assert!(view.contains("Preview: price 49 → 59") && view.contains("dryRun\":true"), "{view}");
}

#[test]
fn structured_readers_still_validate_and_do_not_see_a_published_schema_failure() {
    let schema =
        json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]});
    let output = match ToolOutput::from_declaration(&schema, Shape::Data) {
        Ok(output) => output,
        Err(err) => panic!("{err}"),
    };
    let host = structured_reader();
    let bad = ToolResult::success(json!({"id": "seven"}));
    let ctx = RenderContext::new("t", now()).output(&output).host(&host);
    let Ok(Rendered::Complete(out)) =
        OutputMapper::default().render(&bad, mcp("mcp-2025-06-18"), Phase::Spec, &ctx)
    else {
        panic!("expected a complete render");
    };
    assert!(out.is_error(), "validation still runs: {}", out.json());
    // Over the limit, a success stays a success with the link (no outputSchema was published).
    let big = ToolResult::success(json!({"id": 1, "pad": "x".repeat(9000)}));
    let mapper =
        OutputMapper::new(MapperConfig::default().with_limit(mcp("mcp-2025-06-18"), Some(4096)));
    let Ok(Rendered::NeedsOffload(offload)) =
        mapper.render(&big, mcp("mcp-2025-06-18"), Phase::Spec, &ctx)
    else {
        panic!("expected an offload");
    };
    let stub = match offload.finish(fixed_link()) {
        Ok(stub) => stub,
        Err(err) => panic!("{err}"),
    };
    assert!(!stub.is_error(), "{}", stub.json());
}

#[test]
fn content_readers_read_everything_from_the_text_blocks() {
    let host = HostProfile { reads: Reads::Content, ..HostProfile::generic() };
    for (name, result) in samples() {
        for (target, phase) in mcp_renders() {
            let wire = render_for(&result, target, phase, &host);
            assert_eq!(wire.to_string(), render(&result, target, phase).json(), "{name}");
        }
    }
}

#[test]
fn a_host_cap_lowers_the_limit_and_the_stub_carries_a_cut_preview() {
    let host = HostProfile { max_result_bytes: Some(5000), ..structured_reader() };
    let large = large();
    let target = mcp("mcp-2025-11-25");
    let ctx = RenderContext::new("catalog_search", now()).host(&host);
    let Ok(Rendered::NeedsOffload(offload)) =
        OutputMapper::default().render(&large, target, Phase::Spec, &ctx)
    else {
        panic!("expected an offload under the host's cap");
    };
    assert_eq!(offload.limit(), 5000);
    let stub = match offload.finish(fixed_link()) {
        Ok(stub) => stub,
        Err(err) => panic!("{err}"),
    };
    assert!(stub.size() <= 5000);
    let wire = value(stub.json());
    let preview = wire
        .pointer("/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .find(|t| t.starts_with("Data preview"));
    let Some(preview) = preview else { panic!("no preview in {wire}") };
    let data = large.data().map(Value::to_string).unwrap_or_default();
    let head = &data[..PREVIEW_BYTES];
    assert_eq!(
        preview,
        format!("Data preview (cut: the first 2048 of {} bytes of its JSON): {head}…", data.len())
    );
    // Without a host cap, the revision's limit stands and no preview is added.
    let plain = structured_reader();
    let ctx = RenderContext::new("catalog_search", now()).host(&plain);
    assert!(matches!(
        OutputMapper::default().render(&large, target, Phase::Spec, &ctx),
        Ok(Rendered::Complete(_))
    ));
}

#[test]
fn hosts_that_cannot_follow_links_are_told_to_call_read_result() {
    let host = HostProfile { reads_links: false, ..HostProfile::generic() };
    let link = fixed_link();
    let expected = format!(
        "Full result stored at {} (70000 bytes, application/json); read it by calling the tool read_result with {{\"uri\":\"{}\"}}.",
        link.uri, link.uri
    );
    for (target, phase) in mcp_renders() {
        let mapper = OutputMapper::new(MapperConfig::default().with_limit(target, Some(4096)));
        let ctx = RenderContext::new("catalog_search", now()).host(&host);
        let Ok(Rendered::NeedsOffload(offload)) = mapper.render(&large(), target, phase, &ctx)
        else {
            panic!("expected an offload");
        };
        let stub = match offload.finish(link.clone()) {
            Ok(stub) => stub,
            Err(err) => panic!("{err}"),
        };
        let texts: Vec<String> = value(stub.json())
            .pointer("/content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned))
            .collect();
        assert!(texts.contains(&expected), "{}: {texts:?}", label(target, phase));
        assert!(!stub.json().contains("resources/read"), "{}", stub.json());
    }
}

/// How often `data`'s compact JSON appears in `view`, raw or escaped inside a JSON string.
fn copies(view: &str, data: &Value) -> usize {
    spellings(&data.to_string())
        .iter()
        .map(|spelling| view.matches(spelling.as_str()).count())
        .max()
        .unwrap_or(0)
}

/// Each fact once (DESIGN §11): a `both` host other than `generic` reads the data once — from
/// `structuredContent` wherever that is sent and holds it — on every revision and in both
/// phases; the text copy becomes the summary or a pointer line. Data no longer than the pointer
/// line (and the envelope's `null`) keeps its copy: the pointer would cost more; so does a tool's
/// own legacy string in the compat phase, repeated byte for byte. `generic` still mirrors it.
#[test]
fn both_hosts_read_the_data_once() {
    let host = both_reader();
    let (mut checked, mut once) = (0, 0);
    for (name, result) in samples() {
        let Some(data) = result.data() else { continue };
        if !result.is_success() {
            continue;
        }
        for (target, phase) in mcp_renders() {
            let label = format!("{name} {}", label(target, phase));
            let wire = render_for(&result, target, phase, &host);
            let view = model_view(&wire, Reads::Both);
            let generic = value(render(&result, target, phase).json());
            if wire.get("structuredContent").is_none() {
                assert_eq!(wire, generic, "{label}: nothing changes without structuredContent");
                continue;
            }
            checked += 1;
            assert_eq!(copies(&model_view(&generic, Reads::Both), data), 2, "{label}");
            assert_eq!(wire.get("structuredContent"), generic.get("structuredContent"), "{label}");
            let pointer_cost = "null\n".len() + toolwire_core::host::DATA_POINTER.len();
            let short = data.to_string().len() <= pointer_cost;
            let own_envelope = phase == Phase::Compat && name == "legacy_string";
            if (short && result.summary().is_none()) || own_envelope {
                assert_eq!(wire, generic, "{label}: keeps its copy");
                continue;
            }
            once += 1;
            assert_eq!(copies(&view, data), 1, "{label}: {view}");
            let texts: Vec<&str> = wire["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            let pointer = texts.contains(&toolwire_core::host::DATA_POINTER);
            assert_eq!(pointer, result.summary().is_none(), "{label}: {texts:?}");
        }
    }
    // 13 samples with data × 3 revisions with structuredContent × 2 phases; 5 of them
    // (lossless_numbers, longer than the pointer, and the four with a summary) read it once,
    // but for the legacy string in the compat phase (the tool's own string is kept).
    assert_eq!(checked, 13 * 3 * 2);
    assert_eq!(once, 5 * 3 * 2 - 3);
}

/// The bytes a `both` host's model reads per golden sample with data, before (the rendering
/// every `both` profile had: `generic`'s) and after (each fact once), on 2025-11-25, in both
/// phases; the table of `docs/hosts.md` ("Each fact once") is this test's output
/// (`cargo test -p toolwire-core --test host_simulator model_visible -- --nocapture`).
#[test]
fn model_visible_bytes_of_a_both_host() {
    let host = both_reader();
    let generic = HostProfile::generic();
    let target = mcp("mcp-2025-11-25");
    let mut rows = vec![
        "| sample | compat today | compat after | ratio | spec today | spec after | ratio |"
            .to_owned(),
        "|---|---:|---:|---:|---:|---:|---:|".to_owned(),
    ];
    let mut totals = [0usize; 4];
    let with_data: Vec<(&str, ToolResult)> = samples()
        .into_iter()
        .filter(|(_, r)| r.is_success() && r.data().is_some())
        .chain([("large (200 rows)", large())])
        .collect();
    for (name, result) in &with_data {
        let mut row = format!("| {name} |");
        for (i, phase) in [Phase::Compat, Phase::Spec].into_iter().enumerate() {
            let before =
                model_view(&render_for(result, target, phase, &generic), Reads::Both).len();
            let after = model_view(&render_for(result, target, phase, &host), Reads::Both).len();
            assert!(after <= before, "{name} {phase:?}: {after} > {before}");
            totals[2 * i] += before;
            totals[2 * i + 1] += after;
            row.push_str(&format!(" {before} | {after} | {:.2} |", after as f64 / before as f64));
        }
        rows.push(row);
    }
    let ratio = |i: usize| totals[i + 1] as f64 / totals[i] as f64;
    rows.push(format!(
        "| **all** | {} | {} | {:.2} | {} | {} | {:.2} |",
        totals[0],
        totals[1],
        ratio(0),
        totals[2],
        totals[3],
        ratio(2)
    ));
    println!("{}", rows.join("\n"));
    assert!(ratio(0) <= 0.6 && ratio(2) <= 0.6, "{}", rows.join("\n"));
}

//! The host-policy simulator (DESIGN §11): every golden sample × every MCP revision × both
//! phases × every built-in host profile, rendered for that host; the text the host would give
//! the model ([`model_view`]) must hold every fact of the result. Plus one test per host rule.

mod golden_support;

use golden_support::*;
use serde_json::{Value, json};
use toolwire_core::host::{HostProfile, HostProfiles, PREVIEW_BYTES, Reads, model_view};
use toolwire_core::{MapperConfig, OutputMapper, RenderContext, Rendered};
use toolwire_core::{McpRevision, Part, Phase, Shape, Target, ToolOutput, ToolResult};

/// One fact the model must be able to read, and the strings any of which shows it.
struct Fact {
    what: String,
    any_of: Vec<String>,
}

fn fact(what: impl Into<String>, any_of: Vec<String>) -> Fact {
    Fact { what: what.into(), any_of }
}

/// The text as it appears raw, or escaped inside a JSON string (the compat envelope).
fn spellings(text: &str) -> Vec<String> {
    let escaped = Value::String(text.to_owned()).to_string();
    vec![text.to_owned(), escaped[1..escaped.len() - 1].to_owned()]
}

/// Every fact of `result` (rendered inline).
fn facts(result: &ToolResult) -> Vec<Fact> {
    let mut facts = Vec::new();
    if let toolwire_core::Provenance::Passthrough(raw) = result.provenance() {
        facts.push(fact("passthrough text", vec![raw.clone()]));
        return facts;
    }
    if let Some(data) = result.data() {
        facts.push(fact("data", spellings(&data.to_string())));
    }
    if let Some(summary) = result.summary() {
        facts.push(fact("summary", spellings(summary)));
    }
    if let Some(error) = result.error() {
        facts.push(fact("error code", spellings(error.code.as_str())));
        facts.push(fact("error message", spellings(&error.message)));
    }
    if result.meta().dry_run == Some(true) {
        facts.push(fact("dry run", vec!["dryRun\":true".into(), "dryRun\\\":true".into()]));
    }
    if let Some(page) = &result.meta().pagination {
        if let Some(total) = page.total {
            facts.push(fact(
                "pagination total",
                vec![format!("\"total\":{total}"), format!("\\\"total\\\":{total}")],
            ));
        }
        if let Some(cursor) = &page.next_cursor {
            facts.push(fact("next cursor", spellings(cursor)));
        }
    }
    for part in result.parts() {
        if let Part::Binary(binary) = part
            && binary.mime_type.starts_with("image/")
        {
            facts.push(fact("image", vec![format!("[image {}]", binary.mime_type)]));
        }
    }
    facts
}

/// The facts of an offload stub pointing at `uri`, for a host that does or does not follow links.
fn link_facts(uri: &str, profile: &HostProfile) -> Vec<Fact> {
    let how = if profile.reads_links {
        "resources/read".to_owned()
    } else {
        format!("read_result with {{\"uri\":\"{uri}\"}}")
    };
    let mut facts = vec![fact("link URI", vec![uri.to_owned()]), fact("how to read it", vec![how])];
    if profile.max_result_bytes.is_some() {
        facts.push(fact("data preview", vec!["Data preview (cut: the first ".into()]));
    }
    facts
}

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
            if !fact.any_of.iter().any(|s| view.contains(s.as_str())) {
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

#[test]
fn every_fact_reaches_the_model_on_every_built_in_host() {
    let hosts = HostProfiles::builtin();
    assert_eq!(hosts.iter().count(), 15, "every built-in profile is simulated");
    for profile in hosts.iter() {
        let mut score = Score::default();
        for (name, result) in samples() {
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
        let stub_facts: Vec<Fact> = link_facts(&link.uri, profile)
            .into_iter()
            .chain(facts(&large).into_iter().filter(|f| f.what != "data"))
            .collect();
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

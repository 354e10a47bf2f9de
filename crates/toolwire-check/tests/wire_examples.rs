//! The specification's own 2026-07-28 examples (copied under `spec/`) against `wire::check`.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolwire_check::wire::{self, WireViolation};
use toolwire_core::{McpRevision, Target};

// `cfg(test)` marks the helper as test code for clippy's unwrap rules.
#[cfg(test)]
fn examples(folder: &str) -> Vec<(String, Value)> {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/mcp/2026-07-28/examples").join(folder);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no examples in {}", dir.display());
    files
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, serde_json::from_str(&text).unwrap())
        })
        .collect()
}

const R: McpRevision = McpRevision::V2026_07_28;

#[test]
fn every_call_tool_result_example_passes_the_official_schema() {
    for (name, example) in examples("CallToolResult") {
        assert_eq!(wire::official_call_tool_result_violations(R, &example), vec![], "{name}");
    }
}

#[test]
fn every_call_tool_result_example_passes_the_wire_check() {
    for (name, example) in examples("CallToolResult") {
        let violations = wire::check(Target::Mcp(R), &example.to_string());
        if name == "result-with-unstructured-text.json" {
            // The spec example writes `"isError": false` on a success. The official schema
            // allows it; toolwire's contract does not (a success leaves `isError` out, DESIGN §3),
            // so this is the one contract rule an official example breaks.
            assert_eq!(
                violations,
                vec![WireViolation::new(
                    "/isError",
                    "`isError` is `true` on a failure and absent on a success, never `false`"
                )],
                "{name}"
            );
        } else {
            assert_eq!(violations, vec![], "{name}");
        }
    }
}

#[test]
fn the_response_example_result_passes_once_is_error_false_is_dropped() {
    for (name, mut response) in examples("CallToolResultResponse") {
        let result = response["result"].as_object_mut().unwrap();
        assert_eq!(result.remove("isError"), Some(json!(false)), "{name}");
        assert_eq!(wire::check(Target::Mcp(R), &response["result"].to_string()), vec![], "{name}");
    }
}

#[test]
fn block_examples_pass_inside_a_result() {
    for folder in ["EmbeddedResource", "ResourceLink"] {
        for (name, block) in examples(folder) {
            let result = json!({"resultType": "complete", "content": [block]});
            assert_eq!(wire::check(Target::Mcp(R), &result.to_string()), vec![], "{folder}/{name}");
        }
    }
}

#[test]
fn block_examples_are_refused_where_their_fields_do_not_exist() {
    // The embedded resource carries `annotations.lastModified`, which arrives in 2025-06-18.
    let (_, block) = examples("EmbeddedResource").remove(0);
    let result = json!({"content": [block]});
    assert_eq!(
        wire::check(Target::Mcp(McpRevision::V2025_03_26), &result.to_string()),
        vec![WireViolation::new(
            "/content/0/annotations/lastModified",
            "`lastModified` of `annotations` does not exist in 2025-03-26 (it arrives in 2025-06-18)"
        )]
    );
}

//! `toolwire check --format html` of toolwire's own gateway: one self-contained page whose
//! embedded data holds, per tool and revision, the first call's answer and what each host
//! profile's model reads of it, each fact seen.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use serde_json::Value;

use crate::gateway::{self, Server};

/// The element the page reads its data from.
const DATA_OPEN: &str = r#"<script type="application/json" id="toolwire-data">"#;

#[test]
fn the_html_report_is_one_self_contained_page_with_a_preview_per_tool_and_revision() {
    let server = Server::start(None, &[]);
    let output = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["check", &server.url, "--allow-writes", "--format", "html"])
        .env_remove("TOOLWIRE_PHASE")
        .output()
        .expect("run toolwire check");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let page = String::from_utf8(output.stdout).unwrap();

    // One document, nothing loaded from elsewhere.
    assert!(page.starts_with("<!doctype html>"), "{}", &page[..page.len().min(200)]);
    assert_eq!(page.matches("<html").count(), 1);
    assert!(page.trim_end().ends_with("</html>"));
    assert!(!page.contains("<script src="), "a script is loaded");
    assert!(!page.contains(r#"<link rel="stylesheet" href="#), "a style sheet is loaded");
    assert!(page.contains("<style>"));

    let start = page.find(DATA_OPEN).expect("the data element") + DATA_OPEN.len();
    let end = start + page[start..].find("</script>").expect("the data element ends");
    let data: Value = serde_json::from_str(&page[start..end].replace("<\\/", "</")).unwrap();
    assert_eq!(data["title"], format!("toolwire check {}", server.url));
    let previews = data["previews"].as_array().unwrap();
    for tool in gateway::DEMO_TOOLS {
        let revisions: Vec<&str> = previews
            .iter()
            .filter(|p| p["tool"] == tool)
            .map(|p| p["hostRevision"].as_str().unwrap())
            .collect();
        assert_eq!(revisions, gateway::REVISIONS, "{tool}");
    }
    for preview in previews {
        let revision = preview["hostRevision"].as_str().unwrap();
        let tool = preview["tool"].as_str().unwrap();
        assert_eq!(preview["label"], format!("{tool} · MCP {revision}"));
        assert!(["success", "error"].contains(&preview["outcome"].as_str().unwrap()));
        assert_eq!(preview["findings"], serde_json::json!([]), "{tool} {revision}");
        let wire = &preview["wires"][0];
        assert_eq!(wire["id"], format!("mcp-{revision}"));
        assert_eq!(wire["label"], format!("MCP {revision}"));
        assert!(wire["json"]["content"].is_array(), "{wire}");
        assert_eq!(wire["bytes"].as_u64(), Some(wire["json"].to_string().len() as u64));
        assert_eq!(wire["isError"], preview["outcome"] == "error");
        let hosts = preview["hosts"].as_array().unwrap();
        // `read_result` is listed only to hosts whose models cannot follow links.
        if gateway::DEMO_TOOLS.contains(&tool) {
            let claude_code = hosts.iter().find(|h| h["name"] == "claude-code");
            let claude_code = claude_code.unwrap_or_else(|| panic!("{tool} {revision}: {hosts:?}"));
            assert_eq!(claude_code["reads"], "structured");
            assert!(claude_code["view"].is_string() && claude_code["withinCap"] == true);
        }
        // toolwire's gateway renders so that every host's model reads every fact.
        for host in hosts {
            let facts = host["facts"].as_array().unwrap();
            assert!(!facts.is_empty(), "{tool} {revision} {}", host["name"]);
            let lost: Vec<&Value> = facts.iter().filter(|f| f["seen"] != true).collect();
            assert!(lost.is_empty(), "{tool} {revision} {}: lost {lost:?}", host["name"]);
        }
    }
}

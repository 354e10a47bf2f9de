//! toolwire in front of an MCP server over stdio (DESIGN §15): here a second toolwire with the
//! demo tools, so that what the upstream answers is known exactly. The first step of #26; the
//! reference servers nobody here wrote come next.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use crate::gateway::{HttpClient, Server};

fn config(dir: &std::path::Path) -> String {
    let inner = dir.join("inner-data");
    format!(
        r#"
demo_tools = false

[auth]
anonymous = true

[[upstreams]]
name = "inner"
command = [{bin:?}, "serve", "--stdio", "--data-dir", {inner:?}]
env = {{ TOOLWIRE_LOG = "error" }}
tool_prefix = "inner_"
tools = ["catalog_*"]
"#,
        bin = env!("CARGO_BIN_EXE_toolwire"),
        inner = inner.display().to_string(),
    )
}

#[test]
fn a_stdio_upstream_is_re_served_under_its_prefix() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = config(dir.path());
    let server = Server::start_in(dir, Some(&text), &[]);
    for revision in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut client = HttpClient::connect(&server.url, revision, None);
        let listed = client.request("tools/list", json!({}));
        let mut names: Vec<String> = listed["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
            .collect();
        names.sort();
        assert!(names.contains(&"inner_catalog_get".to_owned()), "{revision}: {names:?}");
        assert!(names.iter().all(|n| n.starts_with("inner_catalog_")), "{revision}: {names:?}");

        let answer = client.call("inner_catalog_get", json!({"id": 42}));
        let result = &answer["result"];
        assert_ne!(result["isError"], json!(true), "{revision}: {answer}");
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains(r#""name":"Oak lamp 42""#), "{revision}: {answer}");
        assert_eq!(result["content"].as_array().map(Vec::len), Some(1), "{revision}: {answer}");
        if revision == "2024-11-05" {
            assert!(result.get("structuredContent").is_none(), "{revision}: {answer}");
        } else {
            assert_eq!(result["structuredContent"]["id"], json!(42), "{revision}: {answer}");
        }

        let missing = client.call("inner_catalog_get", json!({"id": 999_999}));
        assert_eq!(missing["result"]["isError"], json!(true), "{revision}: {missing}");
    }
}

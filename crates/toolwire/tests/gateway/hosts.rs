//! Host profiles in the gateway (DESIGN §11): the profile picked from `clientInfo.name` (the
//! handshake's, or `_meta`'s on 2026-07-28) decides the definitions and renders a client sees.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use toolwire_core::host::{Reads, model_view};

use crate::gateway::{self, HttpClient, Server};

const ERAS: [&str; 2] = ["2025-11-25", "2026-07-28"];

const ANONYMOUS: &str = "[auth]\nanonymous = true\n";

/// The summary of a result: its own text block (spec phase) or the envelope's (compat).
fn summary_of(texts: &[String]) -> String {
    texts
        .iter()
        .find_map(|t| {
            if t.starts_with("Bytes ") {
                return Some(t.clone());
            }
            let envelope: Value = serde_json::from_str(t).ok()?;
            envelope["_meta"]["summary"].as_str().map(str::to_owned)
        })
        .unwrap_or_default()
}

fn result(response: &Value) -> &Value {
    assert!(response.get("error").is_none(), "{response}");
    &response["result"]
}

#[test]
fn claude_code_reads_the_dry_run_and_the_total_in_both_phases() {
    for phase in ["compat", "spec"] {
        let config = format!("phase = \"{phase}\"\n{ANONYMOUS}");
        let server = Server::start(Some(&config), &[]);
        for revision in ERAS {
            let mut client = HttpClient::connect_as(&server.url, revision, None, "claude-code");
            let listed = client.request("tools/list", json!({}));
            let tools = result(&listed)["tools"].as_array().unwrap();
            assert!(tools.iter().all(|t| t.get("outputSchema").is_none()), "{listed}");
            assert!(tools.iter().all(|t| t["name"] != "read_result"), "claude-code follows links");

            let update = client
                .call("catalog_update_price", json!({"id": 5, "price": 12.5, "dryRun": true}));
            let update = result(&update);
            assert!(update.get("structuredContent").is_none(), "{update}");
            let view = model_view(update, Reads::Structured);
            assert!(view.contains("Dry run: the price of"), "{phase} {revision}: {view}");
            assert!(view.contains("nothing was changed"), "{view}");
            assert!(view.contains("dryRun\":true") || view.contains("dryRun\\\":true"), "{view}");

            let search = client.call("catalog_search", json!({"query": "oak", "limit": 5}));
            let search = result(&search);
            assert!(search.get("structuredContent").is_none(), "{search}");
            let total = search["_meta"]["dev.toolwire/pagination"]["total"].as_u64().unwrap();
            assert!(total > 5, "{search}");
            let view = model_view(search, Reads::Structured);
            assert!(view.contains(&format!("{total} products match; page 1 shows 5.")), "{view}");
            assert!(view.contains("nextCursor"), "{view}");

            // Data alone keeps its structuredContent: that is all the host reads, and it is all.
            let count = client.call("catalog_count", json!({}));
            assert!(result(&count).get("structuredContent").is_some(), "{count}");
        }
    }
}

#[test]
fn unknown_clients_get_the_generic_rendering() {
    let server = Server::start(None, &[]);
    for revision in ERAS {
        let mut client = HttpClient::connect(&server.url, revision, None);
        let listed = client.request("tools/list", json!({}));
        let tools = result(&listed)["tools"].as_array().unwrap();
        assert!(tools.iter().any(|t| t.get("outputSchema").is_some()), "{listed}");
        let update =
            client.call("catalog_update_price", json!({"id": 5, "price": 12.5, "dryRun": true}));
        assert!(result(&update).get("structuredContent").is_some(), "{update}");
    }
}

#[test]
fn hosts_that_cannot_follow_links_page_through_read_result() {
    let server = Server::start(None, &[]);
    for revision in ERAS {
        let mut client = HttpClient::connect_as(&server.url, revision, None, "codex-mcp-client");
        let listed = client.request("tools/list", json!({}));
        let tools = result(&listed)["tools"].as_array().unwrap();
        let read_result = tools.iter().find(|t| t["name"] == "read_result").expect("read_result");
        assert_eq!(read_result["inputSchema"]["required"], json!(["uri"]));

        let export = client.call("catalog_export", json!({}));
        let export = result(&export);
        let link = gateway::stored_link(export);
        let view = model_view(export, Reads::Structured);
        let told = format!("read it by calling the tool read_result with {{\"uri\":\"{link}\"}}");
        assert!(view.contains(&told), "{view}");

        // Codex's cap (10 000 bytes) makes pages of a quarter of it: the export takes over a
        // hundred.
        let mut offset = 0u64;
        let mut whole = String::new();
        let mut pages = 0;
        for _ in 0..1000 {
            pages += 1;
            let page = client.call("read_result", json!({"uri": link, "offset": offset}));
            let page = result(&page);
            assert!(page.get("isError").is_none(), "{page}");
            let texts = gateway::texts(page);
            let summary = summary_of(&texts);
            assert!(summary.starts_with("Bytes "), "{texts:?}");
            let body = texts.last().unwrap();
            whole.push_str(body);
            if summary.ends_with("this is the end.") {
                break;
            }
            offset += body.len() as u64;
            assert!(summary.contains(&format!("\"offset\":{offset}")), "{summary}");
        }
        assert!(pages > 1 && pages < 1000, "{pages} pages");
        let data: Value = serde_json::from_str(&whole).expect("the pages make the export's JSON");
        assert!(data.as_array().is_some_and(|rows| rows.len() > 100), "{}", &whole[..200]);

        let missing = client.call("read_result", json!({"uri": "toolwire://results/nope"}));
        assert_eq!(result(&missing)["isError"], true, "{missing}");
        let texts = gateway::texts(result(&missing)).join("\n");
        assert!(texts.contains("not_found"), "{texts}");
    }
}

#[test]
fn configured_hosts_add_and_override() {
    let config = r#"
[[hosts]]
name = "my-agent"
client_names = ["toolwire-tests"]
reads = "content"
reads_links = false

[auth]
anonymous = true
"#;
    let server = Server::start(Some(config), &[]);
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    let listed = client.request("tools/list", json!({}));
    let tools = result(&listed)["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "read_result"), "{listed}");
}

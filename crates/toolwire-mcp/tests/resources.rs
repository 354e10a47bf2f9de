//! The stored-result resources on the wire, exactly: `resources/templates/list` on every
//! revision and `resources/read` of an offloaded result (data, a text part and a binary part)
//! on a handshake revision and on stateless 2026-07-28.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Value, json};
use support::Peer;
use toolwire_core::{MapperConfig, McpRevision, OutputMapper, Part, Target, ToolResult};
use toolwire_mcp::{CallContext, Gateway, GatewayConfig, McpServer, Registry, ToolSpec};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Nothing {}

/// A server whose one tool answers more than the limit of every revision.
fn server() -> McpServer {
    let mut tools = Registry::new();
    tools
        .register(
            ToolSpec::new("big", "Answers too much."),
            |_: Nothing, _: CallContext| async move {
                ToolResult::builder()
                    .data(json!({"rows": "x".repeat(6000)}))
                    .part(Part::text("a note"))
                    .part(Part::binary(vec![1u8, 2, 3], "application/octet-stream"))
                    .build()
                    .unwrap()
            },
        )
        .unwrap();
    let mut mapper = MapperConfig::default();
    for revision in McpRevision::ALL {
        mapper = mapper.with_limit(Target::Mcp(revision), Some(4096));
    }
    let mut config = GatewayConfig::in_memory().unwrap();
    config.mapper = OutputMapper::new(mapper);
    config.default_principal = toolwire_mcp::Principal::local();
    McpServer::new(Gateway::new(tools, config))
}

/// A peer speaking `revision`: after the handshake, or (2026-07-28) with `_meta` on each request.
struct Client {
    peer: Peer,
    revision: McpRevision,
}

impl Client {
    async fn connect(revision: McpRevision) -> Self {
        let mut peer = Peer::connect(server());
        if !revision.is_stateless() {
            peer.initialize(revision.as_str()).await;
        }
        Self { peer, revision }
    }

    async fn request(&mut self, method: &str, mut params: Value) -> Value {
        if self.revision.is_stateless() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": self.revision.as_str(),
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            });
        }
        self.peer.request(method, params).await
    }
}

const DESCRIPTION: &str = "A tool result too large to send inline, kept for a limited time. Read it with the signed link the tool call returned; links work only for the caller they were made for.";

#[tokio::test]
async fn the_stored_result_template_on_every_revision() {
    for revision in McpRevision::ALL {
        let mut client = Client::connect(revision).await;
        let list = client.request("resources/templates/list", json!({})).await;
        let template = |title: Option<&str>| {
            let mut template = json!({"uriTemplate": "toolwire://results/{id}{?exp,kid,sig}", "name": "stored-result"});
            if let Some(title) = title {
                template["title"] = json!(title);
            }
            template["description"] = json!(DESCRIPTION);
            template
        };
        let expected = match revision.as_str() {
            "2024-11-05" | "2025-03-26" => json!({"resourceTemplates": [template(None)]}),
            "2026-07-28" => json!({
                "resultType": "complete",
                "ttlMs": 3_600_000,
                "cacheScope": "public",
                "resourceTemplates": [template(Some("Stored result"))],
            }),
            _ => json!({"resourceTemplates": [template(Some("Stored result"))]}),
        };
        // Key order too: the text is compared.
        assert_eq!(list["result"].to_string(), expected.to_string(), "{}", revision.as_str());
    }
}

/// The link of the stored result in a `tools/call` answer.
fn stored_link(call: &Value) -> String {
    let blocks = call["result"]["content"].as_array().unwrap_or_else(|| panic!("{call}"));
    let link = blocks.iter().find(|block| block["type"] == "resource_link");
    link.and_then(|block| block["uri"].as_str()).unwrap_or_else(|| panic!("{call}")).to_owned()
}

#[tokio::test]
async fn a_stored_result_reads_back_whole_and_by_part() {
    let contents = |link: &str| {
        json!([
            {"uri": link, "mimeType": "application/json", "text": format!(r#"{{"rows":"{}"}}"#, "x".repeat(6000))},
            {"uri": format!("{link}#part-0"), "mimeType": "text/plain", "text": "a note"},
            {"uri": format!("{link}#part-1"), "mimeType": "application/octet-stream", "blob": "AQID"},
        ])
    };

    let mut client = Client::connect(McpRevision::V2025_11_25).await;
    let call = client.request("tools/call", json!({"name": "big", "arguments": {}})).await;
    let link = stored_link(&call);
    let read = client.request("resources/read", json!({"uri": link})).await;
    assert_eq!(read["result"].to_string(), json!({"contents": contents(&link)}).to_string());
    let part = client.request("resources/read", json!({"uri": format!("{link}#part-1")})).await;
    assert_eq!(part["result"].to_string(), json!({"contents": [contents(&link)[2]]}).to_string());

    let mut client = Client::connect(McpRevision::V2026_07_28).await;
    let call = client.request("tools/call", json!({"name": "big", "arguments": {}})).await;
    let link = stored_link(&call);
    let mut read = client.request("resources/read", json!({"uri": link})).await;
    let ttl = read["result"]["ttlMs"].as_u64().unwrap_or_else(|| panic!("{read}"));
    assert!((3_590_000..=3_600_000).contains(&ttl), "{ttl}");
    read["result"]["ttlMs"] = json!(0);
    assert_eq!(
        read["result"].to_string(),
        json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "contents": contents(&link)})
            .to_string()
    );
}

//! The gateway over Streamable HTTP: every revision on one endpoint, the demo tools, the error
//! channels, stored results, tokens and links bound to principals.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::json;

use crate::gateway::{self, HttpClient, REVISIONS, Server, scenario};

#[test]
fn every_revision_on_one_endpoint() {
    let server = Server::start(None, &[]);
    for revision in REVISIONS {
        let mut client = HttpClient::connect(&server.url, revision, None);
        let published = scenario::tools_list(&mut client);
        scenario::demo_calls(&mut client, &published);
    }
    // Info lines reach standard error within a tenth of a second, not with the answer.
    for line in [
        "tools/call tool=catalog_export revision=\"2026-07-28\" outcome=success",
        "offloaded=true",
        "legacy_results=5",
    ] {
        assert!(server.logs_within(line, Duration::from_secs(5)), "{line}: {}", server.stderr());
    }
}

const TOKENS: &str = r#"
[auth]
anonymous = false

[[auth.tokens]]
token_env = "ALICE_TOKEN"
principal = "alice"
privileges = ["catalog:write"]

[[auth.tokens]]
token = "bob-token"
principal = "bob"
"#;

#[test]
fn tokens_map_to_principals_and_links_to_whoever_made_them() {
    let server = Server::start(Some(TOKENS), &[("ALICE_TOKEN", "alice-token")]);
    let revision = "2025-11-25";

    // No token and anonymous access off: 401.
    let http = reqwest::blocking::Client::new();
    let refused = http
        .post(&server.url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#)
        .send()
        .unwrap();
    assert_eq!(refused.status().as_u16(), 401);
    assert_eq!(refused.headers()["www-authenticate"], "Bearer");

    let mut alice = HttpClient::connect(&server.url, revision, Some("alice-token"));
    let mut bob = HttpClient::connect(&server.url, revision, Some("bob-token"));

    let response = alice.call("catalog_update_price", json!({"id": 2, "price": 12.5}));
    assert!(response["result"].get("isError").is_none(), "{response}");
    assert_eq!(response["result"]["structuredContent"]["newPrice"], 12.5);
    assert_eq!(response["result"]["_meta"]["dev.toolwire/dryRun"], false);
    let response = bob.call("catalog_get", json!({"id": 2}));
    assert_eq!(response["result"]["structuredContent"]["price"], 12.5);

    let response = bob.call("catalog_update_price", json!({"id": 2, "price": 1}));
    assert_eq!(response["result"]["isError"], true);
    assert_eq!(
        response["result"]["structuredContent"],
        serde_json::Value::Null,
        "a tool with an output schema carries no structuredContent on failure"
    );

    let response = alice.call("catalog_export", json!({}));
    let link = gateway::stored_link(&response["result"]);
    let by_bob = bob.request("resources/read", json!({"uri": link}));
    assert_eq!(by_bob["error"]["code"], -32002, "{by_bob}");
    assert_eq!(by_bob["error"]["data"]["uri"], link.as_str());
    let by_alice = alice.request("resources/read", json!({"uri": link}));
    assert_eq!(by_alice["result"]["contents"][0]["mimeType"], "application/json");

    // Stateless 2026-07-28 requests carry their token too.
    let mut alice = HttpClient::connect(&server.url, "2026-07-28", Some("alice-token"));
    let mut bob = HttpClient::connect(&server.url, "2026-07-28", Some("bob-token"));
    let response = alice.call("catalog_update_price", json!({"id": 4, "price": 3.25}));
    assert_eq!(response["result"]["structuredContent"]["newPrice"], 3.25, "{response}");
    let response = bob.call("catalog_update_price", json!({"id": 4, "price": 3}));
    assert_eq!(response["result"]["isError"], true, "{response}");
    let response = bob.call("catalog_export", json!({}));
    let link = gateway::stored_link(&response["result"]);
    let by_alice = alice.request("resources/read", json!({"uri": link}));
    assert_eq!(by_alice["error"]["code"], -32602, "{by_alice}");
    assert_eq!(by_alice["error"]["data"]["uri"], link.as_str());
    let by_bob = bob.request("resources/read", json!({"uri": link}));
    assert_eq!(by_bob["result"]["cacheScope"], "private", "{by_bob}");
}

#[test]
fn unsupported_stateless_revisions_get_32022() {
    let server = Server::start(None, &[]);
    let http = reqwest::blocking::Client::new();
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2099-01-01",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let response = http
        .post(&server.url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2099-01-01")
        .header("Mcp-Method", "tools/list")
        .body(body.to_string())
        .send()
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let message = gateway::message_of(&response.text().unwrap());
    assert_eq!(message["error"]["code"], -32022, "{message}");
    let supported = message["error"]["data"]["supported"].as_array().unwrap();
    assert_eq!(supported.len(), 5, "{message}");

    // `initialize` with an unknown revision gets the newest handshake revision, no guessing.
    let init = reqwest::blocking::Client::new()
        .post(&server.url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-09-01", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        )
        .send()
        .unwrap();
    let init = gateway::message_of(&init.text().unwrap());
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");

    // server/discover answers on 2026-07-28.
    let mut client = HttpClient::connect(&server.url, "2026-07-28", None);
    let discover = client.request("server/discover", json!({}));
    gateway::assert_valid("2026-07-28", "DiscoverResult", &discover["result"]);
    assert_eq!(
        discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "toolwire",
        "{discover}"
    );
}

#[test]
fn foreign_host_names_are_refused() {
    let server = Server::start(None, &[]);
    let response = reqwest::blocking::Client::new()
        .post(&server.url)
        .header("Host", "attacker.example")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#)
        .send()
        .unwrap();
    assert_eq!(response.status().as_u16(), 403);
}

#[test]
fn sigterm_stops_the_server_gracefully() {
    let mut server = Server::start(None, &[]);
    let status = std::process::Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = server.wait_exit(std::time::Duration::from_secs(10));
    assert_eq!(exit, Some(0), "{}", server.stderr());
    assert!(server.stderr().contains("toolwire stopped"), "{}", server.stderr());
}

#[test]
fn a_bad_config_names_the_file_and_key_and_exits_2() {
    let cases = [
        ("phase = \"loud\"\n", "line 1 (`phase`): unknown phase `loud`; expected compat or spec"),
        // A device as the CA bundle is refused before it is read (reading it would never end).
        (
            "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"https://127.0.0.1:9/\"\nca_file = \"/dev/zero\"\n",
            "tools[0].ca_file: cannot read /dev/zero: not a regular file",
        ),
    ];
    for (config, refusal) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, config).unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolwire"))
            .args(["serve", "--config"])
            .arg(&path)
            .env_remove("TOOLWIRE_PHASE")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.trim_end(), format!("toolwire: {}: {refusal}", path.display()));
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn the_spec_phase_comes_from_the_environment() {
    let server = Server::start(None, &[("TOOLWIRE_PHASE", "spec")]);
    let mut client = HttpClient::connect(&server.url, "2025-11-25", None);
    let response = client.call("catalog_get", json!({"id": 3}));
    let result = gateway::checked_result("2025-11-25", &response, None);
    let texts = gateway::texts(result);
    let data: serde_json::Value = serde_json::from_str(&texts[0]).unwrap();
    assert_eq!(data["id"], 3, "the data itself, not an envelope: {}", texts[0]);
    assert!(data.get("success").is_none());
    let response = client.call("catalog_get", json!({"id": 999_999}));
    let texts = gateway::texts(&response["result"]);
    assert_eq!(texts[0], "No product 999999");
    assert_eq!(texts[1], r#"{"error":{"code":"not_found","details":{"id":999999}}}"#);
}

#[test]
fn stored_results_and_their_keys_survive_a_restart() {
    let server = Server::start(None, &[]);
    let mut client = HttpClient::connect(&server.url, "2025-06-18", None);
    let response = client.call("catalog_export", json!({}));
    let link = gateway::stored_link(&response["result"]);
    let dir = server.stop();
    assert!(dir.path().join("data/results.redb").exists());
    assert!(dir.path().join("data/signing-keys.json").exists());

    let server = Server::start_in(dir, None, &[]);
    let mut client = HttpClient::connect(&server.url, "2025-06-18", None);
    let read = client.request("resources/read", json!({"uri": link}));
    let text = read["result"]["contents"][0]["text"].as_str().unwrap_or_else(|| panic!("{read}"));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(text).unwrap().as_array().unwrap().len(),
        2000
    );
}

#[test]
fn origins_are_checked_once_configured() {
    let server = Server::start(
        Some("allowed_origins = [\"http://console.example:3000\"]\n[auth]\nanonymous = true\n"),
        &[],
    );
    let post = |origin: &str| {
        reqwest::blocking::Client::new()
            .post(&server.url)
            .header("Origin", origin)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}})
                .to_string(),
            )
            .send()
            .unwrap()
            .status()
            .as_u16()
    };
    assert_eq!(post("http://evil.example"), 403);
    assert_eq!(post("http://console.example:3000"), 200);
}

#[test]
fn ending_a_session_answers_204_and_an_unknown_one_404() {
    let server = Server::start(None, &[]);
    let client = HttpClient::connect(&server.url, "2025-11-25", None);
    let session = client.session.clone().expect("a session id");
    let http = reqwest::blocking::Client::new();
    let delete = |id: &str| {
        http.delete(&server.url)
            .header("Mcp-Session-Id", id)
            .header("MCP-Protocol-Version", "2025-11-25")
            .send()
            .unwrap()
            .status()
            .as_u16()
    };
    assert_eq!(delete(&session), 204);
    assert_eq!(delete(&session), 404, "a session ends once");
    assert_eq!(delete("no-such-session"), 404);
}

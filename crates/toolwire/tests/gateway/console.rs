//! `/console` and its API (DESIGN §18): served on loopback by default with a strict CSP and no
//! framing; absent when disabled; off loopback only with credentials; a call goes through the
//! call path (privileges, validation, offload) and comes back previewed for every target and
//! host; a stored link opens for its principal alone; foreign hosts, origins and simple
//! content types are refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use crate::gateway::{DEMO_TOOLS, Server};

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

fn base(server: &Server) -> String {
    server.url.trim_end_matches("/mcp").replace("0.0.0.0", "127.0.0.1")
}

fn send(request: reqwest::blocking::RequestBuilder) -> Answer {
    let response = request.send().unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    Answer { status, headers, body: response.text().unwrap() }
}

fn get(server: &Server, path: &str, token: Option<&str>) -> Answer {
    let mut request = reqwest::blocking::Client::new().get(format!("{}{path}", base(server)));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    send(request)
}

fn post(server: &Server, path: &str, body: &Value, token: Option<&str>) -> Answer {
    let mut request = reqwest::blocking::Client::new()
        .post(format!("{}{path}", base(server)))
        .header("Content-Type", "application/json")
        .body(body.to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    send(request)
}

fn call(server: &Server, tool: &str, arguments: Value, token: Option<&str>) -> Value {
    let answer =
        post(server, "/console/api/call", &json!({"tool": tool, "arguments": arguments}), token);
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.json()
}

fn host<'a>(preview: &'a Value, name: &str) -> &'a Value {
    preview["hosts"].as_array().unwrap().iter().find(|h| h["name"] == name).unwrap()
}

fn seen(host: &Value, fact: &str) -> Option<bool> {
    host["facts"].as_array().unwrap().iter().find(|f| f["what"] == fact).map(|f| f["seen"] == true)
}

#[test]
fn the_page_is_served_on_loopback_with_a_strict_policy() {
    let server = Server::start(None, &[]);
    for path in
        ["/console", "/console/", "/console/assets/console.js", "/console/assets/console.css"]
    {
        let answer = get(&server, path, None);
        assert_eq!(answer.status, 200, "{path}");
        let csp = answer.headers["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("default-src 'none'") && csp.contains("script-src 'self'"), "{csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert!(!csp.contains("unsafe-inline") && !csp.contains("http"), "{csp}");
        assert_eq!(answer.headers["x-frame-options"], "DENY");
        assert_eq!(answer.headers["x-content-type-options"], "nosniff");
    }
    let page = get(&server, "/console", None).body;
    assert!(page.contains("/console/assets/console.js"), "{page}");
    assert!(!page.contains("http://") && !page.contains("https://"), "no outside requests");
}

#[test]
fn the_api_lists_every_tool_host_and_revision() {
    let server = Server::start(None, &[]);
    let tools = get(&server, "/console/api/tools", None).json();
    assert_eq!(tools["principal"], "anonymous");
    let names: Vec<&str> =
        tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, DEMO_TOOLS);
    let search = &tools["tools"][0];
    assert_eq!(search["source"], "demo");
    assert_eq!(search["taskSupport"], "forbidden");
    assert!(search["inputSchema"]["properties"]["limit"].is_object(), "{search}");
    assert!(search["outputSchema"].is_object(), "{search}");
    let reprice =
        tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == "catalog_reprice");
    assert_eq!(reprice.unwrap()["privileges"], json!(["catalog:write"]));
    assert_eq!(
        tools["revisions"],
        json!(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
    );
    let hosts: Vec<&str> =
        tools["hosts"].as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap()).collect();
    assert_eq!(hosts.len(), 15, "{hosts:?}");
    assert!(hosts.contains(&"claude-code") && hosts.contains(&"claude-desktop"), "{hosts:?}");
}

#[test]
fn a_call_is_previewed_for_every_target_and_host() {
    let server = Server::start(None, &[]);
    let preview = call(&server, "catalog_search", json!({"limit": 5}), None);
    assert_eq!(preview["outcome"], "success");
    assert_eq!(preview["principal"], "anonymous");
    assert_eq!(preview["schema"], json!({"declared": true, "valid": true, "message": null}));
    assert_eq!(preview["hostRevision"], "2026-07-28");
    let wires: Vec<&str> =
        preview["wires"].as_array().unwrap().iter().map(|w| w["id"].as_str().unwrap()).collect();
    assert_eq!(
        wires,
        [
            "mcp-2024-11-05",
            "mcp-2025-03-26",
            "mcp-2025-06-18",
            "mcp-2025-11-25",
            "mcp-2026-07-28",
            "legacy",
            "a2a-0.3",
            "a2a-1.0"
        ]
    );
    // The 2025-06-18 wire is what a 2025-06-18 client gets over /mcp for the same call.
    let mut client = crate::gateway::HttpClient::connect(&server.url, "2025-06-18", None);
    let direct = client.call("catalog_search", json!({"limit": 5}));
    let mut wire = preview["wires"][2]["json"].clone();
    let mut direct = direct["result"].clone();
    for value in [&mut wire, &mut direct] {
        if let Some(meta) = value["_meta"].as_object_mut() {
            meta.retain(|key, _| !key.ends_with("generatedAt"));
        }
    }
    assert_eq!(wire, direct);
    assert_eq!(preview["hosts"].as_array().unwrap().len(), 15);
    let claude_code = host(&preview, "claude-code");
    assert_eq!(seen(claude_code, "next cursor"), Some(true), "{claude_code}");
    assert_eq!(claude_code["cap"], 50000);
    assert_eq!(claude_code["withinCap"], true);
    assert_eq!(seen(host(&preview, "claude-desktop"), "data"), Some(true));
    let view = claude_code["view"].as_str().unwrap();
    assert!(view.contains("\"name\":"), "{view}");
}

#[test]
fn the_call_path_checks_privileges_and_arguments() {
    let config = r#"
[auth]
anonymous = true

[[auth.tokens]]
principal = "editor"
token = "editor-secret"
privileges = ["catalog:write"]
"#;
    let server = Server::start(Some(config), &[]);
    let refused = call(&server, "catalog_reprice", json!({"percent": 1}), None);
    assert_eq!(refused["outcome"], "error");
    assert_eq!(refused["document"]["error"]["code"], "missing_privilege", "{refused}");
    let invalid = call(&server, "catalog_search", json!({"limit": "five"}), None);
    assert_eq!(invalid["document"]["error"]["code"], "invalid_arguments", "{invalid}");
    let dry = call(
        &server,
        "catalog_update_price",
        json!({"id": 1, "price": 5, "dryRun": true}),
        Some("editor-secret"),
    );
    assert_eq!(dry["principal"], "editor");
    for host in dry["hosts"].as_array().unwrap() {
        assert_eq!(seen(host, "dry run"), Some(true), "{host}");
    }
    let unknown =
        post(&server, "/console/api/call", &json!({"tool": "nope", "arguments": {}}), None);
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json(), json!({"error": "unknown_tool", "message": "unknown tool: nope"}));
    let bad = post(
        &server,
        "/console/api/call",
        &json!({"tool": "catalog_count", "arguments": []}),
        None,
    );
    assert_eq!(bad.status, 400);
    assert_eq!(bad.json()["message"], "arguments must be a JSON object, not an array");
}

#[test]
fn a_stored_link_opens_for_its_principal_alone() {
    let config = r#"
[auth]
anonymous = true

[[auth.tokens]]
principal = "ann"
token = "ann-secret"
"#;
    let server = Server::start(Some(config), &[]);
    let export = call(&server, "catalog_export", json!({}), Some("ann-secret"));
    let uri = export["links"][0]["uri"].as_str().unwrap().to_owned();
    assert!(uri.starts_with("toolwire://results/"), "{export}");
    assert!(export["wires"].as_array().unwrap().iter().any(|w| w["offloaded"] == true));
    assert_eq!(seen(host(&export, "generic"), "link URI"), Some(true));
    let opened = post(&server, "/console/api/read", &json!({"uri": uri}), Some("ann-secret"));
    assert_eq!(opened.status, 200, "{}", opened.body);
    let opened = opened.json();
    assert_eq!(opened["uri"], uri.as_str());
    let rows: Value = serde_json::from_str(opened["text"].as_str().unwrap()).unwrap();
    assert!(rows.as_array().unwrap().len() > 100, "the whole export");
    let other = post(&server, "/console/api/read", &json!({"uri": uri}), None);
    assert_eq!(other.status, 404);
    assert_eq!(other.json()["error"], "not_found");
}

#[test]
fn foreign_hosts_origins_and_simple_requests_are_refused() {
    let server = Server::start(None, &[]);
    let client = reqwest::blocking::Client::new();
    let url = format!("{}/console/api/call", base(&server));
    let body = json!({"tool": "catalog_count", "arguments": {}}).to_string();
    let form = send(client.post(&url).header("Content-Type", "text/plain").body(body.clone()));
    assert_eq!(form.status, 415, "{}", form.body);
    let foreign = send(
        client
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Origin", "https://evil.example")
            .body(body.clone()),
    );
    assert_eq!(foreign.status, 403);
    assert_eq!(foreign.json()["error"], "forbidden_origin");
    let own_origin = base(&server);
    let own = send(
        client
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Origin", own_origin)
            .body(body),
    );
    assert_eq!(own.status, 200, "{}", own.body);
    let rebound =
        send(client.get(format!("{}/console", base(&server))).header("Host", "evil.example"));
    assert_eq!(rebound.status, 403);
}

#[test]
fn other_paths_answer_as_without_the_console() {
    let config =
        "[auth]\nanonymous = false\n\n[[auth.tokens]]\ntoken = \"t\"\nprincipal = \"ann\"\n";
    let server = Server::start(Some(config), &[]);
    for path in ["/nothing", "/console/nothing", "/console/api/nothing"] {
        let answer = get(&server, path, None);
        assert_eq!(answer.status, 404, "{path}: {}", answer.body);
        assert!(!answer.headers.contains_key("content-security-policy"), "{path}");
    }
    assert_eq!(get(&server, "/console/api/tools", None).status, 401);
}

#[test]
fn a_disabled_console_is_absent() {
    let server = Server::start(Some("[console]\nenabled = false\n"), &[]);
    assert_eq!(get(&server, "/console", None).status, 404);
    assert_eq!(get(&server, "/console/api/tools", None).status, 404);
}

#[test]
fn off_loopback_the_console_needs_credentials() {
    let config = r#"
[auth]
anonymous = true

[[auth.tokens]]
principal = "ops"
token = "ops-secret"

[console]
enabled = true
"#;
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_at("0.0.0.0:0", dir, Some(config), &[]);
    let refused = get(&server, "/console/api/tools", None);
    assert_eq!(refused.status, 401, "{}", refused.body);
    assert_eq!(refused.json()["error"], "unauthorized");
    let wrong = get(&server, "/console/api/tools", Some("nope"));
    assert_eq!(wrong.status, 401);
    let admitted = get(&server, "/console/api/tools", Some("ops-secret"));
    assert_eq!(admitted.status, 200, "{}", admitted.body);
    assert_eq!(admitted.json()["principal"], "ops");
    // Off loopback and not enabled: absent.
    let dir = tempfile::tempdir().unwrap();
    let quiet = Server::start_at("0.0.0.0:0", dir, Some("[auth]\nanonymous = true\n"), &[]);
    assert_eq!(get(&quiet, "/console/api/tools", None).status, 404);
}

//! `[[openapi]]` (DESIGN §16) over documents nobody here wrote: the real-world corpus of
//! `tests/openapi-specs` (SOURCES.md says where each comes from) loads with every usable
//! operation as a tool, and every `tools/list` is valid for every revision with schemas that are
//! valid, self-contained JSON Schemas; the hostile documents of `tests/openapi-specs/hostile`
//! are refused naming the file and the JSON pointer, or lose only the operation they break.
//! Calls against a real API (FastAPI) are checked by `scripts/clients`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::gateway::{HttpClient, Server, assert_valid};

const REVISIONS: [&str; 5] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];

/// Every real document, with the tools it gives (every method, `writes = true`) and the
/// operations that cannot become tools (bodies only in multipart or other binary types, schemas
/// that do not compile as JSON Schema).
const CORPUS: [(&str, usize, usize); 26] = [
    ("ably-control.json", 22, 0),
    ("adyen-transfers-v4.json", 7, 0),
    ("apache-airflow.json", 73, 0),
    ("authentiq-api.json", 9, 5),
    ("azure-mediaservices-contentkeypolicies.json", 6, 0),
    ("bbc-iplayer-ibl.json", 30, 0),
    ("codat-bank-feeds.json", 6, 0),
    ("discord-api.json", 239, 3),
    ("docker-dvp.json", 8, 0),
    ("etsi-mec010-2-apppkgmgmt.json", 16, 0),
    ("formapi-api.json", 34, 1),
    ("influxdata-influxdb.json", 197, 0),
    ("intellifi-brain.json", 77, 0),
    ("listennotes-podcast.json", 24, 0),
    ("mastodon-api.json", 127, 0),
    ("tsapi-survey.json", 3, 0),
    ("up-banking.json", 18, 0),
    ("vercel-api.json", 113, 0),
    ("whatsapp-business.json", 55, 0),
    ("zapier-nla.json", 5, 0),
    ("mistral-api.yaml", 169, 4),
    ("redocly-museum.yaml", 8, 0),
    ("resend-api.yaml", 103, 1),
    ("twilio-events-v1.yaml", 22, 0),
    ("twilio-lookups-v2.yaml", 10, 0),
    ("twilio-oauth-v2.yaml", 2, 0),
];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/openapi-specs")
}

fn config(spec: &Path) -> String {
    format!(
        "demo_tools = false\n\n[auth]\nanonymous = true\n\n[[openapi]]\nname = \"api\"\nspec = {:?}\nbase_url = \"http://127.0.0.1:9\"\nwrites = true\n",
        spec.display().to_string()
    )
}

/// `toolwire serve --check` with one `[[openapi]]` entry: its exit code and what it printed.
fn check(spec: &Path) -> (i32, String) {
    check_config(&config(spec))
}

/// `toolwire serve --check` of a configuration: its exit code and what it printed.
fn check_config(text: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolwire.toml");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolwire"))
        .args(["serve", "--check", "--config"])
        .arg(&path)
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .env("TOOLWIRE_LOG", "error")
        .output()
        .unwrap();
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// The tool and skipped counts of `serve --check`'s `openapi api: …` line.
fn counts(text: &str) -> (usize, usize) {
    let line = text
        .lines()
        .find(|l| l.starts_with("openapi api: "))
        .unwrap_or_else(|| panic!("no openapi line in:\n{text}"));
    let number = |after: &str| -> usize {
        let at = line.find(after).unwrap_or_else(|| panic!("{after} in {line}"));
        line[..at].rsplit([' ', ':']).next().unwrap().trim().parse().unwrap()
    };
    (number(" tool(s)"), number(" operation(s) skipped"))
}

#[test]
fn every_real_document_loads_every_usable_operation() {
    let mut found: Vec<String> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") || n.ends_with(".yaml"))
        .collect();
    found.sort();
    let mut listed: Vec<String> = CORPUS.iter().map(|(f, ..)| (*f).to_owned()).collect();
    listed.sort();
    assert_eq!(found, listed, "every document of the corpus is in CORPUS");
    for (file, tools, skipped) in CORPUS {
        let (code, text) = check(&corpus_dir().join(file));
        assert_eq!(code, 0, "{file}:\n{text}");
        let loaded = counts(&text);
        println!("{file}: {} tools loaded, {} operations skipped", loaded.0, loaded.1);
        assert_eq!(loaded, (tools, skipped), "{file}:\n{text}");
    }
}

/// Every `$ref` of a published schema points into its own `$defs`.
fn refs_are_local(schema: &Value, at: &str) {
    match schema {
        Value::Object(map) => {
            if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                assert!(reference.starts_with("#/$defs/"), "{at}: $ref {reference}");
            }
            for (key, value) in map {
                refs_are_local(value, &format!("{at}/{key}"));
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs_are_local(v, at)),
        _ => {}
    }
}

#[test]
fn every_real_tool_list_is_valid_at_every_revision() {
    for (file, tools, _) in CORPUS {
        let server = Server::start(Some(&config(&corpus_dir().join(file))), &[]);
        for revision in REVISIONS {
            let mut client = HttpClient::connect(&server.url, revision, None);
            let mut listed = Vec::new();
            let mut cursor: Option<String> = None;
            loop {
                let params = cursor.as_ref().map_or_else(|| json!({}), |c| json!({"cursor": c}));
                let page = client.request("tools/list", params);
                let result = page.get("result").unwrap_or_else(|| panic!("{file}: {page}"));
                assert_valid(revision, "ListToolsResult", result);
                listed.extend(result["tools"].as_array().unwrap().iter().cloned());
                cursor = result.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
                if cursor.is_none() {
                    break;
                }
            }
            assert_eq!(listed.len(), tools, "{file} at {revision}");
            for tool in &listed {
                let name = tool["name"].as_str().unwrap();
                for key in ["inputSchema", "outputSchema"] {
                    let Some(schema) = tool.get(key) else { continue };
                    let at = format!("{file} {revision} {name} {key}");
                    assert!(jsonschema::draft202012::meta::is_valid(schema), "{at}: {schema}");
                    assert!(jsonschema::validator_for(schema).is_ok(), "{at}: {schema}");
                    refs_are_local(schema, &at);
                }
            }
        }
    }
}

#[test]
fn hostile_documents_are_refused_where_they_break() {
    let hostile = corpus_dir().join("hostile");
    let refused = |file: &str, why: &str| {
        let spec = hostile.join(file);
        let (code, text) = check(&spec);
        assert_eq!(code, 2, "{file}:\n{text}");
        let want = format!("openapi `api`: {}: {why}", spec.display());
        assert!(text.contains(&want), "{file}: wanted {want:?} in:\n{text}");
    };
    refused(
        "swagger-2.0.json",
        "at /swagger: this is a Swagger 2.0 document; toolwire reads OpenAPI 3.0 and 3.1 (convert it first, e.g. with swagger2openapi)",
    );
    refused(
        "not-openapi.json",
        "at /openapi: no `openapi` version: this is not an OpenAPI document",
    );
    refused("deep-nesting.json", "the document: not valid JSON: recursion limit exceeded");
    refused(
        "alias-bomb.yaml",
        "the document: not valid YAML (nor JSON): error: line 11 column 10: budget breached",
    );
    refused(
        "broken.yaml",
        "the document: not valid YAML (nor JSON): error: line 9 column 20: mapping values are not allowed in this context",
    );
    let skipped = |file: &str, tools: usize, lines: &[&str]| {
        let (code, text) = check(&hostile.join(file));
        assert_eq!(code, 0, "{file}:\n{text}");
        assert_eq!(counts(&text), (tools, lines.len()), "{file}:\n{text}");
        for line in lines {
            assert!(text.contains(&format!("  skipped {line}")), "{file}: {line:?} in:\n{text}");
        }
    };
    skipped(
        "ref-cycle.json",
        5,
        &[
            "GET /param-chain (getParamChain) (at /paths/~1param-chain/get/parameters/0): more than 32 `$ref`s in a row (a cycle?)",
        ],
    );
    skipped(
        "missing-ref.json",
        1,
        &[
            "GET /missing-schema (missingSchema) (at #/components/schemas/DoesNotExist): `#/components/schemas/DoesNotExist` points at nothing",
            "GET /missing-parameter (missingParameter) (at /paths/~1missing-parameter/get/parameters/0): `#/components/parameters/NoSuchParameter` points at nothing",
            "POST /missing-nested (missingNested) (at #/components/schemas/AlsoMissing): `#/components/schemas/AlsoMissing` points at nothing",
        ],
    );
    skipped(
        "external-ref.json",
        1,
        &[
            "GET /relative-file (relativeFile) (at /paths/~1relative-file/get/responses/200/content/application~1json/schema/$ref): `other.yaml#/Foo` refers to another document; toolwire follows only references inside the document (#/…)",
            "GET /remote-url (remoteUrl) (at /paths/~1remote-url/get/responses/200/content/application~1json/schema/$ref): `https://example.com/x.json` refers to another document; toolwire follows only references inside the document (#/…)",
        ],
    );
    // An enum of 300 000 strings (5 MB; written here rather than committed): the operation
    // that would copy it into its schema is skipped, within the per-tool budget.
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge-enum.json");
    let choices: Vec<String> = (0..300_000).map(|i| format!("choice-{i:06}")).collect();
    let doc = json!({
        "openapi": "3.1.0",
        "paths": {"/pick": {"get": {"operationId": "pick", "parameters": [
            {"name": "c", "in": "query", "schema": {"$ref": "#/components/schemas/Choice"}}
        ], "responses": {"204": {"description": "picked"}}}}},
        "components": {"schemas": {"Choice": {"type": "string", "enum": choices}}}
    });
    std::fs::write(&huge, doc.to_string()).unwrap();
    let (code, text) = check(&huge);
    assert_eq!(code, 0, "{text}");
    assert_eq!(counts(&text), (0, 1), "{text}");
    assert!(text.contains("  skipped GET /pick (pick) (at /components/schemas/Choice/enum): the schemas of this operation copy more than 50000 values (its models are too large to publish)"), "{text}");
    skipped(
        "bad-pattern.json",
        3,
        &[
            "invalidPattern (at /paths/~1invalid/get): tool `invalidPattern`: the input schema is refused: \"([a-z\" is not a \"regex\"",
        ],
    );
}

/// The items API of the call test, in 3.0 YAML: a relative server (resolved against the URL the
/// document is fetched from), an API key in a header for every operation, a recursive-free model
/// with a nullable field, a form body, and operations that misbehave.
const ITEMS_SPEC: &str = r##"openapi: 3.0.3
info: {title: items, version: "1"}
servers: [{url: /v1}]
security: [{key: []}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Api-Key}
  schemas:
    Item:
      type: object
      required: [id]
      properties:
        id: {type: string}
        tags: {type: array, items: {type: string}}
        note: {type: string, nullable: true}
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: tag, in: query, schema: {type: array, items: {type: string}}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Item"}}}}
  /items:
    get:
      operationId: listItems
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: array, items: {type: string}}}}}
    post:
      operationId: addItem
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema: {type: object, properties: {name: {type: string}}, required: [name]}
      responses:
        "201": {description: made, content: {application/json: {schema: {type: object}}}}
  /slow:
    get: {operationId: slow, responses: {"200": {description: ok}}}
  /big:
    get: {operationId: big, responses: {"200": {description: ok}}}
  /moved:
    get: {operationId: moved, responses: {"200": {description: ok}}}
"##;

/// The items API: every request it received, by path.
#[derive(Clone, Default)]
struct Seen(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Seen {
    fn count(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

async fn items_api(
    axum::extract::State(seen): axum::extract::State<Seen>,
    request: axum::extract::Request,
) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    let body = axum::body::to_bytes(body, 1 << 20).await.unwrap_or_default();
    seen.0.lock().unwrap().push(path.clone());
    let json = |status: u16, value: Value| {
        let status = http::StatusCode::from_u16(status).unwrap();
        (status, [("content-type", "application/json")], value.to_string()).into_response()
    };
    match path.as_str() {
        "/v1/openapi.yaml" => ITEMS_SPEC.into_response(),
        "/spec-moved" => {
            (http::StatusCode::FOUND, [("location", "/v1/openapi.yaml")]).into_response()
        }
        "/spec-slow" => {
            tokio::time::sleep(std::time::Duration::from_secs(5)).await;
            ITEMS_SPEC.into_response()
        }
        _ if parts.headers.get("x-api-key").and_then(|v| v.to_str().ok()) != Some("k3y") => {
            json(401, json!({"message": "no valid API key"}))
        }
        "/v1/items" if parts.method == http::Method::POST => json(
            201,
            json!({
                "contentType": parts.headers.get("content-type").and_then(|v| v.to_str().ok()),
                "body": String::from_utf8_lossy(&body),
            }),
        ),
        "/v1/items" => {
            let mut response = json(200, json!(["a", "b"]));
            let link = http::HeaderValue::from_static("</v1/items?page=2>; rel=\"next\"");
            response.headers_mut().insert("link", link);
            response
        }
        "/v1/slow" => {
            tokio::time::sleep(std::time::Duration::from_secs(5)).await;
            json(200, json!({}))
        }
        "/v1/big" => json(200, json!({"blob": "x".repeat(100_000)})),
        "/v1/moved" => (http::StatusCode::FOUND, [("location", "/elsewhere")]).into_response(),
        other => match other.strip_prefix("/v1/items/") {
            Some("missing") => json(404, json!({"detail": "no item `missing`"})),
            Some(id) => {
                let id = percent_decode(id);
                json(200, json!({"id": id, "note": null, "query": parts.uri.query()}))
            }
            None => json(404, json!({"detail": "no such path"})),
        },
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// The code, message and details of a failure result (compat's legacy envelope in the first
/// text block).
fn failure(response: &Value) -> (String, String, Value) {
    let result = &response["result"];
    assert_eq!(result["isError"], true, "{response}");
    let text = result["content"][0]["text"].as_str().unwrap();
    let envelope: Value = serde_json::from_str(text).unwrap();
    (
        envelope["code"].as_str().unwrap().to_owned(),
        envelope["error"].as_str().unwrap().to_owned(),
        envelope["details"].clone(),
    )
}

#[test]
fn calls_reach_the_api_as_the_document_says_and_answers_become_results() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Seen::default();
    let router = axum::Router::new().fallback(items_api).with_state(seen.clone());
    runtime.spawn(async move { axum::serve(listener, router).await });

    let config = format!(
        "demo_tools = false\n\n[auth]\nanonymous = true\n\n[[openapi]]\nname = \"items\"\nspec = \"{base}/v1/openapi.yaml\"\ntool_prefix = \"items_\"\nwrites = true\ncredentials = {{ key = {{ value = \"k3y\" }} }}\ntimeout_ms = 1000\nresponse_cap = 50000\n"
    );
    let server = Server::start(Some(&config), &[]);
    let mut client = HttpClient::connect(&server.url, "2026-07-28", None);
    let listed = client.request("tools/list", json!({}));
    let get_item = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "items_getItem")
        .unwrap_or_else(|| panic!("{listed}"))
        .clone();
    assert_eq!(
        get_item["inputSchema"],
        json!({"type": "object", "properties": {
            "id": {"type": "string"},
            "tag": {"type": "array", "items": {"type": "string"}}
        }, "required": ["id"], "additionalProperties": false})
    );
    assert_eq!(
        get_item["outputSchema"],
        json!({"type": "object", "required": ["id"], "properties": {
            "id": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "note": {"type": ["string", "null"]}
        }})
    );
    assert_eq!(get_item["annotations"], json!({"readOnlyHint": true, "openWorldHint": true}));

    // The key, the encoded path and the exploded query reach the API; the data comes back.
    let answer = client.call("items_getItem", json!({"id": "a b/c?", "tag": ["x", "y&z"]}));
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"id": "a b/c?", "note": null, "query": "tag=x&tag=y%26z"}),
        "{answer}"
    );
    let listed = client.call("items_listItems", json!({}));
    assert_eq!(
        listed["result"]["_meta"]["dev.toolwire/pagination"]["nextCursor"], "/v1/items?page=2",
        "{listed}"
    );
    let added = client.call("items_addItem", json!({"body": {"name": "new one"}}));
    assert_eq!(
        added["result"]["structuredContent"],
        json!({"contentType": "application/x-www-form-urlencoded", "body": "name=new%20one"})
    );

    // Arguments that do not fit the input schema never reach the API.
    let before = seen.count();
    let (code, _, _) = failure(&client.call("items_getItem", json!({"tag": ["x"]})));
    assert_eq!(code, "invalid_arguments");
    assert_eq!(seen.count(), before);

    let (code, message, details) = failure(&client.call("items_getItem", json!({"id": "missing"})));
    assert_eq!(
        (code.as_str(), message.as_str(), details),
        ("not_found", "no item `missing` (HTTP 404 Not Found)", json!({"status": 404}))
    );
    let (code, message, _) = failure(&client.call("items_slow", json!({})));
    assert_eq!(code, "upstream_unavailable");
    assert!(
        message
            .starts_with("Tool items_slow is unavailable: the API did not answer within 1000 ms."),
        "{message}"
    );
    let (code, message, _) = failure(&client.call("items_big", json!({})));
    assert_eq!(code, "upstream_unavailable");
    assert!(message.contains("the API answered more than 50000 bytes (response_cap)"), "{message}");
    let (code, message, _) = failure(&client.call("items_moved", json!({})));
    assert_eq!(
        (code.as_str(), message.as_str()),
        (
            "upstream_unavailable",
            "The API answered HTTP 302 Found. The API answered with a redirect, which toolwire does not follow; the operator should check base_url in toolwire.toml."
        )
    );
    drop(server);

    // Without the key the API says why, as a result the model reads.
    let keyless = config.replace("credentials = { key = { value = \"k3y\" } }\n", "");
    let server = Server::start(Some(&keyless), &[]);
    let mut client = HttpClient::connect(&server.url, "2026-07-28", None);
    let (code, message, _) = failure(&client.call("items_getItem", json!({"id": "1"})));
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("missing_privilege", "no valid API key (HTTP 401 Unauthorized)")
    );
    drop(server);

    // A document behind a redirect, or too slow, stops the gateway with the reason.
    for (path, why) in [
        (
            "/spec-moved",
            "it answered HTTP 302 Found, a redirect to /v1/openapi.yaml, which toolwire does not follow; give that URL as spec",
        ),
        ("/spec-slow", "no answer within 1000 ms"),
    ] {
        let spec = format!("{base}{path}");
        let (code, text) = check_config(&config.replace(&format!("{base}/v1/openapi.yaml"), &spec));
        assert_eq!(code, 2, "{text}");
        assert!(text.contains(&format!("openapi `items`: cannot read {spec}: {why}")), "{text}");
    }
}

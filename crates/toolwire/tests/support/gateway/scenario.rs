//! The demo-tool scenario every transport and revision must pass.

use std::collections::HashMap;

use base64::Engine as _;
use serde_json::{Value, json};

use super::{DEMO_TOOLS, Rpc, assert_valid, checked_result, error_definition, stored_link, texts};

/// The compat envelope in the first text block.
fn envelope(result: &Value) -> Value {
    let first = texts(result).into_iter().next().expect("a text block");
    serde_json::from_str(&first).unwrap_or_else(|e| panic!("not an envelope ({e}): {first}"))
}

/// `tools/list` shapes; returns the published outputSchema of each tool.
pub(crate) fn tools_list(rpc: &mut dyn Rpc) -> HashMap<String, Value> {
    let revision = rpc.revision();
    let response = rpc.rpc("tools/list", json!({}));
    let result = &response["result"];
    assert_valid(revision, "ListToolsResult", result);
    let tools = result["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, DEMO_TOOLS, "{revision}");
    let mut published = HashMap::new();
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        let keys: Vec<&str> = tool.as_object().unwrap().keys().map(String::as_str).collect();
        let allowed: &[&str] = match revision {
            "2024-11-05" => &["name", "description", "inputSchema"],
            "2025-03-26" => &["name", "description", "inputSchema", "annotations"],
            _ => &["name", "title", "description", "inputSchema", "outputSchema", "annotations"],
        };
        // 2025-11-25 publishes a task tool's `execution` where its tasks are served.
        let execution = tool.get("execution");
        let task_tool = name == "catalog_reprice";
        if revision == "2025-11-25" {
            assert_eq!(execution.is_some(), task_tool, "{revision} {name}");
        } else {
            assert!(execution.is_none(), "{revision} {name}: unexpected `execution`");
        }
        let keys: Vec<&str> = keys.into_iter().filter(|key| *key != "execution").collect();
        for key in &keys {
            assert!(allowed.contains(key), "{revision} {name}: unexpected `{key}`");
        }
        assert!(!tool["description"].as_str().unwrap().is_empty());
        assert_eq!(tool["inputSchema"]["type"], "object");
        assert!(tool["inputSchema"].get("$schema").is_none(), "{revision} {name}");
        match revision {
            "2024-11-05" => {}
            "2025-03-26" => assert!(tool["annotations"]["title"].is_string(), "{name}"),
            _ => assert!(tool["title"].is_string(), "{name}"),
        }
        let has_output = tool.get("outputSchema").is_some();
        let declares = !matches!(name, "catalog_export" | "catalog_chart");
        assert_eq!(has_output, declares && revision >= "2025-06-18", "{revision} {name}");
        if let Some(schema) = tool.get("outputSchema") {
            published.insert(name.to_owned(), schema.clone());
        }
    }
    if revision >= "2025-06-18" {
        let count = &published["catalog_count"];
        if revision == "2026-07-28" {
            assert_eq!(count["type"], "integer");
        } else {
            assert_eq!(count["type"], "object");
            assert_eq!(count["required"], json!(["result"]));
        }
    }
    published
}

/// One call per demo tool, the error channels, and the stored export read back.
pub(crate) fn demo_calls(rpc: &mut dyn Rpc, published: &HashMap<String, Value>) {
    let revision = rpc.revision();
    let structured = revision >= "2025-06-18";
    let schema = |name: &str| published.get(name);

    let response = rpc.call_tool("catalog_search", json!({"query": "oak", "limit": 5}));
    let result = checked_result(revision, &response, schema("catalog_search"));
    assert!(result.get("isError").is_none());
    let pagination = &result["_meta"]["dev.toolwire/pagination"];
    assert_eq!(pagination["page"], 1);
    assert_eq!(pagination["limit"], 5);
    assert_eq!(pagination["total"], 250);
    assert_eq!(pagination["nextCursor"], "2");
    assert_eq!(envelope(result)["data"].as_array().unwrap().len(), 5);
    match revision {
        "2026-07-28" => assert_eq!(result["structuredContent"].as_array().unwrap().len(), 5),
        r if r >= "2025-06-18" => {
            assert_eq!(result["structuredContent"]["result"].as_array().unwrap().len(), 5)
        }
        _ => assert!(result.get("structuredContent").is_none()),
    }

    let response = rpc.call_tool("catalog_get", json!({"id": 3}));
    let result = checked_result(revision, &response, schema("catalog_get"));
    assert_eq!(envelope(result)["data"]["id"], 3);
    if structured {
        assert_eq!(result["structuredContent"]["name"], "Oak desk 3");
    }

    let response = rpc.call_tool("catalog_get", json!({"id": 999_999}));
    let result = checked_result(revision, &response, schema("catalog_get"));
    assert_eq!(result["isError"], true);
    let failure = envelope(result);
    assert_eq!(failure["code"], "not_found");
    assert_eq!(failure["error"], "No product 999999");

    let response = rpc.call_tool("catalog_count", json!({}));
    let result = checked_result(revision, &response, schema("catalog_count"));
    assert_eq!(envelope(result)["data"], 2000);
    match revision {
        "2026-07-28" => assert_eq!(result["structuredContent"], 2000),
        r if r >= "2025-06-18" => assert_eq!(result["structuredContent"], json!({"result": 2000})),
        _ => {}
    }

    let response = rpc.call_tool("catalog_update_price", json!({"id": 1, "price": 9.5}));
    let result = checked_result(revision, &response, schema("catalog_update_price"));
    assert_eq!(result["isError"], true);
    let failure = envelope(result);
    assert_eq!(failure["code"], "missing_privilege");
    assert_eq!(failure["details"]["missing"], json!(["catalog:write"]));

    let response =
        rpc.call_tool("catalog_update_price", json!({"id": 1, "price": 9.5, "dryRun": true}));
    let result = checked_result(revision, &response, schema("catalog_update_price"));
    assert!(result.get("isError").is_none());
    assert_eq!(result["_meta"]["dev.toolwire/dryRun"], true);
    let preview = envelope(result);
    assert_eq!(preview["data"]["newPrice"], 9.5);
    assert_eq!(preview["_meta"]["dryRun"], true);
    let old_price = preview["data"]["oldPrice"].clone();
    let response = rpc.call_tool("catalog_get", json!({"id": 1}));
    assert_eq!(
        envelope(&response["result"])["data"]["price"],
        old_price,
        "a dry run changes nothing"
    );

    let response = rpc.call_tool("catalog_export", json!({}));
    let result = checked_result(revision, &response, schema("catalog_export"));
    assert!(result.get("isError").is_none(), "{result}");
    assert!(result["_meta"]["dev.toolwire/responseSize"].as_u64().unwrap() > 262_144);
    assert!(result.to_string().len() <= 262_144);
    let link = stored_link(result);
    assert!(link.starts_with("toolwire://results/"), "{link}");
    let read = rpc.rpc("resources/read", json!({"uri": link}));
    let contents = &read["result"];
    assert_valid(revision, "ReadResourceResult", contents);
    assert_eq!(contents["contents"][0]["mimeType"], "application/json");
    let data: Value =
        serde_json::from_str(contents["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(data.as_array().unwrap().len(), 2000);
    if revision == "2026-07-28" {
        assert_eq!(contents["resultType"], "complete");
        assert_eq!(contents["cacheScope"], "private");
        assert!(contents["ttlMs"].as_u64().unwrap() > 3_000_000);
    } else {
        assert!(contents.get("ttlMs").is_none() && contents.get("resultType").is_none());
    }

    let response = rpc.call_tool("catalog_chart", json!({}));
    let result = checked_result(revision, &response, schema("catalog_chart"));
    let image = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "image")
        .unwrap_or_else(|| panic!("no image block: {result}"));
    assert_eq!(image["mimeType"], "image/png");
    let png =
        base64::engine::general_purpose::STANDARD.decode(image["data"].as_str().unwrap()).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(envelope(result)["_meta"]["summary"].as_str().unwrap().starts_with("Bar chart"));

    let response = rpc.call_tool("legacy_echo", json!({"text": "hi"}));
    let result = checked_result(revision, &response, schema("legacy_echo"));
    assert_eq!(
        texts(result)[0],
        r#"{"success":true,"data":{"text":"hi"},"_meta":{"summary":"Echoed 2 characters."}}"#
    );
    if structured {
        assert_eq!(result["structuredContent"], json!({"text": "hi"}));
    }

    let response = rpc.call_tool("no_such_tool", json!({}));
    assert_eq!(response["error"]["code"], -32602, "{response}");
    assert_valid(revision, error_definition(revision), &response);

    let response = rpc.call_tool("catalog_search", json!({"limit": 0}));
    let result = checked_result(revision, &response, schema("catalog_search"));
    assert_eq!(result["isError"], true);
    let failure = envelope(result);
    assert_eq!(failure["code"], "invalid_arguments");
    assert_eq!(failure["details"]["invalid"][0]["path"], "/limit");

    let response = rpc.rpc("resources/templates/list", json!({}));
    assert_valid(revision, "ListResourceTemplatesResult", &response["result"]);
    assert_eq!(
        response["result"]["resourceTemplates"][0]["uriTemplate"],
        "toolwire://results/{id}{?exp,kid,sig}"
    );

    let bogus =
        "toolwire://results/00000000000000000000000000000000?exp=99999999999&kid=k&sig=AAAA";
    let response = rpc.rpc("resources/read", json!({"uri": bogus}));
    let code = if revision == "2026-07-28" { -32602 } else { -32002 };
    assert_eq!(response["error"]["code"], code, "{response}");
    assert_eq!(response["error"]["data"]["uri"], bogus);
    assert_valid(revision, error_definition(revision), &response);
}

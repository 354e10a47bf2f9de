//! The gateway over stdio: every revision, the demo tools, nothing but JSON-RPC on stdout;
//! 2025-11-25's experimental tasks answered in front of rmcp, with status notifications.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use crate::gateway::{REVISIONS, StdioClient, assert_valid, scenario};

#[test]
fn every_revision_over_stdio() {
    for revision in REVISIONS {
        let mut client = StdioClient::start(revision);
        let published = scenario::tools_list(&mut client);
        scenario::demo_calls(&mut client, &published);
    }
}

/// The tool named `name` in a `tools/list` answer.
fn tool<'a>(listed: &'a Value, name: &str) -> &'a Value {
    let tools = listed["result"]["tools"].as_array().unwrap();
    tools.iter().find(|tool| tool["name"] == name).unwrap_or_else(|| panic!("no {name}"))
}

/// Whether `message` is the status notification of task `id` with status `status`.
fn status_of(message: &Value, id: &str, status: &str) -> bool {
    message["method"] == "notifications/tasks/status"
        && message["params"]["taskId"] == id
        && message["params"]["status"] == status
}

/// A 2025-11-25 client over stdio (with the conformance fixtures, whose `slow_compute` needs no
/// privilege): `capabilities.tasks`, `execution.taskSupport`, `params.task`, `tasks/get`,
/// `tasks/list`, `tasks/result` with the related-task `_meta`, `tasks/cancel`, and the
/// status notifications on stdout, every message valid against the 2025-11-25 schema.
#[test]
fn the_experimental_tasks_of_2025_11_25_over_stdio() {
    let mut client = StdioClient::start_flagged("2025-11-25", &["--conformance"]);
    assert_eq!(
        client.initialized["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    let listed = client.request("tools/list", json!({}));
    for (name, support) in
        [("catalog_reprice", "optional"), ("slow_compute", "optional"), ("failing_job", "required")]
    {
        assert_eq!(tool(&listed, name)["execution"], json!({"taskSupport": support}), "{name}");
        assert_valid("2025-11-25", "Tool", tool(&listed, name));
    }
    assert!(tool(&listed, "catalog_get").get("execution").is_none());
    assert!(tool(&listed, "greet").get("execution").is_none());

    let call = |client: &mut StdioClient, seconds: u64, label: &str| {
        client.request(
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": seconds, "label": label},
                   "task": {"ttl": 60000}}),
        )
    };
    let created = call(&mut client, 2, "stdio");
    assert_valid("2025-11-25", "CreateTaskResult", &created["result"]);
    let task = &created["result"]["task"];
    let id = task["taskId"].as_str().unwrap().to_owned();
    assert_eq!(
        task,
        &json!({"taskId": id, "status": "working", "createdAt": task["createdAt"],
                "lastUpdatedAt": task["createdAt"], "ttl": 60000, "pollInterval": 500})
    );
    let got = client.request("tasks/get", json!({"taskId": id}));
    assert_valid("2025-11-25", "GetTaskResult", &got["result"]);
    assert_eq!(got["result"]["taskId"], id.as_str());
    let listed = client.request("tasks/list", json!({}));
    assert_valid("2025-11-25", "ListTasksResult", &listed["result"]);
    let ids: Vec<&Value> =
        listed["result"]["tasks"].as_array().unwrap().iter().map(|t| &t["taskId"]).collect();
    assert_eq!(ids, [&json!(id)]);

    // tasks/result waits for the end, then the result with its task named in `_meta`.
    let result = client.request("tasks/result", json!({"taskId": id}));
    assert_valid("2025-11-25", "CallToolResult", &result["result"]);
    assert_eq!(
        result["result"]["content"][1],
        json!({"type": "text", "text": "Computed stdio in 2 s"})
    );
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"],
        json!({"taskId": id})
    );
    // The tool's status message was told while it ran, and the end once it came: exactly the
    // task tasks/get answers.
    let working = client.hear(|m| status_of(m, &id, "working"));
    assert_eq!(working["params"]["statusMessage"], "computing stdio", "{working}");
    let completed = client.hear(|m| status_of(m, &id, "completed"));
    assert_valid("2025-11-25", "TaskStatusNotification", &completed);
    let ended = client.request("tasks/get", json!({"taskId": id}));
    assert_eq!(
        completed,
        json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": ended["result"]})
    );
    let refused = client.request("tasks/cancel", json!({"taskId": id}));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    // A running task cancelled answers the task, cancelled, and says so in a notification.
    let running = call(&mut client, 60, "long");
    let other = running["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    let cancelled = client.request("tasks/cancel", json!({"taskId": other}));
    assert_valid("2025-11-25", "CancelTaskResult", &cancelled["result"]);
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let told = client.hear(|m| status_of(m, &other, "cancelled"));
    assert_eq!(told["params"], cancelled["result"]);
    let unknown =
        client.request("tasks/get", json!({"taskId": "0123456789abcdef0123456789abcdef"}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    // Without params.task, an optional tool is answered in the request; the other requests
    // went to rmcp as they came.
    let sync = client.call("slow_compute", json!({"seconds": 0, "label": "now"}));
    assert_eq!(sync["result"]["content"][1]["text"], "Computed now in 0 s", "{sync}");
    assert!(sync["result"].get("task").is_none());
}

/// A 2025-06-18 client over stdio sees none of it: no `capabilities.tasks`, no `execution`,
/// and `params.task` is not read (the call is answered in its request).
#[test]
fn a_2025_06_18_stdio_client_sees_no_experimental_tasks() {
    let mut client = StdioClient::start_flagged("2025-06-18", &["--conformance"]);
    assert!(client.initialized["capabilities"].get("tasks").is_none(), "{}", client.initialized);
    let listed = client.request("tools/list", json!({}));
    assert!(tool(&listed, "slow_compute").get("execution").is_none());
    let answered = client.request(
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": 0, "label": "old"},
               "task": {"ttl": 60000}}),
    );
    assert_eq!(answered["result"]["content"][1]["text"], "Computed old in 0 s", "{answered}");
    let listing = client.request("tasks/list", json!({}));
    assert!(listing.get("error").is_some(), "{listing}");
    assert!(client.heard.is_empty(), "{:?}", client.heard);
}

//! `resources/read` while the Redis store is down: the caller (often a model) is told that the
//! store is temporarily unavailable and to retry, with `data: {"retryable": true}`, on the
//! JSON-RPC code of an internal error (-32603); a link that is unknown, expired or tampered with
//! is still the one not-found of its revision, with no hint. With `offload_fallback =
//! "inline"`, an over-limit result is sent inline during the outage. The `read_result` tool
//! says the same: call again later during an outage, and that calling again will not help for a
//! bad link.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::gateway::{self, HttpClient, Server};

/// `redis-server` on a free loopback port, without persistence; killed by [`Redis::stop`] or
/// on drop.
struct Redis {
    child: Option<Child>,
    port: u16,
    persistent: bool,
    dir: tempfile::TempDir,
}

impl Redis {
    fn start() -> Redis {
        Self::launch(None, false)
    }

    /// A server writing every command to its append-only file, so that what was stored survives
    /// a kill and [`Redis::restart`].
    fn start_persistent() -> Redis {
        Self::launch(None, true)
    }

    /// The server again on its port, over its files (an outage's end).
    fn restart(&mut self) {
        let dir = std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap());
        *self = Self::launch(Some((self.port, dir)), self.persistent);
    }

    fn launch(at: Option<(u16, tempfile::TempDir)>, persistent: bool) -> Redis {
        let (port, dir) = at.unwrap_or_else(|| {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            (listener.local_addr().unwrap().port(), tempfile::tempdir().unwrap())
        });
        let append = if persistent {
            ["--appendonly", "yes", "--appendfsync", "always"]
        } else {
            ["--appendonly", "no", "--appendfsync", "everysec"]
        };
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", ""])
            .args(append)
            .arg("--dir")
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start redis-server ({e}): this test needs a real Redis; install \
                     redis-server (apt install redis-server), as scripts/test does"
                )
            });
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not listen on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        Redis { child: Some(child), port, persistent, dir }
    }

    /// Kills the server, as an outage would (`scripts/soak` kills it the same way).
    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A Redis server and a gateway storing results in it (anonymous callers allowed), with
/// `store_lines` added to its `[store]` table.
fn gateway_on_redis(store_lines: &str) -> (Redis, Server) {
    let redis = Redis::start();
    let config = format!(
        "[store]\nurl = \"redis://127.0.0.1:{}/\"\nsigning_keys_env = \"TW_KEYS\"\n{store_lines}\n[auth]\nanonymous = true\n",
        redis.port
    );
    let keys = toolwire_store::KeySet::generate().unwrap().to_json();
    let server = Server::start(Some(&config), &[("TW_KEYS", &keys)]);
    (redis, server)
}

#[test]
fn a_read_while_redis_is_down_says_to_retry_and_a_bad_link_is_still_not_found() {
    let (mut redis, server) = gateway_on_redis("offload_fallback = \"inline\"\n");
    // A handshake revision, and stateless 2026-07-28 (where not found is -32602).
    let mut clients: Vec<(HttpClient, String, i64)> =
        [("2025-11-25", -32002), ("2026-07-28", -32602)]
            .into_iter()
            .map(|(revision, not_found)| {
                let mut client = HttpClient::connect(&server.url, revision, None);
                let response = client.call("catalog_export", json!({}));
                let link = gateway::stored_link(&response["result"]);
                let read = client.request("resources/read", json!({"uri": link}));
                assert!(read["result"]["contents"][0]["text"].is_string(), "{read}");
                (client, link, not_found)
            })
            .collect();

    redis.stop();
    for (client, link, not_found) in &mut clients {
        let read = client.request("resources/read", json!({"uri": link}));
        assert_eq!(
            read["error"],
            json!({
                "code": -32603,
                "message": "The result store is temporarily unavailable, so the stored result could not be read; the link is still valid: retry resources/read later",
                "data": {"retryable": true},
            }),
            "{read}"
        );
        // The signature is checked before the store is asked: a tampered link is refused as
        // before, outage or not.
        let tampered = link.replace("sig=", "sig=A");
        let read = client.request("resources/read", json!({"uri": tampered}));
        assert_eq!(
            read["error"],
            json!({"code": *not_found, "message": "Resource not found", "data": {"uri": tampered}}),
            "{read}"
        );
        // `offload_fallback = "inline"` reaches the gateway: the export is sent whole, and the
        // log says so.
        let response = client.call("catalog_export", json!({}));
        let envelope: serde_json::Value =
            serde_json::from_str(&gateway::texts(&response["result"])[0]).unwrap();
        assert_eq!(envelope["data"].as_array().map(Vec::len), Some(2000));
        assert_eq!(response["result"]["isError"], serde_json::Value::Null);
    }
}

#[test]
fn read_result_while_redis_is_down_says_to_call_again_and_a_bad_link_says_it_will_not_help() {
    let (mut redis, server) = gateway_on_redis("");
    // A host that cannot follow links reads them through the `read_result` tool.
    let mut client = HttpClient::connect_as(&server.url, "2025-11-25", None, "codex-mcp-client");
    let response = client.call("catalog_export", json!({}));
    let link = gateway::stored_link(&response["result"]);
    let page = client.call("read_result", json!({"uri": link}));
    assert_eq!(page["result"]["isError"], serde_json::Value::Null, "{page}");

    redis.stop();
    let outage = client.call("read_result", json!({"uri": link}));
    assert_eq!(outage["result"]["isError"], true, "{outage}");
    let told = gateway::texts(&outage["result"]).join("\n");
    assert!(told.contains("upstream_unavailable"), "{told}");
    assert!(told.contains("the link is still valid: call read_result again later"), "{told}");
    assert!(told.contains("\"retryable\":true"), "{told}");

    let tampered = link.replace("sig=", "sig=A");
    let refused = client.call("read_result", json!({"uri": tampered}));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let told = gateway::texts(&refused["result"]).join("\n");
    assert!(told.contains("not_found"), "{told}");
    assert!(told.contains("calling read_result again will not help"), "{told}");
    assert!(!told.contains("again later") && !told.contains("retryable"), "{told}");
}

/// A task whose run ends while Redis is down keeps its result: polls during the outage are told
/// to retry, and once Redis is back the result the gateway held is there.
#[test]
fn a_task_that_ends_while_redis_is_down_keeps_its_result() {
    let mut redis = Redis::start_persistent();
    let config = format!(
        "[store]\nurl = \"redis://127.0.0.1:{}/\"\nsigning_keys_env = \"TW_KEYS\"\n\n[[auth.tokens]]\ntoken = \"w\"\nprincipal = \"w\"\nprivileges = [\"catalog:write\"]\n",
        redis.port
    );
    let keys = toolwire_store::KeySet::generate().unwrap().to_json();
    let server = Server::start(Some(&config), &[("TW_KEYS", &keys)]);
    let mut client = HttpClient::connect(&server.url, "2026-07-28", Some("w"));
    let tasks = json!({"io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    }});
    let created = client.request(
        "tools/call",
        json!({"name": "catalog_reprice", "arguments": {"category": "lamps", "percent": 0},
               "_meta": tasks}),
    );
    let id = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("{created}")).to_owned();
    let get = |client: &mut HttpClient| {
        client.request("tasks/get", json!({"taskId": id, "_meta": tasks}))
    };
    redis.stop();
    let during = get(&mut client);
    assert_eq!(
        during["error"],
        json!({
            "code": -32603,
            "message": "The result store is temporarily unavailable, so the task could not be read; retry later",
            "data": {"retryable": true},
        }),
        "{during}"
    );
    // The run (four seconds) ends while Redis is down; the gateway keeps its outcome.
    std::thread::sleep(Duration::from_secs(5));
    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(20);
    let done = loop {
        let got = get(&mut client);
        if got["result"]["status"] == "completed" {
            break got;
        }
        assert!(Instant::now() < deadline, "the result was lost: {got}");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(done["result"]["result"]["structuredContent"]["changed"], 400, "{done}");
}

//! Redis as the store of several nodes: two handles with the same keys share records and
//! expiry; a node without keys refuses to start; an outage fails calls clearly (and the offload
//! path with the DESIGN §4 `tool_error`) and the same store works again once Redis is back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use chrono::Utc;
use common::{ManualClock, RedisServer, record};
use serde_json::{Value, json};
use toolwire_core::{MapperConfig, OutputMapper, RenderContext, Rendered};
use toolwire_core::{McpRevision, Phase, Target, Timestamp, ToolResult};
use toolwire_store::KEY_PREFIX;
use toolwire_store::{
    KeySet, OffloadOptions, OpenError, RedisStore, ResultStore, StoreConfig, StoredResults,
};

async fn node(server: &RedisServer, keys: &KeySet) -> StoredResults {
    StoredResults::open(&StoreConfig::redis(server.url()), Some(keys.clone())).await.unwrap()
}

fn needs_offload() -> toolwire_core::NeedsOffload {
    let target = Target::Mcp(McpRevision::V2025_11_25);
    let mapper = OutputMapper::new(MapperConfig::default().with_limit(target, Some(4096)));
    let rows: Vec<Value> = (0..500).map(|n| json!({"id": n})).collect();
    let result = ToolResult::success(json!({"rows": rows}));
    let now = Timestamp::parse("2026-11-29T10:00:00Z").unwrap();
    match mapper.render(&result, target, Phase::Spec, &RenderContext::new("export", now)).unwrap() {
        Rendered::NeedsOffload(needs) => needs,
        other => panic!("expected an offload, got {other:?}"),
    }
}

#[tokio::test]
async fn two_nodes_share_records_links_and_expiry() {
    let server = RedisServer::start();
    let keys = KeySet::generate().unwrap();
    let first = node(&server, &keys).await;
    let second = node(&server, &keys).await;

    // What one node offloads, the other reads through the same link.
    let offloaded = first.offload(needs_offload(), &OffloadOptions::new("alice")).await.unwrap();
    let link = offloaded.link.unwrap();
    let read = second.read(&link.uri, "alice", McpRevision::V2025_11_25, Utc::now()).await.unwrap();
    let data: Value = serde_json::from_str(read.data_json().unwrap()).unwrap();
    assert_eq!(data["rows"].as_array().unwrap().len(), 500);

    // Expiry holds on both: Redis holds the key for the record's lifetime, and neither node
    // returns it once its clock has reached the expiry.
    let clock = ManualClock::start();
    let one = RedisStore::connect(&server.url()).await.unwrap().with_clock(clock.clone());
    let two = RedisStore::connect(&server.url()).await.unwrap().with_clock(clock.clone());
    let id = one.put(clock.record(b"short".to_vec(), "p", 2000)).await.unwrap();
    assert!(two.get(id).await.unwrap().is_some());
    let ttl = server.pttl(&format!("{KEY_PREFIX}{id}"));
    assert!((1..=2000).contains(&ttl), "Redis expires the key itself: PTTL {ttl}");
    clock.advance(2000);
    assert_eq!(one.get(id).await.unwrap(), None);
    assert_eq!(two.get(id).await.unwrap(), None);

    // A node with other keys cannot use the links of the first.
    let stranger = node(&server, &KeySet::generate().unwrap()).await;
    let err = stranger.read(&link.uri, "alice", McpRevision::V2025_11_25, Utc::now()).await;
    assert_eq!(err.unwrap_err().to_string(), "not found");
}

#[tokio::test]
async fn a_redis_node_without_keys_refuses_to_start() {
    let server = RedisServer::start();
    let err = StoredResults::open(&StoreConfig::redis(server.url()), None).await.unwrap_err();
    assert!(matches!(err, OpenError::Keys(_)));
    assert_eq!(
        err.to_string(),
        "the Redis store needs signing keys shared by every node: set TOOLWIRE_SIGNING_KEYS (or \
         configure a key file) with the same keys on each node"
    );
}

#[tokio::test]
async fn an_unreachable_redis_is_a_clear_error_at_start() {
    let port = common::free_port();
    let err = RedisStore::connect(&format!("redis://127.0.0.1:{port}/")).await.unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("Redis store at redis://127.0.0.1:{port}/ failed: ")),
        "{message}"
    );
}

#[tokio::test]
async fn a_redis_outage_fails_calls_and_recovery_needs_no_restart() {
    let mut server = RedisServer::start();
    let keys = KeySet::generate().unwrap();
    let results = node(&server, &keys).await;
    let store = Arc::clone(results.store());
    let before = store.put(record(b"before".to_vec(), "p", 60_000)).await.unwrap();
    assert!(store.get(before).await.unwrap().is_some());

    server.stop();
    let err = store.put(record(b"during".to_vec(), "p", 60_000)).await.unwrap_err();
    let message = err.to_string();
    assert!(message.starts_with(&format!("{} failed: ", redis_at(&server))), "{message}");

    // The offload path turns the outage into the DESIGN §4 tool_error.
    let needs = needs_offload();
    let size = needs.size();
    let offloaded = results.offload(needs, &OffloadOptions::new("p")).await.unwrap();
    assert!(offloaded.link.is_none());
    assert!(offloaded.store_error.is_some());
    let wire: Value = serde_json::from_str(offloaded.output.json()).unwrap();
    assert_eq!(wire["isError"], true);
    assert_eq!(
        wire["structuredContent"]["error"],
        json!({
            "code": "tool_error",
            "message": format!("result of {size} bytes exceeds the limit of 4096 bytes and could not be stored: the result store is unavailable; try again later"),
        })
    );

    // Redis comes back on the same port (empty: it keeps nothing on disk); the same store and
    // the same StoredResults work again.
    server.restart();
    let after = store.put(record(b"after".to_vec(), "p", 60_000)).await.unwrap();
    assert_eq!(store.get(after).await.unwrap().unwrap().bytes, b"after");
    let offloaded = results.offload(needs_offload(), &OffloadOptions::new("p")).await.unwrap();
    let link = offloaded.link.expect("stored again once Redis is back");
    assert!(results.read(&link.uri, "p", McpRevision::V2025_11_25, Utc::now()).await.is_ok());
}

fn redis_at(server: &RedisServer) -> String {
    format!("Redis store at {}", server.url())
}

#[test]
fn a_missing_redis_server_says_how_to_install_it() {
    let empty = tempfile::tempdir().unwrap();
    let mut command = std::process::Command::new("redis-server");
    command.env("PATH", empty.path());
    let err = common::spawn_redis_server(&mut command).unwrap_err();
    assert!(err.starts_with(common::REDIS_MISSING), "{err}");
    assert!(err.contains("install redis-server (apt install redis-server)"), "{err}");
}

//! Offloading a render end to end and reading it back: the exact `resources/read` contents of
//! every revision (checked against the official schemas too), not-found codes, the template.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde_json::{Value, json};
use toolwire_core::{MapperConfig, OutputMapper, RenderContext, Rendered};
use toolwire_core::{McpRevision, Phase, Target, Timestamp, ToolResult};
use toolwire_core::{Part, ResourceLinkPart};
use toolwire_store::{
    KeySet, LinkSigner, MemoryStore, OffloadFallback, OffloadOptions, Quota, ReadError, Record,
    RecordId, ResultStore, StoreError, StoreFuture, StoredResults, resource_template,
    resource_templates_list_result,
};

/// Asserts `value` is a valid `definition` of the official schema of `revision`.
fn assert_official(revision: McpRevision, definition: &str, value: &Value) {
    let errors = toolwire_check::wire::official_mcp_violations(revision, definition, value);
    assert!(errors.is_empty(), "{revision:?} {definition}: {errors:?}\n{value}");
}

fn big_result() -> ToolResult {
    let rows: Vec<Value> =
        (0..400).map(|n| json!({"id": n, "name": format!("item {n}"), "price": 1.50})).collect();
    ToolResult::builder()
        .data(json!({"rows": rows}))
        .summary("400 rows")
        .part(Part::text("a note"))
        .part(Part::named_binary(vec![0u8, 1, 2, 255], "image/png", "chart.png"))
        .part(Part::embedded_text("file:///a.txt", Some("text/plain".into()), "embedded"))
        .part(Part::embedded_blob("file:///a.bin", None, vec![9u8, 8]))
        .part(Part::resource_link_with(
            ResourceLinkPart::new("https://example.com/r.csv", "report").mime_type("text/csv"),
        ))
        .build()
        .unwrap()
}

fn needs_offload(result: &ToolResult, revision: McpRevision) -> toolwire_core::NeedsOffload {
    let target = Target::Mcp(revision);
    let mapper = OutputMapper::new(MapperConfig::default().with_limit(target, Some(4096)));
    let now = Timestamp::parse("2026-11-29T10:00:00Z").unwrap();
    match mapper.render(result, target, Phase::Spec, &RenderContext::new("export", now)).unwrap() {
        Rendered::NeedsOffload(needs) => needs,
        other => panic!("expected an offload, got {other:?}"),
    }
}

fn memory_results() -> StoredResults {
    StoredResults::new(Arc::new(MemoryStore::new()), LinkSigner::new(KeySet::generate().unwrap()))
}

#[tokio::test]
async fn an_offloaded_render_reads_back_exactly() {
    let results = memory_results();
    let result = big_result();
    let options = OffloadOptions::new("alice").ttl(Duration::from_secs(600));
    let before = Utc::now().timestamp();
    let offloaded =
        results.offload(needs_offload(&result, McpRevision::V2025_11_25), &options).await.unwrap();
    assert!(offloaded.output.offloaded());
    assert!(offloaded.store_error.is_none());
    let link = offloaded.link.unwrap();
    let expires = link.expires_at.unwrap().unix_seconds();
    assert!((before + 600..=before + 601).contains(&expires), "{expires}");
    assert!(link.uri.starts_with("toolwire://results/"));
    assert!(link.uri.contains(&format!("?exp={expires}&kid=")));
    assert_eq!(link.mime_type, "application/json");
    // The stub carries the link and is within the limit.
    assert!(offloaded.output.size() <= 4096);
    assert!(offloaded.output.json().contains(&link.uri));

    for revision in McpRevision::ALL {
        let now = Utc::now();
        let read = results.read(&link.uri, "alice", revision, now).await.unwrap();
        let uri = &link.uri;
        let data = serde_json::to_string(result.data().unwrap()).unwrap();
        let mut expected = json!({"contents": [
            {"uri": uri, "mimeType": "application/json", "text": data},
            {"uri": format!("{uri}#part-0"), "mimeType": "text/plain", "text": "a note"},
            {"uri": format!("{uri}#part-1"), "mimeType": "image/png", "blob": "AAEC/w=="},
            {"uri": format!("{uri}#part-2"), "mimeType": "text/plain", "text": "embedded"},
            {"uri": format!("{uri}#part-3"), "blob": "CQg="},
            {"uri": format!("{uri}#part-4"), "mimeType": "text/uri-list", "text": "https://example.com/r.csv\r\n"},
        ]});
        if revision == McpRevision::V2026_07_28 {
            let ttl = (expires * 1000 - now.timestamp_millis()) as u64;
            expected = json!({"resultType": "complete", "contents": expected["contents"], "ttlMs": ttl, "cacheScope": "private"});
        }
        let value = read.to_value();
        assert_eq!(value, expected, "{revision:?}");
        // Key order on the wire, too.
        assert_eq!(
            serde_json::to_string(&value).unwrap(),
            serde_json::to_string(&expected).unwrap()
        );
        assert_official(revision, "ReadResourceResult", &value);
        assert_eq!(read.data_json(), Some(data.as_str()));
    }

    // One part alone through its own uri.
    let part = results
        .read(&format!("{}#part-2", link.uri), "alice", McpRevision::V2025_06_18, Utc::now())
        .await
        .unwrap();
    assert_eq!(
        part.to_value(),
        json!({"contents": [{"uri": format!("{}#part-2", link.uri), "mimeType": "text/plain", "text": "embedded"}]})
    );
}

#[tokio::test]
async fn results_without_data_read_as_parts_or_null() {
    let results = memory_results();
    let options = OffloadOptions::new("p");
    let parts_only = ToolResult::builder().part(Part::text("x".repeat(10_000))).build().unwrap();
    let link = results
        .offload(needs_offload(&parts_only, McpRevision::V2025_11_25), &options)
        .await
        .unwrap()
        .link
        .unwrap();
    let read = results.read(&link.uri, "p", McpRevision::V2025_11_25, Utc::now()).await.unwrap();
    assert_eq!(read.contents.len(), 1);
    assert_eq!(read.contents[0].uri, format!("{}#part-0", link.uri));
    assert_eq!(read.data_json(), None);

    let error_only = ToolResult::failure(toolwire_core::ToolError::new(
        toolwire_core::ErrorCode::ToolError,
        "m".repeat(10_000),
    ));
    let link = results
        .offload(needs_offload(&error_only, McpRevision::V2026_07_28), &options)
        .await
        .unwrap()
        .link
        .unwrap();
    let read = results.read(&link.uri, "p", McpRevision::V2026_07_28, Utc::now()).await.unwrap();
    assert_eq!(
        read.to_value()["contents"],
        json!([{"uri": link.uri, "mimeType": "application/json", "text": "null"}])
    );
    assert_eq!(read.data_json(), Some("null"));
}

#[tokio::test]
async fn not_found_codes_follow_the_revision() {
    let results = memory_results();
    let uri = "toolwire://results/00000000000000000000000000000000?exp=1&kid=k&sig=AA";
    for revision in McpRevision::ALL {
        let err = results.read(uri, "p", revision, Utc::now()).await.unwrap_err();
        let code = if revision == McpRevision::V2026_07_28 { -32602 } else { -32002 };
        assert_eq!(err.code(revision), code);
        assert_eq!(
            err.to_json_rpc_error(revision),
            json!({"code": code, "message": "Resource not found", "data": {"uri": uri}})
        );
    }
}

/// A store whose every call fails, as during an outage (the Redis tests use a real one).
struct DownStore;

impl ResultStore for DownStore {
    fn put(&self, _: Record) -> StoreFuture<'_, RecordId> {
        Box::pin(async { Err(StoreError::Task("store is down".into())) })
    }
    fn get(&self, _: RecordId) -> StoreFuture<'_, Option<Record>> {
        Box::pin(async { Err(StoreError::Task("store is down".into())) })
    }
    fn replace<'a>(&'a self, _: RecordId, _: &'a Record, _: Record) -> StoreFuture<'a, bool> {
        Box::pin(async { Err(StoreError::Task("store is down".into())) })
    }
    fn delete(&self, _: RecordId) -> StoreFuture<'_, bool> {
        Box::pin(async { Err(StoreError::Task("store is down".into())) })
    }
    fn sweep(&self) -> StoreFuture<'_, usize> {
        Box::pin(async { Err(StoreError::Task("store is down".into())) })
    }
    fn backend(&self) -> &'static str {
        "down"
    }
}

#[tokio::test]
async fn store_failure_fails_the_call_or_goes_inline_when_configured() {
    let results =
        StoredResults::new(Arc::new(DownStore), LinkSigner::new(KeySet::generate().unwrap()));
    let result = big_result();
    let needs = needs_offload(&result, McpRevision::V2025_11_25);
    let size = needs.size();
    let offloaded = results.offload(needs, &OffloadOptions::new("p")).await.unwrap();
    assert!(offloaded.link.is_none());
    assert_eq!(
        offloaded.store_error.unwrap().to_string(),
        "result store task failed: store is down"
    );
    assert!(offloaded.output.is_error());
    assert!(!offloaded.output.offloaded());
    let wire: Value = serde_json::from_str(offloaded.output.json()).unwrap();
    let message = format!(
        "result of {size} bytes exceeds the limit of 4096 bytes and could not be stored: the result store is unavailable; try again later"
    );
    assert_eq!(wire["isError"], true);
    assert_eq!(wire["content"][0]["text"], message);
    assert_eq!(
        wire["structuredContent"]["error"],
        json!({"code": "tool_error", "message": message})
    );

    let inline = OffloadOptions::new("p").fallback(OffloadFallback::Inline);
    let needs = needs_offload(&result, McpRevision::V2025_11_25);
    let offloaded = results.offload(needs, &inline).await.unwrap();
    assert!(offloaded.store_error.is_some());
    assert!(!offloaded.output.is_error());
    assert_eq!(offloaded.output.size(), size);
    assert_eq!(
        offloaded.output.warnings(),
        [format!("result of {size} bytes exceeds the limit of 4096 bytes and was sent inline")]
    );

    // Reading through a failing store is an internal error, not a not-found, and says to retry.
    let signer = results.signer().clone();
    let link = signer.sign(
        RecordId::parse("0123456789abcdef0123456789abcdef").unwrap(),
        Utc::now().timestamp() + 60,
        "p",
    );
    let err = results.read(&link, "p", McpRevision::V2026_07_28, Utc::now()).await.unwrap_err();
    assert!(matches!(err, ReadError::Store(_)));
    assert!(err.is_retryable());
    assert_eq!(
        err.to_json_rpc_error(McpRevision::V2026_07_28),
        json!({
            "code": -32603,
            "message": "The result store is temporarily unavailable, so the stored result could not be read; the link is still valid: retry resources/read later",
            "data": {"retryable": true},
        })
    );
}

#[tokio::test]
async fn a_damaged_record_is_unreadable_without_a_retry_hint() {
    let store = Arc::new(MemoryStore::new());
    let results = StoredResults::new(store.clone(), LinkSigner::new(KeySet::generate().unwrap()));
    let now = Timestamp::parse("2026-11-29T10:00:00Z").unwrap();
    let later = Timestamp::from_unix_seconds(Utc::now().timestamp() + 60).unwrap();
    let id = store.put(Record::new(b"not json".to_vec(), "application/json", "p", now, later));
    let id = id.await.unwrap();
    let link = results.signer().sign(id, Utc::now().timestamp() + 60, "p");
    let err = results.read(&link, "p", McpRevision::V2025_11_25, Utc::now()).await.unwrap_err();
    assert!(matches!(err, ReadError::NotAResult { .. }), "{err:?}");
    assert!(!err.is_retryable());
    assert_eq!(
        err.to_json_rpc_error(McpRevision::V2025_11_25),
        json!({"code": -32603, "message": "The stored result could not be read"})
    );
}

#[tokio::test]
async fn an_offload_over_quota_says_the_quota_is_full() {
    let store = MemoryStore::with_quota(Quota::new(1 << 20, 1024));
    let results = StoredResults::new(Arc::new(store), LinkSigner::new(KeySet::generate().unwrap()));
    let result = big_result();
    let needs = needs_offload(&result, McpRevision::V2025_11_25);
    let size = needs.size();
    let offloaded = results.offload(needs, &OffloadOptions::new("p")).await.unwrap();
    assert!(offloaded.link.is_none());
    let err = offloaded.store_error.unwrap();
    assert_eq!(err.kind(), "quota", "{err}");
    assert!(offloaded.output.is_error());
    let wire: Value = serde_json::from_str(offloaded.output.json()).unwrap();
    assert_eq!(
        wire["content"][0]["text"],
        format!(
            "result of {size} bytes exceeds the limit of 4096 bytes and could not be stored: the stored-result quota of this principal is full; space frees as its stored results expire"
        )
    );
}

#[test]
fn the_template_is_published_per_revision() {
    assert_eq!(
        serde_json::to_value(resource_template(McpRevision::V2025_03_26)).unwrap(),
        json!({
            "uriTemplate": "toolwire://results/{id}{?exp,kid,sig}",
            "name": "stored-result",
            "description": "A tool result too large to send inline, kept for a limited time. Read it with the signed link the tool call returned; links work only for the caller they were made for."
        })
    );
    assert_eq!(resource_template(McpRevision::V2025_06_18).title.as_deref(), Some("Stored result"));
    for revision in McpRevision::ALL {
        assert_official(
            revision,
            "ListResourceTemplatesResult",
            &resource_templates_list_result(revision).to_value(),
        );
    }
    let template = serde_json::to_value(resource_template(McpRevision::V2026_07_28)).unwrap();
    assert_eq!(
        serde_json::to_string(&resource_templates_list_result(McpRevision::V2026_07_28)).unwrap(),
        serde_json::to_string(&json!({"resultType": "complete", "resourceTemplates": [template], "ttlMs": 3_600_000, "cacheScope": "public"})).unwrap()
    );
    assert_eq!(
        serde_json::to_string(&resource_templates_list_result(McpRevision::V2025_11_25)).unwrap(),
        serde_json::to_string(
            &json!({"resourceTemplates": [resource_template(McpRevision::V2025_11_25)]})
        )
        .unwrap()
    );
}

#[test]
fn fallback_parses_from_configuration() {
    assert_eq!("inline".parse(), Ok(OffloadFallback::Inline));
    assert_eq!("fail".parse(), Ok(OffloadFallback::Fail));
    for fallback in OffloadFallback::ALL.iter().copied() {
        assert_eq!(fallback.to_string().parse(), Ok(fallback));
        let json = serde_json::to_string(&fallback).unwrap();
        assert_eq!(serde_json::from_str::<OffloadFallback>(&json).unwrap(), fallback);
    }
    assert_eq!(
        "Inline".parse::<OffloadFallback>().map_err(|e| e.to_string()),
        Err("unknown offload fallback `Inline`; expected fail or inline".to_owned())
    );
}

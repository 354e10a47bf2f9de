//! Signed links: every way of tampering with a link, or of using it as someone else, is refused
//! with the same not-found; key rotation keeps old links working until their key is removed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use toolwire_core::{McpRevision, ToolResult, v1};
use toolwire_store::{
    KeySet, LinkSigner, MemoryStore, NotFound, ReadError, Record, ResultStore, SigningKey,
    StoredResults,
};

fn key(kid: &str, byte: u8) -> SigningKey {
    SigningKey::new(kid, vec![byte; 32]).unwrap()
}

fn results(store: &Arc<MemoryStore>, keys: Vec<SigningKey>) -> StoredResults {
    StoredResults::new(store.clone(), LinkSigner::new(KeySet::new(keys).unwrap()))
}

async fn put(store: &MemoryStore, principal: &str, data: Value) -> toolwire_store::RecordId {
    let now = common::in_millis(0);
    let record = Record::new(
        v1::to_vec(&ToolResult::success(data)),
        "application/json",
        principal,
        now,
        common::in_millis(7_200_000),
    );
    store.put(record).await.unwrap()
}

fn now() -> DateTime<Utc> {
    Utc::now()
}

/// Reads `uri` as `principal` at `at` and returns the refusal, checking it is the one not-found.
async fn refused(results: &StoredResults, uri: &str, principal: &str, at: DateTime<Utc>) -> Value {
    let err = results.read(uri, principal, McpRevision::V2025_11_25, at).await.unwrap_err();
    assert!(matches!(err, ReadError::NotFound { .. }), "{uri}: {err:?}");
    assert_eq!(err.to_string(), "not found");
    let mut wire = err.to_json_rpc_error(McpRevision::V2025_11_25);
    assert_eq!(wire["data"], json!({"uri": uri}));
    // Apart from echoing the URI asked for, every refusal is the same value.
    wire["data"]["uri"] = Value::Null;
    wire
}

fn with_param(link: &str, name: &str, value: &str) -> String {
    let (head, query) = link.split_once('?').unwrap();
    let query: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((n, _)) if n == name => format!("{n}={value}"),
            _ => pair.to_owned(),
        })
        .collect();
    format!("{head}?{}", query.join("&"))
}

fn param<'a>(link: &'a str, name: &str) -> &'a str {
    let query = link.split_once('?').unwrap().1;
    query.split('&').find_map(|pair| pair.strip_prefix(&format!("{name}="))).unwrap()
}

#[tokio::test]
async fn every_refusal_is_the_same_not_found() {
    let store = Arc::new(MemoryStore::new());
    let results = results(&store, vec![key("k1", 1)]);
    let exp = now().timestamp() + 3600;
    let alice = put(&store, "alice", json!({"secret": "alice's"})).await;
    let alice_other = put(&store, "alice", json!({"other": true})).await;
    let bob = put(&store, "bob", json!({"secret": "bob's"})).await;
    let link = results.signer().sign(alice, exp, "alice");

    // The genuine link reads.
    let read = results.read(&link, "alice", McpRevision::V2025_11_25, now()).await.unwrap();
    assert_eq!(read.data_json(), Some(r#"{"secret":"alice's"}"#));

    let mut sig = URL_SAFE_NO_PAD.decode(param(&link, "sig")).unwrap();
    sig[0] ^= 1;
    let flipped = with_param(&link, "sig", &URL_SAFE_NO_PAD.encode(&sig));
    let other_id = link.replace(&alice.to_string(), &alice_other.to_string());
    let later = with_param(&link, "exp", &(exp + 1).to_string());
    let unknown_kid = with_param(&link, "kid", "k2");
    // A link the server really signed, for bob, pointing at alice's record.
    let bobs_link_to_alices = results.signer().sign(alice, exp, "bob");
    let deleted = put(&store, "alice", json!(1)).await;
    let deleted_link = results.signer().sign(deleted, exp, "alice");
    store.delete(deleted).await.unwrap();
    let bobs = results.signer().sign(bob, exp, "bob");

    let cases: Vec<(&str, String, &str, DateTime<Utc>)> = vec![
        ("flipped signature bit", flipped, "alice", now()),
        ("changed id", other_id, "alice", now()),
        ("changed expiry", later, "alice", now()),
        ("expired link", link.clone(), "alice", DateTime::from_timestamp(exp, 0).unwrap()),
        ("other principal", link.clone(), "bob", now()),
        ("unknown kid", unknown_kid, "alice", now()),
        ("record of another principal", bobs_link_to_alices, "bob", now()),
        ("deleted record", deleted_link, "alice", now()),
        ("another principal's link", bobs, "alice", now()),
        ("not a link", "toolwire://results/nope".into(), "alice", now()),
        ("unknown part", format!("{link}#part-0"), "alice", now()),
        ("bad fragment", format!("{link}#data"), "alice", now()),
    ];
    let expected = refused(&results, "toolwire://results/x", "alice", now()).await;
    for (case, uri, principal, at) in cases {
        assert_eq!(refused(&results, &uri, principal, at).await, expected, "{case}");
    }
    // The signer alone refuses the tampered links with the very same value.
    assert_eq!(results.signer().verify(&link, "bob", now().timestamp()), Err(NotFound));
}

#[tokio::test]
async fn length_prefixes_keep_fields_apart() {
    // Without length prefixes, (principal "ab", kid "k1") and (principal "a", kid "bk1") would
    // give the same MAC input under the same secret, as would (exp 1800000000, principal "5x")
    // and (exp 18000000005, principal "x").
    let store = Arc::new(MemoryStore::new());
    let results = results(&store, vec![key("bk1", 7), key("k1", 7)]);
    let exp = now().timestamp() + 3600;
    let id = put(&store, "a", json!(1)).await;
    let link = results.signer().sign(id, exp, "ab");
    assert!(link.contains("kid=k1"));
    let shifted = with_param(&link, "kid", "bk1");
    let expected = refused(&results, "toolwire://results/x", "a", now()).await;
    assert_eq!(refused(&results, &shifted, "a", now()).await, expected);

    let id = put(&store, "x", json!(1)).await;
    let link = results.signer().sign(id, 1_800_000_000, "5x");
    let moved = with_param(&link, "exp", "18000000005");
    let at = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    assert_eq!(refused(&results, &moved, "x", at).await, expected);
    // Principals that differ only by a separator character are different principals.
    let id = put(&store, "a:b", json!(1)).await;
    let link = results.signer().sign(id, exp, "a:b");
    for other in ["ab", "a", "a:", "a:b ", "a/b"] {
        assert_eq!(refused(&results, &link, other, now()).await, expected, "{other}");
    }
    assert!(results.read(&link, "a:b", McpRevision::V2025_11_25, now()).await.is_ok());
}

#[tokio::test]
async fn old_keys_verify_after_rotation_until_removed() {
    let store = Arc::new(MemoryStore::new());
    let exp = now().timestamp() + 3600;
    let id = put(&store, "p", json!({"n": 1})).await;
    let before = results(&store, vec![key("k1", 1)]);
    let old_link = before.signer().sign(id, exp, "p");

    let rotated_keys = before.signer().keys().rotated(key("k2", 2)).unwrap();
    let rotated = StoredResults::new(store.clone(), LinkSigner::new(rotated_keys.clone()));
    let new_link = rotated.signer().sign(id, exp, "p");
    assert!(new_link.contains("kid=k2"), "the newest key signs: {new_link}");
    for link in [&old_link, &new_link] {
        let read = rotated.read(link, "p", McpRevision::V2025_11_25, now()).await.unwrap();
        assert_eq!(read.data_json(), Some(r#"{"n":1}"#));
    }

    let retired =
        StoredResults::new(store.clone(), LinkSigner::new(rotated_keys.without("k1").unwrap()));
    let expected = refused(&retired, "toolwire://results/x", "p", now()).await;
    assert_eq!(refused(&retired, &old_link, "p", now()).await, expected);
    assert!(retired.read(&new_link, "p", McpRevision::V2025_11_25, now()).await.is_ok());
    // The last key cannot be removed: a deployment always has one that signs.
    assert!(retired.signer().keys().without("k2").is_err());
}

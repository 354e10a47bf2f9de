//! Store quotas on every backend (DESIGN §12): a principal's share and the total both hold, a
//! refusal is a distinguishable `quota` error, deleted and expired records give their bytes
//! back, and redb counts what its file holds after a restart.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{ManualClock, RedisServer, record};
use toolwire_store::{
    MemoryStore, Quota, QuotaScope, RedbOptions, RedbStore, RedisStore, ResultStore, StoreError,
};

/// Every record below has this size (1000 bytes plus a one-letter principal and the MIME type).
fn unit() -> u64 {
    record(vec![0; 1000], "a", 60_000).size()
}

/// Room for two records per principal and three in all.
fn quota() -> Quota {
    Quota::new(3 * unit(), 2 * unit())
}

fn assert_refused(outcome: Result<toolwire_store::RecordId, StoreError>, scope: QuotaScope) {
    match outcome {
        Err(err @ StoreError::QuotaExceeded { scope: found, .. }) => {
            assert_eq!(found, scope, "{err}");
            assert_eq!(err.kind(), "quota");
            assert!(err.is_quota());
            assert!(err.to_string().contains("store quota of"), "{err}");
        }
        other => panic!("expected a {scope} quota refusal, got {other:?}"),
    }
}

async fn quota_suite(store: &dyn ResultStore, clock: &ManualClock) {
    let big = || vec![7u8; 1000];
    let a1 = store.put(record(big(), "a", 60_000)).await.unwrap();
    let a2 = store.put(record(big(), "a", 60_000)).await.unwrap();
    assert_refused(store.put(record(big(), "a", 60_000)).await, QuotaScope::Principal);
    let b1 = store.put(record(big(), "b", 60_000)).await.unwrap();
    assert_refused(store.put(record(big(), "c", 60_000)).await, QuotaScope::Total);
    // A deleted record gives its bytes back (and a refused one took none).
    assert!(store.delete(a1).await.unwrap());
    let c1 = store.put(record(big(), "c", 60_000)).await.unwrap();
    assert!(store.delete(b1).await.unwrap());
    assert!(store.delete(c1).await.unwrap());
    assert!(store.delete(a2).await.unwrap());
    // A record that expires gives its bytes back once it has expired.
    store.put(clock.record(big(), "d", 300)).await.unwrap();
    store.put(clock.record(big(), "d", 300)).await.unwrap();
    assert_refused(store.put(clock.record(big(), "d", 60_000)).await, QuotaScope::Principal);
    clock.advance(299);
    assert_refused(store.put(clock.record(big(), "d", 60_000)).await, QuotaScope::Principal);
    clock.advance(1);
    let first = clock.record(big(), "d", 60_000);
    let d = store.put(first.clone()).await.unwrap();
    // A replace counts the new size in place of the old: same size fits, a larger one over
    // the principal's room is refused and leaves the old record as it was.
    let second = clock.record(big(), "d", 60_000);
    let d2 = store.put(second.clone()).await.unwrap();
    assert!(store.replace(d, &first, clock.record(big(), "d", 60_000)).await.unwrap());
    let bigger = clock.record(vec![7u8; 1500], "d", 60_000);
    match store.replace(d2, &second, bigger).await {
        Err(err) => assert!(err.is_quota(), "{err}"),
        other => panic!("{}: expected a quota refusal, got {other:?}", store.backend()),
    }
    assert_eq!(store.get(d2).await.unwrap().map(|r| r.bytes.len()), Some(1000));
    // And a smaller one gives room back.
    assert!(store.replace(d2, &second, clock.record(vec![1u8; 10], "d", 60_000)).await.unwrap());
    store.put(clock.record(vec![1u8; 900], "d", 60_000)).await.unwrap();
}

#[tokio::test]
async fn memory_store_keeps_its_quota() {
    let clock = ManualClock::start();
    quota_suite(&MemoryStore::with_quota(quota()).with_clock(clock.clone()), &clock).await;
}

#[tokio::test]
async fn redb_store_keeps_its_quota() {
    let dir = tempfile::tempdir().unwrap();
    let options = RedbOptions::default().sweep_interval(None).quota(quota());
    let clock = ManualClock::start();
    let store = RedbStore::open_with(dir.path(), options).await.unwrap().with_clock(clock.clone());
    quota_suite(&store, &clock).await;
}

#[tokio::test]
async fn redis_store_keeps_its_quota() {
    let server = RedisServer::start();
    let clock = ManualClock::start();
    let store = RedisStore::connect_with_quota(&server.url(), quota()).await.unwrap();
    quota_suite(&store.with_clock(clock.clone()), &clock).await;
}

#[tokio::test]
async fn redb_counts_its_file_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let options = RedbOptions::default().sweep_interval(None).quota(quota());
    {
        let store = RedbStore::open_with(dir.path(), options).await.unwrap();
        store.put(record(vec![1; 1000], "a", 60_000)).await.unwrap();
        store.put(record(vec![2; 1000], "a", 60_000)).await.unwrap();
    }
    let reopened = RedbStore::open_with(dir.path(), options).await.unwrap();
    assert_refused(reopened.put(record(vec![3; 1000], "a", 60_000)).await, QuotaScope::Principal);
    reopened.put(record(vec![3; 1000], "b", 60_000)).await.unwrap();
}

#[tokio::test]
async fn redis_quota_is_shared_by_every_node() {
    let server = RedisServer::start();
    let one = RedisStore::connect_with_quota(&server.url(), quota()).await.unwrap();
    let two = RedisStore::connect_with_quota(&server.url(), quota()).await.unwrap();
    one.put(record(vec![1; 1000], "a", 60_000)).await.unwrap();
    two.put(record(vec![2; 1000], "a", 60_000)).await.unwrap();
    assert_refused(one.put(record(vec![3; 1000], "a", 60_000)).await, QuotaScope::Principal);
}

#[tokio::test]
async fn the_default_quota_is_one_gibibyte_and_a_quarter_per_principal() {
    assert_eq!(Quota::default(), Quota::new(1 << 30, 256 << 20));
}

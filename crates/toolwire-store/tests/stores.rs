//! The shared behaviour suite against memory, redb and Redis; redb across restarts and its
//! directory lock; 64 concurrent 1 MiB writers and readers on every store.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{ManualClock, RedisServer, behaviour_suite, concurrency_suite, expiry_suite, record};
use toolwire_store::{
    MemoryStore, RedbOptions, RedbStore, RedisStore, ResultStore, StoreConfig, StoreError,
};

#[tokio::test]
async fn memory_store_behaves() {
    let clock = ManualClock::start();
    let store = MemoryStore::new().with_clock(clock.clone());
    behaviour_suite(&store).await;
    expiry_suite(&store, &clock).await;
}

#[tokio::test]
async fn redb_store_behaves() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::start();
    let store = RedbStore::open(dir.path()).await.unwrap().with_clock(clock.clone());
    assert_eq!(store.path(), dir.path().join("results.redb"));
    behaviour_suite(&store).await;
    expiry_suite(&store, &clock).await;
}

#[tokio::test]
async fn redis_store_behaves() {
    let server = RedisServer::start();
    let clock = ManualClock::start();
    let store = RedisStore::connect(&server.url()).await.unwrap().with_clock(clock.clone());
    behaviour_suite(&store).await;
    expiry_suite(&store, &clock).await;
}

#[tokio::test]
async fn stores_open_from_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let server = RedisServer::start();
    for (config, backend) in [
        (StoreConfig::Memory, "memory"),
        (StoreConfig::redb(dir.path().join("data")), "redb"),
        (StoreConfig::redis(server.url()), "redis"),
    ] {
        let store = config.open_store().await.unwrap();
        assert_eq!(store.backend(), backend);
        behaviour_suite(store.as_ref()).await;
    }
}

#[tokio::test]
async fn redb_records_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let original = record(b"{\"kept\":true}".to_vec(), "alice", 3_600_000);
    let id = {
        let store = RedbStore::open(dir.path()).await.unwrap();
        store.put(original.clone()).await.unwrap()
    };
    let reopened = RedbStore::open(dir.path()).await.unwrap();
    assert_eq!(reopened.get(id).await.unwrap(), Some(original));
}

#[tokio::test]
async fn a_held_data_directory_is_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let _holder = RedbStore::open(dir.path()).await.unwrap();
    let err = RedbStore::open(dir.path()).await.unwrap_err();
    assert!(matches!(err, StoreError::DataDirInUse { .. }));
    assert_eq!(err.to_string(), format!("data directory in use: {}", dir.path().display()));
}

/// Paused tokio time: the sleep below lets the sweeper's interval tick without waiting (tokio
/// moves virtual time on only while no task, blocking redb work included, can run).
#[tokio::test(start_paused = true)]
async fn the_background_sweep_removes_expired_records_in_batches() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::start();
    let options =
        RedbOptions::default().sweep_interval(Some(Duration::from_millis(200))).sweep_batch(2);
    let store = RedbStore::open_with(dir.path(), options).await.unwrap().with_clock(clock.clone());
    let mut ids = Vec::new();
    for n in 0..5u8 {
        ids.push(store.put(clock.record(vec![n], "p", 300)).await.unwrap());
    }
    let keeper = store.put(clock.record(b"keep".to_vec(), "p", 60_000)).await.unwrap();
    clock.advance(300);
    // One sweeper tick (at 200 ms of virtual time).
    tokio::time::sleep(Duration::from_millis(250)).await;
    // The background task already removed all five (three batches of at most two): nothing is
    // left for an explicit sweep.
    assert_eq!(store.sweep().await.unwrap(), 0);
    for id in ids {
        assert!(!store.delete(id).await.unwrap());
    }
    assert!(store.get(keeper).await.unwrap().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn memory_store_takes_64_concurrent_megabytes() {
    concurrency_suite(Arc::new(MemoryStore::new())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redb_store_takes_64_concurrent_megabytes() {
    let dir = tempfile::tempdir().unwrap();
    concurrency_suite(Arc::new(RedbStore::open(dir.path()).await.unwrap())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redis_store_takes_64_concurrent_megabytes() {
    let server = RedisServer::start();
    concurrency_suite(Arc::new(RedisStore::connect(&server.url()).await.unwrap())).await;
}

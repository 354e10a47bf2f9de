//! redb after a storage fault (DESIGN §12): one I/O error must not refuse every later offload
//! until a restart, and a read during the fault tells the caller to retry. Faults are injected
//! by a storage backend that fails its writes or its reads on demand (no permissions or full
//! disks, which a root CI run cannot reproduce).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::Utc;
use common::{ManualClock, record};
use redb::StorageBackend;
use redb::backends::FileBackend;
use serde_json::json;
use toolwire_core::{McpRevision, ToolResult, v1};
use toolwire_store::{
    KeySet, LinkSigner, ReadError, RedbOptions, RedbStore, ResultStore, StoreError, StoredResults,
};

/// A file backend whose writes and syncs fail while `failing` is set, and whose reads fail
/// while `reads_failing` is.
#[derive(Debug)]
struct Flaky {
    file: FileBackend,
    failing: Arc<AtomicBool>,
    reads_failing: Arc<AtomicBool>,
}

impl Flaky {
    fn check(&self) -> Result<(), io::Error> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(io::Error::other("injected write failure"));
        }
        Ok(())
    }
}

impl StorageBackend for Flaky {
    fn len(&self) -> Result<u64, io::Error> {
        self.file.len()
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), io::Error> {
        if self.reads_failing.load(Ordering::SeqCst) {
            return Err(io::Error::other("injected read failure"));
        }
        self.file.read(offset, out)
    }

    fn set_len(&self, len: u64) -> Result<(), io::Error> {
        self.check()?;
        self.file.set_len(len)
    }

    fn sync_data(&self) -> Result<(), io::Error> {
        self.check()?;
        self.file.sync_data()
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), io::Error> {
        self.check()?;
        self.file.write(offset, data)
    }
}

async fn flaky_store(dir: &std::path::Path, options: RedbOptions) -> (RedbStore, Arc<AtomicBool>) {
    let failing = Arc::new(AtomicBool::new(false));
    let store = flaky_reads(dir, options, Arc::clone(&failing), Arc::default()).await;
    (store, failing)
}

async fn flaky_reads(
    dir: &std::path::Path,
    options: RedbOptions,
    failing: Arc<AtomicBool>,
    reads_failing: Arc<AtomicBool>,
) -> RedbStore {
    RedbStore::open_with_backend(dir, options, move |file| Flaky {
        file: FileBackend::new(file).unwrap(),
        failing: Arc::clone(&failing),
        reads_failing: Arc::clone(&reads_failing),
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn redb_is_reopened_after_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let (store, failing) =
        flaky_store(dir.path(), RedbOptions::default().sweep_interval(None)).await;
    let before = store.put(record(b"before".to_vec(), "p", 60_000)).await.unwrap();

    failing.store(true, Ordering::SeqCst);
    let err = store.put(record(b"during".to_vec(), "p", 60_000)).await.unwrap_err();
    assert!(matches!(err, StoreError::Redb { .. }), "{err:?}");
    assert_eq!(err.kind(), "unavailable");

    // The disk is back: the next offloads work without a restart, and what was committed
    // before the fault is still there.
    failing.store(false, Ordering::SeqCst);
    let after = store.put(record(b"after".to_vec(), "p", 60_000)).await.unwrap();
    assert_eq!(store.get(after).await.unwrap().unwrap().bytes, b"after");
    assert_eq!(store.get(before).await.unwrap().unwrap().bytes, b"before");
    store.put(record(b"again".to_vec(), "p", 60_000)).await.unwrap();
    assert_eq!(store.reopens(), 1);
}

/// Paused tokio time: each sleep lets the 20 ms sweeper tick several times without waiting
/// (virtual time moves on only while no task, blocking redb work included, can run).
#[tokio::test(start_paused = true)]
async fn failed_sweeps_are_counted_and_the_store_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::start();
    let options = RedbOptions::default().sweep_interval(Some(Duration::from_millis(20)));
    let (store, failing) = flaky_store(dir.path(), options).await;
    let store = store.with_clock(clock.clone());
    store.put(clock.record(b"soon gone".to_vec(), "p", 10)).await.unwrap();
    clock.advance(10);
    failing.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let failed = store.sweep_errors();
    assert!(failed >= 4, "five ticks, every sweep fails: {failed}");
    failing.store(false, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let errors = store.sweep_errors();
    assert!(errors <= failed + 1, "at most the tick in flight fails: {failed} → {errors}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(store.sweep_errors(), errors, "sweeps still fail after the fault ended");
    assert_eq!(store.sweep().await.unwrap(), 0, "the background sweep removed the record");
    store.put(record(b"after".to_vec(), "p", 60_000)).await.unwrap();
}

/// A `resources/read` while the disk fails is a retryable internal error, not a not-found: the
/// link stays good, and the same read works once the disk is back.
#[tokio::test]
async fn a_read_during_a_disk_fault_says_to_retry() {
    let dir = tempfile::tempdir().unwrap();
    let options = RedbOptions::default().sweep_interval(None);
    let bytes = v1::to_vec(&ToolResult::success(json!({"rows": [1, 2, 3]})));
    let id = {
        let (store, _) = flaky_store(dir.path(), options).await;
        store.put(record(bytes, "p", 60_000)).await.unwrap()
    };
    // Reopened without a page cache, so the read reaches the disk.
    let reads_failing = Arc::new(AtomicBool::new(false));
    let uncached = options.cache_size(0);
    let store = flaky_reads(dir.path(), uncached, Arc::default(), Arc::clone(&reads_failing)).await;
    let results = StoredResults::new(Arc::new(store), LinkSigner::new(KeySet::generate().unwrap()));
    let link = results.signer().sign(id, Utc::now().timestamp() + 60, "p");

    reads_failing.store(true, Ordering::SeqCst);
    let err = results.read(&link, "p", McpRevision::V2025_11_25, Utc::now()).await.unwrap_err();
    assert!(matches!(&err, ReadError::Store(StoreError::Redb { .. })), "{err:?}");
    assert!(err.is_retryable());
    assert_eq!(
        err.to_json_rpc_error(McpRevision::V2025_11_25),
        json!({
            "code": -32603,
            "message": "The result store is temporarily unavailable, so the stored result could not be read; the link is still valid: retry resources/read later",
            "data": {"retryable": true},
        })
    );

    reads_failing.store(false, Ordering::SeqCst);
    let read = results.read(&link, "p", McpRevision::V2025_11_25, Utc::now()).await.unwrap();
    assert_eq!(read.data_json(), Some(r#"{"rows":[1,2,3]}"#));
}

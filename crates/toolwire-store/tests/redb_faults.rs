//! redb after a storage fault (DESIGN §12): one I/O error must not refuse every later offload
//! until a restart. Faults are injected by a storage backend that fails its writes on demand
//! (no permissions or full disks, which a root CI run cannot reproduce).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{ManualClock, record};
use redb::StorageBackend;
use redb::backends::FileBackend;
use toolwire_store::{RedbOptions, RedbStore, ResultStore, StoreError};

/// A file backend whose writes and syncs fail while `failing` is set.
#[derive(Debug)]
struct Flaky {
    file: FileBackend,
    failing: Arc<AtomicBool>,
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
    let flag = Arc::clone(&failing);
    let store = RedbStore::open_with_backend(dir, options, move |file| Flaky {
        file: FileBackend::new(file).unwrap(),
        failing: Arc::clone(&flag),
    })
    .await
    .unwrap();
    (store, failing)
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

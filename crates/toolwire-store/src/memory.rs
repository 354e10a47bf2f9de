//! A store in process memory, for tests and single-process experiments: nothing survives a
//! restart and nothing is shared between nodes.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use chrono::Utc;

use crate::record::{Record, RecordId};
use crate::store::{ResultStore, StoreError, StoreFuture};

/// Records in a hash map; expired ones are never returned and go at the next sweep.
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<HashMap<RecordId, Record>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn records(&self) -> MutexGuard<'_, HashMap<RecordId, Record>> {
        // A panic while holding the lock cannot leave the map half-updated (every change is one
        // call), so the data is still good.
        self.records.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl ResultStore for MemoryStore {
    fn put(&self, record: Record) -> StoreFuture<'_, RecordId> {
        Box::pin(async move {
            if record.is_expired() {
                return Err(StoreError::AlreadyExpired { expires: record.expires.to_string() });
            }
            let id = RecordId::generate().map_err(StoreError::Random)?;
            self.records().insert(id, record);
            Ok(id)
        })
    }

    fn get(&self, id: RecordId) -> StoreFuture<'_, Option<Record>> {
        Box::pin(async move {
            let records = self.records();
            Ok(records.get(&id).filter(|record| !record.is_expired()).cloned())
        })
    }

    fn delete(&self, id: RecordId) -> StoreFuture<'_, bool> {
        Box::pin(async move { Ok(self.records().remove(&id).is_some()) })
    }

    fn sweep(&self) -> StoreFuture<'_, usize> {
        Box::pin(async move {
            let now = Utc::now();
            let mut records = self.records();
            let before = records.len();
            records.retain(|_, record| !record.is_expired_at(now));
            Ok(before - records.len())
        })
    }

    fn backend(&self) -> &'static str {
        "memory"
    }
}

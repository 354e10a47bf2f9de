//! A store in process memory, for tests and single-process experiments: nothing survives a
//! restart and nothing is shared between nodes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, Utc};

use crate::quota::{Quota, Usage};
use crate::record::{Record, RecordId};
use crate::store::{Clock, ResultStore, StoreError, StoreFuture, system_clock};

/// Records in a hash map; expired ones are never returned and go at the next sweep (or when
/// a quota would refuse a record).
#[derive(Debug)]
pub struct MemoryStore {
    records: Mutex<Records>,
    quota: Quota,
    clock: Arc<dyn Clock>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::with_quota(Quota::default())
    }
}

#[derive(Debug, Default)]
struct Records {
    map: HashMap<RecordId, Record>,
    usage: Usage,
}

impl Records {
    fn remove_expired(&mut self, now: DateTime<Utc>) -> usize {
        let expired: Vec<RecordId> =
            self.map.iter().filter(|(_, r)| r.is_expired_at(now)).map(|(id, _)| *id).collect();
        for id in &expired {
            self.remove(*id);
        }
        expired.len()
    }

    fn remove(&mut self, id: RecordId) -> bool {
        match self.map.remove(&id) {
            Some(record) => {
                self.usage.release(&record.principal, record.size());
                true
            }
            None => false,
        }
    }
}

impl MemoryStore {
    /// An empty store with the default quota.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store with `quota`.
    pub fn with_quota(quota: Quota) -> Self {
        Self { records: Mutex::default(), quota, clock: system_clock() }
    }

    /// The same store reading expiry against `clock` instead of the system clock.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    fn records(&self) -> MutexGuard<'_, Records> {
        // A panic while holding the lock cannot leave the map half-updated (every change is one
        // call), so the data is still good.
        self.records.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl ResultStore for MemoryStore {
    fn put(&self, record: Record) -> StoreFuture<'_, RecordId> {
        Box::pin(async move {
            let now = self.clock.now();
            if record.is_expired_at(now) {
                return Err(StoreError::AlreadyExpired { expires: record.expires.to_string() });
            }
            let id = RecordId::generate().map_err(StoreError::Random)?;
            let size = record.size();
            let mut records = self.records();
            if records.usage.admit(&self.quota, &record.principal, size).is_err() {
                // Expired records still count until swept: make room first, then decide.
                records.remove_expired(now);
                records.usage.admit(&self.quota, &record.principal, size)?;
            }
            records.map.insert(id, record);
            Ok(id)
        })
    }

    fn get(&self, id: RecordId) -> StoreFuture<'_, Option<Record>> {
        Box::pin(async move {
            let now = self.clock.now();
            let records = self.records();
            Ok(records.map.get(&id).filter(|record| !record.is_expired_at(now)).cloned())
        })
    }

    fn replace<'a>(
        &'a self,
        id: RecordId,
        current: &'a Record,
        record: Record,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let now = self.clock.now();
            if record.is_expired_at(now) {
                return Err(StoreError::AlreadyExpired { expires: record.expires.to_string() });
            }
            let mut records = self.records();
            let live = records.map.get(&id).filter(|old| !old.is_expired_at(now));
            let Some(old) = live.filter(|old| *old == current) else {
                return Ok(false);
            };
            let (principal, size) = (old.principal.clone(), old.size());
            records.usage.release(&principal, size);
            if let Err(refused) = records.usage.admit(&self.quota, &record.principal, record.size())
            {
                // The old record stays, counted as before.
                records.usage.add(&principal, size);
                return Err(refused);
            }
            records.map.insert(id, record);
            Ok(true)
        })
    }

    fn delete(&self, id: RecordId) -> StoreFuture<'_, bool> {
        Box::pin(async move { Ok(self.records().remove(id)) })
    }

    fn sweep(&self) -> StoreFuture<'_, usize> {
        Box::pin(async move { Ok(self.records().remove_expired(self.clock.now())) })
    }

    fn backend(&self) -> &'static str {
        "memory"
    }
}

//! Where results too large to send inline are kept, bound to the principal that produced them,
//! until their link expires.

use std::collections::HashMap;
use std::future::Future;
use std::hash::{BuildHasher, RandomState};
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use toolwire_core::{Timestamp, ToolResult};

/// A stored result and the facts its link carries.
#[derive(Debug, Clone)]
pub struct StoredRecord {
    /// The whole result.
    pub result: ToolResult,
    /// The principal that produced it; only it may read it back.
    pub principal: String,
    /// When it expires.
    pub expires_at: Timestamp,
}

/// Why a store failed.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The backend refused or failed.
    #[error("result store failed: {0}")]
    Backend(String),
}

/// What store futures return.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A result store: `put` gives a link URI, `get` answers only the principal that stored the
/// record, and only until it expires; every refusal is the same `None`.
pub trait ResultStore: Send + Sync + 'static {
    /// Stores a record and returns its link URI.
    fn put(&self, record: StoredRecord) -> StoreFuture<'_, String>;
    /// The record behind `uri` for `principal` at `now`, or `None`.
    fn get<'a>(
        &'a self,
        uri: &'a str,
        principal: &'a str,
        now: Timestamp,
    ) -> StoreFuture<'a, Option<StoredRecord>>;
}

/// The in-process store: records live in memory until they expire or the process ends. Ids are
/// 128 unpredictable bits, so a link cannot be guessed from another.
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<HashMap<String, StoredRecord>>,
    keys: RandomState,
    counter: AtomicU64,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn fresh_id(&self) -> String {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let high = self.keys.hash_one((n, 0u8));
        let low = self.keys.hash_one((n, 1u8));
        format!("{high:016x}{low:016x}")
    }
}

/// The id in a `toolwire://results/<id>?…` URI.
fn link_id(uri: &str) -> Option<&str> {
    let rest = uri.strip_prefix(toolwire_core::link::STORED_RESULT_PREFIX)?;
    let id = rest.split(['?', '#']).next()?;
    (!id.is_empty()).then_some(id)
}

impl ResultStore for MemoryStore {
    fn put(&self, record: StoredRecord) -> StoreFuture<'_, String> {
        let id = self.fresh_id();
        let uri = format!(
            "{}{id}?exp={}",
            toolwire_core::link::STORED_RESULT_PREFIX,
            record.expires_at.unix_seconds()
        );
        let outcome = match self.records.lock() {
            Ok(mut records) => {
                // Sweeping on every put keeps memory bounded by what is still readable.
                let now = Timestamp::from_datetime(chrono::Utc::now());
                records.retain(|_, r| r.expires_at > now);
                records.insert(id, record);
                Ok(uri)
            }
            Err(_) => Err(StoreError::Backend("the memory store lock is poisoned".into())),
        };
        Box::pin(async move { outcome })
    }

    fn get<'a>(
        &'a self,
        uri: &'a str,
        principal: &'a str,
        now: Timestamp,
    ) -> StoreFuture<'a, Option<StoredRecord>> {
        let found = match (link_id(uri), self.records.lock()) {
            (Some(id), Ok(records)) => Ok(records
                .get(id)
                .filter(|r| r.principal == principal && r.expires_at > now)
                .cloned()),
            (None, _) => Ok(None),
            (_, Err(_)) => Err(StoreError::Backend("the memory store lock is poisoned".into())),
        };
        Box::pin(async move { found })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn at(seconds: i64) -> Timestamp {
        match Timestamp::from_unix_seconds(seconds) {
            Some(t) => t,
            None => panic!("bad time"),
        }
    }

    #[tokio::test]
    async fn records_answer_only_their_principal_and_only_until_they_expire() {
        let store = MemoryStore::new();
        let record = StoredRecord {
            result: ToolResult::success(json!(1)),
            principal: "ann".into(),
            expires_at: at(2_000),
        };
        let Ok(uri) = store.put(record).await else { panic!("put failed") };
        assert!(uri.starts_with("toolwire://results/"));
        assert!(matches!(store.get(&uri, "ann", at(1_000)).await, Ok(Some(_))));
        assert!(matches!(store.get(&uri, "bob", at(1_000)).await, Ok(None)));
        assert!(matches!(store.get(&uri, "ann", at(2_000)).await, Ok(None)));
        assert!(matches!(store.get("toolwire://results/nope", "ann", at(1)).await, Ok(None)));
    }
}

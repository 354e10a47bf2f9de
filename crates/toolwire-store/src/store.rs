//! The `ResultStore` trait every backend implements, the clock stores read expiry against, and
//! the errors stores report.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::quota::QuotaScope;
use crate::record::{Record, RecordId};

/// A boxed future returned by [`ResultStore`] methods (boxed so that `dyn ResultStore` works:
/// the gateway picks its backend from configuration at run time).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Where results too large to send inline are kept until their links expire.
///
/// Every backend keeps the same promises, checked by one shared test suite: `get` never returns
/// an expired record, whatever the backend; `put` and `replace` refuse a record that has
/// already expired; `replace` never brings back a record that is gone and never writes over a
/// record another writer changed; `delete` of a missing id is not an error.
pub trait ResultStore: Send + Sync {
    /// Stores a record under a new random id.
    fn put(&self, record: Record) -> StoreFuture<'_, RecordId>;

    /// The record with this id, unless it is missing or expired.
    fn get(&self, id: RecordId) -> StoreFuture<'_, Option<Record>>;

    /// Stores `record` under `id` in place of `current`, the live record there as the caller
    /// read it (a task's state moving on, DESIGN §17), in one step: false, storing nothing, when
    /// there is none (missing or expired: an expired record never comes back) or it is no longer
    /// `current` — another writer (a cancel on another node, say) came first, and the caller
    /// reads it again. The quota counts the new size instead of the old.
    fn replace<'a>(
        &'a self,
        id: RecordId,
        current: &'a Record,
        record: Record,
    ) -> StoreFuture<'a, bool>;

    /// Removes a record; true when there was one.
    fn delete(&self, id: RecordId) -> StoreFuture<'_, bool>;

    /// Removes expired records now; returns how many were removed. Stores with native expiry
    /// (Redis) have nothing to do and return 0.
    fn sweep(&self) -> StoreFuture<'_, usize>;

    /// A short name of the backend for logs: `memory`, `redb` or `redis`.
    fn backend(&self) -> &'static str;
}

/// Where a store reads the current time when it decides whether a record has expired. Every
/// store uses [`SystemClock`] unless given another with its `with_clock` (tests move time on
/// instead of waiting for it).
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// The current time.
    fn now(&self) -> DateTime<Utc>;
}

/// The operating system's clock, the default of every store.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// The default clock of a store.
pub(crate) fn system_clock() -> Arc<dyn Clock> {
    Arc::new(SystemClock)
}

/// Why a store could not do what was asked.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another process (usually a running `toolwire serve`) holds the redb file.
    #[error("data directory in use: {}", dir.display())]
    DataDirInUse {
        /// The data directory.
        dir: PathBuf,
    },
    /// The data directory could not be created.
    #[error("cannot create data directory {}: {source}", dir.display())]
    CreateDir {
        /// The data directory.
        dir: PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// redb failed.
    #[error("result store {}: {source}", path.display())]
    Redb {
        /// The database file.
        path: PathBuf,
        /// What redb said.
        source: Box<redb::Error>,
    },
    /// The Redis URL is not one the client accepts.
    #[error("invalid Redis URL `{url}`: {source}")]
    RedisUrl {
        /// The URL, with any password hidden.
        url: String,
        /// What the client said.
        source: redis::RedisError,
    },
    /// Redis could not be reached or refused a command.
    #[error("Redis store at {url} failed: {source}")]
    Redis {
        /// The URL, with any password hidden.
        url: String,
        /// What the client said.
        source: redis::RedisError,
    },
    /// The record expired before it could be stored.
    #[error("record already expired at {expires}")]
    AlreadyExpired {
        /// Its expiry.
        expires: String,
    },
    /// A stored value is not a record (written by something else, or damaged).
    #[error("stored record {id} is corrupt")]
    Corrupt {
        /// The record id.
        id: RecordId,
    },
    /// The operating system's random number generator failed.
    #[error("cannot generate a record id: {0}")]
    Random(getrandom::Error),
    /// A blocking store task did not finish (it panicked or the runtime shut down).
    #[error("result store task failed: {0}")]
    Task(String),
    /// Storing the record would take the store past a quota (DESIGN §12).
    #[error(
        "{scope} store quota of {limit} bytes would be exceeded: {used} bytes in use, the record has {size}"
    )]
    QuotaExceeded {
        /// Which bound.
        scope: QuotaScope,
        /// The record's size in bytes.
        size: u64,
        /// Bytes in use under that bound.
        used: u64,
        /// The bound.
        limit: u64,
    },
}

impl StoreError {
    /// What kind of failure this is, for metrics and logs: `quota` for a quota refusal,
    /// `unavailable` when the backend (file system, redb, Redis, the runtime) failed, `corrupt`
    /// for a damaged record, `expired` for a record that expired before it was stored, `config`
    /// for a store that cannot be opened as configured.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::QuotaExceeded { .. } => "quota",
            Self::Corrupt { .. } => "corrupt",
            Self::AlreadyExpired { .. } => "expired",
            Self::DataDirInUse { .. } | Self::RedisUrl { .. } => "config",
            Self::CreateDir { .. }
            | Self::Redb { .. }
            | Self::Redis { .. }
            | Self::Random(_)
            | Self::Task(_) => "unavailable",
        }
    }

    /// Whether this is a quota refusal.
    pub fn is_quota(&self) -> bool {
        matches!(self, Self::QuotaExceeded { .. })
    }
}

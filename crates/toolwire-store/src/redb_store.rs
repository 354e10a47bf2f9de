//! The embedded default store: one redb file, `results.redb`, in the data directory. It survives
//! restarts; redb's API is synchronous, so every call runs on tokio's blocking pool; redb has no
//! expiry of its own, so an expiry index table is swept in batches by a background task.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, Weak};
use std::time::Duration;

use redb::{
    Database, DatabaseError, ReadableDatabase, ReadableTable, StorageBackend, TableDefinition,
};
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

use crate::quota::{Quota, Usage};
use crate::record::{Record, RecordId};
use crate::store::{Clock, ResultStore, StoreError, StoreFuture, system_clock};

/// The file name of the database inside the data directory.
pub const RESULTS_FILE: &str = "results.redb";

/// Record id → the record's byte form.
const RESULTS: TableDefinition<u128, &[u8]> = TableDefinition::new("results");
/// (expiry in Unix milliseconds, record id) → nothing: the sweep reads it in expiry order.
const EXPIRY: TableDefinition<(i64, u128), ()> = TableDefinition::new("expiry");

/// How the redb store sweeps.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RedbOptions {
    /// Time between background sweeps; `None` runs none (call [`ResultStore::sweep`] yourself).
    pub sweep_interval: Option<Duration>,
    /// Records removed per write transaction, so one sweep never holds the writer for long.
    pub sweep_batch: usize,
    /// Bytes of redb's page cache. redb's own default (1 GiB) lets a run of large offloads
    /// grow the process by that much; this bound keeps memory flat (DESIGN §12).
    pub cache_size: usize,
    /// Bytes the store may hold, in all and per principal.
    pub quota: Quota,
}

/// The default page cache: 32 MiB.
const DEFAULT_CACHE_SIZE: usize = 32 * 1024 * 1024;

impl Default for RedbOptions {
    fn default() -> Self {
        Self {
            sweep_interval: Some(Duration::from_secs(60)),
            sweep_batch: 512,
            cache_size: DEFAULT_CACHE_SIZE,
            quota: Quota::default(),
        }
    }
}

impl RedbOptions {
    /// With a background sweep every `interval`, or none.
    pub fn sweep_interval(mut self, interval: Option<Duration>) -> Self {
        self.sweep_interval = interval;
        self
    }

    /// With `quota`.
    pub fn quota(mut self, quota: Quota) -> Self {
        self.quota = quota;
        self
    }

    /// With `batch` records removed per write transaction (at least 1).
    pub fn sweep_batch(mut self, batch: usize) -> Self {
        self.sweep_batch = batch.max(1);
        self
    }

    /// With a page cache of `bytes`.
    pub fn cache_size(mut self, bytes: usize) -> Self {
        self.cache_size = bytes;
        self
    }
}

/// The redb store. Dropping it stops its sweeper and, once running calls finish, closes the
/// file, so the next process (or the next handle) can open it.
#[derive(Debug)]
pub struct RedbStore {
    inner: Arc<Inner>,
    /// The runtime whose blocking pool runs redb's calls.
    runtime: Handle,
    sweeper: Option<JoinHandle<()>>,
}

/// Opens the database file: redb's own file backend, or one given to
/// [`RedbStore::open_with_backend`].
type Opener = Arc<dyn Fn(&Path) -> Result<Database, DatabaseError> + Send + Sync>;

struct Inner {
    /// `None` only while it is being reopened.
    db: RwLock<Option<Database>>,
    opener: Opener,
    /// Set by an I/O error: redb refuses every later write transaction after one, so the next
    /// call drops the database and opens the file again (redb recovers the last commit).
    broken: AtomicBool,
    reopens: AtomicU64,
    path: PathBuf,
    batch: usize,
    quota: Quota,
    /// What the live records take, rebuilt from the table at open.
    usage: Mutex<Usage>,
    /// Background sweeps that failed (each is logged).
    sweep_errors: AtomicU64,
    /// What expiry is read against: the system clock, or the one [`RedbStore::with_clock`] sets
    /// right after opening (the sweeper already shares `Inner` then, hence the lock).
    clock: RwLock<Arc<dyn Clock>>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner").field("path", &self.path).finish_non_exhaustive()
    }
}

impl RedbStore {
    /// Opens (or creates) `results.redb` in `dir`, creating the directory when missing, with
    /// the default background sweep. A directory whose file another process holds is refused
    /// with [`StoreError::DataDirInUse`].
    pub async fn open(dir: impl Into<PathBuf>) -> Result<Self, StoreError> {
        Self::open_with(dir, RedbOptions::default()).await
    }

    /// Opens with explicit options. Must be called inside a tokio runtime: its blocking pool
    /// runs every redb call, and the background sweep is one of its tasks.
    pub async fn open_with(
        dir: impl Into<PathBuf>,
        options: RedbOptions,
    ) -> Result<Self, StoreError> {
        let cache = options.cache_size;
        let opener = move |path: &Path| Database::builder().set_cache_size(cache).create(path);
        Self::open_on(dir.into(), options, Arc::new(opener)).await
    }

    /// Opens with redb storage made by `backend` from the opened `results.redb` file (each time
    /// the file is opened, reopens included): for instrumenting or fault-injecting storage. The
    /// backend takes over locking; one that does not lock loses the "data directory in use"
    /// check.
    pub async fn open_with_backend<B, F>(
        dir: impl Into<PathBuf>,
        options: RedbOptions,
        backend: F,
    ) -> Result<Self, StoreError>
    where
        B: StorageBackend,
        F: Fn(std::fs::File) -> B + Send + Sync + 'static,
    {
        let cache = options.cache_size;
        let opener = move |path: &Path| {
            let file = std::fs::OpenOptions::new().read(true).write(true).open(path)?;
            Database::builder().set_cache_size(cache).create_with_backend(backend(file))
        };
        Self::open_on(dir.into(), options, Arc::new(opener)).await
    }

    async fn open_on(
        dir: PathBuf,
        options: RedbOptions,
        opener: Opener,
    ) -> Result<Self, StoreError> {
        let runtime = Handle::try_current().map_err(|err| StoreError::Task(err.to_string()))?;
        let inner = runtime
            .spawn_blocking(move || open_blocking(dir, options, opener))
            .await
            .map_err(|err| StoreError::Task(err.to_string()))??;
        let inner = Arc::new(inner);
        let sweeper = options.sweep_interval.map(|every| {
            let every = every.max(Duration::from_millis(10));
            runtime.spawn(sweep_forever(Arc::downgrade(&inner), every))
        });
        Ok(Self { inner, runtime, sweeper })
    }

    /// The same store reading expiry against `clock` instead of the system clock (reads, the
    /// refusal of expired records, and every sweep, the background one included).
    pub fn with_clock(self, clock: Arc<dyn Clock>) -> Self {
        *self.inner.clock.write().unwrap_or_else(PoisonError::into_inner) = clock;
        self
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// How many times the file was reopened after an I/O error.
    pub fn reopens(&self) -> u64 {
        self.inner.reopens.load(Ordering::Relaxed)
    }

    /// How many background sweeps have failed since the store was opened (each one is also
    /// logged; the next sweep tries again).
    pub fn sweep_errors(&self) -> u64 {
        self.inner.sweep_errors.load(Ordering::Relaxed)
    }

    async fn blocking<T, F>(&self, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Inner) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        self.runtime
            .spawn_blocking(move || work(&inner))
            .await
            .map_err(|err| StoreError::Task(err.to_string()))?
    }
}

impl Drop for RedbStore {
    fn drop(&mut self) {
        if let Some(sweeper) = self.sweeper.take() {
            sweeper.abort();
        }
    }
}

fn open_blocking(dir: PathBuf, options: RedbOptions, opener: Opener) -> Result<Inner, StoreError> {
    crate::private_dir::create(&dir)
        .map_err(|source| StoreError::CreateDir { dir: dir.clone(), source })?;
    let path = dir.join(RESULTS_FILE);
    crate::private_dir::restrict_file(&path)
        .map_err(|source| StoreError::CreateDir { dir: dir.clone(), source })?;
    let db = match opener(&path) {
        Ok(db) => db,
        Err(DatabaseError::DatabaseAlreadyOpen) => return Err(StoreError::DataDirInUse { dir }),
        Err(err) => return Err(redb_error(&path, err)),
    };
    let inner = Inner {
        db: RwLock::new(Some(db)),
        opener,
        broken: AtomicBool::new(false),
        reopens: AtomicU64::new(0),
        path,
        batch: options.sweep_batch.max(1),
        quota: options.quota,
        usage: Mutex::default(),
        sweep_errors: AtomicU64::new(0),
        clock: RwLock::new(system_clock()),
    };
    inner.with_db(|db| {
        // Both tables exist from the start, so readers never meet a missing table.
        let txn = db.begin_write().map_err(|err| inner.error(err))?;
        txn.open_table(RESULTS).map_err(|err| inner.error(err))?;
        txn.open_table(EXPIRY).map_err(|err| inner.error(err))?;
        txn.commit().map_err(|err| inner.error(err))?;
        inner.count_usage(db)
    })?;
    Ok(inner)
}

fn redb_error(path: &Path, err: impl Into<redb::Error>) -> StoreError {
    StoreError::Redb { path: path.to_owned(), source: Box::new(err.into()) }
}

fn unix_millis(record: &Record) -> i64 {
    record.expires.datetime().timestamp_millis()
}

/// Whether redb failed because its storage did: then only a new `Database` works again.
fn is_io(err: &StoreError) -> bool {
    match err {
        StoreError::Redb { source, .. } => {
            matches!(**source, redb::Error::Io(_) | redb::Error::PreviousIo)
        }
        _ => false,
    }
}

impl Inner {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.read().unwrap_or_else(PoisonError::into_inner).now()
    }

    fn error(&self, err: impl Into<redb::Error>) -> StoreError {
        redb_error(&self.path, err)
    }

    /// Runs `work` on the database, first reopening it when an I/O error broke it; an I/O
    /// error now marks it for the next call.
    fn with_db<T>(
        &self,
        work: impl FnOnce(&Database) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if self.broken.load(Ordering::Acquire) {
            self.reopen()?;
        }
        let guard = self.db.read().unwrap_or_else(PoisonError::into_inner);
        let Some(db) = guard.as_ref() else {
            return Err(self.error(redb::Error::DatabaseClosed));
        };
        let outcome = work(db);
        if let Err(err) = &outcome
            && is_io(err)
        {
            self.broken.store(true, Ordering::Release);
        }
        outcome
    }

    fn reopen(&self) -> Result<(), StoreError> {
        let mut guard = self.db.write().unwrap_or_else(PoisonError::into_inner);
        if !self.broken.load(Ordering::Acquire) {
            return Ok(());
        }
        // The old handle holds the file lock: close it before opening again.
        *guard = None;
        let db = (self.opener)(&self.path).map_err(|err| self.error(err))?;
        self.count_usage(&db)?;
        *guard = Some(db);
        self.broken.store(false, Ordering::Release);
        let count = self.reopens.fetch_add(1, Ordering::Relaxed) + 1;
        tracing::warn!(
            store = "redb",
            reopens = count,
            "reopened {} after an I/O error",
            self.path.display()
        );
        Ok(())
    }

    fn usage(&self) -> MutexGuard<'_, Usage> {
        // Every change is one call on the counters, so a panic elsewhere leaves them whole.
        self.usage.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts what the records in the file take (after a restart the quota holds as before).
    fn count_usage(&self, db: &Database) -> Result<(), StoreError> {
        let txn = db.begin_read().map_err(|err| self.error(err))?;
        let results = txn.open_table(RESULTS).map_err(|err| self.error(err))?;
        let mut usage = Usage::default();
        for entry in results.iter().map_err(|err| self.error(err))? {
            let (_, bytes) = entry.map_err(|err| self.error(err))?;
            if let Some(record) = Record::decode(bytes.value()) {
                usage.add(&record.principal, record.size());
            }
        }
        *self.usage() = usage;
        Ok(())
    }

    /// Counts the record against the quota, sweeping expired records first when it would not
    /// fit (they count until swept).
    fn admit(&self, db: &Database, record: &Record) -> Result<(), StoreError> {
        let size = record.size();
        if self.usage().admit(&self.quota, &record.principal, size).is_ok() {
            return Ok(());
        }
        self.sweep(db)?;
        self.usage().admit(&self.quota, &record.principal, size)
    }

    fn put(&self, db: &Database, record: Record) -> Result<RecordId, StoreError> {
        self.admit(db, &record)?;
        let (principal, size) = (record.principal.clone(), record.size());
        let stored = self.write(db, record);
        if stored.is_err() {
            self.usage().release(&principal, size);
        }
        stored
    }

    fn write(&self, db: &Database, record: Record) -> Result<RecordId, StoreError> {
        let id = RecordId::generate().map_err(StoreError::Random)?;
        let expires = unix_millis(&record);
        // One write transaction at a time: the record is encoded once it is this one's turn, and
        // the encoded form replaces it, so a waiting put holds its bytes once. (`insert_reserve`
        // would save this copy but allocates a buffer of the value's size itself.)
        let txn = db.begin_write().map_err(|err| self.error(err))?;
        let encoded = record.encode();
        drop(record);
        {
            let mut results = txn.open_table(RESULTS).map_err(|err| self.error(err))?;
            results.insert(id.as_u128(), encoded.as_slice()).map_err(|err| self.error(err))?;
            drop(encoded);
            let mut expiry = txn.open_table(EXPIRY).map_err(|err| self.error(err))?;
            expiry.insert((expires, id.as_u128()), ()).map_err(|err| self.error(err))?;
        }
        txn.commit().map_err(|err| self.error(err))?;
        Ok(id)
    }

    fn get(&self, db: &Database, id: RecordId) -> Result<Option<Record>, StoreError> {
        let txn = db.begin_read().map_err(|err| self.error(err))?;
        let results = txn.open_table(RESULTS).map_err(|err| self.error(err))?;
        let Some(bytes) = results.get(id.as_u128()).map_err(|err| self.error(err))? else {
            return Ok(None);
        };
        let record = Record::decode(bytes.value()).ok_or(StoreError::Corrupt { id })?;
        // Until the sweep comes by, an expired record is still in the file: never return it.
        Ok((!record.is_expired_at(self.now())).then_some(record))
    }

    fn delete(&self, db: &Database, id: RecordId) -> Result<bool, StoreError> {
        let txn = db.begin_write().map_err(|err| self.error(err))?;
        let removed = {
            let mut results = txn.open_table(RESULTS).map_err(|err| self.error(err))?;
            let removed = results.remove(id.as_u128()).map_err(|err| self.error(err))?;
            match removed {
                Some(bytes) => {
                    let record = Record::decode(bytes.value());
                    if let Some(record) = &record {
                        let mut expiry = txn.open_table(EXPIRY).map_err(|err| self.error(err))?;
                        expiry
                            .remove((unix_millis(record), id.as_u128()))
                            .map_err(|err| self.error(err))?;
                    }
                    Some(record)
                }
                None => None,
            }
        };
        txn.commit().map_err(|err| self.error(err))?;
        if let Some(Some(record)) = &removed {
            self.usage().release(&record.principal, record.size());
        }
        Ok(removed.is_some())
    }

    /// Removes every record expired by now, `batch` per write transaction.
    fn sweep(&self, db: &Database) -> Result<usize, StoreError> {
        let now = self.now().timestamp_millis();
        let mut total = 0;
        loop {
            let txn = db.begin_write().map_err(|err| self.error(err))?;
            let mut released = Vec::new();
            let removed = {
                let mut expiry = txn.open_table(EXPIRY).map_err(|err| self.error(err))?;
                let mut results = txn.open_table(RESULTS).map_err(|err| self.error(err))?;
                let due = expiry
                    .range((i64::MIN, 0u128)..=(now, u128::MAX))
                    .map_err(|err| self.error(err))?
                    .take(self.batch)
                    .map(|entry| entry.map(|(key, _)| key.value()))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|err| self.error(err))?;
                for key in &due {
                    expiry.remove(key).map_err(|err| self.error(err))?;
                    let gone = results.remove(key.1).map_err(|err| self.error(err))?;
                    if let Some(record) = gone.and_then(|bytes| Record::decode(bytes.value())) {
                        let size = record.size();
                        released.push((record.principal, size));
                    }
                }
                due.len()
            };
            txn.commit().map_err(|err| self.error(err))?;
            let mut usage = self.usage();
            for (principal, size) in &released {
                usage.release(principal, *size);
            }
            drop(usage);
            total += removed;
            if removed < self.batch {
                return Ok(total);
            }
        }
    }
}

async fn sweep_forever(inner: Weak<Inner>, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    // The first tick fires at once; the store was just opened, so skip it.
    ticks.tick().await;
    loop {
        ticks.tick().await;
        let Some(inner) = inner.upgrade() else { return };
        // A failed sweep is retried at the next tick (reads never depend on it), but it is
        // logged and counted: a store that cannot sweep fills up.
        let outcome = {
            let inner = Arc::clone(&inner);
            tokio::task::spawn_blocking(move || inner.with_db(|db| inner.sweep(db))).await
        };
        let failure = match outcome {
            Ok(Ok(_)) => continue,
            Ok(Err(err)) => err.to_string(),
            Err(err) => format!("the sweep task failed: {err}"),
        };
        let count = inner.sweep_errors.fetch_add(1, Ordering::Relaxed) + 1;
        tracing::warn!(
            store = "redb",
            sweep_errors = count,
            "sweep of {} failed: {failure}",
            inner.path.display()
        );
    }
}

impl ResultStore for RedbStore {
    fn put(&self, record: Record) -> StoreFuture<'_, RecordId> {
        Box::pin(async move {
            if record.is_expired_at(self.inner.now()) {
                return Err(StoreError::AlreadyExpired { expires: record.expires.to_string() });
            }
            self.blocking(move |inner| inner.with_db(|db| inner.put(db, record))).await
        })
    }

    fn get(&self, id: RecordId) -> StoreFuture<'_, Option<Record>> {
        Box::pin(self.blocking(move |inner| inner.with_db(|db| inner.get(db, id))))
    }

    fn delete(&self, id: RecordId) -> StoreFuture<'_, bool> {
        Box::pin(self.blocking(move |inner| inner.with_db(|db| inner.delete(db, id))))
    }

    fn sweep(&self) -> StoreFuture<'_, usize> {
        Box::pin(self.blocking(|inner| inner.with_db(|db| inner.sweep(db))))
    }

    fn backend(&self) -> &'static str {
        "redb"
    }
}

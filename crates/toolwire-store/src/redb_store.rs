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
use toolwire_core::Timestamp;

use crate::quota::{Quota, Usage};
use crate::record::{Head, Record, RecordId};
use crate::store::{Clock, ResultStore, StoreError, StoreFuture, system_clock};

/// The file name of the database inside the data directory.
pub const RESULTS_FILE: &str = "results.redb";

/// Record id → the record without its bytes ([`Head`]).
const HEADS: TableDefinition<u128, &[u8]> = TableDefinition::new("heads");
/// (record id, chunk index) → the record's bytes, in chunks of [`CHUNK`]. redb keeps a value in
/// its B-tree leaf, so a record in one piece would make a leaf of its size (rounded up to a
/// power of two), read and rewritten whole by every later insert that lands beside it; chunks
/// keep every page at most about a MiB, and are written straight from the record's bytes.
const CHUNKS: TableDefinition<(u128, u32), &[u8]> = TableDefinition::new("chunks");
/// Record id → the record's whole byte form, as toolwire stored records before the chunked
/// layout: still read, deleted and swept, never written.
const RESULTS: TableDefinition<u128, &[u8]> = TableDefinition::new("results");
/// (expiry in Unix milliseconds, record id) → nothing: the sweep reads it in expiry order.
const EXPIRY: TableDefinition<(i64, u128), ()> = TableDefinition::new("expiry");

/// The bytes of one chunk: a MiB less room for the leaf's own header, so that a chunk and its
/// key fill one 1 MiB page.
const CHUNK: usize = 1024 * 1024 - 1024;

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
        // Every table exists from the start, so readers never meet a missing table.
        let txn = db.begin_write().map_err(|err| inner.error(err))?;
        txn.open_table(HEADS).map_err(|err| inner.error(err))?;
        txn.open_table(CHUNKS).map_err(|err| inner.error(err))?;
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

fn unix_millis(expires: Timestamp) -> i64 {
    expires.datetime().timestamp_millis()
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
        let mut usage = Usage::default();
        let heads = txn.open_table(HEADS).map_err(|err| self.error(err))?;
        for entry in heads.iter().map_err(|err| self.error(err))? {
            let (_, bytes) = entry.map_err(|err| self.error(err))?;
            if let Some(head) = Head::decode(bytes.value()) {
                usage.add(&head.principal, head.size());
            }
        }
        let results = txn.open_table(RESULTS).map_err(|err| self.error(err))?;
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
        let txn = db.begin_write().map_err(|err| self.error(err))?;
        self.insert(&txn, id.as_u128(), record)?;
        txn.commit().map_err(|err| self.error(err))?;
        Ok(id)
    }

    /// Writes `record` under `key` inside `txn`: its head, its chunks and its expiry entry.
    fn insert(
        &self,
        txn: &redb::WriteTransaction,
        key: u128,
        record: Record,
    ) -> Result<(), StoreError> {
        let expires = unix_millis(record.expires);
        let mut heads = txn.open_table(HEADS).map_err(|err| self.error(err))?;
        heads.insert(key, record.encode_head().as_slice()).map_err(|err| self.error(err))?;
        let mut chunks = txn.open_table(CHUNKS).map_err(|err| self.error(err))?;
        for (index, chunk) in (0u32..).zip(record.bytes.chunks(CHUNK)) {
            chunks.insert((key, index), chunk).map_err(|err| self.error(err))?;
        }
        // redb holds its own copy now: the record's bytes go before the commit writes it.
        drop(record);
        let mut expiry = txn.open_table(EXPIRY).map_err(|err| self.error(err))?;
        expiry.insert((expires, key), ()).map_err(|err| self.error(err))?;
        Ok(())
    }

    /// Puts `record` in the place of the live record `id` in one transaction, counting its size
    /// in place of the old one's; false (nothing written) when there is none or it is no longer
    /// `current` (redb's one write transaction at a time makes the comparison and the write one
    /// step).
    fn replace(
        &self,
        db: &Database,
        id: RecordId,
        current: &Record,
        record: Record,
    ) -> Result<bool, StoreError> {
        let key = id.as_u128();
        let (principal, size) = (record.principal.clone(), record.size());
        let txn = db.begin_write().map_err(|err| self.error(err))?;
        if !self.is_current(&txn, id, current)? {
            txn.abort().map_err(|err| self.error(err))?;
            return Ok(false);
        }
        let old = match self.remove(&txn, key)? {
            Some(Some(head)) if !head.is_expired_at(self.now()) => head,
            // Gone, expired or unreadable: left for the sweep as it was.
            _ => {
                txn.abort().map_err(|err| self.error(err))?;
                return Ok(false);
            }
        };
        {
            let mut usage = self.usage();
            usage.release(&old.principal, old.size());
            if let Err(refused) = usage.admit(&self.quota, &principal, size) {
                usage.add(&old.principal, old.size());
                drop(usage);
                txn.abort().map_err(|err| self.error(err))?;
                return Err(refused);
            }
        }
        let written = self
            .insert(&txn, key, record)
            .and_then(|()| txn.commit().map_err(|err| self.error(err)));
        if written.is_err() {
            let mut usage = self.usage();
            usage.release(&principal, size);
            usage.add(&old.principal, old.size());
        }
        written.map(|()| true)
    }

    fn get(&self, db: &Database, id: RecordId) -> Result<Option<Record>, StoreError> {
        let txn = db.begin_read().map_err(|err| self.error(err))?;
        let heads = txn.open_table(HEADS).map_err(|err| self.error(err))?;
        let chunks = txn.open_table(CHUNKS).map_err(|err| self.error(err))?;
        let results = txn.open_table(RESULTS).map_err(|err| self.error(err))?;
        self.read_live(&heads, &chunks, &results, id)
    }

    /// The record `id` as the tables of a read or a write transaction hold it; `None` when it
    /// is missing or expired (until the sweep comes by, an expired record is still in the file:
    /// it is never returned).
    fn read_live(
        &self,
        heads: &impl ReadableTable<u128, &'static [u8]>,
        chunks: &impl ReadableTable<(u128, u32), &'static [u8]>,
        results: &impl ReadableTable<u128, &'static [u8]>,
        id: RecordId,
    ) -> Result<Option<Record>, StoreError> {
        let key = id.as_u128();
        let record = match heads.get(key).map_err(|err| self.error(err))? {
            Some(head) => {
                let head = Head::decode(head.value()).ok_or(StoreError::Corrupt { id })?;
                if head.is_expired_at(self.now()) {
                    return Ok(None);
                }
                let len = usize::try_from(head.len).map_err(|_| StoreError::Corrupt { id })?;
                let mut bytes = Vec::with_capacity(len);
                for entry in
                    chunks.range((key, 0)..=(key, u32::MAX)).map_err(|err| self.error(err))?
                {
                    let (_, chunk) = entry.map_err(|err| self.error(err))?;
                    bytes.extend_from_slice(chunk.value());
                }
                if bytes.len() != len {
                    return Err(StoreError::Corrupt { id });
                }
                head.with_bytes(bytes)
            }
            None => {
                let Some(bytes) = results.get(key).map_err(|err| self.error(err))? else {
                    return Ok(None);
                };
                Record::decode(bytes.value()).ok_or(StoreError::Corrupt { id })?
            }
        };
        Ok((!record.is_expired_at(self.now())).then_some(record))
    }

    /// Whether the live record `id` in `txn` is `current`.
    fn is_current(
        &self,
        txn: &redb::WriteTransaction,
        id: RecordId,
        current: &Record,
    ) -> Result<bool, StoreError> {
        let heads = txn.open_table(HEADS).map_err(|err| self.error(err))?;
        let chunks = txn.open_table(CHUNKS).map_err(|err| self.error(err))?;
        let results = txn.open_table(RESULTS).map_err(|err| self.error(err))?;
        Ok(self.read_live(&heads, &chunks, &results, id)?.is_some_and(|live| live == *current))
    }

    fn delete(&self, db: &Database, id: RecordId) -> Result<bool, StoreError> {
        let txn = db.begin_write().map_err(|err| self.error(err))?;
        let removed = self.remove(&txn, id.as_u128())?;
        txn.commit().map_err(|err| self.error(err))?;
        if let Some(Some(head)) = &removed {
            self.usage().release(&head.principal, head.size());
        }
        Ok(removed.is_some())
    }

    /// Removes record `key` (in either layout) with its expiry entry inside `txn`: `None` when
    /// there was none, `Some(None)` when what was there could not be read.
    fn remove(
        &self,
        txn: &redb::WriteTransaction,
        key: u128,
    ) -> Result<Option<Option<Head>>, StoreError> {
        let mut heads = txn.open_table(HEADS).map_err(|err| self.error(err))?;
        let head = match heads.remove(key).map_err(|err| self.error(err))? {
            Some(bytes) => {
                let head = Head::decode(bytes.value());
                drop(bytes);
                // Every chunk under the key goes, whatever the head says (or if it is unreadable).
                let mut chunks = txn.open_table(CHUNKS).map_err(|err| self.error(err))?;
                let every = chunks
                    .extract_from_if((key, 0)..=(key, u32::MAX), |_, _| true)
                    .map_err(|err| self.error(err))?;
                for entry in every {
                    entry.map_err(|err| self.error(err))?;
                }
                Some(head)
            }
            None => {
                let mut results = txn.open_table(RESULTS).map_err(|err| self.error(err))?;
                let gone = results.remove(key).map_err(|err| self.error(err))?;
                gone.map(|bytes| Record::decode(bytes.value()).map(Head::of))
            }
        };
        if let Some(Some(head)) = &head {
            let mut expiry = txn.open_table(EXPIRY).map_err(|err| self.error(err))?;
            expiry.remove((unix_millis(head.expires), key)).map_err(|err| self.error(err))?;
        }
        Ok(head)
    }

    /// Removes every record expired by now, `batch` per write transaction.
    fn sweep(&self, db: &Database) -> Result<usize, StoreError> {
        let now = self.now().timestamp_millis();
        let mut total = 0;
        loop {
            let txn = db.begin_write().map_err(|err| self.error(err))?;
            let mut released = Vec::new();
            let due = {
                let expiry = txn.open_table(EXPIRY).map_err(|err| self.error(err))?;
                expiry
                    .range((i64::MIN, 0u128)..=(now, u128::MAX))
                    .map_err(|err| self.error(err))?
                    .take(self.batch)
                    .map(|entry| entry.map(|(key, _)| key.value()))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|err| self.error(err))?
            };
            for key in &due {
                if let Some(Some(head)) = self.remove(&txn, key.1)? {
                    let size = head.size();
                    released.push((head.principal, size));
                }
                // Also when the record was gone or unreadable: the entry must not come back.
                let mut expiry = txn.open_table(EXPIRY).map_err(|err| self.error(err))?;
                expiry.remove(key).map_err(|err| self.error(err))?;
            }
            let removed = due.len();
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

    fn replace<'a>(
        &'a self,
        id: RecordId,
        current: &'a Record,
        record: Record,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            if record.is_expired_at(self.inner.now()) {
                return Err(StoreError::AlreadyExpired { expires: record.expires.to_string() });
            }
            let current = current.clone();
            self.blocking(move |inner| inner.with_db(|db| inner.replace(db, id, &current, record)))
                .await
        })
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// A record of `len` patterned bytes for `principal`, living an hour.
    fn record(len: usize, principal: &str) -> Record {
        let now = chrono::Utc::now();
        let at = |later| Timestamp::with_fraction_digits(now + chrono::Duration::seconds(later), 3);
        let bytes = (0..len).map(|i| (i % 251) as u8).collect::<Vec<u8>>();
        Record::new(bytes, "application/json", principal, at(0), at(3600))
    }

    async fn store(dir: &Path, quota: Quota) -> RedbStore {
        let options = RedbOptions::default().sweep_interval(None).quota(quota);
        RedbStore::open_with(dir, options).await.unwrap()
    }

    /// Runs `work` on the store's database.
    fn on_db<T>(store: &RedbStore, work: impl FnOnce(&Database) -> Result<T, redb::Error>) -> T {
        store.inner.with_db(|db| work(db).map_err(|e| store.inner.error(e))).unwrap()
    }

    /// Entries in the heads, chunks, whole-record and expiry tables.
    fn entries(store: &RedbStore) -> (u64, u64, u64, u64) {
        use redb::ReadableTableMetadata;
        on_db(store, |db| {
            let txn = db.begin_read()?;
            Ok((
                txn.open_table(HEADS)?.len()?,
                txn.open_table(CHUNKS)?.len()?,
                txn.open_table(RESULTS)?.len()?,
                txn.open_table(EXPIRY)?.len()?,
            ))
        })
    }

    #[tokio::test]
    async fn a_record_is_kept_as_a_head_and_chunks_and_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let large = record(2 * CHUNK + 5, "alice");
        let id = {
            let store = store(dir.path(), Quota::default()).await;
            let id = store.put(large.clone()).await.unwrap();
            let small = store.put(record(3, "alice")).await.unwrap();
            assert_eq!(entries(&store), (2, 4, 0, 2));
            assert_eq!(store.get(id).await.unwrap().as_ref(), Some(&large));
            assert!(store.delete(small).await.unwrap());
            id
        };
        let store = store(dir.path(), Quota::default()).await;
        assert_eq!(store.get(id).await.unwrap(), Some(large));
        assert!(store.delete(id).await.unwrap());
        assert_eq!(entries(&store), (0, 0, 0, 0));
        assert_eq!(store.get(id).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_missing_chunk_is_a_corrupt_record() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path(), Quota::default()).await;
        let id = store.put(record(CHUNK + 1, "alice")).await.unwrap();
        on_db(&store, |db| {
            let txn = db.begin_write()?;
            txn.open_table(CHUNKS)?.remove((id.as_u128(), 1))?;
            Ok(txn.commit()?)
        });
        assert!(matches!(store.get(id).await, Err(StoreError::Corrupt { .. })));
    }

    /// Records stored whole by earlier versions (the `results` table) are read, counted
    /// against the quota after a restart, deleted and swept like the others.
    #[tokio::test]
    async fn records_of_the_whole_record_layout_are_still_served() {
        let dir = tempfile::tempdir().unwrap();
        let old = record(1000, "alice");
        let expiring = {
            let mut r = record(10, "bob");
            r.expires = Timestamp::with_fraction_digits(
                r.created.datetime() + chrono::Duration::milliseconds(50),
                3,
            );
            r
        };
        let key = |id: u128| RecordId::parse(&format!("{id:032x}")).unwrap();
        {
            let store = store(dir.path(), Quota::default()).await;
            on_db(&store, |db| {
                let txn = db.begin_write()?;
                {
                    let mut results = txn.open_table(RESULTS)?;
                    let mut expiry = txn.open_table(EXPIRY)?;
                    for (id, r) in [(7u128, &old), (8u128, &expiring)] {
                        results.insert(id, r.encode().as_slice())?;
                        expiry.insert((unix_millis(r.expires), id), ())?;
                    }
                }
                Ok(txn.commit()?)
            });
        }
        // After a restart the old record counts: a quota of its size leaves no room.
        let store = store(dir.path(), Quota::new(u64::MAX, old.size())).await;
        assert_eq!(store.get(key(7)).await.unwrap().as_ref(), Some(&old));
        let refused = store.put(record(1, "alice")).await.unwrap_err();
        assert!(refused.is_quota(), "{refused}");
        std::thread::sleep(std::time::Duration::from_millis(60));
        assert_eq!(store.sweep().await.unwrap(), 1);
        assert_eq!(entries(&store), (0, 0, 1, 1));
        assert!(store.delete(key(7)).await.unwrap());
        assert_eq!(entries(&store), (0, 0, 0, 0));
        store.put(record(1, "alice")).await.unwrap();
    }
}

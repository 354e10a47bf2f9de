//! Choosing a store and its keys from configuration: the redb data directory (the embedded
//! default), a Redis URL shared by several nodes, or memory.

use std::path::PathBuf;
use std::sync::Arc;

use crate::keys::{KeyError, KeySet};
use crate::link::LinkSigner;
use crate::memory::MemoryStore;
use crate::redb_store::{RedbOptions, RedbStore};
use crate::redis_store::RedisStore;
use crate::store::{ResultStore, StoreError};

/// Which store to use.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreConfig {
    /// `results.redb` (and, unless keys are configured, `signing-keys.json`) in a data directory.
    Redb {
        /// The data directory.
        data_dir: PathBuf,
        /// Sweep settings.
        options: RedbOptions,
    },
    /// A Redis server every node shares; keys must be configured.
    Redis {
        /// `redis://…` or `rediss://…`.
        url: String,
        /// PEM CA certificates trusted for `rediss://` instead of the system roots.
        ca_pem: Option<Vec<u8>>,
    },
    /// Process memory (tests); keys default to a fresh random key.
    Memory,
}

impl StoreConfig {
    /// The embedded default in `data_dir`, with the default sweep.
    pub fn redb(data_dir: impl Into<PathBuf>) -> Self {
        Self::Redb { data_dir: data_dir.into(), options: RedbOptions::default() }
    }

    /// Redis at `url`.
    pub fn redis(url: impl Into<String>) -> Self {
        Self::Redis { url: url.into(), ca_pem: None }
    }

    /// Redis at `url`, its TLS certificate checked against the CA certificates in `ca_pem`
    /// (PEM) instead of the system roots.
    pub fn redis_with_ca(url: impl Into<String>, ca_pem: Vec<u8>) -> Self {
        Self::Redis { url: url.into(), ca_pem: Some(ca_pem) }
    }

    /// The keys for this store: `configured` when given, else `TOOLWIRE_SIGNING_KEYS`, else (redb)
    /// the data directory's key file, generated when missing, or (memory) a fresh key. Redis
    /// without configured keys is refused: every node must share them.
    pub fn resolve_keys(&self, configured: Option<KeySet>) -> Result<KeySet, KeyError> {
        if let Some(keys) = configured {
            return Ok(keys);
        }
        if let Some(keys) = KeySet::from_env()? {
            return Ok(keys);
        }
        match self {
            Self::Redb { data_dir, .. } => KeySet::load_or_generate(data_dir),
            Self::Redis { .. } => Err(KeyError::RedisWithoutKeys),
            Self::Memory => KeySet::generate(),
        }
    }

    /// Opens the store alone (no keys).
    pub async fn open_store(&self) -> Result<Arc<dyn ResultStore>, StoreError> {
        Ok(match self {
            Self::Redb { data_dir, options } => {
                Arc::new(RedbStore::open_with(data_dir.clone(), *options).await?)
            }
            Self::Redis { url, ca_pem } => {
                Arc::new(RedisStore::connect_with_ca(url, ca_pem.as_deref()).await?)
            }
            Self::Memory => Arc::new(MemoryStore::new()),
        })
    }
}

/// A store and the signer of its links: what offloading and reading back need.
#[derive(Clone)]
pub struct StoredResults {
    store: Arc<dyn ResultStore>,
    signer: LinkSigner,
}

impl std::fmt::Debug for StoredResults {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredResults")
            .field("backend", &self.store.backend())
            .field("signer", &self.signer)
            .finish()
    }
}

/// Why the stored results could not be opened.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// No usable keys.
    #[error(transparent)]
    Keys(#[from] KeyError),
    /// The store did not open.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl StoredResults {
    /// From a store and a signer.
    pub fn new(store: Arc<dyn ResultStore>, signer: LinkSigner) -> Self {
        Self { store, signer }
    }

    /// Resolves the keys (see [`StoreConfig::resolve_keys`]) and then opens the store, so a
    /// Redis node without keys refuses to start before it connects.
    pub async fn open(config: &StoreConfig, keys: Option<KeySet>) -> Result<Self, OpenError> {
        let keys = config.resolve_keys(keys)?;
        let store = config.open_store().await?;
        Ok(Self::new(store, LinkSigner::new(keys)))
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn ResultStore> {
        &self.store
    }

    /// The signer.
    pub fn signer(&self) -> &LinkSigner {
        &self.signer
    }
}

//! `[store]` (and `--data-dir`): where stored results live, for how long, and how much of them.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use toolwire_store::OffloadFallback;

use super::{ConfigError, Overrides, Refuse, read_ca};

/// The default data directory.
pub const DEFAULT_DATA_DIR: &str = "./toolwire-data";

/// The longest `store.link_ttl`: 30 days. A stored result is a cache of one answer, not an
/// archive; longer lifetimes only grow the store (and far larger ones overflow expiry times).
pub const MAX_LINK_TTL_SECS: u64 = 30 * 24 * 3600;

/// The keys of `[store]`, for [`super::keys`].
pub(super) const KEYS: &[&str] = &[
    "url",
    "data_dir",
    "link_ttl",
    "signing_keys_env",
    "offload_fallback",
    "quota_total",
    "quota_per_principal",
    "ca_file",
    "cache_mib",
];

/// `[store]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreConfig {
    /// `redb` (default), `memory` or `redis://…`.
    pub url: Option<String>,
    /// The data directory of the embedded store and its keys.
    pub data_dir: Option<PathBuf>,
    /// Seconds a stored result stays readable.
    pub link_ttl: Option<u64>,
    /// The environment variable holding the signing keys (required with Redis).
    pub signing_keys_env: Option<String>,
    /// `fail` (default) or `inline` when the store fails.
    pub offload_fallback: Option<OffloadFallback>,
    /// Bytes all stored results may take together (default 1 GiB).
    pub quota_total: Option<u64>,
    /// Bytes one principal's stored results may take (default 256 MiB).
    pub quota_per_principal: Option<u64>,
    /// A PEM file of CA certificates trusted for `rediss://` instead of the system roots.
    pub ca_file: Option<PathBuf>,
    /// MiB of redb's page cache.
    pub cache_mib: Option<u64>,
}

/// Which store backs stored results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreKind {
    /// The embedded default in the data directory.
    Redb,
    /// In memory (lost on restart).
    Memory,
    /// Redis at this URL.
    Redis(String),
}

/// The resolved `[store]` section (and `--data-dir`).
pub(super) struct StoreSection {
    pub(super) kind: StoreKind,
    pub(super) data_dir: PathBuf,
    pub(super) link_ttl: Duration,
    pub(super) signing_keys_env: Option<String>,
    pub(super) ca_pem: Option<Vec<u8>>,
    pub(super) offload_fallback: OffloadFallback,
    pub(super) cache_size: usize,
    pub(super) quota: toolwire_store::Quota,
}

/// `[store]` over the defaults; `--data-dir` over `data_dir`.
pub(super) fn resolve(
    given: StoreConfig,
    overrides: &Overrides,
    error: Refuse,
) -> Result<StoreSection, ConfigError> {
    let kind = match given.url.as_deref() {
        None | Some("redb") => StoreKind::Redb,
        Some("memory") => StoreKind::Memory,
        Some(url) if url.starts_with("redis://") || url.starts_with("rediss://") => {
            StoreKind::Redis(url.to_owned())
        }
        Some(other) => {
            return Err(error(
                "store.url",
                format!("`{other}` is not a store; expected redb, memory or redis://…"),
            ));
        }
    };
    let ca_pem = match &given.ca_file {
        Some(path) if matches!(&kind, StoreKind::Redis(url) if url.starts_with("rediss://")) => {
            Some(read_ca(path).map_err(|m| error("store.ca_file", m))?.0)
        }
        Some(_) => {
            return Err(error("store.ca_file", "is only for a rediss:// store url".into()));
        }
        None => None,
    };
    let link_ttl = Duration::from_secs(match given.link_ttl {
        Some(0) => return Err(error("store.link_ttl", "must be at least 1 second".into())),
        Some(seconds) if seconds > MAX_LINK_TTL_SECS => {
            return Err(error(
                "store.link_ttl",
                format!(
                    "{seconds} seconds is over the longest link lifetime, {MAX_LINK_TTL_SECS} (30 days)"
                ),
            ));
        }
        Some(seconds) => seconds,
        None => 3600,
    });
    let cache_size = match given.cache_mib {
        None => 32 * 1024 * 1024,
        Some(mib) => usize::try_from(mib)
            .ok()
            .and_then(|mib| mib.checked_mul(1024 * 1024))
            .ok_or_else(|| error("store.cache_mib", format!("{mib} MiB is too large")))?,
    };
    Ok(StoreSection {
        kind,
        data_dir: overrides
            .data_dir
            .clone()
            .or(given.data_dir)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR)),
        link_ttl,
        signing_keys_env: given.signing_keys_env,
        ca_pem,
        offload_fallback: given.offload_fallback.unwrap_or_default(),
        cache_size,
        quota: toolwire_store::Quota::new(
            given.quota_total.unwrap_or(toolwire_store::DEFAULT_TOTAL_QUOTA),
            given.quota_per_principal.unwrap_or(toolwire_store::DEFAULT_PRINCIPAL_QUOTA),
        ),
    })
}

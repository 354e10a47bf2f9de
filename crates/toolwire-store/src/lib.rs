//! toolwire-store: where results too large to send inline are kept, and the signed links that
//! read them back.
//!
//! - [`ResultStore`]: the async store trait, with [`RedbStore`] (the embedded default, one file
//!   in the data directory), [`RedisStore`] (shared by several nodes) and [`MemoryStore`] (tests);
//!   each reads expiry against a [`Clock`] ([`SystemClock`] unless given another).
//! - [`LinkSigner`] and [`KeySet`]: `toolwire://results/<id>?exp=…&kid=…&sig=…` links, HMAC-SHA256
//!   signed, verifiable only by the principal they were made for.
//! - [`Quota`]: bounds on the bytes stored in all and per principal, kept by every backend.
//! - [`StoreConfig`] / [`StoredResults`]: a store and its keys chosen from configuration.
//! - [`StateSealer`]: the sealed MRTR `requestState` (ChaCha20-Poly1305 under a key derived from
//!   the signing keys), bound to tool, caller, arguments and expiry.
//! - [`offload()`]: the mapper's offload step (store, sign, finish the stub);
//!   [`read_resource`]: the `resources/read` result of a link.
//!
//! The modules are private: every public item is re-exported here, at one path.

mod config;
mod file;
mod keys;
mod link;
mod memory;
mod offload;
mod private_dir;
mod quota;
mod read;
mod record;
mod redb_store;
mod redis_store;
mod seal;
mod store;

pub use config::{OpenError, StoreConfig, StoredResults};
pub use file::read_limited;
pub use keys::{KEYS_ENV, KEYS_FILE, KeyError, KeySet, MIN_SECRET_BYTES, SigningKey};
pub use link::{LinkSigner, NotFound, URI_TEMPLATE, VerifiedLink};
pub use memory::MemoryStore;
pub use offload::{DEFAULT_LINK_TTL, OffloadFallback, OffloadOptions, Offloaded, offload};
pub use quota::{DEFAULT_PRINCIPAL_QUOTA, DEFAULT_TOTAL_QUOTA, Quota, QuotaScope};
pub use read::{
    ReadError, ReadResourceResult, ResourceEntry, STORE_UNAVAILABLE_MESSAGE, UNREADABLE_MESSAGE,
    read_resource, resource_template, resource_templates_list_result,
};
pub use record::{Record, RecordId};
pub use redb_store::{RESULTS_FILE, RedbOptions, RedbStore};
pub use redis_store::{KEY_PREFIX, RedisStore};
pub use seal::{Binding, DEFAULT_STATE_TTL, StateError, StateSealer};
pub use store::{Clock, ResultStore, StoreError, StoreFuture, SystemClock};

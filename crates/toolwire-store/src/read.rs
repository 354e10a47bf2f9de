//! Reading a stored result back through its link: fetching and verifying it, then the core's
//! `resources/read` lowering ([`toolwire_core::resource`], DESIGN §6), the not-found error
//! of each revision, and the resource template of stored results.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use toolwire_core::resource::{self, ResourceTemplatesList};
use toolwire_core::revision::McpCaps;
use toolwire_core::{McpRevision, v1};

pub use toolwire_core::resource::{ReadResourceResult, ResourceEntry};

use crate::config::StoredResults;
use crate::link::{NotFound, URI_TEMPLATE};
use crate::record::RecordId;
use crate::store::StoreError;

/// JSON-RPC "internal error".
pub(crate) const INTERNAL_ERROR: i64 = -32603;

/// The message of a read that failed because the store (its disk, Redis) is down for now: what
/// happened and what to do, for a caller that is often a model.
pub const STORE_UNAVAILABLE_MESSAGE: &str = "The result store is temporarily unavailable, so \
    the stored result could not be read; the link is still valid: retry resources/read later";

/// The message of any other read that failed on toolwire's side (a damaged record).
pub const UNREADABLE_MESSAGE: &str = "The stored result could not be read";

/// Why a link could not be read.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Every refusal: a bad link, an unknown key, a wrong MAC, an expired link, another
    /// principal, a missing record. Deliberately one answer.
    #[error("not found")]
    NotFound {
        /// The URI asked for.
        uri: String,
    },
    /// The store failed (not a refusal: the caller may try again).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The record is not a v1 result.
    #[error("stored record {id} is not a toolwire result: {reason}")]
    NotAResult {
        /// The record id.
        id: RecordId,
        /// What the v1 parser said.
        reason: String,
    },
}

impl ReadError {
    /// The JSON-RPC error code for `revision`: not found is the revision's
    /// [`resource_not_found_code`](McpCaps::resource_not_found_code) (`-32002` up to 2025-11-25,
    /// `-32602` on 2026-07-28); anything else is `-32603`.
    pub fn code(&self, revision: McpRevision) -> i64 {
        match self {
            Self::NotFound { .. } => McpCaps::of(revision).resource_not_found_code,
            _ => INTERNAL_ERROR,
        }
    }

    /// Whether the same read may succeed later: the store's backend (file system, redb, Redis,
    /// the runtime) failed, rather than the link being refused or the record being damaged.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Self::Store(error) if error.kind() == "unavailable")
    }

    /// The message of the JSON-RPC error other than not found, without internals:
    /// [`STORE_UNAVAILABLE_MESSAGE`] when [retryable](Self::is_retryable), else
    /// [`UNREADABLE_MESSAGE`].
    pub fn internal_message(&self) -> &'static str {
        if self.is_retryable() { STORE_UNAVAILABLE_MESSAGE } else { UNREADABLE_MESSAGE }
    }

    /// The `data` of the JSON-RPC error other than not found: `{"retryable": true}` when
    /// [retryable](Self::is_retryable), so a client can tell a pause from a lost result.
    pub fn internal_data(&self) -> Option<Value> {
        self.is_retryable().then(|| json!({"retryable": true}))
    }

    /// The JSON-RPC `error` object: `{code, message: "Resource not found", data: {uri}}` for not
    /// found; `{code: -32603, message}` without internals otherwise, with
    /// `data: {"retryable": true}` while the store is unavailable.
    pub fn to_json_rpc_error(&self, revision: McpRevision) -> Value {
        match self {
            Self::NotFound { uri } => json!({
                "code": self.code(revision),
                "message": "Resource not found",
                "data": {"uri": uri},
            }),
            _ => {
                let mut error = json!({"code": INTERNAL_ERROR, "message": self.internal_message()});
                if let Some(data) = self.internal_data() {
                    error["data"] = data;
                }
                error
            }
        }
    }
}

/// Reads the stored result behind `uri` for `principal` at `now`, shaped for `revision`.
///
/// Checks, in order: the link parses, its key id is known, its MAC matches (constant time), it
/// has not expired at `now`, the record exists (stores also never return a record expired by the
/// system clock) and belongs to `principal`. `now` also gives the 2026-07-28 `ttlMs`; pass the
/// current time (`Utc::now()`).
pub async fn read_resource(
    results: &StoredResults,
    uri: &str,
    principal: &str,
    revision: McpRevision,
    now: DateTime<Utc>,
) -> Result<ReadResourceResult, ReadError> {
    let not_found = || ReadError::NotFound { uri: uri.to_owned() };
    let (link, fragment) = match uri.split_once('#') {
        Some((link, fragment)) => (link, Some(fragment)),
        None => (uri, None),
    };
    let verified = results
        .signer()
        .verify(link, principal, now.timestamp())
        .map_err(|NotFound| not_found())?;
    let record = results.store().get(verified.id).await?.ok_or_else(not_found)?;
    if record.principal != principal {
        return Err(not_found());
    }
    let result = v1::parse(&record.bytes)
        .map_err(|err| ReadError::NotAResult { id: verified.id, reason: err.to_string() })?;
    let expires_ms =
        record.expires.datetime().timestamp_millis().min(verified.expires.saturating_mul(1000));
    let ttl_ms = u64::try_from(expires_ms - now.timestamp_millis()).unwrap_or(0);
    resource::read_result(&result, link, fragment, revision, ttl_ms).ok_or_else(not_found)
}

/// The resource template of stored results, for `resources/templates/list` (`title` where the
/// revision has it).
pub fn resource_template(revision: McpRevision) -> resource::ResourceTemplate {
    resource::stored_result_template(URI_TEMPLATE, revision)
}

/// The whole `resources/templates/list` result: the one template, with `resultType` and the
/// cache hints (`ttlMs` an hour, `cacheScope: "public"`) where the revision has them.
pub fn resource_templates_list_result(revision: McpRevision) -> ResourceTemplatesList {
    resource::templates_list(vec![resource_template(revision)], revision)
}

impl StoredResults {
    /// Reads the stored result behind a link: see [`read_resource`].
    pub async fn read(
        &self,
        uri: &str,
        principal: &str,
        revision: McpRevision,
        now: DateTime<Utc>,
    ) -> Result<ReadResourceResult, ReadError> {
        read_resource(self, uri, principal, revision, now).await
    }

    /// Stores an over-limit render and finishes it: see [`crate::offload::offload`].
    pub async fn offload(
        &self,
        needs: toolwire_core::NeedsOffload,
        options: &crate::offload::OffloadOptions,
    ) -> Result<crate::offload::Offloaded, toolwire_core::RenderError> {
        crate::offload::offload(self, needs, options).await
    }
}

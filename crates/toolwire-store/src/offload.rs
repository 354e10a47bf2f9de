//! The offload step of a render (DESIGN §4): a result over its target's limit is stored whole
//! (v1 form), a signed link to it is made, and the mapper finishes the render as a stub pointing
//! at the link. When storing fails, the call fails with the `tool_error` "result of N bytes
//! exceeds the limit of L bytes and could not be stored" and what happened (the store is
//! unavailable, or a quota is full) — or, only when configured, the result is sent inline with a
//! warning.

use std::time::Duration;

use chrono::{DateTime, Utc};
use toolwire_core::StoredLink;
use toolwire_core::Timestamp;
use toolwire_core::{MAX_INLINE, NeedsOffload, Output, PendingStub, RenderError, StoreRefusal};

use crate::config::StoredResults;
use crate::quota::QuotaScope;
use crate::record::Record;
use crate::store::StoreError;

/// The default lifetime of a link and its record.
pub const DEFAULT_LINK_TTL: Duration = Duration::from_secs(3600);

/// What to do when the store fails (`offload_fallback`).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OffloadFallback {
    /// Fail the call with `tool_error` (the default).
    #[default]
    Fail,
    /// Send the full result inline with a warning, while it is under 15 MiB.
    Inline,
}

toolwire_core::named!(OffloadFallback, "offload fallback", { Fail => "fail", Inline => "inline" });

/// Who the stored result is for and how long it lives.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffloadOptions {
    /// The only principal whose link reads the record.
    pub principal: String,
    /// How long the link and the record live (at least one second).
    pub ttl: Duration,
    /// What to do when the store fails.
    pub fallback: OffloadFallback,
}

impl OffloadOptions {
    /// For `principal`, with the default lifetime (one hour) and no inline fallback.
    pub fn new(principal: impl Into<String>) -> Self {
        Self { principal: principal.into(), ttl: DEFAULT_LINK_TTL, fallback: OffloadFallback::Fail }
    }

    /// With a lifetime.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// With a fallback.
    pub fn fallback(mut self, fallback: OffloadFallback) -> Self {
        self.fallback = fallback;
        self
    }
}

/// A finished render after the offload step.
#[non_exhaustive]
#[derive(Debug)]
pub struct Offloaded {
    /// What goes on the wire.
    pub output: Output,
    /// The link, when the result was stored.
    pub link: Option<StoredLink>,
    /// Why storing failed, when it did (to log; the output already says what the caller needs).
    pub store_error: Option<StoreError>,
}

/// Stores the v1 bytes, signs a link for `options.principal` that lives `options.ttl`, and
/// finishes the stub. A store failure gives the DESIGN §4 `tool_error`, or the inline result
/// with a warning under [`OffloadFallback::Inline`] (still the `tool_error` over 15 MiB).
pub async fn offload(
    results: &StoredResults,
    needs: NeedsOffload,
    options: &OffloadOptions,
) -> Result<Offloaded, RenderError> {
    let now = Utc::now();
    let expires = expiry(now, options.ttl);
    // Without the inline fallback the full render is dropped before the store is awaited, and
    // the v1 bytes move into the record: the result is held once while it is stored.
    let (bytes, held) = match options.fallback {
        OffloadFallback::Inline if needs.size() <= MAX_INLINE => {
            (needs.v1_bytes().to_vec(), Held::Whole(needs))
        }
        _ => {
            let (bytes, stub) = needs.into_stub();
            (bytes, Held::Stub(stub))
        }
    };
    let size = bytes.len() as u64;
    let mime_type = "application/json";
    let record = Record::new(
        bytes,
        mime_type,
        options.principal.clone(),
        Timestamp::with_fraction_digits(now, 3),
        expires,
    );
    match results.store().put(record).await {
        Ok(id) => {
            let uri = results.signer().sign(id, expires.unix_seconds(), &options.principal);
            let link = StoredLink::new(uri).size(size).mime_type(mime_type).expires_at(expires);
            let output = match held {
                Held::Whole(needs) => needs.finish(link.clone())?,
                Held::Stub(stub) => stub.finish(link.clone())?,
            };
            Ok(Offloaded { output, link: Some(link), store_error: None })
        }
        Err(err) => {
            let output = match held {
                Held::Whole(needs) => needs.inline()?,
                Held::Stub(stub) => stub.store_failed(refusal(&err)),
            };
            Ok(Offloaded { output, link: None, store_error: Some(err) })
        }
    }
}

/// What the caller is told of `err`.
fn refusal(err: &StoreError) -> StoreRefusal {
    match err {
        StoreError::QuotaExceeded { scope: QuotaScope::Principal, .. } => {
            StoreRefusal::PrincipalQuotaFull
        }
        StoreError::QuotaExceeded { scope: QuotaScope::Total, .. } => StoreRefusal::TotalQuotaFull,
        _ => StoreRefusal::Unavailable,
    }
}

/// What an offload keeps while the store works: everything (for the inline fallback), or only
/// what finishes the stub.
enum Held {
    Whole(NeedsOffload),
    Stub(PendingStub),
}

/// The expiry of a link made at `now`: whole seconds (links carry Unix seconds), at least one
/// second ahead.
fn expiry(now: DateTime<Utc>, ttl: Duration) -> Timestamp {
    let seconds = i64::try_from(ttl.as_secs().max(1)).unwrap_or(i64::MAX / 2);
    let at = now.timestamp().saturating_add(seconds);
    Timestamp::from_unix_seconds(at).unwrap_or_else(|| Timestamp::from_datetime(now))
}

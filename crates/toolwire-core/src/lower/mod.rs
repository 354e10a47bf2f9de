//! The lowerings: each turns a layout (`crate::layout::Layout`) into the compact wire text of
//! one protocol family — the legacy envelope, MCP (every revision through one capability table)
//! and A2A (0.3 and 1.0).
//!
//! Wire shapes are borrowing `#[derive(Serialize)]` structs whose field order is the key order;
//! serde_json writes them. The data, serialized once by the layout, is carried as a
//! `RawValue` and copied as text, never cloned or re-parsed. The member forms the lowerings
//! share with the v1 form live in `crate::form`; this module holds what only the lowerings
//! share: the prefixed `_meta` map and the name of a stored link.

pub(crate) mod a2a;
pub(crate) mod legacy;
pub(crate) mod mcp;
pub(crate) mod resource;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::form::{PaginationJson, PrefixedKey, QueryJson};
use crate::layout::Layout;
use crate::link::StoredLink;
use crate::meta::Metadata;
use crate::timestamp::Timestamp;

/// The metadata as `_meta` members under a prefix: `<p>/generatedAt`, `<p>/expiresAt` (only
/// with the timestamps), `<p>/dryRun`, `<p>/pagination`, `<p>/responseSize`, `<p>/query`, then
/// the extensions as `<namespace>/<key>`. Serializes as a map of its own, or adds its members to
/// an enclosing one with [`PrefixedMeta::entries`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct PrefixedMeta<'a> {
    meta: &'a Metadata,
    prefix: &'a str,
    generated_at: Option<Timestamp>,
}

impl<'a> PrefixedMeta<'a> {
    /// The metadata of `layout`'s result under `prefix`, with the timestamps when `timestamps`
    /// is set.
    pub(crate) fn new(layout: Layout<'a>, prefix: &'a str, timestamps: bool) -> Self {
        Self {
            meta: layout.result().meta(),
            prefix,
            generated_at: timestamps.then(|| layout.generated_at()),
        }
    }

    /// Adds the members to `map`, in their order.
    pub(crate) fn entries<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        let (meta, prefix) = (self.meta, self.prefix);
        if let Some(generated) = self.generated_at {
            map.serialize_entry(&PrefixedKey(prefix, "generatedAt"), &generated)?;
            if let Some(at) = meta.expires_at {
                map.serialize_entry(&PrefixedKey(prefix, "expiresAt"), &at)?;
            }
        }
        if let Some(dry_run) = meta.dry_run {
            map.serialize_entry(&PrefixedKey(prefix, "dryRun"), &dry_run)?;
        }
        if let Some(pagination) = &meta.pagination {
            map.serialize_entry(
                &PrefixedKey(prefix, "pagination"),
                &PaginationJson::from(pagination),
            )?;
        }
        if let Some(size) = meta.response_size {
            map.serialize_entry(&PrefixedKey(prefix, "responseSize"), &size)?;
        }
        if let Some(query) = &meta.query {
            map.serialize_entry(&PrefixedKey(prefix, "query"), &QueryJson::from(query))?;
        }
        for (namespace, key, value) in meta.extensions.iter() {
            map.serialize_entry(&PrefixedKey(namespace, key), value)?;
        }
        Ok(())
    }
}

impl Serialize for PrefixedMeta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.entries(&mut map)?;
        map.end()
    }
}

/// The synthesized name of a stored link's `resource_link`: `result-<id>.json`.
pub(crate) fn stored_link_name(link: &StoredLink) -> String {
    match link.toolwire_id() {
        Some(id) if !id.is_empty() => format!("result-{id}.json"),
        _ => "result.json".to_owned(),
    }
}

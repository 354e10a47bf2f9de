//! Reading a stored result back through its link: the MCP `resources/read` result (DESIGN §6),
//! the not-found error of each revision, and the resource template of stored results.
//!
//! The contents: `contents[0]` is `{uri, mimeType: "application/json", text: <compact JSON of
//! D>}` when the result has data; then one entry per part, in order, with the uri
//! `<link>#part-<n>` (`n` = the part's position in the result's parts, from 0, as in
//! `toolwire://part/<index>`):
//! - a text part: `text/plain` text;
//! - a binary part: `blob` (base64) with its MIME type;
//! - an embedded resource: its MIME type (when it has one) and its text or blob as they are;
//! - a resource link: `text/uri-list` text holding its URI and CRLF (RFC 2483), since resource
//!   contents cannot be a link themselves.
//!
//! A stored result with neither data nor parts reads as one `application/json` entry `null`
//! (2026-07-28 forbids empty contents for a resource that exists). Summary, error and metadata
//! are not repeated: they were in the stub. Reading `<link>#part-<n>` returns that one entry.
//! On 2026-07-28 the result adds `resultType: "complete"`, `ttlMs` (time left) and
//! `cacheScope: "private"`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Value, json};
use toolwire_core::part::{Part, ResourceContents};
use toolwire_core::{McpRevision, v1};

use crate::config::StoredResults;
use crate::link::{NotFound, URI_TEMPLATE};
use crate::record::RecordId;
use crate::store::StoreError;

/// JSON-RPC "resource not found" up to 2025-11-25.
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// JSON-RPC "invalid params": not found on 2026-07-28.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC "internal error".
pub const INTERNAL_ERROR: i64 = -32603;
/// The name of the stored-result template.
pub const TEMPLATE_NAME: &str = "stored-result";

/// A `resources/read` result.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// `complete` on 2026-07-28.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<&'static str>,
    /// The entries.
    pub contents: Vec<ResourceEntry>,
    /// Milliseconds the link has left, on 2026-07-28.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// `private` on 2026-07-28: the result belongs to one principal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<&'static str>,
}

/// One `contents` entry (`TextResourceContents` or `BlobResourceContents`).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceEntry {
    /// The link, or `<link>#part-<n>`.
    pub uri: String,
    /// The MIME type, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Binary contents, base64.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

impl ReadResourceResult {
    /// The compact JSON of the stored data (`contents[0].text` when it is the data entry).
    pub fn data_json(&self) -> Option<&str> {
        let first = self.contents.first()?;
        let is_data = !first.uri.contains("#part-") && first.mime_type.as_deref() == Some(JSON);
        if is_data { first.text.as_deref() } else { None }
    }

    /// The result as JSON (keys in wire order).
    pub fn to_value(&self) -> Value {
        // Plain strings and integers: serializing cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

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
    /// The JSON-RPC error code for `revision`: not found is `-32002` up to 2025-11-25 and
    /// `-32602` on 2026-07-28; anything else is `-32603`.
    pub fn code(&self, revision: McpRevision) -> i64 {
        match self {
            Self::NotFound { .. } if revision >= McpRevision::V2026_07_28 => INVALID_PARAMS,
            Self::NotFound { .. } => RESOURCE_NOT_FOUND,
            _ => INTERNAL_ERROR,
        }
    }

    /// The JSON-RPC `error` object: `{code, message: "Resource not found", data: {uri}}` for not
    /// found; `{code: -32603, message}` without internals otherwise.
    pub fn to_json_rpc_error(&self, revision: McpRevision) -> Value {
        match self {
            Self::NotFound { uri } => json!({
                "code": self.code(revision),
                "message": "Resource not found",
                "data": {"uri": uri},
            }),
            _ => json!({"code": INTERNAL_ERROR, "message": "The stored result could not be read"}),
        }
    }
}

const JSON: &str = "application/json";

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

    let mut contents = Vec::new();
    if let Some(data) = result.data() {
        contents.push(text_entry(link.to_owned(), Some(JSON.into()), data.to_string()));
    }
    for (n, part) in result.parts().iter().enumerate() {
        if let Some(entry) = part_entry(format!("{link}#part-{n}"), part) {
            contents.push(entry);
        }
    }
    if contents.is_empty() {
        contents.push(text_entry(link.to_owned(), Some(JSON.into()), "null".into()));
    }
    if let Some(fragment) = fragment {
        contents.retain(|entry| {
            entry.uri.strip_prefix(link).and_then(|r| r.strip_prefix('#')) == Some(fragment)
        });
        if contents.is_empty() {
            return Err(not_found());
        }
    }

    let expires_ms =
        record.expires.datetime().timestamp_millis().min(verified.expires.saturating_mul(1000));
    let ttl_ms = u64::try_from(expires_ms - now.timestamp_millis()).unwrap_or(0);
    let stateless = revision >= McpRevision::V2026_07_28;
    Ok(ReadResourceResult {
        result_type: stateless.then_some("complete"),
        contents,
        ttl_ms: stateless.then_some(ttl_ms),
        cache_scope: stateless.then_some("private"),
    })
}

fn text_entry(uri: String, mime_type: Option<String>, text: String) -> ResourceEntry {
    ResourceEntry { uri, mime_type, text: Some(text), blob: None }
}

fn blob_entry(uri: String, mime_type: Option<String>, bytes: &[u8]) -> ResourceEntry {
    ResourceEntry { uri, mime_type, text: None, blob: Some(STANDARD.encode(bytes)) }
}

fn part_entry(uri: String, part: &Part) -> Option<ResourceEntry> {
    Some(match part {
        Part::Text(text) => text_entry(uri, Some("text/plain".into()), text.text.clone()),
        Part::Binary(binary) => blob_entry(uri, Some(binary.mime_type.clone()), &binary.data),
        Part::EmbeddedResource(resource) => match &resource.contents {
            ResourceContents::Text(text) => {
                text_entry(uri, resource.mime_type.clone(), text.clone())
            }
            ResourceContents::Blob(bytes) => blob_entry(uri, resource.mime_type.clone(), bytes),
            // A contents kind added to the core later: left out rather than guessed.
            _ => return None,
        },
        Part::ResourceLink(link) => {
            text_entry(uri, Some("text/uri-list".into()), format!("{}\r\n", link.uri))
        }
        // A part kind added to the core later: left out rather than guessed.
        _ => return None,
    })
}

/// The resource template of stored results, for `resources/templates/list` (`title` from
/// 2025-06-18, the first revision that has it).
pub fn resource_template(revision: McpRevision) -> Value {
    let mut template = serde_json::Map::new();
    template.insert("uriTemplate".into(), URI_TEMPLATE.into());
    template.insert("name".into(), TEMPLATE_NAME.into());
    if revision >= McpRevision::V2025_06_18 {
        template.insert("title".into(), "Stored result".into());
    }
    template.insert(
        "description".into(),
        "A tool result too large to send inline, kept for a limited time. Read it with the \
         signed link the tool call returned; links work only for the caller they were made for."
            .into(),
    );
    Value::Object(template)
}

/// The whole `resources/templates/list` result: the one template; on 2026-07-28 with
/// `resultType`, `ttlMs` (an hour: the template never changes while the server runs) and
/// `cacheScope: "public"`.
pub fn resource_templates_list_result(revision: McpRevision) -> Value {
    let templates = json!([resource_template(revision)]);
    if revision >= McpRevision::V2026_07_28 {
        json!({"resultType": "complete", "resourceTemplates": templates, "ttlMs": 3_600_000, "cacheScope": "public"})
    } else {
        json!({"resourceTemplates": templates})
    }
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
        needs: toolwire_core::mapper::NeedsOffload,
        options: &crate::offload::OffloadOptions,
    ) -> Result<crate::offload::Offloaded, toolwire_core::mapper::RenderError> {
        crate::offload::offload(self, needs, options).await
    }
}

//! The MCP `resources/read` result of a stored tool result and the resource templates list
//! (DESIGN §6), for every revision: typed shapes whose field order is the key order. Pure
//! formatting: the store fetches, verifies and decides how long a link has left.
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
//! A result with neither data nor parts reads as one `application/json` entry `null`
//! (2026-07-28 forbids empty contents for a resource that exists). Summary, error and metadata
//! are not repeated: they were in the stub. Reading `<link>#part-<n>` returns that one entry.
//! Where the revision has them ([`McpCaps::result_type`], [`McpCaps::cache_hints`]) the result
//! adds `resultType: "complete"`, `ttlMs` (time left) and `cacheScope: "private"`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;
use serde_json::Value;

use crate::part::{Part, ResourceContents};
use crate::result::ToolResult;
use crate::revision::McpCaps;
use crate::target::McpRevision;

/// The name of the stored-result template.
pub const STORED_RESULT_TEMPLATE_NAME: &str = "stored-result";
/// How long a client may cache the templates list: an hour (the template never changes while
/// the server runs).
pub const TEMPLATES_TTL_MS: u64 = 3_600_000;

const JSON: &str = "application/json";

/// A `resources/read` result.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// `complete` where the revision has `resultType`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<&'static str>,
    /// The entries.
    pub contents: Vec<ResourceEntry>,
    /// Milliseconds the link has left, where the revision has cache hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// `private` where the revision has cache hints: the result belongs to one principal.
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

/// The `resources/read` result of the stored `result` behind `link` for `revision`: every entry,
/// or with `fragment` (`part-<n>`) only that one; `None` when the fragment names no entry.
/// `ttl_ms` is the time the link has left.
pub fn read_result(
    result: &ToolResult,
    link: &str,
    fragment: Option<&str>,
    revision: McpRevision,
    ttl_ms: u64,
) -> Option<ReadResourceResult> {
    let mut contents = Vec::new();
    if let Some(data) = result.data_json() {
        contents.push(text_entry(link.to_owned(), Some(JSON.into()), data.to_owned()));
    }
    for (n, part) in result.parts().iter().enumerate() {
        contents.push(part_entry(format!("{link}#part-{n}"), part));
    }
    if contents.is_empty() {
        contents.push(text_entry(link.to_owned(), Some(JSON.into()), "null".into()));
    }
    if let Some(fragment) = fragment {
        contents.retain(|entry| {
            entry.uri.strip_prefix(link).and_then(|r| r.strip_prefix('#')) == Some(fragment)
        });
        if contents.is_empty() {
            return None;
        }
    }
    let caps = McpCaps::of(revision);
    Some(ReadResourceResult {
        result_type: caps.result_type.then_some("complete"),
        contents,
        ttl_ms: caps.cache_hints.then_some(ttl_ms),
        cache_scope: caps.cache_hints.then_some("private"),
    })
}

fn text_entry(uri: String, mime_type: Option<String>, text: String) -> ResourceEntry {
    ResourceEntry { uri, mime_type, text: Some(text), blob: None }
}

fn blob_entry(uri: String, mime_type: Option<String>, bytes: &[u8]) -> ResourceEntry {
    ResourceEntry { uri, mime_type, text: None, blob: Some(STANDARD.encode(bytes)) }
}

fn part_entry(uri: String, part: &Part) -> ResourceEntry {
    match part {
        Part::Text(text) => text_entry(uri, Some("text/plain".into()), text.text.clone()),
        Part::Binary(binary) => blob_entry(uri, Some(binary.mime_type.clone()), &binary.data),
        Part::EmbeddedResource(resource) => match &resource.contents {
            ResourceContents::Text(text) => {
                text_entry(uri, resource.mime_type.clone(), text.clone())
            }
            ResourceContents::Blob(bytes) => blob_entry(uri, resource.mime_type.clone(), bytes),
        },
        Part::ResourceLink(link) => {
            text_entry(uri, Some("text/uri-list".into()), format!("{}\r\n", link.uri))
        }
    }
}

/// One resource template of `resources/templates/list`.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The RFC 6570 URI template.
    pub uri_template: String,
    /// The template's name.
    pub name: String,
    /// The display name, where the revision has `title` ([`McpCaps::title`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the template is for.
    pub description: String,
}

/// The template of stored results (`uri_template` is the store's link template) for
/// `revision`.
pub fn stored_result_template(uri_template: &str, revision: McpRevision) -> ResourceTemplate {
    ResourceTemplate {
        uri_template: uri_template.to_owned(),
        name: STORED_RESULT_TEMPLATE_NAME.to_owned(),
        title: McpCaps::of(revision).title.then(|| "Stored result".to_owned()),
        description: "A tool result too large to send inline, kept for a limited time. Read it \
                      with the signed link the tool call returned; links work only for the \
                      caller they were made for."
            .to_owned(),
    }
}

/// A `resources/templates/list` result.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplatesList {
    /// `complete` where the revision has `resultType`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<&'static str>,
    /// The templates.
    pub resource_templates: Vec<ResourceTemplate>,
    /// [`TEMPLATES_TTL_MS`] where the revision has cache hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// `public` where the revision has cache hints: every caller sees the same list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<&'static str>,
}

impl ResourceTemplatesList {
    /// The result as JSON (keys in wire order).
    pub fn to_value(&self) -> Value {
        // Plain strings and integers: serializing cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The `resources/templates/list` result carrying `templates` for `revision`.
pub fn templates_list(
    resource_templates: Vec<ResourceTemplate>,
    revision: McpRevision,
) -> ResourceTemplatesList {
    let caps = McpCaps::of(revision);
    ResourceTemplatesList {
        result_type: caps.result_type.then_some("complete"),
        resource_templates,
        ttl_ms: caps.cache_hints.then_some(TEMPLATES_TTL_MS),
        cache_scope: caps.cache_hints.then_some("public"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn stored() -> ToolResult {
        match ToolResult::builder()
            .data(json!({"n": 1}))
            .summary("not repeated")
            .part(Part::text("note"))
            .part(Part::binary(vec![0u8, 255], "image/png"))
            .build()
        {
            Ok(result) => result,
            Err(err) => panic!("{err}"),
        }
    }

    fn text(read: Option<ReadResourceResult>) -> String {
        read.map_or_else(|| "none".to_owned(), |r| r.to_value().to_string())
    }

    #[test]
    fn contents_follow_the_revision_row() {
        let link = "toolwire://results/x";
        assert_eq!(
            text(read_result(&stored(), link, None, McpRevision::V2025_11_25, 5)),
            r#"{"contents":[{"uri":"toolwire://results/x","mimeType":"application/json","text":"{\"n\":1}"},{"uri":"toolwire://results/x#part-0","mimeType":"text/plain","text":"note"},{"uri":"toolwire://results/x#part-1","mimeType":"image/png","blob":"AP8="}]}"#
        );
        assert_eq!(
            text(read_result(&stored(), link, Some("part-0"), McpRevision::V2026_07_28, 5)),
            r#"{"resultType":"complete","contents":[{"uri":"toolwire://results/x#part-0","mimeType":"text/plain","text":"note"}],"ttlMs":5,"cacheScope":"private"}"#
        );
        assert_eq!(
            text(read_result(&stored(), link, Some("part-2"), McpRevision::V2026_07_28, 5)),
            "none"
        );
        assert_eq!(
            text(read_result(&ToolResult::empty(), link, None, McpRevision::V2024_11_05, 5)),
            r#"{"contents":[{"uri":"toolwire://results/x","mimeType":"application/json","text":"null"}]}"#
        );
    }

    #[test]
    fn templates_carry_title_and_cache_hints_where_the_revision_has_them() {
        let list = |revision| {
            serde_json::to_string(&templates_list(
                vec![stored_result_template("t://{id}", revision)],
                revision,
            ))
            .unwrap_or_default()
        };
        let description = stored_result_template("t://{id}", McpRevision::V2025_03_26).description;
        assert_eq!(
            list(McpRevision::V2025_03_26),
            format!(
                r#"{{"resourceTemplates":[{{"uriTemplate":"t://{{id}}","name":"stored-result","description":"{description}"}}]}}"#
            )
        );
        assert_eq!(
            list(McpRevision::V2026_07_28),
            format!(
                r#"{{"resultType":"complete","resourceTemplates":[{{"uriTemplate":"t://{{id}}","name":"stored-result","title":"Stored result","description":"{description}"}}],"ttlMs":3600000,"cacheScope":"public"}}"#
            )
        );
    }
}

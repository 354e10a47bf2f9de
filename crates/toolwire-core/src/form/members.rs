//! The member forms the v1 document, the legacy envelope and the lowerings share: pagination,
//! the echoed query, a resource link, a list of parts (the v1 part JSON) and a list of stored
//! links.

use std::borrow::Cow;

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::{Annotations, Base64, PrefixedOne, Roles};
use crate::link::StoredLink;
use crate::meta::{Pagination, Query};
use crate::part::{Audience, Part, ResourceContents, ResourceLinkPart};
use crate::timestamp::Timestamp;

/// Pagination in the form every target shares: `total`, `page`, `limit`, `nextCursor`.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PaginationJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) total: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) page: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) limit: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) next_cursor: Option<&'a str>,
}

impl<'a> From<&'a Pagination> for PaginationJson<'a> {
    fn from(pagination: &'a Pagination) -> Self {
        Self {
            total: pagination.total,
            page: pagination.page,
            limit: pagination.limit,
            next_cursor: pagination.next_cursor.as_deref(),
        }
    }
}

/// The echoed query: `{"tool", "arguments"}`.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct QueryJson<'a> {
    pub(crate) tool: &'a str,
    pub(crate) arguments: &'a Value,
}

impl<'a> From<&'a Query> for QueryJson<'a> {
    fn from(query: &'a Query) -> Self {
        Self { tool: &query.tool, arguments: &query.arguments }
    }
}

/// A resource link's members in the order MCP's `resource_link` block and the v1 part share:
/// `uri`, `name`, `title`, `description`, `mimeType`, `size`, then `_meta` (a stored link's
/// expiry) and, on an MCP block, `annotations` (the part's audience; the v1 part writes it as
/// `audience` instead).
#[non_exhaustive]
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink<'a> {
    /// The link's URI.
    pub uri: &'a str,
    /// Its name.
    pub name: Cow<'a, str>,
    /// Its title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    /// Its description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'a str>,
    /// Its MIME type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<&'a str>,
    /// Its size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// `{"<p>/expiresAt": …}` for a stored link that expires.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<PrefixedOne<'a, Timestamp>>,
    /// The part's audience, on an MCP block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
}

impl<'a> From<&'a ResourceLinkPart> for ResourceLink<'a> {
    fn from(link: &'a ResourceLinkPart) -> Self {
        Self {
            uri: &link.uri,
            name: Cow::Borrowed(&link.name),
            title: link.title.as_deref(),
            description: link.description.as_deref(),
            mime_type: link.mime_type.as_deref(),
            size: link.size,
            meta: None,
            annotations: None,
        }
    }
}

/// A list of parts in the v1 part JSON (the legacy `_meta.parts` entries too); without the
/// payloads (`data`/`blob`) when `payloads` is false, for the compat envelope whose parts
/// travel as blocks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parts<'a> {
    parts: &'a [Part],
    payloads: bool,
}

impl<'a> Parts<'a> {
    pub(crate) fn new(parts: &'a [Part], payloads: bool) -> Self {
        Self { parts, payloads }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }
}

impl Serialize for Parts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.parts.iter().map(|part| PartForm::new(part, self.payloads)))
    }
}

/// A part in the v1 part JSON: `type` first, then its members, then `audience` when the part
/// has one.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum PartForm<'a> {
    Text {
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        audience: Option<Roles>,
    },
    #[serde(rename_all = "camelCase")]
    Binary {
        mime_type: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<Base64<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        audience: Option<Roles>,
    },
    ResourceLink {
        #[serde(flatten)]
        link: ResourceLink<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        audience: Option<Roles>,
    },
    #[serde(rename_all = "camelCase")]
    EmbeddedResource {
        uri: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        mime_type: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        blob: Option<Base64<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        audience: Option<Roles>,
    },
}

impl<'a> PartForm<'a> {
    fn new(part: &'a Part, payload: bool) -> Self {
        let audience = part.audience().map(Roles);
        // The compat block's envelope (no payloads) is read by models: the text of a part for
        // the user alone stays in its own block, which hosts that honour the audience keep
        // from the model.
        let text_kept = payload || part.audience().is_none_or(Audience::reaches_model);
        match part {
            Part::Text(text) => {
                Self::Text { text: Some(text.text.as_str()).filter(|_| text_kept), audience }
            }
            Part::Binary(binary) => Self::Binary {
                mime_type: &binary.mime_type,
                data: payload.then_some(Base64(&binary.data)),
                name: binary.name.as_deref(),
                audience,
            },
            Part::ResourceLink(link) => {
                Self::ResourceLink { link: ResourceLink::from(link), audience }
            }
            Part::EmbeddedResource(resource) => {
                let (text, blob) = match &resource.contents {
                    ResourceContents::Text(text) => {
                        (Some(text.as_str()).filter(|_| text_kept), None)
                    }
                    ResourceContents::Blob(blob) => (None, payload.then_some(Base64(blob))),
                };
                Self::EmbeddedResource {
                    uri: &resource.uri,
                    mime_type: resource.mime_type.as_deref(),
                    text,
                    blob,
                    audience,
                }
            }
        }
    }
}

/// A list of stored links in the v1 form.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StoredLinks<'a>(pub(crate) &'a [StoredLink]);

impl StoredLinks<'_> {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for StoredLinks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(StoredLinkForm::from))
    }
}

/// A stored link in the v1 form: `uri`, `size`, `mimeType`, `expiresAt`, `description`, absent
/// ones left out.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StoredLinkForm<'a> {
    uri: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    mime_type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
}

impl<'a> From<&'a StoredLink> for StoredLinkForm<'a> {
    fn from(link: &'a StoredLink) -> Self {
        Self {
            uri: &link.uri,
            size: link.size,
            mime_type: &link.mime_type,
            expires_at: link.expires_at,
            description: link.description.as_deref(),
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_text::to_json_string;

    fn part_json(part: &Part, include_payload: bool) -> String {
        to_json_string(&PartForm::new(part, include_payload))
    }

    #[test]
    fn parts_can_leave_out_their_payloads() {
        let binary = Part::named_binary(vec![1u8, 2], "image/png", "a.png");
        assert_eq!(
            part_json(&binary, true),
            r#"{"type":"binary","mimeType":"image/png","data":"AQI=","name":"a.png"}"#
        );
        assert_eq!(
            part_json(&binary, false),
            r#"{"type":"binary","mimeType":"image/png","name":"a.png"}"#
        );
        let blob = Part::embedded_blob("file:///b", None, vec![1u8]);
        assert_eq!(part_json(&blob, false), r#"{"type":"embedded_resource","uri":"file:///b"}"#);
        let text = Part::embedded_text("file:///t", None, "x");
        assert_eq!(
            part_json(&text, false),
            r#"{"type":"embedded_resource","uri":"file:///t","text":"x"}"#
        );
    }
}

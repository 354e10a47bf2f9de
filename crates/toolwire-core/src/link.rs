//! Stored links: where a result too large to send inline can be read back.

use crate::timestamp::Timestamp;

/// The URI scheme and authority of toolwire's own stored results.
pub const STORED_RESULT_PREFIX: &str = "toolwire://results/";

/// A link to a stored result.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredLink {
    /// The signed link URI.
    pub uri: String,
    /// The stored size in bytes, when known.
    pub size: Option<u64>,
    /// The MIME type of what is stored.
    pub mime_type: String,
    /// When the link (and the record) expire, when known.
    pub expires_at: Option<Timestamp>,
    /// A note for the reader (the legacy `note`), when there is one.
    pub description: Option<String>,
}

impl StoredLink {
    /// A link to stored JSON.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            size: None,
            mime_type: "application/json".into(),
            expires_at: None,
            description: None,
        }
    }

    /// With the stored size.
    pub fn size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// With a MIME type.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = mime_type.into();
        self
    }

    /// With an expiry.
    pub fn expires_at(mut self, at: Timestamp) -> Self {
        self.expires_at = Some(at);
        self
    }

    /// With a note for the reader.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The record id when the URI is one of toolwire's own stored-result links.
    pub fn toolwire_id(&self) -> Option<&str> {
        let rest = self.uri.strip_prefix(STORED_RESULT_PREFIX)?;
        Some(rest.split(['?', '#']).next().unwrap_or(rest))
    }
}

//! Content parts: the closed set of typed pieces a result may carry besides its data.

/// One content part. The set is closed: only toolwire-core defines part types, so every
/// lowering can map every part.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Prose.
    Text(TextPart),
    /// Bytes with a MIME type: images, audio, anything.
    Binary(BinaryPart),
    /// A pointer to a resource the client can fetch.
    ResourceLink(ResourceLinkPart),
    /// A resource sent inline.
    EmbeddedResource(EmbeddedResourcePart),
}

/// A text part.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPart {
    /// The text.
    pub text: String,
}

/// A binary part.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryPart {
    /// The raw bytes (base64 only on the wire).
    pub data: Vec<u8>,
    /// The MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// A file name, when there is one.
    pub name: Option<String>,
}

/// A link to a resource.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceLinkPart {
    /// Where the resource is.
    pub uri: String,
    /// Its programmatic name.
    pub name: String,
    /// Its display name.
    pub title: Option<String>,
    /// What it is.
    pub description: Option<String>,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its size in bytes.
    pub size: Option<u64>,
}

/// A resource sent inline, as text or as bytes.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedResourcePart {
    /// The resource URI.
    pub uri: String,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its contents.
    pub contents: ResourceContents,
}

/// The contents of an embedded resource.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceContents {
    /// Text contents.
    Text(String),
    /// Binary contents (base64 only on the wire).
    Blob(Vec<u8>),
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Part::Text(TextPart { text: text.into() })
    }

    /// A binary part without a name.
    pub fn binary(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Part::Binary(BinaryPart { data: data.into(), mime_type: mime_type.into(), name: None })
    }

    /// A binary part with a file name.
    pub fn named_binary(
        data: impl Into<Vec<u8>>,
        mime_type: impl Into<String>,
        name: impl Into<String>,
    ) -> Self {
        Part::Binary(BinaryPart {
            data: data.into(),
            mime_type: mime_type.into(),
            name: Some(name.into()),
        })
    }

    /// A resource link with only a URI and a name; add the rest with [`ResourceLinkPart`]'s
    /// builder methods through [`Part::resource_link_with`].
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Part::ResourceLink(ResourceLinkPart::new(uri, name))
    }

    /// A resource link built in full.
    pub fn resource_link_with(link: ResourceLinkPart) -> Self {
        Part::ResourceLink(link)
    }

    /// An embedded text resource.
    pub fn embedded_text(
        uri: impl Into<String>,
        mime_type: Option<String>,
        text: impl Into<String>,
    ) -> Self {
        Part::EmbeddedResource(EmbeddedResourcePart {
            uri: uri.into(),
            mime_type,
            contents: ResourceContents::Text(text.into()),
        })
    }

    /// An embedded binary resource.
    pub fn embedded_blob(
        uri: impl Into<String>,
        mime_type: Option<String>,
        blob: impl Into<Vec<u8>>,
    ) -> Self {
        Part::EmbeddedResource(EmbeddedResourcePart {
            uri: uri.into(),
            mime_type,
            contents: ResourceContents::Blob(blob.into()),
        })
    }
}

impl ResourceLinkPart {
    /// A link with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
        }
    }

    /// With a display name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// With a description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With a MIME type.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With a size in bytes.
    pub fn size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }
}

//! Content parts: the closed set of typed pieces a result may carry besides its data, each with
//! an optional audience (who the part is for: the user, the model, or both).

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

/// Who a part is for. Rendered as `annotations.audience` on the part's MCP block; a host that
/// honours it (VS Code) keeps a [`Audience::User`] part from its model, and toolwire never counts
/// such a part toward what a model reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Audience {
    /// The person using the host (`["user"]`): shown, never handed to the model.
    User,
    /// The model (`["assistant"]`).
    Assistant,
    /// Both (`["user", "assistant"]`).
    Both,
}

impl Audience {
    /// The MCP roles, as `annotations.audience` and the v1 form write them.
    pub fn roles(self) -> &'static [&'static str] {
        match self {
            Audience::User => &["user"],
            Audience::Assistant => &["assistant"],
            Audience::Both => &["user", "assistant"],
        }
    }

    /// The audience of a list of MCP roles (in any order, repeats allowed); `None` for an empty
    /// list or a role that is neither `user` nor `assistant`.
    pub fn from_roles<'r>(roles: impl IntoIterator<Item = &'r str>) -> Option<Self> {
        let (mut user, mut assistant) = (false, false);
        for role in roles {
            match role {
                "user" => user = true,
                "assistant" => assistant = true,
                _ => return None,
            }
        }
        match (user, assistant) {
            (true, true) => Some(Audience::Both),
            (true, false) => Some(Audience::User),
            (false, true) => Some(Audience::Assistant),
            (false, false) => None,
        }
    }

    /// Whether a model is meant to read the part.
    pub fn reaches_model(self) -> bool {
        self != Audience::User
    }
}

/// A text part.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextPart {
    /// The text.
    pub text: String,
    /// Who the part is for; `None`: not said.
    pub audience: Option<Audience>,
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
    /// Who the part is for; `None`: not said.
    pub audience: Option<Audience>,
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
    /// Who the part is for; `None`: not said.
    pub audience: Option<Audience>,
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
    /// Who the part is for; `None`: not said.
    pub audience: Option<Audience>,
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
        Part::Text(TextPart { text: text.into(), audience: None })
    }

    /// A binary part without a name.
    pub fn binary(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Part::Binary(BinaryPart {
            data: data.into(),
            mime_type: mime_type.into(),
            name: None,
            audience: None,
        })
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
            audience: None,
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
            audience: None,
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
            audience: None,
        })
    }
}

impl Part {
    /// Who the part is for; `None` when not said.
    pub fn audience(&self) -> Option<Audience> {
        match self {
            Part::Text(part) => part.audience,
            Part::Binary(part) => part.audience,
            Part::ResourceLink(part) => part.audience,
            Part::EmbeddedResource(part) => part.audience,
        }
    }

    /// The part for `audience` (`Audience::User`: shown to the person, kept from the model by
    /// hosts that honour it).
    pub fn for_audience(mut self, audience: Audience) -> Self {
        let slot = match &mut self {
            Part::Text(part) => &mut part.audience,
            Part::Binary(part) => &mut part.audience,
            Part::ResourceLink(part) => &mut part.audience,
            Part::EmbeddedResource(part) => &mut part.audience,
        };
        *slot = Some(audience);
        self
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
            audience: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audiences_read_and_write_their_roles() {
        for audience in [Audience::User, Audience::Assistant, Audience::Both] {
            assert_eq!(Audience::from_roles(audience.roles().iter().copied()), Some(audience));
        }
        assert_eq!(Audience::from_roles(["assistant", "user", "user"]), Some(Audience::Both));
        assert_eq!(Audience::from_roles([]), None);
        assert_eq!(Audience::from_roles(["user", "model"]), None);
        assert!(!Audience::User.reaches_model());
        assert!(Audience::Both.reaches_model() && Audience::Assistant.reaches_model());
    }

    #[test]
    fn every_part_takes_an_audience() {
        let parts = [
            Part::text("t"),
            Part::binary(vec![1u8], "image/png"),
            Part::resource_link("https://x", "x"),
            Part::embedded_text("file:///a", None, "a"),
        ];
        for part in parts {
            assert_eq!(part.audience(), None);
            assert_eq!(part.for_audience(Audience::User).audience(), Some(Audience::User));
        }
    }
}

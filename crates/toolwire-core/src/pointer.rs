//! JSON pointers (RFC 6901) and the [`Violation`] they locate: where a result's data breaks the
//! tool's declared schema, or where a wire document breaks the official schema or toolwire's
//! wire contract.

use std::fmt;

/// `base` with one more reference token, `~` and `/` escaped (`~0`, `~1`).
pub fn push(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            _ => out.push(c),
        }
    }
    out
}

/// `base` with an array index appended.
pub fn push_index(base: &str, index: usize) -> String {
    format!("{base}/{index}")
}

/// One broken rule and where: a JSON pointer into the checked document (`""` for the document
/// itself) and what is wrong there.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer (RFC 6901), e.g. `/structuredContent` or `/content/1/type`; `""` for the
    /// root.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl Violation {
    /// A violation at `path` (a JSON pointer, `""` for the root).
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { path: path.into(), message: message.into() }
    }
}

impl fmt::Display for Violation {
    /// `path: message`; the root is shown as `(root)` so the line never starts with `:`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() { "(root)" } else { &self.path };
        write!(f, "{path}: {}", self.message)
    }
}

impl std::error::Error for Violation {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_escaped() {
        assert_eq!(push("/properties", "a/b~c"), "/properties/a~1b~0c");
        assert_eq!(push_index(&push("", "content"), 2), "/content/2");
        assert_eq!(Violation::new("", "no").to_string(), "(root): no");
    }
}

//! Metadata: the well-known typed fields and the namespaced extensions.

use serde_json::{Map, Value};

use crate::grammar;
use crate::timestamp::Timestamp;

/// Metadata about a result. Every field is optional; extensions hold what the well-known fields
/// do not.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metadata {
    /// Where this page sits in a longer list.
    pub pagination: Option<Pagination>,
    /// True for a preview that changed nothing.
    pub dry_run: Option<bool>,
    /// The size in bytes of a response that did not fit.
    pub response_size: Option<u64>,
    /// The tool call being answered, echoed.
    pub query: Option<Query>,
    /// When the data was produced.
    pub generated_at: Option<Timestamp>,
    /// Until when the result is valid.
    pub expires_at: Option<Timestamp>,
    /// Namespaced values: namespace → key → value.
    pub extensions: Extensions,
}

impl Metadata {
    /// True when no field and no extension is set.
    pub fn is_empty(&self) -> bool {
        self.pagination.is_none()
            && self.dry_run.is_none()
            && self.response_size.is_none()
            && self.query.is_none()
            && self.generated_at.is_none()
            && self.expires_at.is_none()
            && self.extensions.is_empty()
    }
}

/// Pagination of a list result.
#[non_exhaustive]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pagination {
    /// Items in the whole list.
    pub total: Option<u64>,
    /// This page's number, from 1.
    pub page: Option<u64>,
    /// Items per page.
    pub limit: Option<u64>,
    /// The cursor for the next page.
    pub next_cursor: Option<String>,
}

impl Pagination {
    /// Pagination with a total, a page and a limit.
    pub fn new(total: u64, page: u64, limit: u64) -> Self {
        Self { total: Some(total), page: Some(page), limit: Some(limit), next_cursor: None }
    }

    /// With the cursor of the next page.
    pub fn next_cursor(mut self, cursor: impl Into<String>) -> Self {
        self.next_cursor = Some(cursor.into());
        self
    }
}

/// The tool call a result answers.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// The tool's name.
    pub tool: String,
    /// The arguments it was called with.
    pub arguments: Value,
}

impl Query {
    /// A query echo.
    pub fn new(tool: impl Into<String>, arguments: Value) -> Self {
        Self { tool: tool.into(), arguments }
    }
}

/// Namespaced extension values, in insertion order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extensions {
    namespaces: Map<String, Value>,
}

/// Why a namespace or key is refused by a strict constructor.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtensionError {
    /// The namespace is not one or more dot-separated `_meta` labels.
    #[error(
        "extension namespace `{0}` is not one or more dot-separated labels (letters, digits, `-`; each starting with a letter)"
    )]
    MalformedNamespace(String),
    /// The namespace is reserved (MCP's, toolwire's own `legacy`, or the configured prefix).
    #[error("extension namespace `{0}` is reserved")]
    ReservedNamespace(String),
    /// The key is not a `_meta` name.
    #[error("extension key `{key}` in namespace `{namespace}` breaks the `_meta` name grammar")]
    MalformedKey {
        /// The namespace.
        namespace: String,
        /// The key.
        key: String,
    },
}

/// Checks a namespace for a strict constructor: well-formed, and neither MCP's nor `legacy` nor
/// one of `reserved` (toolwire's default prefix is always reserved).
pub fn check_namespace(namespace: &str, reserved: &[&str]) -> Result<(), ExtensionError> {
    if !grammar::is_prefix(namespace) {
        return Err(ExtensionError::MalformedNamespace(namespace.to_owned()));
    }
    if grammar::is_mcp_reserved(namespace)
        || namespace == grammar::LEGACY_NAMESPACE
        || namespace == grammar::DEFAULT_PREFIX
        || reserved.contains(&namespace)
    {
        return Err(ExtensionError::ReservedNamespace(namespace.to_owned()));
    }
    Ok(())
}

impl Extensions {
    /// True when there are no extension values.
    pub fn is_empty(&self) -> bool {
        self.namespaces.is_empty()
    }

    /// The value under `namespace` / `key`.
    pub fn get(&self, namespace: &str, key: &str) -> Option<&Value> {
        self.namespaces.get(namespace)?.as_object()?.get(key)
    }

    /// Every `(namespace, key, value)` in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.namespaces.iter().flat_map(|(ns, keys)| {
            keys.as_object()
                .into_iter()
                .flat_map(move |keys| keys.iter().map(move |(k, v)| (ns.as_str(), k.as_str(), v)))
        })
    }

    /// Every namespace with its keys, in insertion order.
    pub fn namespaces(&self) -> impl Iterator<Item = (&str, &Map<String, Value>)> {
        self.namespaces.iter().filter_map(|(ns, keys)| keys.as_object().map(|k| (ns.as_str(), k)))
    }

    /// Sets a value after checking the namespace and the key (strict constructors).
    pub fn insert_checked(
        &mut self,
        namespace: &str,
        key: &str,
        value: Value,
        reserved: &[&str],
    ) -> Result<(), ExtensionError> {
        check_namespace(namespace, reserved)?;
        if !grammar::is_name(key) {
            return Err(ExtensionError::MalformedKey {
                namespace: namespace.to_owned(),
                key: key.to_owned(),
            });
        }
        self.insert_unchecked(namespace, key, value);
        Ok(())
    }

    /// Sets a value without checks: for the parsers, which have already routed anything outside
    /// the grammar to `legacy/extra`.
    pub(crate) fn insert_unchecked(&mut self, namespace: &str, key: &str, value: Value) {
        let entry = self
            .namespaces
            .entry(namespace.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(keys) = entry {
            keys.insert(key.to_owned(), value);
        }
    }

    /// Merges `{original_key: value}` into the `legacy/extra` object.
    pub(crate) fn insert_legacy_extra(&mut self, original_key: &str, value: Value) {
        let entry = self
            .namespaces
            .entry(grammar::LEGACY_NAMESPACE.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(keys) = entry {
            let extra = keys.entry("extra").or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(extra) = extra {
                extra.insert(original_key.to_owned(), value);
            }
        }
    }
}

//! The protocol-agnostic result object every tool returns, its constructors and its builder.

use serde::Serialize;
use serde_json::Value;

use crate::data::{Data, PreparedData};
use crate::error::ToolError;
use crate::input::InputRequired;
use crate::link::StoredLink;
use crate::meta::{ExtensionError, Extensions, Metadata, Pagination, Query};
use crate::part::Part;
use crate::timestamp::Timestamp;

/// Where a result came from.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Provenance {
    /// Built by a tool through the Rust API or parsed from the v1 form.
    #[default]
    Native,
    /// Parsed from a legacy `{"success": …}` envelope; the raw string is repeated byte for byte
    /// in the compat phase.
    LegacyEnvelope(String),
    /// A string that is not an envelope; it stays one unchanged text block everywhere.
    Passthrough(String),
}

/// A tool's result: a success, a failure or input required (DESIGN §10), every part optional.
/// Immutable once built.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub(crate) data: Option<Data>,
    pub(crate) summary: Option<String>,
    pub(crate) error: Option<ToolError>,
    pub(crate) input_required: Option<InputRequired>,
    pub(crate) parts: Vec<Part>,
    pub(crate) stored_links: Vec<StoredLink>,
    pub(crate) meta: Metadata,
    pub(crate) provenance: Provenance,
}

/// Why a builder refused to build.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A success was given an error.
    #[error("a success cannot carry an error")]
    SuccessWithError,
    /// An input-required result was given an error or data (it is neither a success nor a
    /// failure).
    #[error("an input-required result cannot carry {0}")]
    InputRequiredWith(&'static str),
    /// An extension namespace or key was refused.
    #[error(transparent)]
    Extension(#[from] ExtensionError),
}

impl ToolResult {
    /// A success carrying `data` (`null` means no data).
    pub fn success(data: Value) -> Self {
        Self::from_parts(Data::from_value(data), None)
    }

    /// A success carrying prepared data (`null` means no data): its text is not written again.
    pub fn success_prepared(data: PreparedData) -> Self {
        Self::from_parts(data.into_data(), None)
    }

    /// A success without data.
    pub fn empty() -> Self {
        Self::from_parts(None, None)
    }

    /// A success carrying any serializable value as its data.
    pub fn from_serialize<T: Serialize + ?Sized>(data: &T) -> Result<Self, serde_json::Error> {
        Ok(Self::success(serde_json::to_value(data)?))
    }

    /// A failure.
    pub fn failure(error: ToolError) -> Self {
        Self::from_parts(None, Some(error))
    }

    /// The outcome "input required": the tool asks the client for `input` before it can finish.
    pub fn input_required(input: InputRequired) -> Self {
        let mut result = Self::from_parts(None, None);
        result.input_required = Some(input);
        result
    }

    /// A builder for a success; call [`ToolResultBuilder::error`] to make it a failure.
    pub fn builder() -> ToolResultBuilder {
        ToolResultBuilder::default()
    }

    /// A builder holding everything this result holds (provenance becomes native).
    pub fn to_builder(&self) -> ToolResultBuilder {
        ToolResultBuilder {
            result: Self { provenance: Provenance::Native, ..self.clone() },
            reserved: Vec::new(),
            problem: None,
            success_only: false,
        }
    }

    pub(crate) fn from_parts(data: Option<Data>, error: Option<ToolError>) -> Self {
        Self {
            data,
            summary: None,
            error,
            input_required: None,
            parts: Vec::new(),
            stored_links: Vec::new(),
            meta: Metadata::default(),
            provenance: Provenance::Native,
        }
    }

    /// True for a success.
    pub fn is_success(&self) -> bool {
        self.error.is_none() && self.input_required.is_none()
    }

    /// True when the tool asks for input first.
    pub fn is_input_required(&self) -> bool {
        self.input_required.is_some()
    }

    /// What the tool asks for, when it asks for input first.
    pub fn input_required_requests(&self) -> Option<&InputRequired> {
        self.input_required.as_ref()
    }

    /// The failure `input_required` that stands for this result where its requests cannot be
    /// asked (DESIGN §10); any other result is returned as it is.
    pub fn down_levelled(&self) -> std::borrow::Cow<'_, ToolResult> {
        match &self.input_required {
            None => std::borrow::Cow::Borrowed(self),
            Some(input) => {
                let mut failure = self.clone();
                failure.error = Some(input.to_failure());
                failure.input_required = None;
                std::borrow::Cow::Owned(failure)
            }
        }
    }

    /// True for a failure.
    pub fn is_failure(&self) -> bool {
        self.error.is_some()
    }

    /// The data, when there is any (never `null`). Data parsed from text is held as text; its
    /// JSON tree is built on the first call and kept (see [`ToolResult::data_json`]).
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref().map(Data::tree)
    }

    /// The data as compact JSON text, exactly as every wire format writes it, without building
    /// a tree.
    pub fn data_json(&self) -> Option<&str> {
        self.data.as_ref().map(Data::json)
    }

    /// The summary.
    pub fn summary(&self) -> Option<&str> {
        self.summary.as_deref()
    }

    /// The error (exactly on failure).
    pub fn error(&self) -> Option<&ToolError> {
        self.error.as_ref()
    }

    /// The content parts, in order.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// The stored links, in order.
    pub fn stored_links(&self) -> &[StoredLink] {
        &self.stored_links
    }

    /// The metadata.
    pub fn meta(&self) -> &Metadata {
        &self.meta
    }

    /// Where the result came from.
    pub fn provenance(&self) -> &Provenance {
        &self.provenance
    }

    /// True for a result that only repeats a non-envelope string.
    pub fn is_passthrough(&self) -> bool {
        matches!(self.provenance, Provenance::Passthrough(_))
    }
}

/// The infallible path: what can be added to a result without any check (everything but an
/// error, input required and extensions, which [`ToolResult::builder`] checks).
impl ToolResult {
    /// The same result with a summary.
    pub fn with_summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }

    /// Adds one more extension value, refused (and nothing added) as
    /// [`ToolResultBuilder::extension`] refuses a reserved or malformed namespace or key.
    pub fn add_extension(
        &mut self,
        namespace: &str,
        key: &str,
        value: Value,
    ) -> Result<(), BuildError> {
        self.meta
            .extensions
            .insert_checked(namespace, key, value, &[])
            .map_err(BuildError::Extension)
    }

    /// The same result with one more part.
    pub fn with_part(mut self, part: Part) -> Self {
        self.parts.push(part);
        self
    }

    /// The same result with one more stored link.
    pub fn with_stored_link(mut self, link: StoredLink) -> Self {
        self.stored_links.push(link);
        self
    }

    /// The same result with a pagination.
    pub fn with_pagination(mut self, pagination: Pagination) -> Self {
        self.meta.pagination = Some(pagination);
        self
    }

    /// The same result marked as a dry run (a preview that changed nothing) or a committed
    /// change.
    pub fn with_dry_run(mut self, dry_run: bool) -> Self {
        self.meta.dry_run = Some(dry_run);
        self
    }

    /// The same result with the size of a response that did not fit.
    pub fn with_response_size(mut self, size: u64) -> Self {
        self.meta.response_size = Some(size);
        self
    }

    /// The same result echoing the tool call.
    pub fn with_query(mut self, query: Query) -> Self {
        self.meta.query = Some(query);
        self
    }

    /// The same result with when its data was produced (otherwise the mapper sets it).
    pub fn with_generated_at(mut self, at: Timestamp) -> Self {
        self.meta.generated_at = Some(at);
        self
    }

    /// The same result with until when it is valid.
    pub fn with_expires_at(mut self, at: Timestamp) -> Self {
        self.meta.expires_at = Some(at);
        self
    }
}

/// A failure is a result, so `?` on a [`ToolError`] works in a tool returning
/// `Result<ToolResult, ToolError>`.
impl From<ToolError> for ToolResult {
    fn from(error: ToolError) -> Self {
        Self::failure(error)
    }
}

/// Why a tool produced no result at all (a bug, a broken invariant, data that does not
/// serialize): a server answers it with an internal error, never with this text.
pub type InternalError = Box<dyn std::error::Error + Send + Sync>;

/// What a tool function may return: a [`ToolResult`], `Result<ToolResult, ToolError>` (so `?`
/// works on a [`ToolError`]), or `Result<T, ToolError>` whose success value becomes the data.
pub trait IntoToolResult {
    /// The result, or an internal error when the value cannot be serialized.
    fn into_tool_result(self) -> Result<ToolResult, InternalError>;
}

impl IntoToolResult for ToolResult {
    fn into_tool_result(self) -> Result<ToolResult, InternalError> {
        Ok(self)
    }
}

impl IntoToolResult for Result<ToolResult, ToolError> {
    fn into_tool_result(self) -> Result<ToolResult, InternalError> {
        Ok(self.unwrap_or_else(ToolResult::failure))
    }
}

impl<T: Serialize> IntoToolResult for Result<T, ToolError> {
    fn into_tool_result(self) -> Result<ToolResult, InternalError> {
        match self {
            Ok(value) => Ok(ToolResult::from_serialize(&value)?),
            Err(error) => Ok(ToolResult::failure(error)),
        }
    }
}

/// Builds a [`ToolResult`], refusing what a strict constructor must refuse. Where nothing can
/// be refused (data, a summary, parts, links, the typed metadata), the `with_*` methods of
/// [`ToolResult`] build without a `Result`.
#[derive(Debug, Clone)]
pub struct ToolResultBuilder {
    result: ToolResult,
    reserved: Vec<String>,
    problem: Option<BuildError>,
    success_only: bool,
}

impl Default for ToolResultBuilder {
    fn default() -> Self {
        Self {
            result: ToolResult::from_parts(None, None),
            reserved: Vec::new(),
            problem: None,
            success_only: false,
        }
    }
}

impl ToolResultBuilder {
    /// A builder that refuses an error: [`ToolResultBuilder::build`] fails if one is set.
    pub fn success() -> Self {
        Self { success_only: true, ..Self::default() }
    }

    /// Sets the data (`null` means no data).
    pub fn data(mut self, data: Value) -> Self {
        self.result.data = Data::from_value(data);
        self
    }

    /// Sets the summary.
    pub fn summary(mut self, summary: impl Into<String>) -> Self {
        self.result = self.result.with_summary(summary);
        self
    }

    /// Makes the result "input required".
    pub fn input_required(mut self, input: InputRequired) -> Self {
        self.result.input_required = Some(input);
        self
    }

    /// Makes the result a failure.
    pub fn error(mut self, error: ToolError) -> Self {
        self.result.error = Some(error);
        self
    }

    /// Adds a part.
    pub fn part(mut self, part: Part) -> Self {
        self.result = self.result.with_part(part);
        self
    }

    /// Adds a stored link.
    pub fn stored_link(mut self, link: StoredLink) -> Self {
        self.result = self.result.with_stored_link(link);
        self
    }

    /// Sets the pagination.
    pub fn pagination(mut self, pagination: Pagination) -> Self {
        self.result = self.result.with_pagination(pagination);
        self
    }

    /// Marks a dry run (a preview that changed nothing) or a committed change.
    pub fn dry_run(mut self, dry_run: bool) -> Self {
        self.result = self.result.with_dry_run(dry_run);
        self
    }

    /// Sets the size of a response that did not fit.
    pub fn response_size(mut self, size: u64) -> Self {
        self.result = self.result.with_response_size(size);
        self
    }

    /// Echoes the tool call.
    pub fn query(mut self, query: Query) -> Self {
        self.result = self.result.with_query(query);
        self
    }

    /// Sets when the data was produced (data from an index, say); otherwise the mapper sets it.
    pub fn generated_at(mut self, at: Timestamp) -> Self {
        self.result = self.result.with_generated_at(at);
        self
    }

    /// Sets until when the result is valid.
    pub fn expires_at(mut self, at: Timestamp) -> Self {
        self.result = self.result.with_expires_at(at);
        self
    }

    /// Reserves one more namespace (a server's configured `_meta` prefix).
    pub fn reserve_namespace(mut self, namespace: impl Into<String>) -> Self {
        self.reserved.push(namespace.into());
        self
    }

    /// Adds an extension value; a reserved or malformed namespace or a key outside the `_meta`
    /// name grammar makes [`ToolResultBuilder::build`] fail.
    pub fn extension(mut self, namespace: &str, key: &str, value: Value) -> Self {
        let reserved: Vec<&str> = self.reserved.iter().map(String::as_str).collect();
        if let Err(problem) =
            self.result.meta.extensions.insert_checked(namespace, key, value, &reserved)
        {
            self.problem.get_or_insert(BuildError::Extension(problem));
        }
        self
    }

    /// Replaces all extensions at once (already checked elsewhere, e.g. by another builder).
    pub fn extensions(mut self, extensions: Extensions) -> Self {
        self.result.meta.extensions = extensions;
        self
    }

    /// The result, or the first thing that was refused.
    pub fn build(self) -> Result<ToolResult, BuildError> {
        if let Some(problem) = self.problem {
            return Err(problem);
        }
        if self.success_only && self.result.error.is_some() {
            return Err(BuildError::SuccessWithError);
        }
        if self.result.input_required.is_some() {
            if self.result.error.is_some() {
                return Err(BuildError::InputRequiredWith("an error"));
            }
            if self.result.data.is_some() {
                return Err(BuildError::InputRequiredWith("data"));
            }
            if self.success_only {
                return Err(BuildError::InputRequiredWith("the success-only builder"));
            }
        }
        let reserved: Vec<&str> = self.reserved.iter().map(String::as_str).collect();
        for (namespace, _) in self.result.meta.extensions.namespaces() {
            crate::meta::check_namespace(namespace, &reserved)?;
        }
        Ok(self.result)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn null_data_is_no_data() {
        assert_eq!(ToolResult::success(Value::Null).data(), None);
        assert_eq!(
            ToolResult::builder().data(Value::Null).build().ok().and_then(|r| r.data().cloned()),
            None
        );
    }

    #[test]
    fn an_added_extension_is_refused_as_the_builder_refuses_it() {
        let mut result = ToolResult::success(json!(1));
        assert!(result.add_extension("dev.toolwire", "k", json!(1)).is_err());
        assert!(result.add_extension("upstream", "bad key", json!(1)).is_err());
        assert!(result.meta().extensions.namespaces().next().is_none(), "nothing added");
        assert!(result.add_extension("upstream", "meta", json!({"a": 1})).is_ok());
        assert_eq!(result.meta().extensions.get("upstream", "meta"), Some(&json!({"a": 1})));
    }

    #[test]
    fn builder_refuses_reserved_namespaces() {
        for ns in ["io.modelcontextprotocol", "mcp.dev", "legacy", "dev.toolwire"] {
            let built = ToolResult::builder().extension(ns, "k", json!(1)).build();
            assert_eq!(
                built,
                Err(BuildError::Extension(ExtensionError::ReservedNamespace(ns.into())))
            );
        }
        let custom = ToolResult::builder()
            .reserve_namespace("com.acme")
            .extension("com.acme", "k", json!(1))
            .build();
        assert_eq!(
            custom,
            Err(BuildError::Extension(ExtensionError::ReservedNamespace("com.acme".into())))
        );
    }

    #[test]
    fn builder_refuses_malformed_namespaces_and_keys() {
        assert_eq!(
            ToolResult::builder().extension("com..acme", "k", json!(1)).build(),
            Err(BuildError::Extension(ExtensionError::MalformedNamespace("com..acme".into())))
        );
        assert_eq!(
            ToolResult::builder().extension("com.acme", "_k", json!(1)).build(),
            Err(BuildError::Extension(ExtensionError::MalformedKey {
                namespace: "com.acme".into(),
                key: "_k".into()
            }))
        );
    }

    #[test]
    fn success_builder_refuses_an_error() {
        let built =
            ToolResultBuilder::success().error(ToolError::new(ErrorCode::NotFound, "gone")).build();
        assert_eq!(built, Err(BuildError::SuccessWithError));
    }

    #[test]
    fn input_required_is_neither_success_nor_failure() {
        let input = crate::input::InputRequired::new()
            .request("ok", crate::input::confirm_request("Go on?"));
        let result = ToolResult::input_required(input.clone());
        assert!(!result.is_success() && !result.is_failure() && result.is_input_required());
        let down = result.down_levelled();
        assert_eq!(down.error().map(|e| e.code.as_str()), Some("input_required"));
        assert!(!down.is_input_required());
        assert_eq!(
            ToolResult::builder().data(json!(1)).input_required(input.clone()).build(),
            Err(BuildError::InputRequiredWith("data"))
        );
        assert_eq!(
            ToolResult::builder()
                .error(ToolError::new(ErrorCode::Conflict, "x"))
                .input_required(input)
                .build(),
            Err(BuildError::InputRequiredWith("an error"))
        );
    }

    #[test]
    fn builder_keeps_everything() {
        let built = ToolResult::builder()
            .data(json!({"id": 7}))
            .summary("1 product")
            .dry_run(true)
            .extension("com.acme.payments", "ledger", json!("eu-1"))
            .build();
        let Ok(result) = built else { panic!("refused: {built:?}") };
        assert_eq!(result.data(), Some(&json!({"id": 7})));
        assert_eq!(result.summary(), Some("1 product"));
        assert_eq!(result.meta().dry_run, Some(true));
        assert_eq!(
            result.meta().extensions.get("com.acme.payments", "ledger"),
            Some(&json!("eu-1"))
        );
    }

    #[test]
    fn the_infallible_path_builds_what_the_builder_builds() {
        let pagination = Pagination { total: Some(3), ..Pagination::default() };
        let direct = ToolResult::success(json!([1, 2, 3]))
            .with_summary("3 ids")
            .with_part(Part::text("three"))
            .with_pagination(pagination.clone())
            .with_dry_run(false);
        let built = ToolResult::builder()
            .data(json!([1, 2, 3]))
            .summary("3 ids")
            .part(Part::text("three"))
            .pagination(pagination)
            .dry_run(false)
            .build();
        assert_eq!(built, Ok(direct));
    }

    #[test]
    fn a_tool_error_becomes_a_failure() {
        fn lookup(id: u64) -> Result<ToolResult, ToolError> {
            let found = (id == 7)
                .then_some("seven")
                .ok_or_else(|| ToolError::new(ErrorCode::NotFound, format!("No product {id}.")))?;
            Ok(ToolResult::success(json!(found)))
        }
        let missing = lookup(8).into_tool_result().map_err(|e| e.to_string());
        assert_eq!(
            missing,
            Ok(ToolResult::failure(ToolError::new(ErrorCode::NotFound, "No product 8.")))
        );
        let found = lookup(7).into_tool_result().map_err(|e| e.to_string());
        assert_eq!(found, Ok(ToolResult::success(json!("seven"))));
        let typed: Result<u8, ToolError> = Ok(3);
        assert_eq!(typed.into_tool_result().ok().and_then(|r| r.data().cloned()), Some(json!(3)));
        assert_eq!(
            ToolResult::from(ToolError::new(ErrorCode::Conflict, "x")).error().map(|e| &e.code),
            Some(&ErrorCode::Conflict)
        );
    }
}

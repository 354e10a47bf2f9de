//! An MCP result rendered with its tool result kept, for an SDK adapter.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::lowering::{McpSettings, lower};
use super::shapes::{ErrorWrapper, McpResult, StructuredContent};
use crate::data::Data;
use crate::identity::Names;
use crate::json_text::to_json_string;
use crate::layout::{Layout, Plan};
use crate::result::ToolResult;
use crate::target::McpRevision;

/// An MCP result rendered with its tool result kept ([`OutputMapper::render_owned`]): the result
/// and its layout, from which the typed form ([`McpOutput::result`]) is built on demand. It
/// serializes to the exact wire text; an SDK adapter reads it field by field instead, and takes
/// `structuredContent` as a JSON value from the result's own data
/// ([`McpOutput::into_structured_content`]), so nothing is parsed back.
///
/// [`OutputMapper::render_owned`]: crate::mapper::OutputMapper::render_owned
#[derive(Debug, Clone)]
pub struct McpOutput {
    result: ToolResult,
    plan: Plan,
    names: Arc<Names>,
    reads_links: bool,
    revision: McpRevision,
    request_state: Option<String>,
    /// The compat block's envelope, when it was written at render ([`McpResult::measure`]).
    envelope: Option<String>,
}

impl McpOutput {
    /// Keeps `result` with its `plan` for `revision`, and the compat block's `envelope` text
    /// where it was written already.
    pub(crate) fn new(
        result: ToolResult,
        plan: Plan,
        revision: McpRevision,
        request_state: Option<&str>,
        settings: &McpSettings<'_>,
        envelope: Option<String>,
    ) -> Self {
        Self {
            result,
            plan,
            names: Arc::clone(settings.names),
            reads_links: settings.reads_links,
            revision,
            request_state: request_state.map(str::to_owned),
            envelope,
        }
    }

    /// The revision it was rendered for.
    pub fn revision(&self) -> McpRevision {
        self.revision
    }

    /// The tool result it was rendered from (after the mapper's replacements: a schema
    /// failure, a down-levelled input request, an offload stub).
    pub fn tool_result(&self) -> &ToolResult {
        &self.result
    }

    /// The typed result, borrowing this output.
    pub fn result(&self) -> McpResult<'_> {
        let settings = McpSettings { names: &self.names, reads_links: self.reads_links };
        let result = lower(
            Layout::new(&self.result, &self.plan),
            self.revision,
            self.request_state.as_deref(),
            &settings,
        );
        match &self.envelope {
            Some(text) => result.with_envelope(text),
            None => result,
        }
    }

    /// The exact compact wire text.
    pub fn to_json(&self) -> String {
        to_json_string(&self.result())
    }

    /// `structuredContent` as a JSON value: the result's data moved out (wrapped as
    /// `{"result": …}` where the revision needs it), the error or the envelope built from the
    /// result. `None` when the result sends none (or is input required).
    pub fn into_structured_content(mut self) -> Option<Value> {
        let kind = match self.result() {
            McpResult::Complete(result) => result.structured_content.map(StructuredKind::of),
            McpResult::InputRequired(_) => None,
        }?;
        match kind {
            StructuredKind::Data => self.result.data.take().map(Data::into_tree),
            StructuredKind::Wrapped => {
                let data = self.result.data.take()?.into_tree();
                Some(Value::Object(Map::from_iter([("result".to_owned(), data)])))
            }
            StructuredKind::Error => {
                let error = self.result.error()?;
                serde_json::to_value(ErrorWrapper::full(error)).ok()
            }
            StructuredKind::Envelope => {
                let layout = Layout::new(&self.result, &self.plan);
                Some(crate::schema::envelope_structured(layout.result(), layout.input_schema()))
            }
        }
    }
}

/// Which `structuredContent` was chosen, without its borrow.
#[derive(Debug, Clone, Copy)]
enum StructuredKind {
    Data,
    Wrapped,
    Error,
    Envelope,
}

impl StructuredKind {
    fn of(structured: StructuredContent<'_>) -> Self {
        match structured {
            StructuredContent::Data(_) => Self::Data,
            StructuredContent::Wrapped(_) => Self::Wrapped,
            StructuredContent::Error(_) => Self::Error,
            StructuredContent::Envelope(_) => Self::Envelope,
        }
    }
}

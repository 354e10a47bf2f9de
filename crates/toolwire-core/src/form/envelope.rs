//! The envelope shape of `structuredContent` (DESIGN §5): the one struct the MCP lowering writes
//! and [`envelope_structured`](crate::envelope_structured) turns into a value.

use serde::Serialize;
use serde_json::Value;

use super::EmptyObject;
use crate::error::ErrorCode;
use crate::result::ToolResult;

/// The envelope's `structuredContent` (DESIGN §5, the envelope shape): `success`, `message` (the
/// summary on success, `""` when none; the error message on failure), `data` (the data on
/// success, `{}` on failure or without data), then `input_schema` (the tool's input schema)
/// after an `invalid_arguments` failure. `D` is the data's form: raw JSON on the wire, a
/// `Value` for [`envelope_structured`](crate::schema::envelope_structured).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EnvelopeStructured<'a, D> {
    /// True on success.
    pub success: bool,
    /// The summary or the error message.
    pub message: &'a str,
    /// The data, or `{}`.
    pub data: EnvelopeData<D>,
    /// The tool's input schema after an `invalid_arguments` failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<&'a Value>,
}

/// The envelope's `data`: the data, or `{}`.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub enum EnvelopeData<D> {
    /// The data.
    Data(D),
    /// `{}`.
    Empty(EmptyObject),
}

impl<'a, D> EnvelopeStructured<'a, D> {
    /// The envelope of `result` whose data (on success) is `data`.
    pub(crate) fn new(
        result: &'a ToolResult,
        data: Option<D>,
        input_schema: Option<&'a Value>,
    ) -> Self {
        let empty = EnvelopeData::Empty(EmptyObject);
        match result.error() {
            None => Self {
                // An input-required result (never sent with this shape) is no success.
                success: result.is_success(),
                message: result.summary().unwrap_or_default(),
                data: data.map_or(empty, EnvelopeData::Data),
                input_schema: None,
            },
            Some(error) => Self {
                success: false,
                message: &error.message,
                data: empty,
                input_schema: input_schema.filter(|_| error.code == ErrorCode::InvalidArguments),
            },
        }
    }
}

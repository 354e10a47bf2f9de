//! The target-independent layout of one render: the ordered abstract blocks for the phase and
//! shape, and what goes into the structured slot. Built once per render; every lowering reads
//! it. The data is the result's own compact text (a [`RawValue`]): every copy a format needs is
//! taken from it, and nothing serializes it again.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::data::Data;
use crate::error::ErrorCode;
use crate::result::{Provenance, ToolResult};
use crate::target::{Phase, Shape};
use crate::timestamp::Timestamp;

/// One abstract content block, in the order the MCP lowering emits them.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Block {
    /// Compat phase: the legacy envelope text (the raw string of a parsed legacy envelope).
    Envelope,
    /// A passthrough result: its raw string, alone.
    Passthrough,
    /// Spec phase: the data as compact JSON text.
    Data,
    /// Spec phase: the summary.
    Summary,
    /// Spec phase, failure: the error message.
    ErrorMessage,
    /// Spec phase, failure: `{"error":{"code":…,"details":…}}` as JSON text.
    ErrorJson,
    /// Spec phase: the metadata without the timestamps, as `{"_meta":{…}}` text.
    Meta,
    /// The content part at this index.
    Part(usize),
    /// The stored link at this index.
    StoredLink(usize),
    /// Spec phase, a result with nothing at all: the text `null`.
    Null,
}

/// What the declared output schema says about the data, as far as wrapping goes.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DataSchema {
    /// The tool declares no output schema.
    None,
    /// The declared schema's root is `"type": "object"`.
    ObjectRoot,
    /// Any other declared root (array, scalar, `oneOf`, …).
    OtherRoot,
}

/// What goes into the structured slot (`structuredContent`), before a revision's capability
/// decides whether and how it is sent.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Structured {
    /// Nothing.
    Absent,
    /// The data, wrapped as the declared schema requires.
    Data(DataSchema),
    /// `{"error":{"code","message","details"?}}` (a failure of a tool without a schema).
    Error,
    /// The envelope shape `{"success","message","data"}`.
    Envelope,
}

/// What the mapper knows about the tool's declared output, reduced to what the layout needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Declared {
    /// The structured shape.
    pub(crate) shape: Shape,
    /// What the declared schema says about wrapping.
    pub(crate) schema: DataSchema,
}

/// The layout of one render: the result and what was decided about it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout<'r> {
    result: &'r ToolResult,
    plan: &'r Plan,
}

/// What a layout decided, owned, so that a rendered result can keep it beside the result it was
/// made for (an MCP output's typed form).
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    generated_at: Timestamp,
    /// The tool's input schema, kept only where the lowering writes it (the envelope of an
    /// `invalid_arguments` failure).
    input_schema: Option<Value>,
    blocks: Vec<Block>,
    structured: Structured,
    /// The data goes only as `structuredContent`: its text copies (the spec phase's data block,
    /// the compat envelope's `data`) are left out, for a host that reads both channels.
    data_in_structured: bool,
}

impl Plan {
    /// Lays out `result` for `phase`; `generated_at` is the result's own timestamp or the
    /// render time.
    pub(crate) fn new(
        result: &ToolResult,
        phase: Phase,
        declared: Declared,
        generated_at: Timestamp,
        input_schema: Option<&Value>,
    ) -> Self {
        let (blocks, structured) = match result.provenance() {
            Provenance::Passthrough(_) => (vec![Block::Passthrough], Structured::Absent),
            _ => (blocks(result, phase), structured(result, declared)),
        };
        let input_schema = input_schema
            .filter(|_| {
                structured == Structured::Envelope
                    && result.error().is_some_and(|e| e.code == ErrorCode::InvalidArguments)
            })
            .cloned();
        Self { generated_at, input_schema, blocks, structured, data_in_structured: false }
    }

    /// Leaves the text copies of the data out: the host reads it from `structuredContent`,
    /// which holds it.
    pub(crate) fn data_in_structured(&mut self) {
        self.data_in_structured = true;
    }

    /// Drops the structured slot (a warn-mode schema mismatch).
    pub(crate) fn without_structured(&mut self) {
        self.structured = Structured::Absent;
    }
}

impl<'r> Layout<'r> {
    /// The layout `plan` made for `result`.
    pub(crate) fn new(result: &'r ToolResult, plan: &'r Plan) -> Self {
        Self { result, plan }
    }

    /// The blocks, in wire order.
    pub(crate) fn blocks(&self) -> &'r [Block] {
        &self.plan.blocks
    }

    /// The structured slot.
    pub(crate) fn structured(&self) -> Structured {
        self.plan.structured
    }

    /// The result being rendered.
    pub(crate) fn result(&self) -> &'r ToolResult {
        self.result
    }

    /// The data as compact JSON text (the result's own, never re-serialized).
    pub(crate) fn data_json(&self) -> Option<&'r str> {
        self.result.data_json()
    }

    /// The data as raw JSON (the result's own).
    pub(crate) fn data_raw(&self) -> Option<&'r RawValue> {
        self.result.data.as_ref().map(Data::raw)
    }

    /// Whether the data goes only as `structuredContent` ([`Plan::data_in_structured`]).
    pub(crate) fn data_elsewhere(&self) -> bool {
        self.plan.data_in_structured
    }

    /// The generation time every lowering writes.
    pub(crate) fn generated_at(&self) -> Timestamp {
        self.plan.generated_at
    }

    /// The tool's input schema, where the envelope of an `invalid_arguments` failure carries it.
    pub(crate) fn input_schema(&self) -> Option<&'r Value> {
        self.plan.input_schema.as_ref()
    }

    /// The raw string of a passthrough result.
    pub(crate) fn passthrough(&self) -> Option<&'r str> {
        match self.result.provenance() {
            Provenance::Passthrough(raw) => Some(raw),
            _ => None,
        }
    }
}

fn blocks(result: &ToolResult, phase: Phase) -> Vec<Block> {
    let parts = (0..result.parts().len()).map(Block::Part);
    let links = (0..result.stored_links().len()).map(Block::StoredLink);
    match phase {
        Phase::Compat => {
            let mut blocks = vec![Block::Envelope];
            // A legacy failure whose string names no code (the code was read from its message)
            // carries it as the spec phase does, so that every value of the structured error
            // is in a text block.
            if let (Provenance::LegacyEnvelope(raw), Some(error)) =
                (result.provenance(), result.error())
                && !raw.contains(&format!("\"{}\"", error.code.as_str()))
            {
                blocks.push(Block::ErrorJson);
            }
            blocks.extend(parts);
            blocks.extend(links);
            blocks
        }
        Phase::Spec => {
            let mut blocks = Vec::with_capacity(6 + result.parts().len());
            if result.data_json().is_some() {
                blocks.push(Block::Data);
            }
            if result.summary().is_some() {
                blocks.push(Block::Summary);
            }
            if result.is_failure() {
                blocks.push(Block::ErrorMessage);
                blocks.push(Block::ErrorJson);
            }
            if has_untimed_meta(result) {
                blocks.push(Block::Meta);
            }
            blocks.extend(parts);
            blocks.extend(links);
            if blocks.is_empty() {
                blocks.push(Block::Null);
            }
            blocks
        }
    }
}

/// True when the metadata holds anything besides the timestamps.
fn has_untimed_meta(result: &ToolResult) -> bool {
    let meta = result.meta();
    meta.dry_run.is_some()
        || meta.pagination.is_some()
        || meta.response_size.is_some()
        || meta.query.is_some()
        || !meta.extensions.is_empty()
}

fn structured(result: &ToolResult, declared: Declared) -> Structured {
    if declared.shape == Shape::Envelope {
        return Structured::Envelope;
    }
    match (result.is_failure(), result.data_json().is_some(), declared.schema) {
        (true, _, DataSchema::None) => Structured::Error,
        (true, _, _) => Structured::Absent,
        (false, true, schema) => Structured::Data(schema),
        (false, false, _) => Structured::Absent,
    }
}

//! Output schemas: what a tool declares about its data, how that declaration is published in
//! `tools/list` for each MCP revision, and how every result is checked against it.
//!
//! A tool declares the schema of its *data* (never of a wire format) in one of three ways: a
//! Rust type ([`ToolOutput::from_type`]), a typed output document `{"outputs": {…}}` or a raw
//! JSON Schema ([`ToolOutput::from_declaration`]). Everything that could fail is refused when
//! the declaration is made, never when a tool is called, and nothing is ever fetched from the
//! network. [`ToolOutput::publish_declaration_text`] gives the published form of a declaration
//! with the same refusals but without a compiled validator, for declarations of any size.

mod compile;
mod declare;
mod envelope;
mod identifiers;
mod numbers;
mod publish;
mod typed;
mod validate;
mod walk;

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::error::{ErrorCode, ToolError};
use crate::result::ToolResult;
use crate::revision::{McpCaps, SchemaRules, StructuredCap};
use crate::target::{McpRevision, Shape};

pub(crate) use crate::pointer::Violation;
pub use compile::build_validator;
pub use envelope::envelope_structured;
pub use numbers::exact_numbers;
pub use publish::publish_input_schema;

/// What a tool declared about its output, compiled once and cheap to share between calls and
/// threads.
#[derive(Clone)]
pub struct ToolOutput {
    inner: Arc<Inner>,
}

struct Inner {
    shape: Shape,
    /// `None` when the tool declares no outputs.
    declared: Option<Declared>,
}

struct Declared {
    /// The data schema as declared (a typed document already turned into JSON Schema).
    schema: Value,
    validator: jsonschema::Validator,
    /// Unique in the process (never reused), so that prepared data can remember passing it.
    id: u64,
    /// The `outputSchema` under each distinct [`SchemaRules`] of the revisions that publish one
    /// (today three: 2025-06-18, 2025-11-25, 2026-07-28), worked out once.
    published: Vec<(SchemaRules, Value)>,
}

impl fmt::Debug for ToolOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolOutput")
            .field("shape", &self.inner.shape)
            .field("declared", &self.declared())
            .finish()
    }
}

impl ToolOutput {
    /// A tool that declares no outputs: no `outputSchema` is published and every result passes.
    pub fn none(shape: Shape) -> Self {
        Self { inner: Arc::new(Inner { shape, declared: None }) }
    }

    /// A declaration: a typed output document (a root object with the key `outputs`) or a raw
    /// JSON Schema (2020-12 unless `$schema` names another draft).
    pub fn from_declaration(doc: &Value, shape: Shape) -> Result<Self, SchemaError> {
        let Some(schema) = declare::data_schema(doc)? else {
            return Ok(Self::none(shape));
        };
        let validator = declare::compile(&schema)?;
        if shape == Shape::Envelope && !root_is_object(&schema) {
            return Err(SchemaError::EnvelopeRootNotObject);
        }
        let mut published: Vec<(SchemaRules, Value)> = Vec::new();
        for revision in McpRevision::ALL {
            let rules = McpCaps::of(revision).schemas;
            if rules.output_schema == StructuredCap::Never
                || published.iter().any(|(done, _)| *done == rules)
            {
                continue;
            }
            published.push((rules, publish_form(schema.clone(), shape, rules)));
        }
        Ok(Self {
            inner: Arc::new(Inner {
                shape,
                declared: Some(Declared { schema, validator, id: next_id(), published }),
            }),
        })
    }

    /// What [`Self::published`] (for `Some(revision)`) or [`Self::declared`] (for `None`) gives
    /// for a declaration, refusing exactly what [`Self::from_declaration`] refuses with the
    /// same error, but without keeping a compiled validator or a copy of the declaration: for
    /// printing the published form of declarations of any size.
    pub fn publish_declaration(
        doc: Value,
        shape: Shape,
        revision: Option<McpRevision>,
    ) -> Result<Option<Value>, SchemaError> {
        let Some(schema) = declare::data_schema_owned(doc)? else {
            return Ok(None);
        };
        declare::check_compiles(&schema)?;
        if shape == Shape::Envelope && !root_is_object(&schema) {
            return Err(SchemaError::EnvelopeRootNotObject);
        }
        let Some(revision) = revision else {
            return Ok(Some(schema));
        };
        let rules = McpCaps::of(revision).schemas;
        if rules.output_schema == StructuredCap::Never {
            return Ok(None);
        }
        Ok(Some(publish_form(schema, shape, rules)))
    }

    /// [`Self::publish_declaration`] of a declaration given as JSON text, answered as compact
    /// JSON text (`null` where nothing is published): byte for byte what serializing that
    /// answer gives. `Err` when the text is not JSON (serde_json's error for a tree), `Ok(Err)`
    /// for a refused declaration.
    ///
    /// Arrays held by the root's `enum`, `const`, `default` and `examples` are data that no
    /// check and no publishing rule looks into (every draft's meta-schema asks only that `enum`
    /// and `examples` be arrays), so they are never turned into a tree: the rest is checked
    /// with each of them standing as `[]` and published with a placeholder, which is replaced
    /// by the array's compact text. Whatever that path cannot settle exactly (a refusal, a
    /// reference into such an array, a typed document, text the top-level reader leaves to
    /// the tree) takes the tree path.
    pub fn publish_declaration_text(
        text: &str,
        shape: Shape,
        revision: Option<McpRevision>,
    ) -> Result<Result<String, SchemaError>, serde_json::Error> {
        if let Some(printed) = publish::print_with_raw_data(text, shape, revision) {
            return Ok(printed);
        }
        let doc: Value = serde_json::from_str(text)?;
        Ok(Self::publish_declaration(doc, shape, revision)
            .map(|form| form.unwrap_or(Value::Null).to_string()))
    }

    /// The schema of a Rust type's serialized form (draft 2020-12, the serialize contract).
    pub fn from_type<T: schemars::JsonSchema>(shape: Shape) -> Result<Self, SchemaError> {
        let schema = schemars::generate::SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<T>();
        Self::from_declaration(&schema.to_value(), shape)
    }

    /// The structured shape the tool uses.
    pub fn shape(&self) -> Shape {
        self.inner.shape
    }

    /// The declared data schema; `None` when the tool declares no outputs (including a
    /// declaration that accepts every value).
    pub fn declared(&self) -> Option<&Value> {
        self.inner.declared.as_ref().map(|d| &d.schema)
    }

    /// Whether the declared data schema's root has `"type": "object"` (such data goes out as
    /// `structuredContent` unwrapped on every revision).
    pub fn root_is_object(&self) -> bool {
        self.declared().is_some_and(root_is_object)
    }

    /// The `outputSchema` for `tools/list` on `revision`: `None` where the revision publishes
    /// none (before 2025-06-18: [`SchemaRules::output_schema`] is `Never`) and for a tool
    /// without declared outputs (never `{}`); the envelope schema in envelope shape.
    pub fn published(&self, revision: McpRevision) -> Option<Value> {
        let declared = self.inner.declared.as_ref()?;
        let rules = McpCaps::of(revision).schemas;
        declared.published.iter().find(|(done, _)| *done == rules).map(|(_, form)| form.clone())
    }

    /// Checks what the structured result will carry against the declared schema.
    ///
    /// Data shape: the data of a success must match; a success without data while a schema is
    /// declared is a violation at the root (clients reject a success without
    /// `structuredContent`); a failure always passes (it carries no `structuredContent` under a
    /// data schema). Envelope shape: the data of a success (`{}` when there is none) must match
    /// the declared data schema, required outputs included; a failure always passes (its
    /// `data` is `{}`, which the envelope schema accepts on failure). In either shape a
    /// passthrough (text that is not a result) is a violation: it goes out as one text block
    /// without `structuredContent`, which clients reject from a tool with an output schema.
    pub fn check(&self, result: &ToolResult) -> Result<(), Violation> {
        let Some(declared) = &self.inner.declared else {
            return Ok(());
        };
        // Neither carries data: a failure, or a result asking for input first.
        if result.is_failure() || result.is_input_required() {
            return Ok(());
        }
        if result.is_passthrough() {
            return Err(Violation::new(
                "",
                "the tool answered text that is not a result, but it declares an output schema",
            ));
        }
        // A tree built only for this check is dropped after it (the result keeps its text).
        match (result.data.as_ref(), self.inner.shape) {
            (Some(data), _) if data.has_passed(declared.id) => Ok(()),
            (Some(data), _) => {
                validate::check(&declared.validator, &data.tree_once())?;
                data.remember_pass(declared.id);
                Ok(())
            }
            (None, Shape::Envelope) => {
                validate::check(&declared.validator, &Value::Object(serde_json::Map::new()))
            }
            (None, _) => Err(Violation::new(
                "",
                "the tool declares an output schema but the success carries no data",
            )),
        }
    }
}

/// A new [`Declared::id`], from 1 (0 stands for no schema).
fn next_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The `outputSchema` of a declared data schema under `rules` (of a revision that publishes one).
pub(crate) fn publish_form(schema: Value, shape: Shape, rules: SchemaRules) -> Value {
    let mut form = match shape {
        Shape::Envelope => envelope::publish(&schema, rules),
        _ => publish::publish_output_schema(schema, rules),
    };
    publish::drop_nonstandard_formats(&mut form);
    form
}

fn root_is_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

impl Violation {
    /// The `tool_error` failure that replaces violating data in `enforce` mode: it names the
    /// violated path (also in `details.path`) and, being a failure, validates under every
    /// declared schema.
    pub fn to_tool_error(&self) -> ToolError {
        let mut details = serde_json::Map::new();
        details.insert("path".into(), Value::String(self.path.clone()));
        details.insert("message".into(), Value::String(self.message.clone()));
        ToolError::new(
            ErrorCode::ToolError,
            format!(
                "The tool's result does not match its output schema at {}: {}",
                Location(&self.path),
                self.message
            ),
        )
        .with_details(details)
    }
}

/// What happens when a result does not match the declared schema.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ValidationMode {
    /// The mismatch becomes a `tool_error` failure naming the violated path.
    #[default]
    Enforce,
    /// The mismatch is logged and the result is sent as it is.
    Warn,
    /// Results are not checked.
    Off,
}

crate::named!(ValidationMode, "validation mode", { Enforce => "enforce", Warn => "warn", Off => "off" });

/// A declaration toolwire refuses, with what was refused and where (`at` is a JSON pointer into
/// the declaration; `the root` when empty).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// A `$ref` that leaves the document (http, https, file, urn, a relative file name …).
    #[error(
        "`$ref` `{reference}` at {} points to {}; toolwire never fetches schemas",
        Location(at),
        declare::destination(reference)
    )]
    ExternalRef {
        /// The reference as written.
        reference: String,
        /// Where it was found.
        at: String,
    },
    /// A `$ref` inside the document that points nowhere.
    #[error("`$ref` `{reference}` at {} does not resolve inside the schema", Location(at))]
    UnresolvableRef {
        /// The reference as written.
        reference: String,
        /// Where it was found.
        at: String,
    },
    /// Two schemas of the document with one URI (`$id`, or `id` in draft 4, resolved against the
    /// schemas around it).
    #[error(
        "`{keyword}` `{id}` at {} gives the URI of the schema at {}; every schema of a document needs a URI of its own",
        Location(at),
        Location(first)
    )]
    DuplicateId {
        /// The keyword: `$id`, or `id` in draft 4.
        keyword: &'static str,
        /// The identifier as written.
        id: String,
        /// Where it was found.
        at: String,
        /// Where the schema that has that URI first is.
        first: String,
    },
    /// A schema that claims a URI of the official meta-schemas (`json-schema.org`), which the
    /// compiler already holds under those URIs.
    #[error(
        "`{keyword}` `{id}` at {} claims a URI on json-schema.org, where the official meta-schemas live; give the schema a URI of its own",
        Location(at)
    )]
    MetaSchemaId {
        /// The keyword: `$id`, or `id` in draft 4.
        keyword: &'static str,
        /// The identifier as written.
        id: String,
        /// Where it was found.
        at: String,
    },
    /// A `$schema` that is not one of the supported drafts.
    #[error(
        "unknown `$schema` {found} at {}; expected draft 2020-12, 2019-09, draft-07, draft-06 or draft-04",
        Location(at)
    )]
    UnknownDialect {
        /// The value as written (JSON).
        found: String,
        /// Where it was found.
        at: String,
    },
    /// The document is not a schema at all (neither an object nor a boolean).
    #[error(
        "an output declaration must be a JSON Schema (an object or a boolean) or {{\"outputs\": {{…}}}}; got {found}"
    )]
    NotASchema {
        /// What was found (a JSON type name).
        found: &'static str,
    },
    /// A typed output document that does not follow the grammar.
    #[error("typed output definition at {}: {message}", Location(at))]
    Typed {
        /// Where the mistake is.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// The schema does not compile.
    #[error("the schema does not compile: {message}")]
    DoesNotCompile {
        /// Why (from the compiler).
        message: String,
    },
    /// An envelope-shape tool whose data schema root is not an object.
    #[error(
        "an envelope-shape tool needs a data schema whose root has \"type\": \"object\" (its outputs become the envelope's `data` properties)"
    )]
    EnvelopeRootNotObject,
}

/// Shows a JSON pointer, or `the root` for the empty one.
struct Location<'a>(&'a str);

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() { f.write_str("the root") } else { f.write_str(self.0) }
    }
}

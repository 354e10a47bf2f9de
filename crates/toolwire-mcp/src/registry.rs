//! The tool registry and the API a tool author uses: a tool's specification, typed and untyped
//! registration (with or without the call's context, with or without shared state), and the
//! context each call receives.
//!
//! Everything a call needs (published definitions for every revision, compiled validators) is
//! built once here, at registration, because rmcp asks for tools on every request.

use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{Icon, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolwire_core::host::MAX_RESULT_SIZE_CHARS_CEILING;
use toolwire_core::input::{Capability, InputRound};
pub use toolwire_core::{InternalError, IntoToolResult};
use toolwire_core::{
    MIN_OFFLOAD_LIMIT, McpRevision, SchemaError, Shape, ToolError, ToolOutput, ToolResult,
};

use crate::publish;
use crate::validate::{self, CompiledSchema};

/// What a [`DynTool`] returns.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<ToolResult, InternalError>> + Send>>;

/// Who is calling: a name and the privileges granted to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    name: String,
    privileges: BTreeSet<String>,
}

impl Principal {
    /// A principal with privileges.
    pub fn new<S: Into<String>>(
        name: impl Into<String>,
        privileges: impl IntoIterator<Item = S>,
    ) -> Self {
        Self { name: name.into(), privileges: privileges.into_iter().map(Into::into).collect() }
    }

    /// The anonymous HTTP caller: no privileges.
    pub fn anonymous() -> Self {
        Self::new::<String>("anonymous", [])
    }

    /// The local stdio caller: no privileges.
    pub fn local() -> Self {
        Self::new::<String>("local", [])
    }

    /// The principal's name (what stored links are bound to).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The granted privileges, sorted.
    pub fn privileges(&self) -> impl Iterator<Item = &str> {
        self.privileges.iter().map(String::as_str)
    }

    /// True when `privilege` is granted.
    pub fn has(&self, privilege: &str) -> bool {
        self.privileges.contains(privilege)
    }

    /// The privileges of `required` that are not granted, in the order given.
    pub fn missing<'a>(&self, required: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        required.into_iter().filter(|p| !self.has(p)).map(str::to_owned).collect()
    }
}

/// What a tool knows about the call it is answering.
#[derive(Debug, Clone)]
pub struct CallContext {
    pub(crate) tool: String,
    pub(crate) principal: Principal,
    pub(crate) revision: McpRevision,
    pub(crate) request_id: String,
    pub(crate) request: Option<rmcp::service::RequestContext<rmcp::service::RoleServer>>,
    pub(crate) input: InputRound,
    pub(crate) asks: crate::input::Asks,
    pub(crate) places: crate::work::CallPlaces,
    pub(crate) status: Option<tokio::sync::watch::Sender<Option<String>>>,
}

impl CallContext {
    /// A context for calling a tool outside a server (tests, other front ends).
    pub fn new(
        tool: impl Into<String>,
        principal: Principal,
        revision: McpRevision,
        request_id: impl Into<String>,
    ) -> Self {
        Self {
            tool: tool.into(),
            principal,
            revision,
            request_id: request_id.into(),
            request: None,
            input: InputRound::default(),
            asks: crate::input::revision_asks(revision),
            places: crate::work::CallPlaces::default(),
            status: None,
        }
    }

    /// The same context, carrying the client's answers and the tool's state from the round
    /// before (DESIGN §10).
    pub fn with_input(mut self, round: InputRound) -> Self {
        self.input = round;
        self
    }

    /// The same context, for a client that can be asked only for `capabilities` (what it
    /// declared, within what the revision has).
    pub fn with_client_capabilities(
        mut self,
        capabilities: impl IntoIterator<Item = Capability>,
    ) -> Self {
        let allowed = crate::input::revision_asks(self.revision);
        self.asks = crate::input::Asks::of(capabilities).within(allowed);
        self
    }

    /// [`CallContext::with_client_capabilities`] for capabilities already kept to the
    /// revision's.
    pub(crate) fn with_asks(mut self, asks: crate::input::Asks) -> Self {
        self.asks = asks;
        self
    }

    /// The client's answers and the tool's state from the round before; empty on a first call.
    pub fn input(&self) -> &InputRound {
        &self.input
    }

    /// True when the client can be asked a request needing `capability` (it declared it and
    /// the revision has it); a tool asking for more gets the failure `input_required`.
    pub fn can_ask(&self, capability: Capability) -> bool {
        self.asks.contains(capability)
    }

    /// The same context, answering this rmcp request.
    pub fn with_request(
        mut self,
        request: rmcp::service::RequestContext<rmcp::service::RoleServer>,
    ) -> Self {
        self.request = Some(request);
        self
    }

    /// The rmcp request this call answers (absent outside a server): its peer sends progress and
    /// log notifications and asks the client for sampling or elicitation.
    pub fn request(&self) -> Option<&rmcp::service::RequestContext<rmcp::service::RoleServer>> {
        self.request.as_ref()
    }

    /// The places this call holds among the large calls (DESIGN §12): a tool reading a large
    /// answer takes one with [`Work::admit_large`](crate::work::Work::admit_large).
    pub fn places(&self) -> &crate::work::CallPlaces {
        &self.places
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The caller.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The MCP revision of this request.
    pub fn revision(&self) -> McpRevision {
        self.revision
    }

    /// The JSON-RPC id of this request, as a string.
    pub fn request_id(&self) -> &str {
        &self.request_id
    }

    /// The same context, for a call running as a task whose status message `status` carries.
    pub(crate) fn with_status(
        mut self,
        status: tokio::sync::watch::Sender<Option<String>>,
    ) -> Self {
        self.status = Some(status);
        self
    }

    /// Whether this call runs as a task (DESIGN §17): its client polls for the result.
    pub fn in_task(&self) -> bool {
        self.status.is_some()
    }

    /// Says how the call is going, in words for a person: in a task, its `statusMessage` as
    /// `tasks/get` shows it (written within [`CHECK_EVERY`](crate::CHECK_EVERY)); outside a
    /// task, nothing.
    pub fn set_status(&self, message: impl Into<String>) {
        if let Some(status) = &self.status {
            status.send_replace(Some(message.into()));
        }
    }
}

/// A tool behind a type-erased interface: JSON arguments (already validated against the input
/// schema) in, a result out. App tools and typed tools both end up here.
pub trait DynTool: Send + Sync + 'static {
    /// Runs the tool.
    fn call(&self, arguments: &Value, context: CallContext) -> ToolFuture;
}

/// A tool function the registry can call, in one of four forms: `Fn(I)`, `Fn(I, CallContext)`
/// (the context only where the tool needs it), and with state shared by the tools of a
/// [`Registry::with_state`] `Fn(Arc<S>, I)` or `Fn(Arc<S>, I, CallContext)`. `Form` only tells
/// the forms apart; it is inferred from the function.
pub trait ToolFn<S, I, Form>: Send + Sync + 'static {
    /// What the function returns.
    type Output: IntoToolResult;
    /// The future it returns.
    type Future: Future<Output = Self::Output> + Send + 'static;
    /// Calls the function.
    fn call(&self, state: &Arc<S>, input: I, context: CallContext) -> Self::Future;
}

impl<S, I, F, Fut> ToolFn<S, I, fn(I)> for F
where
    F: Fn(I) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoToolResult,
{
    type Output = Fut::Output;
    type Future = Fut;
    fn call(&self, _state: &Arc<S>, input: I, _context: CallContext) -> Fut {
        self(input)
    }
}

impl<S, I, F, Fut> ToolFn<S, I, fn(I, CallContext)> for F
where
    F: Fn(I, CallContext) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoToolResult,
{
    type Output = Fut::Output;
    type Future = Fut;
    fn call(&self, _state: &Arc<S>, input: I, context: CallContext) -> Fut {
        self(input, context)
    }
}

impl<S, I, F, Fut> ToolFn<S, I, fn(Arc<S>, I)> for F
where
    F: Fn(Arc<S>, I) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoToolResult,
{
    type Output = Fut::Output;
    type Future = Fut;
    fn call(&self, state: &Arc<S>, input: I, _context: CallContext) -> Fut {
        self(Arc::clone(state), input)
    }
}

impl<S, I, F, Fut> ToolFn<S, I, fn(Arc<S>, I, CallContext)> for F
where
    F: Fn(Arc<S>, I, CallContext) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoToolResult,
{
    type Output = Fut::Output;
    type Future = Fut;
    fn call(&self, state: &Arc<S>, input: I, context: CallContext) -> Fut {
        self(Arc::clone(state), input, context)
    }
}

/// A tool's public description: name, description, schemas, annotations, required privileges.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: String,
    pub(crate) input_schema: Option<Value>,
    pub(crate) output_schema: Option<Value>,
    pub(crate) annotations: Option<ToolAnnotations>,
    pub(crate) icons: Option<Vec<Icon>>,
    pub(crate) shape: Shape,
    pub(crate) privileges: Vec<String>,
    pub(crate) max_result_chars: Option<usize>,
    pub(crate) task_support: crate::TaskSupport,
    pub(crate) task_grace: Option<std::time::Duration>,
}

impl ToolSpec {
    /// A tool with a name (`^[A-Za-z0-9_.-]{1,64}$`) and a description (required).
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema: None,
            output_schema: None,
            annotations: None,
            icons: None,
            shape: Shape::Data,
            privileges: Vec::new(),
            max_result_chars: None,
            task_support: crate::TaskSupport::Forbidden,
            task_grace: None,
        }
    }

    /// The display title (published from 2025-06-18; as `annotations.title` on 2025-03-26).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The input schema as JSON Schema (root `"type": "object"`). Typed registration sets it.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = Some(schema);
        self
    }

    /// The input schema of a Rust type.
    pub fn input<T: JsonSchema>(self) -> Self {
        self.input_schema(validate::schema_for_input::<T>())
    }

    /// The declared outputs of the tool's data: a JSON Schema (any root) or a typed output
    /// document `{"outputs": {…}}`.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// The declared output schema of a Rust type (its serialize contract).
    pub fn output<T: JsonSchema>(self) -> Self {
        self.output_schema(validate::schema_for_output::<T>())
    }

    /// Tool annotations (`ToolAnnotations::new().read_only(true)`, …), published from
    /// 2025-03-26.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Icons (published from 2025-11-25).
    pub fn icons(mut self, icons: impl IntoIterator<Item = Icon>) -> Self {
        self.icons = Some(icons.into_iter().collect());
        self
    }

    /// The structured shape: the data itself (default) or the `{success, message, data}`
    /// envelope.
    pub fn shape(mut self, shape: Shape) -> Self {
        self.shape = shape;
        self
    }

    /// Privileges the gateway checks before running the tool (missing → `missing_privilege`).
    pub fn privileges<S: Into<String>>(mut self, privileges: impl IntoIterator<Item = S>) -> Self {
        self.privileges = privileges.into_iter().map(Into::into).collect();
        self
    }

    /// How large, in characters, this tool's results may be before Claude Code persists them to
    /// a file behind a short preview (its default is about 50 000): published to Claude Code
    /// only, as `_meta["anthropic/maxResultSizeChars"]` in `tools/list`, and then that host's
    /// cap for this tool. Between 4096 (the least an offload stub needs) and 500 000 (the most
    /// Claude Code accepts); registration refuses any other value.
    pub fn max_result_chars(mut self, chars: usize) -> Self {
        self.max_result_chars = Some(chars);
        self
    }

    /// Whether calls may become tasks (DESIGN §17): `Forbidden` (default), `Optional` or
    /// `Required`.
    pub fn task_support(mut self, support: crate::TaskSupport) -> Self {
        self.task_support = support;
        self
    }

    /// For a tool whose calls may become tasks (`Optional`): how long a call a client could hold
    /// as a task may still be answered in its request, unless the tool says first that it works
    /// on in the background (it sets a status, as an upstream that made the call a task of its
    /// own or an app that accepted it does). Without it, such a call becomes a task unless it
    /// is answered before it first waits — right for a tool that waits only when it is slow, not
    /// for one that always waits on the network.
    pub fn task_grace(mut self, grace: std::time::Duration) -> Self {
        self.task_grace = Some(grace);
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A `max_result_chars` outside what Claude Code and an offload stub accept.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaxResultCharsError {
    /// Above Claude Code's ceiling.
    #[error(
        "`max_result_chars` = {0} is above {MAX_RESULT_SIZE_CHARS_CEILING}, the most Claude Code accepts"
    )]
    AboveCeiling(usize),
    /// Below what an offload stub needs.
    #[error(
        "`max_result_chars` = {0} is below {MIN_OFFLOAD_LIMIT}, the least an offload stub needs"
    )]
    BelowStub(usize),
}

/// Checks a tool's `max_result_chars` ([`ToolSpec::max_result_chars`]): at least
/// [`MIN_OFFLOAD_LIMIT`], at most [`MAX_RESULT_SIZE_CHARS_CEILING`].
pub fn check_max_result_chars(chars: usize) -> Result<usize, MaxResultCharsError> {
    if chars > MAX_RESULT_SIZE_CHARS_CEILING {
        Err(MaxResultCharsError::AboveCeiling(chars))
    } else if chars < MIN_OFFLOAD_LIMIT {
        Err(MaxResultCharsError::BelowStub(chars))
    } else {
        Ok(chars)
    }
}

/// Why a tool specification was refused.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum ToolSpecError {
    /// The name does not match `^[A-Za-z0-9_.-]{1,64}$`.
    #[error("tool name `{0}` must match ^[A-Za-z0-9_.-]{{1,64}}$")]
    BadName(String),
    /// The description is empty.
    #[error("tool `{0}` needs a description")]
    NoDescription(String),
    /// The input schema's root is not `"type": "object"`.
    #[error("tool `{0}`: the input schema must have `\"type\": \"object\"` at its root")]
    InputNotObject(String),
    /// The input schema does not compile (or has an unresolvable or network `$ref`).
    #[error("tool `{tool}`: the input schema is refused: {reason}")]
    BadInputSchema {
        /// The tool.
        tool: String,
        /// What the validator said.
        reason: String,
    },
    /// `max_result_chars` is out of range.
    #[error("tool `{tool}`: {error}")]
    BadMaxResultChars {
        /// The tool.
        tool: String,
        /// Why.
        error: MaxResultCharsError,
    },
    /// The output declaration was refused.
    #[error("tool `{tool}`: the output schema is refused: {error}")]
    BadOutputSchema {
        /// The tool.
        tool: String,
        /// Why.
        error: SchemaError,
    },
}

/// Why a tool could not be registered.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// The specification was refused.
    #[error(transparent)]
    Spec(#[from] ToolSpecError),
    /// Another tool already has this name.
    #[error("tool `{0}` is registered twice")]
    Duplicate(String),
}

/// One registered tool with everything built once: published definitions per revision and
/// compiled validators.
pub(crate) struct RegisteredTool {
    pub(crate) spec: ToolSpec,
    pub(crate) published: Vec<(McpRevision, rmcp::model::Tool)>,
    pub(crate) input: Arc<CompiledSchema>,
    pub(crate) output: ToolOutput,
    pub(crate) handler: Arc<dyn DynTool>,
}

impl RegisteredTool {
    /// The definition published for `revision`.
    pub(crate) fn definition(&self, revision: McpRevision) -> Option<&rmcp::model::Tool> {
        self.published.iter().find(|(r, _)| *r == revision).map(|(_, tool)| tool)
    }
}

/// Tools in registration order, each compiled once: the tools of one [`ToolSource`] (a registry
/// is the source of the Rust tools registered on it; other sources hand over their tools in
/// one). Cheap to clone: the tools are shared.
///
/// [`ToolSource`]: crate::ToolSource
#[derive(Clone)]
pub struct Registry {
    name: Arc<str>,
    tools: Vec<Arc<RegisteredTool>>,
    by_name: HashMap<String, usize>,
}

impl Default for Registry {
    fn default() -> Self {
        Self::named("tools")
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("name", &self.name)
            .field("tools", &self.tools.iter().map(|t| &t.spec.name).collect::<Vec<_>>())
            .finish()
    }
}

struct TypedTool<S, F, I, Form> {
    state: Arc<S>,
    function: F,
    form: std::marker::PhantomData<fn() -> (I, Form)>,
}

impl<S, F, I, Form> DynTool for TypedTool<S, F, I, Form>
where
    S: Send + Sync + 'static,
    F: ToolFn<S, I, Form>,
    I: DeserializeOwned + 'static,
    Form: 'static,
{
    fn call(&self, arguments: &Value, context: CallContext) -> ToolFuture {
        match I::deserialize(arguments) {
            Ok(input) => {
                let future = self.function.call(&self.state, input, context);
                Box::pin(async move { future.await.into_tool_result() })
            }
            Err(error) => {
                // The schema accepted what serde refused (a schema looser than the type):
                // still the caller's input, so still a result the model can correct from.
                let failure = ToolError::invalid_arguments(
                    format!("The arguments do not fit the tool's input: {error}"),
                    [(String::new(), error.to_string())],
                );
                Box::pin(async move { Ok(ToolResult::failure(failure)) })
            }
        }
    }
}

impl Registry {
    /// An empty registry, named `tools` as a source.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty registry with the source name `name` (what a name collision and the `source`
    /// label name).
    pub fn named(name: impl Into<Arc<str>>) -> Self {
        Self { name: name.into(), tools: Vec::new(), by_name: HashMap::new() }
    }

    /// Its name as a source.
    pub(crate) fn source_name(&self) -> &str {
        &self.name
    }

    /// Registers a tool with a typed input and a typed output: the input schema comes from `I`,
    /// the output schema from `O`; `Ok(value)` becomes the data, `Err(error)` the failure. The
    /// function takes the input, and the [`CallContext`] only if it needs it ([`ToolFn`]).
    pub fn register_typed<I, O, F, Form>(
        &mut self,
        spec: ToolSpec,
        function: F,
    ) -> Result<(), RegistryError>
    where
        I: DeserializeOwned + JsonSchema + 'static,
        O: Serialize + JsonSchema + 'static,
        F: ToolFn<(), I, Form, Output = Result<O, ToolError>>,
        Form: 'static,
    {
        self.with_state(Arc::new(())).register_typed(spec, function)
    }

    /// Registers a tool with a typed input whose function returns a [`ToolResult`],
    /// `Result<ToolResult, ToolError>` (so `?` works on a [`ToolError`]) or anything else
    /// [`IntoToolResult`]; the output schema is whatever `spec` declares ([`ToolSpec::output`],
    /// [`ToolSpec::output_schema`]), or none. The function takes the input, and the
    /// [`CallContext`] only if it needs it ([`ToolFn`]).
    pub fn register<I, F, Form>(&mut self, spec: ToolSpec, function: F) -> Result<(), RegistryError>
    where
        I: DeserializeOwned + JsonSchema + 'static,
        F: ToolFn<(), I, Form>,
        Form: 'static,
    {
        self.with_state(Arc::new(())).register(spec, function)
    }

    /// Registers the tools that share `state`: each function receives its own `Arc` of it
    /// (`Fn(Arc<S>, I)` or `Fn(Arc<S>, I, CallContext)`), so a tool author clones nothing.
    pub fn with_state<S: Send + Sync + 'static>(&mut self, state: Arc<S>) -> WithState<'_, S> {
        WithState { registry: self, state }
    }

    /// Registers a type-erased tool; `spec` must carry its input schema (an empty object schema
    /// is assumed when it has none).
    pub fn register_dyn(
        &mut self,
        spec: ToolSpec,
        handler: Arc<dyn DynTool>,
    ) -> Result<(), RegistryError> {
        if !is_tool_name(&spec.name) {
            return Err(ToolSpecError::BadName(spec.name).into());
        }
        if spec.description.trim().is_empty() {
            return Err(ToolSpecError::NoDescription(spec.name).into());
        }
        if self.by_name.contains_key(&spec.name) {
            return Err(RegistryError::Duplicate(spec.name));
        }
        if let Some(chars) = spec.max_result_chars
            && let Err(error) = check_max_result_chars(chars)
        {
            return Err(ToolSpecError::BadMaxResultChars { tool: spec.name, error }.into());
        }
        let input_schema = spec
            .input_schema
            .clone()
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
        if input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(ToolSpecError::InputNotObject(spec.name).into());
        }
        let input = CompiledSchema::compile(&input_schema)
            .map_err(|reason| ToolSpecError::BadInputSchema { tool: spec.name.clone(), reason })?;
        let output = match &spec.output_schema {
            Some(declaration) => {
                ToolOutput::from_declaration(declaration, spec.shape).map_err(|error| {
                    ToolSpecError::BadOutputSchema { tool: spec.name.clone(), error }
                })?
            }
            None => ToolOutput::none(spec.shape),
        };
        let spec = ToolSpec { input_schema: Some(input_schema), ..spec };
        let published = McpRevision::ALL
            .into_iter()
            .map(|revision| {
                publish::tool_definition(&spec, &output, revision).map(|tool| (revision, tool))
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|reason| ToolSpecError::BadInputSchema { tool: spec.name.clone(), reason })?;
        self.by_name.insert(spec.name.clone(), self.tools.len());
        let input = Arc::new(input);
        self.tools.push(Arc::new(RegisteredTool { spec, published, input, output, handler }));
        Ok(())
    }

    /// The same tools with each handler replaced by `wrap(handler)` (specs, definitions and
    /// validators shared, nothing compiled again).
    pub(crate) fn map_handlers(
        &self,
        mut wrap: impl FnMut(Arc<dyn DynTool>) -> Arc<dyn DynTool>,
    ) -> Self {
        let tools = self
            .tools
            .iter()
            .map(|tool| {
                Arc::new(RegisteredTool {
                    spec: tool.spec.clone(),
                    published: tool.published.clone(),
                    input: Arc::clone(&tool.input),
                    output: tool.output.clone(),
                    handler: wrap(Arc::clone(&tool.handler)),
                })
            })
            .collect();
        Self { name: Arc::clone(&self.name), tools, by_name: self.by_name.clone() }
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True when no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The names, in registration order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|t| t.spec.name.as_str())
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &Arc<RegisteredTool>> {
        self.tools.iter()
    }
}

/// Registration of tools sharing one state ([`Registry::with_state`]).
#[derive(Debug)]
pub struct WithState<'r, S> {
    registry: &'r mut Registry,
    state: Arc<S>,
}

impl<S: Send + Sync + 'static> WithState<'_, S> {
    /// [`Registry::register_typed`] for a function of the shared state.
    pub fn register_typed<I, O, F, Form>(
        &mut self,
        spec: ToolSpec,
        function: F,
    ) -> Result<(), RegistryError>
    where
        I: DeserializeOwned + JsonSchema + 'static,
        O: Serialize + JsonSchema + 'static,
        F: ToolFn<S, I, Form, Output = Result<O, ToolError>>,
        Form: 'static,
    {
        self.register(spec.output::<O>(), function)
    }

    /// [`Registry::register`] for a function of the shared state.
    pub fn register<I, F, Form>(&mut self, spec: ToolSpec, function: F) -> Result<(), RegistryError>
    where
        I: DeserializeOwned + JsonSchema + 'static,
        F: ToolFn<S, I, Form>,
        Form: 'static,
    {
        let state = Arc::clone(&self.state);
        let tool = TypedTool { state, function, form: std::marker::PhantomData };
        self.registry.register_dyn(spec.input::<I>(), Arc::new(tool))
    }
}

/// `^[A-Za-z0-9_.-]{1,64}$`.
fn is_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_follow_the_grammar() {
        assert!(is_tool_name("catalog_search"));
        assert!(is_tool_name("a.b-c_D9"));
        assert!(!is_tool_name(""));
        assert!(!is_tool_name("has space"));
        assert!(!is_tool_name(&"x".repeat(65)));
        assert!(is_tool_name(&"x".repeat(64)));
    }

    #[test]
    fn missing_privileges_keep_the_requested_order() {
        let p = Principal::new("ann", ["b"]);
        assert_eq!(p.missing(["c", "b", "a"]), vec!["c".to_owned(), "a".to_owned()]);
    }
}

//! The output mapper: validates a result against the tool's declared output once, lays it out
//! once, lowers it for the target, and checks the size against the target's limit. Over the
//! limit it hands back a [`NeedsOffload`] holding the whole result in the v1 form; the caller
//! stores it (asynchronously, wherever it likes) and finishes the render with the link. The core
//! never does I/O.
//!
//! Decisions this module makes where DESIGN leaves room:
//! - The query a [`RenderContext`] carries is echoed only in an offload stub (where DESIGN asks
//!   for "the echoed query"), and only when the result carries none of its own.
//! - The stub's query is cut to 1 KiB by replacing `arguments` with a JSON string holding the
//!   start of the compact arguments text followed by `…` (and the tool name cut to 256 bytes).
//! - A stub is tried with S and the query cut to 1 KiB and E whole; if it still does not fit, with
//!   S, the query and E.message cut to 256 bytes and no error details; then with the one-line
//!   note instead of S, no query and E.message cut to 128 bytes; only then is it an error.
//! - An enforce-mode schema mismatch keeps the result's metadata and drops everything else.
//!
//! The mapper's pieces: [`config`] (settings and the per-render context), [`offload`] (what an
//! over-limit render hands back and how it is finished) and `stub` (the offload stub's cuts).

mod config;
mod offload;
mod stub;

pub use config::{ConfigError, MapperConfig, RenderContext};
pub use offload::{NeedsOffload, PendingStub, Rendered, StoreRefusal};

use std::borrow::Cow;
use std::sync::OnceLock;

use crate::host;
use crate::json_text::to_json_string;
use crate::layout::{Layout, Plan};
use crate::lower::a2a::A2aTaskState;
use crate::lower::mcp::McpOutput;
use crate::lower::{a2a, legacy, mcp};
use crate::result::{Provenance, ToolResult};
use crate::revision::McpCaps;
use crate::schema::{ValidationMode, Violation};
use crate::target::{A2aVersion, McpRevision, Phase, Target};
use stub::StubPlan;

/// The default limit for the legacy target and every MCP target (DESIGN §4).
pub const DEFAULT_LIMIT: usize = 262_144;

/// The smallest limit under which an over-limit result can still be offloaded.
pub const MIN_OFFLOAD_LIMIT: usize = 4096;

/// The largest message sent inline when storing failed and `offload_fallback = "inline"`
/// (rmcp peers reject lines and SSE events over 16 MiB).
pub const MAX_INLINE: usize = 15 * 1024 * 1024;

/// Why a render failed.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// The limit is below 4 KiB and the result is over it: such a limit leaves no room for an
    /// offload stub.
    #[error(
        "result of {size} bytes exceeds the limit of {limit} bytes for {target}; limits below {MIN_OFFLOAD_LIMIT} bytes cannot offload"
    )]
    LimitTooSmall {
        /// The target.
        target: Target,
        /// The rendered size.
        size: usize,
        /// The configured limit.
        limit: usize,
    },
    /// Even the smallest stub does not fit the limit (a huge link URI or tool name).
    #[error(
        "the offload stub of {size} bytes still exceeds the limit of {limit} bytes for {target}"
    )]
    StubTooLarge {
        /// The target.
        target: Target,
        /// The smallest stub's size.
        size: usize,
        /// The configured limit.
        limit: usize,
    },
    /// Sending inline was asked for, but the result is over the 15 MiB a peer accepts.
    #[error("result of {size} bytes is over the {MAX_INLINE} bytes that can be sent inline")]
    InlineTooLarge {
        /// The rendered size.
        size: usize,
    },
}

/// A finished render.
#[derive(Debug, Clone)]
pub struct Output {
    body: Body,
    size: usize,
    is_error: bool,
    offloaded: bool,
    warnings: Vec<String>,
}

/// What a render holds: the wire text, or (an MCP target rendered by
/// [`OutputMapper::render_owned`]) the typed result, its text written only when asked for.
#[derive(Debug, Clone)]
enum Body {
    Text(String),
    Mcp { typed: Box<McpOutput>, text: OnceLock<String> },
}

impl Body {
    fn mcp(typed: McpOutput) -> Self {
        Self::Mcp { typed: Box::new(typed), text: OnceLock::new() }
    }
}

impl Output {
    fn new(body: Body, size: usize, is_error: bool, warnings: Vec<String>) -> Self {
        Self { body, size, is_error, offloaded: false, warnings }
    }

    /// The exact compact wire text: a `CallToolResult`, the legacy envelope, or an A2A `Task`.
    pub fn json(&self) -> &str {
        match &self.body {
            Body::Text(text) => text,
            Body::Mcp { typed, text } => text.get_or_init(|| typed.to_json()),
        }
    }

    /// The wire text, owned.
    pub fn into_json(self) -> String {
        match self.body {
            Body::Text(text) => text,
            Body::Mcp { typed, text } => text.into_inner().unwrap_or_else(|| typed.to_json()),
        }
    }

    /// The typed MCP result, for an MCP target rendered by [`OutputMapper::render_owned`]
    /// (and its offload stubs); `None` otherwise.
    pub fn mcp(&self) -> Option<&McpOutput> {
        match &self.body {
            Body::Mcp { typed, .. } => Some(typed),
            Body::Text(_) => None,
        }
    }

    /// The typed MCP result, owned (see [`Output::mcp`]).
    pub fn into_mcp(self) -> Option<McpOutput> {
        match self.body {
            Body::Mcp { typed, .. } => Some(*typed),
            Body::Text(_) => None,
        }
    }

    /// True when the rendered result is a failure.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// True for an offload stub.
    pub fn offloaded(&self) -> bool {
        self.offloaded
    }

    /// The size in bytes (the wire text's UTF-8 length, counted even where the text is not
    /// held).
    pub fn size(&self) -> usize {
        self.size
    }

    /// What the caller should log (a warn-mode schema mismatch, an inline fallback).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

impl PartialEq for Output {
    fn eq(&self, other: &Self) -> bool {
        self.is_error == other.is_error
            && self.offloaded == other.offloaded
            && self.warnings == other.warnings
            && self.json() == other.json()
    }
}

impl Eq for Output {}

/// A render's wire form before it is wrapped in an [`Output`].
enum Lowered {
    Text(String),
    /// Kept typed, with the compat block's envelope text where measuring wrote it.
    Typed(McpRevision, Option<String>),
}

/// The caller's ids for A2A.
struct Ids<'a> {
    tool_name: &'a str,
    task_id: &'a str,
    context_id: &'a str,
    request_state: Option<&'a str>,
    /// The host can follow links.
    reads_links: bool,
}

impl<'a> Ids<'a> {
    /// The ids `ctx` carries.
    fn of(ctx: &RenderContext<'a>) -> Self {
        Self {
            tool_name: ctx.tool_name,
            task_id: ctx.task_id,
            context_id: ctx.context_id,
            request_state: ctx.request_state,
            reads_links: ctx.reads_links(),
        }
    }

    /// The A2A task's ids and names.
    fn task(&self, config: &'a MapperConfig) -> a2a::TaskIds<'a> {
        a2a::TaskIds {
            task_id: self.task_id,
            context_id: self.context_id,
            tool_name: self.tool_name,
            prefix: &config.names.prefix,
        }
    }
}

fn mcp_settings<'a>(config: &'a MapperConfig, ids: &Ids<'_>) -> mcp::McpSettings<'a> {
    mcp::McpSettings { names: &config.names, reads_links: ids.reads_links }
}

/// The wire text of `layout` for `target`.
fn lower_layout(
    layout: Layout<'_>,
    target: Target,
    config: &MapperConfig,
    ids: &Ids<'_>,
) -> String {
    match target {
        Target::Legacy => legacy::render(&layout, true),
        Target::Mcp(revision) => {
            let settings = mcp_settings(config, ids);
            to_json_string(&mcp::lower(layout, revision, ids.request_state, &settings))
        }
        Target::A2a(version) => a2a::render(&layout, version, &ids.task(config)),
    }
}

/// `result` laid out by `plan`, lowered for `target`: kept typed (an MCP target when `typed`),
/// else as text; with the exact size of its wire text.
fn lower_owned(
    result: ToolResult,
    plan: Plan,
    target: Target,
    typed: bool,
    config: &MapperConfig,
    ids: &Ids<'_>,
) -> (Body, usize) {
    match target {
        Target::Mcp(revision) if typed => {
            let settings = mcp_settings(config, ids);
            let (size, envelope) =
                mcp::lower(Layout::new(&result, &plan), revision, ids.request_state, &settings)
                    .measure();
            let output =
                McpOutput::new(result, plan, revision, ids.request_state, &settings, envelope);
            (Body::mcp(output), size)
        }
        _ => {
            let text = lower_layout(Layout::new(&result, &plan), target, config, ids);
            let size = text.len();
            (Body::Text(text), size)
        }
    }
}

/// Renders tool results for every target. Cheap to share: it holds only its configuration.
#[derive(Debug, Clone, Default)]
pub struct OutputMapper {
    config: MapperConfig,
}

impl OutputMapper {
    /// A mapper with `config`.
    pub fn new(config: MapperConfig) -> Self {
        Self { config }
    }

    /// The configuration.
    pub fn config(&self) -> &MapperConfig {
        &self.config
    }

    /// Renders `result` for `target` in `phase`.
    pub fn render(
        &self,
        result: &ToolResult,
        target: Target,
        phase: Phase,
        ctx: &RenderContext<'_>,
    ) -> Result<Rendered, RenderError> {
        self.render_cow(Cow::Borrowed(result), target, phase, ctx)
    }

    /// Renders `result` like [`OutputMapper::render`], keeping it: an MCP output (and its
    /// offload stub) then carries its typed form ([`Output::mcp`]), which an MCP SDK adapter
    /// hands on field by field, with `structuredContent` taken from the result's own data. The
    /// text, the size and the limits are exactly [`OutputMapper::render`]'s.
    pub fn render_owned(
        &self,
        result: ToolResult,
        target: Target,
        phase: Phase,
        ctx: &RenderContext<'_>,
    ) -> Result<Rendered, RenderError> {
        self.render_cow(Cow::Owned(result), target, phase, ctx)
    }

    /// The A2A `Task` of a call that has no result yet, or will never have one, for `version`:
    /// `state` (a long-running tool's call accepted and running, or canceled), the task and
    /// context ids of `ctx` ([`RenderContext::task_id`], [`RenderContext::context_id`]) and its
    /// time as `status.timestamp`. `message`, when given, is the status message's one text part,
    /// carried as it is (progress such as "exported 300 of 1000 rows", or why the call was
    /// canceled). The task has no artifacts: the result, when there is one, is rendered by
    /// [`OutputMapper::render`] under the same ids. Returns the compact wire text; no size limit
    /// is applied, as there is no result to offload.
    pub fn render_a2a_state(
        &self,
        version: A2aVersion,
        state: A2aTaskState,
        message: Option<&str>,
        ctx: &RenderContext<'_>,
    ) -> String {
        a2a::render_state(version, state, &Ids::of(ctx).task(&self.config), ctx.now, message)
    }

    fn render_cow(
        &self,
        mut result: Cow<'_, ToolResult>,
        target: Target,
        phase: Phase,
        ctx: &RenderContext<'_>,
    ) -> Result<Rendered, RenderError> {
        // An owned result rendered for MCP is kept, typed.
        let typed = match (&result, target) {
            (Cow::Owned(_), Target::Mcp(revision)) => Some(revision),
            _ => None,
        };
        let mut warnings = Vec::new();
        let mut omit_structured = false;
        // Input required is asked natively by 2026-07-28 and A2A; elsewhere it is the failure
        // `input_required` (an adapter that can ask on the connection does so before rendering).
        if result.is_input_required() && !asks_natively(target) {
            result = Cow::Owned(result.down_levelled().into_owned());
        }
        let mode = self.config.validation;
        if let Some(output) = ctx.output
            && mode != ValidationMode::Off
            && let Err(violation) = output.check(&result)
        {
            let at = if violation.path.is_empty() { "the root" } else { &violation.path };
            if mode == ValidationMode::Enforce {
                result = Cow::Owned(schema_failure(&result, &violation));
            } else {
                omit_structured = true;
                warnings.push(format!(
                    "the result does not match the output schema at {at}: {}; structuredContent omitted",
                    violation.message
                ));
            }
        }
        let declared = ctx.declared();
        let generated_at = result.meta().generated_at.unwrap_or(ctx.now);
        let mut plan = Plan::new(&result, phase, declared, generated_at, ctx.input_schema);
        // A structured reader sees nothing but `structuredContent` when it is present: it is
        // sent only when it is the whole result (DESIGN §11).
        if omit_structured || (ctx.structured_reader() && !host::is_data_alone(&result)) {
            plan.without_structured();
        }
        // A `both` host other than `generic` reads the data once: from `structuredContent`, when
        // that is sent and holds it (DESIGN §11, "each fact once"), and when what stands for the
        // text copy is shorter in both phases: the envelope's `null` beside a summary, else that
        // and the pointer line on a line of its own.
        let stand_in = match result.summary() {
            Some(_) => "null".len(),
            None => "null\n".len() + host::DATA_POINTER.len(),
        };
        // A tool's own legacy string stays the compat block byte for byte.
        let own_envelope =
            phase == Phase::Compat && matches!(result.provenance(), Provenance::LegacyEnvelope(_));
        if let Target::Mcp(revision) = target
            && ctx.reads_each_fact_once()
            && !own_envelope
            && result.data_json().is_some_and(|data| data.len() > stand_in)
            && mcp::structured_holds_data(Layout::new(&result, &plan), revision)
        {
            plan.data_in_structured();
        }
        let ids = Ids::of(ctx);
        let host_cap = match target {
            Target::Mcp(_) => ctx.host.and_then(|h| h.max_result_bytes),
            _ => None,
        };
        let limit = match (self.config.limit(target), host_cap) {
            (Some(limit), Some(cap)) => Some(limit.min(cap)),
            (limit, cap) => limit.or(cap),
        };
        // A request for input is never offloaded: the client must read it to go on.
        let limit = limit.filter(|_| !result.is_input_required());
        let is_error = result.is_failure();
        // The text of a borrowed result is written now; an owned one is kept (typed), its size
        // counted.
        let layout = Layout::new(&result, &plan);
        let (lowered, size) = match typed {
            Some(revision) => {
                let settings = mcp_settings(&self.config, &ids);
                let (size, envelope) =
                    mcp::lower(layout, revision, ids.request_state, &settings).measure();
                (Lowered::Typed(revision, envelope), size)
            }
            None => {
                let text = lower_layout(layout, target, &self.config, &ids);
                let size = text.len();
                (Lowered::Text(text), size)
            }
        };
        let over = limit.filter(|limit| size > *limit);
        if let Some(limit) = over
            && limit < MIN_OFFLOAD_LIMIT
        {
            return Err(RenderError::LimitTooSmall { target, size, limit });
        }
        let offload = over.map(|limit| {
            let v1 = crate::v1::to_vec_generated_at(&result, generated_at);
            let stub = Box::new(StubPlan {
                target,
                phase,
                typed: typed.is_some(),
                config: self.config.clone(),
                declared,
                publishes_schema: ctx.output.is_some_and(|o| o.declared().is_some())
                    && ctx.host_sees_output_schema(),
                tool_name: ctx.tool_name.to_owned(),
                task_id: ctx.task_id.to_owned(),
                context_id: ctx.context_id.to_owned(),
                error: result.error().cloned(),
                summary: result.summary().map(str::to_owned),
                query: result.meta().query.clone().or_else(|| ctx.query.clone()),
                generated_at,
                expires_at: result.meta().expires_at,
                reads_links: ctx.reads_links(),
                preview: host_cap.and(layout.data_json()).map(str::to_owned),
            });
            (limit, v1, stub)
        });
        let body = match lowered {
            Lowered::Text(text) => Body::Text(text),
            Lowered::Typed(revision, envelope) => {
                let settings = mcp_settings(&self.config, &ids);
                Body::mcp(McpOutput::new(
                    result.into_owned(),
                    plan,
                    revision,
                    ids.request_state,
                    &settings,
                    envelope,
                ))
            }
        };
        let full = Output::new(body, size, is_error, warnings);
        Ok(match offload {
            None => Rendered::Complete(full),
            Some((limit, v1, plan)) => {
                Rendered::NeedsOffload(NeedsOffload::new(v1, limit, full, plan))
            }
        })
    }
}

/// True when `target` renders input required as itself (MCP `InputRequiredResult`, A2A
/// `input-required`) rather than as the failure `input_required`.
pub fn asks_natively(target: Target) -> bool {
    match target {
        Target::Mcp(revision) => McpCaps::of(revision).input_required_result,
        Target::A2a(_) => true,
        Target::Legacy => false,
    }
}

/// The `tool_error` failure that replaces a result whose data does not match the declared
/// schema (enforce mode, [`Violation::to_tool_error`]); it keeps the metadata and validates (a
/// failure carries no data).
fn schema_failure(result: &ToolResult, violation: &Violation) -> ToolResult {
    let mut failure = ToolResult::failure(violation.to_tool_error());
    failure.meta = result.meta().clone();
    failure
}

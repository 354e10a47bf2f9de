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

use serde_json::{Map, Value};

use crate::error::{ErrorCode, ToolError};
use crate::grammar;
use crate::layout::{DataSchema, Declared, Layout};
use crate::link::StoredLink;
use crate::lower::{self, a2a, legacy, mcp};
use crate::meta::Query;
use crate::result::ToolResult;
use crate::schema::{ToolOutput, ValidationMode};
use crate::target::{Phase, Shape, Target};
use crate::timestamp::Timestamp;

/// The default limit for the legacy target and every MCP target (DESIGN §4).
pub const DEFAULT_LIMIT: usize = 262_144;

/// The smallest limit under which an over-limit result can still be offloaded.
pub const MIN_OFFLOAD_LIMIT: usize = 4096;

/// The largest message sent inline when storing failed and `offload_fallback = "inline"`
/// (rmcp peers reject lines and SSE events over 16 MiB).
pub const MAX_INLINE: usize = 15 * 1024 * 1024;

/// How far the stub's summary and query are cut first.
const STUB_CUT: usize = 1024;

/// Why a configuration was refused.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The prefix breaks the `_meta` label grammar.
    #[error(
        "`_meta` prefix `{0}` is not one or more dot-separated labels (letters, digits, `-`; each starting with a letter and ending with a letter or digit)"
    )]
    MalformedPrefix(String),
    /// The prefix is reserved (for MCP, or toolwire's own `legacy` namespace).
    #[error("`_meta` prefix `{0}` is reserved")]
    ReservedPrefix(String),
}

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

/// The mapper's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapperConfig {
    prefix: String,
    limits: [Option<usize>; Target::ALL.len()],
    server_name: String,
    server_version: String,
    validation: ValidationMode,
}

impl Default for MapperConfig {
    fn default() -> Self {
        let limits = Target::ALL.map(|target| match target {
            Target::A2a(_) => None,
            _ => Some(DEFAULT_LIMIT),
        });
        Self {
            prefix: grammar::DEFAULT_PREFIX.to_owned(),
            limits,
            server_name: "toolwire".to_owned(),
            server_version: env!("CARGO_PKG_VERSION").to_owned(),
            validation: ValidationMode::Enforce,
        }
    }
}

fn target_index(target: Target) -> usize {
    Target::ALL.iter().position(|t| *t == target).unwrap_or(0)
}

impl MapperConfig {
    /// With another `_meta` prefix (`com.acme` gives `com.acme/generatedAt`); refuses a prefix
    /// outside the label grammar or a reserved one.
    pub fn with_prefix(mut self, prefix: &str) -> Result<Self, ConfigError> {
        if !grammar::is_prefix(prefix) {
            return Err(ConfigError::MalformedPrefix(prefix.to_owned()));
        }
        if grammar::is_mcp_reserved(prefix) || prefix == grammar::LEGACY_NAMESPACE {
            return Err(ConfigError::ReservedPrefix(prefix.to_owned()));
        }
        prefix.clone_into(&mut self.prefix);
        Ok(self)
    }

    /// With a size limit for `target` (`None`: no limit).
    pub fn with_limit(mut self, target: Target, limit: Option<usize>) -> Self {
        self.limits[target_index(target)] = limit;
        self
    }

    /// With the `serverInfo` that 2026-07-28 results carry.
    pub fn with_server_info(mut self, name: &str, version: &str) -> Self {
        name.clone_into(&mut self.server_name);
        version.clone_into(&mut self.server_version);
        self
    }

    /// With a validation mode.
    pub fn with_validation(mut self, mode: ValidationMode) -> Self {
        self.validation = mode;
        self
    }

    /// The size limit of `target`.
    pub fn limit(&self, target: Target) -> Option<usize> {
        self.limits[target_index(target)]
    }

    /// The `_meta` prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The validation mode.
    pub fn validation(&self) -> ValidationMode {
        self.validation
    }
}

/// What the mapper needs to know about the tool and the caller for one render.
#[derive(Debug, Clone)]
pub struct RenderContext<'a> {
    tool_name: &'a str,
    now: Timestamp,
    output: Option<&'a ToolOutput>,
    input_schema: Option<&'a Value>,
    query: Option<Query>,
    task_id: &'a str,
    context_id: &'a str,
    request_state: Option<&'a str>,
}

impl<'a> RenderContext<'a> {
    /// A context for a call of `tool_name` rendered at `now` (the generation time unless the
    /// result has its own); A2A ids default to `task-1` / `context-1`.
    pub fn new(tool_name: &'a str, now: Timestamp) -> Self {
        Self {
            tool_name,
            now,
            output: None,
            input_schema: None,
            query: None,
            task_id: "task-1",
            context_id: "context-1",
            request_state: None,
        }
    }

    /// The sealed `requestState` an input-required result carries on 2026-07-28 (sealing binds
    /// it to the tool, caller and arguments, so it is made by the caller, not here).
    pub fn request_state(mut self, sealed: &'a str) -> Self {
        self.request_state = Some(sealed);
        self
    }

    /// The tool's declared output (schema and shape); without it: data shape, no schema.
    pub fn output(mut self, output: &'a ToolOutput) -> Self {
        self.output = Some(output);
        self
    }

    /// The tool's published input schema (echoed as `input_schema` by the envelope shape on
    /// `invalid_arguments`).
    pub fn input_schema(mut self, schema: &'a Value) -> Self {
        self.input_schema = Some(schema);
        self
    }

    /// The call to echo in an offload stub.
    pub fn query(mut self, query: Query) -> Self {
        self.query = Some(query);
        self
    }

    /// The A2A task id.
    pub fn task_id(mut self, id: &'a str) -> Self {
        self.task_id = id;
        self
    }

    /// The A2A context id.
    pub fn context_id(mut self, id: &'a str) -> Self {
        self.context_id = id;
        self
    }

    fn declared(&self) -> Declared {
        match self.output {
            None => Declared { shape: Shape::Data, schema: DataSchema::None },
            Some(output) => Declared {
                shape: output.shape(),
                schema: match output.declared() {
                    None => DataSchema::None,
                    Some(_) if output.root_is_object() => DataSchema::ObjectRoot,
                    Some(_) => DataSchema::OtherRoot,
                },
            },
        }
    }
}

/// A finished render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    json: String,
    is_error: bool,
    offloaded: bool,
    warnings: Vec<String>,
}

impl Output {
    /// The exact compact wire text: a `CallToolResult`, the legacy envelope, or an A2A `Task`.
    pub fn json(&self) -> &str {
        &self.json
    }

    /// The wire text, owned.
    pub fn into_json(self) -> String {
        self.json
    }

    /// True when the rendered result is a failure.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// True for an offload stub.
    pub fn offloaded(&self) -> bool {
        self.offloaded
    }

    /// The size in bytes (the wire text's UTF-8 length).
    pub fn size(&self) -> usize {
        self.json.len()
    }

    /// What the caller should log (a warn-mode schema mismatch, an inline fallback).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// What a render produced.
#[non_exhaustive]
#[derive(Debug)]
pub enum Rendered {
    /// The result fits (or the target has no limit).
    Complete(Output),
    /// The result is over the limit: store [`NeedsOffload::v1_bytes`] and call
    /// [`NeedsOffload::finish`] with the link.
    NeedsOffload(NeedsOffload),
}

/// A result over its target's limit, waiting for the caller to store it.
#[derive(Debug)]
pub struct NeedsOffload {
    v1: Vec<u8>,
    limit: usize,
    full: Output,
    // Boxed: an offload is rare and `Rendered` stays small.
    plan: Box<StubPlan>,
}

/// Everything a stub render needs, owned, so that the caller may store asynchronously.
#[derive(Debug)]
struct StubPlan {
    target: Target,
    phase: Phase,
    config: MapperConfig,
    declared: Declared,
    publishes_schema: bool,
    tool_name: String,
    task_id: String,
    context_id: String,
    error: Option<ToolError>,
    summary: Option<String>,
    query: Option<Query>,
    generated_at: Timestamp,
    expires_at: Option<Timestamp>,
}

impl NeedsOffload {
    /// The whole result in the v1 form (generation time filled): what to store.
    pub fn v1_bytes(&self) -> &[u8] {
        &self.v1
    }

    /// The rendered size that did not fit.
    pub fn size(&self) -> usize {
        self.full.size()
    }

    /// The target's limit.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The MIME type of [`NeedsOffload::v1_bytes`].
    pub fn mime_type(&self) -> &str {
        "application/json"
    }

    /// Renders the stub that points at `link` (DESIGN §4): E on failure, S cut to 1 KiB or a
    /// one-line note, the link, the size that did not fit, the echoed query cut to 1 KiB, the
    /// timestamps. A success of a tool that publishes an outputSchema becomes a
    /// `result_too_large` failure.
    pub fn finish(self, link: StoredLink) -> Result<Output, RenderError> {
        let size = self.size();
        let plan = &self.plan;
        let mut smallest = usize::MAX;
        for level in 0..3 {
            let stub = plan.stub(&link, size, self.limit, level);
            let json = plan.render(&stub);
            if json.len() <= self.limit {
                return Ok(Output {
                    json,
                    is_error: stub.is_failure(),
                    offloaded: true,
                    warnings: self.full.warnings.clone(),
                });
            }
            smallest = smallest.min(json.len());
        }
        Err(RenderError::StubTooLarge { target: plan.target, size: smallest, limit: self.limit })
    }

    /// The result when storing failed: a `tool_error` failure "result of N bytes exceeds the
    /// limit of L bytes and could not be stored".
    pub fn store_failed(self) -> Output {
        let plan = &self.plan;
        let message = format!(
            "result of {} bytes exceeds the limit of {} bytes and could not be stored",
            self.size(),
            self.limit
        );
        let mut failure = ToolResult::failure(ToolError::new(ErrorCode::ToolError, message));
        failure.meta.generated_at = Some(plan.generated_at);
        let json = plan.render(&failure);
        Output { json, is_error: true, offloaded: false, warnings: self.full.warnings }
    }

    /// The full render, sent inline anyway (`offload_fallback = "inline"`), with a warning;
    /// refused over 15 MiB.
    pub fn inline(self) -> Result<Output, RenderError> {
        let size = self.size();
        if size > MAX_INLINE {
            return Err(RenderError::InlineTooLarge { size });
        }
        let mut full = self.full;
        full.warnings.push(format!(
            "result of {size} bytes exceeds the limit of {} bytes and was sent inline",
            self.limit
        ));
        Ok(full)
    }
}

impl StubPlan {
    fn render(&self, result: &ToolResult) -> String {
        let generated_at = result.meta().generated_at.unwrap_or(self.generated_at);
        let layout = Layout::new(result, self.phase, self.declared, generated_at, None);
        lower_layout(
            &layout,
            self.target,
            &self.config,
            &Ids {
                tool_name: &self.tool_name,
                task_id: &self.task_id,
                context_id: &self.context_id,
                request_state: None,
            },
        )
    }

    /// The stub at cutting `level` (0: 1 KiB cuts; 1: 256-byte cuts, no details; 2: the note,
    /// no query, a 128-byte message).
    fn stub(&self, link: &StoredLink, size: usize, limit: usize, level: usize) -> ToolResult {
        let (summary_cut, query_cut, message_cut) = match level {
            0 => (Some(STUB_CUT), Some(STUB_CUT), None),
            1 => (Some(256), Some(256), Some(256)),
            _ => (None, None, Some(128)),
        };
        let mut error = self.error.clone();
        if error.is_none() && self.publishes_schema {
            let until = link.expires_at.map(|at| format!(" until {at}")).unwrap_or_default();
            error = Some(ToolError::new(
                ErrorCode::ResultTooLarge,
                format!(
                    "The result of {size} bytes exceeds the limit of {limit} bytes. It is stored at {}{until}; read it with resources/read.",
                    link.uri
                ),
            ));
        }
        if let (Some(error), Some(cut)) = (error.as_mut(), message_cut) {
            error.message = cut_str(&error.message, cut);
            error.details = None;
        }
        let mut stub = ToolResult::from_parts(None, error);
        stub.summary = Some(match (&self.summary, summary_cut) {
            (Some(summary), Some(cut)) => cut_str(summary, cut),
            _ => format!("The full result is stored at {}; read it with resources/read.", link.uri),
        });
        stub.stored_links.push(link.clone());
        stub.meta.response_size = Some(size as u64);
        stub.meta.query = match query_cut {
            Some(cut) => self.query.as_ref().map(|query| cut_query(query, cut)),
            None => None,
        };
        stub.meta.generated_at = Some(self.generated_at);
        stub.meta.expires_at = self.expires_at;
        stub
    }
}

/// `text` cut on a char boundary to at most `max` bytes, ending in `…` when cut.
fn cut_str(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// The query whose compact JSON fits `max` bytes: the tool name cut to a quarter of it, the
/// arguments replaced by a string holding the start of their JSON text when too long.
fn cut_query(query: &Query, max: usize) -> Query {
    let json_len = |q: &Query| {
        let mut out = String::new();
        lower::write_query(&mut out, q);
        out.len()
    };
    if json_len(query) <= max {
        return query.clone();
    }
    let tool = cut_str(&query.tool, max / 4);
    let arguments = lower::to_json(&query.arguments);
    let mut budget =
        max.saturating_sub(json_len(&Query::new(tool.clone(), Value::String(String::new()))));
    loop {
        let candidate = Query::new(tool.clone(), Value::String(cut_str(&arguments, budget)));
        let len = json_len(&candidate);
        if len <= max || budget == 0 {
            return candidate;
        }
        // Escaping made it longer than the raw cut: shrink by the overflow.
        budget = budget.saturating_sub(len - max);
    }
}

/// The caller's ids for A2A.
struct Ids<'a> {
    tool_name: &'a str,
    task_id: &'a str,
    context_id: &'a str,
    request_state: Option<&'a str>,
}

fn lower_layout(
    layout: &Layout<'_>,
    target: Target,
    config: &MapperConfig,
    ids: &Ids<'_>,
) -> String {
    let data_len = layout.data_json().map_or(0, str::len);
    match target {
        Target::Legacy => {
            let mut out = String::with_capacity(data_len + 256);
            legacy::render(&mut out, layout, true);
            out
        }
        Target::Mcp(revision) => {
            // Compat copies D twice, the second time escaped inside the envelope text.
            let mut out = String::with_capacity(data_len * 2 + data_len / 8 + 512);
            let settings = mcp::McpSettings {
                prefix: &config.prefix,
                server_name: &config.server_name,
                server_version: &config.server_version,
            };
            if layout.result().is_input_required() {
                mcp::render_input_required(&mut out, layout, ids.request_state, &settings);
            } else {
                mcp::render(&mut out, layout, revision, &settings);
            }
            out
        }
        Target::A2a(version) => {
            let mut out = String::with_capacity(data_len + 512);
            let task = a2a::TaskIds {
                task_id: ids.task_id,
                context_id: ids.context_id,
                tool_name: ids.tool_name,
                prefix: &config.prefix,
            };
            a2a::render(&mut out, layout, version, &task);
            out
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
        let mut warnings = Vec::new();
        let mut omit_structured = false;
        let replaced;
        // Input required is asked natively by 2026-07-28 and A2A; elsewhere it is the failure
        // `input_required` (an adapter that can ask on the connection does so before rendering).
        let down_levelled;
        let mut result = result;
        if result.is_input_required() && !asks_natively(target) {
            down_levelled = result.down_levelled().into_owned();
            result = &down_levelled;
        }
        let mode = self.config.validation;
        if let Some(output) = ctx.output
            && mode != ValidationMode::Off
            && let Err(violation) = output.check(result)
        {
            let at = if violation.path.is_empty() { "the root" } else { &violation.path };
            if mode == ValidationMode::Enforce {
                replaced = schema_failure(result, at, &violation.message, &violation.path);
                result = &replaced;
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
        let mut layout = Layout::new(result, phase, declared, generated_at, ctx.input_schema);
        if omit_structured {
            layout = layout.without_structured();
        }
        let ids = Ids {
            tool_name: ctx.tool_name,
            task_id: ctx.task_id,
            context_id: ctx.context_id,
            request_state: ctx.request_state,
        };
        let json = lower_layout(&layout, target, &self.config, &ids);
        let full = Output { json, is_error: result.is_failure(), offloaded: false, warnings };
        // A request for input is never offloaded: the client must read it to go on.
        let Some(limit) = self.config.limit(target).filter(|_| !result.is_input_required()) else {
            return Ok(Rendered::Complete(full));
        };
        if full.size() <= limit {
            return Ok(Rendered::Complete(full));
        }
        if limit < MIN_OFFLOAD_LIMIT {
            return Err(RenderError::LimitTooSmall { target, size: full.size(), limit });
        }
        let mut stored = result.clone();
        stored.meta.generated_at = Some(generated_at);
        let v1 = crate::v1::to_vec(&stored);
        let plan = Box::new(StubPlan {
            target,
            phase,
            config: self.config.clone(),
            declared,
            publishes_schema: ctx.output.is_some_and(|o| o.declared().is_some()),
            tool_name: ctx.tool_name.to_owned(),
            task_id: ctx.task_id.to_owned(),
            context_id: ctx.context_id.to_owned(),
            error: result.error().cloned(),
            summary: result.summary().map(str::to_owned),
            query: result.meta().query.clone().or_else(|| ctx.query.clone()),
            generated_at,
            expires_at: result.meta().expires_at,
        });
        Ok(Rendered::NeedsOffload(NeedsOffload { v1, limit, full, plan }))
    }
}

/// True when `target` renders input required as itself (MCP `InputRequiredResult`, A2A
/// `input-required`) rather than as the failure `input_required`.
pub fn asks_natively(target: Target) -> bool {
    match target {
        Target::Mcp(revision) => mcp::McpCaps::of(revision).input_required_result,
        Target::A2a(_) => true,
        Target::Legacy => false,
    }
}

/// The `tool_error` failure that replaces a result whose data does not match the declared
/// schema (enforce mode); it keeps the metadata and validates (a failure carries no data).
fn schema_failure(result: &ToolResult, at: &str, message: &str, path: &str) -> ToolResult {
    let mut details = Map::new();
    details.insert("path".to_owned(), Value::String(path.to_owned()));
    details.insert("message".to_owned(), Value::String(message.to_owned()));
    let error = ToolError::new(
        ErrorCode::ToolError,
        format!("The tool's result does not match its output schema at {at}: {message}"),
    )
    .with_details(details);
    let mut failure = ToolResult::failure(error);
    failure.meta = result.meta().clone();
    failure
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_keep_char_boundaries() {
        assert_eq!(cut_str("abc", 3), "abc");
        assert_eq!(cut_str("ééééé", 6), "é…");
        assert!(cut_str(&"x".repeat(2000), 1024).len() <= 1024);
    }

    #[test]
    fn long_queries_are_cut_to_the_budget() {
        let query = Query::new("search", serde_json::json!({"q": "\"".repeat(3000)}));
        let cut = cut_query(&query, 1024);
        let mut out = String::new();
        lower::write_query(&mut out, &cut);
        assert!(out.len() <= 1024, "{}", out.len());
        assert!(
            matches!(cut.arguments, Value::String(ref s) if s.starts_with("{\\\"q") || s.starts_with("{\"q"))
        );
    }

    #[test]
    fn prefixes_are_checked() {
        assert_eq!(
            MapperConfig::default().with_prefix("com..acme"),
            Err(ConfigError::MalformedPrefix("com..acme".into()))
        );
        assert_eq!(
            MapperConfig::default().with_prefix("io.modelcontextprotocol"),
            Err(ConfigError::ReservedPrefix("io.modelcontextprotocol".into()))
        );
        assert_eq!(
            MapperConfig::default().with_prefix("com.acme").map(|c| c.prefix().to_owned()),
            Ok("com.acme".into())
        );
    }
}

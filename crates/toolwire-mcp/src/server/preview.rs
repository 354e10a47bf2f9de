//! What a console needs of the server (DESIGN §18): every tool as the newest revision publishes
//! it, and one call through the call path — privileges, argument validation, the tool, the
//! mapper and its limits, the store for what is over them — previewed for every target and
//! host profile instead of answered for one.

use std::time::Instant;

use serde::Serialize;
use serde_json::Value;
use toolwire_core::preview::{Preview, PreviewError, Previewer};
use toolwire_core::{McpRevision, Query, RenderContext, Timestamp};
use toolwire_store::OffloadOptions;

use super::handler::McpServer;
use crate::registry::{CallContext, Principal};

/// One tool as a console lists it: its definition on the newest revision, where it comes from,
/// and what calling it takes.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolListing {
    /// The source that serves it.
    pub source: String,
    /// The definition `tools/list` publishes on the newest revision.
    #[serde(flatten)]
    pub definition: Value,
    /// Whether its calls may, must or must not become tasks.
    pub task_support: &'static str,
    /// The privileges a caller needs.
    pub privileges: Vec<String>,
}

/// Why a console call has no preview.
#[derive(Debug, thiserror::Error)]
pub enum PreviewCallError {
    /// No source serves a tool of that name.
    #[error("unknown tool: {0}")]
    UnknownTool(String),
    /// The tool failed with an internal error (a panic, a source that broke).
    #[error("tool {tool} failed with an internal error: {message}")]
    Internal {
        /// The tool.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// The result is over a limit and the result store did not take it.
    #[error(
        "the result of {tool} is over its limit and the result store did not take it: {message}"
    )]
    Store {
        /// The tool.
        tool: String,
        /// The store's error.
        message: String,
    },
    /// The mapper could not render the result.
    #[error("the result of {tool} could not be rendered: {message}")]
    Render {
        /// The tool.
        tool: String,
        /// The mapper's error.
        message: String,
    },
}

impl McpServer {
    /// Every tool of every source, in catalog order.
    pub fn tool_listing(&self) -> Vec<ToolListing> {
        let catalog = self.gateway.catalog.current();
        catalog
            .iter()
            .filter_map(|entry| {
                let definition = entry.tool.definition(McpRevision::NEWEST)?;
                Some(ToolListing {
                    source: entry.source.to_string(),
                    definition: serde_json::to_value(definition).ok()?,
                    task_support: entry.tool.spec.task_support.as_str(),
                    privileges: entry.tool.spec.privileges.clone(),
                })
            })
            .collect()
    }

    /// Calls `name` with `arguments` as `principal` through the call path and previews the
    /// result: every target, and every host profile's view rendered for `host_revision`. A
    /// result over a limit is stored once, bound to `principal`, and every render that needs it
    /// carries that link. The call runs in the request (a task tool runs to its end).
    pub async fn preview_call(
        &self,
        name: &str,
        arguments: Value,
        principal: Principal,
        host_revision: McpRevision,
    ) -> Result<Preview, PreviewCallError> {
        let started = Instant::now();
        let entry = self
            .gateway
            .catalog
            .get(name)
            .ok_or_else(|| PreviewCallError::UnknownTool(name.to_owned()))?;
        let tool = entry.tool;
        let context = CallContext::new(name, principal.clone(), host_revision, "console");
        let result = self.run_tool(&tool, &arguments, context).await.map_err(|error| {
            PreviewCallError::Internal { tool: name.to_owned(), message: error.message.to_string() }
        })?;
        let config = &self.gateway.config;
        let input_schema = tool.spec.input_schema.as_ref().unwrap_or(&Value::Null);
        let now = Timestamp::from_datetime(chrono::Utc::now());
        let context = RenderContext::new(name, now)
            .output(&tool.output)
            .input_schema(input_schema)
            .query(Query::new(name, arguments));
        let previewer = Previewer::new(&config.mapper, config.phase, context)
            .max_result_chars(tool.spec.max_result_chars);
        let rendered = |error: PreviewError| PreviewCallError::Render {
            tool: name.to_owned(),
            message: error.to_string(),
        };
        let preview = match previewer.preview(&result, &config.hosts, host_revision, None) {
            Err(PreviewError::NeedsOffload(needs)) => {
                let options = OffloadOptions::new(principal.name())
                    .ttl(config.link_ttl)
                    .fallback(config.offload_fallback);
                let stored = toolwire_store::offload(&config.stored, *needs, &options)
                    .await
                    .map_err(|error| rendered(PreviewError::Render(error)))?;
                let link = stored.link.ok_or_else(|| PreviewCallError::Store {
                    tool: name.to_owned(),
                    message: stored
                        .store_error
                        .map_or_else(|| "no link".to_owned(), |error| error.to_string()),
                })?;
                previewer.preview(&result, &config.hosts, host_revision, Some(&link))
            }
            other => other,
        };
        let preview = preview.map_err(rendered)?;
        tracing::info!(
            tool = name,
            principal = principal.name(),
            outcome = ?preview.outcome,
            duration_ms = started.elapsed().as_millis() as u64,
            "console call"
        );
        Ok(preview)
    }
}
